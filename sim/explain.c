/*
 * sim/explain.c - `locklab-sim explain`: run one configuration and say where
 * the handoff time went (see explain.h for the definitions, docs/graphs.md
 * for the figures).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <locklab/backend.h>
#include <locklab/stats.h>

#include "../core/cli.h"
#include "explain.h"
#include "sim.h"

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
	unsigned node;
	unsigned socket_mates; /* other threads of the run on its socket */
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

	/* sums over the runs */
	unsigned runs;
	uint64_t handoffs, wl_handoffs, local;
	double fair_sum;
	uint64_t handoff_ps, acquire_ps;
	uint64_t parts_ps[XP_NSLOTS];
	uint64_t longest;
	unsigned longest_socket;
	uint64_t acquisitions;
	double duration_s;
	uint64_t misses, remote, busiest;
	/* the last run's per-thread figures */
	struct xp_report last;
};

struct xp_state *sim_xp;

/* ------------------------------------------------------------ the ring */

static void free_run(struct xp_state *x)
{
	for (unsigned i = 0; x->t && i < x->n; i++)
		free(x->t[i].ring);
	free(x->t);
	x->t = NULL;
	x->n = 0;
	x->run = NULL;
}

static int begin_run(struct xp_state *x, const struct wl_run *run)
{
	free_run(x);
	x->t = calloc(run->nthreads, sizeof(*x->t));
	if (!x->t)
		return -1;
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
		t->node = run->threads[i].node;
		for (unsigned j = 0; j < x->n; j++)
			t->socket_mates += j != i && run->threads[j].node == t->node;
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

		if (i == b || t->phase != 1 || t->t0 > e)
			continue;
		if (best < 0 || t->t0 < x->t[best].t0)
			best = (int)i;
	}
	return best;
}

static void count_socket_run(struct xp_state *x, unsigned a, unsigned b)
{
	unsigned na = x->t[a].node, nb = x->t[b].node;

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
	x->fair_sum += x->n > 1 ? (double)x->t[a].socket_mates / (double)(x->n - 1) : 0;
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
	return t->wait_ps + (t->phase == 1 ? measured(x, t->t0, stop_ps) : 0);
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
		if (t->phase == 1)
			t->wait_ps += measured(x, t->t0, at);
		if (ph == 1) {
			t->t0 = at;
			t->in_cs = false;
		} else if (ph == 2) {
			t->acq = at;
		}
		t->phase = ph;
	}
	return t;
}

void xp_local(unsigned tid, uint64_t from, uint64_t to, enum xp_part part)
{
	struct xp_thread *t = observe(tid, from);

	if (t)
		seg_append(t, from, to, part, -1, false);
}

void xp_delay(unsigned tid, uint64_t from, uint64_t to)
{
	struct xp_thread *t = observe(tid, from);

	if (!t)
		return;
	if (t->phase == 2 && !t->in_cs) {
		t->in_cs = true;
		section_start(sim_xp, tid, from, to);
		seg_append(t, from, to, XP_CS, -1, false);
		return;
	}
	seg_append(t, from, to, t->phase == 1 ? XP_BACKOFF : XP_LOCAL, -1, false);
}

void xp_hit(unsigned tid, uintptr_t addr, uint64_t from, uint64_t to)
{
	xp_local(tid, from, to, XP_LOCAL);
}

static bool is_data(const struct xp_state *x, uintptr_t addr)
{
	return addr >= x->data_lo && addr < x->data_hi;
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
	struct xp_thread *t = observe(tid, r->start_ps - r->queue_ps);
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
	at = r->start_ps - r->queue_ps; /* arrival */
	if (r->hit) {
		seg_append(t, at, r->done_ps, XP_LOCAL, -1, false);
		return;
	}
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
	return sim_xp ? 0 : -1;
}

void sim_explain_disarm(void)
{
	if (!sim_xp)
		return;
	free_run(sim_xp);
	free(sim_xp);
	sim_xp = NULL;
}

static void thread_spread(const struct wl_run *run, struct xp_report *r)
{
	double acq[WL_MAX_THREADS], sum = 0, sq = 0;
	unsigned n = run->nthreads;

	r->acq_min = UINT64_MAX;
	r->acq_max = 0;
	r->starved = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t a = run->threads[i].acquisitions;

		acq[i] = (double)a;
		sum += acq[i];
		r->acq_min = a < r->acq_min ? a : r->acq_min;
		r->acq_max = a > r->acq_max ? a : r->acq_max;
		r->starved += a == 0;
	}
	r->acq_mean = n ? sum / n : 0;
	for (unsigned i = 0; i < n; i++)
		sq += (acq[i] - r->acq_mean) * (acq[i] - r->acq_mean);
	r->acq_cv = n > 1 && r->acq_mean > 0 ? sqrt(sq / (n - 1)) / r->acq_mean : 0;
	r->jain = ll_jain(acq, n);
	r->threads = n;
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
	thread_spread(run, &x->last);
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
	*rep = x->last;
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
	rep->fair_local_frac = per(x->fair_sum, x->handoffs);
	rep->longest_socket_run = x->longest;
	rep->longest_run_socket = x->longest_socket;
	rep->acquisitions = x->acquisitions;
	rep->throughput_per_s = x->duration_s > 0 ? (double)x->acquisitions / x->duration_s : 0;
	rep->misses_per_acq = per((double)x->misses, x->acquisitions);
	rep->remote_per_acq = per((double)x->remote, x->acquisitions);
	rep->busiest_link_per_acq = per((double)x->busiest, x->acquisitions);
}

/* ------------------------------------------------------------ the command */

/* As core/main.c seeds each repetition, so that `explain` follows the very
 * runs `run` makes with the same options. */
static uint64_t mix_seed(uint64_t seed, unsigned run)
{
	uint64_t x = seed + 0x9e3779b97f4a7c15ull * (run + 1);

	x ^= x >> 31;
	x *= 0xd6e8feb86659fd93ull;
	x ^= x >> 32;
	return x;
}

static int check_opts(const struct cli_opts *o, char *err, size_t len)
{
	const struct wl_config *c = &o->cfg;

	if (c->nalgos != 1)
		snprintf(err, len, "explain: give one lock (--lock NAME)");
	else if (c->algos[0]->kind != LOCK_MUTEX)
		snprintf(err, len, "explain: --lock %s is a %s; explain follows the handoffs of a mutex",
			 c->algos[0]->name, lock_kind_name(c->algos[0]->kind));
	else if (c->nthreads != 1 || c->threads[0] < 2)
		snprintf(err, len, "explain: --threads: give one thread count of 2 or more");
	else if (c->locks != 1)
		snprintf(err, len, "explain: --locks %u: explain follows one lock (--locks 1)", c->locks);
	else if (c->vm_vcpus)
		snprintf(err, len, "explain: --vm: explain follows a machine without a hypervisor");
	else if (o->format == FMT_JSON)
		snprintf(err, len, "explain: --format json: explain writes table or csv");
	else if (o->csv || o->json || o->threads_csv)
		snprintf(err, len, "explain: --csv/--json/--threads-csv are not explain's outputs "
				   "(--format csv --out FILE)");
	else
		return 0;
	return -1;
}

/* One run of the configuration, as core/main.c makes it; exits 3 when it
 * fails, as `run` does. */
static void explain_one(const struct wl_config *cfg, unsigned r)
{
	struct wl_run run;
	struct sim_counters c;

	memset(&run, 0, sizeof(run));
	memset(&c, 0, sizeof(c));
	run.cfg = cfg;
	run.algo = cfg->algos[0];
	run.nthreads = cfg->threads[0];
	run.run_index = r;
	run.seed = mix_seed(cfg->seed, r);
	run.threads = calloc(run.nthreads, sizeof(*run.threads));
	if (!run.threads) {
		fprintf(stderr, "locklab-sim: out of memory\n");
		exit(1);
	}
	if (backend_run(&run, &c) || run.failed) {
		fprintf(stderr, "locklab-sim: %s\n", run.failure[0] ? run.failure : "run failed");
		fflush(NULL);
		_exit(3);
	}
	wl_teardown(&run);
	free(run.threads);
}

static const char *part_key(unsigned p, char *buf, size_t len)
{
	static const char *const keys[] = {
		[XP_IDLE] = "idle",   [XP_QUEUE] = "queue", [XP_INVAL] = "invalidation",
		[XP_LINK] = "link",   [XP_DATA] = "data",   [XP_LOCAL] = "local",
		[XP_BACKOFF] = "backoff", [XP_PARK] = "park", [XP_OTHER] = "other",
	};

	if (p >= XP_XFER && p < XP_XFER + TOPO_MAX_CLASSES) {
		snprintf(buf, len, "transfer_class%u", p - XP_XFER);
		return buf;
	}
	return keys[p];
}

static const char *part_name(unsigned p, char *buf, size_t len)
{
	static const char *const names[] = {
		[XP_IDLE] = "lock free, nobody waiting",
		[XP_QUEUE] = "queueing on the line (the herd)",
		[XP_INVAL] = "invalidation fan-out",
		[XP_LINK] = "link congestion",
		[XP_DATA] = "protected data migration",
		[XP_LOCAL] = "local work (hits, pauses)",
		[XP_BACKOFF] = "backoff delays",
		[XP_PARK] = "halt, kick and wake-up",
		[XP_OTHER] = "waits not traced further",
	};
	unsigned k = p - XP_XFER;

	if (p >= XP_XFER && p < XP_XFER + TOPO_MAX_CLASSES) {
		if (k == 0)
			snprintf(buf, len, "line transfer, same socket");
		else
			snprintf(buf, len, "line transfer, class %u (%.0f ns route)", k,
				 (double)sim.topo.class_lat_ps[k] / 1000);
		return buf;
	}
	return names[p];
}

/* Printed always: the causes the question names; the rest when present. */
static bool part_shown(unsigned p, const struct xp_report *r)
{
	if (p >= XP_XFER && p < XP_XFER + TOPO_MAX_CLASSES)
		return p - XP_XFER < sim.topo.nclasses;
	if (p >= XP_QUEUE && p <= XP_LOCAL)
		return true;
	return r->part_ns[p] > 0;
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

/* The largest cause, with the line transfers counted together. */
static void verdict(FILE *f, const struct xp_report *r)
{
	double xfer = 0, best = -1;
	unsigned bp = XP_OTHER;
	char buf[96];

	for (unsigned k = 0; k < TOPO_MAX_CLASSES; k++)
		xfer += r->part_ns[XP_XFER + k];
	for (unsigned p = 0; p < XP_NPARTS; p++)
		if ((p < XP_XFER || p >= XP_XFER + TOPO_MAX_CLASSES) && r->part_ns[p] > best) {
			best = r->part_ns[p];
			bp = p;
		}
	fprintf(f, "in short: ");
	if (xfer > best)
		fprintf(f, "moving the lock's lines between caches takes %.0f%% of the handoff time",
			pct(xfer, r->handoff_ns));
	else
		fprintf(f, "%s takes %.0f%% of the handoff time", part_name(bp, buf, sizeof(buf)),
			pct(best, r->handoff_ns));
	if (r->fair_local_frac > 0 && r->local_frac > 1.5 * r->fair_local_frac)
		fprintf(f, "; the lock stays inside one socket %.1fx as often as a fair lock would",
			r->local_frac / r->fair_local_frac);
	if (r->starved)
		fprintf(f, "; %u of %u threads never got it", r->starved, r->threads);
	fprintf(f, ".\n");
}

static void print_table(FILE *f, const struct wl_config *cfg, const struct xp_report *r)
{
	char buf[96];

	fprintf(f, "explain: %s on %s, %u threads (pin %s), cs %llu ns, ncs %s%llu ns, cs-lines %u, "
		   "seed %llu, %u run%s\n\n",
		cfg->algos[0]->name, sim.topo.name, cfg->threads[0], cfg->pin_text,
		(unsigned long long)cfg->cs_ns, cfg->ncs_exp ? "exp:" : "",
		(unsigned long long)cfg->ncs_ns, cfg->cs_lines, (unsigned long long)cfg->seed, r->runs,
		r->runs == 1 ? "" : "s");
	fprintf(f, "throughput %.4f Macq/s; %llu handoffs between threads\n\n", r->throughput_per_s / 1e6,
		(unsigned long long)r->handoffs);
	if (!r->handoffs) {
		fprintf(f, "no handoff between two threads: nothing to explain\n");
		return;
	}
	fprintf(f, "handoff time %10.1f ns  (end of one critical section -> start of the next\n"
		   "                           holder's; docs/graphs.md)\n",
		r->handoff_ns);
	fprintf(f, "  release -> acquisition       %10.1f ns\n", r->acquire_ns);
	fprintf(f, "  acquisition -> data in place %10.1f ns\n\n", r->handoff_ns - r->acquire_ns);
	fprintf(f, "%-42s %10s %7s\n", "where it went", "ns", "share");
	for (unsigned p = 0; p < XP_NPARTS; p++)
		if (part_shown(p, r))
			fprintf(f, "  %-40s %10.1f %6.1f%%\n", part_name(p, buf, sizeof(buf)),
				r->part_ns[p], pct(r->part_ns[p], r->handoff_ns));
	fprintf(f, "  %-40s %10.1f %6.1f%%  (measured %.1f ns)\n\n", "sum of the parts", r->parts_sum_ns,
		pct(r->parts_sum_ns, r->handoff_ns), r->handoff_ns);
	fprintf(f, "unfairness\n");
	fprintf(f, "  handoffs inside one socket  %5.1f%%  (fair share %.1f%%)\n", 100 * r->local_frac,
		100 * r->fair_local_frac);
	fprintf(f, "  longest run inside one socket  %llu handoffs (socket %u)\n",
		(unsigned long long)r->longest_socket_run, r->longest_run_socket);
	fprintf(f, "  acquisitions per thread  min %llu  max %llu  mean %.1f  cv %.2f  Jain %.3f\n",
		(unsigned long long)r->acq_min, (unsigned long long)r->acq_max, r->acq_mean, r->acq_cv,
		r->jain);
	fprintf(f, "traffic per acquisition: %.2f misses, %.2f remote transfers, busiest link %.2f "
		   "messages\n\n",
		r->misses_per_acq, r->remote_per_acq, r->busiest_link_per_acq);
	verdict(f, r);
}

static void print_csv(FILE *f, const struct wl_config *cfg, const struct xp_report *r)
{
	char buf[64];

	fprintf(f, "what,value\n");
	fprintf(f, "topo,%s\nlock,%s\nthreads,%u\nruns,%u\n", sim.topo.name, cfg->algos[0]->name,
		cfg->threads[0], r->runs);
	fprintf(f, "throughput_per_s,%.2f\nhandoffs,%llu\n", r->throughput_per_s,
		(unsigned long long)r->handoffs);
	fprintf(f, "handoff_ns,%.2f\nacquire_ns,%.2f\n", r->handoff_ns, r->acquire_ns);
	for (unsigned p = 0; p < XP_NPARTS; p++)
		if (part_shown(p, r))
			fprintf(f, "%s_ns,%.2f\n", part_key(p, buf, sizeof(buf)), r->part_ns[p]);
	fprintf(f, "parts_sum_ns,%.2f\nuncovered_ns,%.2f\nworkload_handoffs,%llu\n", r->parts_sum_ns,
		r->gap_ns, (unsigned long long)r->wl_handoffs);
	fprintf(f, "local_frac,%.4f\nfair_local_frac,%.4f\nlongest_socket_run,%llu\n", r->local_frac,
		r->fair_local_frac, (unsigned long long)r->longest_socket_run);
	fprintf(f, "acq_min,%llu\nacq_max,%llu\nacq_cv,%.4f\njain,%.4f\nstarved,%u\n",
		(unsigned long long)r->acq_min, (unsigned long long)r->acq_max, r->acq_cv, r->jain,
		r->starved);
}

static int write_report(const struct cli_opts *o, const struct xp_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int rc = 0;

	if (!m)
		return 1;
	if (o->format == FMT_CSV)
		print_csv(m, &o->cfg, r);
	else
		print_table(m, &o->cfg, r);
	if (fclose(m)) {
		free(buf);
		return 1;
	}
	if (o->out) {
		if (write_file_atomic(o->out, buf, len)) {
			fprintf(stderr, "locklab-sim: cannot write %s\n", o->out);
			rc = 1;
		}
	} else {
		fwrite(buf, 1, len, stdout);
	}
	free(buf);
	return rc;
}

int sim_explain(int argc, char **argv)
{
	static struct cli_opts o; /* large: keep it off the stack */
	struct xp_report rep;
	char err[512];
	int rc;

	if (cli_parse_run(argc, argv, &o, err, sizeof(err)) || check_opts(&o, err, sizeof(err)) ||
	    backend_check(&o.cfg, err, sizeof(err))) {
		fprintf(stderr, "locklab-sim: %s\n", err);
		return 2;
	}
	if (sim_explain_arm()) {
		fprintf(stderr, "locklab-sim: out of memory\n");
		return 1;
	}
	for (unsigned r = 0; r < o.cfg.runs; r++)
		explain_one(&o.cfg, r);
	sim_explain_report(&rep);
	rc = write_report(&o, &rep);
	sim_explain_disarm();
	return rc;
}
