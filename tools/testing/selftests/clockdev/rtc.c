// SPDX-License-Identifier: GPL-2.0
/*
 * RTC clocks, /dev/rtcclockN, through their fd clockid: reading, setting,
 * the permission table, timers from two processes, sleeps, timerfd, steps
 * of the RTC, and its driver unbound under armed timers, then bound again.
 * On rtc_cmos's RTC, rtc-test.1 (an alarm made of a kernel timer) and
 * rtc-test.0 (no alarm: timers take the core's generic path and need no
 * CAP_WAKE_ALARM).  A kernel without RTC clocks skips every test.
 *
 * Times are RTC seconds.  "Never early" is checked in the RTC's time (a
 * read at the expiry is at or past it) and in real time (CLOCK_MONOTONIC).
 * A test that steps the RTC sets it back in its teardown.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/rtc.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clockdev_util.h"
#include "../kselftest_harness.h"

#define SIG_TIMER	(SIGRTMIN + 1)
/*
 * How late a timer may fire in real time: its delay rounded up to a second
 * plus one (the read it is anchored on is up to a second behind), an eighth
 * of a second for an RTC without an alarm (read that often), the worker's
 * and the signal's way.  Bounds add the longest stall, stall_max_ns().
 */
#define LATE_MAX_NS	MS(2500)
/* A timer that a step made due fires within this. */
#define PROMPT_NS	MS(2000)
/* A sleeper wakes with ENODEV this soon after the RTC is removed. */
#define GONE_NS		MS(100)

/*
 * struct rtc_time is the head of struct tm, field for field: RTC_RD_TIME
 * and RTC_SET_TIME take a struct tm, as hwclock passes them.
 */
static_assert(sizeof(struct rtc_time) <= sizeof(struct tm) &&
	      offsetof(struct rtc_time, tm_year) == offsetof(struct tm, tm_year),
	      "struct rtc_time is not the head of struct tm");

FIXTURE(rtc) {
	struct test_clock c;
	int timers;		/* probe_timer_create(): 0 or -errno */
	int timerfd;		/* probe_timerfd() */
	int nanosleep;		/* probe_nanosleep() */
	bool stepped;		/* the teardown sets the RTC back */
	s64 saved_rtc;		/* the RTC then, in seconds ... */
	s64 saved_mono;		/* ... and CLOCK_MONOTONIC */
	char why[192];		/* what lacks() found missing */
};

/*
 * @alarm: the RTC has an alarm, so that its clock's timers wake the system
 * and creating one needs CAP_WAKE_ALARM.
 */
FIXTURE_VARIANT(rtc) {
	enum clock_kind kind;
	bool alarm;
};

FIXTURE_VARIANT_ADD(rtc, cmos) {
	.kind = CK_RTC_CMOS,
	.alarm = true,
};

FIXTURE_VARIANT_ADD(rtc, test_alarm) {
	.kind = CK_RTC,
	.alarm = true,
};

FIXTURE_VARIANT_ADD(rtc, test_noalarm) {
	.kind = CK_RTC_NOALARM,
	.alarm = false,
};

/* The RTC clock's time in seconds, or -1 with errno set. */
static s64 rtc_sec(const struct test_clock *c)
{
	s64 ns = clock_ns(c->clk);

	return ns < 0 ? -1 : ns / NSEC_PER_SEC;
}

/* An RTC ioctl taking a struct tm, on @c's /dev/rtcN: 0 or -errno. */
static int rtc_ioctl(const struct test_clock *c, unsigned long req,
		     struct tm *tm)
{
	int fd, err;

	fd = open(c->rtc, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = ioctl(fd, req, tm) ? -errno : 0;
	close(fd);
	return err;
}

/* /dev/rtcN's view through RTC_RD_TIME: seconds, or -errno. */
static s64 rtc_rd_time(const struct test_clock *c)
{
	struct tm tm = { 0 };
	int err;

	err = rtc_ioctl(c, RTC_RD_TIME, &tm);
	return err ? err : timegm(&tm);
}

/* Set the RTC through /dev/rtcN (RTC_SET_TIME), as hwclock does. */
static int rtc_set_time(const struct test_clock *c, s64 sec)
{
	time_t t = sec;
	struct tm tm;

	gmtime_r(&t, &tm);
	return rtc_ioctl(c, RTC_SET_TIME, &tm);
}

/* Remember the RTC's time, for the teardown to set it back. */
static void rtc_save(struct _test_data_rtc *self)
{
	self->saved_rtc = rtc_sec(&self->c);
	self->saved_mono = mono_ns();
	self->stepped = self->saved_rtc >= 0;
}

/* The time the RTC would have now had nobody stepped it. */
static s64 rtc_unstepped(struct _test_data_rtc *self)
{
	return self->saved_rtc +
	       (mono_ns() - self->saved_mono + NSEC_PER_SEC / 2) / NSEC_PER_SEC;
}

FIXTURE_SETUP(rtc)
{
	char why[256];
	int err;

	err = test_clock_make(&self->c, variant->kind, why, sizeof(why));
	if (err)
		SKIP(return, "%s", why);
	self->timers = probe_timer_create(self->c.clk);
	self->timerfd = probe_timerfd(self->c.clk);
	self->nanosleep = probe_nanosleep(self->c.clk);
}

FIXTURE_TEARDOWN(rtc)
{
	if (self->stepped && !self->c.removed &&
	    rtc_set_time(&self->c, rtc_unstepped(self)))
		TH_LOG("could not set %s back", self->c.rtc);
	test_clock_destroy(&self->c);
}

enum { NEED_TIMERS = 1, NEED_TIMERFD = 2, NEED_NANOSLEEP = 4 };

/* Whether this kernel lacks what a test needs (@need), said in @self->why. */
static bool lacks(struct _test_data_rtc *self, int need)
{
	const char *call = "timer_create", *what = "timers";
	int err = need & NEED_TIMERS ? self->timers : 0;

	if (!err && (need & NEED_TIMERFD)) {
		call = "timerfd_create";
		err = self->timerfd;
	}
	if (!err && (need & NEED_NANOSLEEP)) {
		call = "clock_nanosleep";
		what = "sleeps";
		err = self->nanosleep;
	}
	if (err)
		snprintf(self->why, sizeof(self->why),
			 "%s on %s: %s: no %s on dynamic clocks", call,
			 self->c.path, errname(-err), what);
	return err;
}

/* Block SIG_TIMER (taken by sigtimedwait()), then watch for stalls. */
static void block_timer_signal(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIG_TIMER);
	sigprocmask(SIG_BLOCK, &set, NULL);
	stall_monitor_start();
}

/* Wait up to @ns for SIG_TIMER: the signal's value, or -errno. */
static int wait_timer_signal(s64 ns, int *value)
{
	struct timespec limit = ns_ts(ns);
	siginfo_t si;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIG_TIMER);
	if (sigtimedwait(&set, &si, &limit) != SIG_TIMER)
		return -errno;
	if (value)
		*value = si.si_value.sival_int;
	return 0;
}

TEST_F(rtc, open)
{
	int fds[3], modes[3] = { O_RDWR, O_RDONLY, O_RDWR };
	int i, r1, r2, st;
	pid_t pid;

	/* Three more descriptors beside the fixture's, at once. */
	for (i = 0; i < 3; i++) {
		fds[i] = test_clock_open(&self->c, modes[i]);
		ASSERT_LE(0, fds[i])
			TH_LOG("open #%d of %s: %s", i + 2, self->c.path,
			       errname(-fds[i]));
	}
	/* Another process opens it and reads it meanwhile. */
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = test_clock_open(&self->c, O_RDONLY);

		_exit(fd < 0 ? 1 : clock_ns(FD_TO_CLOCKID(fd)) < 0 ? 2 : 0);
	}
	ASSERT_TRUE(reap_within(pid, &st, SEC(10)));
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st))
		TH_LOG("a second process: status 0x%x (1: open, 2: read)", st);

	/* /dev/rtcN is unchanged: one opener, of any process. */
	r1 = open(self->c.rtc, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, r1) TH_LOG("open %s: %s", self->c.rtc, errname(errno));
	r2 = open(self->c.rtc, O_RDONLY | O_CLOEXEC);
	EXPECT_EQ(-EBUSY, r2 < 0 ? -errno : 0)
		TH_LOG("second open of %s", self->c.rtc);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(open(self->c.rtc, O_RDONLY) < 0 && errno == EBUSY ? 0 : 1);
	ASSERT_TRUE(reap_within(pid, &st, SEC(10)));
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st))
		TH_LOG("an open of %s by another process did not fail with EBUSY",
		       self->c.rtc);
	close(r1);
	for (i = 0; i < 3; i++)
		close(fds[i]);
}

/* clock_gettime is RTC_RD_TIME's time; clock_getres one second. */
static void check_read(struct __test_metadata *_metadata,
		       struct _test_data_rtc *self)
{
	struct timespec ts, res;
	s64 via_ioctl, m0, m1;

	m0 = mono_ns();
	via_ioctl = rtc_rd_time(&self->c);
	ASSERT_LE(0, via_ioctl)
		TH_LOG("RTC_RD_TIME: %s", errname(-via_ioctl));
	ASSERT_EQ(0, syscall(SYS_clock_gettime, self->c.clk, &ts))
		TH_LOG("clock_gettime: %s", errname(errno));
	m1 = mono_ns();
	EXPECT_EQ(0, ts.tv_nsec);
	/* A second boundary may pass between the reads, or more if stalled. */
	EXPECT_LE(via_ioctl, ts.tv_sec);
	EXPECT_GE(via_ioctl + 1 + (m1 - m0) / NSEC_PER_SEC, ts.tv_sec);
	ASSERT_EQ(0, syscall(SYS_clock_getres, self->c.clk, &res))
		TH_LOG("clock_getres: %s", errname(errno));
	EXPECT_EQ(1, res.tv_sec);
	EXPECT_EQ(0, res.tv_nsec);
}

TEST_F(rtc, read)
{
	check_read(_metadata, self);
}

TEST_F(rtc, set)
{
	s64 t0, want, got;

	rtc_save(self);
	t0 = self->saved_rtc;
	ASSERT_LE(0, t0) TH_LOG("clock_gettime: %s", errname(errno));
	want = t0 + 100000;
	/* The fraction of a second is dropped. */
	ASSERT_EQ(0, sys_clock_settime(self->c.clk, SEC(want) + MS(700)));
	got = rtc_rd_time(&self->c);
	EXPECT_LE(want, got);
	EXPECT_GE(want + 1 + (mono_ns() - self->saved_mono) / NSEC_PER_SEC, got);

	/* Set back through /dev/rtcN, the clock follows. */
	want = rtc_unstepped(self);
	ASSERT_EQ(0, rtc_set_time(&self->c, want));
	self->stepped = false;
	got = rtc_sec(&self->c);
	EXPECT_LE(want, got);
	EXPECT_GE(want + 2, got);
}

/*
 * The permission table.  Each row in a child of its own, which opens the
 * clock with @mode, drops the capabilities in @drop (capset: effective and
 * permitted) and tries every call.
 */
enum { DROP_SYS_TIME = 1, DROP_WAKE_ALARM = 2 };

static void drop_cap(int cap)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		_exit(10);
	d[cap / 32].effective &= ~(1U << (cap % 32));
	d[cap / 32].permitted &= ~(1U << (cap % 32));
	if (syscall(SYS_capset, &h, d))
		_exit(11);
}

static void perm_row(struct __test_metadata *_metadata,
		     struct _test_data_rtc *self,
		     const struct _fixture_variant_rtc *variant,
		     int mode, int drop)
{
	int want_set, want_adj, want_wake, fd, id, err;
	struct timex tx0 = { 0 };
	clockid_t clk;
	char row[80];
	s64 now;

	snprintf(row, sizeof(row), "%s, %sCAP_SYS_TIME, %sCAP_WAKE_ALARM",
		 mode == O_RDONLY ? "O_RDONLY" : "O_RDWR",
		 drop & DROP_SYS_TIME ? "no " : "",
		 drop & DROP_WAKE_ALARM ? "no " : "");
	fd = test_clock_open(&self->c, mode);
	if (fd < 0)
		_exit(12);
	clk = FD_TO_CLOCKID(fd);
	if (drop & DROP_SYS_TIME)
		drop_cap(CAP_SYS_TIME);
	if (drop & DROP_WAKE_ALARM)
		drop_cap(CAP_WAKE_ALARM);

	want_set = mode == O_RDONLY ? -EACCES :
		   drop & DROP_SYS_TIME ? -EPERM : 0;
	want_adj = mode == O_RDONLY ? -EACCES : -EOPNOTSUPP;
	/* Timers on an RTC with an alarm wake the system. */
	want_wake = variant->alarm && (drop & DROP_WAKE_ALARM) ? -EPERM : 0;

	now = clock_ns(clk);
	EXPECT_LE(0, now) TH_LOG("%s: clock_gettime: %s", row, errname(errno));
	/* Set it to what it reads: no change when allowed. */
	err = sys_clock_settime(clk, now);
	EXPECT_EQ(want_set, err)
		TH_LOG("%s: clock_settime: %s", row, errname(-err));
	err = sys_clock_freq(clk, 0);
	EXPECT_EQ(want_adj, err)
		TH_LOG("%s: ADJ_FREQUENCY: %s", row, errname(-err));
	err = syscall(SYS_clock_adjtime, clk, &tx0) < 0 ? -errno : 0;
	EXPECT_EQ(0, err) TH_LOG("%s: clock_adjtime(0): %s", row, errname(-err));
	err = sys_timer_create(clk, SIGEV_NONE, 0, 0, 0, &id);
	EXPECT_EQ(self->timers ?: want_wake, err)
		TH_LOG("%s: timer_create: %s", row, errname(-err));
	err = probe_timerfd(clk);
	EXPECT_EQ(self->timerfd ?: want_wake, err)
		TH_LOG("%s: timerfd_create: %s", row, errname(-err));
	/* An absolute sleep until 1970 returns at once when allowed. */
	err = sys_clock_nanosleep(clk, TIMER_ABSTIME, 0, NULL);
	EXPECT_EQ(self->nanosleep ?: want_wake, err)
		TH_LOG("%s: clock_nanosleep: %s", row, errname(-err));
	_exit(0);
}

TEST_F(rtc, permissions)
{
	static const int modes[] = { O_RDONLY, O_RDWR };
	int m, drop, st;
	pid_t pid;

	for (m = 0; m < 2; m++)
		for (drop = 0; drop < 4; drop++) {
			fflush(NULL);
			pid = fork();
			ASSERT_LE(0, pid);
			if (!pid)
				perm_row(_metadata, self, variant, modes[m], drop);
			ASSERT_TRUE(reap_within(pid, &st, SEC(20)));
			ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st))
				TH_LOG("row %d: status 0x%x (10-11: capget/capset, 12: open)",
				       m * 4 + drop, st);
		}
}

/* What a timer's process tells the test about one expiry. */
struct fired {
	int delay;		/* the timer's delay, s */
	s64 armed_rtc;		/* the RTC read just before arming */
	s64 armed_mono;		/* CLOCK_MONOTONIC just before arming */
	s64 rtc;		/* the RTC read when the signal came */
	s64 mono;		/* CLOCK_MONOTONIC then */
};

/*
 * A process of its own arms relative timers of @delays s on the clock and
 * writes a struct fired to @wfd for each expiry; its exit status says what
 * failed (1: arming, 2: no expiry within 15 s, 3: the pipe).
 */
static void arm_and_wait(const struct test_clock *c, int wfd,
			 const int *delays, int n)
{
	struct fired f[4];
	int fd, id, i, v;

	fd = test_clock_open(c, O_RDONLY);
	block_timer_signal();
	for (i = 0; i < n; i++) {
		f[i].delay = delays[i];
		f[i].armed_mono = mono_ns();
		f[i].armed_rtc = rtc_sec(c);
		if (fd < 0 ||
		    sys_timer_create(FD_TO_CLOCKID(fd), SIGEV_SIGNAL, SIG_TIMER,
				     i, 0, &id) ||
		    sys_timer_settime(id, 0, SEC(delays[i]), 0))
			_exit(1);
	}
	for (i = 0; i < n; i++) {
		if (wait_timer_signal(SEC(15), &v) || v < 0 || v >= n)
			_exit(2);
		f[v].mono = mono_ns();
		f[v].rtc = rtc_sec(c);
		if (write(wfd, &f[v], sizeof(f[v])) != sizeof(f[v]))
			_exit(3);
	}
	_exit(0);
}

/* Timers of 2 and 5 s in one process, of 3 s in another. */
TEST_F(rtc, order)
{
	static const int a[] = { 2, 5 }, b[] = { 3 };
	struct fired f[3], tmp;
	int p[2], n, i, j, st;
	pid_t pid[2];
	s64 real;

	if (lacks(self, NEED_TIMERS))
		SKIP(return, "%s", self->why);
	block_timer_signal();
	ASSERT_EQ(0, pipe(p));
	fflush(NULL);
	pid[0] = fork();
	if (!pid[0])
		arm_and_wait(&self->c, p[1], a, 2);
	pid[1] = fork();
	if (!pid[1])
		arm_and_wait(&self->c, p[1], b, 1);
	close(p[1]);
	for (n = 0; n < 3; n++)
		if (!read_within(p[0], &f[n], sizeof(f[n]), SEC(20)))
			break;
	for (i = 0; i < 2; i++) {
		ASSERT_TRUE(pid[i] > 0 && reap_within(pid[i], &st, SEC(20)));
		EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st))
			TH_LOG("timer process %d: status 0x%x (1: arming, 2: no expiry, 3: pipe)",
			       i, st);
	}
	ASSERT_EQ(3, n) TH_LOG("expiries of the 2, 3 and 5 s timers");

	/* By delay: they fire in that order. */
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (f[j].delay < f[i].delay) {
				tmp = f[i];
				f[i] = f[j];
				f[j] = tmp;
			}
	EXPECT_EQ(2, f[0].delay);
	EXPECT_EQ(3, f[1].delay);
	/*
	 * In RTC seconds: timers that come due in the same second expire
	 * at the same read, and two processes see their signals in the
	 * order the scheduler runs them.
	 */
	EXPECT_LE(f[0].rtc, f[1].rtc);
	EXPECT_LE(f[1].rtc, f[2].rtc);
	EXPECT_LT(f[0].rtc, f[2].rtc);
	for (i = 0; i < n; i++) {
		real = f[i].mono - f[i].armed_mono;
		TH_LOG("%d s timer: armed at RTC %lld, fired at RTC %lld, after %lld ms",
		       f[i].delay, f[i].armed_rtc, f[i].rtc, real / NSEC_PER_MSEC);
		EXPECT_LE(f[i].armed_rtc + f[i].delay, f[i].rtc);
		EXPECT_LE(SEC(f[i].delay), real);
		EXPECT_GE(SEC(f[i].delay) + LATE_MAX_NS + stall_max_ns(), real);
	}
}

TEST_F(rtc, timer_gettime)
{
	s64 value, interval;
	int id;

	if (lacks(self, NEED_TIMERS))
		SKIP(return, "%s", self->why);
	ASSERT_EQ(0, sys_timer_create(self->c.clk, SIGEV_NONE, 0, 0, 0, &id));
	ASSERT_EQ(0, sys_timer_settime(id, 0, SEC(10), 0));
	ASSERT_EQ(0, sys_timer_gettime(id, &value, &interval));
	/* Rounded up to a second and one more, less what passed. */
	EXPECT_LT(SEC(8), value);
	EXPECT_GE(SEC(11), value);
	EXPECT_EQ(0, interval);
	EXPECT_EQ(0, sys_timer_delete(id));
}

/* A 2 s sleep, relative or until the RTC's time plus 2 s. */
static void sleep_2s(struct __test_metadata *_metadata,
		     struct _test_data_rtc *self, int flags)
{
	s64 m0, r0, r1, real;

	if (lacks(self, NEED_NANOSLEEP))
		SKIP(return, "%s", self->why);
	stall_monitor_start();
	m0 = mono_ns();
	r0 = rtc_sec(&self->c);
	ASSERT_EQ(0, sys_clock_nanosleep(self->c.clk, flags,
					 flags ? SEC(r0 + 2) : SEC(2), NULL));
	real = mono_ns() - m0;
	r1 = rtc_sec(&self->c);
	TH_LOG("RTC %lld -> %lld, %lld ms", r0, r1, real / NSEC_PER_MSEC);
	EXPECT_LE(r0 + 2, r1);
	/* An absolute sleep may start late in RTC second r0. */
	EXPECT_LE(flags ? SEC(1) : SEC(2), real);
	EXPECT_GE(SEC(2) + LATE_MAX_NS + stall_max_ns(), real);
}

TEST_F(rtc, nanosleep_relative)
{
	sleep_2s(_metadata, self, 0);
}

TEST_F(rtc, nanosleep_absolute)
{
	sleep_2s(_metadata, self, TIMER_ABSTIME);
}

TEST_F(rtc, timerfd)
{
	struct itimerspec its = { .it_value = { 2, 0 } }, cur;
	s64 m0, r0, r1, real, rem;
	uint64_t n = 0;
	int tfd;

	if (lacks(self, NEED_TIMERFD))
		SKIP(return, "%s", self->why);
	stall_monitor_start();
	tfd = timerfd_create(self->c.clk, TFD_CLOEXEC);
	ASSERT_LE(0, tfd) TH_LOG("timerfd_create: %s", errname(errno));
	m0 = mono_ns();
	r0 = rtc_sec(&self->c);
	ASSERT_EQ(0, timerfd_settime(tfd, 0, &its, NULL));
	ASSERT_EQ(0, timerfd_gettime(tfd, &cur));
	rem = ts_ns(&cur.it_value);
	EXPECT_LT(0, rem);
	EXPECT_GE(SEC(3), rem);
	ASSERT_TRUE(read_within(tfd, &n, sizeof(n), SEC(10)));
	real = mono_ns() - m0;
	r1 = rtc_sec(&self->c);
	TH_LOG("RTC %lld -> %lld, %lld ms", r0, r1, real / NSEC_PER_MSEC);
	EXPECT_EQ(1, n);
	EXPECT_LE(r0 + 2, r1);
	EXPECT_LE(SEC(2), real);
	EXPECT_GE(SEC(2) + LATE_MAX_NS + stall_max_ns(), real);
	close(tfd);
}

/*
 * Steps of the RTC through /dev/rtcN: past an absolute timer's expiry it
 * fires promptly; back, it waits for the RTC to reach it again.  Each makes
 * a SIG_TIMER timer and saves the RTC's time for the teardown.
 */
static int step_timer(struct __test_metadata *_metadata,
		      struct _test_data_rtc *self)
{
	int id = -1;

	block_timer_signal();
	rtc_save(self);
	EXPECT_EQ(0, sys_timer_create(self->c.clk, SIGEV_SIGNAL, SIG_TIMER,
				      0, 0, &id));
	return id;
}

/*
 * A timer armed at RTC r0 + @at s, the RTC stepped to r0 + @to through
 * RTC_SET_TIME, or with hwclock --systohc from the system time put there
 * (and put back before any check): it fires within @wait_ns of the step,
 * once the RTC reached r0 + @at, and not before that time has passed in
 * real time either.
 */
static void step_fires(struct __test_metadata *_metadata,
		       struct _test_data_rtc *self, s64 at, s64 to,
		       s64 wait_ns, bool hwclock)
{
	s64 r0, m0, r1, real, rt0;
	int id, err, st = 0;

	if (lacks(self, NEED_TIMERS))
		SKIP(return, "%s", self->why);
	if (hwclock && run_cmd("command -v hwclock >/dev/null 2>&1"))
		SKIP(return, "no hwclock in this system");
	id = step_timer(_metadata, self);
	ASSERT_LE(0, id);
	r0 = rtc_sec(&self->c);
	ASSERT_EQ(0, sys_timer_settime(id, TIMER_ABSTIME, SEC(r0 + at), 0));
	rt0 = clock_ns(CLOCK_REALTIME);
	m0 = mono_ns();
	if (!hwclock) {
		err = rtc_set_time(&self->c, r0 + to);
	} else {
		err = sys_clock_settime(CLOCK_REALTIME, SEC(r0 + to));
		st = run_cmd("hwclock --systohc --utc -f %s", self->c.rtc);
	}
	if (!err)
		err = wait_timer_signal(wait_ns + stall_max_ns(), NULL);
	real = mono_ns() - m0;
	r1 = rtc_sec(&self->c);
	if (hwclock && sys_clock_settime(CLOCK_REALTIME, rt0 + mono_ns() - m0))
		TH_LOG("could not set CLOCK_REALTIME back");
	TH_LOG("RTC %lld, expiry %lld, %lld ms after the step", r1, r0 + at,
	       real / NSEC_PER_MSEC);
	EXPECT_EQ(0, st) TH_LOG("hwclock --systohc --utc -f %s", self->c.rtc);
	EXPECT_EQ(0, err) TH_LOG("no signal: %s", errname(-err));
	EXPECT_LE(r0 + at, r1);
	EXPECT_LE(to < at ? SEC(at - to - 1) : 0, real);
}

TEST_F(rtc, step_forward)
{
	step_fires(_metadata, self, 30, 40, PROMPT_NS, false);
}

TEST_F(rtc, step_back)
{
	s64 r0, m0;
	int id, err;

	if (lacks(self, NEED_TIMERS))
		SKIP(return, "%s", self->why);
	id = step_timer(_metadata, self);
	ASSERT_LE(0, id);
	r0 = rtc_sec(&self->c);
	ASSERT_EQ(0, sys_timer_settime(id, TIMER_ABSTIME, SEC(r0 + 3), 0));
	ASSERT_EQ(0, rtc_set_time(&self->c, r0 - 100));
	/* 4 s: past the expiry had the RTC not been stepped. */
	err = wait_timer_signal(SEC(4), NULL);
	EXPECT_EQ(-EAGAIN, err) TH_LOG("a step back 100 s did not postpone it");
	m0 = mono_ns();
	ASSERT_EQ(0, rtc_set_time(&self->c, r0 + 10));
	err = wait_timer_signal(PROMPT_NS + stall_max_ns(), NULL);
	EXPECT_EQ(0, err) TH_LOG("a step past the expiry again: no signal");
	TH_LOG("fired %lld ms after the step", (mono_ns() - m0) / NSEC_PER_MSEC);
}

/* hwclock (busybox's waits for a second boundary) writes the system time. */
TEST_F_TIMEOUT(rtc, step_hwclock, 60)
{
	step_fires(_metadata, self, 30, 40, PROMPT_NS, true);
}

/*
 * Beyond the reach of the RTC's alarm (a day for rtc_cmos) the alarm is set
 * as far as it reaches.  A step to 3 s before the expiry makes the core set
 * it anew, and the timer fires on time.  (An alarm that fires short of its
 * timer and is set again is the KUnit case clockdev_test_alarm_reach.)
 */
TEST_F(rtc, step_beyond_alarm_reach)
{
	step_fires(_metadata, self, 2 * 86400, 2 * 86400 - 3, SEC(10), false);
}

/* A sleeper's process: says it is about to sleep, then when it woke. */
static void sleeper(const struct test_clock *c, int wfd)
{
	s64 t;
	int err;

	if (write(wfd, "", 1) != 1)
		_exit(2);
	err = sys_clock_nanosleep(c->clk, 0, SEC(60), NULL);
	t = mono_ns();
	if (write(wfd, &t, sizeof(t)) != sizeof(t))
		_exit(2);
	_exit(err == -ENODEV ? 0 : 1);
}

/*
 * The RTC's driver unbound under an armed timer (SIGEV_NONE, 60 s), one
 * that would signal in 3 s, an armed timerfd and a sleeper in
 * clock_nanosleep(); the teardown binds it again.
 */
TEST_F_TIMEOUT(rtc, unbind, 60)
{
	struct itimerspec its = { .it_value = { 60, 0 } };
	struct pollfd pfd = { .events = POLLIN };
	s64 armed, gone_at, woke_at, v, i;
	int quiet, loud, tfd, p[2], st, err;
	uint64_t n;
	char c;
	pid_t pid;

	if (lacks(self, NEED_TIMERS | NEED_TIMERFD | NEED_NANOSLEEP))
		SKIP(return, "%s", self->why);
	block_timer_signal();
	ASSERT_EQ(0, sys_timer_create(self->c.clk, SIGEV_NONE, 0, 0, 0, &quiet));
	ASSERT_EQ(0, sys_timer_settime(quiet, 0, SEC(60), 0));
	ASSERT_EQ(0, sys_timer_create(self->c.clk, SIGEV_SIGNAL, SIG_TIMER, 0,
				      0, &loud));
	armed = mono_ns();
	ASSERT_EQ(0, sys_timer_settime(loud, 0, SEC(3), 0));
	tfd = timerfd_create(self->c.clk, TFD_CLOEXEC);
	ASSERT_LE(0, tfd) TH_LOG("timerfd_create: %s", errname(errno));
	ASSERT_EQ(0, timerfd_settime(tfd, 0, &its, NULL));
	ASSERT_EQ(0, pipe(p));
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		sleeper(&self->c, p[1]);
	close(p[1]);
	ASSERT_TRUE(read_within(p[0], &c, 1, SEC(10)));
	ASSERT_TRUE(wait_task_state(pid, pid, 'S', SEC(10)))
		TH_LOG("the sleeper does not sleep");

	err = test_clock_remove(&self->c);
	gone_at = mono_ns();
	ASSERT_EQ(0, err) TH_LOG("unbinding %s's driver: %s", self->c.rtc,
				 errname(-err));

	/* The sleeper wakes with ENODEV, at once. */
	ASSERT_TRUE(read_within(p[0], &woke_at, sizeof(woke_at), SEC(5)))
		TH_LOG("the sleeper still sleeps 5 s after the unbind");
	ASSERT_TRUE(reap_within(pid, &st, SEC(5)));
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st))
		TH_LOG("the sleeper: status 0x%x (1: not ENODEV)", st);
	EXPECT_GE(GONE_NS + stall_max_ns(), woke_at - gone_at);

	/* Every call fails with ENODEV but timer_delete. */
	err = clock_ns(self->c.clk) < 0 ? -errno : 0;
	EXPECT_EQ(-ENODEV, err) TH_LOG("clock_gettime: %s", errname(-err));
	EXPECT_EQ(-ENODEV, sys_timer_gettime(quiet, &v, &i));
	EXPECT_EQ(-ENODEV, sys_timer_settime(quiet, 0, SEC(60), 0));
	EXPECT_EQ(0, sys_timer_delete(quiet));

	pfd.fd = tfd;
	EXPECT_EQ(1, poll(&pfd, 1, 1000));
	EXPECT_EQ(POLLERR | POLLHUP, pfd.revents & (POLLERR | POLLHUP));
	err = read(tfd, &n, sizeof(n)) < 0 ? -errno : 0;
	EXPECT_EQ(-ENODEV, err) TH_LOG("timerfd read: %s", errname(-err));
	close(tfd);

	/* The disarmed timer never fires, not even once its time has come. */
	err = wait_timer_signal(armed + SEC(3) + LATE_MAX_NS - mono_ns(), NULL);
	if (gone_at - armed < SEC(3)) {
		EXPECT_EQ(-EAGAIN, err)
			TH_LOG("the 3 s timer fired after the unbind");
	} else {
		TH_LOG("the unbind came after the 3 s timer's expiry: not judged");
	}
	EXPECT_EQ(0, sys_timer_delete(loud));
}

/* Bound again, the RTC and its clock come back and work. */
TEST_F(rtc, rebind)
{
	int err;

	err = test_clock_remove(&self->c);
	ASSERT_EQ(0, err) TH_LOG("unbinding %s's driver: %s", self->c.rtc,
				 errname(-err));
	err = test_clock_rebind(&self->c);
	ASSERT_EQ(0, err) TH_LOG("binding it again: %s", errname(-err));
	TH_LOG("bound again: %s, %s", self->c.rtc, self->c.path);
	check_read(_metadata, self);
}

/*
 * The RTC's driver module unloads once its clock's timers and descriptors
 * are gone: they hold no reference to it.  It is loaded again.
 */
TEST_F(rtc, unload)
{
	char path[PATH_MAX + 16], mod[PATH_MAX], *name, why[256];
	int id, err;

	snprintf(path, sizeof(path), "/sys/class/rtc/%s/device/driver/module",
		 self->c.rtc + 5);
	name = realpath(path, mod) ? strrchr(mod, '/') + 1 : NULL;
	if (name)
		snprintf(path, sizeof(path), "%s/refcnt", mod);
	if (!name || access(path, F_OK))
		SKIP(return, "the driver of %s is built in: no module to unload",
		     self->c.rtc);
	if (!self->timers) {
		ASSERT_EQ(0, sys_timer_create(self->c.clk, SIGEV_NONE, 0, 0, 0,
					      &id));
		ASSERT_EQ(0, sys_timer_settime(id, 0, SEC(60), 0));
		ASSERT_EQ(0, sys_timer_delete(id));
	}
	close(self->c.fd);
	self->c.fd = -1;
	EXPECT_EQ(0, run_cmd("rmmod %s", name)) TH_LOG("rmmod %s", name);
	ASSERT_EQ(0, run_cmd("modprobe %s", name)) TH_LOG("modprobe %s", name);
	err = test_clock_make(&self->c, variant->kind, why, sizeof(why));
	ASSERT_EQ(0, err) TH_LOG("loaded again: %s", why);
	check_read(_metadata, self);
}

TEST_HARNESS_MAIN
