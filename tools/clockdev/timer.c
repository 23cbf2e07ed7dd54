// SPDX-License-Identifier: GPL-2.0
/*
 * clockdev - timers and sleeps on a clock: timer (a POSIX timer notifying
 * by signal, or a timerfd), sleep (relative clock_nanosleep) and
 * wait-until (absolute clock_nanosleep).
 *
 * Lateness is the clock's time read right after waking, minus the expiry
 * as scheduled in the clock's time, so an expiry that came early shows as
 * a negative lateness.  Nothing here waits without a bound: a timer or
 * sleep on a clock that never reaches its expiry ends in an error after
 * the expected time plus SAFETY_NS of CLOCK_MONOTONIC.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "clockdev.h"

#define SAFETY_NS		(10 * NSEC_PER_SEC)
/* How often a timer's wait for a signal checks that the timer still works. */
#define SIGNAL_SLICE_NS		(200 * NSEC_PER_MSEC)

/* ---- parsing ---- */

/* timer DELAY [PERIOD [COUNT]] [abs] [signal|timerfd] */
void parse_timer(struct op *op)
{
	int i, nums = 0;
	bool notify = false;

	op->count = 0;
	for (i = 0; i < op->argc; i++) {
		const char *arg = op->argv[i];
		s64 ns;
		int err;

		if (!strcmp(arg, "abs")) {
			op->abs = true;
			continue;
		}
		if (!strcmp(arg, "signal") || !strcmp(arg, "timerfd")) {
			if (notify)
				usage_error("timer: one 'signal' or 'timerfd'");
			notify = true;
			op->use_signal = arg[0] == 's';
			continue;
		}
		switch (nums++) {
		case 0:
		case 1:
			err = parse_fixed(arg, 9, &ns);
			if (err || ns < 0)
				usage_error("timer: '%s' is not a %s in seconds",
					    arg,
					    nums == 1 ? "delay" : "period");
			if (nums == 1)
				op->ns = ns;
			else
				op->interval = ns;
			break;
		case 2:
			if (parse_count(arg, 1000000, &op->count))
				usage_error("timer: '%s' is not a count (1 to 1000000)",
					    arg);
			break;
		default:
			usage_error("timer: unexpected '%s'", arg);
		}
	}
	if (!nums)
		usage_error("timer: DELAY missing");
	if (op->ns <= 0)
		usage_error("timer: DELAY must be more than 0");
	if (!op->count)
		op->count = op->interval ? 10 : 1;
	if (!op->interval && op->count > 1)
		usage_error("timer: COUNT %ld needs a PERIOD", op->count);
}

/* wait-until TIME | +SECONDS */
void parse_until(struct op *op)
{
	const char *arg = op->argv[0];

	op->rel = arg[0] == '+';
	if (parse_fixed(arg + op->rel, 9, &op->ns) || op->ns < 0 ||
	    arg[op->rel] == '+' || arg[op->rel] == '-')
		usage_error("wait-until: '%s' is not a time in seconds (TIME or +SECONDS)",
			    arg);
}

/* ---- lateness ---- */

/**
 * struct lateness - what a timer, sleep or wait reports
 * @late:    lateness of each notification (ns of the clock)
 * @n:       number of notifications
 * @early:   how many came early
 */
struct lateness {
	s64 *late;
	long n;
	long early;
};

static void late_add(struct lateness *l, s64 late)
{
	l->late[l->n++] = late;
	if (late < 0)
		l->early++;
}

/* One line or object per expiry or wake-up. */
static void print_expiry(struct op *op, struct clock *c, long num, s64 expected,
			 s64 now, s64 overrun)
{
	char sec[32];

	fmt_sec(sec, sizeof(sec), expected);
	if (json) {
		jbegin(op->cmd->name, c);
		jint("expiry", num);
		jint("expected_ns", expected);
		jint("read_ns", now);
		jint("late_ns", now - expected);
		if (overrun >= 0)
			jint("overrun", overrun);
		jend();
	} else if (overrun >= 0) {
		printf("%s: %ld: expected %s, late %lld ns, overrun %lld\n",
		       op->cmd->name, num, sec, (long long)(now - expected),
		       (long long)overrun);
	} else {
		printf("%s: expected %s, late %lld ns\n", op->cmd->name, sec,
		       (long long)(now - expected));
	}
}

/* ---- a bound on sleeps: SIGALRM interrupts clock_nanosleep() ---- */

/* Set by the SIGALRM handler: atomic accesses, never cached. */
static int guard_fired;

static void guard_handler(int sig)
{
	(void)sig;
	__atomic_store_n(&guard_fired, 1, __ATOMIC_RELAXED);
}

static void guard_start(s64 ns)
{
	s64 sec = (ns + SAFETY_NS + NSEC_PER_SEC - 1) / NSEC_PER_SEC;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = guard_handler;	/* no SA_RESTART: the sleep ends */
	sigaction(SIGALRM, &sa, NULL);
	__atomic_store_n(&guard_fired, 0, __ATOMIC_RELAXED);
	alarm(sec < UINT_MAX ? sec : UINT_MAX);
}

static void guard_stop(void)
{
	alarm(0);
}

/* ---- timer ---- */

/**
 * struct armed - a timer being waited for
 * @tfd:      the timerfd, or -1
 * @tid:      the POSIX timer, when @have_tid
 * @have_tid: @tid exists
 * @signo:    the signal it sends
 * @value:    the sival_int it sends, to tell its signals from stale ones
 * @op:       the operation that failed
 */
struct armed {
	int tfd;
	timer_t tid;
	bool have_tid;
	int signo;
	int value;
	const char *op;
};

/*
 * Wait for the next notification until @deadline (CLOCK_MONOTONIC ns):
 * 0 with the expiries it stands for beyond the first in @overrun, or a
 * negative errno value (-ETIMEDOUT at the deadline).
 */
static int wait_signal(struct armed *a, s64 deadline, s64 *overrun)
{
	struct itimerspec its;
	struct timespec ts;
	sigset_t set;
	siginfo_t info;
	int sig, n;

	sigemptyset(&set);
	sigaddset(&set, a->signo);
	for (;;) {
		s64 rem = deadline - mono_ns();

		a->op = "sigtimedwait";
		if (rem <= 0)
			return -ETIMEDOUT;
		ts = ns_ts(rem < SIGNAL_SLICE_NS ? rem : SIGNAL_SLICE_NS);
		sig = sigtimedwait(&set, &info, &ts);
		if (sig == a->signo && info.si_value.sival_int == a->value) {
			a->op = "timer_getoverrun";
			n = timer_getoverrun(a->tid);
			if (n < 0)
				return -errno;
			*overrun = n;
			return 0;
		}
		if (sig < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		/* A removed clock disarms its timers: they never fire. */
		a->op = "timer_gettime";
		if (timer_gettime(a->tid, &its))
			return -errno;
	}
}

static int wait_timerfd(struct armed *a, s64 deadline, s64 *overrun)
{
	struct pollfd pfd = { .fd = a->tfd, .events = POLLIN };
	u64 expiries;
	ssize_t n;
	int ms;

	for (;;) {
		s64 rem = deadline - mono_ns();

		a->op = "poll";
		if (rem <= 0)
			return -ETIMEDOUT;
		ms = (rem + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;
		n = poll(&pfd, 1, ms > 60000 ? 60000 : ms);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n <= 0)
			continue;
		/* POLLERR (a removed clock) too: read() says what happened. */
		a->op = "read(timerfd)";
		n = read(a->tfd, &expiries, sizeof(expiries));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -errno;
		if (n != sizeof(expiries))
			return -EIO;
		*overrun = expiries - 1;
		return 0;
	}
}

/*
 * Create the timer: a timerfd, or a POSIX timer with its signal blocked.
 * Before the clock is read for the start, so that what creating takes
 * (the core's first read of a clock, for its first timer) is not counted
 * as lateness.
 */
static int create(struct op *op, struct clock *c, struct armed *a)
{
	static int generation;
	struct sigevent sev;
	sigset_t set;

	if (!op->use_signal) {
		a->op = "timerfd_create";
		a->tfd = timerfd_create(c->id, TFD_CLOEXEC);
		return a->tfd < 0 ? errno : 0;
	}
	a->signo = SIGRTMIN;
	a->value = ++generation;
	sigemptyset(&set);
	sigaddset(&set, a->signo);
	sigprocmask(SIG_BLOCK, &set, NULL);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = a->signo;
	sev.sigev_value.sival_int = a->value;
	a->op = "timer_create";
	if (timer_create(c->id, &sev, &a->tid))
		return errno;
	a->have_tid = true;
	return 0;
}

static int arm(struct op *op, struct armed *a, s64 start)
{
	struct itimerspec its = {
		.it_value = ns_ts(op->abs ? start + op->ns : op->ns),
		.it_interval = ns_ts(op->interval),
	};

	if (!op->use_signal) {
		a->op = "timerfd_settime";
		return timerfd_settime(a->tfd, op->abs ? TFD_TIMER_ABSTIME : 0,
				       &its, NULL) ? errno : 0;
	}
	a->op = "timer_settime";
	return timer_settime(a->tid, op->abs ? TIMER_ABSTIME : 0, &its, NULL) ?
	       errno : 0;
}

static int timer_timeout(struct op *op, struct clock *c, struct armed *a,
			 long num, s64 start, s64 expected, s64 waited)
{
	char sec[32], exp[32], now_s[32];
	s64 now;

	fmt_sec(sec, sizeof(sec), waited);
	fmt_sec(exp, sizeof(exp), expected);
	if (clock_read(c, &now))
		return fail(op->cmd->name, c, a->op, ETIMEDOUT,
			    "expiry %ld of %ld did not come within %s s of CLOCK_MONOTONIC",
			    num, op->count, sec);
	fmt_sec(now_s, sizeof(now_s), now);
	return fail(op->cmd->name, c, a->op, ETIMEDOUT,
		    "expiry %ld of %ld (at %s) did not come within %s s of CLOCK_MONOTONIC; the clock reads %s%s",
		    num, op->count, exp, sec, now_s,
		    now <= start ?
		    ", it has not advanced since the timer was armed" : "");
}

int run_timer(struct op *op, struct clock *c)
{
	const char *cmd = op->cmd->name;
	struct armed a = { .tfd = -1 };
	struct lateness l = { 0 };
	s64 start, first, now, deadline, t0, overrun = 0, p50;
	long expiries = 0;
	int err, ret = 0;

	l.late = calloc(op->count, sizeof(*l.late));
	if (!l.late)
		return fail(cmd, c, "calloc", ENOMEM, NULL);
	err = create(op, c, &a);
	if (err) {
		ret = fail_op(cmd, c, a.op, err);
		goto out;
	}
	err = clock_read(c, &start);
	if (err) {
		ret = fail_op(cmd, c, "clock_gettime", err);
		goto out;
	}
	first = start + op->ns;
	err = arm(op, &a, start);
	if (err) {
		ret = fail_op(cmd, c, a.op, err);
		goto out;
	}
	t0 = mono_ns();
	deadline = t0 + op->ns + op->interval * (op->count - 1) + SAFETY_NS;
	while (expiries < op->count) {
		s64 expected;

		if (op->use_signal)
			err = wait_signal(&a, deadline, &overrun);
		else
			err = wait_timerfd(&a, deadline, &overrun);
		if (err == -ETIMEDOUT) {
			ret = timer_timeout(op, c, &a, expiries + 1, start,
					    first + expiries * op->interval,
					    mono_ns() - t0);
			goto out;
		}
		if (err) {
			ret = fail_op(cmd, c, a.op, -err);
			goto out;
		}
		err = clock_read(c, &now);
		if (err) {
			ret = fail_op(cmd, c, "clock_gettime", err);
			goto out;
		}
		/* The latest expiry the notification stands for. */
		expiries += 1 + overrun;
		expected = first + (expiries - 1) * op->interval;
		late_add(&l, now - expected);
		print_expiry(op, c, expiries, expected, now, overrun);
	}
	p50 = percentile(l.late, l.n, 50);
	if (json) {
		jbegin(cmd, c);
		jbool("summary", true);
		jstr("notify", op->use_signal ? "signal" : "timerfd");
		jbool("abs", op->abs);
		jint("delay_ns", op->ns);
		jint("period_ns", op->interval);
		jint("count", l.n);
		jint("expiries", expiries);
		jint("late_min_ns", l.late[0]);
		jint("late_p50_ns", p50);
		jint("late_max_ns", l.late[l.n - 1]);
		jint("early", l.early);
		jend();
	} else {
		printf("%s: %ld notifications, %ld expiries by %s (%s): ",
		       cmd, l.n, expiries,
		       op->use_signal ? "signal" : "timerfd",
		       op->abs ? "absolute" : "relative");
		printf("late min %lld p50 %lld max %lld ns, %ld early\n",
		       (long long)l.late[0], (long long)p50,
		       (long long)l.late[l.n - 1], l.early);
	}
out:
	if (a.have_tid)
		timer_delete(a.tid);
	if (a.tfd >= 0)
		close(a.tfd);
	free(l.late);
	return ret;
}

/* ---- sleep, wait-until ---- */

/* clock_nanosleep() until @expected (TIMER_ABSTIME) or for @ns; report. */
static int nanosleep_on(struct op *op, struct clock *c, int flags, s64 ns,
			s64 expected)
{
	struct timespec ts = ns_ts(flags ? expected : ns), rem;
	s64 now;
	int err;

	guard_start(ns);
	for (;;) {
		err = clock_nanosleep(c->id, flags, &ts, &rem);
		if (err != EINTR || __atomic_load_n(&guard_fired, __ATOMIC_RELAXED))
			break;
		if (!flags)
			ts = rem;
	}
	guard_stop();
	if (err == EINTR)
		return fail(op->cmd->name, c, "clock_nanosleep", ETIMEDOUT,
			    "the sleep did not end within %lld s of CLOCK_MONOTONIC",
			    (long long)((ns + SAFETY_NS) / NSEC_PER_SEC));
	if (err)
		return fail_op(op->cmd->name, c, "clock_nanosleep", err);
	err = clock_read(c, &now);
	if (err)
		return fail_op(op->cmd->name, c, "clock_gettime", err);
	print_expiry(op, c, 1, expected, now, -1);
	return 0;
}

int run_sleep(struct op *op, struct clock *c)
{
	s64 start;
	int err;

	err = clock_read(c, &start);
	if (err)
		return fail_op(op->cmd->name, c, "clock_gettime", err);
	return nanosleep_on(op, c, 0, op->ns, start + op->ns);
}

int run_wait_until(struct op *op, struct clock *c)
{
	s64 now, target = op->ns;
	int err;

	err = clock_read(c, &now);
	if (err)
		return fail_op(op->cmd->name, c, "clock_gettime", err);
	if (op->rel)
		target = now + op->ns;
	/* The guard allows the time to the target, as the clock counts it. */
	return nanosleep_on(op, c, TIMER_ABSTIME,
			    target > now ? target - now : 0, target);
}
