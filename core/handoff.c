/*
 * core/handoff.c - the handoffs a thread received, counted by giver.
 *
 * An open-addressing map (linear probing, kept at most half full) from the
 * giver's tid to a count: a thread stores only the givers it has seen, so
 * a run's handoff record grows with the pairs that happened.
 */
#include <stdlib.h>

#include <locklab/workload.h>

#define HANDOFF_MIN_CAP 8u

static unsigned slot_of(unsigned key, unsigned cap)
{
	return (key * 0x9e3779b1u) & (cap - 1);
}

static struct wl_handoff_pair *find_slot(struct wl_handoff_pair *slot, unsigned cap, unsigned key)
{
	unsigned i = slot_of(key, cap);

	while (slot[i].from && slot[i].from != key)
		i = (i + 1) & (cap - 1);
	return &slot[i];
}

static int grow(struct wl_handoff_map *m)
{
	unsigned cap = m->cap ? 2 * m->cap : HANDOFF_MIN_CAP;
	struct wl_handoff_pair *slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -1;
	for (unsigned i = 0; i < m->cap; i++)
		if (m->slot[i].from)
			*find_slot(slot, cap, m->slot[i].from) = m->slot[i];
	free(m->slot);
	m->slot = slot;
	m->cap = cap;
	return 0;
}

int wl_handoff_add(struct wl_handoff_map *m, unsigned from, bool local)
{
	unsigned key = from + 1;
	struct wl_handoff_pair *p;

	if (2 * (m->used + 1) > m->cap && grow(m))
		return -1;
	p = find_slot(m->slot, m->cap, key);
	if (!p->from) {
		p->from = key;
		m->used++;
	}
	p->n++;
	p->local += local;
	return 0;
}

void wl_handoff_free(struct wl_handoff_map *m)
{
	free(m->slot);
	m->slot = NULL;
	m->cap = m->used = 0;
}
