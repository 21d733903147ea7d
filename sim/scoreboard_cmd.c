/*
 * sim/scoreboard_cmd.c - `locklab-sim scoreboard [OPTIONS]`: every published
 * figure of the seeds against this simulator (docs/scoreboard.md), as
 * `scons scoreboard` runs it: tools/scoreboard.py with this program's
 * directory as its --bin, the options passed on (the runner says what it
 * takes and refuses the rest).  The runner is looked up as the topologies
 * are: tools/ here, then next to the program and up to four of its parents.
 * Its exit status is this command's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <locklab/args.h>

#include "../core/topodirs.h"
#include "sim.h"

#define RUNNER "tools/scoreboard.py"

static void scoreboard_usage(FILE *f)
{
	fprintf(f,
		"usage: locklab-sim scoreboard [--list] [--only ID|FILE.sb,...] [--seeds N]\n"
		"              [--append 'OPTIONS'] [--jobs N] [--results DIR] [--board DIR]\n"
		"              [--no-chart]\n"
		"              the seeds' published figures against this simulator, one row an\n"
		"              entry and the count (docs/scoreboard.md); " RUNNER " run with\n"
		"              this program's directory as its --bin (as `scons scoreboard`);\n"
		"              `python3 " RUNNER " --help` says what each option does: results\n"
		"              go to the project's results/ unless --results names a directory\n");
}

static const struct ll_opt scoreboard_opts[] = {
	LL_FLAG("--list"),     LL_VALUE("--only"),    LL_VALUE("--seeds"), LL_VALUE("--append"),
	LL_VALUE("--jobs"),    LL_VALUE("--results"), LL_VALUE("--board"), LL_FLAG("--no-chart"),
	LL_VALUE("--bin"),     LL_OPTS_END
};

static int scoreboard_main(int argc, char **argv)
{
	char runner[PATH_MAX], bindir[PATH_MAX], err[256];
	char *args[2 * LL_ARGS_SEEN + 5];
	struct ll_args a;
	int n = 4, rc;

	if (argc > 2 * LL_ARGS_SEEN)
		return ll_bad("scoreboard", "more than %d arguments", 2 * LL_ARGS_SEEN);
	/* the runner takes each option and its value as two arguments */
	ll_args_init(&a, &sim_scoreboard_cmd, argc, argv);
	while ((rc = ll_args_next(&a, err, sizeof(err))) == LL_ARG_OPT) {
		if (!strcmp(a.name, "--bin"))
			return ll_bad("scoreboard", "--bin: the runner's --bin is this program's "
						    "directory (tools/scoreboard.py --bin DIR runs another)");
		for (const struct ll_opt *o = scoreboard_opts; o->name; o++)
			if (!strcmp(o->name, a.name)) /* a.name is a buffer the next read reuses */
				args[n++] = (char *)o->name;
		if (a.val)
			args[n++] = (char *)a.val;
	}
	if (rc == LL_ARG_BAD)
		return ll_bad("scoreboard", "%s", err);
	if (ll_project_file(RUNNER, runner))
		return ll_bad("scoreboard", "no %s here or beside this program (run it from the "
					    "repository)", RUNNER);
	if (ll_program_dir(bindir))
		return ll_bad("scoreboard", "cannot find this program's directory");
	args[0] = "python3";
	args[1] = runner;
	args[2] = "--bin";
	args[3] = bindir;
	args[n] = NULL;
	if (setenv("LOCKLAB_SCOREBOARD_PROG", "locklab-sim: scoreboard", 1)) /* its errors as ours */
		return ll_bad("scoreboard", "cannot set the environment: %s", strerror(errno));
	fflush(NULL);
	execvp(args[0], args);
	return ll_bad("scoreboard", "cannot run python3: %s", strerror(errno));
}

const struct ll_command sim_scoreboard_cmd = {
	.name = "scoreboard", .main = scoreboard_main, .usage = scoreboard_usage,
	.opts = scoreboard_opts,
};
