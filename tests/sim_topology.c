/*
 * tests/sim_topology.c - the topology loader (sim/topology.c) on every
 * shipped machine and on malformed files.
 *
 * SimGrid holds one platform per process, so each shipped topology is
 * loaded in a forked child, which hands what it read back through shared
 * memory.  Malformed files are loaded in this process: topo_load must turn
 * each into one error line and a non-zero return before SimGrid sees
 * anything, and build nothing on the way.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <simgrid/engine.h>
#include <xbt/log.h>

#include "../sim/topology.h"

/* What a child read, copied out of its struct topo. */
struct loaded {
	int rc;
	char err[512];
	struct topo t;          /* pointers cleared */
	unsigned char cls[TOPO_MAX_SOCKETS * TOPO_MAX_SOCKETS];
	struct topo_link links[64];
	char first_host[64], host2[64], host10[64], last_host[64];
};

static char tmpdir[64];

static void copy_out(struct loaded *l, const struct topo *t)
{
	l->t = *t;
	memcpy(l->cls, t->socket_class, (size_t)t->nsockets * t->nsockets);
	memcpy(l->links, t->links, (t->nlinks < 64 ? t->nlinks : 64) * sizeof(*t->links));
	strcpy(l->first_host, t->core_host[0]);
	strcpy(l->last_host, t->core_host[t->ncores - 1]);
	if (t->ncores > 10) {
		strcpy(l->host2, t->core_host[2]);
		strcpy(l->host10, t->core_host[10]);
	}
	l->t.core_host = NULL;
	l->t.socket_class = NULL;
	l->t.links = NULL;
	l->t.route_off = l->t.route_len = l->t.route_links = NULL;
	l->t.socket_name = NULL;
}

/* topo_load(name) in a fresh child; the result in shared memory (caller unmaps). */
static struct loaded *load_in_child(const char *name)
{
	struct loaded *l = mmap(NULL, sizeof(*l), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status;
	pid_t pid;

	assert_true(l != MAP_FAILED);
	memset(l, 0, sizeof(*l));
	l->rc = -99;
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct topo *t = calloc(1, sizeof(*t));
		signal(SIGSEGV, SIG_DFL); /* not cmocka's handler: the child must not run on */
		signal(SIGABRT, SIG_DFL);
		l->rc = topo_load(t, name, l->err, sizeof(l->err));
		if (l->rc == 0) {
			copy_out(l, t);
			topo_free(t);
		}
		free(t);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return l;
}

static void unload(struct loaded *l)
{
	munmap(l, sizeof(*l));
}

static unsigned cls(const struct loaded *l, unsigned a, unsigned b)
{
	return l->cls[a * l->t.nsockets + b];
}

static struct loaded *expect_machine(const char *name, unsigned cores, unsigned sockets,
				     unsigned classes, enum topo_protocol proto)
{
	struct loaded *l = load_in_child(name);

	if (l->rc)
		fail_msg("%s: %s", name, l->err);
	assert_string_equal(l->t.name, name);
	assert_int_equal(l->t.ncores, cores);
	assert_int_equal(l->t.nsockets, sockets);
	assert_int_equal(l->t.nclasses, classes);
	assert_int_equal(l->t.protocol, proto);
	/* cores are numbered socket by socket */
	for (unsigned c = 1; c < cores; c++)
		assert_true(l->t.core_socket[c] >= l->t.core_socket[c - 1]);
	assert_int_equal(l->t.core_socket[cores - 1], sockets - 1);
	assert_true(!l->t.snoop_pct && !l->t.spread_pct); /* no source gives a shipped one's */
	for (unsigned a = 0; a < sockets; a++)
		for (unsigned b = 0; b < sockets; b++)
			assert_true((cls(l, a, b) == 0) == (a == b) && cls(l, a, b) < classes);
	/* every row has a value per class, and misses cost more than hits */
	for (int op = 0; op < TOPO_NOPS; op++)
		for (int st = 0; st < TOPO_NSTATES; st++)
			for (unsigned k = 0; k < classes; k++)
				assert_true(l->t.lat_ps[op][st][k] > l->t.hit_ps[op]);
	return l;
}

static void test_1socket(void **state)
{
	struct loaded *l = expect_machine("1socket", 8, 1, 1, PROTO_MESIF);
	(void)state;
	assert_int_equal(l->t.nlinks, 0);
	assert_false(l->t.unit_cycles);
	assert_int_equal(l->t.lat_ps[TOPO_LOAD][TOPO_M][0], 44000);
	unload(l);
}

static void test_2socket(void **state)
{
	struct loaded *l = expect_machine("2socket", 16, 2, 2, PROTO_MESIF);
	(void)state;
	assert_int_equal(l->t.nlinks, 1);
	assert_string_equal(l->first_host, "s0c00");
	assert_string_equal(l->last_host, "s1c07");
	assert_int_equal(l->t.data_msg_bytes, 72);
	assert_int_equal(l->t.ctrl_msg_bytes, 8);
	assert_true(fabs(l->links[0].bw_bytes_per_s - 62.4e9) < 1e3);
	assert_int_equal(l->links[0].lat_ps, 40000);
	unload(l);
}

static void test_4socket(void **state)
{
	struct loaded *l = expect_machine("4socket", 32, 4, 2, PROTO_MESIF);
	(void)state;
	assert_int_equal(l->t.nlinks, 6); /* fully connected */
	assert_int_equal(cls(l, 0, 2), 1);
	unload(l);
}

static void test_4socket_ring(void **state)
{
	struct loaded *l = expect_machine("4socket-ring", 32, 4, 3, PROTO_MESIF);
	(void)state;
	assert_int_equal(l->t.nlinks, 4);
	assert_int_equal(cls(l, 0, 1), 1);
	assert_int_equal(cls(l, 0, 2), 2); /* opposite sockets: two hops */
	assert_int_equal(cls(l, 1, 3), 2);
	assert_int_equal(cls(l, 3, 0), 1);
	assert_int_equal(l->t.class_lat_ps[2], 2 * l->t.class_lat_ps[1]);
	/* a 2-hop access costs 50 ns more than a 1-hop one */
	assert_int_equal(l->t.lat_ps[TOPO_LOAD][TOPO_M][2] - l->t.lat_ps[TOPO_LOAD][TOPO_M][1], 50000);
	unload(l);
}

static void test_8socket(void **state)
{
	struct loaded *l = expect_machine("8socket", 80, 8, 3, PROTO_MESIF);
	(void)state;
	assert_string_equal(l->host2, "s0c02");
	assert_string_equal(l->host10, "s1c00");
	assert_int_equal(cls(l, 0, 4), 1);
	assert_int_equal(cls(l, 0, 5), 2);
	unload(l);
}

/* The SOSP'13 tables, in cycles, as ccbench must reproduce them. */
static void expect_table(const struct loaded *l, int op, int st, const double *cycles, double ghz)
{
	assert_true(l->t.lat_from_file[op][st]);
	for (unsigned k = 0; k < l->t.nclasses; k++) {
		double ps = cycles[k] * 1000.0 / ghz;
		assert_true(l->t.lat_unit[op][st][k] == cycles[k]);
		assert_true(fabs((double)l->t.lat_ps[op][st][k] - ps) <= 0.5);
	}
}

static void test_xeon80(void **state)
{
	static const double load_m[] = { 109, 289, 400 }, load_s[] = { 44, 223, 334 };
	static const double load_i[] = { 355, 492, 601 }, store_s[] = { 116, 318, 428 };
	static const double atomic_m[] = { 120, 324, 430 };
	struct loaded *l = expect_machine("xeon80", 80, 8, 3, PROTO_MESIF);
	(void)state;
	assert_true(l->t.unit_cycles);
	assert_true(fabs(l->t.freq_ghz - 2.13) < 1e-9);
	expect_table(l, TOPO_LOAD, TOPO_M, load_m, 2.13);
	expect_table(l, TOPO_LOAD, TOPO_S, load_s, 2.13);
	expect_table(l, TOPO_LOAD, TOPO_I, load_i, 2.13);
	expect_table(l, TOPO_STORE, TOPO_S, store_s, 2.13);
	expect_table(l, TOPO_ATOMIC, TOPO_M, atomic_m, 2.13);
	/* rows the paper lacks: E as M; store on I = load on I + (store M - load M) */
	assert_false(l->t.lat_from_file[TOPO_STORE][TOPO_E]);
	assert_int_equal(l->t.lat_ps[TOPO_STORE][TOPO_E][1], l->t.lat_ps[TOPO_STORE][TOPO_M][1]);
	assert_true(l->t.lat_unit[TOPO_STORE][TOPO_I][0] == 355 + 115 - 109);
	assert_int_equal(l->t.nlinks, 16);
	unload(l);
}

static void test_opteron48(void **state)
{
	static const double load_m[] = { 81, 161, 172, 252 }, load_e[] = { 83, 163, 175, 253 };
	static const double store_s[] = { 246, 255, 286, 296 }, atomic_s[] = { 272, 283, 312, 332 };
	struct loaded *l = expect_machine("opteron48", 48, 8, 4, PROTO_MOESI);
	(void)state;
	assert_true(l->t.unit_cycles);
	expect_table(l, TOPO_LOAD, TOPO_M, load_m, 2.1);
	expect_table(l, TOPO_LOAD, TOPO_E, load_e, 2.1);
	expect_table(l, TOPO_STORE, TOPO_S, store_s, 2.1);
	expect_table(l, TOPO_ATOMIC, TOPO_S, atomic_s, 2.1);
	/* dies: mcm0die0, mcm0die1, mcm1die0, ...: same MCM, 1 hop, 2 hops */
	assert_int_equal(cls(l, 0, 1), 1);
	assert_int_equal(cls(l, 0, 2), 2);
	assert_int_equal(cls(l, 0, 3), 3);
	assert_int_equal(cls(l, 1, 2), 3);
	assert_int_equal(cls(l, 1, 3), 2);
	assert_int_equal(l->t.nlinks, 16); /* four per die */
	for (unsigned i = 0; i < l->t.nlinks; i++)
		assert_true(l->links[i].a < 8 && l->links[i].b < 8 && l->links[i].a != l->links[i].b);
	unload(l);
}

static void test_resolve(void **state)
{
	const char *want = "topologies/4socket-ring.xml";
	char path[4096];
	size_t n;
	(void)state;

	assert_int_equal(topo_resolve("4socket-ring", path, sizeof(path)), 0);
	n = strlen(path);
	assert_true(n >= strlen(want) && strcmp(path + n - strlen(want), want) == 0);
	assert_int_not_equal(topo_resolve("no-such-machine", path, sizeof(path)), 0);
	assert_int_not_equal(topo_resolve("/no/such/file.xml", path, sizeof(path)), 0);
}

/* ---------------------------------------------------------------- bad files */

/* The text of a shipped topology (caller frees). */
static char *shipped(const char *name)
{
	char path[4096];
	FILE *f;
	long n;
	char *s;

	assert_int_equal(topo_resolve(name, path, sizeof(path)), 0);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = calloc((size_t)n + 1, 1);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return s;
}

static char *shipped_2socket(void)
{
	return shipped("2socket");
}

/* s with every occurrence of from replaced by to (from "" : s). */
static char *replace(const char *s, const char *from, const char *to)
{
	size_t lf = strlen(from), lt = strlen(to), n = 0;
	char *out = calloc(strlen(s) * (lt + 1) + 1, 1), *o = out;

	while (*s) {
		if (lf && strncmp(s, from, lf) == 0) {
			memcpy(o, to, lt);
			o += lt;
			s += lf;
			n++;
			continue;
		}
		*o++ = *s++;
	}
	assert_true(n > 0 || lf == 0);
	return out;
}

/* s without the lines holding pattern. */
static char *drop_lines(const char *s, const char *pattern)
{
	char *out = calloc(strlen(s) + 1, 1), *o = out;

	while (*s) {
		const char *eol = strchr(s, '\n');
		size_t len = eol ? (size_t)(eol - s) + 1 : strlen(s);
		char *line = strndup(s, len);
		if (!strstr(line, pattern)) {
			memcpy(o, line, len);
			o += len;
		}
		free(line);
		s += len;
	}
	return out;
}

static void write_tmp(const char *name, const char *text, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (!f)
		fail_msg("%s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

/* topo_load(text) fails with one line: "path: ...want...". */
static void expect_error(const char *name, char *text, const char *want)
{
	char path[256], err[1024], prefix[300];
	struct topo t;

	write_tmp(name, text, path, sizeof(path));
	free(text);
	err[0] = 0;
	if (topo_load(&t, path, err, sizeof(err)) == 0)
		fail_msg("%s loaded, expected an error with \"%s\"", name, want);
	if (!strstr(err, want))
		fail_msg("%s: got \"%s\", expected \"%s\"", name, err, want);
	assert_null(strchr(err, '\n'));
	snprintf(prefix, sizeof(prefix), "%s", path);
	assert_true(strncmp(err, prefix, strlen(prefix)) == 0);
	assert_null(t.socket_class);
}

static void test_bad_values(void **state)
{
	char *s = shipped_2socket();
	(void)state;

	expect_error("count.xml", replace(s, "\"44 121\"", "\"44 121 170\""),
		     ": lat.load.M has 3 values, the routes give 2 distance classes");
	expect_error("count1.xml", replace(s, "\"44 121\"", "\"44\""),
		     ": lat.load.M has 1 value, the routes give 2 distance classes");
	expect_error("nan.xml", replace(s, "\"44 121\"", "\"44 fast\""), "lat.load.M: 'fast' is not a number");
	expect_error("emptyitem.xml", replace(s, "\"44 121\"", "\"44,,121\""),
		     "lat.load.M: '44,,121' has an empty item");
	expect_error("lastcomma.xml", replace(s, "\"44 121\"", "\"44,121,\""),
		     "lat.load.M: '44,121,' has an empty item");
	expect_error("neg.xml", replace(s, "\"81 119\"", "\"-81 119\""), "lat.load.I: negative latency -81");
	expect_error("proto.xml", replace(s, "\"MESIF\"", "\"MSI\""), "unknown protocol 'MSI'");
	/* a cluster id twice: said at the cluster, not where a route names it */
	expect_error("dupzone.xml", replace(s, "<cluster id=\"socket1\"", "<cluster id=\"socket0\""),
		     "zone id socket0 given twice");
	expect_error("unit.xml", replace(s, "\"ns\"", "\"cycles\""), "unit is cycles but freq_ghz is missing");
	expect_error("prop.xml", replace(s, "id=\"pause\"", "id=\"paws\""), "unknown property 'paws'");
	expect_error("missing.xml", drop_lines(s, "lat.load.S"), "missing property lat.load.S");
	expect_error("hit.xml", replace(s, "id=\"hit.load\" value=\"1.4\"", "id=\"hit.load\" value=\"1 2\""),
		     "hit.load must be one number");
	/* assumed: a list of the file's properties, families or link attributes */
	expect_error("assumed.xml", replace(s, "\"lat.* link.latency", "\"lat.* paws link.latency"),
		     "assumed: 'paws' is not a property of a topology file");
	expect_error("assumed2.xml", replace(s, "\"lat.* link.latency", "\"lat.x.* link.latency"),
		     "assumed: 'lat.x.*' is not a property");
	expect_error("assumed3.xml",
		     replace(s, "\"lat.* link.latency hit.atomic pause inval_per_sharer "
				"arbitration.max_local_run msg.*\"", "\" \""),
		     "assumed: empty");
	free(s);
}

/* Every shipped machine says which of its figures have no source: a run
 * on it prints them (topologies/README.md, "Where the numbers come from"). */
static void test_every_machine_lists_its_assumptions(void **state)
{
	static const char *const names[] = { "1socket", "2socket", "4socket", "4socket-ht",
					     "4socket-ring", "4socket-ring-ht", "8socket",
					     "8socket-ht", "xeon80", "xeon80-ht", "opteron48",
					     "snb-laptop", "x7560", "x7560-ht", "e5-4610-ht",
					     "uv4096" };
	(void)state;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct loaded *l = load_in_child(names[i]);

		if (l->rc)
			fail_msg("%s: %s", names[i], l->err);
		if (!strstr(l->t.assumed, "hit.atomic"))
			fail_msg("%s: assumed '%s' lacks hit.atomic, which no file cites", names[i],
				 l->t.assumed);
		unload(l);
	}
}

/* Every number is range-checked before anything is built (topologies/README.md,
 * "Ranges"): in 2socket.xml, replace from with to and expect want. */
static const struct {
	const char *from, *to, *want;
} bad_ranges[] = {
	{ "\"81 119\"", "\"81 1e30\"", "lat.load.I: 1e+30 ns is longer than 1 s" },
	{ "\"81 119\"", "\"81 1000000001\"", "is longer than 1 s" },
	{ "\"81 119\"", "\"0x12 119\"", "lat.load.I: '0x12' is not a number" },
	{ "\"81 119\"", "\"81 inf\"", "lat.load.I: 'inf' is not a number" },
	{ "\"81 119\"", "\"81 1e400\"", "lat.load.I: '1e400' is out of range" },
	{ "id=\"hit.load\" value=\"1.4\"", "id=\"hit.load\" value=\"0.0001\"", "hit.load: 0.0001 ns rounds to 0 ps" },
	{ "latency=\"40ns\"", "latency=\"2s\"", "<link id=\"upi01\"> latency: 2s is longer than 1 s" },
	{ "latency=\"40ns\"", "latency=\"0.1ps\"", "0.1ps rounds to 0 ps" },
	{ "latency=\"40ns\"", "latency=\"0x12ns\"", "unknown unit in '0x12ns'" },
	{ "latency=\"40ns\"", "latency=\"40\"", "'40' has no unit" },
	{ "bandwidth=\"62.4GBps\"", "bandwidth=\"1Bps\"", "bandwidth 1Bps is outside 1MBps..1PBps" },
	{ "bandwidth=\"62.4GBps\"", "bandwidth=\"1e30Bps\"", "is outside 1MBps..1PBps" },
	{ "radical=\"0-7\"", "radical=\"0-1000000\"", "1000001 cores, at most 8192" },
	{ "radical=\"0-7\"", "radical=\"0-0x7\"", "is not a list of N or N-M" },
	{ "radical=\"0-7\"", "radical=\"7-0\"", "is not a list of N or N-M" },
	{ "id=\"unit\" value=\"ns\"", "id=\"unit\" value=\"ns\"/><prop id=\"freq_ghz\" value=\"1e9\"",
	  "freq_ghz must be from 0.001 to 1000" },
	{ "\"72\"", "\"1e6\"", "msg.data_bytes must be a whole number of bytes, 1 to 65536" },
	{ "id=\"unit\" value=\"ns\"", "id=\"unit\" value=\"ns\"/><prop id=\"snoop.travel\" value=\"101\"",
	  "snoop.travel: 101 is not a whole percentage in 0..100" },
	{ "id=\"unit\" value=\"ns\"", "id=\"unit\" value=\"ns\"/><prop id=\"latency.spread\" value=\"2.5\"",
	  "latency.spread: 2.5 is not a whole percentage in 0..90" },
	{ "id=\"unit\" value=\"ns\"", "id=\"unit\" value=\"ns\"/><prop id=\"latency.spread\" value=\"91\"",
	  "latency.spread: 91 is not a whole percentage in 0..90" },
	{ "id=\"unit\" value=\"ns\"", "id=\"unit\" value=\"ns\"/><prop id=\"snoop.travel\" value=\"-1\"",
	  "snoop.travel: negative value -1" },
};

static void test_bad_ranges(void **state)
{
	char *s = shipped_2socket(), name[32];
	(void)state;

	/* in range, snoop.travel and latency.spread are the machine's (docs/mechanisms.md) */
	{
		char path[256], *text = replace(s, "id=\"unit\" value=\"ns\"", "id=\"unit\" value=\"ns\"/>"
			"<prop id=\"snoop.travel\" value=\"40\"/><prop id=\"latency.spread\" value=\"12\"");
		struct loaded *l;

		write_tmp("snoop.xml", text, path, sizeof(path));
		free(text);
		l = load_in_child(path); /* a platform loads once a process */
		if (l->rc)
			fail_msg("snoop.xml: %s", l->err);
		assert_true(l->t.snoop_pct == 40 && l->t.spread_pct == 12);
		unload(l);
	}
	for (size_t i = 0; i < sizeof(bad_ranges) / sizeof(bad_ranges[0]); i++) {
		snprintf(name, sizeof(name), "range%zu.xml", i);
		expect_error(name, replace(s, bad_ranges[i].from, bad_ranges[i].to), bad_ranges[i].want);
	}
	free(s);
}

/* idle.states: the shipped tables (Linux 4.1 intel_idle's snb_cstates and
 * nehalem_cstates), and a malformed table refused in one line. */
static void test_idle_states(void **state)
{
	struct loaded *l = load_in_child("4socket-ring-ht");
	char *s = shipped_2socket();
	(void)state;

	assert_int_equal(l->rc, 0);
	assert_int_equal(l->t.nidle, 4);
	assert_string_equal(l->t.idle[0].name, "C1");
	assert_true(l->t.idle[0].exit_ps == 2000000 && l->t.idle[0].residency_ps == 2000000);
	assert_string_equal(l->t.idle[3].name, "C6");
	assert_true(l->t.idle[3].exit_ps == 104000000 && l->t.idle[3].residency_ps == 345000000);
	unload(l);
	l = load_in_child("8socket-ht");
	assert_int_equal(l->t.nidle, 4);
	assert_true(l->t.idle[3].exit_ps == 200000000 && l->t.idle[3].residency_ps == 800000000);
	unload(l);
	l = load_in_child("2socket"); /* no CPU named: no table */
	assert_int_equal(l->t.nidle, 0);
	unload(l);

	static const struct {
		const char *value, *want;
	} bad[] = {
		{ "C1 2 2, C6 104", "idle.states: state 2: no target residency" },
		{ "C1 2 1", "idle.states: C1 pays off sooner than it can be left" },
		{ "C6 104 345, C1 2 2", "idle.states: C1 is listed after C6 but is shallower" },
		{ "C1 x 2", "idle.states: state 1: exit latency: 'x' is not a number" },
		{ "C1 2 2,", "idle.states: state 2: '' is not a name" },
		{ "C1 2 2 9", "idle.states: state 1 (C1): more than NAME EXIT_US RESIDENCY_US" },
		{ "C1 -2 2", "idle.states: state 1: exit latency -2 is not in 0..10000 us" },
		{ "C1 2 2, CX 900 20000", "idle.states: state 2: target residency 20000 is not in 0..10000 us" },
		{ " ", "idle.states: empty (a machine without idle states has no such property)" },
		{ "C1 2 2, C1 10 20", "idle.states: C1 is listed twice" },
		{ "a 1 1, b 1 1, c 1 1, d 1 1, e 1 1, f 1 1, g 1 1, h 1 1, i 1 1",
		  "idle.states: more than 8 states" },
	};
	char name[32], to[200];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(name, sizeof(name), "idle%zu.xml", i);
		snprintf(to, sizeof(to), "id=\"unit\" value=\"ns\"/><prop id=\"idle.states\" value=\"%s\"",
			 bad[i].value);
		expect_error(name, replace(s, "id=\"unit\" value=\"ns\"", to), bad[i].want);
	}
	free(s);
}

static void test_bad_structure(void **state)
{
	char *s = shipped_2socket();
	char path[256], err[1024];
	struct topo t;
	(void)state;

	expect_error("noroute.xml", drop_lines(s, "zoneRoute"), "no route from socket0 to socket1");
	char *no_clusters = drop_lines(s, "<cluster");
	expect_error("nocores.xml", drop_lines(no_clusters, "zoneRoute"), "no cores");
	free(no_clusters);
	expect_error("badlink.xml", replace(s, "<link_ctn id=\"upi01\"/>", "<link_ctn id=\"upi99\"/>"),
		     "zoneRoute from socket0 to socket1: no socket link 'upi99'");
	expect_error("attr.xml", replace(s, "radical=\"0-7\"", "radical=\"0-7\" colour=\"red\""),
		     "<cluster> has no attribute 'colour'");
	expect_error("element.xml", replace(s, "<link id=", "<backbone id="), "<backbone> is not expected in the root zone");
	expect_error("twice.xml", replace(s, "</zoneRoute>", "</zoneRoute><zoneRoute src=\"socket1\" dst=\"socket0\" "
					  "gw_src=\"socket1_router\" gw_dst=\"socket0_router\"><link_ctn id=\"upi01\"/></zoneRoute>"),
		     "the route from socket1 to socket0 is given twice");
	expect_error("gw.xml", replace(s, "gw_dst=\"socket1_router\"", "gw_dst=\"socket0_router\""),
		     "a gateway is not the router or a host of its socket");
	expect_error("dupname.xml", replace(s, "prefix=\"s1c0\"", "prefix=\"s0c0\""), "name s0c00 given twice");
	expect_error("entity.xml", replace(s, "<platform", "<!DOCTYPE x [<!ENTITY a \"b\">]><platform"),
		     "malformed XML");
	expect_error("unclosed.xml", replace(s, "</zone>", ""), ": malformed XML: </platform> closes <zone>");
	expect_error("garbage.xml", strdup("this is not XML\n"), ":1: malformed XML");
	/* one location (libxml2's own " line N", where its versions give one,
	 * is said as where the element opened) */
	expect_error("opentag.xml", strdup("<?xml version=\"1.0\"?>\n<platform>\n<zone id=\"x\"\n"),
		     ":4: malformed XML: ");
	expect_error("empty.xml", strdup(""), "no <platform> element");
	expect_error("quote.xml", replace(s, "value=\"MESIF\"", "value=\"MESIF"), "malformed XML");

	/* a file that is not there, and a name that is not shipped */
	assert_int_not_equal(topo_load(&t, "/nonexistent/machine.xml", err, sizeof(err)), 0);
	assert_string_equal(err, "--topo /nonexistent/machine.xml: No such file or directory");
	assert_int_not_equal(topo_load(&t, "no-such-machine", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "'no-such-machine': no no-such-machine.xml in topologies (the w"));
	assert_non_null(strstr(err, "4socket-ring")); /* the known names */
	assert_null(strchr(err, '\n'));
	(void)path;
	free(s);
}

/* A user file routed with Floyd, and hosts whose names need natural order. */
static void test_floyd_and_order(void **state)
{
	char *s = shipped_2socket(), *a, *b, path[256];
	struct loaded *l;
	(void)state;

	a = replace(s, "routing=\"Full\"", "routing=\"Floyd\"");
	b = replace(a, "prefix=\"s0c0\" suffix=\"\" radical=\"0-7\"", "prefix=\"core\" suffix=\"\" radical=\"0-11\"");
	write_tmp("floyd.xml", b, path, sizeof(path));
	l = load_in_child(path);
	if (l->rc)
		fail_msg("%s", l->err);
	assert_int_equal(l->t.ncores, 20);
	assert_int_equal(l->t.nclasses, 2);
	assert_string_equal(l->t.name, "floyd");
	assert_string_equal(l->host2, "core2");
	assert_string_equal(l->host10, "core10");
	assert_int_equal(l->t.core_socket[11], 0);
	assert_int_equal(l->t.core_socket[12], 1);
	unload(l);
	free(s);
	free(a);
	free(b);
}

/* Floyd finds the 2-hop routes of a ring from its 1-hop zoneRoutes. */
static void test_floyd_chain(void **state)
{
	char path[256], *full = shipped("4socket-ring"), *floyd, *ring;
	struct loaded *l;
	(void)state;

	floyd = replace(full, "routing=\"Full\"", "routing=\"Floyd\"");
	ring = drop_lines(floyd, "\"/><link_ctn");
	write_tmp("floydring.xml", ring, path, sizeof(path));
	l = load_in_child(path);
	if (l->rc)
		fail_msg("%s", l->err);
	assert_int_equal(l->t.nclasses, 3);
	assert_int_equal(cls(l, 0, 2), 2);
	assert_int_equal(cls(l, 1, 3), 2);
	assert_int_equal(cls(l, 0, 3), 1);
	unload(l);
	free(full);
	free(floyd);
	free(ring);
}

/* The core limit (topologies/README.md, "Ranges"): 8192 cores load, one
 * more does not. */
static void test_core_limit(void **state)
{
	const char *from = "prefix=\"s0c0\" suffix=\"\" radical=\"0-7\"";
	char path[256], *s = shipped_2socket(), *most;
	struct loaded *l;
	(void)state;

	assert_int_equal(TOPO_MAX_CORES, 8192);
	most = replace(s, from, "prefix=\"s0c0\" suffix=\"\" radical=\"0-8183\"");
	write_tmp("most.xml", most, path, sizeof(path));
	l = load_in_child(path);
	if (l->rc)
		fail_msg("%s", l->err);
	assert_int_equal(l->t.ncores, TOPO_MAX_CORES);
	assert_int_equal(l->t.core_socket[8183], 0);
	assert_int_equal(l->t.core_socket[8184], 1);
	assert_string_equal(l->last_host, "s1c07");
	unload(l);
	free(most);
	expect_error("toomany.xml", replace(s, from, "prefix=\"s0c0\" suffix=\"\" radical=\"0-8184\""),
		     "8193 cores, at most 8192");
	free(s);
}

/* uv4096 (tools/gentopo.py, shape mesh2): 16 groups of 16 sockets. */
static void test_uv4096(void **state)
{
	struct loaded *l = expect_machine("uv4096", 4096, 256, 4, PROTO_MESIF);
	(void)state;
	assert_int_equal(cls(l, 0, 15), 1);    /* inside a group: one link */
	assert_int_equal(cls(l, 0, 16), 2);    /* socket 0 of the next group: one link across */
	assert_int_equal(cls(l, 0, 17), 3);    /* two hops */
	assert_int_equal(cls(l, 255, 0), 3);
	assert_int_equal(l->t.class_lat_ps[3], l->t.class_lat_ps[1] + l->t.class_lat_ps[2]);
	assert_int_equal(l->t.max_local_run, 16);
	unload(l);
}

static int setup(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/locklab-topo-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_1socket),
		cmocka_unit_test(test_2socket),
		cmocka_unit_test(test_4socket),
		cmocka_unit_test(test_4socket_ring),
		cmocka_unit_test(test_8socket),
		cmocka_unit_test(test_xeon80),
		cmocka_unit_test(test_opteron48),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_every_machine_lists_its_assumptions),
		cmocka_unit_test(test_bad_ranges),
		cmocka_unit_test(test_bad_structure),
		cmocka_unit_test(test_idle_states),
		cmocka_unit_test(test_floyd_and_order),
		cmocka_unit_test(test_floyd_chain),
		cmocka_unit_test(test_core_limit),
		cmocka_unit_test(test_uv4096),
	};
	int one = 1;
	char *sg_argv[] = { argv[0], NULL };

	(void)argc;
	xbt_log_control_set("root.thres:critical");
	simgrid_init(&one, sg_argv);
	return cmocka_run_group_tests(tests, setup, teardown);
}
