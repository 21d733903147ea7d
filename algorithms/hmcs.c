/*
 * hmcs - the hierarchical MCS lock, two levels.
 *
 * Chabbi, Fagan and Mellor-Crummey ("High performance locks for multi-level
 * NUMA systems", PPoPP 2015).  A tree of MCS locks that follows the
 * machine; here the two levels every topology has: one MCS lock per NUMA
 * node (the leaves) and one root MCS lock.  A thread queues at its node's
 * leaf; the leaf's first holder queues at the root on behalf of the whole
 * node, with a queue node that belongs to the leaf.  A leaf holder that
 * finds a successor already queued at its leaf passes it the leaf lock
 * with the root lock still held, up to HMCS_PASSES handoffs in a row
 * under one root acquisition; then the root lock is released first and
 * the leaf lock after it, telling the next leaf waiter to queue at the
 * root again.
 *
 * The difference from cohort (C-BO-MCS) is the root: a queue, so nodes take
 * the global lock in FIFO order and its waiters never herd; and the test
 * for a cohort is the cheap one, a linked successor.
 *
 * The lock object, every part on its own line (leaf[n] for NUMA node n;
 * HMCS_MAX_NODES of them, enough for every topology shipped, a node number
 * beyond folds modulo: two nodes then share a leaf, which stays correct and
 * is only less NUMA-aware):
 *
 *   root_tail:       +------+-------+   the root MCS lock's tail
 *                    | tail | (pad) |
 *                    +------+-------+
 *   leaf[n].tail:    +------+-------+   node n's MCS lock's tail
 *                    | tail | (pad) |
 *                    +------+-------+
 *   leaf[n].at_root: +------+--------+  node n's queue node in the root
 *                    | next | status |  queue, used by whichever thread
 *                    +------+--------+  of node n holds the leaf lock
 *
 * and each thread's queue node (its context) on its own line, of the same
 * shape: next, status, plus the leaf it queued at.  status:
 *
 *   HMCS_WAIT            wait
 *   HMCS_ACQUIRE_PARENT  (leaf) the leaf lock is mine, the root I must take
 *   HMCS_UNLOCKED        (root) the root lock is mine
 *   c, 1 <= c <= HMCS_PASSES + 1
 *                        (leaf) both locks are mine: I am the c-th leaf
 *                        holder in a row under one root acquisition
 *
 * Transitions, for my node I at leaf L (R = L.at_root):
 *
 *   lock:    I.next = NULL, I.status = WAIT
 *            L.tail: P --xchg(I)--> I
 *            P != NULL: P.next = I; wait until I.status != WAIT;
 *                       a count c: both mine, done
 *                       ACQUIRE_PARENT: go on below
 *            I.status = 1; R.next = NULL, R.status = WAIT
 *            root_tail: Q --xchg(R)--> R
 *            Q != NULL: Q.next = R; wait until R.status == UNLOCKED
 *
 *   unlock:  c = I.status
 *            c <= HMCS_PASSES and I.next == S: S.status = c + 1, done
 *            otherwise, release the root (as MCS: R.next.status = UNLOCKED,
 *            or root_tail: R --cas--> NULL), then the leaf (as MCS with
 *            ACQUIRE_PARENT: I.next.status = ACQUIRE_PARENT, or
 *            L.tail: I --cas--> NULL).
 *
 * The root before the leaf: R belongs to the leaf, and the next leaf holder
 * re-initialises it; it may do so only once the root queue no longer needs
 * R, that is after R's release.
 *
 * HMCS_PASSES is 64, the bound cna, cohort and hticket use too, so that the
 * four compare; it was fixed before any measurement.
 *
 * Ordering: as in mcs, at each level (release stores of status and links,
 * acquire waits).  The at_root node passes from one thread to the next
 * inside the leaf lock, whose handoff orders their accesses to it.
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
	prev = ll_xchg(tail, me, LL_ACQ_REL);
	if (prev == NULL)
		return HMCS_ACQUIRE_PARENT; /* first at this level: go up */
	ll_store(&prev->next, me, LL_RELEASE);
	return ll_wait_until(&me->status, VAL != HMCS_WAIT);
}

/* MCS release of one level, telling the successor `val`. */
static void hmcs_dequeue(struct hmcs_qnode **tail, struct hmcs_qnode *me, uint32_t val)
{
	struct hmcs_qnode *next = ll_load(&me->next, LL_ACQUIRE);

	if (next == NULL) {
		if (ll_cas(tail, me, NULL, LL_RELEASE) == me)
			return;
		next = ll_wait_until(&me->next, VAL != NULL);
	}
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
	ll_store(&me->status, 1, LL_RELAXED);
	hmcs_enqueue(&l->root_tail, &leaf->at_root);
}

static void hmcs_unlock(void *lock, void *ctx)
{
	struct hmcs_lock *l = lock;
	struct hmcs_qnode *me = ctx;
	struct hmcs_leaf *leaf = &l->leaf[me->leaf];
	uint32_t c = ll_load(&me->status, LL_RELAXED);

	if (c <= HMCS_PASSES) {
		struct hmcs_qnode *next = ll_load(&me->next, LL_ACQUIRE);

		if (next) {
			ll_store(&next->status, c + 1, LL_RELEASE);
			return;
		}
	}
	hmcs_dequeue(&l->root_tail, &leaf->at_root, HMCS_UNLOCKED);
	hmcs_dequeue(&leaf->tail, me, HMCS_ACQUIRE_PARENT);
}

const struct lock_algo lock_hmcs = {
	.name = "hmcs",
	.desc = "hierarchical MCS, two levels: an MCS lock per socket under a root MCS lock (Chabbi et al. 2015)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct hmcs_lock),
	.ctx_size = sizeof(struct hmcs_qnode),
	.init = hmcs_init,
	.lock = hmcs_lock,
	.unlock = hmcs_unlock,
};
