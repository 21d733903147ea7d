/*
 * tests/both_rwref.c - reader-writer locks and reference counts driven by
 * the real workload, in whichever backend this program is built for:
 *
 *   - every rwlock keeps writers exclusive, against writers and readers,
 *     and the workload's reader-side checker does catch a lock that lets
 *     readers in beside a writer;
 *   - readers of every rwlock do run concurrently (the overlap measured
 *     from their time spans exceeds 1), and the measurement reports 1 for
 *     a lock whose readers exclude each other;
 *   - no refcount loses an update (the workload fails a run whose object
 *     does not end at its initial count), and a racy count is caught;
 *   - simulator only: the fair queued rwlock bounds the writers' wait that
 *     the reader-preferring rwlock lets grow with the run (90% reads);
 *   - --preset sets the locks and the workload, and options override it.
 *
 * Native: 2 threads pinned on 2 cores, and 4 unpinned (oversubscribed:
 * holders and readers between their count and their check get preempted;
 * few operations, because FIFO spinlocks convoy behind preempted waiters).
 * Simulator: 4 and 8 threads on 4socket, 25 seeds each, exponential
 * non-critical delays so that the interleavings differ.
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <locklab/lock.h>
#include <locklab/mem.h>
#include <locklab/stats.h>

#include "testlib.h"

#include "../core/cli.h"

static void base_config(struct wl_config *c)
{
	tl_config(c, "4socket", 4242);
	c->read_pct = 50;
}

/* What a test wants to know of a run, taken before the teardown. */
struct outcome {
	int failed;
	char why[512];
	uint64_t acq, reads, writes;
	unsigned max_readers;
	bool counts_back; /* refcounts: every object at its initial count */
	double write_p99_ns, write_max_ns;
	uint64_t counts[LL_MAX_COUNTS]; /* the lock's own counts (ll_count) */
	unsigned ncounts;
};

static void collect(const struct wl_run *run, int rc, struct outcome *o)
{
	struct ll_hist wr;

	memset(o, 0, sizeof(*o));
	o->failed = rc || run->failed;
	snprintf(o->why, sizeof(o->why), "%s", run->failure);
	for (unsigned i = 0; i < run->nthreads; i++) {
		o->acq += run->threads[i].acquisitions;
		o->reads += run->threads[i].reads;
		o->writes += run->threads[i].writes;
	}
	if (run->algo->kind == LOCK_RWLOCK && run->slots)
		o->max_readers = wl_max_readers(run);
	o->counts_back = run->slots != NULL;
	for (unsigned l = 0; run->algo->kind == LOCK_REFCOUNT && run->slots && l < run->cfg->locks; l++)
		if (run->algo->count(run->slots[l].lock) != run->slots[l].ref_initial)
			o->counts_back = false;
	assert_int_equal(ll_hist_init(&wr), 0);
	for (unsigned i = 0; run->threads && i < run->nthreads; i++)
		ll_hist_merge(&wr, &run->threads[i].wait_write);
	o->write_p99_ns = ll_hist_quantile(&wr, 0.99);
	o->write_max_ns = (double)wr.max;
	ll_hist_free(&wr);
	o->ncounts = wl_counts_sum(o->counts);
}

static void run_once(struct wl_config *c, const struct lock_algo *a, unsigned n, unsigned idx,
		     struct outcome *o)
{
	struct wl_run run;
	struct run_counters cnt;
	char err[512] = "";
	int rc = tl_run(c, a, n, idx, &run, &cnt, err, sizeof(err));

	if (!run.threads)
		fail_msg("%s, %u threads: %s", a->name, n, err);
	collect(&run, rc, o);
	tl_done(&run);
}

static void fail_run(const struct lock_algo *a, unsigned n, unsigned s, const char *what,
		     const struct outcome *o)
{
	fprintf(stderr, "%s t=%u seed#%u: %s (%s; acquisitions %llu)\n", a->name, n, s, what,
		o->failed ? o->why : "no failure reported", (unsigned long long)o->acq);
	fail();
}

/* ------------------------------------------------------------ test locks */

/* Writers exclude each other (test-and-set), readers walk straight in. */
static void tas_acquire(void *l, void *ctx)
{
	struct tl_word_lock *w = l;

	while (ll_xchg(&w->word, 1, LL_ACQUIRE))
		ll_wait_until(&w->word, VAL == 0);
}

static void tas_release(void *l, void *ctx)
{
	struct tl_word_lock *w = l;

	ll_store(&w->word, 0, LL_RELEASE);
}

static const struct lock_algo open_reads = {
	.name = "open-reads",
	.desc = "readers ignore writers (test only)",
	.kind = LOCK_RWLOCK,
	.lock_size = sizeof(struct tl_word_lock),
	.init = tl_nop_init,
	.read_lock = tl_nop,
	.read_unlock = tl_nop,
	.write_lock = tas_acquire,
	.write_unlock = tas_release,
};

/* Readers exclude each other too: a mutex in rwlock clothes. */
static const struct lock_algo exclusive_reads = {
	.name = "exclusive-reads",
	.desc = "every section exclusive (test only)",
	.kind = LOCK_RWLOCK,
	.lock_size = sizeof(struct tl_word_lock),
	.init = tl_nop_init,
	.read_lock = tas_acquire,
	.read_unlock = tas_release,
	.write_lock = tas_acquire,
	.write_unlock = tas_release,
};

/* A count whose get is a plain load and store with work in between (a
 * lost get is never made up by a lost put: the count ends low).  Natively
 * a get is lost when two gets overlap on two cores, or when a thread is
 * preempted between its load and store while another holds a reference;
 * the get yields its cpu between the two, so that the second happens even
 * when the machine's other work leaves both threads one cpu. */
struct racy_count {
	int64_t count;
} ll_cacheline_aligned;

static void racy_init(void *obj, unsigned n)
{
	((struct racy_count *)obj)->count = 1;
}

static void racy_get(void *obj, void *ctx)
{
	struct racy_count *r = obj;
	int64_t v = ll_load(&r->count, LL_RELAXED);

	ll_delay_ns(500);
	if (!tl_is_sim())
		sched_yield();
	ll_store(&r->count, v + 1, LL_RELAXED);
}

static void racy_put(void *obj, void *ctx)
{
	struct racy_count *r = obj;

	(void)ll_fetch_add(&r->count, -1, LL_RELAXED);
}

static int64_t racy_read(void *obj)
{
	return ll_load(&((struct racy_count *)obj)->count, LL_ACQUIRE);
}

static const struct lock_algo racy_ref = {
	.name = "racy-ref",
	.desc = "count with load/store, no atomics (test only)",
	.kind = LOCK_REFCOUNT,
	.lock_size = sizeof(struct racy_count),
	.init = racy_init,
	.get = racy_get,
	.put = racy_put,
	.count = racy_read,
};

/* ------------------------------------------------------------ checkers */

static void checker_catches_a_reader_beside_a_writer(void **state)
{
	struct wl_config c;
	struct outcome o;

	base_config(&c);
	c.ops = tl_is_sim() ? 50 : 200000;
	c.cs_ns = 200;
	c.ncs_ns = 0;
	c.ncs_exp = false;
	run_once(&c, &open_reads, tl_is_sim() ? 4 : 2, 0, &o);
	assert_true(o.failed);
	assert_non_null(strstr(o.why, "mutual exclusion violated"));
	assert_non_null(strstr(o.why, "open-reads"));
	/* writers exclude each other here: what failed is a reader's check */
	assert_non_null(strstr(o.why, "read"));
}

static void checker_catches_a_lost_reference(void **state)
{
	struct wl_config c;
	struct outcome o;

	base_config(&c);
	/* natively long enough (~0.2 s) that both threads run a while together
	 * even when other work holds the machine's cpus at the start */
	c.ops = tl_is_sim() ? 50 : 100000;
	c.cs_ns = 1000;
	c.ncs_ns = 0;
	c.ncs_exp = false;
	run_once(&c, &racy_ref, tl_is_sim() ? 4 : 2, 0, &o);
	assert_true(o.failed);
	assert_false(o.counts_back);
	assert_non_null(strstr(o.why, "refcount lost"));
	assert_non_null(strstr(o.why, "racy-ref"));
}

static void overlap_of_exclusive_readers_is_one(void **state)
{
	struct wl_config c;
	struct outcome o;

	base_config(&c);
	c.read_pct = 100;
	c.cs_ns = 500;
	c.ncs_ns = 0;
	c.ncs_exp = false;
	c.ops = tl_is_sim() ? 50 : 5000;
	run_once(&c, &exclusive_reads, tl_is_sim() ? 8 : 2, 0, &o);
	assert_false(o.failed);
	assert_int_equal(o.reads, c.ops * (tl_is_sim() ? 8 : 2));
	assert_int_equal(o.max_readers, 1);
}

/* ------------------------------------------------------------ rwlocks */

/*
 * Every lock of kind with 2 and 4 threads natively (the second unpinned,
 * few operations), 4 and 8 in the simulator over 25 seeds: each run must
 * pass check(); shape(c, k) sets the workload of thread count k.
 */
static void every_lock_of_kind(enum lock_kind kind, void (*shape)(struct wl_config *, unsigned),
			       const char *(*check)(const struct wl_config *, unsigned,
						    const struct outcome *))
{
	const unsigned counts[2] = { tl_is_sim() ? 4 : 2, tl_is_sim() ? 8 : 4 };
	unsigned seeds = tl_is_sim() ? 25 : 1;
	struct wl_config c;
	struct outcome o;

	for (size_t i = 0; i < lock_catalogue_size(); i++) {
		const struct lock_algo *a = lock_catalogue_get(i);

		if (a->kind != kind)
			continue;
		for (unsigned k = 0; k < 2; k++) {
			base_config(&c);
			shape(&c, k);
			if (!tl_is_sim() && k)
				tl_set_pin(&c, PIN_NONE);
			for (unsigned s = 0; s < seeds; s++) {
				const char *why;

				run_once(&c, a, counts[k], s, &o);
				why = check(&c, counts[k], &o);
				if (why)
					fail_run(a, counts[k], s, why, &o);
			}
		}
	}
}

static void rw_shape(struct wl_config *c, unsigned k)
{
	c->read_pct = k ? 90 : 50;
	c->ops = tl_is_sim() ? 30 : k ? 300 : 20000;
}

static const char *rw_check(const struct wl_config *c, unsigned n, const struct outcome *o)
{
	if (o->failed || o->acq != c->ops * n)
		return "writers not exclusive or ops lost";
	if (o->writes == 0 || o->reads == 0)
		return "the mix did not exercise both sides";
	return NULL;
}

static void every_rwlock_excludes_writers(void **state)
{
	every_lock_of_kind(LOCK_RWLOCK, rw_shape, rw_check);
}

/*
 * Only reads, sections long against the way in: every rwlock must let
 * readers overlap (8 threads on 4socket with cs 500 ns in the simulator,
 * 2 with cs 50 us natively).  Natively the two threads overlap only while
 * the OS runs both at once, which a busy machine may not do for the whole
 * run: up to 5 runs, any with an overlap of 2 passes.
 */
static void readers_run_concurrently(void **state)
{
	struct wl_config c;
	struct outcome o;
	unsigned n = tl_is_sim() ? 8 : 2;

	for (size_t i = 0; i < lock_catalogue_size(); i++) {
		const struct lock_algo *a = lock_catalogue_get(i);

		if (a->kind != LOCK_RWLOCK)
			continue;
		unsigned tries = tl_is_sim() ? 1 : 5, s;

		base_config(&c);
		c.read_pct = 100;
		c.cs_ns = tl_is_sim() ? 500 : 50000;
		c.ncs_ns = 0;
		c.ncs_exp = false;
		c.ops = tl_is_sim() ? 50 : 1000;
		for (s = 0; s < tries; s++) {
			run_once(&c, a, n, s, &o);
			if (o.failed || o.reads != c.ops * n)
				fail_run(a, n, s, "read-only run failed", &o);
			if (o.max_readers >= 2)
				break;
		}
		print_message("  %-14s readers overlapped: %u of %u\n", a->name, o.max_readers, n);
		if (o.max_readers < 2)
			fail_run(a, n, s, "readers never overlapped", &o);
	}
}

/*
 * 90% reads on 4socket, 32 threads, the fserver preset's cs 200 ns and
 * ncs exp:2000 ns, 2 ms.  Readers of the reader-preferring rwlock keep it
 * held while a writer waits, so its writers' wait grows with the run;
 * qrwlock queues readers behind a waiting writer.  Asserted: qrwlock's
 * p99 under a quarter of rwlock's, and its longest wait under a quarter of
 * the run.  The test prints the figures and the command that gives them
 * (write_wait_p99_ns and write_wait_max_ns in its CSV).
 */
static void fair_rwlock_bounds_writer_wait(void **state)
{
	struct wl_config c;
	struct outcome rw, q, sem;

	if (!tl_is_sim()) {
		print_message("  (simulator only: 2 cores cannot starve a writer)\n");
		return;
	}
	base_config(&c);
	c.read_pct = 90;
	c.cs_ns = 200;
	c.ncs_ns = 2000;
	c.ncs_exp = true;
	c.cs_lines = 1;
	c.duration_ms = 2;
	run_once(&c, lock_find("rwlock"), 32, 0, &rw);
	run_once(&c, lock_find("qrwlock"), 32, 0, &q);
	run_once(&c, lock_find("rwsem"), 32, 0, &sem);
	print_message("  writer wait p99 / max: rwlock %.0f / %.0f ns, qrwlock %.0f / %.0f ns, "
		      "rwsem %.0f / %.0f ns\n",
		      rw.write_p99_ns, rw.write_max_ns, q.write_p99_ns, q.write_max_ns,
		      sem.write_p99_ns, sem.write_max_ns);
	tl_print_command(&c, "run", "rwlock,qrwlock,rwsem", 32, 1, "--format csv");
	assert_false(rw.failed);
	assert_false(q.failed);
	assert_false(sem.failed);
	assert_true(rw.writes > 0 && q.writes > 0 && sem.writes > 0);
	assert_true(q.write_p99_ns * 4 < rw.write_p99_ns);
	assert_true(q.write_max_ns * 4 < c.duration_ms * 1e6);
	/* a queued writer sends the readers that come after it to the queue */
	assert_true(sem.write_p99_ns * 4 < rw.write_p99_ns);
	assert_true(sem.write_max_ns * 4 < c.duration_ms * 1e6);
}

/* ------------------------------------------------------------ refcounts */

static void ref_shape(struct wl_config *c, unsigned k)
{
	c->cs_ns = 0;
	c->ncs_ns = 20;
	c->locks = k + 1;
	c->ops = tl_is_sim() ? 40 : k ? 300 : 50000;
}

static const char *ref_check(const struct wl_config *c, unsigned n, const struct outcome *o)
{
	if (o->failed || !o->counts_back || o->acq != c->ops * n)
		return "count not back at its initial value";
	return NULL;
}

static void refcounts_never_lost(void **state)
{
	every_lock_of_kind(LOCK_REFCOUNT, ref_shape, ref_check);
}

/*
 * A lock's own counts (ll_count, core/counts.c) add up: every get or put
 * of lockref either succeeds by cmpxchg or takes the lock, so over an
 * --ops run (counted whole) the cmpxchgs less the failed ones, plus the
 * lockings, are its gets and puts; 32 simulated threads on one lockref
 * make cmpxchgs fail, and at most all of the lockings gave up after retries.
 * percpu-rwsem's fast reads are some of its reads; a lock that keeps no
 * counts reports none; qspinlock takes each acquisition by one of its
 * three paths; cna's unlocks hand over by one of three; each of cohort's
 * passes the lock within the node or releases the global one.
 */
static void locks_count_their_paths(void **state)
{
	struct wl_config c;
	struct outcome o;
	const struct lock_algo *lref = lock_find("lockref"), *pcpu = lock_find("percpu-rwsem");
	/* natively 4 threads: on few cpus a preempted holder of lockref's ticket
	 * lock convoys a long queue */
	const unsigned nref = tl_is_sim() ? 32 : 4;

	base_config(&c);
	ref_shape(&c, 0);
	c.ops = tl_is_sim() ? 200 : 20000;
	run_once(&c, lref, nref, 0, &o);
	assert_false(o.failed);
	assert_int_equal(o.ncounts, 4); /* cmpxchg, failed, locked, after retries */
	print_message("    lockref, %u threads: %llu get/put pairs, %llu cmpxchg, %llu failed, "
		      "%llu locked (%llu after retries)\n", nref, (unsigned long long)o.acq,
		      (unsigned long long)o.counts[0], (unsigned long long)o.counts[1],
		      (unsigned long long)o.counts[2], (unsigned long long)o.counts[3]);
	assert_true(o.counts[0] - o.counts[1] + o.counts[2] == 2 * o.acq);
	assert_true(o.counts[3] <= o.counts[2]);
	if (tl_is_sim()) /* natively the cores at hand may not collide */
		assert_true(o.counts[1] > 0);
	base_config(&c);
	rw_shape(&c, 0);
	run_once(&c, pcpu, 8, 0, &o);
	assert_false(o.failed);
	assert_int_equal(o.ncounts, 3);
	assert_true(o.counts[0] <= o.reads);
	run_once(&c, lock_find("qrwlock"), 8, 0, &o);
	assert_int_equal(o.ncounts, 0);
	/* qspinlock: each acquisition by one path, fast, pending or queued */
	base_config(&c);
	c.ops = tl_is_sim() ? 50 : 20000; /* natively 2 threads: a queue of more on few cpus convoys */
	run_once(&c, lock_find("qspinlock"), tl_is_sim() ? 8 : 2, 0, &o);
	assert_false(o.failed);
	assert_int_equal(o.ncounts, 3);
	assert_true(o.counts[0] + o.counts[1] + o.counts[2] == o.acq);
	/* cna: an unlock that finds a successor hands over one way; some do */
	run_once(&c, lock_find("cna"), tl_is_sim() ? 8 : 2, 0, &o);
	assert_false(o.failed);
	assert_int_equal(o.ncounts, 4);
	assert_true(o.counts[0] + o.counts[2] + o.counts[3] <= o.acq);
	if (tl_is_sim()) /* eight on a 4socket's socket 0 queue: every unlock finds one */
		assert_true(o.counts[0] + o.counts[2] + o.counts[3] > 0);
	/* cohort: every unlock passes locally or releases the global lock */
	run_once(&c, lock_find("cohort"), tl_is_sim() ? 8 : 2, 0, &o);
	assert_false(o.failed);
	assert_int_equal(o.ncounts, 2);
	assert_true(o.counts[0] + o.counts[1] == o.acq);
}

/* ------------------------------------------------------------ presets */

static int parse(struct cli_opts *o, char *err, size_t len, const char **args)
{
	char *argv[16];
	int n = 0;

	while (args[n]) {
		argv[n] = (char *)args[n];
		n++;
	}
	return cli_parse_run(n, argv, o, err, len);
}

static void presets_set_the_workload(void **state)
{
	static struct cli_opts o;
	char err[512];

	assert_int_equal(parse(&o, err, sizeof(err), (const char *[]){ "--preset", "fserver", NULL }), 0);
	assert_int_equal(o.cfg.nalgos, 5);
	assert_string_equal(o.cfg.algos[0]->name, "rwlock");
	assert_string_equal(o.cfg.algos[4]->name, "brlock");
	assert_int_equal(o.cfg.read_pct, 90);
	assert_int_equal(o.cfg.cs_ns, 200);
	assert_int_equal(o.cfg.ncs_ns, 2000);
	assert_true(o.cfg.ncs_exp);

	/* an option given as well wins, before or after the preset */
	assert_int_equal(parse(&o, err, sizeof(err),
			       (const char *[]){ "--cs", "50", "--preset=stat", "--lock", "lockref", NULL }),
			 0);
	assert_int_equal(o.cfg.nalgos, 1);
	assert_string_equal(o.cfg.algos[0]->name, "lockref");
	assert_int_equal(o.cfg.cs_ns, 50);
	assert_int_equal(o.cfg.ncs_ns, 300);
	assert_false(o.cfg.ncs_exp);

	assert_int_equal(parse(&o, err, sizeof(err), (const char *[]){ "--preset", "nope", NULL }), 2);
	assert_non_null(strstr(err, "nope"));
	assert_null(strchr(err, '\n'));
	assert_int_equal(parse(&o, err, sizeof(err),
			       (const char *[]){ "--preset", "stat", "--preset", "stat", NULL }),
			 2);
	assert_int_equal(parse(&o, err, sizeof(err), (const char *[]){ "--preset", NULL }), 2);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(checker_catches_a_reader_beside_a_writer),
		cmocka_unit_test(checker_catches_a_lost_reference),
		cmocka_unit_test(overlap_of_exclusive_readers_is_one),
		cmocka_unit_test(every_rwlock_excludes_writers),
		cmocka_unit_test(readers_run_concurrently),
		cmocka_unit_test(fair_rwlock_bounds_writer_wait),
		cmocka_unit_test(refcounts_never_lost),
		cmocka_unit_test(locks_count_their_paths),
		cmocka_unit_test(presets_set_the_workload),
	};
	if (tl_backend_start(argv[0], "4socket"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
