/*
 * core/filelock_wl.h - the kernel's file-lock path (fs/locks.c of Linux
 * 4.1) as a workload of processes that lock and unlock, in the manner of
 * lockperf; core/filelock_wl.c runs it in either backend.
 */
#ifndef LOCKLAB_CORE_FILELOCK_WL_H
#define LOCKLAB_CORE_FILELOCK_WL_H

#include <stdbool.h>
#include <stdint.h>

#include <locklab/result.h>
#include <locklab/workload.h>

enum flw_test { FLW_FLOCK, FLW_POSIX, FLW_LEASE, FLW_NTESTS };
enum flw_global { FLW_LGLOCK, FLW_PERCPU_RWSEM };

/* The processes' start skew, up to this, seeded (as the lock loop's):
 * *assumed*, docs/filelock.md. */
#define FLW_SKEW_NS 1000

extern const char *const flw_test_names[FLW_NTESTS];
extern const char *const flw_global_names[2];

struct flw_config {
	enum flw_test test;
	bool shared;   /* one file for all, or a file each */
	enum flw_global global;
	uint64_t iterations; /* lock and unlock pairs per process */
};

/* What the processes of one run did (harness counters, not modelled). */
struct flw_counters {
	uint64_t grants;         /* locks granted */
	uint64_t unlocks;
	uint64_t sleeps;         /* requests that slept on a blocker */
	uint64_t resleeps;       /* woken requests that slept again */
	uint64_t woken_grants;   /* woken requests granted on their retry */
	uint64_t wakeups;        /* sleepers woken, summed over unlocks */
	uint64_t waking_unlocks; /* unlocks that woke someone */
	uint64_t max_woken;      /* the most sleepers one unlock woke */
	uint64_t violations;     /* two holders of an exclusive lock at once */
	/* the simulator's: wake-ups from each idle state of the machine,
	 * and their exit latency (sim/idle.c) */
	uint64_t idle_wakes[LL_MAX_IDLE_STATES], idle_exit_ns;
	/* the simulator's scheduler noise (--pin none or node:N): has_noise when on */
	bool has_noise;
	uint64_t migrations, irqs;
	/* the simulator's OS model, when the processes outnumber their cpus:
	 * processes descheduled while runnable; those of them that held their
	 * lock (from a granted lock call to the end of their unlock call), and
	 * the time those then waited for their cpu; those waiting for their
	 * lock (between the retries of a refused lease: a call is never
	 * preempted, sim/vm.h, "Processes") */
	bool has_sched;
	uint64_t preemptions, holder_preemptions, holder_lost_ns, waiter_preemptions;
	uint64_t wake_moves; /* woken processes placed on another cpu than their last */
	uint64_t idle_pulls; /* queued processes a cpu going idle took over */
	uint64_t affine_wakes; /* wake-ups wake_affine aimed at the waker's cpu */
};

/* sum += c (max_woken: the larger) */
void flw_counters_add(struct flw_counters *sum, const struct flw_counters *c);

/* Would flw_run_once refuse this configuration?  0, or 2 with one line in
 * why (checked before anything is printed). */
int flw_check(const struct flw_config *fc, const struct wl_config *base, unsigned procs,
	      char *why, size_t len);

/*
 * One run of the workload with procs processes placed by base (pin, topo,
 * seed; its lock fields are overwritten in a copy), repetition idx.  Fills
 * *secs (start to the last process's finish) and *cnt.  Returns 0; 2
 * when the configuration is refused, 3 when the run failed (why says).
 */
int flw_run_once(const struct flw_config *fc, const struct wl_config *base, unsigned procs,
		 unsigned idx, double *secs, struct flw_counters *cnt, char *why, size_t len);

#endif
