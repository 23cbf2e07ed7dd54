# SPDX-License-Identifier: GPL-2.0
# Helpers for guest tests; sourced.
# check NAME CMD...: run CMD, report ok/not ok under NAME, show its output.
check() {
	name=$1; shift
	if out=$("$@" 2>&1); then echo "ok - $name"; else echo "not ok - $name"; fi
	[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/  /'
}

# ksft NAME CMD...: run a kselftest program.  Each of its TAP results becomes
# "ok - NAME: TEST" (a kselftest skip keeps its reason); a program that
# prints no TAP result is judged by its exit status alone (4 is a skip), and
# a failing exit status that no "not ok" explains is a failure of its own.
ksft() {
	name=$1; shift
	ksft_out=$(mktemp)
	"$@" > "$ksft_out" 2>&1
	rc=$?
	awk -v n="$name" '
	/^(not )?ok [0-9]+/ {
		st = ($1 == "not") ? "not ok" : "ok"
		sub(/^(not )?ok [0-9]+ */, ""); sub(/[ \t]+$/, "")
		if (match($0, /# SKIP/)) {
			what = substr($0, 1, RSTART - 1); why = substr($0, RSTART + 7)
			sub(/[ \t]+$/, "", what)
			if (what == "") { what = why; why = "skipped by the selftest" }
			print "ok - " n ": " what " # SKIP " why
		} else
			print st " - " n ": " $0
		next
	}
	{ print "  " $0 }' "$ksft_out"
	if ! grep -qE '^(not )?ok [0-9]+' "$ksft_out"; then
		case $rc in
		0) echo "ok - $name" ;;
		4) echo "ok - $name # SKIP the selftest exited with KSFT_SKIP" ;;
		*) echo "not ok - $name"; echo "  exit status $rc" ;;
		esac
	elif [ $rc != 0 ] && ! grep -qE '^not ok [0-9]+' "$ksft_out"; then
		echo "not ok - $name: exit status 0"; echo "  exit status $rc"
	fi
	rm -f "$ksft_out"
}
