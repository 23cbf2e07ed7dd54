#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tree.sh: extract the Debian linux-source-6.12 tarball outside the
# repository into $TREE and make it a git repository tagged 'base'.
# Idempotent: an existing tree with a 'base' tag is left alone.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if git -C "$TREE" rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
	exit 0
fi
[ -f "$TARBALL" ] || die "$TARBALL missing: run 'make deps' (Debian package linux-source-6.12)"
need_cmd git git
log "extracting $TARBALL into $TREE"
tmp=$CACHE/linux.tmp
rm -rf "$tmp" "$TREE"
mkdir -p "$tmp"
tar -C "$tmp" --strip-components=1 -xf "$TARBALL"
# Debian's top-level .gitignore ignores everything at the top: add with -f.
git -C "$tmp" init -q -b mainline
git -C "$tmp" add -f -A .
git -C "$tmp" -c user.name=clockdev -c user.email=clockdev@localhost \
	commit -q -m "Linux $(make -s -C "$tmp" kernelversion) (Debian linux-source-6.12)"
git -C "$tmp" tag base
mv "$tmp" "$TREE"
log "tree ready: $TREE (tag base)"
