/*
 * sim/lockstep.h - the lockstep probe (sim/lockstep.c): one more run of a
 * configuration with each miss within SIM_PROBE_SPREAD_PCT per cent of its
 * latency, for `explain` and `run`'s table.
 */
#ifndef SIM_LOCKSTEP_H
#define SIM_LOCKSTEP_H

#include <stdbool.h>
#include <stddef.h>

#include <locklab/lock.h>
#include <locklab/result.h>
#include <locklab/workload.h>

/* The probe's spread, per cent.  *Assumed*: within the 9% to 12% by which
 * the latencies the calibrations in docs/data measured strayed from their
 * medians, an upper bound (their clocks were too coarse to tell the
 * transfers' own spread: docs/mechanisms.md, "Latency spread").  With it
 * the probe asks whether latencies that vary as much as those machines'
 * did would break the runs' unfairness. */
#define SIM_PROBE_SPREAD_PCT 10

/* Run algo with threads threads as cfg says, run 0's seed, with the
 * probe's spread and no observer (no ledger, no --graphs): *p filled with
 * its figures (locklab/result.h).  0, or -1 when the run failed (*p then
 * says no probe: spread_pct 0). */
int sim_lockstep_run(const struct wl_config *cfg, const struct lock_algo *algo, unsigned threads,
		     struct lockstep_probe *p);
/* --lockstep-probe on|off (default on): 1 taken, -1 with err on a bad value. */
int sim_lockstep_parse(const char *val, char *err, size_t len);
/* Is the probe wanted (not --lockstep-probe off)? */
bool sim_lockstep_wanted(void);

#endif
