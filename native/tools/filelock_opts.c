/*
 * native/tools/filelock_opts.c - the options of `locklab-native filelock`:
 * which tests, how many processes, shared or private files, iterations,
 * runs, placement, directory, CSV and time limit.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <locklab/args.h>

#include "../../core/filelock_cli.h"
#include "filelock.h"
#include "validate.h"

const char *const fl_test_names[FL_NTESTS] = { "flock", "posix", "lease" };

int fl_bad(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ll_vsay("filelock", fmt, ap);
	va_end(ap);
	return 2;
}

/* ------------------------------------------------------------ options */

_Static_assert((int)FL_NTESTS == (int)FLW_NTESTS, "one --test list for both filelock commands");

static int parse_pin(const char *val, struct fl_opts *o)
{
	if (flw_parse_pin(val, &o->pin.cfg))
		return 2;
	o->pin_text = val;
	return 0;
}

static int parse_valued(const char *a, const char *v, struct fl_opts *o)
{
	uint64_t n;

	if (!strcmp(a, "--test"))
		return flw_parse_tests(v, o->test);
	if (!strcmp(a, "--pin"))
		return parse_pin(v, o);
	if (!strcmp(a, "--dir")) {
		o->dir = v;
		return 0;
	}
	if (!strcmp(a, "--csv")) {
		o->csv = v;
		return 0;
	}
	if (!strcmp(a, "--procs")) {
		if (flw_parse_count(a, v, FL_MAX_PROCS, &n))
			return 2;
		o->procs = (unsigned)n;
		return 0;
	}
	if (!strcmp(a, "--runs")) {
		if (flw_parse_count(a, v, FL_MAX_RUNS, &n))
			return 2;
		o->runs = (unsigned)n;
		return 0;
	}
	if (!strcmp(a, "--timeout"))
		return flw_parse_count(a, v, 86400, &o->timeout_s);
	if (!strcmp(a, "--iterations"))
		return flw_parse_count(a, v, 1000000000ull, &o->iterations);
	return 0;
}

static const struct ll_opt fl_opts_table[] = {
	LL_VALUE("--test"), LL_VALUE("--procs"), LL_FLAG("--shared"), LL_FLAG("--private"),
	LL_VALUE("--iterations"), LL_VALUE("--runs"), LL_VALUE("--pin"), LL_VALUE("--dir"), LL_VALUE("--csv"), LL_VALUE("--timeout"),
	LL_OPTS_END,
};

static void fl_usage(FILE *f)
{
	fprintf(f, "usage: locklab-native filelock [--test flock,posix,lease] [--procs N] [--shared|--private]\n"
		   "              [--iterations N] [--runs R] [--pin POLICY] [--dir DIR] [--csv FILE]\n"
		   "              [--timeout S]  file locks between processes (docs/validate.md);\n"
		   "              defaults: --test flock,posix,lease, --procs one a PU of this\n"
		   "              machine, both --shared and --private, --iterations %d, --runs %d,\n"
		   "              --pin compact, --dir $TMPDIR or /tmp (a new directory in it), --timeout %d s\n"
		   "              (the simulator's filelock has other defaults: its --help)\n",
		FL_DEFAULT_ITERS, FL_DEFAULT_RUNS, FL_DEFAULT_TIMEOUT_S);
}

const struct ll_command native_filelock_cmd = {
	.name = "filelock", .main = native_filelock_main, .usage = fl_usage, .opts = fl_opts_table,
};

static void set_defaults(struct fl_opts *o)
{
	const struct native_machine *m = native_machine();

	memset(o, 0, sizeof(*o));
	o->iterations = FL_DEFAULT_ITERS;
	o->runs = FL_DEFAULT_RUNS;
	o->timeout_s = FL_DEFAULT_TIMEOUT_S;
	o->procs = m ? m->npus : 2;
	o->pin.cfg.count_opt = "--procs";
}

int fl_parse_opts(int argc, char **argv, struct fl_opts *o)
{
	struct ll_args a;
	char err[256];
	int rc;

	set_defaults(o);
	if (parse_pin("compact", o))
		return 2;
	ll_args_init(&a, &native_filelock_cmd, argc, argv);
	while ((rc = ll_args_next(&a, err, sizeof(err))) == LL_ARG_OPT) {
		if (!a.val) {
			*(a.name[2] == 's' ? &o->shared : &o->private) = true;
			continue;
		}
		if (!*a.val)
			return fl_bad("%s: its value is empty", a.name);
		rc = parse_valued(a.name, a.val, o);
		if (rc)
			return rc;
	}
	if (rc == LL_ARG_HELP) {
		fl_usage(stdout);
		return 1;
	}
	if (rc == LL_ARG_BAD)
		return fl_bad("%s", err);
	flw_default_choices(o->test, &o->shared, &o->private);
	return 0;
}
