/*
 * ticket-prop - the ticket lock with proportional backoff.
 *
 * Mellor-Crummey and Scott ("Algorithms for scalable synchronization on
 * shared-memory multiprocessors", ACM TOCS 1991, section 2.2): a waiter
 * knows how many threads are ahead of it, so instead of re-reading the
 * now-serving counter continuously it waits for about that many critical
 * sections before looking again.  The delay is the algorithm, so the
 * waiting loop is a delay and a re-read, not ll_wait_until().  The words
 * are ticket.c's, free when next == owner (docs/spinlocks.md):
 *
 *   line 0:  +------+---------------------+
 *            | next |  (padding)          |   fetch_add'ed by arrivals
 *            +------+---------------------+
 *   line 1:  +-------+--------------------+
 *            | owner |  (padding)         |   written by the holder
 *            +-------+--------------------+
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

/* The wait per ticket ahead: *assumed*, about one handover on a socket. */
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
	/* (next, owner): (n, o) -> (n+1, o), my ticket is n */
	uint32_t me = ll_fetch_add(&l->next, 1, LL_RELAXED);
	uint32_t o;

	/* acquire; pairs with the release of owner in ticket_prop_unlock */
	while ((o = ll_load(&l->owner, LL_ACQUIRE)) != me)
		ll_delay_ns((uint64_t)(me - o) * PROP_BASE_NS);
}

static bool ticket_prop_trylock(void *lock, void *ctx)
{
	struct ticket_prop_lock *l = lock;
	uint32_t o = ll_load(&l->owner, LL_ACQUIRE);

	return ll_cas(&l->next, o, o + 1, LL_ACQUIRE) == o; /* (o, o) -> (o+1, o) */
}

static void ticket_prop_unlock(void *lock, void *ctx)
{
	struct ticket_prop_lock *l = lock;
	uint32_t o = ll_load(&l->owner, LL_RELAXED);

	/* (n, o) -> (n, o+1); pairs with the acquiring re-read in lock */
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
	.assumed = "128 ns of backoff a ticket ahead", /* PROP_BASE_NS */
};
