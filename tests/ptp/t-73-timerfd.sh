# SPDX-License-Identifier: GPL-2.0
# What is particular to timerfd on dynamic clocks (clockdev selftest
# timerfd): overruns, poll, TFD_TIMER_CANCEL_ON_SET, removal.
. /payload/lib.sh
ksft_subset clockdev:timerfd -v ptp_sim
