/*
 * tests/both_table.c - what the user sees of a run: waits are censored, not
 * dropped, and the table says when a lock starves threads.
 *
 * A gated lock keeps every thread but thread 0 out until the run has ended:
 * each of them must count one wait of about the run's length, in its
 * histogram (so in wait_max) and in the per-thread CSV, and the run must
 * count them as starved.  The table and the CSV are checked on made-up
 * rows: the standard error after the mean, the verdict under a starving
 * configuration, the oversubscription mark (tests/both_oversub.c: the runs
 * that are oversubscribed, and the starving end to end).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <math.h>
#include <cmocka.h>

#include <locklab/backend.h>
#include <locklab/lock.h>
#include <locklab/mem.h>
#include <locklab/result.h>
#include <locklab/stats.h>
#include <locklab/workload.h>

#include "table_rows.h"
#include "testlib.h"

static const char *bindir;
static struct wl_run *gated_run;

extern const struct lock_algo lock_tas;

/* tas, except that only thread 0 may try before the run's end. */
static void gated_lock(void *lock, void *ctx)
{
	uint64_t end, now;

	/* one clock read per turn: a second one could pass end, and end - now
	 * would wrap to a delay of centuries */
	while (ll_this_cpu() != 0 &&
	       (now = ll_now_ns()) < (end = __atomic_load_n(&gated_run->end_ns, __ATOMIC_RELAXED)))
		ll_delay_ns(end - now < 1000 ? end - now : 1000);
	lock_tas.lock(lock, ctx);
}

static struct lock_algo gated;

static void base_config(struct wl_config *c)
{
	tl_config_plain(c, "4socket", 7);
	c->duration_ms = 1;
}

/* The per-thread CSV of run, read back: a row per thread. */
static char *threads_csv_of(const struct wl_run *run, const struct run_result *r)
{
	char path[] = "/tmp/both_table.XXXXXX";
	int fd = mkstemp(path);
	static char buf[1 << 16];
	FILE *f;
	size_t n;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(threads_csv_begin(), 0);
	threads_csv_add(run, r);
	assert_int_equal(threads_csv_write(path), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	unlink(path);
	return buf;
}

static void gated_threads_wait_until_the_end(void **state)
{
	struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;
	struct run_result r;
	char *csv, *save = NULL, *line;
	/* natively: one thread per cpu of this 2-cpu machine, and long enough
	 * that starting the threads is a small part of the run */
	unsigned n = tl_is_sim() ? 4 : 2, rows = 0;
	uint64_t dur;
	/* what a thread may have spent before it first asked: the start skew
	 * and one non-critical section in the simulator; natively, wake-up */
	uint64_t slack;

	gated = lock_tas;
	gated.name = "gated";
	gated.lock = gated_lock;
	base_config(&c);
	if (!tl_is_sim())
		c.duration_ms = 50;
	dur = c.duration_ms * 1000000ull;
	slack = tl_is_sim() ? 2000 : dur / 2;
	gated_run = &run;
	tl_run_ok(&c, &gated, n, 0, &run, &cnt);
	assert_true(run.threads[0].acquisitions > 0);
	for (unsigned i = 1; i < n; i++) {
		const struct wl_thread *t = &run.threads[i];

		assert_int_equal(t->acquisitions, 0);
		assert_int_equal(t->wait.count, 1);
		assert_true(t->censored_ns == t->wait.max); /* its one wait, cut short */
		assert_true(t->wait.max <= dur);
		assert_true(t->wait.max + slack >= dur);
	}
	memset(&r, 0, sizeof(r));
	snprintf(r.backend, sizeof(r.backend), "%s", backend_name);
	snprintf(r.topo, sizeof(r.topo), "t");
	snprintf(r.lock, sizeof(r.lock), "gated");
	r.threads = n;
	r.acquisitions = run.threads[0].acquisitions;
	result_count_threads(&r, &run);
	assert_int_equal(r.starved, n - 1);
	csv = threads_csv_of(&run, &r);
	strtok_r(csv, "\n", &save); /* the header */
	while ((line = strtok_r(NULL, "\n", &save))) {
		unsigned tid;
		unsigned long long acq, wmax;
		double mean;

		assert_int_equal(sscanf(line, "%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],"
					"%*[^,],%*[^,],%u,%*[^,],%*[^,],%llu,%*[^,],%lf,%*[^,],%*[^,],%llu,",
					&tid, &acq, &mean, &wmax), 4);
		assert_int_equal(tid, rows++);
		if (tid == 0)
			continue;
		assert_int_equal(acq, 0);
		assert_int_equal(wmax, run.threads[tid].wait.max);
		assert_true(mean + (double)slack >= (double)dur);
	}
	assert_int_equal(rows, n);
	tl_done(&run);
}

static void sem_is_sigma_over_root_n(void **state)
{
	double x[] = { 1, 2, 3, 4 }, one = 5;
	struct ll_summary s;

	ll_summarize(x, 4, &s);
	assert_true(fabs(s.sem - s.sigma / 2.0) < 1e-12);
	assert_true(fabs(s.sigma - sqrt(5.0 / 3.0)) < 1e-12);
	ll_summarize(&one, 1, &s);
	assert_true(isnan(s.sem));
}

/* What print (output_table, output_csv) writes of o; valid until the
 * next call. */
static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

static void table_tells_starvation(void **state)
{
	struct output_set o = { 0 };
	struct run_result r;
	const double tput[3] = { 4.0e6, 5.0e6, 6.0e6 };
	char *t;

	for (unsigned i = 0; i < 3; i++) {
		fake_row(&r, "cohort", 32, i);
		r.throughput_per_s = tput[i];
		r.jain = 0.25;
		r.starved = 24;
		r.sockets = 4;
		r.wait_p99_ns = 2.0e6;
		r.handoff_local_frac = 1.0;
		output_add(&o, &r);
	}
	fake_row(&r, "mcs", 8, 0);
	r.throughput_per_s = 5.0e6;
	r.wait_p99_ns = 1200;
	r.oversubscribed = true;
	output_add(&o, &r);
	t = table_of(&o);
	print_message("%s", t);
	/* sigma 1, mean 5: the standard error is 1/sqrt(3) = 11.55% of it */
	assert_non_null(strstr(t, "( +- 11.55% )"));
	assert_non_null(strstr(t, " 0.2500   24/32 100.0%   2.00 ms\n"));
	assert_non_null(strstr(t, "\n  ! 24 of 32 threads never acquired the lock (Jain 0.25); in "
				  "each run only one socket's threads got it: the throughput is "
				  "theirs\n"));
	assert_non_null(strstr(t, "sim demo t=8* "));
	assert_non_null(strstr(t, "(single run: no variance)"));
	assert_non_null(strstr(t, "  1.0000     0/8      -   1200 ns\n"));
	assert_non_null(strstr(t, "\n*: more threads than CPUs"));
	output_free(&o);
}

/* Three runs of lock at 32 threads on 4 sockets: 2 threads starved in run
 * starved_in, the p99 (2 ms) cut short in run cut_in (-1: in none). */
static void add_three_runs(struct output_set *o, const char *lock, int starved_in, int cut_in)
{
	struct run_result r;

	for (int i = 0; i < 3; i++) {
		fake_row(&r, lock, 32, (unsigned)i);
		r.throughput_per_s = 1e6;
		r.starved = i == starved_in ? 2 : 0;
		r.sockets = 4;
		r.sockets_served = 4;
		r.wait_p99_ns = 2e6;
		r.wait_p99_censored = i == cut_in;
		output_add(o, &r);
	}
}

static void verdict_counts_runs(void **state)
{
	struct output_set o = { 0 };
	char *t;

	add_three_runs(&o, "ttas", 1, -1);
	t = table_of(&o);
	assert_non_null(strstr(t, "  ! up to 2 of 32 threads never acquired the lock (in 1 of 3 runs; "
				  "Jain 1.00)\n"));
	assert_null(strstr(t, "*: more"));
	output_free(&o);
}

/* A thread left with under a twentieth of the busiest one's acquisitions,
 * though none starved: the row is called unfair, with the worst run's
 * counts; a twentieth or more is not; a starved run says starved instead. */
static void verdict_says_unfair(void **state)
{
	struct output_set o = { 0 };
	struct run_result r;
	char *t;

	for (unsigned i = 0; i < 3; i++) {
		fake_row(&r, "ttas", 8, i);
		r.acq_min = i == 1 ? 7 : 40;
		r.acq_max = i == 2 ? 500 : 354;
		r.jain = i == 1 ? 0.2 : 0.9;
		output_add(&o, &r);
	}
	t = table_of(&o);
	assert_non_null(strstr(t, "  ! unfair: in 1 of 3 runs a thread made under 5% of the busiest "
				  "one's acquisitions (at worst 7 against 354, that run's Jain 0.20)\n"));
	output_free(&o);
	o = (struct output_set){ 0 };
	fake_row(&r, "ttas", 8, 0);
	r.acq_min = 18; /* 5.1% of 354 */
	r.acq_max = 354;
	output_add(&o, &r);
	t = table_of(&o);
	assert_null(strstr(t, "! unfair"));
	output_free(&o);
	o = (struct output_set){ 0 };
	fake_row(&r, "ttas", 8, 0);
	r.acq_min = 0;
	r.acq_max = 354;
	r.starved = 1;
	output_add(&o, &r);
	t = table_of(&o);
	assert_null(strstr(t, "! unfair"));
	assert_non_null(strstr(t, "never acquired the lock"));
	output_free(&o);
}

/* Oversubscribed rows (more threads than CPUs, natively): a longest wait
 * far above p99 is a wait for a CPU, and the row says how long it was. */
static void oversubscribed_waits_said(void **state)
{
	struct output_set o = { 0 };
	struct run_result r;
	char *t;

	for (unsigned i = 0; i < 2; i++) {
		fake_row(&r, "ticket", 4, i);
		r.oversubscribed = true;
		r.wait_p99_ns = 200;
		r.wait_mean_ns = i ? 30000 : 10000;
		r.wait_max_ns = i ? 12e6 : 3e6;
		output_add(&o, &r);
	}
	t = table_of(&o);
	assert_non_null(strstr(t, "  ! longest wait 12.00 ms (the waits' mean 20.0 us): with more "
				  "threads than CPUs, the waits for a CPU lie above wait p99\n"));
	output_free(&o);
	o = (struct output_set){ 0 };
	fake_row(&r, "ticket", 4, 0);
	r.oversubscribed = true;
	r.wait_p99_ns = 200;
	r.wait_mean_ns = 100;
	r.wait_max_ns = 50e3; /* over ten p99s, but no scheduler's wait: nothing to say */
	output_add(&o, &r);
	t = table_of(&o);
	assert_null(strstr(t, "! longest wait"));
	output_free(&o);
}

/* A run with fewer acquisitions than threads could not give each one: the
 * verdict says so instead of blaming the lock. */
static void verdict_says_a_run_too_short(void **state)
{
	struct output_set o = { 0 };
	char *t;

	add_three_runs(&o, "ticket", 1, -1);
	o.rows[1].acquisitions = 14;
	t = table_of(&o);
	assert_non_null(strstr(t, "(in 1 of 3 runs; Jain 1.00); but a run made 14 acquisitions for "
				  "32 threads: too short to give each one, whatever the lock"));
	output_free(&o);
}

/* Slow runs keep their digits: a heading whose rows are below 10 k/s is in
 * kacq/s, below 10/s in acq/s; the next heading chooses again. */
static void slow_rates_keep_digits(void **state)
{
	struct output_set o = { 0 };
	struct run_result r;
	char *t;

	fake_row(&r, "ticket", 2, 0);
	r.throughput_per_s = 120;
	output_add(&o, &r);
	fake_row(&r, "mcs", 2, 0);
	r.throughput_per_s = 3.5;
	output_add(&o, &r);
	fake_row(&r, "tas", 2, 0);
	r.throughput_per_s = 2.5e6;
	output_add(&o, &r);
	t = table_of(&o);
	assert_non_null(strstr(t, "ticket  cs=50ns ncs=200ns cs-lines=1 locks=1   (throughput, kacq/s)"));
	assert_non_null(strstr(t, " 0.1200  (single run: no variance)"));
	assert_non_null(strstr(t, "mcs  cs=50ns ncs=200ns cs-lines=1 locks=1   (throughput, acq/s)"));
	assert_non_null(strstr(t, " 3.5000  (single run: no variance)"));
	assert_non_null(strstr(t, "tas  cs=50ns ncs=200ns cs-lines=1 locks=1   (throughput, Macq/s)"));
	output_free(&o);

	/* one heading, a row over a thousand times below its largest: the
	 * heading's unit, and the row's own decimals, three significant digits */
	memset(&o, 0, sizeof(o));
	fake_row(&r, "ticket", 2, 0);
	r.throughput_per_s = 4.5e6;
	output_add(&o, &r);
	for (unsigned run = 0; run < 2; run++) {
		fake_row(&r, "ticket", 32, run);
		r.throughput_per_s = run ? 2.5e3 : 2.7e3;
		output_add(&o, &r);
	}
	t = table_of(&o);
	assert_non_null(strstr(t, "(throughput, Macq/s)"));
	assert_non_null(strstr(t, " 4.5000  (single run: no variance)"));
	if (!strstr(t, " 0.00260  2.00e-08   0.00014   0.00270   0.00250  "))
		fail_msg("the slow row lost its digits:\n%s", t);
	output_free(&o);
}

/* A sweep stopped early (two of a configuration's three runs done): the
 * settings line says so, the row of two runs says whose figures they are,
 * and the JSON says how many runs were done of how many. */
static void stopped_early_said(void **state)
{
	struct output_set o = { 0 };
	struct wl_config cfg;
	char *t, *j = NULL;
	size_t n = 0;
	FILE *f;

	base_config(&cfg);
	cfg.runs = 3;
	o.cfg = &cfg;
	add_three_runs(&o, "ttas", -1, -1);
	o.nrows = 2; /* the third did not run */
	o.runs_done = 2;
	o.runs_planned = 3;
	t = table_of(&o);
	assert_non_null(strstr(t, "\nstopped early: 2 of 3 runs done; the rows are those runs'\n"));
	assert_non_null(strstr(t, "\n  ! the figures of 2 of 3 runs: the others failed or did not "
				  "run\n"));
	f = open_memstream(&j, &n);
	assert_non_null(f);
	output_json(f, &o);
	fclose(f);
	assert_non_null(strstr(j, "\"stopped_early\": {\"runs_done\": 2, \"runs_planned\": 3}"));
	free(j);
	o.runs_done = 3; /* done: not said */
	t = table_of(&o);
	assert_null(strstr(t, "stopped early"));
	output_free(&o);
}

/* A p99 that waits cut short by the run's end may make a lower bound is
 * marked >= (one run of the configuration is enough); others are not. */
static void censored_p99_marked(void **state)
{
	struct output_set o = { 0 };
	struct run_result r;
	char *t;

	add_three_runs(&o, "tas", -1, 2);
	fake_row(&r, "mcs", 32, 0);
	r.throughput_per_s = 3e6;
	r.wait_p99_ns = 10300;
	r.handoff_frac = NAN; /* none: an empty cell */
	output_add(&o, &r);
	t = table_of(&o);
	assert_non_null(strstr(t, " >=2.00 ms\n"));
	assert_non_null(strstr(t, " -   10.3 us\n"));
	assert_null(strstr(t, ">=10.3"));
	assert_non_null(strstr(t, ">= marks a p99"));
	t = csv_of(&o);
	assert_non_null(strstr(t, ",idle_exit_ns_per_acq,wait_p99_censored,read_wait_p99_censored,"
				  "write_wait_p99_censored,wait_max_censored,sockets,sockets_served,"
				  "handoff_frac,read_wait_max_censored,write_wait_max_censored\n"));
	assert_non_null(strstr(t, ",tas,32,"));
	/* tas's run 2 only (its three runs on 4 sockets); a mutex has no sides */
	assert_int_equal(count(t, ",true,,,false,4,4,1.000000000,,\n"), 1);
	assert_int_equal(count(t, ",false,,,false,4,4,1.000000000,,\n"), 2);
	assert_int_equal(count(t, ",false,,,false,1,1,,,\n"), 1); /* mcs: no handoff_frac */
	output_free(&o);
}

/* A rwlock's side lines: a run that timed no write has no write p99 (empty
 * in the CSV, out of the mean, "-" when no run has one), and a side's p99
 * that is only a lower bound is marked >=. */
static void rw_sides_without_waits(void **state)
{
	struct output_set o = { 0 };
	struct run_result r;
	char *t;

	for (unsigned i = 0; i < 2; i++) {
		fake_row(&r, "rwlock", 4, i);
		r.is_rwlock = true;
		r.read_pct = 90;
		r.throughput_per_s = 1e6;
		r.reads = 100;
		r.read_wait_p99_ns = 100;
		r.read_wait_max_ns = 300;
		r.writes = i;
		r.write_wait_p99_ns = i ? 2000 : NAN;
		r.write_wait_max_ns = i ? 2500 : NAN;
		r.write_wait_p99_censored = i == 1;
		r.write_wait_max_censored = i == 1; /* said in the table and in the CSV */
		output_add(&o, &r);
	}
	t = table_of(&o);
	assert_non_null(strstr(t, "wait p99       100 ns  max       300 ns  overlap at least"));
	assert_non_null(strstr(t, "wait p99    >=2000 ns  max    >=2500 ns\n")); /* not 1000 */
	assert_non_null(strstr(t, "(rwlocks):")); /* the legend, wherever it wraps */
	t = csv_of(&o);
	assert_non_null(strstr(t, ",0,100.00,300.00,,,0,"));  /* run 0: no write figures */
	assert_non_null(strstr(t, ",false,false,true,false,1,1,1.000000000,false,true\n")); /* run 1's write p99 and max censored */
	output_free(&o);
	o = (struct output_set){ 0 };
	fake_row(&r, "rwlock", 4, 0);
	r.is_rwlock = true;
	r.read_pct = 100;
	r.throughput_per_s = 1e6;
	r.reads = 10;
	r.read_wait_p99_ns = r.read_wait_max_ns = 50;
	r.write_wait_p99_ns = r.write_wait_max_ns = NAN;
	output_add(&o, &r);
	t = table_of(&o);
	assert_non_null(strstr(t, "wait p99            -  max            -\n"));
	output_free(&o);
}

/* A run with no acquisition, as sweep.c fills it: no Jain index (its
 * formula gives 1 for all zeros). */
static void fake_empty_run(struct run_result *r, const char *lock, unsigned threads, unsigned run)
{
	fake_row(r, lock, threads, run);
	r->acquisitions = 0;
	r->jain = NAN;
	r->starved = threads;
	r->sockets_served = 0;
}

/* No thread acquired the lock: no Jain index in the table, the CSV or the
 * JSON, and a verdict of its own, which names --ncs when the time between
 * acquisitions outlasts the run. */
static void no_acquisition_no_jain(void **state)
{
	struct output_set o = { 0 };
	struct run_result r;
	char *t;

	for (unsigned i = 0; i < 2; i++) {
		fake_empty_run(&r, "mcs", 2, i);
		output_add(&o, &r);
	}
	t = table_of(&o);
	assert_non_null(strstr(t, "       -     2/2"));
	assert_null(strstr(t, "1.0000     2/2"));
	assert_non_null(strstr(t, "! no thread acquired the lock in any run: the throughput is zero\n"));
	t = csv_of(&o);
	assert_non_null(strstr(t, ",0.002000000,0,0.00,"));
	assert_null(strstr(t, "nan"));
	assert_null(strstr(t, ",1.0000,"));
	output_free(&o);

	memset(&o, 0, sizeof(o));
	fake_empty_run(&r, "mcs", 2, 0);
	r.ncs_ns = 20000000; /* 20 ms between acquisitions, a run of 2 ms */
	output_add(&o, &r);
	t = table_of(&o);
	assert_non_null(strstr(t, "the throughput is zero; the mean time between acquisitions "
				  "(--ncs) is as long as a run: a longer --duration tells\n"));
	output_free(&o);

	/* one run of two made none: the index is the other run's, not a mean
	 * with the 1 of an empty run */
	memset(&o, 0, sizeof(o));
	fake_row(&r, "mcs", 2, 0);
	r.jain = 0.5;
	output_add(&o, &r);
	fake_empty_run(&r, "mcs", 2, 1);
	output_add(&o, &r);
	t = table_of(&o);
	assert_non_null(strstr(t, "0.5000     2/2"));
	output_free(&o);
}

/* t with its lines joined: the legend's sentences wrap where the text
 * before them ends. */
/* Under the table, said once where it applies: a simulated run that
 * starved threads under a fixed --ncs (not under an exponential one, nor
 * natively), and a paravirtual lock run outside a virtual machine. */
static void legend_says_what_the_rows_rest_on(void **state)
{
	static const char fixed[] = "Starved under a fixed --ncs";
	static const char pv[] = "pv-*: paravirtual locks outside a virtual machine";
	struct run_result r;
	char *t;

	fake_row(&r, "tas", 4, 0);
	r.starved = 2;
	r.sim.has_sim = true;
	t = flat_table_of_row(&r);
	assert_non_null(strstr(t, fixed));
	assert_null(strstr(t, pv));
	r.ncs_exp = true;
	assert_null(strstr(flat_table_of_row(&r), fixed));
	r.ncs_exp = false;
	r.sim.has_sim = false; /* native: real jitter */
	assert_null(strstr(flat_table_of_row(&r), fixed));

	fake_row(&r, "pv-ticket", 4, 0);
	t = flat_table_of_row(&r);
	assert_non_null(strstr(t, pv));
	assert_null(strstr(t, fixed));
	r.vm.has_vm = true;
	assert_null(strstr(flat_table_of_row(&r), pv));
}

/* The vm line: its wake is the mean over every wake-up of the runs, not the mean
 * of the runs' means (a run of 106 kicks at 41.9 us and one of 3654 at 4 us
 * woke in 5.07 us), and its PLE exits say how many yielded the pCPU. */
static void vm_line_weighs_each_kick(void **state)
{
	struct output_set o = { 0 };
	struct run_result r;
	char *t;

	for (unsigned run = 0; run < 2; run++) {
		fake_row(&r, "pv-qspinlock", 8, run);
		r.vm.has_vm = r.vm.has_sched = true;
		r.vm.overcommit = 2;
		r.vm.pcpus = 4;
		r.vm.ple_exits = run ? 3661 : 4395;
		r.vm.ple_yields = run ? 6 : 4331;
		r.vm.kicks = r.vm.wakes = run ? 3654 : 106;
		r.vm.wake_ps = r.vm.wakes * (run ? 4000000ull : 41915000ull);
		output_add(&o, &r);
	}
	t = flat(table_of(&o));
	output_free(&o);
	if (!strstr(t, "ple exits 4028 (2168 yielded)") || !strstr(t, "wake 5069 ns"))
		fail_msg("the vm line: %s", t);
}

static void csv_has_the_new_columns_last(void **state)
{
	struct output_set o = { 0 };
	struct run_result r;
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	fake_row(&r, "tas", 4, 0);
	r.starved = 3;
	r.oversubscribed = true;
	output_add(&o, &r);
	output_csv(f, &o);
	fclose(f);
	assert_non_null(strstr(buf, ",transfers_class3_per_acq,starved,oversubscribed,"));
	assert_non_null(strstr(buf, ",3,true,"));
	free(buf);
	output_free(&o);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gated_threads_wait_until_the_end),
		cmocka_unit_test(sem_is_sigma_over_root_n),
		cmocka_unit_test(table_tells_starvation),
		cmocka_unit_test(verdict_counts_runs),
		cmocka_unit_test(verdict_says_unfair),
		cmocka_unit_test(oversubscribed_waits_said),
		cmocka_unit_test(verdict_says_a_run_too_short),
		cmocka_unit_test(censored_p99_marked),
		cmocka_unit_test(stopped_early_said),
		cmocka_unit_test(slow_rates_keep_digits),
		cmocka_unit_test(rw_sides_without_waits),
		cmocka_unit_test(no_acquisition_no_jain),
		cmocka_unit_test(legend_says_what_the_rows_rest_on),
		cmocka_unit_test(csv_has_the_new_columns_last),
		cmocka_unit_test(vm_line_weighs_each_kick),
	};
	bindir = argc > 1 ? argv[1] : NULL;
	if (tl_backend_start(argv[0], "4socket"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
