/*
 * tests/sim_smt.c - the signature of SMT (topologies/README.md, "SMT") on
 * 4socket-ring-ht, eight cores a socket with two hardware threads each
 * (hardware threads j and j + 8 of socket 0 are siblings):
 *
 *   sibling hit   two threads of ticket on one core's siblings share its
 *                 cache: almost no misses; on two cores, misses each handoff
 *   issue share   local work of both siblings at once runs slower: a lock
 *                 loop with long non-critical sections is slower on
 *                 siblings than on two cores, by at most 1 / smt.issue_share
 *   compact       one thread per core first, then the siblings
 *   --smt off     each hardware thread its own core: the figures of the
 *                 file without SMT (4socket-ring)
 *
 * argv[1] is the bin/ directory; every run is a locklab-sim command.
 */
#include <math.h>

#include "testlib.h"

static const char *bindir;

#define TOPO "4socket-ring-ht"
#define SHARE 0.65 /* smt.issue_share of the file */

/* Column col of data row `row` (0: the first) of a CSV text; NAN when missing. */
static double csv_field(const char *csv, const char *col, unsigned row)
{
	const char *line = csv, *p;
	unsigned idx = 0, k = 0;
	size_t n = strlen(col);

	for (p = csv; *p && *p != '\n'; p++) {
		if ((p == csv || p[-1] == ',') && !strncmp(p, col, n) && (p[n] == ',' || p[n] == '\n'))
			break;
		idx += *p == ',';
	}
	if (!*p || *p == '\n')
		return NAN;
	for (unsigned r = 0; r <= row; r++) {
		line = strchr(line, '\n');
		if (!line)
			return NAN;
		line++;
	}
	for (p = line; *p && *p != '\n' && k < idx; p++)
		k += *p == ',';
	return k == idx ? strtod(p, NULL) : NAN;
}

/* One run of ticket with 2 threads for 1 ms; smt: the --smt value, or NULL. */
static char *run_csv(const char *topo, const char *pin, const char *ncs, const char *smt)
{
	const char *args[] = { "run", "--topo", topo, "--lock", "ticket", "--threads", "2",
			       "--pin", pin, "--ncs", ncs, "--runs", "1", "--duration", "1",
			       "--format", "csv", smt ? "--smt" : NULL, smt, NULL };
	struct tl_proc o;
	char *out;

	if (tl_bin(&o, bindir, "locklab-sim", args) != 0)
		fail_msg("locklab-sim run --topo %s --pin %s: %s", topo, pin, o.err);
	out = o.out;
	o.out = NULL;
	tl_proc_free(&o);
	return out;
}

static void sibling_hit(void **state)
{
	char *sib = run_csv(TOPO, "list:0,8", "200", NULL);
	char *two = run_csv(TOPO, "list:0,1", "200", NULL);
	double ms = csv_field(sib, "misses_per_acq", 0), mt = csv_field(two, "misses_per_acq", 0);

	(void)state;
	print_message("    misses per acquisition: siblings %.4f, two cores %.4f\n", ms, mt);
	assert_true(ms < 0.05);
	assert_true(mt > 1);
	free(sib);
	free(two);
}

static void issue_share(void **state)
{
	char *sib = run_csv(TOPO, "list:0,8", "2000", NULL);
	char *off = run_csv(TOPO, "list:0,8", "2000", "off");
	double ts = csv_field(sib, "throughput_per_s", 0), to = csv_field(off, "throughput_per_s", 0);

	(void)state;
	print_message("    ncs 2000 ns throughput: siblings %.0f, --smt off %.0f (x%.3f)\n", ts, to,
		      ts / to);
	assert_true(ts < 0.9 * to);
	assert_true(ts > SHARE * to * 0.95);
	free(sib);
	free(off);
}

static void compact_fills_cores_first(void **state)
{
	const char *args[] = { "run", "--topo", TOPO, "--lock", "ticket", "--threads", "18",
			       "--runs", "1", "--duration", "1", "--format", "csv",
			       "--threads-csv", tl_path("threads.csv"), NULL };
	struct tl_proc o;
	char *csv;

	(void)state;
	assert_int_equal(tl_bin(&o, bindir, "locklab-sim", args), 0);
	tl_proc_free(&o);
	csv = tl_slurp(tl_path("threads.csv"), NULL);
	assert_non_null(csv);
	for (unsigned i = 0; i < 18; i++) {
		double cpu = csv_field(csv, "cpu", i), node = csv_field(csv, "node", i);

		/* socket 0: its 8 cores (0-7), their siblings (8-15); then socket 1 */
		assert_int_equal((int)cpu, (int)i);
		assert_int_equal((int)node, i < 16 ? 0 : 1);
	}
	free(csv);
}

static void smt_off_is_the_plain_machine(void **state)
{
	char *off = run_csv(TOPO, "list:0,1", "200", "off");
	char *plain = run_csv("4socket-ring", "list:0,1", "200", NULL);

	(void)state;
	assert_true(csv_field(off, "throughput_per_s", 0) == csv_field(plain, "throughput_per_s", 0));
	assert_true(csv_field(off, "misses_per_acq", 0) == csv_field(plain, "misses_per_acq", 0));
	free(off);
	free(plain);
}

/* A share so small that a stretched delay leaves simulated time's range is
 * refused (1e-20 once ran faster than share 1: the stretch wrapped), and so
 * is a share on a machine without SMT. */
static void share_out_of_range_is_refused(void **state)
{
	static const struct {
		const char *from, *to, *needle;
	} bad[] = {
		{ "id=\"smt.issue_share\" value=\"0.65\"", "id=\"smt.issue_share\" value=\"1e-20\"",
		  "smt.issue_share must be in [0.01, 1]" },
		{ "id=\"smt\" value=\"2\"", "id=\"smt\" value=\"1\"",
		  "smt.issue_share 0.65 without smt" },
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *path = tl_path("share.xml");
		struct tl_proc p;

		assert_int_equal(tl_sh(NULL, "sed 's/%s/%s/' topologies/%s.xml > '%s'", bad[i].from,
				       bad[i].to, TOPO, path), 0);
		tl_sh(&p, "%s/locklab-sim run --topo '%s' --lock ticket --threads 2 --duration 1",
		      bindir, path);
		tl_expect_refused(&p, bad[i].needle);
		tl_proc_free(&p);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sibling_hit),
		cmocka_unit_test(issue_share),
		cmocka_unit_test(compact_fills_cores_first),
		cmocka_unit_test(smt_off_is_the_plain_machine),
		cmocka_unit_test(share_out_of_range_is_refused),
	};

	bindir = tl_bindir(argc, argv);
	return cmocka_run_group_tests(tests, tl_tmpdir_setup, tl_tmpdir_teardown);
}
