# SPDX-License-Identifier: GPL-2.0
# Timers, sleeps and timerfds on dynamic clocks (clockdev selftests timers
# and timers_steps: every clock kind x every timer kind), here on ptp_sim
# and on the ptp_sim whose reads sleep; t-74 and t-75 run the other
# clocks, and the static clocks beside them.  A subset runs POSIX timers
# on the ptp_sim whose reads sleep (a read that sleeps where it must not
# is what the debug kernel catches).
. /payload/lib.sh
if [ -n "${SUBSET:-}" ]; then
	set -- -v ptp_sim_sleeping_posix
else
	set -- -v ptp_sim_posix -v ptp_sim_nanosleep -v ptp_sim_timerfd \
		-v ptp_sim_sleeping_posix -v ptp_sim_sleeping_nanosleep \
		-v ptp_sim_sleeping_timerfd
fi
ksft_run clockdev:timers "$@"
ksft_run clockdev:timers_steps "$@"
