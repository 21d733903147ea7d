/*
 * tests/native_calibrate.c - the validation tools of the native backend:
 * the calibration's text form read back exactly and refused when wrong,
 * the platform file written from a fixed calibration, a real (small)
 * calibration of this machine, the noise command's accounting and its
 * refusals, and an end-to-end validate run (calibrate, the same sweep
 * natively and simulated, the report, the chart) small enough for CI.
 *
 * The end-to-end run executes bin/locklab-native and bin/locklab-sim from
 * argv[1]; the sanitizer builds of this program skip it (the binaries are
 * the same) and keep the in-process tests.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"

#include "../native/tools/validate.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

static const char *bindir;

/* ------------------------------------------------- a fixed calibration */

static double fixed_median(int op, int st, unsigned k)
{
	return 40 + 10 * op + 3 * st + 80 * k;
}

static void fixed_calib(struct calib *c)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->host, "testbox");
	strcpy(c->cpu_model, "Test CPU (R) 9000");
	strcpy(c->vendor, "GenuineIntel");
	strcpy(c->date, "2024-01-01T00:00:00Z");
	c->tsc_ghz = 2.5;
	c->reps = 100;
	c->loadavg = 0.5;
	c->nsockets = 2;
	c->socket_pus[0] = c->socket_pus[1] = 4;
	c->nnodes = 2;
	c->nclasses = 2;
	c->socket_class[1] = c->socket_class[2] = 1;
	c->class_link_ns[1] = 38.5;
	for (int op = 0; op < CAL_NOPS; op++)
		for (int st = 0; st < CAL_NSTATES; st++)
			for (unsigned k = 0; k < 2; k++) {
				struct calib_cell *x = &c->cell[op][st][k];
				double m = fixed_median(op, st, k);

				*x = (struct calib_cell){ true, m, m - 2, m + 5, 1.5, 100, 2, 0,
							  k ? 4 : 1 };
			}
	for (int op = 0; op < CAL_NOPS; op++)
		c->hit[op] = (struct calib_cell){ true, 1.5 + op, 1, 3 + op, 0.5, 100, 0, 0, -1 };
	c->pause = (struct calib_cell){ true, 20, 19, 22, 0.5, 100, 1, 0, -1 };
	c->mem[0] = (struct calib_cell){ true, 80, 75, 90, 2, 100, 3, 0, -1 };
	c->mem[1] = (struct calib_cell){ true, 120, 110, 130, 4, 100, 0, 0, -1 };
	c->inval_measured = true;
	c->inval_per_sharer_ns = 2;
	c->wake = (struct calib_cell){ true, 12000, 9000, 30000, 800, 100, 4, 0, 1 };
	c->kick = (struct calib_cell){ true, 1500, 1200, 2500, 100, 100, 4, 0, 1 };
	/* a ladder that steps at 200 us: 5 us wakes before, 12 us from there */
	for (unsigned i = 0; i < CALIB_WAKE_RUNGS; i++) {
		double m = calib_wake_sleep_us[i] < 200 ? 5000 : 12000;

		c->wake_after[i] = (struct calib_cell){ true, m, m - 500, m + 900, 100, 100, 2, 0, 1 };
	}
}

static char *calib_text(const struct calib *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	calib_write(m, c);
	fclose(m);
	return buf;
}

static void same_cell(const struct calib_cell *a, const struct calib_cell *b)
{
	assert_int_equal(a->measured, b->measured);
	assert_true(fabs(a->median - b->median) < 1e-3);
	assert_true(fabs(a->p10 - b->p10) < 1e-3);
	assert_true(fabs(a->p90 - b->p90) < 1e-3);
	assert_true(fabs(a->mad - b->mad) < 1e-3);
	assert_int_equal(a->samples, b->samples);
	assert_int_equal(a->trimmed, b->trimmed);
	assert_int_equal(a->cpu_a, b->cpu_a);
	assert_int_equal(a->cpu_b, b->cpu_b);
}

static void test_calib_roundtrip(void **state)
{
	static struct calib c, back;
	char err[300];
	char *text;

	(void)state;
	fixed_calib(&c);
	text = calib_text(&c);
	if (calib_parse(text, &back, err, sizeof(err)))
		fail_msg("%s", err);
	assert_string_equal(back.host, "testbox");
	assert_string_equal(back.cpu_model, "Test CPU (R) 9000");
	assert_string_equal(back.vendor, "GenuineIntel");
	assert_string_equal(back.date, c.date);
	assert_true(fabs(back.tsc_ghz - 2.5) < 1e-6);
	assert_int_equal(back.reps, 100);
	assert_int_equal(back.nsockets, 2);
	assert_int_equal(back.socket_pus[1], 4);
	assert_int_equal(back.nnodes, 2);
	assert_int_equal(back.nclasses, 2);
	assert_memory_equal(back.socket_class, c.socket_class, 4);
	assert_true(fabs(back.class_link_ns[1] - 38.5) < 1e-3);
	for (int op = 0; op < CAL_NOPS; op++) {
		same_cell(&back.hit[op], &c.hit[op]);
		for (int st = 0; st < CAL_NSTATES; st++)
			for (unsigned k = 0; k < 2; k++)
				same_cell(&back.cell[op][st][k], &c.cell[op][st][k]);
	}
	same_cell(&back.pause, &c.pause);
	same_cell(&back.wake, &c.wake);
	same_cell(&back.kick, &c.kick);
	for (unsigned i = 0; i < CALIB_WAKE_RUNGS; i++)
		same_cell(&back.wake_after[i], &c.wake_after[i]);
	same_cell(&back.mem[1], &c.mem[1]);
	assert_true(back.inval_measured);
	assert_true(fabs(back.inval_per_sharer_ns - 2) < 1e-3);
	free(text);
}

/* text with `from` replaced by `to` (first occurrence) must be refused
 * with an error containing `msg` */
static void refuse(const char *text, const char *from, const char *to, const char *msg)
{
	static struct calib c;
	char err[300], *bad = malloc(strlen(text) + strlen(to) + 1);
	const char *p = strstr(text, from);

	if (!p)
		fail_msg("'%s' is not in the text", from);
	sprintf(bad, "%.*s%s%s", (int)(p - text), text, to, p + strlen(from));
	err[0] = 0;
	assert_int_equal(calib_parse(bad, &c, err, sizeof(err)), -1);
	if (!strstr(err, msg))
		fail_msg("replacing '%s' by '%s': expected '%s' in '%s'", from, to, msg, err);
	free(bad);
}

static void test_calib_refused(void **state)
{
	static struct calib c;
	char *text;

	(void)state;
	fixed_calib(&c);
	text = calib_text(&c);
	refuse(text, "version,1\n", "", "no 'version' record");
	refuse(text, "version,1", "version,2", "version 2");
	refuse(text, "socket_pus,4 4", "socket_pus,4", "1 values, expected 2");
	refuse(text, "socket_pus,4 4", "socket_pus,4 x", "not a whole number");
	refuse(text, "tsc_ghz,", "bogus,1\ntsc_ghz,", "unknown record 'bogus'");
	refuse(text, "cell,0,load,M,0,1,40.000", "cell,0,load,M,0,1,4O.000", "not a number");
	refuse(text, "cell,0,load,M,0,1,40.000", "cell,0,load,Q,0,1,40.000", "unknown line state");
	refuse(text, "cell,0,load,M,0,1,40.000", "cell,0,lode,M,0,1,40.000", "unknown operation");
	refuse(text, "cell,1,swap,I,", "cell,1,swap,M,", "given twice");
	refuse(text, "socket_class,0 1 1 0", "socket_class,0 1 0 0", "socket_class");
	refuse(text, "class_link_ns,0.000 38.500", "class_link_ns,0.000 0.000", "increase");
	refuse(text, "hit,-,fai,", "#hit,-,fai,", "no hit figure for fai");
	refuse(text, "cell,1,store,E,", "#cell,1,store,E,", "no figure for store on E at class 1");
	refuse(text, "sockets,2\n", "", "socket_pus before sockets");
	refuse(text, ",1.500,100,2\n", ",1.500,100,200\n", "trimmed 200 is more than");
	refuse(text, "cell,0,load,M,0,1,40.000", "cell,0,load,M,0,1,0.000", "out of order");
	refuse(text, "cell,0,load,M,0,1,40.000,38.000", "cell,0,load,M,0,1,40.000,46.000",
	       "out of order");
	refuse(text, "cell,0,load,M,0,1,40.000,38.000", "cell,0,load,M,0,1,40.000,-1",
	       "a negative time");
	refuse(text, "tsc_ghz,2.5", "tsc_ghz,0", "tsc_ghz 0");
	refuse(text, "host,", "host,\nbogus,", "host is empty");
	refuse(text, "host,", "#host,", "no 'host' record");
	refuse(text, ",1.500,100,2\n", ",1.500,0,0\n", "samples 0");
	/* figures of what the file does not have, and more samples than reps */
	refuse(text, "socket_pus,4 4", "socket_pus,4 100000000", "100000004 PUs in all");
	refuse(text, "socket_pus,4 4", "socket_pus,4 8189", "8193 PUs in all");
	refuse(text, "reps,100", "reps,3", "samples, more than reps 3");
	/* figures a platform cannot hold (the simulator refused the file) */
	refuse(text, "reps,100", "reps,0", "reps 0");
	refuse(text, "loadavg,0.50", "loadavg,-2", "loadavg -2");
	refuse(text, "inval_per_sharer_ns,2.000", "inval_per_sharer_ns,1e30", "inval_per_sharer_ns 1e+30");
	refuse(text, "inval_per_sharer_ns,2.000", "inval_per_sharer_ns,-5", "inval_per_sharer_ns -5");
	refuse(text, "pause,", "mem,5,load,I,0,-1,90.000,85.000,95.000,1.000,100,0\npause,",
	       "mem: node 5, where numa_nodes is");
	/* the wake figures go together, each once */
	refuse(text, "kick,", "#kick,", "a wake figure without a kick one");
	refuse(text, "wake,", "#wake,", "a kick figure without a wake one");
	refuse(text, "kick,", "wake,-,-,-,0,1,1.000,1.000,1.000,0.000,100,0\nkick,", "given twice");
	refuse(text, "wake,150,", "wake,160,", "wake after '160' us of sleep: not one of");
	refuse(text, "wake,150,", "#wake,150,", "some of the ladder's sleeps, not all");
	free(text);
}

/* The platform file calibrate writes for c, named name (malloc'd). */
static char *topology_text(const struct calib *c, const char *name)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	calib_write_topology(m, c, name);
	fclose(m);
	return buf;
}

static void test_topology_text(void **state)
{
	static struct calib c;
	char *buf;

	(void)state;
	fixed_calib(&c);
	buf = topology_text(&c, "host-testbox");
	assert_non_null(strstr(buf, "<zone id=\"host-testbox\" routing=\"Full\">"));
	assert_non_null(strstr(buf, "value=\"testbox calibrated: Test CPU (R) 9000\""));
	assert_non_null(strstr(buf, "<prop id=\"protocol\" value=\"MESIF\"/>"));
	assert_non_null(strstr(buf, "<prop id=\"lat.load.M\" value=\"40.00 120.00\"/>"));
	assert_non_null(strstr(buf, "<prop id=\"lat.load.E\" value=\"43.00 123.00\"/>"));
	assert_non_null(strstr(buf, "<prop id=\"lat.store.I\" value=\"59.00 139.00\"/>"));
	/* atomic: mean of cas 60, fai 70, swap 80 (+3 per state, +80 per class) */
	assert_non_null(strstr(buf, "<prop id=\"lat.atomic.M\" value=\"70.00 150.00\"/>"));
	assert_non_null(strstr(buf, "<prop id=\"lat.atomic.S\" value=\"76.00 156.00\"/>"));
	assert_non_null(strstr(buf, "<prop id=\"hit.atomic\" value=\"4.50\"/>"));
	assert_non_null(strstr(buf, "<prop id=\"pause\" value=\"20.00\"/>"));
	assert_non_null(strstr(buf, "<prop id=\"inval_per_sharer\" value=\"2.00\"/>"));
	/* what was not measured is said in the file, so every run on it says it */
	assert_non_null(strstr(buf, "<prop id=\"assumed\" value=\"link.bandwidth msg.*\"/>"));
	assert_non_null(strstr(buf, "radical=\"0-3\""));
	assert_non_null(strstr(buf, "<link id=\"link0_1\" bandwidth=\"20.8GBps\" latency=\"38.500ns\"/>"));
	assert_non_null(strstr(buf, "<zoneRoute src=\"socket0\" dst=\"socket1\""));
	/* a wake of 12 us after 1 ms and from 200 us on, of 5 us after shorter
	 * sleeps: the 2 us of the model's scheduler path, and idle states
	 * whose exits are the rest, a state from the first sleep of each level */
	assert_non_null(strstr(buf, "<prop id=\"idle.states\" value=\"w10 3.00 10.00, w200 10.00 200.00\"/>"));
	free(buf);
	/* a wake that rises by steps gets a state a step; a rung slower than
	 * the next keeps its level (a longer sleep never wakes faster) */
	c.wake_after[2].median = c.wake_after[2].p90 = 8000;  /* 50 us */
	c.wake_after[3].median = c.wake_after[3].p90 = 6000;  /* 100 us: noise */
	c.wake.median = c.wake.p90 = 30000;
	buf = topology_text(&c, "host-testbox");
	assert_non_null(strstr(buf, "value=\"w10 3.00 10.00, w50 6.00 50.00, w200 10.00 200.00, "
				    "w1000 28.00 1000.00\""));
	free(buf);
	c.wake.median = c.wake.p10 = c.wake.p90 = 12000;
	c.wake.p90 = 30000;
	/* the same wake after every sleep: one state, from the shortest */
	for (unsigned i = 0; i < CALIB_WAKE_RUNGS; i++)
		c.wake_after[i].median = 11500;
	buf = topology_text(&c, "host-testbox");
	assert_non_null(strstr(buf, "<prop id=\"idle.states\" value=\"w10 9.50 10.00\"/>"));
	free(buf);
	/* an older calibration, without the ladder: one state */
	for (unsigned i = 0; i < CALIB_WAKE_RUNGS; i++)
		c.wake_after[i].measured = false;
	buf = topology_text(&c, "host-testbox");
	assert_non_null(strstr(buf, "<prop id=\"idle.states\" value=\"wake 10.00 10.00\"/>"));
	free(buf);
	/* a wake longer than an idle state may take (10 ms): none either, or
	 * the simulator would refuse the file */
	c.wake.median = c.wake.p90 = 20e6;
	buf = topology_text(&c, "host-testbox");
	assert_null(strstr(buf, "idle.states\" value"));
	assert_non_null(strstr(buf, "more than the 10000 us"));
	free(buf);
	/* a wake within the scheduler path's 2 us, or none: no idle state */
	c.wake.median = c.wake.p10 = 1500;
	buf = topology_text(&c, "host-testbox");
	assert_null(strstr(buf, "idle.states\" value"));
	assert_non_null(strstr(buf, "no idle state"));
	free(buf);
	c.wake.measured = c.kick.measured = false;
	buf = topology_text(&c, "host-testbox");
	assert_null(strstr(buf, "idle.states\" value"));
	assert_non_null(strstr(buf, "no wake measured"));
	free(buf);

	/* a comment never holds "--": a host name with one is mended */
	strcpy(c.vendor, "AuthenticAMD");
	strcpy(c.host, "a--b");
	c.inval_measured = false;
	buf = topology_text(&c, "amd");
	assert_non_null(strstr(buf, "value=\"MOESI\""));
	assert_non_null(strstr(buf, "<prop id=\"assumed\" value=\"link.bandwidth msg.* inval_per_sharer\"/>"));
	assert_non_null(strstr(buf, "(host a-_b,"));
	assert_null(strstr(buf, "host a--b"));
	assert_non_null(strstr(buf, "value=\"a--b calibrated"));
	free(buf);
}

/* A 4-socket ring (0-1-2-3-0): neighbours ~120 ns, opposite ~170 ns. */
static void test_group_pairs(void **state)
{
	static struct calib c;
	double lat[16] = { 0 };
	unsigned rep[CALIB_MAX_CLASSES][2];

	(void)state;
	memset(&c, 0, sizeof(c));
	c.nsockets = 4;
	lat[0 * 4 + 1] = 120;
	lat[1 * 4 + 2] = 125;
	lat[2 * 4 + 3] = 118;
	lat[0 * 4 + 3] = 122;
	lat[0 * 4 + 2] = 170;
	lat[1 * 4 + 3] = 172;
	calib_group_pairs(&c, lat, rep);
	assert_int_equal(c.nclasses, 3);
	for (unsigned s = 0; s < 4; s++) {
		assert_int_equal(c.socket_class[s * 4 + s], 0);
		assert_int_equal(c.socket_class[s * 4 + (s + 1) % 4], 1);
		assert_int_equal(c.socket_class[s * 4 + (s + 2) % 4], 2);
		assert_int_equal(c.socket_class[s * 4 + (s + 3) % 4], 1);
	}
	/* class 1 sorted: 118 (2,3), 120 (0,1), 122 (0,3), 125 (1,2): the
	 * median member is the second of four; class 2: 170 (0,2) */
	assert_int_equal(rep[1][0], 0);
	assert_int_equal(rep[1][1], 1);
	assert_int_equal(rep[2][0], 0);
	assert_int_equal(rep[2][1], 2);

	/* link latencies: half the extra of load M, increasing */
	c.cell[CAL_LOAD][CAL_M][0].median = 50;
	c.cell[CAL_LOAD][CAL_M][1].median = 130;
	c.cell[CAL_LOAD][CAL_M][2].median = 120; /* noise: cheaper than class 1 */
	calib_link_latencies(&c);
	assert_true(fabs(c.class_link_ns[1] - 40) < 1e-9);
	assert_true(fabs(c.class_link_ns[2] - 41) < 1e-9);

	/* one socket: one class; nine distinct latencies: at most 8 classes */
	c.nsockets = 1;
	calib_group_pairs(&c, lat, rep);
	assert_int_equal(c.nclasses, 1);
	{
		double wide[100] = { 0 };
		unsigned n = 0;

		c.nsockets = 10;
		for (unsigned s = 0; s < 10; s++)
			for (unsigned t = s + 1; t < 10; t++)
				wide[s * 10 + t] = 100 * pow(1.5, n++ % 9);
		calib_group_pairs(&c, wide, rep);
		assert_int_equal(c.nclasses, CALIB_MAX_CLASSES);
		assert_int_equal(c.socket_class[0 * 10 + 1], 1);
		assert_int_equal(c.socket_class[0 * 10 + 8], 7);
		assert_int_equal(c.socket_class[0 * 10 + 9], 7);
	}
}

static void test_out_path(void **state)
{
	char err[300];

	(void)state;
	assert_int_equal(calib_check_out_path("topologies/host-x.xml", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "never goes under topologies/"));
	assert_int_equal(calib_check_out_path("./topologies/host-x.xml", err, sizeof(err)), -1);
	assert_int_equal(calib_check_out_path("/a/b/topologies/x.xml", err, sizeof(err)), -1);
	assert_int_equal(calib_check_out_path("results/host-x.xml", err, sizeof(err)), 0);
	assert_int_equal(calib_check_out_path("mytopologies/x.xml", err, sizeof(err)), 0);
	/* the real directory counts: from inside the project's topologies/, a
	 * bare name is under it; a directory named topologies elsewhere is not
	 * the machines' (unless $LOCKLAB_TOPODIR names it) */
	char base[] = "/tmp/locklab-calib-XXXXXX", sub[64], proj[64], cwd[4096], shipped[4200];

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_non_null(mkdtemp(base));
	snprintf(sub, sizeof(sub), "%s/topologies", base);
	snprintf(proj, sizeof(proj), "%s/topologies/proj", base);
	assert_int_equal(mkdir(sub, 0777), 0);
	assert_int_equal(mkdir(proj, 0777), 0);
	assert_int_equal(chdir(proj), 0);
	assert_int_equal(calib_check_out_path("host-x.xml", err, sizeof(err)), 0);
	assert_int_equal(chdir(sub), 0);
	assert_int_equal(calib_check_out_path("host-x.xml", err, sizeof(err)), 0);
	setenv("LOCKLAB_TOPODIR", sub, 1);
	assert_int_equal(calib_check_out_path("host-x.xml", err, sizeof(err)), -1);
	assert_int_equal(calib_check_out_path("proj/host-x.xml", err, sizeof(err)), -1);
	unsetenv("LOCKLAB_TOPODIR");
	snprintf(shipped, sizeof(shipped), "%s/../topologies", bindir);
	assert_int_equal(chdir(shipped), 0);
	assert_int_equal(calib_check_out_path("host-x.xml", err, sizeof(err)), -1);
	assert_int_equal(calib_check_out_path("./host-x.xml", err, sizeof(err)), -1);
	assert_int_equal(chdir(cwd), 0);
	rmdir(proj);
	rmdir(sub);
	rmdir(base);
}

/* ------------------------------------------------- calibrate, for real */

static void test_calibrate_small(void **state)
{
	static struct calib c;
	char *args[] = { "--reps", "12", "--out", tl_path("host-small.xml") };
	char err[600];

	(void)state;
#if !defined(__x86_64__)
	skip();
#endif
	assert_int_equal(tl_call_quiet(native_calibrate_main, 4, args), 0);
	tl_expect_log("class 0 (same socket)");
	if (calib_read_file(tl_path("host-small.calib.csv"), &c, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(c.reps, 12);
	assert_true(c.tsc_ghz > 0.1);
	/* A load of a line the requester may share costs about a hit, which
	 * on a busy virtual machine can round to 0 beside the fences' noise:
	 * every cell is a non-negative time, and some cell costs more than 0
	 * (a clock that measured nothing would give 0 everywhere). */
	double most = 0;

	for (int st = 0; st < CAL_NSTATES; st++) {
		assert_true(c.cell[CAL_LOAD][st][0].median >= 0);
		assert_true(c.cell[CAL_LOAD][st][0].p10 <= c.cell[CAL_LOAD][st][0].median);
		assert_true(c.cell[CAL_LOAD][st][0].p90 >= c.cell[CAL_LOAD][st][0].median);
		assert_int_equal(c.cell[CAL_LOAD][st][0].samples, 12);
		most = fmax(most, c.cell[CAL_LOAD][st][0].median);
	}
	assert_true(most > 0);
	assert_true(c.mem[0].measured);
	/* a sleeper woken by another cpu: a system call and a wake-up at the
	 * least, and it waited 1 ms before it, which a wake never counts */
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
		assert_true(c.wake.measured && c.kick.measured);
		assert_int_equal(c.wake.samples, 12);
		assert_true(c.wake.median > 100 && c.wake.median < 1000000);
		assert_true(c.kick.median > 10 && c.kick.median <= c.wake.p90);
		assert_int_not_equal(c.wake.cpu_a, c.wake.cpu_b);
		for (unsigned i = 0; i < CALIB_WAKE_RUNGS; i++)
			assert_true(c.wake_after[i].measured && c.wake_after[i].median > 100);
	}
	/* the platform file beside it names the zone after the file */
	char *xml = tl_slurp(tl_path("host-small.xml"), NULL);

	assert_non_null(xml);
	assert_non_null(strstr(xml, "<zone id=\"host-small\""));
	free(xml);
}

static void test_calibrate_bad_input(void **state)
{
	char *reps_low[] = { "--reps", "5" };
	char *reps_text[] = { "--reps", "many" };
	char *topo[] = { "--out", "topologies/host-x.xml" };
	char *unknown[] = { "--bogus" };
	char *no_value[] = { "--out" };
	char *from_missing[] = { "--from", tl_path("nothing.calib.csv") };
	char *from_bad[] = { "--from", tl_path("bad.calib.csv"), "--out", tl_path("bad.xml") };

	(void)state;
	assert_int_equal(tl_call_quiet(native_calibrate_main, 2, reps_low), 2);
	tl_expect_log("--reps: '5'");
	assert_int_equal(tl_call_quiet(native_calibrate_main, 2, reps_text), 2);
	assert_int_equal(tl_call_quiet(native_calibrate_main, 2, topo), 2);
	tl_expect_log("never goes under topologies/");
	assert_int_equal(tl_call_quiet(native_calibrate_main, 1, unknown), 2);
	tl_expect_log("--bogus: unknown option");
	assert_int_equal(tl_call_quiet(native_calibrate_main, 1, no_value), 2);
	assert_int_equal(tl_call_quiet(native_calibrate_main, 2, from_missing), 2);
	tl_expect_log("No such file");
	tl_spit(tl_path("bad.calib.csv"), "version,1\nsockets,1\nsocket_pus,2\n");
	assert_int_equal(tl_call_quiet(native_calibrate_main, 4, from_bad), 2);
	tl_expect_log("bad.calib.csv");
}

/* ------------------------------------------------------ end to end */

static char *prog(const char *name)
{
	static char buf[2][512];
	static int k;

	k ^= 1;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", bindir, name);
	return buf[k];
}

static unsigned count_lines(const char *text)
{
	unsigned n = 0;

	for (; text && *text; text++)
		n += *text == '\n';
	return n;
}

static void test_end_to_end(void **state)
{
	char topo[256], ncsv[256], scsv[256], vcsv[256], plotvars[800];
	struct tl_proc report;
	char *csv;

	(void)state;
	if (SANITIZED)
		skip();
#if !defined(__x86_64__)
	skip(); /* calibrate measures only on x86-64 */
#endif
	snprintf(topo, sizeof(topo), "%s", tl_path("host-e2e.xml"));
	snprintf(ncsv, sizeof(ncsv), "%s", tl_path("e2e-native.csv"));
	snprintf(scsv, sizeof(scsv), "%s", tl_path("e2e-sim.csv"));
	snprintf(vcsv, sizeof(vcsv), "%s", tl_path("e2e.csv"));
	{
		char *argv[] = { prog("locklab-native"), "calibrate", "--reps", "20", "--out", topo, NULL };

		tl_expect_exit(argv, 0);
	}
	{
		char *argv[] = { prog("locklab-native"), "run", "--lock", "tas,mcs", "--threads", "1,2",
				 "--duration", "20", "--runs", "2", "--format", "csv", "--out", ncsv, NULL };

		tl_expect_exit(argv, 0);
	}
	{
		char *argv[] = { prog("locklab-sim"), "run", "--topo", topo, "--lock", "tas,mcs",
				 "--threads", "1,2", "--duration", "1", "--runs", "2", "--format", "csv",
				 "--out", scsv, NULL };

		tl_expect_exit(argv, 0);
	}
	{
		char *argv[] = { prog("locklab-native"), "validate-report", "--native", ncsv, "--sim",
				 scsv, "--csv", vcsv, "--report", tl_path("e2e.txt"), NULL };

		assert_int_equal(tl_exec(&report, argv), 0);
	}
	csv = tl_slurp(vcsv, NULL);
	assert_non_null(csv);
	assert_int_equal(count_lines(csv), 5); /* heading + 2 locks x 2 counts */
	assert_non_null(strstr(csv, "\ntas,1,2,"));
	assert_non_null(strstr(csv, "\nmcs,2,2,"));
	/* a thread alone takes the lock again every time, on both sides */
	assert_non_null(strstr(csv, ",host-e2e,1.0000,1.0000\n"));
	free(csv);
	assert_non_null(strstr(report.out, "Spearman rho"));
	tl_proc_free(&report);
	if (access("/usr/bin/gnuplot", X_OK))
		return;
	snprintf(plotvars, sizeof(plotvars), "datafile='%s'; out='%s'; host='e2e'", vcsv,
		 tl_path("e2e"));
	{
		char gp[600];
		struct stat st;

		snprintf(gp, sizeof(gp), "%s/../plots/validate.gp", bindir);
		if (access(gp, R_OK))
			snprintf(gp, sizeof(gp), "%s/../../plots/validate.gp", bindir);
		if (access(gp, R_OK))
			snprintf(gp, sizeof(gp), "plots/validate.gp");
		if (access(gp, R_OK))
			return;
		char *argv[] = { "/usr/bin/gnuplot", "-e", plotvars, gp, NULL };

		tl_expect_exit(argv, 0);
		assert_int_equal(stat(tl_path("e2e.png"), &st), 0);
		assert_true(st.st_size > 1000);
		assert_int_equal(stat(tl_path("e2e.svg"), &st), 0);
	}
}

/* ------------------------------------------------------------ noise */

/* The CSV's rows: every CPU's and the pooled one's figures add up. */
static void check_noise_csv(const char *path, unsigned cpus, uint64_t thresh_ns, double *lost_share)
{
	char *csv = tl_slurp_ok(path, NULL), *hdr = csv, *row = strchr(csv, '\n') + 1;
	double sum[3] = { 0, 0, 0 }; /* seconds, detours, lost */
	static const char *const dec[] = { "under_10us", "under_100us", "under_1ms", "1ms_or_more" };

	assert_int_equal(count_lines(csv), cpus + 2);
	for (unsigned i = 0; i <= cpus; i++, row = strchr(row, '\n') + 1) {
		double secs = tl_csv_value(hdr, row, "seconds"), n = tl_csv_value(hdr, row, "detours");
		double lost = tl_csv_value(hdr, row, "lost_ns"), in_decades[2] = { 0, 0 };

		assert_true(i < cpus || !strncmp(row, "all,", 4));
		for (unsigned k = 0; k < 4; k++) {
			char name[2][40];

			snprintf(name[0], sizeof(name[0]), "detours_%s", dec[k]);
			snprintf(name[1], sizeof(name[1]), "lost_ns_%s", dec[k]);
			in_decades[0] += tl_csv_value(hdr, row, name[0]);
			in_decades[1] += tl_csv_value(hdr, row, name[1]);
		}
		assert_true(in_decades[0] == n && in_decades[1] == lost);
		assert_true(lost >= n * (double)thresh_ns);
		assert_true(lost <= secs * 1e9 * 1.01);
		if (n > 0) {
			double p50 = tl_csv_value(hdr, row, "p50_ns"), p99 = tl_csv_value(hdr, row, "p99_ns");

			assert_true(p50 >= (double)thresh_ns && p50 <= p99);
			assert_true(p99 <= tl_csv_value(hdr, row, "max_ns"));
			assert_true(fabs(tl_csv_value(hdr, row, "mean_ns") - lost / n) <= 0.1 + lost / n * 1e-6);
		}
		if (i == cpus) {
			assert_true(fabs(secs - sum[0]) < 1e-5 && n == sum[1] && lost == sum[2]);
			*lost_share = lost / (secs * 1e9);
		} else {
			assert_true(secs >= 0.049 && secs < 1.0);
			sum[0] += secs;
			sum[1] += n;
			sum[2] += lost;
		}
	}
	free(csv);
}

static void test_noise(void **state)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN) < 2 ? 1 : 2;
	char threads[16], *csv = tl_path("noise.csv");
	double share;

	(void)state;
	snprintf(threads, sizeof(threads), "%ld", cpus);
	{
		char *argv[] = { "--threads", threads, "--duration", "50", "--csv", csv };

		assert_int_equal(tl_call_quiet(native_noise_main, 6, argv), 0);
		check_noise_csv(csv, (unsigned)cpus, 1000, &share);
		assert_true(share < 0.9);
	}
	{ /* every gap between two reads a detour: the loop's whole time is lost */
		char *argv[] = { "--threads", "1", "--duration", "50", "--threshold", "1", "--csv", csv };

		assert_int_equal(tl_call_quiet(native_noise_main, 8, argv), 0);
		check_noise_csv(csv, 1, 1, &share);
		assert_true(share > 0.95);
	}
}

static void test_noise_bad_input(void **state)
{
	char over[32];
	const struct {
		const char *opt, *val, *says;
	} bad[] = {
		{ "--threads", over, "more than this machine's" },
		{ "--threads", "100001", "--threads: '100001' is not a whole number from 1 to 100000" },
		{ "--duration", "0", "--duration: '0'" },
		{ "--threshold", "-5", "--threshold: '-5'" },
		{ "--csv", tl_tmpdir(), "a directory" },
		{ "--pin", "none", "--pin: unknown option" },
		{ "--csv", "", "its value is empty" },
	};

	(void)state;
	snprintf(over, sizeof(over), "%ld", sysconf(_SC_NPROCESSORS_CONF) + 1);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { (char *)bad[i].opt, (char *)bad[i].val };

		assert_int_equal(tl_call_quiet(native_noise_main, 2, argv), 2);
		tl_expect_log(bad[i].says);
	}
}

/* ------------------------------------------------------------ main */

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calib_roundtrip),
		cmocka_unit_test(test_calib_refused),
		cmocka_unit_test(test_topology_text),
		cmocka_unit_test(test_group_pairs),
		cmocka_unit_test(test_out_path),
		cmocka_unit_test(test_calibrate_small),
		cmocka_unit_test(test_calibrate_bad_input),
		cmocka_unit_test(test_noise),
		cmocka_unit_test(test_noise_bad_input),
		cmocka_unit_test(test_end_to_end),
	};

	bindir = argc > 1 ? argv[1] : "bin";
	return cmocka_run_group_tests(tests, tl_tmpdir_setup, tl_tmpdir_teardown);
}
