#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# series.sh: turn series/ into one commit per step on top of 'base', export
# them with git format-patch into out/patches (plus a 'series' file), check
# every patch with checkpatch --strict, and check out the result in the
# patched worktree ($CACHE/patched) touching only the files that changed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$top/scripts/tree.sh"
work=$CACHE/series-work
patched=$CACHE/patched
ident=(-c user.name="clockdev developers" -c user.email=clockdev@localhost)
# Fixed dates: the same sources give the same commits, hence no rebuild.
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"

worktree() { # worktree DIR: a detached worktree of $TREE at base
	[ -e "$1/.git" ] || { rm -rf "$1"; git -C "$TREE" worktree prune; \
		git -C "$TREE" worktree add -q --detach "$1" base; }
}
worktree "$work"
git -C "$work" checkout -q --detach base
git -C "$work" reset -q --hard base
git -C "$work" clean -qfdx

steps=()
while read -r step; do
	case $step in ''|'#'*) continue ;; esac
	steps+=("$step")
done < "$top/series/series"

# file_as_added STEP FILE DEST: put FILE into DEST as STEP adds it: the
# repository holds its final content, so undo the diffs of later steps
# that change it, last first.
file_as_added() {
	local step=$1 f=$2 dest=$3 i later=() tmp
	for ((i = ${#steps[@]} - 1; i >= 0; i--)); do
		[ "${steps[i]}" = "$step" ] && break
		if [ -f "$top/series/${steps[i]}/diff" ] &&
		   grep -qxF "diff --git a/$f b/$f" "$top/series/${steps[i]}/diff"; then
			later+=("${steps[i]}")
		fi
	done
	mkdir -p "$dest/$(dirname "$f")"
	cp "$top/$f" "$dest/$f"
	[ ${#later[@]} -gt 0 ] || return 0
	tmp=$(mktemp -d)
	mkdir -p "$tmp/$(dirname "$f")"
	cp "$top/$f" "$tmp/$f"
	for i in "${later[@]}"; do
		(cd "$tmp" && git apply -R --include="$f" "$top/series/$i/diff") ||
			die "series/$i/diff does not reverse-apply to $f"
	done
	cp "$tmp/$f" "$dest/$f"
	rm -rf "$tmp"
}

for step in "${steps[@]}"; do
	dir=$top/series/$step
	[ -f "$dir/message" ] || die "series/$step/message missing"
	if [ -f "$dir/files" ]; then
		while read -r f; do
			case $f in ''|'#'*) continue ;; esac
			[ -f "$top/$f" ] || die "series/$step/files: $f not in the repository"
			file_as_added "$step" "$f" "$work"
			git -C "$work" add -f "$f"
		done < "$dir/files"
	fi
	if [ -f "$dir/diff" ]; then
		git -C "$work" apply --index "$dir/diff" || die "series/$step/diff does not apply"
	fi
	git -C "$work" "${ident[@]}" commit -q -F "$dir/message" ||
		die "series/$step: nothing to commit"
done

head=$(git -C "$work" rev-parse HEAD)
git -C "$TREE" update-ref refs/heads/clockdev "$head"

rm -rf "$OUT/patches"
mkdir -p "$OUT/patches"
# MAINTAINERS first: checkpatch then knows that new files are listed.
git -C "$work" format-patch -q --no-signature -O"$top/series/orderfile" -o "$OUT/patches" base..clockdev
(cd "$OUT/patches" && ls -1 ./*.patch | sed 's|^\./||') > "$OUT/patches/series"
log "$(wc -l < "$OUT/patches/series") patches in $OUT/patches"

worktree "$patched"
if [ "$(git -C "$patched" rev-parse HEAD)" != "$head" ]; then
	git -C "$patched" checkout -q --detach "$head"
fi
