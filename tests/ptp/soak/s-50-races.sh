# SPDX-License-Identifier: GPL-2.0
# The races of t-46, long: 10,000 creations and deletions of simulated
# PHCs (160 s on the patched kernel, about 25 min on debug: 'make soak
# KERNELS=debug') and 100 unbind/bind cycles of each RTC (about 7 min);
# kmemleak, where the kernel has it, scans after it (run.sh).
. /payload/lib.sh
r0=$(kernel_reports)
export CLOCKDEV_RACE_CYCLES=${CLOCKDEV_RACE_CYCLES:-10000} KSFT_TIMEOUT=3600
export CLOCKDEV_RTC_CYCLES=${CLOCKDEV_RTC_CYCLES:-100}
ksft_run clockdev:races
check "races (soak): no kernel report during the races" kernel_reports_since "$r0"
