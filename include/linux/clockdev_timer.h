/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * clockdev_timer.h - timers on dynamic clock devices
 *
 * Kept apart from clockdev.h so that struct k_itimer can embed a timer
 * without pulling in the character device headers.
 */
#ifndef _LINUX_CLOCKDEV_TIMER_H_
#define _LINUX_CLOCKDEV_TIMER_H_

#include <linux/err.h>
#include <linux/list.h>
#include <linux/timerqueue.h>
#include <linux/types.h>

struct clock_device;

enum clockdev_timer_state {
	CLOCKDEV_TIMER_IDLE,
	CLOCKDEV_TIMER_UNANCHORED,
	CLOCKDEV_TIMER_QUEUED,
	CLOCKDEV_TIMER_RUNNING,
};

/**
 * enum clockdev_timer_event - why a timer's callback is called
 * @CLOCKDEV_TIMER_EXPIRED: A read of the clock reached the expiry.
 * @CLOCKDEV_TIMER_STEPPED: The clock was stepped and the timer asked to be
 *                          told (@cancel_on_step); it stays armed.
 * @CLOCKDEV_TIMER_GONE:    The clock was removed; the timer is disarmed.
 */
enum clockdev_timer_event {
	CLOCKDEV_TIMER_EXPIRED,
	CLOCKDEV_TIMER_STEPPED,
	CLOCKDEV_TIMER_GONE,
};

/**
 * struct clockdev_timer - a timer in a dynamic clock's time
 *
 * @node:     Queue node; node.expires is the expiry in device time (ns).
 * @anchor:   List node of a relative timer waiting for its first read.
 * @cd:       The clock.  Whoever arms the timer holds a reference to it.
 * @function: Expiry callback (see clockdev_timer_init()).
 * @delay:    Delay of a relative timer, in device ns, as armed.
 * @relative: Armed relative: steps of the clock do not move its expiry.
 * @cancel_on_step: Report a step of the clock (the timer stays armed).
 * @in_read:  Left unanchored while a read of the clock was under way: that
 *            read may have sampled the clock before the timer was armed,
 *            so it does not anchor it; the next one does.
 * @state:    enum clockdev_timer_state, under the clock's timer lock.
 * @step_gen: The clock's step count when the timer was armed or last
 *            told of a step: only a later step is reported
 *            (@cancel_on_step).
 * @rel_shift: The clock's @rel_shift (struct clockdev_timer_base) that
 *            its expiry is in.
 * @seen:     The latest device time its remaining time was taken at ...
 * @seen_gen: ... and the clock's step count then.
 */
struct clockdev_timer {
	struct timerqueue_node node;
	struct list_head anchor;
	struct clock_device *cd;
	void (*function)(struct clockdev_timer *t, u64 now,
			 enum clockdev_timer_event ev);
	u64 delay;
	bool relative;
	bool cancel_on_step;
	bool in_read;
	u8 state;
	unsigned int step_gen;
	unsigned int seen_gen;
	u64 rel_shift;
	u64 seen;
};

#if IS_ENABLED(CONFIG_CLOCKDEV)
struct clock_device *clockdev_get_by_clockid(const clockid_t id);
void clockdev_put(struct clock_device *cd);
bool clockdev_wakes(struct clock_device *cd);
bool clockdev_gone(struct clock_device *cd);
void clockdev_timer_init(struct clockdev_timer *t, struct clock_device *cd,
			 void (*function)(struct clockdev_timer *t, u64 now,
					  enum clockdev_timer_event ev));
int clockdev_timer_start(struct clockdev_timer *t, u64 expires, bool absolute);
int clockdev_timer_restart(struct clockdev_timer *t, u64 expires);
void clockdev_timer_requeue(struct clockdev_timer *t, u64 expires);
int clockdev_timer_try_to_cancel(struct clockdev_timer *t);
void clockdev_timer_wait_running(struct clockdev_timer *t);
void clockdev_timer_cancel(struct clockdev_timer *t);
s64 clockdev_timer_remaining(struct clockdev_timer *t, u64 *now);
u64 clockdev_timer_forward(struct clockdev_timer *t, u64 interval,
			   bool delivered);
#else
static inline struct clock_device *clockdev_get_by_clockid(const clockid_t id)
{
	return ERR_PTR(-EINVAL);
}

static inline void clockdev_put(struct clock_device *cd) { }

static inline bool clockdev_wakes(struct clock_device *cd) { return false; }

static inline bool clockdev_gone(struct clock_device *cd) { return true; }

static inline void
clockdev_timer_init(struct clockdev_timer *t, struct clock_device *cd,
		    void (*function)(struct clockdev_timer *t, u64 now,
				     enum clockdev_timer_event ev)) { }

static inline int clockdev_timer_start(struct clockdev_timer *t, u64 expires,
				       bool absolute)
{
	return -ENODEV;
}

static inline int clockdev_timer_restart(struct clockdev_timer *t, u64 expires)
{
	return -ENODEV;
}

static inline int clockdev_timer_try_to_cancel(struct clockdev_timer *t)
{
	return 0;
}

static inline void clockdev_timer_wait_running(struct clockdev_timer *t) { }

static inline void clockdev_timer_cancel(struct clockdev_timer *t) { }

static inline s64 clockdev_timer_remaining(struct clockdev_timer *t, u64 *now)
{
	*now = 0;
	return 0;
}

static inline u64 clockdev_timer_forward(struct clockdev_timer *t,
					 u64 interval, bool delivered)
{
	return 0;
}
#endif

#endif /* _LINUX_CLOCKDEV_TIMER_H_ */
