#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# deps.sh: install, idempotently, every Debian package clockdev needs, and
# extract chrony for the guest image (never installed on the host).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# libcap2 ... libseccomp2: the shared libraries of chronyd and chronyc
# (apt-cache depends chrony), which the guest image copies from the host.
# gnuplot-nox: the pictures of 'make demo' (scripts/demo-plot.sh).
# trinity: the system call fuzzer, copied into the guest image
# (tests/ptp/t-42-trinity.sh); it is never run on the host.
pkgs=(linux-source-6.12 qemu-system-x86 linuxptp ethtool iproute2 busybox-static
	ccache build-essential bc flex bison libelf-dev libssl-dev cpio kmod
	xz-utils rsync socat python3 python3-ply python3-git git perl gzip procps jq
	libcap2 libedit2 libgnutls30 libnettle8 libseccomp2 gnuplot-nox trinity)

# QEMU 10 from bookworm-backports on Debian 12: under Debian 12's own QEMU
# 7.2 the e1000e's PHC does not tick and there is no igb (qemu/README.md,
# "Which QEMU").  The suite is enabled from the mirror this machine's own
# apt configuration already uses for bookworm; no host name is written here.
# QEMU_SUITE=stable keeps the distribution's QEMU.
QEMU_MIN=1:10.0
backports() {
	local codename uri keyring list=/etc/apt/sources.list.d/clockdev-backports.sources
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ "$codename" = bookworm ] || return 1
	[ "${QEMU_SUITE:-backports}" = backports ] || return 1
	if ! apt-get indextargets --format '$(RELEASE)' 'Identifier: Packages' 2>/dev/null |
			grep -qx bookworm-backports; then
		uri=$(apt-get indextargets --format '$(REPO_URI)' 'Release: bookworm' \
			'Identifier: Packages' 2>/dev/null | head -n1)
		[ -n "$uri" ] || die "no apt source for bookworm to take bookworm-backports from"
		[ "$(id -u)" = 0 ] || die "run as root to enable bookworm-backports (for QEMU 10)"
		keyring=/usr/share/keyrings/debian-archive-keyring.gpg
		{
			echo "# Written by clockdev's scripts/deps.sh: QEMU 10 for the test guests."
			echo "Types: deb"
			echo "URIs: $uri"
			echo "Suites: bookworm-backports"
			echo "Components: main"
			[ ! -r "$keyring" ] || echo "Signed-By: $keyring"
		} > "$list"
		log "enabled bookworm-backports from $uri in $list"
	fi
	return 0
}
qemu_from=
if backports; then
	qemu_from=bookworm-backports
	v=$(dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null || true)
	if [ -z "$v" ] || ! dpkg --compare-versions "$v" ge "$QEMU_MIN"; then
		[ "$(id -u)" = 0 ] || die "run as root to install QEMU 10 from bookworm-backports"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -q
		log "installing qemu-system-x86 from bookworm-backports (installed: ${v:-none})"
		apt-get install -y -q --no-install-recommends -t bookworm-backports \
			qemu-system-x86
	fi
fi

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} != 0 ]; then
	echo "deps.sh: installing ${missing[*]}" >&2
	[ "$(id -u)" = 0 ] || { echo "deps.sh: run as root to install: ${missing[*]}" >&2; exit 1; }
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# chrony, for the guest (tests/ptp/t-87-chrony.sh): the package is only
# downloaded and extracted into $CACHE/chrony/root, from which
# scripts/initramfs.sh takes chronyd and chronyc.  Installing it would run
# its postinst, which starts chronyd on the host and removes the host's
# time daemon (it conflicts with systemd-timesyncd, ntpsec, openntpd).
chrony=$CACHE/chrony
if [ ! -x "$chrony/root/usr/sbin/chronyd" ] || [ ! -x "$chrony/root/usr/bin/chronyc" ]; then
	mkdir -p "$chrony/deb"
	rm -f "$chrony"/deb/*.deb
	# As root, apt hands downloads to the user _apt, who cannot write
	# under a home directory: download as the caller instead.
	get() { (cd "$chrony/deb" && apt-get download -q -o APT::Sandbox::User="$(id -un)" chrony); }
	if ! get > "$chrony/download.log" 2>&1; then
		# Empty or stale package lists (a fresh system, a mirror
		# that moved on): update them, once, and try again.
		[ "$(id -u)" = 0 ] || { cat "$chrony/download.log" >&2
			die "cannot download chrony: run as root to update the package lists"; }
		apt-get update -q > "$chrony/update.log" 2>&1 ||
			{ cat "$chrony/update.log" >&2; die "apt-get update failed"; }
		get > "$chrony/download.log" 2>&1 ||
			{ cat "$chrony/download.log" >&2; die "cannot download chrony"; }
	fi
	rm -rf "$chrony/root.tmp"
	dpkg-deb -x "$chrony"/deb/chrony_*.deb "$chrony/root.tmp"
	rm -rf "$chrony/root"
	mv "$chrony/root.tmp" "$chrony/root"
	log "chrony $(dpkg-deb -f "$chrony"/deb/chrony_*.deb Version) extracted into $chrony/root (not installed)"
fi

v=$(dpkg-query -W -f='${Version}' qemu-system-x86)
log "QEMU: $(qemu-system-x86_64 --version | head -n1) (qemu-system-x86 $v${qemu_from:+, from $qemu_from})"
