/*
 * hmcs - the hierarchical MCS lock, two levels.
 *
 * Chabbi, Fagan and Mellor-Crummey ("High performance locks for multi-level
 * NUMA systems", PPoPP 2015).  One MCS lock per NUMA node (the leaves)
 * under one root MCS lock.  The leaf's first holder queues at the root on
 * behalf of the node, with a queue node that belongs to the leaf.  A leaf
 * holder with a linked successor passes it the leaf lock with the root
 * still held, up to HMCS_PASSES times in a row; then the root is released
 * first and the leaf after it (docs/spinlocks.md).
 *
 *   root_tail:       +------+-------+   the root MCS lock's tail
 *                    | tail | (pad) |
 *   leaf[n].tail:    +------+-------+   node n's (modulo HMCS_MAX_NODES)
 *                    | tail | (pad) |   MCS lock's tail
 *   leaf[n].at_root: +------+--------+  node n's queue node in the root
 *                    | next | status |  queue, used by the leaf holder
 *
 * Each thread's queue node (its context, its own line) has the same shape
 * plus the leaf it queued at.  status:
 *
 *   HMCS_WAIT            wait
 *   HMCS_ACQUIRE_PARENT  (leaf) the leaf lock is mine, the root I must take
 *   HMCS_UNLOCKED        (root) the root lock is mine
 *   c, 1 <= c <= HMCS_PASSES + 1  (leaf) both locks are mine: I am the
 *                        c-th leaf holder in a row under one root lock
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#define HMCS_MAX_NODES 64u
#define HMCS_PASSES 64u

#define HMCS_WAIT UINT32_MAX
#define HMCS_ACQUIRE_PARENT (UINT32_MAX - 1)
#define HMCS_UNLOCKED 0u

struct hmcs_qnode {
	struct hmcs_qnode *next;
	uint32_t status;
	uint32_t leaf; /* thread nodes: the leaf it queued at */
} ll_cacheline_aligned;

struct hmcs_leaf {
	struct hmcs_qnode *tail ll_cacheline_aligned;
	struct hmcs_qnode at_root;
};

struct hmcs_lock {
	struct hmcs_qnode *root_tail ll_cacheline_aligned;
	struct hmcs_leaf leaf[HMCS_MAX_NODES];
};

static void hmcs_init(void *lock, unsigned ncpus)
{
	struct hmcs_lock *l = lock;

	l->root_tail = NULL;
	for (unsigned i = 0; i < HMCS_MAX_NODES; i++)
		l->leaf[i].tail = NULL;
}

/* MCS acquire of one level; returns the status that let me in. */
static uint32_t hmcs_enqueue(struct hmcs_qnode **tail, struct hmcs_qnode *me)
{
	struct hmcs_qnode *prev;

	ll_store(&me->next, NULL, LL_RELAXED);
	ll_store(&me->status, HMCS_WAIT, LL_RELAXED);
	prev = ll_xchg(tail, me, LL_ACQ_REL); /* tail: P -> me */
	if (prev == NULL)
		return HMCS_ACQUIRE_PARENT; /* first at this level: go up */
	/* P.next = me; pairs with the acquire of next in hmcs_dequeue */
	ll_store(&prev->next, me, LL_RELEASE);
	/* acquire; pairs with the release of status in hmcs_dequeue/unlock */
	return ll_wait_until(&me->status, VAL != HMCS_WAIT);
}

/* MCS release of one level, telling the successor `val`. */
static void hmcs_dequeue(struct hmcs_qnode **tail, struct hmcs_qnode *me, uint32_t val)
{
	struct hmcs_qnode *next = ll_load(&me->next, LL_ACQUIRE);

	if (next == NULL) {
		if (ll_cas(tail, me, NULL, LL_RELEASE) == me) /* tail: me -> NULL */
			return;
		next = ll_wait_until(&me->next, VAL != NULL);
	}
	/* next.status: WAIT -> val; pairs with its wait in hmcs_enqueue */
	ll_store(&next->status, val, LL_RELEASE);
}

static void hmcs_lock(void *lock, void *ctx)
{
	struct hmcs_lock *l = lock;
	struct hmcs_qnode *me = ctx;
	unsigned n = ll_this_node() % HMCS_MAX_NODES;
	struct hmcs_leaf *leaf = &l->leaf[n];

	me->leaf = n;
	if (hmcs_enqueue(&leaf->tail, me) != HMCS_ACQUIRE_PARENT)
		return; /* passed within the node, root held */
	ll_store(&me->status, 1, LL_RELAXED); /* ACQUIRE_PARENT -> 1 */
	/* the at_root node passes between the leaf's holders inside the leaf lock */
	hmcs_enqueue(&l->root_tail, &leaf->at_root);
}

/* What a run counts (ll_count), at each unlock, as cohort does: the lock
 * passed to a waiter of the same node with the root kept, or the root
 * released (the node's turn over, or nobody of the node waiting). */
enum { HMCS_COUNT_LOCAL, HMCS_COUNT_GLOBAL };

static void hmcs_unlock(void *lock, void *ctx)
{
	struct hmcs_lock *l = lock;
	struct hmcs_qnode *me = ctx;
	struct hmcs_leaf *leaf = &l->leaf[me->leaf];
	uint32_t c = ll_load(&me->status, LL_RELAXED);

	if (c <= HMCS_PASSES) {
		struct hmcs_qnode *next = ll_load(&me->next, LL_ACQUIRE);

		if (next) {
			/* next.status: WAIT -> c + 1, root kept */
			ll_store(&next->status, c + 1, LL_RELEASE);
			ll_count(HMCS_COUNT_LOCAL);
			return;
		}
	}
	/*
	 * The root before the leaf: the next leaf holder re-initialises
	 * at_root, which it may do only once the root queue is done with it.
	 */
	hmcs_dequeue(&l->root_tail, &leaf->at_root, HMCS_UNLOCKED);
	hmcs_dequeue(&leaf->tail, me, HMCS_ACQUIRE_PARENT);
	ll_count(HMCS_COUNT_GLOBAL);
}

const struct lock_algo lock_hmcs = {
	.name = "hmcs",
	.desc = "hierarchical MCS, two levels: an MCS lock per NUMA node (64, folded beyond) under a root MCS lock (Chabbi et al. 2015)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct hmcs_lock),
	.ctx_size = sizeof(struct hmcs_qnode),
	.init = hmcs_init,
	.lock = hmcs_lock,
	.unlock = hmcs_unlock,
	.counts = { "local_pass", "global_release" },
};
