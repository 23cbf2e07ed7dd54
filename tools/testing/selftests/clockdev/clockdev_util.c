// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the clockdev selftests: time, system calls, files,
 * bounded waits, statistics, timer signals; see clockdev_util.h.  The
 * clocks to test on and the tracefs helpers are in clockdev_clock.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clockdev_util.h"

#define STALL_TICK_NS	MS(10)

/* ---- time ---- */

s64 clock_ns(clockid_t clk)
{
	struct timespec ts;

	if (syscall(SYS_clock_gettime, clk, &ts))
		return -1;
	return ts_ns(&ts);
}

s64 mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

void pass_time(s64 ns)
{
	struct timespec ts = ns_ts(ns);

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

const char *errname(int err)
{
	static __thread char buf[24];
	const char *s = strerrorname_np(err);

	if (s)
		return s;
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

/* ---- system calls ---- */

static int sys_ret(long ret)
{
	return ret < 0 ? -errno : 0;
}

int sys_clock_settime(clockid_t clk, s64 ns)
{
	struct timespec ts = ns_ts(ns);

	return sys_ret(syscall(SYS_clock_settime, clk, &ts));
}

int sys_clock_step(clockid_t clk, s64 offset)
{
	struct timex tx = { .modes = ADJ_SETOFFSET | ADJ_NANO };
	struct timespec ts = ns_ts(offset);

	tx.time.tv_sec = ts.tv_sec;
	tx.time.tv_usec = ts.tv_nsec;
	return sys_ret(syscall(SYS_clock_adjtime, clk, &tx));
}

int sys_clock_freq(clockid_t clk, long ppb)
{
	/* Scaled ppm: ppm with a 16-bit fraction. */
	struct timex tx = { .modes = ADJ_FREQUENCY,
			    .freq = (long)((double)ppb * 65536 / 1000) };

	return sys_ret(syscall(SYS_clock_adjtime, clk, &tx));
}

int sys_timer_create(clockid_t clk, int notify, int signo, int value,
		     pid_t tid, int *id)
{
	struct sigevent sev;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = notify;
	sev.sigev_signo = signo;
	sev.sigev_value.sival_int = value;
	sev.sigev_notify_thread_id = tid;
	return sys_ret(syscall(SYS_timer_create, clk, &sev, id));
}

int sys_timer_settime(int id, int flags, s64 value, s64 interval)
{
	struct itimerspec its = { ns_ts(interval), ns_ts(value) };

	return sys_ret(syscall(SYS_timer_settime, id, flags, &its, NULL));
}

int sys_timer_gettime(int id, s64 *value, s64 *interval)
{
	struct itimerspec its;

	if (syscall(SYS_timer_gettime, id, &its))
		return -errno;
	*value = ts_ns(&its.it_value);
	*interval = ts_ns(&its.it_interval);
	return 0;
}

int sys_timer_delete(int id)
{
	return sys_ret(syscall(SYS_timer_delete, id));
}

int sys_clock_nanosleep(clockid_t clk, int flags, s64 t, s64 *rem)
{
	struct timespec ts = ns_ts(t), r = { 0, 0 };
	long ret;

	ret = syscall(SYS_clock_nanosleep, clk, flags, &ts, &r);
	if (rem)
		*rem = ts_ns(&r);
	return sys_ret(ret);
}

/* ---- files ---- */

int write_file(const char *path, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	ssize_t n;
	int fd, len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? n : 0;
}

int read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return n;
}

int run_cmd(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	if (st < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* ---- waiting ---- */

char task_state(pid_t pid, pid_t tid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

bool wait_task_state(pid_t pid, pid_t tid, char state, s64 timeout_ns)
{
	s64 deadline = mono_ns() + timeout_ns;

	while (task_state(pid, tid) != state) {
		if (mono_ns() > deadline)
			return false;
		pass_time(MS(1));
	}
	return true;
}

bool read_within(int fd, void *buf, size_t len, s64 timeout_ns)
{
	s64 deadline = mono_ns() + timeout_ns, left;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		left = deadline - mono_ns();
		if (left <= 0 || poll(&pfd, 1, left / NSEC_PER_MSEC + 1) <= 0)
			return false;
		n = read(fd, (char *)buf + got, len - got);
		if (n <= 0)
			return false;
		got += n;
	}
	return true;
}

bool reap_within(pid_t pid, int *status, s64 timeout_ns)
{
	s64 deadline = mono_ns() + timeout_ns;

	while (waitpid(pid, status, WNOHANG) != pid) {
		if (mono_ns() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, status, 0);
			return false;
		}
		pass_time(MS(1));
	}
	return true;
}

pid_t sleeper_until_gone(clockid_t clk)
{
	int p[2], err;
	pid_t pid;
	char b;

	if (pipe(p))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(p[0]);
		close(p[1]);
		return err;
	}
	if (!pid) {
		close(p[0]);
		if (write(p[1], "s", 1) != 1)
			_exit(2);
		err = sys_clock_nanosleep(clk, 0, SEC(3600), NULL);
		_exit(err == -ENODEV ? 0 : 1);
	}
	close(p[1]);
	if (!read_within(p[0], &b, 1, SEC(10)) ||
	    !wait_task_state(pid, pid, 'S', SEC(10))) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -ETIMEDOUT;
	}
	close(p[0]);
	return pid;
}

static s64 stall_max;

static void *stall_monitor(void *arg)
{
	struct itimerspec its = { ns_ts(STALL_TICK_NS), ns_ts(STALL_TICK_NS) };
	unsigned long long n, ticks = 0;
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	s64 start = mono_ns(), late;

	if (fd < 0 || timerfd_settime(fd, 0, &its, NULL))
		return NULL;
	while (read(fd, &n, sizeof(n)) == sizeof(n)) {
		/* Late to the first of the n ticks it gets at once. */
		late = mono_ns() - start - (s64)(ticks + 1) * STALL_TICK_NS;
		if (late > __atomic_load_n(&stall_max, __ATOMIC_RELAXED))
			__atomic_store_n(&stall_max, late, __ATOMIC_RELAXED);
		ticks += n;
	}
	return NULL;
}

void stall_monitor_start(void)
{
	pthread_t t;

	if (!pthread_create(&t, NULL, stall_monitor, NULL))
		pthread_detach(t);
}

s64 stall_max_ns(void)
{
	return __atomic_load_n(&stall_max, __ATOMIC_RELAXED);
}

/* ---- lateness ---- */

void lates_add(struct lates *l, s64 late)
{
	if (late < 0) {
		l->early++;
		if (late < l->worst)
			l->worst = late;
	}
	if (l->n < (int)ARRAY_SIZE(l->v))
		l->v[l->n++] = late;
}

static int cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return (x > y) - (x < y);
}

void lates_sort(struct lates *l)
{
	qsort(l->v, l->n, sizeof(l->v[0]), cmp_s64);
}

s64 lates_pct(const struct lates *l, int pct)
{
	int i;

	if (!l->n)
		return 0;
	i = (int)((long long)(l->n - 1) * pct / 100);
	return l->v[i];
}

/* ---- statistics ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double median(double *v, int n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- timer signals ---- */

#define TSIG_MAX	4096

static struct tsig tsigs[TSIG_MAX];
static int tsigs_started, tsigs_done, tsig_signo;
static clockid_t tsig_clk;

static void tsig_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	s64 dev = clock_ns(tsig_clk), mono = mono_ns();
	int i = __atomic_fetch_add(&tsigs_started, 1, __ATOMIC_SEQ_CST);

	if (i < TSIG_MAX)
		tsigs[i] = (struct tsig){ si->si_value.sival_int,
					  si->si_overrun, gettid(), dev, mono };
	__atomic_fetch_add(&tsigs_done, 1, __ATOMIC_SEQ_CST);
	errno = saved;
}

void tsig_start(int signo, clockid_t clk)
{
	struct sigaction sa = { .sa_sigaction = tsig_handler,
				.sa_flags = SA_SIGINFO };
	sigset_t set;

	tsig_signo = signo;
	tsig_clk = clk;
	sigemptyset(&set);
	sigaddset(&set, signo);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigaction(signo, &sa, NULL);
}

int tsig_count(void)
{
	return __atomic_load_n(&tsigs_done, __ATOMIC_SEQ_CST);
}

const struct tsig *tsig_nth(int i)
{
	return i >= 0 && i < TSIG_MAX && i < tsig_count() ? &tsigs[i] : NULL;
}

int tsig_wait(int n, s64 timeout_ns)
{
	s64 deadline = mono_ns() + timeout_ns, left;
	struct timespec ts;
	sigset_t open;

	pthread_sigmask(SIG_SETMASK, NULL, &open);
	sigdelset(&open, tsig_signo);
	while (tsig_count() < n && (left = deadline - mono_ns()) > 0) {
		ts = ns_ts(left);
		ppoll(NULL, 0, &ts, &open);
	}
	return tsig_count();
}

void tsig_take(void)
{
	struct timespec zero = { 0, 0 };
	sigset_t open;

	pthread_sigmask(SIG_SETMASK, NULL, &open);
	sigdelset(&open, tsig_signo);
	while (ppoll(NULL, 0, &zero, &open) < 0 && errno == EINTR)
		;
}

void tsig_reset(void)
{
	__atomic_store_n(&tsigs_done, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&tsigs_started, 0, __ATOMIC_SEQ_CST);
}
