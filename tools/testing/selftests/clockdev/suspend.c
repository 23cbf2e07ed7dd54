// SPDX-License-Identifier: GPL-2.0
/*
 * suspend: a timer armed on a clock, then the system suspended.  Not run by
 * run_tests: it needs a host that wakes a guest left asleep (QMP
 * system_wakeup); tests/ptp/suspend.sh runs it under scripts/hotplug.sh.
 *
 * usage: suspend --name LABEL (--clock DEVICE | --boottime-alarm)
 *                --in MS [--state STATE] [--wakealarm RTC:SEC]
 *                [--expect-error ERRNO] [--late-max MS] [--rtc RTC]
 *                [--outcome KEY] [--busy MS] [--unchanged PATH]
 *
 * Arms a relative timer of MS on the fd clock of DEVICE (or on
 * CLOCK_BOOTTIME_ALARM), writes STATE (default "mem") to /sys/power/state,
 * and once that write returns checks:
 *  - the write succeeded (or failed with --expect-error's errno, a name such
 *    as EBUSY when a wake timer is due too soon, then nothing else is
 *    checked);
 *  - the system was suspended: /sys/power/suspend_stats/success went up,
 *    and the RTC (RTC's since_epoch, default rtc0, whole seconds) advanced
 *    at least a second more than CLOCK_MONOTONIC across the write.  The RTC
 *    is the clock to trust here: in QEMU it follows the host's time through
 *    S3, while the guest kernel's clocks stop and, after the first suspend,
 *    it does not count the sleep into CLOCK_BOOTTIME either;
 *  - it woke when the timer (or the wakealarm) was due, give or take a
 *    second or two of RTC time: by the RTC alarm, as nothing else wakes the
 *    guest that soon (the host's watchdog wakes it with QMP system_wakeup
 *    after 30 s, and says so);
 *  - the timer's signal came after resume, never early in the clock's time
 *    (the clock read in the handler is at or past the expiry), and at most
 *    --late-max MS (default 1500) after it.
 * --wakealarm RTC:SEC also sets /sys/class/rtc/RTC/wakealarm SEC ahead, to
 * wake a system whose timer does not (a PHC's).
 * --busy MS also arms one-shot timerfds on the clock due every MS until the
 * timer's expiry (never read: a periodic timer would stop at its first
 * expiry with user space frozen), so that the core would read the clock
 * every MS or so throughout the suspend if it did not stop; --unchanged PATH
 * checks that the number in PATH (a driver's count
 * of the operations called while its device was suspended, such as
 * ptp_sim's debugfs suspended_ops) is the same after the write as before.
 *
 * With --state freeze (suspend to idle) what is checked differs, because
 * QEMU raises the RTC's wake event only from S3: a guest in s2idle is not
 * woken by its RTC alarm on any kernel, and its clocks keep running.  So:
 *  - the system was suspended: suspend_stats/success went up;
 *  - whether the timer woke it (it woke when due) is not judged here: it is
 *    the outcome, printed for the host to compare between kernels (see
 *    --outcome); the host's watchdog presses the power button when the
 *    guest is still asleep 12 s after it went down (scripts/hotplug.sh);
 *  - the timer's signal came after resume, never early, and at most
 *    --late-max MS after the later of its expiry and the resume.
 * --outcome KEY prints "<<<clockdev-outcome KEY|LABEL|OUTCOME>>>", OUTCOME
 * saying whether the timer woke the system; scripts/guests.sh checks that a
 * patched kernel's outcomes under KEY equal mainline's first one.
 *
 * Prints "ok - suspend: LABEL: ..." or "not ok - ...".  Exit status 0 when
 * all passed, 1 otherwise, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "clockdev_util.h"

#define SIG_TIMER	(SIGRTMIN + 1)

static const char *label = "?";
static int failed;

static __printf(2, 3) void report(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - suspend: %s: ", ok ? "ok" : "not ok", label);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!ok)
		failed++;
}

/* A number in a sysfs file, or -1. */
static long read_count(const char *path)
{
	char buf[32];

	return read_file(path, buf, sizeof(buf)) > 0 ? atol(buf) : -1;
}

/* The errno named @name ("EBUSY", as errname() names it), or a number. */
static int errno_of(const char *name)
{
	int err;

	for (err = 1; err < 4096; err++)
		if (!strcmp(errname(err), name))
			return err;
	return atoi(name);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "clock", required_argument, NULL, 'c' },
		{ "boottime-alarm", no_argument, NULL, 'b' },
		{ "in", required_argument, NULL, 'i' },
		{ "state", required_argument, NULL, 's' },
		{ "wakealarm", required_argument, NULL, 'w' },
		{ "expect-error", required_argument, NULL, 'e' },
		{ "late-max", required_argument, NULL, 'l' },
		{ "rtc", required_argument, NULL, 'r' },
		{ "outcome", required_argument, NULL, 'o' },
		{ "busy", required_argument, NULL, 'B' },
		{ "unchanged", required_argument, NULL, 'u' },
		{ }
	};
	const char *dev = NULL, *state = "mem", *wakealarm = NULL, *rtc = "rtc0";
	const char *outcome = NULL, *unchanged = NULL;
	long busy_ms = 0, u0 = -1, u1;
	char since_epoch[96];
	s64 in_ms = -1, late_max = MS(1500);
	s64 dev0, expiry, b0, m0, b1, m1, slept, at, late, resumed;
	struct timespec limit = { 20, 0 };
	long ok0, ok1;
	s64 due, r0, r1;
	int opt, fd, err, id, expect = 0;
	bool alarm_clock = false, freeze, woke;
	clockid_t clk;
	siginfo_t si;
	sigset_t set;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			label = optarg;
			break;
		case 'c':
			dev = optarg;
			break;
		case 'b':
			alarm_clock = true;
			break;
		case 'i':
			in_ms = atoll(optarg);
			break;
		case 's':
			state = optarg;
			break;
		case 'w':
			wakealarm = optarg;
			break;
		case 'e':
			expect = errno_of(optarg);
			break;
		case 'l':
			late_max = MS(atoll(optarg));
			break;
		case 'r':
			rtc = optarg;
			break;
		case 'o':
			outcome = optarg;
			break;
		case 'B':
			busy_ms = atol(optarg);
			break;
		case 'u':
			unchanged = optarg;
			break;
		default:
			return 2;
		}
	}
	if (in_ms < 0 || (!dev == !alarm_clock) || busy_ms < 0 ||
	    (busy_ms && !dev)) {
		fprintf(stderr, "usage: see the top of clockdev/suspend.c\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	freeze = !strcmp(state, "freeze");

	if (alarm_clock) {
		clk = CLOCK_BOOTTIME_ALARM;
	} else {
		fd = open(dev, O_RDONLY);
		if (fd < 0) {
			report(false, "open %s (%s)", dev, strerror(errno));
			return 1;
		}
		clk = FD_TO_CLOCKID(fd);
	}
	sigemptyset(&set);
	sigaddset(&set, SIG_TIMER);
	sigprocmask(SIG_BLOCK, &set, NULL);
	err = sys_timer_create(clk, SIGEV_SIGNAL, SIG_TIMER, 0, 0, &id);
	if (err) {
		report(false, "timer_create (%s)", strerror(-err));
		return 1;
	}
	if (wakealarm) {
		char path[128], *colon = strchr(wakealarm, ':');

		if (!colon)
			return 2;
		snprintf(path, sizeof(path), "/sys/class/rtc/%.*s/wakealarm",
			 (int)(colon - wakealarm), wakealarm);
		write_file(path, "0");
		err = write_file(path, "+%s", colon + 1);
		if (err) {
			report(false, "set %s to +%s (%s)", path, colon + 1,
			       strerror(-err));
			return 1;
		}
	}
	if (busy_ms) {
		struct rlimit rl = { 4096, 4096 };
		struct itimerspec its = { };
		s64 at;
		int tfd;

		setrlimit(RLIMIT_NOFILE, &rl);
		for (at = busy_ms; at < in_ms; at += busy_ms) {
			its.it_value = ns_ts(MS(at));
			tfd = timerfd_create(clk, 0);
			if (tfd < 0 || timerfd_settime(tfd, 0, &its, NULL)) {
				report(false, "a timerfd due in %lld ms on the clock (%s)",
				       at, strerror(errno));
				return 1;
			}
		}
	}
	if (unchanged) {
		u0 = read_count(unchanged);
		if (u0 < 0) {
			report(false, "read %s (%s)", unchanged, strerror(errno));
			return 1;
		}
	}
	ok0 = read_count("/sys/power/suspend_stats/success");

	dev0 = clock_ns(clk);
	err = sys_timer_settime(id, 0, MS(in_ms), 0);
	if (err) {
		report(false, "timer_settime (%s)", strerror(-err));
		return 1;
	}
	expiry = dev0 + MS(in_ms);
	/* When the system should wake, from now: the alarm or the timer. */
	due = wakealarm ? atoll(strchr(wakealarm, ':') + 1) * 1000 : in_ms;
	b0 = clock_ns(CLOCK_BOOTTIME);
	m0 = clock_ns(CLOCK_MONOTONIC);
	snprintf(since_epoch, sizeof(since_epoch), "/sys/class/rtc/%s/since_epoch", rtc);
	r0 = read_count(since_epoch);
	err = -write_file("/sys/power/state", "%s", state);
	resumed = clock_ns(clk);
	b1 = clock_ns(CLOCK_BOOTTIME);
	m1 = clock_ns(CLOCK_MONOTONIC);
	r1 = read_count(since_epoch);
	u1 = unchanged ? read_count(unchanged) : -1;
	slept = (b1 - b0) - (m1 - m0);

	if (expect) {
		report(err == expect, "writing %s to /sys/power/state fails with %s (%s)",
		       state, strerror(expect), err ? strerror(err) : "it succeeded");
		sys_timer_delete(id);
		return failed ? 1 : 0;
	}
	report(!err, "writing %s to /sys/power/state succeeds (%s)", state,
	       err ? strerror(err) : "0");
	if (err)
		return 1;
	ok1 = read_count("/sys/power/suspend_stats/success");
	woke = (r1 - r0) * 1000 >= due - 2000 && (r1 - r0) * 1000 <= due + 3000;
	if (freeze) {
		report(ok0 >= 0 && ok1 == ok0 + 1,
		       "the system was suspended (suspend_stats/success %ld -> %ld)",
		       ok0, ok1);
		printf("  it woke %lld s after the write, the timer was due after %lld ms: %s\n",
		       r1 - r0, due, woke ? "woken by the timer" : "not woken by the timer");
	} else {
		report(ok0 >= 0 && ok1 == ok0 + 1 && r0 >= 0 && r1 >= 0 &&
		       SEC(r1 - r0) - (m1 - m0) >= NSEC_PER_SEC,
		       "the system was suspended (suspend_stats/success %ld -> %ld; across the write the RTC advanced %lld s, CLOCK_MONOTONIC %lld ms)",
		       ok0, ok1, r1 - r0, (m1 - m0) / NSEC_PER_MSEC);
		report(woke,
		       "it woke when the alarm was due, %lld ms after the write (the RTC advanced %lld s; the watchdog waits 30 s)",
		       due, r1 - r0);
	}
	if (unchanged)
		report(u1 == u0,
		       "the clock's driver saw no operation while suspended (%s: %ld before the suspend, %ld after it)",
		       unchanged, u0, u1);
	if (outcome)
		printf("<<<clockdev-outcome %s|%s|the timer %s the system from %s>>>\n",
		       outcome, label, woke ? "wakes" : "does not wake", state);
	printf("  sleep time the kernel counted into CLOCK_BOOTTIME: %lld ms\n",
	       slept / NSEC_PER_MSEC);
	if (sigtimedwait(&set, &si, &limit) != SIG_TIMER) {
		report(false, "the timer's signal came after resume (none within %ld s)",
		       (long)limit.tv_sec);
		return 1;
	}
	at = clock_ns(clk);
	late = at - expiry;
	if (freeze) {
		s64 after = at - (resumed > expiry ? resumed : expiry);

		report(late >= 0 && after <= late_max,
		       "the timer's signal came after resume, never early, at most %lld ms after the later of its expiry and the resume (%lld ms after it, %lld ms after its expiry in the clock's time)",
		       late_max / NSEC_PER_MSEC, after / NSEC_PER_MSEC,
		       late / NSEC_PER_MSEC);
	} else {
		report(late >= 0 && late <= late_max,
		       "the timer's signal came after resume, never early, at most %lld ms late (%lld ms late in the clock's time)",
		       late_max / NSEC_PER_MSEC, late / NSEC_PER_MSEC);
	}
	if (!alarm_clock)
		printf("  clock advanced %lld ms while boot time advanced %lld ms\n",
		       (at - dev0) / NSEC_PER_MSEC,
		       (clock_ns(CLOCK_BOOTTIME) - b0) / NSEC_PER_MSEC);
	return failed ? 1 : 0;
}
