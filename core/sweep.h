/*
 * core/sweep.h - `run`: every lock at every thread count (and overcommit),
 * each repeated, and the result files (core/sweep.c); the runs in worker
 * processes (core/jobs.c); shards and their merge (core/merge.c).
 */
#ifndef CORE_SWEEP_H
#define CORE_SWEEP_H

#include <signal.h>
#include <stdio.h>

#include <locklab/result.h>

#include "cli.h"
#include "outfile.h"

/* Exit status of a sweep that was stopped by a signal: 128 + its number. */
#define SWEEP_SIGNALLED 128

/* First word of the PATH.order file that --shard writes beside a CSV. */
#define MERGE_ORDER_MAGIC "locklab-shard3"

/*
 * Runs the sweep o describes and writes its outputs.  Returns the exit
 * status: 0; 1 an output could not be written; 2 an output path refused
 * before the first run (one line on stderr); 3 a run failed (its row says
 * why, the others are kept); 130 or 143 stopped by SIGINT or SIGTERM after
 * the runs in progress, the finished rows written.
 */
int sweep_run(struct cli_opts *o);

/* The CSV files a sweep journals: --csv, and --out in CSV. */
struct sweep_files {
	const char *csv[2];
	struct journal j[2];
	unsigned ncsv;
};

/* Where the finished runs go, in sweep order. */
struct sweep_sink {
	const struct cli_opts *o;
	const size_t *todo; /* the runs to do, by index in sweep order */
	size_t ntodo;
	size_t done;        /* rows committed: todo[0..done) */
	size_t failed;
	int rc;             /* a journal could not be written */
	struct output_set out;
	struct sweep_files sf;
};

/* Run i of the sweep (its index in sweep order): its row in res and, with
 * thr, its rows of --threads-csv there.  Returns 1 when it failed. */
int sweep_one(const struct wl_config *cfg, size_t i, struct run_result *res, FILE *thr);
/* The failed row of run i, failing for why. */
void sweep_lost(const struct wl_config *cfg, size_t i, struct run_result *res, const char *why);
/* The row of run todo[done], with its --threads-csv text; non-zero when
 * the sweep must stop (--fail-fast). */
int sweep_commit(struct sweep_sink *s, const struct run_result *res, int failed, const char *thr,
		 size_t tlen);
/* The progress line before run todo[done]. */
void sweep_progress(const struct sweep_sink *s);

/* The runs of s in up to jobs worker processes at once, committed in
 * order (core/jobs.c).  When *stop is set, no run starts; those running
 * finish and are kept. */
void jobs_run(struct sweep_sink *s, unsigned jobs, volatile sig_atomic_t *stop);

/* `merge --out F SHARD.csv...` (core/merge.c). */
int merge_main(int argc, char **argv);

#endif
