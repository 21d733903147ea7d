/*
 * pv-ticket - the paravirtual ticket lock.
 *
 * Linux's paravirtual ticket spinlocks (Jeremy Fitzhardinge's pv-ops hooks,
 * 2008; the KVM guest side by Srivatsa Vaddagiri and Raghavendra K T,
 * merged in Linux 3.12, 2013): the ticket lock of algorithms/ticket.c,
 * whose waiter spins a bounded time and then halts its vCPU, and whose
 * unlocker kicks the vCPU that holds the next ticket.  Natively,
 * ll_park/ll_unpark are futexes: a spin-then-park ticket lock.  docs/vm.md
 * says why, and why no wake-up is lost.
 *
 * How the unlocker finds the halted waiter is this project's own, not
 * 3.12's.  There, each cpu had a {lock, want} record and a mask of waiting
 * cpus, and a waiter about to halt set TICKET_SLOWPATH_FLAG in the tail
 * (tickets step by 2, bit 0 is the flag); the unlocker's locked add of
 * the head was followed by a test of that flag, and only when it was set
 * did it scan the waiting cpus for the one that wants the new head.  Here
 * the slot of ticket t names the waiter with one read, and there is no
 * flag: every unlock reads the next ticket's slot, halted waiter or not,
 * so each release reads one more line than 3.12's fast unlock, which only
 * re-read the lock's own line.
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
 * At most threads tickets are out at once and nslots is the power of two
 * at or above that (so that t mod nslots stays right when the 32-bit
 * ticket wraps), so the slot of ticket t belongs to t's holder alone until
 * t is released.  Two slots per cpu are allocated; nslots uses at most
 * that many.
 *
 * What a run counts (ll_count) is named after the statistics of Linux's
 * Xen paravirtual ticket lock (CONFIG_XEN_DEBUG_FS, arch/x86/xen/
 * spinlock.c, 3.11): taken_slow, the waits that spun out and went to
 * halt; taken_slow_pickup, those that found the lock theirs on the re-check
 * and did not halt; released_slow_kicked, the unlocks that found the next
 * ticket's waiter in its slot and kicked it.
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

/*
 * How long a waiter spins before it halts: the kernel's SPIN_THRESHOLD,
 * 2^15 iterations of a read and a PAUSE, at about 10 ns an iteration on
 * the Nehalem-EX generation of the 2013 benchmarks (*assumed*: no
 * measurement of that loop on that machine is at hand).  A budget of time
 * rather than iterations, because a simulated spin costs events per write
 * of the line, not per iteration.
 */
#define PV_SPIN_NS (32768u * 10u)

enum { PVT_COUNT_TAKEN_SLOW, PVT_COUNT_TAKEN_SLOW_PICKUP, PVT_COUNT_RELEASED_SLOW_KICKED };

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
	return (struct pvt_slot *)(l + 1) + (ticket & (nslots - 1));
}

static void pvt_init(void *lock, unsigned ncpus)
{
	struct pvt_lock *l = lock;

	l->next = 0;
	l->owner = 0;
	l->nslots = 1;
	while (l->nslots < ncpus)
		l->nslots <<= 1;
}

/* The slow path: announce the halt in my ticket's slot, re-check, halt.
 * Returns true when the lock turned out to be mine. */
static bool pvt_halt(struct pvt_lock *l, uint32_t me)
{
	uint32_t n = ll_load(&l->nslots, LL_RELAXED);
	struct pvt_slot *s = pvt_slot(l, me, n);
	bool mine;

	ll_count(PVT_COUNT_TAKEN_SLOW);
	/*
	 * slot(t): 0 -> me + 1, then read owner.  A seq_cst RMW followed by
	 * a plain load is no full barrier in C11: smp_mb() between them;
	 * pairs with the smp_mb() after the fetch_add of owner in
	 * pvt_unlock: one of us sees the other's write, so no wake-up is
	 * lost.
	 */
	(void)ll_xchg(&s->cpu1, ll_this_cpu() + 1, LL_SEQ_CST);
	ll_fence(LL_SEQ_CST);
	mine = ll_load(&l->owner, LL_ACQUIRE) == me;
	if (mine)
		ll_count(PVT_COUNT_TAKEN_SLOW_PICKUP);
	else
		ll_park(); /* a kick before the park is remembered */
	ll_store(&s->cpu1, 0, LL_RELAXED); /* slot(t): me + 1 -> 0 */
	return mine;
}

static void pvt_lock(void *lock, void *ctx)
{
	struct pvt_lock *l = lock;
	/* (next, owner): (n, o) -> (n+1, o), my ticket t = n */
	uint32_t me = ll_fetch_add(&l->next, 1, LL_RELAXED);

	for (;;) {
		/* acquire; pairs with the fetch_add of owner in pvt_unlock */
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

	return ll_cas(&l->next, o, o + 1, LL_ACQUIRE) == o; /* (o, o) -> (o+1, o) */
}

static void pvt_unlock(void *lock, void *ctx)
{
	struct pvt_lock *l = lock;
	/*
	 * (n, o) -> (n, o+1), then read slot(o+1) and kick.  smp_mb() after
	 * the add, as the kernel's add_smp; pairs with the smp_mb() after
	 * the xchg of the slot in pvt_halt.
	 */
	uint32_t o = ll_fetch_add(&l->owner, 1, LL_SEQ_CST) + 1;
	uint32_t c;

	ll_fence(LL_SEQ_CST);
	c = ll_load(&pvt_slot(l, o, ll_load(&l->nslots, LL_RELAXED))->cpu1, LL_RELAXED);

	if (c) {
		ll_count(PVT_COUNT_RELEASED_SLOW_KICKED);
		ll_unpark(c - 1);
	}
}

const struct lock_algo lock_pv_ticket = {
	.name = "pv-ticket",
	.desc = "paravirtual ticket lock: spin, then halt; the unlocker kicks the next ticket (Linux 3.12, 2013; per-ticket slots, no slowpath flag)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct pvt_lock),
	.lock_size_per_cpu = 2 * sizeof(struct pvt_slot), /* nslots <= 2 x cpus */
	.init = pvt_init,
	.lock = pvt_lock,
	.unlock = pvt_unlock,
	.trylock = pvt_trylock,
	.counts = { "taken_slow", "taken_slow_pickup", "released_slow_kicked" },
	.assumed = "10 ns a spin iteration before a halt", /* PV_SPIN_NS */
	.parks = true,
};
