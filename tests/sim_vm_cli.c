/*
 * tests/sim_vm_cli.c - the simulator's virtual machine through the binary
 * (bin/locklab-sim run --vm): what a --vm run prints and what it refuses.
 *
 *   - undercommitted vCPUs run on cores of their own (the threads CSV);
 *   - the settings line and the JSON name the hypervisor;
 *   - the columns exist only with --vm;
 *   - an overcommitted run shorter than a few slices is warned of, and a
 *     guest's preset without --vm;
 *   - vCPUs a run too short never scheduled are named and counted;
 *   - bad VM options are refused with one line and exit status 2.
 */
#include "vm_testlib.h"

static const char *bindir;

/* locklab-sim run --topo TOPO with the other arguments, into *o. */
#define RUN(o, ...)                                                                           \
	do {                                                                                  \
		const char *const a_[] = { "run", "--topo", TOPO, __VA_ARGS__, NULL };        \
		tl_bin(o, bindir, "locklab-sim", a_);                                         \
	} while (0)

/* RUN that must exit 0. */
#define RUN_OK(o, ...)                                                                        \
	do {                                                                                  \
		RUN(o, __VA_ARGS__);                                                          \
		assert_int_equal((o)->status, 0);                                             \
	} while (0)

/* tests/sim_vm.c's undercommit_takes_cores_of_their_own through the binary:
 * one guest of 32 vCPUs on the 64 pCPUs of x7560-ht (the seed's HT-on 0.5x)
 * runs each vCPU on a core of its own (the threads CSV's cpu: x7560-ht has
 * 8 cores, 16 hardware threads a socket). */
static void undercommit_run_on_cores_of_their_own(void **state)
{
	struct tl_proc o;
	unsigned seen[32] = { 0 }, n = 0;
	char *line;

	tl_sh(&o, "d=$(mktemp -d) && '%s/locklab-sim' run --topo x7560-ht --preset ebizzy "
		  "--lock ticket --vm 32 --pcpus 64 --overcommit 0.5 --co-guests same --ops 20 "
		  "--runs 1 --threads-csv \"$d/t.csv\" > /dev/null && cut -d, -f12 \"$d/t.csv\"; "
		  "s=$?; rm -rf \"$d\"; exit $s", bindir);
	assert_int_equal(o.status, 0);
	assert_string_equal(strtok(o.out, "\n"), "cpu");
	while ((line = strtok(NULL, "\n"))) {
		unsigned cpu = (unsigned)atoi(line);

		assert_true(cpu < 64);
		assert_int_equal(seen[cpu / 16 * 8 + cpu % 8]++, 0);
		n++;
	}
	assert_int_equal(n, 32);
	tl_proc_free(&o);
}

/* A --vm run of the arguments after "run --topo TOPO" whose output holds
 * text. */
#define SAYS(text, ...)                                                                       \
	do {                                                                                  \
		struct tl_proc o_;                                                            \
		RUN_OK(&o_, "--lock", "ticket", "--vm", "4", "--ops", "20", "--runs", "1",    \
		       __VA_ARGS__);                                                          \
		assert_non_null(strstr(o_.out, text));                                        \
		tl_proc_free(&o_);                                                            \
	} while (0)

/* A --vm run says which hypervisor it had: the settings line names the
 * slices and their spread, the PLE window and whom an exit yields to, and the JSON's
 * environment gives the yield either way (a run on KVM's directed yield, the
 * default, and one on --ple-yield pcpu must not read alike). */
static void settings_name_the_hypervisor(void **state)
{
	SAYS(", hypervisor: CFS's slices +-50%, PLE window ", "--overcommit", "2", "--co-guests",
	     "same");
	SAYS(" growing, a PLE exit yields to its guest's vCPUs (--ple-yield guest), co-guests same",
	     "--overcommit", "2", "--co-guests", "same");
	SAYS(" growing, a PLE exit yields within its pCPU (--ple-yield pcpu), co-guests same",
	     "--overcommit", "2", "--co-guests", "same", "--ple-yield", "pcpu");
	SAYS(", hypervisor: slices of 3000 us +-50%, PLE window ", "--ple-yield", "guest", "--slice-us",
	     "3000");
	SAYS(" fixed, a PLE exit yields to its guest's vCPUs (--ple-yield guest), co-guests none",
	     "--ple-yield", "guest", "--ple-grow", "1");
	SAYS("\"ple_yield\": \"guest\"", "--ple-window-ns", "0", "--format", "json");
	SAYS("\"ple_yield\": \"pcpu\"", "--ple-yield", "pcpu", "--format", "json");
	SAYS(", hypervisor: CFS's slices +-50%, no PLE, co-guests none", "--ple-window-ns", "0");
	SAYS(", hypervisor: CFS's slices +-0%, ", "--slice-spread-pct", "0");
	SAYS("\"slice_spread_pct\": 50", "--format", "json");
}

static void columns_only_with_vm(void **state)
{
	struct tl_proc o;
	const char *w;

	RUN_OK(&o, "--lock", "pv-ticket", "--threads", "4", "--ops", "20", "--runs", "1",
	       "--format", "csv");
	assert_null(strstr(o.out, "overcommit"));
	assert_null(strstr(o.out, "holder_preemptions"));
	tl_proc_free(&o);
	RUN_OK(&o, "--lock", "ticket,pv-ticket", "--vm", "4", "--overcommit", "1,2", "--ops", "20",
	       "--runs", "1", "--format", "csv");
	assert_non_null(strstr(o.out, ",overcommit,pcpus,preemptions,holder_preemptions,"
				      "waiter_preemptions,holder_lost_ns_per_acq,"
				      "waiter_lost_ns_per_acq,halts,kicks,wake_latency_ns,ple_exits,"
				      "ple_yields,vcpus_never_ran,"));
	/* a header and a row per lock and overcommit */
	int lines = 0;

	for (const char *p = o.out; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 5);
	tl_proc_free(&o);
	RUN_OK(&o, "--lock", "ticket", "--vm", "4", "--overcommit", "1,2", "--ops", "20",
	       "--runs", "1");
	assert_non_null(strstr(o.out, "t=4 x1.00"));
	assert_non_null(strstr(o.out, "t=4 x2.00"));
	assert_non_null(strstr(o.out, "preempted holding"));
	/* 20 acquisitions last a few microseconds: said once, after the sweep */
	w = strstr(o.err, "warning: --vm: an overcommitted run of --ops 20 lasted ");
	assert_non_null(w);
	assert_null(strstr(w + 1, "warning"));
	tl_proc_free(&o);
}

/* A command that runs (status 0) and warns of nothing. */
#define RUN_WITHOUT_WARNING(o, ...)                                                           \
	do {                                                                                  \
		RUN_OK(o, __VA_ARGS__);                                                       \
		assert_null(strstr((o)->err, "warning"));                                     \
		assert_null(strstr((o)->out, "too short"));                                   \
		tl_proc_free(o);                                                              \
	} while (0)

/* An overcommitted run of fewer slices than a few is said to be one, once
 * on stderr and on the table's settings line; a long one, or one at 1x, is
 * not. */
static void short_overcommitted_run_warned(void **state)
{
	struct tl_proc o;

	RUN_OK(&o, "--lock", "ticket,pv-ticket", "--vm", "4", "--overcommit", "1,2",
	       "--duration", "2", "--runs", "1", "--format", "csv");
	assert_non_null(strstr(o.err, "warning: --vm: a run of 2 ms is 0.2 slices of 12000 us "
				      "(CFS's with 2 vCPUs a pCPU; --slice-us sets one)"));
	assert_null(strstr(strstr(o.err, "warning") + 1, "warning"));
	tl_proc_free(&o);
	RUN_WITHOUT_WARNING(&o, "--lock", "ticket", "--vm", "4", "--overcommit", "1",
			    "--duration", "2", "--runs", "1");
	/* a sweep is judged at its point of the longest slices: 2x beside 4x */
	RUN(&o, "--lock", "ticket", "--vm", "8", "--overcommit", "2,4", "--duration", "30",
	    "--runs", "1");
	assert_non_null(strstr(o.err, "a run of 30 ms is 2.5 slices of 12000 us (CFS's with 2 vCPUs"));
	/* and the table's settings line says so, for a table kept without stderr */
	assert_non_null(strstr(o.out, "; a run is 2.5 of the host's 12000 us slices: too short "
				      "overcommitted (10 or more advised, docs/vm.md)\n"));
	tl_proc_free(&o);
	RUN_WITHOUT_WARNING(&o, "--lock", "ticket", "--vm", "4", "--overcommit", "2",
			    "--duration", "36", "--runs", "1");
	/* a fixed slice is the one counted */
	RUN_WITHOUT_WARNING(&o, "--lock", "ticket", "--vm", "4", "--overcommit", "2",
			    "--duration", "9", "--runs", "1", "--slice-us", "3000");
	RUN(&o, "--lock", "ticket", "--vm", "4", "--overcommit", "2", "--duration", "8",
	    "--runs", "1", "--slice-us", "3000");
	assert_non_null(strstr(o.err, "warning: --vm: a run of 8 ms is 2.7 slices of 3000 us "
				      "(--slice-us)"));
	tl_proc_free(&o);
}

/* vCPUs that a run too short never scheduled are not starved by the lock:
 * the table's verdict says they never ran (in how many runs, where not in
 * all) and the CSV counts them; a run long enough for every vCPU counts
 * none. */
static void vcpus_that_never_ran_are_named(void **state)
{
	struct tl_proc o;
	const char *row;

	RUN_OK(&o, "--lock", "ticket", "--vm", "16", "--overcommit", "3", "--duration", "5",
	       "--runs", "1");
	assert_non_null(strstr(o.out, " of them never ran (their vCPUs waited for a pCPU all run)"));
	tl_proc_free(&o);
	/* over runs where only some left vCPUs unscheduled, the verdict says in
	 * how many, not as if every run's starvation were the host's */
	RUN_OK(&o, "--lock", "ticket", "--vm", "16", "--overcommit", "3", "--duration", "5",
	       "--runs", "4");
	assert_non_null(strstr(o.out, "; in 2 of 4 runs up to 11 of them never ran (their vCPUs "));
	assert_null(strstr(o.out, "and the throughput is the others'"));
	tl_proc_free(&o);
	RUN_OK(&o, "--lock", "ticket", "--vm", "16", "--overcommit", "3", "--duration", "5",
	       "--runs", "1", "--format", "csv");
	row = strchr(o.out, '\n') + 1;
	assert_int_equal(tl_csv_value(o.out, row, "vcpus_never_ran"), tl_csv_value(o.out, row, "starved"));
	assert_true(tl_csv_value(o.out, row, "vcpus_never_ran") > 0);
	tl_proc_free(&o);
	RUN_OK(&o, "--lock", "ticket", "--vm", "8", "--overcommit", "2", "--duration", "60",
	       "--runs", "1", "--format", "csv");
	row = strchr(o.out, '\n') + 1;
	assert_int_equal(tl_csv_value(o.out, row, "vcpus_never_ran"), 0);
	tl_proc_free(&o);
}

/* A guest's preset without a guest is said once; with --vm, or another
 * preset, nothing.  A preset without a read mix leaves an added rwlock's
 * default read share. */
static void guest_preset_without_vm_warned(void **state)
{
	struct tl_proc o;

	RUN_OK(&o, "--preset", "dbench", "--threads", "2", "--duration", "1", "--runs", "1");
	assert_non_null(strstr(o.err, "warning: --preset dbench is a KVM guest's workload; without "
				      "--vm"));
	tl_proc_free(&o);
	RUN_OK(&o, "--preset", "dbench", "--vm", "2", "--duration", "1", "--runs", "1");
	assert_null(strstr(o.err, "--preset"));
	tl_proc_free(&o);
	RUN_OK(&o, "--preset", "stat", "--lock", "rwlock", "--threads", "2", "--duration", "1",
	       "--runs", "1");
	assert_string_equal(o.err, "");
	assert_non_null(strstr(o.out, "rwlock  cs=150ns ncs=300ns cs-lines=1 locks=1 read-pct=90 "));
	tl_proc_free(&o);
}

#define BAD(needle, ...)                                                               \
	do {                                                                           \
		const char *const a_[] = { "run", "--topo", TOPO, "--lock", "ticket",  \
					   __VA_ARGS__, NULL };                        \
		tl_bin_refused(bindir, "locklab-sim", a_, needle);                    \
	} while (0)

static void bad_vm_options(void **state)
{
	BAD("--overcommit: needs --vm", "--overcommit", "2");
	BAD("--slice-us", "--slice-us", "100");
	BAD("--co-guests", "--co-guests", "busy");
	BAD("--vm", "--vm", "0");
	BAD("--vm", "--vm", "x");
	BAD("--overcommit", "--vm", "8", "--overcommit", "0");
	BAD("--overcommit", "--vm", "8", "--overcommit", "abc");
	BAD("--overcommit", "--vm", "8", "--overcommit", "1.2.3");
	BAD("--overcommit", "--vm", "8", "--overcommit", "1,,2");
	BAD("--overcommit", "--vm", "8", "--overcommit", "2x");
	BAD("--overcommit", "--vm", "8", "--overcommit", "100");
	BAD("32 cores", "--vm", "32", "--overcommit", "0.5");
	BAD("more threads", "--vm", "8", "--threads", "16");
	BAD("--co-guests", "--vm", "8", "--co-guests", "maybe");
	BAD("--pcpus", "--vm", "8", "--pcpus", "x");
	BAD("32 cores", "--vm", "8", "--co-guests", "same", "--pcpus", "64");
	/* a guest that runs fewer threads than V cannot be copied to its co-guests: refused
	 * before any run, not failed run by run (it was exit 3) */
	BAD("--threads must be --vm's 8", "--vm", "8", "--threads", "4,8", "--overcommit", "2",
	    "--co-guests", "same");
	BAD("--ple-grow", "--vm", "8", "--ple-grow", "0");
	BAD("--slice-us", "--vm", "8", "--slice-us", "0");
	BAD("--wake-ns", "--vm", "8", "--wake-ns", "-3");
	BAD("--ple-yield", "--vm", "8", "--ple-yield", "anywhere");
	BAD("--ple-yield", "--ple-yield", "guest");
	BAD("--slice-spread-pct", "--vm", "8", "--slice-spread-pct", "91");
	BAD("--slice-spread-pct", "--vm", "8", "--slice-spread-pct", "-1");
	BAD("--slice-spread-pct", "--slice-spread-pct", "10");

	const char *const ex[] = { "explain", "--topo", TOPO, "--lock", "ticket", "--threads",
				   "4",       "--vm",   "4",  NULL };
	tl_bin_refused(bindir, "locklab-sim", ex, "--vm");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(columns_only_with_vm),
		cmocka_unit_test(settings_name_the_hypervisor),
		cmocka_unit_test(undercommit_run_on_cores_of_their_own),
		cmocka_unit_test(short_overcommitted_run_warned),
		cmocka_unit_test(vcpus_that_never_ran_are_named),
		cmocka_unit_test(guest_preset_without_vm_warned),
		cmocka_unit_test(bad_vm_options),
	};

	bindir = argc > 1 ? argv[1] : "bin";
	return VM_TESTS_MAIN(argc, argv, tests);
}
