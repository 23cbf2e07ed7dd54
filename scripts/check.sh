#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# check.sh: the body of 'make check'.  Builds what is needed, checks the
# series, and runs in parallel guests: tests/ptp on the patched and the
# mainline kernel, the same minus the timing tests on the debug kernel
# (KASAN, lockdep, kmemleak: any report fails its guest), and the PCIe
# hot-unplug test (scripts/hotplug.sh) on all three.  Prints TAP.  A test
# that fails on the patched or debug kernel counts as a failure unless it
# fails on mainline too (a pre-existing failure, listed by name).  Ends with
# "N passed, N failed[, N skipped]".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

res=$OUT/check
rm -rf "$res"; mkdir -p "$res"
. "$top/scripts/guests.sh"

echo "# series"
if "$top/scripts/series.sh" > "$res/series.log" 2>&1; then
	"$top/scripts/check-series.sh" > "$res/series.tap" 2>&1 || true
else
	cat "$res/series.log"; echo "not ok 1 - make series" > "$res/series.tap"
fi
count_tap "$res/series.tap" "series: "

kernels=(patched mainline debug)
for k in "${kernels[@]}"; do
	t0=$SECONDS
	"$top/scripts/build-kernel.sh" "$k"
	"$top/scripts/initramfs.sh" "$k"
	echo "# $k: kernel and initramfs ready in $((SECONDS - t0)) s"
done
t0=$SECONDS
for k in "${kernels[@]}"; do
	count_tap "$BUILD/$k/test-programs.tap" "$k: "
done

for k in "${kernels[@]}"; do
	start_guest "$k" "$k" "$top/qemu/run" --kernel "$k" --timeout 1200 \
		--console-log "$res/$k.console" --payload "$top/tests/ptp" \
		-- sh /payload/run.sh "$k"
	start_guest "$k-hotplug" "$k" "$top/scripts/hotplug.sh" "$k" --smp 1 \
		--timeout 600 --console-log "$res/$k-hotplug.console"
done
wait_guests
echo "# guests done in $((SECONDS - t0)) s"
report_guests "${kernels[@]}"
