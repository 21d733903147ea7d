/*
 * cohort - a cohort lock, C-BO-MCS.
 *
 * Dice, Marathe and Shavit ("Lock cohorting: a general technique for
 * designing NUMA locks", PPoPP 2012).  Two levels: a global lock, and one
 * local lock per NUMA node.  A thread first takes its node's local lock,
 * then the global one.  At release, if another thread of the same node is
 * already waiting for the local lock (the cohort is not "alone"), the
 * releaser hands it the local lock together with the global one, which it
 * keeps: the lock and its data stay on the node.  At most
 * COHORT_LOCAL_PASSES handoffs in a row stay on a node; then the global
 * lock is released, and the local one with it, so that other nodes get a
 * turn.
 *
 * C-BO-MCS is the paper's combination that performed best: the global lock
 * is a test-and-test-and-set lock with exponential backoff (BO), which may
 * be released by a thread other than the one that took it (the property
 * cohorting needs of the global lock), and the local locks are MCS locks,
 * whose queue tells a releaser whether a cohort waits.  Only one thread per
 * node competes for the global lock, so the backoff lock's herd is at most
 * the number of nodes.  Nothing bounds how long a node waits for the
 * global lock: a backoff lock goes to whichever request reaches the line
 * first, and on a NUMA machine that favours the node that just released it
 * (docs/spinlocks.md shows a socket starved in the simulator).
 *
 * The lock object, every part on its own line (local[n] for NUMA node n;
 * COHORT_MAX_NODES of them, enough for every topology shipped, a node
 * number beyond folds modulo: two nodes then share a local lock, which
 * stays correct and is only less NUMA-aware):
 *
 *   global:   +--------+--------+       BO lock word: 0 free, 1 held
 *             | locked | (pad)  |
 *             +--------+--------+
 *   local[n]: +------+----------+       MCS tail of node n's queue
 *             | tail |  (pad)   |
 *             +------+----------+
 *
 * and each thread's node (context), on its own line:
 *
 *   qnode:    +------+--------+------+-------+
 *             | next | status | numa | draws |
 *             +------+--------+------+-------+
 *               status   COHORT_WAIT: wait for the local lock;
 *                        COHORT_ACQUIRE_GLOBAL: the local lock is mine,
 *                          the global one I must take;
 *                        COHORT_PASS0 + k: both are mine, passed within
 *                          the node after k local handoffs in a row
 *               numa     the local lock I queued on (for the unlock)
 *               draws    backoff draws (private)
 *
 * Transitions, for my qnode I on node n:
 *
 *   lock:    I.next = NULL, I.status = WAIT
 *            local[n].tail: P --xchg(I)--> I
 *            P == NULL: the local lock is mine; take the global one
 *            else:      P.next = I; wait until I.status != WAIT;
 *                       PASS0 + k: both are mine, done;
 *                       ACQUIRE_GLOBAL: take the global one
 *            taking the global lock: wait until locked == 0, then
 *            0 --xchg(1)--> 1; a lost xchg backs off for a random time
 *            in [limit/2, limit), limit doubling from COHORT_BO_MIN_NS to
 *            COHORT_BO_MAX_NS; then I.status = PASS0 (k = 0).
 *
 *   unlock:  k = I.status - PASS0
 *            k < COHORT_LOCAL_PASSES and not alone (I.next set, or
 *            local[n].tail != I: a successor is linking in; wait for it):
 *                       I.next.status = PASS0 + k + 1      global kept
 *            otherwise: locked: 1 --store(0)--> 0          global freed
 *                       then the local lock goes as in MCS, with
 *                       I.next.status = ACQUIRE_GLOBAL for a successor,
 *                       or local[n].tail: I --cas--> NULL when none.
 *
 * Ordering: as in mcs (release stores of status and link, acquire waits);
 * the global word is taken with an acquire xchg and freed with a release
 * store.  When the global lock is passed along, the successor's acquire
 * on its status orders it after everything the releaser did.
 *
 * The backoff constants are ttas-backoff's: one cross-socket transfer to
 * start, 64 times that at most.  The draw is a hash of the cpu and a
 * per-qnode counter, so a simulated run is a function of its seed.
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#define COHORT_MAX_NODES 64u
#define COHORT_LOCAL_PASSES 64u
#define COHORT_BO_MIN_NS 128u
#define COHORT_BO_MAX_NS (64u * COHORT_BO_MIN_NS)

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

/* A 64-bit mixing function (the finaliser of splitmix64). */
static uint64_t cohort_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Sleep a random time in [limit/2, limit); return the next limit. */
static uint32_t cohort_backoff(struct cohort_qnode *me, uint32_t limit)
{
	uint64_t r = cohort_mix64(((uint64_t)ll_this_cpu() << 40) ^ me->draws++);
	uint32_t half = limit / 2;

	ll_delay_ns(half + r % half);
	return limit < COHORT_BO_MAX_NS ? limit * 2 : COHORT_BO_MAX_NS;
}

static void cohort_global_acquire(struct cohort_lock *l, struct cohort_qnode *me)
{
	uint32_t limit = COHORT_BO_MIN_NS;

	for (;;) {
		ll_wait_until(&l->global, VAL == 0);
		if (ll_xchg(&l->global, 1, LL_ACQUIRE) == 0)
			return;
		limit = cohort_backoff(me, limit);
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
	prev = ll_xchg(&l->local[n].tail, me, LL_ACQ_REL);
	if (prev) {
		ll_store(&prev->next, me, LL_RELEASE);
		if (ll_wait_until(&me->status, VAL != COHORT_WAIT) >= COHORT_PASS0)
			return;
	}
	cohort_global_acquire(l, me);
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
		if (ll_cas(&loc->tail, me, NULL, LL_RELEASE) == me)
			return;
		next = ll_wait_until(&me->next, VAL != NULL);
	}
	ll_store(&next->status, COHORT_ACQUIRE_GLOBAL, LL_RELEASE);
}

static void cohort_unlock(void *lock, void *ctx)
{
	struct cohort_lock *l = lock;
	struct cohort_qnode *me = ctx;
	struct cohort_local *loc = &l->local[me->numa];
	uint32_t k = ll_load(&me->status, LL_RELAXED) - COHORT_PASS0;
	struct cohort_qnode *next;

	if (k < COHORT_LOCAL_PASSES && (next = cohort_local_successor(loc, me))) {
		ll_store(&next->status, COHORT_PASS0 + k + 1, LL_RELEASE);
		return;
	}
	ll_store(&l->global, 0, LL_RELEASE);
	cohort_local_release(loc, me);
}

const struct lock_algo lock_cohort = {
	.name = "cohort",
	.desc = "cohort lock C-BO-MCS: an MCS lock per socket under a global backoff lock (Dice, Marathe & Shavit 2012)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct cohort_lock),
	.ctx_size = sizeof(struct cohort_qnode),
	.init = cohort_init,
	.lock = cohort_lock,
	.unlock = cohort_unlock,
};
