/*
 * include/locklab/rng.h - the one mixing function behind every seeded choice.
 *
 * mix64 is the finaliser of splitmix64 (Steele, Lea, Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014): a bijection of 64-bit words
 * whose output bits each depend on every input bit.  A stream is mix64 of a
 * counter; a seed for repetition r of a sweep is run_seed(seed, r).
 */
#ifndef LOCKLAB_RNG_H
#define LOCKLAB_RNG_H

#include <stdint.h>

static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * The seed of repetition `run` of a sweep given --seed `seed`.  The binaries,
 * explain and the tests all derive run seeds here, so a figure a test quotes
 * can be rerun from the command line with the same --seed.
 */
static inline uint64_t run_seed(uint64_t seed, unsigned run)
{
	uint64_t x = seed + 0x9e3779b97f4a7c15ull * (run + 1);

	x ^= x >> 31;
	x *= 0xd6e8feb86659fd93ull;
	x ^= x >> 32;
	return x;
}

#endif
