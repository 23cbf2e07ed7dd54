# SPDX-License-Identifier: GPL-2.0
# Test guests run in parallel, and their TAP reported against the mainline
# baseline; sourced by check.sh and soak.sh after lib.sh.
# shellcheck shell=bash
#
# A guest is one boot of one kernel KIND; its results are $res/GUEST.tap
# (TAP on stdout), .err (stderr), .rc (exit status) and usually .console.
# Several guests may boot the same KIND (e.g. "patched" and
# "patched-hotplug"); their lines are reported together under KIND.
# A test failing on a kernel is a failure unless a mainline guest fails it
# too: such pre-existing failures are counted as passed and listed by name.

: "${res:?guests.sh: set res to the results directory first}"
pass=${pass:-0} fail=${fail:-0} skip=${skip:-0}

# start_guest GUEST KIND CMD...: run CMD in the background as guest GUEST of
# kernel KIND, its stdout in $res/GUEST.tap.
start_guest() {
	local guest=$1 kind=$2
	shift 2
	echo "$guest $kind" >> "$res/guests"
	( set +e
	  "$@" > "$res/$guest.tap" 2> "$res/$guest.err"
	  echo $? > "$res/$guest.rc" ) &
}

# run_guest GUEST KIND CMD...: start_guest, in the foreground.
run_guest() {
	local guest=$1 kind=$2
	shift 2
	echo "$guest $kind" >> "$res/guests"
	"$@" > "$res/$guest.tap" 2> "$res/$guest.err"
	echo $? > "$res/$guest.rc"
}

# qmp_guests KIND QEMU_RUN_OPTION...: in the background, one after the
# other, the guests of scripts/hotplug.sh: hot-unplug with the s2idle and
# alarm suspend cases, then one boot for each further case (QEMU sleeps in
# S3 once per boot).
qmp_guests() {
	local kind=$1 c cases="rebind"
	shift
	[ "$kind" = mainline ] || cases="rtcclock ptpsim rebind"
	( set +e
	  run_guest "$kind-hotplug" "$kind" "$top/scripts/hotplug.sh" "$kind" "$@" \
		--console-log "$res/$kind-hotplug.console"
	  for c in $cases; do
		run_guest "$kind-suspend-$c" "$kind" "$top/scripts/hotplug.sh" "$kind" \
			--suspend "$c" "$@" --console-log "$res/$kind-suspend-$c.console"
	  done ) &
}

# wait_guests: wait for every guest started, and say how long they took.
wait_guests() {
	local start=$SECONDS
	wait
	log "guests finished in $((SECONDS - start)) s"
}

# count_tap FILE PREFIX: add a TAP file's results to the totals, unjudged.
count_tap() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*"# SKIP"*) skip=$((skip + 1)) ;;
		"ok "*) pass=$((pass + 1)) ;;
		"not ok "*) fail=$((fail + 1)) ;;
		esac
		echo "$2$line"
	done < "$1"
}

# guests_of KIND: the guests that booted KIND, in start order.
guests_of() {
	awk -v k="$1" '$2 == k { print $1 }' "$res/guests"
}

# report_guest GUEST KIND: print a guest's TAP under KIND, judging failures
# against the mainline baseline ($res/mainline.failed).
report_guest() {
	local guest=$1 kind=$2 line name rc
	rc=$(cat "$res/$guest.rc")
	echo "# $kind: guest $guest (exit status $rc)"
	[ "$rc" = 0 ] || cat "$res/$guest.err"
	while IFS= read -r line; do
		case $line in
		"not ok "*)
			name=${line#not ok * }
			if [ "$kind" = mainline ] || grep -qxF "$name" "$res/mainline.failed"; then
				echo "$kind: ok ${line#not ok } # pre-existing failure: fails on mainline too"
				pass=$((pass + 1))
				echo "$name" >> "$res/baseline-failures"
			else
				echo "$kind: $line"; fail=$((fail + 1))
			fi ;;
		"ok "*"# SKIP"*) skip=$((skip + 1)); echo "$kind: $line" ;;
		"ok "*) pass=$((pass + 1)); echo "$kind: $line" ;;
		*) echo "$kind: $line" ;;
		esac
	done < "$res/$guest.tap"
	# A guest that died or reported a kernel problem is a failure of its own.
	if [ "$rc" = 0 ]; then
		echo "$kind: ok - guest $guest finished cleanly (no kernel report)"
		pass=$((pass + 1))
	else
		echo "$kind: not ok - guest $guest finished cleanly (status $rc)"
		fail=$((fail + 1))
	fi
}

# compare_outcomes KIND...: a test program may print what happened as
# "<<<clockdev-outcome KEY|LABEL|OUTCOME>>>" (tests/ptp/src/fdclock-suspend.c
# does) where QEMU decides what happens, not the kernel alone.  Each outcome
# of a kernel other than mainline must equal the first one mainline's guests
# printed under the same KEY: one test each.
compare_outcomes() {
	local kind guest key label outcome ref
	local -A refs=()
	for guest in $(guests_of mainline); do
		while IFS='|' read -r key label outcome; do
			[ -n "${refs[$key]+set}" ] || refs[$key]="$outcome|$label"
		done < <(sed -n 's/.*<<<clockdev-outcome \(.*\)>>>.*/\1/p' "$res/$guest.tap")
	done
	for kind in "$@"; do
		[ "$kind" != mainline ] || continue
		for guest in $(guests_of "$kind"); do
			while IFS='|' read -r key label outcome; do
				ref=${refs[$key]:-}
				if [ -z "$ref" ]; then
					echo "$kind: not ok - suspend: $label: as on mainline ($outcome; mainline printed no outcome for '$key')"
					fail=$((fail + 1))
				elif [ "$outcome" = "${ref%%|*}" ]; then
					echo "$kind: ok - suspend: $label: behaves as mainline's '${ref#*|}' ($outcome)"
					pass=$((pass + 1))
				else
					echo "$kind: not ok - suspend: $label: behaves as mainline's '${ref#*|}' ($outcome; on mainline: ${ref%%|*})"
					fail=$((fail + 1))
				fi
			done < <(sed -n 's/.*<<<clockdev-outcome \(.*\)>>>.*/\1/p' "$res/$guest.tap")
		done
	done
}

# report_guests KIND...: report every guest of each KIND, then the
# baseline failures and the final "N passed, N failed[, N skipped]" line.
# Returns non-zero when something failed.
report_guests() {
	local kind guest line
	: > "$res/mainline.failed"
	for guest in $(guests_of mainline); do
		sed -n 's/^not ok [0-9]* \(.*\)/\1/p' "$res/$guest.tap" >> "$res/mainline.failed"
	done
	local p0 f0 s0 counts=()
	for kind in "$@"; do
		p0=$pass f0=$fail s0=$skip
		for guest in $(guests_of "$kind"); do
			report_guest "$guest" "$kind"
		done
		[ "$kind" = mainline ] || ! guests_of mainline | grep -q . ||
			compare_outcomes "$kind"
		counts+=("$kind: $((pass - p0)) passed, $((fail - f0)) failed, $((skip - s0)) skipped")
	done
	printf '# %s\n' "${counts[@]}"
	if [ -s "$res/baseline-failures" ]; then
		echo "# failing on mainline as well (baseline, not counted as regressions):"
		sort -u "$res/baseline-failures" | sed 's/^/#   /'
	fi
	line="$pass passed, $fail failed"
	[ "$skip" = 0 ] || line="$line, $skip skipped"
	echo "$line"
	[ "$fail" = 0 ]
}
