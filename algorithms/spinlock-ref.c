/*
 * spinlock-ref - a reference count protected by a spinlock.
 *
 * The dentry's d_count under d_lock before Linux 3.12 (Nick Piggin's
 * dcache scaling, 2.6.38, made d_count a plain int under d_lock): every
 * get and every put takes the object's spinlock, changes the count, and
 * releases it.  The object is the lock-and-count word of
 * internal_lockref.h, on its own line:
 *
 *   +---------------------------+----------------------+
 *   | lock (ticket: head|tail)  | count (s32)          |
 *   +---------------------------+----------------------+
 *
 * Transitions (head, tail, count):
 *
 *   get:  (h, t, c) --fetch_add(tail)--> (h, t+1, c)   ticket t; wait for
 *                                                      head == t
 *         count: c --load, store--> c+1                under the lock
 *         (t, t+1, c+1) --store(head)--> (t+1, t+1, c+1)   unlock
 *   put:  the same with c-1 (docs/rwlocks.md)
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#include "internal_lockref.h"

static void sref_init(void *obj, unsigned ncpus)
{
	lockref_object_init(obj);
}

static void sref_get(void *obj, void *ctx)
{
	lockref_locked_add(obj, 1);
}

static void sref_put(void *obj, void *ctx)
{
	lockref_locked_add(obj, -1);
}

const struct lock_algo lock_spinlock_ref = {
	.name = "spinlock-ref",
	.desc = "reference count updated under a ticket spinlock (dentry d_count before Linux 3.12)",
	.kind = LOCK_REFCOUNT,
	.lock_size = sizeof(struct lockref),
	.init = sref_init,
	.get = sref_get,
	.put = sref_put,
	.count = lockref_read_count,
};
