/*
 * core/vm_place.c - which hardware threads an undercommitted guest's vCPUs
 * get on a machine with SMT (include/locklab/workload.h,
 * wl_vm_cores_first), for both backends.
 *
 * With more pCPUs than vCPUs, wl_vm_pcpu_of spreads the vCPUs over every
 * (pCPUs / vCPUs)-th pCPU of the placement.  The placements list one
 * hardware thread of each core of a socket before their siblings, so on an
 * SMT machine that stride can land two vCPUs on one core's siblings while
 * whole cores stay idle: 32 vCPUs on the 64 hardware threads of x7560-ht
 * took 16 cores, two vCPUs each.  A host's scheduler does not leave them
 * so: Linux's load balancer counts a core whose siblings are both busy
 * beside an idle core as an imbalance and moves one of them (the SMT
 * domain's SD_SHARE_CPUPOWER and SD_PREFER_SIBLING, kernel/sched/fair.c),
 * so busy vCPU threads end on cores of their own.
 *
 * The pCPUs are reordered (a permutation of their positions) so that the
 * positions wl_vm_pcpu_of picks hold, in order, first the hardware threads
 * that are the first of their core in the placement, then the siblings;
 * within each kind the picked positions keep their own pCPUs first.  So
 * without SMT nothing moves, nor when there are no more pCPUs than vCPUs.
 */
#include <stdint.h>
#include <stdlib.h>

#include <locklab/workload.h>

/* Is pCPU position p one that wl_vm_pcpu_of gives a vCPU (n > total)? */
static int picked(unsigned p, unsigned total, unsigned n)
{
	uint64_t i = ((uint64_t)p * total + n - 1) / n;

	return i < total && i * n / total == p;
}

int wl_vm_cores_first(unsigned n, unsigned total, const unsigned *phys, unsigned *perm)
{
	unsigned maxphys = 0, maxrank = 0, s = 0, free_pos = 0;
	unsigned *seen, *rank;

	for (unsigned p = 0; p < n; p++)
		perm[p] = p;
	if (n <= total || !total)
		return 0;
	for (unsigned p = 0; p < n; p++)
		if (phys[p] > maxphys)
			maxphys = phys[p];
	seen = calloc((size_t)maxphys + 1, sizeof(*seen));
	rank = malloc((size_t)n * sizeof(*rank));
	if (!seen || !rank) {
		free(seen);
		free(rank);
		return -1;
	}
	for (unsigned p = 0; p < n; p++) { /* 0: the first of its core */
		rank[p] = seen[phys[p]]++;
		if (rank[p] > maxrank)
			maxrank = rank[p];
	}
	/* The s-th pCPU of that order goes to the s-th picked position, and,
	 * past the picked ones, to the positions left, in order. */
	for (unsigned r = 0; r <= maxrank; r++)
		for (int want = 1; want >= 0; want--)
			for (unsigned p = 0; p < n; p++) {
				unsigned to;

				if (rank[p] != r || picked(p, total, n) != want)
					continue;
				if (s < total) {
					to = (unsigned)((uint64_t)s * n / total);
				} else {
					while (picked(free_pos, total, n))
						free_pos++;
					to = free_pos++;
				}
				perm[to] = p;
				s++;
			}
	free(seen);
	free(rank);
	return 0;
}
