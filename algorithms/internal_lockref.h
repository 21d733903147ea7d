/*
 * algorithms/internal_lockref.h - the object both reference counts work
 * on: a 32-bit ticket spinlock and a 32-bit count in one aligned 64-bit
 * word, Linux's struct lockref (include/linux/lockref.h), alone on its
 * line.
 *
 *   +---------------------------+----------------------+
 *   | lock (ticket: head|tail)  | count (s32)          |   one u64: lock is
 *   +---------------------------+----------------------+   the low half
 *
 * spinlock-ref updates count only under the lock; lockref also updates the
 * whole word by cmpxchg while the lock half reads free.  Sharing the layout
 * makes the cmpxchg path the only difference between the two.
 *
 * The object starts with count 1 (the reference a cache keeps on a live
 * dentry); the workload's get/put pairs must bring it back to 1.
 */
#ifndef ALGORITHMS_INTERNAL_LOCKREF_H
#define ALGORITHMS_INTERNAL_LOCKREF_H

#include <locklab/mem.h>

#include "internal_ticket.h"

#define LOCKREF_INITIAL 1

struct lockref {
	union {
		uint64_t lock_count;
		struct {
			struct tkt_lock lock;
			int32_t count;
		};
	};
} ll_cacheline_aligned;

#define LOCKREF_COUNT_ONE (1ull << 32)

static inline int32_t lockref_count_of(uint64_t lock_count)
{
	return (int32_t)(uint32_t)(lock_count >> 32);
}

static inline void lockref_object_init(struct lockref *r)
{
	r->lock.word = 0;
	r->count = LOCKREF_INITIAL;
}

/* Under the lock: count += d with a plain load and store, as Linux's
 * lockref->count++ under spin_lock. */
static inline void lockref_locked_add(struct lockref *r, int32_t d)
{
	tkt_lock(&r->lock);                         /* (h, t, c) -> (h, t+1, c) */
	ll_store(&r->count, ll_load(&r->count, LL_RELAXED) + d, LL_RELAXED); /* c -> c+d */
	tkt_unlock(&r->lock);                       /* (t, t+1, c+d) -> (t+1, t+1, c+d) */
}

static inline int64_t lockref_read_count(void *obj)
{
	struct lockref *r = obj;

	return lockref_count_of(ll_load(&r->lock_count, LL_ACQUIRE));
}

#endif
