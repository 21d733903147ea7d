/*
 * tests/sim_vm.c - the simulator's virtual machine (sim/vm.c): what the
 * hypervisor's schedule must and must not produce, and the options.
 *
 *   - one guest at 1x (and 0.5x): every vCPU has a pCPU of its own, so no
 *     vCPU is ever descheduled, holding a lock or not;
 *   - the plain ticket lock at 2x, the guest sharing its pCPUs with busy
 *     co-guests: the schedule preempts holders and waiters, and counts
 *     the time they lose; alone at 2x, its waiters yield by PLE exits;
 *   - pv-ticket and pv-qspinlock halt and are kicked: over many seeds and
 *     both kinds of overcommit every halt is ended by a kick (halts ==
 *     kicks == wakes, and the run completes: no lost wake-up);
 *   - every lock keeps mutual exclusion inside a VM;
 *   - a VM run is deterministic;
 *   - --co-guests same: every guest runs the workload, each on its own
 *     lock (no handoff crosses guests), with exclusion in every guest,
 *     deterministically; --pcpus sizes the host; where the pCPUs do not
 *     divide the vCPUs, the crowded pCPUs are shared out among the guests;
 *   - an overcommitted run shorter than a few slices is warned of;
 *   - the columns exist only with --vm, and bad VM options are refused
 *     with one line and exit status 2.
 */
#include <stdio.h>
#include <string.h>

#include <locklab/lock.h>

#include "testlib.h"

#include "../sim/vm.h"
#include "../sim/vm_state.h"

#define TOPO "4socket"

static const char *bindir;

static void vm_config(struct wl_config *c, unsigned vcpus)
{
	tl_config(c, TOPO, 4242);
	c->cs_ns = 200;
	c->ncs_ns = 1000;
	c->cs_lines = 1;
	c->vm_vcpus = vcpus;
	c->ops = 40;
}

/* vm_config with the run's lengths: a section of cs ns, ncs ns between
 * (exponential with ncs_exp), ops acquisitions a thread or ms of run. */
static void vm_config_lengths(struct wl_config *c, unsigned vcpus, uint64_t cs, uint64_t ncs,
			      bool ncs_exp, uint64_t ops, uint64_t ms)
{
	vm_config(c, vcpus);
	c->cs_ns = cs;
	c->ncs_ns = ncs;
	c->ncs_exp = ncs_exp;
	c->ops = ops;
	c->duration_ms = ms;
}

static void set_opt(const char *opt, const char *val)
{
	char err[256];

	assert_int_equal(backend_parse_option(opt, val, err, sizeof(err)), 1);
}

/* One run of lock a with every vCPU a thread, at overcommit x; fails the
 * test when the run fails.  The caller reads *cnt, then calls tl_done(). */
static void vm_run(struct wl_config *c, const struct lock_algo *a, double x, unsigned idx,
		   struct wl_run *run, struct run_counters *cnt)
{
	char err[512] = "";

	c->overcommit[0] = x;
	c->novercommit = 1;
	if (tl_run(c, a, c->vm_vcpus, idx, run, cnt, err, sizeof(err))) {
		fprintf(stderr, "%s x%.2f seed#%u: %s%s\n", a->name, x, idx, err, run->failure);
		fail();
	}
	assert_true(cnt->vm.has_vm);
	assert_true(cnt->vm.has_sched);
}

static const char *const four[] = { "ticket", "pv-ticket", "qspinlock", "pv-qspinlock" };

/* ------------------------------------------------------------ 1x */

static void one_guest_at_1x_never_preempts(void **state)
{
	const char *locks[] = { "ticket", "pv-ticket", "qspinlock", "pv-qspinlock", "tas", "mcs" };
	const double xs[] = { 1.0, 0.5 };
	struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;

	for (size_t l = 0; l < sizeof(locks) / sizeof(locks[0]); l++)
		for (size_t k = 0; k < 2; k++)
			for (unsigned s = 0; s < 2; s++) {
				vm_config(&c, 8);
				vm_run(&c, lock_find(locks[l]), xs[k], s, &run, &cnt);
				assert_int_equal(cnt.vm.pcpus, xs[k] < 1 ? 16 : 8);
				assert_int_equal(cnt.vm.holder_preemptions, 0);
				assert_int_equal(cnt.vm.preemptions, 0);
				assert_int_equal(cnt.vm.holder_lost_ps, 0);
				tl_done(&run);
			}
}

/* ------------------------------------------------------------ 2x */

/* runs runs of the ticket lock at 2x under c on pcpus physical CPUs, its
 * preemption counters summed into *sum and printed as what (with the
 * command that repeats them, backend options opts). */
static void ticket_runs_at_2x(struct wl_config *c, unsigned pcpus, unsigned runs, const char *what,
			      const char *opts, struct vm_counters *sum)
{
	struct wl_run run;
	struct run_counters cnt;

	memset(sum, 0, sizeof(*sum));
	for (unsigned s = 0; s < runs; s++) {
		vm_run(c, lock_find("ticket"), 2.0, s, &run, &cnt);
		assert_int_equal(cnt.vm.pcpus, pcpus);
		sum->holder_preemptions += cnt.vm.holder_preemptions;
		sum->waiter_preemptions += cnt.vm.waiter_preemptions;
		sum->holder_lost_ps += cnt.vm.holder_lost_ps;
		sum->waiter_lost_ps += cnt.vm.waiter_lost_ps;
		sum->ple_exits += cnt.vm.ple_exits;
		sum->ple_yields += cnt.vm.ple_yields;
		tl_done(&run);
	}
	print_message("  ticket x2 %s, %u runs: preemptions of holders %llu, of waiters %llu; time "
		      "lost by holders %llu ns, by waiters %llu ns; ple exits %llu, yields %llu\n",
		      what, runs, (unsigned long long)sum->holder_preemptions,
		      (unsigned long long)sum->waiter_preemptions,
		      (unsigned long long)(sum->holder_lost_ps / 1000),
		      (unsigned long long)(sum->waiter_lost_ps / 1000),
		      (unsigned long long)sum->ple_exits, (unsigned long long)sum->ple_yields);
	tl_print_command(c, "run", "ticket", c->vm_vcpus, runs, opts);
}

static void ticket_at_2x_preempts_holders_and_waiters(void **state)
{
	struct wl_config c;
	struct vm_counters sum;

	set_opt("--co-guests", "busy");
	vm_config(&c, 4);
	c.cs_ns = 20000;
	c.ncs_ns = 20000;
	c.ops = 0;
	c.duration_ms = 40;
	ticket_runs_at_2x(&c, 4, 6, "beside busy co-guests", "--co-guests busy --format csv", &sum);
	set_opt("--co-guests", "none");
	assert_true(sum.holder_preemptions > 0);
	assert_true(sum.waiter_preemptions > 0);
	assert_true(sum.holder_lost_ps > 0);
}

/* The guest alone at 2x: two of its vCPUs per pCPU; a spinning waiter
 * leaves its pCPU to the other by a PLE exit.  Whether a run's schedule
 * puts a waiter beside the holder depends on the seed: summed over four.
 * A run of several CFS slices (12 ms at two vCPUs a pCPU), so that every
 * vCPU runs and takes its ticket. */
static void ticket_alone_at_2x_yields_by_ple(void **state)
{
	struct wl_config c;
	struct vm_counters sum;

	vm_config(&c, 8);
	c.ops = 0;
	c.duration_ms = 40;
	ticket_runs_at_2x(&c, 4, 4, "alone", "--format csv", &sum);
	assert_true(sum.ple_exits > 0);
	assert_true(sum.ple_yields > 0);
	assert_true(sum.waiter_preemptions > 0);
	assert_true(sum.waiter_lost_ps > 0);
}

/* The guest alone at 2x, two of its vCPUs a pCPU: a spinner's PLE exit
 * yielding within its pCPU (--ple-yield pcpu) yields to the other.  With
 * round-robin slices every such yield hands the
 * pCPU over (a waiter's preemption each); with CFS's, a spinner that has run
 * less than the other by more than the wake-up granularity is the skip
 * buddy CFS passes over only within it (pick_next_entity), so it picks
 * itself again and some yields hand nothing over. */
static void cfs_yield_skips_only_within_the_granularity(void **state)
{
	struct wl_config c;
	struct vm_counters rr, fair;

	vm_config(&c, 8);
	c.ops = 0;
	c.duration_ms = 40;
	set_opt("--ple-yield", "pcpu");
	set_opt("--slice-us", "12000");
	ticket_runs_at_2x(&c, 4, 2, "alone, 12 ms round-robin",
			  "--ple-yield pcpu --slice-us 12000 --format csv", &rr);
	set_opt("--slice-us", "cfs");
	ticket_runs_at_2x(&c, 4, 2, "alone, CFS", "--ple-yield pcpu --format csv", &fair);
	set_opt("--ple-yield", "guest");
	assert_true(rr.ple_yields > 0 && fair.ple_yields > 0);
	assert_true(rr.waiter_preemptions >= rr.ple_yields);
	assert_true(fair.waiter_preemptions < fair.ple_yields);
}

/* vCPUs 0, 1 and 2 of v (nv of them, the rest zeroed) queued on p in that
 * order, having run vr_ms of virtual time; --slice-us slice_ps (0: CFS's). */
static void queue_three(struct vm_vcpu *v, size_t nv, struct vm_pcpu *p, const uint64_t vr_ms[3],
			uint64_t slice_ps)
{
	memset(v, 0, nv * sizeof(*v));
	vm_prm.slice_ps = slice_ps;
	for (unsigned k = 0; k < 3; k++) {
		v[k].state = VC_READY;
		v[k].vr_ps = vr_ms[k] * 1000 * US_PS;
		vm_rq_push_tail(p, k);
	}
}

/* Who runs when a pCPU's vCPU leaves (vm_pick_next): three queued vCPUs,
 * queued in the order 0, 1, 2, having run 30, 10 and 12 ms of virtual
 * time.  A round-robin runs the queue's head; CFS the leftmost (least
 * virtual runtime), or a directed yield's next buddy when it trails the
 * leftmost by no more than the wake-up granularity (4 ms here), once: a
 * pick clears the buddy when it picks it, keeps one it passes over (CFS's
 * clear_buddies), and drops one that has left the queue; round-robin keeps
 * none. */
static int pick_from_state(const uint64_t vr_ms[3], int next_buddy, uint64_t slice_ps,
			   enum vc_state buddy_state)
{
	struct vm_vcpu v[3];
	struct vm_pcpu p = { .cur = -1, .head = -1, .tail = -1, .next_buddy = next_buddy };
	struct vm_state st = { .nv = 3, .np = 1, .v = v, .p = &p,
			       .cfs_wakeup_gran_ps = 4000 * US_PS };
	struct vm_state *saved = sim_vm;
	uint64_t saved_slice = vm_prm.slice_ps;
	int i;

	sim_vm = &st;
	queue_three(v, 3, &p, vr_ms, slice_ps);
	if (next_buddy >= 0)
		v[next_buddy].state = buddy_state;
	i = vm_pick_next(&p);
	assert_int_equal(p.queued, 2);
	if (next_buddy >= 0 && i != next_buddy && buddy_state == VC_READY && !slice_ps)
		assert_int_equal(p.next_buddy, next_buddy); /* passed over: kept */
	else
		assert_int_equal(p.next_buddy, -1);
	sim_vm = saved;
	vm_prm.slice_ps = saved_slice;
	return i;
}

static int pick_from(const uint64_t vr_ms[3], int next_buddy, uint64_t slice_ps)
{
	return pick_from_state(vr_ms, next_buddy, slice_ps, VC_READY);
}

static void cfs_picks_the_leftmost(void **state)
{
	const uint64_t vr[3] = { 30, 10, 12 }, near[3] = { 13, 10, 30 }, edge[3] = { 14, 10, 30 };

	assert_int_equal(pick_from(vr, -1, 3000 * US_PS), 0); /* round-robin: the head */
	assert_int_equal(pick_from(vr, -1, 0), 1);            /* CFS: least runtime */
	assert_int_equal(pick_from(vr, 2, 0), 2);  /* buddy 2 ms behind: it runs */
	assert_int_equal(pick_from(vr, 0, 0), 1);  /* buddy 20 ms behind: the leftmost */
	assert_int_equal(pick_from(near, 0, 0), 0);  /* 3 ms behind, at the head */
	assert_int_equal(pick_from(vr, 2, 3000 * US_PS), 0); /* round-robin: no buddies */
	assert_int_equal(pick_from(edge, 0, 0), 0);  /* 4 ms behind: still within */
	assert_int_equal(pick_from_state(vr, 2, 0, VC_HALTED), 1); /* a halted buddy: none */
}

/* Who runs when a spinner yields (vm_yield_pick): the spinner, vCPU 3, runs
 * on a pCPU whose queue holds vCPUs 0, 1 and 2, queued in that order; the
 * wake-up granularity is 4 ms.  CFS runs the leftmost of all four (a queued
 * vCPU before the spinner at equal virtual runtimes); the spinner being the
 * leftmost, the next after it when within 4 ms of it, else the spinner
 * again; the pCPU's next buddy in place of either when within 4 ms of the
 * leftmost.  A round-robin runs the queue's head. */
static int yield_pick_from(const uint64_t queued_ms[3], uint64_t spinner_ms, int next_buddy,
			   uint64_t slice_ps, enum vc_state buddy_state)
{
	struct vm_vcpu v[4];
	struct vm_pcpu p = { .cur = 3, .head = -1, .tail = -1, .next_buddy = next_buddy };
	struct vm_state st = { .nv = 4, .np = 1, .v = v, .p = &p,
			       .cfs_wakeup_gran_ps = 4000 * US_PS };
	struct vm_state *saved = sim_vm;
	uint64_t saved_slice = vm_prm.slice_ps, now = 100 * 1000 * US_PS;
	int i;

	sim_vm = &st;
	queue_three(v, 4, &p, queued_ms, slice_ps);
	v[3].state = VC_RUNNING;
	v[3].start_ps = now - 1000 * US_PS; /* it has run 1 ms of its spinner_ms */
	v[3].vr_ps = (spinner_ms - 1) * 1000 * US_PS;
	if (next_buddy >= 0)
		v[next_buddy].state = buddy_state;
	i = vm_yield_pick(&p, 3, now);
	assert_int_equal(p.queued, 3); /* a pick, no dequeue */
	assert_int_equal(p.next_buddy, next_buddy);
	sim_vm = saved;
	vm_prm.slice_ps = saved_slice;
	return i;
}

static void cfs_yield_picks_as_pick_next_entity(void **state)
{
	const uint64_t q[3] = { 30, 12, 20 }, lower[3] = { 30, 12, 14 }, buddy[3] = { 30, 12, 13 },
		       far[3] = { 30, 12, 15 };

	assert_int_equal(yield_pick_from(q, 20, -1, 0, VC_READY), 1);  /* the leftmost is queued */
	assert_int_equal(yield_pick_from(q, 12, -1, 0, VC_READY), 1);  /* a tie: the queued one */
	assert_int_equal(yield_pick_from(q, 10, -1, 0, VC_READY), 1);  /* skip: next 2 ms behind */
	assert_int_equal(yield_pick_from(q, 8, -1, 0, VC_READY), 1);   /* 4 ms behind: within */
	assert_int_equal(yield_pick_from(q, 5, -1, 0, VC_READY), 3);   /* 7 ms behind: spins on */
	assert_int_equal(yield_pick_from(lower, 20, 2, 0, VC_READY), 2); /* buddy 2 ms behind 12 */
	assert_int_equal(yield_pick_from(buddy, 10, 2, 0, VC_READY), 2); /* 3 ms behind the spinner */
	assert_int_equal(yield_pick_from(far, 10, 2, 0, VC_READY), 1);   /* 5 ms: the next one */
	assert_int_equal(yield_pick_from(q, 5, 1, 0, VC_READY), 3);      /* 7 ms: neither */
	assert_int_equal(yield_pick_from(buddy, 10, 2, 0, VC_HALTED), 1); /* a halted buddy: none */
	assert_int_equal(yield_pick_from(q, 5, -1, 3000 * US_PS, VC_READY), 0); /* round-robin */
}

/* A directed yield's boost of the guest's vCPU 0, queued on a pCPU where
 * vCPU 1 runs, 8 or 3 ms of virtual runtime behind it: set_next_buddy and
 * resched_task.  vCPU 1 a vCPU with an actor (a guest's): its slice ends
 * now either way (CFS picks again at its next preemption point) and vCPU 0
 * is the next buddy.  vCPU 1 a busy co-guest's (no actor), picked again at
 * once: within the granularity vCPU 0 takes the pCPU; beyond it vCPU 1 runs
 * on with a new slice, and vCPU 0 stays queued as the next buddy. */
static void boost_pcpu(bool busy, bool far, struct vm_vcpu v[2], struct vm_pcpu *p,
		       uint64_t now)
{
	struct vm_state st = { .nv = 2, .np = 1, .vcpus = busy ? 1 : 2, .nthreads = busy ? 1 : 2,
			       .v = v, .p = p, .cfs_latency_ps = 24000 * US_PS,
			       .cfs_min_gran_ps = 3000 * US_PS, .cfs_wakeup_gran_ps = 4000 * US_PS };
	struct vm_state *saved = sim_vm;

	sim_vm = &st;
	memset(v, 0, 2 * sizeof(*v));
	*p = (struct vm_pcpu){ .cur = 1, .head = -1, .tail = -1, .next_buddy = -1,
			       .pick_ps = now - 2000 * US_PS, .slice_end_ps = now + 10000 * US_PS };
	v[1].state = VC_RUNNING;
	v[1].start_ps = p->pick_ps;
	v[1].vr_ps = 20000 * US_PS; /* 22 ms now */
	v[0].state = VC_READY;
	v[0].vr_ps = (far ? 30000 : 25000) * US_PS; /* 8 or 3 ms ahead */
	vm_rq_push_tail(p, 0);
	vm_boost(0, now);
	sim_vm = saved;
}

static void boost_keeps_the_buddy(void **state)
{
	struct vm_vcpu v[2];
	struct vm_pcpu p;
	uint64_t now = 50 * 1000 * US_PS;

	for (unsigned far = 0; far < 2; far++) { /* a guest's vCPU runs there */
		boost_pcpu(false, far, v, &p, now);
		assert_int_equal(p.cur, 1);
		assert_int_equal(p.queued, 1);
		assert_int_equal(p.next_buddy, 0);
		assert_true(p.slice_end_ps == now);
	}
	boost_pcpu(true, false, v, &p, now); /* a busy co-guest's, within 4 ms */
	assert_int_equal(p.cur, 0);
	assert_int_equal(p.queued, 1);
	assert_int_equal(v[1].state, VC_READY);
	boost_pcpu(true, true, v, &p, now); /* beyond: it runs on, a new slice */
	assert_int_equal(p.cur, 1);
	assert_true(p.pick_ps == now && p.slice_end_ps > now);
	assert_int_equal(p.queued, 1);
	assert_int_equal(p.next_buddy, 0);
	assert_int_equal(v[0].state, VC_READY);
}

/* --slice-spread-pct F: slices drawn from [S - F S, S + F S); 0: all S. */
static void slice_spread_bounds(void **state)
{
	struct vm_pcpu p = { .cur = -1, .head = -1, .tail = -1, .next_buddy = -1 };
	struct vm_state st = { .np = 1, .p = &p, .seed = 7, .cfs_latency_ps = 24000 * US_PS,
			       .cfs_min_gran_ps = 3000 * US_PS };
	struct vm_state *saved = sim_vm;
	const uint64_t spreads[] = { 0, 25, 50, 90 }, s = 24000 * US_PS; /* one runnable: L */

	sim_vm = &st;
	for (unsigned k = 0; k < 4; k++) {
		uint64_t lo = UINT64_MAX, hi = 0, f = spreads[k];

		vm_prm.slice_spread_pct = f;
		for (unsigned n = 0; n < 2000; n++) {
			uint64_t len = vm_slice_len(&p);

			lo = len < lo ? len : lo;
			hi = len > hi ? len : hi;
		}
		assert_true(lo >= s - s * f / 100 && hi < s + s * f / 100 + (f == 0));
		/* the draws fill the range: within a fiftieth of each end */
		assert_true(lo <= s - s * f / 100 + s * f / 5000 && hi + s * f / 5000 + 1 >= s + s * f / 100);
	}
	vm_prm.slice_spread_pct = 50;
	sim_vm = saved;
}

/* Beside busy co-guests every vCPU of the guest has a pCPU of its own
 * (shared with a co-guest's), so a PLE exit that yields only within its
 * pCPU (--ple-yield pcpu) finds no vCPU of its guest there, and a preempted
 * holder stays off until its pCPU's slice comes round; KVM's directed yield
 * (--ple-yield guest, the default) boosts a preempted vCPU of the guest on another pCPU.  With
 * round-robin slices (--slice-us) the boosted holder runs at once in place
 * of the co-guest, so it is back within the spinners' next exits.  With
 * CFS's (the default) it runs next only if its virtual runtime is within
 * the wake-up granularity of the least on that pCPU (pick_next_entity): a
 * holder preempted at the end of its slice has run a slice more than the
 * co-guest now running there, so the boost changes nothing and the holder
 * waits as long as without it. */
static void guest_yield_runs(struct wl_config *c, const char *slice, struct vm_counters *pcpu,
			     struct vm_counters *guest)
{
	char opts[160];

	set_opt("--co-guests", "busy");
	set_opt("--slice-us", slice);
	vm_config(c, 4);
	c->ops = 0;
	c->duration_ms = 10;
	set_opt("--ple-yield", "pcpu");
	snprintf(opts, sizeof(opts), "--co-guests busy --slice-us %s --ple-yield pcpu --format csv",
		 slice);
	ticket_runs_at_2x(c, 4, 2, "beside busy co-guests, yield within the pCPU", opts, pcpu);
	set_opt("--ple-yield", "guest");
	snprintf(opts, sizeof(opts), "--co-guests busy --slice-us %s --ple-yield guest --format csv",
		 slice);
	ticket_runs_at_2x(c, 4, 2, "beside busy co-guests, directed yield in the guest", opts, guest);
	set_opt("--slice-us", "cfs");
	set_opt("--co-guests", "none");
	assert_true(pcpu->ple_exits > 0);
	assert_int_equal(pcpu->ple_yields, 0);
	assert_true(pcpu->holder_preemptions > 0 && guest->holder_preemptions > 0);
	assert_true(guest->ple_yields > 0);
}

static void guest_yield_boosts_other_pcpus(void **state)
{
	struct wl_config c;
	struct vm_counters pcpu, guest;

	guest_yield_runs(&c, "3000", &pcpu, &guest);
	assert_true(guest.holder_lost_ps * 10 < pcpu.holder_lost_ps);
}

static void cfs_boosts_only_within_the_granularity(void **state)
{
	struct wl_config c;
	struct vm_counters pcpu, guest;

	guest_yield_runs(&c, "cfs", &pcpu, &guest);
	assert_true(guest.holder_lost_ps * 2 > pcpu.holder_lost_ps);
}

/* ------------------------------------------------------------ slices */

/* Two runs of ms of lock on a guest of vcpus at overcommit x (cs and ncs
 * as given, ncs exponential or fixed): the guest's preemptions, or with
 * acqs its acquisitions, summed. */
static uint64_t two_runs(const char *lock, unsigned vcpus, double x, uint64_t cs, uint64_t ncs,
			 bool ncs_exp, uint64_t ms, bool acqs)
{
	struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;
	uint64_t n = 0;

	for (unsigned s = 0; s < 2; s++) {
		vm_config_lengths(&c, vcpus, cs, ncs, ncs_exp, 0, ms);
		vm_run(&c, lock_find(lock), x, s, &run, &cnt);
		n += acqs ? tl_acquisitions(&run) : cnt.vm.preemptions;
		tl_done(&run);
	}
	return n;
}

/* The guest's preemptions in two runs of 240 ms beside busy co-guests, PLE
 * off (a slice's end is then the only preemption). */
static uint64_t preemptions_at(double x)
{
	return two_runs("tas", 4, x, 200, 20000, false, 240, false);
}

/* CFS shares its latency (24 ms on 8 CPUs or more) among the n vCPUs
 * runnable on a pCPU, at least 3 ms each: whatever n up to 8, each vCPU
 * ends a slice once a 24 ms round, so 4 vCPUs in 2 runs of 240 ms end about
 * 80 slices at 2x and at 4x.  Fewer of those are preemptions: a vCPU whose
 * slice was drawn short is still the leftmost at its end, and CFS picks it
 * again (measured: 58 at 2x, 74 at 4x).  With slices all of their mean
 * (--slice-spread-pct 0) none is drawn short, and the guest's vCPU at 2x
 * leaves at each of its slice ends: 9 or 10 a run a vCPU, as its rounds
 * fall against the run's ends (measured: 75).  A fixed --slice-us 3000 at 2x, a
 * round-robin, gives a round of 6 ms: about 320. */
static void cfs_slices_share_the_latency(void **state)
{
	uint64_t x2, x4, exact, fixed;

	set_opt("--co-guests", "busy");
	set_opt("--ple-window-ns", "0");
	x2 = preemptions_at(2.0);
	x4 = preemptions_at(4.0);
	set_opt("--slice-spread-pct", "0");
	exact = preemptions_at(2.0);
	set_opt("--slice-spread-pct", "50");
	set_opt("--slice-us", "3000");
	fixed = preemptions_at(2.0);
	set_opt("--slice-us", "cfs");
	set_opt("--co-guests", "none");
	set_opt("--ple-window-ns", "2048");
	print_message("  4 vCPUs beside busy co-guests, 2 runs of 240 ms, PLE off: %llu preemptions "
		      "at 2x, %llu at 4x (CFS's slices); %llu at 2x with slices all of the mean; "
		      "%llu at 2x with --slice-us 3000\n",
		      (unsigned long long)x2, (unsigned long long)x4, (unsigned long long)exact,
		      (unsigned long long)fixed);
	assert_in_range(x2, 48, 96);
	assert_in_range(x4, 48, 96);
	assert_in_range(exact, 72, 80);
	assert_in_range(fixed, 256, 384);
}

/* Two guests of 8 vCPUs running pv-ticket at 2x (--co-guests same), two
 * runs of 120 ms: their acquisitions summed. */
static uint64_t pv_guests_at_2x(void)
{
	uint64_t n;

	set_opt("--co-guests", "same");
	set_opt("--ple-grow", "1");
	n = two_runs("pv-ticket", 8, 2.0, 400, 2000, true, 120, true);
	set_opt("--co-guests", "none");
	set_opt("--ple-grow", "2");
	return n;
}

/* CFS's wake-up preemption: a halted vCPU kicked after a long sleep trails
 * the other guest's running vCPU by more than the wake-up granularity and
 * takes the pCPU at once, where a round-robin of the same 12 ms slices
 * makes it wait for the slice to end, the lock's FIFO with it: the guests
 * make over twice the acquisitions (the test prints both; with the
 * wake-up preemption taken out they were alike, measured once). */
static void kicked_sleeper_preempts_the_other_guest(void **state)
{
	uint64_t cfs, rr;

	cfs = pv_guests_at_2x();
	set_opt("--slice-us", "12000");
	rr = pv_guests_at_2x();
	set_opt("--slice-us", "cfs");
	print_message("  pv-ticket, two guests of 8 vCPUs at 2x, 2 runs of 120 ms: %llu acquisitions "
		      "under CFS, %llu under a 12 ms round-robin\n", (unsigned long long)cfs,
		      (unsigned long long)rr);
	assert_true(cfs > 2 * rr);
}

/* A kicked vCPU joining a running pCPU's queue (vm_slice_recount): the
 * running vCPU's slice becomes the one of n + 1 runnable, from its pick,
 * at the same place in its spread, never before now, never longer than
 * it was; a fixed --slice-us, or an idle pCPU, is left as it is. */
static void kick_shrinks_the_running_slice(void **state)
{
	const uint64_t ms = 1000000000ull; /* ps */
	struct vm_state vm = { 0 };
	struct vm_pcpu p = { .cur = 0, .queued = 1, .pick_ps = 5 * ms };
	struct vm_state *saved = sim_vm;

	vm.cfs_latency_ps = 24 * ms;
	vm.cfs_min_gran_ps = 3 * ms;
	sim_vm = &vm;
	/* drawn alone (n = 1: a mean of 24 ms) at three quarters of its spread */
	p.draw_mean_ps = 24 * ms;
	p.draw = 18 * ms;
	p.slice_end_ps = p.pick_ps + 12 * ms + 18 * ms; /* 35 ms */
	vm_slice_recount(&p, 6 * ms);                   /* n = 2: 12 ms, 6 + 9 from the pick */
	assert_int_equal(p.slice_end_ps, 20 * ms);
	vm_slice_recount(&p, 6 * ms); /* the same count again: no change */
	assert_int_equal(p.slice_end_ps, 20 * ms);
	p.queued = 2;                  /* n = 3: 8 ms, 4 + 6 from the pick, but now is later */
	vm_slice_recount(&p, 17 * ms);
	assert_int_equal(p.slice_end_ps, 17 * ms);
	p.queued = 1;                  /* never longer than it was */
	vm_slice_recount(&p, 17 * ms);
	assert_int_equal(p.slice_end_ps, 17 * ms);
	p.slice_end_ps = 35 * ms;      /* a fixed slice does not shrink */
	set_opt("--slice-us", "3000");
	vm_slice_recount(&p, 6 * ms);
	assert_int_equal(p.slice_end_ps, 35 * ms);
	set_opt("--slice-us", "cfs");
	p.cur = -1;                    /* nor does an idle pCPU's */
	vm_slice_recount(&p, 6 * ms);
	assert_int_equal(p.slice_end_ps, 35 * ms);
	sim_vm = saved;
}

/* CFS's wake-up (vm_wakeup_preempts): the woken vCPU is placed at most half
 * the latency behind min_vruntime, never ahead of its own virtual runtime
 * lowered; it preempts the running vCPU only when that one leads it by
 * more than the granularity, strictly; it does not count itself. */
static void wakeup_places_and_preempts_as_cfs(void **state)
{
	const uint64_t ms = 1000000000ull; /* ps */
	struct vm_vcpu v[2] = { { 0 }, { 0 } };
	struct vm_state vm = { .v = v, .nv = 2 };
	struct vm_pcpu p = { .cur = 0, .head = -1, .tail = -1 };
	struct vm_state *saved = sim_vm;

	vm.cfs_latency_ps = 24 * ms;
	vm.cfs_wakeup_gran_ps = 4 * ms;
	sim_vm = &vm;
	v[0].vr_ps = 6 * ms; /* cur: 6 ms run before, running since 20 ms */
	v[0].start_ps = 20 * ms;
	v[1].vr_ps = 6 * ms; /* w: as far as cur was, 4 ms ago */
	assert_false(vm_wakeup_preempts(&p, &v[1], 24 * ms)); /* a lead of 4 ms: not more */
	assert_int_equal(p.min_vr_ps, 10 * ms);             /* cur's, w not counted */
	assert_int_equal(v[1].vr_ps, 6 * ms);               /* above the floor: its own */
	v[1].vr_ps = 6 * ms - 1;
	assert_true(vm_wakeup_preempts(&p, &v[1], 24 * ms)); /* one ps more */
	v[1].vr_ps = 0;                                      /* a long sleeper */
	assert_true(vm_wakeup_preempts(&p, &v[1], 34 * ms));
	assert_int_equal(p.min_vr_ps, 20 * ms);
	assert_int_equal(v[1].vr_ps, 8 * ms); /* placed half the latency behind */
	p.cur = -1;                           /* an idle pCPU: placed, nothing to preempt */
	v[1].vr_ps = 0;
	assert_false(vm_wakeup_preempts(&p, &v[1], 34 * ms));
	assert_int_equal(v[1].vr_ps, 8 * ms);
	sim_vm = saved;
}

/* ------------------------------------------------------------ halt, kick */

/* Waits that outlast the spin: either the guest shares its pCPUs with
 * busy co-guests, or it is alone without PLE (so a spinning waiter keeps
 * its pCPU).  Slices of 1 ms, beyond the spin, keep the runs short; 300
 * acquisitions a thread make each run last several slices. */
static void halts_matched_by_kicks(void **state)
{
	const char *locks[] = { "pv-ticket", "pv-qspinlock" };
	const char *guests[] = { "busy", "none" }, *ple[] = { "2048", "0" };
	const double xs[] = { 2.0, 3.0 };
	struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;
	uint64_t halts[2] = { 0, 0 };

	set_opt("--slice-us", "1000");
	for (size_t m = 0; m < 2; m++) {
		set_opt("--co-guests", guests[m]);
		set_opt("--ple-window-ns", ple[m]);
		for (size_t l = 0; l < 2; l++)
			for (size_t k = 0; k < 2; k++) {
				uint64_t h = 0;

				for (unsigned s = 0; s < 3; s++) {
					vm_config(&c, 6);
					c.cs_ns = 2000;
					c.ncs_ns = 2000;
					c.ops = 300;
					vm_run(&c, lock_find(locks[l]), xs[k], s, &run, &cnt);
					if (cnt.vm.halts != cnt.vm.kicks || cnt.vm.kicks != cnt.vm.wakes) {
						fprintf(stderr, "%s co-guests %s, ple window %s, x%.0f "
								"seed#%u: halts %llu kicks %llu wakes %llu\n",
							locks[l], guests[m], ple[m], xs[k], s,
							(unsigned long long)cnt.vm.halts,
							(unsigned long long)cnt.vm.kicks,
							(unsigned long long)cnt.vm.wakes);
						fail();
					}
					assert_int_equal(tl_acquisitions(&run), c.ops * c.vm_vcpus);
					halts[l] += cnt.vm.halts;
					h += cnt.vm.halts;
					tl_done(&run);
				}
				print_message("  %-12s x%.0f --co-guests %s --ple-window-ns %s, 3 runs: "
					      "%llu halts, each kicked\n", locks[l], xs[k], guests[m],
					      ple[m], (unsigned long long)h);
			}
	}
	print_message("  as, for one of them:\n");
	tl_print_command(&c, "run", "pv-qspinlock", 6, 3,
			 "--slice-us 1000 --co-guests none --ple-window-ns 0 --format csv");
	set_opt("--co-guests", "none");
	set_opt("--ple-window-ns", "2048"); /* 4096 cycles at 2 GHz */
	set_opt("--slice-us", "cfs");
	/* not vacuous: both locks halted */
	assert_true(halts[0] > 0);
	assert_true(halts[1] > 0);
}

/* Three runs of lock at 1x; fails unless every acquisition is made (the
 * workload checks exclusion) and each halt was ended by a kick; returns
 * the halts. */
static uint64_t halts_at_1x(const char *lock, unsigned vcpus, unsigned read_pct, uint64_t cs,
			    uint64_t ncs, uint64_t ops, uint64_t ms)
{
	struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;
	uint64_t halts = 0;

	for (unsigned s = 0; s < 3; s++) {
		vm_config_lengths(&c, vcpus, cs, ncs, ms != 0, ops, ms);
		c.read_pct = read_pct;
		vm_run(&c, lock_find(lock), 1.0, s, &run, &cnt);
		if (ops)
			assert_int_equal(tl_acquisitions(&run), c.ops * c.vm_vcpus);
		assert_int_equal(cnt.vm.halts, cnt.vm.kicks);
		halts += cnt.vm.halts;
		tl_done(&run);
	}
	print_message("  %-9s 3 runs of %u vCPUs at 1x: %llu halts\n", lock, vcpus,
		      (unsigned long long)halts);
	return halts;
}

/* A sleeping lock's waiters halt their vCPUs: rwsem and rwsem-pv (Linux
 * 3.10's rwsem, wait_lock ticket or pv-ticket) with half writes; mutex and
 * mutex-pv (3.10's mutex), whose spinner sleeps only when the mutex passes
 * to another holder while it spins, so rarely: 32 vCPUs, 40 ms, dbench's
 * lengths.  The spinning rwlock never halts. */
static void sleeping_locks_halt_their_vcpus(void **state)
{
	assert_true(halts_at_1x("rwsem", 6, 50, 2000, 2000, 100, 0) > 0);
	assert_true(halts_at_1x("rwsem-pv", 6, 50, 2000, 2000, 100, 0) > 0);
	assert_true(halts_at_1x("mutex", 32, 0, 200, 3000, 0, 40) > 0);
	assert_true(halts_at_1x("mutex-pv", 32, 0, 200, 3000, 0, 40) > 0);
	assert_int_equal(halts_at_1x("rwlock", 6, 50, 2000, 2000, 100, 0), 0);
}

/* ------------------------------------------------------------ exclusion */

static void locks_exclude_in_a_vm(void **state)
{
	struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;

	for (size_t l = 0; l < 4; l++)
		for (unsigned s = 0; s < 5; s++) {
			vm_config(&c, 6);
			c.cs_lines = 2;
			vm_run(&c, lock_find(four[l]), s % 2 ? 3.0 : 1.5, s, &run, &cnt);
			assert_int_equal(tl_acquisitions(&run), c.ops * c.vm_vcpus);
			tl_done(&run);
		}
}

/* Two runs of lock at x with the same seed and co-guests give the same
 * schedule, event for event. */
static void assert_runs_alike(const char *guests, const char *lock, double x, unsigned idx)
{
	struct wl_config c;
	struct wl_run run;
	struct run_counters a, b;

	set_opt("--co-guests", guests);
	vm_config(&c, 6);
	vm_run(&c, lock_find(lock), x, idx, &run, &a);
	uint64_t acq = tl_acquisitions(&run), stop = run.stop_ns;

	tl_done(&run);
	vm_config(&c, 6);
	vm_run(&c, lock_find(lock), x, idx, &run, &b);
	set_opt("--co-guests", "none");
	assert_int_equal(tl_acquisitions(&run), acq);
	assert_int_equal(run.stop_ns, stop);
	assert_int_equal(a.sim.events, b.sim.events);
	assert_memory_equal(&a.vm, &b.vm, sizeof(a.vm));
	tl_done(&run);
}

static void same_seed_same_schedule(void **state)
{
	assert_runs_alike("busy", "pv-qspinlock", 2.0, 7);
}

/* ------------------------------------------------------------ co-guests same */

/* No handoff from a thread of another guest, and guest g's lock was last
 * released by one of its own threads. */
static void assert_guests_apart(const struct wl_run *run, unsigned v)
{
	for (unsigned t = 0; t < run->nthreads; t++) {
		const struct wl_handoff_map *m = &run->threads[t].handoff_from;

		for (unsigned k = 0; k < m->cap; k++)
			if (m->slot[k].from && m->slot[k].n)
				assert_int_equal((m->slot[k].from - 1) / v, t / v);
	}
	for (unsigned g = 0; g < run->cfg->locks; g++)
		assert_int_equal((unsigned)run->slots[g].check->last_holder / v, g);
}

static void same_guests_each_on_its_own_lock(void **state)
{
	const double xs[] = { 2.0, 3.0 };
	struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;

	set_opt("--co-guests", "same");
	for (size_t l = 0; l < 2; l++)
		for (size_t k = 0; k < 2; k++) {
			vm_config(&c, 6);
			c.cs_lines = 2;
			vm_run(&c, lock_find(four[l]), xs[k], (unsigned)k, &run, &cnt);
			assert_int_equal(run.nthreads, 6 * (unsigned)xs[k]);
			assert_int_equal(run.cfg->locks, (unsigned)xs[k]);
			assert_int_equal(cnt.vm.pcpus, 6);
			assert_int_equal(tl_acquisitions(&run), c.ops * run.nthreads);
			assert_guests_apart(&run, 6);
			tl_done(&run);
		}
	set_opt("--co-guests", "none");
}

static void same_guests_deterministic(void **state)
{
	assert_runs_alike("same", "pv-ticket", 2.0, 3);
}

/* --pcpus 8 with guests of 4 vCPUs: at 1x two guests, at 0.5x ours alone. */
static void pcpus_sizes_the_host(void **state)
{
	const double xs[] = { 1.0, 0.5 };
	struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;

	set_opt("--co-guests", "same");
	set_opt("--pcpus", "8");
	for (size_t k = 0; k < 2; k++) {
		vm_config(&c, 4);
		vm_run(&c, lock_find("ticket"), xs[k], 0, &run, &cnt);
		assert_int_equal(cnt.vm.pcpus, 8);
		assert_int_equal(run.nthreads, k ? 4 : 8);
		assert_int_equal(cnt.vm.preemptions, 0);
		assert_guests_apart(&run, 4);
		tl_done(&run);
	}
	set_opt("--co-guests", "none");
	set_opt("--pcpus", "0");
}

/* Where vCPUs go (wl_vm_pcpu_of): every pCPU holds total / P vCPUs, rounded
 * down or up; no pCPU holds two vCPUs of one guest; and where P does not
 * divide and the guests are whole, they share out the crowded pCPUs (within
 * one vCPU), none of them left with pCPUs to itself. */
static void placement_shares_crowded_pcpus(void **state)
{
	static const unsigned cases[][3] = {
		/* guest, total, pcpus */
		{ 32, 96, 64 }, { 16, 24, 16 }, { 32, 80, 32 }, { 4, 12, 8 }, { 32, 64, 32 },
		{ 32, 128, 64 }, { 5, 13, 4 }, { 32, 80, 64 }, { 2, 5, 4 }, { 4, 14, 3 },
		{ 27, 81, 32 }, { 5, 15, 4 },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		unsigned v = cases[k][0], n = cases[k][1], np = cases[k][2];
		unsigned on[64] = { 0 }, crowded[8] = { 0 }, ng = (n + v - 1) / v;
		unsigned lo = n / np, hi = (n + np - 1) / np, least = ~0u, most = 0;

		for (unsigned i = 0; i < n; i++) {
			unsigned p = wl_vm_pcpu_of(i, v, n, np);

			assert_true(p < np);
			on[p]++;
			if (n % np == 0)
				assert_int_equal(p, i % np);
			for (unsigned j = i - i % v; j < i && v <= np; j++)
				assert_int_not_equal(wl_vm_pcpu_of(j, v, n, np), p);
		}
		for (unsigned p = 0; p < np; p++)
			assert_true(on[p] == lo || on[p] == hi);
		for (unsigned i = 0; i < n; i++)
			if (on[wl_vm_pcpu_of(i, v, n, np)] == hi)
				crowded[i / v]++;
		for (unsigned g = 0; g < ng && (g + 1) * v <= n; g++) {
			least = crowded[g] < least ? crowded[g] : least;
			most = crowded[g] > most ? crowded[g] : most;
		}
		if (v <= np && n % v == 0)
			assert_true(most - least <= 1);
	}
}

/* wl_vm_cores_first on x7560-ht's compact placement of its 64 hardware
 * threads (socket s: threads 16 s .. 16 s + 7 one of each core, the next 8
 * their siblings): the 32 pCPUs that wl_vm_pcpu_of gives one guest at 0.5x
 * are on 32 cores, 8 a socket; of two guests of 16, each keeps the sockets
 * the stride gave it (0-1 and 2-3) on cores of its own; a pCPU never changes
 * socket; without SMT, or with no more pCPUs than vCPUs, nothing moves; it is
 * always a permutation. */
static void undercommit_takes_cores_of_their_own(void **state)
{
	unsigned phys[64], socket[64], flat[64], perm[64], seen[64], on_socket[4] = { 0 };

	for (unsigned k = 0; k < 64; k++) {
		phys[k] = k / 16 * 8 + k % 8;
		socket[k] = k / 16;
		flat[k] = k;
	}
	assert_int_equal(wl_vm_cores_first(64, 32, phys, socket, perm), 0);
	memset(seen, 0, sizeof(seen));
	for (unsigned k = 0; k < 64; k++) {
		assert_int_equal(seen[perm[k]]++, 0);
		assert_int_equal(socket[perm[k]], socket[k]);
	}
	memset(seen, 0, sizeof(seen));
	for (unsigned i = 0; i < 32; i++) {
		unsigned p = perm[wl_vm_pcpu_of(i, 32, 32, 64)];

		assert_int_equal(seen[phys[p]]++, 0);
		on_socket[p / 16]++;
	}
	for (unsigned s = 0; s < 4; s++)
		assert_int_equal(on_socket[s], 8);
	memset(seen, 0, sizeof(seen));
	for (unsigned i = 0; i < 32; i++) { /* two guests of 16 */
		unsigned p = perm[wl_vm_pcpu_of(i, 16, 32, 64)];

		assert_int_equal(seen[phys[p]]++, 0);
		assert_int_equal(p / 32, i / 16);
	}
	assert_int_equal(wl_vm_cores_first(64, 32, flat, socket, perm), 0);
	for (unsigned k = 0; k < 64; k++)
		assert_int_equal(perm[k], k);
	assert_int_equal(wl_vm_cores_first(64, 64, phys, socket, perm), 0);
	for (unsigned k = 0; k < 64; k++)
		assert_int_equal(perm[k], k);
}

/* ------------------------------------------------------------ the binary */

#define RUN(o, ...)                                                                    \
	do {                                                                           \
		const char *const a_[] = { __VA_ARGS__, NULL };                        \
		tl_bin(o, bindir, "locklab-sim", a_);                                  \
	} while (0)

/* The same through the binary: one guest of 32 vCPUs on the 64 pCPUs of
 * x7560-ht (the seed's HT-on 0.5x) runs each vCPU on a core of its own (the
 * threads CSV's cpu: x7560-ht has 8 cores, 16 hardware threads a socket). */
static void undercommit_run_on_cores_of_their_own(void **state)
{
	struct tl_proc o;
	unsigned seen[32] = { 0 }, n = 0;
	char *line;

	tl_sh(&o, "d=$(mktemp -d) && '%s/locklab-sim' run --topo x7560-ht --preset ebizzy "
		  "--lock ticket --vm 32 --pcpus 64 --overcommit 0.5 --co-guests same --ops 20 "
		  "--runs 1 --threads-csv \"$d/t.csv\" > /dev/null && cut -d, -f12 \"$d/t.csv\"; "
		  "s=$?; rm -rf \"$d\"; exit $s", bindir);
	assert_int_equal(o.status, 0);
	assert_string_equal(strtok(o.out, "\n"), "cpu");
	while ((line = strtok(NULL, "\n"))) {
		unsigned cpu = (unsigned)atoi(line);

		assert_true(cpu < 64);
		assert_int_equal(seen[cpu / 16 * 8 + cpu % 8]++, 0);
		n++;
	}
	assert_int_equal(n, 32);
	tl_proc_free(&o);
}

/* A --vm run of the arguments after "run" whose output holds text. */
#define SAYS(text, ...)                                                                    \
	do {                                                                               \
		struct tl_proc o_;                                                         \
		RUN(&o_, "run", "--topo", TOPO, "--lock", "ticket", "--vm", "4", "--ops",  \
		    "20", "--runs", "1", __VA_ARGS__);                                     \
		assert_int_equal(o_.status, 0);                                            \
		assert_non_null(strstr(o_.out, text));                                     \
		tl_proc_free(&o_);                                                         \
	} while (0)

/* A --vm run says which hypervisor it had: the settings line names the
 * slices and their spread, the PLE window and whom an exit yields to, and the JSON's
 * environment gives the yield either way (a run on KVM's directed yield, the
 * default, and one on --ple-yield pcpu must not read alike). */
static void settings_name_the_hypervisor(void **state)
{
	SAYS(", hypervisor: CFS's slices +-50%, PLE window ", "--overcommit", "2", "--co-guests",
	     "same");
	SAYS(" growing, a PLE exit yields to its guest's vCPUs (--ple-yield guest), co-guests same",
	     "--overcommit", "2", "--co-guests", "same");
	SAYS(" growing, a PLE exit yields within its pCPU (--ple-yield pcpu), co-guests same",
	     "--overcommit", "2", "--co-guests", "same", "--ple-yield", "pcpu");
	SAYS(", hypervisor: slices of 3000 us +-50%, PLE window ", "--ple-yield", "guest", "--slice-us",
	     "3000");
	SAYS(" fixed, a PLE exit yields to its guest's vCPUs (--ple-yield guest), co-guests none",
	     "--ple-yield", "guest", "--ple-grow", "1");
	SAYS("\"ple_yield\": \"guest\"", "--ple-window-ns", "0", "--format", "json");
	SAYS("\"ple_yield\": \"pcpu\"", "--ple-yield", "pcpu", "--format", "json");
	SAYS(", hypervisor: CFS's slices +-50%, no PLE, co-guests none", "--ple-window-ns", "0");
	SAYS(", hypervisor: CFS's slices +-0%, ", "--slice-spread-pct", "0");
	SAYS("\"slice_spread_pct\": 50", "--format", "json");
}

static void columns_only_with_vm(void **state)
{
	struct tl_proc o;
	const char *w;

	RUN(&o, "run", "--topo", TOPO, "--lock", "pv-ticket", "--threads", "4", "--ops", "20",
	    "--runs", "1", "--format", "csv");
	assert_int_equal(o.status, 0);
	assert_null(strstr(o.out, "overcommit"));
	assert_null(strstr(o.out, "holder_preemptions"));
	tl_proc_free(&o);
	RUN(&o, "run", "--topo", TOPO, "--lock", "ticket,pv-ticket", "--vm", "4", "--overcommit",
	    "1,2", "--ops", "20", "--runs", "1", "--format", "csv");
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, ",overcommit,pcpus,preemptions,holder_preemptions,"
				      "waiter_preemptions,holder_lost_ns_per_acq,"
				      "waiter_lost_ns_per_acq,halts,kicks,wake_latency_ns,ple_exits,"
				      "ple_yields,vcpus_never_ran,"));
	/* a header and a row per lock and overcommit */
	int lines = 0;

	for (const char *p = o.out; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 5);
	tl_proc_free(&o);
	RUN(&o, "run", "--topo", TOPO, "--lock", "ticket", "--vm", "4", "--overcommit", "1,2",
	    "--ops", "20", "--runs", "1");
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "t=4 x1.00"));
	assert_non_null(strstr(o.out, "t=4 x2.00"));
	assert_non_null(strstr(o.out, "preempted holding"));
	/* 20 acquisitions last a few microseconds: said once, after the sweep */
	w = strstr(o.err, "warning: --vm: an overcommitted run of --ops 20 lasted ");
	assert_non_null(w);
	assert_null(strstr(w + 1, "warning"));
	tl_proc_free(&o);
}

/* A command that runs (status 0) and warns of nothing. */
#define RUN_WITHOUT_WARNING(o, ...)                                                                \
	do {                                                                                       \
		RUN(o, __VA_ARGS__);                                                               \
		assert_int_equal((o)->status, 0);                                                  \
		assert_null(strstr((o)->err, "warning"));                                         \
		tl_proc_free(o);                                                                   \
	} while (0)

/* An overcommitted run of fewer slices than a few is said to be one, once;
 * a long one, or one at 1x, is not. */
static void short_overcommitted_run_warned(void **state)
{
	struct tl_proc o;

	RUN(&o, "run", "--topo", TOPO, "--lock", "ticket,pv-ticket", "--vm", "4", "--overcommit",
	    "1,2", "--duration", "2", "--runs", "1", "--format", "csv");
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.err, "warning: --vm: a run of 2 ms is 0.2 slices of 12000 us "
				      "(CFS's with 2 vCPUs a pCPU; --slice-us sets one)"));
	assert_null(strstr(strstr(o.err, "warning") + 1, "warning"));
	tl_proc_free(&o);
	RUN_WITHOUT_WARNING(&o, "run", "--topo", TOPO, "--lock", "ticket", "--vm", "4", "--overcommit",
			    "1", "--duration", "2", "--runs", "1");
	/* a sweep is judged at its point of the longest slices: 2x beside 4x */
	RUN(&o, "run", "--topo", TOPO, "--lock", "ticket", "--vm", "8", "--overcommit", "2,4",
	    "--duration", "30", "--runs", "1");
	assert_non_null(strstr(o.err, "a run of 30 ms is 2.5 slices of 12000 us (CFS's with 2 vCPUs"));
	tl_proc_free(&o);
	RUN_WITHOUT_WARNING(&o, "run", "--topo", TOPO, "--lock", "ticket", "--vm", "4", "--overcommit",
			    "2", "--duration", "36", "--runs", "1");
	/* a fixed slice is the one counted */
	RUN_WITHOUT_WARNING(&o, "run", "--topo", TOPO, "--lock", "ticket", "--vm", "4", "--overcommit",
			    "2", "--duration", "9", "--runs", "1", "--slice-us", "3000");
	RUN(&o, "run", "--topo", TOPO, "--lock", "ticket", "--vm", "4", "--overcommit", "2",
	    "--duration", "8", "--runs", "1", "--slice-us", "3000");
	assert_non_null(strstr(o.err, "warning: --vm: a run of 8 ms is 2.7 slices of 3000 us "
				      "(--slice-us)"));
	tl_proc_free(&o);
}

/* vCPUs that a run too short never scheduled are not starved by the lock:
 * the table's verdict says they never ran (in how many runs, where not in
 * all) and the CSV counts them; a run long enough for every vCPU counts
 * none. */
static void vcpus_that_never_ran_are_named(void **state)
{
	struct tl_proc o;
	const char *row;

	RUN(&o, "run", "--topo", TOPO, "--lock", "ticket", "--vm", "16", "--overcommit", "3",
	    "--duration", "5", "--runs", "1");
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, " of them never ran (their vCPUs waited for a pCPU all run)"));
	tl_proc_free(&o);
	/* over runs where only some left vCPUs unscheduled, the verdict says in
	 * how many, not as if every run's starvation were the host's */
	RUN(&o, "run", "--topo", TOPO, "--lock", "ticket", "--vm", "16", "--overcommit", "3",
	    "--duration", "5", "--runs", "4");
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "; in 2 of 4 runs up to 11 of them never ran (their vCPUs "));
	assert_null(strstr(o.out, "and the throughput is the others'"));
	tl_proc_free(&o);
	RUN(&o, "run", "--topo", TOPO, "--lock", "ticket", "--vm", "16", "--overcommit", "3",
	    "--duration", "5", "--runs", "1", "--format", "csv");
	assert_int_equal(o.status, 0);
	row = strchr(o.out, '\n') + 1;
	assert_int_equal(tl_csv_value(o.out, row, "vcpus_never_ran"), tl_csv_value(o.out, row, "starved"));
	assert_true(tl_csv_value(o.out, row, "vcpus_never_ran") > 0);
	tl_proc_free(&o);
	RUN(&o, "run", "--topo", TOPO, "--lock", "ticket", "--vm", "8", "--overcommit", "2",
	    "--duration", "60", "--runs", "1", "--format", "csv");
	assert_int_equal(o.status, 0);
	row = strchr(o.out, '\n') + 1;
	assert_int_equal(tl_csv_value(o.out, row, "vcpus_never_ran"), 0);
	tl_proc_free(&o);
}

/* A guest's preset without a guest is said once; with --vm, or another
 * preset, nothing.  A preset without a read mix leaves an added rwlock's
 * default read share. */
static void guest_preset_without_vm_warned(void **state)
{
	struct tl_proc o;

	RUN(&o, "run", "--topo", TOPO, "--preset", "dbench", "--threads", "2", "--duration", "1",
	    "--runs", "1");
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.err, "warning: --preset dbench is a KVM guest's workload; without "
				      "--vm"));
	tl_proc_free(&o);
	RUN(&o, "run", "--topo", TOPO, "--preset", "dbench", "--vm", "2", "--duration", "1",
	    "--runs", "1");
	assert_int_equal(o.status, 0);
	assert_null(strstr(o.err, "--preset"));
	tl_proc_free(&o);
	RUN(&o, "run", "--topo", TOPO, "--preset", "stat", "--lock", "rwlock", "--threads", "2",
	    "--duration", "1", "--runs", "1");
	assert_int_equal(o.status, 0);
	assert_string_equal(o.err, "");
	assert_non_null(strstr(o.out, "rwlock  cs=150ns ncs=300ns cs-lines=1 locks=1 read-pct=90 "));
	tl_proc_free(&o);
}

#define BAD(needle, ...)                                                               \
	do {                                                                           \
		const char *const a_[] = { "run", "--topo", TOPO, "--lock", "ticket",  \
					   __VA_ARGS__, NULL };                        \
		tl_bin_refused(bindir, "locklab-sim", a_, needle);                    \
	} while (0)

static void bad_vm_options(void **state)
{
	BAD("--overcommit: needs --vm", "--overcommit", "2");
	BAD("--slice-us", "--slice-us", "100");
	BAD("--co-guests", "--co-guests", "busy");
	BAD("--vm", "--vm", "0");
	BAD("--vm", "--vm", "x");
	BAD("--overcommit", "--vm", "8", "--overcommit", "0");
	BAD("--overcommit", "--vm", "8", "--overcommit", "abc");
	BAD("--overcommit", "--vm", "8", "--overcommit", "1.2.3");
	BAD("--overcommit", "--vm", "8", "--overcommit", "1,,2");
	BAD("--overcommit", "--vm", "8", "--overcommit", "2x");
	BAD("--overcommit", "--vm", "8", "--overcommit", "100");
	BAD("32 cores", "--vm", "32", "--overcommit", "0.5");
	BAD("more threads", "--vm", "8", "--threads", "16");
	BAD("--co-guests", "--vm", "8", "--co-guests", "maybe");
	BAD("--pcpus", "--vm", "8", "--pcpus", "x");
	BAD("32 cores", "--vm", "8", "--co-guests", "same", "--pcpus", "64");
	BAD("--ple-grow", "--vm", "8", "--ple-grow", "0");
	BAD("--slice-us", "--vm", "8", "--slice-us", "0");
	BAD("--wake-ns", "--vm", "8", "--wake-ns", "-3");
	BAD("--ple-yield", "--vm", "8", "--ple-yield", "anywhere");
	BAD("--ple-yield", "--ple-yield", "guest");
	BAD("--slice-spread-pct", "--vm", "8", "--slice-spread-pct", "91");
	BAD("--slice-spread-pct", "--vm", "8", "--slice-spread-pct", "-1");
	BAD("--slice-spread-pct", "--slice-spread-pct", "10");

	const char *const ex[] = { "explain", "--topo", TOPO, "--lock", "ticket", "--threads",
				   "4",       "--vm",   "4",  NULL };
	tl_bin_refused(bindir, "locklab-sim", ex, "--vm");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_guest_at_1x_never_preempts),
		cmocka_unit_test(ticket_at_2x_preempts_holders_and_waiters),
		cmocka_unit_test(ticket_alone_at_2x_yields_by_ple),
		cmocka_unit_test(cfs_slices_share_the_latency),
		cmocka_unit_test(kick_shrinks_the_running_slice),
		cmocka_unit_test(kicked_sleeper_preempts_the_other_guest),
		cmocka_unit_test(wakeup_places_and_preempts_as_cfs),
		cmocka_unit_test(cfs_picks_the_leftmost),
		cmocka_unit_test(cfs_yield_picks_as_pick_next_entity),
		cmocka_unit_test(boost_keeps_the_buddy),
		cmocka_unit_test(slice_spread_bounds),
		cmocka_unit_test(cfs_yield_skips_only_within_the_granularity),
		cmocka_unit_test(guest_yield_boosts_other_pcpus),
		cmocka_unit_test(cfs_boosts_only_within_the_granularity),
		cmocka_unit_test(halts_matched_by_kicks),
		cmocka_unit_test(sleeping_locks_halt_their_vcpus),
		cmocka_unit_test(locks_exclude_in_a_vm),
		cmocka_unit_test(same_seed_same_schedule),
		cmocka_unit_test(same_guests_each_on_its_own_lock),
		cmocka_unit_test(same_guests_deterministic),
		cmocka_unit_test(pcpus_sizes_the_host),
		cmocka_unit_test(placement_shares_crowded_pcpus),
		cmocka_unit_test(undercommit_takes_cores_of_their_own),
		cmocka_unit_test(columns_only_with_vm),
		cmocka_unit_test(settings_name_the_hypervisor),
		cmocka_unit_test(undercommit_run_on_cores_of_their_own),
		cmocka_unit_test(short_overcommitted_run_warned),
		cmocka_unit_test(vcpus_that_never_ran_are_named),
		cmocka_unit_test(guest_preset_without_vm_warned),
		cmocka_unit_test(bad_vm_options),
	};
	int rc;

	bindir = argc > 1 ? argv[1] : "bin";
	if (argc > 2)
		cmocka_set_test_filter(argv[2]); /* one test by name, when debugging */
	if (tl_backend_start(argv[0], TOPO))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	backend_fini();
	return rc;
}
