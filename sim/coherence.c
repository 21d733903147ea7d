/*
 * sim/coherence.c - the memory system of the simulated machine: a directory
 * over 64-byte lines, socket links with per-direction occupancy, and the
 * counters (see coherence.h for the time and order scheme).
 *
 * The directory entry of a line:
 *
 *   +------+-------+-------------------+------+-----+------------+------+
 *   | state| owner | sharers (bitset)  | home | tag | busy-until | user |
 *   +------+-------+-------------------+------+-----+------------+------+
 *   | holder socket, grants in a row | requests waiting for admission  |
 *   +--------------------------------+---------------------------------+
 *     I        -1        {}                     nobody holds it: memory at home
 *     E        c         {}                     c holds it clean, alone
 *     M        c         {}                     c holds it dirty, alone
 *     S       -1|f    {c1, c2, ...}             read-only copies; f is the
 *                                               O owner (MOESI) or the F
 *                                               forwarder (MESIF), one of them
 *
 * Transitions, for a request by core c (o = owner, f = O/F core):
 *
 *   load,  I            -> E, owner c                      (from memory at home)
 *   load,  M/E by o     -> MESI:  S {o, c}
 *                          MOESI: S {o, c}, o owns it (O) if it was M;
 *                                 a clean E line has nothing to own: plain S
 *                          MESIF: S {o, c}, c forwards (F)
 *   load,  S            -> c joins the sharers; MESIF: F moves to c
 *   store/RMW, any      -> M, owner c, every other copy invalidated
 *   store/RMW hit on E  -> M silently (no directory)
 *
 * A request that finds a line in M, E or S while c holds it validly (load:
 * any valid copy; store/RMW: c owns it in M or E) is a hit and never reaches
 * the directory.  Every other request is a miss.  It first travels to where
 * it is served (coh_request_travel_ps):
 *
 *   line held inside c's socket           travel 0: that socket's caching
 *     (load: some copy there;             agent answers or queues it
 *      store/RMW: every copy there)
 *   otherwise                             the route latency from c's socket
 *                                         to the line's home (0 at home)
 *
 * Under socket-first arbitration a request from another socket than the
 * line's holder (the socket of the latest admitted miss) that finds the
 * line busy waits on the line's list until the line goes idle or
 * max_local_run grants have gone ahead of it (coherence.h).  Once
 * admitted it starts when the line is free (busy-until), costs the
 * topology's latency for (operation, state found, distance class to where
 * the data or ownership comes from), plus a fan-out charge per extra
 * invalidated sharer, less the travel already paid (at least 1 ps is left,
 * so that completions keep the order of service), plus any time its
 * messages wait for busy socket links; the line is busy until it completes.
 *
 * Arbitration, for a miss by core c of socket s arriving at t (h: the
 * holder socket, run: grants made ahead of the waiting requests, bound:
 * max_local_run):
 *
 *   fifo                                       admitted
 *   none waits, line idle at t                 admitted; h = s
 *   none waits, busy, s == h or s settles it   admitted; h = s
 *   none waits, busy, otherwise                waits; run = 0
 *   some wait, busy, s == h or s settles it,   admitted ahead of them;
 *     run < bound                                h = s, run++
 *   some wait, otherwise                       waits, behind them
 *   a completion finds the line idle           the oldest waiter is admitted;
 *                                                h = its socket, run = 0
 *   run reaches bound                          the same, behind the queue
 *
 * The waiting requests are at the home: they stay in arrival order, even
 * those from the socket that holds the line by the time they are due.
 *
 * Lines live in a pool of fixed-size records (they never move, so the user
 * slot's address is stable) indexed by an open-addressing hash table keyed
 * by line address (linear probing, backward-shift deletion).  Homes and tags
 * come from a sorted table of address ranges and are stamped on a line when
 * it is created, and again when a range over it changes.
 */
#include "coherence.h"

#include <stdlib.h>
#include <string.h>

enum lstate { L_I = 0, L_S, L_E, L_M };

/* A request waiting for admission (socket-first arbitration). */
struct waiting {
	void *cookie;
	uint64_t arrival, paid; /* ps */
	uint32_t core;
	uint8_t op;
};

#define NO_SOCKET 0xffffu

struct line {
	uintptr_t base;      /* address of the line's first byte */
	uint64_t busy_until; /* ps */
	void *user;
	struct waiting *wait; /* requests waiting for admission, oldest first */
	uint32_t nwait, wait_cap;
	uint32_t local_run;  /* grants made ahead of the waiting requests */
	int32_t owner;       /* M/E: the holder; S: the O/F core or -1 */
	uint32_t nsharers;
	uint16_t home;
	uint16_t holder;     /* socket of the latest admitted miss, or NO_SOCKET */
	uint8_t state, tag;
	uint64_t sharers[];  /* [m->words] */
};

struct slot {
	uint64_t key; /* line number: base >> COH_LINE_SHIFT */
	uint32_t idx; /* pool index + 1; 0 = empty slot */
};

struct range {
	uintptr_t lo, hi; /* [lo, hi) */
	unsigned node;
	enum coh_tag tag;
};

struct hop {
	unsigned link;
	unsigned dir; /* 0: from link.a to link.b, 1: back */
};

struct link_dir {
	uint64_t res_start, free_at; /* the latest reservation [res_start, free_at) */
	uint64_t req;                /* the miss that made it */
};

#define CHUNK_SHIFT 10
#define CHUNK_LINES (1u << CHUNK_SHIFT)

struct coh_model {
	const struct topo *t;
	unsigned words;    /* 64-bit words in a sharer set */
	size_t line_bytes; /* one pool record */

	char **chunks;
	unsigned nchunks;
	uint32_t nalloc; /* records handed out from the chunks so far */
	uint32_t *free_idx;
	uint32_t nfree, free_cap;

	struct slot *slots;
	uint64_t mask;
	unsigned bits;
	uint32_t nlive;

	struct range *ranges;
	size_t nranges, ranges_cap;

	struct hop *hops;         /* parallel to t->route_links */
	uint64_t *route_lat;      /* [a * nsockets + b]: one way, a to b; 0 when a == b */
	uint64_t *sock_mask;      /* [s * words]: the cores of socket s, as a sharer set */
	struct link_dir *ldir;    /* [nlinks * 2] */
	uint64_t *occ_ctrl, *occ_data; /* ps a message occupies each link */

	uint64_t req; /* misses so far: names a miss's reservations */
	struct coh_counters c;
};

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		abort();
	return p;
}

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		abort();
	return p;
}

static inline unsigned socket_of(const struct coh_model *m, unsigned core)
{
	return m->t->core_socket[core];
}

static inline unsigned class_between(const struct coh_model *m, unsigned sa, unsigned sb)
{
	return m->t->socket_class[sa * m->t->nsockets + sb];
}

/* ---------------------------------------------------------------- sharer sets */

static inline bool sharer_has(const struct coh_model *m, const struct line *l, unsigned core)
{
	(void)m;
	return (l->sharers[core >> 6] >> (core & 63)) & 1;
}

static inline void sharer_add(const struct coh_model *m, struct line *l, unsigned core)
{
	(void)m;
	if (!sharer_has(m, l, core)) {
		l->sharers[core >> 6] |= 1ull << (core & 63);
		l->nsharers++;
	}
}

static inline void sharers_clear(const struct coh_model *m, struct line *l)
{
	memset(l->sharers, 0, m->words * sizeof(uint64_t));
	l->nsharers = 0;
}

/* ---------------------------------------------------------------- line pool */

static inline struct line *line_at(const struct coh_model *m, uint32_t idx)
{
	return (struct line *)(m->chunks[idx >> CHUNK_SHIFT] +
			       (size_t)(idx & (CHUNK_LINES - 1)) * m->line_bytes);
}

static uint32_t pool_take(struct coh_model *m)
{
	if (m->nfree)
		return m->free_idx[--m->nfree];
	if ((m->nalloc >> CHUNK_SHIFT) == m->nchunks) {
		m->chunks = xrealloc(m->chunks, (m->nchunks + 1) * sizeof(*m->chunks));
		m->chunks[m->nchunks++] = xcalloc(CHUNK_LINES, m->line_bytes);
	}
	return m->nalloc++;
}

static void pool_give(struct coh_model *m, uint32_t idx)
{
	if (m->nfree == m->free_cap) {
		m->free_cap = m->free_cap ? 2 * m->free_cap : 64;
		m->free_idx = xrealloc(m->free_idx, m->free_cap * sizeof(*m->free_idx));
	}
	m->free_idx[m->nfree++] = idx;
}

/* ---------------------------------------------------------------- hash table */

static inline uint64_t slot_home(const struct coh_model *m, uint64_t key)
{
	return (key * 0x9E3779B97F4A7C15ull) >> (64 - m->bits);
}

/* Slot holding key, or the empty slot where it would go. */
static inline uint64_t slot_find(const struct coh_model *m, uint64_t key)
{
	uint64_t i = slot_home(m, key);

	while (m->slots[i].idx && m->slots[i].key != key)
		i = (i + 1) & m->mask;
	return i;
}

static void table_alloc(struct coh_model *m, unsigned bits)
{
	m->bits = bits;
	m->mask = (1ull << bits) - 1;
	m->slots = xcalloc(m->mask + 1, sizeof(*m->slots));
}

static void table_grow(struct coh_model *m)
{
	struct slot *old = m->slots;
	uint64_t n = m->mask + 1;

	table_alloc(m, m->bits + 1);
	for (uint64_t i = 0; i < n; i++)
		if (old[i].idx)
			m->slots[slot_find(m, old[i].key)] = old[i];
	free(old);
}

static void slot_delete(struct coh_model *m, uint64_t i)
{
	uint64_t j = i;

	for (;;) {
		j = (j + 1) & m->mask;
		if (!m->slots[j].idx)
			break;
		uint64_t k = slot_home(m, m->slots[j].key);
		/* Leave j where it is if its home lies cyclically in (i, j]. */
		bool stays = i <= j ? (k > i && k <= j) : (k > i || k <= j);
		if (!stays) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].idx = 0;
}

static struct line *line_lookup(const struct coh_model *m, uintptr_t addr)
{
	uint64_t i = slot_find(m, (uint64_t)addr >> COH_LINE_SHIFT);

	return m->slots[i].idx ? line_at(m, m->slots[i].idx - 1) : NULL;
}

/* ---------------------------------------------------------------- ranges */

/* First range whose end lies past addr. */
static size_t range_first_after(const struct coh_model *m, uintptr_t addr)
{
	size_t lo = 0, hi = m->nranges;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->ranges[mid].hi > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The range giving a line its home and tag: the lowest one overlapping it. */
static const struct range *range_of_line(const struct coh_model *m, uintptr_t base)
{
	size_t i = range_first_after(m, base);

	if (i < m->nranges && m->ranges[i].lo < base + COH_LINE_SIZE)
		return &m->ranges[i];
	return NULL;
}

static void line_stamp(const struct coh_model *m, struct line *l)
{
	const struct range *r = range_of_line(m, l->base);

	l->home = r ? (uint16_t)(r->node % m->t->nsockets) : 0;
	l->tag = r ? (uint8_t)r->tag : COH_TAG_OTHER;
}

static void ranges_reserve(struct coh_model *m, size_t extra)
{
	if (m->nranges + extra <= m->ranges_cap)
		return;
	while (m->nranges + extra > m->ranges_cap)
		m->ranges_cap = m->ranges_cap ? 2 * m->ranges_cap : 16;
	m->ranges = xrealloc(m->ranges, m->ranges_cap * sizeof(*m->ranges));
}

/*
 * Take [lo, hi) out of the range table.  The parts of old ranges it covered
 * go to *cut (clipped, in address order, *ncut of them; the caller frees);
 * returns the index where ranges inside [lo, hi) belong now.
 */
static size_t ranges_carve(struct coh_model *m, uintptr_t lo, uintptr_t hi,
			   struct range **cut, size_t *ncut)
{
	size_t i = range_first_after(m, lo), j = i;
	struct range keep[2];
	size_t nkeep = 0;

	while (j < m->nranges && m->ranges[j].lo < hi)
		j++;
	*ncut = j - i;
	*cut = xcalloc(*ncut, sizeof(**cut));
	for (size_t k = i; k < j; k++) {
		struct range r = m->ranges[k];
		r.lo = r.lo < lo ? lo : r.lo;
		r.hi = r.hi > hi ? hi : r.hi;
		(*cut)[k - i] = r;
	}
	if (i < j && m->ranges[i].lo < lo) {
		keep[nkeep] = m->ranges[i];
		keep[nkeep++].hi = lo;
	}
	if (i < j && m->ranges[j - 1].hi > hi) {
		keep[nkeep] = m->ranges[j - 1];
		keep[nkeep++].lo = hi;
	}
	ranges_reserve(m, nkeep);
	if (m->nranges > j)
		memmove(&m->ranges[i + nkeep], &m->ranges[j], (m->nranges - j) * sizeof(*m->ranges));
	m->nranges = m->nranges - (j - i) + nkeep;
	for (size_t k = 0; k < nkeep; k++)
		m->ranges[i + k] = keep[k];
	return (nkeep && keep[0].hi == lo) ? i + 1 : i;
}

static void ranges_insert(struct coh_model *m, size_t at, const struct range *r, size_t n)
{
	ranges_reserve(m, n);
	if (m->nranges > at)
		memmove(&m->ranges[at + n], &m->ranges[at], (m->nranges - at) * sizeof(*m->ranges));
	memcpy(&m->ranges[at], r, n * sizeof(*r));
	m->nranges += n;
}

/* ---------------------------------------------------------------- lines */

static struct line *line_get(struct coh_model *m, uintptr_t addr)
{
	uint64_t key = (uint64_t)addr >> COH_LINE_SHIFT;
	uint64_t i = slot_find(m, key);
	struct line *l;

	if (m->slots[i].idx)
		return line_at(m, m->slots[i].idx - 1);
	if (2 * (uint64_t)(m->nlive + 1) > m->mask + 1) {
		table_grow(m);
		i = slot_find(m, key);
	}
	uint32_t idx = pool_take(m);
	l = line_at(m, idx);
	memset(l, 0, m->line_bytes);
	l->base = (uintptr_t)(key << COH_LINE_SHIFT);
	l->owner = -1;
	l->state = L_I;
	l->holder = NO_SOCKET;
	line_stamp(m, l);
	m->slots[i].key = key;
	m->slots[i].idx = idx + 1;
	m->nlive++;
	return l;
}

static void line_remove(struct coh_model *m, uintptr_t base)
{
	uint64_t i = slot_find(m, (uint64_t)base >> COH_LINE_SHIFT);

	if (!m->slots[i].idx)
		return;
	free(line_at(m, m->slots[i].idx - 1)->wait);
	pool_give(m, m->slots[i].idx - 1);
	slot_delete(m, i);
	m->nlive--;
}

static void line_invalidate_all(struct coh_model *m, struct line *l)
{
	l->state = L_I;
	l->owner = -1;
	sharers_clear(m, l);
}

/*
 * The bases of the live lines overlapping [lo, hi), into a fresh array
 * (walking the addresses or the table, whichever is shorter).
 */
static uintptr_t *lines_in(const struct coh_model *m, uintptr_t lo, uintptr_t hi, size_t *n)
{
	uintptr_t first = lo & ~(uintptr_t)(COH_LINE_SIZE - 1);
	uint64_t span = (uint64_t)((hi - 1 - first) >> COH_LINE_SHIFT) + 1;
	uintptr_t *out;

	*n = 0;
	if (span <= m->nlive) {
		out = xcalloc(span, sizeof(*out));
		for (uint64_t k = 0; k < span; k++) {
			uintptr_t b = first + (uintptr_t)(k << COH_LINE_SHIFT);
			if (line_lookup(m, b))
				out[(*n)++] = b;
		}
		return out;
	}
	out = xcalloc(m->nlive, sizeof(*out));
	for (uint64_t i = 0; i <= m->mask; i++) {
		if (!m->slots[i].idx)
			continue;
		uintptr_t b = line_at(m, m->slots[i].idx - 1)->base;
		if (b + COH_LINE_SIZE > lo && b < hi)
			out[(*n)++] = b;
	}
	return out;
}

static void restamp(struct coh_model *m, uintptr_t lo, uintptr_t hi)
{
	size_t n;
	uintptr_t *b = lines_in(m, lo, hi, &n);

	for (size_t k = 0; k < n; k++)
		line_stamp(m, line_lookup(m, b[k]));
	free(b);
}

/* ---------------------------------------------------------------- links */

/* Occupancy in ps of `bytes` on a link of bw bytes/s, rounded up. */
static uint64_t occupancy_ps(unsigned bytes, double bw)
{
	if (bw <= 0.0 || bytes == 0)
		return 0;
	double ps = (double)bytes * 1e12 / bw;
	uint64_t whole = (uint64_t)ps;
	return (double)whole < ps ? whole + 1 : whole;
}

/* Direction of each hop of each route, walking from the route's source. */
static void plan_hops(struct coh_model *m)
{
	const struct topo *t = m->t;
	unsigned ns = t->nsockets;

	for (unsigned a = 0; a < ns; a++) {
		for (unsigned b = 0; b < ns; b++) {
			unsigned off = t->route_off[a * ns + b], cur = a;
			for (unsigned k = 0; k < t->route_len[a * ns + b]; k++) {
				const struct topo_link *lk = &t->links[t->route_links[off + k]];
				struct hop *h = &m->hops[off + k];
				h->link = t->route_links[off + k];
				h->dir = lk->a == cur ? 0 : 1;
				cur = h->dir ? lk->a : lk->b;
			}
		}
	}
}

/*
 * A message of miss `req` needs a link direction from time t for occ ps.  It
 * goes at once if the link is free then, or if it fits before the latest
 * reservation (requests arrive in simulated-time order but may start
 * later, behind a busy line, so reservations can lie ahead of t); otherwise
 * it waits for the latest reservation to end.  The messages of one miss (its
 * invalidations) do not wait for each other: the fan-out charge covers
 * them; they only extend the reservation.  Returns the wait.
 */
static uint64_t link_reserve(struct link_dir *d, uint64_t req, uint64_t t, uint64_t occ)
{
	uint64_t w = 0;

	if (occ == 0)
		return 0;
	if (d->req == req && t < d->free_at) {
		d->free_at += occ;
		return 0;
	}
	if (t < d->free_at && t + occ <= d->res_start)
		return 0;
	if (t < d->free_at)
		w = d->free_at - t;
	d->req = req;
	d->res_start = t + w;
	d->free_at = t + w + occ;
	return w;
}

/*
 * Send one message from socket a to socket b, leaving at t0: it takes each
 * link of the route in turn (occupancy, then the link's latency).  Counts
 * it on every link.  Returns the time spent waiting; *arrive = arrival.
 */
static uint64_t msg_send(struct coh_model *m, unsigned a, unsigned b, bool data,
			 uint64_t t0, uint64_t *arrive)
{
	const struct topo *t = m->t;
	unsigned ns = t->nsockets, off = t->route_off[a * ns + b];
	unsigned bytes = data ? t->data_msg_bytes : t->ctrl_msg_bytes;
	uint64_t now = t0, wait = 0;

	for (unsigned k = 0; k < t->route_len[a * ns + b]; k++) {
		const struct hop *h = &m->hops[off + k];
		uint64_t occ = data ? m->occ_data[h->link] : m->occ_ctrl[h->link];
		uint64_t w = link_reserve(&m->ldir[2 * h->link + h->dir], m->req, now, occ);
		wait += w;
		now += w + occ + t->links[h->link].lat_ps;
		m->c.link_msgs[h->link]++;
		m->c.link_bytes[h->link] += bytes;
	}
	if (arrive)
		*arrive = now;
	return wait;
}

/* One-way latency of every route: the sum of its links' latencies (a
 * topology without routes, built by hand, gives its class latencies). */
static void plan_route_latencies(struct coh_model *m)
{
	const struct topo *t = m->t;
	unsigned ns = t->nsockets;

	for (unsigned a = 0; a < ns; a++) {
		for (unsigned b = 0; b < ns; b++) {
			unsigned i = a * ns + b;
			uint64_t lat = 0;

			if (a == b)
				continue;
			for (unsigned k = 0; t->route_len && k < t->route_len[i]; k++)
				lat += t->links[t->route_links[t->route_off[i] + k]].lat_ps;
			if (!t->route_len || !t->route_len[i])
				lat = t->class_lat_ps[class_between(m, a, b)];
			m->route_lat[i] = lat;
		}
	}
}

static void plan_socket_masks(struct coh_model *m)
{
	for (unsigned c = 0; c < m->t->ncores; c++)
		m->sock_mask[(size_t)socket_of(m, c) * m->words + (c >> 6)] |= 1ull << (c & 63);
}

/* ---------------------------------------------------------------- create */

struct coh_model *coh_create(const struct topo *t)
{
	struct coh_model *m = xcalloc(1, sizeof(*m));
	unsigned nroute = 0;

	m->t = t;
	m->words = (t->ncores + 63) / 64;
	if (m->words == 0)
		m->words = 1;
	m->line_bytes = sizeof(struct line) + m->words * sizeof(uint64_t);
	m->line_bytes = (m->line_bytes + 7) & ~(size_t)7;
	table_alloc(m, 10);
	ranges_reserve(m, 16);
	for (unsigned i = 0; t->route_off && t->route_len && i < t->nsockets * t->nsockets; i++)
		if (t->route_off[i] + t->route_len[i] > nroute)
			nroute = t->route_off[i] + t->route_len[i];
	m->hops = xcalloc(nroute, sizeof(*m->hops));
	m->route_lat = xcalloc((size_t)t->nsockets * t->nsockets, sizeof(uint64_t));
	m->sock_mask = xcalloc((size_t)t->nsockets * m->words, sizeof(uint64_t));
	m->ldir = xcalloc(2 * (size_t)t->nlinks, sizeof(*m->ldir));
	m->occ_ctrl = xcalloc(t->nlinks, sizeof(uint64_t));
	m->occ_data = xcalloc(t->nlinks, sizeof(uint64_t));
	m->c.link_msgs = xcalloc(t->nlinks, sizeof(uint64_t));
	m->c.link_bytes = xcalloc(t->nlinks, sizeof(uint64_t));
	for (unsigned i = 0; i < t->nlinks; i++) {
		m->occ_ctrl[i] = occupancy_ps(t->ctrl_msg_bytes, t->links[i].bw_bytes_per_s);
		m->occ_data[i] = occupancy_ps(t->data_msg_bytes, t->links[i].bw_bytes_per_s);
	}
	if (nroute)
		plan_hops(m);
	plan_route_latencies(m);
	plan_socket_masks(m);
	return m;
}

void coh_destroy(struct coh_model *m)
{
	if (!m)
		return;
	for (uint64_t i = 0; i <= m->mask; i++)
		if (m->slots[i].idx)
			free(line_at(m, m->slots[i].idx - 1)->wait);
	for (unsigned i = 0; i < m->nchunks; i++)
		free(m->chunks[i]);
	free(m->chunks);
	free(m->free_idx);
	free(m->slots);
	free(m->ranges);
	free(m->hops);
	free(m->route_lat);
	free(m->sock_mask);
	free(m->ldir);
	free(m->occ_ctrl);
	free(m->occ_data);
	free(m->c.link_msgs);
	free(m->c.link_bytes);
	free(m);
}

/* ---------------------------------------------------------------- homes, tags */

void coh_set_home(struct coh_model *m, uintptr_t addr, size_t size, unsigned node, enum coh_tag tag)
{
	struct range *cut, r = { addr, addr + size, node, tag };
	size_t ncut, at;

	if (size == 0)
		return;
	at = ranges_carve(m, r.lo, r.hi, &cut, &ncut);
	free(cut);
	ranges_insert(m, at, &r, 1);
	restamp(m, r.lo, r.hi);
}

void coh_set_tag(struct coh_model *m, uintptr_t addr, size_t size, enum coh_tag tag)
{
	uintptr_t lo = addr, hi = addr + size, at_addr = lo;
	struct range *cut, *out;
	size_t ncut, nout = 0, at;

	if (size == 0)
		return;
	at = ranges_carve(m, lo, hi, &cut, &ncut);
	out = xcalloc(2 * ncut + 1, sizeof(*out));
	for (size_t k = 0; k < ncut; k++) {
		if (cut[k].lo > at_addr)
			out[nout++] = (struct range){ at_addr, cut[k].lo, 0, tag };
		out[nout] = cut[k];
		out[nout++].tag = tag;
		at_addr = cut[k].hi;
	}
	if (at_addr < hi)
		out[nout++] = (struct range){ at_addr, hi, 0, tag };
	ranges_insert(m, at, out, nout);
	free(cut);
	free(out);
	restamp(m, lo, hi);
}

void coh_forget(struct coh_model *m, uintptr_t addr, size_t size)
{
	uintptr_t lo = addr, hi = addr + size;
	struct range *cut;
	size_t ncut, n;
	uintptr_t *b;

	if (size == 0)
		return;
	ranges_carve(m, lo, hi, &cut, &ncut);
	free(cut);
	b = lines_in(m, lo, hi, &n);
	for (size_t k = 0; k < n; k++) {
		struct line *l = line_lookup(m, b[k]);
		bool inside = b[k] >= lo && b[k] + COH_LINE_SIZE <= hi;
		if (inside && !l->user && !l->nwait) {
			line_remove(m, b[k]);
			continue;
		}
		line_invalidate_all(m, l);
		line_stamp(m, l);
	}
	free(b);
}

/* ---------------------------------------------------------------- access */

static bool holds(const struct coh_model *m, const struct line *l, unsigned core, enum coh_op op)
{
	if (op != COH_LOAD)
		return (l->state == L_M || l->state == L_E) && l->owner == (int32_t)core;
	if (l->state == L_M || l->state == L_E)
		return l->owner == (int32_t)core;
	return l->state == L_S && sharer_has(m, l, core);
}

static enum topo_state seen_state(const struct line *l)
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

/* What a miss needs: where the data or ownership comes from, and whom it invalidates. */
struct plan {
	enum topo_state state;
	unsigned src_socket;
	int src_core;      /* -1: memory at home, or an upgrade */
	unsigned dist;     /* distance class */
	unsigned ninval;   /* copies destroyed */
	bool reply_ctrl;   /* c already has the data: the reply is an ack */
};

/* The sharer other than skip nearest to (far: farthest from) socket sc; ties: lowest core. */
static int sharer_pick(const struct coh_model *m, const struct line *l, unsigned sc,
		       int skip, bool far)
{
	int best = -1;
	unsigned best_class = 0;

	for (unsigned w = 0; w < m->words; w++) {
		uint64_t bits = l->sharers[w];
		while (bits) {
			unsigned core = w * 64 + (unsigned)__builtin_ctzll(bits);
			bits &= bits - 1;
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

static void plan_from_core(const struct coh_model *m, struct plan *p, unsigned sc, int core)
{
	p->src_core = core;
	p->src_socket = socket_of(m, (unsigned)core);
	p->dist = class_between(m, sc, p->src_socket);
}

static void plan_miss(const struct coh_model *m, const struct line *l, unsigned core,
		      enum coh_op op, struct plan *p)
{
	unsigned sc = socket_of(m, core);

	memset(p, 0, sizeof(*p));
	p->state = seen_state(l);
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
			uint64_t wt = msg_send(m, sc, sk, false, start, NULL);
			if (wt > worst)
				worst = wt;
		}
	}
	return worst;
}

static void apply_load(struct coh_model *m, struct line *l, unsigned core)
{
	enum topo_protocol proto = m->t->protocol;
	int o = l->owner;

	switch (l->state) {
	case L_I:
		l->state = L_E;
		l->owner = (int32_t)core;
		break;
	case L_M:
	case L_E:
		sharers_clear(m, l);
		sharer_add(m, l, (unsigned)o);
		sharer_add(m, l, core);
		if (proto == PROTO_MOESI)
			l->owner = l->state == L_M ? o : -1;
		else if (proto == PROTO_MESIF)
			l->owner = (int32_t)core;
		else
			l->owner = -1;
		l->state = L_S;
		break;
	case L_S:
		sharer_add(m, l, core);
		if (proto == PROTO_MESIF)
			l->owner = (int32_t)core;
		break;
	}
}

static void apply_write(struct coh_model *m, struct line *l, unsigned core)
{
	sharers_clear(m, l);
	l->state = L_M;
	l->owner = (int32_t)core;
}

static void access_hit(struct coh_model *m, struct line *l, enum coh_op op,
		       uint64_t now, struct coh_result *r)
{
	m->c.hits++;
	r->hit = true;
	r->state = seen_state(l);
	r->start_ps = now;
	r->done_ps = now + m->t->hit_ps[op];
	if (op != COH_LOAD && l->state == L_E)
		l->state = L_M;
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
	c->invalidations[l->tag] += r->invalidations;
}

static inline uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t x = a > b ? a : b;

	return x > c ? x : c;
}

/* A miss that arrived at `now` having travelled `paid` ps on the way, and
 * was admitted at `admitted` (>= now; later when it waited for admission). */
static void access_miss(struct coh_model *m, struct line *l, unsigned core, enum coh_op op,
			uint64_t now, uint64_t paid, uint64_t admitted, struct coh_result *r)
{
	const struct topo *t = m->t;
	unsigned sc = socket_of(m, core);
	uint64_t start = max3(now, l->busy_until, admitted);
	uint64_t cost, wait = 0, arrive;
	struct plan p;

	m->req++;
	plan_miss(m, l, core, op, &p);
	cost = t->lat_ps[op][p.state][p.dist];
	if (p.state == TOPO_S && p.ninval > 1)
		cost += (uint64_t)(p.ninval - 1) * t->inval_ps_per_sharer;
	if (paid)
		cost = cost > paid ? cost - paid : 1;
	if (p.src_socket != sc) {
		wait += msg_send(m, sc, p.src_socket, false, start, &arrive);
		wait += msg_send(m, p.src_socket, sc, !p.reply_ctrl, arrive, NULL);
	}
	wait += send_invalidations(m, l, core, &p, start);

	r->start_ps = start;
	r->queue_ps = start - now;
	r->link_wait_ps = wait;
	r->done_ps = start + cost + wait;
	r->dist_class = p.dist;
	r->state = p.state;
	r->invalidations = p.ninval;
	r->remote = p.dist > 0;
	count_miss(m, l, r);

	if (op == COH_LOAD)
		apply_load(m, l, core);
	else
		apply_write(m, l, core);
	l->busy_until = r->done_ps;
}

/* A granted miss by socket sc: it holds the line now.  Count the grants
 * made ahead of waiting requests since the oldest began to wait (a waiter's
 * own grant starts the count again). */
static void note_grant(struct line *l, unsigned sc, bool waiter)
{
	l->holder = (uint16_t)sc;
	if (waiter)
		l->local_run = 0;
	else if (l->nwait)
		l->local_run++;
}

/* Admit a request that arrived at `arrival` (travel `paid`), at `admitted`;
 * waiter: it comes off the line's waiting list. */
static void admit(struct coh_model *m, struct line *l, unsigned core, enum coh_op op,
		  uint64_t arrival, uint64_t paid, uint64_t admitted, bool waiter,
		  struct coh_result *r)
{
	memset(r, 0, sizeof(*r));
	m->c.accesses++;
	if (holds(m, l, core, op)) {
		access_hit(m, l, op, admitted, r);
		return;
	}
	access_miss(m, l, core, op, arrival, paid, admitted, r);
	note_grant(l, socket_of(m, core), waiter);
}

void coh_access_arrived(struct coh_model *m, unsigned core, uintptr_t addr, enum coh_op op,
			uint64_t arrival_ps, uint64_t travel_paid_ps, struct coh_result *r)
{
	admit(m, line_get(m, addr), core, op, arrival_ps, travel_paid_ps, arrival_ps, false, r);
}

void coh_access(struct coh_model *m, unsigned core, uintptr_t addr, enum coh_op op,
		uint64_t now_ps, struct coh_result *r)
{
	coh_access_arrived(m, core, addr, op, now_ps, 0, r);
}

/* Does some valid copy (all: every valid copy) of an S line sit in socket s? */
static bool sharers_in_socket(const struct coh_model *m, const struct line *l, unsigned s, bool all)
{
	const uint64_t *mask = &m->sock_mask[(size_t)s * m->words];

	for (unsigned w = 0; w < m->words; w++) {
		if (all && (l->sharers[w] & ~mask[w]))
			return false;
		if (!all && (l->sharers[w] & mask[w]))
			return true;
	}
	return all;
}

/*
 * Can socket s settle this request without the home directory?  A load
 * needs some copy there; a store or RMW needs every copy there (a copy
 * elsewhere must be invalidated through the home).
 */
static bool held_in_socket(const struct coh_model *m, const struct line *l, unsigned s,
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

uint64_t coh_request_travel_ps(const struct coh_model *m, unsigned core, uintptr_t addr,
			       enum coh_op op)
{
	const struct line *l = line_lookup(m, addr);
	unsigned sc = socket_of(m, core), home;

	if (l && (holds(m, l, core, op) || held_in_socket(m, l, sc, op)))
		return 0;
	if (l) {
		home = l->home;
	} else {
		const struct range *r = range_of_line(m, addr & ~(uintptr_t)(COH_LINE_SIZE - 1));
		home = r ? r->node % m->t->nsockets : 0;
	}
	return m->route_lat[sc * m->t->nsockets + home];
}

bool coh_would_hit(const struct coh_model *m, unsigned core, uintptr_t addr, enum coh_op op)
{
	const struct line *l = line_lookup(m, addr);

	return l && holds(m, l, core, op);
}

/* ---------------------------------------------------------------- arbitration */

/* Have max_local_run grants gone ahead of the waiting requests? */
static bool bound_reached(const struct coh_model *m, const struct line *l)
{
	return l->nwait && m->t->max_local_run && l->local_run >= m->t->max_local_run;
}

/* Does the request come from the socket that holds the line (the latest
 * admitted miss's), or can its own socket settle it? */
static bool from_holder(const struct coh_model *m, const struct line *l, unsigned core,
			enum coh_op op)
{
	unsigned sc = socket_of(m, core);

	return l->holder == sc || held_in_socket(m, l, sc, op);
}

/*
 * May a request arriving at `now` be admitted at once?  FIFO: always.
 * Socket-first, with nobody waiting: when the line is idle, or the request
 * comes from the holder's socket (or its own socket settles it).  With
 * requests waiting: only such a request, and only while the line is busy
 * and the bound is not reached (an idle line, or a reached bound, goes to
 * the oldest waiter first).
 */
static bool admit_now(const struct coh_model *m, const struct line *l, unsigned core,
		      enum coh_op op, uint64_t now)
{
	bool busy = l->busy_until > now;

	if (m->t->arbitration != ARB_SOCKET_FIRST || holds(m, l, core, op))
		return true;
	if (!l->nwait)
		return !busy || from_holder(m, l, core, op);
	return busy && from_holder(m, l, core, op) && !bound_reached(m, l);
}

/* Put a request on the line's waiting list; the first waiter starts the
 * count of grants made ahead of it. */
static void defer(struct coh_model *m, struct line *l, unsigned core, enum coh_op op,
		  uint64_t arrival, uint64_t paid, void *cookie)
{
	if (l->nwait == l->wait_cap) {
		l->wait_cap = l->wait_cap ? 2 * l->wait_cap : 8;
		l->wait = xrealloc(l->wait, l->wait_cap * sizeof(*l->wait));
	}
	if (!l->nwait)
		l->local_run = 0;
	l->wait[l->nwait++] = (struct waiting){
		.cookie = cookie, .arrival = arrival, .paid = paid, .core = core, .op = (uint8_t)op,
	};
}

bool coh_request(struct coh_model *m, unsigned core, uintptr_t addr, enum coh_op op,
		 uint64_t arrival_ps, uint64_t travel_paid_ps, void *cookie, struct coh_result *r)
{
	struct line *l = line_get(m, addr);

	if (admit_now(m, l, core, op, arrival_ps)) {
		admit(m, l, core, op, arrival_ps, travel_paid_ps, arrival_ps, false, r);
		return true;
	}
	defer(m, l, core, op, arrival_ps, travel_paid_ps, cookie);
	memset(r, 0, sizeof(*r));
	return false;
}

/*
 * Is the oldest waiting request due at `now`?  When the line has gone idle,
 * or the holder's socket has had its bound.  The waiting requests sit at
 * the home, in the order they came: they are served in that order, whatever
 * socket holds the line by then.
 */
static bool waiter_due(struct coh_model *m, const struct line *l, uint64_t now)
{
	if (l->busy_until <= now)
		return true;
	if (!bound_reached(m, l))
		return false;
	m->c.bound_grants++;
	return true;
}

void *coh_admit_next(struct coh_model *m, uintptr_t addr, uint64_t now_ps, struct coh_result *r)
{
	struct line *l = line_lookup(m, addr);
	struct waiting w;

	if (!l || !l->nwait || !waiter_due(m, l, now_ps))
		return NULL;
	w = l->wait[0];
	l->nwait--;
	memmove(&l->wait[0], &l->wait[1], l->nwait * sizeof(*l->wait));
	m->c.deferred++;
	m->c.deferred_ps += now_ps - w.arrival;
	admit(m, l, w.core, (enum coh_op)w.op, w.arrival, w.paid, now_ps, true, r);
	return w.cookie;
}

unsigned coh_waiting(const struct coh_model *m, uintptr_t addr)
{
	const struct line *l = line_lookup(m, addr);

	return l ? l->nwait : 0;
}

/* ---------------------------------------------------------------- inspection */

void coh_force_state(struct coh_model *m, uintptr_t addr, enum topo_state st,
		     const unsigned *cores, unsigned ncores)
{
	struct line *l = line_get(m, addr);

	line_invalidate_all(m, l);
	l->holder = NO_SOCKET;
	if (ncores == 0 || st == TOPO_I)
		return;
	l->holder = (uint16_t)socket_of(m, cores[0]);
	switch (st) {
	case TOPO_M:
	case TOPO_E:
		l->state = st == TOPO_M ? L_M : L_E;
		l->owner = (int32_t)cores[0];
		break;
	case TOPO_S:
		l->state = L_S;
		for (unsigned i = 0; i < ncores; i++)
			sharer_add(m, l, cores[i]);
		break;
	default:
		break;
	}
}

void coh_line_view(const struct coh_model *m, uintptr_t addr, struct coh_line_view *v)
{
	const struct line *l = line_lookup(m, addr);
	static const char letters[] = { 'I', 'S', 'E', 'M' };

	memset(v, 0, sizeof(*v));
	v->owner = -1;
	v->forwarder = -1;
	v->holder = -1;
	v->state = TOPO_I;
	v->letter = 'I';
	if (!l) {
		const struct range *r = range_of_line(m, addr & ~(uintptr_t)(COH_LINE_SIZE - 1));
		v->home = r ? r->node % m->t->nsockets : 0;
		v->tag = r ? r->tag : COH_TAG_OTHER;
		return;
	}
	v->state = seen_state(l);
	v->letter = letters[l->state];
	v->home = l->home;
	v->tag = (enum coh_tag)l->tag;
	v->busy_until_ps = l->busy_until;
	v->holder = l->holder == NO_SOCKET ? -1 : (int)l->holder;
	v->nwaiting = l->nwait;
	v->local_run = l->local_run;
	if (l->state == L_M || l->state == L_E) {
		v->owner = l->owner;
		v->nsharers = 1;
		v->sharer[l->owner] = true;
		return;
	}
	if (l->state != L_S)
		return;
	v->nsharers = l->nsharers;
	for (unsigned c = 0; c < m->t->ncores; c++)
		v->sharer[c] = sharer_has(m, l, c);
	if (l->owner >= 0) {
		v->forwarder = l->owner;
		v->letter = m->t->protocol == PROTO_MOESI ? 'O' : 'F';
	}
}

void **coh_line_user(struct coh_model *m, uintptr_t addr)
{
	return &line_get(m, addr)->user;
}

const struct coh_counters *coh_counters(const struct coh_model *m)
{
	return &m->c;
}

void coh_reset_counters(struct coh_model *m)
{
	uint64_t *msgs = m->c.link_msgs, *bytes = m->c.link_bytes;

	memset(&m->c, 0, sizeof(m->c));
	memset(msgs, 0, m->t->nlinks * sizeof(uint64_t));
	memset(bytes, 0, m->t->nlinks * sizeof(uint64_t));
	m->c.link_msgs = msgs;
	m->c.link_bytes = bytes;
}
