// SPDX-License-Identifier: GPL-2.0
/*
 * features: what this kernel offers on dynamic clocks, one line each:
 *
 *	feature NAME: yes|no (how it was found out)
 *
 * fd-timers, fd-nanosleep and fd-timerfd are probed on netdevsim's mock
 * PHC (a driver every kernel here has), ptp-sim and rtc-clock by making or
 * finding such a clock, trace-expire by looking for the tracepoint.  A
 * harness compares them with what the kernel under test should offer; the
 * tests themselves skip what is missing.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>

#include "clockdev_util.h"

static void report(const char *name, int err, const char *how)
{
	printf("feature %s: %s (%s%s%s)\n", name, err ? "no" : "yes", how,
	       err ? ": " : "", err ? errname(-err) : "");
}

int main(void)
{
	struct test_clock c;
	char why[256], how[192];
	int err;

	err = test_clock_make(&c, CK_MOCK_PHC, why, sizeof(why));
	if (err) {
		report("fd-timers", err, why);
		report("fd-nanosleep", err, why);
		report("fd-timerfd", err, why);
	} else {
		snprintf(how, sizeof(how), "timer_create on %s, netdevsim",
			 c.path);
		report("fd-timers", probe_timer_create(c.clk), how);
		snprintf(how, sizeof(how), "clock_nanosleep on %s", c.path);
		report("fd-nanosleep", probe_nanosleep(c.clk), how);
		snprintf(how, sizeof(how), "timerfd_create on %s", c.path);
		report("fd-timerfd", probe_timerfd(c.clk), how);
		test_clock_destroy(&c);
	}

	err = test_clock_make(&c, CK_PTP_SIM, why, sizeof(why));
	report("ptp-sim", err, err ? why : "a ptp_sim instance made");
	if (!err)
		test_clock_destroy(&c);

	err = access("/dev/rtcclock0", F_OK) ? -2 : 0;
	report("rtc-clock", err, "/dev/rtcclock0");

	run_cmd("mount -t tracefs nodev /sys/kernel/tracing >/dev/null 2>&1");
	err = access("/sys/kernel/tracing/events/clockdev/clockdev_timer_expire",
		     F_OK) ? -2 : 0;
	report("trace-expire", err, "tracepoint clockdev:clockdev_timer_expire");
	return 0;
}
