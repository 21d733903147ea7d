/*
 * tests/sim_every_lock.c - every lock of `locklab-sim list`, through the
 * binary, the way a new lock is tried:
 *
 *   - determinism: one sweep of every lock with one seed, in two processes
 *     (whose addresses differ: the kernel randomises them), prints the same
 *     CSV, in four settings: compact; compact with latencies drawn around
 *     the table's (--lat-spread); --pin none with migrations and
 *     interrupts; a guest at 2x beside busy co-guests.  The next seed must
 *     change it, or the comparison says nothing.  A lock whose behaviour
 *     hangs on an address (a hash of a pointer) fails here.
 *   - liveness where interleavings are perturbed: every lock, at 2, 5 and 9
 *     threads and 16 seeds each, with --ops (every thread must make its
 *     acquisitions), in settings that reorder its threads' accesses: the
 *     memory models sc and pso, quanta of 0 and of 1000 ns with fifo
 *     arbitration, --pin none with a migration every 20 us and 50000
 *     interrupts a second, owners that keep a line while a snoop travels
 *     (--snoop-travel 100 and 50, the latter under pso), latencies drawn
 *     from half to one and a half times the table's (--lat-spread 50), a
 *     guest at 2x whose
 *     vCPUs run slices of 50 us.
 *     Every run must end with every thread's acquisitions made: a lost
 *     wake-up ends a run at the watchdog, a deadlock at its detector, and
 *     either fails the sweep.  What it cannot reach: a race that needs a
 *     store buffer on a path a lock takes only in a guest (--vm runs are
 *     sequentially consistent, and without --vm pv-ticket's waiters seldom
 *     spin out their 327 us and halt), and windows narrower than these
 *     settings open; `locklab-sim check` holds stores back on purpose.
 *
 * A failure names the setting and prints the binary's own lines, which name
 * the lock, the thread count and the run.  The sanitizer builds, which run
 * the same binary, take 2 seeds of the 16.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testlib.h"

#define OPS 100

/* The sanitizer builds run the same binary (bin/): they take two seeds. */
static unsigned seeds;

static const char *bindir;
static char locks[1024]; /* every lock of `list`, comma-separated */
static unsigned nlocks;

/* The first word of each line of `list`. */
static void read_locks(void)
{
	struct tl_proc p;
	const char *s;

	assert_int_equal(tl_sh(&p, "%s/locklab-sim list", bindir), 0);
	locks[0] = 0;
	nlocks = 0;
	for (s = p.out; *s; s = strchr(s, '\n') + 1) {
		size_t n = strcspn(s, " \n");

		assert_true(strlen(locks) + n + 2 < sizeof(locks));
		if (nlocks++)
			strcat(locks, ",");
		strncat(locks, s, n);
		if (!strchr(s, '\n'))
			break;
	}
	tl_proc_free(&p);
	assert_true(nlocks >= 20);
}

static int setup(void **state)
{
	(void)state;
	read_locks();
	return 0;
}

/* ------------------------------------------------------------ determinism */

static const char *const settings[] = {
	"--threads 3,8",
	"--threads 3,8 --lat-spread 20",
	"--threads 3,8 --pin none",
	"--vm 8 --overcommit 2 --co-guests busy --slice-us 200",
};

static void sweep(struct tl_proc *p, const char *setting, unsigned seed)
{
	int rc = tl_sh(p, "%s/locklab-sim run --topo 4socket --lock %s %s --runs 1 --duration 1 "
			  "--ncs exp:300 --format csv --seed %u",
		       bindir, locks, setting, seed);

	if (rc)
		fail_msg("%s, seed %u: exit %d: %s", setting, seed, rc, p->err);
}

/* The CSV with its seed column blanked, to compare two seeds' numbers. */
static char *without_seeds(const char *csv, unsigned seed)
{
	char *out = strdup(csv), *hit, pat[32];
	size_t n = (size_t)snprintf(pat, sizeof(pat), ",%u,0,", seed);

	assert_non_null(out);
	for (hit = strstr(out, pat); hit; hit = strstr(hit + 1, pat))
		memset(hit + 1, 'x', n - 4);
	return out;
}

static void every_lock_deterministic(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(settings) / sizeof(settings[0]); k++) {
		struct tl_proc a, b, c;
		char *x, *y;

		sweep(&a, settings[k], 7);
		sweep(&b, settings[k], 7);
		sweep(&c, settings[k], 8);
		assert_true(strlen(a.out) > 1000);
		if (strcmp(a.out, b.out))
			fail_msg("%s: seed 7 in two processes printed two CSVs", settings[k]);
		x = without_seeds(a.out, 7);
		y = without_seeds(c.out, 8);
		if (!strcmp(x, y))
			fail_msg("%s: seeds 7 and 8 gave the same numbers", settings[k]);
		free(x);
		free(y);
		tl_proc_free(&a);
		tl_proc_free(&b);
		tl_proc_free(&c);
	}
}

/* ------------------------------------------------------------ liveness */

static const char *const perturbed[] = {
	"--threads 2,5,9 --memory-model sc",
	"--threads 2,5,9 --memory-model pso",
	"--threads 2,5,9 --sim-quantum 0",
	"--threads 2,5,9 --sim-quantum 1000 --arbitration fifo",
	"--threads 2,5,9 --pin none --migrate-us 20 --irq-rate-hz 50000 --irq-us 3",
	"--threads 2,5,9 --snoop-travel 100 --sim-quantum 0",
	"--threads 2,5,9 --snoop-travel 50 --memory-model pso",
	"--threads 2,5,9 --lat-spread 50 --sim-quantum 0",
	"--vm 8 --overcommit 2 --co-guests busy --slice-us 50",
};

static void every_lock_live(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(perturbed) / sizeof(perturbed[0]); k++) {
		const char *setting = perturbed[k];
		unsigned counts = strstr(setting, "--vm") ? 1 : 3, rows = 0;
		struct tl_proc p;
		int rc = tl_sh(&p, "%s/locklab-sim run --topo 4socket --lock %s %s --runs %u "
				   "--ops %d --ncs exp:200 --format csv --seed 11",
			       bindir, locks, setting, seeds, OPS);

		if (rc)
			fail_msg("%s: exit %d, a run did not finish:\n%s", setting, rc, p.err);
		for (const char *l = strchr(p.out, '\n') + 1; *l; l = strchr(l, '\n') + 1, rows++) {
			double lo = tl_csv_value(p.out, l, "acq_min"), hi = tl_csv_value(p.out, l, "acq_max");

			if (lo != OPS || hi != OPS)
				fail_msg("%s: a thread made %.0f to %.0f of its %d acquisitions: %.80s",
					 setting, lo, hi, OPS, l);
		}
		if (rows != nlocks * counts * seeds)
			fail_msg("%s: %u rows, where %u locks, %u thread counts and %u seeds make %u",
				 setting, rows, nlocks, counts, seeds, nlocks * counts * seeds);
		tl_proc_free(&p);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_lock_deterministic),
		cmocka_unit_test(every_lock_live),
	};

	bindir = tl_bindir(argc, argv);
	seeds = tl_sanitized_share(16, 8);
	return cmocka_run_group_tests(tests, setup, NULL);
}
