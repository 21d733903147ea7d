/*
 * sim/coh_home.c - the home agents and the probes of the coherence model.
 *
 * Each node (socket) has one home agent.  A miss that its own socket
 * cannot settle (coh_held_in_socket) goes through the line's home, and
 * the home agent serves the requests for all the lines homed on its node
 * one after another in arrival order, each occupying it for home_occ ps
 * (the topology's `home.occupancy`).  Requests reach it in simulated-time
 * order; a request admitted late (socket-first) and a probe, which takes
 * its turn ahead of time, make that order an approximation.  A miss
 * starts when both its line is free and the agent has served it: only the
 * part of the agent's queue that outlasts the line's is added
 * (coh_result.home_wait_ps), so an idle machine still costs exactly the
 * table.  Misses settled inside a socket never reach the home.
 *
 * Probes: a home that does not know every copy (the topology's
 * `directory`) probes every socket.  Under `broadcast` every miss through
 * the home does; under `probe-filter` (AMD HT Assist) only a store or
 * atomic through the home that must destroy copies it does not track: a
 * shared line with more than one other copy.  Each probe goes from the home to a socket
 * (a control message), occupies that node's agent (the home's own agent
 * has the request already), and the socket answers the requester (a control
 * message); the miss completes when the last answer is in, so their waits
 * for links and agents add the worst one.  The socket the data or
 * ownership comes from already has the request, and the requester's socket
 * missed: neither is probed.
 *
 * Either mechanism is switched off by coh_set_home_agents() or
 * coh_set_probes(); off, the model is as without it.
 */
#include "coh_internal.h"

#include <stdlib.h>

void coh_home_init(struct coh_model *m)
{
	m->agent_free = coh_xcalloc(m->t->nsockets, sizeof(uint64_t));
	m->home_occ = m->t->home_occ_ps;
	m->directory = m->t->directory;
	m->snoop_pct = m->t->snoop_pct;
	m->spread_pct = m->t->spread_pct;
}

void coh_home_free(struct coh_model *m)
{
	free(m->agent_free);
}

void coh_set_home_agents(struct coh_model *m, bool on)
{
	m->home_occ = on ? m->t->home_occ_ps : 0;
}

void coh_set_probes(struct coh_model *m, bool on)
{
	m->directory = on ? m->t->directory : DIR_FULL;
}

void coh_set_lat_spread(struct coh_model *m, unsigned pct, uint64_t seed)
{
	m->spread_pct = pct;
	m->spread_seed = seed;
}

void coh_set_snoop_travel(struct coh_model *m, unsigned pct)
{
	m->snoop_pct = pct;
}

/* A request reaches socket s's agent at t: it is served in turn, after
 * those that came before it.  Returns its wait. */
static uint64_t agent_take(struct coh_model *m, unsigned s, uint64_t t)
{
	uint64_t w = m->agent_free[s] > t ? m->agent_free[s] - t : 0;

	m->agent_free[s] = t + w + m->home_occ;
	return w;
}

/* Does a miss by a core of socket sc go through the line's home? */
static bool through_home(const struct coh_model *m, const struct line *l, unsigned sc,
			 enum coh_op op)
{
	return !coh_held_in_socket(m, l, sc, op);
}

/*
 * The current miss (m->req) by a core of socket sc arrives at the home at
 * t: returns how long it waits there before the agent has served it (0
 * when it does not go through the home, or home agents are off).
 */
uint64_t coh_home_queue(struct coh_model *m, const struct line *l, unsigned sc,
			enum coh_op op, uint64_t t)
{
	uint64_t w;

	if (!m->home_occ || !through_home(m, l, sc, op))
		return 0;
	w = agent_take(m, l->home, t);
	m->c.home_requests++;
	return w;
}

/* Must this miss probe every socket (ninval: the copies it destroys)? */
bool coh_probes_broadcast(const struct coh_model *m, const struct line *l, unsigned sc,
			  enum coh_op op, unsigned ninval)
{
	switch (m->directory) {
	case DIR_BROADCAST:
		return through_home(m, l, sc, op);
	case DIR_PROBE_FILTER:
		return op != COH_LOAD && l->state == L_S && ninval > 1 &&
		       through_home(m, l, sc, op);
	default:
		return false;
	}
}

/*
 * Probe every socket but sc and skip from home, leaving at t0 (see the
 * top).  Returns the longest time one probe and its answer waited for links
 * and agents.
 */
uint64_t coh_probe_all(struct coh_model *m, unsigned home, unsigned sc, unsigned skip,
		       uint64_t t0)
{
	uint64_t worst = 0;

	for (unsigned s = 0; s < m->t->nsockets; s++) {
		uint64_t w, wa, arrive;

		if (s == sc || s == skip)
			continue;
		w = coh_msg_send(m, home, s, false, t0, &arrive);
		wa = s == home || !m->home_occ ? 0 : agent_take(m, s, arrive);
		w += wa + coh_msg_send(m, s, sc, false, arrive + wa, NULL);
		m->c.probes++;
		if (w > worst)
			worst = w;
	}
	return worst;
}
