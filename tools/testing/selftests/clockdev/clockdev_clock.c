// SPDX-License-Identifier: GPL-2.0
/*
 * The clocks the clockdev selftests run on, made and removed at run time
 * where a driver allows it; feature probes; the core's tracepoints read
 * through tracefs instances.  See clockdev_util.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "clockdev_util.h"

#define PTP_SIM_BUS	"/sys/bus/ptp_sim"
#define NSIM_BUS	"/sys/bus/netdevsim"
#define RTC_TEST_DRV	"/sys/bus/platform/drivers/rtc-test"
#define TRACEFS		"/sys/kernel/tracing"

/* ---- clocks ---- */

static const char *const kind_names[] = {
	[CK_PTP_SIM]		= "ptp_sim",
	[CK_PTP_SIM_SLOW]	= "ptp_sim_sleeping",
	[CK_MOCK_PHC]		= "mock_phc",
	[CK_RTC]		= "rtc",
	[CK_RTC_NOALARM]	= "rtc_noalarm",
	[CK_E1000E]		= "e1000e",
	[CK_MONOTONIC]		= "CLOCK_MONOTONIC",
	[CK_REALTIME]		= "CLOCK_REALTIME",
	[CK_RTC_CMOS]		= "rtc_cmos",
	[CK_IGB]		= "igb",
};

int only_entry(const char *dir, const char *prefix, char *name, size_t len)
{
	struct dirent *e;
	int found = -ENOENT;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' ||
		    strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(name, len, "%.*s", (int)len - 1, e->d_name);
		found = 0;
		break;
	}
	closedir(d);
	return found;
}

/* The ptpN whose parent device is the sysfs device @dev. */
static int ptp_of_device(const char *dev, char *node, size_t len)
{
	char path[PATH_MAX], real[PATH_MAX], want[PATH_MAX];
	struct dirent *e;
	int found = -ENOENT;
	DIR *d;

	if (!realpath(dev, want))
		return -errno;
	d = opendir("/sys/class/ptp");
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "ptp", 3))
			continue;
		snprintf(path, sizeof(path), "/sys/class/ptp/%s/device",
			 e->d_name);
		if (realpath(path, real) && !strcmp(real, want)) {
			snprintf(node, len, "%.*s", (int)len - 1, e->d_name);
			found = 0;
			break;
		}
	}
	closedir(d);
	return found;
}

/*
 * An instance id of a driver that the tests of this process own: ids are
 * per process, so that tests in parallel processes do not collide.
 */
static int instance_id(void)
{
	static int n;

	return 1000 + (getpid() % 100000) * 10 + (n++ % 10);
}

static int make_ptp_sim(struct test_clock *c, bool sleeping, char *why,
			size_t len)
{
	char dir[128];
	int err;

	if (access(PTP_SIM_BUS, F_OK))
		run_cmd("modprobe ptp_sim >/dev/null 2>&1");
	if (access(PTP_SIM_BUS, F_OK)) {
		snprintf(why, len, "no ptp_sim (%s): this kernel lacks the simulated PHC",
			 PTP_SIM_BUS);
		return -ENOENT;
	}
	c->id = instance_id();
	/* "ID MAX_ADJ_PPB SLEEPING_READS"; 10000000 is ptp_sim's default. */
	err = write_file(PTP_SIM_BUS "/new_device", "%d 10000000 %d", c->id,
			 sleeping);
	if (err) {
		snprintf(why, len, "ptp_sim new_device %d: %s", c->id,
			 errname(-err));
		c->id = -1;
		return err;
	}
	snprintf(dir, sizeof(dir), PTP_SIM_BUS "/devices/ptp_sim%d", c->id);
	strcat(dir, "/ptp");
	err = only_entry(dir, "ptp", c->node, sizeof(c->node));
	if (err)
		snprintf(why, len, "no PTP clock under %s: %s", dir,
			 errname(-err));
	return err;
}

static int make_mock_phc(struct test_clock *c, char *why, size_t len)
{
	char dev[64];
	int err;

	if (access(NSIM_BUS, F_OK))
		run_cmd("modprobe netdevsim >/dev/null 2>&1");
	if (access(NSIM_BUS, F_OK)) {
		snprintf(why, len, "no netdevsim: CONFIG_NETDEVSIM is off");
		return -ENOENT;
	}
	c->id = instance_id();
	err = write_file(NSIM_BUS "/new_device", "%d 1", c->id);
	if (err) {
		snprintf(why, len, "netdevsim new_device %d: %s", c->id,
			 errname(-err));
		c->id = -1;
		return err;
	}
	snprintf(dev, sizeof(dev), "/sys/devices/netdevsim%d", c->id);
	err = ptp_of_device(dev, c->node, sizeof(c->node));
	if (err)
		snprintf(why, len, "netdevsim%d registered no PHC (CONFIG_PTP_1588_CLOCK_MOCK)",
			 c->id);
	return err;
}

/* The rtcclockN of platform device rtc-test.@n, loading rtc-test. */
static int find_rtc_test(struct test_clock *c, int n, char *why, size_t len)
{
	char dir[128], rtc[16];
	int err;

	snprintf(dir, sizeof(dir), "/sys/bus/platform/devices/rtc-test.%d/rtc",
		 n);
	if (access(dir, F_OK))
		run_cmd("modprobe rtc-test >/dev/null 2>&1");
	err = only_entry(dir, "rtc", rtc, sizeof(rtc));
	if (err) {
		snprintf(why, len, "no rtc-test.%d (CONFIG_RTC_DRV_TEST): %s",
			 n, errname(-err));
		return err;
	}
	snprintf(c->rtc, sizeof(c->rtc), "/dev/%s", rtc);
	snprintf(c->node, sizeof(c->node), "rtcclock%s", rtc + 3);
	c->id = n;
	c->tick = NSEC_PER_SEC;
	snprintf(c->dev, sizeof(c->dev), "/sys/bus/platform/devices/rtc-test.%d",
		 n);
	snprintf(dir, sizeof(dir), "/dev/%s", c->node);
	if (access(dir, F_OK)) {
		snprintf(why, len, "%s has no %s: this kernel has no RTC clocks",
			 rtc, dir);
		return -ENOENT;
	}
	return 0;
}

/* The PHC of the first NIC that @driver (e1000e, igb) is bound to. */
static int find_nic(struct test_clock *c, const char *driver, char *why,
		    size_t len)
{
	char dir[128], pci[64];
	int err;

	snprintf(dir, sizeof(dir), "/sys/bus/pci/drivers/%s", driver);
	err = only_entry(dir, "0000:", pci, sizeof(pci));
	if (err) {
		snprintf(why, len, "no %s device bound", driver);
		return err;
	}
	snprintf(dir, sizeof(dir), "/sys/bus/pci/drivers/%s/%s", driver, pci);
	err = ptp_of_device(dir, c->node, sizeof(c->node));
	if (err) {
		snprintf(why, len, "%s %s has no PHC", driver, pci);
		return err;
	}
	/* Where test_clock_remove() removes it. */
	if (!realpath(dir, c->dev) || strlen(c->dev) >= sizeof(c->dev)) {
		snprintf(why, len, "%s %s: no sysfs device", driver, pci);
		return -ENOENT;
	}
	return 0;
}

/*
 * Bring back a NIC removed from the PCI bus: rescan, and wait (the probe
 * may be asynchronous) until its PHC is registered again.
 */
static void nic_rescan(struct test_clock *c)
{
	s64 deadline = mono_ns() + SEC(10);
	char node[32];

	write_file("/sys/bus/pci/rescan", "1");
	while (ptp_of_device(c->dev, node, sizeof(node)) &&
	       mono_ns() < deadline)
		pass_time(MS(10));
}

/* The rtcN that @c->dev registered, and its clock. */
static int rtc_of_device(struct test_clock *c, char *why, size_t len)
{
	char dir[160], rtc[16];
	int err;

	snprintf(dir, sizeof(dir), "%s/rtc", c->dev);
	err = only_entry(dir, "rtc", rtc, sizeof(rtc));
	if (err) {
		snprintf(why, len, "%s registered no RTC: %s", c->dev,
			 errname(-err));
		return err;
	}
	snprintf(c->rtc, sizeof(c->rtc), "/dev/%s", rtc);
	snprintf(c->node, sizeof(c->node), "rtcclock%s", rtc + 3);
	c->tick = NSEC_PER_SEC;
	snprintf(dir, sizeof(dir), "/dev/%s", c->node);
	if (access(dir, F_OK)) {
		snprintf(why, len, "%s has no %s: this kernel has no RTC clocks",
			 rtc, dir);
		return -ENOENT;
	}
	return 0;
}

/* The RTC whose device's driver is rtc_cmos, whichever bus it is on. */
static int find_rtc_cmos(struct test_clock *c, char *why, size_t len)
{
	char path[PATH_MAX], real[PATH_MAX];
	int err = -ENOENT;
	struct dirent *e;
	DIR *d;

	d = opendir("/sys/class/rtc");
	if (!d) {
		err = -errno;
		snprintf(why, len, "no /sys/class/rtc (CONFIG_RTC_CLASS): %s",
			 errname(-err));
		return err;
	}
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "rtc", 3))
			continue;
		snprintf(path, sizeof(path), "/sys/class/rtc/%s/device/driver",
			 e->d_name);
		if (!realpath(path, real) ||
		    strcmp(strrchr(real, '/') + 1, "rtc_cmos"))
			continue;
		snprintf(path, sizeof(path), "/sys/class/rtc/%s/device",
			 e->d_name);
		if (!realpath(path, real) || strlen(real) >= sizeof(c->dev))
			continue;
		snprintf(c->dev, sizeof(c->dev), "%s", real);
		err = 0;
		break;
	}
	closedir(d);
	if (err) {
		snprintf(why, len, "no RTC driven by rtc_cmos (CONFIG_RTC_DRV_CMOS)");
		return err;
	}
	return rtc_of_device(c, why, len);
}

/* Write @c->dev's name to its rtc_cmos driver's @op: "bind" or "unbind". */
static int rtc_cmos_driver(const struct test_clock *c, const char *op)
{
	char path[PATH_MAX + 32], bus[PATH_MAX];

	snprintf(path, sizeof(path), "%s/subsystem", c->dev);
	if (!realpath(path, bus))
		return -errno;
	snprintf(path, sizeof(path), "%s/drivers/rtc_cmos/%s", bus, op);
	return write_file(path, "%s", strrchr(c->dev, '/') + 1);
}

/*
 * The narrowest of a few reads of @clk between two of CLOCK_MONOTONIC:
 * the clock's time, and in @mid and @width the CLOCK_MONOTONIC time at
 * the middle of that read and how long it took.
 */
static s64 bracket_read(clockid_t clk, s64 *mid, s64 *width)
{
	s64 t = -1, m0, m1, r;
	int i;

	for (i = 0; i < 3; i++) {
		m0 = mono_ns();
		r = clock_ns(clk);
		m1 = mono_ns();
		if (t < 0 || m1 - m0 < *width) {
			t = r;
			*mid = m0 + (m1 - m0) / 2;
			*width = m1 - m0;
		}
	}
	return t;
}

/*
 * The rate of a NIC's PHC against CLOCK_MONOTONIC over RATE_SPAN_NS, each
 * end placed to within half its read; measured again (up to 3 times)
 * while that leaves it uncertain by more than RATE_ERR_MAX.
 */
#define RATE_SPAN_NS	MS(50)
#define RATE_ERR_MAX	0.002

static void measure_rate(struct test_clock *c)
{
	s64 t0, t1, mid0, mid1, w0, w1;
	int i;

	for (i = 0; i < 3; i++) {
		t0 = bracket_read(c->clk, &mid0, &w0);
		pass_time(RATE_SPAN_NS);
		t1 = bracket_read(c->clk, &mid1, &w1);
		c->rate = (double)(t1 - t0) / (mid1 - mid0);
		c->rate_err = (w0 + w1) / 2.0 / (mid1 - mid0);
		if (c->rate_err <= RATE_ERR_MAX)
			break;
	}
}

int test_clock_make(struct test_clock *c, enum clock_kind kind,
		    char *why, size_t len)
{
	int err;

	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->name = kind_names[kind];
	c->fd = -1;
	c->id = -1;
	c->tick = 1;
	c->rate = 1;
	switch (kind) {
	case CK_MONOTONIC:
		c->clk = CLOCK_MONOTONIC;
		return 0;
	case CK_REALTIME:
		c->clk = CLOCK_REALTIME;
		return 0;
	case CK_PTP_SIM:
	case CK_PTP_SIM_SLOW:
		err = make_ptp_sim(c, kind == CK_PTP_SIM_SLOW, why, len);
		break;
	case CK_MOCK_PHC:
		err = make_mock_phc(c, why, len);
		break;
	case CK_RTC:
		err = find_rtc_test(c, 1, why, len);
		break;
	case CK_RTC_NOALARM:
		err = find_rtc_test(c, 0, why, len);
		break;
	case CK_E1000E:
		err = find_nic(c, "e1000e", why, len);
		break;
	case CK_IGB:
		err = find_nic(c, "igb", why, len);
		break;
	case CK_RTC_CMOS:
		err = find_rtc_cmos(c, why, len);
		break;
	default:
		err = -EINVAL;
	}
	if (err) {
		test_clock_destroy(c);
		return err;
	}
	snprintf(c->path, sizeof(c->path), "/dev/%s", c->node);
	c->fd = open(c->path, O_RDWR | O_CLOEXEC);
	if (c->fd < 0) {
		err = -errno;
		snprintf(why, len, "open %s: %s", c->path, errname(-err));
		test_clock_destroy(c);
		return err;
	}
	c->clk = FD_TO_CLOCKID(c->fd);
	if (kind == CK_E1000E || kind == CK_IGB)
		measure_rate(c);
	return 0;
}

int test_clock_open(const struct test_clock *c, int flags)
{
	int fd = open(c->path, flags | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int test_clock_remove(struct test_clock *c)
{
	int err;

	if (c->removed)
		return 0;
	switch (c->kind) {
	case CK_PTP_SIM:
	case CK_PTP_SIM_SLOW:
		err = c->id < 0 ? -EOPNOTSUPP :
		      write_file(PTP_SIM_BUS "/del_device", "%d", c->id);
		break;
	case CK_MOCK_PHC:
		err = c->id < 0 ? -EOPNOTSUPP :
		      write_file(NSIM_BUS "/del_device", "%d", c->id);
		break;
	case CK_RTC:
	case CK_RTC_NOALARM:
		err = write_file(RTC_TEST_DRV "/unbind", "rtc-test.%d", c->id);
		break;
	case CK_RTC_CMOS:
		err = rtc_cmos_driver(c, "unbind");
		break;
	case CK_E1000E:
	case CK_IGB: {
		char path[160];

		snprintf(path, sizeof(path), "%s/remove", c->dev);
		err = c->dev[0] ? write_file(path, "1") : -EOPNOTSUPP;
		break;
	}
	default:
		err = -EOPNOTSUPP;
	}
	if (!err)
		c->removed = true;
	return err;
}

void test_clock_destroy(struct test_clock *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	switch (c->kind) {
	case CK_PTP_SIM:
	case CK_PTP_SIM_SLOW:
	case CK_MOCK_PHC:
		if (c->id >= 0 && !c->removed)
			test_clock_remove(c);
		break;
	case CK_RTC:
	case CK_RTC_NOALARM:
		/* An RTC unbound by the test is bound again. */
		if (c->removed) {
			write_file(RTC_TEST_DRV "/bind", "rtc-test.%d", c->id);
			c->removed = false;
		}
		break;
	case CK_RTC_CMOS:
		if (c->removed) {
			rtc_cmos_driver(c, "bind");
			c->removed = false;
		}
		break;
	case CK_E1000E:
	case CK_IGB:
		if (c->removed) {
			nic_rescan(c);
			c->removed = false;
		}
		break;
	default:
		break;
	}
}

/* ---- feature probes ---- */

int probe_timer_create(clockid_t clk)
{
	int id, err;

	err = sys_timer_create(clk, SIGEV_NONE, 0, 0, 0, &id);
	if (!err)
		sys_timer_delete(id);
	return err;
}

int probe_nanosleep(clockid_t clk)
{
	return sys_clock_nanosleep(clk, 0, 0, NULL);
}

int probe_timerfd(clockid_t clk)
{
	int fd = timerfd_create(clk, TFD_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* ---- tracefs instances ---- */

int trace_instance_start(char *dir, size_t len, const char *name,
			 int buffer_kb, const char *event,
			 const char *filter, ...)
{
	char path[384], expr[256];
	va_list ap;
	int err;

	va_start(ap, filter);
	vsnprintf(expr, sizeof(expr), filter, ap);
	va_end(ap);
	if (access(TRACEFS "/instances", F_OK))
		run_cmd("mount -t tracefs nodev " TRACEFS " >/dev/null 2>&1");
	snprintf(dir, len, TRACEFS "/instances/%s", name);
	if (mkdir(dir, 0700) && errno != EEXIST) {
		err = -errno;
		dir[0] = '\0';
		return err;
	}
	snprintf(path, sizeof(path), "%s/events/%s", dir, event);
	if (access(path, F_OK)) {
		err = -ENOENT;
		goto out_rmdir;
	}
	if (buffer_kb) {
		snprintf(path, sizeof(path), "%s/buffer_size_kb", dir);
		write_file(path, "%d", buffer_kb);
	}
	snprintf(path, sizeof(path), "%s/events/%s/filter", dir, event);
	err = write_file(path, "%s", expr);
	if (!err) {
		snprintf(path, sizeof(path), "%s/events/%s/enable", dir, event);
		err = write_file(path, "1");
	}
	if (!err)
		return 0;
out_rmdir:
	rmdir(dir);
	dir[0] = '\0';
	return err;
}

/* ---- expiry audit ---- */

int expiry_audit_start(struct expiry_audit *a, const char *node)
{
	char name[64];

	memset(a, 0, sizeof(*a));
	snprintf(name, sizeof(name), "clockdev-%d-%s", getpid(), node);
	/* Room for every decision of a test: ~40 bytes an event. */
	return trace_instance_start(a->dir, sizeof(a->dir), name, 4096,
				    "clockdev/clockdev_timer_expire",
				    "clock == \"%s\"", node);
}

int expiry_audit_stop(struct expiry_audit *a)
{
	unsigned long long expires, now;
	long in_buf, written;
	char path[192], line[512], *p;
	FILE *f;

	if (!a->dir[0])
		return -EINVAL;
	snprintf(path, sizeof(path),
		 "%s/events/clockdev/clockdev_timer_expire/enable", a->dir);
	write_file(path, "0");
	snprintf(path, sizeof(path), "%s/trace", a->dir);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "# entries-in-buffer/entries-written: %ld/%ld",
			   &in_buf, &written) == 2) {
			a->lost = written - in_buf;
			continue;
		}
		p = strstr(line, "clockdev_timer_expire:");
		if (!p)
			continue;
		p = strstr(p, "expires=");
		if (!p || sscanf(p, "expires=%llu now=%llu", &expires, &now) != 2)
			continue;
		a->events++;
		if (now < expires) {
			if (!a->early++)
				snprintf(a->first_early, sizeof(a->first_early),
					 "%.255s", line);
		} else if ((s64)(now - expires) > a->max_late) {
			a->max_late = now - expires;
		}
	}
	fclose(f);
	rmdir(a->dir);
	a->dir[0] = '\0';
	return 0;
}

int expiry_audit_stop_lates(struct expiry_audit *a, struct lates *l)
{
	unsigned long long expires, now;
	char path[192], line[512], *p;
	FILE *f;

	if (!a->dir[0])
		return -EINVAL;
	snprintf(path, sizeof(path),
		 "%s/events/clockdev/clockdev_timer_expire/enable", a->dir);
	write_file(path, "0");
	snprintf(path, sizeof(path), "%s/trace", a->dir);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, "clockdev_timer_expire:");
		if (p)
			p = strstr(p, "expires=");
		if (p && sscanf(p, "expires=%llu now=%llu", &expires, &now) == 2)
			lates_add(l, (s64)(now - expires));
	}
	fclose(f);
	return expiry_audit_stop(a);
}

int test_clock_rebind(struct test_clock *c)
{
	char why[160];
	int err;

	if (!c->removed)
		return -EINVAL;
	/* The old clock pins the old RTC, and its number, until closed. */
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	switch (c->kind) {
	case CK_RTC:
	case CK_RTC_NOALARM:
		err = write_file(RTC_TEST_DRV "/bind", "rtc-test.%d", c->id);
		break;
	case CK_RTC_CMOS:
		err = rtc_cmos_driver(c, "bind");
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (err)
		return err;
	c->removed = false;
	if (c->kind == CK_RTC_CMOS)
		err = rtc_of_device(c, why, sizeof(why));
	else
		err = find_rtc_test(c, c->id, why, sizeof(why));
	if (err)
		return err;
	snprintf(c->path, sizeof(c->path), "/dev/%s", c->node);
	c->fd = open(c->path, O_RDWR | O_CLOEXEC);
	if (c->fd < 0)
		return -errno;
	c->clk = FD_TO_CLOCKID(c->fd);
	return 0;
}

/* ---- counting a tracepoint's events ---- */

int event_count_start(struct event_count *e, const char *event,
		      const char *node)
{
	char name[128], path[128];

	memset(e, 0, sizeof(*e));
	snprintf(e->event, sizeof(e->event), "%s", event);
	snprintf(name, sizeof(name), "clockdev-%d-%s-%s", getpid(), event,
		 node);
	snprintf(path, sizeof(path), "clockdev/%s", event);
	return trace_instance_start(e->dir, sizeof(e->dir), name, 0, path,
				    "clock == \"%s\"", node);
}

int event_count_stop(struct event_count *e)
{
	char path[320], line[512], name[80];
	long in_buf, written;
	FILE *f;

	if (!e->dir[0])
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/events/clockdev/%s/enable", e->dir,
		 e->event);
	write_file(path, "0");
	snprintf(path, sizeof(path), "%s/trace", e->dir);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	snprintf(name, sizeof(name), "%s:", e->event);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "# entries-in-buffer/entries-written: %ld/%ld",
			   &in_buf, &written) == 2)
			e->lost = written - in_buf;
		else if (line[0] != '#' && strstr(line, name))
			e->events++;
	}
	fclose(f);
	rmdir(e->dir);
	e->dir[0] = '\0';
	return 0;
}
