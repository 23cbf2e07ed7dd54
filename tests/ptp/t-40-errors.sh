# SPDX-License-Identifier: GPL-2.0
# The error table of fd clockids (clockdev selftest errors): every clock
# system call on good and bad descriptors and arguments, on the mock PHC,
# ptp_sim, an RTC clock and the e1000e PHC, each then removed under its
# open descriptors.  A subset runs ptp_sim only: the PTP class's paths.
. /payload/lib.sh
ksft_subset clockdev:errors -v ptp_sim
