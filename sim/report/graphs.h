/*
 * sim/report/graphs.h - contention graphs drawn with graphviz's C library
 * from the simulator's counters (graphs.c, graphs_machine.c,
 * graphs_handoff.c and waits.c, compiled into locklab-sim):
 *
 *   machine   cores clustered by socket, each coloured by the share of the
 *             run its thread spent waiting for the lock; the socket links,
 *             their width and depth of blue by messages per acquisition;
 *   handoff   threads clustered by socket, coloured as in machine; an edge
 *             A -> B weighs how often A handed the lock to B; above 32
 *             threads a node per socket, a self-loop for the handoffs
 *             inside it;
 *   waits     after a deadlock (or a run without progress): who waits on
 *             which line, whose context or lock the line is, who holds it.
 *
 * Every graph carries a legend naming what its colours mean.
 *
 * Each graph is written as DIR/graph-TOPO-LOCK-THREADS-KIND.{dot,svg,png}.
 * The DOT file is the graph before layout (re-render it with `dot`/`fdp`).
 */
#ifndef SIM_REPORT_GRAPHS_H
#define SIM_REPORT_GRAPHS_H

#include <stdbool.h>
#include <stddef.h>

#include <locklab/workload.h>

/* --graphs DIR: create DIR if needed.  -1 with one line in err when it
 * cannot be used. */
int graphs_set_dir(const char *dir, char *err, size_t errlen);
bool graphs_enabled(void);
/* The directory of --graphs (meaningful once graphs_enabled). */
const char *graphs_dir_name(void);
/* Before a sweep: every graph file it may write (each lock, thread count
 * and overcommit; machine, handoff and waits; .dot, .svg, .png) is a
 * regular file or absent, in a directory that takes files.  0, or -1 with
 * one line in err. */
int graphs_check(const struct wl_config *cfg, char *err, size_t errlen);

/* After each run: the machine and handoff graphs of the last repetition
 * of a configuration, or the waits-for graph of a failed run. */
void graphs_after_run(const struct wl_run *run);

/* When a run is found deadlocked or without progress, while the threads
 * still stand where they stopped (sim/failure.c, through sim/observe.h). */
void graphs_capture_failure(const char *what);

/* The graphs of a run written to STEM-machine.*, STEM-handoff.* and
 * STEM-waits.* (the last only after a captured failure).  0, or -1 when a
 * file could not be written (one line on stderr). */
int graphs_write_run(const struct wl_run *run, const char *stem);
int graphs_write_waits(const struct wl_run *run, const char *stem);

void graphs_fini(void);

/* waits.c: forget a captured failure. */
void graphs_waits_clear(void);

#endif
