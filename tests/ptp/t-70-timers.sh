# SPDX-License-Identifier: GPL-2.0
# Timers, sleeps and timerfds on dynamic clocks, beside the same on
# CLOCK_MONOTONIC and CLOCK_REALTIME (clockdev selftest timers: every clock
# kind x every timer kind).  A subset runs each kind of timer once: POSIX
# timers on the ptp_sim whose reads sleep (a read that sleeps where it
# must not is what the debug kernel catches), clock_nanosleep on ptp_sim,
# and timerfd on an RTC clock (timers driven by the RTC's alarm).
. /payload/lib.sh
ksft_subset clockdev:timers -v ptp_sim_sleeping_posix -v ptp_sim_nanosleep \
	-v rtc_timerfd
