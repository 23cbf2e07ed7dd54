// SPDX-License-Identifier: GPL-2.0
/*
 * RTC clocks: every RTC as a dynamic clock device, /dev/rtcclockN.
 *
 * /dev/rtcN admits one opener at a time.  /dev/rtcclockN admits any number,
 * and its file descriptor makes a clockid (FD_TO_CLOCKID) for
 * clock_gettime(), clock_getres() and clock_settime() in the RTC's time:
 * UTC, in whole seconds, as the RTC class keeps it.  The clocks are devices
 * of class rtc_clock, so that their uevents reach udev, which may set the
 * permissions of their nodes.
 *
 * Timers on an RTC clock (POSIX timers, clock_nanosleep(), timerfd) are
 * kept in the clockdev core's queue of the clock; the RTC's one alarm is
 * programmed through one rtc_timer per RTC for the earliest of them,
 * bounded by how far ahead the RTC's alarm reaches and re-armed as it
 * fires, so they fire while the system is suspended and wake it.  As with
 * alarmtimer, this holds for an RTC whose device may wake the system, when
 * its clock is registered; creating such a timer needs CAP_WAKE_ALARM, and
 * suspend is refused while one is due within two seconds.
 */
#include <linux/capability.h>
#include <linux/clockdev.h>
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/pm_wakeup.h>
#include <linux/rtc.h>
#include <linux/slab.h>

#include "rtc-core.h"

/**
 * struct rtc_clock - the dynamic clock of one RTC
 * @cd:  The clock.
 * @rtc: The RTC.  The clock holds a reference to its device.
 * @timer: The RTC timer that wakes the clock's timers.
 */
struct rtc_clock {
	struct clock_device cd;
	struct rtc_device *rtc;
	struct rtc_timer timer;
};

/*
 * The clock of each RTC, by RTC id.  An entry is stored and erased under
 * its RTC's ops_lock, and read under it: rtc_set_time() and the RTC
 * timer's callback hold it.
 */
static DEFINE_XARRAY(rtc_clocks);

static const struct class rtc_clock_class = {
	.name = "rtc_clock",
};

static struct rtc_clock *to_rtc_clock(struct clock_device *cd)
{
	return container_of(cd, struct rtc_clock, cd);
}

static struct rtc_clock *rtc_clock_of(struct rtc_device *rtc)
{
	lockdep_assert_held(&rtc->ops_lock);
	return xa_load(&rtc_clocks, rtc->id);
}

static int rtc_clock_getres(struct clock_device *cd, struct timespec64 *ts)
{
	/* The RTC class reads and sets whole seconds. */
	ts->tv_sec = 1;
	ts->tv_nsec = 0;

	return 0;
}

static int rtc_clock_gettime(struct clock_device *cd, struct timespec64 *ts)
{
	struct rtc_time tm;
	int err;

	err = rtc_read_time(to_rtc_clock(cd)->rtc, &tm);
	/*
	 * rtc_read_time() waits for the RTC interruptibly, but
	 * clock_gettime() has no EINTR: restart it after the signal.
	 */
	if (err == -EINTR)
		return -ERESTARTNOINTR;
	if (err)
		return err;
	ts->tv_sec = rtc_tm_to_time64(&tm);
	ts->tv_nsec = 0;

	return 0;
}

/*
 * The core checked that the file is open for writing; setting the RTC
 * also needs CAP_SYS_TIME, as RTC_SET_TIME does.  The fraction of a second
 * is dropped, as the RTC cannot hold it.
 */
static int rtc_clock_settime(struct clock_device *cd,
			     const struct timespec64 *ts)
{
	struct rtc_time tm;
	int err;

	if (!capable(CAP_SYS_TIME))
		return -EPERM;
	rtc_time64_to_tm(ts->tv_sec, &tm);
	err = rtc_set_time(to_rtc_clock(cd)->rtc, &tm);

	/* Nor has clock_settime(): see rtc_clock_gettime(). */
	return err == -EINTR ? -ERESTARTNOINTR : err;
}

/* An RTC has no frequency or offset to adjust through this clock. */
static int rtc_clock_adjtime(struct clock_device *cd,
			     struct __kernel_timex *tx)
{
	return tx->modes ? -EOPNOTSUPP : 0;
}

/* The RTC timer fired, called with the RTC's ops_lock held. */
static void rtc_clock_timer_fn(struct rtc_device *rtc)
{
	struct rtc_clock *rc = rtc_clock_of(rtc);

	if (rc)
		clockdev_alarm_fired(&rc->cd);
}

/*
 * Program the RTC timer for device time @expires (ns), or cancel it.  The
 * RTC class compares whole seconds: round up, so that the timer fires at
 * the first read at or past the expiry.  An alarm beyond the RTC's reach
 * (a day for many CMOS RTCs) is set as far as it reaches; the core then
 * reads the clock and programs the rest.
 */
static int rtc_clock_timer_alarm(struct clock_device *cd, u64 expires)
{
	struct rtc_clock *rc = to_rtc_clock(cd);
	struct rtc_device *rtc = rc->rtc;
	struct rtc_time tm;
	ktime_t now, when;
	int err;

	if (expires == U64_MAX) {
		rtc_timer_cancel(rtc, &rc->timer);
		return 0;
	}
	err = rtc_read_time(rtc, &tm);
	if (err)
		return err;
	now = rtc_tm_to_ktime(tm);
	when = min_t(u64, DIV_ROUND_UP_ULL(expires, NSEC_PER_SEC),
		     KTIME_SEC_MAX) * NSEC_PER_SEC;
	if (when > now)
		when = ktime_add(now, rtc_bound_alarmtime(rtc, when - now));

	return rtc_timer_start(rtc, &rc->timer, when, 0);
}

static const struct clock_device_operations rtc_clock_ops = {
	.owner		= THIS_MODULE,
	.clock_getres	= rtc_clock_getres,
	.clock_gettime	= rtc_clock_gettime,
	.clock_settime	= rtc_clock_settime,
	.clock_adjtime	= rtc_clock_adjtime,
	.timer_alarm	= rtc_clock_timer_alarm,
	.timer_tick	= NSEC_PER_SEC,
	.timer_wakes	= true,
};

/* An RTC with an alarm that may not wake the system: neither do its timers. */
static const struct clock_device_operations rtc_clock_nowake_ops = {
	.owner		= THIS_MODULE,
	.clock_getres	= rtc_clock_getres,
	.clock_gettime	= rtc_clock_gettime,
	.clock_settime	= rtc_clock_settime,
	.clock_adjtime	= rtc_clock_adjtime,
	.timer_alarm	= rtc_clock_timer_alarm,
	.timer_tick	= NSEC_PER_SEC,
};

/*
 * An RTC without an alarm: timers work through the core's generic path,
 * which reads the clock from a boot-time hrtimer, and do not wake the
 * system.  Its reads are whole seconds all the same.
 */
static const struct clock_device_operations rtc_clock_noalarm_ops = {
	.owner		= THIS_MODULE,
	.clock_getres	= rtc_clock_getres,
	.clock_gettime	= rtc_clock_gettime,
	.clock_settime	= rtc_clock_settime,
	.clock_adjtime	= rtc_clock_adjtime,
	.timer_tick	= NSEC_PER_SEC,
};

/*
 * Refuse suspend while a timer may be due within two seconds, as alarmtimer
 * does: the RTC alarm might fire before the system is down and be lost.
 * The RTC reads whole seconds, up to one behind: count that second too.
 */
static int rtc_clock_suspend(struct device *dev)
{
	struct rtc_clock *rc = container_of(dev, struct rtc_clock, cd.dev);
	struct rtc_time tm;
	u64 expires, now;

	if (!rc->cd.ops->timer_wakes ||
	    !clockdev_next_timer(&rc->cd, &expires) ||
	    rtc_read_time(rc->rtc, &tm))
		return 0;
	now = rtc_tm_to_time64(&tm) * NSEC_PER_SEC;
	if (expires < now + 3 * NSEC_PER_SEC) {
		pm_wakeup_event(dev, 2 * MSEC_PER_SEC);
		return -EBUSY;
	}

	return 0;
}

static const struct dev_pm_ops rtc_clock_pm_ops = {
	.suspend = rtc_clock_suspend,
};

static const struct device_type rtc_clock_type = {
	.name = "rtc_clock",
	.pm = &rtc_clock_pm_ops,
};

static void rtc_clock_release(struct clock_device *cd)
{
	struct rtc_clock *rc = to_rtc_clock(cd);

	put_device(&rc->rtc->dev);
	kfree(rc);
}

/**
 * rtc_clock_add_device() - give an RTC its dynamic clock
 * @rtc: An RTC being registered.
 *
 * A failure costs only the clock: the RTC works on without it.
 */
void rtc_clock_add_device(struct rtc_device *rtc)
{
	const struct clock_device_operations *ops;
	struct rtc_clock *rc;
	int err;

	/* As alarmtimer: an alarm wakes the system if its RTC may. */
	if (!test_bit(RTC_FEATURE_ALARM, rtc->features))
		ops = &rtc_clock_noalarm_ops;
	else if (device_may_wakeup(rtc->dev.parent))
		ops = &rtc_clock_ops;
	else
		ops = &rtc_clock_nowake_ops;

	rc = kzalloc(sizeof(*rc), GFP_KERNEL);
	if (!rc)
		return;
	err = clockdev_init(&rc->cd, ops, rtc_clock_release);
	if (err) {
		kfree(rc);
		return;
	}
	rc->rtc = rtc;
	get_device(&rtc->dev);
	rtc_timer_init(&rc->timer, rtc_clock_timer_fn, rtc);
	rc->cd.dev.class = &rtc_clock_class;
	rc->cd.dev.parent = &rtc->dev;
	rc->cd.dev.type = &rtc_clock_type;
	err = dev_set_name(&rc->cd.dev, "rtcclock%d", rtc->id);
	if (err)
		goto out_put;

	/*
	 * Findable before it is visible: a step or an alarm of the RTC
	 * from the moment the clock can be opened reaches it.
	 */
	mutex_lock(&rtc->ops_lock);
	err = xa_err(xa_store(&rtc_clocks, rtc->id, rc, GFP_KERNEL));
	mutex_unlock(&rtc->ops_lock);
	if (err)
		goto out_put;
	err = clockdev_register(&rc->cd);
	if (err)
		goto out_erase;
	if (ops->timer_wakes)
		device_init_wakeup(&rc->cd.dev, true);
	return;

out_erase:
	mutex_lock(&rtc->ops_lock);
	xa_erase(&rtc_clocks, rtc->id);
	mutex_unlock(&rtc->ops_lock);
out_put:
	dev_warn(&rtc->dev, "no dynamic clock: %d\n", err);
	put_device(&rc->cd.dev);
}

/**
 * rtc_clock_del_device() - remove an RTC's dynamic clock
 * @rtc: An RTC being unregistered.
 *
 * Open files of the clock then fail with -ENODEV, and its timers are
 * disarmed.
 */
void rtc_clock_del_device(struct rtc_device *rtc)
{
	struct rtc_clock *rc;

	mutex_lock(&rtc->ops_lock);
	rc = xa_erase(&rtc_clocks, rtc->id);
	mutex_unlock(&rtc->ops_lock);
	if (!rc)
		return;
	/* Unregistering drops the driver's reference: keep one for the timer. */
	get_device(&rc->cd.dev);
	device_init_wakeup(&rc->cd.dev, false);
	clockdev_unregister(&rc->cd);
	/* The core no longer programs the timer; it may still be queued. */
	rtc_timer_cancel(rtc, &rc->timer);
	put_device(&rc->cd.dev);
}

/**
 * rtc_clock_time_changed() - an RTC was set
 * @rtc: The RTC, with its ops_lock held.
 *
 * Armed absolute timers of its clock are re-evaluated.
 */
void rtc_clock_time_changed(struct rtc_device *rtc)
{
	struct rtc_clock *rc = rtc_clock_of(rtc);

	if (rc)
		clockdev_time_changed(&rc->cd);
}

static int __init rtc_clock_init(void)
{
	return class_register(&rtc_clock_class);
}
subsys_initcall(rtc_clock_init);
