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
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <locklab/workload.h>

/* Is pCPU position p one that wl_vm_pcpu_of gives a vCPU (n > total)? */
static bool picked(unsigned p, unsigned total, unsigned n)
{
	uint64_t i = ((uint64_t)p * total + n - 1) / n;

	return i < total && i * n / total == p;
}

/* What the two orders of the positions compare: each position's socket,
 * its pCPU's rank within its core (0: the first hardware thread of the
 * core in the placement), and whether wl_vm_pcpu_of picks it. */
struct keys {
	const unsigned *group, *rank;
	const bool *pick;
};

static int cmp_keys(unsigned a, unsigned b, const struct keys *k, bool by_rank)
{
	if (k->group[a] != k->group[b])
		return k->group[a] < k->group[b] ? -1 : 1;
	if (by_rank && k->rank[a] != k->rank[b])
		return k->rank[a] < k->rank[b] ? -1 : 1;
	if (k->pick[a] != k->pick[b])
		return k->pick[a] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The slots: a socket's picked positions, then its others, in order. */
static int by_slot(const void *a, const void *b, void *k)
{
	return cmp_keys(*(const unsigned *)a, *(const unsigned *)b, k, false);
}

/* What fills them: a socket's pCPUs first of their core, then siblings;
 * of each rank the picked positions' own first. */
static int by_rank(const void *a, const void *b, void *k)
{
	return cmp_keys(*(const unsigned *)a, *(const unsigned *)b, k, true);
}

int wl_vm_cores_first(unsigned n, unsigned total, const unsigned *phys, const unsigned *group,
		      unsigned *perm)
{
	unsigned maxphys = 0, *seen, *rank, *slot, *fill;
	bool *pick;
	int rc = -1;

	for (unsigned p = 0; p < n; p++)
		perm[p] = p;
	if (n <= total || !total)
		return 0;
	for (unsigned p = 0; p < n; p++)
		maxphys = phys[p] > maxphys ? phys[p] : maxphys;
	seen = calloc((size_t)maxphys + 1, sizeof(*seen));
	rank = malloc((size_t)n * sizeof(*rank));
	slot = malloc((size_t)n * sizeof(*slot));
	fill = malloc((size_t)n * sizeof(*fill));
	pick = malloc((size_t)n * sizeof(*pick));
	if (seen && rank && slot && fill && pick) {
		struct keys k = { group, rank, pick };

		for (unsigned p = 0; p < n; p++) {
			rank[p] = seen[phys[p]]++;
			pick[p] = picked(p, total, n);
			slot[p] = fill[p] = p;
		}
		/* both orders go socket by socket, so a socket's slots are filled
		 * with its own pCPUs */
		qsort_r(slot, n, sizeof(*slot), by_slot, &k);
		qsort_r(fill, n, sizeof(*fill), by_rank, &k);
		for (unsigned j = 0; j < n; j++)
			perm[slot[j]] = fill[j];
		rc = 0;
	}
	free(seen);
	free(rank);
	free(slot);
	free(fill);
	free(pick);
	return rc;
}
