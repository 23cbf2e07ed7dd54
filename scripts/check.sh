#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# check.sh: the body of 'make check'.  Builds what is needed, checks the
# series, runs tests/ptp on the patched and the mainline kernel (in
# parallel), and prints TAP.  A test that fails on the patched kernel counts
# as a failure unless it fails on mainline too (a pre-existing failure,
# listed by name).  Ends with "N passed, N failed[, N skipped]".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

res=$OUT/check
rm -rf "$res"; mkdir -p "$res"
pass=0 fail=0 skip=0
count() { # count TAPFILE PREFIX: add a TAP file's results to the totals
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*"# SKIP"*) skip=$((skip + 1)); echo "$2$line" ;;
		"ok "*) pass=$((pass + 1)); echo "$2$line" ;;
		"not ok "*) fail=$((fail + 1)); echo "$2$line" ;;
		*) echo "$2$line" ;;
		esac
	done < "$1"
}

echo "# series"
if "$top/scripts/series.sh" > "$res/series.log" 2>&1; then
	"$top/scripts/check-series.sh" > "$res/series.tap" 2>&1 || true
else
	cat "$res/series.log"; echo "not ok 1 - make series" > "$res/series.tap"
fi
count "$res/series.tap" "series: "

kernels=(patched mainline)
for k in "${kernels[@]}"; do
	"$top/scripts/build-kernel.sh" "$k"
	"$top/scripts/initramfs.sh" "$k"
done

start=$(date +%s)
for k in "${kernels[@]}"; do
	( set +e
	  "$top/qemu/run" --kernel "$k" --timeout 1200 --console-log "$res/$k.console" \
		--payload "$top/tests/ptp" -- sh /payload/run.sh "$k" > "$res/$k.tap" 2>"$res/$k.err"
	  echo $? > "$res/$k.rc" ) &
done
wait
log "guests finished in $(( $(date +%s) - start )) s"

# Compare: names that fail on mainline are the baseline.
names() { sed -n "s/^$1 [0-9]* \(.*\)/\1/p" "$2"; }
names "not ok" "$res/mainline.tap" > "$res/mainline.failed"
for k in "${kernels[@]}"; do
	echo "# kernel $k (guest exit status $(cat "$res/$k.rc"))"
	[ "$(cat "$res/$k.rc")" = 0 ] || { cat "$res/$k.err"; }
	while IFS= read -r line; do
		case $line in
		"not ok "*)
			name=${line#not ok * }
			if [ "$k" = mainline ] || grep -qxF "$name" "$res/mainline.failed"; then
				echo "$k: ok ${line#not ok } # pre-existing failure: fails on mainline too"
				pass=$((pass + 1))
				echo "$name" >> "$res/baseline-failures"
			else
				echo "$k: $line"; fail=$((fail + 1))
			fi ;;
		"ok "*"# SKIP"*) skip=$((skip + 1)); echo "$k: $line" ;;
		"ok "*) pass=$((pass + 1)); echo "$k: $line" ;;
		*) echo "$k: $line" ;;
		esac
	done < "$res/$k.tap"
	# A guest that died or reported a kernel problem is a failure of its own.
	if [ "$(cat "$res/$k.rc")" = 0 ]; then
		echo "$k: ok - guest finished cleanly (no kernel report)"; pass=$((pass + 1))
	else
		echo "$k: not ok - guest finished cleanly (status $(cat "$res/$k.rc"))"; fail=$((fail + 1))
	fi
done
if [ -s "$res/baseline-failures" ]; then
	echo "# failing on mainline as well (baseline, not counted as regressions):"
	sort -u "$res/baseline-failures" | sed 's/^/#   /'
fi
line="$pass passed, $fail failed"
[ "$skip" = 0 ] || line="$line, $skip skipped"
echo "$line"
[ "$fail" = 0 ]
