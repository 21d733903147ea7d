/*
 * sim/blocking.c - the waits of the simulator backend: ll_wait_until parked
 * on a line and woken by the next write of it, ll_park/ll_unpark, and the
 * suspend/resume handshake beneath them.
 *
 * Waiting.  ll_wait_change(p, seen): if the caller still holds a valid copy
 * of the line, nobody has written it since the caller read it, so the
 * caller parks on the line; the next write of any word of the line (a miss
 * or a hit, by anyone) wakes every waiter parked there, each of which then
 * re-reads the line: N waiters make N misses that queue on the line
 * (herding is the model's, not scripted).  If the copy was invalidated the
 * call returns at once and the caller's re-read misses (sim/memops.c).
 *
 * Under tso and pso (sim/storebuf.c) a thread drains its store buffer
 * before it waits, parks or kicks; a waiter is woken when a store drains
 * (sim_after_write is called then), not when it enters the buffer.
 *
 * Parking.  ll_park/ll_unpark are halt and kick: a kick that comes first
 * is remembered.  A halt costs SIM_HALT_PS before the thread sleeps, a kick
 * the machine's park.kick (SIM_KICK_PS where its file gives none:
 * sim_kick_ps) to the sender, and a kicked thread runs again SIM_WAKE_PS
 * after the kick (core/park_costs.h), plus the exit latency of the idle state its
 * hardware thread entered meanwhile (sim/idle.c).
 *
 * Parking at a completion.  A waiter's load that missed may return before
 * its completion (sim/memops.c).  When the waiter then waits for that line
 * to change (ll_wait_until: load, test, wait), it hands over once, due at
 * the completion and marked park_ahead.  Whoever runs when that instant
 * comes asks sim_park_ahead() (sim/turns.c) what the waiter would do then:
 *
 *   its completion, as the miss makes it    (sim_settle_for: the line's
 *                                            waiting misses are admitted)
 *   its copy still valid (so the value is   parked there and then, off
 *   still the one it saw: a write would      the tree (or due at its
 *   have invalidated it), no deadline        deadline); no turn of its own
 *   passed, no deadlock, no failure, no
 *   check due, the actor handing over not
 *   itself waiting for admission
 *   anything else                           it is handed its turn at the
 *                                            completion and does the rest
 *
 * Either way it parks or goes on at the instant, in the order, it would
 * have had it run: one event fewer for every park that follows a miss.
 *
 * In a virtual machine (--vm, sim/vm.h) a park on a line is a spin, with
 * the PLE window and the slice end as deadlines, and halt and kick are the
 * hypervisor's.
 *
 * A thread about to park with no deadline while every other live thread is
 * parked with no deadline or waits for admission ends the run
 * (sim_deadlock, sim/failure.c).
 */
#include <locklab/mem.h>

#include "idle.h"
#include "observe.h"
#include "sim.h"
#include "storebuf.h"
#include "turns.h"
#include "vm.h"

/* Make an actor that waits with no deadline runnable: now when it is
 * suspended; when it has not suspended yet (it still sleeps until a fetch
 * ahead ends, sim/memops.c), its suspend returns at once. */
void sim_resume_actor(struct sim_actor *w)
{
	if (w->suspended) {
		w->suspended = false;
		sim_turn_wake(w);
	} else {
		w->resume_pending = true;
	}
}

void sim_suspend_self(struct sim_actor *a)
{
	if (a->resume_pending) {
		a->resume_pending = false;
		return;
	}
	a->suspended = true;
	sim_sleep_until(a, SIM_NEVER, SIM_EV_PARK);
}

/* Make a parked actor runnable now (it is already off any line list). */
void sim_wake(struct sim_actor *w)
{
	struct sim_actor *me = sim.cur;

	if (w->block == SIM_PARKED_LINE)
		sim.nline_waiters--;
	if (!w->timed)
		sim.nparked--;
	SIM_OBSERVE(woken, w->idx, me ? (int)me->idx : -1);
	w->block = SIM_RUNNING;
	if (w->timed)
		sim_turn_wake(w);
	else
		sim_resume_actor(w);
}


/* Back from a park with no deadline: the observer hears of it here, unless
 * the re-read that follows the wake-up was carried on by another actor,
 * which told it then (sim/memops.c, sim_woken_load_taken). */
static void back_untimed(struct sim_actor *a)
{
	if (!sim_woken_load_taken(a))
		SIM_OBSERVE(unblock, a->idx, sim.now_ps);
}

/* Back from a park with a deadline, woken or not (a->block says which). */
static void back_timed(struct sim_actor *a)
{
	a->timed = false;
	SIM_OBSERVE(unblock, a->idx, sim.now_ps);
	sim_resumed(a);
}

/* Block the running actor until woken, or until dl_ps (UINT64_MAX: none).
 * Returns true when the deadline passed first. */
static bool block_self(struct sim_actor *a, uint64_t dl_ps)
{
	SIM_OBSERVE(block, a->idx, sim.now_ps);
	if (dl_ps == UINT64_MAX) {
		a->timed = false;
		sim.nparked++;
		if (sim_all_blocked())
			sim_deadlock(a);
		if (sim_vm && a->block == SIM_PARKED_KICK)
			vm_on_halt(a); /* after the count: a kick may come at once */
		if (a->block == SIM_PARKED_LINE && a->wait_then_load)
			sim_load_when_woken(a, a->wait_line);
		sim_suspend_self(a);
		back_untimed(a);
		return false;
	}
	a->timed = true;
	sim_turn_wait(a, dl_ps, SIM_EV_TIMED);
	back_timed(a);
	return a->block != SIM_RUNNING;
}

/* The parked waiters of a line: a circular list, the slot points at its
 * tail, so that waiters are woken in the order they parked. */
static void line_append(void **slot, struct sim_actor *a)
{
	struct sim_actor *tail = *slot;

	if (tail) {
		a->next_waiter = tail->next_waiter;
		tail->next_waiter = a;
	} else {
		a->next_waiter = a;
	}
	*slot = a;
}

static void line_remove(void **slot, struct sim_actor *a)
{
	struct sim_actor *tail = *slot, *prev = tail;

	if (!tail)
		return;
	do {
		if (prev->next_waiter == a) {
			if (a == a->next_waiter)
				*slot = NULL;
			else {
				prev->next_waiter = a->next_waiter;
				if (tail == a)
					*slot = prev;
			}
			a->next_waiter = NULL;
			return;
		}
		prev = prev->next_waiter;
	} while (prev != tail);
}

static void wake_line(uintptr_t line)
{
	void **slot = coh_line_user(sim.model, line);
	struct sim_actor *tail = *slot, *w;

	if (!tail)
		return;
	*slot = NULL;
	w = tail->next_waiter;
	for (;;) {
		struct sim_actor *next = w->next_waiter;

		w->next_waiter = NULL;
		sim_wake(w);
		if (w == tail)
			break;
		w = next;
	}
	if (sim.cur)
		sim.cur->woke_line = line;
}

void sim_after_write(uintptr_t addr)
{
	if (sim.nline_waiters)
		wake_line(addr & SIM_LINE_MASK);
}

/* Park n on the line of addr: it is appended to the line's waiters. */
static void line_park(struct sim_actor *n, uintptr_t addr)
{
	line_append(coh_line_user(sim.model, addr & SIM_LINE_MASK), n);
	n->wait_line = addr;
	n->block = SIM_PARKED_LINE;
	sim.nline_waiters++;
}

/* a's deadline came while it was parked on the line of addr, unwoken:
 * it leaves the line's waiters. */
static void line_unpark(struct sim_actor *a, uintptr_t addr)
{
	line_remove(coh_line_user(sim.model, addr & SIM_LINE_MASK), a);
	a->block = SIM_RUNNING;
	sim.nline_waiters--;
}

static void park_on_line(struct sim_actor *a, uintptr_t addr, uint64_t dl_ps)
{
	if (dl_ps <= sim.now_ps)
		return; /* its deadline has come (in a VM: the slice has ended) */

	line_park(a, addr);
	if (block_self(a, dl_ps))
		line_unpark(a, addr);
}

/* n is no longer due to park at its completion (parked, or to run). */
static void ahead_done(struct sim_actor *n)
{
	if (n->park_ahead) {
		n->park_ahead = false;
		sim.nahead--;
	}
}

bool sim_park_ahead(struct sim_actor *n, uint64_t at, uint64_t *due)
{
	bool timed = n->ahead_dl_ps != UINT64_MAX;

	ahead_done(n);
	if (sim.aborting || n->resume_pending || at >= sim.next_check_ps || at >= n->ahead_dl_ps)
		return false;
	if (sim.cur && sim.cur->block == SIM_PARKED_ADMIT)
		return false; /* the completion may admit the actor handing over, not yet waiting */
	sim.now_ps = at;
	sim_settle_for(n); /* its completion admits the line's waiting misses */
	if (!coh_would_hit(sim.model, n->core, n->ahead_addr, COH_LOAD, at))
		return false; /* its copy invalidated: it returns, its re-read misses */
	if (!timed && sim_all_blocked_with(1))
		return false; /* it finds the run deadlocked, and says so */
	line_park(n, n->ahead_addr);
	SIM_OBSERVE(block, n->idx, at);
	n->parked_ahead = true;
	n->timed = timed;
	if (timed) {
		*due = n->ahead_dl_ps;
	} else {
		sim.nparked++;
		n->suspended = true;
		*due = SIM_NEVER;
		if (n->wait_then_load)
			sim_load_when_woken(n, n->ahead_addr);
	}
	return true;
}

bool sim_park_ahead_self(struct sim_actor *a, uintptr_t addr, uint64_t dl_ps)
{
	a->ahead_addr = addr;
	a->ahead_dl_ps = dl_ps;
	a->park_ahead = true;
	sim.nahead++;
	a->parked_ahead = false;
	sim_turn_wait(a, a->settle_ps, SIM_EV_COMPLETE);
	ahead_done(a); /* handed its turn, not parked by another */
	if (!a->parked_ahead) {
		sim_resumed(a);
		return false; /* at its completion, with its turn: sim_settle goes on */
	}
	a->parked_ahead = false;
	if (!a->timed) { /* as block_self after its suspend */
		sim_resumed(a);
		back_untimed(a);
		return true;
	}
	back_timed(a); /* as block_self and park_on_line after a timed wait */
	if (a->block != SIM_RUNNING)
		line_unpark(a, addr);
	return true;
}

/* Park the running actor on the line of addr until a write wakes it, or
 * until dl_ps; in a virtual machine the park is a spin (PLE, slices). */
void sim_wait_line(struct sim_actor *a, uintptr_t addr, uint64_t dl_ps)
{
	if (!sim_vm) {
		park_on_line(a, addr, dl_ps);
		return;
	}
	park_on_line(a, addr, vm_spin_deadline(a, dl_ps));
	vm_spin_end(a);
}

void ll_park(void)
{
	struct sim_actor *a = sim.cur;
	uint64_t exit_ps;
	unsigned core;
	int state;

	if (!a)
		return;
	sim_settle_pending(a);
	sb_drain_all(a);
	sim_owe(a, sim_vm ? vm_halt_ps() : SIM_HALT_PS, SIM_OBS_PARK);
	sim_pay(a);
	if (a->kick_pending) {
		a->kick_pending = false;
		return;
	}
	a->block = SIM_PARKED_KICK;
	if (sim_vm) {
		block_self(a, UINT64_MAX);
		vm_after_halt(a); /* the wake latency: until its pCPU runs it */
		return;
	}
	core = a->core;
	state = idle_enter(core, sim.now_ps);
	block_self(a, UINT64_MAX);
	exit_ps = idle_leave(core, state, sim.now_ps, sim.now_ps < sim.end_ps);
	if (exit_ps)
		sim_owe(a, exit_ps, SIM_OBS_IDLE_EXIT);
	sim_owe(a, SIM_WAKE_PS, SIM_OBS_PARK);
}

void ll_unpark(unsigned cpu)
{
	struct sim_actor *a = sim.cur, *w;

	if (cpu >= sim.nactors)
		return;
	w = &sim.actors[cpu];
	if (a) {
		sim_settle_pending(a);
		sb_drain_all(a); /* a wake-up is a full barrier */
		sim_pay(a);
	}
	if (w->block == SIM_PARKED_KICK) {
		if (sim_vm)
			vm_on_kick(w);
		sim_wake(w);
	} else
		w->kick_pending = true;
	if (a)
		sim_owe(a, sim_vm ? vm_kick_ps() : sim_kick_ps(), SIM_OBS_PARK);
}
