// SPDX-License-Identifier: GPL-2.0
/*
 * unplug: hold a clock in every way user space can, let its device be
 * removed, and time how each use learns of it.  Not run by run_tests: it
 * needs a host that unplugs the device (QMP device_del of a PCIe NIC);
 * tests/ptp/hotplug.sh runs it under scripts/hotplug.sh.
 *
 * usage: unplug --clock DEVICE --name LABEL [--ready-fd FD] [--ready TEXT]
 *               [--max-ms MS]
 *
 * Opens DEVICE and starts its users: two readers (clock_gettime() on the
 * fd clockid and PTP_CLOCK_GETCAPS, each every millisecond), a thread
 * blocked in read() for an external timestamp event, one in poll() on the
 * clock, one sleeping in clock_nanosleep() on it, one in poll() on an
 * armed periodic timerfd and one in read() of another, and an armed
 * periodic POSIX timer.  Then it writes TEXT and a newline to FD (default:
 * 1), for the host to remove the device, and waits.
 *
 * The removal is first seen by the readers, within a millisecond: that
 * moment is the reference.  Each blocked use must end with ENODEV (poll():
 * POLLERR, then ENODEV from the next call) at most MS (default
 * 100) after it, plus the longest stall of the process seen meanwhile; the
 * POSIX timer must answer ENODEV to timer_gettime() and go with
 * timer_delete().  On a kernel without timers on fd clocks (6.12) the
 * uses that need them are skipped, and say so.  Prints "ok - unplug:
 * LABEL: USE ..." or "not ok - ...", a failure followed by why in
 * parentheses ("(late: ...)" when only the bound of time was missed, which
 * a starved guest may do); exit status 0 when all passed, 1 otherwise, 2
 * on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <linux/ptp_clock.h>

#include "clockdev_util.h"

/* A use that does not end within this long after the removal hangs. */
#define HANG_NS		SEC(30)

enum use {
	U_GETTIME, U_GETCAPS, U_READ, U_POLL, U_NANOSLEEP, U_TFD_POLL,
	U_TFD_READ, NR_USES
};

/* The last ones need timers on fd clocks; 6.12 has none. */
#define NR_TIMER_USES	3
#define NO_TIMERS	" # SKIP no timers on fd clocks in this kernel"

static bool used(enum use i, bool timers)
{
	return timers || i < NR_USES - NR_TIMER_USES;
}

static const char *const use_name[NR_USES] = {
	[U_GETTIME]	= "clock_gettime() reader",
	[U_GETCAPS]	= "PTP_CLOCK_GETCAPS reader",
	[U_READ]	= "read() of an external timestamp",
	[U_POLL]	= "poll() on the clock",
	[U_NANOSLEEP]	= "clock_nanosleep()",
	[U_TFD_POLL]	= "poll() on a timerfd",
	[U_TFD_READ]	= "read() of a timerfd",
};

static struct {
	int fd;
	clockid_t clk;
	int tfd[2];
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int started;
	pid_t tid[NR_USES];
	/* per use: when it ended (CLOCK_MONOTONIC), and its result */
	s64 end[NR_USES];
	int err[NR_USES];
	char what[NR_USES][96];
} u = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

static void started(enum use i)
{
	pthread_mutex_lock(&u.lock);
	u.tid[i] = gettid();
	u.started++;
	pthread_cond_broadcast(&u.cond);
	pthread_mutex_unlock(&u.lock);
}

static void ended(enum use i, int err, const char *fmt, const char *detail)
{
	u.end[i] = mono_ns();
	u.err[i] = err;
	snprintf(u.what[i], sizeof(u.what[i]), fmt, detail);
}

static void *use_thread(void *arg)
{
	struct ptp_extts_event ev;
	struct ptp_clock_caps caps;
	enum use i = (long)arg;
	struct pollfd pfd;
	uint64_t n;
	int err = 0;
	s64 t0;

	started(i);
	switch (i) {
	case U_GETTIME:
	case U_GETCAPS:
		for (;;) {
			if (i == U_GETTIME)
				err = clock_ns(u.clk) < 0 ? -errno : 0;
			else
				err = ioctl(u.fd, PTP_CLOCK_GETCAPS, &caps) ? -errno : 0;
			if (err)
				break;
			pass_time(MS(1));
		}
		ended(i, err, "%s", errname(-err));
		break;
	case U_READ:
		err = read(u.fd, &ev, sizeof(ev)) < 0 ? -errno : 0;
		ended(i, err, "%s", err ? errname(-err) : "an event");
		break;
	case U_POLL:
	case U_TFD_POLL:
		pfd.fd = i == U_POLL ? u.fd : u.tfd[0];
		pfd.events = POLLIN;
		if (poll(&pfd, 1, -1) < 0) {
			ended(i, -errno, "poll: %s", errname(errno));
			break;
		}
		t0 = mono_ns();
		/* Removal is an error; clockdev adds POLLHUP, 6.12 did not. */
		if (!(pfd.revents & POLLERR)) {
			ended(i, -EINVAL, "%s", "poll woke without POLLERR");
			break;
		}
		/*
		 * Then the next call: the clock's time (6.12 with the fix of
		 * its poll reports the error a moment before the clock
		 * answers ENODEV: read again, every millisecond), the
		 * timerfd's read.
		 */
		if (i == U_POLL) {
			do {
				err = clock_ns(u.clk) < 0 ? -errno : 0;
				if (!err)
					pass_time(MS(1));
			} while (!err && mono_ns() - t0 < HANG_NS);
		} else {
			err = read(pfd.fd, &n, sizeof(n)) < 0 ? -errno : 0;
		}
		ended(i, err, pfd.revents & POLLHUP ?
		      "POLLERR | POLLHUP, then %s" : "POLLERR, then %s",
		      errname(-err));
		break;
	case U_NANOSLEEP:
		err = sys_clock_nanosleep(u.clk, 0, SEC(3600), NULL);
		ended(i, err, "%s", errname(-err));
		break;
	case U_TFD_READ:
		err = read(u.tfd[1], &n, sizeof(n)) < 0 ? -errno : 0;
		ended(i, err, "%s", err ? errname(-err) : "an expiry");
		break;
	default:
		break;
	}
	return NULL;
}

static void bad_usage(const char *prog)
{
	fprintf(stderr, "usage: %s --clock DEVICE --name LABEL\n"
		"              [--ready-fd FD] [--ready TEXT] [--max-ms MS]\n",
		prog);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "clock", required_argument, NULL, 'c' },
		{ "name", required_argument, NULL, 'n' },
		{ "ready-fd", required_argument, NULL, 'f' },
		{ "ready", required_argument, NULL, 'r' },
		{ "max-ms", required_argument, NULL, 'm' },
		{ }
	};
	struct itimerspec its = { .it_value.tv_sec = 3600,
				  .it_interval.tv_sec = 1 };
	const char *dev = NULL, *name = NULL, *ready = "<<<clockdev-ready>>>";
	int opt, ready_fd = 1, fails = 0, timer = -1, i, err;
	s64 max = MS(100), first = 0, v, iv, late;
	bool timers;
	pthread_t th[NR_USES];
	char line[256], why[128];

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			dev = optarg;
			break;
		case 'n':
			name = optarg;
			break;
		case 'f':
			ready_fd = atoi(optarg);
			break;
		case 'r':
			ready = optarg;
			break;
		case 'm':
			max = MS(atoll(optarg));
			break;
		default:
			bad_usage(argv[0]);
		}
	}
	if (!dev || !name)
		bad_usage(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0);

	u.fd = open(dev, O_RDWR | O_CLOEXEC);
	if (u.fd < 0) {
		printf("not ok - unplug: %s: open %s: %s\n", name, dev,
		       errname(errno));
		return 1;
	}
	u.clk = FD_TO_CLOCKID(u.fd);
	/* A kernel without timers on fd clocks (6.12) holds it without them. */
	err = sys_timer_create(u.clk, SIGEV_NONE, 0, 0, 0, &timer);
	timers = err != -EOPNOTSUPP;
	if (!err)
		err = sys_timer_settime(timer, 0, SEC(3600), MS(10));
	for (i = 0; timers && !err && i < 2; i++) {
		u.tfd[i] = timerfd_create(u.clk, TFD_CLOEXEC);
		if (u.tfd[i] < 0 || timerfd_settime(u.tfd[i], 0, &its, NULL))
			err = -errno;
	}
	if (timers && err) {
		printf("not ok - unplug: %s: timers on %s: %s\n", name, dev,
		       errname(-err));
		return 1;
	}
	stall_monitor_start();
	for (i = 0; i < NR_USES; i++)
		if (used(i, timers) &&
		    pthread_create(&th[i], NULL, use_thread, (void *)(long)i))
			return 1;
	/* Every thread runs; those that block are about to. */
	pthread_mutex_lock(&u.lock);
	while (u.started < NR_USES - (timers ? 0 : NR_TIMER_USES))
		pthread_cond_wait(&u.cond, &u.lock);
	pthread_mutex_unlock(&u.lock);
	for (i = U_READ; i < NR_USES; i++) {
		if (used(i, timers) && !wait_task_state(getpid(), u.tid[i], 'S', SEC(10))) {
			printf("not ok - unplug: %s: %s blocks\n", name,
			       use_name[i]);
			return 1;
		}
	}
	snprintf(line, sizeof(line), "%s\n", ready);
	if (write(ready_fd, line, strlen(line)) < 0)
		return 1;

	/* The reader ends at the removal; then all must, soon. */
	for (i = 0; i < NR_USES; i++) {
		struct timespec dl;

		if (!used(i, timers))
			continue;
		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += i == U_GETTIME ? 600 : HANG_NS / NSEC_PER_SEC;
		if (pthread_timedjoin_np(th[i], NULL, &dl)) {
			printf("not ok - unplug: %s: %s ends\n", name,
			       use_name[i]);
			return 1;
		}
	}
	for (i = 0; i < NR_USES; i++)
		if (u.err[i] == -ENODEV && (!first || u.end[i] < first))
			first = u.end[i];
	for (i = 0; i < NR_USES; i++) {
		if (!used(i, timers)) {
			printf("ok - unplug: %s: %s ends with ENODEV within %lld ms%s\n",
			       name, use_name[i], max / NSEC_PER_MSEC, NO_TIMERS);
			continue;
		}
		late = u.end[i] - first;
		/* The detail says why, outside the check's name. */
		if (u.err[i] != -ENODEV || !first)
			snprintf(why, sizeof(why), " (%s)", u.what[i]);
		else if (late > max + stall_max_ns())
			snprintf(why, sizeof(why),
				 " (late: %.1f ms, stalls %.1f ms)",
				 late / 1e6, stall_max_ns() / 1e6);
		else
			why[0] = '\0';
		fails += !!why[0];
		printf("%sok - unplug: %s: %s ends with ENODEV within %lld ms%s\n",
		       why[0] ? "not " : "", name, use_name[i],
		       max / NSEC_PER_MSEC, why);
		printf("  %s: %s, %.1f ms after the first\n", use_name[i],
		       u.what[i], late / 1e6);
	}
	if (timers) {
		err = sys_timer_gettime(timer, &v, &iv);
		fails += err != -ENODEV;
		printf("%sok - unplug: %s: the armed POSIX timer answers ENODEV (%s)\n",
		       err != -ENODEV ? "not " : "", name, errname(-err));
		err = sys_timer_delete(timer);
		fails += !!err;
		printf("%sok - unplug: %s: the POSIX timer is deleted (%s)\n",
		       err ? "not " : "", name, err ? errname(-err) : "0");
	} else {
		printf("ok - unplug: %s: the armed POSIX timer answers ENODEV%s\n",
		       name, NO_TIMERS);
		printf("ok - unplug: %s: the POSIX timer is deleted%s\n", name,
		       NO_TIMERS);
	}
	printf("  the process stalled for up to %.1f ms meanwhile\n",
	       stall_max_ns() / 1e6);
	if (timers) {
		close(u.tfd[0]);
		close(u.tfd[1]);
	}
	close(u.fd);
	return fails ? 1 : 0;
}
