/*
 * core/filelock_cli.h - the options both `filelock` commands share
 * (native/tools/filelock_opts.c, sim/filelock_cmd.c).  Each parser returns
 * 0, or 2 after one line on stderr naming the option.
 */
#ifndef CORE_FILELOCK_CLI_H
#define CORE_FILELOCK_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include <locklab/workload.h>

#include "filelock_wl.h"

/* --test flock,posix,lease: marks the named tests in test. */
int flw_parse_tests(const char *val, bool test[FLW_NTESTS]);
/* A whole number from 1 to max, for option opt. */
int flw_parse_count(const char *opt, const char *val, uint64_t max, uint64_t *out);
/* --pin POLICY into cfg. */
int flw_parse_pin(const char *val, struct wl_config *cfg);

/* The width of a row's label in filelock's tables, both binaries: "sim
 * 4socket-ring-ht private files, write leases" fits. */
#define FLW_LABEL_W 50
/* --seed S. */
int flw_parse_seed(const char *val, uint64_t *seed);
/* After the options: no --test runs all three tests, neither --shared nor
 * --private runs both. */
void flw_default_choices(bool test[FLW_NTESTS], bool *shared, bool *private);

#endif
