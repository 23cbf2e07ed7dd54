# SPDX-License-Identifier: GPL-2.0
# Create/destroy races (clockdev selftest races): ptp_sim instances made
# and deleted in a loop (200 times; CLOCKDEV_RACE_CYCLES=N for more, as
# make soak does) while threads open, read, steer, arm timers and timerfds
# on and sleep on whatever clocks exist.  Every result must be one the ABI
# allows, no thread may hang, and the kernel must report nothing: on the
# debug kernel that is KASAN, lockdep and the object debugging of timers
# (run.sh scans for leaks after it).
. /payload/lib.sh
r0=$(kernel_reports)
ksft_run clockdev:races
check "races: no kernel report during the races" kernel_reports_since "$r0"
