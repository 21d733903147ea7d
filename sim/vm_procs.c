/*
 * sim/vm_procs.c - the OS model: the schedule of sim/vm_sched.c with an
 * OS's processes for vCPUs (sim/vm.h, "Processes"; docs/filelock.md, "More
 * processes than CPUs"): its costs, where ll_this_cpu is, where a woken
 * process runs (select_idle_sibling) and what a cpu going idle takes over
 * (idle_balance), as Linux 4.1's kernel/sched/fair.c does them.
 */
#include "sim.h"
#include "vm.h"
#include "vm_state.h"

/* A switch between two processes of an OS (--procs above the CPUs of
 * `filelock`): *assumed*, the order of lmbench's lat_ctx on servers of
 * 2012-2015 (a few us), not measured here. */
#define OS_SWITCH_PS (2000ull * NS_PS)

void vm_processes(void)
{
	vm_prm.processes = true;
	vm_prm.ple_window_ps = 0;
	vm_prm.halt_ps = SIM_HALT_PS;
	vm_prm.kick_ps = SIM_KICK_PS;
	vm_prm.wake_ps = SIM_WAKE_PS;
	vm_prm.switch_ps = OS_SWITCH_PS;
	vm_prm.busy_guests = vm_prm.same_guests = false;
}

bool vm_are_processes(void)
{
	return vm_prm.processes;
}

unsigned vm_cpu_of(unsigned i)
{
	return sim_vm && vm_prm.processes && i < sim_vm->nv ? sim_vm->v[i].pcpu : i;
}

/* Each pCPU's ring of the pCPUs on its physical core (the OS model's
 * wake-up placement asks whether a whole core is idle). */
void vm_link_siblings(struct vm_state *vm)
{
	for (unsigned q = 0; q < vm->np; q++) {
		unsigned phys = topo_phys(&sim.topo, vm->pcore[q]);

		vm->sib[q] = q;
		for (unsigned k = 1; k < vm->np; k++) {
			unsigned r = (q + k) % vm->np;

			if (topo_phys(&sim.topo, vm->pcore[r]) == phys) {
				vm->sib[q] = r;
				break;
			}
		}
	}
}

/* ------------------------------------------------------------ idle spells */

/* The OS model: idle p gets a process at t.  Linux's avg_idle
 * (ttwu_do_wakeup, Linux 4.1): the running mean, by eighths, of the idle
 * spells, then held at twice the migration cost; the spell is closed. */
void vm_idle_ends(struct vm_pcpu *p, uint64_t t)
{
	uint64_t spell = t > p->idle_stamp_ps ? t - p->idle_stamp_ps : 0, max = 2 * OS_MIGRATION_COST_PS;

	if (p->idle_stamp_ps == NONE) /* no spell open: its first process, or a pull */
		return;
	p->avg_idle_ps = (uint64_t)((int64_t)p->avg_idle_ps +
				    ((int64_t)spell - (int64_t)p->avg_idle_ps) / 8);
	if (p->avg_idle_ps > max)
		p->avg_idle_ps = max;
	p->idle_stamp_ps = NONE;
}

/* Process i moves to pCPU q (woken, or taken over by an idle q): its
 * virtual runtime is renormalized from its old queue's min_vruntime to
 * q's, as a migrating task's is, and its thread runs on q's core. */
void vm_move_to(unsigned i, unsigned q)
{
	struct vm_vcpu *v = &sim_vm->v[i];
	uint64_t from;

	vm_update_min_vr(&sim_vm->p[v->pcpu], sim.now_ps);
	from = sim_vm->p[v->pcpu].min_vr_ps;

	v->vr_ps = (v->vr_ps > from ? v->vr_ps - from : 0) + sim_vm->p[q].min_vr_ps;
	v->pcpu = q;
	sim_set_core(&sim.actors[i], sim_vm->pcore[q]);
}

/* ------------------------------------------------------------ idle balance */

/* A queued process of q that has not run for the migration cost (not
 * cache-hot, task_hot), the first in q's queue; -1: none. */
static int cold_queued(const struct vm_pcpu *q, uint64_t t)
{
	for (int j = q->head; j >= 0; j = sim_vm->v[j].next) {
		const struct vm_vcpu *w = &sim_vm->v[j];

		if (w->state == VC_READY &&
		    (w->left_ps == NONE || t >= w->left_ps + OS_MIGRATION_COST_PS))
			return j;
	}
	return -1;
}

/* The pCPU idle p would take a process from in one of its domains, as
 * idle_balance walks them (p's physical core, its socket, the machine):
 * the one with the most processes queued (find_busiest_queue; Linux weighs
 * load averages where the model counts queued processes), and *task its
 * first queued process that is not cache-hot, or -1 when every one is
 * (can_migrate_task refuses a hot task to a newly idle cpu, and
 * idle_balance then tries the next domain).  -1: no pCPU of the domain
 * has a process queued. */
static int busiest_in(unsigned p, int level, uint64_t t, int *task)
{
	unsigned pc = sim_vm->pcore[p], best_n = 0;
	int best = -1;

	for (unsigned q = 0; q < sim_vm->np; q++) {
		unsigned qc = sim_vm->pcore[q];

		if (q == p || sim_vm->p[q].queued <= best_n ||
		    (level == 0 && topo_phys(&sim.topo, qc) != topo_phys(&sim.topo, pc)) ||
		    (level == 1 && sim.topo.core_socket[qc] != sim.topo.core_socket[pc]))
			continue;
		best = (int)q;
		best_n = sim_vm->p[q].queued;
	}
	*task = best < 0 ? -1 : cold_queued(&sim_vm->p[best], t);
	return best;
}

/* p has gone idle at t: as Linux 4.1's idle_balance, when its idle spells
 * average at least the migration cost, it takes over a queued, cold process
 * of the busiest pCPU of its nearest domain whose busiest has one (one
 * task: the imbalance of a newly idle cpu).  The periodic balance of busy
 * cpus is not modelled. */
int vm_idle_pull(struct vm_pcpu *p, uint64_t t)
{
	unsigned me = (unsigned)(p - sim_vm->p);
	int task = -1, from = -1;

	p->idle_stamp_ps = t;
	if (p->avg_idle_ps < OS_MIGRATION_COST_PS)
		return -1;
	for (int level = 0; level < 3 && task < 0; level++)
		from = busiest_in(me, level, t, &task);
	if (task < 0)
		return -1;
	vm_move_to((unsigned)task, me); /* its queue's min_vruntime counts it still */
	vm_rq_remove(&sim_vm->p[from], (unsigned)task);
	if (sim_vm->p[from].next_buddy == task)
		sim_vm->p[from].next_buddy = -1;
	p->idle_stamp_ps = NONE; /* as idle_balance does after a pull: no spell */
	if (t < sim.end_ps) /* counted over the measured interval */
		sim_vm->k.idle_pulls++;
	return task;
}

/* ------------------------------------------------------------ wake-up placement */

static bool pcpu_idle(unsigned q)
{
	return sim_vm->p[q].cur < 0 && !sim_vm->p[q].queued;
}

/* Is every pCPU on q's physical core idle? */
static bool core_idle(unsigned q)
{
	unsigned r = q;

	do {
		if (!pcpu_idle(r))
			return false;
		r = sim_vm->sib[r];
	} while (r != q);
	return true;
}

static bool same_core(unsigned q, unsigned t)
{
	return topo_phys(&sim.topo, sim_vm->pcore[q]) == topo_phys(&sim.topo, sim_vm->pcore[t]);
}

/* The lowest-numbered pCPU on q's physical core. */
static unsigned core_first(unsigned q)
{
	unsigned r = sim_vm->sib[q], first = q;

	for (; r != q; r = sim_vm->sib[r])
		if (r < first)
			first = r;
	return first;
}

/* Where a woken process runs, as select_idle_sibling (kernel/sched/fair.c,
 * Linux 4.1) places it from its previous cpu t (wake_affine's pull toward
 * the waker's cpu is not modelled: it weighs load averages the model does
 * not keep): t if idle; else the first cpu of a wholly idle core of t's
 * socket, the cores taken in turn from t's; else an idle sibling of t;
 * else t. */
unsigned vm_wake_cpu(unsigned t)
{
	unsigned sock = sim.topo.core_socket[sim_vm->pcore[t]];

	if (pcpu_idle(t))
		return t;
	for (unsigned k = 1; k < sim_vm->np; k++) {
		unsigned q = (t + k) % sim_vm->np;

		if (sim.topo.core_socket[sim_vm->pcore[q]] == sock && !same_core(q, t) &&
		    core_idle(q))
			return core_first(q);
	}
	for (unsigned r = sim_vm->sib[t]; r != t; r = sim_vm->sib[r])
		if (pcpu_idle(r))
			return r;
	return t;
}

