# SPDX-License-Identifier: GPL-2.0
# The RTC (rtc_cmos) selftests: rtctest (~3 min: alarms a minute ahead) and
# timers/rtcpie (periodic interrupts up to 64 Hz, whose rate check is a
# fixed threshold that TCG on a loaded host can miss).
. /payload/lib.sh
ksft rtctest "$SELFTESTS/rtc/rtctest"
ksft rtcpie "$SELFTESTS/timers/rtcpie"
