/*
 * lockref - a reference count and its spinlock in one 64-bit word,
 * updated by cmpxchg while the lock is free.
 *
 * Linus Torvalds and Waiman Long's lockref (Linux 3.12, lib/lockref.c),
 * made for the dentry refcount that every stat() and open() of one path
 * takes and drops.  A get or put reads the word and, as long as its lock
 * half reads free, tries to replace it whole with the count changed: no
 * lock is taken, so nobody waits behind a holder.  Someone who holds the
 * lock (to change the dentry, or a get that fell back) keeps the count
 * stable, because every cmpxchg expects the lock half free.  After
 * LOCKREF_RETRIES failed cmpxchgs (Linux's 100, Jan Glauber 2019) or on finding
 * the lock held, it takes the lock as spinlock-ref does.
 *
 *   +---------------------------+----------------------+
 *   | lock (ticket: head|tail)  | count (s32)          |   one u64
 *   +---------------------------+----------------------+
 *
 * Transitions of the word (head, tail, count):
 *
 *   get:  old = load(word)
 *         while head == tail in old, at most LOCKREF_RETRIES times:
 *             cas(word, old, (head, tail, count+1))
 *             success: done; failure: old = the value found
 *         fallback: lock; count: c --store--> c+1; unlock (spinlock-ref)
 *   put:  the same with count-1, while count > 1 in old (Linux's
 *         lockref_put_or_lock: the last reference is dropped under the
 *         lock; here the object keeps its base reference, so puts find
 *         count >= 2)
 *
 * Under contention the cmpxchgs of all CPUs serialise on the line: each
 * success costs one transfer of the line, each failure another, but no
 * thread waits for a holder that has been delayed, and a failed cmpxchg
 * returns the fresh value, so the retry needs no extra read.
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#include "internal_lockref.h"

#define LOCKREF_RETRIES 100

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
		found = ll_cas(&r->lock_count, old, nv, LL_RELAXED);
		if (found == old)
			return true;
		old = found;
		if (!--retry)
			break;
	}
	return false;
}

static void lref_get(void *obj, void *ctx)
{
	if (!lref_cmpxchg_add(obj, 1, 0))
		lockref_locked_add(obj, 1);
}

static void lref_put(void *obj, void *ctx)
{
	if (!lref_cmpxchg_add(obj, -1, 2))
		lockref_locked_add(obj, -1);
}

const struct lock_algo lock_lockref = {
	.name = "lockref",
	.desc = "lock and count in one u64: cmpxchg while unlocked, lock after 100 failures (Linux 3.12+)",
	.kind = LOCK_REFCOUNT,
	.lock_size = sizeof(struct lockref),
	.init = lref_init,
	.get = lref_get,
	.put = lref_put,
	.count = lockref_read_count,
};
