/*
 * sim/report/draw_ids.c - graphs whose files are the same from run to run.
 *
 * cgraph gives a named object the address of its interned name for an ID
 * (AgIdDisc), and keeps a graph's subgraphs in the order of their IDs: the
 * clusters of a graph, and with them the layout dot makes of it, came out
 * in an order that moved with the heap (the length of the --graphs path was
 * enough to move it).  The discipline here numbers names in the order they
 * are first seen instead (even IDs, as cgraph's named ones are; anonymous
 * objects keep odd ones from a counter), so a graph built in the same order
 * is written and laid out the same.
 */
#include <stdlib.h>
#include <string.h>

#include "draw.h"

struct names {
	Agraph_t *g;
	char **name; /* name[k] has ID 2 (k + 1), interned in g (agstrdup) */
	size_t n, cap;
	IDTYPE anon; /* the next anonymous ID (odd) */
};

static void *ids_open(Agraph_t *g, Agdisc_t *disc)
{
	struct names *s = calloc(1, sizeof(*s));

	(void)disc;
	if (s) {
		s->g = g;
		s->anon = 1;
	}
	return s;
}

static long ids_name(struct names *s, const char *str, IDTYPE *id, int create)
{
	char *copy;

	for (size_t k = 0; k < s->n; k++)
		if (!strcmp(s->name[k], str)) {
			*id = 2 * (IDTYPE)(k + 1);
			return 1;
		}
	if (!create)
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		char **grown = realloc(s->name, cap * sizeof(*grown));

		if (!grown)
			return 0;
		s->name = grown;
		s->cap = cap;
	}
	copy = agstrdup(s->g, (char *)str); /* interned: aghtmlstr reads its header */
	if (!copy)
		return 0;
	s->name[s->n++] = copy;
	*id = 2 * (IDTYPE)s->n;
	return 1;
}

static long ids_map(void *state, int objtype, char *str, IDTYPE *id, int create)
{
	struct names *s = state;

	(void)objtype;
	if (!s)
		return 0;
	if (str)
		return ids_name(s, str, id, create);
	*id = s->anon;
	s->anon += 2;
	return 1;
}

/* An ID asked for by the caller (agidnode): none is handed out. */
static long ids_alloc(void *state, int objtype, IDTYPE id)
{
	(void)state;
	(void)objtype;
	(void)id;
	return 0;
}

/* Names live as long as the graph (its string dictionary frees them): a
 * deleted object's name may come back. */
static void ids_free(void *state, int objtype, IDTYPE id)
{
	(void)state;
	(void)objtype;
	(void)id;
}

static char *ids_print(void *state, int objtype, IDTYPE id)
{
	struct names *s = state;

	(void)objtype;
	if (!s || id % 2 || id == 0 || id / 2 > s->n)
		return NULL;
	return s->name[id / 2 - 1];
}

static void ids_close(void *state)
{
	struct names *s = state;

	if (!s)
		return;
	free(s->name);
	free(s);
}

static void ids_register(void *state, int objtype, void *obj)
{
	(void)state;
	(void)objtype;
	(void)obj;
}

static Agiddisc_t ordered_ids = {
	ids_open, ids_map, ids_alloc, ids_free, ids_print, ids_close, ids_register,
};

static Agdisc_t ordered_disc = { &AgMemDisc, &ordered_ids, &AgIoDisc };

Agraph_t *draw_open(const char *name, Agdesc_t kind)
{
	return agopen((char *)name, kind, &ordered_disc);
}
