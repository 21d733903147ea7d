/*
 * tests/native_filelock.c - `locklab-native filelock` at small N: every
 * test in both modes completes and reports lockperf's figures, the CSV has
 * a row per run, placement policies apply to the processes (more of them
 * than CPUs are marked oversubscribed), and bad input
 * gets one line and exit status 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#include "../native/tools/validate.h"

/* filelock with argv, its stdout and stderr in call.log; exit status. */
static int filelock(int argc, char **argv)
{
	return tl_call(native_filelock_main, argc, argv, tl_path("call.log"));
}

static char *log_text(void)
{
	char *t = tl_slurp(tl_path("call.log"), NULL);

	assert_non_null(t);
	return t;
}

static unsigned count(const char *text, const char *needle)
{
	unsigned n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* One test, both modes, 3 processes, 3 runs: six CSV rows. */
static void both_modes(const char *test)
{
	char *args[] = { "--test", (char *)test, "--procs", "3", "--iterations", "200", "--runs", "3",
			 "--dir", tl_tmpdir(), "--csv", tl_path("fl.csv") };
	char row[64];
	char *log, *csv;
	int rc = filelock(12, args);

	log = log_text();
	if (rc == 2 && !strcmp(test, "lease") && strstr(log, "refuses leases")) {
		free(log);
		skip();
	}
	if (rc)
		fail_msg("filelock --test %s: %d: %s", test, rc, log);
	assert_non_null(strstr(log, "procs=3 iterations=200 pin=compact on host "));
	assert_non_null(strstr(log, " (the rows' name for this machine)   (time per run, ms; "
				  "variance in ms^2)"));
	assert_int_equal(count(log, "lock+unlock pairs/s"), 2);
	assert_int_equal(count(log, "( sigma/mean "), 2);
	assert_non_null(strstr(log, "private files"));
	free(log);
	csv = tl_slurp(tl_path("fl.csv"), NULL);
	assert_non_null(csv);
	assert_int_equal(count(csv, "\n"), 7);
	snprintf(row, sizeof(row), ",%s,shared,3,200,compact,2,", test);
	assert_non_null(strstr(csv, row));
	snprintf(row, sizeof(row), ",%s,private,3,200,compact,0,", test);
	assert_non_null(strstr(csv, row));
	free(csv);
}

static void test_flock(void **state)
{
	(void)state;
	both_modes("flock");
}

static void test_posix(void **state)
{
	(void)state;
	both_modes("posix");
}

static void test_lease(void **state)
{
	(void)state;
	both_modes("lease");
}

/* The whole suite at once, one run: a single-run note instead of a zero
 * variance; processes pinned to one socket, bound to it as a set, and
 * unpinned. */
static void test_suite_single_run(void **state)
{
	char *socket0[] = { "--procs", "2", "--iterations", "50", "--runs", "1", "--dir", tl_tmpdir(),
			    "--pin", "socket:0", "--test", "flock,posix" };
	char *none[] = { "--procs", "2", "--iterations", "50", "--runs", "2", "--dir", tl_tmpdir(),
			 "--pin", "none", "--shared", "--test", "flock" };
	char *node0[] = { "--procs", "2", "--iterations", "50", "--runs", "1", "--dir", tl_tmpdir(),
			  "--pin", "node:0", "--private", "--test", "posix" };
	char *log;

	(void)state;
	assert_int_equal(filelock(12, socket0), 0);
	log = log_text();
	assert_int_equal(count(log, "(single run: no variance)"), 4);
	assert_non_null(strstr(log, "flock  procs=2 iterations=50 pin=socket:0"));
	assert_non_null(strstr(log, "posix  procs=2"));
	assert_null(strstr(log, "lease"));
	free(log);
	assert_int_equal(filelock(13, none), 0);
	log = log_text();
	assert_non_null(strstr(log, "shared file"));
	assert_null(strstr(log, "private files"));
	free(log);
	assert_int_equal(filelock(13, node0), 0);
	log = log_text();
	assert_non_null(strstr(log, "posix  procs=2 iterations=50 pin=node:0"));
	assert_non_null(strstr(log, "private files"));
	free(log);
}

/* More processes than the CPUs they are placed on: said once on stderr,
 * the rows marked *, the CSV's oversubscribed true; one process never is. */
static void test_oversubscribed(void **state)
{
	char *two_on_one[] = { "--procs", "2", "--pin", "list:0,0", "--test", "flock", "--shared",
			       "--iterations", "20", "--runs", "1", "--dir", tl_tmpdir(), "--csv",
			       tl_path("over.csv") };
	char *one[] = { "--procs", "1", "--test", "flock", "--shared", "--iterations", "20",
			"--runs", "1", "--dir", tl_tmpdir(), "--csv", tl_path("one.csv") };
	char *log, *csv;

	(void)state;
	assert_int_equal(filelock(15, two_on_one), 0);
	log = log_text();
	/* (the stderr line comes once per process: an earlier test may have had it) */
	assert_non_null(strstr(log, "shared file *"));
	assert_non_null(strstr(log, "\n*: more processes than the CPUs")); /* its legend */
	free(log);
	csv = tl_slurp(tl_path("over.csv"), NULL);
	assert_non_null(csv);
	assert_non_null(strstr(csv, ",pairs_per_s,oversubscribed\n"));
	/* the list's commas are inside one quoted field */
	assert_non_null(strstr(csv, ",2,20,\"list:0,0\",0,"));
	assert_non_null(strstr(csv, ",true\n"));
	free(csv);
	assert_int_equal(filelock(13, one), 0);
	log = log_text();
	assert_null(strstr(log, " *"));
	assert_null(strstr(log, "*: more processes"));
	free(log);
	csv = tl_slurp(tl_path("one.csv"), NULL);
	assert_non_null(csv);
	assert_non_null(strstr(csv, ",false\n"));
	free(csv);
}

static void expect_bad(int argc, char **argv, const char *msg)
{
	char *log;

	assert_int_equal(filelock(argc, argv), 2);
	log = log_text();
	if (!strstr(log, msg))
		fail_msg("expected '%s' in: %s", msg, log);
	assert_int_equal(count(log, "\n"), 1);
	free(log);
}

static void test_bad_input(void **state)
{
	char *procs0[] = { "--procs", "0" };
	char *test_x[] = { "--test", "flock,spin" };
	char *iters[] = { "--iterations", "lots" };
	char *pin[] = { "--pin", "socket:99", "--iterations", "10" };
	char *node[] = { "--pin", "node:99", "--iterations", "10" };
	char *pin_text[] = { "--pin", "diagonal" };
	char *unknown[] = { "--threads", "2" };
	char *dangling[] = { "--runs" };
	char *dir[] = { "--dir", "/nonexistent/locklab", "--iterations", "10", "--runs", "1" };
	char *list[] = { "--procs", "4", "--pin", "list:0,1" };

	(void)state;
	expect_bad(2, procs0, "--procs: '0'");
	expect_bad(2, test_x, "unknown test 'spin'");
	expect_bad(2, iters, "--iterations: 'lots'");
	expect_bad(4, pin, "socket:99");
	expect_bad(4, node, "--pin node:99: this machine has");
	expect_bad(2, pin_text, "--pin: 'diagonal'");
	expect_bad(2, unknown, "--threads: unknown option");
	expect_bad(1, dangling, "--runs: needs a value");
	expect_bad(6, dir, "cannot make a directory in /nonexistent/locklab");
	expect_bad(4, list, "--pin list: has 2 cpus but --procs asks for 4");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flock),
		cmocka_unit_test(test_posix),
		cmocka_unit_test(test_lease),
		cmocka_unit_test(test_suite_single_run),
		cmocka_unit_test(test_oversubscribed),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, tl_tmpdir_setup, tl_tmpdir_teardown);
}
