/*
 * locklab/result.h - one row of output, and the writers (core/output.c).
 *
 * The CSV columns are fixed by the contract (see ../shared/CONTRACT.md in the
 * design); the JSON carries the same rows plus the environment.
 */
#ifndef LOCKLAB_RESULT_H
#define LOCKLAB_RESULT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <locklab/lock.h>

/* Distance classes with a CSV column each (transfers_classK_per_acq). */
#define SIM_CSV_CLASSES 4

/* A run in a virtual machine (--vm; docs/vm.md): has_vm false otherwise.
 * The simulator's hypervisor fills every figure (has_sched); natively only
 * what a process can see: involuntary context switches as preemptions,
 * parks that slept as halts, futex wakes as kicks, and the wake latency. */
struct vm_counters {
	bool has_vm;
	bool has_sched;      /* holder/waiter preemptions, lost time, PLE known */
	double overcommit;   /* vCPUs per physical CPU, as asked */
	unsigned pcpus;      /* physical CPUs of the run */
	uint64_t preemptions;        /* a runnable vCPU descheduled (slice or PLE yield) */
	uint64_t holder_preemptions; /* ... while its thread held the lock */
	uint64_t waiter_preemptions; /* ... while its thread was acquiring it */
	uint64_t holder_lost_ps;     /* time those vCPUs then spent off their pCPU */
	uint64_t waiter_lost_ps;
	uint64_t ple_exits;          /* pause-loop exits */
	uint64_t ple_yields;         /* of those, exits that gave the pCPU away */
	uint64_t halts;              /* ll_park that stopped the vCPU (thread) */
	uint64_t kicks;              /* ll_unpark that woke a halted one */
	uint64_t wakes, wake_ps;     /* halts ended by a kick; kick-to-running time */
	unsigned never_ran;          /* threads whose vCPU never had its pCPU in the run */
	uint64_t wake_moves;         /* OS model: woken processes placed on another cpu */
	uint64_t idle_pulls;         /* OS model: queued processes an idle cpu took over */
	uint64_t affine_wakes;       /* OS model: wake-ups wake_affine aimed at the waker's cpu */
};

/* The most idle states a machine lists (sim/topology.h, TOPO_MAX_IDLE). */
#define LL_MAX_IDLE_STATES 8

/* What the simulator's memory model counted over the measured interval;
 * a native run leaves has_sim false. */
struct sim_counters {
	bool has_sim;
	uint64_t misses;              /* coherence misses, all threads, all lines */
	uint64_t lock_invalidations;  /* invalidation messages on lock-tagged lines */
	uint64_t lock_misses;         /* coherence misses on lock-tagged lines */
	uint64_t node_misses;         /* ... on queue-node lines (LL_TAG_CTX) */
	uint64_t data_misses;         /* ... on the protected data's lines */
	uint64_t other_misses;        /* ... on untagged lines */
	uint64_t remote_transfers;    /* line transfers that crossed a socket link */
	uint64_t line_queue_ps;       /* time requests waited behind others on a busy line */
	uint64_t busiest_link_msgs;   /* messages on the most loaded socket link */
	uint64_t events;              /* simulator events (actor sleeps/wakes) */
	uint64_t accesses;            /* all memory operations */
	/* misses by distance class of the transfer (0: same socket; the last
	 * slot holds class 3 and beyond) */
	uint64_t transfers_by_class[SIM_CSV_CLASSES];
	/* scheduler noise (--pin none or node:N, docs/variance.md): has_noise when on */
	bool has_noise;
	uint64_t migrations;          /* threads moved to another core */
	uint64_t irqs;                /* interrupts on the threads' cores */
	uint64_t irq_lost_ps;         /* thread time they took */
	/* idle states (sim/idle.c): wake-ups of a sleeping thread whose
	 * hardware thread was in one, by state (the topology's idle.states
	 * order), and the exit latency they paid */
	uint64_t idle_wakes[LL_MAX_IDLE_STATES];
	uint64_t idle_exit_ps;
	bool has_idle; /* the run's machine had idle states, on, outside --vm */
};

/* The wake-ups from an idle state, every state together. */
static inline uint64_t sim_idle_wakes(const struct sim_counters *c)
{
	uint64_t n = 0;

	for (unsigned k = 0; k < LL_MAX_IDLE_STATES; k++)
		n += c->idle_wakes[k];
	return n;
}

/* The counters of one run (backend_run): the simulator's, and the virtual
 * machine's, which either backend fills. */
struct run_counters {
	struct sim_counters sim;
	struct vm_counters vm;
	/* Either backend: threads outnumbered the CPUs they ran on, so they
	 * waited for a CPU as well as for the lock (native only: the
	 * simulator refuses more threads than the topology's cores). */
	bool oversubscribed;
};

struct run_result {
	char backend[16];
	char topo[128];
	char lock[48];
	unsigned threads;
	uint64_t cs_ns, ncs_ns;
	bool ncs_exp;
	unsigned cs_lines, locks, read_pct;
	uint64_t seed;
	unsigned run;
	double duration_s;
	uint64_t acquisitions;
	double throughput_per_s;
	double wait_mean_ns, wait_p50_ns, wait_p99_ns, wait_max_ns;
	/* the waits at or above wait_p99_ns are mostly waits the run's end cut
	 * short: it is a lower bound (the table marks it >=) */
	bool wait_p99_censored;
	bool read_wait_p99_censored, write_wait_p99_censored; /* the same, of one side */
	/* a side's longest wait cut short by the run's end (the table's ">=";
	 * the CSV's wait_max_censored is of the run's longest of either side) */
	bool read_wait_max_censored, write_wait_max_censored;
	/* wait_max_ns is a wait the run's end cut short: a lower bound */
	bool wait_max_censored;
	double jain;
	uint64_t acq_min, acq_max;
	double handoff_local_frac; /* NaN when there were no handoffs */
	/* the share of the exclusive acquisitions (a rwlock's writes) whose
	 * previous holder was another thread: 1 - it went to its last holder
	 * again.  NaN with none, and for a refcount (no holder) */
	double handoff_frac;
	/* rwlocks: reads and writes separately */
	bool is_rwlock;
	uint64_t reads, writes;
	double read_wait_p99_ns, read_wait_max_ns;
	double write_wait_p99_ns, write_wait_max_ns;
	unsigned readers_overlap_max; /* most read sections seen overlapping */
	/* Per-thread acquisitions (result_count_threads): threads with none,
	 * sockets with a thread, and sockets with a thread that acquired. */
	unsigned starved, sockets, sockets_served;
	struct sim_counters sim;
	struct vm_counters vm;
	bool oversubscribed;          /* run_counters.oversubscribed */
	/* derived from sim, per acquisition / release of the measured interval */
	double misses_per_acq, invalidations_per_release, remote_transfers_per_acq;
	double line_queue_ns_per_acq, busiest_link_msgs_per_acq, events_per_acq;
	double transfers_class_per_acq[SIM_CSV_CLASSES];
	/* misses_per_acq by what the line holds */
	double lock_misses_per_acq, node_misses_per_acq, data_misses_per_acq, other_misses_per_acq;
	/* idle states (sim/idle.c): wake-ups from one, and their exit latency,
	 * per acquisition */
	double idle_wakes_per_acq, idle_exit_ns_per_acq;
	/* --vm: per acquisition / per wake, from vm */
	double holder_lost_ns_per_acq, waiter_lost_ns_per_acq, wake_latency_ns;
	/* The lock's own counts (ll_count) until the run's end, in the order
	 * of its lock_algo.counts; ncounts of them (0: it keeps none). */
	uint64_t counts[LL_MAX_COUNTS];
	unsigned ncounts;
	char counts_text[448]; /* "name=count;..." for the CSV, "" if none */
	/* A run that failed (mutual exclusion violated, deadlock, no
	 * progress): why; empty when it did not.  Only the columns naming
	 * what was run are kept in its row. */
	char failure[512];
};

#define LOCKLAB_VERSION "0.1.0"

struct wl_config;

/* The lockstep probe of an unfair configuration (the simulator's, where its
 * runs timed every miss exactly): one more run with each miss within
 * spread_pct per cent of its latency, its Jain index and starved threads
 * (backend_lockstep_probe; the table says what they make of the runs). */
struct lockstep_probe {
	char lock[48];
	unsigned threads;
	double overcommit;
	unsigned spread_pct, starved; /* spread_pct 0: no probe */
	double jain;
	uint64_t min, max; /* the fewest and the most acquisitions of a thread */
};

/* Output sinks; a NULL path means "not wanted".  Files are written to a
 * temporary name in the same directory, then renamed. */
struct output_set {
	const struct wl_config *cfg; /* for the environment in JSON */
	unsigned shard, nshards;     /* --shard I/N (nshards 0: the whole sweep) */
	size_t runs_done, runs_planned; /* done < planned: the sweep stopped early */
	struct run_result *rows;
	size_t nrows, cap;
	struct lockstep_probe *probes; /* made for the table; no CSV row, the JSON's lockstep_probes */
	size_t nprobes;
};

/* A Jain index under this is unfair to the lockstep probe (a threshold
 * chosen here), besides what the table calls unfair (core/table.c). */
#define LOCKSTEP_FAIR_JAIN 0.9
/* Is the probe's run fair: no thread starved, none under the table's share
 * of the busiest one's acquisitions, a Jain index of LOCKSTEP_FAIR_JAIN or
 * more?  Then the unfairness of the runs it probes was the model's
 * lockstep of exact latencies. */
bool lockstep_fair(const struct lockstep_probe *p);
/* For runs of mean Jain index jain and most starved threads starved: 0
 * when they are fair (no starved thread, Jain of LOCKSTEP_FAIR_JAIN or
 * more) or p made no probe; 1 when the probe is fair (lockstep_fair); 2
 * when it is not either. */
int lockstep_reading(double jain, unsigned starved, const struct lockstep_probe *p);
/* The table's line of probe p, as the JSON repeats it (its "said"). */
#define LOCKSTEP_SAID_MAX 320
const char *lockstep_said(const struct lockstep_probe *p, char *buf, size_t len);
/* For each configuration of o whose runs the table calls starved or
 * unfair, probe(cfg, its first row, &probe) fills a probe (returns 1) or
 * declines (0); the probes made are kept in o (core/table.c). */
void output_probe_unfair(struct output_set *o,
			 int (*probe)(const struct wl_config *, const struct run_result *,
				      struct lockstep_probe *));

void output_add(struct output_set *o, const struct run_result *r);
void output_free(struct output_set *o);
/* The lockperf-style table. */
void output_table(FILE *f, const struct output_set *o);
/* A rate of acquisitions as the table writes one: in Macq/s, or kacq/s or
 * acq/s where it is small, four decimals. */
const char *output_rate_text(double rate, char *buf, size_t len);
/* The table's opening lines alone (settings:, assumed, shard, stopped
 * early): what a run that failed was run with, where no row is left. */
void output_table_settings(FILE *f, const struct output_set *o);
/* After the table: how many graphs --graphs's directory holds and how they
 * are named (nothing without --graphs, or where it holds none); `which`
 * says which run of a configuration they draw. */
void output_graphs_line(FILE *f, const char *which);
int output_csv_file(const char *path, const struct output_set *o);
int output_json_file(const char *path, const struct output_set *o);
void output_csv(FILE *f, const struct output_set *o);
/* One CSV field: quoted (RFC 4180) when it holds a comma, quote or newline
 * (a --pin list's text does). */
void output_csv_field(FILE *f, const char *s);
void output_json(FILE *f, const struct output_set *o);
/* s as a JSON string, quoted and escaped; NULL as null. */
void output_json_string(FILE *f, const char *s);
/* Can path (given with option opt) be written, checked before any work: a
 * regular file or none yet (never a directory, symbolic link, device, FIFO
 * or socket) in an existing directory where a file can be created, with no
 * PATH.partial left by a sweep that did not finish.  0, or -1 with one line
 * (no newline) in err (core/outfile.c). */
int outfile_check(const char *opt, const char *path, char *err, size_t len);
/* True when paths a and b name one file, whether or not it exists yet
 * (their directories resolved, and links to one file found). */
bool outfile_same(const char *a, const char *b);
/* A command's files, given with options opt[]: path[0..nout) are outputs,
 * each checked by outfile_check, path[nout..n) inputs; no output may name
 * the same file as another output or an input.  A NULL path is not given.
 * 0, or -1 with one line in err. */
int outfile_check_all(const char *const opt[], const char *const path[], unsigned nout,
		      unsigned n, char *err, size_t len);
/* Write buf to path whole: temp file in the same directory, fsync, rename. */
int write_file_atomic(const char *path, const char *buf, size_t len);
/* What fn prints, in a malloc'd buffer of *len bytes; NULL on failure. */
char *text_of(void (*fn)(FILE *, const void *), const void *arg, size_t *len);
/* What fn prints, written to path whole (through write_file_atomic). */
int write_text_atomic(const char *path, void (*fn)(FILE *, const void *), const void *arg);

/* --threads-csv (core/threads_csv.c): a row per thread of each run. */
struct wl_run;
/* r->starved, r->sockets and r->sockets_served from run's threads. */
void result_count_threads(struct run_result *r, const struct wl_run *run);
int threads_csv_begin(void);
void threads_csv_add(const struct wl_run *run, const struct run_result *r);
/* The rows of one run to f (NULL: none); the stream of the rows so far. */
void threads_csv_print(FILE *f, const struct wl_run *run, const struct run_result *r);
FILE *threads_csv_file(void);
int threads_csv_write(const char *path);

#endif
