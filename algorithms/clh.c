/*
 * clh - the CLH queue lock.
 *
 * Craig ("Building FIFO and priority-queuing spin locks from atomic swap",
 * TR 93-02-02, University of Washington, 1993) and Magnusson, Landin and
 * Hagersten ("Queue locks on cache coherent multiprocessors", IPPS 1994).
 * A waiter spins on its predecessor's node, so no thread ever writes
 * another's pointer and the release is a single store; on release a
 * thread gives up its own node and keeps its predecessor's.  Nodes
 * wander, so all contexts of a lock must live as long as the lock
 * (docs/spinlocks.md).
 *
 *   lock:  line 0 +------+--------+     line 1 +--------+--------+
 *                 | tail | (pad)  |            | locked | (pad)  |  dummy
 *                 +------+--------+            +--------+--------+
 *   ctx:   line 0 +------+------+---+   line 1 +--------+--------+
 *                 | mine | pred |   |          | locked | (pad)  |  slot
 *                 +------+------+---+          +--------+--------+
 *
 * A node's locked word is 1 while the thread that enqueued it holds or
 * wants the lock, 0 once it has released.
 *
 * init() runs before any thread starts, so it writes with plain stores:
 * tail = &dummy, dummy.locked = 0.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

struct clh_node {
	uint32_t locked;
} ll_cacheline_aligned;

struct clh_lock {
	struct clh_node *tail ll_cacheline_aligned;
	struct clh_node dummy;
};

struct clh_ctx {
	struct clh_node *mine; /* the node I enqueue next time */
	struct clh_node *pred; /* while I hold or wait: my predecessor's */
	struct clh_node slot;  /* my node before the first release */
};

static void clh_init(void *lock, unsigned ncpus)
{
	struct clh_lock *l = lock;

	l->dummy.locked = 0;
	l->tail = &l->dummy;
}

static void clh_lock(void *lock, void *ctx)
{
	struct clh_lock *l = lock;
	struct clh_ctx *c = ctx;
	struct clh_node *me = c->mine;
	struct clh_node *pred;

	if (!me)
		me = c->mine = &c->slot;
	ll_store(&me->locked, 1, LL_RELAXED); /* I.locked: 0 -> 1 */
	/*
	 * tail: P -> I.  Release publishes I.locked = 1 to my successor,
	 * whose xchg (acquire) gets I before it reads I.locked.
	 */
	pred = ll_xchg(&l->tail, me, LL_ACQ_REL);
	/* acquire; pairs with P's release in clh_unlock */
	ll_wait_until(&pred->locked, VAL == 0);
	c->pred = pred;
}

static void clh_unlock(void *lock, void *ctx)
{
	struct clh_ctx *c = ctx;

	/* I.locked: 1 -> 0; pairs with my successor's wait in clh_lock */
	ll_store(&c->mine->locked, 0, LL_RELEASE);
	c->mine = c->pred; /* P is mine from now on */
}

const struct lock_algo lock_clh = {
	.name = "clh",
	.desc = "CLH queue lock: each waiter spins on its predecessor's node (Craig; Magnusson et al. 1994)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct clh_lock),
	.ctx_size = sizeof(struct clh_ctx),
	.init = clh_init,
	.lock = clh_lock,
	.unlock = clh_unlock,
};
