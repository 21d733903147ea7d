/*
 * tas - the test-and-set spinlock.
 *
 * The oldest spinlock there is: an atomic exchange of 1 into a word,
 * retried until the old value was 0.  Anderson ("The performance of spin
 * lock alternatives for shared-memory multiprocessors", IEEE TPDS 1990)
 * uses it as the baseline every other lock is measured against.  It is the
 * one lock whose waiting loop is an RMW retry with ll_cpu_relax() rather
 * than ll_wait_until(); docs/spinlocks.md says what that costs.
 *
 *   +--------+----------------------------+
 *   | locked |  (padding to 64 bytes)     |   u32: 0 free, 1 held
 *   +--------+----------------------------+
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

	/* locked: 0 -> 1 mine, 1 -> 1 retry; pairs with the release in tas_unlock */
	while (ll_xchg(&l->locked, 1, LL_ACQUIRE) != 0)
		ll_cpu_relax();
}

static bool tas_trylock(void *lock, void *ctx)
{
	struct tas_lock *l = lock;

	return ll_xchg(&l->locked, 1, LL_ACQUIRE) == 0; /* locked: 0 -> 1 */
}

static void tas_unlock(void *lock, void *ctx)
{
	struct tas_lock *l = lock;

	/* locked: 1 -> 0; pairs with the acquiring xchg in tas_lock */
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
