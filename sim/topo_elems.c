/*
 * sim/topo_elems.c - the elements of a machine file, as libxml2 parsed
 * them, into struct topo_desc: every element, attribute, id and number is
 * checked here.
 *
 * Only the subset that topologies/README.md documents is accepted: one root
 * <zone> holding <prop>s, the sockets (<cluster>s, or <zone>s of <host>s),
 * the socket <link>s and the <zoneRoute>s between sockets.  Anything else
 * is an error line, never a guess, and nothing is built for a file refused
 * here.
 */
#include "topo_internal.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

__attribute__((format(printf, 3, 4)))
static int node_fail(struct topo_ctx *x, const xmlNode *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (x->err && x->errlen)
		snprintf(x->err, x->errlen, "%s:%ld: %s", x->path, xmlGetLineNo(n), msg);
	return -1;
}

static const char *name_of(const xmlNode *n)
{
	return (const char *)n->name;
}

static bool is(const xmlNode *n, const char *name)
{
	return strcmp(name_of(n), name) == 0;
}

/* An attribute's value (libxml2 owns it), or NULL. */
static const char *attr(const xmlNode *n, const char *name)
{
	for (const xmlAttr *a = n->properties; a; a = a->next)
		if (strcmp((const char *)a->name, name) == 0)
			return a->children && a->children->content ? (const char *)a->children->content : "";
	return NULL;
}

/* Every attribute of n is one of allowed (NULL-terminated); the first
 * nreq of them are required. */
static int check_attrs(struct topo_ctx *x, const xmlNode *n, const char *const *allowed, unsigned nreq)
{
	for (const xmlAttr *a = n->properties; a; a = a->next) {
		unsigned i = 0;
		while (allowed[i] && strcmp(allowed[i], (const char *)a->name) != 0)
			i++;
		if (!allowed[i])
			return node_fail(x, n, "<%s> has no attribute '%s' (see topologies/README.md)",
					 name_of(n), (const char *)a->name);
		if (a->children && a->children->next)
			return node_fail(x, n, "<%s> %s: entity references are not supported",
					 name_of(n), (const char *)a->name);
	}
	for (unsigned i = 0; i < nreq; i++)
		if (!attr(n, allowed[i]))
			return node_fail(x, n, "<%s> needs attribute %s", name_of(n), allowed[i]);
	return 0;
}

/* An id: 1 to 63 printable characters, none of them markup. */
static int check_id(struct topo_ctx *x, const xmlNode *n, const char *what, const char *v)
{
	size_t len = strlen(v);

	if (len == 0)
		return node_fail(x, n, "<%s>: empty %s", name_of(n), what);
	if (len >= TOPO_NAME_LEN)
		return node_fail(x, n, "%s '%.20s...' longer than %d characters", what, v, TOPO_NAME_LEN - 1);
	for (const char *p = v; *p; p++)
		if (*p <= ' ' || *p > '~' || strchr("<>&\"'", *p))
			return node_fail(x, n, "%s '%s': only printable characters other than <>&\"' and space", what, v);
	return 0;
}

static int copy_id(struct topo_ctx *x, const xmlNode *n, const char *name, char *out)
{
	const char *v = attr(n, name);

	if (check_id(x, n, name, v))
		return -1;
	topo_strcpy(out, TOPO_NAME_LEN, v);
	return 0;
}

/* Child elements only; text other than blanks is an error. */
static const xmlNode *next_elem(struct topo_ctx *x, const xmlNode *n, int *rc)
{
	for (; n; n = n->next) {
		if (n->type == XML_ELEMENT_NODE)
			return n;
		if ((n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) && !xmlIsBlankNode(n)) {
			*rc = node_fail(x, n, "text inside <%s>", n->parent ? name_of(n->parent) : "?");
			return NULL;
		}
		if (n->type == XML_ENTITY_REF_NODE) {
			*rc = node_fail(x, n, "entity reference &%s; inside <%s>", name_of(n),
					n->parent ? name_of(n->parent) : "?");
			return NULL;
		}
	}
	return NULL;
}

#define FOR_EACH_CHILD(c, parent, rc) \
	for (const xmlNode *c = next_elem(x, (parent)->children, &(rc)); c; c = next_elem(x, c->next, &(rc)))

/* An element that holds nothing (comments aside). */
static int leaf(struct topo_ctx *x, const xmlNode *n)
{
	int rc = 0;

	FOR_EACH_CHILD(c, n, rc)
		return node_fail(x, c, "<%s> inside <%s>, which holds nothing", name_of(c), name_of(n));
	return rc;
}

/* ---------------------------------------------------------------- numbers */

static int unit_attr(struct topo_ctx *x, const xmlNode *n, const char *name, enum topo_unit kind, double *out)
{
	char what[160];

	snprintf(what, sizeof(what), "<%s id=\"%s\"> %s", name_of(n), attr(n, "id") ? attr(n, "id") : "",
		 name);
	if (topo_with_unit(x, what, attr(n, name), kind, out))
		return -1;
	if (kind == UNIT_TIME)
		return topo_check_time(x, what, attr(n, name), *out * 1e12);
	if (kind == UNIT_BANDWIDTH)
		return topo_check_bw(x, what, attr(n, name), *out);
	if (!(*out > 0))
		return topo_fail(x, "%s: speed must be positive", what);
	return 0;
}

/* ---------------------------------------------------------------- sockets */

static unsigned add_host(struct topo_desc *d, const char *name)
{
	d->hosts = topo_grow(d->hosts, d->nhosts, &d->hosts_cap, sizeof(*d->hosts));
	topo_strcpy(d->hosts[d->nhosts], TOPO_NAME_LEN, name);
	return d->nhosts++;
}

/* One radical group "N" or "N-M", decimal; 0 if malformed. */
static int radical_group(const char *g, size_t len, long *lo, long *hi)
{
	char buf[32], *dash, *e1, *e2;

	if (len == 0 || len >= sizeof(buf) || strspn(g, "0123456789-") < len)
		return -1;
	memcpy(buf, g, len);
	buf[len] = 0;
	dash = strchr(buf, '-');
	if (dash)
		*dash = 0;
	if (!*buf || strlen(buf) > 9 || (dash && (!dash[1] || strlen(dash + 1) > 9 || strchr(dash + 1, '-'))))
		return -1;
	*lo = strtol(buf, &e1, 10);
	*hi = dash ? strtol(dash + 1, &e2, 10) : *lo;
	return *hi < *lo ? -1 : 0;
}

/* The hosts of a <cluster>: counted first, built only if they fit. */
static int cluster_hosts(struct topo_ctx *x, struct topo_desc *d, const xmlNode *n)
{
	const char *rad = attr(n, "radical"), *pre = attr(n, "prefix"), *suf = attr(n, "suffix");
	unsigned long long count = 0;
	long lo, hi;

	for (const char *g = rad;; g += strcspn(g, ",") + 1) {
		if (radical_group(g, strcspn(g, ","), &lo, &hi))
			return node_fail(x, n, "cluster %s: radical '%s' is not a list of N or N-M (decimal)",
					 attr(n, "id"), rad);
		count += (unsigned long long)(hi - lo + 1);
		if (!g[strcspn(g, ",")])
			break;
	}
	if (d->nhosts + count > TOPO_MAX_CORES)
		return node_fail(x, n, "%llu cores, at most %d", d->nhosts + count, TOPO_MAX_CORES);
	for (const char *g = rad;; g += strcspn(g, ",") + 1) {
		radical_group(g, strcspn(g, ","), &lo, &hi);
		for (long i = lo; i <= hi; i++) {
			char name[3 * TOPO_NAME_LEN];
			snprintf(name, sizeof(name), "%s%ld%s", pre, i, suf);
			if (check_id(x, n, "host name", name))
				return -1;
			add_host(d, name);
		}
		if (!g[strcspn(g, ",")])
			break;
	}
	return 0;
}

static struct topo_dsocket *new_socket(struct topo_ctx *x, struct topo_desc *d, const xmlNode *n)
{
	struct topo_dsocket *s;

	if (d->nsockets == TOPO_MAX_SOCKETS) {
		node_fail(x, n, "more than %d sockets", TOPO_MAX_SOCKETS);
		return NULL;
	}
	s = &d->sockets[d->nsockets];
	memset(s, 0, sizeof(*s));
	if (copy_id(x, n, "id", s->id))
		return NULL;
	/* said here, before a route names the id and finds the other */
	if (!strcmp(s->id, d->root_id) ||
	    topo_index_find(&d->socket_ix, d->sockets, sizeof(*s), s->id) != UINT_MAX) {
		node_fail(x, n, "zone id %s given twice", s->id);
		return NULL;
	}
	s->first_host = d->nhosts;
	topo_index_add(&d->socket_ix, d->sockets, sizeof(*s), d->nsockets++);
	return s;
}

static int read_cluster(struct topo_ctx *x, struct topo_desc *d, const xmlNode *n)
{
	static const char *const attrs[] = { "id", "prefix", "suffix", "radical", "speed", "bw", "lat",
					     "router_id", NULL };
	struct topo_dsocket *s;
	double v;
	if (check_attrs(x, n, attrs, 7) || !(s = new_socket(x, d, n)) ||
	    unit_attr(x, n, "speed", UNIT_SPEED, &v) || unit_attr(x, n, "bw", UNIT_BANDWIDTH, &v) ||
	    unit_attr(x, n, "lat", UNIT_TIME, &v))
		return -1;
	if (leaf(x, n) || cluster_hosts(x, d, n))
		return -1;
	s->nhosts = d->nhosts - s->first_host;
	if (attr(n, "router_id"))
		return copy_id(x, n, "router_id", s->router);
	char name[3 * TOPO_NAME_LEN + 8];
	snprintf(name, sizeof(name), "%s%s_router%s", attr(n, "prefix"), s->id, attr(n, "suffix"));
	if (check_id(x, n, "router name", name))
		return -1;
	topo_strcpy(s->router, sizeof(s->router), name);
	return 0;
}

/* A name of a host or router of socket s (netpoints of its zone). */
static bool in_socket(const struct topo_desc *d, const struct topo_dsocket *s, const char *name,
		      char (*routers)[TOPO_NAME_LEN], unsigned nrouters)
{
	if (s->router[0] && strcmp(s->router, name) == 0)
		return true;
	for (unsigned i = 0; i < s->nhosts; i++)
		if (strcmp(d->hosts[s->first_host + i], name) == 0)
			return true;
	for (unsigned i = 0; routers && i < nrouters; i++)
		if (strcmp(routers[i], name) == 0)
			return true;
	return false;
}

/* A <route> inside a socket <zone>: between its own hosts and routers, over its own links. */
static int zone_route(struct topo_ctx *x, const struct topo_desc *d, const struct topo_dsocket *s,
		      const xmlNode *n, char (*routers)[TOPO_NAME_LEN], unsigned nr, char (*links)[TOPO_NAME_LEN],
		      unsigned nl)
{
	static const char *const attrs[] = { "src", "dst", "symmetrical", NULL };
	int rc = 0;

	if (check_attrs(x, n, attrs, 2))
		return -1;
	if (!in_socket(d, s, attr(n, "src"), routers, nr) || !in_socket(d, s, attr(n, "dst"), routers, nr))
		return node_fail(x, n, "<route> in socket %s joins names that are not in it", s->id);
	FOR_EACH_CHILD(c, n, rc) {
		unsigned i = 0;
		if (!is(c, "link_ctn") || !attr(c, "id") || c->properties->next || leaf(x, c))
			return node_fail(x, c, "<route> holds only <link_ctn id=...>");
		while (i < nl && strcmp(links[i], attr(c, "id")) != 0)
			i++;
		if (i == nl)
			return node_fail(x, c, "no link '%s' in socket %s", attr(c, "id"), s->id);
	}
	return rc;
}

/* A socket given as a <zone> of <host>s (with its routers, links and routes, which cost nothing). */
static int read_socket_zone(struct topo_ctx *x, struct topo_desc *d, const xmlNode *n)
{
	static const char *const zattrs[] = { "id", "routing", NULL }, *const hattrs[] = { "id", "speed", NULL };
	static const char *const lattrs[] = { "id", "bandwidth", "latency", NULL };
	char routers[8][TOPO_NAME_LEN], links[64][TOPO_NAME_LEN];
	unsigned nr = 0, nl = 0;
	struct topo_dsocket *s;
	double v;
	int rc = 0;

	if (check_attrs(x, n, zattrs, 2) || !(s = new_socket(x, d, n)))
		return -1;
	FOR_EACH_CHILD(c, n, rc) {
		if (is(c, "host")) {
			char name[TOPO_NAME_LEN];
			if (check_attrs(x, c, hattrs, 2) || leaf(x, c) || copy_id(x, c, "id", name) ||
			    unit_attr(x, c, "speed", UNIT_SPEED, &v))
				return -1;
			if (d->nhosts == TOPO_MAX_CORES)
				return node_fail(x, c, "more than %d cores", TOPO_MAX_CORES);
			add_host(d, name);
		} else if (is(c, "router") && nr < 8) {
			if (check_attrs(x, c, zattrs, 1) || leaf(x, c) || copy_id(x, c, "id", routers[nr++]))
				return -1;
		} else if (is(c, "link") && nl < 64) {
			if (check_attrs(x, c, lattrs, 3) || leaf(x, c) || copy_id(x, c, "id", links[nl++]) ||
			    unit_attr(x, c, "bandwidth", UNIT_BANDWIDTH, &v) || unit_attr(x, c, "latency", UNIT_TIME, &v))
				return -1;
		} else if (is(c, "route")) {
			s->nhosts = d->nhosts - s->first_host;
			if (zone_route(x, d, s, c, routers, nr, links, nl))
				return -1;
		} else {
			return node_fail(x, c, "<%s> is not expected in socket zone %s (see topologies/README.md)",
					 name_of(c), s->id);
		}
	}
	s->nhosts = d->nhosts - s->first_host;
	if (nr)
		topo_strcpy(s->router, sizeof(s->router), routers[0]);
	return rc;
}

/* ---------------------------------------------------------------- the root zone */

static int read_prop(struct topo_ctx *x, struct topo_desc *d, const xmlNode *n)
{
	static const char *const attrs[] = { "id", "value", NULL };
	const char *id = attr(n, "id");

	if (!id || !attr(n, "value"))
		return node_fail(x, n, "<prop> needs id and value");
	if (check_attrs(x, n, attrs, 2)) /* its line names the attribute */
		return -1;
	if (check_id(x, n, "property", id) || leaf(x, n))
		return -1;
	if (!topo_prop_known(id))
		return topo_fail(x, "unknown property '%s' on the root zone (see topologies/README.md)", id);
	if (topo_desc_prop(d, id))
		return node_fail(x, n, "property %s given twice", id);
	topo_strcpy(d->props[d->nprops].id, TOPO_NAME_LEN, id);
	d->props[d->nprops++].value = strdup(attr(n, "value"));
	return 0;
}

static int read_link(struct topo_ctx *x, struct topo_desc *d, const xmlNode *n)
{
	static const char *const attrs[] = { "id", "bandwidth", "latency", NULL };
	struct topo_dlink *l;

	if (d->nlinks == TOPO_MAX_LINKS)
		return node_fail(x, n, "more than %d socket links", TOPO_MAX_LINKS);
	d->links = topo_grow(d->links, d->nlinks, &d->links_cap, sizeof(*d->links));
	l = &d->links[d->nlinks];
	if (check_attrs(x, n, attrs, 3) || leaf(x, n) || copy_id(x, n, "id", l->id) ||
	    unit_attr(x, n, "latency", UNIT_TIME, &l->lat_s) || unit_attr(x, n, "bandwidth", UNIT_BANDWIDTH, &l->bw))
		return -1;
	if (topo_index_find(&d->link_ix, d->links, sizeof(*l), l->id) != UINT_MAX)
		return node_fail(x, n, "link id %s given twice", l->id);
	topo_index_add(&d->link_ix, d->links, sizeof(*l), d->nlinks++);
	return 0;
}

static int socket_index(struct topo_ctx *x, const struct topo_desc *d, const xmlNode *n, const char *key,
			unsigned *out)
{
	const char *v = attr(n, key);

	*out = topo_index_find(&d->socket_ix, d->sockets, sizeof(d->sockets[0]), v);
	if (*out != UINT_MAX)
		return 0;
	return node_fail(x, n, "zoneRoute %s '%s' is not a socket zone declared before it", key, v);
}

static int route_links(struct topo_ctx *x, const struct topo_desc *d, const xmlNode *n, struct topo_droute *r)
{
	int rc = 0;

	FOR_EACH_CHILD(c, n, rc) {
		unsigned i;
		if (!is(c, "link_ctn") || !attr(c, "id") || c->properties->next || leaf(x, c))
			return node_fail(x, c, "<zoneRoute> holds only <link_ctn id=...>");
		i = topo_index_find(&d->link_ix, d->links, sizeof(d->links[0]), attr(c, "id"));
		if (i == UINT_MAX)
			return node_fail(x, c, "zoneRoute from %s to %s: no socket link '%s' declared before it",
					 d->sockets[r->src].id, d->sockets[r->dst].id, attr(c, "id"));
		if (r->nlinks == TOPO_MAX_ROUTE_LINKS)
			return node_fail(x, c, "a route of more than %d links", TOPO_MAX_ROUTE_LINKS);
		r->link[r->nlinks++] = i;
	}
	return rc;
}

static int read_zone_route(struct topo_ctx *x, struct topo_desc *d, const xmlNode *n)
{
	static const char *const attrs[] = { "src", "dst", "gw_src", "gw_dst", "symmetrical", NULL };
	const char *sym = attr(n, "symmetrical");
	struct topo_droute *r;

	if (d->nroutes == TOPO_MAX_SOCKETS * TOPO_MAX_SOCKETS)
		return node_fail(x, n, "more than %d zoneRoutes", TOPO_MAX_SOCKETS * TOPO_MAX_SOCKETS);
	d->routes = topo_grow(d->routes, d->nroutes, &d->routes_cap, sizeof(*d->routes));
	r = memset(&d->routes[d->nroutes], 0, sizeof(*r));
	if (check_attrs(x, n, attrs, 4) || socket_index(x, d, n, "src", &r->src) ||
	    socket_index(x, d, n, "dst", &r->dst))
		return -1;
	if (r->src == r->dst)
		return node_fail(x, n, "zoneRoute from %s to itself", d->sockets[r->src].id);
	if (!in_socket(d, &d->sockets[r->src], attr(n, "gw_src"), NULL, 0) ||
	    !in_socket(d, &d->sockets[r->dst], attr(n, "gw_dst"), NULL, 0))
		return node_fail(x, n, "zoneRoute from %s to %s: a gateway is not the router or a host of its socket",
				 d->sockets[r->src].id, d->sockets[r->dst].id);
	if (sym && strcasecmp(sym, "YES") != 0 && strcasecmp(sym, "NO") != 0)
		return node_fail(x, n, "symmetrical must be YES or NO");
	r->symmetrical = !sym || strcasecmp(sym, "YES") == 0;
	if (route_links(x, d, n, r))
		return -1;
	d->nroutes++;
	return 0;
}

static int read_root_child(struct topo_ctx *x, struct topo_desc *d, const xmlNode *c)
{
	if (is(c, "prop"))
		return read_prop(x, d, c);
	if (is(c, "cluster"))
		return read_cluster(x, d, c);
	if (is(c, "zone"))
		return read_socket_zone(x, d, c);
	if (is(c, "link"))
		return read_link(x, d, c);
	if (is(c, "zoneRoute"))
		return read_zone_route(x, d, c);
	if (is(c, "host"))
		return node_fail(x, c, "host %s outside every socket zone: every core must sit in a socket zone",
				 attr(c, "id") ? attr(c, "id") : "");
	return node_fail(x, c, "<%s> is not expected in the root zone (see topologies/README.md)", name_of(c));
}

static int read_root_zone(struct topo_ctx *x, struct topo_desc *d, const xmlNode *z)
{
	static const char *const attrs[] = { "id", "routing", NULL };
	const char *routing = attr(z, "routing");
	int rc = 0;

	if (!attr(z, "id") || !*attr(z, "id"))
		return node_fail(x, z, "malformed XML: the root <zone> has no id");
	if (check_attrs(x, z, attrs, 2) || copy_id(x, z, "id", d->root_id))
		return -1;
	if (strcmp(routing, "Full") == 0)
		d->routing = ROUTING_FULL;
	else if (strcmp(routing, "Floyd") == 0)
		d->routing = ROUTING_FLOYD;
	else
		return node_fail(x, z, "root zone routing '%s': Full or Floyd", routing);
	FOR_EACH_CHILD(c, z, rc)
		if (read_root_child(x, d, c))
			return -1;
	return rc;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The netpoint names (hosts, routers) and zone ids are each unique. */
static int check_unique(struct topo_ctx *x, const struct topo_desc *d)
{
	for (unsigned a = 0; a < d->nsockets; a++) {
		if (strcmp(d->sockets[a].id, d->root_id) == 0)
			return topo_fail(x, "zone id %s given twice", d->root_id);
		for (unsigned b = a + 1; b < d->nsockets; b++)
			if (strcmp(d->sockets[a].id, d->sockets[b].id) == 0)
				return topo_fail(x, "zone id %s given twice", d->sockets[a].id);
	}
	const char **names = topo_calloc(d->nhosts + d->nsockets, sizeof(*names));
	unsigned n = 0;
	int rc = 0;

	for (unsigned i = 0; i < d->nhosts; i++)
		names[n++] = d->hosts[i];
	for (unsigned i = 0; i < d->nsockets; i++)
		if (d->sockets[i].router[0])
			names[n++] = d->sockets[i].router;
	qsort(names, n, sizeof(*names), name_cmp);
	for (unsigned i = 1; i < n && !rc; i++)
		if (strcmp(names[i - 1], names[i]) == 0)
			rc = topo_fail(x, "host or router name %s given twice", names[i]);
	free(names);
	return rc;
}

int topo_read_platform(struct topo_ctx *x, struct topo_desc *d, const xmlNode *p)
{
	const xmlNode *zone = NULL;
	const char *version = attr(p, "version");
	int rc = 0;

	if (!is(p, "platform"))
		return node_fail(x, p, "malformed XML: the document element is <%s>, expected <platform>", name_of(p));
	if ((p->properties && (p->properties->next || !version)) || (version && strncmp(version, "4", 1) != 0))
		return node_fail(x, p, "<platform> takes only version=\"4.1\"");
	FOR_EACH_CHILD(c, p, rc) {
		if (!is(c, "zone"))
			return node_fail(x, c, "<%s> in <platform>: only the root zone goes there", name_of(c));
		if (zone)
			return node_fail(x, c, "malformed XML: a second <zone> in <platform>: one root zone holds the machine");
		zone = c;
	}
	if (rc)
		return -1;
	if (!zone)
		return topo_fail(x, "no <zone> in <platform>: the root zone holds the machine");
	if (read_root_zone(x, d, zone))
		return -1;
	if (d->nhosts == 0)
		return topo_fail(x, "no cores: the platform has no hosts");
	for (unsigned k = 0; k < d->nsockets; k++)
		if (d->sockets[k].nhosts == 0)
			return topo_fail(x, "socket %s has no cores", d->sockets[k].id);
	return check_unique(x, d);
}
