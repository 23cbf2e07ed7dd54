// SPDX-License-Identifier: GPL-2.0
/*
 * RTC clocks in the device model: a class, so that their uevents reach
 * udev (which sets the permissions of /dev/rtcclockN), and timers that
 * wake the system (and need CAP_WAKE_ALARM) only on an RTC that may wake
 * it, as alarmtimer chooses its RTC.  And the RTC the tests' timers run
 * on, rtc-test: its alarm is a kernel timer armed for as long as the
 * alarm is ahead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/rtc.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "clockdev_util.h"

FIXTURE(rtc_device) {
	struct test_clock c;
};

FIXTURE_VARIANT(rtc_device) {
	enum clock_kind kind;
};

FIXTURE_VARIANT_ADD(rtc_device, cmos) {
	.kind = CK_RTC_CMOS,
};

FIXTURE_VARIANT_ADD(rtc_device, test_alarm) {
	.kind = CK_RTC,
};

FIXTURE_VARIANT_ADD(rtc_device, test_noalarm) {
	.kind = CK_RTC_NOALARM,
};

FIXTURE_SETUP(rtc_device)
{
	char why[256];

	if (test_clock_make(&self->c, variant->kind, why, sizeof(why)))
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(rtc_device)
{
	test_clock_destroy(&self->c);
}

/*
 * The clock's device has a class: its uevent file, which shows what its
 * uevents carry, names the node, and the device has a subsystem.
 */
TEST_F(rtc_device, uevent)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], buf[512], want[64];
	struct stat st;

	ASSERT_EQ(0, fstat(self->c.fd, &st));
	snprintf(dir, sizeof(dir), "/sys/dev/char/%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	snprintf(path, sizeof(path), "%s/uevent", dir);
	ASSERT_LE(0, read_file(path, buf, sizeof(buf)));
	snprintf(want, sizeof(want), "DEVNAME=%s", self->c.node);
	EXPECT_NE(NULL, strstr(buf, want))
		TH_LOG("%s: '%s', want %s: no uevent reaches udev", path, buf,
		       want);
	snprintf(path, sizeof(path), "%s/subsystem", dir);
	EXPECT_EQ(0, access(path, F_OK)) TH_LOG("%s: no class", path);
}

/*
 * timer_create() with CAP_WAKE_ALARM dropped, in a child: 0 or -errno
 * (-ECHILD: the child could not drop it).
 */
static int timer_create_unprivileged(const struct test_clock *c)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	int st, id, err;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		if (syscall(SYS_capget, &h, d))
			_exit(ECHILD);
		d[CAP_WAKE_ALARM / 32].effective &= ~(1U << (CAP_WAKE_ALARM % 32));
		if (syscall(SYS_capset, &h, d))
			_exit(ECHILD);
		err = sys_timer_create(c->clk, SIGEV_NONE, 0, 0, 0, &id);
		_exit(-err);
	}
	if (!reap_within(pid, &st, SEC(10)) || !WIFEXITED(st))
		return -ETIMEDOUT;
	return -WEXITSTATUS(st);
}

/*
 * Timers of an RTC clock wake the system, and creating one needs
 * CAP_WAKE_ALARM, exactly when the RTC has an alarm and its device may wake
 * the system (power/wakeup "enabled"), as alarmtimer chooses its RTC: the
 * choice is made when the RTC registers.  (rtc_cmos may wake only with
 * ACPI: boot with acpi=off to see the other side.)
 */
TEST_F(rtc_device, wakeup_gates_cap)
{
	char path[PATH_MAX], buf[32];
	bool wakes;
	int err;

	err = probe_timer_create(self->c.clk);
	if (err)
		SKIP(return, "timer_create on %s: %s: no timers on dynamic clocks",
		     self->c.path, errname(-err));
	snprintf(path, sizeof(path), "%s/power/wakeup", self->c.dev);
	wakes = variant->kind != CK_RTC_NOALARM &&
		read_file(path, buf, sizeof(buf)) > 0 && !strcmp(buf, "enabled");
	err = timer_create_unprivileged(&self->c);
	EXPECT_EQ(wakes ? -EPERM : 0, err)
		TH_LOG("%s (%s: %s): timer_create without CAP_WAKE_ALARM: %s",
		       self->c.path, path, wakes ? "enabled" : "not enabled",
		       errname(-err));
	TH_LOG("%s may %swake the system", self->c.path, wakes ? "" : "not ");
}

/*
 * Exit with the result of timerfd_settime() on a timerfd of @clk made
 * with CAP_WAKE_ALARM, once the capability is dropped: 0 or an errno.
 */
static void settime_unprivileged(clockid_t clk)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct itimerspec its = { .it_value.tv_sec = 3600 };
	struct __user_cap_data_struct d[2];
	int tfd = timerfd_create(clk, 0);

	if (tfd < 0)
		_exit(ECHILD);
	if (syscall(SYS_capget, &h, d))
		_exit(ECHILD);
	d[CAP_WAKE_ALARM / 32].effective &= ~(1U << (CAP_WAKE_ALARM % 32));
	if (syscall(SYS_capset, &h, d))
		_exit(ECHILD);
	_exit(timerfd_settime(tfd, 0, &its, NULL) ? errno : 0);
}

static int settime_unprivileged_status(clockid_t clk)
{
	int st;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid)
		settime_unprivileged(clk);
	if (!reap_within(pid, &st, SEC(10)) || !WIFEXITED(st))
		return -ETIMEDOUT;
	return -WEXITSTATUS(st);
}

/*
 * Arming a timerfd of a clock whose timers wake the system needs
 * CAP_WAKE_ALARM too, not only making it: as for CLOCK_BOOTTIME_ALARM,
 * side by side.
 */
TEST_F(rtc_device, timerfd_settime_cap)
{
	char path[PATH_MAX], buf[32];
	int err, ref;

	err = probe_timerfd(self->c.clk);
	if (err)
		SKIP(return, "timerfd_create on %s: %s: no timers on dynamic clocks",
		     self->c.path, errname(-err));
	snprintf(path, sizeof(path), "%s/power/wakeup", self->c.dev);
	if (variant->kind == CK_RTC_NOALARM ||
	    read_file(path, buf, sizeof(buf)) <= 0 || strcmp(buf, "enabled"))
		SKIP(return, "%s does not wake the system", self->c.path);
	ref = settime_unprivileged_status(CLOCK_BOOTTIME_ALARM);
	err = settime_unprivileged_status(self->c.clk);
	EXPECT_EQ(-EPERM, ref)
		TH_LOG("CLOCK_BOOTTIME_ALARM: timerfd_settime without CAP_WAKE_ALARM: %s",
		       errname(-ref));
	EXPECT_EQ(ref, err)
		TH_LOG("%s: timerfd_settime without CAP_WAKE_ALARM: %s, CLOCK_BOOTTIME_ALARM: %s",
		       self->c.path, errname(-err), errname(-ref));
}

/*
 * Set the alarm of the RTC behind @c (RTC_WKALM_SET on its /dev/rtcN)
 * @ahead seconds after its time, and find how far ahead rtc-test armed
 * the kernel timer that stands for it: the one timer:timer_start event
 * of this process during the ioctl, in its own context and not a delayed
 * work's (the kernels under test have no kallsyms to name the timer's
 * function), recorded in a tracefs instance of this test's own.  The
 * timer's timeout in jiffies in @jiffies.  0 or -errno (-ENOENT: no such
 * event, -E2BIG: more than one).
 */
static int test_alarm_timeout(const struct test_clock *c, int ahead,
			      long *jiffies, char *why, size_t len)
{
	struct rtc_wkalrm alm = { .enabled = 1 };
	char dir[128], path[192], line[512];
	int fd, err = 0;
	struct tm tm = { 0 };
	char seen[2][160] = { "", "" };
	const char *t, *ctx;
	int events = 0;
	time_t sec;
	FILE *f;

	*jiffies = LONG_MIN;
	snprintf(path, sizeof(path), "clockdev-rtc-%d", getpid());
	err = trace_instance_start(dir, sizeof(dir), path, 0,
				   "timer/timer_start", "common_pid == %d",
				   getpid());
	if (err) {
		snprintf(why, len, "tracefs instance %s recording timer:timer_start: %s",
			 path, errname(-err));
		return err;
	}
	snprintf(path, sizeof(path), "%s/events/timer/timer_start/enable", dir);
	fd = open(c->rtc, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, RTC_RD_TIME, &alm.time)) {
		err = -errno;
		snprintf(why, len, "%s: RTC_RD_TIME: %s", c->rtc, errname(-err));
	} else {
		/* struct rtc_time is the head of struct tm, field for field. */
		memcpy(&tm, &alm.time, sizeof(alm.time));
		sec = timegm(&tm) + ahead;
		gmtime_r(&sec, &tm);
		memcpy(&alm.time, &tm, sizeof(alm.time));
		if (ioctl(fd, RTC_WKALM_SET, &alm)) {
			err = -errno;
			snprintf(why, len, "%s: RTC_WKALM_SET: %s", c->rtc,
				 errname(-err));
		}
	}
	write_file(path, "0");
	/* The kernel timer was armed: the alarm is not wanted. */
	if (fd >= 0) {
		ioctl(fd, RTC_AIE_OFF, 0);
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/trace", dir);
	f = fopen(path, "r");
	while (!err && f && fgets(line, sizeof(line), f)) {
		t = line[0] == '#' ? NULL : strstr(line, " timer_start: ");
		/*
		 * Not a delayed work's timer (TIMER_IRQSAFE, "flags=I"), nor
		 * one an interrupt armed while this process ran: its context
		 * ("d.h.."/"..s..", after the CPU) says hardirq or softirq.
		 */
		if (t && strstr(t, " flags=") && strchr(strstr(t, " flags="), 'I'))
			t = NULL;
		ctx = t ? strstr(line, "] ") : NULL;
		if (ctx && strcspn(ctx + 2, " hsH") < strcspn(ctx + 2, " "))
			t = NULL;
		if (t)
			t = strstr(t, "[timeout=");
		if (t) {
			*jiffies = strtol(t + strlen("[timeout="), NULL, 10);
			if (events < 2)
				snprintf(seen[events], sizeof(seen[0]),
					 "%.159s", line);
			events++;
		}
	}
	if (f)
		fclose(f);
	if (!err && events != 1) {
		err = events ? -E2BIG : -ENOENT;
		snprintf(why, len, "%d timer:timer_start events in RTC_WKALM_SET: %.100s%.100s",
			 events, seen[0], seen[1]);
	}
	rmdir(dir);
	return err;
}

/*
 * rtc-test's alarm is a kernel timer: armed for an alarm 100 s ahead and
 * for one 1000 s ahead, its timeouts are as 1 to 10 (give or take a
 * second's rounding of either).  rtc-test bounded the timer's expiry in
 * jiffies by U32_MAX, which jiffies pass 5 minutes after boot on 64-bit
 * (INITIAL_JIFFIES): a later alarm was armed in the past, fired at the
 * next tick, and the RTC core armed it again, hundreds of times a second;
 * an earlier one, far enough ahead, fired at that instant.
 */
TEST_F(rtc_device, test_alarm_reach)
{
	long t100, t1000;
	char why[256];
	int err;

	if (variant->kind != CK_RTC)
		SKIP(return, "%s: only rtc-test emulates its alarm with a kernel timer",
		     self->c.name);
	err = test_alarm_timeout(&self->c, 100, &t100, why, sizeof(why));
	ASSERT_EQ(0, err) TH_LOG("%s", why);
	err = test_alarm_timeout(&self->c, 1000, &t1000, why, sizeof(why));
	ASSERT_EQ(0, err) TH_LOG("%s", why);
	TH_LOG("timeouts: %ld and %ld jiffies", t100, t1000);
	ASSERT_LT(0, t100) TH_LOG("an alarm 100 s ahead armed %ld jiffies ahead",
				  t100);
	EXPECT_LE(t100 * 98 / 10, t1000)
		TH_LOG("an alarm 1000 s ahead armed %ld jiffies ahead, one 100 s ahead %ld",
		       t1000, t100);
	EXPECT_GE(t100 * 102 / 10, t1000)
		TH_LOG("an alarm 1000 s ahead armed %ld jiffies ahead, one 100 s ahead %ld",
		       t1000, t100);
}

TEST_HARNESS_MAIN
