# SPDX-License-Identifier: GPL-2.0
# The clockdev command-line tool (tools/clockdev, installed as
# /usr/local/bin/clockdev): every command on a ptp_sim clock, on the RTC
# clock, on e1000e's PHC named by its interface and on CLOCK_REALTIME; its
# --json output read back with jq and checked against independent reads
# (phc_ctl, date) and what was set; usage errors (exit status 2); clocks
# removed under a running timer, sleep and watch (ENODEV, exit status 1);
# and, on a kernel without timers on dynamic clocks (mainline), that the
# tool says so plainly.
. /payload/lib.sh
CD=${CLOCKDEV:-/usr/local/bin/clockdev}
JQ=${JQ:-/usr/bin/jq}
BUS=/sys/bus/ptp_sim
A=85 B=86		# ptp_sim instance IDs used here
RTC=/dev/rtcclock0
tmp=$(mktemp -d)

cleanup() {
	for id in $A $B; do
		[ -d $BUS/devices/ptp_sim$id ] && echo $id > $BUS/del_device
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

# tcheck NAME CMD...: "ok - tool: NAME", or "not ok" with CMD's output
tcheck() {
	tc_name=$1
	shift
	if tc_out=$("$@" 2>&1); then
		echo "ok - tool: $tc_name"
	else
		echo "not ok - tool: $tc_name"
		printf '%s\n' "$tc_out" | sed 's/^/  /'
	fi
}
skip() { echo "ok - tool: $1 # SKIP $2"; }

if [ ! -x $CD ]; then
	echo "not ok - tool: $CD is installed"
	exit 0
fi
have_jq=
if [ -x $JQ ] && echo '{"a":1}' | $JQ -e '.a == 1' > /dev/null 2>&1; then
	have_jq=1
else
	echo "# no working $JQ: the checks of --json output are skipped"
fi
# The clockdev series registers the "clockdev" character devices; mainline
# has neither them nor timers on dynamic clocks.
if grep -qw clockdev /proc/devices; then timers=true; else timers=false; fi
echo "# timers on dynamic clocks expected: $timers ($(uname -r))"

# cd_run ARGS...: run the tool; stdout in $tmp/out, stderr in $tmp/err,
# exit status in $rc
cd_run() {
	"$CD" "$@" > $tmp/out 2> $tmp/err
	rc=$?
}
show() {
	echo "exit status $rc"
	sed 's/^/stdout: /' $tmp/out
	sed 's/^/stderr: /' $tmp/err
}
# jq_true FILTER: FILTER is true of the JSON lines on stdin, as an array
jq_true() {
	$JQ -e -s "def abs: if . < 0 then -. else . end; $1" > $tmp/jq.out 2>&1 && return 0
	echo "jq -s '$1' is not true:"
	cat $tmp/jq.out
	return 1
}
# json_rc STATUS FILTER ARGS...: "clockdev --json ARGS" exits with STATUS
# and FILTER is true of its output
json_rc() {
	jr_st=$1 jr_f=$2
	shift 2
	cd_run --json "$@"
	[ $rc = "$jr_st" ] && jq_true "$jr_f" < $tmp/out && return 0
	echo "clockdev --json $*"
	show
	return 1
}
# ok_json FILTER ARGS...: it succeeds; fail_json: it exits 1
ok_json() { json_rc 0 "$@"; }
fail_json() { json_rc 1 "$@"; }
# jcheck NAME FILTER ARGS...: tcheck of ok_json; skipped without jq
jcheck() {
	jc_name=$1
	shift
	if [ -z "$have_jq" ]; then
		skip "$jc_name" "no jq"
		return
	fi
	tcheck "$jc_name" ok_json "$@"
}
jfcheck() {
	jc_name=$1
	shift
	if [ -z "$have_jq" ]; then
		skip "$jc_name" "no jq"
		return
	fi
	tcheck "$jc_name" fail_json "$@"
}
# jtcheck NAME CMD...: tcheck of a CMD that reads JSON; skipped without jq
jtcheck() {
	if [ -z "$have_jq" ]; then
		skip "$1" "no jq"
		return
	fi
	tcheck "$@"
}
# fails_with STATUS TEXT ARGS...: "clockdev ARGS" exits with STATUS and
# says TEXT on stderr
fails_with() {
	fw_st=$1 fw_text=$2
	shift 2
	cd_run "$@"
	[ $rc = "$fw_st" ] && grep -qF -- "$fw_text" $tmp/err && return 0
	echo "clockdev $*: wanted exit status $fw_st and '$fw_text'"
	show
	return 1
}
# says ERE ARGS...: "clockdev ARGS" succeeds and prints a line matching ERE
says() {
	sy_re=$1
	shift
	cd_run "$@"
	[ $rc = 0 ] && grep -qE -- "$sy_re" $tmp/out && return 0
	echo "clockdev $*: wanted a line matching /$sy_re/"
	show
	return 1
}
# within VALUE LOW HIGH: LOW <= VALUE <= HIGH (decimals)
within() {
	echo "$1 in [$2, $3]"
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'
}
# get_vs_phc_ctl CLOCK DEV: the tool's get (through CLOCK) comes 0 to 5 s
# after an independent phc_ctl read of DEV
get_vs_phc_ctl() {
	gp_p=$(phc_ctl "$2" get 2>&1 | awk '/clock time is/ { print $5 }')
	[ -n "$gp_p" ] || { echo "phc_ctl $2 get failed"; return 1; }
	cd_run "$1" get
	[ $rc = 0 ] || { show; return 1; }
	gp_t=$(awk '/^get: / { print $2 }' $tmp/out)
	echo "phc_ctl $gp_p, clockdev $gp_t"
	within "$gp_t" "$gp_p" "$(awk -v p="$gp_p" 'BEGIN { printf "%.9f", p + 5 }')"
}
# get_vs_date CLOCK SLACK: the tool's get is date +%s, +-SLACK s
get_vs_date() {
	gd_d=$(date +%s)
	cd_run "$1" get
	[ $rc = 0 ] || { show; return 1; }
	gd_t=$(awk '/^get: / { print $2 }' $tmp/out)
	within "$gd_t" $((gd_d - $2)) $((gd_d + $2 + 1))
}
# timer_ok N [MAX]: the JSON of a timer of N expiries: every expiry on
# time or late (never early), lateness below MAX ns (3 s: a loaded TCG
# host stalls the guest for up to a second), a summary that
# agrees.  A loaded host may delay a notification past later expiries: it
# then stands for them too (overrun), and the timer ends at N or beyond.
# (jq holds numbers as doubles: read - expected is checked to 1 us.)
timer_ok() {
	echo '(map(select(.cmd == "timer" and (.summary | not))) as $e | .[-1] as $s |
	 ($e | length) >= 1 and all($e[]; .late_ns >= 0 and .late_ns < '${2:-3e9}' and
				     ((.read_ns - .expected_ns - .late_ns) | abs) < 1000) and
	 $s.cmd == "timer" and $s.summary and $s.early == 0 and
	 $s.expiries >= '$1' and $s.count == ($e | length) and
	 ([$e[] | .overrun] | add) + ($e | length) == $s.expiries and
	 $s.late_min_ns >= 0 and $s.late_max_ns < '${2:-3e9}' and
	 $e[-1].expiry == $s.expiries and
	 ($e | length == 1 or ($e[-2].expiry < '$1')))'
}
# sleep_ok CMD [MAX]: one object of CMD, not early, less than MAX ns (3 s) late
sleep_ok() {
	echo '(.[-1] | .cmd == "'$1'" and .late_ns >= 0 and .late_ns < '${2:-3e9}' and
	       ((.read_ns - .expected_ns - .late_ns) | abs) < 1000)'
}
# wait_blocked PID: wait up to 20 s until PID sleeps in a system call that
# waits for a timer or a clock (x86-64 numbers: poll, ppoll,
# rt_sigtimedwait, clock_nanosleep): what it armed is armed.
wait_blocked() {
	wb_i=0
	until case $(cut -d' ' -f1 /proc/$1/syscall 2>/dev/null) in
	      7|271|128|230) true ;; *) false ;; esac; do
		[ $wb_i -lt 200 ] || return 1
		sleep 0.1
		wb_i=$((wb_i + 1))
	done
}
# wait_lines FILE N: wait up to 20 s for FILE to hold N lines
wait_lines() {
	wl_i=0
	until [ -f "$1" ] && [ "$(wc -l < "$1")" -ge "$2" ]; do
		[ $wl_i -lt 200 ] || return 1
		sleep 0.1
		wl_i=$((wl_i + 1))
	done
}

# ---- the command line ----

check_help() {
	cd_run --help
	[ $rc = 0 ] || { show; return 1; }
	for c in list get getres caps set step freq compare watch timer sleep \
		 wait-until wait; do
		grep -qE "^  $c( |\$)" $tmp/out || { echo "--help lacks $c"; return 1; }
	done
}
tcheck "--help shows every command" check_help
tcheck "-V prints the version and the kernel" says '^clockdev [0-9]+\.[0-9]+, running on Linux ' -V
tcheck "an unknown command is a usage error (exit 2)" \
	fails_with 2 "'frobnicate': unknown command" CLOCK_REALTIME get frobnicate
tcheck "a surplus argument is a usage error (exit 2)" \
	fails_with 2 "freq takes at most 1 argument" CLOCK_REALTIME freq 1 2
tcheck "a number with trailing garbage is a usage error (exit 2)" \
	fails_with 2 "'1.5x' is not a number of seconds" CLOCK_REALTIME step 1.5x
tcheck "more than 9 decimals is a usage error (exit 2)" \
	fails_with 2 "at most 9 decimals" CLOCK_REALTIME sleep 0.0000000001
tcheck "a bad count is a usage error (exit 2)" \
	fails_with 2 "'5k' is not a count" CLOCK_REALTIME compare CLOCK_MONOTONIC 5k
tcheck "an unknown clock is a usage error (exit 2)" \
	fails_with 2 "'no-such-clock' is not a clock" no-such-clock get
tcheck "a missing device fails: open, ENOENT (exit 1)" \
	fails_with 1 "open /dev/ptp99: No such file or directory (ENOENT)" 99 get
tcheck "/dev/null is not a clock: EINVAL (exit 1)" \
	fails_with 1 "clock_gettime on /dev/null: Invalid argument (EINVAL)" /dev/null get
jfcheck "--json reports an error as an object" \
	'length == 1 and .[0].cmd == "get" and .[0].clock == "/dev/null" and
	 .[0].op == "clock_gettime" and .[0].errno == "EINVAL" and
	 .[0].error == "Invalid argument"' /dev/null get

# ---- CLOCK_REALTIME ----

tcheck "realtime: get is date +%s (+-2 s)" get_vs_date realtime 2
tcheck "realtime: get shows the date" \
	says '^get: [0-9]+\.[0-9]{9} \(20[0-9][0-9]-[0-9][0-9]-[0-9][0-9] ' CLOCK_REALTIME get
jcheck "realtime: --json get" \
	'length == 1 and .[0].cmd == "get" and .[0].clock == "CLOCK_REALTIME" and
	 (.[0].time | test("^[0-9]+\\.[0-9]{9}$")) and (.[0].date | test("^20"))' sys get
jcheck "realtime: getres is 1 ns" '.[0].res_ns == 1' realtime getres
jcheck "realtime: caps (static, timers)" \
	'.[0].kind == "static" and .[0].res_ns == 1 and .[0].timers == true' realtime caps
jcheck "realtime: set from itself" \
	'length == 1 and .[0].cmd == "set" and .[0].from_realtime == true and
	 (.[0].time | test("^[0-9]+\\.[0-9]{9}$"))' realtime set
tcheck "realtime: back at date +%s after set" get_vs_date realtime 2
jcheck "realtime: step +1.5 then -1.5" \
	'length == 2 and .[0].ns == 1500000000 and .[1].ns == -1500000000' \
	realtime step 1.5 step -1.5
jcheck "realtime: freq 125 reads back 125 ppb (8192 scaled ppm)" \
	'.[0].set and .[0].freq_scaled_ppm == 8192 and (.[1].set | not) and
	 .[1].freq_scaled_ppm == 8192 and .[1].freq_ppb == 125 and
	 .[3].freq_scaled_ppm == 0' realtime freq 125 freq freq 0 freq
jcheck "realtime: compare monotonic (interleaved reads)" \
	'(.[-1] | .summary and .method == "interleaved reads" and .samples == 5 and
	  .offset_stddev_ns < 1e7 and .delay_min_ns >= 0 and .delay_max_ns < 1e8 and
	  (.drift_ppm | abs) < 1000) and
	 ([.[] | select(.summary | not) | .sample] == [1, 2, 3, 4, 5])' \
	realtime compare monotonic 5 0.05
jcheck "realtime: timer 0.2 0.1 5 (signal)" "$(timer_ok 5)" \
	realtime timer 0.2 0.1 5 signal
jcheck "realtime: timer 0.2 abs (timerfd)" \
	"$(timer_ok 1) and .[-1].abs and .[-1].notify == \"timerfd\"" \
	realtime timer 0.2 abs
jcheck "realtime: sleep 0.2" "$(sleep_ok sleep)" realtime sleep 0.2
jcheck "realtime: wait-until +0.2" "$(sleep_ok wait-until)" realtime wait-until +0.2
jcheck "realtime: watch monotonic 0.1 3" \
	'length == 4 and ([.[0:3][] | .sample] == [1, 2, 3]) and .[0].freq_ppb == null and
	 (.[1].freq_ppb | abs) < 1e6 and .[3].summary and .[3].samples == 3 and
	 (.[3].interrupted | not)' realtime watch monotonic 0.1 3
jcheck "realtime: wait 0.2" '.[0].cmd == "wait" and .[0].ns == 200000000' realtime wait 0.2

# ---- a ptp_sim clock ----

# check_wait_elapses DEV: "get wait 0.5 get" sees 0.5 to 3.5 s pass on DEV
check_wait_elapses() {
	ok_json '(.[2].ns - .[0].ns) >= 5e8 and (.[2].ns - .[0].ns) < 35e8 and
		 .[1].ns == 500000000' "$1" get wait 0.5 get
}
# check_negated DEV: DEV vs CLOCK_REALTIME is minus CLOCK_REALTIME vs DEV
check_negated() {
	$CD --json "$1" set 1000000 compare realtime 3 0.01 > $tmp/a || return 1
	$CD --json realtime compare "$1" 3 0.01 > $tmp/b || return 1
	cat $tmp/a $tmp/b | jq_true '[.[] | select(.summary)] |
		length == 2 and .[0].method == "PTP_SYS_OFFSET_PRECISE" and
		.[1].method == "PTP_SYS_OFFSET_PRECISE" and .[0].offset_mean_ns < -1e18 and
		((.[0].offset_mean_ns + .[1].offset_mean_ns) | abs) < 1e8' ||
		{ cat $tmp/a $tmp/b; return 1; }
}
# check_watch_sigterm DEV: SIGTERM ends an endless watch with its summary
check_watch_sigterm() {
	$CD --json "$1" watch realtime 0.1 > $tmp/w 2>&1 &
	ws_pid=$!
	wait_lines $tmp/w 3 || { kill $ws_pid; cat $tmp/w; return 1; }
	kill -TERM $ws_pid
	wait $ws_pid
	ws_rc=$?
	echo "exit status $ws_rc"
	[ $ws_rc = 0 ] || { cat $tmp/w; return 1; }
	jq_true '.[-1].summary and .[-1].interrupted and .[-1].samples >= 3 and
		 .[-1].samples == (length - 1)' < $tmp/w || { cat $tmp/w; return 1; }
}
# check_step_fires DEV: stepping past the expiry of an absolute timer (30 s
# ahead) fires it at once, 10 s late by the clock
check_step_fires() {
	$CD --json "$1" set 1000000 timer 30 abs > $tmp/sf 2>&1 &
	sf_pid=$!
	wait_lines $tmp/sf 1 || { kill $sf_pid; cat $tmp/sf; return 1; }
	wait_blocked $sf_pid || { kill $sf_pid; echo "timer never armed"; return 1; }
	$CD "$1" step 40 || { kill $sf_pid; return 1; }
	wait $sf_pid
	sf_rc=$?
	echo "exit status $sf_rc"
	[ $sf_rc = 0 ] || { cat $tmp/sf; return 1; }
	jq_true '.[1].expected_ns >= 1000030e9 and .[1].expected_ns < 1000031e9 and
		 .[1].late_ns >= 1e10 and
		 .[1].late_ns < 15e9 and .[2].summary and .[2].early == 0' < $tmp/sf ||
		{ cat $tmp/sf; return 1; }
}
# check_read_only DEV: a user who may only read DEV (nobody, through su)
# gets the clock opened read-only: reads and timers work, set fails (EACCES)
check_read_only() {
	chmod 0644 "$1"
	su -s /bin/sh nobody -c "$CD --json $1 caps get timer 0.1" > $tmp/ro 2>&1
	ro_rc=$?
	su -s /bin/sh nobody -c "$CD $1 set 5" > $tmp/ro2 2>&1
	ro2_rc=$?
	chmod 0600 "$1"
	cat $tmp/ro $tmp/ro2
	[ $ro_rc = 0 ] && [ $ro2_rc = 1 ] || return 1
	jq_true '.[0].read_only == true and .[2].late_ns >= 0 and .[-1].summary' < $tmp/ro &&
		grep -qF "clock_settime on $1: Permission denied (EACCES): the device could only be opened read-only" $tmp/ro2
}

modprobe ptp_sim 2>/dev/null
if [ -d $BUS ] && echo "$A 20000000" > $BUS/new_device; then
	dev=/dev/$(ls $BUS/devices/ptp_sim$A/ptp)
	idx=${dev#/dev/ptp}
	echo "# ptp_sim$A is $dev"
	tcheck "ptp_sim: list shows $dev" \
		says "^$dev +ptp +\\(ptp_sim\\) +ptp_sim$A +- +max_adj 20000000, " list
	jcheck "ptp_sim: --json list" \
		'map(select(.clock == "'$dev'")) | length == 1 and
		 (.[0] | .cmd == "list" and .kind == "ptp" and .name == "ptp_sim'$A'" and
		  .ptp_index == '$idx' and .driver == null and .bus == "ptp_sim" and
		  .max_adjustment == 20000000 and .interfaces == [] and
		  .n_external_timestamps == 1 and .n_periodic_outputs == 1 and
		  .n_programmable_pins == 1 and .pps_available == 0)' list
	jcheck "ptp_sim: the bare index $idx names $dev" \
		'.[0].clock == "'$dev'" and .[0].ptp_index == '$idx $idx caps
	jcheck "ptp_sim: caps" \
		'.[0] | .kind == "ptp" and .res_ns == 1 and .max_adj_ppb == 20000000 and
		 .cross_timestamping == true and .n_pins == 1 and
		 .n_ext_ts == 1 and .n_per_out == 1 and
		 .timers == '$timers $dev caps
	jcheck "ptp_sim: getres is 1 ns" '.[0].res_ns == 1' $dev getres
	jcheck "ptp_sim: set 1000000, get" \
		'.[0].ns == 1e15 and .[0].from_realtime == false and .[1].ns >= 1e15 and
		 .[1].ns < 1e15 + 5e9 and (.[1].time | startswith("1000000.")) and
		 (.[1] | has("date") | not)' $dev set 1000000 get
	tcheck "ptp_sim: get agrees with phc_ctl" get_vs_phc_ctl $dev $dev
	tcheck "ptp_sim: text get" says '^get: 1000000\.[0-9]{9}$' $dev set 1000000 get
	jcheck "ptp_sim: step 10, step -2.5" \
		'.[1].ns == 1e10 and .[2].ns >= 1000010e9 and .[2].ns < 1000015e9 and
		 .[3].ns == -25e8 and .[4].ns >= 10000075e8 and .[4].ns < .[2].ns' \
		$dev set 1000000 step 10 get step -2.5 get
	jcheck "ptp_sim: set with no argument takes CLOCK_REALTIME" \
		'.[0].from_realtime and (.[1].ns - .[0].ns) >= 0 and (.[1].ns - .[0].ns) < 5e9' \
		$dev set get
	jcheck "ptp_sim: freq 12345 reads back" \
		'.[0].set and (.[1].set | not) and .[1].freq_scaled_ppm == .[0].freq_scaled_ppm and
		 .[1].freq_scaled_ppm == 809042 and ((.[1].freq_ppb - 12345) | abs) < 0.01' \
		$dev freq 12345 freq
	jcheck "ptp_sim: freq -0.5 reads back" \
		'.[1].freq_scaled_ppm == -33 and ((.[1].freq_ppb + 0.5) | abs) < 0.01' \
		$dev freq -0.5 freq
	tcheck "ptp_sim: freq beyond max_adj fails with ERANGE" \
		fails_with 1 "clock_adjtime on $dev: Numerical result out of range (ERANGE)" \
		$dev freq 0 freq 30000000
	jfcheck "ptp_sim: --json freq beyond max_adj" \
		'length == 2 and .[0].freq_scaled_ppm == 0 and .[1].op == "clock_adjtime" and
		 .[1].errno == "ERANGE" and .[1].cmd == "freq"' $dev freq 0 freq 30000000
	tcheck "ptp_sim: a usage error runs nothing" sh -c \
		"$CD $dev set 1000000 && ! $CD $dev set 2000000 get bogus 2>/dev/null &&
		 $CD $dev get | grep -E '^get: 1000000\\.'"
	jtcheck "ptp_sim: wait 0.5 lets 0.5 s of the clock pass" check_wait_elapses $dev
	jcheck "ptp_sim: compare realtime just after set (PTP_SYS_OFFSET_PRECISE)" \
		'(.[-1] | .summary and .method == "PTP_SYS_OFFSET_PRECISE" and .samples == 5 and
		  (.offset_mean_ns | abs) < 2e8 and .delay_max_ns == 0 and
		  (.drift_ppm | abs) < 100 and .resolution_ns == 1) and
		 ([.[] | select(.cmd == "compare") | .other] | unique == ["CLOCK_REALTIME"])' \
		$dev set compare realtime 5 0.05
	jcheck "ptp_sim: compare realtime by each method" \
		'[.[] | select(.summary)] | map(.method) ==
		 ["PTP_SYS_OFFSET_EXTENDED", "PTP_SYS_OFFSET", "interleaved reads"] and
		 all(.[]; (.offset_mean_ns | abs) < 2e8 and .delay_min_ns > 0)' \
		$dev set compare realtime 3 0.01 extended compare realtime 3 0.01 basic \
		compare realtime 3 0.01 reads
	jcheck "ptp_sim: compare monotonic: ioctl and reads agree (1 ms)" \
		'[.[] | select(.summary)] | .[0].method == "PTP_SYS_OFFSET_EXTENDED" and
		 .[1].method == "interleaved reads" and
		 ((.[0].offset_mean_ns - .[1].offset_mean_ns) | abs) < 1e6' \
		$dev compare monotonic 3 0.01 compare monotonic 3 0.01 reads
	jcheck "ptp_sim: compare monotonic_raw: cross timestamp and reads agree (1 ms)" \
		'[.[] | select(.summary)] | .[0].method == "PTP_SYS_OFFSET_PRECISE" and
		 .[1].method == "interleaved reads" and
		 ((.[0].offset_mean_ns - .[1].offset_mean_ns) | abs) < 1e6' \
		$dev compare raw 3 0.01 compare raw 3 0.01 reads
	jtcheck "ptp_sim: realtime vs it is minus it vs realtime" check_negated $dev
	jcheck "ptp_sim: compare sees freq +1 % as a drift of 10000 ppm (+-100)" \
		'(.[-2] | .summary and ((.drift_ppm - 10000) | abs) < 100) and
		 .[-1].freq_scaled_ppm == 0' \
		$dev freq 10000000 compare realtime 5 0.1 freq 0
	tcheck "ptp_sim: text compare" \
		says '^compare: offset +min -?[0-9]+ mean -?[0-9]+ max -?[0-9]+ stddev [0-9]+ ns$' \
		$dev set compare realtime 3 0.01
	jcheck "ptp_sim: watch sees freq 100000 ppb (+-1000)" \
		'length == 8 and .[0].set and .[1].freq_ppb == null and
		 ([.[2:6][] | .freq_ppb] | all(. != null and ((. - 100000) | abs) < 2000)) and
		 (.[6] | .summary and .samples == 5 and (.interrupted | not) and
		  ((.freq_ppb - 100000) | abs) < 1000) and .[7].freq_scaled_ppm == 0' \
		$dev freq 100000 watch realtime 0.2 5 freq 0
	jtcheck "ptp_sim: watch ends on SIGTERM with a summary" check_watch_sigterm $dev
	if $timers; then
		jcheck "ptp_sim: timer 0.2 0.1 5 (timerfd)" \
			"$(timer_ok 5) and .[1].expected_ns >= 1000000200000000 and
			 .[1].expected_ns < 1000001200000000 and .[1].expiry == 1 and
			 (.[1].expected_ns as \$f | map(select(.expiry)) |
			  all(.[]; .expected_ns == \$f + (.expiry - 1) * 100000000))" \
			$dev set 1000000 timer 0.2 0.1 5
		jcheck "ptp_sim: timer 0.3 abs signal" \
			"$(timer_ok 1) and .[-1].abs and .[-1].notify == \"signal\" and
			 .[1].expected_ns >= 1000000300000000 and
			 .[1].expected_ns < 1000001300000000" \
			$dev set 1000000 timer 0.3 abs signal
		jcheck "ptp_sim: timer 0.1 0.05 4 signal (relative)" "$(timer_ok 4)" \
			$dev timer 0.1 0.05 4 signal
		tcheck "ptp_sim: text timer" \
			says '^timer: [0-9]+ notifications, 3 expiries by timerfd \(relative\): late min [0-9]+ p50 [0-9]+ max [0-9]+ ns, 0 early$' \
			$dev timer 0.1 0.1 3
		jcheck "ptp_sim: sleep 0.2" "$(sleep_ok sleep)" $dev sleep 0.2
		jcheck "ptp_sim: wait-until 1000000.3" \
			"$(sleep_ok wait-until) and .[1].expected_ns == 1000000300000000" \
			$dev set 1000000 wait-until 1000000.3
		jcheck "ptp_sim: wait-until +0.2" "$(sleep_ok wait-until)" \
			$dev wait-until +0.2
		tcheck "ptp_sim: text sleep" \
			says '^sleep: expected 1000000\.[0-9]{9}, late [0-9]+ ns$' \
			$dev set 1000000 sleep 0.1
		jtcheck "ptp_sim: a step past an absolute timer fires it" \
			check_step_fires $dev
		if command -v su > /dev/null &&
		   { grep -q '^nobody:' /etc/passwd ||
		     { cp /etc/passwd $tmp/passwd &&
		       echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd; }; }; then
			jtcheck "ptp_sim: read-only access: reads and timers work, set fails (EACCES)" \
				check_read_only $dev
			[ ! -f $tmp/passwd ] || cp $tmp/passwd /etc/passwd
		else
			skip "ptp_sim: read-only access" "cannot run as another user here"
		fi
	else
		skip "ptp_sim: timers" "this kernel offers no timers on dynamic clocks"
	fi

	# Removal under a running timer (timerfd and signal), sleep and watch:
	# each fails at once with ENODEV, naming its operation, exit status 1.
	if echo $B > $BUS/new_device; then
		devB=/dev/$(ls $BUS/devices/ptp_sim$B/ptp)
		echo "# ptp_sim$B is $devB, removed under four running clockdevs"
		$CD --json $devB watch realtime 0.1 > $tmp/rm4 2> $tmp/rm4.err &
		p4=$!
		if $timers; then
			$CD --json $devB timer 30 > $tmp/rm1 2> $tmp/rm1.err &
			p1=$!
			$CD --json $devB timer 30 signal > $tmp/rm2 2> $tmp/rm2.err &
			p2=$!
			$CD --json $devB sleep 30 > $tmp/rm3 2> $tmp/rm3.err &
			p3=$!
		fi
		wait_lines $tmp/rm4 2
		for p in $p4 ${p1:-} ${p2:-} ${p3:-}; do
			wait_blocked $p || echo "# pid $p never blocked"
		done
		t0=$(cut -d' ' -f1 /proc/uptime)
		echo $B > $BUS/del_device
		wait $p4; rc4=$?
		if $timers; then
			wait $p1; rc1=$?
			wait $p2; rc2=$?
			wait $p3; rc3=$?
		fi
		t1=$(cut -d' ' -f1 /proc/uptime)
		echo "# they ended $(awk -v a=$t0 -v b=$t1 'BEGIN { print b - a }') s after del_device"
		# removed_ok N STATUS OP...: run N ended with STATUS and said
		# ENODEV for one of the operations OP
		removed_ok() {
			ro_n=$1 ro_st=$2
			shift 2
			echo "exit status $ro_st"
			sed 's/^/stderr: /' $tmp/rm$ro_n.err
			[ "$ro_st" = 1 ] || return 1
			ro_ops= ro_list=
			for o; do
				grep -qF "clockdev: $o on $devB: No such device (ENODEV)" \
					$tmp/rm$ro_n.err && ro_ops=1
				ro_list="${ro_list:+$ro_list, }\"$o\""
			done
			[ -n "$ro_ops" ] || return 1
			[ -z "$have_jq" ] ||
				jq_true '.[-1].errno == "ENODEV" and .[-1].clock == "'$devB'" and
					 ([.[-1].op] | inside(['"$ro_list"']))' < $tmp/rm$ro_n
		}
		if $timers; then
			tcheck "removal: timer (timerfd) fails: read(timerfd), ENODEV" \
				removed_ok 1 $rc1 'read(timerfd)'
			tcheck "removal: timer (signal) fails: timer_gettime, ENODEV" \
				removed_ok 2 $rc2 timer_gettime
			tcheck "removal: sleep fails: clock_nanosleep, ENODEV" \
				removed_ok 3 $rc3 clock_nanosleep
		else
			skip "removal: timers and sleeps" "no timers on dynamic clocks"
		fi
		tcheck "removal: watch fails: its PTP_SYS_OFFSET ioctl, ENODEV" \
			removed_ok 4 $rc4 PTP_SYS_OFFSET_PRECISE PTP_SYS_OFFSET_EXTENDED \
				PTP_SYS_OFFSET
		tcheck "removal: they ended within 5 s of del_device" \
			within "$(awk -v a=$t0 -v b=$t1 'BEGIN { print b - a }')" 0 5
		tcheck "removal: the node is gone: open fails (ENOENT)" \
			fails_with 1 "open $devB: No such file or directory (ENOENT)" $devB get
	else
		echo "not ok - tool: removal: new_device $B"
	fi
else
	skip "ptp_sim clock" "ptp_sim not available"
fi

# ---- the RTC clock ----

if [ -c $RTC ]; then
	rtc=$(basename "$(readlink /sys/class/rtc_clock/rtcclock0/device)")
	rtcdrv=$(basename "$(readlink /sys/class/rtc_clock/rtcclock0/device/device/driver)")
	jcheck "rtc: --json list" \
		'map(select(.clock == "'$RTC'")) | length == 1 and
		 (.[0] | .kind == "rtc" and .rtc == "'$rtc'" and .driver == "'$rtcdrv'" and
		  (.name | length) > 0)' list
	tcheck "rtc: list shows $RTC" says "^$RTC +rtc +$rtcdrv " list
	jcheck "rtc: caps (1 s resolution)" \
		'.[0] | .kind == "rtc" and .res_ns == 1000000000 and .timers == '$timers \
		$RTC caps
	jcheck "rtc: getres is 1 s" '.[0].res_ns == 1e9' $RTC getres
	jcheck "rtc: set from CLOCK_REALTIME, get whole seconds" \
		'.[0].from_realtime and (.[1].time | endswith(".000000000")) and
		 ((.[1].ns - .[0].ns) | abs) < 3e9' $RTC set get
	tcheck "rtc: get is date +%s (+-3 s)" get_vs_date $RTC 3
	jcheck "rtc: set to an hour ahead, get, set back" \
		'((.[1].ns - 3600e9 - .[2].ns) | abs) < 3e9' \
		$RTC set "$(($(date +%s) + 3600))" get set get
	tcheck "rtc: back at date +%s (+-3 s)" get_vs_date $RTC 3
	tcheck "rtc: step fails: clock_adjtime, EOPNOTSUPP" \
		fails_with 1 "clock_adjtime on $RTC: Operation not supported (EOPNOTSUPP)" $RTC step 1
	jcheck "rtc: freq reads 0" '.[0].freq_scaled_ppm == 0 and (.[0].set | not)' $RTC freq
	jfcheck "rtc: freq 100 fails: EOPNOTSUPP" \
		'.[0].op == "clock_adjtime" and .[0].errno == "EOPNOTSUPP"' $RTC freq 100
	jcheck "rtc: compare realtime (reads, quantized to 1 s)" \
		'.[-1] | .summary and .method == "interleaved reads" and .samples == 3 and
		 .resolution_ns == 1e9 and (.offset_mean_ns | abs) < 2e9' \
		$RTC set compare realtime 3 0.2
	tcheck "rtc: compare says it reads whole seconds" \
		says '^compare: note: /dev/rtcclock0 reads in steps of 1\.000000000 s' \
		$RTC compare realtime 2 0.1
	jcheck "rtc: watch realtime 0.5 2" \
		'length == 3 and .[2].summary and .[2].samples == 2' $RTC watch realtime 0.5 2
	if $timers; then
		jcheck "rtc: timer 1 abs" "$(timer_ok 1)" $RTC timer 1 abs
		jcheck "rtc: timer 1 signal (relative: up to 4 s late)" \
			"$(timer_ok 1 4e9) and .[-1].notify == \"signal\"" $RTC timer 1 signal
		jcheck "rtc: sleep 1 (up to 4 s late)" "$(sleep_ok sleep 4e9)" $RTC sleep 1
		jcheck "rtc: wait-until +1" "$(sleep_ok wait-until)" $RTC wait-until +1
	else
		skip "rtc: timers" "no timers on dynamic clocks"
	fi
else
	skip "rtc clock" "no $RTC"
fi

# ---- e1000e's PHC, named by its interface ----

ip link set eth0 up 2>/dev/null
phc=$(ethtool -T eth0 2>/dev/null | awk '/PTP Hardware Clock:/ { print $4 }')
case $phc in
[0-9]*)
	edev=/dev/ptp$phc
	jcheck "e1000e: eth0 names $edev" \
		'.[0] | .clock == "'$edev'" and .iface == "eth0" and .kind == "ptp" and
		 .ptp_index == '$phc' and .timers == '$timers eth0 caps
	jcheck "e1000e: list shows eth0 on $edev" \
		'map(select(.clock == "'$edev'")) | length == 1 and
		 (.[0] | .driver == "e1000e" and .interfaces == ["eth0"] and
		  .ptp_index == '$phc')' list
	tcheck "e1000e: text list" says "^$edev +ptp +e1000e .* eth0 " list
	tcheck "e1000e: get agrees with phc_ctl" get_vs_phc_ctl eth0 $edev
	jcheck "e1000e: set 1000000, step 10, get" \
		'.[0].clock == "'$edev'" and .[2].ns >= 1000010e9 and .[2].ns < 1000015e9' \
		eth0 set 1000000 step 10 get
	jcheck "e1000e: freq 12345 reads back" \
		'.[1].freq_scaled_ppm == 809042 and .[3].freq_scaled_ppm == 0' \
		eth0 freq 12345 freq freq 0 freq
	jcheck "e1000e: getres" '.[0].res_ns == 1' eth0 getres
	jcheck "e1000e: compare realtime by a PTP ioctl" \
		'.[-1] | .summary and .samples == 3 and
		 (.method | test("^PTP_SYS_OFFSET"))' eth0 compare realtime 3 0.01
	jcheck "e1000e: watch realtime 0.1 2" \
		'length == 3 and .[2].summary and .[2].samples == 2' eth0 watch realtime 0.1 2
	if [ -n "${dev:-}" ] && [ -c "${dev:-/nonexistent}" ]; then
		jcheck "e1000e: compare with the ptp_sim PHC (reads)" \
			'.[-1] | .summary and .method == "interleaved reads" and .other == "'$dev'"' \
			eth0 compare $dev 3 0.01
	fi
	# QEMU 7.2's e1000e PHC does not advance: its timers fire only on a step.
	# QEMU 10's runs at 5/2 of the system clock (qemu/README.md).
	adv=$($CD eth0 get wait 0.2 get | awk '/^get:/ { t[n++] = $2 }
		END { print (t[1] > t[0]) ? "yes" : "no" }')
	echo "# $edev advances: $adv"
	if ! $timers; then
		tcheck "e1000e: caps says this kernel offers no timers" \
			says '^caps: timers +no \(this kernel offers no timers on dynamic clocks\)$' \
			eth0 caps
		tcheck "e1000e: timer (timerfd): the kernel offers no timers" \
			fails_with 1 "timerfd_create on $edev: Invalid argument (EINVAL): this kernel offers no timers on dynamic clocks" \
			eth0 timer 1
		tcheck "e1000e: timer signal: the kernel offers no timers" \
			fails_with 1 "timer_create on $edev: Operation not supported (EOPNOTSUPP): this kernel offers no timers on dynamic clocks" \
			eth0 timer 1 signal
		tcheck "e1000e: sleep: the kernel offers no timers" \
			fails_with 1 "clock_nanosleep on $edev: Operation not supported (EOPNOTSUPP): this kernel offers no timers on dynamic clocks" \
			eth0 sleep 1
	elif [ "$adv" = yes ]; then
		skip "kernel without timers: the tool says so" "this kernel has them"
		jcheck "e1000e: timer 0.2 0.1 3" "$(timer_ok 3)" eth0 timer 0.2 0.1 3
		jcheck "e1000e: sleep 0.2" "$(sleep_ok sleep)" eth0 sleep 0.2
	else
		skip "kernel without timers: the tool says so" "this kernel has them"
		tcheck "e1000e: a timer on a clock that does not advance ends in an error, not a hang" \
			fails_with 1 "it has not advanced since the timer was armed" \
			eth0 timer 0.1
		jtcheck "e1000e: a step past an absolute timer fires it" check_step_fires eth0
		tcheck "e1000e: a sleep on a clock that does not advance ends in an error, not a hang" \
			fails_with 1 "clock_nanosleep on $edev: Connection timed out (ETIMEDOUT): the sleep did not end within 10 s" \
			eth0 sleep 0.1
	fi
	;;
*)
	skip "e1000e clock" "eth0 has no PHC"
	;;
esac
