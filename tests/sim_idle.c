/*
 * tests/sim_idle.c - the idle states of a sleeping thread's hardware thread
 * (sim/idle.c):
 *
 *   governor   the menu governor's choice on a table built by hand (Sandy
 *              Bridge's, as 4socket-ring gives it): no history, the
 *              deepest state; a steady interval, the deepest state that
 *              pays off within it; an interval pattern with an outlier,
 *              the pattern; one without a pattern, the deepest
 *   exit       a wake-up pays the exit latency of the state entered
 *   herd       filelock on 4socket-ring-ht with the idle states and with
 *              --idle-states off: the wake-ups are counted and their exit
 *              latency reported only with them, and the herd differs
 *   explain    explain charges the exit to its own part, and only with
 *              the idle states: pv-ticket's waiters halt, each handoff
 *              wakes the next ticket's holder
 *   refused    --idle-states with another value than on or off
 *
 * argv[1] is the bin/ directory.
 */
#include "testlib.h"

#include "../sim/idle.h"

static const char *bindir;

static void snb_table(struct topo *t)
{
	static const struct topo_idle_state snb[] = {
		{ "C1", 2000000, 2000000 },
		{ "C1E", 10000000, 20000000 },
		{ "C3", 80000000, 211000000 },
		{ "C6", 104000000, 345000000 },
	};

	memset(t, 0, sizeof(*t));
	t->ncores = 4;
	t->nidle = 4;
	memcpy(t->idle, snb, sizeof(snb));
}

/* Sleep core for us microseconds n times; the state of the last sleep. */
static int sleeps(unsigned core, double us, unsigned n, uint64_t *now)
{
	int st = -1;

	for (unsigned i = 0; i < n; i++) {
		st = idle_enter(core, *now);
		*now += (uint64_t)(us * 1e6);
		idle_leave(core, st, *now);
		*now += 1000000; /* it runs a microsecond */
	}
	return st;
}

static void governor(void **state)
{
	struct topo t;
	uint64_t now = 0, wakes, exit_ps;
	(void)state;

	snb_table(&t);
	assert_int_equal(idle_begin(&t), 0);
	assert_int_equal(idle_enter(0, now), 3); /* no history: C6 */
	idle_leave(0, 3, now + 1000000);
	assert_int_equal(sleeps(1, 30, 8, &now), 1);  /* C1E pays off in 30 us, C3 does not */
	assert_int_equal(idle_enter(1, now), 1);
	idle_leave(1, 1, now + 30000000);
	assert_int_equal(sleeps(2, 5, 8, &now), 0);   /* C1 */
	assert_int_equal(idle_enter(2, now), 0);
	idle_leave(2, 0, now + 5000000);
	assert_int_equal(sleeps(3, 500, 8, &now), 3); /* C6 */
	/* seven of 30 us and one outlier: the outlier is dropped */
	sleeps(3, 30, 7, &now);
	sleeps(3, 5000, 1, &now);
	assert_int_equal(idle_enter(3, now), 1);
	idle_leave(3, 1, now);
	/* half 5 us, half 5 ms: no pattern, the deepest */
	for (unsigned i = 0; i < 4; i++) {
		sleeps(2, 5, 1, &now);
		sleeps(2, 5000, 1, &now);
	}
	assert_int_equal(idle_enter(2, now), 3);
	idle_leave(2, 3, now);
	idle_end(&wakes, &exit_ps);
	assert_true(wakes > 30);
	assert_true(exit_ps > 0);
}

static void exit_latency(void **state)
{
	struct topo t;
	uint64_t wakes, exit_ps;
	(void)state;

	snb_table(&t);
	assert_int_equal(idle_begin(&t), 0);
	assert_int_equal(idle_leave(0, idle_enter(0, 0), 400000000), 104000000);
	idle_end(&wakes, &exit_ps);
	assert_int_equal(wakes, 1);
	assert_int_equal(exit_ps, 104000000);
	t.nidle = 0; /* no table: no state, no cost */
	assert_int_equal(idle_begin(&t), 0);
	assert_int_equal(idle_enter(0, 0), -1);
	assert_int_equal(idle_leave(0, -1, 1000), 0);
	idle_end(&wakes, &exit_ps);
	assert_int_equal(wakes, 0);
}

/* The line of filelock's output naming the idle states, or NULL. */
static const char *idle_line(const char *out)
{
	return strstr(out, "woken from an idle state");
}

static void herd(void **state)
{
	const char *on[] = { "filelock", "--topo", "4socket-ring-ht", "--test", "flock", "--shared",
			     "--procs", "8", "--pin", "socket:0", "--iterations", "20", "--runs", "1",
			     NULL };
	const char *off[] = { "filelock", "--topo", "4socket-ring-ht", "--test", "flock", "--shared",
			      "--procs", "8", "--pin", "socket:0", "--iterations", "20", "--runs", "1",
			      "--idle-states", "off", NULL };
	struct tl_proc a, b;
	unsigned long long n = 0;
	double us = 0;
	(void)state;

	assert_int_equal(tl_bin(&a, bindir, "locklab-sim", on), 0);
	assert_int_equal(tl_bin(&b, bindir, "locklab-sim", off), 0);
	assert_non_null(idle_line(a.out));
	assert_int_equal(sscanf(idle_line(a.out), "woken from an idle state %llu times, %lf us", &n, &us), 2);
	assert_true(n > 0);
	assert_true(us >= 2 && us <= 104); /* between C1's exit latency and C6's */
	assert_null(idle_line(b.out));
	assert_string_not_equal(a.out, b.out);
	tl_proc_free(&a);
	tl_proc_free(&b);
}

static void explain_part(void **state)
{
	const char *on[] = { "explain", "--topo", "4socket-ring", "--lock", "pv-ticket", "--threads",
			     "16", "--cs", "50000", "--duration", "10", "--runs", "1", NULL };
	const char *off[] = { "explain", "--topo", "4socket-ring", "--lock", "pv-ticket", "--threads",
			      "16", "--cs", "50000", "--duration", "10", "--runs", "1",
			      "--idle-states", "off", NULL };
	struct tl_proc a, b;
	const char *row;
	double ns = 0;
	(void)state;

	assert_int_equal(tl_bin(&a, bindir, "locklab-sim", on), 0);
	assert_int_equal(tl_bin(&b, bindir, "locklab-sim", off), 0);
	row = strstr(a.out, "leaving an idle state (C-state exit)");
	assert_non_null(row);
	assert_int_equal(sscanf(row + strlen("leaving an idle state (C-state exit)"), "%lf", &ns), 1);
	assert_true(ns > 2000 && ns <= 104000); /* per handoff: at most C6's exit */
	assert_null(strstr(b.out, "leaving an idle state"));
	tl_proc_free(&a);
	tl_proc_free(&b);
}

static void refused(void **state)
{
	const char *f[] = { "filelock", "--idle-states", "maybe", NULL };
	const char *r[] = { "run", "--lock", "ticket", "--idle-states", "", NULL };
	(void)state;

	tl_bin_refused(bindir, "locklab-sim", f, "--idle-states: 'maybe' is not on or off");
	tl_bin_refused(bindir, "locklab-sim", r, "--idle-states");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(governor),
		cmocka_unit_test(exit_latency),
		cmocka_unit_test(herd),
		cmocka_unit_test(explain_part),
		cmocka_unit_test(refused),
	};

	bindir = tl_bindir(argc, argv);
	return cmocka_run_group_tests(tests, tl_tmpdir_setup, tl_tmpdir_teardown);
}
