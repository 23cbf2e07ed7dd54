// SPDX-License-Identifier: GPL-2.0
/*
 * clock_nanosleep() on dynamic clocks: what is particular to sleeping.
 *
 * A handled signal ends a sleep with EINTR, and a relative sleep reports
 * the time it had left.  A stop and continue (SIGSTOP, SIGCONT) restart
 * the sleep transparently, keeping its absolute expiry: on the same clock
 * even when the fd it was made from was closed meanwhile, and with ENODEV
 * when the clock was removed meanwhile.  Removing the clock ends a sleep
 * with ENODEV at once, and a new sleep on it fails with ENODEV.
 *
 * Each test runs on a ptp_sim clock, one whose every read sleeps,
 * netdevsim's mock PHC and, for reference, CLOCK_MONOTONIC.  Plain
 * expiries, steps and the clock pinned by a sleeper are tested with the
 * other kinds of timer in timers.c.
 *
 * The duration of a sleep is measured in the clock's own time, read right
 * before and after it.  A sleep that ends early is always a failure; one
 * that ends more than LATE_MAX_NS late, plus the longest stall of the
 * process (a TCG guest on a loaded host stalls for up to a second), too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "clockdev_util.h"

/* Latest acceptable end of a sleep, on top of the stalls seen. */
#define LATE_MAX_NS		MS(200)
/* How soon a sleeper must see an event (a removal, a signal): plus stalls. */
#define PROMPT_NS		MS(100)
/*
 * How far the remaining time of an interrupted sleep may be off: the
 * core answers from its prediction of the device time, without a read.
 */
#define PRED_TOL_NS		MS(2)
/* A running clock starts here, far from CLOCK_REALTIME. */
#define BASE_NS			SEC(1000)
/* Long enough never to end during a test. */
#define FAR_AHEAD		SEC(3600)
/* The sleep that a signal interrupts, and when the signal comes. */
#define EINTR_SLEEP		SEC(2)
#define EINTR_AFTER		MS(200)
/* A sleep stopped STOP_AFTER into it, for STOP_FOR. */
#define STOP_SLEEP		SEC(1)
#define STOP_AFTER		MS(200)
#define STOP_FOR		MS(500)

static s64 late_bound(void)
{
	return LATE_MAX_NS + stall_max_ns();
}

static s64 prompt_bound(void)
{
	return PROMPT_NS + stall_max_ns();
}

/*
 * How far the core's prediction may run ahead of the clock: it maps from
 * the boot time before its last read, so a read that a stall stretched
 * puts it ahead by as much.
 */
static s64 ahead_bound(void)
{
	return PRED_TOL_NS + stall_max_ns();
}

static int got_usr1;

static void on_usr1(int sig)
{
	__atomic_store_n(&got_usr1, 1, __ATOMIC_RELAXED);
}

FIXTURE(nanosleep) {
	struct test_clock c;
};

FIXTURE_VARIANT(nanosleep) {
	enum clock_kind kind;
};

FIXTURE_VARIANT_ADD(nanosleep, ptp_sim) {
	.kind = CK_PTP_SIM,
};

FIXTURE_VARIANT_ADD(nanosleep, ptp_sim_sleeping) {
	.kind = CK_PTP_SIM_SLOW,
};

FIXTURE_VARIANT_ADD(nanosleep, mock_phc) {
	.kind = CK_MOCK_PHC,
};

FIXTURE_VARIANT_ADD(nanosleep, monotonic) {
	.kind = CK_MONOTONIC,
};

FIXTURE_SETUP(nanosleep)
{
	/* No SA_RESTART: a handled SIGUSR1 ends a sleep with EINTR. */
	struct sigaction usr1 = { .sa_handler = on_usr1 };
	char why[256];
	sigset_t set;
	int err;

	err = test_clock_make(&self->c, variant->kind, why, sizeof(why));
	if (err)
		SKIP(return, "%s", why);
	/* A skipped or failed setup gets no teardown: clean up here. */
	err = probe_nanosleep(self->c.clk);
	if (err) {
		test_clock_destroy(&self->c);
		SKIP(return, "clock_nanosleep on %s: %s: no sleeps on dynamic clocks",
		     self->c.name, errname(-err));
	}
	if (!test_clock_static(&self->c)) {
		err = sys_clock_settime(self->c.clk, BASE_NS);
		if (err)
			test_clock_destroy(&self->c);
		ASSERT_EQ(0, err) TH_LOG("clock_settime on %s: %s",
					 self->c.name, errname(-err));
	}
	/* SIGUSR1 is let in only around a sleep, in the test's thread. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigaction(SIGUSR1, &usr1, NULL);
	stall_monitor_start();
}

FIXTURE_TEARDOWN(nanosleep)
{
	test_clock_destroy(&self->c);
}

/* clock_nanosleep(); the system call itself, so that @rem shows whether it was written. */
static int nsleep(clockid_t clk, bool abs, s64 t, struct timespec *rem)
{
	struct timespec ts = ns_ts(t);

	if (syscall(SYS_clock_nanosleep, clk, abs ? TIMER_ABSTIME : 0, &ts, rem))
		return errno;
	return 0;
}

/*
 * A sleep of EINTR_SLEEP, and SIGUSR1 with a handler sent to the sleeping
 * thread EINTR_AFTER in: the sleep ends with EINTR, soon after the signal.
 * An absolute sleep leaves the remaining time alone; a relative one
 * reports what was left: no more than it asked for, no less than what was
 * left when it returned (less the prediction's error), no more than that
 * by as much as an expiry may be late.
 */
static void sleep_eintr(struct __test_metadata *_metadata, const struct test_clock *c, bool abs)
{
	struct timespec rem = { -1, -1 };
	s64 t0, t1, m0, m1, left, lo, hi;
	sigset_t usr1;
	int id, err;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	err = sys_timer_create(CLOCK_MONOTONIC, SIGEV_THREAD_ID, SIGUSR1, 0, gettid(), &id);
	ASSERT_EQ(0, err) TH_LOG("timer_create(CLOCK_MONOTONIC): %s", errname(-err));
	ASSERT_EQ(0, sys_timer_settime(id, 0, EINTR_AFTER, 0));
	pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	m0 = mono_ns();
	t0 = clock_ns(c->clk);
	err = nsleep(c->clk, abs, abs ? t0 + EINTR_SLEEP : EINTR_SLEEP, &rem);
	t1 = clock_ns(c->clk);
	m1 = mono_ns();
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	sys_timer_delete(id);

	ASSERT_EQ(EINTR, err) TH_LOG("clock_nanosleep on %s: %s after %.1f ms, want EINTR",
				     c->name, err ? errname(err) : "0", (m1 - m0) / 1e6);
	EXPECT_TRUE(__atomic_load_n(&got_usr1, __ATOMIC_RELAXED));
	EXPECT_LE(m1 - m0, EINTR_AFTER + prompt_bound())
		TH_LOG("EINTR %.1f ms after a signal sent at %.1f ms",
		       (m1 - m0) / 1e6, EINTR_AFTER / 1e6);
	if (abs) {
		EXPECT_TRUE(rem.tv_sec == -1 && rem.tv_nsec == -1)
			TH_LOG("an absolute sleep wrote the remaining time");
		return;
	}
	left = ts_ns(&rem);
	lo = EINTR_SLEEP - (t1 - t0) - ahead_bound();
	hi = EINTR_SLEEP - (t1 - t0) + PRED_TOL_NS + late_bound();
	EXPECT_LE(left, EINTR_SLEEP);
	EXPECT_GE(left, lo) TH_LOG("remaining %lld ns, want %lld..%lld", left, lo, hi);
	EXPECT_LE(left, hi) TH_LOG("remaining %lld ns, want %lld..%lld", left, lo, hi);
	TH_LOG("%s: %.3f ms left after %.3f ms of device time", c->name, left / 1e6,
	       (t1 - t0) / 1e6);
}

TEST_F(nanosleep, eintr_relative)
{
	sleep_eintr(_metadata, &self->c, false);
}

TEST_F(nanosleep, eintr_abstime)
{
	sleep_eintr(_metadata, &self->c, true);
}

/* What happens to the clock while a sleeper is stopped. */
enum stop_action {
	STOP_ONLY,		/* nothing: the sleep goes on when continued */
	STOP_CLOSE_FD,		/* the fd slept on is closed */
	STOP_REMOVE,		/* the clock is removed */
};

/**
 * struct sleeper - a process sleeping on a clock, and what it saw
 * @sleep_clk: the clockid it sleeps on
 * @read_clk:  the clockid it measures the sleep with
 * @abs:       TIMER_ABSTIME, at its first read of @read_clk plus @len
 * @len:       how long it sleeps, in the clock's ns
 * @pipe:      the pipe it writes @err, @dev and @mono to
 * @err:       what clock_nanosleep() returned: 0 or an errno
 * @dev:       the clock's ns the sleep took
 * @mono:      CLOCK_MONOTONIC when it returned
 * @pid:       the process
 */
struct sleeper {
	clockid_t sleep_clk;
	clockid_t read_clk;
	bool abs;
	s64 len;
	int pipe[2];
	int err;
	s64 dev;
	s64 mono;
	pid_t pid;
};

static int sleeper_fn(void *arg)
{
	struct sleeper *s = arg;
	s64 t0 = clock_ns(s->read_clk);

	s->err = nsleep(s->sleep_clk, s->abs, s->abs ? t0 + s->len : s->len, NULL);
	s->mono = mono_ns();
	s->dev = clock_ns(s->read_clk) - t0;
	return write(s->pipe[1], s, sizeof(*s)) != sizeof(*s);
}

/*
 * Start @s in a process of its own, sharing this one's file table when
 * @share_files (then closing a fd here closes it there), and wait until
 * it is asleep: 0, or -errno.
 */
static int sleeper_start(struct sleeper *s, bool share_files)
{
	/* Copied into the child (no CLONE_VM); clone() aligns the top. */
	static char stack[64 * 1024];

	if (pipe(s->pipe))
		return -errno;
	s->pid = clone(sleeper_fn, stack + sizeof(stack),
		       (share_files ? CLONE_FILES : 0) | SIGCHLD, s);
	if (s->pid < 0)
		return -errno;
	/* A read of a sleeping clock sleeps too: let the sleep begin. */
	if (!wait_task_state(s->pid, s->pid, 'S', SEC(2)))
		return -ETIMEDOUT;
	pass_time(STOP_AFTER);
	return task_state(s->pid, s->pid) == 'S' ? 0 : -ESRCH;
}

/* What the sleeper reports within @timeout_ns, reaped: true, or false. */
static bool sleeper_result(struct sleeper *s, s64 timeout_ns)
{
	struct sleeper got;
	bool ok;
	int status;

	ok = read_within(s->pipe[0], &got, sizeof(got), timeout_ns);
	if (ok) {
		s->err = got.err;
		s->dev = got.dev;
		s->mono = got.mono;
	}
	if (!reap_within(s->pid, &status, SEC(2)))
		ok = false;
	close(s->pipe[0]);
	close(s->pipe[1]);
	return ok;
}

/*
 * A sleep in another process, stopped STOP_AFTER into it for STOP_FOR,
 * with @what done meanwhile.  Continued, it goes on to its absolute
 * expiry, and returns 0 after @len (not @len + STOP_FOR), even when the fd
 * it was made from was closed; on a removed clock it fails with ENODEV
 * at once.
 */
static void sleep_stop(struct __test_metadata *_metadata, struct test_clock *c, bool abs,
		       enum stop_action what)
{
	struct sleeper s = {
		.sleep_clk = c->clk, .read_clk = c->clk, .abs = abs,
		.len = what == STOP_REMOVE ? FAR_AHEAD : STOP_SLEEP,
	};
	/* The removed clock's sleep ends at once, not after @len. */
	s64 timeout = (what == STOP_REMOVE ? 0 : s.len) + SEC(3), m0;
	int fd = -1, err;

	if (what == STOP_CLOSE_FD) {
		/* Sleep through a second fd; measure through the first. */
		fd = test_clock_open(c, O_RDONLY);
		ASSERT_LE(0, fd) TH_LOG("open %s: %s", c->path, errname(-fd));
		s.sleep_clk = FD_TO_CLOCKID(fd);
	}
	err = sleeper_start(&s, what == STOP_CLOSE_FD);
	if (err && s.pid > 0) {
		kill(s.pid, SIGKILL);
		waitpid(s.pid, NULL, 0);
	}
	ASSERT_EQ(0, err) TH_LOG("the sleeper did not sleep: %s", errname(-err));

	kill(s.pid, SIGSTOP);
	EXPECT_TRUE(wait_task_state(s.pid, s.pid, 'T', SEC(2)))
		TH_LOG("the sleeper did not stop");
	if (what == STOP_CLOSE_FD) {
		EXPECT_EQ(0, close(fd));
	} else if (what == STOP_REMOVE) {
		err = test_clock_remove(c);
		EXPECT_EQ(0, err) TH_LOG("removing %s: %s", c->name, errname(-err));
	}
	pass_time(STOP_FOR);
	m0 = mono_ns();
	kill(s.pid, SIGCONT);

	ASSERT_TRUE(sleeper_result(&s, timeout))
		TH_LOG("no result %.0f ms after SIGCONT", timeout / 1e6);
	if (what == STOP_REMOVE) {
		EXPECT_EQ(ENODEV, s.err) TH_LOG("clock_nanosleep after the removal: %s",
						s.err ? errname(s.err) : "0");
		EXPECT_LE(s.mono - m0, prompt_bound())
			TH_LOG("returned %.1f ms after SIGCONT", (s.mono - m0) / 1e6);
		return;
	}
	EXPECT_EQ(0, s.err) TH_LOG("clock_nanosleep: %s", errname(s.err));
	if (s.err)
		return;
	EXPECT_LE(s.len, s.dev) TH_LOG("slept %lld ns of %lld: early", s.dev, s.len);
	EXPECT_LE(s.dev, s.len + late_bound())
		TH_LOG("slept %.1f ms, want %.0f..%.1f (%.0f ms more: restarted in full?)",
		       s.dev / 1e6, s.len / 1e6, (s.len + late_bound()) / 1e6,
		       STOP_FOR / 1e6);
	TH_LOG("%s: slept %.3f ms of device time", c->name, s.dev / 1e6);
}

TEST_F(nanosleep, stop_relative)
{
	sleep_stop(_metadata, &self->c, false, STOP_ONLY);
}

TEST_F(nanosleep, stop_abstime)
{
	sleep_stop(_metadata, &self->c, true, STOP_ONLY);
}

TEST_F(nanosleep, stop_closed_fd_relative)
{
	if (test_clock_static(&self->c))
		SKIP(return, "%s has no fd to close", self->c.name);
	sleep_stop(_metadata, &self->c, false, STOP_CLOSE_FD);
}

TEST_F(nanosleep, stop_closed_fd_abstime)
{
	if (test_clock_static(&self->c))
		SKIP(return, "%s has no fd to close", self->c.name);
	sleep_stop(_metadata, &self->c, true, STOP_CLOSE_FD);
}

TEST_F(nanosleep, stop_removed_relative)
{
	if (test_clock_static(&self->c))
		SKIP(return, "%s cannot be removed", self->c.name);
	sleep_stop(_metadata, &self->c, false, STOP_REMOVE);
}

TEST_F(nanosleep, stop_removed_abstime)
{
	if (test_clock_static(&self->c))
		SKIP(return, "%s cannot be removed", self->c.name);
	sleep_stop(_metadata, &self->c, true, STOP_REMOVE);
}

/*
 * Remove the clock under a relative and an absolute sleep, each an hour
 * long: both end with ENODEV within PROMPT_NS of the removal; then a new
 * sleep on the clock, relative or absolute, fails with ENODEV.
 */
TEST_F(nanosleep, removal)
{
	const clockid_t clk = self->c.clk;
	struct sleeper s[2] = {
		{ .sleep_clk = clk, .read_clk = clk, .len = FAR_AHEAD },
		{ .sleep_clk = clk, .read_clk = clk, .len = FAR_AHEAD, .abs = true },
	};
	s64 removed;
	int i, err;

	if (test_clock_static(&self->c))
		SKIP(return, "%s cannot be removed", self->c.name);
	for (i = 0; i < 2; i++) {
		err = sleeper_start(&s[i], false);
		if (err) {
			for (; i >= 0; i--)
				if (s[i].pid > 0)
					kill(s[i].pid, SIGKILL);
		}
		ASSERT_EQ(0, err) TH_LOG("the sleeper did not sleep: %s", errname(-err));
	}
	err = test_clock_remove(&self->c);
	removed = mono_ns();
	EXPECT_EQ(0, err) TH_LOG("removing %s: %s", self->c.name, errname(-err));

	for (i = 0; i < 2; i++) {
		const char *what = s[i].abs ? "absolute" : "relative";

		bool ok = sleeper_result(&s[i], SEC(2));

		EXPECT_TRUE(ok) TH_LOG("%s sleep: no result 2 s after the removal", what);
		if (!ok)
			continue;
		EXPECT_EQ(ENODEV, s[i].err) TH_LOG("%s sleep: %s, want ENODEV", what,
						   s[i].err ? errname(s[i].err) : "0");
		EXPECT_LE(s[i].mono - removed, prompt_bound())
			TH_LOG("%s sleep: returned %.1f ms after the removal", what,
			       (s[i].mono - removed) / 1e6);
	}
	err = sys_clock_nanosleep(self->c.clk, 0, 0, NULL);
	EXPECT_EQ(-ENODEV, err) TH_LOG("a new relative sleep: %s", errname(-err));
	err = sys_clock_nanosleep(self->c.clk, TIMER_ABSTIME, 0, NULL);
	EXPECT_EQ(-ENODEV, err) TH_LOG("a new absolute sleep: %s", errname(-err));
}

TEST_HARNESS_MAIN
