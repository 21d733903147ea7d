/*
 * ttas-backoff - test-and-test-and-set with bounded exponential backoff.
 *
 * Anderson ("The performance of spin lock alternatives for shared-memory
 * multiprocessors", IEEE TPDS 1990) showed that the herd a ttas release
 * sets off can be thinned by making a waiter that lost the race wait a
 * while before trying again, doubling the wait after every loss, as
 * Ethernet does after a collision (Metcalfe & Boggs 1976).  Agarwal and
 * Cherian (ISCA 1989) studied the same idea for barriers and locks.
 *
 * The lock word, alone on its cache line, and the per-thread context:
 *
 *   lock:  +--------+-----------------------+
 *          | locked |  (padding to 64)      |
 *          +--------+-----------------------+
 *            u32
 *   ctx:   +-------+
 *          | draws |   u64: how many delays this thread has drawn
 *          +-------+
 *
 * Transitions (locked):
 *
 *   lock:     wait until locked reads 0
 *             0 --xchg(1)--> 1      old 0: mine
 *             1 --xchg(1)--> 1      old 1: lost the race.  Delay for a
 *                                   random time in [limit/2, limit), double
 *                                   limit (at most BACKOFF_MAX_NS), go back
 *                                   to waiting.
 *   unlock:   1 --store(0)-> 0      release
 *
 * The backoff only follows a lost exchange, so an uncontended acquisition
 * costs what a ttas one costs.  limit starts at BACKOFF_MIN_NS, about one
 * cross-socket cache-line transfer, so that a loser stays away for at least
 * as long as the winner needs to take the line; it stops at
 * BACKOFF_MAX_NS, 64 times that, so that a waiter on a lock that has
 * fallen free never sleeps through more than a few critical sections.
 *
 * The random draw must be reproducible (the simulator's output is a
 * function of its inputs and seed), so it is a hash of the caller's cpu
 * number and of a per-context draw counter, not rand().
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#define BACKOFF_MIN_NS 128u
#define BACKOFF_MAX_NS (64u * BACKOFF_MIN_NS)

struct ttas_backoff_lock {
	uint32_t locked;
} ll_cacheline_aligned;

struct ttas_backoff_ctx {
	uint64_t draws;
};

static void ttas_backoff_init(void *lock, unsigned ncpus)
{
	struct ttas_backoff_lock *l = lock;

	l->locked = 0;
}

/* A 64-bit mixing function (the finaliser of splitmix64). */
static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Sleep a random time in [limit/2, limit); return the next limit. */
static uint32_t backoff(struct ttas_backoff_ctx *c, uint32_t limit)
{
	uint64_t r = mix64(((uint64_t)ll_this_cpu() << 40) ^ c->draws++);
	uint32_t half = limit / 2;

	ll_delay_ns(half + r % half);
	return limit < BACKOFF_MAX_NS ? limit * 2 : BACKOFF_MAX_NS;
}

/* After a lost exchange; out of line, so that the first attempt needs no
 * stack frame. */
static __attribute__((noinline)) void ttas_backoff_contended(struct ttas_backoff_lock *l,
							     struct ttas_backoff_ctx *c)
{
	uint32_t limit = BACKOFF_MIN_NS;

	for (;;) {
		limit = backoff(c, limit);
		ll_wait_until(&l->locked, VAL == 0);
		if (ll_xchg(&l->locked, 1, LL_ACQUIRE) == 0)
			return;
	}
}

static void ttas_backoff_lock(void *lock, void *ctx)
{
	struct ttas_backoff_lock *l = lock;

	ll_wait_until(&l->locked, VAL == 0);
	if (ll_xchg(&l->locked, 1, LL_ACQUIRE) != 0)
		ttas_backoff_contended(l, ctx);
}

static bool ttas_backoff_trylock(void *lock, void *ctx)
{
	struct ttas_backoff_lock *l = lock;

	if (ll_load(&l->locked, LL_RELAXED) != 0)
		return false;
	return ll_xchg(&l->locked, 1, LL_ACQUIRE) == 0;
}

static void ttas_backoff_unlock(void *lock, void *ctx)
{
	struct ttas_backoff_lock *l = lock;

	ll_store(&l->locked, 0, LL_RELEASE);
}

const struct lock_algo lock_ttas_backoff = {
	.name = "ttas-backoff",
	.desc = "ttas with bounded randomised exponential backoff after a lost xchg (Anderson 1990)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct ttas_backoff_lock),
	.ctx_size = sizeof(struct ttas_backoff_ctx),
	.init = ttas_backoff_init,
	.lock = ttas_backoff_lock,
	.unlock = ttas_backoff_unlock,
	.trylock = ttas_backoff_trylock,
};
