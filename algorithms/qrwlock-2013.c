/*
 * qrwlock-2013, qrwlock-2013-rs - the queue rwlock as first posted.
 *
 * Waiman Long, "[PATCH RFC] qrwlock: Introducing a queue read/write lock
 * implementation", LKML, July 2013 (v1-v3; the kernels of seed 001).  A
 * count word with a writer byte, and beside it the tail of a queue of
 * per-waiter nodes (MCS-like), not the merged version's spinlock.  Fair:
 * a newcomer takes the fast path only while nobody queues.  The "reader
 * lock stealing" flag of the posting (qrwlock-2013-rs) lets readers
 * take the fast path past the queue while no writer holds the lock.
 *
 *   lock:  +--------------------------------+--------+   one line
 *          | cnts (u32)                     | waitq  |
 *          |  bits 0-7  writer: 0xff held   | (tail) |
 *          |  bits 8-31 readers (R_BIAS=256)|        |
 *          +--------------------------------+--------+
 *   node:  +------+------+   per (thread, lock), one line: the context
 *          | next | wait |
 *          +------+------+
 *
 * Transitions are written (R, writer, waitq).  The head of the queue
 * waits on the word itself; everybody behind it spins on its own node.
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#define Q13_WRITER 0x0ffu
#define Q13_R_BIAS 0x100u

struct q13_node {
	struct q13_node *next;
	uint32_t wait;
} ll_cacheline_aligned;

struct q13_lock {
	union {
		uint32_t cnts;
		uint8_t writer;
	};
	struct q13_node *waitq;
} ll_cacheline_aligned;

static void q13_init(void *lock, unsigned ncpus)
{
	struct q13_lock *l = lock;

	l->cnts = 0;
	l->waitq = NULL;
}

/* Behind the tail, if any: until my predecessor hands me the head. */
static void q13_queue(struct q13_lock *l, struct q13_node *me)
{
	struct q13_node *prev;

	ll_store(&me->next, NULL, LL_RELAXED);
	ll_store(&me->wait, 1, LL_RELAXED);
	/* (*, *, P) -> (*, *, me); release publishes my node, acquire pairs
	 * with the release cas in q13_pass_head */
	prev = ll_xchg(&l->waitq, me, LL_ACQ_REL);
	if (prev == NULL)
		return;
	/* P.next: NULL -> me; pairs with the acquire of next in q13_pass_head */
	ll_store(&prev->next, me, LL_RELEASE);
	/* me.wait: 1 -> 0; pairs with the release store in q13_pass_head */
	ll_wait_until(&me->wait, VAL == 0);
}

/* The head got in: the next node becomes the head, or the queue empties. */
static void q13_pass_head(struct q13_lock *l, struct q13_node *me)
{
	struct q13_node *next = ll_load(&me->next, LL_ACQUIRE);

	if (next == NULL) {
		/* (*, *, me) -> (*, *, NULL): nobody behind me */
		if (ll_cas(&l->waitq, me, NULL, LL_RELEASE) == me)
			return;
		next = ll_wait_until(&me->next, VAL != NULL); /* linking now */
	}
	/* next.wait: 1 -> 0; pairs with the acquiring wait in q13_queue */
	ll_store(&next->wait, 0, LL_RELEASE);
}

/* (R, 0, *) -> (R+1, 0, *): in.  An arrival that meets a writer undoes. */
static bool q13_read_try(struct q13_lock *l)
{
	/* pairs with the release of the writer byte in q13_write_unlock */
	if (!(ll_fetch_add(&l->cnts, Q13_R_BIAS, LL_ACQUIRE) & Q13_WRITER))
		return true;
	(void)ll_fetch_add(&l->cnts, -Q13_R_BIAS, LL_RELAXED); /* undo */
	return false;
}

static void q13_read_queued(struct q13_lock *l, struct q13_node *me)
{
	q13_queue(l, me);
	do
		ll_wait_until(&l->cnts, !(VAL & Q13_WRITER));
	while (!q13_read_try(l));
	q13_pass_head(l, me); /* a reader next in line comes in beside me */
}

static void q13_read_lock(void *lock, void *ctx)
{
	struct q13_lock *l = lock;

	if (ll_load(&l->waitq, LL_RELAXED) == NULL && q13_read_try(l))
		return;
	q13_read_queued(l, ctx);
}

static void q13_read_lock_steal(void *lock, void *ctx)
{
	struct q13_lock *l = lock;

	if (q13_read_try(l)) /* past the queue, unless a writer holds */
		return;
	q13_read_queued(l, ctx);
}

static void q13_read_unlock(void *lock, void *ctx)
{
	struct q13_lock *l = lock;

	/* (R, *, *) -> (R-1, *, *); pairs with the writer's acquiring cas */
	(void)ll_fetch_add(&l->cnts, -Q13_R_BIAS, LL_RELEASE);
}

/* (0, 0, *) -> (0, 0xff, *); pairs with the releases in both unlocks */
static bool q13_write_try(struct q13_lock *l)
{
	return ll_cas(&l->cnts, 0, Q13_WRITER, LL_ACQUIRE) == 0;
}

static void q13_write_lock(void *lock, void *ctx)
{
	struct q13_lock *l = lock;

	if (ll_load(&l->waitq, LL_RELAXED) == NULL && q13_write_try(l))
		return;
	q13_queue(l, ctx);
	do
		ll_wait_until(&l->cnts, VAL == 0); /* readers and writer gone */
	while (!q13_write_try(l));
	q13_pass_head(l, ctx);
}

static void q13_write_unlock(void *lock, void *ctx)
{
	struct q13_lock *l = lock;

	/* (R, 0xff, *) -> (R, 0, *), a byte store; pairs with the acquires
	 * of cnts in the read and write lock paths */
	ll_store(&l->writer, 0, LL_RELEASE);
}

const struct lock_algo lock_qrwlock_2013 = {
	.name = "qrwlock-2013",
	.desc = "queue rwlock as posted in July 2013 (RFC v1-v3): per-waiter queue nodes beside the count; fair",
	.kind = LOCK_RWLOCK,
	.lock_size = sizeof(struct q13_lock),
	.ctx_size = sizeof(struct q13_node),
	.init = q13_init,
	.read_lock = q13_read_lock,
	.read_unlock = q13_read_unlock,
	.write_lock = q13_write_lock,
	.write_unlock = q13_write_unlock,
};

const struct lock_algo lock_qrwlock_2013_rs = {
	.name = "qrwlock-2013-rs",
	.desc = "qrwlock-2013 with its reader-stealing flag: readers pass the queue while no writer holds",
	.kind = LOCK_RWLOCK,
	.lock_size = sizeof(struct q13_lock),
	.ctx_size = sizeof(struct q13_node),
	.init = q13_init,
	.read_lock = q13_read_lock_steal,
	.read_unlock = q13_read_unlock,
	.write_lock = q13_write_lock,
	.write_unlock = q13_write_unlock,
};
