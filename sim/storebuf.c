/*
 * sim/storebuf.c - the store buffer of each simulated core under the tso
 * and pso memory models (--memory-model, or the topology's memory_model).
 *
 *      core --store--> [ s5 | s4 | s3 | s2 | s1 ] --drain--> coherence model,
 *             (retires                 oldest ^               memory, waiters
 *              as a hit)
 *      core <--load--- forwarded from the newest entry of the same address
 *                      (a hit), else from memory: a load passes older stores
 *                      of other addresses (the store->load reordering)
 *
 * A plain store (ll_store, relaxed or release) retires into the buffer at
 * the cost of a store hit and the core goes on.  An entry may drain from its
 * ready time: the instant of the store, or later under the check's
 * adversarial delays (sb_set_adversary).  Drains happen at the core's next
 * memory operation, ll_sync, park, kick or exit, each at its own instant:
 * the store is performed through the coherence model there (sim/memops.c),
 * and only then do other threads see it and parked waiters wake.  The
 * core's local work after the store overlaps the drain; a drain that ends
 * after the core's own time makes it wait (the store-buffer stall).  A
 * store to a line others wait on (awaited()) is performed at once, after
 * the older entries, and the core waits for it as under sc: a drain held
 * up behind the waiters' misses would otherwise end after the core's next
 * locked read-modify-write is due, and that core would win every race for
 * the line at the drain's instant.  The check's adversarial runs buffer
 * every store.
 *
 * Line-fill buffers.  When a drain misses, the lines of younger entries
 * (and of the store being buffered) that miss too and that nobody queues
 * for are fetched for ownership at the same time (an RFO, started at the
 * later of the drain and the entry's store), up to the topology's
 * storebuf.fill_buffers misses in flight (topologies/README.md).  Such a
 * fetch changes the line's state at once but writes nothing: each entry
 * is still written, and seen by others, only at its own drain, in drain
 * order, so tso stays tso; its drain then waits only for the fetch to end
 * (sb_written_ahead).  Two store misses to lines in other sockets thus
 * cost about one miss.  No actor completes such a fetch: a miss that waits
 * for admission to its line looks again at the fetch's end, which the
 * model keeps with the line (coh_note_unattended).
 * The check's adversarial runs fetch nothing ahead.
 *
 * Drain order.  tso: oldest first.  pso: an entry may pass older entries of
 * other lines, unless it is a release store, which waits for every older
 * entry; a fence stronger than acquire drains all.  Locked read-modify-
 * writes, seq_cst fences, waits (ll_wait_until), ll_park and ll_unpark
 * drain the whole buffer first and pay the drain.  A full buffer drains its
 * oldest entry.
 *
 * sc (and any run in a virtual machine, and ccbench) has no buffer: every hook returns
 * at once and the simulator behaves as before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/mem.h>
#include <locklab/rng.h>

#include "observe.h"
#include "sim.h"
#include "storebuf.h"
#include "vm.h"

/* Store-buffer entries per core: Skylake's 56 (Intel Optimization
 * Reference Manual, table 2-6), *assumed* for every other generation the
 * topologies model (Nehalem and Westmere had 32, Sandy Bridge 36; a run
 * rarely holds more than a few stores). */
#define SB_ENTRIES 56

struct sb_entry {
	volatile void *p;
	unsigned size;
	bool ordered;  /* a release store: drains after every older entry */
	bool prefetch; /* ll_prefetchw: a write miss, no value */
	uint64_t v;
	uint64_t ready_ps;
	uint64_t rfo_ps; /* its line's ownership requested ahead: done then */
};

struct sb {
	unsigned n;
	struct sb_entry e[SB_ENTRIES];
};

static int model_opt = -1;
static struct sb *bufs;
static unsigned nbufs;
static const void *bufs_actors, *bufs_run; /* the run the buffers belong to */
static uint64_t bufs_base;
static uint64_t adv_seed, adv_max_ps, adv_state;
static uint64_t stall_ps;
static struct {
	volatile void *p; /* the store being buffered, during its sb_drain_due */
	uint64_t t;
	uint64_t rfo_ps; /* its line fetched ahead: done then */
} pending;

static const char *const model_names[] = { "sc", "tso", "pso" };

const char *sb_model_name(enum topo_memory_model m)
{
	return m <= TOPO_MM_PSO ? model_names[m] : "?";
}

int sb_model_by_name(const char *name, enum topo_memory_model *m)
{
	for (unsigned i = 0; i <= TOPO_MM_PSO; i++)
		if (!strcmp(name, model_names[i])) {
			*m = (enum topo_memory_model)i;
			return 0;
		}
	return -1;
}

void sb_set_model(int m)
{
	model_opt = m;
}

int sb_parse_option(const char *opt, const char *val, char *err, size_t errlen)
{
	enum topo_memory_model m;

	if (strcmp(opt, "--memory-model"))
		return 0;
	if (sb_model_by_name(val, &m)) {
		snprintf(err, errlen, "--memory-model: '%s' is not sc, tso or pso", val);
		return -1;
	}
	model_opt = (int)m;
	return 1;
}

enum topo_memory_model sb_model(void)
{
	if (model_opt >= 0)
		return (enum topo_memory_model)model_opt;
	return sim.topo_loaded ? sim.topo.memory_model : TOPO_MM_SC;
}

bool sb_model_given(void)
{
	return model_opt >= 0;
}

void sb_set_adversary(uint64_t seed, uint64_t max_ps)
{
	adv_seed = seed;
	adv_max_ps = max_ps;
}

uint64_t sb_stall_ps(void)
{
	return stall_ps;
}

/* splitmix64: the adversary's delays, reproducible from the seed. */
static uint64_t adv_next(void)
{
	return mix64(adv_state += 0x9e3779b97f4a7c15ull);
}

/* The buffers of the current run: made afresh when a new run starts. */
static struct sb *sb_of(struct sim_actor *a)
{
	if (bufs_actors != sim.actors || bufs_run != sim.run || bufs_base != sim.base_ps ||
	    nbufs < sim.nactors) {
		free(bufs);
		bufs = calloc(sim.nactors ? sim.nactors : 1, sizeof(*bufs));
		if (!bufs) {
			fprintf(stderr, "locklab-sim: out of memory\n");
			exit(1);
		}
		nbufs = sim.nactors;
		bufs_actors = sim.actors;
		bufs_run = sim.run;
		bufs_base = sim.base_ps;
		adv_state = adv_seed;
		stall_ps = 0;
	}
	return &bufs[a->idx];
}

/* Only the workload's runs buffer: ccbench and the tests' bare actors
 * measure the coherence model itself. */
static bool buffering(void)
{
	return sim.run && !sim_vm && sb_model() != TOPO_MM_SC;
}

static uintptr_t line_of(const volatile void *p)
{
	return (uintptr_t)p & SIM_LINE_MASK;
}

static bool awaited(const struct sim_actor *a, const volatile void *p);

/* Is an early ownership request (an RFO) for line worth making?  Not for
 * the line being drained, a line held already, or a line others queue or
 * wait on: those stay with the drain, in program order. */
static bool rfo_wanted(struct sim_actor *a, uintptr_t line, uintptr_t draining)
{
	if (line == draining ||
	    coh_would_hit(sim.model, a->core, line, COH_STORE, sim.now_ps + a->owed_ps))
		return false;
	if (coh_waiting(sim.model, line))
		return false;
	return !awaited(a, (const volatile void *)line);
}

/* The write miss of line issued at instant at, in the background: the
 * model serves it on arrival and the core does not wait.  Returns when it
 * is done. */
static uint64_t rfo_start(struct sim_actor *a, uintptr_t line, uint64_t at)
{
	struct coh_result r;
	uint64_t travel = coh_request_travel_ps(sim.model, a->core, line, COH_STORE);

	coh_access_arrived(sim.model, a->core, line, COH_STORE, at + travel, travel, &r);
	coh_note_unattended(sim.model, line, r.done_ps);
	return r.done_ps;
}

/* Line-fill buffers: while the drain of one entry misses, the lines of
 * younger entries (and of the store being buffered) are fetched too, up to
 * storebuf.fill_buffers misses in flight.  Each is written, and seen by
 * others, only at its own drain, in the model's drain order. */
static void rfo_ahead(struct sim_actor *a, struct sb *b, uintptr_t draining, uint64_t at)
{
	unsigned cap = sim.topo.fill_buffers, inflight = 1;

	if (adv_max_ps || cap <= 1)
		return;
	for (unsigned i = 0; i < b->n; i++)
		if (b->e[i].rfo_ps > at)
			inflight++;
	for (unsigned i = 0; i < b->n && inflight < cap; i++) {
		struct sb_entry *e = &b->e[i];

		if (e->rfo_ps || !rfo_wanted(a, line_of(e->p), draining))
			continue;
		e->rfo_ps = rfo_start(a, line_of(e->p), e->ready_ps > at ? e->ready_ps : at);
		inflight++;
	}
	if (pending.p && inflight < cap && rfo_wanted(a, line_of(pending.p), draining))
		pending.rfo_ps = rfo_start(a, line_of(pending.p), pending.t > at ? pending.t : at);
}

/* Do other threads queue for the line or sleep on it? */
static bool queued_on(uintptr_t line)
{
	return coh_waiting(sim.model, line) || (sim.nline_waiters && *coh_line_user(sim.model, line));
}

/* The entry being drained: its line's ownership, if fetched ahead, done
 * then (0: not fetched ahead). */
static uint64_t drain_rfo_ps;

/* sim/memops.c asks before a drained store goes to the coherence model:
 * a line fetched ahead and still held, with nobody queued or parked on it,
 * is written as the end of that fetch (the store's one access, counted at
 * the fetch), once it is done. */
bool sb_written_ahead(struct sim_actor *a, volatile void *p)
{
	uintptr_t line = line_of(p);
	uint64_t t = sim.now_ps + a->owed_ps;

	if (!drain_rfo_ps)
		return false;
	if (t < drain_rfo_ps)
		t = drain_rfo_ps; /* the store is written then: the line must be held then */
	if (!coh_would_hit(sim.model, a->core, line, COH_STORE, t) || queued_on(line))
		return false;
	a->owed_ps = t + sim.topo.hit_ps[TOPO_STORE] - sim.now_ps;
	return true;
}

/* Perform entry e at its instant (its ready time, or now if the core's own
 * time comes first): the core's local time overlaps the drain. */
static void drain_entry(struct sim_actor *a, struct sb *b, const struct sb_entry *e)
{
	uint64_t target = sim.now_ps + a->owed_ps;
	uint64_t at = e->ready_ps < target ? e->ready_ps : target;
	uint64_t end;

	if (at < sim.now_ps)
		at = sim.now_ps;
	a->owed_ps = at - sim.now_ps;
	if (!coh_would_hit(sim.model, a->core, line_of(e->p), COH_STORE, at))
		rfo_ahead(a, b, line_of(e->p), at);
	drain_rfo_ps = e->rfo_ps;
	if (e->prefetch)
		sim_prefetch_now(a, e->p);
	else
		sim_store_now(a, e->p, e->size, e->v, true);
	drain_rfo_ps = 0;
	end = sim.now_ps + a->owed_ps;
	if (end > target) {
		stall_ps += end - target;
		SIM_OBSERVE(drain, a->idx, (uintptr_t)e->p, target, end);
		target = end;
	}
	a->owed_ps = target - sim.now_ps;
}

/* May entry j drain now, before the older entries still buffered? */
static bool may_pass(const struct sb *b, unsigned j)
{
	if (j == 0)
		return true;
	if (sb_model() != TOPO_MM_PSO || b->e[j].ordered)
		return false;
	for (unsigned i = 0; i < j; i++)
		if (line_of(b->e[i].p) == line_of(b->e[j].p))
			return false;
	return true;
}

/* The entry to drain next among those ready by limit, or -1. */
static int pick(const struct sb *b, uint64_t limit)
{
	int best = -1;

	for (unsigned j = 0; j < b->n; j++) {
		if (b->e[j].ready_ps > limit || !may_pass(b, j))
			continue;
		if (best < 0 || b->e[j].ready_ps < b->e[best].ready_ps)
			best = (int)j;
	}
	return best;
}

static void drain_one(struct sim_actor *a, struct sb *b, unsigned j)
{
	struct sb_entry e = b->e[j];

	memmove(&b->e[j], &b->e[j + 1], (b->n - j - 1) * sizeof(b->e[0]));
	b->n--;
	drain_entry(a, b, &e);
}

static void drain_until(struct sim_actor *a, uint64_t limit)
{
	struct sb *b = sb_of(a);
	int j;

	while (b->n && (j = pick(b, limit)) >= 0)
		drain_one(a, b, (unsigned)j);
}

void sb_drain_due(struct sim_actor *a)
{
	if (buffering())
		drain_until(a, sim.now_ps + a->owed_ps);
}

void sb_drain_all(struct sim_actor *a)
{
	if (buffering())
		drain_until(a, UINT64_MAX);
}

void sb_fence(struct sim_actor *a, int ord)
{
	if (ord != LL_RELAXED && ord != LL_ACQUIRE)
		sb_drain_all(a);
}

/* Do other threads wait on the line of p: parked on it, or with a miss of
 * it in flight or waiting for admission? */
static bool awaited(const struct sim_actor *a, const volatile void *p)
{
	uintptr_t line = line_of(p);

	if (sim.nline_waiters && *coh_line_user(sim.model, line))
		return true;
	return coh_line_busy_after(sim.model, line, sim.now_ps + a->owed_ps);
}

bool sb_store(struct sim_actor *a, volatile void *p, unsigned size, uint64_t v, int ord)
{
	struct sb *b;
	struct sb_entry *e;
	uint64_t t;

	if (!buffering())
		return false;
	pending.p = p;
	pending.t = sim.now_ps + a->owed_ps;
	pending.rfo_ps = 0;
	sb_drain_due(a);
	pending.p = NULL;
	if (!adv_max_ps && (pending.rfo_ps ? queued_on(line_of(p)) : awaited(a, p))) {
		sb_drain_all(a);
		return false; /* performed now, as under sc */
	}
	b = sb_of(a);
	if (b->n == SB_ENTRIES)
		drain_one(a, b, 0);
	t = sim.now_ps + a->owed_ps;
	e = &b->e[b->n++];
	e->p = p;
	e->size = size;
	e->v = v;
	e->prefetch = false;
	e->rfo_ps = pending.rfo_ps;
	e->ordered = ord == LL_RELEASE || ord == LL_SEQ_CST;
	e->ready_ps = t + (adv_max_ps ? adv_next() % adv_max_ps : 0);
	if (sb_model() == TOPO_MM_TSO && b->n > 1 && e->ready_ps < e[-1].ready_ps)
		e->ready_ps = e[-1].ready_ps;
	a->owed_ps += sim.topo.hit_ps[TOPO_STORE];
	SIM_OBSERVE(hit, a->idx, (uintptr_t)p, t, t + sim.topo.hit_ps[TOPO_STORE]);
	if (ord == LL_SEQ_CST)
		sb_drain_all(a);
	return true;
}

unsigned sb_buffered(struct sim_actor *a)
{
	return buffering() ? sb_of(a)->n : 0;
}

static bool overlaps(const struct sb_entry *e, uintptr_t p, unsigned size)
{
	uintptr_t q = (uintptr_t)e->p;

	return q < p + size && p < q + e->size;
}

bool sb_forward(struct sim_actor *a, const volatile void *p, unsigned size, uint64_t *v)
{
	struct sb *b;
	uint64_t t;

	if (!buffering())
		return false;
	b = sb_of(a);
	for (unsigned i = b->n; i-- > 0;) {
		const struct sb_entry *e = &b->e[i];

		if (e->prefetch || !overlaps(e, (uintptr_t)p, size))
			continue;
		if (e->p != p || e->size != size) {
			sb_drain_all(a); /* a partial overlap: the load waits */
			return false;
		}
		t = sim.now_ps + a->owed_ps;
		a->owed_ps += sim.topo.hit_ps[TOPO_LOAD];
		SIM_OBSERVE(hit, a->idx, (uintptr_t)p, t, t + sim.topo.hit_ps[TOPO_LOAD]);
		*v = e->v;
		return true;
	}
	return false;
}

/* ll_prefetchw: the line's write miss starts in the background, as a
 * buffered entry with no value (under sc there is no background: none). */
bool sb_prefetchw(struct sim_actor *a, const volatile void *p)
{
	struct sb *b;
	struct sb_entry *e;

	if (!buffering())
		return false;
	b = sb_of(a);
	if (b->n == SB_ENTRIES)
		return false;
	e = &b->e[b->n++];
	memset(e, 0, sizeof(*e));
	e->p = (volatile void *)p;
	e->size = 1;
	e->prefetch = true;
	e->ready_ps = sim.now_ps + a->owed_ps;
	if (b->n > 1 && e->ready_ps < e[-1].ready_ps)
		e->ready_ps = e[-1].ready_ps;
	return true;
}
