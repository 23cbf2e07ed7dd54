#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench-timers.sh: the body of 'make bench-timers'.  Boots KIND once and runs
# timer_latency (tools/testing/selftests/clockdev) on a ptp_sim clock: the
# lateness of one-shot timers, periodic timers, clock_nanosleep() and timerfd
# at 0 and +-PPM of frequency offset, side by side with the same on
# CLOCK_MONOTONIC, then of a probe timer with N background timers armed on
# the same clock.  Prints the table
# and keeps it in $OUT/bench-timers/table.txt (the console beside it).
# The figures are QEMU TCG ones: compare the clocks with each other only.
# usage: bench-timers.sh [-k KIND] [-n SAMPLES] [-b N,...] [-p PPM]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kind=patched
mem=1024
bench_args=()
while getopts k:n:b:p: opt; do
	case $opt in
	k) kind=$OPTARG ;;
	n|b|p) bench_args+=("-$opt" "$OPTARG") ;;
	*) die "usage: bench-timers.sh [-k KIND] [-n SAMPLES] [-b N,...] [-p PPM]" ;;
	esac
done

res=$OUT/bench-timers
payload=$(mktemp -d /tmp/clockdev-bench-timers.XXXXXX)
trap 'rm -rf "$payload"' EXIT
rm -rf "$res"; mkdir -p "$res"

# build_payload: the guest script that runs the benchmark (installed in
# the guest image with the clockdev selftests, scripts/initramfs.sh).
build_payload() {
	cat > "$payload/bench.sh" <<'EOF'
# Guest side: a ptp_sim instance; measure expiries on its clock.
bus=/sys/bus/ptp_sim
modprobe ptp_sim 2>/dev/null
echo 80 > $bus/new_device || { echo "no ptp_sim in this kernel"; exit 1; }
dev=/dev/$(ls $bus/devices/ptp_sim80/ptp)
echo "kernel $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)," \
	"$(grep MemTotal /proc/meminfo | tr -s ' ')"
/usr/local/kselftest/clockdev/timer_latency "$@" "$dev"
rc=$?
echo 80 > $bus/del_device
exit $rc
EOF
}

# run_guest: boot $kind once; its output in $res/guest.txt.
run_guest() {
	log "booting $kind (--mem $mem)"
	"$top/qemu/run" --kernel "$kind" --mem "$mem" --timeout 600 \
		--console-log "$res/console.txt" --payload "$payload" \
		-- sh /payload/bench.sh "${bench_args[@]}" > "$res/guest.txt" ||
		die "the $kind guest failed; see $res/guest.txt and $res/console.txt"
}

print_table() {
	echo "bench-timers: expiry lateness on a dynamic clock, QEMU TCG (emulated CPU)."
	echo "TCG figures: compare the clocks with each other, not with hardware."
	echo "host: $(nproc) CPUs, load average $load_start at start, $(cut -d' ' -f1 /proc/loadavg) at end."
	cat "$res/guest.txt"
}

load_start=$(cut -d' ' -f1 /proc/loadavg)
build_payload
run_guest
print_table | tee "$res/table.txt"
