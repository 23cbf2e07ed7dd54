#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# hotplug.sh KIND [--suspend CASE] [QEMU_RUN_OPTION...]: the tests that need
# the host's hand, on kernel KIND.  Boots KIND with a QMP socket and runs
# tests/ptp/hotplug.sh (PCIe hot-unplug) and tests/ptp/suspend.sh (its
# cases s2idle and alarm) in it; with --suspend, only suspend.sh's CASE
# (QEMU sleeps in S3 only once per boot: one S3 case per boot).
# When the guest prints "<<<clockdev-ready ID>>>" (its readers hold the PHC
# of device ID open), sends QMP device_del ID; on "<<<clockdev-replug ID
# [MODEL]>>>" QMP device_add puts NIC ID, a MODEL (e1000e), back (hot-unplug
# cycles).  The hot-unplug guest has an e1000e (nic0) and, where QEMU
# emulates one, an igb (nic1).  A watchdog wakes a guest
# that stays suspended WATCHDOG_S (default 30) seconds (scripts/qmp.sh), and
# presses the power button of a guest still in suspend to idle 12 s after it
# went down (freeze_watchdog, scripts/qmp.sh).
# HOTPLUG_CYCLES (3) sets the unplug and replug cycles of hotplug.sh.
# The guest's TAP goes to stdout; the exit status is qemu/run's, or 122
# when the guest finished cleanly and its only failures were how soon the
# uses of an unplugged clock ended ("... within N ms (late: ...)"): a
# bound of time that a starved guest may miss (scripts/guests.sh boots it
# again, and a bound met only then is flaky).  Options are passed to
# qemu/run (e.g. --console-log FILE, --timeout SECONDS).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kind=${1:?usage: hotplug.sh KIND [--suspend CASE] [QEMU_RUN_OPTION...]}
shift
tests="hotplug.sh suspend.sh" case="s2idle alarm"
if [ "${1:-}" = --suspend ]; then
	tests=suspend.sh case=${2:?--suspend CASE}
	shift 2
fi
need_cmd socat socat
. "$top/scripts/qmp.sh"
qmp=$(mktemp -d /tmp/clockdev-qmp.XXXXXX)
sock=$qmp/sock
suspend_watchdog "${WATCHDOG_S:-30}" &
wd=$!
sw=
trap 'kill $wd $sw 2>/dev/null; rm -rf "$qmp"' EXIT

# qmp_device_del ID: unplug device ID; QMP's replies become TAP comments.
qmp_device_del() {
	qmp device_del "{\"id\":\"$1\"}" | sed 's/^/# qmp: /' ||
		echo "# qmp: device_del $1: socat failed"
}

# qmp_device_add ID [MODEL]: plug NIC ID (nicN, as qemu/run names them), a
# MODEL (e1000e by default), back into its root port rpN, on its backend
# netN, which outlive the device.
qmp_device_add() {
	local n=${1#nic} model=${2:-e1000e}
	qmp device_add "{\"driver\":\"$model\",\"id\":\"$1\",\"bus\":\"rp$n\",\"netdev\":\"net$n\"}" |
		sed 's/^/# qmp: /' || echo "# qmp: device_add $1: socat failed"
}

# unplug_when_ready: copy the guest's output; unplug the device named by a
# ready line, plug back the one named by a replug line.
unplug_when_ready() {
	local line id
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case $line in
		*"<<<clockdev-ready "*">>>"*)
			id=${line##*<<<clockdev-ready }
			qmp_device_del "${id%%>>>*}" ;;
		*"<<<clockdev-replug "*">>>"*)
			id=${line##*<<<clockdev-replug }
			# shellcheck disable=SC2086 # "ID [MODEL]"
			qmp_device_add ${id%%>>>*} ;;
		esac
	done
}

# watch_console FILE: follow the guest's kernel console (the kernel's own
# lines, which no frozen user space holds back); while the guest is in
# suspend to idle, run freeze_watchdog.
watch_console() {
	local line n=0
	tail -n +1 -F --pid=$$ "$1" 2>/dev/null | while IFS= read -r line; do
		case $line in
		*"PM: suspend entry (s2idle)"*)
			n=$((n + 1))
			echo "$n" > "$qmp/asleep"
			freeze_watchdog "$qmp/asleep" "$n" 12 & ;;
		*"PM: suspend exit"*)
			rm -f "$qmp/asleep" ;;
		esac
	done
}

# stall_watchdog CONSOLE OUT LIMIT: while neither the guest's console nor
# its output (OUT, this script's copy) grew for LIMIT seconds, say where its
# CPUs are: QMP query-status and, three times a second apart, each vCPU's
# instruction pointer (HMP "info registers"), with the kernel symbol it is
# in.  A guest that hangs silently (seen on the debug kernel beside seven
# other guests, after a hot-unplug) then leaves a trace in its TAP.  After
# the third such report in a row and LIMIT s more of silence it is hung: the
# watchdog says so, leaves the file hung beside OUT, injects an NMI (the
# guest panics and prints its state: see qemu/run --append below), quits
# QEMU, and the script ends as on a timeout (status 124) rather than
# waiting for it.
stall_watchdog() {
	local con=$1 out=$2 limit=$3 last= now map=$BUILD/$kind/System.map i
	local reports=0
	while sleep 10; do
		now=$(stat -c %s "$con" "$out" 2>/dev/null | tr '\n' ' ')
		if [ "$now" != "$last" ]; then
			last=$now since=$SECONDS reports=0
			continue
		fi
		[ $((SECONDS - since)) -ge "$limit" ] || continue
		if [ $reports -ge 3 ]; then
			echo "# stall: no output for $((4 * limit)) s: hung; an NMI to every vCPU makes it panic and print its tasks, timers, locks and backtraces to its console, then QEMU quits"
			: > "${out%/*}/hung"
			qmp inject-nmi > /dev/null
			# The dump is done when the console has not grown for
			# 5 s (the guest reboots, and QEMU exits, at its end).
			last= i=0 same=0
			while [ $i -lt 60 ] && [ $same -lt 5 ]; do
				sleep 1
				now=$(stat -c %s "$con")
				if [ "$now" = "$last" ]; then
					same=$((same + 1))
				else
					same=0
				fi
				last=$now i=$((i + 1))
			done
			qmp quit > /dev/null
			return
		fi
		reports=$((reports + 1))
		echo "# stall: no output for $limit s; $(qmp query-status | tail -n 1)"
		for i in 1 2 3; do
			qmp human-monitor-command '{"command-line":"info registers -a"}' |
				grep -o 'RIP=[0-9a-f]*' | sed 's/RIP=//' |
				while read -r rip; do
					echo "# stall: vCPU at $rip $(rip_symbol "$map" "$rip")"
				done
			sleep 1
		done
		since=$SECONDS
	done
}

# rip_symbol MAP ADDRESS: the symbol+offset of ADDRESS in System.map MAP.
rip_symbol() {
	[ -f "$1" ] || return 0
	awk -v a="$2" '
	# The low 32 bits: awk counts in doubles, and kernel text and modules
	# share the upper half (ffffffff........).
	function hex(s,   n, i, c) { n = 0; s = tolower(substr(s, length(s) - 7))
		for (i = 1; i <= length(s); i++) {
			c = index("0123456789abcdef", substr(s, i, 1)) - 1
			n = n * 16 + c
		}
		return n }
	BEGIN { t = hex(a) }
	$2 ~ /^[tTwW]$/ { v = hex($1); if (v <= t && v > best) { best = v; sym = $3 } }
	END { if (sym != "") printf "(%s+0x%x)", sym, t - best }' "$1"
}

conlog=
for ((i = 1; i < $#; i++)); do
	[ "${!i}" != --console-log ] || { j=$((i + 1)); conlog=${!j}; }
done
extra=()
[ -n "$conlog" ] || { conlog=$qmp/console; extra=(--console-log "$conlog"); }
: > "$conlog"
watch_console "$conlog" &

: > "$qmp/out"
stall_watchdog "$conlog" "$qmp/out" "${STALL_S:-120}" &
sw=$!

# The hot-unplug guest has an igb beside the e1000e where QEMU emulates one
# (8.0 and later): tests/ptp/hotplug.sh cycles both.
nics=()
if [ "$tests" != suspend.sh ] &&
   qemu-system-x86_64 -device help 2>/dev/null | grep -q '"igb"'; then
	nics=(--nic e1000e,igb)
fi

status=0
# A hung guest is told so by an NMI (stall_watchdog): then it panics and
# prints what it was waiting for (panic_print: tasks, timers, locks, every
# CPU's backtrace).
"$top/qemu/run" --kernel "$kind" --qmp "$sock" --append "unknown_nmi_panic panic_print=0x4d" \
	"${nics[@]}" "$@" "${extra[@]}" --payload "$top/tests/ptp" \
	-- env SUSPEND_CASE="$case" HOTPLUG_CYCLES="${HOTPLUG_CYCLES:-3}" \
	sh /payload/run.sh $tests |
	unplug_when_ready | tee -a "$qmp/out" || status=$?
kill $sw 2>/dev/null || true
[ ! -e "$qmp/hung" ] || status=124
if [ $status = 0 ] && tr -d '\r' < "$qmp/out" | grep -q '^not ok' &&
   ! tr -d '\r' < "$qmp/out" | grep '^not ok' |
	grep -qv ' ends with ENODEV within [0-9]* ms (late: [^()]*)$'; then
	status=122
fi
[ ${#extra[@]} = 0 ] || cat "$conlog" >&2
exit $status
