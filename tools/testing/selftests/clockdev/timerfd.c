// SPDX-License-Identifier: GPL-2.0
/*
 * timerfd on dynamic clocks: what is particular to a timer read through a
 * file descriptor.
 *
 * A periodic timerfd left unread counts the expirations it missed; poll()
 * and epoll_wait() see EPOLLIN when it expires, not before;
 * timerfd_gettime() gives the remaining time and the interval in the
 * clock's time; timerfd_create() on a clockid made of a fd that is not a
 * clock fails with EINVAL.  TFD_TIMER_CANCEL_ON_SET on a dynamic clock
 * means "cancel on a step of this clock": a read then fails with
 * ECANCELED, as it does on CLOCK_REALTIME when CLOCK_REALTIME is stepped
 * (each test shows the two side by side, and that neither sees the
 * other's steps); a step made before the timerfd was armed does not
 * cancel it.  After the clock is removed, read() fails with ENODEV (a
 * blocked reader is woken), poll() reports EPOLLERR | EPOLLHUP, and
 * timerfd_settime(), timerfd_gettime() and a new timerfd_create() fail
 * with ENODEV.
 *
 * Each test runs on a ptp_sim clock, one whose every read sleeps,
 * netdevsim's mock PHC and, for reference, CLOCK_MONOTONIC (CLOCK_REALTIME
 * where the clock is stepped).  One-shot and periodic expiries, steps and
 * the clock pinned by a timerfd are tested with the other kinds of timer
 * in timers.c.
 *
 * The lateness of an expiry is the clock's time read right after the
 * read() or poll() that saw it, minus the expiry.  An early expiry is
 * always a failure; one more than LATE_MAX_NS late, plus the longest stall
 * of the process (a TCG guest on a loaded host stalls), too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "clockdev_util.h"

/* Latest acceptable expiry, on top of the stalls seen. */
#define LATE_MAX_NS		MS(200)
/* How soon a reader must see an event (a step, a removal): plus stalls. */
#define PROMPT_NS		MS(100)
/* How far timerfd_gettime()'s view of the clock may be off. */
#define PRED_TOL_NS		MS(2)
/* A running clock starts here, far from CLOCK_REALTIME. */
#define BASE_NS			SEC(1000)
/* Long enough never to come during a test. */
#define FAR_AHEAD		SEC(3600)
/* Attempts at arming a timerfd 50 ms ahead before a stall lets it expire. */
#define ARM_TRIES		3

static s64 late_bound(void)
{
	return LATE_MAX_NS + stall_max_ns();
}

static s64 prompt_bound(void)
{
	return PROMPT_NS + stall_max_ns();
}

/* The longest read of a clock timed_read() saw. */
static s64 read_max;

/* A read of @clk, its duration taken into read_max. */
static s64 timed_read(clockid_t clk)
{
	s64 m0 = mono_ns(), t = clock_ns(clk), m1 = mono_ns();

	if (m1 - m0 > read_max)
		read_max = m1 - m0;
	return t;
}

/*
 * How far the core's prediction may run ahead of the clock: it maps from
 * the boot time before its last read, so a read that sleeps (the core's
 * take about as long as ours) or that a stall stretched puts it ahead by
 * as much.
 */
static s64 ahead_bound(void)
{
	return PRED_TOL_NS + 2 * read_max + stall_max_ns();
}

/* ---- timerfd calls, each returning a result or -errno ---- */

static int tfd_create(clockid_t clk, int flags)
{
	int fd = timerfd_create(clk, flags | TFD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int tfd_set(int fd, int flags, s64 value, s64 interval)
{
	struct itimerspec its = { ns_ts(interval), ns_ts(value) };

	return timerfd_settime(fd, flags, &its, NULL) ? -errno : 0;
}

static int tfd_get(int fd, s64 *value, s64 *interval)
{
	struct itimerspec its;

	if (timerfd_gettime(fd, &its))
		return -errno;
	*value = ts_ns(&its.it_value);
	*interval = ts_ns(&its.it_interval);
	return 0;
}

/* read() of a timerfd: the expiration count, or -errno. */
static long long tfd_read(int fd)
{
	unsigned long long n;
	ssize_t got = read(fd, &n, sizeof(n));

	if (got < 0)
		return -errno;
	return got == sizeof(n) ? (long long)n : -EIO;
}

/* The events pending on @fd now (poll() with no wait). */
static short tfd_events(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) > 0 ? pfd.revents : 0;
}

/*
 * Wait up to @timeout_ns for POLLIN on @fd, then read it: the count, 0 on
 * timeout, -EBADE when poll() gave other events than POLLIN, or -errno.
 */
static long long tfd_wait(int fd, s64 timeout_ns)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n = poll(&pfd, 1, timeout_ns / NSEC_PER_MSEC);

	if (n < 0)
		return -errno;
	if (!n)
		return 0;
	return pfd.revents == POLLIN ? tfd_read(fd) : -EBADE;
}

/**
 * struct reader - a thread blocked in read() or poll() of a timerfd
 * @fd:     the timerfd
 * @poll:   poll() for any event instead of reading
 * @tid:    the thread, once it runs
 * @ret:    what read() returned (a count or -errno), or poll()'s revents
 * @mono:   CLOCK_MONOTONIC when it returned
 * @thread: the thread
 */
struct reader {
	int fd;
	bool poll;
	pid_t tid;
	long long ret;
	s64 mono;
	pthread_t thread;
};

static void *reader_fn(void *arg)
{
	struct reader *rd = arg;
	struct pollfd pfd = { .fd = rd->fd, .events = POLLIN };

	__atomic_store_n(&rd->tid, gettid(), __ATOMIC_SEQ_CST);
	if (rd->poll)
		rd->ret = poll(&pfd, 1, -1) < 0 ? -errno : pfd.revents;
	else
		rd->ret = tfd_read(rd->fd);
	rd->mono = mono_ns();
	return NULL;
}

/* Start @rd; when @block, wait until it sleeps.  False after a failure. */
static bool reader_start(struct reader *rd, bool block)
{
	s64 deadline = mono_ns() + SEC(2);

	rd->tid = 0;
	if (pthread_create(&rd->thread, NULL, reader_fn, rd))
		return false;
	while (!__atomic_load_n(&rd->tid, __ATOMIC_SEQ_CST)) {
		if (mono_ns() > deadline)
			return false;
		pass_time(MS(1));
	}
	return !block || wait_task_state(getpid(), rd->tid, 'S', SEC(2));
}

/* Join @rd within @timeout_ns; false (and @rd left running) otherwise. */
static bool reader_join(struct reader *rd, s64 timeout_ns)
{
	/* CLOCK_MONOTONIC: the tests step CLOCK_REALTIME. */
	struct timespec ts = ns_ts(mono_ns() + timeout_ns);

	return !pthread_clockjoin_np(rd->thread, NULL, CLOCK_MONOTONIC, &ts);
}

/* read() of @fd in a thread: its result, or 1 when it still blocks after 1 s. */
static long long read_bounded(int fd)
{
	/* Left to a thread that may never return: not on the stack. */
	struct reader *rd = calloc(1, sizeof(*rd));
	long long ret;

	if (!rd)
		return -ENOMEM;
	rd->fd = fd;
	if (!reader_start(rd, false))
		return -EAGAIN;
	if (!reader_join(rd, SEC(1))) {
		pthread_detach(rd->thread);
		return 1;
	}
	ret = rd->ret;
	free(rd);
	return ret;
}

FIXTURE(timerfd) {
	struct test_clock c;
};

FIXTURE_VARIANT(timerfd) {
	enum clock_kind kind;
};

FIXTURE_VARIANT_ADD(timerfd, ptp_sim) {
	.kind = CK_PTP_SIM,
};

FIXTURE_VARIANT_ADD(timerfd, ptp_sim_sleeping) {
	.kind = CK_PTP_SIM_SLOW,
};

FIXTURE_VARIANT_ADD(timerfd, mock_phc) {
	.kind = CK_MOCK_PHC,
};

FIXTURE_VARIANT_ADD(timerfd, monotonic) {
	.kind = CK_MONOTONIC,
};

FIXTURE_SETUP(timerfd)
{
	char why[256];
	int err;

	err = test_clock_make(&self->c, variant->kind, why, sizeof(why));
	if (err)
		SKIP(return, "%s", why);
	/* A skipped or failed setup gets no teardown: clean up here. */
	err = probe_timerfd(self->c.clk);
	if (err) {
		test_clock_destroy(&self->c);
		SKIP(return, "timerfd_create on %s: %s: no timerfd on dynamic clocks",
		     self->c.name, errname(-err));
	}
	if (!test_clock_static(&self->c)) {
		err = sys_clock_settime(self->c.clk, BASE_NS);
		if (err)
			test_clock_destroy(&self->c);
		ASSERT_EQ(0, err) TH_LOG("clock_settime on %s: %s",
					 self->c.name, errname(-err));
	}
	stall_monitor_start();
}

FIXTURE_TEARDOWN(timerfd)
{
	test_clock_destroy(&self->c);
}

/*
 * A 10 ms periodic timerfd left unread for 200 ms: one read returns every
 * expiration that passed, give or take the one the reads around it
 * straddle.
 */
TEST_F(timerfd, overrun)
{
	const clockid_t clk = self->c.clk;
	const s64 iv = MS(10);
	s64 t0, t1, before, after, most, least;
	long long n;
	int fd, err;

	fd = tfd_create(clk, 0);
	ASSERT_LE(0, fd) TH_LOG("timerfd_create: %s", errname(-fd));
	t0 = clock_ns(clk);
	err = tfd_set(fd, 0, iv, iv);
	t1 = clock_ns(clk);
	ASSERT_EQ(0, err) TH_LOG("timerfd_settime: %s", errname(-err));
	pass_time(MS(200));
	before = clock_ns(clk);
	n = tfd_read(fd);
	after = clock_ns(clk);
	close(fd);

	/* Expiration k is at (armed) + k * iv, armed between t0 and t1. */
	most = (after - t0) / iv;
	least = (before - t1) / iv - 1;
	ASSERT_LE(0, n) TH_LOG("read: %s", errname(-n));
	EXPECT_LE(least, n) TH_LOG("read %lld expirations, want %lld..%lld", n, least, most);
	EXPECT_LE(n, most) TH_LOG("read %lld expirations, want %lld..%lld: one counted early",
				  n, least, most);
}

/*
 * A TFD_TIMER_ABSTIME timerfd 50 ms ahead, waited for by poll(), then by
 * epoll_wait(): a read before the expiry gives EAGAIN, the wait sees
 * EPOLLIN no earlier than the expiry, and the read after it returns 1.
 */
TEST_F(timerfd, poll)
{
	struct epoll_event ev = { .events = EPOLLIN }, got;
	const clockid_t clk = self->c.clk;
	int fd, ep, err, n, round, tries;
	struct pollfd pfd;
	s64 expiry, now;
	long long ticks;
	unsigned int events;

	fd = tfd_create(clk, TFD_NONBLOCK);
	ASSERT_LE(0, fd) TH_LOG("timerfd_create: %s", errname(-fd));
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));

	for (round = 0; round < 2; round++) {
		const char *what = round ? "epoll_wait" : "poll";

		for (tries = 0; ; tries++) {
			expiry = clock_ns(clk) + MS(50);
			err = tfd_set(fd, TFD_TIMER_ABSTIME, expiry, 0);
			ASSERT_EQ(0, err) TH_LOG("timerfd_settime: %s", errname(-err));
			ticks = tfd_read(fd);
			now = clock_ns(clk);
			if (ticks == -EAGAIN)
				break;
			/* A stall let it expire: fine, unless it came early. */
			ASSERT_EQ(1, ticks) TH_LOG("%s: read before the expiry: %lld", what, ticks);
			ASSERT_LE(expiry, now)
				TH_LOG("%s: a count %lld ns early", what, expiry - now);
			ASSERT_LT(tries, ARM_TRIES)
				TH_LOG("stalled past a 50 ms expiry %d times", tries);
		}
		if (round) {
			n = epoll_wait(ep, &got, 1, 3000);
			events = n == 1 ? got.events : 0;
		} else {
			pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
			n = poll(&pfd, 1, 3000);
			events = n == 1 ? pfd.revents : 0;
		}
		now = clock_ns(clk);
		EXPECT_EQ(1, n) TH_LOG("%s: %d, want an event within 3 s", what, n);
		EXPECT_EQ(EPOLLIN, events) TH_LOG("%s: events %#x, want EPOLLIN", what, events);
		EXPECT_LE(expiry, now) TH_LOG("%s: EPOLLIN %lld ns early", what, expiry - now);
		EXPECT_LE(now - expiry, late_bound())
			TH_LOG("%s: EPOLLIN %.1f ms late", what, (now - expiry) / 1e6);
		ticks = tfd_read(fd);
		EXPECT_EQ(1, ticks) TH_LOG("%s: read after the event: %lld", what, ticks);
		EXPECT_EQ(0, tfd_events(fd));
		TH_LOG("%s: %s: EPOLLIN %.1f us after the expiry", self->c.name, what,
		       (now - expiry) / 1e3);
	}
	close(ep);
	close(fd);
}

/*
 * A TFD_TIMER_ABSTIME timerfd 2 s ahead with an interval of 500 ms:
 * timerfd_gettime(), now and 100 ms later, gives the interval and what
 * is left until the expiry in the clock's time, give or take the error of
 * the core's prediction (it answers without reading the clock).
 */
TEST_F(timerfd, gettime_remaining)
{
	const clockid_t clk = self->c.clk;
	s64 t0, t1, expiry, value, iv, lo, hi;
	int fd, err, i;

	fd = tfd_create(clk, 0);
	ASSERT_LE(0, fd) TH_LOG("timerfd_create: %s", errname(-fd));
	expiry = timed_read(clk) + SEC(2);
	err = tfd_set(fd, TFD_TIMER_ABSTIME, expiry, MS(500));
	ASSERT_EQ(0, err) TH_LOG("timerfd_settime: %s", errname(-err));
	for (i = 0; i < 2; i++) {
		t0 = timed_read(clk);
		err = tfd_get(fd, &value, &iv);
		t1 = timed_read(clk);
		ASSERT_EQ(0, err) TH_LOG("timerfd_gettime: %s", errname(-err));
		lo = expiry - t1 - ahead_bound();
		hi = expiry - t0 + PRED_TOL_NS;
		EXPECT_LE(value, SEC(2));
		EXPECT_LE(lo, value)
			TH_LOG("%lld ns left, want %lld..%lld (stalls %.1f, reads %.1f ms)",
			       value, lo, hi, stall_max_ns() / 1e6, read_max / 1e6);
		EXPECT_LE(value, hi) TH_LOG("%lld ns left, want %lld..%lld", value, lo, hi);
		EXPECT_EQ(MS(500), iv);
		pass_time(MS(100));
	}
	close(fd);
}

/* A clockid made of a pipe, or of a closed fd: EINVAL, as for every call. */
TEST(create_bad_fd)
{
	int p[2], fd;

	ASSERT_EQ(0, pipe(p));
	fd = tfd_create(FD_TO_CLOCKID(p[0]), 0);
	EXPECT_EQ(-EINVAL, fd) TH_LOG("a pipe: %s", fd < 0 ? errname(-fd) : "a timerfd");
	if (fd >= 0)
		close(fd);
	close(p[0]);
	close(p[1]);
	/* p[0] is closed, and nothing took its number. */
	fd = tfd_create(FD_TO_CLOCKID(p[0]), 0);
	EXPECT_EQ(-EINVAL, fd) TH_LOG("a closed fd: %s", fd < 0 ? errname(-fd) : "a timerfd");
	if (fd >= 0)
		close(fd);
}

/* ---- TFD_TIMER_CANCEL_ON_SET ---- */

enum step_how {
	STEP_SETTIME,		/* clock_settime() */
	STEP_SETOFFSET,		/* clock_adjtime(ADJ_SETOFFSET) */
};

static int step_clock(clockid_t clk, enum step_how how, s64 offset)
{
	if (how == STEP_SETOFFSET)
		return sys_clock_step(clk, offset);
	return sys_clock_settime(clk, clock_ns(clk) + offset);
}

/* Arm @fd TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, @ahead of @clk. */
static int arm_cancel(int fd, clockid_t clk, s64 ahead)
{
	return tfd_set(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
		       clock_ns(clk) + ahead, 0);
}

/* A clock and its name, for messages. */
struct named_clock {
	clockid_t clk;
	const char *name;
};

/**
 * struct after_cancel - what a timerfd does after ECANCELED
 * @left:     timerfd_gettime()'s remaining time right after
 * @later:    what a read gives once its expiry passed: 1 when it still
 *            fired, 0 when nothing came, or -errno
 * @periodic: the same for a periodic timerfd that expired before the
 *            step: a count when it goes on expiring
 */
struct after_cancel {
	s64 left;
	long long later;
	long long periodic;
};

/*
 * Arm @fd 10 s ahead of @c, and let the core settle on it: 50 ms later
 * nothing is pending, as no step came since.  A spurious event is
 * reported, read, and the timerfd armed again.
 */
static void arm_quiet(struct __test_metadata *_metadata, int fd, const struct named_clock *c)
{
	int err = arm_cancel(fd, c->clk, SEC(10));
	short ev;

	ASSERT_EQ(0, err) TH_LOG("timerfd_settime on %s: %s", c->name, errname(-err));
	pass_time(MS(50));
	ev = tfd_events(fd);
	/* Not even the step right before arming: CLOCK_REALTIME's is not seen. */
	EXPECT_EQ(0, ev) TH_LOG("%s: revents %#x, read %s, with no step since arming",
				c->name, ev, errname(-tfd_read(fd)));
	if (ev) {
		/* Read above; go on with the steps that follow. */
		ASSERT_EQ(0, arm_cancel(fd, c->clk, SEC(10)));
		pass_time(MS(50));
	}
}

/*
 * Armed 600 ms ahead, stepped +100 ms, read ECANCELED: is it still armed,
 * does it fire at its expiry?  Then a periodic timerfd of 100 ms that
 * expired once: stepped +10 ms, read ECANCELED, does it go on expiring?
 * CLOCK_REALTIME's answers are the reference (cancel_test()).
 */
static void cancel_then_expiry(struct __test_metadata *_metadata, int fd,
			       const struct named_clock *c, enum step_how how,
			       struct after_cancel *a)
{
	s64 iv;
	int err;

	err = arm_cancel(fd, c->clk, MS(600));
	ASSERT_EQ(0, err) TH_LOG("timerfd_settime on %s: %s", c->name, errname(-err));
	pass_time(MS(50));
	err = step_clock(c->clk, how, MS(100));
	ASSERT_EQ(0, err) TH_LOG("stepping %s: %s", c->name, errname(-err));
	EXPECT_EQ(-ECANCELED, tfd_wait(fd, SEC(3)));
	EXPECT_EQ(0, tfd_get(fd, &a->left, &iv));
	a->later = tfd_wait(fd, SEC(1));
	EXPECT_EQ(0, tfd_set(fd, 0, 0, 0));
	err = step_clock(c->clk, how, -MS(100));
	ASSERT_EQ(0, err) TH_LOG("stepping %s back: %s", c->name, errname(-err));

	err = tfd_set(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
		      clock_ns(c->clk) + MS(100), MS(100));
	ASSERT_EQ(0, err) TH_LOG("timerfd_settime on %s: %s", c->name, errname(-err));
	EXPECT_LE(1, tfd_wait(fd, SEC(3))) TH_LOG("%s: no first expiry", c->name);
	err = step_clock(c->clk, how, MS(10));
	ASSERT_EQ(0, err) TH_LOG("stepping %s: %s", c->name, errname(-err));
	EXPECT_EQ(-ECANCELED, tfd_wait(fd, SEC(3)));
	a->periodic = tfd_wait(fd, SEC(1));
	EXPECT_EQ(0, tfd_set(fd, 0, 0, 0));
	err = step_clock(c->clk, how, -MS(10));
	ASSERT_EQ(0, err) TH_LOG("stepping %s back: %s", c->name, errname(-err));
}

/**
 * cancel_on_set() - a TFD_TIMER_CANCEL_ON_SET timerfd on a clock stepped
 * @_metadata: the test
 * @c:         the clock, stepped +1 s, +1 s, +1 s and -3 s (back where it was)
 * @other:     another clock whose TFD_TIMER_CANCEL_ON_SET timerfd must not
 *             see the steps of @c, or NULL
 * @how:       how @c is stepped
 * @after:     receives what the timerfd does after ECANCELED
 *
 * The first step comes right before the timerfd is armed, and must not
 * cancel it.  Before each of the others, the timerfd is armed 10 s ahead
 * (never reached: the steps stay short of it) with arm_quiet().  The
 * second step wakes a read blocked on it; the others come before a
 * poll(), which sees POLLIN.  The read gives ECANCELED within PROMPT_NS
 * of the step, and nothing is pending after it.  Last,
 * cancel_then_expiry() fills @after.
 */
static void cancel_on_set(struct __test_metadata *_metadata, const struct named_clock *c,
			  const struct named_clock *other, enum step_how how,
			  struct after_cancel *after)
{
	static const s64 steps[] = { SEC(1), SEC(1), SEC(1), -SEC(3) };
	struct reader rd = { 0 };
	int fd, ofd = -1, err, i;
	s64 m0, dt;
	long long n;

	fd = tfd_create(c->clk, 0);
	ASSERT_LE(0, fd) TH_LOG("timerfd_create on %s: %s", c->name, errname(-fd));
	if (other) {
		ofd = tfd_create(other->clk, 0);
		ASSERT_LE(0, ofd) TH_LOG("timerfd_create: %s", errname(-ofd));
	}
	err = step_clock(c->clk, how, steps[0]);
	ASSERT_EQ(0, err) TH_LOG("stepping %s: %s", c->name, errname(-err));
	for (i = 1; i < (int)ARRAY_SIZE(steps); i++) {
		const char *what = i > 1 ? "poll and read" : "blocked read";

		arm_quiet(_metadata, fd, c);
		if (other)
			arm_quiet(_metadata, ofd, other);
		if (i == 1) {
			rd.fd = fd;
			if (!reader_start(&rd, true)) {
				bool ret = reader_join(&rd, SEC(1));

				ASSERT_TRUE(false) TH_LOG("%s: the read did not block: %lld (%s)",
							  c->name, ret ? rd.ret : 0,
							  !ret ? "no result" : rd.ret < 0 ?
							  errname(-rd.ret) : "a count");
			}
		}
		err = step_clock(c->clk, how, steps[i]);
		m0 = mono_ns();
		ASSERT_EQ(0, err) TH_LOG("stepping %s: %s", c->name, errname(-err));
		if (i == 1) {
			ASSERT_TRUE(reader_join(&rd, SEC(3)))
				TH_LOG("%s: the read still blocks 3 s after the step", c->name);
			n = rd.ret;
			dt = rd.mono - m0;
		} else {
			n = tfd_wait(fd, SEC(3));
			dt = mono_ns() - m0;
		}
		EXPECT_EQ(-ECANCELED, n)
			TH_LOG("%s: step %+lld s: %s: %lld (%s), want ECANCELED", c->name,
			       steps[i] / NSEC_PER_SEC, what, n,
			       n == -EBADE ? "poll gave other events" :
			       n < 0 ? errname(-n) : n ? "a count" : "no event within 3 s");
		EXPECT_LE(dt, prompt_bound())
			TH_LOG("%s: %s returned %.1f ms after the step", c->name, what, dt / 1e6);
		EXPECT_EQ(0, tfd_events(fd))
			TH_LOG("%s: an event pending after ECANCELED", c->name);
		if (other) {
			EXPECT_EQ(0, tfd_events(ofd))
				TH_LOG("a step of %s canceled a timerfd on %s", c->name,
				       other->name);
		}
	}
	cancel_then_expiry(_metadata, fd, c, how, after);
	close(fd);
	if (ofd >= 0)
		close(ofd);
}

static const char *later_name(long long later)
{
	return later == 1 ? "fired at its expiry" : !later ? "never fired" :
	       later < 0 ? errname(-later) : "a count";
}

/*
 * TFD_TIMER_CANCEL_ON_SET on the clock under test and, beside it, on
 * CLOCK_REALTIME stepped the same way: both give ECANCELED, neither sees
 * the other's steps, and after ECANCELED both do the same: still armed or
 * not, firing at the expiry or not, a periodic timerfd going on or not.
 * The static reference variant runs the CLOCK_REALTIME half alone.
 */
static void cancel_test(struct __test_metadata *_metadata, const struct test_clock *c,
			enum step_how how)
{
	const struct named_clock rt = { CLOCK_REALTIME, "CLOCK_REALTIME" };
	const struct named_clock dev = { c->clk, c->name };
	struct after_cancel dev_after = { 0 }, rt_after = { 0 };
	bool alone = test_clock_static(c);

	if (!alone)
		cancel_on_set(_metadata, &dev, &rt, how, &dev_after);
	cancel_on_set(_metadata, &rt, alone ? NULL : &dev, how, &rt_after);
	TH_LOG("after ECANCELED, CLOCK_REALTIME: %lld ns left, then %s; periodic: %s",
	       rt_after.left, later_name(rt_after.later),
	       later_name(rt_after.periodic > 0 ? 1 : rt_after.periodic));
	if (alone)
		return;
	TH_LOG("after ECANCELED, %s: %lld ns left, then %s; periodic: %s",
	       c->name, dev_after.left, later_name(dev_after.later),
	       later_name(dev_after.periodic > 0 ? 1 : dev_after.periodic));
	EXPECT_EQ(!rt_after.left, !dev_after.left)
		TH_LOG("after ECANCELED, armed on CLOCK_REALTIME: %s, on %s: %s",
		       rt_after.left ? "yes" : "no", c->name,
		       dev_after.left ? "yes" : "no");
	EXPECT_EQ(rt_after.later, dev_after.later)
		TH_LOG("after ECANCELED, CLOCK_REALTIME's timerfd %s, %s's %s",
		       later_name(rt_after.later), c->name,
		       later_name(dev_after.later));
	EXPECT_EQ(rt_after.periodic > 0, dev_after.periodic > 0)
		TH_LOG("after ECANCELED, CLOCK_REALTIME's periodic timerfd %s, %s's %s",
		       later_name(rt_after.periodic > 0 ? 1 : rt_after.periodic),
		       c->name,
		       later_name(dev_after.periodic > 0 ? 1 : dev_after.periodic));
}

TEST_F(timerfd, cancel_on_set_settime)
{
	cancel_test(_metadata, &self->c, STEP_SETTIME);
}

TEST_F(timerfd, cancel_on_set_setoffset)
{
	cancel_test(_metadata, &self->c, STEP_SETOFFSET);
}

/* ---- removal of the clock ---- */

/*
 * Remove the clock under three timerfds: one armed TFD_TIMER_ABSTIME an
 * hour ahead with a thread blocked reading it, one armed relative 30 s
 * with a thread blocked in poll() on it, one never armed.  The blocked
 * read returns ENODEV and the blocked poll() EPOLLERR | EPOLLHUP within
 * PROMPT_NS; then on each of the three, poll() reports EPOLLERR |
 * EPOLLHUP, read() fails with ENODEV (it does not block),
 * timerfd_settime() and timerfd_gettime() with ENODEV; and a new
 * timerfd_create() on the clock fails with ENODEV.
 */
TEST_F(timerfd, removal)
{
	const clockid_t clk = self->c.clk;
	struct reader reader = { 0 }, poller = { .poll = true };
	struct { const char *what; int fd; } fds[] = {
		{ "absolute", -1 }, { "relative", -1 }, { "never armed", -1 },
	};
	s64 removed, value, iv;
	long long n;
	size_t i;
	short ev;
	int err;

	if (test_clock_static(&self->c))
		SKIP(return, "%s cannot be removed", self->c.name);
	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		fds[i].fd = tfd_create(clk, i == 2 ? TFD_NONBLOCK : 0);
		ASSERT_LE(0, fds[i].fd) TH_LOG("timerfd_create: %s", errname(-fds[i].fd));
	}
	err = tfd_set(fds[0].fd, TFD_TIMER_ABSTIME, clock_ns(clk) + FAR_AHEAD, 0);
	ASSERT_EQ(0, err) TH_LOG("timerfd_settime: %s", errname(-err));
	err = tfd_set(fds[1].fd, 0, SEC(30), 0);
	ASSERT_EQ(0, err) TH_LOG("timerfd_settime: %s", errname(-err));
	reader.fd = fds[0].fd;
	poller.fd = fds[1].fd;
	ASSERT_TRUE(reader_start(&reader, true)) TH_LOG("the reader did not block");
	ASSERT_TRUE(reader_start(&poller, true)) TH_LOG("the poller did not block");

	err = test_clock_remove(&self->c);
	removed = mono_ns();
	ASSERT_EQ(0, err) TH_LOG("removing %s: %s", self->c.name, errname(-err));

	if (reader_join(&reader, SEC(2))) {
		EXPECT_EQ(-ENODEV, reader.ret) TH_LOG("blocked read: %lld", reader.ret);
		EXPECT_LE(reader.mono - removed, prompt_bound())
			TH_LOG("blocked read returned %.1f ms after the removal",
			       (reader.mono - removed) / 1e6);
	} else {
		EXPECT_TRUE(false) TH_LOG("blocked read: still blocked 2 s after the removal");
	}
	if (reader_join(&poller, SEC(2))) {
		EXPECT_EQ(POLLERR | POLLHUP, poller.ret & (POLLERR | POLLHUP))
			TH_LOG("blocked poll: revents %#llx", poller.ret);
		EXPECT_LE(poller.mono - removed, prompt_bound())
			TH_LOG("blocked poll returned %.1f ms after the removal",
			       (poller.mono - removed) / 1e6);
	} else {
		EXPECT_TRUE(false) TH_LOG("blocked poll: still blocked 2 s after the removal");
	}

	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		const char *what = fds[i].what;

		ev = tfd_events(fds[i].fd);
		EXPECT_EQ(POLLERR | POLLHUP, ev & (POLLERR | POLLHUP))
			TH_LOG("%s: poll: revents %#x", what, ev);
		n = read_bounded(fds[i].fd);
		EXPECT_EQ(-ENODEV, n) TH_LOG("%s: read: %s", what, n == 1 ? "blocks" :
					     n < 0 ? errname(-n) : "a count");
		err = tfd_set(fds[i].fd, 0, MS(10), 0);
		EXPECT_EQ(-ENODEV, err) TH_LOG("%s: timerfd_settime: %s", what, errname(-err));
		err = tfd_get(fds[i].fd, &value, &iv);
		EXPECT_EQ(-ENODEV, err) TH_LOG("%s: timerfd_gettime: %s", what, errname(-err));
	}
	err = tfd_create(clk, 0);
	EXPECT_EQ(-ENODEV, err) TH_LOG("a new timerfd_create: %s",
				       err < 0 ? errname(-err) : "a timerfd");
	if (err >= 0)
		close(err);
	for (i = 0; i < ARRAY_SIZE(fds); i++)
		close(fds[i].fd);
}

TEST_HARNESS_MAIN
