# SPDX-License-Identifier: GPL-2.0
# RTC clocks (tests/ptp/src/fdclock-rtc.c): /dev/rtcclock0 read, set and
# armed through its fd clockid, the permission table, timers from two
# processes, steps through /dev/rtc0, then the RTC's driver unbound under
# armed timers and bound again.  Mainline has no RTC clocks.
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
rtc=$(ls -d "$dev"/rtc/rtc* 2>/dev/null | head -n 1)
rtc=${rtc##*/}
n=${rtc#rtc}
check "rtc: after the driver is bound again, /dev/$rtc and /dev/rtcclock$n work" \
	fdclock-rtc --only read "/dev/rtcclock$n" "/dev/$rtc"
check "rtc: no kernel report" sh -c \
	"! dmesg | grep -E 'Oops|BUG:|WARNING:|KASAN:|general protection fault'"
