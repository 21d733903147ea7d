/*
 * sim/place.c - where the simulated threads run: the placement policies on
 * the topology's cores, and the checks of a configuration against the
 * machine (backend_check).
 *
 * Placement (cores are host indexes of the topology):
 *   compact   fill socket 0, then 1, ...
 *   scatter   round-robin over sockets
 *   socket:N  only the cores of socket N, thread i on its i-th
 *   list:a,b  thread i on core list[i]
 *   none      as an OS would: a fresh seeded draw per run, one thread per
 *             physical core first (sim/sched_noise.c, docs/variance.md)
 *   node:N    as none, within socket N's cores: the threads bound to that
 *             socket as a set (numactl --cpunodebind=N), placed and moved
 *             among its cores
 *
 * In a virtual machine (--vm, sim/vm.h) the policy places the run's
 * physical CPUs (none as compact, node:N as socket:N), and each thread
 * (vCPU) goes to its pCPU's core: several actors then share a core, and
 * the hypervisor of sim/vm.c decides which of them runs.
 */
#include <stdio.h>

#include <locklab/backend.h>

#include "sched_noise.h"
#include "report/report.h"
#include "sim.h"
#include "storebuf.h"
#include "switches.h"
#include "vm.h"

static unsigned socket_cores(unsigned s)
{
	unsigned n = 0;

	for (unsigned c = 0; c < sim.topo.ncores; c++)
		n += sim.topo.core_socket[c] == s;
	return n;
}

/* How the command that runs the threads shares cpus among them: said where
 * a --pin list names a cpu twice (sim_set_cpu_share). */
static const char *cpu_share = "under --vm, --overcommit shares them";

void sim_set_cpu_share(const char *how)
{
	cpu_share = how;
}

static int check_list(const struct wl_config *cfg, char *err, size_t errlen)
{
	for (unsigned i = 0; i < cfg->pin_list_len; i++) {
		if (cfg->pin_list[i] >= sim.topo.ncores) {
			snprintf(err, errlen, "--pin list: cpu %u is not a core of topology %s (0..%u)",
				 cfg->pin_list[i], sim.topo.name, sim.topo.ncores - 1);
			return -1;
		}
		for (unsigned j = 0; j < i; j++)
			if (cfg->pin_list[j] == cfg->pin_list[i]) {
				snprintf(err, errlen, "--pin list: cpu %u appears twice (the simulator runs one "
					 "thread a cpu; %s)", cfg->pin_list[i], cpu_share);
				return -1;
			}
	}
	return 0;
}

/* --vm: the physical CPUs of every overcommit must be cores of the machine
 * (they are what the placement places); the vCPUs may outnumber them. */
static int check_vm(const struct wl_config *cfg, unsigned room, char *err, size_t errlen,
		    unsigned *maxp)
{
	*maxp = 0;
	for (unsigned i = 0; i < cfg->novercommit; i++) {
		unsigned p, others;

		vm_layout(cfg->vm_vcpus, cfg->overcommit[i], &p, &others);
		if (p > room) {
			char cpus[96];

			snprintf(err, errlen,
				 "--overcommit %g%s: %u vCPUs need %u physical cpus; topology %s has %s%s",
				 cfg->overcommit[i], cfg->overcommit_default ? " (the default)" : "",
				 cfg->vm_vcpus, p, sim.topo.name,
				 topo_cpus_text(&sim.topo, room, cpus, sizeof(cpus)),
				 cfg->pin == PIN_SOCKET || cfg->pin == PIN_NODE ? " on that socket" : "");
			return -1;
		}
		if (p > *maxp)
			*maxp = p;
	}
	return 0;
}

unsigned sim_pin_cpus(const struct wl_config *cfg)
{
	bool on_socket = cfg->pin == PIN_SOCKET || cfg->pin == PIN_NODE;

	if (on_socket && cfg->pin_socket < sim.topo.nsockets)
		return socket_cores(cfg->pin_socket);
	return sim.topo.ncores;
}

int backend_check(const struct wl_config *cfg, char *err, size_t errlen)
{
	unsigned maxt = 0, room;
	char cpus[96], machine[sizeof(sim.topo.name) + 16];
	bool on_socket = cfg->pin == PIN_SOCKET || cfg->pin == PIN_NODE;

	if (sim_load_topo(sim_topo_of(cfg), err, errlen))
		return -1;
	if (vm_check(cfg, err, errlen) || noise_check(cfg, err, errlen) ||
	    sim_switch_check(cfg, err, errlen) || report_check(cfg, err, errlen))
		return -1;
	if (!sim.watchdog_ps && cfg->ops) {
		snprintf(err, errlen, "--watchdog 0: an --ops run ends only when its threads are done, "
			 "so a lock that livelocks would never end it; give a bound in ms");
		return -1;
	}
	if (cfg->vm_vcpus && sb_model_given() && sb_model() != TOPO_MM_SC) {
		snprintf(err, errlen, "--memory-model %s: --vm runs are sequentially consistent "
			 "(docs/storebuf.md)", sb_model_name(sb_model()));
		return -1;
	}
	for (unsigned i = 0; i < cfg->nthreads; i++)
		if (cfg->threads[i] > maxt)
			maxt = cfg->threads[i];
	room = sim_pin_cpus(cfg);
	if (cfg->vm_vcpus && check_vm(cfg, room, err, errlen, &maxt))
		return -1;
	if (on_socket) {
		if (cfg->pin_socket >= sim.topo.nsockets) {
			snprintf(err, errlen, "--pin %s:%u: topology %s has %u sockets (0..%u)",
				 cfg->pin == PIN_NODE ? "node" : "socket", cfg->pin_socket,
				 sim.topo.name, sim.topo.nsockets, sim.topo.nsockets - 1);
			return -1;
		}
		if (maxt > room) {
			snprintf(err, errlen, "%s %u: socket %u of topology %s has %s",
				 wl_count_opt(cfg), maxt, cfg->pin_socket, sim.topo.name,
				 topo_cpus_text(&sim.topo, room, cpus, sizeof(cpus)));
			return -1;
		}
	}
	if (maxt > sim.topo.ncores) {
		snprintf(err, errlen, "%s %u: topology %s has %s", wl_count_opt(cfg), maxt,
			 sim.topo.name, topo_cpus_text(&sim.topo, sim.topo.ncores, cpus, sizeof(cpus)));
		return -1;
	}
	if (cfg->pin == PIN_LIST) {
		if (check_list(cfg, err, errlen))
			return -1;
		if (wl_pin_list_check(cfg, maxt, err, errlen))
			return -1;
	}
	snprintf(machine, sizeof(machine), "topology %s", sim.topo.name);
	return wl_lock_home_check(cfg, sim.topo.nsockets, machine, err, errlen);
}

void backend_warn(const struct wl_config *cfg)
{
	vm_warn(cfg);
}

void backend_warn_results(const struct wl_config *cfg, const struct output_set *o)
{
	vm_warn_results(cfg, o);
}

/* ------------------------------------------------------------ placement */

/* The k-th core (in index order) of socket s, or -1. */
static int nth_core_of(unsigned s, unsigned k)
{
	for (unsigned c = 0; c < sim.topo.ncores; c++)
		if (sim.topo.core_socket[c] == s && k-- == 0)
			return (int)c;
	return -1;
}

static int place_scatter(unsigned n, unsigned *cores)
{
	unsigned used[TOPO_MAX_SOCKETS] = { 0 };
	unsigned s = 0, i = 0, tries = 0;

	while (i < n) {
		int c = nth_core_of(s, used[s]);

		if (c >= 0) {
			cores[i++] = (unsigned)c;
			used[s]++;
			tries = 0;
		} else if (++tries > sim.topo.nsockets) {
			return -1;
		}
		s = (s + 1) % sim.topo.nsockets;
	}
	return 0;
}

static int place_compact(unsigned n, unsigned *cores)
{
	unsigned i = 0;

	for (unsigned s = 0; s < sim.topo.nsockets && i < n; s++)
		for (unsigned c = 0; c < sim.topo.ncores && i < n; c++)
			if (sim.topo.core_socket[c] == s)
				cores[i++] = c;
	return i == n ? 0 : -1;
}

void sim_set_core(struct sim_actor *a, unsigned c)
{
	a->core = c;
	a->node = sim.topo.core_socket[c];
	sim.moves++;
	if (sim.run) {
		sim.run->threads[a->idx].cpu = c;
		sim.run->threads[a->idx].node = a->node;
	}
}

static int place(const struct wl_run *run, unsigned n, unsigned *cores)
{
	const struct wl_config *cfg = run->cfg;

	switch (cfg->pin) {
	case PIN_SCATTER:
		return place_scatter(n, cores);
	case PIN_NODE:
		if (!run->vm_pcpus) {
			noise_place(n, cores, run->seed, (int)cfg->pin_socket);
			return 0;
		}
		/* a VM's pCPUs on that socket: */
		__attribute__((fallthrough));
	case PIN_SOCKET:
		for (unsigned i = 0; i < n; i++) {
			int c = nth_core_of(cfg->pin_socket, i);

			if (c < 0)
				return -1;
			cores[i] = (unsigned)c;
		}
		return 0;
	case PIN_LIST:
		if (cfg->pin_list_len < n)
			return -1;
		for (unsigned i = 0; i < n; i++) {
			if (cfg->pin_list[i] >= sim.topo.ncores)
				return -1;
			cores[i] = cfg->pin_list[i];
		}
		return 0;
	case PIN_NONE:
		if (run->vm_pcpus)
			return place_compact(n, cores);
		noise_place(n, cores, run->seed, -1);
		return 0;
	case PIN_COMPACT:
	default:
		return place_compact(n, cores);
	}
}

/* An undercommitted guest's vCPUs on cores of their own where the machine
 * has SMT (wl_vm_cores_first): pcores[0..n) reordered. */
static int cores_first(unsigned *pcores, unsigned n, unsigned total)
{
	static unsigned phys[WL_MAX_THREADS], socket[WL_MAX_THREADS], perm[WL_MAX_THREADS],
		was[WL_MAX_THREADS];

	for (unsigned k = 0; k < n; k++) {
		phys[k] = topo_phys(&sim.topo, pcores[k]);
		socket[k] = sim.topo.core_socket[pcores[k]];
		was[k] = pcores[k];
	}
	if (wl_vm_cores_first(n, total, phys, socket, perm))
		return -1;
	for (unsigned k = 0; k < n; k++)
		pcores[k] = was[perm[k]];
	return 0;
}

/* Thread i's core: placed by the policy, or, in a virtual machine, the
 * core of its vCPU's pCPU (the policy places the pCPUs). */
int sim_place_threads(struct wl_run *run, unsigned *cores)
{
	const struct wl_config *cfg = run->cfg;
	unsigned pcores[WL_MAX_THREADS];
	unsigned n = run->nthreads, others = 0;

	if (run->vm_pcpus)
		vm_layout(cfg->vm_vcpus, run->overcommit, &n, &others);
	if (run->nthreads == 0 || run->nthreads > WL_MAX_THREADS || n > sim.topo.ncores ||
	    place(run, n, pcores))
		return -1;
	if (run->vm_pcpus && cores_first(pcores, n, cfg->vm_vcpus + others))
		return -1;
	for (unsigned i = 0; i < run->nthreads; i++)
		cores[i] = run->vm_pcpus ? pcores[wl_vm_pcpu_of(i, cfg->vm_vcpus, cfg->vm_vcpus + others, n)]
					 : pcores[i];
	return 0;
}
