# SPDX-License-Identifier: GPL-2.0
# clockdev: the user's interface.  Real work lives in scripts/.
# Variables: CACHE (default ~/.cache/clockdev) holds the kernel tree, builds
# and ccache; OUT (default ./out) holds the patches and test results;
# TESTS and KERNELS select part of a suite (scripts/suite.sh); PATCH names
# the patch that series-fold folds into.

S := scripts
export CACHE OUT TESTS KERNELS NO_MAINLINE

.PHONY: help deps tree series series-fold series-export check-each check-rt check-debug check-link kernels kernel-% initramfs-% check demo bench bench-read bench-timers soak clean

help:
	@echo "clockdev targets:"
	@echo "  make deps            install the Debian packages clockdev needs (root)"
	@echo "  make tree            extract linux-source-6.12 outside the repo, tag 'base'"
	@echo "  make series          apply series/*.patch, check the repository against it, write out/patches"
	@echo "  make series-fold PATCH=NNNN [FILES=...]  fold the repository's kernel-tree edits into patch NNNN"
	@echo "  make series-export [REV=branch]  rewrite series/ from a branch of the kernel tree"
	@echo "  make kernels         build the patched, mainline and debug kernels"
	@echo "  make kernel-KIND     build one kernel (patched|mainline|debug|rt|mainline-debug)"
	@echo "  make kernel-dev      build the series branch checked out in DEV (~/clockdev-dev), as patched"
	@echo "  make initramfs-KIND  rebuild one kernel's initramfs (selftests, tests/ptp/src programs)"
	@echo "  make check           check the series, build, run tests/ptp on patched and debug beside mainline"
	@echo "  make check-each      build every patch of the series in turn (slow: a full build first)"
	@echo "  make check-debug     every test of check on the debug kernel (check runs part of them there)"
	@echo "  make check-rt        the timer, RTC, hot-unplug and suspend tests on a PREEMPT_RT build"
	@echo "  make check-link      two patched guests on a virtual link: ptp4l, phc2sys, timers at one PHC time"
	@echo "  make soak            the long tests (tests/ptp/soak: phc.sh, rtctest, suspend, ...)"
	@echo "    (TESTS=\"word ...\" runs the guest tests whose name holds a word, KERNELS=\"...\" picks"
	@echo "     the kernels under test; results stay in out/runs/, out/SUITE is the latest)"
	@echo "  make demo            boot the patched kernel, show its clocks, draw out/demo/*.png (gnuplot)"
	@echo "  make bench           one table and pictures: dispatch, scaling, timers, mapping, teardown (~25 min)"
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

series-fold: tree
	@$(S)/series-fold.sh $(PATCH) $(FILES)

series-export: tree
	@$(S)/series-export.sh $(REV)

kernels: kernel-patched kernel-mainline kernel-debug

kernel-mainline kernel-mainline-debug: kernel-%: tree
	@$(S)/build-kernel.sh $*
	@$(S)/initramfs.sh $*

kernel-dev kernel-dev-debug: kernel-%: tree
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
	@$(S)/suite.sh check

check-debug: tree
	@$(S)/suite.sh debug

check-rt: tree
	@$(S)/suite.sh rt

check-link: kernel-patched
	@$(S)/link.sh patched

soak: tree
	@$(S)/suite.sh soak

demo: kernel-patched
	@$(S)/demo.sh

bench: kernel-patched kernel-mainline
	@$(S)/bench.sh

bench-read:
	@$(S)/bench-read.sh

bench-timers:
	@$(S)/bench-timers.sh

clean:
	rm -rf out
