#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh: the body of 'make bench'.  One command, one table, pictures:
#  1. dispatch: clock_gettime(), clock_getres() and clock_adjtime(modes=0)
#     on netdevsim's mock PHC, mainline against patched, with
#     CLOCK_MONOTONIC's system call and vDSO as floors; under -icount (guest
#     ns = instructions: one boot per kernel, the same figure every time),
#     then plain TCG (PASSES boots per kernel, alternating);
#  2. scaling: the same calls from 1, 2 and 4 threads on one clock, against
#     CLOCK_MONOTONIC read the same way (TCG's ceiling);
#  3. timers: lateness of one-shot (absolute, relative), periodic,
#     clock_nanosleep() and timerfd expiries on ptp_sim (reads do not sleep:
#     expiry from the core's hrtimer), ptp_sim with sleeping reads (expiry
#     from the worker) and the mock PHC, each interleaved with the same on
#     CLOCK_MONOTONIC, at 0 and +-500 ppm, and with 0 to 10,000 background
#     timers (patched only: mainline has no timers on these clocks);
#  4. mapping: the error of the core's prediction of the device time at
#     each read it takes while those timers run (tracepoint
#     clockdev_timer_read: read - predicted);
#  5. teardown and memory: removal of a clock with 1, 100 and 10,000 open
#     files and armed timers; kernel memory per clock, file and timer.
# Everything lands in $OUT/bench: table.txt, the raw outputs, and with
# gnuplot dispatch.png and timers.png.  QEMU TCG figures: compare the
# columns of one run with each other, not with hardware.
# usage: bench.sh [-p PASSES] [-n SAMPLES] [-R]
#        (-R: no guests, only the table and pictures again from $OUT/bench)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

passes=3
samples=200
redraw=
while getopts p:n:R opt; do
	case $opt in
	p) passes=$OPTARG ;;
	n) samples=$OPTARG ;;
	R) redraw=1 ;;
	*) die "usage: bench.sh [-p PASSES] [-n SAMPLES] [-R]" ;;
	esac
done

res=$OUT/bench
start=$(date +%s)
load_start=$(cut -d' ' -f1 /proc/loadavg)
if [ -z "$redraw" ]; then
rm -rf "$res"; mkdir -p "$res"

log "1/4 dispatch under -icount: mainline and patched, one boot each"
OUT=$res "$top/scripts/bench-read.sh" -i -p 1 -r 5 -m 20 > "$res/dispatch-icount.txt"
log "2/4 dispatch and scaling, plain TCG: $passes boots per kernel"
OUT=$res "$top/scripts/bench-read.sh" -p "$passes" > "$res/dispatch-tcg.txt"
log "3/4 timers on sim, sim-sleeping and mock ($samples samples per figure, $passes boots)"
OUT=$res "$top/scripts/bench-timers.sh" -k patched -c sim,sim-sleeping,mock \
	-r "$passes" -n "$samples" -b 0,100,10000 > "$res/timers.txt"

log "4/4 mapping, teardown and memory (patched)"
payload=$(mktemp -d /tmp/clockdev-bench.XXXXXX)
trap 'rm -rf "$payload"' EXIT
cat > "$payload/extras.sh" <<'EOF'
# Guest side: the core's prediction error while timers run, then teardown.
bus=/sys/bus/ptp_sim
modprobe ptp_sim 2>/dev/null
echo 85 > $bus/new_device || { echo "no ptp_sim"; exit 1; }
dev=/dev/$(ls $bus/devices/ptp_sim85/ptp)
node=${dev#/dev/}
grep -q " /sys/kernel/tracing " /proc/mounts || mount -t tracefs nodev /sys/kernel/tracing
T=/sys/kernel/tracing/instances/clockdev-mapping
mkdir $T && echo "clock == \"$node\"" > $T/events/clockdev/clockdev_timer_read/filter &&
	echo 1 > $T/events/clockdev/clockdev_timer_read/enable || { echo "no tracepoint"; exit 1; }
echo 8192 > $T/buffer_size_kb
/usr/local/kselftest/clockdev/timer_latency -n 100 -b 0 -p 500 $dev > /dev/null
# Then frequency steps at known times under a 5 ms periodic timer: reads
# within 500 ms after a change against the others.  The pauses pace the
# workload; nothing waits on them.  Times are CLOCK_BOOTTIME, the
# tracepoint's boot= (/proc/uptime, 10 ms resolution).
steps=$(cut -d' ' -f1 /proc/uptime)
clockdev $dev freq 0 timer 0.1 0.005 1300 > /dev/null &
tpid=$!
changes=
for f in 500000 -500000 0 500000 -500000; do
	clockdev $dev wait 1 > /dev/null
	changes="$changes $(cut -d' ' -f1 /proc/uptime)"
	clockdev $dev freq $f > /dev/null
done
wait $tpid
echo 0 > $T/events/clockdev/clockdev_timer_read/enable
# dev= and predicted= are ~19-digit ns: busybox awk's doubles hold 15, and it
# reads "0123" as octal; compare them as a head and a 12-digit tail, each
# with a leading 1.  Each read is put in a class: during timer_latency (its
# own +-500 ppm changes included), or in the steps phase within 500 ms of a
# frequency change, or later.
awk -v steps="$steps" -v changes="$changes" '
BEGIN { nc = split(changes, ch, " ") }
/clockdev_timer_read:/ {
	for (i = 1; i <= NF; i++) {
		split($i, kv, "=")
		v[kv[1]] = kv[2]
	}
	if (v["err"] != 0 || v["predicted"] == 0) next
	d = v["dev"]; p = v["predicted"]; b = v["boot"] / 1e9
	dh = length(d) > 12 ? substr(d, 1, length(d) - 12) : 0
	ph = length(p) > 12 ? substr(p, 1, length(p) - 12) : 0
	dt = "1" substr(d, length(d) > 12 ? length(d) - 11 : 1)
	pt = "1" substr(p, length(p) > 12 ? length(p) - 11 : 1)
	if (length(dt) != length(pt)) { dt = d; pt = p }
	c = "all"
	if (b >= steps) {
		c = "steps-steady"
		for (i = 1; i <= nc; i++)
			if (b >= ch[i] && b - ch[i] <= 0.5)
				c = "steps-after"
	}
	print c, (dh - ph) * 1e12 + (dt - pt)
}' $T/trace > /tmp/err.txt
lost=$(cat $T/per_cpu/cpu*/stats 2>/dev/null | awk '/overrun/ { s += $2 } END { print s + 0 }')
rmdir $T
summary() {
	local vals=/tmp/summary.$$
	sort -n > $vals
	awk '{ print ($1 < 0 ? -$1 : $1) }' $vals | sort -n |
	awk -v lost="$lost" -v what="$1" -v vals=$vals '
	{ abs[NR] = $1 }
	END {
		while ((getline x < vals) > 0) v[++n] = x
		if (!NR) { print "mapping\t" what ": no reads traced"; exit 1 }
		printf "mapping\t%s: read - predicted, device ns: p1 %d, p50 %d, p99 %d; |error| p50 %d, p99 %d, max %d; %d reads, %d lost\n",
			what, v[int(n * 0.01) + 1], v[int(n * 0.5) + 1], v[int(n * 0.99) + 1],
			abs[int(NR * 0.5) + 1], abs[int(NR * 0.99) + 1], abs[NR], NR, lost
	}'
	rm -f $vals
}
awk '$1 == "all" { print $2 }' /tmp/err.txt |
	summary "timer_latency -p 500 (one-shot, periodic, sleeps; 0, +500, -500 ppm)"
awk '$1 == "steps-steady" { print $2 }' /tmp/err.txt |
	summary "5 ms periodic timer, over 500 ms after a frequency change"
awk '$1 == "steps-after" { print $2 }' /tmp/err.txt |
	summary "5 ms periodic timer, within 500 ms after a change of 500 or 1000 ppm"
echo 85 > $bus/del_device
/usr/local/kselftest/clockdev/teardown_bench -n 1,100,10000 -c 20
EOF
"$top/qemu/run" --kernel patched --mem 1024 --timeout 1800 \
	--console-log "$res/extras.console" --payload "$payload" \
	-- sh /payload/extras.sh > "$res/extras.txt" ||
	die "the extras guest failed; see $res/extras.txt and $res/extras.console"
"$top/scripts/bench-sizes.sh" patched > "$res/sizes.txt"
fi

# The table.
{
	echo "make bench: QEMU TCG, host $(nproc) CPUs, load average $load_start at start," \
		"$(cut -d' ' -f1 /proc/loadavg) at end, $(( $(date +%s) - start )) s."
	echo "Figures of one run; compare columns with each other, not with hardware."
	echo
	echo "== 1. dispatch, -icount shift=0,sleep=off (guest ns = instructions; cache"
	echo "==    and atomics cost one instruction each: a repeatable count, not time)"
	echo "==    (one thread only: under -icount the vCPUs take turns on one host"
	echo "==    thread, so figures of several threads are not comparable)"
	sed -n '/^figure/,/^$/p' "$res/dispatch-icount.txt" | grep -v 'calls/s'
	echo "== 1-2. dispatch and scaling, plain TCG ($passes boots per kernel, median;"
	echo "==      threads share one clock, or read one each: \"a clock per thread\";"
	echo "==      TCG does not model contention)"
	sed -n '/^figure/,/^$/p' "$res/dispatch-tcg.txt"
	echo "== 3. timers (patched), lateness in us, p50 / p99 / max"
	sed -n '/^=== clock/,$p' "$res/timers.txt"
	echo
	echo "== 4-5. mapping, teardown and memory (patched)"
	grep -E '^(mapping|bench|#)' "$res/extras.txt" | sed 's/^bench\t//; s/\t/  /g'
	if [ -f "$res/sizes.txt" ]; then
		echo "   sizes in the patched kernel (scripts/bench-sizes.sh); a clock's"
		echo "   srcu_data is per possible CPU:"
		sed 's/^bench\t/   /; s/\t/  /g' "$res/sizes.txt"
	fi
} > "$res/table.txt"
cat "$res/table.txt"

# The pictures.
if ! command -v gnuplot > /dev/null; then
	log "no gnuplot: no pictures (make deps installs gnuplot-nox)"
	exit 0
fi
# dispatch.dat: row, mainline, patched (icount, ns per call, 1 thread).
awk -F '  +' '/ns per call, 1 thread/ && !/over/ {
	r = $1; sub(/, ns per call, 1 thread/, "", r); gsub(/"/, "", r)
	printf "\"%s\" %s %s\n", r, $2, $3 }' "$res/dispatch-icount.txt" > "$res/dispatch.dat"
# timers.dat: kind, then the median over the boots of p50 and p99 at
# +0 ppm on each clock and on CLOCK_MONOTONIC interleaved with ptp_sim,
# from the last table of bench-timers ("CLOCK: KIND, +0 ppm[, WHO], P").
awk '
	/^== each figure over/ { on = 1; next }
	on && / \+0 ppm/ {
		split($0, a, ": "); c = a[1]; r = substr($0, length(c) + 3)
		n = split(r, f, ", ")
		kind = f[1]; who = n == 4 ? f[3] : "dev"; p = f[n]
		sub(/ .*/, "", p)
		m = split($0, w, / +/); med = w[m - 2]
		if (who == "dev") v[c, kind, p] = med
		else if (who == "CLOCK_MONOTONIC" && c == "sim") v["mono", kind, p] = med
	}
	END {
		split("one-shot relative periodic nanosleep timerfd", kn, " ")
		for (k = 1; k <= 5; k++) {
			printf "%s", kn[k]
			split("p50 p99", ps, " ")
			for (q = 1; q <= 2; q++)
				printf " %s %s %s %s", v["sim", kn[k], ps[q]], v["sim-sleeping", kn[k], ps[q]],
					v["mock", kn[k], ps[q]], v["mono", kn[k], ps[q]]
			printf "\n"
		}
	}' "$res/timers.txt" > "$res/timers.dat"
gnuplot <<EOF
set terminal pngcairo size 900,480 noenhanced
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key top left
set grid y
set output "$res/dispatch.png"
set title "clock_gettime() and friends, guest instructions per call (-icount)"
set ylabel "instructions per call"
set yrange [0:*]
set offsets 0, 0, graph 0.1, 0
set xtics rotate by -20
plot "$res/dispatch.dat" using 2:xtic(1) title "mainline", '' using 3 title "patched"
set output "$res/timers.png"
set terminal pngcairo size 1100,480 noenhanced
set title "timer lateness at +0 ppm, p50 (solid) and p99 (light), median of the boots, us (log scale)"
set ylabel "us"
set logscale y
set key outside right top
set xtics norotate
plot "$res/timers.dat" using 2:xtic(1) title "ptp_sim p50" lc rgb "#1f77b4", \
	'' using 3 title "ptp_sim sleeping reads p50" lc rgb "#ff7f0e", \
	'' using 4 title "mock PHC p50" lc rgb "#2ca02c", \
	'' using 5 title "CLOCK_MONOTONIC p50" lc rgb "#7f7f7f", \
	'' using 6 title "ptp_sim p99" lc rgb "#aec7e8", \
	'' using 7 title "sleeping p99" lc rgb "#ffbb78", \
	'' using 8 title "mock p99" lc rgb "#98df8a", \
	'' using 9 title "CLOCK_MONOTONIC p99" lc rgb "#c7c7c7"
EOF
log "pictures: $res/dispatch.png $res/timers.png"
