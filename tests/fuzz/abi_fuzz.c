// SPDX-License-Identifier: GPL-2.0
/*
 * abi_fuzz: a seeded fuzzer of the clock and timer system calls that knows
 * the ABI of dynamic clocks (Documentation/userspace-api/clockdev.rst,
 * "Errors", "After removal", "Timers and sleeps", "RTC clocks") and, for
 * the static clockids, Linux 6.12's behaviour.
 *
 * usage: abi_fuzz [--seed N] [--calls N] [--user UID[:GID]]
 *                 [--abi auto|clockdev|mainline] [--max-seconds N]
 *                 [--max-report N] [--trace FROM]
 *                 [--clock PATH]... [--ro-clock PATH]...
 *                 [--victim PATH (--del FILE:VALUE | --remove-cmd CMD)
 *                  [--remove-at N]]...
 *
 *   --seed N        replay run N (the seed is printed first; default:
 *                   random).  Every call draws from the seed and its
 *                   number, so a replay makes the same calls up to the
 *                   first result that another thread or timing changed
 *                   (a racy descriptor, a sleep cut short, a removal).
 *   --calls N       number of calls (default 100000)
 *   --clock PATH    a dynamic clock (/dev/ptpN, /dev/rtcclockN) that stays
 *   --ro-clock PATH the same, never opened for writing (an RTC the system
 *                   keeps its time in)
 *   --victim PATH   a clock removed during the run (at call --remove-at,
 *                   by default drawn from the seed between 10 % and 70 % of
 *                   the run) by writing VALUE to FILE (--del, e.g.
 *                   /sys/bus/ptp_sim/del_device:41) or by running CMD with
 *                   /bin/sh -c (--remove-cmd), from a process that keeps
 *                   the credentials the program was started with
 *   --user UID      fuzz as UID (and GID, default UID) without
 *                   capabilities: the program forks its remover, makes a
 *                   timerfd and a timer on each clock whose timers wake the
 *                   system (CAP_WAKE_ALARM is checked again when such a
 *                   timerfd is armed), then drops to the user and opens
 *                   everything as that user
 *   --abi           which column of the table applies to fd clockids:
 *                   clockdev (timers, sleeps and timerfd on them) or
 *                   mainline (Linux 6.12: EOPNOTSUPP, EINVAL); auto
 *                   probes timer_create() on the first clock
 *   --max-seconds N stop after N s (not ok), default 600
 *   --max-report N  print the first N failures (default 40), count the rest
 *   --trace FROM    print every call from call FROM on
 *
 * Every call (made with syscall(2), so that the raw kernel ABI is what is
 * tested) gets a set of allowed outcomes computed from its arguments and
 * from what the program knows of the state: which descriptor numbers are
 * open and on what, which clocks are live, being removed or removed, which
 * timer ids are its own, its credentials.  Where the state is uncertain (a
 * descriptor another thread keeps closing and replacing, a clock being
 * removed, a task that may have exited), the allowed set is the union
 * over the possible states.  An outcome outside the set prints the seed,
 * the call number, the call with its arguments, the result and what was
 * allowed, and counts as a failure; so does a wrong value where the ABI
 * fixes it: resolutions (1 ns for a PHC, 1 s for an RTC clock),
 * normalized timespecs, whole seconds from an RTC clock, the interval
 * read back, the frequency read back, a relative sleep that ends early,
 * an absolute sleep that ends before a read of its clock reaches the
 * expiry, poll() events of removed clocks (POLLERR | POLLHUP), and a
 * timer signal (SA_SIGINFO, si_timerid) from a timer whose clock was
 * removed ("armed timers are disarmed and never fire afterwards").
 * Where the kernel deliberately keeps a behaviour the ABI document does
 * not describe, it is allowed, noted once ("# note:") and counted in the
 * summary: timer_create() reports a bad id pointer (EFAULT) before the
 * clock lookup; a timerfd read into a buffer with 2 writable bytes
 * returns 2 (Linux >= 6.6).
 *
 * Arguments: clockids from open clock descriptors (read-write, read-only,
 * write-only), from descriptors of removed clocks, from closed and never
 * opened numbers, from descriptors that are not clocks (pipe, /dev/null, a
 * regular file, a socket, an eventfd, a directory, a timerfd, O_PATH), with
 * the CPU-clock per-thread bit, static and out-of-range ids, CPU clocks of
 * this process, its threads, its child, init and of no task, random
 * negative ids; huge, negative and unnormalized timespecs; valid and
 * invalid clock_adjtime() modes, offsets and frequencies; valid and invalid
 * sigevents; timer ids of this process, of its child (which creates timers,
 * also on the clocks, and closes their descriptors), deleted and random
 * ones; pointers that are NULL, unmapped, read-only, straddle the end of a
 * mapping, misaligned or in kernel space.  Another thread keeps closing
 * and replacing a few descriptor numbers (dup2) under the calls; while a
 * clock is being removed, half of the calls go to it.
 *
 * Safety: it never sets CLOCK_REALTIME (no clock_settime() on it, no
 * clock_adjtime() with modes), sets only the dynamic clocks it is given;
 * every signal a timer may send is handled (SIGEV_NONE, or SIGALRM,
 * SIGUSR1, SIGUSR2, 40, 50 or 64 with a handler, without SA_RESTART), and
 * a timer that signals gets no period under 10 ms (one re-armed at each
 * delivery with a period of nanoseconds would starve the process); calls
 * that may block run under a 2 ms periodic interval timer, so they end
 * (EINTR) at once, and a call that makes no progress for 5 s is
 * interrupted and noted (failed after 30 s).  Its memory is bounded:
 * fixed tables, at most 100 descriptors of its own and 48 timers.
 *
 * Output: "# " comment lines (setup, notes, a summary per system call:
 * calls, ok, each errno seen), "FAIL ..." lines, and a last line
 * "ok - ..." or "not ok - ...".  Exit status 0 when nothing unexpected
 * happened, 1 otherwise, 2 for a usage or setup error.
 *
 * Build: gcc -O2 -static -pthread -o abi_fuzz abi_fuzz.c
 * (scripts/initramfs.sh puts it in every guest image as
 * /usr/local/bin/abi_fuzz; tests/ptp/t-41-abi-fuzz.sh runs it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/timex.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#ifndef ADJ_SETOFFSET
#define ADJ_SETOFFSET		0x0100
#endif
#ifndef ADJ_NANO
#define ADJ_NANO		0x2000
#endif
#ifndef TFD_TIMER_CANCEL_ON_SET
#define TFD_TIMER_CANCEL_ON_SET	(1 << 1)
#endif
#ifndef SIGEV_THREAD_ID
#define SIGEV_THREAD_ID		4
#endif

#define NSEC			1000000000L
#define KTIME_MAX		INT64_MAX
#define KTIME_SEC_MAX		(KTIME_MAX / NSEC)
#define TIME_SETTOD_SEC_MAX	(KTIME_SEC_MAX - 30LL * 365 * 24 * 3600)
#define CLOCKFD			3
#define FD_TO_CLOCKID(fd)	((clockid_t)((~(unsigned int)(fd)) << 3 | CLOCKFD))
#define MAKE_CPUCLOCK(pid, which, thread) \
	((clockid_t)((~(unsigned int)(pid)) << 3 | ((thread) ? 4 : 0) | (which)))
#define KERNEL_PTR		((void *)0xffff888000000000UL)
#define PAGE			4096
#define NERR			192
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define PTP_EVENT_SIZE		32	/* struct ptp_extts_event */

/* ------------------------------------------------------------------ */
/* Random numbers: xoshiro256**, seeded by splitmix64.                 */

struct rng { uint64_t s[4]; };

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix(&seed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
	s[2] ^= t; s[3] = rotl(s[3], 45);
	return res;
}

static struct rng R;	/* the main thread's: the call sequence */

static uint64_t rnd64(void) { return rng_next(&R); }
static uint32_t rnd(uint32_t n) { return (uint32_t)(((rnd64() >> 32) * n) >> 32); }
static bool chance(int pct) { return rnd(100) < (uint32_t)pct; }

/* ------------------------------------------------------------------ */
/* Sets of outcomes: bit 0 is success, bit E the errno E.              */

typedef struct { uint64_t b[3]; } eset;

static void eadd(eset *s, int e)
{
	if (e >= 0 && e < NERR)
		s->b[e / 64] |= 1ULL << (e % 64);
}
static bool ehas(const eset *s, int e)
{
	return e >= 0 && e < NERR && (s->b[e / 64] >> (e % 64) & 1);
}
static void edel(eset *s, int e)
{
	if (e >= 0 && e < NERR)
		s->b[e / 64] &= ~(1ULL << (e % 64));
}

static const char *ename(int e)
{
	const char *n;

	if (!e)
		return "ok";
	n = strerrorname_np(e);
	return n ? n : "E?";
}

static void eset_str(char *buf, size_t len, const eset *s)
{
	size_t n = 0;

	buf[0] = 0;
	for (int e = 0; e < NERR && n < len; e++)
		if (ehas(s, e))
			n += snprintf(buf + n, len - n, "%s%s", n ? "|" : "",
				      e ? ename(e) : "success");
	if (!n)
		snprintf(buf, len, "(nothing)");
}

/* ------------------------------------------------------------------ */
/* Operations and their statistics.                                    */

enum op {
	OP_GETTIME, OP_GETRES, OP_SETTIME, OP_ADJTIME, OP_NANOSLEEP,
	OP_TCREATE, OP_TSET, OP_TGET, OP_TOVR, OP_TDEL,
	OP_TFDCREATE, OP_TFDSET, OP_TFDGET, OP_READ, OP_POLL, OP_CLOSE,
	OP_DUP, OP_OPEN, NOPS
};

static const char *const opname[NOPS] = {
	"clock_gettime", "clock_getres", "clock_settime", "clock_adjtime",
	"clock_nanosleep", "timer_create", "timer_settime", "timer_gettime",
	"timer_getoverrun", "timer_delete", "timerfd_create",
	"timerfd_settime", "timerfd_gettime", "read", "poll", "close", "dup",
	"open",
};

static const int opweight[NOPS] = {
	14, 6, 8, 10, 4, 8, 8, 6, 3, 5, 5, 6, 4, 3, 3, 3, 2, 3,
};

struct opstat {
	unsigned long calls, ok, bad;
	unsigned long err[NERR];
};

static struct opstat stats[NOPS];

/* ------------------------------------------------------------------ */
/* Options and environment.                                            */

enum ckind { CK_PTP_SIM, CK_PTP, CK_RTC };
enum cstate { CS_LIVE, CS_REMOVING, CS_REMOVED };

#define MAXCLK	8

struct clock {
	const char *path;
	char name[64];
	enum ckind kind;
	bool ro;		/* --ro-clock */
	bool victim;
	const char *del_file, *del_value, *cmd;
	long remove_at;
	_Atomic int state;	/* enum cstate */
	_Atomic int rm_status;	/* the remover's result, if it failed */
	int snap;		/* state at the start of the current call */
	bool can_r, can_w;	/* may be opened so */
	long long max_adj;	/* ppb; -1: unknown */
	bool freq_known;
	long long freq;		/* the scaled ppm last set */
	bool wakes;		/* timers need CAP_WAKE_ALARM */
	unsigned long steps;	/* steps made (or maybe made) on it */
	int ofd;		/* the oracle's own descriptor (reads only) */
	int ofd_mode;		/* O_RDWR or O_RDONLY */
};

static struct clock clocks[MAXCLK];
static int nclocks;

static struct {
	uint64_t seed;
	long calls;
	long max_seconds;
	long max_report;
	long trace_from;
	int abi;		/* 0 auto, 1 clockdev, 2 mainline */
	bool drop;
	uid_t uid;
	gid_t gid;
} opt = { .calls = 100000, .max_seconds = 600, .max_report = 40,
	  .trace_from = -1 };

static struct {
	bool clockdev;		/* the ABI document's column for fd clockids */
	bool rtc_alarm;		/* CLOCK_*_ALARM have an RTC */
	bool cap_wake, cap_time;
	pid_t pid, racer_tid, child, remover;
	bool child_alive;
	long pid_max;
} env;

static long ncall;
static unsigned long short_timerfd_read;
static unsigned long efault_before_lookup;	/* timer_create() */
static int removing_clk = -1;	/* a victim being removed, or -1 */
static long removed_call[MAXCLK];	/* the call that first saw it removed */
static unsigned long nfail, nvalue_fail;
static _Atomic long progress;
static _Atomic int current_op = -1;
static _Atomic bool stop_threads;
static _Atomic unsigned long kicks;
/* Calls that did not return in 30 s of the racer's own time (racer()). */
static _Atomic unsigned long hung;

/* ------------------------------------------------------------------ */
/* The descriptor table as the fuzzer knows it.                        */

enum fk {
	F_CLOSED, F_CLOCK, F_OPATH, F_PIPE_R, F_PIPE_W, F_NULL, F_FILE,
	F_SOCK, F_EVENTFD, F_DIR, F_TIMERFD, F_STD, F_INFRA, F_RSRC,
	F_RACY, F_ANYSRC,
};

static const char *const fkname[] = {
	"closed", "clock", "O_PATH clock", "pipe (read end)",
	"pipe (write end)", "/dev/null", "regular file", "socket", "eventfd",
	"directory", "timerfd", "std stream", "fuzzer's own", "racer source",
	"racy (another thread closes and replaces it)",
	"dup of a racy descriptor",
};

#define ACC_R	1
#define ACC_W	2

struct fdent {
	uint8_t kind;
	uint8_t acc;
	int8_t clk;
	int16_t tfd;
};

#define NFD		256
#define MAIN_MAX	100
#define INFRA_BASE	150
#define RSRC_BASE	176
#define RACY_BASE	208
#define NRACY		8

static struct fdent fdt[NFD];
static int nmain;		/* main descriptors open, not counting 0-2 */

/* Racer sources: what the racy numbers may hold (besides nothing). */
struct rsrc { int fd; struct fdent e; };
static struct rsrc rsrc[24];
static int nrsrc;

/* Timerfd models: what an open timerfd file is. */
struct tfdm {
	bool used;
	int refs;
	bool shared;		/* reachable through racy numbers too */
	int sid;		/* static clockid, or -1 */
	unsigned clkmask;	/* the clocks it may be on (fd clockid) */
	bool nonblock;
	bool cancel;		/* armed TFD_TIMER_ABSTIME|CANCEL_ON_SET */
	unsigned long steps0;	/* clock steps when it was created */
	bool iv_known;
	struct timespec iv;
};

#define MAXTFD	72
static struct tfdm tfds[MAXTFD];

/* POSIX timers of this process. */
enum ptkind { PT_STATIC, PT_CPU, PT_CLOCK };

struct ptm {
	bool used;
	int id;
	enum ptkind kind;
	int sid;
	unsigned clkmask;
	bool may_vanish;	/* CPU timer whose task may exit: ESRCH */
	bool may_signal;	/* its expiries send a (handled) signal */
	bool iv_known;
	struct timespec iv;
};

#define MAXTIMERS 48
static struct ptm timers[MAXTIMERS];
static int ntimers;
static int deleted_ids[16], ndeleted;
static int foreign_ids[32], nforeign;

/* ------------------------------------------------------------------ */
/* Pointers.                                                           */

enum pc { PC_GOOD, PC_NULL, PC_NONE, PC_RO, PC_STRADDLE, PC_KERNEL,
	  PC_MISALIGN };

static const char *const pcname[] = {
	"good", "NULL", "unmapped", "read-only", "straddling the end of a mapping",
	"kernel address", "misaligned",
};

static char *rw_page, *ro_page, *none_page;

/* Offsets of the read-only page's contents. */
#define RO_TS	0	/* struct timespec {1000, 0} */
#define RO_ITS	64	/* struct itimerspec, all zero */
#define RO_TX	128	/* struct timex, modes 0 */
#define RO_SEV	1024	/* struct ksigevent, SIGEV_NONE */

struct ksigevent {
	union { int sival_int; void *sival_ptr; } sigev_value;
	int sigev_signo;
	int sigev_notify;
	union { int _pad[12]; int _tid; } un;
};

static bool pc_bad_in(int pc)
{
	return pc == PC_NULL || pc == PC_NONE || pc == PC_STRADDLE ||
	       pc == PC_KERNEL;
}

static bool pc_bad_out(int pc)
{
	return pc != PC_GOOD && pc != PC_MISALIGN;
}

/* A pointer of class @pc for argument slot @slot (0-7), RO page at @ro. */
static void *ptr_of(int pc, int slot, int ro)
{
	switch (pc) {
	case PC_GOOD: return rw_page + 512 * slot;
	case PC_MISALIGN: return rw_page + 512 * slot + 1 + (slot & 2);
	case PC_NULL: return NULL;
	case PC_NONE: return none_page + 64 * slot;
	case PC_RO: return ro_page + ro;
	case PC_STRADDLE: return none_page - 2;	/* 2 bytes mapped */
	default: return KERNEL_PTR;
	}
}

/* Draw a pointer class: good @good % of the time. */
static int pick_pc(int good, bool ro_ok)
{
	static const int bad[] = { PC_NULL, PC_NONE, PC_RO, PC_STRADDLE,
				   PC_KERNEL, PC_MISALIGN };
	int pc;

	if (chance(good))
		return PC_GOOD;
	do
		pc = bad[rnd(ARRAY_SIZE(bad))];
	while (pc == PC_RO && !ro_ok);
	return pc;
}

/* ------------------------------------------------------------------ */
/* Reporting.                                                          */

static char desc[1024];
static int dlen;

static void dclear(void) { dlen = 0; desc[0] = 0; }

static void __attribute__((format(printf, 1, 2))) dadd(const char *fmt, ...)
{
	va_list ap;

	if (dlen >= (int)sizeof(desc) - 1)
		return;
	va_start(ap, fmt);
	dlen += vsnprintf(desc + dlen, sizeof(desc) - dlen, fmt, ap);
	va_end(ap);
	if (dlen > (int)sizeof(desc) - 1)
		dlen = sizeof(desc) - 1;
}

static bool tracing(void)
{
	return opt.trace_from >= 0 && ncall >= opt.trace_from;
}

/*
 * Count the outcome of a call of @op and judge it against @allow.  The
 * caller has put the call in desc (or does after, through verdict()).
 */
static bool judge(enum op op, int err, const eset *allow)
{
	struct opstat *s = &stats[op];

	s->calls++;
	if (!err)
		s->ok++;
	else if (err < NERR)
		s->err[err]++;
	if (ehas(allow, err))
		return true;
	s->bad++;
	nfail++;
	return false;
}

static void print_fail(const char *what, long ret, int err, const eset *allow)
{
	char a[256];

	if (nfail + nvalue_fail > (unsigned long)opt.max_report)
		return;
	if (allow)
		eset_str(a, sizeof(a), allow);
	printf("FAIL seed %" PRIu64 " call %ld: %s = %ld (%s)%s%s%s\n",
	       opt.seed, ncall, desc, ret, err ? ename(err) : "success",
	       allow ? ", allowed: " : "", allow ? a : "", what ? what : "");
	if (nfail + nvalue_fail == (unsigned long)opt.max_report)
		printf("# (further failures are counted, not shown)\n");
}

/* After judge(): print the call if it failed or is traced. */
static void verdict(bool good, long ret, int err, const eset *allow)
{
	if (!good)
		print_fail(NULL, ret, err, allow);
	else if (tracing())
		printf("# call %ld: %s = %ld (%s)\n", ncall, desc, ret,
		       err ? ename(err) : "success");
}

/* A value check failed on a call judged good. */
static void __attribute__((format(printf, 3, 4)))
value_fail(enum op op, long ret, const char *fmt, ...)
{
	char what[256] = "; ";
	va_list ap;

	stats[op].bad++;
	nvalue_fail++;
	va_start(ap, fmt);
	vsnprintf(what + 2, sizeof(what) - 2, fmt, ap);
	va_end(ap);
	print_fail(what, ret, 0, NULL);
}

/* ------------------------------------------------------------------ */
/* Timespecs.                                                          */

static bool ts_valid(const struct timespec *ts)
{
	return ts->tv_sec >= 0 && (unsigned long)ts->tv_nsec < NSEC;
}

static bool ts_valid_strict(const struct timespec *ts)
{
	return ts_valid(ts) && (unsigned long long)ts->tv_sec < KTIME_SEC_MAX;
}

static bool ts_valid_settod(const struct timespec *ts)
{
	return ts_valid(ts) &&
	       (unsigned long long)ts->tv_sec < TIME_SETTOD_SEC_MAX;
}

/* timespec64_to_ktime(), then ktime_to_timespec64(): a valid @ts. */
static struct timespec ts_through_ktime(const struct timespec *ts)
{
	struct timespec r;
	int64_t ns;

	if (ts->tv_sec >= KTIME_SEC_MAX)
		ns = KTIME_MAX;
	else
		ns = ts->tv_sec * NSEC + ts->tv_nsec;
	r.tv_sec = ns / NSEC;
	r.tv_nsec = ns % NSEC;
	return r;
}

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NSEC + ts->tv_nsec;
}

static long long pick_sec(void)
{
	switch (rnd(24)) {
	case 0: return 0;
	case 1: return -1;
	case 2: return LLONG_MIN;
	case 3: return LLONG_MAX;
	case 4: return KTIME_SEC_MAX;
	case 5: return KTIME_SEC_MAX - 1;
	case 6: return TIME_SETTOD_SEC_MAX;
	case 7: return TIME_SETTOD_SEC_MAX - 1;
	case 8: return -(long long)rnd(1u << 31) - 1;
	case 9: return (long long)(rnd64() >> 1);
	case 10: return (long long)rnd64();
	case 11: case 12: return (long long)rnd(1u << 31) * 4;
	default: return rnd(100000);
	}
}

static long pick_nsec(void)
{
	switch (rnd(20)) {
	case 0: return 0;
	case 1: return NSEC - 1;
	case 2: return NSEC;
	case 3: return -1;
	case 4: return LONG_MAX;
	case 5: return LONG_MIN;
	case 6: return (long)rnd64();
	default: return rnd(NSEC);
	}
}

static void ts_str(char *buf, size_t len, int pc, const struct timespec *ts)
{
	if (pc == PC_GOOD || pc == PC_MISALIGN)
		snprintf(buf, len, "{%lld, %ld}%s", (long long)ts->tv_sec,
			 ts->tv_nsec, pc == PC_MISALIGN ? " (misaligned)" : "");
	else if (pc == PC_RO)
		snprintf(buf, len, "read-only {%lld, %ld}",
			 (long long)ts->tv_sec, ts->tv_nsec);
	else
		snprintf(buf, len, "%s pointer", pcname[pc]);
}

/* ------------------------------------------------------------------ */
/* Targets: what a clockid may name, each possibility concretely.      */

enum tk { TK_STATIC, TK_CPU, TK_NOTCLOCK, TK_CLOCK };

struct target {
	uint8_t k;
	bool valid;		/* TK_CPU: names a task it may use */
	bool self_thread;	/* TK_CPU: the caller's own thread clock */
	bool may_vanish;	/* TK_CPU: the task may exit */
	bool w;			/* TK_CLOCK: open for writing */
	bool live;		/* TK_CLOCK */
	int id;			/* TK_STATIC */
	int clk;		/* TK_CLOCK */
};

#define MAXT 64
struct tlist { int n; struct target t[MAXT]; };

static void tadd(struct tlist *l, struct target t)
{
	if (l->n < MAXT)
		l->t[l->n++] = t;
}

static bool may_live(int c) { return clocks[c].snap != CS_REMOVED; }
static bool may_gone(int c) { return clocks[c].snap != CS_LIVE; }

static void tadd_clock(struct tlist *l, int c, bool w)
{
	if (may_live(c))
		tadd(l, (struct target){ .k = TK_CLOCK, .clk = c, .w = w,
					 .live = true });
	if (may_gone(c))
		tadd(l, (struct target){ .k = TK_CLOCK, .clk = c, .w = w,
					 .live = false });
}

static void tadd_fdent(struct tlist *l, const struct fdent *e)
{
	if (e->kind == F_CLOCK)
		tadd_clock(l, e->clk, e->acc & ACC_W);
	else
		tadd(l, (struct target){ .k = TK_NOTCLOCK });
}

static void resolve_fd_clockid(int fd, struct tlist *l)
{
	const struct fdent *e;

	if (fd < 0 || fd >= NFD) {
		tadd(l, (struct target){ .k = TK_NOTCLOCK });
		return;
	}
	e = &fdt[fd];
	switch (e->kind) {
	case F_RACY:
		tadd(l, (struct target){ .k = TK_NOTCLOCK });
		/* fall through */
	case F_ANYSRC:
		for (int i = 0; i < nrsrc; i++)
			tadd_fdent(l, &rsrc[i].e);
		break;
	default:
		tadd_fdent(l, e);
	}
}

static void resolve_cpu(clockid_t id, struct tlist *l)
{
	bool thread = id & 4;
	pid_t pid = ~(id >> 3);
	struct target v = { .k = TK_CPU, .valid = true };
	struct target inv = { .k = TK_CPU, .valid = false };

	if ((id & 3) == 3) {
		tadd(l, inv);
		return;
	}
	if (pid == 0 || pid == env.pid) {
		v.self_thread = thread;
		tadd(l, v);
	} else if (pid == env.racer_tid) {
		tadd(l, thread ? v : inv);
	} else if (env.child && pid == env.child && env.child_alive) {
		v.may_vanish = true;
		tadd(l, thread ? inv : v);
	} else if ((env.remover && pid == env.remover) || pid == 1) {
		tadd(l, thread ? inv : v);
	} else if (pid > env.pid_max) {
		tadd(l, inv);
	} else {
		/* Some task, or none: either. */
		v.may_vanish = true;
		tadd(l, v);
		tadd(l, inv);
	}
}

static void resolve(clockid_t id, struct tlist *l)
{
	l->n = 0;
	if (id >= 0)
		tadd(l, (struct target){ .k = TK_STATIC, .id = id });
	else if ((id & 7) == CLOCKFD)
		resolve_fd_clockid((int)(((unsigned int)~id) >> 3), l);
	else
		resolve_cpu(id, l);
}

static void cid_str(char *buf, size_t len, clockid_t id)
{
	static const char *const names[] = {
		"CLOCK_REALTIME", "CLOCK_MONOTONIC", "CLOCK_PROCESS_CPUTIME_ID",
		"CLOCK_THREAD_CPUTIME_ID", "CLOCK_MONOTONIC_RAW",
		"CLOCK_REALTIME_COARSE", "CLOCK_MONOTONIC_COARSE",
		"CLOCK_BOOTTIME", "CLOCK_REALTIME_ALARM", "CLOCK_BOOTTIME_ALARM",
		"10 (no clock)", "CLOCK_TAI",
	};

	if (id >= 0 && id < (clockid_t)ARRAY_SIZE(names)) {
		snprintf(buf, len, "%s", names[id]);
	} else if (id >= 0) {
		snprintf(buf, len, "%d", id);
	} else if ((id & 7) == CLOCKFD) {
		int fd = (int)(((unsigned int)~id) >> 3);
		const struct fdent *e = fd < NFD ? &fdt[fd] : NULL;

		if (!e) {
			snprintf(buf, len, "%#x (fd %d, never opened)", id, fd);
		} else if (e->kind == F_CLOCK) {
			const struct clock *c = &clocks[e->clk];
			static const char *const st[] = { "live", "being removed",
							  "removed" };

			snprintf(buf, len, "%#x (fd %d: %s %s, %s, %s)", id, fd,
				 c->name, c->path,
				 e->acc == (ACC_R | ACC_W) ? "O_RDWR" :
				 e->acc == ACC_W ? "O_WRONLY" : "O_RDONLY",
				 st[c->snap]);
		} else {
			snprintf(buf, len, "%#x (fd %d: %s)", id, fd,
				 fkname[e->kind]);
		}
	} else {
		snprintf(buf, len, "%#x (CPU clock: pid %d, %s, clock %d)", id,
			 ~(id >> 3), id & 4 ? "thread" : "process", id & 3);
	}
}

/* ------------------------------------------------------------------ */
/* Picking arguments.                                                  */

/* A descriptor number < NFD whose entry satisfies @pred, or -1. */
static int pick_fd_where(bool (*pred)(const struct fdent *e, int fd))
{
	int n = 0, k;

	for (int fd = 0; fd < NFD; fd++)
		n += pred(&fdt[fd], fd);
	if (!n)
		return -1;
	k = (int)rnd((uint32_t)n);
	for (int fd = 0; fd < NFD; fd++)
		if (pred(&fdt[fd], fd) && k-- == 0)
			return fd;
	return -1;
}

static bool is_clockfd(const struct fdent *e, int fd)
{
	return fd < INFRA_BASE && e->kind == F_CLOCK;
}
static bool is_victimfd(const struct fdent *e, int fd)
{
	return is_clockfd(e, fd) && clocks[e->clk].victim;
}
static bool is_notclockfd(const struct fdent *e, int fd)
{
	(void)fd;
	return e->kind != F_CLOSED && e->kind != F_CLOCK &&
	       e->kind != F_RACY && e->kind != F_ANYSRC;
}
static bool is_closedfd(const struct fdent *e, int fd)
{
	return fd < INFRA_BASE && e->kind == F_CLOSED;
}
static bool is_racyfd(const struct fdent *e, int fd)
{
	(void)fd;
	return e->kind == F_RACY;
}
static bool is_timerfd(const struct fdent *e, int fd)
{
	return fd < INFRA_BASE && e->kind == F_TIMERFD;
}
/* Descriptors the fuzzer may close, dup, read and poll. */
static bool is_mainfd(const struct fdent *e, int fd)
{
	return fd < INFRA_BASE && e->kind != F_CLOSED && e->kind != F_STD;
}

static bool is_removingfd(const struct fdent *e, int fd)
{
	return fd < INFRA_BASE && ((e->kind == F_CLOCK && e->clk == removing_clk) ||
				   (e->kind == F_TIMERFD && e->tfd >= 0 &&
				    (tfds[e->tfd].clkmask >> removing_clk & 1)));
}

static int closed_number(void)
{
	int fd;

	switch (rnd(4)) {
	case 0: return NFD + rnd(1024 - NFD);
	case 1: return 1024 + rnd(1 << 20);
	case 2: return (1 << 28) + rnd(1 << 28);
	default:
		fd = pick_fd_where(is_closedfd);
		return fd >= 0 ? fd : 999;
	}
}

/* A descriptor number for read, poll, close, dup, timerfd_*. */
static int pick_any_fd(int timerfd_pct)
{
	int fd = -1, r = rnd(100);

	if (removing_clk >= 0 && chance(50)) {
		fd = pick_fd_where(is_removingfd);
		if (fd >= 0)
			return fd;
	}
	if (r < timerfd_pct)
		fd = pick_fd_where(is_timerfd);
	else if (r < timerfd_pct + (100 - timerfd_pct) * 6 / 10)
		fd = pick_fd_where(is_mainfd);
	else if (r < timerfd_pct + (100 - timerfd_pct) * 8 / 10)
		fd = pick_fd_where(is_racyfd);
	if (fd < 0)
		fd = chance(50) ? pick_fd_where(is_mainfd) : closed_number();
	return fd >= 0 ? fd : closed_number();
}

static clockid_t pick_clockid(void)
{
	static const int bad_static[] = { 10, 12, 13, 15, 16, 23, 24, 64, 100,
					  INT_MAX };
	unsigned int r = rnd(100);
	int fd = -1;
	pid_t pid;

	/* While a clock is being removed, race it. */
	if (removing_clk >= 0 && chance(50)) {
		fd = pick_fd_where(is_removingfd);
		if (fd >= 0 && fdt[fd].kind == F_CLOCK)
			return FD_TO_CLOCKID(fd);
		fd = -1;
	}
	if (r < 30)
		fd = pick_fd_where(is_clockfd);
	else if (r < 38)
		fd = pick_fd_where(is_victimfd);
	else if (r < 43)
		fd = RACY_BASE + rnd(NRACY);
	else if (r < 50)
		fd = pick_fd_where(is_notclockfd);
	else if (r < 56)
		fd = closed_number();
	else if (r < 58) {
		fd = pick_fd_where(is_clockfd);
		if (fd >= 0)
			return FD_TO_CLOCKID(fd) | 4;
	} else if (r < 74) {
		return rnd(12);
	} else if (r < 78) {
		return bad_static[rnd(ARRAY_SIZE(bad_static))];
	} else if (r < 92) {
		switch (rnd(8)) {
		case 0: pid = 0; break;
		case 1: pid = env.pid; break;
		case 2: pid = env.racer_tid; break;
		case 3: pid = env.child ? env.child : 1; break;
		case 4: pid = 1; break;
		case 5: pid = env.remover ? env.remover : 1; break;
		case 6: pid = 0x7ffffff; break;
		default: pid = env.pid_max + 1 + rnd(1000); break;
		}
		/* Clock 3 without the per-thread bit is a fd clockid. */
		return MAKE_CPUCLOCK(pid, rnd(4), chance(50));
	} else {
		return (clockid_t)(rnd64() | 0x80000000u);
	}
	if (fd < 0)
		fd = closed_number();
	return FD_TO_CLOCKID(fd);
}

/* ------------------------------------------------------------------ */
/* Watchdog for calls that may block.                                  */

static _Atomic unsigned long signals_seen;

/* The timer ids of the timer signals delivered, for check_signals(). */
#define SIGRING 1024
static volatile int sigring[SIGRING];
static _Atomic unsigned int sighead;
static unsigned int sigtail;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	atomic_fetch_add_explicit(&signals_seen, 1, memory_order_relaxed);
	if (si && si->si_code == SI_TIMER)
		sigring[atomic_fetch_add(&sighead, 1) % SIGRING] = si->si_timerid;
}

/*
 * Periodic: a signal that came before the call entered the kernel would
 * leave an endless sleep uninterrupted.
 */
static void watchdog_arm(void)
{
	struct itimerval it = { .it_value = { 0, 2000 },
				.it_interval = { 0, 2000 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

static void watchdog_disarm(void)
{
	struct itimerval it = { 0 };

	setitimer(ITIMER_REAL, &it, NULL);
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts_ns(&ts);
}

/* The clock's time now, through the oracle's descriptor. */
static bool clock_now(int c, struct timespec *ts)
{
	return clocks[c].ofd >= 0 &&
	       !syscall(SYS_clock_gettime, FD_TO_CLOCKID(clocks[c].ofd), ts);
}

/* ------------------------------------------------------------------ */
/* The allowed outcomes, per target.                                   */

static bool static_exists(int id) { return id >= 0 && id <= 11 && id != 10; }
static bool is_alarm(int id) { return id == 8 || id == 9; }

/* clock_gettime() and clock_getres() (@null_ok). */
static void x_get(eset *a, const struct target *t, int pc, bool null_ok)
{
	int e = 0;

	switch (t->k) {
	case TK_STATIC:
		if (!static_exists(t->id) ||
		    (is_alarm(t->id) && !env.rtc_alarm))
			e = EINVAL;
		break;
	case TK_CPU:
		if (!t->valid)
			e = EINVAL;
		break;
	case TK_NOTCLOCK:
		e = EINVAL;
		break;
	case TK_CLOCK:
		if (!t->live)
			e = ENODEV;
		break;
	}
	if (!e && pc_bad_out(pc) && !(null_ok && pc == PC_NULL))
		e = EFAULT;
	eadd(a, e);
}

static void x_settime(eset *a, const struct target *t, int pc,
		      const struct timespec *ts)
{
	const struct clock *c;

	switch (t->k) {
	case TK_STATIC:
		/* Only CLOCK_REALTIME has a setter, and it is never called. */
		eadd(a, EINVAL);
		return;
	case TK_CPU:
		eadd(a, pc_bad_in(pc) ? EFAULT : t->valid ? EPERM : EINVAL);
		return;
	default:
		break;
	}
	if (pc_bad_in(pc))
		eadd(a, EFAULT);
	else if (!ts_valid_strict(ts))
		eadd(a, EINVAL);
	else if (t->k == TK_NOTCLOCK)
		eadd(a, EINVAL);
	else if (!t->live)
		eadd(a, ENODEV);
	else if (!t->w)
		eadd(a, EACCES);
	else if ((c = &clocks[t->clk])->kind == CK_RTC) {
		if (!env.cap_time) {
			eadd(a, EPERM);
		} else {
			/* rtc_set_time(): the RTC's range is its own. */
			eadd(a, 0);
			eadd(a, EINVAL);
			eadd(a, ERANGE);
		}
	} else {
		eadd(a, ts_valid_settod(ts) ? 0 : EINVAL);
	}
}

/* scaled_ppm_to_ppb() as the kernel computes it, wrapping. */
static long long scaled_to_ppb(long long freq)
{
	int64_t ppb = (int64_t)(((uint64_t)1 + (uint64_t)freq) * 125u);

	return ppb >> 13;
}

/* What a live PTP clock's driver makes of @tx (ptp_clock_adjtime()). */
static void x_adj_ptp(eset *a, const struct clock *c, int clk,
		      const struct timex *tx)
{
	unsigned int modes = tx->modes;

	if (modes & ADJ_SETOFFSET) {
		long long nsec = tx->time.tv_usec;
		struct timespec now;
		long long sec;

		if (!(modes & ADJ_NANO))
			nsec = (long long)((unsigned long long)nsec * 1000);
		if ((unsigned long long)nsec >= (unsigned long long)NSEC) {
			eadd(a, EINVAL);
			return;
		}
		if (!clock_now(clk, &now)) {
			eadd(a, 0);
			eadd(a, EINVAL);
			return;
		}
		sec = (long long)((unsigned long long)now.tv_sec +
				  (unsigned long long)tx->time.tv_sec +
				  (now.tv_nsec + nsec >= NSEC));
		/* Near a limit the clock may cross it during the call. */
		if (llabs(sec) < 3 || llabs(sec - TIME_SETTOD_SEC_MAX) < 3) {
			eadd(a, 0);
			eadd(a, EINVAL);
		} else {
			eadd(a, sec >= 0 && sec < TIME_SETTOD_SEC_MAX ?
				0 : EINVAL);
		}
	} else if (modes & ADJ_FREQUENCY) {
		long long ppb = scaled_to_ppb(tx->freq);

		if (c->max_adj < 0) {
			eadd(a, 0);
			eadd(a, ERANGE);
		} else {
			eadd(a, ppb > c->max_adj || ppb < -c->max_adj ?
				ERANGE : 0);
		}
	} else if (modes & ADJ_OFFSET) {
		/* adjphase: ptp_sim has none; another driver may. */
		eadd(a, EOPNOTSUPP);
		if (c->kind != CK_PTP_SIM) {
			eadd(a, ERANGE);
			eadd(a, 0);
		}
	} else if (modes == 0) {
		eadd(a, 0);
	} else {
		eadd(a, EOPNOTSUPP);
	}
}

static void x_adjtime(eset *a, const struct target *t, int pc,
		      const struct timex *tx)
{
	eset s = { 0 };

	if (pc_bad_in(pc)) {
		eadd(a, EFAULT);
		return;
	}
	switch (t->k) {
	case TK_STATIC:
		if (!static_exists(t->id))
			eadd(&s, EINVAL);
		else if (t->id != CLOCK_REALTIME)
			eadd(&s, EOPNOTSUPP);
		else
			eadd(&s, 0);	/* modes 0 only: a read */
		break;
	case TK_CPU:
		eadd(&s, EOPNOTSUPP);
		break;
	case TK_NOTCLOCK:
		eadd(&s, EINVAL);
		break;
	case TK_CLOCK:
		if (!t->live)
			eadd(&s, ENODEV);
		else if (tx->modes && !t->w)
			eadd(&s, EACCES);
		else if (clocks[t->clk].kind == CK_RTC)
			eadd(&s, tx->modes ? EOPNOTSUPP : 0);
		else
			x_adj_ptp(&s, &clocks[t->clk], t->clk, tx);
		break;
	}
	/* The result is copied back only after success. */
	if (ehas(&s, 0) && pc_bad_out(pc)) {
		edel(&s, 0);
		eadd(&s, EFAULT);
	}
	for (int i = 0; i < 3; i++)
		a->b[i] |= s.b[i];
}

static bool sev_valid(const struct ksigevent *sev)
{
	int signo = sev->sigev_signo;

	switch (sev->sigev_notify) {
	case SIGEV_THREAD_ID:
		if (sev->un._tid != env.pid && sev->un._tid != env.racer_tid)
			return false;
		/* fall through */
	case SIGEV_SIGNAL:
	case SIGEV_THREAD:
		return signo > 0 && signo <= 64;
	case SIGEV_NONE:
		return true;
	default:
		return false;
	}
}

static bool wakes_without_cap(int clk)
{
	return clocks[clk].wakes && !env.cap_wake;
}

/* @sev: the sigevent (NULL for a NULL pointer), @sevpc its pointer. */
static void x_tcreate(eset *a, const struct target *t, int sevpc,
		      const struct ksigevent *sev, int idpc)
{
	bool sev_ok = !sev || sev_valid(sev), id_bad = pc_bad_out(idpc);

	if (sevpc != PC_NULL && pc_bad_in(sevpc)) {
		eadd(a, EFAULT);
		return;
	}
	switch (t->k) {
	case TK_STATIC:
		if (!static_exists(t->id))
			eadd(a, EINVAL);
		else if (t->id >= 4 && t->id <= 6)
			eadd(a, EOPNOTSUPP);
		else if (!sev_ok)
			eadd(a, EINVAL);
		else if (id_bad)
			eadd(a, EFAULT);
		else if (is_alarm(t->id))
			eadd(a, !env.rtc_alarm ? EOPNOTSUPP :
				!env.cap_wake ? EPERM : 0);
		else
			eadd(a, 0);
		return;
	case TK_CPU:
		eadd(a, !sev_ok ? EINVAL : id_bad ? EFAULT :
			!t->valid ? EINVAL : 0);
		return;
	default:
		break;
	}
	if (!env.clockdev)
		eadd(a, EOPNOTSUPP);
	else if (!sev_ok)
		eadd(a, EINVAL);
	else if (id_bad)
		/*
		 * The id is copied out before the clock is looked up, as for
		 * every clock since Linux 2.6: the ABI document's "a bad
		 * pointer for an output argument is reported after the
		 * lookup" does not hold for timer_create().
		 */
		eadd(a, EFAULT);
	else if (t->k == TK_NOTCLOCK)
		eadd(a, EINVAL);
	else if (!t->live)
		eadd(a, ENODEV);
	else if (wakes_without_cap(t->clk))
		eadd(a, EPERM);
	else
		eadd(a, 0);
}

static void x_sleeps(eset *a, int flags, int rmpc)
{
	eadd(a, 0);
	eadd(a, EINTR);
	if (!(flags & TIMER_ABSTIME) && rmpc != PC_NULL && pc_bad_out(rmpc))
		eadd(a, EFAULT);
}

static void x_nsleep(eset *a, const struct target *t, int flags, int rqpc,
		     const struct timespec *rq, int rmpc)
{
	switch (t->k) {
	case TK_STATIC:
		if (!static_exists(t->id)) {
			eadd(a, EINVAL);
			return;
		}
		if (t->id >= 3 && t->id <= 6) {
			eadd(a, EOPNOTSUPP);
			return;
		}
		break;
	case TK_CPU:
		break;
	default:
		if (!env.clockdev) {
			eadd(a, EOPNOTSUPP);
			return;
		}
	}
	if (pc_bad_in(rqpc)) {
		eadd(a, EFAULT);
		return;
	}
	if (!ts_valid(rq)) {
		eadd(a, EINVAL);
		return;
	}
	switch (t->k) {
	case TK_STATIC:
		if (!is_alarm(t->id))
			x_sleeps(a, flags, rmpc);
		else if (!env.rtc_alarm)
			eadd(a, EOPNOTSUPP);
		else if (flags & ~TIMER_ABSTIME)
			eadd(a, EINVAL);
		else if (!env.cap_wake)
			eadd(a, EPERM);
		else
			x_sleeps(a, flags, rmpc);
		break;
	case TK_CPU:
		if (t->self_thread || !t->valid)
			eadd(a, EINVAL);
		else
			x_sleeps(a, flags, rmpc);
		break;
	case TK_NOTCLOCK:
		eadd(a, EINVAL);
		break;
	case TK_CLOCK:
		if (!t->live)
			eadd(a, ENODEV);
		else if (wakes_without_cap(t->clk))
			eadd(a, EPERM);
		else
			x_sleeps(a, flags, rmpc);
		break;
	}
}

static void x_tfdcreate(eset *a, const struct target *t, int flags)
{
	if (flags & ~(TFD_CLOEXEC | TFD_NONBLOCK)) {
		eadd(a, EINVAL);
		return;
	}
	switch (t->k) {
	case TK_STATIC:
		if (t->id != 0 && t->id != 1 && t->id != 7 && !is_alarm(t->id))
			eadd(a, EINVAL);
		else if (is_alarm(t->id) && !env.cap_wake)
			eadd(a, EPERM);
		else
			eadd(a, 0);
		break;
	case TK_CPU:
	case TK_NOTCLOCK:
		eadd(a, EINVAL);
		break;
	case TK_CLOCK:
		if (!env.clockdev)
			eadd(a, EINVAL);
		else if (!t->live)
			eadd(a, ENODEV);
		else if (wakes_without_cap(t->clk))
			eadd(a, EPERM);
		else
			eadd(a, 0);
		break;
	}
}

/* Could a timer or timerfd on clocks @mask be live / removed? */
static bool mask_may_live(unsigned mask)
{
	for (int c = 0; c < nclocks; c++)
		if ((mask >> c & 1) && may_live(c))
			return true;
	return false;
}
static bool mask_may_gone(unsigned mask)
{
	for (int c = 0; c < nclocks; c++)
		if ((mask >> c & 1) && may_gone(c))
			return true;
	return false;
}
static bool mask_wakes(unsigned mask)
{
	for (int c = 0; c < nclocks; c++)
		if ((mask >> c & 1) && wakes_without_cap(c))
			return true;
	return false;
}
static unsigned long mask_steps(unsigned mask)
{
	unsigned long n = 0;

	for (int c = 0; c < nclocks; c++)
		if (mask >> c & 1)
			n += clocks[c].steps;
	return n;
}

/* ------------------------------------------------------------------ */
/* Descriptor bookkeeping.                                             */

static int tfd_new(void)
{
	for (int i = 0; i < MAXTFD; i++)
		if (!tfds[i].used) {
			memset(&tfds[i], 0, sizeof(tfds[i]));
			tfds[i].used = true;
			tfds[i].sid = -1;
			return i;
		}
	return -1;
}

static void fdt_close(int fd)
{
	struct fdent *e;

	if (fd < 0 || fd >= NFD)
		return;
	e = &fdt[fd];
	if (fd < INFRA_BASE && e->kind != F_CLOSED && e->kind != F_STD)
		nmain--;
	if (e->kind == F_TIMERFD && e->tfd >= 0) {
		struct tfdm *m = &tfds[e->tfd];

		if (--m->refs <= 0 && !m->shared)
			m->used = false;
	}
	memset(e, 0, sizeof(*e));
	e->tfd = -1;
}

static void fdt_set(int fd, struct fdent e)
{
	if (fd < 0 || fd >= NFD)
		return;
	fdt_close(fd);
	if (e.kind == F_TIMERFD && e.tfd >= 0)
		tfds[e.tfd].refs++;
	fdt[fd] = e;
	if (fd < INFRA_BASE && e.kind != F_CLOSED && e.kind != F_STD)
		nmain++;
}

/* ------------------------------------------------------------------ */
/* The operations.                                                     */

/* Snapshot of the clocks' states, and the step counters' bookkeeping. */
static void step_targets(const struct tlist *l)
{
	for (int i = 0; i < l->n; i++)
		if (l->t[i].k == TK_CLOCK && l->t[i].live)
			clocks[l->t[i].clk].steps++;
}

static void freq_unknown(const struct tlist *l)
{
	for (int i = 0; i < l->n; i++)
		if (l->t[i].k == TK_CLOCK)
			clocks[l->t[i].clk].freq_known = false;
}

static void op_get(enum op op)
{
	bool res = op == OP_GETRES;
	clockid_t id = pick_clockid();
	int pc = pick_pc(85, true);
	struct timespec *ts = ptr_of(pc, 0, RO_TS);
	struct tlist l;
	eset a = { 0 };
	char cs[160];
	long r;
	int err;
	bool good;

	resolve(id, &l);
	for (int i = 0; i < l.n; i++)
		x_get(&a, &l.t[i], pc, res);
	if (pc == PC_GOOD)
		*ts = (struct timespec){ -7, -7 };
	r = syscall(res ? SYS_clock_getres : SYS_clock_gettime, id, ts);
	err = r < 0 ? errno : 0;
	good = judge(op, err, &a);
	dclear();
	cid_str(cs, sizeof(cs), id);
	dadd("%s(%s, %s)", opname[op], cs, pcname[pc]);
	verdict(good, r, err, &a);
	if (!good || err || pc != PC_GOOD)
		return;
	if (!ts_valid(ts)) {
		value_fail(op, r, "not a normalized timespec: {%lld, %ld}",
			   (long long)ts->tv_sec, ts->tv_nsec);
		return;
	}
	/* The resolutions the ABI fixes: a PHC 1 ns, an RTC clock 1 s. */
	if (l.n == 1 && l.t[0].k == TK_CLOCK) {
		bool rtc = clocks[l.t[0].clk].kind == CK_RTC;

		if (res && (rtc ? ts->tv_sec != 1 || ts->tv_nsec :
				  ts->tv_sec || ts->tv_nsec != 1))
			value_fail(op, r, "resolution {%lld, %ld}, want %s",
				   (long long)ts->tv_sec, ts->tv_nsec,
				   rtc ? "{1, 0}" : "{0, 1}");
		if (!res && rtc && ts->tv_nsec)
			value_fail(op, r, "an RTC clock read %ld ns",
				   ts->tv_nsec);
	} else if (res && l.n == 1 && (ts->tv_sec || !ts->tv_nsec)) {
		value_fail(op, r, "resolution {%lld, %ld}",
			   (long long)ts->tv_sec, ts->tv_nsec);
	}
}

static void gen_settime_ts(struct timespec *ts)
{
	if (chance(70)) {
		ts->tv_sec = rnd(chance(50) ? 100000 : 4000000000u);
		ts->tv_nsec = rnd(NSEC);
	} else {
		ts->tv_sec = pick_sec();
		ts->tv_nsec = pick_nsec();
	}
}

static void op_settime(void)
{
	clockid_t id;
	int pc = pick_pc(88, true);
	struct timespec ts, *p = ptr_of(pc, 0, RO_TS);
	struct tlist l;
	eset a = { 0 };
	char cs[160], tss[80];
	long r;
	int err;
	bool good;

	do
		id = pick_clockid();
	while (id == CLOCK_REALTIME);
	gen_settime_ts(&ts);
	if (pc == PC_GOOD || pc == PC_MISALIGN)
		memcpy(p, &ts, sizeof(ts));
	else if (pc == PC_RO)
		memcpy(&ts, p, sizeof(ts));
	resolve(id, &l);
	for (int i = 0; i < l.n; i++)
		x_settime(&a, &l.t[i], pc, &ts);
	r = syscall(SYS_clock_settime, id, p);
	err = r < 0 ? errno : 0;
	good = judge(OP_SETTIME, err, &a);
	if (!err)
		step_targets(&l);
	dclear();
	cid_str(cs, sizeof(cs), id);
	ts_str(tss, sizeof(tss), pc, &ts);
	dadd("clock_settime(%s, %s)", cs, tss);
	verdict(good, r, err, &a);
}

static void gen_timex(struct timex *tx, const struct tlist *l)
{
	static const unsigned int odd_modes[] = {
		ADJ_STATUS, ADJ_TICK, ADJ_MAXERROR, ADJ_ESTERROR,
		ADJ_TIMECONST, ADJ_TAI, ADJ_MICRO, ADJ_NANO,
		ADJ_OFFSET_SS_READ, 0x4000, 0x80000000u,
	};
	long long max = 10000000;

	memset(tx, 0, sizeof(*tx));
	if (l->n >= 1 && l->t[0].k == TK_CLOCK &&
	    clocks[l->t[0].clk].max_adj > 0)
		max = clocks[l->t[0].clk].max_adj;
	switch (rnd(20)) {
	case 0: case 1: case 2: case 3: case 4:
		tx->modes = 0;
		tx->freq = (long)rnd64();
		break;
	case 5: case 6: case 7: case 8:
		tx->modes = ADJ_SETOFFSET | (chance(50) ? ADJ_NANO : 0);
		if (chance(75)) {
			tx->time.tv_sec = (long)rnd(2001) - 1000;
			tx->time.tv_usec = rnd(tx->modes & ADJ_NANO ?
					       NSEC : 1000000);
		} else {
			tx->time.tv_sec = pick_sec();
			tx->time.tv_usec = chance(50) ? pick_nsec() :
					   (long)rnd(2000000);
		}
		break;
	case 9: case 10: case 11: case 12:
		tx->modes = ADJ_FREQUENCY;
		switch (rnd(6)) {
		case 0: tx->freq = max * 8192 / 125; break;
		case 1: tx->freq = ((max + 1) * 8192 + 124) / 125; break;
		case 2: tx->freq = -(((max + 1) * 8192 + 124) / 125); break;
		case 3: tx->freq = (long)rnd64(); break;
		default:
			tx->freq = (long)rnd(2 * max * 65) - max * 65;
		}
		break;
	case 13: case 14:
		tx->modes = chance(50) ? ADJ_OFFSET : ADJ_OFFSET_SINGLESHOT;
		if (chance(50))
			tx->modes |= ADJ_NANO;
		tx->offset = chance(50) ? (long)rnd(2000000) - 1000000 :
					  (long)rnd64();
		break;
	case 15: case 16: case 17:
		tx->modes = odd_modes[rnd(ARRAY_SIZE(odd_modes))];
		break;
	case 18:
		tx->modes = (unsigned int)rnd64();
		tx->time.tv_usec = rnd(1000000);
		tx->freq = rnd(1000);
		break;
	default:
		tx->modes = ADJ_SETOFFSET | ADJ_FREQUENCY;
		tx->time.tv_sec = (long)rnd(21) - 10;
		tx->freq = 1000;
		break;
	}
}

static void op_adjtime(void)
{
	clockid_t id = pick_clockid();
	int pc = pick_pc(88, true);
	struct timex tx, *p = ptr_of(pc, 0, RO_TX);
	struct tlist l;
	eset a = { 0 };
	char cs[160];
	long r;
	int err;
	bool good;

	resolve(id, &l);
	gen_timex(&tx, &l);
	if (id == CLOCK_REALTIME)
		tx.modes = 0;	/* never adjust the system clock */
	if (pc == PC_GOOD || pc == PC_MISALIGN)
		memcpy(p, &tx, sizeof(tx));
	else if (pc == PC_RO)
		memcpy(&tx, p, sizeof(tx));
	for (int i = 0; i < l.n; i++)
		x_adjtime(&a, &l.t[i], pc, &tx);
	r = syscall(SYS_clock_adjtime, id, p);
	err = r < 0 ? errno : 0;
	good = judge(OP_ADJTIME, err, &a);
	dclear();
	cid_str(cs, sizeof(cs), id);
	if (pc_bad_in(pc))
		dadd("clock_adjtime(%s, %s pointer)", cs, pcname[pc]);
	else
		dadd("clock_adjtime(%s, %s{modes %#x, offset %ld, freq %ld, "
		     "time {%ld, %ld}})", cs, pc == PC_RO ? "read-only " : "",
		     tx.modes, tx.offset, tx.freq, tx.time.tv_sec,
		     tx.time.tv_usec);
	verdict(good, r, err, &a);
	/* What it changed, where it may have succeeded. */
	if (tx.modes && !pc_bad_in(pc) && (!err || err == EFAULT)) {
		if (tx.modes & ADJ_SETOFFSET)
			step_targets(&l);
		else if (tx.modes & ADJ_FREQUENCY) {
			if (l.n == 1 && !err && l.t[0].k == TK_CLOCK) {
				clocks[l.t[0].clk].freq_known = true;
				clocks[l.t[0].clk].freq = tx.freq;
			} else {
				freq_unknown(&l);
			}
		}
	}
	if (!good || err)
		return;
	if (id == CLOCK_REALTIME) {
		if (r < TIME_OK || r > TIME_ERROR)
			value_fail(OP_ADJTIME, r, "clock state %ld", r);
	} else if (r != 0 && l.n >= 1 && l.t[0].k == TK_CLOCK) {
		value_fail(OP_ADJTIME, r, "a dynamic clock returned %ld", r);
	}
	if (!tx.modes && pc != PC_RO && l.n == 1 && l.t[0].k == TK_CLOCK &&
	    clocks[l.t[0].clk].kind != CK_RTC &&
	    clocks[l.t[0].clk].freq_known) {
		struct timex *out = p;

		if (out->freq != clocks[l.t[0].clk].freq)
			value_fail(OP_ADJTIME, r,
				   "read back freq %ld, last set %lld",
				   out->freq, clocks[l.t[0].clk].freq);
	}
}

static void gen_sleep(struct timespec *ts, int flags, clockid_t id,
		      const struct tlist *l)
{
	struct timespec now = { 0, 0 };
	bool have_now = false;
	int r = rnd(100);

	if (l->n == 1 && l->t[0].k == TK_CLOCK && l->t[0].live)
		have_now = clock_now(l->t[0].clk, &now);
	else if (l->n == 1 && l->t[0].k == TK_STATIC)
		have_now = !syscall(SYS_clock_gettime, id, &now);
	if (r < 15) {
		ts->tv_sec = pick_sec();
		ts->tv_nsec = pick_nsec();
	} else if (!(flags & TIMER_ABSTIME)) {
		ts->tv_sec = r < 85 ? 0 : r < 95 ? rnd(3) : rnd(100000);
		ts->tv_nsec = r < 30 ? 0 : r < 75 ? rnd(200000) : rnd(NSEC);
	} else if (have_now && r < 60) {
		int64_t ns = ts_ns(&now) + (r < 40 ? -(int64_t)rnd(NSEC) * 10 :
					    (int64_t)rnd(1000000));
		if (ns < 0)
			ns = 0;
		ts->tv_sec = ns / NSEC;
		ts->tv_nsec = ns % NSEC;
	} else {
		ts->tv_sec = r < 80 ? rnd(2) : pick_sec() & LLONG_MAX;
		ts->tv_nsec = rnd(NSEC);
	}
}

static void op_nanosleep(void)
{
	static const int odd_flags[] = { 2, 3, 0x80000000, -1 };
	clockid_t id = pick_clockid();
	int flags = chance(45) ? 0 : chance(90) ? TIMER_ABSTIME :
		    odd_flags[rnd(ARRAY_SIZE(odd_flags))];
	int rqpc = pick_pc(90, true);
	int rmpc = chance(40) ? PC_NULL : pick_pc(80, true);
	struct timespec rq, *rqp = ptr_of(rqpc, 0, RO_TS);
	struct timespec *rmp = ptr_of(rmpc, 1, RO_TS);
	struct tlist l;
	eset a = { 0 };
	char cs[160], tss[80];
	int64_t t0, t1;
	long r;
	int err;
	bool good;

	resolve(id, &l);
	gen_sleep(&rq, flags, id, &l);
	if (rqpc == PC_GOOD || rqpc == PC_MISALIGN)
		memcpy(rqp, &rq, sizeof(rq));
	else if (rqpc == PC_RO)
		memcpy(&rq, rqp, sizeof(rq));
	for (int i = 0; i < l.n; i++)
		x_nsleep(&a, &l.t[i], flags, rqpc, &rq, rmpc);
	t0 = mono_ns();
	watchdog_arm();
	r = syscall(SYS_clock_nanosleep, id, flags, rqp, rmp);
	err = r < 0 ? errno : 0;
	watchdog_disarm();
	t1 = mono_ns();
	good = judge(OP_NANOSLEEP, err, &a);
	dclear();
	cid_str(cs, sizeof(cs), id);
	ts_str(tss, sizeof(tss), rqpc, &rq);
	dadd("clock_nanosleep(%s, %#x, %s, %s)", cs, flags, tss,
	     rmpc == PC_NULL ? "NULL" : pcname[rmpc]);
	verdict(good, r, err, &a);
	/*
	 * A relative sleep never ends before its time has passed on its
	 * clock; a PHC may run up to a few percent fast.
	 */
	if (good && !err && !(flags & TIMER_ABSTIME) && l.n == 1 &&
	    ts_valid(&rq) && (l.t[0].k == TK_CLOCK ||
			      (l.t[0].k == TK_STATIC && l.t[0].id != 2)) &&
	    ts_ns(&rq) < 3600 * NSEC &&
	    (t1 - t0) * 105 / 100 + 1000000 < ts_ns(&rq))
		value_fail(OP_NANOSLEEP, r, "a sleep of %" PRId64 " ns ended after %" PRId64 " ns",
			   ts_ns(&rq), t1 - t0);
	/*
	 * "A sleep never ends before a read of the device clock has
	 * reached the expiry": read it after an absolute sleep.
	 */
	if (good && !err && (flags & TIMER_ABSTIME) && l.n == 1 &&
	    ts_valid(&rq) && ((l.t[0].k == TK_CLOCK && l.t[0].live) ||
			      (l.t[0].k == TK_STATIC &&
			       (l.t[0].id == CLOCK_MONOTONIC ||
				l.t[0].id == CLOCK_BOOTTIME)))) {
		struct timespec now;
		bool ok = l.t[0].k == TK_CLOCK ? clock_now(l.t[0].clk, &now) :
			  !syscall(SYS_clock_gettime, id, &now);

		if (ok && ts_ns(&now) < ts_ns(&rq) && rq.tv_sec < KTIME_SEC_MAX)
			value_fail(OP_NANOSLEEP, r, "ended at {%lld, %ld}, before its expiry",
				   (long long)now.tv_sec, now.tv_nsec);
	}
}

static void gen_sigevent(struct ksigevent *sev)
{
	static const int handled[] = { SIGALRM, SIGUSR1, SIGUSR2, 40, 50, 64 };
	static const int bad_notify[] = { 3, 5, 6, 7, 8, -1, INT_MIN, 0x40 };
	static const int bad_signo[] = { 0, -1, 65, 1000, INT_MIN };
	int r = rnd(100);

	memset(sev, 0, sizeof(*sev));
	sev->sigev_value.sival_int = (int)rnd64();
	sev->sigev_signo = handled[rnd(ARRAY_SIZE(handled))];
	if (r < 40) {
		sev->sigev_notify = SIGEV_NONE;
		sev->sigev_signo = (int)rnd64();	/* unused */
	} else if (r < 65) {
		sev->sigev_notify = SIGEV_SIGNAL;
	} else if (r < 70) {
		sev->sigev_notify = SIGEV_THREAD;
	} else if (r < 82) {
		sev->sigev_notify = SIGEV_THREAD_ID;
		switch (rnd(8)) {
		case 0: sev->un._tid = env.racer_tid; break;
		case 1: sev->un._tid = env.child ? env.child : 1; break;
		case 2: sev->un._tid = 1; break;
		case 3: sev->un._tid = 0; break;
		case 4: sev->un._tid = env.pid_max + 5; break;
		default: sev->un._tid = env.pid; break;
		}
	} else if (r < 92) {
		sev->sigev_notify = bad_notify[rnd(ARRAY_SIZE(bad_notify))];
	} else {
		sev->sigev_notify = rnd(2) ? SIGEV_SIGNAL : SIGEV_THREAD;
		sev->sigev_signo = bad_signo[rnd(ARRAY_SIZE(bad_signo))];
	}
}

static int pick_timer_id(void)
{
	int r = rnd(100);

	if (removing_clk >= 0 && chance(50)) {
		int n = 0, k;

		for (int i = 0; i < MAXTIMERS; i++)
			n += timers[i].used && (timers[i].clkmask >> removing_clk & 1);
		k = n ? (int)rnd((uint32_t)n) : -1;
		for (int i = 0; i < MAXTIMERS && k >= 0; i++)
			if (timers[i].used && (timers[i].clkmask >> removing_clk & 1) &&
			    k-- == 0)
				return timers[i].id;
	}
	if (r < 72 && ntimers) {
		int n = rnd(ntimers);

		for (int i = 0; i < MAXTIMERS; i++)
			if (timers[i].used && n-- == 0)
				return timers[i].id;
	}
	if (r < 82 && nforeign)
		return foreign_ids[rnd(nforeign)];
	if (r < 90 && ndeleted)
		return deleted_ids[rnd(ndeleted)];
	switch (rnd(5)) {
	case 0: return -1;
	case 1: return INT_MAX;
	case 2: return INT_MIN;
	case 3: return (int)rnd64();
	default: return rnd(64);
	}
}

static struct ptm *find_timer(int id)
{
	for (int i = 0; i < MAXTIMERS; i++)
		if (timers[i].used && timers[i].id == id)
			return &timers[i];
	return NULL;
}

static void op_tdelete(int id);

static void op_tcreate(void)
{
	clockid_t id = pick_clockid();
	int sevpc = chance(10) ? PC_NULL : pick_pc(90, true);
	int idpc = pick_pc(92, true);
	struct ksigevent sev, *sevp = ptr_of(sevpc, 0, RO_SEV);
	int *idp = ptr_of(idpc, 1, RO_TS);
	struct tlist l;
	eset a = { 0 };
	char cs[160];
	long r;
	int err;
	bool good;

	if (ntimers >= MAXTIMERS) {
		op_tdelete(pick_timer_id());
		return;
	}
	gen_sigevent(&sev);
	if (sevpc == PC_GOOD || sevpc == PC_MISALIGN)
		memcpy(sevp, &sev, sizeof(sev));
	else if (sevpc == PC_RO)
		memcpy(&sev, sevp, sizeof(sev));
	resolve(id, &l);
	for (int i = 0; i < l.n; i++)
		x_tcreate(&a, &l.t[i], sevpc,
			  sevpc == PC_NULL ? NULL : &sev, idpc);
	r = syscall(SYS_timer_create, id, sevp, idp);
	err = r < 0 ? errno : 0;
	good = judge(OP_TCREATE, err, &a);
	dclear();
	cid_str(cs, sizeof(cs), id);
	if (sevpc == PC_NULL || pc_bad_in(sevpc))
		dadd("timer_create(%s, %s sigevent, %s id)", cs,
		     pcname[sevpc], pcname[idpc]);
	else
		dadd("timer_create(%s, %s{notify %d, signo %d, tid %d}, %s id)",
		     cs, sevpc == PC_RO ? "read-only " : "", sev.sigev_notify,
		     sev.sigev_signo, sev.un._tid, pcname[idpc]);
	verdict(good, r, err, &a);
	/*
	 * The ABI document: "A bad pointer for an output argument is
	 * reported after the lookup ..., except by timer_create(), which
	 * stores the new timer's id before it looks the clock up": count
	 * the calls where the lookup would have failed.
	 */
	if (good && err == EFAULT && pc_bad_out(idpc) && env.clockdev &&
	    !(sevpc != PC_NULL && pc_bad_in(sevpc)) &&
	    (sevpc == PC_NULL || sev_valid(&sev)) && id < 0 && (id & 7) == CLOCKFD) {
		bool lookup_fails = true;

		for (int i = 0; i < l.n; i++)
			if (l.t[i].k == TK_CLOCK && l.t[i].live)
				lookup_fails = false;
		if (lookup_fails && !efault_before_lookup++)
			printf("# note: call %ld: %s = EFAULT: timer_create() copies the id out before it looks the clock up, as the ABI document says; counted\n",
			       ncall, desc);
	}
	if (err)
		return;
	if (pc_bad_out(idpc)) {
		/* Impossible (the id cannot have been copied out). */
		value_fail(OP_TCREATE, r, "succeeded with a %s id pointer",
			   pcname[idpc]);
		return;
	}
	/* The new timer: the model from the targets that allow success. */
	for (int i = 0; i < MAXTIMERS; i++) {
		struct ptm *t = &timers[i];
		eset one;

		if (t->used)
			continue;
		memset(t, 0, sizeof(*t));
		t->used = true;
		t->id = *idp;
		t->sid = -1;
		for (int j = 0; j < l.n; j++) {
			memset(&one, 0, sizeof(one));
			x_tcreate(&one, &l.t[j], sevpc,
				  sevpc == PC_NULL ? NULL : &sev, idpc);
			if (!ehas(&one, 0))
				continue;
			switch (l.t[j].k) {
			case TK_STATIC:
				t->kind = PT_STATIC;
				t->sid = l.t[j].id;
				break;
			case TK_CPU:
				t->kind = PT_CPU;
				t->may_vanish |= l.t[j].may_vanish;
				break;
			default:
				t->kind = PT_CLOCK;
				t->clkmask |= 1u << l.t[j].clk;
			}
		}
		t->may_signal = sevpc == PC_NULL ||
				(sevpc != PC_RO && sev.sigev_notify != SIGEV_NONE);
		ntimers++;
		for (int j = 0; j < MAXTIMERS; j++)
			if (j != i && timers[j].used && timers[j].id == t->id)
				value_fail(OP_TCREATE, r,
					   "timer id %d given twice", t->id);
		return;
	}
}

static void gen_itimerspec(struct itimerspec *its)
{
	int r = rnd(100);

	if (r < 20)
		its->it_value = (struct timespec){ 0, 0 };
	else if (r < 50)
		its->it_value = (struct timespec){ 0, 1000 + rnd(5000000) };
	else if (r < 62)
		its->it_value = (struct timespec){ rnd(1000), rnd(NSEC) };
	else if (r < 72)
		its->it_value = (struct timespec){ rnd(1u << 31) * 4LL,
						   rnd(NSEC) };
	else if (r < 80)
		its->it_value = (struct timespec){ 0, 1 };
	else
		its->it_value = (struct timespec){ pick_sec(), pick_nsec() };
	r = rnd(100);
	if (r < 50)
		its->it_interval = (struct timespec){ 0, 0 };
	else if (r < 75)
		its->it_interval = (struct timespec){ 0, 100000 + rnd(100000000) };
	else if (r < 78)
		its->it_interval = (struct timespec){ 0, 1 + rnd(1000) };
	else if (r < 90)
		its->it_interval = (struct timespec){ rnd(1000), rnd(NSEC) };
	else
		its->it_interval = (struct timespec){ pick_sec(), pick_nsec() };
}

static bool its_valid(const struct itimerspec *its)
{
	return ts_valid(&its->it_value) && ts_valid(&its->it_interval);
}

static void its_str(char *buf, size_t len, int pc, const struct itimerspec *its)
{
	if (pc == PC_GOOD || pc == PC_MISALIGN || pc == PC_RO)
		snprintf(buf, len, "%s{interval {%lld, %ld}, value {%lld, %ld}}",
			 pc == PC_RO ? "read-only " : "",
			 (long long)its->it_interval.tv_sec,
			 its->it_interval.tv_nsec,
			 (long long)its->it_value.tv_sec, its->it_value.tv_nsec);
	else
		snprintf(buf, len, "%s pointer", pcname[pc]);
}

static void check_itimerspec(enum op op, long r, const struct itimerspec *its,
			     bool iv_known, const struct timespec *iv)
{
	if (!ts_valid(&its->it_value) || !ts_valid(&its->it_interval))
		value_fail(op, r, "not normalized: {{%lld, %ld}, {%lld, %ld}}",
			   (long long)its->it_interval.tv_sec,
			   its->it_interval.tv_nsec,
			   (long long)its->it_value.tv_sec,
			   its->it_value.tv_nsec);
	else if (iv_known && (its->it_interval.tv_sec != iv->tv_sec ||
			      its->it_interval.tv_nsec != iv->tv_nsec))
		value_fail(op, r, "interval {%lld, %ld}, set {%lld, %ld}",
			   (long long)its->it_interval.tv_sec,
			   its->it_interval.tv_nsec, (long long)iv->tv_sec,
			   iv->tv_nsec);
}

static void op_tsettime(void)
{
	int tid = pick_timer_id();
	int flags = chance(50) ? 0 : chance(90) ? TIMER_ABSTIME : (int)rnd64();
	int newpc = chance(3) ? PC_NULL : pick_pc(92, true);
	int oldpc = chance(50) ? PC_NULL : pick_pc(85, true);
	struct itimerspec its, *np = ptr_of(newpc, 0, RO_ITS);
	struct itimerspec *op = ptr_of(oldpc, 1, RO_ITS);
	struct ptm *t = find_timer(tid);
	eset a = { 0 };
	char is[160];
	long r;
	int err;
	bool good;

	gen_itimerspec(&its);
	/*
	 * A timer that signals is re-armed when its signal is delivered:
	 * with a period of a few ns it expires again before the handler
	 * returns, and the process never runs again.  Not below 10 ms.
	 */
	if (t && t->may_signal && ts_valid(&its.it_interval) &&
	    !its.it_interval.tv_sec && its.it_interval.tv_nsec &&
	    its.it_interval.tv_nsec < 10000000)
		its.it_interval.tv_nsec = 10000000 + rnd(90000000);
	if (newpc == PC_GOOD || newpc == PC_MISALIGN)
		memcpy(np, &its, sizeof(its));
	else if (newpc == PC_RO)
		memcpy(&its, np, sizeof(its));
	if (newpc == PC_NULL)
		eadd(&a, EINVAL);
	else if (pc_bad_in(newpc))
		eadd(&a, EFAULT);
	else if (!its_valid(&its) || !t)
		eadd(&a, EINVAL);
	else {
		eset s = { 0 };

		if (t->kind == PT_CLOCK) {
			if (mask_may_live(t->clkmask))
				eadd(&s, 0);
			if (mask_may_gone(t->clkmask))
				eadd(&s, ENODEV);
		} else {
			eadd(&s, 0);
			if (t->kind == PT_CPU && t->may_vanish)
				eadd(&s, ESRCH);
		}
		if (ehas(&s, 0) && oldpc != PC_NULL && pc_bad_out(oldpc)) {
			edel(&s, 0);
			eadd(&s, EFAULT);
		}
		a = s;
	}
	r = syscall(SYS_timer_settime, tid, flags, np, op);
	err = r < 0 ? errno : 0;
	good = judge(OP_TSET, err, &a);
	dclear();
	its_str(is, sizeof(is), newpc, &its);
	dadd("timer_settime(%d%s, %#x, %s, %s)", tid, t ? "" : " (not ours)",
	     flags, is, oldpc == PC_NULL ? "NULL" : pcname[oldpc]);
	verdict(good, r, err, &a);
	/* Set (EFAULT here: only the old value could not be stored). */
	if (t && (!err || err == EFAULT) && its_valid(&its) &&
	    !pc_bad_in(newpc)) {
		struct timespec zero = { 0, 0 };

		t->iv_known = true;
		t->iv = its.it_value.tv_sec || its.it_value.tv_nsec ?
			ts_through_ktime(&its.it_interval) : zero;
	}
}

static void op_tgettime(void)
{
	int tid = pick_timer_id();
	int pc = pick_pc(88, true);
	struct itimerspec *p = ptr_of(pc, 0, RO_ITS);
	struct ptm *t = find_timer(tid);
	eset a = { 0 };
	long r;
	int err;
	bool good;

	if (!t) {
		eadd(&a, EINVAL);
	} else {
		if (t->kind != PT_CLOCK || mask_may_live(t->clkmask))
			eadd(&a, pc_bad_out(pc) ? EFAULT : 0);
		if (t->kind == PT_CLOCK && mask_may_gone(t->clkmask))
			eadd(&a, ENODEV);
	}
	if (pc == PC_GOOD)
		memset(p, 0x5a, sizeof(*p));
	r = syscall(SYS_timer_gettime, tid, p);
	err = r < 0 ? errno : 0;
	good = judge(OP_TGET, err, &a);
	dclear();
	dadd("timer_gettime(%d%s, %s)", tid, t ? "" : " (not ours)",
	     pcname[pc]);
	verdict(good, r, err, &a);
	if (good && !err && pc == PC_GOOD)
		check_itimerspec(OP_TGET, r, p,
				 t && t->iv_known && t->kind != PT_CPU,
				 t ? &t->iv : NULL);
}

static void op_tgetoverrun(void)
{
	int tid = pick_timer_id();
	struct ptm *t = find_timer(tid);
	eset a = { 0 };
	long r;
	int err;
	bool good;

	eadd(&a, t ? 0 : EINVAL);
	r = syscall(SYS_timer_getoverrun, tid);
	err = r < 0 ? errno : 0;
	good = judge(OP_TOVR, err, &a);
	dclear();
	dadd("timer_getoverrun(%d%s)", tid, t ? "" : " (not ours)");
	verdict(good, r, err, &a);
	if (good && !err && (r < 0 || r > INT_MAX))
		value_fail(OP_TOVR, r, "overrun count %ld", r);
}

static void op_tdelete(int tid)
{
	struct ptm *t = find_timer(tid);
	eset a = { 0 };
	long r;
	int err;
	bool good;

	eadd(&a, t ? 0 : EINVAL);
	r = syscall(SYS_timer_delete, tid);
	err = r < 0 ? errno : 0;
	good = judge(OP_TDEL, err, &a);
	dclear();
	dadd("timer_delete(%d%s)", tid, t ? "" : " (not ours)");
	verdict(good, r, err, &a);
	if (!err && t) {
		t->used = false;
		ntimers--;
		deleted_ids[ndeleted < 16 ? ndeleted++ : (int)rnd(16)] = tid;
	}
}

static void op_tfdcreate(void)
{
	static const int fdclocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC,
					CLOCK_BOOTTIME, CLOCK_REALTIME_ALARM,
					CLOCK_BOOTTIME_ALARM };
	int flags;
	clockid_t id;
	struct tlist l;
	eset a = { 0 };
	char cs[160];
	long r;
	int err, fd;
	bool good;

	if (nmain >= MAIN_MAX)
		return;
	/* Flags: none, TFD_NONBLOCK, TFD_CLOEXEC, both, or odd bits. */
	switch (rnd(8)) {
	case 0: flags = 0; break;
	case 1: case 2: flags = TFD_NONBLOCK; break;
	case 3: flags = TFD_CLOEXEC; break;
	case 4: case 5: flags = TFD_NONBLOCK | TFD_CLOEXEC; break;
	case 6: flags = TFD_NONBLOCK; break;
	default: flags = chance(50) ? 1 : (int)rnd64(); break;
	}
	if (chance(50))
		id = pick_clockid();
	else if (chance(40))
		id = fdclocks[rnd(ARRAY_SIZE(fdclocks))];
	else {
		fd = pick_fd_where(is_clockfd);
		id = fd >= 0 ? FD_TO_CLOCKID(fd) : CLOCK_MONOTONIC;
	}
	resolve(id, &l);
	for (int i = 0; i < l.n; i++)
		x_tfdcreate(&a, &l.t[i], flags);
	r = syscall(SYS_timerfd_create, id, flags);
	err = r < 0 ? errno : 0;
	good = judge(OP_TFDCREATE, err, &a);
	dclear();
	cid_str(cs, sizeof(cs), id);
	dadd("timerfd_create(%s, %#x)", cs, flags);
	verdict(good, r, err, &a);
	if (err)
		return;
	fd = (int)r;
	if (fd >= INFRA_BASE) {
		value_fail(OP_TFDCREATE, r, "descriptor %d above %d", fd,
			   INFRA_BASE);
		close(fd);
		return;
	}
	{
		int m = tfd_new();
		struct fdent e = { .kind = F_TIMERFD, .acc = ACC_R | ACC_W,
				   .tfd = (int16_t)m };

		if (m < 0) {
			close(fd);
			return;
		}
		tfds[m].nonblock = flags & TFD_NONBLOCK;
		for (int i = 0; i < l.n; i++) {
			eset one = { 0 };

			x_tfdcreate(&one, &l.t[i], flags);
			if (!ehas(&one, 0))
				continue;
			if (l.t[i].k == TK_STATIC)
				tfds[m].sid = l.t[i].id;
			else if (l.t[i].k == TK_CLOCK)
				tfds[m].clkmask |= 1u << l.t[i].clk;
		}
		tfds[m].steps0 = mask_steps(tfds[m].clkmask);
		fdt_set(fd, e);
	}
}

/* The possibilities of a descriptor, for the calls on descriptors. */
struct fdposs { struct fdent e; bool live; };
struct fdlist { int n; struct fdposs p[48]; };

static void fpadd(struct fdlist *l, const struct fdent *e)
{
	unsigned mask = 0;

	if (e->kind == F_CLOCK)
		mask = 1u << e->clk;
	else if (e->kind == F_TIMERFD && e->tfd >= 0)
		mask = tfds[e->tfd].clkmask;
	if (!mask || mask_may_live(mask))
		if (l->n < 48)
			l->p[l->n++] = (struct fdposs){ *e, true };
	if (mask && mask_may_gone(mask))
		if (l->n < 48)
			l->p[l->n++] = (struct fdposs){ *e, false };
}

static void resolve_fd(int fd, struct fdlist *l)
{
	static const struct fdent closed = { .kind = F_CLOSED, .tfd = -1 };

	l->n = 0;
	if (fd < 0 || fd >= NFD) {
		fpadd(l, &closed);
		return;
	}
	switch (fdt[fd].kind) {
	case F_RACY:
		fpadd(l, &closed);
		/* fall through */
	case F_ANYSRC:
		for (int i = 0; i < nrsrc; i++)
			fpadd(l, &rsrc[i].e);
		break;
	default:
		fpadd(l, &fdt[fd]);
	}
}

static void fd_str(char *buf, size_t len, int fd)
{
	const struct fdent *e = fd >= 0 && fd < NFD ? &fdt[fd] : NULL;

	if (!e)
		snprintf(buf, len, "%d (never opened)", fd);
	else if (e->kind == F_CLOCK)
		snprintf(buf, len, "%d (%s %s%s)", fd, clocks[e->clk].name,
			 e->acc == (ACC_R | ACC_W) ? "O_RDWR" :
			 e->acc == ACC_W ? "O_WRONLY" : "O_RDONLY",
			 clocks[e->clk].snap == CS_LIVE ? "" :
			 clocks[e->clk].snap == CS_REMOVED ? ", removed" :
			 ", being removed");
	else if (e->kind == F_TIMERFD && e->tfd >= 0)
		snprintf(buf, len, "%d (timerfd on %s%s%s)", fd,
			 tfds[e->tfd].sid >= 0 ? "a static clock" : "a dynamic clock",
			 tfds[e->tfd].nonblock ? ", O_NONBLOCK" : "",
			 tfds[e->tfd].clkmask && !mask_may_live(tfds[e->tfd].clkmask) ?
			 ", clock removed" : "");
	else
		snprintf(buf, len, "%d (%s)", fd, fkname[e->kind]);
}

static bool tfd_wakes(const struct tfdm *m)
{
	return (m->sid >= 0 && is_alarm(m->sid) && !env.cap_wake) ||
	       mask_wakes(m->clkmask);
}

static void op_tfdsettime(void)
{
	int fd = pick_any_fd(70);
	int flags = 0, newpc = pick_pc(92, true), oldpc;
	struct itimerspec its, *np = ptr_of(newpc, 0, RO_ITS), *op;
	struct fdlist l;
	eset a = { 0 };
	char fs[160], is[160];
	long r;
	int err;
	bool good;

	oldpc = chance(50) ? PC_NULL : pick_pc(85, true);
	op = ptr_of(oldpc, 1, RO_ITS);
	switch (rnd(10)) {
	case 0: case 1: case 2: flags = 0; break;
	case 3: case 4: case 5: flags = TFD_TIMER_ABSTIME; break;
	case 6: case 7: flags = TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET; break;
	case 8: flags = TFD_TIMER_CANCEL_ON_SET; break;
	default: flags = (int)rnd64(); break;
	}
	gen_itimerspec(&its);
	if (newpc == PC_GOOD || newpc == PC_MISALIGN)
		memcpy(np, &its, sizeof(its));
	else if (newpc == PC_RO)
		memcpy(&its, np, sizeof(its));
	resolve_fd(fd, &l);
	if (pc_bad_in(newpc))
		eadd(&a, EFAULT);
	else if (flags & ~(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET))
		eadd(&a, EINVAL);
	else if (!its_valid(&its))
		eadd(&a, EINVAL);
	else
		for (int i = 0; i < l.n; i++) {
			const struct fdposs *p = &l.p[i];
			const struct tfdm *m;

			if (p->e.kind == F_CLOSED || p->e.kind == F_OPATH) {
				eadd(&a, EBADF);
				continue;
			}
			if (p->e.kind != F_TIMERFD) {
				eadd(&a, EINVAL);
				continue;
			}
			m = &tfds[p->e.tfd];
			if (tfd_wakes(m))
				eadd(&a, EPERM);
			else if (!p->live)
				eadd(&a, ENODEV);
			else
				eadd(&a, oldpc != PC_NULL && pc_bad_out(oldpc) ?
					 EFAULT : 0);
		}
	r = syscall(SYS_timerfd_settime, fd, flags, np, op);
	err = r < 0 ? errno : 0;
	good = judge(OP_TFDSET, err, &a);
	dclear();
	fd_str(fs, sizeof(fs), fd);
	its_str(is, sizeof(is), newpc, &its);
	dadd("timerfd_settime(%s, %#x, %s, %s)", fs, flags, is,
	     oldpc == PC_NULL ? "NULL" : pcname[oldpc]);
	verdict(good, r, err, &a);
	if ((!err || err == EFAULT || err == ENODEV) && fd >= 0 && fd < NFD &&
	    fdt[fd].kind == F_TIMERFD && its_valid(&its) &&
	    !pc_bad_in(newpc)) {
		struct tfdm *m = &tfds[fdt[fd].tfd];

		/* ENODEV: the interval was stored, nothing reads it back. */
		m->iv_known = err != ENODEV && !m->shared;
		m->iv = ts_through_ktime(&its.it_interval);
		m->cancel = (flags & TFD_TIMER_ABSTIME) &&
			    (flags & TFD_TIMER_CANCEL_ON_SET);
	}
}

static void op_tfdgettime(void)
{
	int fd = pick_any_fd(75);
	int pc = pick_pc(88, true);
	struct itimerspec *p = ptr_of(pc, 0, RO_ITS);
	struct fdlist l;
	eset a = { 0 };
	char fs[160];
	const struct tfdm *m = NULL;
	long r;
	int err;
	bool good;

	resolve_fd(fd, &l);
	for (int i = 0; i < l.n; i++) {
		const struct fdposs *q = &l.p[i];

		if (q->e.kind == F_CLOSED || q->e.kind == F_OPATH)
			eadd(&a, EBADF);
		else if (q->e.kind != F_TIMERFD)
			eadd(&a, EINVAL);
		else if (!q->live)
			eadd(&a, ENODEV);
		else
			eadd(&a, pc_bad_out(pc) ? EFAULT : 0);
	}
	if (pc == PC_GOOD)
		memset(p, 0x5a, sizeof(*p));
	r = syscall(SYS_timerfd_gettime, fd, p);
	err = r < 0 ? errno : 0;
	good = judge(OP_TFDGET, err, &a);
	dclear();
	fd_str(fs, sizeof(fs), fd);
	dadd("timerfd_gettime(%s, %s)", fs, pcname[pc]);
	verdict(good, r, err, &a);
	if (fd >= 0 && fd < NFD && fdt[fd].kind == F_TIMERFD)
		m = &tfds[fdt[fd].tfd];
	if (good && !err && pc == PC_GOOD)
		check_itimerspec(OP_TFDGET, r, p, m && m->iv_known,
				 m ? &m->iv : NULL);
}

static void op_read(void)
{
	static const size_t counts[] = { 8, 8, 8, 16, 32, 32, 64, 0, 1, 7,
					 33, 4096, 1 << 20 };
	int fd, pc = pick_pc(85, true);
	size_t count = counts[rnd(ARRAY_SIZE(counts))];
	void *buf = ptr_of(pc, 0, RO_TS);
	struct fdlist l;
	eset a = { 0 };
	char fs[160];
	long r;
	int err;
	bool good, block = false;

	do
		fd = pick_any_fd(55);
	while (fd < NFD && (fdt[fd].kind == F_PIPE_R ||
			    fdt[fd].kind == F_SOCK || fdt[fd].kind == F_EVENTFD ||
			    fdt[fd].kind == F_DIR || fdt[fd].kind == F_FILE ||
			    fdt[fd].kind == F_PIPE_W || fdt[fd].kind == F_NULL));
	if (count > 4096 && (pc == PC_GOOD || pc == PC_MISALIGN))
		count = 4096;
	resolve_fd(fd, &l);
	for (int i = 0; i < l.n; i++) {
		const struct fdposs *q = &l.p[i];
		/* Two bytes fit before the unmapped page. */
		bool bad = pc_bad_out(pc) && !(pc == PC_STRADDLE && count <= 2);

		if (q->e.kind == F_CLOSED || q->e.kind == F_OPATH ||
		    !(q->e.acc & ACC_R)) {
			eadd(&a, EBADF);
		} else if (pc == PC_KERNEL) {
			eadd(&a, EFAULT);
		} else if (q->e.kind == F_CLOCK) {
			if (!q->live) {
				eadd(&a, ENODEV);
			} else if (clocks[q->e.clk].kind == CK_RTC ||
				   count % PTP_EVENT_SIZE) {
				eadd(&a, EINVAL);
			} else {
				/* Waits for external timestamps. */
				block = true;
				eadd(&a, EINTR);
				eadd(&a, bad && count ? EFAULT : 0);
			}
		} else if (q->e.kind == F_TIMERFD) {
			const struct tfdm *m = &tfds[q->e.tfd];

			if (count < 8) {
				eadd(&a, EINVAL);
				continue;
			}
			if (!q->live) {
				eadd(&a, ENODEV);
				continue;
			}
			eadd(&a, bad ? EFAULT : 0);
			/*
			 * Linux since 6.6 (timerfd_read_iter(): copy_to_iter())
			 * returns the bytes it could copy: 2 of the 8.
			 */
			if (pc == PC_STRADDLE)
				eadd(&a, 0);
			if (m->nonblock || m->shared) {
				eadd(&a, EAGAIN);
			}
			if (!m->nonblock || m->shared) {
				block = true;
				eadd(&a, EINTR);
			}
			if (m->cancel && (m->sid == CLOCK_REALTIME ||
					  m->sid == CLOCK_REALTIME_ALARM ||
					  mask_steps(m->clkmask) != m->steps0))
				eadd(&a, ECANCELED);
		} else {
			/* The racer's pipe has no writer: end of file. */
			eadd(&a, 0);
		}
	}
	if (block)
		watchdog_arm();
	r = read(fd, buf, count);
	err = r < 0 ? errno : 0;
	if (block)
		watchdog_disarm();
	good = judge(OP_READ, err, &a);
	dclear();
	fd_str(fs, sizeof(fs), fd);
	dadd("read(%s, %s buffer, %zu)", fs, pcname[pc], count);
	verdict(good, r, err, &a);
	if (!good || err || fd >= NFD)
		return;
	if (fdt[fd].kind == F_TIMERFD && pc == PC_STRADDLE && r == 2) {
		if (!short_timerfd_read++)
			printf("# note: call %ld: %s = 2: a timerfd read into a buffer with 2 writable bytes returns 2 (Linux >= 6.6 copy_to_iter(), not EFAULT); allowed\n",
			       ncall, desc);
		return;
	}
	if (fdt[fd].kind == F_TIMERFD &&
	    (r != 8 || (pc == PC_GOOD && *(uint64_t *)buf == 0)))
		value_fail(OP_READ, r, "a timerfd read %ld bytes, %" PRIu64
			   " expirations", r, pc == PC_GOOD ? *(uint64_t *)buf : 0);
	if (fdt[fd].kind == F_CLOCK && (r % PTP_EVENT_SIZE || (size_t)r > count))
		value_fail(OP_READ, r, "a clock read %ld bytes of %zu", r,
			   count);
}

/* Is @rev a poll result the possibility @p allows, for @events? */
static bool rev_ok(const struct fdposs *p, short events, short rev)
{
	short req = 0, allowed;

	switch (p->e.kind) {
	case F_CLOSED:
	case F_OPATH:
		return rev == POLLNVAL;
	case F_CLOCK:
		if (!p->live) {
			req = env.clockdev ? POLLERR | POLLHUP : POLLERR;
			allowed = req;
		} else {
			allowed = clocks[p->e.clk].kind == CK_RTC ? 0 : POLLIN;
		}
		break;
	case F_TIMERFD:
		if (!p->live) {
			req = POLLERR | POLLHUP;
			allowed = req | POLLIN;
		} else {
			allowed = POLLIN;
		}
		break;
	default:
		return !(rev & POLLNVAL);
	}
	allowed &= events | POLLERR | POLLHUP;
	return (rev & req) == req && !(rev & ~allowed);
}

static void op_poll(void)
{
	static const short evs[] = { POLLIN, POLLIN | POLLPRI, POLLOUT,
				     POLLIN | POLLOUT, 0 };
	struct pollfd *pfd = (struct pollfd *)(rw_page + 2048);
	static const int badpc[] = { PC_NULL, PC_NONE, PC_RO, PC_STRADDLE,
				     PC_KERNEL };
	int n = 1 + rnd(4), pc = chance(95) ? PC_GOOD : badpc[rnd(5)];
	int timeout = chance(85) ? 0 : 1;
	struct fdlist ls[4];
	eset a = { 0 };
	char fs[160];
	long r;
	int err;
	bool good;

	for (int i = 0; i < n; i++) {
		int fd = chance(5) ? -1 : pick_any_fd(30);

		pfd[i] = (struct pollfd){ .fd = fd,
					  .events = evs[rnd(ARRAY_SIZE(evs))] };
		if (fd >= 0)
			resolve_fd(fd, &ls[i]);
	}
	if (pc != PC_GOOD) {
		eadd(&a, EFAULT);
	} else {
		/*
		 * do_poll(): with nothing ready, a pending signal (a timer's)
		 * ends it with EINTR even with a timeout of 0.
		 */
		eadd(&a, 0);
		eadd(&a, EINTR);
	}
	if (timeout)
		watchdog_arm();
	r = syscall(SYS_poll, pc == PC_GOOD ? (void *)pfd : ptr_of(pc, 0, 0),
		    n, timeout);
	err = r < 0 ? errno : 0;
	if (timeout)
		watchdog_disarm();
	good = judge(OP_POLL, err, &a);
	dclear();
	dadd("poll([");
	for (int i = 0; i < n; i++) {
		if (pfd[i].fd < 0)
			snprintf(fs, sizeof(fs), "-1");
		else
			fd_str(fs, sizeof(fs), pfd[i].fd);
		dadd("%s{%s, events %#x, revents %#x}", i ? ", " : "", fs,
		     pfd[i].events, pc == PC_GOOD ? pfd[i].revents : 0);
	}
	dadd("], %d, %d)%s", n, timeout, pc == PC_GOOD ? "" : " on a bad pointer");
	verdict(good, r, err, &a);
	if (!good || err)
		return;
	{
		int nz = 0;

		for (int i = 0; i < n; i++) {
			bool ok = false;

			if (pfd[i].revents)
				nz++;
			if (pfd[i].fd < 0) {
				ok = !pfd[i].revents;
			} else {
				for (int j = 0; j < ls[i].n && !ok; j++)
					ok = rev_ok(&ls[i].p[j], pfd[i].events,
						    pfd[i].revents);
			}
			if (!ok) {
				value_fail(OP_POLL, r, "entry %d: revents %#x",
					   i, pfd[i].revents);
				return;
			}
		}
		if (nz != r)
			value_fail(OP_POLL, r, "%d entries with events", nz);
	}
}

static void op_close(void)
{
	int fd, r0;
	struct fdlist l;
	eset a = { 0 };
	char fs[160];
	long r;
	int err;
	bool good;

	r0 = rnd(100);
	if (r0 < 80 || nmain > MAIN_MAX - 10)
		fd = pick_fd_where(is_mainfd);
	else if (r0 < 90)
		fd = closed_number();
	else
		fd = RACY_BASE + rnd(NRACY);
	if (fd < 0)
		fd = closed_number();
	resolve_fd(fd, &l);
	for (int i = 0; i < l.n; i++)
		eadd(&a, l.p[i].e.kind == F_CLOSED ? EBADF : 0);
	dclear();
	fd_str(fs, sizeof(fs), fd);
	dadd("close(%s)", fs);
	r = close(fd);
	err = r < 0 ? errno : 0;
	good = judge(OP_CLOSE, err, &a);
	verdict(good, r, err, &a);
	if (!err && fd < NFD && fdt[fd].kind != F_RACY)
		fdt_close(fd);
}

static void op_dup(void)
{
	int fd, how = rnd(10), target = -1, flags = 0;
	struct fdlist l;
	struct fdent e;
	eset a = { 0 };
	char fs[160];
	long r;
	int err;
	bool good, any_open = false, any_closed = false;

	if (nmain >= MAIN_MAX - 2) {
		op_close();
		return;
	}
	fd = chance(85) ? pick_fd_where(is_mainfd) :
	     chance(50) ? RACY_BASE + (int)rnd(NRACY) : closed_number();
	if (fd < 0)
		fd = closed_number();
	resolve_fd(fd, &l);
	for (int i = 0; i < l.n; i++) {
		if (l.p[i].e.kind == F_CLOSED)
			any_closed = true;
		else
			any_open = true;
	}
	if (how >= 7) {
		target = chance(70) ? pick_fd_where(is_closedfd) :
			 pick_fd_where(is_mainfd);
		if (target < 0)
			target = pick_fd_where(is_closedfd);
		if (chance(10))
			target = fd < INFRA_BASE ? fd : target;
		if (how == 9)
			flags = chance(80) ? O_CLOEXEC : (int)rnd64();
		if (target < 0)
			how = 0;
	}
	if (how == 9 && ((flags & ~O_CLOEXEC) || target == fd)) {
		eadd(&a, EINVAL);
	} else {
		if (any_closed)
			eadd(&a, EBADF);
		if (any_open)
			eadd(&a, 0);
	}
	dclear();
	fd_str(fs, sizeof(fs), fd);
	if (how < 7) {
		dadd("dup(%s)", fs);
		r = dup(fd);
	} else if (how < 9) {
		dadd("dup2(%s, %d)", fs, target);
		r = dup2(fd, target);
	} else {
		dadd("dup3(%s, %d, %#x)", fs, target, flags);
		r = dup3(fd, target, flags);
	}
	err = r < 0 ? errno : 0;
	good = judge(OP_DUP, err, &a);
	verdict(good, r, err, &a);
	if (err)
		return;
	if (r < 0 || r >= INFRA_BASE || (target >= 0 && r != target)) {
		value_fail(OP_DUP, r, "new descriptor %ld", r);
		if (r >= INFRA_BASE && r != fd)
			close((int)r);
		return;
	}
	if (r == fd)
		return;
	if (fd < NFD && fdt[fd].kind != F_RACY && fdt[fd].kind != F_ANYSRC) {
		e = fdt[fd];
		if (e.kind == F_INFRA || e.kind == F_RSRC || e.kind == F_STD)
			e.kind = F_PIPE_W;	/* harmless stand-in */
	} else {
		e = (struct fdent){ .kind = F_ANYSRC, .tfd = -1 };
	}
	fdt_set((int)r, e);
}

static void op_open(void)
{
	static const int modes[] = { O_RDWR, O_RDONLY, O_WRONLY, O_PATH };
	eset a = { 0 };
	long r;
	int err, mode = 0, c = -1, what = rnd(100), acc = 0;
	const char *path;
	bool good;

	if (nmain >= MAIN_MAX - 2) {
		op_close();
		return;
	}
	if (what < 75 && nclocks) {
		c = rnd(nclocks);
		path = clocks[c].path;
		mode = modes[rnd(4)];
		if (clocks[c].ro && mode != O_PATH)
			mode = O_RDONLY;
		acc = mode == O_RDWR ? ACC_R | ACC_W : mode == O_WRONLY ?
		      ACC_W : mode == O_RDONLY ? ACC_R : 0;
		if (may_live(c)) {
			if (((acc & ACC_R) && !clocks[c].can_r) ||
			    ((acc & ACC_W) && !clocks[c].can_w))
				eadd(&a, EACCES);
			else
				eadd(&a, 0);
		}
		if (may_gone(c)) {
			eadd(&a, ENOENT);
			if (may_live(c)) {
				eadd(&a, ENODEV);
				eadd(&a, ENXIO);
			}
		}
	} else if (what < 85) {
		path = "/dev/null";
		mode = O_RDWR;
		eadd(&a, 0);
	} else {
		path = "/";
		mode = O_RDONLY | O_DIRECTORY;
		eadd(&a, 0);
	}
	r = open(path, mode | O_CLOEXEC);
	err = r < 0 ? errno : 0;
	good = judge(OP_OPEN, err, &a);
	dclear();
	dadd("open(%s, %#x)", path, mode);
	verdict(good, r, err, &a);
	if (err)
		return;
	if (r >= INFRA_BASE) {
		value_fail(OP_OPEN, r, "descriptor %ld", r);
		close((int)r);
		return;
	}
	if (c >= 0 && mode == O_PATH)
		fdt_set((int)r, (struct fdent){ .kind = F_OPATH, .tfd = -1 });
	else if (c >= 0)
		fdt_set((int)r, (struct fdent){ .kind = F_CLOCK, .acc = (uint8_t)acc,
					       .clk = (int8_t)c, .tfd = -1 });
	else if (mode & O_DIRECTORY)
		fdt_set((int)r, (struct fdent){ .kind = F_DIR, .acc = ACC_R,
					       .tfd = -1 });
	else
		fdt_set((int)r, (struct fdent){ .kind = F_NULL,
					       .acc = ACC_R | ACC_W, .tfd = -1 });
}

/*
 * "Armed timers are disarmed and never fire afterwards": a signal of a
 * timer whose clocks were all removed before the call before last (a
 * signal queued just before the removal is delivered at the next return
 * to user space) is a failure.
 */
static void check_signals(void)
{
	while (sigtail != atomic_load(&sighead)) {
		int id = sigring[sigtail++ % SIGRING];
		struct ptm *t = find_timer(id);
		bool gone = t && t->kind == PT_CLOCK && t->clkmask;

		for (int c = 0; gone && c < nclocks; c++)
			if ((t->clkmask >> c & 1) &&
			    (clocks[c].snap != CS_REMOVED ||
			     ncall <= removed_call[c] + 2))
				gone = false;
		if (gone) {
			dclear();
			dadd("signal of timer %d, whose clock was removed (seen at call %ld)",
			     id, removed_call[__builtin_ctz(t->clkmask)]);
			value_fail(OP_TSET, 0, "a timer fired after its clock was removed");
		}
	}
}

/* ------------------------------------------------------------------ */
/* The other actors: racer thread, remover process, child process.     */

static int req_wr = -1, resp_rd = -1, child_ctl = -1;

/*
 * Made before dropping to --user, with CAP_WAKE_ALARM: timerfds and POSIX
 * timers on clocks whose timers wake the system.  The capability is
 * checked again when such a timerfd is armed, not when the timer is.
 */
struct predrop { int fd; int tid; int clk; int sid; };
static struct predrop pre[MAXCLK + 1];
static int npre;

static void make_predrop(void)
{
	struct ksigevent sev = { .sigev_notify = SIGEV_NONE };

	for (int c = 0; c <= nclocks && npre < MAXCLK + 1; c++) {
		struct predrop *p = &pre[npre];
		clockid_t id;
		int cfd = -1;

		*p = (struct predrop){ .fd = -1, .tid = -1, .clk = -1, .sid = -1 };
		if (c < nclocks) {
			if (!clocks[c].wakes || clocks[c].victim)
				continue;
			cfd = open(clocks[c].path, O_RDONLY | O_CLOEXEC);
			if (cfd < 0)
				continue;
			id = FD_TO_CLOCKID(cfd);
			p->clk = c;
		} else {
			id = CLOCK_BOOTTIME_ALARM;
			p->sid = id;
		}
		p->fd = timerfd_create(id, TFD_NONBLOCK | TFD_CLOEXEC);
		if (syscall(SYS_timer_create, id, &sev, &p->tid))
			p->tid = -1;
		if (cfd >= 0)
			close(cfd);
		if (p->fd >= 0 || p->tid >= 0)
			npre++;
	}
}

/* Enter them in the tables (after setup_fds(), which clears them). */
static void register_predrop(void)
{
	for (int i = 0; i < npre; i++) {
		struct predrop *p = &pre[i];
		unsigned mask = p->clk >= 0 ? 1u << p->clk : 0;

		if (p->fd >= 0 && p->fd < INFRA_BASE) {
			int m = tfd_new();

			tfds[m].sid = p->sid;
			tfds[m].clkmask = mask;
			tfds[m].nonblock = true;
			fdt_set(p->fd, (struct fdent){ .kind = F_TIMERFD,
						       .acc = ACC_R | ACC_W,
						       .tfd = (int16_t)m });
		}
		if (p->tid >= 0 && ntimers < MAXTIMERS) {
			struct ptm *t = &timers[ntimers++];

			*t = (struct ptm){ .used = true, .id = p->tid,
					   .kind = mask ? PT_CLOCK : PT_STATIC,
					   .sid = p->sid, .clkmask = mask };
		}
	}
	if (npre)
		printf("# made with CAP_WAKE_ALARM before dropping it: a timerfd and a timer on %d clock%s whose timers wake the system\n",
		       npre, npre == 1 ? "" : "s");
}

static void *racer(void *arg)
{
	struct rng rr;
	struct timespec nap = { 0, 150000 };
	long last = -1;
	int64_t prev = mono_ns(), now, stuck = 0;
	bool reported = false;
	sigset_t all;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	rng_seed(&rr, opt.seed ^ 0x5eed5eedULL);
	__atomic_store_n(&env.racer_tid, (pid_t)syscall(SYS_gettid),
			 __ATOMIC_RELEASE);
	while (!atomic_load(&stop_threads)) {
		int slot = RACY_BASE + (int)(rng_next(&rr) % NRACY);

		if (rng_next(&rr) % 4 == 0)
			close(slot);
		else
			dup2(rsrc[rng_next(&rr) % nrsrc].fd, slot);
		clock_nanosleep(CLOCK_MONOTONIC, 0, &nap, NULL);
		/*
		 * A call that does not return: interrupt it (a sleep may not
		 * have been), ten times a second after 5 s; after 30 s it
		 * fails the run.  Counted is only the time this thread ran on
		 * time itself, each nap up to 50 ms late: on a host that
		 * leaves the guest without CPU for seconds (seen under TCG
		 * beside busy guests), no call progresses and neither does
		 * this thread, which is no hang of the call.
		 */
		now = mono_ns();
		stuck += now - prev < nap.tv_nsec + 50000000 ?
			 now - prev : nap.tv_nsec + 50000000;
		prev = now;
		if (atomic_load(&progress) != last) {
			last = atomic_load(&progress);
			stuck = 0;
			reported = false;
			nap.tv_nsec = 150000;
			continue;
		}
		if (stuck > 5 * NSEC) {
			if (nap.tv_nsec != 100000000) {
				int op = atomic_load(&current_op);

				printf("# note: call %ld (%s) made no progress for 5 s: interrupted with SIGALRM\n",
				       last + 1, op >= 0 ? opname[op] : "?");
			}
			syscall(SYS_tgkill, env.pid, env.pid, SIGALRM);
			atomic_fetch_add(&kicks, 1);
			nap.tv_nsec = 100000000;
		}
		if (stuck > 30 * NSEC && !reported) {
			int op = atomic_load(&current_op);

			printf("FAIL seed %" PRIu64 " call %ld: %s has not returned for 30 s\n",
			       opt.seed, last + 1, op >= 0 ? opname[op] : "?");
			atomic_fetch_add(&hung, 1);
			reported = true;
		}
	}
	return NULL;
}

static void *remover_listener(void *arg)
{
	int msg[2];
	sigset_t all;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	while (read(resp_rd, msg, sizeof(msg)) == sizeof(msg)) {
		if (msg[0] < 0 || msg[0] >= nclocks)
			continue;
		if (msg[1])
			atomic_store(&clocks[msg[0]].rm_status, msg[1]);
		else
			atomic_store(&clocks[msg[0]].state, CS_REMOVED);
	}
	return NULL;
}

/* The remover: keeps the credentials the program started with. */
static void remover_main(int rd, int wr)
{
	int idx, msg[2];

	while (read(rd, &idx, sizeof(idx)) == sizeof(idx)) {
		struct clock *c = &clocks[idx];
		int st = 0;

		if (c->del_file) {
			int fd = open(c->del_file, O_WRONLY);

			if (fd < 0 || write(fd, c->del_value,
					    strlen(c->del_value)) < 0)
				st = errno;
			if (fd >= 0)
				close(fd);
		} else if (c->cmd) {
			pid_t p = fork();

			if (p == 0) {
				execl("/bin/sh", "sh", "-c", c->cmd, (char *)NULL);
				_exit(127);
			}
			if (p < 0 || waitpid(p, &st, 0) < 0)
				st = errno ? errno : 1;
			else
				st = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
		}
		msg[0] = idx;
		msg[1] = st;
		if (write(wr, msg, sizeof(msg)) != sizeof(msg))
			break;
	}
	_exit(0);
}

/*
 * The child: timers of another process (on CLOCK_MONOTONIC and on every
 * clock), whose descriptors it then closes; it lives until told to go.
 */
static void child_main(int ctl, int idw, const int *cfds, int ncfds)
{
	struct ksigevent sev = { .sigev_notify = SIGEV_NONE };
	struct itimerspec its = { .it_value = { 1000, 0 } };
	int ids[32], n = 0, id;
	char c;

	for (int i = 0; i < 4 && n < 32; i++)
		if (!syscall(SYS_timer_create, CLOCK_MONOTONIC, &sev, &id)) {
			syscall(SYS_timer_settime, id, 0, &its, NULL);
			ids[n++] = id;
		}
	for (int i = 0; i < ncfds && n < 32; i++)
		if (!syscall(SYS_timer_create, FD_TO_CLOCKID(cfds[i]), &sev, &id)) {
			syscall(SYS_timer_settime, id, 0, &its, NULL);
			ids[n++] = id;
		}
	for (int fd = 3; fd < NFD + 64; fd++)
		if (fd != ctl && fd != idw)
			close(fd);
	if (write(idw, ids, n * sizeof(int)) < 0)
		_exit(1);
	close(idw);
	while (read(ctl, &c, 1) > 0)
		;
	_exit(0);
}

/* ------------------------------------------------------------------ */
/* Setup.                                                              */

static void die(const char *fmt, ...)
{
	va_list ap;

	printf("not ok - abi_fuzz: setup: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(2);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: abi_fuzz [--seed N] [--calls N] [--user UID[:GID]] [--abi auto|clockdev|mainline]\n"
		"                [--max-seconds N] [--max-report N] [--trace FROM]\n"
		"                [--clock PATH]... [--ro-clock PATH]...\n"
		"                [--victim PATH (--del FILE:VALUE | --remove-cmd CMD) [--remove-at N]]...\n");
	exit(2);
}

static struct clock *add_clock(const char *path)
{
	struct clock *c;

	if (nclocks >= MAXCLK)
		die("at most %d clocks", MAXCLK);
	c = &clocks[nclocks++];
	c->path = path;
	c->remove_at = -1;
	c->ofd = -1;
	return c;
}

static void parse(int argc, char **argv)
{
	struct clock *last = NULL;
	bool seeded = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			usage();
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--seed")) {
			opt.seed = strtoull(v, NULL, 0);
			seeded = true;
		} else if (!strcmp(a, "--calls")) {
			opt.calls = strtol(v, NULL, 0);
		} else if (!strcmp(a, "--max-seconds")) {
			opt.max_seconds = strtol(v, NULL, 0);
		} else if (!strcmp(a, "--max-report")) {
			opt.max_report = strtol(v, NULL, 0);
		} else if (!strcmp(a, "--trace")) {
			opt.trace_from = strtol(v, NULL, 0);
		} else if (!strcmp(a, "--abi")) {
			opt.abi = !strcmp(v, "clockdev") ? 1 :
				  !strcmp(v, "mainline") ? 2 : 0;
		} else if (!strcmp(a, "--user")) {
			char *end;

			opt.drop = true;
			opt.uid = (uid_t)strtoul(v, &end, 0);
			opt.gid = *end == ':' ? (gid_t)strtoul(end + 1, NULL, 0) :
						(gid_t)opt.uid;
		} else if (!strcmp(a, "--clock")) {
			last = add_clock(v);
		} else if (!strcmp(a, "--ro-clock")) {
			last = add_clock(v);
			last->ro = true;
		} else if (!strcmp(a, "--victim")) {
			last = add_clock(v);
			last->victim = true;
		} else if (!strcmp(a, "--del") || !strcmp(a, "--remove-cmd") ||
			   !strcmp(a, "--remove-at")) {
			if (!last || !last->victim)
				die("%s must follow --victim", a);
			if (!strcmp(a, "--remove-at")) {
				last->remove_at = strtol(v, NULL, 0);
			} else if (!strcmp(a, "--remove-cmd")) {
				last->cmd = v;
			} else {
				char *colon = strrchr(v, ':');

				if (!colon)
					die("--del FILE:VALUE");
				*colon = 0;
				last->del_file = v;
				last->del_value = colon + 1;
			}
		} else {
			usage();
		}
	}
	if (!seeded) {
		if (getrandom(&opt.seed, sizeof(opt.seed), 0) != sizeof(opt.seed))
			opt.seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
		opt.seed &= (1ULL << 53) - 1;	/* shell-friendly */
	}
	for (int i = 0; i < nclocks; i++)
		if (clocks[i].victim && !clocks[i].cmd && !clocks[i].del_file)
			die("victim %s: no --del or --remove-cmd", clocks[i].path);
}

static bool read_long(const char *path, long long *v)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fscanf(f, "%lld", v) == 1;
	fclose(f);
	return ok;
}

static void read_str(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = 0;
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

/* Move descriptor @fd to the first free number >= @base. */
static int move_fd(int fd, int base)
{
	int n;

	if (fd < 0)
		return fd;
	n = fcntl(fd, F_DUPFD_CLOEXEC, base);
	close(fd);
	return n;
}

static void describe_clock(struct clock *c)
{
	const char *base = strrchr(c->path, '/') ? strrchr(c->path, '/') + 1 :
			   c->path;
	char p[256];
	long long v;

	c->max_adj = -1;
	if (!strncmp(base, "rtcclock", 8)) {
		c->kind = CK_RTC;
		snprintf(c->name, sizeof(c->name), "RTC clock %s", base);
		snprintf(p, sizeof(p), "/sys/class/rtc_clock/%s/power/wakeup",
			 base);
		c->wakes = access(p, F_OK) == 0;
		return;
	}
	snprintf(p, sizeof(p), "/sys/class/ptp/%s/clock_name", base);
	read_str(p, c->name, sizeof(c->name));
	c->kind = !strncmp(c->name, "ptp_sim", 7) ? CK_PTP_SIM : CK_PTP;
	if (!c->name[0])
		snprintf(c->name, sizeof(c->name), "%s", base);
	snprintf(p, sizeof(p), "/sys/class/ptp/%s/max_adjustment", base);
	if (read_long(p, &v))
		c->max_adj = v;
}

static bool has_cap(int cap)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return false;
	return d[cap / 32].effective >> (cap % 32) & 1;
}

static int open_clock(struct clock *c, int mode)
{
	return open(c->path, mode | O_CLOEXEC);
}

static struct fdent clock_ent(int c, int mode)
{
	return (struct fdent){ .kind = F_CLOCK, .clk = (int8_t)c, .tfd = -1,
			       .acc = mode == O_RDWR ? ACC_R | ACC_W :
				      mode == O_WRONLY ? ACC_W : ACC_R };
}

static void add_rsrc(int fd, struct fdent e)
{
	fd = move_fd(fd, RSRC_BASE);
	if (fd < 0 || fd >= RACY_BASE || nrsrc >= (int)ARRAY_SIZE(rsrc))
		die("racer source descriptor %d", fd);
	rsrc[nrsrc].fd = fd;
	rsrc[nrsrc].e = e;
	/* What it is, for a clockid that names it by chance. */
	fdt[fd] = e;
	nrsrc++;
}

static void setup_fds(void)
{
	char tmpl[] = "/tmp/abi_fuzz.XXXXXX";
	struct itimerspec its = { { 0, 1000000 }, { 0, 1000000 } };
	int p[2], fd;

	for (int fd2 = 0; fd2 < NFD; fd2++)
		fdt[fd2] = (struct fdent){ .kind = F_CLOSED, .tfd = -1 };
	for (int i = 0; i < 3; i++)
		fdt[i] = (struct fdent){ .kind = F_STD, .tfd = -1 };

	/* The racer's sources. */
	for (int c = 0; c < nclocks; c++) {
		if (clocks[c].can_w && !clocks[c].ro)
			add_rsrc(open_clock(&clocks[c], O_RDWR), clock_ent(c, O_RDWR));
		if (clocks[c].can_r)
			add_rsrc(open_clock(&clocks[c], O_RDONLY),
				 clock_ent(c, O_RDONLY));
	}
	if (nclocks)
		add_rsrc(open(clocks[0].path, O_PATH | O_CLOEXEC),
			 (struct fdent){ .kind = F_OPATH, .tfd = -1 });
	if (pipe2(p, O_CLOEXEC))
		die("pipe: %m");
	close(p[1]);
	add_rsrc(p[0], (struct fdent){ .kind = F_PIPE_R, .acc = ACC_R, .tfd = -1 });
	add_rsrc(open("/dev/null", O_RDWR | O_CLOEXEC),
		 (struct fdent){ .kind = F_NULL, .acc = ACC_R | ACC_W, .tfd = -1 });
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd < 0 || timerfd_settime(fd, 0, &its, NULL))
		die("timerfd: %m");
	{
		int m = tfd_new();

		tfds[m].shared = true;
		tfds[m].sid = CLOCK_MONOTONIC;
		tfds[m].nonblock = true;
		add_rsrc(fd, (struct fdent){ .kind = F_TIMERFD,
					     .acc = ACC_R | ACC_W,
					     .tfd = (int16_t)m });
	}
	/* The racy numbers start full. */
	for (int i = 0; i < NRACY; i++) {
		if (dup2(rsrc[i % nrsrc].fd, RACY_BASE + i) < 0)
			die("dup2: %m");
		fdt[RACY_BASE + i] = (struct fdent){ .kind = F_RACY, .tfd = -1 };
	}

	/* The main pool. */
	for (int c = 0; c < nclocks; c++) {
		static const int modes[] = { O_RDWR, O_RDONLY, O_WRONLY };

		for (int m = 0; m < 3; m++) {
			if ((modes[m] != O_WRONLY && !clocks[c].can_r) ||
			    (modes[m] != O_RDONLY && (!clocks[c].can_w ||
						      clocks[c].ro)))
				continue;
			fd = open_clock(&clocks[c], modes[m]);
			if (fd < 0)
				die("open %s: %m", clocks[c].path);
			fdt_set(fd, clock_ent(c, modes[m]));
		}
		fd = open(clocks[c].path, O_PATH | O_CLOEXEC);
		if (fd >= 0)
			fdt_set(fd, (struct fdent){ .kind = F_OPATH, .tfd = -1 });
	}
	if (pipe2(p, O_CLOEXEC))
		die("pipe: %m");
	fdt_set(p[0], (struct fdent){ .kind = F_PIPE_R, .acc = ACC_R, .tfd = -1 });
	fdt_set(p[1], (struct fdent){ .kind = F_PIPE_W, .acc = ACC_W, .tfd = -1 });
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	fdt_set(fd, (struct fdent){ .kind = F_NULL, .acc = ACC_R | ACC_W, .tfd = -1 });
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd >= 0) {
		unlink(tmpl);
		fdt_set(fd, (struct fdent){ .kind = F_FILE, .acc = ACC_R | ACC_W,
					   .tfd = -1 });
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	fdt_set(fd, (struct fdent){ .kind = F_SOCK, .acc = ACC_R | ACC_W, .tfd = -1 });
	fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	fdt_set(fd, (struct fdent){ .kind = F_EVENTFD, .acc = ACC_R | ACC_W,
				   .tfd = -1 });
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fdt_set(fd, (struct fdent){ .kind = F_DIR, .acc = ACC_R, .tfd = -1 });
}

static void start_child(void)
{
	int ctl[2], idp[2], cfds[MAXCLK], n = 0;
	pid_t pid;
	ssize_t got;

	for (int c = 0; c < nclocks; c++)
		if (clocks[c].ofd >= 0)
			cfds[n++] = clocks[c].ofd;
	if (pipe2(ctl, O_CLOEXEC) || pipe2(idp, O_CLOEXEC))
		die("pipe: %m");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork: %m");
	if (pid == 0) {
		close(ctl[1]);
		close(idp[0]);
		child_main(ctl[0], idp[1], env.clockdev ? cfds : NULL,
			   env.clockdev ? n : 0);
	}
	close(ctl[0]);
	close(idp[1]);
	got = read(idp[0], foreign_ids, sizeof(foreign_ids));
	nforeign = got > 0 ? (int)(got / sizeof(int)) : 0;
	close(idp[0]);
	child_ctl = move_fd(ctl[1], INFRA_BASE);
	fdt[child_ctl] = (struct fdent){ .kind = F_INFRA, .tfd = -1 };
	env.child = pid;
	env.child_alive = true;
}

static void stop_child(void)
{
	if (!env.child_alive)
		return;
	close(child_ctl);
	fdt[child_ctl] = (struct fdent){ .kind = F_CLOSED, .tfd = -1 };
	while (waitpid(env.child, NULL, 0) < 0 && errno == EINTR)
		;
	env.child_alive = false;
}

static void setup_pages(void)
{
	char *m = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct timex tx = { 0 };
	struct ksigevent sev = { .sigev_notify = SIGEV_NONE };
	struct timespec ts = { 1000, 0 };

	if (m == MAP_FAILED)
		die("mmap: %m");
	rw_page = m;
	none_page = m + 2 * PAGE;
	ro_page = m + 3 * PAGE;
	memcpy(ro_page + RO_TS, &ts, sizeof(ts));
	memset(ro_page + RO_ITS, 0, sizeof(struct itimerspec));
	memcpy(ro_page + RO_TX, &tx, sizeof(tx));
	memcpy(ro_page + RO_SEV, &sev, sizeof(sev));
	if (mprotect(none_page, PAGE, PROT_NONE) ||
	    mprotect(ro_page, PAGE, PROT_READ))
		die("mprotect: %m");
}

static void setup_signals(void)
{
	static const int sigs[] = { SIGALRM, SIGUSR1, SIGUSR2, 40, 50, 64 };
	struct sigaction sa = { .sa_sigaction = on_signal,
				.sa_flags = SA_SIGINFO };

	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		if (sigaction(sigs[i], &sa, NULL))
			die("sigaction %d: %m", sigs[i]);
	signal(SIGPIPE, SIG_IGN);
}

static void probe_abi(void)
{
	struct ksigevent sev = { .sigev_notify = SIGEV_NONE };
	int id, ofd = -1;

	if (opt.abi) {
		env.clockdev = opt.abi == 1;
		return;
	}
	for (int c = 0; c < nclocks && ofd < 0; c++)
		if (!wakes_without_cap(c))
			ofd = clocks[c].ofd;
	if (ofd >= 0) {
		if (!syscall(SYS_timer_create, FD_TO_CLOCKID(ofd), &sev, &id)) {
			syscall(SYS_timer_delete, id);
			env.clockdev = true;
		} else if (errno == EOPNOTSUPP) {
			env.clockdev = false;
		} else {
			die("timer_create on %s: %m: neither served nor EOPNOTSUPP",
			    clocks[0].path);
		}
		return;
	}
	/* No clock to probe: a fd that is not one tells as well. */
	if (!syscall(SYS_timer_create, FD_TO_CLOCKID(1000), &sev, &id))
		die("timer_create on a closed fd succeeded");
	env.clockdev = errno == EINVAL;
}

int main(int argc, char **argv)
{
	pthread_t racer_thr, listener_thr;
	bool have_victims = false;
	long long pm;
	int64_t t_start;
	int total_weight = 0;
	int req[2], resp[2];

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse(argc, argv);
	/* Nothing inherited: the descriptor numbers are the fuzzer's. */
	syscall(SYS_close_range, 3, ~0U, 0);
	rng_seed(&R, opt.seed);
	printf("# abi_fuzz: seed %" PRIu64 ", %ld calls (replay: --seed %" PRIu64 " --calls %ld)\n",
	       opt.seed, opt.calls, opt.seed, opt.calls);

	for (int c = 0; c < nclocks; c++) {
		have_victims |= clocks[c].victim;
		if (clocks[c].victim && clocks[c].remove_at < 0)
			clocks[c].remove_at = opt.calls / 10 +
					      rnd((uint32_t)(opt.calls * 6 / 10 + 1));
	}
	if (have_victims) {
		if (pipe2(req, O_CLOEXEC) || pipe2(resp, O_CLOEXEC))
			die("pipe: %m");
		fflush(stdout);
		env.remover = fork();
		if (env.remover < 0)
			die("fork: %m");
		if (env.remover == 0) {
			close(req[1]);
			close(resp[0]);
			remover_main(req[0], resp[1]);
		}
		close(req[0]);
		close(resp[1]);
		req_wr = move_fd(req[1], INFRA_BASE);
		resp_rd = move_fd(resp[0], INFRA_BASE);
	}
	for (int c = 0; c < nclocks; c++)
		describe_clock(&clocks[c]);
	if (opt.drop) {
		make_predrop();
		if (setgroups(0, NULL) || setresgid(opt.gid, opt.gid, opt.gid) ||
		    setresuid(opt.uid, opt.uid, opt.uid))
			die("dropping to uid %u gid %u: %m", opt.uid, opt.gid);
	}
	env.pid = getpid();
	env.cap_wake = has_cap(CAP_WAKE_ALARM);
	env.cap_time = has_cap(CAP_SYS_TIME);
	env.pid_max = read_long("/proc/sys/kernel/pid_max", &pm) ? pm : 4194304;
	{
		struct timespec ts;

		env.rtc_alarm = !syscall(SYS_clock_getres, CLOCK_BOOTTIME_ALARM, &ts);
	}
	setup_pages();
	setup_signals();

	for (int c = 0; c < nclocks; c++) {
		struct clock *k = &clocks[c];
		int fd;

		k->can_r = access(k->path, R_OK) == 0;
		k->can_w = access(k->path, W_OK) == 0;
		k->ofd_mode = k->can_w && !k->ro ? O_RDWR : O_RDONLY;
		fd = open_clock(k, k->ofd_mode);
		if (fd < 0) {
			k->ofd_mode = O_RDONLY;
			fd = open_clock(k, O_RDONLY);
		}
		if (fd < 0)
			die("open %s: %m", k->path);
		k->ofd = move_fd(fd, INFRA_BASE);
		if (k->kind != CK_RTC) {
			struct timex tx = { .modes = 0 };

			k->freq_known = !syscall(SYS_clock_adjtime,
						 FD_TO_CLOCKID(k->ofd), &tx);
			k->freq = tx.freq;
		}
		printf("# clock %d: %s (%s)", c, k->path, k->name);
		if (k->max_adj >= 0)
			printf(", max_adj %lld ppb", k->max_adj);
		printf("%s%s\n", k->can_w && !k->ro ? ", writable" : ", read-only",
		       k->wakes ? ", its timers wake the system" : "");
		if (k->victim)
			printf("#   removed at call %ld by %s%s%s\n", k->remove_at,
			       k->cmd ? k->cmd : k->del_file,
			       k->cmd ? "" : " <- ", k->cmd ? "" : k->del_value);
	}
	probe_abi();
	printf("# uid %d, CAP_WAKE_ALARM %s, CAP_SYS_TIME %s, alarm clocks %s; "
	       "fd clockids: %s\n", (int)getuid(), env.cap_wake ? "yes" : "no",
	       env.cap_time ? "yes" : "no", env.rtc_alarm ? "yes" : "no",
	       env.clockdev ? "the ABI document (timers, sleeps, timerfd)" :
			      "Linux 6.12 (no timers on dynamic clocks)");
	setup_fds();
	register_predrop();
	for (int c = 0; c < nclocks; c++)
		fdt[clocks[c].ofd] = clock_ent(c, clocks[c].ofd_mode);
	for (int fd = INFRA_BASE; fd < RSRC_BASE; fd++)
		if (fdt[fd].kind == F_CLOSED && fcntl(fd, F_GETFD) >= 0)
			fdt[fd] = (struct fdent){ .kind = F_INFRA, .tfd = -1 };
	start_child();
	printf("# child %d holds %d timers; %d racer sources on %d racy numbers\n",
	       env.child, nforeign, nrsrc, NRACY);

	if (pthread_create(&racer_thr, NULL, racer, NULL))
		die("pthread_create");
	while (!__atomic_load_n(&env.racer_tid, __ATOMIC_ACQUIRE))
		sched_yield();
	if (have_victims && pthread_create(&listener_thr, NULL,
					   remover_listener, NULL))
		die("pthread_create");

	for (int i = 0; i < NOPS; i++)
		total_weight += opweight[i];
	t_start = mono_ns();
	{
		long child_exit_at = opt.calls / 2 + rnd((uint32_t)(opt.calls * 4 / 10 + 1));
		bool timed_out = false;

		for (ncall = 1; ncall <= opt.calls; ncall++) {
			int w, op = 0;

			/* Each call its own draws: a replay diverges only
			 * where another thread or timing changed a result. */
			rng_seed(&R, opt.seed ^ (uint64_t)ncall * 0x9e3779b97f4a7c15ULL);
			w = (int)rnd((uint32_t)total_weight);

			for (int c = 0; c < nclocks; c++) {
				if (clocks[c].victim && ncall == clocks[c].remove_at) {
					int idx = c;

					atomic_store(&clocks[c].state, CS_REMOVING);
					if (write(req_wr, &idx, sizeof(idx)) != sizeof(idx))
						die("remover: %m");
				}
				clocks[c].snap = atomic_load(&clocks[c].state);
				if (clocks[c].snap == CS_REMOVED && !removed_call[c])
					removed_call[c] = ncall;
			}
			removing_clk = -1;
			for (int c = 0; c < nclocks; c++)
				if (clocks[c].snap == CS_REMOVING)
					removing_clk = c;
			if (ncall == child_exit_at)
				stop_child();
			while (w >= opweight[op])
				w -= opweight[op++];
			atomic_store(&current_op, op);
			switch (op) {
			case OP_GETTIME: op_get(OP_GETTIME); break;
			case OP_GETRES: op_get(OP_GETRES); break;
			case OP_SETTIME: op_settime(); break;
			case OP_ADJTIME: op_adjtime(); break;
			case OP_NANOSLEEP: op_nanosleep(); break;
			case OP_TCREATE: op_tcreate(); break;
			case OP_TSET: op_tsettime(); break;
			case OP_TGET: op_tgettime(); break;
			case OP_TOVR: op_tgetoverrun(); break;
			case OP_TDEL: op_tdelete(pick_timer_id()); break;
			case OP_TFDCREATE: op_tfdcreate(); break;
			case OP_TFDSET: op_tfdsettime(); break;
			case OP_TFDGET: op_tfdgettime(); break;
			case OP_READ: op_read(); break;
			case OP_POLL: op_poll(); break;
			case OP_CLOSE: op_close(); break;
			case OP_DUP: op_dup(); break;
			case OP_OPEN: op_open(); break;
			}
			check_signals();
			atomic_store(&progress, ncall);
			if ((ncall & 255) == 0 &&
			    mono_ns() - t_start > opt.max_seconds * NSEC) {
				timed_out = true;
				break;
			}
		}
		if (ncall > opt.calls)
			ncall = opt.calls;
		atomic_store(&stop_threads, true);
		pthread_join(racer_thr, NULL);
		stop_child();

		/* The end: removed clocks stay removed, the others work. */
		for (int c = 0; c < nclocks; c++) {
			struct timespec ts;
			int want, err;

			if (clocks[c].victim) {
				int64_t t0 = mono_ns();

				while (atomic_load(&clocks[c].state) == CS_REMOVING &&
				       !atomic_load(&clocks[c].rm_status) &&
				       clocks[c].remove_at <= ncall &&
				       mono_ns() - t0 < 30 * NSEC)
					usleep(10000);
				if (atomic_load(&clocks[c].rm_status)) {
					printf("FAIL removing %s: status %d\n",
					       clocks[c].path,
					       atomic_load(&clocks[c].rm_status));
					nfail++;
					continue;
				}
			}
			want = atomic_load(&clocks[c].state) == CS_REMOVED ? ENODEV :
			       atomic_load(&clocks[c].state) == CS_LIVE ? 0 : -1;
			err = syscall(SYS_clock_gettime, FD_TO_CLOCKID(clocks[c].ofd),
				      &ts) ? errno : 0;
			if (want >= 0 && err != want) {
				printf("FAIL at the end: clock_gettime on %s: %s, want %s\n",
				       clocks[c].path, ename(err), ename(want));
				nfail++;
			}
		}
		if (req_wr >= 0)
			close(req_wr);
		if (have_victims) {
			pthread_join(listener_thr, NULL);
			while (waitpid(env.remover, NULL, 0) < 0 &&
			       errno == EINTR)
				;
		}

		printf("# %ld calls in %.1f s, %lu signals handled, %lu calls kicked after 5 s\n",
		       ncall, (mono_ns() - t_start) / 1e9,
		       atomic_load(&signals_seen), atomic_load(&kicks));
		for (int op = 0; op < NOPS; op++) {
			struct opstat *s = &stats[op];
			char line[1024];
			int n;

			n = snprintf(line, sizeof(line), "# %-16s %6lu calls, %6lu ok",
				     opname[op], s->calls, s->ok);
			for (int e = 1; e < NERR; e++)
				if (s->err[e])
					n += snprintf(line + n, sizeof(line) - n,
						      ", %s %lu", ename(e), s->err[e]);
			if (s->bad)
				n += snprintf(line + n, sizeof(line) - n,
					      "; %lu UNEXPECTED", s->bad);
			printf("%s\n", line);
		}
		if (efault_before_lookup)
			printf("# timer_create: %lu calls gave EFAULT for the id pointer where the clock lookup fails (EINVAL, ENODEV), as the ABI document says\n",
			       efault_before_lookup);
		if (short_timerfd_read)
			printf("# read: %lu timerfd reads returned 2 of 8 bytes into a buffer with 2 writable bytes (Linux >= 6.6)\n",
			       short_timerfd_read);
		if (timed_out) {
			printf("not ok - abi_fuzz: seed %" PRIu64 ": stopped after %ld of %ld calls (--max-seconds %ld)\n",
			       opt.seed, ncall, opt.calls, opt.max_seconds);
			return 1;
		}
	}
	if (nfail || nvalue_fail || atomic_load(&hung)) {
		printf("not ok - abi_fuzz: seed %" PRIu64 ", %ld calls: %lu unexpected results, %lu wrong values, %lu calls that did not return for 30 s\n",
		       opt.seed, ncall, nfail, nvalue_fail, atomic_load(&hung));
		return 1;
	}
	printf("ok - abi_fuzz: seed %" PRIu64 ", %ld calls, every result allowed\n",
	       opt.seed, ncall);
	return 0;
}
