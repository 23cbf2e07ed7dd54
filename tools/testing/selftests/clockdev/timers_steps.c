// SPDX-License-Identifier: GPL-2.0
/*
 * Timers on clocks that are stepped or change frequency (the fixture:
 * timers.h), side by side with CLOCK_REALTIME: absolute timers follow a
 * step, relative ones do not, and the order of expiries is what a static
 * clock gives.
 */
#define _GNU_SOURCE
#include <linux/ptp_clock.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>

#include "timers.h"

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
 * after the expiry may have come (a stalled guest; a step waits for a read
 * under way) may have landed after it and tells nothing: that round is
 * done again.  On a clock in whole ticks the expiry may come a tick before
 * @d (the read it is taken from lags by up to a tick): @d has a tick more.
 */
TEST_F(timers, step_back_absolute)
{
	const struct test_clock *c = &self->c;
	s64 d = span(c, MS(300)) + tick_lag(c), expiry, m0, m1, elapsed;
	s64 soonest = d - tick_lag(c);
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
	} while (m1 - m0 >= soonest && ++round < 3);
	ASSERT_LT(m1 - m0, soonest)
		TH_LOG("3 steps took %lld ms or more to return",
		       soonest / NSEC_PER_MSEC);
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
 * the absolute one 6 s after arming.  On a clock that reads in whole
 * ticks (an RTC) the absolute one is a tick further ahead, or it could
 * fall due before the step lands.
 */
static void step_order(struct __test_metadata *_metadata,
		       struct _test_data_timers *self, s64 step)
{
	const struct test_clock *c = &self->c;
	/* On a clock in whole ticks, the read behind the expiry lags a tick. */
	s64 ahead = span(c, step > 0 ? SEC(3) : SEC(1)) + tick_lag(c);
	s64 d = span(c, SEC(2));
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

/* The signal of the POSIX timers of step_pending_periodic(). */
#define SIG_PENDING	(SIGRTMIN + 2)

/*
 * A periodic timer whose expiry the test takes when it chooses: a timerfd
 * it reads, or a POSIX timer whose signal it dequeues from a signalfd (the
 * kernel re-arms a POSIX timer only then).  poll() on either waits for an
 * expiry without taking it.
 */
struct pending {
	int fd;
	timer_t id;
	bool posix;
};

static int pending_create(struct pending *p, enum timer_kind kind,
			  clockid_t clk)
{
	struct sigevent sev = {
		.sigev_notify = SIGEV_THREAD_ID,
		.sigev_signo = SIG_PENDING,
	};
	sigset_t set;

	p->posix = kind == TK_POSIX;
	if (!p->posix) {
		p->fd = timerfd_create(clk, TFD_CLOEXEC);
		return p->fd < 0 ? -errno : 0;
	}
	sigemptyset(&set);
	sigaddset(&set, SIG_PENDING);
	/* Directed at this thread, which leaves it pending for the signalfd. */
	if (pthread_sigmask(SIG_BLOCK, &set, NULL))
		return -EINVAL;
	p->fd = signalfd(-1, &set, SFD_CLOEXEC);
	if (p->fd < 0)
		return -errno;
	sev.sigev_notify_thread_id = gettid();
	if (timer_create(clk, &sev, &p->id)) {
		close(p->fd);
		return -errno;
	}
	return 0;
}

static int pending_arm(struct pending *p, s64 delay, s64 interval)
{
	struct itimerspec its = {
		.it_value = ns_ts(delay),
		.it_interval = ns_ts(interval),
	};

	if (p->posix)
		return timer_settime(p->id, 0, &its, NULL) ? -errno : 0;
	return timerfd_settime(p->fd, 0, &its, NULL) ? -errno : 0;
}

/* Wait up to @timeout_ns for an expiry, without taking it: 0 or -errno. */
static int pending_wait(struct pending *p, s64 timeout_ns)
{
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
	int n = poll(&pfd, 1, timeout_ns / NSEC_PER_MSEC);

	if (n < 0)
		return -errno;
	return n ? 0 : -ETIMEDOUT;
}

/* Take the expiries pending: their count in @n, 0 or -errno. */
static int pending_take(struct pending *p, long long *n)
{
	struct signalfd_siginfo si;
	uint64_t ticks;

	if (!p->posix) {
		if (read(p->fd, &ticks, sizeof(ticks)) != sizeof(ticks))
			return -errno;
		*n = ticks;
		return 0;
	}
	if (read(p->fd, &si, sizeof(si)) != sizeof(si))
		return -errno;
	*n = 1 + (long long)si.ssi_overrun;
	return 0;
}

static void pending_destroy(struct pending *p)
{
	sigset_t set;

	if (p->posix) {
		timer_delete(p->id);
		sigemptyset(&set);
		sigaddset(&set, SIG_PENDING);
		/* A signal still pending would outlive the timer. */
		while (!sigtimedwait(&set, NULL, &(struct timespec){ 0 }))
			;
		pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	}
	close(p->fd);
}

/*
 * A relative periodic timer, the clock stepped by @step while an expiry is
 * pending, not yet taken (a timerfd not read, a POSIX timer's signal not
 * dequeued: the kernel moves such a timer on only then).  Taken after the
 * step, it counts the periods CLOCK_MONOTONIC passed, not the step, and the
 * next expiry comes a period after the last, as on CLOCK_REALTIME, where a
 * relative timer runs on CLOCK_MONOTONIC.
 */
static void step_pending_periodic(struct __test_metadata *_metadata,
				  struct _test_data_timers *self, s64 step)
{
	const struct test_clock *c = &self->c;
	s64 iv = span(c, MS(300)), m0, m1, m2, m3;
	long long n1, n2;
	struct pending p;

	if (skipped(_metadata, self, SETTABLE, TKF_INTERVAL))
		return;
	ASSERT_EQ(0, pending_create(&p, self->t.kind, c->clk));
	m0 = mono_ns();
	ASSERT_EQ(0, pending_arm(&p, iv, iv));
	m1 = mono_ns();
	ASSERT_EQ(0, pending_wait(&p, iv + SEC(3))) TH_LOG("no first expiry");
	ASSERT_EQ(0, step_clock(self, step));
	ASSERT_EQ(0, pending_take(&p, &n1));
	m2 = mono_ns();
	EXPECT_LE(n1 * iv, m2 - m0 + RATE_TOL_NS)
		TH_LOG("%lld expirations counted %.1f ms after arming: the step counted as periods",
		       n1, (m2 - m0) / 1e6);
	ASSERT_EQ(0, pending_wait(&p, SEC(10)))
		TH_LOG("no expiry within 10 s of the step");
	ASSERT_EQ(0, pending_take(&p, &n2));
	m3 = mono_ns();
	EXPECT_GE(m3 - m0, (n1 + n2) * iv - RATE_TOL_NS)
		TH_LOG("expiration %lld seen %.1f ms after arming, too early",
		       n1 + n2, (m3 - m0) / 1e6);
	EXPECT_TRUE(within(m3 - m1, (n1 + n2) * iv + late_bound(c)))
		TH_LOG("expiration %lld seen %.1f ms after arming, want %lld..%.1f ms",
		       n1 + n2, (m3 - m1) / 1e6, (n1 + n2) * iv / NSEC_PER_MSEC,
		       ((n1 + n2) * iv + late_bound(c) + stall_max_ns()) / 1e6);
	pending_destroy(&p);
}

TEST_F(timers, step_pending_periodic_forward)
{
	step_pending_periodic(_metadata, self, SEC(5));
}

TEST_F(timers, step_pending_periodic_back)
{
	step_pending_periodic(_metadata, self, -SEC(5));
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

/* The clock's frequency range in ppb: a PHC's max_adj, or CLOCK_REALTIME's. */
static long max_adj_ppb(const struct test_clock *c)
{
	struct ptp_clock_caps caps = { };

	if (test_clock_static(c))
		return 500000;	/* MAXFREQ: adjtimex() takes 500 ppm at most */
	if (ioctl(c->fd, PTP_CLOCK_GETCAPS, &caps))
		return -errno;
	return caps.max_adj;
}

/*
 * A frequency change makes the rate the core measured stale.  With the
 * clock at the bottom of its range long enough for the core to measure
 * it, then at the top: a relative timer armed some time after the core's
 * last read (the age decides whether it is anchored on a prediction from
 * that read) never comes early.  The wait before arming is the age under
 * test, not a synchronisation.
 */
TEST_F_TIMEOUT(timers, freq_max_adj, 60)
{
	static const int age_ms[] = { 10, 30, 50, 70, 85 };
	const struct test_clock *c = &self->c;
	s64 t0, d = MS(20), late, earliest = 0;
	struct tk_event ev;
	long max;
	int err, i;

	if (skipped(_metadata, self, TUNABLE, 0))
		return;
	err = freq_get(c->clk, &self->freq);
	if (!err)
		err = freq_set(c->clk, self->freq);
	if (err)
		SKIP(return, "%s takes no ADJ_FREQUENCY: %s", c->name,
		     errname(-err));
	self->tuned = true;
	max = max_adj_ppb(c);
	ASSERT_LT(0, max) TH_LOG("PTP_CLOCK_GETCAPS: %s", errname(-max));
	for (i = 0; i < (int)ARRAY_SIZE(age_ms); i++) {
		ASSERT_EQ(0, sys_clock_freq(c->clk, -max));
		ASSERT_EQ(0, tk_arm(&self->t, 0, MS(300), 0));
		ASSERT_EQ(1, tk_wait(&self->t, 1, SEC(3), &ev, 1));
		ASSERT_EQ(0, sys_clock_freq(c->clk, max));
		pass_time(MS(age_ms[i]));
		t0 = clock_ns(c->clk);
		ASSERT_EQ(0, tk_arm(&self->t, 0, d, 0));
		ASSERT_EQ(1, tk_wait(&self->t, 1, SEC(3), &ev, 1))
			TH_LOG("no expiry of a 20 ms timer");
		late = expect_on_time(_metadata, c, &ev, t0 + d, true);
		if (late < 0)
			TH_LOG("armed %d ms after the core's last read, at %+ld ppb from %+ld ppb",
			       age_ms[i], max, -max);
		if (!i || late < earliest)
			earliest = late;
	}
	TH_LOG("from %+ld to %+ld ppb: the earliest expiry %.1f us after its time",
	       -max, max, earliest / 1e3);
}

TEST_HARNESS_MAIN
