/*
 * sim/coh_arbitration.c - when a request to a contended line is admitted
 * and served: at once on arrival (fifo), or, under socket-first, after the
 * socket that holds the line (the socket of the latest admitted miss: its
 * caching agent) has served its own cores.  A request that is not admitted
 * waits on the line's list; its state advances when it is admitted, its
 * start is no earlier than that, and its queue_ps counts from its arrival.
 * The caller, which sleeps the requester, asks coh_admit_next() after every
 * admission and every completion on the line.
 *
 * For a miss by core c of socket s arriving at t (h: the holder socket,
 * run: grants made ahead of the waiting requests, bound: max_local_run;
 * s settles it: s holds the line as the request needs, coh_held_in_socket):
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
 */
#include "coh_internal.h"

#include <stdlib.h>

/* A granted miss by socket sc: it holds the line now.  Count the grants
 * made ahead of waiting requests since the oldest began to wait (a waiter's
 * own grant starts the count again). */
static void note_grant(struct line *l, unsigned sc, bool waiter)
{
	l->holder = (uint16_t)sc;		/* h = s */
	if (waiter)
		l->local_run = 0;		/* a waiter admitted: run = 0 */
	else if (l->nwait)
		l->local_run++;			/* ahead of the waiting: run++ */
}

/* Admit a request that arrived at `arrival` (travel `paid`), at `admitted`;
 * waiter: it comes off the line's waiting list. */
static void admit(struct coh_model *m, struct line *l, unsigned core, enum coh_op op,
		  uint64_t arrival, uint64_t paid, uint64_t admitted, bool waiter,
		  struct coh_result *r)
{
	coh_serve(m, l, core, op, arrival, paid, admitted, r);
	if (!r->hit)
		note_grant(l, socket_of(m, core), waiter);
}

void coh_access_arrived(struct coh_model *m, unsigned core, uintptr_t addr, enum coh_op op,
			uint64_t arrival_ps, uint64_t travel_paid_ps, struct coh_result *r)
{
	core = phys_core(m, core);
	admit(m, coh_line_get(m, addr), core, op, arrival_ps, travel_paid_ps, arrival_ps, false, r);
}

void coh_access(struct coh_model *m, unsigned core, uintptr_t addr, enum coh_op op,
		uint64_t now_ps, struct coh_result *r)
{
	coh_access_arrived(m, core, addr, op, now_ps, 0, r);
}

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

	return l->holder == sc || coh_held_in_socket(m, l, sc, op);
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

	if (m->t->arbitration != ARB_SOCKET_FIRST || coh_holds(m, l, core, op))
		return true;
	if (!l->nwait)
		return !busy || from_holder(m, l, core, op);
	return busy && from_holder(m, l, core, op) && !bound_reached(m, l);
}

bool coh_would_admit(const struct coh_model *m, unsigned core, uintptr_t addr, enum coh_op op,
		     uint64_t arrival_ps)
{
	const struct line *l = coh_line_lookup(m, addr);

	return !l || admit_now(m, l, phys_core(m, core), op, arrival_ps); /* no line: idle */
}

/* Make room for one more waiter: double the ring, its oldest first. */
static void wait_grow(struct line *l)
{
	uint32_t cap = l->wait_cap ? 2 * l->wait_cap : 8;
	struct waiting *w = coh_xcalloc(cap, sizeof(*w));

	for (uint32_t i = 0; i < l->nwait; i++)
		w[i] = l->wait[(l->wait_head + i) & (l->wait_cap - 1)];
	free(l->wait);
	l->wait = w;
	l->wait_cap = cap;
	l->wait_head = 0;
}

/* Put a request on the line's waiting list; the first waiter starts the
 * count of grants made ahead of it. */
static void defer(struct line *l, unsigned core, enum coh_op op, uint64_t arrival,
		  uint64_t paid, void *cookie)
{
	if (l->nwait == l->wait_cap)
		wait_grow(l);
	if (!l->nwait)
		l->local_run = 0;		/* the first to wait: run = 0 */
	l->wait[(l->wait_head + l->nwait++) & (l->wait_cap - 1)] = (struct waiting){
		.cookie = cookie, .arrival = arrival, .paid = paid, .core = core, .op = (uint8_t)op,
	};
}

/* Take the oldest waiter off the line's list. */
static struct waiting wait_pop(struct line *l)
{
	struct waiting w = l->wait[l->wait_head];

	l->wait_head = (l->wait_head + 1) & (l->wait_cap - 1);
	l->nwait--;
	return w;
}

/* A thread's write miss admitted: in flight until it says it performed it. */
static void count_write(struct line *l, enum coh_op op, const struct coh_result *r)
{
	if (op != COH_LOAD && !r->hit)
		l->writes_in_flight++;
}

void coh_write_performed(struct coh_model *m, uintptr_t addr)
{
	struct line *l = coh_line_lookup(m, addr);

	if (l && l->writes_in_flight)
		l->writes_in_flight--;
}

bool coh_request(struct coh_model *m, unsigned core, uintptr_t addr, enum coh_op op,
		 uint64_t arrival_ps, uint64_t travel_paid_ps, void *cookie, struct coh_result *r)
{
	struct line *l = coh_line_get(m, addr);

	core = phys_core(m, core);
	if (admit_now(m, l, core, op, arrival_ps)) {
		admit(m, l, core, op, arrival_ps, travel_paid_ps, arrival_ps, false, r);
		count_write(l, op, r);
		return true;
	}
	defer(l, core, op, arrival_ps, travel_paid_ps, cookie);
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
	struct line *l = coh_line_lookup(m, addr);
	struct waiting w;

	if (!l || !l->nwait || !waiter_due(m, l, now_ps))
		return NULL;
	w = wait_pop(l);
	m->c.deferred++;
	m->c.deferred_ps += now_ps - w.arrival;
	admit(m, l, w.core, (enum coh_op)w.op, w.arrival, w.paid, now_ps, true, r);
	count_write(l, (enum coh_op)w.op, r);
	return w.cookie;
}

unsigned coh_waiting(const struct coh_model *m, uintptr_t addr)
{
	const struct line *l = coh_line_lookup(m, addr);

	return l ? l->nwait : 0;
}

void coh_note_unattended(struct coh_model *m, uintptr_t addr, uint64_t done_ps)
{
	struct line *l = coh_line_get(m, addr);

	if (done_ps > l->unattended_until)
		l->unattended_until = done_ps;
}

uint64_t coh_unattended_end(const struct coh_model *m, uintptr_t addr)
{
	const struct line *l = coh_line_lookup(m, addr);

	return l ? l->unattended_until : 0;
}
