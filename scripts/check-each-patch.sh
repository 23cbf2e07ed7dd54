#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# check-each-patch.sh: build every step of the series (base..clockdev) with
# the patched kernel's configuration, one after the other in a worktree of
# its own ($CACHE/each, built in $BUILD/each -> $CACHE/each/.build-each), and print TAP: a series must
# build at every patch, not only at its end.  Incremental from one step to
# the next; the first run is a full build.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

work=$CACHE/each
cfg=$BUILD/patched/.config
[ -f "$cfg" ] || die "no patched configuration: run 'make kernel-patched' first"
git -C "$TREE" rev-parse -q --verify clockdev >/dev/null || die "no series: run 'make series'"
[ -e "$work/.git" ] || { rm -rf "$work"; git -C "$TREE" worktree prune;
	git -C "$TREE" worktree add -q --detach "$work" base; }
obj=$(build_dir "$work" each)
exec 9>"$obj/.lock"
flock 9

n=0 fail=0
commits=$(git -C "$TREE" rev-list --reverse base..clockdev)
echo "1..$(echo "$commits" | wc -l)"
for c in $commits; do
	n=$((n + 1))
	subject=$(git -C "$TREE" log -1 --format=%s "$c")
	git -C "$work" checkout -q --detach "$c"
	cp "$cfg" "$obj/.config"
	if make -s -C "$work" O="$obj" CC="ccache gcc" -j"$JOBS" olddefconfig bzImage modules \
		> "$obj/step-$n.log" 2>&1; then
		echo "ok $n - builds: $subject"
	else
		echo "not ok $n - builds: $subject"
		tail -20 "$obj/step-$n.log" | sed 's/^/# /'
		fail=$((fail + 1))
	fi
done
[ "$fail" = 0 ]
