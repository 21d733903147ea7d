/*
 * sim/memops.c - the ll_* operations of the simulator backend
 * (sim/include/ll_backend_mem.h): each access asks the coherence model what
 * it costs, lets simulated time pass, and is then performed on real memory.
 *
 * An access by a thread (a SimGrid actor):
 *
 *   hit   (coh_would_hit)  costed by the model at the thread's own clock,
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
 * Waiting.  ll_wait_change(p, seen): if the caller still holds a valid copy
 * of the line, nobody has written it since the caller read it, so the
 * caller parks on the line; the next write of any word of the line (a miss
 * or a hit, by anyone) wakes every waiter parked there, each of which then
 * re-reads the line: N waiters make N misses that queue on the line
 * (herding is the model's, not scripted).  If the copy was invalidated the
 * call returns at once and the caller's re-read misses.
 *
 * Parking.  ll_park/ll_unpark are halt and kick: a kick that comes first
 * is remembered.  A halt costs SIM_HALT_PS before the thread sleeps, a kick
 * SIM_KICK_PS to the sender, and a kicked thread runs again SIM_WAKE_PS
 * after the kick (sim/sim.h).
 *
 * Virtual machines (--vm, sim/vm.h).  A thread is a vCPU that runs only
 * while its pCPU gives it a slice: sim_pay() hands local time to vm_pay(),
 * which spreads it over the slices; a completed miss is a preemption
 * point; a park on a line is a spin, with the PLE window and the slice end
 * as deadlines; a delay is paid at once, so that a preemption meets the
 * workload phase it belongs to; halt and kick are the hypervisor's.
 * Without --vm none of this runs (sim_vm is NULL).
 *
 * Failure.  A thread about to park with no deadline while every other live
 * thread is parked with no deadline ends the run (deadlock); so does a
 * simulated stretch of the watchdog's length without any acquisition.
 * Every actor then leaves through a longjmp to its entry (sim/engine.c).
 *
 * Called from maestro (wl_setup and a lock's init run before the actors
 * start) the operations act on memory directly, at no cost.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/mem.h>
#include <locklab/workload.h>

#include "../plots/graphs.h"
#include "explain.h"
#include "sim.h"
#include "vm.h"

#define LINE_MASK (~(uintptr_t)(COH_LINE_SIZE - 1))

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

/* Every actor passes here when it runs again after an event. */
void sim_resumed(struct sim_actor *a)
{
	sim.cur = a;
	if (sim.aborting)
		longjmp(a->exit_jmp, 1);
	if (sim.now_ps >= sim.next_check_ps)
		sim_check_progress();
}

void sim_sleep_until(struct sim_actor *a, uint64_t t)
{
	if (t <= sim.now_ps)
		return;
	sim.events++;
	sg_actor_sleep_until((double)(sim.base_ps + t) * 1e-12);
	sim.now_ps = t;
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
	sim_sleep_until(a, t);
}

uint64_t sim_local_ps(void)
{
	if (!sim.cur)
		return sim.model ? sim_clock_ps() : 0;
	return sim.now_ps + sim.cur->owed_ps;
}

/* ------------------------------------------------------------ blocking */

static void resume_actor(struct sim_actor *w)
{
	if (w->suspended) {
		w->suspended = false;
		sg_actor_resume(w->actor);
	} else {
		w->resume_pending = true;
	}
}

static void suspend_self(struct sim_actor *a)
{
	if (a->resume_pending) {
		a->resume_pending = false;
		return;
	}
	a->suspended = true;
	sim.events++;
	sg_actor_suspend(a->actor);
	sim.now_ps = sim_clock_ps();
	sim_resumed(a);
}

/* Make a parked actor runnable (it is already off any line list).  The
 * resume or release is a simcall: other actors may run before it returns,
 * so the running actor's view is restored afterwards. */
static void wake(struct sim_actor *w)
{
	struct sim_actor *me = sim.cur;
	uint64_t now = sim.now_ps;

	if (w->block == SIM_PARKED_LINE)
		sim.nline_waiters--;
	if (!w->timed)
		sim.nparked--;
	XP_HOOK(xp_woken(w->idx, me ? (int)me->idx : -1));
	w->block = SIM_RUNNING;
	sim.events++;
	if (w->timed)
		sg_sem_release(w->sem);
	else
		resume_actor(w);
	sim.cur = me;
	sim.now_ps = now;
}

static void deadlock(struct sim_actor *me);

/* Block the running actor until woken, or until dl_ps (UINT64_MAX: none).
 * Returns true when the deadline passed first. */
static bool block_self(struct sim_actor *a, uint64_t dl_ps)
{
	XP_HOOK(xp_block(a->idx, sim.now_ps));
	if (dl_ps == UINT64_MAX) {
		a->timed = false;
		sim.nparked++;
		if (sim.nparked == sim.nlive)
			deadlock(a);
		if (sim_vm && a->block == SIM_PARKED_KICK)
			vm_on_halt(a); /* after the count: a kick may come at once */
		suspend_self(a);
		XP_HOOK(xp_unblock(a->idx, sim.now_ps));
		return false;
	}
	a->timed = true;
	sim.events++;
	int timeout = sg_sem_acquire_timeout(a->sem, (double)(dl_ps - sim.now_ps) * 1e-12);
	uint64_t now = sim_clock_ps();

	if (timeout && now < dl_ps)
		now = dl_ps;
	if (timeout && a->block == SIM_RUNNING && !sg_sem_would_block(a->sem))
		sg_sem_acquire(a->sem); /* woken in the same instant: drain */
	sim.cur = a;
	sim.now_ps = now;
	a->timed = false;
	XP_HOOK(xp_unblock(a->idx, now));
	sim_resumed(a);
	return timeout && a->block != SIM_RUNNING;
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
		wake(w);
		if (w == tail)
			break;
		w = next;
	}
}

static void after_write(uintptr_t addr)
{
	if (sim.nline_waiters)
		wake_line(addr & LINE_MASK);
}

static void park_on_line(struct sim_actor *a, uintptr_t addr, uint64_t dl_ps)
{
	uintptr_t line = addr & LINE_MASK;

	line_append(coh_line_user(sim.model, line), a);
	a->wait_line = addr;
	a->block = SIM_PARKED_LINE;
	sim.nline_waiters++;
	if (block_self(a, dl_ps)) {
		line_remove(coh_line_user(sim.model, line), a);
		a->block = SIM_RUNNING;
		sim.nline_waiters--;
	}
}

/* ------------------------------------------------------------ admission */

/* Admit, and wake, every waiting miss of the line that is due now (the
 * model keeps them in order; each gets its result in its actor).  Called
 * after every admission and every completion while some actor waits. */
static void admit_due(struct sim_actor *me, uintptr_t addr)
{
	struct coh_result r;
	struct sim_actor *w;
	uint64_t now = sim.now_ps;

	while (sim.nadmit && (w = coh_admit_next(sim.model, addr, now, &r))) {
		w->admit_r = r;
		w->block = SIM_RUNNING;
		sim.nadmit--;
		if (w == me) {
			me->admit_self = true;
			continue;
		}
		sim.events++;
		resume_actor(w);
		sim.cur = me;
		sim.now_ps = now;
	}
}

/* Present a miss that has arrived: the model admits it at once, or it
 * waits (suspended) until admitted.  Either way r is its result. */
static void present(struct sim_actor *a, uintptr_t addr, enum coh_op op, uint64_t travel,
		    struct coh_result *r)
{
	if (coh_request(sim.model, a->core, addr, op, sim.now_ps, travel, a, r)) {
		admit_due(a, addr); /* the holder's socket may have had its bound */
		return;
	}
	a->block = SIM_PARKED_ADMIT;
	a->wait_line = addr;
	a->admit_self = false;
	sim.nadmit++;
	admit_due(a, addr); /* the line may have gone idle at this instant */
	if (!a->admit_self)
		suspend_self(a);
	*r = a->admit_r;
}

/* An aborted run wakes an actor waiting for admission (it leaves). */
static void admit_abandon(struct sim_actor *w)
{
	struct sim_actor *me = sim.cur;
	uint64_t now = sim.now_ps;

	w->block = SIM_RUNNING;
	sim.nadmit--;
	sim.events++;
	resume_actor(w);
	sim.cur = me;
	sim.now_ps = now;
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
	return op == COH_STORE && sim.nline_waiters && *coh_line_user(sim.model, addr & LINE_MASK);
}

/* Let simulated time pass for an access; returns when it may be performed. */
static void timed_access(struct sim_actor *a, uintptr_t addr, enum coh_op op)
{
	struct coh_result r;
	uint64_t travel;

	if (must_pay(a, addr, op))
		sim_pay(a);
	if (coh_would_hit(sim.model, a->core, addr, op)) {
		uint64_t t = sim.now_ps + a->owed_ps;

		coh_access(sim.model, a->core, addr, op, t, &r);
		if (r.done_ps > t)
			a->owed_ps += r.done_ps - t;
		XP_HOOK(xp_hit(a->idx, addr, t, r.done_ps));
		return;
	}
	sim_pay(a);
	travel = coh_request_travel_ps(sim.model, a->core, addr, op);
	XP_HOOK(xp_issue(a->idx, addr, sim.now_ps, sim.now_ps + travel));
	sim_sleep_until(a, sim.now_ps + travel);
	present(a, addr, op, travel, &r);
	XP_HOOK(xp_miss(a->idx, addr, op, &r));
	sim_sleep_until(a, r.done_ps);
	if (sim.nadmit)
		admit_due(a, addr); /* the line may be idle now */
	if (sim_vm)
		vm_preempt_point(a);
}

uint64_t sim_load(const volatile void *p, unsigned size)
{
	struct sim_actor *a = sim.cur;

	if (a)
		timed_access(a, (uintptr_t)p, COH_LOAD);
	return mem_read(p, size);
}

void sim_store(volatile void *p, unsigned size, uint64_t v)
{
	struct sim_actor *a = sim.cur;

	if (!a) {
		mem_write(p, size, v);
		return;
	}
	timed_access(a, (uintptr_t)p, COH_STORE);
	mem_write(p, size, v);
	after_write((uintptr_t)p);
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

	if (a)
		timed_access(a, (uintptr_t)p, COH_RMW);
	cur = mem_read(p, size) & mask;
	nv = rmw_result(op, cur, v, old, mask, &wrote);
	if (wrote) {
		mem_write(p, size, nv);
		if (a)
			after_write((uintptr_t)p);
	}
	return cur;
}

/* Sequentially consistent: a fence orders nothing more, and costs nothing
 * beyond the accesses around it. */
void sim_fence(void)
{
}

void sim_wait_change(const volatile void *p, unsigned size, uint64_t seen, uint64_t deadline_ns)
{
	struct sim_actor *a = sim.cur;
	uintptr_t addr = (uintptr_t)p;
	uint64_t mask = width_mask(size);
	uint64_t dl_ps = deadline_ns >= UINT64_MAX / 1000 ? UINT64_MAX : deadline_ns * 1000;

	if (!a)
		return;
	sim_pay(a);
	if (sim.now_ps >= dl_ps)
		return;
	if (!coh_would_hit(sim.model, a->core, addr, COH_LOAD))
		return; /* invalidated: the re-read misses and sees the new value */
	if ((mem_read(p, size) & mask) != (seen & mask))
		return;
	if (!sim_vm) {
		park_on_line(a, addr, dl_ps);
		return;
	}
	park_on_line(a, addr, vm_spin_deadline(a, dl_ps)); /* a spin: PLE, slices */
	vm_spin_end(a);
}

/* ------------------------------------------------------------ time, place */

/* Local time owed by the running actor, with the ledger told (explain.h). */
static void owe(struct sim_actor *a, uint64_t ps, enum xp_part part)
{
	XP_HOOK(xp_local(a->idx, sim.now_ps + a->owed_ps, sim.now_ps + a->owed_ps + ps, part));
	a->owed_ps += ps;
}

void ll_cpu_relax(void)
{
	if (sim.cur)
		owe(sim.cur, sim.topo.pause_ps ? sim.topo.pause_ps : 1, XP_LOCAL);
}

void ll_delay_ns(uint64_t ns)
{
	struct sim_actor *a = sim.cur;

	if (!a)
		return;
	XP_HOOK(xp_delay(a->idx, sim.now_ps + a->owed_ps, sim.now_ps + a->owed_ps + ns * 1000));
	a->owed_ps += ns * 1000;
	if (sim_vm)
		sim_pay(a); /* at once: a preemption then sees the phase it belongs to */
}

uint64_t ll_now_ns(void)
{
	return sim_local_ps() / 1000;
}

unsigned ll_this_cpu(void)
{
	return sim.cur ? sim.cur->idx : 0;
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

/* ------------------------------------------------------------ memory */

void sim_allocs_reset(void)
{
	sim.nallocs = 0;
	sim.alloc_seq = 0;
}

/* The newest allocation holding addr (an address freed and handed out
 * again resolves to its new owner). */
static struct sim_alloc *alloc_find(uintptr_t addr)
{
	for (size_t i = sim.nallocs; i-- > 0;) {
		struct sim_alloc *al = &sim.allocs[i];

		if (addr >= al->base && addr < al->base + al->size)
			return al;
	}
	return NULL;
}

static void alloc_record(uintptr_t base, size_t size, unsigned node)
{
	if (sim.nallocs == sim.cap_allocs) {
		size_t cap = sim.cap_allocs ? 2 * sim.cap_allocs : 256;
		struct sim_alloc *n = realloc(sim.allocs, cap * sizeof(*n));

		if (!n)
			return; /* only names in reports are lost */
		sim.allocs = n;
		sim.cap_allocs = cap;
	}
	sim.allocs[sim.nallocs++] = (struct sim_alloc){
		.base = base, .size = size, .seq = sim.alloc_seq++, .tag = LL_TAG_OTHER, .node = node,
	};
}

static size_t round_line(size_t size)
{
	return (size + COH_LINE_SIZE - 1) & ~(size_t)(COH_LINE_SIZE - 1);
}

void *ll_alloc_on(size_t size, unsigned node)
{
	size_t sz = round_line(size ? size : 1);
	void *p = aligned_alloc(COH_LINE_SIZE, sz);

	if (!p)
		return NULL;
	memset(p, 0, sz);
	if (node >= ll_nr_nodes())
		node = 0;
	if (sim.model)
		coh_set_home(sim.model, (uintptr_t)p, sz, node, COH_TAG_OTHER);
	alloc_record((uintptr_t)p, sz, node);
	return p;
}

void ll_free(void *p, size_t size)
{
	if (!p)
		return;
	if (sim.model)
		coh_forget(sim.model, (uintptr_t)p, round_line(size ? size : 1));
	free(p);
}

void ll_mem_tag(const void *p, size_t size, int tag)
{
	struct sim_alloc *al = alloc_find((uintptr_t)p);

	if (tag < 0 || tag >= COH_NTAGS || !size)
		return;
	if (al)
		al->tag = tag;
	if (sim.model)
		coh_set_tag(sim.model, (uintptr_t)p, size, (enum coh_tag)tag);
}

/* ------------------------------------------------------------ ll_park */

void ll_park(void)
{
	struct sim_actor *a = sim.cur;

	if (!a)
		return;
	owe(a, sim_vm ? vm_halt_ps() : SIM_HALT_PS, XP_PARK);
	sim_pay(a);
	if (a->kick_pending) {
		a->kick_pending = false;
		return;
	}
	a->block = SIM_PARKED_KICK;
	block_self(a, UINT64_MAX);
	if (sim_vm)
		vm_after_halt(a); /* the wake latency: until its pCPU runs it */
	else
		owe(a, SIM_WAKE_PS, XP_PARK);
}

void ll_unpark(unsigned cpu)
{
	struct sim_actor *a = sim.cur, *w;

	if (cpu >= sim.nactors)
		return;
	w = &sim.actors[cpu];
	if (a)
		sim_pay(a);
	if (w->block == SIM_PARKED_KICK) {
		if (sim_vm)
			vm_on_kick(w);
		wake(w);
	} else
		w->kick_pending = true;
	if (a)
		owe(a, sim_vm ? vm_kick_ps() : SIM_KICK_PS, XP_PARK);
}

/* ------------------------------------------------------------ failure */

static const char *const tag_names[] = { "memory", "lock", "data", "ctx" };

/* A line named by what holds it and the offset: "lock+0", "ctx of t3+8",
 * "data of lock 2+64" - never an address, which differs between runs. */
void sim_describe_line(uintptr_t addr, char *buf, size_t len)
{
	const struct wl_run *run = sim.run;
	struct sim_alloc *al;

	if (run && run->slots) {
		const struct lock_algo *algo = run->algo;
		size_t lock_sz = algo->lock_size + (size_t)run->nthreads * algo->lock_size_per_cpu;
		size_t ctx_sz = round_line(algo->ctx_size ? algo->ctx_size : 1);
		unsigned nl = run->cfg->locks;

		for (unsigned l = 0; l < nl; l++) {
			uintptr_t lk = (uintptr_t)run->slots[l].lock;
			uintptr_t d = (uintptr_t)run->slots[l].data;
			char which[24] = "";

			if (nl > 1)
				snprintf(which, sizeof(which), " %u", l);
			if (lk && addr >= lk && addr < lk + round_line(lock_sz)) {
				snprintf(buf, len, "lock%s+%zu", which, (size_t)(addr - lk));
				return;
			}
			if (d && addr >= d && addr < d + run->cfg->cs_lines * sizeof(struct wl_data_line)) {
				snprintf(buf, len, "data%s+%zu", which, (size_t)(addr - d));
				return;
			}
		}
		for (unsigned t = 0; t < run->nthreads; t++) {
			for (unsigned l = 0; run->threads[t].ctx && l < nl; l++) {
				uintptr_t c = (uintptr_t)run->threads[t].ctx[l];

				if (c && addr >= c && addr < c + ctx_sz) {
					snprintf(buf, len, "ctx of t%u+%zu", t, (size_t)(addr - c));
					return;
				}
			}
		}
	}
	al = alloc_find(addr);
	if (al) {
		snprintf(buf, len, "%s #%u+%zu", tag_names[al->tag & 3], al->seq, (size_t)(addr - al->base));
		return;
	}
	snprintf(buf, len, "a line outside locklab's allocations");
}

static const char *const phase_names[] = { "outside", "acquiring", "holding" };

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
				     phase_names[ph >= 0 && ph <= 2 ? ph : 0]);
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
			admit_abandon(w);
			continue;
		}
		if (w == me || (w->block != SIM_PARKED_LINE && w->block != SIM_PARKED_KICK))
			continue;
		w->next_waiter = NULL;
		wake(w);
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

static void deadlock(struct sim_actor *me)
{
	size_t len;
	char *buf = failure_buf(&len);

	if (sim.aborting)
		return;
	graphs_capture_failure("deadlock");
	snprintf(buf, len, "deadlock at %.3f us: every thread is parked: ", (double)sim.now_ps / 1e6);
	describe_threads(buf, len, false);
	if (sim.run)
		sim.run->failed = 1;
	abort_run(me);
}

static void no_progress(uint64_t last)
{
	size_t len;
	char *buf = failure_buf(&len);

	if (sim.aborting)
		return;
	graphs_capture_failure("no progress");
	snprintf(buf, len, "no progress: no acquisition in %.3f ms of simulated time (at %.3f ms): ",
		 (double)(sim.now_ps - last) / 1e9, (double)sim.now_ps / 1e9);
	describe_threads(buf, len, true);
	sim.run->failed = 1;
	abort_run(sim.cur);
}

/* The end-of-measurement snapshot and the watchdog, when simulated time
 * reaches sim.next_check_ps. */
void sim_check_progress(void)
{
	uint64_t next = UINT64_MAX;

	if (!sim.snapped && sim.now_ps >= sim.end_ps) {
		const struct coh_counters *k = coh_counters(sim.model);

		sim.snap = *k;
		if (sim.topo.nlinks && sim.snap_links && k->link_msgs)
			memcpy(sim.snap_links, k->link_msgs, sim.topo.nlinks * sizeof(uint64_t));
		sim.snapped = true;
	}
	if (!sim.snapped)
		next = sim.end_ps;
	if (sim.run && sim.progress_bound_ps) {
		uint64_t last = 0;

		for (unsigned i = 0; i < sim.run->nthreads; i++) {
			uint64_t p = sim.run->threads[i].last_progress_ns * 1000;

			if (p > last)
				last = p;
		}
		if (sim.now_ps - last > sim.progress_bound_ps) {
			sim.next_check_ps = UINT64_MAX;
			no_progress(last);
			return;
		}
		if (last + sim.progress_bound_ps + 1 < next)
			next = last + sim.progress_bound_ps + 1;
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
	if (sim_vm)
		vm_actor_exit(a); /* its pCPU goes to the next vCPU */
	if (!sim.aborting && sim.nlive && sim.nparked == sim.nlive)
		deadlock(a);
}
