/*
 * algorithms/internal_backoff.h - bounded randomised exponential backoff,
 * the delay a test-and-set waiter takes after losing an exchange.
 *
 * Anderson ("The performance of spin lock alternatives for shared-memory
 * multiprocessors", IEEE TPDS 1990), after Ethernet's collision backoff
 * (Metcalfe & Boggs 1976).  ttas-backoff's lock and cohort's global lock
 * both back off this way.
 *
 * A delay is drawn from [limit/2, limit); limit starts at BACKOFF_MIN_NS
 * (about one cross-socket line transfer) and doubles up to BACKOFF_MAX_NS.
 * The draw is mix64 of the caller's cpu and a per-thread draw counter, so a
 * simulated run stays a function of its seed.
 */
#ifndef ALGORITHMS_INTERNAL_BACKOFF_H
#define ALGORITHMS_INTERNAL_BACKOFF_H

#include <locklab/mem.h>
#include <locklab/rng.h>

/* Exponential backoff from 128 ns to 64 times that: *assumed* (the bounds
 * of such loops are tuned by hand in practice; no source gives these). */
#define BACKOFF_MIN_NS 128u
#define BACKOFF_MAX_NS (64u * BACKOFF_MIN_NS)

/* Sleep a random time in [limit/2, limit); return the next limit. */
static inline uint32_t backoff_delay(uint64_t *draws, uint32_t limit)
{
	uint64_t r = mix64(((uint64_t)ll_this_cpu() << 40) ^ (*draws)++);
	uint32_t half = limit / 2;

	ll_delay_ns(half + r % half);
	return limit < BACKOFF_MAX_NS ? limit * 2 : BACKOFF_MAX_NS;
}

#endif
