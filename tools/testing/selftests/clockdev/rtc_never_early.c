// SPDX-License-Identifier: GPL-2.0
/*
 * Relative timers on RTC clocks never fire early in real time, wherever in
 * the RTC's second they are armed, and however late in a second the core
 * last read the clock.  An RTC reads in whole seconds, so a
 * read lags the clock by up to a second: a timer anchored on a read must
 * take a tick more, on rtc_cmos's RTC, rtc-test.1 (an alarm of its own)
 * and rtc-test.0 (no alarm: the core's generic path, which may anchor a
 * timer on a prediction from its last read).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "clockdev_util.h"

#define SIG_TIMER	(SIGRTMIN + 1)
/* Timers of a test, and how far apart they are armed. */
#define SPREAD_N	24
#define SPREAD_GAP	MS(45)
/*
 * The timers' delay: not whole seconds, which the core's polling of a
 * clock without an alarm (eighths of a second, from when the expiry may
 * have come) would round to.
 */
#define DELAY		MS(1500)
/* Every timer should have fired by then: its delay, a tick, and the way. */
#define FIRED_MAX	SEC(4)

FIXTURE(rtc_never_early) {
	struct test_clock c;
	int timers;		/* probe_timer_create(): 0 or -errno */
};

FIXTURE_VARIANT(rtc_never_early) {
	enum clock_kind kind;
};

FIXTURE_VARIANT_ADD(rtc_never_early, cmos) {
	.kind = CK_RTC_CMOS,
};

FIXTURE_VARIANT_ADD(rtc_never_early, test_alarm) {
	.kind = CK_RTC,
};

FIXTURE_VARIANT_ADD(rtc_never_early, test_noalarm) {
	.kind = CK_RTC_NOALARM,
};

FIXTURE_SETUP(rtc_never_early)
{
	char why[256];

	if (test_clock_make(&self->c, variant->kind, why, sizeof(why)))
		SKIP(return, "%s", why);
	self->timers = probe_timer_create(self->c.clk);
}

FIXTURE_TEARDOWN(rtc_never_early)
{
	test_clock_destroy(&self->c);
}

/*
 * CLOCK_MONOTONIC when each timer's signal came, 0 until it did: written
 * by the signal handler, read with atomics.
 */
static s64 fired[SPREAD_N];

static s64 fired_at(int i)
{
	return __atomic_load_n(&fired[i], __ATOMIC_RELAXED);
}

static void on_timer(int sig, siginfo_t *si, void *uc)
{
	int i = si->si_value.sival_int;

	if (i >= 0 && i < SPREAD_N && !fired_at(i))
		__atomic_store_n(&fired[i], mono_ns(), __ATOMIC_RELAXED);
}

/* How many timers have fired. */
static int count_fired(void)
{
	int i, n = 0;

	for (i = 0; i < SPREAD_N; i++)
		n += !!fired_at(i);
	return n;
}

/*
 * Relative POSIX timers of DELAY, armed SPREAD_GAP apart so that they
 * start at every point of the RTC's second while the core reads the clock
 * for the earlier ones: none fires before DELAY passed in real time.
 */
TEST_F_TIMEOUT(rtc_never_early, relative_spread, 60)
{
	struct sigaction sa = {
		.sa_sigaction = on_timer,
		.sa_flags = SA_SIGINFO,
	}, old;
	s64 armed[SPREAD_N], real, deadline;
	int id[SPREAD_N], i, n, early = 0;
	sigset_t set;

	if (self->timers)
		SKIP(return, "timer_create on %s: %s: no timers on dynamic clocks",
		     self->c.path, errname(-self->timers));
	stall_monitor_start();
	for (i = 0; i < SPREAD_N; i++) {
		__atomic_store_n(&fired[i], 0, __ATOMIC_RELAXED);
		ASSERT_EQ(0, sys_timer_create(self->c.clk, SIGEV_SIGNAL,
					      SIG_TIMER, i, 0, &id[i]));
	}
	sigemptyset(&set);
	sigaddset(&set, SIG_TIMER);
	ASSERT_EQ(0, sigaction(SIG_TIMER, &sa, &old));
	ASSERT_EQ(0, sigprocmask(SIG_UNBLOCK, &set, NULL));
	for (i = 0; i < SPREAD_N; i++) {
		armed[i] = mono_ns();
		ASSERT_EQ(0, sys_timer_settime(id[i], 0, DELAY, 0));
		pass_time(SPREAD_GAP);
	}
	/* The last ones: look every 5 ms, up to a bound. */
	deadline = mono_ns() + FIRED_MAX + stall_max_ns();
	while ((n = count_fired()) < SPREAD_N && mono_ns() < deadline)
		pass_time(MS(5));
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigaction(SIG_TIMER, &old, NULL);
	for (i = 0; i < SPREAD_N; i++)
		EXPECT_EQ(0, sys_timer_delete(id[i]));
	EXPECT_EQ(SPREAD_N, n) TH_LOG("%d of %d timers fired", n, SPREAD_N);
	for (i = 0; i < SPREAD_N; i++) {
		real = fired_at(i) - armed[i];
		if (!fired_at(i) || real >= DELAY)
			continue;
		early++;
		TH_LOG("timer %d fired %lld ms after it was armed", i,
		       real / NSEC_PER_MSEC);
	}
	EXPECT_EQ(0, early) TH_LOG("%d of %d timers of %lld ms fired early",
				   early, SPREAD_N, DELAY / NSEC_PER_MSEC);
}

/* Sleep until CLOCK_MONOTONIC reaches @t. */
static void pass_until(s64 t)
{
	s64 now = mono_ns();

	if (t > now)
		pass_time(t - now);
}

/*
 * CLOCK_MONOTONIC when the RTC clock's second next turns, found by reading
 * it until it does (at most two seconds); -1 if it did not.
 */
static s64 next_second(const struct test_clock *c)
{
	s64 r0 = clock_ns(c->clk) / NSEC_PER_SEC, t, end = mono_ns() + SEC(2);

	do {
		t = mono_ns();
		if (clock_ns(c->clk) / NSEC_PER_SEC != r0)
			return t;
	} while (t < end);
	return -1;
}

/*
 * The core's last read came late in an RTC second, so that it lags the
 * clock by most of a second; a relative timer of DELAY armed just after
 * the next second began, within the time the core anchors relative timers
 * on a prediction from its last read, must still wait all of DELAY.  A
 * timer armed far ahead at 0.985 s makes the core read then (its last read
 * is older than that); the second timer is armed at 1.08 s.  Five rounds.
 */
TEST_F_TIMEOUT(rtc_never_early, after_late_read, 60)
{
	s64 b, armed, real;
	int far, id, round;
	sigset_t set;
	siginfo_t si;
	struct timespec limit = ns_ts(FIRED_MAX);

	if (self->timers)
		SKIP(return, "timer_create on %s: %s: no timers on dynamic clocks",
		     self->c.path, errname(-self->timers));
	sigemptyset(&set);
	sigaddset(&set, SIG_TIMER);
	ASSERT_EQ(0, sigprocmask(SIG_BLOCK, &set, NULL));
	stall_monitor_start();
	for (round = 0; round < 5; round++) {
		ASSERT_EQ(0, sys_timer_create(self->c.clk, SIGEV_NONE, 0, 0, 0,
					      &far));
		ASSERT_EQ(0, sys_timer_create(self->c.clk, SIGEV_SIGNAL,
					      SIG_TIMER, round, 0, &id));
		b = next_second(&self->c);
		ASSERT_LT(0, b) TH_LOG("%s did not turn a second in 2 s",
				       self->c.path);
		pass_until(b + MS(985));
		ASSERT_EQ(0, sys_timer_settime(far, 0, SEC(10), 0));
		pass_until(b + MS(1080));
		armed = mono_ns();
		ASSERT_EQ(0, sys_timer_settime(id, 0, DELAY, 0));
		ASSERT_EQ(SIG_TIMER, sigtimedwait(&set, &si, &limit))
			TH_LOG("no expiry of the timer");
		real = mono_ns() - armed;
		EXPECT_LE(DELAY, real) TH_LOG("round %d: early", round);
		TH_LOG("round %d: armed %lld ms into the second, fired %lld ms later",
		       round, (armed - b) / NSEC_PER_MSEC - 1000,
		       real / NSEC_PER_MSEC);
		EXPECT_EQ(0, sys_timer_delete(far));
		EXPECT_EQ(0, sys_timer_delete(id));
	}
}

TEST_HARNESS_MAIN
