# SPDX-License-Identifier: GPL-2.0
# Guest B of scripts/link.sh: ptp4l slave on the link steering the system
# clock, a simulated PHC locked to the system clock by phc2sys, then
# COUNT timers on the PHC at the multiples of PERIOD s the master uses.
. /payload/link/common.sh
COUNT=${1:-6}
link_start slave 10.87.0.2
# shellcheck disable=SC2086
ptp4l -i "$l" $PTP4L_OPTS -s > "$tmp/ptp4l" 2>&1 &
pids="$pids $!"
if wait_log "$tmp/ptp4l" "UNCALIBRATED to SLAVE" 180; then
	echo "ok - link: slave: ptp4l reaches SLAVE over the link"
else
	echo "not ok - link: slave: ptp4l reaches SLAVE over the link"
	sed 's/^/  /' "$tmp/ptp4l" | tail -n 20
fi
pb=$(new_phc 51) || { echo "ok - link: slave # SKIP no ptp_sim on this kernel"; exit 0; }
phc_ctl "$pb" set > "$tmp/ctl" 2>&1 ||
	{ echo "not ok - link: slave: phc_ctl $pb set"; sed 's/^/  /' "$tmp/ctl"; }
phc2sys -s CLOCK_REALTIME -c "$pb" -O 0 -R 4 -m -q > "$tmp/p2s" 2>&1 &
pids="$pids $!"
if wait_log "$tmp/p2s" " s2 " 60; then
	echo "ok - link: slave: phc2sys locks the PHC to the system clock (s2)"
else
	echo "not ok - link: slave: phc2sys locks the PHC to the system clock (s2)"
	sed 's/^/  /' "$tmp/p2s" | tail -n 10
fi
if expiries "$pb" B "$COUNT"; then
	echo "ok - link: slave: $COUNT timers on the PHC at multiples of $PERIOD s"
else
	echo "not ok - link: slave: $COUNT timers on the PHC at multiples of $PERIOD s"
fi
# ptp4l's own view once in SLAVE: its last RMS_N one-second summaries all
# under RMS_NS (software timestamps through two TCG guests: 0.3-0.8 ms
# measured; a slave whose system clock is not steered reads 100-600 ms).
RMS_N=3 RMS_NS=5000000
rms=$(grep " rms " "$tmp/ptp4l" | tail -n $RMS_N | awk '{ for (i = 1; i < NF; i++) if ($i == "rms") print $(i + 1) }')
if [ "$(echo "$rms" | grep -c .)" = $RMS_N ] &&
   echo "$rms" | awk -v b=$RMS_NS '$1 > b { bad = 1 } END { exit bad }'; then
	echo "ok - link: slave: ptp4l's offset from the master, rms of its last $RMS_N summaries under $((RMS_NS / 1000)) us ($(echo $rms | tr ' ' ',') ns)"
else
	echo "not ok - link: slave: ptp4l's offset from the master, rms of its last $RMS_N summaries under $((RMS_NS / 1000)) us ($(echo $rms | tr ' ' ',') ns)"
fi
echo "# ptp4l: $(grep " rms " "$tmp/ptp4l" | tail -n 1)"
grep -E "selected|failed|jump|clock" "$tmp/ptp4l" | grep -v " rms " | head -n 20 | sed 's/^/# ptp4l: /'
echo "# phc2sys: $(tail -n 1 "$tmp/p2s")"
echo done | busybox nc 10.87.0.1 5000
