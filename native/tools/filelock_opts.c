/*
 * native/tools/filelock_opts.c - the options of `locklab-native filelock`:
 * which tests, how many processes, shared or private files, iterations,
 * runs, placement, directory, CSV and time limit.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "filelock.h"

const char *const fl_test_names[FL_NTESTS] = { "flock", "posix", "lease" };

int fl_bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "locklab-native: filelock: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

/* ------------------------------------------------------------ options */

static int parse_tests(const char *val, struct fl_opts *o)
{
	char buf[128], *save = NULL;

	if (strlen(val) >= sizeof(buf) || !*val || val[strlen(val) - 1] == ',')
		return fl_bad("--test: '%s' is not a list of flock, posix, lease", val);
	strcpy(buf, val);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int k = -1;

		for (int i = 0; i < FL_NTESTS; i++)
			if (!strcmp(t, fl_test_names[i]))
				k = i;
		if (k < 0)
			return fl_bad("--test: unknown test '%s' (flock, posix, lease)", t);
		o->test[k] = true;
	}
	return 0;
}

static int parse_count(const char *opt, const char *val, uint64_t max, uint64_t *out)
{
	if (cli_parse_u64(val, out) || *out < 1 || *out > max)
		return fl_bad("%s '%s': a whole number from 1 to %llu", opt, val,
			      (unsigned long long)max);
	return 0;
}

static int parse_pin(const char *val, struct fl_opts *o)
{
	char *av[2] = { (char *)"--pin", (char *)val };
	char err[300];

	if (cli_parse_run(2, av, &o->pin, err, sizeof(err)))
		return fl_bad("%s", err);
	o->pin_text = val;
	return 0;
}

static int parse_valued(const char *a, const char *v, struct fl_opts *o)
{
	uint64_t n;

	if (!strcmp(a, "--test"))
		return parse_tests(v, o);
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
		if (parse_count(a, v, FL_MAX_PROCS, &n))
			return 2;
		o->procs = (unsigned)n;
		return 0;
	}
	if (!strcmp(a, "--runs")) {
		if (parse_count(a, v, FL_MAX_RUNS, &n))
			return 2;
		o->runs = (unsigned)n;
		return 0;
	}
	if (!strcmp(a, "--timeout"))
		return parse_count(a, v, 86400, &o->timeout_s);
	if (!strcmp(a, "--iterations"))
		return parse_count(a, v, 1000000000ull, &o->iterations);
	return fl_bad("unknown option '%s' (--test, --procs, --shared, --private, --iterations, "
		      "--runs, --pin, --dir, --csv, --timeout)", a);
}

int fl_parse_opts(int argc, char **argv, struct fl_opts *o)
{
	const struct native_machine *m = native_machine();
	bool any = false;
	int rc;

	memset(o, 0, sizeof(*o));
	o->iterations = FL_DEFAULT_ITERS;
	o->runs = FL_DEFAULT_RUNS;
	o->timeout_s = FL_DEFAULT_TIMEOUT_S;
	o->procs = m ? m->npus : 2;
	if (parse_pin("compact", o))
		return 2;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--shared") || !strcmp(a, "--private")) {
			*(a[2] == 's' ? &o->shared : &o->private) = true;
			continue;
		}
		if (i + 1 >= argc || !*argv[i + 1])
			return fl_bad("%s needs a value", a);
		rc = parse_valued(a, argv[i + 1], o);
		if (rc)
			return rc;
		i++;
	}
	for (int i = 0; i < FL_NTESTS; i++)
		any |= o->test[i];
	if (!any)
		o->test[FL_FLOCK] = o->test[FL_POSIX] = o->test[FL_LEASE] = true;
	if (!o->shared && !o->private)
		o->shared = o->private = true;
	return 0;
}
