# SPDX-License-Identifier: GPL-2.0
# Shared by the two guests of scripts/link.sh (sourced).
IP=/usr/sbin/ip
BUS=/sys/bus/ptp_sim
PERIOD=5		# s of PHC time between the expiries both guests arm
# ptp4l: messages faster than the defaults so that the servo settles in
# seconds; no frequency sanity check (a TCG guest's clock is noisy).
PTP4L_OPTS="-S -2 -m -q --logSyncInterval -2 --logAnnounceInterval -2
	--announceReceiptTimeout 2 --logMinDelayReqInterval -2
	--sanity_freq_limit 0 --step_threshold 0.005
	--uds_address /run/ptp4l"

# link_if: the NIC wired to the other guest, the virtio-net one (qemu/run
# --link; the others are e1000e)
link_if() {
	for n in /sys/class/net/*; do
		[ "$(basename "$(readlink "$n/device/driver" 2>/dev/null)")" != virtio_net ] ||
			basename "$n"
	done | head -n 1
}

# link_start ROLE ADDR: a scratch directory $tmp and the processes in $pids
# (and any clockdev) cleaned up at exit; the link NIC $l up as ADDR/24
link_start() {
	tmp=$(mktemp -d)
	pids=
	trap 'kill $pids 2>/dev/null; pkill clockdev 2>/dev/null; rm -rf "$tmp"' EXIT
	l=$(link_if)
	$IP link set "$l" up && $IP addr add "$2/24" dev "$l" ||
		{ echo "not ok - link: $1: $l configured"; exit 1; }
}

# new_phc ID: make ptp_sim instance ID, print its /dev/ptpN
new_phc() {
	modprobe ptp_sim 2>/dev/null
	[ -d $BUS ] || return 1
	echo "$1" > $BUS/new_device || return 1
	echo "/dev/$(ls $BUS/devices/ptp_sim$1/ptp)"
}

# wait_log FILE PATTERN SECONDS: wait until FILE holds PATTERN
wait_log() {
	n=0
	while [ $n -lt $(($3 * 4)) ]; do
		grep -q "$2" "$1" 2>/dev/null && return 0
		n=$((n + 1))
		busybox usleep 250000
	done
	return 1
}

# expiries PHC LABEL COUNT: COUNT times, sleep until the next multiple of
# PERIOD s of PHC time (at least a second ahead) and print
# "<<<link-expiry LABEL T LATE_NS>>>" at once: the host stamps the line.
expiries() {
	k=0
	while [ $k -lt "$3" ]; do
		now=$(clockdev --json "$1" get | jq -r '.ns') || return 1
		t=$(( (now / 1000000000 + 1 + PERIOD) / PERIOD * PERIOD ))
		out=$(clockdev --json "$1" wait-until "$t") || { echo "$out"; return 1; }
		echo "<<<link-expiry $2 $t $(echo "$out" | jq -r '.late_ns')>>>"
		k=$((k + 1))
	done
}
