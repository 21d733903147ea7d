/*
 * core/main.c - locklab-native and locklab-sim: `list`, `run`, and the
 * backend's own sub-commands.
 *
 * Exit status: 0 done; 2 bad input (one line on stderr); 3 a run failed
 * (mutual exclusion violated, watchdog, deadlock: one line on stderr, the
 * sweep goes on); 1 an I/O error writing results or the standard output;
 * 130 / 143 a sweep stopped by SIGINT / SIGTERM (core/sweep.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <locklab/backend.h>
#include <locklab/lock.h>
#include <locklab/result.h>
#include <locklab/rng.h>
#include <locklab/stats.h>
#include <locklab/workload.h>

#include "cli.h"
#include "sweep.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: locklab-%s list\n"
		"       locklab-%s run [--lock A,B] [--threads 1,2,4] [--cs NS] [--ncs NS|exp:NS]\n"
		"              [--cs-lines K] [--locks L] [--read-pct P] [--duration MS | --ops N]\n"
		"              [--runs R] [--pin compact|scatter|socket:N|list:a,b|none] [--seed S]\n"
		"              [--format table|csv|json] [--out FILE] [--csv FILE] [--json FILE] [--progress]\n"
		"              [--threads-csv FILE]  (a row per thread of each run)\n"
		"              [--vm V --overcommit X[,X...]]  (V threads on V/X cpus: docs/vm.md)\n"
		"              [--preset fserver|stat]  (rwlock file-server mix; lockref stat() loop:\n"
		"                                        docs/rwlocks.md; other options override it)\n"
		"%s",
		backend_name, backend_name, backend_usage);
}

static void die_bad_input(const char *msg)
{
	fprintf(stderr, "locklab-%s: %s\n", backend_name, msg);
	exit(2);
}

static int cmd_list(void)
{
	for (size_t i = 0; i < lock_catalogue_size(); i++) {
		const struct lock_algo *a = lock_catalogue_get(i);

		printf("%-16s %-9s %s\n", a->name, lock_kind_name(a->kind), a->desc);
	}
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	static struct cli_opts o; /* large: keep it off the stack */
	char err[512];

	if (cli_parse_run(argc, argv, &o, err, sizeof(err)))
		die_bad_input(err);
	if (backend_check(&o.cfg, err, sizeof(err)))
		die_bad_input(err);
	return sweep_run(&o);
}

/* What stdout could not take fails the command: 1 and a line. */
static int close_stdout(int rc)
{
	if (fflush(stdout) || ferror(stdout) || (fclose(stdout) && errno != EBADF)) {
		fprintf(stderr, "locklab-%s: cannot write the standard output: %s\n", backend_name,
			errno ? strerror(errno) : "write error");
		return rc ? rc : 1;
	}
	return rc;
}

int main(int argc, char **argv)
{
	int rc;

	if (backend_init(&argc, argv))
		return 2;
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "list"))
		rc = cmd_list();
	else if (!strcmp(argv[1], "run"))
		rc = cmd_run(argc - 2, argv + 2);
	else if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		rc = 0;
	} else {
		rc = backend_command(argv[1], argc - 2, argv + 2);
		if (rc < 0) {
			fprintf(stderr, "locklab-%s: unknown command '%s' (try: list, run, help)\n",
				backend_name, argv[1]);
			rc = 2;
		}
	}
	backend_fini();
	return close_stdout(rc);
}
