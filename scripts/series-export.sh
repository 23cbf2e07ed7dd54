#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# series-export.sh [REV]: write series/ from the commits base..REV of the
# kernel tree $TREE (default: branch clockdev, the applied series), in the
# form git format-patch gives, and copy every file they add into the
# repository.  For a series edited as a git branch (git rebase -i in a
# worktree of $TREE), and to bring a patch edited by hand into its exported
# form.  Refuses to overwrite a repository file that holds an edit the
# series does not have (an unfolded edit): fold it first ('make
# series-fold PATCH=N').
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$top/scripts/series-lib.sh"

rev=${1:-clockdev}
"$top/scripts/tree.sh"
git -C "$TREE" rev-parse -q --verify "$rev^{commit}" >/dev/null || die "no revision $rev in $TREE"
git -C "$TREE" merge-base --is-ancestor base "$rev" || die "$rev is not based on base"
# The series as it stands (branch clockdev): a repository file that
# differs from it holds an unfolded edit, which REV must not overwrite.
series_apply
unfolded=()
while read -r f; do
	git -C "$TREE" cat-file -e "$rev:$f" 2>/dev/null &&
		! cmp -s <(git -C "$TREE" show "$rev:$f") "$top/$f" && unfolded+=("$f")
done < <(series_diff_files clockdev)
[ ${#unfolded[@]} = 0 ] || die "unfolded edits that $rev would overwrite: ${unfolded[*]}"
series_write "$rev"
log "series/ written from $rev ($(git -C "$TREE" rev-list --count "base..$rev") patches)"
