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

# ksft_retry NAME RUNS CMD...: ksft, run again while a check fails, up to
# RUNS runs of the whole program; a check that passes in one run counts as
# passed, and says in which runs it failed.  Only for selftests whose fixed
# thresholds a loaded TCG host misses now and then (posix_timers' signal
# distribution and overrun checks fail so on both kernels): a check that
# fails in every run still fails.
ksft_retry() {
	kr_name=$1 kr_runs=$2
	shift 2
	kr_dir=$(mktemp -d)
	kr_i=1
	while :; do
		ksft "$kr_name" "$@" > "$kr_dir/$kr_i"
		grep -q '^not ok - ' "$kr_dir/$kr_i" || break
		[ "$kr_i" -lt "$kr_runs" ] || break
		kr_i=$((kr_i + 1))
	done
	awk '
	FNR == 1 { run++ }
	{ line[run, FNR] = $0; n[run] = FNR }
	/^ok - / { k = $0; sub(/^ok - /, "", k); ok[k] = 1 }
	/^not ok - / { k = $0; sub(/^not ok - /, "", k)
		bad[k] = bad[k] (bad[k] == "" ? "" : ", ") run }
	END {
		for (i = 1; i <= n[1]; i++) {
			l = line[1, i]
			if (l ~ /^(not )?ok - /) {
				k = l; sub(/^(not )?ok - /, "", k)
				if (k in ok && bad[k] != "")
					print "ok - " k " (failed in run " bad[k] " of " run ", passed in another: retried)"
				else if (k in ok)
					print "ok - " k
				else
					print "not ok - " k
			} else
				print l
		}
		for (r = 2; r <= run; r++)
			for (i = 1; i <= n[r]; i++)
				if (line[r, i] !~ /^(not )?ok - /)
					print "  run " r ": " line[r, i]
	}' $(ls "$kr_dir" | sort -n | sed "s|^|$kr_dir/|")
	rm -rf "$kr_dir"
}

# rtc_of DEVICE: the rtcN of a device (a sysfs device directory), or nothing.
rtc_of() {
	rtc_of_r=$(ls -d "$1"/rtc/rtc* 2>/dev/null | head -n 1)
	echo "${rtc_of_r##*/}"
}
