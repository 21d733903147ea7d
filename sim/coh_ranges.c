/*
 * sim/coh_ranges.c - the address ranges that give memory its home node and
 * its tag (lock, data, ctx, other): a set of disjoint intervals [lo, hi),
 * kept in a treap ordered by address.
 *
 * The model asks three things of it:
 *
 *   range_of_line   the lowest range overlapping a line (its home and tag)
 *   carve [lo, hi)  take the interval out: a range inside it leaves, one
 *                   across an end is clipped to what lies outside, and the
 *                   parts taken are handed back in address order
 *   insert          put ranges into a hole carve left
 *
 * A run of --locks N makes and frees 3N ranges or more, in the order the
 * host's allocator hands out addresses, which is not address order: each
 * operation costs O(log n) expected, where a sorted array moved half of
 * itself on each (a quadratic set-up: 45 s at --locks 65536).
 *
 * A node's priority is a hash of a counter, so that the tree's shape, like
 * everything else in a run, is the same from run to run; it only ever
 * changes the time an operation takes, never its answer.
 *
 *        (lo, hi, prio)         every key in the left subtree is below the
 *         /          \          node's lo, every key in the right above its
 *   (lower ranges) (higher)     hi; every priority in both below its own
 */
#include "coh_internal.h"

#include <stdlib.h>

#include <locklab/rng.h>

struct rnode {
	struct range r;
	uint64_t prio;
	struct rnode *left, *right;
};

static struct rnode *rnode_new(struct coh_model *m, const struct range *r)
{
	struct rnode *n = coh_xcalloc(1, sizeof(*n));

	n->r = *r;
	n->prio = mix64(++m->range_seq);
	return n;
}

static void rnode_free_all(struct rnode *n)
{
	while (n) {
		struct rnode *right = n->right;

		rnode_free_all(n->left);
		free(n);
		n = right;
	}
}

/* Split t into the ranges starting below key (*lt) and the rest (*ge). */
static void split(struct rnode *t, uintptr_t key, struct rnode **lt, struct rnode **ge)
{
	if (!t) {
		*lt = *ge = NULL;
	} else if (t->r.lo < key) {
		split(t->right, key, &t->right, ge);
		*lt = t;
	} else {
		split(t->left, key, lt, &t->left);
		*ge = t;
	}
}

/* Join a and b, every range of a below every range of b. */
static struct rnode *merge(struct rnode *a, struct rnode *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if (a->prio > b->prio) {
		a->right = merge(a->right, b);
		return a;
	}
	b->left = merge(a, b->left);
	return b;
}

static struct rnode *highest(struct rnode *t)
{
	while (t && t->right)
		t = t->right;
	return t;
}

/* The in-order ranges of t into out[*n...], clipped to end at hi; frees t. */
static void drain(struct rnode *t, uintptr_t hi, struct range *out, size_t *n)
{
	while (t) {
		struct rnode *right = t->right;

		drain(t->left, hi, out, n);
		out[*n] = t->r;
		if (out[*n].hi > hi)
			out[*n].hi = hi;
		(*n)++;
		free(t);
		t = right;
	}
}

static size_t count(const struct rnode *t)
{
	return t ? 1 + count(t->left) + count(t->right) : 0;
}

const struct range *coh_range_of_line(const struct coh_model *m, uintptr_t base)
{
	const struct rnode *t = m->ranges, *best = NULL;

	while (t) {
		if (t->r.hi > base) {
			best = t;
			t = t->left;
		} else {
			t = t->right;
		}
	}
	return best && best->r.lo < base + COH_LINE_SIZE ? &best->r : NULL;
}

struct range *coh_ranges_carve(struct coh_model *m, uintptr_t lo, uintptr_t hi, size_t *ncut)
{
	struct rnode *below, *inside, *above, *last, *across;
	struct range *cut, head = { 0 }, tail = { 0 };
	bool has_head = false, has_tail = false;

	split(m->ranges, lo, &below, &inside);
	split(inside, hi, &inside, &above);
	across = highest(below); /* the one range that may reach past lo */
	if (across && across->r.hi > lo) {
		head = across->r;
		head.lo = lo;
		has_head = true;
		if (across->r.hi > hi) { /* reaches past hi too: its top half stays */
			tail = across->r;
			tail.lo = hi;
			has_tail = true;
		}
		across->r.hi = lo;
	}
	last = highest(inside);
	if (last && last->r.hi > hi) {
		tail = last->r;
		tail.lo = hi;
		has_tail = true;
	}
	cut = coh_xcalloc(count(inside) + 1, sizeof(*cut));
	*ncut = 0;
	if (has_head) {
		cut[0] = head;
		if (cut[0].hi > hi)
			cut[0].hi = hi;
		*ncut = 1;
	}
	drain(inside, hi, cut, ncut);
	if (has_tail)
		above = merge(rnode_new(m, &tail), above);
	m->ranges = merge(below, above);
	return cut;
}

void coh_ranges_insert(struct coh_model *m, const struct range *r, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		struct rnode *below, *above;

		split(m->ranges, r[k].lo, &below, &above);
		m->ranges = merge(merge(below, rnode_new(m, &r[k])), above);
	}
}

void coh_ranges_free(struct coh_model *m)
{
	rnode_free_all(m->ranges);
	m->ranges = NULL;
}
