#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# series.sh: the patch files are the series.  Apply series/*.patch (in the
# order of series/series) with git am on top of the pristine tree ('base'),
# as branch 'clockdev' of $TREE; check that the repository's kernel-tree
# files are exactly what the series makes (scripts/series-lib.sh:
# series_guard); write out/patches; check out the result in the patched
# worktree ($CACHE/patched), touching only the files that changed, so that
# kernel builds stay incremental.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$top/scripts/series-lib.sh"

"$top/scripts/tree.sh"
series_apply
series_guard || die "the repository and the series disagree (see above)"
series_canonical || die "series/ is not what 'make series-export' writes (see above)"

rm -rf "$OUT/patches"
mkdir -p "$OUT/patches"
series_format_patch clockdev "$OUT/patches"
log "$(wc -l < "$OUT/patches/series") patches in $OUT/patches"

patched=$CACHE/patched
series_worktree "$patched"
head=$(git -C "$TREE" rev-parse clockdev)
if [ "$(git -C "$patched" rev-parse HEAD)" != "$head" ]; then
	git -C "$patched" checkout -q --detach "$head"
fi
