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

# freeze_watchdog FILE N LIMIT: the guest went into suspend to idle (its N-th
# time), and FILE holds N while it sleeps.  QEMU's guest stays "running" in
# s2idle and QMP system_wakeup does nothing there; if FILE still holds N
# after LIMIT seconds, press the guest's power button (QMP system_powerdown,
# an ACPI event that ends s2idle) and say so; if the guest is still asleep
# 60 s later, it never woke: fail and stop it.
freeze_watchdog() {
	local waited=0
	sleep "$3"
	[ "$(cat "$1" 2>/dev/null)" = "$2" ] || return 0
	echo "# watchdog: the guest is still in suspend to idle $3 s after it went down: pressing its power button (QMP system_powerdown)"
	qmp system_powerdown > /dev/null || true
	while [ $waited -lt 60 ]; do
		sleep 1; waited=$((waited + 1))
		[ "$(cat "$1" 2>/dev/null)" = "$2" ] || return 0
	done
	echo "not ok - suspend: watchdog: the guest stayed in suspend to idle, not even its power button woke it"
	qmp quit > /dev/null || true
}
