/*
 * anderson - Anderson's array-based queue lock.
 *
 * Anderson ("The performance of spin lock alternatives for shared-memory
 * multiprocessors", IEEE TPDS 1990).  An arriving thread takes a slot of a
 * circular array with fetch_add and spins on that slot's flag; the holder
 * releases by setting the next slot's flag.  The array has one slot per
 * thread of the run (lock_size_per_cpu), each on its own line
 * (docs/spinlocks.md):
 *
 *   line 0:     +------+--------+---------+
 *               | next | nslots | (pad)   |   next: fetch_add'ed by every
 *               +------+--------+---------+   arrival; nslots: read-only
 *   line 1+i:   +-----------+-------------+
 *               | has_lock  | (pad)       |   slot i: 1 = the thread that
 *               +-----------+-------------+   drew it may enter
 *
 * next is 64 bits and never wraps in practice, so next % nslots is
 * continuous for any nslots.  The context remembers the slot to open.
 *
 * init() runs before any thread starts, so it writes with plain stores.
 * ncpus must be at least 1.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

struct anderson_slot {
	uint32_t has_lock;
} ll_cacheline_aligned;

struct anderson_lock {
	uint64_t next ll_cacheline_aligned;
	uint32_t nslots;
	struct anderson_slot slot[];
};

struct anderson_ctx {
	uint32_t succ; /* while I hold the lock: the slot to open */
};

static void anderson_init(void *lock, unsigned ncpus)
{
	struct anderson_lock *l = lock;
	unsigned i;

	l->next = 0;
	l->nslots = ncpus;
	l->slot[0].has_lock = 1;
	for (i = 1; i < ncpus; i++)
		l->slot[i].has_lock = 0;
}

static uint32_t anderson_slot_of(uint64_t ticket, uint32_t n)
{
	if ((n & (n - 1)) == 0)
		return (uint32_t)(ticket & (n - 1));
	return (uint32_t)(ticket % n);
}

static void anderson_lock(void *lock, void *ctx)
{
	struct anderson_lock *l = lock;
	struct anderson_ctx *c = ctx;
	uint64_t t = ll_fetch_add(&l->next, 1, LL_RELAXED); /* next: t -> t+1 */
	uint32_t n = l->nslots;
	uint32_t i = anderson_slot_of(t, n);

	/* acquire; pairs with the release of my slot in anderson_unlock */
	ll_wait_until(&l->slot[i].has_lock, VAL != 0);
	/*
	 * slot[i]: 1 -> 0, re-armed for ticket t + n.  It precedes my release
	 * in program order, and the release chain reaches the thread that
	 * next sets slot i, so the two stores to slot i cannot be reordered.
	 */
	ll_store(&l->slot[i].has_lock, 0, LL_RELAXED);
	c->succ = i + 1 == n ? 0 : i + 1;
}

static void anderson_unlock(void *lock, void *ctx)
{
	struct anderson_lock *l = lock;
	struct anderson_ctx *c = ctx;

	/* slot[i+1]: 0 -> 1, ticket t + 1 enters; pairs with its wait in lock */
	ll_store(&l->slot[c->succ].has_lock, 1, LL_RELEASE);
}

const struct lock_algo lock_anderson = {
	.name = "anderson",
	.desc = "Anderson's array queue lock: one flag per slot, each on its own line (Anderson 1990)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct anderson_lock),
	.lock_size_per_cpu = sizeof(struct anderson_slot),
	.ctx_size = sizeof(struct anderson_ctx),
	.init = anderson_init,
	.lock = anderson_lock,
	.unlock = anderson_unlock,
};
