/*
 * mutex, mutex-pv - the sleeping mutex of Linux 3.10, with its optimistic
 * spinning.
 *
 * kernel/mutex.c and arch/x86/include/asm/mutex_64.h as of Linux 3.10
 * (Ingo Molnar's mutex of 2.6.16; Peter Zijlstra's spinning on the owner,
 * 2.6.30; Waiman Long's queue of spinners, mspin_lock, and his
 * MUTEX_SHOW_NO_WAITER test, both 3.10).  A contender first spins, one at a
 * time, on the holder; one that sees the mutex pass to another holder
 * while it spins sleeps, on a list under the spinlock wait_lock, until an
 * unlock wakes the first sleeper, which then takes the mutex by xchg.
 *
 * The two entries differ only in wait_lock, as rwsem and rwsem-pv do:
 * ticket (algorithms/ticket.c) or pv-ticket (algorithms/pv-ticket.c),
 * called through the catalogue.  The queue of spinners is a plain MCS lock
 * in both: the paravirtual spinlocks did not change it.
 *
 *   line 0:   +-------+-------+-------+-------+------+-------------+
 *             | count | owner | mlock | first | last |  (padding)  |
 *             +-------+-------+-------+-------+------+-------------+
 *               count: 1 free, 0 held, below 0 held with contenders
 *                      (each failed decrement takes one more off; -1 once
 *                      a sleeper has set it)
 *               owner: holder's cpu + 1, 0 none (set after the take,
 *                      cleared before the release: it may lag count)
 *               mlock: the spinners' MCS tail, cpu + 1; first, last: the
 *                      sleepers' list, cpu + 1
 *   per cpu:   an MCS node (next, locked) and a sleeper's record
 *              (next, prev), a line each
 *   wait_lock: the ticket or pv-ticket object, after the records, on
 *              lines of its own (in the kernel it shares the mutex's
 *              line), as in the seed-003 entries that measure ticket and
 *              pv-ticket alone
 *
 * Transitions of count:
 *
 *   lock      c -> c - 1 by a locked decrement: mine if c was 1.  Otherwise:
 *     spin    queue on mlock (an MCS lock); while owner is the same holder,
 *             spin (its task runs, as the guest sees it: below); when owner
 *             is 0 and count 1, cmpxchg 1 -> 0: mine; when owner changed to
 *             another holder, leave mlock and sleep; no owner and count
 *             not 1 (a holder between its take and its owner store):
 *             leave mlock and spin again
 *     sleep   under wait_lock: queue at the tail; if count >= 0 (no
 *             sleeper shown: MUTEX_SHOW_NO_WAITER), xchg it to -1: mine if
 *             it was 1.  Otherwise drop wait_lock, sleep until woken, take
 *             wait_lock and try again.  Once mine: dequeue, set owner, and
 *             count -1 -> 0 if no one else is queued
 *   unlock    owner cleared; c -> c + 1 by a locked increment: done if the
 *             result is positive (c was 0).  Otherwise the mutex stays
 *             locked (x86's failed increment leaves it so) until, under
 *             wait_lock, count -> 1 and the first sleeper is woken
 *
 * The spinners' test of whether the holder runs (owner->on_cpu) is the
 * guest kernel's own: a thread here never sleeps while it holds the mutex,
 * so its task is on its cpu, and a vCPU that the host has preempted still
 * runs its task as far as the guest can tell.  So a spinner spins until
 * the holder leaves, however long the host keeps the holder's vCPU off its
 * pCPU (Linux 4.10's vcpu_is_preempted() stops that: not modelled).
 * need_resched() is never true: every thread has a cpu of its own in the
 * guest.  Natively, with more threads than cpus, a spinner cannot tell that
 * the OS preempted its holder either, and spins out its time slice.
 *
 * init() runs before any thread starts, so it writes with plain stores;
 * it tags the per-cpu nodes LL_TAG_CTX, so that the simulator counts their
 * misses as queue nodes', not the lock word's.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#include "internal_sleepers.h"

struct kmutex {
	int32_t count;
	uint32_t owner;
	uint32_t mlock;
	struct sleepers wait_list;
} ll_cacheline_aligned;

struct kmutex_cpu {
	struct {
		uint32_t next; /* cpu + 1 */
		uint32_t locked;
	} ll_cacheline_aligned mspin;
	struct sleeper_link waiter ll_cacheline_aligned;
};

/* The per-cpu records follow the mutex's line, then wait_lock's object:
 * where each lies takes no read of the mutex's line. */
static struct kmutex_cpu *cpu_rec(struct kmutex *m, uint32_t cpu1)
{
	return (struct kmutex_cpu *)(m + 1) + (cpu1 - 1);
}

static void *wait_lock_for(struct kmutex *m, unsigned ncpus)
{
	return (struct kmutex_cpu *)(m + 1) + ncpus;
}

static void *wait_lock_of(struct kmutex *m)
{
	return wait_lock_for(m, ll_nr_cpus());
}

static void mutex_init_with(const struct lock_algo *wl, size_t per_cpu, void *lock, unsigned ncpus)
{
	struct kmutex *m = lock;

	m->count = 1;
	m->owner = m->mlock = 0;
	m->wait_list.first = m->wait_list.last = 0;
	ll_mem_tag(cpu_rec(m, 1), ncpus * sizeof(struct kmutex_cpu), LL_TAG_CTX);
	wait_lock_init(wl, per_cpu, wait_lock_for(m, ncpus), ncpus);
}

/* ------------------------------------------- the spinners' MCS queue */

static void mspin_lock(struct kmutex *m, uint32_t me1)
{
	struct kmutex_cpu *me = cpu_rec(m, me1);
	uint32_t prev;

	ll_store(&me->mspin.locked, 0, LL_RELAXED);
	ll_store(&me->mspin.next, 0, LL_RELAXED);
	/* mlock: tail -> me; pairs with the cmpxchg in mspin_unlock */
	prev = ll_xchg(&m->mlock, me1, LL_ACQ_REL);
	if (!prev)
		return;
	ll_store(&cpu_rec(m, prev)->mspin.next, me1, LL_RELEASE);
	ll_wait_until(&me->mspin.locked, VAL != 0); /* pairs with mspin_unlock's store */
}

static void mspin_unlock(struct kmutex *m, uint32_t me1)
{
	struct kmutex_cpu *me = cpu_rec(m, me1);
	uint32_t next = ll_load(&me->mspin.next, LL_ACQUIRE);

	if (!next) {
		/* mlock: me -> 0 while no one queued behind */
		if (ll_cas(&m->mlock, me1, 0, LL_RELEASE) == me1)
			return;
		next = ll_wait_until(&me->mspin.next, VAL != 0);
	}
	ll_store(&cpu_rec(m, next)->mspin.locked, 1, LL_RELEASE);
}

/* ------------------------------------------------------- spinning */

/* mutex_spin_on_owner: while owner holds (and, as the guest sees it, runs);
 * true when the mutex came free, false when another took it. */
static bool spin_on_owner(struct kmutex *m, uint32_t owner)
{
	return ll_wait_until(&m->owner, VAL != owner) == 0;
}

/* The optimistic spin: true when it took the mutex. */
static bool optimistic_spin(struct kmutex *m, uint32_t me1)
{
	/* mutex_can_spin_on_owner: a holder whose task runs, or none; as the
	 * guest sees it every holder's task runs, so this read never stops it */
	(void)ll_load(&m->owner, LL_RELAXED);
	for (;;) {
		uint32_t owner;

		mspin_lock(m, me1);
		owner = ll_load(&m->owner, LL_RELAXED);
		if (owner && !spin_on_owner(m, owner)) {
			mspin_unlock(m, me1);
			return false; /* another holder: a sign of heavy contention */
		}
		/* count: 1 -> 0, mine */
		if (ll_load(&m->count, LL_RELAXED) == 1 &&
		    ll_cas(&m->count, 1, 0, LL_ACQUIRE) == 1) {
			ll_store(&m->owner, me1, LL_RELAXED);
			mspin_unlock(m, me1);
			return true;
		}
		mspin_unlock(m, me1);
		ll_cpu_relax(); /* no owner yet, or still none: try again */
	}
}

/* ------------------------------------------------------- sleeping */

static struct sleeper_link *link_of(void *lock, uint32_t cpu1)
{
	return &cpu_rec(lock, cpu1)->waiter;
}

/* count >= 0: no sleeper shown, so an xchg to -1 may find it free */
static bool take_by_xchg(struct kmutex *m)
{
	/* count: 1 -> -1, mine (and my unlock will wake the next sleeper) */
	return ll_load(&m->count, LL_RELAXED) >= 0 && ll_xchg(&m->count, -1, LL_ACQUIRE) == 1;
}

static void sleep_until_mine(const struct lock_algo *wl, struct kmutex *m, uint32_t me1)
{
	wl->lock(wait_lock_of(m), NULL);
	sleepers_add_tail(&m->wait_list, m, link_of, me1);
	while (!take_by_xchg(m)) {
		wl->unlock(wait_lock_of(m), NULL);
		ll_park(); /* until the unlock's wake-up (or early: retry) */
		wl->lock(wait_lock_of(m), NULL);
	}
	sleepers_del(&m->wait_list, m, link_of, me1);
	ll_store(&m->owner, me1, LL_RELAXED);
	if (sleepers_empty(&m->wait_list))
		ll_store(&m->count, 0, LL_RELAXED); /* count: -1 -> 0, no one left */
	wl->unlock(wait_lock_of(m), NULL);
}

/* ------------------------------------------------------- the two sides */

static void mutex_lock_with(const struct lock_algo *wl, void *lock)
{
	struct kmutex *m = lock;
	uint32_t me1 = ll_this_cpu() + 1;

	/* count: c -> c - 1, mine if c was 1; pairs with the release in
	 * mutex_unlock_with */
	if (ll_fetch_add(&m->count, -1, LL_ACQUIRE) == 1) {
		ll_store(&m->owner, me1, LL_RELAXED);
		return;
	}
	if (optimistic_spin(m, me1))
		return;
	sleep_until_mine(wl, m, me1);
}

static void mutex_unlock_with(const struct lock_algo *wl, void *lock)
{
	struct kmutex *m = lock;
	uint32_t first;

	ll_store(&m->owner, 0, LL_RELAXED);
	/* count: c -> c + 1, done if c was 0; below 0 someone may sleep */
	if (ll_fetch_add(&m->count, 1, LL_RELEASE) + 1 > 0)
		return;
	wl->lock(wait_lock_of(m), NULL);
	/* count -> 1 under wait_lock: x86's failed increment left it locked */
	ll_store(&m->count, 1, LL_RELEASE);
	first = ll_load(&m->wait_list.first, LL_RELAXED);
	if (first) /* never the unlocker: a holder is not on the list */
		ll_unpark(first - 1);
	wl->unlock(wait_lock_of(m), NULL);
}

/* ------------------------------------------------------ the two entries */

#define MUTEX_ENTRY(ident, wl, per_cpu)                                                            \
	static void ident##_init(void *lock, unsigned ncpus)                                       \
	{                                                                                          \
		mutex_init_with(&wl, per_cpu, lock, ncpus);                                        \
	}                                                                                          \
	static void ident##_lock(void *lock, void *ctx)                                            \
	{                                                                                          \
		mutex_lock_with(&wl, lock);                                                        \
	}                                                                                          \
	static void ident##_unlock(void *lock, void *ctx)                                          \
	{                                                                                          \
		mutex_unlock_with(&wl, lock);                                                      \
	}

MUTEX_ENTRY(kmutex_tkt, lock_ticket, WAIT_LOCK_TICKET_PER_CPU)
MUTEX_ENTRY(kmutex_pv, lock_pv_ticket, WAIT_LOCK_PV_PER_CPU)

const struct lock_algo lock_kmutex = {
	.name = "mutex",
	.desc = "sleeping mutex of Linux 3.10: spin on the running owner in an MCS queue, else sleep on a list under a ticket wait_lock",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct kmutex) + WAIT_LOCK_SIZE,
	.lock_size_per_cpu = WAIT_LOCK_TICKET_PER_CPU + sizeof(struct kmutex_cpu),
	.init = kmutex_tkt_init,
	.lock = kmutex_tkt_lock,
	.unlock = kmutex_tkt_unlock,
	.parks = true,
};

const struct lock_algo lock_kmutex_pv = {
	.name = "mutex-pv",
	.desc = "mutex (Linux 3.10) whose wait_lock is pv-ticket, as in a guest with the paravirtual spinlocks",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct kmutex) + WAIT_LOCK_SIZE,
	.lock_size_per_cpu = WAIT_LOCK_PV_PER_CPU + sizeof(struct kmutex_cpu),
	.init = kmutex_pv_init,
	.lock = kmutex_pv_lock,
	.unlock = kmutex_pv_unlock,
	.assumed = "10 ns a spin iteration before a halt", /* its pv-ticket wait_lock */
	.parks = true,
};
