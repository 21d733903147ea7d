/*
 * ticket - the ticket lock.
 *
 * Reed and Kanodia's sequencer and eventcount ("Synchronization with
 * eventcounts and sequencers", CACM 1979), studied as a spinlock by
 * Mellor-Crummey and Scott ("Algorithms for scalable synchronization on
 * shared-memory multiprocessors", ACM TOCS 1991); Linux's x86 spinlock
 * from 2.6.25 to 4.1.  Like a bakery: take a number, wait until it is
 * served.  Strictly FIFO.
 *
 * Two counters, each on its own cache line:
 *
 *   line 0:  +------+---------------------+
 *            | next |  (padding)          |   the dispenser: fetch_add'ed
 *            +------+---------------------+   by every arriving thread
 *   line 1:  +-------+--------------------+
 *            | owner |  (padding)         |   now serving: written by the
 *            +-------+--------------------+   holder, read by every waiter
 *              u32, both wrap modulo 2^32
 *
 * Transitions (next, owner), free when next == owner:
 *
 *   lock, free:      (n, n)   --fetch_add(next)-->   (n+1, n)   my ticket n
 *                                                               == owner: mine
 *   lock, held:      (n, o)   --fetch_add(next)-->   (n+1, o)   my ticket n;
 *                                                    wait until owner == n
 *   unlock:          (n, o)   --store(owner, o+1)--> (n, o+1)   release; the
 *                                                    waiter holding o+1 enters
 *   trylock:         read owner o, then cas(next, o, o+1): succeeds only if
 *                    nobody holds or waits, i.e. next was o; owner cannot
 *                    move while next == owner.
 *
 * Why two lines: waiters spin on owner only, so a thread arriving (a write
 * of next) does not invalidate their copies; only a release does.  The
 * price is that an acquisition that moves the lock to another core misses
 * on two lines instead of one.  What remains is the ticket lock's known
 * weakness, which the simulator shows as it is: every release invalidates
 * every waiter's copy of owner, and all of them miss to re-read it although
 * only one can enter, so the cost of a handoff grows with the number of
 * waiters.  ticket-prop backs off in proportion to the distance; mcs gives
 * each waiter its own line.
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
	uint32_t me = ll_fetch_add(&l->next, 1, LL_RELAXED);

	ll_wait_until(&l->owner, VAL == me);
}

static bool ticket_trylock(void *lock, void *ctx)
{
	struct ticket_lock *l = lock;
	uint32_t o = ll_load(&l->owner, LL_ACQUIRE);

	return ll_cas(&l->next, o, o + 1, LL_ACQUIRE) == o;
}

static void ticket_unlock(void *lock, void *ctx)
{
	struct ticket_lock *l = lock;
	uint32_t o = ll_load(&l->owner, LL_RELAXED);

	ll_store(&l->owner, o + 1, LL_RELEASE);
}

const struct lock_algo lock_ticket = {
	.name = "ticket",
	.desc = "ticket lock: fetch_add a ticket, wait until it is served; FIFO (Reed & Kanodia 1979)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct ticket_lock),
	.init = ticket_init,
	.lock = ticket_lock,
	.unlock = ticket_unlock,
	.trylock = ticket_trylock,
};
