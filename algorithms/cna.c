/*
 * cna - the compact NUMA-aware lock.
 *
 * Dice and Kogan ("Compact NUMA-aware locks", EuroSys 2019); proposed for
 * Linux as the slow path of qspinlock (qspinlock_cna.h).  An MCS queue
 * whose releaser prefers a waiter on its own NUMA node: it walks the queue
 * for the first waiter of its node and hands the lock to it, moving the
 * remote waiters it skipped to a secondary queue.  The lock stays on one
 * socket, with its protected data, for many handoffs in a row.  Unlike a
 * cohort or hierarchical lock, CNA needs no per-node structure: the lock is
 * one word, and the secondary queue hangs off the holder's node.
 *
 * The lock is one pointer on its own line; each thread brings a node (its
 * context), on its own line and its own NUMA node:
 *
 *   lock:  +------+----------+
 *          | tail |  (pad)   |     the last node of the main queue
 *          +------+----------+
 *
 *   node:  +------+------+------+----------+
 *          | next | spin | numa | sec_tail |
 *          +------+------+------+----------+
 *            next     successor in its queue
 *            spin     0: wait.  Non-zero: the lock is mine, and spin
 *                     carries what the lock brings with it:
 *
 *                       bits 63          8 7        0
 *                           +-------------+----------+
 *                           | head >> 6   | passes+1 |
 *                           +-------------+----------+
 *                       head    the first node of the secondary queue
 *                               (NULL: none); nodes are 64-byte aligned,
 *                               so its low 6 bits are zero
 *                       passes  handoffs kept on one node in a row
 *
 *            numa     the owner's NUMA node (ll_this_node())
 *            sec_tail in the head of the secondary queue: its last node
 *
 * Both travel in one word so that a handoff writes the successor's line
 * once: a second store there would wake the successor for nothing, and in
 * the simulator costs a quarter of the throughput on one socket.  The
 * packing needs addresses below 2^62, which every 64-bit Linux gives user
 * space (at most 57 bits, with 5-level paging).
 *
 * Transitions, for my node I, written spin = (head, passes):
 *
 *   lock, free:    tail: NULL --xchg(I)--> I; I.spin = (NULL, 0)
 *   lock, held:    tail: P --xchg(I)--> I; P.next = I;
 *                  wait until I.spin != 0
 *
 *   unlock, I.next == NULL (nobody queued behind me in the main queue):
 *       no secondary queue:  tail: I --cas--> NULL            free
 *       secondary queue S..T:tail: I --cas--> T;              the
 *                            S.spin = (NULL, 0)               secondary
 *                            queue becomes the main queue and its head
 *                            gets the lock
 *       if the cas fails, wait until I.next is linked, then as below.
 *
 *   unlock, I.next == N, I.spin == (S, p):
 *     1. p < CNA_LOCAL_PASSES, and a waiter W of my node is in the main
 *        queue: the waiters N..W' before W are cut out (W'.next = NULL)
 *        and appended to the secondary queue (S, or N if there was none;
 *        the head's sec_tail then points at W'); W.spin = (head, p + 1).
 *        W runs with the lock, the skipped ones wait.
 *     2. otherwise, with a secondary queue S..T: T.next = N (the main
 *        queue goes behind the secondary one), S.spin = (NULL, 0).  This
 *        is the flush that bounds how long a remote waiter can be skipped.
 *     3. otherwise: N.spin = (NULL, 0), plain MCS.
 *
 *   trylock:       tail: NULL --cas(I)--> I; I.spin = (NULL, 0)
 *
 * The threshold CNA_LOCAL_PASSES bounds a run of handoffs within one node
 * while others wait: after that many, the next release flushes the
 * secondary queue.  The paper draws the decision at random with a
 * probability of 1 - 1/2^16; Linux bounds it by time.  Here it is a count,
 * so that a simulated run is a function of its seed, and the count is 64,
 * the bound cohort, hmcs and hticket use too, so that the four compare;
 * it was fixed before any measurement.
 *
 * Only the holder reads or writes the secondary queue and the `next`
 * fields of cut-out nodes (nobody else can reach them: the main tail never
 * points into the secondary queue), so those are ordered by the handoff:
 * the release store of spin and the acquire wait on it.  The cas that
 * makes T the main tail is a release, so a thread that then links behind
 * T sees T's queue as the holder left it.
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
	prev = ll_xchg(&l->tail, me, LL_ACQ_REL);
	if (prev == NULL) {
		ll_store(&me->spin, cna_spin(NULL, 0), LL_RELAXED);
		return;
	}
	ll_store(&prev->next, me, LL_RELEASE);
	ll_wait_until(&me->spin, VAL != CNA_WAIT);
}

static bool cna_trylock(void *lock, void *ctx)
{
	struct cna_lock *l = lock;
	struct cna_node *me = ctx;

	cna_node_prepare(me);
	if (ll_cas(&l->tail, NULL, me, LL_ACQ_REL) != NULL)
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
static struct cna_node *cna_find_local(struct cna_node *next, uint32_t numa, struct cna_node **head)
{
	struct cna_node *first = next, *last = next, *cur;

	if (ll_load(&next->numa, LL_RELAXED) == numa)
		return next;
	for (cur = ll_load(&next->next, LL_ACQUIRE); cur; cur = ll_load(&cur->next, LL_ACQUIRE)) {
		if (ll_load(&cur->numa, LL_RELAXED) == numa)
			break;
		last = cur;
	}
	if (!cur)
		return NULL;
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

	if (!head)
		return ll_cas(&l->tail, me, NULL, LL_RELEASE) == me;
	last = ll_load(&head->sec_tail, LL_RELAXED);
	if (ll_cas(&l->tail, me, last, LL_RELEASE) != me)
		return false;
	ll_store(&head->spin, cna_spin(NULL, 0), LL_RELEASE);
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
	if (succ) {
		ll_store(&succ->spin, cna_spin(head, passes + 1), LL_RELEASE);
	} else if (head) {
		ll_store(&ll_load(&head->sec_tail, LL_RELAXED)->next, next, LL_RELAXED);
		ll_store(&head->spin, cna_spin(NULL, 0), LL_RELEASE);
	} else {
		ll_store(&next->spin, cna_spin(NULL, 0), LL_RELEASE);
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
	.trylock = cna_trylock,
};
