// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Dynamic clock devices as POSIX clocks: the k_clock behind the clockids
 * made from file descriptors, FD_TO_CLOCKID(fd) = ((~fd) << 3) | CLOCKFD.
 *
 * Results, in order of precedence:
 *  - invalid timespec (clock_settime)			-EINVAL
 *  - fd not open, or not a clock device		-EINVAL
 *  - clock unregistered				-ENODEV
 *  - write access needed (clock_settime, clock_adjtime
 *    with modes != 0) and fd opened read-only		-EACCES
 *  - operation not offered by the driver		-EOPNOTSUPP
 *  - otherwise the driver's result.
 */
#include <linux/capability.h>
#include <linux/clockdev.h>
#include <linux/file.h>
#include <linux/math64.h>
#include <linux/sched/signal.h>
#include <linux/posix-timers.h>

#include "../time/posix-timers.h"
#include "clockdev.h"

/**
 * struct clockdev_call - a clock in use through a clockid
 * @f:   The file the clockid names, from fdget(): held for the call, without
 *       touching its reference count unless the file table is shared.
 * @cd:  Its clock.
 * @idx: SRCU read-side index: the call runs inside the clock's section.
 */
struct clockdev_call {
	struct fd f;
	struct clock_device *cd;
	int idx;
};

static int clockdev_call_begin(const clockid_t id, struct clockdev_call *call)
{
	int err;

	call->f = fdget(clockid_to_fd(id));
	if (fd_empty(call->f))
		return -EINVAL;

	call->cd = clockdev_from_file(fd_file(call->f));
	if (!call->cd) {
		err = -EINVAL;
		goto out_put_file;
	}

	err = clockdev_enter(call->cd, &call->idx);
	if (err)
		goto out_put_file;

	return 0;

out_put_file:
	fdput(call->f);
	return err;
}

static void clockdev_call_end(struct clockdev_call *call)
{
	clockdev_exit(call->cd, call->idx);
	fdput(call->f);
}

static bool clockdev_call_writable(struct clockdev_call *call)
{
	return fd_file(call->f)->f_mode & FMODE_WRITE;
}

/**
 * clockdev_get_by_clockid() - the clock a clockid names, for timers
 * @id: A clockid made from a file descriptor.
 *
 * The reference pins the driver's module too (@cd->owner): a timer may
 * outlive the file and the clock's removal, and the core still calls the
 * module's code when the last reference goes.
 *
 * Return: the clock, with a reference dropped by clockdev_put();
 * ERR_PTR(-EINVAL) when @id does not name an open clock device, -ENODEV
 * when the clock was removed, -EOPNOTSUPP when it cannot be read, -EPERM
 * when its timers wake the system and the caller lacks CAP_WAKE_ALARM.
 */
struct clock_device *clockdev_get_by_clockid(const clockid_t id)
{
	struct clockdev_call call;
	struct clock_device *cd;
	int err;

	err = clockdev_call_begin(id, &call);
	if (err)
		return ERR_PTR(err);
	cd = call.cd;
	if (!cd->ops->clock_gettime)
		cd = ERR_PTR(-EOPNOTSUPP);
	else if (clockdev_wakes(cd) && !capable(CAP_WAKE_ALARM))
		cd = ERR_PTR(-EPERM);
	else if (!try_module_get(cd->owner))
		cd = ERR_PTR(-ENODEV);
	else
		get_device(&cd->dev);
	if (!IS_ERR(cd))
		clockdev_timers_prepare(cd);
	clockdev_call_end(&call);

	return cd;
}

/**
 * clockdev_wakes() - whether a clock's timers wake the system
 * @cd: The clock.
 *
 * As for alarm timers, creating such a timer needs CAP_WAKE_ALARM, and so
 * does arming a timerfd of it.
 *
 * Return: the driver's ops->timer_wakes.
 */
bool clockdev_wakes(struct clock_device *cd)
{
	return cd->ops->timer_wakes;
}

/**
 * clockdev_put() - drop a reference taken by clockdev_get_by_clockid()
 * @cd: The clock.
 *
 * Context: any.  The last reference frees the clock after an RCU grace
 * period, from a work item.
 */
void clockdev_put(struct clock_device *cd)
{
	struct module *owner = cd->owner;

	put_device(&cd->dev);
	module_put(owner);
}

/**
 * clockdev_gone() - whether a clock has been removed
 * @cd: The clock.
 *
 * Return: true once clockdev_unregister() has started.
 */
bool clockdev_gone(struct clock_device *cd)
{
	return !clockdev_alive(cd);
}

/*
 * Call clock_gettime (@gettime) or clock_getres of the clock @id names.
 * A clock whose reads do not sleep is read under rcu_read_lock(), which
 * has no barrier and writes no cache line that the clock's other readers
 * share; clockdev_unregister() waits for a grace period after marking it
 * dead.  Other clocks are read inside their SRCU section.
 */
static __always_inline int clockdev_clock_read(const clockid_t id,
					       struct timespec64 *ts,
					       bool gettime)
{
	CLASS(fd, f)(clockid_to_fd(id));
	int (*op)(struct clock_device *cd, struct timespec64 *ts);
	struct clock_device *cd;
	int err, idx;

	if (fd_empty(f))
		return -EINVAL;
	cd = clockdev_from_file(fd_file(f));
	if (!cd)
		return -EINVAL;

	op = gettime ? cd->ops->clock_gettime : cd->ops->clock_getres;
	if (cd->reads_atomic) {
		guard(rcu)();
		if (unlikely(READ_ONCE(cd->dead)))
			return -ENODEV;
		return op ? op(cd, ts) : -EOPNOTSUPP;
	}

	if (clockdev_enter(cd, &idx))
		return -ENODEV;
	err = op ? op(cd, ts) : -EOPNOTSUPP;
	clockdev_exit(cd, idx);

	return err;
}

static int clockdev_clock_getres(const clockid_t id, struct timespec64 *ts)
{
	return clockdev_clock_read(id, ts, false);
}

static int clockdev_clock_gettime(const clockid_t id, struct timespec64 *ts)
{
	return clockdev_clock_read(id, ts, true);
}

/*
 * Read the clock just before it is set, so that the step, and with it the
 * move of relative timers, is known to the time the read takes.  Returns
 * the clock's time at *before, or U64_MAX.
 */
static u64 clockdev_read_before_step(struct clock_device *cd, ktime_t *before)
{
	struct timespec64 ts;
	ktime_t read;

	if (!cd->ops->clock_gettime || cd->ops->clock_gettime(cd, &ts)) {
		*before = ktime_get_boottime();
		return U64_MAX;
	}
	read = ktime_get_boottime();
	*before = ktime_get_boottime();

	return timespec64_to_ns(&ts) + ktime_to_ns(ktime_sub(*before, read));
}

static int clockdev_clock_settime(const clockid_t id,
				  const struct timespec64 *ts)
{
	struct clockdev_call call;
	ktime_t before;
	u64 old;
	int err;

	if (!timespec64_valid_strict(ts))
		return -EINVAL;

	err = clockdev_call_begin(id, &call);
	if (err)
		return err;

	if (!clockdev_call_writable(&call)) {
		err = -EACCES;
	} else if (!call.cd->ops->clock_settime) {
		err = -EOPNOTSUPP;
	} else {
		/* Armed timers follow the step: measure it. */
		old = clockdev_read_before_step(call.cd, &before);
		clockdev_timers_step_begin(call.cd);
		err = call.cd->ops->clock_settime(call.cd, ts);
		clockdev_timers_step_end(call.cd, !err, true,
					 timespec64_to_ns(ts), before, old);
	}

	clockdev_call_end(&call);

	return err;
}

/* The offset of an ADJ_SETOFFSET request, in ns. */
static s64 clockdev_offset_ns(const struct __kernel_timex *tx)
{
	s64 frac = tx->time.tv_usec;

	if (!(tx->modes & ADJ_NANO))
		frac *= NSEC_PER_USEC;

	return tx->time.tv_sec * NSEC_PER_SEC + frac;
}

static int clockdev_clock_adjtime(const clockid_t id,
				  struct __kernel_timex *tx)
{
	struct clockdev_call call;
	int err;

	err = clockdev_call_begin(id, &call);
	if (err)
		return err;

	/* Reading the state (modes == 0) needs no write access. */
	if (tx->modes && !clockdev_call_writable(&call)) {
		err = -EACCES;
	} else if (!call.cd->ops->clock_adjtime) {
		err = -EOPNOTSUPP;
	} else if (tx->modes & ADJ_SETOFFSET) {
		/* Armed timers follow the step. */
		clockdev_timers_step_begin(call.cd);
		err = call.cd->ops->clock_adjtime(call.cd, tx);
		clockdev_timers_step_end(call.cd, !err, false,
					 clockdev_offset_ns(tx), 0, U64_MAX);
	} else {
		/*
		 * The core re-reads the clock before each expiry, so a new
		 * frequency cannot make a timer early there; but the rate it
		 * measured is stale, and so are its predictions.
		 */
		err = call.cd->ops->clock_adjtime(call.cd, tx);
		if (!err && tx->modes)
			clockdev_timers_rate_changed(call.cd);
	}

	clockdev_call_end(&call);

	return err;
}

/*
 * POSIX timers.  A timer holds a reference to its clock, not to the file
 * the clockid named: closing the file leaves the timer working.
 * timer_delete() drops it with interrupts disabled, which the clock's
 * release allows (it frees the clock from a work item).
 */
static struct k_itimer *cd_to_itimer(struct clockdev_timer *t)
{
	return container_of(t, struct k_itimer, it.cd.timer);
}

/*
 * Move @timr's expiry on by whole periods past the clock's last read;
 * returns the count.  @delivered: its expiry was delivered.
 */
static s64 clockdev_itimer_forward(struct k_itimer *timr, bool delivered)
{
	return clockdev_timer_forward(&timr->it.cd.timer,
				      ktime_to_ns(timr->it_interval),
				      delivered);
}

/*
 * Move @t's expiry on by whole periods of @interval until it is @min or
 * later; returns the count.
 */
static u64 clockdev_itimer_skip(struct clockdev_timer *t, u64 interval,
				u64 min)
{
	u64 n;

	if (t->node.expires >= min)
		return 0;
	n = div64_u64(min - t->node.expires + interval - 1, interval);
	t->node.expires += n * interval;

	return n;
}

static void clockdev_itimer_fn(struct clockdev_timer *t, u64 now,
			       enum clockdev_timer_event ev)
{
	struct k_itimer *timr = cd_to_itimer(t);
	unsigned long flags;

	/* SIGEV_NONE timers are queued only so that steps move them. */
	if (ev != CLOCKDEV_TIMER_EXPIRED ||
	    timr->it_sigev_notify == SIGEV_NONE)
		return;

	spin_lock_irqsave(&timr->it_lock, flags);
	if (posix_timer_queue_signal(timr) && timr->it_interval) {
		u64 iv = ktime_to_ns(timr->it_interval);

		/*
		 * Ignored signal: re-arm here, the signal path will not.  As
		 * posix_timer_fn() does, a period shorter than a tick comes
		 * back a tick later at the earliest: nobody listens, and each
		 * pass costs a read of the device.
		 */
		timr->it_overrun += clockdev_itimer_forward(timr, true);
		if (iv < TICK_NSEC)
			timr->it_overrun += clockdev_itimer_skip(t, iv,
								 now + TICK_NSEC);
		++timr->it_requeue_pending;
		timr->it_active = 1;
		clockdev_timer_requeue(t, t->node.expires);
	}
	spin_unlock_irqrestore(&timr->it_lock, flags);
}

static int clockdev_timer_create(struct k_itimer *timr)
{
	struct clock_device *cd = clockdev_get_by_clockid(timr->it_clock);

	if (IS_ERR(cd))
		return PTR_ERR(cd);
	clockdev_timer_init(&timr->it.cd.timer, cd, clockdev_itimer_fn);

	return 0;
}

static int clockdev_timer_get(struct k_itimer *timr,
			      struct itimerspec64 *cur)
{
	struct clockdev_timer *t = &timr->it.cd.timer;
	bool sig_none = timr->it_sigev_notify == SIGEV_NONE;
	s64 rem;
	u64 now;

	if (!clockdev_alive(t->cd))
		return -ENODEV;

	if (timr->it_interval)
		cur->it_interval = ktime_to_timespec64(timr->it_interval);
	else if (!timr->it_active)
		return 0;

	rem = clockdev_timer_remaining(t, &now);
	if (timr->it_interval && rem <= 0 &&
	    (timr->it_requeue_pending & REQUEUE_PENDING || sig_none)) {
		timr->it_overrun += clockdev_itimer_forward(timr, false);
		rem = (s64)(t->node.expires - now);
	}
	if (rem <= 0) {
		/* Not yet delivered: report a remaining time above zero. */
		if (!sig_none)
			cur->it_value.tv_nsec = 1;
	} else {
		cur->it_value = ns_to_timespec64(rem);
	}

	return 0;
}

static int clockdev_timer_set(struct k_itimer *timr, int flags,
			      struct itimerspec64 *new,
			      struct itimerspec64 *old)
{
	struct clockdev_timer *t = &timr->it.cd.timer;
	bool absolute = flags & TIMER_ABSTIME;
	s64 expires;

	if (!clockdev_alive(t->cd))
		return -ENODEV;
	if (old)
		clockdev_timer_get(timr, old);

	timr->it_interval = 0;
	if (clockdev_timer_try_to_cancel(t) < 0)
		return TIMER_RETRY;

	timr->it_active = 0;
	posix_timer_set_common(timr, new);

	if (!new->it_value.tv_sec && !new->it_value.tv_nsec)
		return 0;

	expires = timespec64_to_ns(&new->it_value);
	if (clockdev_timer_start(t, expires, absolute))
		return -ENODEV;
	timr->it_active = 1;

	return 0;
}

static void clockdev_timer_rearm(struct k_itimer *timr)
{
	struct clockdev_timer *t = &timr->it.cd.timer;

	timr->it_overrun += clockdev_itimer_forward(timr, true);
	clockdev_timer_restart(t, t->node.expires);
}

static int clockdev_timer_del(struct k_itimer *timr)
{
	struct clockdev_timer *t = &timr->it.cd.timer;

	if (clockdev_timer_try_to_cancel(t) < 0)
		return TIMER_RETRY;
	clockdev_put(t->cd);

	return 0;
}

static void clockdev_timer_wait_running_itimer(struct k_itimer *timr)
{
	clockdev_timer_wait_running(&timr->it.cd.timer);
}

/*
 * clock_nanosleep().  The sleeper holds a reference to the clock, not to
 * the file, which may be closed while it sleeps.  A restart after a
 * stop/continue finds the clock again by its serial number (there is no
 * room for a reference in the restart_block, and one left there would
 * leak when the call is not restarted): it continues on the same clock
 * even if the file was closed meanwhile, and fails with -ENODEV if the
 * clock was removed meanwhile.  A restarted sleep keeps the absolute
 * expiry it had when it stopped.
 */
struct clockdev_sleeper {
	struct clockdev_timer timer;
	struct task_struct *task;
	bool fired;
	bool gone;
};

static void clockdev_sleeper_fn(struct clockdev_timer *t, u64 now,
				enum clockdev_timer_event ev)
{
	struct clockdev_sleeper *s =
		container_of(t, struct clockdev_sleeper, timer);
	struct task_struct *task = s->task;

	if (ev == CLOCKDEV_TIMER_GONE)
		WRITE_ONCE(s->gone, true);
	else
		WRITE_ONCE(s->fired, true);
	wake_up_process(task);
}

static long clockdev_nsleep_restart(struct restart_block *restart);

/*
 * Sleep on @cd until @expires (absolute, or a delay).  When a signal ends
 * the sleep, store what a restart needs and return -ERESTART_RESTARTBLOCK
 * (or the error of copying the remaining time out).
 */
static int clockdev_do_nsleep(struct clock_device *cd, u64 expires,
			      bool absolute)
{
	struct restart_block *restart = &current->restart_block;
	struct clockdev_sleeper s = { .task = current };
	struct timespec64 rmt;
	u64 now;
	s64 rem;

	clockdev_timer_init(&s.timer, cd, clockdev_sleeper_fn);
	if (clockdev_timer_start(&s.timer, expires, absolute))
		return -ENODEV;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE | TASK_FREEZABLE);
		if (READ_ONCE(s.fired) || READ_ONCE(s.gone) ||
		    signal_pending(current))
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);

	/* Taken while armed: never 0 before the clock reached the end. */
	rem = clockdev_timer_remaining(&s.timer, &now);
	/* s lives on this stack: its callback must be over. */
	clockdev_timer_cancel(&s.timer);

	if (READ_ONCE(s.fired))
		return 0;
	if (READ_ONCE(s.gone))
		return -ENODEV;
	if (rem <= 0)
		return 0;

	restart->nanosleep.clockid = cd->serial;
	restart->nanosleep.expires = absolute ? expires : now + rem;
	set_restart_fn(restart, clockdev_nsleep_restart);
	if (restart->nanosleep.type == TT_NONE)
		return -ERESTART_RESTARTBLOCK;
	rmt = ns_to_timespec64(rem);
	return nanosleep_copyout(restart, &rmt);
}

static long clockdev_nsleep_restart(struct restart_block *restart)
{
	struct clock_device *cd;
	long ret;

	cd = clockdev_get_by_serial(restart->nanosleep.clockid);
	if (!cd)
		return -ENODEV;
	ret = clockdev_do_nsleep(cd, restart->nanosleep.expires, true);
	clockdev_put(cd);

	return ret;
}

static int clockdev_nsleep(const clockid_t id, int flags,
			   const struct timespec64 *ts)
{
	struct clock_device *cd = clockdev_get_by_clockid(id);
	int err;

	if (IS_ERR(cd))
		return PTR_ERR(cd);

	/*
	 * Absolute sleeps too are restarted through the restart block, not
	 * by calling the system call again: the file the clockid names may
	 * have been closed meanwhile, and the sleep goes on without it.
	 */
	err = clockdev_do_nsleep(cd, timespec64_to_ns(ts),
				 flags & TIMER_ABSTIME);
	clockdev_put(cd);

	return err;
}

const struct k_clock clockdev_kclock = {
	.clock_getres		= clockdev_clock_getres,
	.clock_set		= clockdev_clock_settime,
	.clock_get_timespec	= clockdev_clock_gettime,
	.clock_adj		= clockdev_clock_adjtime,
	.timer_create		= clockdev_timer_create,
	.timer_set		= clockdev_timer_set,
	.timer_del		= clockdev_timer_del,
	.timer_get		= clockdev_timer_get,
	.timer_rearm		= clockdev_timer_rearm,
	.timer_wait_running	= clockdev_timer_wait_running_itimer,
	.nsleep			= clockdev_nsleep,
};
