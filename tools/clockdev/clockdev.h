/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clockdev - use dynamic clock devices (/dev/ptpN, /dev/rtcclockN) from the
 * command line: shared declarations.
 */
#ifndef CLOCKDEV_H
#define CLOCKDEV_H

#include <assert.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <linux/compiler.h>

#define CLOCKDEV_VERSION	"1.0"

/* The clockid of an open clock device (FD_TO_CLOCKID in the kernel). */
#define CLOCKFD			3
#define FD_TO_CLOCKID(fd)	\
	((clockid_t)((~(unsigned int)(fd)) << 3 | CLOCKFD))

#define NSEC_PER_USEC		1000LL
#define NSEC_PER_MSEC		1000000LL
#define NSEC_PER_SEC		1000000000LL

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

typedef int64_t s64;
typedef uint64_t u64;

/* Exit status: an operation failed; a usage error. */
#define EXIT_FAIL		1
#define EXIT_USAGE		2

/**
 * enum clock_kind - what a clock is
 * @CK_STATIC: a static clock (CLOCK_REALTIME, ...)
 * @CK_PTP:    a PTP hardware clock, /dev/ptpN
 * @CK_RTC:    the clock of an RTC, /dev/rtcclockN
 * @CK_OTHER:  any other character device used as a clock
 */
enum clock_kind {
	CK_STATIC,
	CK_PTP,
	CK_RTC,
	CK_OTHER,
};

/**
 * struct clock - a clock named on the command line
 * @spec:      the name given
 * @name:      how messages name it: the device path or the CLOCK_* name
 * @iface:     the network interface it was found through, or ""
 * @kind:      what it is
 * @id:        its clockid (FD_TO_CLOCKID(@fd) for a device)
 * @fd:        the open device, -1 for a static clock or before clock_open()
 * @rdonly:    the device could only be opened read-only
 * @ptp_index: N of /dev/ptpN, -1 for other clocks
 * @res:       clock_getres() in ns, 0 when unknown
 */
struct clock {
	const char *spec;
	char name[PATH_MAX];
	char iface[32];
	enum clock_kind kind;
	clockid_t id;
	int fd;
	bool rdonly;
	int ptp_index;
	s64 res;
};

/* ---- clock.c: naming and opening clocks ---- */

/* Resolve @spec syntactically; false (and a message) when it names none. */
bool clock_parse(const char *spec, struct clock *c);
/* Open a parsed clock: 0, or an exit status after a message. */
int clock_open(struct clock *c, const char *cmd);
bool clock_is_static(const struct clock *c);
const char *clock_kind_name(enum clock_kind kind);
/* Read @c: 0 or an errno value. */
int clock_read(const struct clock *c, s64 *ns);
/* The PHC index of interface @ifname (-1: none): 0, or -errno. */
int iface_phc_index(const char *ifname, int *index);
/* Read a small sysfs file, trailing newline removed: 0 or -errno. */
int read_attr(const char *path, char *buf, size_t len);
/* The basename of symbolic link @path in @buf, or "" with -errno. */
int link_base(const char *path, char *buf, size_t len);
/*
 * Whether this kernel looks dynamic clocks up for timers: 1 yes, 0 no
 * (mainline before the clockdev series answers EOPNOTSUPP), -1 unknown.
 */
int kernel_has_clock_timers(void);
/* A sentence on why @err from a timer call on @c means "no timers", or NULL. */
const char *no_timers_hint(const struct clock *c, int err);
/* fail() for operation @op on @c failing with @err, with a hint if any. */
int fail_op(const char *cmd, const struct clock *c, const char *op, int err);

/* ---- util.c: numbers, time, output ---- */

extern bool json;

/* Parse [+-]DIGITS[.DIGITS] as an integer in units of 10^-@digits. */
int parse_fixed(const char *s, int digits, s64 *out);
/* Parse a count: a positive decimal integer up to @max. */
int parse_count(const char *s, long max, long *out);
/* Format @v, in units of 10^-@digits, as a decimal number. */
char *fmt_fixed(char *buf, size_t len, s64 v, int digits);
/* @val, or 0 when it would print as -0 with @prec decimals. */
double no_minus_zero(double val, int prec);
/* Format @ns as seconds with nine decimals. */
char *fmt_sec(char *buf, size_t len, s64 ns);
/* The calendar date of @ns as POSIX time, or "" outside 2000..2099. */
char *fmt_date(char *buf, size_t len, s64 ns, char sep);

struct timespec ns_ts(s64 ns);
s64 ts_ns(const struct timespec *ts);
/* CLOCK_MONOTONIC in ns. */
s64 mono_ns(void);

/* "ENODEV" for ENODEV, "errno N" for an unknown number. */
const char *errname(int err);

/* JSON Lines output: one object per call of jbegin() ... jend(). */
void jbegin(const char *cmd, const struct clock *c);
void jstr(const char *key, const char *val);
void jint(const char *key, long long val);
void jfixed(const char *key, s64 val, int digits);
void jdbl(const char *key, double val, int prec);
void jbool(const char *key, bool val);
void jnull(const char *key);
/* Open a JSON array @key; jarr_str() adds strings; jarr_end() closes it. */
void jarr_begin(const char *key);
void jarr_str(const char *val);
void jarr_end(void);
void jend(void);

/*
 * Report that operation @op on @c failed with @err (an errno value, or 0
 * when @fmt says all): on stderr, and as a JSON object in JSON mode.
 * Returns EXIT_FAIL.
 */
__printf(5, 6) int fail(const char *cmd, const struct clock *c,
			const char *op, int err, const char *fmt, ...);
/* A usage error: message, pointer to --help, exit(EXIT_USAGE). */
__printf(1, 2) void __noreturn usage_error(const char *fmt, ...);

/**
 * struct stats - summary of a series of samples (ns)
 * @n:      number of samples
 * @min:    smallest
 * @max:    largest
 * @mean:   mean, rounded
 * @stddev: standard deviation, rounded
 */
struct stats {
	long n;
	s64 min, max, mean, stddev;
};

void stats_of(const s64 *v, long n, struct stats *st);
/*
 * Least-squares slope of @y over @x (both ns): dimensionless.  False when
 * there are fewer than two distinct @x.
 */
bool slope_of(const s64 *x, const s64 *y, long n, double *slope);
/* Sort @v and return its @pct percentile (nearest rank below). */
s64 percentile(s64 *v, long n, int pct);

/* ---- commands ---- */

/**
 * enum cmp_method - how compare and watch measure an offset
 * @M_AUTO:     the best the clocks offer, tried in the order below
 * @M_PRECISE:  PTP_SYS_OFFSET_PRECISE (a cross timestamp)
 * @M_EXTENDED: PTP_SYS_OFFSET_EXTENDED (system, PHC, system per sample)
 * @M_BASIC:    PTP_SYS_OFFSET (interleaved, CLOCK_REALTIME only)
 * @M_READS:    clock_gettime() of other, clock, other
 */
enum cmp_method {
	M_AUTO,
	M_PRECISE,
	M_EXTENDED,
	M_BASIC,
	M_READS,
};

/**
 * struct op - one command of the chain, parsed
 * @cmd:   its entry in the command table
 * @argc:  number of arguments
 * @argv:  the arguments
 * @given: an optional value was given (set, freq)
 * @ns:    a time in ns (set, step, sleep, wait, wait-until)
 * @rel:   wait-until's TIME was "+SECONDS"
 * @mppb:  freq's value in thousandths of ppb
 * @other: compare and watch: the other clock
 * @count: compare, watch, timer: number of samples or expiries (0: endless)
 * @interval: compare, watch: time between samples; timer: period
 * @method: compare, watch: the method asked for
 * @abs:   timer: TIMER_ABSTIME
 * @use_signal: timer: notify by signal instead of timerfd
 */
struct op {
	const struct command *cmd;
	int argc;
	char **argv;
	bool given;
	s64 ns;
	bool rel;
	s64 mppb;
	struct clock other;
	long count;
	s64 interval;
	enum cmp_method method;
	bool abs;
	bool use_signal;
};

/**
 * struct command - an entry of the command table
 * @name:     what the user types
 * @min_args: fewest arguments
 * @max_args: most arguments
 * @parse:    check and convert the arguments (a usage error exits)
 * @run:      do it: 0, or an exit status after a message
 * @usage:    the arguments, for --help
 * @help:     one line on what it does
 */
struct command {
	const char *name;
	int min_args;
	int max_args;
	void (*parse)(struct op *op);
	int (*run)(struct op *op, struct clock *c);
	const char *usage;
	const char *help;
};

/* basic.c */
void parse_none(struct op *op);
void parse_opt_time(struct op *op);
void parse_time(struct op *op);
void parse_freq(struct op *op);
int run_get(struct op *op, struct clock *c);
int run_getres(struct op *op, struct clock *c);
int run_caps(struct op *op, struct clock *c);
int run_set(struct op *op, struct clock *c);
int run_step(struct op *op, struct clock *c);
int run_freq(struct op *op, struct clock *c);
int run_wait(struct op *op, struct clock *c);

/* compare.c */
void parse_compare(struct op *op);
void parse_watch(struct op *op);
int run_compare(struct op *op, struct clock *c);
int run_watch(struct op *op, struct clock *c);

/* timer.c */
void parse_timer(struct op *op);
void parse_until(struct op *op);
int run_timer(struct op *op, struct clock *c);
int run_sleep(struct op *op, struct clock *c);
int run_wait_until(struct op *op, struct clock *c);

/* list.c */
int run_list(void);

#endif /* CLOCKDEV_H */
