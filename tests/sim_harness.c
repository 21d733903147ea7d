/*
 * tests/sim_harness.c - the harness observes the simulated machine without
 * perturbing it (core/workload.c, docs/harness.md):
 *
 *   - ticket and mcs at 2 threads in one socket, bare lock loop
 *     (cs-lines 0): every coherence miss and invalidation is on the lock's
 *     own lines or the queue nodes; none on data, none on untagged memory;
 *     with one data line, at most one more miss per acquisition;
 *   - one thread: each data line costs exactly one modelled access per
 *     acquisition (a store in a write section, a load in a read section),
 *     and the checker, the handoff record and the timestamps none;
 *   - a lock that excludes nothing is still caught, seed after seed;
 *   - --cs-lines 0 is accepted by both binaries and runs; the simulator's
 *     misses_per_acq of ticket drops by the data line's one miss;
 *   - timing a sample (--time-every K) changes which waits are timed and
 *     nothing else: a duration run of a mutex, a rwlock and a refcount
 *     makes the same acquisitions, thread by thread, at K = 1 and K = 1000
 *     (an untimed acquisition reads the simulated clock to stop on time);
 *   - a thread starved all run has its wait counted at any K (its first
 *     acquisition is timed);
 *   - the handoff record's share (handoff_frac): 0 with one thread, near 1
 *     for ticket at 4 threads, in both binaries, and explain's "taken
 *     again" its complement;
 *   - the user sees it: the CSV's misses per acquisition by line
 *     (lock_, node_, data_, other_misses_per_acq) and explain's section
 *     "misses per acquisition by line" show misses on the lock's and queue
 *     nodes' lines only, and the data line's one miss once it is there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/backend.h>
#include <locklab/lock.h>
#include <locklab/mem.h>
#include <locklab/workload.h>

#include "testlib.h"

#include "../sim/sim.h"

#define TOPO "4socket"

static const char *bindir;

/* The binaries' default sections, all threads on socket 0. */
static void base_config(struct wl_config *c, unsigned cs_lines)
{
	tl_config_plain(c, TOPO, 7);
	c->cs_lines = cs_lines;
	c->pin = PIN_SOCKET;
	c->pin_socket = 0;
	c->pin_text = "socket:0";
	c->ops = 2000;
}

static uint64_t acquisitions(const struct wl_run *run)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < run->nthreads; i++)
		n += run->threads[i].acquisitions;
	return n;
}

/* The model's counters of the run just made (read before the teardown). */
static struct coh_counters run_counters(void)
{
	return sim.snapped ? sim.snap : *coh_counters(sim.model);
}

static void must_run(struct wl_config *c, const char *lock, unsigned n, unsigned idx,
		     struct wl_run *run, struct run_counters *cnt)
{
	char err[512] = "";

	if (tl_run(c, lock_find(lock), n, idx, run, cnt, err, sizeof(err)))
		fail_msg("%s t=%u: %s%s", lock, n, err, run->failure);
}

/* ------------------------------------------------------------ sampling */

static void sampling_changes_only_the_timing(void **state)
{
	static const char *const locks[] = { "mcs", "ttas", "qrwlock", "lockref" };

	for (size_t l = 0; l < sizeof(locks) / sizeof(locks[0]); l++) {
		uint64_t acq[8], timed[2] = { 0, 0 };
		const unsigned every[2] = { 1, 1000 };

		for (int k = 0; k < 2; k++) {
			struct wl_config c;
			struct wl_run run;
			struct run_counters cnt;

			tl_config(&c, TOPO, 3);
			c.duration_ms = 1;
			c.time_every = every[k];
			must_run(&c, locks[l], 8, 0, &run, &cnt);
			for (unsigned i = 0; i < run.nthreads; i++) {
				if (k == 0)
					acq[i] = run.threads[i].acquisitions;
				else
					assert_int_equal(run.threads[i].acquisitions, acq[i]);
				timed[k] += run.threads[i].timed;
			}
			tl_done(&run);
		}
		print_message("    %s: %llu timed at K = 1, %llu at K = 1000\n", locks[l],
			      (unsigned long long)timed[0], (unsigned long long)timed[1]);
		assert_true(timed[1] * 100 < timed[0]);
	}
}

/* ------------------------------------------------------------ traffic */

static void only_lock_and_queue_lines_miss(void **state)
{
	const char *locks[] = { "ticket", "mcs" };

	for (unsigned l = 0; l < 2; l++) {
		struct wl_config c;
		struct wl_run run;
		struct run_counters cnt;
		struct coh_counters k;
		uint64_t acq;

		base_config(&c, 0);
		must_run(&c, locks[l], 2, 0, &run, &cnt);
		k = run_counters();
		acq = acquisitions(&run);
		assert_true(acq > 0);
		assert_true(run.slots[0].data == NULL);
		assert_int_equal(k.misses_by_tag[COH_TAG_OTHER], 0);
		assert_int_equal(k.misses_by_tag[COH_TAG_DATA], 0);
		assert_int_equal(k.invalidations[COH_TAG_OTHER], 0);
		assert_int_equal(k.invalidations[COH_TAG_DATA], 0);
		assert_int_equal(cnt.sim.misses, k.misses_by_tag[COH_TAG_LOCK] + k.misses_by_tag[COH_TAG_CTX]);
		assert_int_equal(cnt.sim.lock_misses, k.misses_by_tag[COH_TAG_LOCK]);
		if (!strcmp(locks[l], "ticket")) /* no queue nodes: the lock line only */
			assert_int_equal(cnt.sim.misses, cnt.sim.lock_misses);
		assert_true(cnt.sim.lock_misses > 0);
		tl_done(&run);

		/* one data line: the only other line that misses, once per
		 * acquisition at most (it follows the lock) */
		base_config(&c, 1);
		must_run(&c, locks[l], 2, 0, &run, &cnt);
		k = run_counters();
		acq = acquisitions(&run);
		assert_int_equal(k.misses_by_tag[COH_TAG_OTHER], 0);
		assert_true(k.misses_by_tag[COH_TAG_DATA] > 0);
		assert_true(k.misses_by_tag[COH_TAG_DATA] <= acq);
		tl_done(&run);
	}
}

/* Modelled accesses of one thread's ops acquisitions of lock with K lines. */
static uint64_t accesses(const char *lock, unsigned cs_lines, unsigned read_pct)
{
	struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;

	base_config(&c, cs_lines);
	c.read_pct = read_pct;
	must_run(&c, lock, 1, 0, &run, &cnt);
	assert_int_equal(acquisitions(&run), c.ops);
	tl_done(&run);
	return cnt.sim.accesses;
}

static void a_section_costs_its_data_only(void **state)
{
	const uint64_t ops = 2000;

	for (unsigned k = 1; k <= 3; k++) {
		assert_int_equal(accesses("ticket", k, 0) - accesses("ticket", 0, 0), k * ops);
		assert_int_equal(accesses("mcs", k, 0) - accesses("mcs", 0, 0), k * ops);
		/* all reads, then all writes, of a reader-writer lock */
		assert_int_equal(accesses("qrwlock", k, 100) - accesses("qrwlock", 0, 100), k * ops);
		assert_int_equal(accesses("qrwlock", k, 0) - accesses("qrwlock", 0, 0), k * ops);
	}
}

/* ------------------------------------------------------------ the checker */

/* A test-and-set that never waits for the word it sets: every thread
 * walks in, after a modelled exchange. */
struct careless_word {
	uint64_t held;
} ll_cacheline_aligned;

static void careless_init(void *l, unsigned n)
{
	((struct careless_word *)l)->held = 0;
}

static void careless_take(void *l, void *ctx)
{
	(void)ll_xchg(&((struct careless_word *)l)->held, 1, LL_ACQUIRE);
}

static void careless_drop(void *l, void *ctx)
{
	ll_store(&((struct careless_word *)l)->held, 0, LL_RELEASE);
}

static const struct lock_algo careless = {
	.name = "careless-tas",
	.desc = "sets the word, never waits (test only)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct careless_word),
	.init = careless_init,
	.lock = careless_take,
	.unlock = careless_drop,
};

/* The simulator's checker sees two holders in the order it runs its
 * threads; ll_sync() before the exit check lets the others run up to the
 * holder's time, so the overlap shows with any number of data lines, a bare
 * loop included (docs/harness.md). */
static void a_lock_that_excludes_nothing_is_caught(void **state)
{
	for (unsigned s = 0; s < 20; s++) {
		struct wl_config c;
		struct wl_run run;
		struct run_counters cnt;
		char err[512] = "";

		base_config(&c, s % 3);
		c.pin = PIN_COMPACT;
		c.pin_text = "compact";
		c.ops = 50;
		c.ncs_ns = 100;
		c.ncs_exp = true;
		c.seed = 100 + s;
		assert_true(tl_run(&c, &careless, 2 + s % 3, s, &run, &cnt, err, sizeof(err)));
		assert_non_null(strstr(run.failure, "mutual exclusion violated"));
		assert_non_null(strstr(run.failure, "careless-tas"));
		tl_done(&run);
	}
}

/* ------------------------------------------------------------ the binaries */

/* Runs a shell command; its exit status, and its stdout in out. */
static int shell(const char *cmd, char *out, size_t len)
{
	struct tl_proc p;
	int rc = tl_sh(&p, "%s", cmd);

	snprintf(out, len, "%s", p.out);
	tl_proc_free(&p);
	return rc;
}

/* Column name of the first CSV row of lock in out, as a number. */
static double csv_field(const char *out, const char *lock, const char *name)
{
	int lc = tl_csv_column(out, "lock");
	size_t len = strlen(lock);

	if (lc < 0)
		fail_msg("no column lock");
	for (const char *line = strchr(out, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		const char *f = line + 1;

		for (int i = 0; i < lc && f; i++)
			f = strchr(f, ',') ? strchr(f, ',') + 1 : NULL;
		if (f && !strncmp(f, lock, len) && f[len] == ',')
			return tl_csv_value(out, line + 1, name);
	}
	fail_msg("no row of %s", lock);
	return 0;
}

/* The share of the acquisitions that changed hands (handoff_frac, the
 * handoff record's count over the acquisitions), in both binaries: none
 * with one thread, whose every acquisition is its own again; nearly all
 * for a FIFO lock whose releaser queues behind the waiters; and explain
 * says the rest as "taken again", from the same counts. */
static void the_handoff_share_in_both_binaries(void **state)
{
	struct tl_proc p;
	double frac;
	const char *again;

	assert_int_equal(tl_sh(&p, "%s/locklab-sim run --topo %s --lock ticket --threads 1 "
				   "--runs 1 --format csv", bindir, TOPO), 0);
	assert_true(csv_field(p.out, "ticket", "handoff_frac") == 0);
	tl_proc_free(&p);
	assert_int_equal(tl_sh(&p, "%s/locklab-sim run --topo %s --lock ticket --threads 4 "
				   "--pin socket:0 --runs 1 --format csv", bindir, TOPO), 0);
	frac = csv_field(p.out, "ticket", "handoff_frac");
	tl_proc_free(&p);
	print_message("    sim ticket, 4 threads: handoff_frac %.6f\n", frac);
	assert_true(frac > 0.99 && frac <= 1);
	assert_int_equal(tl_sh(&p, "%s/locklab-sim explain --topo %s --lock ticket --threads 4 "
				   "--pin socket:0 --runs 1", bindir, TOPO), 0);
	again = strstr(p.out, "taken again by the thread that released it  ");
	assert_non_null(again);
	again += strlen("taken again by the thread that released it  ");
	if (fabs(strtod(again, NULL) - 100 * (1 - frac)) > 0.051)
		fail_msg("explain's taken again %.1f%%, run's 1 - handoff_frac %.4f%%",
			 strtod(again, NULL), 100 * (1 - frac));
	tl_proc_free(&p);

	assert_int_equal(tl_sh(&p, "%s/locklab-native run --lock ticket --threads 1 --duration 20 "
				   "--runs 1 --format csv", bindir), 0);
	assert_true(csv_field(p.out, "ticket", "handoff_frac") == 0);
	tl_proc_free(&p);
	assert_int_equal(tl_sh(&p, "%s/locklab-native run --lock tas --threads 2 --duration 20 "
				   "--runs 1 --format csv", bindir), 0);
	frac = csv_field(p.out, "tas", "handoff_frac");
	tl_proc_free(&p);
	print_message("    native tas, 2 threads: handoff_frac %.6f\n", frac);
	assert_true(frac >= 0 && frac <= 1);
}

/* A thread starved all run has its wait counted whatever K: its first
 * acquisition is always timed (core/workload.c).  ttas at 12 threads on
 * 4socket leaves one without the lock; at K = 1000 its one wait was timed
 * once in a thousand runs, and the longest wait was some other thread's. */
static void a_starved_wait_is_counted_at_any_k(void **state)
{
	struct tl_proc p;

	assert_int_equal(tl_sh(&p, "%s/locklab-sim run --topo 4socket --lock ttas --threads 12 "
				   "--runs 1 --duration 1 --time-every 1000 --format csv", bindir), 0);
	print_message("    ttas t=12, --time-every 1000: %.0f starved, longest wait %.0f ns\n",
		      csv_field(p.out, "ttas", "starved"), csv_field(p.out, "ttas", "wait_max_ns"));
	assert_true(csv_field(p.out, "ttas", "starved") >= 1);
	/* the starved thread's wait, cut short by the end of a 1 ms run */
	assert_true(csv_field(p.out, "ttas", "wait_max_ns") > 0.9e6);
	assert_non_null(strstr(p.out, ",true,"));
	tl_proc_free(&p);
}

static void bare_lock_loop_in_both_binaries(void **state)
{
	struct tl_proc p;
	double m[2];

	for (unsigned k = 0; k < 2; k++) {
		assert_int_equal(tl_sh(&p,
				       "%s/locklab-sim run --topo %s --lock ticket,mcs --threads 2 "
				       "--pin socket:0 --cs-lines %u --runs 1 --format csv",
				       bindir, TOPO, 1 - k),
				 0);
		assert_int_equal(csv_field(p.out, "ticket", "cs_lines"), 1 - k);
		m[k] = csv_field(p.out, "ticket", "misses_per_acq");
		tl_proc_free(&p);
	}
	/* the data line's miss per handoff, and nothing of the harness */
	if (!(m[0] - m[1] > 0.9 && m[0] - m[1] < 1.1))
		fail_msg("ticket misses_per_acq: %.4f with one line, %.4f with none", m[0], m[1]);

	assert_int_equal(tl_sh(&p,
			       "%s/locklab-native run --lock ticket,mcs --threads 2 --cs-lines 0 "
			       "--duration 20 --runs 1 --format csv",
			       bindir),
			 0);
	assert_int_equal(csv_field(p.out, "mcs", "cs_lines"), 0);
	assert_true(csv_field(p.out, "mcs", "acquisitions") > 0);
	tl_proc_free(&p);

	assert_int_equal(tl_sh(&p, "%s/locklab-sim run --lock ticket --cs-lines 4097", bindir), 2);
	tl_proc_free(&p);
}

/* The figure after `label` in explain's section of misses by line. */
static double explain_line(const char *out, const char *label)
{
	const char *sec = strstr(out, "misses per acquisition by line: lock word, queue nodes, "
				      "protected data, other\n");
	char key[64];
	const char *p;

	if (!sec)
		fail_msg("explain has no section of misses by line");
	snprintf(key, sizeof(key), "\n  %s ", label);
	p = strstr(sec, key);
	if (!p)
		fail_msg("explain's section of misses by line has no %s", label);
	return strtod(p + strlen(key), NULL);
}

static void only_lock_lines_miss_says_the_cli(void **state)
{
	static char out[1 << 16];
	static const char *const locks[] = { "ticket", "mcs" };
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "%s/locklab-sim run --topo %s --lock ticket,mcs --threads 2 --pin socket:0 "
		 "--cs-lines 0 --runs 1 --format csv",
		 bindir, TOPO);
	assert_int_equal(shell(cmd, out, sizeof(out)), 0);
	for (unsigned i = 0; i < 2; i++) {
		const char *l = locks[i];
		double all = csv_field(out, l, "misses_per_acq");
		double lock = csv_field(out, l, "lock_misses_per_acq");
		double node = csv_field(out, l, "node_misses_per_acq");

		assert_true(lock > 0.5);
		assert_true(csv_field(out, l, "data_misses_per_acq") == 0);
		assert_true(csv_field(out, l, "other_misses_per_acq") == 0);
		if (lock + node < all - 0.0003 || lock + node > all + 0.0003)
			fail_msg("%s: lock %.4f + node %.4f misses against %.4f in all", l, lock, node,
				 all);
	}
	for (unsigned i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd),
			 "%s/locklab-sim explain --topo %s --lock %s --threads 2 --pin socket:0 "
			 "--cs-lines 0 --runs 1",
			 bindir, TOPO, locks[i]);
		assert_int_equal(shell(cmd, out, sizeof(out)), 0);
		assert_true(explain_line(out, "lock word") > 0.5);
		assert_true(explain_line(out, "protected data") == 0);
		assert_true(explain_line(out, "other") == 0);
	}
	snprintf(cmd, sizeof(cmd),
		 "%s/locklab-sim run --topo %s --lock ticket --threads 2 --pin socket:0 "
		 "--cs-lines 1 --runs 1 --format csv",
		 bindir, TOPO);
	assert_int_equal(shell(cmd, out, sizeof(out)), 0);
	if (fabs(csv_field(out, "ticket", "data_misses_per_acq") - 1) > 0.1)
		fail_msg("ticket with one data line: %.4f data misses per acquisition",
			 csv_field(out, "ticket", "data_misses_per_acq"));
}

/* The per-cpu nodes that qspinlock's family and mutex keep after their lock
 * word count as queue nodes: their queued waiters spin there, as mcs's do on
 * their contexts, and a count on the lock word alone read as a herd on it. */
static void per_cpu_nodes_count_as_queue_nodes(void **state)
{
	static char out[1 << 16];
	static const char *const locks[] = { "mcs", "qspinlock", "pv-qspinlock", "qrwlock-4.2",
					     "mutex" };
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "%s/locklab-sim run --topo %s --lock mcs,qspinlock,pv-qspinlock,qrwlock-4.2,mutex "
		 "--threads 8 --duration 1 --runs 1 --format csv",
		 bindir, TOPO);
	assert_int_equal(shell(cmd, out, sizeof(out)), 0);
	for (unsigned i = 0; i < sizeof(locks) / sizeof(locks[0]); i++)
		if (!(csv_field(out, locks[i], "node_misses_per_acq") > 0.5))
			fail_msg("%s at 8 threads: %.4f queue-node misses per acquisition", locks[i],
				 csv_field(out, locks[i], "node_misses_per_acq"));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(only_lock_and_queue_lines_miss),
		cmocka_unit_test(a_section_costs_its_data_only),
		cmocka_unit_test(a_lock_that_excludes_nothing_is_caught),
		cmocka_unit_test(bare_lock_loop_in_both_binaries),
		cmocka_unit_test(the_handoff_share_in_both_binaries),
		cmocka_unit_test(a_starved_wait_is_counted_at_any_k),
		cmocka_unit_test(only_lock_lines_miss_says_the_cli),
		cmocka_unit_test(sampling_changes_only_the_timing),
		cmocka_unit_test(per_cpu_nodes_count_as_queue_nodes),
	};
	int rc;

	bindir = argc > 1 ? argv[1] : "bin";
	if (tl_backend_start(argv[0], TOPO))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	backend_fini();
	return rc;
}
