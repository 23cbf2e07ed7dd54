# SPDX-License-Identifier: GPL-2.0
# The simulated PHC (ptp_sim): instances made and removed at run time, a clock
# that runs at the dialed rate and never goes backwards across adjfine, reads
# that sleep on demand, and removal (del_device, rmmod) while the clock is in
# use.  phc.sh runs in the soak target, not here.
. /payload/lib.sh
TESTPTP=$SELFTESTS/ptp/testptp
BUS=/sys/bus/ptp_sim
DBG=/sys/kernel/debug/ptp_sim
DEFER=/sys/module/ptp_sim/parameters/defer_free
A=30 B=31 C=32		# instance IDs used here
defer_was=

modprobe ptp_sim 2>/dev/null || true
if [ ! -d $BUS ]; then
	echo "ok - ptp_sim: simulated PHC # SKIP ptp_sim not available"
	exit 0
fi

tmp=$(mktemp -d)
cleanup() {
	exec 3<&- 4<&-
	for id in $A $B $C; do
		[ -d $BUS/devices/ptp_sim$id ] && echo $id > $BUS/del_device
	done
	[ -z "$defer_was" ] || [ ! -w $DEFER ] || echo "$defer_was" > $DEFER
	rm -rf "$tmp"
}
trap cleanup EXIT

# sysfs_write FILE VALUE: write VALUE, print the errno text on failure
sysfs_write() { sh -c "echo '$2' > $1" 2>&1; }
# expect_write_error FILE VALUE TEXT: the write fails with the errno TEXT
expect_write_error() {
	out=$(sysfs_write "$1" "$2") && { echo "write succeeded"; return 1; }
	echo "$out"
	case $out in *"$3"*) ;; *) return 1 ;; esac
}
# within VALUE LOW HIGH: LOW <= VALUE <= HIGH (decimals)
within() {
	echo "$1 in [$2, $3]"
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'
}
counter() { cat $DBG/$1; }
# clock_times: the times printed by phc_ctl's "get", one a line
clock_times() { awk '/clock time is/ { print $5 }'; }
# nondecreasing: every line of stdin is >= the one before (and there are some)
nondecreasing() {
	awk 'NR > 1 && $1 < prev { print "went back: " prev " -> " $1; bad = 1 }
	     { prev = $1 } END { print NR " readings"; exit bad || NR < 2 }'
}
# testptp_says "ARGS" TEXT...: testptp ARGS succeeds and prints every TEXT
testptp_says() {
	out=$($TESTPTP $1 2>&1) || { echo "$out"; return 1; }
	shift
	echo "$out"
	case $out in *": No such"*|*": Invalid"*|*"not supported"*) return 1 ;; esac
	for w in "$@"; do
		case $out in *"$w"*) ;; *) echo "missing: $w"; return 1 ;; esac
	done
}
# narrowest_sample: of testptp -x samples, the one with the narrowest
# system-time window, as "MIDPOINT PHC" (seconds)
narrowest_sample() {
	awk '/time before:/ { b = $NF } /phc time:/ { p = $NF }
	     /time after:/ { w = $NF - b
			     if (!n++ || w < best) { best = w; m = (b + $NF) / 2; q = p } }
	     END { if (!n) exit 1; printf "%.9f %.9f\n", m, q }'
}
# rate_vs_monotonic DEV: PHC seconds per CLOCK_MONOTONIC second over ~1 s,
# from two PTP_SYS_OFFSET_EXTENDED requests of 10 samples each.
rate_vs_monotonic() {
	$TESTPTP -d "$1" -x 10 -y monotonic | narrowest_sample > $tmp/x0 || return 1
	sleep 1
	$TESTPTP -d "$1" -x 10 -y monotonic | narrowest_sample > $tmp/x1 || return 1
	cat $tmp/x0 $tmp/x1 | awk '{ m[NR] = $1; p[NR] = $2 }
		END { if (NR != 2) exit 1
		      printf "%.7f\n", (p[2] - p[1]) / (m[2] - m[1]) }'
}
# rate_vs_monoraw DEV: the same from two PTP_SYS_OFFSET_PRECISE samples
rate_vs_monoraw() {
	$TESTPTP -d "$1" -X > $tmp/c0 || return 1
	sleep 1
	$TESTPTP -d "$1" -X > $tmp/c1 || return 1
	cat $tmp/c0 $tmp/c1 | awk 'BEGIN { n = 0 }
		/device time:/ { d[n] = $NF } /monoraw time:/ { r[n++] = $NF }
		END { if (n != 2) exit 1
		      printf "%.9f\n", (d[1] - d[0]) / (r[1] - r[0]) }'
}
check_rate() {
	phc_ctl -- "$1" freq "$2" set 0 > /dev/null || return 1
	within "$(rate_vs_monotonic "$1")" "$3" "$4"
}
check_rate_precise() {
	phc_ctl -- "$1" freq "$2" set 0 > /dev/null || return 1
	within "$(rate_vs_monoraw "$1")" "$3" "$4"
}

# A re-base missing on adjfine would make the clock jump by 2 % of the time
# since the last one (10 ms here) when the frequency flips from +1 % to -1 %.
check_adjfine_continuous() {
	phc_ctl -- "$1" freq 10000000 wait 0.5 get freq -10000000 get \
		freq 10000000 get freq 0 get 2>&1 | clock_times | nondecreasing
}
# Readings stay ordered while another process keeps flipping the frequency.
check_reads_ordered_under_adjfine() {
	(while :; do
		phc_ctl -- "$1" freq 10000000 freq -10000000 > /dev/null 2>&1
	done) &
	flipper=$!
	i=0
	while [ $i -lt 20 ]; do
		$TESTPTP -d "$1" -x 25 | awk '/phc time:/ { print $NF }'
		i=$((i + 1))
	done > $tmp/samples
	kill $flipper; wait $flipper 2>/dev/null
	phc_ctl "$1" freq 0 > /dev/null 2>&1
	nondecreasing < $tmp/samples
}

check_ops_counted() {
	before=$(counter ops)
	$TESTPTP -d "$1" -g > /dev/null
	after=$(counter ops)
	echo "ops $before -> $after"
	[ $((after - before)) -eq 1 ]
}

# check_sleeping_reads ID DEV: ID was created with SLEEPING_READS 1: each
# PTP_SYS_OFFSET sample brackets one read, which sleeps at least 20 us.
check_sleeping_reads() {
	[ "$(cat $BUS/devices/ptp_sim$1/sleeping_reads)" = 1 ] || return 1
	$TESTPTP -d "$2" -k 10 > $tmp/k || return 1
	awk '/clock time delay/ { n++; if ($(NF - 1) < 20000) short++
	       print "delay " $(NF - 1) " ns" }
	     END { exit n != 10 || short }' $tmp/k
}

# check_del_under_load ID DEV: a phc_ctl holding DEV open and three loops
# of testptp runs keep reading (slowly: ID has sleeping_reads) while ID is
# deleted.
# phc_ctl must see ENODEV; each testptp loop ends with ENODEV or, if it was
# between two runs, ENOENT from open(); late_ops stays 0.
check_del_under_load() {
	gets=
	i=0
	while [ $i -lt 20 ]; do gets="$gets get wait 0.1"; i=$((i + 1)); done
	phc_ctl "$2" $gets > $tmp/phc_ctl.out 2>&1 &
	readers=$!
	for l in 1 2 3; do
		(while $TESTPTP -d "$2" -k 25 -x 25 > $tmp/testptp$l.out 2>&1; do
			grep -q 'No such device' $tmp/testptp$l.out && break
		done) &
		readers="$readers $!"
	done
	i=0
	until grep -q 'clock time is' $tmp/phc_ctl.out; do
		[ $i -lt 200 ] || { echo "phc_ctl did not start"; kill $readers; return 1; }
		sleep 0.05; i=$((i + 1))
	done
	echo $1 > $BUS/del_device || { kill $readers; return 1; }
	wait $readers
	grep -h -E 'No such|failed' $tmp/phc_ctl.out $tmp/testptp?.out
	grep -q 'failed to get clock time: No such device' $tmp/phc_ctl.out &&
		[ ! -e "$2" ] && [ "$(counter late_ops)" -eq 0 ]
}

# check_del_with_open_file ID DEV: delete while fd 3 holds DEV, then close
check_del_with_open_file() {
	exec 3< "$2"
	echo $1 > $BUS/del_device || return 1
	[ ! -e $BUS/devices/ptp_sim$1 ] && [ ! -e "$2" ] || return 1
	exec 3<&-
	[ "$(counter late_ops)" -eq 0 ]
}

# check_rmmod_with_open_file ID: unload with an instance whose clock is open
check_rmmod_with_open_file() {
	echo $1 > $BUS/new_device || return 1
	dev=$(ptp_dev $1)
	exec 4< "$dev"
	rmmod ptp_sim || return 1
	[ ! -e $BUS ] && [ ! -e "$dev" ] || return 1
	exec 4<&-
}

check "ptp_sim: new_device $A" sh -c "echo $A > $BUS/new_device"
check "ptp_sim: new_device '$B 20000000 1' (sleeping reads)" \
	sh -c "echo '$B 20000000 1' > $BUS/new_device"
devA=$(ptp_dev $A) devB=$(ptp_dev $B)
ptpA=${devA#/dev/} ptpB=${devB#/dev/}
echo "# ptp_sim$A is $devA, ptp_sim$B is $devB"
check "ptp_sim: clock names are ptp_sim$A, ptp_sim$B" sh -c \
	"[ \$(cat /sys/class/ptp/$ptpA/clock_name) = ptp_sim$A ] &&
	 [ \$(cat /sys/class/ptp/$ptpB/clock_name) = ptp_sim$B ]"
check "ptp_sim: $ptpA/device is ptp_sim$A" sh -c \
	"[ \$(basename \$(readlink /sys/class/ptp/$ptpA/device)) = ptp_sim$A ]"
check "ptp_sim: max_adj defaults to 10000000 ppb, set to 20000000" sh -c \
	"[ \$(cat /sys/class/ptp/$ptpA/max_adjustment) = 10000000 ] &&
	 [ \$(cat /sys/class/ptp/$ptpB/max_adjustment) = 20000000 ]"
check "ptp_sim: new_device of an existing ID fails with EEXIST" \
	expect_write_error $BUS/new_device $A "File exists"
check "ptp_sim: new_device with MAX_ADJ_PPB > 32000000 fails with EINVAL" \
	expect_write_error $BUS/new_device "$C 32000001" "Invalid argument"
check "ptp_sim: del_device of an unknown ID fails with ENOENT" \
	expect_write_error $BUS/del_device $C "No such file"
check "ptp_sim: new_device with SLEEPING_READS 2 fails with EINVAL" \
	expect_write_error $BUS/new_device "$C 10000000 2" "Invalid argument"
check "ptp_sim: sleeping_reads shows how each was created (0, 1)" sh -c \
	"[ \$(cat $BUS/devices/ptp_sim$A/sleeping_reads) = 0 ] &&
	 [ \$(cat $BUS/devices/ptp_sim$B/sleeping_reads) = 1 ]"

check "ptp_sim: phc_ctl set 1000000, get" sh -c \
	"phc_ctl $devA set 1000000 get | grep -E 'clock time is 1000000\.'"
check "ptp_sim: phc_ctl adj 10" sh -c \
	"phc_ctl $devA set 1000000 adj 10 get | grep -E 'clock time is 1000010\.'"
check "ptp_sim: phc_ctl freq 100" sh -c \
	"phc_ctl $devA freq 100 2>&1 | grep 'offset to 100.000000ppb' &&
	 ! phc_ctl $devA freq 100 2>&1 | grep failed"
check "ptp_sim: freq beyond max_adj fails with ERANGE" sh -c \
	"phc_ctl $devA freq 10000001 2>&1 | grep 'Numerical result out of range'"
check "ptp_sim: testptp -c reports max_adj and cross timestamping" \
	testptp_says "-d $devB -c" "20000000 maximum frequency adjustment" \
	"1 cross timestamping"
check "ptp_sim: testptp -c -g -k 5 -T 100" \
	testptp_says "-d $devA -c -g -k 5 -T 100" "clock time: " "set time okay" \
	"offset request okay"
check "ptp_sim: testptp -x 3 (PTP_SYS_OFFSET_EXTENDED)" \
	testptp_says "-d $devA -x 3" "sample # 2:"
check "ptp_sim: testptp -X (PTP_SYS_OFFSET_PRECISE)" \
	testptp_says "-d $devA -X" "crosstimestamping request okay"
check "ptp_sim: one clock read is one counted op" check_ops_counted $devA

check "ptp_sim: rate at freq 0 is 1 (+-100 ppm) vs CLOCK_MONOTONIC" \
	check_rate $devA 0 0.9999 1.0001
check "ptp_sim: rate at freq +1 % is 1.01 (+-100 ppm) vs CLOCK_MONOTONIC" \
	check_rate $devA 10000000 1.0099 1.0101
check "ptp_sim: rate at freq -1 % is 0.99 (+-100 ppm) vs CLOCK_MONOTONIC" \
	check_rate $devA -10000000 0.9899 0.9901
check "ptp_sim: cross timestamps at freq +1 % give 1.01 (+-1 ppm) vs MONOTONIC_RAW" \
	check_rate_precise $devA 10000000 1.009999 1.010001
phc_ctl $devA freq 0 > /dev/null 2>&1
check "ptp_sim: no step back when the frequency flips" \
	check_adjfine_continuous $devA
check "ptp_sim: reads stay ordered while adjfine runs" \
	check_reads_ordered_under_adjfine $devA
check "ptp_sim: sleeping_reads makes each read take >= 20 us" \
	check_sleeping_reads $B $devB

if [ -w $DEFER ]; then
	defer_was=$(cat $DEFER)
	echo Y > $DEFER
fi
check "ptp_sim: del_device while phc_ctl and testptp read it" \
	check_del_under_load $B $devB
check "ptp_sim: del_device with the clock held open" \
	check_del_with_open_file $A $devA
check "ptp_sim: instance ID reusable after del_device" sh -c \
	"echo $A > $BUS/new_device && ls $BUS/devices/ptp_sim$A/ptp"
check "ptp_sim: no op reached a removed clock (late_ops 0)" sh -c \
	"cat $DBG/ops $DBG/late_ops; [ \$(cat $DBG/late_ops) -eq 0 ]"

if [ -e /sys/module/ptp_sim/refcnt ]; then
	check "ptp_sim: rmmod with a clock held open" \
		check_rmmod_with_open_file $C
	modprobe ptp_sim 2>/dev/null || true
else
	echo "ok - ptp_sim: rmmod with a clock held open # SKIP ptp_sim is built in"
fi
