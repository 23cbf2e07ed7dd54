# SPDX-License-Identifier: GPL-2.0
# timers/alarmtimer-suspend: alarm timers on CLOCK_REALTIME_ALARM and
# CLOCK_BOOTTIME_ALARM must wake the guest from suspend to RAM (S3, woken
# by the rtc_cmos alarm); ~5 min.
. /payload/lib.sh
out=$(mktemp)
trap 'rm -f "$out"' EXIT
ksft alarmtimer-suspend "$SELFTESTS/timers/alarmtimer-suspend" | tee "$out"
# The selftest stops its suspend loop at the first refused suspend (the
# alarmtimer refuses with EBUSY when an alarm is less than 2 s away) and
# still passes: count the alarms it saw, 5 of them across suspend.
check "alarmtimer-suspend: 10 alarms on each of the two alarm clocks" \
	test "$(grep -c '^  ALARM(10):' "$out")" = 2
