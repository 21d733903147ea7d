/*
 * sim/topo_internal.h - what the parts of the topology loader share: the
 * machine as the file describes it (struct topo_desc, filled and checked by
 * sim/topo_xml.c and sim/topo_elems.c), the error line, and the number
 * parser (sim/topo_num.c).
 *
 * The loader reads a file once: sim/topo_xml.c parses it, sim/topo_elems.c
 * checks it into the description, sim/topology.c builds struct topo from
 * that (sockets, routes, classes; sim/topo_costs.c the cost properties) and
 * hands SimGrid the hosts; sim/topo_find.c turns a name into a path.
 */
#ifndef SIM_TOPO_INTERNAL_H
#define SIM_TOPO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "topology.h"

#define TOPO_NAME_LEN 64
#define TOPO_MAX_PROPS 32
#define TOPO_MAX_LINKS 32768
/* The most socket links on one route. */
#define TOPO_MAX_ROUTE_LINKS 64
/* The longest time a file may give, and the largest and smallest bandwidth
 * (topologies/README.md, "Ranges"). */
#define TOPO_MAX_TIME_PS 1000000000000.0
#define TOPO_MIN_BW 1e6
#define TOPO_MAX_BW 1e15

/* Where an error goes: "path: message". */
struct topo_desc;
struct topo_ctx {
	const char *path;
	char *err;
	size_t errlen;
	const struct topo_desc *desc;
};

__attribute__((format(printf, 2, 3)))
int topo_fail(struct topo_ctx *x, const char *fmt, ...);
void *topo_calloc(size_t n, size_t size);
void topo_strcpy(char *d, size_t n, const char *s);
int topo_natural_cmp(const char *a, const char *b);

struct topo_prop {
	char id[TOPO_NAME_LEN];
	char *value;
};

struct topo_dsocket {
	char id[TOPO_NAME_LEN];
	char router[TOPO_NAME_LEN]; /* a cluster's router; "" in a <zone> */
	unsigned first_host, nhosts;
};

struct topo_dlink {
	char id[TOPO_NAME_LEN];
	double lat_s, bw;
};

struct topo_droute {
	unsigned src, dst; /* sockets */
	bool symmetrical;
	unsigned nlinks;
	unsigned link[TOPO_MAX_ROUTE_LINKS]; /* indices into links */
};

enum topo_routing { ROUTING_FULL, ROUTING_FLOYD };

/* sim/topo_index.c: elements by id (the id is each element's first member). */
struct topo_index {
	unsigned *slot;
	size_t cap;
	unsigned n;
};
void topo_index_add(struct topo_index *ix, const void *base, size_t stride, unsigned i);
unsigned topo_index_find(const struct topo_index *ix, const void *base, size_t stride, const char *id);
void topo_index_free(struct topo_index *ix);
void *topo_grow(void *arr, unsigned n, unsigned *cap, size_t size);

/* The machine as the file states it, every value checked. */
struct topo_desc {
	char root_id[TOPO_NAME_LEN];
	enum topo_routing routing;
	unsigned nprops;
	struct topo_prop props[TOPO_MAX_PROPS];
	unsigned nsockets, nhosts, nlinks, nroutes;
	struct topo_dsocket sockets[TOPO_MAX_SOCKETS];
	char (*hosts)[TOPO_NAME_LEN]; /* [nhosts], socket by socket */
	struct topo_dlink *links;     /* [nlinks] */
	struct topo_droute *routes;   /* [nroutes] */
	unsigned hosts_cap, links_cap, routes_cap;
	struct topo_index socket_ix, link_ix;
};

/* sim/topo_xml.c: read and check the file; sim/topo_elems.c: its elements. */
int topo_xml_read(struct topo_ctx *x, struct topo_desc *d);
struct _xmlNode;
int topo_read_platform(struct topo_ctx *x, struct topo_desc *d, const struct _xmlNode *root);
void topo_desc_free(struct topo_desc *d);
const char *topo_desc_prop(const struct topo_desc *d, const char *id);

/* sim/topo_num.c: a decimal number; -1 (with the error set) if s is not one. */
int topo_decimal(struct topo_ctx *x, const char *what, const char *s, double *out);
enum topo_unit { UNIT_TIME, UNIT_BANDWIDTH, UNIT_SPEED };
int topo_with_unit(struct topo_ctx *x, const char *what, const char *s, enum topo_unit kind,
		   double *out);
int topo_check_time(struct topo_ctx *x, const char *what, const char *text, double ps);
int topo_check_bw(struct topo_ctx *x, const char *what, const char *text, double bw);

/* sim/topo_costs.c */
int topo_read_costs(struct topo_ctx *x, struct topo *t); /* from x->desc */
/* `assumed` names figures the machine has, each once (after the costs, SMT and idle states). */
int topo_check_assumed(struct topo_ctx *x, const struct topo *t);
int topo_read_smt(struct topo_ctx *x, struct topo *t);   /* sim/topo_smt.c */
int topo_read_idle(struct topo_ctx *x, struct topo *t);  /* sim/topo_idle.c */
bool topo_prop_known(const char *id);

/* sim/topo_find.c */
int topo_find(const char *name_or_path, char *path, size_t len, char *err, size_t errlen);
void topo_set_name(struct topo *t, const char *path);

#endif
