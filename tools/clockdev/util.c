// SPDX-License-Identifier: GPL-2.0
/*
 * clockdev - numbers, time arithmetic, statistics and output (text and
 * JSON Lines) shared by the commands.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "clockdev.h"

bool json;

/* ---- numbers ---- */

static s64 pow10_of(int digits)
{
	s64 scale = 1;

	while (digits-- > 0)
		scale *= 10;
	return scale;
}

/**
 * parse_fixed() - parse a decimal number into a scaled integer
 * @s:      "[+-]DIGITS[.DIGITS]" (digits on at least one side of the point)
 * @digits: decimals kept: the result is in units of 10^-@digits
 * @out:    the result
 *
 * Integer arithmetic only, so that "0.1" seconds is exactly 100000000 ns.
 *
 * Return: 0; -EINVAL for anything but a number (trailing garbage too);
 * -EDOM for more than @digits decimals; -ERANGE when it does not fit.
 */
int parse_fixed(const char *s, int digits, s64 *out)
{
	s64 scale = pow10_of(digits), ip = 0, fp = 0;
	const char *p = s;
	bool neg = false, any = false;
	int nfrac = 0;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	for (; isdigit((unsigned char)*p); p++, any = true) {
		if (ip > (INT64_MAX - 9) / 10)
			return -ERANGE;
		ip = ip * 10 + (*p - '0');
	}
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, any = true) {
			if (nfrac == digits)
				return -EDOM;
			fp = fp * 10 + (*p - '0');
			nfrac++;
		}
	}
	if (!any || *p)
		return -EINVAL;
	for (; nfrac < digits; nfrac++)
		fp *= 10;
	if (ip > (INT64_MAX - fp) / scale)
		return -ERANGE;
	*out = ip * scale + fp;
	if (neg)
		*out = -*out;
	return 0;
}

int parse_count(const char *s, long max, long *out)
{
	s64 v;
	int err = parse_fixed(s, 0, &v);

	if (err)
		return err == -EDOM ? -EINVAL : err;
	if (*s == '+' || *s == '-' || v < 1 || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

char *fmt_fixed(char *buf, size_t len, s64 v, int digits)
{
	u64 scale = pow10_of(digits), u = v < 0 ? -(u64)v : (u64)v;

	if (!digits)
		snprintf(buf, len, "%lld", (long long)v);
	else
		snprintf(buf, len, "%s%llu.%0*llu", v < 0 ? "-" : "",
			 (unsigned long long)(u / scale), digits,
			 (unsigned long long)(u % scale));
	return buf;
}

char *fmt_sec(char *buf, size_t len, s64 ns)
{
	return fmt_fixed(buf, len, ns, 9);
}

char *fmt_date(char *buf, size_t len, s64 ns, char sep)
{
	/* 2000-01-01 and 2100-01-01 as POSIX time */
	const s64 lo = 946684800, hi = 4102444800;
	time_t sec = ns / NSEC_PER_SEC;
	struct tm tm;
	char day[32];

	buf[0] = '\0';
	if (ns < 0 || sec < lo || sec >= hi || !gmtime_r(&sec, &tm))
		return buf;
	strftime(day, sizeof(day), "%Y-%m-%d", &tm);
	snprintf(buf, len, "%s%c%02d:%02d:%02d.%09lld", day, sep, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (long long)(ns % NSEC_PER_SEC));
	return buf;
}

/* ---- time ---- */

struct timespec ns_ts(s64 ns)
{
	struct timespec ts = {
		.tv_sec = ns / NSEC_PER_SEC,
		.tv_nsec = ns % NSEC_PER_SEC,
	};

	if (ts.tv_nsec < 0) {
		ts.tv_sec--;
		ts.tv_nsec += NSEC_PER_SEC;
	}
	return ts;
}

s64 ts_ns(const struct timespec *ts)
{
	return (s64)ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

s64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts_ns(&ts);
}

const char *errname(int err)
{
	static char buf[32];
	const char *name = strerrorname_np(err);

	if (name)
		return name;
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

/* ---- JSON Lines ---- */

static bool jfirst, jarr_first;

static void jquote(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static void jkey(const char *key)
{
	if (!jfirst)
		putchar(',');
	jfirst = false;
	jquote(key);
	putchar(':');
}

void jbegin(const char *cmd, const struct clock *c)
{
	putchar('{');
	jfirst = true;
	jstr("cmd", cmd);
	if (c)
		jstr("clock", c->name);
}

void jstr(const char *key, const char *val)
{
	jkey(key);
	jquote(val);
}

void jint(const char *key, long long val)
{
	jkey(key);
	printf("%lld", val);
}

void jfixed(const char *key, s64 val, int digits)
{
	char buf[48];

	jkey(key);
	fputs(fmt_fixed(buf, sizeof(buf), val, digits), stdout);
}

double no_minus_zero(double val, int prec)
{
	return fabs(val) < 0.5 * pow(10, -prec) ? 0.0 : val;
}

void jdbl(const char *key, double val, int prec)
{
	jkey(key);
	if (isfinite(val))
		printf("%.*f", prec, no_minus_zero(val, prec));
	else
		fputs("null", stdout);
}

void jbool(const char *key, bool val)
{
	jkey(key);
	fputs(val ? "true" : "false", stdout);
}

void jnull(const char *key)
{
	jkey(key);
	fputs("null", stdout);
}

void jarr_begin(const char *key)
{
	jkey(key);
	putchar('[');
	jarr_first = true;
}

void jarr_str(const char *val)
{
	if (!jarr_first)
		putchar(',');
	jarr_first = false;
	jquote(val);
}

void jarr_end(void)
{
	putchar(']');
}

void jend(void)
{
	fputs("}\n", stdout);
	fflush(stdout);
}

/* ---- errors ---- */

int fail(const char *cmd, const struct clock *c, const char *op, int err,
	 const char *fmt, ...)
{
	char msg[512] = "";
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
	}
	fflush(stdout);
	fprintf(stderr, "clockdev: %s %s%s", op,
		strcmp(op, "open") ? "on " : "", c ? c->name : "");
	if (err)
		fprintf(stderr, ": %s (%s)", strerror(err), errname(err));
	if (*msg)
		fprintf(stderr, ": %s", msg);
	fputc('\n', stderr);
	if (json) {
		jbegin(cmd, c);
		jstr("op", op);
		if (err) {
			jstr("errno", errname(err));
			jstr("error", strerror(err));
			if (*msg)
				jstr("message", msg);
		} else {
			jnull("errno");
			jstr("error", msg);
		}
		jend();
	}
	return EXIT_FAIL;
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("clockdev: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'clockdev --help' for more information.\n", stderr);
	exit(EXIT_USAGE);
}

/* ---- statistics ---- */

/*
 * Offsets between clocks on different timescales reach 10^18 ns, where a
 * double holds only about 100 ns: work on differences from the first
 * sample, which are small.
 */
void stats_of(const s64 *v, long n, struct stats *st)
{
	double sum = 0, sq = 0, mean;
	long i;

	memset(st, 0, sizeof(*st));
	st->n = n;
	if (!n)
		return;
	st->min = v[0];
	st->max = v[0];
	for (i = 0; i < n; i++) {
		if (v[i] < st->min)
			st->min = v[i];
		if (v[i] > st->max)
			st->max = v[i];
		sum += (double)(v[i] - v[0]);
	}
	mean = sum / n;
	for (i = 0; i < n; i++) {
		double d = (double)(v[i] - v[0]) - mean;

		sq += d * d;
	}
	st->mean = v[0] + llround(mean);
	st->stddev = n > 1 ? llround(sqrt(sq / (n - 1))) : 0;
}

bool slope_of(const s64 *x, const s64 *y, long n, double *slope)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0;
	long i;

	if (n < 2)
		return false;
	for (i = 0; i < n; i++) {
		mx += (double)(x[i] - x[0]);
		my += (double)(y[i] - y[0]);
	}
	mx /= n;
	my /= n;
	for (i = 0; i < n; i++) {
		double dx = (double)(x[i] - x[0]) - mx;
		double dy = (double)(y[i] - y[0]) - my;

		sxx += dx * dx;
		sxy += dx * dy;
	}
	if (sxx <= 0)
		return false;
	*slope = sxy / sxx;
	return true;
}

static int cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return (x > y) - (x < y);
}

s64 percentile(s64 *v, long n, int pct)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_s64);
	return v[(n - 1) * pct / 100];
}
