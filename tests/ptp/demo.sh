# SPDX-License-Identifier: GPL-2.0
# Guest side of 'make demo': the story of clockdev in a minute, told with
# the clockdev tool (tools/clockdev) and linuxptp.
CD=/usr/local/bin/clockdev
BUS=/sys/bus/ptp_sim
/usr/sbin/ip link set eth0 up 2>/dev/null

say() { printf '\n== %s\n' "$*"; }
run() { echo "\$ $*"; "$@" 2>&1 | sed 's/^/  /'; }

echo "kernel: $(uname -r)"
if [ ! -x $CD ]; then
	echo "no $CD in this image"
	exit 1
fi
modprobe ptp_sim 2>/dev/null
[ ! -d $BUS ] || { echo 1 > $BUS/new_device; echo 2 > $BUS/new_device; }
sim() { echo "/dev/$(ls $BUS/devices/ptp_sim$1/ptp)"; }

say "Every dynamic clock: PHCs (e1000e's, two simulated ones) and the RTC's clock"
run $CD list

say "What mainline already offers: read a PHC through its fd clockid, compare it with the system clock"
run $CD eth0 caps get
echo "(QEMU 7.2's e1000e PHC does not tick: against the system clock it loses a second per second)"
run $CD eth0 compare CLOCK_REALTIME 5 0.05
run ethtool -T eth0

if [ ! -d $BUS ]; then
	echo "no ptp_sim on this kernel: the rest needs the clockdev series"
	exit 0
fi
a=$(sim 1) b=$(sim 2)
say "New: a periodic timer on a simulated PHC ($a), 100 ms, while its frequency moves by +-500 ppm"
$CD "$a" set >/dev/null
( for f in 500000 -500000 0; do busybox usleep 300000; $CD "$a" freq $f >/dev/null; done ) &
run $CD "$a" timer 0.1 0.1 10
wait

say "New: clock_nanosleep on the PHC until its next whole second"
run $CD "$a" wait-until "$(( $($CD --json "$a" get | jq -r .ns) / 1000000000 + 1 ))"

say "phc2sys locks $b to $a (+20 ppm), reading both through fd clockids"
$CD "$a" freq 20000 >/dev/null
$CD "$b" set >/dev/null
timeout 6 phc2sys -s "$a" -c "$b" -O 0 -m -q -R 4 2>&1 | awk 'NR <= 4 || NR % 4 == 0' | sed 's/^/  /'
run $CD "$b" freq compare "$a" 5 0.05

if [ -e /dev/rtcclock0 ]; then
	say "New: a timer on the RTC's clock (whole seconds; it can wake the system)"
	run $CD /dev/rtcclock0 caps timer 2
fi

say "Pull the clock out from under a running timer: ENODEV, no crash"
$CD "$b" timer 30 > /tmp/demo-rm 2>&1 &
pid=$!
# Armed once it waits in poll() on its timerfd (up to 10 s).
n=0
until case $(cut -d' ' -f1 /proc/$pid/syscall 2>/dev/null) in 7|271) true ;; *) false ;; esac ||
      [ $n -ge 100 ]; do
	busybox usleep 100000
	n=$((n + 1))
done
echo "\$ echo 2 > $BUS/del_device"
echo 2 > $BUS/del_device
wait $pid
echo "  the timer's clockdev ended with status $?:"
sed 's/^/  /' /tmp/demo-rm
echo 1 > $BUS/del_device
