# SPDX-License-Identifier: GPL-2.0
# Guest A of scripts/link.sh: a simulated PHC, the system clock locked to
# it by phc2sys, and ptp4l serving the system clock as master on the link.
# Arms a timer on the PHC at every multiple of PERIOD s until the slave
# says it is done.
. /payload/link/common.sh
link_start master 10.87.0.1
pa=$(new_phc 50) || { echo "ok - link: master # SKIP no ptp_sim on this kernel"; exit 0; }
# +50 ppm: the slave's side must follow a clock that is not the host's.
phc_ctl "$pa" set freq 50000 > "$tmp/ctl" 2>&1 ||
	{ echo "not ok - link: master: phc_ctl $pa set freq 50000"; sed 's/^/  /' "$tmp/ctl"; exit 1; }
phc2sys -s "$pa" -c CLOCK_REALTIME -O 0 -R 4 -m -q > "$tmp/p2s" 2>&1 &
pids="$pids $!"
if wait_log "$tmp/p2s" " s2 " 60; then
	echo "ok - link: master: phc2sys locks the system clock to the PHC (s2)"
else
	echo "not ok - link: master: phc2sys locks the system clock to the PHC (s2)"
	sed 's/^/  /' "$tmp/p2s" | tail -n 10
fi
busybox nc -l -p 5000 > "$tmp/done" &
nc=$!
# shellcheck disable=SC2086
ptp4l -i "$l" $PTP4L_OPTS --priority1 100 > "$tmp/ptp4l" 2>&1 &
pids="$pids $!"
if wait_log "$tmp/ptp4l" "assuming the grand master role" 60; then
	echo "ok - link: master: ptp4l is the grand master"
else
	echo "not ok - link: master: ptp4l is the grand master"
	sed 's/^/  /' "$tmp/ptp4l" | tail -n 10
fi
# Straight to stdout: the host stamps the lines as they come.
expiries "$pa" A 100000 &
pids="$pids $!"
wait $nc
echo "# the slave says: $(cat "$tmp/done")"
echo "# phc2sys: $(tail -n 1 "$tmp/p2s")"
