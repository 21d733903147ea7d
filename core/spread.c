/*
 * core/spread.c - how a run's acquisitions spread over its threads: the
 * fewest and most of one thread, the mean, the coefficient of variation,
 * Jain's index and the threads that got none.  The table (core/sweep.c) and
 * explain (sim/report/ledger.c) read the same figures from here.
 */
#include <math.h>
#include <stdlib.h>

#include <locklab/stats.h>
#include <locklab/workload.h>

int wl_thread_spread(const struct wl_run *run, struct wl_spread *s)
{
	unsigned n = run->nthreads;
	double *acq = calloc(n ? n : 1, sizeof(*acq)), sum = 0, sq = 0;

	if (!acq)
		return -1;
	s->min = UINT64_MAX;
	s->max = 0;
	s->starved = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t a = run->threads[i].acquisitions;

		acq[i] = (double)a;
		sum += acq[i];
		s->min = a < s->min ? a : s->min;
		s->max = a > s->max ? a : s->max;
		s->starved += a == 0;
	}
	s->mean = n ? sum / n : 0;
	for (unsigned i = 0; i < n; i++)
		sq += (acq[i] - s->mean) * (acq[i] - s->mean);
	s->cv = n > 1 && s->mean > 0 ? sqrt(sq / (n - 1)) / s->mean : 0;
	s->jain = ll_jain(acq, n);
	free(acq);
	return 0;
}
