# SPDX-License-Identifier: GPL-2.0
# What an unprivileged user who may only read a clock can do (clockdev
# selftest abuse): its timers count against RLIMIT_SIGPENDING as on any
# clock, /proc/PID/timers shows them, and thousands of its timers and
# sleepers do not slow another user's reads of the clock more than the
# same load on CLOCK_MONOTONIC does.
. /payload/lib.sh
r0=$(kernel_reports)
if [ -n "${SHORT:-}" ]; then
	# victim_reads measures a read rate under an attack that keeps both
	# CPUs busy for minutes: on a kernel whose checkers distort rates
	# (debug) it runs in make check-debug, not make check.
	ksft_run clockdev:abuse -T victim_reads
else
	ksft_run clockdev:abuse
fi
check "abuse: no kernel report" kernel_reports_since "$r0"
