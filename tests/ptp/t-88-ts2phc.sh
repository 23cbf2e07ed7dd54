# SPDX-License-Identifier: GPL-2.0
# External timestamps and periodic outputs on simulated PHCs: the
# instances' pins share one simulated wire (drivers/ptp/ptp_sim.c), so
# - testptp shows the pin, refuses to timestamp on a pin not set to
#   EXTTS (EBUSY), and with A's pin a periodic output and B's an input,
#   B timestamps A's edges: one per period of A's time, in B's time, which
#   runs 100 ppm faster, so exactly 1.0001 periods apart;
# - ts2phc, with A as its PPS source and B as the clock it steers, locks
#   B to A: s2, then RUN consecutive offsets within BOUND, and B's
#   frequency ends near A's (+20 ppm).
. /payload/lib.sh
BUS=/sys/bus/ptp_sim
A=60 B=61		# ptp_sim instance IDs used here
PERIOD=100000000	# ns, testptp's periodic output
BOUND=1000		# ns, |offset| of a locked ts2phc (the wire is exact)
RUN=8			# consecutive s2 updates within BOUND
FREQ_TOL=200		# ppb between B's frequency and A's
TESTPTP=/usr/local/bin/selftests/ptp/testptp
tmp=$(mktemp -d)
pids=

cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	sim_del $A $B
	rm -rf "$tmp"
}
trap cleanup EXIT

modprobe ptp_sim 2>/dev/null
if [ ! -d $BUS ]; then
	echo "ok - ts2phc: simulated wire # SKIP no ptp_sim on this kernel"
	exit 0
fi
echo $A > $BUS/new_device && echo $B > $BUS/new_device || {
	echo "not ok - ts2phc: new_device failed"
	exit 0
}
pa=$(ptp_dev $A) pb=$(ptp_dev $B)

# --- testptp: capabilities, pin, one wire --------------------------------
$TESTPTP -d "$pa" -c > "$tmp/caps" 2>&1
if grep -q "1 programmable periodic signals" "$tmp/caps" &&
   grep -q "1 external time stamp channels" "$tmp/caps" &&
   grep -q "1 programmable pins" "$tmp/caps" &&
   $TESTPTP -d "$pa" -l 2>&1 | grep -q "name SMA index 0 func 0 chan 0"; then
	echo "ok - ts2phc: testptp -c/-l: one pin SMA, one input, one output"
else
	echo "not ok - ts2phc: testptp -c/-l: one pin SMA, one input, one output"
	sed 's/^/  /' "$tmp/caps"
	$TESTPTP -d "$pa" -l 2>&1 | sed 's/^/  /'
fi

# No pin set to EXTTS: the channel cannot be enabled.
timeout 10 $TESTPTP -d "$pb" -e 1 > "$tmp/busy" 2>&1
if grep -q "PTP_EXTTS_REQUEST: Device or resource busy" "$tmp/busy"; then
	echo "ok - ts2phc: testptp -e refused (EBUSY) while the pin is not an input"
else
	echo "not ok - ts2phc: testptp -e refused (EBUSY) while the pin is not an input"
	sed 's/^/  /' "$tmp/busy"
fi

# A at its nominal rate drives the wire every PERIOD ns; B, 100 ppm fast,
# timestamps the rising edges.
phc_ctl "$pa" set freq 0 > "$tmp/ctl" 2>&1 &&
	phc_ctl "$pb" set freq 100000 >> "$tmp/ctl" 2>&1 &&
	$TESTPTP -d "$pa" -i 0 -L 0,2 >> "$tmp/ctl" 2>&1 &&
	$TESTPTP -d "$pa" -i 0 -p $PERIOD >> "$tmp/ctl" 2>&1 &&
	$TESTPTP -d "$pb" -i 0 -L 0,1 >> "$tmp/ctl" 2>&1
rc=$?
timeout 20 $TESTPTP -d "$pb" -i 0 -e 6 > "$tmp/ev" 2>&1
# "event index 0 at S.NNNNNNNNN": spacing of consecutive stamps in ns
# (seconds and nanoseconds apart: awk's doubles cannot hold ns since 1970;
# and busybox awk reads "0123" as octal: the nanoseconds get a leading 1)
awk '/^event index 0 at/ { split($5, t, "."); s = t[1] + 0; ns = ("1" t[2]) - 1000000000
	if (n++) printf "%d\n", (s - ls) * 1000000000 + ns - lns; ls = s; lns = ns }' \
	"$tmp/ev" > "$tmp/gaps"
want=$((PERIOD + PERIOD / 10000))
if [ $rc = 0 ] && [ "$(wc -l < "$tmp/gaps")" = 5 ] &&
   awk -v w=$want '{ d = $1 - w; if (d < -2 || d > 2) bad = 1 } END { exit bad }' "$tmp/gaps"; then
	echo "ok - ts2phc: testptp -p on A, -e on B: 6 edges $want ns apart in B's time (+-2 ns)"
else
	echo "not ok - ts2phc: testptp -p on A, -e on B: 6 edges $want ns apart in B's time (+-2 ns)"
	sed 's/^/  /' "$tmp/ctl" "$tmp/ev"
	echo "  gaps: $(tr '\n' ' ' < "$tmp/gaps")"
fi

# --- ts2phc: B locked to A's pulses --------------------------------------
phc_ctl "$pa" freq 20000 > "$tmp/ctl" 2>&1 &&
	phc_ctl "$pb" freq 0 >> "$tmp/ctl" 2>&1 &&
	phc_ctl "$pb" adj 0.3 >> "$tmp/ctl" 2>&1 ||
	{ echo "not ok - ts2phc: phc_ctl"; sed 's/^/  /' "$tmp/ctl"; exit 0; }
# "ts2phc[T]: /dev/ptpN offset O s2 freq F": after the first s2, the
# longest run of consecutive offsets within BOUND (and the largest offset
# in such runs), and the last frequency.  ts2phc steps B when it sees the
# first pulse but acts a while later, and B runs 20 ppm slow meanwhile: on
# a busy host the servo then takes seconds to settle, so wait for the run
# (up to 60 s) rather than for a fixed time.
ts2phc_run() {
	awk -v b=$BOUND '/ offset .* s2 freq / {
		for (i = 1; i < NF; i++) {
			if ($i == "offset") o = $(i + 1)
			if ($i == "freq") f = $(i + 1)
		}
		seen = 1; o = o < 0 ? -o : o
		n = o <= b ? n + 1 : 0
		if (n > best) best = n
		if (o > max && n) max = o
		last = f
	}
	END { printf "%d %d %d %d\n", seen, best, max, last }' "$tmp/ts2phc"
}
ts2phc -s "$pa" -c "$pb" -m -q -l 7 > "$tmp/ts2phc" 2>&1 &
tsp=$!
pids="$pids $tsp"
n=0
while [ $n -lt 120 ] && kill -0 $tsp 2>/dev/null; do
	set -- $(ts2phc_run)
	[ "$2" -lt $RUN ] || break
	busybox usleep 500000
	n=$((n + 1))
done
kill $tsp 2>/dev/null
wait $tsp 2>/dev/null
res=$(ts2phc_run)
set -- $res
# ts2phc prints its servo's output, the opposite of what it applies: read
# what B runs at.
f=$(phc_freq "$pb")
if [ "$1" = 1 ] && [ "$2" -ge $RUN ] && [ -n "$f" ] &&
   [ $(( (f - 20000) * (f - 20000) )) -le $((FREQ_TOL * FREQ_TOL)) ]; then
	echo "ok - ts2phc: ts2phc -s A -c B locks B to A's pulses ($2 s2 within $BOUND ns, max $3 ns, B at $f ppb)"
else
	echo "not ok - ts2phc: ts2phc -s A -c B locks B to A's pulses (s2 seen $1, run $2, B at $f ppb)"
	sed 's/^/  /' "$tmp/ts2phc" | tail -n 25
fi

# --- removal: the listener, then the driver, under a running wire ---------
# B is listening (testptp blocked in read) and A drives the wire: remove B,
# the reader must return (ENODEV), then remove A with its output running.
# (ts2phc turned A's output off when it exited.)
$TESTPTP -d "$pa" -i 0 -p $PERIOD > "$tmp/ctl" 2>&1 ||
	{ echo "not ok - ts2phc: testptp -p"; sed 's/^/  /' "$tmp/ctl"; }
$TESTPTP -d "$pb" -i 0 -e 1000 > "$tmp/rm" 2>&1 &
reader=$!
pids="$pids $reader"
n=0
until grep -q "^event index 0" "$tmp/rm" || [ $n -ge 40 ]; do
	busybox usleep 250000
	n=$((n + 1))
done
echo $B > $BUS/del_device
n=0
while kill -0 $reader 2>/dev/null && [ $n -lt 40 ]; do
	busybox usleep 250000
	n=$((n + 1))
done
if ! kill -0 $reader 2>/dev/null && grep -q "^event index 0" "$tmp/rm" &&
   grep -q "read: No such device" "$tmp/rm" && echo $A > $BUS/del_device; then
	echo "ok - ts2phc: a listener and a driving clock removed under a running wire (reader: ENODEV)"
else
	echo "not ok - ts2phc: a listener and a driving clock removed under a running wire (reader: ENODEV)"
	sed 's/^/  /' "$tmp/rm" | tail -n 5
fi
