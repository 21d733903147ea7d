/*
 * core/sweep.h - `run`: every lock at every thread count (and overcommit),
 * each repeated, and the result files (core/sweep.c).
 */
#ifndef CORE_SWEEP_H
#define CORE_SWEEP_H

#include "cli.h"

/* Exit status of a sweep that was stopped by a signal: 128 + its number. */
#define SWEEP_SIGNALLED 128

/*
 * Runs the sweep o describes and writes its outputs.  Returns the exit
 * status: 0; 1 an output could not be written; 2 an output path refused
 * before the first run (one line on stderr); 3 a run failed (its row says
 * why, the others are kept); 130 or 143 stopped by SIGINT or SIGTERM after
 * the run in progress, the finished rows written.
 */
int sweep_run(struct cli_opts *o);

#endif
