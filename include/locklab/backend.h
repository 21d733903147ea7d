/*
 * locklab/backend.h - what core/ asks of a backend (native/ or sim/).
 *
 * core/main.c parses the command line, builds runs and prints results; a
 * backend makes threads (pthreads pinned with hwloc, or SimGrid actors on
 * the hosts of a platform), starts and stops them, and says where it ran.
 */
#ifndef LOCKLAB_BACKEND_H
#define LOCKLAB_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <signal.h>

#include "lock.h"
#include "result.h"
#include "workload.h"

/* "native" or "sim" */
extern const char backend_name[];
/* Raised when SIGINT or SIGTERM asks a sweep to stop (core/sweep.c): a
 * simulated run in progress ends then too, as a failed run, rather than
 * run on to its end (sim/failure.c). */
extern volatile sig_atomic_t backend_stop_asked;
/* Defaults where the user gave neither --duration nor --ops: a native run
 * is wall time, a simulated one simulated time, which costs far more. */
extern const uint64_t backend_default_duration_ms;
/* --time-every's default: 1 where reading the clock is free (simulated). */
extern const unsigned backend_default_time_every;

/* Called once, first, with the process's argc/argv (SimGrid takes its
 * --cfg= and --log= here).  Non-zero: exit 2 (message already printed). */
int backend_init(int *argc, char **argv);

/* An option core does not know (e.g. --topo).  Returns 1 if taken, 0 if
 * not the backend's, -1 on a bad value (err filled with one line). */
int backend_parse_option(const char *opt, const char *val, char *err, size_t errlen);

/* After parsing: check the configuration against the machine (a thread
 * count larger than the topology, an unreadable topology).  Non-zero: err
 * holds one line; core prints it and exits 2. */
int backend_check(const struct wl_config *cfg, char *err, size_t errlen);

/* Once the command has passed every check (its outputs too): what the
 * configuration may not show (natively an oversubscribed machine, in the
 * simulator an overcommitted run of a few slices), on stderr, once.  A
 * refused command says its one line alone. */
void backend_warn(const struct wl_config *cfg);
/* After a sweep, what only its results show (one line on stderr, or
 * nothing): an --ops run of a --vm guest that lasted too few slices. */
void backend_warn_results(const struct wl_config *cfg, const struct output_set *o);

/* Place threads (fill run->threads[i].cpu/.node per cfg->pin), call
 * wl_setup(), run wl_thread_main on each thread, stop by duration or ops,
 * fill run->start_ns/stop_ns, and the counters.  Returns 0, or non-zero
 * when the run failed (run->failure says why). */
int backend_run(struct wl_run *run, struct run_counters *counters);

/* The environment, as the members of a JSON object (no braces), and the
 * short machine name used in file names and the topo column. */
void backend_env_json(FILE *f, const struct wl_config *cfg);
const char *backend_topo_name(const struct wl_config *cfg);
/* The file the backend read the machine from (the simulator's topology, once
 * loaded), or NULL: an input no result file may replace (core/outfile.c). */
const char *backend_input_file(void);
/* The directory the backend writes files of its own into (the simulator's
 * --graphs, made when the option is read), with the option that names it
 * in *opt, or NULL: a path no result file may take (core/outfile.c). */
const char *backend_output_dir(const char **opt);
/* What else the figures of a run depend on, as text that follows the
 * table's "settings:" line (", memory model tso (the topology's)"; may be
 * empty): whatever the rows and the headings do not show. */
void backend_settings(const struct wl_config *cfg, char *buf, size_t len);
/* The model's figures that the run rests on and no source gives, as a line
 * to print under the settings ("assumed in 4socket: pause, ..."), or "" (a
 * native run, a file that lists none). */
void backend_assumed(const struct wl_config *cfg, char *buf, size_t len);

/* The backend's own sub-commands (ccbench, calibrate ...) are its
 * backend_commands[] (locklab/args.h).  backend_usage: the lines of the
 * backend's own `run` options, for run's usage. */
extern const char backend_usage[];

/* `explain` (the simulator's): one configuration of one mutex, its report
 * as a table or CSV, to out or stdout. */
struct explain_opts {
	struct wl_config cfg;
	bool csv;
	const char *out;
};

/* core/cli.c: strict number parsing for the backend's options too (the
 * whole string a non-negative decimal integer that fits). */
int cli_parse_u64(const char *s, uint64_t *out);

/* core/explain_cli.c: parse explain's options (those of `run`, narrowed),
 * check them against the backend, and hand them to explain.  Returns the
 * exit status (2 on bad input, with one line on stderr). */
struct ll_command;
int explain_command(const struct ll_command *cmd, int argc, char **argv,
		    int (*explain)(const struct explain_opts *o));

/* Locks only this backend can run (the pthread references natively);
 * NULL-terminated. */
extern const struct lock_algo *const backend_locks[];

/* The lockstep probe of the configuration of row r (struct lockstep_probe,
 * locklab/result.h): 1 with *p filled, 0 where the backend has none to make
 * (natively; in the simulator a run with a latency spread, or under --vm). */
int backend_lockstep_probe(const struct wl_config *cfg, const struct run_result *r,
			   struct lockstep_probe *p);

void backend_fini(void);
/* After a command, before backend_fini: whether a file the backend writes
 * on its own (the simulator's --graphs) could not be written; the command
 * then exits 1. */
bool backend_files_failed(void);
/* Whether a run left threads behind that still use the cpus (natively, a
 * run the watchdog gave up on: its threads spin on); a run after it would
 * be measured beside them, so the process runs no more. */
bool backend_left_threads(void);

#endif
