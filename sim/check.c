/*
 * sim/check.c - `locklab-sim check`: every lock (or --lock L) under the tso
 * and pso memory models (sim/storebuf.c) with adversarial drains: each
 * store waits a seeded random delay before it may drain, long enough for
 * other threads to run past it.  A run whose exclusion or refcount check
 * fails is a violation: one line names the lock, the model, the seed and
 * the threads, and the command that replays it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/args.h>
#include <locklab/backend.h>
#include <locklab/rng.h>

#include "sim.h"
#include "storebuf.h"

/*
 * Each seed runs the lock in two placements.  Four threads on one socket
 * (--pin compact) hand the lock over fast, inside a few store delays: the
 * placement that catches a release reordered past the data it protects.
 * Six threads spread over the sockets round-robin (--pin scatter): on two
 * or more sockets some share one and some do not, so a NUMA-aware lock
 * takes its paths inside a socket and across (cohort's global lock, cna's
 * queue of other-socket waiters).  Either has fewer threads where the
 * machine has fewer cpus.
 */
static const struct check_placement {
	unsigned threads;
	enum pin_policy pin;
	const char *name;
} placements[] = {
	{ 4, PIN_COMPACT, "compact" },
	{ 6, PIN_SCATTER, "scatter" },
};
#define NPLACEMENTS (sizeof(placements) / sizeof(placements[0]))
#define CHECK_OPS 40
#define CHECK_SEEDS 20
#define CHECK_SEEDS_MAX 100000ull
#define CHECK_DELAY_PS 2000000ull /* up to 2 us before a store may drain */

static unsigned check_threads(const struct check_placement *p)
{
	return sim.topo.ncores < p->threads ? sim.topo.ncores : p->threads;
}

static void check_config(struct wl_config *c, const struct lock_algo *a,
			 const struct check_placement *p, uint64_t seed)
{
	wl_config_defaults(c);
	wl_config_only(c, a, check_threads(p));
	c->pin = p->pin;
	c->pin_text = p->name;
	c->cs_ns = 20;
	c->ncs_ns = 50;
	c->ncs_exp = true;
	c->cs_lines = 2;
	c->read_pct = a->kind == LOCK_RWLOCK ? 50 : 0;
	c->ops = CHECK_OPS;
	c->seed = seed;
	c->topo = sim_topo_of(NULL);
	c->count_opt = "check's thread count"; /* it has no --threads to name */
}

/* One run of seed in placement p: 0, 1 (a violation, said in why) or -1. */
static int check_placed(const struct lock_algo *a, enum topo_memory_model m,
			const struct check_placement *p, uint64_t seed, char *why, size_t len)
{
	static struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;
	int rc;

	check_config(&c, a, p, seed);
	if (backend_check(&c, why, len))
		return -1;
	memset(&run, 0, sizeof(run));
	memset(&cnt, 0, sizeof(cnt));
	run.cfg = &c;
	run.algo = a;
	run.nthreads = check_threads(p);
	run.seed = run_seed(seed, 0);
	run.threads = calloc(run.nthreads, sizeof(*run.threads));
	if (!run.threads) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	sb_set_model((int)m);
	sb_set_adversary(seed * 0x9e3779b97f4a7c15ull + 1, m == TOPO_MM_SC ? 0 : CHECK_DELAY_PS);
	rc = backend_run(&run, &cnt) || run.failed;
	sb_set_adversary(0, 0);
	sb_set_model(-1);
	if (rc)
		snprintf(why, len, "%u threads, --pin %s: %s", run.nthreads, p->name,
			 run.failure[0] ? run.failure : "run failed");
	wl_teardown(&run);
	free(run.threads);
	return rc ? 1 : 0;
}

int sim_check_one(const struct lock_algo *a, enum topo_memory_model m, uint64_t seed, char *why,
		  size_t len)
{
	for (size_t i = 0; i < NPLACEMENTS; i++) {
		int rc = check_placed(a, m, &placements[i], seed, why, len);

		if (rc)
			return rc;
	}
	return 0;
}

/* The placements, as the first line says them. */
static void say_placements(void)
{
	printf("check on %s (%u socket%s): each seed runs", sim.topo.name, sim.topo.nsockets,
	       sim.topo.nsockets == 1 ? "" : "s");
	for (size_t i = 0; i < NPLACEMENTS; i++) {
		const struct check_placement *p = &placements[i];

		printf("%s %u threads --pin %s%s", i ? " and" : "", check_threads(p), p->name,
		       p->pin == PIN_COMPACT ? " (on one socket where it has the cpus)"
		       : sim.topo.nsockets > 1 && check_threads(p) > sim.topo.nsockets
			       ? " (handoffs inside sockets and across them)"
			       : "");
	}
	printf(", %u acquisitions a thread; every store held up to %llu us before it drains\n",
	       CHECK_OPS, CHECK_DELAY_PS / 1000000ull);
}

struct check_opts {
	const char *lock;
	uint64_t seed, nseeds;
	bool one_seed, many_seeds; /* --seed, --seeds given */
	int model; /* -1: tso and pso */
};

static const struct ll_opt check_opts_list[] = {
	LL_VALUE("--lock"), LL_VALUE("--seeds"), LL_VALUE("--seed"), LL_VALUE("--memory-model"),
	LL_VALUE("--topo"), LL_OPTS_END,
};

static void check_usage(FILE *f)
{
	fprintf(f, "usage: locklab-sim check [--lock L] [--seeds N] [--seed S] [--memory-model tso|pso]\n"
		   "              [--topo NAME|FILE]\n"
		   "              every lock under weak memory with adversarial store-buffer drains\n"
		   "              (docs/storebuf.md)\n");
}

static int parse_one(const struct ll_args *a, struct check_opts *o)
{
	enum topo_memory_model m;
	char err[256];

	if (!strcmp(a->name, "--lock"))
		o->lock = a->val;
	else if (!strcmp(a->name, "--seeds")) {
		if (cli_parse_u64(a->val, &o->nseeds) || !o->nseeds || o->nseeds > CHECK_SEEDS_MAX)
			return ll_bad("check", "--seeds: '%s' is not a number in 1..%llu", a->val,
				      CHECK_SEEDS_MAX);
		o->many_seeds = true;
	} else if (!strcmp(a->name, "--seed")) {
		if (cli_parse_u64(a->val, &o->seed))
			return ll_bad("check", "--seed: '%s' is not a whole number from 0 to %llu",
				      a->val, (unsigned long long)UINT64_MAX);
		o->one_seed = true;
	} else if (!strcmp(a->name, "--memory-model")) {
		if (sb_model_by_name(a->val, &m) || m == TOPO_MM_SC)
			return ll_bad("check", "--memory-model: '%s' is not tso or pso", a->val);
		o->model = (int)m;
	} else if (backend_parse_option(a->name, a->val, err, sizeof(err)) != 1) {
		return ll_bad("check", "%s", err);
	}
	return 0;
}

static int parse(int argc, char **argv, struct check_opts *o)
{
	struct ll_args a;
	char err[256];
	int rc;

	ll_args_init(&a, &sim_check_cmd, argc, argv);
	while ((rc = ll_args_next(&a, err, sizeof(err))) == LL_ARG_OPT)
		if (parse_one(&a, o))
			return 2;
	return rc == LL_ARG_BAD ? ll_bad("check", "%s", err) : 0;
}

/* check_lock's answer when the configuration was refused (after one line). */
#define CHECK_REFUSED 1000u

/* Every seed of one lock under one model; returns the violations. */
static unsigned check_lock(const struct lock_algo *a, enum topo_memory_model m,
			   const struct check_opts *o)
{
	uint64_t first = o->one_seed ? o->seed : 1, n = o->one_seed ? 1 : o->nseeds;
	char why[600];

	for (uint64_t s = first; s < first + n; s++) {
		int rc = sim_check_one(a, m, s, why, sizeof(why));

		if (rc < 0) {
			ll_bad("check", "%s: %s", a->name, why);
			return CHECK_REFUSED;
		}
		if (rc) {
			printf("VIOLATION lock %s, memory model %s, seed %llu: %s; replay: "
			       "locklab-sim check --lock %s --memory-model %s --seed %llu\n",
			       a->name, sb_model_name(m), (unsigned long long)s, why, a->name,
			       sb_model_name(m), (unsigned long long)s);
			return 1;
		}
	}
	if (o->one_seed)
		printf("ok %s %s (seed %llu)\n", a->name, sb_model_name(m), (unsigned long long)first);
	else
		printf("ok %s %s (%llu seed%s)\n", a->name, sb_model_name(m), (unsigned long long)n,
		       n == 1 ? "" : "s");
	return 0;
}

static int sim_check(int argc, char **argv)
{
	struct check_opts o = { .nseeds = CHECK_SEEDS, .model = -1 };
	unsigned bad = 0;
	char err[600];
	int rc = parse(argc, argv, &o);

	if (rc)
		return rc;
	if (o.one_seed && o.many_seeds)
		return ll_bad("check", "--seed S replays one seed, --seeds N runs N: give one");
	if (o.lock && strchr(o.lock, ','))
		return ll_bad("check", "--lock: one lock ('%s' is a list; `run` takes lists)", o.lock);
	if (o.lock && !lock_find(o.lock))
		return ll_bad("check", "--lock: no lock '%s'", o.lock);
	if (sim_load_topo(sim_topo_of(NULL), err, sizeof(err)))
		return ll_bad("check", "%s", err);
	say_placements();
	for (size_t i = 0; i < lock_catalogue_size(); i++) {
		const struct lock_algo *a = lock_catalogue_get(i);

		if (o.lock && strcmp(o.lock, a->name))
			continue;
		for (int m = TOPO_MM_TSO; m <= TOPO_MM_PSO; m++) {
			unsigned v = 0;

			if (o.model < 0 || o.model == m)
				v = check_lock(a, (enum topo_memory_model)m, &o);
			if (v == CHECK_REFUSED)
				return 2;
			bad += v;
		}
		fflush(stdout);
	}
	return bad ? 3 : 0; /* 3: mutual exclusion violated, as a failed run of `run` */
}

const struct ll_command sim_check_cmd = {
	.name = "check", .main = sim_check, .usage = check_usage, .opts = check_opts_list,
};
