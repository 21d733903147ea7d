/*
 * tests/sim_coherence.c - the coherence model (sim/coherence.h) against
 * hand-computed latencies: states, protocols, hits, homes and links, on the
 * hand-built ring of tests/coh_ring.h.  Requests that travel to a remote
 * home and the machine's arbitration are tests/sim_coh_arrival.c.
 */
#include "coh_ring.h"

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
	assert_true(coh_would_hit(m, 0, line(0), COH_LOAD, 0));
	assert_true(coh_would_hit(m, 2, line(0), COH_LOAD, 0));
	assert_false(coh_would_hit(m, 0, line(0), COH_STORE, 0));

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
	assert_false(coh_would_hit(m, 0, line(0), COH_LOAD, 0));
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
	assert_true(coh_would_hit(m, 5, line(0), COH_STORE, 0));
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
	assert_false(coh_would_hit(m, 0, line(9), COH_LOAD, 0));
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

/*
 * The ranges against a map of every byte: random homes, tags and forgets of
 * any size at any byte, and after each one every line of the window must
 * have the home and tag of its lowest byte that has one (home 0 and
 * "other" where none has).
 */
enum { WIN_LINES = 256, WIN_BYTES = WIN_LINES * COH_LINE_SIZE };

struct byte_home {
	bool set;
	unsigned char node, tag;
};

static void map_apply(struct byte_home *map, unsigned op, unsigned lo, unsigned hi,
		      unsigned node, unsigned tag)
{
	for (unsigned b = lo; b < hi; b++) {
		if (op == 0)
			map[b] = (struct byte_home){ true, (unsigned char)node, (unsigned char)tag };
		else if (op == 1)
			map[b] = (struct byte_home){ true, map[b].set ? map[b].node : 0,
						     (unsigned char)tag };
		else
			map[b].set = false;
	}
}

static void map_check(struct coh_model *m, const struct byte_home *map, unsigned step)
{
	struct coh_line_view v;

	for (unsigned l = 0; l < WIN_LINES; l++) {
		const struct byte_home *b = &map[l * COH_LINE_SIZE], *first = NULL;

		for (unsigned k = 0; k < COH_LINE_SIZE && !first; k++)
			if (b[k].set)
				first = &b[k];
		coh_line_view(m, line(l), &v);
		if (v.home != (first ? first->node : 0u) ||
		    v.tag != (first ? (enum coh_tag)first->tag : COH_TAG_OTHER))
			fail_msg("step %u, line %u: home %u tag %d, the map says %u and %d", step, l,
				 v.home, (int)v.tag, first ? first->node : 0u,
				 first ? first->tag : (int)COH_TAG_OTHER);
	}
}

/* --snoop-travel: the owner a miss takes the line from holds it for a share
 * of the miss's latency (sim/coh_protocol.c, open_snoop_window). */
static void test_snoop_travel(void **state)
{
	struct coh_model *m = model(PROTO_MESI);
	struct coh_line_view v;
	struct coh_result r;
	uint64_t t = 1000 * NS;
	(void)state;

	/* 0: the line moves at the miss's start, as before the option */
	home0_modified_at(m, 0);
	r = access_at(m, 2, line(0), COH_RMW, t);
	assert_int_equal(r.done_ps, t + 230 * NS); /* lat.rmw.M[1] */
	assert_false(coh_would_hit(m, 0, line(0), COH_RMW, t + 1));
	coh_destroy(m);

	/* 50%: core 0 still holds it for 115 ns after core 2's miss starts */
	m = model(PROTO_MESI);
	coh_set_snoop_travel(m, 50);
	home0_modified_at(m, 0);
	r = access_at(m, 2, line(0), COH_RMW, t);
	assert_int_equal(r.done_ps, t + 230 * NS); /* the miss costs the same */
	assert_true(coh_would_hit(m, 0, line(0), COH_RMW, t));
	assert_true(coh_would_hit(m, 0, line(0), COH_LOAD, t + 115 * NS - 1));
	assert_false(coh_would_hit(m, 0, line(0), COH_RMW, t + 115 * NS));
	assert_false(coh_would_hit(m, 4, line(0), COH_LOAD, t)); /* only the owner */
	assert_true(coh_access_if_hit(m, 0, line(0), COH_RMW, t + 50 * NS, &r));
	assert_true(r.hit);
	assert_int_equal(r.done_ps, t + 60 * NS); /* hit.rmw */
	coh_line_view(m, line(0), &v); /* the directory is core 2's all along */
	assert_int_equal(v.letter, 'M');
	assert_int_equal(v.owner, 2);
	assert_int_equal(v.busy_until_ps, t + 230 * NS);

	/* the window closes with the next write miss: core 4's queues behind core
	 * 2's, and core 2, the owner it takes the line from, holds it until 50%
	 * of that miss's latency after it starts */
	r = access_at(m, 4, line(0), COH_STORE, t + 10 * NS);
	assert_int_equal(r.start_ps, t + 230 * NS);
	assert_false(coh_would_hit(m, 0, line(0), COH_RMW, t + 60 * NS));
	assert_true(coh_would_hit(m, 2, line(0), COH_STORE, r.start_ps + 1));
	assert_false(coh_would_hit(m, 2, line(0), COH_STORE, r.done_ps));

	/* a load that takes a line from its owner opens one too, and cannot read
	 * its value at admission: the owner may still write it */
	coh_set_home(m, line(1), COH_LINE_SIZE, 0, COH_TAG_LOCK);
	r = access_at(m, 0, line(1), COH_STORE, 0);
	assert_true(r.value_settled);
	r = access_at(m, 1, line(1), COH_LOAD, t);
	assert_false(r.value_settled);
	assert_true(coh_would_hit(m, 0, line(1), COH_STORE, t));
	coh_destroy(m);
}

/* --lat-spread: each miss's latency drawn from 1 -+ PCT% of the table's,
 * the same for one seed and another for another (coh_protocol.c, spread) */
static void spread_costs(unsigned pct, uint64_t seed, uint64_t *cost, unsigned n)
{
	struct coh_model *m = model(PROTO_MESI);
	struct coh_result r;

	coh_set_lat_spread(m, pct, seed);
	home0_modified_at(m, 0);
	for (unsigned i = 0; i < n; i++) { /* the line between cores 0 and 2, M at one hop */
		r = access_at(m, i % 2 ? 0 : 2, line(0), COH_RMW, (uint64_t)i * 1000 * NS);
		cost[i] = r.done_ps - r.start_ps;
	}
	coh_destroy(m);
}

static void test_lat_spread(void **state)
{
	uint64_t a[64], b[64], c[64];
	unsigned differ = 0, low = 0;
	(void)state;

	spread_costs(0, 7, a, 64);
	for (unsigned i = 0; i < 64; i++)
		assert_int_equal(a[i], 230 * NS); /* lat.rmw.M[1], every time */
	spread_costs(20, 7, a, 64);
	spread_costs(20, 7, b, 64);
	spread_costs(20, 8, c, 64);
	for (unsigned i = 0; i < 64; i++) {
		assert_int_equal(a[i], b[i]);
		assert_true(a[i] >= 184 * NS && a[i] <= 276 * NS); /* 230 -+ 20% */
		differ += a[i] != c[i];
		low += a[i] < 230 * NS;
	}
	assert_true(differ > 60);
	assert_true(low > 16 && low < 48); /* about half below the table's */

	/* with the snoop's way, a window is a share of the miss as it is paid:
	 * never past the miss's end, however short the draw */
	for (uint64_t seed = 1; seed <= 32; seed++) {
		struct coh_model *m = model(PROTO_MESI);
		struct coh_result r;

		coh_set_lat_spread(m, 90, seed);
		coh_set_snoop_travel(m, 100);
		home0_modified_at(m, 0);
		r = access_at(m, 2, line(0), COH_RMW, 1000 * NS);
		assert_false(coh_would_hit(m, 0, line(0), COH_LOAD, r.done_ps));
		assert_true(coh_would_hit(m, 0, line(0), COH_LOAD, r.done_ps - 1));
		coh_destroy(m);
	}
}

static void test_ranges_against_a_map(void **state)
{
	struct coh_model *m = model(PROTO_MESI);
	struct byte_home *map = calloc(WIN_BYTES, sizeof(*map));
	uint64_t x = 12345;
	(void)state;

	assert_non_null(map);
	for (unsigned step = 0; step < 3000; step++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		unsigned op = (unsigned)(x >> 60) % 3, node = (unsigned)(x >> 40) % 4;
		unsigned tag = (unsigned)(x >> 36) % COH_NTAGS;
		bool aligned = (x >> 35) & 1; /* as ll_alloc_on's whole lines, or any bytes */
		unsigned lo = (unsigned)(x >> 20) % WIN_BYTES, len = 1 + (unsigned)(x >> 8) % 2048;

		if (aligned) {
			lo &= ~(unsigned)(COH_LINE_SIZE - 1);
			len = (len + COH_LINE_SIZE - 1) & ~(unsigned)(COH_LINE_SIZE - 1);
		}
		if (lo + len > WIN_BYTES)
			len = WIN_BYTES - lo;
		if (op == 0)
			coh_set_home(m, line(0) + lo, len, node, (enum coh_tag)tag);
		else if (op == 1)
			coh_set_tag(m, line(0) + lo, len, (enum coh_tag)tag);
		else
			coh_forget(m, line(0) + lo, len);
		map_apply(map, op, lo, lo + len, node, tag);
		map_check(m, map, step);
	}
	free(map);
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
		cmocka_unit_test(test_ranges_against_a_map),
		cmocka_unit_test(test_snoop_travel),
		cmocka_unit_test(test_lat_spread),
	};
	(void)argc;
	(void)argv;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
