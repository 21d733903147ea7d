/*
 * tests/sim_fuzz_completion.c - a load's miss that leaves its completion for
 * later, the park made for its thread at that completion by another actor,
 * and an access whose stages another actor carries on while its thread
 * waits for its turn, a woken waiter's re-read among them (sim/memops.c,
 * sim/blocking.c, sim/turns.c), change
 * nothing but the number of events.  Random programs of every ll_*
 * operation run on a few actors twice, with the mechanisms and with every
 * access made by its own thread and every miss waiting for its completion
 * in place (sim.wait_every_completion), and must give the same:
 *
 *   every value each actor read, and its clock after every operation;
 *   every observer call (sim/observe.h), with its times, in one global order;
 *   the coherence model's accesses, misses and queueing;
 *   a run's failure, where a watchdog ends it (phases and progress are set
 *   as the harness sets them, so that a check sees what a thread did).
 *
 * Programs are seeded: program s is the same on every run.  The
 * configurations: tso (4socket's own model), sc and pso, each program a run
 * (sim.run) so that stores go through the store buffer; actors packed on
 * one socket and scattered over four; waits with and without deadlines;
 * ll_park and ll_unpark; 4socket's socket-first arbitration, and one bound
 * to a single grant in a row (admissions waited for at every turn); owners
 * that keep a line while the snoop travels (--snoop-travel); latencies
 * drawn around the table's (--lat-spread, seeded by the program).  No
 * run, an aborted one neither, may end with an actor still due ahead.
 * The events must fall in all, or the mechanism was never used.  A differing program is named by its configuration and
 * seed.  The sanitizer builds run a tenth of the programs.
 *
 * argv[1] is unused (the tests' common calling convention).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <locklab/mem.h>
#include <locklab/rng.h>

#include "testlib.h"
#include "../sim/observe.h"
#include "../sim/sim.h"
#include "../sim/storebuf.h"

#define MAX_ACTORS 8
#define NLINES 3
#define STEPS 60

struct cfg {
	const char *name;
	const char *memory_model; /* NULL: the topology's */
	unsigned actors;
	bool scatter, untimed, park, watchdog;
	unsigned bound; /* socket-first's bound of grants in a row; 0: the topology's */
	unsigned snoop;    /* --snoop-travel's */
	unsigned spread;   /* --lat-spread's */
};

struct line {
	uint64_t w[8];
} ll_cacheline_aligned;

static struct line *lines[NLINES];
static enum topo_arbitration arbitration; /* 4socket's own, restored after each configuration */
static unsigned max_local_run;
static const struct cfg *cur;
static uint64_t prog_seed;
static uint64_t trace[MAX_ACTORS], hooks; /* folded: values and clocks; observer calls */
static struct wl_run fake_run;
static struct wl_thread fake_threads[MAX_ACTORS];
static struct wl_config fake_cfg;

static uint64_t fold(uint64_t h, uint64_t v)
{
	return mix64(h ^ (v + 0x9e3779b97f4a7c15ull));
}

static void note(unsigned me, uint64_t v)
{
	trace[me] = fold(trace[me], v);
}

/* Every observer call, folded in the order they come. */
static void hook(int tid, uint64_t kind, uint64_t a, uint64_t b, uint64_t c)
{
	hooks = fold(fold(fold(fold(fold(hooks, kind), (uint64_t)tid), a), b), c);
}

static void o_local(unsigned t, uint64_t f, uint64_t to, enum sim_obs_local w)
{
	hook((int)t, 1, f, to, w);
}

static void o_delay(unsigned t, uint64_t f, uint64_t to)
{
	hook((int)t, 2, f, to, 0);
}

static void o_hit(unsigned t, uintptr_t addr, uint64_t f, uint64_t to)
{
	hook((int)t, 3, f, to, 0);
}

static void o_drain(unsigned t, uintptr_t addr, uint64_t f, uint64_t to)
{
	hook((int)t, 4, f, to, 0);
}

static void o_issue(unsigned t, uintptr_t addr, uint64_t issue, uint64_t arrival)
{
	hook((int)t, 5, issue, arrival, 0);
}

static void o_miss(unsigned t, uintptr_t addr, enum coh_op op, const struct coh_result *r)
{
	hook((int)t, 6, r->start_ps, r->done_ps, (uint64_t)op * 100 + r->state * 10 + r->hit);
}

static void o_block(unsigned t, uint64_t f)
{
	hook((int)t, 7, f, 0, 0);
}

static void o_unblock(unsigned t, uint64_t to)
{
	hook((int)t, 8, to, 0, 0);
}

static void o_woken(unsigned t, int waker)
{
	hook((int)t, 9, (uint64_t)(int64_t)waker, 0, 0);
}

static void o_failure(const char *what)
{
	hook(-1, 10, strlen(what), 0, 0);
}

static void o_end(const struct wl_run *run, const struct run_counters *c)
{
}

static const struct sim_observer observer = {
	.local = o_local, .delay = o_delay, .hit = o_hit, .drain = o_drain, .issue = o_issue,
	.miss = o_miss, .block = o_block, .unblock = o_unblock, .woken = o_woken,
	.failure = o_failure, .end_run = o_end,
};

static uint64_t draw(uint64_t *s)
{
	return mix64(*s += 0x9e3779b97f4a7c15ull);
}

/* What the harness does after an acquisition, which a progress check reads. */
static void progress(unsigned me, unsigned step)
{
	if (!cur->watchdog)
		return;
	fake_threads[me].last_progress_ns = ll_now_ns();
	fake_threads[me].phase = (int)(step % 3);
}

/* One step of a program: a load and a wait on its line (ll_wait_until's
 * shape, with and without a deadline) most often, as the locks do. */
static void step(unsigned me, unsigned i, uint64_t *s)
{
	unsigned op = (unsigned)(draw(s) % 16), k = (unsigned)(draw(s) % NLINES);
	uint64_t d = (draw(s) % 40) * 10, v, r;
	volatile uint64_t *p = &lines[k]->w[draw(s) % 2];

	switch (op) {
	case 0:
	case 1:
		note(me, ll_load(p, LL_ACQUIRE));
		progress(me, i);
		break;
	case 2:
	case 3:
		v = ll_load(p, LL_ACQUIRE);
		note(me, v);
		r = draw(s) % 6;
		if (cur->untimed && r == 0)
			ll_wait_change(p, v);
		else if (cur->untimed && r == 1) /* its re-read begun at its wake-up */
			note(me, ll_wait_until(p, VAL != v));
		else
			ll_wait_change_until(p, v, ll_now_ns() + d + 1);
		break;
	case 4:
		ll_store(p, draw(s) % 4, (draw(s) & 1) ? LL_RELEASE : LL_RELAXED);
		break;
	case 5:
		note(me, ll_xchg(p, draw(s) % 4, LL_SEQ_CST));
		break;
	case 6:
		note(me, ll_fetch_add(p, 1, LL_SEQ_CST));
		break;
	case 7:
		ll_delay_ns(d);
		break;
	case 8:
		ll_cpu_relax();
		break;
	case 9:
		r = ll_load(p, LL_RELAXED);
		note(me, ll_wait_until_for(p, VAL != r, d + 5));
		break;
	case 10:
		note(me, ll_load(p, LL_RELAXED));
		note(me, ll_load(&lines[(k + 1) % NLINES]->w[0], LL_RELAXED));
		break;
	case 11:
		ll_fence(LL_SEQ_CST);
		break;
	case 12:
		ll_sync();
		break;
	case 13:
		if (cur->park && draw(s) % 2)
			ll_park();
		else
			ll_unpark((me + 1 + (unsigned)(draw(s) % (cur->actors - 1))) % cur->actors);
		break;
	case 14:
		note(me, ll_cas(p, draw(s) % 4, draw(s) % 4, LL_SEQ_CST));
		break;
	default:
		v = ll_load(p, LL_ACQUIRE);
		note(me, v);
		ll_wait_change_until(p, v, ll_now_ns() + 3 * d + 1);
		note(me, ll_load(p, LL_ACQUIRE));
		break;
	}
	note(me, sim_local_ps());
}

static void program(void *arg)
{
	unsigned me = ll_this_cpu();
	uint64_t s = prog_seed * 1000 + me;
	(void)arg;

	for (unsigned i = 0; i < STEPS; i++)
		step(me, i, &s);
	/* every line written at the end: no waiter is left parked */
	for (unsigned k = 0; k < NLINES; k++) {
		ll_store(&lines[k]->w[0], 100 + me, LL_RELEASE);
		ll_store(&lines[k]->w[1], 100 + me, LL_RELEASE);
	}
	note(me, sim_local_ps());
}

struct outcome {
	uint64_t trace[MAX_ACTORS], hooks, accesses, misses, queue_ps, events;
	char failure[sizeof(fake_run.failure)];
};

/* Program prog_seed on the actors at cores[], the mechanism on or off. */
static void run_once(bool in_place, const unsigned *cores, struct outcome *o)
{
	memset(trace, 0, sizeof(trace));
	hooks = 0;
	assert_int_equal(sim_begin(cur->actors, cores), 0);
	coh_set_snoop_travel(sim.model, cur->snoop); /* as --snoop-travel and --lat-spread */
	coh_set_lat_spread(sim.model, cur->spread, prog_seed);
	sim.wait_every_completion = in_place;
	for (unsigned k = 0; k < NLINES; k++)
		lines[k] = ll_alloc_on(sizeof(struct line), k % ll_nr_nodes());
	memset(fake_threads, 0, sizeof(fake_threads));
	memset(&fake_run, 0, sizeof(fake_run));
	fake_run.nthreads = cur->actors; /* a run: its stores go through the store buffer */
	fake_run.threads = fake_threads;
	fake_run.cfg = &fake_cfg;
	sim.run = &fake_run;
	if (cur->watchdog) { /* a check every 3 us: some runs fail, some checks fall in a window */
		sim.progress_bound_ps = 3000000;
		sim.end_bound_ps = sim.progress_bound_ps;
		sim.next_check_ps = sim.progress_bound_ps + 1;
	}
	for (unsigned i = 0; i < cur->actors; i++)
		sim_spawn(i, program, NULL);
	sim_go();
	assert_int_equal(sim.nahead, 0); /* nothing left due ahead, an aborted run's neither */
	memset(o, 0, sizeof(*o));
	memcpy(o->trace, trace, sizeof(trace));
	o->hooks = hooks;
	o->accesses = coh_counters(sim.model)->accesses;
	o->misses = coh_counters(sim.model)->misses;
	o->queue_ps = coh_counters(sim.model)->queue_ps;
	o->events = sim_events();
	snprintf(o->failure, sizeof(o->failure), "%s", fake_run.failure);
	sim_end();
	sim.run = NULL;
	sim.progress_bound_ps = sim.end_bound_ps = 0;
	sim.next_check_ps = UINT64_MAX;
	sim.wait_every_completion = false;
	for (unsigned k = 0; k < NLINES; k++)
		ll_free(lines[k], sizeof(struct line));
}

/* Packed: cores 0..n-1 (one socket of 4socket).  Scattered: round robin
 * over the sockets. */
static void place(unsigned *cores)
{
	for (unsigned i = 0; i < cur->actors; i++) {
		unsigned s = i % sim.topo.nsockets, n = i / sim.topo.nsockets, seen = 0, c;

		if (!cur->scatter) {
			cores[i] = i;
			continue;
		}
		for (c = 0; c < sim.topo.ncores; c++)
			if (sim.topo.core_socket[c] == s && seen++ == n)
				break;
		cores[i] = c;
	}
}

static void fuzz(const struct cfg *c)
{
	unsigned cores[MAX_ACTORS], seeds = tl_sanitized_share(1000, 10), differ = 0, failed = 0;
	uint64_t events = 0, in_place = 0;
	struct outcome a, b;

	cur = c;
	sb_set_model(-1);
	if (c->memory_model) {
		enum topo_memory_model m;

		assert_int_equal(sb_model_by_name(c->memory_model, &m), 0);
		sb_set_model((int)m);
	}
	place(cores);
	if (c->bound)
		topo_set_arbitration(&sim.topo, ARB_SOCKET_FIRST, c->bound);

	for (prog_seed = 1; prog_seed <= seeds; prog_seed++) {
		run_once(false, cores, &a);
		run_once(true, cores, &b);
		events += a.events;
		in_place += b.events;
		failed += a.failure[0] != 0;
		if (memcmp(a.trace, b.trace, sizeof(a.trace)) || a.hooks != b.hooks ||
		    a.accesses != b.accesses || a.misses != b.misses || a.queue_ps != b.queue_ps ||
		    strcmp(a.failure, b.failure)) {
			print_message("%s, program %llu: %s%s%s%s [%s] [%s]\n", c->name,
				      (unsigned long long)prog_seed,
				      memcmp(a.trace, b.trace, sizeof(a.trace)) ? "values or clocks, " : "",
				      a.hooks != b.hooks ? "observer calls, " : "",
				      a.misses != b.misses || a.queue_ps != b.queue_ps ? "misses, " : "",
				      strcmp(a.failure, b.failure) ? "failure" : "", a.failure, b.failure);
			differ++;
		}
	}
	sb_set_model(-1);
	sim.topo.arbitration = arbitration;
	sim.topo.max_local_run = max_local_run;
	print_message("%s: %u programs (%u ended by a failure: a deadlock, the watchdog), events %llu, every miss in "
		      "place %llu\n", c->name, seeds, failed, (unsigned long long)events,
		      (unsigned long long)in_place);
	assert_int_equal(differ, 0);
	if (!c->watchdog) /* failing runs end early: too few events to say */
		assert_true(events < in_place);
}

/* The configurations, one test each (its state). */
static const struct cfg configs[] = {
	{ "tso, 4 packed", NULL, 4, false, false, false, false, 0, 0, 0 },
	{ "tso, 8 scattered, untimed waits", NULL, 8, true, true, false, false, 0, 0, 0 },
	{ "sc, 6 scattered, park", "sc", 6, true, true, true, false, 0, 0, 0 },
	{ "pso, 6 packed", "pso", 6, false, false, false, false, 0, 0, 0 },
	{ "tso, 5 scattered, a watchdog", NULL, 5, true, false, false, true, 0, 0, 0 },
	/* admissions waited for at every turn of the lines between sockets */
	{ "tso, 8 scattered, untimed waits, socket-first:1", NULL, 8, true, true, false, false, 1, 0, 0 },
	/* owners that keep a line while the snoop travels: their writes in the window */
	{ "tso, 8 scattered, untimed waits, --snoop-travel 50", NULL, 8, true, true, false, false,
	  0, 50, 0 },
	{ "sc, 6 packed, park, --snoop-travel 100", "sc", 6, false, false, true, false, 0, 100, 0 },
	/* latencies drawn in the order of the misses: the same in both modes */
	{ "pso, 6 scattered, park, --snoop-travel 100 --lat-spread 90", "pso", 6, true, false, true,
	  false, 0, 100, 90 },
	{ "tso, 8 scattered, untimed waits, --lat-spread 40", NULL, 8, true, true, false, false, 0,
	  0, 40 },
};

static void fuzz_config(void **state)
{
	fuzz(*state);
}

int main(int argc, char **argv)
{
	struct CMUnitTest tests[sizeof(configs) / sizeof(configs[0])];
	char *sg_argv[] = { argv[0], NULL };
	int sg_argc = 1, rc;
	char err[512];

	if (backend_init(&sg_argc, sg_argv) || sim_load_topo("4socket", err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		return 1;
	}
	arbitration = sim.topo.arbitration;
	max_local_run = sim.topo.max_local_run;
	for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++)
		tests[i] = (struct CMUnitTest){ configs[i].name, fuzz_config, NULL, NULL,
						(void *)&configs[i] };
	sim_observer = &observer;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sim_observer = NULL;
	backend_fini();
	return rc;
}
