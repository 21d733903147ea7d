/*
 * core/main.c - locklab-native and locklab-sim: `list`, `run`, and the
 * backend's own sub-commands.
 *
 * Exit status: 0 done; 2 bad input (one line on stderr); 3 a run failed
 * (mutual exclusion violated, watchdog, deadlock: one line on stderr);
 * 1 an I/O error writing results.
 */
#include <errno.h>
#include <math.h>
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

#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: locklab-%s list\n"
		"       locklab-%s run [--lock A,B] [--threads 1,2,4] [--cs NS] [--ncs NS|exp:NS]\n"
		"              [--cs-lines K] [--locks L] [--read-pct P] [--duration MS | --ops N]\n"
		"              [--runs R] [--pin compact|scatter|socket:N|list:a,b|none] [--seed S]\n"
		"              [--format table|csv|json] [--out FILE] [--csv FILE] [--json FILE] [--progress]\n"
		"              [--threads-csv FILE]  (a row per thread of each run)\n"
		"              [--vm V --overcommit X[,X...]]  (V threads on V/X cpus: docs/vm.md)\n"
		"              [--preset fserver|stat]  (rwlock file-server mix; lockref stat() loop:\n"
		"                                        docs/rwlocks.md; other options override it)\n"
		"%s",
		backend_name, backend_name, backend_usage);
}

static void die_bad_input(const char *msg)
{
	fprintf(stderr, "locklab-%s: %s\n", backend_name, msg);
	exit(2);
}

static int cmd_list(void)
{
	for (size_t i = 0; i < lock_catalogue_size(); i++) {
		const struct lock_algo *a = lock_catalogue_get(i);

		printf("%-16s %-9s %s\n", a->name, lock_kind_name(a->kind), a->desc);
	}
	return 0;
}

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
	r->wait_mean_ns = ll_hist_mean(&all);
	r->wait_p50_ns = ll_hist_quantile(&all, 0.50);
	r->wait_p99_ns = ll_hist_quantile(&all, 0.99);
	r->wait_max_ns = (double)all.max;
	r->read_wait_p99_ns = ll_hist_quantile(&rd, 0.99);
	r->read_wait_max_ns = (double)rd.max;
	r->write_wait_p99_ns = ll_hist_quantile(&wr, 0.99);
	r->write_wait_max_ns = (double)wr.max;
	ll_hist_free(&all);
	ll_hist_free(&rd);
	ll_hist_free(&wr);
}

static void fill_result(struct run_result *r, const struct wl_run *run,
			const struct run_counters *c)
{
	const struct wl_config *cfg = run->cfg;
	double *acq = calloc(run->nthreads ? run->nthreads : 1, sizeof(*acq));
	uint64_t handoffs = 0, local = 0;

	if (!acq) {
		fprintf(stderr, "locklab-%s: out of memory\n", backend_name);
		exit(1);
	}
	memset(r, 0, sizeof(*r));
	snprintf(r->backend, sizeof(r->backend), "%s", backend_name);
	snprintf(r->topo, sizeof(r->topo), "%s", backend_topo_name(cfg));
	snprintf(r->lock, sizeof(r->lock), "%s", run->algo->name);
	r->threads = run->nthreads;
	r->cs_ns = cfg->cs_ns;
	r->ncs_ns = cfg->ncs_ns;
	r->ncs_exp = cfg->ncs_exp;
	r->cs_lines = cfg->cs_lines;
	r->locks = cfg->locks;
	r->read_pct = cfg->read_pct;
	r->is_rwlock = run->algo->kind == LOCK_RWLOCK;
	r->seed = cfg->seed;
	r->run = run->run_index;
	r->duration_s = (double)(run->stop_ns - run->start_ns) / 1e9;
	r->acq_min = UINT64_MAX;
	for (unsigned i = 0; i < run->nthreads; i++) {
		const struct wl_thread *t = &run->threads[i];

		r->acquisitions += t->acquisitions;
		r->reads += t->reads;
		r->writes += t->writes;
		acq[i] = (double)t->acquisitions;
		if (t->acquisitions < r->acq_min)
			r->acq_min = t->acquisitions;
		if (t->acquisitions > r->acq_max)
			r->acq_max = t->acquisitions;
		handoffs += t->handoffs;
		local += t->handoffs_local;
	}
	r->throughput_per_s = r->duration_s > 0 ? (double)r->acquisitions / r->duration_s : 0;
	r->jain = ll_jain(acq, run->nthreads);
	free(acq);
	r->handoff_local_frac = per(local, handoffs);
	result_count_threads(r, run);
	if (r->is_rwlock)
		r->readers_overlap_max = wl_max_readers(run);
	fill_waits(r, run);
	fill_sim(r, &c->sim);
	fill_vm(r, &c->vm);
	r->oversubscribed = c->oversubscribed;
}

static void progress(const struct cli_opts *o, size_t done, size_t total, const char *lock,
		     unsigned threads)
{
	const int width = 30;
	int fill = total ? (int)(width * done / total) : width;

	if (!o->progress)
		return;
	if (done == total) {
		fprintf(stderr, "\r[%.*s] %zu/%zu done%*s\n", width, "==============================",
			done, total, 20, "");
		fflush(stderr);
		return;
	}
	fprintf(stderr, "\r[%.*s%*s] %zu/%zu %-16s t=%-4u", fill,
		"==============================", width - fill, "", done, total, lock, threads);
	fflush(stderr);
}

/* One run of one lock at one thread count (and, with --vm, overcommit
 * cfg->overcommit[x]); exits 3 when it fails. */
static void one_run(const struct wl_config *cfg, const struct lock_algo *a, unsigned nthreads,
		    unsigned x, unsigned r, struct output_set *out)
{
	struct wl_run run;
	struct run_counters c;
	struct run_result res;

	memset(&run, 0, sizeof(run));
	memset(&c, 0, sizeof(c));
	run.cfg = cfg;
	run.algo = a;
	run.nthreads = nthreads;
	run.run_index = r;
	run.seed = run_seed(cfg->seed, r);
	if (cfg->vm_vcpus) {
		run.overcommit = cfg->overcommit[x];
		run.vm_pcpus = wl_vm_pcpus(cfg->vm_vcpus, run.overcommit);
	}
	run.threads = calloc(nthreads, sizeof(*run.threads));
	if (!run.threads) {
		fprintf(stderr, "locklab-%s: out of memory\n", backend_name);
		exit(1);
	}
	if (backend_run(&run, &c) || run.failed) {
		fprintf(stderr, "locklab-%s: %s\n", backend_name,
			run.failure[0] ? run.failure : "run failed");
		fflush(NULL);
		_exit(3);
	}
	fill_result(&res, &run, &c);
	output_add(out, &res);
	threads_csv_add(&run, &res);
	wl_teardown(&run);
	free(run.threads);
}

static int write_outputs(const struct cli_opts *o, const struct output_set *out)
{
	int rc = 0;

	if (o->csv && output_csv_file(o->csv, out)) {
		fprintf(stderr, "locklab-%s: cannot write %s: %s\n", backend_name, o->csv, strerror(errno));
		rc = 1;
	}
	if (o->json && output_json_file(o->json, out)) {
		fprintf(stderr, "locklab-%s: cannot write %s: %s\n", backend_name, o->json, strerror(errno));
		rc = 1;
	}
	if (o->out) {
		int e = 0;

		if (o->format == FMT_CSV)
			e = output_csv_file(o->out, out);
		else if (o->format == FMT_JSON)
			e = output_json_file(o->out, out);
		else {
			char *buf = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&buf, &len);

			if (!m)
				e = -1;
			else {
				output_table(m, out);
				e = fclose(m) ? -1 : write_file_atomic(o->out, buf, len);
				free(buf);
			}
		}
		if (e) {
			fprintf(stderr, "locklab-%s: cannot write %s: %s\n", backend_name, o->out,
				strerror(errno));
			rc = 1;
		}
	} else if (o->format == FMT_CSV)
		output_csv(stdout, out);
	else if (o->format == FMT_JSON)
		output_json(stdout, out);
	if (o->format == FMT_TABLE && !o->out)
		output_table(stdout, out);
	return rc;
}

static int cmd_run(int argc, char **argv)
{
	static struct cli_opts o; /* large: keep it off the stack */
	struct output_set out;
	char err[512];
	size_t total, done = 0;
	unsigned nx;

	if (cli_parse_run(argc, argv, &o, err, sizeof(err)))
		die_bad_input(err);
	if (backend_check(&o.cfg, err, sizeof(err)))
		die_bad_input(err);
	memset(&out, 0, sizeof(out));
	out.cfg = &o.cfg;
	if (o.threads_csv && threads_csv_begin()) {
		fprintf(stderr, "locklab-%s: out of memory\n", backend_name);
		return 1;
	}
	nx = o.cfg.vm_vcpus ? o.cfg.novercommit : 1;
	total = (size_t)o.cfg.nalgos * o.cfg.nthreads * nx * o.cfg.runs;
	for (unsigned a = 0; a < o.cfg.nalgos; a++)
		for (unsigned t = 0; t < o.cfg.nthreads; t++)
			for (unsigned x = 0; x < nx; x++)
				for (unsigned r = 0; r < o.cfg.runs; r++) {
					progress(&o, done, total, o.cfg.algos[a]->name,
						 o.cfg.threads[t]);
					one_run(&o.cfg, o.cfg.algos[a], o.cfg.threads[t], x, r, &out);
					done++;
				}
	progress(&o, done, total, "done", 0);
	int rc = write_outputs(&o, &out);

	if (o.threads_csv && threads_csv_write(o.threads_csv)) {
		fprintf(stderr, "locklab-%s: cannot write %s: %s\n", backend_name, o.threads_csv,
			strerror(errno));
		rc = 1;
	}

	output_free(&out);
	return rc;
}

int main(int argc, char **argv)
{
	int rc;

	if (backend_init(&argc, argv))
		return 2;
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "list"))
		rc = cmd_list();
	else if (!strcmp(argv[1], "run"))
		rc = cmd_run(argc - 2, argv + 2);
	else if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		rc = 0;
	} else {
		rc = backend_command(argv[1], argc - 2, argv + 2);
		if (rc < 0) {
			fprintf(stderr, "locklab-%s: unknown command '%s' (try: list, run, help)\n",
				backend_name, argv[1]);
			rc = 2;
		}
	}
	backend_fini();
	return rc;
}
