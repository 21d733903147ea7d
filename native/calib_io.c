/*
 * native/calib_io.c - a calibration as text, and as a SimGrid platform file.
 *
 * The text form (results/host-HOST.calib.csv) is one record a line, the
 * first field naming it; '#' starts a comment line:
 *
 *   version,1
 *   host,NAME              cpu_model,TEXT     vendor,TEXT     date,ISO-8601
 *   tsc_ghz,X              reps,N             loadavg,X (-1: unknown)
 *   sockets,S              socket_pus,P0 P1 ..   (PUs of each socket)
 *   numa_nodes,N           classes,C
 *   class_link_ns,L0 L1 .. (one a class; L0 is 0)
 *   socket_class,K00 K01 .. (S x S, row by row)
 *   inval_per_sharer_ns,X  (or '-' when it could not be measured)
 *   cell,CLASS,OP,STATE,CPU_A,CPU_B,MEDIAN,P10,P90,MAD,SAMPLES,TRIMMED
 *   hit,-,OP,-,CPU,-1,...  pause,-,-,-,CPU,-1,...  mem,NODE,load,I,CPU,-1,...
 *
 * Times are ns.  The platform file takes the medians: load and store rows
 * as measured, the atomic row as the mean of the cas, fai and swap medians
 * (topologies/README.md has one row for every read-modify-write).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"

const char *const calib_op_names[CAL_NOPS] = { "load", "store", "cas", "fai", "swap" };
const char calib_state_names[CAL_NSTATES] = { 'M', 'E', 'S', 'I' };

/* ------------------------------------------------------------ writing */

static void write_cell(FILE *f, const char *what, const char *where, const char *op,
		       const char *state, const struct calib_cell *x)
{
	if (!x->measured)
		return;
	fprintf(f, "%s,%s,%s,%s,%d,%d,%.3f,%.3f,%.3f,%.3f,%u,%u\n", what, where, op, state,
		x->cpu_a, x->cpu_b, x->median, x->p10, x->p90, x->mad, x->samples, x->trimmed);
}

static void write_list_u(FILE *f, const char *key, const unsigned *v, unsigned n)
{
	fprintf(f, "%s,", key);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%s%u", i ? " " : "", v[i]);
	fputc('\n', f);
}

static void write_header(FILE *f, const struct calib *c)
{
	unsigned ns = c->nsockets;

	fprintf(f, "# locklab calibration (locklab-native calibrate); times in ns\n");
	fprintf(f, "version,1\nhost,%s\ncpu_model,%s\nvendor,%s\ndate,%s\n", c->host,
		c->cpu_model, c->vendor, c->date);
	fprintf(f, "tsc_ghz,%.6f\nreps,%u\nloadavg,%.2f\n", c->tsc_ghz, c->reps, c->loadavg);
	fprintf(f, "sockets,%u\n", ns);
	write_list_u(f, "socket_pus", c->socket_pus, ns);
	fprintf(f, "numa_nodes,%u\nclasses,%u\nclass_link_ns,", c->nnodes, c->nclasses);
	for (unsigned k = 0; k < c->nclasses; k++)
		fprintf(f, "%s%.3f", k ? " " : "", c->class_link_ns[k]);
	fprintf(f, "\nsocket_class,");
	for (unsigned i = 0; i < ns * ns; i++)
		fprintf(f, "%s%u", i ? " " : "", c->socket_class[i]);
	if (c->inval_measured)
		fprintf(f, "\ninval_per_sharer_ns,%.3f\n", c->inval_per_sharer_ns);
	else
		fprintf(f, "\ninval_per_sharer_ns,-\n");
}

void calib_write(FILE *f, const struct calib *c)
{
	char where[16], st[2] = { 0, 0 };

	write_header(f, c);
	fprintf(f, "# what,class|node,op,state,cpu_a,cpu_b,median_ns,p10_ns,p90_ns,mad_ns,"
		   "samples,trimmed\n");
	for (unsigned k = 0; k < c->nclasses; k++) {
		snprintf(where, sizeof(where), "%u", k);
		for (int op = 0; op < CAL_NOPS; op++)
			for (int s = 0; s < CAL_NSTATES; s++) {
				st[0] = calib_state_names[s];
				write_cell(f, "cell", where, calib_op_names[op], st, &c->cell[op][s][k]);
			}
	}
	for (int op = 0; op < CAL_NOPS; op++)
		write_cell(f, "hit", "-", calib_op_names[op], "-", &c->hit[op]);
	write_cell(f, "pause", "-", "-", "-", &c->pause);
	for (unsigned n = 0; n < c->nnodes && n < CALIB_MAX_NODES; n++) {
		snprintf(where, sizeof(where), "%u", n);
		write_cell(f, "mem", where, "load", "I", &c->mem[n]);
	}
}

/* ------------------------------------------------------------ parsing */

struct pctx {
	unsigned line;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3)))
static int perr(struct pctx *p, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errlen, "line %u: %s", p->line, msg);
	return -1;
}

static int parse_double(struct pctx *p, const char *s, double *out, const char *what)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(*out))
		return perr(p, "%s: '%s' is not a number", what, s);
	return 0;
}

static int parse_uint(struct pctx *p, const char *s, unsigned *out, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!isdigit((unsigned char)*s) || *end || errno || v > UINT_MAX)
		return perr(p, "%s: '%s' is not a whole number", what, s);
	*out = (unsigned)v;
	return 0;
}

static int parse_int(struct pctx *p, const char *s, int *out, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < -1 || v > INT_MAX)
		return perr(p, "%s: '%s' is not a cpu number", what, s);
	*out = (int)v;
	return 0;
}

/* A space-separated list of whole numbers, exactly `want` of them. */
static int parse_ulist(struct pctx *p, char *s, unsigned *out, unsigned want, const char *what)
{
	char *save = NULL;
	unsigned n = 0;

	for (char *t = strtok_r(s, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		if (n == want)
			return perr(p, "%s: more than %u values", what, want);
		if (parse_uint(p, t, &out[n], what))
			return -1;
		n++;
	}
	if (n != want)
		return perr(p, "%s: %u values, expected %u", what, n, want);
	return 0;
}

static int parse_dlist(struct pctx *p, char *s, double *out, unsigned want, const char *what)
{
	char *save = NULL;
	unsigned n = 0;

	for (char *t = strtok_r(s, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		if (n == want)
			return perr(p, "%s: more than %u values", what, want);
		if (parse_double(p, t, &out[n], what))
			return -1;
		n++;
	}
	if (n != want)
		return perr(p, "%s: %u values, expected %u", what, n, want);
	return 0;
}

static int find_name(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static int find_state(const char *s)
{
	for (int i = 0; i < CAL_NSTATES; i++)
		if (s[0] == calib_state_names[i] && !s[1])
			return i;
	return -1;
}

/* Splits a record into at most max comma-separated fields. */
static unsigned split(char *s, char **f, unsigned max)
{
	unsigned n = 0;

	while (n < max) {
		f[n++] = s;
		s = strchr(s, ',');
		if (!s)
			break;
		*s++ = 0;
	}
	return n;
}

/* The statistics fields (6 onwards) of a cell-like record. */
static int parse_stats(struct pctx *p, char **f, struct calib_cell *x)
{
	if (parse_int(p, f[4], &x->cpu_a, "cpu_a") || parse_int(p, f[5], &x->cpu_b, "cpu_b") ||
	    parse_double(p, f[6], &x->median, "median_ns") ||
	    parse_double(p, f[7], &x->p10, "p10_ns") || parse_double(p, f[8], &x->p90, "p90_ns") ||
	    parse_double(p, f[9], &x->mad, "mad_ns") ||
	    parse_uint(p, f[10], &x->samples, "samples") ||
	    parse_uint(p, f[11], &x->trimmed, "trimmed"))
		return -1;
	if (x->median < 0)
		return perr(p, "median_ns: negative time %g", x->median);
	if (x->trimmed > x->samples)
		return perr(p, "trimmed %u is more than the %u samples", x->trimmed, x->samples);
	if (x->measured)
		return perr(p, "given twice");
	x->measured = true;
	return 0;
}

static int parse_cellrec(struct pctx *p, struct calib *c, char *rest, const char *what)
{
	char *f[13];
	unsigned idx = 0;
	int op = -1, st;

	if (split(rest, f + 1, 12) != 11)
		return perr(p, "%s: expected 12 fields", what);
	if (!strcmp(what, "cell") || !strcmp(what, "mem"))
		if (parse_uint(p, f[1], &idx, !strcmp(what, "cell") ? "class" : "node"))
			return -1;
	if (strcmp(what, "pause")) {
		op = find_name(f[2], calib_op_names, CAL_NOPS);
		if (op < 0)
			return perr(p, "unknown operation '%s'", f[2]);
	}
	if (!strcmp(what, "cell")) {
		st = find_state(f[3]);
		if (st < 0)
			return perr(p, "unknown line state '%s' (M, E, S or I)", f[3]);
		if (idx >= CALIB_MAX_CLASSES)
			return perr(p, "class %u: at most %d classes", idx, CALIB_MAX_CLASSES);
		return parse_stats(p, f, &c->cell[op][st][idx]);
	}
	if (!strcmp(what, "hit"))
		return parse_stats(p, f, &c->hit[op]);
	if (!strcmp(what, "pause"))
		return parse_stats(p, f, &c->pause);
	if (idx >= CALIB_MAX_NODES)
		return perr(p, "node %u: at most %d nodes", idx, CALIB_MAX_NODES);
	return parse_stats(p, f, &c->mem[idx]);
}

static void copy_text(char *d, size_t n, const char *s)
{
	snprintf(d, n, "%s", s);
}

/* Records whose value is a single field.  *seen gets a bit per key. */
static int parse_scalar(struct pctx *p, struct calib *c, const char *key, char *v,
			unsigned *seen)
{
	static const char *const keys[] = { "version", "host", "cpu_model", "vendor", "date",
					    "tsc_ghz", "reps", "loadavg", "sockets", "numa_nodes",
					    "classes", "inval_per_sharer_ns" };
	int k = find_name(key, keys, (int)(sizeof(keys) / sizeof(keys[0])));
	unsigned u;

	if (k < 0)
		return 1;
	if (*seen & (1u << k))
		return perr(p, "%s given twice", key);
	*seen |= 1u << k;
	switch (k) {
	case 0:
		if (parse_uint(p, v, &u, key))
			return -1;
		return u == 1 ? 0 : perr(p, "calibration format version %u (this locklab reads 1)", u);
	case 1:
		copy_text(c->host, sizeof(c->host), v);
		return 0;
	case 2:
		copy_text(c->cpu_model, sizeof(c->cpu_model), v);
		return 0;
	case 3:
		copy_text(c->vendor, sizeof(c->vendor), v);
		return 0;
	case 4:
		copy_text(c->date, sizeof(c->date), v);
		return 0;
	case 5:
		return parse_double(p, v, &c->tsc_ghz, key);
	case 6:
		return parse_uint(p, v, &c->reps, key);
	case 7:
		return parse_double(p, v, &c->loadavg, key);
	case 8:
		if (parse_uint(p, v, &c->nsockets, key))
			return -1;
		if (!c->nsockets || c->nsockets > CALIB_MAX_SOCKETS)
			return perr(p, "sockets: %u (1..%d)", c->nsockets, CALIB_MAX_SOCKETS);
		return 0;
	case 9:
		if (parse_uint(p, v, &c->nnodes, key))
			return -1;
		if (!c->nnodes || c->nnodes > CALIB_MAX_NODES)
			return perr(p, "numa_nodes: %u (1..%d)", c->nnodes, CALIB_MAX_NODES);
		return 0;
	case 10:
		if (parse_uint(p, v, &c->nclasses, key))
			return -1;
		if (!c->nclasses || c->nclasses > CALIB_MAX_CLASSES)
			return perr(p, "classes: %u (1..%d)", c->nclasses, CALIB_MAX_CLASSES);
		return 0;
	default:
		if (!strcmp(v, "-"))
			return 0;
		c->inval_measured = true;
		return parse_double(p, v, &c->inval_per_sharer_ns, key);
	}
}

/* Lists need the counts first: sockets before socket_pus and socket_class,
 * classes before class_link_ns. */
static int parse_listrec(struct pctx *p, struct calib *c, const char *key, char *v)
{
	if (!strcmp(key, "socket_pus")) {
		if (!c->nsockets)
			return perr(p, "socket_pus before sockets");
		return parse_ulist(p, v, c->socket_pus, c->nsockets, key);
	}
	if (!strcmp(key, "socket_class")) {
		unsigned cls[CALIB_MAX_SOCKETS * CALIB_MAX_SOCKETS];
		unsigned n = c->nsockets * c->nsockets;

		if (!c->nsockets)
			return perr(p, "socket_class before sockets");
		if (parse_ulist(p, v, cls, n, key))
			return -1;
		for (unsigned i = 0; i < n; i++) {
			if (cls[i] >= CALIB_MAX_CLASSES)
				return perr(p, "socket_class: class %u out of range", cls[i]);
			c->socket_class[i] = (unsigned char)cls[i];
		}
		return 0;
	}
	if (!strcmp(key, "class_link_ns")) {
		if (!c->nclasses)
			return perr(p, "class_link_ns before classes");
		return parse_dlist(p, v, c->class_link_ns, c->nclasses, key);
	}
	return 1;
}

static int parse_line(struct pctx *p, struct calib *c, char *line, unsigned *seen)
{
	char *comma = strchr(line, ',');
	int rc;

	if (!comma)
		return perr(p, "'%.40s': expected KEY,VALUE", line);
	*comma = 0;
	rc = parse_scalar(p, c, line, comma + 1, seen);
	if (rc <= 0)
		return rc;
	rc = parse_listrec(p, c, line, comma + 1);
	if (rc <= 0)
		return rc;
	if (!strcmp(line, "cell") || !strcmp(line, "hit") || !strcmp(line, "pause") ||
	    !strcmp(line, "mem"))
		return parse_cellrec(p, c, comma + 1, line);
	return perr(p, "unknown record '%.40s'", line);
}

int calib_parse(const char *text, struct calib *c, char *err, size_t errlen)
{
	struct pctx p = { .line = 0, .err = err, .errlen = errlen };
	char *buf = strdup(text), *save = NULL;
	unsigned seen = 0;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	c->loadavg = -1;
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (char *s = buf; s && !rc; s = save) {
		save = strchr(s, '\n');
		if (save)
			*save++ = 0;
		p.line++;
		s[strcspn(s, "\r")] = 0;
		if (!*s || *s == '#')
			continue;
		rc = parse_line(&p, c, s, &seen);
	}
	free(buf);
	if (!rc && !(seen & 1u)) {
		snprintf(err, errlen, "no 'version' record: not a locklab calibration");
		rc = -1;
	}
	return rc ? -1 : calib_check(c, err, errlen);
}

int calib_read_file(const char *path, struct calib *c, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL, msg[400];
	size_t len = 0;
	int rc;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	FILE *m = open_memstream(&text, &len);
	int ch;

	if (!m) {
		fclose(f);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	while ((ch = fgetc(f)) != EOF && ch)
		fputc(ch, m);
	fclose(f);
	fclose(m);
	if (ch == 0) {
		free(text);
		snprintf(err, errlen, "%s: a NUL byte: not a calibration file", path);
		return -1;
	}
	rc = calib_parse(text, c, msg, sizeof(msg));
	free(text);
	if (rc)
		snprintf(err, errlen, "%s: %s", path, msg);
	return rc;
}

/* ------------------------------------------------------------ checks */

static int check_structure(const struct calib *c, char *err, size_t errlen)
{
	unsigned ns = c->nsockets;

	if (!ns || !c->nclasses || !c->nnodes) {
		snprintf(err, errlen, "sockets, classes and numa_nodes are required");
		return -1;
	}
	for (unsigned s = 0; s < ns; s++)
		if (!c->socket_pus[s]) {
			snprintf(err, errlen, "socket_pus: socket %u has no PU", s);
			return -1;
		}
	for (unsigned a = 0; a < ns; a++)
		for (unsigned b = 0; b < ns; b++) {
			unsigned k = c->socket_class[a * ns + b];

			if ((a == b) != (k == 0) || k >= c->nclasses ||
			    k != c->socket_class[b * ns + a]) {
				snprintf(err, errlen,
					 "socket_class: sockets %u,%u have class %u (0 only within a socket, symmetric, below %u)",
					 a, b, k, c->nclasses);
				return -1;
			}
		}
	for (unsigned k = 1; k < c->nclasses; k++)
		if (!(c->class_link_ns[k] > c->class_link_ns[k - 1])) {
			snprintf(err, errlen, "class_link_ns must increase from class to class");
			return -1;
		}
	return 0;
}

int calib_check(const struct calib *c, char *err, size_t errlen)
{
	if (check_structure(c, err, errlen))
		return -1;
	for (unsigned k = 0; k < c->nclasses; k++)
		for (int op = 0; op < CAL_NOPS; op++)
			for (int s = 0; s < CAL_NSTATES; s++)
				if (!c->cell[op][s][k].measured) {
					snprintf(err, errlen, "no figure for %s on %c at class %u",
						 calib_op_names[op], calib_state_names[s], k);
					return -1;
				}
	for (int op = 0; op < CAL_NOPS; op++)
		if (!c->hit[op].measured) {
			snprintf(err, errlen, "no hit figure for %s", calib_op_names[op]);
			return -1;
		}
	if (!c->pause.measured) {
		snprintf(err, errlen, "no pause figure");
		return -1;
	}
	return 0;
}

int calib_check_out_path(const char *path, char *err, size_t errlen)
{
	const char *p = path;

	while ((p = strstr(p, "topologies/"))) {
		if (p == path || p[-1] == '/') {
			snprintf(err, errlen,
				 "%s: a calibration never goes under topologies/ (write it under results/)",
				 path);
			return -1;
		}
		p++;
	}
	return 0;
}

/* ------------------------------------------------------- the classes */

struct pair {
	unsigned s, t;
	double ns;
};

static int pair_cmp(const void *a, const void *b)
{
	const struct pair *p = a, *q = b;

	if (p->ns != q->ns)
		return p->ns < q->ns ? -1 : 1;
	return p->s != q->s ? (p->s < q->s ? -1 : 1) : (p->t > q->t) - (p->t < q->t);
}

void calib_group_pairs(struct calib *c, const double *lat, unsigned rep[][2])
{
	unsigned ns = c->nsockets, np = 0, first = 0, k = 1;
	struct pair *pairs = calloc(ns * ns + 1, sizeof(*pairs));

	memset(c->socket_class, 0, sizeof(c->socket_class));
	c->nclasses = 1;
	if (!pairs)
		return;
	for (unsigned s = 0; s < ns; s++)
		for (unsigned t = s + 1; t < ns; t++)
			pairs[np++] = (struct pair){ s, t, lat[s * ns + t] };
	qsort(pairs, np, sizeof(*pairs), pair_cmp);
	for (unsigned i = 1; i <= np; i++) {
		if (i < np && (pairs[i].ns <= CALIB_CLASS_STEP * pairs[first].ns ||
			       k == CALIB_MAX_CLASSES - 1))
			continue;
		rep[k][0] = pairs[first + (i - 1 - first) / 2].s;
		rep[k][1] = pairs[first + (i - 1 - first) / 2].t;
		for (unsigned j = first; j < i; j++) {
			c->socket_class[pairs[j].s * ns + pairs[j].t] = (unsigned char)k;
			c->socket_class[pairs[j].t * ns + pairs[j].s] = (unsigned char)k;
		}
		c->nclasses = k + 1;
		first = i;
		k++;
	}
	free(pairs);
}

void calib_link_latencies(struct calib *c)
{
	double m0 = c->cell[CAL_LOAD][CAL_M][0].median;

	c->class_link_ns[0] = 0;
	for (unsigned k = 1; k < c->nclasses; k++) {
		double l = (c->cell[CAL_LOAD][CAL_M][k].median - m0) / 2;

		c->class_link_ns[k] = fmax(l, c->class_link_ns[k - 1] + 1.0);
	}
}

/* ------------------------------------------------------- the platform */

double calib_row_value(const struct calib *c, int topo_op, enum calib_state st, unsigned cls)
{
	if (topo_op == 0)
		return c->cell[CAL_LOAD][st][cls].median;
	if (topo_op == 1)
		return c->cell[CAL_STORE][st][cls].median;
	return (c->cell[CAL_CAS][st][cls].median + c->cell[CAL_FAI][st][cls].median +
		c->cell[CAL_SWAP][st][cls].median) / 3.0;
}

static double hit_value(const struct calib *c, int topo_op)
{
	if (topo_op < 2)
		return c->hit[topo_op].median;
	return (c->hit[CAL_CAS].median + c->hit[CAL_FAI].median + c->hit[CAL_SWAP].median) / 3.0;
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f)
				fputc(*s, f);
		}
	}
}

/* Text inside a comment: printable ASCII, and never "--". */
static void comment_text(FILE *f, const char *s)
{
	char prev = 0;

	for (; *s; s++) {
		char ch = (unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f ? *s : '?';

		if (ch == '-' && prev == '-')
			ch = '_';
		fputc(ch, f);
		prev = ch;
	}
}

static const char *protocol_of(const char *vendor)
{
	if (!strcmp(vendor, "GenuineIntel"))
		return "MESIF";
	if (!strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine"))
		return "MOESI";
	return "MESI";
}

static void spread_comment(FILE *f, const char *name, unsigned k, const struct calib_cell *x)
{
	char from[32];

	if (x->cpu_b >= 0)
		snprintf(from, sizeof(from), "cpu %d", x->cpu_b);
	else
		snprintf(from, sizeof(from), "memory");
	fprintf(f, "    <!-- %s class %u: cpu %d <- %s: median %.1f, p10 %.1f, p90 %.1f, MAD %.1f, %u of %u kept -->\n",
		name, k, x->cpu_a, from, x->median, x->p10, x->p90, x->mad,
		x->samples - x->trimmed, x->samples);
}

static void write_row(FILE *f, const struct calib *c, int topo_op, enum calib_state st)
{
	static const char *const rows[] = { "load", "store", "atomic" };
	char name[32];

	snprintf(name, sizeof(name), "lat.%s.%c", rows[topo_op], calib_state_names[st]);
	for (unsigned k = 0; k < c->nclasses; k++) {
		if (topo_op < 2) {
			spread_comment(f, name, k, &c->cell[topo_op][st][k]);
			continue;
		}
		fprintf(f, "    <!-- %s class %u: mean of cas %.1f, fai %.1f, swap %.1f -->\n", name, k,
			c->cell[CAL_CAS][st][k].median, c->cell[CAL_FAI][st][k].median,
			c->cell[CAL_SWAP][st][k].median);
	}
	fprintf(f, "    <prop id=\"%s\" value=\"", name);
	for (unsigned k = 0; k < c->nclasses; k++)
		fprintf(f, "%s%.2f", k ? " " : "", fmax(0.0, calib_row_value(c, topo_op, st, k)));
	fprintf(f, "\"/>\n");
}

static void write_costs(FILE *f, const struct calib *c)
{
	static const char *const hits[] = { "hit.load", "hit.store", "hit.atomic" };

	for (int op = 0; op < 3; op++)
		for (int st = 0; st < CAL_NSTATES; st++)
			write_row(f, c, op, (enum calib_state)st);
	for (int op = 0; op < 3; op++)
		fprintf(f, "    <prop id=\"%s\" value=\"%.2f\"/>\n", hits[op], fmax(0.0, hit_value(c, op)));
	fprintf(f, "    <prop id=\"pause\" value=\"%.2f\"/>\n", fmax(0.0, c->pause.median));
	if (c->inval_measured)
		fprintf(f, "    <!-- inval_per_sharer: slope of a store on S against the number of sharers -->\n");
	else
		fprintf(f, "    <!-- inval_per_sharer: not measurable here (needs three PUs in a socket): 0 -->\n");
	fprintf(f, "    <prop id=\"inval_per_sharer\" value=\"%.2f\"/>\n",
		c->inval_measured ? fmax(0.0, c->inval_per_sharer_ns) : 0.0);
	fprintf(f, "    <prop id=\"msg.data_bytes\" value=\"72\"/>\n");
	fprintf(f, "    <prop id=\"msg.ctrl_bytes\" value=\"8\"/>\n");
}

static void write_heading(FILE *f, const struct calib *c, const char *zone_id)
{
	fprintf(f, "<?xml version='1.0'?>\n"
		   "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<!--\n  ");
	comment_text(f, zone_id);
	fprintf(f, ": this machine as `locklab-native calibrate` measured it");
	fprintf(f, "\n  (host ");
	comment_text(f, c->host);
	fprintf(f, ", ");
	comment_text(f, c->date);
	fprintf(f, ", %u samples a figure, TSC %.3f GHz", c->reps, c->tsc_ghz);
	if (c->loadavg >= 0)
		fprintf(f, ", load average %.2f", c->loadavg);
	fprintf(f, ").\n"
		   "  Every lat.* value is the median of its samples after outliers beyond\n"
		   "  3 x IQR were dropped; the spread of each is in the comment above it and\n"
		   "  in the .calib.csv file written beside this one.  One socket zone per\n"
		   "  package, one host per PU.  Not measured: socket link bandwidth\n"
		   "  (20.8 GBps per direction assumed) and message sizes (the defaults).\n"
		   "  Regenerate with `locklab-native calibrate`; docs/validate.md says how.\n-->\n");
}

static void write_sockets(FILE *f, const struct calib *c)
{
	unsigned ns = c->nsockets;

	fprintf(f, "\n    <!-- Sockets: one cluster each; hosts are PUs. -->\n");
	for (unsigned s = 0; s < ns; s++)
		fprintf(f, "    <cluster id=\"socket%u\" prefix=\"s%uc\" suffix=\"\" radical=\"0-%u\" "
			   "speed=\"1Gf\" bw=\"100GBps\" lat=\"0ns\" router_id=\"socket%u_router\"/>\n",
			s, s, c->socket_pus[s] - 1, s);
	if (ns < 2)
		return;
	fprintf(f, "\n    <!-- Socket links, one per pair: latency by distance class, one way. -->\n");
	for (unsigned a = 0; a < ns; a++)
		for (unsigned b = a + 1; b < ns; b++)
			fprintf(f, "    <link id=\"link%u_%u\" bandwidth=\"20.8GBps\" latency=\"%.3fns\"/>\n",
				a, b, c->class_link_ns[c->socket_class[a * ns + b]]);
	fprintf(f, "\n");
	for (unsigned a = 0; a < ns; a++)
		for (unsigned b = a + 1; b < ns; b++)
			fprintf(f, "    <zoneRoute src=\"socket%u\" dst=\"socket%u\" gw_src=\"socket%u_router\" "
				   "gw_dst=\"socket%u_router\"><link_ctn id=\"link%u_%u\"/></zoneRoute>\n",
				a, b, a, b, a, b);
}

void calib_write_topology(FILE *f, const struct calib *c, const char *zone_id)
{
	write_heading(f, c, zone_id);
	fprintf(f, "<platform version=\"4.1\">\n  <zone id=\"");
	xml_text(f, zone_id);
	fprintf(f, "\" routing=\"Full\">\n    <prop id=\"description\" value=\"");
	xml_text(f, c->host);
	fprintf(f, " calibrated: ");
	xml_text(f, c->cpu_model[0] ? c->cpu_model : "unknown CPU");
	fprintf(f, "\"/>\n    <prop id=\"protocol\" value=\"%s\"/>\n", protocol_of(c->vendor));
	fprintf(f, "    <prop id=\"unit\" value=\"ns\"/>\n");
	fprintf(f, "    <!-- one value per distance class: same socket");
	for (unsigned k = 1; k < c->nclasses; k++)
		fprintf(f, ", class %u (%.1f ns link)", k, c->class_link_ns[k]);
	fprintf(f, " -->\n");
	write_costs(f, c);
	write_sockets(f, c);
	fprintf(f, "  </zone>\n</platform>\n");
}
