/*
 * sim/topo_index.c - finds an element of the machine description (a socket
 * or a socket link) by its id without scanning them all: an open-addressing
 * hash table of indices into the element array.
 *
 * The id is the first member of each element, so an element is found from
 * the array's base and its stride; the array may move between calls (it
 * grows as the file is read), so the base is passed on every call.
 */
#include "topo_internal.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_id(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static const char *id_at(const void *base, size_t stride, unsigned i)
{
	return (const char *)base + (size_t)i * stride;
}

/* Slots hold index + 1; 0 is empty. */
static void put(unsigned *slot, size_t cap, const char *id, unsigned i)
{
	size_t k = hash_id(id) & (cap - 1);

	while (slot[k])
		k = (k + 1) & (cap - 1);
	slot[k] = i + 1;
}

static void grow(struct topo_index *ix, const void *base, size_t stride)
{
	size_t cap = ix->cap ? ix->cap * 2 : 64;
	unsigned *slot = topo_calloc(cap, sizeof(*slot));

	for (size_t k = 0; k < ix->cap; k++)
		if (ix->slot[k])
			put(slot, cap, id_at(base, stride, ix->slot[k] - 1), ix->slot[k] - 1);
	free(ix->slot);
	ix->slot = slot;
	ix->cap = cap;
}

void topo_index_add(struct topo_index *ix, const void *base, size_t stride, unsigned i)
{
	if (2 * (ix->n + 1) > ix->cap)
		grow(ix, base, stride);
	put(ix->slot, ix->cap, id_at(base, stride, i), i);
	ix->n++;
}

/* The first element added with this id, or UINT_MAX. */
unsigned topo_index_find(const struct topo_index *ix, const void *base, size_t stride, const char *id)
{
	if (!ix->cap)
		return UINT_MAX;
	for (size_t k = hash_id(id) & (ix->cap - 1); ix->slot[k]; k = (k + 1) & (ix->cap - 1))
		if (strcmp(id_at(base, stride, ix->slot[k] - 1), id) == 0)
			return ix->slot[k] - 1;
	return UINT_MAX;
}

void topo_index_free(struct topo_index *ix)
{
	free(ix->slot);
	memset(ix, 0, sizeof(*ix));
}

/* arr (holding n elements of `size`, room for *cap) with room for one
 * more: it doubles, so that reading n elements costs O(n). */
void *topo_grow(void *arr, unsigned n, unsigned *cap, size_t size)
{
	if (n < *cap)
		return arr;
	*cap = *cap ? *cap * 2 : 16;
	arr = realloc(arr, (size_t)*cap * size);
	if (!arr)
		abort();
	return arr;
}
