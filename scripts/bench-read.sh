#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench-read.sh: the body of 'make bench-read'.  Boots the mainline and the
# patched kernel alternately (PASSES times each, same settings), runs
# read_bench (tools/testing/selftests/clockdev) on netdevsim's mock PHCs
# (the same driver on both; four ports, so four clocks for the threads that
# read a clock each) and prints, per figure, the median over the
# passes side by side with the patched/mainline ratio and the spread
# between passes.
# The figures are QEMU TCG ones: compare the kernels with each other only.
# With -i the guests count instructions (qemu/run --icount): a guest ns is
# then one instruction, and the figures repeat across boots and host load;
# they count instructions, not cache-line traffic or atomics' cost.
# usage: bench-read.sh [-i] [-k KIND] [-p PASSES] [-r ROUNDS] [-m MS]
#        (-k: the kernel compared with mainline, default patched;
#         -r and -m are read_bench's: rounds per figure, ms per round)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kernels=(mainline patched)
smp=2
passes=3
bench_args=()
run_args=()
mode="QEMU TCG (emulated CPU)"
while getopts ik:p:r:m: opt; do
	case $opt in
	i) run_args+=(--icount)
	   mode="QEMU TCG, -icount shift=0,sleep=off: guest ns = instructions" ;;
	k) kernels=(mainline "$OPTARG") ;;
	p) passes=$OPTARG ;;
	r|m) bench_args+=("-$opt" "$OPTARG") ;;
	*) die "usage: bench-read.sh [-i] [-k KIND] [-p PASSES] [-r ROUNDS] [-m MS]" ;;
	esac
done

res=$OUT/bench-read${run_args:+-icount}
payload=$(mktemp -d /tmp/clockdev-bench.XXXXXX)
trap 'rm -rf "$payload"' EXIT
rm -rf "$res"; mkdir -p "$res"

# build_payload: the guest script that runs the benchmark (installed in
# the guest image with the clockdev selftests, scripts/initramfs.sh).
build_payload() {
	cat > "$payload/bench.sh" <<'EOF'
# Guest side: each netdevsim port brings a mock PHC; measure reads of the
# first, and of all four from threads reading a clock each.
modprobe netdevsim && echo "90 4" > /sys/bus/netdevsim/new_device || exit 1
devs=
for c in /sys/class/ptp/ptp*; do
	[ "$(readlink -f "$c/device")" = /sys/devices/netdevsim90 ] &&
		devs="$devs /dev/${c##*/}"
done
set -- "$@" $devs
dev=${devs# }; dev=${dev%% *}
[ -n "$dev" ] || { echo "no mock PHC"; exit 1; }
echo "# kernel $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo "# $dev: $(cat /sys/class/ptp/${dev#/dev/}/clock_name), and$devs"
/usr/local/kselftest/clockdev/read_bench "$@"
rc=$?
echo 90 > /sys/bus/netdevsim/del_device
exit $rc
EOF
}

# run_kernel KIND PASS: boot KIND, keep the output in $res/KIND.PASS.txt.
run_kernel() {
	local out=$res/$1.$2
	log "pass $2: booting $1 (--smp $smp)"
	"$top/qemu/run" --kernel "$1" --smp "$smp" --timeout 300 "${run_args[@]}" \
		--console-log "$out.console" --payload "$payload" \
		-- sh /payload/bench.sh "${bench_args[@]}" > "$out.txt" ||
		die "the $1 guest failed; see $out.txt and $out.console"
}

# print_table: one line per figure: each kernel's median over the passes,
# patched/mainline, and the larger of the two kernels' spreads between passes
# ((max - min) / median).
print_table() {
	local k
	echo "bench-read: clock_gettime() cost on a dynamic clock, $mode,"
	echo "guest --smp $smp, $passes boots per kernel, alternating."
	echo "TCG figures: compare the two kernels with each other, not with hardware."
	echo "host: $(nproc) CPUs, load average $load_start at start, $(cut -d' ' -f1 /proc/loadavg) at end."
	for k in "${kernels[@]}"; do
		sed -n "s/^# /$k: /p" "$res/$k.1.txt"
	done
	echo
	for k in "${kernels[@]}"; do
		awk -F '\t' -v k="$k" '$1 == "bench" { print k "\t" $2 "\t" $3 }' \
			"$res/$k".*.txt
	done | awk -F '\t' -v first="${kernels[0]}" '
		function med(key,   n, i, j, t, a) {
			n = split(vals[key], a, " ")
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
					t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
				}
			lo = a[1]; hi = a[n]
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		{
			if ($1 == first && !($2 in seen)) { seen[$2]; order[++nrows] = $2 }
			if ($3 == "failed") bad[$1, $2] = 1
			vals[$1, $2] = vals[$1, $2] " " $3
			kinds[$1]
		}
		END {
			for (k in kinds) if (k != first) second = k
			fmt = "%-58s %11s %11s %6s %7s\n"
			printf fmt, "figure (TCG)", first, second, "p/m", "spread"
			for (i = 1; i <= nrows; i++) {
				r = order[i]; spread = 0
				m = med(first SUBSEP r)
				if (m > 0) spread = (hi - lo) / m
				p = med(second SUBSEP r)
				if (p > 0 && (hi - lo) / p > spread) spread = (hi - lo) / p
				f = (m < 100 && p < 100) ? "%.3f" : "%.1f"
				ratio = (m > 0 && p > 0) ? sprintf("%.2f", p / m) : "-"
				ms = bad[first, r] ? "failed" : sprintf(f, m)
				ps = bad[second, r] ? "failed" : sprintf(f, p)
				printf fmt, r, ms, ps, ratio, sprintf("%.0f%%", spread * 100)
			}
		}'
	echo
	echo "ns rows: lower is better; calls/s rows: higher is better.  \"phc over\" rows:"
	echo "the PHC figure divided by the CLOCK_MONOTONIC syscall one of the same round."
	echo "spread: (max - min) / median over the boots, the larger of the two kernels."
}

load_start=$(cut -d' ' -f1 /proc/loadavg)
build_payload
for ((pass = 1; pass <= passes; pass++)); do
	for k in "${kernels[@]}"; do
		run_kernel "$k" "$pass"
	done
done
print_table | tee "$res/table.txt"
