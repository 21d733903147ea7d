/*
 * tests/native_sample.c - timing a sample of the acquisitions (--time-every).
 *
 * With K = 1 every counted acquisition is timed and has its wait recorded,
 * as the harness always did.  With K = 16 every acquisition is still
 * counted, and about one in 16 is timed: the number timed is binomial
 * (acquisitions, 1/16) and must fall within 5 standard deviations of its
 * mean.  A duration run still stops on time, and the exclusion checker,
 * which needs no clock, still catches a lock that excludes nobody.
 */
#include <math.h>

#include "testlib.h"

#define OPS 40000
#define DURATION_MS 100

static struct wl_config cfg;

static void config(unsigned time_every)
{
	tl_config(&cfg, NULL, 7);
	cfg.time_every = time_every;
	cfg.ops = OPS;
}

static const struct lock_algo *ttas(void)
{
	const struct lock_algo *a = lock_find("ttas");

	assert_non_null(a);
	return a;
}

static void every_wait_is_timed_at_k1(void **state)
{
	struct wl_run run;
	struct run_counters c;

	config(1);
	tl_run_ok(&cfg, ttas(), 2, 0, &run, &c);
	for (unsigned i = 0; i < run.nthreads; i++) {
		const struct wl_thread *t = &run.threads[i];

		assert_int_equal(t->acquisitions, OPS);
		assert_int_equal(t->timed, t->acquisitions);
		assert_int_equal(t->wait.count, t->acquisitions);
	}
	tl_done(&run);
}

/* Timed acquisitions of n at rate 1/k: within 5 sigma of n/k. */
static void assert_binomial(uint64_t timed, uint64_t n, unsigned k)
{
	double p = 1.0 / k, mean = (double)n * p, sd = sqrt((double)n * p * (1 - p));

	print_message("    %llu of %llu timed, expected %.0f +- %.0f\n", (unsigned long long)timed,
		      (unsigned long long)n, mean, 5 * sd);
	assert_true(fabs((double)timed - mean) <= 5 * sd);
}

static void one_in_k_is_timed(void **state)
{
	struct wl_run run;
	struct run_counters c;
	uint64_t timed = 0, n = 0;

	config(16);
	tl_run_ok(&cfg, ttas(), 2, 0, &run, &c);
	for (unsigned i = 0; i < run.nthreads; i++) {
		const struct wl_thread *t = &run.threads[i];

		assert_int_equal(t->acquisitions, OPS);
		assert_int_equal(t->wait.count, t->timed);
		timed += t->timed;
		n += t->acquisitions;
	}
	assert_binomial(timed, n, 16);
	tl_done(&run);
}

static void duration_run_stops_on_time(void **state)
{
	struct wl_run run;
	struct run_counters c;
	uint64_t n, late = 200ull * 1000000;

	config(16);
	cfg.ops = 0;
	cfg.duration_ms = DURATION_MS;
	tl_run_ok(&cfg, ttas(), 2, 0, &run, &c);
	n = tl_acquisitions(&run);
	assert_true(n > 0);
	assert_int_equal(run.stop_ns - run.start_ns, DURATION_MS * 1000000ull);
	for (unsigned i = 0; i < run.nthreads; i++) {
		const struct wl_thread *t = &run.threads[i];

		print_message("    thread %u left %.1f ms after the end\n", i,
			      ((double)t->finish_ns - (double)run.end_ns) / 1e6);
		assert_true(t->finish_ns < run.end_ns + late);
		assert_true(t->timed < t->acquisitions);
		/* the timed ones, and at most one censored wait */
		assert_true(t->wait.count >= t->timed && t->wait.count <= t->timed + 1);
	}
	tl_done(&run);
}

static const struct lock_algo no_exclusion = {
	.name = "none", .desc = "excludes nobody (test only)", .kind = LOCK_MUTEX,
	.lock_size = sizeof(struct tl_word_lock), .init = tl_nop_init, .lock = tl_nop,
	.unlock = tl_nop,
};

static void checker_needs_no_timing(void **state)
{
	struct wl_run run;
	struct run_counters c;
	char err[256];

	config(1u << 20);
	cfg.ops = 2000000;
	cfg.cs_ns = 200;
	assert_int_not_equal(tl_run(&cfg, &no_exclusion, 2, 0, &run, &c, err, sizeof(err)), 0);
	assert_non_null(strstr(run.failure, "mutual exclusion violated"));
	tl_done(&run);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_wait_is_timed_at_k1),
		cmocka_unit_test(one_in_k_is_timed),
		cmocka_unit_test(duration_run_stops_on_time),
		cmocka_unit_test(checker_needs_no_timing),
	};

	if (tl_backend_start(argv[0], NULL))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
