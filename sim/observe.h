/*
 * sim/observe.h - the one hook through which the simulator tells an
 * observer what happened in a run: the handoff ledger of `explain` and the
 * contention graphs of --graphs (sim/report/) watch through it.  Inert while
 * nobody asked: sim_observer is NULL, and each call site costs one test.
 *
 * tid is the actor's index; times are run time in ps on the thread's own
 * clock.
 */
#ifndef SIM_OBSERVE_H
#define SIM_OBSERVE_H

#include <stdint.h>

#include <locklab/result.h>
#include <locklab/workload.h>

#include "coherence.h"

/* Local time a thread owes: work (hits, pauses, the lock's own code), the
 * halt, kick and wake-up of ll_park/ll_unpark, the store buffer's drain,
 * the exit from the idle state a sleeper's hardware thread entered
 * (sim/idle.c), or an interrupt's hold on the core (sim/sched_noise.c). */
enum sim_obs_local { SIM_OBS_WORK, SIM_OBS_PARK, SIM_OBS_STOREBUF, SIM_OBS_IDLE_EXIT, SIM_OBS_IRQ };

struct sim_observer {
	void (*local)(unsigned tid, uint64_t from, uint64_t to, enum sim_obs_local what);
	void (*delay)(unsigned tid, uint64_t from, uint64_t to); /* ll_delay_ns */
	void (*hit)(unsigned tid, uintptr_t addr, uint64_t from, uint64_t to);
	/* waiting for the store buffer's drain of a store to addr (tso, pso) */
	void (*drain)(unsigned tid, uintptr_t addr, uint64_t from, uint64_t to);
	/* a miss leaves at issue and reaches the line's home at arrival */
	void (*issue)(unsigned tid, uintptr_t addr, uint64_t issue, uint64_t arrival);
	void (*miss)(unsigned tid, uintptr_t addr, enum coh_op op, const struct coh_result *r);
	void (*block)(unsigned tid, uint64_t from);
	void (*unblock)(unsigned tid, uint64_t to);
	void (*woken)(unsigned tid, int waker); /* waker -1: maestro */
	/* a run found deadlocked or without progress, while the threads
	 * still stand where they stopped */
	void (*failure)(const char *what);
	/* after every run, with its counters */
	void (*end_run)(const struct wl_run *run, const struct run_counters *c);
};

extern const struct sim_observer *sim_observer;

#define SIM_OBSERVE(hook, ...)                                                 \
	do {                                                                   \
		if (sim_observer)                                              \
			sim_observer->hook(__VA_ARGS__);                       \
	} while (0)

#endif
