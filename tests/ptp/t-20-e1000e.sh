# SPDX-License-Identifier: GPL-2.0
# The e1000e PHC registers and answers linuxptp and testptp.
. /payload/lib.sh
ip link set eth0 up 2>/dev/null
check "e1000e: /dev/ptp0 exists" test -c /dev/ptp0
check "e1000e: ethtool -T reports PTP Hardware Clock 0" \
	sh -c 'ethtool -T eth0 | grep -E "PTP Hardware Clock: 0"'
# Mainline names it before register_netdev() copies the address into
# perm_addr: "000000000000" (fixed in the series).
check "e1000e: its clock is named after its MAC address" sh -c \
	'[ "$(cat /sys/class/ptp/ptp0/clock_name)" = "$(tr -d : < /sys/class/net/eth0/address)" ]'
check "e1000e: phc_ctl get" phc_ctl /dev/ptp0 get
# Set and read back in one phc_ctl: a PHC that ticks (QEMU 8 and later,
# the e1000e's at 5/2) has moved on by the time a second process starts
# on a slow guest (6 s between two phc_ctl on the debug kernel).
check "e1000e: phc_ctl set 1000000" sh -c \
	'phc_ctl /dev/ptp0 set 1000000 get | awk "/clock time is/ { t = \$5 } END { exit !(t >= 1000000 && t < 1000005) }"'
check "e1000e: phc_ctl freq 100" phc_ctl /dev/ptp0 freq 100
check "e1000e: testptp -c" $SELFTESTS/ptp/testptp -d /dev/ptp0 -c
check "e1000e: testptp -g" $SELFTESTS/ptp/testptp -d /dev/ptp0 -g
check "e1000e: testptp -k 5" $SELFTESTS/ptp/testptp -d /dev/ptp0 -k 5
