// SPDX-License-Identifier: GPL-2.0
/*
 * fdclock-rtc: an RTC's dynamic clock (/dev/rtcclockN) used through its fd
 * clockid: reading, setting, permissions, timers, sleeps, timerfd, steps of
 * the RTC through /dev/rtcN, and removal of the RTC under armed timers.
 *
 * usage: fdclock-rtc [--only TEXT] [--label LABEL] [--no-alarm]
 *                    CLOCKDEV RTCDEV [-- UNBIND_CMD...]
 *
 * CLOCKDEV is /dev/rtcclockN, RTCDEV the same RTC's /dev/rtcN.  With
 * UNBIND_CMD, which must unbind the RTC's driver, the last check removes the
 * RTC under an armed timer, an armed timerfd and a sleeper.
 *
 * --no-alarm: the RTC has no alarm (e.g. rtc-test.0).  Its clock's timers
 * then run on the core's generic path, reading the clock, and do not wake
 * the system: creating one needs no CAP_WAKE_ALARM.
 *
 * Each check runs in a process of its own, killed after its timeout, and
 * prints "ok - LABEL: CHECK" or "not ok - LABEL: CHECK (why)"; LABEL is
 * "rtc" unless --label says otherwise.  Times are RTC
 * seconds; "never early" is checked both in the RTC's time (a read at the
 * expiry is at or past it) and in real time (CLOCK_MONOTONIC: a relative
 * timer never fires before its delay has passed).  The RTC is set back to
 * the time it would have had after each check that steps it.
 *
 * Exit status: 0 when every check passed, 1 when one failed, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/rtc.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
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

#define CLOCKFD			3
#define FD_TO_CLOCKID(fd)	((clockid_t)((~(unsigned int)(fd)) << 3 | CLOCKFD))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define __printf(a, b)		__attribute__((format(printf, a, b)))

#define NSEC_PER_MSEC		1000000LL
#define NSEC_PER_SEC		1000000000LL
#define SIG_TIMER		(SIGRTMIN + 1)
#define DEFAULT_TIMEOUT_S	30
/*
 * How late a timer may fire, in real time, beyond its nominal expiry: a
 * relative timer waits up to one tick more than its delay rounded up (the
 * read it is anchored on is up to a tick behind), plus the worker's and the
 * signal's way, plus what a loaded host costs a TCG guest.
 */
#define LATE_MAX_NS		(2500 * NSEC_PER_MSEC)
/* A timer that a step made due fires within this. */
#define PROMPT_NS		(2000 * NSEC_PER_MSEC)
/* A sleeper wakes with ENODEV this soon after the RTC is removed. */
#define GONE_NS			(100 * NSEC_PER_MSEC)

/* Exit status of a check's process that reported its failures. */
#define REPORTED		10

typedef long long s64;

static const char *clk_path, *rtc_path, *only, *label = "rtc";
static bool no_alarm;
static char **unbind_cmd;
static int failed;

static __printf(2, 3) void report(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - %s: ", ok ? "ok" : "not ok", label);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!ok)
		failed++;
}

static s64 ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

static struct timespec ns_ts(s64 ns)
{
	struct timespec ts = { ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };

	return ts;
}

static s64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts_ns(&ts);
}

static int open_clock(int flags)
{
	int fd = open(clk_path, flags);

	if (fd < 0) {
		printf("  open %s: %s\n", clk_path, strerror(errno));
		exit(1);
	}
	return fd;
}

/* The RTC clock's time in seconds, or -1 with errno. */
static s64 clk_sec(int fd)
{
	struct timespec ts;

	if (clock_gettime(FD_TO_CLOCKID(fd), &ts))
		return -1;
	return ts.tv_sec;
}

/*
 * struct rtc_time has the first fields of struct tm, in the same order and
 * of the same type: RTC_RD_TIME and RTC_SET_TIME read and write a struct tm
 * (as hwclock does).
 */
_Static_assert(sizeof(struct rtc_time) <= sizeof(struct tm) &&
	       offsetof(struct rtc_time, tm_year) == offsetof(struct tm, tm_year),
	       "struct rtc_time is not a prefix of struct tm");

/* An RTC ioctl on a struct tm through /dev/rtcN; its result. */
static int rtc_ioctl(unsigned long req, struct tm *tm)
{
	int fd = open(rtc_path, O_RDONLY), err;

	if (fd < 0)
		return -1;
	err = ioctl(fd, req, tm);
	close(fd);
	return err;
}

/* /dev/rtcN's view, through RTC_RD_TIME: seconds, or -1. */
static s64 rtc_ioctl_sec(void)
{
	struct tm tm = { 0 };

	return rtc_ioctl(RTC_RD_TIME, &tm) ? -1 : timegm(&tm);
}

/* Set the RTC through /dev/rtcN (RTC_SET_TIME), as hwclock does. */
static int rtc_ioctl_set(s64 sec)
{
	time_t t = sec;
	struct tm tm;

	gmtime_r(&t, &tm);
	return rtc_ioctl(RTC_SET_TIME, &tm);
}

/*
 * The RTC's time is saved before a check that steps it and put back after:
 * the saved time plus the CLOCK_MONOTONIC time that passed.
 */
static s64 saved_rtc, saved_mono;

static void save_rtc(int fd)
{
	saved_rtc = clk_sec(fd);
	saved_mono = mono_ns();
}

static void restore_rtc(void)
{
	if (rtc_ioctl_set(saved_rtc + (mono_ns() - saved_mono + NSEC_PER_SEC / 2) /
			  NSEC_PER_SEC))
		printf("  could not set the RTC back: %s\n", strerror(errno));
}

/* Drop capability @cap from this process (effective and permitted). */
static void drop_cap(int cap)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d)) {
		perror("capget");
		exit(1);
	}
	d[cap / 32].effective &= ~(1U << (cap % 32));
	d[cap / 32].permitted &= ~(1U << (cap % 32));
	if (syscall(SYS_capset, &h, d)) {
		perror("capset");
		exit(1);
	}
}

static const char *err_name(int err)
{
	switch (err) {
	case 0: return "0";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case EBUSY: return "EBUSY";
	default: return strerror(err);
	}
}

/* ---- checks ---- */

static void check_open(void)
{
	int a = open(clk_path, O_RDWR), b = open(clk_path, O_RDONLY);
	int c = open(clk_path, O_RDWR);
	int r1 = open(rtc_path, O_RDONLY), r2, e2;

	r2 = open(rtc_path, O_RDONLY);
	e2 = errno;
	report(a >= 0 && b >= 0 && c >= 0,
	       "%s opens three times at once", clk_path);
	report(r1 >= 0 && r2 < 0 && e2 == EBUSY,
	       "%s still admits one opener (second open: %s)", rtc_path,
	       r2 < 0 ? err_name(e2) : "0");
}

static void check_read(void)
{
	int fd = open_clock(O_RDONLY);
	struct timespec ts, res;
	s64 via_ioctl, via_clock;
	int err;

	via_ioctl = rtc_ioctl_sec();
	err = clock_gettime(FD_TO_CLOCKID(fd), &ts) ? errno : 0;
	via_clock = ts.tv_sec;
	report(!err && ts.tv_nsec == 0 && via_ioctl >= 0 &&
	       via_clock - via_ioctl >= 0 && via_clock - via_ioctl <= 1,
	       "clock_gettime is the RTC's time (clock %lld.%09ld, RTC_RD_TIME %lld, %s)",
	       (s64)ts.tv_sec, ts.tv_nsec, via_ioctl, err_name(err));
	err = clock_getres(FD_TO_CLOCKID(fd), &res) ? errno : 0;
	report(!err && res.tv_sec == 1 && res.tv_nsec == 0,
	       "clock_getres is one second (%lld.%09ld, %s)",
	       (s64)res.tv_sec, res.tv_nsec, err_name(err));
}

static void check_set(void)
{
	int fd = open_clock(O_RDWR);
	struct timespec ts;
	s64 t0, got;
	int err;

	save_rtc(fd);
	t0 = saved_rtc;
	ts = ns_ts((t0 + 100000) * NSEC_PER_SEC + 700 * NSEC_PER_MSEC);
	err = clock_settime(FD_TO_CLOCKID(fd), &ts) ? errno : 0;
	got = rtc_ioctl_sec();
	report(!err && got - (t0 + 100000) >= 0 && got - (t0 + 100000) <= 1,
	       "clock_settime sets the RTC (set %lld, RTC_RD_TIME %lld, %s)",
	       t0 + 100000, got, err_name(err));
	restore_rtc();
	got = clk_sec(fd);
	report(got - t0 >= 0 && got - t0 <= 2,
	       "the RTC is set back (%lld, was %lld)", got, t0);
}

/* The permission table: file mode x CAP_SYS_TIME x CAP_WAKE_ALARM. */
static void check_perm_row(int mode, bool sys_time, bool wake)
{
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };
	struct timex tx = { .modes = ADJ_FREQUENCY, .freq = 0 };
	struct timex tx0 = { 0 };
	struct timespec ts, zero = { 0, 0 };
	int want_set, want_adj, want_timer, got_set, got_adj, got_adj0;
	int got_get, got_timer, got_tfd, got_sleep, fd, tfd;
	char row[96];
	timer_t id;

	fd = open_clock(mode);
	if (!sys_time)
		drop_cap(CAP_SYS_TIME);
	if (!wake)
		drop_cap(CAP_WAKE_ALARM);
	snprintf(row, sizeof(row), "permissions: %s, %sCAP_SYS_TIME, %sCAP_WAKE_ALARM",
		 mode == O_RDONLY ? "O_RDONLY" : "O_RDWR",
		 sys_time ? "" : "no ", wake ? "" : "no ");

	want_set = mode == O_RDONLY ? EACCES : !sys_time ? EPERM : 0;
	want_adj = mode == O_RDONLY ? EACCES : EOPNOTSUPP;
	want_timer = wake || no_alarm ? 0 : EPERM;

	got_get = clock_gettime(FD_TO_CLOCKID(fd), &ts) ? errno : 0;
	/* Set it to what it reads: a no-op when it works. */
	got_set = clock_settime(FD_TO_CLOCKID(fd), &ts) ? errno : 0;
	got_adj = clock_adjtime(FD_TO_CLOCKID(fd), &tx) < 0 ? errno : 0;
	got_adj0 = clock_adjtime(FD_TO_CLOCKID(fd), &tx0) < 0 ? errno : 0;
	got_timer = timer_create(FD_TO_CLOCKID(fd), &sev, &id) ? errno : 0;
	tfd = timerfd_create(FD_TO_CLOCKID(fd), 0);
	got_tfd = tfd < 0 ? errno : 0;
	/* An absolute sleep until 1970 returns at once when allowed. */
	got_sleep = clock_nanosleep(FD_TO_CLOCKID(fd), TIMER_ABSTIME, &zero, NULL);

	report(got_get == 0 && got_set == want_set && got_adj == want_adj &&
	       got_adj0 == 0 && got_timer == want_timer &&
	       got_tfd == want_timer && got_sleep == want_timer,
	       "%s: gettime %s, settime %s (want %s), adjtime %s (want %s), "
	       "adjtime(0) %s, timer_create %s, timerfd_create %s, "
	       "clock_nanosleep %s (want %s)", row, err_name(got_get),
	       err_name(got_set), err_name(want_set), err_name(got_adj),
	       err_name(want_adj), err_name(got_adj0), err_name(got_timer),
	       err_name(got_tfd), err_name(got_sleep), err_name(want_timer));
}

static void check_perms(void)
{
	static const int modes[] = { O_RDONLY, O_RDWR };
	unsigned int i, j, k;

	for (i = 0; i < ARRAY_SIZE(modes); i++)
		for (j = 0; j < 2; j++)
			for (k = 0; k < 2; k++) {
				pid_t pid = fork();
				int st;

				if (pid == 0) {
					failed = 0;
					check_perm_row(modes[i], j, k);
					exit(failed ? REPORTED : 0);
				}
				waitpid(pid, &st, 0);
				if (WIFEXITED(st) && WEXITSTATUS(st) == REPORTED)
					failed++;
				else if (!WIFEXITED(st) || WEXITSTATUS(st))
					report(false, "permissions: row %u stopped early",
					       i * 4 + j * 2 + k);
			}
}

/* What a timer's process tells the parent about one expiry. */
struct fired {
	int delay_s;		/* the timer's delay */
	s64 armed_rtc;		/* the RTC read just before arming */
	s64 armed_mono;		/* CLOCK_MONOTONIC just before arming */
	s64 rtc;		/* the RTC read when the signal came */
	s64 mono;		/* CLOCK_MONOTONIC then */
};

/* Arm relative timers of @delays (s) on the RTC clock; report each expiry. */
static void arm_and_wait(int wfd, const int *delays, int n)
{
	int fd = open_clock(O_RDONLY);
	struct fired f[4];
	timer_t id[4];
	sigset_t set;
	int i;

	sigemptyset(&set);
	sigaddset(&set, SIG_TIMER);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (i = 0; i < n; i++) {
		struct sigevent sev = {
			.sigev_notify = SIGEV_SIGNAL,
			.sigev_signo = SIG_TIMER,
			.sigev_value.sival_int = i,
		};
		struct itimerspec its = { .it_value = { delays[i], 0 } };

		f[i].delay_s = delays[i];
		f[i].armed_mono = mono_ns();
		f[i].armed_rtc = clk_sec(fd);
		if (timer_create(FD_TO_CLOCKID(fd), &sev, &id[i]) ||
		    timer_settime(id[i], 0, &its, NULL)) {
			printf("  arming a %d s timer: %s\n", delays[i],
			       strerror(errno));
			exit(1);
		}
	}
	for (i = 0; i < n; i++) {
		struct timespec limit = { 15, 0 };
		siginfo_t si;
		int v;

		if (sigtimedwait(&set, &si, &limit) != SIG_TIMER) {
			printf("  no expiry within 15 s\n");
			exit(1);
		}
		v = si.si_value.sival_int;
		f[v].mono = mono_ns();
		f[v].rtc = clk_sec(fd);
		if (write(wfd, &f[v], sizeof(f[v])) != sizeof(f[v]))
			exit(1);
	}
	exit(0);
}

static void check_order(void)
{
	static const int a[] = { 2, 5 }, b[] = { 3 };
	struct fired f[3], tmp;
	int p[2], n = 0, i, j, st;
	bool ok = true;
	pid_t pa, pb;

	if (pipe(p))
		exit(1);
	pa = fork();
	if (pa == 0)
		arm_and_wait(p[1], a, 2);
	pb = fork();
	if (pb == 0)
		arm_and_wait(p[1], b, 1);
	close(p[1]);
	while (n < 3 && read(p[0], &f[n], sizeof(f[n])) == sizeof(f[n]))
		n++;
	waitpid(pa, &st, 0);
	waitpid(pb, &st, 0);
	if (n != 3) {
		report(false, "timers: 2, 3 and 5 s from two processes fire (%d of 3)", n);
		return;
	}
	/* In the order they came. */
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (f[j].mono < f[i].mono) {
				tmp = f[i];
				f[i] = f[j];
				f[j] = tmp;
			}
	for (i = 0; i < n; i++) {
		s64 real = f[i].mono - f[i].armed_mono;

		printf("  %d s timer: RTC armed %lld, fired at RTC %lld, after %lld ms\n",
		       f[i].delay_s, f[i].armed_rtc, f[i].rtc, real / NSEC_PER_MSEC);
		if (f[i].rtc < f[i].armed_rtc + f[i].delay_s ||
		    real < f[i].delay_s * NSEC_PER_SEC ||
		    real > f[i].delay_s * NSEC_PER_SEC + LATE_MAX_NS)
			ok = false;
	}
	report(f[0].delay_s == 2 && f[1].delay_s == 3 && f[2].delay_s == 5,
	       "timers: 2, 3 and 5 s from two processes fire in order (%d, %d, %d)",
	       f[0].delay_s, f[1].delay_s, f[2].delay_s);
	report(ok, "timers: never early (RTC and real time), at most %lld ms late",
	       LATE_MAX_NS / NSEC_PER_MSEC);
}

static void check_gettime(void)
{
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };
	struct itimerspec its = { .it_value = { 10, 0 } }, cur;
	int fd = open_clock(O_RDONLY);
	timer_t id;
	s64 rem;

	if (timer_create(FD_TO_CLOCKID(fd), &sev, &id) ||
	    timer_settime(id, 0, &its, NULL) || timer_gettime(id, &cur)) {
		report(false, "timer_gettime: remaining time (%s)", strerror(errno));
		return;
	}
	rem = ts_ns(&cur.it_value);
	report(rem > 8 * NSEC_PER_SEC && rem <= 11 * NSEC_PER_SEC,
	       "timer_gettime: a 10 s timer has 8 to 11 s left (%lld ms)",
	       rem / NSEC_PER_MSEC);
	report(timer_delete(id) == 0, "timer_delete");
}

static void check_sleep(void)
{
	int fd = open_clock(O_RDONLY), err;
	struct timespec d = { 2, 0 }, until;
	s64 m0, r0, r1, real;

	m0 = mono_ns();
	r0 = clk_sec(fd);
	err = clock_nanosleep(FD_TO_CLOCKID(fd), 0, &d, NULL);
	real = mono_ns() - m0;
	r1 = clk_sec(fd);
	report(!err && r1 >= r0 + 2 && real >= 2 * NSEC_PER_SEC &&
	       real <= 2 * NSEC_PER_SEC + LATE_MAX_NS,
	       "clock_nanosleep: 2 s relative (RTC %lld -> %lld, %lld ms, %s)",
	       r0, r1, real / NSEC_PER_MSEC, err_name(err));

	r0 = clk_sec(fd);
	until.tv_sec = r0 + 2;
	until.tv_nsec = 0;
	m0 = mono_ns();
	err = clock_nanosleep(FD_TO_CLOCKID(fd), TIMER_ABSTIME, &until, NULL);
	real = mono_ns() - m0;
	r1 = clk_sec(fd);
	report(!err && r1 >= r0 + 2 && real <= 2 * NSEC_PER_SEC + LATE_MAX_NS,
	       "clock_nanosleep: until RTC %lld (woke at %lld, %lld ms, %s)",
	       r0 + 2, r1, real / NSEC_PER_MSEC, err_name(err));
}

static void check_timerfd(void)
{
	int fd = open_clock(O_RDONLY), tfd;
	struct itimerspec its = { .it_value = { 2, 0 } }, cur;
	struct pollfd pfd;
	uint64_t n = 0;
	s64 m0, r0, r1, real, rem;
	ssize_t got;

	tfd = timerfd_create(FD_TO_CLOCKID(fd), 0);
	if (tfd < 0) {
		report(false, "timerfd: create (%s)", strerror(errno));
		return;
	}
	m0 = mono_ns();
	r0 = clk_sec(fd);
	timerfd_settime(tfd, 0, &its, NULL);
	timerfd_gettime(tfd, &cur);
	rem = ts_ns(&cur.it_value);
	pfd.fd = tfd;
	pfd.events = POLLIN;
	poll(&pfd, 1, 10000);
	got = read(tfd, &n, sizeof(n));
	real = mono_ns() - m0;
	r1 = clk_sec(fd);
	report(got == sizeof(n) && n == 1 && r1 >= r0 + 2 &&
	       real >= 2 * NSEC_PER_SEC && real <= 2 * NSEC_PER_SEC + LATE_MAX_NS &&
	       rem > 0 && rem <= 3 * NSEC_PER_SEC,
	       "timerfd: 2 s, poll and read (%llu expiry, RTC %lld -> %lld, %lld ms, "
	       "gettime said %lld ms)", (unsigned long long)n, r0, r1,
	       real / NSEC_PER_MSEC, rem / NSEC_PER_MSEC);
}

/*
 * Steps of the RTC through /dev/rtcN: past an absolute timer's expiry it
 * fires promptly; back, it waits for the RTC to reach it again.
 */
static void check_steps(void)
{
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIG_TIMER };
	int fd = open_clock(O_RDONLY);
	struct timespec wait = { 4, 0 }, prompt = ns_ts(PROMPT_NS), rt0;
	struct itimerspec its = { 0 };
	sigset_t set;
	siginfo_t si;
	s64 r0, m0, r1;
	timer_t id;
	int sig, err;

	sigemptyset(&set);
	sigaddset(&set, SIG_TIMER);
	sigprocmask(SIG_BLOCK, &set, NULL);
	save_rtc(fd);
	if (timer_create(FD_TO_CLOCKID(fd), &sev, &id)) {
		report(false, "steps: timer_create (%s)", strerror(errno));
		return;
	}

	r0 = clk_sec(fd);
	its.it_value.tv_sec = r0 + 30;
	timer_settime(id, TIMER_ABSTIME, &its, NULL);
	m0 = mono_ns();
	rtc_ioctl_set(r0 + 40);
	sig = sigtimedwait(&set, &si, &prompt);
	r1 = clk_sec(fd);
	report(sig == SIG_TIMER && r1 >= r0 + 30,
	       "steps: RTC_SET_TIME past an absolute expiry fires it (%lld ms, RTC %lld, expiry %lld)",
	       (mono_ns() - m0) / NSEC_PER_MSEC, r1, r0 + 30);

	r0 = clk_sec(fd);
	its.it_value.tv_sec = r0 + 3;
	timer_settime(id, TIMER_ABSTIME, &its, NULL);
	rtc_ioctl_set(r0 - 100);
	sig = sigtimedwait(&set, &si, &wait);
	report(sig < 0 && errno == EAGAIN,
	       "steps: RTC_SET_TIME back 100 s postpones an absolute expiry (nothing in 4 s)");
	m0 = mono_ns();
	rtc_ioctl_set(r0 + 10);
	sig = sigtimedwait(&set, &si, &prompt);
	report(sig == SIG_TIMER,
	       "steps: and setting it past the expiry again fires it (%lld ms)",
	       (mono_ns() - m0) / NSEC_PER_MSEC);

	/*
	 * hwclock --systohc: the system time, put 40 s past the RTC, written
	 * to the RTC through /dev/rtcN; the system time is put back after.
	 */
	r0 = clk_sec(fd);
	its.it_value.tv_sec = r0 + 30;
	timer_settime(id, TIMER_ABSTIME, &its, NULL);
	if (!clock_gettime(CLOCK_REALTIME, &rt0)) {
		char cmd[160];
		struct timespec rt = { r0 + 40, 0 };

		m0 = mono_ns();
		snprintf(cmd, sizeof(cmd), "hwclock --systohc --utc -f %s", rtc_path);
		err = clock_settime(CLOCK_REALTIME, &rt) ? errno : system(cmd);
		sig = sigtimedwait(&set, &si, &prompt);
		r1 = clk_sec(fd);
		rt0 = ns_ts(rt0.tv_sec * NSEC_PER_SEC + rt0.tv_nsec + mono_ns() - m0);
		clock_settime(CLOCK_REALTIME, &rt0);
		report(!err && sig == SIG_TIMER && r1 >= r0 + 30,
		       "steps: '%s' past an absolute expiry fires it (%d, %lld ms, RTC %lld, expiry %lld)",
		       cmd, err, (mono_ns() - m0) / NSEC_PER_MSEC, r1, r0 + 30);
	}

	/*
	 * Beyond the reach of the RTC's alarm (a day for rtc_cmos): the alarm
	 * is set as far as it reaches.  Step the RTC to 3 s before the expiry:
	 * the step makes the core set the alarm anew, and the timer fires on
	 * time.  (An alarm that fires short of its timer and must be set again
	 * is the KUnit case clockdev_test_alarm_reach.)
	 */
	r0 = clk_sec(fd);
	its.it_value.tv_sec = r0 + 2 * 86400;
	timer_settime(id, TIMER_ABSTIME, &its, NULL);
	rtc_ioctl_set(r0 + 2 * 86400 - 3);
	m0 = mono_ns();
	wait.tv_sec = 10;
	sig = sigtimedwait(&set, &si, &wait);
	r1 = clk_sec(fd);
	report(sig == SIG_TIMER && r1 >= r0 + 2 * 86400,
	       "steps: a timer two days ahead, beyond the RTC alarm's reach, fires once a step brings it 3 s away (%lld ms, RTC %lld, expiry %lld)",
	       (mono_ns() - m0) / NSEC_PER_MSEC, r1, r0 + 2 * 86400);
	timer_delete(id);
	restore_rtc();
}

/* Remove the RTC under an armed timer, an armed timerfd and a sleeper. */
static void check_unbind(void)
{
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };
	struct itimerspec its = { .it_value = { 60, 0 } }, cur;
	int fd = open_clock(O_RDWR), tfd, p[2], st, err;
	struct timespec ts, d = { 60, 0 };
	struct pollfd pfd;
	s64 gone_at, woke_after = -1;
	uint64_t n;
	timer_t id;
	pid_t sleeper, cmd;

	if (timer_create(FD_TO_CLOCKID(fd), &sev, &id) ||
	    timer_settime(id, 0, &its, NULL)) {
		report(false, "unbind: arm a timer (%s)", strerror(errno));
		return;
	}
	tfd = timerfd_create(FD_TO_CLOCKID(fd), 0);
	timerfd_settime(tfd, 0, &its, NULL);
	if (pipe(p))
		exit(1);
	sleeper = fork();
	if (sleeper == 0) {
		char c = 0;
		s64 t;

		close(p[0]);
		if (write(p[1], &c, 1) != 1)
			exit(2);
		err = clock_nanosleep(FD_TO_CLOCKID(fd), 0, &d, NULL);
		t = mono_ns();
		if (write(p[1], &t, sizeof(t)) != sizeof(t))
			exit(2);
		exit(err == ENODEV ? 0 : 1);
	}
	close(p[1]);
	{
		char c;

		/* The sleeper is about to sleep; it sleeps 60 s if all goes well. */
		if (read(p[0], &c, 1) != 1)
			exit(1);
	}
	cmd = fork();
	if (cmd == 0) {
		execvp(unbind_cmd[0], unbind_cmd);
		_exit(127);
	}
	waitpid(cmd, &st, 0);
	gone_at = mono_ns();
	report(WIFEXITED(st) && WEXITSTATUS(st) == 0, "unbind: the RTC's driver unbinds");
	{
		s64 t;

		if (read(p[0], &t, sizeof(t)) == sizeof(t))
			woke_after = t - gone_at;
	}
	waitpid(sleeper, &st, 0);
	report(WIFEXITED(st) && WEXITSTATUS(st) == 0 && woke_after < GONE_NS,
	       "unbind: a sleeper wakes with ENODEV (%lld ms after the unbind returned)",
	       woke_after / NSEC_PER_MSEC);
	err = clock_gettime(FD_TO_CLOCKID(fd), &ts) ? errno : 0;
	report(err == ENODEV, "unbind: clock_gettime %s", err_name(err));
	err = timer_gettime(id, &cur) ? errno : 0;
	report(err == ENODEV, "unbind: timer_gettime %s", err_name(err));
	err = timer_settime(id, 0, &its, NULL) ? errno : 0;
	report(err == ENODEV, "unbind: timer_settime %s", err_name(err));
	err = timer_delete(id) ? errno : 0;
	report(err == 0, "unbind: timer_delete %s", err_name(err));
	pfd.fd = tfd;
	pfd.events = POLLIN;
	poll(&pfd, 1, 1000);
	report((pfd.revents & (POLLERR | POLLHUP)) == (POLLERR | POLLHUP),
	       "unbind: timerfd poll reports POLLERR | POLLHUP (0x%x)", pfd.revents);
	err = read(tfd, &n, sizeof(n)) < 0 ? errno : 0;
	report(err == ENODEV, "unbind: timerfd read %s", err_name(err));
	close(tfd);
	close(fd);
}

static const struct {
	const char *name;
	void (*run)(void);
	int timeout_s;
	bool unbind;
} checks[] = {
	{ "open", check_open },
	{ "read", check_read },
	{ "set", check_set },
	{ "permissions", check_perms },
	{ "order", check_order },
	{ "gettime", check_gettime },
	{ "sleep", check_sleep },
	{ "timerfd", check_timerfd },
	{ "steps", check_steps },
	{ "unbind", check_unbind, 0, true },
};

int main(int argc, char **argv)
{
	unsigned int i;
	int a = 1;

	for (;;) {
		if (a + 1 < argc && !strcmp(argv[a], "--only")) {
			only = argv[a + 1];
			a += 2;
		} else if (a + 1 < argc && !strcmp(argv[a], "--label")) {
			label = argv[a + 1];
			a += 2;
		} else if (a < argc && !strcmp(argv[a], "--no-alarm")) {
			no_alarm = true;
			a++;
		} else {
			break;
		}
	}
	if (argc - a < 2) {
		fprintf(stderr, "usage: %s [--only TEXT] [--label LABEL] [--no-alarm] CLOCKDEV RTCDEV [-- UNBIND_CMD...]\n",
			argv[0]);
		return 2;
	}
	clk_path = argv[a];
	rtc_path = argv[a + 1];
	if (a + 2 < argc && !strcmp(argv[a + 2], "--"))
		unbind_cmd = &argv[a + 3];
	setvbuf(stdout, NULL, _IOLBF, 0);

	for (i = 0; i < ARRAY_SIZE(checks); i++) {
		int timeout = checks[i].timeout_s ?: DEFAULT_TIMEOUT_S, st;
		pid_t pid;

		if (only && !strstr(checks[i].name, only))
			continue;
		if (checks[i].unbind && (!unbind_cmd || !unbind_cmd[0]))
			continue;
		pid = fork();
		if (pid == 0) {
			alarm(timeout);
			failed = 0;
			checks[i].run();
			exit(failed ? REPORTED : 0);
		}
		waitpid(pid, &st, 0);
		if (WIFSIGNALED(st))
			report(false, "%s: killed by signal %d (timeout %d s?)",
			       checks[i].name, WTERMSIG(st), timeout);
		else if (WEXITSTATUS(st) == REPORTED)
			failed++;
		else if (WEXITSTATUS(st))
			report(false, "%s: stopped early, exit status %d",
			       checks[i].name, WEXITSTATUS(st));
	}
	return failed ? 1 : 0;
}
