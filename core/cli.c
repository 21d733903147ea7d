/*
 * core/cli.c - parsing the options of `run` (their checks against each
 * other: core/cli_check.c).
 *
 * The one parser (core/args.c) splits the line; anything wrong gets one
 * line naming the option and the problem, and the caller exits 2.  Options
 * core does not know go to the backend (--topo, --watchdog ...).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/args.h>
#include <locklab/backend.h>
#include <locklab/lock.h>

#include "cli.h"

#define MAX_CS_LINES 4096u
#define MAX_LOCKS 65536u
#define MAX_NS (3600ull * 1000000000ull) /* an hour of delay is surely a typo */

int cli_fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return 2;
}

int cli_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* What the number of a time option counts, for its refusals ("" for a
 * count). */
static const char *unit_of(const char *opt)
{
	static const char *const units[][2] = {
		{ "--duration", "milliseconds" }, { "--cs", "nanoseconds" }, { "--ncs", "nanoseconds" },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(opt, units[i][0]))
			return units[i][1];
	return "";
}

static int parse_num(const char *opt, const char *val, uint64_t lo, uint64_t hi, uint64_t *out,
		     char *err, size_t len)
{
	const char *unit = unit_of(opt);

	bool negative = val[0] == '-' && val[1] && strspn(val + 1, "0123456789") == strlen(val + 1);

	if (!negative && cli_parse_u64(val, out) &&
	    (!*val || strspn(val, "0123456789") != strlen(val)))
		return cli_fail(err, len, "%s: '%s' is not a whole number%s%s", opt, val,
				*unit ? " of " : "", unit);
	if (negative || cli_parse_u64(val, out) || *out < lo || *out > hi)
		return cli_fail(err, len, "%s: %s is out of range (%llu..%llu%s%s)", opt, val,
			    (unsigned long long)lo, (unsigned long long)hi, *unit ? " " : "", unit);
	return 0;
}

bool cli_empty_item(const char *val)
{
	return !*val || val[strlen(val) - 1] == ',' || val[0] == ',' || strstr(val, ",,");
}

/* A comma-separated list of numbers in [lo, hi], each once if distinct. */
static int parse_num_list(const char *opt, const char *val, uint64_t lo, uint64_t hi, bool distinct,
			  unsigned *out, unsigned max, unsigned *n, char *err, size_t len)
{
	char *buf = strdup(val), *save = NULL;
	int rc = 0;

	if (!buf)
		return cli_fail(err, len, "%s: out of memory", opt);
	*n = 0;
	for (char *tok = strtok_r(buf, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		rc = parse_num(opt, tok, lo, hi, &v, err, len);
		if (!rc && *n == max)
			rc = cli_fail(err, len, "%s: more than %u entries", opt, max);
		for (unsigned k = 0; distinct && !rc && k < *n; k++)
			if (out[k] == v)
				rc = cli_fail(err, len, "%s: %s is listed twice", opt, tok);
		if (!rc)
			out[(*n)++] = (unsigned)v;
	}
	free(buf);
	if (rc)
		return rc;
	if (*n == 0 || cli_empty_item(val))
		return cli_fail(err, len, "%s: '%s' is not a list of numbers", opt, val);
	return 0;
}

/* --overcommit: a comma-separated list of ratios such as 0.5,1,1.5,2 (plain
 * decimals: digits and at most one point). */
#define MIN_OVERCOMMIT 0.1
#define MAX_OVERCOMMIT 64.0

static int parse_ratio(const char *opt, const char *tok, double *out, char *err, size_t len)
{
	const char *dot = strchr(tok, '.');
	char *end;

	if (!*tok || strspn(tok, "0123456789.") != strlen(tok) || (dot && strchr(dot + 1, '.')) ||
	    !strcmp(tok, "."))
		return cli_fail(err, len, "%s: '%s' is not a decimal number", opt, tok);
	errno = 0;
	*out = strtod(tok, &end);
	if (errno || *end || *out < MIN_OVERCOMMIT || *out > MAX_OVERCOMMIT)
		return cli_fail(err, len, "%s: %s is out of range (%g..%g)", opt, tok, MIN_OVERCOMMIT,
			    MAX_OVERCOMMIT);
	return 0;
}

static int parse_overcommit(const char *val, struct wl_config *c, char *err, size_t len)
{
	char buf[1024], *save = NULL;

	if (strlen(val) >= sizeof(buf))
		return cli_fail(err, len, "--overcommit: list too long");
	if (cli_empty_item(val))
		return cli_fail(err, len, "--overcommit: '%s' is not a list of ratios", val);
	strcpy(buf, val);
	c->novercommit = 0;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (c->novercommit == WL_MAX_LIST)
			return cli_fail(err, len, "--overcommit: more than %d entries", WL_MAX_LIST);
		if (parse_ratio("--overcommit", tok, &c->overcommit[c->novercommit], err, len))
			return 2;
		for (unsigned k = 0; k < c->novercommit; k++)
			if (c->overcommit[k] == c->overcommit[c->novercommit])
				return cli_fail(err, len, "--overcommit: %s is listed twice", tok);
		c->novercommit++;
	}
	return 0;
}

static int parse_locks(const char *val, struct wl_config *c, char *err, size_t len)
{
	char buf[1024], *save = NULL;

	if (strlen(val) >= sizeof(buf))
		return cli_fail(err, len, "--lock: list too long");
	if (cli_empty_item(val))
		return cli_fail(err, len, "--lock: '%s' is not a list of lock names", val);
	strcpy(buf, val);
	c->nalgos = 0;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct lock_algo *a = lock_find(tok);

		if (!a && !strncmp(tok, "pthread-", 8) && !strcmp(backend_name, "sim"))
			return cli_fail(err, len, "--lock: '%s' is the C library's, native only "
					      "(`locklab-sim list` shows the simulator's)", tok);
		if (!a) {
			const struct lock_algo *near = lock_nearest(tok);

			return cli_fail(err, len, "--lock: unknown lock '%s'%s%s%s (`locklab-%s list` "
					      "shows them)", tok, near ? "; did you mean " : "",
				    near ? near->name : "", near ? "?" : "", backend_name);
		}
		if (c->nalgos == WL_MAX_LIST)
			return cli_fail(err, len, "--lock: more than %d locks", WL_MAX_LIST);
		for (unsigned k = 0; k < c->nalgos; k++)
			if (c->algos[k] == a)
				return cli_fail(err, len, "--lock: %s is listed twice", tok);
		c->algos[c->nalgos++] = a;
	}
	if (c->nalgos == 0)
		return cli_fail(err, len, "--lock: no lock named");
	return 0;
}

static int parse_ncs(const char *val, struct wl_config *c, char *err, size_t len)
{
	const char *num = val;
	int rc;

	c->ncs_exp = false;
	if (!strncmp(val, "exp:", 4)) {
		c->ncs_exp = true;
		num = val + 4;
	}
	rc = parse_num("--ncs", num, 0, MAX_NS, &c->ncs_ns, err, len);
	if (rc)
		return rc;
	if (c->ncs_exp && !c->ncs_ns) /* a mean of 0 draws nothing: it would read as jitter */
		return cli_fail(err, len, "--ncs: exp:0 has no mean to draw from (a fixed 0 is --ncs 0)");
	return 0;
}

int cli_parse_pin(const char *val, struct wl_config *c, char *err, size_t len)
{
	uint64_t v;

	c->pin_text = val;
	if (!strcmp(val, "compact"))
		c->pin = PIN_COMPACT;
	else if (!strcmp(val, "scatter"))
		c->pin = PIN_SCATTER;
	else if (!strcmp(val, "none"))
		c->pin = PIN_NONE;
	else if (!strncmp(val, "socket:", 7)) {
		c->pin = PIN_SOCKET;
		if (parse_num("--pin socket:N", val + 7, 0, 1u << 20, &v, err, len))
			return 2;
		c->pin_socket = (unsigned)v;
	} else if (!strncmp(val, "node:", 5)) {
		c->pin = PIN_NODE;
		if (parse_num("--pin node:N", val + 5, 0, 1u << 20, &v, err, len))
			return 2;
		c->pin_socket = (unsigned)v;
	} else if (!strncmp(val, "list:", 5)) {
		c->pin = PIN_LIST;
		return parse_num_list("--pin list:", val + 5, 0, 1u << 20, false, c->pin_list,
				      WL_MAX_THREADS, &c->pin_list_len, err, len);
	} else {
		return cli_fail(err, len, "--pin: '%s' is not compact, scatter, socket:N, node:N, list:a,b,c "
			    "or none",
			    val);
	}
	return 0;
}

static int parse_format(const char *val, struct cli_opts *o, char *err, size_t len)
{
	if (!strcmp(val, "table"))
		o->format = FMT_TABLE;
	else if (!strcmp(val, "csv"))
		o->format = FMT_CSV;
	else if (!strcmp(val, "json"))
		o->format = FMT_JSON;
	else
		return cli_fail(err, len, "--format: '%s' is not table, csv or json", val);
	return 0;
}

/*
 * --preset NAME: workloads that approximate the seed threads' benchmarks
 * (docs/rwlocks.md gives the sources and what was chosen).  A preset sets
 * the locks and the workload; any option given as well overrides it,
 * wherever it stands on the line.
 */
struct preset {
	const char *name;
	const char *locks;
	unsigned read_pct;
	uint64_t cs_ns, ncs_ns;
	bool ncs_exp;
};

/* Every length below is *assumed*, read from the benchmark's structure and
 * not measured (docs/rwlocks.md, docs/vm.md "Presets"). */
static const struct preset presets[] = {
	/* AIM7 fserver on the 8-socket DL980: read-mostly rwlock traffic */
	{ "fserver", "rwlock,qrwlock,qrwlock-steal,percpu-rwsem,brlock", 90, 200, 2000, true },
	/* the lockref stat() loop: a get/put pair on one dentry per call */
	{ "stat", "spinlock-ref,lockref", 0, 150, 300, false },
	/* ebizzy in a KVM guest: each thread faults in, searches and frees
	 * chunks; a page fault holds mm's page-table lock (pte install, the
	 * page from the zone's free list) for a short part of the fault
	 * (docs/vm.md, "Presets") */
	{ "ebizzy", "ticket,pv-ticket", 0, 400, 2000, true },
	/* dbench in a KVM guest: each file operation takes dcache and inode
	 * spinlocks briefly on a path of several microseconds (docs/vm.md) */
	{ "dbench", "ticket,pv-ticket", 0, 200, 3000, true },
};

#define NR_PRESETS (sizeof(presets) / sizeof(presets[0]))

void cli_warn(const struct cli_opts *o)
{
	bool ticket = false;

	for (unsigned i = 0; i < o->cfg.nalgos; i++)
		ticket |= !strcmp(o->cfg.algos[i]->name, "ticket") ||
			  !strcmp(o->cfg.algos[i]->name, "pv-ticket");
	if (o->preset && ticket && !o->cfg.vm_vcpus &&
	    (!strcmp(o->preset, "ebizzy") || !strcmp(o->preset, "dbench")))
		fprintf(stderr, "locklab-%s: warning: --preset %s is a KVM guest's workload; without "
			"--vm nothing preempts a lock's holder or waiter, which is what pv-ticket is for: "
			"the two differ only by pv-ticket's halts after its spin and its unlock's "
			"kick and slot read (docs/vm.md)\n", backend_name, o->preset);
}

static int apply_preset(const char *val, struct wl_config *c, char *err, size_t len)
{
	for (size_t i = 0; i < NR_PRESETS; i++) {
		const struct preset *p = &presets[i];

		if (strcmp(val, p->name))
			continue;
		if (p->read_pct) /* a preset without a read mix leaves an added rwlock's default */
			c->read_pct = p->read_pct;
		c->cs_ns = p->cs_ns;
		c->ncs_ns = p->ncs_ns;
		c->ncs_exp = p->ncs_exp;
		c->preset = p->name;
		return parse_locks(p->locks, c, err, len);
	}
	return cli_fail(err, len, "--preset: unknown preset '%s' (fserver, stat, ebizzy, dbench)", val);
}

/* The value of --preset on the line, or NULL; 2 when the line does not
 * parse (an option given twice among the reasons; the one line says why). */
static int find_preset(const struct ll_command *cmd, int argc, char **argv, const char **val,
		       char *err, size_t len)
{
	struct ll_args a;
	int rc;

	*val = NULL;
	ll_args_init(&a, cmd, argc, argv);
	while ((rc = ll_args_next(&a, err, len)) == LL_ARG_OPT) {
		if (!strcmp(a.name, "--preset"))
			*val = a.val; /* once: ll_args_next refuses a second */
	}
	return rc == LL_ARG_BAD ? 2 : 0;
}

static void set_defaults(struct cli_opts *o)
{
	struct wl_config *c = &o->cfg;

	memset(o, 0, sizeof(*o));
	wl_config_defaults(c);
	c->threads[0] = 1;
	c->threads[1] = 2;
	c->threads[2] = 4;
	c->nthreads = 3;
	c->read_pct = 90;
	c->runs = 3;
	o->format = FMT_TABLE;
}

/* --shard I/N: 0 <= I < N. */
static int parse_shard(const char *val, struct cli_opts *o, char *err, size_t len)
{
	const char *slash = strchr(val, '/');
	uint64_t i, n;
	char num[32];

	if (!slash || (size_t)(slash - val) >= sizeof(num))
		return cli_fail(err, len, "--shard: '%.60s' is not I/N", val);
	memcpy(num, val, (size_t)(slash - val));
	num[slash - val] = 0;
	if (cli_parse_u64(num, &i) || cli_parse_u64(slash + 1, &n))
		return cli_fail(err, len, "--shard: '%.60s' is not I/N (two non-negative integers)", val);
	if (n < 1 || n > 1000000 || i >= n)
		return cli_fail(err, len, "--shard: '%.60s': needs 0 <= I < N <= 1000000", val);
	o->shard = (unsigned)i;
	o->nshards = (unsigned)n;
	return 0;
}

/* One option with its value; returns 0, 2 on a bad value, -1 if unknown. */
static int parse_one(const char *opt, const char *val, struct cli_opts *o, char *err, size_t len)
{
	struct wl_config *c = &o->cfg;
	uint64_t v;
	int rc;

	if (!strcmp(opt, "--lock"))
		return parse_locks(val, c, err, len);
	if (!strcmp(opt, "--preset"))
		return 0; /* applied before the other options */
	if (!strcmp(opt, "--threads"))
		return parse_num_list(opt, val, 1, WL_MAX_THREADS, true, c->threads, WL_MAX_LIST,
				      &c->nthreads, err, len);
	if (!strcmp(opt, "--vm")) {
		rc = parse_num(opt, val, 1, WL_MAX_THREADS, &v, err, len);
		c->vm_vcpus = (unsigned)v;
		return rc;
	}
	if (!strcmp(opt, "--overcommit"))
		return parse_overcommit(val, c, err, len);
	if (!strcmp(opt, "--cs"))
		return parse_num(opt, val, 0, MAX_NS, &c->cs_ns, err, len);
	if (!strcmp(opt, "--ncs"))
		return parse_ncs(val, c, err, len);
	if (!strcmp(opt, "--cs-lines")) {
		rc = parse_num(opt, val, 0, MAX_CS_LINES, &v, err, len);
		c->cs_lines = (unsigned)v;
		return rc;
	}
	if (!strcmp(opt, "--lock-home")) {
		for (enum wl_lock_home h = WL_HOME_SAME; h <= WL_HOME_RANDOM; h++)
			if (!strcmp(val, wl_lock_home_name(h))) {
				c->lock_home = h;
				c->lock_home_given = true;
				return 0;
			}
		return cli_fail(err, len, "--lock-home: '%s' is not same, spread or random", val);
	}
	if (!strcmp(opt, "--locks")) {
		rc = parse_num(opt, val, 1, MAX_LOCKS, &v, err, len);
		c->locks = (unsigned)v;
		return rc;
	}
	if (!strcmp(opt, "--read-pct")) {
		rc = parse_num(opt, val, 0, 100, &v, err, len);
		c->read_pct = (unsigned)v;
		return rc;
	}
	if (!strcmp(opt, "--duration"))
		return parse_num(opt, val, 1, 24ull * 3600 * 1000, &c->duration_ms, err, len);
	if (!strcmp(opt, "--ops"))
		return parse_num(opt, val, 1, 1ull << 40, &c->ops, err, len);
	if (!strcmp(opt, "--runs")) {
		rc = parse_num(opt, val, 1, 4096, &v, err, len);
		c->runs = (unsigned)v;
		return rc;
	}
	if (!strcmp(opt, "--time-every")) {
		rc = parse_num(opt, val, 1, 1u << 20, &v, err, len);
		c->time_every = (unsigned)v;
		return rc;
	}
	if (!strcmp(opt, "--pin"))
		return cli_parse_pin(val, c, err, len);
	if (!strcmp(opt, "--seed"))
		return parse_num(opt, val, 0, UINT64_MAX, &c->seed, err, len);
	if (!strcmp(opt, "--format"))
		return parse_format(val, o, err, len);
	if (!strcmp(opt, "--out")) {
		o->out = val;
		return 0;
	}
	if (!strcmp(opt, "--csv")) {
		o->csv = val;
		return 0;
	}
	if (!strcmp(opt, "--json")) {
		o->json = val;
		return 0;
	}
	if (!strcmp(opt, "--threads-csv")) {
		o->threads_csv = val;
		return 0;
	}
	if (!strcmp(opt, "--jobs")) {
		rc = parse_num(opt, val, 1, 4096, &v, err, len);
		o->jobs = (unsigned)v;
		return rc;
	}
	if (!strcmp(opt, "--shard"))
		return parse_shard(val, o, err, len);
	if (!strcmp(opt, "--topo"))
		c->topo = val; /* the backend decides whether it applies */
	rc = backend_parse_option(opt, val, err, len);
	if (rc == 1)
		return 0;
	if (rc < 0)
		return 2;
	return -1;
}

const struct ll_opt cli_run_opts[] = {
	LL_VALUE("--lock"), LL_VALUE("--preset"), LL_VALUE("--threads"), LL_VALUE("--vm"), LL_VALUE("--overcommit"),
	LL_VALUE("--cs"), LL_VALUE("--ncs"), LL_VALUE("--cs-lines"), LL_VALUE("--locks"), LL_VALUE("--read-pct"),
	LL_VALUE("--lock-home"),
	LL_VALUE("--duration"), LL_VALUE("--ops"), LL_VALUE("--runs"), LL_VALUE("--pin"), LL_VALUE("--seed"),
	LL_VALUE("--format"), LL_VALUE("--out"), LL_VALUE("--csv"), LL_VALUE("--json"), LL_VALUE("--threads-csv"),
	LL_VALUE("--jobs"), LL_VALUE("--shard"), LL_VALUE("--time-every"),
	LL_FLAG("--progress"), LL_FLAG("--fail-fast"), LL_OPTS_END,
};

/* Options that change where results go or how the sweep is run, not what
 * it measures: left out of the sweep's identity (a shard rerun with a
 * longer --watchdog after a timeout is still a shard of its sweep).  The
 * runner's own (how the runs are spread over processes and stopped) are
 * marked: explain, which runs its runs itself, refuses them. */
static const struct {
	const char *name;
	bool runner;
} outside_sweep[] = {
	{ "--format", false }, { "--out", false },  { "--csv", false },	 { "--json", false },
	{ "--threads-csv", false }, { "--graphs", false }, { "--watchdog", false },
	{ "--lockstep-probe", false },
	{ "--jobs", true },	    { "--shard", true },   { "--progress", true },
	{ "--fail-fast", true },
};

/* name's entry in outside_sweep, or -1. */
static int outside_sweep_of(const char *name)
{
	for (size_t i = 0; i < sizeof(outside_sweep) / sizeof(outside_sweep[0]); i++)
		if (!strcmp(name, outside_sweep[i].name))
			return (int)i;
	return -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* o->sweep_text and o->sweep_key from the options given (each at most once),
 * sorted, so that their order on the command line does not matter. */
static void name_sweep(struct cli_opts *o, const char *cmd, char **sorted, unsigned n)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
	size_t used;

	qsort(sorted, n, sizeof(sorted[0]), cmp_str);
	used = (size_t)snprintf(o->sweep_text, sizeof(o->sweep_text), "%s", cmd);
	for (unsigned i = 0; i < n; i++) {
		for (const char *p = sorted[i]; *p; p++)
			h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
		h = (h ^ '\n') * 0x100000001b3ull;
		if (used < sizeof(o->sweep_text))
			used += (size_t)snprintf(o->sweep_text + used, sizeof(o->sweep_text) - used,
						 " %s", sorted[i]);
	}
	if (used >= sizeof(o->sweep_text))
		memcpy(o->sweep_text + sizeof(o->sweep_text) - 4, "...", 4);
	for (char *p = o->sweep_text; *p; p++) /* one line of the .order file (the key has */
		if ((unsigned char)*p < 0x20)    /* the bytes as given) */
			*p = '?';
	o->sweep_key = h;
}

/* Whether an option of the workload gives what the defaults (after the
 * preset) already hold: `--runs 3` is no other sweep than no --runs, for
 * merge as for the rows.  Only options that set plain numbers of the
 * configuration are judged so; any other counts as given. */
static bool default_valued(const char *name, const char *val, const char *preset)
{
	static const char *const plain[] = { "--runs", "--duration", "--seed", "--cs", "--ncs",
					     "--cs-lines", "--locks", "--read-pct", NULL };
	static struct cli_opts def, one; /* large: off the stack */
	char err[256];
	size_t i;

	for (i = 0; plain[i] && strcmp(plain[i], name); i++)
		;
	if (!plain[i] || !val)
		return false;
	set_defaults(&def);
	if (preset && apply_preset(preset, &def.cfg, err, sizeof(err)))
		return false;
	if (!def.cfg.ops) /* as cli_check_config fills it in when not given */
		def.cfg.duration_ms = backend_default_duration_ms;
	one = def;
	return !parse_one(name, val, &one, err, sizeof(err)) &&
	       !memcmp(&one.cfg, &def.cfg, sizeof(def.cfg));
}

int cli_parse_cmd(const struct ll_command *cmd, int argc, char **argv, struct cli_opts *o,
		  char *err, size_t len)
{
	char *sweep_opts[LL_ARGS_SEEN];
	unsigned nsweep = 0;
	bool duration_given = false, threads_given = false, read_pct_given = false;
	bool cs_lines_given = false;
	struct ll_args a;
	const char *preset;
	int rc;

	set_defaults(o);
	rc = find_preset(cmd, argc, argv, &preset, err, len);
	if (!rc && preset)
		rc = apply_preset(preset, &o->cfg, err, len);
	if (rc)
		return rc;
	o->preset = preset;
	ll_args_init(&a, cmd, argc, argv);
	while ((rc = ll_args_next(&a, err, len)) == LL_ARG_OPT) {
		int outside = outside_sweep_of(a.name);

		if (!o->runner_opt && outside >= 0 && outside_sweep[outside].runner)
			o->runner_opt = outside_sweep[outside].name;
		if (outside < 0 && nsweep < LL_ARGS_SEEN && !default_valued(a.name, a.val, preset) &&
		    asprintf(&sweep_opts[nsweep], "%s%s%s", a.name, a.val ? " " : "",
			     a.val ? a.val : "") >= 0)
			nsweep++;
		if (!strcmp(a.name, "--progress")) {
			o->progress = true;
			continue;
		}
		if (!strcmp(a.name, "--fail-fast")) {
			o->fail_fast = true;
			continue;
		}
		if (!strcmp(a.name, "--duration"))
			duration_given = true;
		if (!strcmp(a.name, "--threads"))
			threads_given = true;
		if (!strcmp(a.name, "--read-pct"))
			read_pct_given = true;
		if (!strcmp(a.name, "--cs-lines"))
			cs_lines_given = true;
		rc = parse_one(a.name, a.val, o, err, len);
		if (rc < 0) {
			ll_args_unknown(&a, err, len);
			rc = 2;
		}
		if (rc)
			goto out;
	}
	if (rc == LL_ARG_BAD) {
		rc = 2;
		goto out;
	}
	name_sweep(o, cmd->name, sweep_opts, nsweep);
	rc = cli_check_config(o, duration_given, threads_given, err, len);
	if (!rc)
		rc = cli_check_meaning(o, read_pct_given, cs_lines_given, err, len);
out:
	while (nsweep)
		free(sweep_opts[--nsweep]);
	return rc;
}

int cli_parse_run(int argc, char **argv, struct cli_opts *o, char *err, size_t len)
{
	static const struct ll_command run = { .name = "run", .opts = cli_run_opts, .open = true };

	return cli_parse_cmd(&run, argc, argv, o, err, len);
}
