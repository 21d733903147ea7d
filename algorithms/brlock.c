/*
 * brlock - the big-reader lock: one spinlock per CPU.
 *
 * The brlock of Linux 2.4, and Nick Piggin's lglock ("local/global lock",
 * introduced in 2.6.36 for the file-table and vfsmount locks): a reader
 * takes only its own CPU's spinlock, so readers on different CPUs share no
 * line at all; a writer takes every CPU's spinlock, in CPU order, so a
 * write costs as many lock acquisitions (and misses) as there are CPUs.
 * Each per-CPU lock is the 32-bit ticket lock of internal_ticket.h, whose
 * acquire and release order the critical sections (docs/rwlocks.md).
 *
 *   line 0:     +-------+-----------------+
 *               | ncpus |                 |   read-only after init
 *               +-------+-----------------+
 *   line 1+i:   +----------------+--------+
 *               | ticket (u32)   |        |   cpu i's lock
 *               +----------------+--------+
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#include "internal_ticket.h"

struct br_cpu {
	struct tkt_lock lock;
} ll_cacheline_aligned;

struct brlock {
	uint32_t ncpus ll_cacheline_aligned;
	struct br_cpu cpu[];
};

static void br_init(void *lock, unsigned ncpus)
{
	struct brlock *l = lock;

	l->ncpus = ncpus;
	for (unsigned i = 0; i < ncpus; i++)
		l->cpu[i].lock.word = 0;
}

static void br_read_lock(void *lock, void *ctx)
{
	struct brlock *l = lock;

	tkt_lock(&l->cpu[ll_this_cpu()].lock); /* only my line */
}

static void br_read_unlock(void *lock, void *ctx)
{
	struct brlock *l = lock;

	tkt_unlock(&l->cpu[ll_this_cpu()].lock);
}

static void br_write_lock(void *lock, void *ctx)
{
	struct brlock *l = lock;
	unsigned n = ll_load(&l->ncpus, LL_RELAXED);

	/* cpu[0] first: writers queue there, so they cannot deadlock */
	for (unsigned i = 0; i < n; i++)
		tkt_lock(&l->cpu[i].lock);
}

static void br_write_unlock(void *lock, void *ctx)
{
	struct brlock *l = lock;
	unsigned n = ll_load(&l->ncpus, LL_RELAXED);

	for (unsigned i = 0; i < n; i++)
		tkt_unlock(&l->cpu[i].lock);
}

const struct lock_algo lock_brlock = {
	.name = "brlock",
	.desc = "big-reader lock: a spinlock per CPU; readers take theirs, writers take all (Linux lglock)",
	.kind = LOCK_RWLOCK,
	.lock_size = sizeof(struct brlock),
	.lock_size_per_cpu = sizeof(struct br_cpu),
	.init = br_init,
	.read_lock = br_read_lock,
	.read_unlock = br_read_unlock,
	.write_lock = br_write_lock,
	.write_unlock = br_write_unlock,
};
