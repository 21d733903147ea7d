/*
 * pv-ticket - the paravirtual ticket lock.
 *
 * Linux's paravirtual ticket spinlocks (Jeremy Fitzhardinge's pv-ops hooks,
 * 2008; the KVM guest side by Srivatsa Vaddagiri and Raghavendra K T,
 * merged in Linux 3.12, 2013): the ticket lock of algorithms/ticket.c,
 * whose waiter spins a bounded time and then halts its vCPU, and whose
 * unlocker kicks the vCPU that holds the next ticket.  In a guest whose
 * vCPUs are overcommitted, the plain ticket lock hands the lock in ticket
 * order whatever the hypervisor runs: a waiter that burns its slice
 * spinning behind a preempted holder, or behind a preempted next waiter,
 * wastes the pCPU that the one it waits for needs.  Halting gives it back.
 * Natively, ll_park/ll_unpark are futexes: this is a spin-then-park ticket
 * lock.
 *
 * The lock object: the two counters of the ticket lock, each on its own
 * line, and one slot line per cpu:
 *
 *   line 0:  +------+-----------+
 *            | next | (padding) |       the dispenser, fetch_add'ed
 *            +------+-----------+
 *   line 1:  +-------+--------+--------------+
 *            | owner | nslots |  (padding)   |   now serving; nslots is
 *            +-------+--------+--------------+   the number of slots
 *   slot k:  +------------+-------------+
 *            | cpu + 1    |  (padding)  |   the cpu (+1) of the waiter for
 *            +------------+-------------+   ticket t, t mod nslots == k,
 *                                            that is halting; 0: none
 *
 * At most nslots (= threads) tickets are out at once, so the slot of
 * ticket t belongs to t's holder alone until t is released.  The kernel's
 * KVM guest keeps, per cpu, the lock and ticket it waits for, and its
 * unlocker scans the cpus flagged as waiting for the one that wants the
 * new head; the slot indexed by ticket finds that cpu with one read.
 *
 * Transitions (next, owner; slot of t):
 *
 *   lock:      (n, o) --fetch_add(next)--> (n+1, o)   my ticket t = n
 *   spin:      wait until owner == t, at most PV_SPIN_NS; done if it is
 *   halt:      slot(t) := me+1 (xchg: a full barrier), then re-read owner:
 *                owner == t   slot(t) := 0, done (the lock came meanwhile)
 *                otherwise    ll_park(); slot(t) := 0; spin again
 *   unlock:    (n, o) --fetch_add(owner) (a full barrier)--> (n, o+1);
 *              read slot(o+1): c != 0 -> ll_unpark(c-1), the kick
 *
 * No lost wake-up: the halting waiter writes its slot and then reads
 * owner; the unlocker writes owner and then reads the slot.  Both pairs are
 * ordered by full barriers, so at least one of them sees the other's
 * write: either the waiter sees its turn and does not park, or the
 * unlocker sees the slot and kicks (a kick that comes before the park is
 * remembered, so the park returns at once).  A kick that arrives after the
 * waiter found its turn by itself is a spare token: a later park returns
 * early, and every park is followed by a re-check.
 *
 * The unlocker's fetch_add stands for the kernel's locked add of the head
 * (add_smp, a full barrier before the slow-path test); its extra cost over
 * ticket's store is part of what pv-ticket pays on bare metal.
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

/*
 * How long a waiter spins before it halts: the kernel's SPIN_THRESHOLD,
 * 2^15 iterations of a read and a PAUSE, at about 10 ns an iteration on
 * the Nehalem-EX generation of the 2013 benchmarks.  A budget of time
 * rather than iterations, because a simulated spin costs events per write
 * of the line, not per iteration.
 */
#define PV_SPIN_NS (32768u * 10u)

struct pvt_lock {
	uint32_t next ll_cacheline_aligned;
	struct {
		uint32_t owner;
		uint32_t nslots;
	} ll_cacheline_aligned;
};

struct pvt_slot {
	uint32_t cpu1;
} ll_cacheline_aligned;

static struct pvt_slot *pvt_slot(struct pvt_lock *l, uint32_t ticket, uint32_t nslots)
{
	return (struct pvt_slot *)(l + 1) + ticket % nslots;
}

static void pvt_init(void *lock, unsigned ncpus)
{
	struct pvt_lock *l = lock;

	l->next = 0;
	l->owner = 0;
	l->nslots = ncpus ? ncpus : 1;
}

/* The slow path: announce the halt in my ticket's slot, re-check, halt.
 * Returns true when the lock turned out to be mine. */
static bool pvt_halt(struct pvt_lock *l, uint32_t me)
{
	uint32_t n = ll_load(&l->nslots, LL_RELAXED);
	struct pvt_slot *s = pvt_slot(l, me, n);
	bool mine;

	(void)ll_xchg(&s->cpu1, ll_this_cpu() + 1, LL_SEQ_CST);
	mine = ll_load(&l->owner, LL_ACQUIRE) == me;
	if (!mine)
		ll_park();
	ll_store(&s->cpu1, 0, LL_RELAXED);
	return mine;
}

static void pvt_lock(void *lock, void *ctx)
{
	struct pvt_lock *l = lock;
	uint32_t me = ll_fetch_add(&l->next, 1, LL_RELAXED);

	for (;;) {
		if (ll_wait_until_for(&l->owner, VAL == me, PV_SPIN_NS))
			return;
		if (pvt_halt(l, me))
			return;
	}
}

static bool pvt_trylock(void *lock, void *ctx)
{
	struct pvt_lock *l = lock;
	uint32_t o = ll_load(&l->owner, LL_ACQUIRE);

	return ll_cas(&l->next, o, o + 1, LL_ACQUIRE) == o;
}

static void pvt_unlock(void *lock, void *ctx)
{
	struct pvt_lock *l = lock;
	uint32_t o = ll_fetch_add(&l->owner, 1, LL_SEQ_CST) + 1;
	uint32_t c = ll_load(&pvt_slot(l, o, ll_load(&l->nslots, LL_RELAXED))->cpu1, LL_RELAXED);

	if (c)
		ll_unpark(c - 1);
}

const struct lock_algo lock_pv_ticket = {
	.name = "pv-ticket",
	.desc = "paravirtual ticket lock: spin, then halt; the unlocker kicks the next ticket (Linux 3.12, 2013)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct pvt_lock),
	.lock_size_per_cpu = sizeof(struct pvt_slot),
	.init = pvt_init,
	.lock = pvt_lock,
	.unlock = pvt_unlock,
	.trylock = pvt_trylock,
};
