#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of the suites (scripts/suite.sh): runs each TEST given (a path
# relative to /payload; by default every t-*.sh) and numbers the lines they
# print into one TAP stream.  A test prints "ok - NAME" or "not ok - NAME",
# optionally with a directive ("# SKIP why", "# XFAIL why", "# FLAKY why");
# any other line becomes a comment.  A test holding the line
# "# clockdev: TAG", for a TAG listed in $SKIP_TAGS, is skipped and says so.
# usage: run.sh [TEST...]
cd /payload || exit 1
. ./lib.sh
[ $# -gt 0 ] || set -- t-*.sh
export SELFTESTS=/usr/local/bin/selftests
echo 0 > /tmp/count
# busy: the guest's CPU time so far, all CPUs, in hundredths of a second
# (what is not idle in /proc/stat's cpu line)
busy() { awk '/^cpu /{ print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
# secs HUNDREDTHS: as seconds with one decimal
secs() { echo "$1" | awk '{ printf "%.1f", $1 / 100 }'; }
echo "TAP version 13"
for t in "$@"; do
	skipped=
	for tag in $SKIP_TAGS; do
		if grep -qx "# clockdev: $tag" "$t"; then
			echo "ok - ${t##*/} # SKIP marked '$tag', not run on this kernel (scripts/suite.sh)"
			skipped=1
		fi
	done
	[ -z "$skipped" ] || continue
	t0=$(cut -d. -f1 /proc/uptime) c0=$(busy)
	sh "$t" 2>&1 | while IFS= read -r line; do
		case $line in
		"ok - "*|"not ok - "*) echo "$line" ;;
		*) echo "# $line" ;;
		esac
	done
	c1=$(busy)
	echo "# ${t##*/} took $(($(cut -d. -f1 /proc/uptime) - t0)) s, $(secs $((c1 - c0))) s of guest CPU"
	# On a kernel with kmemleak (debug): no leak after each test.
	kmemleak_check "kmemleak: no unreferenced object after ${t##*/}" |
		awk '/^(not )?ok - /{ print; next } { print "# " $0 }'
	[ ! -w "$KMEMLEAK" ] || echo "# kmemleak scan: $(secs $(($(busy) - c1))) s of guest CPU"
done | while IFS= read -r line; do
	case $line in
	"ok - "*) n=$((n + 1)); echo "ok $n ${line#ok - }" ;;
	"not ok - "*) n=$((n + 1)); echo "not ok $n ${line#not ok - }" ;;
	*) echo "$line" ;;
	esac
	echo "$n" > /tmp/count
done
echo "1..$(cat /tmp/count)"
