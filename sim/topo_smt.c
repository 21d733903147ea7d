/*
 * sim/topo_smt.c - hardware threads of the root zone's `smt` property: which
 * cores of a socket are siblings of one physical core (sim/topology.h), and
 * `smt.issue_share`, the part of a core each sibling gets while both run
 * local work (topologies/README.md, "SMT").
 */
#include "topo_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* The least share a file may give: below it a delay's stretch (1 / share)
 * leaves the range of simulated time a run can hold. */
#define SMT_SHARE_MIN 0.01

static int read_smt_number(struct topo_ctx *x, const char *key, double *out)
{
	const char *v = topo_desc_prop(x->desc, key);

	if (!v)
		return 0;
	return topo_decimal(x, key, v, out);
}

/* Socket k's hardware threads [first, first + n): thread j is on physical
 * core j % (n / smt). */
static void map_socket(struct topo *t, unsigned first, unsigned n)
{
	unsigned p = n / t->smt;

	for (unsigned j = 0; j < n; j++)
		t->core_phys[first + j] = first + j % p;
}

int topo_read_smt(struct topo_ctx *x, struct topo *t)
{
	double n = 1, share = 1;
	unsigned first = 0;

	if (read_smt_number(x, "smt", &n) || read_smt_number(x, "smt.issue_share", &share))
		return -1;
	if (n < 1 || n > TOPO_MAX_SMT || n != (unsigned)n)
		return topo_fail(x, "smt must be a whole number in 1..%d", TOPO_MAX_SMT);
	if (!(share >= SMT_SHARE_MIN && share <= 1))
		return topo_fail(x, "smt.issue_share must be in [%g, 1]: a sibling's work stretched "
				 "by at most %g times", SMT_SHARE_MIN, 1 / SMT_SHARE_MIN);
	if (share != 1 && n == 1)
		return topo_fail(x, "smt.issue_share %g without smt: a core of one hardware thread "
				 "shares nothing", share);
	t->smt = (unsigned)n;
	t->smt_issue_share = share;
	if (t->smt == 1)
		return 0;
	t->core_phys = topo_calloc(t->ncores, sizeof(*t->core_phys));
	for (unsigned s = 0; s < t->nsockets; s++) {
		unsigned k = 0;

		while (first + k < t->ncores && t->core_socket[first + k] == s)
			k++;
		if (k % t->smt)
			return topo_fail(x, "smt %u: socket %u has %u hardware threads, not a multiple",
					 t->smt, s, k);
		map_socket(t, first, k);
		first += k;
	}
	return 0;
}

unsigned topo_siblings(const struct topo *t, unsigned c, unsigned *sib)
{
	unsigned r, n = 0;

	if (!t->core_phys)
		return 0;
	r = t->core_phys[c];
	for (unsigned o = r; o < t->ncores && t->core_socket[o] == t->core_socket[c]; o++)
		if (o != c && t->core_phys[o] == r)
			sib[n++] = o;
	return n;
}

void topo_smt_off(struct topo *t)
{
	free(t->core_phys);
	t->core_phys = NULL;
}

const char *topo_cpus_text(const struct topo *t, unsigned n, char *buf, size_t len)
{
	if (t->smt > 1)
		snprintf(buf, len, "%u hardware threads (%u cores x %u)", n, n / t->smt, t->smt);
	else
		snprintf(buf, len, "%u cores", n);
	return buf;
}
