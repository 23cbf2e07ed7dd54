// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit tests for the dynamic clock device core.
 *
 * The tests register clocks of their own, open their device nodes through
 * devtmpfs (so run them as a module, once /dev is mounted) and check
 * lifetime, lookup and the zombie state after unregister, and how timers
 * drive a clock's own alarm.
 */
#include <kunit/test.h>
#include <kunit/visibility.h>
#include <linux/clockdev.h>
#include <linux/clockdev_timer.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "clockdev.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

/**
 * struct test_clock - a clock whose operations count their calls
 * @cd:        The clock.
 * @ops:       Calls of any operation but release.
 * @opens:     Calls of open.
 * @releases:  Calls of release.
 * @open_err:  What open returns.
 * @entered:   Completed when read starts waiting for the clock to go.
 * @in_read:   Set while read runs.
 * @freed:     Where to report that the clock's memory was freed.
 */
struct test_clock {
	struct clock_device cd;
	atomic_t ops;
	atomic_t opens;
	atomic_t releases;
	int open_err;
	struct completion entered;
	atomic_t in_read;
	bool *freed;
};

static struct test_clock *to_test_clock(struct clock_device *cd)
{
	return container_of(cd, struct test_clock, cd);
}

static int test_gettime(struct clock_device *cd, struct timespec64 *ts)
{
	atomic_inc(&to_test_clock(cd)->ops);
	*ts = (struct timespec64){ .tv_sec = 42 };
	return 0;
}

static int test_open(struct clock_device_context *ctx, fmode_t mode)
{
	struct test_clock *tc = to_test_clock(ctx->cd);

	atomic_inc(&tc->ops);
	atomic_inc(&tc->opens);
	return tc->open_err;
}

static int test_release(struct clock_device_context *ctx)
{
	atomic_inc(&to_test_clock(ctx->cd)->releases);
	return 0;
}

/*
 * Blocks until the clock is unregistered, then lingers a little.  Never
 * touches @buf: the tests call it through f_op->read with no buffer
 * (kernel_read() needs read_iter, which clock devices do not have).
 */
static ssize_t test_read(struct clock_device_context *ctx, uint flags,
			 char __user *buf, size_t cnt)
{
	struct test_clock *tc = to_test_clock(ctx->cd);

	atomic_inc(&tc->ops);
	atomic_set(&tc->in_read, 1);
	complete(&tc->entered);
	wait_event(ctx->cd->wait, !clockdev_alive(ctx->cd));
	/* Unregister must wait for this, not only wake it. */
	msleep(20);
	atomic_set(&tc->in_read, 0);
	return -ENODEV;
}

static long test_ioctl(struct clock_device_context *ctx, unsigned int cmd,
		       unsigned long arg)
{
	atomic_inc(&to_test_clock(ctx->cd)->ops);
	return 0;
}

static __poll_t test_poll(struct clock_device_context *ctx, struct file *fp,
			  poll_table *wait)
{
	atomic_inc(&to_test_clock(ctx->cd)->ops);
	return EPOLLIN;
}

static const struct clock_device_operations test_clock_ops = {
	.owner		= THIS_MODULE,
	.clock_gettime	= test_gettime,
	.open		= test_open,
	.release	= test_release,
	.read		= test_read,
	.ioctl		= test_ioctl,
	.poll		= test_poll,
};

static DECLARE_WAIT_QUEUE_HEAD(test_clock_freed);

static void test_clock_free(struct clock_device *cd)
{
	struct test_clock *tc = to_test_clock(cd);

	if (tc->freed)
		WRITE_ONCE(*tc->freed, true);
	kfree(tc);
	wake_up_all(&test_clock_freed);
}

/*
 * Whether the clock was freed within 5 s: the last reference, if not
 * dropped by clockdev_unregister(), frees it from a work item after
 * an RCU grace period.
 */
static bool test_clock_wait_freed(bool *freed)
{
	return wait_event_timeout(test_clock_freed, READ_ONCE(*freed), 5 * HZ);
}

static atomic_t test_clock_ids = ATOMIC_INIT(0);

/* Registers a test clock; *path receives its device node. */
static struct test_clock *test_clock_create(struct kunit *test, bool *freed,
					    char *path, size_t len)
{
	struct test_clock *tc;
	int id = atomic_inc_return(&test_clock_ids);

	tc = kzalloc(sizeof(*tc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tc);
	init_completion(&tc->entered);
	tc->freed = freed;
	*freed = false;
	KUNIT_ASSERT_EQ(test, clockdev_init(&tc->cd, &test_clock_ops,
					    test_clock_free), 0);
	dev_set_name(&tc->cd.dev, "clockdev-kunit%d", id);
	snprintf(path, len, "/dev/clockdev-kunit%d", id);
	if (clockdev_register(&tc->cd)) {
		put_device(&tc->cd.dev);
		KUNIT_FAIL_AND_ABORT(test, "clockdev_register failed");
	}

	return tc;
}

static struct file *test_open_node(struct kunit *test, const char *path)
{
	struct file *fp = filp_open(path, O_RDWR, 0);

	if (IS_ERR(fp))
		kunit_skip(test, "cannot open %s (%ld): is devtmpfs mounted?",
			   path, PTR_ERR(fp));
	return fp;
}

static void clockdev_test_register_lookup(struct kunit *test)
{
	struct test_clock *tc;
	struct file *fp, *null;
	char path[40];
	bool freed;

	tc = test_clock_create(test, &freed, path, sizeof(path));
	fp = test_open_node(test, path);

	KUNIT_EXPECT_PTR_EQ(test, clockdev_from_file(fp), &tc->cd);
	KUNIT_EXPECT_EQ(test, atomic_read(&tc->opens), 1);

	null = filp_open("/dev/null", O_RDONLY, 0);
	if (!IS_ERR(null)) {
		KUNIT_EXPECT_NULL(test, clockdev_from_file(null));
		__fput_sync(null);
	}

	clockdev_unregister(&tc->cd);
	KUNIT_EXPECT_FALSE(test, freed);	/* the open file pins it */
	__fput_sync(fp);
	KUNIT_EXPECT_TRUE(test, test_clock_wait_freed(&freed));
}

static void clockdev_test_zombie(struct kunit *test)
{
	struct test_clock *tc;
	struct file *fp;
	char path[40], buf[8];
	loff_t pos = 0;
	bool freed;
	int ops, idx;

	tc = test_clock_create(test, &freed, path, sizeof(path));
	fp = test_open_node(test, path);

	KUNIT_ASSERT_EQ(test, clockdev_enter(&tc->cd, &idx), 0);
	clockdev_exit(&tc->cd, idx);
	KUNIT_EXPECT_EQ(test, vfs_poll(fp, NULL), EPOLLIN);

	clockdev_unregister(&tc->cd);
	ops = atomic_read(&tc->ops);

	KUNIT_EXPECT_EQ(test, clockdev_enter(&tc->cd, &idx), -ENODEV);
	KUNIT_EXPECT_EQ(test, fp->f_op->read(fp, NULL, sizeof(buf), &pos),
			(ssize_t)-ENODEV);
	KUNIT_EXPECT_EQ(test, fp->f_op->unlocked_ioctl(fp, 0, 0), -ENODEV);
	KUNIT_EXPECT_EQ(test, vfs_poll(fp, NULL), EPOLLERR | EPOLLHUP);
	/* No driver operation ran after unregister returned. */
	KUNIT_EXPECT_EQ(test, atomic_read(&tc->ops), ops);
	KUNIT_EXPECT_EQ(test, atomic_read(&tc->releases), 0);

	__fput_sync(fp);
	KUNIT_EXPECT_TRUE(test, test_clock_wait_freed(&freed));
}

static void clockdev_test_refcount(struct kunit *test)
{
	const int n = 100;
	struct test_clock *tc;
	unsigned int refs;
	struct file *fp;
	char path[40];
	bool freed;
	int i;

	tc = test_clock_create(test, &freed, path, sizeof(path));
	refs = kref_read(&tc->cd.dev.kobj.kref);
	for (i = 0; i < n; i++) {
		fp = test_open_node(test, path);
		__fput_sync(fp);
	}
	KUNIT_EXPECT_EQ(test, kref_read(&tc->cd.dev.kobj.kref), refs);
	KUNIT_EXPECT_EQ(test, atomic_read(&tc->opens), n);
	KUNIT_EXPECT_EQ(test, atomic_read(&tc->releases), n);

	/* A failing driver open takes no reference either. */
	tc->open_err = -EBUSY;
	fp = filp_open(path, O_RDWR, 0);
	KUNIT_EXPECT_PTR_EQ(test, fp, ERR_PTR(-EBUSY));
	if (!IS_ERR(fp))
		__fput_sync(fp);
	KUNIT_EXPECT_EQ(test, kref_read(&tc->cd.dev.kobj.kref), refs);

	/* The last reference: freed before unregister returns. */
	clockdev_unregister(&tc->cd);
	KUNIT_EXPECT_TRUE(test, freed);
}

struct blocked_reader {
	struct file *fp;
	struct completion done;
	ssize_t ret;
};

static int blocked_reader_fn(void *data)
{
	struct blocked_reader *r = data;
	loff_t pos = 0;
	char buf[8];

	/* The test driver's read does not touch the buffer. */
	r->ret = r->fp->f_op->read(r->fp, NULL, sizeof(buf), &pos);
	complete(&r->done);
	return 0;
}

static void clockdev_test_unregister_waits(struct kunit *test)
{
	struct blocked_reader r = { };
	struct task_struct *task;
	struct test_clock *tc;
	char path[40];
	bool freed;

	tc = test_clock_create(test, &freed, path, sizeof(path));
	r.fp = test_open_node(test, path);
	init_completion(&r.done);

	task = kthread_run(blocked_reader_fn, &r, "clockdev-kunit-rd");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	wait_for_completion(&tc->entered);

	/* Wakes the reader and returns only once it has left the driver. */
	clockdev_unregister(&tc->cd);
	KUNIT_EXPECT_EQ(test, atomic_read(&tc->in_read), 0);

	wait_for_completion(&r.done);
	KUNIT_EXPECT_EQ(test, r.ret, (ssize_t)-ENODEV);
	__fput_sync(r.fp);
	KUNIT_EXPECT_TRUE(test, test_clock_wait_freed(&freed));
}

/**
 * struct alarm_clock - a clock with an alarm that reaches only so far
 * @cd:     The clock.
 * @lock:   Guards the fields below.
 * @now:    The clock's time in ns, set by the test.
 * @reach:  How far ahead of @now the alarm can be set, in ns.
 * @alarm:  The alarm as last set, U64_MAX when cancelled.
 * @alarms: Calls of timer_alarm.
 * @fired:  The timer's callback ran, at @fired_at.
 * @fired_at: The clock's time the callback was given.
 * @wq:     Woken on every change of @alarms or @fired.
 */
struct alarm_clock {
	struct clock_device cd;
	spinlock_t lock;	/* guards the fields below */
	u64 now;
	u64 reach;
	u64 alarm;
	int alarms;
	bool fired;
	u64 fired_at;
	wait_queue_head_t wq;
};

static struct alarm_clock *to_alarm_clock(struct clock_device *cd)
{
	return container_of(cd, struct alarm_clock, cd);
}

static int alarm_clock_gettime(struct clock_device *cd, struct timespec64 *ts)
{
	struct alarm_clock *ac = to_alarm_clock(cd);

	spin_lock_irq(&ac->lock);
	*ts = ns_to_timespec64(ac->now);
	spin_unlock_irq(&ac->lock);
	return 0;
}

/* Like an RTC: an alarm beyond the reach is set as far as it reaches. */
static int alarm_clock_set_alarm(struct clock_device *cd, u64 expires)
{
	struct alarm_clock *ac = to_alarm_clock(cd);

	spin_lock_irq(&ac->lock);
	ac->alarm = expires == U64_MAX ? U64_MAX :
		    min(expires, ac->now + ac->reach);
	ac->alarms++;
	spin_unlock_irq(&ac->lock);
	wake_up(&ac->wq);
	return 0;
}

static const struct clock_device_operations alarm_clock_ops = {
	.owner		= THIS_MODULE,
	.clock_gettime	= alarm_clock_gettime,
	.timer_alarm	= alarm_clock_set_alarm,
	.timer_tick	= 1,
};

static void alarm_clock_free(struct clock_device *cd)
{
	kfree(to_alarm_clock(cd));
}

static void alarm_timer_fn(struct clockdev_timer *t, u64 now,
			   enum clockdev_timer_event ev)
{
	struct alarm_clock *ac = to_alarm_clock(t->cd);

	spin_lock(&ac->lock);
	ac->fired = ev == CLOCKDEV_TIMER_EXPIRED;
	ac->fired_at = now;
	spin_unlock(&ac->lock);
	wake_up(&ac->wq);
}

/* Waits (5 s at most) until timer_alarm was called @n times, for @alarm. */
static void alarm_clock_expect(struct kunit *test, struct alarm_clock *ac,
			       int n, u64 alarm)
{
	wait_event_timeout(ac->wq, READ_ONCE(ac->alarms) >= n, 5 * HZ);
	spin_lock_irq(&ac->lock);
	KUNIT_EXPECT_EQ(test, ac->alarms, n);
	KUNIT_EXPECT_EQ(test, ac->alarm, alarm);
	KUNIT_EXPECT_FALSE(test, ac->fired);
	spin_unlock_irq(&ac->lock);
}

/* The clock's time moves to @now, where its alarm fires. */
static void alarm_clock_fire(struct alarm_clock *ac, u64 now)
{
	spin_lock_irq(&ac->lock);
	ac->now = now;
	spin_unlock_irq(&ac->lock);
	clockdev_alarm_fired(&ac->cd);
}

/*
 * A timer beyond the reach of the clock's alarm: the alarm is set as far as
 * it reaches, and each time it fires short of the timer the core sets it
 * again, until the timer fires at its expiry, not before.
 */
static void clockdev_test_alarm_reach(struct kunit *test)
{
	const u64 s = NSEC_PER_SEC, t0 = 1000 * NSEC_PER_SEC;
	struct clockdev_timer timer;
	struct alarm_clock *ac;
	int id = atomic_inc_return(&test_clock_ids);
	u64 expires;

	ac = kzalloc(sizeof(*ac), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ac);
	spin_lock_init(&ac->lock);
	init_waitqueue_head(&ac->wq);
	ac->now = t0;
	ac->reach = 10 * s;
	ac->alarm = U64_MAX;
	KUNIT_ASSERT_EQ(test, clockdev_init(&ac->cd, &alarm_clock_ops,
					    alarm_clock_free), 0);
	dev_set_name(&ac->cd.dev, "clockdev-kunit%d", id);
	if (clockdev_register(&ac->cd)) {
		put_device(&ac->cd.dev);
		KUNIT_FAIL_AND_ABORT(test, "clockdev_register failed");
	}

	clockdev_timer_init(&timer, &ac->cd, alarm_timer_fn);
	KUNIT_ASSERT_EQ(test, clockdev_timer_start(&timer, t0 + 25 * s, true), 0);
	alarm_clock_expect(test, ac, 1, t0 + 10 * s);

	/* Short of the timer: set again, for the same timer. */
	alarm_clock_fire(ac, t0 + 10 * s);
	alarm_clock_expect(test, ac, 2, t0 + 20 * s);
	alarm_clock_fire(ac, t0 + 20 * s);
	alarm_clock_expect(test, ac, 3, t0 + 25 * s);

	/* Due: the timer fires, and the alarm, spent, is left alone. */
	alarm_clock_fire(ac, t0 + 25 * s);
	wait_event_timeout(ac->wq, READ_ONCE(ac->fired), 5 * HZ);
	clockdev_timer_cancel(&timer);
	/* Waits for the worker, which sets the alarm after the callbacks. */
	clockdev_next_timer(&ac->cd, &expires);
	spin_lock_irq(&ac->lock);
	KUNIT_EXPECT_TRUE(test, ac->fired);
	KUNIT_EXPECT_EQ(test, ac->fired_at, t0 + 25 * s);
	KUNIT_EXPECT_EQ(test, ac->alarms, 3);
	spin_unlock_irq(&ac->lock);
	clockdev_unregister(&ac->cd);
}

/**
 * struct rate_clock - a clock that runs at a rate and offset the test sets
 * @cd:     The clock.
 * @lock:   Guards @off, @num, @den and @b0.
 * @off:    Device time at boot time @b0, in ns.
 * @num:    The clock runs @num / @den times as fast as boot time ...
 * @den:    ... from @b0 on.
 * @b0:     Boot time of the last change of rate.
 * @read_ms: A read sleeps this long, then samples the clock (a PHC
 *          behind a slow bus, a busy machine).
 * @reads:  Calls of clock_gettime.
 * @fired:  Expiries of the test's timers.
 * @stepped: Steps reported to the test's timers.
 * @wq:     Woken on every expiry.
 *
 * The core is not told when the test changes @off: the clock jumps as a
 * PHC does when its NIC resets it, or as a broken one reads.
 */
struct rate_clock {
	struct clock_device cd;
	spinlock_t lock;	/* guards off, num, den and b0 */
	s64 off;
	u64 num;
	u64 den;
	ktime_t b0;
	unsigned int read_ms;
	unsigned int latch_ms;
	unsigned int set_ms;
	atomic_t reads;
	atomic_t sampled;
	atomic_t fired;
	atomic_t stepped;
	wait_queue_head_t wq;
};

static struct rate_clock *to_rate_clock(struct clock_device *cd)
{
	return container_of(cd, struct rate_clock, cd);
}

static u64 rate_clock_now(struct rate_clock *rc)
{
	u64 span = ktime_to_ns(ktime_sub(ktime_get_boottime(), rc->b0));

	return rc->off + div64_u64(span * rc->num, rc->den);
}

static int rate_clock_gettime(struct clock_device *cd, struct timespec64 *ts)
{
	struct rate_clock *rc = to_rate_clock(cd);
	unsigned int ms = READ_ONCE(rc->read_ms);

	unsigned long flags;

	atomic_inc(&rc->reads);
	if (ms)
		msleep(ms);
	spin_lock_irqsave(&rc->lock, flags);
	*ts = ns_to_timespec64(rate_clock_now(rc));
	spin_unlock_irqrestore(&rc->lock, flags);
	/* A clock latched, then read over a slow bus. */
	atomic_inc(&rc->sampled);
	wake_up(&rc->wq);
	ms = READ_ONCE(rc->latch_ms);
	if (ms)
		msleep(ms);
	return 0;
}

/* Moves the clock by @step ns, behind the core's back. */
static void rate_clock_jump(struct rate_clock *rc, s64 step)
{
	unsigned long flags;

	spin_lock_irqsave(&rc->lock, flags);
	rc->off += step;
	spin_unlock_irqrestore(&rc->lock, flags);
}

/*
 * From boot time now on, @num/@den times as fast as boot time, from where
 * the clock is (@set false) or from @off ns (@set true).  Caller holds
 * rc->lock.
 */
static void rate_clock_rebase(struct rate_clock *rc, bool set, u64 off,
			      u64 num, u64 den)
{
	ktime_t now = ktime_get_boottime();
	u64 span = ktime_to_ns(ktime_sub(now, rc->b0));

	rc->off = set ? off : rc->off + div64_u64(span * rc->num, rc->den);
	rc->b0 = now;
	rc->num = num;
	rc->den = den;
}

/* Changes the clock's rate to @num/@den, behind the core's back. */
static void rate_clock_set_rate(struct rate_clock *rc, u64 num, u64 den)
{
	unsigned long flags;

	spin_lock_irqsave(&rc->lock, flags);
	rate_clock_rebase(rc, false, 0, num, den);
	spin_unlock_irqrestore(&rc->lock, flags);
}

/* A clock set over a slow bus: set_ms late in the call. */
static int rate_clock_settime(struct clock_device *cd,
			      const struct timespec64 *ts)
{
	struct rate_clock *rc = to_rate_clock(cd);
	unsigned int ms = READ_ONCE(rc->set_ms);
	unsigned long flags;

	if (ms)
		msleep(ms);
	spin_lock_irqsave(&rc->lock, flags);
	rate_clock_rebase(rc, true, timespec64_to_ns(ts), rc->num, rc->den);
	spin_unlock_irqrestore(&rc->lock, flags);
	return 0;
}

static const struct clock_device_operations rate_clock_ops = {
	.owner		= THIS_MODULE,
	.clock_gettime	= rate_clock_gettime,
	.clock_settime	= rate_clock_settime,
};

static void rate_clock_free(struct clock_device *cd)
{
	kfree(to_rate_clock(cd));
}

/*
 * Tests run twice where the parameter says: on a clock whose reads may
 * sleep (the worker reads it) and on one with reads_atomic (the hrtimer
 * reads it and expires timers).
 */
static const bool rate_clock_atomic[] = { false, true };

static void rate_clock_atomic_desc(const bool *atomic, char *desc)
{
	strscpy(desc, *atomic ? "reads_atomic" : "sleeping reads",
		KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rate_clock_atomic, rate_clock_atomic, rate_clock_atomic_desc);

static struct rate_clock *rate_clock_create(struct kunit *test, u64 off,
					    u64 num, u64 den)
{
	const bool *atomic = test->param_value;

	int id = atomic_inc_return(&test_clock_ids);
	struct rate_clock *rc;

	rc = kzalloc(sizeof(*rc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rc);
	spin_lock_init(&rc->lock);
	init_waitqueue_head(&rc->wq);
	rc->off = off;
	rc->num = num;
	rc->den = den;
	rc->b0 = ktime_get_boottime();
	KUNIT_ASSERT_EQ(test, clockdev_init(&rc->cd, &rate_clock_ops,
					    rate_clock_free), 0);
	dev_set_name(&rc->cd.dev, "clockdev-kunit%d", id);
	rc->cd.reads_atomic = atomic && *atomic;
	if (clockdev_register(&rc->cd)) {
		put_device(&rc->cd.dev);
		KUNIT_FAIL_AND_ABORT(test, "clockdev_register failed");
	}
	return rc;
}

static void rate_timer_fn(struct clockdev_timer *t, u64 now,
			  enum clockdev_timer_event ev)
{
	struct rate_clock *rc = to_rate_clock(t->cd);

	if (ev == CLOCKDEV_TIMER_EXPIRED)
		atomic_inc(&rc->fired);
	else if (ev == CLOCKDEV_TIMER_STEPPED)
		atomic_inc(&rc->stepped);
	wake_up(&rc->wq);
}

/*
 * Keeps the core reading the clock for @ms of boot time: a relative timer
 * of 1 ms after another, each waited for (2 s at most).  Returns how many
 * did not fire in time.
 */
static int rate_clock_tick(struct rate_clock *rc, unsigned int ms)
{
	ktime_t end = ktime_add_ms(ktime_get_boottime(), ms);
	struct clockdev_timer t;
	int late = 0, n;

	clockdev_timer_init(&t, &rc->cd, rate_timer_fn);
	while (ktime_before(ktime_get_boottime(), end)) {
		n = atomic_read(&rc->fired);
		if (clockdev_timer_start(&t, NSEC_PER_MSEC, false))
			return -1;
		if (!wait_event_timeout(rc->wq, atomic_read(&rc->fired) != n,
					2 * HZ))
			late++;
		clockdev_timer_cancel(&t);
	}
	return late;
}

/*
 * A clock read below its previous read (a PHC reset by its NIC): the core
 * takes it as a step it was not told of.  Relative timers go on firing,
 * and an absolute timer the clock went back from does not fire early.
 */
static void clockdev_test_backward_read(struct kunit *test)
{
	const u64 t0 = 1000 * NSEC_PER_SEC;
	struct clockdev_timer abs;
	struct rate_clock *rc;
	u64 now;
	s64 rem;

	rc = rate_clock_create(test, t0, 1, 1);
	clockdev_timer_init(&abs, &rc->cd, rate_timer_fn);
	KUNIT_ASSERT_EQ(test, clockdev_timer_start(&abs, t0 + 3 * NSEC_PER_SEC,
						   true), 0);
	/* Long enough for the core to measure the rate. */
	KUNIT_EXPECT_EQ(test, rate_clock_tick(rc, 300), 0);
	rate_clock_jump(rc, -10LL * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, rate_clock_tick(rc, 500), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&rc->fired) > 0, true);

	rem = clockdev_timer_remaining(&abs, &now);
	KUNIT_EXPECT_GT(test, rem, 10LL * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, abs.state, (u8)CLOCKDEV_TIMER_QUEUED);

	/* Forward by far more than boot time went: a step too. */
	rate_clock_jump(rc, 3600LL * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, rate_clock_tick(rc, 300), 0);
	KUNIT_EXPECT_EQ(test, abs.state, (u8)CLOCKDEV_TIMER_IDLE);

	clockdev_timer_cancel(&abs);
	clockdev_unregister(&rc->cd);
}

/*
 * A clock that does not advance (QEMU 7.2's e1000e PHC) until its NIC
 * resets it, behind the core's back.  The core backed off reading it and
 * predicts no advance for it: it takes the jump for a step at its next
 * read.  An absolute timer the clock jumped past fires; a relative one,
 * moved with the clock by the whole jump, keeps all of its time and does
 * not fire, forward or back.
 */
static void clockdev_test_stalled_jump(struct kunit *test)
{
	const u64 t0 = 1000 * NSEC_PER_SEC;
	struct clockdev_timer rel, abs;
	struct rate_clock *rc;
	u64 now;

	rc = rate_clock_create(test, t0, 0, 1);
	clockdev_timer_init(&rel, &rc->cd, rate_timer_fn);
	clockdev_timer_init(&abs, &rc->cd, rate_timer_fn);
	KUNIT_ASSERT_EQ(test, clockdev_timer_start(&abs, t0 + NSEC_PER_SEC,
						   true), 0);
	KUNIT_ASSERT_EQ(test, clockdev_timer_start(&rel, NSEC_PER_SEC,
						   false), 0);
	/* Reads that find the clock where it was: the core backs off. */
	msleep(1500);
	KUNIT_EXPECT_EQ(test, atomic_read(&rc->fired), 0);

	rate_clock_jump(rc, 3600LL * NSEC_PER_SEC);
	/* The next read comes within the longest back-off, a second. */
	wait_event_timeout(rc->wq, atomic_read(&rc->fired) >= 2, 3 * HZ);
	KUNIT_EXPECT_EQ(test, abs.state, (u8)CLOCKDEV_TIMER_IDLE);
	KUNIT_EXPECT_EQ(test, atomic_read(&rc->fired), 1);
	KUNIT_EXPECT_EQ(test, rel.state, (u8)CLOCKDEV_TIMER_QUEUED);
	KUNIT_EXPECT_EQ(test, clockdev_timer_remaining(&rel, &now),
			(s64)NSEC_PER_SEC);

	rate_clock_jump(rc, -1800LL * NSEC_PER_SEC);
	wait_event_timeout(rc->wq, atomic_read(&rc->fired) >= 2, 3 * HZ);
	KUNIT_EXPECT_EQ(test, atomic_read(&rc->fired), 1);
	KUNIT_EXPECT_EQ(test, rel.state, (u8)CLOCKDEV_TIMER_QUEUED);
	KUNIT_EXPECT_EQ(test, clockdev_timer_remaining(&rel, &now),
			(s64)NSEC_PER_SEC);

	clockdev_timer_cancel(&rel);
	clockdev_timer_cancel(&abs);
	clockdev_unregister(&rc->cd);
}

/*
 * A read that takes far longer than the one before it, and samples the
 * clock at its end: the clock ran on while the read slept, which is no
 * jump.  A timer that asked to hear of steps hears nothing, and stays armed.
 */
static void clockdev_test_slow_read(struct kunit *test)
{
	const u64 t0 = 1000 * NSEC_PER_SEC;
	struct clockdev_timer watch;
	struct rate_clock *rc;

	rc = rate_clock_create(test, t0, 1, 1);
	clockdev_timer_init(&watch, &rc->cd, rate_timer_fn);
	watch.cancel_on_step = true;
	KUNIT_ASSERT_EQ(test, clockdev_timer_start(&watch,
						   t0 + 3600 * NSEC_PER_SEC,
						   true), 0);
	KUNIT_EXPECT_EQ(test, rate_clock_tick(rc, 300), 0);
	/* Reads took microseconds; the next one takes 400 ms. */
	WRITE_ONCE(rc->read_ms, 400);
	KUNIT_EXPECT_EQ(test, rate_clock_tick(rc, 1), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&rc->stepped), 0);
	KUNIT_EXPECT_EQ(test, watch.state, (u8)CLOCKDEV_TIMER_QUEUED);

	WRITE_ONCE(rc->read_ms, 0);
	clockdev_timer_cancel(&watch);
	clockdev_unregister(&rc->cd);
}

/*
 * A relative periodic timer that expired and was not moved on yet (its
 * signal not dequeued, its timerfd not read) when the clock jumps, forward
 * then back: moved on after the core saw the jump, it counts the periods
 * of boot time, not the jump, and its next expiry is within a period, not
 * a jump away.
 */
static void clockdev_test_expired_relative_jump(struct kunit *test)
{
	static const s64 jumps[] = { 10 * NSEC_PER_SEC, -10 * NSEC_PER_SEC };
	const u64 t0 = 1000 * NSEC_PER_SEC, iv = 100 * NSEC_PER_MSEC;
	struct clockdev_timer t;
	struct rate_clock *rc;
	ktime_t armed;
	u64 n, now;
	int fired, i;
	s64 span;

	rc = rate_clock_create(test, t0, 1, 1);
	KUNIT_EXPECT_EQ(test, rate_clock_tick(rc, 300), 0);
	clockdev_timer_init(&t, &rc->cd, rate_timer_fn);
	for (i = 0; i < ARRAY_SIZE(jumps); i++) {
		fired = atomic_read(&rc->fired);
		armed = ktime_get_boottime();
		KUNIT_ASSERT_EQ(test, clockdev_timer_start(&t, iv, false), 0);
		KUNIT_ASSERT_GT(test, wait_event_timeout(rc->wq,
							 atomic_read(&rc->fired) != fired,
							 2 * HZ), 0);
		clockdev_timer_wait_running(&t);
		rate_clock_jump(rc, jumps[i]);
		/* The core's next read sees the jump. */
		KUNIT_EXPECT_EQ(test, rate_clock_tick(rc, 20), 0);
		n = clockdev_timer_forward(&t, iv, true);
		span = ktime_to_ns(ktime_sub(ktime_get_boottime(), armed));
		KUNIT_EXPECT_LE_MSG(test, n * iv, span + iv,
				    "a jump of %lld ms counted as %llu periods in %lld ms",
				    jumps[i] / NSEC_PER_MSEC, n,
				    span / NSEC_PER_MSEC);
		now = rate_clock_now(rc);
		KUNIT_EXPECT_LE_MSG(test, t.node.expires, now + iv,
				    "next expiry %lld ms away after a jump of %lld ms",
				    (s64)(t.node.expires - now) / NSEC_PER_MSEC,
				    jumps[i] / NSEC_PER_MSEC);
		clockdev_timer_cancel(&t);
	}
	clockdev_unregister(&rc->cd);
}

/*
 * A rate measured from a read that sampled the clock late in its window
 * (it slept 8 ms first: a PHC behind a slow bus, a busy machine) would
 * run 3 % or more ahead.  The core does not take such a rate: a second
 * after the last read, moving a periodic timer past the time the clock has
 * surely reached (clockdev_timer_forward(), the overrun count of a POSIX
 * timer, the count a timerfd reads) counts no period the clock has not
 * reached.  Also on a clock that runs 2.5 times as fast as boot time (as
 * QEMU's e1000e PHC does): there the lateness of the read is worth 2.5
 * times as much of the clock's own time.
 */
static void imprecise_rate(struct kunit *test, u64 num, u64 den)
{
	const u64 t0 = 1000 * NSEC_PER_SEC, iv = NSEC_PER_MSEC;
	struct clockdev_timer t;
	struct rate_clock *rc;
	u64 truth;

	rc = rate_clock_create(test, t0, num, den);
	clockdev_timer_init(&t, &rc->cd, rate_timer_fn);
	/* Fast reads for 300 ms: the rate is measured. */
	KUNIT_EXPECT_EQ(test, rate_clock_tick(rc, 300), 0);
	/* The next reads, 250 ms later, sample the clock 8 ms late. */
	msleep(250);
	WRITE_ONCE(rc->read_ms, 8);
	KUNIT_EXPECT_EQ(test, rate_clock_tick(rc, 1), 0);
	WRITE_ONCE(rc->read_ms, 0);
	t.node.expires = rate_clock_now(rc);
	msleep(1000);
	clockdev_timer_forward(&t, iv, false);
	truth = rate_clock_now(rc);
	KUNIT_EXPECT_LE_MSG(test, t.node.expires - iv, truth,
			    "rate %llu/%llu: counted a period %lld us ahead of the clock",
			    num, den, (s64)(t.node.expires - iv - truth) / 1000);
	clockdev_unregister(&rc->cd);
}

static void clockdev_test_imprecise_rate(struct kunit *test)
{
	imprecise_rate(test, 1, 1);
	imprecise_rate(test, 5, 2);
}

/*
 * Arms a relative timer of @delay on @rc, a clock whose reads sleep, 80 ms
 * after a read: the core starts it from its prediction, plus a margin for
 * a rate error since the read.  Returns the clock's time just before, or
 * U64_MAX when the timer was not started so (armed 100 ms or more after
 * the read on a loaded host, five times).
 */
static u64 arm_on_prediction(struct kunit *test, struct rate_clock *rc,
			     struct clockdev_timer *t, u64 delay)
{
	u64 before;
	int i;

	for (i = 0; i < 5; i++) {
		KUNIT_EXPECT_EQ(test, rate_clock_tick(rc, 1), 0);
		msleep(80);
		before = rate_clock_now(rc);
		KUNIT_ASSERT_EQ(test, clockdev_timer_start(t, delay, false), 0);
		if (t->state == CLOCKDEV_TIMER_QUEUED)
			return before;
		clockdev_timer_cancel(t);
	}
	return U64_MAX;
}

/*
 * The margin of a relative timer started from the prediction covers a
 * rate error of 2000 ppm since the read (here the clock runs 1500 ppm
 * faster than the rate the core measured): never early.  Also on a clock
 * 2.5 times as fast as boot time, where 80 ms of boot time are 200 ms of
 * the clock's.
 */
static void anchor_rate_error(struct kunit *test, u64 num, u64 den)
{
	const u64 t0 = 1000 * NSEC_PER_SEC, delay = 50 * NSEC_PER_MSEC;
	struct clockdev_timer t;
	struct rate_clock *rc;
	u64 before;

	rc = rate_clock_create(test, t0, num, den);
	KUNIT_EXPECT_EQ(test, rate_clock_tick(rc, 300), 0);
	rate_clock_set_rate(rc, num * 2003, den * 2000);
	clockdev_timer_init(&t, &rc->cd, rate_timer_fn);
	before = arm_on_prediction(test, rc, &t, delay);
	if (before == U64_MAX) {
		clockdev_unregister(&rc->cd);
		kunit_skip(test, "no timer armed within 100 ms of a read in five tries");
	}
	KUNIT_EXPECT_GE_MSG(test, t.node.expires, before + delay,
			    "rate %llu/%llu: a relative timer %lld us early",
			    num, den, (s64)(before + delay - t.node.expires) / 1000);
	clockdev_timer_cancel(&t);
	clockdev_unregister(&rc->cd);
}

static void clockdev_test_anchor_rate_error(struct kunit *test)
{
	anchor_rate_error(test, 1, 1);
	anchor_rate_error(test, 5, 2);
}

/*
 * Sets @rc to @sec as clock_settime() does (kernel/clockdev/posix.c), in
 * a call that takes 8 ms and sets the clock at its end.
 */
static void rate_clock_slow_set(struct kunit *test, struct rate_clock *rc,
				time64_t sec)
{
	struct timespec64 ts = { .tv_sec = sec };
	ktime_t before;
	int err;

	WRITE_ONCE(rc->set_ms, 8);
	before = ktime_get_boottime();
	clockdev_timers_step_begin(&rc->cd);
	err = rc->cd.ops->clock_settime(&rc->cd, &ts);
	clockdev_timers_step_end(&rc->cd, !err, true, timespec64_to_ns(&ts),
				 before, U64_MAX);
	WRITE_ONCE(rc->set_ms, 0);
	KUNIT_ASSERT_EQ(test, err, 0);
}

/*
 * A clock_settime() that takes 8 ms (a PHC behind a slow bus) sets the
 * clock somewhere in that time; the core takes its start.  A rate measured
 * from there as from a fast read would be 4 % slow 200 ms later, and a
 * relative timer started from the prediction early by 4 % of the time
 * since the last read.  Never early.
 */
static void clockdev_test_slow_set(struct kunit *test)
{
	const u64 t0 = 1000 * NSEC_PER_SEC, delay = 50 * NSEC_PER_MSEC;
	struct clockdev_timer t;
	struct rate_clock *rc;
	u64 now;

	rc = rate_clock_create(test, t0, 1, 1);
	KUNIT_EXPECT_EQ(test, rate_clock_tick(rc, 300), 0);
	rate_clock_slow_set(test, rc, 2000);
	/* Reads for 300 ms: a rate measured over 200 ms and more. */
	KUNIT_EXPECT_EQ(test, rate_clock_tick(rc, 300), 0);
	clockdev_timer_init(&t, &rc->cd, rate_timer_fn);
	now = arm_on_prediction(test, rc, &t, delay);
	if (now == U64_MAX) {
		clockdev_unregister(&rc->cd);
		kunit_skip(test, "no timer armed within 100 ms of a read in five tries");
	}
	KUNIT_EXPECT_GE_MSG(test, t.node.expires, now + delay,
			    "a relative timer %lld us early",
			    (s64)(now + delay - t.node.expires) / 1000);
	clockdev_timer_cancel(&t);
	clockdev_unregister(&rc->cd);
}

/*
 * The same on a new clock, whose read after the set takes 50 ms: the
 * first estimate of its rate (over 40 ms or more, within 1/128), from the
 * fast read after that, must not start from the set either, or it is 13 %
 * slow, and so are the predictions (the time left on a timer) until the
 * next estimate.
 */
static void clockdev_test_slow_first_set(struct kunit *test)
{
	struct rate_clock *rc;
	s64 off, dist;
	int sampled;

	rc = rate_clock_create(test, 1000 * NSEC_PER_SEC, 1, 1);
	WRITE_ONCE(rc->read_ms, 50);
	sampled = atomic_read(&rc->sampled);
	rate_clock_slow_set(test, rc, 2000);
	/* The core reads a clock that was set at once. */
	KUNIT_ASSERT_GT(test, wait_event_timeout(rc->wq,
						 atomic_read(&rc->sampled) != sampled,
						 2 * HZ), 0);
	WRITE_ONCE(rc->read_ms, 0);
	KUNIT_EXPECT_EQ(test, rate_clock_tick(rc, 2), 0);
	off = (s64)READ_ONCE(rc->cd.timers.rate) - (s64)BIT_ULL(32);
	dist = abs(off);
	KUNIT_EXPECT_LE_MSG(test, dist, (s64)BIT_ULL(32) / 128,
			    "a rate %lld/1024 off one", div_s64(off, 1 << 22));
	clockdev_unregister(&rc->cd);
}

/*
 * A relative timer armed while a read is under way, after the read
 * sampled the clock (a clock latched, then read over a slow bus): that
 * read predates the timer and must not anchor it, or the timer expires
 * early by the time between the sample and the arming (here 100 ms).
 */
static void clockdev_test_arm_during_read(struct kunit *test)
{
	const u64 t0 = 1000 * NSEC_PER_SEC, delay = 50 * NSEC_PER_MSEC;
	struct clockdev_timer t;
	struct rate_clock *rc;
	int sampled, fired;
	u64 armed;

	rc = rate_clock_create(test, t0, 1, 1);
	KUNIT_EXPECT_EQ(test, rate_clock_tick(rc, 300), 0);
	clockdev_timer_init(&t, &rc->cd, rate_timer_fn);
	WRITE_ONCE(rc->latch_ms, 200);
	sampled = atomic_read(&rc->sampled);
	fired = atomic_read(&rc->fired);
	/* The core reads a clock it is told was stepped at once. */
	clockdev_time_changed(&rc->cd);
	KUNIT_ASSERT_GT(test, wait_event_timeout(rc->wq,
						 atomic_read(&rc->sampled) != sampled,
						 2 * HZ), 0);
	msleep(100);
	armed = rate_clock_now(rc);
	KUNIT_ASSERT_EQ(test, clockdev_timer_start(&t, delay, false), 0);
	KUNIT_EXPECT_GT(test, wait_event_timeout(rc->wq,
						 atomic_read(&rc->fired) != fired,
						 5 * HZ), 0);
	KUNIT_EXPECT_GE(test, t.node.expires, armed + delay);

	WRITE_ONCE(rc->latch_ms, 0);
	clockdev_timer_cancel(&t);
	clockdev_unregister(&rc->cd);
}

/*
 * A relative timer armed long after the last read: on a clock with
 * reads_atomic it starts from a read taken as it is armed, so its expiry
 * is the clock's time then plus the delay, queued at once; on a clock
 * whose reads sleep it waits for the next read.  Never early.
 */
static void clockdev_test_relative_anchor(struct kunit *test)
{
	const u64 t0 = 1000 * NSEC_PER_SEC, delay = 20 * NSEC_PER_MSEC;
	const bool *atomic = test->param_value;
	struct clockdev_timer t;
	struct rate_clock *rc;
	u64 before, after;
	int fired;

	rc = rate_clock_create(test, t0, 1, 1);
	KUNIT_EXPECT_EQ(test, rate_clock_tick(rc, 300), 0);
	/* No read for longer than an anchor on a prediction may use. */
	msleep(150);
	clockdev_timer_init(&t, &rc->cd, rate_timer_fn);
	fired = atomic_read(&rc->fired);
	before = rate_clock_now(rc);
	KUNIT_ASSERT_EQ(test, clockdev_timer_start(&t, delay, false), 0);
	after = rate_clock_now(rc);
	if (*atomic) {
		KUNIT_EXPECT_EQ(test, t.state, (u8)CLOCKDEV_TIMER_QUEUED);
		KUNIT_EXPECT_GE(test, t.node.expires, before + delay);
		KUNIT_EXPECT_LE(test, t.node.expires, after + delay);
	}
	KUNIT_EXPECT_GT(test, wait_event_timeout(rc->wq,
						 atomic_read(&rc->fired) != fired,
						 2 * HZ), 0);
	KUNIT_EXPECT_GE(test, t.node.expires, before + delay);

	clockdev_timer_cancel(&t);
	clockdev_unregister(&rc->cd);
}

/*
 * The longest relative timer on a clock at half the speed of boot time:
 * its expiry in boot time is beyond what ktime_t holds, and the core must
 * neither wrap it (and look at the clock again at once, for ever) nor
 * trap computing it.
 */
static void clockdev_test_huge_relative(struct kunit *test)
{
	struct clockdev_timer t;
	struct rate_clock *rc;
	int reads, i;

	rc = rate_clock_create(test, 1000 * NSEC_PER_SEC, 1, 2);
	/*
	 * Until the core has measured the rate: without one it reads the
	 * clock every CLOCKDEV_RATE_FIRST_SPAN, and reads that take long
	 * (sleeping ones on a debug kernel) need a longer span.
	 */
	for (i = 0; i < 10 && READ_ONCE(rc->cd.timers.rate_stale); i++)
		KUNIT_EXPECT_EQ(test, rate_clock_tick(rc, 300), 0);
	KUNIT_ASSERT_FALSE_MSG(test, READ_ONCE(rc->cd.timers.rate_stale),
			       "no rate measured in %d ms of reads", i * 300);

	clockdev_timer_init(&t, &rc->cd, rate_timer_fn);
	KUNIT_ASSERT_EQ(test, clockdev_timer_start(&t, KTIME_MAX, false), 0);
	reads = atomic_read(&rc->reads);
	msleep(300);
	/* A read to anchor it, and none after: it is years away. */
	KUNIT_EXPECT_LE(test, atomic_read(&rc->reads) - reads, 2);
	KUNIT_EXPECT_EQ(test, t.state, (u8)CLOCKDEV_TIMER_QUEUED);

	clockdev_timer_cancel(&t);
	/* An absolute one at the end of device time, likewise. */
	KUNIT_ASSERT_EQ(test, clockdev_timer_start(&t, U64_MAX, true), 0);
	reads = atomic_read(&rc->reads);
	msleep(300);
	KUNIT_EXPECT_LE(test, atomic_read(&rc->reads) - reads, 2);
	KUNIT_EXPECT_EQ(test, t.state, (u8)CLOCKDEV_TIMER_QUEUED);

	clockdev_timer_cancel(&t);
	clockdev_unregister(&rc->cd);
}

/*
 * A clock that runs 5/2 as fast as boot time, as the e1000e's PHC does
 * under QEMU 8 and later (its emulation counts the 82574's increment
 * period in 16 ns units, not 40).  Once the core has measured the rate,
 * what it predicts follows the clock: the device time it reports, and the
 * time left on an absolute timer 200 ms of boot time (500 ms of the
 * clock) after the last read, within 10 ms of the clock's own.  A new
 * clock, whose rate the core has not measured: 120 ms after a timer 5 s
 * ahead was armed, the time left is already within 10 ms (a clock set by
 * every test that uses it, as the selftests do, may never run 200 ms
 * without a step), and the timer fires within 100 ms of the clock's time:
 * the core does not trust the rate it assumes, one, for 7/8 of the way
 * (4.4 s of boot time, 10.9 s of the clock), but reads the clock until it
 * has measured one.
 */
static void clockdev_test_fast_clock(struct kunit *test)
{
	const u64 t0 = 1000 * NSEC_PER_SEC;
	struct clockdev_timer t;
	struct rate_clock *rc;
	u64 at, now, truth;
	s64 rem;

	rc = rate_clock_create(test, t0, 5, 2);
	clockdev_timer_init(&t, &rc->cd, rate_timer_fn);
	at = rate_clock_now(rc) + 5 * NSEC_PER_SEC;
	KUNIT_ASSERT_EQ(test, clockdev_timer_start(&t, at, true), 0);
	msleep(120);
	rem = clockdev_timer_remaining(&t, &now);
	truth = rate_clock_now(rc);
	KUNIT_EXPECT_LE(test, abs_diff((u64)rem, at - truth),
			10 * NSEC_PER_MSEC);
	KUNIT_EXPECT_GT(test, wait_event_timeout(rc->wq,
						 atomic_read(&rc->fired), 8 * HZ), 0);
	truth = rate_clock_now(rc);
	KUNIT_EXPECT_LE(test, truth - at, 100 * NSEC_PER_MSEC);
	clockdev_timer_cancel(&t);
	KUNIT_EXPECT_EQ(test, rate_clock_tick(rc, 300), 0);

	at = rate_clock_now(rc) + 5 * NSEC_PER_SEC;
	KUNIT_ASSERT_EQ(test, clockdev_timer_start(&t, at, true), 0);
	msleep(200);
	rem = clockdev_timer_remaining(&t, &now);
	truth = rate_clock_now(rc);
	KUNIT_EXPECT_LE(test, abs_diff(now, truth), 10 * NSEC_PER_MSEC);
	KUNIT_EXPECT_LE(test, abs_diff((u64)rem, at - truth),
			10 * NSEC_PER_MSEC);

	clockdev_timer_cancel(&t);
	clockdev_unregister(&rc->cd);
}

/* A timer that notes when it expired. */
struct noted_timer {
	struct clockdev_timer t;
	ktime_t at;
};

static void noted_timer_fn(struct clockdev_timer *t, u64 now,
			   enum clockdev_timer_event ev)
{
	struct noted_timer *nt = container_of(t, struct noted_timer, t);

	if (ev == CLOCKDEV_TIMER_EXPIRED)
		WRITE_ONCE(nt->at, ktime_get_boottime());
	rate_timer_fn(t, now, ev);
}

/*
 * A driver that resets its clock's hardware (e1000e, igb): from the reset
 * until the driver sets the clock again, reads return a time that is
 * neither the old one nor the new one (there seconds behind) and stands
 * still, here for 300 ms (igb under QEMU: 300 to 450 ms).  The driver then
 * sets the clock where it would have been had it run on.  It brackets the
 * reset with clockdev_time_change_begin() and clockdev_time_change_end():
 * a relative timer armed before keeps its time in boot time, even when
 * something (a timer armed meanwhile) asks the core to read the clock
 * during the reset.  Told only afterwards (clockdev_time_changed()), the
 * core would have read the clock standing still, and the timer would
 * fire the time it stood still late.
 */
static void clockdev_test_reset_window(struct kunit *test)
{
	const u64 t0 = 1000 * NSEC_PER_SEC, delay = NSEC_PER_SEC;
	struct noted_timer rel = {};
	struct clockdev_timer tick;
	struct rate_clock *rc;
	unsigned long flags;
	ktime_t armed, b0;
	s64 off, late;

	rc = rate_clock_create(test, t0, 1, 1);
	KUNIT_EXPECT_EQ(test, rate_clock_tick(rc, 300), 0);
	clockdev_timer_init(&rel.t, &rc->cd, noted_timer_fn);
	clockdev_timer_init(&tick, &rc->cd, rate_timer_fn);
	armed = ktime_get_boottime();
	KUNIT_ASSERT_EQ(test, clockdev_timer_start(&rel.t, delay, false), 0);
	msleep(100);

	/* The reset: the clock reads 10 s behind and stands still. */
	clockdev_time_change_begin(&rc->cd);
	spin_lock_irqsave(&rc->lock, flags);
	off = rc->off;
	b0 = rc->b0;
	rc->off = rate_clock_now(rc) - 10 * NSEC_PER_SEC;
	rc->b0 = ktime_get_boottime();
	rc->num = 0;
	spin_unlock_irqrestore(&rc->lock, flags);
	KUNIT_ASSERT_EQ(test, clockdev_timer_start(&tick, NSEC_PER_MSEC,
						   false), 0);
	msleep(300);
	/* The driver sets the clock where it would have been. */
	spin_lock_irqsave(&rc->lock, flags);
	rc->off = off;
	rc->b0 = b0;
	rc->num = 1;
	spin_unlock_irqrestore(&rc->lock, flags);
	clockdev_time_change_end(&rc->cd);

	KUNIT_EXPECT_GT(test, wait_event_timeout(rc->wq, READ_ONCE(rel.at),
						 3 * HZ), 0);
	late = ktime_to_ns(ktime_sub(READ_ONCE(rel.at), armed)) - (s64)delay;
	KUNIT_EXPECT_GE_MSG(test, late, 0, "fired %lld ms early",
			    -late / NSEC_PER_MSEC);
	KUNIT_EXPECT_LE_MSG(test, late, 100 * NSEC_PER_MSEC,
			    "fired %lld ms late after a reset of 300 ms",
			    late / NSEC_PER_MSEC);

	clockdev_timer_cancel(&tick);
	clockdev_timer_cancel(&rel.t);
	clockdev_unregister(&rc->cd);
}

static struct kunit_case clockdev_test_cases[] = {
	KUNIT_CASE(clockdev_test_register_lookup),
	KUNIT_CASE(clockdev_test_zombie),
	KUNIT_CASE(clockdev_test_refcount),
	KUNIT_CASE(clockdev_test_unregister_waits),
	KUNIT_CASE(clockdev_test_alarm_reach),
	KUNIT_CASE_PARAM_ATTR(clockdev_test_backward_read,
			      rate_clock_atomic_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(clockdev_test_huge_relative,
			      rate_clock_atomic_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(clockdev_test_stalled_jump,
			      rate_clock_atomic_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_SLOW(clockdev_test_slow_read),
	KUNIT_CASE_PARAM_ATTR(clockdev_test_expired_relative_jump,
			      rate_clock_atomic_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_SLOW(clockdev_test_imprecise_rate),
	KUNIT_CASE_SLOW(clockdev_test_anchor_rate_error),
	KUNIT_CASE_SLOW(clockdev_test_slow_set),
	KUNIT_CASE_SLOW(clockdev_test_slow_first_set),
	KUNIT_CASE_SLOW(clockdev_test_arm_during_read),
	KUNIT_CASE_PARAM_ATTR(clockdev_test_relative_anchor,
			      rate_clock_atomic_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(clockdev_test_fast_clock,
			      rate_clock_atomic_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(clockdev_test_reset_window,
			      rate_clock_atomic_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite clockdev_test_suite = {
	.name = "clockdev",
	.test_cases = clockdev_test_cases,
};

kunit_test_suite(clockdev_test_suite);

MODULE_DESCRIPTION("KUnit tests for dynamic clock devices");
MODULE_LICENSE("GPL");
