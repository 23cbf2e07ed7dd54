// SPDX-License-Identifier: GPL-2.0
/*
 * What is particular to POSIX timers on dynamic clocks: timer_create()
 * with each kind of notification and through a read-only fd, many timers
 * and processes at once, timer_gettime() in the clock's own time,
 * SIGEV_NONE, overruns, timer_delete() (also racing the expiry), the
 * errors of bad ids and itimerspecs, and the calls on a removed clock.
 * posix_timers_steps.c has what steps the clock, and a clock that does
 * not advance.
 *
 * The clocks: ptp_sim (also with sleeping reads), netdevsim's mock PHC,
 * QEMU's e1000e PHC (which does not advance under QEMU 7.2: the tests
 * that need a running clock measure it and skip) and CLOCK_MONOTONIC,
 * for reference: what a test asserts holds there too.  A device clock
 * that advances is set to PHC_BASE_S first, far from CLOCK_REALTIME, so
 * that an expiry taken in the wrong timescale shows.
 *
 * Lateness is the device time read first thing in the signal handler
 * minus the expiry; an early expiry always fails.  Bounds on lateness
 * add the longest time the test's process could not run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "clockdev_util.h"

/* A running device clock starts here: far from CLOCK_REALTIME. */
#define PHC_BASE_S		1000
/*
 * Latest acceptable expiry, on top of the stalls seen: it catches an
 * expiry that waits for a back-off or a stale prediction, not noise.
 */
#define LATE_MAX_NS		MS(200)
/* How far timer_gettime()'s view of the device time may be off. */
#define PRED_TOL_NS		MS(2)
#define MANY_TIMERS		100
#define MANY_PROCS		4
/* The longest wait for the next signal of a burst of MANY_TIMERS. */
#define MANY_GAP_NS		SEC(5)
#define DELETE_ROUNDS		2000
#define NONE_ROUNDS		8
/* A timer id that a process without timers does not have. */
#define NO_SUCH_TIMER		12345
#define FAR_AHEAD		SEC(3600)
#define UNBOUNDED		LLONG_MAX
#define SIG_TIMER		(SIGRTMIN + 1)

static int tmr_create(clockid_t clk, int notify, int value, int *id)
{
	return sys_timer_create(clk, notify, SIG_TIMER, value, 0, id);
}

static s64 late_bound(void)
{
	return LATE_MAX_NS + stall_max_ns();
}

static void judge_fire(struct __test_metadata *_metadata,
		       const struct tsig *f, s64 expiry, struct lates *l)
{
	EXPECT_LE(0, f->dev)
		TH_LOG("timer %d: the handler could not read the clock",
		       f->value);
	if (f->dev >= 0)
		lates_add(l, f->dev - expiry);
}

/* No expiry early, none later than @bound (UNBOUNDED: only reported). */
static void judge_lates(struct __test_metadata *_metadata, struct lates *l,
			s64 bound)
{
	if (!l->n)
		return;
	lates_sort(l);
	EXPECT_EQ(0, l->early)
		TH_LOG("%d of %d expiries early, the earliest by %lld ns",
		       l->early, l->n, -l->worst);
	EXPECT_GE(bound, l->v[l->n - 1])
		TH_LOG("an expiry %.1f ms late, want at most %.1f ms (with %.1f ms of stalls)",
		       l->v[l->n - 1] / 1e6, bound / 1e6, stall_max_ns() / 1e6);
	TH_LOG("%d expiries, lateness p50 %.1f us, max %.1f us (device time)",
	       l->n, lates_pct(l, 50) / 1e3, l->v[l->n - 1] / 1e3);
}

/* Arm timer @id @delay ahead once and take its one signal. */
static void one_shot(struct __test_metadata *_metadata, clockid_t clk, int id,
		     bool absolute, s64 delay, struct lates *l)
{
	int before = tsig_count(), err;
	s64 t0 = clock_ns(clk);

	err = sys_timer_settime(id, absolute ? TIMER_ABSTIME : 0,
				absolute ? t0 + delay : delay, 0);
	ASSERT_EQ(0, err) TH_LOG("timer_settime: %s", errname(-err));
	ASSERT_LT(before, tsig_wait(before + 1, delay + SEC(2)))
		TH_LOG("no signal %lld ms after a %lld ms timer",
		       (delay + SEC(2)) / NSEC_PER_MSEC, delay / NSEC_PER_MSEC);
	judge_fire(_metadata, tsig_nth(before), t0 + delay, l);
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

/* ---- the clocks that run, and CLOCK_MONOTONIC ---- */

/**
 * struct _test_data_posix_timers - the clock under test
 * @c:        the clock
 * @advance:  how far it advanced in 10 ms (measured in the setup)
 * @read_max: the longest of a few reads of it, CLOCK_MONOTONIC ns
 */
FIXTURE(posix_timers) {
	struct test_clock c;
	s64 advance;
	s64 read_max;
};

FIXTURE_VARIANT(posix_timers) {
	enum clock_kind kind;
};

FIXTURE_VARIANT_ADD(posix_timers, ptp_sim) {
	.kind = CK_PTP_SIM,
};

FIXTURE_VARIANT_ADD(posix_timers, ptp_sim_sleeping) {
	.kind = CK_PTP_SIM_SLOW,
};

FIXTURE_VARIANT_ADD(posix_timers, mock_phc) {
	.kind = CK_MOCK_PHC,
};

FIXTURE_VARIANT_ADD(posix_timers, e1000e) {
	.kind = CK_E1000E,
};

FIXTURE_VARIANT_ADD(posix_timers, monotonic) {
	.kind = CK_MONOTONIC,
};

FIXTURE_SETUP(posix_timers)
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
	self->advance = clock_ns(clk) - t0;
	if (test_clock_static(&self->c) || self->advance <= 0)
		return;
	err = sys_clock_settime(clk, SEC(PHC_BASE_S));
	ASSERT_EQ(0, err) TH_LOG("clock_settime %d s on %s: %s", PHC_BASE_S,
				 self->c.name, errname(-err));
}

FIXTURE_TEARDOWN(posix_timers)
{
	test_clock_destroy(&self->c);
}

enum { NEED_DEVICE = 1, NEED_RUNNING = 2 };

/* Why the clock cannot serve a test that needs @need, or NULL. */
static const char *lacks(const struct _test_data_posix_timers *self, int need)
{
	static char why[160];

	if ((need & NEED_DEVICE) && test_clock_static(&self->c))
		snprintf(why, sizeof(why), "%s: the test needs a dynamic clock",
			 self->c.name);
	else if ((need & NEED_RUNNING) && self->advance <= 0)
		snprintf(why, sizeof(why),
			 "%s does not advance (%lld ns in 10 ms): the test needs a clock that does",
			 self->c.name, self->advance);
	else
		return NULL;
	return why;
}

/*
 * How far timer_gettime()'s prediction of the device time may be off:
 * it maps from a read that may have taken as long as ours, or been
 * delayed by a stall of the machine.
 */
static s64 pred_tol(const struct _test_data_posix_timers *self)
{
	return PRED_TOL_NS + 2 * self->read_max + stall_max_ns();
}

/* timer_create(SIGEV_SIGNAL): fires, not early. */
TEST_F(posix_timers, create_signal)
{
	const char *why = lacks(self, NEED_RUNNING);
	struct lates l = { 0 };
	int id, err;

	if (why)
		SKIP(return, "%s", why);
	err = tmr_create(self->c.clk, SIGEV_SIGNAL, 0, &id);
	ASSERT_EQ(0, err) TH_LOG("timer_create: %s", errname(-err));
	one_shot(_metadata, self->c.clk, id, true, MS(50), &l);
	judge_lates(_metadata, &l, late_bound());
	EXPECT_EQ(0, sys_timer_delete(id));
}

struct waiter {
	int ready[2];		/* the thread writes its tid here */
	pid_t tid;
};

/* A thread that takes the timer signals sent to it (SIGEV_THREAD_ID). */
static void *signal_waiter(void *arg)
{
	struct waiter *w = arg;
	pid_t tid = gettid();

	if (write(w->ready[1], &tid, sizeof(tid)) == sizeof(tid))
		tsig_wait(1, SEC(3));
	return NULL;
}

static bool join_within(pthread_t t, s64 timeout_ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts = ns_ts(ts_ns(&ts) + timeout_ns);
	return pthread_timedjoin_np(t, NULL, &ts) == 0;
}

/* timer_create(SIGEV_THREAD_ID): the signal reaches that thread, not early. */
TEST_F(posix_timers, create_thread_id)
{
	const char *why = lacks(self, NEED_RUNNING);
	struct lates l = { 0 };
	struct waiter w;
	s64 expiry;
	pthread_t t;
	int id, err;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, pipe(w.ready));
	ASSERT_EQ(0, pthread_create(&t, NULL, signal_waiter, &w));
	ASSERT_TRUE(read_within(w.ready[0], &w.tid, sizeof(w.tid), SEC(2)));
	err = sys_timer_create(self->c.clk, SIGEV_THREAD_ID, SIG_TIMER, 0,
			       w.tid, &id);
	ASSERT_EQ(0, err) TH_LOG("timer_create: %s", errname(-err));
	expiry = clock_ns(self->c.clk) + MS(50);
	err = sys_timer_settime(id, TIMER_ABSTIME, expiry, 0);
	ASSERT_EQ(0, err) TH_LOG("timer_settime: %s", errname(-err));
	ASSERT_TRUE(join_within(t, SEC(4)));
	ASSERT_EQ(1, tsig_count()) TH_LOG("no signal reached the thread");
	EXPECT_EQ(w.tid, tsig_nth(0)->tid);
	judge_fire(_metadata, tsig_nth(0), expiry, &l);
	judge_lates(_metadata, &l, late_bound());
	EXPECT_EQ(0, sys_timer_delete(id));
}

/* A timer through an O_RDONLY fd: it needs only read access. */
TEST_F(posix_timers, open_rdonly)
{
	const char *why = lacks(self, NEED_DEVICE | NEED_RUNNING);
	struct lates l = { 0 };
	int fd, id, err;

	if (why)
		SKIP(return, "%s", why);
	fd = test_clock_open(&self->c, O_RDONLY);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", self->c.path, errname(-fd));
	err = tmr_create(FD_TO_CLOCKID(fd), SIGEV_SIGNAL, 0, &id);
	ASSERT_EQ(0, err) TH_LOG("timer_create: %s", errname(-err));
	one_shot(_metadata, self->c.clk, id, false, MS(50), &l);
	judge_lates(_metadata, &l, late_bound());
	EXPECT_EQ(0, sys_timer_delete(id));
	close(fd);
}

/* Pipes that start the timers of several processes at the same time. */
struct many_sync {
	int ready[2];	/* each process writes a byte when its timers exist */
	int go[2];	/* the device time to count from, once per process */
};

/* What arm_many() found, passed from a process to the test. */
struct many_res {
	int bad;		/* failed calls and timers not fired once */
	int n, early;
	s64 worst, p50, max, armed;
	char why[160];		/* the first failure */
};

static void __printf(2, 3) many_fail(struct many_res *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->bad++) {
		va_start(ap, fmt);
		vsnprintf(r->why, sizeof(r->why), fmt, ap);
		va_end(ap);
	}
}

/*
 * MANY_TIMERS timers at absolute expiries 100 ms after the base, 1 ms
 * apart, armed in reverse order: each fires exactly once, not early.
 * Lateness is reported, not bounded: under TCG the core falls behind such
 * a burst whenever the host slows the guest.  With @sync, the base comes
 * through its pipe once every process has its timers.
 */
static void arm_many(clockid_t clk, struct many_res *r,
		     const struct many_sync *sync)
{
	int ids[MANY_TIMERS], seen[MANY_TIMERS] = { 0 }, i, n, v, err;
	s64 expiry[MANY_TIMERS], t0;
	static struct lates l;
	const struct tsig *f;

	for (i = 0; i < MANY_TIMERS; i++) {
		err = tmr_create(clk, SIGEV_SIGNAL, i, &ids[i]);
		if (err) {
			many_fail(r, "timer_create #%d: %s", i, errname(-err));
			return;
		}
	}
	t0 = clock_ns(clk);
	if (sync && (write(sync->ready[1], "", 1) != 1 ||
		     !read_within(sync->go[0], &t0, sizeof(t0), SEC(5)))) {
		many_fail(r, "no start");
		return;
	}
	for (i = MANY_TIMERS - 1; i >= 0; i--) {
		expiry[i] = t0 + MS(100) + i * MS(1);
		err = sys_timer_settime(ids[i], TIMER_ABSTIME, expiry[i], 0);
		if (err)
			many_fail(r, "timer_settime #%d: %s", i, errname(-err));
	}
	r->armed = clock_ns(clk) - t0;
	/*
	 * However late the burst (a slow kernel), the signals keep coming:
	 * wait as long as the last one came within MANY_GAP_NS.
	 */
	do {
		n = tsig_count();
		tsig_wait(MANY_TIMERS, MANY_GAP_NS);
	} while (tsig_count() > n && tsig_count() < MANY_TIMERS);
	/* Anything extra would come right after. */
	tsig_wait(tsig_count() + 1, MS(50));
	for (i = 0; (f = tsig_nth(i)); i++) {
		v = f->value;
		if (v < 0 || v >= MANY_TIMERS || f->dev < 0) {
			many_fail(r, "signal of timer %d, read %lld", v, f->dev);
			continue;
		}
		seen[v]++;
		lates_add(&l, f->dev - expiry[v]);
	}
	for (i = 0; i < MANY_TIMERS; i++) {
		if (seen[i] != 1)
			many_fail(r, "timer %d fired %d times", i, seen[i]);
		err = sys_timer_delete(ids[i]);
		if (err)
			many_fail(r, "timer_delete #%d: %s", i, errname(-err));
	}
	lates_sort(&l);
	r->n = l.n;
	r->early = l.early;
	r->worst = l.worst;
	r->p50 = lates_pct(&l, 50);
	r->max = lates_pct(&l, 100);
}

static void judge_many(struct __test_metadata *_metadata,
		       const struct many_res *r, int proc)
{
	EXPECT_EQ(0, r->bad) TH_LOG("process %d: %s", proc, r->why);
	EXPECT_EQ(0, r->early)
		TH_LOG("process %d: %d of %d expiries early, the earliest by %lld ns",
		       proc, r->early, r->n, -r->worst);
	TH_LOG("process %d: %d expiries, lateness p50 %.1f us, max %.1f us, armed in %.1f ms",
	       proc, r->n, r->p50 / 1e3, r->max / 1e3, r->armed / 1e6);
}

/* 100 timers in one process: each fires once, not early. */
TEST_F_TIMEOUT(posix_timers, many_timers, 90)
{
	const char *why = lacks(self, NEED_RUNNING);
	struct many_res r = { 0 };

	if (why)
		SKIP(return, "%s", why);
	arm_many(self->c.clk, &r, NULL);
	judge_many(_metadata, &r, 0);
}

/* MANY_PROCS processes with 100 timers each, armed on the same expiries. */
TEST_F_TIMEOUT(posix_timers, many_processes, 90)
{
	const char *why = lacks(self, NEED_RUNNING);
	int p[MANY_PROCS][2], i, status, started = 0;
	struct many_sync sync;
	pid_t pid[MANY_PROCS];
	struct many_res r;
	char byte;
	bool ok;
	s64 t0;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, pipe(sync.ready));
	ASSERT_EQ(0, pipe(sync.go));
	for (i = 0; i < MANY_PROCS; i++) {
		ASSERT_EQ(0, pipe(p[i]));
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i]) {
			memset(&r, 0, sizeof(r));
			arm_many(self->c.clk, &r, &sync);
			_exit(write(p[i][1], &r, sizeof(r)) != sizeof(r));
		}
	}
	while (started < MANY_PROCS &&
	       read_within(sync.ready[0], &byte, 1, SEC(5)))
		started++;
	EXPECT_EQ(MANY_PROCS, started);
	t0 = clock_ns(self->c.clk);
	for (i = 0; i < started; i++)
		ASSERT_EQ(sizeof(t0), write(sync.go[1], &t0, sizeof(t0)));
	for (i = 0; i < MANY_PROCS; i++) {
		ok = read_within(p[i][0], &r, sizeof(r), SEC(60));
		EXPECT_TRUE(ok) TH_LOG("process %d gave no result", i);
		if (ok)
			judge_many(_metadata, &r, i);
		EXPECT_TRUE(reap_within(pid[i], &status, SEC(1)));
	}
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

/* timer_gettime(): remaining time and interval in device time, twice. */
TEST_F(posix_timers, gettime)
{
	const char *why = lacks(self, NEED_RUNNING);
	s64 t0, t1, expiry, value, iv;
	int id, err, i;

	if (why)
		SKIP(return, "%s", why);
	err = tmr_create(self->c.clk, SIGEV_SIGNAL, 0, &id);
	ASSERT_EQ(0, err) TH_LOG("timer_create: %s", errname(-err));
	expiry = clock_ns(self->c.clk) + SEC(2);
	ASSERT_EQ(0, sys_timer_settime(id, TIMER_ABSTIME, expiry, MS(500)));
	for (i = 0; i < 2; i++) {
		t0 = clock_ns(self->c.clk);
		err = sys_timer_gettime(id, &value, &iv);
		t1 = clock_ns(self->c.clk);
		ASSERT_EQ(0, err) TH_LOG("timer_gettime: %s", errname(-err));
		judge_remaining(_metadata, i, value, SEC(2), expiry, t0, t1,
				pred_tol(self));
		EXPECT_EQ(MS(500), iv);
		pass_time(MS(100));
	}
	EXPECT_EQ(0, sys_timer_delete(id));
}

/* SIGEV_NONE: no signal; timer_gettime() counts down to 0, never early. */
TEST_F(posix_timers, sigev_none)
{
	const char *why = lacks(self, NEED_RUNNING);
	s64 t0, expiry, value = -1, iv, last, now = 0, start;
	int id, err;

	if (why)
		SKIP(return, "%s", why);
	err = tmr_create(self->c.clk, SIGEV_NONE, 0, &id);
	ASSERT_EQ(0, err) TH_LOG("timer_create: %s", errname(-err));
	t0 = clock_ns(self->c.clk);
	expiry = t0 + MS(200);
	ASSERT_EQ(0, sys_timer_settime(id, TIMER_ABSTIME, expiry, 0));
	/* Never more than armed, never more than the time before. */
	last = expiry - t0 + pred_tol(self);
	start = mono_ns();
	while (value && mono_ns() < start + SEC(3) + stall_max_ns()) {
		err = sys_timer_gettime(id, &value, &iv);
		now = clock_ns(self->c.clk);
		ASSERT_EQ(0, err) TH_LOG("timer_gettime: %s", errname(-err));
		ASSERT_GE(last, value) TH_LOG("%lld ns left, after %lld", value,
					      last);
		last = value;
		/* Close to the end, ask without pause: catch an early 0. */
		if (value > MS(10))
			pass_time(MS(5));
	}
	EXPECT_EQ(0, value) TH_LOG("timer_gettime still not 0 after 3 s");
	EXPECT_LE(expiry, now) TH_LOG("reached 0 %lld ns early", expiry - now);
	EXPECT_EQ(0, tsig_wait(1, 0));
	EXPECT_EQ(0, sys_timer_delete(id));
}

/*
 * Poll SIGEV_NONE timer @id, without pause for its last 20 ms, until it
 * reports 0: the device time read right after, or -1 after 3 s (and the
 * longest stall seen).
 */
static s64 none_expired_at(clockid_t clk, int id)
{
	s64 start = mono_ns(), value, iv, now;

	while (mono_ns() < start + SEC(3) + stall_max_ns()) {
		if (sys_timer_gettime(id, &value, &iv))
			return -1;
		now = clock_ns(clk);
		if (!value)
			return now;
		if (value > MS(20))
			pass_time(MS(5));
	}
	return -1;
}

/*
 * SIGEV_NONE right after the core measured the clock's rate over a short
 * span (a 1 ms relative timer): a timer 1 s ahead must not report 0
 * before the clock reaches its expiry, NONE_ROUNDS times.
 */
TEST_F_TIMEOUT(posix_timers, sigev_none_rate, 60)
{
	const char *why = lacks(self, NEED_DEVICE | NEED_RUNNING);
	struct lates l = { 0 }, probe = { 0 };
	int id, tick, err, i;
	s64 expiry, at;

	if (why)
		SKIP(return, "%s", why);
	err = tmr_create(self->c.clk, SIGEV_NONE, 0, &id);
	if (!err)
		err = tmr_create(self->c.clk, SIGEV_SIGNAL, 0, &tick);
	ASSERT_EQ(0, err) TH_LOG("timer_create: %s", errname(-err));
	for (i = 0; i < NONE_ROUNDS; i++) {
		one_shot(_metadata, self->c.clk, tick, false, MS(1), &probe);
		expiry = clock_ns(self->c.clk) + SEC(1);
		ASSERT_EQ(0, sys_timer_settime(id, TIMER_ABSTIME, expiry, 0));
		at = none_expired_at(self->c.clk, id);
		ASSERT_LE(0, at) TH_LOG("round %d: not 0 after 3 s", i);
		lates_add(&l, at - expiry);
	}
	judge_lates(_metadata, &l, UNBOUNDED);
	EXPECT_EQ(0, sys_timer_delete(id));
	EXPECT_EQ(0, sys_timer_delete(tick));
}

/*
 * A 10 ms periodic timer whose signal stays blocked for 200 ms: when it
 * is let in, timer_getoverrun() and si_overrun count the periods missed,
 * more than 0 and no more than the periods that passed.
 */
TEST_F(posix_timers, overrun)
{
	const char *why = lacks(self, NEED_RUNNING);
	const s64 iv = MS(10);
	int id, err, ov;
	s64 t0, most;

	if (why)
		SKIP(return, "%s", why);
	err = tmr_create(self->c.clk, SIGEV_SIGNAL, 0, &id);
	ASSERT_EQ(0, err) TH_LOG("timer_create: %s", errname(-err));
	t0 = clock_ns(self->c.clk);
	ASSERT_EQ(0, sys_timer_settime(id, 0, iv, iv));
	pass_time(MS(200));
	ASSERT_LE(1, tsig_wait(1, SEC(2))) TH_LOG("no signal");
	ov = syscall(SYS_timer_getoverrun, id);
	most = (tsig_nth(0)->dev - (t0 + iv)) / iv;
	EXPECT_LE(1, ov);
	EXPECT_GE(most, ov) TH_LOG("overrun %d, %lld periods passed", ov, most);
	EXPECT_EQ(ov, tsig_nth(0)->overrun);
	EXPECT_EQ(0, sys_timer_delete(id));
}

/* timer_delete() of an armed timer: it never fires, its id is gone. */
TEST_F(posix_timers, delete_armed)
{
	s64 value, iv;
	int id, err;

	err = tmr_create(self->c.clk, SIGEV_SIGNAL, 0, &id);
	ASSERT_EQ(0, err) TH_LOG("timer_create: %s", errname(-err));
	ASSERT_EQ(0, sys_timer_settime(id, 0, MS(50), MS(10)));
	ASSERT_EQ(0, sys_timer_delete(id));
	EXPECT_EQ(0, tsig_wait(1, MS(300)));
	EXPECT_EQ(-EINVAL, sys_timer_gettime(id, &value, &iv));
	EXPECT_EQ(-EINVAL, sys_timer_delete(id));
}

/*
 * timer_delete() racing the expiry: DELETE_ROUNDS timers armed 0 to 1 ms
 * ahead (every other one periodic, 100 us) and deleted 0 to 1 ms later.
 */
TEST_F_TIMEOUT(posix_timers, delete_race, 90)
{
	const char *why = lacks(self, NEED_RUNNING);
	int id, err, i;

	if (why)
		SKIP(return, "%s", why);
	for (i = 0; i < DELETE_ROUNDS; i++) {
		err = tmr_create(self->c.clk, SIGEV_SIGNAL, i, &id);
		ASSERT_EQ(0, err) TH_LOG("round %d: timer_create: %s", i,
					 errname(-err));
		err = sys_timer_settime(id, 0, (i * 7919) % MS(1) + 1,
					i % 2 ? US(100) : 0);
		ASSERT_EQ(0, err) TH_LOG("round %d: timer_settime: %s", i,
					 errname(-err));
		pass_time((i * 104729) % MS(1));
		err = sys_timer_delete(id);
		ASSERT_EQ(0, err) TH_LOG("round %d: timer_delete: %s", i,
					 errname(-err));
		/* Take what came meanwhile: the signal queue stays short. */
		tsig_take();
	}
	TH_LOG("%d rounds, %d signals came", i, tsig_count());
}

/* A timer id this process never had: EINVAL from every timer call. */
TEST_F(posix_timers, unknown_id)
{
	s64 value, iv;

	EXPECT_EQ(-EINVAL, sys_timer_settime(NO_SUCH_TIMER, 0, SEC(1), 0));
	EXPECT_EQ(-EINVAL, sys_timer_gettime(NO_SUCH_TIMER, &value, &iv));
	EXPECT_EQ(-1, syscall(SYS_timer_getoverrun, NO_SUCH_TIMER));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-EINVAL, sys_timer_delete(NO_SUCH_TIMER));
}

/* itimerspecs with tv_nsec out of range: EINVAL, the timer stays idle. */
TEST_F(posix_timers, bad_itimerspec)
{
	static const struct {
		const char *what;
		int flags;
		struct itimerspec its;
	} bad[] = {
		{ "it_value.tv_nsec 1000000000", 0,
		  { { 0, 0 }, { 0, 1000000000 } } },
		{ "it_value.tv_nsec -1", 0, { { 0, 0 }, { 1, -1 } } },
		{ "it_interval.tv_nsec 1000000000", 0,
		  { { 0, 1000000000 }, { 1, 0 } } },
		{ "it_value.tv_nsec 1000000000, TIMER_ABSTIME", TIMER_ABSTIME,
		  { { 0, 0 }, { PHC_BASE_S, 1000000000 } } },
	};
	s64 value, iv;
	size_t i;
	int id, err;

	err = tmr_create(self->c.clk, SIGEV_SIGNAL, 0, &id);
	ASSERT_EQ(0, err) TH_LOG("timer_create: %s", errname(-err));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err = syscall(SYS_timer_settime, id, bad[i].flags, &bad[i].its,
			      NULL) ? -errno : 0;
		EXPECT_EQ(-EINVAL, err) TH_LOG("%s: %s", bad[i].what,
					       err ? errname(-err) : "0");
	}
	ASSERT_EQ(0, sys_timer_gettime(id, &value, &iv));
	EXPECT_EQ(0, value);
	EXPECT_EQ(0, iv);
	EXPECT_EQ(0, sys_timer_delete(id));
}

/*
 * After the clock is removed under armed timers: timer_settime() and
 * timer_gettime() give ENODEV, no timer fires, timer_delete() gives 0,
 * and a new timer gets ENODEV.
 */
TEST_F(posix_timers, removal)
{
	static const struct {
		const char *what;
		int notify, flags;
		s64 value, interval;	/* from the clock's time when absolute */
	} armed[] = {
		{ "absolute one-shot", SIGEV_SIGNAL, TIMER_ABSTIME, FAR_AHEAD, 0 },
		{ "absolute periodic", SIGEV_SIGNAL, TIMER_ABSTIME, FAR_AHEAD,
		  SEC(1) },
		{ "relative one-shot", SIGEV_SIGNAL, 0, SEC(30), 0 },
		{ "SIGEV_NONE", SIGEV_NONE, TIMER_ABSTIME, FAR_AHEAD, 0 },
	};
	clockid_t clk = self->c.clk;
	int ids[ARRAY_SIZE(armed)], id, err;
	s64 t0 = clock_ns(clk), value, iv;
	size_t i;

	if (self->c.id < 0)
		SKIP(return, "%s: not made by the test: it cannot remove it",
		     self->c.name);
	for (i = 0; i < ARRAY_SIZE(armed); i++) {
		ASSERT_EQ(0, tmr_create(clk, armed[i].notify, i, &ids[i]));
		err = sys_timer_settime(ids[i], armed[i].flags,
					armed[i].value + (armed[i].flags ? t0 : 0),
					armed[i].interval);
		ASSERT_EQ(0, err) TH_LOG("%s: %s", armed[i].what,
					 errname(-err));
	}
	err = test_clock_remove(&self->c);
	ASSERT_EQ(0, err) TH_LOG("removing %s: %s", self->c.name,
				 errname(-err));
	for (i = 0; i < ARRAY_SIZE(armed); i++) {
		err = sys_timer_settime(ids[i], 0, MS(10), 0);
		EXPECT_EQ(-ENODEV, err) TH_LOG("timer_settime, %s: %s",
					       armed[i].what, errname(-err));
		err = sys_timer_gettime(ids[i], &value, &iv);
		EXPECT_EQ(-ENODEV, err) TH_LOG("timer_gettime, %s: %s",
					       armed[i].what, errname(-err));
	}
	EXPECT_EQ(0, tsig_wait(1, MS(500)))
		TH_LOG("a signal of timer %d after the removal", tsig_nth(0)->value);
	for (i = 0; i < ARRAY_SIZE(armed); i++) {
		err = sys_timer_delete(ids[i]);
		EXPECT_EQ(0, err) TH_LOG("timer_delete, %s: %s", armed[i].what,
					 errname(-err));
	}
	err = tmr_create(clk, SIGEV_SIGNAL, 0, &id);
	EXPECT_EQ(-ENODEV, err) TH_LOG("timer_create: %s", errname(-err));
}

TEST_HARNESS_MAIN
