/*
 * algorithms/internal_sleepers.h - the list of sleeping waiters that a
 * sleeping lock keeps under its wait_lock (Linux's wait_list of struct
 * list_head, here named by cpu + 1, 0 for none).
 *
 *   in the lock:   +-------+------+
 *                  | first | last |        0: empty
 *                  +-------+------+
 *   in cpu k's     +------+------+
 *   record:        | next | prev |        cpu + 1 of its neighbours
 *                  +------+------+
 *
 * Every access is relaxed: the caller holds wait_lock, whose acquire and
 * release order them.  algorithms/rwsem.c and algorithms/mutex.c use it;
 * each says where a cpu's record lies (link_of).
 *
 * wait_lock itself is a catalogue lock, ticket or pv-ticket, called through
 * its entry: its object is WAIT_LOCK_SIZE bytes and its per-cpu part
 * WAIT_LOCK_TICKET_PER_CPU or WAIT_LOCK_PV_PER_CPU bytes a cpu, constants
 * that a lock's own sizes need at compile time and wait_lock_init checks
 * against the catalogue.
 */
#ifndef ALGORITHMS_INTERNAL_SLEEPERS_H
#define ALGORITHMS_INTERNAL_SLEEPERS_H

#include <assert.h>

#include <locklab/lock.h>
#include <locklab/mem.h>

extern const struct lock_algo lock_ticket, lock_pv_ticket;

#define WAIT_LOCK_SIZE 128u          /* ticket's two lines; pv-ticket's two */
#define WAIT_LOCK_TICKET_PER_CPU 0u
#define WAIT_LOCK_PV_PER_CPU 128u    /* pv-ticket's slots, two a cpu */

/* Prepare wait_lock's object at obj for ncpus threads; wl's sizes must be
 * the ones the lock was laid out for (per_cpu a cpu). */
static inline void wait_lock_init(const struct lock_algo *wl, size_t per_cpu, void *obj,
				  unsigned ncpus)
{
	assert(wl->lock_size == WAIT_LOCK_SIZE && wl->lock_size_per_cpu == per_cpu &&
	       wl->ctx_size == 0);
	wl->init(obj, ncpus);
}

struct sleepers {
	uint32_t first, last;
};

struct sleeper_link {
	uint32_t next, prev;
};

/* cpu1's record's link in the lock object lock */
typedef struct sleeper_link *(*sleeper_link_fn)(void *lock, uint32_t cpu1);

static inline bool sleepers_empty(struct sleepers *l)
{
	return !ll_load(&l->first, LL_RELAXED);
}

static inline void sleepers_add_tail(struct sleepers *l, void *lock, sleeper_link_fn link_of,
				     uint32_t me1)
{
	struct sleeper_link *me = link_of(lock, me1);
	uint32_t last = ll_load(&l->last, LL_RELAXED);

	ll_store(&me->next, 0, LL_RELAXED);
	ll_store(&me->prev, last, LL_RELAXED);
	if (last)
		ll_store(&link_of(lock, last)->next, me1, LL_RELAXED);
	else
		ll_store(&l->first, me1, LL_RELAXED);
	ll_store(&l->last, me1, LL_RELAXED);
}

static inline void sleepers_del(struct sleepers *l, void *lock, sleeper_link_fn link_of, uint32_t me1)
{
	struct sleeper_link *me = link_of(lock, me1);
	uint32_t next = ll_load(&me->next, LL_RELAXED), prev = ll_load(&me->prev, LL_RELAXED);

	if (prev)
		ll_store(&link_of(lock, prev)->next, next, LL_RELAXED);
	else
		ll_store(&l->first, next, LL_RELAXED);
	if (next)
		ll_store(&link_of(lock, next)->prev, prev, LL_RELAXED);
	else
		ll_store(&l->last, prev, LL_RELAXED);
}

/* Drop the sleepers before `from` (cpu + 1, or 0 for all): from is first. */
static inline void sleepers_cut_before(struct sleepers *l, void *lock, sleeper_link_fn link_of,
				       uint32_t from)
{
	ll_store(&l->first, from, LL_RELAXED);
	if (from)
		ll_store(&link_of(lock, from)->prev, 0, LL_RELAXED);
	else
		ll_store(&l->last, 0, LL_RELAXED);
}

#endif
