/*
 * native/tools/calib_text.c - a calibration as text (the .calib.csv file),
 * written and read back.
 *
 * The text form (results/host-HOST.calib.csv) is one record a line, the
 * first field naming it; '#' starts a comment line:
 *
 *   version,1
 *   host,NAME              cpu_model,TEXT     vendor,TEXT     date,ISO-8601
 *   tsc_ghz,X              reps,N             loadavg,X (-1: unknown)
 *   tsc_step_ns,X          (the clock's smallest step; absent in older files)
 *   sockets,S              socket_pus,P0 P1 ..   (PUs of each socket)
 *   numa_nodes,N           classes,C
 *   class_link_ns,L0 L1 .. (one a class; L0 is 0)
 *   socket_class,K00 K01 .. (S x S, row by row)
 *   inval_per_sharer_ns,X  (or '-' when it could not be measured)
 *   cell,CLASS,OP,STATE,CPU_A,CPU_B,MEDIAN,P10,P90,MAD,SAMPLES,TRIMMED
 *   hit,-,OP,-,CPU,-1,...  pause,-,-,-,CPU,-1,...  mem,NODE,load,I,CPU,-1,...
 *   wake,-,-,-,CPU_A,CPU_B,...  kick,-,-,-,CPU_A,CPU_B,...  (where measured;
 *   the wake after 1 ms of sleep)   wake,SLEEP_US,-,-,CPU_A,CPU_B,...  (the
 *   wake after a shorter sleep, one of calib_wake_sleep_us)
 *
 * Times are ns.  calib_platform.c turns it into a platform file.
 */
#include <ctype.h>
#include <sched.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/outfile.h"
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
	if (c->tsc_step_ns > 0)
		fprintf(f, "tsc_step_ns,%.3f\n", c->tsc_step_ns);
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
	if (c->wake.measured && c->kick.measured) {
		write_cell(f, "wake", "-", "-", "-", &c->wake);
		write_cell(f, "kick", "-", "-", "-", &c->kick);
	}
	for (unsigned i = 0; i < CALIB_WAKE_RUNGS; i++) {
		if (!c->wake_after[i].measured)
			continue;
		snprintf(where, sizeof(where), "%u", calib_wake_sleep_us[i]);
		write_cell(f, "wake", where, "-", "-", &c->wake_after[i]);
	}
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
	if (!*s || *end || errno || !isfinite(*out) || strpbrk(s, "xXpP"))
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
	if (x->median < 0 || x->p10 < 0 || x->p90 < 0 || x->mad < 0)
		return perr(p, "median_ns %g, p10_ns %g, p90_ns %g, mad_ns %g: a negative time",
			    x->median, x->p10, x->p90, x->mad);
	if (!x->samples)
		return perr(p, "samples 0: a figure with no sample behind it");
	if (!(x->p10 <= x->median && x->median <= x->p90))
		return perr(p, "p10_ns %g, median_ns %g, p90_ns %g: percentiles out of order",
			    x->p10, x->median, x->p90);
	/* A cache's latency is nanoseconds; a second is no latency at all, and
	 * the topology written from it would not load. */
	if (x->median > 1e9 || x->p10 > 1e9 || x->p90 > 1e9 || x->mad > 1e9)
		return perr(p, "median_ns %g, p10_ns %g, p90_ns %g, mad_ns %g: a time over a "
			       "second is not a latency", x->median, x->p10, x->p90, x->mad);
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

	if (infile_split(rest, f + 1, 12) != 11)
		return perr(p, "%s: expected 12 fields", what);
	if (!strcmp(what, "cell") || !strcmp(what, "mem"))
		if (parse_uint(p, f[1], &idx, !strcmp(what, "cell") ? "class" : "node"))
			return -1;
	if (!strcmp(what, "cell") || !strcmp(what, "hit") || !strcmp(what, "mem")) {
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
	if (!strcmp(what, "kick") || (!strcmp(what, "wake") && !strcmp(f[1], "-")))
		return parse_stats(p, f, what[0] == 'w' ? &c->wake : &c->kick);
	if (!strcmp(what, "wake")) {
		char us[16], all[CALIB_WAKE_RUNGS * 6] = "";

		for (unsigned i = 0, n = 0; i < CALIB_WAKE_RUNGS; i++) {
			snprintf(us, sizeof(us), "%u", calib_wake_sleep_us[i]);
			if (!strcmp(f[1], us))
				return parse_stats(p, f, &c->wake_after[i]);
			n += (unsigned)snprintf(all + n, sizeof(all) - n, "%s%s", i ? ", " : "", us);
		}
		return perr(p, "wake after '%s' us of sleep: not one of the sleeps measured "
			       "(- for 1 ms, or %s)", f[1], all);
	}
	if (idx >= CALIB_MAX_NODES)
		return perr(p, "node %u: at most %d nodes", idx, CALIB_MAX_NODES);
	return parse_stats(p, f, &c->mem[idx]);
}

const unsigned calib_wake_sleep_us[CALIB_WAKE_RUNGS] = { 10, 20, 50, 100, 150, 200, 300, 500 };

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
					    "classes", "tsc_step_ns", "inval_per_sharer_ns" };
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
		if (!*v)
			return perr(p, "host is empty: a calibration names the machine it measured");
		if (strlen(v) >= sizeof(c->host))
			return perr(p, "host: %zu characters, at most %zu", strlen(v), sizeof(c->host) - 1);
		for (const char *h = v; *h; h++)
			if (!isalnum((unsigned char)*h) && !strchr(".-_", *h))
				return perr(p, "host: byte 0x%02x, where a host name has letters, digits, "
					    "'.', '-' and '_'", (unsigned char)*h);
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
		if (parse_double(p, v, &c->tsc_ghz, key))
			return -1;
		return c->tsc_ghz > 0 && c->tsc_ghz < 100 ? 0
			: perr(p, "tsc_ghz %g: a clock above 0 and under 100 GHz", c->tsc_ghz);
	case 6:
		return parse_uint(p, v, &c->reps, key);
	case 7:
		if (parse_double(p, v, &c->loadavg, key))
			return -1;
		return c->loadavg >= 0 || c->loadavg == -1
			? 0 : perr(p, "loadavg %g: a load is not negative (-1: unknown)", c->loadavg);
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
	case 11:
		if (parse_double(p, v, &c->tsc_step_ns, key))
			return -1;
		return c->tsc_step_ns > 0 && c->tsc_step_ns < 1e6 ? 0
			: perr(p, "tsc_step_ns %g: a step above 0 and under 1 ms", c->tsc_step_ns);
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
	    !strcmp(line, "mem") || !strcmp(line, "wake") || !strcmp(line, "kick"))
		return parse_cellrec(p, c, comma + 1, line);
	return perr(p, "unknown record '%.40s'", line);
}

/* A figure's cpus: the requester one of the machine's (the OS's number,
 * which a cpuset may put past the PUs counted), the other another, or -1
 * (none). */
static int cell_cpus(const struct calib_cell *x, const char *what, char *err, size_t errlen)
{
	if (!x->measured)
		return 0;
	if (x->cpu_a < 0 || x->cpu_a >= CPU_SETSIZE || x->cpu_b >= CPU_SETSIZE) {
		snprintf(err, errlen, "%s: cpus %d and %d, where a cpu is 0..%d", what, x->cpu_a,
			 x->cpu_b, CPU_SETSIZE - 1);
		return -1;
	}
	if (x->cpu_a == x->cpu_b) {
		snprintf(err, errlen, "%s: cpu %d with itself: a transfer is between two cpus", what,
			 x->cpu_a);
		return -1;
	}
	return 0;
}

/* Every figure's cpus (a node's memory may have none: calibrate skips a
 * node it cannot allocate on). */
static int check_cpus(const struct calib *c, char *err, size_t errlen)
{
	char what[64];

	for (unsigned k = 0; k < c->nclasses; k++)
		for (int op = 0; op < CAL_NOPS; op++)
			for (int s = 0; s < CAL_NSTATES; s++) {
				snprintf(what, sizeof(what), "cell %s on %c at class %u", calib_op_names[op],
					 calib_state_names[s], k);
				if (cell_cpus(&c->cell[op][s][k], what, err, errlen))
					return -1;
			}
	for (int op = 0; op < CAL_NOPS; op++)
		if (cell_cpus(&c->hit[op], "hit", err, errlen))
			return -1;
	if (cell_cpus(&c->pause, "pause", err, errlen) || cell_cpus(&c->wake, "wake", err, errlen) ||
	    cell_cpus(&c->kick, "kick", err, errlen))
		return -1;
	for (unsigned n = 0; n < c->nnodes; n++) {
		snprintf(what, sizeof(what), "mem of node %u", n);
		if (cell_cpus(&c->mem[n], what, err, errlen))
			return -1;
	}
	return 0;
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
	} else if (!rc && !(seen & 2u)) {
		snprintf(err, errlen, "no 'host' record: a calibration names the machine it measured");
		rc = -1;
	} else if (!rc && !(seen & (1u << 5))) {
		snprintf(err, errlen, "no 'tsc_ghz' record: the clock every figure was read with");
		rc = -1;
	} else if (!rc && !(seen & (1u << 6))) {
		snprintf(err, errlen, "no 'reps' record: how many samples each figure has");
		rc = -1;
	}
	return rc || calib_check(c, err, errlen) || check_cpus(c, err, errlen) ? -1 : 0;
}

int calib_read_file(const char *path, struct calib *c, char *err, size_t errlen)
{
	char *text = NULL, msg[400], why[200];
	size_t len = 0;
	FILE *f;
	int rc;

	f = infile_open(path, "a calibration", why, sizeof(why));
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, why);
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
