#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# check.sh: the body of 'make check'.  Builds what is needed, checks the
# series, and runs in parallel guests: tests/ptp on the patched and the
# mainline kernel, the same minus the timing tests on the debug kernel
# (KASAN, lockdep, kmemleak: any report fails its guest), and on all three
# the guests driven through QMP (scripts/hotplug.sh): PCIe hot-unplug, and
# suspend to RAM with timers armed, one boot per case.  Prints TAP.  A test
# that fails on the patched or debug kernel counts as a failure unless it
# fails on mainline too (a pre-existing failure, listed by name).  Ends with
# "N passed, N failed[, N skipped]".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

res=$OUT/check
rm -rf "$res"; mkdir -p "$res"
. "$top/scripts/guests.sh"

echo "# series"
series_check=
if "$top/scripts/series.sh" > "$res/series.log" 2>&1; then
	# checkpatch takes minutes of one core: beside the kernel builds.
	"$top/scripts/check-series.sh" > "$res/series.tap" 2>&1 &
	series_check=$!
else
	cat "$res/series.log"; echo "not ok 1 - make series" > "$res/series.tap"
fi

kernels=(patched mainline debug)
# The three builds run side by side: each is make -j$JOBS, and the serial
# stretches of one (configuration, linking, modpost, the initramfs) leave
# cores that the others use.
build_one() {
	local t0=$SECONDS
	"$top/scripts/build-kernel.sh" "$1" && "$top/scripts/initramfs.sh" "$1" &&
		echo "# $1: kernel and initramfs ready in $((SECONDS - t0)) s"
}
pids=()
for k in "${kernels[@]}"; do
	build_one "$k" > "$res/build-$k.log" 2>&1 &
	pids+=($!)
done
built=0
for p in "${pids[@]}"; do
	wait "$p" || built=1
done
[ -z "$series_check" ] || wait "$series_check" || true
count_tap "$res/series.tap" "series: "
for k in "${kernels[@]}"; do
	if grep '^# ' "$res/build-$k.log"; then
		pass=$((pass + 1)); echo "$k: ok - kernel and initramfs build"
	else
		tail -30 "$res/build-$k.log" | sed 's/^/# /'
		fail=$((fail + 1)); echo "$k: not ok - kernel and initramfs build"
		built=1
	fi
done
if [ $built != 0 ]; then
	echo "$pass passed, $fail failed"
	exit 1
fi
t0=$SECONDS
for k in "${kernels[@]}"; do
	count_tap "$BUILD/$k/test-programs.tap" "$k: "
done

for k in "${kernels[@]}"; do
	start_guest "$k" "$k" "$top/qemu/run" --kernel "$k" --timeout 1200 \
		--console-log "$res/$k.console" --payload "$top/tests/ptp" \
		-- sh /payload/run.sh "$k"
	qmp_guests "$k" --smp 1 --timeout 600
done
wait_guests
echo "# guests done in $((SECONDS - t0)) s"
report_guests "${kernels[@]}"
