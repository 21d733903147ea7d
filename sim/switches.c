/*
 * sim/switches.c - the run options that turn a mechanism of the memory
 * system off, so that a figure can be had with and without it:
 * --home-agents on|off, --probes on|off, --smt on|off and --idle-states on|off
 * (README.md, docs/mechanisms.md).  Each is on by default: the topology's
 * figures as its file gives them.
 */
#include <string.h>

#include "sim.h"
#include "switches.h"

enum { SW_HOME, SW_PROBES, SW_SMT, SW_IDLE, SW_N };

static const char *const sw_opt[SW_N] = { "--home-agents", "--probes", "--smt", "--idle-states" };
static const char *const sw_json[SW_N] = { "home_agents", "probes", "smt", "idle_states" };
static bool sw_off[SW_N];

int sim_switch_parse(const char *opt, const char *val, char *err, size_t len)
{
	for (int i = 0; i < SW_N; i++) {
		if (strcmp(opt, sw_opt[i]))
			continue;
		if (strcmp(val, "on") && strcmp(val, "off")) {
			snprintf(err, len, "%s: '%s' is not on or off", opt, val);
			return -1;
		}
		sw_off[i] = !strcmp(val, "off");
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

void sim_switch_model(struct coh_model *m)
{
	if (sw_off[SW_HOME])
		coh_set_home_agents(m, false);
	if (sw_off[SW_PROBES])
		coh_set_probes(m, false);
}

void sim_switch_json(FILE *f)
{
	for (int i = 0; i < SW_N; i++)
		if (sw_off[i])
			fprintf(f, ", \"%s\": \"off\"", sw_json[i]);
	if (!sw_off[SW_SMT] && sim.topo_loaded && sim.topo.smt > 1)
		fprintf(f, ", \"smt\": %u", sim.topo.smt);
	if (!sw_off[SW_IDLE] && sim.topo_loaded && sim.topo.nidle) {
		fprintf(f, ", \"idle_states\": [");
		for (unsigned i = 0; i < sim.topo.nidle; i++)
			fprintf(f, "%s{\"name\": \"%s\", \"exit_us\": %.3f, \"residency_us\": %.3f}",
				i ? ", " : "", sim.topo.idle[i].name, (double)sim.topo.idle[i].exit_ps / 1e6,
				(double)sim.topo.idle[i].residency_ps / 1e6);
		fputc(']', f);
	}
}

size_t sim_switch_text(char *buf, size_t len)
{
	size_t n = 0;

	for (int i = 0; i < SW_N; i++)
		if (sw_off[i] && n < len)
			n += (size_t)snprintf(buf + n, len - n, ", %s off", sw_opt[i]);
	return n;
}
