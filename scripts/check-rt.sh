#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# check-rt.sh: the body of 'make check-rt'.  Builds the PREEMPT_RT variant
# of the patched kernel (qemu/config/rt.config) and, beside mainline, runs
# the dynamic clock tests that involve timers, locking and contexts: KUnit,
# the timers table (t-70), the RTC clocks (t-80), and the hot-unplug and
# suspend guest.  Judged as 'make check' judges them (against mainline);
# ends with "N passed, N failed[, N skipped]".  Not part of 'make check': a
# fourth kernel does not fit its time budget on two cores.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

res=$OUT/check-rt
rm -rf "$res"; mkdir -p "$res"
. "$top/scripts/guests.sh"

"$top/scripts/series.sh" > "$res/series.log" 2>&1 ||
	{ cat "$res/series.log"; die "make series failed"; }
kernels=(rt mainline)
for k in "${kernels[@]}"; do
	"$top/scripts/build-kernel.sh" "$k"
	"$top/scripts/initramfs.sh" "$k"
	count_tap "$BUILD/$k/test-programs.tap" "$k: "
done
tests="/payload/t-60-kunit.sh /payload/t-70-timers.sh /payload/t-80-rtc.sh"
for k in "${kernels[@]}"; do
	start_guest "$k" "$k" "$top/qemu/run" --kernel "$k" --timeout 1200 \
		--console-log "$res/$k.console" --payload "$top/tests/ptp" \
		-- sh -c "exec sh /payload/run.sh $k $tests"
	qmp_guests "$k" --smp 1 --timeout 600
done
wait_guests
report_guests "${kernels[@]}"
