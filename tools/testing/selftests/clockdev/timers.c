// SPDX-License-Identifier: GPL-2.0
/*
 * Timers on clocks (the fixture: timers.h): one-shot and periodic timers,
 * a timer that outlives its file, the clock's removal under armed timers,
 * and the core's own account that none expired early.  Steps and changes
 * of frequency are in timers_steps.c.
 */
#define _GNU_SOURCE
#include "timers.h"

/*
 * Real NIC drivers' clocks (QEMU 8 or later advances them; QEMU 10's
 * e1000e runs at 5/2 of boot time, which the tests judge in the clock's
 * own time).
 */
FIXTURE_VARIANT_ADD(timers, e1000e_posix) { CK_E1000E, TK_POSIX };
FIXTURE_VARIANT_ADD(timers, e1000e_nanosleep) { CK_E1000E, TK_NANOSLEEP };
FIXTURE_VARIANT_ADD(timers, e1000e_timerfd) { CK_E1000E, TK_TIMERFD };
FIXTURE_VARIANT_ADD(timers, igb_posix) { CK_IGB, TK_POSIX };
FIXTURE_VARIANT_ADD(timers, igb_nanosleep) { CK_IGB, TK_NANOSLEEP };
FIXTURE_VARIANT_ADD(timers, igb_timerfd) { CK_IGB, TK_TIMERFD };

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

/*
 * timer_gettime() and timerfd_gettime() in every state of a timer, with
 * the same expectations on the static clocks: armed (some of its delay
 * left, no interval), cancelled (0, 0), periodic and expired then
 * requeued (at most an interval left, the interval), disarmed by a zero
 * value (0, 0), and a one-shot timer that expired (0, 0).  Up to a tick
 * more is left on a clock that reads in whole ticks (late_bound()).
 */
TEST_F(timers, gettime_states)
{
	const struct test_clock *c = &self->c;
	s64 d = span(c, MS(500)), p = span(c, MS(100)), v, iv;
	struct tk_event ev;
	struct tk_timer os;

	if (skipped(_metadata, self, ANY_CLOCK, TKF_REMAINING | TKF_INTERVAL))
		return;
	ASSERT_EQ(0, tk_arm(&self->t, 0, d, 0));
	ASSERT_EQ(0, tk_remaining(&self->t, &v, &iv));
	EXPECT_TRUE(v > 0 && v <= d + 2 * tick_lag(c))
		TH_LOG("armed for %lld ns: %lld ns left", d, v);
	EXPECT_EQ(0, iv);

	ASSERT_EQ(0, tk_cancel(&self->t));
	ASSERT_EQ(0, tk_remaining(&self->t, &v, &iv));
	EXPECT_EQ(0, v) TH_LOG("cancelled: %lld ns left", v);
	EXPECT_EQ(0, iv);

	ASSERT_EQ(0, tk_arm(&self->t, 0, p, p));
	ASSERT_EQ(1, tk_wait(&self->t, 1, p + SEC(3), &ev, 1))
		TH_LOG("no first expiry of the periodic timer");
	ASSERT_EQ(0, tk_remaining(&self->t, &v, &iv));
	EXPECT_TRUE(v > 0 && v <= p + 2 * tick_lag(c))
		TH_LOG("periodic, expired and requeued: %lld ns left of %lld",
		       v, p);
	EXPECT_EQ(p, iv);

	ASSERT_EQ(0, tk_arm(&self->t, 0, 0, 0));
	ASSERT_EQ(0, tk_remaining(&self->t, &v, &iv));
	EXPECT_EQ(0, v) TH_LOG("disarmed with a zero value: %lld ns left", v);
	EXPECT_EQ(0, iv);

	/*
	 * The one-shot is a timer of its own: an expiry of the periodic one
	 * that came before it was disarmed (this thread held off for an
	 * interval, on a loaded host) may still be on its way to the test,
	 * and would be taken for the one-shot's.
	 */
	ASSERT_EQ(0, tk_create(&os, self->t.kind, c->clk));
	ASSERT_EQ(0, tk_arm(&os, 0, p, 0));
	ASSERT_EQ(1, tk_wait(&os, 1, p + SEC(3), &ev, 1))
		TH_LOG("no expiry of the one-shot timer");
	ASSERT_EQ(0, tk_remaining(&os, &v, &iv));
	EXPECT_EQ(0, v) TH_LOG("one-shot, expired: %lld ns left", v);
	EXPECT_EQ(0, iv);
	EXPECT_EQ(0, tk_destroy(&os));
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
