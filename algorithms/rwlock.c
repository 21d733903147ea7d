/*
 * rwlock - the classic reader-preferring reader-writer spinlock.
 *
 * Linux's x86 rwlock_t until 3.16 (arch/x86/include/asm/rwlock.h and the
 * __read_lock_failed / __write_lock_failed stubs): one counter with a
 * writer bias.  Linux counts down from RW_LOCK_BIAS; this file counts up
 * from zero, the same algorithm with the sign flipped.  Readers only wait
 * while a writer holds the lock, never because one waits: a stream of
 * overlapping readers starves writers (docs/rwlocks.md).
 *
 *   +-------+---------------------+
 *   |  cnt  |  (padding)          |     cnt = readers inside
 *   +-------+---------------------+           - BIAS while a writer holds
 *     s32                                     + transient arrivals that
 *                                               undo themselves
 *
 * BIAS is 2^20 (Linux's for up to 2048 CPUs): any number of readers up to
 * 2^20 - 1 keeps cnt positive, and up to 2047 writers that subtract the
 * bias at once keep it above INT32_MIN.
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#define RW_BIAS (1 << 20)

struct rw_classic {
	int32_t cnt;
} ll_cacheline_aligned;

static void rw_init(void *lock, unsigned ncpus)
{
	struct rw_classic *l = lock;

	l->cnt = 0;
}

static void rw_read_lock(void *lock, void *ctx)
{
	struct rw_classic *l = lock;

	for (;;) {
		/* cnt: c -> c+1; c >= 0, no writer holds: in.  Pairs with the
		 * release in rw_write_unlock */
		if (ll_fetch_add(&l->cnt, 1, LL_ACQUIRE) >= 0)
			return;
		(void)ll_fetch_add(&l->cnt, -1, LL_RELAXED); /* undo */
		ll_wait_until(&l->cnt, VAL >= 0);
	}
}

static void rw_read_unlock(void *lock, void *ctx)
{
	struct rw_classic *l = lock;

	/* cnt: c -> c-1; pairs with the acquire in rw_write_lock */
	(void)ll_fetch_add(&l->cnt, -1, LL_RELEASE);
}

static void rw_write_lock(void *lock, void *ctx)
{
	struct rw_classic *l = lock;

	for (;;) {
		/* cnt: 0 -> -BIAS: nobody inside, in.  Pairs with the
		 * releases in both unlocks */
		if (ll_fetch_add(&l->cnt, -RW_BIAS, LL_ACQUIRE) == 0)
			return;
		(void)ll_fetch_add(&l->cnt, RW_BIAS, LL_RELAXED); /* undo */
		ll_wait_until(&l->cnt, VAL == 0);
	}
}

static void rw_write_unlock(void *lock, void *ctx)
{
	struct rw_classic *l = lock;

	/* cnt: -BIAS -> 0, plus arrivals; pairs with the acquires in lock */
	(void)ll_fetch_add(&l->cnt, RW_BIAS, LL_RELEASE);
}

const struct lock_algo lock_rwlock = {
	.name = "rwlock",
	.desc = "classic reader-preferring rwlock: one counter, writer subtracts a bias (Linux x86 until 3.16)",
	.kind = LOCK_RWLOCK,
	.lock_size = sizeof(struct rw_classic),
	.init = rw_init,
	.read_lock = rw_read_lock,
	.read_unlock = rw_read_unlock,
	.write_lock = rw_write_lock,
	.write_unlock = rw_write_unlock,
};
