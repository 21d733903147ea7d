/*
 * native/tools/vreport.c - `locklab-native validate-report`: the same sweep run
 * natively and in the simulator, side by side.
 *
 * It reads two result CSVs (any locklab CSV; vreport_csv.c), groups each by
 * (lock, threads), and for every pair present in both prints and writes:
 *
 *   mean throughput over the runs, natively and simulated, with sigma;
 *   the relative error (sim - native) / native;
 *   Jain's fairness index, natively and simulated (mean over runs).
 *
 * The summary: the median absolute relative error (all rows, and by thread
 * count); Spearman's rank correlation between the two orders of the locks
 * at each thread count (GSL), which says whether the simulator ranks the
 * locks as the machine does even where its absolute figures are off; the
 * rows where the two differ most; how many of the rows with two native runs
 * or more (which have a sigma) lie within two native sigmas (the machine's
 * own noise); and any row faster than its
 * critical and non-critical delays allow (each thread at most one
 * acquisition per cs + ncs, the lock at most one per cs), which means the
 * delays there were shorter than their nominal length.
 *
 * Where the CSVs carry cs_ns, ncs_ns, cs_lines, locks, ncs_exp, read_pct or
 * overcommit, the two sides must agree on those both have, and every run of
 * a (lock, threads) pair on one side must too (two sweep points are never
 * pooled); each side's rows are of one topo.  Comparing different sweeps is
 * refused.  Failed runs and pairs on one side only are left out, said on
 * stderr (vr_note) and under "left out:" in the report.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include <locklab/args.h>
#include <locklab/result.h>
#include <locklab/stats.h>

#include "validate.h"
#include "vreport.h"

/* ------------------------------------------------------- the figures */

double vreport_spearman(const double *x, const double *y, size_t n)
{
	double *work, r;

	if (n < 2)
		return NAN;
	work = calloc(2 * n, sizeof(*work));
	if (!work)
		return NAN;
	gsl_set_error_handler_off();
	r = gsl_stats_spearman(x, 1, y, 1, n, work);
	free(work);
	return isfinite(r) ? r : NAN;
}

static double mean_of(const double *x, unsigned n)
{
	double s = 0;
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++)
		if (!isnan(x[i])) {
			s += x[i];
			k++;
		}
	return k ? s / k : NAN;
}

static void derive(struct entry *e)
{
	ll_summarize(e->nat.tput, e->nat.n, &e->ns);
	ll_summarize(e->sim.tput, e->sim.n, &e->ss);
	e->njain = mean_of(e->nat.jain, e->nat.n);
	e->sjain = mean_of(e->sim.jain, e->sim.n);
	e->nagain = 1 - mean_of(e->nat.handoff, e->nat.n);
	e->sagain = 1 - mean_of(e->sim.handoff, e->sim.n);
	e->rel = e->ns.mean > 0 ? (e->ss.mean - e->ns.mean) / e->ns.mean : NAN;
}

static double median_abs(const struct table *t, unsigned threads, size_t *count)
{
	double *v = calloc(t->n ? t->n : 1, sizeof(*v)), m = NAN;
	size_t k = 0;

	for (size_t i = 0; v && i < t->n; i++)
		if ((!threads || t->e[i].threads == threads) && !isnan(t->e[i].rel))
			v[k++] = fabs(t->e[i].rel);
	if (k) {
		gsl_sort(v, 1, k);
		m = gsl_stats_median_from_sorted_data(v, 1, k);
	}
	free(v);
	*count = k;
	return m;
}

/* ------------------------------------------------------- the report */

static int by_threads(const void *a, const void *b)
{
	const unsigned *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

static size_t thread_counts(const struct table *t, unsigned *out)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++) {
		size_t j = 0;

		while (j < n && out[j] != t->e[i].threads)
			j++;
		if (j == n)
			out[n++] = t->e[i].threads;
	}
	qsort(out, n, sizeof(*out), by_threads);
	return n;
}

static void pct(FILE *f, double x)
{
	if (isnan(x))
		fprintf(f, "%9s", "n/a");
	else
		fprintf(f, "%+8.1f%%", 100 * x);
}

/* A share of the acquisitions in percent, "-" where a side has none. */
static void share(FILE *f, double x)
{
	if (isnan(x))
		fprintf(f, " %9s", "-");
	else
		fprintf(f, " %8.1f%%", 100 * x);
}

static void print_rows(FILE *f, const struct table *t)
{
	fprintf(f, "%-16s %7s %14s %9s %14s %9s %9s %9s %9s %9s\n", "lock", "threads",
		"native Macq/s", "(sd/mean)", "sim Macq/s", "rel.err", "Jain nat", "Jain sim",
		"again nat", "again sim");
	for (size_t i = 0; i < t->n; i++) {
		const struct entry *e = &t->e[i];

		fprintf(f, "%-16s %7u %14.4f ", e->lock, e->threads, e->ns.mean / 1e6);
		if (e->nat.n > 1 && e->ns.mean > 0)
			fprintf(f, "%8.1f%% ", 100 * e->ns.sigma / e->ns.mean);
		else
			fprintf(f, "%9s ", "1 run");
		fprintf(f, "%14.4f ", e->ss.mean / 1e6);
		pct(f, e->rel);
		fprintf(f, " %9.4f %9.4f", e->njain, e->sjain);
		share(f, e->nagain);
		share(f, e->sagain);
		fputc('\n', f);
	}
}

static int cmp_desc(const void *a, const void *b, void *arg)
{
	const double *v = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	return (v[i] < v[j]) - (v[i] > v[j]);
}

/* "a > b > c" by the figures in v (indexes into t). */
static void print_order(FILE *f, const struct table *t, const size_t *ix, size_t n, bool sim)
{
	double v[256];
	size_t o[256];

	for (size_t i = 0; i < n && i < 256; i++) {
		v[i] = sim ? t->e[ix[i]].ss.mean : t->e[ix[i]].ns.mean;
		o[i] = i;
	}
	qsort_r(o, n, sizeof(*o), cmp_desc, v);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? " > " : "", t->e[ix[o[i]]].lock);
	fputc('\n', f);
}

/* True when the native means of the entries ix[0..n) span less than twice
 * their mean sigma (entries with one run have no sigma: false). */
static bool within_noise(const struct table *t, const size_t *ix, size_t n)
{
	double lo = INFINITY, hi = -INFINITY, sig = 0;

	for (size_t i = 0; i < n; i++) {
		const struct entry *e = &t->e[ix[i]];

		if (e->nat.n < 2)
			return false;
		lo = fmin(lo, e->ns.mean);
		hi = fmax(hi, e->ns.mean);
		sig += e->ns.sigma / n;
	}
	return n > 1 && hi - lo < 2 * sig;
}

/* The pairs of locks whose native figures differ by less than twice their
 * mean sigma (each with two runs or more): their order is noise. */
static void print_noisy_pairs(FILE *f, const struct table *t, const size_t *ix, size_t n)
{
	unsigned shown = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			const struct entry *a = &t->e[ix[i]], *b = &t->e[ix[j]];

			if (a->nat.n < 2 || b->nat.n < 2 ||
			    fabs(a->ns.mean - b->ns.mean) >= a->ns.sigma + b->ns.sigma)
				continue;
			fprintf(f, "%s%s and %s", shown++ ? ", " : "\n    (native order within noise: ",
				a->lock, b->lock);
		}
	if (shown)
		fprintf(f, ": each pair differs by less than twice its sigma)");
}

static void print_rank(FILE *f, const struct table *t, unsigned threads)
{
	double x[256], y[256];
	size_t ix[256], n = 0;

	for (size_t i = 0; i < t->n && n < 256; i++)
		if (t->e[i].threads == threads) {
			x[n] = t->e[i].ns.mean;
			y[n] = t->e[i].ss.mean;
			ix[n++] = i;
		}
	double rho = vreport_spearman(x, y, n);

	fprintf(f, "  threads %-4u Spearman rho ", threads);
	if (isnan(rho))
		fprintf(f, "n/a (%s)", n < 2 ? "fewer than two locks" : "ties");
	else
		fprintf(f, "%+.3f over %zu locks%s", rho, n, n < 3 ? " (too few to mean much)" : "");
	if (!isnan(rho) && within_noise(t, ix, n))
		fprintf(f, "\n    (the native figures of these locks differ by less than twice their sigma:\n"
			   "     their native order is noise, and so is this correlation)");
	else if (!isnan(rho))
		print_noisy_pairs(f, t, ix, n);
	fprintf(f, "\n    native: ");
	print_order(f, t, ix, n, false);
	fprintf(f, "    sim:    ");
	print_order(f, t, ix, n, true);
}

static void print_worst(FILE *f, const struct table *t)
{
	double v[1024];
	size_t o[1024], n = t->n < 1024 ? t->n : 1024, within = 0, with_sigma = 0;

	for (size_t i = 0; i < n; i++) {
		const struct entry *e = &t->e[i];

		v[i] = isnan(e->rel) ? -1 : fabs(e->rel);
		o[i] = i;
		with_sigma += e->nat.n > 1;
		if (e->nat.n > 1 && fabs(e->ss.mean - e->ns.mean) <= 2 * e->ns.sigma)
			within++;
	}
	qsort_r(o, n, sizeof(*o), cmp_desc, v);
	fprintf(f, "  largest differences:");
	for (size_t i = 0; i < n && i < 3; i++)
		fprintf(f, "%s %s t=%u (%+.1f%%)", i ? "," : "", t->e[o[i]].lock, t->e[o[i]].threads,
			100 * t->e[o[i]].rel);
	if (with_sigma)
		fprintf(f, "\n  within two native sigmas (the machine's own noise): %zu of the %zu rows "
			"with two native runs or more\n", within, with_sigma);
	else
		fprintf(f, "\n  within two native sigmas: no row has two native runs, so no sigma\n");
}

/* The most a side can do: each thread one acquisition per cs + ncs, and
 * the lock one per cs.  NaN when the CSV did not give them. */
static double ceiling(const struct side *s, unsigned threads)
{
	double c;

	if (isnan(s->cs_ns) || isnan(s->ncs_ns) || s->cs_ns + s->ncs_ns <= 0)
		return NAN;
	c = threads * 1e9 / (s->cs_ns + s->ncs_ns);
	if (s->cs_ns > 0 && 1e9 / s->cs_ns < c)
		c = 1e9 / s->cs_ns;
	return c;
}

/* Rows whose throughput beats the ceiling by more than 2%: the delays ran
 * short of their nominal length there. */
static void print_ceiling(FILE *f, const struct table *t)
{
	unsigned n = 0;

	for (int sim = 0; sim < 2; sim++)
		for (size_t i = 0; i < t->n; i++) {
			const struct entry *e = &t->e[i];
			const struct side *s = sim ? &e->sim : &e->nat;
			double c = ceiling(s, e->threads), m = sim ? e->ss.mean : e->ns.mean;

			if (isnan(c) || m <= 1.02 * c)
				continue;
			if (!n++)
				fprintf(f, "  faster than cs + ncs allow (the delays ran short of their nominal length):\n");
			fprintf(f, "    %s %s t=%u: %.4f Macq/s, ceiling %.4f\n", sim ? "sim" : "native",
				e->lock, e->threads, m / 1e6, c / 1e6);
		}
}

static char notes[8192]; /* "    line\n" each */
static size_t notes_len;
static unsigned notes_dropped; /* lines that did not fit */

void vr_note(const char *fmt, ...)
{
	char line[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ll_say("validate-report", "%s", line);
	if (notes_len + strlen(line) + 6 < sizeof(notes))
		notes_len += (size_t)snprintf(notes + notes_len, sizeof(notes) - notes_len, "    %s\n",
					      line);
	else
		notes_dropped++;
}

/* Is the simulated machine sim the model that `locklab-native calibrate`
 * makes of the native machine by default (results/host-NATIVE.xml, whose
 * zone is host-NATIVE)? */
static bool models_native(const char *native, const char *sim)
{
	return !strncmp(sim, "host-", 5) && !strcmp(sim + 5, native);
}

static void print_report(FILE *f, const struct table *t, const char *npath, const char *spath)
{
	unsigned counts[256];
	size_t nc = thread_counts(t, counts), k;
	double la;

	fprintf(f, "validate: native (%s, %s) against simulated (%s, %s)\n",
		t->e[0].nat.topo, npath, t->e[0].sim.topo, spath);
	if (!models_native(t->e[0].nat.topo, t->e[0].sim.topo))
		fprintf(f, "note: the simulated side ran on %s, not on host-%s, the model of %s that "
			"`locklab-native calibrate` writes by default (results/host-%s.xml): unless %s "
			"models %s, the errors below compare two machines\n",
			t->e[0].sim.topo, t->e[0].nat.topo, t->e[0].nat.topo, t->e[0].nat.topo,
			t->e[0].sim.topo, t->e[0].nat.topo);
	if (getloadavg(&la, 1) == 1)
		fprintf(f, "load average of this machine now, at the report: %.2f (if the native runs "
			"were made here with other work running, that work inflates their variance)\n",
			la);
	fputc('\n', f);
	print_rows(f, t);
	fprintf(f, "\nsummary\n");
	double m = median_abs(t, 0, &k);

	fprintf(f, "  median |relative error|: %.1f%% over %zu rows", 100 * m, k);
	for (size_t i = 0; i < nc; i++) {
		m = median_abs(t, counts[i], &k);
		fprintf(f, "; threads %u: %.1f%%", counts[i], 100 * m);
	}
	fputc('\n', f);
	fprintf(f, "  rank correlation of the locks by throughput, native against simulated:\n");
	for (size_t i = 0; i < nc; i++)
		print_rank(f, t, counts[i]);
	print_worst(f, t);
	print_ceiling(f, t);
	if (notes_len)
		fprintf(f, "  left out:\n%s", notes);
	if (notes_dropped)
		fprintf(f, "    ... and %u more (stderr has every one)\n", notes_dropped);
}

/* A figure with prec decimals, then sep; nothing before sep where there is
 * none (NaN). */
static void csv_num(FILE *f, int prec, double x, char sep)
{
	if (!isnan(x))
		fprintf(f, "%.*f", prec, x);
	fputc(sep, f);
}

static void write_csv(FILE *f, const void *arg)
{
	const struct table *t = arg;

	fprintf(f, "lock,threads,native_runs,native_throughput_per_s,native_sigma,sim_runs,"
		   "sim_throughput_per_s,sim_sigma,rel_error,native_jain,sim_jain,native_topo,sim_topo,"
		   "native_again,sim_again\n");
	for (size_t i = 0; i < t->n; i++) {
		const struct entry *e = &t->e[i];

		fprintf(f, "%s,%u,%u,%.2f,", e->lock, e->threads, e->nat.n, e->ns.mean);
		csv_num(f, 2, e->ns.sigma, ',');
		fprintf(f, "%u,%.2f,", e->sim.n, e->ss.mean);
		csv_num(f, 2, e->ss.sigma, ',');
		csv_num(f, 4, e->rel, ',');
		csv_num(f, 4, e->njain, ',');
		csv_num(f, 4, e->sjain, ',');
		fprintf(f, "%s,%s,", e->nat.topo, e->sim.topo);
		csv_num(f, 4, e->nagain, ',');
		csv_num(f, 4, e->sagain, '\n');
	}
}

/* ------------------------------------------------------- the command */

struct vr_opts {
	const char *native, *sim, *csv, *report;
	bool quiet;
};

static int vr_bad(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ll_vsay("validate-report", fmt, ap);
	va_end(ap);
	return 2;
}

static const struct ll_opt vr_opts[] = {
	LL_VALUE("--native"), LL_VALUE("--sim"), LL_VALUE("--csv"), LL_VALUE("--report"), LL_FLAG("--quiet"), LL_OPTS_END,
};

static void vr_usage(FILE *f)
{
	fprintf(f, "usage: locklab-native validate-report --native FILE --sim FILE [--csv FILE]\n"
		   "              [--report FILE] [--quiet]  compare a native and a simulated sweep "
		   "(docs/validate.md)\n");
}

const struct ll_command native_vreport_cmd = {
	.name = "validate-report", .main = native_validate_report_main, .usage = vr_usage,
	.opts = vr_opts,
};

/* The outputs, before anything is read: each may be written, and none is
 * an input or the other output. */
static int vr_check_outputs(const struct vr_opts *o)
{
	const char *const name[] = { "--csv", "--report", "--native", "--sim" };
	const char *const path[] = { o->csv, o->report, o->native, o->sim };
	char err[4400];

	return outfile_check_all(name, path, 2, 4, err, sizeof(err)) ? vr_bad("%s", err) : 0;
}

/* Whether two paths name one file (a link or another spelling of it). */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* 0, 1 after --help, or 2 after one line on stderr. */
static int vr_parse(int argc, char **argv, struct vr_opts *o)
{
	struct ll_args a;
	char err[256];
	int rc;

	memset(o, 0, sizeof(*o));
	ll_args_init(&a, &native_vreport_cmd, argc, argv);
	while ((rc = ll_args_next(&a, err, sizeof(err))) == LL_ARG_OPT) {
		const char **slot = !strcmp(a.name, "--native") ? &o->native
				    : !strcmp(a.name, "--sim")  ? &o->sim
				    : !strcmp(a.name, "--csv")  ? &o->csv
				    : !strcmp(a.name, "--report") ? &o->report
								  : NULL;

		if (!slot) {
			o->quiet = true;
			continue;
		}
		if (!*a.val)
			return vr_bad("%s: needs a file", a.name);
		*slot = a.val;
	}
	if (rc == LL_ARG_HELP) {
		vr_usage(stdout);
		return 1;
	}
	if (rc == LL_ARG_BAD)
		return vr_bad("%s", err);
	if (!o->native || !o->sim)
		return vr_bad("--native FILE and --sim FILE are both needed");
	if (same_file(o->native, o->sim))
		return vr_bad("--native %s and --sim %s: the same file given twice (one sweep of "
			      "each backend is compared)", o->native, o->sim);
	if (o->quiet && !o->csv && !o->report)
		return vr_bad("--quiet: with no --csv or --report the command would show nothing");
	return vr_check_outputs(o);
}

/* Keeps the (lock, threads) present on both sides; says what was dropped. */

/* Every "key=value" of a that b has too is the same in b (a CSV without a
 * column says nothing of it). */
static bool same_workload(const char *a, const char *b)
{
	char key[40];

	while (*a) {
		const char *eq = strchr(a, '='), *end = strchr(a, ' '), *in;
		size_t klen = eq ? (size_t)(eq - a) + 1 : 0, vlen;

		if (!eq || klen >= sizeof(key))
			return true;
		end = end ? end : a + strlen(a);
		snprintf(key, sizeof(key), "%.*s", (int)klen, a);
		for (in = b; (in = strstr(in, key)); in++)
			if (in == b || in[-1] == ' ')
				break;
		vlen = (size_t)(end - eq - 1);
		if (in && (strncmp(in + klen, eq + 1, vlen) ||
			   (in[klen + vlen] && in[klen + vlen] != ' ')))
			return false;
		a = *end ? end + 1 : end;
	}
	return true;
}

/* "s" after a count other than one ("2 threads", "1 thread"). */
static const char *plural(unsigned n)
{
	return n == 1 ? "" : "s";
}

static int keep_common(struct table *t)
{
	size_t w = 0, common = 0;

	for (size_t i = 0; i < t->n; i++)
		common += t->e[i].nat.n && t->e[i].sim.n;
	if (!common)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		struct entry *e = &t->e[i];

		if (!e->nat.n || !e->sim.n) {
			if (!e->nat.n && !e->sim.n)
				vr_note("%s at %u thread%s: no run with figures (%u native and %u "
					"simulated runs failed): left out", e->lock, e->threads, plural(e->threads),
					e->nat.failed, e->sim.failed);
			else if (!e->nat.n && e->nat.failed)
				vr_note("%s at %u thread%s: all %u native runs failed: left out", e->lock,
					e->threads, plural(e->threads), e->nat.failed);
			else if (!e->sim.n && e->sim.failed)
				vr_note("%s at %u thread%s: all %u simulated runs failed: left out",
					e->lock, e->threads, plural(e->threads), e->sim.failed);
			else
				vr_note("%s at %u thread%s is only in the %s results: left out", e->lock,
					e->threads, plural(e->threads), e->nat.n ? "native" : "simulated");
			continue;
		}
		if ((!isnan(e->nat.cs_ns) && !isnan(e->sim.cs_ns) && e->nat.cs_ns != e->sim.cs_ns) ||
		    (!isnan(e->nat.ncs_ns) && !isnan(e->sim.ncs_ns) && e->nat.ncs_ns != e->sim.ncs_ns)) {
			ll_say("validate-report", "%s at %u thread%s ran with cs %g, ncs %g natively but cs %g, ncs %g simulated: not the same sweep",
				e->lock, e->threads, plural(e->threads), e->nat.cs_ns, e->nat.ncs_ns, e->sim.cs_ns, e->sim.ncs_ns);
			return -2;
		}
		if (!same_workload(e->nat.workload, e->sim.workload) ||
		    !same_workload(e->sim.workload, e->nat.workload)) {
			ll_say("validate-report", "%s at %u thread%s ran with %s natively but %s "
			       "simulated: not the same sweep", e->lock, e->threads, plural(e->threads),
			       e->nat.workload, e->sim.workload);
			return -2;
		}
		derive(e);
		t->e[w++] = *e;
	}
	t->n = w;
	return w ? 0 : -1;
}

static int emit(const char *path, void (*fn)(FILE *, const void *), const struct table *t)
{
	return write_text_atomic(path, fn, t);
}

static const char *report_npath, *report_spath;

static void emit_report(FILE *f, const void *arg)
{
	const struct table *t = arg;

	print_report(f, t, report_npath, report_spath);
}

int native_validate_report_main(int argc, char **argv)
{
	struct vr_opts o;
	struct table t = { 0 };
	char err[800];
	int rc = vr_parse(argc, argv, &o);

	if (rc)
		return rc == 1 ? 0 : rc; /* 1: --help */
	notes_len = 0;
	notes_dropped = 0;
	notes[0] = 0;
	if (vr_read_csv(o.native, &t, false, err, sizeof(err)) ||
	    vr_read_csv(o.sim, &t, true, err, sizeof(err))) {
		free(t.e);
		return vr_bad("%s", err);
	}
	rc = keep_common(&t);
	if (rc) {
		free(t.e);
		if (rc == -2)
			return 2;
		return vr_bad("no (lock, threads) is in both %s and %s", o.native, o.sim);
	}
	report_npath = o.native;
	report_spath = o.sim;
	if (!o.quiet)
		print_report(stdout, &t, o.native, o.sim);
	if (o.csv && emit(o.csv, write_csv, &t)) {
		ll_say("validate-report", "cannot write %s: %s", o.csv,
			strerror(errno));
		rc = 1;
	}
	if (o.report && emit(o.report, emit_report, &t)) {
		ll_say("validate-report", "cannot write %s: %s", o.report,
			strerror(errno));
		rc = 1;
	}
	free(t.e);
	return rc;
}
