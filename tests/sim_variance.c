/*
 * tests/sim_variance.c - run-to-run variance of unpinned runs
 * (docs/variance.md): ttas with 8 threads on 4socket-ring, 5 runs (5 run
 * seeds) of 2 ms each.  Pinned (compact: all on socket 0) the runs agree;
 * unpinned (--pin none: a fresh placement per run, migrations, interrupts,
 * the lock's home drawn per run) sigma/mean is far larger.  With the
 * migrations, the interrupts and the random home switched off, the
 * placement alone still varies, and the counters say nothing moved.  One
 * seed gives one output.  Either interrupt option puts interrupts on pinned
 * threads; a length without a rate, or a rate without a length, is refused.
 * --pin node:N (bound to a socket as a set) places and moves the threads as
 * --pin none does, inside that socket; a migration never puts two threads
 * on one core's siblings while a physical core is idle.
 *
 * At 32 threads the machine is full, every placement uses every core, and
 * ttas is bimodal pinned as unpinned (docs/variance.md): the test runs 8.
 *
 * argv[1]: the bin/ directory of locklab-sim.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define RUNS 5
#define BASE "run --topo 4socket-ring --lock ttas --threads 8 --duration 2 --runs 5 --format csv"

static const char *bindir;

struct sweep {
	double tput[RUNS];
	double migrations, irqs; /* summed over the runs; -1: no column */
	char *out;
};

static void run_sweep(const char *extra, struct sweep *s)
{
	struct tl_proc p;
	const char *line;
	int ct, cm, ci;

	assert_int_equal(tl_sh(&p, "%s/locklab-sim " BASE " %s", bindir, extra), 0);
	ct = tl_csv_column(p.out, "throughput_per_s");
	cm = tl_csv_column(p.out, "migrations");
	ci = tl_csv_column(p.out, "irqs");
	assert_true(ct >= 0);
	line = strchr(p.out, '\n');
	s->migrations = cm < 0 ? -1 : 0;
	s->irqs = ci < 0 ? -1 : 0;
	for (unsigned r = 0; r < RUNS; r++) {
		assert_non_null(line);
		line++;
		s->tput[r] = tl_csv_field(line, ct);
		if (cm >= 0)
			s->migrations += tl_csv_field(line, cm);
		if (ci >= 0)
			s->irqs += tl_csv_field(line, ci);
		line = strchr(line, '\n');
	}
	s->out = p.out;
	free(p.err);
}

static double cv(const double *v, unsigned n)
{
	double m = 0, var = 0;

	for (unsigned i = 0; i < n; i++)
		m += v[i] / n;
	for (unsigned i = 0; i < n; i++)
		var += (v[i] - m) * (v[i] - m) / (n - 1);
	return sqrt(var) / m;
}

static void unpinned_varies_pinned_does_not(void **state)
{
	struct sweep pinned, unpinned;

	run_sweep("--pin compact", &pinned);
	run_sweep("--pin none", &unpinned);
	printf("# sigma/mean pinned %.4f unpinned %.4f\n", cv(pinned.tput, RUNS),
	       cv(unpinned.tput, RUNS));
	assert_true(cv(pinned.tput, RUNS) < 0.01);
	assert_true(cv(unpinned.tput, RUNS) > 0.05);
	assert_true(cv(unpinned.tput, RUNS) > 5 * cv(pinned.tput, RUNS));
	/* pinned output has no noise columns; unpinned counts its noise */
	assert_true(pinned.migrations < 0 && pinned.irqs < 0);
	assert_true(unpinned.migrations > 0 && unpinned.irqs > 0);
	free(pinned.out);
	free(unpinned.out);
}

static void placement_alone_varies(void **state)
{
	struct sweep s;

	run_sweep("--pin none --migrate-us 0 --irq-rate-hz 0 --lock-home same", &s);
	printf("# sigma/mean placement only %.4f\n", cv(s.tput, RUNS));
	assert_true(cv(s.tput, RUNS) > 0.02);
	assert_true(s.migrations <= 0 && s.irqs <= 0);
	free(s.out);
}

static void one_seed_one_output(void **state)
{
	struct sweep a, b;

	run_sweep("--pin none --seed 7", &a);
	run_sweep("--pin none --seed 7", &b);
	assert_string_equal(a.out, b.out);
	free(a.out);
	free(b.out);
}

/* The interrupts' rate and length go together: either one given puts
 * interrupts on pinned threads, the other at its default. */
static void interrupts_on_pinned_threads(void **state)
{
	struct sweep rate, len;

	run_sweep("--pin compact --irq-rate-hz 1000", &rate);
	run_sweep("--pin compact --irq-us 5", &len);
	assert_true(rate.migrations == 0 && rate.irqs > 0);
	assert_true(len.migrations == 0 && len.irqs > 0);
	free(rate.out);
	free(len.out);
}

/* Rows "run,tid,cpu,node" of a --threads-csv file: cpu[r][tid], node[r][tid]. */
static void read_threads_csv(const char *path, unsigned nthreads, unsigned cpu[RUNS][8],
			     unsigned node[RUNS][8])
{
	FILE *f = fopen(path, "r");
	char line[512];
	int cr = -1, ct = -1, cc = -1, cn = -1;
	unsigned rows = 0;

	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	cr = tl_csv_column(line, "run");
	ct = tl_csv_column(line, "tid");
	cc = tl_csv_column(line, "cpu");
	cn = tl_csv_column(line, "node");
	assert_true(cr >= 0 && ct >= 0 && cc >= 0 && cn >= 0);
	while (fgets(line, sizeof(line), f)) {
		unsigned r = (unsigned)tl_csv_field(line, cr), t = (unsigned)tl_csv_field(line, ct);

		assert_true(r < RUNS && t < nthreads && t < 8);
		cpu[r][t] = (unsigned)tl_csv_field(line, cc);
		node[r][t] = (unsigned)tl_csv_field(line, cn);
		rows++;
	}
	fclose(f);
	assert_int_equal(rows, RUNS * nthreads);
}

/* node:2 on 4socket-ring (8 cores a socket): every thread of every run on
 * socket 2, a fresh placement per run, the noise counted, and the runs as
 * close as pinned ones (docs/variance.md, "Bound to one socket"). */
static void node_places_within_its_socket(void **state)
{
	char csv[600];
	unsigned cpu[RUNS][8], node[RUNS][8];
	bool moved = false;
	struct sweep s;

	/* the placement alone: a fresh one per run */
	snprintf(csv, sizeof(csv), "--pin node:2 --migrate-us 0 --irq-rate-hz 0 --threads-csv %s/node.csv",
		 tl_tmpdir());
	run_sweep(csv, &s);
	free(s.out);
	snprintf(csv, sizeof(csv), "%s/node.csv", tl_tmpdir());
	read_threads_csv(csv, 8, cpu, node);
	for (unsigned r = 0; r < RUNS; r++)
		for (unsigned t = 0; t < 8; t++) {
			assert_int_equal(node[r][t], 2);
			moved |= cpu[r][t] != cpu[0][t];
			for (unsigned u = 0; u < t; u++) /* one thread a core */
				assert_int_not_equal(cpu[r][t], cpu[r][u]);
		}
	assert_true(moved);
	/* the noise, by default */
	run_sweep("--pin node:2", &s);
	assert_true(s.migrations > 0 && s.irqs > 0);
	/* the socket full, only who sits where differs: as little as compact */
	printf("# sigma/mean node:2 %.4f\n", cv(s.tput, RUNS));
	assert_true(cv(s.tput, RUNS) < 0.01);
	free(s.out);
}

/* n ttas threads bound to socket 0 of 4socket-ring-ht (8 cores of 2
 * threads: host j of a socket is thread j / 8 of core j % 8), 5 runs with
 * the options opts: each run's physical cores at its end (phys[r][t]) and
 * the migrations of all runs. */
static double socket0_cores(unsigned n, const char *opts, unsigned phys[RUNS][8])
{
	struct tl_proc p;
	char csv[600];
	unsigned cpu[RUNS][8], node[RUNS][8];
	int cm;
	double migrations = 0;
	const char *line;

	snprintf(csv, sizeof(csv), "%s/smt.csv", tl_tmpdir());
	assert_int_equal(tl_sh(&p, "%s/locklab-sim run --topo 4socket-ring-ht --lock ttas --threads %u "
				   "--duration 2 --runs 5 --pin node:0 --format csv %s --threads-csv %s",
			       bindir, n, opts, csv), 0);
	cm = tl_csv_column(p.out, "migrations");
	assert_true(cm >= 0);
	line = strchr(p.out, '\n');
	for (unsigned r = 0; r < RUNS; r++, line = strchr(line + 1, '\n')) {
		assert_non_null(line);
		migrations += tl_csv_field(line + 1, cm);
	}
	tl_proc_free(&p);
	read_threads_csv(csv, n, cpu, node);
	for (unsigned r = 0; r < RUNS; r++)
		for (unsigned t = 0; t < n; t++) {
			assert_int_equal(node[r][t], 0);
			phys[r][t] = cpu[r][t] % 8;
		}
	return migrations;
}

/* Moved every 20 us of their run, 6 or 8 threads on socket 0's 8 cores:
 * no two ever end on one core's siblings (a move goes to an idle physical
 * core, or swaps), and the moves are real, to another physical core than
 * the run's placement (the same run without migrations) gave: never a hop
 * to a sibling of the thread's own core.  (Moves to any idle hardware
 * thread would leave a run of 8 without a shared core 2% of the time.) */
static void migrations_keep_siblings_apart(void **state)
{
	static const unsigned counts[] = { 6, 8 };

	for (unsigned k = 0; k < 2; k++) {
		unsigned n = counts[k], placed[RUNS][8], moved[RUNS][8];
		bool changed = false;

		assert_true(socket0_cores(n, "--migrate-us 0", placed) == 0);
		assert_true(socket0_cores(n, "--migrate-us 20", moved) > 0);
		for (unsigned r = 0; r < RUNS; r++)
			for (unsigned t = 0; t < n; t++) {
				changed |= moved[r][t] != placed[r][t];
				for (unsigned u = 0; u < t; u++)
					assert_int_not_equal(moved[r][t], moved[r][u]);
			}
		assert_true(changed);
	}
}

static void bad_values_are_refused(void **state)
{
	struct tl_proc p;

	/* a length without interrupts, or interrupts of no length, mean nothing */
	assert_int_not_equal(tl_sh(&p, "%s/locklab-sim " BASE " --irq-rate-hz 0 --irq-us 5", bindir), 0);
	tl_expect_refused(&p, "--irq-us 5: means nothing with --irq-rate-hz 0");
	tl_proc_free(&p);
	assert_int_not_equal(tl_sh(&p, "%s/locklab-sim " BASE " --irq-rate-hz 9 --irq-us 0", bindir), 0);
	tl_expect_refused(&p, "--irq-rate-hz 9: means nothing with --irq-us 0");
	tl_proc_free(&p);
	/* interrupts that would hold a core all of the time (1000 x 1 ms) */
	assert_int_not_equal(tl_sh(&p, "%s/locklab-sim " BASE " --irq-rate-hz 1000 --irq-us 1000",
				   bindir), 0);
	tl_expect_refused(&p, "interrupts would take the whole of a core");
	tl_proc_free(&p);

	assert_int_not_equal(tl_sh(&p, "%s/locklab-sim run --migrate-us x --threads 2", bindir), 0);
	tl_expect_refused(&p, "--migrate-us");
	tl_proc_free(&p);
	assert_int_not_equal(tl_sh(&p, "%s/locklab-sim run --lock-home far --threads 2", bindir), 0);
	tl_expect_refused(&p, "random");
	tl_proc_free(&p);
	assert_int_not_equal(tl_sh(&p, "%s/locklab-sim " BASE " --pin node:4", bindir), 0);
	tl_expect_refused(&p, "--pin node:4: topology 4socket-ring has 4 sockets (0..3)");
	tl_proc_free(&p);
	assert_int_not_equal(tl_sh(&p, "%s/locklab-sim run --topo 4socket-ring --threads 9 --pin node:1",
				   bindir), 0);
	tl_expect_refused(&p, "--threads 9: socket 1 of topology 4socket-ring has 8 cores");
	tl_proc_free(&p);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unpinned_varies_pinned_does_not),
		cmocka_unit_test(placement_alone_varies),
		cmocka_unit_test(one_seed_one_output),
		cmocka_unit_test(interrupts_on_pinned_threads),
		cmocka_unit_test(node_places_within_its_socket),
		cmocka_unit_test(migrations_keep_siblings_apart),
		cmocka_unit_test(bad_values_are_refused),
	};

	bindir = tl_bindir(argc, argv);
	return cmocka_run_group_tests(tests, tl_tmpdir_setup, tl_tmpdir_teardown);
}
