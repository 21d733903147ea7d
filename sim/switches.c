/*
 * sim/switches.c - the run options that turn a mechanism of the memory
 * system off, so that a figure can be had with and without it:
 * --home-agents on|off, --probes on|off, --smt on|off and --idle-states on|off
 * (README.md, docs/mechanisms.md).  Each is on by default: the topology's
 * figures as its file gives them.  And the two that give a mechanism a size,
 * replacing the topology's (0, off, where its file gives none): --snoop-travel
 * PCT, the share of a miss's latency for which the line's M or E owner still
 * holds it, and --lat-spread PCT, how far a miss's latency strays from the
 * table's (sim/coh_protocol.c, docs/mechanisms.md).
 */
#include <string.h>

#include <locklab/backend.h>

#include "sim.h"
#include "switches.h"
#include "vm.h"

enum { SW_HOME, SW_PROBES, SW_SMT, SW_IDLE, SW_N };

static const char *const sw_opt[SW_N] = { "--home-agents", "--probes", "--smt", "--idle-states" };
static const char *const sw_json[SW_N] = { "home_agents", "probes", "smt", "idle_states" };
static bool sw_off[SW_N], sw_given[SW_N];
/* The sizes: the option, its JSON member and settings text, the topology's
 * property, the largest value and what the size is (the assumed line). */
enum { SZ_SNOOP, SZ_SPREAD, SZ_N };

static const struct {
	const char *opt, *json, *json_given, *text, *prop, *what;
	unsigned max;
} sz_def[SZ_N] = {
	{ "--snoop-travel", "snoop_travel_pct", "snoop_travel_given", "snoop travel", "snoop.travel",
	  "the share of a miss's latency before its snoop reaches the line's owner", 100 },
	{ "--lat-spread", "latency_spread_pct", "latency_spread_given", "latency spread",
	  "latency.spread", "how far a miss's latency strays from the table's", SIM_SPREAD_MAX },
};
static unsigned sz_val[SZ_N];
static bool sz_given[SZ_N];

static int parse_size(int i, const char *val, char *err, size_t len)
{
	uint64_t v;

	if (cli_parse_u64(val, &v) || v > sz_def[i].max) {
		snprintf(err, len, "%s: '%s' is not a percentage in 0..%u", sz_def[i].opt, val,
			 sz_def[i].max);
		return -1;
	}
	sz_val[i] = (unsigned)v;
	sz_given[i] = true;
	return 1;
}

/* The size a run uses: the option's, else the topology's. */
static unsigned size_in_use(int i)
{
	if (sz_given[i])
		return sz_val[i];
	if (!sim.topo_loaded)
		return 0;
	return i == SZ_SNOOP ? sim.topo.snoop_pct : sim.topo.spread_pct;
}

/* Is size i said in the settings and the JSON?  When a run has it, or an
 * option gave it (0 over a topology's own: said as the run's). */
static bool size_said(int i)
{
	return sz_given[i] || size_in_use(i);
}

static int spread_forced = -1;

unsigned sim_lat_spread(void)
{
	return spread_forced >= 0 ? (unsigned)spread_forced : size_in_use(SZ_SPREAD);
}

void sim_lat_spread_force(int pct)
{
	spread_forced = pct;
}

int sim_switch_parse(const char *opt, const char *val, char *err, size_t len)
{
	for (int i = 0; i < SZ_N; i++)
		if (!strcmp(opt, sz_def[i].opt))
			return parse_size(i, val, err, len);
	for (int i = 0; i < SW_N; i++) {
		if (strcmp(opt, sw_opt[i]))
			continue;
		if (strcmp(val, "on") && strcmp(val, "off")) {
			snprintf(err, len, "%s: '%s' is not on or off", opt, val);
			return -1;
		}
		sw_off[i] = !strcmp(val, "off");
		sw_given[i] = true;
		return 1;
	}
	return 0;
}

void sim_switch_topo(struct topo *t)
{
	if (sw_off[SW_SMT])
		topo_smt_off(t);
	if (sw_off[SW_IDLE])
		t->nidle = 0; /* the hardware threads poll: idle=poll */
}

/* What the loaded machine lacks for switch i to be on: NULL if it has it. */
static const char *lacks(int i)
{
	switch (i) {
	case SW_HOME:
		return sim.topo.home_occ_ps ? NULL : "home agents that take time (home.occupancy 0)";
	case SW_PROBES:
		return sim.topo.directory != DIR_FULL ? NULL :
		       "probes (its directory knows every copy: directory full)";
	case SW_SMT:
		return sim.topo.smt > 1 ? NULL : "SMT (a hardware thread a core)";
	default:
		return sim.topo.nidle ? NULL : "idle states (no idle table)";
	}
}

/* on claims a mechanism: refused where the machine has none (it would mean
 * nothing), as --idle-states on under --vm; off says what is so anywhere. */
int sim_switch_check(const struct wl_config *cfg, char *err, size_t len)
{
	for (int i = 0; i < SW_N; i++) {
		const char *no;

		if (!sw_given[i] || sw_off[i])
			continue;
		if (i == SW_IDLE && cfg->vm_vcpus && vm_are_processes()) {
			snprintf(err, len, "--idle-states on: processes that outnumber their cpus "
				 "share them by the OS model, whose cpus enter no idle state "
				 "(docs/filelock.md); the idle states apply with a cpu a process");
			return -1;
		}
		if (i == SW_IDLE && cfg->vm_vcpus) {
			snprintf(err, len, "--idle-states on: a --vm run's halts are the hypervisor's "
				 "(docs/vm.md); the idle states apply to runs without --vm");
			return -1;
		}
		no = lacks(i);
		if (no) {
			snprintf(err, len, "%s on: topology %s has no %s", sw_opt[i], sim.topo.name, no);
			return -1;
		}
	}
	return 0;
}

/* Which idle states a run of cfg may use: none under --vm (the hypervisor's
 * halts: docs/vm.md), none for --idle-states off, none in the machine, or
 * its table. */
enum idle_kind { IDLE_VM, IDLE_OFF, IDLE_NONE, IDLE_TABLE };

static enum idle_kind idle_kind(const struct wl_config *cfg)
{
	if (cfg && cfg->vm_vcpus)
		return IDLE_VM;
	if (sw_off[SW_IDLE])
		return IDLE_OFF;
	return sim.topo_loaded && sim.topo.nidle ? IDLE_TABLE : IDLE_NONE;
}

/* The table's state names joined by sep; returns the length. */
static size_t idle_names(const char *sep, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < sim.topo.nidle && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? sep : "", sim.topo.idle[i].name);
	return n;
}

size_t sim_idle_text(const struct wl_config *cfg, char *buf, size_t len)
{
	char names[128];

	switch (idle_kind(cfg)) {
	case IDLE_VM:
		buf[0] = 0;
		return 0;
	case IDLE_OFF:
		return (size_t)snprintf(buf, len, "idle states off (--idle-states off)");
	case IDLE_NONE:
		return (size_t)snprintf(buf, len, "no idle states (none in %s)",
					sim.topo_loaded ? sim.topo.name : "the topology");
	default:
		idle_names(",", names, sizeof(names));
		return (size_t)snprintf(buf, len, "idle states %s (the topology's)", names);
	}
}

size_t sim_idle_field(const struct wl_config *cfg, char *buf, size_t len)
{
	switch (idle_kind(cfg)) {
	case IDLE_VM: /* the OS model's cpus enter none */
		return (size_t)snprintf(buf, len, "none");
	case IDLE_OFF:
		return (size_t)snprintf(buf, len, "off");
	case IDLE_NONE:
		return (size_t)snprintf(buf, len, "none");
	default:
		return idle_names(" ", buf, len);
	}
}

void sim_switch_model(struct coh_model *m)
{
	if (sw_off[SW_HOME])
		coh_set_home_agents(m, false);
	if (sw_off[SW_PROBES])
		coh_set_probes(m, false);
	if (sz_given[SZ_SNOOP])
		coh_set_snoop_travel(m, sz_val[SZ_SNOOP]);
}

size_t sim_sizes_assumed(char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = 0;
	for (int i = 0; i < SZ_N && n < len; i++)
		if (sz_given[i] && sz_val[i])
			n += (size_t)snprintf(buf + n, len - n, "%s%s %u%%, %s", n ? "; " : "",
					      sz_def[i].opt, sz_val[i], sz_def[i].what);
	if (n && n < len)
		n += (size_t)snprintf(buf + n, len - n, " (docs/mechanisms.md)");
	return n;
}

void sim_switch_json(FILE *f, const struct wl_config *cfg)
{
	char assumed[sizeof(sim.topo.assumed) * 2];

	if (sim_assumed_list(cfg, ", ", "\"", assumed, sizeof(assumed)))
		fprintf(f, ", \"assumed\": [%s]", assumed);
	for (int i = 0; i < SW_N; i++)
		if (sw_off[i]) /* off, also --idle-states off under --vm: what is so */
			fprintf(f, ", \"%s\": \"off\"", sw_json[i]);
	if (!sw_off[SW_SMT] && sim.topo_loaded && sim.topo.smt > 1)
		fprintf(f, ", \"smt\": %u", sim.topo.smt);
	for (int i = 0; i < SZ_N; i++)
		if (size_said(i))
			fprintf(f, ", \"%s\": %u, \"%s\": %s", sz_def[i].json, size_in_use(i),
				sz_def[i].json_given, sz_given[i] ? "true" : "false");
	if (!sw_off[SW_IDLE] && sim.topo_loaded && sim.topo.nidle && !(cfg && cfg->vm_vcpus)) {
		fprintf(f, ", \"idle_states\": [");
		for (unsigned i = 0; i < sim.topo.nidle; i++)
			fprintf(f, "%s{\"name\": \"%s\", \"exit_us\": %.3f, \"residency_us\": %.3f}",
				i ? ", " : "", sim.topo.idle[i].name, (double)sim.topo.idle[i].exit_ps / 1e6,
				(double)sim.topo.idle[i].residency_ps / 1e6);
		fputc(']', f);
	}
	if (sim.topo_loaded && sim.topo.kick_given && !(cfg && cfg->vm_vcpus))
		fprintf(f, ", \"park_kick_ns\": %.3f", (double)sim.topo.kick_ps / 1e3);
}

/* Is item of the topology's `assumed` list a figure this run uses?  Not
 * the arbitration's when --arbitration replaced it, nor a mechanism a
 * switch (or --vm, for the idle states) turned off. */
static bool assumed_in_use(const char *item, const struct wl_config *cfg)
{
	if (!strcmp(item, "arbitration")) /* the rule itself, whichever it is */
		return !sim_arbitration_option();
	if (!strncmp(item, "arbitration.", 12)) /* the bound: socket-first's */
		return !sim_arbitration_option() && sim.topo.arbitration == ARB_SOCKET_FIRST;
	for (int i = 0; i < SZ_N; i++)
		if (!strcmp(item, sz_def[i].prop))
			return !sz_given[i];
	if (!strcmp(item, "park.kick")) /* a --vm run's kick is the hypervisor's */
		return !(cfg && cfg->vm_vcpus);
	if (!strcmp(item, "idle.states"))
		return !sw_off[SW_IDLE] && sim.topo.nidle && !(cfg && cfg->vm_vcpus);
	if (!strcmp(item, "home.occupancy"))
		return !sw_off[SW_HOME] && sim.topo.home_occ_ps;
	if (!strncmp(item, "smt.", 4))
		return !sw_off[SW_SMT] && sim.topo.smt > 1;
	return true;
}

size_t sim_assumed_list(const struct wl_config *cfg, const char *sep, const char *quote,
			char *buf, size_t len)
{
	char items[sizeof(sim.topo.assumed)], *save = NULL;
	size_t n = 0;

	if (len)
		buf[0] = 0;
	if (!sim.topo_loaded)
		return 0;
	snprintf(items, sizeof(items), "%s", sim.topo.assumed);
	for (char *tok = strtok_r(items, " ", &save); tok && n < len; tok = strtok_r(NULL, " ", &save))
		if (assumed_in_use(tok, cfg))
			n += (size_t)snprintf(buf + n, len - n, "%s%s%s%s", n ? sep : "", quote, tok,
					      quote);
	return n;
}

size_t sim_switch_text(char *buf, size_t len)
{
	size_t n = 0;

	for (int i = 0; i < SW_N; i++)
		if (sw_off[i] && i != SW_IDLE && n < len)
			n += (size_t)snprintf(buf + n, len - n, ", %s off", sw_opt[i]);
	for (int i = 0; i < SZ_N && n < len; i++)
		if (size_said(i))
			n += (size_t)snprintf(buf + n, len - n, ", %s %u%% (%s)", sz_def[i].text,
					      size_in_use(i),
					      sz_given[i] ? sz_def[i].opt : "the topology's");
	return n;
}
