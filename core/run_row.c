/*
 * core/run_row.c - a run's row of the results (struct run_result): what
 * the run measured, its waits and their censoring, the backend's counters,
 * and the row of a run that failed.  core/sweep.c makes the runs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/backend.h>
#include <locklab/lock.h>
#include <locklab/result.h>
#include <locklab/stats.h>
#include <locklab/workload.h>

#include "run_row.h"

static double per(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : NAN;
}

static void fill_sim(struct run_result *r, const struct sim_counters *c)
{
	r->sim = *c;
	if (!c->has_sim)
		return;
	r->misses_per_acq = per(c->misses, r->acquisitions);
	/* every counted acquisition is followed by its release */
	r->invalidations_per_release = per(c->lock_invalidations, r->acquisitions);
	r->remote_transfers_per_acq = per(c->remote_transfers, r->acquisitions);
	r->line_queue_ns_per_acq = per(c->line_queue_ps, r->acquisitions) / 1000.0;
	r->busiest_link_msgs_per_acq = per(c->busiest_link_msgs, r->acquisitions);
	r->events_per_acq = per(c->events, r->acquisitions);
	for (unsigned k = 0; k < SIM_CSV_CLASSES; k++)
		r->transfers_class_per_acq[k] = per(c->transfers_by_class[k], r->acquisitions);
	r->lock_misses_per_acq = per(c->lock_misses, r->acquisitions);
	r->node_misses_per_acq = per(c->node_misses, r->acquisitions);
	r->data_misses_per_acq = per(c->data_misses, r->acquisitions);
	r->other_misses_per_acq = per(c->other_misses, r->acquisitions);
	/* empty where no idle state applies */
	r->idle_wakes_per_acq = c->has_idle ? per(sim_idle_wakes(c), r->acquisitions) : NAN;
	r->idle_exit_ns_per_acq = c->has_idle ? per(c->idle_exit_ps, r->acquisitions) / 1000.0 : NAN;
}

/* --vm: the figures per acquisition and per wake. */
static void fill_vm(struct run_result *r, const struct vm_counters *v)
{
	r->vm = *v;
	if (!v->has_vm)
		return;
	r->holder_lost_ns_per_acq = per(v->holder_lost_ps, r->acquisitions) / 1000.0;
	r->waiter_lost_ns_per_acq = per(v->waiter_lost_ps, r->acquisitions) / 1000.0;
	r->wake_latency_ns = per(v->wake_ps, v->wakes) / 1000.0;
}

/* Is the p99 of a histogram h (of the waits of one side: 0 reads, 1
 * writes, -1 all) only a lower bound?  Of the waits at or above it (about
 * 1% of them), half or more were cut short by the run's end. */
static bool p99_censored(const struct wl_run *run, const struct ll_hist *h, double p99, int side)
{
	uint64_t cut = 0, top = h->count / 100 ? h->count / 100 : 1;

	for (unsigned i = 0; i < run->nthreads; i++) {
		const struct wl_thread *t = &run->threads[i];

		cut += t->censored_ns && (side < 0 || t->censored_read == (side == 0)) &&
		       (double)t->censored_ns >= p99;
	}
	return cut && 2 * cut >= top;
}

/* Is the longest wait, max, only a lower bound: the run's end cut the
 * longest wait short?  When the timed wait it cut is the longest, and
 * whenever a thread never acquired: its wait ran to the end, longer than
 * any timed one when it was not timed itself (--time-every above 1).  Of
 * one side (side 0 reads, 1 writes; -1 both): a cut wait of the other side
 * does not count; a thread that never acquired and whose wait was not
 * timed counts for both (its side is not known). */
static bool max_censored(const struct wl_run *run, uint64_t max, int side)
{
	for (unsigned i = 0; i < run->nthreads; i++) {
		const struct wl_thread *t = &run->threads[i];

		if (side >= 0 && t->censored_ns && t->censored_read != (side == 0))
			continue; /* its cut-short wait is of the other side */
		if ((t->censored_ns && t->censored_ns >= max) || !t->acquisitions)
			return true;
	}
	return false;
}

static void fill_waits(struct run_result *r, const struct wl_run *run)
{
	struct ll_hist all, rd, wr;

	if (ll_hist_init(&all) || ll_hist_init(&rd) || ll_hist_init(&wr)) {
		fprintf(stderr, "locklab-%s: out of memory\n", backend_name);
		exit(1);
	}
	for (unsigned i = 0; i < run->nthreads; i++) {
		ll_hist_merge(&all, &run->threads[i].wait);
		ll_hist_merge(&rd, &run->threads[i].wait_read);
		ll_hist_merge(&wr, &run->threads[i].wait_write);
	}
	/* no timed wait (--time-every longer than the run): no figure, not 0 */
	r->wait_mean_ns = all.count ? ll_hist_mean(&all) : NAN;
	r->wait_p50_ns = all.count ? ll_hist_quantile(&all, 0.50) : NAN;
	r->wait_p99_ns = all.count ? ll_hist_quantile(&all, 0.99) : NAN;
	r->wait_p99_censored = all.count && p99_censored(run, &all, r->wait_p99_ns, -1);
	r->wait_max_ns = all.count ? (double)all.max : NAN;
	r->wait_max_censored = all.count && max_censored(run, all.max, -1);
	/* a side with no timed wait has no figure (empty, not 0) */
	r->read_wait_p99_ns = rd.count ? ll_hist_quantile(&rd, 0.99) : NAN;
	r->read_wait_max_ns = rd.count ? (double)rd.max : NAN;
	r->read_wait_p99_censored = rd.count && p99_censored(run, &rd, r->read_wait_p99_ns, 0);
	r->read_wait_max_censored = rd.count && max_censored(run, rd.max, 0);
	r->write_wait_p99_ns = wr.count ? ll_hist_quantile(&wr, 0.99) : NAN;
	r->write_wait_max_ns = wr.count ? (double)wr.max : NAN;
	r->write_wait_p99_censored = wr.count && p99_censored(run, &wr, r->write_wait_p99_ns, 1);
	r->write_wait_max_censored = wr.count && max_censored(run, wr.max, 1);
	ll_hist_free(&all);
	ll_hist_free(&rd);
	ll_hist_free(&wr);
}

/* The columns that say which run a row is: backend, workload, seed. */
static void fill_identity(struct run_result *r, const struct wl_run *run)
{
	const struct wl_config *cfg = run->cfg;

	memset(r, 0, sizeof(*r));
	snprintf(r->backend, sizeof(r->backend), "%s", backend_name);
	snprintf(r->topo, sizeof(r->topo), "%s", backend_topo_name(cfg));
	snprintf(r->lock, sizeof(r->lock), "%s", run->algo->name);
	r->threads = run->nthreads;
	r->cs_ns = cfg->cs_ns;
	r->ncs_ns = cfg->ncs_ns;
	r->ncs_exp = cfg->ncs_exp;
	r->cs_lines = run->algo->kind == LOCK_REFCOUNT ? 0 : cfg->cs_lines; /* get, put: none */
	r->locks = cfg->locks;
	r->read_pct = cfg->read_pct;
	r->is_rwlock = run->algo->kind == LOCK_RWLOCK;
	r->seed = cfg->seed;
	r->run = run->run_index;
}

/* The lock's own counts (core/counts.c), and the CSV's text of them. */
static void fill_counts(struct run_result *r, const struct wl_run *run)
{
	size_t n = 0;

	r->ncounts = wl_counts_sum(r->counts);
	for (unsigned k = 0; k < r->ncounts && n < sizeof(r->counts_text); k++)
		n += (size_t)snprintf(r->counts_text + n, sizeof(r->counts_text) - n, "%s%s=%llu",
				      k ? ";" : "", run->algo->counts[k],
				      (unsigned long long)r->counts[k]);
}

void run_row_fill(struct run_result *r, const struct wl_run *run,
			const struct run_counters *c)
{
	struct wl_spread spread;
	uint64_t handoffs = 0, local = 0;

	if (wl_thread_spread(run, &spread)) {
		fprintf(stderr, "locklab-%s: out of memory\n", backend_name);
		exit(1);
	}

	fill_identity(r, run);
	r->duration_s = (double)(run->stop_ns - run->start_ns) / 1e9;
	for (unsigned i = 0; i < run->nthreads; i++) {
		const struct wl_thread *t = &run->threads[i];

		r->acquisitions += t->acquisitions;
		r->reads += t->reads;
		r->writes += t->writes;
		handoffs += t->handoffs;
		local += t->handoffs_local;
	}
	r->acq_min = spread.min;
	r->acq_max = spread.max;
	r->throughput_per_s = r->duration_s > 0 ? (double)r->acquisitions / r->duration_s : 0;
	r->jain = r->acquisitions ? spread.jain : NAN; /* no acquisition, no index: empty, null */
	r->handoff_local_frac = per(local, handoffs);
	r->handoff_frac = run->algo->kind == LOCK_REFCOUNT ? NAN
			  : per(handoffs, r->is_rwlock ? r->writes : r->acquisitions);
	result_count_threads(r, run);
	if (r->is_rwlock)
		r->readers_overlap_max = wl_max_readers(run);
	fill_waits(r, run);
	fill_sim(r, &c->sim);
	fill_vm(r, &c->vm);
	r->oversubscribed = c->oversubscribed;
	fill_counts(r, run);
}

/* The row of a run that failed: what was run, and why it failed. */
void run_row_failed(struct run_result *r, const struct wl_run *run)
{
	const struct wl_config *cfg = run->cfg;

	fill_identity(r, run);
	r->vm.has_vm = cfg->vm_vcpus != 0;
	r->vm.overcommit = run->overcommit;
	r->vm.pcpus = run->vm_pcpus;
	snprintf(r->failure, sizeof(r->failure), "%s", run->failure[0] ? run->failure : "run failed");
}

