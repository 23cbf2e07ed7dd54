// SPDX-License-Identifier: GPL-2.0
/*
 * POSIX timers on dynamic clocks that are stepped (ptp_sim, the mock PHC,
 * the e1000e's and igb's PHCs): timer_gettime() right after a step,
 * relative timers across steps (also bursts of steps while the core
 * reads the clock), and a clock that does not advance (a ptp_sim
 * instance whose oscillator is stopped, and QEMU 7.2's e1000e PHC): its
 * timers do not fire, the core backs off reading it, setting it past an
 * expiry fires the timer promptly, and so does a reset of the hardware
 * that moves the clock without telling anyone; a NIC's PHC that runs
 * (QEMU 8 and later), reset forward and back under armed timers.  The
 * rest of what is particular to POSIX timers is in posix_timers.c.
 *
 * A clock that should not advance is measured first: one that does (a
 * newer QEMU's e1000e) skips those tests.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "clockdev_util.h"

/* A running device clock starts here: far from CLOCK_REALTIME. */
#define PHC_BASE_S		1000
/* Latest acceptable expiry, on top of the stalls seen. */
#define LATE_MAX_NS		MS(200)
/* "Promptly": an expiry that a step of the clock made due. */
#define PROMPT_NS		MS(100)
/* How far timer_gettime()'s view of the device time may be off. */
#define PRED_TOL_NS		MS(2)
/* CLOCK_MONOTONIC against a 0 ppm device clock over a second or so. */
#define RATE_TOL_NS		MS(1)
#define STEP_ROUNDS		20
#define BUSY_ROUNDS		5
#define BUSY_STEPS		2000
/* Reads allowed of a stalled clock in STALL_WAIT_S with a timer armed. */
#define STALL_WAIT_S		3
#define STALL_MAX_READS		40
/*
 * The core reads a stalled clock at least this often (its longest
 * back-off, CLOCKDEV_TIMER_MAX_BACKOFF): a jump nobody told it of is seen
 * within this long, and the timers it made due fire PROMPT_NS later.
 */
#define STALL_READ_NS		SEC(1)
/*
 * How long a clock stands still before it is reset behind the core's
 * back: the back-off doubles from 1 ms and reaches its ceiling after
 * about 1 s (1 + 2 + ... + 512 ms, then 1 s); a back-off that went on
 * doubling would read the clock at about 2 s, 4 s and 8 s, and see a
 * reset at 4.5 s more than 3 s late.
 */
#define STALL_SETTLE_NS		(SEC(4) + MS(500))

#define SIG_TIMER		(SIGRTMIN + 1)
/* Ignored: its periodic timer keeps the core reading the clock. */
#define SIG_BUSY		(SIGRTMIN + 3)
/* Reads in 1 s for an ignored 1 ns periodic timer: a tick each at HZ=1000. */
#define IGN_MAX_READS		1500

static int tmr_create(clockid_t clk, int notify, int value, int *id)
{
	return sys_timer_create(clk, notify, SIG_TIMER, value, 0, id);
}

static s64 late_bound(void)
{
	return LATE_MAX_NS + stall_max_ns();
}

/*
 * Make the clock, check that it takes timers, and get the signals ready.
 * False after a SKIP.
 */
static bool timers_setup(struct __test_metadata *_metadata,
			 struct test_clock *c, enum clock_kind kind)
{
	char why[256];
	int err;

	err = test_clock_make(c, kind, why, sizeof(why));
	if (err)
		SKIP(return false, "%s", why);
	err = probe_timer_create(c->clk);
	if (err) {
		test_clock_destroy(c);
		SKIP(return false, "timer_create on %s: %s: no timers on dynamic clocks",
		     c->name, errname(-err));
	}
	tsig_start(SIG_TIMER, c->clk);
	/* After the mask: the monitor takes no timer signal. */
	stall_monitor_start();
	return true;
}

/* ---- device clocks that run and can be stepped ---- */

/**
 * struct _test_data_steps - the clock under test
 * @c:        the clock
 * @read_max: the longest of a few reads of it, CLOCK_MONOTONIC ns
 */
FIXTURE(steps) {
	struct test_clock c;
	s64 read_max;
};

FIXTURE_VARIANT(steps) {
	enum clock_kind kind;
};

FIXTURE_VARIANT_ADD(steps, ptp_sim) {
	.kind = CK_PTP_SIM,
};

FIXTURE_VARIANT_ADD(steps, ptp_sim_sleeping) {
	.kind = CK_PTP_SIM_SLOW,
};

FIXTURE_VARIANT_ADD(steps, mock_phc) {
	.kind = CK_MOCK_PHC,
};

/*
 * The NICs' PHCs: their drivers steer them by their own counters, and
 * QEMU 10's e1000e runs at 5/2 of CLOCK_MONOTONIC (qemu/README.md).  No
 * test of this fixture changes a clock's frequency, which moves QEMU's
 * SYSTIM (a frequency decrease jumps it forward).
 */
FIXTURE_VARIANT_ADD(steps, e1000e) {
	.kind = CK_E1000E,
};

FIXTURE_VARIANT_ADD(steps, igb) {
	.kind = CK_IGB,
};

FIXTURE_SETUP(steps)
{
	clockid_t clk;
	s64 t0, m0, m1;
	int i, err;

	if (!timers_setup(_metadata, &self->c, variant->kind))
		return;
	clk = self->c.clk;
	t0 = clock_ns(clk);
	ASSERT_LE(0, t0) TH_LOG("clock_gettime on %s: %s", self->c.name,
				errname(errno));
	for (i = 0; i < 8; i++) {
		m0 = mono_ns();
		clock_ns(clk);
		m1 = mono_ns();
		if (m1 - m0 > self->read_max)
			self->read_max = m1 - m0;
	}
	pass_time(MS(10));
	if (self->c.rate <= 0) {
		/* A skip in the setup skips the teardown: undo first. */
		test_clock_destroy(&self->c);
		SKIP(return,
		     "%s does not advance (QEMU before 8): the stalled tests step it",
		     self->c.name);
	}
	ASSERT_LT(t0, clock_ns(clk)) TH_LOG("%s does not advance",
					    self->c.name);
	err = sys_clock_settime(clk, SEC(PHC_BASE_S));
	ASSERT_EQ(0, err) TH_LOG("clock_settime %d s on %s: %s", PHC_BASE_S,
				 self->c.name, errname(-err));
}

FIXTURE_TEARDOWN(steps)
{
	test_clock_destroy(&self->c);
}

/*
 * How far timer_gettime()'s prediction of the device time may be off:
 * it maps from a read (or a set) that may have taken as long as the
 * longest of ours, or been delayed by a stall of the machine, and those
 * last rate times as long in the clock's time.
 */
static s64 pred_tol(const struct _test_data_steps *self)
{
	double rate = self->c.rate > 1 ? self->c.rate : 1;

	return PRED_TOL_NS + rate * (2 * self->read_max + stall_max_ns());
}

/*
 * CLOCK_MONOTONIC @ns in the clock's time, and how far that may be off
 * for the measured rate (the NICs' PHCs; the others run at 1).
 */
static s64 dev_span(const struct _test_data_steps *self, s64 ns)
{
	return ns * self->c.rate;
}

static s64 dev_span_err(const struct _test_data_steps *self, s64 ns)
{
	return ns * self->c.rate * self->c.rate_err;
}

/*
 * A remaining time from timer_gettime(), answered from the core's
 * prediction of the device time: what was left during the call, between
 * the reads @before and @after, give or take @tol; never more than @set.
 */
static void judge_remaining(struct __test_metadata *_metadata, int round,
			    s64 value, s64 set, s64 expiry, s64 before,
			    s64 after, s64 tol)
{
	EXPECT_GE(set, value) TH_LOG("round %d: more than armed", round);
	EXPECT_GE(expiry - before + tol, value)
		TH_LOG("round %d: %lld ns left, want %lld..%lld", round, value,
		       expiry - after - tol, expiry - before + tol);
	EXPECT_LE(expiry - after - tol, value)
		TH_LOG("round %d: %lld ns left, want %lld..%lld", round, value,
		       expiry - after - tol, expiry - before + tol);
}

/*
 * A read of @clk, its duration taken into read_max: on a loaded machine a
 * read that sleeps takes longer than the ones the fixture timed.
 */
static s64 timed_read(struct _test_data_steps *self, clockid_t clk)
{
	s64 m0 = mono_ns(), t = clock_ns(clk), m1 = mono_ns();

	if (m1 - m0 > self->read_max)
		self->read_max = m1 - m0;
	return t;
}

/* clock_settime(), its duration taken into read_max. */
static int timed_settime(struct _test_data_steps *self, clockid_t clk, s64 t)
{
	s64 m0 = mono_ns(), m1;
	int err = sys_clock_settime(clk, t);

	m1 = mono_ns();
	if (m1 - m0 > self->read_max)
		self->read_max = m1 - m0;
	return err;
}

/*
 * Until the core has measured a clock's rate it predicts the clock at
 * boot time's rate, which a real oscillator is within 1/128 of; and a
 * step restarts the measurement, so a clock set every few ms is never
 * measured.  QEMU's e1000e runs at 5/2: let the core measure it first
 * (a timer armed for 300 ms keeps it reading; the rate survives the
 * steps that follow), or its predictions lag the clock by 3/5 of the
 * time since each step.
 */
static void core_measure_rate(struct __test_metadata *_metadata,
			      struct _test_data_steps *self, int id)
{
	double off = self->c.rate - 1;

	if (off < 1.0 / 128 && off > -1.0 / 128)
		return;
	/* Disarmed before it is due: no signal. */
	ASSERT_EQ(0, sys_timer_settime(id, 0, dev_span(self, SEC(1)), 0));
	pass_time(MS(300));
	ASSERT_EQ(0, sys_timer_settime(id, 0, 0, 0));
	TH_LOG("%s runs at %.3f of CLOCK_MONOTONIC: 300 ms for the core to measure it",
	       self->c.name, self->c.rate);
}

/*
 * timer_gettime() right after clock_settime() +1000 s counts from the new
 * time: armed 500 ms ahead of it, STEP_ROUNDS times.
 */
static void gettime_after_step(struct __test_metadata *_metadata,
			       struct _test_data_steps *self, int notify)
{
	clockid_t clk = self->c.clk;
	s64 t0, t1, expiry, value, iv;
	int id, err, i;

	err = tmr_create(clk, notify, 0, &id);
	ASSERT_EQ(0, err) TH_LOG("timer_create: %s", errname(-err));
	core_measure_rate(_metadata, self, id);
	for (i = 0; i < STEP_ROUNDS; i++) {
		err = timed_settime(self, clk, timed_read(self, clk) + SEC(1000));
		ASSERT_EQ(0, err) TH_LOG("clock_settime: %s", errname(-err));
		t0 = timed_read(self, clk);
		expiry = t0 + MS(500);
		ASSERT_EQ(0, sys_timer_settime(id, TIMER_ABSTIME, expiry, 0));
		ASSERT_EQ(0, sys_timer_gettime(id, &value, &iv));
		t1 = timed_read(self, clk);
		judge_remaining(_metadata, i, value, MS(500), expiry, t0, t1,
				pred_tol(self));
		/* And back: the next round steps from there. */
		ASSERT_EQ(0, timed_settime(self, clk,
					   timed_read(self, clk) - SEC(1000)));
	}
	EXPECT_EQ(0, sys_timer_delete(id));
}

TEST_F(steps, gettime_after_step_none)
{
	gettime_after_step(_metadata, self, SIGEV_NONE);
}

TEST_F(steps, gettime_after_step_signal)
{
	gettime_after_step(_metadata, self, SIGEV_SIGNAL);
}

/*
 * A relative SIGEV_NONE timer of 2 s, the clock stepped by @step 100 ms
 * later: 100 ms after the step, timer_gettime() still counts down from
 * the arming, in CLOCK_MONOTONIC terms at the clock's rate (1 at 0 ppm).
 */
static void step_rel_none(struct __test_metadata *_metadata,
			  struct _test_data_steps *self, s64 step)
{
	s64 m0, m1, m2, m3, value, iv, tol;
	int id, err;

	err = tmr_create(self->c.clk, SIGEV_NONE, 0, &id);
	ASSERT_EQ(0, err) TH_LOG("timer_create: %s", errname(-err));
	m0 = mono_ns();
	ASSERT_EQ(0, sys_timer_settime(id, 0, SEC(2), 0));
	m1 = mono_ns();
	pass_time(MS(100));
	err = sys_clock_step(self->c.clk, step);
	ASSERT_EQ(0, err) TH_LOG("ADJ_SETOFFSET: %s", errname(-err));
	/* Let the core read the stepped clock. */
	pass_time(MS(100));
	m2 = mono_ns();
	ASSERT_EQ(0, sys_timer_gettime(id, &value, &iv));
	m3 = mono_ns();
	tol = pred_tol(self) + RATE_TOL_NS + dev_span_err(self, m3 - m0);
	EXPECT_GE(SEC(2) - dev_span(self, m2 - m1) + tol, value)
		TH_LOG("%lld ns left, want %lld..%lld", value,
		       SEC(2) - dev_span(self, m3 - m0) - tol,
		       SEC(2) - dev_span(self, m2 - m1) + tol);
	EXPECT_LE(SEC(2) - dev_span(self, m3 - m0) - tol, value)
		TH_LOG("%lld ns left, want %lld..%lld", value,
		       SEC(2) - dev_span(self, m3 - m0) - tol,
		       SEC(2) - dev_span(self, m2 - m1) + tol);
	EXPECT_EQ(0, sys_timer_delete(id));
}

TEST_F(steps, step_rel_none_plus5)
{
	step_rel_none(_metadata, self, SEC(5));
}

TEST_F(steps, step_rel_none_minus5)
{
	step_rel_none(_metadata, self, -SEC(5));
}

/*
 * One round of step_rel_busy: arm @id 300 ms ahead (relative), step the
 * clock BUSY_STEPS times, +5 s and -5 s in turn, and expect the signal
 * 300 ms of the clock's time after arming (in CLOCK_MONOTONIC time, that
 * divided by its rate).
 */
static void step_rel_round(struct __test_metadata *_metadata,
			   const struct test_clock *c, int id, int round)
{
	int before = tsig_count(), err = 0, i;
	s64 span = MS(300) / c->rate, m0, m1, m2, due, at;
	s64 early = RATE_TOL_NS + span * c->rate_err;
	clockid_t clk = c->clk;

	m0 = mono_ns();
	ASSERT_EQ(0, sys_timer_settime(id, 0, MS(300), 0));
	m1 = mono_ns();
	for (i = 0; i < BUSY_STEPS && !err; i++)
		err = sys_clock_step(clk, i % 2 ? -SEC(5) : SEC(5));
	m2 = mono_ns();
	ASSERT_EQ(0, err) TH_LOG("round %d: ADJ_SETOFFSET: %s", round,
				 errname(-err));
	ASSERT_LT(before, tsig_wait(before + 1, SEC(8)))
		TH_LOG("round %d: no signal within 8 s", round);
	at = tsig_nth(before)->mono;
	/*
	 * SIG_TIMER is handled only in tsig_wait(): when the steps outlast
	 * the timer, its signal cannot be seen before they end.
	 */
	due = span + span * c->rate_err;
	if (m2 - m1 > due)
		due = m2 - m1;
	EXPECT_LE(span - early, at - m0)
		TH_LOG("round %d: fired %.1f ms after arming", round,
		       (at - m0) / 1e6);
	EXPECT_GE(due + late_bound(), at - m1)
		TH_LOG("round %d: fired after %.1f ms, want <= %.1f; steps took %.1f ms",
		       round, (at - m1) / 1e6, (due + late_bound()) / 1e6,
		       (m2 - m1) / 1e6);
}

/*
 * Relative timers while the clock is stepped in bursts and a 1 ms
 * periodic timer, whose signal is ignored, keeps the core reading it: a
 * step that lands while the core reads must be followed like any other.
 */
TEST_F_TIMEOUT(steps, step_rel_busy, 90)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	int busy, id, err, i;

	sigaction(SIG_BUSY, &ign, NULL);
	err = sys_timer_create(self->c.clk, SIGEV_SIGNAL, SIG_BUSY, 0, 0,
			       &busy);
	ASSERT_EQ(0, err) TH_LOG("timer_create: %s", errname(-err));
	ASSERT_EQ(0, sys_timer_settime(busy, 0, MS(1), MS(1)));
	ASSERT_EQ(0, tmr_create(self->c.clk, SIGEV_SIGNAL, 0, &id));
	pass_time(MS(20));
	for (i = 0; i < BUSY_ROUNDS; i++)
		step_rel_round(_metadata, &self->c, id, i);
	EXPECT_EQ(0, sys_timer_delete(busy));
	EXPECT_EQ(0, sys_timer_delete(id));
}

/*
 * A periodic timer of 1 ns whose signal is ignored: nobody listens, and
 * the kernel must not spend itself on it.  As posix_timer_fn() does for
 * hrtimers, such a timer comes back a tick later at the earliest, so the
 * core reads the clock about HZ times a second for it at most (fewer than
 * IGN_MAX_READS at HZ=1000), as counted by the tracepoint
 * clockdev:clockdev_timer_read; a flood that overflows the trace buffer
 * fails too.
 */
TEST_F(steps, ignored_fast)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	struct event_count reads;
	int id, err;

	err = event_count_start(&reads, "clockdev_timer_read", self->c.node);
	ASSERT_EQ(0, err)
		TH_LOG("tracepoint clockdev:clockdev_timer_read: %s: cannot count the core's reads",
		       errname(-err));
	sigaction(SIG_BUSY, &ign, NULL);
	err = sys_timer_create(self->c.clk, SIGEV_SIGNAL, SIG_BUSY, 0, 0, &id);
	ASSERT_EQ(0, err) TH_LOG("timer_create: %s", errname(-err));
	ASSERT_EQ(0, sys_timer_settime(id, 0, MS(1), 1));
	pass_time(SEC(1));
	EXPECT_EQ(0, sys_timer_delete(id));
	ASSERT_EQ(0, event_count_stop(&reads));
	EXPECT_EQ(0, reads.lost)
		TH_LOG("the trace buffer lost %ld reads of the clock", reads.lost);
	EXPECT_GT(IGN_MAX_READS, reads.events)
		TH_LOG("%ld reads in 1 s for a timer nobody listens to",
		       reads.events);
	TH_LOG("%ld reads in 1 s", reads.events);
}

/*
 * ---- a clock that does not advance: a stopped ptp_sim, QEMU 7.2's
 * e1000e PHC ----
 */

/**
 * struct _test_data_stalled - a clock that should not advance
 * @c:       the clock
 * @advance: how far it advanced in 100 ms (measured in the setup)
 */
FIXTURE(stalled) {
	struct test_clock c;
	s64 advance;
};

FIXTURE_VARIANT(stalled) {
	enum clock_kind kind;
};

FIXTURE_VARIANT_ADD(stalled, ptp_sim) {
	.kind = CK_PTP_SIM,
};

FIXTURE_VARIANT_ADD(stalled, e1000e) {
	.kind = CK_E1000E,
};

/* The sysfs attribute @attr of the ptp_sim instance behind @c. */
static void ptp_sim_attr(const struct test_clock *c, const char *attr,
			 char *path, size_t len)
{
	snprintf(path, len, "/sys/bus/ptp_sim/devices/ptp_sim%d/%s", c->id,
		 attr);
}

FIXTURE_SETUP(stalled)
{
	char path[128];
	s64 t0;
	int err;

	if (!timers_setup(_metadata, &self->c, variant->kind))
		return;
	if (variant->kind == CK_PTP_SIM) {
		/* Stop its oscillator: the clock reads the same from now on. */
		ptp_sim_attr(&self->c, "stopped", path, sizeof(path));
		err = write_file(path, "1");
		if (err) {
			/* A skip in the setup skips the teardown: undo first. */
			test_clock_destroy(&self->c);
			SKIP(return, "writing %s: %s: this ptp_sim cannot be stopped",
			     path, errname(-err));
		}
	}
	t0 = clock_ns(self->c.clk);
	ASSERT_LE(0, t0) TH_LOG("clock_gettime: %s", errname(errno));
	pass_time(MS(100));
	self->advance = clock_ns(self->c.clk) - t0;
}

FIXTURE_TEARDOWN(stalled)
{
	test_clock_destroy(&self->c);
}

#define ADVANCES_FMT \
	"%s advances (%lld ns in 100 ms): the test needs a clock that does not (QEMU 7.2's e1000e PHC, a stopped ptp_sim)"

/* The clock reads the same over 100 ms, 10 reads. */
TEST_F(stalled, clock)
{
	s64 t0 = clock_ns(self->c.clk), t;
	int i;

	if (self->advance > 0)
		SKIP(return, ADVANCES_FMT, self->c.name, self->advance);
	EXPECT_EQ(0, self->advance) TH_LOG("the clock went backwards");
	for (i = 0; i < 10; i++) {
		pass_time(MS(10));
		t = clock_ns(self->c.clk);
		EXPECT_EQ(t0, t) TH_LOG("read %d, %d0 ms after the first", i,
					i + 1);
	}
}

/* A relative timer 1 s ahead has not fired after STALL_WAIT_S. */
TEST_F(stalled, timer)
{
	int id, err;

	if (self->advance > 0)
		SKIP(return, ADVANCES_FMT, self->c.name, self->advance);
	err = tmr_create(self->c.clk, SIGEV_SIGNAL, 0, &id);
	ASSERT_EQ(0, err) TH_LOG("timer_create: %s", errname(-err));
	ASSERT_EQ(0, sys_timer_settime(id, 0, SEC(1), 0));
	EXPECT_EQ(0, tsig_wait(1, SEC(STALL_WAIT_S)))
		TH_LOG("fired; the handler read %lld", tsig_nth(0)->dev);
	EXPECT_EQ(0, sys_timer_delete(id));
}

/*
 * Back-off: with a relative timer 1 s ahead on the clock, the core reads
 * it at least once and fewer than STALL_MAX_READS times in STALL_WAIT_S,
 * as counted by the tracepoint clockdev:clockdev_timer_read.
 */
TEST_F(stalled, backoff)
{
	struct event_count reads;
	int id, err;

	if (self->advance > 0)
		SKIP(return, ADVANCES_FMT, self->c.name, self->advance);
	err = event_count_start(&reads, "clockdev_timer_read", self->c.node);
	ASSERT_EQ(0, err)
		TH_LOG("tracepoint clockdev:clockdev_timer_read: %s: cannot count the core's reads",
		       errname(-err));
	err = tmr_create(self->c.clk, SIGEV_SIGNAL, 0, &id);
	ASSERT_EQ(0, err) TH_LOG("timer_create: %s", errname(-err));
	ASSERT_EQ(0, sys_timer_settime(id, 0, SEC(1), 0));
	EXPECT_EQ(0, tsig_wait(1, SEC(STALL_WAIT_S)));
	EXPECT_EQ(0, sys_timer_delete(id));
	ASSERT_EQ(0, event_count_stop(&reads));
	EXPECT_EQ(0, reads.lost);
	EXPECT_LE(1, reads.events) TH_LOG("the core never read the clock");
	EXPECT_GT(STALL_MAX_READS, reads.events)
		TH_LOG("%ld reads in %d s", reads.events, STALL_WAIT_S);
	TH_LOG("%ld reads in %d s", reads.events, STALL_WAIT_S);
}

/*
 * A clock that does not advance but can be set: an absolute timer fires
 * promptly when the clock is set past its expiry, after the core backed
 * off.
 */
TEST_F(stalled, step)
{
	s64 base = SEC(PHC_BASE_S), m0, t;
	const struct tsig *f;
	int id, err;

	if (self->advance > 0)
		SKIP(return, ADVANCES_FMT, self->c.name, self->advance);
	err = sys_clock_settime(self->c.clk, base);
	ASSERT_EQ(0, err) TH_LOG("clock_settime: %s", errname(-err));
	t = clock_ns(self->c.clk);
	if (t != base)
		SKIP(return, "%s reads %lld after clock_settime %lld: it does not keep its time",
		     self->c.name, t, base);
	ASSERT_EQ(0, tmr_create(self->c.clk, SIGEV_SIGNAL, 0, &id));
	ASSERT_EQ(0, sys_timer_settime(id, TIMER_ABSTIME, base + SEC(1), 0));
	/* Let the core back off: this is about a clock it gave up on. */
	pass_time(MS(1500));
	ASSERT_EQ(0, sys_clock_settime(self->c.clk, base + SEC(2)));
	m0 = mono_ns();
	ASSERT_EQ(1, tsig_wait(1, SEC(3)))
		TH_LOG("no signal 3 s after the step");
	f = tsig_nth(0);
	EXPECT_LE(base + SEC(1), f->dev)
		TH_LOG("the handler read %lld: the expiry had not come", f->dev);
	EXPECT_GE(PROMPT_NS + stall_max_ns(), f->mono - m0)
		TH_LOG("fired %.1f ms after the step, want < %lld ms (+ %.1f ms of stalls)",
		       (f->mono - m0) / 1e6, PROMPT_NS / NSEC_PER_MSEC,
		       stall_max_ns() / 1e6);
	EXPECT_EQ(0, sys_timer_delete(id));
}

/*
 * Reset the NIC behind @c: by changing its MTU and putting it back
 * (e1000e_change_mtu()), or with @link by bringing the interface down
 * (e1000e_close()) and back to the state it was in.  e1000e sets its PHC
 * to the time of CLOCK_REALTIME at each reset (e1000e_systim_reset()),
 * and tells no one.
 */
static int nic_reset(const struct test_clock *c, bool link, char *why,
		     size_t len)
{
	char dir[192], ifname[64], path[512], val[32] = "";
	unsigned long flags;
	int err;

	snprintf(dir, sizeof(dir), "%s/net", c->dev);
	err = only_entry(dir, "", ifname, sizeof(ifname));
	if (err) {
		snprintf(why, len, "%s: no network interface", c->dev);
		return err;
	}
	snprintf(path, sizeof(path), "%s/%s/%s", dir, ifname,
		 link ? "flags" : "mtu");
	err = read_file(path, val, sizeof(val));
	if (err >= 0 && link) {
		/* IFF_UP is bit 0: down first, or up then down. */
		flags = strtoul(val, NULL, 0);
		err = write_file(path, "%#lx", flags ^ 1);
		if (!err)
			err = write_file(path, "%#lx", flags);
	} else if (err >= 0) {
		err = write_file(path, "%d", atoi(val) - 100);
		if (!err)
			err = write_file(path, "%s", val);
	}
	if (err)
		snprintf(why, len, "writing %.200s: %s", path, errname(-err));
	return err;
}

/*
 * Reset the hardware behind @c, which sets the clock to CLOCK_REALTIME
 * without telling anyone: a NIC (nic_reset()), or a ptp_sim instance
 * through its attribute "reset", as a NIC reset does in a driver that
 * does not report it.
 */
static int hw_reset(const struct test_clock *c, bool link, char *why,
		    size_t len)
{
	char path[128];
	int err;

	if (c->kind != CK_PTP_SIM)
		return nic_reset(c, link, why, len);
	ptp_sim_attr(c, "reset", path, sizeof(path));
	err = write_file(path, "%lld", clock_ns(CLOCK_REALTIME));
	if (err)
		snprintf(why, len, "writing %s: %s", path, errname(-err));
	return err;
}

/**
 * arm_and_reset() - arm two timers on a clock, then reset its hardware
 * @_metadata: the test
 * @c:         the clock
 * @base:      the time the clock is set to first
 * @ahead:     the absolute timer (value 1) expires at @base + @ahead
 * @rel:       the relative timer (value 2) expires in @rel
 * @settle:    CLOCK_MONOTONIC time let pass before the reset: for the core
 *             to back off from a clock that stands still, or to measure
 *             the rate of one that runs
 * @link:      reset a NIC by its link (else by its MTU)
 * @id:        receives the timers
 * @after:     receives the clock's time after the reset
 * @m1:        receives CLOCK_MONOTONIC after the reset
 *
 * A clock that stands still must read @base after it is set (a SKIP
 * otherwise).
 *
 * Return: false after a SKIP or a failure.
 */
static bool arm_and_reset(struct __test_metadata *_metadata,
			  const struct test_clock *c, s64 base, s64 ahead,
			  s64 rel, s64 settle, bool link, int id[2],
			  s64 *after, s64 *m1)
{
	bool stands = c->kind == CK_PTP_SIM || c->rate <= 0;
	char why[256];
	int err;

	err = sys_clock_settime(c->clk, base);
	ASSERT_EQ(0, err) TH_LOG("clock_settime: %s", errname(-err));
	if (stands && clock_ns(c->clk) != base)
		SKIP(return false, "%s does not keep the time it is set to",
		     c->name);
	EXPECT_EQ(0, tmr_create(c->clk, SIGEV_SIGNAL, 1, &id[0]));
	EXPECT_EQ(0, tmr_create(c->clk, SIGEV_SIGNAL, 2, &id[1]));
	EXPECT_EQ(0, sys_timer_settime(id[0], TIMER_ABSTIME, base + ahead, 0));
	EXPECT_EQ(0, sys_timer_settime(id[1], 0, rel, 0));
	if (_metadata->exit_code)
		return false;
	pass_time(settle);
	err = hw_reset(c, link, why, sizeof(why));
	*m1 = mono_ns();
	*after = clock_ns(c->clk);
	EXPECT_EQ(0, err) TH_LOG("%s", why);
	return !_metadata->exit_code;
}

/*
 * A reset (of a NIC, an MTU change) that moves the clock forward past an
 * absolute expiry (to CLOCK_REALTIME from PHC_BASE_S), untold: the core
 * takes it for a step at its next read; the absolute timer fires, not early, and the
 * relative one is moved with the clock and does not.
 */
TEST_F(stalled, reset_forward)
{
	s64 at = SEC(PHC_BASE_S) + SEC(1), after, m1, value, interval;
	const struct tsig *f;
	int id[2];

	if (self->advance > 0)
		SKIP(return, ADVANCES_FMT, self->c.name, self->advance);
	if (!arm_and_reset(_metadata, &self->c, at - SEC(1), SEC(1), SEC(1),
			   STALL_SETTLE_NS, false, id, &after, &m1))
		return;
	if (after < at)
		SKIP(return, "the reset left %s at %lld ns: it did not set it to CLOCK_REALTIME",
		     self->c.name, after);
	ASSERT_EQ(1, tsig_wait(1, STALL_READ_NS + PROMPT_NS + stall_max_ns()))
		TH_LOG("no signal %.1f s after the reset moved the clock %.0f s forward",
		       (STALL_READ_NS + PROMPT_NS) / 1e9, (after - at) / 1e9);
	f = tsig_nth(0);
	EXPECT_EQ(1, f->value) TH_LOG("the relative timer fired");
	EXPECT_LE(at, f->dev) TH_LOG("the handler read %lld", f->dev);
	TH_LOG("fired %.1f ms after the reset", (f->mono - m1) / 1e6);
	/* The relative timer, moved with the clock, stays a second away. */
	EXPECT_EQ(1, tsig_wait(2, SEC(STALL_WAIT_S)))
		TH_LOG("a second signal, timer %d", tsig_nth(1)->value);
	EXPECT_EQ(0, sys_timer_gettime(id[1], &value, &interval));
	EXPECT_LT(0, value);
	EXPECT_GE(SEC(1), value);
	EXPECT_EQ(0, sys_timer_delete(id[0]));
	EXPECT_EQ(0, sys_timer_delete(id[1]));
}

/*
 * A reset (of a NIC, the interface down and up) that moves the clock
 * back (to CLOCK_REALTIME from 1000 s ahead of it), untold: no timer
 * fires; once the core
 * has read the clock, the absolute timer's remaining time has grown by
 * the jump, the relative one's not.
 */
TEST_F(stalled, reset_backward)
{
	s64 at = clock_ns(CLOCK_REALTIME) + SEC(1000), after, m1, value,
	    interval;
	int id[2];

	if (self->advance > 0)
		SKIP(return, ADVANCES_FMT, self->c.name, self->advance);
	if (!arm_and_reset(_metadata, &self->c, at - SEC(1), SEC(1), SEC(1),
			   STALL_SETTLE_NS, true, id, &after, &m1))
		return;
	if (after > at - SEC(500))
		SKIP(return, "the reset left %s at %lld ns: it did not set it to CLOCK_REALTIME",
		     self->c.name, after);
	EXPECT_EQ(0, tsig_wait(1, STALL_READ_NS + PROMPT_NS + stall_max_ns()))
		TH_LOG("timer %d fired after the reset moved the clock %.0f s back",
		       tsig_nth(0)->value, (at - SEC(1) - after) / 1e9);
	EXPECT_EQ(0, sys_timer_gettime(id[0], &value, &interval));
	EXPECT_LE(at - after - PRED_TOL_NS, value);
	EXPECT_EQ(0, sys_timer_gettime(id[1], &value, &interval));
	EXPECT_LT(0, value);
	EXPECT_GE(SEC(1), value);
	EXPECT_EQ(0, sys_timer_delete(id[0]));
	EXPECT_EQ(0, sys_timer_delete(id[1]));
}

/* ---- a NIC's PHC that runs, reset under armed timers ---- */

/*
 * e1000e and igb set their PHC to CLOCK_REALTIME at each reset of the
 * NIC; under QEMU 8 and later the PHC runs, so the core has no reason to
 * read it before its first timer is due.  The driver tells the core of
 * the step (clockdev_time_changed()), and the timers then behave as after
 * clock_settime(): an absolute expiry the reset passed fires at once, a
 * relative timer keeps its remaining time.
 */
FIXTURE(reset) {
	struct test_clock c;
};

FIXTURE_VARIANT(reset) {
	enum clock_kind kind;
};

FIXTURE_VARIANT_ADD(reset, e1000e) {
	.kind = CK_E1000E,
};

FIXTURE_VARIANT_ADD(reset, igb) {
	.kind = CK_IGB,
};

FIXTURE_SETUP(reset)
{
	if (!timers_setup(_metadata, &self->c, variant->kind))
		return;
	/* The rate test_clock_make() measured: 0 for QEMU 7.2's e1000e. */
	if (self->c.rate <= 0) {
		/* A skip in the setup skips the teardown: undo first. */
		test_clock_destroy(&self->c);
		SKIP(return,
		     "%s does not advance (QEMU before 8): the stalled tests reset it",
		     self->c.name);
	}
}

FIXTURE_TEARDOWN(reset)
{
	test_clock_destroy(&self->c);
}

/*
 * A reset (an MTU change) that moves the clock forward (to
 * CLOCK_REALTIME from PHC_BASE_S) past an absolute expiry an hour ahead:
 * it fires promptly, not early; the relative timer of an hour does not.
 */
TEST_F(reset, forward)
{
	s64 base = SEC(PHC_BASE_S), at = base + SEC(3600), after, m1, value,
	    interval;
	const struct tsig *f;
	int id[2];

	/* 500 ms: long enough for the core to measure the clock's rate. */
	if (!arm_and_reset(_metadata, &self->c, base, SEC(3600), SEC(3600),
			   MS(500), false, id, &after, &m1))
		return;
	if (after < at)
		SKIP(return, "the reset left %s at %lld ns: it did not set it to CLOCK_REALTIME",
		     self->c.name, after);
	ASSERT_EQ(1, tsig_wait(1, SEC(5)))
		TH_LOG("no signal 5 s after the reset moved the clock %.0f s past the expiry",
		       (after - at) / 1e9);
	f = tsig_nth(0);
	EXPECT_EQ(1, f->value) TH_LOG("the relative timer fired");
	EXPECT_LE(at, f->dev) TH_LOG("the handler read %lld", f->dev);
	EXPECT_GE(PROMPT_NS + stall_max_ns(), f->mono - m1)
		TH_LOG("fired %.1f ms after the reset, want < %lld ms (+ %.1f ms of stalls)",
		       (f->mono - m1) / 1e6, PROMPT_NS / NSEC_PER_MSEC,
		       stall_max_ns() / 1e6);
	TH_LOG("fired %.1f ms after the reset", (f->mono - m1) / 1e6);
	EXPECT_EQ(1, tsig_wait(2, MS(500)))
		TH_LOG("a second signal, timer %d", tsig_nth(1)->value);
	EXPECT_EQ(0, sys_timer_gettime(id[1], &value, &interval));
	EXPECT_LT(SEC(3500), value) TH_LOG("%lld ns left of an hour", value);
	EXPECT_GE(SEC(3600), value);
	EXPECT_EQ(0, sys_timer_delete(id[0]));
	EXPECT_EQ(0, sys_timer_delete(id[1]));
}

/*
 * A reset (the interface down and up) that moves the clock back (to
 * CLOCK_REALTIME from an hour ahead of it): the absolute timer an hour
 * further ahead does not fire and its remaining time grows by the jump
 * (an hour more: what is left to it from the clock's time);
 * the relative timer of 2 s of CLOCK_MONOTONIC (in the clock's time, at its
 * rate) fires that long after it was armed, not an hour later, and not
 * early.  The driver keeps the core off the clock while it resets it (the
 * clock reads nothing sensible then): when the reset is still going on as
 * the timer comes due (a loaded machine), it fires as the reset ends.
 */
TEST_F(reset, backward)
{
	s64 base = clock_ns(CLOCK_REALTIME) + SEC(3600), at = base + SEC(3600),
	    after, m1, value, interval, armed, now, due;
	double rate = self->c.rate > 1 ? self->c.rate : 1;
	const struct tsig *f;
	int id[2];

	armed = mono_ns();
	if (!arm_and_reset(_metadata, &self->c, base, SEC(3600), SEC(2) * rate,
			   MS(500), true, id, &after, &m1))
		return;
	if (after > base - SEC(1800))
		SKIP(return, "the reset left %s at %lld ns: it did not set it to CLOCK_REALTIME",
		     self->c.name, after);
	ASSERT_EQ(1, tsig_wait(1, SEC(5)))
		TH_LOG("the relative timer had not fired 5 s after the reset moved the clock back");
	f = tsig_nth(0);
	EXPECT_EQ(2, f->value) TH_LOG("the absolute timer fired");
	/* In CLOCK_MONOTONIC time, give or take 5 % for the rate measured. */
	EXPECT_LE(SEC(2) * rate / self->c.rate * 0.95, f->mono - armed)
		TH_LOG("fired %.1f ms after it was armed: early", (f->mono - armed) / 1e6);
	due = armed + SEC(2) * rate / self->c.rate;
	if (due < m1)
		due = m1;
	EXPECT_GE(LATE_MAX_NS + stall_max_ns(), f->mono - due)
		/* In ms after the timer was armed. */
		TH_LOG("fired at %.1f ms, reset over at %.1f, want < %.1f (+ %.1f of stalls)",
		       (f->mono - armed) / 1e6, (m1 - armed) / 1e6,
		       (due - armed + LATE_MAX_NS) / 1e6,
		       stall_max_ns() / 1e6);
	EXPECT_EQ(0, sys_timer_gettime(id[0], &value, &interval));
	now = clock_ns(self->c.clk);
	EXPECT_LE(at - now - SEC(1), value)
		TH_LOG("%lld ns left, the clock at %lld, the expiry at %lld",
		       value, now, at);
	EXPECT_GE(at - after, value);
	EXPECT_EQ(0, sys_timer_delete(id[0]));
	EXPECT_EQ(0, sys_timer_delete(id[1]));
}

TEST_HARNESS_MAIN
