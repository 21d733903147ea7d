/*
 * native/oversub.c - does a run put more threads than CPUs?
 *
 * A thread that waits for a CPU looks, in the figures, like a thread that
 * waits for the lock: such runs are said so once on stderr before the sweep
 * and marked in the output (the oversubscribed column, a `*` in the table).
 * The placement decides: n threads pinned to fewer than n distinct CPUs
 * share them; unpinned threads share the machine's PUs.  In a --vm run the
 * vCPUs share their pCPUs on purpose, so there it is the pCPUs that count.
 */
#include <stdlib.h>
#include <string.h>

#include "native.h"

/* Distinct CPUs of a plan of n entries (an unpinned one may use any PU,
 * one bound to a socket any of that socket's). */
static unsigned plan_cpus(const struct native_machine *m, const int *cpus, unsigned n)
{
	unsigned distinct = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned j = 0;

		if (cpus[i] == NATIVE_UNPINNED)
			return m->npus;
		if (cpus[i] < 0)
			return m->sockets[NATIVE_SOCKET_OF(cpus[i])].npus; /* one socket: node:N */
		while (j < i && cpus[j] != cpus[i])
			j++;
		distinct += j == i;
	}
	return distinct;
}

/* The CPUs k threads (or a --vm run's k pCPUs) use under cfg's placement. */
static unsigned cpus_used(const struct wl_config *cfg, unsigned k, bool vm)
{
	const struct native_machine *m = native_machine();
	struct wl_config c = *cfg;
	unsigned used;
	int *cpus;

	if (!m)
		return k;
	if (vm && c.pin == PIN_NONE)
		c.pin = PIN_COMPACT; /* as native_vm_plan places pCPUs */
	if (vm && c.pin == PIN_NODE)
		c.pin = PIN_SOCKET;
	cpus = calloc(k ? k : 1, sizeof(*cpus));
	if (!cpus)
		return k < m->npus ? k : m->npus;
	native_pin_plan(&c, k, cpus);
	used = plan_cpus(m, cpus, k);
	free(cpus);
	return used;
}

bool native_oversubscribed(const struct wl_config *cfg, unsigned n, unsigned vm_pcpus)
{
	unsigned k = vm_pcpus ? vm_pcpus : n;

	return k > cpus_used(cfg, k, vm_pcpus != 0);
}

static void warn(unsigned k, unsigned used, const char *what)
{
	fprintf(stderr, "locklab-native: warning: %u %s on %u CPU%s: oversubscribed runs "
			"(marked *) also wait for a CPU, not only for the lock\n",
		k, what, used, used == 1 ? "" : "s");
}

/* One line on stderr, once per process, for the first configuration of
 * cfg that oversubscribes. */
void native_warn_oversubscribed(const struct wl_config *cfg)
{
	static bool warned;
	unsigned n = cfg->vm_vcpus ? cfg->novercommit : cfg->nthreads;

	for (unsigned i = 0; i < n && !warned; i++) {
		bool vm = cfg->vm_vcpus != 0;
		unsigned k = vm ? wl_vm_pcpus(cfg->vm_vcpus, cfg->overcommit[i]) : cfg->threads[i];
		unsigned used = cpus_used(cfg, k, vm);

		if (k <= used)
			continue;
		warn(k, used, vm ? "pCPUs of --vm" : !strcmp(wl_count_opt(cfg), "--procs") ?
			      "processes" : "threads");
		warned = true;
	}
}
