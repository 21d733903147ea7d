/*
 * tests/sim_coherence.c - the coherence model (sim/coherence.h) against
 * hand-computed latencies, on a machine built here by hand (no XML).
 *
 * The machine: 4 sockets in a ring 0-1-2-3-0, 2 cores each (core c sits on
 * socket c / 2), so sockets 0 and 2 (and 1 and 3) are two hops apart.
 * Classes: 0 same socket, 1 one hop, 2 two hops.  Every link: 40 ns one
 * way, 8 GB/s per direction, so a control message (8 bytes) occupies a link
 * for 8 / 8e9 s = 1000 ps and a data message (72 bytes) for 9000 ps.
 *
 * Costs (ns), one per class:
 *   load   M 100 200 300   E  90 190 290   S  50 150 250   I 400 500 600
 *   store  M 110 210 310   E 105 205 305   S 120 220 320   I 410 510 610
 *   atomic M 130 230 330   E 125 225 325   S 140 240 340   I 430 530 630
 *   hits: load 1, store 2, atomic 10; 7 ns per invalidated sharer beyond
 *   the first.
 *
 * A request that must leave its socket travels 40 ns per hop to the line's
 * home before it is served (coh_request_travel_ps, coh_access_arrived).
 * The machine arbitrates in arrival order (fifo) unless a test sets
 * socket-first (coh_request, coh_admit_next).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../sim/coherence.h"

#define NS 1000ull /* ps */
#define CTRL_OCC 1000ull
#define DATA_OCC 9000ull
#define LINK_LAT (40 * NS)

enum { L01, L12, L23, L30, NLINKS };

static struct topo T;
static struct topo_link links[NLINKS];
static unsigned char classes[16];
static unsigned route_off[16], route_len[16], route_links[32];

static const uint64_t table[TOPO_NOPS][TOPO_NSTATES][3] = {
	{ { 100, 200, 300 }, { 90, 190, 290 }, { 50, 150, 250 }, { 400, 500, 600 } },
	{ { 110, 210, 310 }, { 105, 205, 305 }, { 120, 220, 320 }, { 410, 510, 610 } },
	{ { 130, 230, 330 }, { 125, 225, 325 }, { 140, 240, 340 }, { 430, 530, 630 } },
};

static void add_link(unsigned i, const char *name, unsigned a, unsigned b)
{
	strcpy(links[i].name, name);
	links[i].a = a;
	links[i].b = b;
	links[i].lat_ps = LINK_LAT;
	links[i].bw_bytes_per_s = 8e9;
}

static void add_route(unsigned *used, unsigned a, unsigned b, const unsigned *hops, unsigned n)
{
	route_off[a * 4 + b] = *used;
	route_len[a * 4 + b] = n;
	memcpy(&route_links[*used], hops, n * sizeof(unsigned));
	*used += n;
}

static void build_ring(enum topo_protocol proto)
{
	static const unsigned r01[] = { L01 }, r12[] = { L12 }, r23[] = { L23 }, r30[] = { L30 };
	static const unsigned r02[] = { L01, L12 }, r20[] = { L12, L01 };
	static const unsigned r13[] = { L12, L23 }, r31[] = { L23, L12 };
	unsigned used = 0;

	memset(&T, 0, sizeof(T));
	strcpy(T.name, "hand-ring");
	T.protocol = proto;
	T.ncores = 8;
	T.nsockets = 4;
	for (unsigned c = 0; c < 8; c++)
		T.core_socket[c] = c / 2;
	T.nclasses = 3;
	for (unsigned a = 0; a < 4; a++)
		for (unsigned b = 0; b < 4; b++)
			classes[a * 4 + b] = (unsigned char)(a == b ? 0 : (a + b) % 2 == 0 ? 2 : 1);
	T.socket_class = classes;
	for (int op = 0; op < TOPO_NOPS; op++)
		for (int st = 0; st < TOPO_NSTATES; st++)
			for (int k = 0; k < 3; k++)
				T.lat_ps[op][st][k] = table[op][st][k] * NS;
	T.hit_ps[TOPO_LOAD] = 1 * NS;
	T.hit_ps[TOPO_STORE] = 2 * NS;
	T.hit_ps[TOPO_ATOMIC] = 10 * NS;
	T.inval_ps_per_sharer = 7 * NS;
	T.data_msg_bytes = 72;
	T.ctrl_msg_bytes = 8;
	add_link(L01, "l01", 0, 1);
	add_link(L12, "l12", 1, 2);
	add_link(L23, "l23", 2, 3);
	add_link(L30, "l30", 3, 0);
	T.nlinks = NLINKS;
	T.links = links;
	memset(route_len, 0, sizeof(route_len));
	memset(route_off, 0, sizeof(route_off));
	add_route(&used, 0, 1, r01, 1);
	add_route(&used, 1, 0, r01, 1);
	add_route(&used, 1, 2, r12, 1);
	add_route(&used, 2, 1, r12, 1);
	add_route(&used, 2, 3, r23, 1);
	add_route(&used, 3, 2, r23, 1);
	add_route(&used, 3, 0, r30, 1);
	add_route(&used, 0, 3, r30, 1);
	add_route(&used, 0, 2, r02, 2);
	add_route(&used, 2, 0, r20, 2);
	add_route(&used, 1, 3, r13, 2);
	add_route(&used, 3, 1, r31, 2);
	T.route_off = route_off;
	T.route_len = route_len;
	T.route_links = route_links;
}

/* Line-aligned addresses that never get dereferenced. */
static uintptr_t line(unsigned i)
{
	return (uintptr_t)0x100000 + (uintptr_t)i * COH_LINE_SIZE;
}

/* line(0) homed on socket 0, modified at core. */
static void home0_modified_at(struct coh_model *m, unsigned core)
{
	coh_set_home(m, line(0), COH_LINE_SIZE, 0, COH_TAG_LOCK);
	coh_force_state(m, line(0), TOPO_M, &core, 1);
}

static struct coh_model *model(enum topo_protocol proto)
{
	build_ring(proto);
	return coh_create(&T);
}

static struct coh_result access_at(struct coh_model *m, unsigned core, uintptr_t a,
				   enum coh_op op, uint64_t now)
{
	struct coh_result r;

	coh_access(m, core, a, op, now, &r);
	return r;
}

static void test_load_from_memory(void **state)
{
	struct coh_model *m = model(PROTO_MESI);
	struct coh_line_view v;
	struct coh_result r;
	(void)state;

	coh_set_home(m, line(0), COH_LINE_SIZE, 2, COH_TAG_DATA);
	/* core 0 (socket 0) loads a line homed on socket 2: two hops, from memory */
	r = access_at(m, 0, line(0) + 8, COH_LOAD, 1000);
	assert_false(r.hit);
	assert_int_equal(r.state, TOPO_I);
	assert_int_equal(r.dist_class, 2);
	assert_true(r.remote);
	assert_int_equal(r.start_ps, 1000);
	assert_int_equal(r.done_ps, 1000 + 600 * NS); /* lat.load.I[2] */
	assert_int_equal(r.link_wait_ps, 0);
	coh_line_view(m, line(0), &v);
	assert_int_equal(v.letter, 'E');
	assert_int_equal(v.owner, 0);
	assert_int_equal(v.home, 2);
	assert_int_equal(v.tag, COH_TAG_DATA);
	assert_int_equal(v.busy_until_ps, 1000 + 600 * NS);

	/* the second load is a hit: the hit latency, no queueing behind busy-until */
	r = access_at(m, 0, line(0), COH_LOAD, 2000);
	assert_true(r.hit);
	assert_int_equal(r.done_ps, 2000 + 1 * NS);

	/* a line homed on the requester's socket: class 0 */
	coh_set_home(m, line(1), COH_LINE_SIZE, 0, COH_TAG_OTHER);
	r = access_at(m, 1, line(1), COH_LOAD, 0);
	assert_int_equal(r.dist_class, 0);
	assert_false(r.remote);
	assert_int_equal(r.done_ps, 400 * NS); /* lat.load.I[0] */

	const struct coh_counters *c = coh_counters(m);
	assert_int_equal(c->accesses, 3);
	assert_int_equal(c->hits, 1);
	assert_int_equal(c->misses, 2);
	assert_int_equal(c->misses_by_tag[COH_TAG_DATA], 1);
	assert_int_equal(c->transfers_by_class[2], 1);
	assert_int_equal(c->transfers_by_class[0], 1);
	assert_int_equal(c->remote_transfers, 1);
	/* request 0->2 over l01, l12 (control) and the data back over l12, l01 */
	assert_int_equal(c->link_msgs[L01], 2);
	assert_int_equal(c->link_msgs[L12], 2);
	assert_int_equal(c->link_bytes[L01], 8 + 72);
	assert_int_equal(c->link_msgs[L23], 0);
	coh_destroy(m);
}

static void test_modified_to_shared(void **state)
{
	struct coh_model *m = model(PROTO_MESI);
	struct coh_line_view v;
	struct coh_result r;
	uint64_t t;
	(void)state;

	/* core 0 writes a line homed on its socket: I -> M, lat.store.I[0] */
	r = access_at(m, 0, line(0), COH_STORE, 0);
	assert_int_equal(r.done_ps, 410 * NS);
	coh_line_view(m, line(0), &v);
	assert_int_equal(v.letter, 'M');

	/* core 2 (socket 1) reads it: M at one hop -> S {0, 2} */
	t = 1000 * NS;
	r = access_at(m, 2, line(0), COH_LOAD, t);
	assert_int_equal(r.state, TOPO_M);
	assert_int_equal(r.dist_class, 1);
	assert_int_equal(r.done_ps, t + 200 * NS); /* lat.load.M[1] */
	coh_line_view(m, line(0), &v);
	assert_int_equal(v.letter, 'S');
	assert_int_equal(v.nsharers, 2);
	assert_true(v.sharer[0] && v.sharer[2]);
	assert_int_equal(v.owner, -1);

	/* both now hit on loads; core 0 no longer on stores */
	assert_true(coh_would_hit(m, 0, line(0), COH_LOAD));
	assert_true(coh_would_hit(m, 2, line(0), COH_LOAD));
	assert_false(coh_would_hit(m, 0, line(0), COH_STORE));

	/* core 4 (socket 2) reads: the nearest sharer is core 2 (one hop), not core 0 (two) */
	t = 2000 * NS;
	r = access_at(m, 4, line(0), COH_LOAD, t);
	assert_int_equal(r.state, TOPO_S);
	assert_int_equal(r.dist_class, 1);
	assert_int_equal(r.done_ps, t + 150 * NS); /* lat.load.S[1] */
	coh_line_view(m, line(0), &v);
	assert_int_equal(v.nsharers, 3);
	coh_destroy(m);
}

static void test_rmw_fan_out(void **state)
{
	static const unsigned sharers[] = { 0, 2, 4 };
	struct coh_model *m = model(PROTO_MESI);
	struct coh_line_view v;
	struct coh_result r;
	(void)state;

	coh_set_home(m, line(0), COH_LINE_SIZE, 0, COH_TAG_LOCK);
	coh_force_state(m, line(0), TOPO_S, sharers, 3);
	/*
	 * Core 6 (socket 3) does an RMW: it invalidates sockets 0 (1 hop), 1 (2
	 * hops) and 2 (1 hop); the farthest sharer, core 2, sets the class.
	 * 340 ns (lat.atomic.S[2]) + 2 sharers beyond the first x 7 ns.
	 */
	r = access_at(m, 6, line(0), COH_RMW, 0);
	assert_int_equal(r.state, TOPO_S);
	assert_int_equal(r.dist_class, 2);
	assert_int_equal(r.invalidations, 3);
	assert_int_equal(r.link_wait_ps, 0); /* its own messages do not queue behind each other */
	assert_int_equal(r.done_ps, 340 * NS + 2 * 7 * NS);
	coh_line_view(m, line(0), &v);
	assert_int_equal(v.letter, 'M');
	assert_int_equal(v.owner, 6);
	assert_int_equal(v.nsharers, 1);

	const struct coh_counters *c = coh_counters(m);
	assert_int_equal(c->invalidations[COH_TAG_LOCK], 3);
	/*
	 * Messages: request 3->1 over l23, l12 and the data back (l12, l23);
	 * invalidations to socket 0 (l30) and socket 2 (l23).
	 */
	assert_int_equal(c->link_msgs[L23], 3);
	assert_int_equal(c->link_msgs[L12], 2);
	assert_int_equal(c->link_msgs[L30], 1);
	assert_int_equal(c->link_msgs[L01], 0);
	assert_int_equal(c->link_bytes[L23], 8 + 72 + 8);

	/* an upgrade: the only sharer writes; class 0, nothing to invalidate */
	static const unsigned alone[] = { 3 };
	coh_force_state(m, line(1), TOPO_S, alone, 1);
	r = access_at(m, 3, line(1), COH_STORE, 0);
	assert_int_equal(r.dist_class, 0);
	assert_int_equal(r.invalidations, 0);
	assert_int_equal(r.done_ps, 120 * NS); /* lat.store.S[0] */
	coh_destroy(m);
}

static void test_serialization(void **state)
{
	struct coh_model *m = model(PROTO_MESI);
	struct coh_result r;
	uint64_t cost1, cost2, cost3, cost4;
	(void)state;

	home0_modified_at(m, 0);
	/* cores 2, 3 (socket 1) and 1 (socket 0) all RMW the line at time 0 */
	r = access_at(m, 2, line(0), COH_RMW, 0);
	cost1 = 230 * NS; /* M, owner core 0 one hop away: lat.atomic.M[1] */
	assert_int_equal(r.start_ps, 0);
	assert_int_equal(r.done_ps, cost1);

	r = access_at(m, 3, line(0), COH_RMW, 0);
	cost2 = 130 * NS; /* M, owner core 2 on the same socket: lat.atomic.M[0] */
	assert_int_equal(r.queue_ps, cost1);
	assert_int_equal(r.start_ps, cost1);
	assert_int_equal(r.done_ps, cost1 + cost2);

	r = access_at(m, 1, line(0), COH_RMW, 0);
	cost3 = 230 * NS; /* owner core 3, one hop */
	assert_int_equal(r.queue_ps, cost1 + cost2);
	assert_int_equal(r.done_ps, cost1 + cost2 + cost3);

	/* core 4 (socket 2) comes later, at 100 ns, still behind all three */
	r = access_at(m, 4, line(0), COH_RMW, 100 * NS);
	cost4 = 330 * NS; /* owner core 1 (socket 0), two hops */
	assert_int_equal(r.start_ps, cost1 + cost2 + cost3);
	assert_int_equal(r.queue_ps, cost1 + cost2 + cost3 - 100 * NS);
	assert_int_equal(r.done_ps, cost1 + cost2 + cost3 + cost4);

	const struct coh_counters *c = coh_counters(m);
	assert_int_equal(c->queue_ps, cost1 + (cost1 + cost2) + (cost1 + cost2 + cost3 - 100 * NS));
	assert_int_equal(c->queue_ps_by_tag[COH_TAG_LOCK], c->queue_ps);
	assert_int_equal(c->link_wait_ps, 0);
	assert_int_equal(c->misses, 4);
	assert_int_equal(c->invalidations[COH_TAG_LOCK], 4);
	assert_int_equal(c->remote_transfers, 3);
	coh_destroy(m);
}

static void test_link_wait(void **state)
{
	struct coh_model *m = model(PROTO_MESI);
	static const unsigned o2[] = { 2 }, o3[] = { 3 };
	struct coh_result r;
	(void)state;

	coh_force_state(m, line(0), TOPO_M, o2, 1);
	coh_force_state(m, line(1), TOPO_M, o3, 1);
	/*
	 * Cores 0 and 1 (socket 0) read two lines owned on socket 1 at time 0.
	 * First: request on l01 (0->1) during [0, 1000), arrives at 1000 + 40 ns;
	 * its data takes l01 (1->0) during [41000, 50000).  No wait.
	 */
	r = access_at(m, 0, line(0), COH_LOAD, 0);
	assert_int_equal(r.link_wait_ps, 0);
	assert_int_equal(r.done_ps, 200 * NS);
	/*
	 * Second: its request waits CTRL_OCC for the first request, leaves at
	 * 1000, arrives at 1000 + 1000 + 40 ns = 42000; its data finds the link
	 * busy until 50000 and waits 8000.  In all it waits one data message.
	 */
	r = access_at(m, 1, line(1), COH_LOAD, 0);
	assert_int_equal(r.link_wait_ps, CTRL_OCC + (LINK_LAT + CTRL_OCC + DATA_OCC) -
					 (CTRL_OCC + CTRL_OCC + LINK_LAT));
	assert_int_equal(r.link_wait_ps, DATA_OCC);
	assert_int_equal(r.done_ps, 200 * NS + DATA_OCC);

	/*
	 * A transfer the other way at the same time: its request (1->0 at 0)
	 * fits before the replies reserved from 41000 on, and its data (0->1
	 * at 41000) finds that direction free since 2000.  No wait.
	 */
	static const unsigned o0[] = { 0 };
	coh_force_state(m, line(2), TOPO_M, o0, 1);
	r = access_at(m, 2, line(2), COH_LOAD, 0);
	assert_int_equal(r.link_wait_ps, 0);

	const struct coh_counters *c = coh_counters(m);
	assert_int_equal(c->link_wait_ps, DATA_OCC);
	assert_int_equal(c->link_msgs[L01], 6);
	assert_int_equal(c->link_bytes[L01], 3 * (8 + 72));
	coh_destroy(m);
}

static void test_moesi(void **state)
{
	struct coh_model *m = model(PROTO_MOESI);
	static const unsigned o0[] = { 0 };
	struct coh_line_view v;
	struct coh_result r;
	(void)state;

	/* a dirty line read by another core: the writer keeps it as O */
	coh_force_state(m, line(0), TOPO_M, o0, 1);
	r = access_at(m, 2, line(0), COH_LOAD, 0);
	assert_int_equal(r.done_ps, 200 * NS); /* lat.load.M[1] */
	coh_line_view(m, line(0), &v);
	assert_int_equal(v.letter, 'O');
	assert_int_equal(v.state, TOPO_S);
	assert_int_equal(v.forwarder, 0);
	assert_int_equal(v.nsharers, 2);

	/* a third reader: O costs as S, from the nearest copy (core 2, one hop from socket 2) */
	r = access_at(m, 4, line(0), COH_LOAD, 1000 * NS);
	assert_int_equal(r.state, TOPO_S);
	assert_int_equal(r.done_ps, 1000 * NS + 150 * NS);
	coh_line_view(m, line(0), &v);
	assert_int_equal(v.letter, 'O');
	assert_int_equal(v.forwarder, 0);

	/* the owner writes: 2 copies to invalidate, the farthest (core 4) two hops */
	r = access_at(m, 0, line(0), COH_STORE, 2000 * NS);
	assert_int_equal(r.invalidations, 2);
	assert_int_equal(r.dist_class, 2);
	assert_int_equal(r.done_ps, 2000 * NS + 320 * NS + 7 * NS);
	coh_line_view(m, line(0), &v);
	assert_int_equal(v.letter, 'M');

	/* a clean E line read by another core becomes plain S: nothing to own */
	coh_force_state(m, line(1), TOPO_E, o0, 1);
	r = access_at(m, 1, line(1), COH_LOAD, 0);
	assert_int_equal(r.state, TOPO_E);
	assert_int_equal(r.done_ps, 90 * NS); /* lat.load.E[0] */
	coh_line_view(m, line(1), &v);
	assert_int_equal(v.letter, 'S');
	assert_int_equal(v.forwarder, -1);
	coh_destroy(m);
}

static void test_mesif(void **state)
{
	struct coh_model *m = model(PROTO_MESIF);
	static const unsigned o0[] = { 0 };
	struct coh_line_view v;
	struct coh_result r;
	(void)state;

	coh_force_state(m, line(0), TOPO_M, o0, 1);
	r = access_at(m, 6, line(0), COH_LOAD, 0);
	assert_int_equal(r.done_ps, 200 * NS); /* socket 3 to socket 0: one hop */
	coh_line_view(m, line(0), &v);
	assert_int_equal(v.letter, 'F');
	assert_int_equal(v.forwarder, 6); /* the newest reader forwards */
	r = access_at(m, 3, line(0), COH_LOAD, 1000 * NS);
	coh_line_view(m, line(0), &v);
	assert_int_equal(v.forwarder, 3);
	assert_int_equal(v.nsharers, 3);
	/* F costs as S: core 3 is on socket 1, core 2's nearest copy is core 3 (same socket) */
	r = access_at(m, 2, line(0), COH_LOAD, 2000 * NS);
	assert_int_equal(r.dist_class, 0);
	assert_int_equal(r.done_ps, 2000 * NS + 50 * NS);
	coh_destroy(m);
}

static void test_failed_cas_takes_line(void **state)
{
	struct coh_model *m = model(PROTO_MESI);
	static const unsigned sharers[] = { 0, 1 };
	struct coh_line_view v;
	struct coh_result r;
	(void)state;

	/*
	 * A CAS that fails (the caller sees the value does not match) is still an
	 * RMW: the model does not look at values, and takes the line exclusive.
	 */
	coh_force_state(m, line(0), TOPO_S, sharers, 2);
	r = access_at(m, 4, line(0), COH_RMW, 0);
	assert_int_equal(r.invalidations, 2);
	assert_int_equal(r.done_ps, 340 * NS + 7 * NS); /* S two hops, one extra sharer */
	coh_line_view(m, line(0), &v);
	assert_int_equal(v.letter, 'M');
	assert_int_equal(v.owner, 4);
	assert_false(coh_would_hit(m, 0, line(0), COH_LOAD));
	/* the former sharer re-reads: a miss on M two hops away */
	r = access_at(m, 0, line(0), COH_LOAD, 1000 * NS);
	assert_false(r.hit);
	assert_int_equal(r.done_ps, 1000 * NS + 300 * NS);
	coh_destroy(m);
}

static void test_hits(void **state)
{
	struct coh_model *m = model(PROTO_MESI);
	struct coh_line_view v;
	struct coh_result r;
	(void)state;

	r = access_at(m, 5, line(0), COH_LOAD, 0); /* I -> E */
	coh_line_view(m, line(0), &v);
	assert_int_equal(v.letter, 'E');
	/* E -> M silently: a store hit */
	assert_true(coh_would_hit(m, 5, line(0), COH_STORE));
	r = access_at(m, 5, line(0), COH_STORE, 1);
	assert_true(r.hit);
	assert_int_equal(r.state, TOPO_E);
	assert_int_equal(r.done_ps, 1 + 2 * NS);
	coh_line_view(m, line(0), &v);
	assert_int_equal(v.letter, 'M');
	r = access_at(m, 5, line(0), COH_RMW, 5);
	assert_true(r.hit);
	assert_int_equal(r.done_ps, 5 + 10 * NS);
	assert_int_equal(coh_counters(m)->hits, 2);
	assert_int_equal(coh_counters(m)->misses, 1);

	/* coh_would_hit has no side effects: no line, no counter */
	assert_false(coh_would_hit(m, 0, line(9), COH_LOAD));
	assert_int_equal(coh_counters(m)->accesses, 3);

	/* coh_access_if_hit: a hit served as coh_access serves it; else nothing */
	assert_true(coh_access_if_hit(m, 5, line(0), COH_LOAD, 7, &r));
	assert_true(r.hit);
	assert_int_equal(r.state, TOPO_M);
	assert_int_equal(r.done_ps, 7 + T.hit_ps[COH_LOAD]);
	assert_false(coh_access_if_hit(m, 0, line(0), COH_LOAD, 8, &r));
	assert_false(coh_access_if_hit(m, 0, line(9), COH_LOAD, 8, &r));
	assert_int_equal(coh_counters(m)->accesses, 4);
	assert_int_equal(coh_counters(m)->hits, 3);
	coh_line_view(m, line(0), &v);
	assert_int_equal(v.letter, 'M');
	assert_int_equal(v.owner, 5);

	coh_reset_counters(m);
	assert_int_equal(coh_counters(m)->accesses, 0);
	assert_int_equal(coh_counters(m)->hits, 0);
	assert_int_equal(coh_counters(m)->link_msgs[L01], 0);
	coh_destroy(m);
}

static void test_homes_tags_forget(void **state)
{
	struct coh_model *m = model(PROTO_MESI);
	struct coh_line_view v;
	void **slot;
	(void)state;

	coh_set_home(m, line(0), 3 * COH_LINE_SIZE, 3, COH_TAG_LOCK);
	coh_line_view(m, line(2), &v); /* not created yet: from the ranges */
	assert_int_equal(v.home, 3);
	assert_int_equal(v.tag, COH_TAG_LOCK);
	access_at(m, 0, line(1), COH_LOAD, 0);
	/* re-tag the middle line: the home stays */
	coh_set_tag(m, line(1), COH_LINE_SIZE, COH_TAG_CTX);
	coh_line_view(m, line(1), &v);
	assert_int_equal(v.home, 3);
	assert_int_equal(v.tag, COH_TAG_CTX);
	coh_line_view(m, line(0), &v);
	assert_int_equal(v.tag, COH_TAG_LOCK);
	coh_line_view(m, line(2), &v);
	assert_int_equal(v.tag, COH_TAG_LOCK);
	/* tagging unregistered memory: home 0 */
	coh_set_tag(m, line(10), COH_LINE_SIZE, COH_TAG_DATA);
	coh_line_view(m, line(10), &v);
	assert_int_equal(v.home, 0);
	assert_int_equal(v.tag, COH_TAG_DATA);
	/* re-homing a created line restamps it */
	coh_set_home(m, line(1), COH_LINE_SIZE, 2, COH_TAG_DATA);
	coh_line_view(m, line(1), &v);
	assert_int_equal(v.home, 2);
	assert_int_equal(v.letter, 'E');

	/* forget: back to I, home 0; a line with a user slot in use keeps it */
	slot = coh_line_user(m, line(2));
	*slot = &v;
	coh_forget(m, line(0), 3 * COH_LINE_SIZE);
	coh_line_view(m, line(1), &v);
	assert_int_equal(v.letter, 'I');
	assert_int_equal(v.home, 0);
	assert_int_equal(v.tag, COH_TAG_OTHER);
	assert_ptr_equal(coh_line_user(m, line(2)), slot);
	assert_ptr_equal(*coh_line_user(m, line(2)), &v);
	coh_destroy(m);
}

/* Many lines: slots stay put while the table grows; deletions keep the rest findable. */
static void test_many_lines(void **state)
{
	struct coh_model *m = model(PROTO_MESI);
	enum { N = 20000 };
	struct coh_line_view v;
	void **first;
	(void)state;

	first = coh_line_user(m, line(0));
	for (unsigned i = 0; i < N; i++) {
		unsigned owner = i % 8;
		coh_force_state(m, line(i * 3), TOPO_M, &owner, 1);
	}
	assert_ptr_equal(coh_line_user(m, line(0)), first);
	for (unsigned i = 0; i < N; i += 2)
		coh_forget(m, line(i * 3), COH_LINE_SIZE);
	for (unsigned i = 0; i < N; i++) {
		coh_line_view(m, line(i * 3), &v);
		if (i % 2) {
			assert_int_equal(v.letter, 'M');
			assert_int_equal(v.owner, (int)(i % 8));
		} else {
			assert_int_equal(v.letter, 'I');
		}
	}
	/* forgetting a big range walks the table instead of the addresses */
	coh_forget(m, line(0), (size_t)N * 3 * COH_LINE_SIZE);
	coh_line_view(m, line(3), &v);
	assert_int_equal(v.letter, 'I');
	coh_destroy(m);
}

/* A request that travels: asks the model how far, arrives then. */
static struct coh_result travel_then_access(struct coh_model *m, unsigned core, uintptr_t a,
					    enum coh_op op, uint64_t issue)
{
	uint64_t travel = coh_request_travel_ps(m, core, a, op);
	struct coh_result r;

	coh_access_arrived(m, core, a, op, issue + travel, travel, &r);
	return r;
}

static void test_travel(void **state)
{
	static const unsigned o1[] = { 1 }, s04[] = { 0, 4 }, s01[] = { 0, 1 };
	struct coh_model *m = model(PROTO_MESI);
	struct coh_line_view v;
	(void)state;

	/* uncached: to the home; 0 at home, 40 ns per hop of the ring */
	coh_set_home(m, line(0), COH_LINE_SIZE, 2, COH_TAG_LOCK);
	assert_int_equal(coh_request_travel_ps(m, 0, line(0), COH_LOAD), 2 * LINK_LAT);
	assert_int_equal(coh_request_travel_ps(m, 2, line(0), COH_RMW), LINK_LAT);
	assert_int_equal(coh_request_travel_ps(m, 5, line(0), COH_STORE), 0);
	/* no side effects: the line was not created, nothing counted */
	coh_line_view(m, line(0), &v);
	assert_int_equal(v.letter, 'I');
	assert_int_equal(v.home, 2);
	assert_int_equal(coh_counters(m)->accesses, 0);

	/* M by core 1 (socket 0): socket 0 settles it, others go to the home (2) */
	coh_force_state(m, line(0), TOPO_M, o1, 1);
	assert_int_equal(coh_request_travel_ps(m, 0, line(0), COH_LOAD), 0);
	assert_int_equal(coh_request_travel_ps(m, 0, line(0), COH_RMW), 0);
	assert_int_equal(coh_request_travel_ps(m, 1, line(0), COH_RMW), 0); /* a hit */
	assert_int_equal(coh_request_travel_ps(m, 6, line(0), COH_LOAD), LINK_LAT);
	assert_int_equal(coh_request_travel_ps(m, 4, line(0), COH_LOAD), 0); /* home */

	/* S {0, 4}: socket 0 can serve a load, not a write (core 4 holds a copy) */
	coh_force_state(m, line(0), TOPO_S, s04, 2);
	assert_int_equal(coh_request_travel_ps(m, 1, line(0), COH_LOAD), 0);
	assert_int_equal(coh_request_travel_ps(m, 1, line(0), COH_STORE), 2 * LINK_LAT);
	assert_int_equal(coh_request_travel_ps(m, 0, line(0), COH_RMW), 2 * LINK_LAT);
	assert_int_equal(coh_request_travel_ps(m, 2, line(0), COH_LOAD), LINK_LAT);
	/* S {0, 1}: every copy in socket 0, so a write from there stays there */
	coh_force_state(m, line(0), TOPO_S, s01, 2);
	assert_int_equal(coh_request_travel_ps(m, 1, line(0), COH_RMW), 0);
	assert_int_equal(coh_request_travel_ps(m, 3, line(0), COH_RMW), LINK_LAT);
	assert_int_equal(coh_counters(m)->accesses, 0);
	coh_destroy(m);
}

static void test_arrival_order(void **state)
{
	struct coh_model *m = model(PROTO_MESI);
	struct coh_line_view v;
	uint64_t travel;
	struct coh_result r;
	(void)state;

	/*
	 * The line is homed on socket 0 and owned M by core 1 (socket 0).
	 * Core 4 (socket 2) issues an RMW at 0: it travels two hops to the
	 * home and arrives at 80 ns.  Core 0 (socket 0) issues one at 10 ns:
	 * socket 0 holds the line, so it arrives at once and is served first:
	 * 10 + lat.atomic.M[0] = 140 ns.
	 */
	home0_modified_at(m, 1);
	travel = coh_request_travel_ps(m, 4, line(0), COH_RMW);
	assert_int_equal(travel, 80 * NS);
	assert_int_equal(coh_request_travel_ps(m, 0, line(0), COH_RMW), 0);
	coh_access_arrived(m, 0, line(0), COH_RMW, 10 * NS, 0, &r);
	assert_int_equal(r.start_ps, 10 * NS);
	assert_int_equal(r.queue_ps, 0);
	assert_int_equal(r.done_ps, 140 * NS);
	/*
	 * Core 4's request arrives at 80 ns, waits for the line until 140 ns
	 * (queue 60 ns, from arrival) and finds it M at core 0, two hops:
	 * lat.atomic.M[2] = 330 ns, of which 80 ns were paid on the way.
	 */
	coh_access_arrived(m, 4, line(0), COH_RMW, travel, travel, &r);
	assert_false(r.hit);
	assert_int_equal(r.state, TOPO_M);
	assert_int_equal(r.dist_class, 2);
	assert_int_equal(r.start_ps, 140 * NS);
	assert_int_equal(r.queue_ps, 60 * NS);
	assert_int_equal(r.done_ps, 140 * NS + 330 * NS - 80 * NS);
	coh_line_view(m, line(0), &v);
	assert_int_equal(v.owner, 4);
	assert_int_equal(v.busy_until_ps, 390 * NS);
	assert_int_equal(coh_counters(m)->queue_ps, 60 * NS);

	/*
	 * Now socket 2 holds it: its cores' requests arrive at once, and so do
	 * those of socket 0, the home; socket 1's travel one hop to the home.
	 */
	assert_int_equal(coh_request_travel_ps(m, 5, line(0), COH_RMW), 0);
	assert_int_equal(coh_request_travel_ps(m, 1, line(0), COH_RMW), 0);
	assert_int_equal(coh_request_travel_ps(m, 2, line(0), COH_RMW), LINK_LAT);
	coh_destroy(m);
}

static void test_travel_idle_cost(void **state)
{
	static const unsigned o2[] = { 2 }, o6[] = { 6 }, s23[] = { 2, 3 };
	struct coh_model *m = model(PROTO_MESI);
	struct coh_result r;
	uint64_t t = 5000 * NS;
	(void)state;

	/*
	 * An idle machine charges exactly the table from the issue, travel
	 * included.  Each request comes 2 us after the last: the links are idle.
	 */
	coh_set_home(m, line(0), 8 * COH_LINE_SIZE, 2, COH_TAG_DATA);
	r = travel_then_access(m, 0, line(0), COH_LOAD, t); /* I, home two hops */
	assert_int_equal(r.start_ps, t + 80 * NS);
	assert_int_equal(r.queue_ps, 0);
	assert_int_equal(r.done_ps, t + 600 * NS);
	assert_true(r.remote);
	/* M at core 2 (socket 1, one hop), home two hops away: lat.store.M[1] */
	coh_force_state(m, line(1), TOPO_M, o2, 1);
	t += 2000 * NS;
	r = travel_then_access(m, 0, line(1), COH_STORE, t);
	assert_int_equal(r.start_ps, t + 80 * NS);
	assert_int_equal(r.done_ps, t + 210 * NS);
	/*
	 * Core 2 (socket 1) and the owner, core 6 (socket 3): two hops; the
	 * home (socket 2) is one hop away: travel 40 ns, lat.atomic.M[2].
	 */
	coh_force_state(m, line(2), TOPO_M, o6, 1);
	t += 2000 * NS;
	r = travel_then_access(m, 2, line(2), COH_RMW, t);
	assert_int_equal(r.start_ps, t + LINK_LAT);
	assert_int_equal(r.done_ps, t + 330 * NS);
	/* S {2, 3} (socket 1): core 3 holds a copy, a hit; no travel */
	coh_force_state(m, line(3), TOPO_S, s23, 2);
	coh_force_state(m, line(4), TOPO_S, s23, 2);
	t += 2000 * NS;
	r = travel_then_access(m, 3, line(3), COH_LOAD, t);
	assert_true(r.hit);
	t += 2000 * NS;
	/* core 0: 80 ns to the home, the nearest sharer one hop away: lat.load.S[1] */
	r = travel_then_access(m, 0, line(4), COH_LOAD, t);
	assert_int_equal(r.start_ps, t + 80 * NS);
	assert_int_equal(r.done_ps, t + 150 * NS);
	/* a write by a sharer, all copies in its socket: an in-socket RMW on S */
	t += 2000 * NS;
	r = travel_then_access(m, 2, line(3), COH_RMW, t);
	assert_int_equal(r.start_ps, t);
	assert_int_equal(r.done_ps, t + 140 * NS); /* lat.atomic.S[0] */
	/* travel paid beyond the latency leaves 1 ps, so completions stay ordered */
	t += 2000 * NS;
	coh_access_arrived(m, 4, line(5), COH_LOAD, t, 10000 * NS, &r);
	assert_int_equal(r.done_ps, t + 1);
	/* coh_access is the arrived access with no travel */
	t += 2000 * NS;
	r = access_at(m, 0, line(6), COH_LOAD, t);
	assert_int_equal(r.done_ps, t + 600 * NS);
	coh_destroy(m);
}

/* ------------------------------------------------------------ arbitration */

static struct coh_model *model_arb(unsigned bound)
{
	build_ring(PROTO_MESI);
	T.arbitration = ARB_SOCKET_FIRST;
	T.max_local_run = bound;
	return coh_create(&T);
}

/* A request issued at `issue` (ns) that travels as coh_request_travel_ps
 * says and is presented on arrival under the machine's arbitration. */
static bool request_at(struct coh_model *m, unsigned core, uintptr_t a, enum coh_op op,
		       uint64_t issue_ns, void *cookie, struct coh_result *r)
{
	uint64_t travel = coh_request_travel_ps(m, core, a, op);

	return coh_request(m, core, a, op, issue_ns * NS + travel, travel, cookie, r);
}

static void expect_none_due(struct coh_model *m, uintptr_t a, uint64_t now_ns)
{
	struct coh_result r;

	assert_null(coh_admit_next(m, a, now_ns * NS, &r));
}

static void test_socket_first_waits_for_idle(void **state)
{
	struct coh_model *m = model_arb(4);
	struct coh_line_view v;
	struct coh_result r;
	int c2;
	(void)state;

	/*
	 * Homed on socket 0, M at core 1 (socket 0).  Core 0 (socket 0) takes
	 * it at 10 ns: idle, admitted, done 10 + lat.atomic.M[0] = 140 ns.
	 */
	home0_modified_at(m, 1);
	assert_true(request_at(m, 0, line(0), COH_RMW, 10, NULL, &r));
	assert_int_equal(r.done_ps, 140 * NS);
	/*
	 * Core 2 (socket 1) issues at 10 ns, travels 40 ns to the home and
	 * arrives at 50 ns: the line is busy with socket 0's request, so it
	 * is not admitted; it waits.
	 */
	assert_false(request_at(m, 2, line(0), COH_RMW, 10, &c2, &r));
	assert_int_equal(coh_waiting(m, line(0)), 1);
	expect_none_due(m, line(0), 50);
	/*
	 * Core 1 (socket 0, the holder's) arrives at 60 ns, after core 2, and
	 * is admitted ahead of it: start 140, M at core 0, same socket, done
	 * 140 + 130 = 270 ns.  Nothing is due at its admission, nor at the
	 * completion at 140 ns (the line is busy until 270).
	 */
	assert_true(request_at(m, 1, line(0), COH_RMW, 60, NULL, &r));
	assert_int_equal(r.start_ps, 140 * NS);
	assert_int_equal(r.done_ps, 270 * NS);
	coh_line_view(m, line(0), &v);
	assert_int_equal(v.holder, 0);
	assert_int_equal(v.nwaiting, 1);
	assert_int_equal(v.local_run, 1);
	expect_none_due(m, line(0), 60);
	expect_none_due(m, line(0), 140);
	/*
	 * At 270 ns the line goes idle: core 2 is admitted then.  It finds M
	 * at core 1, one hop: lat.atomic.M[1] 230 ns less the 40 paid on the
	 * way, done 460 ns; queued 270 - 50 = 220 ns from its arrival.
	 */
	assert_ptr_equal(coh_admit_next(m, line(0), 270 * NS, &r), &c2);
	assert_false(r.hit);
	assert_int_equal(r.state, TOPO_M);
	assert_int_equal(r.dist_class, 1);
	assert_int_equal(r.start_ps, 270 * NS);
	assert_int_equal(r.queue_ps, 220 * NS);
	assert_int_equal(r.done_ps, 460 * NS);
	assert_int_equal(r.link_wait_ps, 0);
	expect_none_due(m, line(0), 270);
	coh_line_view(m, line(0), &v);
	assert_int_equal(v.owner, 2);
	assert_int_equal(v.holder, 1);
	assert_int_equal(v.nwaiting, 0);
	assert_int_equal(coh_counters(m)->deferred, 1);
	assert_int_equal(coh_counters(m)->deferred_ps, 220 * NS);
	assert_int_equal(coh_counters(m)->bound_grants, 0);
	assert_int_equal(coh_counters(m)->queue_ps, (80 + 220) * NS);
	coh_destroy(m);

	/*
	 * The same requests under fifo: core 2 (arrived at 50) goes first,
	 * start 140, done 140 + 230 - 40 = 330; core 1 then finds M at core 2,
	 * one hop: done 330 + 230 = 560 ns.
	 */
	m = model(PROTO_MESI);
	home0_modified_at(m, 1);
	assert_true(request_at(m, 0, line(0), COH_RMW, 10, NULL, &r));
	assert_true(request_at(m, 2, line(0), COH_RMW, 10, &c2, &r));
	assert_int_equal(r.start_ps, 140 * NS);
	assert_int_equal(r.done_ps, 330 * NS);
	assert_true(request_at(m, 1, line(0), COH_RMW, 60, NULL, &r));
	assert_int_equal(r.done_ps, 560 * NS);
	assert_null(coh_admit_next(m, line(0), 560 * NS, &r));
	assert_int_equal(coh_counters(m)->deferred, 0);
	coh_destroy(m);
}

static void test_socket_first_bound(void **state)
{
	struct coh_model *m = model_arb(2);
	struct coh_line_view v;
	struct coh_result r;
	int c0, c4, c2;
	(void)state;

	/* Homed on socket 0, M at core 2: socket 1 holds it. */
	home0_modified_at(m, 2);
	/* core 3 (socket 1) at 0: done 130 ns */
	assert_true(request_at(m, 3, line(0), COH_RMW, 0, NULL, &r));
	assert_int_equal(r.done_ps, 130 * NS);
	/* core 0 (socket 0, the home: no travel) at 10 ns waits; core 4
	 * (socket 2) issues at 20, arrives at 100 (two hops), waits behind */
	assert_false(request_at(m, 0, line(0), COH_RMW, 10, &c0, &r));
	assert_false(request_at(m, 4, line(0), COH_RMW, 20, &c4, &r));
	assert_int_equal(coh_waiting(m, line(0)), 2);
	/*
	 * Socket 1 goes on: core 2 at 110 (start 130, done 260), core 3 at
	 * 120 (start 260, done 390).  That is the bound's 2 grants since core
	 * 0 began to wait: the oldest waiter, core 0, is admitted at once,
	 * behind them: start 390, M at core 3, one hop: 230, done 620 ns,
	 * queued 380 ns.  Socket 0 holds the line now; core 4 is not due.
	 */
	assert_true(request_at(m, 2, line(0), COH_RMW, 110, NULL, &r));
	assert_int_equal(r.done_ps, 260 * NS);
	expect_none_due(m, line(0), 110);
	assert_true(request_at(m, 3, line(0), COH_RMW, 120, NULL, &r));
	assert_int_equal(r.done_ps, 390 * NS);
	assert_ptr_equal(coh_admit_next(m, line(0), 120 * NS, &r), &c0);
	assert_int_equal(r.start_ps, 390 * NS);
	assert_int_equal(r.queue_ps, 380 * NS);
	assert_int_equal(r.dist_class, 1);
	assert_int_equal(r.done_ps, 620 * NS);
	expect_none_due(m, line(0), 120);
	coh_line_view(m, line(0), &v);
	assert_int_equal(v.holder, 0);
	assert_int_equal(v.local_run, 0);
	/*
	 * Core 2 (socket 1, no longer the holder) issues at 130: the line is M
	 * in socket 0, so it travels 40 ns to the home and waits, behind core
	 * 4.  Core 1 (socket 0) at 140 is admitted: start 620, done 750.
	 */
	assert_false(request_at(m, 2, line(0), COH_RMW, 130, &c2, &r));
	assert_true(request_at(m, 1, line(0), COH_RMW, 140, NULL, &r));
	assert_int_equal(r.start_ps, 620 * NS);
	assert_int_equal(r.done_ps, 750 * NS);
	expect_none_due(m, line(0), 140);
	/*
	 * At 750 the line goes idle: core 4 first (it came first), M at core
	 * 1, two hops: 330 - 80 paid = 250, done 1000 ns, queued 650.  Core 2
	 * waits for socket 2 to be done: at 1000, M at core 4, one hop:
	 * 230 - 40 = 190, done 1190 ns, queued 830.
	 */
	assert_ptr_equal(coh_admit_next(m, line(0), 750 * NS, &r), &c4);
	assert_int_equal(r.dist_class, 2);
	assert_int_equal(r.queue_ps, 650 * NS);
	assert_int_equal(r.done_ps, 1000 * NS);
	expect_none_due(m, line(0), 750);
	assert_ptr_equal(coh_admit_next(m, line(0), 1000 * NS, &r), &c2);
	assert_int_equal(r.dist_class, 1);
	assert_int_equal(r.queue_ps, 830 * NS);
	assert_int_equal(r.done_ps, 1190 * NS);
	assert_int_equal(r.link_wait_ps, 0);
	assert_int_equal(coh_waiting(m, line(0)), 0);
	assert_int_equal(coh_counters(m)->deferred, 3);
	assert_int_equal(coh_counters(m)->bound_grants, 1);
	assert_int_equal(coh_counters(m)->deferred_ps, (110 + 650 + 830) * NS);
	coh_destroy(m);
}

static void test_socket_first_unbounded_and_settled(void **state)
{
	static const unsigned s20[] = { 2, 0 };
	struct coh_model *m = model_arb(0);
	struct coh_result r;
	uint64_t done = 0;
	int c2;
	(void)state;

	/*
	 * No bound: while socket 0's cores keep the line busy, core 2
	 * (socket 1) waits, however many grants they get; it is admitted when
	 * the line goes idle.  Cores 0 and 1 alternate, each taking the line
	 * from the other: 130 ns a grant from 10 ns.
	 */
	home0_modified_at(m, 1);
	assert_true(request_at(m, 0, line(0), COH_RMW, 10, NULL, &r));
	assert_false(request_at(m, 2, line(0), COH_RMW, 10, &c2, &r));
	for (unsigned i = 1; i <= 10; i++) {
		assert_true(request_at(m, i % 2, line(0), COH_RMW, 10 + i, NULL, &r));
		assert_int_equal(r.start_ps, (10 + 130 * i) * NS);
		expect_none_due(m, line(0), 10 + i);
		done = r.done_ps;
	}
	assert_int_equal(done, (10 + 130 * 11) * NS);
	expect_none_due(m, line(0), 10 + 130 * 10);
	assert_ptr_equal(coh_admit_next(m, line(0), done, &r), &c2);
	assert_int_equal(r.start_ps, done);
	assert_int_equal(coh_counters(m)->bound_grants, 0);

	/*
	 * A request its own socket can settle never waits.  S {2, 0}: socket
	 * 1 holds it (core 2's).  Core 3 (socket 1) loads at 2000 ns: start
	 * 2000, lat.load.S[0], done 2050.  Core 1 (socket 0) loads at 2010
	 * while it is busy: socket 0 has a copy (core 0's), so it is admitted:
	 * start 2050, done 2100.  Core 4 (socket 2) issues at 2020 and
	 * arrives at 2100 (two hops to the home), when the line has just gone
	 * idle: admitted at once, the nearest copy one hop away: 150 - 80,
	 * done 2170 ns, as on an idle machine.
	 */
	coh_force_state(m, line(1), TOPO_S, s20, 2);
	assert_true(request_at(m, 3, line(1), COH_LOAD, 2000, NULL, &r));
	assert_int_equal(r.done_ps, 2050 * NS);
	assert_true(request_at(m, 1, line(1), COH_LOAD, 2010, NULL, &r));
	assert_int_equal(r.start_ps, 2050 * NS);
	assert_int_equal(r.done_ps, 2100 * NS);
	assert_true(request_at(m, 4, line(1), COH_LOAD, 2020, NULL, &r));
	assert_int_equal(r.start_ps, 2100 * NS);
	assert_int_equal(r.queue_ps, 0);
	assert_int_equal(r.dist_class, 1);
	assert_int_equal(r.done_ps, 2170 * NS);
	assert_int_equal(coh_waiting(m, line(1)), 0);
	coh_destroy(m);
}

/* ------------------------------------------------ home agents and probes */

/* The ring with home agents of occupancy occ_ns and a directory dir. */
static struct coh_model *model_home(uint64_t occ_ns, enum topo_directory dir)
{
	build_ring(PROTO_MESI);
	T.home_occ_ps = occ_ns * NS;
	T.directory = dir;
	return coh_create(&T);
}

static struct coh_result arrived_at(struct coh_model *m, unsigned core, uintptr_t a,
				    enum coh_op op, uint64_t now)
{
	struct coh_result r;

	coh_access_arrived(m, core, a, op, now, 0, &r);
	return r;
}

/*
 * Home agents of 20 ns; lines 0-2 homed on socket 0, line 3 on socket 1.
 * The agent of socket 0 serves, in arrival order:
 *   t=0   core 2 loads line 0 (I, 1 hop)   agent [0, 20)   start 0, done 500
 *   t=5   core 4 loads line 1 (I, 2 hops)  agent [20, 40)  waits 15: start 20,
 *                                                          done 20 + 600
 *   t=10  core 6 loads line 0 (E, busy until 500)   agent [40, 60): hidden
 *         behind the line, start 500, queue 490, home wait 0
 *   t=15  core 1 loads line 2 (I, home socket)      agent [60, 80): waits
 *         45, start 60, done 60 + 400
 *   t=15  core 0 loads line 3 (home socket 1)  its own agent: no wait
 *   t=600 core 3 loads line 0: socket 1 holds a copy, the home is not asked
 * Off (coh_set_home_agents false): core 4's load starts at 5, done 605.
 */
static void test_home_agent_queue(void **state)
{
	struct coh_model *m = model_home(20, DIR_FULL);
	const struct coh_counters *k = coh_counters(m);
	struct coh_result r;
	(void)state;

	coh_set_home(m, line(3), COH_LINE_SIZE, 1, COH_TAG_OTHER);
	r = arrived_at(m, 2, line(0), COH_LOAD, 0);
	assert_int_equal(r.start_ps, 0);
	assert_int_equal(r.home_wait_ps, 0);
	assert_int_equal(r.done_ps, 500 * NS);
	r = arrived_at(m, 4, line(1), COH_LOAD, 5 * NS);
	assert_int_equal(r.queue_ps, 0);
	assert_int_equal(r.home_wait_ps, 15 * NS);
	assert_int_equal(r.start_ps, 20 * NS);
	assert_int_equal(r.link_wait_ps, 0);
	assert_int_equal(r.done_ps, 620 * NS);
	r = arrived_at(m, 6, line(0), COH_LOAD, 10 * NS);
	assert_int_equal(r.start_ps, 500 * NS);
	assert_int_equal(r.queue_ps, 490 * NS);
	assert_int_equal(r.home_wait_ps, 0);
	r = arrived_at(m, 1, line(2), COH_LOAD, 15 * NS);
	assert_int_equal(r.home_wait_ps, 45 * NS);
	assert_int_equal(r.start_ps, 60 * NS);
	assert_int_equal(r.done_ps, 460 * NS);
	r = arrived_at(m, 0, line(3), COH_LOAD, 15 * NS);
	assert_int_equal(r.home_wait_ps, 0);
	assert_int_equal(r.start_ps, 15 * NS);
	assert_int_equal(k->home_requests, 5);
	r = arrived_at(m, 3, line(0), COH_LOAD, 600 * NS);
	assert_false(r.hit);
	assert_int_equal(r.dist_class, 0);
	assert_int_equal(k->home_requests, 5);
	assert_int_equal(k->home_wait_ps, 60 * NS);
	assert_int_equal(k->home_wait_ps_by_tag[COH_TAG_OTHER], 60 * NS);
	coh_destroy(m);

	m = model_home(20, DIR_FULL);
	coh_set_home_agents(m, false);
	r = arrived_at(m, 2, line(0), COH_LOAD, 0);
	r = arrived_at(m, 4, line(1), COH_LOAD, 5 * NS);
	assert_int_equal(r.home_wait_ps, 0);
	assert_int_equal(r.start_ps, 5 * NS);
	assert_int_equal(r.done_ps, 605 * NS);
	assert_int_equal(coh_counters(m)->home_requests, 0);
	coh_destroy(m);
}

/*
 * A probe filter, home agents of 50 ns.  Core 7 loads line 5 (homed on
 * socket 3, uncached) at 0: a load, no probe; socket 3's agent [0, 50).
 * Core 0 stores line 0 (home 0), shared by cores 2, 4, 6 (sockets 1, 2, 3)
 * at 0: the filter does not know the sharers, so the home probes every
 * socket but the requester's and the source's (core 4's socket 2, the
 * farthest sharer): sockets 1 and 3, 1 hop, arriving at 41 ns (1 ns on the
 * link, 40 ns latency).  Socket 3's agent is busy until 50: that probe
 * waits 9 ns.  Cost: store S, 2 hops, 320 + 2 x 7 = 334 ns; done 334 + 9.
 * Probes off: no probe, the invalidations go as with a full directory,
 * done 334.  Broadcast (no directory): a load of an uncached line probes
 * too; the probe filter does not.
 */
static void test_probes(void **state)
{
	static const unsigned sharers[] = { 2, 4, 6 };
	struct coh_model *m = model_home(50, DIR_PROBE_FILTER);
	const struct coh_counters *k = coh_counters(m);
	struct coh_result r;
	(void)state;

	coh_set_home(m, line(5), COH_LINE_SIZE, 3, COH_TAG_OTHER);
	r = arrived_at(m, 7, line(5), COH_LOAD, 0);
	assert_int_equal(r.done_ps, 400 * NS);
	assert_int_equal(k->probes, 0);
	coh_force_state(m, line(0), TOPO_S, sharers, 3);
	r = arrived_at(m, 0, line(0), COH_STORE, 0);
	assert_int_equal(r.dist_class, 2);
	assert_int_equal(r.home_wait_ps, 0);
	assert_int_equal(r.link_wait_ps, 0);
	assert_int_equal(r.probe_wait_ps, 9 * NS);
	assert_int_equal(r.done_ps, 343 * NS);
	assert_int_equal(k->probes, 2);
	assert_int_equal(k->probe_wait_ps, 9 * NS);
	assert_int_equal(k->home_requests, 2);
	coh_destroy(m);

	m = model_home(50, DIR_PROBE_FILTER);
	coh_set_probes(m, false);
	coh_set_home(m, line(5), COH_LINE_SIZE, 3, COH_TAG_OTHER);
	r = arrived_at(m, 7, line(5), COH_LOAD, 0);
	coh_force_state(m, line(0), TOPO_S, sharers, 3);
	r = arrived_at(m, 0, line(0), COH_STORE, 0);
	assert_int_equal(r.probe_wait_ps, 0);
	assert_int_equal(r.done_ps, 334 * NS);
	assert_int_equal(coh_counters(m)->probes, 0);
	coh_destroy(m);

	m = model_home(0, DIR_BROADCAST);
	r = arrived_at(m, 2, line(0), COH_LOAD, 0);
	assert_int_equal(r.done_ps, 500 * NS);
	assert_int_equal(coh_counters(m)->probes, 2); /* sockets 2 and 3 */
	coh_destroy(m);
	m = model_home(0, DIR_PROBE_FILTER);
	r = arrived_at(m, 2, line(0), COH_LOAD, 0);
	assert_int_equal(coh_counters(m)->probes, 0);
	coh_destroy(m);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_from_memory),
		cmocka_unit_test(test_modified_to_shared),
		cmocka_unit_test(test_rmw_fan_out),
		cmocka_unit_test(test_serialization),
		cmocka_unit_test(test_link_wait),
		cmocka_unit_test(test_moesi),
		cmocka_unit_test(test_mesif),
		cmocka_unit_test(test_failed_cas_takes_line),
		cmocka_unit_test(test_hits),
		cmocka_unit_test(test_homes_tags_forget),
		cmocka_unit_test(test_many_lines),
		cmocka_unit_test(test_travel),
		cmocka_unit_test(test_arrival_order),
		cmocka_unit_test(test_travel_idle_cost),
		cmocka_unit_test(test_socket_first_waits_for_idle),
		cmocka_unit_test(test_socket_first_bound),
		cmocka_unit_test(test_socket_first_unbounded_and_settled),
		cmocka_unit_test(test_home_agent_queue),
		cmocka_unit_test(test_probes),
	};
	(void)argc;
	(void)argv;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
