# SPDX-License-Identifier: GPL-2.0
# PCIe hot-unplug of the e1000e NIC nic0 while its PHC is open and in use,
# and of the igb NIC nic1 where the guest has one (QEMU 8 and later).
# Run by scripts/hotplug.sh, which boots the guest with a QMP socket (not one
# of the t-*.sh: it needs the host to unplug the device).
#
# Three readers hold the clock open: the clockdev tool reading the time
# through the fd clockid in a loop, the clockdev tool asking for the
# clock's resolution and capabilities (clock_getres, PTP_CLOCK_GETCAPS, and
# whether it takes timers: timer_create) in
# a loop, and dd reading one struct ptp_extts_event (32 bytes), which
# blocks as no event comes.  (Not phc_ctl: its "wait" arms setitimer()
# then calls pause(), and a SIGALRM that comes before pause() is lost, so
# a reader whose vCPU is descheduled for the wait's 100 ms between the two
# sleeps forever: the debug kernel's hot-unplug guest, at a low priority
# beside eight others, hung so, all tasks asleep, phc_ctl in pause().)
# Once all three have the clock, the line "<<<clockdev-ready nic0>>>" asks
# the host to send QMP device_del nic0.
# Then every reader must get ENODEV on the descriptor it holds, and the
# class device, the device node and the PCI function must go away.
. /payload/lib.sh
period=0.1	# pace of the reader loops
loops=900	# the loops end by themselves after ~90 s if no unplug comes
gone_timeout=20	# seconds for the PHC to vanish once its readers saw ENODEV

tmp=$(mktemp -d)
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

# ptp_of_device SYSFS_DEVICE: print the ptpN whose parent is that device.
ptp_of_device() {
	for c in /sys/class/ptp/ptp*; do
		if [ "$(readlink -f "$c/device")" = "$1" ]; then
			echo "${c##*/}"
			return 0
		fi
	done
	return 1
}

# start_reader NAME CMD...: run CMD in the background, its output in
# $tmp/NAME.log; return once CMD printed its first line (it has the clock
# open and used it once), fail if it printed nothing within 30 s.
start_reader() {
	name=$1
	shift
	mkfifo "$tmp/$name.fifo"
	"$@" > "$tmp/$name.fifo" 2>&1 &
	pids="$pids $!"
	exec 3< "$tmp/$name.fifo"
	if ! IFS= read -t 30 -r first <&3; then
		exec 3<&-
		echo "$name: no output within 30 s"
		return 1
	fi
	printf '%s\n' "$first" > "$tmp/$name.log"
	cat <&3 >> "$tmp/$name.log" &
	exec 3<&-
	printf '%s\n' "$first" | grep -qv 'failed\|rror'
}

# vanishes PATH: wait up to $gone_timeout s for PATH to disappear.
vanishes() {
	i=0
	while [ -e "$1" ]; do
		[ $i -lt $((gone_timeout * 10)) ] || return 1
		i=$((i + 1))
		sleep 0.1
	done
}

# vanish PATH...: vanishes, for each PATH.
vanish() {
	for p in "$@"; do
		vanishes "$p" || return 1
	done
}

# show NAME: the first and the last lines of a reader's log.
show() {
	sed -n '1p;$p' "$tmp/$1.log" | sed "s/^/$1: /"
}

pci=$(readlink -f /sys/bus/pci/drivers/e1000e/0000:* 2>/dev/null | head -n 1)
if [ -z "$pci" ] || ! ptp=$(ptp_of_device "$pci"); then
	echo "not ok - hotplug: nic0 is an e1000e with a PHC"
	exit 0
fi
dev=/dev/$ptp
echo "nic0: PCI $pci, PHC $dev"

gets='' caps=''
for i in $(seq $loops); do
	gets="$gets get wait $period"
	caps="$caps caps wait $period"
done
# shellcheck disable=SC2086,SC2016 # lists split on purpose; $1 is sh -c's
if start_reader get clockdev "$dev" $gets &&
   start_reader caps clockdev "$dev" $caps &&
   start_reader read sh -c 'exec < "$1" && echo "open $1" &&
	timeout 60 dd bs=32 count=1 of=/dev/null; echo "dd status $?"' sh "$dev"; then
	echo "ok - hotplug: three readers hold $dev open and use it"
else
	echo "not ok - hotplug: three readers hold $dev open and use it"
	exit 0
fi

echo "<<<clockdev-ready nic0>>>"

# The readers end by themselves: the clockdev loops at their first failed
# command, dd when its read() returns.
wait
show get
show caps
sed 's/^/read: /' "$tmp/read.log"
check "hotplug: clock_gettime() on the fd clockid of the removed clock fails with ENODEV" \
	grep -q 'clockdev: clock_gettime on .*(ENODEV)' "$tmp/get.log"
# caps also probes timer_create: the removal may come between its calls.
check "hotplug: clock_getres(), PTP_CLOCK_GETCAPS or timer_create on the removed clock fails with ENODEV" \
	grep -qE 'clockdev: (clock_getres|PTP_CLOCK_GETCAPS2?|timer_create) on .*\(ENODEV\)' "$tmp/caps.log"
check "hotplug: read() on the removed clock fails with ENODEV" \
	sh -c "grep -q 'No such device' $tmp/read.log && grep -qx 'dd status 1' $tmp/read.log"
check "hotplug: /sys/class/ptp/$ptp is removed" vanishes "/sys/class/ptp/$ptp"
check "hotplug: $dev is removed" vanishes "$dev"
check "hotplug: the e1000e PCI function is removed" vanishes "$pci"

# Cycles: "<<<clockdev-replug NIC DRIVER>>>" asks the host to plug the
# NIC back (QMP device_add); its new PHC must work, then unplug (a
# clockdev selftest program) holds it in every way user space can and
# asks for the removal again, and times how each use learns of it.
# HOTPLUG_CYCLES=N (3; 'make soak': 50).
cycles=${HOTPLUG_CYCLES:-3}
unplug=$KSFT/clockdev/unplug
# new_nic DRIVER: wait up to 60 s for a PCI function bound to DRIVER with
# a PHC; set pci and dev.
new_nic() {
	i=0
	while [ $i -lt 600 ]; do
		pci=$(readlink -f /sys/bus/pci/drivers/"$1"/0000:* 2>/dev/null | head -n 1)
		if [ -n "$pci" ] && ptp=$(ptp_of_device "$pci"); then
			dev=/dev/$ptp
			[ -c "$dev" ] && return 0
		fi
		i=$((i + 1))
		sleep 0.1
	done
	return 1
}
# unplug_cycle NAME NIC: unplug holds $dev in every way and asks for the
# removal of NIC; the PCI function and the node must go.  False if unplug
# is missing.
unplug_cycle() {
	if [ ! -x "$unplug" ]; then
		echo "not ok - $1: $unplug is installed"
		return 1
	fi
	"$unplug" --clock "$dev" --name "${1#hotplug: }" --ready-fd 3 \
		--ready "<<<clockdev-ready $2>>>" 3>&1 > "$tmp/unplug" 2>&1
	cat "$tmp/unplug"
	check "$1: the PCI function and $dev are removed" vanish "$pci" "$dev"
}
# replug NAME NIC DRIVER: ask for NIC back; its new PHC must answer.
replug() {
	echo "<<<clockdev-replug $2 $3>>>"
	if ! new_nic "$3"; then
		echo "not ok - $1: $2 comes back with a PHC"
		return 1
	fi
	echo "ok - $1: $2 comes back with a PHC"
	echo "$2: PCI $pci, PHC $dev"
	check "$1: the PHC of the new $2 answers" phc_ctl -q "$dev" get caps
}
c=1
while [ $c -le "$cycles" ]; do
	replug "hotplug: cycle $c" nic0 e1000e || break
	unplug_cycle "hotplug: cycle $c" nic0 || break
	c=$((c + 1))
done

# The igb (nic1): the same cycles, from a NIC that is there; it is left
# plugged in.
if ! grep -qx 0x10c9 /sys/bus/pci/devices/*/device 2>/dev/null; then
	echo "ok - hotplug: igb: nic1 is an igb with a PHC # SKIP no 82576 (igb) in this guest (QEMU before 8)"
	exit 0
fi
if ! new_nic igb; then
	echo "not ok - hotplug: igb: nic1 is an igb with a PHC"
	exit 0
fi
echo "ok - hotplug: igb: nic1 is an igb with a PHC"
echo "nic1: PCI $pci, PHC $dev"
c=1
while [ $c -le "$cycles" ]; do
	unplug_cycle "hotplug: igb: cycle $c" nic1 || break
	replug "hotplug: igb: cycle $c" nic1 igb || break
	c=$((c + 1))
done
