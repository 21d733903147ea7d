/*
 * pv-qspinlock - the paravirtual queued spinlock.
 *
 * Linux's qspinlock_paravirt.h (Waiman Long, Linux 4.2, 2015), with Linux
 * 4.5's "wait early" and limited lock stealing: algorithms/qspinlock.c with
 * halt and kick.  Every contender queues, after one try at a free lock byte
 * (the steal); queued waiters and the head spin a bounded time, then halt;
 * a halted head is hashed (lock -> node) and the lock marked slow, so that
 * the unlock finds and kicks it.  Natively, ll_park/ll_unpark are futexes.
 * docs/vm.md discusses the design and the lost-wake-up argument.
 *
 * pv-qspinlock-noearly is this lock without wait early.  It is not the
 * lock of Linux 4.2 to 4.4, which had no wait early either: it keeps the
 * rest of 4.5 (commit
 * 1c4941fd53af and its series: the one-shot steal on the way into the
 * queue, the head spinning with the pending bit set) and 4.3's deferred
 * kick (a holder hashes a halted next for its own unlock to kick).  It is
 * 4.5's lock without wait early.
 *
 * The word (algorithms/internal_qspinlock.h) shares line 0 with the hash
 * size and wait_early; locked is 0 free, 1 held, PVQ_SLOW held with a
 * halted head hashed; pending is the spinning head's, and keeps stealers
 * out.  After line 0, per cpu, its queue node (one line) and one line of
 * the hash table:
 *
 *   node:   +------+--------+-----+-------+------+   state: running,
 *           | next | locked | cpu | state | pad  |   halted, hashed
 *           +------+--------+-----+-------+------+
 *   entry:  +------+------+   x4 per line; lock == NULL: free
 *           | lock | node |
 *           +------+------+
 *
 * What a run counts (ll_count) is named after the kernel's own statistics
 * of this lock (CONFIG_QUEUED_LOCK_STAT, Linux 4.5, kernel/locking/
 * qspinlock_stat.h): lock_stealing, the steals that took the lock;
 * slowpath, the contenders that queued; wait_node, the halts of a queued
 * waiter, and wait_early, those of them that came early (the predecessor
 * halted); wait_head, the halts of the head; kick_unlock, the unlocks that
 * kicked a halted head.  A halt here is a call to halt: a kick that came
 * before it is remembered, and it returns at once.
 *
 * init() runs before any thread starts, so it writes with plain stores;
 * it tags the per-cpu nodes LL_TAG_CTX, so that the simulator counts their
 * misses as queue nodes', not the lock word's.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#include "internal_qspinlock.h"

/* Spin budgets: the kernel's SPIN_THRESHOLD of 2^15 iterations, at an
 * assumed 10 ns each (see algorithms/pv-ticket.c), and its check of the
 * predecessor's state every 256 iterations. */
#define PV_SPIN_NS (32768u * 10u)
#define PV_PREV_CHECK_NS (256u * 10u)

#define PVQ_SLOW 3u
#define PVQ_ENTRIES_PER_LINE 4u

enum pvq_state { PVQ_RUNNING = 0, PVQ_HALTED = 1, PVQ_HASHED = 2 };

enum {
	PVQ_COUNT_STEALING,
	PVQ_COUNT_SLOWPATH,
	PVQ_COUNT_WAIT_NODE,
	PVQ_COUNT_WAIT_EARLY,
	PVQ_COUNT_WAIT_HEAD,
	PVQ_COUNT_KICK_UNLOCK,
};
#define PVQ_COUNTS { "lock_stealing", "slowpath", "wait_node", "wait_early", "wait_head", "kick_unlock" }

struct pvq_lock {
	struct qs_word w;
	uint32_t hash_entries;
	uint32_t wait_early; /* set by init, never written again: read plainly */
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

	l->w.val = 0;
	l->hash_entries = (ncpus ? ncpus : 1) * PVQ_ENTRIES_PER_LINE;
	l->wait_early = 1;
	for (unsigned c = 0; c < ncpus; c++)
		ll_mem_tag(&pvq_cpus(l)[c].node, sizeof(struct pvq_node), LL_TAG_CTX);
}

/* Without 4.5's wait early: a queued waiter spins its whole budget, halted
 * prev or not.  The rest is 4.5's (the steal, the head spinning with the
 * pending bit set), so this is not the 4.2-4.4 lock: that one had neither. */
static void pvq_init_nowe(void *lock, unsigned ncpus)
{
	struct pvq_lock *l = lock;

	pvq_init(lock, ncpus);
	l->wait_early = 0;
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
	if (ll_load(&l->w.val, LL_RELAXED) & QS_LOCKED_PENDING_MASK)
		return false;
	/* (*,0,0) -> (*,0,1); pairs with the release in pvq_unlock */
	if (ll_cas(&l->w.locked, 0, (uint8_t)QS_LOCKED_VAL, LL_ACQUIRE) != 0)
		return false;
	ll_count(PVQ_COUNT_STEALING);
	return true;
}

/* Queued behind prev: until my node's locked flag makes me the head. */
static void pvq_wait_node(struct pvq_node *node, struct pvq_node *prev, bool wait_early)
{
	for (;;) {
		bool early = false;

		for (unsigned t = 0; t < PV_SPIN_NS; t += PV_PREV_CHECK_NS) {
			if (ll_wait_until_for(&node->locked, VAL != 0, PV_PREV_CHECK_NS))
				return;
			early = wait_early && ll_load(&prev->state, LL_RELAXED) != PVQ_RUNNING;
			if (early)
				break; /* wait early: prev is halted */
		}
		/*
		 * [running] -> [halted], then read locked; pairs with the
		 * previous head's store of locked, then cas of my state, in
		 * pvq_slowpath and pvq_kick_node: one of us sees the other.
		 */
		ll_store(&node->state, PVQ_HALTED, LL_RELAXED);
		ll_fence(LL_SEQ_CST);
		if (!ll_load(&node->locked, LL_ACQUIRE) &&
		    ll_load(&node->state, LL_ACQUIRE) == PVQ_HALTED) {
			ll_count(PVQ_COUNT_WAIT_NODE);
			if (early)
				ll_count(PVQ_COUNT_WAIT_EARLY);
			ll_park();
		}
		/* [halted] -> [running]; stays [hashed] if the holder hashed me */
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

	ll_store(&l->w.pending, 1, LL_RELAXED); /* set_pending: (*,0,*) -> (*,1,*) */
	for (;;) {
		uint64_t now = ll_now_ns();

		if (now >= deadline ||
		    !ll_wait_until_for(&l->w.locked, VAL == 0, deadline - now))
			break;
		/* (*,1,0) -> (*,0,1); pairs with the release in pvq_unlock */
		if (ll_cas(&l->w.locked_pending, (uint16_t)QS_PENDING_VAL, (uint16_t)QS_LOCKED_VAL,
			   LL_ACQUIRE) == QS_PENDING_VAL)
			return true;
	}
	ll_store(&l->w.pending, 0, LL_RELAXED); /* clear_pending: (*,1,*) -> (*,0,*) */
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

			/*
			 * Hashed first, then (*,0,1) -> (*,0,SLOW): an unlock
			 * before this finds 1 and leaves, one after it finds
			 * SLOW and my entry, and kicks me.
			 */
			if (ll_xchg(&l->w.locked, (uint8_t)PVQ_SLOW, LL_ACQ_REL) == 0) {
				/* it was free: mine, and nobody needs the entry */
				ll_store(&l->w.locked, (uint8_t)QS_LOCKED_VAL, LL_RELAXED);
				ll_store(&he->lock, NULL, LL_RELEASE);
				return;
			}
			hashed = true;
		}
		ll_store(&node->state, PVQ_HASHED, LL_RELAXED);
		/* park while SLOW; pairs with the release of locked in pvq_unlock */
		if (ll_load(&l->w.locked, LL_ACQUIRE) == PVQ_SLOW) {
			ll_count(PVQ_COUNT_WAIT_HEAD);
			ll_park();
		}
		/* kicked (or early): the lock may be stolen before I spin again */
	}
}

/* The holder passes the queue to next: a halted next would only spin as
 * head while I hold the lock, so it is hashed for my unlock to kick. */
static void pvq_kick_node(struct pvq_lock *l, struct pvq_node *next)
{
	/*
	 * [halted] -> [hashed].  smp_mb__before_atomic(): my release store
	 * of next->locked must be ordered before this read of next->state
	 * whether the cas succeeds or fails; pairs with the fence in
	 * pvq_wait_node (state stored, then locked read).
	 */
	ll_fence(LL_SEQ_CST);
	if (ll_cas(&next->state, PVQ_HALTED, PVQ_HASHED, LL_ACQ_REL) != PVQ_HALTED)
		return;
	ll_store(&l->w.locked, (uint8_t)PVQ_SLOW, LL_RELAXED); /* (*,*,1) -> (*,*,SLOW) */
	pvq_hash(l, next);
}

static void pvq_slowpath(struct pvq_lock *l)
{
	unsigned cpu = ll_this_cpu();
	struct pvq_node *node = &pvq_cpus(l)[cpu].node, *next = NULL;
	uint32_t tail = qs_encode_tail(cpu, 0), old, val;

	ll_store(&node->locked, 0, LL_RELAXED);
	ll_store(&node->next, NULL, LL_RELAXED);
	ll_store(&node->cpu, cpu, LL_RELAXED);
	ll_store(&node->state, PVQ_RUNNING, LL_RELAXED);
	if (pvq_steal(l))
		return;
	ll_count(PVQ_COUNT_SLOWPATH);

	old = qs_xchg_tail(&l->w, tail); /* (p,*,*) -> (me,*,*) */
	if (old & QS_TAIL_MASK) {
		struct pvq_node *prev = &pvq_cpus(l)[qs_tail_cpu(old)].node;

		ll_store(&prev->next, node, LL_RELEASE);
		pvq_wait_node(node, prev, l->wait_early);
		next = ll_load(&node->next, LL_ACQUIRE);
	}

	pvq_wait_head(l, node); /* now mine: locked, pending clear */
	val = ll_load(&l->w.val, LL_RELAXED);
	/* (me,0,1) -> (0,0,1) */
	if ((val & QS_TAIL_MASK) == tail && ll_cas(&l->w.val, val, QS_LOCKED_VAL, LL_RELAXED) == val)
		return; /* nobody queued behind me: clear the tail */

	if (!next)
		next = ll_wait_until(&node->next, VAL != NULL);
	/* next is the head; pairs with its acquire of locked in pvq_wait_node */
	ll_store(&next->locked, 1, LL_RELEASE);
	pvq_kick_node(l, next);
}

static void pvq_lock(void *lock, void *ctx)
{
	struct pvq_lock *l = lock;

	/* (0,0,0) -> (0,0,1); pairs with the release in pvq_unlock */
	if (ll_cas(&l->w.val, 0, QS_LOCKED_VAL, LL_ACQUIRE) != 0)
		pvq_slowpath(l);
}

static bool pvq_trylock(void *lock, void *ctx)
{
	struct pvq_lock *l = lock;

	return qs_trylock_word(&l->w);
}

static void pvq_unlock(void *lock, void *ctx)
{
	struct pvq_lock *l = lock;
	struct pvq_node *node;

	/* (*,*,1) -> (*,*,0); pairs with the acquires of locked in lock */
	if (ll_cas(&l->w.locked, (uint8_t)QS_LOCKED_VAL, 0, LL_RELEASE) == QS_LOCKED_VAL)
		return;
	/*
	 * smp_rmb(): a failed cas orders nothing; the SLOW byte it read must
	 * come before the hash entry's reads.  Pairs with the release store
	 * of he->node in pvq_hash, which a halting head (pvq_wait_head) makes
	 * before its xchg of the byte to SLOW.  pvq_kick_node stores SLOW
	 * first and hashes after; that needs no pairing: the thread that ran
	 * it is the holder, and this is its own unlock, later in program
	 * order, so it reads its own entry.
	 */
	ll_fence(LL_ACQUIRE);
	node = pvq_unhash(l);
	ll_store(&l->w.locked, 0, LL_RELEASE); /* (*,*,SLOW) -> (*,*,0), then kick */
	if (node) {
		ll_count(PVQ_COUNT_KICK_UNLOCK);
		ll_unpark(ll_load(&node->cpu, LL_RELAXED));
	}
}

const struct lock_algo lock_pv_qspinlock = {
	.name = "pv-qspinlock",
	.desc = "paravirtual queued spinlock: queued waiters and the head spin, then halt; unlock kicks (Linux 4.5, 2016)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct pvq_lock),
	.lock_size_per_cpu = sizeof(struct pvq_cpu),
	.init = pvq_init,
	.lock = pvq_lock,
	.unlock = pvq_unlock,
	.trylock = pvq_trylock,
	.counts = PVQ_COUNTS,
	.assumed = "10 ns a spin iteration before a halt", /* PV_SPIN_NS */
	.parks = true,
};

const struct lock_algo lock_pv_qspinlock_noearly = {
	.name = "pv-qspinlock-noearly",
	.desc = "pv-qspinlock (Linux 4.5's) without wait early: queued waiters spin their budget even behind a halted one",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct pvq_lock),
	.lock_size_per_cpu = sizeof(struct pvq_cpu),
	.init = pvq_init_nowe,
	.lock = pvq_lock,
	.unlock = pvq_unlock,
	.trylock = pvq_trylock,
	.counts = PVQ_COUNTS,
	.assumed = "10 ns a spin iteration before a halt", /* PV_SPIN_NS */
	.parks = true,
};
