/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixture of the timers selftests (timers.c, timers_steps.c): one
 * test body for every kind of wait (a POSIX timer, clock_nanosleep(), a
 * timerfd; timer_kinds.h) on every clock (ptp_sim, ptp_sim with sleeping
 * reads, netdevsim's mock PHC, an RTC clock, and CLOCK_MONOTONIC and
 * CLOCK_REALTIME beside them for reference; timers.c adds the PHCs of
 * QEMU's e1000e and igb, which do not take the steps of timers_steps.c:
 * QEMU 10 moves their time at each change of frequency).
 *
 * Lateness is the clock's own time read right after an expiry was seen
 * (first thing in the signal handler, right after the sleep or the read
 * returns), minus the expiry; for a relative timer, the expiry is the time
 * read before arming plus the delay: the earliest it may come.  An early
 * expiry always fails; a late one fails beyond LATE_MAX_NS plus the
 * longest the process could not run (stall_max_ns(): QEMU TCG stalls) plus
 * two ticks of a clock that reads in whole ticks.
 *
 * The time left that timer_gettime() and timerfd_gettime() report is
 * judged with a tolerance that grows with the measured cost of a read of
 * the clock (pred_tol()), never with the kernel's name.
 *
 * A kernel without timers on dynamic clocks skips the dynamic clocks'
 * variants, with the reason its probe gives.
 */
#ifndef __TIMERS_H
#define __TIMERS_H

#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "clockdev_util.h"
#include "timer_kinds.h"

/* A PHC starts here: far from CLOCK_REALTIME, to show a wrong timescale. */
#define PHC_BASE_S	1000
/*
 * Latest acceptable expiry, on top of stalls: it catches an expiry that
 * waits for a back-off or a stale prediction, not scheduling noise
 * (timer_latency measures that).
 */
#define LATE_MAX_NS	MS(200)
/* "Promptly": after a step made an expiry due, or a removal (+ stalls). */
#define PROMPT_NS	MS(100)
/* How far the remaining time may be off, before the cost of reads. */
#define PRED_TOL_NS	MS(2)
/* CLOCK_MONOTONIC against a clock at 0 ppm over a second or so. */
#define RATE_TOL_NS	MS(1)
#define FREQ_PPM	500
/* Far enough ahead never to come during a test. */
#define FAR_AHEAD	SEC(3600)
/* Timers of the never_early burst. */
#define BURST		16

/* What a test needs of a static clock; the dynamic ones offer all. */
enum needs {
	ANY_CLOCK,	/* shown on CLOCK_MONOTONIC */
	SETTABLE,	/* steps: shown on CLOCK_REALTIME */
	TUNABLE,	/* ADJ_FREQUENCY: shown on CLOCK_REALTIME */
	DEVICE,		/* an fd to close, a device to remove */
};

FIXTURE(timers) {
	struct test_clock c;
	struct tk_timer t;
	bool timer;
	s64 offset;
	bool stepped;
	long freq;
	bool tuned;
	s64 pred_tol;
	struct expiry_audit audit;
	int audit_err;
};

FIXTURE_VARIANT(timers) {
	enum clock_kind clock;
	enum timer_kind timer;
};

/* Every clock with every kind of timer: { .clock, .timer }. */
FIXTURE_VARIANT_ADD(timers, ptp_sim_posix) { CK_PTP_SIM, TK_POSIX };
FIXTURE_VARIANT_ADD(timers, ptp_sim_nanosleep) { CK_PTP_SIM, TK_NANOSLEEP };
FIXTURE_VARIANT_ADD(timers, ptp_sim_timerfd) { CK_PTP_SIM, TK_TIMERFD };
FIXTURE_VARIANT_ADD(timers, ptp_sim_sleeping_posix) { CK_PTP_SIM_SLOW, TK_POSIX };
FIXTURE_VARIANT_ADD(timers, ptp_sim_sleeping_nanosleep) { CK_PTP_SIM_SLOW, TK_NANOSLEEP };
FIXTURE_VARIANT_ADD(timers, ptp_sim_sleeping_timerfd) { CK_PTP_SIM_SLOW, TK_TIMERFD };
FIXTURE_VARIANT_ADD(timers, mock_phc_posix) { CK_MOCK_PHC, TK_POSIX };
FIXTURE_VARIANT_ADD(timers, mock_phc_nanosleep) { CK_MOCK_PHC, TK_NANOSLEEP };
FIXTURE_VARIANT_ADD(timers, mock_phc_timerfd) { CK_MOCK_PHC, TK_TIMERFD };
FIXTURE_VARIANT_ADD(timers, rtc_posix) { CK_RTC, TK_POSIX };
FIXTURE_VARIANT_ADD(timers, rtc_nanosleep) { CK_RTC, TK_NANOSLEEP };
FIXTURE_VARIANT_ADD(timers, rtc_timerfd) { CK_RTC, TK_TIMERFD };
FIXTURE_VARIANT_ADD(timers, monotonic_posix) { CK_MONOTONIC, TK_POSIX };
FIXTURE_VARIANT_ADD(timers, monotonic_nanosleep) { CK_MONOTONIC, TK_NANOSLEEP };
FIXTURE_VARIANT_ADD(timers, monotonic_timerfd) { CK_MONOTONIC, TK_TIMERFD };
FIXTURE_VARIANT_ADD(timers, realtime_posix) { CK_REALTIME, TK_POSIX };
FIXTURE_VARIANT_ADD(timers, realtime_nanosleep) { CK_REALTIME, TK_NANOSLEEP };
FIXTURE_VARIANT_ADD(timers, realtime_timerfd) { CK_REALTIME, TK_TIMERFD };

/* ---- the clock's terms ---- */

/* Up to a tick: how far a read of a clock in whole ticks lags it. */
static inline s64 tick_lag(const struct test_clock *c)
{
	return c->tick > 1 ? c->tick : 0;
}

/* A delay of at least @ns that a clock reading in whole ticks can tell. */
static inline s64 span(const struct test_clock *c, s64 ns)
{
	if (c->tick <= 1)
		return ns;
	return (ns + c->tick - 1) / c->tick * c->tick;
}

/*
 * The latest an expiry may be seen, in the clock's time, besides stalls:
 * LATE_MAX_NS, and on a clock in whole ticks one tick of lag of the read
 * taken before arming plus the tick a relative timer adds (clockdev.rst).
 */
static inline s64 late_bound(const struct test_clock *c)
{
	return LATE_MAX_NS + 2 * tick_lag(c);
}

/*
 * Whether @late is within @bound plus the longest stall seen, @rate times
 * as long in a clock that runs @rate times as fast as CLOCK_MONOTONIC.
 * The stall monitor records a stall once it runs again, which may be
 * after the test saw a late expiry: give it three of its 10 ms ticks first.
 */
static inline bool within_rate(s64 late, s64 bound, double rate)
{
	if (rate < 1)
		rate = 1;
	if (late <= bound + rate * stall_max_ns())
		return true;
	pass_time(MS(30));
	return late <= bound + rate * stall_max_ns();
}

static inline bool within(s64 late, s64 bound)
{
	return within_rate(late, bound, 1);
}

/*
 * How far timer_gettime() and timerfd_gettime() may be off.  The core
 * answers from its mapping of the clock, anchored on its last reads; it
 * cannot place a read more precisely than the read takes, and its rate,
 * from two reads 200 ms or more apart, carries that error forward over
 * the next second or two.  So the tolerance grows with the cost of a
 * read, measured here rather than assumed (KASAN and lockdep make reads
 * several times slower): PRED_TOL_NS plus eight median read costs, and
 * on a clock in whole ticks the two ticks its reads and its alarm are off.
 */
static inline s64 pred_tol(const struct test_clock *c)
{
	double cost[31];
	s64 m0;
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(cost); i++) {
		m0 = mono_ns();
		clock_ns(c->clk);
		cost[i] = mono_ns() - m0;
	}
	return PRED_TOL_NS + 8 * (s64)median(cost, ARRAY_SIZE(cost)) +
	       2 * tick_lag(c);
}

/* Why the variant's clock does not run a test that needs @n, or NULL. */
static inline const char *not_here(const struct test_clock *c,
				   enum needs n)
{
	if (!test_clock_static(c))
		return NULL;
	switch (n) {
	case ANY_CLOCK:
		return c->kind == CK_REALTIME ?
		       "CLOCK_MONOTONIC shows this test on a static clock" : NULL;
	case SETTABLE:
		return c->kind == CK_MONOTONIC ?
		       "CLOCK_MONOTONIC cannot be set: CLOCK_REALTIME shows this test" :
		       NULL;
	case TUNABLE:
		return c->kind == CK_MONOTONIC ?
		       "CLOCK_MONOTONIC takes no ADJ_FREQUENCY: CLOCK_REALTIME shows this test" :
		       NULL;
	default:
		return "a static clock has no fd to close and no device to remove";
	}
}

/*
 * Skip unless the variant suits a test that needs @n of a static clock and
 * @features of its kind of timer.  Return: whether it skipped.
 */
static inline bool skipped(struct __test_metadata *_metadata,
			   struct _test_data_timers *self, enum needs n,
			   unsigned int features)
{
	const char *why = not_here(&self->c, n) ?:
			  tk_lacks(self->t.kind, features);

	if (why)
		SKIP(return true, "%s", why);
	return false;
}

/*
 * Step the clock by @offset: ADJ_SETOFFSET, or where the clock takes none
 * (an RTC) clock_settime() from a read, then off by up to a tick.
 */
static inline int step_clock(struct _test_data_timers *self, s64 offset)
{
	int err;

	self->stepped = true;
	err = sys_clock_step(self->c.clk, offset);
	if (err == -EOPNOTSUPP)
		err = sys_clock_settime(self->c.clk,
					clock_ns(self->c.clk) + offset);
	return err;
}

/* The clock's frequency offset in scaled ppm (clock_adjtime, no mode). */
static inline int freq_get(clockid_t clk, long *freq)
{
	struct timex tx = { .modes = 0 };

	if (syscall(SYS_clock_adjtime, clk, &tx) < 0)
		return -errno;
	*freq = tx.freq;
	return 0;
}

static inline int freq_set(clockid_t clk, long freq)
{
	struct timex tx = { .modes = ADJ_FREQUENCY, .freq = freq };

	return syscall(SYS_clock_adjtime, clk, &tx) < 0 ? -errno : 0;
}

FIXTURE_SETUP(timers)
{
	const struct tk_kind *k = tk_kind(variant->timer);
	char why[256];
	int err;

	ASSERT_EQ(0, tk_setup());
	/* After tk_setup(): the monitor must not take SIG_TIMER. */
	stall_monitor_start();
	err = test_clock_make(&self->c, variant->clock, why, sizeof(why));
	if (err)
		SKIP(return, "%s", why);
	/* A skip here skips the teardown too: undo first. */
	err = k->probe(self->c.clk);
	if (err) {
		test_clock_destroy(&self->c);
		SKIP(return, "%s on %s: %s: no timers on dynamic clocks",
		     k->call, self->c.name, errname(-err));
	}
	/* A NIC's PHC that QEMU does not advance (7.2's e1000e) never expires. */
	if ((variant->clock == CK_E1000E || variant->clock == CK_IGB) &&
	    self->c.rate <= 0) {
		test_clock_destroy(&self->c);
		SKIP(return, "%s's PHC %s does not advance (QEMU before 8)",
		     self->c.name, self->c.node);
	}
	/* An RTC keeps its date: the RTC class and hwclock rely on it. */
	if (!test_clock_static(&self->c) && self->c.tick == 1)
		err = sys_clock_settime(self->c.clk, SEC(PHC_BASE_S));
	if (!err)
		err = tk_create(&self->t, variant->timer, self->c.clk);
	if (err) {
		test_clock_destroy(&self->c);
		ASSERT_EQ(0, err) TH_LOG("%s: clock_settime or %s: %s",
					 self->c.name, k->call, errname(-err));
	}
	self->timer = true;
	self->offset = clock_ns(self->c.clk) - mono_ns();
	self->pred_tol = pred_tol(&self->c);
	/* Every test of a dynamic clock is audited (never_early, below). */
	self->audit_err = test_clock_static(&self->c) ? -EOPNOTSUPP :
			  expiry_audit_start(&self->audit, self->c.node);
}

FIXTURE_TEARDOWN(timers)
{
	if (self->timer)
		tk_destroy(&self->t);
	if (self->tuned)
		freq_set(self->c.clk, self->freq);
	if (self->stepped)
		sys_clock_settime(self->c.clk, mono_ns() + self->offset);
	if (!self->audit_err && self->audit.dir[0] &&
	    !expiry_audit_stop(&self->audit)) {
		EXPECT_EQ(0, self->audit.early)
			TH_LOG("the core expired %ld of %ld timers early, first: %s",
			       self->audit.early, self->audit.events,
			       self->audit.first_early);
		EXPECT_EQ(0, self->audit.lost)
			TH_LOG("the expiry trace lost %ld events", self->audit.lost);
	}
	test_clock_destroy(&self->c);
}

/* ---- judging what was seen ---- */

/*
 * One expiry, seen at @ev: without error, never before @expiry and, when
 * @bounded, no later than late_bound() (and stalls) after it, in the
 * clock's time.
 * Return: the lateness.
 */
static inline s64 expect_on_time(struct __test_metadata *_metadata,
				 const struct test_clock *c,
				 const struct tk_event *ev, s64 expiry,
				 bool bounded)
{
	s64 late = ev->at - expiry;

	ASSERT_EQ(0, ev->err) TH_LOG("the wait ended with %s", errname(ev->err));
	ASSERT_LE(0, ev->at) TH_LOG("the clock could not be read at the expiry");
	EXPECT_GE(ev->at, expiry) TH_LOG("expired %lld ns early", -late);
	if (bounded)
		EXPECT_TRUE(within_rate(late, late_bound(c), c->rate))
			TH_LOG("expired %.1f ms late: > %lld ms + %.1f ms stalls + %lld ms ticks",
			       late / 1e6, LATE_MAX_NS / NSEC_PER_MSEC,
			       stall_max_ns() / 1e6,
			       2 * tick_lag(c) / NSEC_PER_MSEC);
	return late;
}

/*
 * A remaining time of a timer armed for @set, expiring at @expiry, asked
 * between reads @before and @after: never more than armed, and what was
 * left during the call give or take the prediction's tolerance.  A stall
 * during the core's last read makes its prediction run ahead, and the
 * time left shorter, by as much: stalls widen the lower bound.
 */
static inline void expect_remaining(struct __test_metadata *_metadata,
				    struct _test_data_timers *self,
				    s64 value, s64 set, s64 expiry,
				    s64 before, s64 after)
{
	s64 tol = self->pred_tol;

	EXPECT_LE(value, set) TH_LOG("%lld ns left, more than the %lld armed",
				     value, set);
	EXPECT_LE(value, expiry - before + tol)
		TH_LOG("%lld ns left, want %lld..%lld", value,
		       expiry - after - tol, expiry - before + tol);
	EXPECT_TRUE(within_rate(expiry - after - value, tol, self->c.rate))
		TH_LOG("%lld ns left, want %lld..%lld (%.1f ms of stalls)",
		       value, expiry - after - tol, expiry - before + tol,
		       stall_max_ns() / 1e6);
}

#endif /* __TIMERS_H */
