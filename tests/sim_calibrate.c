/*
 * tests/sim_calibrate.c - a calibration becomes a machine the simulator
 * runs: a fixed calibration (two sockets of four PUs, two distance
 * classes) is turned into a platform file by `locklab-native calibrate
 * --from`, loaded here with topo_load, and checked figure by figure; then
 * `locklab-sim ccbench` must reproduce it and `locklab-sim run` must run on
 * it.  The binaries come from argv[1].
 */
#include <stdio.h>
#include <unistd.h>

#include <simgrid/engine.h>
#include <xbt/log.h>

#include "testlib.h"

#include "../sim/topology.h"

static const char *bindir;

static const char *const ops[] = { "load", "store", "cas", "fai", "swap" };
static const char states[] = "MESI";

static double median_of(int op, int st, int k)
{
	return 40 + 10 * op + 3 * st + 80 * k;
}

/* The calibration's text form, written the way calibrate writes it. */
static void write_calibration(const char *path)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "# a fixed calibration\nversion,1\nhost,fixed\ncpu_model,Test CPU\n"
		   "vendor,GenuineIntel\ndate,2024-01-01T00:00:00Z\ntsc_ghz,2.5\nreps,100\n"
		   "loadavg,0.25\nsockets,2\nsocket_pus,4 4\nnuma_nodes,2\nclasses,2\n"
		   "class_link_ns,0 38.5\nsocket_class,0 1 1 0\ninval_per_sharer_ns,2\n");
	for (int k = 0; k < 2; k++)
		for (int op = 0; op < 5; op++)
			for (int st = 0; st < 4; st++) {
				double m = median_of(op, st, k);

				fprintf(f, "cell,%d,%s,%c,0,%d,%.3f,%.3f,%.3f,1.5,100,2\n", k, ops[op],
					states[st], k ? 4 : 1, m, m - 2, m + 5);
			}
	for (int op = 0; op < 5; op++)
		fprintf(f, "hit,-,%s,-,0,-1,%d.5,1,%d,0.5,100,0\n", ops[op], 1 + op, 6 + op);
	fprintf(f, "pause,-,-,-,0,-1,20,19,22,0.5,100,1\n");
	fprintf(f, "mem,0,load,I,0,-1,80,75,90,2,100,3\nmem,1,load,I,0,-1,120,110,130,4,100,0\n");
	fclose(f);
}

static char *prog(const char *name)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/%s", bindir, name);
	return buf;
}

/* ps of a figure in ns */
static uint64_t ps(double ns)
{
	return (uint64_t)(ns * 1000 + 0.5);
}

static void test_calibrated_machine(void **state)
{
	static struct topo t;
	char xml[256], err[600];

	(void)state;
	write_calibration(tl_path("fixed.calib.csv"));
	snprintf(xml, sizeof(xml), "%s", tl_path("host-fixed.xml"));
	{
		char *argv[] = { prog("locklab-native"), "calibrate", "--from",
				 tl_path("fixed.calib.csv"), "--out", xml, NULL };

		tl_expect_exit(argv, 0);
	}
	if (topo_load(&t, xml, err, sizeof(err)))
		fail_msg("%s", err);
	assert_string_equal(t.name, "host-fixed");
	assert_int_equal(t.ncores, 8);
	assert_int_equal(t.nsockets, 2);
	assert_int_equal(t.nclasses, 2);
	assert_int_equal(t.protocol, PROTO_MESIF);
	assert_int_equal(t.core_socket[3], 0);
	assert_int_equal(t.core_socket[4], 1);
	assert_int_equal(t.class_lat_ps[1], ps(38.5));
	for (int k = 0; k < 2; k++)
		for (int st = 0; st < 4; st++) {
			assert_int_equal(t.lat_ps[TOPO_LOAD][st][k], ps(median_of(0, st, k)));
			assert_int_equal(t.lat_ps[TOPO_STORE][st][k], ps(median_of(1, st, k)));
			/* atomic: the mean of cas, fai and swap */
			assert_int_equal(t.lat_ps[TOPO_ATOMIC][st][k], ps(median_of(3, st, k)));
			assert_true(t.lat_from_file[TOPO_ATOMIC][st]);
		}
	assert_int_equal(t.hit_ps[TOPO_LOAD], ps(1.5));
	assert_int_equal(t.hit_ps[TOPO_STORE], ps(2.5));
	assert_int_equal(t.hit_ps[TOPO_ATOMIC], ps(4.5));
	assert_int_equal(t.pause_ps, ps(20));
	assert_int_equal(t.inval_ps_per_sharer, ps(2));
	topo_free(&t);
	{
		char *argv[] = { prog("locklab-sim"), "ccbench", "--topo", xml, NULL };

		tl_expect_exit(argv, 0);
	}
	{
		char *argv[] = { prog("locklab-sim"), "run", "--topo", xml, "--lock", "mcs,ttas",
				 "--threads", "8", "--duration", "1", "--runs", "1", "--format", "csv",
				 "--out", tl_path("run.csv"), NULL };

		tl_expect_exit(argv, 0);
	}
}

/* calibrate never writes under topologies/, and refuses a bad file */
static void test_refusals(void **state)
{
	char *into_topologies[] = { prog("locklab-native"), "calibrate", "--from",
				    tl_path("fixed.calib.csv"), "--out", "topologies/host-x.xml", NULL };

	(void)state;
	write_calibration(tl_path("fixed.calib.csv"));
	tl_expect_exit(into_topologies, 2);
	assert_int_equal(access("topologies/host-x.xml", F_OK), -1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calibrated_machine),
		cmocka_unit_test(test_refusals),
	};
	int one = 1;
	char *sg_argv[] = { argv[0], NULL };

	bindir = argc > 1 ? argv[1] : "bin";
	xbt_log_control_set("root.thres:critical");
	simgrid_init(&one, sg_argv);
	return cmocka_run_group_tests(tests, tl_tmpdir_setup, tl_tmpdir_teardown);
}
