/*
 * sim/report/graphs.c - the contention graphs of graphs.h, built in process
 * with libcgraph and laid out and rendered with libgvc.
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
#include "explain.h"
#include "graphs.h"

#define STEM_MAX (PATH_MAX - 32)

static char graphs_dir[STEM_MAX];
static bool graphs_on;
static GVC_t *gvc;

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

/* ------------------------------------------------------------ helpers */

static void set(void *obj, const char *name, const char *value)
{
	agsafeset(obj, (char *)name, (char *)value, (char *)"");
}

static void setf(void *obj, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void setf(void *obj, const char *name, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	set(obj, name, buf);
}

static void hsv(char *buf, size_t len, double h, double s, double v)
{
	snprintf(buf, len, "%.3f %.3f %.3f", h, s, v);
}

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

static Agnode_t *node(Agraph_t *g, const char *fmt, unsigned i)
{
	char name[32];

	snprintf(name, sizeof(name), fmt, i);
	return agnode(g, name, 1);
}

static Agraph_t *socket_cluster(Agraph_t *g, unsigned s)
{
	char name[48];

	snprintf(name, sizeof(name), "cluster_socket%u", s);
	Agraph_t *sub = agsubg(g, name, 1);

	if (sim.topo.socket_name)
		set(sub, "label", sim.topo.socket_name[s]);
	else
		setf(sub, "label", "socket %u", s);
	set(sub, "style", "rounded");
	return sub;
}

static void title(Agraph_t *g, const char *text)
{
	set(g, "label", text);
	set(g, "labelloc", "t");
	set(g, "forcelabels", "true");
	set(g, "fontname", "Helvetica");
	set(g, "fontsize", "16");
}

/* Write STEM.dot (before layout), then lay out and render SVG and PNG. */
static int render(Agraph_t *g, const char *engine, const char *stem)
{
	char path[PATH_MAX];
	static const char *const fmts[] = { "svg", "png" };
	FILE *f;
	int rc = 0;

	if (snprintf(path, sizeof(path), "%s.dot", stem) >= (int)sizeof(path)) {
		fprintf(stderr, "locklab-sim: --graphs: file name too long\n");
		return -1;
	}
	f = fopen(path, "w");
	if (!f || agwrite(g, f) < 0) {
		if (f)
			fclose(f);
		fprintf(stderr, "locklab-sim: --graphs: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fclose(f)) {
		fprintf(stderr, "locklab-sim: --graphs: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!gvc)
		gvc = gvContext();
	if (!gvc || gvLayout(gvc, g, engine)) {
		fprintf(stderr, "locklab-sim: --graphs: graphviz could not lay out %s\n", path);
		return -1;
	}
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		if (snprintf(path, sizeof(path), "%s.%s", stem, fmts[i]) >= (int)sizeof(path) ||
		    gvRenderFilename(gvc, g, fmts[i], path)) {
			fprintf(stderr, "locklab-sim: --graphs: cannot write %s\n", path);
			rc = -1;
		}
	}
	gvFreeLayout(gvc, g);
	return rc;
}

static uint64_t run_acquisitions(const struct wl_run *run)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < run->nthreads; i++)
		n += run->threads[i].acquisitions;
	return n;
}

/* thread_of[core]: the thread placed there, or -1. */
static void threads_by_core(const struct wl_run *run, int *thread_of)
{
	for (unsigned c = 0; c < sim.topo.ncores; c++)
		thread_of[c] = -1;
	for (unsigned i = 0; i < run->nthreads; i++)
		if (run->threads[i].cpu < sim.topo.ncores)
			thread_of[run->threads[i].cpu] = (int)i;
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
		Agnode_t *n = node(sub, "c%u", c);
		int t = thread_of[c];

		set(n, "shape", "box");
		set(n, "style", t >= 0 ? "filled,rounded" : "dashed,rounded");
		if (t >= 0) {
			double w = dur > 0 ? clamp01((double)sim_explain_wait_ps((unsigned)t, stop_ps) / dur) : 0;

			hsv(col, sizeof(col), 0.33 * sqrt(1 - w), 0.6, 1.0);
			set(n, "fillcolor", col);
			setf(n, "label", "core %u: t%d\n%llu acq\n%.0f%% waiting", c, t,
			     (unsigned long long)run->threads[t].acquisitions, 100 * w);
		} else {
			setf(n, "label", "core %u\nidle", c);
		}
		Agedge_t *e = agedge(g, above[k % 4], n, NULL, 1);

		set(e, "style", "invis");
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
		set(e, "color", col);
		setf(e, "penwidth", "%.2f", 1 + 7 * rel);
		setf(e, "xlabel", "%s\n%.2f msg/acq", lk->name, acq ? (double)m / (double)acq : 0.0);
		set(e, "fontname", "Helvetica");
		set(e, "constraint", "false");
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

	threads_by_core(run, thread_of);
	snprintf(text, sizeof(text),
		 "%s on %s, %u threads: core colour = share of the run spent waiting,\n"
		 "link width and colour = messages per acquisition (%llu acquisitions)",
		 run->algo->name, sim.topo.name, run->nthreads, (unsigned long long)acq);
	title(g, text);
	set(g, "fontname", "Helvetica");
	set(g, "nodesep", "0.15");
	for (unsigned s = 0; s < sim.topo.nsockets && s < TOPO_MAX_SOCKETS; s++) {
		Agraph_t *sub = socket_cluster(g, s);

		sock[s] = node(sub, "socket%u", s);
		set(sock[s], "shape", "box");
		set(sock[s], "style", "filled");
		set(sock[s], "fillcolor", "0.0 0.0 0.85");
		if (run->slots && run->slots[0].home_node == s)
			setf(sock[s], "label", "socket %u\nhome of the lock", s);
		else
			setf(sock[s], "label", "socket %u", s);
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
	for (unsigned b = 0; b < run->nthreads; b++)
		for (unsigned a = 0; run->threads[b].handoff_from && a < run->nthreads; a++) {
			uint64_t c = run->threads[b].handoff_from[a];

			if (!c)
				continue;
			e[n++] = (struct hedge){ .from = a, .to = b, .n = c };
			*total += c;
			if (run->threads[a].node == run->threads[b].node)
				*local += c;
		}
	qsort(e, n, sizeof(*e), cmp_hedge);
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
			sub[s] = socket_cluster(g, s);
		tn[i] = node(sub[s], "t%u", i);
		hsv(col, sizeof(col), 0.0, 0.7 * rel, 1.0);
		set(tn[i], "style", "filled");
		set(tn[i], "fillcolor", col);
		setf(tn[i], "label", "t%u\ncore %u\n%llu acq", i, t->cpu,
		     (unsigned long long)t->acquisitions);
	}
}

static Agraph_t *handoff_graph(const struct wl_run *run)
{
	size_t cap = (size_t)run->nthreads * run->nthreads, n, keep;
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
	title(g, text);
	set(g, "fontname", "Helvetica");
	handoff_nodes(g, run, tn);
	for (size_t i = 0; i < keep; i++) {
		double rel = e[0].n ? (double)e[i].n / (double)e[0].n : 0;
		bool same = run->threads[e[i].from].node == run->threads[e[i].to].node;
		Agedge_t *ed = agedge(g, tn[e[i].from], tn[e[i].to], NULL, 1);

		hsv(col, sizeof(col), same ? 0.6 : 0.0, 0.3 + 0.7 * rel, 0.85);
		set(ed, "color", col);
		setf(ed, "penwidth", "%.2f", 0.5 + 5.5 * rel);
		setf(ed, "weight", "%llu", (unsigned long long)(1 + 10 * rel));
		setf(ed, "xlabel", "%llu", (unsigned long long)e[i].n);
		set(ed, "fontname", "Helvetica");
		set(ed, "fontsize", "10");
	}
	free(e);
	free(tn);
	return g;
}

/* ------------------------------------------------------------ waits-for */

static const char *const phase_names[] = {
	[PH_OUTSIDE] = "outside", [PH_ACQUIRING] = "acquiring", [PH_HOLDING] = "holding",
};

static Agraph_t *waits_graph(const struct wl_run *run)
{
	Agraph_t *g = agopen("waits", Agdirected, NULL);
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
	title(g, text);
	for (unsigned i = 0; i < wf.n; i++) {
		unsigned s = run->threads[i].node < TOPO_MAX_SOCKETS ? run->threads[i].node : 0;
		int ph = wf.t[i].phase;

		if (ph < PH_OUTSIDE || ph > PH_HOLDING)
			ph = PH_OUTSIDE;
		if (!sub[s])
			sub[s] = socket_cluster(g, s);
		tn[i] = node(sub[s], "t%u", i);
		setf(tn[i], "label", "t%u\n%s%s", i, phase_names[ph],
		     wf.t[i].block == SIM_EXITED ? ", left" : "");
		set(tn[i], "style", "filled");
		set(tn[i], "fillcolor", ph == PH_HOLDING ? "0.0 0.5 1.0" : wf.t[i].block == SIM_RUNNING ||
							  wf.t[i].block == SIM_EXITED ? "0.33 0.3 1.0" : "0.13 0.4 1.0");
		if (ph == PH_HOLDING)
			set(tn[i], "shape", "doublecircle");
	}
	for (unsigned l = 0; l < wf.nlines; l++) {
		const struct wf_line *ln = &wf.lines[l];
		Agnode_t *n = node(g, "line%u", l);
		Agedge_t *e;

		set(n, "shape", "box");
		setf(n, "label", "%s\nstate %c", ln->desc, ln->letter);
		if (ln->ctx_of >= 0 && (unsigned)ln->ctx_of < wf.n) {
			e = agedge(g, n, tn[ln->ctx_of], NULL, 1);
			set(e, "xlabel", "context of");
			set(e, "style", "dotted");
		}
		if (ln->cached_by >= 0 && (unsigned)ln->cached_by < wf.n) {
			e = agedge(g, n, tn[ln->cached_by], NULL, 1);
			set(e, "xlabel", "cached by");
			set(e, "style", "dashed");
		}
		for (unsigned i = 0; ln->is_lock && i < wf.n; i++)
			if (wf.t[i].phase == PH_HOLDING) {
				e = agedge(g, n, tn[i], NULL, 1);
				set(e, "xlabel", "held by");
				set(e, "color", "red");
			}
	}
	for (unsigned i = 0; i < wf.n; i++) {
		Agedge_t *e = NULL;

		if (wf.t[i].line >= 0)
			e = agedge(g, tn[i], node(g, "line%u", (unsigned)wf.t[i].line), NULL, 1);
		else if (wf.t[i].block == SIM_PARKED_KICK) {
			if (!park) {
				park = agnode(g, "park", 1);
				set(park, "shape", "box");
				set(park, "label", "ll_park: no kick will come");
			}
			e = agedge(g, tn[i], park, NULL, 1);
		}
		if (e)
			set(e, "xlabel", wf.t[i].block == SIM_PARKED_ADMIT ? "waits for admission to" :
									   "waits on");
	}
	free(tn);
	return g;
}

/* ------------------------------------------------------------ capture */

static void wf_clear(void)
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

	if (!graphs_on || !sim.run || !sim.actors)
		return;
	wf_clear();
	wf.t = calloc(sim.nactors ? sim.nactors : 1, sizeof(*wf.t));
	wf.lines = calloc(sim.nactors ? sim.nactors : 1, sizeof(*wf.lines));
	if (!wf.t || !wf.lines) {
		wf_clear();
		return;
	}
	threads_by_core(sim.run, thread_of);
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

static int write_graph(Agraph_t *g, const char *engine, const char *stem, const char *kind)
{
	char path[PATH_MAX];
	int rc;

	if (!g) {
		fprintf(stderr, "locklab-sim: --graphs: out of memory\n");
		return -1;
	}
	if (snprintf(path, sizeof(path), "%s-%s", stem, kind) >= (int)sizeof(path)) {
		fprintf(stderr, "locklab-sim: --graphs: file name too long\n");
		rc = -1;
	} else {
		rc = render(g, engine, path);
	}
	agclose(g);
	return rc;
}

int graphs_write_run(const struct wl_run *run, const char *stem)
{
	int rc = write_graph(machine_graph(run), "dot", stem, "machine");

	return write_graph(handoff_graph(run), "dot", stem, "handoff") | rc;
}

int graphs_write_waits(const struct wl_run *run, const char *stem)
{
	if (!wf.valid)
		return 0;
	return write_graph(waits_graph(run), "dot", stem, "waits");
}

void graphs_after_run(const struct wl_run *run)
{
	char stem[PATH_MAX];

	if (!graphs_on)
		return;
	if (snprintf(stem, sizeof(stem), "%s/graph-%s-%s-%u", graphs_dir, sim.topo.name,
		     run->algo->name, run->nthreads) >= (int)sizeof(stem)) {
		fprintf(stderr, "locklab-sim: --graphs: file name too long\n");
		wf_clear();
		return;
	}
	if (run->failed)
		graphs_write_waits(run, stem);
	else if (run->run_index + 1 >= run->cfg->runs)
		graphs_write_run(run, stem);
	wf_clear();
}

void graphs_fini(void)
{
	wf_clear();
	if (gvc)
		gvFreeContext(gvc);
	gvc = NULL;
	graphs_on = false;
}
