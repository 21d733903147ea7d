/*
 * native/mem.c - the out-of-line half of the native <ll_backend_mem.h>:
 * calibrated local work, who and where the caller is, memory with a home
 * node, and futex-based park/unpark.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <locklab/mem.h>

#include "native.h"

/* ------------------------------------------------------------ ll_delay_ns
 *
 * The delay is a loop of a fixed body: one step of a 64-bit linear
 * congruential generator kept in a register (a multiply and an add, each
 * depending on the last), so an iteration costs the same every time and
 * touches no memory.  Calibration runs the loop against CLOCK_MONOTONIC:
 * first doubling the count until one try lasts 200 us, then several tries of
 * about 1 ms each, keeping the fastest (the try least disturbed by
 * interrupts or other tasks).  ll_delay_ns(n) then runs n * rate iterations
 * and never reads the clock.
 */
#define DELAY_TRIES 7
#define DELAY_PROBE_NS 200000ull
#define DELAY_TRY_NS 1000000ull

static double delay_iters_per_ns;
static pthread_once_t delay_once = PTHREAD_ONCE_INIT;

/* The fences keep out-of-order execution from overlapping a short delay
 * with the work around it, which would make it run short. */
static inline void delay_fence(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_lfence();
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

static void delay_loop(uint64_t iters)
{
	uint64_t x = iters;

	delay_fence();
	while (iters--) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ __volatile__("" : "+r"(x));
	}
	delay_fence();
}

static uint64_t delay_time(uint64_t iters)
{
	uint64_t t0 = ll_now_ns();

	delay_loop(iters);
	return ll_now_ns() - t0;
}

static void delay_calibrate_once(void)
{
	uint64_t iters = 1024, t;
	double best = 0;

	while ((t = delay_time(iters)) < DELAY_PROBE_NS && iters < (1ull << 40))
		iters *= 2;
	iters = (uint64_t)((double)iters * DELAY_TRY_NS / (double)(t ? t : 1));
	if (!iters)
		iters = 1;
	for (int i = 0; i < DELAY_TRIES; i++) {
		double rate;

		t = delay_time(iters);
		rate = (double)iters / (double)(t ? t : 1);
		if (rate > best)
			best = rate;
	}
	delay_iters_per_ns = best;
}

void native_delay_calibrate(void)
{
	native_clock_calibrate();
	pthread_once(&delay_once, delay_calibrate_once);
}

double native_delay_iters_per_us(void)
{
	native_delay_calibrate();
	return delay_iters_per_ns * 1000.0;
}

void ll_delay_ns(uint64_t ns)
{
	double iters;

	if (!ns)
		return;
	native_delay_calibrate();
	iters = (double)ns * delay_iters_per_ns + 0.5;
	delay_loop(iters < 1.8e19 ? (uint64_t)iters : UINT64_MAX);
}

/* ll_fence's word under ThreadSanitizer (see <ll_backend_mem.h>). */
int ll__tsan_fence_word;

/* ------------------------------------------------------ who and where */

static unsigned nr_cpus = 1;
static unsigned nr_nodes = 1;
static __thread unsigned this_cpu;
static __thread unsigned this_node;

unsigned ll_this_cpu(void)
{
	return this_cpu;
}

unsigned ll_this_node(void)
{
	return this_node;
}

unsigned ll_nr_cpus(void)
{
	return nr_cpus;
}

unsigned ll_nr_nodes(void)
{
	return nr_nodes;
}

void native_thread_bind(unsigned tid, unsigned node)
{
	this_cpu = tid;
	this_node = node;
}

/* -------------------------------------------------------------- memory
 *
 * With several NUMA nodes and a kernel that binds memory, every block comes
 * from hwloc_alloc_membind (whole pages, bound to the node; freed with
 * hwloc_free).  Otherwise, or on one node, from aligned_alloc.  The choice is
 * made once, when the machine is loaded, so ll_free knows which to undo.  A
 * node beyond the machine's gets unbound memory.
 */
static size_t round_line(size_t size)
{
	return (size + LL_CACHE_LINE - 1) & ~(size_t)(LL_CACHE_LINE - 1);
}

static void *alloc_bound(const struct native_machine *m, size_t len,
			 unsigned node)
{
	hwloc_obj_t n = NULL;
	void *p = NULL;

	if (node < m->nnodes)
		n = hwloc_get_obj_by_type(m->topo, HWLOC_OBJ_NUMANODE, node);
	if (n && n->nodeset)
		p = hwloc_alloc_membind(m->topo, len, n->nodeset, HWLOC_MEMBIND_BIND,
					HWLOC_MEMBIND_BYNODESET);
	if (!p)
		p = hwloc_alloc(m->topo, len);
	return p;
}

void *ll_alloc_on(size_t size, unsigned node)
{
	const struct native_machine *m = native_machine();
	size_t len;
	void *p;

	if (size > SIZE_MAX - LL_CACHE_LINE)
		return NULL;
	len = round_line(size ? size : 1);
	if (m && m->membind)
		p = alloc_bound(m, len, node);
	else
		p = aligned_alloc(LL_CACHE_LINE, len);
	if (p)
		memset(p, 0, len);
	return p;
}

void ll_free(void *p, size_t size)
{
	const struct native_machine *m = native_machine();

	if (!p)
		return;
	if (m && m->membind)
		hwloc_free(m->topo, p, round_line(size ? size : 1));
	else
		free(p);
}

/* ------------------------------------------------------- park / unpark
 *
 * One 32-bit word per thread of the run, each on its own cache line:
 *
 *   PARK_EMPTY (0)      nothing pending, nobody asleep
 *   PARK_NOTIFIED (1)   an unpark came and has not been consumed
 *   PARK_SLEEPING (-1)  the owner is (about to be) asleep in futex_wait
 *
 * park:    fetch_sub 1.  NOTIFIED -> EMPTY: the unpark came first; return.
 *          EMPTY -> SLEEPING: futex_wait while the word reads SLEEPING;
 *          after each wake, cas NOTIFIED -> EMPTY; if the word still reads
 *          SLEEPING the wake was spurious (a signal): sleep again.
 * unpark:  xchg NOTIFIED.  If the old value was SLEEPING, futex_wake one.
 *          From EMPTY or NOTIFIED nobody sleeps: the token waits for the
 *          next park, and several unparks before it count as one.
 *
 * Only the owner parks on its word; any thread unparks it.  The unpark's
 * xchg (release) pairs with the park's fetch_sub or cas (acquire), so what
 * the waker wrote before unpark is visible after park returns.
 */
enum {
	PARK_SLEEPING = -1,
	PARK_EMPTY = 0,
	PARK_NOTIFIED = 1,
};

struct park_word {
	int32_t state;
	uint64_t kick_ns; /* the latest unpark's time (for the wake latency) */
} ll_cacheline_aligned;

static struct park_word park_words[NATIVE_MAX_THREADS];

/* What a run in a virtual machine reports (native/vm.c): per thread, parks
 * that slept, unparks that woke a sleeper, and the sleepers' time from
 * that unpark until they ran again.  Only the slow paths count, with
 * relaxed atomics (an unparker without a thread identity counts as 0). */
struct park_stats {
	uint64_t halts, kicks, wakes, wake_ns;
} ll_cacheline_aligned;

static struct park_stats park_stats[NATIVE_MAX_THREADS];

static void stat_add(uint64_t *c, uint64_t v)
{
	__atomic_fetch_add(c, v, __ATOMIC_RELAXED);
}

void native_park_stats(unsigned tid, uint64_t *halts, uint64_t *kicks, uint64_t *wakes,
		       uint64_t *wake_ns)
{
	struct park_stats *s = &park_stats[tid < NATIVE_MAX_THREADS ? tid : 0];

	*halts = __atomic_load_n(&s->halts, __ATOMIC_RELAXED);
	*kicks = __atomic_load_n(&s->kicks, __ATOMIC_RELAXED);
	*wakes = __atomic_load_n(&s->wakes, __ATOMIC_RELAXED);
	*wake_ns = __atomic_load_n(&s->wake_ns, __ATOMIC_RELAXED);
}

/* A sleeper took its token: the unpark that woke it stamped kick_ns. */
static void count_wake(struct park_word *pw, struct park_stats *st)
{
	uint64_t k = __atomic_load_n(&pw->kick_ns, __ATOMIC_RELAXED), now = ll_now_ns();

	stat_add(&st->wakes, 1);
	stat_add(&st->wake_ns, now > k ? now - k : 0);
}

void native_futex_wait(int32_t *word, int32_t val)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

void native_futex_wake(int32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void ll_park(void)
{
	int32_t *w = &park_words[this_cpu].state;
	int32_t notified = PARK_NOTIFIED;

	if (__atomic_fetch_sub(w, 1, __ATOMIC_ACQUIRE) == PARK_NOTIFIED)
		return;
	stat_add(&park_stats[this_cpu].halts, 1);
	for (;;) {
		native_futex_wait(w, PARK_SLEEPING);
		if (__atomic_compare_exchange_n(w, &notified, PARK_EMPTY, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			count_wake(&park_words[this_cpu], &park_stats[this_cpu]);
			return;
		}
		notified = PARK_NOTIFIED;
	}
}

void ll_unpark(unsigned cpu)
{
	int32_t *w;

	if (cpu >= nr_cpus)
		return;
	w = &park_words[cpu].state;
	__atomic_store_n(&park_words[cpu].kick_ns, ll_now_ns(), __ATOMIC_RELAXED);
	if (__atomic_exchange_n(w, PARK_NOTIFIED, __ATOMIC_RELEASE) == PARK_SLEEPING) {
		stat_add(&park_stats[this_cpu].kicks, 1);
		native_futex_wake(w);
	}
}

/* A modelled kernel path's preemption: the real kernel's own, not ours. */
void ll_preempt_disable(void)
{
}

void ll_preempt_enable(void)
{
}

/* ------------------------------------------------------------ a run */

void native_mem_configure(unsigned ncpus, unsigned nnodes)
{
	if (!ncpus || ncpus > NATIVE_MAX_THREADS) {
		fprintf(stderr, "native_mem_configure: %u cpus (1..%u)\n", ncpus,
			NATIVE_MAX_THREADS);
		abort();
	}
	nr_cpus = ncpus;
	nr_nodes = nnodes ? nnodes : 1;
	for (unsigned i = 0; i < ncpus; i++) {
		__atomic_store_n(&park_words[i].state, PARK_EMPTY, __ATOMIC_RELAXED);
		__atomic_store_n(&park_words[i].kick_ns, 0, __ATOMIC_RELAXED);
		memset(&park_stats[i], 0, sizeof(park_stats[i]));
	}
	native_delay_calibrate();
}
