// SPDX-License-Identifier: GPL-2.0
/*
 * expiry_cost: the CPU time one timer expiry costs on a dynamic clock.
 *
 * usage: expiry_cost [-t] [-r ROUNDS] [-m MS] [-n TIMERS] DEVICE
 *
 * A spinning thread on every online CPU counts loop iterations; TIMERS
 * periodic POSIX timers of PERIOD_MS, their phases spread evenly over the
 * period, take the CPU time their expiries need from the spinners.  The
 * timers' signal is ignored, so each expiry is the kernel's work alone: the
 * interrupt, reading the clock (DEVICE only) and re-arming the timer, as
 * posix_timer_fn() and the clockdev core do for an ignored signal.  Each
 * round measures MS ms with no timer, MS ms with the timers on
 * CLOCK_MONOTONIC and MS ms with the same timers on DEVICE's clock, in
 * turn; the cost of one expiry is the spinners' lost fraction against the
 * round's own idle figure, times the CPUs, over the expiries per second.
 * The median over ROUNDS rounds is printed (with -t also as
 * "bench<TAB>ROW<TAB>VALUE<TAB>UNIT" lines).  A benchmark, not a test: it
 * judges nothing.  Under QEMU TCG, compare the two figures of a run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "clockdev_util.h"

#define PERIOD_MS	20
#define MAX_TIMERS	1000
#define MAX_ROUNDS	63
#define MAX_CPUS	64
#define SIG_COST	(SIGRTMIN + 3)

struct opts {
	bool tsv;
	int rounds;
	int ms;
	int timers;
	const char *path;
};

/* One spinner per CPU; @pad keeps the counts on cache lines apart. */
struct spinner {
	atomic_long count;
	pthread_t thread;
	int cpu;
	char pad[64];
};

static struct spinner spinners[MAX_CPUS];
static atomic_bool spin_stop;

static void *spin(void *arg)
{
	struct spinner *s = arg;
	cpu_set_t set;
	long n = 0;

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	while (!atomic_load_explicit(&spin_stop, memory_order_relaxed)) {
		n++;
		if (!(n & 1023))
			atomic_store_explicit(&s->count, n,
					      memory_order_relaxed);
	}
	return NULL;
}

static long spin_total(int ncpus)
{
	long sum = 0;
	int i;

	for (i = 0; i < ncpus; i++)
		sum += atomic_load_explicit(&spinners[i].count,
					    memory_order_relaxed);
	return sum;
}

/* Spinner iterations per second over @ms ms. */
static double spin_rate(int ncpus, int ms)
{
	long c0 = spin_total(ncpus);
	s64 t0 = mono_ns(), t1;

	/* The measurement's window: time passes on purpose. */
	pass_time(MS(ms));
	t1 = mono_ns();
	return (spin_total(ncpus) - c0) * 1e9 / (t1 - t0);
}

/* Arm (@on) or disarm the @n timers in @ids, phases spread over the period. */
static int timers_arm(const int *ids, int n, bool on)
{
	s64 period = MS(PERIOD_MS);
	int i;

	for (i = 0; i < n; i++)
		if (sys_timer_settime(ids[i], 0,
				      on ? period + period * i / n : 0,
				      on ? period : 0))
			return -1;
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	int c;

	while ((c = getopt(argc, argv, "tr:m:n:h")) != -1) {
		switch (c) {
		case 't':
			o->tsv = true;
			break;
		case 'r':
			o->rounds = atoi(optarg);
			if (o->rounds < 1 || o->rounds > MAX_ROUNDS)
				return -1;
			break;
		case 'm':
			o->ms = atoi(optarg);
			if (o->ms < 10)
				return -1;
			break;
		case 'n':
			o->timers = atoi(optarg);
			if (o->timers < 1 || o->timers > MAX_TIMERS)
				return -1;
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
	struct opts o = { .rounds = 9, .ms = 300, .timers = 50 };
	static int ids[2][MAX_TIMERS];
	double cost[2][MAX_ROUNDS], med[2], idle, busy, per_s;
	const char *names[2] = { "CLOCK_MONOTONIC", "device" };
	clockid_t clks[2] = { CLOCK_MONOTONIC };
	int ncpus, fd, c, i, r;

	if (parse_args(argc, argv, &o)) {
		fprintf(stderr,
			"usage: expiry_cost [-t] [-r ROUNDS] [-m MS] [-n TIMERS] DEVICE\n");
		return 2;
	}
	fd = open(o.path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "expiry_cost: %s: %s\n", o.path, errname(errno));
		return 1;
	}
	clks[1] = FD_TO_CLOCKID(fd);
	signal(SIG_COST, SIG_IGN);
	for (c = 0; c < 2; c++)
		for (i = 0; i < o.timers; i++)
			if (sys_timer_create(clks[c], SIGEV_SIGNAL, SIG_COST, 0,
					     0, &ids[c][i])) {
				printf("expiry_cost: timer_create on %s: %s\n",
				       c ? o.path : names[c], errname(errno));
				return 1;
			}
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus > MAX_CPUS)
		ncpus = MAX_CPUS;
	for (i = 0; i < ncpus; i++) {
		spinners[i].cpu = i;
		if (pthread_create(&spinners[i].thread, NULL, spin, &spinners[i]))
			return 1;
	}
	per_s = o.timers * 1000.0 / PERIOD_MS;
	for (r = 0; r < o.rounds; r++) {
		idle = spin_rate(ncpus, o.ms);
		for (c = 0; c < 2; c++) {
			if (timers_arm(ids[c], o.timers, true))
				return 1;
			busy = spin_rate(ncpus, o.ms);
			if (timers_arm(ids[c], o.timers, false))
				return 1;
			/* CPU ns lost per expiry. */
			cost[c][r] = (idle - busy) / idle * ncpus * 1e9 / per_s;
		}
	}
	atomic_store(&spin_stop, true);
	for (i = 0; i < ncpus; i++)
		pthread_join(spinners[i].thread, NULL);
	for (c = 0; c < 2; c++)
		med[c] = median(cost[c], o.rounds);
	printf("expiry cost: %d periodic timers of %d ms, signal ignored, %d CPUs spinning;\n"
	       "CPU ns per expiry, median of %d rounds of %d ms: %s %.0f, CLOCK_MONOTONIC %.0f\n",
	       o.timers, PERIOD_MS, ncpus, o.rounds, o.ms, o.path, med[1], med[0]);
	if (o.tsv)
		for (c = 0; c < 2; c++)
			printf("bench\texpiry cost, %s\t%.0f\tns\n", names[c],
			       med[c]);
	return 0;
}
