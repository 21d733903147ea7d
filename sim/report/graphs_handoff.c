/*
 * sim/report/graphs_handoff.c - the handoff graph of graphs.h
 * (graphs_draw.h): who handed the lock to whom, from each thread's
 * handoff_from counts.
 *
 *   node fill: waiting, as in the machine graph; edges blue inside a
 *   socket, purple across sockets (a pair's handoffs mostly inside or
 *   across one when they happened: threads may migrate), wider by count
 *   relative to the
 *   heaviest edge.  Up to GRAPH_MAX_THREADS threads a node is a thread,
 *   and only the 4 x threads heaviest edges are drawn (the title says how
 *   many there were); above, a node is a socket, its self-loop the
 *   handoffs inside it, and every edge is drawn, labelled with its count
 *   and share.  The counts are `xlabel`s (graphs_draw.h says why).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sched_noise.h"
#include "../sim.h"
#include "draw.h"
#include "graphs_draw.h"

/* Above this many threads the handoff graph has a node per socket. */
#define GRAPH_MAX_THREADS 32
#define HUE_INSIDE 0.6
#define HUE_ACROSS 0.8

struct hedge {
	unsigned from, to;
	uint64_t n, local; /* handoffs; of them, inside one socket when they happened */
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
			e[n++] = (struct hedge){ .from = a, .to = b, .n = c, .local = m->slot[i].local };
			*total += c;
			*local += m->slot[i].local;
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
		double w = graphs_waited(run, i);

		if (!sub[s])
			sub[s] = draw_socket(g, s);
		tn[i] = draw_node(sub[s], "t%u", i);
		draw_wait_colour(col, sizeof(col), w);
		draw_set(tn[i], "style", "filled");
		draw_set(tn[i], "fillcolor", col);
		draw_setf(tn[i], "label", "t%u\ncore %u\n%s acq\n%s waiting", i, t->cpu,
			  draw_count(acq, sizeof(acq), (double)t->acquisitions),
			  graphs_waited_text(share, sizeof(share), w));
	}
}

static void handoff_edge(Agedge_t *ed, double rel, bool same)
{
	char col[48];

	graphs_hsv(col, sizeof(col), same ? HUE_INSIDE : HUE_ACROSS, 0.3 + 0.7 * rel, 0.85);
	draw_set(ed, "color", col);
	draw_setf(ed, "penwidth", "%.2f", 0.5 + 5.5 * rel);
	draw_setf(ed, "weight", "%llu", (unsigned long long)(1 + 10 * rel));
	draw_set(ed, "fontsize", "10");
}

static void handoff_legend(Agraph_t *g, const char *loop)
{
	char in[48], across[48];

	graphs_hsv(in, sizeof(in), HUE_INSIDE, 1.0, 0.85);
	graphs_hsv(across, sizeof(across), HUE_ACROSS, 1.0, 0.85);
	graphs_wait_legend(g, "node colour = share of the run spent waiting", in, loop, across,
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

/* moved: what the graph shows of threads that migrate, said only where
 * they may have (the share of the title counts a handoff where it was). */
static void handoff_title(Agraph_t *g, const struct wl_run *run, const char *what, uint64_t total,
			  uint64_t local, const char *edges, const char *moved)
{
	char text[1400], cnt[16], cnt2[16], share[48], which[256], retakes[200] = "";
	uint64_t acq = 0;

	for (unsigned i = 0; i < run->nthreads; i++)
		acq += run->threads[i].acquisitions;
	if (acq > total + 1) /* the rest: no handoff, the releaser took it again */
		snprintf(retakes, sizeof(retakes), "\nof %s acquisitions, %s went back to the thread "
			 "that had just released the lock: not drawn",
			 draw_count(cnt2, sizeof(cnt2), (double)acq),
			 share_text(share, sizeof(share), acq - total, acq));
	share_text(share, sizeof(share), local, total);
	snprintf(text, sizeof(text), "%s on %s, %u threads (%s): %s\n%s handoffs, %s inside one "
		 "socket%s%s%s", run->algo->name, sim.topo.name, run->nthreads,
		 graphs_which_run(run, which, sizeof(which)), what,
		 draw_count(cnt, sizeof(cnt), (double)total), share, edges, retakes,
		 noise_migrates(run->cfg) ? moved : "");
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
	char edges[160], cnt[16], cnt2[16];

	if (!tn || !backs || reverses_of(e, keep, backs) < 0) {
		free(tn);
		free(backs);
		return NULL;
	}
	g = draw_open("handoff", Agdirected);
	snprintf(edges, sizeof(edges), "; the %zu heaviest of %zu directed pairs (a pair handed "
		 "both ways: one arrow, two heads)", keep, n);
	handoff_title(g, run, "who handed the lock to whom", total, local, edges,
		      "\nthreads migrate: each is drawn on its last core, an edge blue if most of "
		      "its handoffs were inside a socket when they happened");
	handoff_nodes(g, run, tn);
	for (size_t i = 0; i < keep; i++) {
		bool same = 2 * e[i].local >= e[i].n; /* mostly inside a socket */
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
		h->waited += graphs_waited(run, i);
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
			  graphs_waited_text(share, sizeof(share), w));
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
	g = draw_open("handoff", Agdirected);
	handoff_title(g, run, "handoffs between sockets (a node per socket)", total, local, "",
		      "\nthreads migrate: an edge joins the sockets its threads were on last, the "
		      "share above counts each handoff where it happened");
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

Agraph_t *graphs_handoff_graph(const struct wl_run *run)
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
