/*
 * sim/failure.c - how a simulated run ends when it cannot go on: a deadlock
 * (a thread about to park with no deadline while every other live thread
 * is parked with no deadline or waits for admission), a stretch of
 * simulated time of the watchdog's length without any acquisition, a stop
 * asked by SIGINT or SIGTERM (core/sweep.c), or sim_fail().  A run that SimGrid ends with threads still blocked fails
 * too (sim_check_stranded).  The report
 * names, for each thread, the line it waits on or where it stands; every
 * actor then leaves through a longjmp to its entry (sim/engine.c).
 *
 * The watchdog shares its check with the end-of-measurement snapshot of
 * the counters: both run when simulated time reaches sim.next_check_ps.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <locklab/backend.h>
#include <locklab/workload.h>

#include "idle.h"
#include "observe.h"
#include "sim.h"
#include "vm.h"

const char *sim_phase_name(int phase)
{
	static const char *const names[] = {
		[PH_OUTSIDE] = "outside", [PH_ACQUIRING] = "acquiring", [PH_HOLDING] = "holding",
	};

	return names[phase >= PH_OUTSIDE && phase <= PH_HOLDING ? phase : PH_OUTSIDE];
}

/* Append "t0 waits on lock+0, t1 in ll_park, ..." to buf; with running,
 * threads that neither wait nor park are listed by workload phase. */
static void describe_threads(char *buf, size_t len, bool running)
{
	size_t off = strlen(buf);
	bool first = true;

	for (unsigned i = 0; i < sim.nactors && off + 1 < len; i++) {
		struct sim_actor *w = &sim.actors[i];
		const char *sep = first ? "" : ", ";
		char where[96];
		int n;

		if (w->block == SIM_PARKED_LINE) {
			sim_describe_line(w->wait_line, where, sizeof(where));
			n = snprintf(buf + off, len - off, "%st%u %s%s", sep, w->idx,
				     first ? "waits on " : "on ", where);
		} else if (w->block == SIM_PARKED_KICK) {
			n = snprintf(buf + off, len - off, "%st%u in ll_park", sep, w->idx);
		} else if (w->block == SIM_PARKED_ADMIT) {
			sim_describe_line(w->wait_line, where, sizeof(where));
			n = snprintf(buf + off, len - off, "%st%u waits for admission to %s", sep,
				     w->idx, where);
		} else if (running && w->block == SIM_RUNNING) {
			int ph = sim.run ? sim.run->threads[i].phase : 0;

			n = snprintf(buf + off, len - off, "%st%u %s", sep, w->idx,
				     sim_phase_name(ph));
		} else {
			continue;
		}
		first = false;
		if (n < 0 || (size_t)n >= len - off) {
			if (len > 4)
				strcpy(buf + len - 4, "...");
			return;
		}
		off += (size_t)n;
	}
}

/* End the run: every actor leaves through its longjmp, the caller too. */
static void abort_run(struct sim_actor *me)
{
	sim.aborting = true;
	for (unsigned i = 0; i < sim.nactors; i++) {
		struct sim_actor *w = &sim.actors[i];

		if (w != me && w->block == SIM_PARKED_ADMIT) {
			sim_admit_abandon(w);
			continue;
		}
		if (w == me || (w->block != SIM_PARKED_LINE && w->block != SIM_PARKED_KICK))
			continue;
		w->next_waiter = NULL;
		sim_wake(w);
	}
	if (sim_vm)
		vm_abort(); /* vCPUs waiting for their pCPU */
	if (me && me->block != SIM_EXITED)
		longjmp(me->exit_jmp, 1);
}

static char *failure_buf(size_t *len)
{
	static char scratch[512];

	if (sim.run) {
		*len = sizeof(sim.run->failure);
		return sim.run->failure;
	}
	*len = sizeof(scratch);
	return scratch;
}

void sim_fail(const char *fmt, ...)
{
	size_t len;
	char *buf = failure_buf(&len);
	va_list ap;

	if (sim.aborting)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (sim.run)
		sim.run->failed = 1;
	abort_run(sim.cur);
}

void sim_deadlock(struct sim_actor *me)
{
	size_t len;
	char *buf = failure_buf(&len);

	if (sim.aborting)
		return;
	SIM_OBSERVE(failure, "deadlock");
	snprintf(buf, len, "deadlock at %.3f us: every thread is parked: ", (double)sim.now_ps / 1e6);
	describe_threads(buf, len, false);
	if (sim.run)
		sim.run->failed = 1;
	abort_run(me);
}

/* SimGrid ended the run while actors were still blocked: a deadlock that
 * the checks above missed.  The run fails, naming them. */
void sim_check_stranded(void)
{
	size_t len;
	char *buf;

	if (sim.aborting || !sim.nlive)
		return;
	buf = failure_buf(&len);
	snprintf(buf, len, "deadlock at %.3f us: the simulation stopped with threads blocked: ",
		 (double)sim.now_ps / 1e6);
	describe_threads(buf, len, true);
	if (sim.run)
		sim.run->failed = 1;
}

static void no_progress(uint64_t last)
{
	size_t len;
	char *buf = failure_buf(&len);

	if (sim.aborting)
		return;
	SIM_OBSERVE(failure, "no progress");
	snprintf(buf, len, "no progress: no acquisition in %.3f ms of simulated time (at %.3f ms%s): ",
		 (double)(sim.now_ps - last) / 1e9, (double)sim.now_ps / 1e9,
		 sim.progress_bound_ps ? "" : ", past the run's end: --watchdog 0 is off within it");
	describe_threads(buf, len, true);
	sim.run->failed = 1;
	abort_run(sim.cur);
}

uint64_t sim_time_left(void)
{
	return sim.base_ps < SIM_TIME_MAX_PS ? SIM_TIME_MAX_PS - sim.base_ps : 0;
}

/* The end-of-measurement snapshot and the watchdog, when simulated time
 * reaches sim.next_check_ps; and, at the first event after a signal asked
 * the sweep to stop (backend_stop_asked, sim_resumed), the run's end. */
void sim_check_progress(void)
{
	uint64_t next = sim_time_left(), bound = sim.progress_bound_ps;

	if (backend_stop_asked && sim.run) {
		sim.next_check_ps = UINT64_MAX;
		sim_fail("stopped by a signal at %.3f ms of simulated time", (double)sim.now_ps / 1e9);
		return;
	}
	if (sim.now_ps >= next) {
		sim.next_check_ps = UINT64_MAX;
		sim_fail("simulated time ran out at %.3f ms: a process simulates at most %.0f h, "
			 "its runs together", (double)sim.now_ps / 1e9, SIM_TIME_MAX_PS / 3.6e15);
		return;
	}
	if (!sim.snapped && sim.now_ps >= sim.end_ps) {
		const struct coh_counters *k = coh_counters(sim.model);

		sim.snap = *k;
		if (sim.topo.nlinks && sim.snap_links && k->link_msgs)
			memcpy(sim.snap_links, k->link_msgs, sim.topo.nlinks * sizeof(uint64_t));
		sim.snapped = true;
	}
	if (!sim.snapped && sim.end_ps < next)
		next = sim.end_ps;
	if (!bound && sim.snapped)
		bound = sim.end_bound_ps;
	if (sim.run && bound) {
		uint64_t last = 0;

		for (unsigned i = 0; i < sim.run->nthreads; i++) {
			uint64_t p = sim.run->threads[i].last_progress_ns * 1000;

			if (p > last)
				last = p;
		}
		/* last may lie ahead of now: a thread's own clock runs ahead of
		 * the others' by what it owes */
		if (sim.now_ps > last && sim.now_ps - last > bound) {
			sim.next_check_ps = UINT64_MAX;
			no_progress(last);
			return;
		}
		if (last + bound + 1 < next)
			next = last + bound + 1;
	}
	sim.next_check_ps = next;
}

/* An actor leaves (its function returned, or the run was aborted). */
void sim_actor_exit(struct sim_actor *a)
{
	if (a->block == SIM_EXITED)
		return;
	a->block = SIM_EXITED;
	sim.nlive--;
	idle_vacate(a->core); /* its hardware thread has nothing left to run */
	if (sim_vm)
		vm_actor_exit(a); /* its pCPU goes to the next vCPU */
	if (!sim.aborting && sim.nlive && sim_all_blocked())
		sim_deadlock(a);
}
