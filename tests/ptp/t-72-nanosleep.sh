# SPDX-License-Identifier: GPL-2.0
# What is particular to clock_nanosleep() on dynamic clocks (clockdev
# selftest nanosleep): EINTR, restarts after stop and continue, removal.
. /payload/lib.sh
ksft_subset clockdev:nanosleep -v ptp_sim
