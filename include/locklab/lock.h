/*
 * locklab/lock.h - the shape every lock algorithm has.
 *
 * One file in algorithms/ defines one `const struct lock_algo`, and one line in
 * core/registry.c lists it.  Everything an algorithm touches goes through
 * <locklab/mem.h>.
 *
 * Memory: the workload allocates
 *   - the lock object: lock_size + ncpus * lock_size_per_cpu bytes, zeroed,
 *     64-byte aligned, home node chosen by the workload, passed to init();
 *   - a context per (thread, lock): ctx_size bytes, zeroed, 64-byte aligned,
 *     on the thread's node (an MCS qnode, a CLH node, a ticket slot index).
 * A thread holds at most one lock of a run at a time.
 */
#ifndef LOCKLAB_LOCK_H
#define LOCKLAB_LOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum lock_kind {
	LOCK_MUTEX = 0,
	LOCK_RWLOCK = 1,
	LOCK_REFCOUNT = 2,
};

/* The most counts a lock may keep of its own paths (struct lock_algo's
 * counts, ll_count): eight 64-bit counts fill a cpu's line of them. */
#define LL_MAX_COUNTS 8

struct lock_algo {
	const char *name; /* as typed after --lock */
	const char *desc; /* one line for `list` */
	enum lock_kind kind;
	size_t lock_size;
	size_t lock_size_per_cpu;
	size_t ctx_size;
	/* The most threads the algorithm is correct for; 0: no bound of its
	 * own.  A run that asks for more is refused (core/cli.c). */
	unsigned max_threads;

	/* Every kind: prepare a zeroed object for ncpus threads. */
	void (*init)(void *lock, unsigned ncpus);
	/* Optional: release what init acquired outside the object. */
	void (*destroy)(void *lock);

	/* LOCK_MUTEX */
	void (*lock)(void *lock, void *ctx);
	void (*unlock)(void *lock, void *ctx);
	bool (*trylock)(void *lock, void *ctx); /* optional */

	/* LOCK_RWLOCK */
	void (*read_lock)(void *lock, void *ctx);
	void (*read_unlock)(void *lock, void *ctx);
	void (*write_lock)(void *lock, void *ctx);
	void (*write_unlock)(void *lock, void *ctx);

	/* LOCK_REFCOUNT: the object holds a count; get adds one, put drops
	 * one; count() reads it (for checks, not on the fast path). */
	void (*get)(void *obj, void *ctx);
	void (*put)(void *obj, void *ctx);
	int64_t (*count)(void *obj);

	/* Optional: names of the paths the lock counts with ll_count(k), k
	 * the index here ("cmpxchg", "cmpxchg_failed", ...): a run reports
	 * each count (the table's counts line, the CSV's lock_counts column). */
	const char *counts[LL_MAX_COUNTS + 1];

	/* Optional: the lock's own constants that no source gives, marked
	 * *assumed* where its file defines them, as a phrase for the table's
	 * "assumed" line ("a writer's 10 us grace period"). */
	const char *assumed;
	/* Its waiters park (ll_park): outside --vm a halt, kick and wake cost
	 * the simulator's assumed SIM_HALT_PS, SIM_KICK_PS, SIM_WAKE_PS. */
	bool parks;
};

static inline const char *lock_kind_name(enum lock_kind k)
{
	switch (k) {
	case LOCK_MUTEX:
		return "mutex";
	case LOCK_RWLOCK:
		return "rwlock";
	case LOCK_REFCOUNT:
		return "refcount";
	}
	return "?";
}

/* core/registry.c: the catalogue (algorithms/ plus the backend's own). */
size_t lock_catalogue_size(void);
const struct lock_algo *lock_catalogue_get(size_t i);
const struct lock_algo *lock_find(const char *name);
/* The catalogue's lock whose name is nearest to name (a typo, another
 * case): at most two letters' edits away, else NULL. */
const struct lock_algo *lock_nearest(const char *name);

#endif
