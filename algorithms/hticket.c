/*
 * hticket - the hierarchical ticket lock.
 *
 * A ticket lock per NUMA node under a global ticket lock, as in the
 * libslock of David, Guerraoui and Trigonakis ("Everything you always
 * wanted to know about synchronization but were afraid to ask", SOSP 2013)
 * and the cohort paper's C-TKT-TKT (Dice, Marathe and Shavit, PPoPP 2012).
 * A thread takes a ticket at its node's lock; when served, it either finds
 * the global lock passed along with the local one, or takes a global
 * ticket on behalf of its node.  A releaser that sees another ticket taken
 * at its node after its own (a local waiter) serves it with the global
 * lock still held, up to HTICKET_LOCAL_PASSES handoffs in a row; otherwise
 * it releases the global lock, then the local one.
 *
 * Both ticket locks are FIFO, so the lock goes round the nodes in the
 * order they queued, and within a node in ticket order.  Every waiter of a
 * node still spins on its node's `serving` word, so a local release makes
 * every local waiter miss (ticket's herd, confined to a socket), and each
 * node's holder herds with the other nodes' on the global `owner`.
 *
 * The lock object, every word on its own line (local[n] for NUMA node n;
 * HTICKET_MAX_NODES of them, enough for every topology shipped, a node
 * number beyond folds modulo: two nodes then share a local lock, which
 * stays correct and is only less NUMA-aware):
 *
 *   global:    +------+-------+     +-------+-------+
 *              | next | (pad) |     | owner | (pad) |     u32 each
 *              +------+-------+     +-------+-------+
 *   local[n]:  +------+-------+     +---------------------+-------+
 *              | next | (pad) |     | serving             | (pad) |
 *              +------+-------+     +---------------------+-------+
 *                                     u64: low 32 bits the ticket now
 *                                     served, high 32 bits k: 0 when the
 *                                     holder must take the global lock,
 *                                     k >= 1 when it was passed along
 *                                     after k local handoffs in a row
 *
 * One 64-bit word carries both the ticket served and whether the global
 * lock comes with it, so a release writes the waiters' line once.
 *
 * Transitions, on node n, written (local next, serving = (k, owner)):
 *
 *   lock:    t = fetch_add(local.next, 1)
 *            wait until low32(serving) == t
 *            k >= 1: both mine, done
 *            k == 0: g = fetch_add(global.next, 1);
 *                    wait until global.owner == g
 *
 *   unlock:  (k, o) = serving
 *            k < HTICKET_LOCAL_PASSES and local.next != o + 1 (ticket o+1
 *            is taken: a local waiter):
 *                      serving --store--> (k + 1, o + 1)    global kept
 *            otherwise:
 *                      global.owner: g --store--> g + 1      global freed
 *                      serving --store--> (0, o + 1)         local freed
 *
 * A thread that takes ticket o + 1 just after the releaser looked finds
 * k == 0 and queues for the global lock: late, never wrong.
 *
 * HTICKET_LOCAL_PASSES is 64, the bound cna, cohort and hmcs use too, so
 * that the four compare; it was fixed before any measurement.
 *
 * Ordering: as in ticket: the serving and owner stores are releases, the
 * waits acquires, so a holder sees everything its predecessor (local or
 * global) did.
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
	t = ll_fetch_add(&loc->next, 1, LL_RELAXED);
	s = ll_wait_until(&loc->serving, (uint32_t)VAL == t);
	if (s >> 32)
		return; /* passed along with the global lock */
	g = ll_fetch_add(&l->next, 1, LL_RELAXED);
	ll_wait_until(&l->owner, VAL == g);
}

static void hticket_unlock(void *lock, void *ctx)
{
	struct hticket_lock *l = lock;
	struct hticket_ctx *c = ctx;
	struct hticket_local *loc = &l->local[c->numa];
	uint64_t s = ll_load(&loc->serving, LL_RELAXED);
	uint32_t o = (uint32_t)s, k = (uint32_t)(s >> 32), g;

	if (k < HTICKET_LOCAL_PASSES && ll_load(&loc->next, LL_RELAXED) != o + 1) {
		ll_store(&loc->serving, hticket_serving(k + 1, o + 1), LL_RELEASE);
		return;
	}
	g = ll_load(&l->owner, LL_RELAXED);
	ll_store(&l->owner, g + 1, LL_RELEASE);
	ll_store(&loc->serving, hticket_serving(0, o + 1), LL_RELEASE);
}

const struct lock_algo lock_hticket = {
	.name = "hticket",
	.desc = "hierarchical ticket lock: a ticket lock per socket under a global one (C-TKT-TKT, David et al. 2013)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct hticket_lock),
	.ctx_size = sizeof(struct hticket_ctx),
	.init = hticket_init,
	.lock = hticket_lock,
	.unlock = hticket_unlock,
};
