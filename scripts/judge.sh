#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# judge.sh RESULTS KERNEL...: judge the TAP of a run (scripts/suite.sh) for
# the kernels under test, against mainline's results of the same run.
#
# A check is a TAP line of a guest (or of a build, or of the series):
#   ok                   passed
#   ok ... # SKIP why    skipped (why is printed)
#   ok ... # XFAIL why   a known limit (kselftest XFAIL): known failure
#   ok ... # FLAKY why   passed only on a retry: flaky, not passed
#   not ok               failed, unless mainline fails a check of the same
#                        name: then a known failure ("also failing on
#                        mainline"), listed by name, never counted as passed
# Each guest adds "guest G finished cleanly": its exit status was 0 (no
# kernel report on its console, no timeout).  Kernels built from the series
# must offer the features the series adds (the guest prints "# feature NAME:
# yes|no ..." lines, tests/ptp/t-00-features.sh).  Outcomes that QEMU, not
# the kernel alone, decides ("<<<clockdev-outcome KEY|LABEL|OUTCOME>>>",
# the suspend tests) must equal mainline's.
#
# Prints every check under its kernel, mainline's counts apart (the
# reference), the checks the series fixes, the known failures and the
# flaky checks by name, and last "N passed, N failed, N skipped" counting
# the kernels under test only, the failures named just above it.  Exit
# status 1 when a check failed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

res=${1:?usage: judge.sh RESULTS KERNEL...}
shift
under=("$@")
# Features that every kernel built from the series offers.
series_features=(fd-timers fd-nanosleep fd-timerfd ptp-sim rtc-clock trace-expire kunit)

pass=0 fail=0 skip=0
known=() flaky=() fixed=() failed=()
declare -A ref_fail=() ref_pass=()

# key NAME: a check's name without a last parenthesised detail, which may
# hold a measurement or an errno ("... succeeds (No such device)"): the
# same check on two kernels has the same key.
key() {
	local n=$1
	printf '%s' "${n% (*)}"
}

# guests_of KIND: the guests (and builds) of KIND, in start order.
guests_of() {
	awk -v k="$1" '$2 == k { print $1 }' "$res/guests" 2>/dev/null
}

# results FILE: "STATUS<TAB>NAME<TAB>WHY" for each result line of a TAP file.
results() {
	[ -f "$1" ] || return 0
	# A guest's serial console ends its lines with CR LF.
	tr -d '\r' < "$1" | sed -n -E 's/^(not ok|ok)( [0-9]+)?( -)? (.*)$/\1\t\4/p' |
	while IFS=$'\t' read -r st rest; do
		name=$rest why=
		case $rest in
		*" # SKIP"*) st=skip name=${rest%% # SKIP*} why=${rest#* # SKIP} ;;
		*" # XFAIL"*) st=xfail name=${rest%% # XFAIL*} why=${rest#* # XFAIL} ;;
		*" # FLAKY"*) st=flaky name=${rest%% # FLAKY*} why=${rest#* # FLAKY} ;;
		*" # TODO"*) st=xfail name=${rest%% # TODO*} why=${rest#* # TODO} ;;
		esac
		[ "$st" != "not ok" ] || st=fail
		[ "$st" != ok ] || st=pass
		printf '%s\t%s\t%s\n' "$st" "$name" "${why# }"
	done
}

# guest_results GUEST: results of its TAP, then its own clean-exit check.
# A guest that passed only when booted again (GUEST.flaky says why) has
# flaky checks, never passed ones; so do the checks that missed a bound of
# time on an earlier boot (GUEST.late) and met it on the last.
guest_results() {
	local g=$1 rc why
	if [ -f "$res/$g.flaky" ]; then
		why=$(cat "$res/$g.flaky")
		results "$res/$g.tap" | while IFS=$'\t' read -r st name w; do
			[ "$st" != pass ] || { st=flaky w=$why; }
			printf '%s\t%s\t%s\n' "$st" "$name" "$w"
		done
		printf 'flaky\tguest %s finished cleanly\t%s\n' "$g" "$why"
		return 0
	fi
	if [ -f "$res/$g.late" ]; then
		# Bounds of time missed on an earlier boot (guests.sh, boots).
		results "$res/$g.tap" | while IFS=$'\t' read -r st name w; do
			if [ "$st" = pass ] && why=$(awk -F '\t' -v n="$name" \
				'$1 == n { w = w (w ? "; " : "") $2 } END { if (w) print w; else exit 1 }' \
				"$res/$g.late"); then
				st=flaky w="passed on a later boot after $why"
			fi
			printf '%s\t%s\t%s\n' "$st" "$name" "$w"
		done
	else
		results "$res/$g.tap"
	fi
	[ -f "$res/$g.rc" ] || return 0
	rc=$(cat "$res/$g.rc")
	if [ "$rc" = 0 ] && [ -f "$res/$g.emu" ]; then
		# An earlier boot ended with QEMU's own failure (guests.sh, boots).
		printf 'flaky\tguest %s finished cleanly\t%s\n' "$g" "$(cat "$res/$g.emu")"
	elif [ "$rc" = 0 ]; then
		printf 'pass\tguest %s finished cleanly (no kernel report)\t\n' "$g"
	else
		# qemu/run names the report in one line: CI keeps only the tail
		# of the log, so the FAILED list says what it was.
		printf 'fail\tguest %s finished cleanly (exit status %s%s)\t%s\n' "$g" "$rc" \
			"$(case $rc in 123) echo ": QEMU failed";; 124) echo ": timeout";;
			125) echo ": kernel report or no status";; esac)" \
			"$(sed -n 's/^run: \(kernel report\|QEMU failed\): //p' "$res/$g.err" 2>/dev/null | head -n 1 | cut -c1-300)"
	fi
}

# kernel_results KIND: every result of KIND's builds and guests.
kernel_results() {
	local g
	for g in $(guests_of "$1"); do
		guest_results "$g"
	done
}

# The reference.
if guests_of mainline | grep -q .; then
	mp=0 mf=0 ms=0
	echo "# mainline: the reference (same run, not counted)"
	while IFS=$'\t' read -r st name why; do
		case $st in
		pass|flaky) mp=$((mp + 1)); ref_pass[$(key "$name")]=1 ;;
		skip) ms=$((ms + 1)) ;;
		fail|xfail) mf=$((mf + 1)); ref_fail[$(key "$name")]=1
			echo "mainline: not ok - $name${why:+ # $why}" ;;
		esac
	done < <(kernel_results mainline)
	echo "# mainline: $mp passed, $mf failed, $ms skipped"
	grep -h '^# feature ' $(guests_of mainline | sed "s|^|$res/|; s|\$|.tap|") 2>/dev/null |
		sed 's/^# feature /# mainline: feature /' || true
fi

# A check of a kernel under test.
judge_line() {
	local k=$1 st=$2 name=$3 why=$4
	case $st in
	pass)
		pass=$((pass + 1)); echo "$k: ok - $name"
		[ -z "${ref_fail[$(key "$name")]+x}" ] || fixed+=("$name ($k)") ;;
	skip)
		skip=$((skip + 1)); echo "$k: ok - $name # SKIP $why" ;;
	xfail)
		known+=("$name ($k): $why"); echo "$k: known - $name # XFAIL $why" ;;
	flaky)
		flaky+=("$name ($k): $why"); echo "$k: flaky - $name # $why" ;;
	fail)
		if [ -n "${ref_fail[$(key "$name")]+x}" ]; then
			known+=("$name ($k): also failing on mainline")
			echo "$k: known - $name # also failing on mainline"
		else
			fail=$((fail + 1)); echo "$k: not ok - $name${why:+ # $why}"
			failed+=("$name ($k)${why:+: $why}")
		fi ;;
	esac
}

# features KIND: the series' features, from the guest's "# feature" lines.
features() {
	local k=$1 f line files
	files=$(guests_of "$k" | sed "s|^|$res/|; s|\$|.tap|")
	# shellcheck disable=SC2086
	grep -qh '^# feature ' $files 2>/dev/null || return 0
	for f in "${series_features[@]}"; do
		# shellcheck disable=SC2086
		line=$(grep -h "^# feature $f: " $files | head -n 1)
		case $line in
		*": yes"*) judge_line "$k" pass "features: offers $f (${line#*: })" "" ;;
		*) judge_line "$k" fail "features: offers $f" "${line:-no probe result}" ;;
		esac
	done
}

# outcomes KIND: each "<<<clockdev-outcome KEY|LABEL|OUTCOME>>>" equals
# the first outcome mainline printed under KEY.
outcomes() {
	local k=$1 g key label outcome ref
	local -A refs=()
	for g in $(guests_of mainline); do
		while IFS='|' read -r key label outcome; do
			[ -n "${refs[$key]+set}" ] || refs[$key]="$outcome|$label"
		done < <(sed -n 's/.*<<<clockdev-outcome \(.*\)>>>.*/\1/p' "$res/$g.tap" 2>/dev/null)
	done
	for g in $(guests_of "$k"); do
		while IFS='|' read -r key label outcome; do
			ref=${refs[$key]:-}
			if [ -z "$ref" ]; then
				judge_line "$k" fail "suspend: $label: as on mainline" \
					"$outcome; mainline printed no outcome for '$key'"
			elif [ "$outcome" = "${ref%%|*}" ]; then
				judge_line "$k" pass "suspend: $label: behaves as mainline's '${ref#*|}' ($outcome)" ""
			else
				judge_line "$k" fail "suspend: $label: behaves as mainline's '${ref#*|}'" \
					"$outcome; on mainline: ${ref%%|*}"
			fi
		done < <(sed -n 's/.*<<<clockdev-outcome \(.*\)>>>.*/\1/p' "$res/$g.tap" 2>/dev/null)
	done
}

counts=()
if [ -f "$res/series.tap" ]; then
	p0=$pass f0=$fail s0=$skip
	while IFS=$'\t' read -r st name why; do
		judge_line series "$st" "$name" "$why"
	done < <(results "$res/series.tap")
	counts+=("series: $((pass - p0)) passed, $((fail - f0)) failed, $((skip - s0)) skipped")
fi
for k in "${under[@]}"; do
	p0=$pass f0=$fail s0=$skip
	if ! guests_of "$k" | grep -q .; then
		judge_line "$k" fail "kernel $k was built and tested" "not built: see the series log"
	fi
	while IFS=$'\t' read -r st name why; do
		judge_line "$k" "$st" "$name" "$why"
	done < <(kernel_results "$k")
	features "$k"
	! guests_of mainline | grep -q . || outcomes "$k"
	counts+=("$k: $((pass - p0)) passed, $((fail - f0)) failed, $((skip - s0)) skipped")
done

printf '# %s\n' "${counts[@]}"
if [ ${#fixed[@]} -gt 0 ]; then
	echo "# ${#fixed[@]} fixed: failing on mainline, passing here:"
	printf '#   %s\n' "${fixed[@]}"
fi
echo "# ${#known[@]} known failures, also failing on mainline or expected (XFAIL)${known[0]+:}"
[ ${#known[@]} = 0 ] || printf '#   %s\n' "${known[@]}"
echo "# ${#flaky[@]} flaky: passed only on retry${flaky[0]+:}"
[ ${#flaky[@]} = 0 ] || printf '#   %s\n' "${flaky[@]}"
# The failures last, by name: a log cut to its tail still names them.
if [ ${#failed[@]} -gt 0 ]; then
	echo "# ${#failed[@]} FAILED:"
	printf '#   %s\n' "${failed[@]}"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
