#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# initramfs.sh KIND: build $BUILD/KIND/initramfs.cpio: busybox, linuxptp,
# ethtool, ip, bash, trinity, chrony (from $CACHE/chrony/root, extracted by deps.sh),
# the kernel's ptp, timers and rtc selftests built from the same tree, the
# clockdev selftests (/usr/local/kselftest, run_kselftest.sh), the ABI
# fuzzer (tests/fuzz/abi_fuzz.c) and KIND's modules.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kind=${1:?usage: initramfs.sh KIND}
obj=$BUILD/$kind
[ -f "$obj/kernelrelease" ] || die "kernel $kind not built"
case $kind in mainline*) src=$TREE ;; dev*) src=$DEV ;; *) src=$CACHE/patched ;; esac
need_cmd cpio cpio
[ -x /bin/busybox ] || die "busybox missing: run 'make deps' (busybox-static)"
for c in ptp4l phc2sys phc_ctl pmc ts2phc; do need_cmd "$c" linuxptp; done
need_cmd ethtool ethtool
need_cmd jq jq
# chrony is never installed on the host (its postinst would start chronyd
# there): scripts/deps.sh extracts the package into $chrony.
chrony=$CACHE/chrony/root
for c in /usr/sbin/chronyd /usr/bin/chronyc; do
	[ -x "$chrony$c" ] ||
		die "'$chrony$c' not found: run 'make deps' (Debian package chrony, extracted, not installed)"
	! ldd "$chrony$c" | grep -q "not found" ||
		die "${c##*/} needs libraries missing on the host: run 'make deps' ($(ldd "$chrony$c" | awk '/not found/ { printf "%s ", $1 }'))"
done

# Selftests, built out of tree from the same source.
st=$obj/selftests
mkdir -p "$st"
for t in ptp timers rtc; do
	mkdir -p "$st/$t"
	make -s -C "$src/tools/testing/selftests/$t" OUTPUT="$st/$t" \
		KHDR_INCLUDES="-isystem $obj/usr/include" >/dev/null
done

# The clockdev selftests (tools/testing/selftests/clockdev, a patch of the
# series), built and installed by the kernel's own selftests Makefile, as
# static programs against this kernel's uapi headers.  Mainline's tree has
# no such directory: its guest runs the same tests from the patched tree,
# built against mainline's headers, and they skip what mainline lacks.
# A build failure is a "not ok" in $obj/test-programs.tap (counted by
# scripts/suite.sh) and leaves the tests out of the image.
case $kind in dev*) ksrc=$DEV/tools/testing/selftests ;; *) ksrc=$CACHE/patched/tools/testing/selftests ;; esac
ksft=$obj/kselftest
# Incremental: the build directory stays, make rebuilds what changed.
rm -rf "$ksft"
build_selftests() {
	if [ ! -d "$ksrc/clockdev" ]; then
		echo "not ok 1 - build the clockdev selftests # no $ksrc/clockdev: run 'make series'"
		return
	fi
	if msg=$(make -s -C "$ksrc" TARGETS=clockdev O="$obj/kselftest-build" \
			KHDR_INCLUDES="-isystem $obj/usr/include" LDFLAGS=-static \
			INSTALL_PATH="$ksft" install 2>&1); then
		echo "ok 1 - build the clockdev selftests (make -C tools/testing/selftests TARGETS=clockdev install)"
	else
		echo "not ok 1 - build the clockdev selftests (make -C tools/testing/selftests TARGETS=clockdev install)"
		log "cannot build the clockdev selftests for $kind"
	fi
	[ -z "$msg" ] || printf '%s\n' "$msg" | sed 's/^/# /'
}
# The clockdev tool (tools/clockdev, a patch of the series), static, for
# every kernel: mainline's guest runs it from the patched tree too, and it
# says what mainline lacks.
case $kind in dev*) tsrc=$DEV/tools/clockdev ;; *) tsrc=$CACHE/patched/tools/clockdev ;; esac
tool=$obj/clockdev-tool
build_tool() {
	if [ ! -d "$tsrc" ]; then
		echo "not ok 2 - build the clockdev tool # no $tsrc: run 'make series'"
		return
	fi
	rm -rf "$tool/root"
	if msg=$(make -s -C "$tsrc" O="$tool/build" KHDR_INCLUDES="-isystem $obj/usr/include" \
			LDFLAGS=-static DESTDIR="$tool/root" PREFIX=/usr/local install 2>&1); then
		echo "ok 2 - build the clockdev tool (make -C tools/clockdev install)"
	else
		echo "not ok 2 - build the clockdev tool (make -C tools/clockdev install)"
		log "cannot build the clockdev tool for $kind"
	fi
	[ -z "$msg" ] || printf '%s\n' "$msg" | sed 's/^/# /'
}
# The ABI fuzzer (tests/fuzz/abi_fuzz.c, run by tests/ptp/t-41-abi-fuzz.sh),
# static, with the host's gcc: it needs nothing from the kernel tree, and
# every kernel's guest runs the same program.
fuzz=$obj/abi-fuzz
build_fuzzer() {
	mkdir -p "$fuzz"
	rm -f "$fuzz/abi_fuzz"
	if msg=$(gcc -O2 -Wall -static -pthread -o "$fuzz/abi_fuzz" \
			"$top/tests/fuzz/abi_fuzz.c" 2>&1); then
		echo "ok 3 - build the ABI fuzzer (tests/fuzz/abi_fuzz.c)"
	else
		rm -f "$fuzz/abi_fuzz"
		echo "not ok 3 - build the ABI fuzzer (tests/fuzz/abi_fuzz.c)"
		log "cannot build the ABI fuzzer for $kind"
	fi
	[ -z "$msg" ] || printf '%s\n' "$msg" | sed 's/^/# /'
}
{ echo "TAP version 13"; echo "1..3"; build_selftests; build_tool; build_fuzzer; } > "$obj/test-programs.tap"

root=$obj/initramfs
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,proc,sys,dev,tmp,run,etc,clockdev,payload,var/run}
cp /bin/busybox "$root/bin/"
for a in $(/bin/busybox --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done
copy_prog() { # copy_prog PATH [FROM]: the program FROM (default PATH) at PATH, and its shared libraries
	local p=$1 from=${2:-$1} lib
	mkdir -p "$root$(dirname "$p")"
	cp -L "$from" "$root$p"
	for lib in $(ldd "$from" 2>/dev/null | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -Ln "$lib" "$root$lib"
	done
}
for c in ptp4l phc2sys phc_ctl pmc ts2phc ethtool; do copy_prog "$(command -v "$c")"; done
copy_prog /usr/sbin/ip || copy_prog /sbin/ip
copy_prog /bin/bash
# GNU timeout: kselftest's runner enforces a directory's settings timeout
# with /usr/bin/timeout --foreground, which busybox's lacks.
copy_prog /usr/bin/timeout
# jq: the guest checks the tool's --json output with it.
copy_prog /usr/bin/jq
# trinity, the system call fuzzer (tests/ptp/t-42-trinity.sh).
copy_prog /usr/bin/trinity
# chrony, at its Debian paths, from the extracted package.
copy_prog /usr/sbin/chronyd "$chrony/usr/sbin/chronyd"
copy_prog /usr/bin/chronyc "$chrony/usr/bin/chronyc"
# glibc loads libgcc_s at run time for pthread_cancel (posix_timers uses it).
for lib in /lib/x86_64-linux-gnu/libgcc_s.so.1; do
	mkdir -p "$root$(dirname "$lib")"; cp -L "$lib" "$root$lib"
done
rm -f "$root/bin/ip" "$root/sbin/ip"
ln -sf /usr/sbin/ip "$root/sbin/ip" 2>/dev/null || true
mkdir -p "$root/usr/local/bin/selftests"
cp -r "$st/ptp" "$st/timers" "$st/rtc" "$root/usr/local/bin/selftests/"
cp "$src/tools/testing/selftests/ptp/phc.sh" "$root/usr/local/bin/selftests/ptp/"
[ ! -d "$ksft" ] || cp -r "$ksft" "$root/usr/local/kselftest"
[ ! -x "$tool/root/usr/local/bin/clockdev" ] || cp "$tool/root/usr/local/bin/clockdev" "$root/usr/local/bin/"
[ ! -x "$fuzz/abi_fuzz" ] || cp "$fuzz/abi_fuzz" "$root/usr/local/bin/"
cp "$top/qemu/guest/init" "$root/init"
chmod +x "$root/init"
echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
echo "root:x:0:" > "$root/etc/group"
cp -a "$obj/modroot/lib" "$root/" 2>/dev/null || true
# Not compressed: the debug kernel (KASAN) took 13 s of its boot to inflate
# 19 MB of gzip and 4.5 s to unpack the 53 MB plain, each boot (the guest
# reads it from QEMU's memory; the host's cp of it costs nothing).
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) > "$obj/initramfs.cpio.tmp"
mv "$obj/initramfs.cpio.tmp" "$obj/initramfs.cpio"
rm -f "$obj/initramfs.cpio.gz"	# what earlier versions built
log "$obj/initramfs.cpio ($(du -h "$obj/initramfs.cpio" | cut -f1))"
