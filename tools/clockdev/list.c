// SPDX-License-Identifier: GPL-2.0
/*
 * clockdev - list: every dynamic clock of the system, from sysfs.
 *
 * PTP clocks are the devices of class "ptp", RTC clocks those of class
 * "rtc_clock" (children of their rtcN), and any other character device
 * whose major is registered as "clockdev" in /proc/devices is a dynamic
 * clock too (kind "other").
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clockdev.h"

/* PTP class attributes shown, and their short names in the table. */
static const struct {
	const char *attr;
	const char *label;
} ptp_attrs[] = {
	{ "max_adjustment", "max_adj" },
	{ "n_alarms", "alarms" },
	{ "n_external_timestamps", "extts" },
	{ "n_periodic_outputs", "perout" },
	{ "n_programmable_pins", "pins" },
	{ "pps_available", "pps" },
	{ "n_vclocks", "vclocks" },
	{ "max_vclocks", "max_vclocks" },
};

#define N_PTP_ATTRS	ARRAY_SIZE(ptp_attrs)
#define MAX_IFACES	8

/**
 * struct entry - one clock of the list
 * @dev:       its device node
 * @kind:      CK_PTP, CK_RTC or CK_OTHER
 * @driver:    the driver of its parent device (or the nearest ancestor's)
 * @bus:       the bus of that device
 * @name:      PTP: clock_name; RTC: the RTC's name; other: device name
 * @ptp_index: N of ptpN, or -1
 * @ifaces:    network interfaces whose PHC it is
 * @n_ifaces:  how many
 * @attr:      PTP attributes (@has tells which exist)
 * @has:       which of @attr were read
 * @rtc:       RTC clock: its rtcN
 * @wakeup:    RTC clock: power/wakeup of the RTC's device
 */
struct entry {
	char dev[300];
	enum clock_kind kind;
	char driver[64];
	char bus[64];
	char name[128];
	int ptp_index;
	char ifaces[MAX_IFACES][32];
	int n_ifaces;
	long long attr[N_PTP_ATTRS];
	bool has[N_PTP_ATTRS];
	char rtc[32];
	char wakeup[16];
};

static struct entry *entries;
static size_t n_entries, cap_entries;

/* Network interfaces and their PHC index, read once. */
static struct {
	char name[32];
	int phc;
} ifs[64];
static int n_ifs = -1;

static struct entry *new_entry(enum clock_kind kind)
{
	struct entry *e;

	if (n_entries == cap_entries) {
		size_t cap = cap_entries ? 2 * cap_entries : 16;
		struct entry *p = realloc(entries, cap * sizeof(*p));

		if (!p)
			return NULL;
		entries = p;
		cap_entries = cap;
	}
	e = &entries[n_entries++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->ptp_index = -1;
	return e;
}

static bool listed(const char *dev)
{
	size_t i;

	for (i = 0; i < n_entries; i++)
		if (!strcmp(entries[i].dev, dev))
			return true;
	return false;
}

/*
 * The driver of device directory @dir, or of its nearest ancestor through
 * "device" links (an RTC clock's parent, rtcN, has none; its device has);
 * @bus is the bus of the first of them that sits on a bus.
 */
static void find_driver(const char *dir, struct entry *e)
{
	char path[PATH_MAX], target[PATH_MAX];
	int depth;
	ssize_t n;

	snprintf(path, sizeof(path), "%s", dir);
	for (depth = 0; depth < 3; depth++) {
		char link[PATH_MAX + 16];

		snprintf(link, sizeof(link), "%s/subsystem", path);
		n = readlink(link, target, sizeof(target) - 1);
		if (n > 0 && !e->bus[0]) {
			target[n] = '\0';
			if (strstr(target, "/bus/"))
				link_base(link, e->bus, sizeof(e->bus));
		}
		snprintf(link, sizeof(link), "%s/driver", path);
		if (!link_base(link, e->driver, sizeof(e->driver)))
			return;
		if (strlen(path) + 8 >= sizeof(path))
			return;
		strcat(path, "/device");
	}
}

static void scan_ifaces(void)
{
	struct dirent *d;
	DIR *dir;

	n_ifs = 0;
	dir = opendir("/sys/class/net");
	if (!dir)
		return;
	while ((d = readdir(dir)) && n_ifs < (int)ARRAY_SIZE(ifs)) {
		int phc;

		if (d->d_name[0] == '.' ||
		    strlen(d->d_name) >= sizeof(ifs[0].name))
			continue;
		if (iface_phc_index(d->d_name, &phc) || phc < 0)
			continue;
		snprintf(ifs[n_ifs].name, sizeof(ifs[0].name), "%s", d->d_name);
		ifs[n_ifs++].phc = phc;
	}
	closedir(dir);
}

static void add_iface(struct entry *e, const char *name)
{
	int i;

	for (i = 0; i < e->n_ifaces; i++)
		if (!strcmp(e->ifaces[i], name))
			return;
	if (e->n_ifaces < MAX_IFACES && strlen(name) < sizeof(e->ifaces[0]))
		snprintf(e->ifaces[e->n_ifaces++], sizeof(e->ifaces[0]), "%s",
			 name);
}

static void ptp_ifaces(struct entry *e, const char *sysdir)
{
	char path[PATH_MAX + 16];
	struct dirent *d;
	DIR *dir;
	int i;

	if (n_ifs < 0)
		scan_ifaces();
	for (i = 0; i < n_ifs; i++)
		if (ifs[i].phc == e->ptp_index)
			add_iface(e, ifs[i].name);
	snprintf(path, sizeof(path), "%s/device/net", sysdir);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			add_iface(e, d->d_name);
	closedir(dir);
}

static void scan_ptp(void)
{
	char sysdir[PATH_MAX], path[PATH_MAX + 32], buf[128];
	struct dirent *d;
	struct entry *e;
	size_t i;
	DIR *dir;

	dir = opendir("/sys/class/ptp");
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (strncmp(d->d_name, "ptp", 3))
			continue;
		e = new_entry(CK_PTP);
		if (!e)
			break;
		snprintf(e->dev, sizeof(e->dev), "/dev/%s", d->d_name);
		if (sscanf(d->d_name, "ptp%d", &e->ptp_index) != 1)
			e->ptp_index = -1;
		snprintf(sysdir, sizeof(sysdir), "/sys/class/ptp/%s",
			 d->d_name);
		snprintf(path, sizeof(path), "%s/clock_name", sysdir);
		read_attr(path, e->name, sizeof(e->name));
		snprintf(path, sizeof(path), "%s/device", sysdir);
		find_driver(path, e);
		for (i = 0; i < N_PTP_ATTRS; i++) {
			snprintf(path, sizeof(path), "%s/%s", sysdir,
				 ptp_attrs[i].attr);
			if (read_attr(path, buf, sizeof(buf)))
				continue;
			e->attr[i] = strtoll(buf, NULL, 0);
			e->has[i] = true;
		}
		ptp_ifaces(e, sysdir);
	}
	closedir(dir);
}

static void scan_rtc_clocks(void)
{
	char sysdir[PATH_MAX], path[PATH_MAX + 32];
	struct dirent *d;
	struct entry *e;
	DIR *dir;

	dir = opendir("/sys/class/rtc_clock");
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		e = new_entry(CK_RTC);
		if (!e)
			break;
		snprintf(e->dev, sizeof(e->dev), "/dev/%s", d->d_name);
		snprintf(sysdir, sizeof(sysdir), "/sys/class/rtc_clock/%s",
			 d->d_name);
		snprintf(path, sizeof(path), "%s/device", sysdir);
		link_base(path, e->rtc, sizeof(e->rtc));
		find_driver(path, e);
		snprintf(path, sizeof(path), "%s/device/name", sysdir);
		read_attr(path, e->name, sizeof(e->name));
		snprintf(path, sizeof(path), "%s/device/device/power/wakeup",
			 sysdir);
		read_attr(path, e->wakeup, sizeof(e->wakeup));
	}
	closedir(dir);
}

/* The majors registered as "clockdev" in /proc/devices. */
static int clockdev_majors(unsigned int *majors, int max)
{
	char line[128], name[64];
	bool chr = false;
	unsigned int maj;
	int n = 0;
	FILE *f;

	f = fopen("/proc/devices", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Character", 9)) {
			chr = true;
			continue;
		}
		if (!strncmp(line, "Block", 5))
			chr = false;
		if (chr && n < max &&
		    sscanf(line, "%u %63s", &maj, name) == 2 &&
		    !strcmp(name, "clockdev"))
			majors[n++] = maj;
	}
	fclose(f);
	return n;
}

static void scan_other(void)
{
	char path[PATH_MAX], uevent[1024], sub[64], dev[300];
	unsigned int majors[8], maj, min;
	int n, i;
	struct dirent *d;
	struct entry *e;
	char *p;
	DIR *dir;

	n = clockdev_majors(majors, ARRAY_SIZE(majors));
	if (!n)
		return;
	dir = opendir("/sys/dev/char");
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (sscanf(d->d_name, "%u:%u", &maj, &min) != 2)
			continue;
		for (i = 0; i < n && majors[i] != maj; i++)
			;
		if (i == n)
			continue;
		snprintf(path, sizeof(path), "/sys/dev/char/%s/uevent",
			 d->d_name);
		if (read_attr(path, uevent, sizeof(uevent)))
			continue;
		p = strstr(uevent, "DEVNAME=");
		if (!p)
			continue;
		p += 8;
		p[strcspn(p, "\n")] = '\0';
		snprintf(dev, sizeof(dev), "/dev/%s", p);
		if (listed(dev))
			continue;
		snprintf(path, sizeof(path), "/sys/dev/char/%s/subsystem",
			 d->d_name);
		link_base(path, sub, sizeof(sub));
		e = new_entry(!strcmp(sub, "ptp") ? CK_PTP :
			      !strcmp(sub, "rtc_clock") ? CK_RTC : CK_OTHER);
		if (!e)
			break;
		snprintf(e->dev, sizeof(e->dev), "%s", dev);
		snprintf(path, sizeof(path), "/sys/dev/char/%s", d->d_name);
		link_base(path, e->name, sizeof(e->name));
		snprintf(path, sizeof(path), "/sys/dev/char/%s/device",
			 d->d_name);
		find_driver(path, e);
	}
	closedir(dir);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind - y->kind;
	return strverscmp(x->dev, y->dev);
}

/* The DETAILS column. */
static void details(const struct entry *e, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	if (e->kind == CK_RTC) {
		snprintf(buf, len, "%s%s%s", e->rtc,
			 e->wakeup[0] ? ", wakeup " : "", e->wakeup);
		return;
	}
	for (i = 0; i < N_PTP_ATTRS && off < len; i++)
		if (e->has[i])
			off += snprintf(buf + off, len - off, "%s%s %lld",
					off ? ", " : "", ptp_attrs[i].label,
					e->attr[i]);
}

static void ifaces_text(const struct entry *e, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	snprintf(buf, len, "-");
	for (i = 0; i < e->n_ifaces && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? "," : "",
				e->ifaces[i]);
}

static void driver_text(const struct entry *e, char *buf, size_t len)
{
	if (e->driver[0])
		snprintf(buf, len, "%s", e->driver);
	else if (e->bus[0])
		snprintf(buf, len, "(%s)", e->bus);
	else
		snprintf(buf, len, "-");
}

static void print_json(const struct entry *e)
{
	size_t i;
	int j;

	jbegin("list", NULL);
	jstr("clock", e->dev);
	jstr("kind", clock_kind_name(e->kind));
	if (e->driver[0])
		jstr("driver", e->driver);
	else
		jnull("driver");
	if (e->bus[0])
		jstr("bus", e->bus);
	jstr("name", e->name);
	if (e->kind == CK_PTP) {
		jint("ptp_index", e->ptp_index);
		jarr_begin("interfaces");
		for (j = 0; j < e->n_ifaces; j++)
			jarr_str(e->ifaces[j]);
		jarr_end();
		for (i = 0; i < N_PTP_ATTRS; i++)
			if (e->has[i])
				jint(ptp_attrs[i].attr, e->attr[i]);
	}
	if (e->rtc[0])
		jstr("rtc", e->rtc);
	if (e->wakeup[0])
		jstr("wakeup", e->wakeup);
	jend();
}

int run_list(void)
{
	static const char * const head[] = {
		"DEVICE", "KIND", "DRIVER", "NAME", "IFACE", "DETAILS",
	};
	char cols[6][300];
	int w[6], i;
	size_t k;

	scan_ptp();
	scan_rtc_clocks();
	scan_other();
	if (n_entries)
		qsort(entries, n_entries, sizeof(*entries), cmp_entry);
	if (json) {
		for (k = 0; k < n_entries; k++)
			print_json(&entries[k]);
		goto out;
	}
	if (!n_entries) {
		printf("list: no dynamic clocks\n");
		goto out;
	}
	for (i = 0; i < 6; i++)
		w[i] = strlen(head[i]);
	/* Two passes: widths, then the table. */
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			printf("%-*s  %-*s  %-*s  %-*s  %-*s  %s\n",
			       w[0], head[0], w[1], head[1], w[2], head[2],
			       w[3], head[3], w[4], head[4], head[5]);
		for (k = 0; k < n_entries; k++) {
			const struct entry *e = &entries[k];

			snprintf(cols[0], sizeof(cols[0]), "%s", e->dev);
			snprintf(cols[1], sizeof(cols[1]), "%s",
				 clock_kind_name(e->kind));
			driver_text(e, cols[2], sizeof(cols[2]));
			snprintf(cols[3], sizeof(cols[3]), "%s",
				 e->name[0] ? e->name : "-");
			ifaces_text(e, cols[4], sizeof(cols[4]));
			details(e, cols[5], sizeof(cols[5]));
			for (i = 0; i < 6 && !pass; i++)
				if ((int)strlen(cols[i]) > w[i])
					w[i] = strlen(cols[i]);
			if (pass)
				printf("%-*s  %-*s  %-*s  %-*s  %-*s  %s\n",
				       w[0], cols[0], w[1], cols[1], w[2],
				       cols[2], w[3], cols[3], w[4], cols[4],
				       cols[5]);
		}
	}
out:
	free(entries);
	return 0;
}
