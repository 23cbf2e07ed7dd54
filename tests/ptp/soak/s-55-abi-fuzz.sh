# SPDX-License-Identifier: GPL-2.0
# t-41's ABI fuzzer, long: 5,000,000 calls as root, then 5,000,000 as
# nobody (10,000,000 in all: each 100,000 take about 30 s on the patched
# kernel under TCG, about as long on debug: 'make soak KERNELS=debug
# TESTS=s-55'); kmemleak, where the kernel has it, scans after it (run.sh).
export ABI_FUZZ_CALLS="${ABI_FUZZ_CALLS:-5000000}"
export ABI_FUZZ_MAX_SECONDS="${ABI_FUZZ_MAX_SECONDS:-7200}"
. /payload/t-41-abi-fuzz.sh
