/*
 * ttas - test-and-test-and-set, without backoff.
 *
 * Rudolph and Segall ("Dynamic decentralized cache schemes for MIMD
 * parallel processors", ISCA 1984) proposed reading the lock word until it
 * looks free and only then trying the exchange, so that waiters spin in
 * their own caches on a shared copy of the line instead of taking it
 * exclusive on every attempt.
 *
 * The lock word, alone on its cache line:
 *
 *   +--------+----------------------------+
 *   | locked |  (padding to 64 bytes)     |
 *   +--------+----------------------------+
 *     u32
 *
 * Transitions (locked):
 *
 *   lock:     wait until locked reads 0      (shared copy, no traffic while
 *                                             the holder is inside)
 *             0 --xchg(1)--> 1               old 0: mine
 *             1 --xchg(1)--> 1               old 1: someone won the race;
 *                                             back to waiting
 *   unlock:   1 --store(0)-> 0               release
 *
 * The release is where it hurts: the store invalidates every waiter's copy,
 * every waiter misses to re-read the word (the misses queue on the one
 * line), every waiter that saw 0 then issues an exchange, and all but one
 * of those fail.  Misses per release therefore grow with the number of
 * waiters: the herd.  ttas-backoff spreads the herd out in time; the queue
 * locks (mcs, clh, anderson) avoid it.
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
		ll_wait_until(&l->locked, VAL == 0);
		if (ll_xchg(&l->locked, 1, LL_ACQUIRE) == 0)
			return;
	}
}

static bool ttas_trylock(void *lock, void *ctx)
{
	struct ttas_lock *l = lock;

	if (ll_load(&l->locked, LL_RELAXED) != 0)
		return false;
	return ll_xchg(&l->locked, 1, LL_ACQUIRE) == 0;
}

static void ttas_unlock(void *lock, void *ctx)
{
	struct ttas_lock *l = lock;

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
