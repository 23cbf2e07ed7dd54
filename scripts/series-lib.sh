# SPDX-License-Identifier: GPL-2.0
# The series' storage, shared by series.sh, series-fold.sh and
# series-export.sh; sourced after lib.sh.
# shellcheck shell=bash
#
# The source of truth is series/*.patch, in the order of series/series:
# what git format-patch writes (--zero-commit --no-signature, and
# --abbrev=12 because the default abbreviation of the index lines grows
# with the number of objects in the repository: so the same commits give
# the same bytes on every machine), and what would be mailed.  Every file the
# series adds is also kept at its in-tree path in this repository, to be
# read and edited there; a file it only modifies (kernel/time/posix-timers.c)
# lives in the patches alone.  The two must agree: series_guard refuses a
# repository file that differs from what the series makes, or a file under
# a kernel-tree directory that no patch adds.  An edit moves into the series
# with 'make series-fold PATCH=N'; a patch edited by hand or a branch
# rebased in $TREE comes back with 'make series-export'.

work=$CACHE/series-work
ident=(-c user.name="clockdev developers" -c user.email=clockdev@localhost)
# Fixed dates: the same patches give the same commits, hence no rebuild.
export GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
# Top-level directories of this repository that hold kernel-tree files.
series_dirs=(Documentation drivers fs include kernel tools)

# series_worktree DIR: a detached worktree of $TREE at base, if DIR is none.
series_worktree() {
	[ -e "$1/.git" ] && return 0
	rm -rf "$1"
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$1" base
}

# series_patches: the patch files, in order, one a line (repository paths).
series_patches() {
	local p
	while read -r p; do
		case $p in ''|'#'*) continue ;; esac
		[ -f "$top/series/$p" ] || die "series/series names $p, which is missing"
		echo "$top/series/$p"
	done < "$top/series/series"
}

# series_apply: branch clockdev = base + series/*.patch, applied with git am.
series_apply() {
	local patches
	mapfile -t patches < <(series_patches)
	series_worktree "$work"
	git -C "$work" am --abort >/dev/null 2>&1 || true
	git -C "$work" checkout -q --detach base
	git -C "$work" reset -q --hard base
	git -C "$work" clean -qfdx
	if ! git -C "$work" "${ident[@]}" am -q --committer-date-is-author-date \
			"${patches[@]}" >&2; then
		git -C "$work" am --abort >/dev/null 2>&1 || true
		die "the series does not apply with git am (patch above)"
	fi
	git -C "$TREE" update-ref refs/heads/clockdev "$(git -C "$work" rev-parse HEAD)"
}

# series_format_patch REV DIR: write the commits base..REV into DIR as
# NNNN-subject.patch plus a 'series' file listing them.
series_format_patch() {
	local rev=$1 dir=$2
	mkdir -p "$dir"
	# MAINTAINERS first: checkpatch then knows that new files are listed.
	git -C "$TREE" format-patch -q --zero-commit --no-signature --abbrev=12 \
		-O"$top/series/orderfile" -o "$dir" "base..$rev"
	(cd "$dir" && ls -1 -- *.patch) > "$dir/series"
}

# series_added REV: the files that commits base..REV add, one a line.
series_added() {
	git -C "$TREE" diff --name-only --diff-filter=A "base" "$1"
}

# series_repo_files: the repository's files under the kernel-tree
# directories (tracked, or new and not ignored).
series_repo_files() {
	(cd "$top" && git ls-files --cached --others --exclude-standard -- \
		"${series_dirs[@]}") | sort -u | while read -r f; do
		[ -f "$top/$f" ] && echo "$f"
	done
}

# series_diff_files REV: repository files that differ from REV's tree, or
# that REV does not have.
series_diff_files() {
	local rev=$1 f
	while read -r f; do
		if ! git -C "$TREE" cat-file -e "$rev:$f" 2>/dev/null ||
		   ! cmp -s <(git -C "$TREE" show "$rev:$f") "$top/$f"; then
			echo "$f"
		fi
	done < <(series_repo_files)
}

# series_guard: the repository's kernel-tree files are exactly those the
# series adds, with the same content.  Prints what disagrees; non-zero then.
series_guard() {
	local bad=0 f
	while read -r f; do
		if git -C "$TREE" cat-file -e "clockdev:$f" 2>/dev/null; then
			log "$f: the repository's copy differs from what the series makes"
		else
			log "$f: in the repository, but no patch of the series adds it"
		fi
		bad=1
	done < <(series_diff_files clockdev)
	while read -r f; do
		[ -f "$top/$f" ] || { log "$f: the series adds it, the repository lacks it"; bad=1; }
	done < <(series_added clockdev)
	if [ $bad != 0 ]; then
		log "an edit of a repository file goes into a patch with 'make series-fold PATCH=NNNN';"
		log "a patch edited by hand or a rebased branch comes back with 'make series-export'"
		log "(README.md: 'Changing the series')"
	fi
	return $bad
}

# series_canonical: series/ is byte for byte what series_format_patch makes
# of the applied series (a hand-edited patch applies, but is not yet in the
# form that 'make series-export' writes).
series_canonical() {
	local tmp bad=0 p
	tmp=$(mktemp -d)
	series_format_patch clockdev "$tmp"
	if ! cmp -s "$tmp/series" <(series_patches | sed 's|.*/||'); then
		log "series/series does not list what format-patch names:"
		diff <(series_patches | sed 's|.*/||') "$tmp/series" >&2 || true
		bad=1
	else
		while read -r p; do
			cmp -s "$tmp/$p" "$top/series/$p" ||
				{ log "series/$p is not in exported form"; bad=1; }
		done < "$tmp/series"
	fi
	rm -rf "$tmp"
	[ $bad = 0 ] || log "run 'make series-export' to rewrite series/ from the applied series"
	return $bad
}

# series_write REV: replace series/*.patch and series/series by the
# commits base..REV, and copy every file they add into the repository.
series_write() {
	local rev=$1 tmp f
	tmp=$(mktemp -d)
	series_format_patch "$rev" "$tmp"
	find "$top/series" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' -delete
	cp "$tmp"/*.patch "$top/series/"
	{
		echo "# The clockdev series, in order (quilt style): the patch files are"
		echo "# the source of truth; README.md, 'Changing the series'."
		cat "$tmp/series"
	} > "$top/series/series"
	rm -rf "$tmp"
	while read -r f; do
		mkdir -p "$top/$(dirname "$f")"
		git -C "$TREE" show "$rev:$f" > "$top/$f"
	done < <(series_added "$rev")
}
