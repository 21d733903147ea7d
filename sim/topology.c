/*
 * sim/topology.c - builds struct topo from a machine file (see
 * topologies/README.md) and gives SimGrid the cores it runs actors on.
 *
 * The file is read once, by sim/topo_xml.c, which checks all of it.  Here:
 *
 *  - sockets are the root zone's socket zones in file order; cores are their
 *    hosts, socket by socket, in natural name order (s0c2 before s0c10);
 *  - the route between two sockets is the <zoneRoute> that joins them
 *    (routing Full, reversed for the way back unless symmetrical="NO"), or
 *    the shortest chain of them (Floyd: fewest links, as SimGrid's Floyd
 *    zone picks it);
 *  - distance classes: 0 within a socket, then one per distinct route
 *    latency (the sum of its socket links), in increasing order;
 *  - the costs: sim/topo_costs.c.
 *
 * The coherence model does its own timing from struct topo; SimGrid only
 * needs the hosts, so it is given a platform of those alone, written here
 * from names already checked, and never sees the file itself.
 */
#include "topo_internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <simgrid/engine.h>

int topo_fail(struct topo_ctx *x, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (x->err && x->errlen)
		snprintf(x->err, x->errlen, "%s: %s", x->path, msg);
	return -1;
}

void *topo_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		abort();
	return p;
}

/* Copy s into d[n], cutting it short if it does not fit. */
void topo_strcpy(char *d, size_t n, const char *s)
{
	size_t l = strnlen(s, n - 1);

	memcpy(d, s, l);
	d[l] = 0;
}

/* Natural order: digit runs compare as numbers ("c2" < "c10"). */
int topo_natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			size_t la = strspn(a, "0123456789"), lb = strspn(b, "0123456789");
			if (la != lb)
				return la < lb ? -1 : 1;
			int c = strncmp(a, b, la);
			if (c)
				return c;
			a += la;
			b += lb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

static int host_cmp(const void *a, const void *b)
{
	int c = topo_natural_cmp((const char *)a, (const char *)b);

	return c ? c : strcmp((const char *)a, (const char *)b);
}

/* ================================================================ sockets, links */

static void build_sockets(struct topo *t, const struct topo_desc *d)
{
	unsigned nc = 0;

	t->nsockets = d->nsockets;
	t->socket_name = topo_calloc(d->nsockets, sizeof(*t->socket_name));
	t->core_host = topo_calloc(d->nhosts, sizeof(*t->core_host));
	for (unsigned k = 0; k < d->nsockets; k++) {
		const struct topo_dsocket *s = &d->sockets[k];

		topo_strcpy(t->socket_name[k], TOPO_NAME_LEN, s->id);
		for (unsigned i = 0; i < s->nhosts; i++) {
			topo_strcpy(t->core_host[nc + i], TOPO_NAME_LEN, d->hosts[s->first_host + i]);
			t->core_socket[nc + i] = k;
		}
		qsort(t->core_host[nc], s->nhosts, sizeof(*t->core_host), host_cmp);
		nc += s->nhosts;
	}
	t->ncores = nc;
}

static void build_links(struct topo *t, const struct topo_desc *d)
{
	t->nlinks = d->nlinks;
	t->links = topo_calloc(d->nlinks, sizeof(*t->links));
	for (unsigned i = 0; i < d->nlinks; i++) {
		struct topo_link *l = &t->links[i];

		topo_strcpy(l->name, sizeof(l->name), d->links[i].id);
		l->lat_ps = (uint64_t)llround(d->links[i].lat_s * 1e12);
		l->bw_bytes_per_s = d->links[i].bw;
		l->a = l->b = UINT_MAX;
	}
}

/* ================================================================ routes */

/* A declared route, as seen from its source: d->routes[idx], reversed or not. */
struct hop {
	const struct topo_droute *r;
	bool reversed;
};

struct route_table {
	unsigned ns;
	struct hop *hop;         /* [a * ns + b]: the route declared from a to b */
	unsigned long *cost;     /* Floyd: links on the best chain */
	int *pred;               /* Floyd: the socket before b on it */
};

static int declare(struct topo_ctx *x, const struct topo_desc *d, struct route_table *rt, unsigned a,
		   unsigned b, const struct topo_droute *r, bool reversed)
{
	struct hop *h = &rt->hop[a * rt->ns + b];

	if (h->r)
		return topo_fail(x, "the route from %s to %s is given twice (routes are symmetrical unless symmetrical=\"NO\")",
				 d->sockets[a].id, d->sockets[b].id);
	h->r = r;
	h->reversed = reversed;
	rt->cost[a * rt->ns + b] = r->nlinks;
	rt->pred[a * rt->ns + b] = (int)a;
	return 0;
}

static int declare_all(struct topo_ctx *x, const struct topo_desc *d, struct route_table *rt)
{
	for (unsigned i = 0; i < d->nroutes; i++) {
		const struct topo_droute *r = &d->routes[i];

		if (declare(x, d, rt, r->src, r->dst, r, false) ||
		    (r->symmetrical && declare(x, d, rt, r->dst, r->src, r, true)))
			return -1;
	}
	return 0;
}

/* Floyd-Warshall over the sockets, in SimGrid's order and with its strict
 * comparison, so that ties go the same way. */
static void floyd(struct route_table *rt)
{
	unsigned ns = rt->ns;

	for (unsigned c = 0; c < ns; c++)
		for (unsigned a = 0; a < ns; a++)
			for (unsigned b = 0; b < ns; b++) {
				unsigned long ac = rt->cost[a * ns + c], cb = rt->cost[c * ns + b];
				unsigned long *ab = &rt->cost[a * ns + b];
				if (ac < ULONG_MAX && cb < ULONG_MAX && (*ab == ULONG_MAX || ac + cb < *ab)) {
					*ab = ac + cb;
					rt->pred[a * ns + b] = rt->pred[c * ns + b];
				}
			}
}

/* Append the links of one declared route to out[*n]. */
static int append_hop(struct topo_ctx *x, const struct hop *h, unsigned *out, unsigned *n, const char *from,
		      const char *to)
{
	for (unsigned k = 0; k < h->r->nlinks; k++) {
		unsigned i = h->reversed ? h->r->nlinks - 1 - k : k;
		if (*n == TOPO_MAX_ROUTE_LINKS)
			return topo_fail(x, "the route from %s to %s is longer than %d links", from, to,
					 TOPO_MAX_ROUTE_LINKS);
		out[(*n)++] = h->r->link[i];
	}
	return 0;
}

/* The socket links from a to b, in order. */
static int route_of(struct topo_ctx *x, const struct topo_desc *d, const struct route_table *rt, unsigned a,
		    unsigned b, unsigned *out, unsigned *n)
{
	const char *from = d->sockets[a].id, *to = d->sockets[b].id;
	unsigned ns = rt->ns, chain[TOPO_MAX_SOCKETS + 1], len = 0, cur = b;

	*n = 0;
	do {
		int p = rt->pred[a * ns + cur];
		if (p < 0)
			return topo_fail(x, "no route from %s to %s", from, to);
		if (len == ns)
			return topo_fail(x, "the route from %s to %s does not end", from, to);
		chain[len++] = cur;
		cur = (unsigned)p;
	} while (cur != a);
	chain[len] = a;
	for (unsigned k = len; k > 0; k--)
		if (append_hop(x, &rt->hop[chain[k] * ns + chain[k - 1]], out, n, from, to))
			return -1;
	if (*n == 0)
		return topo_fail(x, "the route from %s to %s crosses no socket link (declare socket links in the root zone)",
				 from, to);
	return 0;
}

static int fill_routes(struct topo_ctx *x, struct topo *t, const struct topo_desc *d, const struct route_table *rt)
{
	unsigned ns = t->nsockets, hop[TOPO_MAX_ROUTE_LINKS], n, total = 0;

	size_t cap = (size_t)ns * ns;

	t->route_off = topo_calloc((size_t)ns * ns, sizeof(unsigned));
	t->route_len = topo_calloc((size_t)ns * ns, sizeof(unsigned));
	t->route_links = topo_calloc(cap, sizeof(unsigned));
	for (unsigned a = 0; a < ns; a++) {
		for (unsigned b = 0; b < ns; b++) {
			t->route_off[a * ns + b] = total;
			if (a == b)
				continue;
			if (route_of(x, d, rt, a, b, hop, &n))
				return -1;
			if (total + n > cap) {
				cap = 2 * cap + n;
				t->route_links = realloc(t->route_links, cap * sizeof(unsigned));
				if (!t->route_links)
					abort();
			}
			memcpy(&t->route_links[total], hop, n * sizeof(unsigned));
			t->route_len[a * ns + b] = n;
			total += n;
		}
	}
	return 0;
}

static int build_routes(struct topo_ctx *x, struct topo *t, const struct topo_desc *d)
{
	unsigned ns = d->nsockets;
	struct route_table rt = { ns, topo_calloc((size_t)ns * ns, sizeof(struct hop)),
				  topo_calloc((size_t)ns * ns, sizeof(unsigned long)),
				  topo_calloc((size_t)ns * ns, sizeof(int)) };
	int rc;

	for (unsigned i = 0; i < ns * ns; i++) {
		rt.cost[i] = ULONG_MAX;
		rt.pred[i] = -1;
	}
	rc = declare_all(x, d, &rt);
	if (!rc && d->routing == ROUTING_FLOYD)
		floyd(&rt);
	if (!rc)
		rc = fill_routes(x, t, d, &rt);
	free(rt.hop);
	free(rt.cost);
	free(rt.pred);
	return rc;
}

/* Which sockets each link joins: single-link routes say it; longer routes
 * are walked from their source through links already placed. */
static int place_links(struct topo_ctx *x, struct topo *t)
{
	unsigned ns = t->nsockets;
	bool progress = true;

	while (progress) {
		progress = false;
		for (unsigned a = 0; a < ns; a++) {
			for (unsigned b = 0; b < ns; b++) {
				unsigned off = t->route_off[a * ns + b], len = t->route_len[a * ns + b];
				unsigned cur = a;
				for (unsigned k = 0; k < len; k++) {
					struct topo_link *l = &t->links[t->route_links[off + k]];
					if (l->a == UINT_MAX && k + 1 == len) {
						l->a = cur;
						l->b = b;
						progress = true;
					}
					if (l->a == UINT_MAX)
						break;
					if (l->a != cur && l->b != cur)
						return topo_fail(x, "the route from %s to %s is not a chain: link %s does not touch %s",
							    t->socket_name[a], t->socket_name[b], l->name,
							    t->socket_name[cur]);
					cur = l->a == cur ? l->b : l->a;
				}
			}
		}
	}
	for (unsigned i = 0; i < t->nlinks; i++)
		if (t->links[i].a == UINT_MAX)
			return topo_fail(x, "link %s: no route between sockets uses it where its ends can be told",
				    t->links[i].name);
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int make_classes(struct topo_ctx *x, struct topo *t)
{
	unsigned ns = t->nsockets, nd = 0;
	uint64_t *lat = topo_calloc((size_t)ns * ns, sizeof(uint64_t)), distinct[TOPO_MAX_CLASSES];

	for (unsigned i = 0; i < ns * ns; i++)
		for (unsigned k = 0; k < t->route_len[i]; k++)
			lat[i] += t->links[t->route_links[t->route_off[i] + k]].lat_ps;
	t->socket_class = topo_calloc((size_t)ns * ns, 1);
	for (unsigned a = 0; a < ns; a++) {
		for (unsigned b = 0; b < ns; b++) {
			uint64_t l = lat[a * ns + b];
			bool seen = false;
			if (a == b)
				continue;
			for (unsigned k = 0; k < nd; k++)
				seen |= distinct[k] == l;
			if (seen)
				continue;
			if (nd + 1 >= TOPO_MAX_CLASSES) {
				free(lat);
				return topo_fail(x, "the routes between sockets have more than %d distinct latencies",
					    TOPO_MAX_CLASSES - 1);
			}
			distinct[nd++] = l;
		}
	}
	qsort(distinct, nd, sizeof(uint64_t), u64_cmp);
	t->nclasses = nd + 1;
	t->class_lat_ps[0] = 0;
	for (unsigned k = 0; k < nd; k++)
		t->class_lat_ps[k + 1] = distinct[k];
	for (unsigned i = 0; i < ns * ns; i++)
		for (unsigned k = 0; k < nd && i / ns != i % ns; k++)
			if (distinct[k] == lat[i])
				t->socket_class[i] = (unsigned char)(k + 1);
	free(lat);
	return 0;
}

static int check_class_zero(struct topo_ctx *x, struct topo *t)
{
	if (t->nclasses > 1 && t->class_lat_ps[1] == 0)
		return topo_fail(x, "a route between sockets has zero latency: give the socket links a latency");
	return 0;
}

/* ================================================================ SimGrid */

/* SimGrid's platform: the cores as hosts of one zone, nothing else: no
 * routes either (routing None; a Full zone keeps a slot per pair of cores,
 * and actors only sleep).  The names were checked (sim/topo_xml.c), so
 * SimGrid cannot refuse it. */
static int give_simgrid_hosts(struct topo_ctx *x, const struct topo *t, const struct topo_desc *d)
{
	int fd = memfd_create("locklab-platform", MFD_CLOEXEC);
	char path[64];
	FILE *f;

	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		return topo_fail(x, "cannot hand the cores to SimGrid: %s", strerror(errno));
	}
	fprintf(f, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
		   "<platform version=\"4.1\">\n<zone id=\"%s\" routing=\"None\">\n", d->root_id);
	for (unsigned c = 0; c < t->ncores; c++)
		fprintf(f, "<host id=\"%s\" speed=\"1Gf\"/>\n", t->core_host[c]);
	fprintf(f, "</zone>\n</platform>\n");
	if (fflush(f) != 0) {
		fclose(f);
		return topo_fail(x, "cannot hand the cores to SimGrid: %s", strerror(errno));
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	simgrid_load_platform(path);
	fclose(f);
	return 0;
}

/* ================================================================ entry points */

static int build(struct topo_ctx *x, struct topo *t, const struct topo_desc *d)
{
	build_sockets(t, d);
	build_links(t, d);
	if (build_routes(x, t, d) || place_links(x, t) || make_classes(x, t) || check_class_zero(x, t))
		return -1;
	return topo_read_costs(x, t) || topo_read_smt(x, t) || topo_read_idle(x, t) ||
	       topo_check_assumed(x, t);
}

int topo_load(struct topo *t, const char *name_or_path, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct topo_desc *d = topo_calloc(1, sizeof(*d));
	struct topo_ctx x = { path, err, errlen, d };
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if (topo_find(name_or_path, path, sizeof(path), err, errlen) == 0) {
		topo_set_name(t, path);
		rc = topo_xml_read(&x, d);
		if (!rc)
			rc = build(&x, t, d);
		if (!rc)
			rc = give_simgrid_hosts(&x, t, d);
	}
	if (rc)
		topo_free(t);
	topo_desc_free(d);
	free(d);
	return rc;
}

void topo_free(struct topo *t)
{
	free(t->core_host);
	free(t->socket_class);
	free(t->links);
	free(t->route_off);
	free(t->route_len);
	free(t->route_links);
	free(t->socket_name);
	free(t->core_phys);
	t->core_phys = NULL;
	t->core_host = NULL;
	t->socket_class = NULL;
	t->links = NULL;
	t->route_off = t->route_len = t->route_links = NULL;
	t->socket_name = NULL;
}
