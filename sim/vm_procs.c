/*
 * sim/vm_procs.c - the OS model: the schedule of sim/vm_sched.c with an
 * OS's processes for vCPUs (sim/vm.h, "Processes"; docs/filelock.md, "More
 * processes than CPUs"): its costs, where ll_this_cpu is, where a woken
 * process runs (wake_affine on load averages, then select_idle_sibling)
 * and what a cpu going idle takes over (idle_balance), as Linux 4.1's
 * kernel/sched/fair.c does them.
 */
#include <math.h>

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
 * wake-up placement asks whether a whole core is idle), and the hardware
 * threads of its socket (sd_llc_size, the span of the cache domain that
 * wake_wide scales its flips by). */
void vm_link_siblings(struct vm_state *vm)
{
	for (unsigned q = 0; q < vm->np; q++) {
		unsigned phys = topo_phys(&sim.topo, vm->pcore[q]);
		unsigned sock = sim.topo.core_socket[vm->pcore[q]];

		vm->llc[q] = 0;
		for (unsigned c = 0; c < sim.topo.ncores; c++)
			vm->llc[q] += sim.topo.core_socket[c] == sock;
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

/* ------------------------------------------------------------ the pCPUs */

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

static bool same_socket(unsigned q, unsigned t)
{
	return sim.topo.core_socket[sim_vm->pcore[q]] == sim.topo.core_socket[sim_vm->pcore[t]];
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
	unsigned best_n = 0;
	int best = -1;

	for (unsigned q = 0; q < sim_vm->np; q++) {
		if (q == p || sim_vm->p[q].queued <= best_n || (level == 0 && !same_core(q, p)) ||
		    (level == 1 && !same_socket(q, p)))
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

/* ------------------------------------------------------------ load averages */

/* Linux 4.1's per-entity load tracking (PELT, kernel/sched/fair.c,
 * __update_entity_runnable_avg): a task's runnable time and its time, each
 * summed with a weight that halves every 32 periods of 1024 x 1024 ns (the
 * kernel shifts nanoseconds by 10 twice), and its load the ratio of the two
 * times its weight (1024, nice 0).  The kernel sums in whole periods and
 * holds a queued task's share in its cpu's load as of its last update; the
 * model sums in continuous time, the limit of the same series, and takes
 * every share at the instant it is asked for.  A forked task starts as
 * runnable for its first slice (init_task_runnable_average): here CFS's
 * minimum granularity. */
#define PELT_HALF_LIFE_PS (32ull * 1024ull * 1024ull * NS_PS)
#define NICE_0_LOAD 1024.0

void vm_pelt_decay(double *sum, double *period, bool runnable, uint64_t dt_ps)
{
	double d = exp2(-(double)dt_ps / (double)PELT_HALF_LIFE_PS);
	double grown = (1 - d) * (double)PELT_HALF_LIFE_PS / M_LN2;

	*sum = *sum * d + (runnable ? grown : 0);
	*period = *period * d + grown;
}

static void pelt_decay(const struct vm_vcpu *v, bool runnable, uint64_t t, double *sum,
		       double *period)
{
	*sum = v->pelt_sum_ps;
	*period = v->pelt_period_ps;
	vm_pelt_decay(sum, period, runnable, t > v->pelt_ps ? t - v->pelt_ps : 0);
}

static void pelt_update(unsigned i, bool runnable, uint64_t t)
{
	struct vm_vcpu *v = &sim_vm->v[i];

	pelt_decay(v, runnable, t, &v->pelt_sum_ps, &v->pelt_period_ps);
	v->pelt_ps = t;
}

void vm_pelt_start(unsigned i)
{
	struct vm_vcpu *v = &sim_vm->v[i];

	v->pelt_sum_ps = v->pelt_period_ps = (double)sim_vm->cfs_min_gran_ps;
	v->pelt_ps = 0;
	v->flips_ps = 0;
	v->last_wakee = -1;
}

void vm_pelt_sleep(unsigned i, uint64_t t)
{
	pelt_update(i, true, t);
}

void vm_pelt_wake(unsigned i, uint64_t t)
{
	pelt_update(i, false, t);
}

/* Process j's load at t, runnable since its last update (load_avg_contrib). */
static double runnable_load(unsigned j, uint64_t t)
{
	double sum, period;

	pelt_decay(&sim_vm->v[j], true, t, &sum, &period);
	return NICE_0_LOAD * sum / period;
}

/* weighted_cpuload: the loads of q's runnable processes, the running one
 * and the queued (the cfs_rq's runnable_load_avg). */
static double cpu_load(unsigned q, uint64_t t)
{
	const struct vm_pcpu *p = &sim_vm->p[q];
	double load = p->cur >= 0 ? runnable_load((unsigned)p->cur, t) : 0;

	for (int j = p->head; j >= 0; j = sim_vm->v[j].next)
		load += runnable_load((unsigned)j, t);
	return load;
}

/* ------------------------------------------------------------ wake-up placement */

/* record_wakee (task_waking_fair): the waker counts a flip each time it
 * wakes another process than the last one it woke, and halves its count
 * once a second (HZ jiffies). */
static void record_wakee(unsigned waker, unsigned i, uint64_t t)
{
	struct vm_vcpu *w = &sim_vm->v[waker];

	if (t > w->flips_ps + 1000000ull * US_PS) {
		w->wakee_flips >>= 1;
		w->flips_ps = t;
	}
	if (w->last_wakee != (int)i) {
		w->last_wakee = (int)i;
		w->wakee_flips++;
	}
}

/* wake_wide (Linux 3.12 to 4.2): a wakee that wakes others often, woken by
 * a waker that wakes many times more often, is left where it was. */
static bool wake_wide(unsigned waker, unsigned i)
{
	uint64_t factor = sim_vm->llc[sim_vm->v[waker].pcpu];
	uint64_t flips = sim_vm->v[i].wakee_flips;

	return flips > factor && sim_vm->v[waker].wakee_flips > factor * flips;
}

/* The imbalance_pct of the lowest domain of cpu `this` that spans `prev`
 * (sd_init, Linux 4.1): the core's (SMT) 110, the socket's (MC) 117, a NUMA
 * domain's 125.  Every domain wakes affine: a NUMA domain stops only beyond
 * RECLAIM_DISTANCE (30) in the firmware's distance table, which the
 * topology files do not give (*assumed*: no distance beyond it). */
static unsigned imbalance_pct(unsigned this, unsigned prev)
{
	if (same_core(this, prev))
		return 110;
	return same_socket(this, prev) ? 117 : 125;
}

/* wake_affine's test (Linux 4.1, not a sync wake-up; every cpu of the
 * same capacity; the root task group, where effective_load is the weight
 * itself): the waker's cpu's load with the woken process's full weight
 * added, times 100, at most its last cpu's load (it asleep, so not in it)
 * times 100 + (imbalance_pct - 100) / 2 in whole percent (105, 108, 112);
 * always when the waker's cpu has no load. */
bool vm_affine_balanced(double this_load, double prev_load, unsigned imbalance_pct)
{
	double this_eff = 100, prev_eff = 100 + (imbalance_pct - 100) / 2;

	if (this_load > 0) {
		this_eff *= this_load + NICE_0_LOAD;
		prev_eff *= prev_load;
	}
	return this_eff <= prev_eff;
}

/* wake_affine: wake on the waker's cpu `this` rather than the last, `prev`. */
static bool wake_affine(unsigned this, unsigned prev, uint64_t t)
{
	return vm_affine_balanced(cpu_load(this, t), cpu_load(prev, t), imbalance_pct(this, prev));
}

/* select_idle_sibling (Linux 4.1) from target t for a process last on
 * prev: t if idle; else prev if it shares t's socket (its cache) and is
 * idle; else the first cpu of a wholly idle core of t's socket, the cores
 * taken in turn from t's; else an idle sibling of t; else t. */
static unsigned idle_sibling(unsigned prev, unsigned t)
{
	if (pcpu_idle(t))
		return t;
	if (prev != t && same_socket(prev, t) && pcpu_idle(prev))
		return prev;
	for (unsigned k = 1; k < sim_vm->np; k++) {
		unsigned q = (t + k) % sim_vm->np;

		if (same_socket(q, t) && !same_core(q, t) && core_idle(q))
			return core_first(q);
	}
	for (unsigned r = sim_vm->sib[t]; r != t; r = sim_vm->sib[r])
		if (pcpu_idle(r))
			return r;
	return t;
}

/* select_task_rq_fair for a wake-up (Linux 4.1): the waker records the
 * flip; unless wake_wide says no, wake_affine may take the waker's cpu
 * for the target, and select_idle_sibling places i from the target. */
unsigned vm_wake_cpu(unsigned i, int waker, uint64_t t, bool *affine)
{
	unsigned prev = sim_vm->v[i].pcpu, target = prev;

	*affine = false;
	if (waker >= 0 && (unsigned)waker != i) {
		unsigned this = sim_vm->v[waker].pcpu;

		record_wakee((unsigned)waker, i, t);
		if (this != prev && !wake_wide((unsigned)waker, i) && wake_affine(this, prev, t)) {
			target = this;
			*affine = true;
		}
	}
	return idle_sibling(prev, target);
}
