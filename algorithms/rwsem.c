/*
 * rwsem, rwsem-pv - the sleeping reader-writer semaphore of Linux 3.10.
 *
 * lib/rwsem.c and arch/x86/include/asm/rwsem.h as of Linux 3.10 (David
 * Howells' rwsem-xadd, with Michel Lespinasse's and Alex Shi's writer lock
 * stealing of 3.10): a count word that the fast paths change by one locked
 * add, and a list of sleeping waiters under a spinlock, wait_lock.  3.10
 * has no optimistic spinning (3.16 added it): a task that cannot have the
 * semaphore at once sleeps until it is given it (a reader) or until no one
 * is active (a writer).  mmap_sem is one: the rwsem that every page fault
 * takes for reading and mmap, munmap and mprotect take for writing.
 *
 * The two entries differ only in wait_lock.  rwsem's is the ticket lock
 * (algorithms/ticket.c: the algorithm of 3.10's x86 spinlock, its two
 * counters on two lines where the kernel has them in one word); rwsem-pv's
 * is the paravirtual one (algorithms/pv-ticket.c), as in a guest kernel with
 * the paravirtual ticket spinlocks, which made every spinlock, wait_lock
 * included, paravirtual.  Each is called through its catalogue entry.  A
 * waiter sleeps in ll_park: in a virtual machine its vCPU halts (docs/vm.md),
 * natively the thread waits in a futex.
 *
 * The count, 64-bit as on x86-64 (ACTIVE_MASK 2^32 - 1, WAITING_BIAS
 * -2^32, ACTIVE_WRITE_BIAS = WAITING_BIAS + 1), its common values:
 *
 *   0                     unlocked, nobody waits
 *   X                     X readers active or trying, nobody waits
 *   WAITING + X           X readers active or trying and waiters queued;
 *                         or a writer active or trying and X - 1 readers
 *                         trying, nobody queued (ACTIVE_WRITE_BIAS holds
 *                         a WAITING_BIAS of its own)
 *   WAITING               waiters queued, nobody active: a writer may
 *                         steal it here
 *   2 WAITING + X         waiters queued and a writer active or trying
 *                         (X - 1 readers trying)
 *
 * Transitions (the fast paths are one locked add each):
 *
 *   down_read    +1; in if the result is not negative, else down_read_failed
 *   up_read      -1; if the result is negative with no one active, wake
 *   down_write   +ACTIVE_WRITE_BIAS; in if no one was active before (even
 *                with waiters queued: the steal), else down_write_failed
 *   up_write     -ACTIVE_WRITE_BIAS; if the result is negative with no one
 *                active, wake
 *
 *   down_read_failed   under wait_lock: queue at the tail, take back the
 *                      read bias (adding WAITING_BIAS if the list was
 *                      empty); if no one is active, or this reader is the
 *                      first waiter and only readers are active, wake the
 *                      front; then sleep until a waker clears its task
 *   down_write_failed  under wait_lock: queue, take back the write bias
 *                      (WAITING_BIAS if the list was empty); if others were
 *                      queued and only readers are active, wake the readers
 *                      at the front; then, while someone is active, drop
 *                      wait_lock and sleep; once no one is, cmpxchg WAITING
 *                      -> ACTIVE_WRITE_BIAS (+ WAITING if others still
 *                      wait), dequeue itself
 *   wake               under wait_lock: a writer at the front is woken by
 *                      the wake of an unlock (not by a writer's own wake of
 *                      readers), not granted: it takes the semaphore
 *                      itself, or a stealer does first.  Readers at the
 *                      front: one read bias is added first (and taken back
 *                      if a writer stole the semaphore meanwhile), then the
 *                      rest of the readers up to the first writer in a
 *                      second add (WAITING_BIAS taken back if none is left
 *                      queued); each is dequeued, its task cleared, woken
 *
 * The wait list is doubly linked through a waiter record per cpu (the
 * kernel's rwsem_waiter on the sleeper's stack), named cpu + 1, 0 none:
 *
 *   line 0:      +-------+-------+------+--------------+
 *                | count | first | last |  (padding)   |
 *                +-------+-------+------+--------------+
 *   waiter k:    +------+------+------+------+
 *   (a line      | next | prev | task | type |   task: 1 while cpu k
 *   each)        +------+------+------+------+   sleeps, 0 once granted
 *   wait_lock:   the ticket or pv-ticket object, after the waiters, on
 *                lines of its own
 *
 * In the kernel count, wait_lock and wait_list share one line; here
 * wait_lock is the catalogue lock's object, on its own lines, as in the
 * seed-003 entries that measure ticket and pv-ticket alone.
 *
 * A wake-up of a reader that had not gone to sleep yet leaves it a kick
 * that returns its next ll_park at once (mem.h); the kernel's
 * wake_up_process of a running task leaves nothing.  Every park here and
 * in pv-ticket re-checks what it waits for, so that early return costs a
 * halt's time and, in pv-ticket's slow path, one more spin: a cost the
 * kernel does not have, on a path a wake-up rarely takes (the waker
 * clears the task while the reader is between wait_lock's release and its
 * first check).
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#include "internal_sleepers.h"

#define RWSEM_ACTIVE_MASK 0xffffffffLL
#define RWSEM_ACTIVE_BIAS 1LL
#define RWSEM_WAITING_BIAS (-RWSEM_ACTIVE_MASK - 1)
#define RWSEM_READ_BIAS RWSEM_ACTIVE_BIAS
#define RWSEM_WRITE_BIAS (RWSEM_WAITING_BIAS + RWSEM_ACTIVE_BIAS)

enum rwsem_type { RWSEM_WAITING_FOR_WRITE = 1, RWSEM_WAITING_FOR_READ = 2 };
enum rwsem_wake_type { RWSEM_WAKE_ANY, RWSEM_WAKE_READERS }; /* no downgrade_write: no READ_OWNED */

struct rwsem {
	int64_t count;
	struct sleepers wait_list;
} ll_cacheline_aligned;

struct rwsem_waiter {
	struct sleeper_link list;
	uint32_t task;
	uint32_t type;
} ll_cacheline_aligned;

/* The waiters follow the semaphore's line, then wait_lock's object: where
 * each lies takes no read of the semaphore's line. */
static struct rwsem_waiter *waiter(struct rwsem *s, uint32_t cpu1)
{
	return (struct rwsem_waiter *)(s + 1) + (cpu1 - 1);
}

static void *wait_lock_for(struct rwsem *s, unsigned ncpus)
{
	return (struct rwsem_waiter *)(s + 1) + ncpus;
}

static void *wait_lock_of(struct rwsem *s)
{
	return wait_lock_for(s, ll_nr_cpus());
}

static void rwsem_init_with(const struct lock_algo *wl, size_t per_cpu, void *lock, unsigned ncpus)
{
	struct rwsem *s = lock;

	s->count = 0;
	s->wait_list.first = s->wait_list.last = 0;
	wait_lock_init(wl, per_cpu, wait_lock_for(s, ncpus), ncpus);
}

static struct sleeper_link *link_of(void *lock, uint32_t cpu1)
{
	return &waiter(lock, cpu1)->list;
}

static int64_t atomic_update(struct rwsem *s, int64_t delta)
{
	return ll_fetch_add(&s->count, delta, LL_SEQ_CST) + delta;
}

/* wake_up_process: the task is not asleep when it is the waker itself */
static void wake_up(uint32_t cpu1)
{
	if (cpu1 - 1 != ll_this_cpu())
		ll_unpark(cpu1 - 1);
}

/* __rwsem_do_wake: wait_lock held, the list not empty. */
static void do_wake(struct rwsem *s, enum rwsem_wake_type type)
{
	uint32_t front = ll_load(&s->wait_list.first, LL_RELAXED), w1 = front, next;
	int64_t adjustment = RWSEM_READ_BIAS, woken = 0;

	if (ll_load(&waiter(s, front)->type, LL_RELAXED) == RWSEM_WAITING_FOR_WRITE) {
		if (type == RWSEM_WAKE_ANY)
			wake_up(front); /* not granted: it, or a stealer, takes it */
		return;
	}
	for (;;) {
		/* count: c -> c + 1, a reader's grant ahead of the count */
		int64_t old = atomic_update(s, adjustment) - adjustment;

		if (old >= RWSEM_WAITING_BIAS)
			break;
		/* a writer stole it: undo; retry only if it left meanwhile */
		if (atomic_update(s, -adjustment) & RWSEM_ACTIVE_MASK)
			return;
	}
	/* the readers at the front, up to the first writer */
	do {
		woken++;
		next = ll_load(&waiter(s, w1)->list.next, LL_RELAXED);
		if (!next)
			break;
		w1 = next;
	} while (ll_load(&waiter(s, w1)->type, LL_RELAXED) != RWSEM_WAITING_FOR_WRITE);
	adjustment = woken * RWSEM_READ_BIAS - adjustment;
	if (!next)
		adjustment -= RWSEM_WAITING_BIAS; /* nobody left waiting */
	if (adjustment)
		(void)atomic_update(s, adjustment);

	w1 = front;
	while (woken--) {
		struct rwsem_waiter *w = waiter(s, w1);
		uint32_t cpu1 = w1;

		w1 = ll_load(&w->list.next, LL_RELAXED);
		ll_fence(LL_SEQ_CST);
		/* task: 1 -> 0: granted; pairs with the acquire in down_read_failed */
		ll_store(&w->task, 0, LL_RELEASE);
		wake_up(cpu1);
	}
	sleepers_cut_before(&s->wait_list, s, link_of, w1);
}

/* rwsem_wake: up_read or up_write left waiters and no one active. */
static void rwsem_wake(const struct lock_algo *wl, struct rwsem *s)
{
	wl->lock(wait_lock_of(s), NULL);
	if (!sleepers_empty(&s->wait_list))
		do_wake(s, RWSEM_WAKE_ANY);
	wl->unlock(wait_lock_of(s), NULL);
}

/* ------------------------------------------------------------- the sides */

static void down_read_failed(const struct lock_algo *wl, struct rwsem *s)
{
	uint32_t me1 = ll_this_cpu() + 1;
	struct rwsem_waiter *w = waiter(s, me1);
	int64_t adjustment = -RWSEM_READ_BIAS, count;

	ll_store(&w->type, RWSEM_WAITING_FOR_READ, LL_RELAXED);
	ll_store(&w->task, 1, LL_RELAXED);
	wl->lock(wait_lock_of(s), NULL);
	if (sleepers_empty(&s->wait_list))
		adjustment += RWSEM_WAITING_BIAS;
	sleepers_add_tail(&s->wait_list, s, link_of, me1);
	count = atomic_update(s, adjustment);
	/* no one active, or only readers and I am the first waiter: join them */
	if (count == RWSEM_WAITING_BIAS ||
	    (count > RWSEM_WAITING_BIAS && adjustment != -RWSEM_READ_BIAS))
		do_wake(s, RWSEM_WAKE_ANY);
	wl->unlock(wait_lock_of(s), NULL);

	while (ll_load(&w->task, LL_ACQUIRE)) /* pairs with the release in do_wake */
		ll_park();
}

static void down_write_failed(const struct lock_algo *wl, struct rwsem *s)
{
	uint32_t me1 = ll_this_cpu() + 1;
	int64_t adjustment = -RWSEM_WRITE_BIAS, count;

	ll_store(&waiter(s, me1)->type, RWSEM_WAITING_FOR_WRITE, LL_RELAXED);
	wl->lock(wait_lock_of(s), NULL);
	if (sleepers_empty(&s->wait_list))
		adjustment += RWSEM_WAITING_BIAS;
	sleepers_add_tail(&s->wait_list, s, link_of, me1);
	count = atomic_update(s, adjustment);
	/* others queued before me and only readers active: wake their readers */
	if (count > RWSEM_WAITING_BIAS && adjustment == -RWSEM_WRITE_BIAS)
		do_wake(s, RWSEM_WAKE_READERS);

	for (;;) {
		if (!(count & RWSEM_ACTIVE_MASK)) {
			int64_t want = RWSEM_WRITE_BIAS;

			if (ll_load(&s->wait_list.first, LL_RELAXED) !=
			    ll_load(&s->wait_list.last, LL_RELAXED))
				want += RWSEM_WAITING_BIAS; /* others still wait */
			/* count: WAITING -> WRITE_BIAS (+ WAITING), no one active */
			if (ll_load(&s->count, LL_RELAXED) == RWSEM_WAITING_BIAS &&
			    ll_cas(&s->count, RWSEM_WAITING_BIAS, want, LL_SEQ_CST) == RWSEM_WAITING_BIAS)
				break;
		}
		wl->unlock(wait_lock_of(s), NULL);
		do
			ll_park();
		while ((count = ll_load(&s->count, LL_ACQUIRE)) & RWSEM_ACTIVE_MASK);
		wl->lock(wait_lock_of(s), NULL);
	}
	sleepers_del(&s->wait_list, s, link_of, me1);
	wl->unlock(wait_lock_of(s), NULL);
}

static void down_read(const struct lock_algo *wl, void *lock)
{
	struct rwsem *s = lock;

	/* count: c -> c + 1; in when the result is not negative */
	if (atomic_update(s, RWSEM_READ_BIAS) < 0)
		down_read_failed(wl, s);
}

static void up_read(const struct lock_algo *wl, void *lock)
{
	struct rwsem *s = lock;
	/* count: c -> c - 1 */
	int64_t count = atomic_update(s, -RWSEM_READ_BIAS);

	if (count < 0 && !(count & RWSEM_ACTIVE_MASK))
		rwsem_wake(wl, s);
}

static void down_write(const struct lock_algo *wl, void *lock)
{
	struct rwsem *s = lock;
	/* count: c -> c + WRITE_BIAS; in when no one was active */
	int64_t old = atomic_update(s, RWSEM_WRITE_BIAS) - RWSEM_WRITE_BIAS;

	if (old & RWSEM_ACTIVE_MASK)
		down_write_failed(wl, s);
}

static void up_write(const struct lock_algo *wl, void *lock)
{
	struct rwsem *s = lock;
	/* count: c -> c - WRITE_BIAS */
	int64_t count = atomic_update(s, -RWSEM_WRITE_BIAS);

	if (count < 0 && !(count & RWSEM_ACTIVE_MASK))
		rwsem_wake(wl, s);
}

/* ------------------------------------------------------ the two entries */

#define RWSEM_ENTRY(ident, wl, per_cpu)                                                            \
	static void ident##_init(void *lock, unsigned ncpus)                                       \
	{                                                                                          \
		rwsem_init_with(&wl, per_cpu, lock, ncpus);                                        \
	}                                                                                          \
	static void ident##_read_lock(void *lock, void *ctx)                                       \
	{                                                                                          \
		down_read(&wl, lock);                                                              \
	}                                                                                          \
	static void ident##_read_unlock(void *lock, void *ctx)                                     \
	{                                                                                          \
		up_read(&wl, lock);                                                                \
	}                                                                                          \
	static void ident##_write_lock(void *lock, void *ctx)                                      \
	{                                                                                          \
		down_write(&wl, lock);                                                             \
	}                                                                                          \
	static void ident##_write_unlock(void *lock, void *ctx)                                    \
	{                                                                                          \
		up_write(&wl, lock);                                                               \
	}

RWSEM_ENTRY(rwsem_tkt, lock_ticket, WAIT_LOCK_TICKET_PER_CPU)
RWSEM_ENTRY(rwsem_pv, lock_pv_ticket, WAIT_LOCK_PV_PER_CPU)

const struct lock_algo lock_rwsem = {
	.name = "rwsem",
	.desc = "sleeping rw semaphore of Linux 3.10 (rwsem-xadd): waiters sleep on a list under a ticket wait_lock; no optimistic spinning",
	.kind = LOCK_RWLOCK,
	.lock_size = sizeof(struct rwsem) + WAIT_LOCK_SIZE,
	.lock_size_per_cpu = WAIT_LOCK_TICKET_PER_CPU + sizeof(struct rwsem_waiter),
	.init = rwsem_tkt_init,
	.read_lock = rwsem_tkt_read_lock,
	.read_unlock = rwsem_tkt_read_unlock,
	.write_lock = rwsem_tkt_write_lock,
	.write_unlock = rwsem_tkt_write_unlock,
	.parks = true,
};

const struct lock_algo lock_rwsem_pv = {
	.name = "rwsem-pv",
	.desc = "rwsem (Linux 3.10) whose wait_lock is pv-ticket, as in a guest with the paravirtual spinlocks",
	.kind = LOCK_RWLOCK,
	.lock_size = sizeof(struct rwsem) + WAIT_LOCK_SIZE,
	.lock_size_per_cpu = WAIT_LOCK_PV_PER_CPU + sizeof(struct rwsem_waiter),
	.init = rwsem_pv_init,
	.read_lock = rwsem_pv_read_lock,
	.read_unlock = rwsem_pv_read_unlock,
	.write_lock = rwsem_pv_write_lock,
	.write_unlock = rwsem_pv_write_unlock,
	.assumed = "10 ns a spin iteration before a halt", /* its pv-ticket wait_lock */
	.parks = true,
};
