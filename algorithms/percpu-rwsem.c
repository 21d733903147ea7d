/*
 * percpu-rwsem - Linux's per-CPU reader-writer semaphore, spinning.
 *
 * Mikulas Patocka's percpu_rw_semaphore (Linux 3.7, commit 62ac665ff9fc,
 * an idea of Eric Dumazet's; reworked by Oleg Nesterov for 3.8), in the form Oleg Nesterov and Peter Zijlstra later gave it:
 * rcu_sync switches readers between a fast and a slow path, and a block
 * word shuts the door (kernel/locking/percpu-rwsem.c, kernel/rcu/sync.c).
 * A reader counts itself in its own CPU's counter with a plain load and
 * store; a writer switches readers to the slow path, waits a grace period
 * (the constant PCPU_RWSEM_GP_NS), shuts the door and waits until the
 * counts drain.  The read side is that of "percpu rwsem -v2" patch 05
 * (June 2015; merged upstream as 80127a39681b): count, then test the
 * rcu_sync state; the barrier is on the slow path only.  docs/rwlocks.md
 * says where this differs from Linux.
 *
 *   line 0:     +-----------+-----------+-------+
 *               | rss       | idle_at   | ncpus |  read by every reader;
 *               +-----------+-----------+-------+  written when writers
 *                 state | writers << 8             come and go, and by a
 *                                                  slow-path reader's cas
 *                                                  EXIT -> IDLE once the
 *                                                  last writer's grace
 *                                                  period is over
 *                                                  (rss_finish_exit)
 *   line 1:     +-------+------------------------+
 *               | block |                        |  1 while a writer is in
 *               +-------+------------------------+  or draining readers
 *   line 2+i:   +-------+------------------------+
 *               | count |                        |  cpu i's readers: written
 *               +-------+------------------------+  only by cpu i
 *
 * rss state: IDLE (readers take the fast path), PENDING (a writer waits
 * for the grace period), PASSED (every reader takes the slow path), EXIT
 * (the last writer left; readers stay slow until idle_at).
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

/* The grace period a writer waits: 10 us, *assumed* of the order of an
 * expedited RCU grace period on an idle machine (no measurement at hand). */
#define PCPU_RWSEM_GP_NS 10000

enum rss_state { RSS_IDLE = 0, RSS_PENDING = 1, RSS_PASSED = 2, RSS_EXIT = 3 };

#define RSS_STATE_MASK 0xffull
#define RSS_WRITER (1ull << 8)

struct pcpu_count {
	uint32_t count;
} ll_cacheline_aligned;

struct pcpu_rwsem {
	uint64_t rss ll_cacheline_aligned;
	uint64_t idle_at;
	uint32_t ncpus;
	uint32_t block ll_cacheline_aligned;
	struct pcpu_count cpu[];
};

static void pcpu_init(void *lock, unsigned ncpus)
{
	struct pcpu_rwsem *s = lock;

	s->rss = RSS_IDLE;
	s->idle_at = 0;
	s->ncpus = ncpus;
	s->block = 0;
	for (unsigned i = 0; i < ncpus; i++)
		s->cpu[i].count = 0;
}

/* this_cpu_inc / this_cpu_dec: a plain read and write of my own counter.
 * The decrement is a release store, so that the section's reads are done
 * before a writer can see the count drop (free on x86). */
static void pcpu_count_inc(uint32_t *mine)
{
	ll_store(mine, ll_load(mine, LL_RELAXED) + 1, LL_RELAXED);
}

static void pcpu_count_dec(uint32_t *mine)
{
	ll_store(mine, ll_load(mine, LL_RELAXED) - 1, LL_RELEASE);
}

/* The RCU callback of rcu_sync_exit(), run by the first slow reader that
 * comes after its grace period. */
static void rss_finish_exit(struct pcpu_rwsem *s)
{
	if (ll_load(&s->rss, LL_ACQUIRE) != RSS_EXIT)
		return;
	if (ll_now_ns() >= ll_load(&s->idle_at, LL_RELAXED))
		(void)ll_cas(&s->rss, RSS_EXIT, RSS_IDLE, LL_ACQ_REL); /* (EXIT, 0) -> (IDLE, 0) */
}

/* What a run counts (ll_count): reads that took the fast path, reads that
 * withdrew their count on finding block set (each time), and the grace
 * periods writers waited. */
enum { EV_FAST_READ, EV_WITHDRAWN, EV_GRACE_PERIOD };

static void pcpu_read_lock_slow(struct pcpu_rwsem *s, uint32_t *mine)
{
	rss_finish_exit(s);
	for (;;) {
		/*
		 * A: count, fence, block; pairs with D in pcpu_write_lock
		 * (block, fence, count): Dekker's pattern.
		 */
		ll_fence(LL_SEQ_CST);
		if (ll_load(&s->block, LL_ACQUIRE) == 0)
			return;
		pcpu_count_dec(mine); /* block set: withdraw, wait, count again */
		ll_count(EV_WITHDRAWN);
		ll_wait_until(&s->block, VAL == 0);
		pcpu_count_inc(mine);
	}
}

static void pcpu_read_lock(void *lock, void *ctx)
{
	struct pcpu_rwsem *s = lock;
	uint32_t *mine = &s->cpu[ll_this_cpu()].count;

	/* count before looking: a preempted reader is already counted */
	pcpu_count_inc(mine);
	/* IDLE: in, the fast path; a writer reads counts a grace period later */
	if (ll_load(&s->rss, LL_ACQUIRE) == RSS_IDLE) {
		ll_count(EV_FAST_READ);
		return;
	}
	pcpu_read_lock_slow(s, mine);
}

static void pcpu_read_unlock(void *lock, void *ctx)
{
	struct pcpu_rwsem *s = lock;
	uint32_t *mine = &s->cpu[ll_this_cpu()].count;

	/* B: the section before the count drops; pairs with C in write_lock */
	if (ll_load(&s->rss, LL_RELAXED) != RSS_IDLE)
		ll_fence(LL_SEQ_CST);
	pcpu_count_dec(mine);
}

/* rcu_sync_enter(): readers are on the slow path when it returns. */
static void rss_enter(struct pcpu_rwsem *s)
{
	for (;;) {
		uint64_t v = ll_load(&s->rss, LL_ACQUIRE);

		switch (v & RSS_STATE_MASK) {
		case RSS_IDLE:
			/* (IDLE, 0) -> (PENDING, 1) */
			if (ll_cas(&s->rss, v, RSS_PENDING | RSS_WRITER, LL_ACQ_REL) != v)
				continue;
			ll_delay_ns(PCPU_RWSEM_GP_NS); /* synchronize_rcu() */
			ll_count(EV_GRACE_PERIOD);
			/* (PENDING, n) -> (PASSED, n) */
			(void)ll_fetch_add(&s->rss, RSS_PASSED - RSS_PENDING, LL_ACQ_REL);
			return;
		case RSS_PENDING:
			/* (PENDING, n) -> (PENDING, n+1), then wait for PASSED */
			if (ll_cas(&s->rss, v, v + RSS_WRITER, LL_ACQ_REL) != v)
				continue;
			ll_wait_until(&s->rss, (VAL & RSS_STATE_MASK) != RSS_PENDING);
			return;
		case RSS_PASSED: /* (PASSED, n) -> (PASSED, n+1) */
			if (ll_cas(&s->rss, v, v + RSS_WRITER, LL_ACQ_REL) == v)
				return;
			continue;
		default: /* (EXIT, 0) -> (PASSED, 1): no grace period needed */
			if (ll_cas(&s->rss, v, RSS_PASSED | RSS_WRITER, LL_ACQ_REL) == v)
				return;
			continue;
		}
	}
}

/* rcu_sync_exit(): the last writer starts the grace period after which
 * readers may take the fast path again. */
static void rss_exit(struct pcpu_rwsem *s)
{
	for (;;) {
		uint64_t v = ll_load(&s->rss, LL_RELAXED);
		uint64_t nv = v - RSS_WRITER;

		/* (PASSED, n) -> (PASSED, n-1); the last: (PASSED, 1) -> (EXIT, 0) */
		if (v >> 8 == 1) {
			ll_store(&s->idle_at, ll_now_ns() + PCPU_RWSEM_GP_NS, LL_RELAXED);
			nv = RSS_EXIT;
		}
		if (ll_cas(&s->rss, v, nv, LL_ACQ_REL) == v)
			return;
	}
}

static void pcpu_write_lock(void *lock, void *ctx)
{
	struct pcpu_rwsem *s = lock;
	unsigned n = ll_load(&s->ncpus, LL_RELAXED);

	rss_enter(s);
	/* block: 0 -> 1, writer-writer exclusion; pairs with write_unlock */
	while (ll_xchg(&s->block, 1, LL_ACQ_REL) != 0)
		ll_wait_until(&s->block, VAL == 0);
	ll_fence(LL_SEQ_CST); /* D: block, fence, count; pairs with A */
	for (unsigned i = 0; i < n; i++)
		ll_wait_until(&s->cpu[i].count, VAL == 0);
	ll_fence(LL_SEQ_CST); /* C: pairs with B in pcpu_read_unlock */
}

static void pcpu_write_unlock(void *lock, void *ctx)
{
	struct pcpu_rwsem *s = lock;

	/* block: 1 -> 0; pairs with the xchg in write_lock and reader waits */
	ll_store(&s->block, 0, LL_RELEASE);
	rss_exit(s);
}

const struct lock_algo lock_percpu_rwsem = {
	.name = "percpu-rwsem",
	.desc = "per-CPU reader counts, no atomics on the readers' fast path; a writer waits a 10 us grace period (assumed) and spins, not sleeps (Linux 3.7, in the rcu_sync form of the 2015 -v2 series)",
	.kind = LOCK_RWLOCK,
	.lock_size = sizeof(struct pcpu_rwsem),
	.lock_size_per_cpu = sizeof(struct pcpu_count),
	.init = pcpu_init,
	.read_lock = pcpu_read_lock,
	.read_unlock = pcpu_read_unlock,
	.write_lock = pcpu_write_lock,
	.write_unlock = pcpu_write_unlock,
	.counts = { "fast_read", "withdrawn", "grace_period" },
	.assumed = "a writer's 10 us grace period", /* PCPU_RWSEM_GP_NS */
};
