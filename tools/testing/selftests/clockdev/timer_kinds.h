/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One interface over the three ways to wait on a clock, so that one test
 * body covers them all:
 *
 * - TK_POSIX: timer_create(SIGEV_SIGNAL).  A thread of its own takes the
 *   signal; its handler reads the timer's clock first thing.
 * - TK_NANOSLEEP: clock_nanosleep() in a thread of its own, which reads
 *   the clock right after the sleep returns.
 * - TK_TIMERFD: timerfd_create() on the clockid.  A thread of its own
 *   blocks in read() (in poll() first, armed with TK_POLL) and reads the
 *   clock right after it returns.
 *
 * Whatever the kind, what it sees arrives as struct tk_event records in a
 * pipe that tk_wait() reads: the test thread never blocks in the call it
 * observes, so it can step the clock, close its fd or remove it meanwhile.
 */
#ifndef __TIMER_KINDS_H
#define __TIMER_KINDS_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "clockdev_util.h"

/* The signal of TK_POSIX timers; blocked in every thread but one. */
#define SIG_TIMER		(SIGRTMIN + 1)

/**
 * enum timer_kind - how a test waits on a clock
 * @TK_POSIX:     a POSIX timer notifying SIG_TIMER
 * @TK_NANOSLEEP: clock_nanosleep()
 * @TK_TIMERFD:   a timerfd
 */
enum timer_kind {
	TK_POSIX,
	TK_NANOSLEEP,
	TK_TIMERFD,
};

/* What a kind offers beyond waiting for one expiry (tk_lacks()). */
#define TKF_INTERVAL	0x1	/* periodic expiries */
#define TKF_REMAINING	0x2	/* the time left, while armed */
#define TKF_REARM	0x4	/* a kernel object that holds the clock */
#define TKF_POLL	0x8	/* an fd to poll */

/* Flags of tk_arm(). */
#define TK_ABS		0x1	/* @value is a time of the clock */
#define TK_CANCEL_ON_SET 0x2	/* timerfd only: TFD_TIMER_CANCEL_ON_SET */
#define TK_POLL		0x4	/* timerfd only: block in poll() before read() */

/**
 * struct tk_kind - what a kind of timer is and offers
 * @name:         for messages and variant names ("posix", ...)
 * @call:         the call that makes one ("timer_create", ...)
 * @features:     TKF_* bits
 * @lacks:        why a TKF_* feature is missing, by bit number
 * @probe:        whether this kernel offers the kind on a clock: 0 or -errno
 * @removed_err:  the errno its calls give once its clock was removed
 * @removal_ends: whether a wait in progress ends with @removed_err then
 *                (else the timer is disarmed and stays silent)
 * @removed_poll: the poll() events of its fd then (TKF_POLL)
 */
struct tk_kind {
	const char *name;
	const char *call;
	unsigned int features;
	const char *lacks[4];
	int (*probe)(clockid_t clk);
	int removed_err;
	bool removal_ends;
	int removed_poll;
};

/**
 * struct tk_event - one thing a timer's observer saw
 * @at:    the clock's time read right after (first thing in the handler),
 *         or -1 when the read failed
 * @mono:  CLOCK_MONOTONIC, read next
 * @count: the expirations it stands for: 1 + overruns (TK_POSIX), the
 *         count read (TK_TIMERFD), 1 (TK_NANOSLEEP); 0 with @err
 * @err:   0, or the errno the wait ended with (ENODEV, ECANCELED, ...)
 */
struct tk_event {
	s64 at;
	s64 mono;
	long long count;
	int err;
};

/* The observing thread of TK_NANOSLEEP and TK_TIMERFD. */
struct tk_thread {
	pthread_t th;
	pid_t tid;
	bool started;
	bool done;
};

struct tk_ops;

/**
 * struct tk_timer - a timer of some kind on a clock
 * @kind:   what it is
 * @ops:    its kind's operations
 * @clk:    the clock it waits on
 * @read:   the clock read at each expiry: @clk, unless the caller changes
 *          it (the fd of @clk may be closed under the timer)
 * @ev:     the pipe of struct tk_event records
 * @posix:  TK_POSIX: the timer id, and the handler's key for it (or -1)
 * @tfd:    TK_TIMERFD: the timerfd, the thread blocked reading it, and
 *          the TK_* flags it was armed with
 * @sleep:  TK_NANOSLEEP: the sleeping thread, the armed sleep (TK_* flags
 *          and time or delay) and how it ended
 */
struct tk_timer {
	enum timer_kind kind;
	const struct tk_ops *ops;
	clockid_t clk;
	clockid_t read;
	int ev[2];
	union {
		struct {
			int id;
			int slot;
		} posix;
		struct {
			int fd;
			struct tk_thread reader;
			int flags;
		} tfd;
		struct {
			struct tk_thread sleeper;
			int flags;
			s64 value;
			int err;
		} sleep;
	};
};

/*
 * Block SIG_TIMER in the calling thread and start the thread that takes
 * it.  Call before starting any other thread (the stall monitor): they
 * inherit the mask.  0 or -errno.
 */
int tk_setup(void);
const struct tk_kind *tk_kind(enum timer_kind kind);
/* NULL when @kind offers all of @features (TKF_*), else why not. */
const char *tk_lacks(enum timer_kind kind, unsigned int features);

/* Make a timer of @kind on @clk: 0 or -errno. */
int tk_create(struct tk_timer *t, enum timer_kind kind, clockid_t clk);
/*
 * Arm @t: @value is a time of the clock with TK_ABS, else a delay;
 * @interval 0 for a one-shot.  A sleep or a timerfd read is under way in
 * its thread when this returns.  0 or -errno (-EOPNOTSUPP for an interval
 * the kind lacks; a sleep that failed at once gives its error here).
 */
int tk_arm(struct tk_timer *t, int flags, s64 value, s64 interval);
/*
 * Wait up to @timeout_ns for events adding up to @n expirations, or one
 * with an error; at most @max of them are stored in @ev.  Return: the
 * number stored, 0 when nothing came.
 */
int tk_wait(struct tk_timer *t, long long n, s64 timeout_ns,
	    struct tk_event *ev, int max);
/* The time left and the interval (timer_gettime/timerfd_gettime). */
int tk_remaining(struct tk_timer *t, s64 *value, s64 *interval);
/* The poll() events of @t's fd now, or -errno (-EOPNOTSUPP: none). */
int tk_poll(struct tk_timer *t);
/* Disarm @t (or end its sleep): 0 or -errno. */
int tk_cancel(struct tk_timer *t);
/* Release @t: the result of timer_delete() or close(), 0 or -errno. */
int tk_destroy(struct tk_timer *t);

#endif /* __TIMER_KINDS_H */
