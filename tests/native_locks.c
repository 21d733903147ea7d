/*
 * tests/native_locks.c - every mutex of the catalogue, stressed natively
 * without the workload: threads doing lock/unlock pairs around a
 * non-atomic read-modify-write of a shared counter, with an "inside" count
 * that must never exceed one.  The final counter must be exact.  Built also
 * under ThreadSanitizer, where a lock whose acquire/release orderings are
 * wrong shows up as a race on the counter.
 *
 * Configurations, for each mutex:
 *   2 threads pinned one per cpu          the lock passes between cores
 *   8 threads pinned 4 per cpu            oversubscribed: holders and queued
 *                                         waiters get preempted (for a fixed
 *                                         time: FIFO locks crawl here)
 *   2 threads, every other acquisition    trylock under contention
 *     a trylock (a lock if it fails)
 *   single thread, two contexts           trylock semantics
 * and the catalogue itself: unique names, exact lookup.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <locklab/lock.h>
#include <locklab/mem.h>

#include "../native/native.h"

/* A hang is a failure, not a stuck test suite. */
#define WATCHDOG_S 120

/* Acquisitions per thread.  Oversubscribed, a FIFO lock hands over at the
 * pace of the scheduler (the next ticket's thread may wait a whole time
 * slice for a cpu), so that configuration runs for a time instead, with
 * OPS_OVERSUB as a ceiling. */
#define OPS_PINNED 20000
#define OPS_TRYMIX 10000
#define OPS_OVERSUB 100000
#define OVERSUB_MS 150

/* The first two cpus this process may use (one, on a one-cpu machine):
 * every configuration runs on them, so that 8 threads are oversubscribed
 * on any machine. */
#define MAX_CPUS 2
static unsigned cpus[MAX_CPUS];
static unsigned ncpus;

struct shared {
	uint64_t counter ll_cacheline_aligned; /* plain: the lock protects it */
	int inside ll_cacheline_aligned;       /* atomic: threads inside */
	uint64_t overlaps;
	uint64_t tries_won, tries_lost;
};

struct stress {
	const struct lock_algo *algo;
	void *lock;
	void **ctx; /* [nthreads] */
	unsigned nthreads;
	unsigned ops;
	unsigned duration_ms; /* 0: every thread does all ops */
	int stop;             /* atomic: set by the main thread */
	uint64_t *done; /* [nthreads] */
	bool trymix;
	pthread_barrier_t start;
	struct shared *sh;
};

struct worker {
	struct stress *s;
	unsigned tid;
};

static void *zalloc(size_t size)
{
	size_t n = (size + LL_CACHE_LINE - 1) / LL_CACHE_LINE * LL_CACHE_LINE;
	void *p = aligned_alloc(LL_CACHE_LINE, n ? n : LL_CACHE_LINE);

	assert_non_null(p);
	memset(p, 0, n ? n : LL_CACHE_LINE);
	return p;
}

static void *lock_new(const struct lock_algo *a, unsigned nthreads)
{
	void *lock = zalloc(a->lock_size + nthreads * a->lock_size_per_cpu);

	a->init(lock, nthreads);
	return lock;
}

static void lock_free(const struct lock_algo *a, void *lock)
{
	if (a->destroy)
		a->destroy(lock);
	free(lock);
}

static void pin_self(unsigned tid)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpus[tid % ncpus], &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void critical_section(struct shared *sh)
{
	uint64_t v;

	if (__atomic_fetch_add(&sh->inside, 1, __ATOMIC_RELAXED) != 0)
		__atomic_fetch_add(&sh->overlaps, 1, __ATOMIC_RELAXED);
	v = sh->counter;
	ll_cpu_relax();
	ll_cpu_relax();
	sh->counter = v + 1;
	__atomic_fetch_sub(&sh->inside, 1, __ATOMIC_RELAXED);
}

static void acquire(struct stress *s, void *ctx, unsigned i)
{
	const struct lock_algo *a = s->algo;

	if (s->trymix && (i & 1)) {
		if (a->trylock(s->lock, ctx)) {
			__atomic_fetch_add(&s->sh->tries_won, 1, __ATOMIC_RELAXED);
			return;
		}
		__atomic_fetch_add(&s->sh->tries_lost, 1, __ATOMIC_RELAXED);
	}
	a->lock(s->lock, ctx);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct stress *s = w->s;
	void *ctx = s->ctx[w->tid];
	unsigned i;

	pin_self(w->tid);
	native_thread_bind(w->tid, 0);
	pthread_barrier_wait(&s->start);
	for (i = 0; i < s->ops; i++) {
		if (i > 0 && __atomic_load_n(&s->stop, __ATOMIC_RELAXED))
			break;
		acquire(s, ctx, i);
		critical_section(s->sh);
		s->algo->unlock(s->lock, ctx);
	}
	s->done[w->tid] = i;
	return NULL;
}

/* The lock being run, for the watchdog's line (set before its threads start). */
static const char *volatile running_lock = "none yet";

static void stress_run(const struct lock_algo *a, unsigned nthreads, unsigned ops,
		       unsigned duration_ms, bool trymix)
{
	struct stress s = { .algo = a, .nthreads = nthreads, .ops = ops,
			    .duration_ms = duration_ms, .trymix = trymix };
	pthread_t *th = zalloc(nthreads * sizeof(*th));
	struct worker *w = zalloc(nthreads * sizeof(*w));
	uint64_t total = 0, tries = 0;

	running_lock = a->name;
	s.ctx = zalloc(nthreads * sizeof(*s.ctx));
	s.done = zalloc(nthreads * sizeof(*s.done));
	s.sh = zalloc(sizeof(*s.sh));
	s.lock = lock_new(a, nthreads);
	for (unsigned i = 0; i < nthreads; i++)
		s.ctx[i] = zalloc(a->ctx_size);
	native_mem_configure(nthreads, 1);
	pthread_barrier_init(&s.start, NULL, nthreads);
	for (unsigned i = 0; i < nthreads; i++) {
		w[i] = (struct worker){ .s = &s, .tid = i };
		assert_int_equal(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
	}
	if (duration_ms) {
		usleep(duration_ms * 1000u);
		__atomic_store_n(&s.stop, 1, __ATOMIC_RELAXED);
	}
	for (unsigned i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		total += s.done[i];
		tries += s.done[i] / 2;
	}
	pthread_barrier_destroy(&s.start);

	assert_int_equal(s.sh->overlaps, 0);
	assert_true(total > 0);
	assert_int_equal(s.sh->counter, total);
	if (!duration_ms)
		assert_int_equal(total, (uint64_t)nthreads * ops);
	else
		print_message("  %s: %llu acquisitions in %u ms\n", a->name,
			      (unsigned long long)total, duration_ms);
	if (trymix) {
		/* Every odd acquisition was a try: either way it was counted.
		 * How many tries win depends on the schedule (a queue lock's
		 * try only wins when nobody is queued, which two threads in a
		 * tight loop may never leave it); a try on a free lock must
		 * win, which the semantics test checks. */
		assert_int_equal(s.sh->tries_won + s.sh->tries_lost, tries);
	}

	/* Contexts last as long as the lock: clh's nodes wander between them. */
	lock_free(a, s.lock);
	for (unsigned i = 0; i < nthreads; i++)
		free(s.ctx[i]);
	free(s.ctx);
	free(s.done);
	free(s.sh);
	free(w);
	free(th);
}

static void pinned_two(void **state)
{
	stress_run(*state, 2, OPS_PINNED, 0, false);
}

static void oversubscribed_eight(void **state)
{
	stress_run(*state, 8, OPS_OVERSUB, OVERSUB_MS, false);
}

static void trylock_under_contention(void **state)
{
	stress_run(*state, 2, OPS_TRYMIX, 0, true);
}

/* Single thread, two contexts: a held lock refuses a try, a free one takes
 * it, and a failed try leaves the lock working. */
static void trylock_semantics(void **state)
{
	const struct lock_algo *a = *state;
	void *lock = lock_new(a, 2);
	void *c0 = zalloc(a->ctx_size), *c1 = zalloc(a->ctx_size);

	native_mem_configure(2, 1);
	native_thread_bind(0, 0);
	assert_true(a->trylock(lock, c0));
	assert_false(a->trylock(lock, c1));
	a->unlock(lock, c0);

	assert_true(a->trylock(lock, c1));
	a->unlock(lock, c1);

	a->lock(lock, c0);
	assert_false(a->trylock(lock, c1));
	assert_false(a->trylock(lock, c1));
	a->unlock(lock, c0);
	a->lock(lock, c1);
	a->unlock(lock, c1);
	assert_true(a->trylock(lock, c0));
	a->unlock(lock, c0);

	lock_free(a, lock);
	free(c0);
	free(c1);
}

static void catalogue_is_consistent(void **state)
{
	size_t n = lock_catalogue_size();

	assert_true(n >= 10);
	assert_null(lock_catalogue_get(n));
	for (size_t i = 0; i < n; i++) {
		const struct lock_algo *a = lock_catalogue_get(i);

		assert_non_null(a);
		assert_non_null(a->name);
		assert_non_null(a->desc);
		assert_non_null(a->init);
		assert_ptr_equal(lock_find(a->name), a);
		for (size_t j = i + 1; j < n; j++)
			assert_string_not_equal(a->name, lock_catalogue_get(j)->name);
		if (a->kind == LOCK_MUTEX) {
			assert_non_null(a->lock);
			assert_non_null(a->unlock);
		}
	}
	assert_non_null(lock_find("ticket"));
	assert_non_null(lock_find("pthread-mutex"));
	assert_null(lock_find("tick"));
	assert_null(lock_find("ticket-"));
	assert_null(lock_find("TAS"));
	assert_null(lock_find(""));
}

static void on_watchdog(int sig)
{
	static const char msg[] = "native_locks: watchdog: hung in a run of lock '";
	const char *name = running_lock;

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0 || write(2, name, strlen(name)) < 0 ||
	    write(2, "'\n", 2) < 0)
		_exit(1);
	_exit(1);
}

static void find_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		CPU_ZERO(&set);
	for (unsigned c = 0; c < CPU_SETSIZE && ncpus < MAX_CPUS; c++)
		if (CPU_ISSET(c, &set))
			cpus[ncpus++] = c;
	if (!ncpus)
		cpus[ncpus++] = 0;
}

static void add_test(struct CMUnitTest *t, size_t *n, const struct lock_algo *a,
		     const char *what, CMUnitTestFunction fn)
{
	char *name;

	if (asprintf(&name, "%s: %s", a->name, what) < 0)
		abort();
	t[(*n)++] = (struct CMUnitTest){ .name = name, .test_func = fn,
					 .initial_state = (void *)a };
}

int main(int argc, char **argv)
{
	size_t nalgo = lock_catalogue_size(), n = 0;
	struct CMUnitTest *t = calloc(4 * nalgo + 1, sizeof(*t));
	int rc;

	if (!t)
		return 1;
	signal(SIGALRM, on_watchdog);
	alarm(WATCHDOG_S);
	find_cpus();
	t[n++] = (struct CMUnitTest){ .name = "catalogue: unique names, exact lookup",
				      .test_func = catalogue_is_consistent };
	for (size_t i = 0; i < nalgo; i++) {
		const struct lock_algo *a = lock_catalogue_get(i);

		if (a->kind != LOCK_MUTEX)
			continue;
		add_test(t, &n, a, "2 threads pinned on 2 cpus", pinned_two);
		add_test(t, &n, a, "8 threads on 2 cpus", oversubscribed_eight);
		if (a->trylock) {
			add_test(t, &n, a, "trylock semantics", trylock_semantics);
			add_test(t, &n, a, "trylock under contention", trylock_under_contention);
		}
	}
	rc = _cmocka_run_group_tests("native_locks", t, n, NULL, NULL);
	for (size_t i = 1; i < n; i++)
		free((char *)t[i].name);
	free(t);
	return rc;
}
