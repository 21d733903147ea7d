/*
 * Simulator backend of <locklab/mem.h>: every operation is a call into
 * sim/memops.c, which asks the coherence model (sim/coherence.c) what the
 * access costs given the line's state, lets simulated time pass, and then
 * performs the access on real memory.  Under --memory-model sc the
 * ordering argument is ignored; under tso and pso stores pass through a
 * store buffer (sim/storebuf.c) and the order of stores and fences counts.
 */
#ifndef LL_BACKEND_MEM_H
#define LL_BACKEND_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sim_rmw { SIM_XCHG, SIM_ADD, SIM_OR, SIM_AND, SIM_CAS };

uint64_t sim_load(const volatile void *p, unsigned size);
void sim_store(volatile void *p, unsigned size, uint64_t v, int ord);
/* All read-modify-writes; for SIM_CAS `v` is the new value and `old` the
 * expected one.  Returns the previous value (zero-extended). */
uint64_t sim_rmw(volatile void *p, unsigned size, enum sim_rmw op, uint64_t v, uint64_t old);
void sim_fence(int ord);
void sim_prefetchw(const volatile void *p);
void sim_wait_change(const volatile void *p, unsigned size, uint64_t seen, uint64_t deadline_ns);
/* ll_wait_until's wait: the waiter's next operation is a load of p, which
 * whoever runs when the waiter is woken may begin for it (sim/memops.c). */
void sim_wait_change_then_load(const volatile void *p, unsigned size, uint64_t seen);

#define ll__sz(p) ((unsigned)sizeof(*(p)))
#define ll__u64(v) ((uint64_t)(v))
#define ll_load(p, ord) ((void)(ord), (__typeof__(*(p)))sim_load((p), ll__sz(p)))
#define ll_store(p, v, ord) sim_store((p), ll__sz(p), ll__u64(v), (ord))
#define ll__rmw(p, op, v, old) ((__typeof__(*(p)))sim_rmw((p), ll__sz(p), (op), ll__u64(v), ll__u64(old)))
#define ll_cas(p, old, new, ord) ((void)(ord), ll__rmw((p), SIM_CAS, (new), (old)))
#define ll_xchg(p, v, ord) ((void)(ord), ll__rmw((p), SIM_XCHG, (v), 0))
#define ll_fetch_add(p, v, ord) ((void)(ord), ll__rmw((p), SIM_ADD, (v), 0))
#define ll_fetch_or(p, v, ord) ((void)(ord), ll__rmw((p), SIM_OR, (v), 0))
#define ll_fetch_and(p, v, ord) ((void)(ord), ll__rmw((p), SIM_AND, (v), 0))
#define ll_fence(ord) sim_fence(ord)
#define ll_prefetchw(p) sim_prefetchw(p)
#define ll_wait_change(p, seen) sim_wait_change((p), ll__sz(p), ll__u64(seen), UINT64_MAX)
#define ll_wait_change_until(p, seen, dl) sim_wait_change((p), ll__sz(p), ll__u64(seen), (dl))
#define ll__wait_then_load(p, seen) sim_wait_change_then_load((p), ll__sz(p), ll__u64(seen))

void ll_cpu_relax(void);
uint64_t ll_now_ns(void);

/* Reading the simulated clock costs no event and no simulated time, so the
 * workload may read it where natively it would not (core/workload.c). */
#define LL_CLOCK_IS_FREE 1
void ll_mem_tag(const void *p, size_t size, int tag);
void ll_sync(void);

#endif
