/*
 * tests/both_results.c - no result is lost and no file is replaced that is
 * not a result: a sweep with a failed run keeps the other rows (and
 * --fail-fast stops at it); SIGINT or SIGTERM in the middle of a sweep
 * leaves the finished rows in a valid CSV, exit status 130 or 143, and no
 * temporary file; output paths are checked before the first run: a device
 * (/dev/full), a FIFO, a symbolic link, a directory or a missing directory
 * is refused with exit status 2 and one line, and stays what it was; a
 * write error on the standard output is exit status 1 and a line.
 *
 * argv[1] is the bin/ directory.  The failed run is forced in this process
 * with a lock nobody can take (simulator only: natively its threads would
 * spin on after the watchdog gave up on them).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include <locklab/result.h>

#include "testlib.h"
#include "../core/cli.h"
#include "../core/sweep.h"

static const char *bindir;
static char prog[64];

/* ------------------------------------------------ helpers */

static unsigned count_lines(const char *s)
{
	unsigned n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n;
}

/* Fields of one CSV line, quotes respected. */
static unsigned count_fields(const char *line, const char *end)
{
	unsigned n = 1;
	bool quoted = false;

	for (; line < end; line++) {
		if (*line == '"')
			quoted = !quoted;
		else if (*line == ',' && !quoted)
			n++;
	}
	return n;
}

/* A CSV with a header and rows, every row as wide as the header; its rows. */
static unsigned check_csv(const char *path)
{
	char *text = tl_slurp(path, NULL);
	const char *p, *nl;
	unsigned width = 0, rows = 0;

	if (!text)
		fail_msg("%s: cannot be read", path);
	assert_true(!strncmp(text, "backend,topo,lock,threads,", 26));
	for (p = text; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			fail_msg("%s: the last line has no newline", path);
		if (p == text)
			width = count_fields(p, nl);
		else if (count_fields(p, nl) != width)
			fail_msg("%s: a row of %u fields under a header of %u", path,
				 count_fields(p, nl), width);
		else
			rows++;
	}
	free(text);
	return rows;
}

/* Names in the temporary directory that are temporary files or journals. */
static void expect_no_leftovers(void)
{
	DIR *d = opendir(tl_tmpdir());
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strstr(e->d_name, ".tmp.") || strstr(e->d_name, ".partial"))
			fail_msg("%s left in %s", e->d_name, tl_tmpdir());
	closedir(d);
}

/* The workload options of a sweep long enough to interrupt. */
static const char *const *long_sweep(void)
{
	static const char *const sim[] = { "--topo", "4socket", "--lock", "tas,ttas,mcs,ticket",
					   "--threads", "16,32", "--runs", "4", NULL };
	static const char *const native[] = { "--lock", "tas,mcs", "--threads", "1",
					      "--duration", "100", "--runs", "20", NULL };

	return tl_is_sim() ? sim : native;
}

/* The workload options of a short sweep. */
static const char *const *short_sweep(void)
{
	static const char *const sim[] = { "--topo", "2socket", "--lock", "tas", "--threads", "2",
					   "--runs", "1", "--duration", "1", NULL };
	static const char *const native[] = { "--lock", "tas", "--threads", "1", "--runs", "1",
					      "--duration", "5", NULL };

	return tl_is_sim() ? sim : native;
}

/* `run` with the options of base, then of more (NULL-terminated). */
static int run_with(struct tl_proc *p, const char *const *base, const char *const *more)
{
	const char *args[64];
	int n = 0;

	args[n++] = "run";
	while (*base)
		args[n++] = *base++;
	while (*more)
		args[n++] = *more++;
	args[n] = NULL;
	return tl_bin(p, bindir, prog, args);
}

/* Exit status 2 and one line naming needle. */
static void expect_refused(const char *const *more, const char *needle)
{
	struct tl_proc p;

	run_with(&p, short_sweep(), more);
	tl_expect_refused(&p, needle);
	tl_proc_free(&p);
}

/* ------------------------------------------------ a failed run */

static struct cli_opts opts;

static int call_sweep(int argc, char **argv)
{
	return sweep_run(&opts);
}

/* tas, a lock nobody can take, mcs: the failed run's row says why (the
 * table with a line for it; with fail_fast the CSV on stdout). */
static void sweep_with_failure(bool fail_fast, unsigned want_rows)
{
	const char *csv = tl_path(fail_fast ? "fast.csv" : "failed.csv");
	const char *args[] = { "--lock", "tas,mcs", "--threads", "2", "--runs", "1",
			       "--duration", "1", "--format", fail_fast ? "csv" : "table", "--csv", csv,
			       fail_fast ? "--fail-fast" : "--progress", NULL };
	char err[512], *text;
	int rc;

	assert_int_equal(cli_parse_run(13, (char **)args, &opts, err, sizeof(err)), 0);
	opts.progress = false;
	opts.cfg.algos[2] = opts.cfg.algos[1];
	opts.cfg.algos[1] = tl_never_lock();
	opts.cfg.nalgos = 3;
	assert_int_equal(backend_check(&opts.cfg, err, sizeof(err)), 0);
	rc = tl_call(call_sweep, 0, NULL, tl_path("sweep.log"));
	text = tl_slurp(tl_path("sweep.log"), NULL);
	if (rc != 3)
		fail_msg("exit status %d, not 3:\n%s", rc, text);
	assert_non_null(strstr(text, "deadlock"));
	/* --fail-fast says what it left out: mcs never ran */
	if (fail_fast && !strstr(text, "1 of 2 runs failed; --fail-fast stopped the sweep there: "
				       "1 of its 3 runs did not run"))
		fail_msg("--fail-fast does not say the sweep stopped:\n%s", text);
	/* the table: tas and mcs, then a line for the failed run */
	if (!fail_fast && (!strstr(text, "\nfailed runs (not in the table):\nnever ") ||
			   !strstr(text, "mcs  cs=50ns")))
		fail_msg("the table does not show the failed run:\n%s", text);
	free(text);
	assert_int_equal(check_csv(csv), want_rows);
	text = tl_slurp(csv, NULL);
	assert_non_null(strstr(text, ",failure\n"));
	assert_non_null(strstr(text, "\nsim,4socket,tas,2,"));
	assert_non_null(strstr(text, "\nsim,4socket,never,2,"));
	assert_non_null(strstr(text, ",\"deadlock"));
	assert_true(!fail_fast == !!strstr(text, "\nsim,4socket,mcs,2,"));
	free(text);
	expect_no_leftovers();
}

static void failed_run_keeps_the_others(void **state)
{
	if (!tl_is_sim()) {
		print_message("    (simulator only)\n");
		return;
	}
	sweep_with_failure(false, 3);
}

static void fail_fast_stops_at_the_first(void **state)
{
	if (!tl_is_sim()) {
		print_message("    (simulator only)\n");
		return;
	}
	sweep_with_failure(true, 2);
}

/* Only the lock nobody can take: no row is left for the table, and it
 * still opens with what the run was run with (settings:), before the
 * failed run's line. */
static void every_run_failed_keeps_the_settings(void **state)
{
	const char *args[] = { "--lock", "tas", "--threads", "2", "--runs", "1",
			       "--duration", "1", "--seed", "5", NULL };
	char err[512], *text, *settings, *failed;
	int rc;

	if (!tl_is_sim()) {
		print_message("    (simulator only)\n");
		return;
	}
	assert_int_equal(cli_parse_run(10, (char **)args, &opts, err, sizeof(err)), 0);
	opts.progress = false;
	opts.cfg.algos[0] = tl_never_lock();
	assert_int_equal(backend_check(&opts.cfg, err, sizeof(err)), 0);
	rc = tl_call(call_sweep, 0, NULL, tl_path("all-failed.log"));
	text = tl_slurp(tl_path("all-failed.log"), NULL);
	settings = strstr(text, "settings: pin compact, lock home same, seed 5");
	failed = strstr(text, "failed runs (not in the table):\nnever ");
	if (rc != 3 || !settings || !failed || settings > failed)
		fail_msg("status %d; no settings line before the failed run:\n%s", rc, text);
	free(text);
}

/* ------------------------------------------------ signals */

/* Starts the long sweep writing csv; returns its pid, its stderr in errf. */
static pid_t start_sweep(const char *csv, const char *json, const char *errf)
{
	const char *const *base = long_sweep();
	char path[1024];
	const char *argv[64];
	int n = 0;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", bindir, prog);
	argv[n++] = path;
	argv[n++] = "run";
	while (*base)
		argv[n++] = *base++;
	argv[n++] = "--csv";
	argv[n++] = csv;
	argv[n++] = "--json";
	argv[n++] = json;
	argv[n++] = "--threads-csv";
	argv[n++] = tl_path("threads.csv");
	argv[n] = NULL;
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int null = open("/dev/null", O_WRONLY);

		dup2(fd, 2);
		dup2(null, 1);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	return pid;
}

/* Waits (at most 60 s) until path has a header and a row. */
static void wait_for_a_row(const char *path)
{
	for (int i = 0; i < 6000; i++) {
		char *text = tl_slurp(path, NULL);
		unsigned n = count_lines(text);

		free(text);
		if (n >= 2)
			return;
		usleep(10000);
	}
	fail_msg("no row in %s after 60 s", path);
}

static void signal_keeps_finished_rows(int sig, int want)
{
	const char *csv = tl_path("sig.csv"), *json = tl_path("sig.json");
	char partial[400], *err;
	int st;
	pid_t pid;

	snprintf(partial, sizeof(partial), "%s.partial", csv);
	unlink(csv);
	pid = start_sweep(csv, json, tl_path("sig.err"));
	wait_for_a_row(partial);
	assert_int_equal(kill(pid, sig), 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	err = tl_slurp(tl_path("sig.err"), NULL);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != want)
		fail_msg("status %#x, not exit %d:\n%s", st, want, err);
	if (!strstr(err, "interrupted: ") || !strstr(err, " runs finished, kept in "))
		fail_msg("no 'interrupted' line:\n%s", err);
	free(err);
	assert_true(check_csv(csv) >= 1);
	assert_true(check_csv(tl_path("threads.csv")) >= 1);
	err = tl_slurp(json, NULL);
	assert_non_null(err);
	if (!strstr(err, "\"stopped_early\": {\"runs_done\": "))
		fail_msg("the JSON does not say the sweep stopped early:\n%.400s", err);
	free(err);
	expect_no_leftovers();
}

static void sigint_keeps_finished_rows(void **state)
{
	signal_keeps_finished_rows(SIGINT, 130);
}

static void sigterm_keeps_finished_rows(void **state)
{
	signal_keeps_finished_rows(SIGTERM, 143);
}

/* ------------------------------------------------ what is not a result file */

static void dev_full_is_refused_and_stays(void **state)
{
	struct tl_proc p;
	struct stat st;

	if (stat("/dev/full", &st) || !S_ISCHR(st.st_mode)) {
		print_message("    (no /dev/full)\n");
		return;
	}
	expect_refused((const char *const[]){ "--out", "/dev/full", NULL }, "/dev/full");
	expect_refused((const char *const[]){ "--csv", "/dev/full", NULL }, "/dev/full");
	expect_refused((const char *const[]){ "--format", "csv", "--out", "/dev/full", NULL },
		       "a device");
	assert_int_equal(stat("/dev/full", &st), 0);
	assert_true(S_ISCHR(st.st_mode));

	/* the standard output on a full device: 1 and a line */
	tl_sh(&p, "'%s/%s' list > /dev/full", bindir, prog);
	assert_int_equal(p.status, 1);
	assert_non_null(strstr(p.err, "standard output"));
	assert_int_equal(count_lines(p.err), 1);
	tl_proc_free(&p);
	tl_sh(&p, "'%s/%s' run --format csv %s > /dev/full", bindir, prog,
	      tl_is_sim() ? "--topo 2socket --lock tas --threads 2 --runs 1 --duration 1"
			  : "--lock tas --threads 1 --runs 1 --duration 5");
	assert_int_equal(p.status, 1);
	assert_non_null(strstr(p.err, "standard output"));
	tl_proc_free(&p);
	assert_int_equal(stat("/dev/full", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
}

/* A file system that fills mid-sweep (here the file-size limit, the
 * signal the program ignores, so that writes fail as on a full disk): the
 * journal keeps its whole rows only, and says how many of the sweep's; one
 * that cannot take even the header is not left behind. */
static void a_full_disk_keeps_whole_rows(void **state)
{
	static const char *const sim[] = { "--topo", "2socket", "--lock", "tas,ttas,mcs,clh",
					   "--threads", "1,2,4", "--runs", "2", "--duration", "1",
					   "--jobs", "1", NULL };
	static const char *const native[] = { "--lock", "tas,ttas,mcs,clh", "--threads", "1,2",
					      "--runs", "3", "--duration", "1", NULL };
	const char *const *w = tl_is_sim() ? sim : native;
	const char *csv = tl_path("full.csv");
	char partial[400], cmd[1400];
	size_t n = 0;
	struct tl_proc p;
	bool simgrid;
	int rc;

	snprintf(partial, sizeof(partial), "%s.partial", csv);
	unlink(partial);
	/* no trap: the program ignores SIGXFSZ itself, which once ended it mid-row */
	n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, "ulimit -f 8; exec %s/%s run",
			      bindir, tl_is_sim() ? "locklab-sim" : "locklab-native");
	for (; *w; w++)
		n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, " %s", *w);
	assert_int_equal(tl_sh(&p, "%s --format csv --out %s", cmd, csv), 1);
	/* one line: the file that failed, why, and which rows are kept where */
	if (!strstr(p.err, "cannot write ") || !strstr(p.err, " rows are kept in ") ||
	    !strstr(p.err, ".partial, each whole (File too large)\n") || strchr(p.err, '\n')[1])
		fail_msg("stderr does not say in one line which rows are kept:\n%s", p.err);
	tl_proc_free(&p);
	assert_true(check_csv(partial) >= 1); /* every line whole, as wide as the header */
	unlink(partial);
	/* 512 bytes: less than the header (the simulator's platform for SimGrid
	 * may not fit either: then it stops there, with its line, exit 2) */
	rc = tl_sh(&p, "trap '' XFSZ; ulimit -f 1; exec %s/%s run %s --format csv --out %s", bindir,
		   tl_is_sim() ? "locklab-sim" : "locklab-native",
		   tl_is_sim() ? "--topo 2socket --lock tas --threads 2 --runs 1 --duration 1"
			       : "--lock tas --threads 1 --runs 1 --duration 1", csv);
	simgrid = tl_is_sim() && strstr(p.err, "SimGrid: File too large");
	if (rc != (simgrid ? 2 : 1) || !strstr(p.err, simgrid ? "File too large" : "cannot write "))
		fail_msg("status %d, and no line saying why:\n%s", rc, p.err);
	tl_proc_free(&p);
	assert_int_equal(access(partial, F_OK), -1);
	expect_no_leftovers();
}

static void fifo_and_link_are_refused_and_stay(void **state)
{
	const char *fifo = tl_path("fifo"), *link = tl_path("link.csv"), *target = tl_path("target");
	struct stat st;

	unlink(fifo);
	unlink(link);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_int_equal(symlink(target, link), 0);
	expect_refused((const char *const[]){ "--out", fifo, NULL }, "a FIFO");
	expect_refused((const char *const[]){ "--csv", link, NULL }, "a symbolic link");
	expect_refused((const char *const[]){ "--json", link, NULL }, "a symbolic link");
	expect_refused((const char *const[]){ "--threads-csv", fifo, NULL }, "a FIFO");
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(access(target, F_OK), -1);
}

/* A file this user may not write is refused, not replaced (a rename over
 * it would succeed in a writable directory).  Root may write any file, so
 * as root the command runs as nobody (setpriv), on a read-only file of
 * root's in a directory that everyone may write. */
static void read_only_as_nobody(void)
{
	char dir[] = "/tmp/locklab-read-only.XXXXXX", ro[64];
	const char *const *base = short_sweep();
	struct tl_proc p;
	char args[256] = "";

	if (tl_sh(NULL, "command -v setpriv >/dev/null") != 0) {
		printf("  (as root, without setpriv: the read-only case is not run)\n");
		return;
	}
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 01777), 0);
	snprintf(ro, sizeof(ro), "%s/read-only.csv", dir);
	assert_int_equal(tl_sh(NULL, "echo kept > '%s' && chmod 444 '%s'", ro, ro), 0);
	for (; *base; base++)
		snprintf(args + strlen(args), sizeof(args) - strlen(args), " %s", *base);
	tl_sh(&p, "setpriv --reuid=65534 --regid=65534 --clear-groups %s/%s run%s --csv '%s'",
	      bindir, prog, args, ro);
	tl_expect_refused(&p, "results replace only a file");
	tl_proc_free(&p);
	assert_int_equal(tl_sh(NULL, "grep -qx kept '%s' && rm -rf '%s'", ro, dir), 0);
}

static void read_only_is_refused(void)
{
	const char *ro = tl_path("read-only.csv");

	if (!geteuid()) {
		read_only_as_nobody();
		return;
	}
	assert_int_equal(tl_sh(NULL, "echo kept > '%s' && chmod 444 '%s'", ro, ro), 0);
	expect_refused((const char *const[]){ "--csv", ro, NULL }, "results replace only a file");
	assert_int_equal(tl_sh(NULL, "grep -qx kept '%s'", ro), 0);
	chmod(ro, 0644);
	unlink(ro);
}

static void paths_are_checked_before_the_first_run(void **state)
{
	char partial[400];

	expect_refused((const char *const[]){ "--csv", tl_tmpdir(), NULL }, "a directory");
	expect_refused((const char *const[]){ "--json", "/nonexistent-dir/x.json", NULL },
		       "/nonexistent-dir");
	/* the journal of a sweep that did not finish is never overwritten */
	snprintf(partial, sizeof(partial), "%s.partial", tl_path("left.csv"));
	assert_int_equal(tl_sh(NULL, "echo kept > '%s'", partial), 0);
	expect_refused((const char *const[]){ "--csv", tl_path("left.csv"), NULL }, ".partial");
	assert_int_equal(tl_sh(NULL, "grep -qx kept '%s'", partial), 0);
	unlink(partial);
	/* nor is an output named after a CSV's journal (it was removed, or
	 * left to block the next sweep) */
	expect_refused((const char *const[]){ "--csv", tl_path("left.csv"), "--json", partial, NULL },
		       "the journal of --csv");
	expect_refused((const char *const[]){ "--format", "csv", "--out", tl_path("left.csv"),
					      "--threads-csv", partial, NULL },
		       "the journal of --out");
	assert_int_equal(access(partial, F_OK), -1);
	read_only_is_refused();
}

/* "-" is no name for a result file (the standard output is where results
 * go without --out), nor is the simulator's --graphs directory. */
static void dash_and_graphs_dir_are_refused(void **state)
{
	const char *dir = tl_path("graphs-dir");

	expect_refused((const char *const[]){ "--out", "-", NULL },
		       "--out -: '-' is not the standard output");
	expect_refused((const char *const[]){ "--csv", "-", NULL },
		       "--csv -: '-' is not the standard output");
	if (!tl_is_sim())
		return;
	rmdir(dir);
	expect_refused((const char *const[]){ "--graphs", dir, "--csv", dir, NULL },
		       "the directory of --graphs");
	assert_int_equal(access(dir, F_OK), -1); /* the refused command made nothing */
}

/* The JSON's environment names the seed, in both backends. */
static void json_names_the_seed(void **state)
{
	struct tl_proc p;
	const char *json = tl_path("seed.json");
	char *text;

	run_with(&p, short_sweep(), (const char *const[]){ "--seed", "7", "--json", json, NULL });
	if (p.status)
		fail_msg("exit status %d:\n%s", p.status, p.err);
	tl_proc_free(&p);
	text = tl_slurp(json, NULL);
	assert_non_null(text);
	if (!strstr(text, "\"seed\": 7"))
		fail_msg("no seed in the JSON:\n%.600s", text);
	free(text);
}

static void a_finished_sweep_leaves_only_its_files(void **state)
{
	struct tl_proc p;
	const char *csv = tl_path("done.csv");

	run_with(&p, short_sweep(), (const char *const[]){ "--csv", csv, "--format", "csv",
							 "--out", tl_path("done2.csv"), NULL });
	if (p.status)
		fail_msg("exit status %d:\n%s", p.status, p.err);
	tl_proc_free(&p);
	assert_int_equal(check_csv(csv), 1);
	assert_int_equal(tl_sh(NULL, "cmp -s '%s' '%s'", csv, tl_path("done2.csv")), 0);
	expect_no_leftovers();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(failed_run_keeps_the_others),
		cmocka_unit_test(fail_fast_stops_at_the_first),
		cmocka_unit_test(sigint_keeps_finished_rows),
		cmocka_unit_test(sigterm_keeps_finished_rows),
		cmocka_unit_test(dev_full_is_refused_and_stays),
		cmocka_unit_test(fifo_and_link_are_refused_and_stay),
		cmocka_unit_test(a_full_disk_keeps_whole_rows),
		cmocka_unit_test(paths_are_checked_before_the_first_run),
		cmocka_unit_test(a_finished_sweep_leaves_only_its_files),
		cmocka_unit_test(every_run_failed_keeps_the_settings),
		cmocka_unit_test(dash_and_graphs_dir_are_refused),
		cmocka_unit_test(json_names_the_seed),
	};

	bindir = tl_bindir(argc, argv);
	if (tl_backend_start(argv[0], "4socket"))
		return 1;
	snprintf(prog, sizeof(prog), "locklab-%s", backend_name);
	return cmocka_run_group_tests(tests, tl_tmpdir_setup, tl_tmpdir_teardown);
}
