/*
 * sim/admission.c - a miss presented to the coherence model at the line's
 * home (sim/memops.c's present stage): admitted at once, or waiting on the
 * line's list until a completion or a grant admits it (the machine's
 * arbitration, sim/coh_arbitration.c); and the count of blocked threads
 * that tells a deadlock.
 *
 *   present       admitted: the line's other due misses are admitted too
 *                 (the holder's socket may have had its bound)
 *                 not admitted: SIM_PARKED_ADMIT, suspended until an actor
 *                 admits it (sim_admit_due), or asleep until a fetch ahead
 *                 of the store buffer ends (nobody completes that fetch)
 *   every completion, every admission
 *                 sim_admit_due: each waiting miss now due is admitted and
 *                 resumed, in the model's order
 */
#include "sim.h"
#include "turns.h"

/* Admit, and wake, every waiting miss of the line that is due now (the
 * model keeps them in order; each gets its result in its actor).  Called
 * after every admission and every completion while some actor waits. */
void sim_admit_due(struct sim_actor *me, uintptr_t addr)
{
	struct coh_result r;
	struct sim_actor *w;

	while (sim.nadmit && (w = coh_admit_next(sim.model, addr, sim.now_ps, &r))) {
		w->admit_r = r;
		w->block = SIM_RUNNING;
		sim.nadmit--;
		if (w == me)
			me->admit_self = true;
		else
			sim_resume_actor(w);
	}
}

bool sim_all_blocked_with(unsigned more)
{
	return sim.nparked + more + sim.nadmit - sim.nadmit_timed == sim.nlive;
}

bool sim_all_blocked(void)
{
	return sim_all_blocked_with(0);
}

/* Wait until admitted.  A line the store buffer fetched ahead (sim/storebuf.c)
 * is busy until the fetch ends, and no actor completes that fetch to admit
 * the waiters: the waiter looks again itself at the fetch's end. */
static void wait_admission(struct sim_actor *a, uintptr_t addr)
{
	uint64_t end = coh_unattended_end(sim.model, addr);

	if (end > sim.now_ps) {
		sim.nadmit_timed++;
		sim_sleep_until(a, end, SIM_EV_ADMIT);
		sim.nadmit_timed--;
		if (a->block != SIM_PARKED_ADMIT) {
			a->resume_pending = false; /* admitted meanwhile */
			return;
		}
		sim_admit_due(a, addr);
		if (a->admit_self)
			return;
	}
	if (sim_all_blocked())
		sim_deadlock(a);
	sim_suspend_self(a);
}

/* Present a miss that has arrived: the model admits it at once, or it
 * waits (suspended) until admitted.  Either way r is its result. */
void sim_present(struct sim_actor *a, uintptr_t addr, enum coh_op op, uint64_t travel,
		 struct coh_result *r)
{
	if (coh_request(sim.model, a->core, addr, op, sim.now_ps, travel, a, r)) {
		sim_admit_due(a, addr); /* the holder's socket may have had its bound */
		return;
	}
	a->block = SIM_PARKED_ADMIT;
	a->wait_line = addr;
	a->admit_self = false;
	sim.nadmit++;
	sim_admit_due(a, addr); /* the line may have gone idle at this instant */
	if (!a->admit_self)
		wait_admission(a, addr);
	*r = a->admit_r;
}

/* An aborted run wakes an actor waiting for admission (it leaves). */
void sim_admit_abandon(struct sim_actor *w)
{
	w->block = SIM_RUNNING;
	sim.nadmit--;
	sim_resume_actor(w);
}
