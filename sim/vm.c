/*
 * sim/vm.c - the hypervisor of a simulated virtual machine: per physical
 * CPU a round-robin of its vCPUs, pause-loop exiting, halt and kick, and
 * the counters of preemption (the model is described in sim/vm.h, the
 * defaults and their sources in docs/vm.md).
 *
 * Who moves the schedule.  Each pCPU has at most one running vCPU (cur).
 * Only cur's own actor takes cur off the pCPU, at its preemption points:
 * when its slice has ended and the run queue is not empty, when a PLE exit
 * yields, when it halts, when its thread ends.  It then hands the pCPU to
 * the head of the queue and releases that actor's semaphore.  So that a
 * slice end is never missed, cur never sleeps past it: local time is paid
 * in pieces that stop at the slice end, and a spin (a park on a line) has
 * the slice end as a deadline.  A vCPU that is not cur waits on its
 * semaphore, counted neither as parked nor as a deadlock candidate: some
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
 *   kicked from a halt     no sooner than kick + wake latency; on an idle
 *                          pCPU exactly then
 *
 * Each slice lasts a seeded draw from [S/2, 3S/2) (S = --slice-us), so
 * that pCPUs neither start nor stay in lockstep.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/semaphore.h>

#include <locklab/rng.h>

#include "sim.h"
#include "vm.h"

#define NONE UINT64_MAX
#define US_PS 1000000ull
#define NS_PS 1000ull

/* The defaults, each with its source in docs/vm.md. */
#define DEF_SLICE_PS (3000ull * US_PS)    /* CFS minimum granularity, 8+ CPUs */
#define DEF_PLE_WINDOW_CYCLES 4096.0      /* KVM ple_window */
#define DEF_PLE_GROW 2u                   /* KVM ple_window_grow */
#define DEF_FREQ_GHZ 2.0                  /* when the topology gives no clock */
#define PLE_WINDOW_MAX_PS (1000000ull * US_PS) /* 1 s: far beyond any slice */
#define DEF_PLE_EXIT_PS (1000ull * NS_PS) /* a VM exit and entry */
#define DEF_HALT_PS (1000ull * NS_PS)     /* the HLT exit */
#define DEF_KICK_PS (1000ull * NS_PS)     /* the KICK_CPU hypercall */
#define DEF_WAKE_PS (4000ull * NS_PS)     /* IPI, wake-up, schedule, entry */
#define DEF_SWITCH_PS (4000ull * NS_PS)   /* a context switch between vCPUs */


struct vm_params {
	uint64_t slice_ps;
	uint64_t ple_window_ps; /* NONE: 4096 cycles at the topology's clock */
	uint64_t ple_grow;
	uint64_t ple_exit_ps, halt_ps, kick_ps, wake_ps, switch_ps;
	bool busy_guests; /* --co-guests busy */
	const char *given; /* the first VM option given */
};

static struct vm_params prm = {
	.slice_ps = DEF_SLICE_PS,
	.ple_window_ps = NONE,
	.ple_grow = DEF_PLE_GROW,
	.ple_exit_ps = DEF_PLE_EXIT_PS,
	.halt_ps = DEF_HALT_PS,
	.kick_ps = DEF_KICK_PS,
	.wake_ps = DEF_WAKE_PS,
	.switch_ps = DEF_SWITCH_PS,
};

enum vc_state { VC_RUNNING, VC_READY, VC_HALTED, VC_GONE };

struct vm_vcpu {
	unsigned pcpu;
	enum vc_state state;
	int next;          /* run-queue link */
	bool waiting;      /* blocked on sem until it is cur */
	sg_sem_t sem;
	uint64_t start_ps; /* as cur, it runs from then */
	uint64_t off_ps;   /* preempted then */
	int off_phase;     /* its thread's phase then; -1: not preempted */
	uint64_t kick_ps;  /* kicked then; NONE */
	uint64_t window_ps; /* its PLE window now */
	uint64_t ple_at_ps; /* a spin that lasts until then exits; NONE */
};

struct vm_pcpu {
	int cur; /* -1: idle */
	uint64_t slice_end_ps;
	uint64_t draws; /* slices drawn so far (the seeded length of the next) */
	int head, tail; /* run queue */
	unsigned queued;
};

/*
 * vCPU indexes: 0 .. nthreads-1 are the run's threads (actors); nthreads ..
 * vcpus-1 are vCPUs of the guest without a thread (absent: they never
 * run); vcpus .. nv-1 belong to the busy co-guests and have no actor.
 */
struct vm_state {
	struct wl_run *run;
	uint64_t seed;
	unsigned nthreads, vcpus, nv, np, per_pcpu;
	uint64_t window_ps; /* the PLE window a vCPU starts with; 0: no PLE */
	struct vm_vcpu *v;
	struct vm_pcpu *p;
	struct vm_counters k;
};

struct vm_state *sim_vm;

/* ------------------------------------------------------------ options */

struct vm_opt {
	const char *name;
	uint64_t *field;
	uint64_t unit_ps; /* 0: a plain number */
	uint64_t lo, hi;
};

static const struct vm_opt opts[] = {
	{ "--slice-us", &prm.slice_ps, US_PS, 1, 1000000 },
	{ "--ple-window-ns", &prm.ple_window_ps, NS_PS, 0, 1000000000 },
	{ "--ple-grow", &prm.ple_grow, 0, 1, 64 },
	{ "--ple-exit-ns", &prm.ple_exit_ps, NS_PS, 0, 10000000 },
	{ "--halt-ns", &prm.halt_ps, NS_PS, 0, 10000000 },
	{ "--kick-ns", &prm.kick_ps, NS_PS, 0, 10000000 },
	{ "--wake-ns", &prm.wake_ps, NS_PS, 0, 10000000 },
	{ "--switch-ns", &prm.switch_ps, NS_PS, 0, 10000000 },
};

#define NR_OPTS (sizeof(opts) / sizeof(opts[0]))

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

int vm_parse_option(const char *opt, const char *val, char *err, size_t errlen)
{
	if (!strcmp(opt, "--co-guests")) {
		if (strcmp(val, "busy") && strcmp(val, "none")) {
			snprintf(err, errlen, "--co-guests: '%s' is not busy or none", val);
			return -1;
		}
		prm.busy_guests = !strcmp(val, "busy");
		if (!prm.given)
			prm.given = "--co-guests";
		return 1;
	}
	for (size_t i = 0; i < NR_OPTS; i++) {
		const struct vm_opt *o = &opts[i];
		uint64_t v;

		if (strcmp(opt, o->name))
			continue;
		if (parse_u64(val, &v) || v < o->lo || v > o->hi) {
			snprintf(err, errlen, "%s: '%s' is not a whole number in %llu..%llu", opt, val,
				 (unsigned long long)o->lo, (unsigned long long)o->hi);
			return -1;
		}
		*o->field = o->unit_ps ? v * o->unit_ps : v;
		if (!prm.given)
			prm.given = o->name;
		return 1;
	}
	return 0;
}

int vm_check(const struct wl_config *cfg, char *err, size_t errlen)
{
	if (prm.given && !cfg->vm_vcpus) {
		snprintf(err, errlen, "%s: a hypervisor setting, which needs --vm", prm.given);
		return -1;
	}
	return 0;
}

void vm_layout(unsigned vcpus, double overcommit, unsigned *pcpus, unsigned *others)
{
	unsigned total = (unsigned)(overcommit * vcpus + 0.5);

	if (!prm.busy_guests || overcommit <= 1.0 || total <= vcpus) {
		*pcpus = wl_vm_pcpus(vcpus, overcommit);
		*others = 0;
		return;
	}
	*pcpus = vcpus;
	*others = total - vcpus;
}

static uint64_t base_window_ps(double freq_ghz)
{
	if (prm.ple_window_ps != NONE)
		return prm.ple_window_ps;
	if (freq_ghz <= 0)
		freq_ghz = DEF_FREQ_GHZ;
	return (uint64_t)(DEF_PLE_WINDOW_CYCLES * 1000.0 / freq_ghz + 0.5);
}

void vm_env_json(FILE *f)
{
	fprintf(f,
		"\"slice_us\": %llu, \"ple_window_ns\": %.3f, \"ple_grow\": %llu, "
		"\"ple_exit_ns\": %.3f, \"halt_ns\": %.3f, \"kick_ns\": %.3f, \"wake_ns\": %.3f, "
		"\"switch_ns\": %.3f, \"co_guests\": \"%s\"",
		(unsigned long long)(prm.slice_ps / US_PS),
		(double)base_window_ps(sim.topo.freq_ghz) / 1000.0, (unsigned long long)prm.ple_grow,
		(double)prm.ple_exit_ps / 1000.0, (double)prm.halt_ps / 1000.0,
		(double)prm.kick_ps / 1000.0, (double)prm.wake_ps / 1000.0,
		(double)prm.switch_ps / 1000.0, prm.busy_guests ? "busy" : "none");
}

/* ------------------------------------------------------------ a run */

/* The length of p's next slice: a seeded draw from [S/2, 3S/2), mean S.
 * Real slices vary (with the tasks runnable, wake-ups, the tick); equal
 * ones would keep pCPUs that once switched together in step for ever. */
static uint64_t slice_len(struct vm_pcpu *p)
{
	uint64_t s = prm.slice_ps;
	unsigned idx = (unsigned)(p - sim_vm->p);

	return s / 2 + mix64(sim_vm->seed ^ mix64(((uint64_t)idx << 32) + p->draws++)) % s;
}

static void rq_push_tail(struct vm_pcpu *p, unsigned i)
{
	sim_vm->v[i].next = -1;
	if (p->tail >= 0)
		sim_vm->v[p->tail].next = (int)i;
	else
		p->head = (int)i;
	p->tail = (int)i;
	p->queued++;
}

/* A kicked vCPU goes before the preempted ones, after those kicked
 * before it. */
static void rq_push_kicked(struct vm_pcpu *p, unsigned i)
{
	struct vm_vcpu *v = sim_vm->v;
	int prev = -1, at = p->head;

	while (at >= 0 && v[at].kick_ps != NONE) {
		prev = at;
		at = v[at].next;
	}
	v[i].next = at;
	if (prev >= 0)
		v[prev].next = (int)i;
	else
		p->head = (int)i;
	if (at < 0)
		p->tail = (int)i;
	p->queued++;
}

/* Take i out of the queue (it is in it). */
static void rq_remove(struct vm_pcpu *p, unsigned i)
{
	struct vm_vcpu *v = sim_vm->v;
	int prev = -1, at = p->head;

	while (at >= 0 && at != (int)i) {
		prev = at;
		at = v[at].next;
	}
	if (at < 0)
		return;
	if (prev >= 0)
		v[prev].next = v[i].next;
	else
		p->head = v[i].next;
	if (p->tail == (int)i)
		p->tail = prev;
	v[i].next = -1;
	p->queued--;
}

static void rq_push_head(struct vm_pcpu *p, unsigned i)
{
	sim_vm->v[i].next = p->head;
	p->head = (int)i;
	if (p->tail < 0)
		p->tail = (int)i;
	p->queued++;
}

static int rq_pop(struct vm_pcpu *p)
{
	int i = p->head;

	if (i < 0)
		return -1;
	p->head = sim_vm->v[i].next;
	if (p->head < 0)
		p->tail = -1;
	sim_vm->v[i].next = -1;
	p->queued--;
	return i;
}

static bool is_other(unsigned i)
{
	return i >= sim_vm->vcpus;
}

/* p's vCPUs at the start, in index order from a seeded one: the first
 * runs, the others queue (so that the guest does not start with every one
 * of its vCPUs running while the co-guests wait). */
static void first_turns(struct vm_pcpu *p)
{
	unsigned idx = (unsigned)(p - sim_vm->p), count = 0, k, skip;

	for (unsigned i = 0; i < sim_vm->nv; i++)
		count += sim_vm->v[i].pcpu == idx && sim_vm->v[i].state != VC_GONE;
	if (!count)
		return;
	skip = (unsigned)(mix64(sim_vm->seed ^ mix64(~(uint64_t)idx)) % count);
	for (unsigned round = 0; round < 2; round++) {
		k = 0;
		for (unsigned i = 0; i < sim_vm->nv; i++) {
			struct vm_vcpu *v = &sim_vm->v[i];

			if (v->pcpu != idx || v->state == VC_GONE)
				continue;
			if ((round == 0) != (k++ >= skip))
				continue;
			if (p->cur < 0) {
				p->cur = (int)i;
				v->state = VC_RUNNING;
			} else {
				rq_push_tail(p, i);
			}
		}
	}
	if (count > sim_vm->per_pcpu)
		sim_vm->per_pcpu = count;
}

int vm_begin(struct wl_run *run, double freq_ghz)
{
	struct vm_state *vm = calloc(1, sizeof(*vm));
	unsigned n = run->nthreads, vcpus = run->cfg->vm_vcpus, np = 0, others = 0;

	if (vm && vcpus >= n)
		vm_layout(vcpus, run->overcommit, &np, &others);
	if (!vm || !np)
		goto fail;
	vm->nv = vcpus + others;
	vm->v = calloc(vm->nv, sizeof(*vm->v));
	vm->p = calloc(np, sizeof(*vm->p));
	if (!vm->v || !vm->p)
		goto fail;
	vm->run = run;
	vm->nthreads = n;
	vm->vcpus = vcpus;
	vm->np = np;
	vm->window_ps = base_window_ps(freq_ghz);
	sim_vm = vm;
	vm->seed = run->seed;
	for (unsigned p = 0; p < np; p++) {
		vm->p[p] = (struct vm_pcpu){ .cur = -1, .head = -1, .tail = -1 };
		vm->p[p].slice_end_ps = slice_len(&vm->p[p]);
	}
	for (unsigned i = 0; i < vm->nv; i++) {
		struct vm_vcpu *v = &vm->v[i];

		v->pcpu = wl_vm_pcpu_of(i, vm->nv, np);
		v->next = -1;
		v->off_phase = -1;
		v->kick_ps = NONE;
		v->ple_at_ps = NONE;
		v->window_ps = vm->window_ps;
		v->state = i >= n && i < vcpus ? VC_GONE : VC_READY; /* GONE: no thread, idle */
		if (i < n)
			v->sem = sg_sem_init(0);
	}
	for (unsigned p = 0; p < np; p++)
		first_turns(&vm->p[p]);
	vm->k.has_vm = true;
	vm->k.has_sched = true;
	vm->k.overcommit = run->overcommit;
	vm->k.pcpus = np;
	return 0;
fail:
	sim_vm = NULL;
	if (vm) {
		free(vm->v);
		free(vm->p);
	}
	free(vm);
	return -1;
}

void vm_end(struct vm_counters *k)
{
	struct vm_state *vm = sim_vm;

	if (!vm)
		return;
	*k = vm->k;
	for (unsigned i = 0; i < vm->nv; i++)
		if (vm->v[i].sem)
			sg_sem_destroy(vm->v[i].sem);
	free(vm->v);
	free(vm->p);
	free(vm);
	sim_vm = NULL;
}

uint64_t vm_progress_bound(uint64_t bound_ps)
{
	uint64_t m;

	if (!sim_vm)
		return bound_ps;
	m = 10 * prm.slice_ps * (sim_vm->per_pcpu ? sim_vm->per_pcpu : 1);
	return bound_ps > m ? bound_ps : m;
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

/* Wake the actor of v, blocked until it is cur.  The release is a simcall:
 * the running actor's view is restored after it. */
static void release(struct vm_vcpu *v)
{
	struct sim_actor *me = sim.cur;
	uint64_t now = sim.now_ps;

	v->waiting = false;
	sim.events++;
	sg_sem_release(v->sem);
	sim.cur = me;
	sim.now_ps = now;
}

/* vCPU i becomes p's cur, running from start.  When it is a co-guest's,
 * the vCPUs waiting for p wake, to wait again until its slice ends (only
 * they will rotate it out). */
static void give(struct vm_pcpu *p, unsigned i, uint64_t start)
{
	struct vm_vcpu *v = &sim_vm->v[i];

	v->state = VC_RUNNING;
	v->start_ps = start;
	p->cur = (int)i;
	p->slice_end_ps = start + slice_len(p);
	if (v->waiting)
		release(v);
	if (!is_other(i))
		return;
	for (int j = p->head; j >= 0; j = sim_vm->v[j].next)
		if (sim_vm->v[j].waiting)
			release(&sim_vm->v[j]);
}

/* p's cur has left at t: the head of the queue runs after a switch (or,
 * kicked, no sooner than its wake latency allows); none: p idles. */
static void run_next(struct vm_pcpu *p, uint64_t t)
{
	int i = rq_pop(p);
	uint64_t start = t + prm.switch_ps;
	struct vm_vcpu *v;

	if (i < 0) {
		p->cur = -1;
		return;
	}
	v = &sim_vm->v[i];
	if (v->kick_ps != NONE && v->kick_ps + prm.wake_ps > start)
		start = v->kick_ps + prm.wake_ps;
	give(p, (unsigned)i, start);
}

/* Nobody waits for p: its cur's slice goes on, slice after slice, past
 * now. */
static void extend_slice(struct vm_pcpu *p, uint64_t now)
{
	while (p->slice_end_ps <= now)
		p->slice_end_ps += slice_len(p);
}

/* A co-guest's vCPU has no actor to give its pCPU away: whoever looks at
 * p at `now` (a vCPU waiting for it, a kick) rotates it out at the end of
 * its slices, as if it had. */
static void advance(struct vm_pcpu *p, uint64_t now)
{
	while (p->cur >= 0 && is_other((unsigned)p->cur) && now >= p->slice_end_ps) {
		unsigned o = (unsigned)p->cur;

		if (!p->queued) {
			extend_slice(p, now);
			return;
		}
		sim_vm->v[o].state = VC_READY;
		rq_push_tail(p, o);
		run_next(p, p->slice_end_ps);
	}
}

/* Block until the pCPU is this vCPU's, then until its start.  While a
 * co-guest's vCPU holds it, the wait ends at that slice's end. */
static void wait_turn(struct sim_actor *a)
{
	struct vm_vcpu *v = vcpu_of(a);
	struct vm_pcpu *p = pcpu_of(a);

	advance(p, sim.now_ps);
	while (p->cur != (int)a->idx) {
		uint64_t end = NONE, now;

		if (p->cur >= 0 && is_other((unsigned)p->cur))
			end = p->slice_end_ps;
		v->waiting = true;
		sim.events++;
		if (end == NONE)
			sg_sem_acquire(v->sem);
		else
			sg_sem_acquire_timeout(v->sem, (double)(end - sim.now_ps) * 1e-12);
		v->waiting = false;
		now = sim_clock_ps();
		if (end != NONE && now < end && p->cur != (int)a->idx)
			now = end; /* the timeout, rounded early by the double clock */
		sim.cur = a;
		sim.now_ps = now;
		sim_resumed(a);
		advance(p, sim.now_ps);
	}
	sim_sleep_until(a, v->start_ps);
	scheduled_in(v);
}

/* The running vCPU of a is descheduled: its slice ended (target -1: the
 * queue's head runs), or a PLE exit yields to target.  It goes to the
 * tail of the queue and comes back when its turn comes. */
static void deschedule(struct sim_actor *a, int target)
{
	struct vm_vcpu *v = vcpu_of(a);
	struct vm_pcpu *p = pcpu_of(a);
	struct vm_counters *k = &sim_vm->k;
	uint64_t now = sim.now_ps;
	int ph = phase_of(a->idx);

	v->off_ps = now;
	v->off_phase = ph;
	if (counting(now)) {
		k->preemptions++;
		k->ple_yields += target >= 0;
		k->holder_preemptions += ph == PH_HOLDING;
		k->waiter_preemptions += ph == PH_ACQUIRING;
	}
	v->state = VC_READY;
	if (target >= 0) {
		rq_remove(p, (unsigned)target);
		rq_push_head(p, (unsigned)target);
	}
	rq_push_tail(p, a->idx);
	run_next(p, now);
	wait_turn(a);
}

/* Where the running vCPU may lose its pCPU: its slice has ended.  With
 * nobody waiting the slice simply goes on. */
static void preempt_point(struct sim_actor *a)
{
	struct vm_pcpu *p = pcpu_of(a);
	uint64_t now = sim.now_ps;

	if (now < p->slice_end_ps)
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
	if (p->cur == (int)a->idx)
		run_next(p, sim.now_ps);
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
		step = p->slice_end_ps - sim.now_ps;
		if (step > left)
			step = left;
		sim_sleep_until(a, sim.now_ps + step);
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
	if (p->slice_end_ps < d)
		d = p->slice_end_ps;
	return d;
}

/* The first vCPU of the same guest waiting for p (KVM's directed yield
 * only ever yields to a vCPU of the spinning guest), or -1. */
static int yield_target(struct vm_pcpu *p)
{
	for (int i = p->head; i >= 0; i = sim_vm->v[i].next)
		if (!is_other((unsigned)i))
			return i;
	return -1;
}

/* The spin lasted the PLE window: the vCPU exits to the hypervisor, which
 * grows its window and yields the pCPU to a vCPU of the same guest that
 * waits for it, if there is one. */
static void ple_exit(struct sim_actor *a)
{
	struct vm_vcpu *v = vcpu_of(a);
	uint64_t w = v->window_ps * prm.ple_grow;
	int target;

	if (counting(sim.now_ps))
		sim_vm->k.ple_exits++;
	v->window_ps = w < PLE_WINDOW_MAX_PS ? w : PLE_WINDOW_MAX_PS;
	sim_sleep_until(a, sim.now_ps + prm.ple_exit_ps);
	target = yield_target(pcpu_of(a));
	if (target >= 0)
		deschedule(a, target);
	else
		preempt_point(a);
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
	return prm.halt_ps;
}

uint64_t vm_kick_ps(void)
{
	return prm.kick_ps;
}

void vm_on_halt(struct sim_actor *a)
{
	struct vm_vcpu *v = vcpu_of(a);

	if (counting(sim.now_ps))
		sim_vm->k.halts++;
	v->state = VC_HALTED;
	v->off_phase = -1;
	run_next(pcpu_of(a), sim.now_ps);
}

void vm_on_kick(struct sim_actor *w)
{
	struct vm_vcpu *v = vcpu_of(w);
	struct vm_pcpu *p = pcpu_of(w);
	uint64_t now = sim.now_ps;

	if (v->state != VC_HALTED)
		return;
	if (counting(now))
		sim_vm->k.kicks++;
	v->kick_ps = now;
	v->state = VC_READY;
	advance(p, now);
	if (p->cur >= 0 && is_other((unsigned)p->cur)) {
		/* wake-up preemption of a co-guest's vCPU (docs/vm.md) */
		unsigned o = (unsigned)p->cur;

		sim_vm->v[o].state = VC_READY;
		rq_push_head(p, o);
		p->cur = -1;
	}
	if (p->cur < 0)
		give(p, w->idx, now + prm.wake_ps);
	else
		rq_push_kicked(p, w->idx);
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
