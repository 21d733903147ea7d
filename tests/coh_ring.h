/*
 * tests/coh_ring.h - the hand-built machine of the coherence model's tests
 * (tests/sim_coherence.c, tests/sim_coh_arrival.c): no XML, every latency
 * hand-computed from the tables below.
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
#ifndef TESTS_COH_RING_H
#define TESTS_COH_RING_H

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

static inline void add_link(unsigned i, const char *name, unsigned a, unsigned b)
{
	strcpy(links[i].name, name);
	links[i].a = a;
	links[i].b = b;
	links[i].lat_ps = LINK_LAT;
	links[i].bw_bytes_per_s = 8e9;
}

static inline void add_route(unsigned *used, unsigned a, unsigned b, const unsigned *hops, unsigned n)
{
	route_off[a * 4 + b] = *used;
	route_len[a * 4 + b] = n;
	memcpy(&route_links[*used], hops, n * sizeof(unsigned));
	*used += n;
}

static inline void build_ring(enum topo_protocol proto)
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
static inline uintptr_t line(unsigned i)
{
	return (uintptr_t)0x100000 + (uintptr_t)i * COH_LINE_SIZE;
}

/* line(0) homed on socket 0, modified at core. */
static inline void home0_modified_at(struct coh_model *m, unsigned core)
{
	coh_set_home(m, line(0), COH_LINE_SIZE, 0, COH_TAG_LOCK);
	coh_force_state(m, line(0), TOPO_M, &core, 1);
}

static inline struct coh_model *model(enum topo_protocol proto)
{
	build_ring(proto);
	return coh_create(&T);
}

static inline struct coh_result access_at(struct coh_model *m, unsigned core, uintptr_t a,
					  enum coh_op op, uint64_t now)
{
	struct coh_result r;

	coh_access(m, core, a, op, now, &r);
	return r;
}

#endif
