/*
 * sim/report/graphs.c - the machine and handoff graphs of graphs.h, built in
 * process with libcgraph and laid out and rendered with libgvc (draw.c);
 * the waits-for graph is waits.c's.
 *
 * Colours are HSV triples, which graphviz takes as "H S V" in [0,1]:
 *   cores    green (hue 0.33) for a thread that never waited, through
 *            yellow, to red (hue 0) for one that waited the whole run (the
 *            hue falls with the square root of the time not waiting, so
 *            that 90% and 100% look apart);
 *            white, dashed, for a core without a thread;
 *   links    blue (hue 0.66) for the quietest link, to red for the
 *            busiest; width 1 to 8 points by messages per acquisition,
 *            relative to the busiest link;
 *   handoffs blue inside a socket, red across sockets; width by count
 *            relative to the heaviest edge.  Only the 4 x threads heaviest
 *            edges are drawn (the title says how many there were).
 *
 * Edge labels are `xlabel`s, placed after layout: graphviz 2.42's dot
 * corrupts its heap freeing the layout of labelled edges between nodes of
 * one rank in different clusters (socket links), so no edge has a `label`.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include "../sim.h"
#include "draw.h"
#include "explain.h"
#include "graphs.h"

#define STEM_MAX (PATH_MAX - 32)

static char graphs_dir[STEM_MAX];
static bool graphs_on;

/* ------------------------------------------------------------ helpers */

static void hsv(char *buf, size_t len, double h, double s, double v)
{
	snprintf(buf, len, "%.3f %.3f %.3f", h, s, v);
}

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

static uint64_t run_acquisitions(const struct wl_run *run)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < run->nthreads; i++)
		n += run->threads[i].acquisitions;
	return n;
}

/* ------------------------------------------------------------ machine */

/* The socket's cores in rows of four under its socket node (invisible
 * edges keep the grid). */
static void machine_cores(Agraph_t *g, Agraph_t *sub, Agnode_t *sock, unsigned s,
			  const struct wl_run *run, const int *thread_of)
{
	double dur = (double)(run->stop_ns - run->start_ns) * 1000;
	uint64_t stop_ps = run->stop_ns * 1000;
	Agnode_t *above[4] = { sock, sock, sock, sock };
	unsigned k = 0;
	char col[48];

	for (unsigned c = 0; c < sim.topo.ncores; c++) {
		if (sim.topo.core_socket[c] != s)
			continue;
		Agnode_t *n = draw_node(sub, "c%u", c);
		int t = thread_of[c];

		draw_set(n, "shape", "box");
		draw_set(n, "style", t >= 0 ? "filled,rounded" : "dashed,rounded");
		if (t >= 0) {
			double w = dur > 0 ? clamp01((double)sim_explain_wait_ps((unsigned)t, stop_ps) / dur) : 0;

			hsv(col, sizeof(col), 0.33 * sqrt(1 - w), 0.6, 1.0);
			draw_set(n, "fillcolor", col);
			draw_setf(n, "label", "core %u: t%d\n%llu acq\n%.0f%% waiting", c, t,
				  (unsigned long long)run->threads[t].acquisitions, 100 * w);
		} else {
			draw_setf(n, "label", "core %u\nidle", c);
		}
		Agedge_t *e = agedge(g, above[k % 4], n, NULL, 1);

		draw_set(e, "style", "invis");
		above[k % 4] = n;
		k++;
	}
}

static void machine_links(Agraph_t *g, Agnode_t **sock, const uint64_t *msgs, uint64_t acq)
{
	uint64_t max = 0;
	char col[48];

	for (unsigned l = 0; msgs && l < sim.topo.nlinks; l++)
		max = msgs[l] > max ? msgs[l] : max;
	for (unsigned l = 0; l < sim.topo.nlinks; l++) {
		const struct topo_link *lk = &sim.topo.links[l];
		uint64_t m = msgs ? msgs[l] : 0;
		double rel = max ? (double)m / (double)max : 0;
		Agedge_t *e = agedge(g, sock[lk->a], sock[lk->b], NULL, 1);

		hsv(col, sizeof(col), 0.66 * (1 - rel), 0.85, 0.9);
		draw_set(e, "color", col);
		draw_setf(e, "penwidth", "%.2f", 1 + 7 * rel);
		draw_setf(e, "xlabel", "%s\n%.2f msg/acq", lk->name, acq ? (double)m / (double)acq : 0.0);
		draw_set(e, "fontname", "Helvetica");
		draw_set(e, "constraint", "false");
	}
}

static Agraph_t *machine_graph(const struct wl_run *run)
{
	static int thread_of[TOPO_MAX_CORES];
	Agnode_t *sock[TOPO_MAX_SOCKETS];
	const struct coh_counters *k = coh_counters(sim.model);
	const uint64_t *msgs = sim.snapped ? sim.snap_links : k->link_msgs;
	uint64_t acq = run_acquisitions(run);
	Agraph_t *g = agopen("machine", Agundirected, NULL);
	char text[256];

	draw_threads_by_core(run, thread_of);
	snprintf(text, sizeof(text),
		 "%s on %s, %u threads: core colour = share of the run spent waiting,\n"
		 "link width and colour = messages per acquisition (%llu acquisitions)",
		 run->algo->name, sim.topo.name, run->nthreads, (unsigned long long)acq);
	draw_title(g, text);
	draw_set(g, "fontname", "Helvetica");
	draw_set(g, "nodesep", "0.15");
	for (unsigned s = 0; s < sim.topo.nsockets && s < TOPO_MAX_SOCKETS; s++) {
		Agraph_t *sub = draw_socket(g, s);

		sock[s] = draw_node(sub, "socket%u", s);
		draw_set(sock[s], "shape", "box");
		draw_set(sock[s], "style", "filled");
		draw_set(sock[s], "fillcolor", "0.0 0.0 0.85");
		if (run->slots && run->slots[0].home_node == s)
			draw_setf(sock[s], "label", "socket %u\nhome of the lock", s);
		else
			draw_setf(sock[s], "label", "socket %u", s);
		machine_cores(g, sub, sock[s], s, run, thread_of);
	}
	machine_links(g, sock, msgs, acq);
	return g;
}

/* ------------------------------------------------------------ handoffs */

struct hedge {
	unsigned from, to;
	uint64_t n;
};

static int cmp_hedge(const void *a, const void *b)
{
	const struct hedge *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

static size_t collect_handoffs(const struct wl_run *run, struct hedge *e, uint64_t *total,
			       uint64_t *local)
{
	size_t n = 0;

	*total = *local = 0;
	for (unsigned b = 0; b < run->nthreads; b++) {
		const struct wl_handoff_map *m = &run->threads[b].handoff_from;

		for (unsigned i = 0; i < m->cap; i++) {
			unsigned a = m->slot[i].from - 1;
			uint64_t c = m->slot[i].n;

			if (!m->slot[i].from || !c)
				continue;
			e[n++] = (struct hedge){ .from = a, .to = b, .n = c };
			*total += c;
			if (run->threads[a].node == run->threads[b].node)
				*local += c;
		}
	}
	qsort(e, n, sizeof(*e), cmp_hedge);
	return n;
}

static size_t handoff_pairs(const struct wl_run *run)
{
	size_t n = 0;

	for (unsigned b = 0; b < run->nthreads; b++)
		n += run->threads[b].handoff_from.used;
	return n;
}

static void handoff_nodes(Agraph_t *g, const struct wl_run *run, Agnode_t **tn)
{
	Agraph_t *sub[TOPO_MAX_SOCKETS] = { NULL };
	uint64_t max = 0;
	char col[48];

	for (unsigned i = 0; i < run->nthreads; i++)
		max = run->threads[i].acquisitions > max ? run->threads[i].acquisitions : max;
	for (unsigned i = 0; i < run->nthreads; i++) {
		const struct wl_thread *t = &run->threads[i];
		unsigned s = t->node < TOPO_MAX_SOCKETS ? t->node : 0;
		double rel = max ? (double)t->acquisitions / (double)max : 0;

		if (!sub[s])
			sub[s] = draw_socket(g, s);
		tn[i] = draw_node(sub[s], "t%u", i);
		hsv(col, sizeof(col), 0.0, 0.7 * rel, 1.0);
		draw_set(tn[i], "style", "filled");
		draw_set(tn[i], "fillcolor", col);
		draw_setf(tn[i], "label", "t%u\ncore %u\n%llu acq", i, t->cpu,
			  (unsigned long long)t->acquisitions);
	}
}

static Agraph_t *handoff_graph(const struct wl_run *run)
{
	size_t cap = handoff_pairs(run), n, keep;
	struct hedge *e = malloc((cap ? cap : 1) * sizeof(*e));
	Agnode_t **tn = calloc(run->nthreads ? run->nthreads : 1, sizeof(*tn));
	uint64_t total, local;
	Agraph_t *g;
	char text[320], col[48];

	if (!e || !tn) {
		free(e);
		free(tn);
		return NULL;
	}
	n = collect_handoffs(run, e, &total, &local);
	keep = n < 4 * (size_t)run->nthreads ? n : 4 * (size_t)run->nthreads;
	g = agopen("handoff", Agdirected, NULL);
	snprintf(text, sizeof(text),
		 "%s on %s, %u threads: who handed the lock to whom\n"
		 "%llu handoffs, %.1f%% inside one socket; the %zu heaviest of %zu edges",
		 run->algo->name, sim.topo.name, run->nthreads, (unsigned long long)total,
		 total ? 100.0 * (double)local / (double)total : 0.0, keep, n);
	draw_title(g, text);
	draw_set(g, "fontname", "Helvetica");
	handoff_nodes(g, run, tn);
	for (size_t i = 0; i < keep; i++) {
		double rel = e[0].n ? (double)e[i].n / (double)e[0].n : 0;
		bool same = run->threads[e[i].from].node == run->threads[e[i].to].node;
		Agedge_t *ed = agedge(g, tn[e[i].from], tn[e[i].to], NULL, 1);

		hsv(col, sizeof(col), same ? 0.6 : 0.0, 0.3 + 0.7 * rel, 0.85);
		draw_set(ed, "color", col);
		draw_setf(ed, "penwidth", "%.2f", 0.5 + 5.5 * rel);
		draw_setf(ed, "weight", "%llu", (unsigned long long)(1 + 10 * rel));
		draw_setf(ed, "xlabel", "%llu", (unsigned long long)e[i].n);
		draw_set(ed, "fontname", "Helvetica");
		draw_set(ed, "fontsize", "10");
	}
	free(e);
	free(tn);
	return g;
}

/* ------------------------------------------------------------ files */

int graphs_set_dir(const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (!*dir) {
		snprintf(err, errlen, "--graphs: empty directory name");
		return -1;
	}
	if (strlen(dir) >= sizeof(graphs_dir) - 256) {
		snprintf(err, errlen, "--graphs: directory name too long");
		return -1;
	}
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "--graphs %s: not a directory", dir);
			return -1;
		}
	} else if (mkdir(dir, 0777) && errno != EEXIST) {
		snprintf(err, errlen, "--graphs %s: cannot create it: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(graphs_dir, sizeof(graphs_dir), "%s", dir);
	if (!sim_xp && sim_explain_arm()) {
		snprintf(err, errlen, "--graphs: out of memory");
		return -1;
	}
	graphs_on = true;
	return 0;
}

bool graphs_enabled(void)
{
	return graphs_on;
}

int graphs_write_run(const struct wl_run *run, const char *stem)
{
	int rc = draw_write(machine_graph(run), "dot", stem, "machine");

	return draw_write(handoff_graph(run), "dot", stem, "handoff") | rc;
}

void graphs_after_run(const struct wl_run *run)
{
	char stem[PATH_MAX];

	if (!graphs_on)
		return;
	if (snprintf(stem, sizeof(stem), "%s/graph-%s-%s-%u", graphs_dir, sim.topo.name,
		     run->algo->name, run->nthreads) >= (int)sizeof(stem)) {
		fprintf(stderr, "locklab-sim: --graphs: file name too long\n");
		graphs_waits_clear();
		return;
	}
	if (run->failed)
		graphs_write_waits(run, stem);
	else if (run->run_index + 1 >= run->cfg->runs)
		graphs_write_run(run, stem);
	graphs_waits_clear();
}

void graphs_fini(void)
{
	graphs_waits_clear();
	draw_fini();
	graphs_on = false;
}

