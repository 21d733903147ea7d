/*
 * clh - the CLH queue lock.
 *
 * Craig ("Building FIFO and priority-queuing spin locks from atomic swap",
 * TR 93-02-02, University of Washington, 1993) and Magnusson, Landin and
 * Hagersten ("Queue locks on cache coherent multiprocessors", IPPS 1994).
 * Like MCS, each waiter spins on a line of its own, but the queue is
 * implicit: a waiter spins on its predecessor's node, so no thread ever
 * writes another's pointer, and the release is a single store.  The cost
 * is that nodes change hands: on release a thread gives up its own node
 * (its successor is still reading it) and keeps its predecessor's, which
 * nobody reads any more.
 *
 * Memory.  The lock object holds the tail and the first node; each
 * thread's context holds its two pointers and one node:
 *
 *   lock:  line 0 +------+--------+     line 1 +--------+--------+
 *                 | tail | (pad)  |            | locked | (pad)  |  dummy
 *                 +------+--------+            +--------+--------+
 *   ctx:   line 0 +------+------+---+   line 1 +--------+--------+
 *                 | mine | pred |   |          | locked | (pad)  |  slot
 *                 +------+------+---+          +--------+--------+
 *
 * A node's locked word is 1 while the thread that enqueued it holds or
 * wants the lock, 0 once it has released.  A thread count of N gives N + 1
 * nodes for the life of the lock (N slots and the dummy), of which the
 * tail's is the one released last and each thread owns one of the others.
 * No node is allocated or freed on the lock path.  Because nodes wander,
 * a thread's node may sit in another thread's context or in the lock
 * object: all contexts of a lock must live as long as the lock (the
 * workload frees them together at the end of the run).
 *
 * Nodes have lines of their own: the successor spins on one, and a node
 * in my context may be in use by another thread, so it must not share a
 * line with my private pointers.
 *
 * Transitions, for my node I (ctx->mine; ctx->slot on first use):
 *
 *   init:          tail = &dummy, dummy.locked = 0
 *   lock:          I.locked = 1
 *                  tail: P --xchg(I)--> I         P is my predecessor
 *                  wait until P.locked == 0       (P is the dummy or a node
 *                                                  released: mine at once)
 *                  ctx->pred = P
 *   unlock:        I.locked: 1 --store(0)--> 0    release: my successor,
 *                                                  spinning on I, enters
 *                  ctx->mine = P                  P is mine from now on
 *
 * Ordering: I.locked = 1 is published by the xchg (release); the
 * successor gets I from its own xchg (acquire) before it reads I.locked.
 * The release store pairs with the successor's acquiring wait.
 *
 * init() runs before any thread starts, so it writes with plain stores.
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
	ll_store(&me->locked, 1, LL_RELAXED);
	pred = ll_xchg(&l->tail, me, LL_ACQ_REL);
	ll_wait_until(&pred->locked, VAL == 0);
	c->pred = pred;
}

static void clh_unlock(void *lock, void *ctx)
{
	struct clh_ctx *c = ctx;

	ll_store(&c->mine->locked, 0, LL_RELEASE);
	c->mine = c->pred;
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
