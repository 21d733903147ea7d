/*
 * tests/sim_engine.c - the simulator's glue (sim/engine.c, sim/memops.c,
 * sim/ccbench.c): the ll_* operations' values at every width, waits that
 * wake on a write and deadlines that end at the deadline, park and unpark,
 * the time an access costs, deadlock and no-progress detection with locks
 * broken on purpose, a completion left for later that changes nothing but
 * the events, determinism of whole runs, bad input, and ccbench on
 * the two machines of the SOSP'13 paper.
 *
 * argv[1]: the bin/ directory holding locklab-sim.  The in-process tests
 * run on topologies/4socket.xml (one platform per process).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/mem.h>

#include "testlib.h"

#include "../sim/sim.h"
#include "../sim/storebuf.h"

static const char *bindir;

/* ------------------------------------------------ helpers */

/* Run fn on n actors placed on cores[], each with its own argument. */
static void run_actors(unsigned n, const unsigned *cores, void (*fn)(void *), void **args)
{
	assert_int_equal(sim_begin(n, cores), 0);
	for (unsigned i = 0; i < n; i++)
		sim_spawn(i, fn, args ? args[i] : NULL);
	sim_go();
	sim_end();
}

/* ------------------------------------------------ values at every width */

struct values {
	uint8_t u8_add_old, u8_after;
	int64_t i64_sub_old, i64_after, i64_sub2_old, i64_after2;
	int32_t i32_load, i32_and_old, i32_after;
	uint16_t u16_xchg_old, u16_after;
	uint64_t cas_ok, cas_fail, cas_after;
	uint64_t or_old, and_old, bits_after;
	int8_t i8_load;
};

struct words {
	uint8_t u8;
	int8_t i8;
	uint16_t u16;
	int32_t i32;
	int64_t i64;
	uint64_t u64;
} ll_cacheline_aligned;

static void values_actor(void *arg)
{
	struct values *v = arg;
	struct words *w = ll_alloc_on(sizeof(*w), 0);

	ll_store(&w->u8, 250, LL_RELAXED);
	v->u8_add_old = ll_fetch_add(&w->u8, 10, LL_SEQ_CST); /* wraps to 4 */
	v->u8_after = ll_load(&w->u8, LL_RELAXED);
	ll_store(&w->i64, 5, LL_RELAXED);
	v->i64_sub_old = ll_fetch_add(&w->i64, -1, LL_SEQ_CST);
	v->i64_after = ll_load(&w->i64, LL_RELAXED);
	v->i64_sub2_old = ll_fetch_add(&w->i64, -10, LL_SEQ_CST);
	v->i64_after2 = ll_load(&w->i64, LL_RELAXED);
	ll_store(&w->i32, -1, LL_RELAXED);
	v->i32_load = ll_load(&w->i32, LL_RELAXED);
	v->i32_and_old = ll_fetch_and(&w->i32, 0xff, LL_SEQ_CST);
	v->i32_after = ll_load(&w->i32, LL_RELAXED);
	ll_store(&w->u16, 0xbeef, LL_RELAXED);
	v->u16_xchg_old = ll_xchg(&w->u16, 0x1234, LL_SEQ_CST);
	v->u16_after = ll_load(&w->u16, LL_RELAXED);
	ll_store(&w->u64, 4, LL_RELAXED);
	v->cas_ok = ll_cas(&w->u64, 4, 9, LL_SEQ_CST);
	v->cas_fail = ll_cas(&w->u64, 4, 11, LL_SEQ_CST);
	v->cas_after = ll_load(&w->u64, LL_RELAXED);
	v->or_old = ll_fetch_or(&w->u64, 0xf0, LL_SEQ_CST);
	v->and_old = ll_fetch_and(&w->u64, 0x3c, LL_SEQ_CST);
	v->bits_after = ll_load(&w->u64, LL_RELAXED);
	ll_store(&w->i8, -3, LL_RELAXED);
	v->i8_load = ll_load(&w->i8, LL_RELAXED);
	ll_free(w, sizeof(*w));
}

static void test_values(void **state)
{
	struct values v;
	unsigned core = 0;
	void *args[1] = { &v };

	memset(&v, 0, sizeof(v));
	run_actors(1, &core, values_actor, args);
	assert_int_equal(v.u8_add_old, 250);
	assert_int_equal(v.u8_after, 4);
	assert_int_equal(v.i64_sub_old, 5);
	assert_int_equal(v.i64_after, 4);
	assert_int_equal(v.i64_sub2_old, 4);
	assert_int_equal(v.i64_after2, -6);
	assert_int_equal(v.i32_load, -1);
	assert_int_equal(v.i32_and_old, -1);
	assert_int_equal(v.i32_after, 255);
	assert_int_equal(v.u16_xchg_old, 0xbeef);
	assert_int_equal(v.u16_after, 0x1234);
	assert_int_equal(v.cas_ok, 4);
	assert_int_equal(v.cas_fail, 9); /* the value found */
	assert_int_equal(v.cas_after, 9);
	assert_int_equal(v.or_old, 9);
	assert_int_equal(v.and_old, 0xf9);
	assert_int_equal(v.bits_after, 0x38);
	assert_int_equal(v.i8_load, -3);
}

/* ------------------------------------------------ place */

struct place {
	unsigned cpu, node, ncpus, nnodes;
};

static void place_actor(void *arg)
{
	struct place *p = arg;

	p->cpu = ll_this_cpu();
	p->node = ll_this_node();
	p->ncpus = ll_nr_cpus();
	p->nnodes = ll_nr_nodes();
}

static void test_place(void **state)
{
	struct place p[3];
	unsigned cores[3] = { 0, 9, sim.topo.ncores - 1 };
	void *args[3] = { &p[0], &p[1], &p[2] };

	run_actors(3, cores, place_actor, args);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(p[i].cpu, i);
		assert_int_equal(p[i].node, sim.topo.core_socket[cores[i]]);
		assert_int_equal(p[i].ncpus, 3);
		assert_int_equal(p[i].nnodes, sim.topo.nsockets);
	}
}

/* ------------------------------------------------ time of an access */

struct timing {
	uint64_t miss_ps, hit_ps, hit_events, store_hit_ps;
};

static void timing_actor(void *arg)
{
	struct timing *tm = arg;
	uint64_t *p = ll_alloc_on(64, ll_this_node());
	uint64_t t0, t1, t2, ev;

	t0 = sim_local_ps();
	(void)ll_load(p, LL_RELAXED); /* I -> E: from memory at home */
	t1 = sim_local_ps();
	ev = sim_events();
	(void)ll_load(p, LL_RELAXED); /* E: a hit */
	t2 = sim_local_ps();
	tm->miss_ps = t1 - t0;
	tm->hit_ps = t2 - t1;
	tm->hit_events = sim_events() - ev;
	ll_store(p, 1, LL_RELAXED); /* E -> M silently: a hit */
	tm->store_hit_ps = sim_local_ps() - t2;
	ll_free(p, 64);
}

static void test_access_time(void **state)
{
	struct timing tm;
	unsigned core = 0;
	void *args[1] = { &tm };

	run_actors(1, &core, timing_actor, args);
	assert_int_equal(tm.miss_ps, sim.topo.lat_ps[TOPO_LOAD][TOPO_I][0]);
	assert_int_equal(tm.hit_ps, sim.topo.hit_ps[TOPO_LOAD]);
	assert_int_equal(tm.hit_events, 0);
	assert_int_equal(tm.store_hit_ps, sim.topo.hit_ps[TOPO_STORE]);
}

/* ------------------------------------------------ waits */

struct flag_line {
	uint64_t flag;
} ll_cacheline_aligned;

struct waiting {
	struct flag_line *line;
	uint64_t seen, woke_ps;      /* the waiter */
	uint64_t stored_ps;          /* the writer, after its store */
	bool timed_ok;
	uint64_t timed_start_ns, timed_end_ns;
	uint64_t change_dl_ns, change_end_ps;
};

static void waiter_actor(void *arg)
{
	struct waiting *w = arg;

	if (ll_this_cpu() == 0) {
		w->seen = ll_wait_until(&w->line->flag, VAL == 1);
		w->woke_ps = sim_local_ps();
	} else {
		ll_delay_ns(5000);
		ll_store(&w->line->flag, 1, LL_RELEASE);
		w->stored_ps = sim_local_ps();
	}
}

static void test_wait_wakes_on_write(void **state)
{
	struct waiting w;
	unsigned cores[2] = { 0, 1 }; /* one socket */
	void *args[2] = { &w, &w };

	memset(&w, 0, sizeof(w));
	assert_int_equal(sim_begin(2, cores), 0);
	w.line = ll_alloc_on(sizeof(*w.line), 0);
	for (unsigned i = 0; i < 2; i++)
		sim_spawn(i, waiter_actor, args[i]);
	sim_go();
	sim_end();
	assert_int_equal(w.seen, 1);
	assert_true(w.stored_ps >= 5000000);
	/* woken by the store's completion, the re-read fetches the M line */
	assert_int_equal(w.woke_ps, w.stored_ps + sim.topo.lat_ps[TOPO_LOAD][TOPO_M][0]);
	ll_free(w.line, sizeof(*w.line));
}

static void deadline_actor(void *arg)
{
	struct waiting *w = arg;

	(void)ll_load(&w->line->flag, LL_RELAXED);
	w->timed_start_ns = ll_now_ns();
	w->timed_ok = ll_wait_until_for(&w->line->flag, VAL == 1, 3000);
	w->timed_end_ns = ll_now_ns();
	w->change_dl_ns = ll_now_ns() + 2000;
	ll_wait_change_until(&w->line->flag, 0, w->change_dl_ns);
	w->change_end_ps = sim_local_ps();
}

static void test_deadline(void **state)
{
	struct waiting w;
	unsigned core = 0;
	void *args[1] = { &w };

	memset(&w, 0, sizeof(w));
	assert_int_equal(sim_begin(1, &core), 0);
	w.line = ll_alloc_on(sizeof(*w.line), 0);
	sim_spawn(0, deadline_actor, args[0]);
	sim_go();
	sim_end();
	assert_false(w.timed_ok);
	assert_true(w.timed_end_ns >= w.timed_start_ns + 3000);
	assert_true(w.timed_end_ns <= w.timed_start_ns + 3010);
	assert_int_equal(w.change_end_ps, w.change_dl_ns * 1000);
	ll_free(w.line, sizeof(*w.line));
}

/* ------------------------------------------------ park / unpark */

struct parking {
	uint64_t first_ps, second_ps, kicked_ps, after_kick_ps;
};

static void park_actor(void *arg)
{
	struct parking *pk = arg;

	if (ll_this_cpu() == 1) {
		ll_unpark(0); /* before the park: remembered */
		ll_delay_ns(20000);
		pk->kicked_ps = sim_local_ps();
		ll_unpark(0);
		pk->after_kick_ps = sim_local_ps();
		return;
	}
	ll_delay_ns(1000);
	ll_park(); /* returns at once: the kick came first */
	pk->first_ps = sim_local_ps();
	ll_park(); /* until the second kick */
	pk->second_ps = sim_local_ps();
}

static void test_park(void **state)
{
	struct parking pk;
	unsigned cores[2] = { 0, 1 };
	void *args[2] = { &pk, &pk };

	memset(&pk, 0, sizeof(pk));
	run_actors(2, cores, park_actor, args);
	assert_true(pk.first_ps < 2000000);
	assert_true(pk.second_ps >= pk.kicked_ps);
	assert_true(pk.second_ps <= pk.kicked_ps + SIM_KICK_PS + SIM_WAKE_PS + SIM_HALT_PS);
	/* the kicker pays the assumed kick where the machine gives none */
	assert_false(sim.topo.kick_given);
	assert_int_equal(pk.after_kick_ps - pk.kicked_ps, SIM_KICK_PS);
	/* and the machine's park.kick where it gives one (calibrate's futex_wake) */
	sim.topo.kick_given = true;
	sim.topo.kick_ps = 7300000;
	memset(&pk, 0, sizeof(pk));
	run_actors(2, cores, park_actor, args);
	sim.topo.kick_given = false;
	assert_int_equal(pk.after_kick_ps - pk.kicked_ps, 7300000);
	assert_true(pk.second_ps <= pk.kicked_ps + SIM_WAKE_PS + SIM_HALT_PS + 1000000);
}

/* ------------------------------------------------ broken locks */

/* Parks with nobody to kick it. */
static void park_lock(void *lock, void *ctx)
{
	ll_park();
}

/* Takes the lock, and the unlock forgets to give it back. */
static void grab_lock(void *lock, void *ctx)
{
	struct tl_word_lock *l = lock;

	while (ll_xchg(&l->word, 1, LL_ACQUIRE))
		ll_wait_until(&l->word, VAL == 0);
}

/* Spins on local work forever: no park, no acquisition. */
static void spin_lock(void *lock, void *ctx)
{
	struct tl_word_lock *l = lock;

	while (ll_load(&l->word, LL_ACQUIRE) != 7)
		ll_delay_ns(200);
}

#define BAD_LOCK(nm, fn)                                                                  \
	{                                                                                 \
		.name = nm, .desc = "broken on purpose", .kind = LOCK_MUTEX,              \
		.lock_size = sizeof(struct tl_word_lock), .init = tl_nop_init, .lock = fn,\
		.unlock = tl_nop,                                                         \
	}

static const struct lock_algo park_algo = BAD_LOCK("park", park_lock);
static const struct lock_algo grab_algo = BAD_LOCK("grab", grab_lock);
static const struct lock_algo spin_algo = BAD_LOCK("spin", spin_lock);

/* Short sections, threads scattered over the sockets, ops acquisitions
 * each (0: 1 ms). */
static void config(struct wl_config *cfg, unsigned ops)
{
	tl_config_plain(cfg, NULL, 1);
	cfg->ops = ops;
	cfg->duration_ms = ops ? 0 : 1;
	tl_set_pin(cfg, PIN_SCATTER);
}

/* One run through backend_run; returns its status. */
static int one_run(const struct lock_algo *a, unsigned threads, uint64_t ops, struct wl_run *run,
		   struct run_counters *c)
{
	static struct wl_config cfg;
	char err[256];

	config(&cfg, ops);
	return tl_run(&cfg, a, threads, 0, run, c, err, sizeof(err));
}

static void expect_failure(const struct lock_algo *a, unsigned threads, uint64_t ops,
			   const char *const *needles)
{
	struct wl_run run;
	struct run_counters c;

	assert_int_not_equal(one_run(a, threads, ops, &run, &c), 0);
	assert_int_equal(run.failed, 1);
	print_message("%s\n", run.failure);
	assert_null(strchr(run.failure, '\n'));
	assert_null(strstr(run.failure, "0x"));
	for (; *needles; needles++)
		if (!strstr(run.failure, *needles))
			fail_msg("'%s' lacks '%s'", run.failure, *needles);
	tl_done(&run);
}

static void test_deadlock_line(void **state)
{
	static const char *const n[] = { "deadlock at ", "every thread is parked",
					 "t0 waits on lock+0", "t1 on lock+0", "t2 on lock+0", NULL };

	expect_failure(tl_never_lock(), 3, 0, n);
}

static void test_deadlock_park(void **state)
{
	static const char *const n[] = { "deadlock at ", "t0 in ll_park", "t1 in ll_park", NULL };

	expect_failure(&park_algo, 2, 0, n);
}

/* t0 takes the lock, finishes its one operation and leaves holding it:
 * the others are left waiting, found when t0 exits. */
static void test_deadlock_at_exit(void **state)
{
	static const char *const n[] = { "deadlock at ", "waits on lock+0", NULL };

	expect_failure(&grab_algo, 3, 1, n);
}

static void test_no_progress(void **state)
{
	static const char *const n[] = { "no progress", "simulated time", NULL };
	static const char *const past[] = { "no progress", "past the run's end", NULL };
	char err[128];

	assert_int_equal(backend_parse_option("--watchdog", "1", err, sizeof(err)), 1);
	expect_failure(&spin_algo, 2, 0, n);
	/* off: a duration run that never acquires still ends, past its end */
	assert_int_equal(backend_parse_option("--watchdog", "0", err, sizeof(err)), 1);
	expect_failure(&spin_algo, 2, 0, past);
	assert_int_equal(backend_parse_option("--watchdog", "abc", err, sizeof(err)), -1);
	sim.watchdog_ps = UINT64_MAX; /* the default rule again */
}

/* A thread's own clock runs ahead of the others' by what it owes, so the
 * latest progress may lie after the checking thread's now: that is no
 * stall (it once underflowed into "no acquisition in 18446744073 ms"). */
static void test_progress_ahead_of_now(void **state)
{
	struct wl_run run;
	struct wl_thread th[2];
	(void)state;

	memset(&run, 0, sizeof(run));
	memset(th, 0, sizeof(th));
	run.nthreads = 2;
	run.threads = th;
	th[0].last_progress_ns = 5000; /* ahead of now */
	th[1].last_progress_ns = 100;
	sim.run = &run;
	sim.snapped = true;
	sim.end_ps = UINT64_MAX;
	sim.progress_bound_ps = 1000000;
	sim.now_ps = 4000000;
	sim_check_progress();
	assert_int_equal(run.failed, 0);
	assert_true(sim.next_check_ps == 5000000 + 1000000 + 1);
	sim.run = NULL;
	sim.progress_bound_ps = 0;
	sim.next_check_ps = UINT64_MAX;
	sim.snapped = false;
}

/* After failed runs, a good lock runs normally in the same process. */
static void test_run_after_failure(void **state)
{
	struct wl_run run;
	struct run_counters c;

	assert_int_equal(one_run(lock_find("mcs"), 4, 50, &run, &c), 0);
	assert_int_equal(run.failed, 0);
	assert_int_equal(tl_acquisitions(&run), 200);
	assert_true(c.sim.has_sim);
	assert_true(c.sim.misses > 0);
	assert_true(c.sim.events > 0);
	assert_true(run.stop_ns > 0);
	tl_done(&run);
}

/* A load's miss may leave its completion for later and its thread park at
 * it without a turn of its own (sim/memops.c, sim/blocking.c): the runs
 * are the same as with every miss waiting for its completion in place, but
 * for the number of events, which must be fewer.  Threads scattered over
 * 4socket's sockets meet its socket-first arbitration: misses wait for
 * admission, which a completion made by another actor must give. */
static void same_run(const char *lock, unsigned threads, uint64_t *events, uint64_t *in_place)
{
	struct wl_run run[2];
	struct run_counters c[2];

	for (unsigned k = 0; k < 2; k++) {
		sim.wait_every_completion = k == 1;
		assert_int_equal(one_run(lock_find(lock), threads, 0, &run[k], &c[k]), 0);
	}
	sim.wait_every_completion = false;
	*events += c[0].sim.events;
	*in_place += c[1].sim.events;
	c[0].sim.events = c[1].sim.events = 0;
	assert_int_equal(c[0].sim.misses, c[1].sim.misses);
	assert_int_equal(c[0].sim.accesses, c[1].sim.accesses);
	assert_int_equal(c[0].sim.line_queue_ps, c[1].sim.line_queue_ps);
	assert_int_equal(c[0].sim.lock_invalidations, c[1].sim.lock_invalidations);
	assert_int_equal(c[0].sim.remote_transfers, c[1].sim.remote_transfers);
	assert_int_equal(run[0].stop_ns, run[1].stop_ns);
	for (unsigned i = 0; i < threads; i++) {
		const struct wl_thread *a = &run[0].threads[i], *b = &run[1].threads[i];

		assert_int_equal(a->acquisitions, b->acquisitions);
		assert_int_equal(a->handoffs, b->handoffs);
		assert_int_equal(a->wait.sum, b->wait.sum);
		assert_int_equal(a->wait.max, b->wait.max);
		assert_int_equal(a->finish_ns, b->finish_ns);
	}
	tl_done(&run[0]);
	tl_done(&run[1]);
}

static void test_completion_left_for_later(void **state)
{
	static const char *const locks[] = { "ttas", "ticket", "mcs", "clh", "qspinlock",
					     "pv-ticket", "hticket", NULL };
	uint64_t events = 0, in_place = 0;
	char err[128];
	(void)state;

	for (const char *const *l = locks; *l; l++)
		same_run(*l, 16, &events, &in_place);
	assert_int_equal(backend_parse_option("--memory-model", "sc", err, sizeof(err)), 1);
	same_run("ticket", 16, &events, &in_place);
	same_run("ttas", 8, &events, &in_place);
	sb_set_model(-1); /* the topology's again */
	print_message("events %llu, every miss in place %llu\n", (unsigned long long)events,
		      (unsigned long long)in_place);
	assert_true(events < in_place);
}

/* ------------------------------------------------ the binary */

static void test_determinism(void **state)
{
	struct tl_proc a, b, c;
	const char *args = "run --topo 4socket --lock ttas,mcs,ticket --threads 4,8 --runs 1 "
			   "--ncs exp:300 --format csv";

	assert_int_equal(tl_sh(&a, "%s/locklab-sim %s --seed 7", bindir, args), 0);
	assert_int_equal(tl_sh(&b, "%s/locklab-sim %s --seed 7", bindir, args), 0);
	assert_int_equal(tl_sh(&c, "%s/locklab-sim %s --seed 8", bindir, args), 0);
	assert_true(strlen(a.out) > 100);
	assert_string_equal(a.out, b.out);
	/* the seed column differs anyway: compare the numbers after it */
	assert_true(strcmp(strstr(a.out, ",7,0,"), strstr(c.out, ",8,0,")) != 0);
	tl_proc_free(&a);
	tl_proc_free(&b);
	tl_proc_free(&c);
}

/* The CSV's wait_max_censored, sockets and sockets_served, from real runs:
 * cohort at 32 threads on 4socket keeps the lock on one socket and starves
 * the other 24 threads, whose waits the run's end cuts short, timed or not;
 * mcs serves every socket and no wait is cut short at its longest. */
static void test_sockets_served(void **state)
{
	struct tl_proc p;
	(void)state;

	assert_int_equal(tl_sh(&p, "%s/locklab-sim run --topo 4socket --lock cohort,mcs --threads 32 "
				   "--runs 1 --duration 1 --format csv", bindir), 0);
	/* cohort counts its paths: the lock_counts column follows, empty for mcs */
	assert_non_null(strstr(p.out, ",wait_max_censored,sockets,sockets_served,handoff_frac,read_wait_max_censored,"
				   "write_wait_max_censored,lock_counts\n"));
	assert_non_null(strstr(p.out, ",cohort,32,"));
	assert_non_null(strstr(strstr(p.out, ",cohort,32,"), ",true,4,1,"));
	assert_non_null(strstr(strstr(p.out, ",cohort,32,"), ",local_pass="));
	/* mcs: handoff_frac, then no counts */
	assert_non_null(strstr(strstr(p.out, ",mcs,32,"), ",false,4,4,"));
	assert_non_null(strstr(strstr(p.out, ",mcs,32,"), ",\n"));
	tl_proc_free(&p);
	/* one acquisition in 50 timed: a starved thread's wait may go untimed,
	 * the maximum shown below it, and a lower bound all the same */
	assert_int_equal(tl_sh(&p, "%s/locklab-sim run --topo 4socket --lock cohort --threads 32 "
				   "--runs 3 --duration 1 --time-every 50 --format csv", bindir), 0);
	assert_null(strstr(p.out, ",false,4,1,"));
	assert_non_null(strstr(p.out, ",true,4,1,"));
	tl_proc_free(&p);
}

static void expect_bad_input(const char *args, const char *needle)
{
	struct tl_proc p;

	tl_sh(&p, "%s/locklab-sim %s", bindir, args);
	tl_expect_refused(&p, needle);
	tl_proc_free(&p);
}

static void test_bad_input(void **state)
{
	expect_bad_input("run --topo 4socket --threads 40", "--threads 40: topology 4socket has 32 cores");
	expect_bad_input("run --topo 4socket --pin socket:4 --threads 2", "--pin socket:4");
	expect_bad_input("run --topo 4socket --pin socket:1 --threads 9", "socket 1 of topology 4socket");
	expect_bad_input("run --topo 4socket --pin list:0,32 --threads 2", "cpu 32");
	expect_bad_input("run --topo 4socket --pin list:3,3 --threads 2", "cpu 3 appears twice");
	expect_bad_input("run --topo no-such-machine", "no-such-machine");
	expect_bad_input("run --sim-quantum 1x", "--sim-quantum");
	expect_bad_input("ccbench --topo 4socket --format xml", "--format");
	expect_bad_input("ccbench --bogus 1", "--bogus");
}

static void expect_ccbench(const char *topo)
{
	struct tl_proc p;

	assert_int_equal(tl_sh(&p, "%s/locklab-sim ccbench --topo %s", bindir, topo), 0);
	if (!strstr(p.out, "max error against the topology: 0.") && !strstr(p.out, ": ok"))
		fail_msg("ccbench %s: %s", topo, p.out);
	/* what a socket is on this machine: its file's description says */
	assert_non_null(strstr(p.out, "\nthe machine: "));
	assert_non_null(strstr(p.out, "; a socket here is one of its "));
	/* the table is the description's: what in it no source gives, said */
	assert_non_null(strstr(p.out, "\nassumed in "));
	tl_proc_free(&p);
	assert_int_equal(tl_sh(&p, "%s/locklab-sim ccbench --topo %s --format csv", bindir, topo), 0);
	assert_non_null(strstr(p.out, "topo,op,state,class,simulated,described,unit,error_pct\n"));
	tl_proc_free(&p);
}

static void test_ccbench(void **state)
{
	const char *spread = "/tmp/locklab-ccbench-spread.xml";
	struct tl_proc p;

	expect_ccbench("opteron48");
	expect_ccbench("xeon80");
	/* a file's latency spread (as calibrate writes one) scatters a run's misses,
	 * not the table ccbench checks */
	assert_int_equal(tl_sh(NULL, "sed 's|<prop id=\"arbitration\"|<prop id=\"latency.spread\" "
				     "value=\"9\"/><prop id=\"arbitration\"|' topologies/4socket.xml "
				     "> %s", spread), 0);
	assert_int_equal(tl_sh(&p, "%s/locklab-sim ccbench --topo %s", bindir, spread), 0);
	assert_non_null(strstr(p.out, "max error against the topology: 0.00% (limit 5%): ok"));
	assert_non_null(strstr(p.out, "the file's latency.spread, which scatters"));
	tl_proc_free(&p);
	unlink(spread);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_place),
		cmocka_unit_test(test_access_time),
		cmocka_unit_test(test_wait_wakes_on_write),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_park),
		cmocka_unit_test(test_deadlock_line),
		cmocka_unit_test(test_deadlock_park),
		cmocka_unit_test(test_deadlock_at_exit),
		cmocka_unit_test(test_no_progress),
		cmocka_unit_test(test_progress_ahead_of_now),
		cmocka_unit_test(test_run_after_failure),
		cmocka_unit_test(test_completion_left_for_later),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_sockets_served),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_ccbench),
	};
	char *sg_argv[] = { argv[0], NULL };
	int sg_argc = 1, rc;
	char err[512];

	bindir = tl_bindir(argc, argv);
	if (backend_init(&sg_argc, sg_argv) || sim_load_topo("4socket", err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	backend_fini();
	return rc;
}
