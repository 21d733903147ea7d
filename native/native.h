/*
 * native/native.h - the native backend's own interfaces, shared by the files
 * of native/ and by native test programs.
 *
 *   topo.c     the machine as hwloc sees it: sockets, cores, PUs, NUMA
 *              nodes, and the order in which placement policies use PUs
 *   mem.c      the out-of-line half of <ll_backend_mem.h>: calibrated delay,
 *              thread identity, node-bound memory, futex park/unpark
 *   pin.c      placement policies (compact, scatter, socket:N, list, none)
 *              and binding the calling thread
 *   backend.c  <locklab/backend.h>: threads, start barrier, stop, watchdog
 *   watch.c    the watchdog's clock: time without progress while the process ran
 *   env.c      the environment JSON and the host name
 */
#ifndef LOCKLAB_NATIVE_H
#define LOCKLAB_NATIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <hwloc.h>

#include <locklab/result.h>
#include <locklab/workload.h>

/* Threads a run may have; ll_park/ll_unpark keep one word per thread. */
#define NATIVE_MAX_THREADS WL_MAX_THREADS

/* ---------------------------------------------------------------- mem.c */

/* Before a run's threads start: ll_nr_cpus() becomes ncpus, ll_nr_nodes()
 * nnodes, every park word is cleared, and the delay loop is calibrated (once
 * per process).  ncpus must not exceed NATIVE_MAX_THREADS. */
void native_mem_configure(unsigned ncpus, unsigned nnodes);

/* In each thread of a run: from now on ll_this_cpu() == tid and
 * ll_this_node() == node. */
void native_thread_bind(unsigned tid, unsigned node);

/* Thread tid's park figures since native_mem_configure: parks that slept,
 * unparks it made that woke a sleeper, and its wakes with their latency
 * (unpark to running again) summed. */
void native_park_stats(unsigned tid, uint64_t *halts, uint64_t *kicks, uint64_t *wakes,
		       uint64_t *wake_ns);

/* Calibrate ll_delay_ns now if that has not happened yet (it otherwise
 * happens at the first delay), and the figure it found: iterations of the
 * delay loop per microsecond. */
void native_delay_calibrate(void);
double native_delay_iters_per_us(void);

/* ------------------------------------------------------------- clock.c */

/* Calibrate ll_now_ns's cycle counter (once per process; the delay loop's
 * calibration does it first): afterwards ll_now_ns() reads the counter when
 * native_clock_is_tsc(), clock_gettime otherwise. */
void native_clock_calibrate(void);
bool native_clock_is_tsc(void);

/* -------------------------------------------------------------- watch.c */

#define NATIVE_WATCH_STEP_NS 50000000ull  /* 50 ms between watchdog looks */
#define NATIVE_WATCH_LATE_NS 1000000000ull /* a look this late: the process was stopped */

/* How long a run has gone without progress, counting only time in which
 * the process ran: look is the watchdog's last look, seen the last
 * progress it saw there, quiet the time without progress so far. */
struct native_watch {
	uint64_t look;
	uint64_t seen;
	uint64_t quiet;
};

void native_watch_start(struct native_watch *w, uint64_t now, uint64_t last_progress);
/* A look at now (CLOCK_MONOTONIC ns): the quiet time so far. */
uint64_t native_watch_quiet(struct native_watch *w, uint64_t now, uint64_t last_progress);

/* --------------------------------------------------------------- topo.c */

struct native_socket {
	unsigned npus;
	unsigned *pus; /* OS cpu numbers: one per core first, then siblings */
};

struct native_machine {
	hwloc_topology_t topo;
	unsigned nsockets, ncores, npus, nnodes;
	struct native_socket *sockets;
	bool membind; /* ll_alloc_on binds memory with hwloc */
};

/* The machine, loaded once (thread-safe); NULL if hwloc could not load it,
 * in which case native_machine_error() says why. */
const struct native_machine *native_machine(void);
const char *native_machine_error(void);
/* The NUMA node (hwloc logical index) holding OS cpu `cpu`; 0 if unknown. */
unsigned native_node_of_cpu(unsigned cpu);
/* The physical core (hwloc logical index of its CORE) holding OS cpu `cpu`;
 * -1 where hwloc gives it no core. */
int native_core_of_cpu(unsigned cpu);
bool native_cpu_exists(unsigned cpu);
void native_machine_free(void);

/* ---------------------------------------------------------------- pin.c */

/* -1 in a plan: not pinned (PIN_NONE); -2 - s: bound to socket s's PUs as
 * a set (PIN_NODE), the OS choosing among them. */
#define NATIVE_UNPINNED (-1)
#define NATIVE_ON_SOCKET(s) (-2 - (int)(s))
#define NATIVE_SOCKET_OF(plan) ((unsigned)(-2 - (plan)))

/* Checks a placement policy against the machine for up to max_threads
 * threads: 0, or -1 with one line in err. */
int native_pin_check(const struct wl_config *cfg, unsigned max_threads,
		     char *err, size_t errlen);
/* Thread i of --pin compact: the i-th PU of machine m in socket order (past
 * the last, again from the first). */
unsigned native_pin_compact(const struct native_machine *m, unsigned i);
/* cpus[i] = OS cpu of thread i for n threads, NATIVE_ON_SOCKET(s) or
 * NATIVE_UNPINNED. */
void native_pin_plan(const struct wl_config *cfg, unsigned n, int *cpus);
/* Binds the calling thread to OS cpu `cpu`: 0, or an errno value. */
int native_pin_self(unsigned cpu);
/* Binds the calling thread to the PUs of socket s as a set: 0, or an errno
 * value. */
int native_pin_self_socket(unsigned s);
/* futex_wait on word while it reads val (a private futex; it may return
 * early: callers check the word again), and futex_wake of one waiter on
 * it: ll_park and ll_unpark's (native/mem.c), and calibrate's wake. */
void native_futex_wait(int32_t *word, int32_t val);
void native_futex_wake(int32_t *word);
/* Binds the calling thread as a plan's entry says (nothing for
 * NATIVE_UNPINNED): 0, or an errno value. */
int native_pin_apply(int plan);
/* "cpu 3", "socket 1's cpus" or "any cpu": where a plan's entry binds. */
const char *native_pin_text(int plan, char *buf, size_t len);
const char *native_pin_policy_name(enum pin_policy p);

/* ----------------------------------------------------------------- vm.c */

/* --vm: the configuration fits this machine (every overcommit's cpus
 * exist): 0, or -1 with one line in err. */
int native_vm_check(const struct wl_config *cfg, char *err, size_t errlen);
/* cpus[i] for the n threads of a --vm run: thread i on the cpu of its
 * vCPU's pCPU, the run's pCPUs placed by the pin policy (none: compact). */
void native_vm_plan(const struct wl_run *run, int *cpus);
/* Around wl_thread_main in each thread of a --vm run. */
void native_vm_thread_begin(const struct wl_run *run, unsigned tid);
void native_vm_thread_end(const struct wl_run *run, unsigned tid);
/* After the run: what a process can see of it. */
void native_vm_fill(const struct wl_run *run, struct vm_counters *k);

/* ------------------------------------------------------------ oversub.c */

/* More threads (vm_pcpus: pCPUs) than the CPUs the placement gives them? */
bool native_oversubscribed(const struct wl_config *cfg, unsigned n, unsigned vm_pcpus);
/* Once per process: a line on stderr when a configuration of cfg does. */
void native_warn_oversubscribed(const struct wl_config *cfg);

/* ------------------------------------------------------------ backend.c */

/* The placement of the largest run so far (the last of equals), for the
 * environment: *n threads, cpus[i] the OS cpu of thread i. */
const unsigned *native_pin_map(unsigned *n);

#endif
