# SPDX-License-Identifier: GPL-2.0
# Test guests run in parallel; sourced by scripts/suite.sh after lib.sh.
# scripts/judge.sh reports their TAP against mainline's.
# shellcheck shell=bash
#
# A guest is one boot of one kernel KIND; its results are $res/GUEST.tap
# (TAP on stdout), .err (stderr), .rc (exit status) and usually .console.
# Several guests may boot the same KIND (e.g. "patched" and
# "patched-hotplug"); their lines are reported together under KIND.

: "${res:?guests.sh: set res to the results directory first}"

# At most GUEST_SLOTS guests run at once (default five per core).  Eleven
# side by side on two cores, all at one priority, starved the debug
# guests: their boot took 300 s, and an RCU stall (the grace-period
# kthread unscheduled for 63 s) during one boot failed its guest, a
# lateness bound another.  Six starved the others instead: the debug
# guests held four slots for ten minutes while the patched and mainline
# guests, which mostly wait for timers and daemons, queued behind them.
# So the debug kernel's main guests, CPU-bound and without latency bounds
# (they skip the tests marked timing), run at a lower priority (DEBUG_NICE,
# start_guest) and take what the others leave.  Not its QMP guests
# (run_guest): they time how soon each use of an unplugged clock sees
# ENODEV, and at nice 10 they missed that bound by 250 ms.  With the debug
# kernel's tests in one guest at nice 0, the run took 14m20s instead of
# 12m38s, and the debug hot-unplug guest missed its bounds by 290 ms.  A
# guest waits for a slot before QEMU starts, so its timeout is not eaten.
GUEST_SLOTS=${GUEST_SLOTS:-$((5 * JOBS))}
DEBUG_NICE=${DEBUG_NICE:-10}

# guest_prio KIND: the command prefix that sets the priority of KIND's
# guests.
guest_prio() {
	case $1 in debug*) echo "nice -n $DEBUG_NICE" ;; esac
}

# slot_run GUEST CMD...: run CMD while holding one of the GUEST_SLOTS slots
# (a lock file each); poll for a free one every second.  $res/timeline gets
# "GUEST START END" (seconds since the epoch) once CMD ends.
slot_run() {
	local guest=$1 i rc
	shift
	while :; do
		for ((i = 0; i < GUEST_SLOTS; i++)); do
			rc=0
			# shellcheck disable=SC2016 # the inner shell expands them
			flock -n -E 253 "$res/.slot$i" \
				sh -c 'date +%s > "$0"; exec "$@"' "$res/$guest.start" "$@" || rc=$?
			[ $rc = 253 ] || break 2
		done
		sleep 1
	done
	echo "$guest $(cat "$res/$guest.start") $(date +%s)" >> "$res/timeline"
	rm -f "$res/$guest.start"
	return $rc
}

# boots GUEST RETRY CMD...: slot_run GUEST CMD..., its output in
# $res/GUEST.tap, .err and .rc; while its status is one of the words of
# RETRY, it boots again, up to three boots in all.  The files of an earlier
# boot stay as GUEST.N.*.  When a later boot passes after one that hung
# (124: the QMP guests, below), its checks and its clean finish are flaky
# (GUEST.flaky says why; scripts/judge.sh reports them so), not passed.
# When the earlier boots ended only because QEMU itself failed (123:
# qemu/run found the emulator dead by a signal, e.g. QEMU 10.0.2's
# "iotlb_to_section: Assertion `section_index < d->map.sections_nb'
# failed", seen once in some sixty TCG boots), the checks of the boot
# that passed ran once and count as they came; the guest's clean finish is
# flaky, with QEMU's words (GUEST.emu).  When the earlier boots failed
# only bounds of time (122: scripts/hotplug.sh), the checks that failed
# then and passed on the last boot are flaky (GUEST.late names them), the
# others count as they came; on the last boot they count as they came.
boots() {
	local guest=$1 retry=$2 f n=1 hung=0 why=
	shift 2
	slot_run "$guest" "$@" > "$res/$guest.tap" 2> "$res/$guest.err"
	echo $? > "$res/$guest.rc"
	while case " $retry " in *" $(cat "$res/$guest.rc") "*) [ $n -lt 3 ] ;; *) false ;; esac; do
		case $(cat "$res/$guest.rc") in
		124) hung=1 ;;
		122) tr -d '\r' < "$res/$guest.tap" |
			sed -n -E "s/^not ok( [0-9]+)?( -)? (.*) \((late: .*)\)\$/\3\tboot $n: \4/p" \
			>> "$res/$guest.late" ;;
		*) why="${why:+$why; }boot $n: $(sed -n 's/^run: QEMU failed: //p' "$res/$guest.err" | head -n 1)" ;;
		esac
		for f in tap err rc console; do
			[ ! -f "$res/$guest.$f" ] || mv "$res/$guest.$f" "$res/$guest.$n.$f"
		done
		n=$((n + 1))
		slot_run "$guest" "$@" > "$res/$guest.tap" 2> "$res/$guest.err"
		echo $? > "$res/$guest.rc"
	done
	# The guest itself finished cleanly; its failed checks say the rest.
	[ "$(cat "$res/$guest.rc")" != 122 ] || echo 0 > "$res/$guest.rc"
	[ $n -gt 1 ] && [ "$(cat "$res/$guest.rc")" = 0 ] || return 0
	[ $hung = 1 ] || [ -n "$why" ] || return 0
	if [ $hung = 1 ]; then
		echo "boots 1 to $((n - 1)) hung or QEMU failed (see $guest.1.tap and $guest.1.console), boot $n passed" \
			> "$res/$guest.flaky"
	else
		echo "QEMU failed, not the guest ($why), boot $n passed" > "$res/$guest.emu"
	fi
}

# start_guest GUEST KIND CMD...: run CMD in the background as guest GUEST of
# kernel KIND (boots: again if QEMU fails).
start_guest() {
	local guest=$1 kind=$2
	shift 2
	echo "$guest $kind" >> "$res/guests"
	# shellcheck disable=SC2046
	( set +e; boots "$guest" 123 $(guest_prio "$kind") "$@" ) &
}

# run_guest GUEST KIND CMD...: start_guest, in the foreground.
run_guest() {
	local guest=$1 kind=$2
	shift 2
	echo "$guest $kind" >> "$res/guests"
	boots "$guest" 123 "$@"
}

# run_guest_hang_retry GUEST KIND CMD...: run_guest; a guest that hung
# (timeout, status 124), or whose only failures were bounds of time (122),
# boots again too.  Only for the QMP guests, whose
# host side waits for the guest's requests: a guest that hangs there shows
# as a stall (scripts/hotplug.sh's watchdog, then an NMI and the guest's
# task dump on its console).  The debug kernel's hot-unplug guest hung so
# under load, every vCPU idle after the unplug: the task dump showed its
# phc_ctl readers asleep in pause(), a race of phc_ctl's "wait"
# (tests/ptp/hotplug.sh now reads with the clockdev tool).
run_guest_hang_retry() {
	local guest=$1 kind=$2
	shift 2
	echo "$guest $kind" >> "$res/guests"
	boots "$guest" "122 123 124" "$@"
}

# qmp_guests KIND CASES QEMU_RUN_OPTION...: in the background, one after
# the other, the guests of scripts/hotplug.sh: hot-unplug with the s2idle
# and alarm suspend cases, then one boot for each further suspend case in
# CASES (words of rtcclock, ptpsim, rebind: QEMU sleeps in S3 once per
# boot).  A case the kernel cannot run skips itself.
qmp_guests() {
	local kind=$1 cases=$2 c
	shift 2
	( set +e
	  run_guest_hang_retry "$kind-hotplug" "$kind" "$top/scripts/hotplug.sh" "$kind" "$@" \
		--console-log "$res/$kind-hotplug.console"
	  for c in $cases; do
		run_guest_hang_retry "$kind-suspend-$c" "$kind" "$top/scripts/hotplug.sh" "$kind" \
			--suspend "$c" "$@" --console-log "$res/$kind-suspend-$c.console"
	  done ) &
}

# wait_guests: wait for every guest started, and say how long they took.
wait_guests() {
	local start=$SECONDS
	wait
	log "guests finished in $((SECONDS - start)) s"
}
