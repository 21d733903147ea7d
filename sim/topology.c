/*
 * sim/topology.c - reads a machine (a SimGrid platform file, see
 * topologies/README.md) into struct topo.
 *
 * Three passes over the file:
 *
 *  1. A small XML scanner of our own checks that the file is well formed and
 *     collects what SimGrid's C API cannot list: the root zone's <prop>
 *     names, its socket zones in file order, and the ids of the socket links
 *     declared in it.
 *  2. A forked child loads the platform with SimGrid and walks every route
 *     between sockets.  SimGrid aborts (or crashes) on platforms it refuses;
 *     the child's death, what SimGrid printed, and the step it was at become
 *     one error line here.
 *  3. The process itself loads the platform (now known to be acceptable) and
 *     reads cores, sockets, links, routes and the cost properties, checking
 *     each.
 *
 * Sockets are the root zone's child zones (<cluster> or <zone>) in file
 * order; cores are their hosts, socket by socket, in natural name order
 * (s0c2 before s0c10).  Distance classes: 0 within a socket, then one per
 * distinct route latency between sockets (the sum of the socket links on the
 * route), in increasing order.
 */
#include "topology.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <simgrid/zone.h>
#include <xbt/dynar.h>
#include <xbt/log.h>

#define NAME_LEN 64
#define MAX_PROPS 128
#define MAX_VALUE 2048

/* Where an error goes: "path: message". */
struct ctx {
	const char *path;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3)))
static int fail(struct ctx *x, const char *fmt, ...)
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

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		abort();
	return p;
}

/* Copy s into d[n], cutting it short if it does not fit. */
static void str_copy(char *d, size_t n, const char *s)
{
	size_t l = strnlen(s, n - 1);

	memcpy(d, s, l);
	d[l] = 0;
}

/* Natural order: digit runs compare as numbers ("c2" < "c10"). */
static int natural_cmp(const char *a, const char *b)
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

static int natural_qsort_cmp(const void *a, const void *b)
{
	return natural_cmp((const char *)a, (const char *)b);
}

/* ================================================================ XML scan */

struct sprop {
	char id[NAME_LEN];
	char value[MAX_VALUE];
	unsigned line;
};

/* What pass 1 learns about the file. */
struct scan {
	char root_id[NAME_LEN];
	unsigned nprops;
	struct sprop props[MAX_PROPS];
	unsigned nlinks, nsockets;
	char (*links)[NAME_LEN];
	char (*sockets)[NAME_LEN];
};

struct attr {
	char name[NAME_LEN];
	char value[MAX_VALUE];
};

#define MAX_ATTRS 16
#define MAX_DEPTH 64

struct scanner {
	struct ctx *x;
	struct scan *s;
	const char *p, *end;
	unsigned line;
	unsigned depth;
	char stack[MAX_DEPTH][NAME_LEN];
	unsigned open_line[MAX_DEPTH];
	bool root_done;
};

__attribute__((format(printf, 2, 3)))
static int xml_fail(struct scanner *z, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (z->x->err && z->x->errlen)
		snprintf(z->x->err, z->x->errlen, "%s:%u: malformed XML: %s", z->x->path, z->line, msg);
	return -1;
}

static void advance(struct scanner *z, size_t n)
{
	for (size_t i = 0; i < n && z->p < z->end; i++, z->p++)
		if (*z->p == '\n')
			z->line++;
}

static void skip_space(struct scanner *z)
{
	while (z->p < z->end && isspace((unsigned char)*z->p))
		advance(z, 1);
}

static bool at(const struct scanner *z, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(z->end - z->p) >= n && memcmp(z->p, lit, n) == 0;
}

/* Skip up to and including the terminator; error if it never comes. */
static int skip_past(struct scanner *z, const char *term, const char *what)
{
	const char *q = memmem(z->p, (size_t)(z->end - z->p), term, strlen(term));

	if (!q)
		return xml_fail(z, "unterminated %s", what);
	advance(z, (size_t)(q - z->p) + strlen(term));
	return 0;
}

/* <!DOCTYPE ...> with an optional [internal subset]. */
static int skip_doctype(struct scanner *z)
{
	int bracket = 0;
	char quote = 0;

	while (z->p < z->end) {
		char c = *z->p;
		advance(z, 1);
		if (quote) {
			if (c == quote)
				quote = 0;
		} else if (c == '"' || c == '\'') {
			quote = c;
		} else if (c == '[') {
			bracket++;
		} else if (c == ']') {
			bracket--;
		} else if (c == '>' && bracket <= 0) {
			return 0;
		}
	}
	return xml_fail(z, "unterminated <!DOCTYPE");
}

static bool name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_' || c == ':';
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == ':' || c == '-' || c == '.';
}

static int read_name(struct scanner *z, char *out, const char *what)
{
	size_t n = 0;

	if (z->p >= z->end || !name_start(*z->p))
		return xml_fail(z, "expected %s", what);
	while (z->p < z->end && name_char(*z->p)) {
		if (n + 1 >= NAME_LEN)
			return xml_fail(z, "%s too long", what);
		out[n++] = *z->p;
		advance(z, 1);
	}
	out[n] = 0;
	return 0;
}

/* One entity reference at z->p (after '&'), appended to out. */
static int read_entity(struct scanner *z, char *out, size_t *n)
{
	static const struct {
		const char *name;
		char c;
	} ents[] = { { "lt;", '<' }, { "gt;", '>' }, { "amp;", '&' }, { "quot;", '"' }, { "apos;", '\'' } };

	for (size_t i = 0; i < sizeof(ents) / sizeof(ents[0]); i++) {
		if (at(z, ents[i].name)) {
			out[(*n)++] = ents[i].c;
			advance(z, strlen(ents[i].name));
			return 0;
		}
	}
	if (at(z, "#")) {
		char *e;
		advance(z, 1);
		bool hex = at(z, "x");
		if (hex)
			advance(z, 1);
		long v = strtol(z->p, &e, hex ? 16 : 10);
		if (e == z->p || e >= z->end || *e != ';' || v <= 0 || v > 127)
			return xml_fail(z, "unsupported character reference");
		out[(*n)++] = (char)v;
		advance(z, (size_t)(e - z->p) + 1);
		return 0;
	}
	return xml_fail(z, "unknown entity reference");
}

static int read_attr_value(struct scanner *z, char *out)
{
	size_t n = 0;
	char quote;

	if (z->p >= z->end || (*z->p != '"' && *z->p != '\''))
		return xml_fail(z, "attribute value must be quoted");
	quote = *z->p;
	advance(z, 1);
	while (z->p < z->end && *z->p != quote) {
		if (n + 2 >= MAX_VALUE)
			return xml_fail(z, "attribute value longer than %d bytes", MAX_VALUE - 2);
		if (*z->p == '<')
			return xml_fail(z, "'<' inside an attribute value");
		if (*z->p == '&') {
			advance(z, 1);
			if (read_entity(z, out, &n))
				return -1;
			continue;
		}
		out[n++] = *z->p;
		advance(z, 1);
	}
	if (z->p >= z->end)
		return xml_fail(z, "unterminated attribute value");
	advance(z, 1);
	out[n] = 0;
	return 0;
}

static const char *attr_get(const struct attr *a, unsigned na, const char *name)
{
	for (unsigned i = 0; i < na; i++)
		if (strcmp(a[i].name, name) == 0)
			return a[i].value;
	return NULL;
}

static void list_add(char (**list)[NAME_LEN], unsigned *n, const char *id)
{
	*list = realloc(*list, (*n + 1) * sizeof(**list));
	if (!*list)
		abort();
	str_copy((*list)[*n], NAME_LEN, id);
	(*n)++;
}

/* An element opened at the current depth: learn what the loader needs. */
static int on_element(struct scanner *z, const char *name, const struct attr *a, unsigned na)
{
	struct scan *s = z->s;
	const char *id = attr_get(a, na, "id");

	if (id && strlen(id) >= NAME_LEN)
		return xml_fail(z, "id '%.20s...' longer than %d characters", id, NAME_LEN - 1);
	if (z->depth == 0 && strcmp(name, "platform") != 0)
		return xml_fail(z, "the document element is <%s>, expected <platform>", name);
	if (z->depth == 1 && strcmp(name, "zone") == 0) {
		if (s->root_id[0])
			return xml_fail(z, "a second <zone> in <platform>: one root zone holds the machine");
		if (!id || !*id)
			return xml_fail(z, "the root <zone> has no id");
		str_copy(s->root_id, sizeof(s->root_id), id);
		return 0;
	}
	if (z->depth != 2 || strcmp(z->stack[1], "zone") != 0)
		return 0;
	if (strcmp(name, "prop") == 0) {
		const char *v = attr_get(a, na, "value");
		if (!id || !v)
			return xml_fail(z, "<prop> needs id and value");
		for (unsigned i = 0; i < s->nprops; i++)
			if (strcmp(s->props[i].id, id) == 0)
				return xml_fail(z, "property %s given twice", id);
		if (s->nprops == MAX_PROPS)
			return xml_fail(z, "more than %d properties", MAX_PROPS);
		struct sprop *p = &s->props[s->nprops++];
		str_copy(p->id, sizeof(p->id), id);
		str_copy(p->value, sizeof(p->value), v);
		p->line = z->line;
	} else if (strcmp(name, "link") == 0 && id) {
		list_add(&s->links, &s->nlinks, id);
	} else if ((strcmp(name, "cluster") == 0 || strcmp(name, "zone") == 0) && id) {
		list_add(&s->sockets, &s->nsockets, id);
	}
	return 0;
}

/* A start tag, after '<'. */
static int scan_start_tag(struct scanner *z)
{
	static struct attr a[MAX_ATTRS];
	char name[NAME_LEN];
	unsigned na = 0, tag_line = z->line;

	if (z->root_done)
		return xml_fail(z, "content after the document element");
	if (read_name(z, name, "an element name"))
		return -1;
	for (;;) {
		skip_space(z);
		if (z->p >= z->end)
			return xml_fail(z, "unterminated <%s> tag", name);
		if (*z->p == '/' || *z->p == '>')
			break;
		if (na == MAX_ATTRS)
			return xml_fail(z, "more than %d attributes in <%s>", MAX_ATTRS, name);
		if (read_name(z, a[na].name, "an attribute name"))
			return -1;
		skip_space(z);
		if (!at(z, "="))
			return xml_fail(z, "expected '=' after attribute %s", a[na].name);
		advance(z, 1);
		skip_space(z);
		if (read_attr_value(z, a[na].value))
			return -1;
		for (unsigned i = 0; i < na; i++)
			if (strcmp(a[i].name, a[na].name) == 0)
				return xml_fail(z, "attribute %s given twice", a[na].name);
		na++;
	}
	if (on_element(z, name, a, na))
		return -1;
	if (at(z, "/>")) {
		advance(z, 2);
		if (z->depth == 0)
			z->root_done = true;
		return 0;
	}
	advance(z, 1);
	if (z->depth == MAX_DEPTH)
		return xml_fail(z, "elements nested deeper than %d", MAX_DEPTH);
	str_copy(z->stack[z->depth], NAME_LEN, name);
	z->open_line[z->depth++] = tag_line;
	return 0;
}

/* An end tag, after "</". */
static int scan_end_tag(struct scanner *z)
{
	char name[NAME_LEN];

	if (read_name(z, name, "an element name"))
		return -1;
	skip_space(z);
	if (!at(z, ">"))
		return xml_fail(z, "expected '>' to close </%s", name);
	advance(z, 1);
	if (z->depth == 0)
		return xml_fail(z, "</%s> closes nothing", name);
	if (strcmp(z->stack[z->depth - 1], name) != 0)
		return xml_fail(z, "</%s> closes <%s> (opened at line %u)", name,
				z->stack[z->depth - 1], z->open_line[z->depth - 1]);
	if (--z->depth == 0)
		z->root_done = true;
	return 0;
}

static int scan_markup(struct scanner *z)
{
	if (at(z, "<!--")) {
		advance(z, 4);
		return skip_past(z, "-->", "comment");
	}
	if (at(z, "<?")) {
		advance(z, 2);
		return skip_past(z, "?>", "processing instruction");
	}
	if (at(z, "<![CDATA[")) {
		advance(z, 9);
		return skip_past(z, "]]>", "CDATA section");
	}
	if (at(z, "<!DOCTYPE")) {
		advance(z, 9);
		return skip_doctype(z);
	}
	if (at(z, "</")) {
		advance(z, 2);
		return scan_end_tag(z);
	}
	advance(z, 1);
	return scan_start_tag(z);
}

static int scan_xml(struct ctx *x, const char *text, size_t len, struct scan *s)
{
	struct scanner z = { .x = x, .s = s, .p = text, .end = text + len, .line = 1 };

	while (z.p < z.end) {
		if (*z.p == '<') {
			if (scan_markup(&z))
				return -1;
			continue;
		}
		if (z.depth == 0 && !isspace((unsigned char)*z.p))
			return xml_fail(&z, "text outside the document element");
		advance(&z, 1);
	}
	if (z.depth)
		return xml_fail(&z, "<%s> (line %u) is never closed", z.stack[z.depth - 1],
				z.open_line[z.depth - 1]);
	if (!z.root_done)
		return fail(x, "no <platform> element: not a SimGrid platform file");
	if (!s->root_id[0])
		return fail(x, "no <zone> in <platform>: the root zone holds the machine");
	return 0;
}

static void scan_free(struct scan *s)
{
	free(s->links);
	free(s->sockets);
}

static int read_whole(struct ctx *x, char **text, size_t *len)
{
	FILE *f = fopen(x->path, "rb");
	struct stat st;

	if (!f)
		return fail(x, "%s", strerror(errno));
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		return fail(x, "not a regular file");
	}
	*text = xcalloc((size_t)st.st_size + 1, 1);
	*len = fread(*text, 1, (size_t)st.st_size, f);
	fclose(f);
	if (memchr(*text, 0, *len))
		return fail(x, "a NUL byte in the file: not a platform file");
	return 0;
}

/* ================================================================ properties */

static const char *const op_names[TOPO_NOPS] = { "load", "store", "atomic" };
static const char state_names[TOPO_NSTATES] = { 'M', 'E', 'S', 'I' };

static bool prop_known(const char *id)
{
	static const char *const plain[] = {
		"protocol", "unit", "freq_ghz", "description", "hit.load", "hit.store",
		"hit.atomic", "pause", "inval_per_sharer", "msg.data_bytes", "msg.ctrl_bytes",
		"arbitration", "arbitration.max_local_run",
	};
	char key[32];

	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (strcmp(id, plain[i]) == 0)
			return true;
	for (int op = 0; op < TOPO_NOPS; op++) {
		for (int st = 0; st < TOPO_NSTATES; st++) {
			snprintf(key, sizeof(key), "lat.%s.%c", op_names[op], state_names[st]);
			if (strcmp(id, key) == 0)
				return true;
		}
	}
	return false;
}

static int check_prop_names(struct ctx *x, const struct scan *s)
{
	for (unsigned i = 0; i < s->nprops; i++)
		if (!prop_known(s->props[i].id))
			return fail(x, "unknown property '%s' on the root zone (see topologies/README.md)",
				    s->props[i].id);
	return 0;
}

static const char *prop(const char *key)
{
	return sg_zone_get_property_value(sg_zone_get_root(), key);
}

/* Whitespace- or comma-separated numbers. */
static int parse_numbers(struct ctx *x, const char *key, const char *v, double *out,
			 unsigned max, unsigned *n)
{
	char buf[MAX_VALUE], *save = NULL;

	str_copy(buf, sizeof(buf), v);
	*n = 0;
	for (char *tok = strtok_r(buf, " \t\r\n,", &save); tok; tok = strtok_r(NULL, " \t\r\n,", &save)) {
		char *e;
		errno = 0;
		double d = strtod(tok, &e);
		if (*e || errno || !isfinite(d))
			return fail(x, "%s: '%s' is not a number", key, tok);
		if (d < 0 && (strncmp(key, "msg.", 4) == 0 || strcmp(key, "freq_ghz") == 0 ||
			      strncmp(key, "arbitration", 11) == 0))
			return fail(x, "%s: negative value %s", key, tok);
		if (d < 0)
			return fail(x, "%s: negative latency %s", key, tok);
		if (*n < max)
			out[*n] = d;
		(*n)++;
	}
	if (*n == 0)
		return fail(x, "%s is empty", key);
	return 0;
}

/* A property holding one number; *given false (and *out untouched) when absent. */
static int prop_number(struct ctx *x, const char *key, double *out, bool *given)
{
	const char *v = prop(key);
	unsigned n;
	double d[1];

	*given = false;
	if (!v)
		return 0;
	if (parse_numbers(x, key, v, d, 1, &n))
		return -1;
	if (n != 1)
		return fail(x, "%s must be one number, got %u", key, n);
	*out = d[0];
	*given = true;
	return 0;
}

static int read_protocol(struct ctx *x, struct topo *t)
{
	const char *v = prop("protocol");

	if (!v)
		return fail(x, "missing property protocol (MESI, MOESI or MESIF)");
	if (strcasecmp(v, "MESI") == 0)
		t->protocol = PROTO_MESI;
	else if (strcasecmp(v, "MOESI") == 0)
		t->protocol = PROTO_MOESI;
	else if (strcasecmp(v, "MESIF") == 0)
		t->protocol = PROTO_MESIF;
	else
		return fail(x, "unknown protocol '%s' (MESI, MOESI or MESIF)", v);
	return 0;
}

static int read_unit(struct ctx *x, struct topo *t)
{
	const char *v = prop("unit");
	bool given;

	if (!v)
		return fail(x, "missing property unit (ns or cycles)");
	if (strcmp(v, "cycles") == 0)
		t->unit_cycles = true;
	else if (strcmp(v, "ns") != 0)
		return fail(x, "unknown unit '%s' (ns or cycles)", v);
	if (prop_number(x, "freq_ghz", &t->freq_ghz, &given))
		return -1;
	if (given && t->freq_ghz <= 0)
		return fail(x, "freq_ghz must be positive");
	if (t->unit_cycles && !given)
		return fail(x, "unit is cycles but freq_ghz is missing");
	return 0;
}

static uint64_t to_ps(const struct topo *t, double v)
{
	return (uint64_t)llround(t->unit_cycles ? v * 1000.0 / t->freq_ghz : v * 1000.0);
}

static bool row_required(int op, int st)
{
	if (st == TOPO_E)
		return false;
	if (st == TOPO_I)
		return op == TOPO_LOAD;
	return true;
}

static int read_row(struct ctx *x, struct topo *t, int op, int st)
{
	char key[32];
	const char *v;
	unsigned n;

	snprintf(key, sizeof(key), "lat.%s.%c", op_names[op], state_names[st]);
	v = prop(key);
	if (!v) {
		if (row_required(op, st))
			return fail(x, "missing property %s (see topologies/README.md)", key);
		return 0;
	}
	if (parse_numbers(x, key, v, t->lat_unit[op][st], TOPO_MAX_CLASSES, &n))
		return -1;
	if (n != t->nclasses)
		return fail(x, "%s has %u value%s, the routes give %u distance class%s", key, n,
			    n == 1 ? "" : "s", t->nclasses, t->nclasses == 1 ? "" : "es");
	t->lat_from_file[op][st] = true;
	return 0;
}

/* Rows a file may leave out: E as M; store/atomic on I as a memory load plus
 * what the operation costs over a load on an M line. */
static void default_rows(struct topo *t)
{
	for (int op = 0; op < TOPO_NOPS; op++) {
		for (unsigned k = 0; k < t->nclasses; k++) {
			if (!t->lat_from_file[op][TOPO_E])
				t->lat_unit[op][TOPO_E][k] = t->lat_unit[op][TOPO_M][k];
			if (!t->lat_from_file[op][TOPO_I]) {
				double d = t->lat_unit[TOPO_LOAD][TOPO_I][k] + t->lat_unit[op][TOPO_M][k] -
					   t->lat_unit[TOPO_LOAD][TOPO_M][k];
				t->lat_unit[op][TOPO_I][k] = d > 0 ? d : 0;
			}
		}
	}
}

static int read_latencies(struct ctx *x, struct topo *t)
{
	for (int op = 0; op < TOPO_NOPS; op++)
		for (int st = 0; st < TOPO_NSTATES; st++)
			if (read_row(x, t, op, st))
				return -1;
	default_rows(t);
	for (int op = 0; op < TOPO_NOPS; op++)
		for (int st = 0; st < TOPO_NSTATES; st++)
			for (unsigned k = 0; k < t->nclasses; k++)
				t->lat_ps[op][st][k] = to_ps(t, t->lat_unit[op][st][k]);
	return 0;
}

static int read_bytes(struct ctx *x, const char *key, unsigned dflt, unsigned *out)
{
	double d;
	bool given;

	*out = dflt;
	if (prop_number(x, key, &d, &given))
		return -1;
	if (!given)
		return 0;
	if (d < 1 || d > 65536 || d != floor(d))
		return fail(x, "%s must be a whole number of bytes, 1 to 65536", key);
	*out = (unsigned)d;
	return 0;
}

/* The cores of the largest socket: the default bound of a socket-first
 * arbiter (topologies/README.md, "Arbitration"). */
static unsigned largest_socket(const struct topo *t)
{
	unsigned best = 0;

	for (unsigned s = 0; s < t->nsockets; s++) {
		unsigned n = 0;

		for (unsigned c = 0; c < t->ncores; c++)
			n += t->core_socket[c] == s;
		if (n > best)
			best = n;
	}
	return best;
}

/* arbitration = fifo | socket-first (default fifo);
 * arbitration.max_local_run = N (N >= 1) | unbounded, socket-first only
 * (default: the cores of a socket). */
static int read_arbitration(struct ctx *x, struct topo *t)
{
	const char *v = prop("arbitration"), *b = prop("arbitration.max_local_run");
	double d;
	bool given;

	t->arbitration = ARB_FIFO;
	t->max_local_run = 0;
	if (v && strcasecmp(v, "socket-first") == 0)
		t->arbitration = ARB_SOCKET_FIRST;
	else if (v && strcasecmp(v, "fifo") != 0)
		return fail(x, "unknown arbitration '%s' (fifo or socket-first)", v);
	if (!b) {
		if (t->arbitration == ARB_SOCKET_FIRST)
			t->max_local_run = largest_socket(t);
		return 0;
	}
	if (t->arbitration != ARB_SOCKET_FIRST)
		return fail(x, "arbitration.max_local_run needs arbitration socket-first");
	if (strcasecmp(b, "unbounded") == 0)
		return 0;
	if (prop_number(x, "arbitration.max_local_run", &d, &given))
		return -1;
	if (d < 1 || d > 1e9 || d != floor(d))
		return fail(x, "arbitration.max_local_run must be a whole number >= 1, or unbounded");
	t->max_local_run = (unsigned)d;
	return 0;
}

static int read_costs(struct ctx *x, struct topo *t)
{
	double hit[TOPO_NOPS], v;
	bool given;

	if (read_protocol(x, t) || read_unit(x, t) || read_latencies(x, t))
		return -1;
	if (prop_number(x, "hit.load", &hit[TOPO_LOAD], &given))
		return -1;
	if (!given)
		return fail(x, "missing property hit.load (see topologies/README.md)");
	hit[TOPO_STORE] = hit[TOPO_ATOMIC] = hit[TOPO_LOAD];
	if (prop_number(x, "hit.store", &hit[TOPO_STORE], &given) ||
	    prop_number(x, "hit.atomic", &hit[TOPO_ATOMIC], &given))
		return -1;
	for (int op = 0; op < TOPO_NOPS; op++)
		t->hit_ps[op] = to_ps(t, hit[op]);
	if (prop_number(x, "pause", &v, &given))
		return -1;
	if (!given)
		return fail(x, "missing property pause (see topologies/README.md)");
	t->pause_ps = to_ps(t, v);
	v = 0;
	if (prop_number(x, "inval_per_sharer", &v, &given))
		return -1;
	t->inval_ps_per_sharer = to_ps(t, v);
	if (read_bytes(x, "msg.data_bytes", 72, &t->data_msg_bytes) ||
	    read_bytes(x, "msg.ctrl_bytes", 8, &t->ctrl_msg_bytes))
		return -1;
	return read_arbitration(x, t);
}

/* ================================================================ platform */

/* Shared with the probing child: how far it got, and its verdict. */
enum probe_stage { PROBE_START, PROBE_LOAD, PROBE_READ, PROBE_ROUTE, PROBE_DONE };

struct probe {
	volatile int stage;
	volatile int a, b; /* sockets, at PROBE_ROUTE */
	volatile int failed;
	char err[768];
};

static void probe_at(struct probe *pr, int stage, int a, int b)
{
	if (!pr)
		return;
	pr->a = a;
	pr->b = b;
	pr->stage = stage;
}

struct link_ref {
	const void *link; /* sg_link_t */
	unsigned idx;
};

static int link_ref_cmp(const void *a, const void *b)
{
	const struct link_ref *x = a, *y = b;

	return x->link < y->link ? -1 : x->link > y->link;
}

static int read_sockets(struct ctx *x, struct topo *t, const struct scan *s)
{
	size_t nhosts = sg_host_count();
	unsigned nc = 0;

	if (nhosts == 0)
		return fail(x, "no cores: the platform has no hosts");
	if (s->nsockets == 0)
		return fail(x, "no socket zones: put each socket's cores in a <cluster> inside the root zone");
	if (s->nsockets > TOPO_MAX_SOCKETS)
		return fail(x, "%u sockets, at most %d", s->nsockets, TOPO_MAX_SOCKETS);
	if (nhosts > TOPO_MAX_CORES)
		return fail(x, "%zu cores, at most %d", nhosts, TOPO_MAX_CORES);
	t->nsockets = s->nsockets;
	t->socket_name = xcalloc(s->nsockets, sizeof(*t->socket_name));
	t->core_host = xcalloc(nhosts, sizeof(*t->core_host));
	for (unsigned k = 0; k < s->nsockets; k++) {
		sg_netzone_t z = sg_zone_get_by_name(s->sockets[k]);
		xbt_dynar_t hs = xbt_dynar_new(sizeof(sg_host_t), NULL);
		unsigned first = nc;

		str_copy(t->socket_name[k], NAME_LEN, s->sockets[k]);
		if (z)
			sg_zone_get_hosts(z, hs);
		for (unsigned i = 0; i < xbt_dynar_length(hs) && nc < nhosts; i++) {
			const char *hn = sg_host_get_name(xbt_dynar_get_as(hs, i, sg_host_t));
			if (strlen(hn) >= NAME_LEN) {
				xbt_dynar_free(&hs);
				return fail(x, "host name %.20s... longer than %d characters", hn, NAME_LEN - 1);
			}
			str_copy(t->core_host[nc], NAME_LEN, hn);
			t->core_socket[nc++] = k;
		}
		xbt_dynar_free(&hs);
		if (nc == first)
			return fail(x, "socket %s has no cores", s->sockets[k]);
		qsort(t->core_host[first], nc - first, sizeof(*t->core_host), natural_qsort_cmp);
	}
	t->ncores = nc;
	if (nc != nhosts)
		return fail(x, "%zu hosts, but the socket zones hold %u: every core must sit in a socket zone",
			    nhosts, nc);
	return 0;
}

static int read_links(struct ctx *x, struct topo *t, const struct scan *s, struct link_ref *refs)
{
	t->nlinks = s->nlinks;
	t->links = xcalloc(s->nlinks, sizeof(*t->links));
	for (unsigned i = 0; i < s->nlinks; i++) {
		sg_link_t l = sg_link_by_name(s->links[i]);
		struct topo_link *tl = &t->links[i];

		if (!l)
			return fail(x, "link %s is not known to SimGrid", s->links[i]);
		str_copy(tl->name, sizeof(tl->name), s->links[i]);
		tl->lat_ps = (uint64_t)llround(sg_link_get_latency(l) * 1e12);
		tl->bw_bytes_per_s = sg_link_get_bandwidth(l);
		tl->a = tl->b = UINT_MAX;
		if (!(tl->bw_bytes_per_s > 0))
			return fail(x, "link %s: bandwidth must be positive", s->links[i]);
		refs[i].link = l;
		refs[i].idx = i;
	}
	qsort(refs, s->nlinks, sizeof(*refs), link_ref_cmp);
	return 0;
}

/* The socket links on the route from socket a to socket b, in order. */
static int route_of(struct ctx *x, struct topo *t, const struct link_ref *refs, unsigned a,
		    unsigned b, unsigned *out, unsigned *n)
{
	xbt_dynar_t rl = xbt_dynar_new(sizeof(sg_link_t), NULL);
	sg_host_t ha, hb;
	unsigned ca = 0, cb = 0;

	while (t->core_socket[ca] != a)
		ca++;
	while (t->core_socket[cb] != b)
		cb++;
	ha = sg_host_by_name(t->core_host[ca]);
	hb = sg_host_by_name(t->core_host[cb]);
	sg_host_get_route(ha, hb, rl);
	*n = 0;
	for (unsigned i = 0; i < xbt_dynar_length(rl); i++) {
		struct link_ref key = { xbt_dynar_get_as(rl, i, sg_link_t), 0 };
		const struct link_ref *r = bsearch(&key, refs, t->nlinks, sizeof(*refs), link_ref_cmp);
		if (r && *n < TOPO_MAX_SOCKETS)
			out[(*n)++] = r->idx;
	}
	xbt_dynar_free(&rl);
	if (*n == 0)
		return fail(x, "the route from %s to %s crosses no socket link (declare socket links in the root zone)",
			    t->socket_name[a], t->socket_name[b]);
	return 0;
}

static int read_routes(struct ctx *x, struct topo *t, const struct link_ref *refs, struct probe *pr)
{
	unsigned ns = t->nsockets, hop[TOPO_MAX_SOCKETS], n, total = 0;

	t->route_off = xcalloc((size_t)ns * ns, sizeof(unsigned));
	t->route_len = xcalloc((size_t)ns * ns, sizeof(unsigned));
	t->route_links = xcalloc((size_t)ns * ns * TOPO_MAX_SOCKETS, sizeof(unsigned));
	for (unsigned a = 0; a < ns; a++) {
		for (unsigned b = 0; b < ns; b++) {
			t->route_off[a * ns + b] = total;
			if (a == b)
				continue;
			probe_at(pr, PROBE_ROUTE, (int)a, (int)b);
			if (route_of(x, t, refs, a, b, hop, &n))
				return -1;
			memcpy(&t->route_links[total], hop, n * sizeof(unsigned));
			t->route_len[a * ns + b] = n;
			total += n;
		}
	}
	return 0;
}

/* Which sockets each link joins: single-link routes say it; longer routes
 * are walked from their source through links already placed. */
static int place_links(struct ctx *x, struct topo *t)
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
						return fail(x, "the route from %s to %s is not a chain: link %s does not touch %s",
							    t->socket_name[a], t->socket_name[b], l->name,
							    t->socket_name[cur]);
					cur = l->a == cur ? l->b : l->a;
				}
			}
		}
	}
	for (unsigned i = 0; i < t->nlinks; i++)
		if (t->links[i].a == UINT_MAX)
			return fail(x, "link %s: no route between sockets uses it where its ends can be told",
				    t->links[i].name);
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int make_classes(struct ctx *x, struct topo *t)
{
	unsigned ns = t->nsockets, nd = 0;
	uint64_t *lat = xcalloc((size_t)ns * ns, sizeof(uint64_t)), distinct[TOPO_MAX_CLASSES];

	for (unsigned i = 0; i < ns * ns; i++)
		for (unsigned k = 0; k < t->route_len[i]; k++)
			lat[i] += t->links[t->route_links[t->route_off[i] + k]].lat_ps;
	t->socket_class = xcalloc((size_t)ns * ns, 1);
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
				return fail(x, "the routes between sockets have more than %d distinct latencies",
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

static int check_class_zero(struct ctx *x, struct topo *t)
{
	if (t->nclasses > 1 && t->class_lat_ps[1] == 0)
		return fail(x, "a route between sockets has zero latency: give the socket links a latency");
	return 0;
}

/* Load the platform into SimGrid and read it all (pass 2 in the child, pass 3 here). */
static int load_platform(struct ctx *x, struct topo *t, const struct scan *s, struct probe *pr)
{
	struct link_ref *refs;
	int rc;

	probe_at(pr, PROBE_LOAD, -1, -1);
	simgrid_load_platform(x->path);
	probe_at(pr, PROBE_READ, -1, -1);
	if (read_sockets(x, t, s))
		return -1;
	refs = xcalloc(s->nlinks, sizeof(*refs));
	rc = read_links(x, t, s, refs);
	if (!rc)
		rc = read_routes(x, t, refs, pr);
	free(refs);
	probe_at(pr, PROBE_READ, -1, -1);
	if (rc || place_links(x, t) || make_classes(x, t) || check_class_zero(x, t) ||
	    read_costs(x, t))
		return -1;
	probe_at(pr, PROBE_DONE, -1, -1);
	return 0;
}

/* The first message SimGrid printed before dying, without its log prefix. */
static void simgrid_message(FILE *f, char *out, size_t len)
{
	char line[1024];

	out[0] = 0;
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		char *m = strstr(line, "/ERROR] ");
		if (!m)
			m = strstr(line, "/CRITICAL] ");
		if (!m)
			continue;
		m = strchr(m, ']') + 2;
		m[strcspn(m, "\r\n")] = 0;
		if (!*m || strncmp(m, "Exiting now", 11) == 0 || strncmp(m, "Current backtrace", 17) == 0)
			continue;
		/* "Invalid XML (XML input line 7, state 59): " says nothing more */
		char *inv = strstr(m, "Invalid XML (XML input line"), *close = inv ? strstr(inv, "): ") : NULL;
		if (close)
			memmove(inv, close + 3, strlen(close + 3) + 1);
		str_copy(out, len, m);
		return;
	}
}

static void probe_verdict(struct ctx *x, const struct scan *s, const struct probe *pr,
			  int status, FILE *errf)
{
	char sg[400];

	if (pr->failed && pr->err[0]) {
		str_copy(x->err, x->errlen, pr->err);
		return;
	}
	simgrid_message(errf, sg, sizeof(sg));
	if (pr->stage == PROBE_ROUTE) {
		fail(x, "no route from %s to %s%s%s", s->sockets[pr->a], s->sockets[pr->b],
		     sg[0] ? ": " : "", sg);
		return;
	}
	if (sg[0]) {
		fail(x, "SimGrid refuses the platform: %s", sg);
		return;
	}
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		fail(x, "SimGrid did not finish loading the platform within a minute");
	else if (WIFSIGNALED(status))
		fail(x, "SimGrid refuses the platform (it died of signal %d)", WTERMSIG(status));
	else
		fail(x, "SimGrid refuses the platform (exit status %d)", WEXITSTATUS(status));
}

static void probe_child(struct ctx *x, const struct scan *s, struct probe *pr, FILE *errf)
{
	struct topo *tmp = xcalloc(1, sizeof(*tmp));
	int devnull = open("/dev/null", O_WRONLY);
	struct ctx cx = { x->path, pr->err, sizeof(pr->err) };

	/* die of what kills us: a handler inherited from the caller (a test
	 * framework's, say) must not carry on in the child */
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGALRM };
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		signal(fatal[i], SIG_DFL);
	alarm(60); /* a platform SimGrid chokes on must not hang us */
	if (devnull >= 0)
		dup2(devnull, STDOUT_FILENO);
	dup2(fileno(errf), STDERR_FILENO);
	xbt_log_control_set("root.thres:error xbt_exception.thres:error");
	if (load_platform(&cx, tmp, s, pr)) {
		pr->failed = 1;
		_exit(1);
	}
	_exit(0);
}

/* Pass 2: 0 when a child could load and read the platform. */
static int probe_platform(struct ctx *x, const struct scan *s)
{
	struct probe *pr = mmap(NULL, sizeof(*pr), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	FILE *errf = tmpfile();
	int status = 0, rc = -1;
	pid_t pid, got;

	if (!errf) /* no temporary file: lose SimGrid's words, keep the check */
		errf = fopen("/dev/null", "w+");
	if (pr == MAP_FAILED || !errf) {
		if (errf)
			fclose(errf);
		if (pr != MAP_FAILED)
			munmap(pr, sizeof(*pr));
		return fail(x, "cannot set up the platform check: %s", strerror(errno));
	}
	memset(pr, 0, sizeof(*pr));
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0)
		probe_child(x, s, pr, errf);
	if (pid < 0) {
		fail(x, "cannot fork to check the platform: %s", strerror(errno));
		goto out;
	}
	do
		got = waitpid(pid, &status, 0);
	while (got < 0 && errno == EINTR);
	if (got == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 && pr->stage == PROBE_DONE)
		rc = 0;
	else
		probe_verdict(x, s, pr, status, errf);
out:
	fclose(errf);
	munmap(pr, sizeof(*pr));
	return rc;
}

/* ================================================================ resolving */

static bool is_readable_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool looks_like_path(const char *s)
{
	size_t n = strlen(s);

	return strchr(s, '/') || (n > 4 && strcmp(s + n - 4, ".xml") == 0);
}

/* Directories that may hold topologies/, in the order topo_resolve tries them. */
static unsigned topo_dirs(char dirs[][PATH_MAX], unsigned max)
{
	char exe[PATH_MAX];
	unsigned n = 0;
	const char *env = getenv("LOCKLAB_TOPODIR");
	ssize_t len;

	snprintf(dirs[n++], PATH_MAX, "topologies");
	if (env && *env && n < max)
		str_copy(dirs[n++], PATH_MAX, env);
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0)
		return n;
	exe[len] = 0;
	for (int up = 0; up < 5 && n < max; up++) {
		char *slash = strrchr(exe, '/');
		if (!slash)
			break;
		*slash = 0;
		if (!*exe)
			break;
		snprintf(dirs[n++], PATH_MAX, "%.*s/topologies", PATH_MAX - 16, exe);
	}
	return n;
}

int topo_resolve(const char *name_or_path, char *path, size_t pathlen)
{
	char dirs[8][PATH_MAX];
	unsigned n;

	if (!name_or_path || !*name_or_path) {
		str_copy(path, pathlen, "");
		return -1;
	}
	if (looks_like_path(name_or_path)) {
		str_copy(path, pathlen, name_or_path);
		return is_readable_file(path) ? 0 : -1;
	}
	n = topo_dirs(dirs, 8);
	for (unsigned i = 0; i < n; i++) {
		char cand[PATH_MAX + 128];
		snprintf(cand, sizeof(cand), "%.*s/%.*s.xml", PATH_MAX - 1, dirs[i], 120, name_or_path);
		if (i == 0)
			str_copy(path, pathlen, cand);
		if (is_readable_file(cand)) {
			str_copy(path, pathlen, cand);
			return 0;
		}
	}
	return -1;
}

/* The names of the *.xml files in dir, up to max; -1 if it cannot be read. */
static int list_xml(const char *dir, char names[][NAME_LEN], unsigned max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) && n < max) {
		size_t len = strlen(e->d_name);
		if (len > 4 && len - 4 < NAME_LEN && strcmp(e->d_name + len - 4, ".xml") == 0)
			snprintf(names[n++], NAME_LEN, "%.*s", (int)(len - 4), e->d_name);
	}
	closedir(d);
	return (int)n;
}

/* "1socket, 2socket, ..." from the first topologies directory found. */
static void known_names(char *out, size_t len)
{
	char dirs[8][PATH_MAX], names[64][NAME_LEN];
	unsigned nd = topo_dirs(dirs, 8);
	int nn = -1;
	size_t used = 0;

	out[0] = 0;
	for (unsigned i = 0; i < nd && nn <= 0; i++)
		nn = list_xml(dirs[i], names, 64);
	if (nn <= 0)
		return;
	qsort(names, (size_t)nn, sizeof(names[0]), natural_qsort_cmp);
	for (int i = 0; i < nn && used + NAME_LEN + 4 < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "", names[i]);
}

/* ================================================================ entry points */

static void set_name(struct topo *t, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 4 && strcmp(base + n - 4, ".xml") == 0)
		n -= 4;
	snprintf(t->name, sizeof(t->name), "%.*s", (int)(n < sizeof(t->name) ? n : sizeof(t->name) - 1), base);
	str_copy(t->path, sizeof(t->path), path);
}

static int resolve_or_fail(const char *name_or_path, char *path, size_t len, char *err, size_t errlen)
{
	char known[512];

	if (!name_or_path || !*name_or_path) {
		snprintf(err, errlen, "no topology given (a name under topologies/ or a path)");
		return -1;
	}
	if (topo_resolve(name_or_path, path, len) == 0)
		return 0;
	if (looks_like_path(name_or_path)) {
		snprintf(err, errlen, "%s: %s", path, is_readable_file(path) ? "cannot read" :
			 access(path, F_OK) == 0 ? "not a regular file" : strerror(ENOENT));
		return -1;
	}
	known_names(known, sizeof(known));
	snprintf(err, errlen, "unknown topology '%s': %s does not exist%s%s", name_or_path, path,
		 known[0] ? " (known: " : "", known[0] ? known : "");
	if (known[0])
		snprintf(err + strlen(err), errlen - strlen(err), ")");
	return -1;
}

int topo_load(struct topo *t, const char *name_or_path, char *err, size_t errlen)
{
	char path[PATH_MAX], *text = NULL;
	struct ctx x = { path, err, errlen };
	struct scan *s = xcalloc(1, sizeof(*s));
	size_t len = 0;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if (resolve_or_fail(name_or_path, path, sizeof(path), err, errlen))
		goto out;
	set_name(t, path);
	if (read_whole(&x, &text, &len) || scan_xml(&x, text, len, s) || check_prop_names(&x, s) ||
	    probe_platform(&x, s))
		goto out;
	rc = load_platform(&x, t, s, NULL);
out:
	if (rc)
		topo_free(t);
	free(text);
	scan_free(s);
	free(s);
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
	t->core_host = NULL;
	t->socket_class = NULL;
	t->links = NULL;
	t->route_off = t->route_len = t->route_links = NULL;
	t->socket_name = NULL;
}
