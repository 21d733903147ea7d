/*
 * bench/sim_bench.c - the simulator's performance, as ratios measured in
 * one run (`scons bench`; argv[1] = the bin/ directory).
 *
 *  1. Engine overhead: simulator events (hand-overs from one actor to
 *     another, sim/turns.c) per wall second of a locklab run (mcs, 16
 *     threads, 4socket) against a bare loop of the same turns in the same
 *     process: as many actors, each only sleeping for pseudo-random
 *     10-200 ns so that the events fall at distinct instants, as the
 *     simulator's do, with no model and no workload.  Rounds alternate
 *     the two; the ratio is of the totals, and is the share of the run's
 *     wall time its hand-overs took.  Target >= 0.9.  The same
 *     actors sleeping as SimGrid sleeps give what a turn costs beside a
 *     SimGrid sleep (`sim_bench BINDIR overhead` runs this line alone).
 *  2. Events per acquisition of parked-waiter locks (mcs, ticket) at
 *     critical sections of 100 ns, 1 us and 10 us: a wait costs events per
 *     write of the line, never per spin, so they must not grow with the
 *     section's length.  Target: largest / smallest <= 1.5.
 *  3. Wall time of the default sweep `scons sim TOPO=4socket` (every mutex,
 *     threads 1..32) in one process (--jobs 1), its table's lockstep probes
 *     included.  Target < 60 s.
 *  4. A large machine: MCS at 4096 threads on uv4096 (4096 cores), --ops
 *     100: wall time and the child's maximum resident set.  Targets < 10 s
 *     and < 512 MiB.
 *  5. TTAS at 4096 threads on uv4096 for 2 ms simulated: wall time.
 *     Target < 60 s.  Lines 4 and 5 time the one run: --lockstep-probe off
 *     (TTAS's table would add a probe, one more such run).
 *  6. The default sweep with --jobs 2 against --jobs 1, each twice in the
 *     order 1 2 2 1: the ratio of the wall times' sums (target <= 0.6 on two
 *     or more CPUs) and whether the CSVs are the same byte for byte (they
 *     must be); then what two CPUs of the machine gave, before and after:
 *     two busy processes at once against one alone (1.00 where two CPUs are
 *     free, 2.00 where they share one); `sim_bench BINDIR jobs` runs this
 *     line alone.
 *  7. The default sweep's runs in this process: simulated accesses (the
 *     coherence model's, hits and misses) per CPU second of this process
 *     (user + system: the machine may be shared), target >= 2.5 M; and
 *     simulator events per access, target <= 0.7, then per access by kind
 *     (enum sim_event_kind in sim/sim.h: what each sleep, block or resume
 *     was for).  Then the same runs again (not timed) with every access
 *     made by its own thread, every miss waiting for its completion in
 *     place (sim.wait_every_completion, sim/memops.c): their events per
 *     access, and whether every run's
 *     results, all but the event count, are the same (they must be).
 *
 * `sim_bench BINDIR accesses` runs 7 alone.
 *
 * Each line ends "target met" or "target missed"; the exit status is 0
 * unless something failed to run.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <simgrid/engine.h>

#include <locklab/backend.h>
#include <locklab/rng.h>
#include <locklab/workload.h>

#include "../core/topodirs.h"
#include "../sim/sim.h"

#define ROUNDS 3
#define BARE_ACTORS 16

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void config(struct wl_config *cfg, const struct lock_algo *a, unsigned threads, uint64_t cs_ns,
		   uint64_t duration_ms, uint64_t ops)
{
	wl_config_defaults(cfg);
	wl_config_only(cfg, a, threads);
	cfg->cs_ns = cs_ns;
	cfg->duration_ms = duration_ms;
	cfg->ops = ops;
}

/* What a run found, all but its events, folded into one word. */
static uint64_t fold(uint64_t h, uint64_t v)
{
	return mix64(h ^ (v + 0x9e3779b97f4a7c15ull));
}

static uint64_t results_print(const struct wl_run *run, const struct run_counters *c)
{
	const struct sim_counters *s = &c->sim;
	uint64_t h = 0;
	const uint64_t v[] = { s->misses, s->lock_invalidations, s->lock_misses, s->node_misses,
			       s->data_misses, s->other_misses, s->remote_transfers,
			       s->line_queue_ps, s->busiest_link_msgs, s->accesses, run->stop_ns };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		h = fold(h, v[i]);
	for (unsigned i = 0; i < SIM_CSV_CLASSES; i++)
		h = fold(h, s->transfers_by_class[i]);
	for (unsigned i = 0; i < run->nthreads; i++) {
		const struct wl_thread *t = &run->threads[i];

		h = fold(fold(fold(h, t->acquisitions), t->acquisitions_after), t->handoffs);
		h = fold(fold(fold(h, t->wait.sum), t->wait.max), t->finish_ns);
	}
	return h;
}

static uint64_t last_print; /* results_print of the last locklab_run */

/* One locklab run; returns 0 and its events and acquisitions. */
static int locklab_run(const struct wl_config *cfg, uint64_t *events, uint64_t *acq)
{
	struct wl_run run;
	struct run_counters c;
	int rc;

	memset(&run, 0, sizeof(run));
	memset(&c, 0, sizeof(c));
	run.cfg = cfg;
	run.algo = cfg->algos[0];
	run.nthreads = cfg->threads[0];
	run.seed = cfg->seed;
	run.threads = calloc(run.nthreads, sizeof(*run.threads));
	if (!run.threads)
		return -1;
	rc = backend_run(&run, &c);
	if (rc)
		fprintf(stderr, "sim_bench: %s\n", run.failure);
	*events = c.sim.events;
	last_print = results_print(&run, &c);
	*acq = 0;
	for (unsigned i = 0; i < run.nthreads; i++)
		*acq += run.threads[i].acquisitions + run.threads[i].acquisitions_after;
	wl_teardown(&run);
	free(run.threads);
	return rc;
}

/* ------------------------------------------------ 1. engine overhead */

static long bare_events;
static unsigned bare_started;

/* The next of a pseudo-random sequence of 10-200 ns. */
static uint64_t bare_step_ps(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return (10 + (*x >> 33) % 191) * 1000;
}

static void bare_sleeper(int argc, char **argv)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * ++bare_started;

	for (long i = 0; i < bare_events; i++)
		sg_actor_sleep_until(simgrid_get_clock() + (double)bare_step_ps(&x) * 1e-12);
}

/* As many actors as the locklab run, each only sleeping, as SimGrid
 * sleeps: events per wall second. */
static double sleep_rate(uint64_t events)
{
	double t0;

	bare_events = (long)(events / BARE_ACTORS) + 1;
	for (int i = 0; i < BARE_ACTORS; i++)
		sg_actor_create("bare", sim.hosts[i % sim.topo.ncores], bare_sleeper, 0, NULL);
	t0 = wall_now();
	simgrid_run();
	return (double)bare_events * BARE_ACTORS / (wall_now() - t0);
}

static void bare_turner(void *arg)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * (uintptr_t)arg;

	for (long i = 0; i < bare_events; i++)
		sim_sleep_until(sim.cur, sim.now_ps + bare_step_ps(&x), SIM_EV_PAY);
}

/* The same actors sleeping through the simulator's own turns
 * (sim/turns.c), without the coherence model or a workload: events
 * (hand-overs) per wall second, or -1. */
static double turn_rate(uint64_t events)
{
	unsigned cores[BARE_ACTORS];
	double t0;

	for (unsigned i = 0; i < BARE_ACTORS; i++)
		cores[i] = i % sim.topo.ncores;
	bare_events = (long)(events / BARE_ACTORS) + 1;
	if (sim_begin(BARE_ACTORS, cores))
		return -1;
	for (unsigned i = 0; i < BARE_ACTORS; i++)
		sim_spawn(i, bare_turner, (void *)(uintptr_t)(i + 1));
	t0 = wall_now();
	sim_go();
	t0 = wall_now() - t0;
	events = sim_events();
	sim_end();
	return (double)events / t0;
}

static int bench_overhead(void)
{
	struct wl_config cfg;
	double sim_ev = 0, sim_wall = 0, bare_ev = 0, bare_wall = 0, sl_ev = 0, sl_wall = 0, ratio;

	config(&cfg, lock_find("mcs"), BARE_ACTORS, 50, 5, 0);
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t ev, acq;
		double t0 = wall_now(), rate;

		if (locklab_run(&cfg, &ev, &acq))
			return -1;
		sim_wall += wall_now() - t0;
		sim_ev += (double)ev;
		rate = turn_rate(ev);
		if (rate <= 0)
			return -1;
		bare_ev += (double)ev;
		bare_wall += (double)ev / rate;
		rate = sleep_rate(ev);
		sl_ev += (double)ev;
		sl_wall += (double)ev / rate;
	}
	ratio = (sim_ev / sim_wall) / (bare_ev / bare_wall);
	printf("1. events per wall second: simulator %.0f, bare loop of turns %.0f: ratio %.2f (target >= 0.90): %s\n",
	       sim_ev / sim_wall, bare_ev / bare_wall, ratio, ratio >= 0.9 ? "target met" : "target missed");
	printf("   so the run's hand-overs took %.0f%% of its wall time, the model and the workload the "
	       "rest: fewer events for the same work lower the ratio (line 7)\n", 100 * ratio);
	printf("   a bare loop of SimGrid sleeps %.0f: a turn costs %.2f of a sleep\n", sl_ev / sl_wall,
	       (sl_ev / sl_wall) / (bare_ev / bare_wall));
	return 0;
}

/* ------------------------------------------------ 2. events per acquisition */

static int bench_events_per_acq(const char *lock)
{
	static const uint64_t cs[] = { 100, 1000, 10000 };
	double epa[3], lo = 0, hi = 0;
	struct wl_config cfg;

	for (int i = 0; i < 3; i++) {
		uint64_t ev, acq;

		config(&cfg, lock_find(lock), 16, cs[i], 0, 25);
		if (!cfg.algos[0] || locklab_run(&cfg, &ev, &acq) || !acq)
			return -1;
		epa[i] = (double)ev / (double)acq;
		if (i == 0 || epa[i] < lo)
			lo = epa[i];
		if (i == 0 || epa[i] > hi)
			hi = epa[i];
	}
	printf("2. %-6s events per acquisition, 16 threads, cs 100 ns / 1 us / 10 us: %.2f / %.2f / %.2f: "
	       "largest/smallest %.2f (target <= 1.50): %s\n",
	       lock, epa[0], epa[1], epa[2], hi / lo, hi / lo <= 1.5 ? "target met" : "target missed");
	return 0;
}

/* ------------------------------------------------ 3. the default sweep */

static int bench_sweep(const char *bindir)
{
	char cmd[1024];
	double t0, wall;
	int rc;

	snprintf(cmd, sizeof(cmd),
		 "%s/locklab-sim run --topo 4socket --threads 1,2,4,8,16,32 --jobs 1 >/dev/null", bindir);
	t0 = wall_now();
	rc = system(cmd);
	wall = wall_now() - t0;
	if (rc) {
		fprintf(stderr, "sim_bench: '%s' failed (status %d)\n", cmd, rc);
		return -1;
	}
	printf("3. default sweep (scons sim TOPO=4socket): %.1f s wall (target < 60 s): %s\n", wall,
	       wall < 60 ? "target met" : "target missed");
	return 0;
}

/* ------------------------------------------------ 4, 5. a large machine */

/* Run bindir/locklab-sim with args (stdout to /dev/null) as a child: its
 * wall seconds, CPU seconds (user + system) and maximum resident set (MiB),
 * from its own rusage. */
static int child_run(const char *bindir, char *const args[], double *wall, double *cpu,
		     double *rss_mib)
{
	char path[1024];
	struct rusage ru;
	double t0 = wall_now();
	int status;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/locklab-sim", bindir);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execv(path, args);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		return -1;
	*wall = wall_now() - t0;
	*cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
	*rss_mib = (double)ru.ru_maxrss / 1024.0;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "sim_bench: %s %s %s failed (status %d)\n", path, args[1], args[5],
			status);
		return -1;
	}
	return 0;
}

/* ------------------------------------ 7. accesses per CPU second */

static double cpu_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/* The default sweep's runs in this process: their events, accesses, events
 * by kind, and every run's results folded into *print. */
static int sweep_in_process(uint64_t *events, uint64_t *accesses, uint64_t *by, uint64_t *print)
{
	static const unsigned threads[] = { 1, 2, 4, 8, 16, 32 };
	struct wl_config cfg;

	for (size_t i = 0; i < lock_catalogue_size(); i++) {
		const struct lock_algo *a = lock_catalogue_get(i);

		if (!a || a->kind != LOCK_MUTEX)
			continue;
		for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
			for (uint64_t run = 0; run < 3; run++) {
				uint64_t ev, acq;

				config(&cfg, a, threads[t], 50, backend_default_duration_ms, 0);
				cfg.seed = 1 + run;
				if (locklab_run(&cfg, &ev, &acq))
					return -1;
				*events += ev;
				*accesses += coh_counters(sim.model)->accesses;
				*print = fold(*print, last_print);
				for (unsigned k = 0; k < SIM_EV_KINDS; k++)
					by[k] += sim.events_by[k];
			}
		}
	}
	return 0;
}

static int bench_accesses(void)
{
	uint64_t events = 0, accesses = 0, by[SIM_EV_KINDS] = { 0 }, print = 0;
	uint64_t events_in_place = 0, accesses_in_place = 0, by_in_place[SIM_EV_KINDS] = { 0 };
	uint64_t print_in_place = 0;
	double t0 = cpu_now(), cpu;
	int rc;

	if (sweep_in_process(&events, &accesses, by, &print))
		return -1;
	cpu = cpu_now() - t0;
	printf("7. default sweep in process: %.2f M simulated accesses per CPU second (target >= 2.5 M), "
	       "%.3f events per access (target <= 0.70): %s\n", (double)accesses / cpu * 1e-6,
	       (double)events / (double)accesses,
	       (double)accesses / cpu >= 2.5e6 && events <= 0.7 * (double)accesses ? "target met" :
	       "target missed");
	printf("   events per access by kind:");
	for (unsigned k = 0; k < SIM_EV_KINDS; k++)
		if (by[k])
			printf(" %s %.3f", sim_event_kind_names[k], (double)by[k] / (double)accesses);
	printf("\n");
	sim.wait_every_completion = true;
	rc = sweep_in_process(&events_in_place, &accesses_in_place, by_in_place, &print_in_place);
	sim.wait_every_completion = false;
	if (rc)
		return -1;
	printf("   every access by its own thread, every miss waiting for its completion in place: "
	       "%.3f events per access; "
	       "every run's results the same: %s\n",
	       (double)events_in_place / (double)accesses_in_place,
	       print == print_in_place && accesses == accesses_in_place ? "yes" : "NO");
	return print == print_in_place && accesses == accesses_in_place ? 0 : -1;
}

static int bench_large(const char *bindir)
{
	char *mcs[] = { "locklab-sim", "run", "--topo", "uv4096", "--lock", "mcs", "--threads",
			"4096", "--ops", "100", "--runs", "1", "--lockstep-probe", "off", NULL };
	char *ttas[] = { "locklab-sim", "run", "--topo", "uv4096", "--lock", "ttas", "--threads",
			 "4096", "--duration", "2", "--runs", "1", "--lockstep-probe", "off", NULL };
	double wall, cpu, rss;

	if (child_run(bindir, mcs, &wall, &cpu, &rss))
		return -1;
	printf("4. MCS at 4096 threads on uv4096, --ops 100: %.1f s wall (%.1f s CPU), %.0f MiB max "
	       "RSS (targets < 10 s, < 512 MiB): %s\n", wall, cpu, rss,
	       wall < 10 && rss < 512 ? "target met" : "target missed");
	if (child_run(bindir, ttas, &wall, &cpu, &rss))
		return -1;
	printf("5. TTAS at 4096 threads on uv4096, 2 ms simulated: %.1f s wall (%.1f s CPU), %.0f MiB "
	       "max RSS (target < 60 s): %s\n", wall, cpu, rss,
	       wall < 60 ? "target met" : "target missed");
	return 0;
}

/* ------------------------------------ 6. the default sweep in two workers */

static int sweep_jobs(const char *bindir, unsigned jobs, const char *csv, double *wall)
{
	char cmd[2048];
	double t0;
	int rc;

	snprintf(cmd, sizeof(cmd), "%s/locklab-sim run --topo 4socket --threads 1,2,4,8,16,32 "
		 "--jobs %u --csv '%s' >/dev/null", bindir, jobs, csv);
	t0 = wall_now();
	rc = system(cmd);
	*wall = wall_now() - t0;
	if (rc)
		fprintf(stderr, "sim_bench: '%s' failed (status %d)\n", cmd, rc);
	return rc ? -1 : 0;
}

/* The wall time of `procs` processes at once, each running the same busy
 * loop (about 0.3 s of one core of this machine); -1 when one cannot start. */
static double busy_wall(unsigned procs)
{
	double t0 = wall_now();
	unsigned started = 0;

	for (unsigned i = 0; i < procs; i++) {
		pid_t p = fork();

		if (p == 0) {
			volatile uint64_t x = 0;

			for (uint64_t k = 0; k < 1000000000ull; k++)
				x += k;
			_exit(0);
		}
		if (p > 0)
			started++;
	}
	while (wait(NULL) > 0)
		;
	return started == procs ? wall_now() - t0 : -1;
}

/* What two CPUs of this machine give at this moment: the wall time of two
 * busy processes at once over that of one alone (1.00 where two CPUs are
 * free; 2.00 where the two share one), before and after the sweeps. */
static double two_at_once(void)
{
	double one = busy_wall(1), two = busy_wall(2);

	return one > 0 && two > 0 ? two / one : -1;
}

/* The sweeps run in the order 1, 2, 2, 1 (--jobs) and the ratio is of the
 * sums: the speed of a shared machine drifts over a minute, and a drift
 * that is linear cancels.  What the machine's CPUs gave, measured before
 * and after, says whether a ratio far from 0.5 is the sweep's or theirs. */
static int bench_jobs(const char *bindir)
{
	static const unsigned order[] = { 1, 2, 2, 1 };
	char dir[] = "/tmp/locklab-bench.XXXXXX", one[64], two[64], cmd[128];
	double w[3] = { 0 }, t, before, after;
	bool same = true;
	int rc = 0;

	if (!mkdtemp(dir))
		return -1;
	before = two_at_once();
	snprintf(one, sizeof(one), "%s/jobs1.csv", dir);
	for (unsigned k = 0; k < 4 && !rc; k++) {
		unsigned j = order[k];

		snprintf(two, sizeof(two), "%s/jobs%u-%u.csv", dir, j, k);
		rc = sweep_jobs(bindir, j, k ? two : one, &t);
		w[j] += t;
		if (!rc && k)
			same = same && ll_same_bytes(one, two);
	}
	after = two_at_once();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "sim_bench: cannot remove %s\n", dir);
	if (rc)
		return -1;
	printf("6. default sweep --jobs 2 vs --jobs 1 (twice each, in the order 1 2 2 1): "
	       "%.1f s / %.1f s wall, ratio %.2f (target <= 0.60 on %ld CPUs), CSVs identical: "
	       "%s: %s\n", w[2], w[1], w[2] / w[1], sysconf(_SC_NPROCESSORS_ONLN),
	       same ? "yes" : "no", same && w[2] / w[1] <= 0.6 ? "target met" : "target missed");
	printf("   the machine: two busy processes at once took %.2f and %.2f times as long as one "
	       "alone, before and after (1.00 on two free CPUs, 2.00 on one)\n", before, after);
	return 0;
}

/* ------------------------------------ 8. many locks */

/* The CPU seconds of a run with --locks n that sets up, takes one lock
 * once and ends: the best of three, the least disturbed. */
static int locks_cpu(const char *bindir, const char *n, double *best)
{
	char *args[] = { "locklab-sim", "run", "--topo", "4socket", "--lock", "mcs", "--threads", "1",
			 "--ops", "1", "--runs", "1", "--locks", (char *)n, NULL };
	double wall, cpu, rss;

	*best = -1;
	for (int i = 0; i < 3; i++) {
		if (child_run(bindir, args, &wall, &cpu, &rss))
			return -1;
		if (*best < 0 || cpu < *best)
			*best = cpu;
	}
	return 0;
}

/* Setting up and ending a run grows with its locks: four times the locks
 * cost four times as long where the time is linear, sixteen where it is
 * the square (the memory's homes once made it so). */
static int bench_locks(const char *bindir)
{
	double small, large;

	if (locks_cpu(bindir, "16384", &small) || locks_cpu(bindir, "65536", &large))
		return -1;
	printf("8. a run of one acquisition with --locks 65536 vs 16384 (CPU, best of 3): %.2f s / "
	       "%.2f s, ratio %.1f (target <= 8: 4 is linear, 16 the square): %s\n", large, small,
	       large / (small > 0.005 ? small : 0.005),
	       large <= 8 * (small > 0.005 ? small : 0.005) ? "target met" : "target missed");
	return 0;
}

int main(int argc, char **argv)
{
	char *sg_argv[] = { argv[0], NULL };
	int sg_argc = 1, rc = 0;
	char err[512];

	if (argc < 2) {
		fprintf(stderr, "usage: %s BINDIR\n", argv[0]);
		return 2;
	}
	if (backend_init(&sg_argc, sg_argv) || sim_load_topo("4socket", err, sizeof(err))) {
		fprintf(stderr, "sim_bench: %s\n", err);
		return 1;
	}
	printf("simulator benchmarks (topology 4socket)\n");
	fflush(stdout);
	if (argc > 2 && !strcmp(argv[2], "accesses")) {
		rc = bench_accesses();
		backend_fini();
		return rc ? 1 : 0;
	}
	if (argc > 2 && !strcmp(argv[2], "jobs")) {
		rc = bench_jobs(argv[1]);
		backend_fini();
		return rc ? 1 : 0;
	}
	if (argc > 2 && !strcmp(argv[2], "locks")) {
		rc = bench_locks(argv[1]);
		backend_fini();
		return rc ? 1 : 0;
	}
	if (argc > 2 && !strcmp(argv[2], "overhead")) {
		rc = bench_overhead();
		backend_fini();
		return rc ? 1 : 0;
	}
	rc |= bench_overhead();
	fflush(stdout);
	rc |= bench_events_per_acq("mcs");
	rc |= bench_events_per_acq("ticket");
	fflush(stdout);
	rc |= bench_sweep(argv[1]);
	fflush(stdout);
	rc |= bench_large(argv[1]);
	fflush(stdout);
	rc |= bench_jobs(argv[1]);
	fflush(stdout);
	rc |= bench_accesses();
	fflush(stdout);
	rc |= bench_locks(argv[1]);
	backend_fini();
	return rc ? 1 : 0;
}
