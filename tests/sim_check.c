/*
 * tests/sim_check.c - the weak-memory check (sim/check.c, sim/storebuf.c):
 * locks broken on purpose, each correct under sc, are caught under the
 * model that breaks them within the seeds `check` takes, and their fixed
 * versions pass; a store buffer forwards to its own loads; `locklab-sim
 * check` passes a catalogue lock and names its replay options.
 *
 * argv[1]: the bin/ directory holding locklab-sim.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/mem.h>

#include "testlib.h"

#include "../sim/sim.h"
#include "../sim/storebuf.h"

#define SEEDS 20
#define MAXT 8

static const char *bindir;

/* ------------------------------------------------ a Dekker-style lock */

/*
 * Burns and Lamport's one-bit lock: raise my flag, then look at the
 * others'.  Its store->load pattern needs a full fence between the two
 * under tso; without it two threads each miss the other's buffered flag.
 */
struct flags {
	struct {
		int32_t up;
		char pad[LL_CACHE_LINE - sizeof(int32_t)];
	} f[MAXT];
};

static bool fenced;

static bool flag_try(struct flags *l, unsigned me, unsigned n)
{
	ll_store(&l->f[me].up, 1, LL_RELAXED);
	if (fenced)
		ll_fence(LL_SEQ_CST); /* pairs with the other threads' fence */
	for (unsigned j = 0; j < me; j++) {
		if (ll_load(&l->f[j].up, LL_RELAXED)) {
			ll_store(&l->f[me].up, 0, LL_RELAXED);
			ll_wait_until(&l->f[j].up, VAL == 0);
			return false;
		}
	}
	for (unsigned j = me + 1; j < n; j++)
		ll_wait_until(&l->f[j].up, VAL == 0);
	return true;
}

static void flag_lock(void *lock, void *ctx)
{
	(void)ctx;
	while (!flag_try(lock, ll_this_cpu(), ll_nr_cpus()))
		;
}

static void flag_unlock(void *lock, void *ctx)
{
	struct flags *l = lock;

	(void)ctx;
	ll_store(&l->f[ll_this_cpu()].up, 0, LL_RELEASE);
}

static const struct lock_algo flag_algo = {
	.name = "dekker-nofence",
	.desc = "Burns-Lamport without the store->load fence (test only)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(struct flags),
	.init = tl_nop_init,
	.lock = flag_lock,
	.unlock = flag_unlock,
};

/* ------------------------------------------------ a count behind a lock */

/*
 * A spinlock around a counter whose release is a relaxed store: under pso
 * the release may drain before the counter's store (another line), so the
 * next holder reads the old count and an update is lost.
 */
struct counted {
	uint32_t locked;
	char pad[LL_CACHE_LINE - sizeof(uint32_t)];
	int64_t count;
};

static int release_ord;

static void counted_add(void *obj, int64_t d)
{
	struct counted *c = obj;

	while (ll_xchg(&c->locked, 1, LL_ACQUIRE))
		ll_wait_until(&c->locked, VAL == 0);
	ll_store(&c->count, ll_load(&c->count, LL_RELAXED) + d, LL_RELAXED);
	ll_store(&c->locked, 0, release_ord);
}

static void counted_init(void *obj, unsigned ncpus)
{
	(void)ncpus;
	((struct counted *)obj)->count = 1;
}

static void counted_get(void *obj, void *ctx)
{
	(void)ctx;
	counted_add(obj, 1);
}

static void counted_put(void *obj, void *ctx)
{
	(void)ctx;
	counted_add(obj, -1);
}

static int64_t counted_count(void *obj)
{
	return ll_load(&((struct counted *)obj)->count, LL_RELAXED);
}

static const struct lock_algo counted_algo = {
	.name = "relaxed-release",
	.desc = "a counter under a spinlock released by a relaxed store (test only)",
	.kind = LOCK_REFCOUNT,
	.lock_size = sizeof(struct counted),
	.init = counted_init,
	.get = counted_get,
	.put = counted_put,
	.count = counted_count,
};

/* ------------------------------------------------ the checks */

/* Seeds 1..SEEDS, as `check` takes them: the first violation's seed, or 0. */
static uint64_t first_violation(const struct lock_algo *a, enum topo_memory_model m)
{
	char why[600];

	for (uint64_t s = 1; s <= SEEDS; s++) {
		int rc = sim_check_one(a, m, s, why, sizeof(why));

		assert_true(rc >= 0);
		if (rc) {
			assert_non_null(strstr(why, a->name));
			return s;
		}
	}
	return 0;
}

static void tso_breaks_the_unfenced_dekker_lock(void **state)
{
	(void)state;
	fenced = false;
	assert_int_equal(first_violation(&flag_algo, TOPO_MM_SC), 0);
	assert_int_not_equal(first_violation(&flag_algo, TOPO_MM_TSO), 0);
	assert_int_not_equal(first_violation(&flag_algo, TOPO_MM_PSO), 0);
	fenced = true;
	assert_int_equal(first_violation(&flag_algo, TOPO_MM_TSO), 0);
	assert_int_equal(first_violation(&flag_algo, TOPO_MM_PSO), 0);
}

static void pso_breaks_the_relaxed_release(void **state)
{
	(void)state;
	release_ord = LL_RELAXED;
	assert_int_equal(first_violation(&counted_algo, TOPO_MM_SC), 0);
	assert_int_equal(first_violation(&counted_algo, TOPO_MM_TSO), 0);
	assert_int_not_equal(first_violation(&counted_algo, TOPO_MM_PSO), 0);
	release_ord = LL_RELEASE;
	assert_int_equal(first_violation(&counted_algo, TOPO_MM_PSO), 0);
}

/* The command line: a catalogue lock passes, its placements said; a bad
 * option is refused. */
static void check_command_passes_ticket(void **state)
{
	const char *ok[] = { "check", "--lock", "ticket", "--seeds", "3", NULL };
	const char *bad[] = { "check", "--memory-model", "weak", NULL };
	const char *one[] = { "check", "--lock", "ticket", "--memory-model", "tso", "--seed", "5", NULL };
	struct tl_proc p;

	(void)state;
	assert_int_equal(tl_bin(&p, bindir, "locklab-sim", ok), 0);
	assert_non_null(strstr(p.out, "ok ticket tso (3 seeds)"));
	assert_non_null(strstr(p.out, "ok ticket pso (3 seeds)"));
	/* where the threads were: one socket, and across the machine's four */
	assert_non_null(strstr(p.out, "check on 4socket (4 sockets): each seed runs 4 threads --pin "
				      "compact (on one socket where it has the cpus) and 6 threads "
				      "--pin scatter (handoffs inside sockets and across them)"));
	tl_proc_free(&p);
	assert_int_equal(tl_bin(&p, bindir, "locklab-sim", one), 0);
	assert_non_null(strstr(p.out, "ok ticket tso (seed 5)\n")); /* the one replayed */
	tl_proc_free(&p);
	tl_bin_refused(bindir, "locklab-sim", bad, "check");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tso_breaks_the_unfenced_dekker_lock),
		cmocka_unit_test(pso_breaks_the_relaxed_release),
		cmocka_unit_test(check_command_passes_ticket),
	};

	bindir = tl_bindir(argc, argv);
	if (tl_backend_start(argv[0], "4socket"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
