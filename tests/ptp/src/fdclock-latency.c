// SPDX-License-Identifier: GPL-2.0
/*
 * fdclock-latency: how late timers and sleeps on a dynamic (fd) clock expire.
 *
 * usage: fdclock-latency [-n SAMPLES] [-b N,...] [-p PPM] DEVICE
 *
 * Measures the lateness of expiries on DEVICE's clock (a /dev/ptpN that
 * runs, e.g. a ptp_sim instance) at 0, +PPM and -PPM of frequency offset,
 * and of the same expiries on CLOCK_MONOTONIC, each kind measured there
 * right after the device (the host's load hits both alike), in one table:
 *  - one-shot: a TIMER_ABSTIME POSIX timer 1 to 19 ms ahead, SAMPLES times;
 *  - periodic: a POSIX timer of PERIOD_MS, SAMPLES periods;
 *  - nanosleep: clock_nanosleep(TIMER_ABSTIME) 1 to 19 ms ahead;
 *  - timerfd: a TFD_TIMER_ABSTIME timerfd 1 to 19 ms ahead, read blocking.
 * The lateness of an expiry is the time of the timer's own clock read first
 * thing in the signal handler, or right after clock_nanosleep() or the
 * timerfd's read() returns, minus the expiry: device ns for the device
 * clock.  A second line per
 * device row gives the core's own view of the same expiries, DECIDED -
 * EXPIRES from debugfs clockdev/ptpN/expiries.
 * Then the lateness of one-shot probe timers with N background timers armed
 * an hour ahead on the same clock, for each N of the list.
 *
 * Each figure is "p50 / p99 / max" in microseconds; an expiry that came
 * early (negative lateness) is counted next to it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#define CLOCKFD			3
#define FD_TO_CLOCKID(fd)	((clockid_t)((~(unsigned int)(fd)) << 3 | CLOCKFD))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define NSEC_PER_MSEC		1000000LL
#define NSEC_PER_SEC		1000000000LL
#define MS(ms)			((ms) * NSEC_PER_MSEC)

#define MAX_SAMPLES		5000
#define MAX_BG_SETS		8
#define MAX_BG			200000
#define PERIOD_MS		5
/* One-shot and sleep distances: 1 + (i * DIST_STEP) % DIST_SPREAD ms. */
#define DIST_SPREAD		19
#define DIST_STEP		7
/* How far ahead background timers are armed. */
#define BG_AHEAD		(3600 * NSEC_PER_SEC)
/* Read the core's log at least this often: it keeps the last 64 lines. */
#define LOG_EVERY		32
#define LOG_MAX			256
/* Beyond the expiry, how long to wait for a signal before giving up. */
#define WAIT_SLACK		(10 * NSEC_PER_SEC)

#define SIG_PROBE		(SIGRTMIN + 1)
#define SIG_BACKGROUND		(SIGRTMIN + 2)

typedef long long s64;

enum kind { K_ONESHOT, K_PERIODIC, K_NSLEEP, K_TIMERFD, K_NR };

static const char *const kind_names[K_NR] = {
	"one-shot", "periodic", "nanosleep", "timerfd",
};

/* Lateness samples of one figure, ns; @failed when the run broke off. */
struct dist {
	int n;
	int early;
	bool failed;
	s64 v[MAX_SAMPLES];
};

/* One line of debugfs clockdev/ptpN/expiries. */
struct expiry {
	unsigned long long expires;
	unsigned long long decided;
	long long late;
};

/**
 * struct corelog - the part of the core's expiry log already taken
 * @path:	debugfs clockdev/ptpN/expiries, "" for CLOCK_MONOTONIC
 * @last:	the last line taken ...
 * @have_last:	... when there is one
 */
struct corelog {
	char path[160];
	struct expiry last;
	bool have_last;
};

/* The expiries a figure waits for: a list, or a periodic series. */
struct want {
	const s64 *list;
	int n;
	s64 start;	/* periodic: the first expiry ... */
	s64 interval;	/* ... and the period; 0 for a list */
};

/* A clock to measure: the device or CLOCK_MONOTONIC. */
struct clk {
	const char *name;
	clockid_t id;
	struct corelog *log;	/* NULL for CLOCK_MONOTONIC */
};

struct opts {
	int samples;
	int bg[MAX_BG_SETS];
	int nbg;
	int ppm;
	const char *path;
};

static clockid_t probe_clk;
static volatile s64 probe_time;
static volatile int probe_overrun;
static volatile int probe_count;

static s64 ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

static struct timespec ns_ts(s64 ns)
{
	return (struct timespec){ ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };
}

static s64 clock_ns(clockid_t clk)
{
	struct timespec ts;

	if (syscall(SYS_clock_gettime, clk, &ts))
		return -1;
	return ts_ns(&ts);
}

/* The distance of sample @i: 1..DIST_SPREAD ms, spread evenly. */
static s64 distance(int i)
{
	return MS(1 + (i * DIST_STEP) % DIST_SPREAD);
}

static void on_probe(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	probe_time = clock_ns(probe_clk);
	probe_overrun = si->si_overrun;
	probe_count++;
	errno = saved;
}

/* Let SIG_PROBE in until @n signals were handled or @timeout passed. */
static bool wait_probe(int n, s64 timeout)
{
	s64 deadline = clock_ns(CLOCK_MONOTONIC) + timeout, left;
	struct timespec ts;
	sigset_t open;

	sigprocmask(SIG_SETMASK, NULL, &open);
	sigdelset(&open, SIG_PROBE);
	while (probe_count < n) {
		left = deadline - clock_ns(CLOCK_MONOTONIC);
		if (left <= 0)
			return false;
		ts = ns_ts(left);
		ppoll(NULL, 0, &ts, &open);
	}
	return true;
}

static int timer_new(clockid_t clk, int sig, int *id)
{
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL,
				.sigev_signo = sig };

	return syscall(SYS_timer_create, clk, &sev, id) ? -errno : 0;
}

static int timer_arm(int id, s64 expiry, s64 interval)
{
	struct itimerspec its = { ns_ts(interval), ns_ts(expiry) };

	return syscall(SYS_timer_settime, id, TIMER_ABSTIME, &its, NULL) ?
	       -errno : 0;
}

static void dist_add(struct dist *d, s64 late)
{
	if (d->n >= MAX_SAMPLES)
		return;
	d->v[d->n++] = late;
	if (late < 0)
		d->early++;
}

/* ---- the core's expiry log ---- */

static int read_log(const struct corelog *cl, struct expiry *e)
{
	FILE *f = fopen(cl->path, "r");
	int n = 0;

	if (!f)
		return -1;
	while (n < LOG_MAX && fscanf(f, "%llu %llu %lld", &e[n].expires,
				     &e[n].decided, &e[n].late) == 3)
		n++;
	fclose(f);
	return n;
}

static bool wanted(const struct want *w, unsigned long long expires)
{
	int i;

	if (w->interval)
		return (s64)expires >= w->start &&
		       ((s64)expires - w->start) % w->interval == 0;
	for (i = 0; i < w->n; i++)
		if ((s64)expires == w->list[i])
			return true;
	return false;
}

/*
 * corelog_take() - add the lines of the log that are new since the last
 * call and stand for an expiry of @w to @d (DECIDED - EXPIRES); with @w
 * NULL, only note where the log ends.
 */
static void corelog_take(struct corelog *cl, const struct want *w,
			 struct dist *d)
{
	struct expiry e[LOG_MAX];
	int n = read_log(cl, e), i, start = 0;

	if (n <= 0)
		return;
	if (cl->have_last) {
		for (i = n - 1; i >= 0; i--)
			if (e[i].expires == cl->last.expires &&
			    e[i].decided == cl->last.decided)
				break;
		start = i + 1;
	}
	for (i = start; w && i < n; i++)
		if (wanted(w, e[i].expires))
			dist_add(d, (s64)(e[i].decided - e[i].expires));
	cl->last = e[n - 1];
	cl->have_last = true;
}

/* ---- the figures ---- */

/* @samples one-shot timers on @c, TIMER_ABSTIME 1..19 ms ahead. */
static void measure_one_shot(const struct clk *c, int samples,
			     struct dist *late, struct dist *core)
{
	s64 pend[LOG_EVERY], expiry;
	struct want w = { .list = pend };
	int id, i;

	if (timer_new(c->id, SIG_PROBE, &id)) {
		late->failed = true;
		return;
	}
	probe_clk = c->id;
	if (c->log)
		corelog_take(c->log, NULL, NULL);
	for (i = 0; i < samples; i++) {
		expiry = clock_ns(c->id) + distance(i);
		if (timer_arm(id, expiry, 0) ||
		    !wait_probe(probe_count + 1, distance(i) + WAIT_SLACK)) {
			late->failed = true;
			break;
		}
		dist_add(late, probe_time - expiry);
		pend[w.n++] = expiry;
		if (w.n == LOG_EVERY) {
			if (c->log)
				corelog_take(c->log, &w, core);
			w.n = 0;
		}
	}
	if (c->log)
		corelog_take(c->log, &w, core);
	syscall(SYS_timer_delete, id);
}

/*
 * A periodic timer of PERIOD_MS for @samples signals.  Signal j stands for
 * expiry number j + (overruns so far).
 */
static void measure_periodic(const struct clk *c, int samples,
			     struct dist *late, struct dist *core)
{
	struct want w = { .interval = MS(PERIOD_MS) };
	s64 idx = -1;
	int id, i;

	if (timer_new(c->id, SIG_PROBE, &id)) {
		late->failed = true;
		return;
	}
	probe_clk = c->id;
	if (c->log)
		corelog_take(c->log, NULL, NULL);
	w.start = clock_ns(c->id) + MS(10);
	if (timer_arm(id, w.start, w.interval)) {
		late->failed = true;
		return;
	}
	for (i = 0; i < samples; i++) {
		if (!wait_probe(probe_count + 1, w.interval + WAIT_SLACK)) {
			late->failed = true;
			break;
		}
		idx += 1 + probe_overrun;
		dist_add(late, probe_time - (w.start + idx * w.interval));
		if (i % LOG_EVERY == LOG_EVERY - 1 && c->log)
			corelog_take(c->log, &w, core);
	}
	syscall(SYS_timer_delete, id);
	if (c->log)
		corelog_take(c->log, &w, core);
}

/* @samples clock_nanosleep(TIMER_ABSTIME) 1..19 ms ahead. */
static void measure_nsleep(const struct clk *c, int samples,
			   struct dist *late, struct dist *core)
{
	s64 pend[LOG_EVERY], expiry;
	struct want w = { .list = pend };
	struct timespec ts;
	int i;

	if (c->log)
		corelog_take(c->log, NULL, NULL);
	for (i = 0; i < samples; i++) {
		expiry = clock_ns(c->id) + distance(i);
		ts = ns_ts(expiry);
		if (clock_nanosleep(c->id, TIMER_ABSTIME, &ts, NULL)) {
			late->failed = true;
			break;
		}
		dist_add(late, clock_ns(c->id) - expiry);
		pend[w.n++] = expiry;
		if (w.n == LOG_EVERY) {
			if (c->log)
				corelog_take(c->log, &w, core);
			w.n = 0;
		}
	}
	if (c->log)
		corelog_take(c->log, &w, core);
}

/* @samples TFD_TIMER_ABSTIME timerfd expiries 1..19 ms ahead, read blocking. */
static void measure_timerfd(const struct clk *c, int samples,
			    struct dist *late, struct dist *core)
{
	s64 pend[LOG_EVERY], expiry;
	struct want w = { .list = pend };
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	unsigned long long ticks;
	int fd, i;

	fd = timerfd_create(c->id, TFD_CLOEXEC);
	if (fd < 0) {
		late->failed = true;
		return;
	}
	if (c->log)
		corelog_take(c->log, NULL, NULL);
	for (i = 0; i < samples; i++) {
		expiry = clock_ns(c->id) + distance(i);
		its.it_value = ns_ts(expiry);
		if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL) ||
		    read(fd, &ticks, sizeof(ticks)) != sizeof(ticks) ||
		    ticks != 1) {
			late->failed = true;
			break;
		}
		dist_add(late, clock_ns(c->id) - expiry);
		pend[w.n++] = expiry;
		if (w.n == LOG_EVERY) {
			if (c->log)
				corelog_take(c->log, &w, core);
			w.n = 0;
		}
	}
	if (c->log)
		corelog_take(c->log, &w, core);
	close(fd);
}

typedef void (*measure_fn)(const struct clk *c, int samples,
			   struct dist *late, struct dist *core);

static const measure_fn measures[K_NR] = {
	[K_ONESHOT] = measure_one_shot,
	[K_PERIODIC] = measure_periodic,
	[K_NSLEEP] = measure_nsleep,
	[K_TIMERFD] = measure_timerfd,
};

/* ---- background timers ---- */

/* @n timers on @c armed BG_AHEAD, in @ids; 0 or -errno (all deleted). */
static int background_arm(const struct clk *c, int n, int *ids)
{
	s64 t0 = clock_ns(c->id);
	int i, err = 0;

	for (i = 0; i < n && !err; i++) {
		err = timer_new(c->id, SIG_BACKGROUND, &ids[i]);
		if (!err)
			err = timer_arm(ids[i], t0 + BG_AHEAD + i * 1000, 0);
		else
			ids[i] = -1;
	}
	if (err)
		while (i--)
			if (ids[i] >= 0)
				syscall(SYS_timer_delete, ids[i]);
	return err;
}

static void background_disarm(const int *ids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		syscall(SYS_timer_delete, ids[i]);
}

/* ---- output ---- */

static int cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return (x > y) - (x < y);
}

static s64 pct(const struct dist *d, int p)
{
	int i = (d->n * p + 99) / 100 - 1;

	return d->v[i < 0 ? 0 : i];
}

/* "p50 / p99 / max" in us, or why there is none. */
static const char *cell(struct dist *d, bool offered, char *buf, size_t len)
{
	int n;

	if (!offered)
		return "n/a";
	if (!d->n)
		return d->failed ? "failed" : "-";
	qsort(d->v, d->n, sizeof(d->v[0]), cmp_s64);
	n = snprintf(buf, len, "%.1f / %.1f / %.1f", pct(d, 50) / 1e3,
		     pct(d, 99) / 1e3, d->v[d->n - 1] / 1e3);
	if (d->early)
		n += snprintf(buf + n, len - n, " (%d early)", d->early);
	if (d->failed)
		snprintf(buf + n, len - n, " (broke off)");
	return buf;
}

static void print_row(const char *name, struct dist *d, const bool *offered,
		      int ncols)
{
	char buf[K_NR][64];
	int k;

	printf("%-22s", name);
	for (k = 0; k < ncols; k++)
		printf(" %-27s", cell(&d[k], offered[k], buf[k], sizeof(buf[k])));
	printf("\n");
}

/* ---- the runs ---- */

static int set_ppm(clockid_t clk, int ppm)
{
	struct timex tx = { .modes = ADJ_FREQUENCY, .freq = ppm * 65536L };

	return syscall(SYS_clock_adjtime, clk, &tx) < 0 ? -errno : 0;
}

/*
 * The table of expiry kinds: the device at 0, +ppm and -ppm, each kind
 * measured on CLOCK_MONOTONIC right after, so that both see the same load
 * of the host; the CLOCK_MONOTONIC row sums the three passes.
 */
static int kinds_table(const struct opts *o, struct clk *dev,
		       const struct clk *mono)
{
	static struct dist late[K_NR], core[K_NR], ref[K_NR], unused;
	const int ppms[] = { 0, o->ppm, -o->ppm };
	bool offered[K_NR] = { true, true, true, true };
	char name[32];
	size_t p;
	int k, fd;

	/* A kernel without timerfd on dynamic clocks refuses it: "n/a". */
	fd = timerfd_create(dev->id, TFD_CLOEXEC);
	if (fd < 0 && errno == EINVAL)
		offered[K_TIMERFD] = false;
	if (fd >= 0)
		close(fd);

	printf("%-22s", "lateness, us");
	for (k = 0; k < K_NR; k++)
		printf(" %-27s", kind_names[k]);
	printf("\n");
	for (p = 0; p < ARRAY_SIZE(ppms); p++) {
		if (set_ppm(dev->id, ppms[p])) {
			fprintf(stderr, "fdclock-latency: ADJ_FREQUENCY %d ppm: %s\n",
				ppms[p], strerror(errno));
			return -1;
		}
		memset(late, 0, sizeof(late));
		memset(core, 0, sizeof(core));
		for (k = 0; k < K_NR; k++) {
			if (!measures[k] || !offered[k])
				continue;
			measures[k](dev, o->samples, &late[k], &core[k]);
			measures[k](mono, o->samples, &ref[k], &unused);
		}
		snprintf(name, sizeof(name), "%s %+d ppm", dev->name, ppms[p]);
		print_row(name, late, offered, K_NR);
		print_row("  core decided-expires", core, offered, K_NR);
	}
	snprintf(name, sizeof(name), "%s (x%zu)", mono->name,
		 ARRAY_SIZE(ppms));
	print_row(name, ref, offered, K_NR);
	return set_ppm(dev->id, 0);
}

/* One-shot probes with N background timers on the same clock, per N. */
static int background_table(const struct opts *o, const struct clk *dev,
			    const struct clk *mono)
{
	static struct dist d[3], unused;
	static int ids[MAX_BG];
	const bool offered[3] = { true, true, true };
	const struct clk *clks[2] = { dev, mono };
	char name[32];
	int b, i, err;

	printf("\n%-22s %-27s %-27s %-27s\n", "background timers",
	       dev->name, "core decided-expires", mono->name);
	for (b = 0; b < o->nbg; b++) {
		memset(d, 0, sizeof(d));
		for (i = 0; i < 2; i++) {
			struct dist *late = &d[i ? 2 : 0];

			err = background_arm(clks[i], o->bg[b], ids);
			if (err) {
				fprintf(stderr, "fdclock-latency: %d background timers on %s: %s\n",
					o->bg[b], clks[i]->name, strerror(-err));
				late->failed = true;
				continue;
			}
			measure_one_shot(clks[i], o->samples, late,
					 i ? &unused : &d[1]);
			background_disarm(ids, o->bg[b]);
		}
		snprintf(name, sizeof(name), "N = %d", o->bg[b]);
		print_row(name, d, offered, 3);
		fflush(stdout);
	}
	return 0;
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

	for (b = 0; b < o->nbg; b++)
		if ((rlim_t)o->bg[b] + 1024 > need)
			need = o->bg[b] + 1024;
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
			       (unsigned long long)need, strerror(errno));
		else
			printf(" %s raised from %llu to %llu;", lims[i].name,
			       (unsigned long long)old.rlim_cur,
			       (unsigned long long)need);
	}
	printf("\n");
}

/* The clock's name from sysfs (e.g. "ptp_sim80"), else @ptp. */
static const char *clock_name(const char *ptp)
{
	static char name[64];
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/ptp/%s/clock_name", ptp);
	f = fopen(path, "r");
	if (!f || !fgets(name, sizeof(name), f))
		snprintf(name, sizeof(name), "%s", ptp);
	if (f)
		fclose(f);
	name[strcspn(name, "\n")] = '\0';
	return name;
}

static void print_header(const struct opts *o, const struct clk *dev)
{
	printf("fdclock-latency: %s, %d samples per figure, %ld CPUs online\n",
	       o->path, o->samples, sysconf(_SC_NPROCESSORS_ONLN));
	printf("lateness = the timer's own clock read first in the signal handler\n"
	       "(timers) or right after clock_nanosleep() or the timerfd's read()\n"
	       "returns, minus the expiry: device ns for %s, CLOCK_MONOTONIC ns\n"
	       "for CLOCK_MONOTONIC; shown in us as p50 / p99 / max.\n"
	       "core decided-expires: the core's own DECIDED - EXPIRES of the same\n"
	       "expiries, debugfs clockdev/ptpN/expiries (device ns).\n"
	       "one-shot, nanosleep, timerfd: TIMER_ABSTIME, 1..%d ms ahead; periodic:\n"
	       "%d ms period.\n\n",
	       dev->name, DIST_SPREAD, PERIOD_MS);
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

	while ((c = getopt(argc, argv, "n:b:p:h")) != -1) {
		switch (c) {
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
	struct sigaction sa = { .sa_sigaction = on_probe,
				.sa_flags = SA_SIGINFO };
	static struct corelog log;
	struct clk dev = { .log = &log }, mono = { "CLOCK_MONOTONIC",
						   CLOCK_MONOTONIC, NULL };
	const char *base;
	sigset_t set;
	int fd;

	if (parse_args(argc, argv, &o)) {
		fprintf(stderr, "usage: fdclock-latency [-n SAMPLES] [-b N,...] [-p PPM] DEVICE\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open(o.path, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "fdclock-latency: %s: %s\n", o.path,
			strerror(errno));
		return 1;
	}
	base = strrchr(o.path, '/');
	base = base ? base + 1 : o.path;
	dev.name = clock_name(base);
	dev.id = FD_TO_CLOCKID(fd);
	snprintf(log.path, sizeof(log.path),
		 "/sys/kernel/debug/clockdev/%s/expiries", base);

	sigemptyset(&set);
	sigaddset(&set, SIG_PROBE);
	sigaddset(&set, SIG_BACKGROUND);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigaction(SIG_PROBE, &sa, NULL);

	print_header(&o, &dev);
	raise_limits(&o);
	if (kinds_table(&o, &dev, &mono) ||
	    background_table(&o, &dev, &mono))
		return 1;
	return 0;
}
