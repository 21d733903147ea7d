/*
 * sim/smt.c - siblings share a core's issue bandwidth: local work
 * (ll_delay_ns) that overlaps a sibling's runs at smt.issue_share of the
 * core (topologies/README.md, "SMT").
 *
 * Each hardware thread keeps its latest delay [start, end) in run time.  A
 * delay that starts while a sibling's runs has its overlapping part
 * stretched by 1 / share; the sibling's delay, already under way, keeps its
 * end.  So two siblings that both run local work all the time each see
 * their delays stretched on part of the overlap (between 1 and 1 / share),
 * and a short delay inside a sibling's long one takes 1 / share as long.
 */
#include "sim.h"
#include "switches.h"

struct smt_delay {
	uint64_t base; /* sim.base_ps of the run it belongs to, + 1 */
	uint64_t start, end;
};

static struct smt_delay last[TOPO_MAX_CORES];

/* How much of [start, start + d) a sibling of core c is in delay. */
static uint64_t sibling_overlap(unsigned c, uint64_t start, uint64_t d)
{
	unsigned sib[TOPO_MAX_SMT], n = topo_siblings(&sim.topo, c, sib);
	uint64_t most = 0;

	for (unsigned i = 0; i < n; i++) {
		const struct smt_delay *x = &last[sib[i]];
		uint64_t end;

		if (x->base != sim.base_ps + 1 || x->end <= start || x->start > start)
			continue;
		end = x->end < start + d ? x->end : start + d;
		if (end - start > most)
			most = end - start;
	}
	return most;
}

uint64_t sim_smt_delay_ps(const struct sim_actor *a, uint64_t start_ps, uint64_t d_ps)
{
	const struct topo *t = &sim.topo;
	uint64_t o;

	if (!t->core_phys || t->smt_issue_share >= 1 || !d_ps)
		return d_ps;
	o = sibling_overlap(a->core, start_ps, d_ps);
	d_ps += (uint64_t)((double)o / t->smt_issue_share + 0.5) - o;
	last[a->core] = (struct smt_delay){ sim.base_ps + 1, start_ps, start_ps + d_ps };
	return d_ps;
}
