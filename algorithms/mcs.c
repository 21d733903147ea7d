/*
 * mcs - the MCS queue lock.
 *
 * Mellor-Crummey and Scott ("Algorithms for scalable synchronization on
 * shared-memory multiprocessors", ACM TOCS 1991).  Waiters form a linked
 * queue of their own nodes; each spins on a flag in its own node, so a
 * release touches exactly one waiter's line, whatever the number of
 * waiters.  The base of Linux's qspinlock.
 *
 * The lock is one pointer on its own line; each thread brings a node (its
 * context for this lock), on the thread's own node of memory:
 *
 *   lock:  +------+-------------+       ctx:  +------+--------+---------+
 *          | tail |  (padding)  |             | next | locked | (pad)   |
 *          +------+-------------+             +------+--------+---------+
 *            the last node queued,              successor     1: wait,
 *            NULL when free                     or NULL       0: go
 *
 * Transitions, written (tail, I.next, I.locked) for my node I:
 *
 *   lock, free:    I.next = NULL, I.locked = 1
 *                  tail: NULL --xchg(I)--> I            old NULL: mine
 *
 *   lock, held:    tail: P --xchg(I)--> I               old P: queued
 *                  P.next: NULL --store(I)--> I         link behind P
 *                  wait until I.locked == 0             only my line
 *
 *   unlock, a successor S already linked (I.next == S):
 *                  S.locked: 1 --store(0)--> 0          hand over
 *
 *   unlock, I.next == NULL:
 *                  tail: I --cas(NULL)--> NULL          nobody queued: free
 *                  if the cas fails, a successor has swapped the tail but
 *                  not yet linked: wait until I.next != NULL, then hand over.
 *
 *   trylock:       tail: NULL --cas(I)--> I             only when free
 *
 * Ordering: the node is initialised before it is published, by the xchg
 * (release) and the link store (release, read with acquire by the
 * predecessor), so the predecessor's hand-over store cannot be overwritten
 * by our own initialisation.  The hand-over is a release store and the
 * wait an acquire load; a free lock passes from the releaser's cas
 * (release) to the next xchg (acquire).
 *
 * Each node has its own line (the workload allocates every context
 * 64-byte aligned, on its thread's node), so the spin of one waiter is
 * never disturbed by another's.
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

struct mcs_node {
	struct mcs_node *next;
	uint32_t locked;
} ll_cacheline_aligned;

struct mcs_lock {
	struct mcs_node *tail;
} ll_cacheline_aligned;

static void mcs_init(void *lock, unsigned ncpus)
{
	struct mcs_lock *l = lock;

	l->tail = NULL;
}

static void mcs_node_prepare(struct mcs_node *me)
{
	ll_store(&me->next, NULL, LL_RELAXED);
	ll_store(&me->locked, 1, LL_RELAXED);
}

static void mcs_lock(void *lock, void *ctx)
{
	struct mcs_lock *l = lock;
	struct mcs_node *me = ctx;
	struct mcs_node *prev;

	mcs_node_prepare(me);
	prev = ll_xchg(&l->tail, me, LL_ACQ_REL);
	if (prev == NULL)
		return;
	ll_store(&prev->next, me, LL_RELEASE);
	ll_wait_until(&me->locked, VAL == 0);
}

static bool mcs_trylock(void *lock, void *ctx)
{
	struct mcs_lock *l = lock;
	struct mcs_node *me = ctx;

	mcs_node_prepare(me);
	return ll_cas(&l->tail, NULL, me, LL_ACQ_REL) == NULL;
}

static void mcs_unlock(void *lock, void *ctx)
{
	struct mcs_lock *l = lock;
	struct mcs_node *me = ctx;
	struct mcs_node *next = ll_load(&me->next, LL_ACQUIRE);

	if (next == NULL) {
		if (ll_cas(&l->tail, me, NULL, LL_RELEASE) == me)
			return;
		next = ll_wait_until(&me->next, VAL != NULL);
	}
	ll_store(&next->locked, 0, LL_RELEASE);
}

const struct lock_algo lock_mcs = {
	.name = "mcs",
	.desc = "MCS queue lock: each waiter spins on its own node (Mellor-Crummey & Scott 1991)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct mcs_lock),
	.ctx_size = sizeof(struct mcs_node),
	.init = mcs_init,
	.lock = mcs_lock,
	.unlock = mcs_unlock,
	.trylock = mcs_trylock,
};
