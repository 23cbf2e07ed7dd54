#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# demo-plot.sh [DIR]: draw the pictures of 'make demo' from what its guest
# measured, DIR/guest.out (default $OUT/demo): the lines "@data NAME ..."
# of tests/ptp/demo.sh.  Writes the measurements as columns (DIR/*.dat,
# whether gnuplot is there or not) and, with gnuplot, DIR/phc2sys.png
# (scripts/demo-phc2sys.gp) and DIR/timer.png (scripts/demo-timer.gp).
# Ends with the pictures' paths, or says plainly why there are none.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dir=${1:-$OUT/demo}
in=$dir/guest.out
[ -s "$in" ] || die "no $in: run 'make demo' first"
rm -f "$dir"/*.png "$dir"/*.dat

# The raw lines of the data sets named, tag kept: "@data NAME LINE".
data() { grep -E "^@data ($(IFS='|'; echo "$*")) " "$in" || true; }

# phc2sys.dat: from phc2sys -m lines such as
#   phc2sys[5.269]: /dev/ptp2 phc offset    637124 s0 freq      +0 delay   1687
# seconds since its first sample, offset (ns), servo state, the frequency
# it sets on the slave clock in ppb (phc2sys prints the servo's output,
# the negated adjustment), delay (ns).  Prints the slave clock's name.
phc_slave=$(data phc2sys | awk -v dat="$dir/phc2sys.dat" '
	$0 ~ / offset / && $0 ~ / freq / {
		t = $3; sub(/^phc2sys\[/, "", t); sub(/\]:$/, "", t)
		for (i = 4; i < NF; i++) {
			if ($i == "offset") off = $(i + 1)
			if ($i ~ /^s[0-9]$/) st = substr($i, 2)
			if ($i == "freq") fr = $(i + 1)
			if ($i == "delay") dl = $(i + 1)
		}
		if (!n++) {
			t0 = t
			print "# t_s offset_ns state freq_ppb delay_ns" > dat
			print $4
		}
		printf "%.3f %d %d %d %d\n", t - t0, off, st, -fr, dl > dat
	}')
# The master's frequency (clockdev --json freq 20000) and its name.
master_line=$(data phc2sys-master | tail -n 1)
phc_master=$(sed -n 's/.*"clock":"\([^"]*\)".*/\1/p' <<< "$master_line")
master_ppb=$(sed -n 's/.*"freq_ppb":\(-\{0,1\}[0-9.]*\).*/\1/p' <<< "$master_line")

# timer.dat: each expiry of the timer (clockdev --json timer): its due time
# on the clock in s since the timer was armed, its lateness (ms of the
# clock), its number and overrun.  timer-freq.dat: each frequency set
# (clockdev --json get freq PPB) at the clock's time read right before,
# in ppm, with 1 in the third column; then the last value again at the
# last expiry (0), which ends the step line.  Prints the clock's name, the
# period in ms, and the tool's summary: lateness min, p50, max (ms), early.  Times are nanosecond strings: subtracted as seconds
# and nanoseconds, exactly, since awk holds numbers as doubles.
timer=$(data timer timer-freq | awk -v dat="$dir/timer.dat" -v fdat="$dir/timer-freq.dat" '
	function jv(key,   i, r) {
		i = index($0, "\"" key "\":")
		if (!i)
			return ""
		r = substr($0, i + length(key) + 3)
		if (substr(r, 1, 1) == "\"") {
			r = substr(r, 2)
			return substr(r, 1, index(r, "\"") - 1)
		}
		match(r, /^[^,}]*/)
		return substr(r, 1, RLENGTH)
	}
	function rel(ns) {
		return (substr(ns, 1, length(ns) - 9) - substr(first, 1, length(first) - 9)) \
		       + (substr(ns, length(ns) - 8) - substr(first, length(first) - 8)) / 1e9 \
		       + delay / 1e9
	}
	$2 == "timer" && jv("expiry") != "" {
		if (first == "") {
			first = jv("expected_ns")
			clock = jv("clock")
		}
		n++; due[n] = jv("expected_ns"); late[n] = jv("late_ns")
		num[n] = jv("expiry"); ovr[n] = jv("overrun")
	}
	$2 == "timer" && jv("summary") == "true" {
		delay = jv("delay_ns"); period = jv("period_ns")
		sum = sprintf("%.3f %.3f %.3f %d", jv("late_min_ns") / 1e6, jv("late_p50_ns") / 1e6,
			      jv("late_max_ns") / 1e6, jv("early"))
	}
	$2 == "timer-freq" && jv("cmd") == "get" { at = jv("ns") }
	$2 == "timer-freq" && jv("cmd") == "freq" && at != "" { m++; fat[m] = at; ppb[m] = jv("freq_ppb"); at = "" }
	END {
		if (!n || delay == "")
			exit
		print "# t_s late_ms expiry overrun" > dat
		for (i = 1; i <= n; i++)
			printf "%.6f %.6f %d %d\n", rel(due[i]), late[i] / 1e6, num[i], ovr[i] > dat
		if (m) {
			print "# t_s ppm change" > fdat
			for (i = 1; i <= m; i++)
				printf "%.6f %g 1\n", rel(fat[i]), ppb[i] / 1000 > fdat
			printf "%.6f %g 0\n", rel(due[n]), ppb[m] / 1000 > fdat
		}
		printf "%s %g %s\n", clock, period / 1e6, sum
	}')
read -r timer_clock period_ms late_min late_p50 late_max early <<< "$timer" || true

# Where the pictures are, as the user would type it.
show() { case $1 in "$PWD"/*) echo "${1#"$PWD"/}" ;; *) echo "$1" ;; esac; }
have=()
[ ! -s "$dir/phc2sys.dat" ] || have+=(phc2sys)
[ ! -s "$dir/timer.dat" ] || have+=(timer)
if [ ${#have[@]} = 0 ]; then
	echo "demo: no pictures drawn: the guest printed no measurements (see $(show "$in"))"
	exit 1
fi
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "demo: no pictures drawn: gnuplot is not installed (Debian package gnuplot-nox: 'make deps' as root installs it)."
	echo "demo: the measurements are in $(show "$dir")/*.dat"
	exit 0
fi
term=png
! gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1 || term=pngcairo
q() { printf "'%s'" "${1//\'/\'\'}"; }	# a gnuplot string
drawn=() failed=()
for p in "${have[@]}"; do
	vars="term=$(q $term); out=$(q "$dir/$p.png"); dat=$(q "$dir/$p.dat")"
	case $p in
	phc2sys) vars+="; master=$(q "$phc_master"); slave=$(q "$phc_slave"); master_ppb=${master_ppb:-NaN}"
		what="phc2sys locking $phc_slave to $phc_master: offset and frequency" ;;
	timer) vars+="; fdat=$(q "$dir/timer-freq.dat"); clock=$(q "$timer_clock"); period_ms=${period_ms:-NaN}"
		vars+="; lmin=${late_min:-NaN}; lmed=${late_p50:-NaN}; lmax=${late_max:-NaN}; early=${early:-0}"
		what="the periodic timer on $timer_clock: lateness of each expiry, frequency changes" ;;
	esac
	if msg=$(gnuplot -e "$vars" "$top/scripts/demo-$p.gp" 2>&1) && [ -s "$dir/$p.png" ]; then
		drawn+=("$(printf '  %-22s %s' "$(show "$dir/$p.png")" "$what")")
	else
		failed+=("$p")
		printf '%s\n' "$msg" | sed 's/^/  gnuplot: /'
	fi
done
[ ${#failed[@]} = 0 ] || echo "demo: gnuplot could not draw ${failed[*]} (its messages above)"
if [ ${#drawn[@]} -gt 0 ]; then
	echo "demo: pictures (gnuplot, $term):"
	printf '%s\n' "${drawn[@]}"
fi
[ ${#failed[@]} = 0 ]
