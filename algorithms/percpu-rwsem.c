/*
 * percpu-rwsem - Linux's per-CPU reader-writer semaphore, spinning.
 *
 * Mikulas Patocka's percpu_rw_semaphore (Linux 3.8, an idea of Eric
 * Dumazet's), in the form Oleg Nesterov and Peter Zijlstra later gave it:
 * rcu_sync switches readers between a fast and a slow path, and a block
 * word shuts the door (kernel/locking/percpu-rwsem.c, kernel/rcu/sync.c).
 * Each reader counts itself in a counter of its own CPU, with a plain
 * load and store: no atomic instruction and no fence on the reader's fast
 * path, and no line that another reader writes.  The price is paid by the
 * writer: it first switches readers to a slow path and waits for an RCU
 * grace period so that every reader has seen the switch, then shuts the
 * door (block) and waits until the per-CPU counts drain.
 *
 * The grace period is a constant here, PCPU_RWSEM_GP_NS = 10 us: the
 * order of an expedited RCU grace period on an idle machine.  A normal
 * grace period lasts milliseconds, so this is the cheapest writer the
 * design allows.  Readers here are threads that cannot disable
 * preemption, so a reader counts itself *before* it looks at the state
 * (Linux looks first, with preemption off): a preempted reader is then
 * already counted, and the grace period only has to outlast the store
 * buffer that may hold the count, which it does by orders of magnitude.
 *
 * In Linux a waiting reader or writer sleeps and is woken; here it spins
 * on the word it waits for (in the simulator it parks on the line and is
 * woken when the line is written), and the writer waits on each reader's
 * counter instead of being woken by the last reader.
 *
 * The lock object:
 *
 *   line 0:     +-----------+-----------+-------+
 *               | rss       | idle_at   | ncpus |  read by every reader: a
 *               +-----------+-----------+-------+  shared line, written
 *                 state | writers << 8             only when writers come
 *                                                  and go
 *   line 1:     +-------+------------------------+
 *               | block |                        |  1 while a writer is in
 *               +-------+------------------------+  or draining readers
 *   line 2+i:   +-------+------------------------+
 *               | count |                        |  cpu i's readers: written
 *               +-------+------------------------+  only by cpu i
 *
 * rss is rcu_sync: state IDLE (readers take the fast path), PENDING (a
 * writer waits for the grace period), PASSED (every reader takes the slow
 * path), EXIT (the last writer left; readers stay slow for one more grace
 * period, until idle_at).  Linux ends EXIT from an RCU callback; here the
 * first slow reader after idle_at ends it, and a writer that comes during
 * EXIT needs no grace period, as in Linux.
 *
 * Transitions (state, writers), block, count[me]:
 *
 *   read_lock:   count[me] += 1                    plain load and store
 *                rss == IDLE (acquire): in         fast path: nothing else
 *                otherwise, slow path:
 *                  EXIT and now >= idle_at: cas(rss, EXIT, IDLE)
 *                  fence                           A: pairs with D
 *                  block == 0: in
 *                  else count[me] -= 1, wait until block == 0, retry
 *   read_unlock: rss == IDLE: count[me] -= 1       fast path
 *                otherwise: fence, count[me] -= 1  B: pairs with C
 *
 *   write_lock:  enter rcu_sync:
 *                  (IDLE, 0)    --cas--> (PENDING, 1), wait the grace
 *                               period, --fetch_add--> (PASSED, n)
 *                  (PENDING, n) --cas--> (PENDING, n+1), wait for PASSED
 *                  (PASSED, n)  --cas--> (PASSED, n+1)
 *                  (EXIT, 0)    --cas--> (PASSED, 1)
 *                block: 0 --xchg(1)--> 1           writer-writer exclusion;
 *                                                  a full barrier: D
 *                wait until count[i] == 0 for every cpu i
 *                fence                             C: pairs with B
 *   write_unlock: block: 1 --store(0)--> 0
 *                leave rcu_sync: (PASSED, n) --cas--> (PASSED, n-1), or
 *                  for the last writer idle_at = now + grace period and
 *                  (PASSED, 1) --cas--> (EXIT, 0)
 *
 * Why no reader is missed: a reader that saw IDLE had counted itself
 * before it looked, and the writer looks at the counts only a grace period
 * after it left IDLE.  A slow reader and the writer form Dekker's pattern
 * (count, fence, block) against (block, fence, count).  Once block is set,
 * a reader that arrives counts itself, sees block and withdraws; so a count
 * the writer saw at zero stays zero for any reader that matters.
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#define PCPU_RWSEM_GP_NS 10000 /* the grace period: 10 us */

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
		(void)ll_cas(&s->rss, RSS_EXIT, RSS_IDLE, LL_ACQ_REL);
}

static void pcpu_read_lock_slow(struct pcpu_rwsem *s, uint32_t *mine)
{
	rss_finish_exit(s);
	for (;;) {
		ll_fence(LL_SEQ_CST);
		if (ll_load(&s->block, LL_ACQUIRE) == 0)
			return;
		pcpu_count_dec(mine);
		ll_wait_until(&s->block, VAL == 0);
		pcpu_count_inc(mine);
	}
}

static void pcpu_read_lock(void *lock, void *ctx)
{
	struct pcpu_rwsem *s = lock;
	uint32_t *mine = &s->cpu[ll_this_cpu()].count;

	pcpu_count_inc(mine);
	if (ll_load(&s->rss, LL_ACQUIRE) == RSS_IDLE)
		return;
	pcpu_read_lock_slow(s, mine);
}

static void pcpu_read_unlock(void *lock, void *ctx)
{
	struct pcpu_rwsem *s = lock;
	uint32_t *mine = &s->cpu[ll_this_cpu()].count;

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
			if (ll_cas(&s->rss, v, RSS_PENDING | RSS_WRITER, LL_ACQ_REL) != v)
				continue;
			ll_delay_ns(PCPU_RWSEM_GP_NS); /* synchronize_rcu() */
			(void)ll_fetch_add(&s->rss, RSS_PASSED - RSS_PENDING, LL_ACQ_REL);
			return;
		case RSS_PENDING:
			if (ll_cas(&s->rss, v, v + RSS_WRITER, LL_ACQ_REL) != v)
				continue;
			ll_wait_until(&s->rss, (VAL & RSS_STATE_MASK) != RSS_PENDING);
			return;
		case RSS_PASSED:
			if (ll_cas(&s->rss, v, v + RSS_WRITER, LL_ACQ_REL) == v)
				return;
			continue;
		default: /* RSS_EXIT: readers never went back to the fast path */
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
	while (ll_xchg(&s->block, 1, LL_ACQ_REL) != 0)
		ll_wait_until(&s->block, VAL == 0);
	ll_fence(LL_SEQ_CST);
	for (unsigned i = 0; i < n; i++)
		ll_wait_until(&s->cpu[i].count, VAL == 0);
	ll_fence(LL_SEQ_CST);
}

static void pcpu_write_unlock(void *lock, void *ctx)
{
	struct pcpu_rwsem *s = lock;

	ll_store(&s->block, 0, LL_RELEASE);
	rss_exit(s);
}

const struct lock_algo lock_percpu_rwsem = {
	.name = "percpu-rwsem",
	.desc = "per-CPU reader counts, no atomics for readers; writer waits a 10 us grace period (Linux 3.8+)",
	.kind = LOCK_RWLOCK,
	.lock_size = sizeof(struct pcpu_rwsem),
	.lock_size_per_cpu = sizeof(struct pcpu_count),
	.init = pcpu_init,
	.read_lock = pcpu_read_lock,
	.read_unlock = pcpu_read_unlock,
	.write_lock = pcpu_write_lock,
	.write_unlock = pcpu_write_unlock,
};
