# SPDX-License-Identifier: GPL-2.0
# Shared settings for clockdev scripts; sourced, never run.
# shellcheck shell=bash

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/clockdev}
TREE=${TREE:-$CACHE/linux}
BUILD=${BUILD:-$CACHE/build}
OUT=${OUT:-$top/out}
TARBALL=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}
JOBS=${JOBS:-$(nproc)}
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}

log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { log "$*"; exit 1; }

# need_cmd CMD PACKAGE: fail with the package to install when CMD is missing.
need_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found: run 'make deps' (Debian package $2)"
}
