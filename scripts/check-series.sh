#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# check-series.sh: TAP checks of out/patches: each patch passes
# checkpatch --strict, and the series applies with git am to a pristine tree.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mapfile -t patches < "$OUT/patches/series"
echo "TAP version 13"
echo "1..$(( ${#patches[@]} + 1 ))"
n=0 fail=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	# UNKNOWN_COMMIT_ID: the Debian tree has no upstream history, so the
	# commit a Fixes: tag names cannot be looked up here.
	# /usr/bin first: its python3 has the modules spdxcheck.py needs
	# (python3-ply, python3-git), which another python3 on PATH may lack.
	if res=$(cd "$TREE" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict -q \
			--ignore UNKNOWN_COMMIT_ID "$OUT/patches/$p" 2>&1); then
		echo "ok $n - checkpatch --strict $p"
	else
		echo "not ok $n - checkpatch --strict $p"; fail=1
		printf '%s\n' "$res" | sed 's/^/# /'
	fi
done
n=$((n + 1))
am=$CACHE/am-check
rm -rf "$am"; git -C "$TREE" worktree prune
# The pristine tree's index, and on disk only the files the series
# touches: git am reads no others.  A checkout of the whole tree (80,000
# files) is a burst of disk writes that, beside the guests, slowed the
# wake-ups of their vCPUs (abuse.victim_reads fell to a third).
git -C "$TREE" worktree add -q --detach --no-checkout "$am" base
git -C "$am" read-tree HEAD
(cd "$OUT/patches" &&
 sed -n 's|^diff --git a/\(.*\) b/\(.*\)$|\1\n\2|p' "${patches[@]}") | sort -u |
	while read -r f; do
		if git -C "$am" cat-file -e "HEAD:$f" 2>/dev/null; then echo "$f"; fi
	done | (cd "$am" && xargs -r git checkout -q HEAD --)
if (cd "$am" && git -c user.name=t -c user.email=t@t am -q "${patches[@]/#/$OUT/patches/}") 2>&1 | sed 's/^/# /'; \
   [ "$(git -C "$am" rev-parse HEAD^{tree})" = "$(git -C "$TREE" rev-parse clockdev^{tree})" ]; then
	echo "ok $n - series applies with git am to pristine base"
else
	echo "not ok $n - series applies with git am to pristine base"; fail=1
fi
git -C "$TREE" worktree remove --force "$am"
exit $fail
