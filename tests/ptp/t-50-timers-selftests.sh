# SPDX-License-Identifier: GPL-2.0
# The kernel's own timers selftests; each TAP line of posix_timers counts.
. /payload/lib.sh
$SELFTESTS/timers/posix_timers 2>&1 | while IFS= read -r l; do
	case $l in
	"ok "*) echo "ok - posix_timers: $(echo "$l" | cut -d' ' -f3-)" ;;
	"not ok "*) echo "not ok - posix_timers: $(echo "$l" | cut -d' ' -f4-)" ;;
	*) echo "$l" ;;
	esac
done
check "timers: nsleep-lat" $SELFTESTS/timers/nsleep-lat
check "timers: inconsistency-check -t 5" $SELFTESTS/timers/inconsistency-check -t 5
