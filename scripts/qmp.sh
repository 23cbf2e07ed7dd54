# SPDX-License-Identifier: GPL-2.0
# QMP helpers for guests booted with qemu/run --qmp "$sock"; sourced.
# shellcheck shell=bash

# qmp COMMAND [ARGUMENTS_JSON]: send one QMP command; print QEMU's replies.
qmp() {
	local cmd="{\"execute\":\"$1\"${2:+,\"arguments\":$2}}"
	printf '%s\n' '{"execute":"qmp_capabilities"}' "$cmd" |
		socat -t 5 - UNIX-CONNECT:"$sock" 2>/dev/null
}

# suspend_watchdog LIMIT: ask QEMU for the guest's run state every second;
# wake a guest suspended for LIMIT seconds with QMP system_wakeup, and print
# a failure: a timer that fails to wake the guest fails the run instead of
# hanging it.
# Runs until killed.
suspend_watchdog() {
	local since=
	while sleep 1; do
		[ -S "$sock" ] || continue
		if qmp query-status | grep -q '"status": *"suspended"'; then
			since=${since:-$SECONDS}
			if [ $((SECONDS - since)) -ge "$1" ]; then
				echo "not ok - suspend: watchdog: the guest stayed suspended $1 s, nothing woke it (QMP system_wakeup)"
				qmp system_wakeup > /dev/null || true
				since=
			fi
		else
			since=
		fi
	done
}
