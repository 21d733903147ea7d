/*
 * core/spread.c - how a run's acquisitions spread over its threads: the
 * fewest and most of one thread, the mean, the coefficient of variation,
 * Jain's index and the threads that got none; of guests on locks of their
 * own, each guest's.  The table (core/sweep.c) and explain
 * (sim/report/ledger.c) read the same figures from here.
 */
#include <math.h>
#include <stdlib.h>

#include <locklab/stats.h>
#include <locklab/workload.h>

/*
 * Guests on locks of their own (--co-guests same: cfg->group_threads
 * threads a guest, sim/vm.c): the fairness of a lock is that within its
 * guest, not between guests that share no lock.  min and max become those
 * of the guest whose fewest is the smallest share of its most, and Jain
 * the mean of the guests' own indices.
 */
static void spread_within_groups(const struct wl_run *run, const double *acq,
				 struct wl_spread *s)
{
	unsigned g = run->cfg ? run->cfg->group_threads : 0, n = run->nthreads, groups = 0;
	double jain = 0;

	if (!g || g >= n)
		return;
	s->min = UINT64_MAX;
	s->max = 0;
	for (unsigned from = 0; from < n; from += g) {
		unsigned len = n - from < g ? n - from : g;
		uint64_t lo = UINT64_MAX, hi = 0;

		for (unsigned i = from; i < from + len; i++) {
			uint64_t a = run->threads[i].acquisitions;

			lo = a < lo ? a : lo;
			hi = a > hi ? a : hi;
		}
		if (s->min == UINT64_MAX || (hi && (!s->max || (double)lo / (double)hi <
							    (double)s->min / (double)s->max))) {
			s->min = lo;
			s->max = hi;
		}
		jain += ll_jain(acq + from, len);
		groups++;
	}
	s->jain = jain / groups;
}

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
	spread_within_groups(run, acq, s);
	free(acq);
	return 0;
}
