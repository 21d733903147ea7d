/*
 * tests/unit_stats.c - statistics against values computed by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <locklab/result.h>
#include <locklab/stats.h>
#include <locklab/workload.h>

static void summary_of_five_runs(void **state)
{
	/* 2, 4, 4, 4, 5: mean 19/5 = 3.8; deviations -1.8, .2, .2, .2, 1.2;
	 * squares 3.24 + 3*0.04 + 1.44 = 4.8; sample variance 4.8/4 = 1.2 */
	const double x[] = { 2, 4, 4, 4, 5 };
	struct ll_summary s;

	ll_summarize(x, 5, &s);
	assert_true(fabs(s.mean - 3.8) < 1e-12);
	assert_true(fabs(s.variance - 1.2) < 1e-12);
	assert_true(fabs(s.sigma - sqrt(1.2)) < 1e-12);
	assert_true(s.max == 5 && s.min == 2);
}

static void summary_of_one_run_has_no_variance(void **state)
{
	const double x[] = { 7 };
	struct ll_summary s;

	ll_summarize(x, 1, &s);
	assert_true(s.mean == 7 && s.max == 7 && s.min == 7);
	assert_true(isnan(s.variance) && isnan(s.sigma));
}

static void jain_index(void **state)
{
	const double equal[] = { 5, 5, 5, 5 };
	/* one of four gets everything: (x)^2 / (4 x^2) = 1/4 */
	const double one[] = { 0, 0, 9, 0 };
	/* 1,2,3: 36 / (3 * 14) = 6/7 */
	const double ramp[] = { 1, 2, 3 };

	assert_true(fabs(ll_jain(equal, 4) - 1.0) < 1e-12);
	assert_true(fabs(ll_jain(one, 4) - 0.25) < 1e-12);
	assert_true(fabs(ll_jain(ramp, 3) - 6.0 / 7.0) < 1e-12);
	assert_true(ll_jain(NULL, 0) == 1.0);
}

/* A run's spread of acquisitions over its threads; of guests on locks of
 * their own (--co-guests same), each guest's: two guests of four threads,
 * one fair and slower (its vCPUs had less of the host), one with a thread
 * left behind.  Over all eight, the slow guest's threads would read as
 * the lock's unfairness. */
static void spread_within_guests(void **state)
{
	static const uint64_t acq[] = { 10, 10, 10, 10, 100, 100, 100, 40 };
	struct wl_thread t[8];
	struct wl_config cfg;
	struct wl_run run;
	struct wl_spread s;
	const double fair = 1.0, left = 340.0 * 340.0 / (4 * 3.16e4); /* (sum)^2 / (n sum x^2) */

	memset(t, 0, sizeof(t));
	memset(&cfg, 0, sizeof(cfg));
	memset(&run, 0, sizeof(run));
	for (unsigned i = 0; i < 8; i++)
		t[i].acquisitions = acq[i];
	run.cfg = &cfg;
	run.threads = t;
	run.nthreads = 8;
	assert_int_equal(wl_thread_spread(&run, &s), 0); /* one machine, one lock */
	assert_int_equal(s.min, 10);
	assert_int_equal(s.max, 100);
	cfg.group_threads = 4;
	cfg.group_locks = 1;
	assert_int_equal(wl_thread_spread(&run, &s), 0);
	assert_int_equal(s.min, 40); /* the second guest's: 40 of 100 */
	assert_int_equal(s.max, 100);
	assert_true(fabs(s.jain - (fair + left) / 2) < 1e-12);
	assert_int_equal(s.starved, 0);
	assert_true(fabs(s.mean - 47.5) < 1e-12); /* the rest stays over every thread */
}

static void hist_exact_below_1024(void **state)
{
	struct ll_hist h;

	assert_int_equal(ll_hist_init(&h), 0);
	for (uint64_t v = 1; v <= 100; v++)
		ll_hist_add(&h, v);
	/* 1..100: p50 is the 50th value = 50; p99 the 99th = 99; mean 50.5 */
	assert_true(ll_hist_quantile(&h, 0.50) == 50.0);
	assert_true(ll_hist_quantile(&h, 0.99) == 99.0);
	assert_true(ll_hist_mean(&h) == 50.5);
	assert_true(h.max == 100 && h.min == 1 && h.count == 100);
	ll_hist_free(&h);
}

static void hist_relative_error_above_1024(void **state)
{
	struct ll_hist h;

	assert_int_equal(ll_hist_init(&h), 0);
	/* 1000 samples of 1,000,000 ns and one of 5,000,000 */
	for (int i = 0; i < 1000; i++)
		ll_hist_add(&h, 1000000);
	ll_hist_add(&h, 5000000);
	double p50 = ll_hist_quantile(&h, 0.5);
	/* bucket width is 1/128 of the octave's base: within 0.8% */
	assert_true(p50 <= 1000000.0 && p50 >= 1000000.0 * (1 - 1.0 / 128));
	assert_true(ll_hist_quantile(&h, 1.0) == 5000000.0);
	assert_true(h.max == 5000000);
	ll_hist_free(&h);
}

static void hist_merge_adds_counts(void **state)
{
	struct ll_hist a, b;

	assert_int_equal(ll_hist_init(&a), 0);
	assert_int_equal(ll_hist_init(&b), 0);
	ll_hist_add(&a, 10);
	ll_hist_add(&b, 30);
	ll_hist_add(&b, 20);
	ll_hist_merge(&a, &b);
	assert_true(a.count == 3 && a.sum == 60 && a.max == 30 && a.min == 10);
	assert_true(ll_hist_quantile(&a, 0.5) == 20.0);
	ll_hist_free(&a);
	ll_hist_free(&b);
}

static void atomic_write_replaces_whole(void **state)
{
	char path[] = "/tmp/locklab-unit-XXXXXX";
	int fd = mkstemp(path);
	char buf[64] = { 0 };
	FILE *f;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(write_file_atomic(path, "hello\n", 6), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, sizeof(buf), f), 6);
	fclose(f);
	assert_string_equal(buf, "hello\n");
	unlink(path);
	/* a directory that does not exist: fails, leaves nothing */
	assert_int_not_equal(write_file_atomic("/nonexistent-dir/x.csv", "a", 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(summary_of_five_runs),
		cmocka_unit_test(summary_of_one_run_has_no_variance),
		cmocka_unit_test(jain_index),
		cmocka_unit_test(spread_within_guests),
		cmocka_unit_test(hist_exact_below_1024),
		cmocka_unit_test(hist_relative_error_above_1024),
		cmocka_unit_test(hist_merge_adds_counts),
		cmocka_unit_test(atomic_write_replaces_whole),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
