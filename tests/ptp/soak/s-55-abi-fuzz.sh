# SPDX-License-Identifier: GPL-2.0
# t-41's ABI fuzzer, long: 5,000,000 calls as root, then 5,000,000 as
# nobody (10,000,000 in all: measured 5,000,000 in 501 s and in 307 s on
# the patched kernel under TCG; on debug ($SUBSET) 750,000 in 973-1011 s,
# so 'make soak KERNELS=debug TESTS=s-55' takes about 4 hours there);
# kmemleak, where the kernel has it, scans after it (run.sh).
export ABI_FUZZ_CALLS="${ABI_FUZZ_CALLS:-5000000}"
if [ -n "${SUBSET:-}" ]; then
	export ABI_FUZZ_MAX_SECONDS="${ABI_FUZZ_MAX_SECONDS:-12000}"
else
	export ABI_FUZZ_MAX_SECONDS="${ABI_FUZZ_MAX_SECONDS:-7200}"
fi
. /payload/t-41-abi-fuzz.sh
