// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Dynamic clock devices: registration, lifetime and file operations.
 *
 * Lifetime.  A clock lives as long as its embedded struct device has
 * references: the driver's (dropped by clockdev_unregister()), one per
 * open file, and one per user of a clockid (for the length of the call).
 *
 * Removal.  clockdev_unregister() removes the character device, marks
 * the clock dead, wakes everyone sleeping on the clock's wait queue and then
 * waits for an SRCU grace period of this clock alone.  Every operation runs
 * inside an SRCU read section that starts by checking that the clock is
 * alive, so once unregister returns no driver operation runs or will run,
 * except the release of files that are still open.
 */
#include <kunit/visibility.h>
#include <linux/clockdev.h>
#include <linux/export.h>
#include <linux/file.h>
#include <linux/idr.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "clockdev.h"

#define CLOCKDEV_MINORS		(MINORMASK + 1)

static dev_t clockdev_devt;
static DEFINE_IDA(clockdev_ida);
/* Registered clocks by serial number, for restarted sleeps. */
static DEFINE_XARRAY_ALLOC1(clockdev_clocks);
static u32 clockdev_next_serial;

/**
 * clockdev_enter() - start an operation on a clock
 * @cd:  The clock.
 * @idx: Where to keep the SRCU read-side index for clockdev_exit().
 *
 * Return: 0 inside the clock's read section, or -ENODEV (and no section)
 * when the clock has been unregistered.
 */
int clockdev_enter(struct clock_device *cd, int *idx)
{
	*idx = srcu_read_lock(&cd->srcu);
	if (likely(!READ_ONCE(cd->dead)))
		return 0;
	srcu_read_unlock(&cd->srcu, *idx);
	return -ENODEV;
}
EXPORT_SYMBOL_IF_KUNIT(clockdev_enter);

/**
 * clockdev_exit() - end an operation started by clockdev_enter()
 * @cd:  The clock.
 * @idx: The index clockdev_enter() returned.
 */
void clockdev_exit(struct clock_device *cd, int idx)
{
	srcu_read_unlock(&cd->srcu, idx);
}
EXPORT_SYMBOL_IF_KUNIT(clockdev_exit);

static struct clock_device_context *file_context(struct file *fp)
{
	return fp->private_data;
}

static ssize_t clockdev_read(struct file *fp, char __user *buf,
			     size_t count, loff_t *ppos)
{
	struct clock_device_context *ctx = file_context(fp);
	struct clock_device *cd = ctx->cd;
	ssize_t ret = -EINVAL;
	int idx;

	if (clockdev_enter(cd, &idx))
		return -ENODEV;
	if (cd->ops->read)
		ret = cd->ops->read(ctx, fp->f_flags, buf, count);
	clockdev_exit(cd, idx);

	return ret;
}

static __poll_t clockdev_poll(struct file *fp, poll_table *wait)
{
	struct clock_device_context *ctx = file_context(fp);
	struct clock_device *cd = ctx->cd;
	__poll_t mask = 0;
	int idx;

	/* Unregister wakes this queue: a poller then sees the clock gone. */
	poll_wait(fp, &cd->wait, wait);
	if (clockdev_enter(cd, &idx))
		return EPOLLERR | EPOLLHUP;
	if (cd->ops->poll)
		mask = cd->ops->poll(ctx, fp, wait);
	clockdev_exit(cd, idx);

	return mask;
}

static long clockdev_ioctl(struct file *fp, unsigned int cmd,
			   unsigned long arg)
{
	struct clock_device_context *ctx = file_context(fp);
	struct clock_device *cd = ctx->cd;
	long ret = -ENOTTY;
	int idx;

	if (clockdev_enter(cd, &idx))
		return -ENODEV;
	if (cd->ops->ioctl)
		ret = cd->ops->ioctl(ctx, cmd, arg);
	clockdev_exit(cd, idx);

	return ret;
}

static int clockdev_open(struct inode *inode, struct file *fp)
{
	struct clock_device *cd =
		container_of(inode->i_cdev, struct clock_device, cdev);
	struct clock_device_context *ctx;
	int err, idx;

	err = clockdev_enter(cd, &idx);
	if (err)
		return err;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx) {
		err = -ENOMEM;
		goto out_exit;
	}
	ctx->cd = cd;
	ctx->fp = fp;
	if (cd->ops->open) {
		err = cd->ops->open(ctx, fp->f_mode);
		if (err)
			goto out_free_ctx;
	}
	get_device(&cd->dev);
	fp->private_data = ctx;
	clockdev_exit(cd, idx);

	return 0;

out_free_ctx:
	kfree(ctx);
out_exit:
	clockdev_exit(cd, idx);
	return err;
}

static int clockdev_release(struct inode *inode, struct file *fp)
{
	struct clock_device_context *ctx = file_context(fp);
	struct clock_device *cd = ctx->cd;
	int err = 0;

	if (cd->ops->release)
		err = cd->ops->release(ctx);
	fp->private_data = NULL;
	kfree(ctx);
	put_device(&cd->dev);

	return err;
}

const struct file_operations clockdev_fops = {
	.owner		= THIS_MODULE,
	.read		= clockdev_read,
	.poll		= clockdev_poll,
	.unlocked_ioctl	= clockdev_ioctl,
	.compat_ioctl	= clockdev_ioctl,
	.open		= clockdev_open,
	.release	= clockdev_release,
};
EXPORT_SYMBOL_IF_KUNIT(clockdev_fops);

/**
 * clockdev_get_by_serial() - find a registered clock by serial number
 * @serial: The clock's serial number.
 *
 * Return: the clock with a reference the caller drops with clockdev_put(),
 * or NULL when no clock with this number is registered.
 */
struct clock_device *clockdev_get_by_serial(u32 serial)
{
	struct clock_device *cd;

	xa_lock(&clockdev_clocks);
	cd = xa_load(&clockdev_clocks, serial);
	if (cd && try_module_get(cd->owner))
		get_device(&cd->dev);
	else
		cd = NULL;
	xa_unlock(&clockdev_clocks);

	return cd;
}

/*
 * clockdev_for_each() - call @fn for every registered clock
 * @fn: Called under the registry's spinlock: must not sleep.
 */
void clockdev_for_each(void (*fn)(struct clock_device *cd))
{
	struct clock_device *cd;
	unsigned long serial;

	xa_lock(&clockdev_clocks);
	xa_for_each(&clockdev_clocks, serial, cd)
		fn(cd);
	xa_unlock(&clockdev_clocks);
}

/* Free a clock whose last reference is gone.  Process context. */
static void clockdev_free(struct clock_device *cd)
{
	/*
	 * A clock that was never registered may have had its worker queued
	 * (clockdev_time_changed() of its driver): stop it too.
	 */
	clockdev_timers_shutdown(cd);
	cleanup_srcu_struct(&cd->srcu);
	if (cd->id >= 0)
		ida_free(&clockdev_ida, cd->id);
	cd->release(cd);
}

static void clockdev_free_work(struct work_struct *work)
{
	struct clock_device *cd =
		container_of(to_rcu_work(work), struct clock_device, free_rwork);
	struct module *owner = cd->owner;

	clockdev_free(cd);
	/* Taken by clockdev_dev_release(): the driver's release has run. */
	module_put(owner);
}

/*
 * The last reference to the clock is gone, in any context: a timer may be
 * deleted with interrupts off.  Unless clockdev_unregister() dropped
 * it and asks for it, the clock is freed later, from a work item queued
 * after an RCU grace period.  Whoever dropped the last reference holds a
 * reference to the owner module (an open file, a timer: see
 * clockdev_get_by_clockid()) or is its code: keep one until the driver's
 * release has run.
 */
static void clockdev_dev_release(struct device *dev)
{
	struct clock_device *cd = container_of(dev, struct clock_device, dev);

	if (cd->free_now) {
		clockdev_free(cd);
		return;
	}
	__module_get(cd->owner);
	queue_rcu_work(system_wq, &cd->free_rwork);
}

/**
 * clockdev_init() - prepare a clock for registration
 * @cd:      The clock, embedded in the driver's zeroed object.
 * @ops:     The driver's operations; must outlive the clock.
 * @release: Called to free the driver's object once the last reference
 *           to the clock is gone.
 *
 * After this succeeds, the object is freed only through @release: drop the
 * clock with put_device(&cd->dev) if it is not registered after all.
 *
 * Return: 0, or a negative error (then nothing needs undoing).
 */
int clockdev_init(struct clock_device *cd,
		  const struct clock_device_operations *ops,
		  void (*release)(struct clock_device *cd))
{
	int err;

	if (WARN_ON_ONCE(!ops || !release))
		return -EINVAL;

	err = init_srcu_struct(&cd->srcu);
	if (err)
		return err;

	cd->ops = ops;
	cd->owner = ops->owner;
	cd->release = release;
	cd->id = -1;
	init_waitqueue_head(&cd->wait);
	INIT_RCU_WORK(&cd->free_rwork, clockdev_free_work);
	clockdev_timers_init(cd);
	device_initialize(&cd->dev);
	cd->dev.release = clockdev_dev_release;

	return 0;
}
EXPORT_SYMBOL_GPL(clockdev_init);

/**
 * clockdev_register() - make a clock visible to user space
 * @cd: A clock set up by clockdev_init(), with its device's name set.
 *
 * Creates the character device.  When the driver has not chosen dev.devt,
 * a minor of the "clockdev" region is used.  Everything a reader of the
 * clock can reach must be set up before this call: from the moment the
 * device appears it may be opened.
 *
 * Return: 0, or a negative error; on error the caller still owns its
 * reference and drops it with put_device().
 */
int clockdev_register(struct clock_device *cd)
{
	int err;

	if (!cd->dev.devt) {
		err = ida_alloc_max(&clockdev_ida, CLOCKDEV_MINORS - 1,
				    GFP_KERNEL);
		if (err < 0)
			return err;
		cd->id = err;
		cd->dev.devt = MKDEV(MAJOR(clockdev_devt), cd->id);
	}

	err = xa_alloc_cyclic(&clockdev_clocks, &cd->serial, cd, xa_limit_31b,
			      &clockdev_next_serial, GFP_KERNEL);
	if (err < 0)
		return err;

	cdev_init(&cd->cdev, &clockdev_fops);
	cd->cdev.owner = cd->ops->owner;
	err = cdev_device_add(&cd->cdev, &cd->dev);
	if (err) {
		dev_err(&cd->dev, "unable to add clock device %d:%d: %d\n",
			MAJOR(cd->dev.devt), MINOR(cd->dev.devt), err);
		xa_erase(&clockdev_clocks, cd->serial);
		return err;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(clockdev_register);

/**
 * clockdev_unregister() - remove a clock
 * @cd: A registered clock.
 *
 * Removes the device node, marks the clock dead, wakes everything sleeping
 * on @cd->wait, disarms the clock's timers (their owners learn that the
 * clock is gone: sleepers wake with -ENODEV), and waits until operations
 * already running on this clock have returned.  Afterwards no driver operation runs again except
 * @ops->release for files still open, so the driver may release its
 * hardware.  Drops the driver's reference: the driver's object may be
 * freed (through the release passed to clockdev_init()) before this
 * returns, or later when the last file is closed.
 *
 * Context: process context; sleeps.
 */
void clockdev_unregister(struct clock_device *cd)
{
	bool last;

	might_sleep();

	cdev_device_del(&cd->cdev, &cd->dev);
	xa_erase(&clockdev_clocks, cd->serial);

	WRITE_ONCE(cd->dead, true);
	wake_up_all(&cd->wait);
	clockdev_timers_shutdown(cd);
	synchronize_srcu(&cd->srcu);

	/*
	 * Nobody can take a new reference now: the node, the registry and
	 * every operation are closed.  If ours is the last one, free the
	 * clock before returning, so that the driver's module may go at
	 * once; after a grace period, for timer code still looking at it.
	 * Reads of a clock with @reads_atomic run under rcu_read_lock():
	 * the same grace period waits for them.
	 */
	last = kref_read(&cd->dev.kobj.kref) == 1;
	if (last || cd->reads_atomic)
		synchronize_rcu();
	cd->free_now = last;
	put_device(&cd->dev);
}
EXPORT_SYMBOL_GPL(clockdev_unregister);

static int __init clockdev_core_init(void)
{
	int err;

	err = alloc_chrdev_region(&clockdev_devt, 0, CLOCKDEV_MINORS,
				  "clockdev");
	if (err) {
		pr_err("clockdev: failed to allocate device region: %d\n", err);
		return err;
	}
	return 0;
}
subsys_initcall(clockdev_core_init);
