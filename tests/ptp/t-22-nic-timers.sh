# SPDX-License-Identifier: GPL-2.0
# The timers selftests (see t-70; steps and frequency changes excepted) on
# the PHCs of real NIC drivers, and their resets under armed POSIX timers
# (posix_timers_steps, fixture "reset": the drivers set their PHC to
# CLOCK_REALTIME at each reset of the NIC): the e1000e's and, in a guest
# booted with qemu/run --nic e1000e,igb (scripts/suite.sh does so for this
# test), the igb's.  QEMU 7.2 advances neither (its e1000e's PHC stands
# still, it has no igb): the variants say they skip.  A subset runs
# timerfd on each.
. /payload/lib.sh
if [ -n "${SUBSET:-}" ]; then
	set -- -v e1000e_timerfd -v igb_timerfd
else
	set -- -v e1000e_posix -v e1000e_nanosleep -v e1000e_timerfd \
		-v igb_posix -v igb_nanosleep -v igb_timerfd
fi
ip link set eth0 up 2>/dev/null
ksft_run clockdev:timers "$@"
ksft_run clockdev:posix_timers_steps -f reset
