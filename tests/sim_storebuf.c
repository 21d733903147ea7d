/*
 * tests/sim_storebuf.c - the store buffer's signatures (sim/storebuf.c):
 * under tso two store misses to lines held in two other sockets overlap
 * in the line-fill buffers (about one miss of time to the end of the
 * fence, two under sc); a fence drains the buffer and leaves both stores
 * in memory; a load forwards from the buffer before the store is seen.
 * A miss that waits for admission to a line fetched ahead is admitted
 * when the fetch ends (qspinlock on 4socket-ring completes every run); a
 * run whose actors SimGrid leaves blocked fails.
 *
 * argv[1]: the bin/ directory holding locklab-sim.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/semaphore.h>

#include <locklab/mem.h>

#include "testlib.h"

#include "../sim/sim.h"
#include "../sim/storebuf.h"

static const char *bindir;

struct line {
	int32_t v;
	char pad[LL_CACHE_LINE - sizeof(int32_t)];
};

/* Lines a, b and c are first written from sockets 1, 2 and 3; socket 0
 * then stores to them once everyone is ready. */
struct probe {
	struct line lock, ready, a, b, c, x;
};

static struct {
	bool ran[4], done;
	uint64_t one_ns, two_ns;  /* store(s) to the end of the fence */
	unsigned left;            /* entries buffered after the fence */
	int32_t a, b;             /* memory after the fence */
	int32_t fwd, x_in_memory; /* the load of x, memory's x at that instant */
} seen;

static uint64_t store_and_fence(struct line *p, struct line *q)
{
	uint64_t t0 = ll_now_ns();

	ll_store(&p->v, 2, LL_RELAXED);
	if (q)
		ll_store(&q->v, 2, LL_RELAXED);
	ll_fence(LL_SEQ_CST);
	return ll_now_ns() - t0;
}

static void socket0_probe(struct probe *l)
{
	ll_wait_until(&l->ready.v, VAL == 3);
	seen.one_ns = store_and_fence(&l->c, NULL);
	seen.two_ns = store_and_fence(&l->a, &l->b);
	seen.left = sb_buffered(sim.cur);
	seen.a = *(volatile int32_t *)&l->a.v;
	seen.b = *(volatile int32_t *)&l->b.v;
	ll_store(&l->x.v, 7, LL_RELAXED);
	seen.fwd = ll_load(&l->x.v, LL_RELAXED);
	seen.x_in_memory = *(volatile int32_t *)&l->x.v;
	ll_fence(LL_SEQ_CST);
	seen.done = true;
}

static void probe_once(struct probe *l)
{
	unsigned node = ll_this_node();
	struct line *own[] = { NULL, &l->a, &l->b, &l->c };

	if (node >= 4 || seen.ran[node])
		return;
	seen.ran[node] = true;
	if (node == 0) {
		socket0_probe(l);
	} else {
		(void)ll_xchg(&own[node]->v, 1, LL_SEQ_CST);
		(void)ll_fetch_add(&l->ready.v, 1, LL_SEQ_CST);
	}
}

static void probe_lock(void *lock, void *ctx)
{
	struct probe *l = lock;

	(void)ctx;
	probe_once(l);
	while (ll_xchg(&l->lock.v, 1, LL_ACQUIRE))
		ll_wait_until(&l->lock.v, VAL == 0);
}

static void probe_unlock(void *lock, void *ctx)
{
	(void)ctx;
	ll_store(&((struct probe *)lock)->lock.v, 0, LL_RELEASE);
}

static const struct lock_algo probe_algo = {
	.name = "storebuf-probe",
	.desc = "store misses from socket 0 to lines held elsewhere (test only)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct probe),
	.init = tl_nop_init,
	.lock = probe_lock,
	.unlock = probe_unlock,
};

static void probe_run(enum topo_memory_model m)
{
	struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;
	char err[256] = "";

	memset(&seen, 0, sizeof(seen));
	tl_config(&c, "4socket", 1);
	tl_set_pin(&c, PIN_SCATTER);
	c.ops = 4;
	sb_set_model((int)m);
	if (tl_run(&c, &probe_algo, 4, 0, &run, &cnt, err, sizeof(err)))
		fail_msg("run failed: %s %s", err, run.failure);
	sb_set_model(-1);
	tl_done(&run);
	assert_true(seen.done);
	printf("# %s: one miss %llu ns, two misses %llu ns\n", sb_model_name(m),
	       (unsigned long long)seen.one_ns, (unsigned long long)seen.two_ns);
}

/* (a) tso: the second miss overlaps the first; sc: they add up. */
static void two_store_misses_cost_about_one(void **state)
{
	(void)state;
	probe_run(TOPO_MM_TSO);
	assert_true(seen.one_ns > 0);
	assert_true(seen.two_ns * 2 < seen.one_ns * 3);
	probe_run(TOPO_MM_SC);
	assert_true(seen.two_ns * 10 > seen.one_ns * 17);
}

/* (b) a fence drains: the buffer is empty and memory holds both stores. */
static void a_fence_drains(void **state)
{
	(void)state;
	probe_run(TOPO_MM_TSO);
	assert_int_equal(seen.left, 0);
	assert_int_equal(seen.a, 2);
	assert_int_equal(seen.b, 2);
}

/* (c) a load of a buffered store forwards its value before others see it
 * (an entry drains at the core's next access once due: the check's
 * delayed drains keep x in the buffer until the load). */
static void a_load_forwards(void **state)
{
	(void)state;
	sb_set_adversary(1, 1000000);
	probe_run(TOPO_MM_TSO);
	sb_set_adversary(0, 0);
	assert_int_equal(seen.fwd, 7);
	assert_int_equal(seen.x_in_memory, 0);
	probe_run(TOPO_MM_SC);
	assert_int_equal(seen.fwd, 7);
	assert_int_equal(seen.x_in_memory, 7);
}

/* (d) run 8 of this configuration once left a miss waiting for admission
 * to a data line fetched ahead, with nobody to admit it: every run of it
 * completes its 320 acquisitions (another process: another topology). */
static void fetched_lines_admit_their_waiters(void **state)
{
	static const char *const models[] = { "tso", "pso" };
	struct tl_proc p;

	(void)state;
	for (unsigned m = 0; m < 2; m++) {
		const char *const args[] = {
			"run", "--topo", "4socket-ring", "--lock", "qspinlock", "--threads", "8",
			"--pin", "scatter", "--ops", "40", "--cs", "20", "--ncs", "exp:50",
			"--cs-lines", "2", "--seed", "424242", "--runs", "10", "--format", "csv",
			"--jobs", "1", "--memory-model", models[m], NULL,
		};
		unsigned rows = 0;

		assert_int_equal(tl_bin(&p, bindir, "locklab-sim", args), 0);
		for (char *l = strchr(p.out, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
			unsigned field = 0;
			char *f = l + 1;

			while (field < 11 && (f = strchr(f, ',')))
				f++, field++;
			assert_non_null(f);
			assert_int_equal(strtoul(f, NULL, 10), 320);
			rows++;
		}
		assert_int_equal(rows, 10);
		assert_null(strstr(p.err, "eadlock"));
		tl_proc_free(&p);
	}
}

/* Blocks in SimGrid where the engine cannot see it. */
static void stranded_lock(void *lock, void *ctx)
{
	sg_sem_t sem = sg_sem_init(0);

	(void)lock;
	(void)ctx;
	sg_sem_acquire(sem);
}

/* (e) SimGrid ends a run whose actors are still blocked: the run fails,
 * naming them.  Last: the stranded actor stays in SimGrid. */
static void stranded_actors_fail_the_run(void **state)
{
	static const struct lock_algo stranded = {
		.name = "stranded", .desc = "blocks where the engine cannot see (test only)",
		.kind = LOCK_MUTEX, .lock_size = sizeof(int), .init = tl_nop_init,
		.lock = stranded_lock, .unlock = tl_nop,
	};
	struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;
	char err[256] = "";

	(void)state;
#if defined(__SANITIZE_ADDRESS__)
	/* The stranded actor's SimGrid semaphore stays for the rest of the
	 * process, which LeakSanitizer reports; the plain build runs this. */
	skip();
#endif
	tl_config(&c, "4socket", 1);
	c.ops = 4;
	assert_int_not_equal(tl_run(&c, &stranded, 1, 0, &run, &cnt, err, sizeof(err)), 0);
	assert_true(run.failed);
	printf("# %s\n", run.failure);
	assert_non_null(strstr(run.failure, "deadlock"));
	assert_non_null(strstr(run.failure, "t0 acquiring"));
	tl_done(&run);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(two_store_misses_cost_about_one),
		cmocka_unit_test(a_fence_drains),
		cmocka_unit_test(a_load_forwards),
		cmocka_unit_test(fetched_lines_admit_their_waiters),
		cmocka_unit_test(stranded_actors_fail_the_run),
	};

	bindir = tl_bindir(argc, argv);
	if (tl_backend_start(argv[0], "4socket"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
