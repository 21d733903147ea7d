/*
 * sim/coh_protocol.c - the coherence protocol: the state a line is in, what
 * an access costs given that state and how far the data or ownership must
 * come, whom it invalidates, the state it leaves, the counters, and how long
 * the owner a miss takes the line from still holds it (open_snoop_window).
 *
 * A line's directory entry is the tuple (state, owner, sharers); c is the
 * requesting core, o the owner, f the O/F core (MOESI owner, MESIF
 * forwarder), X a set of sharers:
 *
 *   (I, -, {})      nobody holds it: memory at home has it
 *   (E, o, {})      o holds it clean, alone
 *   (M, o, {})      o holds it dirty, alone
 *   (S, -|f, X)     read-only copies in X; f, one of them, is O or F
 *
 * Load by c.  A hit when c holds a valid copy: (M|E, c, {}) or (S, *, X)
 * with c in X; nothing changes.  A miss:
 *
 *   (I, -, {})  ------------------------------> (E, c, {})       from memory at home
 *   (M, o, {})  --- MESI  --------------------> (S, -, {o, c})
 *               --- MOESI --------------------> (S, o, {o, c})   o owns the dirty data (O)
 *               --- MESIF --------------------> (S, c, {o, c})   c forwards (F)
 *   (E, o, {})  --- MESI, MOESI --------------> (S, -, {o, c})   clean: nothing to own
 *               --- MESIF --------------------> (S, c, {o, c})
 *   (S, f, X)   --- MESI, MOESI --------------> (S, f, X + c)
 *               --- MESIF --------------------> (S, c, X + c)    F moves to c
 *
 * Store or RMW by c.  A hit when c owns the line in M or E:
 *
 *   (M, c, {})  ------------------------------> (M, c, {})
 *   (E, c, {})  --- silently -----------------> (M, c, {})       no directory
 *
 * A miss, from any state:
 *
 *   (*, *, *)   ------------------------------> (M, c, {})       every other copy invalidated
 */
#include "coh_internal.h"

#include <math.h>

#include <locklab/rng.h>

/* Does core hold the line validly enough for op (a hit)? */
bool coh_holds(const struct coh_model *m, const struct line *l, unsigned core, enum coh_op op)
{
	if (op != COH_LOAD)
		return (l->state == L_M || l->state == L_E) && l->owner == (int32_t)core;
	if (l->state == L_M || l->state == L_E)
		return l->owner == (int32_t)core;
	return l->state == L_S && sharer_has(m, l, core);
}

/* Does core still hold the line at now, its snoop on the way (prev_until)? */
bool coh_holds_still(const struct line *l, unsigned core, uint64_t now)
{
	return l->prev_owner == (int32_t)core && now < l->prev_until;
}

enum topo_state coh_seen_state(const struct line *l)
{
	switch (l->state) {
	case L_M:
		return TOPO_M;
	case L_E:
		return TOPO_E;
	case L_S:
		return TOPO_S;
	default:
		return TOPO_I;
	}
}

/* Does some valid copy (all: every valid copy) of an S line sit in socket s? */
static bool sharers_in_socket(const struct coh_model *m, const struct line *l, unsigned s, bool all)
{
	const uint64_t *mask = &m->sock_mask[(size_t)s * m->words];
	unsigned n = 0;

	for (unsigned w = m->sock_words[2 * s]; w < m->sock_words[2 * s + 1]; w++) {
		uint64_t bits = l->sharers[w] & mask[w];

		if (!all && bits)
			return true;
		n += (unsigned)__builtin_popcountll(bits);
	}
	return all && n == l->nsharers;
}

/*
 * Can socket s settle this request without the home directory?  A load
 * needs some copy there; a store or RMW needs every copy there (a copy
 * elsewhere must be invalidated through the home).
 */
bool coh_held_in_socket(const struct coh_model *m, const struct line *l, unsigned s,
			enum coh_op op)
{
	switch (l->state) {
	case L_M:
	case L_E:
		return socket_of(m, (unsigned)l->owner) == s;
	case L_S:
		return sharers_in_socket(m, l, s, op != COH_LOAD);
	default:
		return false;
	}
}

/* What a miss needs: where the data or ownership comes from, and whom it invalidates. */
struct plan {
	enum topo_state state;
	unsigned src_socket;
	int src_core;      /* -1: memory at home, or an upgrade */
	unsigned dist;     /* distance class */
	unsigned ninval;   /* copies destroyed */
	bool reply_ctrl;   /* c already has the data: the reply is an ack */
};

/* Sharers below nsockets / this are walked one by one by sharer_pick(). */
#define SHARERS_PER_SOCKET_SCAN 4

/* The lowest sharer of socket s other than skip, or -1. */
static int sharer_first_in(const struct coh_model *m, const struct line *l, unsigned s, int skip)
{
	const uint64_t *mask = &m->sock_mask[(size_t)s * m->words];

	for (unsigned w = m->sock_words[2 * s]; w < m->sock_words[2 * s + 1]; w++) {
		uint64_t bits = l->sharers[w] & mask[w];

		if (skip >= 0 && (unsigned)skip >> 6 == w)
			bits &= ~(1ull << (skip & 63));
		if (bits)
			return (int)(w * 64 + (unsigned)__builtin_ctzll(bits));
	}
	return -1;
}

/*
 * The lowest sharer other than skip among the sockets order[lo, hi), one
 * class from sc, sorted by their lowest core: a socket whose lowest core
 * is past the best found has none lower.
 */
static int sharer_first_of_class(const struct coh_model *m, const struct line *l,
				 const uint32_t *order, unsigned lo, unsigned hi, int skip)
{
	int best = -1;

	for (unsigned i = lo; i < hi; i++) {
		if (best >= 0 && m->sock_first[order[i]] > (unsigned)best)
			break;
		int c = sharer_first_in(m, l, order[i], skip);
		if (c >= 0 && (best < 0 || c < best))
			best = c;
	}
	return best;
}

/* sharer_pick() over the sharers one by one, lowest core first. */
static int sharer_pick_walk(const struct coh_model *m, const struct line *l, unsigned sc,
			    int skip, bool far)
{
	int best = -1;
	unsigned best_class = 0, left = l->nsharers;

	for (unsigned w = 0; left && w < m->words; w++) {
		uint64_t bits = l->sharers[w];
		while (bits) {
			unsigned core = w * 64 + (unsigned)__builtin_ctzll(bits);
			bits &= bits - 1;
			left--;
			if ((int)core == skip)
				continue;
			unsigned k = class_between(m, sc, socket_of(m, core));
			if (best < 0 || (far ? k > best_class : k < best_class)) {
				best = (int)core;
				best_class = k;
			}
		}
	}
	return best;
}

/*
 * The sharer other than skip nearest to (far: farthest from) socket sc;
 * ties: lowest core.  A few sharers are walked one by one; many, a class
 * of sockets at a time, nearest (far: farthest) first.
 */
static int sharer_pick(const struct coh_model *m, const struct line *l, unsigned sc,
		       int skip, bool far)
{
	unsigned ns = m->t->nsockets;
	const uint32_t *order = &m->by_class[(size_t)sc * ns];
	unsigned lo, hi;

	if (l->nsharers * SHARERS_PER_SOCKET_SCAN <= ns)
		return sharer_pick_walk(m, l, sc, skip, far);
	for (unsigned done = 0; done < ns; done += hi - lo) {
		lo = far ? ns - done - 1 : done;
		hi = lo + 1;
		unsigned k = class_between(m, sc, order[lo]);
		while (lo > 0 && class_between(m, sc, order[lo - 1]) == k)
			lo--;
		while (hi < ns && class_between(m, sc, order[hi]) == k)
			hi++;
		int c = sharer_first_of_class(m, l, order, lo, hi, skip);
		if (c >= 0)
			return c;
	}
	return -1;
}

static void plan_from_core(const struct coh_model *m, struct plan *p, unsigned sc, int core)
{
	p->src_core = core;
	p->src_socket = socket_of(m, (unsigned)core);
	p->dist = class_between(m, sc, p->src_socket);
}

/*
 * Where a miss by core gets the data or ownership: the home for I, the
 * owner for M/E, for a load of S the nearest sharer, for a store the
 * farthest other sharer, core's own socket for an upgrade by the only
 * sharer.
 */
static void plan_miss(const struct coh_model *m, const struct line *l, unsigned core,
		      enum coh_op op, struct plan *p)
{
	unsigned sc = socket_of(m, core);

	memset(p, 0, sizeof(*p));
	p->state = coh_seen_state(l);
	switch (l->state) {
	case L_I:
		p->src_core = -1;
		p->src_socket = l->home;
		p->dist = class_between(m, sc, l->home);
		break;
	case L_M:
	case L_E:
		plan_from_core(m, p, sc, l->owner);
		p->ninval = op == COH_LOAD ? 0 : 1;
		break;
	case L_S:
		if (op == COH_LOAD) {
			plan_from_core(m, p, sc, sharer_pick(m, l, sc, -1, false));
			break;
		}
		p->ninval = l->nsharers - (sharer_has(m, l, core) ? 1 : 0);
		p->reply_ctrl = sharer_has(m, l, core);
		if (p->ninval == 0) {
			/* c is the only sharer: an upgrade */
			p->src_core = -1;
			p->src_socket = sc;
			p->dist = 0;
			break;
		}
		plan_from_core(m, p, sc, sharer_pick(m, l, sc, (int)core, true));
		break;
	}
}

/* Invalidation messages to every destroyed copy but the source's (its request carries it). */
static uint64_t send_invalidations(struct coh_model *m, const struct line *l, unsigned core,
				   const struct plan *p, uint64_t start)
{
	unsigned sc = socket_of(m, core);
	uint64_t worst = 0;

	if (l->state != L_S || p->ninval == 0)
		return 0;
	for (unsigned w = 0; w < m->words; w++) {
		uint64_t bits = l->sharers[w];
		while (bits) {
			unsigned k = w * 64 + (unsigned)__builtin_ctzll(bits);
			bits &= bits - 1;
			if (k == core || (int)k == p->src_core)
				continue;
			unsigned sk = socket_of(m, k);
			if (sk == sc)
				continue;
			uint64_t wt = coh_msg_send(m, sc, sk, false, start, NULL);
			if (wt > worst)
				worst = wt;
		}
	}
	return worst;
}

/* The state a load miss by core leaves. */
static void apply_load(struct coh_model *m, struct line *l, unsigned core)
{
	enum topo_protocol proto = m->t->protocol;
	int o = l->owner;

	switch (l->state) {
	case L_I:
		/* (I, -, {}) -> (E, c, {}) */
		l->state = L_E;
		l->owner = (int32_t)core;
		break;
	case L_M:
	case L_E:
		sharers_clear(m, l);
		sharer_add(m, l, (unsigned)o);
		sharer_add(m, l, core);
		if (proto == PROTO_MOESI) {
			/* (M, o, {}) -> (S, o, {o, c}); (E, o, {}) -> (S, -, {o, c}) */
			l->owner = l->state == L_M ? o : -1;
		} else if (proto == PROTO_MESIF) {
			/* (M|E, o, {}) -> (S, c, {o, c}): c forwards */
			l->owner = (int32_t)core;
		} else {
			/* (M|E, o, {}) -> (S, -, {o, c}) */
			l->owner = -1;
		}
		l->state = L_S;
		break;
	case L_S:
		/* (S, f, X) -> (S, f, X + c) */
		sharer_add(m, l, core);
		if (proto == PROTO_MESIF) {
			/* MESIF: (S, f, X) -> (S, c, X + c), F moves to c */
			l->owner = (int32_t)core;
		}
		break;
	}
}

/* The state a store or RMW miss by core leaves. */
static void apply_write(struct coh_model *m, struct line *l, unsigned core)
{
	/* (*, *, *) -> (M, c, {}): every other copy is gone */
	sharers_clear(m, l);
	l->state = L_M;
	l->owner = (int32_t)core;
}

/* A hit by the line's previous owner before its snoop arrives: the
 * directory's state is the new owner's already, and stays so. */
static void access_still_hit(struct coh_model *m, const struct line *l, enum coh_op op,
			     uint64_t now, struct coh_result *r)
{
	m->c.hits++;
	r->hit = true;
	r->state = l->prev_state == L_E ? TOPO_E : TOPO_M; /* its copy's state */
	r->start_ps = now;
	r->done_ps = now + m->t->hit_ps[op];
}

static void access_hit(struct coh_model *m, struct line *l, enum coh_op op,
		       uint64_t now, struct coh_result *r)
{
	m->c.hits++;
	r->hit = true;
	r->state = coh_seen_state(l);
	r->start_ps = now;
	r->done_ps = now + m->t->hit_ps[op];
	if (op != COH_LOAD && l->state == L_E) {
		/* (E, c, {}) -> (M, c, {}), silently */
		l->state = L_M;
	}
}

static void count_miss(struct coh_model *m, const struct line *l, const struct coh_result *r)
{
	struct coh_counters *c = &m->c;

	c->misses++;
	c->misses_by_tag[l->tag]++;
	c->transfers_by_class[r->dist_class]++;
	if (r->remote)
		c->remote_transfers++;
	c->queue_ps += r->queue_ps;
	c->queue_ps_by_tag[l->tag] += r->queue_ps;
	c->link_wait_ps += r->link_wait_ps;
	c->home_wait_ps += r->home_wait_ps;
	c->home_wait_ps_by_tag[l->tag] += r->home_wait_ps;
	c->probe_wait_ps += r->probe_wait_ps;
	c->invalidations[l->tag] += r->invalidations;
}

static inline uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t x = a > b ? a : b;

	return x > c ? x : c;
}

/*
 * The spread of a miss's latency (coh_set_lat_spread, --lat-spread PCT, the
 * topology's latency.spread): the table's latency L becomes
 * L x (1 + PCT% x (2u - 1)), u uniform in [0, 1) and drawn as mix64 of the
 * run's seed and the number of misses before this one (m->req), so a run
 * is the same on every machine and in every process: with the spread the
 * middle 80% of the misses of one kind span 80% of [L - PCT%, L + PCT%],
 * as calibrate's 10th and 90th percentiles of a machine's samples span
 * theirs (docs/mechanisms.md).  0: L as the table gives it.
 */
static uint64_t spread(const struct coh_model *m, uint64_t lat)
{
	double u;

	if (!m->spread_pct)
		return lat;
	u = (double)(mix64(m->spread_seed ^ (m->req * 0x9e3779b97f4a7c15ull)) >> 11) /
	    9007199254740992.0; /* 2^53 */
	return (uint64_t)llround((double)lat * (1.0 + m->spread_pct / 100.0 * (2.0 * u - 1.0)));
}

/*
 * The snoop's way (coh_set_snoop_travel, --snoop-travel PCT).  A miss that
 * takes the line from a core o holding it in M or E reaches o only
 * part-way through the miss's latency; until then o still holds its copy
 * and its accesses hit (coh_holds_still), though the directory already
 * names the new owner.  For a miss by c starting at `start` (the line
 * free and its home agent done), whose latency is L and whose request
 * travelled `paid` ps before it was presented (L as the miss pays it, with
 * its spread: the window ends no later than the miss):
 *
 *   (M|E, o, {}), o != c   prev_owner = o,
 *                          prev_until = start + max(0, PCT% of L - paid)
 *   a write miss otherwise prev_owner = -1: the window closes
 *
 * A hit in the window changes no directory state: the line's state is the
 * new owner's.  o's writes in it are performed on memory before c's access
 * is (c's is performed at its completion), so c reads what o wrote, as it
 * would with its snoop arriving after o's store.  So a load that opens a
 * window, or is admitted while one is open, cannot read its value at its
 * admission (value_settled false).
 * 0 (the default) opens no window: the line moves at the miss's start.
 */
static void open_snoop_window(struct coh_model *m, struct line *l, unsigned core,
			      enum coh_op op, uint64_t lat, uint64_t admitted, uint64_t start,
			      uint64_t paid, struct coh_result *r)
{
	uint64_t way;

	if (!m->snoop_pct)
		return; /* no window is ever open: prev_owner stays -1 */
	if ((l->state == L_M || l->state == L_E) && l->owner != (int32_t)core) {
		way = lat * m->snoop_pct / 100;
		l->prev_owner = l->owner;
		l->prev_state = l->state;
		l->prev_until = start + (way > paid ? way - paid : 0);
		r->value_settled = false;
	} else if (op != COH_LOAD) {
		l->prev_owner = -1;
	} else if (l->prev_owner >= 0 && l->prev_until > admitted) {
		r->value_settled = false; /* the window's owner may still write */
	}
}

/*
 * A miss that arrived at `now` having travelled `paid` ps on the way, and
 * was admitted at `admitted` (>= now; later when it waited for admission).
 * It starts when the line is free (busy-until) and its home's agent has
 * served it (coh_home.c; it queued there on arrival), and costs the topology's
 * latency for (operation, state found, distance class from c's socket to
 * where the data or ownership comes from: plan_miss), plus a fan-out charge
 * per invalidated copy past the first, less the travel already paid (at
 * least 1 ps is left, so that completions keep the order of service), plus
 * any time it waits for busy socket links and for broadcast probes.  The line
 * is busy until it completes.
 */
static void access_miss(struct coh_model *m, struct line *l, unsigned core, enum coh_op op,
			uint64_t now, uint64_t paid, uint64_t admitted, struct coh_result *r)
{
	const struct topo *t = m->t;
	unsigned sc = socket_of(m, core);
	uint64_t line_free = max3(now, l->busy_until, admitted), start = line_free;
	uint64_t cost, lat, wait = 0, probe_wait = 0, home_done, arrive;
	struct plan p;

	m->req++;
	plan_miss(m, l, core, op, &p);
	home_done = now + coh_home_queue(m, l, sc, op, now);
	if (home_done > start)
		start = home_done;
	cost = lat = spread(m, t->lat_ps[op][p.state][p.dist]);
	if (p.state == TOPO_S && p.ninval > 1)
		cost += (uint64_t)(p.ninval - 1) * t->inval_ps_per_sharer;
	if (paid)
		cost = cost > paid ? cost - paid : 1;
	if (p.src_socket != sc) {
		wait += coh_msg_send(m, sc, p.src_socket, false, start, &arrive);
		wait += coh_msg_send(m, p.src_socket, sc, !p.reply_ctrl, arrive, NULL);
	}
	if (coh_probes_broadcast(m, l, sc, op, p.ninval))
		probe_wait = coh_probe_all(m, l->home, sc, p.src_socket, start);
	else
		wait += send_invalidations(m, l, core, &p, start);

	r->start_ps = start;
	r->queue_ps = line_free - now;
	r->home_wait_ps = start - line_free;
	r->link_wait_ps = wait;
	r->probe_wait_ps = probe_wait;
	r->done_ps = start + cost + wait + probe_wait;
	r->dist_class = p.dist;
	r->state = p.state;
	r->invalidations = p.ninval;
	r->remote = p.dist > 0;
	r->value_settled = !l->writes_in_flight;
	count_miss(m, l, r);

	open_snoop_window(m, l, core, op, lat, admitted, start, paid, r);
	if (op == COH_LOAD)
		apply_load(m, l, core);
	else
		apply_write(m, l, core);
	l->busy_until = r->done_ps;
}

/* Serve a request at now as a hit, if core holds the line for op (or still
 * holds it while a snoop travels): true with r filled and the access
 * counted; false with nothing changed. */
static bool serve_hit(struct coh_model *m, struct line *l, unsigned core, enum coh_op op,
		      uint64_t now, struct coh_result *r)
{
	bool holds = coh_holds(m, l, core, op);

	if (!holds && !coh_holds_still(l, core, now))
		return false;
	memset(r, 0, sizeof(*r));
	m->c.accesses++;
	if (holds)
		access_hit(m, l, op, now, r);
	else
		access_still_hit(m, l, op, now, r);
	return true;
}

/* Serve an admitted request (see access_miss for the times): a hit or a
 * miss, costed against the line's state, which it advances.  Fills r. */
void coh_serve(struct coh_model *m, struct line *l, unsigned core, enum coh_op op,
	       uint64_t arrival, uint64_t paid, uint64_t admitted, struct coh_result *r)
{
	if (serve_hit(m, l, core, op, admitted, r))
		return;
	memset(r, 0, sizeof(*r));
	m->c.accesses++;
	access_miss(m, l, core, op, arrival, paid, admitted, r);
}

bool coh_access_if_hit(struct coh_model *m, unsigned core, uintptr_t addr, enum coh_op op,
		       uint64_t now_ps, struct coh_result *r)
{
	struct line *l = coh_line_lookup(m, addr);

	return l && serve_hit(m, l, phys_core(m, core), op, now_ps, r);
}

bool coh_would_hit(const struct coh_model *m, unsigned core, uintptr_t addr, enum coh_op op,
		   uint64_t now_ps)
{
	const struct line *l = coh_line_lookup(m, addr);

	core = phys_core(m, core);
	return l && (coh_holds(m, l, core, op) || coh_holds_still(l, core, now_ps));
}

uint64_t coh_request_travel_ps(const struct coh_model *m, unsigned core, uintptr_t addr,
			       enum coh_op op)
{
	const struct line *l = coh_line_lookup(m, addr);
	unsigned sc = socket_of(m, core), home;
	enum coh_tag tag;

	core = phys_core(m, core);
	if (l && (coh_holds(m, l, core, op) || coh_held_in_socket(m, l, sc, op)))
		return 0;
	if (l)
		home = l->home;
	else
		coh_addr_home_tag(m, addr, &home, &tag);
	return route_latency(m, sc, home);
}
