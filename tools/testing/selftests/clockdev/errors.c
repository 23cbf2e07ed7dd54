// SPDX-License-Identifier: GPL-2.0
/*
 * The error table of dynamic (fd) clockids: every clock system call on
 * clockids made from good and bad descriptors, with good and bad
 * arguments, on a live clock and on one removed under its open
 * descriptors (Documentation/userspace-api/clockdev.rst, "Errors" and
 * "After removal").  Each row of the table is a test of its own, run on
 * every clock of the fixture's variants.
 *
 * The expectations are Linux 6.12's except where the clockdev layer
 * changes the ABI on purpose.  Which column applies is decided by what the
 * kernel offers, not by its name: timer_create() on the live clock either
 * works (the kernel has timers on dynamic clocks, and the ABI document's
 * column applies) or fails with EOPNOTSUPP (Linux 6.12's column):
 *  - timer_create() and clock_nanosleep(): Linux 6.12 gives EOPNOTSUPP for
 *    every fd clockid; clockdev gives EINVAL for a fd that is not a clock,
 *    ENODEV for a removed clock, and serves a live one.
 *  - poll() on a removed clock: EPOLLERR on Linux 6.12, EPOLLERR | EPOLLHUP
 *    as the ABI document says for the kernel with timers on dynamic clocks.
 * RTC clocks exist only with clockdev; their column differs from a PHC's
 * where the PHC's driver has more to offer: clock_adjtime() with modes
 * (EOPNOTSUPP) and the PTP ioctls (ENOTTY).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>
#include <linux/ptp_clock.h>

#include "../kselftest_harness.h"
#include "clockdev_util.h"

#define CPUCLOCK_PERTHREAD	4
#define CPUCLOCK_SCHED		2
/* The kernel's make_process_cpuclock(): ((~pid) << 3) | clock. */
#define MAKE_CPUCLOCK(pid, clock) \
	((clockid_t)((~(unsigned int)(pid)) << 3 | (clock)))
/* Above PID_MAX_LIMIT (4M): no task can have it. */
#define NO_SUCH_PID		0x7ffffff
#define BAD_PTR			((void *)1)
/* A row that could block (a sleep, a read) is interrupted after this. */
#define ROW_TIMEOUT_S		5

/* The static clockids of the table, named for the tests' names. */
#define OWN_PROCESS_CPUCLOCK	MAKE_CPUCLOCK(0, CPUCLOCK_SCHED)
#define NO_SUCH_PID_CPUCLOCK	MAKE_CPUCLOCK(NO_SUCH_PID, CPUCLOCK_SCHED)
#define NO_SUCH_TID_CPUCLOCK \
	MAKE_CPUCLOCK(NO_SUCH_PID, CPUCLOCK_SCHED | CPUCLOCK_PERTHREAD)
#define CLOCKID_10		10	/* the removed CLOCK_SGI_CYCLE */
#define CLOCKID_12		12
#define CLOCKID_16		16	/* MAX_CLOCKS */
#define CLOCKID_100		100

/**
 * enum column - which expectation of a row applies
 * @W_NOTIMERS: a kernel without timers on dynamic clocks (Linux 6.12)
 * @W_TIMERS:   a kernel with them (clockdev), on a PHC
 * @W_RTC:      clockdev on an RTC clock
 */
enum column { W_NOTIMERS, W_TIMERS, W_RTC, W_NR };

static const char *const column_names[W_NR] = {
	[W_NOTIMERS]	= "no timers on dynamic clocks, as Linux 6.12",
	[W_TIMERS]	= "timers on dynamic clocks (clockdev)",
	[W_RTC]		= "an RTC clock (clockdev)",
};

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

/**
 * struct ctx - what the rows of a test run on
 * @clock:   the clock under test
 * @fd:      descriptors by enum fd_kind, -1 where none is open
 * @bad_fd:  FD_BAD's number
 * @max_adj: the clock's frequency range in ppb (PTP_CLOCK_GETCAPS; 0 for
 *           an RTC)
 * @col:     the column of expectations that applies
 */
struct ctx {
	struct test_clock clock;
	int fd[FD_NR];
	int bad_fd;
	int max_adj;
	enum column col;
};

FIXTURE(errors) {
	struct ctx ctx;
};

FIXTURE_VARIANT(errors) {
	enum clock_kind kind;
};

/* netdevsim's mock PHC and the e1000e's: Linux 6.12 has them too. */
FIXTURE_VARIANT_ADD(errors, mock_phc) {
	.kind = CK_MOCK_PHC,
};

FIXTURE_VARIANT_ADD(errors, ptp_sim) {
	.kind = CK_PTP_SIM,
};

/* Removed by a PCI remove, back by a PCI rescan. */
FIXTURE_VARIANT_ADD(errors, e1000e) {
	.kind = CK_E1000E,
};

/* rtc-test.1's clock: an RTC with an alarm; removed by unbinding. */
FIXTURE_VARIANT_ADD(errors, rtc) {
	.kind = CK_RTC,
};

struct row;

/**
 * struct op - one system call under test
 * @name: its name, for messages
 * @call: makes the call; returns its result, or -errno
 * @show: formats a result of @call
 */
struct op {
	const char *name;
	long (*call)(struct ctx *ctx, const struct row *row,
		     int fd, clockid_t clk);
	void (*show)(char *buf, size_t len, long res);
};

/**
 * struct row - one check
 * @op:      the call
 * @fd:      where the clockid comes from
 * @clk:     the clockid when @fd is FD_STATIC
 * @arg:     argument variant
 * @modes:   clock_adjtime() modes
 * @removed: the clock is removed under the open descriptors first
 * @want:    the expected result per column: >= 0 a return value, < 0 -errno
 */
struct row {
	const struct op *op;
	enum fd_kind fd;
	clockid_t clk;
	enum arg arg;
	int modes;
	bool removed;
	long want[W_NR];
};

/* The same everywhere. */
#define SAME(res)	{ [0 ... W_NR - 1] = (res) }
/* Without timers on dynamic clocks (@m), and with them, PHC or RTC (@p). */
#define TIMERS(m, p)	{ [W_NOTIMERS] = (m), [W_TIMERS ... W_RTC] = (p) }
/* A PHC on either kernel (@p), and an RTC clock (@r). */
#define PHC(p, r)	{ [W_NOTIMERS ... W_TIMERS] = (p), [W_RTC] = (r) }

static long sys_result(long ret)
{
	return ret < 0 ? -errno : ret;
}

static void show_errno(char *buf, size_t len, long res)
{
	if (res >= 0)
		snprintf(buf, len, "%ld", res);
	else
		snprintf(buf, len, "%s", errname(-res));
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

static void fill_timex(const struct ctx *ctx,
		       const struct row *row, struct timex *tx)
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
	/* Leave the clock (the e1000e stays) at its nominal frequency. */
	if (ret >= 0 && (row->modes & ADJ_FREQUENCY))
		syscall(SYS_clock_adjtime, clk, &zero);
	return ret;
}

static long call_timer_create(struct ctx *ctx,
			      const struct row *row, int fd, clockid_t clk)
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
static const struct op op_timer_create = { "timer_create", call_timer_create, show_errno };
static const struct op op_nanosleep = { "clock_nanosleep", call_nanosleep, show_errno };
static const struct op op_read = { "read", call_read, show_errno };
static const struct op op_ioctl = { "ioctl", call_ioctl, show_errno };
static const struct op op_poll = { "poll", call_poll, show_revents };
static const struct op op_close = { "close", call_close, show_errno };

/* The descriptor and clockid a row uses. */
static clockid_t row_clockid(struct ctx *ctx, const struct row *row, int *fd)
{
	switch (row->fd) {
	case FD_STATIC:
		*fd = -1;
		return row->clk;
	case FD_BAD:
		*fd = ctx->bad_fd;
		return FD_TO_CLOCKID(*fd);
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

/* Run one row on the fixture's clock, expecting its column's result. */
static void run_row(struct __test_metadata *_metadata, struct ctx *ctx,
		    const struct row *row)
{
	long want = row->want[ctx->col], got;
	char gs[64], ws[64];
	clockid_t clk;
	int fd, err;

	if (row->removed) {
		err = test_clock_remove(&ctx->clock);
		ASSERT_EQ(0, err)
			TH_LOG("removing %s %s under its open descriptors: %s",
			       ctx->clock.name, ctx->clock.path,
			       errname(-err));
	}
	clk = row_clockid(ctx, row, &fd);
	alarm(ROW_TIMEOUT_S);
	got = row->op->call(ctx, row, fd, clk);
	alarm(0);
	row->op->show(gs, sizeof(gs), got);
	row->op->show(ws, sizeof(ws), want);
	EXPECT_EQ(want, got)
		TH_LOG("%s on %s %s: got %s, want %s (column: %s)",
		       row->op->name, ctx->clock.name, ctx->clock.path, gs,
		       ws, column_names[ctx->col]);
}

/* A descriptor number above 999 that is not open. */
static int unused_fd(void)
{
	int fd = 1000;

	while (fcntl(fd, F_GETFD) != -1)
		fd++;
	return fd;
}

static void close_fds(struct ctx *ctx)
{
	int i;

	for (i = 0; i < FD_NR; i++) {
		if (ctx->fd[i] >= 0)
			close(ctx->fd[i]);
		ctx->fd[i] = -1;
	}
}

/* Open the clock every way, and the descriptors that are not clocks. */
static int open_fds(struct ctx *ctx, char *why, size_t len)
{
	static const struct { enum fd_kind kind; int flags; } opens[] = {
		{ FD_RW, O_RDWR }, { FD_RO, O_RDONLY }, { FD_WO, O_WRONLY },
		{ FD_OPATH, O_PATH },
	};
	char file[] = "/tmp/clockdev-errors.XXXXXX";
	int p[2], fd, err;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(opens); i++) {
		fd = test_clock_open(&ctx->clock, opens[i].flags);
		if (fd < 0) {
			snprintf(why, len, "open %s (flags %#x): %s",
				 ctx->clock.path, opens[i].flags, errname(-fd));
			return fd;
		}
		ctx->fd[opens[i].kind] = fd;
	}
	if (pipe2(p, O_CLOEXEC))
		goto out_errno;
	ctx->fd[FD_PIPE] = p[0];
	close(p[1]);
	ctx->fd[FD_NULL] = open("/dev/null", O_RDWR | O_CLOEXEC);
	ctx->fd[FD_SOCKET] = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ctx->fd[FD_FILE] = mkostemp(file, O_CLOEXEC);
	if (ctx->fd[FD_NULL] < 0 || ctx->fd[FD_SOCKET] < 0 ||
	    ctx->fd[FD_FILE] < 0)
		goto out_errno;
	unlink(file);
	ctx->bad_fd = unused_fd();
	return 0;

out_errno:
	err = -errno;
	snprintf(why, len, "a pipe, /dev/null, a socket, a file: %s",
		 errname(-err));
	return err;
}

/*
 * The clock's maximum frequency offset, and the column that applies: a
 * probe of timer_create() on the live clock tells whether the kernel has
 * timers on dynamic clocks.
 */
static int pick_column(struct ctx *ctx, char *why, size_t len)
{
	bool rtc = ctx->clock.kind == CK_RTC ||
		   ctx->clock.kind == CK_RTC_NOALARM;
	struct ptp_clock_caps caps;
	int err;

	if (!ioctl(ctx->fd[FD_RW], PTP_CLOCK_GETCAPS, &caps)) {
		ctx->max_adj = caps.max_adj;
	} else if (!rtc) {
		err = -errno;
		snprintf(why, len, "PTP_CLOCK_GETCAPS on %s: %s",
			 ctx->clock.path, errname(-err));
		return err;
	}
	err = probe_timer_create(ctx->clock.clk);
	if (!err) {
		ctx->col = rtc ? W_RTC : W_TIMERS;
		return 0;
	}
	if (err == -EOPNOTSUPP && !rtc) {
		ctx->col = W_NOTIMERS;
		return 0;
	}
	snprintf(why, len, "timer_create on %s %s: %s: %s", ctx->clock.name,
		 ctx->clock.path, errname(-err),
		 rtc ? "an RTC clock without timers has no column" :
		       "neither served nor refused with EOPNOTSUPP");
	return err;
}

static void on_alarm(int sig)
{
}

FIXTURE_SETUP(errors)
{
	/* No SA_RESTART: a row that blocks ends with EINTR. */
	struct sigaction sa = { .sa_handler = on_alarm };
	struct ctx *ctx = &self->ctx;
	char why[256];
	int err;

	memset(ctx->fd, -1, sizeof(ctx->fd));
	err = test_clock_make(&ctx->clock, variant->kind, why, sizeof(why));
	if (err)
		SKIP(return, "%s", why);
	err = open_fds(ctx, why, sizeof(why));
	if (!err)
		err = pick_column(ctx, why, sizeof(why));
	if (err) {
		/* The teardown does not run after a failed setup. */
		close_fds(ctx);
		test_clock_destroy(&ctx->clock);
	}
	ASSERT_EQ(0, err) TH_LOG("%s", why);
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
}

FIXTURE_TEARDOWN(errors)
{
	close_fds(&self->ctx);
	test_clock_destroy(&self->ctx.clock);
}

/*
 * One test per row: ROW(op, case, ...) is the test op_case, running
 * op_op (clock_gettime for gettime, ...).  The expectation comes last.
 */
#define __ROW(_test, _op, _fd, _clk, _arg, _modes, _removed, ...)	\
	static const struct row row_##_test;				\
	TEST_F(errors, _test)						\
	{								\
		run_row(_metadata, &self->ctx, &row_##_test);		\
	}								\
	static const struct row row_##_test = {				\
		.op = &op_##_op, .fd = _fd, .clk = _clk, .arg = _arg,	\
		.modes = _modes, .removed = _removed, .want = __VA_ARGS__, \
	}

/* A static clockid (named by @clk) with a dynamic clock open. */
#define STATIC(op, clk, res) \
	__ROW(op##_##clk, op, FD_STATIC, clk, A_OK, 0, false, SAME(res))
/* A live clock, or a descriptor that is not one. */
#define ROW(op, name, fd, arg, ...) \
	__ROW(op##_##name, op, fd, 0, arg, 0, false, __VA_ARGS__)
#define ADJ(name, fd, modes, arg, ...) \
	__ROW(adjtime_##name, adjtime, fd, 0, arg, modes, false, __VA_ARGS__)
/* The clock removed under its open descriptors. */
#define GONE(op, name, fd, arg, ...) \
	__ROW(op##_removed_##name, op, fd, 0, arg, 0, true, __VA_ARGS__)
#define GONE_ADJ(name, fd, modes, arg, ...) \
	__ROW(adjtime_removed_##name, adjtime, fd, 0, arg, modes, true, \
	      __VA_ARGS__)

#define SETOFFSET	(ADJ_SETOFFSET | ADJ_NANO)
/* Not a clock: timer_create/nanosleep get EOPNOTSUPP without fd timers. */
#define NOT_A_CLOCK	TIMERS(-EOPNOTSUPP, -EINVAL)

/* Static clockids: the fd layer must not disturb them. */
STATIC(gettime, CLOCK_REALTIME, 0);
STATIC(gettime, CLOCK_MONOTONIC, 0);
STATIC(gettime, CLOCK_PROCESS_CPUTIME_ID, 0);
STATIC(gettime, CLOCK_THREAD_CPUTIME_ID, 0);
STATIC(gettime, CLOCK_MONOTONIC_RAW, 0);
STATIC(gettime, CLOCK_REALTIME_COARSE, 0);
STATIC(gettime, CLOCK_MONOTONIC_COARSE, 0);
STATIC(gettime, CLOCK_BOOTTIME, 0);
STATIC(gettime, CLOCK_TAI, 0);
STATIC(gettime, OWN_PROCESS_CPUCLOCK, 0);
STATIC(gettime, CLOCKID_10, -EINVAL);
STATIC(gettime, CLOCKID_12, -EINVAL);
STATIC(gettime, CLOCKID_16, -EINVAL);
STATIC(gettime, CLOCKID_100, -EINVAL);
STATIC(gettime, NO_SUCH_PID_CPUCLOCK, -EINVAL);
STATIC(gettime, NO_SUCH_TID_CPUCLOCK, -EINVAL);
STATIC(getres, CLOCK_MONOTONIC, 0);
STATIC(getres, CLOCK_TAI, 0);
STATIC(getres, CLOCKID_16, -EINVAL);
STATIC(getres, NO_SUCH_PID_CPUCLOCK, -EINVAL);
STATIC(settime, CLOCK_MONOTONIC, -EINVAL);
STATIC(settime, OWN_PROCESS_CPUCLOCK, -EPERM);
STATIC(settime, CLOCKID_16, -EINVAL);
STATIC(adjtime, CLOCK_MONOTONIC, -EOPNOTSUPP);
STATIC(adjtime, CLOCKID_16, -EINVAL);
STATIC(timer_create, CLOCK_MONOTONIC, 0);
STATIC(timer_create, CLOCK_PROCESS_CPUTIME_ID, 0);
STATIC(timer_create, CLOCK_MONOTONIC_RAW, -EOPNOTSUPP);	/* no timers */
STATIC(timer_create, CLOCKID_16, -EINVAL);
STATIC(timer_create, NO_SUCH_PID_CPUCLOCK, -EINVAL);
STATIC(nanosleep, CLOCK_MONOTONIC, 0);
STATIC(nanosleep, CLOCK_MONOTONIC_RAW, -EOPNOTSUPP);	/* no nsleep */
STATIC(nanosleep, CLOCK_THREAD_CPUTIME_ID, -EOPNOTSUPP);
STATIC(nanosleep, CLOCKID_16, -EINVAL);

/* A registered clock, through descriptors of every kind. */
ROW(gettime, rdwr, FD_RW, A_OK, SAME(0));
ROW(gettime, rdonly, FD_RO, A_OK, SAME(0));
ROW(gettime, wronly, FD_WO, A_OK, SAME(0));
ROW(gettime, never_opened, FD_BAD, A_OK, SAME(-EINVAL));
ROW(gettime, closed_fd, FD_CLOSED, A_OK, SAME(-EINVAL));
ROW(gettime, pipe, FD_PIPE, A_OK, SAME(-EINVAL));
ROW(gettime, dev_null, FD_NULL, A_OK, SAME(-EINVAL));
ROW(gettime, socket, FD_SOCKET, A_OK, SAME(-EINVAL));
ROW(gettime, regular_file, FD_FILE, A_OK, SAME(-EINVAL));
ROW(gettime, opath, FD_OPATH, A_OK, SAME(-EINVAL));
ROW(gettime, perthread_bit, FD_PERTHREAD, A_OK, SAME(-EINVAL));
ROW(gettime, bad_pointer, FD_RW, A_BADPTR, SAME(-EFAULT));
/* The fd is looked up before the result is copied out. */
ROW(gettime, bad_pointer_never_opened, FD_BAD, A_BADPTR, SAME(-EINVAL));

ROW(getres, rdwr, FD_RW, A_OK, SAME(0));
ROW(getres, rdonly, FD_RO, A_OK, SAME(0));
ROW(getres, null_res, FD_RW, A_NULL, SAME(0));
ROW(getres, never_opened, FD_BAD, A_OK, SAME(-EINVAL));
ROW(getres, closed_fd, FD_CLOSED, A_OK, SAME(-EINVAL));
ROW(getres, pipe, FD_PIPE, A_OK, SAME(-EINVAL));
ROW(getres, dev_null, FD_NULL, A_OK, SAME(-EINVAL));
ROW(getres, socket, FD_SOCKET, A_OK, SAME(-EINVAL));
ROW(getres, bad_pointer, FD_RW, A_BADPTR, SAME(-EFAULT));

ROW(settime, rdwr, FD_RW, A_OK, SAME(0));
ROW(settime, wronly, FD_WO, A_OK, SAME(0));
ROW(settime, rdonly, FD_RO, A_OK, SAME(-EACCES));
ROW(settime, never_opened, FD_BAD, A_OK, SAME(-EINVAL));
ROW(settime, closed_fd, FD_CLOSED, A_OK, SAME(-EINVAL));
ROW(settime, pipe, FD_PIPE, A_OK, SAME(-EINVAL));
ROW(settime, dev_null, FD_NULL, A_OK, SAME(-EINVAL));
ROW(settime, socket, FD_SOCKET, A_OK, SAME(-EINVAL));
ROW(settime, nsec_1e9, FD_RW, A_NSEC_BIG, SAME(-EINVAL));
ROW(settime, nsec_neg, FD_RW, A_NSEC_NEG, SAME(-EINVAL));
ROW(settime, sec_neg, FD_RW, A_SEC_NEG, SAME(-EINVAL));
/* The timespec is checked first, then the fd, then the access. */
ROW(settime, nsec_1e9_never_opened, FD_BAD, A_NSEC_BIG, SAME(-EINVAL));
ROW(settime, nsec_1e9_rdonly, FD_RO, A_NSEC_BIG, SAME(-EINVAL));
ROW(settime, bad_pointer, FD_RW, A_BADPTR, SAME(-EFAULT));
ROW(settime, bad_pointer_rdonly, FD_RO, A_BADPTR, SAME(-EFAULT));
/* An input is copied in before anything is looked up. */
ROW(settime, bad_pointer_never_opened, FD_BAD, A_BADPTR, SAME(-EFAULT));

/* An RTC clock reads and sets; any mode of clock_adjtime() is refused. */
ADJ(modes0_rdwr, FD_RW, 0, A_OK, SAME(0));
ADJ(modes0_rdonly, FD_RO, 0, A_OK, SAME(0));
ADJ(setoffset_rdwr, FD_RW, SETOFFSET, A_OK, PHC(0, -EOPNOTSUPP));
ADJ(setoffset_rdonly, FD_RO, SETOFFSET, A_OK, SAME(-EACCES));
/* The PTP core checks the offset; nothing checks it for an RTC. */
ADJ(setoffset_usec_1e6, FD_RW, ADJ_SETOFFSET, A_USEC_BIG, PHC(-EINVAL, -EOPNOTSUPP));
ADJ(freq_rdwr, FD_RW, ADJ_FREQUENCY, A_OK, PHC(0, -EOPNOTSUPP));
ADJ(freq_rdonly, FD_RO, ADJ_FREQUENCY, A_OK, SAME(-EACCES));
ADJ(freq_max_adj, FD_RW, ADJ_FREQUENCY, A_FREQ_MAX, PHC(0, -EOPNOTSUPP));
ADJ(freq_above_max_adj, FD_RW, ADJ_FREQUENCY, A_FREQ_OVER, PHC(-ERANGE, -EOPNOTSUPP));
ADJ(freq_below_max_adj, FD_RW, ADJ_FREQUENCY, A_FREQ_UNDER, PHC(-ERANGE, -EOPNOTSUPP));
/* Access is checked before the driver sees the frequency. */
ADJ(freq_above_max_adj_rdonly, FD_RO, ADJ_FREQUENCY, A_FREQ_OVER, SAME(-EACCES));
ADJ(modes0_never_opened, FD_BAD, 0, A_OK, SAME(-EINVAL));
ADJ(setoffset_never_opened, FD_BAD, SETOFFSET, A_OK, SAME(-EINVAL));
ADJ(modes0_closed_fd, FD_CLOSED, 0, A_OK, SAME(-EINVAL));
ADJ(modes0_pipe, FD_PIPE, 0, A_OK, SAME(-EINVAL));
ADJ(modes0_dev_null, FD_NULL, 0, A_OK, SAME(-EINVAL));
ADJ(modes0_socket, FD_SOCKET, 0, A_OK, SAME(-EINVAL));
ADJ(bad_pointer, FD_RW, 0, A_BADPTR, SAME(-EFAULT));
ADJ(bad_pointer_never_opened, FD_BAD, 0, A_BADPTR, SAME(-EFAULT));

/* The row that also chose the column: consistency with the probe. */
ROW(timer_create, rdwr, FD_RW, A_OK, TIMERS(-EOPNOTSUPP, 0));
ROW(timer_create, never_opened, FD_BAD, A_OK, NOT_A_CLOCK);
ROW(timer_create, closed_fd, FD_CLOSED, A_OK, NOT_A_CLOCK);
ROW(timer_create, pipe, FD_PIPE, A_OK, NOT_A_CLOCK);
ROW(timer_create, dev_null, FD_NULL, A_OK, NOT_A_CLOCK);
ROW(timer_create, socket, FD_SOCKET, A_OK, NOT_A_CLOCK);
ROW(timer_create, bad_timer_id, FD_RW, A_BADID, TIMERS(-EOPNOTSUPP, -EFAULT));
/* The sigevent is copied in before the clockid is looked at. */
ROW(timer_create, bad_sigevent_never_opened, FD_BAD, A_BADPTR, SAME(-EFAULT));

ROW(nanosleep, rdwr_past, FD_RW, A_OK, TIMERS(-EOPNOTSUPP, 0));
ROW(nanosleep, never_opened, FD_BAD, A_OK, NOT_A_CLOCK);
ROW(nanosleep, closed_fd, FD_CLOSED, A_OK, NOT_A_CLOCK);
ROW(nanosleep, pipe, FD_PIPE, A_OK, NOT_A_CLOCK);
ROW(nanosleep, dev_null, FD_NULL, A_OK, NOT_A_CLOCK);
ROW(nanosleep, socket, FD_SOCKET, A_OK, NOT_A_CLOCK);
ROW(nanosleep, nsec_1e9, FD_RW, A_NSEC_BIG, TIMERS(-EOPNOTSUPP, -EINVAL));
ROW(nanosleep, bad_pointer, FD_RW, A_BADPTR, TIMERS(-EOPNOTSUPP, -EFAULT));

/* An RTC clock has no ioctls, and nothing to read (no read operation). */
ROW(ioctl, getcaps, FD_RW, A_OK, PHC(0, -ENOTTY));
ROW(ioctl, unknown, FD_RW, A_UNKNOWN, SAME(-ENOTTY));
ROW(read, short_buffer, FD_RW, A_SHORT, SAME(-EINVAL));
ROW(poll, no_event, FD_RW, A_OK, SAME(0));

/* The same descriptors after the clock was unregistered. */
GONE(gettime, rdwr, FD_RW, A_OK, SAME(-ENODEV));
GONE(gettime, rdonly, FD_RO, A_OK, SAME(-ENODEV));
GONE(gettime, bad_pointer, FD_RW, A_BADPTR, SAME(-ENODEV));
GONE(getres, rdwr, FD_RW, A_OK, SAME(-ENODEV));
GONE(settime, rdwr, FD_RW, A_OK, SAME(-ENODEV));
/* The clock is looked up before the access is checked. */
GONE(settime, rdonly, FD_RO, A_OK, SAME(-ENODEV));
GONE(settime, nsec_1e9, FD_RW, A_NSEC_BIG, SAME(-EINVAL));
GONE(settime, bad_pointer, FD_RW, A_BADPTR, SAME(-EFAULT));
GONE_ADJ(modes0, FD_RW, 0, A_OK, SAME(-ENODEV));
GONE_ADJ(setoffset, FD_RW, SETOFFSET, A_OK, SAME(-ENODEV));
GONE_ADJ(freq, FD_RW, ADJ_FREQUENCY, A_OK, SAME(-ENODEV));
GONE_ADJ(freq_rdonly, FD_RO, ADJ_FREQUENCY, A_OK, SAME(-ENODEV));
GONE_ADJ(bad_pointer, FD_RW, 0, A_BADPTR, SAME(-EFAULT));
GONE(timer_create, rdwr, FD_RW, A_OK, TIMERS(-EOPNOTSUPP, -ENODEV));
GONE(nanosleep, rdwr, FD_RW, A_OK, TIMERS(-EOPNOTSUPP, -ENODEV));
GONE(read, rdwr, FD_RW, A_OK, SAME(-ENODEV));
GONE(ioctl, getcaps, FD_RW, A_OK, SAME(-ENODEV));
GONE(poll, rdwr, FD_RW, A_OK, TIMERS(POLLERR, POLLERR | POLLHUP));
GONE(close, rdwr, FD_RW, A_OK, SAME(0));
GONE(close, rdonly, FD_RO, A_OK, SAME(0));
GONE(close, wronly, FD_WO, A_OK, SAME(0));

/*
 * The removal the "removed" rows rely on: it succeeds under the open
 * descriptors, and what it removed comes back (a new ptp_sim or netdevsim
 * instance, the RTC bound again, the e1000e after a PCI rescan) for the
 * tests after it.
 */
TEST_F(errors, remove_and_make_again)
{
	struct test_clock *c = &self->ctx.clock;
	char why[256];
	int err;

	err = test_clock_remove(c);
	ASSERT_EQ(0, err)
		TH_LOG("removing %s %s under its open descriptors: %s",
		       c->name, c->path, errname(-err));
	err = clock_ns(c->clk) < 0 ? errno : 0;
	EXPECT_EQ(ENODEV, err)
		TH_LOG("reading the removed %s: %s", c->name,
		       err ? errname(err) : "it still reads");
	close_fds(&self->ctx);
	test_clock_destroy(c);
	err = test_clock_make(c, variant->kind, why, sizeof(why));
	ASSERT_EQ(0, err)
		TH_LOG("%s again after its removal: %s", c->name, why);
	EXPECT_LE(0, clock_ns(c->clk))
		TH_LOG("reading %s %s: %s", c->name, c->path, errname(errno));
}

TEST_HARNESS_MAIN
