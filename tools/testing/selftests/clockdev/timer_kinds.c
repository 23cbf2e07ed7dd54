// SPDX-License-Identifier: GPL-2.0
/*
 * The three kinds of timer of timer_kinds.h, one struct tk_ops each.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <strings.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "timer_kinds.h"

/* Live TK_POSIX timers, found by the signal handler through sival_int. */
#define TK_SLOTS		128
/* How long tk_arm() waits for an observing thread to block. */
#define TK_BLOCK_TIMEOUT	SEC(2)

/**
 * struct tk_ops - what a kind does
 * @create:    make its kernel object, if it has one
 * @arm:       arm it, or start the sleep
 * @remaining: the time left; NULL when the kind lacks TKF_REMAINING
 * @poll:      the events of its fd; NULL when the kind lacks TKF_POLL
 * @cancel:    disarm it, or end the sleep
 * @destroy:   release it; the caller closes the event pipe after
 */
struct tk_ops {
	int (*create)(struct tk_timer *t);
	int (*arm)(struct tk_timer *t, int flags, s64 value, s64 interval);
	int (*remaining)(struct tk_timer *t, s64 *value, s64 *interval);
	int (*poll)(struct tk_timer *t);
	int (*cancel)(struct tk_timer *t);
	int (*destroy)(struct tk_timer *t);
};

/* ---- events and observing threads ---- */

/*
 * Send what was seen to the test: the clock first, then CLOCK_MONOTONIC.
 * Signal-safe; the pipe's write end never blocks (a test that reads
 * nothing loses events, it does not stall the observer).
 */
static void tk_post_now(struct tk_timer *t, long long count, int err)
{
	struct tk_event e;
	ssize_t n;

	e.at = clock_ns(t->read);
	e.mono = mono_ns();
	e.count = count;
	e.err = err;
	n = write(t->ev[1], &e, sizeof(e));
	(void)n;
}

/*
 * Start @fn in thread @th of @t and wait until it blocks in the call it
 * observes (it publishes its tid right before the call) or has ended:
 * when tk_arm() returns, the sleep or the read is under way.
 */
static int tk_thread_start(struct tk_timer *t, struct tk_thread *th,
			   void *(*fn)(void *))
{
	s64 deadline = mono_ns() + TK_BLOCK_TIMEOUT;
	pid_t tid;
	int err;

	th->tid = 0;
	th->done = false;
	err = pthread_create(&th->th, NULL, fn, t);
	if (err)
		return -err;
	th->started = true;
	while (mono_ns() < deadline) {
		if (__atomic_load_n(&th->done, __ATOMIC_ACQUIRE))
			return 0;
		tid = __atomic_load_n(&th->tid, __ATOMIC_ACQUIRE);
		if (tid && task_state(getpid(), tid) == 'S')
			return 0;
		pass_time(US(200));
	}
	return -ETIMEDOUT;
}

/* End thread @th wherever it blocks (read and sleep are cancellation points). */
static void tk_thread_stop(struct tk_thread *th)
{
	if (!th->started)
		return;
	if (!__atomic_load_n(&th->done, __ATOMIC_ACQUIRE))
		pthread_cancel(th->th);
	pthread_join(th->th, NULL);
	th->started = false;
}

static void tk_thread_blocks(struct tk_thread *th)
{
	__atomic_store_n(&th->tid, gettid(), __ATOMIC_RELEASE);
}

static void tk_thread_ends(struct tk_thread *th)
{
	__atomic_store_n(&th->done, true, __ATOMIC_RELEASE);
}

/* ---- TK_POSIX: a handler, in a thread of its own, reads the clock ---- */

static struct tk_timer *tk_slots[TK_SLOTS];
static int tk_generation;
/* Handlers running: tk_posix_destroy() waits for them to leave. */
static int tk_in_handler;

static void tk_posix_handler(int sig, siginfo_t *si, void *uc)
{
	int key = si->si_value.sival_int, saved = errno;
	struct tk_timer *t = NULL;

	__atomic_fetch_add(&tk_in_handler, 1, __ATOMIC_SEQ_CST);
	if (si->si_code == SI_TIMER && key >= 0)
		t = __atomic_load_n(&tk_slots[key % TK_SLOTS], __ATOMIC_SEQ_CST);
	/* A signal of a deleted timer finds another key, or none. */
	if (t && t->posix.slot == key)
		tk_post_now(t, 1LL + si->si_overrun, 0);
	__atomic_fetch_sub(&tk_in_handler, 1, __ATOMIC_SEQ_CST);
	errno = saved;
}

/* The only thread with SIG_TIMER unblocked: timer signals come here. */
static void *tk_signal_thread(void *arg)
{
	sigset_t open;

	pthread_sigmask(SIG_SETMASK, NULL, &open);
	sigdelset(&open, SIG_TIMER);
	for (;;)
		sigsuspend(&open);
	return NULL;
}

static int tk_posix_create(struct tk_timer *t)
{
	int i, err;

	for (i = 0; i < TK_SLOTS && tk_slots[i]; i++)
		;
	if (i == TK_SLOTS)
		return -ENOSPC;
	tk_generation = (tk_generation + 1) % 0x100000;
	t->posix.slot = tk_generation * TK_SLOTS + i;
	err = sys_timer_create(t->clk, SIGEV_SIGNAL, SIG_TIMER, t->posix.slot,
			       0, &t->posix.id);
	if (err) {
		t->posix.slot = -1;
		return err;
	}
	__atomic_store_n(&tk_slots[i], t, __ATOMIC_SEQ_CST);
	return 0;
}

static int tk_posix_arm(struct tk_timer *t, int flags, s64 value,
			s64 interval)
{
	return sys_timer_settime(t->posix.id, flags & TK_ABS ? TIMER_ABSTIME : 0,
				 value, interval);
}

static int tk_posix_remaining(struct tk_timer *t, s64 *value, s64 *interval)
{
	return sys_timer_gettime(t->posix.id, value, interval);
}

static int tk_posix_cancel(struct tk_timer *t)
{
	return sys_timer_settime(t->posix.id, 0, 0, 0);
}

static int tk_posix_destroy(struct tk_timer *t)
{
	__atomic_store_n(&tk_slots[t->posix.slot % TK_SLOTS], NULL,
			 __ATOMIC_SEQ_CST);
	/* A handler that found @t before is done with it after this. */
	while (__atomic_load_n(&tk_in_handler, __ATOMIC_SEQ_CST))
		pass_time(US(10));
	return sys_timer_delete(t->posix.id);
}

static const struct tk_ops tk_posix_ops = {
	.create		= tk_posix_create,
	.arm		= tk_posix_arm,
	.remaining	= tk_posix_remaining,
	.cancel		= tk_posix_cancel,
	.destroy	= tk_posix_destroy,
};

/* ---- TK_NANOSLEEP: a thread sleeps, then reads the clock ---- */

static void *tk_sleeper(void *arg)
{
	struct tk_timer *t = arg;
	struct timespec ts = ns_ts(t->sleep.value);
	int err;

	tk_thread_blocks(&t->sleep.sleeper);
	err = clock_nanosleep(t->clk, t->sleep.flags & TK_ABS ? TIMER_ABSTIME : 0,
			      &ts, NULL);
	tk_post_now(t, !err, err);
	t->sleep.err = err;
	tk_thread_ends(&t->sleep.sleeper);
	return NULL;
}

static int tk_sleep_create(struct tk_timer *t)
{
	return 0;
}

static int tk_sleep_arm(struct tk_timer *t, int flags, s64 value,
			s64 interval)
{
	struct tk_event e;
	int err;

	if (interval)
		return -EOPNOTSUPP;
	/* A new sleep replaces the one under way, as timer_settime() does. */
	tk_thread_stop(&t->sleep.sleeper);
	t->sleep.flags = flags;
	t->sleep.value = value;
	t->sleep.err = 0;
	err = tk_thread_start(t, &t->sleep.sleeper, tk_sleeper);
	if (err || !__atomic_load_n(&t->sleep.sleeper.done, __ATOMIC_ACQUIRE))
		return err;
	/* Ended at once: an error is the arming's, not an event. */
	tk_thread_stop(&t->sleep.sleeper);
	err = t->sleep.err;
	if (err && !read_within(t->ev[0], &e, sizeof(e), SEC(1)))
		return -EIO;
	return -err;
}

static int tk_sleep_cancel(struct tk_timer *t)
{
	tk_thread_stop(&t->sleep.sleeper);
	return 0;
}

static const struct tk_ops tk_sleep_ops = {
	.create		= tk_sleep_create,
	.arm		= tk_sleep_arm,
	.cancel		= tk_sleep_cancel,
	.destroy	= tk_sleep_cancel,
};

/* ---- TK_TIMERFD: a thread blocks in read(), then reads the clock ---- */

/*
 * Reads until a read fails (ENODEV once the clock is gone): then stops.
 * Armed with TK_POLL, it blocks in poll() first.
 */
static void *tk_reader(void *arg)
{
	struct pollfd pfd = { .events = POLLIN };
	struct tk_timer *t = arg;
	unsigned long long n;
	ssize_t got;
	int err;

	pfd.fd = t->tfd.fd;
	tk_thread_blocks(&t->tfd.reader);
	do {
		if (__atomic_load_n(&t->tfd.flags, __ATOMIC_ACQUIRE) & TK_POLL)
			poll(&pfd, 1, -1);
		got = read(t->tfd.fd, &n, sizeof(n));
		err = got < 0 ? errno : got != sizeof(n) ? EIO : 0;
		tk_post_now(t, err ? 0 : (long long)n, err);
	} while (!err);
	tk_thread_ends(&t->tfd.reader);
	return NULL;
}

static int tk_tfd_create(struct tk_timer *t)
{
	t->tfd.fd = timerfd_create(t->clk, TFD_CLOEXEC);
	return t->tfd.fd < 0 ? -errno : 0;
}

static int tk_tfd_arm(struct tk_timer *t, int flags, s64 value, s64 interval)
{
	struct itimerspec its = { ns_ts(interval), ns_ts(value) };
	int tflags = 0;

	if (flags & TK_ABS)
		tflags |= TFD_TIMER_ABSTIME;
	if (flags & TK_CANCEL_ON_SET)
		tflags |= TFD_TIMER_CANCEL_ON_SET;
	if (timerfd_settime(t->tfd.fd, tflags, &its, NULL))
		return -errno;
	__atomic_store_n(&t->tfd.flags, flags, __ATOMIC_RELEASE);
	/* A reader that stopped on an error is started again. */
	if (__atomic_load_n(&t->tfd.reader.done, __ATOMIC_ACQUIRE))
		tk_thread_stop(&t->tfd.reader);
	if (t->tfd.reader.started)
		return 0;
	return tk_thread_start(t, &t->tfd.reader, tk_reader);
}

static int tk_tfd_remaining(struct tk_timer *t, s64 *value, s64 *interval)
{
	struct itimerspec its;

	if (timerfd_gettime(t->tfd.fd, &its))
		return -errno;
	*value = ts_ns(&its.it_value);
	*interval = ts_ns(&its.it_interval);
	return 0;
}

static int tk_tfd_poll(struct tk_timer *t)
{
	struct pollfd pfd = { .fd = t->tfd.fd, .events = POLLIN };

	return poll(&pfd, 1, 0) < 0 ? -errno : pfd.revents;
}

static int tk_tfd_cancel(struct tk_timer *t)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	return timerfd_settime(t->tfd.fd, 0, &its, NULL) ? -errno : 0;
}

static int tk_tfd_destroy(struct tk_timer *t)
{
	tk_thread_stop(&t->tfd.reader);
	return close(t->tfd.fd) ? -errno : 0;
}

static const struct tk_ops tk_tfd_ops = {
	.create		= tk_tfd_create,
	.arm		= tk_tfd_arm,
	.remaining	= tk_tfd_remaining,
	.poll		= tk_tfd_poll,
	.cancel		= tk_tfd_cancel,
	.destroy	= tk_tfd_destroy,
};

/* ---- the kinds ---- */

static const struct tk_ops *const tk_ops[] = {
	[TK_POSIX]	= &tk_posix_ops,
	[TK_NANOSLEEP]	= &tk_sleep_ops,
	[TK_TIMERFD]	= &tk_tfd_ops,
};

/* After removal: the ABI document's "After removal" section. */
static const struct tk_kind tk_kinds[] = {
	[TK_POSIX] = {
		.name		= "posix",
		.call		= "timer_create",
		.features	= TKF_INTERVAL | TKF_REMAINING | TKF_REARM,
		.lacks		= {
			[3] = "a POSIX timer has no fd to poll",
		},
		.probe		= probe_timer_create,
		/* Disarmed, never fires; timer_settime/gettime fail. */
		.removed_err	= ENODEV,
		.removal_ends	= false,
	},
	[TK_NANOSLEEP] = {
		.name		= "nanosleep",
		.call		= "clock_nanosleep",
		.lacks		= {
			"clock_nanosleep has no interval: a sleep ends once",
			"clock_nanosleep tells no remaining time while it sleeps",
			"clock_nanosleep names its clock at each call: nothing holds the clock to be armed again",
			"clock_nanosleep has no fd to poll",
		},
		.probe		= probe_nanosleep,
		/* A sleeper returns ENODEV. */
		.removed_err	= ENODEV,
		.removal_ends	= true,
	},
	[TK_TIMERFD] = {
		.name		= "timerfd",
		.call		= "timerfd_create",
		.features	= TKF_INTERVAL | TKF_REMAINING | TKF_REARM |
				  TKF_POLL,
		.probe		= probe_timerfd,
		/* A blocked read() or poll() is woken; ENODEV, POLLERR | POLLHUP. */
		.removed_err	= ENODEV,
		.removal_ends	= true,
		.removed_poll	= POLLERR | POLLHUP,
	},
};

int tk_setup(void)
{
	struct sigaction sa = { .sa_sigaction = tk_posix_handler,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	static bool done;
	pthread_t th;
	sigset_t set;
	int err;

	if (done)
		return 0;
	sigemptyset(&set);
	sigaddset(&set, SIG_TIMER);
	err = pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (err)
		return -err;
	if (sigaction(SIG_TIMER, &sa, NULL))
		return -errno;
	err = pthread_create(&th, NULL, tk_signal_thread, NULL);
	if (err)
		return -err;
	pthread_detach(th);
	done = true;
	return 0;
}

const struct tk_kind *tk_kind(enum timer_kind kind)
{
	return &tk_kinds[kind];
}

const char *tk_lacks(enum timer_kind kind, unsigned int features)
{
	unsigned int missing = features & ~tk_kinds[kind].features;
	const char *why;

	if (!missing)
		return NULL;
	why = tk_kinds[kind].lacks[ffs(missing) - 1];
	return why ? why : "not offered by this kind of timer";
}

int tk_create(struct tk_timer *t, enum timer_kind kind, clockid_t clk)
{
	int err;

	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->clk = clk;
	t->read = clk;
	if (pipe2(t->ev, O_CLOEXEC))
		return -errno;
	fcntl(t->ev[1], F_SETFL, O_NONBLOCK);
	err = tk_ops[kind]->create(t);
	if (err) {
		close(t->ev[0]);
		close(t->ev[1]);
		return err;
	}
	t->ops = tk_ops[kind];
	return 0;
}

int tk_arm(struct tk_timer *t, int flags, s64 value, s64 interval)
{
	return t->ops->arm(t, flags, value, interval);
}

int tk_wait(struct tk_timer *t, long long n, s64 timeout_ns,
	    struct tk_event *ev, int max)
{
	s64 deadline = mono_ns() + timeout_ns;
	long long total = 0;
	int got = 0;

	while (total < n && got < max &&
	       read_within(t->ev[0], &ev[got], sizeof(ev[got]),
			   deadline - mono_ns())) {
		total += ev[got].count;
		if (ev[got++].err)
			break;
	}
	return got;
}

int tk_remaining(struct tk_timer *t, s64 *value, s64 *interval)
{
	if (!t->ops->remaining)
		return -EOPNOTSUPP;
	return t->ops->remaining(t, value, interval);
}

int tk_poll(struct tk_timer *t)
{
	if (!t->ops->poll)
		return -EOPNOTSUPP;
	return t->ops->poll(t);
}

int tk_cancel(struct tk_timer *t)
{
	return t->ops->cancel(t);
}

int tk_destroy(struct tk_timer *t)
{
	int err;

	if (!t->ops)
		return -EINVAL;
	err = t->ops->destroy(t);
	close(t->ev[0]);
	close(t->ev[1]);
	t->ops = NULL;
	return err;
}
