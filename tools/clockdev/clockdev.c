// SPDX-License-Identifier: GPL-2.0
/*
 * clockdev - use dynamic clock devices from the command line
 *
 *	clockdev [--json] CLOCK COMMAND [ARGS]... [COMMAND [ARGS]...]...
 *	clockdev [--json] list
 *
 * A dynamic clock is a device (/dev/ptpN, /dev/rtcclockN, ...) whose open
 * file descriptor makes a clockid, FD_TO_CLOCKID(fd), for the POSIX clock
 * and timer calls.  The commands run in order on one CLOCK, as phc_ctl's
 * do; the first that fails ends the run.  Each command's arguments are the
 * words after it up to the next command name or its maximum number of
 * arguments.  The whole line is checked before anything runs.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "clockdev.h"

static const struct command commands[] = {
	{ "get", 0, 0, parse_none, run_get, "",
	  "read the clock (seconds, and the date after 2000)" },
	{ "getres", 0, 0, parse_none, run_getres, "",
	  "its resolution (clock_getres)" },
	{ "caps", 0, 0, parse_none, run_caps, "",
	  "resolution, PTP capabilities, whether timers work" },
	{ "set", 0, 1, parse_opt_time, run_set, "[SECONDS]",
	  "set it to SECONDS (default: CLOCK_REALTIME's time)" },
	{ "step", 1, 1, parse_time, run_step, "SECONDS",
	  "step it by SECONDS, may be negative (ADJ_SETOFFSET)" },
	{ "freq", 0, 1, parse_freq, run_freq, "[PPB]",
	  "read its frequency offset, or set it to PPB" },
	{ "compare", 1, 4, parse_compare, run_compare,
	  "OTHER [COUNT [INTERVAL]] [METHOD]",
	  "offset from clock OTHER, and the read delay: COUNT\n"
	  "samples (10) INTERVAL s apart (0.1); statistics" },
	{ "watch", 1, 4, parse_watch, run_watch,
	  "OTHER [INTERVAL [COUNT]] [METHOD]",
	  "offset from OTHER and frequency every INTERVAL s\n"
	  "(1), for COUNT samples or until SIGINT/SIGTERM" },
	{ "timer", 1, 5, parse_timer, run_timer,
	  "DELAY [PERIOD [COUNT]] [abs] [signal|timerfd]",
	  "arm a timer (a timerfd by default) DELAY s ahead\n"
	  "(abs: TIMER_ABSTIME at now + DELAY), then every\n"
	  "PERIOD s, for COUNT expiries (1, or 10 with a\n"
	  "PERIOD); show the lateness of each" },
	{ "sleep", 1, 1, parse_time, run_sleep, "SECONDS",
	  "clock_nanosleep SECONDS of the clock; lateness" },
	{ "wait-until", 1, 1, parse_until, run_wait_until, "TIME|+SECONDS",
	  "clock_nanosleep (TIMER_ABSTIME) until the clock\n"
	  "reads TIME, or SECONDS from now; lateness" },
	{ "wait", 1, 1, parse_time, run_wait, "SECONDS",
	  "pause SECONDS of CLOCK_MONOTONIC" },
};

static const char help_head[] =
	"usage: clockdev [--json] CLOCK COMMAND [ARGS]... [COMMAND [ARGS]...]...\n"
	"       clockdev [--json] list\n"
	"       clockdev -h|--help | -V|--version\n"
	"\n"
	"Read, set, steer and time dynamic clocks (PTP hardware clocks,\n"
	"RTC clocks) through the POSIX clock and timer calls.\n"
	"\n"
	"CLOCK is a device (/dev/ptp1, /dev/rtcclock0), a PTP index (1 for\n"
	"/dev/ptp1), a network interface (its PTP hardware clock), or a\n"
	"static clock: CLOCK_REALTIME (realtime, sys), CLOCK_MONOTONIC\n"
	"(monotonic), CLOCK_MONOTONIC_RAW (raw), CLOCK_BOOTTIME (boottime),\n"
	"CLOCK_TAI (tai).  OTHER is a clock named the same way.\n"
	"\n"
	"  list                      every dynamic clock of the system\n"
	"\n"
	"Commands, run in order on CLOCK; the first that fails ends the run:\n";

static const char help_tail[] =
	"\n"
	"SECONDS, DELAY, PERIOD, INTERVAL, TIME: decimal seconds, up to 9\n"
	"decimals (\"0.25\", \"-1.5\" for step).  PPB: parts per billion, up\n"
	"to 3 decimals.  METHOD (compare, watch): precise, extended, basic\n"
	"(PTP_SYS_OFFSET_PRECISE, _EXTENDED, PTP_SYS_OFFSET: a PHC against\n"
	"CLOCK_REALTIME, some also against CLOCK_MONOTONIC{,_RAW}) or reads\n"
	"(clock_gettime of OTHER, CLOCK, OTHER); by default the first of\n"
	"them that works.\n"
	"\n"
	"Options:\n"
	"  -j, --json     JSON Lines: one object per result, with \"cmd\"\n"
	"                 and \"clock\"\n"
	"  -h, --help     this help\n"
	"  -V, --version  the version\n"
	"\n"
	"Example: clockdev /dev/ptp1 set get freq 10000 wait 1 get\n"
	"Exit status: 0 success, 1 an operation failed, 2 a usage error.\n";

static const char too_many_fmt[] =
	"'%s': unknown command (%s takes at most %d argument%s)";
static const char not_a_clock_fmt[] =
	"'%s' is not a clock (a device, PTP index, network interface or CLOCK_* name)";

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

static void help(void)
{
	const char *p, *nl;
	char left[64];
	size_t i;

	fputs(help_head, stdout);
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		const struct command *cmd = &commands[i];

		snprintf(left, sizeof(left), "%s%s%s", cmd->name,
			 *cmd->usage ? " " : "", cmd->usage);
		if (strlen(left) > 24)
			printf("  %s\n  %-24s", left, "");
		else
			printf("  %-24s", left);
		for (p = cmd->help; p; p = nl ? nl + 1 : NULL) {
			nl = strchr(p, '\n');
			printf("%*s%.*s\n", p == cmd->help ? 2 : 28, "",
			       nl ? (int)(nl - p) : (int)strlen(p), p);
		}
	}
	fputs(help_tail, stdout);
}

static void version(void)
{
	struct utsname u;

	if (uname(&u))
		printf("clockdev %s\n", CLOCKDEV_VERSION);
	else
		printf("clockdev %s, running on Linux %s\n", CLOCKDEV_VERSION,
		       u.release);
}

/*
 * Split @args into commands and their arguments, and parse each one: a
 * usage error exits before anything has run.
 */
static int parse_chain(int n, char **args, struct op *ops)
{
	int i = 0, k = 0;

	while (i < n) {
		const struct command *cmd = find_command(args[i]);
		struct op *op = &ops[k];
		int j;

		if (!cmd) {
			if (k && ops[k - 1].argc == ops[k - 1].cmd->max_args)
				usage_error(too_many_fmt,
					    args[i], ops[k - 1].cmd->name,
					    ops[k - 1].cmd->max_args,
					    ops[k - 1].cmd->max_args > 1 ?
					    "s" : "");
			usage_error("'%s': unknown command", args[i]);
		}
		for (j = i + 1; j < n && j - i - 1 < cmd->max_args; j++)
			if (find_command(args[j]))
				break;
		memset(op, 0, sizeof(*op));
		op->cmd = cmd;
		op->argc = j - i - 1;
		op->argv = args + i + 1;
		if (op->argc < cmd->min_args)
			usage_error("%s: missing argument: %s %s", cmd->name,
				    cmd->name, cmd->usage);
		cmd->parse(op);
		k++;
		i = j;
	}
	return k;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct clock clk;
	struct op *ops;
	int opt, n, k, i, ret;
	char **args;

	/* '+': stop at CLOCK, so that "step -1" is not an option. */
	while ((opt = getopt_long(argc, argv, "+hjV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'h':
			help();
			return 0;
		case 'V':
			version();
			return 0;
		default:
			usage_error("unknown option");
		}
	}
	args = argv + optind;
	n = argc - optind;
	if (!n)
		usage_error("CLOCK or 'list' missing");
	if (!strcmp(args[0], "list")) {
		if (n > 1)
			usage_error("list: unexpected '%s'", args[1]);
		return run_list();
	}
	if (!clock_parse(args[0], &clk))
		usage_error(not_a_clock_fmt, args[0]);
	if (n == 1)
		usage_error("COMMAND missing after %s", args[0]);
	ops = calloc(n, sizeof(*ops));
	if (!ops)
		return EXIT_FAIL;
	k = parse_chain(n - 1, args + 1, ops);

	ret = clock_open(&clk, ops[0].cmd->name);
	for (i = 0; !ret && i < k; i++)
		ret = ops[i].cmd->run(&ops[i], &clk);
	fflush(stdout);
	free(ops);
	return ret;
}
