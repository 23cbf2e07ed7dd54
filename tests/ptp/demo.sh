# SPDX-License-Identifier: GPL-2.0
# Guest side of 'make demo': the story of clockdev in a minute, told with
# the clockdev tool (tools/clockdev) and linuxptp.
CD=/usr/local/bin/clockdev
BUS=/sys/bus/ptp_sim
/usr/sbin/ip link set eth0 up 2>/dev/null

say() { printf '\n== %s\n' "$*"; }
run() { echo "\$ $*"; "$@" 2>&1 | sed 's/^/  /'; }
# data NAME FILE: FILE's lines for the host, each as "@data NAME LINE":
# scripts/demo.sh keeps them out of what it shows and draws them.
data() { sed "s/^/@data $1 /" "$2"; }

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
echo "(QEMU 10's e1000e PHC runs at 5/2 of the system clock, an emulation bug; QEMU 7.2's does not tick)"
run $CD eth0 compare CLOCK_REALTIME 5 0.05
run ethtool -T eth0

if [ ! -d $BUS ]; then
	echo "no ptp_sim on this kernel: the rest needs the clockdev series"
	exit 0
fi
a=$(sim 1) b=$(sim 2)
say "New: a periodic timer on a simulated PHC ($a), every 100 ms, while its frequency moves by +-500 ppm"
# Each frequency set with the PHC's time right before it: get, then freq.
$CD "$a" set >/dev/null
$CD --json "$a" get freq 0 > /tmp/demo-freq.json 2>&1
( for f in 500000 -500000 0; do
	busybox usleep 500000
	$CD --json "$a" get freq $f
  done >> /tmp/demo-freq.json 2>&1 ) &
echo "\$ $CD --json $a timer 0.1 0.1 20"
$CD --json "$a" timer 0.1 0.1 20 > /tmp/demo-timer.json 2>&1
rc=$?
wait
if [ $rc = 0 ]; then
	echo "  (one JSON object per expiry, read here with jq: each change of frequency, at the time"
	echo "   of $a since the timer was armed, and the lateness of the expiries after it)"
	jq -r --slurpfile f /tmp/demo-freq.json -s '
		(map(select(.summary)) | .[0]) as $s
		| (map(select(.expiry)) | .[0].expected_ns - $s.delay_ns) as $t0
		| (.[] | select(.expiry) | [.expected_ns - $t0, "x", .late_ns]),
		  ($f | range(0; length; 2) as $i | [$f[$i].ns - $t0, "f", $f[$i + 1].freq_ppb]),
		  ([0, "s", $s.expiries, $s.late_min_ns, $s.late_p50_ns, $s.late_max_ns, $s.early])
		| @tsv' /tmp/demo-timer.json | sort -n -k1,1 | awk -F '\t' '
		$2 == "f" {
			if (line != "") print line
			line = sprintf("  at %+.3f s: %+4d ppm, late (ms)", $1 / 1e9, $3 / 1000)
		}
		$2 == "x" { line = line sprintf(" %.3f", $3 / 1e6) }
		$2 == "s" { s = sprintf("  %d expiries, late min %.3f, median %.3f, max %.3f ms, %d early", $3, $4 / 1e6, $5 / 1e6, $6 / 1e6, $7) }
		END { print line; print s }'
	data timer /tmp/demo-timer.json
	data timer-freq /tmp/demo-freq.json
else
	sed 's/^/  /' /tmp/demo-timer.json
fi

say "New: clock_nanosleep on the PHC until its next whole second"
run $CD "$a" wait-until "$(( $($CD --json "$a" get | jq -r .ns) / 1000000000 + 1 ))"

say "phc2sys locks $b to $a (+20 ppm), reading both through fd clockids"
$CD --json "$a" freq 20000 > /tmp/demo-master.json
$CD "$b" set >/dev/null
echo "\$ phc2sys -s $a -c $b -O 0 -m -q -R 4   (for 6 s; every 4th line after the first 4)"
timeout 6 phc2sys -s "$a" -c "$b" -O 0 -m -q -R 4 2>&1 | tee /tmp/demo-phc2sys.log |
	awk 'NR <= 4 || NR % 4 == 0' | sed 's/^/  /'
data phc2sys-master /tmp/demo-master.json
data phc2sys /tmp/demo-phc2sys.log
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
