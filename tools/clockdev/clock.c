// SPDX-License-Identifier: GPL-2.0
/*
 * clockdev - naming clocks (device paths, PTP indexes, network interfaces,
 * static clock names), opening them, and what errors on them mean.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "clockdev.h"

/**
 * struct static_clock - a static clock and the names it answers to
 * @name:    the canonical name, as messages show it
 * @id:      its clockid
 * @aliases: other names (case does not matter for any of them)
 */
static const struct static_clock {
	const char *name;
	clockid_t id;
	const char *aliases[4];
} static_clocks[] = {
	{ "CLOCK_REALTIME", CLOCK_REALTIME, { "realtime", "sys", "system" } },
	{ "CLOCK_MONOTONIC", CLOCK_MONOTONIC, { "monotonic", "mono" } },
	{ "CLOCK_MONOTONIC_RAW", CLOCK_MONOTONIC_RAW,
	  { "monotonic_raw", "monotonic-raw", "raw" } },
	{ "CLOCK_BOOTTIME", CLOCK_BOOTTIME, { "boottime", "boot" } },
	{ "CLOCK_TAI", CLOCK_TAI, { "tai" } },
};

static const struct static_clock *find_static(const char *spec)
{
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(static_clocks); i++) {
		const struct static_clock *sc = &static_clocks[i];

		if (!strcasecmp(spec, sc->name))
			return sc;
		for (j = 0; j < ARRAY_SIZE(sc->aliases) && sc->aliases[j]; j++)
			if (!strcasecmp(spec, sc->aliases[j]))
				return sc;
	}
	return NULL;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/**
 * clock_parse() - find what a clock name means, without opening anything
 * @spec: a device path (containing '/'), a PTP index N (/dev/ptpN), a static
 *        clock name, a network interface (its PHC), or a device name under
 *        /dev, tried in that order
 * @c:    filled in; clock_open() completes it
 *
 * Return: false when @spec is none of these.
 */
bool clock_parse(const char *spec, struct clock *c)
{
	const struct static_clock *sc;
	char path[PATH_MAX + 16];
	struct stat st;

	memset(c, 0, sizeof(*c));
	c->spec = spec;
	c->fd = -1;
	c->ptp_index = -1;
	c->kind = CK_OTHER;
	if (!*spec || strlen(spec) >= sizeof(c->name) - 8)
		return false;
	if (strchr(spec, '/')) {
		snprintf(c->name, sizeof(c->name), "%s", spec);
		return true;
	}
	if (all_digits(spec)) {
		if (strlen(spec) > 6)
			return false;
		c->kind = CK_PTP;
		c->ptp_index = atoi(spec);
		snprintf(c->name, sizeof(c->name), "/dev/ptp%d", c->ptp_index);
		return true;
	}
	sc = find_static(spec);
	if (sc) {
		c->kind = CK_STATIC;
		c->id = sc->id;
		snprintf(c->name, sizeof(c->name), "%s", sc->name);
		return true;
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s", spec);
	if (strlen(spec) < IFNAMSIZ && !stat(path, &st)) {
		c->kind = CK_PTP;
		snprintf(c->iface, sizeof(c->iface), "%s", spec);
		snprintf(c->name, sizeof(c->name), "%s", spec);
		return true;
	}
	snprintf(path, sizeof(path), "/dev/%s", spec);
	if (!stat(path, &st) && S_ISCHR(st.st_mode) &&
	    strlen(path) < sizeof(c->name)) {
		snprintf(c->name, sizeof(c->name), "%s", path);
		return true;
	}
	return false;
}

bool clock_is_static(const struct clock *c)
{
	return c->kind == CK_STATIC;
}

const char *clock_kind_name(enum clock_kind kind)
{
	switch (kind) {
	case CK_STATIC:
		return "static";
	case CK_PTP:
		return "ptp";
	case CK_RTC:
		return "rtc";
	default:
		return "other";
	}
}

int read_attr(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

int link_base(const char *path, char *buf, size_t len)
{
	char target[PATH_MAX];
	ssize_t n;
	char *base;

	buf[0] = '\0';
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	snprintf(buf, len, "%s", base ? base + 1 : target);
	return 0;
}

/**
 * iface_phc_index() - the PHC of a network interface
 * @ifname: the interface
 * @index:  its PHC index, -1 when it has none
 *
 * Return: 0, or -errno of the ETHTOOL_GET_TS_INFO request.
 */
int iface_phc_index(const char *ifname, int *index)
{
	struct ethtool_ts_info info = { .cmd = ETHTOOL_GET_TS_INFO };
	struct ifreq ifr;
	int fd, err = 0;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&info;
	/* Any socket reaches the device ioctls; a kernel may lack AF_INET. */
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		err = -errno;
	close(fd);
	*index = err ? -1 : info.phc_index;
	return err;
}

/* What the kernel calls the device of a character device node. */
static void chardev_kind(struct clock *c, dev_t rdev)
{
	char path[PATH_MAX], base[64];

	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/subsystem",
		 major(rdev), minor(rdev));
	if (link_base(path, base, sizeof(base)))
		return;
	if (!strcmp(base, "ptp")) {
		c->kind = CK_PTP;
		snprintf(path, sizeof(path), "/sys/dev/char/%u:%u",
			 major(rdev), minor(rdev));
		if (link_base(path, base, sizeof(base)) ||
		    sscanf(base, "ptp%d", &c->ptp_index) != 1)
			c->ptp_index = -1;
	} else if (!strcmp(base, "rtc_clock")) {
		c->kind = CK_RTC;
	} else {
		c->kind = CK_OTHER;
	}
}

/**
 * clock_open() - open a clock named by clock_parse()
 * @c:   the clock
 * @cmd: the command it is opened for, for messages
 *
 * A device is opened read-write, or read-only when that is all the caller
 * may do (then only the operations that change the clock fail).
 *
 * Return: 0, or EXIT_FAIL after a message.
 */
int clock_open(struct clock *c, const char *cmd)
{
	struct timespec ts;
	struct stat st;
	int index;
	int err;

	if (c->kind == CK_STATIC || c->fd >= 0)
		goto res;
	if (c->iface[0]) {
		err = iface_phc_index(c->iface, &index);
		if (err)
			return fail(cmd, c, "ETHTOOL_GET_TS_INFO", -err, NULL);
		if (index < 0)
			return fail(cmd, c, "ETHTOOL_GET_TS_INFO", 0,
				    "no PTP hardware clock");
		c->ptp_index = index;
		snprintf(c->name, sizeof(c->name), "/dev/ptp%d", index);
	}
	c->fd = open(c->name, O_RDWR | O_CLOEXEC);
	if (c->fd < 0 &&
	    (errno == EACCES || errno == EROFS || errno == EPERM)) {
		c->fd = open(c->name, O_RDONLY | O_CLOEXEC);
		c->rdonly = c->fd >= 0;
	}
	if (c->fd < 0)
		return fail(cmd, c, "open", errno, NULL);
	if (!fstat(c->fd, &st) && S_ISCHR(st.st_mode))
		chardev_kind(c, st.st_rdev);
	c->id = FD_TO_CLOCKID(c->fd);
res:
	if (!clock_getres(c->id, &ts))
		c->res = ts_ns(&ts);
	return 0;
}

int clock_read(const struct clock *c, s64 *ns)
{
	struct timespec ts;

	if (clock_gettime(c->id, &ts))
		return errno;
	*ns = ts_ns(&ts);
	return 0;
}

int kernel_has_clock_timers(void)
{
	static int known = -2;
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };
	timer_t t;
	int fd;

	if (known != -2)
		return known;
	known = -1;
	/* Mainline answers EOPNOTSUPP before it looks at the fd. */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return known;
	if (!timer_create(FD_TO_CLOCKID(fd), &sev, &t)) {
		timer_delete(t);
		known = 1;
	} else if (errno == EOPNOTSUPP) {
		known = 0;
	} else if (errno == EINVAL) {
		known = 1;
	}
	close(fd);
	return known;
}

const char *no_timers_hint(const struct clock *c, int err)
{
	if (err != EOPNOTSUPP && err != EINVAL)
		return NULL;
	if (clock_is_static(c))
		return err == EOPNOTSUPP ?
		       "the kernel offers no timers on this clock" : NULL;
	switch (kernel_has_clock_timers()) {
	case 0:
		return "this kernel offers no timers on dynamic clocks";
	case 1:
		return err == EOPNOTSUPP ?
		       "the clock's driver offers no timers" : NULL;
	default:
		return NULL;
	}
}

static bool is_timer_op(const char *op)
{
	static const char * const ops[] = {
		"timer_create", "timerfd_create", "clock_nanosleep",
		"timer_settime", "timerfd_settime",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (!strcmp(op, ops[i]))
			return true;
	return false;
}

/* A sentence on what @err from @op on @c means, or NULL. */
static const char *op_hint(const struct clock *c, const char *op, int err)
{
	if (is_timer_op(op)) {
		if (err == EPERM && c->kind == CK_RTC)
			return "a clock that may wake the system needs CAP_WAKE_ALARM";
		if (no_timers_hint(c, err))
			return no_timers_hint(c, err);
	}
	if (clock_is_static(c))
		return NULL;
	if (err == ENODEV)
		return "the clock was removed";
	if (err == EACCES && c->rdonly)
		return "the device could only be opened read-only";
	if (err == EINVAL && (!strcmp(op, "clock_gettime") ||
			      !strcmp(op, "clock_getres")))
		return "not a clock device";
	if (err == EOPNOTSUPP && c->kind == CK_RTC &&
	    !strcmp(op, "clock_adjtime"))
		return "an RTC clock can be set, not adjusted";
	return NULL;
}

int fail_op(const char *cmd, const struct clock *c, const char *op, int err)
{
	const char *hint = op_hint(c, op, err);

	if (hint)
		return fail(cmd, c, op, err, "%s", hint);
	return fail(cmd, c, op, err, NULL);
}
