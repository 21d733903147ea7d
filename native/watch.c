/*
 * native/watch.c - the watchdog's clock: how long a run has gone without
 * progress, counting only time in which the process ran.
 *
 * The watchdog looks every NATIVE_WATCH_STEP_NS.  A look that comes more than
 * NATIVE_WATCH_LATE_NS after it was due finds a process that did not run in
 * between (stopped by SIGSTOP, a debugger, or a suspended machine): that gap
 * counts as one step.  Gaps up to step + late, a loaded machine's late
 * wake-ups included, count in full.
 */
#include "native.h"

static uint64_t ran_since_look(const struct native_watch *w, uint64_t now)
{
	uint64_t gap = now > w->look ? now - w->look : 0;

	return gap > NATIVE_WATCH_STEP_NS + NATIVE_WATCH_LATE_NS ? NATIVE_WATCH_STEP_NS : gap;
}

void native_watch_start(struct native_watch *w, uint64_t now, uint64_t last_progress)
{
	w->look = now;
	w->seen = last_progress;
	w->quiet = now > last_progress ? now - last_progress : 0;
}

uint64_t native_watch_quiet(struct native_watch *w, uint64_t now, uint64_t last_progress)
{
	uint64_t ran = ran_since_look(w, now);

	if (last_progress != w->seen) {
		uint64_t since = now > last_progress ? now - last_progress : 0;

		w->seen = last_progress;
		w->quiet = since < ran ? since : ran;
	} else {
		w->quiet += ran;
	}
	w->look = now;
	return w->quiet;
}
