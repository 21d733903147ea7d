/*
 * bench/native_ck.c - the uncontended cost of our locks beside Concurrency
 * Kit's (libck), measured in one run on one pinned cpu.
 *
 * An acquire+release pair with nobody else around is the cost every user of
 * a lock pays, contended or not, so it is the figure on which an algorithm
 * written against <locklab/mem.h> must not lose to a hand-tuned library.
 *
 * Fairness:
 *   - both sides are called the same way: through a function pointer read
 *     from a descriptor the compiler cannot see through, to an out-of-line
 *     function taking (lock, ctx).  Ours are lock_algo->lock/unlock; CK's are
 *     small wrappers around the ck_spinlock_* inline functions;
 *   - both run the same loop, on the same cpu, with objects on their own
 *     cache lines;
 *   - measurements alternate (ours, CK, then CK, ours, ...) over ROUNDS
 *     short rounds after a warm-up.  Each side's figure is the median of
 *     its rounds; the ratio is the median of the per-round ratios, each
 *     taken between two samples adjacent in time, so that frequency drift,
 *     preemption and the load of a shared machine hit both alike.
 *
 * Then the harness's own cost: the workload loop of a run (one thread,
 * --ops HARNESS_OPS, no delays, no protected lines) around a null lock
 * whose lock and unlock do nothing, per acquisition: the checker, handoff
 * record and counting every acquisition pays, and the timing and histogram
 * of the timed ones, on top of its lock.  Measured at the default
 * --time-every (target <= HARNESS_TARGET_NS) and, runs interleaved, with
 * every acquisition timed (K = 1) for comparison.
 *
 * The exit status is 0 whenever the comparison ran; a ratio above TARGET is
 * reported ("target missed"), not failed.
 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ck_spinlock.h>

#include <locklab/backend.h>
#include <locklab/lock.h>
#include <locklab/mem.h>
#include <locklab/workload.h>

#include "../native/native.h"

#define ROUNDS 101
#define ITERS 20000
#define TARGET 1.05
#define HARNESS_OPS 8000000
#define HARNESS_RUNS 5
#define HARNESS_TARGET_NS 10.0
/* Threads the lock objects are prepared for (array locks size by it; a
 * power of two, as CK's Anderson lock prefers). */
#define NCPUS 2

typedef void (*lock_fn)(void *lock, void *ctx);

/* One side of a comparison: what the timing loop calls. */
struct side {
	lock_fn lock, unlock;
	void *obj, *ctx;
};

/* ------------------------------------------------------ CK's side, wrapped */

struct ck_objects {
	ck_spinlock_fas_t fas ll_cacheline_aligned;
	ck_spinlock_cas_t cas ll_cacheline_aligned;
	ck_spinlock_ticket_t ticket ll_cacheline_aligned;
	ck_spinlock_mcs_t mcs ll_cacheline_aligned;
	ck_spinlock_mcs_context_t mcs_node ll_cacheline_aligned;
	ck_spinlock_clh_t *clh ll_cacheline_aligned;
	ck_spinlock_clh_t clh_unowned ll_cacheline_aligned;
	ck_spinlock_clh_t clh_node ll_cacheline_aligned;
	ck_spinlock_clh_t *clh_mine ll_cacheline_aligned;
	ck_spinlock_anderson_t anderson ll_cacheline_aligned;
	ck_spinlock_anderson_thread_t anderson_slots[NCPUS] ll_cacheline_aligned;
	ck_spinlock_anderson_thread_t *anderson_mine ll_cacheline_aligned;
};

static __attribute__((noinline)) void ck_fas_lock(void *l, void *c)
{
	ck_spinlock_fas_lock(l);
}

static __attribute__((noinline)) void ck_fas_unlock(void *l, void *c)
{
	ck_spinlock_fas_unlock(l);
}

static __attribute__((noinline)) void ck_cas_lock(void *l, void *c)
{
	ck_spinlock_cas_lock(l);
}

static __attribute__((noinline)) void ck_cas_lock_eb(void *l, void *c)
{
	ck_spinlock_cas_lock_eb(l);
}

static __attribute__((noinline)) void ck_cas_unlock(void *l, void *c)
{
	ck_spinlock_cas_unlock(l);
}

static __attribute__((noinline)) void ck_ticket_lock(void *l, void *c)
{
	ck_spinlock_ticket_lock(l);
}

static __attribute__((noinline)) void ck_ticket_lock_pb(void *l, void *c)
{
	ck_spinlock_ticket_lock_pb(l, 7);
}

static __attribute__((noinline)) void ck_ticket_unlock(void *l, void *c)
{
	ck_spinlock_ticket_unlock(l);
}

static __attribute__((noinline)) void ck_mcs_lock(void *l, void *c)
{
	ck_spinlock_mcs_lock(l, c);
}

static __attribute__((noinline)) void ck_mcs_unlock(void *l, void *c)
{
	ck_spinlock_mcs_unlock(l, c);
}

/* ctx: where the thread's current node pointer lives (CK's unlock swaps
 * it for the predecessor's node, as ours does). */
static __attribute__((noinline)) void ck_clh_lock(void *l, void *c)
{
	ck_spinlock_clh_lock(l, *(ck_spinlock_clh_t **)c);
}

static __attribute__((noinline)) void ck_clh_unlock(void *l, void *c)
{
	ck_spinlock_clh_unlock(c);
}

/* ctx: where the slot taken by lock is kept for unlock. */
static __attribute__((noinline)) void ck_anderson_lock(void *l, void *c)
{
	ck_spinlock_anderson_lock(l, c);
}

static __attribute__((noinline)) void ck_anderson_unlock(void *l, void *c)
{
	ck_spinlock_anderson_unlock(l, *(ck_spinlock_anderson_thread_t **)c);
}

/* ------------------------------------------------------------- the pairs
 *
 * tas is CK's fetch-and-store lock.  CK has no test-and-test-and-set as
 * such; its compare-and-swap lock is the nearest (a cas, then reads until
 * the word looks free), and its _eb variant backs off exponentially after a
 * failed cas, so it stands against ttas-backoff.  The ticket locks face CK's
 * ticket lock (plain and with proportional backoff, lock_pb), and each
 * queue lock its namesake.
 */

struct pair {
	const char *ours;   /* catalogue name */
	const char *theirs; /* what it is compared with */
	lock_fn lock, unlock;
	size_t obj_off, ctx_off; /* in struct ck_objects; ctx_off 0: none */
};

#define CKO(f) offsetof(struct ck_objects, f)

static const struct pair pairs[] = {
	{ "tas", "ck_spinlock_fas", ck_fas_lock, ck_fas_unlock, CKO(fas), 0 },
	{ "ttas", "ck_spinlock_cas", ck_cas_lock, ck_cas_unlock, CKO(cas), 0 },
	{ "ttas-backoff", "ck_spinlock_cas (lock_eb)", ck_cas_lock_eb, ck_cas_unlock,
	  CKO(cas), 0 },
	{ "ticket", "ck_spinlock_ticket", ck_ticket_lock, ck_ticket_unlock, CKO(ticket), 0 },
	{ "ticket-prop", "ck_spinlock_ticket (lock_pb)", ck_ticket_lock_pb, ck_ticket_unlock,
	  CKO(ticket), 0 },
	{ "anderson", "ck_spinlock_anderson", ck_anderson_lock, ck_anderson_unlock,
	  CKO(anderson), CKO(anderson_mine) },
	{ "mcs", "ck_spinlock_mcs", ck_mcs_lock, ck_mcs_unlock, CKO(mcs), CKO(mcs_node) },
	{ "clh", "ck_spinlock_clh", ck_clh_lock, ck_clh_unlock, CKO(clh), CKO(clh_mine) },
};

#define NPAIRS (sizeof(pairs) / sizeof(pairs[0]))

static struct ck_objects *ck_objects_new(void)
{
	struct ck_objects *o = aligned_alloc(LL_CACHE_LINE, sizeof(*o));

	if (!o)
		return NULL;
	memset(o, 0, sizeof(*o));
	ck_spinlock_fas_init(&o->fas);
	ck_spinlock_cas_init(&o->cas);
	ck_spinlock_ticket_init(&o->ticket);
	ck_spinlock_mcs_init(&o->mcs);
	ck_spinlock_clh_init(&o->clh, &o->clh_unowned);
	o->clh_mine = &o->clh_node;
	ck_spinlock_anderson_init(&o->anderson, o->anderson_slots, NCPUS);
	return o;
}

/* ------------------------------------------------------------- our side */

struct ours {
	const struct lock_algo *algo;
	void *lock, *ctx;
};

static void *zalloc(size_t size)
{
	size_t n = (size + LL_CACHE_LINE - 1) / LL_CACHE_LINE * LL_CACHE_LINE;
	void *p = aligned_alloc(LL_CACHE_LINE, n ? n : LL_CACHE_LINE);

	if (p)
		memset(p, 0, n ? n : LL_CACHE_LINE);
	return p;
}

static int ours_new(struct ours *o, const struct lock_algo *a)
{
	o->algo = a;
	o->lock = zalloc(a->lock_size + NCPUS * a->lock_size_per_cpu);
	o->ctx = zalloc(a->ctx_size);
	if (!o->lock || !o->ctx)
		return -1;
	a->init(o->lock, NCPUS);
	return 0;
}

static void ours_free(struct ours *o)
{
	if (o->algo->destroy)
		o->algo->destroy(o->lock);
	free(o->lock);
	free(o->ctx);
}

/* ------------------------------------------------------------- timing */

/* The compiler must not see which functions a side calls. */
static const struct side *opaque(const struct side *s)
{
	__asm__ __volatile__("" : "+r"(s));
	return s;
}

static __attribute__((noinline)) double ns_per_op(const struct side *s)
{
	uint64_t t0, t1;

	s = opaque(s);
	t0 = ll_now_ns();
	for (unsigned i = 0; i < ITERS; i++) {
		s->lock(s->obj, s->ctx);
		s->unlock(s->obj, s->ctx);
	}
	t1 = ll_now_ns();
	return (double)(t1 - t0) / ITERS;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *x, unsigned n)
{
	qsort(x, n, sizeof(*x), cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* Alternate the two sides, AB then BA, after one discarded round: the
 * medians of each side and of the per-round ratios a/b. */
static void compare(const struct side *a, const struct side *b, double *ma, double *mb,
		    double *ratio)
{
	double xa[ROUNDS], xb[ROUNDS], xr[ROUNDS];

	ns_per_op(a);
	ns_per_op(b);
	for (unsigned r = 0; r < ROUNDS; r++) {
		if (r % 2) {
			xb[r] = ns_per_op(b);
			xa[r] = ns_per_op(a);
		} else {
			xa[r] = ns_per_op(a);
			xb[r] = ns_per_op(b);
		}
		xr[r] = xa[r] / xb[r];
	}
	*ratio = median(xr, ROUNDS);
	*ma = median(xa, ROUNDS);
	*mb = median(xb, ROUNDS);
}

static double alone(const struct side *a)
{
	double x[ROUNDS];

	ns_per_op(a);
	for (unsigned r = 0; r < ROUNDS; r++)
		x[r] = ns_per_op(a);
	return median(x, ROUNDS);
}

/* ------------------------------------------------------------- main */

static int pin_to_first_cpu(unsigned *cpu)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -1;
	for (unsigned c = 0; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, &set)) {
			CPU_ZERO(&set);
			CPU_SET(c, &set);
			*cpu = c;
			return sched_setaffinity(0, sizeof(set), &set);
		}
	}
	return -1;
}

static const struct pair *pair_of(const char *name)
{
	for (size_t i = 0; i < NPAIRS; i++)
		if (strcmp(pairs[i].ours, name) == 0)
			return &pairs[i];
	return NULL;
}

/* One row: ours against CK's counterpart, or ours alone. */
static int bench_one(const struct lock_algo *a, struct ck_objects *ck, unsigned *missed)
{
	const struct pair *p = pair_of(a->name);
	struct ours o;
	struct side so, sc;
	double mo, mc, ratio;

	if (ours_new(&o, a) != 0) {
		fprintf(stderr, "native_ck: out of memory\n");
		return -1;
	}
	so = (struct side){ a->lock, a->unlock, o.lock, o.ctx };
	if (!p) {
		printf("%-14s %-30s %9.2f %9s %7s\n", a->name, "-", alone(&so), "-", "-");
		ours_free(&o);
		return 0;
	}
	sc = (struct side){ p->lock, p->unlock, (char *)ck + p->obj_off,
			    p->ctx_off ? (char *)ck + p->ctx_off : NULL };
	compare(&so, &sc, &mo, &mc, &ratio);
	printf("%-14s %-30s %9.2f %9.2f %7.3f%s\n", a->name, p->theirs, mo, mc, ratio,
	       ratio <= TARGET ? "" : "  target missed");
	if (ratio > TARGET)
		(*missed)++;
	ours_free(&o);
	return 0;
}

/* ------------------------------------------------------ the harness's cost */

static void null_init(void *lock, unsigned ncpus)
{
}

static void null_op(void *lock, void *ctx)
{
}

static const struct lock_algo null_lock = {
	.name = "null",
	.desc = "does nothing (the harness's cost)",
	.kind = LOCK_MUTEX,
	.lock_size = 1,
	.init = null_init,
	.lock = null_op,
	.unlock = null_op,
};

/* The cpu time of the process: a harness run's cost without the time other
 * load on the machine took from it (a run is one thread, whose start and
 * stop cost little beside HARNESS_OPS acquisitions). */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One run of the workload loop around the null lock: cpu ns per
 * acquisition, or a negative figure on failure. */
static double harness_run(unsigned r, unsigned time_every)
{
	struct wl_config cfg = { .algos = { &null_lock }, .nalgos = 1, .threads = { 1 },
				 .nthreads = 1, .locks = 1, .ops = HARNESS_OPS, .runs = 1,
				 .time_every = time_every, .pin = PIN_COMPACT,
				 .pin_text = "compact", .seed = 1 };
	struct wl_run run = { .cfg = &cfg, .algo = &null_lock, .nthreads = 1, .run_index = r,
			      .seed = r + 1 };
	struct run_counters c;
	double ns = -1;
	uint64_t cpu;

	memset(&c, 0, sizeof(c));
	run.threads = calloc(1, sizeof(*run.threads));
	if (!run.threads)
		return -1;
	cpu = cpu_ns();
	if (backend_run(&run, &c) == 0 && run.threads[0].acquisitions)
		ns = (double)(cpu_ns() - cpu) / (double)run.threads[0].acquisitions;
	else
		fprintf(stderr, "native_ck: the null-lock run failed: %s\n", run.failure);
	wl_teardown(&run);
	free(run.threads);
	return ns;
}

/* What one ll_now_ns() costs here, back to back: the floor under a harness
 * that reads the clock twice per acquisition. */
static double clock_read_ns(void)
{
	uint64_t t0 = cpu_ns(), t1, sink = 0;

	for (unsigned i = 0; i < HARNESS_OPS; i++)
		sink += ll_now_ns();
	t1 = cpu_ns();
	__asm__ __volatile__("" : : "r"(sink));
	return (double)(t1 - t0) / HARNESS_OPS;
}

static int bench_harness(void)
{
	const unsigned k = backend_default_time_every;
	double x[HARNESS_RUNS], x1[HARNESS_RUNS], m, m1;

	for (unsigned r = 0; r < HARNESS_RUNS; r++)
		if ((x[r] = harness_run(r, k)) < 0 || (x1[r] = harness_run(r, 1)) < 0)
			return -1;
	m = median(x, HARNESS_RUNS);
	m1 = median(x1, HARNESS_RUNS);
	printf("\nharness cost per acquisition with a null lock, one thread (median of %u runs of "
	       "%u acquisitions):\n"
	       "  --time-every %u (default): %.2f ns (target <= %.0f ns): %s\n"
	       "  --time-every 1 (every acquisition timed): %.2f ns\n"
	       "  one clock read (%s): %.2f ns; two per timed acquisition\n",
	       HARNESS_RUNS, HARNESS_OPS, k, m, HARNESS_TARGET_NS,
	       m <= HARNESS_TARGET_NS ? "target met" : "target missed", m1,
	       native_clock_is_tsc() ? "calibrated cycle counter" : "clock_gettime",
	       clock_read_ns());
	return 0;
}

int main(int argc, char **argv)
{
	struct ck_objects *ck = ck_objects_new();
	unsigned cpu = 0, missed = 0, compared = 0;

	if (!ck) {
		fprintf(stderr, "native_ck: out of memory\n");
		return 1;
	}
	if (pin_to_first_cpu(&cpu) != 0) {
		fprintf(stderr, "native_ck: cannot pin to a cpu\n");
		return 1;
	}
	native_mem_configure(NCPUS, 1);
	native_thread_bind(0, 0);

	printf("native_ck: uncontended acquire+release, one thread pinned to cpu %u;\n"
	       "medians of %u alternating rounds of %u pairs (ratio: of per-round\n"
	       "ratios); target ours/CK <= %.2f\n\n",
	       cpu, ROUNDS, ITERS, TARGET);
	printf("%-14s %-30s %9s %9s %7s\n", "ours", "Concurrency Kit", "ours ns", "CK ns",
	       "ratio");
	for (size_t i = 0; i < lock_catalogue_size(); i++) {
		const struct lock_algo *a = lock_catalogue_get(i);

		if (a->kind != LOCK_MUTEX)
			continue;
		if (bench_one(a, ck, &missed) != 0)
			return 1;
		compared += pair_of(a->name) != NULL;
	}
	for (size_t i = 0; i < NPAIRS; i++) {
		if (!lock_find(pairs[i].ours)) {
			fprintf(stderr, "native_ck: %s is not in the catalogue\n", pairs[i].ours);
			return 1;
		}
	}
	printf("\n%u of %u pairs within the target%s\n", compared - missed, compared,
	       missed ? " (target missed)" : "");
	free(ck);
	if (backend_init(&argc, argv) || bench_harness())
		return 1;
	backend_fini();
	return 0;
}
