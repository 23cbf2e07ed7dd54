#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of 'make check': runs every tests/ptp/t-*.sh in the guest, or
# only the TEST scripts given.
# Each prints lines "ok - NAME" or "not ok - NAME" (and "ok - NAME # SKIP why");
# this script numbers them into one TAP stream.  A test holding the line
# "# clockdev: timing" is skipped on the debug kernel.
# usage: run.sh KIND [TEST...]   (KIND = mainline | patched | debug)
export KIND=${1:?kind}
shift
[ $# -gt 0 ] || set -- /payload/t-*.sh
export SELFTESTS=/usr/local/bin/selftests
# Our test programs (tests/ptp/src/*.c), built by scripts/initramfs.sh.
export PATH=/usr/local/bin/clockdev:$PATH
n=0
echo 0 > /tmp/count
echo "TAP version 13"
for t in "$@"; do
	# A test marked "# clockdev: timing" measures latencies or rates that
	# the debug kernel's checkers distort: not run there.
	if [ "$KIND" = debug ] && grep -qx '# clockdev: timing' "$t"; then
		echo "ok - ${t##*/} # SKIP timing test, not run on the debug kernel"
		continue
	fi
	sh "$t" 2>&1 | while IFS= read -r line; do
		case $line in
		"ok - "*|"not ok - "*) echo "$line" ;;
		*) echo "# $line" ;;
		esac
	done
done | while IFS= read -r line; do
	case $line in
	"ok - "*) n=$((n + 1)); echo "ok $n ${line#ok - }" ;;
	"not ok - "*) n=$((n + 1)); echo "not ok $n ${line#not ok - }" ;;
	*) echo "$line" ;;
	esac
	echo "$n" > /tmp/count
done
echo "1..$(cat /tmp/count)"
