# SPDX-License-Identifier: GPL-2.0
# The dynamic-clock error table (tests/ptp/src/fdclock-errors.c) on the
# netdevsim mock PHC and on the e1000e PHC; each clock is then removed under
# its open descriptors (netdevsim del_device, PCI remove) and the stale
# descriptors are checked too.  Expectations follow $KIND.
. /payload/lib.sh
nsim_id=40
nsim_dev=/sys/devices/netdevsim$nsim_id

cleanup() {
	[ ! -e "$nsim_dev" ] || echo "$nsim_id" > /sys/bus/netdevsim/del_device
	echo 1 > /sys/bus/pci/rescan
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

# run_errors LABEL DEVICE REMOVE_CMD...: the whole table on one clock; its
# rows report themselves.
run_errors() {
	label=$1 dev=$2
	shift 2
	fdclock-errors --kernel "$KIND" --name "$label" "$dev" -- "$@"
}

if ! command -v fdclock-errors >/dev/null; then
	echo "not ok - errors: fdclock-errors is installed (rebuild the initramfs)"
	exit 0
fi

modprobe netdevsim && echo "$nsim_id 1" > /sys/bus/netdevsim/new_device
if dev=$(ptp_of_device "$nsim_dev"); then
	run_errors mock-phc "$dev" \
		sh -c "echo $nsim_id > /sys/bus/netdevsim/del_device"
else
	echo "not ok - errors: mock-phc: netdevsim registers a PHC"
fi

pci=$(readlink -f /sys/bus/pci/drivers/e1000e/0000:* 2>/dev/null | head -n 1)
if [ -n "$pci" ] && dev=$(ptp_of_device "$pci"); then
	run_errors e1000e "$dev" sh -c "echo 1 > $pci/remove"
	echo 1 > /sys/bus/pci/rescan
	check "errors: e1000e: PHC back after PCI rescan" ptp_of_device "$pci"
else
	echo "not ok - errors: e1000e: a PCI e1000e with a PHC is present"
fi
