#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# export-series.sh [REV]: write series/ from the commits base..REV of the
# kernel tree (default: branch 'dev'), the developer's way back from a git
# branch to the repository.  One step per commit:
#   message  the commit message
#   files    files the commit adds under kernel/clockdev, include, drivers,
#            Documentation, tools or lib; their final content (at REV) is
#            copied into this repository at the same path
#   diff     everything else the commit changes (edits of existing files,
#            and later edits of files an earlier step added)
# scripts/series.sh rebuilds the same commits from series/ (it reverse-applies
# later diffs to recover a file as an earlier step added it) and checks that
# the result has the tree of REV.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

rev=${1:-dev}
git -C "$TREE" rev-parse -q --verify "$rev^{commit}" >/dev/null || die "no revision $rev in $TREE"
owned='^(kernel/clockdev|include|drivers|Documentation|tools|lib)/'

slug() { # slug SUBJECT: "ptp: convert to clockdev" -> "ptp-convert-to-clockdev"
	printf '%s' "$1" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\+/-/g; s/^-//; s/-$//' | cut -c1-50 | sed 's/-$//'
}

# Remove the old steps (only directories that look like steps).
find "$top/series" -mindepth 1 -maxdepth 1 -type d -name '[0-9][0-9][0-9][0-9]-*' -exec rm -rf {} +
{
	echo "# The clockdev patch series, in order: one directory per commit,"
	echo "# written by scripts/export-series.sh.  Each directory holds 'message',"
	echo "# and optionally 'files' (paths of this repository copied into the tree)"
	echo "# and 'diff' (applied with git apply)."
} > "$top/series/series"

n=0
for c in $(git -C "$TREE" rev-list --reverse "base..$rev"); do
	n=$((n + 1))
	subject=$(git -C "$TREE" log -1 --format=%s "$c")
	step=$(printf '%04d-%s' "$n" "$(slug "$subject")")
	dir=$top/series/$step
	mkdir -p "$dir"
	git -C "$TREE" log -1 --format=%B "$c" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' > "$dir/message"
	added=$(git -C "$TREE" diff --name-only --diff-filter=A "$c^" "$c" | grep -E "$owned" || true)
	if [ -n "$added" ]; then
		printf '%s\n' "$added" > "$dir/files"
		while read -r f; do
			mkdir -p "$top/$(dirname "$f")"
			git -C "$TREE" show "$rev:$f" > "$top/$f"
		done <<< "$added"
	fi
	excl=()
	while read -r f; do [ -n "$f" ] && excl+=(":(exclude)$f"); done <<< "$added"
	git -C "$TREE" diff --binary "$c^" "$c" -- . "${excl[@]}" > "$dir/diff"
	[ -s "$dir/diff" ] || rm -f "$dir/diff"
	echo "$step" >> "$top/series/series"
done
log "$n steps written to series/"
