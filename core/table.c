/*
 * core/table.c - the terminal table.
 *
 * lockperf's shape: a heading per test (lock and parameters), then a row per
 * configuration (backend, topology, threads) with mean, variance, sigma, max
 * and min of the throughput over the runs and, as perf stat prints it, the
 * standard error of the mean as a share of the mean.  Next to them what says
 * whether the throughput is the whole machine's: Jain's index, the threads
 * that never acquired, the share of handoffs inside one socket, the p99 wait.
 * A configuration that starves threads, or is unfair without starving
 * them, gets a line saying so under its row, and in the simulator, where
 * its runs timed every miss exactly, a line with what its lockstep probe
 * found (sim/lockstep.c); the legend under the table is
 * core/table_legend.c's.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/backend.h>
#include <locklab/result.h>
#include <locklab/stats.h>
#include <locklab/workload.h>

#include "table_legend.h"
#include "table_units.h"

#define MAX_RUNS 4096
#define NUM_W 9
#define LABEL_MIN 20

/* What the extra columns and the verdict show of one configuration. */
struct config_sum {
	size_t runs;
	double jain, local, p99; /* means over the runs (jain: of those with acquisitions; local: with handoffs) */
	unsigned starved_min, starved_max, starved_runs, threads;
	/* under --vm: threads whose vCPU never ran, the fewest and the most in a
	 * run, and the runs with any */
	unsigned never_ran_min, never_ran_max, never_ran_runs;
	uint64_t acq_fewest; /* the fewest acquisitions of a run */
	/* the run whose thread of fewest acquisitions made the least share of
	 * its busiest thread's (acq_min / acq_max), and how many runs fell
	 * under UNFAIR_SHARE */
	uint64_t worst_min, worst_max;
	double worst_jain;
	unsigned unfair_runs;
	bool shared_cpus; /* threads that may wait for a cpu: --vm overcommitted */
	/* the longest wait of any run and the waits' mean over the runs that
	 * timed one (NAN: none) */
	double wait_max, wait_mean;
	bool ncs_outlasts;   /* the mean time between acquisitions as long as a run */
	unsigned sockets, served_max; /* sockets with threads; most served in a run */
	bool oversubscribed;
	bool p99_censored; /* in some run, a lower bound (cut-short waits) */
};

static bool same_test(const struct run_result *a, const struct run_result *b)
{
	return !strcmp(a->lock, b->lock) && a->cs_ns == b->cs_ns && a->ncs_ns == b->ncs_ns &&
	       a->ncs_exp == b->ncs_exp && a->cs_lines == b->cs_lines && a->locks == b->locks &&
	       a->read_pct == b->read_pct;
}

static bool same_config(const struct run_result *a, const struct run_result *b)
{
	return same_test(a, b) && !strcmp(a->backend, b->backend) && !strcmp(a->topo, b->topo) &&
	       a->threads == b->threads && a->vm.overcommit == b->vm.overcommit;
}

/* The end of the configuration that starts at row i. */
static size_t config_end(const struct output_set *o, size_t i)
{
	size_t j = i + 1;

	while (j < o->nrows && same_config(&o->rows[j], &o->rows[i]))
		j++;
	return j;
}

/* A run in which some thread made fewer acquisitions than this share of
 * its busiest thread's is called unfair under the row, starved or not
 * (a choice: a twentieth, where Jain's index can still read 0.5 or more
 * when a few threads of many are left behind). */
#define UNFAIR_SHARE 0.05
/* An oversubscribed row's longest wait is said when it is this long (a
 * scheduler's slice is milliseconds) and over ten times its p99. */
#define LONG_WAIT_NS 100e3
/* A wait this long, oversubscribed, is a wait for a CPU: of the order of
 * CFS's minimum granularity (sched_min_granularity_ns: 0.75 ms times
 * 1 + log2 of the CPUs, at most 8 of them; 1.5 ms on 2 CPUs), taken as 1 ms. */
#define CPU_WAIT_NS 1e6

static void summarize_config(const struct run_result *rows, size_t from, size_t to,
			     struct config_sum *c)
{
	size_t nlocal = 0, np99 = 0, njain = 0, nmean = 0;

	memset(c, 0, sizeof(*c));
	c->wait_max = NAN;
	c->runs = to - from;
	c->starved_min = UINT32_MAX;
	c->threads = rows[from].threads;
	for (size_t i = from; i < to; i++) {
		const struct run_result *r = &rows[i];

		if (!isnan(r->jain)) { /* a run that made no acquisition has none */
			c->jain += r->jain;
			njain++;
		}
		if (!isnan(r->wait_p99_ns)) { /* a run that timed no wait has none */
			c->p99 += r->wait_p99_ns;
			np99++;
		}
		if (!isnan(r->wait_mean_ns)) {
			c->wait_mean += r->wait_mean_ns;
			nmean++;
		}
		if (!isnan(r->wait_max_ns) && !(r->wait_max_ns <= c->wait_max))
			c->wait_max = r->wait_max_ns;
		c->p99_censored |= r->wait_p99_censored;
		if (!isnan(r->handoff_local_frac)) {
			c->local += r->handoff_local_frac;
			nlocal++;
		}
		c->starved_min = r->starved < c->starved_min ? r->starved : c->starved_min;
		c->starved_max = r->starved > c->starved_max ? r->starved : c->starved_max;
		c->starved_runs += r->starved > 0;
		if (i == from || r->vm.never_ran < c->never_ran_min)
			c->never_ran_min = r->vm.never_ran;
		if (r->vm.never_ran > c->never_ran_max)
			c->never_ran_max = r->vm.never_ran;
		c->never_ran_runs += r->vm.never_ran > 0;
		if (i == from || r->acquisitions < c->acq_fewest)
			c->acq_fewest = r->acquisitions;
		if (r->acq_max && (!c->worst_max || (double)r->acq_min / (double)r->acq_max <
						     (double)c->worst_min / (double)c->worst_max)) {
			c->worst_min = r->acq_min;
			c->worst_max = r->acq_max;
			c->worst_jain = r->jain;
		}
		c->shared_cpus |= r->vm.has_vm && r->vm.overcommit > 1;
		c->unfair_runs += r->acq_max && (double)r->acq_min < UNFAIR_SHARE * (double)r->acq_max;
		c->sockets = r->sockets > c->sockets ? r->sockets : c->sockets;
		c->served_max = r->sockets_served > c->served_max ? r->sockets_served : c->served_max;
		c->oversubscribed |= r->oversubscribed;
		c->ncs_outlasts |= (double)r->ncs_ns >= r->duration_s * 1e9;
	}
	c->jain = njain ? c->jain / (double)njain : NAN;
	c->p99 = np99 ? c->p99 / (double)np99 : NAN;
	c->wait_mean = nmean ? c->wait_mean / (double)nmean : NAN;
	c->local = nlocal ? c->local / (double)nlocal : NAN;
}

static void config_label(const struct run_result *r, bool mark, char *buf, size_t len)
{
	if (r->vm.has_vm)
		snprintf(buf, len, "%s %s t=%u%s x%.2f", r->backend, r->topo, r->threads,
			 mark ? "*" : "", r->vm.overcommit);
	else
		snprintf(buf, len, "%s %s t=%u%s", r->backend, r->topo, r->threads, mark ? "*" : "");
}

/* The widest row label of the whole table, so that every column lines up. */
static int label_width(const struct output_set *o)
{
	char label[192];
	int w = LABEL_MIN;

	for (size_t i = 0; i < o->nrows; i++) {
		config_label(&o->rows[i], o->rows[i].oversubscribed, label, sizeof(label));
		if ((int)strlen(label) > w)
			w = (int)strlen(label);
	}
	return w;
}

/* A heading's unit: that of the largest mean throughput of its rows (a row
 * two orders of magnitude below it prints more decimals, row_decimals). */
static struct rate_unit rate_unit_of(const struct output_set *o, size_t from)
{
	double most = 0;

	for (size_t i = from, j; i < o->nrows && same_test(&o->rows[from], &o->rows[i]); i = j) {
		double sum = 0;

		j = config_end(o, i);
		for (size_t k = i; k < j; k++)
			sum += o->rows[k].throughput_per_s;
		if (sum / (double)(j - i) > most)
			most = sum / (double)(j - i);
	}
	return table_rate_unit(most);
}

static void table_heading(FILE *f, const struct run_result *r, int w, struct rate_unit u)
{
	fprintf(f, "\n%s  cs=%lluns ncs=%s%lluns cs-lines=%u locks=%u", r->lock,
		(unsigned long long)r->cs_ns, r->ncs_exp ? "exp:" : "", (unsigned long long)r->ncs_ns,
		r->cs_lines, r->locks);
	if (r->is_rwlock)
		fprintf(f, " read-pct=%u", r->read_pct);
	fprintf(f, "   (throughput, %s)\n", u.name);
	fprintf(f, "%-*s %*s %*s %*s %*s %*s%15s  %6s %7s %6s %9s\n", w, "", NUM_W, "mean", NUM_W,
		"variance", NUM_W, "sigma", NUM_W, "max", NUM_W, "min", "", "jain", "starved", "local",
		"wait p99");
}

/* Decimals of a row's throughput columns: four, or as many as show its
 * mean to three significant digits when it is below 0.01 of the heading's
 * unit (a row far below the heading's largest), within the column. */
static int row_decimals(double mean)
{
	int d = 4;

	while (mean > 0 && mean < 0.01 && d < NUM_W - 2) {
		mean *= 10;
		d++;
	}
	return d;
}

/* Throughput of rows [from, to): the lockperf columns and perf stat's +-;
 * asked: the runs the configuration asked for (one row left of several:
 * the others failed or the sweep was stopped). */
static void throughput_cells(FILE *f, const struct run_result *rows, size_t from, size_t to,
			     unsigned asked, struct rate_unit u)
{
	static double x[MAX_RUNS];
	struct ll_summary s;
	char one[48];
	size_t n = 0;
	int d;

	for (size_t i = from; i < to && n < MAX_RUNS; i++)
		x[n++] = rows[i].throughput_per_s / u.div;
	ll_summarize(x, n, &s);
	d = row_decimals(s.mean);
	if (n == 1) {
		if (asked > 1)
			snprintf(one, sizeof(one), "(1 of %u runs: no variance)", asked);
		else
			snprintf(one, sizeof(one), "(single run: no variance)");
		fprintf(f, " %*.*f  %-*s", NUM_W, d, s.mean, 4 * (NUM_W + 1) + 13, one);
		return;
	}
	/* the variance in the unit squared, in powers of ten: four decimals would
	 * print 0.0000 beside a sigma that is not zero */
	fprintf(f, " %*.*f %*.2e %*.*f %*.*f %*.*f", NUM_W, d, s.mean, NUM_W, s.variance, NUM_W, d,
		s.sigma, NUM_W, d, s.max, NUM_W, d, s.min);
	if (s.mean > 0)
		fprintf(f, "  ( +- %5.2f%% )", 100.0 * s.sem / s.mean);
	else
		fprintf(f, "%15s", "");
}

static void table_row(FILE *f, const struct run_result *rows, size_t from, size_t to,
		      const struct config_sum *c, int w, unsigned asked, struct rate_unit u)
{
	char label[192], starved[32], local[16], p99[32], jain[16];
	size_t n;

	config_label(&rows[from], c->oversubscribed, label, sizeof(label));
	fprintf(f, "%-*s", w, label);
	throughput_cells(f, rows, from, to, asked, u);
	snprintf(starved, sizeof(starved), "%u/%u", c->starved_max, c->threads);
	if (isnan(c->local))
		snprintf(local, sizeof(local), "-");
	else
		snprintf(local, sizeof(local), "%.1f%%", 100.0 * c->local);
	n = c->p99_censored ? 2 : 0;
	memcpy(p99, ">=", n);
	table_format_ns(c->p99, p99 + n, sizeof(p99) - n);
	/* Jain's index of all zeros is 1 by its formula: no acquisition, no index */
	if (c->served_max)
		snprintf(jain, sizeof(jain), "%6.4f", c->jain);
	else
		snprintf(jain, sizeof(jain), "-");
	fprintf(f, "  %6s %7s %6s %9s\n", jain, starved, local, p99);
}

/* Under a configuration whose runs left threads without the lock: how
 * many, and, when no run served every socket, how many sockets it did. */
static void table_verdict(FILE *f, const struct config_sum *c)
{
	if (c->oversubscribed && !isnan(c->wait_max) && c->wait_max > 10 * c->p99 &&
	    c->wait_max >= LONG_WAIT_NS) {
		char longest[32], mean[32];

		table_format_ns(c->wait_max, longest, sizeof(longest));
		table_format_ns(c->wait_mean, mean, sizeof(mean));
		fprintf(f, "  ! longest wait %s (the waits' mean %s): with more threads than CPUs, "
			   "the waits for a CPU lie above wait p99\n", longest, mean);
	} else if (c->oversubscribed && !isnan(c->p99) && c->p99 >= CPU_WAIT_NS) {
		char p99[32];

		table_format_ns(c->p99, p99, sizeof(p99));
		fprintf(f, "  ! wait p99 %s: with more threads than CPUs, a scheduler's time slice "
			   "or more: the p99 is a wait for a CPU, not for the lock alone\n", p99);
	}
	if (!c->starved_max && c->unfair_runs) {
		fprintf(f, "  ! unfair: in %u of %zu run%s a thread made under %.0f%% of the busiest "
			   "one's acquisitions (at worst %" PRIu64 " against %" PRIu64 ", that run's "
			   "Jain %.2f)%s\n",
			c->unfair_runs, c->runs, c->runs == 1 ? "" : "s", 100 * UNFAIR_SHARE,
			c->worst_min, c->worst_max, c->worst_jain,
			c->shared_cpus || c->oversubscribed
				? "; threads also waited for a cpu (the scheduler then sets each "
				  "thread's share, not the lock alone: compare a run with a cpu for "
				  "each thread)"
				: "");
		return;
	}
	if (!c->starved_max)
		return;
	if (!c->served_max) { /* Jain's index of all zeros says nothing */
		fprintf(f, "  ! no thread acquired the lock in any run: the throughput is zero%s\n",
			c->ncs_outlasts ? "; the mean time between acquisitions (--ncs) is as long as "
					  "a run: a longer --duration tells" : "");
		return;
	}
	if (c->starved_min == c->starved_max)
		fprintf(f, "  ! %u of %u threads", c->starved_max, c->threads);
	else if (!c->starved_min)
		fprintf(f, "  ! up to %u of %u threads", c->starved_max, c->threads);
	else
		fprintf(f, "  ! %u to %u of %u threads", c->starved_min, c->starved_max, c->threads);
	fprintf(f, " never acquired the lock (");
	if (c->starved_min != c->starved_max && !c->starved_min)
		fprintf(f, "in %u of %zu runs; ", c->starved_runs, c->runs);
	fprintf(f, "Jain %.2f)", c->jain);
	if (c->never_ran_max && c->never_ran_min == c->never_ran_max) /* the host's doing */
		fprintf(f, "; %u of them never ran (their vCPUs waited for a pCPU all run): a "
			   "longer --duration tells, and the throughput is the others'",
			 c->never_ran_max);
	else if (c->never_ran_max) /* some runs' starvation is the host's, some the lock's */
		fprintf(f, "; in %u of %zu runs up to %u of them never ran (their vCPUs waited for a "
			   "pCPU all run): a longer --duration tells",
			 c->never_ran_runs, c->runs, c->never_ran_max);
	else if (c->acq_fewest < c->threads) /* fewer than one each: no lock could serve all */
		fprintf(f, "; but a run made %" PRIu64 " acquisitions for %u threads: too short to "
			   "give each one, whatever the lock (a longer --duration tells)",
			 c->acq_fewest, c->threads);
	else if (c->served_max == 1 && c->sockets > 1)
		fprintf(f, "; in each run only one socket's threads got it: the throughput is theirs");
	else if (c->served_max < c->sockets)
		fprintf(f, "; in each run the threads of at most %u of the %u sockets got it: the "
			   "throughput is theirs", c->served_max, c->sockets);
	else if (c->shared_cpus || c->oversubscribed)
		fprintf(f, "; threads also waited for a cpu (the scheduler then sets each "
			   "thread's share, not the lock alone: compare a run with a cpu for each "
			   "thread)");
	fputc('\n', f);
}

bool lockstep_fair(const struct lockstep_probe *p)
{
	return !p->starved && p->jain >= LOCKSTEP_FAIR_JAIN &&
	       (double)p->min >= UNFAIR_SHARE * (double)p->max;
}

int lockstep_reading(double jain, unsigned starved, const struct lockstep_probe *p)
{
	if (!p->spread_pct || (!starved && jain >= LOCKSTEP_FAIR_JAIN))
		return 0;
	return lockstep_fair(p) ? 1 : 2;
}

/* Does the table say a '!' line of starved threads or unfairness under c? */
static bool config_unfair(const struct config_sum *c)
{
	return c->starved_max ? c->served_max != 0 : c->unfair_runs != 0;
}

static const struct lockstep_probe *probe_of(const struct output_set *o,
					     const struct run_result *r)
{
	for (size_t k = 0; k < o->nprobes; k++)
		if (!strcmp(o->probes[k].lock, r->lock) && o->probes[k].threads == r->threads &&
		    o->probes[k].overcommit == r->vm.overcommit)
			return &o->probes[k];
	return NULL;
}

void output_probe_unfair(struct output_set *o,
			 int (*probe)(const struct wl_config *, const struct run_result *,
				      struct lockstep_probe *))
{
	for (size_t i = 0, j; i < o->nrows; i = j) {
		struct config_sum c;
		struct lockstep_probe p, *more;

		j = config_end(o, i);
		summarize_config(o->rows, i, j, &c);
		if (!config_unfair(&c) || !o->cfg || !probe(o->cfg, &o->rows[i], &p))
			continue;
		more = realloc(o->probes, (o->nprobes + 1) * sizeof(*more));
		if (!more)
			return; /* the table says less, nothing wrong */
		o->probes = more;
		o->probes[o->nprobes++] = p;
	}
}

const char *lockstep_said(const struct lockstep_probe *p, char *buf, size_t len)
{
	snprintf(buf, len, "with each miss within %u%% of its latency (one more run, --lat-spread %u; "
		 "the %u%% and a fair Jain >= %.1f assumed): Jain %.3f, %u of %u never acquired it: %s",
		 p->spread_pct, p->spread_pct, p->spread_pct, LOCKSTEP_FAIR_JAIN, p->jain, p->starved,
		 p->threads,
		 lockstep_fair(p) ? "the runs' exact latencies put their threads in step (the "
				    "model's lockstep, not the lock's)"
				  : "unfair with it too");
	return buf;
}

/* Under an unfair configuration's '!' line: what its lockstep probe found. */
static void table_probe_line(FILE *f, const struct output_set *o, const struct run_result *r,
			     const struct config_sum *c)
{
	const struct lockstep_probe *p = probe_of(o, r);
	char said[LOCKSTEP_SAID_MAX];

	if (p && config_unfair(c))
		fprintf(f, "  ! %s\n", lockstep_said(p, said, sizeof(said)));
}

/* One side's p99 and max over rows [from, to): the mean of the runs that
 * timed a wait of that side and the largest of any ("-" with none); ">="
 * where some run's p99 is only a lower bound, as on the row's own line,
 * and where the largest is a wait the run's end cut short. */
struct side_waits {
	double p99, max;
	unsigned n;
	bool censored, max_censored;
};

/* A run's waits of one side: its p99 (censored: a lower bound), its max
 * (max_censored: a wait the run's end cut short, the run's longest). */
static void side_add(struct side_waits *w, double p99, double max, bool censored,
		     bool max_censored)
{
	if (isnan(p99))
		return;
	w->p99 += p99;
	if (max > w->max || w->n == 0)
		w->max_censored = max_censored;
	else if (max == w->max)
		w->max_censored |= max_censored;
	w->max = fmax(w->max, max);
	w->n++;
	w->censored |= censored;
}

/* A side's p99 or max in the unit that keeps it short, as the row's. */
static const char *side_text(const struct side_waits *w, bool max, char *buf)
{
	bool lower = max ? w->max_censored : w->censored;

	if (!w->n)
		return "-";
	strcpy(buf, lower ? ">=" : "");
	table_format_ns(max ? w->max : w->p99 / w->n, buf + strlen(buf), 38);
	return buf;
}

/* rwlocks: reads and writes of rows [from, to) on their own lines, so that
 * writer starvation shows: throughput and wait p99 are means over the runs
 * (the p99 over those that timed a wait of that side), the wait max is the
 * largest of any run. */
static void table_rw_lines(FILE *f, const struct run_result *rows, size_t from, size_t to, int w)
{
	struct side_waits rs = { 0 }, ws = { 0 };
	struct rate_unit ur, uw;
	double rd = 0, wr = 0;
	unsigned overlap = 0;
	size_t n = to - from;
	char b[4][40];

	for (size_t i = from; i < to; i++) {
		const struct run_result *r = &rows[i];
		double s = r->duration_s > 0 ? r->duration_s : NAN;

		rd += (double)r->reads / s;
		wr += (double)r->writes / s;
		side_add(&rs, r->read_wait_p99_ns, r->read_wait_max_ns, r->read_wait_p99_censored,
			 r->read_wait_max_censored);
		side_add(&ws, r->write_wait_p99_ns, r->write_wait_max_ns, r->write_wait_p99_censored,
			 r->write_wait_max_censored);
		if (r->readers_overlap_max > overlap)
			overlap = r->readers_overlap_max;
	}
	ur = table_rate_unit(rd / n); /* each side its own: writes may be rare */
	uw = table_rate_unit(wr / n);
	fprintf(f, "%-*s %*.4f %-6s  wait p99 %12s  max %12s  overlap at least %u\n", w,
		"    reads", NUM_W, rd / n / ur.div, ur.name, side_text(&rs, false, b[0]),
		side_text(&rs, true, b[1]), overlap);
	fprintf(f, "%-*s %*.4f %-6s  wait p99 %12s  max %12s\n", w, "    writes", NUM_W,
		wr / n / uw.div, uw.name, side_text(&ws, false, b[2]), side_text(&ws, true, b[3]));
}

/* A count's mean over runs: below 10 to a tenth (one event in three runs
 * reads 0.3, not 0; fewer than one in twenty, <0.1), else whole. */
static const char *count_text(double x, char *buf)
{
	if (x > 0 && x < 0.05)
		snprintf(buf, 32, "<0.1");
	else
		snprintf(buf, 32, x == floor(x) || x >= 9.95 ? "%.0f" : "%.1f", x);
	return buf;
}

/* --vm: the figures of rows [from, to) that explain the row, as means over
 * the runs (the simulator's hypervisor knows the phase; natively there
 * are the context switches and the parks). */
static void table_vm_line(FILE *f, const struct run_result *rows, size_t from, size_t to, int w)
{
	double pre = 0, hold = 0, wait = 0, hl = 0, wl = 0, halts = 0, kicks = 0, ple = 0, yields = 0;
	double wake_ps = 0, wakes = 0;
	size_t n = to - from;
	const struct vm_counters *v0 = &rows[from].vm;
	char c[6][32];

	for (size_t i = from; i < to; i++) {
		const struct vm_counters *v = &rows[i].vm;

		pre += (double)v->preemptions;
		hold += (double)v->holder_preemptions;
		wait += (double)v->waiter_preemptions;
		hl += isnan(rows[i].holder_lost_ns_per_acq) ? 0 : rows[i].holder_lost_ns_per_acq;
		wl += isnan(rows[i].waiter_lost_ns_per_acq) ? 0 : rows[i].waiter_lost_ns_per_acq;
		halts += (double)v->halts;
		kicks += (double)v->kicks;
		ple += (double)v->ple_exits;
		yields += (double)v->ple_yields;
		wake_ps += (double)v->wake_ps;
		wakes += (double)v->wakes;
	}
	if (v0->has_sched)
		fprintf(f, "%-*s pcpus %-3u per run: preempted holding %s (%.1f ns/acq) waiting %s "
			   "(%.1f ns/acq)  ple exits %s (%s yielded)  halts %s  kicks %s",
			w, "    vm", v0->pcpus, count_text(hold / n, c[0]), hl / n,
			count_text(wait / n, c[1]), wl / n, count_text(ple / n, c[2]),
			count_text(yields / n, c[5]), count_text(halts / n, c[3]),
			count_text(kicks / n, c[4]));
	else
		fprintf(f, "%-*s cpus %-3u per run: involuntary switches %s  halts %s  kicks %s", w,
			"    vm", v0->pcpus, count_text(pre / n, c[0]), count_text(halts / n, c[1]),
			count_text(kicks / n, c[2]));
	if (wakes > 0) {
		char mean[32];

		table_format_ns(wake_ps / wakes / 1000.0, mean, sizeof(mean));
		fprintf(f, "  wake %s", mean);
	}
	fputc('\n', f);
}

/* In the simulator, a configuration whose sleeping threads woke from an
 * idle state (sim/idle.c): how often a run, and the exit each paid; true
 * when it printed the line. */
static bool table_idle_line(FILE *f, const struct run_result *rows, size_t from, size_t to, int w)
{
	double wakes = 0, exit_ps = 0;
	char c[32];

	for (size_t i = from; i < to; i++) {
		wakes += (double)sim_idle_wakes(&rows[i].sim);
		exit_ps += (double)rows[i].sim.idle_exit_ps;
	}
	if (!wakes)
		return false;
	fprintf(f, "%-*s per run: %s wake-ups from an idle state, %.1f us exit latency on average\n",
		w, "    idle", count_text(wakes / (double)(to - from), c), exit_ps / wakes / 1e6);
	return true;
}

/* A lock that counts its own paths (ll_count): each count per acquisition,
 * the mean over the runs that acquired; true when it printed the line. */
static bool table_counts_line(FILE *f, const struct run_result *rows, size_t from, size_t to,
			      int w)
{
	const struct lock_algo *a = lock_find(rows[from].lock);
	unsigned n = rows[from].ncounts, runs = 0;
	double per[LL_MAX_COUNTS] = { 0 };

	for (size_t i = from; a && n && i < to; i++) {
		if (!rows[i].acquisitions || rows[i].ncounts != n)
			continue;
		for (unsigned k = 0; k < n; k++)
			per[k] += (double)rows[i].counts[k] / (double)rows[i].acquisitions;
		runs++;
	}
	if (!runs)
		return false;
	fprintf(f, "%-*s per acquisition:", w, "    counts");
	for (unsigned k = 0; k < n; k++)
		fprintf(f, "%s %s %.3g", k ? "," : "", a->counts[k], per[k] / runs);
	fputc('\n', f);
	return true;
}

static bool is_refcount(const struct run_result *r)
{
	const struct lock_algo *a = lock_find(r->lock);

	return a && a->kind == LOCK_REFCOUNT;
}

/* What the figures depend on beyond the headings and the rows; a shard
 * says it is one part of its sweep. */
void output_table_settings(FILE *f, const struct output_set *o)
{
	const struct wl_config *cfg = o->cfg;
	char more[2048]; /* the assumed line: up to twice a topology's 511-character list */
	char length[64];

	if (cfg->ops) /* what ends a run: the rows' rates rest on it (under --vm, its slices) */
		snprintf(length, sizeof(length), "%llu acquisitions a thread",
			 (unsigned long long)cfg->ops);
	else
		snprintf(length, sizeof(length), "%llu ms%s", (unsigned long long)cfg->duration_ms,
			 strcmp(backend_name, "native") ? " of simulated time" : "");
	backend_settings(cfg, more, sizeof(more));
	fprintf(f, "settings: pin %s, lock home %s, seed %llu, %u run%s of %s%s\n", cfg->pin_text,
		wl_lock_home_name(cfg->lock_home), (unsigned long long)cfg->seed, cfg->runs,
		cfg->runs == 1 ? "" : "s", length, more);
	backend_assumed(cfg, more, sizeof(more));
	if (*more)
		fprintf(f, "%s\n", more);
	if (o->nshards)
		fprintf(f, "--shard %u/%u: these rows are one of the sweep's %u shards (merge joins "
			"the shards' CSVs)\n", o->shard, o->nshards, o->nshards);
	if (o->runs_done < o->runs_planned)
		fprintf(f, "stopped early: %zu of %zu runs done; the rows are those runs'\n",
			o->runs_done, o->runs_planned);
}

/* A row of fewer runs than its configuration asked for (of one run, the
 * row says so itself). */
static void table_runs_left(FILE *f, size_t n, unsigned asked)
{
	if (n > 1 && n < asked)
		fprintf(f, "  ! the figures of %zu of %u runs: the others failed or did not run\n",
			n, asked);
}

void output_table(FILE *f, const struct output_set *o)
{
	int w = label_width(o);
	bool over = false, many = false, idle = false;
	struct legend_kinds kinds = { false, false, false, false, false, false, false, false };
	struct rate_unit u = { 1e6, "Macq/s" };

	if (o->nrows && o->cfg)
		output_table_settings(f, o);
	kinds.ops = o->cfg && o->cfg->ops;

	for (size_t i = 0, j; i < o->nrows; i = j) {
		const struct run_result *r = &o->rows[i];
		struct config_sum c;

		if (i == 0 || !same_test(&o->rows[i - 1], r)) {
			u = rate_unit_of(o, i);
			table_heading(f, r, w, u);
		}
		j = config_end(o, i);
		summarize_config(o->rows, i, j, &c);
		over |= c.oversubscribed;
		many |= j - i > 1;
		table_row(f, o->rows, i, j, &c, w, o->cfg ? o->cfg->runs : 1, u);
		kinds.rwlock |= r->is_rwlock;
		kinds.refcount |= is_refcount(r);
		if (r->is_rwlock)
			table_rw_lines(f, o->rows, i, j, w);
		kinds.vm |= r->vm.has_vm;
		kinds.vm_sched |= r->vm.has_vm && r->vm.has_sched;
		if (r->vm.has_vm)
			table_vm_line(f, o->rows, i, j, w);
		else if (r->sim.has_sim)
			idle |= table_idle_line(f, o->rows, i, j, w);
		kinds.counts |= table_counts_line(f, o->rows, i, j, w);
		table_runs_left(f, j - i, o->cfg ? o->cfg->runs : 1);
		table_verdict(f, &c);
		table_probe_line(f, o, r, &c);
		kinds.fixed_ncs_starved |= r->sim.has_sim && !r->ncs_exp && c.starved_max &&
					   c.served_max;
		kinds.pv_alone |= !r->vm.has_vm && !strncmp(r->lock, "pv-", 3);
	}
	if (o->nrows)
		table_legend(f, over, many, idle, kinds);
	if (o->nrows && o->cfg && o->cfg->time_every > 1)
		fprintf(f, "waits: estimates from one acquisition in %u, timed (--time-every), and "
			   "each thread's first.\n", o->cfg->time_every);
}
