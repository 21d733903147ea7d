/*
 * core/run_row.h - a run's row of the results (core/run_row.c).
 */
#ifndef CORE_RUN_ROW_H
#define CORE_RUN_ROW_H

#include <locklab/backend.h>
#include <locklab/result.h>
#include <locklab/workload.h>

/* r: the row of the run that ended, with the backend's counters c. */
void run_row_fill(struct run_result *r, const struct wl_run *run, const struct run_counters *c);
/* r: the row of a run that failed: what was run, and why it failed. */
void run_row_failed(struct run_result *r, const struct wl_run *run);

#endif
