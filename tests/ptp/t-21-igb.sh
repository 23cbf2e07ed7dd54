# SPDX-License-Identifier: GPL-2.0
# The igb (82576) PHC, in a guest booted with qemu/run --nic e1000e,igb
# (QEMU 8 or later; scripts/suite.sh does so for this test): it registers
# under its MAC address, answers linuxptp and testptp, runs at the rate of
# the system clock (unlike QEMU's e1000e, at 5/2), and on a kernel with
# timers on dynamic clocks its timers and sleeps end, never early.
. /payload/lib.sh
skip() { echo "ok - $1 # SKIP $2"; }
igb=
for n in /sys/class/net/*; do
	d=$(readlink -f "$n/device/driver" 2>/dev/null) || continue
	[ "${d##*/}" != igb ] || igb=${n##*/}
done
if [ -z "$igb" ]; then
	skip "igb: its PHC" "no igb NIC in this guest (qemu/run --nic e1000e,igb, QEMU 8 or later)"
	exit 0
fi
ip link set "$igb" up
phc=$(ls "/sys/class/net/$igb/device/ptp/" 2>/dev/null | head -n 1)
check "igb: $igb has a PHC" test -c "/dev/${phc:-none}"
check "igb: its clock is named after its MAC address" sh -c \
	"[ \"\$(cat /sys/class/ptp/$phc/clock_name)\" = \"\$(tr -d : < /sys/class/net/$igb/address)\" ]"
check "igb: ethtool -T reports its PHC" sh -c \
	"ethtool -T $igb | grep -qE 'PTP Hardware Clock: ${phc#ptp}\$'"
check "igb: phc_ctl get" phc_ctl "/dev/$phc" get
# In one phc_ctl: the PHC ticks (t-20-e1000e.sh).
check "igb: phc_ctl set 1000000" sh -c \
	"phc_ctl /dev/$phc set 1000000 get | awk '/clock time is/ { t = \$5 } END { exit !(t >= 1000000 && t < 1000005) }'"
check "igb: testptp -c" "$SELFTESTS/ptp/testptp" -d "/dev/$phc" -c
check "igb: testptp -g" "$SELFTESTS/ptp/testptp" -d "/dev/$phc" -g
check "igb: testptp -k 5" "$SELFTESTS/ptp/testptp" -d "/dev/$phc" -k 5
check "igb: its PHC runs at the rate of CLOCK_MONOTONIC, within 1000 ppm" sh -c \
	"clockdev $igb compare CLOCK_MONOTONIC 2 0.1 | tee /dev/stderr |
	 awk '/drift/ { d = \$3 + 0; ok = (d > -1000 && d < 1000) } END { exit !ok }'"
if grep -qw clockdev /proc/devices; then
	check "igb: a periodic timer (timerfd) fires 3 times, never early" sh -c \
		"clockdev $igb timer 0.2 0.1 3 | tee /dev/stderr | grep -q '3 expiries.*, 0 early'"
	check "igb: clock_nanosleep 0.2 s ends, not early" sh -c \
		"clockdev $igb sleep 0.2 | tee /dev/stderr | grep -qE 'late [0-9]+ ns'"
else
	skip "igb: timers on its PHC" "this kernel offers no timers on dynamic clocks"
fi
