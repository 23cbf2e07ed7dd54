#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# soak.sh: the body of 'make soak'.  Builds the patched and the mainline
# kernel and runs the long tests, tests/ptp/soak/s-*.sh (minutes each:
# ptp/phc.sh on every PHC, rtctest, alarmtimer-suspend, the long timers
# selftests), on both in parallel guests.  Prints TAP judged as by
# 'make check': a failure on patched that mainline shares is a pre-existing
# failure, listed by name.  Ends with "N passed, N failed[, N skipped]".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

res=$OUT/soak
rm -rf "$res"; mkdir -p "$res"
. "$top/scripts/guests.sh"

kernels=(patched mainline)
"$top/scripts/series.sh" > "$res/series.log" 2>&1 ||
	{ cat "$res/series.log"; die "make series failed"; }
for k in "${kernels[@]}"; do
	"$top/scripts/build-kernel.sh" "$k"
	"$top/scripts/initramfs.sh" "$k"
done
for k in "${kernels[@]}"; do
	count_tap "$BUILD/$k/test-programs.tap" "$k: "
done

for k in "${kernels[@]}"; do
	start_guest "$k" "$k" "$top/qemu/run" --kernel "$k" --timeout 3600 \
		--console-log "$res/$k.console" --payload "$top/tests/ptp" \
		-- sh -c "exec sh /payload/run.sh $k /payload/soak/s-*.sh"
done
wait_guests
report_guests "${kernels[@]}"
