/*
 * sim/sim.h - the simulator's glue between SimGrid and the memory model:
 * the state shared by sim/engine.c (runs, actors), sim/place.c (placement),
 * sim/memops.c (the ll_* accesses), sim/blocking.c (waits and parks),
 * sim/failure.c (deadlock, no progress), sim/alloc.c (allocations), the
 * hypervisor (sim/vm*.c), the reports (sim/report/) and sim/ccbench.c.
 * Not a public interface.
 *
 * Time.  locklab keeps simulated time as integer picoseconds, in its own
 * clock (sim.now_ps): sim/turns.c runs the actor due first and moves the
 * clock to its instant; SimGrid runs the actors (contexts, suspend/resume) and
 * its own clock stays at 0.  Each run (or ccbench pass) starts at 0; its
 * base (sim.base_ps) is the earlier runs' time in this process, which tells
 * runs apart and bounds a process's simulated time.
 *
 * Local time.  Each simulated thread (a SimGrid actor) owes the engine
 * some local time: cache hits, ll_delay_ns and ll_cpu_relax add to it
 * without an event.  Its own clock is the global clock plus what it owes.
 * It pays (sleeps until its own clock) before a miss, a wait or a park,
 * before a read-modify-write or a store that would wake parked waiters, and
 * before any access once it owes more than the quantum.  Within a quantum a
 * thread's plain loads and stores that hit may therefore happen slightly
 * ahead of other threads' accesses: the quantum bounds that error, and
 * trades it for fewer events (--sim-quantum).
 *
 * Admission.  Under socket-first arbitration (sim/coherence.h) a miss the
 * model does not admit on arrival suspends (SIM_PARKED_ADMIT) until an
 * actor admits it: the one whose completion leaves the line idle, or whose
 * own admission reaches the holder socket's bound.  Such an actor is never
 * a deadlock: some request on its line is in flight, so the line will go
 * idle.
 *
 * Blocking.  A parked waiter (ll_wait_change on a line it holds validly)
 * sits in a list hung on the line's user slot of the coherence model and
 * is woken by the next write of the line.  A wait without a deadline, and
 * ll_park, is due never until woken (guarded by flags: an actor woken
 * before it suspends does not suspend); a wait with a deadline is due at
 * it, or when woken, whichever is first.
 *
 * Failure.  A deadlock (every live thread parked with no deadline) or a run
 * without progress ends the run: every actor is woken and leaves through a
 * longjmp back to its entry, so that the process can report and exit.
 */
#ifndef SIM_SIM_H
#define SIM_SIM_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <simgrid/actor.h>
#include <simgrid/host.h>

#include <locklab/result.h>
#include <locklab/workload.h>

#include "coherence.h"
#include "observe.h"
#include "topology.h"

#define SIM_DEFAULT_TOPO "4socket"
#define SIM_DEFAULT_QUANTUM_PS 100000ull /* 100 ns */
#define SIM_LINE_MASK (~(uintptr_t)(COH_LINE_SIZE - 1))
/* Simulated time one process may use, its runs together (about 1281 h): a
 * run's clock, a deadline past it and the runs' base stay within uint64 */
#define SIM_TIME_MAX_PS (1ull << 62)

#include "../core/park_costs.h" /* SIM_HALT_PS, SIM_KICK_PS, SIM_WAKE_PS */

enum sim_block {
	SIM_RUNNING = 0,
	SIM_PARKED_LINE, /* ll_wait_change on a line */
	SIM_PARKED_KICK, /* ll_park */
	SIM_PARKED_ADMIT, /* a miss waiting for admission (socket-first) */
	SIM_EXITED,
};

/* The stages of an access (sim/memops.c): the wake-up of a waiter whose
 * next operation it is, the hit check, the request's issue, its arrival at
 * the home (presented to the model), its completion. */
enum sim_acc_stage { SIM_ACC_WOKEN, SIM_ACC_CHECK, SIM_ACC_ISSUE, SIM_ACC_PRESENT,
		     SIM_ACC_COMPLETE };

struct sim_access {
	uintptr_t addr;
	uint64_t travel; /* the request's travel to the home, from its issue */
	struct coh_result r; /* once presented */
	uint8_t op, stage;
	bool tell;  /* told to the observer */
	bool ahead; /* due to be carried on by whoever runs when it is due */
	bool then_load; /* the parked waiter's next load, begun when it is woken */
};

struct sim_actor {
	unsigned idx;  /* ll_this_cpu */
	unsigned core; /* host index in the topology */
	unsigned node; /* socket */
	uint64_t owed_ps;

	void (*fn)(void *arg);
	void *arg;

	enum sim_block block;
	bool timed;       /* parked with a deadline (not a deadlock candidate) */
	bool suspended;   /* waits with no deadline until woken */
	bool resume_pending;
	bool kick_pending; /* ll_unpark came before ll_park */
	unsigned preempt_off; /* ll_preempt_disable's depth */
	uintptr_t woke_line; /* its write of it woke waiters, who have not run yet; or 0 */
	sg_actor_t self;   /* its SimGrid actor: suspended while others have their turns */
	bool turn_waiting; /* suspended, or about to be, until handed its turn */
	bool turn_handed;  /* handed its turn before it suspended: it need not */
	uint64_t turn_ps;  /* the instant its turn begins (sim/turns.c) */
	const void *stack_top; /* its entry's frame (AddressSanitizer's bounds) */
	uintptr_t wait_line; /* line address while parked on it, or waiting for admission */
	struct coh_result admit_r; /* the miss's result, given when it is admitted */
	bool admit_self;   /* admitted by its own call, before it suspended */
	struct sim_actor *next_waiter; /* circular list; the slot points at the tail */

	/* A load's miss whose completion it has not waited for yet (sim/memops.c,
	 * "A completion left for later"): due then, on that line; 0: none. */
	uint64_t settle_ps;
	uintptr_t settle_line;
	/* Due at settle_ps to park on that line (sim/blocking.c, "Parking at a
	 * completion"): the wait it would make then, and whether whoever ran
	 * at that instant parked it. */
	bool park_ahead, parked_ahead;
	uintptr_t ahead_addr;
	uint64_t ahead_dl_ps;
	/* The access it is making, which whoever runs while it waits for its
	 * turn may carry on (sim/memops.c, "An access carried on by others"). */
	struct sim_access acc;
	bool wait_then_load; /* in ll_wait_until's wait: its next operation loads the line */

	jmp_buf exit_jmp;
};

/* One allocation made with ll_alloc_on: for naming lines in reports. */
struct sim_alloc {
	uintptr_t base;
	size_t size;
	unsigned seq;
	int tag;
	unsigned node;
};

/* What an event (the running actor hands over to another, sim/turns.c) was
 * for: `scons bench` reports events per access by kind. */
enum sim_event_kind {
	SIM_EV_PAY,      /* local time paid before a visible access */
	SIM_EV_TRAVEL,   /* a miss's request on its way to the line's home */
	SIM_EV_COMPLETE, /* a miss served: until its data arrives */
	SIM_EV_ADMIT,    /* a miss waiting for, or resumed by, admission */
	SIM_EV_PARK,     /* a waiter parked on a line or in ll_park */
	SIM_EV_WAKE,     /* a writer lets the waiters it woke act first */
	SIM_EV_TIMED,    /* a wait with a deadline */
	SIM_EV_VM,       /* a vCPU's slices and exits (sim/vm_sched.c) */
	SIM_EV_KINDS
};

extern const char *const sim_event_kind_names[SIM_EV_KINDS];

/* One event of kind k. */
#define SIM_COUNT_EVENT(k) (sim.events_by[k]++)

struct sim_state {
	/* The machine, loaded once per process. */
	bool topo_loaded;
	const char *topo_arg;     /* what was loaded (owned copy) */
	const char *topo_arg_opt; /* --topo as parsed, before loading */
	struct topo topo;
	sg_host_t *hosts; /* [topo.ncores] */
	uint64_t quantum_ps;
	uint64_t watchdog_ps; /* --watchdog; 0: off; UINT64_MAX: max(10 ms, 1000 x (cs + ncs)) */

	/* The current run. */
	struct coh_model *model;
	struct wl_run *run; /* NULL for ccbench and tests */
	struct sim_actor *actors;
	unsigned nactors, nlive, nparked; /* nparked: untimed parks only */
	unsigned nline_waiters;
	unsigned nadmit; /* actors waiting for admission (not in nparked: the
			    line's queue drains, so they will be admitted) */
	unsigned nadmit_timed; /* of those, asleep until a fetch ahead ends */
	struct sim_actor *cur; /* the running actor; NULL in maestro */
	uint64_t base_ps;      /* the earlier runs' time in this process */
	uint64_t now_ps;       /* run time of the running actor's last event */
	uint64_t events_by[SIM_EV_KINDS]; /* this run's events (sim_events()) */
	uint64_t end_ps;       /* snapshot the counters when time reaches it */
	bool snapped;
	struct coh_counters snap;
	uint64_t *snap_links;
	uint64_t next_check_ps, progress_bound_ps;
	/* --watchdog 0 turns the watchdog off within the run; past a duration
	 * run's end its threads are waited for this long (the default rule)
	 * without an acquisition, so that a livelock still ends the run */
	uint64_t end_bound_ps;
	bool aborting;
	/* Every miss waits for its completion in place, none is left for later,
	 * and every access is made by its own thread, none carried on by others
	 * (sim/memops.c): the tests and `scons bench` compare the two, whose
	 * results are the same but for the number of events. */
	bool wait_every_completion;
	unsigned nahead; /* actors due to park at a completion (park_ahead) or whose
			    access is due to be carried on (acc.ahead): sim/turns.c
			    looks for them only while there are some */
	uint64_t moves; /* sim_set_core calls so far: a placement changed when it did */
	bool raw_contexts;  /* SimGrid's raw contexts, not threads */
	size_t stack_bytes; /* an actor's stack (contexts/stack-size) */

	struct sim_alloc *allocs;
	size_t nallocs, cap_allocs;
	unsigned alloc_seq;
};

extern struct sim_state sim;

/* Said where a machine's file has no `assumed` property. */
#define SIM_ASSUMED_NOT_STATED "not stated (its file has no 'assumed' property, which lists " \
	"the figures that have no source, or none: topologies/README.md)"

/* What a kick costs its sender outside --vm: the machine's futex_wake
 * where its file gives one (park.kick), else the assumed SIM_KICK_PS. */
static inline uint64_t sim_kick_ps(void)
{
	return sim.topo_loaded && sim.topo.kick_given ? sim.topo.kick_ps : SIM_KICK_PS;
}

/* Every event of this run, whatever its kind. */
static inline uint64_t sim_events(void)
{
	uint64_t n = 0;

	for (unsigned k = 0; k < SIM_EV_KINDS; k++)
		n += sim.events_by[k];
	return n;
}

struct ll_command;

/* engine.c */
int sim_init_simgrid(int *argc, char **argv);
int sim_load_topo(const char *arg, char *err, size_t errlen);
/* Start a pass: a fresh coherence model, n actor slots on the given cores,
 * time base at the current clock. */
int sim_begin(unsigned n, const unsigned *cores);
/* Create actor i running fn(arg); then sim_go() runs them all. */
void sim_spawn(unsigned i, void (*fn)(void *), void *arg);
void sim_go(void);
/* Tear the pass down (the model stays until the next pass: ll_free of a
 * finished run still needs it). */
void sim_end(void);
/* One run of algo with threads threads as cfg says, run index r (seed
 * run_seed(cfg->seed, r)), in this process, for the simulator's own
 * commands (explain, the lockstep probe): 0, its threads' counts readable
 * until sim_run_free(run); 1 when it failed (run->failure says why; free it
 * too); -1 when out of memory (nothing to free). */
int sim_run_one(const struct wl_config *cfg, const struct lock_algo *algo, unsigned threads,
		unsigned r, struct wl_run *run);
void sim_run_free(struct wl_run *run);
/* The machine a configuration asks for (--topo, or the default). */
const char *sim_topo_of(const struct wl_config *cfg);
/* "topology file PATH" when the loaded machine's file was given by its path
 * or, found by its name, is not the shipped file ("... (not the shipped
 * one)"): a modified copy carries the shipped machine's name.  Else "". */
size_t sim_topo_file_note(const struct wl_config *cfg, char *buf, size_t len);

/* place.c: the hardware threads cfg's --pin may use (a socket's with
 * socket:N and node:N, else all); thread i's core in cores[i], -1 when
 * they do not fit; a moved to core c (its thread's cpu and node). */
unsigned sim_pin_cpus(const struct wl_config *cfg);
void sim_set_core(struct sim_actor *a, unsigned c);
int sim_place_threads(struct wl_run *run, unsigned *cores);

/* memops.c */
uint64_t sim_local_ps(void);  /* the running actor's clock (run time) */
void sim_pay(struct sim_actor *a);
/* Sleep the running actor until run time t (nothing if t has passed;
 * SIM_NEVER: until woken); an event of kind k unless it is still due
 * first and only its clock moves. */
void sim_sleep_until(struct sim_actor *a, uint64_t t, enum sim_event_kind k);
/* What every actor does when it runs again after an event (an aborted run
 * leaves through its longjmp here). */
void sim_resumed(struct sim_actor *a);
/* Add ps to the local time the running actor owes (observe.h: what). */
void sim_owe(struct sim_actor *a, uint64_t ps, enum sim_obs_local what);
/* admission.c */
/* Present a's miss of addr, arrived at now (after `travel`): admitted at
 * once, or a waits (suspended) until admitted.  Either way r is its result. */
void sim_present(struct sim_actor *a, uintptr_t addr, enum coh_op op, uint64_t travel,
		 struct coh_result *r);
/* Admit, and wake, every waiting miss of the line of addr due now; `me`,
 * the caller's own, is marked admit_self instead of woken. */
void sim_admit_due(struct sim_actor *me, uintptr_t addr);
/* An aborted run lets go an actor waiting for admission (it leaves). */
void sim_admit_abandon(struct sim_actor *w);
/* Wait for a completion left for later (a->settle_ps), at the instant it
 * comes, as the miss would have; then the access is over. */
void sim_settle(struct sim_actor *a);
/* What a's miss does when its completion left for later comes, at now:
 * by a itself (sim_settle), or by the actor that parks it then
 * (sim_park_ahead). */
void sim_settle_for(struct sim_actor *a);

/* Called by sim/turns.c for the earliest actor n, due at `at` with an
 * access others may carry on: make its next stages as n would at that
 * instant, and set *due to when n is due next; false when n must run
 * itself (its turn at `at`, at the stage reached). */
bool sim_access_ahead(struct sim_actor *n, uint64_t at, uint64_t *due);

/* The running actor parks, untimed, on the line of addr in ll_wait_until:
 * its load of addr after the wake-up is the access others may carry on
 * from the wake-up itself (sim_access_ahead). */
void sim_load_when_woken(struct sim_actor *a, uintptr_t addr);
/* The running actor parked as above is back: true when the actor that ran
 * at its wake-up told the observer of it (and began its load). */
bool sim_woken_load_taken(struct sim_actor *a);

/* Every operation of the running actor but a wait for the line its load
 * missed on first waits for a completion left for later. */
static inline void sim_settle_pending(struct sim_actor *a)
{
	if (a && a->settle_ps)
		sim_settle(a);
}

/* blocking.c */
void sim_resume_actor(struct sim_actor *w);
void sim_suspend_self(struct sim_actor *a);
/* Make a parked actor runnable (it is already off any line list). */
void sim_wake(struct sim_actor *w);
/* A word at addr was written: wake the waiters parked on its line. */
void sim_after_write(uintptr_t addr);
/* Park the running actor on the line of addr until a write, or dl_ps. */
void sim_wait_line(struct sim_actor *a, uintptr_t addr, uint64_t dl_ps);
/* The running actor, whose load of addr's line left its completion for
 * later, waits for that line to change: it hands over once, due at the
 * completion.  True when it was parked then without a turn of its own
 * (and has now been woken, or its deadline came); false when it was
 * handed its turn at the completion and goes on from there. */
bool sim_park_ahead_self(struct sim_actor *a, uintptr_t addr, uint64_t dl_ps);
/* Called by sim/turns.c for the earliest actor n, due at `at` to park
 * ahead: park it now, as it would at that instant, and set *due to when
 * it runs next (SIM_NEVER: when woken); false when it must run itself. */
bool sim_park_ahead(struct sim_actor *n, uint64_t at, uint64_t *due);

/* failure.c */
void sim_actor_exit(struct sim_actor *a);
void sim_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* End the run: every live thread is parked with no deadline, or waits
 * for an admission that no running thread can give. */
void sim_deadlock(struct sim_actor *me);
/* Is every live thread parked with no deadline or waiting for admission
 * that no running thread can give (memops.c)? */
bool sim_all_blocked(void);
/* The same, were `more` more threads parked with no deadline. */
bool sim_all_blocked_with(unsigned more);
/* After simgrid_run: actors left blocked fail the run. */
void sim_check_stranded(void);
/* Run time left before SIM_TIME_MAX_PS; a run that reaches it fails. */
uint64_t sim_time_left(void);
void sim_check_progress(void);
/* "outside", "acquiring" or "holding" (enum wl_phase). */
const char *sim_phase_name(int phase);

/* alloc.c */
void sim_describe_line(uintptr_t addr, char *buf, size_t len);
void sim_allocs_reset(void);
size_t sim_round_line(size_t size);

/* ccbench.c: the `ccbench` sub-command */
extern const struct ll_command sim_ccbench_cmd;
/* How the running command shares cpus among more threads, for the line
 * that refuses a --pin list naming a cpu twice (sim/place.c). */
void sim_set_cpu_share(const char *how);

/* filelock_cmd.c: the `filelock` sub-command */
extern const struct ll_command sim_filelock_cmd;
/* `locklab-sim scoreboard` (sim/scoreboard_cmd.c) */
extern const struct ll_command sim_scoreboard_cmd;

/* options.c: --simgrid-cfg out of argv into sg; --arbitration onto a
 * loaded topology */
int sim_take_simgrid_cfg(int *argc, char **argv, char **sg, int *n, int room);
void sim_apply_arbitration(struct topo *t);
/* --arbitration as given, or NULL (the topology's rule) */
const char *sim_arbitration_option(void);
/* The rule a line's requests are admitted by, as run ("socket-first:8",
 * "fifo"): the topology's, unless sim_arbitration_option() says it was
 * given. */
size_t sim_arbitration_text(char *buf, size_t len);

#endif
