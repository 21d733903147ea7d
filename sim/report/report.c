/*
 * sim/report/report.c - the reports' side of the simulator's observer hook:
 * the ledger's hooks (ledger.c) and the graphs' failure capture and
 * after-run files (graphs.c), installed while the ledger is armed; and the
 * entry points of report.h.
 */
#include <string.h>

#include "draw.h"
#include "explain.h"
#include "graphs.h"
#include "report.h"

/* The graphs first: they read the ledger of the run, which folding frees. */
static void report_end_run(const struct wl_run *run, const struct run_counters *c)
{
	graphs_after_run(run);
	sim_explain_end_run(run, &c->sim);
}

const struct sim_observer report_observer = {
	.local = xp_local,
	.delay = xp_delay,
	.hit = xp_hit,
	.drain = xp_drain,
	.issue = xp_issue,
	.miss = xp_miss,
	.block = xp_block,
	.unblock = xp_unblock,
	.woken = xp_woken,
	.failure = graphs_capture_failure,
	.end_run = report_end_run,
};

int report_parse_option(const char *opt, const char *val, char *err, size_t errlen)
{
	if (strcmp(opt, "--graphs"))
		return 0;
	return graphs_set_dir(val, err, errlen) ? -1 : 1;
}

int report_check(const struct wl_config *cfg, char *err, size_t errlen)
{
	return graphs_check(cfg, err, errlen);
}

const char *report_output_dir(void)
{
	return graphs_enabled() ? graphs_dir_name() : NULL;
}

bool report_failed(void)
{
	return draw_write_failed();
}

void report_fini(void)
{
	graphs_fini();
	sim_explain_disarm();
}
