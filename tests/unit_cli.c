/*
 * tests/unit_cli.c - bad input to either binary: exit status 2 and exactly
 * one line on stderr that names the problem.  Also `list`, `--help` after
 * every sub-command, `--version`, and the command list of the hint.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <locklab/args.h>

#include "testlib.h"

#include <math.h>

static const char *bindir;

#define BAD(prog, needle, ...)                                                         \
	do {                                                                           \
		const char *const a_[] = { __VA_ARGS__, NULL };                        \
		tl_bin_refused(bindir, prog, a_, needle);                              \
	} while (0)

/* Whether the --help of prog's cmd names the option (a whole word). */
static bool help_names(const char *prog, const char *cmd, const char *opt)
{
	const char *const args[] = { cmd, "--help", NULL };
	struct tl_proc p;
	bool found = false;

	tl_bin(&p, bindir, prog, args);
	for (const char *at = p.out; (at = strstr(at, opt)); at += strlen(opt)) {
		char next = at[strlen(opt)];

		if (!(next >= 'a' && next <= 'z') && next != '-')
			found = true;
	}
	tl_proc_free(&p);
	return found;
}

/* An option or a command of the other binary is named so, and the lists
 * that say so hold exactly options one binary's --help names and the
 * other's does not, and commands one binary has and the other lacks. */
static void options_of_the_other_binary(void **state)
{
	static const struct {
		const char *const *list;
		const char *cmd, *has, *lacks;
	} lists[] = {
		{ ll_sim_only_run, "run", "locklab-sim", "locklab-native" },
		{ ll_sim_only_filelock, "filelock", "locklab-sim", "locklab-native" },
		{ ll_native_only_filelock, "filelock", "locklab-native", "locklab-sim" },
	};

	(void)state;
	for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++)
		for (const char *const *o = lists[l].list; *o; o++) {
			if (!help_names(lists[l].has, lists[l].cmd, *o) ||
			    help_names(lists[l].lacks, lists[l].cmd, *o))
				fail_msg("%s: listed as %s %s's only, but the --help texts disagree",
					 *o, lists[l].has, lists[l].cmd);
		}
	BAD("locklab-native", "--topo: an option of locklab-sim run (the simulator); "
	    "locklab-native run --help lists this binary's options", "run", "--topo", "4socket");
	BAD("locklab-sim", "--dir: an option of locklab-native filelock (the real kernel's)",
	    "filelock", "--dir", "/tmp");
	BAD("locklab-native", "--frob: unknown option", "run", "--frob");
	/* a command of the other binary: one line naming that binary; each
	 * listed command is the one binary's and not the other's */
	for (int l = 0; l < 2; l++)
		for (const char *const *c = l ? ll_native_only_commands : ll_sim_only_commands; *c;
		     c++) {
			const char *has = l ? "locklab-native" : "locklab-sim";
			const char *lacks = l ? "locklab-sim" : "locklab-native";
			const char *const help[] = { "help", *c, NULL };
			const char *const cmd[] = { *c, NULL };
			char said[160];
			struct tl_proc p;

			assert_int_equal(tl_bin(&p, bindir, has, help), 0);
			tl_proc_free(&p);
			tl_fmt(said, sizeof(said), "%s: a command of %s (", *c, has);
			tl_bin_refused(bindir, lacks, cmd, said);
		}
	BAD("locklab-native", "unknown command 'frob'", "frob");
}

static void bad_input_native(void **state)
{
	const char *p = "locklab-native";

	BAD(p, "unknown lock 'nosuchlock'", "run", "--lock", "nosuchlock");
	BAD(p, "--duration: -5 is out of range (1..", "run", "--lock", "ticket", "--duration", "-5");
	BAD(p, "--threads: 'abc' is not a whole number", "run", "--lock", "ticket", "--threads", "abc");
	BAD(p, "--duration: 'abc' is not a whole number of milliseconds", "run", "--lock", "ticket",
	    "--duration", "abc");
	BAD(p, "unknown lock 'tiket'; did you mean ticket?", "run", "--lock", "tiket");
	BAD(p, "unknown lock 'MCS'; did you mean mcs?", "run", "--lock", "MCS");
	BAD(p, "--duration", "run", "--lock", "ticket", "--duration", "0");
	BAD(p, "--duration: 99999999999999999999 is out of range", "run", "--lock", "ticket",
	    "--duration", "99999999999999999999");
	BAD(p, "--threads", "run", "--lock", "ticket", "--threads", "0");
	BAD(p, "--threads", "run", "--lock", "ticket", "--threads", "1,,2");
	BAD(p, "--threads", "run", "--lock", "ticket", "--threads", "100000");
	BAD(p, "--cs", "run", "--lock", "ticket", "--cs", "-1");
	BAD(p, "--ncs", "run", "--lock", "ticket", "--ncs", "exp:x");
	BAD(p, "--ncs: exp:0 has no mean to draw from", "run", "--lock", "ticket", "--ncs", "exp:0");
	BAD(p, "--cs-lines", "run", "--lock", "ticket", "--cs-lines", "4097");
	BAD(p, "--locks", "run", "--lock", "ticket", "--locks", "0");
	BAD(p, "--read-pct", "run", "--lock", "ticket", "--read-pct", "101");
	BAD(p, "--runs", "run", "--lock", "ticket", "--runs", "0");
	BAD(p, "--pin", "run", "--lock", "ticket", "--pin", "diagonal");
	BAD(p, "--pin node:N", "run", "--lock", "ticket", "--pin", "node:x");
	BAD(p, "--pin", "run", "--lock", "ticket", "--pin", "list:0", "--threads", "2");
	BAD(p, "--format", "run", "--lock", "ticket", "--format", "xml");
	BAD(p, "exclude", "run", "--lock", "ticket", "--ops", "10", "--duration", "10");
	BAD(p, "run: --bogus: unknown option", "run", "--bogus", "1");
	BAD(p, "run: --bogus: unknown option", "run", "--lock", "ticket", "--bogus");
	BAD(p, "--lock: ticket is listed twice", "run", "--lock", "ticket,mcs,ticket");
	BAD(p, "--lock: 'ticket,,mcs' is not a list", "run", "--lock", "ticket,,mcs");
	BAD(p, "--threads: 2 is listed twice", "run", "--lock", "ticket", "--threads", "2,1,2");
	BAD(p, "--threads: given twice", "run", "--lock", "ticket", "--threads", "1", "--threads=2");
	BAD(p, "run: --lock: needs a value", "run", "--lock");
	BAD(p, "--progress: takes no value", "run", "--progress=1");
	BAD(p, "unknown command", "frobnicate");
	BAD(p, "list: --x: unknown option", "list", "--x");
	BAD(p, "filelock: --threads: unknown option", "filelock", "--threads", "2");
	BAD(p, "calibrate: --reps: ", "calibrate", "--reps", "5");
	BAD(p, "validate-report: --what: unknown option", "validate-report", "--what");
	/* every sub-command refuses an option given twice, not only run */
	BAD(p, "filelock: --procs: given twice (give it once)\n", "filelock", "--procs", "2", "--procs",
	    "3");
	BAD(p, "validate-report: --native: given twice", "validate-report", "--native", "a.csv",
	    "--native", "b.csv");
	BAD(p, "calibrate: --from: given twice", "calibrate", "--from", "a", "--from", "b");
	BAD(p, "filelock: --test: flock is listed twice", "filelock", "--test", "flock,flock");
	BAD(p, "filelock: --test: 'flock,,posix' is not a list", "filelock", "--test",
	    "flock,,posix");
	/* options that would mean nothing */
	BAD(p, "--read-pct: no rwlock", "run", "--lock", "ticket", "--read-pct", "50");
	BAD(p, "--cs-lines 8: a refcount's get and put touch no data lines", "run", "--lock",
	    "lockref,spinlock-ref", "--cs-lines", "8");
	BAD(p, "--cs 2000000: a critical section as long as the run", "run", "--lock", "ticket",
	    "--duration", "2", "--cs", "2000000");
	BAD(p, "calibrate: --reps: nothing is measured with --from", "calibrate", "--from", "x",
	    "--reps", "100");
	BAD(p, "calibrate: --reps: nothing is measured with --from", "calibrate", "--reps", "5",
	    "--from", "x"); /* what is wrong, not its range */
	/* two outputs to one file, or an output over an input */
	BAD(p, "ll-cli-same.csv: the same file as --csv", "run", "--lock",
	    "ticket", "--csv", "/tmp/ll-cli-same.csv", "--json", "/tmp/./ll-cli-same.csv");
	BAD(p, "validate-report: --csv /tmp/ll-cli-n.csv: the same file as --native",
	    "validate-report", "--native", "/tmp/ll-cli-n.csv", "--sim", "/tmp/ll-cli-s.csv",
	    "--csv", "/tmp/ll-cli-n.csv");
	BAD(p, "calibrate: --out /tmp/ll-cli-c.csv: the same file as --from", "calibrate",
	    "--from", "/tmp/ll-cli-c.csv", "--out", "/tmp/ll-cli-c.csv");
	BAD(p, "calibrate: /tmp/h.calib.csv: --out names the platform XML", "calibrate", "--from",
	    "/tmp/ll-cli-c.csv", "--out", "/tmp/h.calib.csv");
	/* the clock's one setting */
	setenv("LOCKLAB_CLOCK", "bogus", 1);
	BAD(p, "LOCKLAB_CLOCK=bogus: the one value is 'monotonic'", "run", "--lock", "tas",
	    "--threads", "1", "--duration", "10");
	/* every native command that times (noise, calibrate, filelock took it) */
	BAD(p, "noise: LOCKLAB_CLOCK=bogus: the one value is 'monotonic'", "noise", "--threads", "1",
	    "--duration", "10");
	unsetenv("LOCKLAB_CLOCK");
	/* whole vCPUs on whole CPUs must make the overcommit the row is labelled with */
	BAD(p, "--vm 5 --overcommit 4: 5 vCPUs on 1 physical cpus are 5.00x, not 4x", "run",
	    "--lock", "ticket", "--vm", "5", "--overcommit", "4");
	/* a directory where no file can be created */
	BAD(p, "--csv /proc/ll-cli.csv: no file can be created in /proc", "filelock", "--csv",
	    "/proc/ll-cli.csv");
}

static void bad_input_sim(void **state)
{
	const char *p = "locklab-sim";

	BAD(p, "unknown lock 'nosuchlock'", "run", "--topo", "4socket", "--lock", "nosuchlock");
	BAD(p, "--duration", "run", "--topo", "4socket", "--lock", "ticket", "--duration", "-5");
	BAD(p, "nosuchmachine", "run", "--topo", "nosuchmachine", "--lock", "ticket");
	/* 4socket has 32 cores */
	BAD(p, "32", "run", "--topo", "4socket", "--lock", "ticket", "--threads", "33");
	BAD(p, "ccbench: --format: 'x'", "ccbench", "--format", "x");
	BAD(p, "explain: --bogus: unknown option", "explain", "--bogus", "1");
	BAD(p, "run: --bogus: unknown option", "run", "--lock", "ticket", "--bogus");
	BAD(p, "run: --sim-quantum: needs a value", "run", "--lock", "ticket", "--sim-quantum");
	BAD(p, "run: --topo: given twice", "run", "--topo", "4socket", "--lock", "ticket", "--topo",
	    "2socket");
	BAD(p, "--overcommit: 2 is listed twice", "run", "--lock", "ticket", "--vm", "4",
	    "--overcommit", "2,1,2");
	BAD(p, "explain: --jobs: a sweep's option", "explain", "--topo", "2socket", "--lock", "mcs",
	    "--threads", "2", "--jobs", "2");
	BAD(p, "check: --seed S replays one seed", "check", "--seed", "3", "--seeds", "2");
	BAD(p, "--migrate-us: a run under --vm has no scheduler noise", "run", "--topo", "2socket",
	    "--lock", "mcs", "--vm", "2", "--pin", "none", "--migrate-us", "10");
	BAD(p, "--migrate-us 10: threads pinned by --pin compact do not migrate", "run", "--topo",
	    "2socket", "--lock", "mcs", "--migrate-us", "10");
	BAD(p, "filelock: --migrate-us 10: processes pinned by --pin compact do not migrate",
	    "filelock", "--topo", "2socket", "--migrate-us", "10");
	BAD(p, "merge: --out: given twice", "merge", "--out", "a.csv", "--out", "b.csv", "s.csv");
	BAD(p, "--threads-csv with --shard 0/2: merge joins the shards' run CSVs", "run", "--topo",
	    "2socket", "--lock", "mcs", "--shard", "0/2", "--threads-csv", "t.csv");
	BAD(p, "check: --lock: no lock 'nosuch'", "check", "--lock", "nosuch");
	BAD(p, "check: --topo: unknown topology 'nosuchmachine'", "check", "--topo", "nosuchmachine");
	BAD(p, "check: --lock: one lock ('ttas,mcs' is a list", "check", "--lock", "ttas,mcs");
	BAD(p, "check: --lock: given twice (give it once)\n", "check", "--lock", "tas", "--lock",
	    "mcs"); /* no hint at a list, which check does not take */
	BAD(p, "--topo 2socket.xml: No such file or directory (the machine 2socket is --topo 2socket)",
	    "run", "--topo", "2socket.xml");
	BAD(p, "filelock: --pin list: has 2 cpus but --procs asks for 3", "filelock", "--topo",
	    "2socket", "--procs", "3", "--pin", "list:0,1");
	BAD(p, "ccbench: --topo: unknown topology 'nosuchmachine'", "ccbench", "--topo", "nosuchmachine");
	/* an --overcommit not given is named as the default */
	BAD(p, "--overcommit 1 (the default): 64 vCPUs need 64 physical cpus", "run", "--topo",
	    "4socket", "--lock", "ticket", "--vm", "64");
	/* the warning of a short overcommitted run is not said before an error */
	BAD(p, "--overcommit 2: 4 vCPUs need 99 physical cpus", "run", "--topo", "2socket", "--lock",
	    "mcs", "--duration", "1", "--vm", "4", "--overcommit", "2", "--pcpus", "99", "--co-guests",
	    "busy");
	/* the host a layout makes is the overcommit asked for, which labels the row */
	BAD(p, "--pcpus 1 --overcommit 2: 2 vCPUs on the host, fewer than the guest's 4", "run",
	    "--topo", "2socket", "--lock", "mcs", "--vm", "4", "--overcommit", "2", "--pcpus", "1");
	BAD(p, "--pcpus 4 --overcommit 2: 8 vCPUs on the host, 4 of them not the guest's", "run",
	    "--topo", "2socket", "--lock", "mcs", "--vm", "4", "--overcommit", "2", "--pcpus", "4");
	BAD(p, "--vm 4 --overcommit 3: 4 vCPUs on 1 physical cpus are 4.00x, not 3x", "run",
	    "--topo", "2socket", "--lock", "mcs", "--vm", "4", "--overcommit", "1,3");
	BAD(p, "--vm 1 --overcommit 4: 1 vCPUs on 1 physical cpus are 1.00x, not 4x", "run",
	    "--topo", "2socket", "--lock", "mcs", "--vm", "1", "--overcommit", "4");
	/* the classic rwlocks' 32-bit count holds 2048 writers' biases */
	BAD(p, "--threads 2049: lock rwlock is correct for at most 2048 threads", "run", "--lock",
	    "qrwlock,rwlock", "--threads", "8,2049");
	BAD(p, "--threads 4096: lock rwlock-rlf is correct for at most 2048", "explain", "--lock",
	    "rwlock-rlf", "--threads", "4096");
}

/* No result file replaces the topology a run reads, however the path is
 * spelled (a shipped machine given by name is found by the same path). */
static void outputs_spare_the_topology(void **state)
{
	const char *p = "locklab-sim";
	char src[4200], cmd[8600], copy[64], dotted[80], *before, *after;
	size_t n0 = 0, n1 = 0;

	snprintf(copy, sizeof(copy), "/tmp/ll-cli-topo-%ld.xml", (long)getpid());
	snprintf(dotted, sizeof(dotted), "/tmp/./ll-cli-topo-%ld.xml", (long)getpid());
	snprintf(src, sizeof(src), "%s/../topologies/2socket.xml", bindir);
	snprintf(cmd, sizeof(cmd), "cp '%s' %s", src, copy);
	assert_int_equal(system(cmd), 0);
	before = tl_slurp(copy, &n0);
	BAD(p, ": the topology the run reads", "run", "--topo", copy,
	    "--lock", "mcs", "--threads", "2", "--duration", "1", "--runs", "1", "--csv", copy);
	BAD(p, "run: --json /tmp/./ll-cli-topo-", "run", "--topo", copy, "--lock", "mcs", "--threads",
	    "2", "--duration", "1", "--runs", "1", "--json", dotted);
	BAD(p, "filelock: --csv /tmp/ll-cli-topo-", "filelock",
	    "--topo", copy, "--procs", "2", "--iterations", "5", "--runs", "1", "--csv", copy);
	BAD(p, "explain: --out /tmp/ll-cli-topo-", "explain",
	    "--topo", copy, "--lock", "mcs", "--threads", "2", "--duration", "1", "--runs", "1",
	    "--format", "csv", "--out", copy);
	after = tl_slurp(copy, &n1);
	assert_true(n0 > 0 && n0 == n1 && !memcmp(before, after, n0));
	free(before);
	free(after);
	unlink(copy);
}

/* What a run's figures depend on beyond its rows is on the table's
 * settings line and in the JSON environment: a table of sc and one of tso
 * must not read alike, nor a native row named after its host like a
 * --vm one. */
static void settings_are_shown(void **state)
{
	const char *const dflt[] = { "run", "--topo", "2socket", "--lock", "mcs", "--threads", "2",
				     "--ops", "20", "--runs", "1", NULL };
	const char *const given[] = { "run", "--topo", "2socket", "--lock", "mcs", "--threads", "2",
				      "--ops", "20", "--runs", "1", "--memory-model", "sc", "--pin",
				      "scatter", "--lock-home", "spread", "--smt", "off",
				      "--arbitration", "fifo", "--seed", "7", NULL };
	const char *const json[] = { "run", "--topo", "2socket", "--lock", "mcs", "--threads", "2",
				     "--ops", "20", "--runs", "1", "--memory-model", "pso", "--pin",
				     "none", "--format", "json", NULL };
	struct tl_proc o;

	const char *const idle[] = { "run", "--topo", "4socket-ring", "--lock", "mcs", "--threads",
				     "2", "--ops", "20", "--runs", "1", NULL };
	const char *const idle_off[] = { "run", "--topo", "4socket-ring", "--lock", "mcs", "--threads",
					 "2", "--ops", "20", "--runs", "1", "--idle-states", "off", NULL };

	assert_int_equal(tl_bin(&o, bindir, "locklab-sim", dflt), 0);
	assert_non_null(strstr(o.out, "settings: pin compact, lock home same, seed 1, 1 run of 20 "
				      "acquisitions a thread, memory model "
				      "tso (the topology's), arbitration socket-first:8 (the "
				      "topology's), no idle states (none in 2socket)\n"));
	tl_proc_free(&o);
	assert_int_equal(tl_bin(&o, bindir, "locklab-sim", given), 0);
	assert_non_null(strstr(o.out, "settings: pin scatter, lock home spread, seed 7, 1 run of 20 "
				      "acquisitions a thread, memory model "
				      "sc, arbitration fifo, --smt off, no idle states (none in 2socket)\n"));
	tl_proc_free(&o);
	assert_int_equal(tl_bin(&o, bindir, "locklab-sim", idle), 0);
	assert_non_null(strstr(o.out, ", idle states C1,C1E,C3,C6 (the topology's)\n"));
	tl_proc_free(&o);
	assert_int_equal(tl_bin(&o, bindir, "locklab-sim", idle_off), 0);
	assert_non_null(strstr(o.out, ", idle states off (--idle-states off)\n"));
	tl_proc_free(&o);
	/* natively the rows' second word is the host's name: the line says so */
	assert_int_equal(tl_bin(&o, bindir, "locklab-native", (const char *const[]){
		"run", "--lock", "mcs", "--threads", "1", "--ops", "20", "--runs", "1", NULL }), 0);
	assert_non_null(strstr(o.out, "1 run of 20 acquisitions a thread, on host "));
	assert_non_null(strstr(o.out, " (the rows' name for this machine)\n"));
	tl_proc_free(&o);
	/* a topology given by its path: the settings say which file */
	{
		char path[600];
		const char *by_path[] = { "run", "--topo", path, "--lock", "mcs", "--threads", "2",
					  "--ops", "20", "--runs", "1", NULL };

		assert_non_null(realpath(bindir, path));
		strcat(path, "/../topologies/2socket.xml");
		assert_int_equal(tl_bin(&o, bindir, "locklab-sim", by_path), 0);
		assert_non_null(strstr(o.out, ", topology file "));
		assert_non_null(strstr(o.out, "topologies/2socket.xml, arbitration socket-first:8"));
		tl_proc_free(&o);
	}
	/* a changed copy of a shipped machine found by its name in ./topologies:
	 * said, and the JSON gives the file's absolute path; an unchanged copy
	 * and the shipped file are not */
	char abs[PATH_MAX];

	assert_non_null(realpath(bindir, abs));
	assert_int_equal(tl_sh(&o, "unset LOCKLAB_TOPODIR; d=$(mktemp -d) || exit 1; "
			       "mkdir \"$d/topologies\" && cp '%s/../topologies/2socket.xml' "
			       "\"$d/topologies/\" && cd \"$d\" && '%s/locklab-sim' run --topo 2socket "
			       "--lock mcs --threads 2 --ops 20 --runs 1 && echo '<!-- changed -->' >> "
			       "topologies/2socket.xml && '%s/locklab-sim' run --topo 2socket --lock mcs "
			       "--threads 2 --ops 20 --runs 1 && '%s/locklab-sim' filelock --topo 2socket "
			       "--test flock --procs 2 --iterations 5 --runs 1 && '%s/locklab-sim' run "
			       "--topo 2socket --lock mcs --threads 2 --ops 20 --runs 1 --format json; "
			       "rc=$?; cd / && rm -rf \"$d\"; exit $rc", abs, abs, abs, abs, abs), 0);
	/* the unchanged copy's table first: no file named there */
	assert_true(strstr(o.out, "topology file") > strstr(strstr(o.out, "settings:") + 1, "settings:"));
	assert_non_null(strstr(o.out, ", topology file topologies/2socket.xml (not the shipped one), "));
	assert_non_null(strstr(o.out, "\nthe machine: topology file topologies/2socket.xml (not the "
				      "shipped one)\n"));
	assert_non_null(strstr(o.out, "/topologies/2socket.xml\", \"shipped\": false"));
	tl_proc_free(&o);
	assert_int_equal(tl_sh(&o, "unset LOCKLAB_TOPODIR; d=$(mktemp -d) || exit 1; cd \"$d\" && "
			       "'%s/locklab-sim' run --topo 2socket --lock mcs --threads 2 --ops 20 "
			       "--runs 1 --format json; rc=$?; cd / && rm -rf \"$d\"; exit $rc", abs), 0);
	assert_non_null(strstr(o.out, "\"shipped\": true"));
	tl_proc_free(&o);
	assert_int_equal(tl_bin(&o, bindir, "locklab-sim", json), 0);
	assert_non_null(strstr(o.out, "\"memory_model\": \"pso\""));
	assert_non_null(strstr(o.out, "\"pinning\": \"none\""));
	/* the arbitration rule as run: the topology's, not given */
	assert_non_null(strstr(o.out, "\"arbitration\": \"socket-first:8\", \"arbitration_given\": false"));
	assert_non_null(strstr(o.out, "\"lock_home\": \"random\""));
	tl_proc_free(&o);
}

/* SimGrid's own options are not passed through; --simgrid-cfg is checked. */
static void simgrid_options(void **state)
{
	const char *p = "locklab-sim";
	struct tl_proc o;
	const char *const ok[] = { "run", "--topo", "1socket", "--lock", "mcs", "--threads", "2",
				   "--runs", "1", "--simgrid-cfg", "contexts/stack-size:128", NULL };

	BAD(p, "list: --cfg: unknown option", "list", "--cfg=bogus:1");
	BAD(p, "run: --cfg: unknown option", "run", "--cfg=contexts/stack-size:1");
	BAD(p, "run: --log: unknown option", "run", "--log=root.thres:debug");
	BAD(p, "ccbench: --cfg: unknown option", "ccbench", "--cfg=bogus:1");
	BAD(p, "--simgrid-cfg: contexts/stack-size", "run", "--simgrid-cfg",
	    "contexts/stack-size:1");
	BAD(p, "--simgrid-cfg: 'network/model:x'", "run", "--simgrid-cfg", "network/model:x");
	BAD(p, "--simgrid-cfg: contexts/factory", "list", "--simgrid-cfg=contexts/factory:ucontext");
	BAD(p, "--simgrid-cfg: needs a value", "run", "--simgrid-cfg");
	/* one key twice: the second would silently win */
	BAD(p, "--simgrid-cfg: contexts/factory given twice", "run", "--simgrid-cfg",
	    "contexts/factory:raw", "--simgrid-cfg=contexts/factory:thread");
	assert_int_equal(tl_bin(&o, bindir, p, ok), 0);
	tl_proc_free(&o);
}

/* A refcount's rows say it touches no data lines, and --cs-lines 0, which
 * says so, is accepted; a run's duration_s is to the nanosecond, so that
 * acquisitions / duration_s is its throughput even for a run of 20; a run
 * whose sample timed nothing still times each thread's first acquisition,
 * and its wait figures are those waits. */
static void rows_say_what_ran(void **state)
{
	const char *const a[] = { "run", "--topo", "1socket", "--lock", "lockref", "--threads",
				  "2", "--runs", "1", "--ops", "10", "--cs-lines", "0", "--format",
				  "csv", NULL };
	const char *const untimed[] = { "run", "--topo", "1socket", "--lock", "tas", "--threads",
					"2", "--runs", "1", "--ops", "50", "--time-every", "1048576",
					"--format", "csv", NULL };
	struct tl_proc o;
	char *row;
	double secs, rate;
	unsigned long acq;
	unsigned lines;

	assert_int_equal(tl_bin(&o, bindir, "locklab-sim", a), 0);
	row = strstr(o.out, "\nsim,1socket,lockref,2,");
	assert_non_null(row);
	/* threads, cs_ns, ncs_ns, cs_lines, locks, seed, run, duration_s, acquisitions, rate */
	assert_int_equal(sscanf(row, "\nsim,1socket,lockref,2,%*u,%*u,%u,1,1,0,%lf,%lu,%lf", &lines,
				&secs, &acq, &rate), 4);
	assert_int_equal(lines, 0);
	assert_true(secs > 0 && secs < 1e-4);
	if (fabs((double)acq / secs - rate) > 1e-6 * rate)
		fail_msg("%lu acquisitions in %.9f s make %.2f/s, not %.2f", acq, secs,
			 (double)acq / secs, rate);
	tl_proc_free(&o);
	/* one acquisition timed in 2^20: only each thread's first was, and the
	 * wait figures are those two waits' */
	assert_int_equal(tl_bin(&o, bindir, "locklab-sim", untimed), 0);
	row = strstr(o.out, "\nsim,1socket,tas,2,");
	assert_non_null(row);
	/* cs_ns .. duration, the acquisitions, the throughput, then wait mean,
	 * p50, p99, max: figures */
	{
		double mean, p50, p99, max;

		assert_int_equal(sscanf(row, "\nsim,1socket,tas,2,%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],"
					"%*[^,],%*[^,],%lu,%lf,%lf,%lf,%lf,%lf", &acq, &rate, &mean, &p50,
					&p99, &max), 6);
		assert_int_equal(acq, 100);
		assert_true(rate > 0);
		assert_true(p50 <= p99 && p99 <= max && mean <= max);
	}
	tl_proc_free(&o);
}

/* A topology path with a comma is one field of filelock's CSV, as of run's. */
static void filelock_csv_quotes_the_topology(void **state)
{
	char dir[] = "/tmp/locklab-unit_cli.XXXXXX";

	assert_non_null(mkdtemp(dir));
	/* the source tree: the first directory above bindir with topologies/ */
	assert_int_equal(tl_sh(NULL, "cd '%s' && r='%s' && while [ ! -f \"$r/topologies/1socket.xml\" ] "
			       "&& [ \"$r\" != / ]; do r=$(dirname \"$r\"); done && "
			       "cp \"$r/topologies/1socket.xml\" 'a,b.xml' && "
			       "'%s/locklab-sim' filelock --topo \"$PWD/a,b.xml\" --test flock --private "
			       "--procs 2 --iterations 20 --runs 1 --csv f.csv > /dev/null && python3 -c "
			       "\"import csv, sys; r = list(csv.reader(open('f.csv'))); "
			       "sys.exit(not (len(r) == 2 and len(r[1]) == len(r[0]) and "
			       "r[1][1].endswith('a,b')))\"", dir, bindir, bindir), 0);
	assert_int_equal(tl_sh(NULL, "rm -rf '%s'", dir), 0);
}

static void arbitration_option(void **state)
{
	const char *p = "locklab-sim";

	BAD(p, "run: --arbitration: 'lifo'", "run", "--arbitration", "lifo");
	BAD(p, "--arbitration: 'socket-first:0'", "run", "--arbitration", "socket-first:0");
	BAD(p, "--arbitration: 'socket-first:x'", "run", "--arbitration=socket-first:x");
	BAD(p, "--arbitration: 'fifo:2'", "explain", "--arbitration", "fifo:2");
	BAD(p, "--arbitration: needs a value", "run", "--arbitration");
}

/* The mechanism switches take on or off; the native binary has none. */
static void switch_options(void **state)
{
	const char *p = "locklab-sim";

	BAD(p, "run: --home-agents: 'maybe' is not on or off", "run", "--home-agents", "maybe");
	BAD(p, "--probes: '' is not on or off", "run", "--probes=");
	BAD(p, "explain: --smt: 'yes' is not on or off", "explain", "--smt", "yes");
	BAD(p, "--smt: needs a value", "run", "--smt");
	BAD("locklab-native", "run: --smt: an option of locklab-sim run", "run", "--smt", "off");
	BAD(p, "run: --idle-states: 'yes' is not on or off", "run", "--idle-states", "yes");
	BAD("locklab-native", "run: --idle-states: an option of locklab-sim run", "run", "--idle-states", "off");
	BAD(p, "--lock-home: 'near' is not same, spread or random", "run", "--lock-home", "near");
	BAD(p, "--lock-home spread: topology 1socket has one NUMA node", "run", "--topo", "1socket",
	    "--lock-home", "spread");
	BAD(p, "--pin list: has 3 cpus but --threads asks for 2", "run", "--threads", "1,2", "--pin",
	    "list:0,1,2");
	BAD(p, "--watchdog 0: an --ops run ends only when its threads are done", "run", "--ops", "10",
	    "--watchdog", "0");
	/* an option is not the value of the one before it (--csv --progress
	 * wrote a file named --progress) */
	BAD(p, "--csv: needs a value (the next argument, --progress, is an option)", "run", "--csv",
	    "--progress");
	BAD(p, "--topo: needs a value (the next argument, --watchdog, is an option)", "run",
	    "--topo", "--watchdog", "5");
	BAD("locklab-native", "--out: needs a value (the next argument, --progress, is an option)",
	    "calibrate", "--out", "--progress");
	BAD(p, "--nosuch: unknown option", "run", "--nosuch", "--runs", "1"); /* not a value */
	/* a name with no room for its .partial beside it: refused before any run */
	BAD(p, "a file name of 240 characters; at most 231, for the partial and temporary files",
	    "run", "--lock", "mcs", "--threads", "2", "--csv",
	    "/tmp/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.csv");
	BAD(p, "--test: its value is empty", "filelock", "--test", "");
	BAD(p, "--locks 65536 --cs-lines 4096: 268435456 lines of protected data", "run", "--locks",
	    "65536", "--cs-lines", "4096");
	/* on claims a mechanism the machine must have */
	BAD(p, "--smt on: topology 4socket has no SMT", "run", "--topo", "4socket", "--smt", "on");
	BAD(p, "--probes on: topology 4socket-ring has no probes", "explain", "--topo",
	    "4socket-ring", "--lock", "mcs", "--threads", "2", "--probes", "on");
	BAD(p, "--home-agents on: topology 1socket has no home agents", "run", "--topo", "1socket",
	    "--home-agents", "on");
}

/* `PROG CMD --help` and `PROG CMD -h`: exit 0, the usage of CMD on stdout. */
static void expect_help(const char *prog, const char *cmd, const char *flag)
{
	struct tl_proc o;
	const char *const a[] = { cmd, "--lock", "ticket", flag, NULL };
	char want[64];

	snprintf(want, sizeof(want), "usage: %s %s", prog, cmd);
	assert_int_equal(tl_bin(&o, bindir, prog, a), 0);
	if (!strstr(o.out, want))
		fail_msg("%s %s %s: no '%s' in: %s", prog, cmd, flag, want, o.out);
	tl_proc_free(&o);
}

static const char *const native_cmds[] = { "list", "run", "calibrate", "validate-report",
					    "filelock", "version", "help", NULL };
static const char *const sim_cmds[] = { "list", "run", "explain", "ccbench", "version", "help",
					NULL };

static void help_after_every_command(void **state)
{
	for (const char *const *c = native_cmds; *c; c++) {
		expect_help("locklab-native", *c, "--help");
		expect_help("locklab-native", *c, "-h");
	}
	for (const char *const *c = sim_cmds; *c; c++) {
		expect_help("locklab-sim", *c, "--help");
		expect_help("locklab-sim", *c, "-h");
	}
	/* --help CMD is help CMD: an unknown CMD is refused */
	BAD("locklab-sim", "unknown command 'nosuch'", "--help", "nosuch");
	BAD("locklab-native", "unknown command 'nosuch'", "-h", "nosuch");
	/* validate-report --quiet with nothing to write would do nothing */
	BAD("locklab-native", "--quiet: with no --csv or --report", "validate-report", "--native",
	    "a.csv", "--sim", "b.csv", "--quiet");
}

static void expect_hint(const char *prog, const char *const *cmds)
{
	struct tl_proc o;
	const char *const a[] = { "frobnicate", NULL };

	assert_int_equal(tl_bin(&o, bindir, prog, a), 2);
	for (; *cmds; cmds++)
		if (!strstr(o.err, *cmds))
			fail_msg("%s: the hint does not name %s: %s", prog, *cmds, o.err);
	tl_proc_free(&o);
}

static void version_and_hint(void **state)
{
	const char *const progs[] = { "locklab-native", "locklab-sim" };
	const char *const forms[][2] = { { "--version", NULL }, { "version", NULL } };

	for (int i = 0; i < 2; i++)
		for (int f = 0; f < 2; f++) {
			struct tl_proc o;

			assert_int_equal(tl_bin(&o, bindir, progs[i], forms[f]), 0);
			assert_non_null(strstr(o.out, progs[i]));
			assert_non_null(strstr(o.out, "0."));
			tl_proc_free(&o);
		}
	expect_hint("locklab-native", native_cmds);
	expect_hint("locklab-sim", sim_cmds);
}

/* filelock checks its own options: a list of 2 cpus for 2 processes. */
static void filelock_pin_list(void **state)
{
	struct tl_proc o;
	const char *const a[] = { "filelock", "--pin", "list:0,1", "--procs", "2", "--test", "flock",
				  "--shared", "--iterations", "10", "--runs", "1", NULL };

	assert_int_equal(tl_bin(&o, bindir, "locklab-native", a), 0);
	assert_non_null(strstr(o.out, "pin=list:0,1"));
	tl_proc_free(&o);
}

static void list_prints_catalogue(void **state)
{
	struct tl_proc o;
	const char *const a[] = { "list", NULL };

	assert_int_equal(tl_bin(&o, bindir, "locklab-native", a), 0);
	assert_non_null(strstr(o.out, "ticket"));
	assert_non_null(strstr(o.out, "mcs"));
	assert_non_null(strstr(o.out, "mutex"));
	tl_proc_free(&o);
	assert_int_equal(tl_bin(&o, bindir, "locklab-sim", a), 0);
	assert_non_null(strstr(o.out, "mcs"));
	tl_proc_free(&o);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bad_input_native),
		cmocka_unit_test(options_of_the_other_binary),
		cmocka_unit_test(bad_input_sim),
		cmocka_unit_test(outputs_spare_the_topology),
		cmocka_unit_test(list_prints_catalogue),
		cmocka_unit_test(simgrid_options),
		cmocka_unit_test(settings_are_shown),
		cmocka_unit_test(rows_say_what_ran),
		cmocka_unit_test(filelock_csv_quotes_the_topology),
		cmocka_unit_test(arbitration_option),
		cmocka_unit_test(switch_options),
		cmocka_unit_test(help_after_every_command),
		cmocka_unit_test(version_and_hint),
		cmocka_unit_test(filelock_pin_list),
	};
	bindir = argc > 1 ? argv[1] : "bin";
	return cmocka_run_group_tests(tests, NULL, NULL);
}
