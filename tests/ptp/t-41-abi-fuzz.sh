# SPDX-License-Identifier: GPL-2.0
# The ABI fuzzer (tests/fuzz/abi_fuzz.c, /usr/local/bin/abi_fuzz): seeded
# runs of every clock and timer system call with random and adversarial
# arguments, each result checked against the errno table of
# Documentation/userspace-api/clockdev.rst (and Linux 6.12's behaviour for
# static clockids), under another thread that closes and replaces
# descriptors.  Its clocks: a ptp_sim instance that stays and three that
# the fuzzer removes during the run, one of them with reads that sleep
# (netdevsim's mock PHCs on a kernel without ptp_sim), and the RTC clock.
# It runs as root, with the RTC clock never opened for writing, then as
# nobody without capabilities (abi_fuzz --user 65534; the nodes opened up
# for it: the PHC that stays and the RTC clock read-write, where
# clock_settime must fail with EPERM and clock_adjtime with EOPNOTSUPP, the
# others read-only).  A run prints its seed; ABI_FUZZ_SEED=N replays it (as
# far as the other thread and the timing let it), ABI_FUZZ_CALLS=N changes
# the number of calls (100000; 20000 where $SUBSET asks for a subset: the
# debug kernel), ABI_FUZZ_MAX_SECONDS=N the longest a run may take (400).
. /payload/lib.sh
FUZZ=${ABI_FUZZ:-/usr/local/bin/abi_fuzz}
CALLS=${ABI_FUZZ_CALLS:-100000}
[ -z "${SUBSET:-}" ] || CALLS=${ABI_FUZZ_CALLS:-20000}
SEED=${ABI_FUZZ_SEED:+--seed $ABI_FUZZ_SEED}
# A run that takes longer than this fails (ABI_FUZZ_MAX_SECONDS: the soak's).
MAX_SECONDS=${ABI_FUZZ_MAX_SECONDS:-400}
PTPSIM=/sys/bus/ptp_sim
NSIM=/sys/bus/netdevsim
A=41 B=42 C=43 D=44	# instance IDs used here (ptp_sim or netdevsim)
RTC=/dev/rtcclock0
rtc_mode=

if [ ! -x "$FUZZ" ]; then
	echo "not ok - abi-fuzz: $FUZZ is installed"
	exit 0
fi

bus=
modprobe ptp_sim 2>/dev/null
if [ -d $PTPSIM ]; then
	bus=$PTPSIM
else
	modprobe netdevsim 2>/dev/null
	[ ! -d $NSIM ] || bus=$NSIM
fi

# del_clocks: remove what make_clocks made and is still there
del_clocks() {
	for id in $A $B $C $D; do
		case $bus in
		"$PTPSIM") sim_del $id ;;
		"$NSIM") [ ! -d /sys/bus/netdevsim/devices/netdevsim$id ] ||
			echo $id > $NSIM/del_device ;;
		esac
	done
}
cleanup() {
	del_clocks
	[ -z "$rtc_mode" ] || chmod "$rtc_mode" $RTC
}
trap cleanup EXIT

# dev_of ID: the /dev/ptpN of instance ID
dev_of() {
	case $bus in
	"$PTPSIM") ptp_dev "$1" ;;
	"$NSIM")
		for p in /sys/class/ptp/ptp*; do
			if [ "$(readlink -f "$p/device")" = \
			     "$(readlink -f /sys/devices/netdevsim$1)" ]; then
				echo "/dev/${p##*/}"
				return
			fi
		done ;;
	esac
}

# make_clocks RTCOPT: new instances A, B, C and D; sets devA ... devD and
# ARGS, the fuzzer's clock options (A stays, B, C and D are removed by the
# fuzzer; RTCOPT, --clock or --ro-clock, for the RTC clock)
make_clocks() {
	ARGS=
	devA="" devB="" devC="" devD=""
	if [ -n "$bus" ]; then
		# D's reads sleep (ptp_sim's third new_device field): its
		# reads and timers take the SRCU and worker path, the others'
		# the RCU and hrtimer path of clocks that read atomically.
		for id in $A $B $C $D; do
			sleeping=0
			[ $id != $D ] || sleeping=1
			case $bus in
			"$PTPSIM") echo "$id 10000000 $sleeping" > $PTPSIM/new_device ;;
			"$NSIM") echo "$id 1" > $NSIM/new_device ;;
			esac || return 1
		done
		devA=$(dev_of $A) devB=$(dev_of $B) devC=$(dev_of $C) devD=$(dev_of $D)
		[ -c "$devA" ] && [ -c "$devB" ] && [ -c "$devC" ] && [ -c "$devD" ] || {
			echo "no PTP clock for instances $A $B $C $D of $bus"
			return 1
		}
		ARGS="--clock $devA"
		for id in $B $C $D; do
			ARGS="$ARGS --victim $(dev_of $id) --del $bus/del_device:$id"
		done
	fi
	[ ! -c $RTC ] || ARGS="$ARGS $1 $RTC"
	return 0
}

echo "# clocks from ${bus:-nowhere (no ptp_sim, no netdevsim)}; $CALLS calls a run"
r0=$(kernel_reports)

# The removals are the fuzzer's: a process that keeps root's credentials
# writes del_device at a call drawn from the seed.
if make_clocks --ro-clock; then
	# shellcheck disable=SC2086
	check "abi-fuzz: as root" "$FUZZ" $SEED --calls "$CALLS" \
		--max-seconds "$MAX_SECONDS" $ARGS
else
	echo "not ok - abi-fuzz: as root: clocks made"
fi
del_clocks

if make_clocks --clock; then
	# nobody may read and write A and the RTC clock, only read the others.
	[ -z "$devA" ] || chmod 0666 "$devA"
	[ -z "$devB" ] || chmod 0644 "$devB" "$devC" "$devD"
	if [ -c $RTC ]; then
		rtc_mode=$(stat -c %a $RTC)
		chmod 0666 $RTC
	fi
	# shellcheck disable=SC2086
	check "abi-fuzz: as nobody, without capabilities" "$FUZZ" $SEED \
		--user 65534 --calls "$CALLS" --max-seconds "$MAX_SECONDS" $ARGS
	[ -z "$rtc_mode" ] || chmod "$rtc_mode" $RTC
	rtc_mode=
else
	echo "not ok - abi-fuzz: as nobody: clocks made"
fi
del_clocks

check "abi-fuzz: no kernel report during the runs" kernel_reports_since "$r0"
