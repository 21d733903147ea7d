/*
 * sim/memops.c - the ll_* memory operations of the simulator backend
 * (sim/include/ll_backend_mem.h): each access asks the coherence model what
 * it costs, lets simulated time pass, and is then performed on real memory.
 *
 * An access by a thread (a SimGrid actor):
 *
 *   hit   (coh_access_if_hit) costed by the model at the thread's own clock,
 *                          added to the time it owes, performed at once;
 *                          no event.
 *   miss                   pay what is owed (sleep until the own clock),
 *                          issue at that instant; if the request must leave
 *                          the socket (coh_request_travel_ps > 0), sleep
 *                          while it travels (one more event); present it to
 *                          the model on arrival (coh_request); if the model
 *                          does not admit it yet (socket-first arbitration),
 *                          suspend until an actor admits it (two more
 *                          events); sleep until the access completes,
 *                          perform it then, and admit the line's waiting
 *                          misses that are now due.
 *
 * Before any access, a thread that owes more than the quantum pays first;
 * before a read-modify-write, or a store to a line with parked waiters, it
 * pays whatever it owes (see must_pay()), so every read-modify-write is
 * issued at the thread's own time.
 * The model advances a line's directory state when a request is admitted
 * (on arrival, or later when the machine's arbitration makes it wait), so
 * requests to one line complete in admission order and the values read and
 * written on real memory follow that order.
 *
 * A sleep that ends before any other actor's next event moves the
 * actor's clock without handing over to another actor (sim/turns.c).
 *
 * A completion left for later.  A load that misses on a line with no write
 * in flight reads, at its admission, the value it would read at its
 * completion: a write admitted after it completes after it (requests to a
 * line complete in admission order), and none admitted before it is still
 * to be performed (coh_write_performed).  So the
 * load returns at once, its completion still to be waited for
 * (a->settle_ps), when another actor is due before the data arrives.  The
 * thread's next operation waits for it first (sim_settle_pending: the same
 * sleep, at the same instant, as the miss would have made), and its clock
 * reads as the completion's (sim_local_ps); only a wait for that same line
 * to change, which the load was for, takes it otherwise: the thread is
 * parked at the completion without a turn of its own (sim/blocking.c).
 * Not in a virtual machine (a completion is a preemption point there),
 * with scheduler noise, with SMT siblings (a sibling's store hit changes
 * the line before the completion), with a store buffer holding stores, or
 * when a progress check is due before the completion (it would see what
 * the thread did after the load).
 * The completion, when it is waited for, admits the line's waiting misses
 * as the miss would have.
 *
 * An access carried on by others.  Between the sleeps of an access its
 * thread runs none of its own code: what it does at each instant (the hit
 * check after paying, the request's issue, its presentation to the model)
 * depends on the model's state then and on nothing the thread computes.
 * So a thread that hands over in the middle of an access leaves the
 * access's next stage (a->acc) to whoever runs when it is due: that actor
 * makes the stage for it, at that instant and in that order, and the next
 * one, until the access needs the thread itself (sim_access_ahead, asked
 * by sim/turns.c before every hand-over):
 *
 *   stage     made for it                     it runs itself
 *   woken     it is back from its park        -
 *   check     a miss: it issues at once       a hit (it takes its result)
 *   issue     the request leaves; due at      -
 *             its arrival, or presented now
 *             when it does not travel
 *   present   admitted at once: due at the    it would wait for admission,
 *             completion, with its turn       or the actor handing over
 *                                             waits for its own
 *
 * A waiter in ll_wait_until is known to re-read its word when it is woken
 * (the macro's loop): parked with no deadline, its access is that load
 * from the wake-up on (stage woken: it is back from its park), so that the
 * re-read, too, is made by whoever runs at the wake-up
 * (sim_load_when_woken).
 *
 * Nothing is made for it when it is aborting or a progress check is due
 * (the check would see it run); not in a virtual machine, nor with
 * scheduler noise.  So a paid or travelling miss, or a woken waiter's
 * re-read, costs one event where it cost two or three, and every result
 * is the same (sim.wait_every_completion turns all three mechanisms off).
 *
 * Virtual machines (--vm, sim/vm.h).  A thread is a vCPU that runs only
 * while its pCPU gives it a slice: sim_pay() hands local time to vm_pay(),
 * which spreads it over the slices; a completed miss is a preemption
 * point; a delay is paid at once, so that a preemption meets the workload
 * phase it belongs to.  Without --vm none of this runs (sim_vm is NULL).
 *
 * Admission at the home is sim/admission.c's; local time and place (pause,
 * delay, the clock) sim/local.c's; waiting and parking are sim/blocking.c's;
 * a run's end by failure is sim/failure.c's.  Called from maestro (wl_setup and a lock's init run
 * before the actors start) the operations act on memory directly, at no
 * cost.
 */
#include <locklab/backend.h>
#include <locklab/mem.h>

#include "observe.h"
#include "sched_noise.h"
#include "sim.h"
#include "storebuf.h"
#include "switches.h"
#include "turns.h"
#include "vm.h"

static uint64_t width_mask(unsigned size)
{
	return size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
}

static uint64_t mem_read(const volatile void *p, unsigned size)
{
	switch (size) {
	case 1:
		return *(const volatile uint8_t *)p;
	case 2:
		return *(const volatile uint16_t *)p;
	case 4:
		return *(const volatile uint32_t *)p;
	default:
		return *(const volatile uint64_t *)p;
	}
}

static void mem_write(volatile void *p, unsigned size, uint64_t v)
{
	switch (size) {
	case 1:
		*(volatile uint8_t *)p = (uint8_t)v;
		break;
	case 2:
		*(volatile uint16_t *)p = (uint16_t)v;
		break;
	case 4:
		*(volatile uint32_t *)p = (uint32_t)v;
		break;
	default:
		*(volatile uint64_t *)p = v;
		break;
	}
}

/* ------------------------------------------------------------ time */

/* An access others may carry on while a waits for its turn (below, and
 * "An access carried on by others" above). */
static void carry_on_from(struct sim_actor *a)
{
	a->acc.ahead = true;
	sim.nahead++;
}

static void carried_on_done(struct sim_actor *a)
{
	if (a->acc.ahead) {
		a->acc.ahead = false;
		sim.nahead--;
	}
}

/* Every actor passes here when it runs again after an event. */
void sim_resumed(struct sim_actor *a)
{
	sim.cur = a;
	if (sim.aborting) {
		carried_on_done(a); /* a parked waiter's load, begun by nobody */
		longjmp(a->exit_jmp, 1);
	}
	if (sim.now_ps >= sim.next_check_ps || backend_stop_asked)
		sim_check_progress(); /* a stop asked by a signal: at the next event */
}

const char *const sim_event_kind_names[SIM_EV_KINDS] = {
	[SIM_EV_PAY] = "pay", [SIM_EV_TRAVEL] = "travel", [SIM_EV_COMPLETE] = "complete",
	[SIM_EV_ADMIT] = "admit", [SIM_EV_PARK] = "park", [SIM_EV_WAKE] = "wake",
	[SIM_EV_TIMED] = "timed", [SIM_EV_VM] = "vm",
};

void sim_sleep_until(struct sim_actor *a, uint64_t t, enum sim_event_kind k)
{
	if (t <= sim.now_ps)
		return;
	sim_turn_wait(a, t, k);
	sim_resumed(a);
}

/* In a virtual machine local time passes only while the vCPU runs
 * (sim/vm.c). */
void sim_pay(struct sim_actor *a)
{
	uint64_t t = sim.now_ps + a->owed_ps;

	if (sim_vm) {
		vm_pay(a);
		return;
	}

	a->owed_ps = 0;
	sim_sleep_until(a, t, SIM_EV_PAY);
}

uint64_t sim_local_ps(void)
{
	const struct sim_actor *a = sim.cur;

	if (!a)
		return sim.model ? sim.now_ps : 0;
	return (a->settle_ps ? a->settle_ps : sim.now_ps) + a->owed_ps;
}

/* ------------------------------------------------------------ accesses */

/* Must the thread pay what it owes before this access?  Past the quantum,
 * always.  Within it, before a read-modify-write (the operations that
 * decide races between threads: performed ahead of the thread's own time,
 * a hit would win races it loses on a real machine) and before a store to a
 * line with parked waiters (it would wake them early). */
static bool must_pay(struct sim_actor *a, uintptr_t addr, enum coh_op op)
{
	if (!a->owed_ps)
		return false;
	if (a->owed_ps > sim.quantum_ps || op == COH_RMW)
		return true;
	return op == COH_STORE && sim.nline_waiters && *coh_line_user(sim.model, addr & SIM_LINE_MASK);
}

/* The running actor's write woke waiters, who have not acted yet: they
 * act before the writer's next access at the instant of the write, and
 * before its next access to that line, as their reaction to the write
 * precedes what the writer starts after it.  (An access to another line
 * later than the write but within the quantum may go first, as any hit
 * within the quantum.) */
static void let_woken_go_first(struct sim_actor *a, uintptr_t addr)
{
	if (a->owed_ps && (addr & SIM_LINE_MASK) != a->woke_line)
		return;
	a->woke_line = 0;
	sim_turn_wait(a, sim.now_ps, SIM_EV_WAKE);
	sim_resumed(a);
}

/* What a miss does at its completion: admit the line's waiting misses that
 * are now due; in a VM, a preemption point. */
static void miss_done(struct sim_actor *a, uintptr_t addr)
{
	if (sim.nadmit)
		sim_admit_due(a, addr); /* the line may be idle now */
	if (sim_vm)
		vm_preempt_point(a);
}

/* May this miss return before its completion (see the top of the file)?
 * Not when a progress check may come first: the thread's own code after
 * the load (the workload's phase, its progress) would run before the check
 * that should not see it. */
static bool may_leave_completion(struct sim_actor *a, enum coh_op op, bool tell,
				 const struct coh_result *r)
{
	return op == COH_LOAD && tell && r->value_settled && !sim.wait_every_completion &&
	       !sim_vm && !sched_noise_on() && !sim.topo.core_phys && !sb_buffered(a) &&
	       sim_turn_next_ps() < r->done_ps && r->done_ps < sim.next_check_ps;
}

void sim_settle(struct sim_actor *a)
{
	sim_sleep_until(a, a->settle_ps, SIM_EV_COMPLETE);
	sim_settle_for(a);
}

void sim_settle_for(struct sim_actor *a)
{
	a->settle_ps = 0;
	miss_done(a, a->settle_line);
}

/* May another actor carry on the running actor's access while it waits for
 * its turn?  Not in a virtual machine (local time is the vCPU's slices
 * there) nor with scheduler noise (a noise point comes between the
 * stages). */
static bool may_carry_on(void)
{
	return !sim_vm && !sched_noise_on() && !sim.wait_every_completion;
}

/* Sleep until t (an event of kind k when another actor is due first), the
 * access's next stage `next`: whoever runs when a is due may make that
 * stage and those after it for a (sim_access_ahead).  Returns at the
 * stage a has reached, with a's turn. */
static void sleep_then(struct sim_actor *a, uint64_t t, enum sim_event_kind k,
		       enum sim_acc_stage next)
{
	a->acc.stage = next;
	if (t <= sim.now_ps)
		return;
	if (may_carry_on())
		carry_on_from(a);
	sim_turn_wait(a, t, k);
	carried_on_done(a); /* before an aborted run leaves through sim_resumed */
	sim_resumed(a);
}

/* Pay what is owed, then go on at stage next (sim_pay, with the stages
 * after it open to others). */
static void pay_then(struct sim_actor *a, enum sim_acc_stage next)
{
	uint64_t t = sim.now_ps + a->owed_ps;

	if (!may_carry_on()) {
		a->acc.stage = next;
		sim_pay(a);
		return;
	}
	a->owed_ps = 0;
	sleep_then(a, t, SIM_EV_PAY, next);
}

/* A miss's request leaves the core, at now. */
static void issue(struct sim_actor *n)
{
	struct sim_access *c = &n->acc;

	c->travel = coh_request_travel_ps(sim.model, n->core, c->addr, c->op);
	if (c->tell)
		SIM_OBSERVE(issue, n->idx, c->addr, sim.now_ps, sim.now_ps + c->travel);
	c->stage = SIM_ACC_PRESENT;
}

/* The request arrives at the home, at now: presented to the model (waiting
 * for its admission, when the model makes it), told to the observer. */
static void present_told(struct sim_actor *n)
{
	struct sim_access *c = &n->acc;

	sim_present(n, c->addr, (enum coh_op)c->op, c->travel, &c->r);
	if (c->tell)
		SIM_OBSERVE(miss, n->idx, c->addr, c->op, &c->r);
	c->stage = SIM_ACC_COMPLETE;
}

bool sim_access_ahead(struct sim_actor *n, uint64_t at, uint64_t *due)
{
	struct sim_access *c = &n->acc;

	carried_on_done(n);
	if (sim.aborting || n->resume_pending || at >= sim.next_check_ps)
		return false; /* it runs itself: it leaves, or the check sees it run */
	sim.now_ps = at;
	if (c->stage == SIM_ACC_WOKEN) {
		SIM_OBSERVE(unblock, n->idx, at); /* back from its park, as it would say */
		c->stage = SIM_ACC_CHECK;
	}
	if (c->stage == SIM_ACC_CHECK) {
		if (coh_would_hit(sim.model, n->core, c->addr, c->op, at))
			return false; /* a hit: it takes it itself */
		c->stage = SIM_ACC_ISSUE; /* a miss: nothing is owed, it issues now */
	}
	if (c->stage == SIM_ACC_ISSUE) {
		issue(n);
		if (c->travel) {
			carry_on_from(n);
			*due = at + c->travel;
			return true;
		}
	}
	if (sim.cur && sim.cur->block == SIM_PARKED_ADMIT)
		return false; /* the admissions may admit the actor handing over, not yet waiting */
	if (!coh_would_admit(sim.model, n->core, c->addr, c->op, at))
		return false; /* it waits for its admission itself */
	present_told(n); /* admitted at once */
	if (c->r.done_ps <= at)
		return false; /* it goes on at once */
	*due = c->r.done_ps;
	return true;
}

/* Let simulated time pass for an access; returns when it may be performed.
 * A drain of the store buffer is not told to the observer (tell false):
 * its time overlaps the core's own, and sim/storebuf.c tells the stall.
 * Each stage is made where it would be without others carrying it on
 * (sim_access_ahead): a sleep the access makes is the point another actor
 * may take it up. */
static void timed_access(struct sim_actor *a, uintptr_t addr, enum coh_op op, bool tell)
{
	struct sim_access *c = &a->acc;
	struct coh_result r;
	uint64_t t;

	if (c->then_load) { /* begun at its wake-up, owing nothing (sim_load_when_woken) */
		c->then_load = false;
	} else {
		if (a->woke_line)
			let_woken_go_first(a, addr);
		sched_noise_point(a, tell);
		*c = (struct sim_access){ .addr = addr, .op = (uint8_t)op, .tell = tell,
					  .stage = SIM_ACC_CHECK };
		if (must_pay(a, addr, op))
			pay_then(a, SIM_ACC_CHECK);
	}
	if (c->stage == SIM_ACC_CHECK) {
		t = sim.now_ps + a->owed_ps;
		if (coh_access_if_hit(sim.model, a->core, addr, op, t, &r)) {
			if (r.done_ps > t)
				a->owed_ps += r.done_ps - t;
			if (tell)
				SIM_OBSERVE(hit, a->idx, addr, t, r.done_ps);
			return;
		}
		pay_then(a, SIM_ACC_ISSUE);
	}
	if (c->stage == SIM_ACC_ISSUE) {
		issue(a);
		sleep_then(a, sim.now_ps + c->travel, SIM_EV_TRAVEL, SIM_ACC_PRESENT);
	}
	if (c->stage == SIM_ACC_PRESENT) {
		present_told(a);
		if (may_leave_completion(a, op, tell, &c->r)) {
			a->settle_ps = c->r.done_ps;
			a->settle_line = addr & SIM_LINE_MASK;
			return;
		}
	}
	r = c->r; /* what follows may make another access (a preemption in a VM) */
	sim_sleep_until(a, r.done_ps, SIM_EV_COMPLETE);
	miss_done(a, addr);
	if (op != COH_LOAD && !r.hit)
		coh_write_performed(sim.model, addr); /* the caller writes memory now */
}

uint64_t sim_load(const volatile void *p, unsigned size)
{
	struct sim_actor *a = sim.cur;
	uint64_t v;

	if (a) {
		sim_settle_pending(a);
		sb_drain_due(a);
		if (sb_forward(a, p, size, &v))
			return v;
		timed_access(a, (uintptr_t)p, COH_LOAD, true);
	}
	return mem_read(p, size);
}

/* A store performed through the coherence model now (sc, or a drain of the
 * store buffer, sim/storebuf.c). */
void sim_store_now(struct sim_actor *a, volatile void *p, unsigned size, uint64_t v, bool drain)
{
	if (!drain || !sb_written_ahead(a, p))
		timed_access(a, (uintptr_t)p, COH_STORE, !drain);
	mem_write(p, size, v);
	sim_after_write((uintptr_t)p);
}

void sim_prefetch_now(struct sim_actor *a, const volatile void *p)
{
	timed_access(a, (uintptr_t)p, COH_STORE, false);
}

void sim_prefetchw(const volatile void *p)
{
	sim_settle_pending(sim.cur);
	if (sim.cur)
		(void)sb_prefetchw(sim.cur, p);
}

void sim_store(volatile void *p, unsigned size, uint64_t v, int ord)
{
	struct sim_actor *a = sim.cur;

	if (!a) {
		mem_write(p, size, v);
		return;
	}
	sim_settle_pending(a);
	if (!sb_store(a, p, size, v, ord))
		sim_store_now(a, p, size, v, false);
}

/* The new value of a read-modify-write, in the operand's width; *wrote is
 * cleared when a cas finds another value. */
static uint64_t rmw_result(enum sim_rmw op, uint64_t cur, uint64_t v, uint64_t old, uint64_t mask,
			   bool *wrote)
{
	*wrote = true;
	switch (op) {
	case SIM_XCHG:
		return v & mask;
	case SIM_ADD:
		return (cur + v) & mask;
	case SIM_OR:
		return (cur | v) & mask;
	case SIM_AND:
		return cur & v & mask;
	case SIM_CAS:
		if (cur == (old & mask))
			return v & mask;
		*wrote = false;
		return cur;
	}
	*wrote = false;
	return cur;
}

uint64_t sim_rmw(volatile void *p, unsigned size, enum sim_rmw op, uint64_t v, uint64_t old)
{
	struct sim_actor *a = sim.cur;
	uint64_t mask = width_mask(size), cur, nv;
	bool wrote;

	if (a) {
		sim_settle_pending(a);
		sb_drain_all(a); /* a locked instruction drains the store buffer */
		timed_access(a, (uintptr_t)p, COH_RMW, true);
	}
	cur = mem_read(p, size) & mask;
	nv = rmw_result(op, cur, v, old, mask, &wrote);
	if (wrote) {
		mem_write(p, size, nv);
		if (a)
			sim_after_write((uintptr_t)p);
	}
	return cur;
}

/* Under sc a fence orders nothing more, and costs nothing beyond the
 * accesses around it; under tso and pso it drains the store buffer. */
void sim_fence(int ord)
{
	sim_settle_pending(sim.cur);
	if (sim.cur)
		sb_fence(sim.cur, ord);
}

/* ll_wait_until's wait.  Its next operation is ll_load(p): when it parks
 * (untimed), that load is made its access from the wake-up on, so that
 * whoever runs when it is woken may carry the load on for it. */
void sim_wait_change_then_load(const volatile void *p, unsigned size, uint64_t seen)
{
	struct sim_actor *a = sim.cur;

	if (a)
		a->wait_then_load = may_carry_on();
	sim_wait_change(p, size, seen, UINT64_MAX);
	if (a)
		a->wait_then_load = false;
}

/* A waiter in ll_wait_until has drained its store buffer, settled its
 * loads and paid what it owed before it parks: after its wake-up, its
 * ll_load(p) goes straight to the hit check (no noise point: may_carry_on). */
void sim_load_when_woken(struct sim_actor *a, uintptr_t addr)
{
	a->acc = (struct sim_access){ .addr = addr, .op = COH_LOAD, .tell = true,
				      .stage = SIM_ACC_WOKEN, .then_load = true };
	carry_on_from(a);
}

bool sim_woken_load_taken(struct sim_actor *a)
{
	carried_on_done(a);
	if (!a->acc.then_load)
		return false;
	if (a->acc.stage == SIM_ACC_WOKEN) {
		a->acc.stage = SIM_ACC_CHECK; /* it says so itself; its load starts there */
		return false;
	}
	return true;
}

/* ll_wait_change(_until): park on the line of p until a write may have
 * changed it from seen, or until the deadline.  Returns at once when the
 * deadline has passed (in a VM before any spin or PLE window starts), when
 * the line was invalidated (the caller's re-read misses and sees the new
 * value) or when it already differs. */
void sim_wait_change(const volatile void *p, unsigned size, uint64_t seen, uint64_t deadline_ns)
{
	struct sim_actor *a = sim.cur;
	uintptr_t addr = (uintptr_t)p;
	uint64_t mask = width_mask(size);
	uint64_t dl_ps = deadline_ns >= UINT64_MAX / 1000 ? UINT64_MAX : deadline_ns * 1000;

	if (!a)
		return;
	if (a->settle_ps && (addr & SIM_LINE_MASK) == a->settle_line && dl_ps > a->settle_ps &&
	    (mem_read(p, size) & mask) == (seen & mask) && sim_park_ahead_self(a, addr, dl_ps))
		return;
	sim_settle_pending(a);
	sb_drain_all(a); /* before it waits, its own stores become visible */
	sim_pay(a);
	if (sim.now_ps >= dl_ps)
		return; /* before vm_spin_deadline, which would open a spin */
	if (!coh_would_hit(sim.model, a->core, addr, COH_LOAD, sim.now_ps))
		return; /* invalidated: the re-read misses and sees the new value */
	if ((mem_read(p, size) & mask) != (seen & mask))
		return;
	sim_wait_line(a, addr, dl_ps);
}
