/*
 * ticket - the ticket lock.
 *
 * Reed and Kanodia's sequencer and eventcount ("Synchronization with
 * eventcounts and sequencers", CACM 1979), studied as a spinlock by
 * Mellor-Crummey and Scott ("Algorithms for scalable synchronization on
 * shared-memory multiprocessors", ACM TOCS 1991).  Take a number, wait
 * until it is served: strictly FIFO.  Free when next == owner; both wrap
 * modulo 2^32.
 *
 * The algorithm of Linux's x86 spinlock from 2.6.25 to 4.1, but a variant
 * of its layout: each counter has its own line here, so that an arrival
 * does not disturb the spinners, where the kernel kept head and tail in
 * one word, on one line, so that every arrival's xadd invalidates every
 * waiter's copy.  algorithms/internal_ticket.h is the faithful one-word
 * lock; it is no catalogue entry of its own but the wait_lock of
 * qrwlock-3.16 and qrwlock, brlock's per-cpu lock and the lock of lockref
 * and spinlock-ref (algorithms/internal_lockref.h; docs/spinlocks.md).
 *
 *   line 0:  +------+---------------------+
 *            | next |  (padding)          |   the dispenser: fetch_add'ed
 *            +------+---------------------+   by every arriving thread
 *   line 1:  +-------+--------------------+
 *            | owner |  (padding)         |   now serving: written by the
 *            +-------+--------------------+   holder, read by every waiter
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

struct ticket_lock {
	uint32_t next ll_cacheline_aligned;
	uint32_t owner ll_cacheline_aligned;
};

static void ticket_init(void *lock, unsigned ncpus)
{
	struct ticket_lock *l = lock;

	l->next = 0;
	l->owner = 0;
}

static void ticket_lock(void *lock, void *ctx)
{
	struct ticket_lock *l = lock;
	/* (next, owner): (n, o) -> (n+1, o), my ticket is n */
	uint32_t me = ll_fetch_add(&l->next, 1, LL_RELAXED);

	/* acquire; pairs with the release of owner in ticket_unlock */
	ll_wait_until(&l->owner, VAL == me);
}

static bool ticket_trylock(void *lock, void *ctx)
{
	struct ticket_lock *l = lock;
	uint32_t o = ll_load(&l->owner, LL_ACQUIRE);

	/*
	 * (o, o) -> (o+1, o), only when nobody holds or waits: owner cannot
	 * move while next == owner.
	 */
	return ll_cas(&l->next, o, o + 1, LL_ACQUIRE) == o;
}

static void ticket_unlock(void *lock, void *ctx)
{
	struct ticket_lock *l = lock;
	uint32_t o = ll_load(&l->owner, LL_RELAXED);

	/* (n, o) -> (n, o+1): ticket o+1 enters; pairs with the wait in lock */
	ll_store(&l->owner, o + 1, LL_RELEASE);
}

const struct lock_algo lock_ticket = {
	.name = "ticket",
	.desc = "ticket lock: fetch_add a ticket, wait until it is served; FIFO (Reed & Kanodia 1979); next and owner on two lines, where Linux kept one word",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct ticket_lock),
	.init = ticket_init,
	.lock = ticket_lock,
	.unlock = ticket_unlock,
	.trylock = ticket_trylock,
};
