// SPDX-License-Identifier: GPL-2.0
/*
 * fdclock-timers: POSIX timers, timerfd and clock_nanosleep() on a dynamic (fd)
 * clock.
 *
 * usage: fdclock-timers [--name LABEL] [--only TEXT] [--slow] [--stalled] DEVICE
 *                       [-- REMOVE_CMD...]
 *        fdclock-timers [--name LABEL] [--only TEXT] --monotonic
 *
 * DEVICE is a /dev/ptpN whose clock runs (a ptp_sim instance), or, with
 * --stalled, one whose clock does not advance (QEMU's e1000e PHC).  A
 * running clock is first set to PHC_BASE_S, far from CLOCK_REALTIME, so
 * that an expiry taken in the wrong timescale shows.
 *
 * Each check of the table runs in a process of its own, killed after its
 * timeout: a broken kernel gives "not ok", not a stuck guest.  A check
 * prints "ok - timers: LABEL: CHECK[: PART]" or "not ok - ... (why)", and
 * the values worth seeing (lateness, counts) on a line of its own after an
 * ok.
 *
 * Lateness is the device time read first thing in the signal handler (or
 * right after a sleep returns) minus the expiry, in device ns; for a
 * relative timer the expiry taken is the device time read before arming
 * plus the delay, the earliest it may fire.  For a timerfd, the device
 * time is read right after the read() or poll() that saw the expiry.  An early expiry fails a check,
 * and so does one later than LATE_MAX_NS plus the longest the check's
 * process was kept from running (a thread measures it with a
 * CLOCK_MONOTONIC timerfd: a loaded host stalls TCG guests).  While a
 * check runs, the parent
 * reads debugfs clockdev/ptpN/expiries, the core's log of its decisions
 * ("EXPIRES DECIDED LATE_NS", device ns), every AUDIT_PERIOD_MS; the
 * "never early" check asserts DECIDED >= EXPIRES on every line seen.
 *
 * With REMOVE_CMD, which must unregister the clock (a ptp_sim
 * del_device), the last check removes the clock under armed timers and
 * timerfds, a sleeper and a blocked timerfd read.  --monotonic runs the checks that need no device on
 * CLOCK_MONOTONIC instead: mainline's semantics, for reference.
 *
 * Exit status: 0 when every check passed, 1 when one failed, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CLOCKFD			3
#define FD_TO_CLOCKID(fd)	((clockid_t)((~(unsigned int)(fd)) << 3 | CLOCKFD))
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id	_sigev_un._tid
#endif
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define __printf(a, b)		__attribute__((format(printf, a, b)))

#define NSEC_PER_USEC		1000LL
#define NSEC_PER_MSEC		1000000LL
#define NSEC_PER_SEC		1000000000LL
#define MS(ms)			((ms) * NSEC_PER_MSEC)
#define SEC(s)			((s) * NSEC_PER_SEC)

/* A running device clock starts here: far from CLOCK_REALTIME. */
#define PHC_BASE_S		1000
/*
 * Latest acceptable expiry on a running clock, on top of the longest the
 * check's process could not run (stall_ns(): QEMU TCG on a loaded host
 * stalls guests for up to a second).  It catches an expiry that waits for
 * a back-off or a stale prediction, not scheduling noise; fdclock-latency
 * measures the rest.
 */
#define LATE_MAX_NS		MS(200)
/* "Promptly": an expiry that a step of the clock made due (plus stalls). */
#define PROMPT_NS		MS(100)
/* Period of the stall monitor's CLOCK_MONOTONIC timerfd. */
#define STALL_TICK_NS		MS(10)
/* How far timer_gettime()'s view of the device time may be off. */
#define PRED_TOL_NS		MS(2)
#define PRED_TOL_SLOW_NS	MS(20)
/* CLOCK_MONOTONIC against a 0 ppm device clock over a second or so. */
#define RATE_TOL_NS		MS(1)
/* Frequency offsets dialled by the frequency checks, in ppm. */
#define FREQ_PPM		500
#define AUDIT_PERIOD_MS		10
#define DEFAULT_TIMEOUT_S	10
#define MANY_TIMERS		100
#define MANY_PROCS		4
#define MAX_FIRES		4096
/* Rounds of the checks that step the clock to catch a race. */
#define STEP_ROUNDS		20
/* Timers deleted around their expiry. */
#define DELETE_ROUNDS		2000
/* Rounds of the SIGEV_NONE check after a short-span rate estimate. */
#define NONE_ROUNDS		8
/* Rounds of steps of +-5 s in a row while a relative timer runs. */
#define BUSY_ROUNDS		5
#define BUSY_STEPS		2000
/* More lines than the core keeps (CLOCKDEV_EXPIRY_LOG, 64). */
#define LOG_MAX			256
/* A timer id that a process without timers does not have. */
#define NO_SUCH_TIMER		12345
/* Far enough ahead never to come during a run. */
#define FAR_AHEAD		SEC(3600)
/* Allowed clock reads of a stalled clock in STALL_WAIT_S with a timer armed. */
#define STALL_WAIT_S		3
#define STALL_MAX_READS		40

#define SIG_TIMER		(SIGRTMIN + 1)
/* Ignored: its periodic timer keeps the core reading the clock. */
#define SIG_BUSY		(SIGRTMIN + 3)

typedef long long s64;

/* Where a check runs: the kind of clock under test. */
enum mode {
	M_RUNNING	= 1 << 0,	/* a device clock that advances */
	M_STALLED	= 1 << 1,	/* a device clock that does not */
	M_MONO		= 1 << 2,	/* CLOCK_MONOTONIC, no device */
};

/* One line of debugfs clockdev/ptpN/expiries. */
struct expiry {
	unsigned long long expires;
	unsigned long long decided;
	long long late;
};

/**
 * struct audit - what the parent saw of the core's expiry log
 * @last:	the previous snapshot, to find where the new lines start
 * @nlast:	its length
 * @reads:	snapshots read
 * @lines:	lines audited (each once)
 * @bad:	lines with DECIDED < EXPIRES or an inconsistent LATE_NS
 * @max_late:	largest LATE_NS seen
 * @gaps:	snapshots that did not overlap the one before: lines missed
 * @first_bad:	the first bad line
 */
struct audit {
	struct expiry last[LOG_MAX];
	int nlast;
	long reads;
	long lines;
	long bad;
	long long max_late;
	int gaps;
	char first_bad[96];
};

struct check;

/**
 * struct ctx - the clock under test and the running check
 * @label:	names the clock in the output
 * @path:	the device, NULL with --monotonic
 * @mode:	enum mode of the clock
 * @fd:		the device, O_RDWR; stays open: the handler reads through it
 * @clk:	its clockid (CLOCK_MONOTONIC with --monotonic)
 * @dbgdir:	debugfs clockdev/ptpN, "" without a device
 * @remove_cmd:	the command that unregisters the clock, or NULL
 * @only:	run only the checks whose name holds this, or NULL
 * @check:	the check running in this process
 * @failed:	"not ok" lines this process printed
 * @audit:	the expiry log audit (kept by the parent)
 */
struct ctx {
	const char *label;
	const char *path;
	unsigned int mode;
	int fd;
	clockid_t clk;
	char dbgdir[128];
	char **remove_cmd;
	const char *only;
	const struct check *check;
	int failed;
	struct audit audit;
};

/**
 * struct check - one row of the table
 * @name:	printed after "timers: LABEL: "
 * @run:	runs in its own process and reports with report()
 * @modes:	enum mode bits where it applies
 * @arg:	variant, for @run
 * @timeout_s:	the process is killed after this (DEFAULT_TIMEOUT_S if 0)
 * @remove:	needs REMOVE_CMD
 */
struct check {
	const char *name;
	void (*run)(struct ctx *ctx, const struct check *c);
	unsigned int modes;
	int arg;
	int timeout_s;
	bool remove;
};

/* The outcome of one reported assertion. */
struct res {
	bool failed;
	char why[640];		/* the failures, "; " between them */
	char info[384];		/* values shown after an ok */
};

/* A signal of a timer, as the handler saw it. */
struct fire {
	int value;		/* sigev_value.sival_int: which timer */
	int overrun;		/* si_overrun */
	pid_t tid;		/* the thread the handler ran in */
	s64 dev;		/* the clock under test, read first */
	s64 mono;		/* CLOCK_MONOTONIC, read next */
};

static struct fire fires[MAX_FIRES];
static int fires_started, fires_done;
static clockid_t handler_clk;
static volatile sig_atomic_t got_usr1;
/* The longest the check's process was kept from running, ns. */
static s64 stall_max;
/*
 * How far timer_gettime()'s view of the device time may be off: PRED_TOL_NS,
 * or PRED_TOL_SLOW_NS with --slow (the debug kernel: KASAN and lockdep
 * stretch the reads the prediction is made from).
 */
static s64 pred_tol = PRED_TOL_NS;

/**
 * struct lates - the lateness of the expiries of a check, device ns
 * @n:		samples in @v
 * @early:	expiries that came early (negative lateness) ...
 * @worst:	... the earliest of them ...
 * @worst_value: ... and its timer
 * @v:		the samples
 */
struct lates {
	int n;
	int early;
	s64 worst;
	int worst_value;
	s64 v[MAX_FIRES];
};

/* ---- time ---- */

static s64 ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

static struct timespec ns_ts(s64 ns)
{
	struct timespec ts = { ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };

	if (ts.tv_nsec < 0) {
		ts.tv_sec--;
		ts.tv_nsec += NSEC_PER_SEC;
	}
	return ts;
}

/* @clk's time in ns, or -1 (errno set); a system call, signal-safe. */
static s64 clock_ns(clockid_t clk)
{
	struct timespec ts;

	if (syscall(SYS_clock_gettime, clk, &ts))
		return -1;
	return ts_ns(&ts);
}

static s64 mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static s64 dev_ns(const struct ctx *ctx)
{
	return clock_ns(ctx->clk);
}

/* Let @ns of CLOCK_MONOTONIC pass (not to wait for an event). */
static void pass_time(s64 ns)
{
	struct timespec ts = ns_ts(ns);

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/*
 * A thread reading a CLOCK_MONOTONIC timerfd that ticks every
 * STALL_TICK_NS: how late it gets to a tick is how long the process could
 * not run, which the bounds on lateness allow for.
 */
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

static s64 stall_ns(void)
{
	return __atomic_load_n(&stall_max, __ATOMIC_RELAXED);
}

/* The most an expiry may be late now: LATE_MAX_NS plus the stalls seen. */
static s64 late_bound(void)
{
	return LATE_MAX_NS + stall_ns();
}

static double us(s64 ns)
{
	return ns / 1e3;
}

static const char *errname(int err)
{
	const char *s = strerrorname_np(err);

	return s ? s : "errno?";
}

/* ---- results ---- */

static void res_add(char *buf, size_t len, const char *fmt, va_list ap)
{
	size_t n = strlen(buf);

	if (n + 8 >= len)
		return;
	if (n)
		n += snprintf(buf + n, len - n, "; ");
	vsnprintf(buf + n, len - n, fmt, ap);
}

static void __printf(2, 3) fail(struct res *r, const char *fmt, ...)
{
	va_list ap;

	r->failed = true;
	va_start(ap, fmt);
	res_add(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}

static void __printf(2, 3) info(struct res *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	res_add(r->info, sizeof(r->info), fmt, ap);
	va_end(ap);
}

/**
 * report() - print the result of one assertion of the running check
 * @ctx:	the check's context
 * @part:	what is asserted, after the check's name; NULL for none
 * @r:		the result
 */
static void report(struct ctx *ctx, const char *part, const struct res *r)
{
	printf("%sok - timers: %s: %s%s%s", r->failed ? "not " : "",
	       ctx->label, ctx->check->name, part ? ": " : "", part ? part : "");
	if (r->failed) {
		ctx->failed++;
		printf(" (%s)\n", r->why);
	} else {
		printf("\n");
	}
	if (r->info[0])
		printf("  %s\n", r->info);
	fflush(stdout);
}

static void skip(struct ctx *ctx, const char *part, const char *why)
{
	printf("ok - timers: %s: %s%s%s # SKIP %s\n", ctx->label,
	       ctx->check->name, part ? ": " : "", part ? part : "", why);
	fflush(stdout);
}

static void lates_add(struct lates *l, s64 late, int value)
{
	if (late < 0 && !l->early++)
		l->worst = 0;
	if (late < l->worst) {
		l->worst = late;
		l->worst_value = value;
	}
	if (l->n < MAX_FIRES)
		l->v[l->n++] = late;
}

static int cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return (x > y) - (x < y);
}

/**
 * lates_verdict() - judge the lateness of a check's expiries
 * @r:		receives the failures and, as info, the median and maximum
 * @l:		the samples
 * @bounded:	whether lateness is bounded, by late_bound()
 *
 * An expiry that came early is always a failure.
 */
static void lates_verdict(struct res *r, struct lates *l, bool bounded)
{
	s64 bound = bounded ? late_bound() : 0;
	int over = 0, i;

	if (!l->n)
		return;
	qsort(l->v, l->n, sizeof(l->v[0]), cmp_s64);
	for (i = 0; i < l->n; i++)
		over += bound && l->v[i] > bound;
	if (l->early)
		fail(r, "%d of %d expiries early, the worst (timer %d) by %lld ns",
		     l->early, l->n, l->worst_value, -l->worst);
	if (over)
		fail(r, "%d of %d expiries later than %.1f ms (%lld ms + %.1f ms of stalls), the latest by %.1f ms",
		     over, l->n, bound / 1e6, LATE_MAX_NS / NSEC_PER_MSEC,
		     stall_ns() / 1e6, l->v[l->n - 1] / 1e6);
	info(r, "%d expir%s, lateness p50 %.1f us, max %.1f us (device time)",
	     l->n, l->n > 1 ? "ies" : "y", us(l->v[l->n / 2]),
	     us(l->v[l->n - 1]));
	if (stall_ns() > MS(10))
		info(r, "the process was kept from running for up to %.1f ms",
		     stall_ns() / 1e6);
}

/* ---- timers and signals ---- */

static void on_timer(int sig, siginfo_t *si, void *uc)
{
	s64 dev = clock_ns(handler_clk), mono = mono_ns();
	int saved = errno;
	int i = __atomic_fetch_add(&fires_started, 1, __ATOMIC_SEQ_CST);

	if (i < MAX_FIRES)
		fires[i] = (struct fire){ si->si_value.sival_int,
					  si->si_overrun, gettid(), dev, mono };
	__atomic_fetch_add(&fires_done, 1, __ATOMIC_SEQ_CST);
	errno = saved;
}

static void on_usr1(int sig)
{
	got_usr1 = 1;
}

static int nfires(void)
{
	return __atomic_load_n(&fires_done, __ATOMIC_SEQ_CST);
}

/**
 * wait_fires() - let timer signals in until @n were handled in all
 * @n:		the count of handled signals to reach
 * @timeout_ns:	how long to wait at most (CLOCK_MONOTONIC)
 *
 * SIG_TIMER stays blocked outside this call, so signals are handled only
 * here, in the calling thread.
 *
 * Return: the count of handled signals.
 */
static int wait_fires(int n, s64 timeout_ns)
{
	s64 deadline = mono_ns() + timeout_ns, left;
	struct timespec ts;
	sigset_t open;

	pthread_sigmask(SIG_SETMASK, NULL, &open);
	sigdelset(&open, SIG_TIMER);
	while (nfires() < n && (left = deadline - mono_ns()) > 0) {
		ts = ns_ts(left);
		ppoll(NULL, 0, &ts, &open);
	}
	return nfires();
}

/* Handle the timer signals already pending, without waiting. */
static void take_signals(void)
{
	struct timespec zero = { 0, 0 };
	sigset_t open;

	pthread_sigmask(SIG_SETMASK, NULL, &open);
	sigdelset(&open, SIG_TIMER);
	while (ppoll(NULL, 0, &zero, &open) < 0 && errno == EINTR)
		;
}

/* timer_create(): 0 or -errno.  @tid is for SIGEV_THREAD_ID. */
static int tmr_create(clockid_t clk, int notify, int value, pid_t tid,
		      int *id)
{
	struct sigevent sev;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = notify;
	sev.sigev_signo = SIG_TIMER;
	sev.sigev_value.sival_int = value;
	sev.sigev_notify_thread_id = tid;
	return syscall(SYS_timer_create, clk, &sev, id) ? -errno : 0;
}

static int tmr_set(int id, int flags, s64 value, s64 interval)
{
	struct itimerspec its = { ns_ts(interval), ns_ts(value) };

	return syscall(SYS_timer_settime, id, flags, &its, NULL) ? -errno : 0;
}

static int tmr_get(int id, s64 *value, s64 *interval)
{
	struct itimerspec its;

	if (syscall(SYS_timer_gettime, id, &its))
		return -errno;
	*value = ts_ns(&its.it_value);
	*interval = ts_ns(&its.it_interval);
	return 0;
}

static int tmr_del(int id)
{
	return syscall(SYS_timer_delete, id) ? -errno : 0;
}

static int step_clock(const struct ctx *ctx, s64 offset)
{
	struct timex tx = { .modes = ADJ_SETOFFSET | ADJ_NANO };
	struct timespec ts = ns_ts(offset);

	tx.time.tv_sec = ts.tv_sec;
	tx.time.tv_usec = ts.tv_nsec;
	return syscall(SYS_clock_adjtime, ctx->clk, &tx) < 0 ? -errno : 0;
}

static int set_clock(const struct ctx *ctx, s64 ns)
{
	struct timespec ts = ns_ts(ns);

	return syscall(SYS_clock_settime, ctx->clk, &ts) ? -errno : 0;
}

static int set_freq_ppm(const struct ctx *ctx, long ppm)
{
	struct timex tx = { .modes = ADJ_FREQUENCY, .freq = ppm * 65536 };

	return syscall(SYS_clock_adjtime, ctx->clk, &tx) < 0 ? -errno : 0;
}

/**
 * judge_fire() - note the lateness of one signal, for lates_verdict()
 * @r:		receives a failure when the handler could not read the clock
 * @f:		the signal
 * @expiry:	the earliest device time it may come at
 * @l:		receives its lateness
 */
static void judge_fire(struct res *r, const struct fire *f, s64 expiry,
		       struct lates *l)
{
	if (f->dev < 0)
		fail(r, "timer %d: the handler could not read the clock",
		     f->value);
	else
		lates_add(l, f->dev - expiry, f->value);
}

/**
 * one_shot() - arm timer @id once and expect its one signal
 * @ctx:	the clock
 * @r:		receives failures
 * @id:		a timer on @ctx's clock notifying SIG_TIMER
 * @absolute:	arm with TIMER_ABSTIME at the device time now plus @delay
 * @delay:	device ns
 * @l:		receives the lateness
 *
 * Return: the signal, or NULL after a failure.
 */
static const struct fire *one_shot(const struct ctx *ctx, struct res *r,
				   int id, bool absolute, s64 delay,
				   struct lates *l)
{
	int before = nfires(), err;
	s64 t0 = dev_ns(ctx);

	err = tmr_set(id, absolute ? TIMER_ABSTIME : 0,
		      absolute ? t0 + delay : delay, 0);
	if (err) {
		fail(r, "timer_settime: %s", errname(-err));
		return NULL;
	}
	if (wait_fires(before + 1, delay + SEC(2)) <= before) {
		fail(r, "no signal %lld ms after a %lld ms timer",
		     (delay + SEC(2)) / NSEC_PER_MSEC, delay / NSEC_PER_MSEC);
		return NULL;
	}
	judge_fire(r, &fires[before], t0 + delay, l);
	return &fires[before];
}

/* ---- threads and processes ---- */

/* The scheduler state of @tid of @pid ('S', 'T', ...), or 0. */
static char task_state(pid_t pid, pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/*
 * Wait until thread @tid of @pid is in state @state, polling its /proc
 * stat: a sleep in the kernel sends no event to wait for.  False after
 * @timeout_ns.
 */
static bool wait_state(pid_t pid, pid_t tid, char state, s64 timeout_ns)
{
	s64 deadline = mono_ns() + timeout_ns;

	while (task_state(pid, tid) != state) {
		if (mono_ns() > deadline)
			return false;
		pass_time(MS(1));
	}
	return true;
}

/* Read exactly @len bytes from @fd within @timeout_ns; false otherwise. */
static bool read_within(int fd, void *buf, size_t len, s64 timeout_ns)
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

/* waitpid() for at most @timeout_ns; false (and @pid killed) on timeout. */
static bool reap_within(pid_t pid, int *status, s64 timeout_ns)
{
	s64 deadline = mono_ns() + timeout_ns;

	while (waitpid(pid, status, WNOHANG) != pid) {
		if (mono_ns() > deadline) {
			kill(pid, SIGKILL);
			return false;
		}
		pass_time(MS(1));
	}
	return true;
}

static bool join_within(pthread_t t, s64 timeout_ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts = ns_ts(ts_ns(&ts) + timeout_ns);
	return pthread_timedjoin_np(t, NULL, &ts) == 0;
}

/* ---- checks: creating timers ---- */

struct waiter {
	int ready[2];		/* the thread writes its tid here */
	pid_t tid;
	s64 timeout;
};

/* A thread that takes the timer signals sent to it (SIGEV_THREAD_ID). */
static void *signal_waiter(void *arg)
{
	struct waiter *w = arg;
	pid_t tid = gettid();

	if (write(w->ready[1], &tid, sizeof(tid)) != sizeof(tid))
		return NULL;
	wait_fires(1, w->timeout);
	return NULL;
}

/* SIGEV_THREAD_ID: the signal goes to the named thread, not early. */
static void fire_to_thread(const struct ctx *ctx, struct res *r, int *id,
			   struct lates *l)
{
	struct waiter w = { .timeout = SEC(3) };
	s64 t0, expiry;
	pthread_t t;
	int err;

	if (pipe(w.ready) || pthread_create(&t, NULL, signal_waiter, &w)) {
		fail(r, "thread: %s", strerror(errno));
		return;
	}
	if (!read_within(w.ready[0], &w.tid, sizeof(w.tid), SEC(2))) {
		fail(r, "the thread did not start");
		return;
	}
	err = tmr_create(ctx->clk, SIGEV_THREAD_ID, 0, w.tid, id);
	if (err) {
		fail(r, "timer_create: %s", errname(-err));
		*id = -1;
		return;
	}
	t0 = dev_ns(ctx);
	expiry = t0 + MS(50);
	err = tmr_set(*id, TIMER_ABSTIME, expiry, 0);
	if (err)
		fail(r, "timer_settime: %s", errname(-err));
	if (!join_within(t, SEC(4)) || nfires() < 1) {
		fail(r, "no signal reached the thread");
		return;
	}
	if (fires[0].tid != w.tid)
		fail(r, "the signal went to thread %d, not %d", fires[0].tid,
		     w.tid);
	judge_fire(r, &fires[0], expiry, l);
}

/* c->arg: SIGEV_SIGNAL or SIGEV_THREAD_ID */
static void check_create(struct ctx *ctx, const struct check *c)
{
	struct lates l = { 0 };
	struct res r = { 0 };
	int id = -1, err;

	if (c->arg == SIGEV_THREAD_ID) {
		fire_to_thread(ctx, &r, &id, &l);
	} else {
		err = tmr_create(ctx->clk, c->arg, 0, 0, &id);
		if (err) {
			fail(&r, "timer_create: %s", errname(-err));
			report(ctx, NULL, &r);
			return;
		}
		one_shot(ctx, &r, id, true, MS(50), &l);
	}
	lates_verdict(&r, &l, true);
	if (id >= 0) {
		err = tmr_del(id);
		if (err)
			fail(&r, "timer_delete: %s", errname(-err));
	}
	report(ctx, NULL, &r);
}

/* SIGEV_NONE: no signal; timer_gettime() counts down to 0, never early. */
static void check_sigev_none(struct ctx *ctx, const struct check *c)
{
	s64 t0, expiry, value, iv, last = -1, now, deadline;
	struct res r = { 0 };
	int id, err;

	err = tmr_create(ctx->clk, SIGEV_NONE, 0, 0, &id);
	if (err) {
		fail(&r, "timer_create: %s", errname(-err));
		report(ctx, NULL, &r);
		return;
	}
	t0 = dev_ns(ctx);
	expiry = t0 + MS(200);
	err = tmr_set(id, TIMER_ABSTIME, expiry, 0);
	if (err)
		fail(&r, "timer_settime: %s", errname(-err));
	deadline = mono_ns() + SEC(3);
	while (!err && mono_ns() < deadline) {
		err = tmr_get(id, &value, &iv);
		now = dev_ns(ctx);
		if (err) {
			fail(&r, "timer_gettime: %s", errname(-err));
			break;
		}
		if (value > expiry - t0 + pred_tol ||
		    (last >= 0 && value > last)) {
			fail(&r, "timer_gettime gave %lld ns after %lld ns (set %lld ns)",
			     value, last, expiry - t0);
			break;
		}
		if (!value) {
			if (now < expiry)
				fail(&r, "expired %lld ns early", expiry - now);
			else
				info(&r, "timer_gettime reached 0 %.1f us after the expiry",
				     us(now - expiry));
			break;
		}
		last = value;
		/* Close to the end, ask without pause: catch an early 0. */
		if (value > MS(10))
			pass_time(MS(5));
	}
	if (!r.failed && value)
		fail(&r, "timer_gettime still %lld ns after 3 s", value);
	if (nfires())
		fail(&r, "%d signals", nfires());
	err = tmr_del(id);
	if (err)
		fail(&r, "timer_delete: %s", errname(-err));
	report(ctx, NULL, &r);
}

/*
 * Poll timer_gettime() of SIGEV_NONE timer @id until it reports 0, without
 * pause for the last 20 ms: return the device time read right after the
 * first 0, or -1 after @timeout_ns.
 */
static s64 none_expired_at(const struct ctx *ctx, int id, s64 timeout_ns)
{
	s64 deadline = mono_ns() + timeout_ns, value, iv, now;

	while (mono_ns() < deadline) {
		if (tmr_get(id, &value, &iv))
			return -1;
		now = dev_ns(ctx);
		if (!value)
			return now;
		if (value > MS(20))
			pass_time(MS(5));
	}
	return -1;
}

/*
 * SIGEV_NONE right after the core measured the clock's rate over a short
 * span (a 1 ms relative timer: two reads about 1 ms apart): timer_gettime()
 * of a timer 1 s ahead must not reach 0 before the clock reaches the
 * expiry.  NONE_ROUNDS rounds; the lateness of the 0 is reported.
 */
static void check_sigev_none_rate(struct ctx *ctx, const struct check *c)
{
	struct lates l = { 0 }, probe = { 0 };
	int id = -1, tick = -1, err, i;
	struct res r = { 0 };
	s64 expiry, at;

	err = tmr_create(ctx->clk, SIGEV_NONE, 0, 0, &id);
	if (!err)
		err = tmr_create(ctx->clk, SIGEV_SIGNAL, 0, 0, &tick);
	for (i = 0; i < NONE_ROUNDS && !err && !r.failed; i++) {
		one_shot(ctx, &r, tick, false, MS(1), &probe);
		expiry = dev_ns(ctx) + SEC(1);
		err = tmr_set(id, TIMER_ABSTIME, expiry, 0);
		at = err ? 0 : none_expired_at(ctx, id, SEC(3));
		if (at < 0)
			fail(&r, "round %d: timer_gettime not 0 after 3 s", i);
		else if (!err)
			lates_add(&l, at - expiry, i);
	}
	if (err)
		fail(&r, "timer_create/settime: %s", errname(-err));
	if (id >= 0)
		tmr_del(id);
	if (tick >= 0)
		tmr_del(tick);
	lates_verdict(&r, &l, false);
	report(ctx, NULL, &r);
}

/* c->arg: O_RDONLY or O_RDWR; the timer works through either. */
static void check_open_mode(struct ctx *ctx, const struct check *c)
{
	struct lates l = { 0 };
	struct res r = { 0 };
	int fd, id, err;

	fd = open(ctx->path, c->arg);
	if (fd < 0) {
		fail(&r, "open %s: %s", ctx->path, strerror(errno));
		report(ctx, NULL, &r);
		return;
	}
	err = tmr_create(FD_TO_CLOCKID(fd), SIGEV_SIGNAL, 0, 0, &id);
	if (err) {
		fail(&r, "timer_create: %s", errname(-err));
		report(ctx, NULL, &r);
		return;
	}
	one_shot(ctx, &r, id, false, MS(50), &l);
	lates_verdict(&r, &l, true);
	err = tmr_del(id);
	if (err)
		fail(&r, "timer_delete: %s", errname(-err));
	close(fd);
	report(ctx, NULL, &r);
}

/* Pipes that start the timers of several processes at the same time. */
struct many_sync {
	int ready[2];	/* each process writes a byte when its timers exist */
	int go[2];	/* the device time to count from, once per process */
};

/**
 * arm_many() - MANY_TIMERS timers at once, each expected exactly once
 * @ctx:	the clock
 * @r:		receives the verdict
 * @sync:	NULL, or the pipes through which the expiries' base comes
 *
 * Absolute expiries 100 ms after the base, 1 ms apart, armed in reverse
 * order: each timer must fire exactly once, not early, within 5 s.  Their
 * lateness is reported, not bounded: under TCG the core takes a worker run
 * and a clock read per expiry and falls behind such a burst whenever the
 * host slows the guest (fdclock-latency measures it).
 */
static void arm_many(const struct ctx *ctx, struct res *r,
		     const struct many_sync *sync)
{
	int ids[MANY_TIMERS], seen[MANY_TIMERS] = { 0 }, i, n, err;
	s64 expiry[MANY_TIMERS], t0, armed;
	struct lates l = { 0 };

	for (i = 0; i < MANY_TIMERS; i++) {
		err = tmr_create(ctx->clk, SIGEV_SIGNAL, i, 0, &ids[i]);
		if (err) {
			fail(r, "timer_create #%d: %s", i, errname(-err));
			return;
		}
	}
	t0 = dev_ns(ctx);
	if (sync && (write(sync->ready[1], "", 1) != 1 ||
		     !read_within(sync->go[0], &t0, sizeof(t0), SEC(5)))) {
		fail(r, "no start");
		return;
	}
	for (i = MANY_TIMERS - 1; i >= 0; i--) {
		expiry[i] = t0 + MS(100) + i * MS(1);
		err = tmr_set(ids[i], TIMER_ABSTIME, expiry[i], 0);
		if (err)
			fail(r, "timer_settime #%d: %s", i, errname(-err));
	}
	armed = dev_ns(ctx);
	n = wait_fires(MANY_TIMERS, SEC(5));
	/* Anything extra would come right after. */
	n = wait_fires(n + 1, MS(50));
	for (i = 0; i < n && i < MAX_FIRES; i++) {
		if (fires[i].value < 0 || fires[i].value >= MANY_TIMERS) {
			fail(r, "signal with value %d", fires[i].value);
			continue;
		}
		seen[fires[i].value]++;
		judge_fire(r, &fires[i], expiry[fires[i].value], &l);
	}
	for (i = 0; i < MANY_TIMERS; i++)
		if (seen[i] != 1)
			fail(r, "timer %d fired %d times", i, seen[i]);
	for (i = 0; i < MANY_TIMERS; i++) {
		err = tmr_del(ids[i]);
		if (err)
			fail(r, "timer_delete #%d: %s", i, errname(-err));
	}
	lates_verdict(r, &l, false);
	info(r, "armed in %.1f ms", (armed - t0) / 1e6);
}

/*
 * c->arg processes, each with MANY_TIMERS timers on the clock, created
 * first and then armed on the same expiries.
 */
static void check_many(struct ctx *ctx, const struct check *c)
{
	int p[MANY_PROCS][2], i, status, started = 0;
	struct many_sync sync;
	struct res r = { 0 }, sub;
	pid_t pid[MANY_PROCS];
	char byte;
	s64 t0;

	if (c->arg == 1) {
		arm_many(ctx, &r, NULL);
		report(ctx, NULL, &r);
		return;
	}
	if (pipe(sync.ready) || pipe(sync.go))
		return;
	fflush(stdout);
	for (i = 0; i < c->arg; i++) {
		pid[i] = pipe(p[i]) ? -1 : fork();
		if (!pid[i]) {
			memset(&sub, 0, sizeof(sub));
			arm_many(ctx, &sub, &sync);
			_exit(write(p[i][1], &sub, sizeof(sub)) != sizeof(sub));
		}
	}
	while (started < c->arg &&
	       read_within(sync.ready[0], &byte, 1, SEC(5)))
		started++;
	t0 = dev_ns(ctx);
	for (i = 0; i < started; i++)
		if (write(sync.go[1], &t0, sizeof(t0)) != sizeof(t0))
			break;
	for (i = 0; i < c->arg; i++) {
		if (pid[i] < 0 ||
		    !read_within(p[i][0], &sub, sizeof(sub), SEC(8))) {
			fail(&r, "process %d gave no result", i);
			continue;
		}
		if (sub.failed)
			fail(&r, "process %d: %s", i, sub.why);
		info(&r, "process %d: %s", i, sub.info);
	}
	for (i = 0; i < c->arg; i++)
		if (pid[i] > 0)
			reap_within(pid[i], &status, SEC(1));
	report(ctx, NULL, &r);
}

/* ---- checks: the timer pins the clock, not the file ---- */

enum { PIN_CLOSE, PIN_DUP2 };

/* c->arg: PIN_CLOSE or PIN_DUP2, done to the fd after timer_create(). */
static void check_pin(struct ctx *ctx, const struct check *c)
{
	struct res r = { 0 };
	struct lates l = { 0 };
	int fd, id, err, null;
	s64 value, iv;

	fd = open(ctx->path, O_RDONLY);
	null = open("/dev/null", O_RDONLY);
	if (fd < 0 || null < 0) {
		fail(&r, "open: %s", strerror(errno));
		report(ctx, NULL, &r);
		return;
	}
	err = tmr_create(FD_TO_CLOCKID(fd), SIGEV_SIGNAL, 0, 0, &id);
	if (err) {
		fail(&r, "timer_create: %s", errname(-err));
		report(ctx, NULL, &r);
		return;
	}
	if (c->arg == PIN_CLOSE)
		close(fd);
	else
		dup2(null, fd);
	/* Armed after the fd is gone, then once more. */
	one_shot(ctx, &r, id, false, MS(50), &l);
	one_shot(ctx, &r, id, true, MS(50), &l);
	err = tmr_set(id, 0, SEC(10), 0);
	if (!err)
		err = tmr_get(id, &value, &iv);
	if (err)
		fail(&r, "timer_settime/gettime afterwards: %s", errname(-err));
	else if (value <= 0 || value > SEC(10))
		fail(&r, "timer_gettime afterwards: %lld ns left of 10 s",
		     value);
	err = tmr_del(id);
	if (err)
		fail(&r, "timer_delete: %s", errname(-err));
	lates_verdict(&r, &l, true);
	report(ctx, NULL, &r);
}

/* ---- checks: timer_settime, timer_gettime, overruns, deletion ---- */

enum { REL, ABS };

/**
 * judge_remaining() - check a remaining time from timer_gettime()
 * @r:		receives a failure
 * @what:	names the call in the failure
 * @value:	the remaining time it reported
 * @set:	the time armed: never to be exceeded
 * @expiry:	the expiry, device time
 * @before:	the device time read before the call ...
 * @after:	... and after it
 *
 * The core answers from its prediction of the device time, without a
 * read: what was left during the call, give or take pred_tol.
 */
static void judge_remaining(struct res *r, const char *what, s64 value,
			    s64 set, s64 expiry, s64 before, s64 after)
{
	if (value > set)
		fail(r, "%s: timer_gettime %lld ns, more than the %lld armed",
		     what, value, set);
	else if (value > expiry - before + pred_tol ||
		 value < expiry - after - pred_tol)
		fail(r, "%s: timer_gettime %lld ns, want %lld..%lld", what,
		     value, expiry - after - pred_tol,
		     expiry - before + pred_tol);
}

/* c->arg: REL or ABS; one-shot 100 ms; timer_gettime before and after. */
static void check_one_shot(struct ctx *ctx, const struct check *c)
{
	s64 t0, t1, expiry, value, iv;
	struct res r = { 0 };
	struct lates l = { 0 };
	int id, err, before;

	err = tmr_create(ctx->clk, SIGEV_SIGNAL, 0, 0, &id);
	if (err) {
		fail(&r, "timer_create: %s", errname(-err));
		report(ctx, NULL, &r);
		return;
	}
	t0 = dev_ns(ctx);
	expiry = t0 + MS(100);
	err = tmr_set(id, c->arg == ABS ? TIMER_ABSTIME : 0,
		      c->arg == ABS ? expiry : MS(100), 0);
	if (!err)
		err = tmr_get(id, &value, &iv);
	t1 = dev_ns(ctx);
	if (err) {
		fail(&r, "timer_settime/gettime: %s", errname(-err));
		report(ctx, NULL, &r);
		return;
	}
	judge_remaining(&r, "armed", value, MS(100), expiry, t0, t1);
	if (iv)
		fail(&r, "interval %lld, want 0", iv);
	before = nfires();
	if (wait_fires(before + 1, SEC(3)) <= before)
		fail(&r, "no signal 3 s after a 100 ms timer");
	else
		judge_fire(&r, &fires[before], expiry, &l);
	err = tmr_get(id, &value, &iv);
	if (err || value || iv)
		fail(&r, "timer_gettime after the expiry: %s, %lld ns",
		     err ? errname(-err) : "0", value);
	err = tmr_del(id);
	if (err)
		fail(&r, "timer_delete: %s", errname(-err));
	lates_verdict(&r, &l, true);
	report(ctx, NULL, &r);
}

/*
 * c->arg: REL or ABS; a 20 ms periodic timer, 10 signals.  The j-th signal
 * stands for expiry number j + (overruns so far): its handler must see at
 * least that expiry.
 */
static void check_periodic(struct ctx *ctx, const struct check *c)
{
	const s64 iv = MS(20);
	const int want = 10;
	s64 t0, value, giv, idx = -1;
	struct res r = { 0 };
	struct lates l = { 0 };
	int id, err, n, i;

	err = tmr_create(ctx->clk, SIGEV_SIGNAL, 0, 0, &id);
	if (err) {
		fail(&r, "timer_create: %s", errname(-err));
		report(ctx, NULL, &r);
		return;
	}
	t0 = dev_ns(ctx);
	err = tmr_set(id, c->arg == ABS ? TIMER_ABSTIME : 0,
		      c->arg == ABS ? t0 + iv : iv, iv);
	if (!err)
		err = tmr_get(id, &value, &giv);
	if (err) {
		fail(&r, "timer_settime/gettime: %s", errname(-err));
		report(ctx, NULL, &r);
		return;
	}
	if (giv != iv)
		fail(&r, "timer_gettime interval %lld, want %lld", giv, iv);
	n = wait_fires(want, want * iv + SEC(3));
	if (n < want)
		fail(&r, "%d signals of %d", n, want);
	for (i = 0; i < n; i++) {
		idx += 1 + fires[i].overrun;
		judge_fire(&r, &fires[i], t0 + iv + idx * iv, &l);
	}
	err = tmr_del(id);
	if (err)
		fail(&r, "timer_delete: %s", errname(-err));
	lates_verdict(&r, &l, true);
	report(ctx, NULL, &r);
}

/* timer_gettime() of an armed periodic timer, twice, in device time. */
static void check_gettime(struct ctx *ctx, const struct check *c)
{
	s64 t0, t1, expiry, value, iv;
	struct res r = { 0 };
	int id, err, i;

	err = tmr_create(ctx->clk, SIGEV_SIGNAL, 0, 0, &id);
	if (err) {
		fail(&r, "timer_create: %s", errname(-err));
		report(ctx, NULL, &r);
		return;
	}
	expiry = dev_ns(ctx) + SEC(2);
	err = tmr_set(id, TIMER_ABSTIME, expiry, MS(500));
	for (i = 0; i < 2 && !err; i++) {
		t0 = dev_ns(ctx);
		err = tmr_get(id, &value, &iv);
		t1 = dev_ns(ctx);
		if (err)
			break;
		judge_remaining(&r, i ? "after 100 ms" : "armed", value,
				SEC(2), expiry, t0, t1);
		if (iv != MS(500))
			fail(&r, "interval %lld, want 500 ms", iv);
		info(&r, "%lld ns left of %lld..%lld", value, expiry - t1,
		     expiry - t0);
		pass_time(MS(100));
	}
	if (err)
		fail(&r, "timer_settime/gettime: %s", errname(-err));
	err = tmr_del(id);
	if (err)
		fail(&r, "timer_delete: %s", errname(-err));
	report(ctx, NULL, &r);
}

/*
 * c->arg: SIGEV_NONE or SIGEV_SIGNAL; timer_gettime() right after the
 * clock was stepped forward by 1000 s counts from the new time: armed
 * 500 ms ahead of it, it reports at most 500 ms, STEP_ROUNDS times over.
 */
static void check_gettime_after_step(struct ctx *ctx, const struct check *c)
{
	s64 t0, t1, expiry, value, iv;
	int id = -1, err, i, bad = 0;
	struct res r = { 0 };
	char what[32];

	err = tmr_create(ctx->clk, c->arg, 0, 0, &id);
	for (i = 0; i < STEP_ROUNDS && !err; i++) {
		err = set_clock(ctx, dev_ns(ctx) + SEC(1000));
		t0 = dev_ns(ctx);
		expiry = t0 + MS(500);
		if (!err)
			err = tmr_set(id, TIMER_ABSTIME, expiry, 0);
		if (!err)
			err = tmr_get(id, &value, &iv);
		t1 = dev_ns(ctx);
		if (!err) {
			struct res one = { 0 };

			snprintf(what, sizeof(what), "round %d", i);
			judge_remaining(&one, what, value, MS(500), expiry,
					t0, t1);
			if (one.failed && !bad++)
				fail(&r, "%s", one.why);
		}
		/* Back where the other checks expect it. */
		if (!err)
			err = set_clock(ctx, dev_ns(ctx) - SEC(1000));
	}
	if (err)
		fail(&r, "timer_create/settime/gettime/clock_settime: %s",
		     errname(-err));
	else if (bad)
		fail(&r, "%d of %d rounds wrong", bad, STEP_ROUNDS);
	if (id >= 0) {
		err = tmr_del(id);
		if (err)
			fail(&r, "timer_delete: %s", errname(-err));
	}
	report(ctx, NULL, &r);
}

/*
 * Overruns: a 10 ms periodic timer whose signal stays blocked for 200 ms.
 * When it is let in, timer_getoverrun() and si_overrun count the periods
 * missed: more than 0, no more than the periods that passed.
 */
static void check_overrun(struct ctx *ctx, const struct check *c)
{
	const s64 iv = MS(10);
	struct res r = { 0 };
	s64 t0, most;
	int id, err, ov;

	err = tmr_create(ctx->clk, SIGEV_SIGNAL, 0, 0, &id);
	if (err) {
		fail(&r, "timer_create: %s", errname(-err));
		report(ctx, NULL, &r);
		return;
	}
	t0 = dev_ns(ctx);
	err = tmr_set(id, 0, iv, iv);
	if (err)
		fail(&r, "timer_settime: %s", errname(-err));
	pass_time(MS(200));
	if (!err && wait_fires(1, SEC(2)) < 1)
		fail(&r, "no signal");
	ov = syscall(SYS_timer_getoverrun, id);
	if (nfires()) {
		most = (fires[0].dev - (t0 + iv)) / iv;
		if (ov <= 0 || ov > most)
			fail(&r, "timer_getoverrun %d, want 1..%lld", ov, most);
		if (fires[0].overrun != ov)
			fail(&r, "si_overrun %d, timer_getoverrun %d",
			     fires[0].overrun, ov);
		info(&r, "overrun %d, at most %lld periods passed", ov, most);
	}
	err = tmr_del(id);
	if (err)
		fail(&r, "timer_delete: %s", errname(-err));
	report(ctx, NULL, &r);
}

/* timer_delete() of an armed timer: it never fires, its id is gone. */
static void check_delete(struct ctx *ctx, const struct check *c)
{
	struct res r = { 0 };
	int id, err;
	s64 value, iv;

	err = tmr_create(ctx->clk, SIGEV_SIGNAL, 0, 0, &id);
	if (!err)
		err = tmr_set(id, 0, MS(50), MS(10));
	if (!err)
		err = tmr_del(id);
	if (err) {
		fail(&r, "timer_create/settime/delete: %s", errname(-err));
		report(ctx, NULL, &r);
		return;
	}
	if (wait_fires(1, MS(300)))
		fail(&r, "%d signals after timer_delete", nfires());
	err = tmr_get(id, &value, &iv);
	if (err != -EINVAL)
		fail(&r, "timer_gettime of the deleted id: %s, want EINVAL",
		     err ? errname(-err) : "0");
	err = tmr_del(id);
	if (err != -EINVAL)
		fail(&r, "timer_delete again: %s, want EINVAL",
		     err ? errname(-err) : "0");
	report(ctx, NULL, &r);
}

/*
 * timer_delete() racing the expiry: DELETE_ROUNDS timers armed 0 to 1 ms
 * ahead (every other one periodic, 100 us) and deleted after 0 to 1 ms.
 * Every call succeeds; the kernel log (checked by the caller) stays clean.
 */
static void check_delete_race(struct ctx *ctx, const struct check *c)
{
	struct res r = { 0 };
	int id, err = 0, i;

	for (i = 0; i < DELETE_ROUNDS && !err; i++) {
		err = tmr_create(ctx->clk, SIGEV_SIGNAL, i, 0, &id);
		if (!err)
			err = tmr_set(id, 0, (i * 7919) % MS(1) + 1,
				      i % 2 ? 100 * NSEC_PER_USEC : 0);
		if (!err) {
			pass_time((i * 104729) % MS(1));
			err = tmr_del(id);
		}
		/* Take what came meanwhile: the signal queue stays short. */
		take_signals();
	}
	if (err)
		fail(&r, "round %d: %s", i - 1, errname(-err));
	info(&r, "%d rounds, %d signals came", i, nfires());
	report(ctx, NULL, &r);
}

static void want_errno(struct res *r, const char *call, int got, int want)
{
	if (got != -want)
		fail(r, "%s: %s, want %s", call, got ? errname(-got) : "0",
		     errname(want));
}

/* A timer id this process never had: EINVAL from every timer call. */
static void check_unknown_id(struct ctx *ctx, const struct check *c)
{
	struct itimerspec its = { { 0, 0 }, { 1, 0 } };
	struct res r = { 0 };
	s64 value, iv;
	int err;

	err = syscall(SYS_timer_settime, NO_SUCH_TIMER, 0, &its, NULL) ?
	      -errno : 0;
	want_errno(&r, "timer_settime", err, EINVAL);
	want_errno(&r, "timer_gettime", tmr_get(NO_SUCH_TIMER, &value, &iv),
		   EINVAL);
	err = syscall(SYS_timer_getoverrun, NO_SUCH_TIMER) < 0 ? -errno : 0;
	want_errno(&r, "timer_getoverrun", err, EINVAL);
	want_errno(&r, "timer_delete", tmr_del(NO_SUCH_TIMER), EINVAL);
	report(ctx, NULL, &r);
}

/* itimerspecs with tv_nsec out of range: EINVAL, the timer stays idle. */
static void check_bad_itimerspec(struct ctx *ctx, const struct check *c)
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
	struct res r = { 0 };
	s64 value, iv;
	int id, err;
	size_t i;

	err = tmr_create(ctx->clk, SIGEV_SIGNAL, 0, 0, &id);
	if (err) {
		fail(&r, "timer_create: %s", errname(-err));
		report(ctx, NULL, &r);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err = syscall(SYS_timer_settime, id, bad[i].flags, &bad[i].its,
			      NULL) ? -errno : 0;
		want_errno(&r, bad[i].what, err, EINVAL);
	}
	err = tmr_get(id, &value, &iv);
	if (err || value || iv)
		fail(&r, "timer_gettime afterwards: %s, %lld ns, interval %lld",
		     err ? errname(-err) : "0", value, iv);
	tmr_del(id);
	report(ctx, NULL, &r);
}

/* ---- checks: steps and frequency ---- */

/* An absolute timer 10 s ahead fires promptly when the clock is set past it. */
static void check_step_past(struct ctx *ctx, const struct check *c)
{
	struct lates l = { 0 };
	struct res r = { 0 };
	s64 expiry, m0;
	int id, err;

	err = tmr_create(ctx->clk, SIGEV_SIGNAL, 0, 0, &id);
	if (err) {
		fail(&r, "timer_create: %s", errname(-err));
		report(ctx, NULL, &r);
		return;
	}
	expiry = dev_ns(ctx) + SEC(10);
	err = tmr_set(id, TIMER_ABSTIME, expiry, 0);
	/* Let the core settle on its 10 s wait first. */
	pass_time(MS(50));
	if (!err)
		err = set_clock(ctx, expiry + SEC(1));
	m0 = mono_ns();
	if (err) {
		fail(&r, "timer_settime/clock_settime: %s", errname(-err));
	} else if (wait_fires(1, SEC(10)) < 1) {
		fail(&r, "no signal 10 s after the step");
	} else {
		judge_fire(&r, &fires[0], expiry, &l);
		if (fires[0].mono - m0 > PROMPT_NS + stall_ns())
			fail(&r, "fired %.1f ms after the step, want < %lld ms (+ %.1f ms of stalls)",
			     (fires[0].mono - m0) / 1e6,
			     PROMPT_NS / NSEC_PER_MSEC, stall_ns() / 1e6);
		info(&r, "fired %.1f ms after the step",
		     (fires[0].mono - m0) / 1e6);
	}
	set_clock(ctx, SEC(PHC_BASE_S));
	tmr_del(id);
	lates_verdict(&r, &l, false);
	report(ctx, NULL, &r);
}

/*
 * An absolute timer 300 ms ahead, the clock stepped back by 2 s at once:
 * it fires when the clock reaches it, about 2.3 s later.
 */
static void check_step_back_abs(struct ctx *ctx, const struct check *c)
{
	s64 expiry, m0, elapsed;
	struct lates l = { 0 };
	struct res r = { 0 };
	int id, err;

	err = tmr_create(ctx->clk, SIGEV_SIGNAL, 0, 0, &id);
	if (err) {
		fail(&r, "timer_create: %s", errname(-err));
		report(ctx, NULL, &r);
		return;
	}
	m0 = mono_ns();
	expiry = dev_ns(ctx) + MS(300);
	err = tmr_set(id, TIMER_ABSTIME, expiry, 0);
	if (!err)
		err = step_clock(ctx, -SEC(2));
	if (err) {
		fail(&r, "timer_settime/ADJ_SETOFFSET: %s", errname(-err));
	} else if (wait_fires(1, SEC(6)) < 1) {
		fail(&r, "no signal within 6 s");
	} else {
		judge_fire(&r, &fires[0], expiry, &l);
		elapsed = fires[0].mono - m0;
		if (elapsed < MS(2300) - RATE_TOL_NS)
			fail(&r, "fired %.1f ms after arming, want >= 2300 ms",
			     elapsed / 1e6);
		info(&r, "fired %.1f ms after arming (2300 ms of device time)",
		     elapsed / 1e6);
	}
	tmr_del(id);
	lates_verdict(&r, &l, true);
	report(ctx, NULL, &r);
}

/*
 * c->arg: the step in seconds.  A relative 500 ms timer, the clock stepped
 * 100 ms later: it still fires 500 ms after arming, in CLOCK_MONOTONIC.
 */
static void check_step_rel(struct ctx *ctx, const struct check *c)
{
	s64 m0, m1, early, late;
	struct res r = { 0 };
	int id, err;

	err = tmr_create(ctx->clk, SIGEV_SIGNAL, 0, 0, &id);
	if (err) {
		fail(&r, "timer_create: %s", errname(-err));
		report(ctx, NULL, &r);
		return;
	}
	m0 = mono_ns();
	err = tmr_set(id, 0, MS(500), 0);
	m1 = mono_ns();
	pass_time(MS(100));
	if (!err)
		err = step_clock(ctx, SEC(c->arg));
	if (err) {
		fail(&r, "timer_settime/ADJ_SETOFFSET: %s", errname(-err));
	} else if (wait_fires(1, SEC(8)) < 1) {
		fail(&r, "no signal within 8 s");
	} else {
		early = fires[0].mono - m0;
		late = fires[0].mono - m1;
		if (early < MS(500) - RATE_TOL_NS || late > MS(500) + late_bound())
			fail(&r, "fired %.1f ms after arming, want 500..%.1f ms",
			     late / 1e6, (MS(500) + late_bound()) / 1e6);
		info(&r, "fired %.1f ms after arming (CLOCK_MONOTONIC)",
		     late / 1e6);
	}
	set_clock(ctx, SEC(PHC_BASE_S));
	tmr_del(id);
	report(ctx, NULL, &r);
}

/*
 * c->arg: the step in seconds.  A relative SIGEV_NONE timer of 2 s, the
 * clock stepped 100 ms later: timer_gettime() 100 ms after the step still
 * counts down from the arming, in CLOCK_MONOTONIC terms (at 0 ppm).
 */
static void check_step_rel_none(struct ctx *ctx, const struct check *c)
{
	s64 m0, m1, m2, m3, value, iv;
	struct res r = { 0 };
	int id, err;

	err = tmr_create(ctx->clk, SIGEV_NONE, 0, 0, &id);
	if (err) {
		fail(&r, "timer_create: %s", errname(-err));
		report(ctx, NULL, &r);
		return;
	}
	m0 = mono_ns();
	err = tmr_set(id, 0, SEC(2), 0);
	m1 = mono_ns();
	pass_time(MS(100));
	if (!err)
		err = step_clock(ctx, SEC(c->arg));
	/* Let the core read the stepped clock. */
	pass_time(MS(100));
	m2 = mono_ns();
	if (!err)
		err = tmr_get(id, &value, &iv);
	m3 = mono_ns();
	if (err)
		fail(&r, "timer_settime/ADJ_SETOFFSET/gettime: %s",
		     errname(-err));
	else if (value > SEC(2) - (m2 - m1) + pred_tol ||
		 value < SEC(2) - (m3 - m0) - pred_tol)
		fail(&r, "timer_gettime %lld ns, want %lld..%lld", value,
		     SEC(2) - (m3 - m0) - pred_tol,
		     SEC(2) - (m2 - m1) + pred_tol);
	else
		info(&r, "%lld ns left after %.1f ms", value, (m3 - m0) / 1e6);
	set_clock(ctx, SEC(PHC_BASE_S));
	tmr_del(id);
	report(ctx, NULL, &r);
}

/*
 * One round of check_step_rel_busy(): arm @id 300 ms ahead (relative),
 * step the clock BUSY_STEPS times in a row, +5 s and -5 s in turn, and
 * expect the signal 300 ms after arming (CLOCK_MONOTONIC).
 * Return: the ms from arming to the signal.
 */
static double step_rel_round(const struct ctx *ctx, struct res *r, int id,
			     int round)
{
	int before = nfires(), err, i;
	s64 m0, m1, m2, elapsed, due;

	m0 = mono_ns();
	err = tmr_set(id, 0, MS(300), 0);
	m1 = mono_ns();
	for (i = 0; i < BUSY_STEPS && !err; i++)
		err = step_clock(ctx, i % 2 ? -SEC(5) : SEC(5));
	m2 = mono_ns();
	if (err) {
		fail(r, "round %d: timer_settime/ADJ_SETOFFSET: %s", round,
		     errname(-err));
		return 0;
	}
	if (wait_fires(before + 1, SEC(8)) <= before) {
		fail(r, "round %d: no signal within 8 s", round);
		return 0;
	}
	elapsed = fires[before].mono - m1;
	/*
	 * SIG_TIMER is blocked while the steps run and handled only in
	 * wait_fires(): when the steps outlast the timer (a slow, debug
	 * kernel), the signal cannot be seen before they end.
	 */
	due = m2 - m1 > MS(300) ? m2 - m1 : MS(300);
	if (fires[before].mono - m0 < MS(300) - RATE_TOL_NS ||
	    elapsed > due + late_bound())
		fail(r, "round %d: fired %.1f ms after arming, want 300..%.1f ms; the steps took %.1f ms",
		     round, elapsed / 1e6, (due + late_bound()) / 1e6,
		     (m2 - m1) / 1e6);
	return elapsed / 1e6;
}

/*
 * Relative timers while the clock is stepped in bursts and the core is
 * kept reading it by a 1 ms periodic timer whose signal is ignored: a step
 * that lands while the core reads must be followed like any other.
 */
static void check_step_rel_busy(struct ctx *ctx, const struct check *c)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	int busy = -1, id = -1, err, i;
	double ms[BUSY_ROUNDS];
	struct res r = { 0 };
	struct sigevent sev;

	sigaction(SIG_BUSY, &ign, NULL);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIG_BUSY;
	err = syscall(SYS_timer_create, ctx->clk, &sev, &busy) ? -errno : 0;
	if (!err)
		err = tmr_set(busy, 0, MS(1), MS(1));
	if (!err)
		err = tmr_create(ctx->clk, SIGEV_SIGNAL, 0, 0, &id);
	if (err)
		fail(&r, "timer_create/settime: %s", errname(-err));
	pass_time(MS(20));
	for (i = 0; i < BUSY_ROUNDS && !r.failed; i++)
		ms[i] = step_rel_round(ctx, &r, id, i);
	if (!r.failed)
		info(&r, "fired %.1f, %.1f, %.1f, %.1f, %.1f ms after arming",
		     ms[0], ms[1], ms[2], ms[3], ms[4]);
	if (busy >= 0)
		tmr_del(busy);
	if (id >= 0)
		tmr_del(id);
	set_clock(ctx, SEC(PHC_BASE_S));
	report(ctx, NULL, &r);
}

/*
 * c->arg: ppm.  With the clock's frequency offset, one-shot timers at
 * distances from 5 ms to 500 ms (absolute and relative) and a periodic
 * timer stay never early, and no later than late_bound().
 */
static void check_freq(struct ctx *ctx, const struct check *c)
{
	static const s64 dist_ms[] = { 5, 10, 20, 50, 100, 200, 300, 500 };
	struct res r = { 0 };
	struct lates l = { 0 };
	s64 t0, idx = -1;
	int id, err, n, i, first;
	size_t d;

	err = set_freq_ppm(ctx, c->arg);
	if (!err)
		err = tmr_create(ctx->clk, SIGEV_SIGNAL, 0, 0, &id);
	if (err) {
		fail(&r, "ADJ_FREQUENCY/timer_create: %s", errname(-err));
		report(ctx, NULL, &r);
		return;
	}
	for (d = 0; d < ARRAY_SIZE(dist_ms); d++) {
		one_shot(ctx, &r, id, true, MS(dist_ms[d]), &l);
		one_shot(ctx, &r, id, false, MS(dist_ms[d]), &l);
	}
	first = nfires();
	t0 = dev_ns(ctx);
	err = tmr_set(id, TIMER_ABSTIME, t0 + MS(20), MS(20));
	n = err ? first : wait_fires(first + 20, SEC(4));
	if (err || n < first + 20)
		fail(&r, "periodic: %d signals of 20 (%s)", n - first,
		     err ? errname(-err) : "timeout");
	for (i = first; i < n; i++) {
		idx += 1 + fires[i].overrun;
		judge_fire(&r, &fires[i], t0 + MS(20) + idx * MS(20), &l);
	}
	tmr_del(id);
	set_freq_ppm(ctx, 0);
	lates_verdict(&r, &l, true);
	report(ctx, NULL, &r);
}

/* ---- checks: a clock that does not advance ---- */

static long long read_counter(const struct ctx *ctx, const char *name)
{
	char path[192];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", ctx->dbgdir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static void check_stalled_clock(struct ctx *ctx, const struct check *c)
{
	struct res r = { 0 };
	s64 t0 = dev_ns(ctx), t1;

	pass_time(MS(100));
	t1 = dev_ns(ctx);
	if (t0 < 0 || t1 != t0)
		fail(&r, "read %lld then %lld 100 ms later", t0, t1);
	report(ctx, NULL, &r);
}

/*
 * A relative timer 1 s ahead on a clock that does not advance: no signal
 * within STALL_WAIT_S, and the core backs off (few reads of the clock).
 */
static void check_stalled_timer(struct ctx *ctx, const struct check *c)
{
	struct res fired = { 0 }, reads = { 0 };
	long long r0, r1;
	int id, err;

	r0 = read_counter(ctx, "timer_reads");
	err = tmr_create(ctx->clk, SIGEV_SIGNAL, 0, 0, &id);
	if (!err)
		err = tmr_set(id, 0, SEC(1), 0);
	if (err) {
		fail(&fired, "timer_create/settime: %s", errname(-err));
		report(ctx, "no expiry", &fired);
		return;
	}
	if (wait_fires(1, SEC(STALL_WAIT_S)))
		fail(&fired, "fired; the handler read %lld", fires[0].dev);
	r1 = read_counter(ctx, "timer_reads");
	if (r0 < 0 || r1 < 0)
		fail(&reads, "no debugfs %s/timer_reads", ctx->dbgdir);
	else if (r1 - r0 >= STALL_MAX_READS)
		fail(&reads, "%lld reads in %d s, want < %d", r1 - r0,
		     STALL_WAIT_S, STALL_MAX_READS);
	else
		info(&reads, "%lld reads in %d s", r1 - r0, STALL_WAIT_S);
	err = tmr_del(id);
	if (err)
		fail(&fired, "timer_delete: %s", errname(-err));
	report(ctx, "a relative timer 1 s ahead has not fired after 3 s",
	       &fired);
	report(ctx, "back-off: fewer than 40 clock reads in 3 s", &reads);
}

/*
 * A clock that does not advance but can be set: an absolute timer fires
 * promptly when the clock is set past its expiry.
 */
static void check_stalled_step(struct ctx *ctx, const struct check *c)
{
	struct lates l = { 0 };
	struct res r = { 0 };
	s64 base = SEC(PHC_BASE_S), m0;
	int id, err;

	if (set_clock(ctx, base) || dev_ns(ctx) != base) {
		skip(ctx, NULL, "the clock does not keep the time it is set to");
		return;
	}
	err = tmr_create(ctx->clk, SIGEV_SIGNAL, 0, 0, &id);
	if (!err)
		err = tmr_set(id, TIMER_ABSTIME, base + SEC(1), 0);
	/* Let the core back off: this is about a clock it gave up on. */
	pass_time(MS(1500));
	if (!err)
		err = set_clock(ctx, base + SEC(2));
	m0 = mono_ns();
	if (err) {
		fail(&r, "timer_create/settime/clock_settime: %s",
		     errname(-err));
	} else if (wait_fires(1, SEC(3)) < 1) {
		fail(&r, "no signal 3 s after the step");
	} else {
		judge_fire(&r, &fires[0], base + SEC(1), &l);
		if (fires[0].mono - m0 > PROMPT_NS + stall_ns())
			fail(&r, "fired %.1f ms after the step, want < %lld ms (+ %.1f ms of stalls)",
			     (fires[0].mono - m0) / 1e6,
			     PROMPT_NS / NSEC_PER_MSEC, stall_ns() / 1e6);
		info(&r, "fired %.1f ms after the step",
		     (fires[0].mono - m0) / 1e6);
	}
	tmr_del(id);
	lates_verdict(&r, &l, false);
	report(ctx, NULL, &r);
}

/* ---- checks: clock_nanosleep ---- */

/* clock_nanosleep() on @clk: 0 or the error number. */
static int nsleep(clockid_t clk, int flags, s64 t, struct timespec *rem)
{
	struct timespec ts = ns_ts(t);

	return clock_nanosleep(clk, flags, &ts, rem);
}

/* c->arg: REL or ABS; a 100 ms sleep ends after 100 ms of device time. */
static void check_sleep(struct ctx *ctx, const struct check *c)
{
	struct res r = { 0 };
	s64 t0, t1, expiry;
	int err;

	t0 = dev_ns(ctx);
	expiry = t0 + MS(100);
	err = nsleep(ctx->clk, c->arg == ABS ? TIMER_ABSTIME : 0,
		     c->arg == ABS ? expiry : MS(100), NULL);
	t1 = dev_ns(ctx);
	if (err)
		fail(&r, "clock_nanosleep: %s", errname(err));
	else if (t1 < expiry)
		fail(&r, "returned %lld ns early", expiry - t1);
	else if (t1 - expiry > late_bound())
		fail(&r, "returned %.1f us late", us(t1 - expiry));
	info(&r, "returned %.1f us after the expiry (device time)",
	     us(t1 - expiry));
	report(ctx, NULL, &r);
}

/* A CLOCK_MONOTONIC timer that sends SIGUSR1 to this thread after @t. */
static int usr1_after(s64 t, int *id)
{
	struct sigevent sev;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGUSR1;
	sev.sigev_notify_thread_id = gettid();
	if (syscall(SYS_timer_create, CLOCK_MONOTONIC, &sev, id))
		return -errno;
	return tmr_set(*id, 0, t, 0);
}

/*
 * c->arg: REL or ABS; a 2 s sleep, SIGUSR1 (with a handler) after 200 ms:
 * EINTR, and a relative sleep reports the time it had left.
 */
static void check_sleep_eintr(struct ctx *ctx, const struct check *c)
{
	struct timespec rem = { -1, -1 };
	struct res r = { 0 };
	s64 t0, t1, m0, left;
	sigset_t usr1;
	int id, err;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	err = usr1_after(MS(200), &id);
	if (err) {
		fail(&r, "CLOCK_MONOTONIC timer: %s", errname(-err));
		report(ctx, NULL, &r);
		return;
	}
	pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	m0 = mono_ns();
	t0 = dev_ns(ctx);
	err = nsleep(ctx->clk, c->arg == ABS ? TIMER_ABSTIME : 0,
		     c->arg == ABS ? t0 + SEC(2) : SEC(2), &rem);
	t1 = dev_ns(ctx);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	if (err != EINTR || !got_usr1) {
		fail(&r, "clock_nanosleep: %s after %.1f ms, want EINTR",
		     err ? errname(err) : "0", (mono_ns() - m0) / 1e6);
	} else if (c->arg == ABS) {
		if (rem.tv_sec != -1 || rem.tv_nsec != -1)
			fail(&r, "an absolute sleep wrote the remaining time");
	} else {
		/*
		 * A relative sleep counts from the core's first read after
		 * it began, and the core answers from its prediction: what
		 * was left, give or take pred_tol, or more by as much as
		 * an expiry may be late, never more than asked for.
		 */
		left = ts_ns(&rem);
		if (left > SEC(2) || left < SEC(2) - (t1 - t0) - pred_tol ||
		    left > SEC(2) - (t1 - t0) + pred_tol + late_bound())
			fail(&r, "remaining %lld ns, want %lld..%lld", left,
			     SEC(2) - (t1 - t0) - pred_tol,
			     SEC(2) - (t1 - t0) + pred_tol + late_bound());
		info(&r, "remaining %.3f ms after %.3f ms of device time (%.3f ms over)",
		     left / 1e6, (t1 - t0) / 1e6,
		     (left - (SEC(2) - (t1 - t0))) / 1e6);
	}
	syscall(SYS_timer_delete, id);
	report(ctx, NULL, &r);
}

struct sleep_result {
	int err;
	s64 dev;	/* device time the sleep took */
};

/*
 * c->arg: REL or ABS; a 1 s sleep in another process, stopped 200 ms in
 * for 300 ms (SIGSTOP, SIGCONT): it ends 1 s after it started, with 0.
 */
static void check_sleep_stop(struct ctx *ctx, const struct check *c)
{
	struct sleep_result sr;
	struct res r = { 0 };
	int p[2], status;
	pid_t pid;
	s64 t0;

	if (pipe(p)) {
		fail(&r, "pipe: %s", strerror(errno));
		report(ctx, NULL, &r);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (!pid) {
		t0 = dev_ns(ctx);
		sr.err = nsleep(ctx->clk, c->arg == ABS ? TIMER_ABSTIME : 0,
				c->arg == ABS ? t0 + SEC(1) : SEC(1), NULL);
		sr.dev = dev_ns(ctx) - t0;
		_exit(write(p[1], &sr, sizeof(sr)) != sizeof(sr));
	}
	if (pid < 0 || !wait_state(pid, pid, 'S', SEC(2))) {
		fail(&r, "the sleeper did not start");
		goto out;
	}
	pass_time(MS(200));
	kill(pid, SIGSTOP);
	if (!wait_state(pid, pid, 'T', SEC(1)))
		fail(&r, "the sleeper did not stop");
	pass_time(MS(300));
	kill(pid, SIGCONT);
	if (!read_within(p[0], &sr, sizeof(sr), SEC(3))) {
		fail(&r, "no result 3 s after SIGCONT");
	} else if (sr.err) {
		fail(&r, "clock_nanosleep: %s", errname(sr.err));
	} else if (sr.dev < SEC(1) || sr.dev > SEC(1) + late_bound()) {
		fail(&r, "slept %.1f ms of device time, want 1000..%.1f",
		     sr.dev / 1e6, (SEC(1) + late_bound()) / 1e6);
	} else {
		info(&r, "slept %.3f ms of device time", sr.dev / 1e6);
	}
out:
	if (pid > 0 && !reap_within(pid, &status, SEC(1)))
		fail(&r, "the sleeper did not exit");
	report(ctx, NULL, &r);
}

struct fd_sleeper {
	const struct ctx *ctx;
	int fd;
	pid_t tid;
	struct sleep_result sr;
};

static void *fd_sleeper(void *arg)
{
	struct fd_sleeper *s = arg;
	s64 t0 = dev_ns(s->ctx);

	__atomic_store_n(&s->tid, gettid(), __ATOMIC_SEQ_CST);
	s->sr.err = nsleep(FD_TO_CLOCKID(s->fd), 0, MS(300), NULL);
	s->sr.dev = dev_ns(s->ctx) - t0;
	return NULL;
}

/*
 * c->arg: PIN_CLOSE or PIN_DUP2, done to the fd by another thread while a
 * 300 ms relative sleep on it runs: the sleep ends after 300 ms with 0.
 */
static void check_sleep_fd(struct ctx *ctx, const struct check *c)
{
	struct fd_sleeper s = { .ctx = ctx, .tid = -1 };
	int null = open("/dev/null", O_RDONLY);
	struct res r = { 0 };
	s64 deadline;
	pthread_t t;

	s.fd = dup(ctx->fd);
	if (s.fd < 0 || null < 0 || pthread_create(&t, NULL, fd_sleeper, &s)) {
		fail(&r, "setup: %s", strerror(errno));
		report(ctx, NULL, &r);
		return;
	}
	deadline = mono_ns() + SEC(1);
	while (__atomic_load_n(&s.tid, __ATOMIC_SEQ_CST) < 0 &&
	       mono_ns() < deadline)
		pass_time(MS(1));
	if (s.tid < 0 || !wait_state(getpid(), s.tid, 'S', SEC(2))) {
		fail(&r, "the sleeping thread did not sleep");
	} else {
		if (c->arg == PIN_CLOSE)
			close(s.fd);
		else
			dup2(null, s.fd);
	}
	if (!join_within(t, SEC(3)))
		fail(&r, "the sleep did not end within 3 s");
	else if (s.sr.err)
		fail(&r, "clock_nanosleep: %s", errname(s.sr.err));
	else if (s.sr.dev < MS(300) || s.sr.dev > MS(300) + late_bound())
		fail(&r, "slept %.1f ms of device time, want 300..%.1f",
		     s.sr.dev / 1e6, (MS(300) + late_bound()) / 1e6);
	else
		info(&r, "slept %.3f ms of device time", s.sr.dev / 1e6);
	report(ctx, NULL, &r);
}

/* ---- checks: timerfd ---- */

/*
 * timerfd_create(), timerfd_settime() and timerfd_gettime() on a dynamic
 * clock: the timerfd expires in the device's time like a POSIX timer.
 * The lateness of an expiry is the device time read right after the read
 * (or poll) that saw it returned, minus the expiry.
 */

/* timerfd_create() on @clk: the fd, or -errno. */
static int tfd_create(clockid_t clk, int flags)
{
	int fd = timerfd_create(clk, flags);

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

/*
 * Wait up to @timeout_ns for POLLIN on timerfd @fd, then read it: the
 * expiration count, 0 on timeout, or -errno (of poll or read).  Other
 * poll events than POLLIN are a failure: -EBADE.
 */
static long long tfd_wait(int fd, s64 timeout_ns)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	s64 deadline = mono_ns() + timeout_ns, left;
	int n;

	for (;;) {
		left = deadline - mono_ns();
		if (left < 0)
			return 0;
		n = poll(&pfd, 1, left / NSEC_PER_MSEC + 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			continue;
		if (pfd.revents != POLLIN)
			return -EBADE;
		return tfd_read(fd);
	}
}

/* Whether timerfd @fd has an event pending now (poll with no wait). */
static short tfd_events(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) > 0 ? pfd.revents : 0;
}

static void tfd_wait_fail(struct res *r, const char *what, long long n,
			  s64 timeout_ns)
{
	if (n == 0)
		fail(r, "%s: no expiry within %.0f ms", what, timeout_ns / 1e6);
	else if (n == -EBADE)
		fail(r, "%s: poll gave other events than POLLIN", what);
	else
		fail(r, "%s: %s", what, errname(-n));
}

/*
 * c->arg: REL or ABS; a one-shot timerfd 100 ms ahead: timerfd_gettime
 * shows the time left, a blocking read returns 1 no earlier than the
 * expiry, then nothing more is pending and timerfd_gettime gives 0.
 */
static void check_tfd_one_shot(struct ctx *ctx, const struct check *c)
{
	s64 t0, t1, expiry, value = 0, iv = 0, now;
	struct lates l = { 0 };
	struct res r = { 0 };
	long long n;
	int fd, err;

	fd = tfd_create(ctx->clk, TFD_CLOEXEC);
	if (fd < 0) {
		fail(&r, "timerfd_create: %s", errname(-fd));
		report(ctx, NULL, &r);
		return;
	}
	t0 = dev_ns(ctx);
	expiry = t0 + MS(100);
	err = tfd_set(fd, c->arg == ABS ? TFD_TIMER_ABSTIME : 0,
		      c->arg == ABS ? expiry : MS(100), 0);
	if (!err)
		err = tfd_get(fd, &value, &iv);
	t1 = dev_ns(ctx);
	if (err) {
		fail(&r, "timerfd_settime/gettime: %s", errname(-err));
		report(ctx, NULL, &r);
		return;
	}
	judge_remaining(&r, "armed", value, MS(100), expiry, t0, t1);
	if (iv)
		fail(&r, "interval %lld, want 0", iv);
	/* Blocking: the check's timeout bounds it. */
	n = tfd_read(fd);
	now = dev_ns(ctx);
	if (n != 1)
		fail(&r, "read: %lld%s%s, want 1", n, n < 0 ? " " : "",
		     n < 0 ? errname(-n) : "");
	else
		lates_add(&l, now - expiry, 0);
	pass_time(MS(50));
	if (tfd_events(fd))
		fail(&r, "an event pending 50 ms after the read (revents %#x)",
		     tfd_events(fd));
	err = tfd_get(fd, &value, &iv);
	if (err || value || iv)
		fail(&r, "timerfd_gettime after the expiry: %s, %lld ns",
		     err ? errname(-err) : "0", value);
	close(fd);
	lates_verdict(&r, &l, true);
	report(ctx, NULL, &r);
}

/*
 * c->arg: REL or ABS; a 20 ms periodic timerfd read until it counted 10
 * expirations.  After each read, the device time is no earlier than the
 * last expiry counted so far (never early), and no later than an expiry
 * may be late past the one after it (none missed).
 */
static void check_tfd_periodic(struct ctx *ctx, const struct check *c)
{
	const s64 iv = MS(20);
	const int want = 10;
	s64 t0, t1, value = 0, giv = 0, now, last;
	long long n, total = 0;
	struct lates l = { 0 };
	struct res r = { 0 };
	int fd, err, reads = 0;

	fd = tfd_create(ctx->clk, TFD_CLOEXEC);
	if (fd < 0) {
		fail(&r, "timerfd_create: %s", errname(-fd));
		report(ctx, NULL, &r);
		return;
	}
	t0 = dev_ns(ctx);
	err = tfd_set(fd, c->arg == ABS ? TFD_TIMER_ABSTIME : 0,
		      c->arg == ABS ? t0 + iv : iv, iv);
	t1 = dev_ns(ctx);
	if (c->arg == ABS)
		t1 = t0;
	if (!err)
		err = tfd_get(fd, &value, &giv);
	if (err) {
		fail(&r, "timerfd_settime/gettime: %s", errname(-err));
		report(ctx, NULL, &r);
		return;
	}
	if (giv != iv)
		fail(&r, "timerfd_gettime interval %lld, want %lld", giv, iv);
	while (total < want && !r.failed) {
		n = tfd_wait(fd, iv + SEC(3));
		now = dev_ns(ctx);
		reads++;
		if (n <= 0) {
			tfd_wait_fail(&r, "read", n, iv + SEC(3));
			break;
		}
		total += n;
		/* The earliest the total-th expiry may be: armed at t0. */
		last = t0 + total * iv;
		lates_add(&l, now - last, (int)total);
		/* The next one came no later than late_bound() ago. */
		if (now - (t1 + (total + 1) * iv) > late_bound())
			fail(&r, "after %lld expirations the device time is %.1f ms past expiry %lld: undercounted",
			     total, (now - (t1 + (total + 1) * iv)) / 1e6,
			     total + 1);
	}
	close(fd);
	lates_verdict(&r, &l, true);
	info(&r, "%lld expirations in %d reads", total, reads);
	report(ctx, NULL, &r);
}

/*
 * A 10 ms periodic timerfd left unread for 200 ms: one read returns
 * every expiration that passed (the overruns counted), give or take the
 * one the reads around it straddle.
 */
static void check_tfd_overrun(struct ctx *ctx, const struct check *c)
{
	const s64 iv = MS(10);
	s64 t0, t1, before, after, most, least;
	struct res r = { 0 };
	long long n;
	int fd, err;

	fd = tfd_create(ctx->clk, TFD_CLOEXEC);
	if (fd < 0) {
		fail(&r, "timerfd_create: %s", errname(-fd));
		report(ctx, NULL, &r);
		return;
	}
	t0 = dev_ns(ctx);
	err = tfd_set(fd, 0, iv, iv);
	t1 = dev_ns(ctx);
	if (err) {
		fail(&r, "timerfd_settime: %s", errname(-err));
		report(ctx, NULL, &r);
		return;
	}
	pass_time(MS(200));
	before = dev_ns(ctx);
	n = tfd_read(fd);
	after = dev_ns(ctx);
	/* Expiry k is at (armed) + k * iv, armed in t0..t1. */
	most = (after - t0) / iv;
	least = (before - t1) / iv - 1;
	if (n < 0)
		fail(&r, "read: %s", errname(-n));
	else if (n > most || n < least)
		fail(&r, "read %lld expirations, want %lld..%lld", n, least,
		     most);
	else
		info(&r, "read %lld expirations, %lld..%lld passed", n, least,
		     most);
	close(fd);
	report(ctx, NULL, &r);
}

/*
 * poll() and epoll_wait() see EPOLLIN when a TFD_TIMER_ABSTIME timerfd
 * 50 ms ahead expires, not before; the read then returns 1.
 */
static void check_tfd_poll(struct ctx *ctx, const struct check *c)
{
	struct epoll_event ev = { .events = EPOLLIN }, got;
	struct pollfd pfd;
	struct lates l = { 0 };
	struct res r = { 0 };
	int fd, ep = -1, err, n, round;
	s64 expiry, now;
	long long ticks;

	fd = tfd_create(ctx->clk, TFD_CLOEXEC | TFD_NONBLOCK);
	if (fd >= 0)
		ep = epoll_create1(EPOLL_CLOEXEC);
	if (fd < 0 || ep < 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)) {
		fail(&r, "timerfd_create/epoll: %s",
		     fd < 0 ? errname(-fd) : strerror(errno));
		report(ctx, NULL, &r);
		return;
	}
	for (round = 0; round < 2; round++) {
		const char *what = round ? "epoll_wait" : "poll";

		expiry = dev_ns(ctx) + MS(50);
		err = tfd_set(fd, TFD_TIMER_ABSTIME, expiry, 0);
		if (err) {
			fail(&r, "timerfd_settime: %s", errname(-err));
			break;
		}
		ticks = tfd_read(fd);
		if (ticks != -EAGAIN)
			fail(&r, "%s: read before the expiry: %lld, want EAGAIN",
			     what, ticks);
		if (round) {
			n = epoll_wait(ep, &got, 1, 3000);
			now = dev_ns(ctx);
			if (n != 1 || got.events != EPOLLIN)
				fail(&r, "epoll_wait: %d, events %#x, want 1 with EPOLLIN",
				     n, n == 1 ? got.events : 0);
			else
				lates_add(&l, now - expiry, round);
		} else {
			pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
			n = poll(&pfd, 1, 3000);
			now = dev_ns(ctx);
			if (n != 1 || pfd.revents != POLLIN)
				fail(&r, "poll: %d, revents %#x, want 1 with POLLIN",
				     n, pfd.revents);
			else
				lates_add(&l, now - expiry, round);
		}
		ticks = tfd_read(fd);
		if (ticks != 1)
			fail(&r, "%s: read after the event: %lld, want 1", what,
			     ticks);
	}
	close(ep);
	close(fd);
	lates_verdict(&r, &l, true);
	report(ctx, NULL, &r);
}

/* timerfd_gettime() of an armed periodic timerfd, twice, in device time. */
static void check_tfd_gettime(struct ctx *ctx, const struct check *c)
{
	s64 t0, t1, expiry, value = 0, iv = 0;
	struct res r = { 0 };
	int fd, err, i;

	fd = tfd_create(ctx->clk, TFD_CLOEXEC);
	if (fd < 0) {
		fail(&r, "timerfd_create: %s", errname(-fd));
		report(ctx, NULL, &r);
		return;
	}
	expiry = dev_ns(ctx) + SEC(2);
	err = tfd_set(fd, TFD_TIMER_ABSTIME, expiry, MS(500));
	for (i = 0; i < 2 && !err; i++) {
		t0 = dev_ns(ctx);
		err = tfd_get(fd, &value, &iv);
		t1 = dev_ns(ctx);
		if (err)
			break;
		judge_remaining(&r, i ? "after 100 ms" : "armed", value,
				SEC(2), expiry, t0, t1);
		if (iv != MS(500))
			fail(&r, "interval %lld, want 500 ms", iv);
		info(&r, "%lld ns left of %lld..%lld", value, expiry - t1,
		     expiry - t0);
		pass_time(MS(100));
	}
	if (err)
		fail(&r, "timerfd_settime/gettime: %s", errname(-err));
	close(fd);
	report(ctx, NULL, &r);
}

/*
 * c->arg: PIN_CLOSE or PIN_DUP2, done to the clock's fd right after
 * timerfd_create(): the timerfd refers to the clock and still works.
 */
static void check_tfd_pin(struct ctx *ctx, const struct check *c)
{
	struct lates l = { 0 };
	struct res r = { 0 };
	int fd, tfd, null, err, i;
	s64 t0, value = 0, iv = 0, now;
	long long n;

	fd = open(ctx->path, O_RDONLY);
	null = open("/dev/null", O_RDONLY);
	if (fd < 0 || null < 0) {
		fail(&r, "open: %s", strerror(errno));
		report(ctx, NULL, &r);
		return;
	}
	tfd = tfd_create(FD_TO_CLOCKID(fd), TFD_CLOEXEC);
	if (tfd < 0) {
		fail(&r, "timerfd_create: %s", errname(-tfd));
		report(ctx, NULL, &r);
		return;
	}
	if (c->arg == PIN_CLOSE)
		close(fd);
	else
		dup2(null, fd);
	/* Armed after the fd is gone: relative, then absolute. */
	for (i = 0; i < 2; i++) {
		t0 = dev_ns(ctx);
		err = tfd_set(tfd, i ? TFD_TIMER_ABSTIME : 0,
			      i ? t0 + MS(50) : MS(50), 0);
		if (err) {
			fail(&r, "timerfd_settime: %s", errname(-err));
			break;
		}
		n = tfd_wait(tfd, SEC(3));
		now = dev_ns(ctx);
		if (n != 1) {
			if (n > 1)
				fail(&r, "read %lld, want 1", n);
			else
				tfd_wait_fail(&r, "read", n, SEC(3));
		} else {
			lates_add(&l, now - (t0 + MS(50)), i);
		}
	}
	err = tfd_set(tfd, 0, SEC(10), 0);
	if (!err)
		err = tfd_get(tfd, &value, &iv);
	if (err)
		fail(&r, "timerfd_settime/gettime afterwards: %s",
		     errname(-err));
	else if (value <= 0 || value > SEC(10))
		fail(&r, "timerfd_gettime afterwards: %lld ns left of 10 s",
		     value);
	close(tfd);
	lates_verdict(&r, &l, true);
	report(ctx, NULL, &r);
}

/* timerfd_create() with a clockid made of a pipe, or of a closed fd. */
static void check_tfd_bad_fd(struct ctx *ctx, const struct check *c)
{
	struct res r = { 0 };
	int p[2], fd;

	if (pipe(p)) {
		fail(&r, "pipe: %s", strerror(errno));
		report(ctx, NULL, &r);
		return;
	}
	fd = tfd_create(FD_TO_CLOCKID(p[0]), TFD_CLOEXEC);
	if (fd >= 0)
		close(fd);
	want_errno(&r, "a pipe", fd < 0 ? fd : 0, EINVAL);
	close(p[1]);
	close(p[0]);
	/* p[0] is closed now, and nothing took its number. */
	fd = tfd_create(FD_TO_CLOCKID(p[0]), TFD_CLOEXEC);
	if (fd >= 0)
		close(fd);
	want_errno(&r, "a closed fd", fd < 0 ? fd : 0, EINVAL);
	report(ctx, NULL, &r);
}

/**
 * struct tfd_reader - a thread blocked in read() (or poll()) of a timerfd
 * @fd:		the timerfd
 * @poll:	poll() for any event instead of reading
 * @tid:	the thread, once it runs
 * @ret:	what read() returned (the count or -errno), or poll's revents
 * @mono:	when it returned
 */
struct tfd_reader {
	int fd;
	bool poll;
	pid_t tid;
	long long ret;
	s64 mono;
};

static void *tfd_reader(void *arg)
{
	struct tfd_reader *rd = arg;
	struct pollfd pfd = { .fd = rd->fd, .events = POLLIN };

	__atomic_store_n(&rd->tid, gettid(), __ATOMIC_SEQ_CST);
	if (rd->poll)
		rd->ret = poll(&pfd, 1, -1) < 0 ? -errno : pfd.revents;
	else
		rd->ret = tfd_read(rd->fd);
	rd->mono = mono_ns();
	return NULL;
}

/* Start a tfd_reader and wait until it sleeps; false after a failure. */
static bool tfd_reader_start(struct res *r, struct tfd_reader *rd,
			     pthread_t *t)
{
	s64 deadline = mono_ns() + SEC(1);

	rd->tid = -1;
	if (pthread_create(t, NULL, tfd_reader, rd)) {
		fail(r, "pthread_create");
		return false;
	}
	while (__atomic_load_n(&rd->tid, __ATOMIC_SEQ_CST) < 0 &&
	       mono_ns() < deadline)
		pass_time(MS(1));
	if (rd->tid < 0 || !wait_state(getpid(), rd->tid, 'S', SEC(2))) {
		fail(r, "the reading thread did not block");
		return false;
	}
	return true;
}

/*
 * c->arg: 0 for clock_settime, 1 for ADJ_SETOFFSET.  A TFD_TIMER_ABSTIME |
 * TFD_TIMER_CANCEL_ON_SET timerfd 10 s ahead, the clock stepped +1 s
 * (still short of the expiry): a read blocked on it returns ECANCELED
 * promptly, and nothing else is pending after; then once more with the
 * step before the read, which poll sees as POLLIN.
 */
static void check_tfd_cancel(struct ctx *ctx, const struct check *c)
{
	struct tfd_reader rd;
	struct res r = { 0 };
	long long n;
	int fd, err = 0, round;
	s64 m0;
	pthread_t t;

	fd = tfd_create(ctx->clk, TFD_CLOEXEC);
	if (fd < 0) {
		fail(&r, "timerfd_create: %s", errname(-fd));
		report(ctx, NULL, &r);
		return;
	}
	for (round = 0; round < 2 && !r.failed; round++) {
		err = tfd_set(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET,
			      dev_ns(ctx) + SEC(10), 0);
		if (err) {
			fail(&r, "timerfd_settime: %s", errname(-err));
			break;
		}
		rd = (struct tfd_reader){ .fd = fd };
		if (!round && !tfd_reader_start(&r, &rd, &t))
			break;
		/* Let the core settle on its 10 s wait first. */
		pass_time(MS(50));
		err = c->arg ? step_clock(ctx, SEC(1)) :
			       set_clock(ctx, dev_ns(ctx) + SEC(1));
		m0 = mono_ns();
		if (err) {
			fail(&r, "%s: %s", c->arg ? "ADJ_SETOFFSET" :
			     "clock_settime", errname(-err));
			break;
		}
		if (!round) {
			if (!join_within(t, SEC(3))) {
				fail(&r, "blocked read: still blocked 3 s after the step");
				break;
			}
			n = rd.ret;
			m0 = rd.mono - m0;
		} else {
			n = tfd_wait(fd, SEC(3));
			m0 = mono_ns() - m0;
		}
		if (n != -ECANCELED)
			fail(&r, "%s: %lld%s%s, want ECANCELED",
			     round ? "poll and read" : "blocked read", n,
			     n < 0 ? " " : "", n < 0 ? errname(-n) : "");
		else if (m0 > PROMPT_NS + stall_ns())
			fail(&r, "%s: returned %.1f ms after the step",
			     round ? "poll and read" : "blocked read",
			     m0 / 1e6);
		else
			info(&r, "%s: ECANCELED %.1f ms after the step",
			     round ? "poll and read" : "blocked read",
			     m0 / 1e6);
		if (tfd_events(fd))
			fail(&r, "an event pending after ECANCELED (revents %#x)",
			     tfd_events(fd));
	}
	set_clock(ctx, SEC(PHC_BASE_S));
	close(fd);
	report(ctx, NULL, &r);
}

/*
 * An absolute timerfd 10 s ahead (without TFD_TIMER_CANCEL_ON_SET) fires
 * promptly when the clock is set past its expiry: read returns 1.
 */
static void check_tfd_step_past(struct ctx *ctx, const struct check *c)
{
	struct lates l = { 0 };
	struct res r = { 0 };
	s64 expiry, m0, now;
	long long n;
	int fd, err;

	fd = tfd_create(ctx->clk, TFD_CLOEXEC);
	if (fd < 0) {
		fail(&r, "timerfd_create: %s", errname(-fd));
		report(ctx, NULL, &r);
		return;
	}
	expiry = dev_ns(ctx) + SEC(10);
	err = tfd_set(fd, TFD_TIMER_ABSTIME, expiry, 0);
	pass_time(MS(50));
	if (!err)
		err = set_clock(ctx, expiry + SEC(1));
	m0 = mono_ns();
	if (err) {
		fail(&r, "timerfd_settime/clock_settime: %s", errname(-err));
	} else {
		n = tfd_wait(fd, SEC(10));
		now = dev_ns(ctx);
		m0 = mono_ns() - m0;
		if (n != 1) {
			if (n > 1)
				fail(&r, "read %lld, want 1", n);
			else
				tfd_wait_fail(&r, "read", n, SEC(10));
		} else {
			lates_add(&l, now - expiry, 0);
			if (m0 > PROMPT_NS + stall_ns())
				fail(&r, "fired %.1f ms after the step, want < %lld ms (+ %.1f ms of stalls)",
				     m0 / 1e6, PROMPT_NS / NSEC_PER_MSEC,
				     stall_ns() / 1e6);
			info(&r, "fired %.1f ms after the step", m0 / 1e6);
		}
	}
	set_clock(ctx, SEC(PHC_BASE_S));
	close(fd);
	lates_verdict(&r, &l, false);
	report(ctx, NULL, &r);
}

/*
 * c->arg: the step in seconds; a relative 500 ms timerfd (armed with
 * TFD_TIMER_CANCEL_ON_SET when the step is negative: without
 * TFD_TIMER_ABSTIME it means nothing), the clock stepped 100 ms later:
 * read returns 1 (not ECANCELED) 500 ms after arming, in CLOCK_MONOTONIC.
 */
static void check_tfd_step_rel(struct ctx *ctx, const struct check *c)
{
	s64 m0, m1, m2;
	struct res r = { 0 };
	long long n;
	int fd, err;

	fd = tfd_create(ctx->clk, TFD_CLOEXEC);
	if (fd < 0) {
		fail(&r, "timerfd_create: %s", errname(-fd));
		report(ctx, NULL, &r);
		return;
	}
	m0 = mono_ns();
	err = tfd_set(fd, c->arg < 0 ? TFD_TIMER_CANCEL_ON_SET : 0, MS(500),
		      0);
	m1 = mono_ns();
	pass_time(MS(100));
	if (!err)
		err = step_clock(ctx, SEC(c->arg));
	if (err) {
		fail(&r, "timerfd_settime/ADJ_SETOFFSET: %s", errname(-err));
	} else {
		n = tfd_wait(fd, SEC(8));
		m2 = mono_ns();
		if (n != 1) {
			if (n > 1)
				fail(&r, "read %lld, want 1", n);
			else
				tfd_wait_fail(&r, "read", n, SEC(8));
		} else if (m2 - m0 < MS(500) - RATE_TOL_NS ||
			   m2 - m1 > MS(500) + late_bound()) {
			fail(&r, "fired %.1f ms after arming, want 500..%.1f ms",
			     (m2 - m1) / 1e6, (MS(500) + late_bound()) / 1e6);
		}
		info(&r, "fired %.1f ms after arming (CLOCK_MONOTONIC)",
		     (m2 - m1) / 1e6);
	}
	set_clock(ctx, SEC(PHC_BASE_S));
	close(fd);
	report(ctx, NULL, &r);
}

/*
 * c->arg: the step in seconds; a relative periodic timerfd of 300 ms, the
 * clock stepped 100 ms after its first expiry was read: the re-armed timer
 * stays relative: the expirations read so far match the periods passed
 * in CLOCK_MONOTONIC (none at once, none 5 s late).
 */
static void check_tfd_step_rel_periodic(struct ctx *ctx, const struct check *c)
{
	const s64 iv = MS(300);
	s64 m0, m1, m2;
	struct res r = { 0 };
	long long n1 = 0, n2 = 0, total;
	int fd, err;

	fd = tfd_create(ctx->clk, TFD_CLOEXEC);
	if (fd < 0) {
		fail(&r, "timerfd_create: %s", errname(-fd));
		report(ctx, NULL, &r);
		return;
	}
	m0 = mono_ns();
	err = tfd_set(fd, 0, iv, iv);
	m1 = mono_ns();
	if (err) {
		fail(&r, "timerfd_settime: %s", errname(-err));
		goto out;
	}
	n1 = tfd_wait(fd, SEC(3));
	if (n1 <= 0) {
		tfd_wait_fail(&r, "first read", n1, SEC(3));
		goto out;
	}
	pass_time(MS(100));
	err = step_clock(ctx, SEC(c->arg));
	if (err) {
		fail(&r, "ADJ_SETOFFSET: %s", errname(-err));
		goto out;
	}
	n2 = tfd_wait(fd, SEC(8));
	m2 = mono_ns();
	if (n2 <= 0) {
		tfd_wait_fail(&r, "read after the step", n2, SEC(8));
		goto out;
	}
	total = n1 + n2;
	if (m2 - m0 < total * iv - RATE_TOL_NS ||
		 m2 - m1 > total * iv + late_bound())
		fail(&r, "expiration %lld read %.1f ms after arming, want %lld..%.1f ms",
		     total, (m2 - m1) / 1e6, total * iv / NSEC_PER_MSEC,
		     (total * iv + late_bound()) / 1e6);
	else
		info(&r, "expiration %lld read %.1f ms after arming (CLOCK_MONOTONIC)",
		     total, (m2 - m1) / 1e6);
out:
	set_clock(ctx, SEC(PHC_BASE_S));
	close(fd);
	report(ctx, NULL, &r);
}

/* ---- checks: removal of the clock ---- */

struct far_sleeper {
	const struct ctx *ctx;
	pid_t tid;
	int err;
	s64 mono;	/* when the sleep returned */
};

/* An absolute sleep FAR_AHEAD: only the removal of the clock ends it. */
static void *far_sleeper(void *arg)
{
	struct far_sleeper *s = arg;
	s64 until = dev_ns(s->ctx) + FAR_AHEAD;

	__atomic_store_n(&s->tid, gettid(), __ATOMIC_SEQ_CST);
	s->err = nsleep(s->ctx->clk, TIMER_ABSTIME, until, NULL);
	s->mono = mono_ns();
	return NULL;
}

/* Run REMOVE_CMD: CLOCK_MONOTONIC when it exited with 0, or -1. */
static s64 run_remove(const struct ctx *ctx, struct res *r)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		execvp(ctx->remove_cmd[0], ctx->remove_cmd);
		_exit(127);
	}
	if (pid < 0 || !reap_within(pid, &status, SEC(10))) {
		fail(r, "%s did not finish within 10 s", ctx->remove_cmd[0]);
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fail(r, "%s failed (status %#x)", ctx->remove_cmd[0], status);
		return -1;
	}
	return mono_ns();
}

/* The timers armed on the clock before it is removed. */
static const struct {
	const char *what;
	int notify;
	int flags;
	s64 value;	/* from the device time now when TIMER_ABSTIME */
	s64 interval;
} removal_timers[] = {
	{ "absolute one-shot", SIGEV_SIGNAL, TIMER_ABSTIME, FAR_AHEAD, 0 },
	{ "absolute periodic", SIGEV_SIGNAL, TIMER_ABSTIME, FAR_AHEAD, SEC(1) },
	{ "relative one-shot", SIGEV_SIGNAL, 0, SEC(30), 0 },
	{ "SIGEV_NONE", SIGEV_NONE, TIMER_ABSTIME, FAR_AHEAD, 0 },
};

/* Arm removal_timers and start the sleeper; false after a failure. */
static bool removal_setup(const struct ctx *ctx, struct res *r, int *ids,
			  struct far_sleeper *s, pthread_t *t)
{
	s64 t0 = dev_ns(ctx), deadline;
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(removal_timers); i++) {
		err = tmr_create(ctx->clk, removal_timers[i].notify, i, 0,
				 &ids[i]);
		if (!err)
			err = tmr_set(ids[i], removal_timers[i].flags,
				      removal_timers[i].value +
				      (removal_timers[i].flags ? t0 : 0),
				      removal_timers[i].interval);
		if (err) {
			fail(r, "%s: %s", removal_timers[i].what,
			     errname(-err));
			return false;
		}
	}
	if (pthread_create(t, NULL, far_sleeper, s)) {
		fail(r, "pthread_create");
		return false;
	}
	deadline = mono_ns() + SEC(1);
	while (__atomic_load_n(&s->tid, __ATOMIC_SEQ_CST) < 0 &&
	       mono_ns() < deadline)
		pass_time(MS(1));
	if (s->tid < 0 || !wait_state(getpid(), s->tid, 'S', SEC(2))) {
		fail(r, "the sleeper did not start sleeping");
		return false;
	}
	return true;
}

/**
 * struct tfd_removal - timerfds on the clock while it is removed
 * @abs:	armed TFD_TIMER_ABSTIME FAR_AHEAD, a thread blocked reading it
 * @rel:	armed relative 30 s, a thread blocked in poll() on it
 * @idle:	never armed
 * @reader:	the thread reading @abs ...
 * @poller:	... and the one polling @rel
 */
struct tfd_removal {
	int abs, rel, idle;
	struct tfd_reader reader, poller;
	pthread_t rt, pt;
};

/* Create and arm the timerfds of struct tfd_removal; false on a failure. */
static bool tfd_removal_setup(const struct ctx *ctx, struct res *r,
			      struct tfd_removal *tr)
{
	int err;

	tr->abs = tfd_create(ctx->clk, TFD_CLOEXEC);
	tr->rel = tfd_create(ctx->clk, TFD_CLOEXEC);
	tr->idle = tfd_create(ctx->clk, TFD_CLOEXEC | TFD_NONBLOCK);
	if (tr->abs < 0 || tr->rel < 0 || tr->idle < 0) {
		fail(r, "timerfd_create: %s", errname(-(tr->abs < 0 ? tr->abs :
			tr->rel < 0 ? tr->rel : tr->idle)));
		return false;
	}
	err = tfd_set(tr->abs, TFD_TIMER_ABSTIME, dev_ns(ctx) + FAR_AHEAD, 0);
	if (!err)
		err = tfd_set(tr->rel, 0, SEC(30), 0);
	if (err) {
		fail(r, "timerfd_settime: %s", errname(-err));
		return false;
	}
	tr->reader = (struct tfd_reader){ .fd = tr->abs };
	tr->poller = (struct tfd_reader){ .fd = tr->rel, .poll = true };
	return tfd_reader_start(r, &tr->reader, &tr->rt) &&
	       tfd_reader_start(r, &tr->poller, &tr->pt);
}

/* A read of timerfd @fd in a thread: its result, or 1 when it blocks 1 s. */
static long long tfd_read_bounded(int fd)
{
	struct tfd_reader rd = { .fd = fd };
	pthread_t t;

	if (pthread_create(&t, NULL, tfd_reader, &rd))
		return -EAGAIN;
	if (!join_within(t, SEC(1))) {
		pthread_detach(t);
		return 1;
	}
	return rd.ret;
}

/*
 * After the removal: the blocked read returns ENODEV and the blocked poll
 * POLLERR|POLLHUP, within PROMPT_NS; every read gives ENODEV, poll
 * POLLERR|POLLHUP, timerfd_settime and timerfd_gettime ENODEV, and a new
 * timerfd_create on the clock ENODEV.
 */
static void tfd_removal_judge(struct ctx *ctx, struct tfd_removal *tr,
			      s64 removed)
{
	struct res woken = { 0 }, rd = { 0 }, pl = { 0 }, set = { 0 };
	struct res fresh = { 0 };
	const struct { const char *what; int fd; } fds[] = {
		{ "absolute", tr->abs }, { "relative", tr->rel },
		{ "never armed", tr->idle },
	};
	long long n;
	s64 value = 0, iv = 0;
	short ev;
	size_t i;
	int err;

	if (!join_within(tr->rt, SEC(2)))
		fail(&woken, "read: still blocked 2 s after the removal");
	else if (tr->reader.ret != -ENODEV)
		fail(&woken, "read: %lld%s%s, want ENODEV", tr->reader.ret,
		     tr->reader.ret < 0 ? " " : "",
		     tr->reader.ret < 0 ? errname(-tr->reader.ret) : "");
	else if (tr->reader.mono - removed > PROMPT_NS + stall_ns())
		fail(&woken, "read returned %.1f ms after the removal",
		     (tr->reader.mono - removed) / 1e6);
	else
		info(&woken, "read returned %.1f ms after the remove command exited",
		     (tr->reader.mono - removed) / 1e6);
	if (!join_within(tr->pt, SEC(2)))
		fail(&woken, "poll: still blocked 2 s after the removal");
	else if (tr->poller.ret < 0 ||
		 (tr->poller.ret & (POLLERR | POLLHUP)) != (POLLERR | POLLHUP))
		fail(&woken, "poll: revents %#llx, want POLLERR|POLLHUP",
		     tr->poller.ret);
	else if (tr->poller.mono - removed > PROMPT_NS + stall_ns())
		fail(&woken, "poll returned %.1f ms after the removal",
		     (tr->poller.mono - removed) / 1e6);
	else
		info(&woken, "poll returned %.1f ms after the remove command exited",
		     (tr->poller.mono - removed) / 1e6);

	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		ev = tfd_events(fds[i].fd);
		if ((ev & (POLLERR | POLLHUP)) != (POLLERR | POLLHUP))
			fail(&pl, "%s: revents %#x", fds[i].what, ev);
		n = tfd_read_bounded(fds[i].fd);
		if (n != -ENODEV)
			fail(&rd, "%s: %s", fds[i].what, n == 1 ?
			     "blocks" : n < 0 ? errname(-n) : "a count");
		err = tfd_set(fds[i].fd, 0, MS(10), 0);
		if (err != -ENODEV)
			fail(&set, "%s: timerfd_settime: %s", fds[i].what,
			     err ? errname(-err) : "0");
		err = tfd_get(fds[i].fd, &value, &iv);
		if (err != -ENODEV)
			fail(&set, "%s: timerfd_gettime: %s", fds[i].what,
			     err ? errname(-err) : "0");
	}
	err = tfd_create(ctx->clk, TFD_CLOEXEC);
	if (err >= 0)
		close(err);
	want_errno(&fresh, "timerfd_create", err < 0 ? err : 0, ENODEV);
	for (i = 0; i < ARRAY_SIZE(fds); i++)
		close(fds[i].fd);

	report(ctx, "timerfd: a blocked read returns ENODEV, a blocked poll POLLERR|POLLHUP, within 100 ms",
	       &woken);
	report(ctx, "timerfd: read returns ENODEV", &rd);
	report(ctx, "timerfd: poll reports POLLERR|POLLHUP", &pl);
	report(ctx, "timerfd: timerfd_settime and timerfd_gettime return ENODEV",
	       &set);
	report(ctx, "timerfd: a new timerfd_create gets ENODEV", &fresh);
}

/*
 * Remove the clock (REMOVE_CMD) under armed timers and a sleeping thread:
 * the sleep ends with ENODEV at once, timer_settime() and timer_gettime()
 * fail with ENODEV, timer_delete() succeeds, and no timer fires.
 */
static void check_removal(struct ctx *ctx, const struct check *c)
{
	struct res setup = { 0 }, sleeper = { 0 }, set = { 0 }, get = { 0 };
	struct res quiet = { 0 }, del = { 0 }, fresh = { 0 };
	struct far_sleeper s = { .ctx = ctx, .tid = -1 };
	int ids[ARRAY_SIZE(removal_timers)], err, id;
	struct tfd_removal tr;
	struct timespec ts = { 0, 0 };
	s64 removed, value, iv;
	pthread_t t;
	size_t i;

	removed = removal_setup(ctx, &setup, ids, &s, &t) &&
		  tfd_removal_setup(ctx, &setup, &tr) ?
		  run_remove(ctx, &setup) : -1;
	if (removed < 0) {
		report(ctx, "setup and remove command", &setup);
		return;
	}
	if (!join_within(t, SEC(2)))
		fail(&sleeper, "still asleep 2 s after the removal");
	else if (s.err != ENODEV)
		fail(&sleeper, "clock_nanosleep: %s, want ENODEV",
		     s.err ? errname(s.err) : "0");
	else if (s.mono - removed > PROMPT_NS + stall_ns())
		fail(&sleeper, "returned %.1f ms after the removal",
		     (s.mono - removed) / 1e6);
	else
		info(&sleeper, "returned %.1f ms after the remove command exited",
		     (s.mono - removed) / 1e6);

	for (i = 0; i < ARRAY_SIZE(removal_timers); i++) {
		err = tmr_set(ids[i], 0, MS(10), 0);
		if (err != -ENODEV)
			fail(&set, "%s: %s", removal_timers[i].what,
			     err ? errname(-err) : "0");
		err = tmr_get(ids[i], &value, &iv);
		if (err != -ENODEV)
			fail(&get, "%s: %s", removal_timers[i].what,
			     err ? errname(-err) : "0");
	}
	if (wait_fires(1, MS(500)))
		fail(&quiet, "%d signals, the first of timer %d", nfires(),
		     fires[0].value);
	for (i = 0; i < ARRAY_SIZE(removal_timers); i++) {
		err = tmr_del(ids[i]);
		if (err)
			fail(&del, "%s: %s", removal_timers[i].what,
			     errname(-err));
	}
	err = tmr_create(ctx->clk, SIGEV_SIGNAL, 0, 0, &id);
	want_errno(&fresh, "timer_create", err, ENODEV);
	err = clock_nanosleep(ctx->clk, TIMER_ABSTIME, &ts, NULL);
	if (err != ENODEV)
		fail(&fresh, "clock_nanosleep: %s, want ENODEV",
		     err ? errname(err) : "0");

	report(ctx, "a sleeper returns ENODEV within 100 ms", &sleeper);
	report(ctx, "timer_settime returns ENODEV", &set);
	report(ctx, "timer_gettime returns ENODEV", &get);
	report(ctx, "no timer fires after the removal", &quiet);
	report(ctx, "timer_delete returns 0", &del);
	report(ctx, "a new timer or sleep gets ENODEV", &fresh);
	tfd_removal_judge(ctx, &tr, removed);
}

/* ---- the core's expiry log ---- */

/* Read debugfs clockdev/ptpN/expiries into @e; its line count or -1. */
static int read_expiries(const struct ctx *ctx, struct expiry *e, int max)
{
	char path[192];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/expiries", ctx->dbgdir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (n < max && fscanf(f, "%llu %llu %lld", &e[n].expires,
				 &e[n].decided, &e[n].late) == 3)
		n++;
	fclose(f);
	return n;
}

static void audit_line(struct audit *a, const struct expiry *e)
{
	a->lines++;
	if (e->decided >= e->expires &&
	    (long long)(e->decided - e->expires) == e->late) {
		if (e->late > a->max_late)
			a->max_late = e->late;
		return;
	}
	if (!a->bad++)
		snprintf(a->first_bad, sizeof(a->first_bad), "%llu %llu %lld",
			 e->expires, e->decided, e->late);
}

/*
 * Audit the lines of the expiry log that are new since the last call: the
 * log is a ring of the last decisions, oldest first, so the new ones follow
 * the last line seen before.  When that line is gone, the ring turned over
 * more than once in between: lines were missed (counted in @gaps).
 */
static void audit_poll(struct ctx *ctx)
{
	struct audit *a = &ctx->audit;
	struct expiry cur[LOG_MAX];
	int n, i, start = 0;

	if (!ctx->dbgdir[0])
		return;
	n = read_expiries(ctx, cur, LOG_MAX);
	if (n < 0)
		return;
	a->reads++;
	if (a->nlast && n) {
		const struct expiry *l = &a->last[a->nlast - 1];

		for (i = n - 1; i >= 0; i--)
			if (cur[i].expires == l->expires &&
			    cur[i].decided == l->decided)
				break;
		if (i >= 0)
			start = i + 1;
		else
			a->gaps++;
	}
	for (i = start; i < n; i++)
		audit_line(a, &cur[i]);
	if (n) {
		memcpy(a->last, cur, n * sizeof(cur[0]));
		a->nlast = n;
	}
}

/* Every line of the log seen while the checks ran: DECIDED >= EXPIRES. */
static void check_audit(struct ctx *ctx, const struct check *c)
{
	const struct audit *a = &ctx->audit;
	struct res r = { 0 };

	if (!a->reads)
		fail(&r, "no %s/expiries to read", ctx->dbgdir);
	else if (a->bad)
		fail(&r, "%ld of %ld lines early or inconsistent, first \"%s\"",
		     a->bad, a->lines, a->first_bad);
	else if (!a->lines && ctx->mode == M_RUNNING)
		fail(&r, "the core logged no expiry");
	if (a->reads)
		info(&r, "%ld lines, max LATE_NS %lld; %d reads found the log turned over (lines missed)",
		     a->lines, a->max_late, a->gaps);
	report(ctx, NULL, &r);
}

/* ---- the table ---- */

#define ANY_CLOCK	(M_RUNNING | M_MONO)
#define ALWAYS		(M_RUNNING | M_STALLED | M_MONO)

static const struct check checks[] = {
	{ "timer_create SIGEV_SIGNAL: fires, not early", check_create,
	  ANY_CLOCK, SIGEV_SIGNAL },
	{ "timer_create SIGEV_THREAD_ID: fires in that thread, not early",
	  check_create, ANY_CLOCK, SIGEV_THREAD_ID },
	{ "timer_create through an O_RDONLY fd", check_open_mode, M_RUNNING,
	  O_RDONLY },
	{ "100 timers in one process, each fires once, not early", check_many,
	  ANY_CLOCK, 1 },
	{ "4 processes with 100 timers each on the clock", check_many,
	  ANY_CLOCK, MANY_PROCS, 15 },
	{ "close the fd after timer_create: the timer still works", check_pin,
	  M_RUNNING, PIN_CLOSE },
	{ "dup2 over the fd after timer_create: the timer still works",
	  check_pin, M_RUNNING, PIN_DUP2 },
	{ "relative one-shot 100 ms", check_one_shot, ANY_CLOCK, REL },
	{ "TIMER_ABSTIME one-shot 100 ms ahead", check_one_shot, ANY_CLOCK,
	  ABS },
	{ "relative periodic 20 ms", check_periodic, ANY_CLOCK, REL },
	{ "TIMER_ABSTIME periodic 20 ms", check_periodic, ANY_CLOCK, ABS },
	{ "timer_gettime: remaining time and interval in device time",
	  check_gettime, ANY_CLOCK },
	{ "SIGEV_NONE: timer_gettime counts down to 0, not early",
	  check_sigev_none, ANY_CLOCK },
	{ "SIGEV_NONE: timer_gettime reaches 0 no earlier than the clock, after a short-span rate estimate",
	  check_sigev_none_rate, M_RUNNING, 0, 20 },
	{ "timer_gettime right after clock_settime +1000 s (SIGEV_NONE)",
	  check_gettime_after_step, M_RUNNING, SIGEV_NONE },
	{ "timer_gettime right after clock_settime +1000 s (SIGEV_SIGNAL)",
	  check_gettime_after_step, M_RUNNING, SIGEV_SIGNAL },
	{ "timer_getoverrun counts the periods missed while blocked",
	  check_overrun, ANY_CLOCK },
	{ "timer_delete of an armed timer: no signal, id gone", check_delete,
	  ALWAYS },
	{ "timer_delete racing the expiry, 2000 rounds", check_delete_race,
	  ANY_CLOCK, 0, 30 },
	{ "unknown timer id: EINVAL", check_unknown_id, ALWAYS },
	{ "itimerspec with tv_nsec out of range: EINVAL",
	  check_bad_itimerspec, ALWAYS },
	{ "step: clock_settime past an absolute timer 10 s ahead fires it promptly",
	  check_step_past, M_RUNNING, 0, 20 },
	{ "step: ADJ_SETOFFSET -2 s postpones an absolute timer",
	  check_step_back_abs, M_RUNNING, 0, 12 },
	{ "step: a relative timer ignores a step of +5 s", check_step_rel,
	  M_RUNNING, 5, 15 },
	{ "step: a relative timer ignores a step of -5 s", check_step_rel,
	  M_RUNNING, -5, 15 },
	{ "step: a relative SIGEV_NONE timer ignores a step of +5 s",
	  check_step_rel_none, M_RUNNING, 5 },
	{ "step: a relative SIGEV_NONE timer ignores a step of -5 s",
	  check_step_rel_none, M_RUNNING, -5 },
	{ "step: relative timers ignore 5 bursts of 2000 steps of +-5 s while the core reads",
	  check_step_rel_busy, M_RUNNING, 0, 30 },
	{ "frequency +500 ppm: not early, lateness bounded", check_freq,
	  M_RUNNING, FREQ_PPM, 20 },
	{ "frequency -500 ppm: not early, lateness bounded", check_freq,
	  M_RUNNING, -FREQ_PPM, 20 },
	{ "stalled clock: the clock does not advance", check_stalled_clock,
	  M_STALLED },
	{ "stalled clock", check_stalled_timer, M_STALLED },
	{ "stalled clock: clock_settime past an absolute timer fires it promptly",
	  check_stalled_step, M_STALLED },
	{ "clock_nanosleep relative 100 ms", check_sleep, ANY_CLOCK, REL },
	{ "clock_nanosleep TIMER_ABSTIME 100 ms ahead", check_sleep,
	  ANY_CLOCK, ABS },
	{ "clock_nanosleep relative: a handled signal gives EINTR and the time left",
	  check_sleep_eintr, ANY_CLOCK, REL },
	{ "clock_nanosleep TIMER_ABSTIME: a handled signal gives EINTR",
	  check_sleep_eintr, ANY_CLOCK, ABS },
	{ "clock_nanosleep relative: restarted transparently after SIGSTOP/SIGCONT",
	  check_sleep_stop, ANY_CLOCK, REL },
	{ "clock_nanosleep TIMER_ABSTIME: restarted transparently after SIGSTOP/SIGCONT",
	  check_sleep_stop, ANY_CLOCK, ABS },
	{ "clock_nanosleep: another thread closes the fd, the sleep goes on",
	  check_sleep_fd, M_RUNNING, PIN_CLOSE },
	{ "clock_nanosleep: another thread dup2s over the fd, the sleep goes on",
	  check_sleep_fd, M_RUNNING, PIN_DUP2 },
	{ "timerfd: relative one-shot 100 ms: a blocking read returns 1, not early",
	  check_tfd_one_shot, ANY_CLOCK, REL },
	{ "timerfd: TFD_TIMER_ABSTIME one-shot 100 ms ahead: a blocking read returns 1, not early",
	  check_tfd_one_shot, ANY_CLOCK, ABS },
	{ "timerfd: relative periodic 20 ms: read counts the expirations, not early",
	  check_tfd_periodic, ANY_CLOCK, REL },
	{ "timerfd: TFD_TIMER_ABSTIME periodic 20 ms: read counts the expirations, not early",
	  check_tfd_periodic, ANY_CLOCK, ABS },
	{ "timerfd: periodic 10 ms unread for 200 ms: read counts the overruns",
	  check_tfd_overrun, ANY_CLOCK },
	{ "timerfd: poll and epoll report EPOLLIN on expiry, not early",
	  check_tfd_poll, ANY_CLOCK },
	{ "timerfd: timerfd_gettime: remaining time and interval in device time",
	  check_tfd_gettime, ANY_CLOCK },
	{ "timerfd: close the clock fd after timerfd_create: the timerfd still works",
	  check_tfd_pin, M_RUNNING, PIN_CLOSE },
	{ "timerfd: dup2 over the clock fd after timerfd_create: the timerfd still works",
	  check_tfd_pin, M_RUNNING, PIN_DUP2 },
	{ "timerfd: timerfd_create on a pipe fd or a closed fd: EINVAL",
	  check_tfd_bad_fd, ALWAYS },
	{ "timerfd: TFD_TIMER_CANCEL_ON_SET: clock_settime gives ECANCELED, a blocked read woken",
	  check_tfd_cancel, M_RUNNING, 0 },
	{ "timerfd: TFD_TIMER_CANCEL_ON_SET: ADJ_SETOFFSET gives ECANCELED, a blocked read woken",
	  check_tfd_cancel, M_RUNNING, 1 },
	{ "timerfd: step: clock_settime past an absolute timerfd 10 s ahead fires it promptly",
	  check_tfd_step_past, M_RUNNING, 0, 20 },
	{ "timerfd: step: a relative timerfd ignores a step of +5 s",
	  check_tfd_step_rel, M_RUNNING, 5, 15 },
	{ "timerfd: step: a relative timerfd with TFD_TIMER_CANCEL_ON_SET ignores a step of -5 s",
	  check_tfd_step_rel, M_RUNNING, -5, 15 },
	{ "timerfd: step: a relative periodic timerfd ignores a step of +5 s after its first expiry",
	  check_tfd_step_rel_periodic, M_RUNNING, 5, 15 },
	{ "timerfd: step: a relative periodic timerfd ignores a step of -5 s after its first expiry",
	  check_tfd_step_rel_periodic, M_RUNNING, -5, 15 },
	{ "never early: debugfs expiries, DECIDED >= EXPIRES on every line",
	  check_audit, M_RUNNING | M_STALLED },
	{ "removal", check_removal, M_RUNNING, 0, 20, true },
};

/* ---- running the table ---- */

/* In a check's process: its own process group, signals, handlers. */
static void check_process_setup(struct ctx *ctx)
{
	struct sigaction timer = { .sa_sigaction = on_timer,
				   .sa_flags = SA_SIGINFO };
	/* No SA_RESTART: a handled SIGUSR1 ends a sleep with EINTR. */
	struct sigaction usr1 = { .sa_handler = on_usr1 };
	pthread_t monitor;
	sigset_t set;

	setpgid(0, 0);
	handler_clk = ctx->clk;
	sigemptyset(&set);
	sigaddset(&set, SIG_TIMER);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigaction(SIG_TIMER, &timer, NULL);
	sigaction(SIGUSR1, &usr1, NULL);
	/* After the mask: the monitor takes none of the signals. */
	if (!pthread_create(&monitor, NULL, stall_monitor, NULL))
		pthread_detach(monitor);
}

/**
 * run_check() - run one check in a process of its own
 * @ctx:	the clock; its audit is brought up to date meanwhile
 * @c:		the check
 *
 * The process is killed (with its process group) after the check's
 * timeout, and that is a failure of its own.
 *
 * Return: true when the check reported no failure.
 */
static bool run_check(struct ctx *ctx, const struct check *c)
{
	int timeout = c->timeout_s ? c->timeout_s : DEFAULT_TIMEOUT_S;
	s64 deadline;
	int status;
	pid_t pid;

	ctx->check = c;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		check_process_setup(ctx);
		c->run(ctx, c);
		fflush(stdout);
		_exit(ctx->failed ? 1 : 0);
	}
	if (pid < 0) {
		printf("not ok - timers: %s: %s (fork: %s)\n", ctx->label,
		       c->name, strerror(errno));
		return false;
	}
	setpgid(pid, pid);
	deadline = mono_ns() + SEC(timeout);
	while (waitpid(pid, &status, WNOHANG) != pid) {
		audit_poll(ctx);
		if (mono_ns() > deadline) {
			kill(-pid, SIGKILL);
			printf("not ok - timers: %s: %s (timed out after %d s)\n",
			       ctx->label, c->name, timeout);
			if (!reap_within(pid, &status, SEC(5)))
				printf("  the check's process does not die: stuck in the kernel\n");
			return false;
		}
		pass_time(MS(AUDIT_PERIOD_MS));
	}
	audit_poll(ctx);
	if (WIFSIGNALED(status)) {
		printf("not ok - timers: %s: %s (the check's process died of signal %d)\n",
		       ctx->label, c->name, WTERMSIG(status));
		return false;
	}
	return WEXITSTATUS(status) == 0;
}

/*
 * Open the clock under test and check what every check relies on: a
 * running clock advances, takes PHC_BASE_S and offers timers.
 * Return: 0, or -1 after printing why not.
 */
static int open_clock(struct ctx *ctx)
{
	const char *base;
	int id, err = 0;
	s64 t0;

	if (ctx->mode == M_MONO) {
		ctx->fd = -1;
		ctx->clk = CLOCK_MONOTONIC;
		return 0;
	}
	ctx->fd = open(ctx->path, O_RDWR);
	if (ctx->fd < 0) {
		printf("not ok - timers: %s: open %s (%s)\n", ctx->label,
		       ctx->path, strerror(errno));
		return -1;
	}
	ctx->clk = FD_TO_CLOCKID(ctx->fd);
	base = strrchr(ctx->path, '/');
	snprintf(ctx->dbgdir, sizeof(ctx->dbgdir),
		 "/sys/kernel/debug/clockdev/%s", base ? base + 1 : ctx->path);
	if (ctx->mode == M_RUNNING) {
		t0 = dev_ns(ctx);
		pass_time(MS(10));
		if (dev_ns(ctx) <= t0) {
			printf("not ok - timers: %s: the clock advances\n",
			       ctx->label);
			return -1;
		}
		err = set_clock(ctx, SEC(PHC_BASE_S));
		if (err) {
			printf("not ok - timers: %s: clock_settime %d s (%s)\n",
			       ctx->label, PHC_BASE_S, errname(-err));
			return -1;
		}
	}
	err = tmr_create(ctx->clk, SIGEV_NONE, 0, 0, &id);
	if (err) {
		printf("not ok - timers: %s: timer_create on the clock (%s)\n",
		       ctx->label, errname(-err));
		return -1;
	}
	tmr_del(id);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fdclock-timers [--name LABEL] [--only TEXT] [--stalled] DEVICE\n"
		"                      [-- REMOVE_CMD [ARG...]]\n"
		"       fdclock-timers [--name LABEL] [--only TEXT] --monotonic\n"
		"Checks POSIX timers, timerfd and clock_nanosleep() on the dynamic clock of\n"
		"DEVICE (a /dev/ptpN that runs; with --stalled, one that does not\n"
		"advance).  REMOVE_CMD must unregister the clock: the last check removes\n"
		"it under armed timers and timerfds.  --monotonic runs the checks that\n"
		"need no device on CLOCK_MONOTONIC.  --only runs the checks whose name\n"
		"holds TEXT.\n");
}

/* Return: 0, 1 after --help, -1 on bad usage. */
static int parse_args(int argc, char **argv, struct ctx *ctx)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "stalled", no_argument, NULL, 's' },
		{ "monotonic", no_argument, NULL, 'm' },
		{ "only", required_argument, NULL, 'o' },
		{ "slow", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	while ((c = getopt_long(argc, argv, "+n:smo:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			ctx->label = optarg;
			break;
		case 's':
			ctx->mode = M_STALLED;
			break;
		case 'm':
			ctx->mode = M_MONO;
			break;
		case 'o':
			ctx->only = optarg;
			break;
		case 'S':
			pred_tol = PRED_TOL_SLOW_NS;
			break;
		case 'h':
			return 1;
		default:
			return -1;
		}
	}
	if (ctx->mode == M_MONO) {
		if (!ctx->label)
			ctx->label = "CLOCK_MONOTONIC";
		return optind == argc ? 0 : -1;
	}
	if (optind >= argc)
		return -1;
	ctx->path = argv[optind++];
	if (optind < argc) {
		if (strcmp(argv[optind], "--") || optind + 1 >= argc)
			return -1;
		ctx->remove_cmd = &argv[optind + 1];
	}
	if (!ctx->label)
		ctx->label = strrchr(ctx->path, '/') ?
			     strrchr(ctx->path, '/') + 1 : ctx->path;
	return 0;
}

int main(int argc, char **argv)
{
	static struct ctx ctx = { .mode = M_RUNNING };
	const struct check *c;
	int ret, failed = 0;

	ret = parse_args(argc, argv, &ctx);
	if (ret) {
		usage(ret > 0 ? stdout : stderr);
		return ret > 0 ? 0 : 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (open_clock(&ctx))
		return 1;
	for (c = checks; c < checks + ARRAY_SIZE(checks); c++) {
		ctx.check = c;
		if (ctx.only && !strstr(c->name, ctx.only))
			continue;
		if (!(c->modes & ctx.mode)) {
			if (ctx.mode == M_MONO)
				skip(&ctx, NULL, "needs a device clock");
			continue;
		}
		if (c->remove && !ctx.remove_cmd) {
			skip(&ctx, NULL, "no remove command");
			continue;
		}
		failed += !run_check(&ctx, c);
		if (ctx.mode != M_MONO && !c->remove)
			set_freq_ppm(&ctx, 0);
	}
	return failed ? 1 : 0;
}
