/*
 * sim/report/graphs.c - the machine and handoff graphs of graphs.h, built in
 * process with libcgraph and laid out and rendered with libgvc (draw.c);
 * the waits-for graph is waits.c's.
 *
 * One colour meaning per kind of graph, named in its legend (a cluster
 * "legend"); colours are HSV triples, which graphviz takes as "H S V":
 *   machine  node fill: the share of the run the core's thread spent
 *            waiting for the lock, green (never) through yellow to red
 *            (always) (draw_wait_colour); white, dashed, for a core
 *            without a thread; links: blue, deeper and wider (1 to 8
 *            points) by messages per acquisition, relative to the busiest;
 *   handoff  node fill: waiting, as above; edges blue inside a socket,
 *            purple across sockets, wider by count relative to the
 *            heaviest edge.  Up to GRAPH_MAX_THREADS threads a node is a
 *            thread, and only the 4 x threads heaviest edges are drawn
 *            (the title says how many there were); above, a node is a
 *            socket, its self-loop the handoffs inside it, and every edge
 *            is drawn, labelled with its count and share.
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
#include <unistd.h>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <locklab/result.h>

#include "../sim.h"
#include "draw.h"
#include "explain.h"
#include "graphs.h"

#define STEM_MAX (PATH_MAX - 32)
/* Above this many threads the handoff graph has a node per socket. */
#define GRAPH_MAX_THREADS 32
#define HUE_INSIDE 0.6
#define HUE_ACROSS 0.8

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

/* The share of the measured run thread t spent waiting for the lock. */
static double waited(const struct wl_run *run, unsigned t)
{
	double dur = (double)(run->stop_ns - run->start_ns) * 1000;

	return dur > 0 ? clamp01((double)sim_explain_wait_ps(t, run->stop_ns * 1000) / dur) : 0;
}

/* A share of the run spent waiting as a label gives it (share_text below
 * does the same for counts): a whole percent, but never "100%" or "0%"
 * for a share that is not all or nothing (a thread that made one
 * acquisition in a run does not read as one that made none). */
static const char *waited_text(char *buf, size_t len, double w)
{
	if (w > 0.995 && w < 1)
		snprintf(buf, len, ">99.5%%");
	else if (w > 0 && w < 0.005)
		snprintf(buf, len, "<0.5%%");
	else
		snprintf(buf, len, "%.0f%%", 100 * w);
	return buf;
}

/* The legend of node colour (waiting) and of one or two kinds of edge. */
static void wait_legend(Agraph_t *g, const char *title, const char *edge1, const char *text1,
			const char *edge2, const char *text2)
{
	/* four stops: the scale is not linear (draw_wait_colour), so 50% alone
	 * would let 90% read as a colour between it and the whole run */
	char c[4][48];
	struct draw_key k[6] = {
		{ c[0], NULL, "never waited" },
		{ c[1], NULL, "waited 50% of the run" },
		{ c[2], NULL, "waited 90% of the run" },
		{ c[3], NULL, "waited the whole run" },
		{ NULL, edge1, text1 },
		{ NULL, edge2, text2 },
	};

	draw_wait_colour(c[0], sizeof(c[0]), 0);
	draw_wait_colour(c[1], sizeof(c[1]), 0.5);
	draw_wait_colour(c[2], sizeof(c[2]), 0.9);
	draw_wait_colour(c[3], sizeof(c[3]), 1);
	draw_legend(g, title, k, edge2 ? 6 : 5);
}

/* ------------------------------------------------------------ machine */

/* The socket's cores in rows of four under its socket node (invisible
 * edges keep the grid). */
static void machine_cores(Agraph_t *g, Agraph_t *sub, Agnode_t *sock, unsigned s,
			  const struct wl_run *run, const int *thread_of)
{
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
			double w = waited(run, (unsigned)t);
			char acq[16], share[16];

			draw_wait_colour(col, sizeof(col), w);
			draw_set(n, "fillcolor", col);
			draw_setf(n, "label", "core %u: t%d\n%s acq\n%s waiting", c, t,
				  draw_count(acq, sizeof(acq), (double)run->threads[t].acquisitions),
				  waited_text(share, sizeof(share), w));
		} else {
			draw_setf(n, "label", "core %u\nidle", c);
		}
		Agedge_t *e = agedge(g, above[k % 4], n, NULL, 1);

		draw_set(e, "style", "invis");
		above[k % 4] = n;
		k++;
	}
}

/* Each link an edge labelled with its name only (graphviz may place a label
 * where two crossing links meet), and beside the sockets a table of every
 * link: the sockets it joins and its messages per acquisition (a row each,
 * however many; without memory for it, no table). */
static void machine_links(Agraph_t *g, Agnode_t **sock, const uint64_t *msgs, uint64_t acq)
{
	uint64_t max = 0;
	char col[48], *table = NULL;
	size_t tlen = 0;
	FILE *tf = open_memstream(&table, &tlen);

	if (tf)
		fputs("links: messages per acquisition, both ways together\\l", tf);

	for (unsigned l = 0; msgs && l < sim.topo.nlinks; l++)
		max = msgs[l] > max ? msgs[l] : max;
	for (unsigned l = 0; l < sim.topo.nlinks; l++) {
		const struct topo_link *lk = &sim.topo.links[l];
		uint64_t m = msgs ? msgs[l] : 0;
		double rel = max ? (double)m / (double)max : 0;
		Agedge_t *e = agedge(g, sock[lk->a], sock[lk->b], NULL, 1);

		hsv(col, sizeof(col), 0.66, 0.2 + 0.8 * rel, 0.9);
		draw_set(e, "color", col);
		draw_setf(e, "penwidth", "%.2f", 1 + 7 * rel);
		draw_set(e, "xlabel", lk->name);
		draw_set(e, "constraint", "false");
		if (tf)
			fprintf(tf, "%s  socket %u - socket %u  %.2f\\l", lk->name, lk->a, lk->b,
				acq ? (double)m / (double)acq : 0.0);
	}
	if (tf && !fclose(tf) && sim.topo.nlinks) {
		Agnode_t *t = draw_node(g, "links%u", 0);

		draw_set(t, "shape", "box");
		draw_set(t, "label", table);
	}
	free(table);
}

/* Which run a graph draws: "run 3 of 3" (the table beside it gives means
 * over the runs), "one run" when there was one. */
static const char *which_run(const struct wl_run *run, char *buf, size_t len)
{
	if (run->cfg->runs > 1)
		snprintf(buf, len, "run %u of %u", run->run_index + 1, run->cfg->runs);
	else
		snprintf(buf, len, "one run");
	return buf;
}

static Agraph_t *machine_graph(const struct wl_run *run)
{
	static int thread_of[TOPO_MAX_CORES];
	Agnode_t *sock[TOPO_MAX_SOCKETS];
	const struct coh_counters *k = coh_counters(sim.model);
	const uint64_t *msgs = sim.snapped ? sim.snap_links : k->link_msgs;
	uint64_t acq = run_acquisitions(run);
	Agraph_t *g = agopen("machine", Agundirected, NULL);
	char text[384], cnt[16], which[32];

	draw_threads_by_core(run, thread_of);
	snprintf(text, sizeof(text),
		 "%s on %s, %u threads (%s): core colour = share of the run spent waiting,\n"
		 "link width and depth of blue = messages per acquisition (%s acquisitions)",
		 run->algo->name, sim.topo.name, run->nthreads, which_run(run, which, sizeof(which)),
		 draw_count(cnt, sizeof(cnt), (double)acq));
	draw_title(g, text);
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
	wait_legend(g, "node colour = share of the run spent waiting", "0.660 1.000 0.900",
		    "link: wider, deeper blue = more messages per acquisition", NULL, NULL);
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
	char col[48], acq[16], share[16];

	for (unsigned i = 0; i < run->nthreads; i++) {
		const struct wl_thread *t = &run->threads[i];
		unsigned s = t->node < TOPO_MAX_SOCKETS ? t->node : 0;
		double w = waited(run, i);

		if (!sub[s])
			sub[s] = draw_socket(g, s);
		tn[i] = draw_node(sub[s], "t%u", i);
		draw_wait_colour(col, sizeof(col), w);
		draw_set(tn[i], "style", "filled");
		draw_set(tn[i], "fillcolor", col);
		draw_setf(tn[i], "label", "t%u\ncore %u\n%s acq\n%s waiting", i, t->cpu,
			  draw_count(acq, sizeof(acq), (double)t->acquisitions),
			  waited_text(share, sizeof(share), w));
	}
}

static void handoff_edge(Agedge_t *ed, double rel, bool same)
{
	char col[48];

	hsv(col, sizeof(col), same ? HUE_INSIDE : HUE_ACROSS, 0.3 + 0.7 * rel, 0.85);
	draw_set(ed, "color", col);
	draw_setf(ed, "penwidth", "%.2f", 0.5 + 5.5 * rel);
	draw_setf(ed, "weight", "%llu", (unsigned long long)(1 + 10 * rel));
	draw_set(ed, "fontsize", "10");
}

static void handoff_legend(Agraph_t *g, const char *loop)
{
	char in[48], across[48];

	hsv(in, sizeof(in), HUE_INSIDE, 1.0, 0.85);
	hsv(across, sizeof(across), HUE_ACROSS, 1.0, 0.85);
	wait_legend(g, "node colour = share of the run spent waiting", in, loop, across,
		    "purple edge: handoffs across sockets (wider = more)");
}

/* part of total as a share that never rounds to what it is not: "100.0%"
 * for all but a few, "0.0%" for a few; those become "all but N" and "N". */
static const char *share_text(char *buf, size_t len, uint64_t part, uint64_t total)
{
	double pct = total ? 100.0 * (double)part / (double)total : 0.0;

	if (part < total && pct >= 99.95)
		snprintf(buf, len, "all but %llu", (unsigned long long)(total - part));
	else if (part && pct < 0.05)
		snprintf(buf, len, "%llu of them", (unsigned long long)part);
	else
		snprintf(buf, len, "%.1f%%", pct);
	return buf;
}

static void handoff_title(Agraph_t *g, const struct wl_run *run, const char *what, uint64_t total,
			  uint64_t local, const char *edges)
{
	char text[320], cnt[16], share[48], which[32];

	share_text(share, sizeof(share), local, total);
	snprintf(text, sizeof(text), "%s on %s, %u threads (%s): %s\n%s handoffs, %s inside one "
		 "socket%s", run->algo->name, sim.topo.name, run->nthreads,
		 which_run(run, which, sizeof(which)), what,
		 draw_count(cnt, sizeof(cnt), (double)total), share, edges);
	draw_title(g, text);
}

/* For each kept edge e[i], the kept edge that goes back the way it goes
 * (to -> from), or SIZE_MAX: the kept edges' indexes sorted by (from, to),
 * then one binary search each, O(k log k) for k kept edges.  A pair occurs
 * once among the edges (collect_handoffs counts each pair once). */
static int cmp_pair(const void *a, const void *b, void *edges)
{
	const struct hedge *e = edges;
	const struct hedge *x = &e[*(const size_t *)a], *y = &e[*(const size_t *)b];

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

static size_t find_pair(const struct hedge *e, const size_t *by_pair, size_t keep, unsigned from,
			unsigned to)
{
	size_t lo = 0, hi = keep;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct hedge *m = &e[by_pair[mid]];

		if (m->from == from && m->to == to)
			return by_pair[mid];
		if (m->from < from || (m->from == from && m->to < to))
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

static int reverses_of(const struct hedge *e, size_t keep, size_t *back)
{
	size_t *by_pair = malloc((keep ? keep : 1) * sizeof(*by_pair));

	if (!by_pair)
		return -1;
	for (size_t i = 0; i < keep; i++)
		by_pair[i] = i;
	qsort_r(by_pair, keep, sizeof(*by_pair), cmp_pair, (void *)e);
	for (size_t i = 0; i < keep; i++)
		back[i] = e[i].from == e[i].to ? SIZE_MAX
					       : find_pair(e, by_pair, keep, e[i].to, e[i].from);
	free(by_pair);
	return 0;
}

static Agraph_t *thread_handoff_graph(const struct wl_run *run, const struct hedge *e, size_t n,
				      uint64_t total, uint64_t local)
{
	size_t keep = n < 4 * (size_t)run->nthreads ? n : 4 * (size_t)run->nthreads;
	Agnode_t **tn = calloc(run->nthreads ? run->nthreads : 1, sizeof(*tn));
	size_t *backs = malloc((keep ? keep : 1) * sizeof(*backs));
	Agraph_t *g;
	char edges[96], cnt[16], cnt2[16];

	if (!tn || !backs || reverses_of(e, keep, backs) < 0) {
		free(tn);
		free(backs);
		return NULL;
	}
	g = agopen("handoff", Agdirected, NULL);
	snprintf(edges, sizeof(edges), "; the %zu heaviest of %zu edges", keep, n);
	handoff_title(g, run, "who handed the lock to whom", total, local, edges);
	handoff_nodes(g, run, tn);
	for (size_t i = 0; i < keep; i++) {
		bool same = run->threads[e[i].from].node == run->threads[e[i].to].node;
		size_t back = backs[i];
		Agedge_t *ed;

		if (back < i) /* drawn with its heavier (or earlier) twin */
			continue;
		ed = agedge(g, tn[e[i].from], tn[e[i].to], NULL, 1);
		handoff_edge(ed, e[0].n ? (double)e[i].n / (double)e[0].n : 0, same);
		if (back == SIZE_MAX) {
			draw_set(ed, "xlabel", draw_count(cnt, sizeof(cnt), (double)e[i].n));
			continue;
		}
		/* both ways: one edge with two heads, each way's count named, so
		 * that no count floats between two parallel edges */
		draw_set(ed, "dir", "both");
		draw_setf(ed, "xlabel", "t%u\u2192t%u %s\nt%u\u2192t%u %s", e[i].from, e[i].to,
			  draw_count(cnt, sizeof(cnt), (double)e[i].n), e[back].from, e[back].to,
			  draw_count(cnt2, sizeof(cnt2), (double)e[back].n));
	}
	handoff_legend(g, "blue edge: handoffs inside a socket (wider = more; two heads: both ways, "
			  "each way's count in its label)");
	free(tn);
	free(backs);
	return g;
}

/* The threads of each socket: how many, their acquisitions and waiting. */
struct hsock {
	unsigned threads;
	uint64_t acq;
	double waited;
	Agnode_t *node;
};

static void socket_nodes(Agraph_t *g, const struct wl_run *run, struct hsock *hs)
{
	char col[48], acq[16], name[64], share[16];

	for (unsigned i = 0; i < run->nthreads; i++) {
		struct hsock *h = &hs[run->threads[i].node < TOPO_MAX_SOCKETS ? run->threads[i].node : 0];

		h->threads++;
		h->acq += run->threads[i].acquisitions;
		h->waited += waited(run, i);
	}
	for (unsigned s = 0; s < TOPO_MAX_SOCKETS; s++) {
		struct hsock *h = &hs[s];
		double w = h->threads ? h->waited / h->threads : 0;

		if (!h->threads)
			continue;
		h->node = draw_node(g, "s%u", s);
		draw_wait_colour(col, sizeof(col), w);
		draw_set(h->node, "style", "filled");
		draw_set(h->node, "fillcolor", col);
		if (sim.topo.socket_name)
			snprintf(name, sizeof(name), "%s", sim.topo.socket_name[s]);
		else
			snprintf(name, sizeof(name), "socket %u", s);
		draw_setf(h->node, "label", "%s\n%u threads, %s acq\n%s waiting (mean)", name,
			  h->threads, draw_count(acq, sizeof(acq), (double)h->acq),
			  waited_text(share, sizeof(share), w));
	}
}

/* Above GRAPH_MAX_THREADS: a node per socket, an edge per pair of sockets
 * that handed the lock over (a self-loop: inside the socket). */
static Agraph_t *socket_handoff_graph(const struct wl_run *run, const struct hedge *e, size_t n,
				      uint64_t total, uint64_t local)
{
	static uint64_t between[TOPO_MAX_SOCKETS][TOPO_MAX_SOCKETS];
	struct hsock *hs = calloc(TOPO_MAX_SOCKETS, sizeof(*hs));
	uint64_t max = 0;
	unsigned nsock = sim.topo.nsockets < TOPO_MAX_SOCKETS ? sim.topo.nsockets : TOPO_MAX_SOCKETS;
	Agraph_t *g;
	char cnt[16], share[48];

	if (!hs)
		return NULL;
	memset(between, 0, sizeof(between));
	for (size_t i = 0; i < n; i++) {
		unsigned a = run->threads[e[i].from].node, b = run->threads[e[i].to].node;

		if (a < nsock && b < nsock)
			between[a][b] += e[i].n;
	}
	for (unsigned a = 0; a < nsock; a++)
		for (unsigned b = 0; b < nsock; b++)
			max = between[a][b] > max ? between[a][b] : max;
	g = agopen("handoff", Agdirected, NULL);
	handoff_title(g, run, "handoffs between sockets (a node per socket)", total, local, "");
	socket_nodes(g, run, hs);
	for (unsigned a = 0; a < nsock; a++)
		for (unsigned b = 0; b < nsock; b++) {
			Agedge_t *ed;

			if (!between[a][b] || !hs[a].node || !hs[b].node)
				continue;
			ed = agedge(g, hs[a].node, hs[b].node, NULL, 1);
			handoff_edge(ed, max ? (double)between[a][b] / (double)max : 0, a == b);
			draw_setf(ed, "xlabel", "%s (%s)",
				  draw_count(cnt, sizeof(cnt), (double)between[a][b]),
				  share_text(share, sizeof(share), between[a][b], total));
		}
	handoff_legend(g, "blue loop: handoffs inside a socket (wider = more)");
	free(hs);
	return g;
}

static Agraph_t *handoff_graph(const struct wl_run *run)
{
	size_t cap = handoff_pairs(run), n;
	struct hedge *e = malloc((cap ? cap : 1) * sizeof(*e));
	uint64_t total, local;
	Agraph_t *g;

	if (!e)
		return NULL;
	n = collect_handoffs(run, e, &total, &local);
	if (run->nthreads > GRAPH_MAX_THREADS)
		g = socket_handoff_graph(run, e, n, total, local);
	else
		g = thread_handoff_graph(run, e, n, total, local);
	free(e);
	return g;
}

/* ------------------------------------------------------------ files */

/* The process that made the --graphs directory (0: it was there). */
static pid_t made_by;

static void unmake_dir(void)
{
	if (made_by == getpid()) /* not --jobs' workers */
		rmdir(graphs_dir); /* only if empty */
}

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
	} else {
		/* made now, so that other outputs may go into it; removed at exit
		 * if nothing was (a refused command leaves nothing behind) */
		made_by = getpid();
		atexit(unmake_dir);
	}
	snprintf(graphs_dir, sizeof(graphs_dir), "%s", dir);
	if (draw_share_failures()) {
		snprintf(err, errlen, "--graphs: out of memory");
		return -1;
	}
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

const char *graphs_dir_name(void)
{
	return graphs_dir;
}

int graphs_write_run(const struct wl_run *run, const char *stem)
{
	int rc = draw_write(machine_graph(run), "dot", stem, "machine");

	return draw_write(handoff_graph(run), "dot", stem, "handoff") | rc;
}

/* DIR/graph-TOPO-LOCK-THREADS, and -xOVERCOMMIT in a virtual machine (an
 * overcommit sweep would otherwise write each over the last).  0, or -1
 * when it does not fit. */
static int graph_stem(char *buf, size_t len, const char *lock, unsigned threads, double overcommit)
{
	int n = snprintf(buf, len, "%s/graph-%s-%s-%u", graphs_dir, sim.topo.name, lock, threads);

	if (n >= 0 && (size_t)n < len && overcommit > 0)
		n += snprintf(buf + n, len - (size_t)n, "-x%g", overcommit);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int graphs_check(const struct wl_config *cfg, char *err, size_t errlen)
{
	static const char *const kinds[] = { "machine", "handoff", "waits" };
	static const char *const exts[] = { "dot", "svg", "png" };
	unsigned nx = cfg->vm_vcpus ? cfg->novercommit : 1, checked = 0;
	char stem[PATH_MAX], path[PATH_MAX + 16];
	struct stat st;

	if (!graphs_on)
		return 0;
	for (unsigned l = 0; l < cfg->nalgos; l++)
		for (unsigned t = 0; t < cfg->nthreads; t++)
			for (unsigned x = 0; x < nx; x++) {
				if (graph_stem(stem, sizeof(stem), cfg->algos[l]->name, cfg->threads[t],
					       cfg->vm_vcpus ? cfg->overcommit[x] : 0)) {
					snprintf(err, errlen, "--graphs: file name too long");
					return -1;
				}
				for (unsigned k = 0; k < 3; k++)
					for (unsigned e = 0; e < 3; e++) {
						snprintf(path, sizeof(path), "%s-%s.%s", stem, kinds[k],
							 exts[e]);
						/* the directory once (it takes files), then
						 * each name: absent or a regular file */
						if (!checked++ &&
						    outfile_check("--graphs", path, err, errlen))
							return -1;
						if (!lstat(path, &st) && !S_ISREG(st.st_mode)) {
							snprintf(err, errlen, "--graphs %s: %s; results "
								 "go to regular files only", path,
								 S_ISLNK(st.st_mode) ? "a symbolic link"
								 : S_ISDIR(st.st_mode) ? "a directory"
								 : "not a regular file");
							return -1;
						}
					}
			}
	return 0;
}

void graphs_after_run(const struct wl_run *run)
{
	char stem[PATH_MAX];

	if (!graphs_on)
		return;
	/* named by the configured count: --co-guests same ran every guest's
	 * vCPUs as threads, the configuration counts the guest's */
	unsigned threads = run->vm_pcpus && run->nthreads > run->cfg->vm_vcpus ? run->cfg->vm_vcpus
										: run->nthreads;

	if (graph_stem(stem, sizeof(stem), run->algo->name, threads,
		       run->vm_pcpus ? run->overcommit : 0)) {
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

