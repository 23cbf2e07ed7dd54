# SPDX-License-Identifier: GPL-2.0
# POSIX timers, timerfd and clock_nanosleep() on dynamic clocks
# (tests/ptp/src/fdclock-timers.c): the whole table on a ptp_sim clock,
# which is removed at the end under armed timers and a sleeper, then the
# rows for a clock that does not advance on QEMU's e1000e PHC.  Mainline
# has no timers on dynamic clocks: nothing runs there.
. /payload/lib.sh
BUS=/sys/bus/ptp_sim
sim_id=70

if [ "$KIND" = mainline ]; then
	echo "ok - timers: dynamic clock timers # SKIP mainline has no timers on dynamic clocks"
	exit 0
fi
if ! command -v fdclock-timers >/dev/null; then
	echo "not ok - timers: fdclock-timers is installed (rebuild the initramfs)"
	exit 0
fi

cleanup() {
	[ ! -d $BUS/devices/ptp_sim$sim_id ] || echo $sim_id > $BUS/del_device
}
trap cleanup EXIT

# ptp_of_device SYSFS_DEVICE: print the /dev/ptpN whose parent is that device.
ptp_of_device() {
	for c in /sys/class/ptp/ptp*; do
		if [ "$(readlink -f "$c/device")" = "$1" ]; then
			echo "/dev/${c##*/}"
			return 0
		fi
	done
	return 1
}

# no_kernel_report: the kernel log has no oops, BUG, WARNING or KASAN report.
no_kernel_report() {
	! dmesg | grep -E 'Oops|BUG:|WARNING:|KASAN:|general protection fault'
}

# The debug kernel's checkers stretch the clock reads that timer_gettime's
# prediction comes from: a wider tolerance there (fdclock-timers --slow).
slow=
[ "$KIND" != debug ] || slow=--slow

modprobe ptp_sim 2>/dev/null || true
if [ -d $BUS ] && echo $sim_id > $BUS/new_device; then
	dev=/dev/$(ls $BUS/devices/ptp_sim$sim_id/ptp)
	fdclock-timers --name ptp_sim $slow "$dev" -- \
		sh -c "echo $sim_id > $BUS/del_device"
	check "timers: ptp_sim: no kernel report after the removal" \
		no_kernel_report
else
	echo "not ok - timers: ptp_sim: a ptp_sim instance (ptp_sim is part of the series)"
fi

pci=$(readlink -f /sys/bus/pci/drivers/e1000e/0000:* 2>/dev/null | head -n 1)
if [ -n "$pci" ] && dev=$(ptp_of_device "$pci"); then
	fdclock-timers --name e1000e $slow --stalled "$dev"
else
	echo "not ok - timers: e1000e: a PCI e1000e with a PHC is present"
fi
