# SPDX-License-Identifier: GPL-2.0
# RTC clocks (tests/ptp/src/fdclock-rtc.c): /dev/rtcclock0 read, set and
# armed through its fd clockid, the permission table, timers from two
# processes, steps through /dev/rtc0, then the RTC's driver unbound under
# armed timers and bound again.  Then the same on rtc-test.0, an RTC without
# an alarm (its clock's timers take the core's generic path), and timers on
# rtc-test.1, an RTC whose alarm is a kernel timer, beside rtc_cmos.
# Mainline has no RTC clocks.
. /payload/lib.sh

if [ "$KIND" = mainline ]; then
	echo "ok - rtc: RTC clocks # SKIP mainline has no RTC clocks"
	exit 0
fi
if [ ! -c /dev/rtcclock0 ] || [ ! -c /dev/rtc0 ]; then
	echo "not ok - rtc: /dev/rtcclock0 and /dev/rtc0 exist"
	ls -l /dev/rtc* 2>&1 | sed 's/^/  /'
	exit 0
fi
dev=$(readlink -f /sys/class/rtc/rtc0/device)
drv=$(readlink -f /sys/class/rtc/rtc0/device/driver)
echo "RTC rtc0: device $dev, driver $drv"
fdclock-rtc /dev/rtcclock0 /dev/rtc0 -- sh -c "echo ${dev##*/} > $drv/unbind"

# Bound again, the RTC and its clock come back.
echo "${dev##*/}" > "$drv/bind"
rtc=$(rtc_of "$dev")
n=${rtc#rtc}
check "rtc: after the driver is bound again, /dev/$rtc and /dev/rtcclock$n work" \
	fdclock-rtc --only read "/dev/rtcclock$n" "/dev/$rtc"
# rtc_test N LABEL WHAT FDCLOCK_RTC_OPTION...: run fdclock-rtc on rtc-test.N.
rtc_test() {
	r=$(rtc_of /sys/bus/platform/devices/rtc-test.$1)
	echo "rtc-test.$1 ($3): ${r:-no RTC}"
	if [ -z "$r" ]; then
		echo "not ok - $2: rtc-test.$1 registers an RTC"
		return
	fi
	n=$1 label=$2
	shift 3
	fdclock-rtc --label "$label" "$@" "/dev/rtcclock${r#rtc}" "/dev/$r" \
		-- sh -c "echo rtc-test.$n > /sys/bus/platform/drivers/rtc-test/unbind"
}
if modprobe rtc-test; then
	rtc_test 0 rtc-noalarm "no alarm" --no-alarm
	rtc_test 1 rtc-test alarm --only order
	check "rtc: rtc-test unloads" rmmod rtc-test
else
	echo "not ok - rtc: modprobe rtc-test (CONFIG_RTC_DRV_TEST=m)"
fi
check "rtc: no kernel report" sh -c \
	"! dmesg | grep -E 'Oops|BUG:|WARNING:|KASAN:|general protection fault'"
