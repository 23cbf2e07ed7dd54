#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench-timers.sh: the body of 'make bench-timers'.  Boots KIND once and runs
# timer_latency (tools/testing/selftests/clockdev) on each clock of CLOCKS:
# the lateness of one-shot timers (absolute and relative), periodic timers,
# clock_nanosleep() and timerfd at 0 and +-PPM of frequency offset, side by
# side with the same on CLOCK_MONOTONIC interleaved with them, then of a
# probe timer with N background timers armed on the same clock.  Prints the
# tables and keeps them in $OUT/bench-timers/table.txt (the console beside).
# CLOCKS (-c, comma-separated): sim (ptp_sim, whose reads do not sleep: its
# timers expire from the core's hrtimer), sim-sleeping (ptp_sim created with
# SLEEPING_READS: a worker reads it), mock (netdevsim's mock PHC).
# With -r BOOTS, the guest boots BOOTS times and a last table gives each
# figure's min / median / max over the boots (timer_latency -t lines).
# The figures are QEMU TCG ones: compare the clocks with each other only.
# usage: bench-timers.sh [-k KIND] [-c CLOCKS] [-r BOOTS] [-n SAMPLES] [-b N,...] [-p PPM]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kind=patched
mem=1024
clocks=sim
boots=1
bench_args=(-t)
while getopts k:c:r:n:b:p: opt; do
	case $opt in
	k) kind=$OPTARG ;;
	c) clocks=$OPTARG ;;
	r) boots=$OPTARG ;;
	n|b|p) bench_args+=("-$opt" "$OPTARG") ;;
	*) die "usage: bench-timers.sh [-k KIND] [-c CLOCKS] [-r BOOTS] [-n SAMPLES] [-b N,...] [-p PPM]" ;;
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
# Guest side: bench.sh CLOCKS ARGS...: timer_latency on each clock.
clocks=$1; shift
echo "kernel $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)," \
	"$(grep MemTotal /proc/meminfo | tr -s ' ')"
bus=/sys/bus/ptp_sim
modprobe ptp_sim 2>/dev/null
rc=0
for c in $(echo "$clocks" | tr , ' '); do
	echo
	echo "=== clock: $c"
	dev= del=
	case $c in
	sim|sim-sleeping)
		id=80 arg=80
		[ $c = sim ] || { id=81 arg="81 10000000 1"; }
		echo "$arg" > $bus/new_device || { echo "no ptp_sim in this kernel"; rc=1; continue; }
		dev=/dev/$(ls $bus/devices/ptp_sim$id/ptp)
		del="echo $id > $bus/del_device" ;;
	mock)
		modprobe netdevsim && echo "90 1" > /sys/bus/netdevsim/new_device ||
			{ echo "no netdevsim"; rc=1; continue; }
		for p in /sys/class/ptp/ptp*; do
			[ "$(readlink -f "$p/device")" = /sys/devices/netdevsim90 ] && dev=/dev/${p##*/}
		done
		del="echo 90 > /sys/bus/netdevsim/del_device" ;;
	*) echo "unknown clock $c"; rc=1; continue ;;
	esac
	/usr/local/kselftest/clockdev/timer_latency "$@" "$dev" || rc=1
	/usr/local/kselftest/clockdev/expiry_cost -t "$dev" || rc=1
	sh -c "$del"
done
exit $rc
EOF
}

# run_guest N: boot $kind; its output in $res/guest.N.txt.
run_guest() {
	log "boot $1 of $boots: $kind (--mem $mem)"
	"$top/qemu/run" --kernel "$kind" --mem "$mem" --timeout 2400 \
		--console-log "$res/console.$1.txt" --payload "$payload" \
		-- sh /payload/bench.sh "$clocks" "${bench_args[@]}" > "$res/guest.$1.txt" ||
		die "the $kind guest failed; see $res/guest.$1.txt and $res/console.$1.txt"
}

# aggregate: each "bench" line's figure, min / median / max over the boots,
# named "CLOCK: ROW" (the guest writes CRLF).
aggregate() {
	awk -F '\t' '
		{ sub(/\r$/, "") }
		/^=== clock: / { c = substr($0, 12); next }
		$1 == "bench" {
			k = c ": " $2
			if (!(k in vals)) { order[++n] = k; unit[k] = $4 }
			vals[k] = vals[k] " " $3
		}
		END {
			printf "%-58s %9s %9s %9s\n", "figure (over the boots)", "min", "median", "max"
			for (i = 1; i <= n; i++) {
				k = order[i]; m = split(vals[k], v, " ")
				for (a = 2; a <= m; a++)
					for (b = a; b > 1 && v[b - 1] + 0 > v[b] + 0; b--) {
						t = v[b]; v[b] = v[b - 1]; v[b - 1] = t
					}
				med = m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
				printf "%-58s %9s %9s %9s %s\n", k, v[1], med, v[m], unit[k]
			}
		}' "$res"/guest.*.txt
}

print_table() {
	echo "bench-timers: expiry lateness on a dynamic clock, QEMU TCG (emulated CPU)."
	echo "TCG figures: compare the clocks with each other, not with hardware."
	echo "host: $(nproc) CPUs, load average $load_start at start, $(cut -d' ' -f1 /proc/loadavg) at end."
	echo "The tables of boot 1:"
	grep -v "^bench	" "$res/guest.1.txt" | tr -d '\r'
	echo
	echo "== each figure over $boots boot(s)"
	aggregate
}

load_start=$(cut -d' ' -f1 /proc/loadavg)
build_payload
for ((b = 1; b <= boots; b++)); do
	run_guest "$b"
done
print_table | tee "$res/table.txt"
