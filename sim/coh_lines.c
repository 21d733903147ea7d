/*
 * sim/coh_lines.c - the line table of the coherence model: where a line's
 * directory entry lives, and which home and tag its address has.
 *
 * Lines live in a pool of fixed-size records (they never move, so the user
 * slot's address is stable) indexed by an open-addressing hash table keyed
 * by line address (linear probing, backward-shift deletion).  Homes and tags
 * come from the address ranges of coh_ranges.c and are stamped on a line when
 * it is created, and again when a range over it changes.
 */
#include "coh_internal.h"

#include <stdlib.h>

#define CHUNK_SHIFT 10
#define CHUNK_LINES (1u << CHUNK_SHIFT)

void *coh_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		abort();
	return p;
}

void *coh_xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		abort();
	return p;
}

/* ---------------------------------------------------------------- line pool */

static inline struct line *line_at(const struct coh_model *m, uint32_t idx)
{
	return (struct line *)(m->chunks[idx >> CHUNK_SHIFT] +
			       (size_t)(idx & (CHUNK_LINES - 1)) * m->line_bytes);
}

static uint32_t pool_take(struct coh_model *m)
{
	if (m->nfree)
		return m->free_idx[--m->nfree];
	if ((m->nalloc >> CHUNK_SHIFT) == m->nchunks) {
		m->chunks = coh_xrealloc(m->chunks, (m->nchunks + 1) * sizeof(*m->chunks));
		m->chunks[m->nchunks++] = coh_xcalloc(CHUNK_LINES, m->line_bytes);
	}
	return m->nalloc++;
}

static void pool_give(struct coh_model *m, uint32_t idx)
{
	if (m->nfree == m->free_cap) {
		m->free_cap = m->free_cap ? 2 * m->free_cap : 64;
		m->free_idx = coh_xrealloc(m->free_idx, m->free_cap * sizeof(*m->free_idx));
	}
	m->free_idx[m->nfree++] = idx;
}

/* ---------------------------------------------------------------- hash table */

static inline uint64_t slot_home(const struct coh_model *m, uint64_t key)
{
	return (key * 0x9E3779B97F4A7C15ull) >> (64 - m->bits);
}

/* Slot holding key, or the empty slot where it would go. */
static inline uint64_t slot_find(const struct coh_model *m, uint64_t key)
{
	uint64_t i = slot_home(m, key);

	while (m->slots[i].idx && m->slots[i].key != key)
		i = (i + 1) & m->mask;
	return i;
}

static void table_alloc(struct coh_model *m, unsigned bits)
{
	m->bits = bits;
	m->mask = (1ull << bits) - 1;
	m->slots = coh_xcalloc(m->mask + 1, sizeof(*m->slots));
}

static void table_grow(struct coh_model *m)
{
	struct slot *old = m->slots;
	uint64_t n = m->mask + 1;

	table_alloc(m, m->bits + 1);
	for (uint64_t i = 0; i < n; i++)
		if (old[i].idx)
			m->slots[slot_find(m, old[i].key)] = old[i];
	free(old);
}

static void slot_delete(struct coh_model *m, uint64_t i)
{
	uint64_t j = i;

	for (;;) {
		j = (j + 1) & m->mask;
		if (!m->slots[j].idx)
			break;
		uint64_t k = slot_home(m, m->slots[j].key);
		/* Leave j where it is if its home lies cyclically in (i, j]. */
		bool stays = i <= j ? (k > i && k <= j) : (k > i || k <= j);
		if (!stays) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].idx = 0;
}

struct line *coh_line_lookup(const struct coh_model *m, uintptr_t addr)
{
	uint64_t i = slot_find(m, (uint64_t)addr >> COH_LINE_SHIFT);

	return m->slots[i].idx ? line_at(m, m->slots[i].idx - 1) : NULL;
}

/* The home and tag a line at addr has, whether it is in the table or not. */
void coh_addr_home_tag(const struct coh_model *m, uintptr_t addr, unsigned *home,
		       enum coh_tag *tag)
{
	const struct range *r = coh_range_of_line(m, addr & ~(uintptr_t)(COH_LINE_SIZE - 1));

	*home = r ? r->node % m->t->nsockets : 0;
	*tag = r ? r->tag : COH_TAG_OTHER;
}

static void line_stamp(const struct coh_model *m, struct line *l)
{
	unsigned home;
	enum coh_tag tag;

	coh_addr_home_tag(m, l->base, &home, &tag);
	l->home = (uint16_t)home;
	l->tag = (uint8_t)tag;
}

/* ---------------------------------------------------------------- lines */

/* The line at addr, created uncached (I, no owner, no holder) if new. */
struct line *coh_line_get(struct coh_model *m, uintptr_t addr)
{
	uint64_t key = (uint64_t)addr >> COH_LINE_SHIFT;
	uint64_t i = slot_find(m, key);
	struct line *l;

	if (m->slots[i].idx)
		return line_at(m, m->slots[i].idx - 1);
	if (2 * (uint64_t)(m->nlive + 1) > m->mask + 1) {
		table_grow(m);
		i = slot_find(m, key);
	}
	uint32_t idx = pool_take(m);
	l = line_at(m, idx);
	memset(l, 0, m->line_bytes);
	l->base = (uintptr_t)(key << COH_LINE_SHIFT);
	l->owner = -1;
	l->prev_owner = -1;
	l->state = L_I;
	l->holder = NO_SOCKET;
	line_stamp(m, l);
	m->slots[i].key = key;
	m->slots[i].idx = idx + 1;
	m->nlive++;
	return l;
}

static void line_remove(struct coh_model *m, uintptr_t base)
{
	uint64_t i = slot_find(m, (uint64_t)base >> COH_LINE_SHIFT);

	if (!m->slots[i].idx)
		return;
	free(line_at(m, m->slots[i].idx - 1)->wait);
	pool_give(m, m->slots[i].idx - 1);
	slot_delete(m, i);
	m->nlive--;
}

/*
 * The bases of the live lines overlapping [lo, hi), into a fresh array or
 * NULL when none live (walking the addresses or the table, whichever is
 * shorter: an address costs a lookup, a table slot a test).
 */
static uintptr_t *lines_in(const struct coh_model *m, uintptr_t lo, uintptr_t hi, size_t *n)
{
	uintptr_t first = lo & ~(uintptr_t)(COH_LINE_SIZE - 1);
	uint64_t span = (uint64_t)((hi - 1 - first) >> COH_LINE_SHIFT) + 1;
	uintptr_t *out;

	*n = 0;
	if (!m->nlive)
		return NULL;
	if (span <= m->nlive || span * 16 <= m->mask + 1) {
		out = coh_xcalloc(span, sizeof(*out));
		for (uint64_t k = 0; k < span; k++) {
			uintptr_t b = first + (uintptr_t)(k << COH_LINE_SHIFT);
			if (coh_line_lookup(m, b))
				out[(*n)++] = b;
		}
		return out;
	}
	out = coh_xcalloc(m->nlive, sizeof(*out));
	for (uint64_t i = 0; i <= m->mask; i++) {
		if (!m->slots[i].idx)
			continue;
		uintptr_t b = line_at(m, m->slots[i].idx - 1)->base;
		if (b + COH_LINE_SIZE > lo && b < hi)
			out[(*n)++] = b;
	}
	return out;
}

static void restamp(struct coh_model *m, uintptr_t lo, uintptr_t hi)
{
	size_t n;
	uintptr_t *b = lines_in(m, lo, hi, &n);

	for (size_t k = 0; k < n; k++)
		line_stamp(m, coh_line_lookup(m, b[k]));
	free(b);
}

void coh_lines_init(struct coh_model *m)
{
	table_alloc(m, 10);
}

void coh_lines_free(struct coh_model *m)
{
	for (uint64_t i = 0; i <= m->mask; i++)
		if (m->slots[i].idx)
			free(line_at(m, m->slots[i].idx - 1)->wait);
	for (unsigned i = 0; i < m->nchunks; i++)
		free(m->chunks[i]);
	free(m->chunks);
	free(m->free_idx);
	free(m->slots);
	coh_ranges_free(m);
}

/* ---------------------------------------------------------------- homes, tags */

void coh_set_home(struct coh_model *m, uintptr_t addr, size_t size, unsigned node, enum coh_tag tag)
{
	struct range r = { addr, addr + size, node, tag };
	size_t ncut;

	if (size == 0)
		return;
	free(coh_ranges_carve(m, r.lo, r.hi, &ncut));
	coh_ranges_insert(m, &r, 1);
	restamp(m, r.lo, r.hi);
}

void coh_set_tag(struct coh_model *m, uintptr_t addr, size_t size, enum coh_tag tag)
{
	uintptr_t lo = addr, hi = addr + size, at_addr = lo;
	struct range *cut, *out;
	size_t ncut, nout = 0;

	if (size == 0)
		return;
	cut = coh_ranges_carve(m, lo, hi, &ncut);
	out = coh_xcalloc(2 * ncut + 1, sizeof(*out));
	for (size_t k = 0; k < ncut; k++) {
		if (cut[k].lo > at_addr)
			out[nout++] = (struct range){ at_addr, cut[k].lo, 0, tag };
		out[nout] = cut[k];
		out[nout++].tag = tag;
		at_addr = cut[k].hi;
	}
	if (at_addr < hi)
		out[nout++] = (struct range){ at_addr, hi, 0, tag };
	coh_ranges_insert(m, out, nout);
	free(cut);
	free(out);
	restamp(m, lo, hi);
}

/* A line wholly inside the range that nobody uses leaves the table; the
 * others stay, uncached, with the home and tag they have now. */
void coh_forget(struct coh_model *m, uintptr_t addr, size_t size)
{
	uintptr_t lo = addr, hi = addr + size;
	size_t ncut, n;
	uintptr_t *b;

	if (size == 0)
		return;
	free(coh_ranges_carve(m, lo, hi, &ncut));
	b = lines_in(m, lo, hi, &n);
	for (size_t k = 0; k < n; k++) {
		struct line *l = coh_line_lookup(m, b[k]);
		bool inside = b[k] >= lo && b[k] + COH_LINE_SIZE <= hi;
		if (inside && !l->user && !l->nwait) {
			line_remove(m, b[k]);
			continue;
		}
		line_invalidate_all(m, l);
		line_stamp(m, l);
	}
	free(b);
}

void **coh_line_user(struct coh_model *m, uintptr_t addr)
{
	return &coh_line_get(m, addr)->user;
}
