/*
 * native/tools/filelock.h - the options of `locklab-native filelock`
 * (filelock_opts.c parses them, filelock.c runs the tests).
 */
#ifndef LOCKLAB_NATIVE_TOOLS_FILELOCK_H
#define LOCKLAB_NATIVE_TOOLS_FILELOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "../../core/cli.h"
#include "../native.h"

#define FL_MAX_PROCS NATIVE_MAX_THREADS
#define FL_MAX_RUNS 10000
#define FL_DEFAULT_ITERS 10000
#define FL_DEFAULT_RUNS 5
#define FL_DEFAULT_TIMEOUT_S 120

enum fl_test { FL_FLOCK, FL_POSIX, FL_LEASE, FL_NTESTS };
extern const char *const fl_test_names[FL_NTESTS];

struct fl_opts {
	bool test[FL_NTESTS];
	bool shared, private;
	unsigned procs, runs;
	uint64_t iterations;
	uint64_t timeout_s;
	const char *dir;
	const char *csv;
	struct cli_opts pin; /* only its placement is used */
	const char *pin_text;
	bool oversubscribed; /* more processes than the CPUs they are placed on */
};

/* One line on stderr naming the problem; returns 2. */
__attribute__((format(printf, 1, 2)))
int fl_bad(const char *fmt, ...);

/* The options after `filelock`: 0, 1 after --help, or 2 after one line
 * on stderr. */
int fl_parse_opts(int argc, char **argv, struct fl_opts *o);

#endif
