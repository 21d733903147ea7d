/*
 * hticket - the hierarchical ticket lock.
 *
 * A ticket lock per NUMA node under a global ticket lock, as in the
 * libslock of David, Guerraoui and Trigonakis ("Everything you always
 * wanted to know about synchronization but were afraid to ask", SOSP 2013)
 * and the cohort paper's C-TKT-TKT (Dice, Marathe and Shavit, PPoPP 2012).
 * A served thread either finds the global lock passed along with the local
 * one, or takes a global ticket for its node.  A releaser with a local
 * waiter serves it with the global lock still held, up to
 * HTICKET_LOCAL_PASSES times in a row (docs/spinlocks.md).
 *
 *   global:    +------+-------+     +-------+-------+
 *              | next | (pad) |     | owner | (pad) |     u32 each
 *              +------+-------+     +-------+-------+
 *   local[n]:  +------+-------+     +---------------------+-------+
 *              | next | (pad) |     | serving = (k, o)    | (pad) |
 *              +------+-------+     +---------------------+-------+
 *
 * serving is one u64, so a release writes the waiters' line once: low 32
 * bits o, the ticket now served; high 32 bits k, 0 when the holder must
 * take the global lock, k >= 1 when it was passed along after k local
 * handoffs in a row.  local[n] is for NUMA node n modulo HTICKET_MAX_NODES.
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#define HTICKET_MAX_NODES 64u
#define HTICKET_LOCAL_PASSES 64u

struct hticket_local {
	uint32_t next ll_cacheline_aligned;
	uint64_t serving ll_cacheline_aligned;
};

struct hticket_lock {
	uint32_t next ll_cacheline_aligned;
	uint32_t owner ll_cacheline_aligned;
	struct hticket_local local[HTICKET_MAX_NODES];
};

struct hticket_ctx {
	uint32_t numa; /* the local lock I hold */
};

static void hticket_init(void *lock, unsigned ncpus)
{
	struct hticket_lock *l = lock;

	l->next = 0;
	l->owner = 0;
	for (unsigned i = 0; i < HTICKET_MAX_NODES; i++) {
		l->local[i].next = 0;
		l->local[i].serving = 0;
	}
}

static uint64_t hticket_serving(uint32_t k, uint32_t ticket)
{
	return (uint64_t)k << 32 | ticket;
}

static void hticket_lock(void *lock, void *ctx)
{
	struct hticket_lock *l = lock;
	struct hticket_ctx *c = ctx;
	unsigned n = ll_this_node() % HTICKET_MAX_NODES;
	struct hticket_local *loc = &l->local[n];
	uint32_t t, g;
	uint64_t s;

	c->numa = n;
	t = ll_fetch_add(&loc->next, 1, LL_RELAXED); /* local next: t -> t+1 */
	/* serving: (*, t); acquire, pairs with the serving stores in unlock */
	s = ll_wait_until(&loc->serving, (uint32_t)VAL == t);
	if (s >> 32)
		return; /* k >= 1: passed along with the global lock */
	g = ll_fetch_add(&l->next, 1, LL_RELAXED); /* global next: g -> g+1 */
	/* acquire; pairs with the release of owner in hticket_unlock */
	ll_wait_until(&l->owner, VAL == g);
}

/* What a run counts (ll_count), at each unlock, as cohort does: the lock
 * passed to a waiter of the same node with the global lock kept, or the
 * global lock released (the node's turn over, or nobody of it waiting). */
enum { HTICKET_COUNT_LOCAL, HTICKET_COUNT_GLOBAL };

static void hticket_unlock(void *lock, void *ctx)
{
	struct hticket_lock *l = lock;
	struct hticket_ctx *c = ctx;
	struct hticket_local *loc = &l->local[c->numa];
	uint64_t s = ll_load(&loc->serving, LL_RELAXED);
	uint32_t o = (uint32_t)s, k = (uint32_t)(s >> 32), g;

	/*
	 * Ticket o + 1 taken: a local waiter.  One that takes it just after
	 * this read finds k == 0 and queues for the global lock: late, never
	 * wrong.
	 */
	if (k < HTICKET_LOCAL_PASSES && ll_load(&loc->next, LL_RELAXED) != o + 1) {
		/* serving: (k, o) -> (k+1, o+1), global kept */
		ll_store(&loc->serving, hticket_serving(k + 1, o + 1), LL_RELEASE);
		ll_count(HTICKET_COUNT_LOCAL);
		return;
	}
	g = ll_load(&l->owner, LL_RELAXED);
	/* owner: g -> g+1, global freed; pairs with the wait on owner in lock */
	ll_store(&l->owner, g + 1, LL_RELEASE);
	/* serving: (k, o) -> (0, o+1), local freed */
	ll_store(&loc->serving, hticket_serving(0, o + 1), LL_RELEASE);
	ll_count(HTICKET_COUNT_GLOBAL);
}

const struct lock_algo lock_hticket = {
	.name = "hticket",
	.desc = "hierarchical ticket lock: a ticket lock per NUMA node (64, folded beyond) under a global one (C-TKT-TKT of Dice, Marathe and Shavit 2012; David et al. 2013)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct hticket_lock),
	.ctx_size = sizeof(struct hticket_ctx),
	.init = hticket_init,
	.lock = hticket_lock,
	.unlock = hticket_unlock,
	.counts = { "local_pass", "global_release" },
};
