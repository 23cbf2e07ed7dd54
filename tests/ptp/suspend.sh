# SPDX-License-Identifier: GPL-2.0
# Suspend to RAM (S3) with timers armed (the clockdev selftests' extended
# program suspend, tools/testing/selftests/clockdev/suspend.c),
# the cases $SUSPEND_CASE lists, in order.  One S3 case per boot: in QEMU
# only the first S3 of a boot sleeps, later ones wake at once ("ACPI Error:
# Could not disable RealTimeClock events" after the first resume); s2idle
# cases may come before it.  Run by scripts/hotplug.sh,
# whose QMP watchdog wakes a guest that stays suspended too long and fails
# the run.
#  alarm    (default) suspend is refused (EBUSY) with a CLOCK_BOOTTIME_ALARM
#           timer, or where the kernel has one an RTC clock timer, due within
#           2 s; then a CLOCK_BOOTTIME_ALARM timer wakes the guest through
#           the RTC alarm: the reference, on every kernel.
#  rtcclock an RTC clock timer (/dev/rtcclock0) wakes the guest.
#  ptpsim   a ptp_sim timer armed across a suspend that the RTC's wakealarm
#           ends fires on time, never early; a busy periodic timer on the
#           same clock makes no read of it while its device is suspended.
#           (Both skip, saying why, on a kernel without such clocks.)
#  s2idle   suspend to idle (freeze) with a CLOCK_BOOTTIME_ALARM timer, and
#           where the kernel has one, an RTC clock timer.  QEMU raises the
#           RTC's wake event only from S3, so in QEMU no timer wakes a guest
#           from s2idle, on any kernel: the host's watchdog presses the
#           power button after 12 s.  Checked: the RTC clock timer behaves
#           as the CLOCK_BOOTTIME_ALARM timer does on mainline (the host
#           compares their outcomes, scripts/guests.sh), and every signal
#           comes after resume, never early.
#  rebind   the RTC's driver unbound and bound again, then suspend with a
#           CLOCK_BOOTTIME_ALARM timer wakes the guest.  Mainline's
#           alarmtimer keeps the removed RTC and fails with ENODEV, which
#           the series fixes: the report lists it as fixed.
. /payload/lib.sh

# clockdev_suspend ARG...: the program, installed with the clockdev
# selftests under $KSFT (lib.sh, scripts/initramfs.sh).
clockdev_suspend() {
	"$KSFT/clockdev/suspend" "$@"
}

# run_case CASE: one case; returns early when the guest cannot run it.
run_case() {
	case=$1
	state=mem
	[ "$case" != s2idle ] || state=freeze
	if ! grep -qw $state /sys/power/state 2>/dev/null; then
		echo "not ok - suspend: $case: the guest offers '$state' (/sys/power/state: $(cat /sys/power/state 2>&1))"
		return
	fi
	# S3, not suspend-to-idle: QEMU raises the RTC's wake event from S3 only.
	[ ! -w /sys/power/mem_sleep ] || echo deep > /sys/power/mem_sleep
	echo "case $case, mem_sleep: $(cat /sys/power/mem_sleep 2>/dev/null)"

	case $case in
	rtcclock)
		[ -c /dev/rtcclock0 ] || {
			echo "ok - suspend: $case # SKIP no /dev/rtcclock0: this kernel has no RTC clocks"
			return; } ;;
	ptpsim)
		modprobe ptp_sim 2>/dev/null
		[ -d /sys/bus/ptp_sim ] || {
			echo "ok - suspend: $case # SKIP no ptp_sim: this kernel lacks the simulated PHC"
			return; } ;;
	esac

	case $case in
	alarm)
		clockdev_suspend --name "CLOCK_BOOTTIME_ALARM timer due in 1 s" \
			--boottime-alarm --in 1000 --expect-error EBUSY
		[ ! -c /dev/rtcclock0 ] ||
			clockdev_suspend --name "rtcclock0 timer due in 1 s" \
				--clock /dev/rtcclock0 --in 1000 --expect-error EBUSY
		# 6 s: the debug kernel takes a couple of seconds to go down.
		# In S3 the RTC's alarm wakes the system, on a whole second, up
		# to a second after the timer's expiry (as for rtcclock0 below),
		# and the debug kernel takes most of a second more to resume.
		clockdev_suspend --name "CLOCK_BOOTTIME_ALARM timer 6 s" \
			--boottime-alarm --in 6000 --late-max 2500
		;;
	rtcclock)
		# An RTC timer expires on a whole second, up to a second after its
		# delay: arm 5 s ahead so that it is not refused as due too soon.
		clockdev_suspend --name "rtcclock0 timer 5 s" --clock /dev/rtcclock0 \
			--in 5000 --late-max 2500
		;;
	ptpsim)
		sim=81
		if echo $sim > /sys/bus/ptp_sim/new_device; then
			dev=/dev/$(ls /sys/bus/ptp_sim/devices/ptp_sim$sim/ptp)
			# Timerfds due every 5 ms keep the core reading the
			# clock: none of it may reach the driver while its
			# device is suspended (a NIC's PHC then reads all ones).
			# The wakealarm 5 s ahead: the debug kernel takes more
			# than a second to suspend, and the RTC that tells the
			# suspension from the freezing counts whole seconds.
			clockdev_suspend --name "ptp_sim timer 8 s, the RTC's wakealarm 5 s" \
				--clock "$dev" --in 8000 --wakealarm rtc0:5 --late-max 300 \
				--busy 5 --unchanged /sys/kernel/debug/ptp_sim/suspended_ops
			echo $sim > /sys/bus/ptp_sim/del_device
		else
			echo "not ok - suspend: a ptp_sim instance (ptp_sim is part of the series)"
		fi
		;;
	s2idle)
		clockdev_suspend --name "s2idle: CLOCK_BOOTTIME_ALARM timer 4 s" \
			--boottime-alarm --in 4000 --state freeze --outcome s2idle
		[ ! -c /dev/rtcclock0 ] ||
			clockdev_suspend --name "s2idle: rtcclock0 timer 4 s" \
				--clock /dev/rtcclock0 --in 4000 --state freeze \
				--outcome s2idle --late-max 2500
		;;
	rebind)
		dev=$(readlink -f /sys/class/rtc/rtc0/device)
		drv=$(readlink -f /sys/class/rtc/rtc0/device/driver)
		echo "${dev##*/}" > "$drv/unbind"
		echo "${dev##*/}" > "$drv/bind"
		rtc=$(rtc_of "$dev")
		echo "after unbind and bind, the RTC is $rtc"
		# Mainline's alarmtimer keeps the removed RTC and fails with
		# ENODEV: a known bug that the series fixes (alarmtimer patch).
		# In S3 the RTC's alarm wakes the system on a whole second, up
		# to a second after the expiry, then the resume: 2500 ms, as
		# the alarm case allows.
		clockdev_suspend --name "after the RTC driver is unbound and bound again, a CLOCK_BOOTTIME_ALARM timer wakes the system" \
			--boottime-alarm --in 3000 --rtc "$rtc" --late-max 2500
		;;
	*)
		echo "not ok - suspend: unknown case '$case'"
		;;
	esac
}

for c in ${SUSPEND_CASE:-alarm}; do
	run_case "$c"
done
check "suspend: ${SUSPEND_CASE:-alarm}: no kernel report" sh -c \
	"! dmesg | grep -E 'Oops|BUG:|WARNING:|KASAN:|general protection fault'"
