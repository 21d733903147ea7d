/*
 * core/counts.c - the counts a lock keeps of its own paths (ll_count):
 * how often lockref's cmpxchg failed, how often percpu-rwsem's readers
 * took the fast path.  The lock names them in its lock_algo.counts; the
 * run's totals go to its row (the table's counts line, the CSV's lock_counts
 * column).
 *
 * A count is instrumentation, not part of the machine: it touches no
 * modelled memory and costs no simulated time.  Natively it is a relaxed
 * add to a line of the caller's cpu, so that counting does not make the
 * threads share a line the lock does not.  Counts stop at the run's end
 * (duration runs; the drained acquisitions after it are not counted, as
 * the acquisitions are not), so that a count over the acquisitions is a
 * rate per acquisition.  The backend's own clock and stop flag say when:
 * the simulated clock in the simulator, the harness's stop flag natively.
 *
 * One run at a time per process (a sweep runs its runs one after another;
 * --jobs runs them in processes of their own).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/lock.h>
#include <locklab/mem.h>
#include <locklab/workload.h>

#include "run_end.h"

struct count_line {
	uint64_t n[LL_MAX_COUNTS];
} __attribute__((aligned(64)));

/* The lines are made once and kept: natively the threads of a run the
 * watchdog gave up on may still count into them (their run failed, and
 * its memory is kept for them too). */
static struct {
	struct count_line *lines; /* WL_MAX_THREADS of them */
	unsigned nlines, ncounts; /* this run's; ncounts 0: counting nothing */
	const struct wl_run *run;
} ev;

static unsigned counts_of(const struct lock_algo *a)
{
	unsigned n = 0;

	while (n < LL_MAX_COUNTS && a->counts[n])
		n++;
	return n;
}

int wl_counts_begin(const struct wl_run *run)
{
	unsigned n = counts_of(run->algo), cpus = ll_nr_cpus();

	wl_counts_end();
	if (!n)
		return 0;
	if (!ev.lines)
		ev.lines = aligned_alloc(64, WL_MAX_THREADS * sizeof(*ev.lines));
	if (!ev.lines)
		return -1;
	ev.nlines = cpus && cpus < WL_MAX_THREADS ? cpus : WL_MAX_THREADS;
	memset(ev.lines, 0, ev.nlines * sizeof(*ev.lines));
	ev.run = run;
	__atomic_store_n(&ev.ncounts, n, __ATOMIC_RELEASE);
	return 0;
}

/* Past the run's end: a duration run's counts stop there. */
static bool past_end(void)
{
	const struct wl_run *run = ev.run;

	return run->end_ns && wl_untimed_past_end(run);
}

void ll_count(unsigned k)
{
	if (k >= __atomic_load_n(&ev.ncounts, __ATOMIC_ACQUIRE) || past_end())
		return;
	__atomic_fetch_add(&ev.lines[ll_this_cpu() % ev.nlines].n[k], 1, __ATOMIC_RELAXED);
}

unsigned wl_counts_sum(uint64_t out[LL_MAX_COUNTS])
{
	memset(out, 0, LL_MAX_COUNTS * sizeof(*out));
	for (unsigned c = 0; ev.ncounts && c < ev.nlines; c++)
		for (unsigned k = 0; k < ev.ncounts; k++)
			out[k] += __atomic_load_n(&ev.lines[c].n[k], __ATOMIC_RELAXED);
	return ev.ncounts;
}

void wl_counts_end(void)
{
	__atomic_store_n(&ev.ncounts, 0, __ATOMIC_RELEASE);
}
