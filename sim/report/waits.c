/*
 * sim/report/waits.c - the waits-for graph of a failed run (graphs.h):
 * captured when the run is found deadlocked or without progress, while the
 * threads still stand where they stopped, and drawn after the run: who
 * waits on which line, whose context or lock the line is, who holds it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim.h"
#include "draw.h"
#include "graphs.h"

/* A failure captured while the threads stood still (see graphs.h). */
struct wf_thread {
	enum sim_block block;
	int phase;
	int line; /* index into wf.lines, -1 */
};

struct wf_line {
	uintptr_t addr;
	char desc[96];
	char letter;    /* coherence state */
	int cached_by;  /* thread whose core holds it M/E, -1 */
	int ctx_of;     /* the line is this thread's context, -1 */
	bool is_lock;
};

static struct {
	bool valid;
	char what[32];
	uint64_t at_ps;
	unsigned n, nlines;
	struct wf_thread *t;
	struct wf_line *lines;
} wf;

#define FILL_HOLDING "0.0 0.5 1.0"
#define FILL_RUNNING "0.33 0.3 1.0"
#define FILL_BLOCKED "0.13 0.4 1.0"

static void waits_legend(Agraph_t *g)
{
	static const struct draw_key k[] = {
		{ FILL_HOLDING, NULL, "holds the lock" },
		{ FILL_RUNNING, NULL, "running, or left the run" },
		{ FILL_BLOCKED, NULL, "blocked: waits on a line or in ll_park" },
		{ NULL, "red", "red edge: lock line held by" },
	};

	draw_legend(g, "node colour = what the thread was doing", k, sizeof(k) / sizeof(k[0]));
}

static Agraph_t *waits_graph(const struct wl_run *run)
{
	Agraph_t *g = draw_open("waits", Agdirected);
	Agraph_t *sub[TOPO_MAX_SOCKETS] = { NULL };
	Agnode_t **tn = calloc(wf.n ? wf.n : 1, sizeof(*tn));
	Agnode_t *park = NULL;
	char text[256];

	if (!tn) {
		agclose(g);
		return NULL;
	}
	snprintf(text, sizeof(text), "%s on %s, %u threads: %s at %.3f us\nwho waits on which line",
		 run->algo->name, sim.topo.name, run->nthreads, wf.what, (double)wf.at_ps / 1e6);
	draw_title(g, text);
	for (unsigned i = 0; i < wf.n; i++) {
		unsigned s = run->threads[i].node < TOPO_MAX_SOCKETS ? run->threads[i].node : 0;
		int ph = wf.t[i].phase;

		if (ph < PH_OUTSIDE || ph > PH_HOLDING)
			ph = PH_OUTSIDE;
		if (!sub[s])
			sub[s] = draw_socket(g, s);
		tn[i] = draw_node(sub[s], "t%u", i);
		draw_setf(tn[i], "label", "t%u\n%s%s", i, sim_phase_name(ph),
			  wf.t[i].block == SIM_EXITED ? ", left" : "");
		draw_set(tn[i], "style", "filled");
		if (ph == PH_HOLDING)
			draw_set(tn[i], "fillcolor", FILL_HOLDING);
		else if (wf.t[i].block == SIM_RUNNING || wf.t[i].block == SIM_EXITED)
			draw_set(tn[i], "fillcolor", FILL_RUNNING);
		else
			draw_set(tn[i], "fillcolor", FILL_BLOCKED);
		if (ph == PH_HOLDING)
			draw_set(tn[i], "shape", "doublecircle");
	}
	for (unsigned l = 0; l < wf.nlines; l++) {
		const struct wf_line *ln = &wf.lines[l];
		Agnode_t *n = draw_node(g, "line%u", l);
		Agedge_t *e;

		draw_set(n, "shape", "box");
		draw_setf(n, "label", "%s\nstate %c", ln->desc, ln->letter);
		if (ln->ctx_of >= 0 && (unsigned)ln->ctx_of < wf.n) {
			e = agedge(g, n, tn[ln->ctx_of], NULL, 1);
			draw_set(e, "xlabel", "context of");
			draw_set(e, "style", "dotted");
		}
		if (ln->cached_by >= 0 && (unsigned)ln->cached_by < wf.n) {
			e = agedge(g, n, tn[ln->cached_by], NULL, 1);
			draw_set(e, "xlabel", "cached by");
			draw_set(e, "style", "dashed");
		}
		for (unsigned i = 0; ln->is_lock && i < wf.n; i++)
			if (wf.t[i].phase == PH_HOLDING) {
				e = agedge(g, n, tn[i], NULL, 1);
				draw_set(e, "xlabel", "held by");
				draw_set(e, "color", "red");
			}
	}
	for (unsigned i = 0; i < wf.n; i++) {
		Agedge_t *e = NULL;

		if (wf.t[i].line >= 0)
			e = agedge(g, tn[i], draw_node(g, "line%u", (unsigned)wf.t[i].line), NULL, 1);
		else if (wf.t[i].block == SIM_PARKED_KICK) {
			if (!park) {
				park = agnode(g, "park", 1);
				draw_set(park, "shape", "box");
				draw_set(park, "label", "ll_park: no kick will come");
			}
			e = agedge(g, tn[i], park, NULL, 1);
		}
		if (e)
			draw_set(e, "xlabel", wf.t[i].block == SIM_PARKED_ADMIT ? "waits for admission to" :
									   "waits on");
	}
	waits_legend(g);
	free(tn);
	return g;
}

void graphs_waits_clear(void)
{
	free(wf.t);
	free(wf.lines);
	memset(&wf, 0, sizeof(wf));
}

static int wf_line_of(uintptr_t addr, const int *thread_of)
{
	static struct coh_line_view v;
	uintptr_t line = addr & ~(uintptr_t)(COH_LINE_SIZE - 1);
	struct wf_line *ln;
	int ctx = -1;

	for (unsigned l = 0; l < wf.nlines; l++)
		if (wf.lines[l].addr == line)
			return (int)l;
	ln = &wf.lines[wf.nlines];
	memset(ln, 0, sizeof(*ln));
	ln->addr = line;
	sim_describe_line(addr, ln->desc, sizeof(ln->desc));
	coh_line_view(sim.model, line, &v);
	ln->letter = v.letter;
	ln->cached_by = (v.state == TOPO_M || v.state == TOPO_E) && v.owner >= 0 &&
					(unsigned)v.owner < sim.topo.ncores ?
				thread_of[v.owner] :
				-1;
	ln->is_lock = v.tag == COH_TAG_LOCK;
	if (sscanf(ln->desc, "ctx of t%d", &ctx) == 1)
		ln->ctx_of = ctx;
	else
		ln->ctx_of = -1;
	return (int)wf.nlines++;
}

void graphs_capture_failure(const char *what)
{
	static int thread_of[TOPO_MAX_CORES];

	if (!graphs_enabled() || !sim.run || !sim.actors)
		return;
	graphs_waits_clear();
	wf.t = calloc(sim.nactors ? sim.nactors : 1, sizeof(*wf.t));
	wf.lines = calloc(sim.nactors ? sim.nactors : 1, sizeof(*wf.lines));
	if (!wf.t || !wf.lines) {
		graphs_waits_clear();
		return;
	}
	draw_threads_by_core(sim.run, thread_of);
	snprintf(wf.what, sizeof(wf.what), "%s", what);
	wf.at_ps = sim.now_ps;
	wf.n = sim.nactors;
	for (unsigned i = 0; i < sim.nactors; i++) {
		const struct sim_actor *a = &sim.actors[i];

		wf.t[i].block = a->block;
		wf.t[i].phase = sim.run->threads[i].phase;
		wf.t[i].line = a->block == SIM_PARKED_LINE || a->block == SIM_PARKED_ADMIT ?
				       wf_line_of(a->wait_line, thread_of) :
				       -1;
	}
	wf.valid = true;
}

int graphs_write_waits(const struct wl_run *run, const char *stem)
{
	if (!wf.valid)
		return 0;
	return draw_write(waits_graph(run), "dot", stem, "waits");
}
