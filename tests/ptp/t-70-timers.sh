# SPDX-License-Identifier: GPL-2.0
# Timers, sleeps and timerfds on dynamic clocks, beside the same on
# CLOCK_MONOTONIC and CLOCK_REALTIME (clockdev selftest timers: every clock
# kind x every timer kind).  A subset runs every timer kind on ptp_sim,
# POSIX timers on the ptp_sim whose reads sleep, and timerfd on an RTC.
. /payload/lib.sh
ksft_subset clockdev:timers -v ptp_sim_posix -v ptp_sim_nanosleep \
	-v ptp_sim_timerfd -v ptp_sim_sleeping_posix -v rtc_timerfd
