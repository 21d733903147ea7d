/*
 * sim/vm_state.h - the state of a simulated virtual machine that its
 * set-up (sim/vm.c) and its schedule (sim/vm_sched.c) share.  Not a public
 * interface: the rest of the simulator sees sim/vm.h.
 */
#ifndef SIM_VM_STATE_H
#define SIM_VM_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include <locklab/result.h>
#include <locklab/workload.h>

#define NONE UINT64_MAX
#define NS_PS 1000ull
#define US_PS 1000000ull
#define PLE_WINDOW_MAX_PS (1000000ull * US_PS) /* 1 s: far beyond any slice */
/* sysctl_sched_migration_cost, 0.5 ms (kernel/sched/fair.c, Linux 4.1): a
 * task that ran more recently is cache-hot, and a cpu whose idle spells
 * average less does not balance when it goes idle (idle_balance); a cpu's
 * avg_idle starts at twice it (sched_init). */
#define OS_MIGRATION_COST_PS (500ull * US_PS)

struct vm_params {
	uint64_t slice_ps; /* --slice-us: every slice's mean; 0: CFS's, by the runnable vCPUs */
	uint64_t ple_window_ps; /* NONE: 4096 cycles at the topology's clock */
	uint64_t ple_grow;
	uint64_t ple_exit_ps, halt_ps, kick_ps, wake_ps, switch_ps;
	uint64_t pcpus; /* --pcpus: the host's pCPUs (0: from V and X) */
	uint64_t slice_spread_pct; /* --slice-spread-pct: slices from (1 - F) S to (1 + F) S */
	bool busy_guests; /* --co-guests busy */
	bool same_guests; /* --co-guests same: the co-guests run the workload */
	bool guest_yield; /* --ple-yield guest: KVM's directed yield to any pCPU */
	bool processes;   /* an OS's processes, not vCPUs (vm_processes, sim/vm.h) */
	const char *given; /* the first VM option given */
	bool spread_given; /* --slice-spread-pct given: the spread is the user's, not assumed */
};

extern struct vm_params vm_prm;

/* The host is CFS (its slices, virtual runtimes, wake-up preemption and
 * buddies) unless --slice-us fixes a round-robin's slice. */
static inline bool vm_cfs(void)
{
	return !vm_prm.slice_ps;
}

enum vc_state { VC_RUNNING, VC_READY, VC_HALTED, VC_GONE };

struct vm_vcpu {
	unsigned pcpu;
	enum vc_state state;
	int next;          /* run-queue link */
	bool waiting;      /* its actor waits until it is cur */
	uint64_t start_ps; /* as cur, it runs from then */
	uint64_t off_ps;   /* preempted then */
	int off_phase;     /* its thread's phase then; -1: not preempted */
	uint64_t kick_ps;  /* kicked then; NONE */
	uint64_t window_ps; /* its PLE window now */
	uint64_t ple_at_ps; /* a spin that lasts until then exits; NONE */
	bool in_spin;       /* off its pCPU inside a PLE exit's directed yield */
	bool dy_eligible;   /* KVM's dy_eligible: toggled at each look while in_spin */
	uint64_t vr_ps;     /* CFS's virtual runtime: its time run (equal weights), placed on a wake */
	bool ran;           /* it has had its pCPU in the measured interval */
	uint64_t left_ps;   /* it last left its pCPU then (OS model: cache-hot since); NONE: never ran */
	/* the OS model's load average of a process (vm_procs.c, PELT): its
	 * decayed runnable time and decayed time, brought up to pelt_ps; and
	 * its wake-ups of others (wake_wide's wakee_flips, halved each second
	 * from flips_ps; the last process it woke) */
	double pelt_sum_ps, pelt_period_ps;
	uint64_t pelt_ps;
	uint64_t wakee_flips, flips_ps;
	int last_wakee;
};

struct vm_pcpu {
	int cur; /* -1: idle */
	uint64_t slice_end_ps;
	uint64_t pick_ps; /* cur runs since then (CFS's sum_exec_runtime at its pick) */
	uint64_t draw;    /* the seeded draw of the slice under way */
	uint64_t draw_mean_ps; /* the mean it was drawn for */
	uint64_t min_vr_ps; /* CFS's min_vruntime: the least of cur's and the queue's, never falling */
	uint64_t draws; /* slices drawn so far (the seeded length of the next) */
	int head, tail; /* run queue */
	unsigned queued;
	int next_buddy; /* CFS's next buddy: a queued vCPU that a directed yield or a wake-up
			 * preemption set to run next, or -1 */
	/* the OS model's idle balance (vm_sched.c): when it went idle, and
	 * Linux's avg_idle, the running mean of its idle spells */
	uint64_t idle_stamp_ps, avg_idle_ps;
};

/*
 * vCPU indexes: 0 .. nthreads-1 are the run's threads (actors); nthreads ..
 * vcpus-1 are vCPUs of the guest without a thread (absent: they never
 * run); vcpus .. nv-1 belong to the co-guests: busy ones have no actor;
 * with --co-guests same they are actors too (nthreads == nv), guest g's
 * vCPUs g V .. g V + V - 1, each guest on its own locks.
 */
struct vm_state {
	struct wl_run *run;
	uint64_t seed;
	unsigned nthreads, vcpus, nv, np, per_pcpu;
	uint64_t cfs_latency_ps, cfs_min_gran_ps, cfs_wakeup_gran_ps; /* the host's, scaled to its CPUs */
	uint64_t window_ps; /* the PLE window a vCPU starts with; 0: no PLE */
	unsigned *last_boosted; /* per guest: KVM's last_boosted_vcpu (guest-relative) */
	struct vm_vcpu *v;
	struct vm_pcpu *p;
	unsigned *pcore; /* each pCPU's core of the topology */
	unsigned *sib;   /* the next pCPU on the same physical core (a ring; itself: none) */
	unsigned *llc;   /* the OS model: the hardware threads of each pCPU's socket */
	struct vm_counters k;
};

/* vm.c: the run queue of a pCPU, a list in arrival order (a kicked vCPU
 * goes before the preempted ones; with CFS's slices the vCPU that runs next
 * is picked from it by virtual runtime, vm_sched.c), and the length of its
 * next slice; a vCPU
 * that joins p's queue while p's cur runs may end cur's slice sooner
 * (vm_slice_recount: CFS's slice shrinks as the runnable tasks grow). */
uint64_t vm_slice_len(struct vm_pcpu *p);
void vm_slice_recount(struct vm_pcpu *p, uint64_t now);
/* vm_cfs.c: CFS's wake-up of the halted vCPU w onto p at now (w neither
 * p's cur nor queued): w's virtual runtime placed, and whether p's cur
 * leads it by more than the wake-up granularity (cur is to leave for it). */
bool vm_wakeup_preempts(struct vm_pcpu *p, struct vm_vcpu *w, uint64_t now);
/* vm_cfs.c: update_min_vruntime, the least of p's cur's and queued vCPUs'
 * virtual runtimes at now, never falling. */
void vm_update_min_vr(struct vm_pcpu *p, uint64_t now);
/* vm_cfs.c: whether CFS runs w, a vCPU queued on p and its next buddy, when
 * p's cur gives p up: always with a fixed --slice-us (a round-robin); with
 * CFS's slices only when w's virtual runtime is within the wake-up
 * granularity (4 ms) of the least on p, cur's included (pick_next_entity
 * honours a next buddy only so far: yield_to, yield_to_task_fair,
 * kernel/sched/fair.c, Linux 3.10). */
bool vm_cfs_picks(struct vm_pcpu *p, int w, uint64_t now);
/* vm_cfs.c: who runs next on p, taken out of its queue (-1: none): with a
 * fixed --slice-us the queue's head (a round-robin); with CFS's slices the
 * leftmost, the queued vCPU of least virtual runtime (the first of equals),
 * unless p's next buddy (set by a directed yield or a wake-up preemption)
 * is queued and trails the leftmost by no more than the wake-up
 * granularity.  As Linux's clear_buddies, the buddy is cleared when it
 * runs (give) or has left the queue; one passed over stays. */
int vm_pick_next(struct vm_pcpu *p);
/* vm_sched.c: yield_to on a target queued on another pCPU q:
 * set_next_buddy there, and resched_task of q's cur, after which CFS picks
 * again on q (kernel/sched/core.c and fair.c, Linux 3.10).  When the target
 * trails the least virtual runtime on q by no more than the wake-up
 * granularity it runs next: a busy co-guest's vCPU (no actor) is preempted
 * at once, as a kick preempts it; a vCPU with an actor at its next
 * preemption point (the end of the local work it is paying, or of its
 * spin's PLE window), where its slice now ends (the IPI of resched_task
 * stops it at once: the model is later by at most that piece of work or
 * window).  Otherwise the buddy stays for the picks after (vm_pick_next)
 * and the pick comes all the same, at once for a busy vCPU, else at cur's
 * next preemption point: the leftmost runs, cur again when it is the
 * leftmost, with a new slice (set_next_entity starts one) and no switch. */
void vm_boost(unsigned target, uint64_t now);
/* vm_cfs.c: who runs on p after its cur, the spinner `self`, yields
 * (pick_next_entity after yield_task_fair made the spinner the skip
 * buddy, kernel/sched/fair.c, Linux 3.10): the leftmost of the queue and
 * the spinner, a queued vCPU before the spinner at equal virtual runtimes
 * (put_prev_entity puts it right of its equals); the spinner being the
 * leftmost, the next after it when that trails it by no more than the
 * wake-up granularity, else the spinner again; and p's next buddy, queued,
 * in place of either when it trails the leftmost by no more than that.  In
 * a round-robin (--slice-us) the queue's head; self where none. */
int vm_yield_pick(const struct vm_pcpu *p, unsigned self, uint64_t now);
/* vm_rq.c: p's run queue: i joins at the tail (preempted), before the
 * preempted ones after the earlier kicked (kicked), or at the head (put
 * back for a boosted vCPU); i leaves it (remove: it is in it), or the head
 * does (pop; -1 when empty). */
void vm_rq_push_tail(struct vm_pcpu *p, unsigned i);
void vm_rq_push_kicked(struct vm_pcpu *p, unsigned i);
void vm_rq_push_head(struct vm_pcpu *p, unsigned i);
void vm_rq_remove(struct vm_pcpu *p, unsigned i);
int vm_rq_pop(struct vm_pcpu *p);
/* vCPU i belongs to a busy co-guest (it has no actor). */
bool vm_is_other(unsigned i);
/* The guest of vCPU i: 0 is the run's; --co-guests same numbers the
 * others 1, 2, ... (V vCPUs each); a busy co-guest's vCPU is never 0. */
unsigned vm_guest_of(unsigned i);

/* vm_procs.c, the OS model (vm_prm.processes): each pCPU's ring of the
 * pCPUs on its physical core and its socket's thread count (vm_begin, once
 * the pCPUs' cores are known);
 * idle p given a process at t (Linux's avg_idle, its idle spell closed);
 * process i moved to pCPU q (its virtual runtime renormalized, its thread
 * on q's core); the process idle p takes over at t, moved and out of its queue, or -1
 * (idle_balance). */
void vm_link_siblings(struct vm_state *vm);
void vm_idle_ends(struct vm_pcpu *p, uint64_t t);
void vm_move_to(unsigned i, unsigned q);
int vm_idle_pull(struct vm_pcpu *p, uint64_t t);
/* vm_procs.c, the OS model: process i starts (its load average that of a
 * task just forked), goes to sleep at t, is woken at t (its load average
 * brought up to t either way); and the pCPU that process i, woken at t by
 * the running process waker (-1: none), runs on: wake_affine's choice of
 * the waker's cpu or its own last one, then select_idle_sibling's
 * placement from there.  *affine: whether wake_affine chose the waker's. */
void vm_pelt_start(unsigned i);
void vm_pelt_sleep(unsigned i, uint64_t t);
void vm_pelt_wake(unsigned i, uint64_t t);
/* vm_procs.c: PELT's two sums (runnable time, time; ps) carried dt_ps on,
 * the process runnable or not over it; and wake_affine's test of the
 * waker's cpu's load against the woken process's last cpu's, in the
 * domain of that imbalance_pct. */
void vm_pelt_decay(double *sum, double *period, bool runnable, uint64_t dt_ps);
bool vm_affine_balanced(double this_load, double prev_load, unsigned imbalance_pct);
unsigned vm_wake_cpu(unsigned i, int waker, uint64_t t, bool *affine);

#endif
