# SPDX-License-Identifier: GPL-2.0
# Shared settings for clockdev scripts; sourced, never run.
# shellcheck shell=bash

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/clockdev}
TREE=${TREE:-$CACHE/linux}
BUILD=${BUILD:-$CACHE/build}
# A developer's worktree of the series (kernels dev and dev-debug).
DEV=${DEV:-$HOME/clockdev-dev}
OUT=${OUT:-$top/out}
TARBALL=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}
JOBS=${JOBS:-$(nproc)}
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
# Depend mode: ccache hashes the sources and the headers that the
# compiler's dependency file names, instead of running the preprocessor
# first.  A miss then costs what the compilation costs (measured on
# kernel/fork.c: 1.26 s user, as plain gcc, against 1.65 s in ccache's
# default mode), which is most of a cold build.
export CCACHE_DEPEND=${CCACHE_DEPEND:-1}

log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { log "$*"; exit 1; }

# need_cmd CMD PACKAGE: fail with the package to install when CMD is missing.
need_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found: run 'make deps' (Debian package $2)"
}

# build_dir SRC NAME: make $BUILD/NAME the kernel build directory for the
# source tree SRC and print its path.  The objects really live in
# SRC/.build-NAME, a direct subdirectory of the source tree: kbuild then
# names sources by the relative path "../" instead of the tree's absolute
# path, so the mainline and the patched builds (different trees, same
# relative paths) share ccache entries and a cold patched build after the
# mainline one recompiles only what the series and its options change.
build_dir() {
	local src=$1 name=$2 real=$1/.build-$2 link=$BUILD/$2
	mkdir -p "$real" "$BUILD"
	grep -qxF '/.build-*/' "$TREE/.git/info/exclude" 2>/dev/null ||
		echo '/.build-*/' >> "$TREE/.git/info/exclude"
	if [ ! -L "$link" ] || [ "$(readlink "$link")" != "$real" ]; then
		rm -rf "$link"
		ln -s "$real" "$link"
	fi
	echo "$link"
}
