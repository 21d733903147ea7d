/*
 * native/tools/noise.c - `locklab-native noise`: what takes a CPU away from
 * a thread that never blocks.
 *
 * One thread is pinned to each of the first --threads CPUs, in the order of
 * `run --pin compact`, and all of them read the clock in a tight loop for
 * --duration ms at once, as a sweep's threads run at once.  A gap of
 * --threshold ns or more between two reads is a detour: for that long the
 * thread did not run (an interrupt, a softirq, another task, a hypervisor
 * that descheduled its vCPU).  This is the method of Linux's osnoise
 * tracer (Documentation/trace/osnoise-tracer.rst: a thread per CPU reads
 * the time in a loop with interrupts and preemption enabled, and a delta
 * above tracing_thresh is noise); osnoise defaults to 5 us, this command to
 * 1 us (*assumed*: ten times a miss to memory, where the loop touches no
 * memory that could miss), below a timer tick's handler.
 *
 * What it prints, per CPU and for all: detours a second, the share of the
 * time lost, the mean, median, p99 and longest detour, and how many a
 * second fell in each decade (1-10 us, 10-100 us, 0.1-1 ms, 1 ms and
 * more).  The last line gives the simulator's interrupt options
 * (docs/variance.md) that lose the same time: the mean rate per CPU and
 * the mean detour.  Those interrupts all have one length, so the long
 * detours, which stall a FIFO lock's whole queue behind a waiter that is
 * not running, are not carried; the line says how many there were.  The
 * CSV (--csv) keeps each decade's detours and their time, and the
 * simulator's --noise-from takes it as classes of interrupts
 * (sim/noise_file.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/args.h>
#include <locklab/mem.h>
#include <locklab/result.h>

#include "../../core/noise_csv.h"
#include "../native.h"
#include "validate.h"

#define NOISE_DEFAULT_MS 1000
#define NOISE_MAX_MS 600000
#define NOISE_DEFAULT_THRESH_NS 1000
#define NOISE_MAX_THRESH_NS 100000000
#define NOISE_KEEP 65536 /* detours a CPU keeps for its percentiles */

static const char *const decade_name[NOISE_DECADES] = { "<10us", "<100us", "<1ms", ">=1ms" };

struct noise_opts {
	unsigned threads;
	uint64_t duration_ms, thresh_ns;
	const char *csv;
};

/* the detours of a CPU, or of all of them pooled: how many, their time,
 * the longest, and the same for each decade of length */
struct noise_tally {
	uint64_t detours, lost_ns, max_ns;
	uint64_t decade[NOISE_DECADES], decade_ns[NOISE_DECADES];
};

struct noise_cpu {
	unsigned cpu;
	pthread_barrier_t *start;
	uint64_t duration_ns, thresh_ns;
	uint64_t spun_ns; /* from the first read to the last */
	struct noise_tally n;
	uint32_t *kept; /* the first NOISE_KEEP detours, ns */
	int pin_err;
};

/* the statistics of one row: a CPU, or all of them pooled */
struct noise_row {
	char name[16];
	double seconds;
	struct noise_tally n;
	double mean_ns, p50_ns, p99_ns;
	bool sampled; /* percentiles from the first NOISE_KEEP detours of a CPU */
};

/* one line on stderr, exit status 2 */
#define bad(...) ll_bad("noise", __VA_ARGS__)

/* ------------------------------------------------------------ the loop */

static void note_detour(struct noise_cpu *c, uint64_t d)
{
	struct noise_tally *n = &c->n;
	unsigned k = 0;

	if (n->detours < NOISE_KEEP)
		c->kept[n->detours] = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
	n->detours++;
	n->lost_ns += d;
	if (d > n->max_ns)
		n->max_ns = d;
	while (k < NOISE_DECADES - 1 && d >= noise_decade_top_ns[k])
		k++;
	n->decade[k]++;
	n->decade_ns[k] += d;
}

static void *spin(void *arg)
{
	struct noise_cpu *c = arg;

	c->pin_err = native_pin_self(c->cpu);
	pthread_barrier_wait(c->start);
	uint64_t first = ll_now_ns(), prev = first, end = first + c->duration_ns;

	while (prev < end) {
		uint64_t now = ll_now_ns();

		if (now - prev >= c->thresh_ns)
			note_detour(c, now - prev);
		prev = now;
	}
	c->spun_ns = prev - first;
	return NULL;
}

/* ------------------------------------------------------- the statistics */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* the q-quantile of n sorted values, by the nearest rank: the smallest
 * value with at least q x n of them at or below it */
static double quantile(const uint32_t *v, size_t n, double q)
{
	size_t rank;

	if (!n)
		return 0;
	rank = (size_t)ceil(q * (double)n);
	return v[rank ? (rank <= n ? rank - 1 : n - 1) : 0];
}

static void row_stats(struct noise_row *r, uint32_t *kept, size_t nkept)
{
	qsort(kept, nkept, sizeof(*kept), cmp_u32);
	r->mean_ns = r->n.detours ? (double)r->n.lost_ns / (double)r->n.detours : 0;
	r->p50_ns = quantile(kept, nkept, 0.5);
	r->p99_ns = quantile(kept, nkept, 0.99);
}

static void row_add(struct noise_row *all, const struct noise_cpu *c)
{
	all->seconds += (double)c->spun_ns / 1e9;
	all->n.detours += c->n.detours;
	all->n.lost_ns += c->n.lost_ns;
	if (c->n.max_ns > all->n.max_ns)
		all->n.max_ns = c->n.max_ns;
	for (unsigned k = 0; k < NOISE_DECADES; k++) {
		all->n.decade[k] += c->n.decade[k];
		all->n.decade_ns[k] += c->n.decade_ns[k];
	}
	all->sampled |= c->n.detours > NOISE_KEEP;
}

/* rows[0..n) the CPUs, rows[n] all of them; 0, or -1 out of memory */
static int make_rows(struct noise_cpu *c, unsigned n, struct noise_row *rows)
{
	size_t total = 0, at = 0;
	uint32_t *pool;

	for (unsigned i = 0; i < n; i++)
		total += c[i].n.detours < NOISE_KEEP ? c[i].n.detours : NOISE_KEEP;
	pool = malloc((total ? total : 1) * sizeof(*pool));
	if (!pool)
		return -1;
	memset(&rows[n], 0, sizeof(rows[n]));
	snprintf(rows[n].name, sizeof(rows[n].name), "all");
	for (unsigned i = 0; i < n; i++) {
		size_t k = c[i].n.detours < NOISE_KEEP ? c[i].n.detours : NOISE_KEEP;

		memset(&rows[i], 0, sizeof(rows[i]));
		snprintf(rows[i].name, sizeof(rows[i].name), "%u", c[i].cpu);
		row_add(&rows[i], &c[i]);
		row_stats(&rows[i], c[i].kept, k);
		memcpy(pool + at, c[i].kept, k * sizeof(*pool));
		at += k;
		row_add(&rows[n], &c[i]);
	}
	row_stats(&rows[n], pool, total);
	free(pool);
	return 0;
}

/* ------------------------------------------------------------- output */

static void put_ns(FILE *f, double ns)
{
	if (ns >= 1e6)
		fprintf(f, " %7.2f ms", ns / 1e6);
	else
		fprintf(f, " %7.1f us", ns / 1e3);
}

static double per_s(const struct noise_row *r, uint64_t x)
{
	return r->seconds > 0 ? (double)x / r->seconds : 0;
}

/* a row's seconds are its CPUs' together: the pooled row's rates are per
 * CPU, as the simulator's option is */
static void print_row(const struct noise_row *r)
{
	printf("%-5s %10.1f %6.3f%%", r->name, per_s(r, r->n.detours),
	       r->seconds > 0 ? 100.0 * (double)r->n.lost_ns / (r->seconds * 1e9) : 0);
	put_ns(stdout, r->mean_ns);
	put_ns(stdout, r->p50_ns);
	put_ns(stdout, r->p99_ns);
	put_ns(stdout, (double)r->n.max_ns);
	for (unsigned k = 0; k < NOISE_DECADES; k++)
		printf(" %8.1f", per_s(r, r->n.decade[k]));
	putchar('\n');
}

/* --irq-rate-hz and --irq-us (whole numbers) that lose the time the CPUs
 * lost: the mean detour rounded to a whole us, and the rate that loses the
 * same share with it.  The options' rate is of the gaps between
 * interrupts: R x L / (1 + R x L) of the time is lost (sim/sched_noise.c). */
static void print_irq_options(const struct noise_row *all)
{
	double lost = all->seconds > 0 ? (double)all->n.lost_ns / (all->seconds * 1e9) : 0;
	double us = fmax(1.0, round(all->mean_ns / 1e3));
	double hz = lost < 1 ? round(lost / (1 - lost) * 1e6 / us) : 0;

	if (hz < 1) {
		printf("\nas the simulator's interrupts (docs/variance.md): under one a second of %.0f us: "
		       "none to give (--irq-rate-hz 0)\n", us);
		return;
	}
	printf("\nas the simulator's interrupts (docs/variance.md), the same %.3f%% of the time lost: "
	       "--irq-rate-hz %.0f --irq-us %.0f (the mean detour, %.2f us, to a whole us)\n",
	       100 * lost, hz, us, all->mean_ns / 1e3);
}

static void print_table(const struct noise_opts *o, const struct noise_row *rows, unsigned n)
{
	const struct noise_row *all = &rows[n];
	double stall = per_s(all, all->n.decade[2] + all->n.decade[3]);

	printf("noise: %u CPU%s, a thread pinned to each (as --pin compact), all reading the clock "
	       "for %" PRIu64 " ms at once; a detour: %" PRIu64 " ns or more between two reads\n\n",
	       n, n == 1 ? "" : "s", o->duration_ms, o->thresh_ns);
	printf("%-5s %10s %7s %10s %10s %10s %10s   detours a second, by length\n", "cpu",
	       "detours/s", "lost", "mean", "median", "p99", "longest");
	printf("%-5s %10s %7s %10s %10s %10s %10s", "", "", "", "", "", "", "");
	for (unsigned k = 0; k < NOISE_DECADES; k++)
		printf(" %8s", decade_name[k]);
	putchar('\n');
	for (unsigned i = 0; i <= n; i++)
		print_row(&rows[i]);
	printf("\nall: the CPUs pooled, its rates per CPU.");
	if (all->sampled)
		printf(" A CPU keeps its first %d detours for the median and p99, and the pooled "
		       "ones are of those kept.", NOISE_KEEP);
	print_irq_options(all);
	printf("they all last --irq-us: the %.1f detours a second per CPU of 100 us or more, "
	       "each of which stalls a FIFO lock's queue behind a waiter that is not running, "
	       "are not carried", stall);
	if (o->csv)
		printf("; --noise-from %s carries each decade's rate and mean length", o->csv);
	else
		printf(" (--csv FILE, then --noise-from FILE, carries each decade's rate and mean "
		       "length)");
	putchar('\n');
}


/* A row per CPU and the pooled one; per decade of length, its detours and
 * their time (what `locklab-sim run --noise-from` reads: sim/noise_file.c) */
static void emit_csv(FILE *f, const void *arg)
{
	const struct noise_row *const *rp = arg;
	const struct noise_row *rows = rp[0];
	unsigned n = (unsigned)(rp[1] - rp[0]);

	for (unsigned i = 0; i < sizeof(noise_head_col) / sizeof(noise_head_col[0]); i++)
		fprintf(f, "%s%s", i ? "," : "", noise_head_col[i]);
	for (unsigned k = 0; k < NOISE_DECADES; k++)
		fprintf(f, ",detours_%s,lost_ns_%s", noise_decade_col[k], noise_decade_col[k]);
	fputc('\n', f);
	for (unsigned i = 0; i <= n; i++) {
		const struct noise_row *r = &rows[i];

		fprintf(f, "%s,%.6f,%" PRIu64 ",%" PRIu64 ",%.1f,%.0f,%.0f,%" PRIu64, r->name,
			r->seconds, r->n.detours, r->n.lost_ns, r->mean_ns, r->p50_ns, r->p99_ns,
			r->n.max_ns);
		for (unsigned k = 0; k < NOISE_DECADES; k++)
			fprintf(f, ",%" PRIu64 ",%" PRIu64, r->n.decade[k], r->n.decade_ns[k]);
		fputc('\n', f);
	}
}

/* ------------------------------------------------------------ options */

static const struct ll_opt noise_opts_table[] = {
	LL_VALUE("--threads"), LL_VALUE("--duration"), LL_VALUE("--threshold"), LL_VALUE("--csv"),
	LL_OPTS_END,
};

static void noise_usage(FILE *f)
{
	fprintf(f, "usage: locklab-native noise [--threads N] [--duration MS] [--threshold NS]\n"
		   "              [--csv FILE]  what takes a CPU from a thread that never blocks:\n"
		   "              detours a second and their lengths, per CPU (docs/variance.md);\n"
		   "              defaults: --threads one a PU of this machine, --duration %d,\n"
		   "              --threshold %d\n",
		NOISE_DEFAULT_MS, NOISE_DEFAULT_THRESH_NS);
}

const struct ll_command native_noise_cmd = {
	.name = "noise", .main = native_noise_main, .usage = noise_usage, .opts = noise_opts_table,
};

static int parse_count(const char *opt, const char *val, uint64_t max, uint64_t *out)
{
	return ll_parse_count("noise", opt, val, max, out);
}

/* a thread a CPU: more would measure the sharing of CPUs, not the noise */
static int parse_threads(const char *val, unsigned npus, unsigned *threads)
{
	uint64_t n;

	if (parse_count("--threads", val, 100000, &n))
		return 2;
	if (n > npus)
		return bad("--threads: %" PRIu64 " is more than this machine's %u CPUs (a thread "
			   "a CPU, or the sharing of CPUs is measured, not their noise)", n, npus);
	*threads = (unsigned)n;
	return 0;
}

static int parse_opts(int argc, char **argv, struct noise_opts *o, unsigned npus)
{
	struct ll_args a;
	char err[256];
	int rc;

	memset(o, 0, sizeof(*o));
	o->threads = npus;
	o->duration_ms = NOISE_DEFAULT_MS;
	o->thresh_ns = NOISE_DEFAULT_THRESH_NS;
	ll_args_init(&a, &native_noise_cmd, argc, argv);
	while ((rc = ll_args_next(&a, err, sizeof(err))) == LL_ARG_OPT) {
		if (!*a.val)
			return bad("%s: its value is empty", a.name);
		rc = 0;
		if (!strcmp(a.name, "--csv"))
			o->csv = a.val;
		else if (!strcmp(a.name, "--duration"))
			rc = parse_count(a.name, a.val, NOISE_MAX_MS, &o->duration_ms);
		else if (!strcmp(a.name, "--threshold"))
			rc = parse_count(a.name, a.val, NOISE_MAX_THRESH_NS, &o->thresh_ns);
		else
			rc = parse_threads(a.val, npus, &o->threads);
		if (rc)
			return rc;
	}
	if (rc == LL_ARG_HELP) {
		noise_usage(stdout);
		return 1;
	}
	return rc == LL_ARG_BAD ? bad("%s", err) : 0;
}

/* ----------------------------------------------------------------- main */

static int measure(const struct noise_opts *o, const struct native_machine *m,
		   struct noise_cpu *c, pthread_t *tid)
{
	pthread_barrier_t start;
	unsigned started = 0;
	int rc = 0;

	pthread_barrier_init(&start, NULL, o->threads + 1);
	for (unsigned i = 0; i < o->threads; i++) {
		c[i].cpu = native_pin_compact(m, i); /* --threads is at most the PUs */
		c[i].start = &start;
		c[i].duration_ns = o->duration_ms * 1000000ull;
		c[i].thresh_ns = o->thresh_ns;
		c[i].kept = malloc(NOISE_KEEP * sizeof(uint32_t));
		if (!c[i].kept || pthread_create(&tid[i], NULL, spin, &c[i]))
			break;
		started++;
	}
	if (started < o->threads) { /* the started ones wait at the barrier: end the process */
		fprintf(stderr, "locklab-native: noise: cannot start thread %u\n", started);
		exit(3);
	}
	pthread_barrier_wait(&start);
	for (unsigned i = 0; i < o->threads; i++) {
		pthread_join(tid[i], NULL);
		if (c[i].pin_err && !rc)
			rc = bad("cannot pin a thread to cpu %u: %s", c[i].cpu, strerror(c[i].pin_err));
	}
	pthread_barrier_destroy(&start);
	return rc ? 3 : 0;
}

int native_noise_main(int argc, char **argv)
{
	const struct native_machine *m = native_machine();
	struct noise_opts o;
	struct noise_cpu *c;
	struct noise_row *rows;
	pthread_t *tid;
	char err[600];
	int rc;

	if (!m)
		return bad("cannot read the machine's topology: %s", native_machine_error());
	rc = parse_opts(argc, argv, &o, m->npus);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (o.csv && outfile_check("--csv", o.csv, err, sizeof(err)))
		return bad("%s", err);
	c = calloc(o.threads, sizeof(*c));
	rows = calloc(o.threads + 1, sizeof(*rows));
	tid = calloc(o.threads, sizeof(*tid));
	if (!c || !rows || !tid)
		return bad("%s", "out of memory");
	native_clock_calibrate();
	rc = measure(&o, m, c, tid);
	if (!rc && make_rows(c, o.threads, rows))
		rc = bad("%s", "out of memory");
	if (!rc) {
		const struct noise_row *span[2] = { rows, rows + o.threads };

		print_table(&o, rows, o.threads);
		if (o.csv && write_text_atomic(o.csv, emit_csv, span)) {
			ll_say("noise", "cannot write %s: %s", o.csv, strerror(errno));
			rc = 1;
		} else if (o.csv) {
			printf("wrote %s\n", o.csv);
		}
	}
	for (unsigned i = 0; i < o.threads; i++)
		free(c[i].kept);
	free(c);
	free(rows);
	free(tid);
	return rc;
}
