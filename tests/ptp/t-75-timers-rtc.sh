# SPDX-License-Identifier: GPL-2.0
# The timers selftests (see t-70) on an RTC clock: timers driven by the
# RTC's alarm, whose one-second resolution makes these the slowest of the
# timers tests (a guest of their own in make check, scripts/suite.sh).  A
# subset runs timerfd.
. /payload/lib.sh
if [ -n "${SUBSET:-}" ]; then
	set -- -v rtc_timerfd
else
	set -- -v rtc_posix -v rtc_nanosleep -v rtc_timerfd
fi
ksft_run clockdev:timers "$@"
ksft_run clockdev:timers_steps "$@"
