/*
 * tests/native_watchdog.c - a native run that stops making progress ends,
 * within its watchdog bound, with one line naming the lock and the stuck
 * threads; a healthy run under the same watchdog is not stopped.
 *
 * The stuck threads keep spinning until the process exits, so the healthy
 * run goes first and the stuck one is the last thing this program does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <locklab/backend.h>
#include <locklab/mem.h>

static void t_init(void *l, unsigned n)
{
}

static void t_lock(void *l, void *c)
{
	uint32_t *w = l;

	while (ll_xchg(w, 1u, LL_ACQUIRE))
		ll_cpu_relax();
}

static void t_unlock(void *l, void *c)
{
	ll_store((uint32_t *)l, 0u, LL_RELEASE);
}

static void t_unlock_never(void *l, void *c)
{
}

static const struct lock_algo healthy = {
	.name = "healthy", .desc = "tas", .kind = LOCK_MUTEX, .lock_size = 64, .ctx_size = 64,
	.init = t_init, .lock = t_lock, .unlock = t_unlock,
};
static const struct lock_algo never_released = {
	.name = "never-released", .desc = "unlock forgets", .kind = LOCK_MUTEX, .lock_size = 64,
	.ctx_size = 64, .init = t_init, .lock = t_lock, .unlock = t_unlock_never,
};

static struct wl_config cfg;
static struct wl_run run;

static int run_with_watchdog(const struct lock_algo *a, uint64_t *elapsed_ns)
{
	struct run_counters c;
	char err[256];

	memset(&cfg, 0, sizeof(cfg));
	cfg.algos[0] = a;
	cfg.nalgos = 1;
	cfg.threads[0] = 2;
	cfg.nthreads = 1;
	cfg.cs_lines = 1;
	cfg.locks = 1;
	cfg.runs = 1;
	cfg.seed = 1;
	cfg.duration_ms = 100;
	cfg.pin = PIN_COMPACT;
	cfg.pin_text = "compact";
	assert_int_equal(backend_parse_option("--watchdog", "300", err, sizeof(err)), 1);
	assert_int_equal(backend_check(&cfg, err, sizeof(err)), 0);
	memset(&run, 0, sizeof(run));
	run.cfg = &cfg;
	run.algo = a;
	run.nthreads = 2;
	run.seed = 1;
	run.threads = calloc(2, sizeof(*run.threads));
	assert_non_null(run.threads);
	uint64_t t0 = ll_now_ns();
	int rc = backend_run(&run, &c);

	*elapsed_ns = ll_now_ns() - t0;
	return rc || run.failed;
}

static void healthy_run_is_not_stopped(void **state)
{
	uint64_t ns;

	assert_int_equal(run_with_watchdog(&healthy, &ns), 0);
	wl_teardown(&run);
	free(run.threads);
}

static void stuck_run_is_named_and_ended(void **state)
{
	uint64_t ns;

	assert_int_not_equal(run_with_watchdog(&never_released, &ns), 0);
	fprintf(stderr, "watchdog fired after %.2f s: %s\n", ns / 1e9, run.failure);
	assert_non_null(strstr(run.failure, "watchdog"));
	assert_non_null(strstr(run.failure, "never-released"));
	assert_non_null(strchr(run.failure, '\n') == NULL ? run.failure : NULL);
	/* 300 ms of no progress, polled every ~50 ms; generous for a loaded machine */
	assert_true(ns < 5000000000ull);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(healthy_run_is_not_stopped),
		cmocka_unit_test(stuck_run_is_named_and_ended),
	};
	char *args[] = { argv[0], NULL };
	int ac = 1;

	if (backend_init(&ac, args))
		return 1;
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	fflush(NULL);
	_exit(rc);
}
