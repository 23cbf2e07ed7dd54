// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Timers on dynamic clock devices.
 *
 * Every clock has one queue of timers, ordered by expiry in the clock's
 * own time, and one hrtimer on CLOCK_BOOTTIME that says when to look at
 * the clock next.  Only a worker, in process context, reads the clock: the
 * driver's read may sleep, and the posix-timer and timerfd paths run with
 * interrupts disabled.  The worker decides expiry by comparing the time it
 * read with the expiry, so a timer never expires before the clock reached
 * it.  Between reads, the worker keeps a mapping from boot time to device
 * time (the last read and the rate between the last two reads) and uses it
 * to predict when the next timer is due.  It wakes up a little before the
 * prediction (7/8 of the remaining time while that is above
 * CLOCKDEV_TIMER_SLACK_NS) and re-reads, so an error in the rate costs at
 * most the rate error times CLOCKDEV_TIMER_SLACK_NS of lateness.
 *
 * A clock that does not advance between two reads gets no prediction:
 * the worker backs off, doubling its delay up to CLOCKDEV_TIMER_MAX_BACKOFF.
 *
 * Relative timers wait for the worker to anchor them: their expiry is the
 * first read after arming plus the delay, so they are never early either.
 * When the clock is stepped (clock_settime, clock_adjtime, or a driver's
 * clock_device_time_changed()), the worker re-reads it at once: absolute
 * timers whose expiry was passed fire, and relative ones are moved by the
 * step, so that they are not affected by it.
 *
 * Locking: base->lock (irq-safe) protects the queue, the timers' state and
 * the mapping.  base->expiry_lock is held by the worker while it runs
 * expiry callbacks, so clockdev_timer_wait_running() can wait for them.
 * Callbacks run in process context with expiry_lock held: they must not
 * sleep.  They may re-queue their timer.
 */
#include <linux/bits.h>
#include <linux/clockdev.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/workqueue.h>

#include "clockdev.h"

/* Below this, predictions are not shortened. */
#define CLOCKDEV_TIMER_SLACK_NS		(2 * NSEC_PER_MSEC)
/* Re-check delays of a clock that does not advance. */
#define CLOCKDEV_TIMER_MIN_BACKOFF	(1 * NSEC_PER_MSEC)
#define CLOCKDEV_TIMER_MAX_BACKOFF	(1 * NSEC_PER_SEC)
/* A rate needs boot time between the two reads; 1 is 1 << 32. */
#define CLOCKDEV_RATE_MIN_SPAN		(500 * NSEC_PER_USEC)
#define CLOCKDEV_RATE_ONE		BIT_ULL(32)

static struct workqueue_struct *clockdev_wq;

/* Device time predicted for boot time @boot.  Caller holds base->lock. */
static u64 clockdev_predict(struct clockdev_timer_base *base, ktime_t boot)
{
	s64 span = ktime_to_ns(ktime_sub(boot, base->ref_boot));

	if (span <= 0)
		return base->ref_dev;
	return base->ref_dev + mul_u64_u64_shr(span, base->rate, 32);
}

/* Boot time to wait for @dev_delay of device time.  Holds base->lock. */
static u64 clockdev_boot_delay(struct clockdev_timer_base *base, u64 dev_delay)
{
	return mul_u64_u64_div_u64(dev_delay, CLOCKDEV_RATE_ONE, base->rate);
}

static void clockdev_timer_enqueue(struct clockdev_timer_base *base,
				   struct clockdev_timer *t)
{
	lockdep_assert_held(&base->lock);
	timerqueue_add(&base->queue, &t->node);
	t->state = CLOCKDEV_TIMER_QUEUED;
}

/* Program the hrtimer for the next look at the clock.  Holds base->lock. */
static void clockdev_timer_program(struct clockdev_timer_base *base)
{
	struct timerqueue_node *next;
	ktime_t now;
	u64 dev_now, delay;

	lockdep_assert_held(&base->lock);
	if (base->shutdown)
		return;
	if (!list_empty(&base->unanchored) || !base->ref_valid) {
		queue_work(clockdev_wq, &base->work);
		return;
	}
	next = timerqueue_getnext(&base->queue);
	if (!next)
		return;

	now = ktime_get_boottime();
	if (base->stalled) {
		delay = base->backoff;
	} else {
		dev_now = clockdev_predict(base, now);
		if (next->expires <= dev_now) {
			delay = 0;
		} else {
			delay = clockdev_boot_delay(base, next->expires - dev_now);
			if (delay > CLOCKDEV_TIMER_SLACK_NS)
				delay -= delay / 8;
		}
	}
	hrtimer_start(&base->hrtimer, ktime_add_ns(now, delay),
		      HRTIMER_MODE_ABS);
}

static enum hrtimer_restart clockdev_timer_hrtimer_fn(struct hrtimer *hr)
{
	struct clockdev_timer_base *base =
		container_of(hr, struct clockdev_timer_base, hrtimer);

	queue_work(clockdev_wq, &base->work);
	return HRTIMER_NORESTART;
}

/* Record the expiry decision for user space to check (debugfs). */
static void clockdev_timer_record(struct clockdev_timer_base *base,
				  u64 expires, u64 dev_now)
{
	struct clockdev_expiry *e;

	e = &base->log[base->log_next++ % CLOCKDEV_EXPIRY_LOG];
	e->expires = expires;
	e->decided = dev_now;
}

/* New read: update the mapping and the stall state.  Holds base->lock. */
static void clockdev_timer_update_ref(struct clockdev_timer_base *base,
				      u64 dev_now, ktime_t boot, bool stepped)
{
	s64 span = ktime_to_ns(ktime_sub(boot, base->ref_boot));
	struct clockdev_timer *t;
	struct rb_node *rb;
	s64 step = 0;

	if (base->ref_valid && stepped) {
		/* Relative timers ignore steps: move them with the clock. */
		step = dev_now - clockdev_predict(base, boot);
		for (rb = rb_first_cached(&base->queue.rb_root); rb;
		     rb = rb_next(rb)) {
			t = rb_entry(rb, struct clockdev_timer, node.node);
			if (t->relative)
				t->node.expires += step;
		}
		/* Keys changed by the same amount: the order holds. */
	} else if (base->ref_valid && span >= CLOCKDEV_RATE_MIN_SPAN) {
		if (dev_now > base->ref_dev) {
			u64 rate = mul_u64_u64_div_u64(dev_now - base->ref_dev,
						       CLOCKDEV_RATE_ONE, span);

			base->rate = clamp_t(u64, rate, CLOCKDEV_RATE_ONE / 2,
					     CLOCKDEV_RATE_ONE * 2);
			base->stalled = false;
			base->backoff = CLOCKDEV_TIMER_MIN_BACKOFF;
		} else {
			base->stalled = true;
			base->backoff = min_t(u64, base->backoff * 2,
					      CLOCKDEV_TIMER_MAX_BACKOFF);
		}
	}
	if (!base->ref_valid || stepped || span >= CLOCKDEV_RATE_MIN_SPAN ||
	    base->stalled) {
		base->ref_dev = dev_now;
		base->ref_boot = boot;
		base->ref_valid = true;
	}
}

/*
 * Report a step to the timers that asked for it, disarming them.  Holds
 * base->lock and base->expiry_lock; drops and retakes base->lock.
 */
static void clockdev_timer_cancel_stepped(struct clockdev_timer_base *base,
					  u64 dev_now)
{
	struct clockdev_timer *t;
	struct rb_node *rb;

restart:
	for (rb = rb_first_cached(&base->queue.rb_root); rb; rb = rb_next(rb)) {
		t = rb_entry(rb, struct clockdev_timer, node.node);
		if (!t->cancel_on_step)
			continue;
		timerqueue_del(&base->queue, &t->node);
		t->state = CLOCKDEV_TIMER_RUNNING;
		base->running = t;
		spin_unlock_irq(&base->lock);

		t->function(t, dev_now, CLOCKDEV_TIMER_STEPPED);

		spin_lock_irq(&base->lock);
		base->running = NULL;
		if (t->state == CLOCKDEV_TIMER_RUNNING)
			t->state = CLOCKDEV_TIMER_IDLE;
		goto restart;
	}
}

static void clockdev_timer_work(struct work_struct *work)
{
	struct clockdev_timer_base *base =
		container_of(work, struct clockdev_timer_base, work);
	struct clock_device *cd = container_of(base, struct clock_device, timers);
	struct timerqueue_node *node;
	struct clockdev_timer *t, *tmp;
	struct timespec64 ts;
	ktime_t b0, b1;
	u64 dev_now;
	bool stepped;
	int err, idx;

	if (clockdev_enter(cd, &idx))
		return;
	b0 = ktime_get_boottime();
	err = cd->ops->clock_gettime(cd, &ts);
	b1 = ktime_get_boottime();
	clockdev_exit(cd, idx);

	spin_lock_irq(&base->lock);
	base->reads++;
	if (err) {
		/* Treat a failing read like a clock that does not advance. */
		base->stalled = true;
		base->backoff = min_t(u64, base->backoff * 2,
				      CLOCKDEV_TIMER_MAX_BACKOFF);
		clockdev_timer_program(base);
		spin_unlock_irq(&base->lock);
		return;
	}
	dev_now = timespec64_to_ns(&ts);
	stepped = base->stepped;
	base->stepped = false;
	clockdev_timer_update_ref(base, dev_now,
				  ktime_add_ns(b0, ktime_to_ns(ktime_sub(b1, b0)) / 2),
				  stepped);

	list_for_each_entry_safe(t, tmp, &base->unanchored, anchor) {
		list_del_init(&t->anchor);
		t->node.expires = dev_now + t->delay;
		clockdev_timer_enqueue(base, t);
	}
	spin_unlock_irq(&base->lock);

	spin_lock(&base->expiry_lock);
	spin_lock_irq(&base->lock);
	if (stepped)
		clockdev_timer_cancel_stepped(base, dev_now);
	while ((node = timerqueue_getnext(&base->queue)) &&
	       node->expires <= dev_now) {
		t = container_of(node, struct clockdev_timer, node);
		timerqueue_del(&base->queue, node);
		t->state = CLOCKDEV_TIMER_RUNNING;
		base->running = t;
		clockdev_timer_record(base, node->expires, dev_now);
		spin_unlock_irq(&base->lock);

		t->function(t, dev_now, CLOCKDEV_TIMER_EXPIRED);

		spin_lock_irq(&base->lock);
		base->running = NULL;
		if (t->state == CLOCKDEV_TIMER_RUNNING)
			t->state = CLOCKDEV_TIMER_IDLE;
	}
	clockdev_timer_program(base);
	spin_unlock_irq(&base->lock);
	spin_unlock(&base->expiry_lock);
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
 * clockdev_timer_start() - arm a timer
 * @t:        A timer that is not armed.
 * @expires:  Expiry in device time (ns) when @absolute, else the delay.
 * @absolute: Whether @expires is a time or a delay.
 *
 * Context: any; does not read the clock.
 * Return: 0, or -ENODEV when the clock has been removed.
 */
int clockdev_timer_start(struct clockdev_timer *t, u64 expires, bool absolute)
{
	struct clockdev_timer_base *base = &t->cd->timers;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&base->lock, flags);
	if (base->shutdown) {
		ret = -ENODEV;
		goto out_unlock;
	}
	if (WARN_ON_ONCE(t->state == CLOCKDEV_TIMER_QUEUED ||
			 t->state == CLOCKDEV_TIMER_UNANCHORED))
		goto out_unlock;
	t->relative = !absolute;
	if (absolute) {
		t->node.expires = expires;
		clockdev_timer_enqueue(base, t);
	} else {
		t->delay = expires;
		list_add_tail(&t->anchor, &base->unanchored);
		t->state = CLOCKDEV_TIMER_UNANCHORED;
	}
	clockdev_timer_program(base);
out_unlock:
	spin_unlock_irqrestore(&base->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(clockdev_timer_start);

/**
 * clockdev_timer_requeue() - re-arm a timer from its expiry callback
 * @t:       The timer whose callback is running.
 * @expires: New expiry, device time (ns), absolute.
 *
 * The worker programs the next look at the clock after the callback.
 */
void clockdev_timer_requeue(struct clockdev_timer *t, u64 expires)
{
	struct clockdev_timer_base *base = &t->cd->timers;
	unsigned long flags;

	spin_lock_irqsave(&base->lock, flags);
	if (!base->shutdown && t->state == CLOCKDEV_TIMER_RUNNING) {
		t->node.expires = expires;
		clockdev_timer_enqueue(base, t);
	}
	spin_unlock_irqrestore(&base->lock, flags);
}
EXPORT_SYMBOL_GPL(clockdev_timer_requeue);

/**
 * clockdev_timer_try_to_cancel() - disarm a timer
 * @t: The timer.
 *
 * Context: any.
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

	spin_lock(&base->expiry_lock);
	spin_unlock(&base->expiry_lock);
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
 * Context: any; uses the prediction, does not read the clock.
 * Return: the remaining time in ns (may be <= 0 when due), or the delay of
 * a relative timer not anchored yet.
 */
s64 clockdev_timer_remaining(struct clockdev_timer *t, u64 *now)
{
	struct clockdev_timer_base *base = &t->cd->timers;
	unsigned long flags;
	s64 rem;

	spin_lock_irqsave(&base->lock, flags);
	*now = clockdev_predict(base, ktime_get_boottime());
	if (t->state == CLOCKDEV_TIMER_UNANCHORED)
		rem = t->delay;
	else
		rem = (s64)(t->node.expires - *now);
	spin_unlock_irqrestore(&base->lock, flags);

	return rem;
}
EXPORT_SYMBOL_GPL(clockdev_timer_remaining);

/**
 * clock_device_time_changed() - tell the core that a clock was stepped
 * @cd: The clock.
 *
 * For drivers whose clock changes outside clock_settime() and
 * clock_adjtime() (a hardware reset, an RTC set through its own ioctl).
 * Armed absolute timers are re-evaluated at once; relative ones keep their
 * remaining time.
 *
 * Context: any.
 */
void clock_device_time_changed(struct clock_device *cd)
{
	struct clockdev_timer_base *base = &cd->timers;
	unsigned long flags;

	spin_lock_irqsave(&base->lock, flags);
	base->stepped = true;
	if (!base->shutdown)
		queue_work(clockdev_wq, &base->work);
	spin_unlock_irqrestore(&base->lock, flags);
}
EXPORT_SYMBOL_GPL(clock_device_time_changed);

void clockdev_timers_init(struct clock_device *cd)
{
	struct clockdev_timer_base *base = &cd->timers;

	spin_lock_init(&base->lock);
	spin_lock_init(&base->expiry_lock);
	timerqueue_init_head(&base->queue);
	INIT_LIST_HEAD(&base->unanchored);
	hrtimer_init(&base->hrtimer, CLOCK_BOOTTIME, HRTIMER_MODE_ABS);
	base->hrtimer.function = clockdev_timer_hrtimer_fn;
	INIT_WORK(&base->work, clockdev_timer_work);
	base->rate = CLOCKDEV_RATE_ONE;
	base->backoff = CLOCKDEV_TIMER_MIN_BACKOFF;
}

/*
 * Called by clock_device_unregister() once no operation runs: disarm every
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

	spin_lock(&base->expiry_lock);
	spin_lock_irq(&base->lock);
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
		spin_unlock_irq(&base->lock);

		t->function(t, 0, CLOCKDEV_TIMER_GONE);

		spin_lock_irq(&base->lock);
		base->running = NULL;
		t->state = CLOCKDEV_TIMER_IDLE;
	}
	spin_unlock_irq(&base->lock);
	spin_unlock(&base->expiry_lock);
}

static int __init clockdev_timers_init_wq(void)
{
	clockdev_wq = alloc_workqueue("clockdev", WQ_UNBOUND | WQ_HIGHPRI, 0);

	return clockdev_wq ? 0 : -ENOMEM;
}
subsys_initcall(clockdev_timers_init_wq);
