/*
 * sim/report/explain.c - `locklab-sim explain`: run one configuration with
 * the ledger armed (ledger.c) and print where the handoff time went, as a
 * table or CSV (docs/graphs.md defines every figure).  The options come
 * parsed by core/explain_cli.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <locklab/backend.h>
#include <locklab/result.h>

#include "../lockstep.h"
#include "../sim.h"
#include "../switches.h"
#include "explain.h"
#include "report.h"

/* The probe's reading (lockstep_reading, core/table.c), where there is one. */
static int probe_reading(const struct xp_report *r)
{
	return lockstep_reading(r->jain, r->starved, &r->probe);
}

/* One run of the configuration, as core/main.c makes it; exits 3 when it
 * fails, as `run` does. */
static void explain_one(const struct wl_config *cfg, unsigned r)
{
	struct wl_run run;
	int rc = sim_run_one(cfg, cfg->algos[0], cfg->threads[0], r, &run);

	if (rc < 0) {
		fprintf(stderr, "locklab-sim: out of memory\n");
		exit(1);
	}
	if (rc) {
		fprintf(stderr, "locklab-sim: %s\n", run.failure[0] ? run.failure : "run failed");
		fflush(NULL);
		_exit(3);
	}
	sim_run_free(&run);
}

static const char *part_key(unsigned p, char *buf, size_t len)
{
	static const char *const keys[] = {
		[XP_IDLE] = "lock_free", [XP_QUEUE] = "queue", [XP_INVAL] = "invalidation",
		[XP_LINK] = "link",   [XP_DATA] = "data",   [XP_LOCAL] = "local",
		[XP_BACKOFF] = "backoff", [XP_PARK] = "park", [XP_STOREBUF] = "storebuf", [XP_OTHER] = "other",
		[XP_HOME] = "home_agent", [XP_IDLE_EXIT] = "idle_exit", [XP_IRQ] = "interrupts",
	};

	if (p >= XP_XFER && p < XP_XFER + TOPO_MAX_CLASSES) {
		snprintf(buf, len, "transfer_class%u", p - XP_XFER);
		return buf;
	}
	return keys[p];
}

static const char *part_name(unsigned p, char *buf, size_t len)
{
	static const char *const names[] = {
		[XP_IDLE] = "lock free, nobody waiting",
		[XP_QUEUE] = "queueing on the line (the herd)",
		[XP_INVAL] = "invalidation fan-out",
		[XP_LINK] = "link congestion",
		[XP_DATA] = "protected data migration",
		[XP_LOCAL] = "local work (hits, pauses)",
		[XP_BACKOFF] = "backoff delays",
		[XP_PARK] = "halt, kick and wake-up",
		[XP_STOREBUF] = "store-buffer stall",
		[XP_OTHER] = "waits not traced further",
		[XP_HOME] = "home-agent queueing",
		[XP_IDLE_EXIT] = "leaving an idle state (C-state exit)",
		[XP_IRQ] = "interrupts (--irq-*, --noise-from)",
	};
	unsigned k = p - XP_XFER;

	if (p >= XP_XFER && p < XP_XFER + TOPO_MAX_CLASSES) {
		if (k == 0)
			snprintf(buf, len, "line transfer, same socket");
		else
			snprintf(buf, len, "line transfer, class %u (%.0f ns of link)", k,
				 (double)sim.topo.class_lat_ps[k] / 1000);
		return buf;
	}
	return names[p];
}

/* Printed always: the causes the question names; the rest when present. */
static bool part_shown(unsigned p, const struct xp_report *r)
{
	if (p >= XP_XFER && p < XP_XFER + TOPO_MAX_CLASSES)
		return p - XP_XFER < sim.topo.nclasses;
	if (p >= XP_QUEUE && p <= XP_LOCAL)
		return true;
	return r->part_ns[p] > 0;
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

/* The largest cause, with the line transfers counted together. */
static void verdict(FILE *f, const struct xp_report *r)
{
	double xfer = 0, best = -1;
	unsigned bp = XP_OTHER;
	char buf[96];

	for (unsigned k = 0; k < TOPO_MAX_CLASSES; k++)
		xfer += r->part_ns[XP_XFER + k];
	for (unsigned p = 0; p < XP_NPARTS; p++)
		if ((p < XP_XFER || p >= XP_XFER + TOPO_MAX_CLASSES) && r->part_ns[p] > best) {
			best = r->part_ns[p];
			bp = p;
		}
	fprintf(f, "in short: ");
	if (xfer > best)
		fprintf(f, "moving the lock's lines between caches takes %.0f%% of the handoff time",
			pct(xfer, r->handoff_ns));
	else
		fprintf(f, "%s takes %.0f%% of the handoff time", part_name(bp, buf, sizeof(buf)),
			pct(best, r->handoff_ns));
	if (r->random_local_frac > 0 && r->local_frac > 1.5 * r->random_local_frac)
		fprintf(f, "; the lock stays inside one socket %.1fx as often as a random next holder "
			   "would", r->local_frac / r->random_local_frac);
	if (r->starved)
		fprintf(f, "; %u of %u threads never got it%s", r->starved, r->threads,
			r->runs > 1 ? " (the most in one run)" : "");
	if (probe_reading(r) == 1)
		fprintf(f, "; with each miss within %u%% of its latency the threads share it (Jain "
			   "%.3f): the model's lockstep, not the lock's own unfairness",
			r->probe.spread_pct, r->probe.jain);
	else if (probe_reading(r) == 2)
		fprintf(f, "; with each miss within %u%% of its latency it stays unfair (Jain %.3f, "
			   "%u never got it)", r->probe.spread_pct, r->probe.jain, r->probe.starved);
	fprintf(f, ".\n");
}

static const char *const line_names[XP_NLINES] = {
	[XP_LINE_LOCK] = "lock word", [XP_LINE_NODE] = "queue nodes",
	[XP_LINE_DATA] = "protected data", [XP_LINE_OTHER] = "other",
};

static const char *const line_keys[XP_NLINES] = {
	[XP_LINE_LOCK] = "lock", [XP_LINE_NODE] = "node",
	[XP_LINE_DATA] = "data", [XP_LINE_OTHER] = "other",
};

/* misses_per_acq split by what the missed line holds. */
static void print_line_misses(FILE *f, const struct xp_report *r)
{
	fprintf(f, "misses per acquisition by line: lock word, queue nodes, protected data, other\n");
	for (unsigned i = 0; i < XP_NLINES; i++)
		fprintf(f, "  %-16s %8.2f\n", line_names[i], r->line_misses_per_acq[i]);
	fputc('\n', f);
}

/* The share of the acquisitions the lock went to another thread for: as
 * run's CSV's handoff_frac, from the workload's own counts. */
static double handoff_frac(const struct xp_report *r)
{
	return r->acquisitions ? (double)r->wl_handoffs / (double)r->acquisitions : NAN;
}

/* What ends a run: its simulated length, or the acquisitions of each thread. */
static const char *run_length(const struct wl_config *cfg, char *buf, size_t len)
{
	if (cfg->ops)
		snprintf(buf, len, "%llu acquisitions per thread", (unsigned long long)cfg->ops);
	else
		snprintf(buf, len, "%llu ms of simulated time", (unsigned long long)cfg->duration_ms);
	return buf;
}

static void print_table(FILE *f, const struct wl_config *cfg, const struct xp_report *r)
{
	char buf[96], more[1024], rate[48];

	backend_settings(cfg, more, sizeof(more)); /* ", memory model ..., idle states ..." */
	fprintf(f, "explain: %s on %s, %u threads (pin %s), cs %llu ns, ncs %s%llu ns, cs-lines %u, "
		   "seed %llu, %u run%s of %s\n         lock home %s%s\n",
		cfg->algos[0]->name, sim.topo.name, cfg->threads[0], cfg->pin_text,
		(unsigned long long)cfg->cs_ns, cfg->ncs_exp ? "exp:" : "",
		(unsigned long long)cfg->ncs_ns, cfg->cs_lines, (unsigned long long)cfg->seed, r->runs,
		r->runs == 1 ? "" : "s", run_length(cfg, buf, sizeof(buf)),
		wl_lock_home_name(cfg->lock_home), more);
	backend_assumed(cfg, more, sizeof(more));
	if (*more)
		fprintf(f, "         %s\n", more);
	fputc('\n', f);
	output_rate_text(r->throughput_per_s, rate, sizeof(rate));
	if (r->runs > 1)
		snprintf(buf, sizeof(buf), " (over the %u runs)", r->runs);
	fprintf(f, "throughput %s%s; %llu handoff%s between threads%s\n\n", rate,
		r->runs > 1 ? buf : "", (unsigned long long)r->handoffs,
		r->handoffs == 1 ? "" : "s", r->runs > 1 ? " in them" : "");
	if (!r->handoffs) {
		if (r->acquisitions && r->starved)
			fprintf(f, "no handoff between two threads: %s one thread took every "
				   "acquisition, the other %u never got the lock (Jain %.3f); the "
				   "unfairness is total and there is no handoff to explain\n",
				r->runs > 1 ? "in each run" : "in the run", r->starved, r->jain);
		else
			fprintf(f, "no handoff between two threads: nothing to explain\n");
		if (r->acquisitions && r->starved && r->probe.spread_pct)
			fprintf(f, "with each miss within %u%% of its latency (one more run, "
				   "--lat-spread %u): Jain %.3f, %u of %u never got it\n",
				r->probe.spread_pct, r->probe.spread_pct, r->probe.jain,
				r->probe.starved, r->threads);
		return;
	}
	fprintf(f, "handoff time %10.1f ns  (end of one critical section -> start of the next\n"
		   "                           holder's; docs/graphs.md)\n",
		r->handoff_ns);
	fprintf(f, "  release -> acquisition       %10.1f ns\n", r->acquire_ns);
	fprintf(f, "  acquisition -> data in place %10.1f ns\n\n", r->handoff_ns - r->acquire_ns);
	fprintf(f, "%-42s %10s %7s\n", "where it went", "ns", "share");
	for (unsigned p = 0; p < XP_NPARTS; p++)
		if (part_shown(p, r))
			fprintf(f, "  %-40s %10.1f %6.1f%%\n", part_name(p, buf, sizeof(buf)),
				r->part_ns[p], pct(r->part_ns[p], r->handoff_ns));
	fprintf(f, "  %-40s %10.1f %6.1f%%  (the handoff time %.1f ns)\n", "sum of the parts", r->parts_sum_ns,
		pct(r->parts_sum_ns, r->handoff_ns), r->handoff_ns);
	if (r->gap_ns >= 0.05) /* a hook the ledger lacks shows, not vanishes */
		fprintf(f, "  %-40s %10.1f %6.1f%%  (not in the sum)\n", "time no part covers",
			r->gap_ns, pct(r->gap_ns, r->handoff_ns));
	fputc('\n', f);
	fprintf(f, "unfairness\n");
	fprintf(f, "  handoffs inside one socket  %5.1f%%  (a random next holder's share %.1f%%%s)\n",
		100 * r->local_frac, 100 * r->random_local_frac, r->runs > 1 ? "; of all the runs' handoffs together" : "");
	if (r->longest_socket_run)
		fprintf(f, "  longest run inside one socket  %llu handoffs (socket %u)\n",
			(unsigned long long)r->longest_socket_run, r->longest_run_socket);
	else
		fprintf(f, "  longest run inside one socket  none: every handoff changed socket\n");
	if (r->runs == 1) {
		fprintf(f, "  acquisitions per thread  fewest %llu  most %llu  mean %.1f  cv %.3f  "
			   "Jain %.3f\n", (unsigned long long)r->acq_min,
			(unsigned long long)r->acq_max, r->acq_mean, r->acq_cv, r->jain);
	} else {
		fprintf(f, "  acquisitions per thread in a run  mean %.1f  cv %.3f  Jain %.3f  (means "
			   "over the runs)\n", r->acq_mean, r->acq_cv, r->jain);
		fprintf(f, "  most minus fewest in one run  %llu  (the widest run)\n",
			(unsigned long long)r->acq_gap);
		fprintf(f, "  a thread's acquisitions in any of the %u runs  fewest %llu  most %llu\n",
			r->runs, (unsigned long long)r->acq_min, (unsigned long long)r->acq_max);
	}
	fprintf(f, "  threads that never got it  %u of %u%s\n", r->starved, r->threads,
		r->runs > 1 ? "  (the most in one run)" : "");
	if (r->probe.spread_pct)
		fprintf(f, "  with each miss within %u%% of its latency (one more run, --lat-spread %u)  "
			   "Jain %.3f, %u of %u never got it%s\n", r->probe.spread_pct,
			r->probe.spread_pct, r->probe.jain, r->probe.starved, r->threads,
			probe_reading(r) == 1 ? ": the runs above time every miss exactly, and "
						"their threads fall in step"
			: probe_reading(r) == 2 ? ": unfair with it too" : "");
	fprintf(f, "  taken again by the thread that released it  %.1f%% of acquisitions\n",
		100 * (1 - handoff_frac(r)));
	fprintf(f, "traffic per acquisition: %.2f misses, %.2f remote transfers, busiest link %.2f "
		   "messages (both ways)\n\n",
		r->misses_per_acq, r->remote_per_acq, r->busiest_link_per_acq);
	print_line_misses(f, r);
	verdict(f, r);
	output_graphs_line(f, "the last run's");
}

/* "key,value" with prec decimals; an empty value where there is none (NaN:
 * no handoff), as run's CSV leaves a cell without a figure. */
static void csv_real(FILE *f, const char *key, int prec, double v)
{
	if (isnan(v))
		fprintf(f, "%s,\n", key);
	else
		fprintf(f, "%s,%.*f\n", key, prec, v);
}

static void print_csv(FILE *f, const struct wl_config *cfg, const struct xp_report *r)
{
	char buf[64], more[2048];

	fprintf(f, "what,value\n");
	fprintf(f, "topo,%s\nlock,%s\nthreads,%u\nruns,%u\n", sim.topo.name, cfg->algos[0]->name,
		cfg->threads[0], r->runs);
	/* the rest of what was run, as the table's heading says it */
	fprintf(f, "pin,");
	output_csv_field(f, cfg->pin_text); /* list:0,1 holds commas */
	fprintf(f, "\ncs_ns,%llu\nncs_ns,%llu\nncs_exp,%s\ncs_lines,%u\nseed,%llu\n",
		(unsigned long long)cfg->cs_ns, (unsigned long long)cfg->ncs_ns,
		cfg->ncs_exp ? "true" : "false", cfg->cs_lines, (unsigned long long)cfg->seed);
	if (cfg->ops)
		fprintf(f, "ops,%llu\n", (unsigned long long)cfg->ops);
	else
		fprintf(f, "duration_ms,%llu\n", (unsigned long long)cfg->duration_ms);
	/* what the table's second line says: the figures rest on it */
	fprintf(f, "lock_home,%s\nsettings,", wl_lock_home_name(cfg->lock_home));
	backend_settings(cfg, more, sizeof(more)); /* ", memory model ..." */
	output_csv_field(f, more[0] ? more + 2 : "");
	/* and what the text's "assumed in ..." line says: the figures rest on it too */
	fprintf(f, "\nassumed,");
	backend_assumed(cfg, more, sizeof(more));
	output_csv_field(f, more);
	fprintf(f, "\nthroughput_per_s,%.2f\nhandoffs,%llu\n", r->throughput_per_s,
		(unsigned long long)r->handoffs);
	csv_real(f, "handoff_ns", 2, r->handoff_ns);
	csv_real(f, "acquire_ns", 2, r->acquire_ns);
	for (unsigned p = 0; p < XP_NPARTS; p++)
		if (part_shown(p, r)) {
			char key[80];

			snprintf(key, sizeof(key), "%s_ns", part_key(p, buf, sizeof(buf)));
			csv_real(f, key, 2, r->part_ns[p]);
		}
	csv_real(f, "parts_sum_ns", 2, r->parts_sum_ns);
	csv_real(f, "uncovered_ns", 2, r->gap_ns);
	fprintf(f, "workload_handoffs,%llu\n", (unsigned long long)r->wl_handoffs);
	csv_real(f, "handoff_frac", 4, handoff_frac(r));
	csv_real(f, "local_frac", 4, r->local_frac);
	csv_real(f, "random_local_frac", 4, r->random_local_frac);
	fprintf(f, "longest_socket_run,%llu\nacq_min,%llu\nacq_max,%llu\nacq_gap_in_run,%llu\n",
		(unsigned long long)r->longest_socket_run, (unsigned long long)r->acq_min,
		(unsigned long long)r->acq_max, (unsigned long long)r->acq_gap);
	csv_real(f, "acq_cv", 4, r->acq_cv);
	csv_real(f, "jain_mean_of_runs", 4, r->jain);
	fprintf(f, "starved_most_in_a_run,%u\n", r->starved);
	if (r->probe.spread_pct) { /* the lockstep probe: none where the runs had a spread */
		fprintf(f, "probe_spread_pct,%u\n", r->probe.spread_pct);
		csv_real(f, "probe_jain", 4, r->probe.jain);
		fprintf(f, "probe_starved,%u\n", r->probe.starved);
	}
	for (unsigned i = 0; i < XP_NLINES; i++) {
		char key[64];

		snprintf(key, sizeof(key), "%s_misses_per_acq", line_keys[i]);
		csv_real(f, key, 4, r->line_misses_per_acq[i]);
	}
}

static int write_report(const struct explain_opts *o, const struct xp_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int rc = 0;

	if (!m)
		return 1;
	if (o->csv)
		print_csv(m, &o->cfg, r);
	else
		print_table(m, &o->cfg, r);
	if (fclose(m)) {
		free(buf);
		return 1;
	}
	if (o->out) {
		if (write_file_atomic(o->out, buf, len)) {
			fprintf(stderr, "locklab-sim: cannot write %s\n", o->out);
			rc = 1;
		}
	} else {
		fwrite(buf, 1, len, stdout);
	}
	free(buf);
	return rc;
}

int sim_explain(const struct explain_opts *o)
{
	struct xp_report rep;
	int rc;

	if (sim_explain_arm()) {
		fprintf(stderr, "locklab-sim: out of memory\n");
		return 1;
	}
	for (unsigned r = 0; r < o->cfg.runs; r++)
		explain_one(&o->cfg, r);
	sim_explain_report(&rep);
	sim_explain_disarm(); /* the probe adds nothing to the ledger, nor graphs */
	memset(&rep.probe, 0, sizeof(rep.probe)); /* none where the runs had a spread */
	if (!sim_lat_spread() && sim_lockstep_wanted()) /* a failed probe's run says none too */
		(void)sim_lockstep_run(&o->cfg, o->cfg.algos[0], o->cfg.threads[0], &rep.probe);
	rc = write_report(o, &rep);
	return rc;
}
