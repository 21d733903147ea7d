/*
 * sim/report/draw.c - what the contention graphs share: graphviz attribute
 * setters, thread and socket nodes, titles, legends, the colour of waiting,
 * counts with unit prefixes, and the writing of a graph as DOT (before
 * layout), SVG and PNG.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <locklab/result.h>

#include "../sim.h"
#include "draw.h"

static GVC_t *gvc;

void draw_set(void *obj, const char *name, const char *value)
{
	agsafeset(obj, (char *)name, (char *)value, (char *)"");
}

void draw_setf(void *obj, const char *name, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	draw_set(obj, name, buf);
}

Agnode_t *draw_node(Agraph_t *g, const char *fmt, unsigned i)
{
	char name[32];

	snprintf(name, sizeof(name), fmt, i);
	return agnode(g, name, 1);
}

Agraph_t *draw_socket(Agraph_t *g, unsigned s)
{
	char name[48];

	snprintf(name, sizeof(name), "cluster_socket%u", s);
	Agraph_t *sub = agsubg(g, name, 1);

	if (sim.topo.socket_name)
		draw_set(sub, "label", sim.topo.socket_name[s]);
	else
		draw_setf(sub, "label", "socket %u", s);
	draw_set(sub, "style", "rounded");
	return sub;
}

/* The graph's title, and the font of everything in it: the default of its
 * subgraphs, nodes and edges, set once here rather than on each. */
void draw_title(Agraph_t *g, const char *text)
{
	agattr(g, AGRAPH, (char *)"fontname", (char *)"Helvetica");
	agattr(g, AGNODE, (char *)"fontname", (char *)"Helvetica");
	agattr(g, AGEDGE, (char *)"fontname", (char *)"Helvetica");
	draw_set(g, "label", text);
	draw_set(g, "labelloc", "t");
	draw_set(g, "forcelabels", "true");
	draw_set(g, "fontsize", "16");
}

/* Whether a graph file could not be written (the command then exits 1):
 * this process's flag until draw_share_failures() maps one shared with the
 * processes of --jobs (before they fork), so that the first failure of any
 * is the one said. */
static int said_here, *said = &said_here;

int draw_share_failures(void)
{
	int *shared;

	if (said != &said_here)
		return 0;
	shared = mmap(NULL, sizeof(*said), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		      0);
	if (shared == MAP_FAILED)
		return -1;
	*shared = said_here;
	said = shared;
	return 0;
}

bool draw_write_failed(void)
{
	return __atomic_load_n(said, __ATOMIC_ACQUIRE);
}

static int failed(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One line on stderr after "locklab-sim: --graphs: "; the command will exit 1.
 * The first failure only: no graph is written after it (a full disk would
 * otherwise say so once a file, and the sweep goes on without them). */
static int failed(const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(said, 1, __ATOMIC_ACQ_REL))
		return -1;
	fputs("locklab-sim: --graphs: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("; no more graphs are written\n", stderr);
	return -1;
}

static void dot_text(FILE *f, const void *g)
{
	agwrite((Agraph_t *)g, f);
}

struct rendered {
	const char *data;
	unsigned len;
};

static void rendered_text(FILE *f, const void *r)
{
	const struct rendered *x = r;

	fwrite(x->data, 1, x->len, f);
}

/* Write STEM.dot (before layout), then lay out and render SVG and PNG;
 * each file whole or not at all (write_text_atomic: a symbolic link or a
 * directory in its place was refused before the run). */
static int render(Agraph_t *g, const char *engine, const char *stem)
{
	char path[PATH_MAX];
	static const char *const fmts[] = { "svg", "png" };
	int rc = 0;

	if (snprintf(path, sizeof(path), "%s.dot", stem) >= (int)sizeof(path))
		return failed("file name too long: %s", stem);
	if (write_text_atomic(path, dot_text, g))
		return failed("cannot write %s: %s", path, strerror(errno));
	if (!gvc)
		gvc = gvContext();
	if (!gvc || gvLayout(gvc, g, engine))
		return failed("graphviz could not lay out %s", path);
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		struct rendered r = { NULL, 0 };
		char *data = NULL;

		if (snprintf(path, sizeof(path), "%s.%s", stem, fmts[i]) >= (int)sizeof(path)) {
			rc = failed("file name too long: %s", stem);
			continue;
		}
		if (gvRenderData(gvc, g, fmts[i], &data, &r.len)) {
			rc = failed("graphviz could not render %s", path);
		} else {
			r.data = data;
			if (write_text_atomic(path, rendered_text, &r))
				rc = failed("cannot write %s: %s", path, strerror(errno));
		}
		gvFreeRenderData(data);
	}
	gvFreeLayout(gvc, g);
	return rc;
}

/* thread_of[core]: the thread placed there, or -1. */
void draw_threads_by_core(const struct wl_run *run, int *thread_of)
{
	for (unsigned c = 0; c < sim.topo.ncores; c++)
		thread_of[c] = -1;
	for (unsigned i = 0; i < run->nthreads; i++)
		if (run->threads[i].cpu < sim.topo.ncores)
			thread_of[run->threads[i].cpu] = (int)i;
}


int draw_write(Agraph_t *g, const char *engine, const char *stem, const char *kind)
{
	char path[PATH_MAX];
	int rc;

	if (!g)
		return failed("out of memory");
	if (draw_write_failed()) { /* said once, when it failed */
		rc = -1;
	} else if (snprintf(path, sizeof(path), "%s-%s", stem, kind) >= (int)sizeof(path)) {
		rc = failed("file name too long: %s", stem);
	} else {
		rc = render(g, engine, path);
	}
	agclose(g);
	return rc;
}

void draw_legend(Agraph_t *g, const char *title, const struct draw_key *keys, unsigned n)
{
	Agraph_t *sub = agsubg(g, (char *)"cluster_legend", 1);
	Agnode_t *above = NULL;

	draw_setf(sub, "label", "legend: %s", title);
	draw_set(sub, "style", "dashed");
	draw_set(sub, "fontsize", "12");
	for (unsigned i = 0; i < n; i++) {
		Agnode_t *k = draw_node(sub, "legend%u", i);

		draw_set(k, "label", keys[i].text);
		draw_set(k, "fontsize", "11");
		if (keys[i].fill) {
			draw_set(k, "shape", "box");
			draw_set(k, "style", "filled,rounded");
			draw_set(k, "fillcolor", keys[i].fill);
		} else {
			draw_set(k, "shape", "plaintext");
			draw_set(k, "fontcolor", keys[i].edge);
		}
		if (above)
			draw_set(agedge(g, above, k, NULL, 1), "style", "invis");
		above = k;
	}
}

void draw_wait_colour(char *buf, size_t len, double waited)
{
	double w = waited < 0 ? 0 : waited > 1 ? 1 : waited;

	/* the hue falls with the square root of the time not waiting, so
	 * that 90% and 100% look apart */
	snprintf(buf, len, "%.3f %.3f %.3f", 0.33 * sqrt(1 - w), 0.6, 1.0);
}

const char *draw_count(char *buf, size_t len, double n)
{
	static const char prefix[] = " kMGT";
	unsigned p = 0;

	while (n >= 999.5 && p + 1 < sizeof(prefix) - 1) {
		n /= 1000;
		p++;
	}
	if (!p)
		snprintf(buf, len, "%.0f", n);
	else
		snprintf(buf, len, n < 9.995 ? "%.2f%c" : n < 99.95 ? "%.1f%c" : "%.0f%c", n, prefix[p]);
	return buf;
}

void draw_fini(void)
{
	if (gvc)
		gvFreeContext(gvc);
	gvc = NULL;
}
