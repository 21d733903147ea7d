/*
 * core/sweep.c - `run` of both binaries: the sweep over locks, thread
 * counts, overcommits and repetitions, a result row per run, and the
 * result files.
 *
 * Nothing finished is lost: each run's row is on disk (FILE.partial, see
 * core/outfile.h) as soon as the runs before it are; a run that fails
 * leaves a row saying why and the sweep goes on (--fail-fast stops it, as
 * does a run that left threads on the cpus: backend_left_threads);
 * SIGINT or SIGTERM stops it: no run starts, a native run in progress runs
 * to its end, a simulated one ends as a failed row (backend_stop_asked; a
 * second signal ends the process at once, the journal keeping the rows),
 * and the rows so far are written as if the sweep had ended there.  With --jobs N the runs go
 * to worker processes (core/jobs.c); with --shard I/N only a share of the
 * configurations runs, and PATH.order beside each CSV says where its rows
 * stand in the whole sweep (core/merge.c).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <locklab/args.h>
#include <locklab/backend.h>
#include <locklab/lock.h>
#include <locklab/result.h>
#include <locklab/rng.h>
#include <locklab/stats.h>
#include <locklab/workload.h>

#include "outfile.h"
#include "run_row.h"
#include "sweep.h"

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

/* The signal that asked the sweep to stop, or 0. */
static volatile sig_atomic_t stop_signal;

static char stop_note[160]; /* said at the first signal: written before it can come */
static size_t stop_note_len;

volatile sig_atomic_t backend_stop_asked;

static void on_stop(int sig)
{
	stop_signal = sig;
	backend_stop_asked = 1;
	if (!stop_note_len) /* caught for good (catch_stop(false)) */
		return;
	signal(SIGINT, SIG_DFL); /* either signal next stops at once */
	signal(SIGTERM, SIG_DFL);
	if (write(2, stop_note, stop_note_len) < 0)
		stop_note_len = 0; /* nothing more to do in a handler */
}

/* With once, a second signal takes its default action. */
static void catch_stop(bool once)
{
	struct sigaction sa;
	int n = snprintf(stop_note, sizeof(stop_note), "\nlocklab-%s: stopping %s; a second signal "
			 "stops at once\n", backend_name,
			 strcmp(backend_name, "native") ? "now: a run in progress ends as a failed row"
							: "after the runs in progress");

	stop_note_len = once && n > 0 && (size_t)n < sizeof(stop_note) ? (size_t)n : 0;
	if (once)
		backend_stop_asked = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Run i of the sweep in sweep order: lock, thread count, overcommit,
 * repetition, the last varying fastest. */
static void run_at(const struct wl_config *cfg, size_t i, struct wl_run *run)
{
	unsigned nx = cfg->vm_vcpus ? cfg->novercommit : 1;
	unsigned x = (unsigned)(i / cfg->runs % nx);

	run->cfg = cfg;
	run->run_index = (unsigned)(i % cfg->runs);
	run->nthreads = cfg->threads[i / cfg->runs / nx % cfg->nthreads];
	run->algo = cfg->algos[i / cfg->runs / nx / cfg->nthreads];
	run->seed = run_seed(cfg->seed, run->run_index);
	if (cfg->vm_vcpus) {
		run->overcommit = cfg->overcommit[x];
		run->vm_pcpus = wl_vm_pcpus(cfg->vm_vcpus, run->overcommit);
	}
}

int sweep_one(const struct wl_config *cfg, size_t i, struct run_result *res, FILE *thr)
{
	struct wl_run *run = calloc(1, sizeof(*run));
	struct run_counters c;
	int failed;

	memset(&c, 0, sizeof(c));
	if (run) {
		run_at(cfg, i, run);
		run->threads = calloc(run->nthreads, sizeof(*run->threads));
	}
	if (!run || !run->threads) {
		fprintf(stderr, "locklab-%s: out of memory\n", backend_name);
		exit(1);
	}
	failed = backend_run(run, &c) || run->failed;
	if (failed) {
		run_row_failed(res, run);
	} else {
		run_row_fill(res, run, &c);
		threads_csv_print(thr, run, res);
	}
	/* natively the threads of a run the watchdog gave up on may still
	 * use it: its memory stays */
	if (failed && !strcmp(backend_name, "native"))
		return 1;
	wl_teardown(run);
	free(run->threads);
	free(run);
	return failed;
}

void sweep_lost(const struct wl_config *cfg, size_t i, struct run_result *res, const char *why)
{
	static struct wl_run run;

	memset(&run, 0, sizeof(run));
	run_at(cfg, i, &run);
	snprintf(run.failure, sizeof(run.failure), "%s", why);
	run_row_failed(res, &run);
}

/* ok: out with the rows of the runs that did not fail, in a copy that
 * free(ok->rows) releases: what the table shows. */
static void rows_that_ran(const struct output_set *out, struct output_set *ok)
{
	struct run_result *rows = malloc((out->nrows + 1) * sizeof(*rows));

	if (!rows) {
		fprintf(stderr, "locklab-%s: out of memory\n", backend_name);
		exit(1);
	}
	*ok = *out;
	ok->rows = rows;
	ok->nrows = 0;
	for (size_t i = 0; i < out->nrows; i++)
		if (!out->rows[i].failure[0])
			rows[ok->nrows++] = out->rows[i];
}

/* The table of the runs that did not fail, then a line per failed run,
 * then where the graphs went. */
static void print_table(FILE *f, const struct output_set *out)
{
	struct output_set ok;
	bool head = false;

	rows_that_ran(out, &ok);
	if (!ok.nrows && out->nrows && out->cfg)
		output_table_settings(f, out); /* every run failed: what they were run with */
	output_table(f, &ok);
	for (size_t i = 0; i < out->nrows; i++) {
		const struct run_result *r = &out->rows[i];

		if (!r->failure[0])
			continue;
		if (!head)
			fprintf(f, "\nfailed runs (not in the table):\n");
		head = true;
		fprintf(f, "%-16s t=%-4u run %-3u %s\n", r->lock, r->threads, r->run, r->failure);
	}
	free(ok.rows);
	output_graphs_line(f, "a configuration's last run each");
}

static void table_of(FILE *f, const void *out)
{
	print_table(f, out);
}

static void csv_of(FILE *f, const void *out)
{
	output_csv(f, out);
}

static void json_of(FILE *f, const void *out)
{
	output_json(f, out);
}

/* Why path could not be written, from errno. */
static const char *write_error(void)
{
	return errno == EEXIST ? "not a regular file" : strerror(errno);
}

/* path written whole with what fn prints; 1 and a line when it cannot be. */
static int write_one(const char *path, void (*fn)(FILE *, const void *), const void *out)
{
	if (!write_text_atomic(path, fn, out))
		return 0;
	fprintf(stderr, "locklab-%s: cannot write %s: %s\n", backend_name, path, write_error());
	return 1;
}

/* --shard: PATH.order beside each CSV, the index in sweep order of each
 * row, for `merge` (core/merge.c). */
static void order_of(FILE *f, const void *arg)
{
	const struct sweep_sink *s = arg;

	fprintf(f, "%s %u/%u %zu %016llx\n%s\n", MERGE_ORDER_MAGIC, s->o->shard, s->o->nshards,
		(size_t)s->o->cfg.nalgos * s->o->cfg.nthreads * s->o->cfg.runs *
			(s->o->cfg.vm_vcpus ? s->o->cfg.novercommit : 1),
		(unsigned long long)s->o->sweep_key, s->o->sweep_text);
	for (size_t i = 0; i < s->done; i++) /* its index, and what its row must say */
		fprintf(f, "%zu %s %u %u\n", s->todo[i], s->out.rows[i].lock, s->out.rows[i].threads,
			s->out.rows[i].run);
}

/* PATH.order written whole: 0, else -1 with path its name and errno why. */
static int write_order(const char *csv, const struct sweep_sink *s, char *path, size_t len)
{
	snprintf(path, len, "%s.order", csv);
	return write_text_atomic(path, order_of, (const void *)s) ? -1 : 0;
}

/* PATH.order of a CSV now written whole, unsharded: removed if there is
 * one, so that merge cannot take the new rows for the old shard's. */
static void drop_order(const char *csv)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s.order", csv);
	if (unlink(path) && errno != ENOENT)
		fprintf(stderr, "locklab-%s: warning: %s describes an earlier shard, not the rows "
				"just written, and cannot be removed: %s\n", backend_name, path,
			strerror(errno));
}

static int write_outputs(const struct cli_opts *o, struct sweep_sink *s)
{
	const struct output_set *out = &s->out;
	struct sweep_files *sf = &s->sf;
	int rc = 0;

	for (unsigned i = 0; i < sf->ncsv; i++) {
		const struct journal *j = &sf->j[i];
		char failed[4200];
		int e = write_text_atomic(sf->csv[i], csv_of, out) ? -1 : 0;

		snprintf(failed, sizeof(failed), "%s", sf->csv[i]);
		if (!e && o->nshards)
			e = write_order(sf->csv[i], s, failed, sizeof(failed));
		else if (!e) /* a shard's order left beside it describes it no more */
			drop_order(sf->csv[i]);
		if (e) /* one line: what failed, and where the rows are */
			fprintf(stderr, "locklab-%s: cannot write %s: %s; ", backend_name, failed,
				write_error());
		journal_close(&sf->j[i], !e);
		if (e && j->rows == out->nrows)
			fprintf(stderr, "the rows are kept in %s\n", j->partial);
		else if (e) /* its journal stopped when it could not be written */
			fprintf(stderr, "%zu of the %zu rows are kept in %s, each whole (%s)\n", j->rows,
				out->nrows, j->partial, j->err ? strerror(j->err) : "its journal stopped");
		rc |= e ? 1 : 0;
	}
	if (o->json)
		rc |= write_one(o->json, json_of, out);
	if (o->out && o->format == FMT_JSON)
		rc |= write_one(o->out, json_of, out);
	if (o->out && o->format == FMT_TABLE)
		rc |= write_one(o->out, table_of, out);
	if (!o->out && o->format == FMT_CSV)
		output_csv(stdout, out);
	if (!o->out && o->format == FMT_JSON)
		output_json(stdout, out);
	if (o->format == FMT_TABLE && !o->out)
		print_table(stdout, out);
	if (o->threads_csv && threads_csv_write(o->threads_csv)) {
		fprintf(stderr, "locklab-%s: cannot write %s: %s\n", backend_name, o->threads_csv,
			strerror(errno));
		rc = 1;
	}
	return rc;
}

/* Every output path checked, the CSV journals open: 0, else the exit status. */
static int open_outputs(const struct cli_opts *o, struct sweep_files *sf)
{
	/* --out in CSV naming --csv's file is that one CSV, written once */
	bool out_is_csv = o->out && o->format == FMT_CSV && o->csv && outfile_same(o->csv, o->out);
	bool sharded = o->nshards > 0; /* --shard I/N, N >= 1: PATH.order is written */
	char order[2][4200], partial[2][4200];
	const char *const opts[] = { "--out", "--csv", "--json", "--threads-csv",
				     "--shard's order of --out", "--shard's order of --csv",
				     "the journal of --out (its rows while the sweep runs)",
				     "the journal of --csv (its rows while the sweep runs)" };
	const char *paths[] = { out_is_csv ? NULL : o->out, o->csv, o->json, o->threads_csv, NULL,
				NULL, NULL, NULL };
	char err[4400];

	/* --shard writes PATH.order beside each CSV: outputs as well */
	if (sharded && paths[0] && o->format == FMT_CSV) {
		snprintf(order[0], sizeof(order[0]), "%s.order", paths[0]);
		paths[4] = order[0];
	}
	if (sharded && o->csv) {
		snprintf(order[1], sizeof(order[1]), "%s.order", o->csv);
		paths[5] = order[1];
	}
	/* each CSV is journalled to PATH.partial: no output may be one */
	if (paths[0] && o->format == FMT_CSV && !outfile_journal_path(paths[0], partial[0], sizeof(partial[0])))
		paths[6] = partial[0];
	if (o->csv && !outfile_journal_path(o->csv, partial[1], sizeof(partial[1])))
		paths[7] = partial[1];
	if (outfile_check_all(opts, paths, 6, 8, err, sizeof(err)))
		return ll_bad("run", "%s", err);
	memset(sf, 0, sizeof(*sf));
	if (o->csv)
		sf->csv[sf->ncsv++] = o->csv;
	if (o->out && o->format == FMT_CSV && !out_is_csv)
		sf->csv[sf->ncsv++] = o->out;
	for (unsigned i = 0; i < sf->ncsv; i++)
		if (journal_open(&sf->j[i], sf->csv[i])) {
			fprintf(stderr, "locklab-%s: cannot write %s: %s\n", backend_name,
				sf->j[i].partial, strerror(errno));
			while (i--)
				journal_close(&sf->j[i], true);
			return 1;
		}
	if (o->threads_csv && threads_csv_begin()) {
		fprintf(stderr, "locklab-%s: out of memory\n", backend_name);
		return 1;
	}
	return 0;
}

/* Each journal brought up to date; one that cannot be is closed, keeping
 * its whole rows, and remembers why: the rows stay in memory for the
 * result file, and only if that cannot be written either is it said
 * (write_outputs), in one line. */
static void sync_journals(struct sweep_files *sf, const struct output_set *out)
{
	for (unsigned i = 0; i < sf->ncsv; i++) {
		if (sf->j[i].fd < 0 || !journal_sync(&sf->j[i], out))
			continue;
		sf->j[i].err = errno;
		journal_close(&sf->j[i], false);
	}
}

/* Where the rows went, for the line that ends an interrupted sweep. */
static void print_kept(const struct cli_opts *o, const struct sweep_files *sf, size_t done,
		       size_t total)
{
	fprintf(stderr, "locklab-%s: interrupted: %zu of %zu runs finished, kept in ",
		backend_name, done, total);
	if (o->csv)
		fprintf(stderr, "%s", o->csv);
	if (o->out)
		fprintf(stderr, "%s%s", o->csv ? ", " : "", o->out);
	if (o->json)
		fprintf(stderr, "%s%s", o->csv || o->out ? ", " : "", o->json);
	if (o->threads_csv)
		fprintf(stderr, "%s%s", o->csv || o->out || o->json ? ", " : "", o->threads_csv);
	fprintf(stderr, "%s\n", o->csv || o->out || o->json || o->threads_csv ? "" : "the output");
}

/* The runs of this shard, by index in sweep order: those of the
 * configurations k (all runs of a lock x threads x overcommit) with
 * k % N == I; without --shard, every run. */
static size_t *shard_runs(const struct cli_opts *o, size_t total, size_t *n)
{
	size_t *todo = malloc((total + 1) * sizeof(*todo));
	unsigned nshards = o->nshards ? o->nshards : 1;

	if (!todo) {
		fprintf(stderr, "locklab-%s: out of memory\n", backend_name);
		exit(1);
	}
	*n = 0;
	for (size_t i = 0; i < total; i++)
		if (i / o->cfg.runs % nshards == o->shard)
			todo[(*n)++] = i;
	return todo;
}

void sweep_progress(const struct sweep_sink *s)
{
	struct wl_run run;

	if (s->done >= s->ntodo)
		return;
	memset(&run, 0, sizeof(run));
	run_at(&s->o->cfg, s->todo[s->done], &run);
	progress(s->o, s->done, s->ntodo, run.algo->name, run.nthreads);
}

int sweep_commit(struct sweep_sink *s, const struct run_result *res, int failed, const char *thr,
		 size_t tlen)
{
	if (failed) {
		fprintf(stderr, "locklab-%s: %s t=%u", backend_name, res->lock, res->threads);
		if (res->vm.has_vm)
			fprintf(stderr, " x%.2f", res->vm.overcommit);
		fprintf(stderr, " run %u: %s\n", res->run, res->failure);
		fflush(stderr);
	}
	output_add(&s->out, res);
	if (tlen && threads_csv_file())
		fwrite(thr, 1, tlen, threads_csv_file());
	s->done++;
	s->failed += (size_t)(failed != 0);
	sync_journals(&s->sf, &s->out);
	return failed && s->o->fail_fast;
}

/* The runs one after the other in this process. */
static void run_here(struct sweep_sink *s)
{
	struct run_result res;

	while (s->done < s->ntodo && !stop_signal) {
		int failed;

		sweep_progress(s);
		failed = sweep_one(&s->o->cfg, s->todo[s->done], &res, threads_csv_file());
		if (sweep_commit(s, &res, failed, NULL, 0))
			break;
		if (backend_left_threads())
			break; /* said at the sweep's end */
	}
}

/* The backend's lockstep probe of row r's configuration, none once a stop
 * is asked for. */
static int probe_unless_stopped(const struct wl_config *cfg, const struct run_result *r,
				struct lockstep_probe *p)
{
	return !stop_signal && backend_lockstep_probe(cfg, r, p);
}

/* The probes of the configurations the table calls unfair, judged on the
 * runs it shows (a failed run is not in it). */
static void probe_what_the_table_shows(struct output_set *out)
{
	struct output_set ok;

	rows_that_ran(out, &ok);
	output_probe_unfair(&ok, probe_unless_stopped);
	out->probes = ok.probes;
	out->nprobes = ok.nprobes;
	free(ok.rows);
}

int sweep_run(struct cli_opts *o)
{
	static struct sweep_sink s;
	unsigned nx = o->cfg.vm_vcpus ? o->cfg.novercommit : 1;
	size_t total = (size_t)o->cfg.nalgos * o->cfg.nthreads * nx * o->cfg.runs, *todo;
	int rc, io;

	memset(&s, 0, sizeof(s));
	rc = open_outputs(o, &s.sf);
	if (rc)
		return rc;
	backend_warn(&o->cfg);
	cli_warn(o);
	s.o = o;
	s.out.cfg = &o->cfg;
	s.out.shard = o->shard;
	s.out.nshards = o->nshards > 1 ? o->nshards : 0; /* 0/1 is the whole sweep */
	todo = shard_runs(o, total, &s.ntodo);
	s.todo = todo;
	if (todo && !s.ntodo && o->nshards > 1)
		fprintf(stderr, "locklab-%s: --shard %u/%u: no configuration of the %zu falls to this "
			"shard; its files have the header only\n", backend_name, o->shard, o->nshards,
			total / o->cfg.runs);
	stop_signal = 0;
	catch_stop(true);
	if (o->jobs > 1 && s.ntodo > 1)
		jobs_run(&s, o->jobs, &stop_signal);
	else
		run_here(&s);
	/* lines of the table alone (no CSV or JSON holds them): made only for
	 * one, while a stop may still be asked for */
	if (o->format == FMT_TABLE && !stop_signal && !backend_left_threads())
		probe_what_the_table_shows(&s.out);
	catch_stop(false); /* the files are written whole, whatever comes */
	if (s.done == s.ntodo)
		progress(o, s.done, s.ntodo, "done", 0);
	else if (o->progress)
		fputc('\n', stderr);
	backend_warn_results(&o->cfg, &s.out);
	s.out.runs_done = s.done;
	s.out.runs_planned = s.ntodo;
	io = write_outputs(o, &s) | s.rc;
	output_free(&s.out);
	free(todo);
	if (stop_signal) {
		print_kept(o, &s.sf, s.done, s.ntodo);
		return SWEEP_SIGNALLED + stop_signal;
	}
	if (backend_left_threads() && s.done < s.ntodo)
		fprintf(stderr, "locklab-%s: the watchdog gave up on a run whose threads still spin, "
			"and a run beside them would measure them too: the sweep stopped there, "
			"%zu of its %zu runs did not run\n",
			backend_name, s.ntodo - s.done, s.ntodo);
	else if (s.failed && s.done < s.ntodo)
		fprintf(stderr, "locklab-%s: %zu of %zu runs failed; --fail-fast stopped the sweep "
			"there: %zu of its %zu runs did not run\n", backend_name, s.failed, s.done,
			s.ntodo - s.done, s.ntodo);
	else if (s.failed && s.done > 1)
		fprintf(stderr, "locklab-%s: %zu of %zu runs failed\n", backend_name, s.failed,
			s.done);
	if (!s.failed && s.done < s.ntodo) { /* no stop asked for it: never a silent gap */
		fprintf(stderr, "locklab-%s: only %zu of %zu runs came back from the worker "
			"processes; the files hold those\n", backend_name, s.done, s.ntodo);
		return 1;
	}
	return io ? 1 : s.failed ? 3 : 0;
}
