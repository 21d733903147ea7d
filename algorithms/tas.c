/*
 * tas - the test-and-set spinlock.
 *
 * The oldest spinlock there is: an atomic exchange of 1 into a word,
 * retried until the old value was 0.  Anderson ("The performance of spin
 * lock alternatives for shared-memory multiprocessors", IEEE TPDS 1990)
 * uses it as the baseline every other lock is measured against.
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
 *   lock, free:       0 --xchg(1)--> 1        the old value 0 means "mine"
 *   lock, held:       1 --xchg(1)--> 1        old value 1: relax, xchg again
 *   unlock:           1 --store(0)-> 0        release
 *
 * Every retry is a read-modify-write, so every waiter takes the line
 * exclusive on every attempt: the line ping-pongs between waiters while
 * the holder is inside, and the holder's unlock queues behind them.  That
 * traffic, and the bias it gives to whoever last held the line (often a
 * core on the releaser's socket), are what this lock is here to show.  It
 * is the one lock whose waiting loop is an RMW retry with ll_cpu_relax()
 * rather than ll_wait_until().
 *
 * The word has a line to itself so that nothing else in the lock object
 * or the protected data suffers from the waiters' exchanges.
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

struct tas_lock {
	uint32_t locked;
} ll_cacheline_aligned;

static void tas_init(void *lock, unsigned ncpus)
{
	struct tas_lock *l = lock;

	l->locked = 0;
}

static void tas_lock(void *lock, void *ctx)
{
	struct tas_lock *l = lock;

	while (ll_xchg(&l->locked, 1, LL_ACQUIRE) != 0)
		ll_cpu_relax();
}

static bool tas_trylock(void *lock, void *ctx)
{
	struct tas_lock *l = lock;

	return ll_xchg(&l->locked, 1, LL_ACQUIRE) == 0;
}

static void tas_unlock(void *lock, void *ctx)
{
	struct tas_lock *l = lock;

	ll_store(&l->locked, 0, LL_RELEASE);
}

const struct lock_algo lock_tas = {
	.name = "tas",
	.desc = "test-and-set: xchg until the old value is 0 (Anderson 1990 baseline)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct tas_lock),
	.init = tas_init,
	.lock = tas_lock,
	.unlock = tas_unlock,
	.trylock = tas_trylock,
};
