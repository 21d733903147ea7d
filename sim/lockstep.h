/*
 * sim/lockstep.h - the lockstep probe (sim/lockstep.c): one more run of a
 * configuration with each miss within SIM_PROBE_SPREAD_PCT per cent of its
 * latency, for `explain` and `run`'s table.
 */
#ifndef SIM_LOCKSTEP_H
#define SIM_LOCKSTEP_H

#include <locklab/lock.h>
#include <locklab/workload.h>

/* The probe's spread, per cent.  *Assumed*: half of the 9% to 12% that the
 * calibrations in docs/data measured on clocks too coarse to tell the
 * transfers' own spread (docs/mechanisms.md, "Latency spread"). */
#define SIM_PROBE_SPREAD_PCT 5

/* Run algo with threads threads as cfg says, run 0's seed, with the
 * probe's spread: its Jain index and starved threads.  0, or -1 when the
 * run failed (nothing filled). */
int sim_lockstep_run(const struct wl_config *cfg, const struct lock_algo *algo, unsigned threads,
		     double *jain, unsigned *starved);

#endif
