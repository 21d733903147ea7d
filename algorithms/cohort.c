/*
 * cohort - a cohort lock, C-BO-MCS.
 *
 * Dice, Marathe and Shavit ("Lock cohorting: a general technique for
 * designing NUMA locks", PPoPP 2012): a thread takes its node's local MCS
 * lock, then the global backoff lock (algorithms/internal_backoff.h).  A
 * releaser with a waiter on its own node hands it both, keeping the global
 * lock on the node, at most COHORT_LOCAL_PASSES times in a row.
 * docs/spinlocks.md discusses the choice of locks and the fairness.
 *
 *   global:   +--------+--------+   u32: 0 free, 1 held
 *             | locked | (pad)  |
 *   local[n]: +------+----------+   MCS tail of node n's queue (n modulo
 *             | tail |  (pad)   |   COHORT_MAX_NODES)
 *   qnode:    +------+--------+------+-------+
 *             | next | status | numa | draws |
 *             +------+--------+------+-------+
 *
 *   status  COHORT_WAIT: wait for the local lock;
 *           COHORT_ACQUIRE_GLOBAL: the local lock is mine, the global one
 *             I must take;
 *           COHORT_PASS0 + k: both are mine, passed within the node after
 *             k local handoffs in a row
 *   numa    the local lock I queued on;  draws  backoff draws (private)
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#include "internal_backoff.h"

#define COHORT_MAX_NODES 64u
#define COHORT_LOCAL_PASSES 64u

#define COHORT_WAIT 0u
#define COHORT_ACQUIRE_GLOBAL 1u
#define COHORT_PASS0 2u

struct cohort_qnode {
	struct cohort_qnode *next;
	uint32_t status;
	uint32_t numa;
	uint64_t draws;
} ll_cacheline_aligned;

struct cohort_local {
	struct cohort_qnode *tail;
} ll_cacheline_aligned;

struct cohort_lock {
	uint32_t global ll_cacheline_aligned;
	struct cohort_local local[COHORT_MAX_NODES];
};

static void cohort_init(void *lock, unsigned ncpus)
{
	struct cohort_lock *l = lock;

	l->global = 0;
	for (unsigned i = 0; i < COHORT_MAX_NODES; i++)
		l->local[i].tail = NULL;
}

static void cohort_global_acquire(struct cohort_lock *l, struct cohort_qnode *me)
{
	uint32_t limit = BACKOFF_MIN_NS;

	for (;;) {
		ll_wait_until(&l->global, VAL == 0);
		/* global: 0 -> 1; pairs with the release store in cohort_unlock */
		if (ll_xchg(&l->global, 1, LL_ACQUIRE) == 0)
			return;
		limit = backoff_delay(&me->draws, limit);
	}
}

static void cohort_lock(void *lock, void *ctx)
{
	struct cohort_lock *l = lock;
	struct cohort_qnode *me = ctx;
	unsigned n = ll_this_node() % COHORT_MAX_NODES;
	struct cohort_qnode *prev;

	me->numa = n;
	ll_store(&me->next, NULL, LL_RELAXED);
	ll_store(&me->status, COHORT_WAIT, LL_RELAXED);
	/* local[n].tail: P -> me; P == NULL: the local lock is mine */
	prev = ll_xchg(&l->local[n].tail, me, LL_ACQ_REL);
	if (prev) {
		/* pairs with the acquire of next in the unlock paths */
		ll_store(&prev->next, me, LL_RELEASE);
		/* acquire; pairs with the release of my status by my predecessor */
		if (ll_wait_until(&me->status, VAL != COHORT_WAIT) >= COHORT_PASS0)
			return; /* PASS0 + k: both locks are mine */
	}
	cohort_global_acquire(l, me); /* WAIT -> ACQUIRE_GLOBAL, or queue empty */
	ll_store(&me->status, COHORT_PASS0, LL_RELAXED);
}

/* The successor in my node's queue, or NULL if I am alone in it. */
static struct cohort_qnode *cohort_local_successor(struct cohort_local *loc, struct cohort_qnode *me)
{
	struct cohort_qnode *next = ll_load(&me->next, LL_ACQUIRE);

	if (next || ll_load(&loc->tail, LL_RELAXED) == me)
		return next;
	return ll_wait_until(&me->next, VAL != NULL);
}

static void cohort_local_release(struct cohort_local *loc, struct cohort_qnode *me)
{
	struct cohort_qnode *next = ll_load(&me->next, LL_ACQUIRE);

	if (next == NULL) {
		/* tail: me -> NULL, no successor */
		if (ll_cas(&loc->tail, me, NULL, LL_RELEASE) == me)
			return;
		next = ll_wait_until(&me->next, VAL != NULL);
	}
	/* next.status: WAIT -> ACQUIRE_GLOBAL */
	ll_store(&next->status, COHORT_ACQUIRE_GLOBAL, LL_RELEASE);
}

/* What a run counts (ll_count), at each unlock: the lock passed to a
 * waiter of the same node with the global lock kept, or the global lock
 * released (the cohort's turn over, or nobody of the node waiting). */
enum { COHORT_COUNT_LOCAL, COHORT_COUNT_GLOBAL };

static void cohort_unlock(void *lock, void *ctx)
{
	struct cohort_lock *l = lock;
	struct cohort_qnode *me = ctx;
	struct cohort_local *loc = &l->local[me->numa];
	uint32_t k = ll_load(&me->status, LL_RELAXED) - COHORT_PASS0;
	struct cohort_qnode *next;

	if (k < COHORT_LOCAL_PASSES && (next = cohort_local_successor(loc, me))) {
		/* next.status: WAIT -> PASS0 + k + 1, global kept on the node */
		ll_store(&next->status, COHORT_PASS0 + k + 1, LL_RELEASE);
		ll_count(COHORT_COUNT_LOCAL);
		return;
	}
	/* global: 1 -> 0; pairs with the acquiring xchg in cohort_global_acquire */
	ll_store(&l->global, 0, LL_RELEASE);
	ll_count(COHORT_COUNT_GLOBAL);
	cohort_local_release(loc, me);
}

const struct lock_algo lock_cohort = {
	.name = "cohort",
	.desc = "cohort lock C-BO-MCS: an MCS lock per NUMA node (64, folded beyond) under a global backoff lock (Dice, Marathe & Shavit 2012)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct cohort_lock),
	.ctx_size = sizeof(struct cohort_qnode),
	.init = cohort_init,
	.lock = cohort_lock,
	.unlock = cohort_unlock,
	.counts = { "local_pass", "global_release" },
	.assumed = "backoff from 128 ns to 8.2 us", /* its global lock's BACKOFF_MIN_NS, BACKOFF_MAX_NS */
};
