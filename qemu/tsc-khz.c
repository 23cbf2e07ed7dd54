// SPDX-License-Identifier: GPL-2.0
/*
 * tsc-khz: print this host's TSC frequency in kHz, measured against
 * CLOCK_MONOTONIC_RAW over 200 ms.
 *
 * A TCG guest's TSC is the host's TSC (QEMU's cpu_get_host_ticks()), so
 * qemu/run hands this figure to the guest kernel as tsc_early_khz=: the
 * guest then skips its own early calibration, which on a loaded host
 * times the PIT while its vCPU thread is descheduled, "uses the PIT
 * calibration value" (326 MHz for 2600 MHz, seen here) and runs its
 * clocks eight times too fast until the clocksource watchdog falls back
 * to the HPET: jiffies leap, RCU reports a stall, and the rest of the
 * boot reads time through the HPET.  The guest still refines the figure
 * against its HPET a second after boot.
 *
 * Each end of the interval is the (TSC, time) pair of the tightest of 20
 * brackets, so that a descheduled read does not count.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The TSC and the time at one instant, from the tightest bracket. */
static void sample(uint64_t *tsc, int64_t *ns)
{
	int64_t best = INT64_MAX;

	for (int i = 0; i < 20; i++) {
		int64_t t1 = now_ns();
		uint64_t c = __rdtsc();
		int64_t t2 = now_ns();

		if (t2 - t1 < best) {
			best = t2 - t1;
			*tsc = c;
			*ns = t1 + (t2 - t1) / 2;
		}
	}
}

int main(void)
{
	struct timespec gap = { 0, 200000000 };
	uint64_t c0, c1;
	int64_t n0, n1;

	sample(&c0, &n0);
	nanosleep(&gap, NULL);
	sample(&c1, &n1);
	if (n1 <= n0 || c1 <= c0)
		return 1;
	printf("%llu\n", (unsigned long long)((c1 - c0) * 1000000ULL / (uint64_t)(n1 - n0)));
	return 0;
}
