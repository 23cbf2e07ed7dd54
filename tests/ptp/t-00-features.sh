# SPDX-License-Identifier: GPL-2.0
# What the kernel offers on dynamic clocks (the clockdev selftests' program
# features): "feature NAME: yes|no" lines, which scripts/judge.sh compares
# with what a kernel built from the series must offer.  Not checks here:
# mainline lacks most of them by design.
. /payload/lib.sh
"$KSFT/clockdev/features"
if [ -n "$(find /lib/modules/"$(uname -r)" -name 'clockdev_test.ko*' 2>/dev/null)" ]; then
	echo "feature kunit: yes (module clockdev_test)"
else
	echo "feature kunit: no (no module clockdev_test)"
fi
