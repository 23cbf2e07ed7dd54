#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# hotplug.sh KIND [QEMU_RUN_OPTION...]: the PCIe hot-unplug test on kernel
# KIND.  Boots KIND with a QMP socket and runs tests/ptp/hotplug.sh in it;
# when the guest prints "<<<clockdev-ready ID>>>" (its readers hold the PHC
# of device ID open), sends QMP device_del ID.  The guest's TAP goes to
# stdout; the exit status is qemu/run's.  Options are passed to qemu/run
# (e.g. --console-log FILE, --timeout SECONDS).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kind=${1:?usage: hotplug.sh KIND [QEMU_RUN_OPTION...]}
shift
need_cmd socat socat
qmp=$(mktemp -d /tmp/clockdev-qmp.XXXXXX)
trap 'rm -rf "$qmp"' EXIT
sock=$qmp/sock

# qmp_device_del ID: unplug device ID; QMP's replies become TAP comments.
qmp_device_del() {
	printf '%s\n' '{"execute":"qmp_capabilities"}' \
		"{\"execute\":\"device_del\",\"arguments\":{\"id\":\"$1\"}}" |
		socat -t 5 - UNIX-CONNECT:"$sock" | sed 's/^/# qmp: /' ||
		echo "# qmp: device_del $1: socat failed"
}

# unplug_when_ready: copy the guest's output; unplug the device named by a
# ready line.
unplug_when_ready() {
	local line id
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case $line in
		*"<<<clockdev-ready "*">>>"*)
			id=${line##*<<<clockdev-ready }
			qmp_device_del "${id%%>>>*}" ;;
		esac
	done
}

"$top/qemu/run" --kernel "$kind" --qmp "$sock" "$@" --payload "$top/tests/ptp" \
	-- sh /payload/run.sh "$kind" /payload/hotplug.sh | unplug_when_ready
