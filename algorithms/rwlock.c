/*
 * rwlock - the classic reader-preferring reader-writer spinlock.
 *
 * Linux's x86 rwlock_t until 3.16 (arch/x86/include/asm/rwlock.h and the
 * __read_lock_failed / __write_lock_failed stubs): one counter with a
 * writer bias.  Linux starts the count at RW_LOCK_BIAS and both sides
 * subtract, readers 1 and writers the bias: BIAS - R - BIAS*W.  This file
 * starts at zero and flips the readers' sign only, R - BIAS*W: a reader
 * is in when the count it found was not negative (Linux: when the result
 * is not negative), a writer when it found 0 (Linux: when the result is
 * 0).  The same tests of the same states, the same writes.  Readers wait
 * while a writer holds the lock, and for the moment a failed writer's bias
 * is in the count, never because a writer is queued: a stream of
 * overlapping readers starves writers (docs/rwlocks.md).
 *
 *   +-------+---------------------+
 *   |  cnt  |  (padding)          |     cnt = readers inside
 *   +-------+---------------------+           - BIAS while a writer holds
 *     s32                                     + transient arrivals that
 *                                               undo themselves
 *
 * BIAS is 2^20, Linux's for up to 2048 CPUs (more took a 64-bit count).
 * Up to 2^20 - 1 readers keep a writer's -BIAS negative, and up to 2048
 * writers that have subtracted the bias at once (a holder and failed tries
 * not yet undone) keep cnt at or above INT32_MIN.  A 2049th would wrap it
 * positive, and a reader would enter beside the writer: so the lock holds
 * at most RW_MAX_THREADS threads (.max_threads; a run asking for more is
 * refused with one line).
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#define RW_BIAS (1 << 20)
#define RW_MAX_THREADS 2048u /* 2048 * RW_BIAS == -(int64_t)INT32_MIN */

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
	.max_threads = RW_MAX_THREADS,
	.init = rw_init,
	.read_lock = rw_read_lock,
	.read_unlock = rw_read_unlock,
	.write_lock = rw_write_lock,
	.write_unlock = rw_write_unlock,
};
