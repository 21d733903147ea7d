/*
 * sim/report/explain.h - where the handoff time of a lock goes: the
 * attribution ledger kept while `locklab-sim explain` (or --graphs, or a
 * test) asks for it (ledger.c), and the report made from it (explain.c;
 * docs/graphs.md defines every figure).
 *
 * The handoff.  Thread A's critical section ends (its critical delay is
 * over) at e_A; A then releases.  The next holder B != A of the same lock
 * starts its own critical delay at d_B, after acquiring the lock (at a_B)
 * and bringing the protected data into its cache.  The handoff time is
 * d_B - e_A: the time the lock protected no useful work.
 *
 * The ledger.  While armed, every simulated thread's own time is cut into
 * contiguous segments, each with one cause: a miss is its travel and
 * transfer (by distance class), its queueing behind earlier requests on
 * the line, its invalidation fan-out and its wait for busy socket links
 * (all of it "data migration" when the line is protected data); hits,
 * pauses and local delays are local work; a park is a wait that ends when
 * another thread writes the line (or kicks), and names that thread.  The
 * handoff A -> B is then walked along B's segments over [e_A, d_B]; a
 * stretch where B was parked is replaced by the segments of the thread
 * that woke it over the same stretch (to a depth of four), and a stretch
 * before B asked for the lock is charged to the longest-waiting thread, or
 * to the lock being free ("lock_free") when nobody was waiting.  The parts
 * therefore sum to the handoff time unless a segment is missing: the tests
 * check that.
 */
#ifndef SIM_REPORT_EXPLAIN_H
#define SIM_REPORT_EXPLAIN_H

#include <stdbool.h>
#include <stdint.h>

#include <locklab/result.h>
#include <locklab/workload.h>

#include "../coherence.h"
#include "../observe.h"
#include "../topology.h"

/* The causes, in the order the report prints them. */
enum xp_part {
	XP_IDLE = 0, /* the lock was free and nobody was asking for it */
	XP_XFER,     /* lock or queue-node line transfer: XP_XFER + class */
	XP_QUEUE = XP_XFER + TOPO_MAX_CLASSES, /* behind other requests on the line (the herd) */
	XP_INVAL,   /* invalidation fan-out to sharers */
	XP_LINK,    /* waiting for a busy socket link */
	XP_DATA,    /* misses on the protected data (its migration) */
	XP_LOCAL,   /* hits, pauses, local work of the lock and release code */
	XP_BACKOFF, /* delays taken while acquiring */
	XP_PARK,    /* halt, kick and wake-up of parked threads */
	XP_STOREBUF, /* waiting for the store buffer to drain (tso, pso) */
	XP_OTHER,   /* waits not traced further (depth, timeouts, still parked) */
	XP_HOME,    /* queueing at the line's home agent, behind other lines' requests */
	XP_IDLE_EXIT, /* a woken thread's hardware thread leaving its idle state */
	XP_IRQ,       /* interrupts taking the thread's core (docs/variance.md) */
	XP_NPARTS,
	XP_CS = XP_NPARTS, /* a critical delay (never inside a handoff) */
	XP_PARKED,         /* parked: replaced by the waker's segments */
};

/* What a missed line holds, as the CSV's *_misses_per_acq columns. */
enum xp_line { XP_LINE_LOCK, XP_LINE_NODE, XP_LINE_DATA, XP_LINE_OTHER, XP_NLINES };

struct xp_report {
	unsigned runs;
	uint64_t handoffs;         /* handoffs attributed (all runs) */
	uint64_t wl_handoffs;      /* handoffs the workload counted (all runs) */
	double handoff_ns;         /* mean d_B - e_A, as measured */
	double acquire_ns;         /* mean a_B - e_A: release to acquisition */
	double part_ns[XP_NPARTS]; /* mean per handoff of each cause */
	double parts_sum_ns;
	double gap_ns;             /* mean time no segment covered (0 when whole) */
	/* unfairness, over all runs */
	uint64_t local_handoffs;
	double local_frac;         /* handoffs inside one socket / all */
	double random_local_frac;  /* the same if the next holder were any other thread */
	uint64_t longest_socket_run;
	unsigned longest_run_socket;
	/* the figures of all runs together */
	unsigned threads;
	uint64_t acquisitions;
	double throughput_per_s;
	/* per thread: the mean, cv and Jain index of each run, averaged over
	 * the runs; the fewest and the most acquisitions of a thread in any run;
	 * the largest gap between a run's most and fewest */
	double acq_mean, acq_cv, jain;
	uint64_t acq_min, acq_max, acq_gap;
	unsigned starved; /* threads without a counted acquisition, the most in one run */
	double misses_per_acq, remote_per_acq, busiest_link_per_acq;
	/* misses_per_acq by what the line holds: XP_LINE_* */
	double line_misses_per_acq[XP_NLINES];
	/* The lockstep probe (sim/lockstep.c): where the runs timed every miss
	 * exactly, one more run with each miss's latency drawn within
	 * probe.spread_pct per cent of it.  spread_pct 0: no probe (the runs
	 * had a spread of their own). */
	struct lockstep_probe probe;
};

struct xp_state;
/* Non-NULL while armed, so that an unarmed hook costs one test. */
extern struct xp_state *sim_xp;

/* Arm for the runs that follow; sim_explain_report() sums what they
 * recorded; sim_explain_disarm() frees everything. */
int sim_explain_arm(void);
void sim_explain_report(struct xp_report *rep);
void sim_explain_disarm(void);
/* After every run while armed: fold the run in. */
void sim_explain_end_run(const struct wl_run *run, const struct sim_counters *c);
/* Before that: how long thread tid spent acquiring the lock within the
 * measured interval, a wait still open counted up to stop_ps. */
uint64_t sim_explain_wait_ps(unsigned tid, uint64_t stop_ps);

/* The ledger's side of the observer hook (sim/observe.h). */
void xp_local(unsigned tid, uint64_t from, uint64_t to, enum sim_obs_local what);
void xp_delay(unsigned tid, uint64_t from, uint64_t to);
void xp_hit(unsigned tid, uintptr_t addr, uint64_t from, uint64_t to);
void xp_drain(unsigned tid, uintptr_t addr, uint64_t from, uint64_t to);
void xp_issue(unsigned tid, uintptr_t addr, uint64_t issue, uint64_t arrival);
void xp_miss(unsigned tid, uintptr_t addr, enum coh_op op, const struct coh_result *r);
void xp_block(unsigned tid, uint64_t from);
void xp_unblock(unsigned tid, uint64_t to);
void xp_woken(unsigned tid, int waker);

#endif
