/*
 * sim/options.c - the simulator's own command line: its `run` options
 * (--topo, --sim-quantum, --watchdog, --arbitration, the mechanism switches,
 * the VM and graph options, --memory-model), the SimGrid settings a user may
 * give (--simgrid-cfg, checked against an allow-list), and its sub-commands
 * explain, ccbench and check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/args.h>
#include <locklab/backend.h>

#include "lockstep.h"
#include "report/report.h"
#include "sched_noise.h"
#include "sim.h"
#include "storebuf.h"
#include "switches.h"
#include "vm.h"

#define QUANTUM_MAX_NS 1000000ull
#define WATCHDOG_MAX_MS (24ull * 3600 * 1000)
#define LOCAL_RUN_MAX 1000000000ull

const char backend_usage[] =
	"              [--topo NAME|FILE] [--sim-quantum NS] [--watchdog MS]\n"
	"              [--arbitration fifo|socket-first[:N|:unbounded]] [--simgrid-cfg KEY:VALUE]\n"
	"              --topo: a machine under topologies/ or a platform file (default " SIM_DEFAULT_TOPO ")\n"
	"              --sim-quantum: local time a thread may run ahead before it yields (default 100 ns)\n"
	"              --watchdog: fail a run with no acquisition for MS simulated ms\n"
	"                          (default max(10, 1000 x (cs + ncs + slowest access) / 1e6);\n"
	"                          0 = off; topologies/README.md)\n"
	"              --arbitration: replace the topology's rule for a contended line\n"
	"                          (socket-first:N: at most N grants in a row to one socket)\n"
	"              [--home-agents on|off] [--probes on|off] [--smt on|off] [--idle-states on|off]\n"
	"              --home-agents, --probes, --smt, --idle-states: turn a mechanism of the machine\n"
	"                          off (each on by default; docs/mechanisms.md; --smt off: each hardware\n"
	"                          thread its own core; --idle-states off: a sleeping thread's CPU\n"
	"                          polls, idle=poll, instead of entering the topology's idle.states)\n"
	"              [--snoop-travel PCT]: a line taken by a miss stays with its owner for PCT%\n"
	"                          of the miss's latency, while the snoop travels (0..100; default\n"
	"                          the topology's snoop.travel, 0 where it gives none: the line\n"
	"                          moves at once; docs/mechanisms.md)\n"
	"              [--lat-spread PCT]: each miss's latency drawn from 1 - PCT% to 1 + PCT% of\n"
	"                          the table's, seeded (0..90; default the topology's latency.spread,\n"
	"                          0 where it gives none: docs/mechanisms.md)\n"
	"              [--lockstep-probe on|off]: under a starved or unfair configuration whose\n"
	"                          runs timed every miss exactly, the table's line of one more run\n"
	"                          with each miss within 10% of its latency (default on; also\n"
	"                          explain's; docs/graphs.md)\n"
	"              --simgrid-cfg: a SimGrid setting (repeatable): contexts/factory:raw|thread,\n"
	"                          contexts/stack-size:KIB (64..65536), contexts/guard-size:PAGES (0..64)\n"
	"              times are simulated: runs last 2 ms unless --duration or --ops;\n"
	"              --pin none places threads as an OS would, a fresh draw per run, with\n"
	"                          migrations, interrupts and --lock-home random; --pin node:N the\n"
	"                          same inside socket N, the locks at home there (docs/variance.md)\n"
	NOISE_USAGE
	"              [--memory-model sc|tso|pso]: store buffers (default: the topology's;\n"
	"                          docs/storebuf.md)\n"
	"              [--graphs DIR]: contention graphs of the last run of each configuration\n"
	"                          (and the waits-for graph of a deadlock): docs/graphs.md\n"
	VM_USAGE;

/* ------------------------------------------------------------ --arbitration */

static const char *arb_given; /* the option's text */
static enum topo_arbitration arb;
static long arb_run = -1;

static int parse_arbitration(const char *val, char *err, size_t len)
{
	uint64_t n;

	arb_run = -1;
	if (!strcmp(val, "fifo")) {
		arb = ARB_FIFO;
	} else if (!strcmp(val, "socket-first")) {
		arb = ARB_SOCKET_FIRST;
	} else if (!strcmp(val, "socket-first:unbounded")) {
		arb = ARB_SOCKET_FIRST;
		arb_run = 0;
	} else if (!strncmp(val, "socket-first:", 13) && !cli_parse_u64(val + 13, &n) && n >= 1 &&
		   n <= LOCAL_RUN_MAX) {
		arb = ARB_SOCKET_FIRST;
		arb_run = (long)n;
	} else {
		snprintf(err, len, "--arbitration: '%s' is not fifo, socket-first, socket-first:N "
			 "(N in 1..%llu) or socket-first:unbounded", val, LOCAL_RUN_MAX);
		return -1;
	}
	arb_given = val;
	return 1;
}

void sim_apply_arbitration(struct topo *t)
{
	if (arb_given)
		topo_set_arbitration(t, arb, arb_run);
}

const char *sim_arbitration_option(void)
{
	return arb_given;
}

size_t sim_arbitration_text(char *buf, size_t len)
{
	const struct topo *t = &sim.topo;

	if (!sim.topo_loaded)
		return (size_t)snprintf(buf, len, "%s", arb_given ? arb_given : "");
	if (t->arbitration != ARB_SOCKET_FIRST)
		return (size_t)snprintf(buf, len, "fifo");
	if (!t->max_local_run)
		return (size_t)snprintf(buf, len, "socket-first:unbounded");
	return (size_t)snprintf(buf, len, "socket-first:%u", t->max_local_run);
}

/* ------------------------------------------------------------ run options */

static int parse_number(const char *opt, const char *val, uint64_t max, const char *unit,
			uint64_t *v, char *err, size_t len)
{
	if (!cli_parse_u64(val, v) && *v <= max)
		return 1;
	snprintf(err, len, "%s: '%s' is not a number of %s in 0..%llu", opt, val, unit,
		 (unsigned long long)max);
	return -1;
}

int backend_parse_option(const char *opt, const char *val, char *err, size_t errlen)
{
	uint64_t v;
	int rc;

	if (!strcmp(opt, "--topo")) {
		if (!*val) {
			snprintf(err, errlen, "--topo: empty name");
			return -1;
		}
		sim.topo_arg_opt = val;
		return 1;
	}
	if (!strcmp(opt, "--sim-quantum")) {
		rc = parse_number(opt, val, QUANTUM_MAX_NS, "ns", &v, err, errlen);
		if (rc > 0)
			sim.quantum_ps = v * 1000;
		return rc;
	}
	if (!strcmp(opt, "--watchdog")) {
		rc = parse_number(opt, val, WATCHDOG_MAX_MS, "ms", &v, err, errlen);
		if (rc > 0)
			sim.watchdog_ps = v * 1000000000ull;
		return rc;
	}
	if (!strcmp(opt, "--arbitration"))
		return parse_arbitration(val, err, errlen);
	if (!strcmp(opt, "--lockstep-probe"))
		return sim_lockstep_parse(val, err, errlen);
	rc = sim_switch_parse(opt, val, err, errlen);
	if (rc)
		return rc;
	rc = report_parse_option(opt, val, err, errlen);
	rc = rc ? rc : sb_parse_option(opt, val, err, errlen);
	rc = rc ? rc : noise_parse_option(opt, val, err, errlen);
	return rc ? rc : vm_parse_option(opt, val, err, errlen);
}

/* ------------------------------------------------------------ --simgrid-cfg */

struct sg_key {
	const char *key;
	const char *const *words; /* the values allowed, or NULL for a number */
	uint64_t lo, hi;
};

static const char *const factories[] = { "raw", "thread", NULL };

static const struct sg_key sg_keys[] = {
	{ "contexts/factory", factories, 0, 0 },
	{ "contexts/stack-size", NULL, 64, 65536 },     /* KiB */
	{ "contexts/guard-size", NULL, 0, 64 },         /* pages */
};

static bool word_in(const char *v, const char *const *words)
{
	for (; *words; words++)
		if (!strcmp(v, *words))
			return true;
	return false;
}

/* KEY:VALUE of --simgrid-cfg: 0, or -1 with one line in err. */
static int check_simgrid_cfg(const char *kv, char *err, size_t len)
{
	const char *colon = strchr(kv, ':');
	uint64_t v;

	for (size_t i = 0; colon && i < sizeof(sg_keys) / sizeof(sg_keys[0]); i++) {
		const struct sg_key *k = &sg_keys[i];

		if (strlen(k->key) != (size_t)(colon - kv) || strncmp(kv, k->key, strlen(k->key)))
			continue;
		if (k->words ? word_in(colon + 1, k->words)
			     : !cli_parse_u64(colon + 1, &v) && v >= k->lo && v <= k->hi)
			return 0;
		if (k->words)
			snprintf(err, len, "--simgrid-cfg: %s: '%s' is not raw or thread", k->key,
				 colon + 1);
		else
			snprintf(err, len, "--simgrid-cfg: %s: '%s' is not a whole number in %llu..%llu",
				 k->key, colon + 1, (unsigned long long)k->lo,
				 (unsigned long long)k->hi);
		return -1;
	}
	snprintf(err, len, "--simgrid-cfg: '%.60s' is not KEY:VALUE with KEY contexts/factory, "
		 "contexts/stack-size or contexts/guard-size", kv);
	return -1;
}

/* Take every --simgrid-cfg KEY:VALUE out of argv into sg as --cfg=KEY:VALUE
 * (at most room of them, allocated: the caller frees them).  SimGrid reads them before the first topology,
 * so they are taken here, before the sub-command parses its options. */
int sim_take_simgrid_cfg(int *argc, char **argv, char **sg, int *n, int room)
{
	const char *cmd = *argc > 1 && argv[1][0] != '-' ? argv[1] : "sim";
	char err[256];
	int m = 1, start = *n;

	for (int i = 1; i < *argc; i++) {
		const char *a = argv[i], *v;

		if (!strncmp(a, "--simgrid-cfg=", 14))
			v = a + 14;
		else if (!strcmp(a, "--simgrid-cfg") && i + 1 < *argc)
			v = argv[++i];
		else if (!strcmp(a, "--simgrid-cfg"))
			return ll_bad(cmd, "--simgrid-cfg: needs a value (KEY:VALUE)");
		else {
			argv[m++] = argv[i];
			continue;
		}
		if (check_simgrid_cfg(v, err, sizeof(err)))
			return ll_bad(cmd, "%s", err);
		for (int k = start; k < *n; k++) /* the second would silently win */
			if (!strncmp(sg[k] + 6, v, (size_t)(strchr(v, ':') - v) + 1))
				return ll_bad(cmd, "--simgrid-cfg: %.*s given twice",
					      (int)(strchr(v, ':') - v), v);
		if (*n == room || asprintf(&sg[*n], "--cfg=%s", v) < 0)
			return ll_bad(cmd, "--simgrid-cfg: too many settings");
		(*n)++;
	}
	argv[m] = NULL;
	*argc = m;
	return 0;
}

/* ------------------------------------------------------------ sub-commands */

static void explain_usage(FILE *f)
{
	fprintf(f, "usage: locklab-sim explain --lock L --threads N [--topo NAME|FILE] [run options]\n"
		   "              [--format table|csv] [--out FILE] [--graphs DIR]\n"
		   "              where the handoff time goes, and how unfair the lock is "
		   "(docs/graphs.md)\n"
		   "              one mutex, one thread count of 2 or more, no --vm; over --runs\n"
		   "              runs (3 by default), one after another in this process\n"
		   "              --topo: a machine under topologies/ or a platform file (default "
		   "4socket);\n"
		   "              the run options are those of `locklab-sim run --help`, but for a\n"
		   "              sweep's (--jobs, --shard, --progress, --fail-fast, lists in --lock\n"
		   "              and --threads), its outputs (--csv, --json, --threads-csv: give\n"
		   "              --format csv --out FILE), --locks above 1, --time-every and --vm\n");
}

static const struct ll_command explain_cmd;

static int cmd_explain(int argc, char **argv)
{
	return explain_command(&explain_cmd, argc, argv, sim_explain);
}

static const struct ll_command explain_cmd = {
	.name = "explain", .main = cmd_explain, .usage = explain_usage, .opts = cli_run_opts,
	.open = true,
};

const struct ll_command *const backend_commands[] = {
	&explain_cmd, &sim_ccbench_cmd, &sim_check_cmd, &sim_filelock_cmd, &sim_scoreboard_cmd,
	NULL,
};
