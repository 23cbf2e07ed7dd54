#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh: boot the patched kernel and show the dynamic clocks it has.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
"$top/qemu/run" --kernel patched --console-log "$OUT/demo.console" \
	--payload "$top/tests/ptp" -- sh /payload/demo.sh
