/*
 * locklab/mem.h - the memory-operation interface every algorithm is written
 * against.
 *
 * An algorithm includes this file and nothing backend-specific.  The build
 * compiles each algorithm twice; each variant puts its own directory first on
 * the include path, so <ll_backend_mem.h> resolves to
 *
 *   native/include/ll_backend_mem.h   inline __atomic builtins, pause loops,
 *                                     clock_gettime, futexes
 *   sim/include/ll_backend_mem.h      calls into the simulator, which charges
 *                                     the simulated cost of the access on the
 *                                     modelled machine and performs it on real
 *                                     memory at the right simulated time
 *
 * Semantics follow the Linux kernel's:
 *
 *   ll_load(p, ord)              READ_ONCE / smp_load_acquire
 *   ll_store(p, v, ord)          WRITE_ONCE / smp_store_release
 *   ll_cas(p, old, new, ord)     cmpxchg: returns the value found; the swap
 *                                happened iff that equals old.  A failed cas
 *                                still takes the line exclusive (as on x86).
 *   ll_xchg(p, v, ord)           returns the previous value
 *   ll_fetch_add/or/and(p,v,ord) return the previous value
 *   ll_fence(ord)                smp_mb() and friends
 *   ll_prefetchw(p)              prefetchw: start taking p's line exclusive
 *                                without waiting (natively
 *                                __builtin_prefetch(p, 1); in the simulator
 *                                a write miss drained in the background
 *                                under tso and pso, nothing under sc)
 *
 * p may point to any naturally aligned 8-, 16-, 32- or 64-bit integer; the
 * operations are type-generic like the kernel's.  ord is one of LL_RELAXED,
 * LL_ACQUIRE, LL_RELEASE, LL_ACQ_REL, LL_SEQ_CST.  The native backend honours
 * it.  The simulator's --memory-model sc ignores it (a simulated access
 * happens at one instant of simulated time, in a single global order); tso
 * and pso (the default on x86-class topologies) buffer plain stores per
 * core, so a store followed by a load of another address may be reordered
 * unless a seq_cst fence or a locked read-modify-write lies between them,
 * and under pso stores to different lines may become visible out of order
 * unless a release store or fence orders them (docs/storebuf.md).
 *
 * Waiting:
 *
 *   ll_wait_until(p, cond)       smp_cond_load_acquire: re-reads *p into VAL
 *                                until cond (an expression of VAL) holds and
 *                                returns VAL.  Natively a pause loop.  In the
 *                                simulator the waiter parks on the cache line
 *                                and is woken when the line is written, then
 *                                re-reads it (a miss, which whoever runs at the
 *                                wake-up may make for it): a spin costs events
 *                                per write of the line, never per iteration.
 *   ll_wait_until_for(p, cond, budget_ns)
 *                                the same, giving up after budget_ns of
 *                                (wall or simulated) time.  Returns true if
 *                                cond held, false if the budget ran out.
 *
 * Time, place and memory:
 *
 *   ll_cpu_relax()               pause
 *   ll_delay_ns(n)               n ns of local work (no shared memory)
 *   ll_now_ns()                  wall time natively, simulated time in sim
 *   ll_sync()                    let the simulator catch up with the caller's
 *                                owed local time, so other threads run until
 *                                then (nothing natively); the harness calls it
 *                                before its exit check, so a section with no
 *                                shared access still overlaps a broken lock's
 *   ll_this_cpu()                the caller's index, 0 .. ll_nr_cpus()-1
 *                                (in the simulator's OS model, the CPU the
 *                                caller shares with other processes, below
 *                                ll_nr_cpus(): per-cpu data, valid inside
 *                                ll_preempt_disable until the caller parks,
 *                                after which it may wake on another CPU;
 *                                the file-lock model wakes a process by its
 *                                own index)
 *   ll_this_node()               the caller's NUMA node (socket)
 *   ll_nr_cpus(), ll_nr_nodes()  threads in this run; nodes of the machine
 *   ll_alloc_on(size, node)      zeroed, 64-byte aligned memory whose home
 *                                is node (ll_free(p, size) returns it)
 *   ll_park()                    block until ll_unpark(i), i the caller's
 *                                thread index (ll_this_cpu() but in the
 *                                simulator's OS model); an unpark
 *                                that comes first is remembered, so a park
 *                                after it returns at once.  A park may return
 *                                early: callers re-check their condition.
 *   ll_unpark(cpu)               wake cpu (futex wake natively; a kick in
 *                                the simulator)
 *   ll_preempt_disable(), ll_preempt_enable()
 *                                a kernel path that the OS scheduler does not
 *                                preempt (a system call under the kernel's
 *                                CONFIG_PREEMPT_NONE): in the simulator's
 *                                process scheduler (more processes than CPUs,
 *                                docs/filelock.md) the caller loses its CPU
 *                                only outside such a path, where
 *                                ll_preempt_enable is a preemption point, or
 *                                when it parks; they nest.  Nothing natively
 *                                (the real kernel's own paths are so) and
 *                                nothing to a hypervisor (--vm preempts a
 *                                vCPU anywhere, docs/vm.md).
 *   ll_count(k)                  count one of the lock's own paths, named by
 *                                its lock_algo.counts[k] (a cmpxchg that
 *                                failed, a fall back to the slow path):
 *                                the run's total is reported; no modelled
 *                                memory and no simulated time (natively a
 *                                relaxed add to a counter line of the
 *                                caller's cpu)
 *   ll_mem_tag(p, size, tag)     tells the simulator what a range holds
 *                                (LL_TAG_LOCK, LL_TAG_DATA, LL_TAG_CTX) so
 *                                that its counters can speak of "the lock's
 *                                words"; a no-op natively.
 */
#ifndef LOCKLAB_MEM_H
#define LOCKLAB_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LL_RELAXED __ATOMIC_RELAXED
#define LL_ACQUIRE __ATOMIC_ACQUIRE
#define LL_RELEASE __ATOMIC_RELEASE
#define LL_ACQ_REL __ATOMIC_ACQ_REL
#define LL_SEQ_CST __ATOMIC_SEQ_CST

#define LL_CACHE_LINE 64
#define ll_cacheline_aligned __attribute__((aligned(LL_CACHE_LINE)))

enum ll_tag {
	LL_TAG_OTHER = 0,
	LL_TAG_LOCK = 1, /* words of a lock object */
	LL_TAG_DATA = 2, /* data protected by a lock */
	LL_TAG_CTX = 3,  /* per-thread or per-cpu context: queue nodes */
};

/*
 * The backend supplies, as macros or static inline functions:
 *   ll_load, ll_store, ll_cas, ll_xchg, ll_fetch_add, ll_fetch_or,
 *   ll_fetch_and, ll_fence, ll_prefetchw,
 *   ll_wait_change(p, seen)               wait until *p may differ from seen
 *   ll_wait_change_until(p, seen, dl_ns)  the same, or until ll_now_ns()>=dl_ns
 *   ll_cpu_relax, ll_delay_ns, ll_now_ns, ll_this_cpu, ll_this_node,
 *   ll_nr_cpus, ll_nr_nodes, ll_alloc_on, ll_free, ll_park, ll_unpark,
 *   ll_mem_tag, ll_sync
 */
/* Out of line in both backends (native/mem.c, the simulator's memops). */
void ll_delay_ns(uint64_t ns);
unsigned ll_this_cpu(void);
unsigned ll_this_node(void);
unsigned ll_nr_cpus(void);
unsigned ll_nr_nodes(void);
void *ll_alloc_on(size_t size, unsigned node);
void ll_free(void *p, size_t size);
void ll_park(void);
void ll_unpark(unsigned cpu);
void ll_preempt_disable(void);
void ll_preempt_enable(void);
void ll_count(unsigned k); /* core/counts.c, the same in both backends */

#include <ll_backend_mem.h>

/* p is evaluated once: the wait and the load after it are of one word. */
#define ll_wait_until(p, cond)                                                 \
	({                                                                     \
		__typeof__(p) ll__wp = (p);                                    \
		__typeof__(*(p)) VAL;                                          \
		for (;;) {                                                     \
			VAL = ll_load(ll__wp, LL_ACQUIRE);                     \
			if (cond)                                              \
				break;                                         \
			ll__wait_then_load(ll__wp, VAL);                       \
		}                                                              \
		VAL;                                                           \
	})

#define ll_wait_until_for(p, cond, budget_ns)                                  \
	({                                                                     \
		uint64_t ll__deadline = ll_now_ns() + (uint64_t)(budget_ns);   \
		bool ll__ok = false;                                           \
		__typeof__(*(p)) VAL;                                          \
		for (;;) {                                                     \
			VAL = ll_load((p), LL_ACQUIRE);                        \
			if (cond) {                                            \
				ll__ok = true;                                 \
				break;                                         \
			}                                                      \
			if (ll_now_ns() >= ll__deadline)                       \
				break;                                         \
			ll_wait_change_until((p), VAL, ll__deadline);          \
		}                                                              \
		(void)VAL;                                                     \
		ll__ok;                                                        \
	})

#endif
