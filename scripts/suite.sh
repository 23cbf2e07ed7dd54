#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# suite.sh SUITE: the one test runner behind 'make check', 'make soak' and
# 'make check-rt'.  A suite names the kernels under test, the guest tests
# it runs on them (tests/ptp/t-*.sh, or tests/ptp/soak/s-*.sh) and whether
# the QMP guests run (PCIe hot-unplug, suspend to RAM: scripts/hotplug.sh).
# Mainline always runs beside them, in the same run, as the reference.
#
#   check   patched and debug: tests/ptp/t-*.sh, the QMP guests, the
#           series checks (checkpatch, git am, repository = series)
#   debug   debug: every test of check (check runs part of them on debug)
#   soak    patched: tests/ptp/soak/s-*.sh (minutes each), and the QMP
#           guests with 50 hot-unplug cycles
#   rt      rt (PREEMPT_RT): the KUnit, timers and RTC tests, QMP guests
#
# Variables: TESTS (words; a guest test runs when its file name contains
# one of them, e.g. TESTS="errors timers"; the word "qmp" selects the QMP
# guests; the series checks run only without TESTS), KERNELS (the kernels
# under test instead of the suite's, e.g. KERNELS=patched), NO_MAINLINE=1
# (no reference run: then no failure can be called known).
#
# Results go to $OUT/runs/SUITE-DATE/ (kept; $OUT/SUITE links to the
# latest): each guest's TAP (.tap), stderr (.err), exit status (.rc) and
# console (.console), the builds' logs, and summary.txt, the judged report
# (scripts/judge.sh) whose last line is "N passed, N failed, N skipped".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

suite=${1:?usage: suite.sh check|debug|soak|rt}
# Defaults, which a suite below overrides: the QMP guests' suspend cases
# (each a boot of its own), the kernels' shards (none: one guest each),
# the debug kernel's tests (empty: all), its suspend cases and whether it
# runs the short forms of the long tests (tests/ptp/lib.sh, SHORT).
all_cases="rtcclock ptpsim rebind"
shards=() mainline_shards=() debug_shards=()
debug_tests='' debug_cases=$all_cases debug_short='' debug_timeout=''
case $suite in
check)
	under=(patched debug) tests=("$top"/tests/ptp/t-*.sh) qmp=1 series=1
	# Each kernel runs its tests in guests side by side (shards, below),
	# so that no guest runs much longer than the others: the timers
	# selftests wait for expiries (seconds each, the RTC's a second at
	# least), linuxptp and chrony for their daemons, trinity's children
	# for their calls; a waiting guest costs little CPU (an idle patched
	# guest about a tenth of a core).
	shards=("t-21 t-74" "t-22" "t-75" "t-80 t-86 t-87 t-88" "t-42 t-70"
		"t-50 t-71 t-72 t-73 t-90")
	# Mainline skips most of them (no timers on fd clocks): two guests,
	# and t-22's own (its NICs and one vCPU).
	mainline_shards=("t-21 t-42 t-74 t-75 t-80" "t-22")
	# The debug kernel (KASAN, lockdep, kmemleak: many times slower
	# under TCG, every guest CPU-bound) runs what its checkers are for:
	# the error table with removal under open descriptors, the fuzzers
	# (the ABI's and trinity), the lifetime tests (with PTP as a module
	# there), the create/destroy races and RTC unbind cycles, what an
	# unprivileged user can do, KUnit, timers on the ptp_sim whose reads
	# sleep, the simulated wire (ts2phc; removal under a running output),
	# and the QMP guests (hot-unplug with the s2idle and alarm suspend
	# cases, and an RTC clock's timer waking the system from S3);
	# kmemleak scans after each test (tests/ptp/run.sh).  The timers
	# selftests on the other clocks (t-74, t-75), the RTC selftests (t-80)
	# and the other suspend cases run on it in 'make check-debug', which
	# runs every test: in make check they would double its time.
	debug_tests="t-00 t-10 t-40 t-41 t-42 t-45 t-46 t-47 t-60 t-70 t-88"
	# All in one guest, measured on two cores: alone on the machine it
	# takes 384 s of CPU in 366 s; in three guests beside the others
	# they took 721 s of CPU and the run 13m05s, in two 583 s and 13m14s,
	# in one 378 s and 12m38s.  A debug boot is 35 s of CPU, and a vCPU
	# that spins waiting for its guest's other vCPU, descheduled by the
	# host, burns its time for nothing.
	debug_shards=()
	debug_cases="rtcclock"
	# and the short forms of the long ones there (tests/ptp/lib.sh, SHORT).
	debug_short=1
	timeout=1500 ;;
debug)
	under=(debug) tests=("$top"/tests/ptp/t-*.sh) qmp=1 series=0
	debug_shards=("t-70" "t-42 t-88" "t-74 t-75 t-80" "t-41 t-46 t-47")
	timeout=2400 ;;
soak)
	under=(patched) tests=("$top"/tests/ptp/soak/s-*.sh) qmp=1 series=0
	export HOTPLUG_CYCLES=${HOTPLUG_CYCLES:-50}
	# The debug kernel's soak is hours: the ABI fuzzer's 10,000,000
	# calls about 4, trinity 1, the races and RTC cycles half of one.
	timeout=9000 debug_timeout=28800 ;;
rt)
	under=(rt) tests=("$top"/tests/ptp/t-*kunit*.sh "$top"/tests/ptp/t-*timers.sh
			  "$top"/tests/ptp/t-*rtc*.sh) qmp=1 series=0
	timeout=1500 ;;
*) die "unknown suite '$suite' (check, debug, soak, rt)" ;;
esac
[ -z "${KERNELS:-}" ] || read -ra under <<< "$KERNELS"
for k in "${under[@]}"; do
	[ "$k" != mainline ] ||
		die "KERNELS lists the kernels under test; mainline is the reference, run unless NO_MAINLINE=1"
done
kernels=("${under[@]}")
[ -n "${NO_MAINLINE:-}" ] || kernels+=(mainline)

# TESTS: keep the guest tests whose file name holds one of its words.
if [ -n "${TESTS:-}" ]; then
	keep=()
	for t in "${tests[@]}"; do
		for w in $TESTS; do
			case ${t##*/} in *"$w"*) keep+=("$t"); break ;; esac
		done
	done
	tests=("${keep[@]}")
	case " $TESTS " in *" qmp "*) ;; *) qmp=0 ;; esac
	series=0
fi

res=$OUT/runs/$suite-$(date +%Y%m%d-%H%M%S)
mkdir -p "$res"
ln -sfn "runs/${res##*/}" "$OUT/$suite"
. "$top/scripts/guests.sh"
log "results in $res"
t_start=$SECONDS

# The series: applied, the repository checked against it; for 'check' also
# checkpatch and git am, beside the kernel builds (minutes of one core).
series_pid=
if "$top/scripts/series.sh" > "$res/series.log" 2>&1; then
	if [ $series = 1 ]; then
		"$top/scripts/check-series.sh" > "$res/series.tap" 2>&1 &
		series_pid=$!
	fi
else
	cat "$res/series.log" >&2
	{ echo "not ok 1 - the series applies and matches the repository (make series)"
	  sed 's/^/# /' "$res/series.log"; } > "$res/series.tap"
	for k in "${kernels[@]}"; do
		case $k in mainline*) ;; *) echo "$k" >> "$res/unbuilt" ;; esac
	done
fi

# The kernels build side by side: each is make -j$JOBS, and the serial
# stretches of one (configuration, linking, modpost, the initramfs) leave
# cores that the others use.
build_one() {
	local t0=$SECONDS
	"$top/scripts/build-kernel.sh" "$1" && "$top/scripts/initramfs.sh" "$1" &&
		echo "# $1: kernel and initramfs ready in $((SECONDS - t0)) s"
}
pids=() built=()
for k in "${kernels[@]}"; do
	grep -qx "$k" "$res/unbuilt" 2>/dev/null && continue
	build_one "$k" > "$res/build-$k.log" 2>&1 &
	pids+=($!) built+=("$k")
done
for i in "${!pids[@]}"; do
	if wait "${pids[i]}"; then
		echo "ok 1 - kernel and initramfs build" > "$res/${built[i]}-build.tap"
		cat "$BUILD/${built[i]}/test-programs.tap" >> "$res/${built[i]}-build.tap"
	else
		{ echo "not ok 1 - kernel and initramfs build"
		  tail -30 "$res/build-${built[i]}.log" | sed 's/^/# /'; } > "$res/${built[i]}-build.tap"
		echo "${built[i]}" >> "$res/unbuilt"
	fi
	echo "${built[i]}-build ${built[i]} build" >> "$res/guests"
done
log "builds done in $((SECONDS - t_start)) s"

# Whether this QEMU emulates igb (8.0 and later).
qemu_igb=
if qemu-system-x86_64 -device help 2>/dev/null | grep -q '"igb"'; then qemu_igb=1; fi

# main_guest GUEST KIND TEST...: boot KIND and run the guest tests given.
main_guest() {
	local guest=$1 k=$2 skip_tags='' subset='' short='' qopts=() t=$timeout
	shift 2
	# t-21-igb.sh and t-22-nic-timers.sh need an igb NIC beside the
	# e1000e (QEMU 8 or later; without one they say they skip).
	case " ${*##*/} " in *" t-21-igb.sh "*|*" t-22-nic-timers.sh "*)
		[ -z "$qemu_igb" ] || qopts=(--nic e1000e,igb) ;;
	esac
	# t-22 removes the NICs from the PCI bus and brings them back, again
	# and again: QEMU 10.0.2's TCG aborts now and then on a guest with two
	# vCPUs while the guest moves a BAR (iotlb_to_section: Assertion
	# 'section_index < d->map.sections_nb' failed; 1 of 4 runs of t-22),
	# a race between a vCPU's cached MMIO mapping and another's change of
	# the memory map.  One vCPU has no other to race with.
	case " ${*##*/} " in *" t-22-nic-timers.sh "*) qopts+=(--smp 1) ;; esac
	# The debug kernel's checkers make every test many times slower: it
	# skips the tests marked timing (fixed latency thresholds) and runs
	# the selftests on one clock of each kind (tests/ptp/lib.sh,
	# ksft_subset); its console must stay silent all along.
	case $k in debug*) skip_tags=timing subset=1 short=$debug_short
		t=${debug_timeout:-$timeout} ;;
	esac
	start_guest "$guest" "$k" "$top/qemu/run" --kernel "$k" --timeout "$t" \
		"${qopts[@]}" --console-log "$res/$guest.console" --payload "$top/tests/ptp" \
		-- env SKIP_TAGS="$skip_tags" SUBSET="$subset" SHORT="$short" \
		EXPECT_RELEASE="$(cat "$BUILD/$k/kernelrelease")" \
		sh /payload/run.sh "${@#"$top"/tests/ptp/}"
}

# named WORDS TEST...: the tests whose file name holds one of WORDS.
named() {
	local words=$1 t w
	shift
	for t in "$@"; do
		for w in $words; do
			case ${t##*/} in *"$w"*) echo "$t"; break ;; esac
		done
	done
}

t0=$SECONDS
# The debug guests first: the slowest, they should not be the last to get
# a slot (guests.sh, GUEST_SLOTS).
order=()
for k in "${kernels[@]}"; do case $k in debug*) order+=("$k") ;; esac; done
for k in "${kernels[@]}"; do case $k in debug*) ;; *) order+=("$k") ;; esac; done
for k in "${order[@]}"; do
	grep -qx "$k" "$res/unbuilt" 2>/dev/null && continue
	mine=("${tests[@]}")
	case $k in
	debug*) [ -z "$debug_tests" ] || mapfile -t mine < <(named "$debug_tests" "${tests[@]}") ;;
	esac
	case $k in
	debug*) my_shards=("${debug_shards[@]}") ;;
	mainline*) my_shards=("${mainline_shards[@]}") ;;
	*) my_shards=("${shards[@]}") ;;
	esac
	# Each shard's tests go to a guest of their own (KIND-2, ...), the
	# rest to KIND.
	rest=("${mine[@]}") n=1
	for sh in "${my_shards[@]}"; do
		mapfile -t part < <(named "$sh" "${rest[@]}")
		left=()
		for t in "${rest[@]}"; do
			case " ${part[*]} " in *" $t "*) ;; *) left+=("$t") ;; esac
		done
		rest=("${left[@]}") n=$((n + 1))
		[ ${#part[@]} = 0 ] || main_guest "$k-$n" "$k" "${part[@]}"
	done
	[ ${#rest[@]} = 0 ] || main_guest "$k" "$k" "${rest[@]}"
	# A debug guest started beside the others may take minutes to boot.
	case $k in debug*) qt=900 ;; *) qt=600 ;; esac
	[ "$suite" != soak ] || qt=3600	# 50 hot-unplug cycles
	case $k in debug*) cases=$debug_cases ;; *) cases=$all_cases ;; esac
	[ $qmp = 0 ] || qmp_guests "$k" "$cases" --smp 1 --timeout $qt
done
wait_guests
# The series checks ran beside the guests (they need a core for a minute,
# the guests' first minutes leave one).
[ -z "$series_pid" ] || wait "$series_pid" || true
# What the guests cost: QEMU's CPU time (qemu/run reports it), the figure
# that decides how long a suite takes on a machine of few cores.
cpu=0
while read -r g _; do
	[ -f "$res/$g.err" ] || continue	# a build, not a guest
	s=$(sed -n 's/.* guest: \([0-9]*\) s of CPU in .*/\1/p' "$res/$g.err" |
		awk '{ n += $1 } END { if (NR) print n }')
	[ -n "$s" ] || continue
	echo "$g $s" >> "$res/cpu"
	cpu=$((cpu + s))
done < "$res/guests"
log "guests done in $((SECONDS - t0)) s, $cpu s of CPU (per guest: $res/cpu)"
# When each guest ran, from the first start: where the time went.
if [ -f "$res/timeline" ]; then
	sort -k2n "$res/timeline" | awk 'NR == 1 { t0 = $2 }
		{ printf "%-28s %5d s .. %5d s: %4d s\n", $1, $2 - t0, $3 - t0, $3 - $2 }' \
		> "$res/timeline.txt"
	log "the last guests to finish (all: $res/timeline.txt):"
	sort -k5n "$res/timeline.txt" | tail -n 3 >&2
fi

"$top/scripts/judge.sh" "$res" "${under[@]}" | tee "$res/summary.txt"
