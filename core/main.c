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
#include <signal.h>
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

#include <locklab/args.h>

#include "cli.h"
#include "sweep.h"

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: locklab-%s run [--lock A,B] [--threads 1,2,4] [--cs NS] [--ncs NS|exp:NS]\n"
		"              [--cs-lines K] [--locks L] [--read-pct P] [--duration MS | --ops N]\n"
		"              [--runs R] [--pin compact|scatter|socket:N|node:N|list:a,b|none]\n"
		"              [--seed S]\n"
		"              [--format table|csv|json] [--out FILE] [--csv FILE] [--json FILE] [--progress]\n"
		"              [--fail-fast]  (stop the sweep at the first failed run)\n"
		"              [--threads-csv FILE]  (a row per thread of each run)\n"
		"              [--jobs N]  (runs at once in worker processes; default the CPUs,\n"
		"                           natively 1) [--shard I/N]  (configurations k, k %% N == I)\n"
		"              [--time-every K]  (time one acquisition in K: native 32, sim 1)\n"
		"              [--vm V --overcommit X[,X...]]  (V threads on V/X cpus: docs/vm.md)\n"
		"              [--preset fserver|stat|ebizzy|dbench]  (rwlock file-server mix, lockref\n"
		"                           stat() loop: docs/rwlocks.md; ebizzy, dbench in a KVM guest:\n"
		"                           docs/vm.md; other options override it)\n"
		"              [--lock-home same|spread|random]  (the locks' node: node 0 or the\n"
		"                           threads' one; lock i on node i; a draw per run)\n"
		"              defaults: --lock every mutex of `list`, --threads 1,2,4, --cs 50,\n"
		"                        --ncs 200, --cs-lines 1, --locks 1, --read-pct 90, --runs 3,\n"
		"                        --duration %llu, --pin compact, --lock-home same, --seed 1\n"
		"%s",
		backend_name, (unsigned long long)backend_default_duration_ms, backend_usage);
}

static void list_usage(FILE *f)
{
	fprintf(f, "usage: locklab-%s list\n"
		   "              the locks this binary runs: name, kind, description\n", backend_name);
}

static void version_usage(FILE *f)
{
	fprintf(f, "usage: locklab-%s version  (or --version)\n", backend_name);
}

static void help_usage(FILE *f)
{
	fprintf(f, "usage: locklab-%s help [COMMAND]  (or COMMAND --help)\n", backend_name);
}

static void die_bad_input(const char *cmd, const char *msg)
{
	ll_bad(cmd, "%s", msg);
	exit(2);
}

static const struct ll_command list_cmd, run_cmd;

static void merge_usage(FILE *f)
{
	fprintf(f, "usage: locklab-%s merge --out FILE SHARD.csv...\n"
		   "              the CSVs of `run --shard I/N --csv SHARD.csv`, every shard once,\n"
		   "              as the CSV of the whole sweep (each SHARD.csv.order beside it)\n",
		backend_name);
}

/* A sub-command without options: anything on its line is refused. */
static void no_options(const struct ll_command *cmd, int argc, char **argv)
{
	struct ll_args a;
	char err[256];

	ll_args_init(&a, cmd, argc, argv);
	if (ll_args_next(&a, err, sizeof(err)) == LL_ARG_BAD)
		die_bad_input(cmd->name, err);
}

static int cmd_list(int argc, char **argv)
{
	no_options(&list_cmd, argc, argv);
	for (size_t i = 0; i < lock_catalogue_size(); i++) {
		const struct lock_algo *a = lock_catalogue_get(i);

		printf("%-20s %-9s %s\n", a->name, lock_kind_name(a->kind), a->desc);
	}
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	static struct cli_opts o; /* large: keep it off the stack */
	char err[512];

	if (cli_parse_cmd(&run_cmd, argc, argv, &o, err, sizeof(err)))
		die_bad_input("run", err);
	if (backend_check(&o.cfg, err, sizeof(err)))
		die_bad_input("run", err);
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

/* ------------------------------------------------------------ dispatch */

static const struct ll_opt no_opts[] = { LL_OPTS_END };

static int cmd_version(int argc, char **argv);
static int cmd_help(int argc, char **argv);

static const struct ll_command list_cmd = {
	.name = "list", .main = cmd_list, .usage = list_usage, .opts = no_opts,
};
static const struct ll_command run_cmd = {
	.name = "run", .main = cmd_run, .usage = run_usage, .opts = cli_run_opts, .open = true,
};
static const struct ll_opt merge_opts[] = { LL_VALUE("--out"), LL_OPTS_END };
static const struct ll_command merge_cmd = {
	.name = "merge", .main = merge_main, .usage = merge_usage, .opts = merge_opts,
};
static const struct ll_command version_cmd = {
	.name = "version", .main = cmd_version, .usage = version_usage, .opts = no_opts,
};
static const struct ll_command help_cmd = {
	.name = "help", .main = cmd_help, .usage = help_usage, .opts = no_opts,
};

/* Every sub-command of this binary, in the order the usage lists them. */
static const struct ll_command *command_at(size_t i)
{
	static const struct ll_command *const core_commands[] = { &list_cmd, &run_cmd, &merge_cmd };
	size_t ncore = sizeof(core_commands) / sizeof(core_commands[0]), nb = 0;

	if (i < ncore)
		return core_commands[i];
	while (backend_commands[nb])
		nb++;
	if (i < ncore + nb)
		return backend_commands[i - ncore];
	if (i == ncore + nb)
		return &version_cmd;
	return i == ncore + nb + 1 ? &help_cmd : NULL;
}

static const struct ll_command *find_command(const char *name)
{
	const struct ll_command *c;

	for (size_t i = 0; (c = command_at(i)); i++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static void full_usage(FILE *f)
{
	const struct ll_command *c;

	for (size_t i = 0; (c = command_at(i)); i++)
		c->usage(f);
}

static int cmd_version(int argc, char **argv)
{
	no_options(&version_cmd, argc, argv);
	printf("locklab-%s %s\n", backend_name, LOCKLAB_VERSION);
	return 0;
}

static int unknown_command(const char *name)
{
	const struct ll_command *c;
	const char *other = ll_other_binary_command(name);

	if (other)
		fprintf(stderr, "locklab-%s: %s: a command of %s (%s); this binary's commands:",
			backend_name, name, other,
			strcmp(other, "locklab-sim") ? "the real machine's" : "the simulator");
	else {
		char shown[64];

		snprintf(shown, sizeof(shown), "%.60s", name);
		fprintf(stderr, "locklab-%s: unknown command '", backend_name);
		ll_put_escaped(stderr, shown);
		fputs("' (commands:", stderr);
	}
	for (size_t i = 0; (c = command_at(i)); i++)
		fprintf(stderr, "%s %s", i ? "," : "", c->name);
	fprintf(stderr, "%s\n", other ? "" : ")");
	return 2;
}

static int cmd_help(int argc, char **argv)
{
	const struct ll_command *c;

	if (argc > 1)
		die_bad_input("help", "give at most one command");
	if (argc == 1 && !(c = find_command(argv[0])))
		return unknown_command(argv[0]);
	if (argc == 1)
		c->usage(stdout);
	else
		full_usage(stdout);
	return 0;
}

static int dispatch(int argc, char **argv)
{
	const struct ll_command *c;

	if (argc < 2) {
		fprintf(stderr, "locklab-%s: no command given (locklab-%s --help lists them)\n",
			backend_name, backend_name);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(argc - 2, argv + 2); /* --help CMD: as help CMD */
	if (!strcmp(argv[1], "--version"))
		return cmd_version(argc - 2, argv + 2);
	c = find_command(argv[1]);
	if (!c)
		return unknown_command(argv[1]);
	if (ll_args_want_help(c, argc - 2, argv + 2)) {
		c->usage(stdout);
		return 0;
	}
	return c->main(argc - 2, argv + 2);
}

int main(int argc, char **argv)
{
	int rc;

	/* A file over the size limit (ulimit -f) fails its write with EFBIG,
	 * which the writers report in one line and keep whole rows of, where
	 * SIGXFSZ would end the process mid-row without a word. */
	signal(SIGXFSZ, SIG_IGN);
	if (backend_init(&argc, argv))
		return 2;
	rc = dispatch(argc, argv);
	if (!rc && backend_files_failed())
		rc = 1;
	backend_fini();
	return close_stdout(rc);
}
