/*
 * tests/sim_graphs.c - contention graphs, charts and explanations
 * (sim/report/graphs.c, the gnuplot scripts, plots/plots.py, sim/report/):
 *
 *   1. explain's parts add up: for several locks and loads, the causes of
 *      the handoff time sum to the measured handoff time within 5%, no
 *      stretch of a handoff is left uncovered, and the handoffs it follows
 *      are exactly those the workload counted;
 *   2. explain tells locks apart the way their algorithms say: ttas's
 *      handoff is mostly queueing on the lock's line and stays in one
 *      socket, mcs's is not and does not; an idle lock's handoff is idle;
 *   3. `locklab-sim explain` prints its report, as a table and as CSV (its
 *      unfairness over every run, as `run` counts it; interrupts a part of
 *      their own, under tso and sc alike), and
 *      refuses what it cannot explain (exit 2, one line);
 *   4. `run --graphs DIR` writes the machine and handoff graphs; the DOT
 *      files parse (agread) with the expected nodes and edges, the SVG files
 *      are SVG with those nodes and a legend, the PNG files are PNG; above
 *      32 threads the handoff graph has a node per socket and stays narrow;
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

/* snprintf that fails the test rather than truncate. */
static void sfmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void sfmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		fail_msg("a path or command longer than %zu bytes", len);
}

static char *slurp(const char *path, size_t *len)
{
	char *buf = tl_slurp(path, len);

	if (!buf)
		fail_msg("cannot read %s", path);
	return buf;
}

/* The explained runs' workload: sections of 50 ns writing 2 lines, 1 ms. */
static void config(struct wl_config *cfg, uint64_t ncs, bool ncs_exp)
{
	tl_config(cfg, TOPO, 3);
	cfg->cs_ns = 50;
	cfg->ncs_ns = ncs;
	cfg->ncs_exp = ncs_exp;
	cfg->duration_ms = 1;
}

/* One explained run of lock with threads threads. */
static void explain(const char *lock, unsigned threads, uint64_t ncs, bool ncs_exp,
		    struct xp_report *rep)
{
	struct wl_config cfg;
	struct wl_run run;
	struct run_counters cnt;
	char err[256];

	config(&cfg, ncs, ncs_exp);
	assert_int_equal(sim_explain_arm(), 0);
	if (tl_run(&cfg, lock_find(lock), threads, 0, &run, &cnt, err, sizeof(err)))
		fail_msg("%s, %u threads: %s%s", lock, threads, err, run.failure);
	tl_done(&run);
	sim_explain_report(rep);
	sim_explain_disarm();
	print_message("%-12s t=%-2u ncs=%-5llu handoffs %5llu  handoff %8.1f ns  parts %8.1f ns  "
		      "queue %6.1f  data %6.1f  idle %6.1f  local share %.2f (fair %.2f)\n",
		      lock, threads, (unsigned long long)ncs, (unsigned long long)rep->handoffs,
		      rep->handoff_ns, rep->parts_sum_ns, rep->part_ns[XP_QUEUE], rep->part_ns[XP_DATA],
		      rep->part_ns[XP_IDLE], rep->local_frac, rep->fair_local_frac);
	tl_print_command(&cfg, "explain", lock, threads, 1, NULL);
}

static void expect_adds_up(const struct xp_report *r)
{
	assert_true(r->handoffs >= 50);
	assert_int_equal(r->handoffs, r->wl_handoffs);
	assert_true(r->handoff_ns > 0);
	for (unsigned p = 0; p < XP_NPARTS; p++)
		assert_true(r->part_ns[p] >= 0);
	if (fabs(r->parts_sum_ns - r->handoff_ns) > 0.05 * r->handoff_ns)
		fail_msg("parts %.1f ns against a measured handoff of %.1f ns", r->parts_sum_ns,
			 r->handoff_ns);
	assert_true(r->gap_ns <= 0.01 * r->handoff_ns);
	assert_true(r->acquire_ns > 0 && r->acquire_ns <= r->handoff_ns);
	assert_true(r->local_frac >= 0 && r->local_frac <= 1);
	assert_true(r->fair_local_frac > 0 && r->fair_local_frac <= 1);
}

/* Ends at the first '/' of "/bin" or "/build-x/bin": the source tree. */
static void tree_of(char *root, size_t len)
{
	char path[512];

	sfmt(root, len, "%s", bindir);
	for (int up = 0; up < 5; up++) {
		char *slash = strrchr(root, '/');

		sfmt(path, sizeof(path), "%s/plots/plots.py", root);
		if (access(path, R_OK) == 0)
			return;
		if (!slash)
			break;
		*slash = 0;
	}
	fail_msg("no plots/plots.py above %s", bindir);
}

/* ------------------------------------------------ 1, 2: explain */

static void test_parts_add_up(void **state)
{
	static const char *const locks[] = { "ttas", "ttas-backoff", "ticket", "mcs",
					     "clh", "qspinlock", NULL };
	struct xp_report r;

	for (const char *const *l = locks; *l; l++) {
		explain(*l, 16, 200, false, &r);
		expect_adds_up(&r);
		explain(*l, 24, 600, true, &r);
		expect_adds_up(&r);
	}
}

/* 24 threads, exponential 600 ns between sections: ttas's waiters queue
 * on the lock's line and the lock stays in the socket that holds the line;
 * mcs's waiters spin on their own lines.  2 threads with 5 us between
 * sections: the lock waits for its next taker (idle).  The test prints the
 * shares it asserts on. */
static void test_signatures(void **state)
{
	struct xp_report ttas, mcs, idle;

	explain("ttas", 24, 600, true, &ttas);
	explain("mcs", 24, 600, true, &mcs);
	explain("ticket", 2, 5000, false, &idle);
	expect_adds_up(&idle);
	print_message("  queue share: ttas %.2f, mcs %.2f; handoff ttas / mcs %.2f; ttas local "
		      "share / fair %.2f; idle share at 2 threads %.2f\n",
		      ttas.part_ns[XP_QUEUE] / ttas.handoff_ns, mcs.part_ns[XP_QUEUE] / mcs.handoff_ns,
		      ttas.handoff_ns / mcs.handoff_ns, ttas.local_frac / ttas.fair_local_frac,
		      idle.part_ns[XP_IDLE] / idle.handoff_ns);
	assert_true(ttas.part_ns[XP_QUEUE] > 0.35 * ttas.handoff_ns);
	assert_true(mcs.part_ns[XP_QUEUE] < 0.1 * mcs.handoff_ns);
	assert_true(ttas.handoff_ns > 1.2 * mcs.handoff_ns);
	assert_true(ttas.local_frac > 1.5 * ttas.fair_local_frac);
	assert_true(mcs.part_ns[XP_DATA] > 0); /* cs-lines 2 move with the lock */
	assert_true(idle.part_ns[XP_IDLE] > 0.5 * idle.handoff_ns);
}

/* ------------------------------------------------ 3: the command */

static double csv_value(const char *out, const char *key)
{
	char needle[64];
	const char *p;

	sfmt(needle, sizeof(needle), "\n%s,", key);
	p = strstr(out, needle);
	if (!p)
		fail_msg("no %s in\n%s", key, out);
	return strtod(p + strlen(needle), NULL);
}

static void test_explain_command(void **state)
{
	struct tl_proc p;
	const char *out;

	assert_int_equal(tl_sh(&p, "%s/locklab-sim explain --topo %s --lock ttas --threads 32 --runs 1",
			       bindir, TOPO), 0);
	out = p.out;
	fputs(out, stdout);
	for (const char *const *n = (const char *const[]){ "handoff time", "release -> acquisition",
							  "queueing on the line (the herd)",
							  "invalidation fan-out", "link congestion",
							  "protected data migration",
							  "line transfer, class 2", "sum of the parts",
							  "handoffs inside one socket",
							  "longest run inside one socket",
							  "acquisitions per thread", "in short: ",
							  "seed 1, 1 run of 2 ms\n", NULL };
	     *n; n++)
		if (!strstr(out, *n))
			fail_msg("explain's report lacks '%s'", *n);
	tl_proc_free(&p);
	assert_int_equal(tl_sh(&p, "%s/locklab-sim explain --topo %s --lock mcs --threads 8 --runs 2 "
			       "--format csv", bindir, TOPO), 0);
	out = p.out;
	assert_true(!strncmp(out, "what,value\n", 11));
	double h = csv_value(out, "handoff_ns"), s = csv_value(out, "parts_sum_ns");

	assert_true(h > 0 && fabs(s - h) <= 0.05 * h);
	assert_true(csv_value(out, "runs") == 2);
	assert_true(csv_value(out, "duration_ms") == 2 && csv_value(out, "cs_lines") == 1);
	assert_true(csv_value(out, "handoffs") == csv_value(out, "workload_handoffs"));
	tl_proc_free(&p);
}

/* Interrupts take the core for a while: their time is a part of its own,
 * under tso as under sc, and nothing is left uncovered or counted twice. */
static void test_explain_interrupts(void **state)
{
	static const char *const models[] = { "tso", "sc" };

	for (int m = 0; m < 2; m++) {
		struct tl_proc p;
		double h, s;

		assert_int_equal(tl_sh(&p, "%s/locklab-sim explain --topo %s --lock mcs --threads 8 "
				       "--runs 1 --duration 2 --irq-rate-hz 10000 --irq-us 20 "
				       "--memory-model %s --format csv", bindir, TOPO, models[m]), 0);
		h = csv_value(p.out, "handoff_ns");
		s = csv_value(p.out, "parts_sum_ns");
		print_message("    %s: handoff %.1f ns, parts %.1f ns, interrupts %.1f ns\n", models[m],
			      h, s, csv_value(p.out, "interrupts_ns"));
		assert_true(csv_value(p.out, "interrupts_ns") > 0.2 * h);
		assert_true(fabs(s - h) <= 0.01 * h);
		assert_true(csv_value(p.out, "uncovered_ns") < 0.01 * h);
		tl_proc_free(&p);
	}
}

/* Field k of a CSV line (0-based), or NULL. */
static const char *csv_field(const char *line, int k)
{
	for (; k > 0 && line; k--) {
		line = strchr(line, ',');
		line = line ? line + 1 : NULL;
	}
	return line;
}

/* Column col of a run's CSV over its rows: the most (max) or the mean. */
static double run_column(const char *csv, const char *col, bool max)
{
	char *copy = strdup(csv), *save = NULL;
	const char *head, *f;
	double acc = 0;
	int idx = -1, n = 0;

	assert_non_null(copy);
	head = strtok_r(copy, "\n", &save);
	for (int k = 0; (f = csv_field(head, k)); k++)
		if (!strncmp(f, col, strlen(col)) && (f[strlen(col)] == ',' || !f[strlen(col)]))
			idx = k;
	assert_true(idx >= 0);
	for (char *line; (line = strtok_r(NULL, "\n", &save)); n++) {
		const char *cell = csv_field(line, idx);
		double v;

		assert_non_null(cell);
		v = strtod(cell, NULL);

		acc = max ? (n && acc > v ? acc : v) : acc + v;
	}
	free(copy);
	assert_true(n > 0);
	return max ? acc : acc / n;
}

/* explain's unfairness figures cover every run, as run's table does: the
 * most threads starved in one run, and the mean of each run's Jain index. */
static void test_explain_spread_over_runs(void **state)
{
	struct tl_proc x, r;

	assert_int_equal(tl_sh(&x, "%s/locklab-sim explain --topo %s --lock ttas --threads 32 "
			       "--format csv", bindir, TOPO), 0);
	assert_int_equal(tl_sh(&r, "%s/locklab-sim run --topo %s --lock ttas --threads 32 --runs 3 "
			       "--format csv", bindir, TOPO), 0);
	assert_true(csv_value(x.out, "runs") == 3);
	assert_true(csv_value(x.out, "starved") == run_column(r.out, "starved", true));
	assert_true(csv_value(x.out, "starved") > 0);
	assert_true(fabs(csv_value(x.out, "jain") - run_column(r.out, "jain", false)) < 1e-3);
	tl_proc_free(&x);
	tl_proc_free(&r);
}

static void expect_bad(const char *args, const char *needle)
{
	struct tl_proc p;

	tl_sh(&p, "%s/locklab-sim %s", bindir, args);
	tl_expect_refused(&p, needle);
	tl_proc_free(&p);
}

static void test_explain_bad_input(void **state)
{
	char arg[512], path[300];
	FILE *f;

	expect_bad("explain --topo 4socket-ring --threads 8", "give one lock");
	expect_bad("explain --topo 4socket-ring --lock rwlock --threads 8", "mutex");
	expect_bad("explain --topo 4socket-ring --lock ttas --threads 2,4", "one thread count");
	expect_bad("explain --topo 4socket-ring --lock ttas --threads 1", "one thread count");
	expect_bad("explain --topo 4socket-ring --lock ttas --threads 4 --locks 2", "--locks");
	expect_bad("explain --topo 4socket-ring --lock ttas --threads 4 --format json", "--format");
	expect_bad("explain --topo 4socket-ring --lock ttas --threads 4 --csv x.csv", "--csv");
	expect_bad("explain --topo 4socket-ring --lock nosuch --threads 4", "nosuch");
	expect_bad("explain --topo 4socket-ring --lock ttas --threads 64", "cores");
	expect_bad("explain --topo 4socket-ring --lock ttas --threads 4 --bogus 1", "--bogus");
	sfmt(path, sizeof(path), "%s/afile", tl_tmpdir());
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	sfmt(arg, sizeof(arg), "run --topo 4socket-ring --lock ttas --threads 4 --graphs %s", path);
	expect_bad(arg, "not a directory");
	expect_bad("run --topo 4socket-ring --lock ttas --threads 4 --graphs ''", "--graphs");
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
	char *s = slurp(path, NULL);

	assert_non_null(strstr(s, "<svg"));
	assert_non_null(strstr(s, "</svg>"));
	for (; *titles; titles++) {
		char t[64];

		sfmt(t, sizeof(t), "<title>%s</title>", *titles);
		if (!strstr(s, t))
			fail_msg("%s lacks node %s", path, *titles);
	}
	free(s);
}

/* The graph's legend, titled with what its node colour means. */
static void expect_legend(const char *path, const char *meaning)
{
	char *s = slurp(path, NULL), want[160];

	sfmt(want, sizeof(want), "legend: node colour = %s", meaning);
	if (!strstr(s, want))
		fail_msg("%s lacks \"%s\"", path, want);
	free(s);
}

static void expect_png(const char *path)
{
	size_t len;
	char *s = slurp(path, &len);

	assert_true(len > 1000);
	assert_memory_equal(s, "\x89PNG\r\n\x1a\n", 8);
	free(s);
}

static void expect_machine(const char *stem)
{
	char path[512];
	Agraph_t *g;
	unsigned visible = 0;

	sfmt(path, sizeof(path), "%s-machine.dot", stem);
	g = read_dot(path);
	assert_int_equal(graph_nodes(g), 4 + 32); /* sockets and cores */
	assert_non_null(agnode(g, "socket0", 0));
	assert_non_null(agnode(g, "c31", 0));
	assert_non_null(agsubg(g, "cluster_socket3", 0));
	for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
		for (Agedge_t *e = agfstout(g, n); e; e = agnxtout(g, e)) {
			char *style = agget(e, "style");

			visible += !style || strcmp(style, "invis");
		}
	assert_int_equal(visible, 4); /* the ring's four links */
	agclose(g);
	sfmt(path, sizeof(path), "%s-machine.svg", stem);
	expect_svg(path, (const char *const[]){ "socket0", "socket3", "c0", "c31", NULL });
	expect_legend(path, "share of the run spent waiting");
	sfmt(path, sizeof(path), "%s-machine.png", stem);
	expect_png(path);
}

static void expect_handoff(const char *stem, unsigned threads)
{
	char path[512];
	Agraph_t *g;

	sfmt(path, sizeof(path), "%s-handoff.dot", stem);
	g = read_dot(path);
	assert_true(agisdirected(g));
	assert_int_equal(graph_nodes(g), threads);
	assert_true(agnedges(g) > 0);
	assert_non_null(agnode(g, "t0", 0));
	agclose(g);
	sfmt(path, sizeof(path), "%s-handoff.svg", stem);
	expect_svg(path, (const char *const[]){ "t0", "t7", NULL });
	expect_legend(path, "share of the run spent waiting");
	sfmt(path, sizeof(path), "%s-handoff.png", stem);
	expect_png(path);
}

static void test_graphs(void **state)
{
	char dir[300], stem[512];

	sfmt(dir, sizeof(dir), "%s/graphs", tl_tmpdir());
	assert_int_equal(tl_sh(NULL, "%s/locklab-sim run --topo %s --lock ttas,mcs --threads 8,32 "
				     "--runs 2 --duration 1 --graphs %s", bindir, TOPO, dir), 0);
	for (const char *const *l = (const char *const[]){ "ttas", "mcs", NULL }; *l; l++) {
		sfmt(stem, sizeof(stem), "%s/graph-%s-%s-32", dir, TOPO, *l);
		expect_machine(stem);
		expect_handoff(stem, 32);
		sfmt(stem, sizeof(stem), "%s/graph-%s-%s-8", dir, TOPO, *l);
		expect_handoff(stem, 8);
	}
}

/* The graph files are outputs like the others: one an overcommit sweep
 * writes per overcommit, a symbolic link or a directory in a graph's place
 * refused before the run (the link's target untouched). */
static void test_graph_files(void **state)
{
	char dir[300], path[512], *kept;
	FILE *f;

	sfmt(dir, sizeof(dir), "%s/graphs-vm", tl_tmpdir());
	assert_int_equal(tl_sh(NULL, "%s/locklab-sim run --topo %s --lock ticket --vm 8 --overcommit "
				     "1,2 --runs 1 --duration 2 --graphs %s", bindir, TOPO, dir), 0);
	for (const char *const *x = (const char *const[]){ "x1", "x2", NULL }; *x; x++) {
		sfmt(path, sizeof(path), "%s/graph-%s-ticket-8-%s-handoff.dot", dir, TOPO, *x);
		assert_int_equal(access(path, R_OK), 0);
	}
	sfmt(path, sizeof(path), "%s/target.txt", tl_tmpdir());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("kept\n", f);
	fclose(f);
	sfmt(dir, sizeof(dir), "%s/graphs-link", tl_tmpdir());
	assert_int_equal(mkdir(dir, 0777), 0);
	sfmt(path, sizeof(path), "%s/graph-%s-mcs-2-handoff.svg", dir, TOPO);
	assert_int_equal(symlink(tl_path("target.txt"), path), 0);
	sfmt(path, sizeof(path), "run --topo %s --lock mcs --threads 2 --runs 1 --duration 1 --graphs %s",
	     TOPO, dir);
	expect_bad(path, "a symbolic link");
	kept = slurp(tl_path("target.txt"), NULL);
	assert_string_equal(kept, "kept\n");
	free(kept);
	sfmt(path, sizeof(path), "%s/graph-%s-ttas-8-machine.dot", dir, TOPO);
	assert_int_equal(mkdir(path, 0777), 0);
	sfmt(path, sizeof(path), "explain --topo %s --lock ttas --threads 8 --runs 1 --duration 1 "
		  "--graphs %s", TOPO, dir);
	expect_bad(path, "a directory");
}

/* 80 threads on 8socket: a node per socket, self-loops for the handoffs
 * inside one, a width a screen can show. */
static void test_socket_graph(void **state)
{
	char dir[300], path[512];
	unsigned loops = 0;
	Agraph_t *g;
	char *svg;

	sfmt(dir, sizeof(dir), "%s/graphs80", tl_tmpdir());
	assert_int_equal(tl_sh(NULL, "%s/locklab-sim run --topo 8socket --lock mcs --threads 80 "
				     "--runs 1 --duration 1 --graphs %s", bindir, dir), 0);
	sfmt(path, sizeof(path), "%s/graph-8socket-mcs-80-handoff.dot", dir);
	g = read_dot(path);
	assert_true(graph_nodes(g) > 1 && graph_nodes(g) <= 8);
	assert_non_null(agnode(g, "s0", 0));
	assert_null(agnode(g, "t0", 0));
	for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
		for (Agedge_t *e = agfstout(g, n); e; e = agnxtout(g, e))
			loops += aghead(e) == agtail(e) && strstr(agget(e, "xlabel"), "%)");
	assert_true(loops > 0);
	agclose(g);
	sfmt(path, sizeof(path), "%s/graph-8socket-mcs-80-handoff.svg", dir);
	expect_svg(path, (const char *const[]){ "s0", "s7", NULL });
	expect_legend(path, "share of the run spent waiting");
	svg = slurp(path, NULL);
	print_message("  80-thread handoff graph: %.0f pt wide\n", svg_width_pt(svg));
	assert_true(svg_width_pt(svg) < 3000);
	assert_non_null(strstr(svg, "handoffs between sockets"));
	free(svg);
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

	sfmt(dir, sizeof(dir), "%s/waits", tl_tmpdir());
	assert_int_equal(graphs_set_dir(dir, err, sizeof(err)), 0);
	config(&cfg, 200, false);
	assert_int_not_equal(tl_run(&cfg, tl_never_lock(), 3, 0, &run, &cnt, err, sizeof(err)), 0);
	assert_non_null(strstr(run.failure, "deadlock"));
	tl_done(&run);
	graphs_fini();
	sim_explain_disarm();
	sfmt(path, sizeof(path), "%s/graph-%s-never-3-waits.dot", dir, TOPO);
	g = read_dot(path);
	for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n))
		if (strstr(agget(n, "label"), "lock+0"))
			line = n;
	assert_non_null(line);
	for (unsigned t = 0; t < 3; t++) {
		char name[8];
		Agnode_t *n;

		sfmt(name, sizeof(name), "t%u", t);
		n = agnode(g, name, 0);
		assert_non_null(n);
		for (Agedge_t *e = agfstout(g, n); e; e = agnxtout(g, e))
			waits += aghead(e) == line && !strcmp(agget(e, "xlabel"), "waits on");
	}
	assert_int_equal(waits, 3);
	agclose(g);
	sfmt(path, sizeof(path), "%s/graph-%s-never-3-waits.svg", dir, TOPO);
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

	sfmt(path, sizeof(path), "%s/threads.csv", tl_tmpdir());
	assert_int_equal(tl_sh(NULL, "%s/locklab-sim run --topo %s --lock ttas,mcs --threads 2,5 "
				     "--runs 2 --duration 1 --threads-csv %s >/dev/null",
			       bindir, TOPO, path), 0);
	s = slurp(path, NULL);
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
	sfmt(res, sizeof(res), "%s/results", tl_tmpdir());
	assert_int_equal(mkdir(res, 0777), 0);
	sfmt(a, sizeof(a), "%s/sim-%s.csv", res, TOPO);
	sim_csv("--lock ttas,mcs --threads 1,2,4 --runs 2", a);
	sfmt(a, sizeof(a), "%s/cs0.csv", tl_tmpdir());
	sfmt(b, sizeof(b), "%s/cs300.csv", tl_tmpdir());
	sfmt(c, sizeof(c), "%s/crossover-sim-%s.csv", res, TOPO);
	sim_csv("--lock ttas,mcs --threads 2,4 --runs 1 --cs 0", a);
	sim_csv("--lock ttas,mcs --threads 2,4 --runs 1 --cs 300", b);
	cat_csv(a, b, c);
	assert_int_equal(tl_sh(NULL, "%s/locklab-sim run --topo %s --lock ttas,mcs --threads 4 --runs 1 "
				     "--duration 1 --threads-csv %s/threads-sim-%s.csv >/dev/null",
			       bindir, TOPO, res, TOPO), 0);
	assert_int_equal(tl_sh(NULL, "python3 %s/plots/plots.py --results %s --topo %s --no-sweeps "
				     ">/dev/null", root, res, TOPO), 0);
	for (const char *const *ch = charts; *ch; ch++) {
		sfmt(path, sizeof(path), "%s/%s-%s.png", res, *ch, TOPO);
		expect_png(path);
		sfmt(path, sizeof(path), "%s/%s-%s.svg", res, *ch, TOPO);
		expect_svg(path, (const char *const[]){ NULL });
	}
	assert_int_equal(tl_sh(NULL, "python3 %s/plots/plots.py --results %s --only nosuch 2>/dev/null",
			       root, res), 2);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parts_add_up),
		cmocka_unit_test(test_signatures),
		cmocka_unit_test(test_explain_command),
		cmocka_unit_test(test_explain_interrupts),
		cmocka_unit_test(test_explain_spread_over_runs),
		cmocka_unit_test(test_explain_bad_input),
		cmocka_unit_test(test_graphs),
		cmocka_unit_test(test_graph_files),
		cmocka_unit_test(test_socket_graph),
		cmocka_unit_test(test_waits_graph),
		cmocka_unit_test(test_threads_csv),
		cmocka_unit_test(test_charts),
	};
	char *sg_argv[] = { argv[0], NULL };
	int sg_argc = 1, rc;
	char err[512];

	bindir = tl_bindir(argc, argv);
	if (tl_tmpdir_make()) {
		fprintf(stderr, "%s: cannot make a temporary directory\n", argv[0]);
		return 1;
	}
	if (backend_init(&sg_argc, sg_argv) || sim_load_topo(TOPO, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", argv[0], err);
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	backend_fini();
	if (!rc && tl_tmpdir_remove())
		fprintf(stderr, "%s: could not remove %s\n", argv[0], tl_tmpdir());
	return rc;
}
