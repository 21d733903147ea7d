/*
 * sim/report/graphs_machine.c - the machine graph of graphs.h (graphs_draw.h):
 * the cores clustered by socket under a box for the socket, the socket
 * links, and beside them a table of every link; and the helpers both
 * contention graphs share: HSV colours, the share of the run a thread spent
 * waiting and its text, the legend of waiting, which run a graph draws.
 *
 *   node fill: the share of the run the core's thread spent waiting for
 *   the lock, green (never) through yellow to red (always)
 *   (draw_wait_colour); white, dashed, for a core without a thread;
 *   links: blue, deeper and wider (1 to 8 points) by messages per
 *   acquisition, relative to the busiest.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../sim.h"
#include "draw.h"
#include "explain.h"
#include "graphs_draw.h"

/* ------------------------------------------------------------ helpers */

void graphs_hsv(char *buf, size_t len, double h, double s, double v)
{
	snprintf(buf, len, "%.3f %.3f %.3f", h, s, v);
}

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* The share of the measured run thread t spent waiting for the lock. */
double graphs_waited(const struct wl_run *run, unsigned t)
{
	double dur = (double)(run->stop_ns - run->start_ns) * 1000;

	return dur > 0 ? clamp01((double)sim_explain_wait_ps(t, run->stop_ns * 1000) / dur) : 0;
}

/* A share of the run spent waiting as a label gives it (share_text of
 * graphs_handoff.c does the same for counts): a whole percent, but never
 * "100%" or "0%" for a share that is not all or nothing (a thread that
 * made one acquisition in a run does not read as one that made none). */
const char *graphs_waited_text(char *buf, size_t len, double w)
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
void graphs_wait_legend(Agraph_t *g, const char *title, const char *edge1, const char *text1,
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

/* Which run a graph draws, and of what workload, since the file's name
 * gives only the lock and the thread count: "run 3 of 3; cs 50 ns, ncs
 * 200 ns, cs-lines 1, pin compact, seed 1" (the table beside it gives
 * means over the runs), "one run; ..." when there was one. */
const char *graphs_which_run(const struct wl_run *run, char *buf, size_t len)
{
	const struct wl_config *c = run->cfg;
	size_t n;

	if (c->runs > 1)
		n = (size_t)snprintf(buf, len, "run %u of %u", run->run_index + 1, c->runs);
	else
		n = (size_t)snprintf(buf, len, "one run");
	if (n < len)
		snprintf(buf + n, len - n, "; cs %llu ns, ncs %s%llu ns, cs-lines %u, pin %s, seed %llu",
			 (unsigned long long)c->cs_ns, c->ncs_exp ? "exp:" : "",
			 (unsigned long long)c->ncs_ns, c->cs_lines, c->pin_text,
			 (unsigned long long)c->seed);
	return buf;
}

/* ------------------------------------------------------------ machine */

static uint64_t run_acquisitions(const struct wl_run *run)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < run->nthreads; i++)
		n += run->threads[i].acquisitions;
	return n;
}

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
			double w = graphs_waited(run, (unsigned)t);
			char acq[16], share[16];

			draw_wait_colour(col, sizeof(col), w);
			draw_set(n, "fillcolor", col);
			draw_setf(n, "label", "core %u: t%d\n%s acq\n%s waiting", c, t,
				  draw_count(acq, sizeof(acq), (double)run->threads[t].acquisitions),
				  graphs_waited_text(share, sizeof(share), w));
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

		graphs_hsv(col, sizeof(col), 0.66, 0.2 + 0.8 * rel, 0.9);
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

Agraph_t *graphs_machine_graph(const struct wl_run *run)
{
	static int thread_of[TOPO_MAX_CORES];
	Agnode_t *sock[TOPO_MAX_SOCKETS];
	const struct coh_counters *k = coh_counters(sim.model);
	const uint64_t *msgs = sim.snapped ? sim.snap_links : k->link_msgs;
	uint64_t acq = run_acquisitions(run);
	Agraph_t *g = draw_open("machine", Agundirected);
	char text[640], cnt[16], which[256];

	draw_threads_by_core(run, thread_of);
	snprintf(text, sizeof(text),
		 "%s on %s, %u threads (%s): core colour = share of the run spent waiting,\n"
		 "link width and depth of blue = messages per acquisition (%s acquisitions)",
		 run->algo->name, sim.topo.name, run->nthreads,
		 graphs_which_run(run, which, sizeof(which)),
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
	graphs_wait_legend(g, "node colour = share of the run spent waiting", "0.660 1.000 0.900",
			   "link: wider, deeper blue = more messages per acquisition", NULL, NULL);
	return g;
}
