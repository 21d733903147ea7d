/*
 * sim/ccbench.c - `locklab-sim ccbench`: the cache-coherence latency
 * experiment of David, Guerraoui and Trigonakis ("Everything you always
 * wanted to know about synchronization but were afraid to ask", SOSP 2013),
 * run on the simulated machine.
 *
 * For each operation (load, store, CAS, FAI, TAS) and each state the line
 * is in (M, E, S, I), a line is put in that state with its owner (or, for
 * I, its home memory) at each distance class from the requester, core 0;
 * an actor on core 0 then performs the operation through the ordinary
 * ll_* path and the simulated time it took is recorded.  The table shows
 * the latencies in the topology's unit (cycles when the topology gives a
 * clock frequency, else ns) and the relative error against the latencies
 * the topology declares.  Exit status 1 when an error exceeds 5%.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/args.h>
#include <locklab/mem.h>

#include "sim.h"
#include "switches.h"

#define CC_LIMIT_PCT 5.0
#define CC_GAP_NS 1000 /* between measurements: links and lines go idle */

enum cc_op { CC_LOAD, CC_STORE, CC_CAS, CC_FAI, CC_TAS, CC_NOPS };

static const char *const cc_op_names[CC_NOPS] = { "load", "store", "cas", "fai", "tas" };
static const enum topo_op cc_topo_op[CC_NOPS] = { TOPO_LOAD, TOPO_STORE, TOPO_ATOMIC, TOPO_ATOMIC,
						   TOPO_ATOMIC };
static const char cc_state_names[TOPO_NSTATES] = { 'M', 'E', 'S', 'I' };

struct cc_bench {
	unsigned req;                        /* requester core */
	int owner[TOPO_MAX_CLASSES];         /* a core at each class, -1: none */
	int home[TOPO_MAX_CLASSES];          /* a socket at each class, -1: none */
	uint64_t ps[CC_NOPS][TOPO_NSTATES][TOPO_MAX_CLASSES];
};

static void cc_do_op(enum cc_op op, uint64_t *p)
{
	switch (op) {
	case CC_LOAD:
		(void)ll_load(p, LL_RELAXED);
		break;
	case CC_STORE:
		ll_store(p, 1, LL_RELAXED);
		break;
	case CC_CAS:
		(void)ll_cas(p, 0, 1, LL_SEQ_CST);
		break;
	case CC_FAI:
		(void)ll_fetch_add(p, 1, LL_SEQ_CST);
		break;
	default:
		(void)ll_xchg(p, 1, LL_SEQ_CST);
		break;
	}
}

/* One cell: a fresh line in state st, owned at class c, accessed by op. */
static void cc_cell(struct cc_bench *b, enum cc_op op, enum topo_state st, unsigned c)
{
	unsigned owner = (unsigned)b->owner[c];
	unsigned home = st == TOPO_I ? (unsigned)b->home[c] : sim.topo.core_socket[owner];
	uint64_t *p = ll_alloc_on(COH_LINE_SIZE, home);
	uint64_t t0;

	if (!p) {
		sim_fail("ccbench: out of memory");
		return;
	}
	coh_force_state(sim.model, (uintptr_t)p, st, &owner, st == TOPO_I ? 0 : 1);
	t0 = sim_local_ps();
	cc_do_op(op, p);
	b->ps[op][st][c] = sim_local_ps() - t0;
	ll_free(p, COH_LINE_SIZE);
	ll_delay_ns(CC_GAP_NS);
}

static void cc_actor(void *arg)
{
	struct cc_bench *b = arg;

	for (unsigned op = 0; op < CC_NOPS; op++)
		for (unsigned st = 0; st < TOPO_NSTATES; st++)
			for (unsigned c = 0; c < sim.topo.nclasses; c++)
				if ((st == TOPO_I ? b->home[c] : b->owner[c]) >= 0)
					cc_cell(b, op, st, c);
}

/* A core at each distance class from the requester, and a socket. */
static void cc_pick(struct cc_bench *b)
{
	const struct topo *t = &sim.topo;
	unsigned rs = t->core_socket[b->req];

	for (unsigned c = 0; c < TOPO_MAX_CLASSES; c++)
		b->owner[c] = b->home[c] = -1;
	for (unsigned core = 0; core < t->ncores; core++) {
		unsigned c = topo_class(t, b->req, core);

		if (core != b->req && c < TOPO_MAX_CLASSES && b->owner[c] < 0)
			b->owner[c] = (int)core;
	}
	for (unsigned s = 0; s < t->nsockets; s++) {
		unsigned c = t->socket_class[rs * t->nsockets + s];

		if (c < TOPO_MAX_CLASSES && b->home[c] < 0)
			b->home[c] = (int)s;
	}
}

static bool in_cycles(void)
{
	return sim.topo.unit_cycles && sim.topo.freq_ghz > 0;
}

static double to_unit(uint64_t ps)
{
	return in_cycles() ? (double)ps * sim.topo.freq_ghz / 1000.0 : (double)ps / 1000.0;
}

/* The value the topology file gives for a cell, in its unit; 0 when the
 * row was not in the file (a default filled it). */
static double cc_expected(unsigned op, unsigned st, unsigned c)
{
	const struct topo *t = &sim.topo;

	if (!t->lat_from_file[cc_topo_op[op]][st])
		return 0;
	return t->lat_unit[cc_topo_op[op]][st][c];
}

/* Relative error in percent; NaN where the topology gives no value. */
static double cc_error(const struct cc_bench *b, unsigned op, unsigned st, unsigned c)
{
	double want = cc_expected(op, st, c);

	if (want <= 0)
		return NAN;
	double e = 100.0 * (to_unit(b->ps[op][st][c]) - want) / want;

	return fabs(e) < 0.005 ? 0.0 : e; /* no "-0.0%" from rounding */
}

static bool cc_has(const struct cc_bench *b, unsigned st, unsigned c)
{
	return (st == TOPO_I ? b->home[c] : b->owner[c]) >= 0;
}

static double cc_print_table(const struct cc_bench *b)
{
	const struct topo *t = &sim.topo;
	double maxerr = 0;
	char cpus[96], assumed[sizeof(t->assumed) * 2]; /* ", " for " " */

	printf("ccbench on %s: %s, %u socket%s; requester core %u; latency in %s", t->name,
	       topo_cpus_text(t, t->ncores, cpus, sizeof(cpus)), t->nsockets,
	       t->nsockets == 1 ? "" : "s", b->req, in_cycles() ? "cycles" : "ns");
	if (in_cycles())
		printf(" (%.2f GHz)", t->freq_ghz);
	/* a "socket" is the file's zone, a NUMA node: on some machines a die */
	if (t->description[0])
		printf("\nthe machine: %s; a socket here is %s %u zone%s (NUMA node%s)",
		       t->description, t->nsockets == 1 ? "its" : "one of its", t->nsockets,
		       t->nsockets == 1 ? "" : "s", t->nsockets == 1 ? "" : "s");
	if (sim_assumed_list(NULL, ", ", "", assumed, sizeof(assumed)))
		printf("\nassumed in %s (no source; topologies/README.md says why): %s", t->name, assumed);
	else if (topo_assumed_unstated(t))
		printf("\nassumed in %s: " SIM_ASSUMED_NOT_STATED, t->name);
	printf("\nsimulated (difference from the topology's own table: a check of the model against its\n"
	       "description, not of the description against hardware; no difference is shown where the\n"
	       "table gives no value of its own and the model derives it)\n%-9s", "op state");
	for (unsigned c = 0; c < t->nclasses; c++) {
		char label[32];

		snprintf(label, sizeof(label), "class %u", c);
		printf(" %18s", label);
	}
	printf("\n%-9s", "");
	for (unsigned c = 0; c < t->nclasses; c++) {
		char label[32];

		if (c == 0)
			snprintf(label, sizeof(label), "same socket");
		else
			snprintf(label, sizeof(label), "route %.0f ns", (double)t->class_lat_ps[c] / 1000.0);
		printf(" %18s", label);
	}
	printf("\n");
	for (unsigned op = 0; op < CC_NOPS; op++)
		for (unsigned st = 0; st < TOPO_NSTATES; st++) {
			printf("%-7s %c", cc_op_names[op], cc_state_names[st]);
			for (unsigned c = 0; c < t->nclasses; c++) {
				double e = cc_error(b, op, st, c);

				if (!cc_has(b, st, c)) {
					printf(" %18s", "-");
					continue;
				}
				if (isnan(e))
					printf(" %9.1f %8s", to_unit(b->ps[op][st][c]), "");
				else
					printf(" %9.1f (%+5.1f%%)", to_unit(b->ps[op][st][c]), e);
				if (!isnan(e) && fabs(e) > maxerr)
					maxerr = fabs(e);
			}
			printf("\n");
		}
	return maxerr;
}

static double cc_print_csv(const struct cc_bench *b)
{
	const struct topo *t = &sim.topo;
	double maxerr = 0;

	printf("topo,op,state,class,simulated,described,unit,error_pct\n");
	for (unsigned op = 0; op < CC_NOPS; op++)
		for (unsigned st = 0; st < TOPO_NSTATES; st++)
			for (unsigned c = 0; c < t->nclasses; c++) {
				double want = cc_expected(op, st, c);
				double e = cc_error(b, op, st, c);

				if (!cc_has(b, st, c))
					continue;
				printf("%s,%s,%c,%u,%.1f,", t->name, cc_op_names[op], cc_state_names[st], c,
				       to_unit(b->ps[op][st][c]));
				if (want)
					printf("%.1f,%s,%.2f\n", want, in_cycles() ? "cycles" : "ns", e);
				else
					printf(",%s,\n", in_cycles() ? "cycles" : "ns");
				if (!isnan(e) && fabs(e) > maxerr)
					maxerr = fabs(e);
			}
	return maxerr;
}

static const struct ll_opt cc_opts[] = { LL_VALUE("--topo"), LL_VALUE("--format"), LL_OPTS_END };

static void cc_usage(FILE *f)
{
	fprintf(f, "usage: locklab-sim ccbench [--topo NAME|FILE] [--format table|csv]\n"
		   "              cache-line transfer latencies by state and distance (SOSP'13 ccbench)\n");
}

static int cc_args(int argc, char **argv, const char **topo, bool *csv)
{
	struct ll_args a;
	char err[256];
	int rc;

	ll_args_init(&a, &sim_ccbench_cmd, argc, argv);
	while ((rc = ll_args_next(&a, err, sizeof(err))) == LL_ARG_OPT) {
		if (!strcmp(a.name, "--topo")) {
			if (!*a.val)
				return ll_bad("ccbench", "--topo: empty name");
			*topo = a.val;
		} else if (strcmp(a.val, "table") && strcmp(a.val, "csv")) {
			return ll_bad("ccbench", "--format: '%s' is not table or csv", a.val);
		} else {
			*csv = !strcmp(a.val, "csv");
		}
	}
	return rc == LL_ARG_BAD ? ll_bad("ccbench", "%s", err) : 0;
}

/* On stderr: the cell furthest from the topology's value, and why that can be. */
static void cc_report_worst(const struct cc_bench *b)
{
	unsigned wop = 0, wst = 0, wc = 0;
	double worst = -1;

	for (unsigned op = 0; op < CC_NOPS; op++)
		for (unsigned st = 0; st < TOPO_NSTATES; st++)
			for (unsigned c = 0; c < sim.topo.nclasses; c++) {
				double e = cc_has(b, st, c) ? fabs(cc_error(b, op, st, c)) : NAN;

				if (e > worst) {
					worst = e;
					wop = op;
					wst = st;
					wc = c;
				}
			}
	fprintf(stderr, "locklab-sim: ccbench: %s %c at class %u took %.1f %s where the topology "
		"gives %.1f (%+.1f%%, limit %.0f%%); the model charges the file's latency less "
		"the request's travel, plus link waits (topologies/README.md)\n", cc_op_names[wop],
		cc_state_names[wst], wc, to_unit(b->ps[wop][wst][wc]), in_cycles() ? "cycles" : "ns",
		cc_expected(wop, wst, wc), cc_error(b, wop, wst, wc), CC_LIMIT_PCT);
}

static int sim_ccbench(int argc, char **argv)
{
	const char *topo = sim.topo_arg_opt ? sim.topo_arg_opt : SIM_DEFAULT_TOPO;
	bool csv = false;
	char err[512];
	struct cc_bench *b;
	double maxerr;
	int rc = cc_args(argc, argv, &topo, &csv);

	if (rc)
		return rc;
	if (sim_load_topo(topo, err, sizeof(err))) {
		ll_say("ccbench", "%s", err);
		return 2;
	}
	b = calloc(1, sizeof(*b));
	if (!b || sim_begin(1, &b->req)) {
		fprintf(stderr, "locklab-sim: ccbench: out of memory\n");
		free(b);
		return 1;
	}
	/* the table is what is checked: each miss at its latency, not spread */
	coh_set_lat_spread(sim.model, 0, 0);
	cc_pick(b);
	sim_spawn(0, cc_actor, b);
	sim_go();
	sim_end();
	maxerr = csv ? cc_print_csv(b) : cc_print_table(b);
	if (!csv)
		printf("max error against the topology: %.2f%% (limit %.0f%%): %s (the model against "
		       "its description)%s\n", maxerr,
		       CC_LIMIT_PCT, maxerr <= CC_LIMIT_PCT ? "ok" : "FAILED",
		       sim.topo.spread_pct ? "; the file's latency.spread, which scatters each miss "
					     "around the table's latency in a run, is off here" : "");
	if (maxerr > CC_LIMIT_PCT)
		cc_report_worst(b);
	free(b);
	return maxerr <= CC_LIMIT_PCT ? 0 : 1;
}

const struct ll_command sim_ccbench_cmd = {
	.name = "ccbench", .main = sim_ccbench, .usage = cc_usage, .opts = cc_opts,
};
