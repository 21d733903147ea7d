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
 * so: within a socket, Linux's load balancer counts a core whose siblings
 * are both busy beside an idle core as an imbalance and moves one of them
 * (the SMT domain's SD_SHARE_CPUPOWER, SD_PREFER_SIBLING at the level above,
 * kernel/sched/fair.c), so busy vCPU threads end on cores of their own.
 *
 * Socket by socket (the group of the pCPU the placement put at a position),
 * the pCPUs are reordered so that the positions wl_vm_pcpu_of picks hold, in
 * order, first the hardware threads that are the first of their core in the
 * placement, then the siblings; within each kind the picked positions keep
 * their own pCPUs first.  No vCPU changes socket, so each socket keeps the
 * vCPUs the stride gave it; without SMT nothing moves, nor when there are
 * no more pCPUs than vCPUs.
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

/* The reorder within one group g: its picked positions, in order, take its
 * pCPUs by rank (first of their core, then siblings), picked ones first;
 * its other positions the rest, in order. */
static void group_cores_first(unsigned g, unsigned n, unsigned total, const unsigned *group,
			      const unsigned *rank, unsigned maxrank, unsigned *perm)
{
	unsigned next_picked = 0, next_other = 0;

	for (unsigned r = 0; r <= maxrank; r++)
		for (int want = 1; want >= 0; want--)
			for (unsigned p = 0; p < n; p++) {
				unsigned *next;

				if (group[p] != g || rank[p] != r || picked(p, total, n) != want)
					continue;
				/* the group's next picked position, or past them its next other */
				next = &next_picked;
				while (*next < n && (group[*next] != g || !picked(*next, total, n)))
					(*next)++;
				if (*next >= n) {
					next = &next_other;
					while (group[*next] != g || picked(*next, total, n))
						(*next)++;
				}
				perm[(*next)++] = p;
			}
}

int wl_vm_cores_first(unsigned n, unsigned total, const unsigned *phys, const unsigned *group,
		      unsigned *perm)
{
	unsigned maxphys = 0, maxrank = 0, maxgroup = 0;
	unsigned *seen, *rank;

	for (unsigned p = 0; p < n; p++)
		perm[p] = p;
	if (n <= total || !total)
		return 0;
	for (unsigned p = 0; p < n; p++) {
		maxphys = phys[p] > maxphys ? phys[p] : maxphys;
		maxgroup = group[p] > maxgroup ? group[p] : maxgroup;
	}
	seen = calloc((size_t)maxphys + 1, sizeof(*seen));
	rank = malloc((size_t)n * sizeof(*rank));
	if (!seen || !rank) {
		free(seen);
		free(rank);
		return -1;
	}
	for (unsigned p = 0; p < n; p++) { /* 0: the first of its core */
		rank[p] = seen[phys[p]]++;
		maxrank = rank[p] > maxrank ? rank[p] : maxrank;
	}
	for (unsigned g = 0; g <= maxgroup; g++)
		group_cores_first(g, n, total, group, rank, maxrank, perm);
	free(seen);
	free(rank);
	return 0;
}
