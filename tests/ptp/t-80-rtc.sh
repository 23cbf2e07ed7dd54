# SPDX-License-Identifier: GPL-2.0
# RTC clocks (clockdev selftest rtc): rtc_cmos's, and rtc-test's with and
# without an alarm; permissions, timers, steps of the RTC, unbinding under
# armed timers.  A subset runs rtc_cmos, whose timers wake the system.
. /payload/lib.sh
ksft_subset clockdev:rtc -v cmos
