# SPDX-License-Identifier: GPL-2.0
# The kernel's timers selftests that take minutes under TCG (measured on
# mainline: nsleep-lat ~130 s, set-timer-lat ~120 s, inconsistency-check
# ~110 s, raw_skew ~120 s, adjtick ~130 s, freq-step ~180 s, leapcrash
# ~80 s).  Latency thresholds are fixed: compare with mainline.
. /payload/lib.sh
T=$SELFTESTS/timers
ksft "timers: nsleep-lat" "$T/nsleep-lat"
ksft "timers: set-timer-lat" "$T/set-timer-lat"
ksft "timers: inconsistency-check" "$T/inconsistency-check"
ksft "timers: raw_skew" "$T/raw_skew"
ksft "timers: adjtick" "$T/adjtick"
ksft "timers: freq-step" "$T/freq-step"
ksft "timers: leapcrash" "$T/leapcrash"
