/*
 * tests/both_mutex.c - every mutex of the catalogue keeps mutual exclusion
 * when driven by the real workload, in whichever backend this program is
 * built for; and the workload's checker does catch a lock that does not
 * exclude (so the first part cannot pass vacuously).
 *
 * Native: 2 threads pinned on 2 cores, and 8 threads unpinned on 2 cores
 * (oversubscribed: holders get preempted).  Simulator: 4 and 8 threads on
 * the 4socket machine, 100 runs each, every run with its own seed and
 * exponential non-critical delays, so the interleavings differ (20 runs
 * under the sanitizers: tl_sanitized_share()).
 */
#include <stdio.h>
#include <string.h>

#include <locklab/lock.h>

#include "testlib.h"

static void base_config(struct wl_config *c)
{
	tl_config(c, "4socket", 12345);
}

/* One run; returns non-zero when it failed, with the reason copied to why. */
static int run_once(struct wl_config *c, const struct lock_algo *a, unsigned n, unsigned idx,
		    char *why, size_t len, uint64_t *acq)
{
	struct wl_run run;
	struct run_counters cnt;
	char err[512] = "";
	int failed = tl_run(c, a, n, idx, &run, &cnt, err, sizeof(err));

	assert_true(run.threads != NULL); /* the configuration was accepted */
	snprintf(why, len, "%s", run.failure);
	*acq = tl_acquisitions(&run);
	tl_done(&run);
	return failed;
}

static void every_mutex_excludes(void **state)
{
	struct wl_config c;
	char why[512];
	uint64_t acq;
	unsigned counts[2] = { 2, 8 };
	unsigned seeds = tl_is_sim() ? tl_sanitized_share(100, 5) : 1;

	for (size_t i = 0; i < lock_catalogue_size(); i++) {
		const struct lock_algo *a = lock_catalogue_get(i);

		if (a->kind != LOCK_MUTEX)
			continue;
		for (unsigned k = 0; k < 2; k++) {
			base_config(&c);
			if (tl_is_sim()) {
				counts[0] = 4;
				c.ops = 20;
			} else {
				/* Oversubscribed FIFO locks hand over only when the
				 * scheduler runs the next waiter: bound by time. */
				c.ops = counts[k] > 2 ? 0 : 20000;
				c.duration_ms = counts[k] > 2 ? 150 : 0;
				tl_set_pin(&c, counts[k] > 2 ? PIN_NONE : PIN_COMPACT);
			}
			for (unsigned s = 0; s < seeds; s++) {
				int f = run_once(&c, a, counts[k], s, why, sizeof(why), &acq);

				if (f || (c.ops && acq != c.ops * counts[k]) || acq == 0) {
					fprintf(stderr, "%s t=%u seed#%u: %s (acquisitions %llu)\n",
						a->name, counts[k], s, f ? why : "count mismatch",
						(unsigned long long)acq);
					fail();
				}
			}
		}
	}
}

/* A "lock" that never waits: the checker must catch it. */
static const struct lock_algo open_door = {
	.name = "open-door",
	.desc = "excludes nothing (test only)",
	.kind = LOCK_MUTEX,
	.lock_size = 64,
	.init = tl_nop_init,
	.lock = tl_nop,
	.unlock = tl_nop,
};

static void checker_catches_a_broken_lock(void **state)
{
	struct wl_config c;
	char why[512];
	uint64_t acq;

	base_config(&c);
	c.ops = tl_is_sim() ? 50 : 200000;
	c.cs_ns = 200;
	c.ncs_ns = 0;
	c.ncs_exp = false;
	int f = run_once(&c, &open_door, 2, 0, why, sizeof(why), &acq);

	assert_true(f);
	assert_non_null(strstr(why, "mutual exclusion violated"));
	assert_non_null(strstr(why, "open-door"));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(checker_catches_a_broken_lock),
		cmocka_unit_test(every_mutex_excludes),
	};
	if (tl_backend_start(argv[0], "4socket"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
