/*
 * ticket-prop - the ticket lock with proportional backoff.
 *
 * Mellor-Crummey and Scott ("Algorithms for scalable synchronization on
 * shared-memory multiprocessors", ACM TOCS 1991, section 2.2): a waiter
 * knows how many threads are ahead of it, so instead of re-reading the
 * now-serving counter continuously it waits for about that many critical
 * sections before looking again.  Fewer threads re-read owner after each
 * release, at the price of handing over later than ticket would.
 *
 * Two counters, each on its own cache line (as in ticket.c, for the same
 * reason: arrivals do not disturb readers of owner):
 *
 *   line 0:  +------+---------------------+
 *            | next |  (padding)          |   fetch_add'ed by arrivals
 *            +------+---------------------+
 *   line 1:  +-------+--------------------+
 *            | owner |  (padding)         |   written by the holder
 *            +-------+--------------------+
 *              u32, both wrap modulo 2^32
 *
 * Transitions (next, owner), free when next == owner:
 *
 *   lock, free:      (n, n)   --fetch_add(next)-->   (n+1, n)   mine
 *   lock, held:      (n, o)   --fetch_add(next)-->   (n+1, o)   my ticket n.
 *                    Loop: read owner o; if o == n, mine; else delay
 *                    (n - o) * PROP_BASE_NS, read again.
 *   unlock:          (n, o)   --store(owner, o+1)--> (n, o+1)   release
 *   trylock:         read owner o, cas(next, o, o+1), as in ticket.c.
 *
 * The waiting loop is a delay and a re-read rather than ll_wait_until(): the
 * delay is the algorithm.  A re-read of an unchanged owner is a cache hit.
 * PROP_BASE_NS is the guess at one critical section plus one handoff; it is
 * about one cross-socket line transfer, the shortest a handoff can take on a
 * multi-socket machine.
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#define PROP_BASE_NS 128u

struct ticket_prop_lock {
	uint32_t next ll_cacheline_aligned;
	uint32_t owner ll_cacheline_aligned;
};

static void ticket_prop_init(void *lock, unsigned ncpus)
{
	struct ticket_prop_lock *l = lock;

	l->next = 0;
	l->owner = 0;
}

static void ticket_prop_lock(void *lock, void *ctx)
{
	struct ticket_prop_lock *l = lock;
	uint32_t me = ll_fetch_add(&l->next, 1, LL_RELAXED);
	uint32_t o;

	while ((o = ll_load(&l->owner, LL_ACQUIRE)) != me)
		ll_delay_ns((uint64_t)(me - o) * PROP_BASE_NS);
}

static bool ticket_prop_trylock(void *lock, void *ctx)
{
	struct ticket_prop_lock *l = lock;
	uint32_t o = ll_load(&l->owner, LL_ACQUIRE);

	return ll_cas(&l->next, o, o + 1, LL_ACQUIRE) == o;
}

static void ticket_prop_unlock(void *lock, void *ctx)
{
	struct ticket_prop_lock *l = lock;
	uint32_t o = ll_load(&l->owner, LL_RELAXED);

	ll_store(&l->owner, o + 1, LL_RELEASE);
}

const struct lock_algo lock_ticket_prop = {
	.name = "ticket-prop",
	.desc = "ticket lock, waiters back off in proportion to their distance (Mellor-Crummey & Scott 1991)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct ticket_prop_lock),
	.init = ticket_prop_init,
	.lock = ticket_prop_lock,
	.unlock = ticket_prop_unlock,
	.trylock = ticket_prop_trylock,
};
