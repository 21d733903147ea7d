/*
 * sim/coherence.h - the memory system of the simulated machine: a directory
 * over 64-byte lines, socket links with bandwidth and occupancy, and the
 * counters that explain a result.  Pure C: no SimGrid, no actors, no clock of
 * its own.  The caller (sim/memops.c) says who accesses what at which
 * simulated time; the model answers when the access completes, and advances
 * the line's state (coh_protocol.c draws the states).
 *
 * A hit costs the hit latency; it neither travels nor queues.  A miss first
 * travels to the point where requests to its line are serialized
 * (coh_request_travel_ps): nowhere (travel 0) when the line is held in the
 * requester's socket (a load: some valid copy there; a store or RMW: every
 * valid copy there), whose cache answers or queues it; otherwise to the
 * line's home, the one-way route latency away.  "Held" is judged on the
 * directory entry as it stands, with the requests accepted before.
 *
 * The caller lets the travel pass and presents the request
 * (coh_access_arrived): it starts at max(arrival, line busy-until) and
 * completes after the table latency less the travel paid (at least 1 ps),
 * plus any wait for busy socket links; busy-until becomes its completion.
 * The state advances on arrival, so a line's requests are served in arrival
 * order, each costed against the state its predecessor left, and an idle
 * machine costs exactly the table.  Near requesters overtake far ones: after
 * a release the line tends to stay in the releaser's socket.
 *
 * Arbitration (the topology's `arbitration`, coh_request): under `fifo`
 * every request is admitted on arrival; under `socket-first` the socket
 * that holds a line serves its own cores first, and a request from
 * elsewhere that finds the line busy waits (coh_arbitration.c).
 *
 * Home agents and probes (the topology's `home.occupancy` and `directory`,
 * coh_home.c): a miss that goes through its line's home queues on arrival
 * at the home node's agent, which serves the requests for all the lines
 * homed there one at a time, and starts no earlier than that agent has
 * served it; a home without a full directory probes every socket, and the
 * miss waits for the probes' links and agents.  Only waits are added: an
 * idle machine costs the table.
 */
#ifndef SIM_COHERENCE_H
#define SIM_COHERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topology.h"

/* 64-byte lines: every x86 since the Pentium 4 (Intel 64 and IA-32
 * Architectures Optimization Reference Manual, "cache line size"). */
#define COH_LINE_SHIFT 6
#define COH_LINE_SIZE (1u << COH_LINE_SHIFT)

enum coh_op { COH_LOAD = 0, COH_STORE = 1, COH_RMW = 2 };

/* Tags, as <locklab/mem.h> LL_TAG_*: what a line holds. */
enum coh_tag { COH_TAG_OTHER = 0, COH_TAG_LOCK = 1, COH_TAG_DATA = 2, COH_TAG_CTX = 3, COH_NTAGS = 4 };

struct coh_result {
	uint64_t start_ps;  /* the request got the line (after queueing) */
	uint64_t done_ps;   /* the access completes: value read/written then */
	uint64_t queue_ps;  /* time behind earlier requests for the line */
	uint64_t link_wait_ps; /* extra time waiting for busy socket links */
	uint64_t home_wait_ps;  /* start - arrival - queue_ps: the home agent's queue
				   past the line's (0 with home agents off) */
	uint64_t probe_wait_ps; /* extra time waiting for broadcast probes' links, agents */
	bool hit;
	unsigned dist_class;    /* distance class of the transfer (0 on a hit) */
	enum topo_state state;  /* state the line was in, as seen by the request */
	unsigned invalidations; /* invalidation messages this request sent */
	bool remote;            /* data or ownership crossed a socket link */
	bool value_settled;     /* a miss: no write of the line was in flight when it
				   was admitted, so memory holds the value it reads */
};

struct coh_counters {
	uint64_t accesses, hits, misses;
	uint64_t invalidations[COH_NTAGS];  /* messages, by tag of the line */
	uint64_t misses_by_tag[COH_NTAGS];
	uint64_t transfers_by_class[TOPO_MAX_CLASSES]; /* misses by distance class */
	uint64_t remote_transfers;          /* misses whose transfer crossed a link */
	uint64_t queue_ps;                  /* sum of queue_ps */
	uint64_t queue_ps_by_tag[COH_NTAGS];
	uint64_t link_wait_ps;
	uint64_t deferred;                  /* requests that waited for admission */
	uint64_t deferred_ps;               /* their time from arrival to admission */
	uint64_t bound_grants;              /* of those, admitted by max_local_run */
	uint64_t home_requests;             /* misses served by a home agent */
	uint64_t home_wait_ps;              /* sum of home_wait_ps */
	uint64_t home_wait_ps_by_tag[COH_NTAGS];
	uint64_t probes;                    /* broadcast probes sent */
	uint64_t probe_wait_ps;             /* sum of probe_wait_ps */
	uint64_t *link_msgs;                /* [topo->nlinks], both directions */
	uint64_t *link_bytes;
};

struct coh_model;

struct coh_model *coh_create(const struct topo *t);
void coh_destroy(struct coh_model *m);

/* Switch home-agent occupancy, or broadcast probes, on (as the topology
 * says) or off (no home agent takes time; no probes: as a full
 * directory).  Both are on after coh_create; call before any access. */
void coh_set_home_agents(struct coh_model *m, bool on);
void coh_set_probes(struct coh_model *m, bool on);
/* A line taken by a miss stays with its M or E owner for pct% of the
 * miss's latency, while the snoop travels (coh_protocol.c); 0 moves it at
 * the miss's start.  After coh_create it is the topology's snoop_pct.
 * Call before any access. */
void coh_set_snoop_travel(struct coh_model *m, unsigned pct);
/* Each miss costs its table latency times a draw from [1 - pct%, 1 + pct%]
 * (pct at most SIM_SPREAD_MAX), the draws a function of seed and the
 * number of misses before it (coh_protocol.c); 0 draws none.  After
 * coh_create it is the topology's spread_pct with seed 0.  Call before any
 * access. */
void coh_set_lat_spread(struct coh_model *m, unsigned pct, uint64_t seed);

/* Memory [addr, addr+size) has its home at node (socket) and holds tag.
 * Lines never registered have home 0 and tag OTHER. */
void coh_set_home(struct coh_model *m, uintptr_t addr, size_t size, unsigned node, enum coh_tag tag);
/* Set the tag of [addr, addr+size) and keep each part's home (parts never
 * registered get home 0). */
void coh_set_tag(struct coh_model *m, uintptr_t addr, size_t size, enum coh_tag tag);
/* Forget lines of a freed range (they return to I, home 0). */
void coh_forget(struct coh_model *m, uintptr_t addr, size_t size);

/* How long a request by core must travel before it reaches the point where
 * it is served (see above): 0 for a hit or a line held in core's socket,
 * else the one-way route latency from core's socket to the line's home.
 * No side effects. */
uint64_t coh_request_travel_ps(const struct coh_model *m, unsigned core, uintptr_t addr,
			       enum coh_op op);

/* A request by core that arrives at arrival_ps after travelling
 * travel_paid_ps: costed against the state at arrival; start = max(arrival,
 * busy-until, home agent done), done = start + (latency - travel_paid) +
 * link and probe waits, where the difference is at least 1 ps when
 * anything was paid (a hit: arrival + hit latency); queue_ps + home_wait_ps
 * = start - arrival.  Fills r; advances the state. */
void coh_access_arrived(struct coh_model *m, unsigned core, uintptr_t addr, enum coh_op op,
			uint64_t arrival_ps, uint64_t travel_paid_ps, struct coh_result *r);

/* A request presented on arrival under the machine's arbitration
 * (coh_arbitration.c).  Admitted now: returns true and fills r as
 * coh_access_arrived does.  Not yet: returns false (r zeroed); the model
 * keeps the request with cookie on the line's waiting list, and a later
 * coh_admit_next() admits it.  Under fifo every request is admitted. */
bool coh_request(struct coh_model *m, unsigned core, uintptr_t addr, enum coh_op op,
		 uint64_t arrival_ps, uint64_t travel_paid_ps, void *cookie, struct coh_result *r);

/* Would coh_request admit that request now?  No side effects. */
bool coh_would_admit(const struct coh_model *m, unsigned core, uintptr_t addr, enum coh_op op,
		     uint64_t arrival_ps);

/* Admit the line's waiting request that is due at now_ps, if any: returns
 * its cookie and fills r (start >= now_ps; queue_ps from its arrival);
 * NULL when none is due.  Call it until it returns NULL after every
 * admission on the line (the bound) and every completion of a request on
 * it (the line going idle). */
void *coh_admit_next(struct coh_model *m, uintptr_t addr, uint64_t now_ps, struct coh_result *r);
/* The thread of a write miss that coh_request or coh_admit_next admitted has
 * performed it on memory: a load's value_settled counts the others. */
void coh_write_performed(struct coh_model *m, uintptr_t addr);

/* How many requests wait for admission on the line. */
unsigned coh_waiting(const struct coh_model *m, uintptr_t addr);

/* A request no actor waits for (a store buffer's fetch ahead, sim/storebuf.c)
 * ends at done_ps: nobody completes it, so nobody admits the line's waiting
 * misses then.  coh_unattended_end() tells a miss that waits for admission
 * when to look again itself: the latest such end on the line (0: none). */
void coh_note_unattended(struct coh_model *m, uintptr_t addr, uint64_t done_ps);
uint64_t coh_unattended_end(const struct coh_model *m, uintptr_t addr);

/* One access that needs no travel (or whose travel the caller ignores), at
 * simulated time now_ps: coh_access_arrived(..., now_ps, 0, r). */
void coh_access(struct coh_model *m, unsigned core, uintptr_t addr, enum coh_op op,
		uint64_t now_ps, struct coh_result *r);

/* Would this access hit?  (No side effects; the glue uses it to keep hits
 * as local time.) */
bool coh_would_hit(const struct coh_model *m, unsigned core, uintptr_t addr, enum coh_op op,
		   uint64_t now_ps);

/* A hit, served at now_ps as coh_access() serves it, with one line lookup:
 * returns true and fills r.  Not a hit: returns false and changes nothing
 * (r untouched). */
bool coh_access_if_hit(struct coh_model *m, unsigned core, uintptr_t addr, enum coh_op op,
		       uint64_t now_ps, struct coh_result *r);

/* Put a line in a state directly (ccbench and tests): TOPO_M/E with owner
 * core, TOPO_S with the given sharers (owner ignored), TOPO_I uncached. */
void coh_force_state(struct coh_model *m, uintptr_t addr, enum topo_state st,
		     const unsigned *cores, unsigned ncores);

/* The directory entry of a line, for tests and the explain/graph tools. */
struct coh_line_view {
	enum topo_state state; /* M, E, S or I (O/F are reported as S) */
	int owner;             /* -1 when none */
	unsigned nsharers;     /* valid copies (M/E: 1, the owner's) */
	unsigned home;
	enum coh_tag tag;
	uint64_t busy_until_ps;
	char letter;           /* 'M', 'E', 'S', 'I', or 'O' / 'F' (the S line's
				  owner under MOESI / forwarder under MESIF) */
	int forwarder;         /* that O or F core, -1 when none */
	int holder;            /* socket of the latest admitted miss, -1: none */
	unsigned nwaiting;     /* requests waiting for admission */
	unsigned local_run;    /* grants made ahead of the waiting requests */
	bool sharer[TOPO_MAX_CORES]; /* valid copies (S, O, F; M/E: the owner) */
};
void coh_line_view(const struct coh_model *m, uintptr_t addr, struct coh_line_view *v);
/* Has the line requests waiting for admission, or a transfer busy past t? */
bool coh_line_busy_after(const struct coh_model *m, uintptr_t addr, uint64_t t);

/* A slot per line the glue may use (parked waiters); NULL-initialised. */
void **coh_line_user(struct coh_model *m, uintptr_t addr);

const struct coh_counters *coh_counters(const struct coh_model *m);
void coh_reset_counters(struct coh_model *m);

#endif
