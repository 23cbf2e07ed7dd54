#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# series-export.sh [REV]: write series/ from the commits base..REV of the
# kernel tree $TREE (default: branch clockdev, the applied series), in the
# form git format-patch gives, and copy every file they add into the
# repository.  For a series edited as a git branch (git rebase -i in a
# worktree of $TREE), and to bring a patch edited by hand into its exported
# form.  Refuses to overwrite a repository file that holds an uncommitted
# edit: fold it first ('make series-fold PATCH=N'), or commit it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$top/scripts/series-lib.sh"

rev=${1:-clockdev}
"$top/scripts/tree.sh"
[ "$rev" != clockdev ] || series_apply
git -C "$TREE" rev-parse -q --verify "$rev^{commit}" >/dev/null || die "no revision $rev in $TREE"
git -C "$TREE" merge-base --is-ancestor base "$rev" || die "$rev is not based on base"
dirty=()
while read -r f; do
	[ -f "$top/$f" ] && [ -n "$(git -C "$top" status --porcelain -- "$f")" ] &&
		! cmp -s <(git -C "$TREE" show "$rev:$f") "$top/$f" && dirty+=("$f")
done < <(series_added "$rev")
[ ${#dirty[@]} = 0 ] || die "uncommitted edits that $rev would overwrite: ${dirty[*]}"
series_write "$rev"
log "series/ written from $rev ($(git -C "$TREE" rev-list --count "base..$rev") patches)"
