# SPDX-License-Identifier: GPL-2.0
# The create/destroy races of t-46 for 10,000 creations and deletions
# (about TIME on the patched kernel; 'make soak KERNELS=debug' runs them
# under KASAN and lockdep), then the module unloads of the lifetime
# selftest; kmemleak, where the kernel has it, scans after each (run.sh).
. /payload/lib.sh
r0=$(kernel_reports)
export CLOCKDEV_RACE_CYCLES=${CLOCKDEV_RACE_CYCLES:-10000} KSFT_TIMEOUT=3600
ksft_run clockdev:races
check "races (soak): no kernel report during the races" kernel_reports_since "$r0"
