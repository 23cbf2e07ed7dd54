// SPDX-License-Identifier: GPL-2.0
/*
 * Lifetime of dynamic clocks under their timers: the last reference
 * dropped by timers of several processes at once, and the modules behind a
 * clock unloaded while timers and timerfds on it live on.  Run these on a
 * kernel with KASAN and lockdep: what they catch is a use after free, which
 * the console shows, more than a wrong result.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "clockdev_util.h"

/* Processes that drop their timers on a removed clock at the same time. */
#define EXIT_PROCS	8
/* Timers each of them holds. */
#define EXIT_TIMERS	4
/* Rounds: clocks made, used by every process, removed. */
#define EXIT_ROUNDS	20

FIXTURE(lifetime) {
};

FIXTURE_SETUP(lifetime)
{
}

FIXTURE_TEARDOWN(lifetime)
{
}

/* delete_module(2), as rmmod does it, without waiting: 0 or -errno. */
static int unload(const char *name)
{
	return syscall(__NR_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

/* Whether module @name is loaded (as a module, not built in). */
static bool loaded(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s/refcnt", name);
	return !access(path, F_OK);
}

/*
 * A child of exit_together: arms timers and a timerfd on the clock, closes
 * the clock, says so on @ready, waits for @go to close, then checks that
 * the clock is gone for its timers and drops them all, racing its
 * siblings.  Exit status 0, or the number of the check that failed.
 */
static int exit_together_child(const struct test_clock *c, int ready, int go)
{
	struct itimerspec its = { .it_value.tv_sec = 3600,
				  .it_interval.tv_sec = 1 };
	int id[EXIT_TIMERS], fd, tfd, i;
	char b;

	fd = test_clock_open(c, O_RDWR);
	if (fd < 0)
		return 1;
	for (i = 0; i < EXIT_TIMERS; i++) {
		if (sys_timer_create(FD_TO_CLOCKID(fd), SIGEV_NONE, 0, 0, 0,
				     &id[i]) ||
		    sys_timer_settime(id[i], 0, SEC(3600), SEC(1)))
			return 2;
	}
	tfd = timerfd_create(FD_TO_CLOCKID(fd), 0);
	if (tfd < 0 || timerfd_settime(tfd, 0, &its, NULL))
		return 3;
	close(fd);
	if (write(ready, "r", 1) != 1 || read(go, &b, 1) != 0)
		return 4;
	/* Removed: every timer says so, and goes. */
	if (sys_timer_settime(id[0], 0, SEC(1), 0) != -ENODEV)
		return 5;
	for (i = 0; i < EXIT_TIMERS; i++)
		if (sys_timer_delete(id[i]))
			return 6;
	close(tfd);
	return 0;
}

/*
 * The timers of several processes on one clock are the last references
 * to it once it is removed; the processes drop them at the same time, so
 * that the clock is freed by whichever goes last, from interrupts-off
 * timer_delete() paths, while others still use it.
 */
TEST_F_TIMEOUT(lifetime, exit_together, 300)
{
	int round, i, st, ready[2], go[2], fails = 0;
	pid_t pid[EXIT_PROCS];
	struct test_clock c;
	char why[256], b;

	for (round = 0; round < EXIT_ROUNDS; round++) {
		if (test_clock_make(&c, CK_PTP_SIM, why, sizeof(why)))
			SKIP(return, "%s", why);
		ASSERT_EQ(0, pipe(ready));
		ASSERT_EQ(0, pipe(go));
		for (i = 0; i < EXIT_PROCS; i++) {
			pid[i] = fork();
			ASSERT_LE(0, pid[i]);
			if (!pid[i]) {
				close(ready[0]);
				close(go[1]);
				_exit(exit_together_child(&c, ready[1], go[0]));
			}
		}
		close(ready[1]);
		close(go[0]);
		for (i = 0; i < EXIT_PROCS; i++)
			ASSERT_TRUE(read_within(ready[0], &b, 1, SEC(30)))
				TH_LOG("round %d: child %d did not arm its timers",
				       round, i);
		close(ready[0]);
		close(c.fd);
		c.fd = -1;
		ASSERT_EQ(0, test_clock_remove(&c));
		close(go[1]);	/* all at once */
		for (i = 0; i < EXIT_PROCS; i++) {
			ASSERT_TRUE(reap_within(pid[i], &st, SEC(30)));
			if (!WIFEXITED(st) || WEXITSTATUS(st)) {
				fails++;
				TH_LOG("round %d: child %d: status 0x%x", round,
				       i, st);
			}
		}
		test_clock_destroy(&c);
	}
	EXPECT_EQ(0, fails);
}

/*
 * A timer and a timerfd outlive the file they were made from and the
 * clock's removal; the driver's module goes, and the module of the core
 * that clock ran on (ptp) must stay while they hold it, then go once they
 * are gone.  Needs ptp built as a module; the test unloads every other
 * user of it (netdevsim, ptp_mock, e1000e, igb) and loads the NICs'
 * drivers again.
 */
TEST_F_TIMEOUT(lifetime, unload_under_timers, 120)
{
	struct itimerspec its = { .it_value.tv_sec = 3600,
				  .it_interval.tv_sec = 1 };
	static const char *const users[] = { "netdevsim", "ptp_mock",
					     "e1000e", "igb" };
	bool e1000e = loaded("e1000e"), igb = loaded("igb");
	char why[256], path[64], buf[512];
	struct test_clock c;
	int id, tfd, err, i;
	s64 t0;

	if (test_clock_make(&c, CK_PTP_SIM, why, sizeof(why)))
		SKIP(return, "%s", why);
	if (!loaded("ptp") || !loaded("ptp_sim")) {
		test_clock_destroy(&c);
		SKIP(return, "ptp or ptp_sim is built in: nothing to unload");
	}
	ASSERT_EQ(0, sys_timer_create(c.clk, SIGEV_NONE, 0, 0, 0, &id));
	ASSERT_EQ(0, sys_timer_settime(id, 0, SEC(3600), SEC(1)));
	tfd = timerfd_create(c.clk, 0);
	ASSERT_LE(0, tfd);
	ASSERT_EQ(0, timerfd_settime(tfd, 0, &its, NULL));
	close(c.fd);
	c.fd = -1;
	ASSERT_EQ(0, test_clock_remove(&c));
	test_clock_destroy(&c);

	for (i = 0; i < (int)ARRAY_SIZE(users); i++) {
		err = loaded(users[i]) ? unload(users[i]) : 0;
		ASSERT_EQ(0, err) TH_LOG("rmmod: %s", errname(-err));
	}
	/* The driver's module is not the clock's owner: it goes. */
	ASSERT_EQ(0, unload("ptp_sim"));
	err = unload("ptp");
	EXPECT_TRUE(err == -EWOULDBLOCK || err == -EBUSY)
		TH_LOG("rmmod ptp under a live timer and timerfd: %s",
		       err ? errname(-err) : "unloaded");

	/* Whatever is left of the clock still answers, from the core. */
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", tfd);
	EXPECT_LT(0, read_file(path, buf, sizeof(buf)));
	EXPECT_EQ(-ENODEV, sys_timer_settime(id, 0, SEC(1), 0));
	EXPECT_EQ(0, sys_timer_delete(id));
	close(tfd);

	/* Freed after an RCU grace period: then the module can go. */
	t0 = mono_ns();
	while ((err = unload("ptp")) && mono_ns() - t0 < SEC(5))
		pass_time(MS(10));
	EXPECT_EQ(0, err) TH_LOG("rmmod ptp once the timers are gone: %s",
				 errname(-err));
	run_cmd("modprobe ptp_sim >/dev/null 2>&1");
	if (e1000e)
		run_cmd("modprobe e1000e >/dev/null 2>&1");
	if (igb)
		run_cmd("modprobe igb >/dev/null 2>&1");
}

/*
 * The simulated PHC's module unloaded while its clock is open, read by
 * nobody but held by a descriptor, an armed periodic timer, an armed
 * timerfd and a process sleeping on it: the unload is not refused (users
 * of a clock pin the core's module, never the driver's), it removes the
 * clock, and every user sees a removed clock: ENODEV, the sleeper woken,
 * the timerfd's poll() reporting an error.  Nothing of the driver may be
 * called afterwards: KASAN would tell.
 */
TEST_F_TIMEOUT(lifetime, unload_driver_under_use, 120)
{
	struct itimerspec its = { .it_value.tv_sec = 3600,
				  .it_interval.tv_sec = 1 };
	struct pollfd pfd = { .events = POLLIN };
	int id, tfd, err, st;
	struct test_clock c;
	char why[256];
	s64 v, iv;
	pid_t pid;

	if (test_clock_make(&c, CK_PTP_SIM, why, sizeof(why)))
		SKIP(return, "%s", why);
	if (!loaded("ptp_sim")) {
		test_clock_destroy(&c);
		SKIP(return, "ptp_sim is built in: nothing to unload");
	}
	ASSERT_EQ(0, sys_timer_create(c.clk, SIGEV_NONE, 0, 0, 0, &id));
	ASSERT_EQ(0, sys_timer_settime(id, 0, MS(5), MS(5)));
	tfd = timerfd_create(c.clk, 0);
	ASSERT_LE(0, tfd);
	ASSERT_EQ(0, timerfd_settime(tfd, 0, &its, NULL));
	pid = sleeper_until_gone(c.clk);
	ASSERT_LE(0, pid) TH_LOG("a sleeper on the clock: %s", errname(-pid));

	err = unload("ptp_sim");
	ASSERT_EQ(0, err) TH_LOG("rmmod ptp_sim under an open clock, timers and a sleeper: %s",
				 errname(-err));
	/* The instance went with its module: test_clock_destroy() must not delete it. */
	c.id = -1;

	ASSERT_TRUE(reap_within(pid, &st, SEC(10)))
		TH_LOG("the sleeper still sleeps 10 s after the unload");
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st))
		TH_LOG("the sleeper: status 0x%x (1: not ENODEV)", st);
	err = clock_ns(c.clk) < 0 ? -errno : 0;
	EXPECT_EQ(-ENODEV, err) TH_LOG("clock_gettime: %s", errname(-err));
	EXPECT_EQ(-ENODEV, sys_clock_freq(c.clk, 1000));
	EXPECT_EQ(-ENODEV, sys_timer_gettime(id, &v, &iv));
	EXPECT_EQ(-ENODEV, sys_timer_settime(id, 0, SEC(1), 0));
	EXPECT_EQ(0, sys_timer_delete(id));
	pfd.fd = tfd;
	EXPECT_EQ(1, poll(&pfd, 1, 1000));
	EXPECT_EQ(POLLERR | POLLHUP, pfd.revents & (POLLERR | POLLHUP));
	close(tfd);
	test_clock_destroy(&c);
	err = run_cmd("modprobe ptp_sim");
	EXPECT_EQ(0, err) TH_LOG("ptp_sim does not load again");
}

TEST_HARNESS_MAIN
