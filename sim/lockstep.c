/*
 * sim/lockstep.c - the lockstep probe, of `explain` and of `run`'s table.
 *
 * In the model every miss takes its table latency to the picosecond, so
 * threads that meet a lock at the same instant meet it so again at every
 * round and the same one wins: runs may starve threads that a machine,
 * whose transfers vary, would serve.  Where a configuration's runs had no
 * latency spread, the probe runs it once more (run 0's seed) with each
 * miss's latency drawn within SIM_PROBE_SPREAD_PCT per cent of the table's,
 * and gives that run's Jain index and starved threads; whether they are
 * fair (LOCKSTEP_FAIR_JAIN) says whether the runs' unfairness was the
 * exact latencies' lockstep or the lock's (or the machine's arbitration's).
 * The probe's run is none of the configuration's: no result row, no file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/backend.h>
#include <locklab/lock.h>

#include "lockstep.h"
#include "sim.h"
#include "switches.h"

static bool probe_off;

int sim_lockstep_parse(const char *val, char *err, size_t len)
{
	if (strcmp(val, "on") && strcmp(val, "off")) {
		snprintf(err, len, "--lockstep-probe: '%s' is not on or off", val);
		return -1;
	}
	probe_off = !strcmp(val, "off");
	return 1;
}

bool sim_lockstep_wanted(void)
{
	return !probe_off;
}

int sim_lockstep_run(const struct wl_config *cfg, const struct lock_algo *algo, unsigned threads,
		     struct lockstep_probe *p)
{
	const struct sim_observer *watching = sim_observer;
	struct wl_spread sp;
	struct wl_run run;
	int ran, rc = -1;

	memset(p, 0, sizeof(*p));
	sim_observer = NULL; /* no ledger, no --graphs: the run is none of the configuration's */
	sim_lat_spread_force(SIM_PROBE_SPREAD_PCT);
	ran = sim_run_one(cfg, algo, threads, 0, &run);
	sim_lat_spread_force(-1);
	sim_observer = watching;
	if (ran < 0)
		return -1;
	if (!ran && !wl_thread_spread(&run, &sp)) {
		snprintf(p->lock, sizeof(p->lock), "%s", algo->name);
		p->threads = threads;
		p->spread_pct = SIM_PROBE_SPREAD_PCT;
		p->jain = sp.jain;
		p->starved = sp.starved;
		p->min = sp.min;
		p->max = sp.max;
		rc = 0;
	}
	sim_run_free(&run);
	return rc;
}

int backend_lockstep_probe(const struct wl_config *cfg, const struct run_result *r,
			   struct lockstep_probe *p)
{
	const struct lock_algo *algo = lock_find(r->lock);

	if (probe_off || cfg->vm_vcpus || sim_lat_spread() || r->vm.has_vm || !algo)
		return 0; /* a --vm run's unfairness is the host's too; a spread has no lockstep */
	if (sim_lockstep_run(cfg, algo, r->threads, p))
		return 0;
	p->overcommit = r->vm.overcommit;
	return 1;
}
