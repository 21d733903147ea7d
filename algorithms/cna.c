/*
 * cna - the compact NUMA-aware lock.
 *
 * Dice and Kogan ("Compact NUMA-aware locks", EuroSys 2019); proposed for
 * Linux as the slow path of qspinlock (qspinlock_cna.h).  An MCS queue
 * whose releaser hands the lock to the first waiter of its own NUMA node,
 * moving the remote waiters it skipped to a secondary queue that hangs off
 * the holder's node; after CNA_LOCAL_PASSES such handoffs in a row the
 * secondary queue is flushed (docs/spinlocks.md).
 *
 *   lock:  +------+----------+
 *          | tail |  (pad)   |     the last node of the main queue
 *          +------+----------+
 *   node:  +------+------+------+----------+
 *          | next | spin | numa | sec_tail |   sec_tail: in the head of
 *          +------+------+------+----------+   the secondary queue, its
 *                                              last node
 *   spin:   bits 63          8 7        0
 *          +-------------+----------+
 *          | head >> 6   | passes+1 |   0: wait.  Non-zero: the lock is
 *          +-------------+----------+   mine, with the secondary queue's
 *                                       head and the handoffs kept so far
 *
 * Transitions are written spin = (head, passes) for my node I.  Packing
 * needs 64-byte aligned nodes below 2^62, as every 64-bit Linux gives.
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#define CNA_LOCAL_PASSES 64u

#define CNA_WAIT 0u
#define CNA_PASSES_MASK 0xffu

struct cna_node {
	struct cna_node *next;
	uint64_t spin;
	uint32_t numa;
	struct cna_node *sec_tail;
} ll_cacheline_aligned;

struct cna_lock {
	struct cna_node *tail;
} ll_cacheline_aligned;

_Static_assert(CNA_LOCAL_PASSES + 1 <= CNA_PASSES_MASK, "passes fit in spin's low byte");

static uint64_t cna_spin(struct cna_node *head, uint32_t passes)
{
	return (uint64_t)(uintptr_t)head << 2 | (passes + 1);
}

static struct cna_node *cna_spin_head(uint64_t spin)
{
	return (struct cna_node *)(uintptr_t)((spin & ~(uint64_t)CNA_PASSES_MASK) >> 2);
}

static uint32_t cna_spin_passes(uint64_t spin)
{
	return (uint32_t)(spin & CNA_PASSES_MASK) - 1;
}

static void cna_init(void *lock, unsigned ncpus)
{
	struct cna_lock *l = lock;

	l->tail = NULL;
}

static void cna_node_prepare(struct cna_node *me)
{
	ll_store(&me->next, NULL, LL_RELAXED);
	ll_store(&me->spin, CNA_WAIT, LL_RELAXED);
	ll_store(&me->numa, ll_this_node(), LL_RELAXED);
}

static void cna_lock(void *lock, void *ctx)
{
	struct cna_lock *l = lock;
	struct cna_node *me = ctx;
	struct cna_node *prev;

	cna_node_prepare(me);
	prev = ll_xchg(&l->tail, me, LL_ACQ_REL); /* tail: P -> I */
	if (prev == NULL) {
		ll_store(&me->spin, cna_spin(NULL, 0), LL_RELAXED); /* (NULL, 0) */
		return;
	}
	/* P.next = I; pairs with the acquire of next in cna_unlock */
	ll_store(&prev->next, me, LL_RELEASE);
	/* 0 -> (head, passes); acquire, pairs with the spin stores in unlock */
	ll_wait_until(&me->spin, VAL != CNA_WAIT);
}

static bool cna_trylock(void *lock, void *ctx)
{
	struct cna_lock *l = lock;
	struct cna_node *me = ctx;

	cna_node_prepare(me);
	if (ll_cas(&l->tail, NULL, me, LL_ACQ_REL) != NULL) /* tail: NULL -> I */
		return false;
	ll_store(&me->spin, cna_spin(NULL, 0), LL_RELAXED);
	return true;
}

/*
 * Find the first waiter of my node from next on.  If there is one, cut the
 * waiters before it out of the main queue, append them to the secondary
 * queue (*head: its first node or NULL, updated) and return the waiter;
 * otherwise change nothing and return NULL.
 */
/* What a run counts (ll_count), at each unlock that finds a successor:
 * a handoff to a waiter of the holder's socket, the waiters skipped on
 * the way (moved to the secondary queue), a handoff that flushed the
 * secondary queue back, and a plain MCS handoff (no secondary queue). */
enum { CNA_COUNT_LOCAL, CNA_COUNT_SKIPPED, CNA_COUNT_FLUSHED, CNA_COUNT_MCS };

static struct cna_node *cna_find_local(struct cna_node *next, uint32_t numa, struct cna_node **head)
{
	struct cna_node *first = next, *last = next, *cur;
	unsigned skipped = 1;

	if (ll_load(&next->numa, LL_RELAXED) == numa)
		return next;
	for (cur = ll_load(&next->next, LL_ACQUIRE); cur; cur = ll_load(&cur->next, LL_ACQUIRE)) {
		if (ll_load(&cur->numa, LL_RELAXED) == numa)
			break;
		last = cur;
		skipped++;
	}
	if (!cur)
		return NULL;
	while (skipped--)
		ll_count(CNA_COUNT_SKIPPED);
	/*
	 * Cut next..last out and append it to the secondary queue.  Only the
	 * holder reaches these nodes (the main tail never points into the
	 * secondary queue), so plain stores do: the handoff orders them.
	 */
	ll_store(&last->next, NULL, LL_RELAXED);
	if (*head)
		ll_store(&ll_load(&(*head)->sec_tail, LL_RELAXED)->next, first, LL_RELAXED);
	else
		*head = first;
	ll_store(&(*head)->sec_tail, last, LL_RELAXED);
	return cur;
}

/* Nobody behind me in the main queue: free the lock or promote the
 * secondary queue.  Returns false if a successor is linking in. */
static bool cna_release_alone(struct cna_lock *l, struct cna_node *me, struct cna_node *head)
{
	struct cna_node *last;

	if (!head) /* tail: I -> NULL, free */
		return ll_cas(&l->tail, me, NULL, LL_RELEASE) == me;
	last = ll_load(&head->sec_tail, LL_RELAXED);
	/*
	 * tail: I -> T, the secondary queue S..T becomes the main one.
	 * Release: a thread that then links behind T sees T's queue as I
	 * left it.
	 */
	if (ll_cas(&l->tail, me, last, LL_RELEASE) != me)
		return false;
	ll_store(&head->spin, cna_spin(NULL, 0), LL_RELEASE); /* S: 0 -> (NULL, 0) */
	return true;
}

static void cna_unlock(void *lock, void *ctx)
{
	struct cna_lock *l = lock;
	struct cna_node *me = ctx;
	struct cna_node *next = ll_load(&me->next, LL_ACQUIRE), *succ = NULL;
	uint64_t spin = ll_load(&me->spin, LL_RELAXED);
	struct cna_node *head = cna_spin_head(spin);
	uint32_t passes = cna_spin_passes(spin);

	if (next == NULL) {
		if (cna_release_alone(l, me, head))
			return;
		next = ll_wait_until(&me->next, VAL != NULL);
	}
	if (passes < CNA_LOCAL_PASSES)
		succ = cna_find_local(next, ll_load(&me->numa, LL_RELAXED), &head);
	/* Each spin store pairs with the acquiring wait in cna_lock. */
	if (succ) {
		/* W of my node: 0 -> (head, passes + 1) */
		ll_store(&succ->spin, cna_spin(head, passes + 1), LL_RELEASE);
		ll_count(CNA_COUNT_LOCAL);
	} else if (head) {
		/* flush: T.next = N, then S: 0 -> (NULL, 0) */
		ll_store(&ll_load(&head->sec_tail, LL_RELAXED)->next, next, LL_RELAXED);
		ll_store(&head->spin, cna_spin(NULL, 0), LL_RELEASE);
		ll_count(CNA_COUNT_FLUSHED);
	} else {
		/* plain MCS: N: 0 -> (NULL, 0) */
		ll_store(&next->spin, cna_spin(NULL, 0), LL_RELEASE);
		ll_count(CNA_COUNT_MCS);
	}
}

const struct lock_algo lock_cna = {
	.name = "cna",
	.desc = "compact NUMA-aware lock: MCS that hands over within a socket, a queue for the skipped (Dice & Kogan 2019)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct cna_lock),
	.ctx_size = sizeof(struct cna_node),
	.init = cna_init,
	.lock = cna_lock,
	.unlock = cna_unlock,
	.counts = { "local_handoff", "skipped", "flushed", "mcs_handoff" },
	.trylock = cna_trylock,
};
