/*
 * tests/sim_coh_arrival.c - requests that travel to the line's home before
 * they are served (coh_request_travel_ps, coh_access_arrived), and the
 * machine's arbitration among them (fifo, socket-first with its bound, the
 * home agent's queue, probes), on the hand-built ring of tests/coh_ring.h.
 */
#include "coh_ring.h"

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
