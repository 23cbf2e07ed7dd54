// SPDX-License-Identifier: GPL-2.0
/*
 * teardown_bench: what removing a clock costs, and what a clock, an open
 * file and a timer on it cost in memory.
 *
 * usage: teardown_bench [-n N,...] [-c CLOCKS]
 *
 * For each N: creates a ptp_sim instance, opens its /dev/ptpN N times and
 * arms N POSIX timers (SIGEV_NONE, an hour ahead, one per file's clockid),
 * then times its removal (the write of its ID to del_device, which returns
 * once clockdev_unregister() has disarmed the timers and waited for the
 * operations under way), and checks that every file and every timer then
 * fails with ENODEV.  Memory: the growth of Slab + Percpu + KernelStack in
 * /proc/meminfo over CLOCKS instances (default 20), per clock (and each of
 * the three apart; Percpu grows by whole chunks), measured first, and over
 * the N files and the N timers, per file and per timer.
 * Those are whole-system figures: other activity in the guest adds to them.
 * An open file of a PTP clock includes what the PTP core allocates per
 * file (its queue of external timestamps).
 * Output: one line per figure, "bench<TAB>ROW<TAB>VALUE<TAB>UNIT".  A
 * benchmark, not a test: it judges nothing but reports ENODEV counts.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "clockdev_util.h"

#define PTP_SIM_BUS	"/sys/bus/ptp_sim"
#define MAX_SETS	8
#define MAX_N		100000
#define FIRST_ID	7000

#define MEM_FIELDS	3
static const char *const mem_fields[MEM_FIELDS] = {
	"Slab", "Percpu", "KernelStack",
};

/*
 * Slab, Percpu and KernelStack from /proc/meminfo, in kB, in @kb; returns
 * their sum, or -1 on error.
 */
static long kernel_kb_each(long *kb)
{
	char line[128];
	long sum = 0, v;
	size_t i, n;
	FILE *f;

	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	for (i = 0; i < MEM_FIELDS; i++)
		kb[i] = 0;
	while (fgets(line, sizeof(line), f))
		for (i = 0; i < MEM_FIELDS; i++) {
			n = strlen(mem_fields[i]);
			if (!strncmp(line, mem_fields[i], n) && line[n] == ':' &&
			    sscanf(line + n + 1, "%ld", &v) == 1) {
				kb[i] = v;
				sum += v;
			}
		}
	fclose(f);
	return sum;
}

/* Slab + Percpu + KernelStack from /proc/meminfo, in kB; -1 on error. */
static long kernel_kb(void)
{
	long kb[MEM_FIELDS];

	return kernel_kb_each(kb);
}

static void figure(const char *row, double value, const char *unit)
{
	printf("bench\t%s\t%.*f\t%s\n", row, value < 100 ? 2 : 1, value, unit);
}

/* Create ptp_sim instance @id; its node in @path.  0 or -errno. */
static int sim_create(int id, char *path, size_t len)
{
	struct dirent *e;
	char dir[96];
	int err;
	DIR *d;

	err = write_file(PTP_SIM_BUS "/new_device", "%d", id);
	if (err)
		return err;
	snprintf(dir, sizeof(dir), PTP_SIM_BUS "/devices/ptp_sim%d/ptp", id);
	d = opendir(dir);
	if (!d)
		return -errno;
	err = -ENOENT;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "ptp", 3)) {
			snprintf(path, len, "/dev/%.32s", e->d_name);
			err = 0;
			break;
		}
	closedir(d);
	return err;
}

static int sim_delete(int id)
{
	return write_file(PTP_SIM_BUS "/del_device", "%d", id);
}

static void raise_limits(int n)
{
	struct rlimit r = { n + 1024, n + 1024 };

	if (setrlimit(RLIMIT_NOFILE, &r) || setrlimit(RLIMIT_SIGPENDING, &r))
		printf("# could not raise RLIMIT_NOFILE and RLIMIT_SIGPENDING to %d: %s\n",
		       n + 1024, errname(errno));
}

/* One removal under @n files and @n timers. */
static int teardown(int id, int n)
{
	int *fds = calloc(n, sizeof(*fds)), *ids = calloc(n, sizeof(*ids));
	long kb0, kb1, kb2;
	int i, err, nfd = 0, ntm = 0, enodev_fd = 0, enodev_tm = 0;
	char path[64], row[96];
	s64 t0, t1, v, iv;

	if (!fds || !ids)
		return -ENOMEM;
	err = sim_create(id, path, sizeof(path));
	if (err) {
		printf("# ptp_sim new_device %d: %s\n", id, errname(-err));
		goto out;
	}
	kb0 = kernel_kb();
	for (nfd = 0; nfd < n; nfd++) {
		fds[nfd] = open(path, O_RDONLY | O_CLOEXEC);
		if (fds[nfd] < 0) {
			printf("# open %s #%d: %s\n", path, nfd, errname(errno));
			break;
		}
	}
	kb1 = kernel_kb();
	for (ntm = 0; ntm < nfd; ntm++) {
		clockid_t clk = FD_TO_CLOCKID(fds[ntm]);

		err = sys_timer_create(clk, SIGEV_NONE, 0, 0, 0, &ids[ntm]);
		if (!err)
			err = sys_timer_settime(ids[ntm], TIMER_ABSTIME,
						clock_ns(clk) + SEC(3600LL), 0);
		if (err) {
			printf("# timer #%d: %s\n", ntm, errname(-err));
			break;
		}
	}
	kb2 = kernel_kb();
	if (n >= 1000 && nfd == n && ntm == n) {
		figure("kernel memory per open file", (kb1 - kb0) * 1024.0 / n,
		       "bytes");
		figure("kernel memory per armed timer",
		       (kb2 - kb1) * 1024.0 / n, "bytes");
	}

	t0 = mono_ns();
	err = sim_delete(id);
	t1 = mono_ns();
	if (err) {
		printf("# ptp_sim del_device %d: %s\n", id, errname(-err));
		goto out;
	}
	snprintf(row, sizeof(row), "remove a clock with %d files and %d timers",
		 nfd, ntm);
	figure(row, (t1 - t0) / 1e6, "ms");

	for (i = 0; i < nfd; i++) {
		struct timespec ts;

		if (clock_gettime(FD_TO_CLOCKID(fds[i]), &ts) && errno == ENODEV)
			enodev_fd++;
	}
	for (i = 0; i < ntm; i++)
		if (sys_timer_gettime(ids[i], &v, &iv) == -ENODEV)
			enodev_tm++;
	printf("# after removal: %d of %d files and %d of %d timers give ENODEV\n",
	       enodev_fd, nfd, enodev_tm, ntm);
	if (enodev_fd != nfd || enodev_tm != ntm)
		err = -EIO;
out:
	for (i = 0; i < ntm; i++)
		sys_timer_delete(ids[i]);
	for (i = 0; i < nfd; i++)
		close(fds[i]);
	free(fds);
	free(ids);
	return err;
}

/* Memory of @n clocks, created and removed. */
static int clocks_memory(int n)
{
	long kb0, kb1, each0[MEM_FIELDS], each1[MEM_FIELDS];
	char path[64], row[96];
	int i, made, err = 0;

	kb0 = kernel_kb_each(each0);
	for (made = 0; made < n; made++) {
		err = sim_create(FIRST_ID + 500 + made, path, sizeof(path));
		if (err) {
			printf("# ptp_sim new_device %d: %s\n",
			       FIRST_ID + 500 + made, errname(-err));
			break;
		}
	}
	kb1 = kernel_kb_each(each1);
	if (made == n) {
		figure("kernel memory per ptp_sim clock (device, PTP, clockdev)",
		       (kb1 - kb0) * 1024.0 / n, "bytes");
		/* Percpu: the SRCU per-CPU data, if it took a new chunk. */
		for (i = 0; i < MEM_FIELDS; i++) {
			snprintf(row, sizeof(row),
				 "kernel memory per ptp_sim clock, %s", mem_fields[i]);
			figure(row, (each1[i] - each0[i]) * 1024.0 / n, "bytes");
		}
	}
	for (i = 0; i < made; i++)
		sim_delete(FIRST_ID + 500 + i);
	return err;
}

int main(int argc, char **argv)
{
	int sets[MAX_SETS] = { 1, 100, 10000 }, nsets = 3, nclocks = 20;
	int c, i, max = 0, rc = 0;
	char *s, *end;

	while ((c = getopt(argc, argv, "n:c:")) != -1) {
		switch (c) {
		case 'n':
			for (nsets = 0, s = optarg; *s && nsets < MAX_SETS;
			     s = end + (*end == ',')) {
				sets[nsets] = strtol(s, &end, 10);
				if (end == s || sets[nsets] < 1 ||
				    sets[nsets] > MAX_N)
					goto usage;
				nsets++;
			}
			break;
		case 'c':
			nclocks = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (access(PTP_SIM_BUS, F_OK))
		run_cmd("modprobe ptp_sim >/dev/null 2>&1");
	if (access(PTP_SIM_BUS, F_OK)) {
		printf("# no ptp_sim: this kernel lacks the simulated PHC\n");
		return 1;
	}
	for (i = 0; i < nsets; i++)
		if (sets[i] > max)
			max = sets[i];
	raise_limits(max);
	/* First, while nothing freed lately makes the slab shrink. */
	if (nclocks > 0 && clocks_memory(nclocks))
		rc = 1;
	for (i = 0; i < nsets; i++)
		if (teardown(FIRST_ID + i, sets[i]))
			rc = 1;
	return rc;
usage:
	fprintf(stderr, "usage: teardown_bench [-n N,...] [-c CLOCKS]\n");
	return 2;
}
