// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Timers on dynamic clock devices.
 *
 * Every clock has one queue of timers, ordered by expiry in the clock's
 * own time, and one hrtimer on CLOCK_BOOTTIME that says when to look at
 * the clock next.  A worker, in process context, reads the clock: the
 * driver's read may sleep, and the posix-timer and timerfd paths run with
 * interrupts disabled.  When the driver says that its reads do not sleep
 * (cd->reads_atomic: a register read under a spinlock), the hrtimer reads
 * the clock and expires timers itself, as it would a CLOCK_MONOTONIC
 * timer, with no worker to wake up; during a step and a suspend it still
 * leaves that to the worker.  The worker decides expiry by comparing the
 * time it read with the expiry, so a timer never expires before the clock
 * reached it.  Between reads, the worker keeps a mapping from boot time to device
 * time (the last read and the rate between the last two reads) and uses it
 * to predict when the next timer is due.  It wakes up a little before the
 * prediction (7/8 of the remaining time while that is above
 * CLOCKDEV_TIMER_SLACK_NS) and re-reads, so an error in the rate costs at
 * most the rate error times CLOCKDEV_TIMER_SLACK_NS of lateness.  Until it
 * has measured a rate (a new clock, or one whose frequency was changed), it
 * re-reads at least every CLOCKDEV_RATE_FIRST_SPAN and predicts from a
 * first estimate of the rate.
 *
 * A clock that does not advance between two reads gets no prediction:
 * the worker backs off, doubling its delay up to CLOCKDEV_TIMER_MAX_BACKOFF.
 * The core follows rates from one half to four times boot time: a PHC
 * runs within a few percent of one, but the e1000e's under QEMU 8 and
 * later runs at 5/2 (QEMU counts the 82574's increment period in 16 ns
 * units, not 40).  A read below the last one, or further ahead than twice
 * the fastest rate the core follows allows, is a step nobody told the core
 * of (a NIC that resets its PHC): it is handled as a step reported by the
 * driver.
 *
 * All of the mapping's arithmetic saturates: device times and delays up to
 * U64_MAX, rates between the clamps, hrtimer expiries up to KTIME_MAX.
 *
 * A relative timer on a clock with reads_atomic starts from a read taken
 * as it is armed, which updates the mapping too, unless a step or another
 * read is under way.  Otherwise, a relative timer armed soon after a read
 * (CLOCKDEV_ANCHOR_MAX_AGE) starts from the prediction, which runs ahead
 * of the clock, plus a margin for a rate error of 2000 ppm since that
 * read; otherwise it waits for the next read that begins after it was
 * armed (a read under way may have sampled the clock before) to anchor
 * it, at once from the hrtimer on a clock with reads_atomic.  Either way
 * it is never early.
 * When the clock is stepped (clock_settime, clock_adjtime, or a driver's
 * clockdev_time_changed()), the worker re-reads it at once: absolute
 * timers whose expiry was passed fire, and relative ones are moved by the
 * step, so that they are not affected by it.
 *
 * A clock that reads in whole ticks (ops->timer_tick, an RTC without an
 * alarm) gives no rate either, and reading it again within a tick shows no
 * progress: its rate is taken as one, and the worker waits until the
 * expiry may have come (the clock is up to a tick ahead of its last read),
 * then reads it every eighth of a tick until it shows the expiry.  A read
 * may lag such a clock by up to a tick, which a prediction cannot tell: a
 * relative timer always waits for the next read, and takes a tick more.
 *
 * A clock with an alarm of its own (ops->timer_alarm, an RTC) is looked at
 * when that alarm fires instead: the worker programs the alarm for the
 * earliest timer after each read, and the driver reports the alarm with
 * clockdev_alarm_fired().  The clock's reads are whole ticks
 * (ops->timer_tick), so its mapping is not used to predict expiry, only
 * to report remaining time, and its rate is taken as one.
 *
 * Suspend: boot time runs on in suspend, and a clock may stop (a PHC that
 * loses power, a clock counting CLOCK_MONOTONIC_RAW) or not (an RTC).
 * The worker of a clock without an alarm is frozen from before devices
 * suspend to after they resumed, so the clock is not read while its device
 * is suspended; a clock with an alarm keeps its worker, to program the
 * alarm that wakes the system.  Between the start of a suspend and the end
 * of the resume, reads do not measure the rate; after resume every clock
 * with timers is read again at once, so its mapping is right again and
 * timers that came due while the system slept fire; the rate is then
 * measured afresh from that read.
 *
 * Locking: base->lock (irq-safe) protects the queue, the timers' state and
 * the mapping.  It is a spinlock_t, as the posix-timer and timerfd locks
 * that are held around it are: on PREEMPT_RT all of them sleep, and the
 * functions below are not for hard interrupt context or raw spinlocks
 * there (drivers' interrupt handlers are threads on PREEMPT_RT; the
 * core's own hrtimer is not HRTIMER_MODE_HARD, so it expires in softirq
 * context there).  base->expiry_lock is held, with interrupts disabled,
 * while expiry callbacks run, so clockdev_timer_wait_running() can wait for
 * them.  Callbacks run from the worker or from the hrtimer, with
 * expiry_lock held: they must not sleep.  They may re-queue their timer.
 */
#include <kunit/visibility.h>
#include <linux/bits.h>
#include <linux/clockdev.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/suspend.h>
#include <linux/workqueue.h>

#include "clockdev.h"

#define CREATE_TRACE_POINTS
#include <trace/events/clockdev.h>

/* Below this, predictions are not shortened. */
#define CLOCKDEV_TIMER_SLACK_NS		(2 * NSEC_PER_MSEC)
/*
 * A relative timer armed within this long after a read is anchored on the
 * prediction, which runs ahead of the clock (never early); later ones wait
 * for a new read.
 */
#define CLOCKDEV_ANCHOR_MAX_AGE		(100 * NSEC_PER_MSEC)
/* Re-check delays of a clock that does not advance. */
#define CLOCKDEV_TIMER_MIN_BACKOFF	(1 * NSEC_PER_MSEC)
#define CLOCKDEV_TIMER_MAX_BACKOFF	(1 * NSEC_PER_SEC)
/*
 * A rate is measured over at least this much boot time, so that the jitter
 * of reads (microseconds) costs little; 1 is 1 << 32.  A read samples the
 * clock somewhere in its window, so a rate is taken only from two reads
 * whose windows add up to at most 1/CLOCKDEV_RATE_PRECISION of the span
 * (under 1000 ppm of error, within the 2000 ppm the predictions allow
 * for); a read that took long (it slept, the machine was busy) delays it.
 */
#define CLOCKDEV_RATE_MIN_SPAN		(200 * NSEC_PER_MSEC)
#define CLOCKDEV_RATE_PRECISION		1024
/* A read that starts a rate may take half its share of a minimal span. */
#define CLOCKDEV_RATE_RESTART_LEAD	\
	(CLOCKDEV_RATE_MIN_SPAN / CLOCKDEV_RATE_PRECISION / 2)
/*
 * Until then, a first estimate over at least this much, from two reads
 * whose windows add up to under 1/128 of it, serves the predictions (not
 * the anchoring of relative timers); and the clock is read at least this
 * often.  A clock that is set again and again (as every test that uses a
 * clock does) may never run CLOCKDEV_RATE_MIN_SPAN without a step.
 */
#define CLOCKDEV_RATE_FIRST_SPAN	(40 * NSEC_PER_MSEC)
#define CLOCKDEV_RATE_ONE		BIT_ULL(32)
#define CLOCKDEV_RATE_MIN		(CLOCKDEV_RATE_ONE / 2)
#define CLOCKDEV_RATE_MAX		(CLOCKDEV_RATE_ONE * 4)

/*
 * Workers of clocks without an alarm run on clockdev_wq, which freezes with
 * the kernel threads, after user space and before devices suspend, and
 * thaws after devices resumed: a clock is never read while its device is
 * suspended (a PHC of a NIC in D3 reads all ones).  Workers of clocks with
 * an alarm run on clockdev_alarm_wq, which does not freeze: they program
 * the alarm that wakes the system up to the moment it sleeps, and handle
 * the alarm that fired on the way down, as alarmtimer reads and programs
 * the RTC in its own suspend callback.
 */
static struct workqueue_struct *clockdev_wq;
static struct workqueue_struct *clockdev_alarm_wq;

/* @a + @b, or U64_MAX when that does not fit. */
static u64 clockdev_add_sat(u64 a, u64 b)
{
	u64 sum;

	return check_add_overflow(a, b, &sum) ? U64_MAX : sum;
}

/* @a moved by @step, within 0 and U64_MAX. */
static u64 clockdev_shift_sat(u64 a, s64 step)
{
	if (step >= 0)
		return clockdev_add_sat(a, step);
	return a > -(u64)step ? a + step : 0;
}

/* A suspend or hibernation is under way: reads do not measure the rate. */
static bool clockdev_pm_transition;

static struct clock_device *base_to_cd(struct clockdev_timer_base *base)
{
	return container_of(base, struct clock_device, timers);
}

/* Whether the clock's own alarm drives its timers. */
static bool clockdev_has_alarm(struct clockdev_timer_base *base)
{
	return base_to_cd(base)->ops->timer_alarm;
}

/* Run the worker of @base: now, or after resume if it is frozen. */
static void clockdev_timer_kick(struct clockdev_timer_base *base)
{
	queue_work(clockdev_has_alarm(base) ? clockdev_alarm_wq : clockdev_wq,
		   &base->work);
}

/* Whether the clock's reads are whole ticks, or its alarm drives it. */
static bool clockdev_ticked(struct clockdev_timer_base *base)
{
	return clockdev_has_alarm(base) ||
	       base_to_cd(base)->ops->timer_tick > 1;
}

/* Device time from a read to the expiry of a relative timer of @delay. */
static u64 clockdev_anchor_delay(struct clockdev_timer_base *base, u64 delay)
{
	u64 tick = base_to_cd(base)->ops->timer_tick;

	u64 ticks;

	if (tick <= 1)
		return delay;
	/* The read is up to a tick behind the clock: add one. */
	ticks = div64_u64(clockdev_add_sat(delay, tick - 1), tick) + 1;
	if (ticks > div64_u64(U64_MAX, tick))
		return U64_MAX;
	return ticks * tick;
}

/* Device time predicted for boot time @boot.  Caller holds base->lock. */
static u64 clockdev_predict(struct clockdev_timer_base *base, ktime_t boot)
{
	s64 span = ktime_to_ns(ktime_sub(boot, base->ref_boot));

	/* A clock that did not advance between its last reads: no advance. */
	if (span <= 0 || base->stalled)
		return base->ref_dev;
	/* Above twice boot time, span * rate >> 32 may not fit in a u64. */
	if (base->rate > CLOCKDEV_RATE_ONE * 2 &&
	    span >= div64_u64(U64_MAX, base->rate) << 32)
		return U64_MAX;
	return clockdev_add_sat(base->ref_dev,
				mul_u64_u64_shr(span, base->rate, 32));
}

/*
 * A span of boot time @ns in the clock's own time, where the clock runs
 * faster than boot time: a margin taken in boot time is worth as much
 * more of it.  Holds base->lock.
 */
static u64 clockdev_margin(struct clockdev_timer_base *base, u64 ns)
{
	if (base->rate <= CLOCKDEV_RATE_ONE)
		return ns;
	return mul_u64_u64_shr(ns, base->rate, 32);
}

/*
 * Device time the clock has surely reached at boot time @boot: the
 * prediction, less what it may run ahead by (the time the last read took,
 * and a rate error up to 2000 ppm since), never below the last read.
 * Without a measured rate, 1/128 more: a first estimate may be that much
 * too fast (CLOCKDEV_RATE_FIRST_SPAN), and so may the rate from before a
 * change of frequency of up to 7800 ppm, or the rate of boot time that a
 * new clock is taken to run at until it is measured.  Those are spans of
 * boot time: on a clock faster than boot time they are worth more of its
 * own.  Holds base->lock.
 */
static u64 clockdev_reached(struct clockdev_timer_base *base, ktime_t boot)
{
	s64 age = ktime_to_ns(ktime_sub(boot, base->ref_boot));
	u64 pred = clockdev_predict(base, boot), lead = base->ref_lead;

	if (age > 0)
		lead += age / 512 + (base->rate_stale ? age / 128 : 0);
	lead = clockdev_margin(base, lead);
	return pred > base->ref_dev + lead ? pred - lead : base->ref_dev;
}

/*
 * Boot time to wait for @dev_delay of device time, at most KTIME_MAX.
 * Holds base->lock.
 */
static u64 clockdev_boot_delay(struct clockdev_timer_base *base, u64 dev_delay)
{
	/* The rate is at least one half: below this, the quotient fits. */
	if (dev_delay >= KTIME_MAX / 2)
		return KTIME_MAX;
	return mul_u64_u64_div_u64(dev_delay, CLOCKDEV_RATE_ONE, base->rate);
}

/* Look at the clock again @delay ns of boot time from now.  Holds base->lock. */
static void clockdev_timer_wake_in(struct clockdev_timer_base *base,
				   u64 delay)
{
	hrtimer_start(&base->hrtimer,
		      ktime_add_safe(ktime_get_boottime(),
				     min_t(u64, delay, KTIME_MAX)),
		      HRTIMER_MODE_ABS);
}

/* Queue @t, its expiry in the clock's time now.  Holds base->lock. */
static void clockdev_timer_enqueue(struct clockdev_timer_base *base,
				   struct clockdev_timer *t)
{
	lockdep_assert_held(&base->lock);
	t->rel_shift = base->rel_shift;
	timerqueue_add(&base->queue, &t->node);
	t->state = CLOCKDEV_TIMER_QUEUED;
}

/*
 * @expires, an expiry of @t in the clock's time as of t->rel_shift, moved
 * by the steps since if @t is relative: a relative timer out of the queue
 * (expired, its owner yet to move it on or re-arm it) misses the steps
 * that move the queue, and catches up here.  Holds base->lock.
 */
static u64 clockdev_timer_catch_up(struct clockdev_timer_base *base,
				   struct clockdev_timer *t, u64 expires)
{
	s64 step = base->rel_shift - t->rel_shift;

	t->rel_shift = base->rel_shift;
	return t->relative ? clockdev_shift_sat(expires, step) : expires;
}

/*
 * Program the hrtimer for the next look at the clock.  @read is true right
 * after a read of @dev_read, which then tells how long to wait at least for
 * a timer the prediction says is due.  Holds base->lock.
 */
static void clockdev_timer_program(struct clockdev_timer_base *base,
				   bool read, u64 dev_read)
{
	struct timerqueue_node *next;
	u64 dev_now, delay;

	lockdep_assert_held(&base->lock);
	if (base->shutdown)
		return;
	if (clockdev_has_alarm(base)) {
		/* The worker programs the alarm after a read. */
		if (read) {
			next = timerqueue_getnext(&base->queue);
			base->alarm_next = next ? next->expires : U64_MAX;
		} else {
			clockdev_timer_kick(base);
		}
		return;
	}
	if (!list_empty(&base->unanchored) || !base->ref_valid) {
		/* A clock whose reads do not sleep is read by the hrtimer. */
		if (base_to_cd(base)->reads_atomic && !clockdev_ticked(base))
			clockdev_timer_wake_in(base, 0);
		else
			clockdev_timer_kick(base);
		return;
	}
	next = timerqueue_getnext(&base->queue);
	if (!next)
		return;

	if (base->stalled) {
		delay = base->backoff;
	} else if (clockdev_ticked(base)) {
		u64 tick = base_to_cd(base)->ops->timer_tick;

		/* The clock is less than a tick ahead of the prediction. */
		dev_now = clockdev_predict(base, ktime_get_boottime());
		if (next->expires > clockdev_add_sat(dev_now, tick))
			delay = clockdev_boot_delay(base,
						    next->expires - dev_now - tick);
		else
			delay = div64_u64(tick, 8);
	} else {
		dev_now = clockdev_predict(base, ktime_get_boottime());
		if (next->expires <= dev_now) {
			/* Not due at the read: wait at least for that. */
			delay = read && next->expires > dev_read ?
				clockdev_boot_delay(base, next->expires - dev_read) : 0;
		} else {
			delay = clockdev_boot_delay(base, next->expires - dev_now);
			if (delay > CLOCKDEV_TIMER_SLACK_NS)
				delay -= delay / 8;
		}
		/* Without a measured rate, read until there is one. */
		if (base->rate_stale)
			delay = min_t(u64, delay, CLOCKDEV_RATE_FIRST_SPAN);
	}
	clockdev_timer_wake_in(base, delay);
}

static bool clockdev_timer_look(struct clockdev_timer_base *base, bool atomic);

static enum hrtimer_restart clockdev_timer_hrtimer_fn(struct hrtimer *hr)
{
	struct clockdev_timer_base *base =
		container_of(hr, struct clockdev_timer_base, hrtimer);

	if (!base_to_cd(base)->reads_atomic || clockdev_ticked(base) ||
	    !clockdev_timer_look(base, true))
		clockdev_timer_kick(base);
	return HRTIMER_NORESTART;
}

static void clockdev_timers_shift_relative(struct clockdev_timer_base *base,
					   s64 step);

/*
 * Whether a read of @dev_now, begun at boot time @boot and lasting @lead
 * ns, cannot follow from the last read: it is below it, or further ahead
 * than twice the fastest rate the core follows (so eight times boot time)
 * allows over the time from the last read to the end of this one, plus a
 * tick of the clock, the time the last read took and some slack.  A read
 * that sleeps may sample the clock at its end.  Holds base->lock.
 */
static bool clockdev_read_jumped(struct clockdev_timer_base *base,
				 u64 dev_now, ktime_t boot, u64 lead)
{
	s64 span = ktime_to_ns(ktime_sub(boot, base->ref_boot));
	u64 reach = base->ref_lead + base_to_cd(base)->ops->timer_tick +
		    CLOCKDEV_TIMER_SLACK_NS;
	u64 ran = lead;

	if (dev_now < base->ref_dev)
		return true;
	if (span > 0)
		ran = clockdev_add_sat(ran, span);
	reach = clockdev_add_sat(reach, ran >= U64_MAX / 8 ? U64_MAX : 8 * ran);
	return dev_now - base->ref_dev > reach;
}

/* Device ns per boot ns, 32.32, from @dev over @span ns, within the clamps. */
static u64 clockdev_rate(u64 dev, u64 span)
{
	if (dev / 4 >= span)
		return CLOCKDEV_RATE_MAX;
	return max_t(u64, mul_u64_u64_div_u64(dev, CLOCKDEV_RATE_ONE, span),
		     CLOCKDEV_RATE_MIN);
}

/*
 * New read: update the mapping, the rate and the stall state.  The
 * mapping always starts from the latest read; the rate is measured over
 * at least CLOCKDEV_RATE_MIN_SPAN of boot time.  A read that cannot follow
 * from the last one counts as a step.  Holds base->lock.
 *
 * Return: whether the clock was stepped (@stepped, or a jump seen here).
 */
static bool clockdev_timer_update_ref(struct clockdev_timer_base *base,
				      u64 dev_now, ktime_t boot, u64 lead,
				      bool stepped)
{
	s64 span = ktime_to_ns(ktime_sub(boot, base->rate_boot));
	bool measured;

	if (base->ref_valid && !stepped &&
	    clockdev_read_jumped(base, dev_now, boot, lead)) {
		stepped = true;
		base->step_gen++;
	}
	if (base->ref_valid && stepped)
		/* Relative timers ignore steps: move them with the clock. */
		clockdev_timers_shift_relative(base,
					       dev_now - clockdev_predict(base, boot));
	if (clockdev_ticked(base)) {
		/* Reads are whole ticks: no rate, and equal reads are normal. */
		base->stalled = false;
	} else if (!base->ref_valid || stepped || base->resumed ||
		   base->rate_restart || READ_ONCE(clockdev_pm_transition)) {
		base->rate_dev = dev_now;
		base->rate_boot = boot;
		base->rate_lead = lead;
		base->rate_restart = false;
	} else {
		/* A clock that did not move since the last read: back off. */
		if (dev_now == base->ref_dev) {
			base->stalled = true;
			base->backoff = min_t(u64, base->backoff * 2,
					      CLOCKDEV_TIMER_MAX_BACKOFF);
		} else if (base->stalled) {
			base->stalled = false;
			base->backoff = CLOCKDEV_TIMER_MIN_BACKOFF;
		}
		/* Reads since rate_dev never went back: that was a step. */
		measured = !base->stalled && span >= CLOCKDEV_RATE_MIN_SPAN &&
			   base->rate_lead + lead <= (u64)span / CLOCKDEV_RATE_PRECISION;
		if (measured) {
			base->rate = clockdev_rate(dev_now - base->rate_dev,
						   span);
			base->rate_stale = false;
			base->rate_dev = dev_now;
			base->rate_boot = boot;
			base->rate_lead = lead;
		} else if (!base->stalled && base->rate_stale &&
			   span >= CLOCKDEV_RATE_FIRST_SPAN &&
			   base->rate_lead + lead <= (u64)span / 128) {
			base->rate = clockdev_rate(dev_now - base->rate_dev,
						   span);
		}
		/*
		 * A start that took too long for a minimal span: start again
		 * from a read that took less than half as long.  rate_lead
		 * halves each time, so this ends.
		 */
		if (!base->stalled && !measured &&
		    base->rate_lead > CLOCKDEV_RATE_RESTART_LEAD &&
		    lead < base->rate_lead / 2) {
			base->rate_dev = dev_now;
			base->rate_boot = boot;
			base->rate_lead = lead;
		}
	}
	base->ref_dev = dev_now;
	base->ref_boot = boot;
	base->ref_lead = lead;
	base->ref_valid = true;
	base->resumed = false;

	return stepped;
}

/*
 * Report a step to the timers that asked for it, disarming them.  Holds
 * base->expiry_lock, interrupts disabled, and base->lock; drops and
 * retakes base->lock.
 */
static void clockdev_timer_cancel_stepped(struct clockdev_timer_base *base,
					  u64 dev_now)
{
	struct clockdev_timer *t;
	struct rb_node *rb;

restart:
	for (rb = rb_first_cached(&base->queue.rb_root); rb; rb = rb_next(rb)) {
		t = rb_entry(rb, struct clockdev_timer, node.node);
		/* Armed after the step: not concerned, as on CLOCK_REALTIME. */
		if (!t->cancel_on_step || t->step_gen == base->step_gen)
			continue;
		/*
		 * Report the step once; the timer stays armed for its expiry,
		 * as the hrtimer of a CLOCK_REALTIME timerfd does.
		 */
		t->step_gen = base->step_gen;
		timerqueue_del(&base->queue, &t->node);
		t->state = CLOCKDEV_TIMER_RUNNING;
		base->running = t;
		spin_unlock(&base->lock);

		t->function(t, dev_now, CLOCKDEV_TIMER_STEPPED);

		spin_lock(&base->lock);
		base->running = NULL;
		if (t->state == CLOCKDEV_TIMER_RUNNING)
			clockdev_timer_enqueue(base, t);
		goto restart;
	}
}

/*
 * Program the driver's alarm for the earliest timer, if that changed.  An
 * alarm that cannot be set is replaced by polling, backing off.  Called by
 * the worker, holding base->step_mutex.
 */
static void clockdev_timer_set_alarm(struct clock_device *cd,
				     struct clockdev_timer_base *base)
{
	bool fired;
	u64 next;
	int err, idx;

	spin_lock_irq(&base->lock);
	next = base->alarm_next;
	fired = base->alarm_fired;
	base->alarm_fired = false;
	spin_unlock_irq(&base->lock);
	if (fired)
		base->alarm_armed = U64_MAX;
	if (next == base->alarm_armed || clockdev_enter(cd, &idx))
		return;
	err = cd->ops->timer_alarm(cd, next);
	clockdev_exit(cd, idx);
	base->alarm_armed = err ? U64_MAX : next;
	if (err && next != U64_MAX) {
		spin_lock_irq(&base->lock);
		if (!base->shutdown)
			clockdev_timer_wake_in(base, base->backoff);
		spin_unlock_irq(&base->lock);
	}
}

/*
 * Read the clock, expire what is due, and program the next look: the
 * worker's job.  The hrtimer does it itself (@atomic) for a clock whose
 * reads do not sleep, but leaves it to the worker (returns false) during a
 * step and during suspend, so that a step is accounted for once and the
 * clock is not read while its device sleeps: a clock without an alarm is
 * then read only by its worker, which freezes.
 */
static bool clockdev_timer_look(struct clockdev_timer_base *base, bool atomic)
{
	struct clock_device *cd = base_to_cd(base);
	struct timerqueue_node *node;
	struct clockdev_timer *t, *tmp;
	struct timespec64 ts;
	bool stepped, step_event;
	unsigned long flags;
	unsigned int seq;
	u64 dev_now;
	int err, idx;
	ktime_t b0, b1;

	if (atomic) {
		/* unregister cancels the hrtimer before the clock goes. */
		if (READ_ONCE(clockdev_pm_transition) || READ_ONCE(cd->dead))
			return false;
	} else {
		if (clockdev_enter(cd, &idx))
			return true;
		/* Known steps wait for this read and what follows from it. */
		mutex_lock(&base->step_mutex);
	}
	spin_lock_irqsave(&base->lock, flags);
	if (atomic && (base->looking || base->stepping || base->stepped ||
		       base->step_event)) {
		spin_unlock_irqrestore(&base->lock, flags);
		return false;
	}
	/*
	 * One look at a time from a read to the mapping it updates, lest an
	 * earlier read come second and look like a step back.  The worker
	 * waits for the hrtimer's look, which does not sleep; its own look
	 * programs the hrtimer again.
	 */
	while (base->looking) {
		spin_unlock_irqrestore(&base->lock, flags);
		hrtimer_cancel(&base->hrtimer);
		spin_lock_irqsave(&base->lock, flags);
	}
	base->looking = true;
	seq = base->step_seq;
	/* Relative timers armed from now on wait for the next read. */
	list_for_each_entry(t, &base->unanchored, anchor)
		t->in_read = false;
	spin_unlock_irqrestore(&base->lock, flags);
	b0 = ktime_get_boottime();
	err = cd->ops->clock_gettime(cd, &ts);
	b1 = ktime_get_boottime();
	if (!atomic)
		clockdev_exit(cd, idx);

	spin_lock_irqsave(&base->lock, flags);
	base->looking = false;
	if (trace_clockdev_timer_read_enabled())
		trace_clockdev_timer_read(cd, b0,
					  err ? 0 : timespec64_to_ns(&ts),
					  base->ref_valid ?
					  clockdev_predict(base, b0) : 0, err);
	if (seq != base->step_seq) {
		/* A driver's step while we read: the read may predate it. */
		if (!base->shutdown)
			clockdev_timer_kick(base);
		goto out_unlock;
	}
	if (err) {
		/*
		 * Treat a failing read like a clock that does not advance:
		 * try again later, backing off, even with relative timers
		 * waiting for a read or with an alarm of its own.
		 */
		base->stalled = true;
		base->backoff = min_t(u64, base->backoff * 2,
				      CLOCKDEV_TIMER_MAX_BACKOFF);
		if (!base->shutdown && (timerqueue_getnext(&base->queue) ||
					!list_empty(&base->unanchored)))
			clockdev_timer_wake_in(base, base->backoff);
		goto out_unlock;
	}
	dev_now = timespec64_to_ns(&ts);
	stepped = base->stepped;
	base->stepped = false;
	/*
	 * The read happened at b0 or later: mapping from b0 predicts the
	 * clock at or ahead of its real time, so timer_gettime() never
	 * reports more than is left.
	 */
	stepped = clockdev_timer_update_ref(base, dev_now, b0,
					    ktime_to_ns(ktime_sub(b1, b0)),
					    stepped);
	step_event = stepped || base->step_event;
	base->step_event = false;

	list_for_each_entry_safe(t, tmp, &base->unanchored, anchor) {
		/* The read may have sampled the clock before it was armed. */
		if (t->in_read)
			continue;
		list_del_init(&t->anchor);
		t->node.expires = clockdev_add_sat(dev_now,
						   clockdev_anchor_delay(base, t->delay));
		clockdev_timer_enqueue(base, t);
	}
	spin_unlock_irqrestore(&base->lock, flags);

	/*
	 * Callbacks run with interrupts disabled, from the worker as from
	 * the hrtimer, so that expiry_lock is the same lock in both.
	 */
	spin_lock_irqsave(&base->expiry_lock, flags);
	spin_lock(&base->lock);
	if (step_event)
		clockdev_timer_cancel_stepped(base, dev_now);
	/* A step while the lock was dropped makes @dev_now stale: stop. */
	while (seq == base->step_seq &&
	       (node = timerqueue_getnext(&base->queue)) &&
	       node->expires <= dev_now) {
		t = container_of(node, struct clockdev_timer, node);
		timerqueue_del(&base->queue, node);
		t->state = CLOCKDEV_TIMER_RUNNING;
		base->running = t;
		trace_clockdev_timer_expire(cd, node->expires, dev_now);
		spin_unlock(&base->lock);

		t->function(t, dev_now, CLOCKDEV_TIMER_EXPIRED);

		spin_lock(&base->lock);
		base->running = NULL;
		if (t->state == CLOCKDEV_TIMER_RUNNING)
			t->state = CLOCKDEV_TIMER_IDLE;
	}
	if (seq == base->step_seq)
		clockdev_timer_program(base, true, dev_now);
	else if (!base->shutdown)
		clockdev_timer_kick(base);
	spin_unlock(&base->lock);
	spin_unlock_irqrestore(&base->expiry_lock, flags);
	if (clockdev_has_alarm(base))
		clockdev_timer_set_alarm(cd, base);
	goto out;

out_unlock:
	spin_unlock_irqrestore(&base->lock, flags);
out:
	if (!atomic)
		mutex_unlock(&base->step_mutex);
	return true;
}

static void clockdev_timer_work(struct work_struct *work)
{
	clockdev_timer_look(container_of(work, struct clockdev_timer_base,
					 work), false);
}

/**
 * clockdev_timer_init() - prepare a timer on a clock
 * @t:        The timer.
 * @cd:       The clock.  The caller keeps a reference to it while the
 *            timer may be armed.
 * @function: Called when the timer expires, when the clock is stepped
 *            and @t->cancel_on_step is set, or when the clock is removed
 *            (see enum clockdev_timer_event).  It runs in process context
 *            with a spinlock held and must not sleep; on expiry it may
 *            re-arm the timer with clockdev_timer_requeue().
 */
void clockdev_timer_init(struct clockdev_timer *t, struct clock_device *cd,
			 void (*function)(struct clockdev_timer *t, u64 now,
					  enum clockdev_timer_event ev))
{
	timerqueue_init(&t->node);
	INIT_LIST_HEAD(&t->anchor);
	t->cd = cd;
	t->function = function;
	t->state = CLOCKDEV_TIMER_IDLE;
}
EXPORT_SYMBOL_GPL(clockdev_timer_init);

/**
 * struct clockdev_arm_read - a read taken to arm a relative timer
 * @dev:  The device time read.
 * @b0:   Boot time before the read.
 * @lead: How long the read took.
 * @seq:  The clock's step count before it.
 */
struct clockdev_arm_read {
	u64 dev;
	ktime_t b0;
	u64 lead;
	unsigned int seq;
};

/*
 * Read a clock whose reads do not sleep, outside base->lock, to anchor a
 * relative timer being armed on it.  Not during a suspend, when only the
 * worker reads a clock.  Return: whether @r holds a read.
 */
static bool clockdev_timer_arm_read(struct clock_device *cd,
				    struct clockdev_arm_read *r)
{
	struct timespec64 ts;
	int err;

	if (!cd->reads_atomic || clockdev_ticked(&cd->timers) ||
	    READ_ONCE(clockdev_pm_transition))
		return false;
	r->seq = READ_ONCE(cd->timers.step_seq);
	/* A step not counted yet is not in the read either. */
	smp_rmb();
	guard(rcu)();
	/* unregister waits for a grace period after setting dead. */
	if (READ_ONCE(cd->dead))
		return false;
	r->b0 = ktime_get_boottime();
	err = cd->ops->clock_gettime(cd, &ts);
	r->lead = ktime_to_ns(ktime_sub(ktime_get_boottime(), r->b0));
	r->dev = timespec64_to_ns(&ts);

	return !err;
}

/*
 * Whether the read @r may update the mapping and anchor a relative timer:
 * no step since it began nor under way, no read under way or taken since,
 * and no jump from the last read (the worker's look handles that).
 * Holds base->lock.
 */
static bool clockdev_timer_arm_read_fits(struct clockdev_timer_base *base,
					 struct clockdev_arm_read *r)
{
	if (r->seq != base->step_seq || base->stepping || base->stepped ||
	    base->step_event || base->looking)
		return false;

	return !base->ref_valid ||
	       (ktime_after(r->b0, base->ref_boot) &&
		!clockdev_read_jumped(base, r->dev, r->b0, r->lead));
}

/**
 * clockdev_timer_start() - arm a timer
 * @t:        A timer that is not armed.
 * @expires:  Expiry in device time (ns) when @absolute, else the delay.
 * @absolute: Whether @expires is a time or a delay.
 *
 * Context: any but NMI; takes base->lock, a spinlock_t, so on PREEMPT_RT
 * not hard interrupt context nor under a raw spinlock.  Reads the clock
 * to anchor a relative timer when the clock's reads do not sleep
 * (reads_atomic), else does not read it.
 * Return: 0, or -ENODEV when the clock has been removed.
 */
int clockdev_timer_start(struct clockdev_timer *t, u64 expires, bool absolute)
{
	struct clockdev_timer_base *base = &t->cd->timers;
	struct clockdev_arm_read r;
	bool read = false;
	unsigned long flags;
	ktime_t now;
	int ret = 0;

	/*
	 * A relative timer starts from a read taken when it is armed, which
	 * also serves the mapping, rather than from a prediction (a margin
	 * late) or the next look (a wait).
	 */
	if (!absolute)
		read = clockdev_timer_arm_read(t->cd, &r);

	spin_lock_irqsave(&base->lock, flags);
	if (base->shutdown) {
		ret = -ENODEV;
		goto out_unlock;
	}
	if (WARN_ON_ONCE(t->state == CLOCKDEV_TIMER_QUEUED ||
			 t->state == CLOCKDEV_TIMER_UNANCHORED))
		goto out_unlock;
	t->relative = !absolute;
	t->delay = expires;
	t->step_gen = base->step_gen;
	t->seen_gen = base->step_gen;
	t->seen = 0;
	now = ktime_get_boottime();
	if (absolute) {
		t->node.expires = expires;
		clockdev_timer_enqueue(base, t);
	} else if (read && clockdev_timer_arm_read_fits(base, &r)) {
		if (trace_clockdev_timer_read_enabled())
			trace_clockdev_timer_read(t->cd, r.b0, r.dev,
						  base->ref_valid ?
						  clockdev_predict(base, r.b0) : 0,
						  0);
		clockdev_timer_update_ref(base, r.dev, r.b0, r.lead, false);
		t->node.expires = clockdev_add_sat(r.dev, expires);
		clockdev_timer_enqueue(base, t);
	} else if (!clockdev_ticked(base) &&
		   base->ref_valid && !base->stalled && !base->stepped &&
		   !base->stepping && !base->rate_stale &&
		   ktime_sub(now, base->ref_boot) < CLOCKDEV_ANCHOR_MAX_AGE) {
		u64 age = ktime_to_ns(ktime_sub(now, base->ref_boot));
		/*
		 * Margin: a rate error up to 2000 ppm since the read, in the
		 * clock's time.
		 */
		u64 margin = clockdev_margin(base, age / 512);

		t->node.expires = clockdev_add_sat(clockdev_predict(base, now),
						   clockdev_add_sat(expires, margin));
		clockdev_timer_enqueue(base, t);
	} else {
		list_add_tail(&t->anchor, &base->unanchored);
		t->state = CLOCKDEV_TIMER_UNANCHORED;
		t->in_read = base->looking;
	}
	clockdev_timer_program(base, false, 0);
out_unlock:
	spin_unlock_irqrestore(&base->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(clockdev_timer_start);

/**
 * clockdev_timer_restart() - re-arm an expired periodic timer
 * @t:       A timer that is not armed.
 * @expires: Next expiry, device time (ns), as of the timer's last
 *           clockdev_timer_forward(): a step since moves a relative one.
 *
 * Unlike clockdev_timer_start(), keeps whether the timer was armed
 * relative: a relative periodic timer keeps ignoring steps.
 *
 * Context: any but NMI; takes base->lock, a spinlock_t, so on PREEMPT_RT
 * not hard interrupt context nor under a raw spinlock.  Does not read
 * the clock.
 * Return: 0, or -ENODEV when the clock has been removed.
 */
int clockdev_timer_restart(struct clockdev_timer *t, u64 expires)
{
	struct clockdev_timer_base *base = &t->cd->timers;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&base->lock, flags);
	if (base->shutdown) {
		ret = -ENODEV;
	} else if (!WARN_ON_ONCE(t->state == CLOCKDEV_TIMER_QUEUED ||
				 t->state == CLOCKDEV_TIMER_UNANCHORED)) {
		t->node.expires = clockdev_timer_catch_up(base, t, expires);
		clockdev_timer_enqueue(base, t);
		clockdev_timer_program(base, false, 0);
	}
	spin_unlock_irqrestore(&base->lock, flags);

	return ret;
}
EXPORT_SYMBOL_GPL(clockdev_timer_restart);

/**
 * clockdev_timer_requeue() - re-arm a timer from its expiry callback
 * @t:       The timer whose callback is running.
 * @expires: New expiry, device time (ns), absolute, as of the timer's
 *           last clockdev_timer_forward(): a step since moves a relative
 *           one.
 *
 * The worker programs the next look at the clock after the callback.
 */
void clockdev_timer_requeue(struct clockdev_timer *t, u64 expires)
{
	struct clockdev_timer_base *base = &t->cd->timers;
	unsigned long flags;

	spin_lock_irqsave(&base->lock, flags);
	if (!base->shutdown && t->state == CLOCKDEV_TIMER_RUNNING) {
		t->node.expires = clockdev_timer_catch_up(base, t, expires);
		clockdev_timer_enqueue(base, t);
	}
	spin_unlock_irqrestore(&base->lock, flags);
}
EXPORT_SYMBOL_GPL(clockdev_timer_requeue);

/**
 * clockdev_timer_try_to_cancel() - disarm a timer
 * @t: The timer.
 *
 * Context: any but NMI; takes base->lock, a spinlock_t, so on PREEMPT_RT
 * not hard interrupt context nor under a raw spinlock.
 * Return: 1 if it was armed, 0 if not, -1 if its callback is running
 * (wait with clockdev_timer_wait_running() and try again).
 */
int clockdev_timer_try_to_cancel(struct clockdev_timer *t)
{
	struct clockdev_timer_base *base = &t->cd->timers;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&base->lock, flags);
	switch (t->state) {
	case CLOCKDEV_TIMER_QUEUED:
		/*
		 * The driver's alarm may be set for this timer: have the
		 * worker set it for the next one, or cancel it, lest it wake
		 * the system for nothing.
		 */
		if (timerqueue_getnext(&base->queue) == &t->node &&
		    clockdev_has_alarm(base) && !base->shutdown)
			clockdev_timer_kick(base);
		timerqueue_del(&base->queue, &t->node);
		ret = 1;
		break;
	case CLOCKDEV_TIMER_UNANCHORED:
		list_del_init(&t->anchor);
		ret = 1;
		break;
	case CLOCKDEV_TIMER_RUNNING:
		ret = -1;
		break;
	}
	if (ret >= 0)
		t->state = CLOCKDEV_TIMER_IDLE;
	spin_unlock_irqrestore(&base->lock, flags);

	return ret;
}
EXPORT_SYMBOL_GPL(clockdev_timer_try_to_cancel);

/**
 * clockdev_timer_wait_running() - wait for a timer's callback to return
 * @t: The timer.
 */
void clockdev_timer_wait_running(struct clockdev_timer *t)
{
	struct clockdev_timer_base *base = &t->cd->timers;

	spin_lock_irq(&base->expiry_lock);
	spin_unlock_irq(&base->expiry_lock);
}
EXPORT_SYMBOL_GPL(clockdev_timer_wait_running);

/**
 * clockdev_timer_cancel() - disarm a timer, waiting for its callback
 * @t: The timer.
 *
 * Context: process context, no locks that the callback takes.
 */
void clockdev_timer_cancel(struct clockdev_timer *t)
{
	while (clockdev_timer_try_to_cancel(t) < 0)
		clockdev_timer_wait_running(t);
}
EXPORT_SYMBOL_GPL(clockdev_timer_cancel);

/**
 * clockdev_timer_remaining() - device time left until a timer expires
 * @t:   The timer.
 * @now: Set to the predicted device time now.
 *
 * Context: any but NMI; takes base->lock, a spinlock_t, so on PREEMPT_RT
 * not hard interrupt context nor under a raw spinlock.  Uses the
 * prediction, does not read the clock.
 * Return: the remaining time in ns, or the delay of a relative timer not
 * anchored yet.  At least 1 while the timer is armed: the prediction may
 * run ahead of the clock, and only a read of the clock expires a timer.
 * May be <= 0 for a timer that is not armed.
 */
s64 clockdev_timer_remaining(struct clockdev_timer *t, u64 *now)
{
	struct clockdev_timer_base *base = &t->cd->timers;
	unsigned long flags;
	s64 rem;

	spin_lock_irqsave(&base->lock, flags);
	*now = clockdev_predict(base, ktime_get_boottime());
	/*
	 * Whole-tick reads lag the clock by up to a tick; without an alarm,
	 * the mapping already predicts at or ahead of the clock.
	 */
	if (clockdev_has_alarm(base))
		*now += base_to_cd(base)->ops->timer_tick;
	/*
	 * A new read may move the prediction back by the time the previous
	 * read took: what the timer's owner saw never goes back but for a
	 * step, as on a static clock.
	 */
	if (t->seen_gen == base->step_gen && *now < t->seen) {
		*now = t->seen;
	} else {
		t->seen = *now;
		t->seen_gen = base->step_gen;
	}
	if (t->state == CLOCKDEV_TIMER_UNANCHORED) {
		rem = t->delay;
	} else {
		t->node.expires = clockdev_timer_catch_up(base, t,
							  t->node.expires);
		rem = (s64)(t->node.expires - *now);
	}
	/* Never more than was armed (the anchoring margin). */
	if (t->relative && rem > (s64)t->delay)
		rem = t->delay;
	/* The prediction runs ahead: only a read expires a timer. */
	if (rem < 1 && (t->state == CLOCKDEV_TIMER_QUEUED ||
			t->state == CLOCKDEV_TIMER_UNANCHORED))
		rem = 1;
	spin_unlock_irqrestore(&base->lock, flags);

	return rem;
}
EXPORT_SYMBOL_GPL(clockdev_timer_remaining);

/**
 * clockdev_timer_forward() - move an expired periodic timer on
 * @t:         A timer that is not armed.
 * @interval:  Its period, device ns.
 * @delivered: Its expiry was delivered, so it must move at least one
 *             period even if the clock's last read is behind it (the clock
 *             was stepped back since).
 *
 * Moves the expiry by whole periods to the first one after the time the
 * clock has surely reached (the prediction from its last read, less what
 * the prediction may run ahead by), so that the count never runs ahead of
 * the clock.  A relative timer first moves with the steps of the clock
 * since it expired: they count as no periods, and hold it back by none.
 *
 * Context: any but NMI; takes base->lock, a spinlock_t, so on PREEMPT_RT
 * not hard interrupt context nor under a raw spinlock.  Does not read
 * the clock.
 * Return: the number of periods the expiry moved by.
 */
u64 clockdev_timer_forward(struct clockdev_timer *t, u64 interval,
			   bool delivered)
{
	struct clockdev_timer_base *base = &t->cd->timers;
	unsigned long flags;
	u64 n = 0, now;

	if (!interval)
		return 0;
	spin_lock_irqsave(&base->lock, flags);
	t->node.expires = clockdev_timer_catch_up(base, t, t->node.expires);
	now = base->ref_valid ? clockdev_reached(base, ktime_get_boottime()) : 0;
	if (base->ref_valid && now >= t->node.expires)
		n = div64_u64(now - t->node.expires, interval) + 1;
	else if (delivered)
		n = 1;
	t->node.expires = n > div64_u64(U64_MAX, interval) ? U64_MAX :
			  clockdev_add_sat(t->node.expires, n * interval);
	spin_unlock_irqrestore(&base->lock, flags);

	return n;
}
EXPORT_SYMBOL_GPL(clockdev_timer_forward);

/*
 * clockdev_timers_prepare() - get a clock ready for its first timer
 * @cd: The clock.
 *
 * Reads the clock once if the core never did, so that the remaining time
 * of a timer is right from the start (timer_gettime() right after
 * timer_settime()).
 *
 * Context: process context, inside the clock's read section; sleeps.
 */
void clockdev_timers_prepare(struct clock_device *cd)
{
	struct clockdev_timer_base *base = &cd->timers;

	if (READ_ONCE(base->ref_valid))
		return;
	clockdev_timer_kick(base);
	flush_work(&base->work);
}

/*
 * The clock moved by an amount the core does not know: the worker reads it
 * at once and takes the difference from its prediction for a step.
 */
static void clockdev_timers_mark_stepped(struct clockdev_timer_base *base)
{
	lockdep_assert_held(&base->lock);
	base->stepped = true;
	base->step_seq++;
	base->step_gen++;
	if (!base->shutdown)
		clockdev_timer_kick(base);
}

/**
 * clockdev_time_changed() - tell the core that a clock was stepped
 * @cd: The clock.
 *
 * For drivers whose clock changes outside clock_settime() and
 * clock_adjtime() (a hardware reset, an RTC set through its own ioctl).
 * Armed absolute timers are re-evaluated at once; relative ones keep their
 * remaining time.  A driver may call it from its clock_settime or
 * clock_adjtime operation too: that step is accounted for once.
 *
 * Context: any but NMI; takes base->lock, a spinlock_t, so on PREEMPT_RT
 * not hard interrupt context nor under a raw spinlock.
 */
void clockdev_time_changed(struct clock_device *cd)
{
	struct clockdev_timer_base *base = &cd->timers;
	unsigned long flags;

	spin_lock_irqsave(&base->lock, flags);
	/*
	 * During clock_settime() or clock_adjtime() (the driver's own step
	 * reporting itself), clockdev_timers_step_end() accounts for it;
	 * between clockdev_time_change_begin() and _end(), the end does.
	 */
	if (!base->stepping)
		clockdev_timers_mark_stepped(base);
	spin_unlock_irqrestore(&base->lock, flags);
}
EXPORT_SYMBOL_GPL(clockdev_time_changed);

/**
 * clockdev_time_change_begin() - a driver is about to reset its clock
 * @cd: The clock.
 *
 * For a driver that resets its clock's hardware and then sets the clock
 * again (e1000e and igb set their PHC to the system's time after a reset
 * of the NIC).  In between, the clock reads neither the old time nor the
 * new one: under QEMU, seconds behind, standing still for up to half a
 * second.  Until the matching clockdev_time_change_end(), the core does
 * not read the clock, and clock_settime() and clock_adjtime() on it wait.
 * clockdev_time_changed() in between is accounted for by the end.
 *
 * Context: process context; sleeps.  Takes the mutex the core holds
 * around its reads of the clock, so not from the clock's operations, nor
 * holding a lock that they take.
 */
void clockdev_time_change_begin(struct clock_device *cd)
{
	clockdev_timers_step_begin(cd);
}
EXPORT_SYMBOL_GPL(clockdev_time_change_begin);

/**
 * clockdev_time_change_end() - a driver has reset its clock
 * @cd: The clock.
 *
 * Ends clockdev_time_change_begin(): the clock was set again.  The core
 * reads it at once and takes the difference from the time the clock would
 * have had, had it run on through the reset, for a step: absolute timers
 * are re-evaluated, relative ones keep their remaining time, and the
 * reset takes none of it.
 *
 * Context: process context, in the task that called
 * clockdev_time_change_begin().
 */
void clockdev_time_change_end(struct clock_device *cd)
{
	struct clockdev_timer_base *base = &cd->timers;
	unsigned long flags;

	spin_lock_irqsave(&base->lock, flags);
	base->stepping--;
	clockdev_timers_mark_stepped(base);
	spin_unlock_irqrestore(&base->lock, flags);
	mutex_unlock(&base->step_mutex);
}
EXPORT_SYMBOL_GPL(clockdev_time_change_end);

/**
 * clockdev_alarm_fired() - a clock's own alarm fired
 * @cd: The clock, whose ops->timer_alarm programmed the alarm.
 *
 * The core reads the clock and expires what is due.
 *
 * Context: any but NMI; takes base->lock, a spinlock_t, so on PREEMPT_RT
 * not hard interrupt context nor under a raw spinlock.
 */
void clockdev_alarm_fired(struct clock_device *cd)
{
	struct clockdev_timer_base *base = &cd->timers;
	unsigned long flags;

	spin_lock_irqsave(&base->lock, flags);
	base->alarm_fired = true;
	if (!base->shutdown)
		clockdev_timer_kick(base);
	spin_unlock_irqrestore(&base->lock, flags);
}
EXPORT_SYMBOL_GPL(clockdev_alarm_fired);

/**
 * clockdev_next_timer() - the earliest armed timer of a clock
 * @cd:      The clock.
 * @expires: Set to its expiry, device time (ns).
 *
 * For the suspend callback of a driver whose clock has an alarm
 * (ops->timer_alarm), to refuse suspend with a timer about to fire.  Waits
 * for the worker first, so that timers just armed are queued: the worker
 * of a clock without an alarm is frozen by then, so such a clock must not
 * call it from a suspend callback.
 * A relative timer still waiting for a read counts as due at the last read.
 *
 * Context: process context; sleeps.
 * Return: whether a timer is armed.
 */
bool clockdev_next_timer(struct clock_device *cd, u64 *expires)
{
	struct clockdev_timer_base *base = &cd->timers;
	struct timerqueue_node *next;
	bool armed = true;

	flush_work(&base->work);
	spin_lock_irq(&base->lock);
	next = timerqueue_getnext(&base->queue);
	if (!list_empty(&base->unanchored))
		*expires = base->ref_dev;
	else if (next)
		*expires = next->expires;
	else
		armed = false;
	spin_unlock_irq(&base->lock);

	return armed;
}
EXPORT_SYMBOL_GPL(clockdev_next_timer);

/*
 * Move relative timers by @step: out of the queue and back in, so that it
 * stays in order with the absolute ones, which do not move.  Those out of
 * the queue move when they are next used (clockdev_timer_catch_up()).
 * Holds base->lock.
 */
static void clockdev_timers_shift_relative(struct clockdev_timer_base *base,
					   s64 step)
{
	struct clockdev_timer *t, *tmp;
	struct rb_node *rb, *next;
	LIST_HEAD(moved);

	if (!step)
		return;
	base->rel_shift += step;
	for (rb = rb_first_cached(&base->queue.rb_root); rb; rb = next) {
		next = rb_next(rb);
		t = rb_entry(rb, struct clockdev_timer, node.node);
		if (!t->relative)
			continue;
		timerqueue_del(&base->queue, &t->node);
		/* Queued timers are on no anchor list: borrow the node. */
		list_add_tail(&t->anchor, &moved);
	}
	list_for_each_entry_safe(t, tmp, &moved, anchor) {
		list_del_init(&t->anchor);
		t->node.expires = clockdev_shift_sat(t->node.expires, step);
		t->rel_shift = base->rel_shift;
		timerqueue_add(&base->queue, &t->node);
	}
}

/**
 * clockdev_timers_step_begin() - a step of a clock is about to happen
 * @cd: The clock.
 *
 * Until the matching clockdev_timers_step_end(), the worker does not read
 * the clock: the step is accounted for exactly once, by
 * clockdev_timers_step_end(), and a stream of steps cannot starve expiry
 * (reads and steps take turns on a mutex).
 *
 * Context: process context; sleeps.  The clock stays registered until the
 * step is over: the caller is inside the clock's read section, or is the
 * clock's driver (clockdev_time_change_begin()).
 */
void clockdev_timers_step_begin(struct clock_device *cd)
{
	struct clockdev_timer_base *base = &cd->timers;
	unsigned long flags;

	mutex_lock(&base->step_mutex);
	spin_lock_irqsave(&base->lock, flags);
	base->stepping++;
	base->step_seq++;
	spin_unlock_irqrestore(&base->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(clockdev_timers_step_begin);

/**
 * clockdev_timers_rate_changed() - a clock's frequency was changed
 * @cd: The clock.
 *
 * For clock_adjtime() through the clock's file.  The rate measured before
 * may be off by up to twice the clock's frequency range (a PHC's max_adj
 * reaches 3.2 %), far more than the margin of an anchor on a prediction:
 * until a rate is measured again from reads after the change, relative
 * timers wait for a read.
 *
 * Context: any but NMI; takes base->lock, a spinlock_t, so on PREEMPT_RT
 * not hard interrupt context nor under a raw spinlock.
 */
void clockdev_timers_rate_changed(struct clock_device *cd)
{
	struct clockdev_timer_base *base = &cd->timers;
	unsigned long flags;

	spin_lock_irqsave(&base->lock, flags);
	base->rate_stale = true;
	base->rate_restart = true;
	spin_unlock_irqrestore(&base->lock, flags);
}

/**
 * clockdev_timers_step_end() - a step of a clock is over
 * @cd:      The clock.
 * @stepped: Whether the clock was stepped (the driver's call succeeded).
 * @set:     The clock was set to @value (else moved by @value).
 * @value:   The time set, or the offset added, in ns.
 * @before:  Boot time before the clock was set.
 * @old:     The clock's time at @before, when known (a read just before
 *           the step); else U64_MAX and the core's prediction is used.
 *
 * For clock_settime() and clock_adjtime(ADJ_SETOFFSET) through the
 * clockid: the new time is known, so timer_gettime() is right at once and
 * relative timers keep their remaining time exactly.  The worker then
 * reads the clock and expires or reprograms.
 */
void clockdev_timers_step_end(struct clock_device *cd, bool stepped, bool set,
			      s64 value, ktime_t before, u64 old)
{
	struct clockdev_timer_base *base = &cd->timers;
	unsigned long flags;
	s64 step;

	spin_lock_irqsave(&base->lock, flags);
	base->stepping--;
	base->step_seq++;
	if (!stepped) {
		/* Nothing happened; only let the worker run again. */
	} else if (base->ref_valid) {
		if (old == U64_MAX)
			old = clockdev_predict(base, before);
		step = set ? value - (s64)old : value;
		clockdev_timers_shift_relative(base, step);
		if (set) {
			base->ref_dev = value;
			base->ref_boot = before;
			base->ref_lead = ktime_to_ns(ktime_sub(ktime_get_boottime(),
							       before));
		} else {
			base->ref_dev += value;
		}
		/*
		 * The rate is measured from the step on, no more precisely
		 * than the step is known: a set that took long (a clock
		 * behind a slow bus) set it anywhere in that time.
		 */
		base->rate_dev = base->ref_dev;
		base->rate_boot = base->ref_boot;
		base->rate_lead = base->ref_lead;
	} else if (set) {
		/* No read yet: the time set is the first reference. */
		base->ref_dev = value;
		base->ref_boot = before;
		base->ref_lead = ktime_to_ns(ktime_sub(ktime_get_boottime(),
						       before));
		base->rate_dev = value;
		base->rate_boot = before;
		base->rate_lead = base->ref_lead;
		base->ref_valid = true;
	} else {
		base->stepped = true;
	}
	if (stepped) {
		base->step_event = true;
		base->step_gen++;
	}
	if (!base->shutdown)
		clockdev_timer_kick(base);
	spin_unlock_irqrestore(&base->lock, flags);
	mutex_unlock(&base->step_mutex);
}
EXPORT_SYMBOL_IF_KUNIT(clockdev_timers_step_end);

void clockdev_timers_init(struct clock_device *cd)
{
	struct clockdev_timer_base *base = &cd->timers;

	spin_lock_init(&base->lock);
	spin_lock_init(&base->expiry_lock);
	mutex_init(&base->step_mutex);
	timerqueue_init_head(&base->queue);
	INIT_LIST_HEAD(&base->unanchored);
	hrtimer_init(&base->hrtimer, CLOCK_BOOTTIME, HRTIMER_MODE_ABS);
	base->hrtimer.function = clockdev_timer_hrtimer_fn;
	INIT_WORK(&base->work, clockdev_timer_work);
	base->rate = CLOCKDEV_RATE_ONE;
	base->rate_stale = true;
	base->backoff = CLOCKDEV_TIMER_MIN_BACKOFF;
	base->alarm_next = U64_MAX;
	base->alarm_armed = U64_MAX;
}

/*
 * Called by clockdev_unregister() once no operation runs: disarm every
 * timer and tell its owner that the clock is gone.
 */
void clockdev_timers_shutdown(struct clock_device *cd)
{
	struct clockdev_timer_base *base = &cd->timers;
	struct timerqueue_node *node;
	struct clockdev_timer *t;

	spin_lock_irq(&base->lock);
	base->shutdown = true;
	spin_unlock_irq(&base->lock);
	hrtimer_cancel(&base->hrtimer);
	cancel_work_sync(&base->work);

	spin_lock_irq(&base->expiry_lock);
	spin_lock(&base->lock);
	for (;;) {
		node = timerqueue_getnext(&base->queue);
		if (node) {
			t = container_of(node, struct clockdev_timer, node);
			timerqueue_del(&base->queue, node);
		} else if (!list_empty(&base->unanchored)) {
			t = list_first_entry(&base->unanchored,
					     struct clockdev_timer, anchor);
			list_del_init(&t->anchor);
		} else {
			break;
		}
		t->state = CLOCKDEV_TIMER_RUNNING;
		base->running = t;
		spin_unlock(&base->lock);

		t->function(t, 0, CLOCKDEV_TIMER_GONE);

		spin_lock(&base->lock);
		base->running = NULL;
		t->state = CLOCKDEV_TIMER_IDLE;
	}
	spin_unlock(&base->lock);
	spin_unlock_irq(&base->expiry_lock);
}

/* After resume: read the clock again before trusting its mapping. */
static void clockdev_timers_resumed(struct clock_device *cd)
{
	struct clockdev_timer_base *base = &cd->timers;
	unsigned long flags;

	spin_lock_irqsave(&base->lock, flags);
	base->resumed = true;
	if (!base->shutdown && (timerqueue_getnext(&base->queue) ||
				!list_empty(&base->unanchored)))
		clockdev_timer_kick(base);
	spin_unlock_irqrestore(&base->lock, flags);
}

static int clockdev_timers_pm_notify(struct notifier_block *nb,
				     unsigned long action, void *unused)
{
	switch (action) {
	case PM_SUSPEND_PREPARE:
	case PM_HIBERNATION_PREPARE:
		WRITE_ONCE(clockdev_pm_transition, true);
		break;
	case PM_POST_SUSPEND:
	case PM_POST_HIBERNATION:
	case PM_POST_RESTORE:
		WRITE_ONCE(clockdev_pm_transition, false);
		clockdev_for_each(clockdev_timers_resumed);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block clockdev_timers_pm_nb = {
	.notifier_call = clockdev_timers_pm_notify,
};

static int __init clockdev_timers_init_wq(void)
{
	clockdev_wq = alloc_workqueue("clockdev",
				      WQ_UNBOUND | WQ_HIGHPRI | WQ_FREEZABLE, 0);
	if (!clockdev_wq)
		return -ENOMEM;
	clockdev_alarm_wq = alloc_workqueue("clockdev_alarm",
					    WQ_UNBOUND | WQ_HIGHPRI, 0);
	if (!clockdev_alarm_wq) {
		destroy_workqueue(clockdev_wq);
		return -ENOMEM;
	}
	register_pm_notifier(&clockdev_timers_pm_nb);

	return 0;
}
subsys_initcall(clockdev_timers_init_wq);
