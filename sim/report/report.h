/*
 * sim/report/report.h - what the simulator backend (sim/engine.c) reaches of
 * its reports: the --graphs option, the `explain` command with its options
 * parsed by core, and the end of the process.  While a report is armed it
 * watches the runs through sim/observe.h; nothing here runs otherwise.
 */
#ifndef SIM_REPORT_REPORT_H
#define SIM_REPORT_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include <locklab/backend.h>

#include "../observe.h"

/* An option of `run` the reports take (--graphs DIR): as
 * backend_parse_option (1 taken, 0 not a report's, -1 bad value). */
int report_parse_option(const char *opt, const char *val, char *err, size_t errlen);

/* `locklab-sim explain` (explain.c); returns the exit status. */
int sim_explain(const struct explain_opts *o);

/* Before a sweep of cfg: the reports' files can be written (--graphs). 0,
 * or -1 with one line in err. */
int report_check(const struct wl_config *cfg, char *err, size_t errlen);
/* The --graphs directory, or NULL without --graphs. */
const char *report_output_dir(void);
/* Whether a report's file could not be written (the command exits 1). */
bool report_failed(void);

void report_fini(void);

/* The observer installed while the ledger is armed (report.c). */
extern const struct sim_observer report_observer;

#endif
