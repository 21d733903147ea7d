/*
 * sim/topo_costs.c - the cost properties of the root zone (protocol, unit,
 * the lat.* table, hits, pause, fan-out, message sizes, arbitration, home
 * agents and directory) into
 * struct topo, each value checked against topologies/README.md.
 */
#include "topo_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const op_names[TOPO_NOPS] = { "load", "store", "atomic" };
static const char state_names[TOPO_NSTATES] = { 'M', 'E', 'S', 'I' };

bool topo_prop_known(const char *id)
{
	static const char *const plain[] = {
		"protocol", "unit", "freq_ghz", "description", "hit.load", "hit.store",
		"hit.atomic", "pause", "inval_per_sharer", "msg.data_bytes", "msg.ctrl_bytes",
		"arbitration", "arbitration.max_local_run", "home.occupancy", "directory",
		"memory_model", "storebuf.fill_buffers", "smt", "smt.issue_share", "idle.states",
		"snoop.travel", "latency.spread", "park.kick", "assumed",
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

static const char *prop(const struct topo_ctx *x, const char *key)
{
	return topo_desc_prop(x->desc, key);
}

/* A comma with no number before it, or a last one with none after it. */
static bool empty_item(const char *v)
{
	bool item = false, comma = false;

	for (; *v; v++) {
		if (*v == ',') {
			if (!item)
				return true;
			item = false;
			comma = true;
		} else if (!isspace((unsigned char)*v)) {
			item = true;
		}
	}
	return comma && !item;
}

/* Whitespace- or comma-separated numbers. */
static int parse_numbers(struct topo_ctx *x, const char *key, const char *v, double *out,
			 unsigned max, unsigned *n)
{
	char *buf = strdup(v), *save = NULL;
	int rc = 0;

	if (!buf)
		abort();
	if (empty_item(v)) {
		free(buf);
		return topo_fail(x, "%s: '%s' has an empty item", key, v);
	}
	*n = 0;
	for (char *tok = strtok_r(buf, " \t\r\n,", &save); tok && !rc; tok = strtok_r(NULL, " \t\r\n,", &save)) {
		double d;
		if (topo_decimal(x, key, tok, &d))
			rc = -1;
		else if (d < 0 && (strncmp(key, "msg.", 4) == 0 || strcmp(key, "freq_ghz") == 0 ||
				   strncmp(key, "arbitration", 11) == 0 ||
				   strcmp(key, "home.occupancy") == 0 ||
				   strcmp(key, "snoop.travel") == 0 ||
				   strcmp(key, "latency.spread") == 0 ||
				   strcmp(key, "park.kick") == 0))
			rc = topo_fail(x, "%s: negative value %s", key, tok);
		else if (d < 0)
			rc = topo_fail(x, "%s: negative latency %s", key, tok);
		else if (*n < max)
			out[*n] = d;
		(*n)++;
	}
	free(buf);
	if (!rc && *n == 0)
		rc = topo_fail(x, "%s is empty", key);
	return rc;
}

/* A property holding one number; *given false (and *out untouched) when absent. */
static int prop_number(struct topo_ctx *x, const char *key, double *out, bool *given)
{
	const char *v = prop(x, key);
	unsigned n;
	double d[1];

	*given = false;
	if (!v)
		return 0;
	if (parse_numbers(x, key, v, d, 1, &n))
		return -1;
	if (n != 1)
		return topo_fail(x, "%s must be one number, got %u", key, n);
	*out = d[0];
	*given = true;
	return 0;
}

static int read_protocol(struct topo_ctx *x, struct topo *t)
{
	const char *v = prop(x, "protocol");

	if (!v)
		return topo_fail(x, "missing property protocol (MESI, MOESI or MESIF)");
	if (strcasecmp(v, "MESI") == 0)
		t->protocol = PROTO_MESI;
	else if (strcasecmp(v, "MOESI") == 0)
		t->protocol = PROTO_MOESI;
	else if (strcasecmp(v, "MESIF") == 0)
		t->protocol = PROTO_MESIF;
	else
		return topo_fail(x, "unknown protocol '%s' (MESI, MOESI or MESIF)", v);
	return 0;
}

/* Optional: sc (the default), tso (x86) or pso (sim/storebuf.c). */
static int read_memory_model(struct topo_ctx *x, struct topo *t)
{
	const char *v = prop(x, "memory_model");
	double d;
	bool given;

	t->memory_model_set = v != NULL;
	if (!v || strcasecmp(v, "sc") == 0)
		t->memory_model = TOPO_MM_SC;
	else if (strcasecmp(v, "tso") == 0)
		t->memory_model = TOPO_MM_TSO;
	else if (strcasecmp(v, "pso") == 0)
		t->memory_model = TOPO_MM_PSO;
	else
		return topo_fail(x, "unknown memory_model '%s' (sc, tso or pso)", v);
	d = 10; /* Sandy Bridge's L1D line fill buffers (topologies/README.md) */
	if (prop_number(x, "storebuf.fill_buffers", &d, &given))
		return -1;
	if (d < 1 || d > 64 || d != (unsigned)d)
		return topo_fail(x, "storebuf.fill_buffers must be a whole number from 1 to 64");
	t->fill_buffers = (unsigned)d;
	return 0;
}

static int read_unit(struct topo_ctx *x, struct topo *t)
{
	const char *v = prop(x, "unit");
	bool given;

	if (!v)
		return topo_fail(x, "missing property unit (ns or cycles)");
	if (strcmp(v, "cycles") == 0)
		t->unit_cycles = true;
	else if (strcmp(v, "ns") != 0)
		return topo_fail(x, "unknown unit '%s' (ns or cycles)", v);
	if (prop_number(x, "freq_ghz", &t->freq_ghz, &given))
		return -1;
	if (given && (t->freq_ghz < 0.001 || t->freq_ghz > 1000))
		return topo_fail(x, "freq_ghz must be from 0.001 to 1000");
	if (t->unit_cycles && !given)
		return topo_fail(x, "unit is cycles but freq_ghz is missing");
	return 0;
}

static double unit_ps(const struct topo *t, double v)
{
	return t->unit_cycles ? v * 1000.0 / t->freq_ghz : v * 1000.0;
}

static uint64_t to_ps(const struct topo *t, double v)
{
	return (uint64_t)llround(unit_ps(t, v));
}

/* A time the file gives, in its unit: at most 1 s, and not a nonzero
 * value that rounds to 0 ps. */
static int check_time(struct topo_ctx *x, const struct topo *t, const char *key, double v)
{
	char text[64];

	snprintf(text, sizeof(text), "%g %s", v, t->unit_cycles ? "cycles" : "ns");
	return topo_check_time(x, key, text, unit_ps(t, v));
}

static bool row_required(int op, int st)
{
	if (st == TOPO_E)
		return false;
	if (st == TOPO_I)
		return op == TOPO_LOAD;
	return true;
}

static int read_row(struct topo_ctx *x, struct topo *t, int op, int st)
{
	char key[32];
	const char *v;
	unsigned n;

	snprintf(key, sizeof(key), "lat.%s.%c", op_names[op], state_names[st]);
	v = prop(x, key);
	if (!v) {
		if (row_required(op, st))
			return topo_fail(x, "missing property %s (see topologies/README.md)", key);
		return 0;
	}
	if (parse_numbers(x, key, v, t->lat_unit[op][st], TOPO_MAX_CLASSES, &n))
		return -1;
	if (n != t->nclasses)
		return topo_fail(x, "%s has %u value%s, the routes give %u distance class%s", key, n,
			    n == 1 ? "" : "s", t->nclasses, t->nclasses == 1 ? "" : "es");
	for (unsigned k = 0; k < n; k++)
		if (check_time(x, t, key, t->lat_unit[op][st][k]))
			return -1;
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

/* A miss's request has crossed the route to the line's home before the
 * miss is charged, and the charge is what is left of the file's latency:
 * a latency below its class's route latency could not be what the model
 * charges (topologies/README.md, "Ranges"). */
static int check_travel(struct topo_ctx *x, const struct topo *t, int op, int st)
{
	for (unsigned k = 1; k < t->nclasses; k++)
		if (t->lat_ps[op][st][k] < t->class_lat_ps[k])
			return topo_fail(x, "lat.%s.%c: class %u is %g %s, less than its route's latency "
				    "(%.3f ns) that a miss's request travels first",
				    op_names[op], state_names[st], k, t->lat_unit[op][st][k],
				    t->unit_cycles ? "cycles" : "ns", (double)t->class_lat_ps[k] / 1000.0);
	return 0;
}

static int read_latencies(struct topo_ctx *x, struct topo *t)
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
	for (int op = 0; op < TOPO_NOPS; op++)
		for (int st = 0; st < TOPO_NSTATES; st++)
			if (t->lat_from_file[op][st] && check_travel(x, t, op, st))
				return -1;
	return 0;
}

static int read_bytes(struct topo_ctx *x, const char *key, unsigned dflt, unsigned *out)
{
	double d;
	bool given;

	*out = dflt;
	if (prop_number(x, key, &d, &given))
		return -1;
	if (!given)
		return 0;
	if (d < 1 || d > 65536 || d != floor(d))
		return topo_fail(x, "%s must be a whole number of bytes, 1 to 65536", key);
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
static int read_arbitration(struct topo_ctx *x, struct topo *t)
{
	const char *v = prop(x, "arbitration"), *b = prop(x, "arbitration.max_local_run");
	double d;
	bool given;

	t->arbitration = ARB_FIFO;
	t->arbitration_set = v != NULL;
	t->max_local_run = 0;
	if (v && strcasecmp(v, "socket-first") == 0)
		t->arbitration = ARB_SOCKET_FIRST;
	else if (v && strncasecmp(v, "socket-first:", 13) == 0)
		return topo_fail(x, "arbitration '%s': a file gives socket-first, and N as "
			       "arbitration.max_local_run (socket-first:N is --arbitration's form)", v);
	else if (v && strcasecmp(v, "fifo") != 0)
		return topo_fail(x, "unknown arbitration '%s' (fifo or socket-first)", v);
	if (!b) {
		if (t->arbitration == ARB_SOCKET_FIRST)
			t->max_local_run = largest_socket(t);
		return 0;
	}
	if (t->arbitration != ARB_SOCKET_FIRST)
		return topo_fail(x, "arbitration.max_local_run needs arbitration socket-first");
	if (strcasecmp(b, "unbounded") == 0)
		return 0;
	if (prop_number(x, "arbitration.max_local_run", &d, &given))
		return -1;
	if (d < 1 || d > 1e9 || d != floor(d))
		return topo_fail(x, "arbitration.max_local_run must be a whole number >= 1, or unbounded");
	t->max_local_run = (unsigned)d;
	return 0;
}

void topo_set_arbitration(struct topo *t, enum topo_arbitration a, long max_local_run)
{
	t->arbitration = a;
	if (a != ARB_SOCKET_FIRST)
		t->max_local_run = 0;
	else
		t->max_local_run = max_local_run < 0 ? largest_socket(t) : (unsigned)max_local_run;
}

/* home.occupancy = a time in the file's unit (default 0: home agents take
 * no time); directory = full | probe-filter | broadcast (default full). */
static int read_home(struct topo_ctx *x, struct topo *t)
{
	const char *v = prop(x, "directory");
	double d = 0;
	bool given;

	t->directory = DIR_FULL;
	if (v && strcasecmp(v, "probe-filter") == 0)
		t->directory = DIR_PROBE_FILTER;
	else if (v && strcasecmp(v, "broadcast") == 0)
		t->directory = DIR_BROADCAST;
	else if (v && strcasecmp(v, "full") != 0)
		return topo_fail(x, "unknown directory '%s' (full, probe-filter or broadcast)", v);
	if (prop_number(x, "home.occupancy", &d, &given) ||
	    check_time(x, t, "home.occupancy", d))
		return -1;
	t->home_occ_ps = to_ps(t, d);
	return 0;
}

/* A whole percentage, 0..max (default 0), of property key. */
static int read_percent(struct topo_ctx *x, const char *key, unsigned max, unsigned *out)
{
	double d = 0;
	bool given;

	if (prop_number(x, key, &d, &given))
		return -1;
	if (d > max || d != floor(d))
		return topo_fail(x, "%s: %g is not a whole percentage in 0..%u", key, d, max);
	*out = (unsigned)d;
	return 0;
}

/* snoop.travel: 0..100 (0: the line moves at a miss's start);
 * latency.spread: 0..SIM_SPREAD_MAX (0: every miss its table latency). */
static int read_snoop_spread(struct topo_ctx *x, struct topo *t)
{
	return read_percent(x, "snoop.travel", 100, &t->snoop_pct) ||
	       read_percent(x, "latency.spread", SIM_SPREAD_MAX, &t->spread_pct) ? -1 : 0;
}

/* park.kick: a time in the file's unit, the waker's cost of waking a parked
 * thread (default SIM_KICK_PS, assumed: core/park_costs.h). */
static int read_kick(struct topo_ctx *x, struct topo *t)
{
	double d = 0;

	if (prop_number(x, "park.kick", &d, &t->kick_given) || check_time(x, t, "park.kick", d))
		return -1;
	t->kick_ps = t->kick_given ? to_ps(t, d) : 0; /* none given: sim_kick_ps's default */
	return 0;
}

/* An item of `assumed`: a property a file may have, a family of them
 * (`lat.*`, `msg.*`), or the links' latency or bandwidth, which are
 * attributes of the links, not properties. */
static bool assumable(const char *item)
{
	size_t n = strlen(item);

	if (!strcmp(item, "link.latency") || !strcmp(item, "link.bandwidth"))
		return true;
	if (n > 2 && !strcmp(item + n - 2, ".*")) {
		static const char *const families[] = { "lat.", "lat.load.", "lat.store.",
							"lat.atomic.", "hit.", "msg.", "smt.",
							"arbitration." };

		for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
			if (!strncmp(item, families[i], n - 1) && strlen(families[i]) == n - 1)
				return true;
		return false;
	}
	return strcmp(item, "assumed") && strcmp(item, "description") && topo_prop_known(item);
}

/* `assumed`: which of the file's figures have no source (a list of
 * properties, README.md "Where the numbers come from"), said wherever a
 * run on the machine is shown. */
static int read_assumed(struct topo_ctx *x, struct topo *t)
{
	const char *v = prop(x, "assumed");
	char *buf, *save = NULL;
	size_t n = 0;
	int rc = 0;

	t->assumed[0] = 0;
	t->assumed_none = v && !strcmp(v, "none");
	if (!v || t->assumed_none)
		return 0;
	if (!(buf = strdup(v)))
		abort();
	for (char *tok = strtok_r(buf, " \t\r\n", &save); tok && !rc;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (!assumable(tok))
			rc = topo_fail(x, "assumed: '%s' is not a property of a topology file, a family "
				       "(lat.*) or link.latency / link.bandwidth", tok);
		else if (n + strlen(tok) + 2 > sizeof(t->assumed))
			rc = topo_fail(x, "assumed: the list is longer than %zu characters",
				       sizeof(t->assumed) - 1);
		else
			n += (size_t)snprintf(t->assumed + n, sizeof(t->assumed) - n, "%s%s",
					      n ? " " : "", tok);
	}
	free(buf);
	if (!rc && !n)
		rc = topo_fail(x, "assumed: empty (give none if every figure has a source)");
	return rc;
}

/* What a machine must have for an item of `assumed` to name a figure of
 * it: NULL when it has it (its SMT or idle states), else what it lacks.
 * (A one-socket machine may call the links' figures assumed: calibrate
 * writes so, and a link the file adds would be one.) */
static const char *assumed_lacks(const struct topo *t, const char *item)
{
	if (!strcmp(item, "smt") || !strncmp(item, "smt.", 4))
		return t->smt > 1 ? NULL : "SMT (smt 1: no sibling shares a core)";
	if (!strcmp(item, "idle.states"))
		return t->nidle ? NULL : "idle states";
	return NULL;
}

int topo_check_assumed(struct topo_ctx *x, const struct topo *t)
{
	char buf[sizeof(t->assumed)], *save = NULL, *seen[sizeof(t->assumed) / 2];
	unsigned n = 0;

	snprintf(buf, sizeof(buf), "%s", t->assumed);
	for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		const char *lacks = assumed_lacks(t, tok);

		for (unsigned i = 0; i < n; i++)
			if (!strcmp(seen[i], tok))
				return topo_fail(x, "assumed: '%s' twice", tok);
		if (lacks)
			return topo_fail(x, "assumed: '%s', where the machine has no %s: no figure of "
					 "it to assume", tok, lacks);
		seen[n++] = tok;
	}
	return 0;
}

int topo_read_costs(struct topo_ctx *x, struct topo *t)
{
	const char *d = prop(x, "description");

	if (d) /* what the machine is, in its file's words: what its sockets are */
		topo_strcpy(t->description, sizeof(t->description), d);
	static const char *const hit_names[TOPO_NOPS] = { "hit.load", "hit.store", "hit.atomic" };
	double hit[TOPO_NOPS], v;
	bool given;

	if (read_protocol(x, t) || read_memory_model(x, t) || read_unit(x, t) ||
	    read_latencies(x, t))
		return -1;
	if (prop_number(x, "hit.load", &hit[TOPO_LOAD], &given))
		return -1;
	if (!given)
		return topo_fail(x, "missing property hit.load (see topologies/README.md)");
	hit[TOPO_STORE] = hit[TOPO_ATOMIC] = hit[TOPO_LOAD];
	if (prop_number(x, "hit.store", &hit[TOPO_STORE], &given) ||
	    prop_number(x, "hit.atomic", &hit[TOPO_ATOMIC], &given))
		return -1;
	for (int op = 0; op < TOPO_NOPS; op++) {
		if (check_time(x, t, hit_names[op], hit[op]))
			return -1;
		t->hit_ps[op] = to_ps(t, hit[op]);
	}
	if (prop_number(x, "pause", &v, &given))
		return -1;
	if (!given)
		return topo_fail(x, "missing property pause (see topologies/README.md)");
	if (check_time(x, t, "pause", v))
		return -1;
	t->pause_ps = to_ps(t, v);
	v = 0;
	if (prop_number(x, "inval_per_sharer", &v, &given) || check_time(x, t, "inval_per_sharer", v))
		return -1;
	t->inval_ps_per_sharer = to_ps(t, v);
	if (read_bytes(x, "msg.data_bytes", 72, &t->data_msg_bytes) ||
	    read_bytes(x, "msg.ctrl_bytes", 8, &t->ctrl_msg_bytes))
		return -1;
	if (read_arbitration(x, t) || read_assumed(x, t) || read_snoop_spread(x, t) ||
	    read_kick(x, t))
		return -1;
	return read_home(x, t);
}


/* The longest one access can take on an idle machine, at most: the slowest
 * latency, hit or pause, one fan-out charge, two home agents' turns, and a
 * data message each way over the longest route through its slowest link. */
uint64_t topo_slowest_ps(const struct topo *t)
{
	uint64_t slow = t->pause_ps + t->inval_ps_per_sharer + 2 * t->home_occ_ps, link = 0;
	unsigned hops = 0;

	for (int op = 0; op < TOPO_NOPS; op++) {
		slow = t->hit_ps[op] > slow ? t->hit_ps[op] : slow;
		for (int st = 0; st < TOPO_NSTATES; st++)
			for (unsigned k = 0; k < t->nclasses; k++)
				slow = t->lat_ps[op][st][k] > slow ? t->lat_ps[op][st][k] : slow;
	}
	for (unsigned i = 0; i < t->nlinks; i++) {
		double bw = t->links[i].bw_bytes_per_s;
		uint64_t l = t->links[i].lat_ps +
			     (bw > 0 ? (uint64_t)ceil(t->data_msg_bytes * 1e12 / bw) : 0);

		link = l > link ? l : link;
	}
	for (unsigned i = 0; t->route_len && i < t->nsockets * t->nsockets; i++)
		hops = t->route_len[i] > hops ? t->route_len[i] : hops;
	return slow + 2 * link * hops;
}
