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

/* Column name's index in the CSV header line hdr, or -1. */
static int column(const char *hdr, const char *name)
{
	size_t n = strlen(name);
	int i = 0;

	for (const char *p = hdr; p && *p; i++) {
		if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == '\n' || !p[n]))
			return i;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return -1;
}

/* Field i of the line at p. */
static double field(const char *p, int i)
{
	while (i-- > 0 && p)
		p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
	assert_non_null(p);
	return strtod(p, NULL);
}

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
	ct = column(p.out, "throughput_per_s");
	cm = column(p.out, "migrations");
	ci = column(p.out, "irqs");
	assert_true(ct >= 0);
	line = strchr(p.out, '\n');
	s->migrations = cm < 0 ? -1 : 0;
	s->irqs = ci < 0 ? -1 : 0;
	for (unsigned r = 0; r < RUNS; r++) {
		assert_non_null(line);
		line++;
		s->tput[r] = field(line, ct);
		if (cm >= 0)
			s->migrations += field(line, cm);
		if (ci >= 0)
			s->irqs += field(line, ci);
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

	assert_int_not_equal(tl_sh(&p, "%s/locklab-sim run --migrate-us x --threads 2", bindir), 0);
	tl_expect_refused(&p, "--migrate-us");
	tl_proc_free(&p);
	assert_int_not_equal(tl_sh(&p, "%s/locklab-sim run --lock-home far --threads 2", bindir), 0);
	tl_expect_refused(&p, "random");
	tl_proc_free(&p);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unpinned_varies_pinned_does_not),
		cmocka_unit_test(placement_alone_varies),
		cmocka_unit_test(one_seed_one_output),
		cmocka_unit_test(interrupts_on_pinned_threads),
		cmocka_unit_test(bad_values_are_refused),
	};

	bindir = tl_bindir(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
