# SPDX-License-Identifier: GPL-2.0
# What is particular to POSIX timers on dynamic clocks (clockdev selftests
# posix_timers and posix_timers_steps).  A subset runs ptp_sim and the
# e1000e's PHC.  The stalled-clock tests run on a ptp_sim whose oscillator
# is stopped, reset through its attribute "reset", and on the e1000e's PHC
# where it does not advance (QEMU 7.2: reset through the NIC, by an MTU
# change and by the interface going down; under QEMU 10 it runs at 5/2 of
# boot time, and they skip).
. /payload/lib.sh
ksft_subset clockdev:posix_timers -v ptp_sim -v ptp_sim_sleeping
# Its fixture "reset" (a NIC's PHC that runs) is t-22's: that guest has
# an igb.
if [ -n "${SUBSET:-}" ]; then
	ksft_run clockdev:posix_timers_steps -F reset -v ptp_sim -v e1000e
else
	ksft_run clockdev:posix_timers_steps -F reset
fi
