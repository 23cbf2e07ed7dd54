# SPDX-License-Identifier: GPL-2.0
# Helpers for guest tests; sourced.
# check NAME CMD...: run CMD, report ok/not ok under NAME, show its output.
check() {
	name=$1; shift
	if out=$("$@" 2>&1); then echo "ok - $name"; else echo "not ok - $name"; fi
	[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/  /'
}
