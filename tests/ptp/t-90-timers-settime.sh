# SPDX-License-Identifier: GPL-2.0
# The kernel's timers selftests that set the system time, the TAI offset,
# the time zone or a leap second (the "destructive" ones), short enough for
# every check.  Last in the list: they leave the clock stepped.  (set-2038
# runs nsleep-lat and more at each of several dates, ~10 min, and fails on
# every kernel: 6.12 refuses a 1970 date; not run.)
. /payload/lib.sh
T=$SELFTESTS/timers
ksft "timers: valid-adjtimex" "$T/valid-adjtimex"
ksft "timers: set-tai" "$T/set-tai"
ksft "timers: set-tz" "$T/set-tz"
# One leap second inserted at the next midnight, which it steps to (~15 s).
ksft "timers: leap-a-day -i 1" "$T/leap-a-day" -i 1
