/*
 * core/filelock_cli.c - parsing the options both `filelock` commands share.
 */
#include <stdio.h>
#include <string.h>

#include <locklab/args.h>

#include "cli.h"
#include "filelock_cli.h"

#define BAD(...) ll_bad("filelock", __VA_ARGS__)

int flw_parse_tests(const char *val, bool test[FLW_NTESTS])
{
	char buf[128], *save = NULL;

	if (strlen(val) >= sizeof(buf) || cli_empty_item(val))
		return BAD("--test: '%s' is not a list of flock, posix, lease", val);
	strcpy(buf, val);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int k = -1;

		for (int i = 0; i < FLW_NTESTS; i++)
			if (!strcmp(t, flw_test_names[i]))
				k = i;
		if (k < 0)
			return BAD("--test: unknown test '%s' (flock, posix, lease)", t);
		if (test[k])
			return BAD("--test: %s is listed twice", t);
		test[k] = true;
	}
	return 0;
}

int flw_parse_count(const char *opt, const char *val, uint64_t max, uint64_t *out)
{
	return ll_parse_count("filelock", opt, val, max, out);
}

int flw_parse_pin(const char *val, struct wl_config *cfg)
{
	char err[300];

	return cli_parse_pin(val, cfg, err, sizeof(err)) ? BAD("%s", err) : 0;
}

int flw_parse_seed(const char *val, uint64_t *seed)
{
	if (cli_parse_u64(val, seed) && *val && strspn(val, "0123456789") == strlen(val))
		return BAD("--seed: %s is out of range (0..%llu)", val, (unsigned long long)UINT64_MAX);
	return cli_parse_u64(val, seed) ? BAD("--seed: '%s' is not a non-negative integer", val) : 0;
}

void flw_default_choices(bool test[FLW_NTESTS], bool *shared, bool *private)
{
	bool any = false;

	for (int i = 0; i < FLW_NTESTS; i++)
		any |= test[i];
	if (!any)
		test[FLW_FLOCK] = test[FLW_POSIX] = test[FLW_LEASE] = true;
	if (!*shared && !*private)
		*shared = *private = true;
}
