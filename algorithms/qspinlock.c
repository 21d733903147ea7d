/*
 * qspinlock - Linux's queued spinlock.
 *
 * The x86 spinlock since Linux 4.2 (Waiman Long and Peter Zijlstra,
 * kernel/locking/qspinlock.c): an MCS queue squeezed into one 4-byte word
 * (algorithms/internal_qspinlock.h), with two short cuts in front of the
 * queue: a free lock is taken by one cmpxchg, and a second contender spins
 * on the lock word itself (the "pending" waiter) instead of queueing.  Only
 * a third contender queues.
 *
 * The slowpath is Linux 4.18's, after Will Deacon's 2018 rework, not the
 * 4.2 one: the pending bit is set by one fetch_or, and cleared again by
 * its setter if the word showed a queue (4.2 looped on cmpxchg), a word
 * seen as (0,1,0) is waited on a bounded time (_Q_PENDING_LOOPS; 4.2 waited
 * without bound), the head claims the lock by one cmpxchg, then a store
 * (4.2 looped), and the next node is prefetched for writing (added in 4.5).
 * The branches after the fetch_or are in the order Peter Zijlstra gave
 * them later in 2018 (undo and queue first); the transitions are 4.18's.
 * qrwlock-4.2 uses this lock as its wait_lock.
 *
 * The word sits alone on its line; after it, each cpu has QS_MAX_NODES
 * queue nodes, each on its own line:
 *
 *   node:  +------+--------+-------+---------+
 *          | next | locked | count |  (pad)  |   count: node 0 only, the
 *          +------+--------+-------+---------+   nodes of this cpu in use
 *
 * A thread here takes one lock at a time, so idx is always 0; the encoding
 * and the count are kept as the kernel has them (docs/spinlocks.md).
 *
 * The byte and halfword stores never overlap a field another thread may
 * write at that moment: only the holder writes `locked`, only the thread
 * that set `pending` clears it, and `tail` changes by the queuers' xchg or
 * by the head's cmpxchg of the whole word, (me,0,0) -> (0,0,1), which
 * clears it only while it still names the head (no store of `tail` alone).
 *
 * init() runs before any thread starts, so it writes with plain stores;
 * it tags the per-cpu nodes LL_TAG_CTX, so that the simulator counts their
 * misses as queue nodes', not the lock word's.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#include "internal_qspinlock.h"

#define QS_MAX_NODES 4

/*
 * A word seen as (0,1,0) is a handover from the pending waiter to itself
 * in progress: it has seen the release and is about to set `locked`.  The
 * kernel re-reads the word a bounded number of times (_Q_PENDING_LOOPS)
 * before queueing; here the wait is bounded in time instead: about two
 * cross-socket line transfers, what that handover costs (*assumed*).
 */
#define QS_PENDING_WAIT_NS 500u

struct qspin_node {
	struct qspin_node *next;
	uint32_t locked; /* 0: wait, 1: head of the queue */
	uint32_t count;  /* node 0 only: nodes of this cpu in use */
} ll_cacheline_aligned;

struct qspin_cpu {
	struct qspin_node nodes[QS_MAX_NODES];
};

struct qspin_lock {
	struct qs_word w;
} ll_cacheline_aligned;

_Static_assert(sizeof(struct qspin_lock) == LL_CACHE_LINE, "qspinlock word on its own line");

static struct qspin_node *qspin_cpu_nodes(struct qspin_lock *l, unsigned cpu)
{
	struct qspin_cpu *cpus = (struct qspin_cpu *)(l + 1);

	return cpus[cpu].nodes;
}

static struct qspin_node *qspin_decode_tail(struct qspin_lock *l, uint32_t tail)
{
	return &qspin_cpu_nodes(l, qs_tail_cpu(tail))[qs_tail_idx(tail)];
}

static void qspin_init(void *lock, unsigned ncpus)
{
	struct qspin_lock *l = lock;

	l->w.val = 0;
	ll_mem_tag(qspin_cpu_nodes(l, 0), ncpus * sizeof(struct qspin_cpu), LL_TAG_CTX);
}

/* What a run counts (ll_count): the acquisitions that found the word
 * (0,0,0) and took it by one cmpxchg, those that waited as the pending
 * waiter, and those that went to the MCS queue; together, every one. */
enum { QS_COUNT_FAST, QS_COUNT_PENDING, QS_COUNT_QUEUED };

/* The MCS queue, for a third contender and beyond. */
static void qspin_queue(struct qspin_lock *l)
{
	unsigned cpu = ll_this_cpu();
	struct qspin_node *base = qspin_cpu_nodes(l, cpu);
	uint32_t idx = ll_load(&base->count, LL_RELAXED);
	struct qspin_node *node = &base[idx], *prev, *next = NULL;
	uint32_t tail = qs_encode_tail(cpu, idx), old, val;

	ll_store(&base->count, idx + 1, LL_RELAXED);
	ll_store(&node->locked, 0, LL_RELAXED);
	ll_store(&node->next, NULL, LL_RELAXED);
	if (qs_trylock_word(&l->w))
		goto release;

	old = qs_xchg_tail(&l->w, tail); /* (p,*,*) -> (me,*,*) */
	if (old & QS_TAIL_MASK) {
		prev = qspin_decode_tail(l, old);
		/* link in; pairs with the acquire of next below, by prev */
		ll_store(&prev->next, node, LL_RELEASE);
		/* acquire; pairs with the release of next->locked by prev */
		ll_wait_until(&node->locked, VAL != 0);
		next = ll_load(&node->next, LL_ACQUIRE);
		if (next)
			ll_prefetchw(next); /* its locked flag is mine to write soon */
	}

	/*
	 * Head of the queue: wait for the holder and the pending waiter,
	 * (*,*,*) -> (*,0,0).  Acquire; pairs with the release of `locked`
	 * in qspin_unlock.
	 */
	val = ll_wait_until(&l->w.val, (VAL & QS_LOCKED_PENDING_MASK) == 0);
	/* (me,0,0) -> (0,0,1): nobody queued behind me */
	if ((val & QS_TAIL_MASK) == tail && ll_cas(&l->w.val, val, QS_LOCKED_VAL, LL_RELAXED) == val)
		goto release;

	/* set_locked: (n,0,0) -> (n,0,1) */
	ll_store(&l->w.locked, (uint8_t)QS_LOCKED_VAL, LL_RELAXED);
	if (!next)
		next = ll_wait_until(&node->next, VAL != NULL);
	/* next is the head; pairs with its acquiring wait on node->locked */
	ll_store(&next->locked, 1, LL_RELEASE);
release:
	ll_store(&base->count, idx, LL_RELAXED);
	ll_count(QS_COUNT_QUEUED); /* counted as it takes the lock, as the others */
}

static void qspin_lock_slowpath(struct qspin_lock *l, uint32_t val)
{
	/* (0,1,0): a pending->locked handover; wait for it a bounded time */
	if (val == QS_PENDING_VAL) {
		ll_wait_until_for(&l->w.val, VAL != QS_PENDING_VAL, QS_PENDING_WAIT_NS);
		val = ll_load(&l->w.val, LL_RELAXED);
	}
	if (val & ~QS_LOCKED_MASK) {
		qspin_queue(l);
		return;
	}

	/* (0,0,*) -> (0,1,*); somebody ahead if (n,*,*) or (*,1,*) */
	val = ll_fetch_or(&l->w.val, QS_PENDING_VAL, LL_ACQUIRE);
	if (val & ~QS_LOCKED_MASK) {
		/* clear_pending, if the bit was mine: (*,1,*) -> (*,0,*) */
		if (!(val & QS_PENDING_MASK))
			ll_store(&l->w.pending, 0, LL_RELAXED);
		qspin_queue(l);
		return;
	}

	/*
	 * I am the pending waiter: only the holder is ahead of me.
	 * (*,1,1) -> (*,1,0); acquire, pairs with the release in qspin_unlock.
	 */
	if (val & QS_LOCKED_MASK)
		ll_wait_until(&l->w.locked, VAL == 0);
	/* clear_pending_set_locked: (*,1,0) -> (*,0,1) */
	ll_store(&l->w.locked_pending, (uint16_t)QS_LOCKED_VAL, LL_RELAXED);
	ll_count(QS_COUNT_PENDING);
}

static void qspin_lock(void *lock, void *ctx)
{
	struct qspin_lock *l = lock;
	/* (0,0,0) -> (0,0,1); pairs with the release in qspin_unlock */
	uint32_t val = ll_cas(&l->w.val, 0, QS_LOCKED_VAL, LL_ACQUIRE);

	if (val != 0)
		qspin_lock_slowpath(l, val);
	else
		ll_count(QS_COUNT_FAST);
}

static bool qspin_trylock(void *lock, void *ctx)
{
	struct qspin_lock *l = lock;

	return qs_trylock_word(&l->w);
}

static void qspin_unlock(void *lock, void *ctx)
{
	struct qspin_lock *l = lock;

	/* (*,*,1) -> (*,*,0); pairs with the acquires of the word in lock */
	ll_store(&l->w.locked, 0, LL_RELEASE);
}

const struct lock_algo lock_qspinlock = {
	.name = "qspinlock",
	.desc = "Linux queued spinlock: 4-byte word, pending waiter, MCS tail as cpu+idx (Long & Zijlstra 2015; 4.18's slowpath)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct qspin_lock),
	.lock_size_per_cpu = sizeof(struct qspin_cpu),
	.init = qspin_init,
	.counts = { "fast", "pending", "queued" },
	.lock = qspin_lock,
	.unlock = qspin_unlock,
	.trylock = qspin_trylock,
	.assumed = "a 500 ns bounded wait for a pending waiter's handover", /* QS_PENDING_WAIT_NS */
};
