/*
 * core/threads_csv.c - `run --threads-csv FILE`: one row per thread of every
 * run, for per-thread plots (plots/acquisitions.gp): how many acquisitions
 * each thread made, its waits, and how often it received the lock from a
 * thread of another socket.  Rows gather in memory and the file is written
 * whole at the end, as the other outputs are.  A thread still waiting when
 * the run ended counts with its wait so far (core/workload.c).  Also the
 * per-thread counts of a result row: starved threads, sockets served.
 */
#include <stdio.h>
#include <stdlib.h>

#include <locklab/backend.h>
#include <locklab/result.h>
#include <locklab/stats.h>
#include <locklab/workload.h>

static FILE *rows;
static char *buf;
static size_t len;

void result_count_threads(struct run_result *r, const struct wl_run *run)
{
	uint64_t with_threads[WL_MAX_THREADS / 64] = { 0 }, served[WL_MAX_THREADS / 64] = { 0 };

	r->starved = r->sockets = r->sockets_served = 0;
	for (unsigned i = 0; i < run->nthreads; i++) {
		const struct wl_thread *t = &run->threads[i];
		unsigned s = t->node % WL_MAX_THREADS;

		with_threads[s / 64] |= 1ull << (s % 64);
		if (t->acquisitions)
			served[s / 64] |= 1ull << (s % 64);
		else
			r->starved++;
	}
	for (unsigned w = 0; w < WL_MAX_THREADS / 64; w++) {
		r->sockets += (unsigned)__builtin_popcountll(with_threads[w]);
		r->sockets_served += (unsigned)__builtin_popcountll(served[w]);
	}
}

int threads_csv_begin(void)
{
	rows = open_memstream(&buf, &len);
	if (!rows)
		return -1;
	fprintf(rows, "backend,topo,lock,threads,cs_ns,ncs_ns,cs_lines,locks,seed,run,tid,cpu,node,"
		      "acquisitions,acq_share,wait_mean_ns,wait_p50_ns,wait_p99_ns,wait_max_ns,"
		      "handoffs_in,handoffs_in_local\n");
	return 0;
}

FILE *threads_csv_file(void)
{
	return rows;
}

void threads_csv_add(const struct wl_run *run, const struct run_result *r)
{
	threads_csv_print(rows, run, r);
}

void threads_csv_print(FILE *f, const struct wl_run *run, const struct run_result *r)
{
	if (!f)
		return;
	for (unsigned i = 0; i < run->nthreads; i++) {
		const struct wl_thread *t = &run->threads[i];
		char waits[96] = ",,,"; /* a thread that timed no wait has no figures */

		if (t->wait.count)
			snprintf(waits, sizeof(waits), "%.2f,%.2f,%.2f,%llu", ll_hist_mean(&t->wait),
				 ll_hist_quantile(&t->wait, 0.5), ll_hist_quantile(&t->wait, 0.99),
				 (unsigned long long)t->wait.max);
		fprintf(f, "%s,%s,%s,%u,%llu,%llu,%u,%u,%llu,%u,%u,%u,%u,%llu,%.6f,%s,%llu,%llu\n",
			r->backend, r->topo, r->lock, r->threads, (unsigned long long)r->cs_ns,
			(unsigned long long)r->ncs_ns, r->cs_lines, r->locks, (unsigned long long)r->seed,
			r->run, i, t->cpu, t->node, (unsigned long long)t->acquisitions,
			r->acquisitions ? (double)t->acquisitions / (double)r->acquisitions : 0.0, waits,
			(unsigned long long)t->handoffs, (unsigned long long)t->handoffs_local);
	}
}

int threads_csv_write(const char *path)
{
	int rc;

	if (!rows)
		return -1;
	if (fclose(rows)) {
		rows = NULL;
		free(buf);
		return -1;
	}
	rows = NULL;
	rc = write_file_atomic(path, buf, len);
	free(buf);
	buf = NULL;
	return rc;
}
