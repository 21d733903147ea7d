/*
 * locklab/workload.h - the workload loop and the run it belongs to.
 *
 * core/workload.c owns the loop every thread runs (identical in both
 * backends); a backend owns how threads are made, placed, started and
 * stopped (include/locklab/backend.h).
 *
 * Each thread, until the run stops:
 *   non-critical delay (fixed or exponential, per-thread GSL RNG)
 *   pick a lock (uniform when --locks > 1)
 *   t0 = now; acquire; t1 = now   (timed: one acquisition in time_every)
 *   critical section: the checker and the handoff record (harness
 *   memory, outside the simulated machine), a store to each of cs_lines
 *   shared lines (a load in a read section), critical delay
 *   release
 */
#ifndef LOCKLAB_WORKLOAD_H
#define LOCKLAB_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lock.h"
#include "stats.h"

#define WL_MAX_THREADS 8192
#define WL_MAX_LIST 64

enum pin_policy {
	PIN_COMPACT = 0, /* fill one socket, then the next */
	PIN_SCATTER,     /* round-robin over sockets */
	PIN_SOCKET,      /* every thread on socket pin_socket */
	PIN_LIST,        /* explicit cpu list */
	PIN_NONE,        /* let the OS (or the simulator's default) place */
	PIN_NODE,        /* bound to socket pin_socket's cpus as a set: the OS (or the
			    simulator, as PIN_NONE) places and moves threads within it */
};

/* Where the locks of a run (--locks N) have their home node. */
enum wl_lock_home {
	WL_HOME_SAME = 0, /* every lock on node 0 (or on the node of all threads) */
	WL_HOME_SPREAD,   /* lock i on node i modulo the nodes */
	WL_HOME_RANDOM,   /* each lock on a node drawn from the run's seed
			     (the simulator's default with --pin none) */
};

/* --lock-home's word for h. */
static inline const char *wl_lock_home_name(enum wl_lock_home h)
{
	return h == WL_HOME_SPREAD ? "spread" : h == WL_HOME_RANDOM ? "random" : "same";
}

/* Everything the user chose; filled by core/cli.c. */
struct wl_config {
	const struct lock_algo *algos[WL_MAX_LIST];
	unsigned nalgos;
	unsigned threads[WL_MAX_LIST];
	unsigned nthreads;

	uint64_t cs_ns;
	uint64_t ncs_ns;
	bool ncs_exp;      /* exponential with mean ncs_ns */
	unsigned cs_lines; /* 0: a bare lock loop */
	unsigned locks;    /* >= 1 */
	enum wl_lock_home lock_home;
	bool lock_home_given; /* --lock-home was on the command line */
	unsigned read_pct; /* rwlocks: share of reads, 0..100 */
	uint64_t duration_ms; /* 0 when ops is used */
	uint64_t ops;         /* acquisitions per thread, 0 when duration */
	unsigned runs;
	/* --time-every K: time one acquisition in K, chosen at random (a
	 * seeded geometric skip); every acquisition is counted.  1: time each
	 * one.  0 until core/cli.c fills in the backend's default. */
	unsigned time_every;
	enum pin_policy pin;
	unsigned pin_socket;
	unsigned pin_list[WL_MAX_THREADS];
	unsigned pin_list_len;
	uint64_t seed;

	const char *topo;      /* sim: name or path; native: NULL */
	const char *pin_text;  /* as typed, for the output */
	const char *preset;    /* --preset's name, or NULL: its lengths are assumed */
	/* The option that set the thread counts, as refusals name it
	 * (wl_count_opt): NULL for run's --threads; filelock's --procs. */
	const char *count_opt;

	/* A virtual machine (--vm V --overcommit X[,X...], docs/vm.md): V
	 * vCPUs, one per thread (--threads defaults to V), on V / X physical
	 * CPUs, X a sweep like --threads.  vm_vcpus 0: no virtual machine. */
	unsigned vm_vcpus;
	double overcommit[WL_MAX_LIST];
	unsigned novercommit;
	bool overcommit_default; /* --overcommit not given: 1 */
	/* > 0: threads come in groups of group_threads, group g using locks
	 * g * group_locks .. + group_locks - 1 (--co-guests same, sim/vm.c). */
	unsigned group_threads, group_locks;
};

/* The binaries' defaults (core/cli.c): sections of 50 ns writing one line,
 * a constant 200 ns between them, one lock, threads placed compact, seed 1,
 * one run; no lock, no thread count, no length (ops or duration_ms) yet. */
static inline void wl_config_defaults(struct wl_config *c)
{
	memset(c, 0, sizeof(*c));
	c->cs_ns = 50;
	c->ncs_ns = 200;
	c->cs_lines = 1;
	c->locks = 1;
	c->runs = 1;
	c->pin = PIN_COMPACT;
	c->pin_text = "compact";
	c->seed = 1;
}

/* c runs lock a alone, with n threads. */
static inline void wl_config_only(struct wl_config *c, const struct lock_algo *a, unsigned n)
{
	c->algos[0] = a;
	c->nalgos = 1;
	c->threads[0] = n;
	c->nthreads = 1;
}

/* The physical CPUs of V vCPUs at overcommit x: V / x, rounded, at least 1. */
static inline unsigned wl_vm_pcpus(unsigned vcpus, double overcommit)
{
	double p = (double)vcpus / overcommit + 0.5;

	return p < 1.0 ? 1u : (unsigned)p;
}

/* Whole vCPUs on whole pCPUs make total / pcpus vCPUs per pCPU; a row is
 * labelled with the overcommit x asked for (and the CSV's overcommit holds
 * it), so the two must agree within a tenth (docs/vm.md): one vCPU on one
 * pCPU is never 4x.  Writes a one-line refusal and returns -1 when not. */
static inline int wl_vm_ratio_check(unsigned vcpus, unsigned total, unsigned pcpus, double x,
				    char *err, size_t len)
{
	double eff = (double)total / (double)pcpus, d = eff > x ? eff - x : x - eff;

	if (d <= 0.1 * x)
		return 0;
	snprintf(err, len, "--vm %u --overcommit %g: %u vCPUs on %u physical cpus are %.2fx, not "
		 "%gx (within a tenth; give more vCPUs)", vcpus, x, total, pcpus, eff, x);
	return -1;
}

/* The physical CPU (0 .. pcpus-1) of vCPU i, of `total` vCPUs in guests of
 * `guest` vCPUs each (guest i / guest; the last may be partial).  More pCPUs
 * than vCPUs: one each, spread evenly.  Fewer: round-robin, i mod pcpus, which
 * gives every pCPU total / pcpus vCPUs, each of another guest when guest <=
 * pcpus.  Where that does not divide, the pCPUs that hold one vCPU more must
 * not all go to one guest (i mod pcpus at 1.5x gives the second of three
 * guests pCPUs of its own, and it is never preempted): when the guests are all
 * whole, guest g's arc of pCPUs then starts at g pcpus / G, G the guests, so
 * that each guest shares the same part of its pCPUs, as a host that balances
 * load among vCPU threads it treats alike spreads them (every pCPU still holds
 * total / pcpus, rounded; with a partial last guest those arcs would leave
 * pCPUs empty, and i mod pcpus stays). */
static inline unsigned wl_vm_pcpu_of(unsigned i, unsigned guest, unsigned total, unsigned pcpus)
{
	unsigned g, nguests;

	if (pcpus > total)
		return (unsigned)((uint64_t)i * pcpus / total);
	if (total % pcpus == 0 || guest == 0 || guest >= total || total % guest)
		return i % pcpus;
	g = i / guest;
	nguests = (total + guest - 1) / guest;
	return (unsigned)((i % guest + (uint64_t)g * pcpus / nguests) % pcpus);
}

/* More pCPUs than vCPUs (total) on a machine with SMT: perm[k] is the
 * position in the placement of the pCPU that goes to position k, so that the
 * positions wl_vm_pcpu_of gives vCPUs hold hardware threads of cores of their
 * own first, as a host's load balancer leaves busy threads within a socket
 * (core/vm_place.c).  phys[k], group[k]: the physical core and the socket of
 * the placement's k-th pCPU; a pCPU moves only within its socket.  The
 * identity without SMT or with n <= total.  0, or -1 when out of memory
 * (perm then the identity). */
int wl_vm_cores_first(unsigned n, unsigned total, const unsigned *phys, const unsigned *group,
		      unsigned *perm);

/* A line of protected data: writers store to it, readers load it. */
struct wl_data_line {
	int64_t value;
	char pad[64 - sizeof(int64_t)];
};

/* What the harness keeps to observe one lock: plain host memory, never
 * ll_alloc'd and never touched through <locklab/mem.h>, so the simulator
 * does not model it (core/workload.c).  Relaxed __atomic accesses only. */
struct wl_check {
	int64_t owner;       /* tid + 1 of the writer inside, 0: none */
	int64_t last_holder; /* thread that last released (-1: none yet) */
	int64_t writes;      /* write sections completed: readers compare it */
	char pad[64 - 3 * sizeof(int64_t)];
};

/* The protected data of every lock together, in lines of 64 bytes (--locks
 * times --cs-lines): 1 GiB. */
#define WL_MAX_DATA_LINES (1u << 24)

struct wl_lock_slot {
	void *lock;                 /* the lock object */
	struct wl_data_line *data;  /* cs_lines lines (NULL when 0) */
	struct wl_check *check;     /* harness memory, one line */
	unsigned home_node;
	int64_t ref_initial;        /* refcounts: the count after init */
};

/* rwlocks: a read section of one thread, [from, to) in ns.  Each thread
 * keeps its first WL_READ_SPANS counted ones; wl_max_readers() measures
 * from them how many readers were inside at once. */
#define WL_READ_SPANS 1024

/* The seeded skew of the threads' start (see wl_thread_main, core/workload.c):
 * *assumed*, a microsecond, about a thread's wake-up from a barrier.  In the
 * simulator it is what makes a configuration's runs differ where nothing
 * else seeded is on. */
#define WL_START_SKEW_NS 1000
struct wl_span {
	uint64_t from, to;
};

/* Where a thread stands in the workload loop (wl_thread.phase). */
enum wl_phase { PH_OUTSIDE = 0, PH_ACQUIRING = 1, PH_HOLDING = 2 };

/* Handoffs one thread received, by the giver's tid: an open-addressing
 * map holding only the givers seen (core/handoff.c), so memory follows
 * the handoff pairs that happened rather than threads squared. */
struct wl_handoff_pair {
	unsigned from; /* giver's tid + 1; 0 marks a free slot */
	uint64_t n;
	uint64_t local; /* of those, the giver and taker on one socket then */
};

struct wl_handoff_map {
	struct wl_handoff_pair *slot;
	unsigned cap, used; /* cap: 0 or a power of two */
};

/* Count one handoff from tid `from`, inside one socket or not; -1 when
 * out of memory (not counted). */
int wl_handoff_add(struct wl_handoff_map *m, unsigned from, bool local);
void wl_handoff_free(struct wl_handoff_map *m);

/* Per-thread record; written only by its thread, read after the run. */
struct wl_thread {
	unsigned tid;
	unsigned cpu;  /* core (native: OS cpu; sim: host index) */
	unsigned node; /* socket */
	int phase;     /* enum wl_phase (__atomic), on the line of the counters */
	void **ctx;    /* one context per lock */
	uint64_t acquisitions;       /* completed before the stop */
	uint64_t acquisitions_after; /* completed after the stop (drained) */
	uint64_t timed;              /* counted ones that were timed (the sample) */
	uint64_t sample_state;       /* the skip's own generator, not rng's */
	uint64_t reads, writes;      /* rwlocks */
	uint64_t handoffs, handoffs_local;
	struct wl_handoff_map handoff_from; /* handoffs received, by giver */
	struct ll_hist wait; /* waits of counted acquisitions, + censored (ns) */
	uint64_t censored_ns; /* of those, the one the run's end cut short (0: none) */
	bool censored_read;   /* that one was a read (a rwlock's) */
	struct ll_hist wait_read, wait_write; /* rwlocks only */
	struct wl_span *read_spans; /* rwlocks: WL_READ_SPANS of them */
	unsigned nread_spans;
	uint64_t violations;
	uint64_t last_progress_ns; /* for the watchdog (__atomic) */
	uint64_t finish_ns;        /* when it left the loop */
	uint64_t seed;
	void *rng; /* gsl_rng * */
};

/* A workload other than the lock loop (core/filelock_wl.c): when a run
 * has one, wl_setup, wl_thread_main and wl_teardown run its functions. */
struct wl_run;
struct wl_custom {
	int (*setup)(struct wl_run *run);
	void (*thread_main)(struct wl_run *run, unsigned tid);
	void (*teardown)(struct wl_run *run);
	void *arg;
};

/* One run: one lock, one thread count, one repetition. */
struct wl_run {
	const struct wl_config *cfg;
	const struct lock_algo *algo;
	unsigned nthreads;
	unsigned run_index;
	uint64_t seed;

	struct wl_lock_slot *slots; /* cfg->locks of them */
	struct wl_thread *threads;  /* nthreads of them */

	/* Set by the backend. */
	uint64_t start_ns; /* when the start barrier opened */
	uint64_t end_ns;   /* duration runs: start_ns + duration */
	uint64_t stop_ns;  /* when the measurement stopped */
	int stop;          /* harness flag, read with __atomic (not modelled) */
	int time_up;       /* harness flag: a timed acquisition saw end_ns pass */
	unsigned threads_out; /* threads that left the loop (harness, __atomic) */
	int failed;        /* a violation or a watchdog/deadlock stop */
	char failure[512];

	/* In a virtual machine (cfg->vm_vcpus): the overcommit of this run and
	 * its physical CPUs (wl_vm_pcpus); both 0 otherwise. */
	double overcommit;
	unsigned vm_pcpus;

	const struct wl_custom *custom; /* NULL: the lock loop */
};

/* core/workload.c */
/* Allocate locks, data and contexts (with ll_alloc_on, so in the simulator
 * they get home nodes) once thread placement is known. */
int wl_setup(struct wl_run *run);
/* core/counts.c: the lock's own counts (ll_count) of a run, started by
 * wl_setup and stopped by wl_teardown; wl_counts_sum gives the totals so
 * far and how many the lock keeps. */
int wl_counts_begin(const struct wl_run *run);
unsigned wl_counts_sum(uint64_t out[LL_MAX_COUNTS]);
void wl_counts_end(void);
/* The loop of thread tid; the backend calls it on the thread or actor. */
void wl_thread_main(struct wl_run *run, unsigned tid);
void wl_teardown(struct wl_run *run);
/* core/readers.c */
/* rwlocks, after the run: the most read sections that overlapped in time
 * among the recorded ones (0 when none was recorded). */
unsigned wl_max_readers(const struct wl_run *run);
/* core/spread.c */
/* Acquisitions over a run's threads: the fewest (UINT64_MAX with no thread)
 * and most of one thread, the mean, the sample coefficient of variation (0
 * for one thread or none acquired), Jain's index and the threads with none. */
struct wl_spread {
	uint64_t min, max;
	double mean, cv, jain;
	unsigned starved;
};
/* 0, or -1 when out of memory. */
int wl_thread_spread(const struct wl_run *run, struct wl_spread *s);

/* cfg->count_opt, or "--threads". */
static inline const char *wl_count_opt(const struct wl_config *cfg)
{
	return cfg && cfg->count_opt ? cfg->count_opt : "--threads";
}

/* --pin list: a cpu for each thread of the largest count (a cpu more would
 * mean nothing, one less would leave a thread without a place). */
static inline int wl_pin_list_check(const struct wl_config *cfg, unsigned maxt, char *err,
				    size_t len)
{
	if (cfg->pin_list_len == maxt)
		return 0;
	snprintf(err, len, "--pin list: has %u cpu%s but %s asks for %u%s", cfg->pin_list_len,
		 cfg->pin_list_len == 1 ? "" : "s", wl_count_opt(cfg), maxt,
		 cfg->pin_list_len > maxt ? " (one cpu each, for the largest count)" : "");
	return -1;
}

/* --lock-home spread or random on a machine of one NUMA node would mean
 * nothing (every home is node 0): refused, as other options that would. */
static inline int wl_lock_home_check(const struct wl_config *cfg, unsigned nodes,
				     const char *machine, char *err, size_t len)
{
	if (!cfg->lock_home_given || cfg->lock_home == WL_HOME_SAME || nodes > 1)
		return 0;
	snprintf(err, len, "--lock-home %s: %s has one NUMA node, every lock's home",
		 wl_lock_home_name(cfg->lock_home), machine);
	return -1;
}

#endif
