# SPDX-License-Identifier: GPL-2.0
# RTC clocks (clockdev selftests rtc, rtc_device and rtc_never_early):
# rtc_cmos's, and rtc-test's with and without an alarm; permissions,
# timers, steps of the RTC, unbinding under armed timers; their class and
# uevents, and wake-up timers only where the RTC may wake the system;
# relative timers armed all over the RTC's second, never early.  A subset
# runs rtc_cmos, whose timers wake the system, and rtc-test.1's wake-up
# switched off.
. /payload/lib.sh
ksft_subset clockdev:rtc -v cmos
ksft_subset clockdev:rtc_device -v cmos -v test_alarm
ksft_run clockdev:rtc_never_early
