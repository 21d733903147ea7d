/*
 * tests/sim_noise_file.c - `locklab-sim run --noise-from FILE`: interrupts
 * as a machine's CPUs met them, from the CSV of `locklab-native noise`
 * (sim/noise_file.c, docs/variance.md).
 *
 * A file whose detours all fall in one decade is the same model as
 * --irq-rate-hz and --irq-us of that mean length, at the rate of the gaps
 * between detours: the two runs must give the same figures.  A file with a short and a long class loses
 * the time of both, on pinned threads too, and its long class shows as
 * waits no lock has without it.  A class of 100 Hz x 5 ms takes half of a
 * lone thread's time, as the file says.  filelock takes the option too.  A
 * file that is not such a CSV, or that says the CPUs were never free, is
 * refused with one line; so is --noise-from beside --irq-* or under --vm.
 * The JSON's environment names the file and the classes it gave.
 *
 * argv[1]: the bin/ directory of locklab-sim.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#define RUN "run --topo 2socket --lock ticket --threads 8 --duration 2 --runs 3 --format csv"
#define HEAD "cpu,seconds,detours,lost_ns,mean_ns,p50_ns,p99_ns,max_ns,"                   \
	     "detours_under_10us,lost_ns_under_10us,detours_under_100us,lost_ns_under_100us," \
	     "detours_under_1ms,lost_ns_under_1ms,detours_1ms_or_more,lost_ns_1ms_or_more\n"

static const char *bindir;

static char *noise_file(const char *name, const char *text)
{
	static char path[2][512];
	static int k;

	k ^= 1;
	snprintf(path[k], sizeof(path[k]), "%s/%s", tl_tmpdir(), name);
	tl_spit(path[k], text);
	return path[k];
}

/* what a run prints, the settings' lines left out (they name the model) */
static char *run_csv(const char *extra)
{
	struct tl_proc p;
	char *out;

	assert_int_equal(tl_sh(&p, "%s/locklab-sim " RUN " %s", bindir, extra), 0);
	out = p.out;
	p.out = NULL;
	tl_proc_free(&p);
	return out;
}

static double column_sum(const char *csv, const char *name)
{
	int c = tl_csv_column(csv, name);
	double sum = 0;

	assert_true(c >= 0);
	for (const char *l = strchr(csv, '\n'); l && l[1]; l = strchr(l + 1, '\n'))
		sum += tl_csv_field(l + 1, c);
	return sum;
}

/* 1000 detours of 5 us each in 2.505 CPU-seconds: a period of 2505 us, so a
 * gap of 2500 us between one's end and the next: the options' 400 Hz x 5 us
 * (whose rate is of the gaps), figure for figure. */
static void one_class_is_the_options(void **state)
{
	char *f = noise_file("one.csv", HEAD "0,2.505,1000,5000000,5000,5000,5000,5000,"
					  "1000,5000000,0,0,0,0,0,0\n"
					  "all,2.505,1000,5000000,5000,5000,5000,5000,"
					  "1000,5000000,0,0,0,0,0,0\n");
	char opt[600];
	char *a, *b;

	snprintf(opt, sizeof(opt), "--noise-from %s", f);
	a = run_csv(opt);
	b = run_csv("--irq-rate-hz 400 --irq-us 5");
	assert_true(column_sum(a, "irqs") > 0);
	assert_string_equal(a, b);
	free(a);
	free(b);
}

/* Short detours often and 2 ms ones rarely: more interrupts than the short
 * class alone, and waits of milliseconds that neither the short class nor
 * a quiet machine gives a pinned ticket lock of 8 threads. */
static void a_long_class_stalls_the_queue(void **state)
{
	char *both = noise_file("both.csv", HEAD "all,1.0,2100,210000000,100000,5000,5000,2000000,"
						 "2000,10000000,0,0,0,0,100,200000000\n");
	char *shrt = noise_file("short.csv", HEAD "all,1.0,2000,10000000,5000,5000,5000,5000,"
						  "2000,10000000,0,0,0,0,0,0\n");
	char opt[2][600];
	char *q, *s, *l;

	snprintf(opt[0], sizeof(opt[0]), "--noise-from %s", shrt);
	snprintf(opt[1], sizeof(opt[1]), "--noise-from %s", both);
	q = run_csv("");
	s = run_csv(opt[0]);
	l = run_csv(opt[1]);
	assert_true(column_sum(l, "irqs") > column_sum(s, "irqs"));
	assert_true(column_sum(q, "wait_max_ns") < 3 * 100000.0);
	assert_true(column_sum(s, "wait_max_ns") < 3 * 100000.0);
	assert_true(column_sum(l, "wait_max_ns") > 1000000.0);
	assert_true(column_sum(l, "throughput_per_s") < column_sum(s, "throughput_per_s"));
	free(q);
	free(s);
	free(l);
}

/* 100 detours a CPU-second of 5 ms each: half of the time lost, so half of
 * a lone thread's acquisitions (the file's rate is of its whole time, not
 * of the gaps between detours: a third would be lost otherwise). */
static void the_files_share_is_lost(void **state)
{
	char *f = noise_file("half.csv", HEAD "all,1.0,100,500000000,5000000,5000000,5000000,5000000,"
					   "0,0,0,0,0,0,100,500000000\n");
	char opt[600];
	struct tl_proc p;
	double quiet, half;

	assert_int_equal(tl_sh(&p, "%s/locklab-sim run --lock tas --threads 1 --duration 500 --runs 1 "
				   "--format csv", bindir), 0);
	quiet = column_sum(p.out, "throughput_per_s");
	tl_proc_free(&p);
	snprintf(opt, sizeof(opt), "--noise-from %s", f);
	assert_int_equal(tl_sh(&p, "%s/locklab-sim run --lock tas --threads 1 --duration 500 --runs 1 "
				   "--format csv %s", bindir, opt), 0);
	half = column_sum(p.out, "throughput_per_s");
	tl_proc_free(&p);
	assert_true(half / quiet > 0.42 && half / quiet < 0.58);
}

/* filelock takes the option as run does, and says so under its rows */
static void filelock_takes_it(void **state)
{
	char *f = noise_file("fl.csv", HEAD "all,1.0,1000,5000000,5000,5000,5000,5000,"
					 "1000,5000000,0,0,0,0,0,0\n");
	struct tl_proc p;

	assert_int_equal(tl_sh(&p, "%s/locklab-sim filelock --test flock --procs 4 --iterations 100 "
				   "--runs 1 --noise-from %s", bindir, f), 0);
	assert_non_null(strstr(p.out, "interrupts as measured in"));
	tl_proc_free(&p);
}

/* the JSON's environment names the file and the classes drawn from it, and
 * the options' noise where no file is given */
static void the_json_says_which(void **state)
{
	char *f = noise_file("js.csv", HEAD "all,1.0,1000,5000000,5000,5000,5000,5000,"
					 "1000,5000000,0,0,0,0,0,0\n");
	char want[700];
	struct tl_proc p;

	(void)state;
	assert_int_equal(tl_sh(&p, "%s/locklab-sim run --lock tas --threads 2 --duration 1 --runs 1 "
				   "--format json --noise-from %s", bindir, f), 0);
	snprintf(want, sizeof(want), "\"noise\": {\"noise_from\": \"%s\", \"lost_share\": 0.005000, "
		 "\"classes\": [{\"rate_hz\": 1000.000, \"us\": 5.000}]}", f);
	if (!strstr(p.out, want))
		fail_msg("no %s in %.400s", want, p.out);
	tl_proc_free(&p);
	assert_int_equal(tl_sh(&p, "%s/locklab-sim run --lock tas --threads 2 --duration 1 --runs 1 "
				   "--format json --pin none --migrate-us 300", bindir), 0);
	assert_non_null(strstr(p.out, "\"noise\": {\"migrate_us\": 300, \"irq_rate_hz\": 250, "
				      "\"irq_us\": 2}"));
	tl_proc_free(&p);
	assert_int_equal(tl_sh(&p, "%s/locklab-sim run --lock tas --threads 2 --duration 1 --runs 1 "
				   "--format json", bindir), 0);
	assert_null(strstr(p.out, "\"noise\""));
	tl_proc_free(&p);
}

/* the run with extra refused with one line holding needle */
static void refused(const char *extra, const char *needle)
{
	char args[1000];

	snprintf(args, sizeof(args), RUN " %s", extra);
	tl_sim_refused(bindir, args, needle);
}

/* --noise-from a file of that text, refused with a line holding needle */
static void refused_file(const char *name, const char *text, const char *needle)
{
	char opt[700];

	snprintf(opt, sizeof(opt), "--noise-from %s", noise_file(name, text));
	refused(opt, needle);
}

static void bad_files_are_refused(void **state)
{
	char opt[700];
	char *f;

	refused("--noise-from /nonexistent/noise.csv", "--noise-from /nonexistent/noise.csv: ");
	snprintf(opt, sizeof(opt), "--noise-from %s", tl_tmpdir());
	refused(opt, "a directory");
	snprintf(opt, sizeof(opt), "--noise-from %s", noise_file("empty.csv", ""));
	refused(opt, "empty");
	refused_file("noall.csv", HEAD "0,1.0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n",
		     "no row named all");
	refused_file("nocol.csv", "cpu,seconds,detours\nall,1.0,5\n",
		     "no column detours_under_10us");
	refused_file("neg.csv", HEAD "all,1.0,1,1,1,1,1,1,-1,1,0,0,0,0,0,0\n",
		     "detours_under_10us, '-1', is not a number >= 0");
	refused_file("zero.csv", HEAD "all,0,1,1,1,1,1,1,1,1,0,0,0,0,0,0\n",
		     "seconds, 0, is not in 0.001..1e+07");
	refused_file("full.csv", HEAD "all,1.0,10,1000000000,1e8,1e8,1e8,1e8,"
					"0,0,0,0,0,0,10,1000000000\n",
		     "take 100% of the time");
	/* numbers as the noise command writes them, and sizes a run can take */
	refused_file("inf.csv", HEAD "all,inf,1,1,1,1,1,1,1,1,0,0,0,0,0,0\n",
		     "the all row's seconds, 'inf', is not a number >= 0");
	refused_file("hex.csv", HEAD "all,1.0,16,16000,1000,1000,1000,1000,0x10,16000,0,0,0,0,0,0\n",
		     "'0x10', is not a number >= 0");
	refused_file("long.csv", HEAD "all,1e8,1,2000,2000,2000,2000,2000,1,2000,0,0,0,0,0,0\n",
		     "seconds, 1e+08, is not in 0.001..1e+07");
	refused_file("half.csv", HEAD "all,1.0,1,1000,1000,1000,1000,1000,0.5,1000,0,0,0,0,0,0\n",
		     "detours_under_10us, 0.5, is not a count");
	refused_file("fast.csv", HEAD "all,1.0,1e7,1e7,1,1,1,1,1e7,1e7,0,0,0,0,0,0\n",
		     "is over 1e+06 a second");
	refused_file("free.csv", HEAD "all,1.0,10,0,0,0,0,0,10,0,0,0,0,0,0,0\n",
		     "not a detour's length");
	/* every field of the all row, read or not, and none beyond the header */
	refused_file("unread.csv", HEAD "all,1.0,1,1000,abc,1000,1000,1000,1,1000,0,0,0,0,0,0\n",
		     "the all row's mean_ns, 'abc', is not a number >= 0");
	refused_file("extra.csv", HEAD "all,1.0,1,1000,1000,1000,1000,1000,1,1000,0,0,0,0,0,0,7\n",
		     "the all row has 17 fields under a header of 16");
	refused_file("lostnone.csv", HEAD "all,1.0,1,1000,1000,1000,1000,1000,1,1000,0,0,0,1e308,0,0\n",
		     "lost_ns_under_1ms, 1e+308 ns, with no detour (detours_under_1ms 0)");
	/* the file as the noise command writes it: its columns, totals that are
	 * the decades' sums, and each decade's detours of its length */
	refused_file("misspelt.csv", "cpu,seconds,detourz,lost_ns\nall,1.0,1,1000\n",
		     "unknown column 'detourz'");
	refused_file("total.csv", HEAD "all,32,1,40000000000,1000,1000,1000,1000,1,1000,0,0,0,0,0,0\n",
		     "the all row's lost_ns, 40000000000, is not the sum of its decades' (1000)");
	refused_file("count.csv", HEAD "all,1.0,0,1000,1000,1000,1000,1000,1,1000,0,0,0,0,0,0\n",
		     "the all row's detours, 0, is not the sum of its decades' (1)");
	refused_file("decade.csv", HEAD "all,1.0,10,500000,5e4,5e4,5e4,5e4,10,500000,0,0,0,0,0,0\n",
		     "lost_ns_under_10us over its detours_under_10us is 50000 ns, outside its decade");
	refused_file("twice.csv", HEAD "all,1.0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
					    "all,1.0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n",
		     "line 3: a second row named all");
	{
		char big[5000];

		memset(big, 'x', sizeof(big) - 2);
		big[sizeof(big) - 2] = '\n';
		big[sizeof(big) - 1] = 0;
		refused_file("wide.csv", big, "line 1 is longer than 4095 bytes");
	}
	f = noise_file("ok.csv", HEAD "all,1.0,10,10000,1000,1000,1000,1000,10,10000,0,0,0,0,0,0\n");
	snprintf(opt, sizeof(opt), "--noise-from %s --irq-us 3", f);
	refused(opt, "--noise-from with --irq-us: two models of the interrupts");
	snprintf(opt, sizeof(opt), "--noise-from %s --noise-from %s", f, f);
	refused(opt, "--noise-from");
	snprintf(opt, sizeof(opt), "--noise-from %s --vm 8 --overcommit 1", f);
	refused(opt, "--noise-from: a run under --vm has no scheduler noise of its own");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_class_is_the_options),
		cmocka_unit_test(a_long_class_stalls_the_queue),
		cmocka_unit_test(the_files_share_is_lost),
		cmocka_unit_test(filelock_takes_it),
		cmocka_unit_test(the_json_says_which),
		cmocka_unit_test(bad_files_are_refused),
	};

	bindir = tl_bindir(argc, argv);
	return cmocka_run_group_tests(tests, tl_tmpdir_setup, tl_tmpdir_teardown);
}
