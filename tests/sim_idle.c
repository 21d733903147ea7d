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
 *   SMT        no deeper than the core went: a busy sibling kept it in C0
 *   herd       filelock on 4socket-ring-ht with the idle states and with
 *              --idle-states off: the wake-ups are counted and their exit
 *              latency reported only with them, in the table and alike in
 *              the CSV (empty cells without them), and the herd differs
 *   explain    explain charges the exit to its own part, and only with
 *              the idle states: pv-ticket's waiters halt, each handoff
 *              wakes the next ticket's holder
 *   moves      --pin none on a full SMT machine whose threads end at
 *              different times: no thread sleeps on a CPU the record has
 *              as empty
 *   refused    --idle-states with another value than on or off, and on
 *              under --vm (off is accepted there); on is accepted on a
 *              machine without idle states
 *
 * argv[1] is the bin/ directory.
 */
#include <ctype.h>
#include <math.h>

#include "testlib.h"

#include <locklab/result.h>

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
		idle_leave(core, st, *now, true);
		*now += 1000000; /* it runs a microsecond */
	}
	return st;
}

/* A history of idle intervals, and the state the governor picks after it. */
struct history {
	const char *what;
	unsigned core;
	struct { double us; unsigned n; } run[8]; /* n sleeps of us each, in order */
	int want;
};

static const struct history histories[] = {
	{ "steady 30 us: C1E pays off, C3 does not", 1, { { 30, 8 } }, 1 },
	{ "steady 5 us: C1", 2, { { 5, 8 } }, 0 },
	{ "steady 500 us: C6", 3, { { 500, 8 } }, 3 },
	{ "seven of 30 us and an outlier: the outlier dropped", 3, { { 30, 7 }, { 5000, 1 } }, 1 },
	{ "four of 5 us, four of 5 ms: the 5 ms ones dropped as the largest, and a deviation of "
	  "at most 20 us needs no count", 2,
	  { { 5, 1 }, { 5000, 1 }, { 5, 1 }, { 5000, 1 }, { 5, 1 }, { 5000, 1 }, { 5, 1 }, { 5000, 1 } }, 0 },
	{ "five of 10 us after three of 1 ms: 10 us", 1, { { 1000, 3 }, { 10, 5 } }, 0 },
	{ "four of 30 us, four of 71 us: variance 420 us^2, int_sqrt 20: the mean, 50.5 us", 1,
	  { { 30, 4 }, { 71, 4 } }, 1 },
	{ "spread out, no six agree: no prediction, the deepest", 2,
	  { { 10, 1 }, { 100, 1 }, { 300, 1 }, { 700, 1 }, { 1500, 1 }, { 3000, 1 }, { 6000, 1 },
	    { 9000, 1 } }, 3 },
	{ "40 s intervals, a double's last bit above a microsecond: dropping the largest ends", 0,
	  { { 4e7, 4 }, { 5, 4 } }, 0 },
};

static void governor(void **state)
{
	struct topo t;
	uint64_t now = 0, wakes[LL_MAX_IDLE_STATES] = { 0 }, exit_ps;
	(void)state;

	snb_table(&t);
	assert_int_equal(idle_begin(&t, 0, NULL), 0);
	assert_int_equal(idle_enter(0, now), 3); /* no history: C6 */
	idle_leave(0, 3, now + 1000000, true);
	for (size_t h = 0; h < sizeof(histories) / sizeof(histories[0]); h++) {
		const struct history *y = &histories[h];
		int got;

		for (unsigned r = 0; r < 8 && y->run[r].n; r++)
			sleeps(y->core, y->run[r].us, y->run[r].n, &now);
		got = idle_enter(y->core, now);
		if (got != y->want)
			fail_msg("%s: state %d, not %d", y->what, got, y->want);
		idle_leave(y->core, got, now + 1000000, true);
	}
	idle_end(wakes, &exit_ps);
	assert_true(wakes[0] + wakes[1] + wakes[2] + wakes[3] > 30);
	assert_true(wakes[0] && wakes[1] && wakes[3]); /* C1, C1E and C6 were chosen */
	assert_true(exit_ps > 0);
}

/* A core enters C6 only when all its hardware threads are idle. */
static void smt_siblings(void **state)
{
	static unsigned phys[4] = { 0, 1, 0, 1 }; /* threads 0 and 2 share core 0 */
	struct topo t;
	uint64_t wakes[LL_MAX_IDLE_STATES] = { 0 }, exit_ps;
	(void)state;

	snb_table(&t);
	t.core_phys = phys;
	static const unsigned on[] = { 0, 2 };

	assert_int_equal(idle_begin(&t, 2, on), 0);
	/* 0 asks for C6 while 2 runs: the core stays in C0, 0 leaves C1 */
	assert_int_equal(idle_leave(0, idle_enter(0, 0), 400000000, true), 2000000);
	/* both asleep in C6: the core was in C6 */
	idle_enter(2, 400000000);
	assert_int_equal(idle_leave(0, idle_enter(0, 400000000), 800000000, true), 104000000);
	/* 2 wakes while 0 runs: C1; then 2's thread leaves the run, and its
	 * hardware thread counts as idle, deepest */
	assert_int_equal(idle_leave(2, 3, 800000000, true), 2000000);
	idle_vacate(2);
	assert_int_equal(idle_leave(0, idle_enter(0, 800000000), 1200000000, true), 104000000);
	idle_end(wakes, &exit_ps);
	assert_int_equal(wakes[0], 2);
	assert_int_equal(wakes[3], 2);
}

static void exit_latency(void **state)
{
	struct topo t;
	uint64_t wakes[LL_MAX_IDLE_STATES] = { 0 }, exit_ps;
	(void)state;

	snb_table(&t);
	assert_int_equal(idle_begin(&t, 0, NULL), 0);
	assert_int_equal(idle_leave(0, idle_enter(0, 0), 400000000, true), 104000000);
	/* after the measured interval: paid, not counted */
	assert_int_equal(idle_leave(1, idle_enter(1, 0), 400000000, false), 104000000);
	idle_end(wakes, &exit_ps);
	assert_int_equal(wakes[3], 1); /* one wake-up, from C6 */
	assert_int_equal(wakes[0] + wakes[1] + wakes[2], 0);
	assert_int_equal(exit_ps, 104000000);
	t.nidle = 0; /* no table: no state, no cost */
	assert_int_equal(idle_begin(&t, 0, NULL), 0);
	assert_int_equal(idle_enter(0, 0), -1);
	assert_int_equal(idle_leave(0, -1, 1000, true), 0);
	memset(wakes, 0, sizeof(wakes));
	idle_end(wakes, &exit_ps);
	assert_int_equal(wakes[0], 0);
	assert_int_equal(exit_ps, 0);
}

/* Where filelock's output counts the wake-ups from idle states, or NULL. */
static const char *idle_line(const char *out)
{
	return strstr(out, " wake-ups from them (");
}

/* The CSV row of filelock's run 0: its fields from "sleeps" on. */
static void csv_idle(const char *path, unsigned long long *sleeps, char *states, size_t len,
		     char *rest, size_t rlen)
{
	char *csv = tl_slurp(path, NULL), *row, *f;
	int i = 0;

	assert_non_null(csv);
	assert_non_null(strstr(csv, ",pin,seed,run,seconds,pairs_per_s,sleeps,wakeups,resleeps,"
				    "idle_states,idle_wakes,idle_exit_ns_per_wake,migrations,irqs,"
				    "preemptions,holder_preemptions,waiter_preemptions,affine_wakes,wake_moves,idle_pulls,"
				    "waking_unlocks,max_woken\n"));
	row = strchr(csv, '\n') + 1;
	for (f = row; i < 12; i++) /* backend .. pairs_per_s */
		f = strchr(f, ',') + 1;
	assert_int_equal(sscanf(f, "%llu,", sleeps), 1);
	for (; i < 15; i++) /* sleeps, wakeups, resleeps */
		f = strchr(f, ',') + 1;
	snprintf(states, len, "%.*s", (int)(strchr(f, ',') - f), f);
	f = strchr(f, ',') + 1;
	snprintf(rest, rlen, "%.*s", (int)(strchr(f, '\n') - f), f);
	free(csv);
}

static void herd(void **state)
{
	const char *on[] = { "filelock", "--topo", "4socket-ring-ht", "--test", "flock", "--shared",
			     "--procs", "8", "--pin", "socket:0", "--iterations", "20", "--runs", "1",
			     "--csv", tl_path("on.csv"), NULL };
	const char *off[] = { "filelock", "--topo", "4socket-ring-ht", "--test", "flock", "--shared",
			      "--procs", "8", "--pin", "socket:0", "--iterations", "20", "--runs", "1",
			      "--idle-states", "off", "--csv", tl_path("off.csv"), NULL };
	struct tl_proc a, b;
	unsigned long long n = 0, csv_n = 0, sleeps = 0;
	char states[64], rest[64];
	double us = 0, ns = 0;
	(void)state;

	assert_int_equal(tl_bin(&a, bindir, "locklab-sim", on), 0);
	assert_int_equal(tl_bin(&b, bindir, "locklab-sim", off), 0);
	/* the CSV's run row carries the same counts as the table */
	csv_idle(tl_path("on.csv"), &sleeps, states, sizeof(states), rest, sizeof(rest));
	assert_string_equal(states, "C1 C1E C3 C6");
	assert_int_equal(sscanf(rest, "%llu,%lf", &csv_n, &ns), 2);
	assert_non_null(strstr(a.out, "sleeps "));
	assert_int_equal(strtoull(strstr(a.out, "sleeps ") + 7, NULL, 10), sleeps);
	csv_idle(tl_path("off.csv"), &sleeps, states, sizeof(states), rest, sizeof(rest));
	assert_string_equal(states, "off");
	/* no idle state applies, no noise, every process a cpu of its own: empty
	 * cells, then the unlocks that woke a sleeper and the most one woke */
	assert_int_equal(strncmp(rest, ",,,,,,,,,,", 10), 0);
	assert_true(isdigit((unsigned char)rest[10]) && strchr(rest + 10, ','));
	assert_non_null(strstr(a.out, "idle states C1,C1E,C3,C6 (the topology's); "));
	assert_int_equal(sscanf(strstr(a.out, "(the topology's); ") + 18, "%llu wake-ups", &n), 1);
	assert_true(n > 0);
	assert_non_null(strstr(idle_line(a.out), "C6 "));
	assert_int_equal(sscanf(strstr(idle_line(a.out), "), ") + 3, "%lf us exit latency", &us), 1);
	assert_true(us >= 2 && us <= 104); /* between C1's exit latency and C6's */
	assert_int_equal(csv_n, n);
	assert_true(ns >= 2000 && fabs(ns - us * 1e3) <= 50); /* the table rounds to 0.1 us */
	assert_null(idle_line(b.out));
	assert_non_null(strstr(b.out, "idle states off (--idle-states off)"));
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

/* Every core taken, threads ending at different times, --pin none moving
 * them: the record of which CPUs run a thread stays right (the engine
 * fails a run whose thread sleeps on a CPU recorded as empty, as a move
 * that swapped with a thread that had ended once made threads do). */
static void moves(void **state)
{
	const char *f[] = { "filelock", "--topo", "4socket-ring-ht", "--test", "flock", "--shared",
			    "--procs", "64", "--pin", "none", "--iterations", "5", "--runs", "1",
			    "--csv", tl_path("moves.csv"), NULL };
	struct tl_proc p;
	unsigned long long mig = 0, irqs = 0;
	char *csv, *row;
	(void)state;

	assert_int_equal(tl_bin(&p, bindir, "locklab-sim", f), 0);
	assert_null(strstr(p.err, "internal fault"));
	assert_non_null(strstr(p.out, " wake-ups from them ("));
	tl_proc_free(&p);
	/* the CSV counts the noise of --pin none */
	csv = tl_slurp(tl_path("moves.csv"), NULL);
	assert_non_null(csv);
	row = strchr(csv, '\n') + 1;
	mig = (unsigned long long)tl_csv_value(csv, row, "migrations");
	irqs = (unsigned long long)tl_csv_value(csv, row, "irqs");
	assert_true(mig + irqs > 0);
	free(csv);
}

static void refused(void **state)
{
	const char *f[] = { "filelock", "--idle-states", "maybe", NULL };
	const char *r[] = { "run", "--lock", "ticket", "--idle-states", "", NULL };
	const char *none[] = { "run", "--topo", "4socket", "--lock", "ticket", "--threads", "2",
			       "--idle-states", "on", "--runs", "1", "--duration", "1", "--format",
			       "csv", NULL };
	const char *vm[] = { "run", "--topo", "4socket-ring", "--lock", "ticket", "--threads", "2",
			     "--vm", "2", "--overcommit", "1", "--idle-states", "on", NULL };
	const char *vm_off[] = { "run", "--topo", "4socket-ring", "--lock", "ticket", "--threads",
				 "2", "--vm", "2", "--overcommit", "1", "--idle-states", "off",
				 "--runs", "1", "--duration", "1", NULL };
	struct tl_proc p;
	(void)state;

	tl_bin_refused(bindir, "locklab-sim", f, "--idle-states: 'maybe' is not on or off");
	tl_bin_refused(bindir, "locklab-sim", r, "--idle-states");
	/* under --vm a halt is the hypervisor's: on would claim what is not so,
	 * off says what is so (as a noise option's 0 does) */
	tl_bin_refused(bindir, "locklab-sim", vm,
		       "--idle-states on: a --vm run's halts are the hypervisor's");
	assert_int_equal(tl_bin(&p, bindir, "locklab-sim", vm_off), 0);
	tl_proc_free(&p);
	/* on claims what a machine without a table lacks; without the option
	 * the idle columns are empty there */
	tl_bin_refused(bindir, "locklab-sim", none,
		       "--idle-states on: topology 4socket has no idle states");
	none[7] = "--seed"; /* the option and its value out */
	none[8] = "1";
	assert_int_equal(tl_bin(&p, bindir, "locklab-sim", none), 0);
	assert_non_null(strstr(p.out, "idle_wakes_per_acq,idle_exit_ns_per_acq,wait_p99_censored,"));
	assert_non_null(strstr(p.out, ",,false,,,false,1,1,")); /* the idle two, empty */
	tl_proc_free(&p);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(governor),
		cmocka_unit_test(exit_latency),
		cmocka_unit_test(smt_siblings),
		cmocka_unit_test(herd),
		cmocka_unit_test(explain_part),
		cmocka_unit_test(moves),
		cmocka_unit_test(refused),
	};

	bindir = tl_bindir(argc, argv);
	return cmocka_run_group_tests(tests, tl_tmpdir_setup, tl_tmpdir_teardown);
}
