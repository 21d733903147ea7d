/*
 * lockref - a reference count and its spinlock in one 64-bit word,
 * updated by cmpxchg while the lock is free.
 *
 * Linus Torvalds and Waiman Long's lockref (Linux 3.12, lib/lockref.c),
 * made for the dentry refcount that every stat() and open() of one path
 * takes and drops.  A get or put replaces the whole word with the count
 * changed, as long as its lock half reads free: no lock is taken, and a
 * holder of the lock keeps the count stable, because every cmpxchg
 * expects the lock half free.  After LOCKREF_RETRIES failed cmpxchgs
 * (Linux's 100, Jan Glauber 2019) or on finding the lock held, it takes
 * the lock as spinlock-ref does (docs/rwlocks.md).
 *
 *   +---------------------------+----------------------+
 *   | lock (ticket: head|tail)  | count (s32)          |   one u64
 *   +---------------------------+----------------------+
 *
 * Transitions are written (head, tail, count).  A put changes the count
 * only while it is at least 2 (Linux's lockref_put_or_lock drops the last
 * reference under the lock; here the object keeps its base reference).
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#include "internal_lockref.h"

#define LOCKREF_RETRIES 100

/* What a run counts (ll_count): the cmpxchgs tried and those that failed,
 * the gets and puts that took the lock, and of those the ones that gave
 * up after LOCKREF_RETRIES failures (the rest found it held). */
enum { EV_CMPXCHG, EV_CMPXCHG_FAILED, EV_LOCKED, EV_LOCKED_RETRIES };

static void lref_init(void *obj, unsigned ncpus)
{
	lockref_object_init(obj);
}

/* The cmpxchg loop; returns false when the caller must take the lock.
 * min_count: the smallest count the loop may change (0: any). */
static bool lref_cmpxchg_add(struct lockref *r, int32_t d, int32_t min_count)
{
	uint64_t old = ll_load(&r->lock_count, LL_RELAXED);

	for (int retry = LOCKREF_RETRIES; tkt_value_unlocked((uint32_t)old); ) {
		uint64_t nv = old + (uint64_t)(int64_t)d * LOCKREF_COUNT_ONE;
		uint64_t found;

		if (min_count && lockref_count_of(old) < min_count)
			return false;
		/*
		 * (h, h, c) -> (h, h, c+d).  Relaxed, as Linux's
		 * cmpxchg64_relaxed: a count orders nothing.  A failure
		 * returns the fresh word, so the retry needs no extra read.
		 */
		found = ll_cas(&r->lock_count, old, nv, LL_RELAXED);
		ll_count(EV_CMPXCHG);
		if (found == old)
			return true;
		ll_count(EV_CMPXCHG_FAILED);
		old = found;
		if (!--retry) {
			ll_count(EV_LOCKED_RETRIES);
			break;
		}
	}
	return false;
}

static void lref_get(void *obj, void *ctx)
{
	if (!lref_cmpxchg_add(obj, 1, 0)) {
		ll_count(EV_LOCKED);
		lockref_locked_add(obj, 1);
	}
}

static void lref_put(void *obj, void *ctx)
{
	if (!lref_cmpxchg_add(obj, -1, 2)) {
		ll_count(EV_LOCKED);
		lockref_locked_add(obj, -1);
	}
}

const struct lock_algo lock_lockref = {
	.name = "lockref",
	.desc = "lock and count in one u64: cmpxchg while unlocked, lock after 100 failures (Linux 3.12; the cap of 100 since 2019)",
	.kind = LOCK_REFCOUNT,
	.lock_size = sizeof(struct lockref),
	.init = lref_init,
	.get = lref_get,
	.put = lref_put,
	.count = lockref_read_count,
	.counts = { "cmpxchg", "cmpxchg_failed", "locked", "locked_after_retries" },
};
