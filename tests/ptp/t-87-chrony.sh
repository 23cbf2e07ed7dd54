# SPDX-License-Identifier: GPL-2.0
# chrony on a dynamic clock, as NTP users run it: chronyd with a simulated
# PHC as its only reference clock (refclock PHC, read 4 times a second
# through the PHC's ioctls, one sample a second):
# - it selects the PHC ("#*" in chronyc sources) within SELECT s;
# - the PHC, set to the system time and made FREQ ppm fast, the system
#   clock at its nominal rate, is measured so: chronyc tracking says the
#   system clock is FREQ ppm slow, within FREQ_TOL (chronyd runs with -x:
#   it only measures, the system clock stays as it is, so the figure
#   stays the PHC's).
# Measured on a quiet host (TCG, 2 cores): selected 3 s after chronyd
# started, 50.000 ppm slow at once; the bounds allow for a busy host.
. /payload/lib.sh
BUS=/sys/bus/ptp_sim
ID=87			# the ptp_sim instance ID used here
SELECT=60		# s, chronyd starting to the PHC selected
SETTLE=30		# s, then to the frequency measured
FREQ=50			# ppm, the PHC's frequency offset
FREQ_TOL=1		# ppm
RUN=/run/chrony		# chronyd's socket directory, chronyc's default
tmp=$(mktemp -d)
chronyd_pid=
made_run=

cleanup() {
	if [ -n "$chronyd_pid" ]; then
		kill "$chronyd_pid" 2>/dev/null
		wait "$chronyd_pid" 2>/dev/null
	fi
	sim_del $ID
	[ -z "$made_run" ] || rm -rf $RUN
	rm -rf "$tmp"
}
trap cleanup EXIT

alive() { kill -0 "$chronyd_pid" 2>/dev/null; }

# show: what chronyd and chronyc said, indented
show() {
	echo "  chronyc -n sources:"
	chronyc -n sources 2>&1 | sed 's/^/    /'
	echo "  chronyc -n sourcestats:"
	chronyc -n sourcestats 2>&1 | sed 's/^/    /'
	echo "  chronyc -n tracking:"
	chronyc -n tracking 2>&1 | sed 's/^/    /'
	alive || echo "  chronyd is no longer running"
	echo "  chronyd's log:"
	sed 's/^/    /' "$tmp/log" | tail -n 20
}

# uptime_cs: the uptime in hundredths of a second
uptime_cs() { awk '{ sub(/\./, "", $1); print $1 + 0 }' /proc/uptime; }

# tracking_ppm: chronyc tracking's Frequency, in ppm, positive when the
# system clock is slow of the reference (the PHC fast), e.g. "50.000"
tracking_ppm() {
	chronyc -n tracking 2>/dev/null | awk '
		$1 == "Frequency" { v = $3; if ($5 == "fast") v = -v; print v }'
}

modprobe ptp_sim 2>/dev/null
if [ ! -d $BUS ]; then
	echo "ok - chrony: chronyd selects a ptp_sim PHC as its reference clock # SKIP no ptp_sim on this kernel"
	echo "ok - chrony: chronyd measures the PHC's frequency offset, +$FREQ ppm # SKIP no ptp_sim on this kernel"
	exit 0
fi
echo $ID > $BUS/new_device || {
	echo "not ok - chrony: chronyd selects a ptp_sim PHC as its reference clock: new_device failed"
	exit 0
}
dev=/dev/$(ls $BUS/devices/ptp_sim$ID/ptp)
phc_ctl "$dev" set freq $((FREQ * 1000)) > "$tmp/ctl" 2>&1 || {
	echo "not ok - chrony: chronyd selects a ptp_sim PHC as its reference clock: phc_ctl set failed"
	sed 's/^/  /' "$tmp/ctl"
	exit 0
}

# ptp_sim counts from CLOCK_MONOTONIC_RAW and chronyd measures it against
# CLOCK_REALTIME, whose frequency an earlier test of the guest may have left
# steered (ptp4l's slave in t-86 steers it): back to nominal, so that the
# figure is the PHC's alone.
was=$(adjtimex | awk '/freq.adjust:/ { print $3 }')
if [ "${was:-0}" != 0 ]; then
	echo "  the system clock's frequency was $(awk -v f="$was" 'BEGIN { printf "%+.3f", f / 65536 }') ppm: set to 0"
	adjtimex -q -f 0
fi

# chronyd refuses a socket directory that others may read; no UDP command
# port (chronyc, as root, talks through the socket), no driftfile.
if [ ! -d $RUN ]; then
	mkdir -p $RUN
	made_run=1
fi
chmod 750 $RUN
cat > "$tmp/chrony.conf" <<EOF
refclock PHC $dev poll 0 dpoll -2 refid SIM
cmdport 0
pidfile $RUN/chronyd-t87.pid
EOF
sed 's/^/  chrony.conf: /' "$tmp/chrony.conf"

t0=$(uptime_cs)
chronyd -x -d -u root -f "$tmp/chrony.conf" > "$tmp/log" 2>&1 &
chronyd_pid=$!

# --- the PHC selected ------------------------------------------------------
until chronyc -n sources 2>/dev/null | grep -q '^#\* SIM ' ||
		! alive || [ $(($(uptime_cs) - t0)) -ge $((SELECT * 100)) ]; do
	busybox usleep 250000
done
if chronyc -n sources 2>/dev/null | grep -q '^#\* SIM '; then
	t1=$(uptime_cs)
	took=$(awk -v t=$((t1 - t0)) 'BEGIN { printf "%.1f", t / 100 }')
	echo "ok - chrony: chronyd selects a ptp_sim PHC as its reference clock ($took s after it started)"
	chronyc -n sources 2>&1 | grep '^#\* SIM ' | sed 's/^/  /'
else
	echo "not ok - chrony: chronyd selects a ptp_sim PHC as its reference clock"
	if alive; then
		echo "  not selected within $SELECT s"
	else
		echo "  chronyd exited $(( ($(uptime_cs) - t0) / 100 )) s after it started"
	fi
	show
	exit 0
fi

# --- its frequency measured ------------------------------------------------
within() { # within PPM: |PPM - FREQ| <= FREQ_TOL
	[ -n "$1" ] && awk -v v="$1" -v f=$FREQ -v t=$FREQ_TOL \
		'BEGIN { d = v - f; if (d < 0) d = -d; exit !(d <= t) }'
}
until within "$(tracking_ppm)" || ! alive ||
		[ $(($(uptime_cs) - t1)) -ge $((SETTLE * 100)) ]; do
	busybox usleep 250000
done
ppm=$(tracking_ppm)
if within "$ppm"; then
	stats=$(chronyc -n sourcestats 2>/dev/null | awk '$1 == "SIM" {
		printf "sourcestats: %s samples, offset %s, std dev %s", $2, $7, $8 }')
	echo "ok - chrony: chronyd measures the PHC's frequency offset, +$FREQ ppm (tracking: system clock $ppm ppm slow; $stats)"
else
	echo "not ok - chrony: chronyd measures the PHC's frequency offset, +$FREQ ppm"
	echo "  tracking: '$ppm' ppm slow, expected $FREQ +- $FREQ_TOL ppm within $SETTLE s"
	show
fi
kill "$chronyd_pid"
wait "$chronyd_pid" 2>/dev/null
chronyd_pid=
