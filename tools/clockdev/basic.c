// SPDX-License-Identifier: GPL-2.0
/*
 * clockdev - the commands that read, set and steer a clock: get, getres,
 * caps, set, step, freq, and wait (a pause between commands).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/timex.h>
#include <linux/ptp_clock.h>

#include "clockdev.h"

/*
 * struct ptp_clock_caps as Linux 6.12 lays it out: older headers lack
 * max_phase_adj (it was rsv[0]), so read it through this copy.
 */
struct cd_ptp_caps {
	int max_adj;
	int n_alarm;
	int n_ext_ts;
	int n_per_out;
	int pps;
	int n_pins;
	int cross_timestamping;
	int adjust_phase;
	int max_phase_adj;
	int rsv[11];
};

static_assert(sizeof(struct cd_ptp_caps) == sizeof(struct ptp_clock_caps),
	      "struct ptp_clock_caps changed");

/* The largest frequency offset accepted: 100 %. */
#define MAX_PPB		1000000000LL

/* ---- argument parsing ---- */

void parse_none(struct op *op)
{
	(void)op;
}

/* Argument @i of @op as seconds, in ns; negative only if @neg. */
static s64 arg_seconds(struct op *op, int i, bool neg)
{
	const char *arg = op->argv[i];
	s64 ns;

	switch (parse_fixed(arg, 9, &ns)) {
	case 0:
		break;
	case -EDOM:
		usage_error("%s: '%s': at most 9 decimals (ns)", op->cmd->name,
			    arg);
	case -ERANGE:
		usage_error("%s: '%s': out of range", op->cmd->name, arg);
	default:
		usage_error("%s: '%s' is not a number of seconds",
			    op->cmd->name, arg);
	}
	if (ns < 0 && !neg)
		usage_error("%s: '%s': must not be negative", op->cmd->name,
			    arg);
	return ns;
}

/* set [SECONDS] */
void parse_opt_time(struct op *op)
{
	op->given = op->argc > 0;
	if (op->given)
		op->ns = arg_seconds(op, 0, false);
}

/* step SECONDS (signed); sleep and wait SECONDS (not negative) */
void parse_time(struct op *op)
{
	op->ns = arg_seconds(op, 0, !strcmp(op->cmd->name, "step"));
}

/* freq [PPB] */
void parse_freq(struct op *op)
{
	const char *arg;

	op->given = op->argc > 0;
	if (!op->given)
		return;
	arg = op->argv[0];
	switch (parse_fixed(arg, 3, &op->mppb)) {
	case 0:
		if (op->mppb > MAX_PPB * 1000 || op->mppb < -MAX_PPB * 1000)
			usage_error("freq: '%s': beyond +-%lld ppb", arg,
				    MAX_PPB);
		break;
	case -EDOM:
		usage_error("freq: '%s': at most 3 decimals", arg);
	default:
		usage_error("freq: '%s' is not a number of ppb", arg);
	}
}

/* ---- get, getres ---- */

int run_get(struct op *op, struct clock *c)
{
	char sec[32], date[48];
	s64 ns;
	int err;

	err = clock_read(c, &ns);
	if (err)
		return fail_op(op->cmd->name, c, "clock_gettime", err);
	fmt_sec(sec, sizeof(sec), ns);
	if (json) {
		jbegin(op->cmd->name, c);
		jint("ns", ns);
		jstr("time", sec);
		if (*fmt_date(date, sizeof(date), ns, 'T'))
			jstr("date", date);
		jend();
	} else if (*fmt_date(date, sizeof(date), ns, ' ')) {
		printf("get: %s (%s)\n", sec, date);
	} else {
		printf("get: %s\n", sec);
	}
	return 0;
}

int run_getres(struct op *op, struct clock *c)
{
	struct timespec ts;
	char sec[32];
	s64 res;

	if (clock_getres(c->id, &ts))
		return fail_op(op->cmd->name, c, "clock_getres", errno);
	res = ts_ns(&ts);
	if (json) {
		jbegin(op->cmd->name, c);
		jint("res_ns", res);
		jend();
	} else {
		printf("getres: %s s (%lld ns)\n",
		       fmt_sec(sec, sizeof(sec), res), (long long)res);
	}
	return 0;
}

/* ---- caps ---- */

/* PTP_CLOCK_GETCAPS2, or PTP_CLOCK_GETCAPS where it is missing: 0 or errno. */
static int ptp_getcaps(int fd, struct cd_ptp_caps *caps, const char **op)
{
	memset(caps, 0, sizeof(*caps));
#ifdef PTP_CLOCK_GETCAPS2
	*op = "PTP_CLOCK_GETCAPS2";
	if (!ioctl(fd, PTP_CLOCK_GETCAPS2, caps))
		return 0;
	if (errno != ENOTTY)
		return errno;
#endif
	*op = "PTP_CLOCK_GETCAPS";
	if (!ioctl(fd, PTP_CLOCK_GETCAPS, caps))
		return 0;
	return errno;
}

/* Whether timers work on @c: 1 yes, 0 no (@why says why), -errno to fail. */
static int probe_timers(const struct clock *c, const char **why)
{
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };
	timer_t t;
	int err;

	*why = NULL;
	if (!timer_create(c->id, &sev, &t)) {
		timer_delete(t);
		return 1;
	}
	err = errno;
	if (err == ENODEV)
		return -err;
	*why = no_timers_hint(c, err);
	if (!*why && err == EPERM)
		*why = "creating timers on this clock needs CAP_WAKE_ALARM";
	if (!*why)
		*why = strerror(err);
	return 0;
}

static void caps_text(const char *key, const char *fmt, ...)
	__printf(2, 3);

static void caps_text(const char *key, const char *fmt, ...)
{
	va_list ap;

	printf("caps: %-22s ", key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

int run_caps(struct op *op, struct clock *c)
{
	const char *name = op->cmd->name, *why, *ioc = NULL;
	struct cd_ptp_caps caps;
	struct timespec ts;
	bool have_caps = false;
	char sec[32];
	int timers, err = 0;
	s64 res;

	if (clock_getres(c->id, &ts))
		return fail_op(name, c, "clock_getres", errno);
	res = ts_ns(&ts);
	if (c->kind == CK_PTP) {
		err = ptp_getcaps(c->fd, &caps, &ioc);
		if (err == ENODEV)
			return fail_op(name, c, ioc, err);
		have_caps = !err;
	}
	timers = probe_timers(c, &why);
	if (timers < 0)
		return fail_op(name, c, "timer_create", -timers);

	if (json) {
		jbegin(name, c);
		jstr("kind", clock_kind_name(c->kind));
		jint("clockid", c->id);
		if (c->ptp_index >= 0)
			jint("ptp_index", c->ptp_index);
		if (c->iface[0])
			jstr("iface", c->iface);
		if (!clock_is_static(c))
			jbool("read_only", c->rdonly);
		jint("res_ns", res);
		if (have_caps) {
			jint("max_adj_ppb", caps.max_adj);
			jint("n_alarm", caps.n_alarm);
			jint("n_ext_ts", caps.n_ext_ts);
			jint("n_per_out", caps.n_per_out);
			jint("pps", caps.pps);
			jint("n_pins", caps.n_pins);
			jbool("cross_timestamping", caps.cross_timestamping);
			jbool("adjust_phase", caps.adjust_phase);
			jint("max_phase_adj_ns", caps.max_phase_adj);
		} else if (ioc) {
			jstr("ptp_caps_error", strerror(err));
		}
		jbool("timers", timers);
		if (why)
			jstr("timers_note", why);
		jend();
		return 0;
	}
	caps_text("kind", "%s%s%s", clock_kind_name(c->kind),
		  c->iface[0] ? ", via " : "", c->iface);
	if (c->ptp_index >= 0)
		caps_text("ptp index", "%d", c->ptp_index);
	if (c->rdonly)
		caps_text("access", "read-only");
	caps_text("resolution", "%s s", fmt_sec(sec, sizeof(sec), res));
	if (have_caps) {
		caps_text("max frequency offset", "%d ppb", caps.max_adj);
		caps_text("alarms", "%d", caps.n_alarm);
		caps_text("external timestamps", "%d", caps.n_ext_ts);
		caps_text("periodic outputs", "%d", caps.n_per_out);
		caps_text("pps", "%d", caps.pps);
		caps_text("programmable pins", "%d", caps.n_pins);
		caps_text("cross timestamping", "%s",
			  caps.cross_timestamping ? "yes" : "no");
		caps_text("adjust phase", "%s (max %d ns)",
			  caps.adjust_phase ? "yes" : "no", caps.max_phase_adj);
	} else if (ioc) {
		caps_text("ptp caps", "unavailable: %s", strerror(err));
	}
	if (timers)
		caps_text("timers", "yes");
	else
		caps_text("timers", "no (%s)", why);
	return 0;
}

/* ---- set, step, freq ---- */

int run_set(struct op *op, struct clock *c)
{
	struct timespec ts;
	char sec[32];
	s64 ns = op->ns;

	if (!op->given) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ns = ts_ns(&ts);
	}
	ts = ns_ts(ns);
	if (clock_settime(c->id, &ts))
		return fail_op(op->cmd->name, c, "clock_settime", errno);
	fmt_sec(sec, sizeof(sec), ns);
	if (json) {
		jbegin(op->cmd->name, c);
		jint("ns", ns);
		jstr("time", sec);
		jbool("from_realtime", !op->given);
		jend();
	} else {
		printf("set: %s%s\n", sec,
		       op->given ? "" : " (from CLOCK_REALTIME)");
	}
	return 0;
}

int run_step(struct op *op, struct clock *c)
{
	struct timespec ts = ns_ts(op->ns);
	struct timex tx = {
		.modes = ADJ_SETOFFSET | ADJ_NANO,
		.time = { .tv_sec = ts.tv_sec, .tv_usec = ts.tv_nsec },
	};
	char sec[32];

	if (clock_adjtime(c->id, &tx) < 0)
		return fail_op(op->cmd->name, c, "clock_adjtime", errno);
	fmt_sec(sec, sizeof(sec), op->ns);
	if (json) {
		jbegin(op->cmd->name, c);
		jint("ns", op->ns);
		jstr("time", sec);
		jend();
	} else {
		printf("step: %s s\n", sec);
	}
	return 0;
}

/* Scaled ppm (ppm with a 16-bit fraction) to thousandths of ppb, rounded. */
static s64 scaled_to_mppb(long scaled)
{
	s64 v = (s64)scaled * 1000000;

	return (v + (v < 0 ? -32768 : 32768)) / 65536;
}

static long mppb_to_scaled(s64 mppb)
{
	s64 v = mppb * 65536;

	return (v + (v < 0 ? -500000 : 500000)) / 1000000;
}

int run_freq(struct op *op, struct clock *c)
{
	struct timex tx = { .modes = 0 };
	char ppb[48];
	s64 mppb;

	if (op->given) {
		tx.modes = ADJ_FREQUENCY;
		tx.freq = mppb_to_scaled(op->mppb);
	}
	if (clock_adjtime(c->id, &tx) < 0)
		return fail_op(op->cmd->name, c, "clock_adjtime", errno);
	if (op->given)
		tx.freq = mppb_to_scaled(op->mppb);
	mppb = scaled_to_mppb(tx.freq);
	fmt_fixed(ppb, sizeof(ppb), mppb, 3);
	if (json) {
		jbegin(op->cmd->name, c);
		jbool("set", op->given);
		jfixed("freq_ppb", mppb, 3);
		jint("freq_scaled_ppm", tx.freq);
		jend();
	} else {
		printf("freq: %s%s ppb (scaled ppm %ld)\n",
		       op->given ? "set to " : "", ppb, (long)tx.freq);
	}
	return 0;
}

/* ---- wait ---- */

int run_wait(struct op *op, struct clock *c)
{
	struct timespec ts = ns_ts(op->ns);
	char sec[32];
	int err;

	while ((err = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts)) == EINTR)
		;
	if (err)
		return fail(op->cmd->name, c, "clock_nanosleep", err,
			    "on CLOCK_MONOTONIC");
	fmt_sec(sec, sizeof(sec), op->ns);
	if (json) {
		jbegin(op->cmd->name, c);
		jint("ns", op->ns);
		jend();
	} else {
		printf("wait: %s s\n", sec);
	}
	return 0;
}
