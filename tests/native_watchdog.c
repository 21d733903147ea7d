/*
 * tests/native_watchdog.c - a native run that stops making progress ends,
 * within its watchdog bound, with one line naming the lock and the stuck
 * threads; a healthy run under the same watchdog is not stopped, nor is a
 * run whose process was stopped (SIGSTOP) for longer than the bound.
 *
 * A sweep stops at a run the watchdog gave up on: its threads spin on, and
 * a later run would share the cpus with them.
 *
 * The stuck threads keep spinning until the process exits, so the healthy
 * run goes first and the stuck ones are the last things this program does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <locklab/backend.h>
#include <locklab/mem.h>

#include "../core/cli.h"
#include "../core/sweep.h"

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

static const char *bindir;
static struct wl_config cfg;
static struct wl_run run;

static int run_with_watchdog(const struct lock_algo *a, uint64_t *elapsed_ns)
{
	struct run_counters c;
	char err[256];

	wl_config_defaults(&cfg);
	wl_config_only(&cfg, a, 2);
	cfg.cs_ns = 0;
	cfg.ncs_ns = 0;
	cfg.duration_ms = 100;
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

static void pause_s(unsigned s)
{
	struct timespec ts = { .tv_sec = s };

	while (nanosleep(&ts, &ts))
		;
}

/* Stopped for 7 s under a 2 s watchdog: time in which the process did not
 * run is not time without progress. */
static void stopped_process_is_not_stalled(void **state)
{
	char path[1024], err[4096];
	int pe[2], st;
	ssize_t n;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/locklab-native", bindir);
	assert_int_equal(pipe(pe), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		freopen("/dev/null", "w", stdout);
		dup2(pe[1], 2);
		close(pe[0]);
		execl(path, path, "run", "--lock", "ticket", "--threads", "2", "--duration", "3000",
		      "--runs", "1", "--watchdog", "2000", (char *)NULL);
		_exit(127);
	}
	close(pe[1]);
	pause_s(1);
	assert_int_equal(kill(pid, SIGSTOP), 0);
	pause_s(7);
	assert_int_equal(kill(pid, SIGCONT), 0);
	n = read(pe[0], err, sizeof(err) - 1);
	err[n > 0 ? n : 0] = 0;
	close(pe[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("status %d after SIGSTOP 7 s / SIGCONT: %s", st, err);
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

/* healthy twice, then never-released twice: the sweep runs three, the
 * third fails, and the fourth is not run (its CSV has three rows). */
static void sweep_stops_at_left_threads(void **state)
{
	static struct cli_opts o;
	char err[512], path[] = "/tmp/locklab-watchdog-XXXXXX", csv[64], line[4096];
	char *argv[] = { "--lock", "ticket,ttas", "--threads", "2", "--runs", "2", "--duration",
			 "100", "--watchdog", "300", "--format", "csv", "--out", csv, NULL };
	unsigned rows = 0, failed = 0;
	FILE *f;

	assert_non_null(mkdtemp(path));
	snprintf(csv, sizeof(csv), "%s/sweep.csv", path);
	if (cli_parse_run(14, argv, &o, err, sizeof(err)))
		fail_msg("%s", err);
	o.cfg.algos[0] = &healthy;
	o.cfg.algos[1] = &never_released;
	assert_int_equal(sweep_run(&o), 3); /* a run failed */
	assert_true(backend_left_threads());
	f = fopen(csv, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (rows++ && strstr(line, "watchdog"))
			failed++;
	fclose(f);
	unlink(csv);
	rmdir(path);
	assert_int_equal(rows, 1 + 3);
	assert_int_equal(failed, 1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(healthy_run_is_not_stopped),
		cmocka_unit_test(stopped_process_is_not_stalled),
		cmocka_unit_test(sweep_stops_at_left_threads),
		cmocka_unit_test(stuck_run_is_named_and_ended),
	};
	char *args[] = { argv[0], NULL };
	int ac = 1;

	bindir = argc > 1 ? argv[1] : "bin";
	if (backend_init(&ac, args))
		return 1;
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	fflush(NULL);
	_exit(rc);
}
