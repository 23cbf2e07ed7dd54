// SPDX-License-Identifier: GPL-2.0
/*
 * clockdev - offsets between two clocks: compare (statistics over a
 * series of samples) and watch (a sample every interval, until stopped).
 *
 * Where one clock is a PHC and the other a system clock the PHC driver can
 * timestamp against, the PTP ioctls measure the offset in the kernel:
 * PTP_SYS_OFFSET_PRECISE (a cross timestamp), PTP_SYS_OFFSET_EXTENDED
 * (system time read right before and after the PHC, CLOCK_REALTIME, and
 * since Linux 6.12 also CLOCK_MONOTONIC and CLOCK_MONOTONIC_RAW),
 * PTP_SYS_OFFSET (CLOCK_REALTIME, around the whole driver call).  Other
 * pairs are read from user space: other, clock, other.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/ptp_clock.h>

#include "clockdev.h"

#ifdef PTP_SYS_OFFSET_PRECISE2
#define REQ_PRECISE2	PTP_SYS_OFFSET_PRECISE2
#else
#define REQ_PRECISE2	0
#endif
#ifdef PTP_SYS_OFFSET_EXTENDED2
#define REQ_EXTENDED2	PTP_SYS_OFFSET_EXTENDED2
#else
#define REQ_EXTENDED2	0
#endif
#ifdef PTP_SYS_OFFSET2
#define REQ_BASIC2	PTP_SYS_OFFSET2
#else
#define REQ_BASIC2	0
#endif

/* Samples per PTP_SYS_OFFSET{,_EXTENDED} request, and tries of user reads. */
#define IOCTL_SAMPLES	10
#define READ_TRIES	5

/*
 * struct ptp_sys_offset_extended as Linux 6.12 lays it out: older headers
 * call clockid rsv[0] (which those kernels want 0, CLOCK_REALTIME).
 */
struct cd_sys_offset_extended {
	unsigned int n_samples;
	int clockid;
	unsigned int rsv[2];
	struct ptp_clock_time ts[PTP_MAX_SAMPLES][3];
};

static_assert(sizeof(struct cd_sys_offset_extended) ==
	      sizeof(struct ptp_sys_offset_extended),
	      "struct ptp_sys_offset_extended changed");

static const char * const method_names[] = {
	[M_AUTO] = "auto",
	[M_PRECISE] = "PTP_SYS_OFFSET_PRECISE",
	[M_EXTENDED] = "PTP_SYS_OFFSET_EXTENDED",
	[M_BASIC] = "PTP_SYS_OFFSET",
	[M_READS] = "interleaved reads",
};

/* What each method measures against. */
static const char * const method_needs[] = {
	[M_PRECISE] = "CLOCK_REALTIME or CLOCK_MONOTONIC_RAW",
	[M_EXTENDED] = "CLOCK_REALTIME, CLOCK_MONOTONIC or CLOCK_MONOTONIC_RAW",
	[M_BASIC] = "CLOCK_REALTIME",
};

/* What the user types to force a method. */
static const char * const method_words[] = {
	[M_PRECISE] = "precise",
	[M_EXTENDED] = "extended",
	[M_BASIC] = "basic",
	[M_READS] = "reads",
};

/**
 * struct sampler - how offsets of @c against @o are measured
 * @cmd:    the command, for messages
 * @c:      the clock
 * @o:      the other clock
 * @ptp:    the PHC side when the PTP ioctls apply, else NULL
 * @sys:    the system clock on the other side of @ptp
 * @sign:   1 when @ptp is @c, -1 when it is @o
 * @m:      the method; M_AUTO until the first sample chose one
 * @op:     after a failure: the operation
 * @failed: after a failure: the clock it failed on
 */
struct sampler {
	const char *cmd;
	struct clock *c, *o;
	struct clock *ptp;
	clockid_t sys;
	int sign;
	enum cmp_method m;
	const char *op;
	const struct clock *failed;
};

/**
 * struct sample - one measurement
 * @offset: time of the clock minus time of the other clock
 * @delay:  how long the measurement took (0 for a cross timestamp)
 * @x:      the other clock's time at the measurement
 */
struct sample {
	s64 offset;
	s64 delay;
	s64 x;
};

static s64 pct_ns(const struct ptp_clock_time *t)
{
	return t->sec * NSEC_PER_SEC + t->nsec;
}

/* The ioctl @req2 ("...2", strict), or @req on kernels without it. */
static int ptp_ioctl(int fd, unsigned long req2, unsigned long req, void *arg)
{
	if (req2) {
		if (!ioctl(fd, req2, arg))
			return 0;
		if (errno != ENOTTY)
			return errno;
	}
	return ioctl(fd, req, arg) ? errno : 0;
}

static bool method_applies(const struct sampler *s, enum cmp_method m)
{
	if (m == M_READS)
		return true;
	if (!s->ptp)
		return false;
	switch (m) {
	case M_PRECISE:
		return s->sys == CLOCK_REALTIME ||
		       s->sys == CLOCK_MONOTONIC_RAW;
	case M_EXTENDED:
		return true;
	case M_BASIC:
		return s->sys == CLOCK_REALTIME;
	default:
		return false;
	}
}

static bool sys_side(const struct clock *c)
{
	return clock_is_static(c) &&
	       (c->id == CLOCK_REALTIME || c->id == CLOCK_MONOTONIC ||
		c->id == CLOCK_MONOTONIC_RAW);
}

static void sampler_init(struct sampler *s, const char *cmd, struct clock *c,
			 struct clock *o, enum cmp_method m)
{
	memset(s, 0, sizeof(*s));
	s->cmd = cmd;
	s->c = c;
	s->o = o;
	s->m = m;
	if (c->kind == CK_PTP && c->fd >= 0 && sys_side(o)) {
		s->ptp = c;
		s->sys = o->id;
		s->sign = 1;
	} else if (o->kind == CK_PTP && o->fd >= 0 && sys_side(c)) {
		s->ptp = o;
		s->sys = c->id;
		s->sign = -1;
	}
	if (m != M_AUTO && !method_applies(s, m))
		usage_error("%s: method '%s' needs a PTP clock and %s", cmd,
			    method_words[m], method_needs[m]);
}

/*
 * The PTP ioctls give @d = PHC - system time, @w the width of the system
 * time window around the PHC read and @t the system time.
 */
static int sample_precise(struct sampler *s, s64 *d, s64 *w, s64 *t)
{
	struct ptp_sys_offset_precise p;
	int err;

	memset(&p, 0, sizeof(p));
	s->op = "PTP_SYS_OFFSET_PRECISE";
	err = ptp_ioctl(s->ptp->fd, REQ_PRECISE2, PTP_SYS_OFFSET_PRECISE, &p);
	if (err)
		return err;
	*t = pct_ns(s->sys == CLOCK_REALTIME ? &p.sys_realtime :
		    &p.sys_monoraw);
	*d = pct_ns(&p.device) - *t;
	*w = 0;
	return 0;
}

static int sample_extended(struct sampler *s, s64 *d, s64 *w, s64 *t)
{
	struct cd_sys_offset_extended e;
	unsigned int i;
	int err;

	memset(&e, 0, sizeof(e));
	e.n_samples = IOCTL_SAMPLES;
	e.clockid = s->sys;
	s->op = "PTP_SYS_OFFSET_EXTENDED";
	err = ptp_ioctl(s->ptp->fd, REQ_EXTENDED2, PTP_SYS_OFFSET_EXTENDED, &e);
	if (err)
		return err;
	for (i = 0; i < e.n_samples; i++) {
		s64 pre = pct_ns(&e.ts[i][0]), post = pct_ns(&e.ts[i][2]);

		if (i && post - pre >= *w)
			continue;
		*w = post - pre;
		*t = pre + *w / 2;
		*d = pct_ns(&e.ts[i][1]) - *t;
	}
	return 0;
}

static int sample_basic(struct sampler *s, s64 *d, s64 *w, s64 *t)
{
	struct ptp_sys_offset b;
	unsigned int i;
	int err;

	memset(&b, 0, sizeof(b));
	b.n_samples = IOCTL_SAMPLES;
	s->op = "PTP_SYS_OFFSET";
	err = ptp_ioctl(s->ptp->fd, REQ_BASIC2, PTP_SYS_OFFSET, &b);
	if (err)
		return err;
	for (i = 0; i < b.n_samples; i++) {
		s64 pre = pct_ns(&b.ts[2 * i]), post = pct_ns(&b.ts[2 * i + 2]);

		if (i && post - pre >= *w)
			continue;
		*w = post - pre;
		*t = pre + *w / 2;
		*d = pct_ns(&b.ts[2 * i + 1]) - *t;
	}
	return 0;
}

/* Read other, clock, other; keep the try with the narrowest window. */
static int sample_reads(struct sampler *s, struct sample *smp)
{
	s64 o1, t, o2;
	int i, err;

	s->op = "clock_gettime";
	for (i = 0; i < READ_TRIES; i++) {
		s->failed = s->o;
		err = clock_read(s->o, &o1);
		if (!err) {
			s->failed = s->c;
			err = clock_read(s->c, &t);
		}
		if (!err) {
			s->failed = s->o;
			err = clock_read(s->o, &o2);
		}
		if (err)
			return err;
		if (i && o2 - o1 >= smp->delay)
			continue;
		smp->delay = o2 - o1;
		smp->x = o1 + smp->delay / 2;
		smp->offset = t - smp->x;
	}
	return 0;
}

static int sample_with(struct sampler *s, enum cmp_method m, struct sample *smp)
{
	s64 d = 0, w = 0, t = 0;
	int err;

	s->failed = s->ptp;
	switch (m) {
	case M_PRECISE:
		err = sample_precise(s, &d, &w, &t);
		break;
	case M_EXTENDED:
		err = sample_extended(s, &d, &w, &t);
		break;
	case M_BASIC:
		err = sample_basic(s, &d, &w, &t);
		break;
	default:
		return sample_reads(s, smp);
	}
	if (err)
		return err;
	smp->delay = w;
	if (s->sign > 0) {
		smp->offset = d;
		smp->x = t;
	} else {
		smp->offset = -d;
		smp->x = t + d;
	}
	return 0;
}

/* One sample; the first one picks the method.  0 or errno. */
static int sample(struct sampler *s, struct sample *smp)
{
	static const enum cmp_method order[] = {
		M_PRECISE, M_EXTENDED, M_BASIC,
	};
	size_t i;
	int err;

	if (s->m != M_AUTO)
		return sample_with(s, s->m, smp);
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		if (!method_applies(s, order[i]))
			continue;
		err = sample_with(s, order[i], smp);
		/* Not offered by this driver or kernel: try the next. */
		if (err == EOPNOTSUPP || err == ENOTTY || err == EINVAL)
			continue;
		if (!err)
			s->m = order[i];
		return err;
	}
	/* Interleaved reads work on any two clocks. */
	err = sample_with(s, M_READS, smp);
	if (!err)
		s->m = M_READS;
	return err;
}

static int sample_fail(struct sampler *s, int err)
{
	return fail_op(s->cmd, s->failed ? s->failed : s->c, s->op, err);
}

/* The coarser resolution of the two clocks. */
static s64 coarse_res(const struct sampler *s)
{
	return s->c->res > s->o->res ? s->c->res : s->o->res;
}

static void resolution_note(const struct sampler *s)
{
	const struct clock *coarse = s->c->res >= s->o->res ? s->c : s->o;
	char sec[32];

	if (coarse->res < NSEC_PER_MSEC)
		return;
	printf("%s: note: %s reads in steps of %s s: offsets are quantized to that\n",
	       s->cmd, coarse->name,
	       fmt_sec(sec, sizeof(sec), coarse->res));
}

/* Sleep until @t of CLOCK_MONOTONIC; false when SIGINT or SIGTERM came. */
static bool pause_until(s64 t, const sigset_t *stop)
{
	struct timespec ts;
	s64 rem;

	for (;;) {
		rem = t - mono_ns();
		if (rem <= 0)
			return true;
		ts = ns_ts(rem);
		if (!stop) {
			clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
			continue;
		}
		if (sigtimedwait(stop, NULL, &ts) > 0)
			return false;
	}
}

/* ---- parsing ---- */

/*
 * OTHER [N1 [N2]] [METHOD]: @first_sec says whether N1 is seconds (watch:
 * INTERVAL COUNT) or a count (compare: COUNT INTERVAL).
 */
static void parse_other(struct op *op, bool first_sec)
{
	const char *name = op->cmd->name;
	int i, nums = 0;
	size_t m;

	if (!clock_parse(op->argv[0], &op->other))
		usage_error("%s: '%s' is not a clock", name, op->argv[0]);
	for (i = 1; i < op->argc; i++) {
		const char *arg = op->argv[i];
		bool sec = (nums == 0) == first_sec;
		s64 ns;
		int err;

		for (m = M_PRECISE; m < ARRAY_SIZE(method_words); m++)
			if (!strcmp(arg, method_words[m]))
				break;
		if (m < ARRAY_SIZE(method_words)) {
			if (op->method != M_AUTO)
				usage_error("%s: more than one method", name);
			op->method = m;
			continue;
		}
		if (nums == 2)
			usage_error("%s: unexpected '%s'", name, arg);
		nums++;
		if (!sec) {
			err = parse_count(arg, 1000000, &op->count);
			if (err)
				usage_error("%s: '%s' is not a count (1 to 1000000)",
					    name, arg);
			continue;
		}
		err = parse_fixed(arg, 9, &ns);
		if (err || ns < 0)
			usage_error("%s: '%s' is not an interval in seconds",
				    name, arg);
		op->interval = ns;
	}
}

/* compare OTHER [COUNT [INTERVAL]] [precise|extended|basic|reads] */
void parse_compare(struct op *op)
{
	op->count = 10;
	op->interval = 100 * NSEC_PER_MSEC;
	parse_other(op, false);
}

/* watch OTHER [INTERVAL [COUNT]] [precise|extended|basic|reads] */
void parse_watch(struct op *op)
{
	op->count = 0;
	op->interval = NSEC_PER_SEC;
	parse_other(op, true);
}

/* ---- compare ---- */

static void print_stats_text(const char *cmd, const char *what,
			     const struct stats *st)
{
	char sec[32];

	printf("%s: %-6s min %lld mean %lld max %lld stddev %lld ns", cmd, what,
	       (long long)st->min, (long long)st->mean, (long long)st->max,
	       (long long)st->stddev);
	if (st->mean >= NSEC_PER_SEC || st->mean <= -NSEC_PER_SEC)
		printf(" (mean %s s)", fmt_sec(sec, sizeof(sec), st->mean));
	putchar('\n');
}

static void json_stats(const char *what, const struct stats *st)
{
	char key[32];

	snprintf(key, sizeof(key), "%s_min_ns", what);
	jint(key, st->min);
	snprintf(key, sizeof(key), "%s_mean_ns", what);
	jint(key, st->mean);
	snprintf(key, sizeof(key), "%s_max_ns", what);
	jint(key, st->max);
	snprintf(key, sizeof(key), "%s_stddev_ns", what);
	jint(key, st->stddev);
}

int run_compare(struct op *op, struct clock *c)
{
	const char *cmd = op->cmd->name;
	struct stats so, sd;
	struct sampler s;
	struct sample smp;
	s64 *off, *dly, *xs, next;
	bool have_drift;
	double drift = NAN;
	long i;
	int err, ret = 0;

	err = clock_open(&op->other, cmd);
	if (err)
		return err;
	sampler_init(&s, cmd, c, &op->other, op->method);
	off = calloc(op->count, sizeof(*off));
	dly = calloc(op->count, sizeof(*dly));
	xs = calloc(op->count, sizeof(*xs));
	if (!off || !dly || !xs) {
		ret = fail(cmd, c, "calloc", ENOMEM, NULL);
		goto out;
	}
	next = mono_ns();
	for (i = 0; i < op->count; i++) {
		if (i) {
			next += op->interval;
			pause_until(next, NULL);
		}
		err = sample(&s, &smp);
		if (err) {
			ret = sample_fail(&s, err);
			goto out;
		}
		off[i] = smp.offset;
		dly[i] = smp.delay;
		xs[i] = smp.x;
		if (json) {
			jbegin(cmd, c);
			jstr("other", op->other.name);
			jint("sample", i + 1);
			jint("offset_ns", smp.offset);
			jint("delay_ns", smp.delay);
			jint("other_ns", smp.x);
			jend();
		} else {
			printf("%s: %ld: offset %lld ns, delay %lld ns\n", cmd,
			       i + 1, (long long)smp.offset,
			       (long long)smp.delay);
		}
	}
	stats_of(off, op->count, &so);
	stats_of(dly, op->count, &sd);
	have_drift = slope_of(xs, off, op->count, &drift);
	if (json) {
		jbegin(cmd, c);
		jstr("other", op->other.name);
		jbool("summary", true);
		jstr("method", method_names[s.m]);
		jint("samples", op->count);
		json_stats("offset", &so);
		json_stats("delay", &sd);
		if (have_drift)
			jdbl("drift_ppm", drift * 1e6, 3);
		else
			jnull("drift_ppm");
		jint("resolution_ns", coarse_res(&s));
		jend();
	} else {
		printf("%s: %s - %s, %ld samples by %s\n", cmd, c->name,
		       op->other.name, op->count, method_names[s.m]);
		print_stats_text(cmd, "offset", &so);
		print_stats_text(cmd, "delay", &sd);
		if (have_drift)
			printf("%s: drift  %+.3f ppm\n", cmd,
			       no_minus_zero(drift * 1e6, 3));
		resolution_note(&s);
	}
out:
	free(off);
	free(dly);
	free(xs);
	return ret;
}

/* ---- watch ---- */

int run_watch(struct op *op, struct clock *c)
{
	const char *cmd = op->cmd->name;
	s64 *off = NULL, *xs = NULL, next, prev_off = 0, prev_x = 0;
	long n = 0, cap = 0;
	bool have_freq;
	sigset_t stop, old;
	struct stats so;
	struct sampler s;
	struct sample smp;
	double slope = NAN;
	char sec[32];
	int err, ret = 0;

	err = clock_open(&op->other, cmd);
	if (err)
		return err;
	sampler_init(&s, cmd, c, &op->other, op->method);
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, &old);
	next = mono_ns();
	while (!op->count || n < op->count) {
		double freq = NAN;

		if (n) {
			next += op->interval;
			if (!pause_until(next, &stop))
				break;
		}
		err = sample(&s, &smp);
		if (err) {
			ret = sample_fail(&s, err);
			goto out;
		}
		if (n == cap) {
			s64 *o2, *x2;

			cap = cap ? 2 * cap : 64;
			o2 = realloc(off, cap * sizeof(*off));
			if (o2)
				off = o2;
			x2 = realloc(xs, cap * sizeof(*xs));
			if (x2)
				xs = x2;
			if (!o2 || !x2) {
				ret = fail(cmd, c, "realloc", ENOMEM, NULL);
				goto out;
			}
		}
		off[n] = smp.offset;
		xs[n] = smp.x;
		if (n && smp.x != prev_x)
			freq = (double)(smp.offset - prev_off) * 1e9 /
			       (double)(smp.x - prev_x);
		prev_off = smp.offset;
		prev_x = smp.x;
		n++;
		fmt_sec(sec, sizeof(sec), smp.x + smp.offset);
		if (json) {
			jbegin(cmd, c);
			jstr("other", op->other.name);
			jint("sample", n);
			jint("time_ns", smp.x + smp.offset);
			jint("offset_ns", smp.offset);
			jint("delay_ns", smp.delay);
			jdbl("freq_ppb", freq, 3);
			jend();
		} else if (isfinite(freq)) {
			printf("%s: %s offset %lld ns freq %+.3f ppb\n", cmd,
			       sec, (long long)smp.offset,
			       no_minus_zero(freq, 3));
		} else {
			printf("%s: %s offset %lld ns\n", cmd, sec,
			       (long long)smp.offset);
		}
	}
	stats_of(off, n, &so);
	have_freq = slope_of(xs, off, n, &slope);
	if (json) {
		jbegin(cmd, c);
		jstr("other", op->other.name);
		jbool("summary", true);
		jstr("method", method_names[s.m]);
		jint("samples", n);
		jbool("interrupted", op->count ? n < op->count : true);
		if (n) {
			jint("offset_min_ns", so.min);
			jint("offset_mean_ns", so.mean);
			jint("offset_max_ns", so.max);
		}
		jdbl("freq_ppb", have_freq ? slope * 1e9 : NAN, 3);
		jend();
	} else {
		printf("%s: %ld samples by %s", cmd, n, method_names[s.m]);
		if (n)
			printf(", offset min %lld mean %lld max %lld ns",
			       (long long)so.min, (long long)so.mean,
			       (long long)so.max);
		if (have_freq)
			printf(", freq %+.3f ppb",
			       no_minus_zero(slope * 1e9, 3));
		putchar('\n');
		resolution_note(&s);
	}
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(off);
	free(xs);
	return ret;
}
