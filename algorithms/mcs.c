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
 * context, on its own line, on the thread's node of memory):
 *
 *   lock:  +------+-------------+       ctx:  +------+--------+---------+
 *          | tail |  (padding)  |             | next | locked | (pad)   |
 *          +------+-------------+             +------+--------+---------+
 *            the last node queued,              successor     1: wait,
 *            NULL when free                     or NULL       0: go
 *
 * Transitions are written (tail, I.next, I.locked) for my node I.
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

/* (*, NULL, 1); published by the xchg or cas on tail (release) */
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
	/*
	 * tail: P -> I; P == NULL: mine.  Acquire pairs with the release
	 * cas in mcs_unlock, release publishes my prepared node.
	 */
	prev = ll_xchg(&l->tail, me, LL_ACQ_REL);
	if (prev == NULL)
		return;
	/* P.next: NULL -> I; pairs with the acquire of next in mcs_unlock */
	ll_store(&prev->next, me, LL_RELEASE);
	/* (*, *, 1) -> (*, *, 0); pairs with the hand-over in mcs_unlock */
	ll_wait_until(&me->locked, VAL == 0);
}

static bool mcs_trylock(void *lock, void *ctx)
{
	struct mcs_lock *l = lock;
	struct mcs_node *me = ctx;

	mcs_node_prepare(me);
	return ll_cas(&l->tail, NULL, me, LL_ACQ_REL) == NULL; /* tail: NULL -> I */
}

static void mcs_unlock(void *lock, void *ctx)
{
	struct mcs_lock *l = lock;
	struct mcs_node *me = ctx;
	struct mcs_node *next = ll_load(&me->next, LL_ACQUIRE);

	if (next == NULL) {
		/* (I, NULL, *) -> (NULL, NULL, *): nobody queued, free */
		if (ll_cas(&l->tail, me, NULL, LL_RELEASE) == me)
			return;
		/* a successor swapped the tail but has not linked yet */
		next = ll_wait_until(&me->next, VAL != NULL);
	}
	/* S.locked: 1 -> 0; pairs with the acquiring wait in mcs_lock */
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
