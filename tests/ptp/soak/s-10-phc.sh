# SPDX-License-Identifier: GPL-2.0
# The kernel's ptp/phc.sh (settime, adjtime, adjfreq: ~220 s) on every PHC,
# all clocks at once: the netdevsim mock PHC, the e1000e one (whose clock
# does not tick under QEMU 7.2, so its settime and adjfreq fail on every
# kernel; under QEMU 10 it runs at 5/2, which phc.sh's adjfreq check may
# not accept either) and any the kernel under test adds.
. /payload/lib.sh
nsim_id=10
tmp=$(mktemp -d)
cleanup() {
	[ ! -e /sys/devices/netdevsim$nsim_id ] ||
		echo $nsim_id > /sys/bus/netdevsim/del_device
	rm -rf "$tmp"
}
trap cleanup EXIT

# clock_label PTP_CLASS_DIR: a name for the clock that is the same on every
# kernel: its parent's driver, else its clock_name.
clock_label() {
	drv=$(readlink "$1/device/driver" 2>/dev/null) && { echo "${drv##*/}"; return; }
	tr ' ' '-' < "$1/clock_name"
}

ip link set eth0 up 2>/dev/null
modprobe netdevsim && echo "$nsim_id 1" > /sys/bus/netdevsim/new_device ||
	echo "not ok - phc.sh: netdevsim mock PHC created"
for c in /sys/class/ptp/ptp*; do
	[ -e "$c" ] || continue
	label=$(clock_label "$c")
	echo "phc.sh /dev/${c##*/}: $label"
	bash "$SELFTESTS/ptp/phc.sh" "/dev/${c##*/}" > "$tmp/$label" 2>&1 &
done
wait
for f in "$tmp"/*; do
	label=${f##*/}
	sed 's/^/  /' "$f"
	if grep -q '^SKIP' "$f"; then
		echo "ok - phc.sh: $label # SKIP $(grep '^SKIP' "$f" | head -n 1)"
		continue
	fi
	sed -n 's/^TEST: \([a-z]*\) .*\[ OK \]$/ok - phc.sh: '"$label"': \1/p
		s/^TEST: \([a-z]*\) .*\[FAIL\]$/not ok - phc.sh: '"$label"': \1/p' "$f"
	grep -q '^TEST: ' "$f" || echo "not ok - phc.sh: $label: ran its tests"
done
