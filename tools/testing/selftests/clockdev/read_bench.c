// SPDX-License-Identifier: GPL-2.0
/*
 * read_bench: the cost of reading a dynamic clock.
 *
 * usage: read_bench [-r ROUNDS] [-m MS] [-t THREADS,...] DEVICE [DEVICE...]
 *
 * Reads DEVICE's clock (a /dev/ptpN) through clock_gettime(FD_TO_CLOCKID(fd))
 * and, for reference, CLOCK_MONOTONIC through the system call and through
 * the vDSO; then calls clock_getres() and clock_adjtime(modes = 0) on
 * DEVICE's clockid, the other calls that only look at a clock.  Two measures per source:
 *  - ns per call from one thread: ROUNDS rounds of a fixed number of calls
 *    (sized so that a round lasts about MS ms), the median round;
 *  - calls per second summed over N threads reading the same clock at once,
 *    for each N in THREADS: ROUNDS rounds of MS ms, the median round.
 * With more than one DEVICE, also the same with each thread reading a clock
 * of its own (thread i reads DEVICE number i modulo their count): readers
 * of one clock share its structures, readers of different clocks do not.
 * Output: one line per figure, "bench<TAB>ROW<TAB>VALUE<TAB>UNIT", after
 * "#" lines describing the clock.  A benchmark, not a test: it judges
 * nothing (scripts/bench-read.sh compares kernels with it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>
#include <linux/ptp_clock.h>

#include "clockdev_util.h"

#define MAX_ROUNDS		63
#define MAX_THREADS		64
/* Calls between two looks at the stop flag, and in a calibration run. */
#define BATCH			256

#define MAX_CLOCKS		MAX_THREADS

/* Which clock a source reads. */
enum clock_sel {
	SEL_MONO,	/* CLOCK_MONOTONIC */
	SEL_PHC,	/* the first DEVICE */
	SEL_PHCS,	/* a DEVICE per thread */
};

/**
 * struct source - one way of reading a clock
 * @name: row name
 * @sel:  which clock it reads
 * @read: one read; returns 0 or -1
 */
struct source {
	const char *name;
	enum clock_sel sel;
	int (*read)(clockid_t clk);
};

static int read_syscall(clockid_t clk)
{
	return clock_ns(clk) < 0 ? -1 : 0;
}

static int read_vdso(clockid_t clk)
{
	struct timespec ts;

	return clock_gettime(clk, &ts);
}

static int read_getres(clockid_t clk)
{
	struct timespec ts;

	return syscall(SYS_clock_getres, clk, &ts) ? -1 : 0;
}

/* clock_adjtime(modes = 0): reads the clock's state, changes nothing. */
static int read_adjtime(clockid_t clk)
{
	struct timex tx = { .modes = 0 };

	return syscall(SYS_clock_adjtime, clk, &tx) < 0 ? -1 : 0;
}

static const struct source sources[] = {
	{ "phc fd clockid (syscall)", SEL_PHC, read_syscall },
	{ "CLOCK_MONOTONIC (syscall)", SEL_MONO, read_syscall },
	{ "CLOCK_MONOTONIC (vDSO)", SEL_MONO, read_vdso },
	{ "phc fd clockid clock_getres", SEL_PHC, read_getres },
	{ "phc fd clockid clock_adjtime(0)", SEL_PHC, read_adjtime },
	{ "phc fd clockids, a clock per thread (syscall)", SEL_PHCS,
	  read_syscall },
};

struct opts {
	int rounds;
	int round_ms;
	int threads[8];
	int nthreads;
	const char *paths[MAX_CLOCKS];
	int nclocks;
	clockid_t clks[MAX_CLOCKS];
};

/**
 * struct round - what the reader threads of one round share
 * @src:    what they read
 * @clks:   the clocks they read, thread i the (i % @nclks)th
 * @nclks:  how many
 * @next:   the next thread's number
 * @start:  lets them all start at once
 * @stop:   set when the round is over
 * @calls:  reads done, summed when the threads end
 * @errors: reads that failed
 */
struct round {
	const struct source *src;
	const clockid_t *clks;
	int nclks;
	atomic_int next;
	pthread_barrier_t start;
	atomic_bool stop;
	atomic_long calls;
	atomic_int errors;
};

/**
 * struct figure - one measured row
 * @src:     what is read
 * @threads: readers at once; 0 for the single-thread ns-per-call figure
 * @calls:   calls per round of a single-thread figure (calibrated)
 * @v:       one value per round
 */
struct figure {
	const struct source *src;
	int threads;
	long calls;
	double v[MAX_ROUNDS];
};

/* @n reads of @src; returns the ns they took, or -1 if one failed. */
static s64 timed_reads(const struct source *src, clockid_t clk, long n)
{
	s64 t0 = mono_ns();
	long i;

	for (i = 0; i < n; i++)
		if (src->read(clk))
			return -1;
	return mono_ns() - t0;
}

/* Size a single-thread round of @f to about @ms ms; false if a read failed. */
static bool calibrate(struct figure *f, clockid_t clk, int ms)
{
	s64 ns = timed_reads(f->src, clk, BATCH);

	if (ns < 0)
		return false;
	f->calls = (long)((double)MS(ms) / (ns ? ns : 1) * BATCH) + 1;
	return true;
}

static void *reader(void *arg)
{
	struct round *rd = arg;
	clockid_t clk = rd->clks[atomic_fetch_add(&rd->next, 1) % rd->nclks];
	long calls = 0;
	int i;

	pthread_barrier_wait(&rd->start);
	while (!atomic_load_explicit(&rd->stop, memory_order_relaxed)) {
		for (i = 0; i < BATCH; i++)
			if (rd->src->read(clk))
				atomic_fetch_add(&rd->errors, 1);
		calls += BATCH;
	}
	atomic_fetch_add(&rd->calls, calls);
	return NULL;
}

/*
 * One round of @n threads reading @nclks clocks for @ms ms; returns calls/s,
 * or -1.
 */
static double threaded_round(const struct source *src, const clockid_t *clks,
			     int nclks, int n, int ms)
{
	struct round rd = { .src = src, .clks = clks, .nclks = nclks };
	pthread_t t[MAX_THREADS];
	s64 t0;
	int i;

	pthread_barrier_init(&rd.start, NULL, n + 1);
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, reader, &rd))
			abort();
	pthread_barrier_wait(&rd.start);
	t0 = mono_ns();
	/* The round's length: time passes on purpose while the threads read. */
	pass_time(MS(ms));
	atomic_store(&rd.stop, true);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	t0 = mono_ns() - t0;
	pthread_barrier_destroy(&rd.start);
	if (atomic_load(&rd.errors))
		return -1;
	return atomic_load(&rd.calls) * (double)NSEC_PER_SEC / t0;
}

/* The clocks @src reads, and how many (in *@n). */
static const clockid_t *source_clocks(const struct opts *o,
				      const struct source *src, int *n)
{
	static const clockid_t mono = CLOCK_MONOTONIC;

	*n = src->sel == SEL_PHCS ? o->nclocks : 1;
	return src->sel == SEL_MONO ? &mono : o->clks;
}

/* One round of @f: ns per call or aggregate calls/s; -1 if a read failed. */
static double measure(const struct opts *o, const struct figure *f)
{
	const clockid_t *clks;
	int n;
	s64 ns;

	clks = source_clocks(o, f->src, &n);
	if (f->threads)
		return threaded_round(f->src, clks, n, f->threads, o->round_ms);
	/* One thread reads the first clock. */
	ns = timed_reads(f->src, clks[0], f->calls);
	return ns < 0 ? -1 : (double)ns / f->calls;
}

/* "WHAT, ns per call, 1 thread" or "WHAT, calls/s, N threads". */
static void figure_name(const struct figure *f, const char *what,
			char *buf, size_t len)
{
	if (!f->threads)
		snprintf(buf, len, "%s, ns per call, 1 thread", what);
	else
		snprintf(buf, len, "%s, calls/s, %d thread%s", what,
			 f->threads, f->threads > 1 ? "s" : "");
}

static void print_row(const char *row, double value, const char *unit)
{
	if (value < 0)
		printf("bench\t%s\tfailed\t%s\n", row, unit);
	else
		printf("bench\t%s\t%.*f\t%s\n", row, value < 100 ? 3 : 1,
		       value, unit);
	fflush(stdout);
}

static double figure_median(const struct opts *o, const struct figure *f)
{
	double v[MAX_ROUNDS];
	int r;

	for (r = 0; r < o->rounds; r++) {
		if (f->v[r] < 0)
			return -1;
		v[r] = f->v[r];
	}
	return median(v, o->rounds);
}

/*
 * The PHC figure over the CLOCK_MONOTONIC syscall one of the same round:
 * both pay for the system call, and the host's load hits both alike, so the
 * ratio is steadier across boots than either figure.
 */
static double relative_median(const struct opts *o, const struct figure *phc,
			      const struct figure *ref)
{
	double v[MAX_ROUNDS];
	int r;

	for (r = 0; r < o->rounds; r++) {
		if (phc->v[r] <= 0 || ref->v[r] <= 0)
			return -1;
		v[r] = phc->v[r] / ref->v[r];
	}
	return median(v, o->rounds);
}

/* Figure @i's index in the list of source @s. */
#define FIGURE(o, s, i) ((s) * ((o)->nthreads + 1) + (i))

/* "@what over CLOCK_MONOTONIC (syscall)" rows: @s's figures over @ref's. */
static void print_ratios(const struct opts *o, const struct figure *figs,
			 int s, int ref, const char *what)
{
	char name[80], row[160];
	int i;

	snprintf(name, sizeof(name), "%s over CLOCK_MONOTONIC (syscall)", what);
	for (i = 0; i <= o->nthreads; i++) {
		if (!figs[FIGURE(o, s, i)].calls && !figs[FIGURE(o, s, i)].threads)
			continue;
		figure_name(&figs[FIGURE(o, s, i)], name, row, sizeof(row));
		print_row(row, relative_median(o, &figs[FIGURE(o, s, i)],
					       &figs[FIGURE(o, ref, i)]), "x");
	}
}

static void print_figures(const struct opts *o, const struct figure *figs,
			  int nfigs)
{
	char row[160];
	int i;

	for (i = 0; i < nfigs; i++) {
		/* A clock per thread: no single-thread figure of its own. */
		if (!figs[i].threads && !figs[i].calls)
			continue;
		figure_name(&figs[i], figs[i].src->name, row, sizeof(row));
		print_row(row, figure_median(o, &figs[i]),
			  figs[i].threads ? "calls/s" : "ns");
	}
	/* sources[0] is the PHC, sources[1] its syscall reference. */
	print_ratios(o, figs, 0, 1, "phc");
	if (o->nclocks > 1)
		print_ratios(o, figs, ARRAY_SIZE(sources) - 1, 1,
			     "phcs, a clock per thread,");
}

/**
 * bench() - measure every figure, rounds interleaved, and print the medians
 * @o: options
 *
 * Round r of every figure is taken before round r + 1 of any, so that a
 * burst of load on the host spreads over all figures instead of skewing one.
 *
 * Return: 0, or -1 when a read failed during calibration.
 */
static int bench(const struct opts *o)
{
	struct figure figs[ARRAY_SIZE(sources) * (ARRAY_SIZE(o->threads) + 1)];
	int nfigs = 0, ns = ARRAY_SIZE(sources), s, i, r;
	const clockid_t *clks;
	int n;

	/* The last source, a clock per thread, needs two clocks at least. */
	if (o->nclocks < 2)
		ns--;
	for (s = 0; s < ns; s++) {
		for (i = 0; i <= o->nthreads; i++) {
			struct figure *f = &figs[nfigs++];

			f->src = &sources[s];
			f->threads = i ? o->threads[i - 1] : 0;
			f->calls = 0;
			if (i || f->src->sel == SEL_PHCS)
				continue;
			clks = source_clocks(o, f->src, &n);
			if (!calibrate(f, clks[0], o->round_ms))
				return -1;
		}
	}
	for (r = 0; r < o->rounds; r++)
		for (i = 0; i < nfigs; i++)
			figs[i].v[r] = figs[i].threads || figs[i].calls ?
				       measure(o, &figs[i]) : 0;
	print_figures(o, figs, nfigs);
	return 0;
}

static int parse_threads(const char *s, struct opts *o)
{
	char *end;
	long n;

	for (o->nthreads = 0; *s; s = end + (*end == ',')) {
		n = strtol(s, &end, 10);
		if (end == s || n < 1 || n > MAX_THREADS ||
		    o->nthreads == ARRAY_SIZE(o->threads))
			return -1;
		o->threads[o->nthreads++] = n;
	}
	return o->nthreads ? 0 : -1;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	int c;

	while ((c = getopt(argc, argv, "r:m:t:h")) != -1) {
		switch (c) {
		case 'r':
			o->rounds = atoi(optarg);
			if (o->rounds < 1 || o->rounds > MAX_ROUNDS)
				return -1;
			break;
		case 'm':
			o->round_ms = atoi(optarg);
			if (o->round_ms < 1)
				return -1;
			break;
		case 't':
			if (parse_threads(optarg, o))
				return -1;
			break;
		default:
			return -1;
		}
	}
	if (optind == argc || argc - optind > MAX_CLOCKS)
		return -1;
	for (o->nclocks = 0; optind < argc; optind++)
		o->paths[o->nclocks++] = argv[optind];
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .rounds = 9, .round_ms = 50,
			  .threads = { 1, 2, 4 }, .nthreads = 3 };
	struct ptp_clock_caps caps;
	int fd, i;

	if (parse_args(argc, argv, &o)) {
		fprintf(stderr,
			"usage: read_bench [-r ROUNDS] [-m MS] [-t THREADS,...] DEVICE [DEVICE...]\n");
		return 2;
	}
	for (i = 0; i < o.nclocks; i++) {
		fd = open(o.paths[i], O_RDWR | O_CLOEXEC);
		if (fd < 0 || ioctl(fd, PTP_CLOCK_GETCAPS, &caps)) {
			fprintf(stderr, "read_bench: %s: %s\n", o.paths[i],
				errname(errno));
			return 1;
		}
		o.clks[i] = FD_TO_CLOCKID(fd);
	}
	printf("# %s", o.paths[0]);
	for (i = 1; i < o.nclocks; i++)
		printf(" %s", o.paths[i]);
	printf(", %d rounds of %d ms, median round, %ld CPUs online\n",
	       o.rounds, o.round_ms, sysconf(_SC_NPROCESSORS_ONLN));
	if (bench(&o)) {
		fprintf(stderr, "read_bench: reading the clocks failed\n");
		return 1;
	}
	return 0;
}
