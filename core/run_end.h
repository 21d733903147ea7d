/*
 * core/run_end.h - whether a duration run is past its end, as an untimed
 * step of it can tell: from the simulated clock, which costs nothing to
 * read (LL_CLOCK_IS_FREE), or natively from the harness's two flags
 * (core/workload.c, "Stopping").  The harness's loop and a lock's counts
 * (core/counts.c) ask the same question.
 */
#ifndef LOCKLAB_RUN_END_H
#define LOCKLAB_RUN_END_H

#include <stdbool.h>

#include <locklab/mem.h>
#include <locklab/workload.h>

static __always_inline bool wl_untimed_past_end(const struct wl_run *run)
{
	if (LL_CLOCK_IS_FREE)
		return ll_now_ns() >= run->end_ns;
	return __atomic_load_n(&run->stop, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&run->time_up, __ATOMIC_RELAXED);
}

#endif
