/*
 * ttas-backoff - test-and-test-and-set with bounded exponential backoff.
 *
 * Anderson ("The performance of spin lock alternatives for shared-memory
 * multiprocessors", IEEE TPDS 1990): a waiter that lost the exchange waits
 * a random, doubling time before it tries again, which thins the herd a
 * ttas release sets off (algorithms/internal_backoff.h).  Agarwal and
 * Cherian (ISCA 1989) studied the same idea.  docs/spinlocks.md explains
 * the constants.
 *
 *   lock:  +--------+-----------------------+
 *          | locked |  (padding to 64)      |   u32: 0 free, 1 held
 *          +--------+-----------------------+
 *   ctx:   +-------+
 *          | draws |   u64: backoff delays this thread has drawn
 *          +-------+
 *
 * The backoff only follows a lost exchange, so an uncontended acquisition
 * costs what a ttas one costs.
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#include "internal_backoff.h"

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

/* After a lost exchange; out of line, so that the first attempt needs no
 * stack frame. */
static __attribute__((noinline)) void ttas_backoff_contended(struct ttas_backoff_lock *l,
							     struct ttas_backoff_ctx *c)
{
	uint32_t limit = BACKOFF_MIN_NS;

	for (;;) {
		limit = backoff_delay(&c->draws, limit);
		ll_wait_until(&l->locked, VAL == 0);
		/* (locked): 0 -> 1; pairs with the release in ttas_backoff_unlock */
		if (ll_xchg(&l->locked, 1, LL_ACQUIRE) == 0)
			return;
	}
}

static void ttas_backoff_lock(void *lock, void *ctx)
{
	struct ttas_backoff_lock *l = lock;

	ll_wait_until(&l->locked, VAL == 0);
	/* (locked): 0 -> 1 mine; 1 -> 1 lost the race, back off */
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

	/* (locked): 1 -> 0; pairs with the acquiring xchg in ttas_backoff_lock */
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
	.assumed = "backoff from 128 ns to 8.2 us", /* BACKOFF_MIN_NS, BACKOFF_MAX_NS */
};
