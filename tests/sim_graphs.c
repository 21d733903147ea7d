/*
 * tests/sim_graphs.c - contention graphs and charts (sim/report/graphs*.c,
 * the gnuplot scripts, plots/plots.py); explain is tests/sim_explain.c:
 *
 *   4. `run --graphs DIR` writes the machine and handoff graphs; the DOT
 *      files parse (agread) with the expected nodes and edges, the SVG files
 *      are SVG with those nodes and a legend, the PNG files are PNG; above
 *      32 threads the handoff graph has a node per socket and stays narrow;
 *      graph directories that are not directories are refused;
 *   5. a deadlock writes the waits-for graph: who waits on which line;
 *   6. the chart scripts run on small CSV files (plots/plots.py and
 *      gnuplot), and `run --threads-csv` writes a row per thread.
 *
 * argv[1]: the bin/ directory holding locklab-sim.  The in-process runs use
 * topologies/4socket-ring.xml (one platform per process).
 */
#include "testlib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <graphviz/cgraph.h>

#include <locklab/backend.h>
#include <locklab/mem.h>
#include <locklab/workload.h>

#include "../sim/report/explain.h"
#include "../sim/report/graphs.h"
#include "../sim/sim.h"

#define TOPO "4socket-ring"

static const char *bindir;

/* Graphviz keeps its configuration, its dot layout loses a few of its
 * own edges, and fontconfig and pango keep their font caches for the life
 * of the process: not leaks of locklab's (this only matters in the
 * AddressSanitizer build). */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libfontconfig.so\nleak:libpango\nleak:libcairo.so\nleak:libglib-2.0.so\n"
	       "leak:libgvc.so\nleak:libgvplugin_dot_layout.so\n";
}

/* ------------------------------------------------ helpers */

/* Ends at the first '/' of "/bin" or "/build-x/bin": the source tree. */
static void tree_of(char *root, size_t len)
{
	char path[512];

	tl_fmt(root, len, "%s", bindir);
	for (int up = 0; up < 5; up++) {
		char *slash = strrchr(root, '/');

		tl_fmt(path, sizeof(path), "%s/plots/plots.py", root);
		if (access(path, R_OK) == 0)
			return;
		if (!slash)
			break;
		*slash = 0;
	}
	fail_msg("no plots/plots.py above %s", bindir);
}

/* ------------------------------------------------ 4, 5: graphs */

static Agraph_t *read_dot(const char *path)
{
	FILE *f = fopen(path, "r");
	Agraph_t *g;

	if (!f)
		fail_msg("no %s", path);
	g = agread(f, NULL);
	fclose(f);
	if (!g)
		fail_msg("%s does not parse as DOT", path);
	return g;
}

/* Nodes of g but those of its legend. */
static unsigned graph_nodes(Agraph_t *g)
{
	unsigned n = 0;

	for (Agnode_t *v = agfstnode(g); v; v = agnxtnode(g, v))
		n += strncmp(agnameof(v), "legend", 6) != 0;
	return n;
}

/* The SVG's width in points. */
static double svg_width_pt(const char *svg)
{
	const char *w = strstr(svg, "<svg width=\"");

	if (!w)
		fail_msg("no width attribute on <svg>");
	return strtod(w + strlen("<svg width=\""), NULL);
}

static void expect_svg(const char *path, const char *const *titles)
{
	char *s = tl_slurp_ok(path, NULL);

	assert_non_null(strstr(s, "<svg"));
	assert_non_null(strstr(s, "</svg>"));
	for (; *titles; titles++) {
		char t[64];

		tl_fmt(t, sizeof(t), "<title>%s</title>", *titles);
		if (!strstr(s, t))
			fail_msg("%s lacks node %s", path, *titles);
	}
	free(s);
}

/* The graph's legend, titled with what its node colour means. */
static void expect_legend(const char *path, const char *meaning)
{
	char *s = tl_slurp_ok(path, NULL), want[160];

	tl_fmt(want, sizeof(want), "legend: node colour = %s", meaning);
	if (!strstr(s, want))
		fail_msg("%s lacks \"%s\"", path, want);
	free(s);
}

static void expect_png(const char *path)
{
	size_t len;
	char *s = tl_slurp_ok(path, &len);

	assert_true(len > 1000);
	assert_memory_equal(s, "\x89PNG\r\n\x1a\n", 8);
	free(s);
}

static void expect_machine(const char *stem)
{
	char path[512];
	Agraph_t *g;
	unsigned visible = 0;

	tl_fmt(path, sizeof(path), "%s-machine.dot", stem);
	g = read_dot(path);
	assert_int_equal(graph_nodes(g), 4 + 32 + 1); /* sockets, cores, the link table */
	assert_non_null(agnode(g, "socket0", 0));
	{ /* the table names each link, the sockets it joins and its messages */
		Agnode_t *t = agnode(g, "links0", 0);
		const char *label = t ? agget(t, "label") : NULL;

		assert_non_null(label);
		assert_non_null(strstr(label, "messages per acquisition, both ways together"));
		assert_non_null(strstr(label, "socket 0 - socket 1"));
	}
	assert_non_null(agnode(g, "c31", 0));
	assert_non_null(agsubg(g, "cluster_socket3", 0));
	for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
		for (Agedge_t *e = agfstout(g, n); e; e = agnxtout(g, e)) {
			char *style = agget(e, "style");

			visible += !style || strcmp(style, "invis");
		}
	assert_int_equal(visible, 4); /* the ring's four links */
	agclose(g);
	tl_fmt(path, sizeof(path), "%s-machine.svg", stem);
	expect_svg(path, (const char *const[]){ "socket0", "socket3", "c0", "c31", NULL });
	expect_legend(path, "share of the run spent waiting");
	tl_fmt(path, sizeof(path), "%s-machine.png", stem);
	expect_png(path);
}

static void expect_handoff(const char *stem, unsigned threads)
{
	char path[512];
	Agraph_t *g;

	tl_fmt(path, sizeof(path), "%s-handoff.dot", stem);
	g = read_dot(path);
	assert_true(agisdirected(g));
	assert_int_equal(graph_nodes(g), threads);
	assert_true(agnedges(g) > 0);
	assert_non_null(agnode(g, "t0", 0));
	agclose(g);
	tl_fmt(path, sizeof(path), "%s-handoff.svg", stem);
	expect_svg(path, (const char *const[]){ "t0", "t7", NULL });
	expect_legend(path, "share of the run spent waiting");
	tl_fmt(path, sizeof(path), "%s-handoff.png", stem);
	expect_png(path);
}

/* The same command writes the same graph files, wherever they go (the
 * order of a graph's clusters once followed the heap: draw_ids.c). */
static void expect_same_files(const char *a, const char *b, const char *name)
{
	char pa[600], pb[600];
	size_t la = 0, lb = 0;
	char *x, *y;

	tl_fmt(pa, sizeof(pa), "%s/%s", a, name);
	tl_fmt(pb, sizeof(pb), "%s/%s", b, name);
	x = tl_slurp_ok(pa, &la);
	y = tl_slurp_ok(pb, &lb);
	if (la != lb || memcmp(x, y, la))
		fail_msg("%s and %s differ", pa, pb);
	free(x);
	free(y);
}

static void test_graphs(void **state)
{
	char dir[300], again[300], stem[512], name[128];

	tl_fmt(dir, sizeof(dir), "%s/graphs", tl_tmpdir());
	tl_fmt(again, sizeof(again), "%s/graphs-again-in-a-longer-path", tl_tmpdir());
	for (const char *const *d = (const char *const[]){ dir, again, NULL }; *d; d++) {
		struct tl_proc p;
		char said[400];

		assert_int_equal(tl_sh(&p, "%s/locklab-sim run --topo %s --lock ttas,mcs --threads "
					   "8,32 --runs 2 --duration 1 --graphs %s", bindir, TOPO, *d), 0);
		tl_fmt(said, sizeof(said), "--graphs %s: holds 8 graphs (.dot, .svg, .png)",
		       *d); /* the table says where they went: 2 locks, 2 counts, 2 kinds */
		assert_non_null(strstr(p.out, said));
		tl_proc_free(&p);
	}
	for (const char *const *l = (const char *const[]){ "ttas", "mcs", NULL }; *l; l++) {
		tl_fmt(stem, sizeof(stem), "%s/graph-%s-%s-32", dir, TOPO, *l);
		expect_machine(stem);
		expect_handoff(stem, 32);
		tl_fmt(stem, sizeof(stem), "%s/graph-%s-%s-8", dir, TOPO, *l);
		expect_handoff(stem, 8);
		for (const char *const *k = (const char *const[]){ "machine.dot", "handoff.dot",
								   "handoff.svg", NULL }; *k; k++) {
			tl_fmt(name, sizeof(name), "graph-%s-%s-32-%s", TOPO, *l, *k);
			expect_same_files(dir, again, name);
		}
	}
}

/* The graph files are outputs like the others: one an overcommit sweep
 * writes per overcommit, explain's named under its report, a symbolic link or a directory in a graph's place
 * refused before the run (the link's target untouched), as a --graphs that
 * is a file or empty; a directory made for a refused command is removed. */
static void test_graph_files(void **state)
{
	char dir[300], path[512], arg[600], *kept;
	FILE *f;

	tl_fmt(dir, sizeof(dir), "%s/graphs-vm", tl_tmpdir());
	assert_int_equal(tl_sh(NULL, "%s/locklab-sim run --topo %s --lock ticket --vm 8 --overcommit "
				     "1,2 --runs 1 --duration 2 --graphs %s", bindir, TOPO, dir), 0);
	for (const char *const *x = (const char *const[]){ "x1", "x2", NULL }; *x; x++) {
		tl_fmt(path, sizeof(path), "%s/graph-%s-ticket-8-%s-handoff.dot", dir, TOPO, *x);
		assert_int_equal(access(path, R_OK), 0);
	}
	tl_fmt(dir, sizeof(dir), "%s/graphs-explain", tl_tmpdir());
	{ /* explain says where its graphs went, as run does */
		struct tl_proc p;

		assert_int_equal(tl_sh(&p, "%s/locklab-sim explain --topo %s --lock ticket --threads 4 "
					   "--runs 1 --duration 1 --graphs %s", bindir, TOPO, dir), 0);
		tl_fmt(arg, sizeof(arg), "--graphs %s: holds 2 graphs (.dot, .svg, .png), the last "
					 "run's", dir);
		assert_non_null(strstr(p.out, arg));
		tl_proc_free(&p);
	}
	tl_fmt(path, sizeof(path), "%s/target.txt", tl_tmpdir());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("kept\n", f);
	fclose(f);
	tl_fmt(dir, sizeof(dir), "%s/graphs-link", tl_tmpdir());
	assert_int_equal(mkdir(dir, 0777), 0);
	tl_fmt(path, sizeof(path), "%s/graph-%s-mcs-2-handoff.svg", dir, TOPO);
	assert_int_equal(symlink(tl_path("target.txt"), path), 0);
	tl_fmt(path, sizeof(path), "run --topo %s --lock mcs --threads 2 --runs 1 --duration 1 --graphs %s",
	     TOPO, dir);
	tl_sim_refused(bindir, path, "a symbolic link");
	kept = tl_slurp_ok(tl_path("target.txt"), NULL);
	assert_string_equal(kept, "kept\n");
	free(kept);
	tl_fmt(path, sizeof(path), "%s/graph-%s-ttas-8-machine.dot", dir, TOPO);
	assert_int_equal(mkdir(path, 0777), 0);
	tl_fmt(path, sizeof(path), "explain --topo %s --lock ttas --threads 8 --runs 1 --duration 1 "
		  "--graphs %s", TOPO, dir);
	tl_sim_refused(bindir, path, "a directory");
	tl_fmt(path, sizeof(path), "%s/afile", tl_tmpdir());
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	tl_fmt(arg, sizeof(arg), "run --topo %s --lock ttas --threads 4 --graphs %s", TOPO, path);
	tl_sim_refused(bindir, arg, "not a directory");
	tl_sim_refused(bindir, "run --topo 4socket-ring --lock ttas --threads 4 --graphs ''", "--graphs");
	/* a command refused before its runs leaves no directory it made */
	tl_fmt(arg, sizeof(arg), "run --topo %s --lock ttas --threads 99 --graphs %s/never", TOPO,
	       tl_tmpdir());
	tl_sim_refused(bindir, arg, "--threads 99");
	assert_int_not_equal(access(tl_path("never"), F_OK), 0);
}

/* 80 threads on 8socket: a node per socket, self-loops for the handoffs
 * inside one, a width a screen can show. */
static void test_socket_graph(void **state)
{
	char dir[300], path[512];
	unsigned loops = 0;
	Agraph_t *g;
	char *svg;

	tl_fmt(dir, sizeof(dir), "%s/graphs80", tl_tmpdir());
	assert_int_equal(tl_sh(NULL, "%s/locklab-sim run --topo 8socket --lock mcs --threads 80 "
				     "--runs 1 --duration 1 --graphs %s", bindir, dir), 0);
	tl_fmt(path, sizeof(path), "%s/graph-8socket-mcs-80-handoff.dot", dir);
	g = read_dot(path);
	assert_true(graph_nodes(g) > 1 && graph_nodes(g) <= 8);
	assert_non_null(agnode(g, "s0", 0));
	assert_null(agnode(g, "t0", 0));
	for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
		for (Agedge_t *e = agfstout(g, n); e; e = agnxtout(g, e))
			loops += aghead(e) == agtail(e) && strstr(agget(e, "xlabel"), "%)");
	assert_true(loops > 0);
	agclose(g);
	tl_fmt(path, sizeof(path), "%s/graph-8socket-mcs-80-handoff.svg", dir);
	expect_svg(path, (const char *const[]){ "s0", "s7", NULL });
	expect_legend(path, "share of the run spent waiting");
	svg = tl_slurp_ok(path, NULL);
	print_message("  80-thread handoff graph: %.0f pt wide\n", svg_width_pt(svg));
	assert_true(svg_width_pt(svg) < 3000);
	assert_non_null(strstr(svg, "handoffs between sockets"));
	free(svg);
}

/* Threads that migrate (--pin none): the handoff graph's share inside one
 * socket is the run's own (its CSV's handoff_local_frac), each handoff
 * counted where its threads were when it happened; it was once taken from
 * the sockets the threads ended on (62% where the run had 84%). */
static void test_graph_share_under_migration(void **state)
{
	char dir[300], path[512], want[32];
	struct tl_proc p;
	const char *last;
	char *dot;

	tl_fmt(dir, sizeof(dir), "%s/graphs-moved", tl_tmpdir());
	assert_int_equal(tl_sh(&p, "%s/locklab-sim run --topo %s --lock ttas --threads 8 --pin none "
				   "--runs 5 --graphs %s --format csv", bindir, TOPO, dir), 0);
	last = strrchr(p.out, '\n');
	while (last > p.out && last[-1] != '\n')
		last--;
	assert_true(last > p.out);
	/* the last run's handoff_local_frac (column 21), as the title writes it */
	{
		const char *f = last;

		for (int k = 0; k < 20; k++)
			f = strchr(f, ',') + 1;
		snprintf(want, sizeof(want), "%.1f%% inside one socket", 100 * strtod(f, NULL));
	}
	tl_fmt(path, sizeof(path), "%s/graph-%s-ttas-8-handoff.dot", dir, TOPO);
	dot = tl_slurp_ok(path, NULL);
	for (char *w = dot, *r = dot;; r++) { /* dot breaks long strings with "\\\n" */
		if (r[0] == '\\' && r[1] == '\n') {
			r++;
			continue;
		}
		if (!(*w++ = *r))
			break;
	}
	if (!strstr(dot, want))
		fail_msg("the handoff graph does not say the run's '%s'", want);
	assert_non_null(strstr(dot, "threads migrate"));
	free(dot);
	tl_proc_free(&p);
}

static void test_waits_graph(void **state)
{
	char dir[300], path[512], err[256];
	struct wl_config cfg;
	struct wl_run run;
	struct run_counters cnt;
	Agraph_t *g;
	Agnode_t *line = NULL;
	unsigned waits = 0;

	tl_fmt(dir, sizeof(dir), "%s/waits", tl_tmpdir());
	assert_int_equal(graphs_set_dir(dir, err, sizeof(err)), 0);
	tl_config(&cfg, TOPO, 3);
	cfg.cs_ns = 50;
	cfg.ncs_ns = 200;
	cfg.duration_ms = 1;
	assert_int_not_equal(tl_run(&cfg, tl_never_lock(), 3, 0, &run, &cnt, err, sizeof(err)), 0);
	assert_non_null(strstr(run.failure, "deadlock"));
	tl_done(&run);
	graphs_fini();
	sim_explain_disarm();
	tl_fmt(path, sizeof(path), "%s/graph-%s-never-3-waits.dot", dir, TOPO);
	g = read_dot(path);
	for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
		if (strstr(agget(n, "label"), "lock+0"))
			line = n;
	assert_non_null(line);
	for (unsigned t = 0; t < 3; t++) {
		char name[8];
		Agnode_t *n;

		tl_fmt(name, sizeof(name), "t%u", t);
		n = agnode(g, name, 0);
		assert_non_null(n);
		for (Agedge_t *e = agfstout(g, n); e; e = agnxtout(g, e))
			waits += aghead(e) == line && !strcmp(agget(e, "xlabel"), "waits on");
	}
	assert_int_equal(waits, 3);
	agclose(g);
	tl_fmt(path, sizeof(path), "%s/graph-%s-never-3-waits.svg", dir, TOPO);
	expect_svg(path, (const char *const[]){ "t0", "t2", NULL });
	expect_legend(path, "what the thread was doing");
}

/* ------------------------------------------------ 6: charts */

static void sim_csv(const char *args, const char *csv)
{
	assert_int_equal(tl_sh(NULL, "%s/locklab-sim run --topo %s --duration 1 %s --csv %s >/dev/null",
			       bindir, TOPO, args, csv), 0);
}

static void cat_csv(const char *a, const char *b, const char *to)
{
	assert_int_equal(tl_sh(NULL, "cat %s > %s && tail -n +2 %s >> %s", a, to, b, to), 0);
}

static void test_threads_csv(void **state)
{
	char path[300], *s, *line;
	unsigned rows = 0;

	tl_fmt(path, sizeof(path), "%s/threads.csv", tl_tmpdir());
	assert_int_equal(tl_sh(NULL, "%s/locklab-sim run --topo %s --lock ttas,mcs --threads 2,5 "
				     "--runs 2 --duration 1 --threads-csv %s >/dev/null",
			       bindir, TOPO, path), 0);
	s = tl_slurp_ok(path, NULL);
	assert_true(!strncmp(s, "backend,topo,lock,threads,", 26));
	assert_non_null(strstr(s, ",tid,cpu,node,acquisitions,"));
	for (line = strchr(s, '\n'); line && line[1]; line = strchr(line + 1, '\n'))
		rows++;
	assert_int_equal(rows, 2 * 2 * (2 + 5)); /* locks x runs x threads */
	free(s);
}

static void test_charts(void **state)
{
	char root[512], res[300], a[320], b[320], c[320], path[400];
	static const char *const charts[] = { "throughput", "jain", "waits", "traffic",
					      "acquisitions", "crossover", NULL };

	assert_int_equal(system("command -v gnuplot >/dev/null"), 0);
	tree_of(root, sizeof(root));
	tl_fmt(res, sizeof(res), "%s/results", tl_tmpdir());
	assert_int_equal(mkdir(res, 0777), 0);
	tl_fmt(a, sizeof(a), "%s/sim-%s.csv", res, TOPO);
	sim_csv("--lock ttas,mcs --threads 1,2,4 --runs 2", a);
	tl_fmt(a, sizeof(a), "%s/cs0.csv", tl_tmpdir());
	tl_fmt(b, sizeof(b), "%s/cs300.csv", tl_tmpdir());
	tl_fmt(c, sizeof(c), "%s/crossover-sim-%s.csv", res, TOPO);
	sim_csv("--lock ttas,mcs --threads 2,4 --runs 1 --cs 0", a);
	sim_csv("--lock ttas,mcs --threads 2,4 --runs 1 --cs 300", b);
	cat_csv(a, b, c);
	assert_int_equal(tl_sh(NULL, "%s/locklab-sim run --topo %s --lock ttas,mcs --threads 4 --runs 1 "
				     "--duration 1 --threads-csv %s/threads-sim-%s.csv >/dev/null",
			       bindir, TOPO, res, TOPO), 0);
	assert_int_equal(tl_sh(NULL, "python3 %s/plots/plots.py --results %s --topo %s --no-sweeps "
				     ">/dev/null", root, res, TOPO), 0);
	for (const char *const *ch = charts; *ch; ch++) {
		tl_fmt(path, sizeof(path), "%s/%s-%s.png", res, *ch, TOPO);
		expect_png(path);
		tl_fmt(path, sizeof(path), "%s/%s-%s.svg", res, *ch, TOPO);
		expect_svg(path, (const char *const[]){ NULL });
	}
	assert_int_equal(tl_sh(NULL, "python3 %s/plots/plots.py --results %s --only nosuch 2>/dev/null",
			       root, res), 2);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_graphs),
		cmocka_unit_test(test_graph_files),
		cmocka_unit_test(test_socket_graph),
		cmocka_unit_test(test_graph_share_under_migration),
		cmocka_unit_test(test_waits_graph),
		cmocka_unit_test(test_threads_csv),
		cmocka_unit_test(test_charts),
	};

	bindir = tl_bindir(argc, argv);
	return tl_group_on(argv[0], TOPO, tests, sizeof(tests) / sizeof(tests[0]));
}
