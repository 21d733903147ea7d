/*
 * sim/alloc.c - memory the simulator hands out (ll_alloc_on, ll_free,
 * ll_mem_tag): each allocation registers its home node and tag with the
 * coherence model, and is recorded so that a report can name a line by
 * what holds it ("lock+0", "ctx of t3+8") instead of an address, which
 * differs between runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/mem.h>
#include <locklab/workload.h>

#include "sim.h"

void sim_allocs_reset(void)
{
	sim.nallocs = 0;
	sim.alloc_seq = 0;
}

/* The newest allocation holding addr (an address freed and handed out
 * again resolves to its new owner). */
static struct sim_alloc *alloc_find(uintptr_t addr)
{
	for (size_t i = sim.nallocs; i-- > 0;) {
		struct sim_alloc *al = &sim.allocs[i];

		if (addr >= al->base && addr < al->base + al->size)
			return al;
	}
	return NULL;
}

static void alloc_record(uintptr_t base, size_t size, unsigned node)
{
	if (sim.nallocs == sim.cap_allocs) {
		size_t cap = sim.cap_allocs ? 2 * sim.cap_allocs : 256;
		struct sim_alloc *n = realloc(sim.allocs, cap * sizeof(*n));

		if (!n)
			return; /* only names in reports are lost */
		sim.allocs = n;
		sim.cap_allocs = cap;
	}
	sim.allocs[sim.nallocs++] = (struct sim_alloc){
		.base = base, .size = size, .seq = sim.alloc_seq++, .tag = LL_TAG_OTHER, .node = node,
	};
}

size_t sim_round_line(size_t size)
{
	return (size + COH_LINE_SIZE - 1) & ~(size_t)(COH_LINE_SIZE - 1);
}

void *ll_alloc_on(size_t size, unsigned node)
{
	size_t sz = sim_round_line(size ? size : 1);
	void *p;

	sim_settle_pending(sim.cur); /* allocations in the order of their instants */
	p = aligned_alloc(COH_LINE_SIZE, sz);
	if (!p)
		return NULL;
	memset(p, 0, sz);
	if (node >= ll_nr_nodes())
		node = 0;
	if (sim.model)
		coh_set_home(sim.model, (uintptr_t)p, sz, node, COH_TAG_OTHER);
	alloc_record((uintptr_t)p, sz, node);
	return p;
}

void ll_free(void *p, size_t size)
{
	if (!p)
		return;
	sim_settle_pending(sim.cur);
	if (sim.model)
		coh_forget(sim.model, (uintptr_t)p, sim_round_line(size ? size : 1));
	free(p);
}

void ll_mem_tag(const void *p, size_t size, int tag)
{
	struct sim_alloc *al = alloc_find((uintptr_t)p);

	if (tag < 0 || tag >= COH_NTAGS || !size)
		return;
	sim_settle_pending(sim.cur);
	if (al)
		al->tag = tag;
	if (sim.model)
		coh_set_tag(sim.model, (uintptr_t)p, size, (enum coh_tag)tag);
}

static const char *const tag_names[] = { "memory", "lock", "data", "ctx" };

/* A line named by what holds it and the offset: "lock+0", "ctx of t3+8",
 * "data of lock 2+64" - never an address, which differs between runs. */
void sim_describe_line(uintptr_t addr, char *buf, size_t len)
{
	const struct wl_run *run = sim.run;
	struct sim_alloc *al;

	if (run && run->slots) {
		const struct lock_algo *algo = run->algo;
		size_t lock_sz = algo->lock_size + (size_t)run->nthreads * algo->lock_size_per_cpu;
		size_t ctx_sz = sim_round_line(algo->ctx_size ? algo->ctx_size : 1);
		unsigned nl = run->cfg->locks;

		for (unsigned l = 0; l < nl; l++) {
			uintptr_t lk = (uintptr_t)run->slots[l].lock;
			uintptr_t d = (uintptr_t)run->slots[l].data;
			char which[24] = "";

			if (nl > 1)
				snprintf(which, sizeof(which), " %u", l);
			if (lk && addr >= lk && addr < lk + sim_round_line(lock_sz)) {
				snprintf(buf, len, "lock%s+%zu", which, (size_t)(addr - lk));
				return;
			}
			if (d && addr >= d && addr < d + run->cfg->cs_lines * sizeof(struct wl_data_line)) {
				snprintf(buf, len, "data%s+%zu", which, (size_t)(addr - d));
				return;
			}
		}
		for (unsigned t = 0; t < run->nthreads; t++) {
			for (unsigned l = 0; run->threads[t].ctx && l < nl; l++) {
				uintptr_t c = (uintptr_t)run->threads[t].ctx[l];

				if (c && addr >= c && addr < c + ctx_sz) {
					snprintf(buf, len, "ctx of t%u+%zu", t, (size_t)(addr - c));
					return;
				}
			}
		}
	}
	al = alloc_find(addr);
	if (al) {
		snprintf(buf, len, "%s #%u+%zu", tag_names[al->tag & 3], al->seq, (size_t)(addr - al->base));
		return;
	}
	snprintf(buf, len, "a line outside locklab's allocations");
}
