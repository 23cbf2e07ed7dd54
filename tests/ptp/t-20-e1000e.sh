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
check "e1000e: phc_ctl set 1000000" sh -c \
	'phc_ctl /dev/ptp0 set 1000000 && phc_ctl /dev/ptp0 get | grep -E "clock time is 1000000\."'
check "e1000e: phc_ctl freq 100" phc_ctl /dev/ptp0 freq 100
check "e1000e: testptp -c" $SELFTESTS/ptp/testptp -d /dev/ptp0 -c
check "e1000e: testptp -g" $SELFTESTS/ptp/testptp -d /dev/ptp0 -g
check "e1000e: testptp -k 5" $SELFTESTS/ptp/testptp -d /dev/ptp0 -k 5
