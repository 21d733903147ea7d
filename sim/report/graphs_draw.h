/*
 * sim/report/graphs_draw.h - the machine and handoff graphs of graphs.h,
 * built in process with libcgraph and laid out and rendered with libgvc
 * (draw.c): what graphs.c calls of them (graphs_machine.c,
 * graphs_handoff.c), and the helpers the two share (graphs_machine.c).
 *
 * One colour meaning per kind of graph, named in its legend (a cluster
 * "legend"); colours are HSV triples, which graphviz takes as "H S V".
 *
 * Edge labels are `xlabel`s, placed after layout: graphviz 2.42's dot
 * corrupts its heap freeing the layout of labelled edges between nodes of
 * one rank in different clusters (socket links), so no edge has a `label`.
 */
#ifndef SIM_REPORT_GRAPHS_DRAW_H
#define SIM_REPORT_GRAPHS_DRAW_H

#include <stddef.h>

#include <graphviz/cgraph.h>

#include <locklab/workload.h>

/* The graphs of a run, for draw_write; NULL out of memory. */
Agraph_t *graphs_machine_graph(const struct wl_run *run);
Agraph_t *graphs_handoff_graph(const struct wl_run *run);

/* The colour "H S V" in buf. */
void graphs_hsv(char *buf, size_t len, double h, double s, double v);
/* The share of the measured run thread t spent waiting for the lock. */
double graphs_waited(const struct wl_run *run, unsigned t);
/* That share as a label gives it: ">99.5%", "<0.5%" or a whole percent. */
const char *graphs_waited_text(char *buf, size_t len, double w);
/* The legend of node colour (waiting) and of one or two kinds of edge
 * (edge2 NULL: one). */
void graphs_wait_legend(Agraph_t *g, const char *title, const char *edge1, const char *text1,
			const char *edge2, const char *text2);
/* Which run a graph draws: "run 3 of 3", or "one run". */
const char *graphs_which_run(const struct wl_run *run, char *buf, size_t len);

#endif
