/*
 * sim/local.c - what a thread does that no other thread sees: local time
 * owed (a pause, a delay, the work of a park), paid at its next visible act
 * (sim/memops.c), and where it runs.  Every call first waits for a
 * completion left for later (sim_settle_pending), so that it comes at its
 * instant.
 */
#include <locklab/mem.h>

#include "observe.h"
#include "sim.h"
#include "storebuf.h"
#include "switches.h"
#include "vm.h"

/* Local time owed by the running actor, with the observer told. */
void sim_owe(struct sim_actor *a, uint64_t ps, enum sim_obs_local what)
{
	SIM_OBSERVE(local, a->idx, sim.now_ps + a->owed_ps, sim.now_ps + a->owed_ps + ps, what);
	a->owed_ps += ps;
}

void ll_cpu_relax(void)
{
	sim_settle_pending(sim.cur);
	if (sim.cur)
		sim_owe(sim.cur, sim.topo.pause_ps ? sim.topo.pause_ps : 1, SIM_OBS_WORK);
}

void ll_delay_ns(uint64_t ns)
{
	struct sim_actor *a = sim.cur;

	if (!a)
		return;
	sim_settle_pending(a);
	SIM_OBSERVE(delay, a->idx, sim.now_ps + a->owed_ps, sim.now_ps + a->owed_ps + ns * 1000);
	a->owed_ps += sim_smt_delay_ps(a, sim.now_ps + a->owed_ps, ns * 1000);
	if (sim_vm)
		sim_pay(a); /* at once: a preemption then sees the phase it belongs to */
}

void ll_sync(void)
{
	if (sim.cur) {
		sim_settle_pending(sim.cur);
		sb_drain_due(sim.cur);
		sim_pay(sim.cur);
	}
}

uint64_t ll_now_ns(void)
{
	return sim_local_ps() / 1000;
}

unsigned ll_this_cpu(void)
{
	if (!sim.cur)
		return 0;
	return sim_vm ? vm_cpu_of(sim.cur->idx) : sim.cur->idx;
}

/* A path the process scheduler does not preempt (sim/vm.h, "Processes"):
 * counted on the actor; leaving the outermost is a preemption point. */
void ll_preempt_disable(void)
{
	if (sim.cur)
		sim.cur->preempt_off++;
}

void ll_preempt_enable(void)
{
	struct sim_actor *a = sim.cur;

	if (!a || !a->preempt_off || --a->preempt_off || !sim_vm)
		return;
	sim_settle_pending(a);
	sim_pay(a); /* vm_pay: a preemption point, owed time or not */
}

unsigned ll_this_node(void)
{
	return sim.cur ? sim.cur->node : 0;
}

unsigned ll_nr_cpus(void)
{
	return sim.run ? sim.run->nthreads : sim.nactors;
}

unsigned ll_nr_nodes(void)
{
	return sim.topo.nsockets ? sim.topo.nsockets : 1;
}
