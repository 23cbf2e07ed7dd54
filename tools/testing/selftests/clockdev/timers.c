// SPDX-License-Identifier: GPL-2.0
/*
 * Timers on clocks: one test body for every kind of wait (a POSIX timer,
 * clock_nanosleep(), a timerfd; timer_kinds.h) on every clock (ptp_sim,
 * ptp_sim with sleeping reads, netdevsim's mock PHC, an RTC clock, and
 * CLOCK_MONOTONIC and CLOCK_REALTIME beside them for reference).
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
#define _GNU_SOURCE
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
static s64 tick_lag(const struct test_clock *c)
{
	return c->tick > 1 ? c->tick : 0;
}

/* A delay of at least @ns that a clock reading in whole ticks can tell. */
static s64 span(const struct test_clock *c, s64 ns)
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
static s64 late_bound(const struct test_clock *c)
{
	return LATE_MAX_NS + 2 * tick_lag(c);
}

/*
 * Whether @late is within @bound plus the longest stall seen.  The stall
 * monitor records a stall once it runs again, which may be after the
 * test saw a late expiry: give it three of its 10 ms ticks first.
 */
static bool within(s64 late, s64 bound)
{
	if (late <= bound + stall_max_ns())
		return true;
	pass_time(MS(30));
	return late <= bound + stall_max_ns();
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
static s64 pred_tol(const struct test_clock *c)
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
static const char *not_here(const struct test_clock *c, enum needs n)
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
static bool skipped(struct __test_metadata *_metadata,
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
static int step_clock(struct _test_data_timers *self, s64 offset)
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
static int freq_get(clockid_t clk, long *freq)
{
	struct timex tx = { .modes = 0 };

	if (syscall(SYS_clock_adjtime, clk, &tx) < 0)
		return -errno;
	*freq = tx.freq;
	return 0;
}

static int freq_set(clockid_t clk, long freq)
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
static s64 expect_on_time(struct __test_metadata *_metadata,
			  const struct test_clock *c,
			  const struct tk_event *ev, s64 expiry, bool bounded)
{
	s64 late = ev->at - expiry;

	ASSERT_EQ(0, ev->err) TH_LOG("the wait ended with %s", errname(ev->err));
	ASSERT_LE(0, ev->at) TH_LOG("the clock could not be read at the expiry");
	EXPECT_GE(ev->at, expiry) TH_LOG("expired %lld ns early", -late);
	if (bounded)
		EXPECT_TRUE(within(late, late_bound(c)))
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
static void expect_remaining(struct __test_metadata *_metadata,
			     struct _test_data_timers *self, s64 value, s64 set,
			     s64 expiry, s64 before, s64 after)
{
	s64 tol = self->pred_tol;

	EXPECT_LE(value, set) TH_LOG("%lld ns left, more than the %lld armed",
				     value, set);
	EXPECT_LE(value, expiry - before + tol)
		TH_LOG("%lld ns left, want %lld..%lld", value,
		       expiry - after - tol, expiry - before + tol);
	EXPECT_TRUE(within(expiry - after - value, tol))
		TH_LOG("%lld ns left, want %lld..%lld (%.1f ms of stalls)",
		       value, expiry - after - tol, expiry - before + tol,
		       stall_max_ns() / 1e6);
}

/* ---- one-shot and periodic ---- */

static void one_shot(struct __test_metadata *_metadata,
		     struct _test_data_timers *self, bool absolute)
{
	const struct test_clock *c = &self->c;
	s64 d = span(c, MS(100)), t0, t1, expiry, value, iv, late;
	bool remaining = !tk_lacks(self->t.kind, TKF_REMAINING);
	struct tk_event ev[2];

	if (skipped(_metadata, self, ANY_CLOCK, 0))
		return;
	t0 = clock_ns(c->clk);
	expiry = t0 + d;
	ASSERT_EQ(0, tk_arm(&self->t, absolute ? TK_ABS : 0,
			    absolute ? expiry : d, 0));
	if (remaining) {
		ASSERT_EQ(0, tk_remaining(&self->t, &value, &iv));
		t1 = clock_ns(c->clk);
		expect_remaining(_metadata, self, value, d, expiry, t0, t1);
		EXPECT_EQ(0, iv);
	}
	ASSERT_EQ(1, tk_wait(&self->t, 1, d + SEC(3), ev, 1))
		TH_LOG("no expiry 3 s after a %lld ms timer", d / NSEC_PER_MSEC);
	late = expect_on_time(_metadata, c, &ev[0], expiry, true);
	EXPECT_EQ(0, tk_wait(&self->t, 1, MS(50), &ev[1], 1))
		TH_LOG("a one-shot timer expired again");
	if (remaining) {
		ASSERT_EQ(0, tk_remaining(&self->t, &value, &iv));
		EXPECT_EQ(0, value) TH_LOG("%lld ns left after the expiry", value);
		EXPECT_EQ(0, iv);
	}
	TH_LOG("expired %.1f us after %lld ms (%s time); time left within %.1f us",
	       late / 1e3, d / NSEC_PER_MSEC, c->name, self->pred_tol / 1e3);
}

TEST_F(timers, one_shot_relative)
{
	one_shot(_metadata, self, false);
}

TEST_F(timers, one_shot_absolute)
{
	one_shot(_metadata, self, true);
}

/*
 * Every event of a periodic timer armed at @t0 with @iv stands for as
 * many expirations as it counts: after those, the clock is at least at the
 * last one counted.
 */
static void periodic(struct __test_metadata *_metadata,
		     struct _test_data_timers *self, bool absolute)
{
	const struct test_clock *c = &self->c;
	const int want = c->tick > 1 ? 3 : 10;
	s64 iv = span(c, MS(20)), t0, value, giv, late, worst = 0;
	long long total = 0;
	struct tk_event ev[32];
	int n, i;

	if (skipped(_metadata, self, ANY_CLOCK, TKF_INTERVAL))
		return;
	t0 = clock_ns(c->clk);
	ASSERT_EQ(0, tk_arm(&self->t, absolute ? TK_ABS : 0,
			    absolute ? t0 + iv : iv, iv));
	ASSERT_EQ(0, tk_remaining(&self->t, &value, &giv));
	EXPECT_EQ(iv, giv);
	n = tk_wait(&self->t, want, want * iv + SEC(3), ev, ARRAY_SIZE(ev));
	for (i = 0; i < n; i++) {
		total += ev[i].count;
		late = expect_on_time(_metadata, c, &ev[i], t0 + total * iv,
				      true);
		worst = late > worst ? late : worst;
	}
	EXPECT_LE(want, total) TH_LOG("%lld expirations of %d", total, want);
	EXPECT_EQ(0, tk_cancel(&self->t));
	TH_LOG("%lld expirations in %d events, the latest %.1f us late",
	       total, n, worst / 1e3);
}

TEST_F(timers, periodic_relative)
{
	periodic(_metadata, self, false);
}

TEST_F(timers, periodic_absolute)
{
	periodic(_metadata, self, true);
}

/* ---- steps ---- */

/* An absolute timer 10 s ahead fires promptly when the clock is set past it. */
TEST_F(timers, step_past)
{
	struct tk_event ev;
	s64 expiry, m0;

	if (skipped(_metadata, self, SETTABLE, 0))
		return;
	expiry = clock_ns(self->c.clk) + SEC(10);
	ASSERT_EQ(0, tk_arm(&self->t, TK_ABS, expiry, 0));
	/* Let the core settle on its 10 s wait first. */
	pass_time(MS(50));
	self->stepped = true;
	ASSERT_EQ(0, sys_clock_settime(self->c.clk, expiry + SEC(1)));
	m0 = mono_ns();
	ASSERT_EQ(1, tk_wait(&self->t, 1, SEC(10), &ev, 1))
		TH_LOG("no expiry 10 s after the clock was set past it");
	expect_on_time(_metadata, &self->c, &ev, expiry, false);
	EXPECT_TRUE(within(ev.mono - m0, PROMPT_NS))
		TH_LOG("expired %.1f ms after the step, want < %lld ms + %.1f ms of stalls",
		       (ev.mono - m0) / 1e6, PROMPT_NS / NSEC_PER_MSEC,
		       stall_max_ns() / 1e6);
	TH_LOG("expired %.1f ms after the step", (ev.mono - m0) / 1e6);
}

/*
 * An absolute timer @d ahead, the clock stepped back 2 s at once: it
 * expires when the clock reaches it, 2 s later.  A step that returns only
 * after @d (a stalled guest; a step waits for a read under way) may have
 * landed after the expiry and tells nothing: that round is done again.
 */
TEST_F(timers, step_back_absolute)
{
	const struct test_clock *c = &self->c;
	s64 d = span(c, MS(300)), expiry, m0, m1, elapsed;
	struct tk_event ev;
	int round = 0;

	if (skipped(_metadata, self, SETTABLE, 0))
		return;
	do {
		m0 = mono_ns();
		expiry = clock_ns(c->clk) + d;
		ASSERT_EQ(0, tk_arm(&self->t, TK_ABS, expiry, 0));
		ASSERT_EQ(0, step_clock(self, -SEC(2)));
		m1 = mono_ns();
		ASSERT_EQ(1, tk_wait(&self->t, 1, d + SEC(6), &ev, 1))
			TH_LOG("no expiry within %lld ms",
			       (d + SEC(6)) / NSEC_PER_MSEC);
		expect_on_time(_metadata, c, &ev, expiry, true);
	} while (m1 - m0 >= d && ++round < 3);
	ASSERT_LT(m1 - m0, d) TH_LOG("3 steps took %lld ms or more to return",
				     d / NSEC_PER_MSEC);
	elapsed = ev.mono - m0;
	EXPECT_GE(elapsed, d + SEC(2) - RATE_TOL_NS - tick_lag(c))
		TH_LOG("expired %.1f ms after arming, want %lld ms",
		       elapsed / 1e6, (d + SEC(2)) / NSEC_PER_MSEC);
	TH_LOG("expired %.1f ms after arming (%lld ms of %s time)",
	       elapsed / 1e6, (d + SEC(2)) / NSEC_PER_MSEC, c->name);
}

/*
 * A relative timer, the clock stepped by @step 100 ms later: it still
 * expires after its delay of CLOCK_MONOTONIC.  Stepped back, a timerfd is
 * armed with TFD_TIMER_CANCEL_ON_SET, which means nothing without
 * TFD_TIMER_ABSTIME: no ECANCELED.
 */
static void step_relative(struct __test_metadata *_metadata,
			  struct _test_data_timers *self, s64 step)
{
	const struct test_clock *c = &self->c;
	s64 d = span(c, MS(500)), m0, m1;
	struct tk_event ev;

	if (skipped(_metadata, self, SETTABLE, 0))
		return;

	m0 = mono_ns();
	ASSERT_EQ(0, tk_arm(&self->t, step < 0 ? TK_CANCEL_ON_SET : 0, d, 0));
	m1 = mono_ns();
	pass_time(MS(100));
	ASSERT_EQ(0, step_clock(self, step));
	ASSERT_EQ(1, tk_wait(&self->t, 1, SEC(8), &ev, 1))
		TH_LOG("no expiry within 8 s");
	ASSERT_EQ(0, ev.err) TH_LOG("the wait ended with %s", errname(ev.err));
	EXPECT_GE(ev.mono - m0, d - RATE_TOL_NS)
		TH_LOG("expired %.1f ms after arming, before its %lld ms",
		       (ev.mono - m0) / 1e6, d / NSEC_PER_MSEC);
	EXPECT_TRUE(within(ev.mono - m1, d + late_bound(c)))
		TH_LOG("expired %.1f ms after arming, want %lld..%.1f ms",
		       (ev.mono - m1) / 1e6, d / NSEC_PER_MSEC,
		       (d + late_bound(c) + stall_max_ns()) / 1e6);
	TH_LOG("expired %.1f ms after arming (CLOCK_MONOTONIC)",
	       (ev.mono - m1) / 1e6);
}

TEST_F(timers, step_relative_forward)
{
	step_relative(_metadata, self, SEC(5));
}

TEST_F(timers, step_relative_back)
{
	step_relative(_metadata, self, -SEC(5));
}

/*
 * An absolute and a relative timer on one clock, and a step that changes
 * which of them is due first: each expires as it would on CLOCK_REALTIME,
 * the absolute one when the clock reaches its time, the relative one after
 * its delay, whatever the order of the core's queue was before the step.
 * Forward: absolute 3 s ahead, relative 2 s, the clock stepped +5 s: the
 * absolute one is due at once.  Back: absolute 1 s ahead, relative 2 s,
 * the clock stepped -5 s: the relative one comes first, after 2 s, and
 * the absolute one 6 s after arming.
 */
static void step_order(struct __test_metadata *_metadata,
		       struct _test_data_timers *self, s64 step)
{
	const struct test_clock *c = &self->c;
	s64 ahead = span(c, step > 0 ? SEC(3) : SEC(1)), d = span(c, SEC(2));
	s64 expiry, m0, m1, late;
	struct tk_event ea, er;
	struct tk_timer r;

	if (skipped(_metadata, self, SETTABLE, 0))
		return;
	ASSERT_EQ(0, tk_create(&r, self->t.kind, c->clk));
	m0 = mono_ns();
	expiry = clock_ns(c->clk) + ahead;
	ASSERT_EQ(0, tk_arm(&self->t, TK_ABS, expiry, 0));
	ASSERT_EQ(0, tk_arm(&r, 0, d, 0));
	ASSERT_EQ(0, step_clock(self, step));
	m1 = mono_ns();
	if (step > 0) {
		ASSERT_EQ(1, tk_wait(&self->t, 1, SEC(10), &ea, 1))
			TH_LOG("the absolute timer did not expire");
		expect_on_time(_metadata, c, &ea, expiry, false);
		EXPECT_TRUE(within(ea.mono - m1, PROMPT_NS + tick_lag(c)))
			TH_LOG("the absolute timer expired %.1f ms after the step that passed it",
			       (ea.mono - m1) / 1e6);
	}
	ASSERT_EQ(1, tk_wait(&r, 1, SEC(10), &er, 1))
		TH_LOG("the relative timer did not expire");
	ASSERT_EQ(0, er.err) TH_LOG("its wait ended with %s", errname(er.err));
	late = er.mono - m0 - d;
	EXPECT_GE(late, -RATE_TOL_NS)
		TH_LOG("the relative timer expired %.1f ms early", -late / 1e6);
	EXPECT_TRUE(within(er.mono - m1 - d, late_bound(c)))
		TH_LOG("the relative timer expired %.1f ms after its delay",
		       (er.mono - m1 - d) / 1e6);
	if (step < 0) {
		ASSERT_EQ(1, tk_wait(&self->t, 1, SEC(10), &ea, 1))
			TH_LOG("the absolute timer did not expire");
		expect_on_time(_metadata, c, &ea, expiry, true);
		EXPECT_GE(ea.mono - m0, ahead - step - RATE_TOL_NS - tick_lag(c))
			TH_LOG("the absolute timer expired %.1f ms after arming, want %lld ms",
			       (ea.mono - m0) / 1e6, (ahead - step) / NSEC_PER_MSEC);
	}
	tk_destroy(&r);
}

TEST_F(timers, step_order_forward)
{
	step_order(_metadata, self, SEC(5));
}

TEST_F_TIMEOUT(timers, step_order_back, 60)
{
	step_order(_metadata, self, -SEC(5));
}

/*
 * A relative periodic timer, the clock stepped by @step 100 ms after its
 * first expiry was seen: it stays relative, the expirations counted
 * match the periods passed in CLOCK_MONOTONIC.
 */
static void step_relative_periodic(struct __test_metadata *_metadata,
				   struct _test_data_timers *self, s64 step)
{
	const struct test_clock *c = &self->c;
	s64 iv = span(c, MS(300)), m0, m1, m2;
	struct tk_event ev[2];
	long long total;

	if (skipped(_metadata, self, SETTABLE, TKF_INTERVAL))
		return;

	m0 = mono_ns();
	ASSERT_EQ(0, tk_arm(&self->t, 0, iv, iv));
	m1 = mono_ns();
	ASSERT_EQ(1, tk_wait(&self->t, 1, iv + SEC(3), &ev[0], 1))
		TH_LOG("no first expiry");
	pass_time(MS(100));
	ASSERT_EQ(0, step_clock(self, step));
	ASSERT_EQ(1, tk_wait(&self->t, 1, SEC(8), &ev[1], 1))
		TH_LOG("no expiry within 8 s of the step");
	ASSERT_EQ(0, ev[1].err) TH_LOG("the wait ended with %s",
				       errname(ev[1].err));
	total = ev[0].count + ev[1].count;
	m2 = ev[1].mono;
	EXPECT_GE(m2 - m0, total * iv - RATE_TOL_NS)
		TH_LOG("expiration %lld seen %.1f ms after arming, too early",
		       total, (m2 - m0) / 1e6);
	EXPECT_TRUE(within(m2 - m1, total * iv + late_bound(c)))
		TH_LOG("expiration %lld seen %.1f ms after arming, want %lld..%.1f ms",
		       total, (m2 - m1) / 1e6, total * iv / NSEC_PER_MSEC,
		       (total * iv + late_bound(c) + stall_max_ns()) / 1e6);
	EXPECT_EQ(0, tk_cancel(&self->t));
}

TEST_F(timers, step_relative_periodic_forward)
{
	step_relative_periodic(_metadata, self, SEC(5));
}

TEST_F(timers, step_relative_periodic_back)
{
	step_relative_periodic(_metadata, self, -SEC(5));
}

/* ---- frequency ---- */

/*
 * With the clock's frequency off by @ppm, one-shot timers from 5 ms to
 * 500 ms (absolute and relative) and a periodic one stay never early,
 * and no later than late_bound() (and stalls).
 */
static void freq(struct __test_metadata *_metadata,
		 struct _test_data_timers *self, long ppm)
{
	static const int dist_ms[] = { 5, 10, 20, 50, 100, 200, 300, 500 };
	const struct test_clock *c = &self->c;
	s64 t0, d, late, worst = 0;
	struct tk_event ev[32];
	long long total = 0;
	int err, i, n, abs;

	if (skipped(_metadata, self, TUNABLE, 0))
		return;

	err = freq_get(c->clk, &self->freq);
	if (!err)
		err = freq_set(c->clk, self->freq);
	if (err)
		SKIP(return, "%s takes no ADJ_FREQUENCY: %s", c->name,
		     errname(-err));
	self->tuned = true;
	ASSERT_EQ(0, sys_clock_freq(c->clk, ppm * 1000));
	for (i = 0; i < (int)ARRAY_SIZE(dist_ms); i++) {
		for (abs = 0; abs < 2; abs++) {
			d = MS(dist_ms[i]);
			t0 = clock_ns(c->clk);
			ASSERT_EQ(0, tk_arm(&self->t, abs ? TK_ABS : 0,
					    abs ? t0 + d : d, 0));
			ASSERT_EQ(1, tk_wait(&self->t, 1, d + SEC(2), ev, 1))
				TH_LOG("no expiry of a %d ms timer", dist_ms[i]);
			late = expect_on_time(_metadata, c, ev, t0 + d, true);
			worst = late > worst ? late : worst;
		}
	}
	if (!tk_lacks(self->t.kind, TKF_INTERVAL)) {
		t0 = clock_ns(c->clk);
		ASSERT_EQ(0, tk_arm(&self->t, TK_ABS, t0 + MS(20), MS(20)));
		n = tk_wait(&self->t, 20, SEC(4), ev, ARRAY_SIZE(ev));
		for (i = 0; i < n; i++) {
			total += ev[i].count;
			late = expect_on_time(_metadata, c, &ev[i],
					      t0 + total * MS(20), true);
			worst = late > worst ? late : worst;
		}
		EXPECT_LE(20, total) TH_LOG("periodic: %lld expirations of 20",
					    total);
		EXPECT_EQ(0, tk_cancel(&self->t));
	}
	TH_LOG("at %+ld ppm, the latest expiry %.1f us late", ppm, worst / 1e3);
}

TEST_F_TIMEOUT(timers, freq_plus_500ppm, 60)
{
	freq(_metadata, self, FREQ_PPM);
}

TEST_F_TIMEOUT(timers, freq_minus_500ppm, 60)
{
	freq(_metadata, self, -FREQ_PPM);
}

/* ---- the timer holds the clock, not the fd ---- */

/*
 * A timer made through a second fd of the clock, armed, then the fd
 * closed or @dup2 over: it expires all the same, and a kind with an
 * object holding the clock arms again and reports its remaining time.
 */
static void pin(struct __test_metadata *_metadata,
		struct _test_data_timers *self, bool dup2_over)
{
	const struct test_clock *c = &self->c;
	s64 d = span(c, MS(300)), t0, value, iv;
	struct tk_timer t;
	struct tk_event ev;
	int fd, null;

	if (skipped(_metadata, self, DEVICE, 0))
		return;

	fd = test_clock_open(c, O_RDONLY);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", c->path, errname(-fd));
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, null);
	ASSERT_EQ(0, tk_create(&t, self->t.kind, FD_TO_CLOCKID(fd)));
	/* The fd goes away: read the clock through the fixture's. */
	t.read = c->clk;
	t0 = clock_ns(c->clk);
	ASSERT_EQ(0, tk_arm(&t, 0, d, 0));
	ASSERT_EQ(0, dup2_over ? dup2(null, fd) - fd : close(fd));
	ASSERT_EQ(1, tk_wait(&t, 1, d + SEC(3), &ev, 1))
		TH_LOG("no expiry once the fd was %s",
		       dup2_over ? "replaced" : "closed");
	expect_on_time(_metadata, c, &ev, t0 + d, true);
	if (!tk_lacks(t.kind, TKF_REARM)) {
		t0 = clock_ns(c->clk);
		ASSERT_EQ(0, tk_arm(&t, TK_ABS, t0 + d, 0));
		ASSERT_EQ(1, tk_wait(&t, 1, d + SEC(3), &ev, 1))
			TH_LOG("no expiry when armed again without the fd");
		expect_on_time(_metadata, c, &ev, t0 + d, true);
		ASSERT_EQ(0, tk_arm(&t, 0, SEC(10), 0));
		ASSERT_EQ(0, tk_remaining(&t, &value, &iv));
		EXPECT_LT(0, value);
		EXPECT_LE(value, SEC(10));
	}
	EXPECT_EQ(0, tk_destroy(&t));
	close(null);
}

TEST_F(timers, pin_close)
{
	pin(_metadata, self, false);
}

TEST_F(timers, pin_dup2)
{
	pin(_metadata, self, true);
}

/* ---- removal of the clock ---- */

/*
 * After the removal at @removed (CLOCK_MONOTONIC), timer @t (clockdev.rst,
 * "After removal"): a wait under way (@waiting) ends with the kind's error
 * within PROMPT_NS (a sleeper, a blocked timerfd read or poll), or a POSIX
 * timer stays silent; arming and asking for the time left fail with that
 * error, an fd polls POLLERR | POLLHUP, and releasing the timer succeeds.
 */
static void expect_removed(struct __test_metadata *_metadata,
			   struct tk_timer *t, s64 removed, bool waiting,
			   const char *what)
{
	const struct tk_kind *k = tk_kind(t->kind);
	struct tk_event ev;
	s64 value, iv;

	if (waiting && k->removal_ends) {
		ASSERT_EQ(1, tk_wait(t, 1, SEC(2), &ev, 1))
			TH_LOG("%s %s: still waiting 2 s after the removal",
			       what, k->name);
		EXPECT_EQ(k->removed_err, ev.err)
			TH_LOG("%s %s: ended with %s, want %s", what, k->name,
			       ev.err ? errname(ev.err) : "success",
			       errname(k->removed_err));
		EXPECT_TRUE(within(ev.mono - removed, PROMPT_NS))
			TH_LOG("%s %s: ended %.1f ms after the removal", what,
			       k->name, (ev.mono - removed) / 1e6);
	} else if (waiting) {
		EXPECT_EQ(0, tk_wait(t, 1, MS(500), &ev, 1))
			TH_LOG("%s %s: expired after the removal", what,
			       k->name);
	}
	EXPECT_EQ(-k->removed_err, tk_arm(t, 0, MS(10), 0))
		TH_LOG("%s %s: armed again", what, k->name);
	if (!tk_lacks(t->kind, TKF_REMAINING))
		EXPECT_EQ(-k->removed_err, tk_remaining(t, &value, &iv));
	if (!tk_lacks(t->kind, TKF_POLL))
		EXPECT_EQ(k->removed_poll, tk_poll(t) & k->removed_poll)
			TH_LOG("%s %s: poll events %#x", what, k->name,
			       tk_poll(t));
	EXPECT_EQ(0, tk_destroy(t));
}

/*
 * Remove the clock under an absolute timer far ahead (a timerfd blocked
 * in read()), a relative one, periodic where the kind has an interval (a
 * timerfd blocked in poll()), and one never armed: all end as
 * expect_removed() says; a new timer on the clock fails the same way.
 */
TEST_F(timers, removal)
{
	const struct tk_kind *k = tk_kind(variant->timer);
	struct tk_timer rel, idle, fresh;
	s64 removed, iv;
	int err;

	if (skipped(_metadata, self, DEVICE, 0))
		return;
	iv = tk_lacks(variant->timer, TKF_INTERVAL) ? 0 : SEC(1);
	ASSERT_EQ(0, tk_create(&rel, variant->timer, self->c.clk));
	ASSERT_EQ(0, tk_create(&idle, variant->timer, self->c.clk));
	ASSERT_EQ(0, tk_arm(&self->t, TK_ABS,
			    clock_ns(self->c.clk) + FAR_AHEAD, 0));
	ASSERT_EQ(0, tk_arm(&rel, TK_POLL, SEC(30), iv));
	err = test_clock_remove(&self->c);
	removed = mono_ns();
	ASSERT_EQ(0, err) TH_LOG("removing %s: %s", self->c.path,
				 errname(-err));
	expect_removed(_metadata, &self->t, removed, true, "absolute");
	expect_removed(_metadata, &rel, removed, true,
		       iv ? "periodic" : "relative");
	expect_removed(_metadata, &idle, removed, false, "never armed");
	err = tk_create(&fresh, variant->timer, self->c.clk);
	if (!err) {
		err = tk_arm(&fresh, 0, MS(10), 0);
		tk_destroy(&fresh);
	}
	EXPECT_EQ(-k->removed_err, err)
		TH_LOG("a new %s on the removed clock: %s", k->call,
		       err ? errname(-err) : "success");
}

/* ---- never early, by the core's own account ---- */

/*
 * A burst of BURST timers, absolute and relative, 1 ms apart (a tick
 * apart on a clock in whole ticks): each expires once, never early as
 * seen, and every decision the core traced (clockdev:clockdev_timer_expire)
 * was taken with the clock at or past the expiry.  A trace that lost
 * events proves nothing: that fails too.  The teardown audits every other
 * test of a dynamic clock the same way, where the tracepoint exists.
 */
TEST_F(timers, never_early)
{
	const struct test_clock *c = &self->c;
	s64 t0, expiry[BURST], base = span(c, MS(50)), gap;
	struct tk_timer burst[BURST];
	struct tk_event ev;
	int i;

	if (test_clock_static(c))
		SKIP(return, "the core traces its decisions on dynamic clocks only");
	ASSERT_NE(-ENOENT, self->audit_err)
		TH_LOG("no tracepoint clockdev:clockdev_timer_expire in a kernel with timers on %s",
		       c->node);
	ASSERT_EQ(0, self->audit_err)
		TH_LOG("no audit of %s: %s", c->node, errname(-self->audit_err));
	t0 = clock_ns(c->clk);
	for (i = 0; i < BURST; i++) {
		gap = c->tick > 1 ? (i % 2) * c->tick : i * MS(1);
		expiry[i] = t0 + base + gap;
		ASSERT_EQ(0, tk_create(&burst[i], variant->timer, c->clk));
		ASSERT_EQ(0, tk_arm(&burst[i], i % 2 ? 0 : TK_ABS,
				    i % 2 ? base + gap : expiry[i], 0));
	}
	for (i = 0; i < BURST; i++) {
		ASSERT_EQ(1, tk_wait(&burst[i], 1, SEC(5), &ev, 1))
			TH_LOG("timer %d did not expire", i);
		expect_on_time(_metadata, c, &ev, expiry[i], false);
		EXPECT_EQ(0, tk_wait(&burst[i], 1, MS(1), &ev, 1));
		EXPECT_EQ(0, tk_destroy(&burst[i]));
	}
	ASSERT_EQ(0, expiry_audit_stop(&self->audit));
	EXPECT_EQ(0, self->audit.lost)
		TH_LOG("the trace lost %ld events: nothing is proven",
		       self->audit.lost);
	EXPECT_EQ(0, self->audit.early)
		TH_LOG("%ld of %ld decisions early, first: %s",
		       self->audit.early, self->audit.events,
		       self->audit.first_early);
	EXPECT_LE(BURST, self->audit.events)
		TH_LOG("%ld decisions traced for %d timers", self->audit.events,
		       BURST);
	TH_LOG("%ld decisions, the latest %.1f us after its expiry",
	       self->audit.events, self->audit.max_late / 1e3);
}

TEST_HARNESS_MAIN
