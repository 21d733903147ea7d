/*
 * native/vm.c - `run --vm V --overcommit X` on real hardware: the native
 * counterpart of the simulator's virtual machine (docs/vm.md).
 *
 * There is no hypervisor here: the V threads play the vCPUs and the
 * machine's scheduler plays the hypervisor.  The run gets P = V / X cpus
 * (placed by --pin as P threads would be; --pin none places them as
 * compact does, node:N as socket:N, wrapping over the socket's PUs when
 * the pCPUs outnumber them), and thread i is bound to the cpu of pCPU
 * i mod P (one each, spread, when P > V, the spread's pCPUs on cores of
 * their own within each socket where the machine has SMT:
 * wl_vm_cores_first), as the simulator maps vCPUs.  With X > 1 the
 * threads outnumber their cpus, and the kernel time-slices them: a holder
 * or a waiter loses its cpu for real.
 *
 * What a process can see of that, per run:
 *
 *   preemptions   involuntary context switches of the threads while in
 *                 the workload loop (getrusage RUSAGE_THREAD, ru_nivcsw)
 *   halts         ll_park calls that slept in the futex
 *   kicks         ll_unpark calls that woke a sleeping thread
 *   wake latency  from such an unpark until the sleeper ran again
 *
 * Which phase a thread was in when it was switched out, and pause-loop
 * exits, are the hypervisor's knowledge: those columns stay empty.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "native.h"

static uint64_t nivcsw_at_start[NATIVE_MAX_THREADS];
static uint64_t nivcsw_in_loop[NATIVE_MAX_THREADS];

static uint64_t thread_nivcsw(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return (uint64_t)ru.ru_nivcsw;
}

int native_vm_check(const struct wl_config *cfg, char *err, size_t errlen)
{
	const struct native_machine *m = native_machine();

	if (!cfg->vm_vcpus)
		return 0;
	for (unsigned i = 0; i < cfg->novercommit; i++) {
		unsigned p = wl_vm_pcpus(cfg->vm_vcpus, cfg->overcommit[i]);

		if (wl_vm_ratio_check(cfg->vm_vcpus, cfg->vm_vcpus, p, cfg->overcommit[i], err,
				      errlen))
			return -1;
		if (m && p > m->npus) {
			snprintf(err, errlen,
				 "--overcommit %g%s: %u vCPUs need %u cpus; this machine has %u",
				 cfg->overcommit[i], cfg->overcommit_default ? " (the default)" : "",
				 cfg->vm_vcpus, p, m->npus);
			return -1;
		}
	}
	return 0;
}

/* The socket of OS cpu `cpu` (its index among the machine's sockets), or -1. */
static int socket_of_cpu(const struct native_machine *m, int cpu)
{
	for (unsigned s = 0; s < m->nsockets; s++)
		for (unsigned k = 0; k < m->sockets[s].npus; k++)
			if ((int)m->sockets[s].pus[k] == cpu)
				return (int)s;
	return -1;
}

/* An undercommitted guest's vCPUs on cores of their own where the machine
 * has SMT (wl_vm_cores_first): pc[0..np) reordered within each socket.  Left
 * as it is when a pCPU is not one cpu of the machine, when a cpu comes twice
 * (pCPUs wrapped over a socket's PUs), when hwloc gives a cpu no core or
 * socket, or when the scratch cannot be had. */
static void cores_first(int *pc, unsigned np, unsigned nv)
{
	const struct native_machine *m = native_machine();
	unsigned *phys = calloc(np, sizeof(*phys)), *socket = calloc(np, sizeof(*socket));
	unsigned *perm = calloc(np, sizeof(*perm));
	int *was = calloc(np, sizeof(*was));
	bool ok = m && phys && socket && perm && was;

	for (unsigned k = 0; ok && k < np; k++) {
		int core = pc[k] >= 0 ? native_core_of_cpu((unsigned)pc[k]) : -1;
		int s = pc[k] >= 0 ? socket_of_cpu(m, pc[k]) : -1;

		ok = core >= 0 && s >= 0;
		for (unsigned j = 0; ok && j < k; j++)
			ok = was[j] != pc[k];
		phys[k] = (unsigned)core;
		socket[k] = (unsigned)s;
		was[k] = pc[k];
	}
	if (ok && !wl_vm_cores_first(np, nv, phys, socket, perm))
		for (unsigned k = 0; k < np; k++)
			pc[k] = was[perm[k]];
	free(phys);
	free(socket);
	free(perm);
	free(was);
}

void native_vm_plan(const struct wl_run *run, int *cpus)
{
	struct wl_config cfg = *run->cfg;
	unsigned np = run->vm_pcpus, nv = run->cfg->vm_vcpus;
	int *pc = calloc(np ? np : 1, sizeof(*pc));

	if (!pc)
		return; /* the plan for the threads stays as it was */
	if (cfg.pin == PIN_NONE)
		cfg.pin = PIN_COMPACT;
	if (cfg.pin == PIN_NODE)
		cfg.pin = PIN_SOCKET; /* the pCPUs on that socket, one each */
	native_pin_plan(&cfg, np, pc);
	cores_first(pc, np, nv);
	for (unsigned i = 0; i < run->nthreads; i++)
		cpus[i] = pc[wl_vm_pcpu_of(i, nv, nv, np)];
	free(pc);
}

void native_vm_thread_begin(const struct wl_run *run, unsigned tid)
{
	if (run->vm_pcpus && tid < NATIVE_MAX_THREADS)
		nivcsw_at_start[tid] = thread_nivcsw();
}

void native_vm_thread_end(const struct wl_run *run, unsigned tid)
{
	if (run->vm_pcpus && tid < NATIVE_MAX_THREADS)
		nivcsw_in_loop[tid] = thread_nivcsw() - nivcsw_at_start[tid];
}

void native_vm_fill(const struct wl_run *run, struct vm_counters *k)
{
	memset(k, 0, sizeof(*k));
	if (!run->vm_pcpus)
		return;
	k->has_vm = true;
	k->overcommit = run->overcommit;
	k->pcpus = run->vm_pcpus;
	for (unsigned i = 0; i < run->nthreads && i < NATIVE_MAX_THREADS; i++) {
		uint64_t h, kk, w, wns;

		native_park_stats(i, &h, &kk, &w, &wns);
		k->preemptions += nivcsw_in_loop[i];
		k->halts += h;
		k->kicks += kk;
		k->wakes += w;
		k->wake_ps += wns * 1000;
	}
}
