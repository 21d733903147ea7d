/*
 * sim/vm.h - virtual machines in the simulator: a guest of V vCPUs (the
 * run's threads) on P physical CPUs (cores of the topology), a hypervisor
 * that time-slices them, pause-loop exiting, and halt/kick for ll_park and
 * ll_unpark (sim/vm.c; docs/vm.md gives every default and its source).
 *
 * The model, per pCPU:
 *
 *   cur       the vCPU running now (or none: every vCPU of it is halted)
 *   run queue the runnable vCPUs that wait for it: with CFS (the
 *             default) the one of least virtual runtime runs next (or a
 *             directed yield's or a wake-up preemption's next buddy within
 *             the wake-up granularity of it); with --slice-us N the queue
 *             is a round-robin, first in first out
 *   slice     cur runs until its slice ends, then goes back to the queue
 *             and the next runs, if there is one (under CFS cur itself,
 *             without a switch, while it is still the leftmost).  A slice is a
 *             seeded draw from half to one and a half times its mean
 *             (--slice-spread-pct sets the spread): by
 *             default the host CFS's slice of one of the n vCPUs runnable
 *             on the pCPU (its latency over n, at least its granularity:
 *             24 ms / n, at least 3 ms, on 8 CPUs or more), shrunk when a
 *             kicked vCPU joins the queue; --slice-us N fixes the mean
 *
 * Where the overcommit X comes from (--co-guests):
 *
 *   none (default)  the guest alone, on P = V / X pCPUs
 *   busy            other guests, as in the benchmarks of the paravirtual
 *                   spinlocks: the guest on P = V pCPUs, plus (X - 1) V
 *                   vCPUs of guests that compute without ever spinning or
 *                   halting (X <= 1: as none)
 *   same            the same layout, but the other guests' vCPUs are
 *                   threads of the run too: each of those guests (V vCPUs)
 *                   runs the workload on its own locks; the figures are
 *                   those of all guests together
 *
 * --pcpus P fixes the host's pCPUs instead: X P vCPUs in all, the guest's
 * V first, the rest the co-guests' (X = 1 on P = 2 V: two guests, with
 * --co-guests busy or same; without, refused: sim/vm.c check_layout).
 *
 * Of the T vCPUs in all, vCPU i runs on pCPU i mod P when T >= P, on pCPU
 * i * P / T when P > T (every vCPU alone, spread over the pCPUs); the
 * guest's are 0 .. V-1.  vCPUs never migrate.
 *
 * A vCPU that is not cur makes no progress.  Its actor gives up the pCPU at
 * a preemption point (after a memory access completes, while it pays local
 * time, while it spins, at a halt) and then waits, due never (sim/turns.c),
 * until the pCPU is handed back to it.  Local time (delays, hits, pauses)
 * therefore stretches over the slices the vCPU is denied; a miss, once
 * issued, completes (the vCPU is preempted at the next instruction
 * boundary); a spinner parked on a line that is written while it is
 * descheduled re-reads the line only when it runs again.
 *
 * Spinning (ll_wait_until: the simulator parks the waiter on the line) is
 * a PAUSE loop to the hardware: after the PLE window (--ple-window-ns) the
 * vCPU exits to the hypervisor (--ple-exit-ns), which doubles its window
 * (--ple-grow, reset when the vCPU is next scheduled in) and yields: by
 * default (--ple-yield guest) as KVM's directed yield does, to the next
 * runnable, not running vCPU of the same guest on any pCPU (round-robin
 * from the last boosted one), which runs next there as CFS picks (its next
 * buddy), the spinner giving its own pCPU to the vCPU CFS picks in its
 * place (as its skip buddy), if any; with --ple-yield pcpu only the pCPU,
 * to the first vCPU of the same guest in its run queue, if any.
 *
 * ll_park halts the vCPU (--halt-ns): it leaves the pCPU, where the next
 * vCPU runs after a switch (--switch-ns).  ll_unpark kicks it (--kick-ns to
 * the sender): the vCPU becomes runnable at once, placed by CFS's virtual
 * runtime (placed at most half CFS's latency behind the pCPU's
 * min_vruntime, or at its own where that is later; in a round-robin, ahead
 * of the preempted ones in the queue); a busy co-guest's
 * vCPU running there is preempted for it, and with CFS's slices so is any
 * vCPU that leads it by more than CFS's wake-up granularity in virtual
 * runtime (the kicked one placed as CFS places a woken task, then run
 * next); it runs no sooner than --wake-ns after the kick.
 *
 * Processes (vm_processes, `locklab-sim filelock` with more processes than
 * CPUs, docs/filelock.md): the same schedule is an OS's CFS and its
 * processes instead of a host's and its vCPUs.  The threads are processes
 * placed as vCPUs are, ll_this_cpu is the CPU a process runs on, a woken
 * process is placed as Linux's select_task_rq_fair places it (wake_affine
 * may aim it at its waker's CPU by their load averages, and
 * select_idle_sibling puts it on an idle core of that socket when the CPU
 * aimed at is busy; sim/vm_procs.c), a
 * CPU going idle takes over a queued process as idle_balance does
 * (sim/vm_procs.c), nothing else moves one, a park is a sleep and an unpark a
 * wake-up (the
 * simulator's futex costs, SIM_HALT_PS, SIM_KICK_PS, SIM_WAKE_PS), a
 * switch costs OS_SWITCH_PS (assumed, sim/vm_procs.c), there is no PLE, and a
 * process is preempted only outside ll_preempt_disable's paths (a system
 * call under CONFIG_PREEMPT_NONE): a slice that ends, or a wake-up
 * preemption that falls, inside one takes effect where it ends.
 *
 * Everything counted comes out of this schedule: a preemption is a
 * deschedule of a runnable vCPU (a slice expiry or a PLE yield); it is a
 * lock-holder preemption when the vCPU's thread was in the workload's
 * HOLDING phase at that instant, a lock-waiter preemption when ACQUIRING.
 */
#ifndef SIM_VM_H
#define SIM_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <locklab/result.h>
#include <locklab/workload.h>

struct sim_actor;
struct vm_state;

/* Non-NULL while a run is in a virtual machine, so that an unarmed hook
 * costs one test. */
extern struct vm_state *sim_vm;

/* The VM options (sim/engine.c passes on what it does not know).  1 taken,
 * 0 not a VM option, -1 bad value (err holds one line). */
int vm_parse_option(const char *opt, const char *val, char *err, size_t errlen);
/* VM options given without --vm are refused. */
int vm_check(const struct wl_config *cfg, char *err, size_t errlen);
/* Once the configuration passed every check: a warning of what it may not
 * show (an overcommitted run of a few slices), on stderr, once. */
void vm_warn(const struct wl_config *cfg);
/* After the sweep: an overcommitted --ops run that lasted few slices. */
void vm_warn_results(const struct wl_config *cfg, const struct output_set *o);
#define VM_USAGE                                                                                   \
	"              --vm V --overcommit X[,X...]: a guest of V vCPUs (the threads) on V/X\n"    \
	"                          cores, X a sweep (docs/vm.md); with it: [--slice-us N|cfs]\n"    \
	"                          [--slice-spread-pct F (slices from 1 - F% to 1 + F% of the mean;\n" \
	"                          default 50)]\n"                                                  \
	"                          [--ple-window-ns N (0: no PLE)] [--ple-grow G] [--ple-exit-ns N]\n" \
	"                          [--halt-ns N] [--kick-ns N] [--wake-ns N] [--switch-ns N]\n"   \
	"                          [--co-guests none|busy|same] [--pcpus P]\n"                     \
	"                          [--ple-yield guest|pcpu (guest, the default: KVM's directed yield\n" \
	"                          to a vCPU of the guest on any pCPU; pcpu: only within its pCPU)]\n"
/* The parameters as JSON members (no braces), for the environment. */
void vm_env_json(FILE *f);
/* ", hypervisor: ...": the slices, PLE and co-guests, for the settings line. */
size_t vm_settings_text(const struct wl_config *cfg, char *buf, size_t len);
/* The defaults a --vm run of cfg rests on that no source gives ("the
 * hypervisor's slice spread, the PLE window's 2 GHz clock ..."), or
 * nothing (0) without --vm. */
size_t vm_assumed(const struct wl_config *cfg, char *buf, size_t len);

/* Runs from now on schedule processes, not vCPUs (above, "Processes"). */
void vm_processes(void);
bool vm_are_processes(void);
/* ll_this_cpu of thread i: its CPU when processes are scheduled, else i. */
unsigned vm_cpu_of(unsigned i);

/* The pCPUs and the co-guests' vCPUs of V vCPUs at overcommit X (see
 * above); the guest's vCPU i is on pCPU wl_vm_pcpu_of(i, V, V + others, pcpus). */
void vm_layout(unsigned vcpus, double overcommit, unsigned *pcpus, unsigned *others);

/* --co-guests same (sim/vm_same.c): a run at overcommit x with co-guests
 * must be of --vm's V threads (0, or -1 with err); grow run's threads to
 * every guest's vCPUs and give each guest its own locks (before the
 * threads are placed): 0, or -1 when the run cannot (out of memory). */
int vm_same_check(const struct wl_config *cfg, double x, char *err, size_t errlen);
int vm_expand_run(struct wl_run *run);

/* A run: vCPU i is actor i.  vm_begin arms
 * sim_vm (after sim_begin, before the actors start); vm_end fills k and
 * disarms.  The window of the PLE defaults to 4096 cycles at freq_ghz. */
int vm_begin(struct wl_run *run, double freq_ghz);
void vm_end(struct vm_counters *k);
/* The watchdog's bound in a VM: long enough for every vCPU of a pCPU to
 * have had several slices. */
uint64_t vm_progress_bound(uint64_t bound_ps);

/* Hooks (sim/memops.c, sim/blocking.c, sim/failure.c, sim/engine.c), on the
 * running actor at sim.now_ps. */
void vm_actor_start(struct sim_actor *a);   /* waits for the first turn */
void vm_actor_exit(struct sim_actor *a);    /* gives the pCPU away */
void vm_pay(struct sim_actor *a);           /* sim_pay: local time over slices */
void vm_preempt_point(struct sim_actor *a); /* after a miss completes */
/* Spinning: the deadline to park on a line with (the caller's, the PLE's or
 * the slice's end), and what follows the park (a PLE exit, a preemption). */
uint64_t vm_spin_deadline(struct sim_actor *a, uint64_t dl_ps);
void vm_spin_end(struct sim_actor *a);
/* Halt and kick: costs, and the pCPU's side.  vm_on_kick before the halted
 * actor is resumed; vm_after_halt when it resumes. */
uint64_t vm_halt_ps(void);
uint64_t vm_kick_ps(void);
void vm_on_halt(struct sim_actor *a);
void vm_on_kick(struct sim_actor *w);
void vm_after_halt(struct sim_actor *a);
/* An aborted run: every vCPU waiting for its turn leaves. */
void vm_abort(void);

#endif
