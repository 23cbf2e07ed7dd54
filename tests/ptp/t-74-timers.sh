# SPDX-License-Identifier: GPL-2.0
# The timers selftests (see t-70) on netdevsim's mock PHC and on the static
# clocks CLOCK_MONOTONIC and CLOCK_REALTIME, which run the same tests side
# by side with the dynamic ones; t-75 runs them on an RTC clock.  A subset
# runs timerfd on the mock PHC.
. /payload/lib.sh
if [ -n "${SUBSET:-}" ]; then
	set -- -v mock_phc_timerfd
else
	set -- -v mock_phc_posix -v mock_phc_nanosleep -v mock_phc_timerfd \
		-v monotonic_posix -v monotonic_nanosleep -v monotonic_timerfd \
		-v realtime_posix -v realtime_nanosleep -v realtime_timerfd
fi
ksft_run clockdev:timers "$@"
ksft_run clockdev:timers_steps "$@"
