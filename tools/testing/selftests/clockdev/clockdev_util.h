/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every clockdev selftest needs: the fd clockid encoding, time
 * arithmetic, errno names, clocks to test on (made and removed at run
 * time where a driver allows it), feature probes and the kernel's view
 * of expiry decisions through tracefs.
 */
#ifndef __CLOCKDEV_UTIL_H
#define __CLOCKDEV_UTIL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "../kselftest.h"

/* The clockid of an open clock device: mainline's FD_TO_CLOCKID(). */
#define CLOCKFD			3
#define FD_TO_CLOCKID(fd)	((clockid_t)((~(unsigned int)(fd)) << 3 | CLOCKFD))
#define CLOCKID_TO_FD(clk)	((int)~((unsigned int)(clk) >> 3))

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id	_sigev_un._tid
#endif

#define NSEC_PER_USEC		1000LL
#define NSEC_PER_MSEC		1000000LL
#define NSEC_PER_SEC		1000000000LL
#define US(us)			((us) * NSEC_PER_USEC)
#define MS(ms)			((ms) * NSEC_PER_MSEC)
#define SEC(s)			((s) * NSEC_PER_SEC)

typedef long long s64;

/* ---- time ---- */

static inline s64 ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

static inline struct timespec ns_ts(s64 ns)
{
	struct timespec ts = { ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };

	if (ts.tv_nsec < 0) {
		ts.tv_sec--;
		ts.tv_nsec += NSEC_PER_SEC;
	}
	return ts;
}

/* @clk's time in ns, or -1 with errno set; a raw system call, signal-safe. */
s64 clock_ns(clockid_t clk);
/* CLOCK_MONOTONIC in ns. */
s64 mono_ns(void);
/* Let @ns of CLOCK_MONOTONIC pass: to pace a loop, never to wait for an event. */
void pass_time(s64 ns);

/* ---- errors ---- */

/* "ENODEV" for ENODEV; "errno N" for a number glibc does not know. */
const char *errname(int err);

/* ---- system calls, each returning 0 or -errno ---- */

int sys_clock_settime(clockid_t clk, s64 ns);
/* clock_adjtime(ADJ_SETOFFSET | ADJ_NANO) by @offset ns. */
int sys_clock_step(clockid_t clk, s64 offset);
/* clock_adjtime(ADJ_FREQUENCY) to @ppb parts per billion. */
int sys_clock_freq(clockid_t clk, long ppb);
/* timer_create() notifying @notify with @signo and @value; @tid for SIGEV_THREAD_ID. */
int sys_timer_create(clockid_t clk, int notify, int signo, int value,
		     pid_t tid, int *id);
int sys_timer_settime(int id, int flags, s64 value, s64 interval);
int sys_timer_gettime(int id, s64 *value, s64 *interval);
int sys_timer_delete(int id);
/* clock_nanosleep(); the remaining time in @rem (ns) when it is not NULL. */
int sys_clock_nanosleep(clockid_t clk, int flags, s64 t, s64 *rem);

/* ---- files ---- */

/* Write printf-formatted text to a sysfs or tracefs file: 0 or -errno. */
__printf(2, 3) int write_file(const char *path, const char *fmt, ...);
/* Read a small file, trailing newline removed: its length or -errno. */
int read_file(const char *path, char *buf, size_t len);
/*
 * The entry of directory @dir (not . or ..) whose name starts with
 * @prefix, for a directory that holds one (a device's ptpN, rtcN, its
 * network interface): 0 and the name in @name, or -errno.
 */
int only_entry(const char *dir, const char *prefix, char *name, size_t len);
/* Run a shell command quietly: its exit status, or -1. */
__printf(1, 2) int run_cmd(const char *fmt, ...);

/* ---- waiting for events, with a bound ---- */

/* The scheduler state of thread @tid of @pid ('S', 'T', ...), or 0. */
char task_state(pid_t pid, pid_t tid);
/*
 * Wait until thread @tid of @pid is in @state, polling /proc: a sleep in
 * the kernel sends no event to wait for.  False after @timeout_ns.
 */
bool wait_task_state(pid_t pid, pid_t tid, char state, s64 timeout_ns);
/* Read exactly @len bytes from @fd within @timeout_ns. */
bool read_within(int fd, void *buf, size_t len, s64 timeout_ns);
/* waitpid() for at most @timeout_ns; on timeout @pid is killed, false. */
bool reap_within(pid_t pid, int *status, s64 timeout_ns);
/*
 * Fork a child that sleeps in clock_nanosleep() on @clk for an hour and
 * return once it sleeps there: its pid, or -errno.  The child exits 0
 * when its sleep ends with ENODEV (the clock was removed), 1 otherwise.
 */
pid_t sleeper_until_gone(clockid_t clk);

/*
 * Stalls: a thread reads a CLOCK_MONOTONIC timerfd ticking every 10 ms;
 * how late it gets to a tick is how long the process could not run (a
 * TCG guest on a loaded host stalls for up to a second).  Bounds on
 * lateness add the longest stall seen.  Start it after blocking the
 * signals the test takes, so that the thread takes none.
 */
void stall_monitor_start(void);
s64 stall_max_ns(void);

/* ---- lateness statistics ---- */

/**
 * struct lates - the lateness of a test's expiries, in the timer clock's ns
 * @n:      samples in @v
 * @early:  how many came early (negative lateness)
 * @worst:  the earliest of those (most negative), 0 when none
 * @v:      the samples, sorted by lates_sort()
 */
struct lates {
	int n;
	int early;
	s64 worst;
	s64 v[4096];
};

void lates_add(struct lates *l, s64 late);
void lates_sort(struct lates *l);
/* The @pct percentile of sorted samples (0 when there are none). */
s64 lates_pct(const struct lates *l, int pct);

/* ---- clocks to test on ---- */

/**
 * enum clock_kind - the dynamic clocks the tests run on
 * @CK_PTP_SIM:      a ptp_sim instance (the series' simulated PHC), made
 *                   for the test and deleted after it
 * @CK_PTP_SIM_SLOW: the same with sleeping_reads: every read sleeps
 * @CK_MOCK_PHC:     netdevsim's mock PHC (a driver mainline has too)
 * @CK_RTC:          the RTC clock of rtc-test.1, an RTC whose alarm is a
 *                   kernel timer (reads in whole seconds)
 * @CK_RTC_NOALARM:  the RTC clock of rtc-test.0, an RTC without an alarm
 * @CK_E1000E:       the PHC of the guest's first e1000e (does not advance
 *                   under QEMU 7.2, runs at 5/2 of boot time under QEMU
 *                   10); removed by a PCI remove of the NIC, back by a PCI
 *                   rescan
 * @CK_MONOTONIC:    CLOCK_MONOTONIC: a static clock, for reference
 * @CK_REALTIME:     CLOCK_REALTIME: a static clock that can be stepped
 * @CK_RTC_CMOS:     the RTC clock of the RTC whose driver is rtc_cmos (the
 *                   machine's own RTC); removed by unbinding its driver
 * @CK_IGB:          the PHC of the guest's first igb (an 82576; QEMU 8 or
 *                   later), removed and brought back as the e1000e's
 */
enum clock_kind {
	CK_PTP_SIM,
	CK_PTP_SIM_SLOW,
	CK_MOCK_PHC,
	CK_RTC,
	CK_RTC_NOALARM,
	CK_E1000E,
	CK_MONOTONIC,
	CK_REALTIME,
	CK_RTC_CMOS,
	CK_IGB,
};

/**
 * struct test_clock - a clock under test
 * @kind:    what it is
 * @name:    its kind's name, for messages ("ptp_sim", "mock_phc", ...)
 * @path:    its device node ("/dev/ptp3"), empty for a static clock
 * @node:    the node's name ("ptp3"), as the kernel names the device
 * @fd:      the node opened O_RDWR, or -1
 * @clk:     the clockid: FD_TO_CLOCKID(@fd), or the static clock's id
 * @tick:    the unit of the clock's reads: 1, or NSEC_PER_SEC for an RTC
 * @id:      the driver instance made for the test, or -1
 * @rtc:     for an RTC clock, its /dev/rtcN ("" otherwise)
 * @removed: test_clock_remove() unregistered it
 * @rate:    the clock's ns per CLOCK_MONOTONIC ns: measured over 50 ms
 *           for a NIC's PHC (QEMU 10's e1000e runs at 5/2, 7.2's not at
 *           all), 1 for the others
 * @rate_err: how far off @rate may be, relative to it: from how long the
 *           reads that measured it took (0 for the clocks at 1)
 * @dev:     for an RTC clock, the RTC's parent device in sysfs (its
 *           driver is what test_clock_remove() unbinds); for CK_E1000E
 *           and CK_IGB, the NIC's PCI device in sysfs
 */
struct test_clock {
	enum clock_kind kind;
	const char *name;
	char path[64];
	char node[32];
	int fd;
	clockid_t clk;
	s64 tick;
	int id;
	char rtc[32];
	bool removed;
	double rate;
	double rate_err;
	char dev[128];
};

/**
 * test_clock_make() - make (where a driver allows) and open a clock
 * @c:    filled in
 * @kind: the clock wanted
 * @why:  receives why there is none, when this returns an error
 * @len:  size of @why
 *
 * Return: 0, or -errno when this kernel or machine has no such clock:
 * the caller then skips with @why.  Checking that the kernels under test
 * offer every kind is the job of the harness (tests/ptp, "features").
 */
int test_clock_make(struct test_clock *c, enum clock_kind kind,
		    char *why, size_t len);
/*
 * Unregister the clock under its open descriptors: ptp_sim or netdevsim
 * del_device, unbinding the RTC's driver, or a PCI remove of the NIC.
 * 0 or -errno (-EOPNOTSUPP for a clock the test did not make).
 */
int test_clock_remove(struct test_clock *c);
/*
 * Close the clock and remove what test_clock_make() made; bring back what
 * test_clock_remove() removed of the machine's own (an RTC is bound again,
 * a NIC comes back by a PCI rescan).
 */
void test_clock_destroy(struct test_clock *c);
/* Open the clock's node again with @flags: a descriptor, or -errno. */
int test_clock_open(const struct test_clock *c, int flags);
/* Whether the clock is one of the static POSIX clocks. */
static inline bool test_clock_static(const struct test_clock *c)
{
	return c->kind == CK_MONOTONIC || c->kind == CK_REALTIME;
}

/* ---- feature probes: what this kernel offers on a clock ---- */

/* timer_create(SIGEV_NONE) on @clk (deleted again): 0 or -errno. */
int probe_timer_create(clockid_t clk);
/* A zero-length relative clock_nanosleep() on @clk: 0 or -errno. */
int probe_nanosleep(clockid_t clk);
/* timerfd_create() on @clk (closed again): 0 or -errno. */
int probe_timerfd(clockid_t clk);

/* ---- the core's expiry decisions, from its tracepoint ---- */

/**
 * struct expiry_audit - every expiry decision the core made on one clock
 * @dir:      the tracefs instance recording them
 * @events:   decisions seen
 * @early:    decisions taken before the clock reached the expiry
 * @max_late: the latest decision, device ns after the expiry
 * @lost:     events the ring buffer dropped (then nothing is proven)
 * @first_early: the first early decision, as traced
 */
struct expiry_audit {
	char dir[128];
	long events;
	long early;
	s64 max_late;
	long lost;
	char first_early[256];
};

/*
 * Start recording the clockdev:clockdev_timer_expire events of the clock
 * whose device is named @node, in a tracefs instance of its own: 0, or
 * -errno (-ENOENT: the kernel has no such tracepoint).
 */
int expiry_audit_start(struct expiry_audit *a, const char *node);
/* Stop, count what was recorded, remove the instance: 0 or -errno. */
int expiry_audit_stop(struct expiry_audit *a);

/*
 * expiry_audit_stop(), having first added the lateness of every recorded
 * decision (now - expires, device ns) to @l: 0 or -errno.  @a->lost says
 * whether the ring buffer dropped some.
 */
int expiry_audit_stop_lates(struct expiry_audit *a, struct lates *l);

/* The median of @n values (sorts @v; 0 when @n is 0). */
double median(double *v, int n);

/*
 * Close the clock of an RTC that test_clock_remove() unbound, bind its
 * driver again, find the RTC it registers anew (its number may change) and
 * open its clock: @c's paths, fd and clockid are updated.  0 or -errno.
 */
int test_clock_rebind(struct test_clock *c);

/*
 * A tracefs instance of the test's own, /sys/kernel/tracing/instances/@name
 * (its path in @dir, @len bytes), recording the event @event ("group/name")
 * where the filter @filter (printf-style) holds; a ring buffer of
 * @buffer_kb per CPU (0: the default).  0, or -errno (-ENOENT: the kernel
 * has no such event; then nothing is left behind).  rmdir(@dir) removes it.
 */
__printf(6, 7)
int trace_instance_start(char *dir, size_t len, const char *name,
			 int buffer_kb, const char *event,
			 const char *filter, ...);

/**
 * struct event_count - how often a clockdev tracepoint fired for one clock
 * @dir:    the tracefs instance recording it
 * @event:  the event's name, under events/clockdev/
 * @events: events recorded
 * @lost:   events the ring buffer dropped (then @events is short)
 */
struct event_count {
	char dir[192];
	char event[64];
	long events;
	long lost;
};

/*
 * Start counting the events clockdev:@event of the clock whose device is
 * named @node, in a tracefs instance of its own: 0, or -errno (-ENOENT:
 * the kernel has no such tracepoint).
 */
int event_count_start(struct event_count *e, const char *event,
		      const char *node);
/* Stop, count what was recorded, remove the instance: 0 or -errno. */
int event_count_stop(struct event_count *e);

/* ---- timer signals, as a handler saw them ---- */

/**
 * struct tsig - one timer signal, as the handler saw it
 * @value:   its sigev_value.sival_int: which timer
 * @overrun: its si_overrun
 * @tid:     the thread the handler ran in
 * @dev:     the clock given to tsig_start(), read first thing (-1: failed)
 * @mono:    CLOCK_MONOTONIC, read next
 */
struct tsig {
	int value;
	int overrun;
	pid_t tid;
	s64 dev;
	s64 mono;
};

/*
 * Record the signals @signo (of timers) as struct tsig, reading @clk
 * first thing in the handler.  @signo is blocked, and let in only by
 * tsig_wait() and tsig_take() in the thread that calls them: call this
 * before starting threads, which inherit the mask.
 */
void tsig_start(int signo, clockid_t clk);
/* The signals handled so far. */
int tsig_count(void);
/* The @i-th signal handled (the first 4096 are kept), or NULL. */
const struct tsig *tsig_nth(int i);
/* Let the signal in until @n were handled in all, at most @timeout_ns: the count. */
int tsig_wait(int n, s64 timeout_ns);
/* Handle the signals already pending, without waiting. */
void tsig_take(void);

/*
 * Forget the signals handled so far: the next one is tsig_nth(0) again.
 * Call it with no signal pending and outside tsig_wait()/tsig_take(),
 * e.g. between two measurements of a benchmark.
 */
void tsig_reset(void);

#endif /* __CLOCKDEV_UTIL_H */
