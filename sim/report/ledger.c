/*
 * sim/report/ledger.c - the attribution ledger behind `locklab-sim explain`
 * and --graphs: each thread's own time cut into segments with one cause,
 * and each handoff walked along them (see explain.h for the definitions,
 * docs/graphs.md for the figures).  It watches the runs through the
 * simulator's observer hook (sim/observe.h).
 *
 * The ledger of one thread is a ring of segments of its own time, oldest
 * first, contiguous:
 *
 *     from      to        part            waker
 *   +---------+---------+---------------+-------+
 *   | 1000    | 1006    | LOCAL (hit)   |  -1   |
 *   | 1006    | 1046    | XFER+1 travel |  -1   |  <- logged at issue
 *   | 1046    | 1300    | QUEUE         |  -1   |  <- logged on arrival,
 *   | 1300    | 1390    | XFER+1        |  -1   |     up to completion
 *   | 1390    | 2400    | PARKED        |   7   |  <- logged on wake-up
 *   +---------+---------+---------------+-------+
 *
 * so that at any moment a thread's ring reaches its own clock (a park
 * still open, or a miss that has arrived but waits for the line's
 * arbitration to admit it, is known by its start: the first is an
 * untraced wait, the second queueing).  Local segments of one part merge.
 *
 * Handoffs are seen in order: a thread's first critical delay after it
 * acquired is the start of its section (d); the lock's last holder and the
 * end of that holder's critical delay (e) are kept, so that B's section
 * start closes the handoff from the last holder A.  The walk charges each
 * stretch of [e_A, d_B] to one part (explain.h); what no segment covers is
 * kept apart as a gap, so that a missing hook shows instead of vanishing.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/stats.h>

#include "../sim.h"
#include "explain.h"
#include "report.h"

#define XP_RING 4096u
#define XP_DEPTH 4
#define XP_NSLOTS (XP_NPARTS + 1) /* the parts, then the gap */
#define XP_GAP XP_NPARTS

struct xp_seg {
	uint64_t from, to;
	int32_t waker; /* XP_PARKED: who ended the park (-1: nobody, a timeout) */
	uint16_t part;
	bool sealed; /* never merged into (a travel segment awaiting its part) */
};

struct xp_thread {
	struct xp_seg *ring;
	unsigned head, count; /* next slot; valid segments */
	int phase;            /* the workload's phase as last seen */
	uint64_t t0;          /* its current acquisition began */
	uint64_t acq;         /* it acquired */
	bool in_cs;           /* its critical delay began */
	uint64_t parked_since; /* UINT64_MAX: not parked */
	uint64_t open_since;   /* a miss arrived and waits for admission; UINT64_MAX: none */
	unsigned open_part;
	uint64_t wait_ps;      /* time spent acquiring, within the measured interval */
	int waker;
};

struct xp_state {
	/* the run in progress */
	const struct wl_run *run;
	unsigned n;
	struct xp_thread *t;
	uintptr_t data_lo, data_hi; /* the protected data of the lock */
	int holder;                 /* the lock's last holder, -1: none yet */
	uint64_t holder_end;        /* e: the end of its critical delay */
	unsigned run_socket;
	uint64_t run_len;
	/* the run's threads on each socket, as of sim.moves == placed_at: a
	 * handoff's sockets are the threads' sockets when it happens, which
	 * migrations (--pin none, node:N) change during a run */
	unsigned *on_socket;
	uint64_t placed_at;

	/* sums over the runs */
	unsigned runs;
	uint64_t handoffs, wl_handoffs, local;
	double random_sum;
	uint64_t handoff_ps, acquire_ps;
	uint64_t parts_ps[XP_NSLOTS];
	uint64_t longest;
	unsigned longest_socket;
	uint64_t acquisitions;
	double duration_s;
	uint64_t misses, remote, busiest;
	uint64_t line_misses[XP_NLINES];
	/* the per-thread figures over the runs: the fewest and the most
	 * acquisitions of a thread in any run, the most starved threads of one
	 * run, and sums (for means) of each run's mean, cv and Jain index */
	struct xp_report spread;
	double acq_mean_sum, acq_cv_sum, jain_sum;
};

struct xp_state *sim_xp;

/* ------------------------------------------------------------ the ring */

static void free_run(struct xp_state *x)
{
	for (unsigned i = 0; x->t && i < x->n; i++)
		free(x->t[i].ring);
	free(x->t);
	free(x->on_socket);
	x->on_socket = NULL;
	x->t = NULL;
	x->n = 0;
	x->run = NULL;
}

static int begin_run(struct xp_state *x, const struct wl_run *run)
{
	free_run(x);
	x->t = calloc(run->nthreads, sizeof(*x->t));
	x->on_socket = calloc(sim.topo.nsockets ? sim.topo.nsockets : 1, sizeof(*x->on_socket));
	if (!x->t || !x->on_socket) {
		free_run(x);
		return -1;
	}
	x->placed_at = sim.moves - 1; /* counted at the first handoff */
	x->n = run->nthreads;
	for (unsigned i = 0; i < x->n; i++) {
		struct xp_thread *t = &x->t[i];

		t->ring = malloc(XP_RING * sizeof(*t->ring));
		if (!t->ring) {
			free_run(x);
			return -1;
		}
		t->parked_since = t->open_since = UINT64_MAX;
		t->waker = -1;
	}
	x->data_lo = x->data_hi = 0;
	if (run->slots && run->slots[0].data) {
		x->data_lo = (uintptr_t)run->slots[0].data;
		x->data_hi = x->data_lo + run->cfg->cs_lines * sizeof(struct wl_data_line);
	}
	x->holder = -1;
	x->holder_end = 0;
	x->run_len = 0;
	x->run = run;
	return 0;
}

static struct xp_seg *seg_last(struct xp_thread *t)
{
	return t->count ? &t->ring[(t->head + XP_RING - 1) % XP_RING] : NULL;
}

static struct xp_seg *seg_append(struct xp_thread *t, uint64_t from, uint64_t to, unsigned part,
				 int waker, bool sealed)
{
	struct xp_seg *s = seg_last(t);

	if (to <= from && !sealed)
		return NULL;
	if (s && !sealed && !s->sealed && s->part == part && waker < 0 && s->waker < 0 &&
	    s->to == from) {
		s->to = to;
		return s;
	}
	s = &t->ring[t->head];
	*s = (struct xp_seg){ .from = from, .to = to, .waker = waker, .part = (uint16_t)part,
			      .sealed = sealed };
	t->head = (t->head + 1) % XP_RING;
	if (t->count < XP_RING)
		t->count++;
	return s;
}

/* ------------------------------------------------------------ the walk */

static void walk(const struct xp_state *x, unsigned tid, uint64_t from, uint64_t to, int depth,
		 uint64_t *parts);

static void credit(const struct xp_state *x, unsigned tid, const struct xp_seg *s, uint64_t lo,
		   uint64_t hi, int depth, uint64_t *parts)
{
	if (s->part == XP_PARKED) {
		if (s->waker >= 0 && (unsigned)s->waker != tid && depth < XP_DEPTH)
			walk(x, (unsigned)s->waker, lo, hi, depth + 1, parts);
		else
			parts[XP_OTHER] += hi - lo;
	} else if (s->part == XP_CS) {
		parts[XP_OTHER] += hi - lo;
	} else {
		parts[s->part] += hi - lo;
	}
}

/* Charge [from, to) of thread tid's time to the parts (see the top). */
static void walk(const struct xp_state *x, unsigned tid, uint64_t from, uint64_t to, int depth,
		 uint64_t *parts)
{
	const struct xp_thread *t = &x->t[tid];
	uint64_t covered = 0, span = to - from;

	if (to <= from)
		return;
	if (t->parked_since < to) {
		uint64_t lo = t->parked_since > from ? t->parked_since : from;

		parts[XP_OTHER] += to - lo; /* parked now, woken by nobody yet */
		covered += to - lo;
		to = lo;
	}
	if (t->open_since < to) {
		uint64_t lo = t->open_since > from ? t->open_since : from;

		parts[t->open_part] += to - lo; /* a miss not admitted yet: it queues */
		covered += to - lo;
		to = lo;
	}
	for (unsigned k = 0; k < t->count && to > from; k++) {
		const struct xp_seg *s = &t->ring[(t->head + XP_RING - 1 - k) % XP_RING];
		uint64_t lo, hi;

		if (s->to <= from)
			break;
		if (s->from >= to)
			continue;
		lo = s->from > from ? s->from : from;
		hi = s->to < to ? s->to : to;
		covered += hi - lo;
		credit(x, tid, s, lo, hi, depth, parts);
	}
	parts[XP_GAP] += covered < span ? span - covered : 0;
}

/* The thread that has waited longest for the lock at time e (not b). */
static int oldest_waiter(const struct xp_state *x, unsigned b, uint64_t e)
{
	int best = -1;

	for (unsigned i = 0; i < x->n; i++) {
		const struct xp_thread *t = &x->t[i];

		if (i == b || t->phase != PH_ACQUIRING || t->t0 > e)
			continue;
		if (best < 0 || t->t0 < x->t[best].t0)
			best = (int)i;
	}
	return best;
}

/* Thread i's socket now. */
static unsigned socket_of(const struct xp_state *x, unsigned i)
{
	unsigned s = x->run->threads[i].node;

	return s < sim.topo.nsockets ? s : 0;
}

/* The other threads on thread a's socket now: what a random next holder
 * would share it with. */
static unsigned socket_mates(struct xp_state *x, unsigned a)
{
	if (x->placed_at != sim.moves) {
		memset(x->on_socket, 0, sim.topo.nsockets * sizeof(*x->on_socket));
		for (unsigned i = 0; i < x->n; i++)
			x->on_socket[socket_of(x, i)]++;
		x->placed_at = sim.moves;
	}
	return x->on_socket[socket_of(x, a)] - 1;
}

static void count_socket_run(struct xp_state *x, unsigned a, unsigned b)
{
	unsigned na = socket_of(x, a), nb = socket_of(x, b);

	if (na != nb) {
		x->run_len = 0;
		return;
	}
	x->local++;
	if (x->run_len && x->run_socket == na)
		x->run_len++;
	else {
		x->run_len = 1;
		x->run_socket = na;
	}
	if (x->run_len > x->longest) {
		x->longest = x->run_len;
		x->longest_socket = na;
	}
}

/* B starts its critical section at d; its critical delay ends at e_b. */
static void section_start(struct xp_state *x, unsigned b, uint64_t d, uint64_t e_b)
{
	struct xp_thread *tb = &x->t[b];
	int a = x->holder;
	uint64_t e = x->holder_end, start = e;
	uint64_t parts[XP_NSLOTS] = { 0 };

	x->holder = (int)b;
	x->holder_end = e_b;
	if (a < 0 || (unsigned)a == b || d < e)
		return;
	if (x->run->end_ns && tb->acq >= x->run->end_ns * 1000)
		return; /* after the measured interval, as the workload counts */
	if (tb->t0 > e) {
		int c = oldest_waiter(x, b, e);

		if (c >= 0)
			walk(x, (unsigned)c, e, tb->t0, 1, parts);
		else
			parts[XP_IDLE] += tb->t0 - e;
		start = tb->t0;
	}
	walk(x, b, start, d, 0, parts);
	for (unsigned i = 0; i < XP_NSLOTS; i++)
		x->parts_ps[i] += parts[i];
	x->handoffs++;
	x->handoff_ps += d - e;
	x->acquire_ps += tb->acq > e ? tb->acq - e : 0;
	x->random_sum += x->n > 1 ? (double)socket_mates(x, (unsigned)a) / (double)(x->n - 1) : 0;
	count_socket_run(x, (unsigned)a, b);
}

/* ------------------------------------------------------------ the hooks */

/* The part of [from, to) inside the measured interval of the run. */
static uint64_t measured(const struct xp_state *x, uint64_t from, uint64_t to)
{
	uint64_t end = x->run->end_ns ? x->run->end_ns * 1000 : UINT64_MAX;

	if (to > end)
		to = end;
	return to > from ? to - from : 0;
}

uint64_t sim_explain_wait_ps(unsigned tid, uint64_t stop_ps)
{
	const struct xp_state *x = sim_xp;
	const struct xp_thread *t;

	if (!x || !x->run || tid >= x->n)
		return 0;
	t = &x->t[tid];
	return t->wait_ps + (t->phase == PH_ACQUIRING ? measured(x, t->t0, stop_ps) : 0);
}

/* The thread's ledger, with the workload's phase observed at time `at`;
 * NULL outside a run. */
static struct xp_thread *observe(unsigned tid, uint64_t at)
{
	struct xp_state *x = sim_xp;
	struct xp_thread *t;
	int ph;

	if (!sim.run)
		return NULL;
	if (x->run != sim.run && begin_run(x, sim.run))
		return NULL;
	if (tid >= x->n)
		return NULL;
	t = &x->t[tid];
	ph = __atomic_load_n(&x->run->threads[tid].phase, __ATOMIC_RELAXED);
	if (ph != t->phase) {
		if (t->phase == PH_ACQUIRING)
			t->wait_ps += measured(x, t->t0, at);
		if (ph == PH_ACQUIRING) {
			t->t0 = at;
			t->in_cs = false;
		} else if (ph == PH_HOLDING) {
			t->acq = at;
		}
		t->phase = ph;
	}
	return t;
}

static enum xp_part local_part(enum sim_obs_local what)
{
	switch (what) {
	case SIM_OBS_PARK:
		return XP_PARK;
	case SIM_OBS_STOREBUF:
		return XP_STOREBUF;
	case SIM_OBS_IDLE_EXIT:
		return XP_IDLE_EXIT;
	case SIM_OBS_IRQ:
		return XP_IRQ;
	default:
		return XP_LOCAL;
	}
}

void xp_local(unsigned tid, uint64_t from, uint64_t to, enum sim_obs_local what)
{
	struct xp_thread *t = observe(tid, from);

	if (t)
		seg_append(t, from, to, local_part(what), -1, false);
}

void xp_delay(unsigned tid, uint64_t from, uint64_t to)
{
	struct xp_thread *t = observe(tid, from);

	if (!t)
		return;
	if (t->phase == PH_HOLDING && !t->in_cs) {
		t->in_cs = true;
		section_start(sim_xp, tid, from, to);
		seg_append(t, from, to, XP_CS, -1, false);
		return;
	}
	seg_append(t, from, to, t->phase == PH_ACQUIRING ? XP_BACKOFF : XP_LOCAL, -1, false);
}

void xp_hit(unsigned tid, uintptr_t addr, uint64_t from, uint64_t to)
{
	xp_local(tid, from, to, SIM_OBS_WORK);
}

static bool is_data(const struct xp_state *x, uintptr_t addr)
{
	return addr >= x->data_lo && addr < x->data_hi;
}

/* A wait for the store buffer: the drain of a store to the protected data
 * is the data's migration (the line comes from the last holder), any
 * other a store-buffer stall. */
void xp_drain(unsigned tid, uintptr_t addr, uint64_t from, uint64_t to)
{
	struct xp_thread *t = observe(tid, from);

	if (t)
		seg_append(t, from, to, is_data(sim_xp, addr) ? XP_DATA : XP_STOREBUF, -1, false);
}

void xp_issue(unsigned tid, uintptr_t addr, uint64_t issue, uint64_t arrival)
{
	struct xp_thread *t = observe(tid, issue);

	if (!t)
		return;
	seg_append(t, issue, arrival, XP_XFER, -1, true);
	t->open_since = arrival;
	t->open_part = is_data(sim_xp, addr) ? XP_DATA : XP_QUEUE;
}

/* The invalidation fan-out in a miss's service: the charge per extra
 * sharer that coherence.c adds to a write to a shared line. */
static uint64_t fanout_ps(enum coh_op op, const struct coh_result *r)
{
	if (op == COH_LOAD || r->state != TOPO_S || r->invalidations < 2)
		return 0;
	return (uint64_t)(r->invalidations - 1) * sim.topo.inval_ps_per_sharer;
}

void xp_miss(unsigned tid, uintptr_t addr, enum coh_op op, const struct coh_result *r)
{
	struct xp_state *x = sim_xp;
	struct xp_thread *t = observe(tid, r->start_ps - r->queue_ps - r->home_wait_ps);
	struct xp_seg *travel;
	bool data;
	unsigned xfer;
	uint64_t at, inval, link, service;

	if (!t)
		return;
	t->open_since = UINT64_MAX;
	data = is_data(x, addr);
	xfer = data ? XP_DATA : XP_XFER + (r->dist_class < TOPO_MAX_CLASSES ? r->dist_class : 0);
	travel = seg_last(t);
	if (travel && travel->sealed) {
		travel->part = (uint16_t)xfer;
		travel->sealed = false;
	}
	at = r->start_ps - r->queue_ps - r->home_wait_ps; /* arrival */
	if (r->hit) {
		seg_append(t, at, r->done_ps, XP_LOCAL, -1, false);
		return;
	}
	seg_append(t, at, at + r->home_wait_ps, data ? XP_DATA : XP_HOME, -1, false);
	at += r->home_wait_ps;
	seg_append(t, at, r->start_ps, data ? XP_DATA : XP_QUEUE, -1, false);
	service = r->done_ps - r->start_ps;
	link = r->link_wait_ps < service ? r->link_wait_ps : service;
	inval = fanout_ps(op, r);
	if (inval > service - link)
		inval = service - link;
	at = r->start_ps;
	seg_append(t, at, at + service - link - inval, xfer, -1, false);
	at += service - link - inval;
	seg_append(t, at, at + link, data ? XP_DATA : XP_LINK, -1, false);
	at += link;
	seg_append(t, at, at + inval, data ? XP_DATA : XP_INVAL, -1, false);
}

void xp_block(unsigned tid, uint64_t from)
{
	struct xp_thread *t = observe(tid, from);

	if (!t)
		return;
	t->parked_since = from;
	t->waker = -1;
}

void xp_unblock(unsigned tid, uint64_t to)
{
	struct xp_state *x = sim_xp;
	struct xp_thread *t;
	uint64_t from;

	if (!sim.run || x->run != sim.run || tid >= x->n)
		return;
	t = &x->t[tid];
	from = t->parked_since;
	t->parked_since = UINT64_MAX;
	if (from != UINT64_MAX)
		seg_append(t, from, to, XP_PARKED, t->waker, false);
	t->waker = -1;
}

void xp_woken(unsigned tid, int waker)
{
	struct xp_state *x = sim_xp;

	if (sim.run && x->run == sim.run && tid < x->n)
		x->t[tid].waker = waker;
}

/* ------------------------------------------------------------ runs */

int sim_explain_arm(void)
{
	sim_explain_disarm();
	sim_xp = calloc(1, sizeof(*sim_xp));
	if (!sim_xp)
		return -1;
	sim_observer = &report_observer;
	return 0;
}

void sim_explain_disarm(void)
{
	if (!sim_xp)
		return;
	sim_observer = NULL;
	free_run(sim_xp);
	free(sim_xp);
	sim_xp = NULL;
}

/* This run's per-thread figures into those of the runs before it. */
static void fold_spread(const struct wl_run *run, struct xp_state *x)
{
	struct wl_spread one;
	struct xp_report *s = &x->spread;

	if (wl_thread_spread(run, &one))
		return;
	if (x->runs == 1) { /* the first run: its own fewest, most and starved */
		s->acq_min = one.min;
		s->acq_max = one.max;
		s->starved = one.starved;
		s->threads = run->nthreads;
	}
	s->acq_gap = one.max - one.min > s->acq_gap ? one.max - one.min : s->acq_gap;
	s->acq_min = one.min < s->acq_min ? one.min : s->acq_min;
	s->acq_max = one.max > s->acq_max ? one.max : s->acq_max;
	s->starved = one.starved > s->starved ? one.starved : s->starved;
	x->acq_mean_sum += one.mean;
	x->acq_cv_sum += one.cv;
	x->jain_sum += one.jain;
}

void sim_explain_end_run(const struct wl_run *run, const struct sim_counters *c)
{
	struct xp_state *x = sim_xp;

	if (!x)
		return;
	x->runs++;
	for (unsigned i = 0; i < run->nthreads; i++) {
		x->wl_handoffs += run->threads[i].handoffs;
		x->acquisitions += run->threads[i].acquisitions;
	}
	x->duration_s += (double)(run->stop_ns - run->start_ns) / 1e9;
	x->misses += c->misses;
	x->remote += c->remote_transfers;
	x->busiest += c->busiest_link_msgs;
	x->line_misses[XP_LINE_LOCK] += c->lock_misses;
	x->line_misses[XP_LINE_NODE] += c->node_misses;
	x->line_misses[XP_LINE_DATA] += c->data_misses;
	x->line_misses[XP_LINE_OTHER] += c->other_misses;
	fold_spread(run, x);
	free_run(x);
}

static double per(double num, uint64_t den)
{
	return den ? num / (double)den : NAN;
}

void sim_explain_report(struct xp_report *rep)
{
	const struct xp_state *x = sim_xp;

	memset(rep, 0, sizeof(*rep));
	if (!x)
		return;
	rep->acq_min = x->spread.acq_min;
	rep->acq_max = x->spread.acq_max;
	rep->acq_gap = x->spread.acq_gap;
	rep->starved = x->spread.starved;
	rep->threads = x->spread.threads;
	if (x->runs) {
		rep->acq_mean = x->acq_mean_sum / x->runs;
		rep->acq_cv = x->acq_cv_sum / x->runs;
		rep->jain = x->jain_sum / x->runs;
	}
	rep->runs = x->runs;
	rep->handoffs = x->handoffs;
	rep->wl_handoffs = x->wl_handoffs;
	rep->handoff_ns = per((double)x->handoff_ps / 1000, x->handoffs);
	rep->acquire_ns = per((double)x->acquire_ps / 1000, x->handoffs);
	for (unsigned i = 0; i < XP_NPARTS; i++) {
		rep->part_ns[i] = per((double)x->parts_ps[i] / 1000, x->handoffs);
		rep->parts_sum_ns += rep->part_ns[i];
	}
	rep->gap_ns = per((double)x->parts_ps[XP_GAP] / 1000, x->handoffs);
	rep->local_handoffs = x->local;
	rep->local_frac = per((double)x->local, x->handoffs);
	rep->random_local_frac = per(x->random_sum, x->handoffs);
	rep->longest_socket_run = x->longest;
	rep->longest_run_socket = x->longest_socket;
	rep->acquisitions = x->acquisitions;
	rep->throughput_per_s = x->duration_s > 0 ? (double)x->acquisitions / x->duration_s : 0;
	rep->misses_per_acq = per((double)x->misses, x->acquisitions);
	rep->remote_per_acq = per((double)x->remote, x->acquisitions);
	rep->busiest_link_per_acq = per((double)x->busiest, x->acquisitions);
	for (unsigned i = 0; i < XP_NLINES; i++)
		rep->line_misses_per_acq[i] = per((double)x->line_misses[i], x->acquisitions);
}
