/*
 * core/readers.c - how many read sections of a run overlapped in time.
 *
 * Each thread of an rwlock run keeps the [enter, leave) spans of its first
 * WL_READ_SPANS counted reads (core/workload.c); wl_max_readers() sweeps
 * them after the run.
 */
#include <stdlib.h>

#include <locklab/workload.h>

/* Sweep line over all recorded spans: +1 at each start, -1 at each end,
 * ends first at equal times (sections that only touch do not overlap).
 * An event is (time << 1 | is_start), so one sort orders both. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

unsigned wl_max_readers(const struct wl_run *run)
{
	size_t n = 0, k = 0;
	uint64_t *ev;
	unsigned in = 0, max = 0;

	for (unsigned i = 0; i < run->nthreads; i++)
		n += run->threads[i].nread_spans;
	if (n == 0)
		return 0;
	ev = malloc(2 * n * sizeof(*ev));
	if (!ev)
		return 0;
	for (unsigned i = 0; i < run->nthreads; i++)
		for (unsigned j = 0; j < run->threads[i].nread_spans; j++) {
			const struct wl_span *sp = &run->threads[i].read_spans[j];

			if (sp->to <= sp->from)
				continue; /* empty: overlaps nothing */
			ev[k++] = sp->from << 1 | 1;
			ev[k++] = sp->to << 1;
		}
	qsort(ev, k, sizeof(*ev), cmp_u64);
	for (size_t i = 0; i < k; i++) {
		if (ev[i] & 1) {
			if (++in > max)
				max = in;
		} else {
			in--;
		}
	}
	free(ev);
	return max;
}
