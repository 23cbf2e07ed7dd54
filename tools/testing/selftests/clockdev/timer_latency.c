// SPDX-License-Identifier: GPL-2.0
/*
 * timer_latency: how late timers and sleeps on a dynamic clock expire.
 *
 * usage: timer_latency [-t] [-n SAMPLES] [-b N,...] [-p PPM] DEVICE
 *
 * Measures the lateness of expiries on DEVICE's clock (a /dev/ptpN that
 * runs, e.g. a ptp_sim instance) at 0, +PPM and -PPM of frequency offset,
 * and of the same expiries on CLOCK_MONOTONIC, interleaved with the
 * device's sample by sample (periodic timers: PERIODIC_CHUNK periods at a
 * time), so that the host's load hits both alike, in one table:
 *  - one-shot: a TIMER_ABSTIME POSIX timer 1 to 19 ms ahead, SAMPLES times;
 *  - relative: the same armed relative, lateness from a read just before;
 *  - periodic: a POSIX timer of PERIOD_MS, SAMPLES periods;
 *  - nanosleep: clock_nanosleep(TIMER_ABSTIME) 1 to 19 ms ahead;
 *  - timerfd: a TFD_TIMER_ABSTIME timerfd 1 to 19 ms ahead, read blocking.
 * The lateness of an expiry is the time of the timer's own clock read first
 * thing in the signal handler, or right after clock_nanosleep() or the
 * timerfd's read() returns, minus the expiry: device ns for the device
 * clock.  A second line per device row gives the core's own view of the
 * same expiries, NOW - EXPIRES of every clockdev:clockdev_timer_expire
 * event of the clock, recorded in a tracefs instance of the figure's own.
 * Then the lateness of one-shot probe timers with N background timers armed
 * an hour ahead on the same clock, for each N of the list.
 *
 * Each figure is "p50 / p99 / max" in microseconds; an expiry that came
 * early (negative lateness) is counted next to it.  With -t, each figure
 * is also printed as lines "bench<TAB>ROW<TAB>VALUE<TAB>UNIT", which
 * scripts/bench-timers.sh gathers over several boots.  Last, the cost of
 * timer_settime() on the device and on CLOCK_MONOTONIC, interleaved.  A benchmark, not a
 * test: it judges nothing (scripts/bench-timers.sh runs it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "clockdev_util.h"

#define MAX_SAMPLES		((int)ARRAY_SIZE(((struct lates *)0)->v))
#define MAX_BG_SETS		8
#define MAX_BG			200000
#define PERIOD_MS		5
/* Periods of a periodic timer measured on one clock before the other's. */
#define PERIODIC_CHUNK		20
/* One-shot and sleep distances: 1 + (i * DIST_STEP) % DIST_SPREAD ms. */
#define DIST_SPREAD		19
#define DIST_STEP		7
/* How far ahead background timers are armed. */
#define BG_AHEAD		SEC(3600LL)
/* Beyond the expiry, how long to wait for a signal before giving up. */
#define WAIT_SLACK		SEC(10LL)

#define SIG_PROBE		(SIGRTMIN + 1)
#define SIG_BACKGROUND		(SIGRTMIN + 2)

enum kind { K_ONESHOT, K_RELATIVE, K_PERIODIC, K_NSLEEP, K_TIMERFD, K_NR };

static const char *const kind_names[K_NR] = {
	"one-shot", "relative", "periodic", "nanosleep", "timerfd",
};

/* Samples measured on one clock before the other's, per kind. */
static const int kind_chunk[K_NR] = {
	[K_ONESHOT] = 1, [K_RELATIVE] = 1, [K_PERIODIC] = PERIODIC_CHUNK,
	[K_NSLEEP] = 1, [K_TIMERFD] = 1,
};

/**
 * struct figure - the lateness samples of one cell of the table
 * @l:      the samples, ns
 * @failed: the run broke off
 * @lost:   events the tracefs ring buffer dropped (core figures)
 */
struct figure {
	struct lates l;
	bool failed;
	long lost;
};

/**
 * struct clk - a clock to measure
 * @name: for the table: the clock's name
 * @id:   its clockid
 * @node: its device's name ("ptp3"), the tracepoint's clock field; NULL
 *        for CLOCK_MONOTONIC and when the kernel has no such tracepoint
 */
struct clk {
	const char *name;
	clockid_t id;
	const char *node;
};

struct opts {
	bool tsv;
	int samples;
	int bg[MAX_BG_SETS];
	int nbg;
	int ppm;
	const char *path;
};

/* The distance of sample @i: 1..DIST_SPREAD ms, spread evenly. */
static s64 distance(int i)
{
	return MS(1 + (i * DIST_STEP) % DIST_SPREAD);
}

/*
 * A probe timer's signals from now on, tsig_nth(0) the first: its clock is
 * @c, read first thing in the handler.  No probe timer is armed.
 */
static void probe_start(const struct clk *c)
{
	tsig_start(SIG_PROBE, c->id);
	tsig_reset();
}

/*
 * Each probe timer has a value of its own: a signal that a deleted timer
 * left pending is still delivered (before Linux 6.13), and must not count.
 */
static int probe_gen;

/*
 * The next signal of the probe timer whose value is @gen within @timeout,
 * or NULL; *@next is the index of the next signal to look at.
 */
static const struct tsig *probe_wait(int *next, int gen, s64 timeout)
{
	const struct tsig *sig;

	for (;;) {
		if (tsig_wait(*next + 1, timeout) <= *next)
			return NULL;
		sig = tsig_nth((*next)++);
		if (!sig || sig->value == gen)
			return sig;
	}
}

/* ---- the figures ---- */

/*
 * Samples @first.. @first + @n - 1 of one-shot timers on @c, 1..19 ms
 * ahead: TIMER_ABSTIME, or relative (@rel) from a read just before.
 */
static void one_shot(const struct clk *c, int first, int n, bool rel,
		     struct figure *late)
{
	int id, i, gen = ++probe_gen, next = 0;
	const struct tsig *sig;
	s64 expiry, d;

	if (sys_timer_create(c->id, SIGEV_SIGNAL, SIG_PROBE, gen, 0, &id)) {
		late->failed = true;
		return;
	}
	probe_start(c);
	for (i = 0; i < n; i++) {
		d = distance(first + i);
		expiry = clock_ns(c->id) + d;
		sig = NULL;
		if (!sys_timer_settime(id, rel ? 0 : TIMER_ABSTIME,
				       rel ? d : expiry, 0))
			sig = probe_wait(&next, gen, d + WAIT_SLACK);
		if (!sig) {
			late->failed = true;
			break;
		}
		lates_add(&late->l, sig->dev - expiry);
	}
	sys_timer_delete(id);
}

static void measure_one_shot(const struct clk *c, int first, int n,
			     struct figure *late)
{
	one_shot(c, first, n, false, late);
}

static void measure_relative(const struct clk *c, int first, int n,
			     struct figure *late)
{
	one_shot(c, first, n, true, late);
}

/*
 * A periodic timer of PERIOD_MS for @samples signals (a new timer for each
 * chunk, whatever @first).  Signal j stands for
 * expiry number j + (overruns of the signals before it): a signal's
 * si_overrun counts the expiries after its own, until it was delivered.
 */
static void measure_periodic(const struct clk *c, int first, int samples,
			     struct figure *late)
{
	s64 start, interval = MS(PERIOD_MS), idx = -1, overrun = 0;
	int id, i, gen = ++probe_gen, next = 0;
	const struct tsig *sig;

	if (sys_timer_create(c->id, SIGEV_SIGNAL, SIG_PROBE, gen, 0, &id)) {
		late->failed = true;
		return;
	}
	probe_start(c);
	start = clock_ns(c->id) + MS(10);
	if (sys_timer_settime(id, TIMER_ABSTIME, start, interval)) {
		late->failed = true;
		sys_timer_delete(id);
		return;
	}
	for (i = 0; i < samples; i++) {
		sig = probe_wait(&next, gen, interval + WAIT_SLACK);
		if (!sig) {
			late->failed = true;
			break;
		}
		idx += 1 + overrun;
		overrun = sig->overrun;
		lates_add(&late->l, sig->dev - (start + idx * interval));
	}
	sys_timer_delete(id);
}

/* Samples @first.. of clock_nanosleep(TIMER_ABSTIME) 1..19 ms ahead. */
static void measure_nsleep(const struct clk *c, int first, int n,
			   struct figure *late)
{
	s64 expiry;
	int i;

	for (i = first; i < first + n; i++) {
		expiry = clock_ns(c->id) + distance(i);
		if (sys_clock_nanosleep(c->id, TIMER_ABSTIME, expiry, NULL)) {
			late->failed = true;
			break;
		}
		lates_add(&late->l, clock_ns(c->id) - expiry);
	}
}

/* Samples @first.. of TFD_TIMER_ABSTIME timerfds 1..19 ms ahead, read blocking. */
static void measure_timerfd(const struct clk *c, int first, int n,
			    struct figure *late)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	unsigned long long ticks;
	s64 expiry;
	int fd, i;

	fd = timerfd_create(c->id, TFD_CLOEXEC);
	if (fd < 0) {
		late->failed = true;
		return;
	}
	for (i = first; i < first + n; i++) {
		expiry = clock_ns(c->id) + distance(i);
		its.it_value = ns_ts(expiry);
		if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) ||
		    read(fd, &ticks, sizeof(ticks)) != sizeof(ticks) ||
		    ticks != 1) {
			late->failed = true;
			break;
		}
		lates_add(&late->l, clock_ns(c->id) - expiry);
	}
	close(fd);
}

typedef void (*measure_fn)(const struct clk *c, int first, int n,
			   struct figure *late);

static const measure_fn measures[K_NR] = {
	[K_ONESHOT] = measure_one_shot,
	[K_RELATIVE] = measure_relative,
	[K_PERIODIC] = measure_periodic,
	[K_NSLEEP] = measure_nsleep,
	[K_TIMERFD] = measure_timerfd,
};

/*
 * run_pair() - one figure on @dev and the same on @ref's clock, @chunk
 * samples on one, then @chunk on the other, and the core's view of @dev's
 * in @core: the lateness of every expiry the core decided on @dev's device
 * meanwhile (all of them are the figure's: nothing else arms timers on it
 * that expire).  @core is NULL, or left empty, when there is no such view.
 */
static void run_pair(measure_fn fn, int chunk, int samples,
		     const struct clk *dev, struct figure *late,
		     struct figure *core, const struct clk *mono,
		     struct figure *ref)
{
	bool audit = core && dev->node;
	struct expiry_audit a;
	int i, n;

	if (audit && expiry_audit_start(&a, dev->node)) {
		core->failed = true;
		audit = false;
	}
	for (i = 0; i < samples && !(late->failed && ref->failed); i += n) {
		n = samples - i < chunk ? samples - i : chunk;
		if (!late->failed)
			fn(dev, i, n, late);
		if (!ref->failed)
			fn(mono, i, n, ref);
	}
	if (!audit)
		return;
	if (expiry_audit_stop_lates(&a, &core->l))
		core->failed = true;
	core->lost += a.lost;
}

/* ---- background timers ---- */

/* @n timers on @c armed BG_AHEAD, in @ids; 0 or -errno (all deleted). */
static int background_arm(const struct clk *c, int n, int *ids)
{
	s64 t0 = clock_ns(c->id);
	int i, err = 0;

	for (i = 0; i < n && !err; i++) {
		err = sys_timer_create(c->id, SIGEV_SIGNAL, SIG_BACKGROUND, 0,
				       0, &ids[i]);
		if (!err)
			err = sys_timer_settime(ids[i], TIMER_ABSTIME,
						t0 + BG_AHEAD + i * 1000, 0);
		else
			ids[i] = -1;
	}
	if (err)
		while (i--)
			if (ids[i] >= 0)
				sys_timer_delete(ids[i]);
	return err;
}

static void background_disarm(const int *ids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		sys_timer_delete(ids[i]);
}

/* ---- output ---- */

/* "p50 / p99 / max" in us, or why there is none. */
static const char *cell(struct figure *f, bool offered, char *buf, size_t len)
{
	struct lates *l = &f->l;
	int n;

	if (!offered)
		return "n/a";
	if (!l->n)
		return f->failed ? "failed" : "-";
	lates_sort(l);
	n = snprintf(buf, len, "%.1f / %.1f / %.1f", lates_pct(l, 50) / 1e3,
		     lates_pct(l, 99) / 1e3, lates_pct(l, 100) / 1e3);
	if (l->early)
		n += snprintf(buf + n, len - n, " (%d early)", l->early);
	if (f->lost)
		n += snprintf(buf + n, len - n, " (%ld lost)", f->lost);
	if (f->failed)
		snprintf(buf + n, len - n, " (broke off)");
	return buf;
}

/* With -t: "bench<TAB>ROW<TAB>VALUE<TAB>UNIT" lines. */
static bool tsv;

/* @f's p50, p99 and max as lines of "@what, @col". */
static void tsv_figure(const char *what, const char *col, struct figure *f)
{
	static const int pcts[] = { 50, 99, 100 };
	size_t i;

	if (!tsv || !f->l.n || f->failed)
		return;
	lates_sort(&f->l);
	for (i = 0; i < ARRAY_SIZE(pcts); i++)
		printf("bench\t%s, %s, %s\t%.1f\tus\n", what, col,
		       pcts[i] == 100 ? "max" : pcts[i] == 50 ? "p50" : "p99",
		       lates_pct(&f->l, pcts[i]) / 1e3);
}

static void print_row(const char *name, struct figure *f, const bool *offered,
		      int ncols)
{
	char buf[K_NR][80];
	int k;

	printf("%-22s", name);
	for (k = 0; k < ncols; k++)
		printf(" %-27s", cell(&f[k], offered[k], buf[k], sizeof(buf[k])));
	printf("\n");
}

/* "p50 ratio / p99 ratio" of @f against @ref, interleaved with it. */
static void print_ratio_row(struct figure *f, struct figure *ref,
			    const bool *offered, int ncols)
{
	char buf[80];
	int k;

	printf("%-22s", "  ratio p50 / p99");
	for (k = 0; k < ncols; k++) {
		if (!offered[k] || !f[k].l.n || !ref[k].l.n ||
		    lates_pct(&ref[k].l, 50) <= 0 ||
		    lates_pct(&ref[k].l, 99) <= 0) {
			printf(" %-27s", "-");
			continue;
		}
		/* cell() sorted both. */
		snprintf(buf, sizeof(buf), "%.2f / %.2f",
			 (double)lates_pct(&f[k].l, 50) / lates_pct(&ref[k].l, 50),
			 (double)lates_pct(&f[k].l, 99) / lates_pct(&ref[k].l, 99));
		printf(" %-27s", buf);
	}
	printf("\n");
}

/* ---- the runs ---- */

/* Whether the kernel refuses @err's kind of expiry on dynamic clocks. */
static bool refused(int err)
{
	return err == -EOPNOTSUPP || err == -EINVAL;
}

/*
 * The table of expiry kinds: the device at 0, +ppm and -ppm, each kind
 * measured on CLOCK_MONOTONIC interleaved with it, so that both see the
 * same load of the host: each device row has its CLOCK_MONOTONIC row, and
 * the ratios of the two.  A kind the kernel refuses on dynamic clocks
 * shows "n/a"; so does the core's row on a kernel without the tracepoint.
 */
static int kinds_table(const struct opts *o, const struct clk *dev,
		       const struct clk *mono)
{
	static struct figure late[K_NR], core[K_NR], ref[K_NR];
	const int ppms[] = { 0, o->ppm, -o->ppm };
	bool offered[K_NR], core_offered[K_NR];
	char name[32];
	size_t p;
	int k, err;

	offered[K_ONESHOT] = !refused(probe_timer_create(dev->id));
	offered[K_RELATIVE] = offered[K_ONESHOT];
	offered[K_PERIODIC] = offered[K_ONESHOT];
	offered[K_NSLEEP] = !refused(probe_nanosleep(dev->id));
	offered[K_TIMERFD] = !refused(probe_timerfd(dev->id));
	for (k = 0; k < K_NR; k++)
		core_offered[k] = offered[k] && dev->node;

	printf("%-22s", "lateness, us");
	for (k = 0; k < K_NR; k++)
		printf(" %-27s", kind_names[k]);
	printf("\n");
	for (p = 0; p < ARRAY_SIZE(ppms); p++) {
		err = sys_clock_freq(dev->id, ppms[p] * 1000L);
		if (err) {
			fprintf(stderr, "timer_latency: ADJ_FREQUENCY %d ppm: %s\n",
				ppms[p], errname(-err));
			return -1;
		}
		memset(late, 0, sizeof(late));
		memset(core, 0, sizeof(core));
		memset(ref, 0, sizeof(ref));
		for (k = 0; k < K_NR; k++) {
			if (!offered[k])
				continue;
			run_pair(measures[k], kind_chunk[k], o->samples, dev,
				 &late[k], &core[k], mono, &ref[k]);
		}
		snprintf(name, sizeof(name), "%s %+d ppm", dev->name, ppms[p]);
		print_row(name, late, offered, K_NR);
		print_row("  core decided-expires", core, core_offered, K_NR);
		print_row("  CLOCK_MONOTONIC", ref, offered, K_NR);
		print_ratio_row(late, ref, offered, K_NR);
		for (k = 0; k < K_NR; k++) {
			snprintf(name, sizeof(name), "%+d ppm", ppms[p]);
			tsv_figure(kind_names[k], name, &late[k]);
			snprintf(name, sizeof(name), "%+d ppm, core", ppms[p]);
			tsv_figure(kind_names[k], name, &core[k]);
			snprintf(name, sizeof(name), "%+d ppm, CLOCK_MONOTONIC",
				 ppms[p]);
			tsv_figure(kind_names[k], name, &ref[k]);
		}
	}
	return sys_clock_freq(dev->id, 0) ? -1 : 0;
}

/* One-shot probes with N background timers on the same clock, per N. */
static int background_table(const struct opts *o, const struct clk *dev,
			    const struct clk *mono)
{
	static struct figure f[3];
	static int ids[2][MAX_BG];
	const struct clk *clks[2] = { dev, mono };
	bool offered[3] = { true, dev->node, true };
	char name[32];
	int b, i, err;

	offered[0] = !refused(probe_timer_create(dev->id));
	offered[1] = offered[1] && offered[0];
	printf("\n%-22s %-27s %-27s %-27s\n", "background timers",
	       dev->name, "core decided-expires", mono->name);
	for (b = 0; b < o->nbg; b++) {
		memset(f, 0, sizeof(f));
		/* N on each clock, then the probes on both, interleaved. */
		for (i = 0; i < 2; i++) {
			err = background_arm(clks[i], o->bg[b], ids[i]);
			if (err) {
				fprintf(stderr, "timer_latency: %d background timers on %s: %s\n",
					o->bg[b], clks[i]->name, errname(-err));
				f[i ? 2 : 0].failed = true;
			}
		}
		if (offered[0])
			run_pair(measure_one_shot, 1, o->samples, dev, &f[0],
				 &f[1], mono, &f[2]);
		for (i = 0; i < 2; i++)
			if (!f[i ? 2 : 0].failed)
				background_disarm(ids[i], o->bg[b]);
		snprintf(name, sizeof(name), "N = %d", o->bg[b]);
		print_row(name, f, offered, 3);
		snprintf(name, sizeof(name), "%d background timers", o->bg[b]);
		tsv_figure(name, "device", &f[0]);
		tsv_figure(name, "CLOCK_MONOTONIC", &f[2]);
		fflush(stdout);
	}
	return 0;
}

/*
 * The cost of timer_settime() re-arming a SIGEV_NONE timer an hour ahead
 * (a new expiry each call), ns per call on @dev and on @mono, ROUNDS
 * rounds of CALLS calls alternating between them, the median round.
 */
#define SETTIME_ROUNDS	9
#define SETTIME_CALLS	500

static int cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

static void settime_cost(const struct clk *dev, const struct clk *mono)
{
	const struct clk *clks[2] = { dev, mono };
	s64 ns[2][SETTIME_ROUNDS], t0, base;
	int id[2], r, c, i;

	for (c = 0; c < 2; c++)
		if (sys_timer_create(clks[c]->id, SIGEV_NONE, 0, 0, 0, &id[c])) {
			printf("timer_settime cost: timer_create on %s failed\n",
			       clks[c]->name);
			if (c)
				sys_timer_delete(id[0]);
			return;
		}
	for (r = 0; r < SETTIME_ROUNDS; r++)
		for (c = 0; c < 2; c++) {
			base = clock_ns(clks[c]->id) + SEC(3600LL);
			t0 = mono_ns();
			for (i = 0; i < SETTIME_CALLS; i++)
				sys_timer_settime(id[c], TIMER_ABSTIME,
						  base + i * 1000, 0);
			ns[c][r] = (mono_ns() - t0) / SETTIME_CALLS;
		}
	for (c = 0; c < 2; c++) {
		qsort(ns[c], SETTIME_ROUNDS, sizeof(s64), cmp_s64);
		sys_timer_delete(id[c]);
	}
	printf("\ntimer_settime, ns per call (median of %d rounds of %d): %s %lld, %s %lld\n",
	       SETTIME_ROUNDS, SETTIME_CALLS, dev->name,
	       (long long)ns[0][SETTIME_ROUNDS / 2], mono->name,
	       (long long)ns[1][SETTIME_ROUNDS / 2]);
	if (tsv) {
		printf("bench\ttimer_settime, device\t%lld\tns\n",
		       (long long)ns[0][SETTIME_ROUNDS / 2]);
		printf("bench\ttimer_settime, CLOCK_MONOTONIC\t%lld\tns\n",
		       (long long)ns[1][SETTIME_ROUNDS / 2]);
	}
}

/* Room for the background timers: their signals and, later, timerfds. */
static void raise_limits(const struct opts *o)
{
	static const struct { int res; const char *name; } lims[] = {
		{ RLIMIT_SIGPENDING, "RLIMIT_SIGPENDING" },
		{ RLIMIT_NOFILE, "RLIMIT_NOFILE" },
	};
	rlim_t need = 1024;
	struct rlimit old, new;
	size_t i;
	int b;

	/* Background timers on both clocks at once. */
	for (b = 0; b < o->nbg; b++)
		if (2 * (rlim_t)o->bg[b] + 1024 > need)
			need = 2 * o->bg[b] + 1024;
	printf("limits:");
	for (i = 0; i < ARRAY_SIZE(lims); i++) {
		getrlimit(lims[i].res, &old);
		new.rlim_cur = need;
		new.rlim_max = need;
		if (old.rlim_cur >= need)
			printf(" %s %llu (enough);", lims[i].name,
			       (unsigned long long)old.rlim_cur);
		else if (setrlimit(lims[i].res, &new))
			printf(" %s %llu, could not raise it to %llu (%s);",
			       lims[i].name, (unsigned long long)old.rlim_cur,
			       (unsigned long long)need, errname(errno));
		else
			printf(" %s raised from %llu to %llu;", lims[i].name,
			       (unsigned long long)old.rlim_cur,
			       (unsigned long long)need);
	}
	printf("\n");
}

/* The clock's name from sysfs (e.g. "ptp_sim80"), else @ptp. */
static const char *ptp_clock_name(const char *ptp)
{
	static char name[64];
	char path[128];

	snprintf(path, sizeof(path), "/sys/class/ptp/%s/clock_name", ptp);
	if (read_file(path, name, sizeof(name)) <= 0)
		snprintf(name, sizeof(name), "%s", ptp);
	return name;
}

/*
 * The device's tracepoint, when the kernel has it: @node, or NULL after
 * saying in the header why the core's rows are "n/a".
 */
static const char *core_view(const char *node)
{
	struct expiry_audit a;
	const char *why = "";
	int err = expiry_audit_start(&a, node);

	if (!err) {
		expiry_audit_stop(&a);
		return node;
	}
	if (err == -ENOENT && access("/sys/kernel/tracing/instances", F_OK))
		why = " (no tracefs: CONFIG_TRACING is off)";
	else if (err == -ENOENT)
		why = " (no such tracepoint)";
	printf("core decided-expires: n/a: clockdev:clockdev_timer_expire: %s%s\n",
	       errname(-err), why);
	return NULL;
}

static void print_header(const struct opts *o, const struct clk *dev)
{
	printf("timer_latency: %s, %d samples per figure, %ld CPUs online\n",
	       o->path, o->samples, sysconf(_SC_NPROCESSORS_ONLN));
	printf("lateness = the timer's own clock read first in the signal handler\n"
	       "(timers) or right after clock_nanosleep() or the timerfd's read()\n"
	       "returns, minus the expiry: device ns for %s, CLOCK_MONOTONIC ns\n"
	       "for CLOCK_MONOTONIC; shown in us as p50 / p99 / max.\n"
	       "core decided-expires: the core's own NOW - EXPIRES of the same\n"
	       "expiries, tracepoint clockdev:clockdev_timer_expire (device ns).\n"
	       "one-shot, nanosleep, timerfd: TIMER_ABSTIME, 1..%d ms ahead; relative:\n"
	       "the same distances armed relative; periodic: %d ms period.\n"
	       "CLOCK_MONOTONIC is measured interleaved with the device, sample by\n"
	       "sample (periodic: %d periods at a time); ratio: device / it.\n\n",
	       dev->name, DIST_SPREAD, PERIOD_MS, PERIODIC_CHUNK);
}

static int parse_list(const char *s, struct opts *o)
{
	char *end;
	long n;

	for (o->nbg = 0; *s; s = end + (*end == ',')) {
		n = strtol(s, &end, 10);
		if (end == s || n < 0 || n > MAX_BG || o->nbg == MAX_BG_SETS)
			return -1;
		o->bg[o->nbg++] = n;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	int c;

	while ((c = getopt(argc, argv, "n:b:p:th")) != -1) {
		switch (c) {
		case 't':
			o->tsv = true;
			break;
		case 'n':
			o->samples = atoi(optarg);
			if (o->samples < 1 || o->samples > MAX_SAMPLES)
				return -1;
			break;
		case 'b':
			if (parse_list(optarg, o))
				return -1;
			break;
		case 'p':
			o->ppm = atoi(optarg);
			break;
		default:
			return -1;
		}
	}
	if (optind + 1 != argc)
		return -1;
	o->path = argv[optind];
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .samples = 400, .bg = { 0, 100, 1000, 10000 },
			  .nbg = 4, .ppm = 500 };
	struct clk dev, mono = { "CLOCK_MONOTONIC", CLOCK_MONOTONIC, NULL };
	const char *base;
	sigset_t set;
	int fd;

	if (parse_args(argc, argv, &o)) {
		fprintf(stderr,
			"usage: timer_latency [-t] [-n SAMPLES] [-b N,...] [-p PPM] DEVICE\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	tsv = o.tsv;
	fd = open(o.path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "timer_latency: %s: %s\n", o.path,
			errname(errno));
		return 1;
	}
	base = strrchr(o.path, '/');
	base = base ? base + 1 : o.path;
	dev.name = ptp_clock_name(base);
	dev.id = FD_TO_CLOCKID(fd);

	/* Background timers never expire: their signal stays blocked. */
	sigemptyset(&set);
	sigaddset(&set, SIG_BACKGROUND);
	sigprocmask(SIG_BLOCK, &set, NULL);

	print_header(&o, &dev);
	dev.node = core_view(base);
	raise_limits(&o);
	if (kinds_table(&o, &dev, &mono) ||
	    background_table(&o, &dev, &mono))
		return 1;
	if (!refused(probe_timer_create(dev.id)))
		settime_cost(&dev, &mono);
	return 0;
}
