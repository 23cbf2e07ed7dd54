# SPDX-License-Identifier: GPL-2.0
# What is particular to POSIX timers on dynamic clocks (clockdev selftests
# posix_timers and posix_timers_steps) on the clocks of test drivers: the
# NICs' PHCs are t-22's (that guest has an igb).  A subset runs ptp_sim.
# The stalled-clock tests run on a ptp_sim whose oscillator is stopped,
# reset through its attribute "reset".
. /payload/lib.sh
ksft_subset clockdev:posix_timers -v ptp_sim -v ptp_sim_sleeping
if [ -n "${SUBSET:-}" ]; then
	ksft_run clockdev:posix_timers_steps -v ptp_sim
else
	ksft_run clockdev:posix_timers_steps -V e1000e -V igb
fi
