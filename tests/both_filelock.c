/*
 * tests/both_filelock.c - the file-lock workload (core/filelock_wl.c) in
 * whichever backend this program is built for: an exclusive flock or
 * POSIX lock on a shared file has one holder at a time, every process
 * gets its iterations, and the herd is counted as it happens (every
 * sleeper is woken once; a woken request is either granted or sleeps
 * again; in the simulator one unlock wakes all N-1 waiters).  Private
 * files and read leases never sleep.  The simulator's `filelock` refuses
 * bad --procs and --pin with one line and exit status 2, and shares the
 * cpus among processes that outnumber them.  Natively each
 * process makes 2000 iterations (400 under the sanitizers).
 */
#include <stdio.h>
#include <string.h>

#include "../core/filelock_wl.h"
#include "testlib.h"

static const char *bindir;

static unsigned procs(void)
{
	return tl_is_sim() ? 6 : 3;
}

static uint64_t iterations(void)
{
	return tl_is_sim() ? 40 : tl_sanitized_share(2000, 5);
}

static void run_ok(const struct flw_config *fc, unsigned n, unsigned idx,
		   struct flw_counters *c)
{
	struct wl_config base;
	char why[512] = "";
	double secs = 0;
	int rc;

	tl_config(&base, "4socket-ring", 7);
	if (!tl_is_sim())
		tl_set_pin(&base, PIN_NONE);
	rc = flw_run_once(fc, &base, n, idx, &secs, c, why, sizeof(why));
	if (rc)
		fail_msg("%s %s %s: %s", flw_test_names[fc->test], fc->shared ? "shared" : "private",
			 flw_global_names[fc->global], why);
	assert_true(secs > 0);
	assert_int_equal(c->violations, 0);
}

static void shared_locks_exclude_and_herd(void **state)
{
	unsigned n = procs();

	for (int g = 0; g < 2; g++)
		for (int t = FLW_FLOCK; t <= FLW_POSIX; t++)
			for (unsigned s = 0; s < (tl_is_sim() ? 3u : 1u); s++) {
				struct flw_config fc = { (enum flw_test)t, true, (enum flw_global)g,
							 iterations() };
				struct flw_counters c;

				run_ok(&fc, n, s, &c);
				assert_int_equal(c.grants, n * fc.iterations);
				assert_int_equal(c.unlocks, n * fc.iterations);
				assert_int_equal(c.wakeups, c.sleeps);
				assert_int_equal(c.wakeups, c.resleeps + c.woken_grants);
				assert_true(c.woken_grants <= c.grants);
				if (tl_is_sim()) {
					assert_int_equal(c.max_woken, n - 1);
					assert_true(c.resleeps > 0);
				}
			}
}

static void private_files_and_read_leases_never_sleep(void **state)
{
	unsigned n = procs();

	for (int g = 0; g < 2; g++)
		for (int t = FLW_FLOCK; t < FLW_NTESTS; t++)
			for (int shared = 0; shared < 2; shared++) {
				struct flw_config fc = { (enum flw_test)t, shared, (enum flw_global)g,
							 iterations() };
				struct flw_counters c;

				if (shared && t != FLW_LEASE)
					continue;
				run_ok(&fc, n, 0, &c);
				assert_int_equal(c.grants, n * fc.iterations);
				assert_int_equal(c.unlocks, n * fc.iterations);
				assert_int_equal(c.sleeps, 0);
				assert_int_equal(c.wakeups, 0);
			}
}

static void refused(const char *const *args, const char *needle)
{
	struct tl_proc p;

	tl_bin(&p, bindir, "locklab-sim", args);
	tl_expect_refused(&p, needle);
	tl_proc_free(&p);
}

static void bad_options_are_one_line(void **state)
{
	const char *procs0[] = { "filelock", "--procs", "0", NULL };
	const char *pin[] = { "filelock", "--pin", "socket:x", NULL };
	const char *global[] = { "filelock", "--global", "rcu", NULL };
	const char *list[] = { "filelock", "--procs", "4", "--pin", "list:0,1", NULL };
	const char *longer[] = { "filelock", "--procs", "2", "--pin", "list:0,1,2", NULL };
	const char *many[] = { "filelock", "--procs", "9000", NULL };
	const char *twice[] = { "filelock", "--procs", "2", "--pin", "list:0,0", NULL };

	if (!tl_is_sim())
		skip();
	refused(procs0, "--procs");
	refused(pin, "--pin");
	refused(global, "--global");
	/* the backend's refusals name filelock's option, not run's --threads */
	refused(list, "--pin list: has 2 cpus but --procs asks for 4");
	refused(longer, "--pin list: has 3 cpus but --procs asks for 2 (one cpu each");
	refused(many, "--procs: '9000'");
	/* filelock's own way of sharing cpus, not run's --vm */
	refused(twice, "cpu 0 appears twice (the simulator runs one thread a cpu; more --procs than");
}

/* The CSV's row of run `run` (0-based) under its header. */
static const char *csv_row(const char *csv, unsigned run)
{
	const char *row = strchr(csv, '\n') + 1;

	for (unsigned i = 0; i < run; i++)
		row = strchr(row, '\n') + 1;
	return row;
}

static double csv_of(const char *csv, unsigned run, const char *name)
{
	return tl_csv_value(csv, csv_row(csv, run), name);
}

/* Whether column name of that row is empty. */
static bool csv_empty(const char *csv, unsigned run, const char *name)
{
	const char *f = csv_row(csv, run);

	for (int i = tl_csv_column(csv, name); i > 0; i--)
		f = strchr(f, ',') + 1;
	return *f == ',' || *f == '\n';
}

static char *filelock_csv(const char *const *args, const char *heading, const char *also)
{
	struct tl_proc p;
	char *csv;

	if (tl_bin(&p, bindir, "locklab-sim", args) != 0)
		fail_msg("status %d\n%s%s", p.status, p.out, p.err);
	for (const char *const *w = (const char *const[]){ heading, also, NULL }; *w; w++)
		if (!strstr(p.out, *w))
			fail_msg("no '%s' in\n%s", *w, p.out);
	tl_proc_free(&p);
	csv = tl_slurp_ok(tl_path("os.csv"), NULL);
	return csv;
}

/* More processes than the cpus --pin gives them: the simulator's OS model
 * shares the cpus among them (sim/vm.h, "Processes").  A process may lose
 * its cpu between its calls, never inside one (a call is not preempted:
 * with flock, whose calls are never refused, no process waiting for its
 * lock is preempted); a woken one may be aimed at its waker's cpu and
 * placed on an idle core, and a queued one taken over by a cpu that runs
 * out of work;
 * the shared file's lock still excludes (a violation fails the run); what
 * the OS model does not have is refused by name. */
static void processes_beyond_the_cpus_share_them(void **state)
{
	const char *priv[] = { "filelock", "--topo", "4socket-ring", "--test", "flock", "--private",
			       "--procs", "24", "--pin", "socket:0", "--iterations", "12000",
			       "--runs", "1", "--csv", tl_path("os.csv"), NULL };
	const char *shared[] = { "filelock", "--topo", "4socket-ring", "--test", "flock,posix",
				 "--shared", "--procs", "24", "--pin", "node:1", "--iterations", "20",
				 "--runs", "2", "--csv", tl_path("os.csv"), NULL };
	const char *herd[] = { "filelock", "--topo", "4socket-ring", "--test", "flock", "--shared",
			       "--procs", "48", "--pin", "node:1", "--iterations", "20", "--runs", "1",
			       "--csv", tl_path("os.csv"), NULL };
	const char *odd[] = { "filelock", "--topo", "4socket-ring", "--test", "flock", "--private",
			      "--procs", "9", "--pin", "socket:0", "--iterations", "20000", "--runs",
			      "1", "--csv", tl_path("os.csv"), NULL };
	const char *idle[] = { "filelock", "--topo", "4socket-ring", "--procs", "9", "--pin",
			       "socket:0", "--idle-states", "on", NULL };
	const char *noise[] = { "filelock", "--topo", "4socket-ring", "--procs", "40", "--pin",
				"none", "--migrate-us", "100", NULL };
	/* a process of node:1 or socket:0 runs on any cpu of it */
	const char *heading = "(the OS model: 24 processes on 8 cpus, each process on any of them, "
			      "not bound to one, CFS; woken ones placed, idle balance only; sc memory, "
			      "no idle states, no scheduler noise)";
	char *csv;

	if (!tl_is_sim())
		skip();
	csv = filelock_csv(priv, heading, "its own file's: no one waited for it");
	assert_true(csv_of(csv, 0, "preemptions") > 0);
	assert_true(csv_of(csv, 0, "holder_preemptions") > 0);
	assert_true(csv_of(csv, 0, "waiter_preemptions") == 0);
	assert_true(csv_of(csv, 0, "sleeps") == 0);
	free(csv);
	csv = filelock_csv(shared, heading, NULL);
	for (unsigned r = 0; r < 4; r++) {
		assert_true(csv_of(csv, r, "sleeps") > 0);
		assert_true(csv_of(csv, r, "wake_moves") > 0); /* onto idle cores of the socket */
		assert_true(csv_of(csv, r, "waiter_preemptions") == 0);
		assert_true(csv_empty(csv, r, "idle_wakes")); /* its cpus enter no idle state */
	}
	free(csv);
	/* six to a cpu: a cpu whose queue holds more load than the waker's by
	 * a task and more has its woken process aimed at the waker's cpu
	 * (wake_affine) */
	csv = filelock_csv(herd, "(the OS model: 48 processes on 8 cpus,", NULL);
	assert_true(csv_of(csv, 0, "affine_wakes") > 0);
	/* aimed at a busy cpu (the waker's), none stays on its last */
	assert_true(csv_of(csv, 0, "affine_wakes") <= csv_of(csv, 0, "wake_moves"));
	free(csv);
	/* an uneven split is said; a cpu that runs out of work takes over a
	 * process queued elsewhere */
	csv = filelock_csv(odd, "a cpu goes idle: cpus with 2 processes at the start: 1 of 8 (the "
				"rest have 1)", NULL);
	assert_true(csv_of(csv, 0, "idle_pulls") > 0);
	free(csv);
	refused(idle, "--idle-states on: processes that outnumber their cpus");
	refused(noise, "--migrate-us: processes that outnumber their cpus");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shared_locks_exclude_and_herd),
		cmocka_unit_test(private_files_and_read_leases_never_sleep),
		cmocka_unit_test(bad_options_are_one_line),
		cmocka_unit_test_setup_teardown(processes_beyond_the_cpus_share_them,
						tl_tmpdir_setup, tl_tmpdir_teardown),
	};

	bindir = argc > 1 ? argv[1] : "bin";
	if (tl_backend_start(argv[0], "4socket-ring"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
