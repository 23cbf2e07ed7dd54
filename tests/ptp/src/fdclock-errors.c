// SPDX-License-Identifier: GPL-2.0
/*
 * fdclock-errors: the error table of dynamic (fd) POSIX clocks.
 *
 * usage: fdclock-errors [--kernel KIND] [--name LABEL] DEVICE [-- REMOVE_CMD...]
 *
 * Opens DEVICE (a /dev/ptpN) several ways and calls every clock syscall on
 * clockids made from good and bad descriptors, with good and bad arguments.
 * Each row prints "ok - errors: LABEL: SYSCALL: CASE" or
 * "not ok - errors: LABEL: SYSCALL: CASE (got X, want Y)".
 *
 * The expected results are mainline 6.12's (kernel/time/posix-clock.c,
 * posix-timers.c, drivers/ptp/ptp_clock.c) except where the clockdev layer
 * changes the ABI on purpose; KIND (mainline, patched or debug; debug
 * expects what patched does) selects the column:
 *  - timer_create() and clock_nanosleep() on a fd clockid: mainline's
 *    clock_posix_dynamic has neither, so every fd clockid gets EOPNOTSUPP;
 *    clockdev gives EINVAL for a fd that is not a clock, ENODEV for a
 *    removed clock, and serves a live one.
 *  - poll() on a removed clock: EPOLLERR on mainline, EPOLLERR | EPOLLHUP
 *    with clockdev.
 *
 * With REMOVE_CMD, the clock is then unregistered under the open
 * descriptors (REMOVE_CMD is run, e.g. a netdevsim del_device) and the
 * "removed" rows check what a stale descriptor gets; without it they are
 * reported as skipped.
 *
 * Exit status: 0 when every row passed, 1 when one failed, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/ptp_clock.h>

#define CLOCKFD			3
#define CPUCLOCK_PERTHREAD	4
#define CPUCLOCK_SCHED		2
/* The kernel's make_process_cpuclock(): ((~pid) << 3) | clock. */
#define MAKE_CPUCLOCK(pid, clock) \
	((clockid_t)((~(unsigned int)(pid)) << 3 | (clock)))
#define FD_TO_CLOCKID(fd)	MAKE_CPUCLOCK(fd, CLOCKFD)
/* Above PID_MAX_LIMIT (4M): no task can have it. */
#define NO_SUCH_PID		0x7ffffff
#define BAD_PTR			((void *)1)
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
/* A row that could block (a sleep, a read) is interrupted after this. */
#define ROW_TIMEOUT_S		5

enum kernel { K_MAINLINE, K_PATCHED, K_NR };

/* Where a row's clockid comes from. */
enum fd_kind {
	FD_STATIC,	/* row->clk, not a descriptor */
	FD_RW,		/* the clock, O_RDWR */
	FD_RO,		/* the clock, O_RDONLY */
	FD_WO,		/* the clock, O_WRONLY */
	FD_OPATH,	/* the clock, O_PATH: fget() refuses it */
	FD_PERTHREAD,	/* O_RDWR clockid with the CPU-clock per-thread bit */
	FD_BAD,		/* a number that was never opened */
	FD_CLOSED,	/* a descriptor just closed */
	FD_PIPE,
	FD_NULL,	/* /dev/null: a character device, not a clock */
	FD_SOCKET,
	FD_FILE,	/* a regular file */
	FD_NR,
};

/* The argument variant a row passes. */
enum arg {
	A_OK,		/* a valid argument */
	A_NULL,		/* NULL pointer */
	A_BADPTR,	/* an unmapped user pointer */
	A_BADID,	/* timer_create(): unmapped timer id pointer */
	A_NSEC_BIG,	/* timespec with tv_nsec = 1000000000 */
	A_NSEC_NEG,	/* timespec with tv_nsec = -1 */
	A_SEC_NEG,	/* timespec with tv_sec = -1 */
	A_USEC_BIG,	/* ADJ_SETOFFSET with tv_usec = 1000000 */
	A_FREQ_MAX,	/* ADJ_FREQUENCY at the clock's max_adj */
	A_FREQ_OVER,	/* ADJ_FREQUENCY just above max_adj */
	A_FREQ_UNDER,	/* ADJ_FREQUENCY just below -max_adj */
	A_SHORT,	/* read(): a buffer smaller than one event */
	A_UNKNOWN,	/* ioctl(): a command no driver knows */
};

struct ctx {
	enum kernel kernel;
	const char *label;
	const char *path;
	int fd[FD_NR];
	int max_adj;		/* ppb, from PTP_CLOCK_GETCAPS */
};

struct row;

/**
 * struct op - one system call under test
 * @name:	printed before the row's name
 * @call:	makes the call; returns its result, or -errno
 * @show:	formats a result of @call
 */
struct op {
	const char *name;
	long (*call)(struct ctx *ctx, const struct row *row,
		     int fd, clockid_t clk);
	void (*show)(char *buf, size_t len, long res);
};

/**
 * struct row - one check
 * @op:		the call
 * @name:	what is special about it
 * @fd:		where the clockid comes from
 * @clk:	the clockid when @fd is FD_STATIC
 * @arg:	argument variant
 * @modes:	clock_adjtime() modes
 * @want:	expected result per kernel: >= 0 a return value, < 0 -errno
 */
struct row {
	const struct op *op;
	const char *name;
	enum fd_kind fd;
	clockid_t clk;
	enum arg arg;
	int modes;
	long want[K_NR];
};

#define SAME(res)	{ [K_MAINLINE] = (res), [K_PATCHED] = (res) }
#define DIFF(m, p)	{ [K_MAINLINE] = (m), [K_PATCHED] = (p) }

static long sys_result(long ret)
{
	return ret < 0 ? -errno : ret;
}

static void show_errno(char *buf, size_t len, long res)
{
	const char *name = res < 0 ? strerrorname_np(-res) : NULL;

	if (res >= 0)
		snprintf(buf, len, "%ld", res);
	else if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "errno %ld", -res);
}

static void show_revents(char *buf, size_t len, long res)
{
	static const struct { short bit; const char *name; } bits[] = {
		{ POLLIN, "POLLIN" }, { POLLPRI, "POLLPRI" },
		{ POLLOUT, "POLLOUT" }, { POLLERR, "POLLERR" },
		{ POLLHUP, "POLLHUP" }, { POLLNVAL, "POLLNVAL" },
	};
	size_t i, n = 0;

	if (res <= 0) {
		show_errno(buf, len, res);
		return;
	}
	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(bits); i++)
		if (res & bits[i].bit)
			n += snprintf(buf + n, len - n, "%s%s",
				      n ? "|" : "", bits[i].name);
}

/* A timespec for the row's argument variant; @clk supplies A_OK's value. */
static struct timespec *row_timespec(const struct row *row, clockid_t clk,
				     struct timespec *ts)
{
	switch (row->arg) {
	case A_NULL:
		return NULL;
	case A_BADPTR:
		return BAD_PTR;
	case A_NSEC_BIG:
		*ts = (struct timespec){ 1000, 1000000000 };
		break;
	case A_NSEC_NEG:
		*ts = (struct timespec){ 1000, -1 };
		break;
	case A_SEC_NEG:
		*ts = (struct timespec){ -1, 0 };
		break;
	default:
		/* Its own time, so that setting it changes nothing. */
		if (syscall(SYS_clock_gettime, clk, ts))
			*ts = (struct timespec){ 1000, 0 };
		break;
	}
	return ts;
}

static long call_gettime(struct ctx *ctx, const struct row *row,
			 int fd, clockid_t clk)
{
	struct timespec ts;
	void *p = row->arg == A_BADPTR ? BAD_PTR : &ts;

	return sys_result(syscall(SYS_clock_gettime, clk, p));
}

static long call_getres(struct ctx *ctx, const struct row *row,
			int fd, clockid_t clk)
{
	struct timespec ts;

	return sys_result(syscall(SYS_clock_getres, clk,
				  row_timespec(row, clk, &ts)));
}

static long call_settime(struct ctx *ctx, const struct row *row,
			 int fd, clockid_t clk)
{
	struct timespec ts;

	return sys_result(syscall(SYS_clock_settime, clk,
				  row_timespec(row, clk, &ts)));
}

static void fill_timex(const struct ctx *ctx, const struct row *row,
		       struct timex *tx)
{
	long max = ctx->max_adj;

	memset(tx, 0, sizeof(*tx));
	tx->modes = row->modes;
	switch (row->arg) {
	case A_USEC_BIG:
		tx->time.tv_usec = 1000000;
		break;
	/* scaled_ppm_to_ppb(ppm) is (ppm * 125) >> 13. */
	case A_FREQ_MAX:
		tx->freq = max * 8192 / 125;
		break;
	case A_FREQ_OVER:
		tx->freq = ((max + 1) * 8192 + 124) / 125;
		break;
	case A_FREQ_UNDER:
		tx->freq = -(((max + 1) * 8192 + 124) / 125);
		break;
	default:
		break;
	}
}

static long call_adjtime(struct ctx *ctx, const struct row *row,
			 int fd, clockid_t clk)
{
	struct timex tx, zero = { .modes = ADJ_FREQUENCY };
	long ret;

	if (row->arg == A_BADPTR)
		return sys_result(syscall(SYS_clock_adjtime, clk, BAD_PTR));
	fill_timex(ctx, row, &tx);
	ret = sys_result(syscall(SYS_clock_adjtime, clk, &tx));
	/* Leave the clock at its nominal frequency for the rows after. */
	if (ret >= 0 && (row->modes & ADJ_FREQUENCY))
		syscall(SYS_clock_adjtime, clk, &zero);
	return ret;
}

static long call_timer_create(struct ctx *ctx, const struct row *row,
			      int fd, clockid_t clk)
{
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };
	void *sevp = row->arg == A_BADPTR ? BAD_PTR : &sev;
	int id, *idp = row->arg == A_BADID ? BAD_PTR : &id;
	long ret;

	ret = sys_result(syscall(SYS_timer_create, clk, sevp, idp));
	if (ret == 0)
		syscall(SYS_timer_delete, id);
	return ret;
}

/* An absolute sleep until a time already past: it must not block. */
static long call_nanosleep(struct ctx *ctx, const struct row *row,
			   int fd, clockid_t clk)
{
	struct timespec ts = { 0, 0 }, *p = &ts;

	if (row->arg != A_OK)
		p = row_timespec(row, clk, &ts);
	return sys_result(syscall(SYS_clock_nanosleep, clk, TIMER_ABSTIME,
				  p, NULL));
}

static long call_read(struct ctx *ctx, const struct row *row,
		      int fd, clockid_t clk)
{
	struct ptp_extts_event ev;
	size_t len = row->arg == A_SHORT ? 1 : sizeof(ev);

	return sys_result(read(fd, &ev, len));
}

static long call_ioctl(struct ctx *ctx, const struct row *row,
		       int fd, clockid_t clk)
{
	struct ptp_clock_caps caps;
	unsigned long cmd = row->arg == A_UNKNOWN ? _IO(PTP_CLK_MAGIC, 0x7f) :
						    PTP_CLOCK_GETCAPS;

	return sys_result(ioctl(fd, cmd, &caps));
}

/* The events poll() reports without waiting, or -errno. */
static long call_poll(struct ctx *ctx, const struct row *row,
		      int fd, clockid_t clk)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLPRI };
	long ret = sys_result(poll(&pfd, 1, 0));

	return ret < 0 ? ret : pfd.revents;
}

static long call_close(struct ctx *ctx, const struct row *row,
		       int fd, clockid_t clk)
{
	ctx->fd[row->fd] = -1;
	return sys_result(close(fd));
}

static const struct op op_gettime = { "clock_gettime", call_gettime, show_errno };
static const struct op op_getres = { "clock_getres", call_getres, show_errno };
static const struct op op_settime = { "clock_settime", call_settime, show_errno };
static const struct op op_adjtime = { "clock_adjtime", call_adjtime, show_errno };
static const struct op op_timer = { "timer_create", call_timer_create, show_errno };
static const struct op op_sleep = { "clock_nanosleep", call_nanosleep, show_errno };
static const struct op op_read = { "read", call_read, show_errno };
static const struct op op_ioctl = { "ioctl", call_ioctl, show_errno };
static const struct op op_poll = { "poll", call_poll, show_revents };
static const struct op op_close = { "close", call_close, show_errno };

#define STATIC(op, name, clk, want) \
	{ op, name, FD_STATIC, clk, A_OK, 0, SAME(want) }

/* Static clockids: the fd layer must not disturb them. */
static const struct row static_rows[] = {
	STATIC(&op_gettime, "CLOCK_REALTIME", CLOCK_REALTIME, 0),
	STATIC(&op_gettime, "CLOCK_MONOTONIC", CLOCK_MONOTONIC, 0),
	STATIC(&op_gettime, "CLOCK_PROCESS_CPUTIME_ID", CLOCK_PROCESS_CPUTIME_ID, 0),
	STATIC(&op_gettime, "CLOCK_THREAD_CPUTIME_ID", CLOCK_THREAD_CPUTIME_ID, 0),
	STATIC(&op_gettime, "CLOCK_MONOTONIC_RAW", CLOCK_MONOTONIC_RAW, 0),
	STATIC(&op_gettime, "CLOCK_REALTIME_COARSE", CLOCK_REALTIME_COARSE, 0),
	STATIC(&op_gettime, "CLOCK_MONOTONIC_COARSE", CLOCK_MONOTONIC_COARSE, 0),
	STATIC(&op_gettime, "CLOCK_BOOTTIME", CLOCK_BOOTTIME, 0),
	STATIC(&op_gettime, "CLOCK_TAI", CLOCK_TAI, 0),
	STATIC(&op_gettime, "own process CPU clock (pid 0)",
	       MAKE_CPUCLOCK(0, CPUCLOCK_SCHED), 0),
	STATIC(&op_gettime, "clockid 10 (removed CLOCK_SGI_CYCLE)", 10, -EINVAL),
	STATIC(&op_gettime, "clockid 12", 12, -EINVAL),
	STATIC(&op_gettime, "clockid 16", 16, -EINVAL),
	STATIC(&op_gettime, "clockid 100", 100, -EINVAL),
	STATIC(&op_gettime, "CPU clock of a nonexistent pid",
	       MAKE_CPUCLOCK(NO_SUCH_PID, CPUCLOCK_SCHED), -EINVAL),
	STATIC(&op_gettime, "CPU clock of a nonexistent tid",
	       MAKE_CPUCLOCK(NO_SUCH_PID, CPUCLOCK_SCHED | CPUCLOCK_PERTHREAD),
	       -EINVAL),
	STATIC(&op_getres, "CLOCK_MONOTONIC", CLOCK_MONOTONIC, 0),
	STATIC(&op_getres, "CLOCK_TAI", CLOCK_TAI, 0),
	STATIC(&op_getres, "clockid 16", 16, -EINVAL),
	STATIC(&op_getres, "CPU clock of a nonexistent pid",
	       MAKE_CPUCLOCK(NO_SUCH_PID, CPUCLOCK_SCHED), -EINVAL),
	STATIC(&op_settime, "CLOCK_MONOTONIC", CLOCK_MONOTONIC, -EINVAL),
	STATIC(&op_settime, "own process CPU clock",
	       MAKE_CPUCLOCK(0, CPUCLOCK_SCHED), -EPERM),
	STATIC(&op_settime, "clockid 16", 16, -EINVAL),
	STATIC(&op_adjtime, "CLOCK_MONOTONIC", CLOCK_MONOTONIC, -EOPNOTSUPP),
	STATIC(&op_adjtime, "clockid 16", 16, -EINVAL),
	STATIC(&op_timer, "CLOCK_MONOTONIC", CLOCK_MONOTONIC, 0),
	STATIC(&op_timer, "CLOCK_PROCESS_CPUTIME_ID", CLOCK_PROCESS_CPUTIME_ID, 0),
	STATIC(&op_timer, "CLOCK_MONOTONIC_RAW (no timers)",
	       CLOCK_MONOTONIC_RAW, -EOPNOTSUPP),
	STATIC(&op_timer, "clockid 16", 16, -EINVAL),
	STATIC(&op_timer, "CPU clock of a nonexistent pid",
	       MAKE_CPUCLOCK(NO_SUCH_PID, CPUCLOCK_SCHED), -EINVAL),
	STATIC(&op_sleep, "CLOCK_MONOTONIC", CLOCK_MONOTONIC, 0),
	STATIC(&op_sleep, "CLOCK_MONOTONIC_RAW (no nsleep)",
	       CLOCK_MONOTONIC_RAW, -EOPNOTSUPP),
	STATIC(&op_sleep, "CLOCK_THREAD_CPUTIME_ID (no nsleep)",
	       CLOCK_THREAD_CPUTIME_ID, -EOPNOTSUPP),
	STATIC(&op_sleep, "clockid 16", 16, -EINVAL),
};

#define ROW(op, name, fd, arg, want) \
	{ op, name, fd, 0, arg, 0, want }
#define ADJ(name, fd, modes, arg, want) \
	{ &op_adjtime, name, fd, 0, arg, modes, want }

/* Not a clock: timer_create/nanosleep get EOPNOTSUPP on mainline. */
#define NOT_A_CLOCK DIFF(-EOPNOTSUPP, -EINVAL)

/* A registered clock, through descriptors of every kind. */
static const struct row live_rows[] = {
	ROW(&op_gettime, "fd O_RDWR", FD_RW, A_OK, SAME(0)),
	ROW(&op_gettime, "fd O_RDONLY", FD_RO, A_OK, SAME(0)),
	ROW(&op_gettime, "fd O_WRONLY", FD_WO, A_OK, SAME(0)),
	ROW(&op_gettime, "fd never opened", FD_BAD, A_OK, SAME(-EINVAL)),
	ROW(&op_gettime, "closed fd", FD_CLOSED, A_OK, SAME(-EINVAL)),
	ROW(&op_gettime, "pipe fd", FD_PIPE, A_OK, SAME(-EINVAL)),
	ROW(&op_gettime, "/dev/null fd", FD_NULL, A_OK, SAME(-EINVAL)),
	ROW(&op_gettime, "socket fd", FD_SOCKET, A_OK, SAME(-EINVAL)),
	ROW(&op_gettime, "regular file fd", FD_FILE, A_OK, SAME(-EINVAL)),
	ROW(&op_gettime, "O_PATH fd of the clock", FD_OPATH, A_OK,
	    SAME(-EINVAL)),
	ROW(&op_gettime, "fd clockid with the per-thread bit", FD_PERTHREAD,
	    A_OK, SAME(-EINVAL)),
	ROW(&op_gettime, "bad pointer", FD_RW, A_BADPTR, SAME(-EFAULT)),
	ROW(&op_gettime, "bad pointer, fd never opened (fd checked first)",
	    FD_BAD, A_BADPTR, SAME(-EINVAL)),

	ROW(&op_getres, "fd O_RDWR", FD_RW, A_OK, SAME(0)),
	ROW(&op_getres, "fd O_RDONLY", FD_RO, A_OK, SAME(0)),
	ROW(&op_getres, "NULL res", FD_RW, A_NULL, SAME(0)),
	ROW(&op_getres, "fd never opened", FD_BAD, A_OK, SAME(-EINVAL)),
	ROW(&op_getres, "closed fd", FD_CLOSED, A_OK, SAME(-EINVAL)),
	ROW(&op_getres, "pipe fd", FD_PIPE, A_OK, SAME(-EINVAL)),
	ROW(&op_getres, "/dev/null fd", FD_NULL, A_OK, SAME(-EINVAL)),
	ROW(&op_getres, "socket fd", FD_SOCKET, A_OK, SAME(-EINVAL)),
	ROW(&op_getres, "bad pointer", FD_RW, A_BADPTR, SAME(-EFAULT)),

	ROW(&op_settime, "fd O_RDWR", FD_RW, A_OK, SAME(0)),
	ROW(&op_settime, "fd O_WRONLY", FD_WO, A_OK, SAME(0)),
	ROW(&op_settime, "fd O_RDONLY", FD_RO, A_OK, SAME(-EACCES)),
	ROW(&op_settime, "fd never opened", FD_BAD, A_OK, SAME(-EINVAL)),
	ROW(&op_settime, "closed fd", FD_CLOSED, A_OK, SAME(-EINVAL)),
	ROW(&op_settime, "pipe fd", FD_PIPE, A_OK, SAME(-EINVAL)),
	ROW(&op_settime, "/dev/null fd", FD_NULL, A_OK, SAME(-EINVAL)),
	ROW(&op_settime, "socket fd", FD_SOCKET, A_OK, SAME(-EINVAL)),
	ROW(&op_settime, "tv_nsec 1000000000", FD_RW, A_NSEC_BIG,
	    SAME(-EINVAL)),
	ROW(&op_settime, "tv_nsec -1", FD_RW, A_NSEC_NEG, SAME(-EINVAL)),
	ROW(&op_settime, "tv_sec -1", FD_RW, A_SEC_NEG, SAME(-EINVAL)),
	ROW(&op_settime, "tv_nsec 1000000000, fd never opened", FD_BAD,
	    A_NSEC_BIG, SAME(-EINVAL)),
	ROW(&op_settime, "tv_nsec 1000000000, fd O_RDONLY (timespec checked first)",
	    FD_RO, A_NSEC_BIG, SAME(-EINVAL)),
	ROW(&op_settime, "bad pointer", FD_RW, A_BADPTR, SAME(-EFAULT)),
	ROW(&op_settime, "bad pointer, fd O_RDONLY", FD_RO, A_BADPTR,
	    SAME(-EFAULT)),
	ROW(&op_settime, "bad pointer, fd never opened (copied first)",
	    FD_BAD, A_BADPTR, SAME(-EFAULT)),

	ADJ("modes 0, fd O_RDWR", FD_RW, 0, A_OK, SAME(0)),
	ADJ("modes 0, fd O_RDONLY", FD_RO, 0, A_OK, SAME(0)),
	ADJ("ADJ_SETOFFSET 0, fd O_RDWR", FD_RW, ADJ_SETOFFSET | ADJ_NANO,
	    A_OK, SAME(0)),
	ADJ("ADJ_SETOFFSET, fd O_RDONLY", FD_RO, ADJ_SETOFFSET | ADJ_NANO,
	    A_OK, SAME(-EACCES)),
	ADJ("ADJ_SETOFFSET tv_usec 1000000", FD_RW, ADJ_SETOFFSET,
	    A_USEC_BIG, SAME(-EINVAL)),
	ADJ("ADJ_FREQUENCY 0, fd O_RDWR", FD_RW, ADJ_FREQUENCY, A_OK,
	    SAME(0)),
	ADJ("ADJ_FREQUENCY, fd O_RDONLY", FD_RO, ADJ_FREQUENCY, A_OK,
	    SAME(-EACCES)),
	ADJ("ADJ_FREQUENCY at max_adj", FD_RW, ADJ_FREQUENCY, A_FREQ_MAX,
	    SAME(0)),
	ADJ("ADJ_FREQUENCY above max_adj", FD_RW, ADJ_FREQUENCY,
	    A_FREQ_OVER, SAME(-ERANGE)),
	ADJ("ADJ_FREQUENCY below -max_adj", FD_RW, ADJ_FREQUENCY,
	    A_FREQ_UNDER, SAME(-ERANGE)),
	ADJ("ADJ_FREQUENCY above max_adj, fd O_RDONLY (access checked first)",
	    FD_RO, ADJ_FREQUENCY, A_FREQ_OVER, SAME(-EACCES)),
	ADJ("modes 0, fd never opened", FD_BAD, 0, A_OK, SAME(-EINVAL)),
	ADJ("ADJ_SETOFFSET, fd never opened", FD_BAD,
	    ADJ_SETOFFSET | ADJ_NANO, A_OK, SAME(-EINVAL)),
	ADJ("modes 0, closed fd", FD_CLOSED, 0, A_OK, SAME(-EINVAL)),
	ADJ("modes 0, pipe fd", FD_PIPE, 0, A_OK, SAME(-EINVAL)),
	ADJ("modes 0, /dev/null fd", FD_NULL, 0, A_OK, SAME(-EINVAL)),
	ADJ("modes 0, socket fd", FD_SOCKET, 0, A_OK, SAME(-EINVAL)),
	ADJ("bad pointer", FD_RW, 0, A_BADPTR, SAME(-EFAULT)),
	ADJ("bad pointer, fd never opened (copied first)", FD_BAD, 0,
	    A_BADPTR, SAME(-EFAULT)),

	ROW(&op_timer, "fd O_RDWR", FD_RW, A_OK, DIFF(-EOPNOTSUPP, 0)),
	ROW(&op_timer, "fd never opened", FD_BAD, A_OK, NOT_A_CLOCK),
	ROW(&op_timer, "closed fd", FD_CLOSED, A_OK, NOT_A_CLOCK),
	ROW(&op_timer, "pipe fd", FD_PIPE, A_OK, NOT_A_CLOCK),
	ROW(&op_timer, "/dev/null fd", FD_NULL, A_OK, NOT_A_CLOCK),
	ROW(&op_timer, "socket fd", FD_SOCKET, A_OK, NOT_A_CLOCK),
	ROW(&op_timer, "bad timer id pointer", FD_RW, A_BADID,
	    DIFF(-EOPNOTSUPP, -EFAULT)),
	ROW(&op_timer, "bad sigevent pointer, fd never opened (copied first)",
	    FD_BAD, A_BADPTR, SAME(-EFAULT)),

	ROW(&op_sleep, "fd O_RDWR, absolute time in the past", FD_RW, A_OK,
	    DIFF(-EOPNOTSUPP, 0)),
	ROW(&op_sleep, "fd never opened", FD_BAD, A_OK, NOT_A_CLOCK),
	ROW(&op_sleep, "closed fd", FD_CLOSED, A_OK, NOT_A_CLOCK),
	ROW(&op_sleep, "pipe fd", FD_PIPE, A_OK, NOT_A_CLOCK),
	ROW(&op_sleep, "/dev/null fd", FD_NULL, A_OK, NOT_A_CLOCK),
	ROW(&op_sleep, "socket fd", FD_SOCKET, A_OK, NOT_A_CLOCK),
	ROW(&op_sleep, "tv_nsec 1000000000", FD_RW, A_NSEC_BIG,
	    DIFF(-EOPNOTSUPP, -EINVAL)),
	ROW(&op_sleep, "bad pointer", FD_RW, A_BADPTR,
	    DIFF(-EOPNOTSUPP, -EFAULT)),

	ROW(&op_ioctl, "PTP_CLOCK_GETCAPS", FD_RW, A_OK, SAME(0)),
	ROW(&op_ioctl, "unknown command", FD_RW, A_UNKNOWN, SAME(-ENOTTY)),
	ROW(&op_read, "buffer shorter than one event", FD_RW, A_SHORT,
	    SAME(-EINVAL)),
	ROW(&op_poll, "no event pending", FD_RW, A_OK, SAME(0)),
};

/* The same descriptors after the clock was unregistered. */
static const struct row removed_rows[] = {
	ROW(&op_gettime, "removed clock", FD_RW, A_OK, SAME(-ENODEV)),
	ROW(&op_gettime, "removed clock, fd O_RDONLY", FD_RO, A_OK,
	    SAME(-ENODEV)),
	ROW(&op_gettime, "removed clock, bad pointer", FD_RW, A_BADPTR,
	    SAME(-ENODEV)),
	ROW(&op_getres, "removed clock", FD_RW, A_OK, SAME(-ENODEV)),
	ROW(&op_settime, "removed clock", FD_RW, A_OK, SAME(-ENODEV)),
	ROW(&op_settime, "removed clock, fd O_RDONLY (lookup before access)",
	    FD_RO, A_OK, SAME(-ENODEV)),
	ROW(&op_settime, "removed clock, tv_nsec 1000000000 (timespec checked first)",
	    FD_RW, A_NSEC_BIG, SAME(-EINVAL)),
	ROW(&op_settime, "removed clock, bad pointer", FD_RW, A_BADPTR,
	    SAME(-EFAULT)),
	ADJ("modes 0, removed clock", FD_RW, 0, A_OK, SAME(-ENODEV)),
	ADJ("ADJ_SETOFFSET, removed clock", FD_RW, ADJ_SETOFFSET | ADJ_NANO,
	    A_OK, SAME(-ENODEV)),
	ADJ("ADJ_FREQUENCY, removed clock", FD_RW, ADJ_FREQUENCY, A_OK,
	    SAME(-ENODEV)),
	ADJ("ADJ_FREQUENCY, removed clock, fd O_RDONLY", FD_RO,
	    ADJ_FREQUENCY, A_OK, SAME(-ENODEV)),
	ADJ("removed clock, bad pointer", FD_RW, 0, A_BADPTR, SAME(-EFAULT)),
	ROW(&op_timer, "removed clock", FD_RW, A_OK,
	    DIFF(-EOPNOTSUPP, -ENODEV)),
	ROW(&op_sleep, "removed clock", FD_RW, A_OK,
	    DIFF(-EOPNOTSUPP, -ENODEV)),
	ROW(&op_read, "removed clock", FD_RW, A_OK, SAME(-ENODEV)),
	ROW(&op_ioctl, "PTP_CLOCK_GETCAPS, removed clock", FD_RW, A_OK,
	    SAME(-ENODEV)),
	ROW(&op_poll, "removed clock", FD_RW, A_OK,
	    DIFF(POLLERR, POLLERR | POLLHUP)),
	ROW(&op_close, "removed clock, fd O_RDWR", FD_RW, A_OK, SAME(0)),
	ROW(&op_close, "removed clock, fd O_RDONLY", FD_RO, A_OK, SAME(0)),
	ROW(&op_close, "removed clock, fd O_WRONLY", FD_WO, A_OK, SAME(0)),
};

/* The descriptor and clockid a row uses. */
static clockid_t row_clockid(struct ctx *ctx, const struct row *row, int *fd)
{
	switch (row->fd) {
	case FD_STATIC:
		*fd = -1;
		return row->clk;
	case FD_CLOSED:
		*fd = dup(ctx->fd[FD_RW]);
		close(*fd);
		return FD_TO_CLOCKID(*fd);
	case FD_PERTHREAD:
		*fd = ctx->fd[FD_RW];
		return FD_TO_CLOCKID(*fd) | CPUCLOCK_PERTHREAD;
	default:
		*fd = ctx->fd[row->fd];
		return FD_TO_CLOCKID(*fd);
	}
}

static void on_alarm(int sig)
{
}

/* Run one row; return true when it gave what @ctx's kernel should. */
static bool run_row(struct ctx *ctx, const struct row *row)
{
	long want = row->want[ctx->kernel], got;
	char gs[64], ws[64];
	clockid_t clk;
	int fd;

	clk = row_clockid(ctx, row, &fd);
	alarm(ROW_TIMEOUT_S);
	got = row->op->call(ctx, row, fd, clk);
	alarm(0);
	if (got == want) {
		printf("ok - errors: %s: %s: %s\n", ctx->label, row->op->name,
		       row->name);
		return true;
	}
	row->op->show(gs, sizeof(gs), got);
	row->op->show(ws, sizeof(ws), want);
	printf("not ok - errors: %s: %s: %s (got %s, want %s)\n", ctx->label,
	       row->op->name, row->name, gs, ws);
	return false;
}

static int run_rows(struct ctx *ctx, const struct row *rows, size_t n)
{
	int failed = 0;
	size_t i;

	for (i = 0; i < n; i++)
		failed += !run_row(ctx, &rows[i]);
	fflush(stdout);
	return failed;
}

static void skip_rows(struct ctx *ctx, const struct row *rows, size_t n,
		      const char *why)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf("ok - errors: %s: %s: %s # SKIP %s\n", ctx->label,
		       rows[i].op->name, rows[i].name, why);
}

/* A descriptor number above 999 that is not open. */
static int unused_fd(void)
{
	int fd = 1000;

	while (fcntl(fd, F_GETFD) != -1)
		fd++;
	return fd;
}

/**
 * open_fds() - open the clock every way and the descriptors that are not clocks
 * @ctx:	receives the descriptors and the clock's max_adj
 *
 * Return: 0, or -1 after printing what failed.
 */
static int open_fds(struct ctx *ctx)
{
	static const struct { enum fd_kind kind; int flags; } clock_opens[] = {
		{ FD_RW, O_RDWR }, { FD_RO, O_RDONLY }, { FD_WO, O_WRONLY },
		{ FD_OPATH, O_PATH },
	};
	struct ptp_clock_caps caps;
	char file[] = "/tmp/fdclock-errors.XXXXXX";
	int p[2];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(clock_opens); i++) {
		ctx->fd[clock_opens[i].kind] = open(ctx->path,
						    clock_opens[i].flags);
		if (ctx->fd[clock_opens[i].kind] < 0)
			goto out_fail;
	}
	if (ioctl(ctx->fd[FD_RW], PTP_CLOCK_GETCAPS, &caps))
		goto out_fail;
	ctx->max_adj = caps.max_adj;
	if (pipe(p))
		goto out_fail;
	ctx->fd[FD_PIPE] = p[0];
	ctx->fd[FD_NULL] = open("/dev/null", O_RDWR);
	ctx->fd[FD_SOCKET] = socket(AF_UNIX, SOCK_DGRAM, 0);
	ctx->fd[FD_FILE] = mkstemp(file);
	if (ctx->fd[FD_NULL] < 0 || ctx->fd[FD_SOCKET] < 0 ||
	    ctx->fd[FD_FILE] < 0)
		goto out_fail;
	unlink(file);
	ctx->fd[FD_BAD] = unused_fd();
	return 0;

out_fail:
	printf("not ok - errors: %s: open %s and the other descriptors (%s)\n",
	       ctx->label, ctx->path, strerror(errno));
	return -1;
}

/* Run REMOVE_CMD; true when it exited with status 0. */
static bool run_remove(struct ctx *ctx, char **cmd)
{
	int status = -1;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execvp(cmd[0], cmd);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		printf("ok - errors: %s: remove command\n", ctx->label);
		return true;
	}
	printf("not ok - errors: %s: remove command (%s failed)\n",
	       ctx->label, cmd[0]);
	return false;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fdclock-errors [--kernel mainline|patched|debug] [--name LABEL]\n"
		"                      DEVICE [-- REMOVE_CMD [ARG...]]\n"
		"Checks the errors of clock syscalls on dynamic clocks made from DEVICE\n"
		"(a /dev/ptpN) against KIND's expectations (default mainline).  With\n"
		"REMOVE_CMD, which must unregister DEVICE's clock, also checks what the\n"
		"descriptors left open get afterwards.\n");
}

static int parse_kernel(const char *s, enum kernel *k)
{
	if (!strcmp(s, "mainline"))
		*k = K_MAINLINE;
	else if (!strcmp(s, "patched") || !strcmp(s, "debug"))
		*k = K_PATCHED;
	else
		return -1;
	return 0;
}

/**
 * parse_args() - fill @ctx and @remove_cmd from the command line
 *
 * Return: 0, 1 after --help, -1 on bad usage.
 */
static int parse_args(int argc, char **argv, struct ctx *ctx,
		      char ***remove_cmd)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "name", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	/* '+': stop at DEVICE, so that "--" stays in front of REMOVE_CMD. */
	while ((c = getopt_long(argc, argv, "+k:n:h", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			if (parse_kernel(optarg, &ctx->kernel))
				return -1;
			break;
		case 'n':
			ctx->label = optarg;
			break;
		case 'h':
			return 1;
		default:
			return -1;
		}
	}
	if (optind >= argc)
		return -1;
	ctx->path = argv[optind++];
	if (optind < argc) {
		if (strcmp(argv[optind], "--") || optind + 1 >= argc)
			return -1;
		*remove_cmd = &argv[optind + 1];
	}
	if (!ctx->label)
		ctx->label = strrchr(ctx->path, '/') ?
			     strrchr(ctx->path, '/') + 1 : ctx->path;
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct ctx ctx = { .kernel = K_MAINLINE };
	char **remove_cmd = NULL;
	int ret, failed;

	ret = parse_args(argc, argv, &ctx, &remove_cmd);
	if (ret) {
		usage(ret > 0 ? stdout : stderr);
		return ret > 0 ? 0 : 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGALRM, &sa, NULL);	/* no SA_RESTART: EINTR on timeout */

	if (open_fds(&ctx))
		return 1;
	failed = run_rows(&ctx, static_rows, ARRAY_SIZE(static_rows));
	failed += run_rows(&ctx, live_rows, ARRAY_SIZE(live_rows));
	if (!remove_cmd)
		skip_rows(&ctx, removed_rows, ARRAY_SIZE(removed_rows),
			  "no remove command");
	else if (run_remove(&ctx, remove_cmd))
		failed += run_rows(&ctx, removed_rows, ARRAY_SIZE(removed_rows));
	else
		failed++;
	return failed ? 1 : 0;
}
