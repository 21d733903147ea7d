/*
 * sim/coherence.c - the coherence model as a whole (coherence.h): making
 * and freeing it, and what tests and tools see of it and set in it: a
 * line's directory entry, a forced state, the counters.  Its parts: the
 * line table (coh_lines.c), the address ranges (coh_ranges.c), the socket
 * links (coh_links.c), the protocol (coh_protocol.c), arbitration
 * (coh_arbitration.c), and the home agents and probes (coh_home.c).
 */
#include "coh_internal.h"

#include <stdlib.h>

struct coh_model *coh_create(const struct topo *t)
{
	struct coh_model *m = coh_xcalloc(1, sizeof(*m));

	m->t = t;
	m->words = (t->ncores + 63) / 64;
	if (m->words == 0)
		m->words = 1;
	m->line_bytes = sizeof(struct line) + m->words * sizeof(uint64_t);
	m->line_bytes = (m->line_bytes + 7) & ~(size_t)7;
	coh_lines_init(m);
	coh_links_init(m);
	coh_home_init(m);
	return m;
}

void coh_destroy(struct coh_model *m)
{
	if (!m)
		return;
	coh_lines_free(m);
	coh_links_free(m);
	coh_home_free(m);
	free(m);
}

void coh_force_state(struct coh_model *m, uintptr_t addr, enum topo_state st,
		     const unsigned *cores, unsigned ncores)
{
	struct line *l = coh_line_get(m, addr);

	line_invalidate_all(m, l);
	l->holder = NO_SOCKET;
	if (ncores == 0 || st == TOPO_I)
		return;
	l->holder = (uint16_t)socket_of(m, cores[0]);
	switch (st) {
	case TOPO_M:
	case TOPO_E:
		l->state = st == TOPO_M ? L_M : L_E;
		l->owner = (int32_t)phys_core(m, cores[0]);
		break;
	case TOPO_S:
		l->state = L_S;
		for (unsigned i = 0; i < ncores; i++)
			sharer_add(m, l, phys_core(m, cores[i]));
		break;
	default:
		break;
	}
}

bool coh_line_busy_after(const struct coh_model *m, uintptr_t addr, uint64_t t)
{
	const struct line *l = coh_line_lookup(m, addr);

	return l && (l->nwait || l->busy_until > t);
}

void coh_line_view(const struct coh_model *m, uintptr_t addr, struct coh_line_view *v)
{
	const struct line *l = coh_line_lookup(m, addr);
	static const char letters[] = { 'I', 'S', 'E', 'M' };

	memset(v, 0, sizeof(*v));
	v->owner = -1;
	v->forwarder = -1;
	v->holder = -1;
	v->state = TOPO_I;
	v->letter = 'I';
	if (!l) {
		coh_addr_home_tag(m, addr, &v->home, &v->tag);
		return;
	}
	v->state = coh_seen_state(l);
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
