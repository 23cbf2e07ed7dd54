# SPDX-License-Identifier: GPL-2.0
# clockdev: the user's interface.  Real work lives in scripts/.
# Variables: CACHE (default ~/.cache/clockdev) holds the kernel tree, builds
# and ccache; OUT (default ./out) holds the patches and test results.

S := scripts
export CACHE OUT

.PHONY: help deps tree series check-each check-rt kernels kernel-% initramfs-% check demo bench-read bench-timers soak clean

help:
	@echo "clockdev targets:"
	@echo "  make deps            install the Debian packages clockdev needs (root)"
	@echo "  make tree            extract linux-source-6.12 outside the repo, tag 'base'"
	@echo "  make series          build out/patches from series/ and checkpatch it"
	@echo "  make kernels         build the patched, mainline and debug kernels"
	@echo "  make kernel-KIND     build one kernel (patched|mainline|debug|rt|mainline-debug)"
	@echo "  make initramfs-KIND  rebuild one kernel's initramfs (selftests, tests/ptp/src programs)"
	@echo "  make check           build, check the series, run tests/ptp on patched, mainline, debug"
	@echo "  make check-each      build every patch of the series in turn (slow: a full build first)"
	@echo "  make check-rt        the timer, RTC, hot-unplug and suspend tests on a PREEMPT_RT build"
	@echo "  make soak            the long tests (tests/ptp/soak: phc.sh, rtctest, suspend, ...)"
	@echo "  make demo            boot the patched kernel and show its clocks"
	@echo "  make bench-read      clock_gettime cost on a PHC fd clock, mainline vs patched (TCG)"
	@echo "  make bench-timers    timer and sleep lateness on a ptp_sim clock vs CLOCK_MONOTONIC (TCG)"
	@echo "  make clean           remove out/ (the cache stays)"
	@echo "  qemu/run --help      boot a kernel and run a command in it"

deps:
	@$(S)/deps.sh

tree: deps
	@$(S)/tree.sh

series: tree
	@$(S)/series.sh
	@$(S)/check-series.sh

kernels: kernel-patched kernel-mainline kernel-debug

kernel-mainline kernel-mainline-debug: kernel-%: tree
	@$(S)/build-kernel.sh $*
	@$(S)/initramfs.sh $*

kernel-patched kernel-debug kernel-rt: kernel-%: tree
	@$(S)/series.sh
	@$(S)/build-kernel.sh $*
	@$(S)/initramfs.sh $*

initramfs-%:
	@$(S)/initramfs.sh $*

check-each: series kernel-patched
	@$(S)/check-each-patch.sh

check: tree
	@$(S)/check.sh

check-rt: tree
	@$(S)/check-rt.sh

soak: tree
	@$(S)/soak.sh

demo: kernel-patched
	@$(S)/demo.sh

bench-read:
	@$(S)/bench-read.sh

bench-timers:
	@$(S)/bench-timers.sh

clean:
	rm -rf out
