# SPDX-License-Identifier: GPL-2.0
# Whether QEMU's NICs timestamp PTP packets: a characterisation, not a
# test (make check does not run it).  In a guest booted with two NICs on
# one hub,
#	qemu/run --smp 1 --nic igb,igb --hub --payload tests/ptp -- \
#		sh nic-ptp-timestamps.sh
# ptp4l (layer 2, hardware timestamps) runs a master on eth0 and a slave
# that does not steer its clock (free_running) on eth1, for DURATION
# seconds (20), and this prints what each got: transmit timestamps
# (ptp4l's "timed out while polling for tx timestamp" when none came),
# receive timestamps ("received SYNC without timestamp"), offsets.
# (Layer 2: the guest has no network namespaces, and over UDP the
# slave's interface drops packets from an address of its own host.)
. /payload/lib.sh
duration=${DURATION:-20}
tmp=$(mktemp -d)
trap 'kill $pids 2>/dev/null; rm -rf "$tmp"' EXIT
for i in 0 1; do
	ip link set eth$i up || exit 1
	echo "eth$i: $(readlink -f /sys/class/net/eth$i/device/driver | sed 's|.*/||'), PHC $(ls /sys/class/net/eth$i/device/ptp 2>/dev/null)"
	printf '[global]\nuds_address %s/uds%s\ntx_timestamp_timeout 200\n' "$tmp" $i > "$tmp/$i.cfg"
done
printf 'free_running 1\nslaveOnly 1\n' >> "$tmp/1.cfg"
ptp4l -2 -i eth0 -f "$tmp/0.cfg" -m > "$tmp/master" 2>&1 &
pids=$!
ptp4l -2 -i eth1 -f "$tmp/1.cfg" -m > "$tmp/slave" 2>&1 &
pids="$pids $!"
sleep "$duration"
kill $pids
wait 2>/dev/null
for r in master slave; do
	echo "$r: $(grep -c 'timed out while polling for tx timestamp' "$tmp/$r") transmit timestamps missed," \
	     "$(grep -c 'without timestamp' "$tmp/$r") packets received without a timestamp," \
	     "$(grep -c 'master offset' "$tmp/$r") offsets"
done
for i in 0 1; do
	echo "eth$i: $(ethtool -S eth$i 2>/dev/null | grep -i 'tx_hwtstamp_timeouts' | tr -s ' ')"
done
sed 's/^/master: /' "$tmp/master"
sed 's/^/slave: /' "$tmp/slave"
