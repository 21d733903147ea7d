/*
 * sim/report/draw.h - what the contention graphs share (draw.c).
 */
#ifndef SIM_REPORT_DRAW_H
#define SIM_REPORT_DRAW_H

#include <stdbool.h>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <locklab/workload.h>

/* A new root graph (agopen) whose named objects are numbered in the order
 * they are made (draw_ids.c): its files are the same from run to run. */
Agraph_t *draw_open(const char *name, Agdesc_t kind);
void draw_set(void *obj, const char *name, const char *value);
void draw_setf(void *obj, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The node named fmt % i of g (created if new). */
Agnode_t *draw_node(Agraph_t *g, const char *fmt, unsigned i);
/* The cluster of socket s, labelled with its name. */
Agraph_t *draw_socket(Agraph_t *g, unsigned s);
void draw_title(Agraph_t *g, const char *text);
/* thread_of[core]: the thread placed there, or -1. */
void draw_threads_by_core(const struct wl_run *run, int *thread_of);
/* Write g as STEM-KIND.dot, then lay it out with engine and render
 * STEM-KIND.svg and .png; g is closed.  0, or -1 (one line on stderr). */
int draw_write(Agraph_t *g, const char *engine, const char *stem, const char *kind);
/* Whether a file of draw_write could not be written, this process. */
bool draw_write_failed(void);
/* Before the runs: a failure to write a graph is said once for all the
 * processes of the sweep.  0, or -1 out of memory. */
int draw_share_failures(void);
void draw_fini(void);

/* One entry of a graph's legend: a node filled with `fill`, or (fill
 * NULL) a line of text in the colour `edge`. */
struct draw_key {
	const char *fill;
	const char *edge;
	const char *text;
};

/* The legend of g: a cluster titled "legend: " title, its keys stacked. */
void draw_legend(Agraph_t *g, const char *title, const struct draw_key *keys, unsigned n);
/* The fill of a thread that spent the share `waited` of the run waiting
 * for the lock: green (never) through yellow to red (always). */
void draw_wait_colour(char *buf, size_t len, double waited);
/* n with a unit prefix: 950, 12.3k, 4.56M, 1.20G. */
const char *draw_count(char *buf, size_t len, double n);

#endif
