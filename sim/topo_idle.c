/*
 * sim/topo_idle.c - the root zone's `idle.states` property: the idle states
 * a hardware thread may enter while its thread sleeps, as the machine's
 * cpuidle driver lists them (topologies/README.md, "Idle states"):
 *
 *   <prop id="idle.states" value="C1 2 2, C1E 10 20, C3 80 211, C6 104 345"/>
 *
 * one item a state, shallowest first: its name, its exit latency and its
 * target residency in microseconds (the units of Linux's intel_idle
 * tables).  Deeper states may not leave or pay off sooner than shallower
 * ones, and no state pays off in less time than it takes to leave.
 */
#include "topo_internal.h" /* topology.h: SIM_IDLE_MAX_US (core/park_costs.h) */

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The next word of *p (up to a space or a comma): its length, *p moved
 * past it and the spaces after it. */
static size_t word(const char **p, const char **start)
{
	size_t n = 0;

	*start = *p;
	while ((*p)[n] && (*p)[n] != ',' && !isspace((unsigned char)(*p)[n]))
		n++;
	*p += n;
	while (isspace((unsigned char)**p))
		(*p)++;
	return n;
}

static bool name_ok(const char *s, size_t n)
{
	if (!n || n >= sizeof(((struct topo_idle_state *)0)->name))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_')
			return false;
	return true;
}

/* One number of item k: 0, or -1 with the error set. */
static int micros(struct topo_ctx *x, unsigned k, const char *what, const char *s, size_t n,
		  uint64_t *ps)
{
	char buf[32];
	double us;

	char where[48];

	if (!n || n >= sizeof(buf))
		return topo_fail(x, "idle.states: state %u: no %s", k + 1, what);
	memcpy(buf, s, n);
	buf[n] = 0;
	snprintf(where, sizeof(where), "idle.states: state %u: %s", k + 1, what);
	if (topo_decimal(x, where, buf, &us))
		return -1;
	if (!(us >= 0 && us <= SIM_IDLE_MAX_US))
		return topo_fail(x, "idle.states: state %u: %s %s is not in 0..%.0f us", k + 1, what,
				 buf, SIM_IDLE_MAX_US);
	*ps = (uint64_t)(us * 1e6 + 0.5);
	return 0;
}

/* Item k at *p: NAME EXIT_US RESIDENCY_US. */
static int read_state(struct topo_ctx *x, unsigned k, const char **p, struct topo_idle_state *st)
{
	const char *s;
	size_t n;

	while (isspace((unsigned char)**p))
		(*p)++;
	n = word(p, &s);
	if (!name_ok(s, n))
		return topo_fail(x, "idle.states: state %u: '%.*s' is not a name (letters, digits, "
				 "- and _, at most 15)", k + 1, (int)(n < 20 ? n : 20), s);
	memcpy(st->name, s, n);
	st->name[n] = 0;
	n = word(p, &s);
	if (micros(x, k, "exit latency", s, n, &st->exit_ps))
		return -1;
	n = word(p, &s);
	if (micros(x, k, "target residency", s, n, &st->residency_ps))
		return -1;
	if (**p && **p != ',')
		return topo_fail(x, "idle.states: state %u (%s): more than NAME EXIT_US RESIDENCY_US",
				 k + 1, st->name);
	return 0;
}

static int check_order(struct topo_ctx *x, const struct topo *t)
{
	for (unsigned k = 0; k < t->nidle; k++) {
		const struct topo_idle_state *st = &t->idle[k], *prev = k ? &t->idle[k - 1] : NULL;

		if (st->residency_ps < st->exit_ps)
			return topo_fail(x, "idle.states: %s pays off sooner than it can be left "
					 "(target residency below exit latency)", st->name);
		if (prev && (st->exit_ps < prev->exit_ps || st->residency_ps < prev->residency_ps))
			return topo_fail(x, "idle.states: %s is listed after %s but is shallower (a "
					 "smaller exit latency or target residency): list the states "
					 "shallowest first", st->name, prev->name);
		for (unsigned j = 0; j < k; j++)
			if (!strcmp(t->idle[j].name, st->name))
				return topo_fail(x, "idle.states: %s is listed twice", st->name);
	}
	return 0;
}

int topo_read_idle(struct topo_ctx *x, struct topo *t)
{
	const char *p = topo_desc_prop(x->desc, "idle.states");

	t->nidle = 0;
	if (!p)
		return 0;
	if (!p[strspn(p, " \t\n")])
		return topo_fail(x, "idle.states: empty (a machine without idle states has no "
				 "such property)");
	for (;;) {
		if (t->nidle == TOPO_MAX_IDLE)
			return topo_fail(x, "idle.states: more than %d states", TOPO_MAX_IDLE);
		if (read_state(x, t->nidle, &p, &t->idle[t->nidle]))
			return -1;
		t->nidle++;
		if (!*p)
			break;
		p++; /* the comma */
	}
	return check_order(x, t);
}
