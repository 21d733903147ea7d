/*
 * native/clock.c - ll_now_ns() on the cycle counter.
 *
 * Where the cpu says its time-stamp counter is invariant (constant rate,
 * running in every power state: CPUID 0x80000007 EDX bit 8), the counter
 * is calibrated once against CLOCK_MONOTONIC: two (counter, monotonic)
 * pairs a calibration interval apart, each the tightest of a few
 * bracketed reads, give the nanoseconds per tick as a 32.32 fixed-point
 * factor.  ll_now_ns() is then the monotonic time of the second pair plus
 * the ticks since, scaled: nanoseconds on the same clock, for a read of
 * the counter instead of a clock_gettime call.  Elsewhere (no invariant
 * counter, another architecture, LOCKLAB_CLOCK=monotonic) it stays
 * clock_gettime(CLOCK_MONOTONIC).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

#include <locklab/mem.h>

#include "native.h"

#define CAL_NS 10000000ull /* the calibration interval */
#define CAL_TRIES 16

struct ll_tsc_clock ll__tsc;

static pthread_once_t clock_once = PTHREAD_ONCE_INIT;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
static bool tsc_invariant(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return false;
	__get_cpuid(0x80000007, &a, &b, &c, &d);
	return d & (1u << 8);
}

/* A (counter, monotonic) pair: the read bracketed most tightly. */
static void clock_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < CAL_TRIES; i++) {
		uint64_t t0 = __rdtsc(), n = mono_ns(), t1 = __rdtsc();

		if (t1 - t0 < best) {
			best = t1 - t0;
			*tsc = t0 + (t1 - t0) / 2;
			*ns = n;
		}
	}
}

static void clock_calibrate_once(void)
{
	const char *env = getenv("LOCKLAB_CLOCK");
	uint64_t tsc0, ns0, tsc1, ns1;

	if ((env && !strcmp(env, "monotonic")) || !tsc_invariant())
		return;
	clock_pair(&tsc0, &ns0);
	while (mono_ns() - ns0 < CAL_NS)
		;
	clock_pair(&tsc1, &ns1);
	if (tsc1 <= tsc0 || ns1 <= ns0)
		return;
	ll__tsc.mult = (uint64_t)(((unsigned __int128)(ns1 - ns0) << 32) / (tsc1 - tsc0));
	ll__tsc.base_tsc = tsc1;
	ll__tsc.base_ns = ns1;
	__atomic_store_n(&ll__tsc.on, true, __ATOMIC_RELEASE);
}
#else
static void clock_calibrate_once(void)
{
}
#endif

void native_clock_calibrate(void)
{
	pthread_once(&clock_once, clock_calibrate_once);
}

bool native_clock_is_tsc(void)
{
	return ll__tsc.on;
}
