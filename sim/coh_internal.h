/*
 * sim/coh_internal.h - what the parts of the coherence model share: the
 * directory entry of a line, the model, and the calls between the line
 * table (coh_lines.c), the address ranges (coh_ranges.c), the socket links
 * (coh_links.c), the protocol (coh_protocol.c), arbitration
 * (coh_arbitration.c) and the home agents and probes (coh_home.c).  Not
 * for the rest of the simulator: it uses coherence.h.
 *
 * The directory entry of a line:
 *
 *   +------+-------+-------------------+------+-----+------------+------+
 *   | state| owner | sharers (bitset)  | home | tag | busy-until | user |
 *   +------+-------+-------------------+------+-----+------------+------+
 *   | holder socket, grants in a row | requests waiting for admission  |
 *   +--------------------------------+---------------------------------+
 *
 * state, owner and sharers belong to the protocol (coh_protocol.c draws
 * them); holder, the grants in a row and the waiting requests to
 * arbitration; home and tag to the line table, which stamps them from its
 * address ranges.
 */
#ifndef SIM_COH_INTERNAL_H
#define SIM_COH_INTERNAL_H

#include "coherence.h"

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
	uint64_t unattended_until; /* ps: the latest end of an unattended request */
	void *user;
	struct waiting *wait; /* requests waiting for admission: a ring, oldest at wait_head */
	uint32_t nwait, wait_cap, wait_head; /* wait_cap: 0 or a power of two */
	uint32_t local_run;  /* grants made ahead of the waiting requests */
	int32_t owner;       /* M/E: the holder; S: the O/F core or -1 */
	int32_t prev_owner;  /* the M or E owner a miss took the line from, or -1 */
	uint64_t prev_until; /* ps: until then its snoop is on the way to prev_owner */
	uint32_t nsharers;
	uint16_t home;
	uint16_t holder;     /* socket of the latest admitted miss, or NO_SOCKET */
	uint8_t state, tag;
	uint8_t prev_state;  /* prev_owner's copy: L_M or L_E */
	uint16_t writes_in_flight; /* admitted write misses not yet performed by their
				      threads (coh_write_performed); one a thread at most */
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

struct coh_model {
	const struct topo *t;
	unsigned words;    /* 64-bit words in a sharer set */
	size_t line_bytes; /* one pool record */

	/* line table (coh_lines.c) */
	char **chunks;
	unsigned nchunks;
	uint32_t nalloc; /* records handed out from the chunks so far */
	uint32_t *free_idx;
	uint32_t nfree, free_cap;

	struct slot *slots;
	uint64_t mask;
	unsigned bits;
	uint32_t nlive;

	struct rnode *ranges; /* homes and tags (coh_ranges.c) */
	uint64_t range_seq;

	/* sockets and links (coh_links.c) */
	struct hop *hops;         /* parallel to t->route_links */
	uint64_t *route_lat;      /* [a * nsockets + b]: one way, a to b; 0 when a == b */
	uint64_t *sock_mask;      /* [s * words]: the cores of socket s, as a sharer set */
	uint32_t *sock_words;     /* [2 * s]: the words [lo, hi) where sock_mask[s] has bits */
	uint32_t *sock_first;     /* [s]: the lowest core of socket s */
	uint32_t *by_class;       /* [sc * nsockets]: sockets by class from sc, then first core */
	struct link_dir *ldir;    /* [nlinks * 2] */
	uint64_t *occ_ctrl, *occ_data; /* ps a message occupies each link */

	/* home agents and probes (coh_home.c) */
	uint64_t *agent_free;     /* [nsockets]: when each node's home agent is free */
	uint64_t home_occ;        /* ps a request occupies an agent; 0: off */
	enum topo_directory directory; /* DIR_FULL: probes off */
	unsigned snoop_pct;        /* --snoop-travel (coh_protocol.c); 0: off */
	unsigned spread_pct;       /* --lat-spread (coh_protocol.c); 0: off */
	uint64_t spread_seed;      /* the run's: a miss's draw is mix64 of it and req */

	uint64_t req; /* misses so far: names a miss's reservations */
	struct coh_counters c;
};

void *coh_xcalloc(size_t n, size_t size);
void *coh_xrealloc(void *p, size_t size);

static inline unsigned socket_of(const struct coh_model *m, unsigned core)
{
	return m->t->core_socket[core];
}

/* The physical core of hardware thread `core` (its first thread): caches
 * are per core, so siblings share the line's copy (sim/topology.h, SMT). */
static inline unsigned phys_core(const struct coh_model *m, unsigned core)
{
	return topo_phys(m->t, core);
}

static inline unsigned class_between(const struct coh_model *m, unsigned sa, unsigned sb)
{
	return m->t->socket_class[sa * m->t->nsockets + sb];
}

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

/* (any) -> (I, -, {}): nobody holds the line. */
static inline void line_invalidate_all(struct coh_model *m, struct line *l)
{
	l->state = L_I;
	l->owner = -1;
	l->prev_owner = -1; /* no copy survives: nor one a snoop is on its way to */
	sharers_clear(m, l);
}

/* coh_lines.c */
/* The ranges giving memory its home and tag (coh_ranges.c). */
const struct range *coh_range_of_line(const struct coh_model *m, uintptr_t base);
struct range *coh_ranges_carve(struct coh_model *m, uintptr_t lo, uintptr_t hi, size_t *ncut);
void coh_ranges_insert(struct coh_model *m, const struct range *r, size_t n);
void coh_ranges_free(struct coh_model *m);

void coh_lines_init(struct coh_model *m);
void coh_lines_free(struct coh_model *m);
struct line *coh_line_lookup(const struct coh_model *m, uintptr_t addr);
struct line *coh_line_get(struct coh_model *m, uintptr_t addr);
void coh_addr_home_tag(const struct coh_model *m, uintptr_t addr, unsigned *home,
		       enum coh_tag *tag);

/* coh_links.c */
void coh_links_init(struct coh_model *m);
void coh_links_free(struct coh_model *m);
uint64_t coh_msg_send(struct coh_model *m, unsigned a, unsigned b, bool data,
		      uint64_t t0, uint64_t *arrive);

static inline uint64_t route_latency(const struct coh_model *m, unsigned a, unsigned b)
{
	return m->route_lat[a * m->t->nsockets + b];
}

/* coh_protocol.c */
enum topo_state coh_seen_state(const struct line *l);
bool coh_holds(const struct coh_model *m, const struct line *l, unsigned core, enum coh_op op);
bool coh_holds_still(const struct line *l, unsigned core, uint64_t now);
bool coh_held_in_socket(const struct coh_model *m, const struct line *l, unsigned s,
			enum coh_op op);
void coh_serve(struct coh_model *m, struct line *l, unsigned core, enum coh_op op,
	       uint64_t arrival, uint64_t paid, uint64_t admitted, struct coh_result *r);

/* coh_home.c */
void coh_home_init(struct coh_model *m);
void coh_home_free(struct coh_model *m);
uint64_t coh_home_queue(struct coh_model *m, const struct line *l, unsigned sc,
			enum coh_op op, uint64_t t);
bool coh_probes_broadcast(const struct coh_model *m, const struct line *l, unsigned sc,
			  enum coh_op op, unsigned ninval);
uint64_t coh_probe_all(struct coh_model *m, unsigned home, unsigned sc, unsigned skip,
		       uint64_t t0);

#endif
