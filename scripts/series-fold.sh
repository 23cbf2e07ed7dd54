#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# series-fold.sh PATCH [FILE...]: fold the repository's edits of
# kernel-tree files (every file that differs from what the series makes,
# and every new one; or only the FILEs named) into patch PATCH (its number, e.g. 0010, or a unique part of its name),
# then rewrite series/ from the result.  Later patches are rebased on top;
# if one of them no longer applies, nothing is changed and the conflict is
# shown: edit the series as a branch instead (README.md, 'Changing the
# series').
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$top/scripts/series-lib.sh"

want=${1:?usage: series-fold.sh PATCH [FILE...] (e.g. 0010)}
shift
"$top/scripts/tree.sh"
series_apply
mapfile -t matches < <(series_patches | sed 's|.*/||' | grep -F -- "$want" || true)
[ ${#matches[@]} = 1 ] || die "PATCH=$want names ${#matches[@]} patches of series/series"
n=$(series_patches | sed 's|.*/||' | grep -nxF -- "${matches[0]}" | cut -d: -f1)
target=$(git -C "$TREE" rev-list --reverse base..clockdev | sed -n "${n}p")
subject=$(git -C "$TREE" log -1 --format=%s "$target")

mapfile -t files < <(series_diff_files clockdev)
if [ $# -gt 0 ]; then
	mapfile -t files < <(printf '%s\n' "${files[@]}" | grep -xF -f <(printf '%s\n' "$@") || true)
fi
[ ${#files[@]} -gt 0 ] || { log "the repository holds no edit to fold"; exit 0; }
for f in "${files[@]}"; do
	mkdir -p "$work/$(dirname "$f")"
	cp "$top/$f" "$work/$f"
	git -C "$work" add -f -- "$f"
done
git -C "$work" "${ident[@]}" commit -q -m "fixup! $subject"
if ! GIT_SEQUENCE_EDITOR=: git -C "$work" "${ident[@]}" rebase -q -i \
		--autosquash --committer-date-is-author-date base >&2; then
	git -C "$work" status --short >&2 || true
	git -C "$work" rebase --abort >/dev/null 2>&1 || true
	die "a later patch does not apply once the edit is in ${matches[0]}: nothing changed"
fi
series_write "$(git -C "$work" rev-parse HEAD)"
log "folded into ${matches[0]}: ${files[*]}"
"$top/scripts/series.sh"
