/*
 * ttas - test-and-test-and-set, without backoff.
 *
 * Rudolph and Segall ("Dynamic decentralized cache schemes for MIMD
 * parallel processors", ISCA 1984): read the lock word until it looks
 * free and only then try the exchange, so that waiters spin in their own
 * caches on a shared copy of the line instead of taking it exclusive on
 * every attempt.  A release still sends every waiter after the line (the
 * herd, docs/spinlocks.md).
 *
 *   +--------+----------------------------+
 *   | locked |  (padding to 64 bytes)     |   u32: 0 free, 1 held
 *   +--------+----------------------------+
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

struct ttas_lock {
	uint32_t locked;
} ll_cacheline_aligned;

static void ttas_init(void *lock, unsigned ncpus)
{
	struct ttas_lock *l = lock;

	l->locked = 0;
}

static void ttas_lock(void *lock, void *ctx)
{
	struct ttas_lock *l = lock;

	for (;;) {
		ll_wait_until(&l->locked, VAL == 0); /* on a shared copy */
		/*
		 * locked: 0 -> 1 mine; 1 -> 1 another won the race, wait
		 * again.  Pairs with the release in ttas_unlock.
		 */
		if (ll_xchg(&l->locked, 1, LL_ACQUIRE) == 0)
			return;
	}
}

static bool ttas_trylock(void *lock, void *ctx)
{
	struct ttas_lock *l = lock;

	if (ll_load(&l->locked, LL_RELAXED) != 0)
		return false;
	return ll_xchg(&l->locked, 1, LL_ACQUIRE) == 0; /* locked: 0 -> 1 */
}

static void ttas_unlock(void *lock, void *ctx)
{
	struct ttas_lock *l = lock;

	/* locked: 1 -> 0; pairs with the acquiring xchg in ttas_lock */
	ll_store(&l->locked, 0, LL_RELEASE);
}

const struct lock_algo lock_ttas = {
	.name = "ttas",
	.desc = "test-and-test-and-set: read until free, then xchg (Rudolph & Segall 1984)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct ttas_lock),
	.init = ttas_init,
	.lock = ttas_lock,
	.unlock = ttas_unlock,
	.trylock = ttas_trylock,
};
