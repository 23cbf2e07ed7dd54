# SPDX-License-Identifier: GPL-2.0
# Guest side of 'make demo'.
echo "kernel: $(uname -r)"
ip link set eth0 up 2>/dev/null
for c in /sys/class/ptp/ptp*; do
	[ -e "$c" ] || continue
	d=/dev/${c##*/}
	echo
	echo "== $d: $(cat "$c/clock_name")"
	echo "   max_adjustment $(cat "$c/max_adjustment") ppb, alarms $(cat "$c/n_alarms"), external timestamps $(cat "$c/n_external_timestamps"), periodic outputs $(cat "$c/n_periodic_outputs"), pins $(cat "$c/n_programmable_pins")"
	echo "   read through its fd clockid (phc_ctl get):"
	phc_ctl "$d" get | sed 's/^/     /'
done
echo
echo "ethtool -T eth0:"
ethtool -T eth0 | sed 's/^/  /'
