/*
 * tests/native_vreport.c - `locklab-native validate-report` in this
 * process: Spearman's rho, the report against hand-computed figures, the
 * ceiling of cs + ncs, and what it refuses or leaves out (one line, exit
 * 2; failed runs, other workloads, sweep points, machines).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#include "../native/tools/validate.h"

/* validate-report with argv (an array) exits rc, its output naming needle. */
#define REPORT_SAYS(rc, argv, needle)                                                   \
	do {                                                                            \
		assert_int_equal(tl_call_quiet(native_validate_report_main,               \
					       (int)(sizeof(argv) / sizeof((argv)[0])), argv), \
				 rc);                                                    \
		tl_expect_log(needle);                                                  \
	} while (0)

/* ------------------------------------------------------ the report */

static void test_spearman(void **state)
{
	double a[] = { 1, 2, 3, 4, 5 }, b[] = { 2, 1, 4, 3, 5 }, r[] = { 50, 40, 30, 20, 10 };
	double flat[] = { 7, 7, 7, 7, 7 };

	(void)state;
	assert_true(fabs(vreport_spearman(a, a, 5) - 1) < 1e-12);
	assert_true(fabs(vreport_spearman(a, r, 5) + 1) < 1e-12);
	/* 1 - 6 * 4 / (5 * 24) */
	assert_true(fabs(vreport_spearman(a, b, 5) - 0.8) < 1e-12);
	assert_true(isnan(vreport_spearman(a, flat, 5)));
	assert_true(isnan(vreport_spearman(a, b, 1)));
}

/* Native: columns in the contract's order, without handoff_frac (a CSV
 * older than it).  Sim: a different order, and a row (clh) the native side
 * lacks. */
static const char native_csv[] =
	"backend,topo,lock,threads,run,throughput_per_s,jain\n"
	"native,box,tas,1,0,100,1\n"
	"native,box,tas,1,1,100,1\n"
	"native,box,tas,2,0,80,0.9\n"
	"native,box,tas,2,1,120,0.7\n"
	"native,box,mcs,1,0,90,1\n"
	"native,box,mcs,2,0,40,1\n"
	"native,box,ticket,1,0,95,1\n"
	"native,box,ticket,2,0,50,1\n";
static const char sim_csv[] =
	"jain,throughput_per_s,lock,threads,topo,backend,handoff_frac\n"
	"1,150,tas,1,host-box,sim,0\n"
	"1,100,tas,2,host-box,sim,0.75\n"
	"1,90,mcs,1,host-box,sim,\n"
	"1,30,mcs,2,host-box,sim,\n"
	"1,100,ticket,1,host-box,sim,0\n"
	"1,60,ticket,2,host-box,sim,1\n"
	"1,70,clh,2,host-box,sim,1\n";

static void test_report(void **state)
{
	char *args[] = { "--native", tl_path("n.csv"), "--sim", tl_path("s.csv"),
			 "--csv", tl_path("v.csv"), "--report", tl_path("v.txt") };
	char *csv, *txt;

	(void)state;
	tl_spit(tl_path("n.csv"), native_csv);
	tl_spit(tl_path("s.csv"), sim_csv);
	REPORT_SAYS(0, args, "clh at 2 threads is only in the simulated results");
	csv = tl_slurp(tl_path("v.csv"), NULL);
	txt = tl_slurp(tl_path("v.txt"), NULL);
	assert_non_null(csv);
	assert_non_null(txt);
	/* tas t=1: native 100 (sigma 0), sim 150: +50%; t=2: mean 100, sigma
	 * sqrt(800) = 28.28, Jain mean 0.8, sim 100: 0% */
	assert_non_null(strstr(csv, "tas,1,2,100.00,0.00,1,150.00,,0.5000,1.0000,1.0000,box,host-box,,1.0000\n"));
	assert_non_null(strstr(csv, "tas,2,2,100.00,28.28,1,100.00,,0.0000,0.8000,1.0000,box,host-box,,0.2500\n"));
	assert_non_null(strstr(csv, "mcs,2,1,40.00,,1,30.00,,-0.2500,1.0000,1.0000,box,host-box,,\n"));
	/* the taken-again share: 1 - handoff_frac, "-" on a side without one */
	assert_non_null(strstr(txt, "Jain nat  Jain sim again nat again sim\n"));
	assert_non_null(strstr(txt, "   0.8000    1.0000         -     25.0%\n")); /* tas t=2 */
	assert_non_null(strstr(csv, "mcs,2,1,40.00,,1,30.00,,-0.2500,"));
	assert_non_null(strstr(csv, "ticket,2,1,50.00,,1,60.00,,0.2000,"));
	assert_null(strstr(csv, "clh"));
	/* |errors|: t=1 0.5, 0, 0.0526; t=2 0, 0.25, 0.2 -> median of six 0.126 */
	assert_non_null(strstr(txt, "median |relative error|: 12.6% over 6 rows; threads 1: 5.3%; threads 2: 20.0%"));
	/* t=1: native tas > ticket > mcs, sim tas > ticket > mcs: +1;
	 * t=2: native tas > ticket > mcs, sim tas > ticket > mcs: +1 */
	assert_non_null(strstr(txt, "threads 1    Spearman rho +1.000 over 3 locks\n"));
	assert_non_null(strstr(txt, "native: tas > ticket > mcs"));
	assert_non_null(strstr(txt, "largest differences: tas t=1 (+50.0%), mcs t=2 (-25.0%)"));
	/* within two sigmas: only rows with two or more native runs count:
	 * tas t=1 (sigma 0, off by 50) no, tas t=2 yes */
	assert_non_null(strstr(txt, "within two native sigmas (the machine's own noise): 1 of the 2 rows "
				  "with two native runs or more"));
	assert_null(strstr(txt, "note: the simulated side ran on")); /* host-box models box */
	free(csv);
	free(txt);
}

/* With cs_ns and ncs_ns: a row beyond its ceiling is named, and sweeps
 * with different delays are not compared. */
static void test_report_ceiling(void **state)
{
	char *args[] = { "--native", tl_path("cn.csv"), "--sim", tl_path("cs.csv"), "--report",
			 tl_path("c.txt"), "--quiet" };
	char *mismatch[] = { "--native", tl_path("cn.csv"), "--sim", tl_path("cx.csv") };
	char *txt;

	(void)state;
	tl_spit(tl_path("cn.csv"), "lock,threads,cs_ns,ncs_ns,throughput_per_s,jain,topo\n"
				"tas,1,50,200,5000000,1,box\ntas,2,50,200,7900000,1,box\n");
	tl_spit(tl_path("cs.csv"), "lock,threads,cs_ns,ncs_ns,throughput_per_s,jain,topo\n"
				"tas,1,50,200,3600000,1,sim\ntas,2,50,200,7000000,1,sim\n");
	tl_spit(tl_path("cx.csv"), "lock,threads,cs_ns,ncs_ns,throughput_per_s,jain,topo\n"
				"tas,1,100,200,3000000,1,sim\n");
	assert_int_equal(tl_call_quiet(native_validate_report_main, 7, args), 0);
	txt = tl_slurp(tl_path("c.txt"), NULL);
	assert_non_null(txt);
	/* t=1: ceiling 1e9 / 250 = 4 Macq/s; t=2: 8 (2 / 250 ns), under 1e9 / 50 */
	assert_non_null(strstr(txt, "faster than cs + ncs allow"));
	assert_non_null(strstr(txt, "native tas t=1: 5.0000 Macq/s, ceiling 4.0000"));
	/* the simulated side ran on another machine than box's calibration */
	assert_non_null(strstr(txt, "note: the simulated side ran on sim, not on host-box, the model "
				    "of box that `locklab-native calibrate` writes by default "
				    "(results/host-box.xml): unless sim models box, the errors below "
				    "compare two machines\n"));
	assert_null(strstr(txt, "tas t=2:"));
	free(txt);
	REPORT_SAYS(2, mismatch, "ran with cs 50, ncs 200 natively but cs 100, ncs 200 simulated");

	/* two locks whose native figures lie within their noise */
	tl_spit(tl_path("cn.csv"), "lock,threads,throughput_per_s,jain,topo\n"
				"a,1,100,1,box\na,1,110,1,box\nb,1,104,1,box\nb,1,107,1,box\n");
	tl_spit(tl_path("cs.csv"), "lock,threads,throughput_per_s,jain,topo\na,1,90,1,s\nb,1,95,1,s\n");
	assert_int_equal(tl_call_quiet(native_validate_report_main, 7, args), 0);
	txt = tl_slurp(tl_path("c.txt"), NULL);
	assert_non_null(strstr(txt, "Spearman rho +1.000 over 2 locks (too few to mean much)\n"
				    "    (the native figures of these locks differ by less than twice"));
	free(txt);
	/* a third lock far from them: the pair within its noise is named */
	tl_spit(tl_path("cn.csv"), "lock,threads,throughput_per_s,jain,topo\n"
				"a,1,100,1,box\na,1,110,1,box\nb,1,104,1,box\nb,1,107,1,box\n"
				"c,1,300,1,box\nc,1,310,1,box\n");
	tl_spit(tl_path("cs.csv"), "lock,threads,throughput_per_s,jain,topo\na,1,90,1,s\nb,1,95,1,s\n"
				"c,1,280,1,s\n");
	assert_int_equal(tl_call_quiet(native_validate_report_main, 7, args), 0);
	txt = tl_slurp(tl_path("c.txt"), NULL);
	assert_non_null(strstr(txt, "(native order within noise: a and b: each pair differs"));
	assert_null(strstr(txt, "a and c"));
	free(txt);
}

static void test_report_bad_input(void **state)
{
	char *missing_sim[] = { "--native", tl_path("n.csv") };
	char *no_file[] = { "--native", tl_path("none.csv"), "--sim", tl_path("s.csv") };
	char *no_col[] = { "--native", tl_path("nocol.csv"), "--sim", tl_path("s.csv") };
	char *disjoint[] = { "--native", tl_path("other.csv"), "--sim", tl_path("s.csv") };
	char *bad_num[] = { "--native", tl_path("badnum.csv"), "--sim", tl_path("s.csv") };
	char *bad_share[] = { "--native", tl_path("badshare.csv"), "--sim", tl_path("s.csv") };
	char *unknown[] = { "--native", tl_path("n.csv"), "--sim", tl_path("s.csv"), "--what" };
	char *swapped[] = { "--native", tl_path("bs.csv"), "--sim", tl_path("bn.csv") };
	char *twice[] = { "--native", tl_path("twice.csv"), "--sim", tl_path("s.csv") };
	char *same[] = { "--native", tl_path("n.csv"), "--sim", tl_path("./n.csv") };

	(void)state;
	tl_spit(tl_path("n.csv"), native_csv);
	tl_spit(tl_path("s.csv"), sim_csv);
	tl_spit(tl_path("nocol.csv"), "backend,topo,lock,threads,run,jain\nnative,box,tas,1,0,1\n");
	tl_spit(tl_path("other.csv"), "lock,threads,throughput_per_s,jain,topo\nqspinlock,1,5,1,box\n");
	tl_spit(tl_path("badnum.csv"), "lock,threads,throughput_per_s,jain,topo\ntas,1,fast,1,box\n");
	tl_spit(tl_path("badshare.csv"), "lock,threads,throughput_per_s,jain,topo,handoff_frac\n"
					  "tas,1,5,1,box,1.5\n");
	REPORT_SAYS(2, missing_sim, "--native FILE and --sim FILE are both needed");
	REPORT_SAYS(2, no_file, "none.csv");
	REPORT_SAYS(2, no_col, "no 'throughput_per_s' column");
	REPORT_SAYS(2, disjoint, "no (lock, threads) is in both");
	REPORT_SAYS(2, bad_num, "badnum.csv:2");
	REPORT_SAYS(2, bad_share, "badshare.csv:2: handoff_frac 1.5: a share, from 0 to 1");
	REPORT_SAYS(2, unknown, "--what: unknown option");
	/* a column twice: which holds the figures cannot be told */
	tl_spit(tl_path("twice.csv"), "lock,threads,throughput_per_s,jain,topo,lock\n"
				   "tas,1,5,1,box,tas\n");
	REPORT_SAYS(2, twice, "twice.csv: two 'lock' columns (1 and 6)");
	tl_spit(tl_path("bn.csv"), "backend,lock,threads,throughput_per_s,jain,topo\n"
				"native,tas,1,5,1,box\n");
	tl_spit(tl_path("bs.csv"), "backend,lock,threads,throughput_per_s,jain,topo\n"
				"sim,tas,1,5,1,4socket\n");
	REPORT_SAYS(2, swapped, "bs.csv:2: a row of backend 'sim' given as the native results");
	/* one file as both sides: said so, not taken for a swap */
	REPORT_SAYS(2, same, "n.csv: the same file given twice");
	/* a failed run's row (empty figures, a quoted failure with a comma)
	 * is left out and said; a file of failed runs only is refused */
	tl_spit(tl_path("sf.csv"), "lock,threads,throughput_per_s,jain,topo,failure\n"
				"tas,1,150,1,s,\ntas,1,,,s,\"deadlock: t0, t1\"\n");
	tl_spit(tl_path("sa.csv"), "lock,threads,throughput_per_s,jain,topo,failure\n"
				"tas,1,,,s,\"no progress, t0\"\n");
	{
		char *failed[] = { "--native", tl_path("n.csv"), "--sim", tl_path("sf.csv") };
		char *all[] = { "--native", tl_path("n.csv"), "--sim", tl_path("sa.csv") };
		char *absent[] = { "--native", tl_path("n.csv"), "--sim", tl_path("sm.csv") };
		char *failed_pair[] = { "--native", tl_path("n.csv"), "--sim", tl_path("sg.csv"),
					"--report", tl_path("fp.txt"), "--quiet" };

		REPORT_SAYS(0, failed, "sf.csv: 1 failed run left out");
		/* a pair whose runs all failed on one side is said so, not "only in" the other;
		 * the report file keeps what was left out */
		tl_spit(tl_path("sg.csv"), "lock,threads,throughput_per_s,jain,topo,failure\n"
					"tas,1,150,1,s,\ntas,2,,,s,\"deadlock\"\n");
		REPORT_SAYS(0, failed_pair,
			    "tas at 2 threads: all 1 simulated runs failed: left out");
		/* failed in one file, absent from the other: no figures on either side */
		tl_spit(tl_path("sm.csv"), "lock,threads,throughput_per_s,jain,topo,failure\n"
					"tas,1,150,1,s,\nmcs,9,,,s,\"deadlock\"\n");
		REPORT_SAYS(0, absent,
			    "mcs at 9 threads: no run with figures (0 native and 1 simulated runs "
			   "failed): left out");
		{
			char *txt = tl_slurp(tl_path("fp.txt"), NULL);

			assert_non_null(txt);
			assert_non_null(strstr(txt, "  left out:\n    "));
			assert_non_null(strstr(txt, "sg.csv: 1 failed run left out (the failure column"));
			assert_non_null(strstr(txt, "    tas at 2 threads: all 1 simulated runs failed"));
			free(txt);
		}
		REPORT_SAYS(2, all, "sa.csv: every run failed");
	}
	/* not the same workload, two sweep points pooled, two machines pooled */
	tl_spit(tl_path("w1.csv"), "lock,threads,throughput_per_s,jain,topo,cs_lines,read_pct\n"
				"tas,1,150,1,box,1,\n");
	tl_spit(tl_path("w4.csv"), "lock,threads,throughput_per_s,jain,topo,cs_lines,read_pct\n"
				"tas,1,150,1,s,4,\n");
	tl_spit(tl_path("x2.csv"), "lock,threads,throughput_per_s,jain,topo,overcommit\n"
				"tas,1,150,1,s,1.00\ntas,1,120,1,s,2.00\n");
	tl_spit(tl_path("h2.csv"), "lock,threads,throughput_per_s,jain,topo\n"
				"tas,1,150,1,box\ntas,2,150,1,otherbox\n");
	{
		char *work[] = { "--native", tl_path("w1.csv"), "--sim", tl_path("w4.csv") };
		char *points[] = { "--native", tl_path("n.csv"), "--sim", tl_path("x2.csv") };
		char *hosts[] = { "--native", tl_path("h2.csv"), "--sim", tl_path("s.csv") };

		REPORT_SAYS(2, work,
			    "tas at 1 thread ran with cs_lines=1 read_pct= natively but cs_lines=4 "
			   "read_pct= simulated: not the same sweep");
		REPORT_SAYS(2, points, "x2.csv:3: overcommit=2.00, where an earlier run");
		REPORT_SAYS(2, hosts,
			    "h2.csv:3: a run on otherbox, where an earlier one is on box");
	}
	/* the same run twice (a CSV appended to itself) counts once or not at
	 * all; runs of another seed, or of the same seed with other figures
	 * (native sweeps pooled), are other runs */
	tl_spit(tl_path("d2.csv"), "lock,threads,throughput_per_s,jain,topo,seed,run\n"
				"tas,1,150,1,s,1,0\ntas,1,140,1,s,1,1\ntas,1,150,1,s,1,0\n");
	tl_spit(tl_path("p2.csv"), "lock,threads,throughput_per_s,jain,topo,seed,run\n"
				"tas,1,150,1,s,1,0\ntas,1,140,1,s,2,0\ntas,1,145,1,s,1,0\n");
	{
		char *dup[] = { "--native", tl_path("n.csv"), "--sim", tl_path("d2.csv") };
		char *pooled[] = { "--native", tl_path("n.csv"), "--sim", tl_path("p2.csv") };

		REPORT_SAYS(2, dup, "d2.csv:4: run 0 of seed 1 again");
		REPORT_SAYS(0, pooled, "tas");
	}
}

/* A path's newline is escaped in the message: the line stays one.  A rate
 * no run makes (1e300 a second printed 300 digits) is refused. */
static void test_report_path_escaped(void **state)
{
	char *newline[] = { "--native", "/nonexistent/a\nb.csv", "--sim", "/nonexistent/s.csv" };
	char *absurd[] = { "--native", tl_path("big.csv"), "--sim", tl_path("sm.csv") };

	(void)state;
	REPORT_SAYS(2, newline, "validate-report: /nonexistent/a\\nb.csv: No such file or directory\n");
	tl_spit(tl_path("big.csv"), "lock,threads,throughput_per_s,jain,topo\ntas,1,1e300,1,box\n");
	tl_spit(tl_path("sm.csv"), "lock,threads,throughput_per_s,jain,topo\ntas,1,5,1,box\n");
	REPORT_SAYS(2, absurd, "big.csv:2: throughput 1e300 and jain 1: a run's rate is above 0 and at most");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spearman),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_report_ceiling),
		cmocka_unit_test(test_report_bad_input),
		cmocka_unit_test(test_report_path_escaped),
	};

	return cmocka_run_group_tests(tests, tl_tmpdir_setup, tl_tmpdir_teardown);
}
