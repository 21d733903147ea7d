/*
 * tests/unit_handoff.c - the per-thread handoff map (core/handoff.c): every
 * giver's count, and how many of them were inside one socket, come back,
 * whatever the order and however far it grew,
 * and an empty histogram merges as nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include <locklab/stats.h>
#include <locklab/workload.h>

static const struct wl_handoff_pair *pair_of(const struct wl_handoff_map *m, unsigned from)
{
	for (unsigned i = 0; i < m->cap; i++)
		if (m->slot[i].from == from + 1)
			return &m->slot[i];
	return NULL;
}

static uint64_t count_of(const struct wl_handoff_map *m, unsigned from)
{
	const struct wl_handoff_pair *p = pair_of(m, from);

	return p ? p->n : 0;
}

static void counts_by_giver(void **state)
{
	struct wl_handoff_map m = { 0 };
	uint64_t total = 0;

	/* giver g hands over g % 7 + 1 times, givers interleaved, every
	 * other handoff inside one socket */
	for (unsigned round = 0; round < 7; round++)
		for (unsigned g = 0; g < 8192; g += 3)
			if (round < g % 7 + 1)
				assert_int_equal(wl_handoff_add(&m, g, round % 2 == 0), 0);
	assert_int_equal(m.used, (8192 + 2) / 3);
	assert_true(2 * m.used <= m.cap);
	for (unsigned g = 0; g < 8192; g++) {
		uint64_t n = count_of(&m, g);

		assert_int_equal(n, g % 3 ? 0 : g % 7 + 1);
		if (n)
			assert_int_equal(pair_of(&m, g)->local, (n + 1) / 2);
		total += n;
	}
	for (unsigned i = 0; i < m.cap; i++)
		total -= m.slot[i].n;
	assert_int_equal(total, 0);
	wl_handoff_free(&m);
	assert_null(m.slot);
	assert_int_equal(m.cap, 0);
}

static void unallocated_histogram_merges_as_nothing(void **state)
{
	struct ll_hist into, never = { 0 };

	assert_int_equal(ll_hist_init(&into), 0);
	ll_hist_add(&into, 5);
	ll_hist_merge(&into, &never);
	assert_int_equal(into.count, 1);
	assert_int_equal(into.min, 5);
	assert_int_equal(into.max, 5);
	ll_hist_free(&never);
	ll_hist_free(&into);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts_by_giver),
		cmocka_unit_test(unallocated_histogram_merges_as_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
