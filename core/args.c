/*
 * core/args.c - the one option parser of every sub-command
 * (include/locklab/args.h): split `--opt VALUE` and `--opt=VALUE`, know
 * flags, spot `--help`/`-h`, and phrase what is wrong.
 */
#include <stdarg.h>
#include <string.h>

#include <locklab/args.h>
#include <locklab/backend.h>

void ll_args_init(struct ll_args *a, const struct ll_command *cmd, int argc, char **argv)
{
	memset(a, 0, sizeof(*a));
	a->cmd = cmd;
	a->argc = argc;
	a->argv = argv;
}

/* Options whose value is a comma-separated list (the hint of "given twice"). */
static bool takes_list(const struct ll_args *a)
{
	static const char *const lists[] = { "--threads", "--lock", "--overcommit", "--test" };

	if (!strcmp(a->cmd->name, "check") || !strcmp(a->cmd->name, "explain"))
		return false; /* one lock, one thread count */
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		if (!strcmp(a->name, lists[i]))
			return true;
	return false;
}

/* Was a->name read before?  Recorded otherwise, while there is room. */
static bool seen_before(struct ll_args *a)
{
	for (unsigned k = 0; k < a->nseen; k++)
		if (!strcmp(a->seen[k], a->name))
			return true;
	if (a->nseen < LL_ARGS_SEEN)
		snprintf(a->seen[a->nseen++], sizeof(a->seen[0]), "%s", a->name);
	return false;
}

static const struct ll_opt *find_opt(const struct ll_command *cmd, const char *name)
{
	for (const struct ll_opt *o = cmd->opts; o && o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

static int bad(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int bad(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return LL_ARG_BAD;
}

/* Is name one of the backend's own options (an open command's)?  Asked
 * only on the way out with an error: the probe may set it. */
static bool backend_knows(const char *name)
{
	char err[256];

	return backend_parse_option(name, "", err, sizeof(err)) != 0;
}

/* Is arg an option of a's command (so not the value of the one before)? */
static bool is_option(const struct ll_args *a, const char *arg)
{
	char name[sizeof(a->namebuf)];
	size_t n = strcspn(arg, "=");

	if (!strcmp(arg, "--help") || !strcmp(arg, "-h"))
		return true;
	if (strncmp(arg, "--", 2) || n < 3 || n >= sizeof(name))
		return false;
	memcpy(name, arg, n);
	name[n] = 0;
	return find_opt(a->cmd, name) || (a->cmd->open && backend_knows(name));
}

const char *const ll_sim_only_run[] = {
	"--arbitration", "--co-guests", "--graphs", "--halt-ns", "--home-agents", "--idle-states",
	"--irq-rate-hz", "--irq-us", "--kick-ns", "--lat-spread", "--lockstep-probe", "--memory-model",
	"--migrate-us",
	"--noise-from", "--pcpus", "--ple-exit-ns", "--ple-grow", "--ple-window-ns", "--ple-yield",
	"--probes", "--sim-quantum", "--simgrid-cfg", "--slice-spread-pct", "--slice-us", "--smt",
	"--snoop-travel", "--switch-ns", "--topo", "--wake-ns", NULL,
};
const char *const ll_sim_only_filelock[] = {
	"--global", "--idle-states", "--irq-rate-hz", "--irq-us", "--lat-spread", "--migrate-us",
	"--noise-from", "--seed", "--snoop-travel", "--topo", NULL,
};
const char *const ll_native_only_filelock[] = { "--dir", "--timeout", NULL };
const char *const ll_sim_only_commands[] = { "explain", "ccbench", "check", "scoreboard", NULL };
const char *const ll_native_only_commands[] = { "calibrate", "validate-report", "noise", NULL };

static bool listed(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

const char *ll_other_binary_command(const char *name)
{
	bool sim = !strcmp(backend_name, "sim");

	if (listed(sim ? ll_native_only_commands : ll_sim_only_commands, name))
		return sim ? "locklab-native" : "locklab-sim";
	return NULL;
}

/* The other binary's name when name is one of its options (of run or
 * filelock) that this binary lacks, else NULL. */
static const char *other_binary(const char *cmd, const char *name)
{
	bool sim = !strcmp(backend_name, "sim");

	if (!strcmp(cmd, "run") && !sim && listed(ll_sim_only_run, name))
		return "locklab-sim";
	if (!strcmp(cmd, "filelock") && !sim && listed(ll_sim_only_filelock, name))
		return "locklab-sim";
	if (!strcmp(cmd, "filelock") && sim && listed(ll_native_only_filelock, name))
		return "locklab-native";
	return NULL;
}

static int unknown(const struct ll_args *a, const char *name, char *err, size_t len)
{
	const char *other = other_binary(a->cmd->name, name);

	if (other)
		return bad(err, len, "%.60s: an option of %s %s (%s); locklab-%s %s --help lists "
			   "this binary's options", name, other, a->cmd->name,
			   strcmp(other, "locklab-sim") ? "the real kernel's" : "the simulator",
			   backend_name, a->cmd->name);
	return bad(err, len, "%.60s: unknown option (locklab-%s %s --help lists them)", name,
		   backend_name, a->cmd->name);
}

int ll_args_next(struct ll_args *a, char *err, size_t len)
{
	const struct ll_opt *o;
	const char *arg, *eq;
	size_t n;

	if (a->i >= a->argc)
		return LL_ARG_END;
	arg = a->argv[a->i++];
	if (!strcmp(arg, "--help") || !strcmp(arg, "-h"))
		return LL_ARG_HELP;
	if (strncmp(arg, "--", 2) || !arg[2])
		return bad(err, len, "'%.60s': unexpected argument (options start with --)", arg);
	eq = strchr(arg, '=');
	n = eq ? (size_t)(eq - arg) : strlen(arg);
	if (n >= sizeof(a->namebuf))
		return unknown(a, arg, err, len);
	memcpy(a->namebuf, arg, n);
	a->namebuf[n] = 0;
	a->name = a->namebuf;
	a->val = NULL;
	o = find_opt(a->cmd, a->name);
	if (!o && !a->cmd->open)
		return unknown(a, a->name, err, len);
	if (seen_before(a))
		return bad(err, len, "%s: given twice (give it once%s%s%s)", a->name,
			   takes_list(a) ? "; a list is one value: " : "",
			   takes_list(a) ? a->name : "", takes_list(a) ? " a,b" : "");
	if (o && o->flag) {
		if (eq)
			return bad(err, len, "%s: takes no value", a->name);
		return LL_ARG_OPT;
	}
	if (eq)
		a->val = eq + 1;
	else if (a->i < a->argc && is_option(a, a->argv[a->i]))
		return !o && !backend_knows(a->name) ? unknown(a, a->name, err, len) :
		       bad(err, len, "%s: needs a value (the next argument, %.60s, is an option)",
			   a->name, a->argv[a->i]);
	else if (a->i < a->argc)
		a->val = a->argv[a->i++];
	else if (!o && !backend_knows(a->name))
		return unknown(a, a->name, err, len);
	else
		return bad(err, len, "%s: needs a value", a->name);
	return LL_ARG_OPT;
}

void ll_args_unknown(const struct ll_args *a, char *err, size_t len)
{
	unknown(a, a->name, err, len);
}

bool ll_args_want_help(const struct ll_command *cmd, int argc, char **argv)
{
	struct ll_args a;
	char err[8];
	int rc;

	ll_args_init(&a, cmd, argc, argv);
	while ((rc = ll_args_next(&a, err, sizeof(err))) != LL_ARG_END)
		if (rc == LL_ARG_HELP)
			return true;
	return false;
}

void ll_put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

void ll_vsay(const char *cmd, const char *fmt, va_list ap)
{
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "locklab-%s: ", backend_name);
	ll_put_escaped(stderr, cmd);
	fputs(": ", stderr);
	ll_put_escaped(stderr, msg); /* a value the user gave stays on the one line */
	fputc('\n', stderr);
}

void ll_say(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ll_vsay(cmd, fmt, ap);
	va_end(ap);
}

int ll_bad(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ll_vsay(cmd, fmt, ap);
	va_end(ap);
	return 2;
}

int ll_parse_count(const char *cmd, const char *opt, const char *val, uint64_t max, uint64_t *out)
{
	if (cli_parse_u64(val, out) || *out < 1 || *out > max)
		return ll_bad(cmd, "%s: '%s' is not a whole number from 1 to %llu", opt, val,
			      (unsigned long long)max);
	return 0;
}
