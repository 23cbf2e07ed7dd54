#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# link.sh KIND [--timeout S] [--console-dir DIR] [--count N]: two guests of
# kernel KIND joined by a virtual link (qemu/run --link: a UNIX socket, no
# traffic leaves the host).  Guest A (tests/ptp/link/master.sh): simulated
# PHC -> phc2sys -> system clock -> ptp4l master.  Guest B (slave.sh):
# ptp4l slave -> system clock -> phc2sys -> simulated PHC.  Then both sleep
# on their PHC until the same multiples of 5 s of PHC time, N times
# (clock_nanosleep through the clockdev tool), and print a line at once;
# this script stamps every line of both guests with the host's time as it
# arrives and states the spread between the two guests' lines for the same
# PHC time.  Prints TAP (the guests' checks and its own) on stdout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kind=${1:?usage: link.sh KIND [--timeout S] [--console-dir DIR] [--count N]}
shift
timeout=600 condir= count=6
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) timeout=$2; shift 2 ;;
	--console-dir) condir=$2; shift 2 ;;
	--count) count=$2; shift 2 ;;
	*) die "unknown option '$1'" ;;
	esac
done
# Spread allowed between the two guests' wake-ups for one PHC time: two
# TCG guests on a busy host, each behind a serial line read by tail -f.
BOUND_MS=50

tmp=$(mktemp -d /tmp/clockdev-link.XXXXXX)
sock=$tmp/link.sock
apid=
cleanup() { [ -z "$apid" ] || kill "$apid" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

# stamp: prefix each line with the host's CLOCK_REALTIME as it arrives
stamp() { while IFS= read -r l; do printf '%s %s\n' "$EPOCHREALTIME" "$l"; done; }
conlog() { [ -z "$condir" ] || echo "--console-log $condir/$kind-link-$1.console"; }

# shellcheck disable=SC2046
"$top/qemu/run" --kernel "$kind" --payload "$top/tests/ptp" --timeout "$timeout" \
	--link "listen:$sock" $(conlog a) -- sh link/master.sh \
	2> "$tmp/a.err" | stamp > "$tmp/a" &
apid=$!
# QEMU creates the socket before the guest boots; the other end needs it.
n=0
while [ ! -S "$sock" ] && [ $n -lt 600 ] && kill -0 $apid 2>/dev/null; do
	n=$((n + 1))
	sleep 0.1
done
brc=0
if [ -S "$sock" ]; then
	# shellcheck disable=SC2046
	"$top/qemu/run" --kernel "$kind" --payload "$top/tests/ptp" --timeout "$timeout" \
		--link "connect:$sock" $(conlog b) -- sh link/slave.sh "$count" \
		2> "$tmp/b.err" | stamp > "$tmp/b" || brc=$?
else
	brc=1
	echo "guest A made no socket $sock" >> "$tmp/b.err"
fi
arc=0
wait $apid || arc=$?
apid=

report() {
# The guests' own TAP lines and comments, without the stamps.
for g in a b; do
	sed -n 's/^[0-9.]* \(ok - .*\|not ok - .*\|#.*\|  .*\)$/\1/p' "$tmp/$g"
done
for g in a b; do
	rc=$arc
	[ $g = a ] || rc=$brc
	if [ "$rc" = 0 ]; then
		echo "ok - link: guest $g ended cleanly"
	else
		echo "not ok - link: guest $g ended cleanly (status $rc)"
		tail -n 20 "$tmp/$g.err" | sed 's/^/  /'
	fi
done

# <<<link-expiry LABEL T LATE_NS>>>: join A's and B's by T.
rc=0
res=$(awk -v bound="$BOUND_MS" '
	/<<<link-expiry / {
		sub(/>>>.*/, ""); n = split($0, f, " ")
		# f[1] host stamp, f[2] <<<link-expiry, f[3] label, f[4] T, f[5] late
		if (f[5] < 0) early++
		late[f[3]] = late[f[3]] " " f[5]
		at[f[3], f[4]] = f[1]
		if (f[3] == "B") tb[++nb] = f[4]
	}
	END {
		for (i = 1; i <= nb; i++) {
			t = tb[i]
			if (!(("A", t) in at)) continue
			d = (at["B", t] - at["A", t]) * 1000
			ad = d < 0 ? -d : d
			m++; s[m] = ad
			if (ad > max) max = ad
			if (m == 1 || ad < min) min = ad
			list = list sprintf(" %+.1f", d)
		}
		if (m == 0) { print "no PHC time both guests woke for"; exit 1 }
		# median: sort the spreads
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
			if (s[j] < s[i]) { x = s[i]; s[i] = s[j]; s[j] = x }
		med = m % 2 ? s[(m + 1) / 2] : (s[m / 2] + s[m / 2 + 1]) / 2
		printf "%d common wake-ups, |B - A| on the host min %.1f median %.1f max %.1f ms (B - A:%s ms); %d early in PHC time\n",
			m, min, med, max, list, early
		exit !(max <= bound && early == 0 && m >= 3)
	}' "$tmp/a" "$tmp/b") || rc=$?
if [ $rc = 0 ]; then
	echo "ok - link: both guests wake at the same PHC time within $BOUND_MS ms, never early ($res)"
else
	echo "not ok - link: both guests wake at the same PHC time within $BOUND_MS ms, never early"
	echo "  $res"
fi
}
report | tee "$tmp/report"
pass=$(grep -c '^ok - ' "$tmp/report" || true)
fail=$(grep -c '^not ok - ' "$tmp/report" || true)
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
