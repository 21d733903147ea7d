/*
 * sim/vm_cfs.c - whom the host's CFS runs, as Linux 3.10's
 * kernel/sched/fair.c picks: who runs next on a pCPU, whether a directed
 * yield's buddy runs, who runs after a spinner yields, and where a kicked
 * vCPU is placed.  sim/vm_sched.c moves the schedule (cur, slices,
 * hand-overs) by these picks; they keep min_vruntime, the next buddy and a
 * woken vCPU's virtual runtime.
 *
 * With CFS's slices (vm_cfs: no --slice-us) the host's scheduler keeps each
 * vCPU's virtual runtime (all of equal weight: the time it has run) and each
 * pCPU's min_vruntime, for the pick of who runs next (vm_pick_next), the
 * wake-up of a halted vCPU (vm_on_kick) and a directed yield's buddies
 * (vm_boost, vm_yield_pick).
 */
#include "sim.h"
#include "vm.h"
#include "vm_state.h"

/* The virtual runtime of p's cur at now, or NONE on an idle pCPU. */
static uint64_t cur_vr(const struct vm_pcpu *p, uint64_t now)
{
	const struct vm_vcpu *v;

	if (p->cur < 0)
		return NONE;
	v = &sim_vm->v[p->cur];
	return v->vr_ps + (now > v->start_ps ? now - v->start_ps : 0);
}

/* The queued vCPU of least virtual runtime on p (the first of equals in
 * the queue's order), or -1. */
static int leftmost(const struct vm_pcpu *p)
{
	int left = -1;

	for (int i = p->head; i >= 0; i = sim_vm->v[i].next)
		if (left < 0 || sim_vm->v[i].vr_ps < sim_vm->v[left].vr_ps)
			left = i;
	return left;
}

/* The least of cur's and the queued vCPUs' virtual runtimes on p at now
 * (CFS's leftmost, cur counted), or NONE on an idle pCPU with none queued. */
static uint64_t least_vr(const struct vm_pcpu *p, uint64_t now)
{
	uint64_t m = cur_vr(p, now);
	int left = leftmost(p);

	return left >= 0 && sim_vm->v[left].vr_ps < m ? sim_vm->v[left].vr_ps : m;
}

/* vm_state.h: update_min_vruntime. */
void vm_update_min_vr(struct vm_pcpu *p, uint64_t now)
{
	uint64_t m = least_vr(p, now);

	if (m != NONE && m > p->min_vr_ps)
		p->min_vr_ps = m;
}

/* A halted vCPU w is kicked onto p, whose cur runs: CFS places a woken
 * task at most half its latency behind min_vruntime (place_entity with
 * GENTLE_FAIR_SLEEPERS: 12 ms on 8 CPUs or more) and preempts cur when
 * cur's virtual runtime leads the woken one's by more than the wake-up
 * granularity (check_preempt_wakeup: 4 ms), kernel/sched/fair.c.  True:
 * cur is to leave, at its next preemption point (as for a boost), and w
 * to run next (set_next_buddy; vm_on_kick). */
bool vm_wakeup_preempts(struct vm_pcpu *p, struct vm_vcpu *w, uint64_t now)
{
	uint64_t half = sim_vm->cfs_latency_ps / 2, floor;

	vm_update_min_vr(p, now);
	floor = p->min_vr_ps > half ? p->min_vr_ps - half : 0;
	if (w->vr_ps < floor)
		w->vr_ps = floor;
	return p->cur >= 0 && cur_vr(p, now) > w->vr_ps + sim_vm->cfs_wakeup_gran_ps;
}

/* Is p's next buddy queued and within the wake-up granularity of the
 * leftmost's virtual runtime left_vr (pick_next_entity runs it first)? */
static bool buddy_runs(const struct vm_pcpu *p, uint64_t left_vr)
{
	int nb = p->next_buddy;

	return nb >= 0 && sim_vm->v[nb].state == VC_READY &&
	       sim_vm->v[nb].vr_ps <= left_vr + sim_vm->cfs_wakeup_gran_ps;
}

/* vm_state.h: who runs next on p (pick_next_entity, kernel/sched/fair.c,
 * Linux 3.10).  The next buddy is set by yield_to_task_fair and by a
 * wake-up that preempts (check_preempt_wakeup; the NEXT_BUDDY feature, off
 * by default, would set it at every wake-up); the last buddy (LAST_BUDDY)
 * and the skip buddy are not kept: a spinner's yield is decided, the skip
 * buddy's second choice with it, before it leaves (vm_yield_pick).  As
 * clear_buddies(cfs_rq, se) does, a pick clears the next buddy only when
 * it picks it: a buddy passed over because it has run too far ahead of the
 * leftmost stays for the picks after, until it runs or leaves the queue. */
int vm_pick_next(struct vm_pcpu *p)
{
	int i, nb = p->next_buddy;

	if (nb >= 0 && sim_vm->v[nb].state != VC_READY)
		nb = p->next_buddy = -1; /* dequeued: dequeue_entity clears its buddies */
	if (!vm_cfs()) {
		p->next_buddy = -1;
		return vm_rq_pop(p);
	}
	i = leftmost(p);
	if (i >= 0 && buddy_runs(p, sim_vm->v[i].vr_ps))
		i = nb;
	if (i >= 0 && i == nb)
		p->next_buddy = -1;
	if (i >= 0)
		vm_rq_remove(p, (unsigned)i);
	return i;
}

/* vm_state.h: whether CFS runs p's next buddy w next. */
bool vm_cfs_picks(struct vm_pcpu *p, int w, uint64_t now)
{
	if (w < 0 || !vm_cfs())
		return w >= 0;
	return sim_vm->v[w].vr_ps <= least_vr(p, now) + sim_vm->cfs_wakeup_gran_ps;
}

/* vm_state.h: who runs on p when its cur, a spinner, yields. */
int vm_yield_pick(const struct vm_pcpu *p, unsigned self, uint64_t now)
{
	uint64_t gran = sim_vm->cfs_wakeup_gran_ps, self_vr = cur_vr(p, now), left_vr;
	int q = leftmost(p), se;

	if (!vm_cfs())
		return p->head >= 0 ? p->head : (int)self;
	if (q >= 0 && sim_vm->v[q].vr_ps <= self_vr) {
		se = q;
		left_vr = sim_vm->v[q].vr_ps;
	} else {
		se = q >= 0 && sim_vm->v[q].vr_ps <= self_vr + gran ? q : (int)self;
		left_vr = self_vr;
	}
	return buddy_runs(p, left_vr) ? p->next_buddy : se;
}
