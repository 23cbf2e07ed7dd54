# SPDX-License-Identifier: GPL-2.0
# Lifetime of clocks under their timers (clockdev selftest lifetime): the
# timers of several processes are the last references to a removed clock
# and go at once; the modules behind a clock are unloaded while a timer and
# a timerfd on it live on (where PTP is modular: the debug kernel).  What
# these catch is a use after free: the debug kernel's console tells.
. /payload/lib.sh
ksft_run clockdev:lifetime
