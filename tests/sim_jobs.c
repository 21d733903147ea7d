/*
 * tests/sim_jobs.c - a sweep in worker processes and a sweep in shards:
 * `run --jobs N` writes the table, CSV, JSON and per-thread CSV of
 * `--jobs 1` byte for byte (also with --vm overcommits); the CSVs of
 * `--shard I/N` merged by `merge` are the CSV of the whole sweep, empty
 * shards included; a worker killed in a run loses that run only (its row
 * says how the worker ended, a new worker takes the runs after it); a
 * stop asked by SIGTERM ends the simulated runs in progress, there and in
 * workers; an
 * open-file limit too low for --jobs gives fewer workers and a line; bad
 * --jobs and --shard values, parallel native runs and merges of shards
 * that do not fit (or that are FIFOs, or hold a number edited into text)
 * are refused with exit 2 and one line.  argv[1]: the
 * bin/ directory.
 */
#include "testlib.h"

#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <time.h>

static const char *bindir;

#define SWEEP "--topo 2socket --lock ttas,mcs,ticket --threads 1,2,4 --runs 2 --duration 1"
#define VM_SWEEP "--topo 2socket --lock ttas,mcs --vm 4 --threads 2,4 --overcommit 1,2 " \
		 "--runs 2 --duration 1"

static void assert_same_file(const char *a, const char *b)
{
	size_t la, lb;
	char *x = tl_slurp(tl_path(a), &la), *y = tl_slurp(tl_path(b), &lb);

	if (la != lb || memcmp(x, y, la))
		fail_msg("%s and %s differ", a, b);
	free(x);
	free(y);
}

/* The sweep with --jobs j, every output into files tagged tag. */
static void sweep_jobs(const char *args, unsigned j, const char *tag)
{
	int rc = tl_sh(NULL, "cd '%s' && '%s/locklab-sim' run %s --jobs %u --csv %s.csv "
			     "--json %s.json --threads-csv %s-threads.csv > %s.txt",
		       tl_tmpdir(), bindir, args, j, tag, tag, tag, tag);

	assert_int_equal(rc, 0);
}

static void check_jobs_identical(const char *args)
{
	static const char *const ext[] = { ".csv", ".json", "-threads.csv", ".txt" };
	char a[64], b[64];

	sweep_jobs(args, 1, "one");
	for (unsigned j = 2; j <= 3; j++) {
		sweep_jobs(args, j, "many");
		for (unsigned e = 0; e < 4; e++) {
			snprintf(a, sizeof(a), "one%s", ext[e]);
			snprintf(b, sizeof(b), "many%s", ext[e]);
			assert_same_file(a, b);
		}
	}
}

static void jobs_write_what_one_process_writes(void **state)
{
	check_jobs_identical(SWEEP);
}

static void jobs_with_overcommit(void **state)
{
	check_jobs_identical(VM_SWEEP);
}

/* A child of pid (from /proc), or 0 while it has none. */
static pid_t child_of(pid_t pid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;

	assert_non_null(d);
	while (!found && (e = readdir(d))) {
		char path[300], buf[512], *close_paren;
		long ppid;
		FILE *f;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		/* pid (comm) state ppid: comm may hold spaces, so after the last ')' */
		if (fgets(buf, sizeof(buf), f) && (close_paren = strrchr(buf, ')')) &&
		    sscanf(close_paren + 1, " %*c %ld", &ppid) == 1 && ppid == pid)
			found = (pid_t)atol(e->d_name);
		fclose(f);
	}
	closedir(d);
	return found;
}

/* SIGKILL to a worker in its first run: the sweep goes on with a new
 * worker, that run's row is a failed one naming the signal, the others
 * have their results, and the sweep exits 3 (a run failed). */
static void a_killed_worker_loses_its_run_only(void **state)
{
	char path[1024], *csv, *err;
	pid_t pid, w = 0;
	int st;

	snprintf(path, sizeof(path), "%s/locklab-sim", bindir);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (!freopen(tl_path("killed.err"), "w", stderr) || !freopen("/dev/null", "w", stdout))
			_exit(127);
		execl(path, path, "run", "--topo", "2socket", "--lock", "mcs", "--threads", "2",
		      "--runs", "4", "--duration", "300", "--jobs", "2", "--csv",
		      tl_path("killed.csv"), (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 3000 && !(w = child_of(pid)); i++)
		usleep(10000);
	assert_true(w > 0);
	usleep(100000); /* in its run: a run takes about a second here */
	assert_int_equal(kill(w, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	err = tl_slurp(tl_path("killed.err"), NULL);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 3)
		fail_msg("status %#x, not exit 3:\n%s", st, err);
	if (!strstr(err, "the worker process died of signal 9") || !strstr(err, "1 of 4 runs failed"))
		fail_msg("stderr does not say which run was lost and why:\n%s", err);
	csv = tl_slurp(tl_path("killed.csv"), NULL);
	assert_non_null(csv);
	for (unsigned run = 0; run < 4; run++) {
		char row[64];

		snprintf(row, sizeof(row), "\nsim,2socket,mcs,2,50,200,1,1,1,%u,", run);
		if (!strstr(csv, row))
			fail_msg("no row for run %u:\n%s", run, csv);
	}
	if (!strstr(csv, ",the worker process died of signal 9\n") ||
	    strstr(strstr(csv, "died of signal 9") + 1, "died of signal"))
		fail_msg("not one row lost to the killed worker:\n%s", csv);
	free(csv);
	free(err);
}

/* SIGTERM to a sweep whose simulated runs would last a day: each run in
 * progress ends at its next event as a failed row saying so, in the
 * process itself (--jobs 1, with the watchdog off: no progress check is due
 * in the run) and in workers (--jobs 2), and the sweep exits 143 at once,
 * its CSV written. */
static void a_stop_ends_the_runs_in_progress(unsigned jobs, const char *watchdog)
{
	char path[1024], j[16], *csv, *err;
	struct timespec t0, t1;
	pid_t pid;
	int st;

	snprintf(path, sizeof(path), "%s/locklab-sim", bindir);
	snprintf(j, sizeof(j), "%u", jobs);
	unlink(tl_path("stopped.csv"));
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (!freopen(tl_path("stopped.err"), "w", stderr) || !freopen("/dev/null", "w", stdout))
			_exit(127);
		execl(path, path, "run", "--topo", "2socket", "--lock", "tas", "--threads", "2",
		      "--runs", "2", "--duration", "86400000", "--jobs", j, "--watchdog", watchdog,
		      "--csv", tl_path("stopped.csv"), (char *)NULL);
		_exit(127);
	}
	usleep(500000); /* the runs under way */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(kill(pid, SIGTERM), 0);
	for (int i = 0; i < 6000 && waitpid(pid, &st, WNOHANG) == 0; i++)
		usleep(10000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (t1.tv_sec - t0.tv_sec >= 60) { /* the runs went on: end them, and the test fails */
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	err = tl_slurp(tl_path("stopped.err"), NULL);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 143)
		fail_msg("--jobs %u: status %#x, not exit 143:\n%s", jobs, st, err);
	if (t1.tv_sec - t0.tv_sec > 30)
		fail_msg("--jobs %u: %ld s from the signal to the end", jobs, (long)(t1.tv_sec - t0.tv_sec));
	if (!strstr(err, "stopping now: a run in progress ends as a failed row"))
		fail_msg("--jobs %u: stderr does not say the runs end:\n%s", jobs, err);
	csv = tl_slurp(tl_path("stopped.csv"), NULL);
	assert_non_null(csv);
	if (!strstr(csv, " ms of simulated time\n") || !strstr(csv, ",stopped by a signal at "))
		fail_msg("--jobs %u: no row of a run stopped:\n%s", jobs, csv);
	free(csv);
	free(err);
}

static void a_stop_ends_simulated_runs(void **state)
{
	a_stop_ends_the_runs_in_progress(1, "0"); /* no check of progress due in the run */
	a_stop_ends_the_runs_in_progress(2, "10");
}

/* The shim tests/shims/die_before_start.c, built beside the plain
 * simulator's tests (BUILD/sim/tests), whichever variant this test is. */
static char shim[PATH_MAX + 64];

/* A worker that dies between two runs, after it took a run and before it
 * started it: a new worker runs that run, and the CSV is the sweep's whole,
 * as --jobs 1 writes it; the death is said on stderr. */
static void a_worker_dead_before_its_run_is_replaced(void **state)
{
	char *err;

	if (access(shim, R_OK)) {
		print_message("no %s (the sim variant is not built): skipped\n", shim);
		skip();
	}
	assert_int_equal(tl_sh(NULL, "cd '%s' && rm -f died && '%s/locklab-sim' run %s --jobs 1 "
				     "--csv ack1.csv >/dev/null && LD_PRELOAD='%s' "
				     "LOCKLAB_SHIM_DIE_ACK=2 LOCKLAB_SHIM_ONCE=died '%s/locklab-sim' "
				     "run %s --jobs 2 --csv ack2.csv >/dev/null 2>ack2.err",
			       tl_tmpdir(), bindir, SWEEP, shim, bindir, SWEEP), 0);
	err = tl_slurp(tl_path("ack2.err"), NULL);
	if (!strstr(err, "between two runs the worker process exited with status 7; a new one "
			 "goes on"))
		fail_msg("the death between runs is not said:\n%s", err);
	free(err);
	assert_int_equal(access(tl_path("died"), F_OK), 0); /* the shim did strike */
	assert_same_file("ack1.csv", "ack2.csv");
}

/* An open-file limit below what --jobs needs: fewer workers, said in one
 * line, the same CSV. */
static void jobs_fit_the_open_file_limit(void **state)
{
	char *err;

	assert_int_equal(tl_sh(NULL, "cd '%s' && '%s/locklab-sim' run %s --jobs 1 --csv lim1.csv "
				     ">/dev/null && (ulimit -n 70 && '%s/locklab-sim' run %s --jobs 8 "
				     "--csv lim8.csv >/dev/null 2>lim8.err)",
			       tl_tmpdir(), bindir, SWEEP, bindir, SWEEP), 0);
	err = tl_slurp(tl_path("lim8.err"), NULL);
	if (!strstr(err, "--jobs: 6 worker processes at most (the open-file limit, ulimit -n, is 70)"))
		fail_msg("no line about the open-file limit:\n%s", err);
	free(err);
	assert_same_file("lim1.csv", "lim8.csv");
}

/* The sweep in n shards, merged into merged.csv; the plain CSV in plain.csv. */
static void shard_and_merge(const char *args, unsigned n)
{
	char *list = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&list, &len);

	assert_int_equal(tl_sh(NULL, "cd '%s' && '%s/locklab-sim' run %s --csv plain.csv >/dev/null",
			       tl_tmpdir(), bindir, args), 0);
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(tl_sh(NULL, "cd '%s' && '%s/locklab-sim' run %s --shard %u/%u "
				       "--csv shard-%u.csv --json shard-%u.json >/dev/null",
				       tl_tmpdir(), bindir, args, i, n, i, i), 0);
		fprintf(f, " shard-%u.csv", i);
	}
	fclose(f);
	assert_int_equal(tl_sh(NULL, "cd '%s' && rm -f merged.csv && '%s/locklab-sim' merge "
			       "--out merged.csv%s", tl_tmpdir(), bindir, list), 0);
	free(list);
	assert_same_file("plain.csv", "merged.csv");
}

static void shards_merge_into_the_sweep(void **state)
{
	shard_and_merge(SWEEP, 3);
	shard_and_merge(SWEEP, 1);
	shard_and_merge(VM_SWEEP, 2);
}

/* More shards than configurations: header-only CSVs, merged all the same. */
static void empty_shards_merge(void **state)
{
	shard_and_merge("--topo 2socket --lock ttas,mcs --threads 2 --runs 2 --duration 1", 5);
}

/* The command exits 2 with one line on stderr and nothing on stdout. */
static void refused(const char *fmt, const char *arg)
{
	struct tl_proc p;
	char *nl;

	tl_sh(&p, fmt, tl_tmpdir(), bindir, arg);
	if (p.status != 2)
		fail_msg("exit %d, not 2: %s %s (%s)", p.status, fmt, arg, p.err);
	nl = strchr(p.err, '\n');
	assert_non_null(nl);
	assert_string_equal(nl + 1, "");
	assert_string_equal(p.out, "");
	tl_proc_free(&p);
}

static void bad_values_are_refused(void **state)
{
	static const char *const shards[] = { "1/1", "3/2", "0/0", "x", "1", "/2", "1/", "-1/2",
					      "1/2/3", "0/x", "" };
	static const char *const jobs[] = { "0", "x", "-1", "", "4097" };
	const char *run = "cd '%s' && '%s/locklab-sim' run --topo 2socket --lock ttas "
			  "--threads 2 --duration 1 --csv x.csv %s";
	char arg[64];

	for (size_t i = 0; i < sizeof(shards) / sizeof(shards[0]); i++) {
		snprintf(arg, sizeof(arg), "--shard '%s'", shards[i]);
		refused(run, arg);
	}
	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		snprintf(arg, sizeof(arg), "--jobs '%s'", jobs[i]);
		refused(run, arg);
	}
	refused("cd '%s' && '%s/locklab-native' run --lock tas --threads 1 --duration 1 %s",
		"--jobs 2");
}

/* A shard says it is one: under the settings line and in the JSON. */
static void a_shard_says_so(void **state)
{
	struct tl_proc p;
	char *json;

	assert_int_equal(tl_sh(&p, "cd '%s' && '%s/locklab-sim' run " SWEEP " --shard 1/3 "
			       "--csv said.csv --json said.json", tl_tmpdir(), bindir), 0);
	assert_non_null(strstr(p.out, "\n--shard 1/3: these rows are one of the sweep's 3 shards"));
	tl_proc_free(&p);
	json = tl_slurp(tl_path("said.json"), NULL);
	assert_non_null(json);
	assert_non_null(strstr(json, "\"shard\": \"1/3\""));
	free(json);
	assert_int_equal(tl_sh(&p, "cd '%s' && '%s/locklab-sim' run " SWEEP " --csv whole.csv",
			       tl_tmpdir(), bindir), 0);
	assert_null(strstr(p.out, "--shard"));
	tl_proc_free(&p);
}

static void merge_refuses_what_does_not_fit(void **state)
{
	const char *merge = "cd '%s' && '%s/locklab-sim' merge %s";

	shard_and_merge(SWEEP, 3);
	/* a shard of a sweep with other columns */
	assert_int_equal(tl_sh(NULL, "cd '%s' && '%s/locklab-sim' run " VM_SWEEP " --shard 1/3 "
			       "--csv vm-1.csv >/dev/null", tl_tmpdir(), bindir), 0);
	refused(merge, "--out m.csv shard-0.csv vm-1.csv shard-2.csv");
	refused(merge, "--out m.csv shard-0.csv shard-2.csv");         /* one missing */
	refused(merge, "--out m.csv shard-0.csv shard-1.csv shard-1.csv shard-2.csv");
	refused(merge, "--out m.csv shard-0.csv shard-1.csv plain.csv"); /* no .order */
	refused(merge, "shard-0.csv shard-1.csv shard-2.csv");          /* no --out */
	/* a number edited into something else */
	assert_int_equal(tl_sh(NULL, "cd '%s' && sed '2s/,[0-9]*[.][0-9]*,/,1x,/' shard-0.csv > "
			       "num-0.csv && cp shard-0.csv.order num-0.csv.order && "
			       "! cmp -s shard-0.csv num-0.csv", tl_tmpdir()), 0);
	refused(merge, "--out m.csv num-0.csv shard-1.csv shard-2.csv");
	/* and into a negative one, which no run writes */
	assert_int_equal(tl_sh(NULL, "cd '%s' && sed '2s/,\\([0-9]*[.][0-9]*\\),/,-\\1,/' shard-0.csv > "
			       "neg-0.csv && cp shard-0.csv.order neg-0.csv.order && "
			       "! cmp -s shard-0.csv neg-0.csv", tl_tmpdir()), 0);
	refused(merge, "--out m.csv neg-0.csv shard-1.csv shard-2.csv");
	/* a FIFO as a shard or as its order: refused, not waited on */
	assert_int_equal(tl_sh(NULL, "cd '%s' && rm -f fifo.csv fifo.csv.order && mkfifo fifo.csv && "
			       "cp shard-2.csv f2.csv && mkfifo f2.csv.order", tl_tmpdir()), 0);
	refused("cd '%s' && timeout 20 '%s/locklab-sim' merge %s",
		"--out m.csv shard-0.csv shard-1.csv fifo.csv");
	refused("cd '%s' && timeout 20 '%s/locklab-sim' merge %s",
		"--out m.csv shard-0.csv shard-1.csv f2.csv");
	refused(merge, "--out m.csv");
	refused(merge, "--out m.csv --bogus shard-0.csv");
	refused(merge, "--out m.csv shard-0.csv shard-1.csv nonexistent.csv");
	/* a shard of another sweep of the same shape: another seed */
	assert_int_equal(tl_sh(NULL, "cd '%s' && '%s/locklab-sim' run " SWEEP " --seed 7 "
			       "--shard 1/3 --csv seed7-1.csv >/dev/null", tl_tmpdir(), bindir), 0);
	refused(merge, "--out m.csv shard-0.csv seed7-1.csv shard-2.csv");
	/* an order whose key alone was edited: said so, not as two same options */
	{
		struct tl_proc p;

		assert_int_equal(tl_sh(NULL, "cd '%s' && cp shard-1.csv key-1.csv && sed '1s/ [0-9a-f]*$/ "
				       "0000000000000001/' shard-1.csv.order > key-1.csv.order", tl_tmpdir()), 0);
		assert_int_equal(tl_sh(&p, "cd '%s' && '%s/locklab-sim' merge --out m.csv shard-0.csv "
					   "key-1.csv shard-2.csv", tl_tmpdir(), bindir), 2);
		assert_non_null(strstr(p.err, "their keys differ"));
		tl_proc_free(&p);
	}
	/* the same sweep with its options in another order is one sweep */
	assert_int_equal(tl_sh(NULL, "cd '%s' && '%s/locklab-sim' run --shard 1/3 --duration 1 "
			       "--runs 2 --threads 1,2,4 --lock ttas,mcs,ticket --topo 2socket "
			       "--graphs g1 --watchdog 500 --csv again-1.csv >/dev/null && '%s/locklab-sim' merge --out "
			       "again.csv shard-0.csv again-1.csv shard-2.csv && cmp -s again.csv "
			       "plain.csv", tl_tmpdir(), bindir, bindir), 0);
	/* and with a default spelt out (--seed 1, --cs 50, --cs-lines 1) */
	assert_int_equal(tl_sh(NULL, "cd '%s' && '%s/locklab-sim' run " SWEEP " --seed 1 --cs 50 "
			       "--cs-lines 1 --shard 1/3 --csv dflt-1.csv >/dev/null && "
			       "'%s/locklab-sim' merge --out dflt.csv shard-0.csv dflt-1.csv "
			       "shard-2.csv && cmp -s dflt.csv plain.csv", tl_tmpdir(), bindir, bindir),
			 0);
	refused(merge, "--out shard-1.csv shard-0.csv shard-1.csv shard-2.csv"); /* over a shard */
	refused(merge, "--out shard-1.csv.order shard-0.csv shard-1.csv shard-2.csv"); /* its order */
	/* a shard's PATH.order is an output: no other output may be it */
	refused("cd '%s' && '%s/locklab-sim' run " SWEEP " %s",
		"--shard 0/3 --csv o.csv --json o.csv.order");
	refused("cd '%s' && '%s/locklab-sim' run " SWEEP " %s",
		"--shard 0/3 --csv o.csv --threads-csv o.csv.order");
	/* a row that is not the header's */
	assert_int_equal(tl_sh(NULL, "cd '%s' && sed '2s/.*/hello world/' shard-1.csv > bad-1.csv && "
			       "cp shard-1.csv.order bad-1.csv.order", tl_tmpdir()), 0);
	refused(merge, "--out m.csv shard-0.csv bad-1.csv shard-2.csv");
	/* a shard of another machine (or a native one): its backend and topo differ */
	assert_int_equal(tl_sh(NULL, "cd '%s' && sed '2,$s/^sim,2socket,/native,otherhost,/' "
			       "shard-1.csv > host-1.csv && cp shard-1.csv.order host-1.csv.order",
			       tl_tmpdir()), 0);
	refused(merge, "--out m.csv shard-0.csv host-1.csv shard-2.csv");
	/* a row edited into another configuration: its .order says which it is */
	assert_int_equal(tl_sh(NULL, "cd '%s' && sed '2s/^sim,2socket,[a-z]*,[0-9]*,/sim,2socket,"
			       "clh,9,/' shard-1.csv > edit-1.csv && cp shard-1.csv.order "
			       "edit-1.csv.order", tl_tmpdir()), 0);
	refused(merge, "--out m.csv shard-0.csv edit-1.csv shard-2.csv");
	/* a shard cut short: the CSV is named as short, not its order */
	{
		struct tl_proc p;

		assert_int_equal(tl_sh(NULL, "cd '%s' && head -n -1 shard-1.csv > short-1.csv && "
				       "cp shard-1.csv.order short-1.csv.order", tl_tmpdir()), 0);
		assert_int_equal(tl_sh(&p, "cd '%s' && '%s/locklab-sim' merge --out m.csv shard-0.csv "
					   "short-1.csv shard-2.csv", tl_tmpdir(), bindir), 2);
		assert_non_null(strstr(p.err, "short-1.csv: "));
		assert_non_null(strstr(p.err, " rows, fewer than "));
		tl_proc_free(&p);
	}
	/* a shard's CSV written again without --shard loses its order */
	assert_int_equal(tl_sh(NULL, "cd '%s' && cp shard-1.csv re.csv && cp shard-1.csv.order "
			       "re.csv.order && '%s/locklab-sim' run " SWEEP " --csv re.csv >/dev/null "
			       "&& test ! -e re.csv.order", tl_tmpdir(), bindir), 0);
}

static void write_file(const char *name, const char *text)
{
	FILE *f = fopen(tl_path(name), "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Only a shard with a failed run has the failure column: the merged CSV
 * has it, empty in the rows of the other shards. */
static void merge_adds_the_failure_column(void **state)
{
	size_t len;
	char *text;

#define F_HEAD "backend,topo,lock,threads,cs_ns,ncs_ns,cs_lines,locks,seed,run"
	write_file("f0.csv", F_HEAD "\nsim,t,ttas,2,50,200,1,1,1,0\nsim,t,mcs,2,50,200,1,1,1,0\n");
	write_file("f0.csv.order", "locklab-shard3 0/2 3 1f\nrun --lock x\n0 ttas 2 0\n2 mcs 2 0\n");
	write_file("f1.csv", F_HEAD ",failure\nsim,t,never,2,50,200,1,1,1,0,\"deadlock, all "
				 "waiting\"\n");
	write_file("f1.csv.order", "locklab-shard3 1/2 3 1f\nrun --lock x\n1 never 2 0\n");
	assert_int_equal(tl_sh(NULL, "cd '%s' && '%s/locklab-sim' merge --out f.csv f1.csv f0.csv",
			       tl_tmpdir(), bindir), 0);
	text = tl_slurp(tl_path("f.csv"), &len);
	assert_string_equal(text, F_HEAD ",failure\nsim,t,ttas,2,50,200,1,1,1,0,\n"
				  "sim,t,never,2,50,200,1,1,1,0,\"deadlock, all waiting\"\n"
				  "sim,t,mcs,2,50,200,1,1,1,0,\n");
#undef F_HEAD
	free(text);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(jobs_write_what_one_process_writes),
		cmocka_unit_test(jobs_with_overcommit),
		cmocka_unit_test(a_killed_worker_loses_its_run_only),
		cmocka_unit_test(a_stop_ends_simulated_runs),
		cmocka_unit_test(a_worker_dead_before_its_run_is_replaced),
		cmocka_unit_test(jobs_fit_the_open_file_limit),
		cmocka_unit_test(shards_merge_into_the_sweep),
		cmocka_unit_test(empty_shards_merge),
		cmocka_unit_test(bad_values_are_refused),
		cmocka_unit_test(merge_refuses_what_does_not_fit),
		cmocka_unit_test(a_shard_says_so),
		cmocka_unit_test(merge_adds_the_failure_column),
	};

	if (argc < 2) {
		fprintf(stderr, "usage: %s BINDIR\n", argv[0]);
		return 2;
	}
	bindir = argv[1];
	{
		char self[PATH_MAX], dir[PATH_MAX];

		if (!realpath(argv[0], self))
			snprintf(self, sizeof(self), "%s", argv[0]);
		snprintf(dir, sizeof(dir), "%s", dirname(self));
		snprintf(shim, sizeof(shim), "%s/../../sim/tests/libshim_die_before_start.so", dir);
	}
	return cmocka_run_group_tests(tests, tl_tmpdir_setup, tl_tmpdir_teardown);
}
