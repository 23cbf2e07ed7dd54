# SPDX-License-Identifier: GPL-2.0
# linuxptp on dynamic clocks, as PTP users run it:
# - phc2sys locks one simulated PHC to another, reading both through fd
#   clockids (PHC to PHC, no PTP_SYS_OFFSET): the servo goes s0, s1, s2,
#   then holds the offset within a bound for RUN consecutive updates, and
#   the slave's frequency ends near the master's (+20 ppm);
# - ptp4l between two network namespaces joined by a veth pair, software
#   timestamping (QEMU's e1000e PHC does not tick under TCG): the slave
#   reaches SLAVE and pmc answers TIME_STATUS_NP and PORT_DATA_SET;
# - a daemon's loop: while phc2sys steers the slave PHC, the clockdev tool
#   waits on a periodic timerfd of that PHC (poll) and reads the PHC at
#   each expiry: no expiry is early in PHC time.
# Bounds measured on a quiet host (TCG, 2 cores): phc2sys holds +-150 ns
# after its first second in s2; BOUND allows for a host busy with other
# guests.
. /payload/lib.sh
BUS=/sys/bus/ptp_sim
IP=/usr/sbin/ip
A=40 B=41		# ptp_sim instance IDs used here
BOUND=20000		# ns, |offset| of a locked phc2sys
RUN=20			# consecutive s2 updates within BOUND
FREQ_TOL=1000		# ppb between the slave's frequency and the master's
tmp=$(mktemp -d)
pids=

cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	sim_del $A $B
	$IP netns del ptpm 2>/dev/null
	$IP netns del ptps 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT


# --- phc2sys: one simulated PHC locked to another --------------------------
phc2sys_phc() {
	modprobe ptp_sim 2>/dev/null
	if [ ! -d $BUS ]; then
		echo "ok - linuxptp: phc2sys locks a PHC to another PHC # SKIP no ptp_sim on this kernel"
		return
	fi
	echo $A > $BUS/new_device && echo $B > $BUS/new_device || {
		echo "not ok - linuxptp: phc2sys locks a PHC to another PHC: new_device failed"
		return
	}
	pa=$(ptp_dev $A) pb=$(ptp_dev $B)
	# B half a second ahead of A: phc2sys steps it (s1) for sure.  Both
	# set to CLOCK_REALTIME only, they differ by A's 20 ppm since the sets
	# (~20 us when phc2sys first looks), and phc2sys steps only beyond its
	# first_step_threshold of 20 us: a quick run went s0, s2.
	phc_ctl "$pa" set freq 20000 > "$tmp/ctl" 2>&1 &&
		phc_ctl "$pb" set adj 0.5 >> "$tmp/ctl" 2>&1 || {
		echo "not ok - linuxptp: phc2sys locks a PHC to another PHC: phc_ctl set failed"
		sed 's/^/  /' "$tmp/ctl"
		return
	}
	# A fixed window of the daemon's life, judged from its log.
	timeout 20 phc2sys -s "$pa" -c "$pb" -O 0 -m -q -R 4 > "$tmp/p2s" 2>&1 &
	p2s=$!
	# Once phc2sys has stepped the PHC (s1) and steers it (s2), a
	# daemon's loop on it: 40 expiries of 250 ms.
	n=0
	until grep -q " s2 " "$tmp/p2s" || [ $n -ge 40 ]; do
		busybox usleep 250000
		n=$((n + 1))
	done
	clockdev --json "$pb" timer 0.25 0.25 40 > "$tmp/loop" 2>&1
	loop_rc=$?
	wait $p2s
	# A read held off past the next period (a loaded host) reads two
	# expiries at once (its overrun): 40 expiries, not 40 reads.
	if [ $loop_rc = 0 ] && jq -se '(map(select(.summary | not)) |
			all(.late_ns >= 0)) and (.[-1].summary and .[-1].early == 0 and
			.[-1].expiries >= 40)' "$tmp/loop" > /dev/null; then
		echo "ok - linuxptp: a timerfd loop on the PHC phc2sys steers: 40 expiries, none early ($(jq -r 'select(.summary) | "late p50 \(.late_p50_ns) ns, max \(.late_max_ns) ns"' "$tmp/loop"))"
	else
		echo "not ok - linuxptp: a timerfd loop on the PHC phc2sys steers: 40 expiries, none early"
		echo "  clockdev exit status $loop_rc"
		sed 's/^/  /' "$tmp/loop" | tail -n 12
	fi
	fa=$(phc_freq "$pa") fb=$(phc_freq "$pb")
	# s0, then s1, then s2; then RUN consecutive s2 within BOUND.
	verdict=$(awk -v bound=$BOUND -v run=$RUN '
		/ phc offset / {
			for (i = 1; i < NF; i++)
				if ($i == "offset") { off = $(i + 1); st = $(i + 2) }
			n++
			if (seq == "" && st == "s0") seq = "s0"
			else if (seq == "s0" && st == "s1") seq = "s0 s1"
			else if (seq == "s0 s1" && st == "s2") seq = "s0 s1 s2"
			if (seq == "s0 s1 s2" && st == "s2") {
				a = off < 0 ? -off : off
				if (a > max_all) max_all = a
				if (a <= bound) { cur++; if (cur > best) best = cur }
				else cur = 0
			}
		}
		END {
			printf "%d updates, states %s, longest run within %d ns: %d, max |offset| in s2: %d ns\n",
				n, seq == "" ? "none" : seq, bound, best, max_all
			exit !(seq == "s0 s1 s2" && best >= run)
		}' "$tmp/p2s")
	if [ $? = 0 ]; then
		echo "ok - linuxptp: phc2sys locks a PHC to another PHC through fd clockids ($verdict)"
	else
		echo "not ok - linuxptp: phc2sys locks a PHC to another PHC through fd clockids"
		echo "  $verdict"
		sed 's/^/  /' "$tmp/p2s" | tail -n 30
	fi
	# The servo's frequency over its last 3 s (12 updates) in s2: its
	# last one alone carries the proportional term of the last offset
	# (on the debug kernel, offsets of 5 us made it 1.6 ppm off).
	# phc2sys prints the servo's output, the opposite of what it sets.
	fm=$(awk '/ s2 freq / {
			for (i = 1; i < NF; i++)
				if ($i == "freq") f[n++ % 12] = $(i + 1)
		}
		END {
			if (n < 4) exit
			m = n < 12 ? n : 12
			for (i = 0; i < m; i++) sum += f[i]
			printf "%d\n", -sum / m
		}' "$tmp/p2s")
	d=$((${fm:-0} - ${fa:-0}))
	[ $d -lt 0 ] && d=$((-d))
	if [ -n "$fa" ] && [ -n "$fm" ] && [ $d -le $FREQ_TOL ]; then
		echo "ok - linuxptp: phc2sys brings the slave PHC's frequency to the master's (master $fa ppb, slave $fm ppb over its last 3 s, $fb ppb at the end)"
	else
		echo "not ok - linuxptp: phc2sys brings the slave PHC's frequency to the master's"
		echo "  master '$fa' ppb, slave '$fm' ppb over its last 3 s in s2 ('$fb' ppb at the end), tolerance $FREQ_TOL ppb"
	fi
	echo $A > $BUS/del_device
	echo $B > $BUS/del_device
}

# --- ptp4l: master and slave in two network namespaces ---------------------
ptp4l_netns() {
	if ! $IP netns add ptpm 2>"$tmp/ns" || ! $IP netns add ptps 2>>"$tmp/ns"; then
		echo "ok - linuxptp: ptp4l slave reaches SLAVE over a veth pair # SKIP no network namespaces: $(cat "$tmp/ns")"
		return
	fi
	$IP link add ptpm0 type veth peer name ptps0 &&
	$IP link set ptpm0 netns ptpm && $IP link set ptps0 netns ptps &&
	$IP -n ptpm addr add 10.86.0.1/24 dev ptpm0 &&
	$IP -n ptps addr add 10.86.0.2/24 dev ptps0 &&
	$IP -n ptpm link set ptpm0 up && $IP -n ptps link set ptps0 up || {
		echo "not ok - linuxptp: ptp4l slave reaches SLAVE over a veth pair: veth set-up failed"
		return
	}
	# Faster messages than the defaults, so that the servo settles in
	# seconds; no sanity check of the frequency (TCG's clock is noisy).
	f="-S -2 -m -q --logSyncInterval -2 --logAnnounceInterval -2
	   --announceReceiptTimeout 2 --logMinDelayReqInterval -2
	   --sanity_freq_limit 0 --step_threshold 1"
	# Each its own UNIX socket: ptp4l unlinks the default one.
	# shellcheck disable=SC2086
	$IP netns exec ptpm ptp4l -i ptpm0 $f --priority1 100 \
		--uds_address /run/ptp4l-m > "$tmp/m" 2>&1 &
	pids="$pids $!"
	# shellcheck disable=SC2086
	$IP netns exec ptps ptp4l -i ptps0 $f -s \
		--uds_address /run/ptp4l-s > "$tmp/s" 2>&1 &
	pids="$pids $!"
	# Wait for the state change in the slave's log: up to 120 s.
	i=0
	while [ $i -lt 480 ] && ! grep -q "UNCALIBRATED to SLAVE" "$tmp/s"; do
		i=$((i + 1))
		busybox usleep 250000
	done
	if grep -q "UNCALIBRATED to SLAVE" "$tmp/s"; then
		took=$(awk '{ t = $1; gsub(/ptp4l\[|\]:/, "", t) }
			NR == 1 { t0 = t }
			/UNCALIBRATED to SLAVE/ { printf "%.1f", t - t0; exit }' "$tmp/s")
		echo "ok - linuxptp: ptp4l slave reaches SLAVE over a veth pair ($took s after it started)"
	else
		echo "not ok - linuxptp: ptp4l slave reaches SLAVE over a veth pair"
		sed 's/^/  slave: /' "$tmp/s" | tail -n 20
		sed 's/^/  master: /' "$tmp/m" | tail -n 5
	fi
	$IP netns exec ptps pmc -u -b 0 -s /run/ptp4l-s -i /run/pmc-86 \
		'GET TIME_STATUS_NP' 'GET PORT_DATA_SET' > "$tmp/pmc" 2>&1
	if grep -q "gmPresent *true" "$tmp/pmc" && grep -q "portState *SLAVE" "$tmp/pmc"; then
		echo "ok - linuxptp: pmc answers TIME_STATUS_NP (gmPresent true) and PORT_DATA_SET (SLAVE)"
	else
		echo "not ok - linuxptp: pmc answers TIME_STATUS_NP (gmPresent true) and PORT_DATA_SET (SLAVE)"
		sed 's/^/  /' "$tmp/pmc"
	fi
}

phc2sys_phc
ptp4l_netns
