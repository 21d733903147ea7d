/*
 * Native backend of <locklab/mem.h>: every operation is an inline __atomic
 * builtin on real memory; waiting is a pause loop; time is CLOCK_MONOTONIC,
 * read from the calibrated cycle counter where it is invariant (native/clock.c).
 * The out-of-line parts live in native/mem.c.
 */
#ifndef LL_BACKEND_MEM_H
#define LL_BACKEND_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#define ll_load(p, ord) __atomic_load_n((p), (ord))
#define ll_store(p, v, ord) __atomic_store_n((p), (v), (ord))
#define ll_cas(p, old, new, ord)                                               \
	({                                                                     \
		__typeof__(*(p)) ll__expected = (old);                         \
		__atomic_compare_exchange_n((p), &ll__expected, (new), false,  \
					    (ord), ll__cas_fail_order(ord));   \
		ll__expected;                                                  \
	})
#define ll__cas_fail_order(ord)                                                \
	((ord) == __ATOMIC_RELEASE   ? __ATOMIC_RELAXED                        \
	 : (ord) == __ATOMIC_ACQ_REL ? __ATOMIC_ACQUIRE                        \
				     : (ord))
#define ll_xchg(p, v, ord) __atomic_exchange_n((p), (v), (ord))
#define ll_fetch_add(p, v, ord) __atomic_fetch_add((p), (v), (ord))
#define ll_fetch_or(p, v, ord) __atomic_fetch_or((p), (v), (ord))
#define ll_fetch_and(p, v, ord) __atomic_fetch_and((p), (v), (ord))
#ifdef __SANITIZE_THREAD__
/* ThreadSanitizer does not model fences (gcc rejects them with -Wtsan): under
 * it a fence is a read-modify-write of one shared word with the same order,
 * a full barrier on the hardware and a synchronization TSan can see.
 * The word lives in native/mem.c. */
extern int ll__tsan_fence_word;
#define ll_fence(ord) ((void)__atomic_fetch_add(&ll__tsan_fence_word, 0, (ord)))
#else
#define ll_fence(ord) __atomic_thread_fence(ord)
#endif
#define ll_prefetchw(p) __builtin_prefetch((const void *)(p), 1)

static inline void ll_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* Native spinning re-reads the word: the pause is the whole wait. */
#define ll_wait_change(p, seen) ((void)(seen), ll_cpu_relax())
#define ll_wait_change_until(p, seen, dl) ((void)(seen), (void)(dl), ll_cpu_relax())
/* ll_wait_until's wait, its next operation a load of p (the simulator
 * begins that load for the waiter when it is woken) */
#define ll__wait_then_load(p, seen) ll_wait_change((p), (seen))

static inline void ll_sync(void)
{
}

/* ll_delay_ns(0) does nothing here: a caller may leave it out. */
#define LL_DELAY_ZERO_IS_NOTHING 1

/* A clock read costs time here: an untimed acquisition reads none
 * (core/workload.c). */
#define LL_CLOCK_IS_FREE 0

/* The cycle counter as CLOCK_MONOTONIC nanoseconds: ns = base_ns +
 * (ticks since base_tsc) * mult / 2^32; set once, before the threads start,
 * by native_clock_calibrate() (native/clock.c).  RDTSC is not ordered
 * after earlier instructions; the LFENCE before it makes it wait for them
 * (Intel SDM vol. 2B, RDTSC), so that a stamp taken after an acquire is
 * not read while the acquire's miss is still on its way: unfenced, a
 * reader's entry could read earlier than the previous holder's exit and
 * show two exclusive sections overlapping. */
struct ll_tsc_clock {
	uint64_t base_tsc, base_ns, mult;
	bool on;
} ll_cacheline_aligned;
extern struct ll_tsc_clock ll__tsc;

static inline uint64_t ll_now_ns(void)
{
	struct timespec ts;

#if defined(__x86_64__)
	if (__builtin_expect(ll__tsc.on, 1)) {
		int64_t d;

		__builtin_ia32_lfence();
		d = (int64_t)(__rdtsc() - ll__tsc.base_tsc);
		d = d > 0 ? d : 0;
		return ll__tsc.base_ns + (uint64_t)(((unsigned __int128)d * ll__tsc.mult) >> 32);
	}
#endif
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* native/mem.c defines the out-of-line calls declared in <locklab/mem.h>. */
#define ll_mem_tag(p, size, tag) ((void)(p), (void)(size), (void)(tag))

#endif
