#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh: boot the patched kernel and show the dynamic clocks it has; then
# draw what it measured (scripts/demo-plot.sh) into $OUT/demo/.
# The guest (tests/ptp/demo.sh) prints its raw measurements as lines
# "@data NAME ...": they are kept in $OUT/demo/guest.out, not shown.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

dir=$OUT/demo
mkdir -p "$dir"
# Only this run's pictures: a stale one must not pass for a new one.
rm -f "$dir"/*.png "$dir"/*.dat "$dir/guest.out"
rc=0
# The guest's serial lines end in CR LF.
"$top/qemu/run" --kernel patched --console-log "$dir/console.log" \
	--payload "$top/tests/ptp" -- sh /payload/demo.sh |
	sed -u 's/\r$//' | tee "$dir/guest.out" | grep --line-buffered -v '^@data ' ||
	rc=${PIPESTATUS[0]}
echo
"$top/scripts/demo-plot.sh" "$dir" || true
exit "$rc"
