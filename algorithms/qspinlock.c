/*
 * qspinlock - Linux's queued spinlock.
 *
 * The x86 spinlock since Linux 4.2 (Waiman Long and Peter Zijlstra,
 * kernel/locking/qspinlock.c): an MCS queue squeezed into one 4-byte word,
 * so that a spinlock_t stays 4 bytes, with two short cuts in front of the
 * queue: a free lock is taken by one cmpxchg, and a second contender spins
 * on the lock word itself (the "pending" waiter) instead of queueing, which
 * spares it the queue node's cache misses.  Only a third contender queues.
 *
 * The lock word, alone on its cache line, viewed three ways (little-endian
 * byte order, as on x86 and arm64):
 *
 *   bits  31             18 17  16 15        8 7          0
 *        +-----------------+------+-----------+------------+
 *   val  |   tail cpu + 1  | idx  |  pending  |   locked   |   u32
 *        +-----------------+------+-----------+------------+
 *        |       tail (u16)       | locked_pending (u16)   |
 *        +------------------------+-----------+------------+
 *                                 | pending u8|  locked u8 |
 *
 *   locked   1 while a thread holds the lock
 *   pending  1 while the second contender spins on `locked`
 *   tail     the last queued waiter: its cpu + 1 (0: no queue) and the
 *            index of the node it used among its cpu's QS_MAX_NODES
 *
 * Each cpu has QS_MAX_NODES queue nodes for this lock, each on its own line
 * (lock_size_per_cpu: the nodes live after the word, indexed by
 * ll_this_cpu(), so the tail's cpu number finds them):
 *
 *   node:  +------+--------+-------+---------+
 *          | next | locked | count |  (pad)  |   count: node 0 only, the
 *          +------+--------+-------+---------+   nodes of this cpu in use
 *
 * The kernel needs four nodes per cpu because a cpu spinning on one lock
 * may be interrupted and take another (task, softirq, hardirq, nmi), and
 * `idx` says which one is queued.  Here a thread takes one lock at a time
 * and the nodes belong to this lock, so idx is always 0; the encoding and
 * the count are kept as the kernel has them.
 *
 * Transitions, written (tail, pending, locked):
 *
 *   lock, free:        (0,0,0) --cmpxchg val--> (0,0,1)      mine
 *
 *   lock, held, nobody else waits (the pending path):
 *                      (0,0,1) --fetch_or pending--> (0,1,1)
 *                      wait until locked == 0:       (0,1,0)
 *                      clear_pending_set_locked, one 16-bit store of
 *                      locked_pending:               (0,0,1) mine
 *       The fetch_or may find (n,*,*) or (*,1,*): somebody else is ahead.
 *       If the pending bit was ours (it was 0 before), clear it again (an
 *       8-bit store of `pending`) and queue.  A word seen as (0,1,0) is a
 *       pending->locked handover in progress: wait for it at most
 *       QS_PENDING_WAIT_NS, then re-decide.
 *
 *   lock, queue (anything else): take node I = nodes[cpu][count++]
 *                      I.next = NULL, I.locked = 0
 *                      try once more for a free word (cmpxchg 0 -> 1)
 *                      xchg_tail, a 16-bit xchg of `tail`:
 *                         (p,*,*) --> (me,*,*)    old tail p
 *                      p != 0: P = node of p; P.next = I;
 *                              wait until I.locked == 1 (I am the head)
 *                      the head waits until pending == 0 and locked == 0
 *                      (the holder and the pending waiter are gone), then:
 *                        tail still me: (me,0,0) --cmpxchg val--> (0,0,1)
 *                                       queue empty, mine
 *                        else:          set_locked, an 8-bit store of
 *                                       `locked`: (n,0,1), mine; wait
 *                                       until I.next is linked, then
 *                                       I.next->locked = 1 (next head)
 *                      count-- (node I free again)
 *
 *   unlock:            (*,*,1) --store locked=0--> (*,*,0)   an 8-bit store
 *
 *   trylock:           (0,0,0) --cmpxchg val--> (0,0,1), only when free
 *
 * Ordering: a node is initialised before xchg_tail (release) publishes it
 * and before the link store (release); the head's wait on the word and a
 * waiter's wait on I.locked are acquire loads; a release is a release store
 * of `locked`.  The byte and halfword stores never overlap a field another
 * thread may write at that moment: only the holder writes `locked`, only
 * the pending waiter clears `pending`, and `tail` changes by xchg alone.
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "qspinlock's byte and halfword views of the lock word assume little-endian"
#endif

#define QS_MAX_NODES 4

#define QS_LOCKED_VAL 0x00000001u
#define QS_LOCKED_MASK 0x000000ffu
#define QS_PENDING_VAL 0x00000100u
#define QS_PENDING_MASK 0x0000ff00u
#define QS_LOCKED_PENDING_MASK 0x0000ffffu
#define QS_TAIL_OFFSET 16
#define QS_TAIL_MASK 0xffff0000u
#define QS_TAIL_IDX_OFFSET 16
#define QS_TAIL_IDX_MASK 0x3u
#define QS_TAIL_CPU_OFFSET 18

/*
 * A word seen as (0,1,0) is a handover from the pending waiter to itself
 * in progress: it has seen the release and is about to set `locked`.  The
 * kernel re-reads the word a bounded number of times (_Q_PENDING_LOOPS)
 * before queueing; here the wait is bounded in time instead: about two
 * cross-socket line transfers, what that handover costs.
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
	union {
		uint32_t val;
		struct {
			uint8_t locked;
			uint8_t pending;
		};
		struct {
			uint16_t locked_pending;
			uint16_t tail;
		};
	};
} ll_cacheline_aligned;

_Static_assert(sizeof(struct qspin_lock) == LL_CACHE_LINE, "qspinlock word on its own line");

static struct qspin_node *qspin_cpu_nodes(struct qspin_lock *l, unsigned cpu)
{
	struct qspin_cpu *cpus = (struct qspin_cpu *)(l + 1);

	return cpus[cpu].nodes;
}

static uint32_t qspin_encode_tail(unsigned cpu, unsigned idx)
{
	return ((uint32_t)(cpu + 1) << QS_TAIL_CPU_OFFSET) | ((uint32_t)idx << QS_TAIL_IDX_OFFSET);
}

static struct qspin_node *qspin_decode_tail(struct qspin_lock *l, uint32_t tail)
{
	unsigned cpu = (tail >> QS_TAIL_CPU_OFFSET) - 1;
	unsigned idx = (tail >> QS_TAIL_IDX_OFFSET) & QS_TAIL_IDX_MASK;

	return &qspin_cpu_nodes(l, cpu)[idx];
}

static void qspin_init(void *lock, unsigned ncpus)
{
	struct qspin_lock *l = lock;

	l->val = 0;
}

/* Swap the 16-bit tail; returns the old tail in its place in a word. */
static uint32_t qspin_xchg_tail(struct qspin_lock *l, uint32_t tail)
{
	uint16_t old = ll_xchg(&l->tail, (uint16_t)(tail >> QS_TAIL_OFFSET), LL_RELEASE);

	return (uint32_t)old << QS_TAIL_OFFSET;
}

static bool qspin_trylock_word(struct qspin_lock *l)
{
	if (ll_load(&l->val, LL_RELAXED) != 0)
		return false;
	return ll_cas(&l->val, 0, QS_LOCKED_VAL, LL_ACQUIRE) == 0;
}

/* The MCS queue, for a third contender and beyond. */
static void qspin_queue(struct qspin_lock *l)
{
	unsigned cpu = ll_this_cpu();
	struct qspin_node *base = qspin_cpu_nodes(l, cpu);
	uint32_t idx = ll_load(&base->count, LL_RELAXED);
	struct qspin_node *node = &base[idx], *prev, *next = NULL;
	uint32_t tail = qspin_encode_tail(cpu, idx), old, val;

	ll_store(&base->count, idx + 1, LL_RELAXED);
	ll_store(&node->locked, 0, LL_RELAXED);
	ll_store(&node->next, NULL, LL_RELAXED);
	if (qspin_trylock_word(l))
		goto release;

	old = qspin_xchg_tail(l, tail);
	if (old & QS_TAIL_MASK) {
		prev = qspin_decode_tail(l, old);
		ll_store(&prev->next, node, LL_RELEASE);
		ll_wait_until(&node->locked, VAL != 0);
		next = ll_load(&node->next, LL_ACQUIRE);
	}

	/* Head of the queue: wait for the holder and the pending waiter. */
	val = ll_wait_until(&l->val, (VAL & QS_LOCKED_PENDING_MASK) == 0);
	if ((val & QS_TAIL_MASK) == tail && ll_cas(&l->val, val, QS_LOCKED_VAL, LL_RELAXED) == val)
		goto release; /* nobody queued behind me */

	ll_store(&l->locked, (uint8_t)QS_LOCKED_VAL, LL_RELAXED);
	if (!next)
		next = ll_wait_until(&node->next, VAL != NULL);
	ll_store(&next->locked, 1, LL_RELEASE);
release:
	ll_store(&base->count, idx, LL_RELAXED);
}

static void qspin_lock_slowpath(struct qspin_lock *l, uint32_t val)
{
	if (val == QS_PENDING_VAL) {
		ll_wait_until_for(&l->val, VAL != QS_PENDING_VAL, QS_PENDING_WAIT_NS);
		val = ll_load(&l->val, LL_RELAXED);
	}
	if (val & ~QS_LOCKED_MASK) {
		qspin_queue(l);
		return;
	}

	val = ll_fetch_or(&l->val, QS_PENDING_VAL, LL_ACQUIRE);
	if (val & ~QS_LOCKED_MASK) {
		if (!(val & QS_PENDING_MASK))
			ll_store(&l->pending, 0, LL_RELAXED); /* clear_pending */
		qspin_queue(l);
		return;
	}

	/* I am the pending waiter: only the holder is ahead of me. */
	if (val & QS_LOCKED_MASK)
		ll_wait_until(&l->locked, VAL == 0);
	ll_store(&l->locked_pending, (uint16_t)QS_LOCKED_VAL, LL_RELAXED); /* clear_pending_set_locked */
}

static void qspin_lock(void *lock, void *ctx)
{
	struct qspin_lock *l = lock;
	uint32_t val = ll_cas(&l->val, 0, QS_LOCKED_VAL, LL_ACQUIRE);

	if (val != 0)
		qspin_lock_slowpath(l, val);
}

static bool qspin_trylock(void *lock, void *ctx)
{
	return qspin_trylock_word(lock);
}

static void qspin_unlock(void *lock, void *ctx)
{
	struct qspin_lock *l = lock;

	ll_store(&l->locked, 0, LL_RELEASE);
}

const struct lock_algo lock_qspinlock = {
	.name = "qspinlock",
	.desc = "Linux queued spinlock: 4-byte word, pending waiter, MCS tail as cpu+idx (Long & Zijlstra 2015)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct qspin_lock),
	.lock_size_per_cpu = sizeof(struct qspin_cpu),
	.init = qspin_init,
	.lock = qspin_lock,
	.unlock = qspin_unlock,
	.trylock = qspin_trylock,
};
