/*
 * sim/storebuf.h - the per-core store buffers of the tso and pso memory
 * models (sim/storebuf.c) and the weak-memory check (sim/check.c).
 */
#ifndef SIM_STOREBUF_H
#define SIM_STOREBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <locklab/args.h>
#include <locklab/lock.h>

#include "topology.h"

struct sim_actor;

/* --memory-model sc|tso|pso: -1 until given (the topology's then). */
int sb_parse_option(const char *opt, const char *val, char *err, size_t errlen);
enum topo_memory_model sb_model(void);
/* Was the model given by --memory-model (or else is it the topology's)? */
bool sb_model_given(void);
const char *sb_model_name(enum topo_memory_model m);
int sb_model_by_name(const char *name, enum topo_memory_model *m);
void sb_set_model(int m); /* -1: the topology's */

/* Adversarial drains (the check): each store waits a seeded random delay
 * of up to max_ps before it may drain; max_ps 0 turns it off. */
void sb_set_adversary(uint64_t seed, uint64_t max_ps);

/* sim/memops.c's hooks; each returns at once when the model is sc. */
bool sb_store(struct sim_actor *a, volatile void *p, unsigned size, uint64_t v, int ord);
bool sb_forward(struct sim_actor *a, const volatile void *p, unsigned size, uint64_t *v);
void sb_drain_due(struct sim_actor *a);
void sb_drain_all(struct sim_actor *a);
void sb_fence(struct sim_actor *a, int ord);
bool sb_prefetchw(struct sim_actor *a, const volatile void *p);
bool sb_written_ahead(struct sim_actor *a, volatile void *p);
uint64_t sb_stall_ps(void); /* drain time the cores waited for, this run */
unsigned sb_buffered(struct sim_actor *a); /* entries a has not drained */

/* sim/memops.c: a store (drain: from the buffer, untold to the observer),
 * or a write miss with no store (a prefetch), performed now through the
 * coherence model. */
void sim_store_now(struct sim_actor *a, volatile void *p, unsigned size, uint64_t v, bool drain);
void sim_prefetch_now(struct sim_actor *a, const volatile void *p);

/* sim/check.c: one run of lock a under model m with adversarial drains,
 * seed s.  Returns 1 on a violation (why says it), 0 if it passed, -1 when
 * the run could not be made. */
int sim_check_one(const struct lock_algo *a, enum topo_memory_model m, uint64_t seed, char *why,
		  size_t len);
extern const struct ll_command sim_check_cmd;

#endif
