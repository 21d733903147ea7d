/*
 * core/cli.h - the command line of both binaries.
 */
#ifndef CORE_CLI_H
#define CORE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <locklab/args.h>
#include <locklab/workload.h>

enum out_format { FMT_TABLE = 0, FMT_CSV, FMT_JSON };

struct cli_opts {
	struct wl_config cfg;
	enum out_format format;
	const char *out;  /* --out: the --format output goes there */
	const char *csv;  /* --csv: also write CSV there */
	const char *json; /* --json: also write JSON there */
	const char *threads_csv; /* --threads-csv: a row per thread there */
	bool progress;
	bool fail_fast; /* --fail-fast: stop the sweep at the first failed run */
	unsigned jobs;  /* --jobs: runs at once, each in a worker process */
	unsigned shard, nshards; /* --shard I/N: the configurations k with k % N == I */
	/* The sweep the options describe, whatever its outputs, shard, workers
	 * and progress: its options sorted, as text (cut at its room) and as a
	 * hash of the whole.  merge joins only shards of one sweep. */
	char sweep_text[1024];
	uint64_t sweep_key;
	const char *runner_opt; /* the first of --jobs, --shard, --fail-fast, --progress given */
	const char *preset;     /* --preset's value, or NULL */
};

/* One line of a refusal in err; returns 2 (the exit status of bad input). */
int cli_fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* core/cli_check.c: the parsed options against each other and the
 * defaults that depend on them (cli_check_config), then what would mean
 * nothing in the sweep (cli_check_meaning). */
int cli_check_config(struct cli_opts *o, bool duration_given, bool threads_given, char *err,
		     size_t len);
int cli_check_meaning(const struct cli_opts *o, bool read_pct_given, bool cs_lines_given,
		      char *err, size_t len);

/* What the options leave unsaid, once every check has passed: a guest's
 * preset run without a guest (one line on stderr, or nothing). */
void cli_warn(const struct cli_opts *o);

/* Parse the options of `run` (argv[0] is the first option); cli_parse_cmd
 * those of a sub-command that takes run's (explain), named in messages.
 * Returns 0, or 2 with one line (no newline) in err.  `--help` was dealt
 * with before (core/main.c). */
int cli_parse_run(int argc, char **argv, struct cli_opts *o, char *err, size_t errlen);
int cli_parse_cmd(const struct ll_command *cmd, int argc, char **argv, struct cli_opts *o,
		  char *errbuf, size_t errlen);

/* --pin POLICY into c (filelock's --pin too): 0, or 2 with one line in err. */
int cli_parse_pin(const char *val, struct wl_config *c, char *err, size_t errlen);

/* Has a comma-separated list an empty item (",," or a comma at an end), or
 * none at all?  Every list option of both backends refuses one. */
bool cli_empty_item(const char *val);

/* Strict number parsing for every option of both backends: the whole string
 * must be a non-negative decimal integer that fits. */
int cli_parse_u64(const char *s, uint64_t *out);

#endif
