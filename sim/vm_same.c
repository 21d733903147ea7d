/*
 * sim/vm_same.c - --co-guests same: the host's other guests run the workload
 * too, each a copy of the one run on locks of its own (docs/vm.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "vm.h"
#include "vm_state.h"

/* --co-guests same makes every guest a copy of the one run: each runs V
 * threads, one a vCPU, so a run with co-guests must be of V threads. */
int vm_same_check(const struct wl_config *cfg, double x, char *err, size_t errlen)
{
	unsigned p, others;

	vm_layout(cfg->vm_vcpus, x, &p, &others);
	for (unsigned k = 0; vm_prm.same_guests && others && k < cfg->nthreads; k++)
		if (cfg->threads[k] != cfg->vm_vcpus) {
			snprintf(err, errlen, "--co-guests same --overcommit %g: --threads %u, where each "
				 "guest runs one thread a vCPU: --threads must be --vm's %u", x,
				 cfg->threads[k], cfg->vm_vcpus);
			return -1;
		}
	return 0;
}

/*
 * --co-guests same: the co-guests' vCPUs become threads of the run too,
 * each guest of V vCPUs on its own copy of the locks (its own memory):
 * the run's configuration is copied with the locks of every guest, and
 * its threads grow to every guest's vCPUs.  The run's figures are then
 * those of all guests together (docs/vm.md).
 */
static struct wl_config same_cfg;

int vm_expand_run(struct wl_run *run)
{
	const struct wl_config *cfg = run->cfg;
	unsigned np, others, total, guests;
	struct wl_thread *t;

	if (!vm_prm.same_guests || !run->vm_pcpus)
		return 0;
	vm_layout(cfg->vm_vcpus, run->overcommit, &np, &others);
	if (!others)
		return 0;
	if (run->nthreads != cfg->vm_vcpus)
		return -1;
	total = cfg->vm_vcpus + others;
	guests = (total + cfg->vm_vcpus - 1) / cfg->vm_vcpus;
	t = realloc(run->threads, total * sizeof(*t));
	if (!t)
		return -1;
	memset(t + run->nthreads, 0, (total - run->nthreads) * sizeof(*t));
	run->threads = t;
	run->nthreads = total;
	same_cfg = *cfg;
	same_cfg.group_threads = cfg->vm_vcpus;
	same_cfg.group_locks = cfg->locks;
	same_cfg.locks = cfg->locks * guests;
	run->cfg = &same_cfg;
	return 0;
}
