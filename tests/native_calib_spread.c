/*
 * tests/native_calib_spread.c - the latency spread and the kick calibrate
 * writes (native/tools/calib_platform.c, write_spread, write_kick).  The
 * spread: the median over the
 * measured latencies of (p90 - p10) / 2 against the median, as the
 * platform's latency.spread, only where the calibration records a clock
 * finer than CALIB_FINE_STEP_NS; the clock's step read back from the text
 * form, and refused when it is no step.  The kick: the futex_wake call's
 * median as the platform's park.kick, which the simulator then charges in
 * place of its assumed one (said so in the assumed line and the JSON), and
 * a park.kick that is no time refused in one line.  The calibration is this project's
 * 2-vCPU machine's (tests/fixtures/calib/2vcpu.calib.csv, a copy of
 * docs/data/host-2vcpu.calib.csv, which records no step).  The platform
 * written with a spread is run by bin/locklab-sim from argv[1], which says
 * it; the sanitizer builds skip that run (the binary is the same).
 * calibrate --from without --out names the platform after the
 * calibration's own host.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

#include "../native/tools/validate.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

#define FIXTURE "tests/fixtures/calib/2vcpu.calib.csv"

static const char *bindir;

/* The fixture, with `line` added after its tsc_ghz record (NULL: as is). */
static void read_calib(struct calib *c, const char *line)
{
	char *text = tl_slurp_ok(FIXTURE, NULL), *at, err[300], *both;

	at = strstr(text, "\nreps,");
	assert_non_null(at);
	assert_true(asprintf(&both, "%.*s\n%s%s", (int)(at - text), text, line ? line : "",
			     at + 1) > 0);
	if (calib_parse(both, c, err, sizeof(err)))
		fail_msg("%s", err);
	free(both);
	free(text);
}

static char *platform(const struct calib *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	calib_write_topology(m, c, "host-spread");
	fclose(m);
	return buf;
}

static void spread_from_a_fine_clock(void **state)
{
	static struct calib c, back;
	char *xml, *text = NULL, err[300], path[512];
	size_t len = 0;
	FILE *m;

	(void)state;
	read_calib(&c, "tsc_step_ns,0.435\n");
	assert_true(fabs(c.tsc_step_ns - 0.435) < 1e-9);
	/* the record is written back, and read back the same */
	m = open_memstream(&text, &len);
	calib_write(m, &c);
	fclose(m);
	assert_non_null(strstr(text, "\ntsc_step_ns,0.435\n"));
	if (calib_parse(text, &back, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(fabs(back.tsc_step_ns - 0.435) < 1e-9);
	free(text);
	/* its 20 latencies' ratios have a median of 9.4%: 9 */
	xml = platform(&c);
	assert_non_null(strstr(xml, "over the 20 measured (the clock's step 0.43 ns): median 9.4%"));
	assert_non_null(strstr(xml, "<prop id=\"latency.spread\" value=\"9\"/>"));
	snprintf(path, sizeof(path), "%s", tl_path("spread.xml"));
	tl_spit(path, xml);
	free(xml);
	if (!SANITIZED) { /* the simulator takes it as the machine's */
		struct tl_proc p;

		assert_int_equal(tl_sh(&p, "%s/locklab-sim run --topo %s --lock ttas --threads 2 "
					   "--runs 1 --duration 1", bindir, path), 0);
		assert_non_null(strstr(p.out, "latency spread 9% (the topology's)"));
		/* what the file does not set is the simulator's default, not the file's */
		assert_non_null(strstr(p.out, "memory model sc (the default: the topology file sets none)"));
		assert_non_null(strstr(p.out, "arbitration fifo (the default: the topology file sets none)"));
		tl_proc_free(&p);
	}
	/* latencies that stray more than the simulator takes: its largest */
	for (int op = 0; op < CAL_NOPS; op++)
		for (int st = 0; st < CAL_NSTATES; st++) {
			c.cell[op][st][0].p10 = 0;
			c.cell[op][st][0].p90 = 3 * c.cell[op][st][0].median;
		}
	xml = platform(&c);
	assert_non_null(strstr(xml, "<prop id=\"latency.spread\" value=\"90\"/>"));
	free(xml);
}

static void no_spread_without_a_fine_clock(void **state)
{
	static struct calib c;
	char *xml;

	(void)state;
	read_calib(&c, NULL); /* older than the record */
	assert_true(c.tsc_step_ns == 0);
	xml = platform(&c);
	assert_null(strstr(xml, "id=\"latency.spread\""));
	assert_non_null(strstr(xml, "not written: the calibration does not record its clock's step"));
	free(xml);
	read_calib(&c, "tsc_step_ns,10\n"); /* this VM's clock */
	xml = platform(&c);
	assert_null(strstr(xml, "id=\"latency.spread\""));
	assert_non_null(strstr(xml, "not written: the clock advanced in steps as large"));
	free(xml);
}

/* xml with its park.kick's value replaced by value, written to name. */
static const char *with_kick(const char *xml, const char *value, const char *name)
{
	static char path[512];
	const char *at = strstr(xml, "<prop id=\"park.kick\" value=\"");
	char *copy;

	assert_non_null(at);
	at += strlen("<prop id=\"park.kick\" value=\"");
	assert_true(asprintf(&copy, "%.*s%s%s", (int)(at - xml), xml, value, strchr(at, '"')) > 0);
	snprintf(path, sizeof(path), "%s", tl_path(name));
	tl_spit(path, copy);
	free(copy);
	return path;
}

static void kick_from_the_calibration(void **state)
{
	static const char *const bad[] = { "-1", "fast", "2e9" };
	static struct calib c;
	char *xml;

	(void)state;
	read_calib(&c, NULL); /* its futex_wake: median 10700 ns */
	xml = platform(&c);
	assert_non_null(strstr(xml, "median 10700.0, p10 10037.0, p90 11695.2 ns -->"));
	assert_non_null(strstr(xml, "<prop id=\"park.kick\" value=\"10700.00\"/>"));
	if (!SANITIZED) { /* the simulator charges it, and says the kick is no longer assumed */
		struct tl_proc p;
		const char *path = with_kick(xml, "10700.00", "kick.xml");

		assert_int_equal(tl_sh(&p, "%s/locklab-sim run --topo %s --lock mutex --threads 2 "
					   "--runs 1 --duration 1 --format json", bindir, path), 0);
		assert_non_null(strstr(p.out, "\"park_kick_ns\": 10700.000"));
		tl_proc_free(&p);
		assert_int_equal(tl_sh(&p, "%s/locklab-sim run --topo %s --lock mutex --threads 2 "
					   "--runs 1 --duration 1", bindir, path), 0);
		assert_non_null(strstr(p.out, "a parked waiter's halt and wake, 0.2 and 2 us"));
		assert_null(strstr(p.out, "halt, kick and wake"));
		tl_proc_free(&p);
		for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			path = with_kick(xml, bad[i], "bad-kick.xml");
			assert_int_equal(tl_sh(&p, "%s/locklab-sim run --topo %s --lock mutex "
						   "--threads 2", bindir, path), 2);
			assert_non_null(strstr(p.err, "park.kick"));
			assert_null(strchr(strchr(p.err, '\n') + 1, '\n')); /* one line */
			tl_proc_free(&p);
		}
	}
	free(xml);
	/* no kick measured: no property, the assumed one said */
	c.kick.measured = false;
	xml = platform(&c);
	assert_null(strstr(xml, "id=\"park.kick\""));
	assert_non_null(strstr(xml, "no kick measured (one PU, or an older calibration): the "
				    "simulator's assumed 0.5 us"));
	free(xml);
}

static void a_step_that_is_none_is_refused(void **state)
{
	static const char *const bad[] = { "tsc_step_ns,0\n", "tsc_step_ns,-1\n",
					   "tsc_step_ns,2e6\n", "tsc_step_ns,fast\n" };
	char *text = tl_slurp_ok(FIXTURE, NULL), *at = strstr(text, "\nreps,"), *both, err[300];
	static struct calib c;

	(void)state;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_true(asprintf(&both, "%.*s\n%s%s", (int)(at - text), text, bad[i], at + 1) > 0);
		assert_int_equal(calib_parse(both, &c, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "tsc_step_ns"));
		assert_null(strchr(err, '\n'));
		free(both);
	}
	free(text);
}

/* A calibration without a record every figure rests on is refused in one
 * line naming it (a missing clock once gave "TSC 0.000 GHz"). */
static void records_a_calibration_needs(void **state)
{
	static const char *const need[] = { "version", "host", "tsc_ghz", "reps" };
	char *text = tl_slurp_ok(FIXTURE, NULL), *cut, *at, *eol, err[300];
	static struct calib c;

	(void)state;
	for (unsigned i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		char key[32];

		snprintf(key, sizeof(key), "\n%s,", need[i]);
		assert_non_null(at = strstr(text, key));
		eol = strchr(at + 1, '\n');
		assert_true(asprintf(&cut, "%.*s%s", (int)(at - text), text, eol) > 0);
		assert_int_equal(calib_parse(cut, &c, err, sizeof(err)), -1);
		if (!strstr(err, need[i]) || strchr(err, '\n'))
			fail_msg("without %s: '%s'", need[i], err);
		free(cut);
	}
	free(text);
}

/* calibrate --from without --out names its platform after the
 * calibration's host, not after the machine converting it; a host that
 * names no file is refused in one line. */
static void from_names_the_calibrations_host(void **state)
{
	const char *dir = tl_tmpdir();
	char fixture[PATH_MAX];
	struct tl_proc p;

	(void)state;
	assert_non_null(realpath(FIXTURE, fixture));
	assert_int_equal(tl_sh(&p, "cd %s && %s/locklab-native calibrate --from %s", dir, bindir,
			       fixture), 0);
	assert_non_null(strstr(p.out, "wrote results/host-2vcpu.xml"));
	tl_proc_free(&p);
	assert_int_equal(tl_sh(&p, "sed 's/^host,.*/host,a\\/b/' %s > %s/slash.calib.csv && cd %s && "
			       "%s/locklab-native calibrate --from slash.calib.csv", fixture, dir, dir,
			       bindir), 2);
	assert_string_equal(p.err, "locklab-native: calibrate: slash.calib.csv: line 3: host: byte "
				   "0x2f, where a host name has letters, digits, '.', '-' and '_'\n");
	tl_proc_free(&p);
}

/* A calibration that contradicts itself, or names what a calibration
 * never writes, is refused in one line naming it (each was taken, and a
 * platform written from it).  What calibrate writes is taken: cpus past
 * the PUs counted (the OS's numbers, in a cpuset), a node without its
 * memory's figure (one it could not allocate on). */
static void a_calibration_that_contradicts_itself(void **state)
{
	static const struct {
		const char *line, *with, *needle;
	} bad[] = {
		{ "cell,0,load,M,0,1,", "cell,0,load,M,0,99999,", "cpus 0 and 99999, where a cpu is 0..1023" },
		{ "cell,0,load,M,0,1,", "cell,0,load,M,0,0,", "cpu 0 with itself" },
		{ "cell,0,load,M,0,1,80.001", "cell,0,load,M,0,1,0x50", "median_ns: '0x50' is not a number" },
		{ "loadavg,1.15", "loadavg,-2", "loadavg -2: a load is not negative" },
		{ "host,2vcpu", "host,hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh",
		  "host: 74 characters, at most 63" },
		{ "host,2vcpu", "host,a\x1b[31mb", "host: byte 0x1b" },
	};
	char *text = tl_slurp_ok(FIXTURE, NULL), err[300];
	static struct calib c;

	(void)state;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *at = strstr(text, bad[i].line), *both;

		assert_non_null(at);
		assert_true(asprintf(&both, "%.*s%s%s", (int)(at - text), text, bad[i].with,
				     at + strlen(bad[i].line)) > 0);
		assert_int_equal(calib_parse(both, &c, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].needle) || strchr(err, '\n'))
			fail_msg("%s: '%s'", bad[i].with, err);
		free(both);
	}
	{
		static const char *const ok[][2] = {
			{ "cell,0,load,M,0,1,", "cell,0,load,M,2,3," },
			{ "numa_nodes,1", "numa_nodes,2" },
		};

		for (unsigned i = 0; i < 2; i++) {
			char *at = strstr(text, ok[i][0]), *both;

			assert_non_null(at);
			assert_true(asprintf(&both, "%.*s%s%s", (int)(at - text), text, ok[i][1],
					     at + strlen(ok[i][0])) > 0);
			if (calib_parse(both, &c, err, sizeof(err)))
				fail_msg("%s: refused: %s", ok[i][1], err);
			free(both);
		}
	}
	free(text);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(spread_from_a_fine_clock),
		cmocka_unit_test(no_spread_without_a_fine_clock),
		cmocka_unit_test(a_step_that_is_none_is_refused),
		cmocka_unit_test(kick_from_the_calibration),
		cmocka_unit_test(from_names_the_calibrations_host),
		cmocka_unit_test(records_a_calibration_needs),
		cmocka_unit_test(a_calibration_that_contradicts_itself),
	};

	bindir = argc > 1 ? argv[1] : "bin";
	return cmocka_run_group_tests(tests, tl_tmpdir_setup, tl_tmpdir_teardown);
}
