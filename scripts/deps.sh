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
# qemu-system-x86: below, from bookworm-backports.
pkgs=(linux-source-6.12 linuxptp ethtool iproute2 busybox-static
	ccache build-essential bc flex bison libelf-dev libssl-dev cpio kmod
	xz-utils rsync socat python3 python3-ply python3-git git perl gzip procps jq
	libcap2 libedit2 libgnutls30 libnettle8 libseccomp2 gnuplot-nox trinity)
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

# QEMU 10 from bookworm-backports, not Debian 12's QEMU 7.2: under 7.2 the
# e1000e's PHC does not tick and there is no igb, so no timer test could run
# on a real NIC driver's clock (qemu/README.md).  The backports suite is
# enabled from the mirror this system already uses for bookworm, found in
# its apt sources; nothing here names a host.  Other systems keep their
# own QEMU.
APT_ETC=${APT_ETC:-/etc/apt}
QEMU_MIN=1:10.0

# apt_files FILE...: the contents of the apt source files that exist.
apt_files() {
	local f
	for f in "$@"; do
		[ ! -f "$f" ] || cat "$f"
	done
}

# debian_mirror: the first URI of a bookworm source in $APT_ETC (deb822
# .sources stanzas, then one-line sources.list entries).
debian_mirror() {
	local f
	{
		for f in "$APT_ETC"/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			awk 'BEGIN { RS = ""; FS = "\n" }
			{ u = ""; s = 0
			  for (i = 1; i <= NF; i++) {
				if ($i ~ /^URIs:/) { u = $i; sub(/^URIs:[ \t]*/, "", u); sub(/[ \t].*/, "", u) }
				if ($i ~ /^Suites:/ && $i ~ /[ \t]bookworm([ \t]|$)/) s = 1
			  }
			  if (s && u != "") print u }' "$f"
		done
		apt_files "$APT_ETC"/sources.list "$APT_ETC"/sources.list.d/*.list |
			awk '$1 == "deb" { i = 2
				if ($2 ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
				if ($(i + 1) == "bookworm") print $i }'
	} | head -n 1
}

# has_backports: some apt source of this system already has bookworm-backports.
has_backports() {
	apt_files "$APT_ETC"/sources.list "$APT_ETC"/sources.list.d/*.list \
		"$APT_ETC"/sources.list.d/*.sources |
		grep -v '^[[:space:]]*#' | grep -w 'bookworm-backports' > /dev/null
}

qemu_version() { dpkg-query -W -f='${Version}' qemu-system-x86 2>/dev/null || true; }

v=$(qemu_version)
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
if [ -n "$v" ] && dpkg --compare-versions "$v" ge "$QEMU_MIN"; then
	:
elif [ "$codename" = bookworm ]; then
	[ "$(id -u)" = 0 ] || die "run as root to install QEMU $QEMU_MIN or later from bookworm-backports"
	if ! has_backports; then
		mirror=$(debian_mirror)
		[ -n "$mirror" ] || die "no bookworm source in $APT_ETC: cannot enable bookworm-backports"
		cat > "$APT_ETC/sources.list.d/clockdev-bookworm-backports.sources" <<SRC
# Written by clockdev's scripts/deps.sh: QEMU 10 for the test guests.
Types: deb
URIs: $mirror
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
		log "bookworm-backports enabled from $mirror ($APT_ETC/sources.list.d/clockdev-bookworm-backports.sources)"
	fi
	apt-get update -q
	# seabios: backports' QEMU needs a newer one than bookworm's.
	apt-get install -y -q --no-install-recommends -t bookworm-backports \
		qemu-system-x86 qemu-system-common qemu-system-data seabios
elif [ -z "$v" ]; then
	[ "$(id -u)" = 0 ] || die "run as root to install qemu-system-x86"
	apt-get install -y -q --no-install-recommends qemu-system-x86
fi
v=$(qemu_version)
dpkg --compare-versions "${v:-0}" ge "$QEMU_MIN" ||
	log "warning: QEMU $v, older than $QEMU_MIN: the e1000e's PHC does not tick and there is no igb"
log "QEMU: $(qemu-system-x86_64 --version | head -n 1)"
