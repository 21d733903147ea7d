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
#include <locklab/rng.h>

#include "lockstep.h"
#include "sim.h"
#include "switches.h"

/* Jain's index of the threads' acquisitions, and how many made none. */
static double jain_of(const struct wl_run *run, unsigned *starved)
{
	double sum = 0, sq = 0;

	*starved = 0;
	for (unsigned i = 0; i < run->nthreads; i++) {
		double a = (double)run->threads[i].acquisitions;

		sum += a;
		sq += a * a;
		*starved += run->threads[i].acquisitions == 0;
	}
	return sq > 0 ? sum * sum / (run->nthreads * sq) : 0;
}

int sim_lockstep_run(const struct wl_config *cfg, const struct lock_algo *algo, unsigned threads,
		     double *jain, unsigned *starved)
{
	struct wl_run run;
	struct run_counters c;
	int rc = -1;

	memset(&run, 0, sizeof(run));
	memset(&c, 0, sizeof(c));
	run.cfg = cfg;
	run.algo = algo;
	run.nthreads = threads;
	run.seed = run_seed(cfg->seed, 0);
	run.threads = calloc(threads, sizeof(*run.threads));
	if (!run.threads)
		return -1;
	sim_lat_spread_force(SIM_PROBE_SPREAD_PCT);
	if (!backend_run(&run, &c) && !run.failed) {
		*jain = jain_of(&run, starved);
		rc = 0;
	}
	sim_lat_spread_force(-1);
	wl_teardown(&run);
	free(run.threads);
	return rc;
}

int backend_lockstep_probe(const struct wl_config *cfg, const struct run_result *r,
			   struct lockstep_probe *p)
{
	const struct lock_algo *algo = NULL;

	if (cfg->vm_vcpus || sim_lat_spread() || r->vm.has_vm)
		return 0; /* a --vm run's unfairness is the host's too; a spread has no lockstep */
	for (unsigned i = 0; i < cfg->nalgos; i++)
		if (!strcmp(cfg->algos[i]->name, r->lock))
			algo = cfg->algos[i];
	if (!algo)
		return 0;
	memset(p, 0, sizeof(*p));
	if (sim_lockstep_run(cfg, algo, r->threads, &p->jain, &p->starved))
		return 0;
	snprintf(p->lock, sizeof(p->lock), "%s", r->lock);
	p->threads = r->threads;
	p->overcommit = r->vm.overcommit;
	p->spread_pct = SIM_PROBE_SPREAD_PCT;
	return 1;
}
