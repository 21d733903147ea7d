/*
 * sim/switches.c - the run options that turn a mechanism of the memory
 * system off, so that a figure can be had with and without it:
 * --home-agents on|off, --probes on|off, --smt on|off and --idle-states on|off
 * (README.md, docs/mechanisms.md).  Each is on by default: the topology's
 * figures as its file gives them.  And the one that turns a mechanism on
 * with a size the user gives, off by default: --snoop-travel PCT, the share
 * of a miss's latency for which the line's M or E owner still holds it
 * (sim/coh_protocol.c, docs/mechanisms.md).
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
static unsigned snoop_pct; /* --snoop-travel */
static bool snoop_given;

static int parse_snoop_travel(const char *val, char *err, size_t len)
{
	uint64_t v;

	if (cli_parse_u64(val, &v) || v > 100) {
		snprintf(err, len, "--snoop-travel: '%s' is not a percentage in 0..100", val);
		return -1;
	}
	snoop_pct = (unsigned)v;
	snoop_given = true;
	return 1;
}

int sim_switch_parse(const char *opt, const char *val, char *err, size_t len)
{
	if (!strcmp(opt, "--snoop-travel"))
		return parse_snoop_travel(val, err, len);
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
	if (snoop_given)
		coh_set_snoop_travel(m, snoop_pct);
}

/* The share a run uses: --snoop-travel's, else the topology's. */
static unsigned snoop_in_use(void)
{
	return snoop_given ? snoop_pct : sim.topo_loaded ? sim.topo.snoop_pct : 0;
}

size_t sim_snoop_assumed(char *buf, size_t len)
{
	if (len)
		buf[0] = 0;
	if (!snoop_given || !snoop_pct)
		return 0;
	return (size_t)snprintf(buf, len, "--snoop-travel %u%%, the share of a miss's latency "
				"before its snoop reaches the line's owner (docs/mechanisms.md)",
				snoop_pct);
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
	if (snoop_given || snoop_in_use())
		fprintf(f, ", \"snoop_travel_pct\": %u, \"snoop_travel_given\": %s", snoop_in_use(),
			snoop_given ? "true" : "false");
	if (!sw_off[SW_IDLE] && sim.topo_loaded && sim.topo.nidle && !(cfg && cfg->vm_vcpus)) {
		fprintf(f, ", \"idle_states\": [");
		for (unsigned i = 0; i < sim.topo.nidle; i++)
			fprintf(f, "%s{\"name\": \"%s\", \"exit_us\": %.3f, \"residency_us\": %.3f}",
				i ? ", " : "", sim.topo.idle[i].name, (double)sim.topo.idle[i].exit_ps / 1e6,
				(double)sim.topo.idle[i].residency_ps / 1e6);
		fputc(']', f);
	}
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
	if (!strcmp(item, "snoop.travel"))
		return !snoop_given;
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
	if ((snoop_given || snoop_in_use()) && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", snoop travel %u%%%s", snoop_in_use(),
				      snoop_given ? " (--snoop-travel)" : " (the topology's)");
	return n;
}
