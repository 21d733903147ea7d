/*
 * tests/unit_cli.c - bad input to either binary: exit status 2 and exactly
 * one line on stderr that names the problem.  Also `list` and `help`.
 */
#include <stdio.h>
#include <string.h>

#include "testlib.h"

static const char *bindir;

#define BAD(prog, needle, ...)                                                         \
	do {                                                                           \
		const char *const a_[] = { __VA_ARGS__, NULL };                        \
		tl_bin_refused(bindir, prog, a_, needle);                              \
	} while (0)

static void bad_input_native(void **state)
{
	const char *p = "locklab-native";

	BAD(p, "unknown lock 'nosuchlock'", "run", "--lock", "nosuchlock");
	BAD(p, "--duration", "run", "--lock", "ticket", "--duration", "-5");
	BAD(p, "--duration", "run", "--lock", "ticket", "--duration", "abc");
	BAD(p, "--duration", "run", "--lock", "ticket", "--duration", "0");
	BAD(p, "--threads", "run", "--lock", "ticket", "--threads", "0");
	BAD(p, "--threads", "run", "--lock", "ticket", "--threads", "1,,2");
	BAD(p, "--threads", "run", "--lock", "ticket", "--threads", "100000");
	BAD(p, "--cs", "run", "--lock", "ticket", "--cs", "-1");
	BAD(p, "--ncs", "run", "--lock", "ticket", "--ncs", "exp:x");
	BAD(p, "--cs-lines", "run", "--lock", "ticket", "--cs-lines", "4097");
	BAD(p, "--locks", "run", "--lock", "ticket", "--locks", "0");
	BAD(p, "--read-pct", "run", "--lock", "ticket", "--read-pct", "101");
	BAD(p, "--runs", "run", "--lock", "ticket", "--runs", "0");
	BAD(p, "--pin", "run", "--lock", "ticket", "--pin", "diagonal");
	BAD(p, "--pin", "run", "--lock", "ticket", "--pin", "list:0", "--threads", "2");
	BAD(p, "--format", "run", "--lock", "ticket", "--format", "xml");
	BAD(p, "exclude", "run", "--lock", "ticket", "--ops", "10", "--duration", "10");
	BAD(p, "unknown option '--bogus'", "run", "--bogus", "1");
	BAD(p, "needs a value", "run", "--lock");
	BAD(p, "unknown command", "frobnicate");
}

static void bad_input_sim(void **state)
{
	const char *p = "locklab-sim";

	BAD(p, "unknown lock 'nosuchlock'", "run", "--topo", "4socket", "--lock", "nosuchlock");
	BAD(p, "--duration", "run", "--topo", "4socket", "--lock", "ticket", "--duration", "-5");
	BAD(p, "nosuchmachine", "run", "--topo", "nosuchmachine", "--lock", "ticket");
	/* 4socket has 32 cores */
	BAD(p, "32", "run", "--topo", "4socket", "--lock", "ticket", "--threads", "33");
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
		cmocka_unit_test(bad_input_sim),
		cmocka_unit_test(list_prints_catalogue),
	};
	bindir = argc > 1 ? argv[1] : "bin";
	return cmocka_run_group_tests(tests, NULL, NULL);
}
