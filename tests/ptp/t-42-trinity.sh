# SPDX-License-Identifier: GPL-2.0
# trinity (Debian's system call fuzzer) on the clock, timer, timerfd,
# ioctl, read, poll, close and dup system calls, with the nodes of every
# PTP clock and RTC clock of the guest among its descriptors (its victim
# files: copies of the nodes, readable and writable by all), as nobody,
# then as root.  The root run leaves out clock_settime and clock_adjtime:
# this trinity (2023.01) draws clockids from the static clocks only, so
# there they would only step and skew the guest's CLOCK_REALTIME under the
# tests that follow, and reach no dynamic clock.  Dynamic clocks are
# reached through the descriptors (ioctl, read, poll, dup, close); the ABI
# fuzzer (t-41) covers fd clockids.  Each run must end by itself after its
# calls, and the kernel must report nothing.  TRINITY_CALLS=N sets the
# calls of a run (5000; 2000 where $SUBSET asks for a subset: the debug
# kernel, 1000 in its $SHORT form, make check; make soak: 150000, 60000
# on the debug kernel), TRINITY_SEED=N replays a run's seed.
. /payload/lib.sh
CALLS=${TRINITY_CALLS:-5000}
[ -z "${SUBSET:-}" ] || CALLS=${TRINITY_CALLS:-2000}
[ -z "${SHORT:-}" ] || CALLS=${TRINITY_CALLS:-1000}
SEED=${TRINITY_SEED:+-s $TRINITY_SEED}
A=47 B=48	# ptp_sim instances: reads that do not sleep, and that do
victims=/tmp/trinity-victims
work=/tmp/trinity-work

if ! command -v trinity > /dev/null; then
	echo "not ok - trinity: installed in the guest (make deps)"
	exit 0
fi
cleanup() {
	sim_del $A
	sim_del $B
	rm -rf $victims $work
}
trap cleanup EXIT

modprobe ptp_sim 2>/dev/null
if [ -d /sys/bus/ptp_sim ]; then
	echo "$A 10000000 0" > /sys/bus/ptp_sim/new_device
	echo "$B 10000000 1" > /sys/bus/ptp_sim/new_device
fi
mkdir -p $victims $work
for c in /sys/class/ptp/ptp* /sys/class/rtc_clock/rtcclock*; do
	[ -f "$c/dev" ] || continue
	mm=$(cat "$c/dev")
	mknod -m 0666 "$victims/${c##*/}" c "${mm%:*}" "${mm#*:}"
done
echo "# victim nodes: $(ls $victims | tr '\n' ' ')"
chown 65534 $work
grep -q '^nobody:' /etc/passwd ||
	echo 'nobody:x:65534:65534:nobody:/tmp:/bin/sh' >> /etc/passwd

calls="clock_gettime clock_getres clock_nanosleep timer_create timer_settime
	timer_gettime timer_getoverrun timer_delete timerfd_create
	timerfd_settime timerfd_gettime ioctl read poll ppoll close dup dup2 dup3"
only=
for c in $calls; do only="$only -c $c"; done

# run_trinity NAME CMD...: CMD runs trinity; NAME is ok when it ran its
# calls and exited 0.  Its summary and errno table follow as comments.
run_trinity() {
	rt_name=$1
	shift
	rt_out=$(mktemp)
	rt_t0=$(cut -d. -f1 /proc/uptime)
	(cd $work && "$@") > "$rt_out" 2>&1
	rt_rc=$?
	rt_ran=$(sed -n 's/.*Ran \([0-9]*\) syscalls.*/\1/p' "$rt_out" | tail -n 1)
	rt_seed=$(sed -n 's/.*Initial random seed: \([0-9]*\).*/\1/p' "$rt_out")
	if [ "$rt_rc" = 0 ] && [ "${rt_ran:-0}" -ge "$CALLS" ]; then
		echo "ok - trinity: $rt_name"
	else
		echo "not ok - trinity: $rt_name"
		echo "  exit status $rt_rc, ${rt_ran:-no} calls made of $CALLS"
		grep -v 'Marking syscall\|futex:' "$rt_out" | tail -n 30 | sed 's/^/  /'
	fi
	echo "  ${rt_ran:-no} calls in $(($(cut -d. -f1 /proc/uptime) - rt_t0)) s, seed $rt_seed (TRINITY_SEED=$rt_seed replays it)"
	sed -n '/^64bit:/,$p' "$rt_out" | sed 's/^/  /'
	rm -f "$rt_out"
}

r0=$(kernel_reports)
# shellcheck disable=SC2086
run_trinity "as nobody" su -s /bin/sh nobody -c \
	"trinity -q -l off --stats -N $CALLS -C 2 $SEED -V $victims --disable-fds=sockets $only -c clock_settime -c clock_adjtime"
# shellcheck disable=SC2086
run_trinity "as root" trinity --dangerous -q -l off --stats -N "$CALLS" -C 2 \
	$SEED -V $victims --disable-fds=sockets $only
check "trinity: no kernel report during the runs" kernel_reports_since "$r0"
