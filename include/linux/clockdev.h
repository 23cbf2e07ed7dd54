/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * clockdev.h - dynamic clock devices
 *
 * A dynamic clock is a clock offered by a driver (a PTP hardware clock, an
 * RTC, ...) that user space opens as a character device and then uses as a
 * POSIX clock through the clockid made from the file descriptor,
 * FD_TO_CLOCKID(fd).
 */
#ifndef _LINUX_CLOCKDEV_H_
#define _LINUX_CLOCKDEV_H_

#include <linux/cdev.h>
#include <linux/clockdev_timer.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/srcu.h>
#include <linux/time64.h>
#include <linux/timex.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

struct clock_device;
struct clock_device_context;

/**
 * struct clock_device_operations - what a clock driver offers
 *
 * @owner:         Module providing these operations.  An open file of the
 *                 clock pins it, so @release may still be called after the
 *                 clock was unregistered.
 * @clock_getres:  Read the clock's resolution.
 * @clock_gettime: Read the clock.
 * @clock_settime: Set the clock.  The timespec has been validated with
 *                 timespec64_valid_strict().
 * @clock_adjtime: Adjust the clock, or report its state when tx->modes == 0.
 * @open:          Optional: a file of the clock is being opened.
 * @release:       Optional: the last reference to a file was dropped.  Called
 *                 even when the clock has been unregistered meanwhile: it
 *                 may free what @open allocated but must not touch hardware.
 * @read:          Optional character device read; -EINVAL when missing.
 * @poll:          Optional character device poll; 0 when missing.
 * @ioctl:         Optional character device ioctl (also used for compat
 *                 ioctls); -ENOTTY when missing.
 * @timer_alarm:   Optional: the clock has an alarm of its own (an RTC), which
 *                 then drives the clock's timers instead of the core's
 *                 boot-time hrtimer.  Program it for device time @expires
 *                 (ns), or cancel it when @expires is U64_MAX.  The driver
 *                 may program an earlier time than asked when its hardware
 *                 cannot reach that far; when the alarm fires, it calls
 *                 clockdev_alarm_fired() and the core reads the clock.
 *                 Called by the core's worker only, one call at a time.  The
 *                 driver cancels its alarm after clockdev_unregister().
 * @timer_tick:    Optional: the unit of the clock's reads, in ns, for a
 *                 clock that reads in whole ticks (NSEC_PER_SEC for an RTC).
 *                 A relative timer expires once the clock advanced by its
 *                 delay rounded up to the tick, plus one tick, since a read
 *                 cannot tell how far into the current tick the clock is:
 *                 never before the delay passed.
 * @timer_wakes:   Timers on this clock wake the system from suspend: creating
 *                 one needs CAP_WAKE_ALARM, as for CLOCK_BOOTTIME_ALARM.
 *
 * Every operation except @release is called inside the clock's read-side
 * section (see struct clock_device): never after clockdev_unregister()
 * has returned.  Operations may sleep.  A clock operation that is missing
 * makes the system call fail with -EOPNOTSUPP.
 */
struct clock_device_operations {
	struct module *owner;

	int (*clock_getres)(struct clock_device *cd, struct timespec64 *ts);
	int (*clock_gettime)(struct clock_device *cd, struct timespec64 *ts);
	int (*clock_settime)(struct clock_device *cd,
			     const struct timespec64 *ts);
	int (*clock_adjtime)(struct clock_device *cd, struct __kernel_timex *tx);

	int (*open)(struct clock_device_context *ctx, fmode_t f_mode);
	int (*release)(struct clock_device_context *ctx);
	ssize_t (*read)(struct clock_device_context *ctx, uint flags,
			char __user *buf, size_t cnt);
	__poll_t (*poll)(struct clock_device_context *ctx, struct file *fp,
			 poll_table *wait);
	long (*ioctl)(struct clock_device_context *ctx, unsigned int cmd,
		      unsigned long arg);

	int (*timer_alarm)(struct clock_device *cd, u64 expires);
	u64 timer_tick;
	bool timer_wakes;
};

/**
 * struct clockdev_timer_base - the timers of one clock
 *
 * @lock:        Protects everything below except @expiry_lock; irq-safe.
 * @queue:       Armed timers, by expiry in device time.
 * @unanchored:  Relative timers waiting for the next read of the clock.
 * @hrtimer:     CLOCK_BOOTTIME timer: when to read the clock next.  On a
 *               clock with reads_atomic it reads the clock and expires
 *               timers itself, but during steps and suspend.
 * @work:        Reads the clock and expires timers, in process context.
 * @expiry_lock: Held, with interrupts disabled, while expiry callbacks run.
 * @step_mutex:  Taken by the worker around a read and its consequences,
 *               and across known steps: the two never overlap.
 * @running:     The timer whose callback runs.
 * @ref_dev:     Device time of the last read (ns) ...
 * @ref_boot:    ... the boot time just before it was read ...
 * @ref_lead:    ... and how long the read took: the prediction from
 *               (@ref_dev, @ref_boot) may run ahead of the clock by this.
 * @rate_dev:    Device time of the read the rate is measured from ...
 * @rate_boot:   ... and its boot time.
 * @rate:        Device ns per boot ns, 32.32 fixed point, from two reads.
 * @backoff:     Delay between reads of a clock that does not advance.
 * @rel_shift:   The sum of the steps relative timers were moved by: a
 *               relative timer out of the queue (expired, its owner yet to
 *               move it on) catches up with the steps since its own.
 * @alarm_next:  With ops->timer_alarm: the expiry the worker wants the
 *               driver's alarm programmed for (U64_MAX: none) ...
 * @alarm_armed: ... and what it was last programmed for.
 * @alarm_fired: The driver's alarm fired since it was programmed: it is
 *               no longer armed (it may have fired early, at the limit of
 *               the hardware's reach).
 * @ref_valid:   @ref_dev and @ref_boot hold a read.
 * @stalled:     The clock did not advance between the last two reads.
 * @rate_stale:  @rate was not measured yet (it is one), or the clock's
 *               frequency was changed since: predictions may fall behind
 *               the clock, so relative timers are not anchored on them,
 *               and the clock is read at least every
 *               CLOCKDEV_RATE_FIRST_SPAN, @rate a first estimate, until a
 *               rate is measured.
 * @rate_restart: ... and the next read starts a new measurement.
 * @resumed:     The system resumed since the last read: the boot time
 *               spent suspended must not enter the rate.
 * @stepped:     The clock was stepped by an unknown amount since the last
 *               read.
 * @step_event:  A step is to be reported to cancel-on-step timers.
 * @step_gen:    Counts the steps reported to cancel-on-step timers.
 * @step_seq:    Counts steps, so that a read racing with one is dropped.
 * @stepping:    Steps under way: the worker does not read meanwhile.
 * @looking:     A read is under way, the worker's or the hrtimer's, until
 *               the mapping is updated from it: the other waits, and
 *               relative timers armed meanwhile wait for the next read.
 * @shutdown:    The clock is gone: nothing can be armed any more.
 *
 * The worker's reads and its expiry decisions are traced
 * (include/trace/events/clockdev.h).
 */
struct clockdev_timer_base {
	spinlock_t lock;		/* see above */
	struct timerqueue_head queue;
	struct list_head unanchored;
	struct hrtimer hrtimer;
	struct work_struct work;
	spinlock_t expiry_lock;	/* held while callbacks run */
	struct mutex step_mutex;
	struct clockdev_timer *running;
	u64 ref_dev;
	ktime_t ref_boot;
	u64 ref_lead;
	u64 rate_dev;
	ktime_t rate_boot;
	u64 rate_lead;
	u64 rate;
	u64 backoff;
	u64 rel_shift;
	u64 alarm_next;
	u64 alarm_armed;
	bool alarm_fired;
	bool ref_valid;
	bool stalled;
	bool rate_stale;
	bool rate_restart;
	bool resumed;
	bool stepped;
	bool step_event;
	bool looking;
	bool shutdown;
	unsigned int step_seq;
	unsigned int step_gen;
	unsigned int stepping;
};

/**
 * struct clock_device - a dynamic clock
 *
 * @dev:     The clock's device.  Its reference count is the clock's
 *           lifetime: every open file holds a reference, and the memory
 *           around the clock is freed only by @release, called from the
 *           device's release once the last reference is gone.  The driver
 *           fills in the device's class, parent, groups, name and, if it
 *           manages its own region, devt, between clockdev_init() and
 *           clockdev_register().
 * @cdev:    The character device.  Its owner is @ops->owner.
 * @ops:     The driver's operations.
 * @owner:   @ops->owner: held by every timer and sleeper, and by the
 *           clock while it is being freed, since @release runs its code.
 * @release: Frees the object the clock is embedded in.
 * @srcu:    Read-side protection of @dead: every operation runs inside
 *           an SRCU read section of this clock only, so readers of one
 *           clock never serialise each other or wait for another clock.
 * @dead:    Set once by clockdev_unregister(), read under @srcu.
 * @wait:    Woken by clockdev_unregister() after @dead is set, so that
 *           anyone sleeping on it notices the removal.  The core's poll
 *           waits here too; drivers may use it for their own events.
 * @id:      Minor number in the clockdev region when the core chose devt.
 * @serial:  Number naming the clock while it is registered; never reused
 *           soon (cyclic), so a restarted sleep finds the same clock.
 * @timers:  The clock's timers.
 * @free_rwork: Frees the clock once the last reference is gone, after an
 *           RCU grace period: the last reference may be dropped in atomic
 *           context, and timer code may still look at the clock under
 *           rcu_read_lock() then (see clockdev_timer_wait_running()).
 * @free_now: Set by clockdev_unregister() when it drops the last
 *           reference, having waited for that grace period: the clock is
 *           freed before unregister returns.
 * @reads_atomic: Set by the driver before clockdev_register() when
 *           @ops->clock_gettime and @ops->clock_getres never sleep (a
 *           register read under a spinlock): the core then calls them
 *           under rcu_read_lock() instead of @srcu, and may call
 *           @ops->clock_gettime with interrupts disabled.
 *
 * A driver embeds a struct clock_device in its own object and finds it
 * back with container_of().  After clockdev_unregister() returns the
 * clock is a zombie: every system call and file operation on it fails
 * with -ENODEV (poll reports EPOLLERR | EPOLLHUP), and no driver operation
 * other than @ops->release runs again.
 */
struct clock_device {
	struct device dev;
	struct cdev cdev;
	const struct clock_device_operations *ops;
	struct module *owner;
	void (*release)(struct clock_device *cd);
	struct srcu_struct srcu;
	bool dead;
	wait_queue_head_t wait;
	int id;
	u32 serial;
	struct clockdev_timer_base timers;
	struct rcu_work free_rwork;
	bool free_now;
	bool reads_atomic;
};

/**
 * struct clock_device_context - one open file of a clock
 *
 * @cd:           The clock.  The file holds a reference to it.
 * @fp:           The file; its f_mode tells the access mode.
 * @private_data: For the driver, set in its open method.
 */
struct clock_device_context {
	struct clock_device *cd;
	struct file *fp;
	void *private_data;
};

#if IS_ENABLED(CONFIG_CLOCKDEV)

int clockdev_init(struct clock_device *cd,
		  const struct clock_device_operations *ops,
		  void (*release)(struct clock_device *cd));
int clockdev_register(struct clock_device *cd);
void clockdev_unregister(struct clock_device *cd);
void clockdev_time_changed(struct clock_device *cd);
void clockdev_time_change_begin(struct clock_device *cd);
void clockdev_time_change_end(struct clock_device *cd);
void clockdev_alarm_fired(struct clock_device *cd);
bool clockdev_next_timer(struct clock_device *cd, u64 *expires);

/**
 * clockdev_alive() - whether a clock is still registered
 * @cd: The clock.
 *
 * For wait conditions of drivers sleeping inside an operation: a sleeper
 * must stop waiting once this returns false, or unregister will wait for it.
 *
 * Return: false once clockdev_unregister() has started.
 */
static inline bool clockdev_alive(struct clock_device *cd)
{
	return !READ_ONCE(cd->dead);
}

#endif /* CONFIG_CLOCKDEV */

#endif /* _LINUX_CLOCKDEV_H_ */
