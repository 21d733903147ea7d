/*
 * pv-qspinlock - the paravirtual queued spinlock.
 *
 * Linux's qspinlock_paravirt.h (Waiman Long, Linux 4.2, 2015), with the
 * additions of Linux 4.5 (2016): queued waiters that halt early when their
 * predecessor is halted ("wait early"), and limited lock stealing.  It is
 * algorithms/qspinlock.c with halt and kick: a queued waiter spins on its
 * node for a bounded time (less when its predecessor is halted) and then
 * halts; the queue head spins on the lock for a bounded time and then
 * halts too, after putting (lock -> its node) into a hash table and
 * marking the lock "slow" so that the unlocker looks the node up and kicks
 * it.  Natively, ll_park/ll_unpark are futexes: a spin-then-park queued
 * lock.
 *
 * As in the kernel's paravirtual slow path the pending bit does not make a
 * second contender spin on the word (it could not halt): every contender
 * queues, after one try at a free lock byte (the steal).  The pending bit
 * is the queue head's instead: set while it spins, it keeps stealers out,
 * so that a spinning head cannot starve; a halted head leaves it clear.
 *
 * The lock word (little-endian), alone with the hash size on line 0:
 *
 *   bits  31             18 17  16 15        8 7          0
 *        +-----------------+------+-----------+------------+
 *   val  |   tail cpu + 1  | idx  |  pending  |   locked   |   u32
 *        +-----------------+------+-----------+------------+
 *
 *   locked   0 free, 1 held, 3 held and "slow": a halted queue head is in
 *            the hash table, to be kicked by the unlock
 *   pending  1 while the queue head spins for the lock (no stealing)
 *   tail     the last queued waiter's cpu + 1 (0: no queue); idx is 0:
 *            a thread takes one lock at a time, so one node per cpu
 *
 * After line 0, per cpu: its queue node (one line) and one line of the
 * hash table (four entries), so the table has 4 x cpus entries:
 *
 *   node:   +------+--------+-----+-------+------+
 *           | next | locked | cpu | state | pad  |   state: running,
 *           +------+--------+-----+-------+------+   halted, hashed
 *   entry:  +------+------+
 *           | lock | node |       lock == NULL: free
 *           +------+------+
 *
 * The kernel's hash table is global, shared by every paravirtual spinlock,
 * because a spinlock_t has no room for a pointer; here each lock object
 * carries its own table, probed the same way (from the lock's hash, entry
 * by entry, a line holding four).
 *
 * Transitions (tail, pending, locked), node states in brackets:
 *
 *   lock, free:     (0, 0, 0) --cmpxchg val--> (0, 0, 1)            mine
 *   steal:          (*, 0, 0) --cmpxchg locked 0 -> 1--> (*, 0, 1)  mine
 *                   (once, on the way into the queue)
 *   queue:          node I: next = NULL, locked = 0, [running]; xchg
 *                   tail: (p, *, *) --> (me, *, *); p != 0: P.next = I,
 *     wait_node:    spin until I.locked, at most PV_SPIN_NS, leaving
 *                   early when P is not [running] (a halted predecessor:
 *                   I won't be head soon); then [halted] (full barrier);
 *                   if I.locked is still 0, park while I is [halted];
 *                   cas [halted] -> [running] (it stays [hashed] if the
 *                   new holder hashed it); I.locked ? head : spin again
 *     wait_head:    [running]; pending = 1; spin until locked == 0, at
 *                   most PV_SPIN_NS, then cas locked_pending (1, 0) -->
 *                   (0, 1): mine.  Out of time: pending = 0; unless
 *                   hashed already (by kick_node, or an earlier round),
 *                   hash (lock -> I) and xchg locked --> 3: found 0, the
 *                   lock was free: locked = 1, unhash, mine; else
 *                   [hashed], park while locked == 3, and start over
 *     claim:        tail still me: (me, 0, 1) --cas val--> (0, 0, 1);
 *                   else wait for I.next, set I.next->locked = 1 (the
 *                   next head), and kick_node it
 *     kick_node N:  cas N [halted] -> [hashed]; if it was halted, store
 *                   locked = 3 and hash (lock -> N): my unlock will kick
 *                   it (it would only spin as head while I hold)
 *   unlock:         cas locked 1 -> 0; found 3 (slow): unhash the node,
 *                   store locked = 0, ll_unpark(node.cpu)
 *   trylock:        (0, 0, 0) --cmpxchg val--> (0, 0, 1), only when free
 *
 * No lost wake-up.  A head that halts first hashes, then turns locked to
 * 3 by an xchg, then parks only while locked == 3: an unlock before the
 * xchg finds locked == 1 and leaves (the xchg then finds 0 and the head
 * has the lock); an unlock after it finds 3, and the entry already there,
 * and kicks.  A stealer only takes a locked byte of 0, so it never meets
 * 3.  A queued waiter writes [halted], then reads its locked flag; the
 * previous head writes that flag, then cas'es the state: one of them sees
 * the other (full barriers), so either the waiter does not park or the
 * new holder hashes it for its unlock.  Kicks that come before a park are
 * remembered; every park is followed by a re-check.
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "pv-qspinlock's byte view of the lock word assumes little-endian"
#endif

/* Spin budgets: the kernel's SPIN_THRESHOLD of 2^15 iterations, at about
 * 10 ns each (see algorithms/pv-ticket.c), and its check of the
 * predecessor's state every 256 iterations. */
#define PV_SPIN_NS (32768u * 10u)
#define PV_PREV_CHECK_NS (256u * 10u)

#define PVQ_LOCKED 1u
#define PVQ_SLOW 3u
#define PVQ_PENDING 0x100u
#define PVQ_LOCKED_PENDING_MASK 0x0000ffffu
#define PVQ_TAIL_MASK 0xffff0000u
#define PVQ_TAIL_OFFSET 16
#define PVQ_TAIL_CPU_OFFSET 18
#define PVQ_ENTRIES_PER_LINE 4u

enum pvq_state { PVQ_RUNNING = 0, PVQ_HALTED = 1, PVQ_HASHED = 2 };

struct pvq_lock {
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
	uint32_t hash_entries;
} ll_cacheline_aligned;

struct pvq_node {
	struct pvq_node *next;
	uint32_t locked; /* 1: head of the queue */
	uint32_t cpu;
	uint32_t state;  /* enum pvq_state */
} ll_cacheline_aligned;

struct pvq_entry {
	struct pvq_lock *lock;
	struct pvq_node *node;
};

struct pvq_hash_line {
	struct pvq_entry e[PVQ_ENTRIES_PER_LINE];
} ll_cacheline_aligned;

struct pvq_cpu {
	struct pvq_node node;
	struct pvq_hash_line hash;
};

_Static_assert(sizeof(struct pvq_lock) == LL_CACHE_LINE, "pv-qspinlock word on its own line");
_Static_assert(sizeof(struct pvq_hash_line) == LL_CACHE_LINE, "four entries a line");

static struct pvq_cpu *pvq_cpus(struct pvq_lock *l)
{
	return (struct pvq_cpu *)(l + 1);
}

/* Entry i of the table: the entries of cpu k's hash line are 4k .. 4k+3. */
static struct pvq_entry *pvq_entry(struct pvq_lock *l, uint32_t i)
{
	return &pvq_cpus(l)[i / PVQ_ENTRIES_PER_LINE].hash.e[i % PVQ_ENTRIES_PER_LINE];
}

static uint32_t pvq_hash_start(struct pvq_lock *l, uint32_t n)
{
	uint64_t x = (uint64_t)(uintptr_t)l * 0x9e3779b97f4a7c15ull;

	return (uint32_t)((x >> 32) % (n / PVQ_ENTRIES_PER_LINE)) * PVQ_ENTRIES_PER_LINE;
}

static void pvq_init(void *lock, unsigned ncpus)
{
	struct pvq_lock *l = lock;

	l->val = 0;
	l->hash_entries = (ncpus ? ncpus : 1) * PVQ_ENTRIES_PER_LINE;
}

/* Put (l -> node) into the first free entry from l's hash.  The table has
 * four entries per cpu and holds at most one entry of its lock. */
static struct pvq_entry *pvq_hash(struct pvq_lock *l, struct pvq_node *node)
{
	uint32_t n = ll_load(&l->hash_entries, LL_RELAXED);
	uint32_t i = pvq_hash_start(l, n);

	for (uint32_t k = 0; k < n; k++, i = (i + 1) % n) {
		struct pvq_entry *he = pvq_entry(l, i);

		if (ll_cas(&he->lock, NULL, l, LL_ACQ_REL) == NULL) {
			ll_store(&he->node, node, LL_RELEASE);
			return he;
		}
	}
	return NULL; /* not reached: the lock's own table is never full */
}

/* Take l's entry out of the table; its node. */
static struct pvq_node *pvq_unhash(struct pvq_lock *l)
{
	uint32_t n = ll_load(&l->hash_entries, LL_RELAXED);
	uint32_t i = pvq_hash_start(l, n);

	for (uint32_t k = 0; k < n; k++, i = (i + 1) % n) {
		struct pvq_entry *he = pvq_entry(l, i);

		if (ll_load(&he->lock, LL_ACQUIRE) == l) {
			struct pvq_node *node = ll_load(&he->node, LL_RELAXED);

			ll_store(&he->lock, NULL, LL_RELEASE);
			return node;
		}
	}
	return NULL;
}

/* One try at the lock byte on the way into the queue, unless a holder or
 * a spinning head is there (limited lock stealing, Linux 4.5): a vCPU
 * that arrives while the head is halted need not wait for its kick. */
static bool pvq_steal(struct pvq_lock *l)
{
	if (ll_load(&l->val, LL_RELAXED) & PVQ_LOCKED_PENDING_MASK)
		return false;
	return ll_cas(&l->locked, 0, (uint8_t)PVQ_LOCKED, LL_ACQUIRE) == 0;
}

static bool pvq_trylock_word(struct pvq_lock *l)
{
	if (ll_load(&l->val, LL_RELAXED) != 0)
		return false;
	return ll_cas(&l->val, 0, PVQ_LOCKED, LL_ACQUIRE) == 0;
}

/* Queued behind prev: until my node's locked flag makes me the head. */
static void pvq_wait_node(struct pvq_node *node, struct pvq_node *prev)
{
	for (;;) {
		for (unsigned t = 0; t < PV_SPIN_NS; t += PV_PREV_CHECK_NS) {
			if (ll_wait_until_for(&node->locked, VAL != 0, PV_PREV_CHECK_NS))
				return;
			if (ll_load(&prev->state, LL_RELAXED) != PVQ_RUNNING)
				break; /* wait early: prev is halted */
		}
		ll_store(&node->state, PVQ_HALTED, LL_RELAXED);
		ll_fence(LL_SEQ_CST);
		if (!ll_load(&node->locked, LL_ACQUIRE) &&
		    ll_load(&node->state, LL_ACQUIRE) == PVQ_HALTED)
			ll_park();
		(void)ll_cas(&node->state, PVQ_HALTED, PVQ_RUNNING, LL_ACQ_REL);
		if (ll_load(&node->locked, LL_ACQUIRE))
			return;
	}
}

/* The head, spinning with the pending bit set (no stealing meanwhile):
 * take the lock when its byte is free (trylock_clear_pending). */
static bool pvq_spin_head(struct pvq_lock *l)
{
	uint64_t deadline = ll_now_ns() + PV_SPIN_NS;

	ll_store(&l->pending, 1, LL_RELAXED); /* set_pending */
	for (;;) {
		uint64_t now = ll_now_ns();

		if (now >= deadline ||
		    !ll_wait_until_for(&l->locked, VAL == 0, deadline - now))
			break;
		if (ll_cas(&l->locked_pending, (uint16_t)PVQ_PENDING, (uint16_t)PVQ_LOCKED,
			   LL_ACQUIRE) == PVQ_PENDING)
			return true;
	}
	ll_store(&l->pending, 0, LL_RELAXED); /* clear_pending */
	return false;
}

/* The head: until it holds the lock. */
static void pvq_wait_head(struct pvq_lock *l, struct pvq_node *node)
{
	bool hashed = ll_load(&node->state, LL_ACQUIRE) == PVQ_HASHED;

	for (;;) {
		ll_store(&node->state, PVQ_RUNNING, LL_RELAXED); /* for the next's wait early */
		if (pvq_spin_head(l))
			return;
		if (!hashed) {
			struct pvq_entry *he = pvq_hash(l, node);

			if (ll_xchg(&l->locked, (uint8_t)PVQ_SLOW, LL_ACQ_REL) == 0) {
				/* it was free: mine, and nobody needs the entry */
				ll_store(&l->locked, (uint8_t)PVQ_LOCKED, LL_RELAXED);
				ll_store(&he->lock, NULL, LL_RELEASE);
				return;
			}
			hashed = true;
		}
		ll_store(&node->state, PVQ_HASHED, LL_RELAXED);
		if (ll_load(&l->locked, LL_ACQUIRE) == PVQ_SLOW)
			ll_park();
		/* kicked (or early): the lock may be stolen before I spin again */
	}
}

/* The holder passes the queue to next: a halted next would only spin as
 * head while I hold the lock, so it is hashed for my unlock to kick. */
static void pvq_kick_node(struct pvq_lock *l, struct pvq_node *next)
{
	if (ll_cas(&next->state, PVQ_HALTED, PVQ_HASHED, LL_ACQ_REL) != PVQ_HALTED)
		return;
	ll_store(&l->locked, (uint8_t)PVQ_SLOW, LL_RELAXED);
	pvq_hash(l, next);
}

static void pvq_slowpath(struct pvq_lock *l)
{
	unsigned cpu = ll_this_cpu();
	struct pvq_node *node = &pvq_cpus(l)[cpu].node, *next = NULL;
	uint32_t tail = (uint32_t)(cpu + 1) << PVQ_TAIL_CPU_OFFSET, old, val;

	ll_store(&node->locked, 0, LL_RELAXED);
	ll_store(&node->next, NULL, LL_RELAXED);
	ll_store(&node->cpu, cpu, LL_RELAXED);
	ll_store(&node->state, PVQ_RUNNING, LL_RELAXED);
	if (pvq_steal(l))
		return;

	old = (uint32_t)ll_xchg(&l->tail, (uint16_t)(tail >> PVQ_TAIL_OFFSET), LL_RELEASE)
	      << PVQ_TAIL_OFFSET;
	if (old & PVQ_TAIL_MASK) {
		struct pvq_node *prev = &pvq_cpus(l)[(old >> PVQ_TAIL_CPU_OFFSET) - 1].node;

		ll_store(&prev->next, node, LL_RELEASE);
		pvq_wait_node(node, prev);
		next = ll_load(&node->next, LL_ACQUIRE);
	}

	pvq_wait_head(l, node); /* now mine: locked, pending clear */
	val = ll_load(&l->val, LL_RELAXED);
	if ((val & PVQ_TAIL_MASK) == tail && ll_cas(&l->val, val, PVQ_LOCKED, LL_RELAXED) == val)
		return; /* nobody queued behind me: clear the tail */

	if (!next)
		next = ll_wait_until(&node->next, VAL != NULL);
	ll_store(&next->locked, 1, LL_RELEASE);
	pvq_kick_node(l, next);
}

static void pvq_lock(void *lock, void *ctx)
{
	struct pvq_lock *l = lock;

	if (ll_cas(&l->val, 0, PVQ_LOCKED, LL_ACQUIRE) != 0)
		pvq_slowpath(l);
}

static bool pvq_trylock(void *lock, void *ctx)
{
	return pvq_trylock_word(lock);
}

static void pvq_unlock(void *lock, void *ctx)
{
	struct pvq_lock *l = lock;
	struct pvq_node *node;

	if (ll_cas(&l->locked, (uint8_t)PVQ_LOCKED, 0, LL_RELEASE) == PVQ_LOCKED)
		return;
	node = pvq_unhash(l);
	ll_store(&l->locked, 0, LL_RELEASE);
	if (node)
		ll_unpark(ll_load(&node->cpu, LL_RELAXED));
}

const struct lock_algo lock_pv_qspinlock = {
	.name = "pv-qspinlock",
	.desc = "paravirtual queued spinlock: queued waiters and the head spin, then halt; unlock kicks (Linux 4.2, 2015)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct pvq_lock),
	.lock_size_per_cpu = sizeof(struct pvq_cpu),
	.init = pvq_init,
	.lock = pvq_lock,
	.unlock = pvq_unlock,
	.trylock = pvq_trylock,
};
