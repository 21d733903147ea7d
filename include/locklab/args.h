/*
 * locklab/args.h - the one option parser of both binaries' sub-commands.
 *
 * A sub-command is a table entry: its name, its entry point, its usage and
 * its options.  Every option takes `--opt VALUE` or `--opt=VALUE` unless the
 * table marks it a flag; `--help` and `-h` anywhere among the options ask
 * for the sub-command's usage.  Every problem is one line on stderr,
 * `locklab-BACKEND: CMD: --opt: what is wrong`, and exit status 2.
 */
#ifndef LOCKLAB_ARGS_H
#define LOCKLAB_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ll_opt {
	const char *name; /* "--threads" */
	bool flag;        /* takes no value */
};

#define LL_VALUE(n) { .name = (n), .flag = false }
#define LL_FLAG(n) { .name = (n), .flag = true }
#define LL_OPTS_END { .name = NULL }

struct ll_command {
	const char *name;
	int (*main)(int argc, char **argv); /* the options after the name */
	void (*usage)(FILE *f);
	const struct ll_opt *opts; /* ends with { NULL } */
	bool open; /* options not in opts take a value (the backend's run options) */
};

enum { LL_ARG_BAD = -1, LL_ARG_END = 0, LL_ARG_OPT = 1, LL_ARG_HELP = 2 };

#define LL_ARGS_SEEN 64

struct ll_args {
	const struct ll_command *cmd;
	int argc, i;
	char **argv;
	const char *name; /* the option just read */
	const char *val;  /* its value; NULL for a flag */
	char namebuf[64];
	char seen[LL_ARGS_SEEN][64]; /* the options read so far: none may come twice */
	unsigned nseen;
};

void ll_args_init(struct ll_args *a, const struct ll_command *cmd, int argc, char **argv);

/* The next option: LL_ARG_OPT (a->name, a->val), LL_ARG_END, LL_ARG_HELP,
 * or LL_ARG_BAD with one line in err (among them an option given twice: the
 * second would silently win). */
int ll_args_next(struct ll_args *a, char *err, size_t errlen);

/* The option just read is not the sub-command's: say so in err. */
void ll_args_unknown(const struct ll_args *a, char *err, size_t errlen);

/* Whether `--help` or `-h` stands among the options. */
bool ll_args_want_help(const struct ll_command *cmd, int argc, char **argv);

/* s on f with its control characters escaped (\n, \t, \xNN), so that a
 * value the user gave cannot break a line or reach the terminal raw. */
void ll_put_escaped(FILE *f, const char *s);

/* One line on stderr, `locklab-BACKEND: CMD: message`, its control
 * characters escaped; ll_bad returns 2, ll_vsay is its va_list form. */
__attribute__((format(printf, 2, 3)))
int ll_bad(const char *cmd, const char *fmt, ...);
__attribute__((format(printf, 2, 3)))
void ll_say(const char *cmd, const char *fmt, ...);
void ll_vsay(const char *cmd, const char *fmt, va_list ap);

/* A whole number from 1 to max in val, option opt of command cmd: 0, or
 * ll_bad's one line naming the range and 2. */
int ll_parse_count(const char *cmd, const char *opt, const char *val, uint64_t max, uint64_t *out);

/* The options of `run` and `filelock` that only one binary has, each list
 * NULL-terminated: an option of the other binary is refused by naming it
 * so (tests/unit_cli.c checks the lists against both binaries' --help). */
extern const char *const ll_sim_only_run[], *const ll_sim_only_filelock[];
extern const char *const ll_native_only_filelock[];
/* The same for commands: the other binary's name when `name` is a command
 * of it alone, else NULL. */
extern const char *const ll_sim_only_commands[], *const ll_native_only_commands[];
const char *ll_other_binary_command(const char *name);

/* The backend's own sub-commands, NULL-terminated. */
extern const struct ll_command *const backend_commands[];

/* core/cli.c: the options of `run` (and `explain`) core knows. */
extern const struct ll_opt cli_run_opts[];

#endif
