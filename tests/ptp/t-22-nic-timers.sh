# SPDX-License-Identifier: GPL-2.0
# The timers selftests (see t-70; frequency changes excepted) on the PHCs
# of real NIC drivers: the e1000e's and, in a guest booted with qemu/run
# --nic e1000e,igb (scripts/suite.sh does so for this test), the igb's.
# posix_timers_steps' variants on them: steps (set and stepped under
# armed POSIX timers), reset (the drivers set their PHC to CLOCK_REALTIME
# at each reset of the NIC: an MTU change, the link down and up) and
# stalled (reset through the NIC; only where the e1000e's PHC does not
# advance).  QEMU 7.2 advances neither (its e1000e's PHC stands still, it
# has no igb): the variants that need a running clock say they skip.  A
# subset runs timerfd on each, and only the resets.
. /payload/lib.sh
if [ -n "${SUBSET:-}" ]; then
	set -- -v e1000e_timerfd -v igb_timerfd
else
	set -- -v e1000e_posix -v e1000e_nanosleep -v e1000e_timerfd \
		-v igb_posix -v igb_nanosleep -v igb_timerfd
fi
ip link set eth0 up 2>/dev/null
ksft_run clockdev:timers "$@"
if [ -n "${SUBSET:-}" ]; then
	ksft_run clockdev:posix_timers_steps -V ptp_sim -F steps
else
	ksft_run clockdev:posix_timers_steps -v e1000e -v igb
fi
