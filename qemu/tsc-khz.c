// SPDX-License-Identifier: GPL-2.0
/*
 * tsc-khz: print this machine's TSC frequency in kHz, measured against
 * CLOCK_MONOTONIC_RAW over 200 ms.  Under TCG a guest's TSC is the host's
 * (QEMU reads it with rdtsc), so qemu/run passes this figure to the guest
 * as tsc_early_khz= rather than let the guest calibrate against timers
 * that a loaded host delays.  Exits 1 when the figure is not believable.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

struct sample {
	uint64_t tsc;
	int64_t ns;	/* CLOCK_MONOTONIC_RAW, the middle of the bracket */
};

static int64_t raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The TSC read between two clock reads, from the tightest of 50 tries. */
static struct sample take(void)
{
	struct sample best = { 0, 0 };
	int64_t width = INT64_MAX;

	for (int i = 0; i < 50; i++) {
		int64_t a = raw_ns();
		uint64_t tsc = __rdtsc();
		int64_t b = raw_ns();

		if (b - a < width) {
			width = b - a;
			best.tsc = tsc;
			best.ns = a + (b - a) / 2;
		}
	}
	return best;
}

int main(void)
{
	struct timespec wait = { 0, 200000000 };
	struct sample s0, s1;
	double khz;

	s0 = take();
	nanosleep(&wait, NULL);
	s1 = take();
	if (s1.ns <= s0.ns)
		return 1;
	khz = (double)(s1.tsc - s0.tsc) * 1e6 / (double)(s1.ns - s0.ns);
	/* Between 100 MHz and 10 GHz, or something is wrong. */
	if (khz < 100000 || khz > 10000000)
		return 1;
	printf("%.0f\n", khz);
	return 0;
}
