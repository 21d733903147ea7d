/*
 * native/tools/calibrate.c - `locklab-native calibrate`: measures what the
 * simulator needs to know about this machine (calib_measure.c says how),
 * or reads an earlier calibration back (--from), prints it, and writes it
 * as a platform file (results/host-HOST.xml) and as a calibration
 * (results/host-HOST.calib.csv).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <gsl/gsl_errno.h>

#include <locklab/args.h>
#include <locklab/backend.h>
#include <locklab/result.h>

#include "../../core/cli.h"
#include "calib_measure.h"

/* ------------------------------------------------------ the options */

__attribute__((format(printf, 1, 2)))
static int bad(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ll_vsay("calibrate", fmt, ap);
	va_end(ap);
	return 2;
}

static const struct ll_opt cal_opts[] = {
	LL_VALUE("--reps"), LL_VALUE("--out"), LL_VALUE("--from"), LL_FLAG("--progress"), LL_OPTS_END,
};

static void cal_usage(FILE *f)
{
	fprintf(f, "usage: locklab-native calibrate [--reps N] [--out FILE.xml] [--from FILE.calib.csv]\n"
		   "              [--progress]  measure this machine for the simulator (docs/validate.md)\n");
}

const struct ll_command native_calibrate_cmd = {
	.name = "calibrate", .main = native_calibrate_main, .usage = cal_usage, .opts = cal_opts,
};

/* 0, 1 after --help, or 2 after one line on stderr. */
static int parse_opts(int argc, char **argv, struct cal_opts *o)
{
	struct ll_args a;
	char err[256];
	const char *reps = NULL;
	uint64_t v;
	int rc;

	memset(o, 0, sizeof(*o));
	o->reps = CAL_DEFAULT_REPS;
	ll_args_init(&a, &native_calibrate_cmd, argc, argv);
	while ((rc = ll_args_next(&a, err, sizeof(err))) == LL_ARG_OPT) {
		if (!strcmp(a.name, "--progress"))
			o->progress = true;
		else if (!*a.val)
			return bad("%s: its value is empty", a.name);
		else if (!strcmp(a.name, "--out"))
			o->out = a.val;
		else if (!strcmp(a.name, "--from"))
			o->from = a.val;
		else {
			reps = a.val; /* read below: with --from it is refused for what it is */
			o->reps_given = true;
		}
	}
	if (rc == LL_ARG_END && reps && !o->from) { /* the options read whole */
		if (cli_parse_u64(reps, &v) || v < CAL_MIN_REPS || v > CAL_MAX_REPS)
			return bad("--reps: '%s' is not a whole number from %u to %u", reps,
				   CAL_MIN_REPS, CAL_MAX_REPS);
		o->reps = (unsigned)v;
	}
	if (rc == LL_ARG_HELP) {
		cal_usage(stdout);
		return 1;
	}
	return rc == LL_ARG_BAD ? bad("%s", err) : 0;
}
#if CAL_X86

/* ------------------------------------------------------- the machine */

static void read_cpuinfo(struct calib *c)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *v;

		if (!colon)
			continue;
		v = colon + 1 + strspn(colon + 1, " \t");
		v[strcspn(v, "\n")] = 0;
		if (!strncmp(line, "model name", 10) && !c->cpu_model[0])
			snprintf(c->cpu_model, sizeof(c->cpu_model), "%s", v);
		else if (!strncmp(line, "vendor_id", 9) && !c->vendor[0])
			snprintf(c->vendor, sizeof(c->vendor), "%s", v);
	}
	if (f)
		fclose(f);
	for (char *p = c->cpu_model; *p; p++)
		if (*p == ',')
			*p = ' ';
}

static int describe_machine(const struct native_machine *m, struct calib *c)
{
	time_t now = time(NULL);
	struct tm tm;
	double la;

	snprintf(c->host, sizeof(c->host), "%s", backend_topo_name(NULL));
	read_cpuinfo(c);
	gmtime_r(&now, &tm);
	strftime(c->date, sizeof(c->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	c->loadavg = getloadavg(&la, 1) == 1 ? la : -1;
	if (m->nsockets > CALIB_MAX_SOCKETS || m->nnodes > CALIB_MAX_NODES)
		return bad("%s: more sockets or NUMA nodes than calibrate handles (64)", c->host);
	if (m->sockets[0].npus < 2)
		return bad("%s: the first socket has one PU: cache-to-cache transfers cannot be measured",
			   c->host);
	c->nsockets = m->nsockets;
	for (unsigned s = 0; s < m->nsockets; s++)
		c->socket_pus[s] = m->sockets[s].npus;
	c->nnodes = m->nnodes;
	c->nclasses = 1;
	return 0;
}

#endif /* CAL_X86 */

/* ------------------------------------------------------- the output */

static void print_cell(const struct calib_cell *x)
{
	if (!x->measured) {
		printf("  %-22s", "-");
		return;
	}
	char buf[64];

	snprintf(buf, sizeof(buf), "%.1f [%.1f..%.1f]", x->median, x->p10, x->p90);
	printf("  %-22s", buf);
}

/* A cache-to-cache load of S that takes longer than a load of I at the
 * same distance (from memory there) cannot be a transfer: the eviction walk
 * that leaves the requester's copy out (calib_measure.c) disturbed it (page
 * walks, a hypervisor).  Said, as the S figures go into the machine file
 * all the same. */
static void s_above_memory(const struct calib *c, unsigned k)
{
	const struct calib_cell *s = &c->cell[CAL_LOAD][CAL_S][k], *i = &c->cell[CAL_LOAD][CAL_I][k];

	if (s->measured && i->measured && s->median > i->median)
		printf("note: load of S (%.1f ns) took longer than one of I, from memory (%.1f ns): "
		       "not a transfer; the eviction walk of its measurement was disturbed (page "
		       "walks, a virtual machine), so treat this class's S figures as suspect\n",
		       s->median, i->median);
}

static void print_class(const struct calib *c, unsigned k)
{
	const struct calib_cell *ref = &c->cell[CAL_LOAD][CAL_M][k];

	printf("\nclass %u (%s): cpu %d <- cpu %d; median [p10..p90] ns\n", k,
	       k ? "other socket" : "same socket", ref->cpu_a, ref->cpu_b);
	printf("%-6s", "");
	for (int s = 0; s < CAL_NSTATES; s++)
		printf("  %-22c", calib_state_names[s]);
	putchar('\n');
	for (int op = 0; op < CAL_NOPS; op++) {
		printf("%-6s", calib_op_names[op]);
		for (int s = 0; s < CAL_NSTATES; s++)
			print_cell(&c->cell[op][s][k]);
		putchar('\n');
	}
	if (c->s_by_eviction[k])
		printf("note: S here is the requester's copy evicted by a walk of its caches, not a "
		       "third cpu's load (no third cpu in cpu %d's socket; docs/validate.md)\n",
		       ref->cpu_b);
	if (k == 0 && c->cell[CAL_LOAD][CAL_S][0].median < 2 * c->hit[CAL_LOAD].median + 2)
		printf("note: load of S costs about a hit: the requester's copy survived\n");
	s_above_memory(c, k);
}

static void print_summary(const struct calib *c)
{
	printf("calibrate: %s, %s; %u socket%s, %u NUMA node%s; TSC %.3f GHz; %u samples a figure",
	       c->host, c->cpu_model[0] ? c->cpu_model : "unknown CPU", c->nsockets,
	       c->nsockets == 1 ? "" : "s", c->nnodes, c->nnodes == 1 ? "" : "s", c->tsc_ghz, c->reps);
	if (c->loadavg >= 0)
		printf("; load average %.2f", c->loadavg);
	putchar('\n');
	unsigned pus = 0;

	for (unsigned s = 0; s < c->nsockets; s++)
		pus += c->socket_pus[s];
	if (c->loadavg >= pus)
		printf("note: a load average of %.2f on %u PUs: other work shares these cores, and the\n"
		       "      figures come out higher and noisier than on an idle machine\n",
		       c->loadavg, pus);
	for (unsigned k = 0; k < c->nclasses; k++)
		print_class(c, k);
	printf("\nhits (own Modified line), ns:");
	for (int op = 0; op < CAL_NOPS; op++)
		printf(" %s %.1f", calib_op_names[op], c->hit[op].median);
	printf("\npause: %.1f ns\nmemory (load of an uncached line from cpu %d), ns:", c->pause.median,
	       c->mem[0].cpu_a);
	for (unsigned n = 0; n < c->nnodes; n++)
		if (c->mem[n].measured)
			printf(" node %u %.1f [%.1f..%.1f]", n, c->mem[n].median, c->mem[n].p10,
			       c->mem[n].p90);
	if (c->inval_measured)
		printf("\ninvalidation fan-out: %.2f ns per extra sharer\n", c->inval_per_sharer_ns);
	else
		printf("\ninvalidation fan-out: not measurable (fewer than three PUs in a socket)\n");
	if (c->wake.measured) {
		printf("wake of a thread asleep in futex_wait on cpu %d, from cpu %d after 1 ms: "
		       "%.1f us [%.1f..%.1f]; the futex_wake call %.1f us [%.1f..%.1f]\n",
		       c->wake.cpu_b, c->wake.cpu_a, c->wake.median / 1e3, c->wake.p10 / 1e3,
		       c->wake.p90 / 1e3, c->kick.median / 1e3, c->kick.p10 / 1e3, c->kick.p90 / 1e3);
		if (c->wake_after[0].measured) {
			printf("wake after shorter sleeps, median us:");
			for (unsigned i = 0; i < CALIB_WAKE_RUNGS; i++)
				printf(" %u us %.1f;", calib_wake_sleep_us[i],
				       c->wake_after[i].median / 1e3);
			printf(" 1 ms %.1f\n", c->wake.median / 1e3);
		}
	} else
		printf("wake: not measured (one PU, or a calibration older than the wake figures)\n");
}

struct topo_arg {
	const struct calib *c;
	const char *zone;
};

static void emit_topology(FILE *f, const void *arg)
{
	const struct topo_arg *t = arg;

	calib_write_topology(f, t->c, t->zone);
}

static void emit_calib(FILE *f, const void *arg)
{
	calib_write(f, arg);
}

/* zone id: the file name without directory and .xml */
static void zone_of(const char *path, char *zone, size_t len)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strlen(b);
	if (n > 4 && !strcmp(b + n - 4, ".xml"))
		n -= 4;
	snprintf(zone, len, "%.*s", (int)n, b);
}

static void calib_path_of(const char *xml, char *out, size_t len)
{
	size_t n = strlen(xml);

	if (n > 4 && !strcmp(xml + n - 4, ".xml"))
		n -= 4;
	snprintf(out, len, "%.*s.calib.csv", (int)n, xml);
}

static int write_results(const struct cal_opts *o, const struct calib *c, bool calib_too)
{
	static struct calib kept;
	char zone[128], cpath[600], err[400], *text = NULL;
	size_t len = 0;
	FILE *m;
	struct topo_arg t = { c, zone };

	/* The platform comes from the calibration as its file keeps it (three
	 * decimals), so that `calibrate --from` that file writes the same one. */
	if (calib_too && (m = open_memstream(&text, &len))) {
		calib_write(m, c);
		if (!fclose(m) && !calib_parse(text, &kept, err, sizeof(err)))
			t.c = &kept;
		else
			ll_say("calibrate", "warning: the calibration as its file keeps it does not "
			       "read back (%s): the platform comes from the unrounded figures, and "
			       "--from that file will refuse it", text ? err : "out of memory");
		free(text);
	}
	zone_of(o->out, zone, sizeof(zone));
	calib_path_of(o->out, cpath, sizeof(cpath));
	if (write_text_atomic(o->out, emit_topology, &t)) {
		ll_say("calibrate", "cannot write %s: %s", o->out,
			strerror(errno));
		return 1;
	}
	if (calib_too && write_text_atomic(cpath, emit_calib, c)) {
		ll_say("calibrate", "cannot write %s: %s", cpath,
			strerror(errno));
		return 1;
	}
	printf("\nwrote %s%s%s\n", o->out, calib_too ? " and " : "", calib_too ? cpath : "");
	return 0;
}

static int check_out(const struct cal_opts *o, bool given, char *err, size_t len);

/* Without --out, results/host-NAME.xml, NAME this machine's or with --from
 * the calibration's own host (a file of one machine is never named after
 * another), its paths checked: 0, else the exit status (its line said). */
static int default_out(struct cal_opts *o, const char *name)
{
	char err[600];

	if (o->out)
		return 0;
	if (!name[0] || strchr(name, '/') || name[0] == '.') {
		return ll_bad("calibrate", "the calibration's host '%s' names no file: give --out",
			      name);
	}
	if (mkdir("results", 0755) && errno != EEXIST) {
		ll_say("calibrate", "cannot create results/: %s",
			strerror(errno));
		return 1;
	}
	snprintf(o->out_buf, sizeof(o->out_buf), "results/host-%s.xml", name);
	o->out = o->out_buf;
	if (check_out(o, false, err, sizeof(err))) {
		ll_say("calibrate", "%s", err);
		return 2;
	}
	return 0;
}

static int from_file(struct cal_opts *o)
{
	static struct calib c;
	char err[600];
	int rc;

	if (calib_read_file(o->from, &c, err, sizeof(err))) {
		ll_say("calibrate", "%s", err);
		return 2;
	}
	rc = default_out(o, c.host);
	if (rc)
		return rc;
	print_summary(&c);
	return write_results(o, &c, false);
}

#if CAL_X86
/* A clock that advances in steps of several ns (a hypervisor's) makes
 * every figure a multiple of the step and a spread of 0 mean nothing. */
static void clock_step_note(double ticks_per_ns)
{
	double step = cal_tsc_step_ns(ticks_per_ns);

	if (step >= CALIB_FINE_STEP_NS)
		printf("note: the TSC advances in steps of %.1f ns here (a virtual machine's clock?): "
		       "each sample is a whole number of steps, so figures less than a step apart are "
		       "not told apart, and a spread of 0 says no more than that\n", step);
}

static int measure(struct cal_opts *o)
{
	const struct native_machine *m = native_machine();
	static struct calib c;
	struct cal x;
	pthread_t pt;
	char err[300];

	memset(&c, 0, sizeof(c));
	memset(&x, 0, sizeof(x));
	if (!m)
		return bad("cannot read the machine's topology: %s", native_machine_error());
	int rc = describe_machine(m, &c);

	if (rc)
		return rc;
	c.reps = o->reps;
	x.o = o;
	x.m = m;
	x.c = &c;
	x.samples = calloc(o->reps, sizeof(double));
	if (!x.samples)
		return bad("%s", "out of memory");
	gsl_set_error_handler_off();
	x.ticks_per_ns = cal_ticks_per_ns();
	c.tsc_ghz = x.ticks_per_ns;
	if (pthread_create(&pt, NULL, cal_measure_all, &x) || pthread_join(pt, NULL)) {
		free(x.samples);
		return bad("%s", "cannot start the measuring thread");
	}
	free(x.samples);
	if (x.failed) {
		ll_say("calibrate", "%s", x.failure);
		return 3;
	}
	if (calib_check(&c, err, sizeof(err))) {
		ll_say("calibrate", "incomplete: %s", err);
		return 3;
	}
	/* a warning, not a refusal: the rest of the file holds, and a noisy
	 * machine would otherwise never get one */
	if (calib_check_transfers(&c, err, sizeof(err)))
		ll_say("calibrate", "warning: %s", err);
	c.tsc_step_ns = cal_tsc_step_ns(x.ticks_per_ns);
	print_summary(&c);
	clock_step_note(x.ticks_per_ns);
	return write_results(o, &c, true);
}
#else
static int measure(struct cal_opts *o)
{
	return bad("%s", "measuring needs an x86-64 processor (rdtsc, clflush); --from works anywhere");
}
#endif

/* --out and, when measuring, the calibration beside it: each may be
 * written, and neither is the --from it converts.  0, or -1 and err. */
static int check_out(const struct cal_opts *o, bool given, char *err, size_t len)
{
	char cpath[600];
	const char *const name[] = { given ? "--out" : "the default --out",
				     "the calibration beside it", "--from" };
	const char *const path[] = { o->out, o->from ? NULL : cpath, o->from };

	calib_path_of(o->out, cpath, sizeof(cpath));
	return outfile_check_all(name, path, 2, 3, err, len);
}

int native_calibrate_main(int argc, char **argv)
{
	struct cal_opts o;
	char err[600];
	int rc = parse_opts(argc, argv, &o);

	if (rc)
		return rc == 1 ? 0 : rc; /* 1: --help */
	if (o.from && (o.reps_given || o.progress))
		return bad("%s: nothing is measured with --from", o.reps_given ? "--reps" : "--progress");
	if (o.out && (calib_check_out_path(o.out, err, sizeof(err)) ||
		      check_out(&o, true, err, sizeof(err)))) {
		ll_say("calibrate", "%s", err);
		return 2;
	}
	if (o.from) /* reads first: its errors come before any results/ is made */
		return from_file(&o);
	rc = default_out(&o, backend_topo_name(NULL)); /* measuring takes long: checked first */
	if (rc)
		return rc;
	rc = measure(&o);
	fflush(stdout);
	return rc;
}