#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# deps.sh: install, idempotently, every Debian package clockdev needs.
set -euo pipefail
pkgs=(linux-source-6.12 qemu-system-x86 linuxptp ethtool iproute2 busybox-static
	ccache build-essential bc flex bison libelf-dev libssl-dev cpio kmod
	xz-utils rsync socat python3 python3-ply python3-git git perl gzip procps jq)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} = 0 ] && exit 0
echo "deps.sh: installing ${missing[*]}" >&2
[ "$(id -u)" = 0 ] || { echo "deps.sh: run as root to install: ${missing[*]}" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
