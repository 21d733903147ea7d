/*
 * sim/vm_sched.c - the schedule of a simulated virtual machine's physical
 * CPUs while a run goes on (sim/vm.h describes the model, sim/vm.c sets a
 * run up): who is cur, the hand-over at preemption points, pause-loop
 * exits, halt and kick, and the counters of preemption.
 *
 * Who moves the schedule.  Each pCPU has at most one running vCPU (cur).
 * Only cur's own actor takes cur off the pCPU, at its preemption points:
 * when its slice has ended and the run queue is not empty, when a PLE exit
 * yields, when it halts, when its thread ends.  It then hands the pCPU to
 * the vCPU the host picks (vm_pick_next) and wakes that actor
 * (sim_turn_wake).  So that a
 * slice end is never missed, cur never sleeps past it: local time is paid
 * in pieces that stop at the slice end, and a spin (a park on a line) has
 * the slice end as a deadline.  (An end that another actor moves earlier,
 * a boost, a kick's recount or a kick's wake-up preemption, is met at cur's
 * next preemption point.)  A vCPU that is not cur waits to be woken,
 * counted neither as parked nor as a deadlock candidate: some
 * cur of its pCPU will hand over.
 *
 * A co-guest's vCPU (--co-guests busy) has no actor: it computes until its
 * slice ends.  The guest's vCPUs waiting for its pCPU wait with that end
 * as a timeout, and the first to wake rotates it out (advance()); a kick
 * of a halted vCPU of the guest preempts it at once.
 *
 * Time of a vCPU's return:
 *
 *   preempted or yielded   the moment the pCPU is handed to it + switch
 *                          (picked again at once: no switch, no preemption)
 *   kicked from a halt     no sooner than kick + wake latency; on an idle
 *                          pCPU exactly then
 *
 * Each slice lasts a seeded draw from [S - F S, S + F S), F the spread
 * (--slice-spread-pct, by default 1/2: [S/2, 3S/2)), so that pCPUs neither
 * start nor stay in lockstep.  S is --slice-us, or by default CFS's slice
 * of one of the n vCPUs runnable on the pCPU when the slice begins (the
 * host's latency, 24 ms on 8 CPUs or more, over n, at least its 3 ms
 * granularity); a kicked vCPU that joins the queue shrinks cur's slice to
 * that of n + 1 counted from cur's pick, at cur's next preemption point.
 */
#include "sim.h"
#include "turns.h"
#include "vm.h"
#include "vm_state.h"

/* ------------------------------------------------------------ virtual runtime
 * (whom CFS runs: sim/vm_cfs.c) */

/* v stops running at t (descheduled, halted, rotated out). */
static void ran_until(struct vm_vcpu *v, uint64_t t)
{
	v->vr_ps += t > v->start_ps ? t - v->start_ps : 0;
}

/* v stops running on p at t: min_vruntime first (it counts v's run so
 * far), then v's virtual runtime (CFS's dequeue and put_prev). */
static void off_cpu(struct vm_pcpu *p, struct vm_vcpu *v, uint64_t t)
{
	vm_update_min_vr(p, t);
	ran_until(v, t);
	v->left_ps = t;
}

/* cur of p is to leave at its next preemption point: its slice ends now
 * (not before its start), never later.  False when it ended already (a
 * resched is pending). */
static bool end_cur_slice(struct vm_pcpu *p, uint64_t now)
{
	uint64_t end = now > p->pick_ps ? now : p->pick_ps;

	if (end >= p->slice_end_ps)
		return false;
	p->slice_end_ps = end;
	return true;
}

/* ------------------------------------------------------------ counting */

/* Counters cover the measured interval (sim.end_ps, as the model's). */
static bool counting(uint64_t t)
{
	return t < sim.end_ps;
}

static uint64_t clipped(uint64_t from, uint64_t to)
{
	if (to > sim.end_ps)
		to = sim.end_ps;
	return to > from ? to - from : 0;
}

static int phase_of(unsigned i)
{
	return __atomic_load_n(&sim_vm->run->threads[i].phase, __ATOMIC_RELAXED);
}

/* vCPU v runs again (at v->start_ps): close its preemption and its wake. */
static void scheduled_in(struct vm_vcpu *v)
{
	struct vm_counters *k = &sim_vm->k;

	if (v->off_phase == PH_HOLDING)
		k->holder_lost_ps += clipped(v->off_ps, v->start_ps);
	else if (v->off_phase == PH_ACQUIRING)
		k->waiter_lost_ps += clipped(v->off_ps, v->start_ps);
	v->off_phase = -1;
	if (v->kick_ps != NONE && counting(v->kick_ps)) {
		k->wakes++;
		k->wake_ps += v->start_ps - v->kick_ps;
	}
	v->kick_ps = NONE;
	v->in_spin = false;
	v->window_ps = sim_vm->window_ps; /* KVM shrinks the window at sched-in */
}

/* ------------------------------------------------------------ hand-over */

static struct vm_vcpu *vcpu_of(struct sim_actor *a)
{
	return &sim_vm->v[a->idx];
}

static struct vm_pcpu *pcpu_of(struct sim_actor *a)
{
	return &sim_vm->p[sim_vm->v[a->idx].pcpu];
}

/* Wake the actor of v, blocked until it is cur. */
static void release(struct vm_vcpu *v)
{
	v->waiting = false;
	sim_turn_wake(&sim.actors[v - sim_vm->v]);
}

/* vCPU i becomes p's cur, running from start (no longer p's next buddy,
 * if it was).  When it is a co-guest's, the vCPUs waiting for p wake, to
 * wait again until its slice ends (only they will rotate it out). */
static void give(struct vm_pcpu *p, unsigned i, uint64_t start)
{
	struct vm_vcpu *v = &sim_vm->v[i];

	if (p->next_buddy == (int)i)
		p->next_buddy = -1;
	if (vm_prm.processes && p->cur < 0)
		vm_idle_ends(p, start);
	v->state = VC_RUNNING;
	v->start_ps = start;
	v->ran |= counting(start);
	p->cur = (int)i;
	p->pick_ps = start;
	p->slice_end_ps = start + vm_slice_len(p);
	if (v->waiting)
		release(v);
	if (!vm_is_other(i))
		return;
	for (int j = p->head; j >= 0; j = sim_vm->v[j].next)
		if (sim_vm->v[j].waiting)
			release(&sim_vm->v[j]);
}

/* p's cur, vCPU `left` (-1: none), has left at t: vCPU i (-1: none, p
 * idles), taken out of p's queue, runs after a switch (or, kicked, no
 * sooner than its wake latency allows), or at once when it is `left` again
 * (CFS puts the preempted task back in its tree before it picks, and may
 * pick it again: no switch). */
static void run_picked(struct vm_pcpu *p, uint64_t t, int left, int i)
{
	uint64_t start = t + (i == left ? 0 : vm_prm.switch_ps);
	struct vm_vcpu *v;

	if (i < 0) {
		p->cur = -1;
		if (vm_prm.processes && (i = vm_idle_pull(p, t)) >= 0)
			run_picked(p, t, -1, i); /* taken over from another queue */
		return;
	}
	v = &sim_vm->v[i];
	if (v->kick_ps != NONE && v->kick_ps + vm_prm.wake_ps > start)
		start = v->kick_ps + vm_prm.wake_ps;
	give(p, (unsigned)i, start);
}

/* The same with the vCPU CFS picks (vm_pick_next). */
static void run_next(struct vm_pcpu *p, uint64_t t, int left)
{
	run_picked(p, t, left, vm_pick_next(p));
}

/* Nobody waits for p: its cur's slice goes on, slice after slice, past
 * now. */
static void extend_slice(struct vm_pcpu *p, uint64_t now)
{
	while (p->slice_end_ps <= now)
		p->slice_end_ps += vm_slice_len(p);
}

/* A co-guest's vCPU has no actor to give its pCPU away: whoever looks at
 * p at `now` (a vCPU waiting for it, a kick) rotates it out at the end of
 * its slices, as if it had. */
static void advance(struct vm_pcpu *p, uint64_t now)
{
	while (p->cur >= 0 && vm_is_other((unsigned)p->cur) && now >= p->slice_end_ps) {
		unsigned o = (unsigned)p->cur;

		if (!p->queued) {
			extend_slice(p, now);
			return;
		}
		sim_vm->v[o].state = VC_READY;
		off_cpu(p, &sim_vm->v[o], p->slice_end_ps);
		vm_rq_push_tail(p, o);
		run_next(p, p->slice_end_ps, (int)o);
	}
}

/* A busy co-guest's vCPU running on p (no actor gives p away) is put back
 * at the head of p's queue at once, for a kicked or boosted vCPU of the
 * guest: p is then idle. */
static void preempt_busy(struct vm_pcpu *p, uint64_t now)
{
	unsigned o;

	if (p->cur < 0 || !vm_is_other((unsigned)p->cur))
		return;
	o = (unsigned)p->cur;
	sim_vm->v[o].state = VC_READY;
	off_cpu(p, &sim_vm->v[o], now);
	vm_rq_push_head(p, o);
	p->cur = -1;
}

/* Block until the pCPU is this vCPU's, then until its start.  While a
 * co-guest's vCPU holds it, the wait ends at that slice's end. */
static void wait_turn(struct sim_actor *a)
{
	struct vm_vcpu *v = vcpu_of(a);
	struct vm_pcpu *p = pcpu_of(a);

	advance(p, sim.now_ps);
	while (p->cur != (int)a->idx) {
		uint64_t end = SIM_NEVER;

		if (p->cur >= 0 && vm_is_other((unsigned)p->cur))
			end = p->slice_end_ps;
		v->waiting = true;
		sim_turn_wait(a, end, SIM_EV_VM);
		v->waiting = false;
		sim_resumed(a);
		p = pcpu_of(a); /* an idle cpu of the OS model may have taken it over */
		advance(p, sim.now_ps);
	}
	sim_sleep_until(a, v->start_ps, SIM_EV_VM);
	scheduled_in(v);
}

/* The running vCPU of a is descheduled: its slice ended (target -1: the
 * vCPU CFS picks runs), or a PLE exit yields to target.  It goes back to
 * the queue and comes back when its turn comes; CFS may pick it again at
 * once, and then it was not preempted. */
static void deschedule(struct sim_actor *a, int target)
{
	struct vm_vcpu *v = vcpu_of(a);
	struct vm_pcpu *p = pcpu_of(a);
	struct vm_counters *k = &sim_vm->k;
	uint64_t now = sim.now_ps;
	int ph = phase_of(a->idx);

	v->off_ps = now;
	v->off_phase = ph;
	off_cpu(p, v, now);
	v->state = VC_READY;
	vm_rq_push_tail(p, a->idx);
	if (target >= 0) { /* the vCPU the yield's pick chose (vm_yield_pick), p's next
			    * buddy left as it was unless that is the one */
		vm_rq_remove(p, (unsigned)target);
		if (!vm_cfs())
			p->next_buddy = -1;
		run_picked(p, now, (int)a->idx, target);
	} else {
		run_next(p, now, (int)a->idx);
	}
	if (p->cur == (int)a->idx) { /* picked again: no switch, no sched-in (the PLE window stays) */
		v->off_phase = -1;
		return;
	}
	if (counting(now)) {
		k->preemptions++;
		k->holder_preemptions += ph == PH_HOLDING;
		k->waiter_preemptions += ph == PH_ACQUIRING;
	}
	wait_turn(a);
}

/* Where the running vCPU may lose its pCPU: its slice has ended.  With
 * nobody waiting the slice simply goes on. */
static void preempt_point(struct sim_actor *a)
{
	struct vm_pcpu *p = pcpu_of(a);
	uint64_t now = sim.now_ps;

	if (now < p->slice_end_ps || (vm_prm.processes && a->preempt_off))
		return;
	if (!p->queued) {
		extend_slice(p, now);
		return;
	}
	deschedule(a, -1);
}

/* ------------------------------------------------------------ hooks */

void vm_actor_start(struct sim_actor *a)
{
	wait_turn(a);
}

void vm_actor_exit(struct sim_actor *a)
{
	struct vm_vcpu *v;
	struct vm_pcpu *p;

	if (sim.aborting || !sim_vm)
		return;
	v = vcpu_of(a);
	p = pcpu_of(a);
	v->state = VC_GONE;
	if (p->cur == (int)a->idx) {
		off_cpu(p, v, sim.now_ps);
		run_next(p, sim.now_ps, -1);
	}
}

void vm_pay(struct sim_actor *a)
{
	uint64_t left = a->owed_ps;

	a->owed_ps = 0;
	for (;;) {
		struct vm_pcpu *p;
		uint64_t step;

		preempt_point(a);
		if (!left)
			return;
		p = pcpu_of(a);
		/* a boost may have ended the slice while a was not yet running:
		 * the piece is paid whole and its end is the preemption point */
		step = p->slice_end_ps > sim.now_ps ? p->slice_end_ps - sim.now_ps : left;
		if (step > left)
			step = left;
		sim_sleep_until(a, sim.now_ps + step, SIM_EV_VM);
		left -= step;
	}
}

void vm_preempt_point(struct sim_actor *a)
{
	preempt_point(a);
}

uint64_t vm_spin_deadline(struct sim_actor *a, uint64_t dl_ps)
{
	struct vm_vcpu *v = vcpu_of(a);
	struct vm_pcpu *p = pcpu_of(a);
	uint64_t d = dl_ps;

	v->ple_at_ps = sim_vm->window_ps ? sim.now_ps + v->window_ps : NONE;
	if (v->ple_at_ps < d)
		d = v->ple_at_ps;
	if (p->slice_end_ps < d && !(vm_prm.processes && a->preempt_off))
		d = p->slice_end_ps;
	return d;
}

/*
 * --ple-yield guest: directed yield, as KVM does it at a PLE exit
 * (kvm_vcpu_on_spin, virt/kvm/kvm_main.c, Linux 3.10; yield_to,
 * kernel/sched/core.c): scan the
 * spinning guest's vCPUs round-robin from the one after the guest's last
 * boosted vCPU, and boost the first that is runnable but not running (not
 * halted: a halted vCPU waits for its kick), on whichever pCPU it waits.
 * A vCPU that is itself off its pCPU inside such a yield (in_spin) is
 * eligible every other time it is looked at
 * (kvm_vcpu_eligible_for_directed_yield), so that two spinners do not
 * boost each other back and forth.  None: the exit changes nothing.
 */
static bool dy_eligible(struct vm_vcpu *v)
{
	if (!v->in_spin)
		return true;
	v->dy_eligible = !v->dy_eligible;
	return !v->dy_eligible;
}

/* --ple-yield pcpu: the first vCPU of the same guest waiting for p. */
static int pcpu_target(struct vm_pcpu *p, unsigned self)
{
	for (int i = p->head; i >= 0; i = sim_vm->v[i].next)
		if (!vm_is_other((unsigned)i) && vm_guest_of((unsigned)i) == vm_guest_of(self))
			return i;
	return -1;
}

static int dy_target(unsigned self)
{
	unsigned g = vm_guest_of(self), n = sim_vm->vcpus, first = g * n;
	unsigned last = sim_vm->last_boosted[g];

	for (unsigned k = 1; k <= n; k++) {
		unsigned r = (last + k) % n, i = first + r;
		struct vm_vcpu *v;

		if (i >= sim_vm->nv || i == self)
			continue;
		v = &sim_vm->v[i];
		if (v->state != VC_READY || !dy_eligible(v))
			continue;
		sim_vm->last_boosted[g] = r;
		return (int)i;
	}
	return -1;
}

/* vm_state.h: a directed yield's boost of a vCPU on another pCPU. */
void vm_boost(unsigned target, uint64_t now)
{
	struct vm_pcpu *q = &sim_vm->p[sim_vm->v[target].pcpu];

	if (!vm_cfs_picks(q, (int)target, now)) {
		q->next_buddy = (int)target;
		if (q->cur >= 0 && vm_is_other((unsigned)q->cur)) {
			int o = q->cur;

			preempt_busy(q, now);
			run_next(q, now, o);
		} else if (q->cur >= 0) {
			end_cur_slice(q, now);
		}
		return;
	}
	vm_rq_remove(q, target);
	preempt_busy(q, now);
	if (q->cur < 0) {
		give(q, target, now + vm_prm.switch_ps);
		return;
	}
	vm_rq_push_head(q, target);
	q->next_buddy = (int)target; /* set_next_buddy */
	end_cur_slice(q, now);
}

/* The spin lasted the PLE window: the vCPU exits to the hypervisor, which
 * grows its window and yields to a preempted vCPU of its guest: one that
 * waits for the same pCPU (--ple-yield pcpu), or any (guest, above).
 * yield_to makes the target the next buddy of its queue (vm_boost, for one on
 * another pCPU) and the spinner the skip buddy of its own, and the spinner
 * gives its pCPU to the vCPU CFS then picks (vm_yield_pick), or spins on when
 * that is itself.  In a round-robin (--slice-us) a target on the same pCPU
 * runs next, and for one on another the spinner gives its pCPU to the head
 * of its queue, if any. */
static void ple_exit(struct sim_actor *a)
{
	struct vm_vcpu *v = vcpu_of(a);
	struct vm_pcpu *p = pcpu_of(a);
	uint64_t w = v->window_ps * vm_prm.ple_grow;
	int target;

	if (counting(sim.now_ps))
		sim_vm->k.ple_exits++;
	v->window_ps = w < PLE_WINDOW_MAX_PS ? w : PLE_WINDOW_MAX_PS;
	sim_sleep_until(a, sim.now_ps + vm_prm.ple_exit_ps, SIM_EV_VM);
	target = vm_prm.guest_yield ? dy_target(a->idx) : pcpu_target(p, a->idx);
	if (target < 0) {
		preempt_point(a);
		return;
	}
	if (counting(sim.now_ps))
		sim_vm->k.ple_yields++;
	if (sim_vm->v[target].pcpu != v->pcpu) {
		vm_boost((unsigned)target, sim.now_ps);
		target = vm_yield_pick(p, a->idx, sim.now_ps);
	} else if (vm_cfs()) {
		p->next_buddy = target; /* set_next_buddy on the spinner's own queue */
		target = vm_yield_pick(p, a->idx, sim.now_ps);
	}
	if (target == (int)a->idx) {
		preempt_point(a);
		return;
	}
	v->in_spin = vm_prm.guest_yield;
	v->dy_eligible = false;
	deschedule(a, target);
}

void vm_spin_end(struct sim_actor *a)
{
	struct vm_vcpu *v = vcpu_of(a);
	uint64_t at = v->ple_at_ps;

	v->ple_at_ps = NONE;
	if (at != NONE && sim.now_ps >= at)
		ple_exit(a);
	else
		preempt_point(a);
}

uint64_t vm_halt_ps(void)
{
	return vm_prm.halt_ps;
}

uint64_t vm_kick_ps(void)
{
	return vm_prm.kick_ps;
}

void vm_on_halt(struct sim_actor *a)
{
	struct vm_vcpu *v = vcpu_of(a);

	if (counting(sim.now_ps))
		sim_vm->k.halts++;
	if (vm_prm.processes)
		vm_pelt_sleep(a->idx, sim.now_ps);
	v->state = VC_HALTED;
	v->off_phase = -1;
	off_cpu(pcpu_of(a), v, sim.now_ps);
	run_next(pcpu_of(a), sim.now_ps, -1);
}

void vm_on_kick(struct sim_actor *w)
{
	struct vm_vcpu *v = vcpu_of(w);
	struct vm_pcpu *p;
	uint64_t now = sim.now_ps;
	bool preempt;

	if (v->state != VC_HALTED)
		return;
	if (vm_prm.processes) {
		int waker = sim.cur && sim.cur->idx < sim_vm->nv ? (int)sim.cur->idx : -1;
		bool affine;
		unsigned q;

		vm_pelt_wake(w->idx, now);
		q = vm_wake_cpu(w->idx, waker, now, &affine);
		if (counting(now))
			sim_vm->k.affine_wakes += affine;
		if (q != v->pcpu) {
			vm_move_to(w->idx, q);
			if (counting(now))
				sim_vm->k.wake_moves++;
		}
	}
	p = pcpu_of(w);
	if (counting(now))
		sim_vm->k.kicks++;
	v->kick_ps = now;
	v->state = VC_READY;
	advance(p, now);
	preempt_busy(p, now); /* wake-up preemption of a co-guest's vCPU (docs/vm.md) */
	preempt = vm_cfs() && vm_wakeup_preempts(p, v, now); /* placed before it is queued */
	if (p->cur < 0) {
		give(p, w->idx, now + vm_prm.wake_ps);
		return;
	}
	if (preempt && end_cur_slice(p, now)) { /* cur leaves for it, it runs next */
		vm_rq_push_head(p, w->idx);
		p->next_buddy = (int)w->idx; /* set_next_buddy */
		return;
	}
	vm_rq_push_kicked(p, w->idx); /* or a resched was already pending */
	if (!preempt)
		vm_slice_recount(p, now); /* one more runnable: cur's slice shrinks */
}

void vm_after_halt(struct sim_actor *a)
{
	wait_turn(a);
}

void vm_abort(void)
{
	if (!sim_vm)
		return;
	for (unsigned i = 0; i < sim_vm->nv; i++)
		if (sim_vm->v[i].waiting)
			release(&sim_vm->v[i]);
}
