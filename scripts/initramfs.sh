#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# initramfs.sh KIND: build $BUILD/KIND/initramfs.cpio.gz: busybox, linuxptp,
# ethtool, ip, bash, the kernel's ptp, timers and rtc selftests built from the
# same tree, our test programs (tests/ptp/src/*.c, in /usr/local/bin/clockdev)
# and KIND's modules.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kind=${1:?usage: initramfs.sh KIND}
obj=$BUILD/$kind
[ -f "$obj/kernelrelease" ] || die "kernel $kind not built"
case $kind in mainline*) src=$TREE ;; *) src=$CACHE/patched ;; esac
need_cmd cpio cpio
[ -x /bin/busybox ] || die "busybox missing: run 'make deps' (busybox-static)"
for c in ptp4l phc2sys phc_ctl pmc ts2phc; do need_cmd "$c" linuxptp; done
need_cmd ethtool ethtool

# Selftests, built out of tree from the same source.
st=$obj/selftests
mkdir -p "$st"
for t in ptp timers rtc; do
	mkdir -p "$st/$t"
	make -s -C "$src/tools/testing/selftests/$t" OUTPUT="$st/$t" \
		KHDR_INCLUDES="-isystem $obj/usr/include" >/dev/null
done

# Our test programs: one static binary per tests/ptp/src/*.c, built against
# this kernel's exported uapi headers.  One that does not build is left out
# of the image and reported as "not ok" in $obj/test-programs.tap, which
# check.sh and soak.sh count.
tb=$obj/clockdev-bin
rm -rf "$tb"; mkdir -p "$tb"
build_test_programs() {
	local c name n=0 msg
	echo "TAP version 13"
	for c in "$top"/tests/ptp/src/*.c; do
		[ -e "$c" ] || continue
		n=$((n + 1)) name=$(basename "$c" .c)
		if msg=$(gcc -O2 -Wall -static -pthread -isystem "$obj/usr/include" \
				-o "$tb/$name" "$c" 2>&1); then
			echo "ok $n - build tests/ptp/src/$name.c"
		else
			echo "not ok $n - build tests/ptp/src/$name.c"
			log "cannot build tests/ptp/src/$name.c for $kind: left out"
		fi
		[ -z "$msg" ] || printf '%s\n' "$msg" | sed 's/^/# /'
	done
	echo "1..$n"
}
build_test_programs > "$obj/test-programs.tap"

root=$obj/initramfs
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,proc,sys,dev,tmp,run,etc,clockdev,payload,var/run}
cp /bin/busybox "$root/bin/"
for a in $(/bin/busybox --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done
copy_prog() { # copy_prog PATH: the program and its shared libraries
	local p=$1 lib
	mkdir -p "$root$(dirname "$p")"
	cp -L "$p" "$root$p"
	for lib in $(ldd "$p" 2>/dev/null | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -Ln "$lib" "$root$lib"
	done
}
for c in ptp4l phc2sys phc_ctl pmc ts2phc ethtool; do copy_prog "$(command -v "$c")"; done
copy_prog /usr/sbin/ip || copy_prog /sbin/ip
copy_prog /bin/bash
# glibc loads libgcc_s at run time for pthread_cancel (posix_timers uses it).
for lib in /lib/x86_64-linux-gnu/libgcc_s.so.1; do
	mkdir -p "$root$(dirname "$lib")"; cp -L "$lib" "$root$lib"
done
rm -f "$root/bin/ip" "$root/sbin/ip"
ln -sf /usr/sbin/ip "$root/sbin/ip" 2>/dev/null || true
mkdir -p "$root/usr/local/bin/selftests"
cp -r "$st/ptp" "$st/timers" "$st/rtc" "$root/usr/local/bin/selftests/"
cp "$src/tools/testing/selftests/ptp/phc.sh" "$root/usr/local/bin/selftests/ptp/"
cp -r "$tb" "$root/usr/local/bin/clockdev"
cp "$top/qemu/guest/init" "$root/init"
chmod +x "$root/init"
echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
echo "root:x:0:" > "$root/etc/group"
cp -a "$obj/modroot/lib" "$root/" 2>/dev/null || true
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -1 > "$obj/initramfs.cpio.gz.tmp"
mv "$obj/initramfs.cpio.gz.tmp" "$obj/initramfs.cpio.gz"
log "$obj/initramfs.cpio.gz ($(du -h "$obj/initramfs.cpio.gz" | cut -f1))"
