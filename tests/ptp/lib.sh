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
# RUNS runs of the whole program; a check that passes only in a later run
# is reported "# FLAKY" with the runs it failed in (scripts/judge.sh lists
# it as flaky, not as passed).  Only for selftests whose fixed
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
					print "ok - " k " # FLAKY failed in run " bad[k] " of " run ", passed in another"
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

# kernel_reports: the count of kernel reports (warnings, BUGs, KASAN,
# lockdep, hung tasks) in the kernel log so far; kernel_reports_since N
# prints the last of them when there are more than N and fails.
REPORTS='WARNING:|BUG:|Oops|KASAN:|UBSAN:|circular locking|recursive locking|inconsistent lock state|INFO: task .* blocked|rcu_sched self-detected stall|rcu: INFO'
kernel_reports() {
	dmesg | grep -cE "$REPORTS"
}
kernel_reports_since() {
	[ "$(kernel_reports)" -gt "$1" ] || return 0
	dmesg | grep -E "$REPORTS" | tail -n 20
	return 1
}

# KMEMLEAK: the kernel's leak detector, where the kernel has one (debug).
KMEMLEAK=/sys/kernel/debug/kmemleak

# kmemleak_check NAME: on a kernel with kmemleak, scan the memory and
# report "ok - NAME" when no unreferenced object was found, else "not ok"
# with the first of them; then forget them, so that the next check reports
# only its own.  kmemleak reports an object only once it is 5 s old and
# unreferenced: what a test leaks in its last 5 s shows at the next check
# (make soak's ends with a second scan).  Nothing on other kernels.
kmemleak_check() {
	[ -w $KMEMLEAK ] || return 0
	echo scan > $KMEMLEAK
	km_n=$(grep -c '^unreferenced object' $KMEMLEAK)
	if [ "$km_n" = 0 ]; then
		echo "ok - $1"
	else
		echo "not ok - $1"
		echo "  $km_n unreferenced objects; the first:"
		head -n 40 $KMEMLEAK | sed 's/^/  /'
	fi
	echo clear > $KMEMLEAK
}

# KSFT: the clockdev selftests as "make install" of tools/testing/selftests
# lays them out (scripts/initramfs.sh), with run_kselftest.sh.
KSFT=${KSFT:-/usr/local/kselftest}

# ksft_run COLLECTION:TEST [ARG...]: ksft_run_once; then, for the clockdev
# selftests, each test that failed runs once more alone (harness option
# -r FIXTURE.VARIANT.TEST).  One that passes then is reported "# FLAKY"
# (scripts/judge.sh lists it as flaky, by name, not as passed); one that
# fails again fails.  Their fixed latency bounds are missed now and then
# by a loaded TCG host; a defect that shows only sometimes still shows, in
# the flaky list of every run it hits.
ksft_run() {
	kq_out=$(mktemp)
	ksft_run_once "$@" > "$kq_out"
	case $1 in
	clockdev:*) ;;
	*) cat "$kq_out"; rm -f "$kq_out"; return ;;
	esac
	while IFS= read -r kq_l; do
		case $kq_l in
		"not ok - $1: "*|"not ok - clockdev: ${1#clockdev:}: "*)
			kq_name=${kq_l#not ok - }
			kq_res=${kq_name#clockdev: *: }
			kq_res=${kq_res%% *}
			case $kq_res in
			*.*)
				if ksft_run_once "$1" -r "$kq_res" > "$kq_out.2" < /dev/null &&
				   grep -qxF "ok - $kq_name" "$kq_out.2"; then
					echo "ok - $kq_name # FLAKY failed in run 1 of 2, passed in another"
				else
					echo "$kq_l"
					sed -n 's/^  /  retry: /p' "$kq_out.2"
				fi
				rm -f "$kq_out.2" ;;
			*) echo "$kq_l" ;;
			esac ;;
		*) echo "$kq_l" ;;
		esac
	done < "$kq_out"
	rm -f "$kq_out"
}

# ksft_run_once COLLECTION:TEST [ARG...]: run one installed kselftest through
# run_kselftest.sh, under its directory's settings timeout, with ARGs
# (harness options such as -v VARIANT) passed the runner's way
# (KSELFTEST_<TEST>_ARGS).  Each result of the program becomes
# "ok - COLLECTION: TEST: RESULT" with its directive (SKIP, XFAIL; XPASS,
# a stale XFAIL, fails); a program that ends badly (exit status, timeout)
# with no failing result says so itself.
ksft_run_once() {
	kr_t=$1
	shift
	kr_out=$(mktemp)
	kr_var=KSELFTEST_$(echo "${kr_t#*:}" | tr -c '[:alnum:]_\n' _ | tr '[:lower:]' '[:upper:]')_ARGS
	[ $# = 0 ] || echo "  $kr_t $*"
	# Appending: the runner writes the program's lines through a file
	# description of its own (/dev/stdout), which must not overwrite ours.
	# shellcheck disable=SC2086
	env "$kr_var=$*" "$KSFT/run_kselftest.sh" ${KSFT_TIMEOUT:+-o $KSFT_TIMEOUT} \
		-t "$kr_t" >> "$kr_out" 2>&1
	echo "exit status $?" >> "$kr_out"
	awk -v col="${kr_t%%:*}" -v prog="${kr_t#*:}" '
	function emit(st, rest,    d) {
		d = ""
		if (match(rest, / # (SKIP|XFAIL|XPASS|TODO|TIMEOUT)/)) {
			d = substr(rest, RSTART + 3); rest = substr(rest, 1, RSTART - 1)
		}
		sub(/[ \t]+$/, "", rest)
		if (d ~ /^XPASS/) { st = "not ok"; d = ""; rest = rest " (passed, but marked XFAIL)" }
		if (d ~ /^TIMEOUT/) { st = "not ok"; rest = rest " (" d ")"; d = "" }
		if (st == "not ok") bad = 1
		print st " - " col ": " prog ": " rest (d == "" ? "" : " # " d)
	}
	# run_kselftest.sh prefixes the lines of the program with "# ".
	/^# (not )?ok [0-9]+ / { line = substr($0, 3); nested = 1 }
	/^(not )?ok [0-9]+ / && !/ selftests: / { line = $0; nested = 1 }
	nested {
		nested = 0
		st = (line ~ /^not ok/) ? "not ok" : "ok"
		sub(/^(not )?ok [0-9]+ /, "", line)
		emit(st, line)
		next
	}
	/^not ok [0-9]+ selftests: / {
		if (!bad) print "not ok - " col ": " prog ": the program ended badly: " $0
		next
	}
	/^ok [0-9]+ selftests: / { next }
	/^exit status / { if ($3 != 0 && !bad) print "not ok - " col ": " prog ": the program ended badly (" $0 ")"; next }
	{ print "  " $0 }' "$kr_out"
	rm -f "$kr_out"
}

# ksft_subset COLLECTION:TEST ARG...: ksft_run the whole program, or, on a
# kernel where scripts/suite.sh asks for a subset ($SUBSET: the debug
# kernel, whose checkers make every test many times slower), only what the
# harness options ARG select.  The suite says which kernels run subsets.
# $SHORT asks for the short form of the long tests besides (make check's
# debug guests: fewer trinity calls, no read-rate measure under attack);
# make check-debug runs them whole.
ksft_subset() {
	ks_t=$1
	shift
	if [ -n "${SUBSET:-}" ]; then
		ksft_run "$ks_t" "$@"
	else
		ksft_run "$ks_t"
	fi
}

# ptp_sim instances made by a test (the tests set BUS=/sys/bus/ptp_sim)
# ptp_dev ID: the /dev/ptpN of instance ID
ptp_dev() { echo "/dev/$(ls /sys/bus/ptp_sim/devices/ptp_sim$1/ptp)"; }
# sim_del ID...: remove those of the instances that still exist
sim_del() {
	for id in "$@"; do
		[ ! -d /sys/bus/ptp_sim/devices/ptp_sim$id ] ||
			echo "$id" > /sys/bus/ptp_sim/del_device
	done
}
# phc_freq DEV: the frequency offset phc_ctl reads, in ppb (integer)
phc_freq() {
	phc_ctl "$1" freq 2>&1 |
		awk '/clock frequency offset is/ { sub(/ppb.*/, "", $NF); printf "%d\n", $NF }'
}
