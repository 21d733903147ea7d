/*
 * native/backend.c - <locklab/backend.h> on real hardware: one pthread per
 * workload thread, pinned with hwloc, started together, stopped by
 * the clock or by their operation count, and watched for lack of progress.
 *
 * A run, as the main thread sees it:
 *
 *   plan placement (pin.c) -> spawn n threads
 *   each thread: bind itself, record cpu and node, native_thread_bind(),
 *                report ready, sleep until told to go
 *   main: all ready -> wl_setup() (memory on the threads' nodes) -> go
 *   each thread: wake, arrive at the start line and spin there; the last to
 *                arrive sets start_ns = now, end_ns = start_ns + duration,
 *                and raises `started`: every thread leaves the line within
 *                a cache-line transfer of the others, rather than one by
 *                one as the scheduler wakes them
 *   main: sleep in steps of at most NATIVE_WATCH_STEP_NS until the threads
 *         are gone, raising run->stop at end_ns, and checking the watchdog each step
 *   each thread: wl_thread_main(); report gone
 *   main: join; stop_ns
 *
 * With more threads than PUs, a thread at the start line yields the cpu
 * instead of spinning, so that the others can get there.
 *
 * stop_ns is the boundary the workload counts acquisitions against: end_ns
 * for a duration run (acquisitions completed before it are counted, later
 * ones drained), the moment the last thread finished for an --ops run.
 *
 * The watchdog: the run has stalled when no thread has completed an
 * acquisition, and none has left its loop, for the watchdog's limit (default
 * 5 s, or 10x --duration when that is longer; --watchdog MS, 0 = off),
 * counting only time in which the process ran (native/watch.c).  The
 * run then fails with one line naming the lock and what each thread was doing,
 * and backend_run returns without joining: the threads are stuck, and
 * spin on.  A run beside them would measure them too, so the sweep runs no
 * more (backend_left_threads) and the process exits.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/args.h>
#include <locklab/backend.h>
#include <locklab/mem.h>

#include "native.h"

#define WATCHDOG_MIN_NS 5000000000ull  /* 5 s */
#define WATCHDOG_DEFAULT UINT64_MAX
#define THREAD_STACK (2u << 20)

const char backend_name[] = "native";
const uint64_t backend_default_duration_ms = 200;
/* Time one acquisition in 32: two clock reads spread over 32 (docs/harness.md). */
const unsigned backend_default_time_every = 32;
const char backend_usage[] =
	"              [--watchdog MS]  fail a run without progress for MS ms\n"
	"                               (0: off; default 5000, or 10x --duration\n"
	"                               when that is longer)\n";

static uint64_t watchdog_ms = WATCHDOG_DEFAULT;

/* The largest run's placement, for the environment. */
static unsigned pin_map[WL_MAX_THREADS];
static unsigned pin_map_len;

/* A run that the watchdog abandoned: its threads may still use it. */
static struct nrun *abandoned;

/* wl_thread.phase, as the workload stores it */
enum {
	PHASE_OUTSIDE = 0,
	PHASE_ACQUIRING = 1,
	PHASE_HOLDING = 2,
};

struct nthread {
	pthread_t pt;
	struct nrun *nr;
	unsigned tid;
	int cpu;      /* OS cpu, NATIVE_ON_SOCKET(s) or NATIVE_UNPINNED */
	int bind_err; /* errno of the binding, 0 when bound */
	bool gone;    /* left the loop (under nr->mu) */
};

struct nrun {
	struct wl_run *run;
	struct nthread *th;
	unsigned n, created;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* CLOCK_MONOTONIC */
	unsigned ready, live;
	int go; /* 0: wait, 1: run, -1: give up without running */
	bool yield_at_start;
	unsigned at_start; /* threads at the start line (__atomic) */
	int started;       /* the start line opened (__atomic) */
};

/* ------------------------------------------------------------ options */

#define WATCHDOG_MAX_MS (24ull * 3600 * 1000) /* a day, as the simulator's */

static int parse_watchdog(const char *val, char *err, size_t errlen)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(val, &end, 10);
	if (!isdigit((unsigned char)val[0]) || *end || errno || v > WATCHDOG_MAX_MS) {
		snprintf(err, errlen, "--watchdog: '%s' is not a number of ms in 0..%llu (0 turns "
			 "it off)", val, WATCHDOG_MAX_MS);
		return -1;
	}
	watchdog_ms = v;
	return 1;
}

int backend_parse_option(const char *opt, const char *val, char *err,
			 size_t errlen)
{
	if (!strcmp(opt, "--watchdog"))
		return parse_watchdog(val, err, errlen);
	return 0;
}

static uint64_t watchdog_limit_ns(const struct wl_config *cfg)
{
	uint64_t d;

	if (watchdog_ms != WATCHDOG_DEFAULT)
		return watchdog_ms * 1000000ull;
	if (cfg->ops)
		return WATCHDOG_MIN_NS;
	if (cfg->duration_ms > UINT64_MAX / 10000000ull)
		return UINT64_MAX;
	d = cfg->duration_ms * 10000000ull;
	return d > WATCHDOG_MIN_NS ? d : WATCHDOG_MIN_NS;
}

/* -------------------------------------------------- init, check, fini */

/* LOCKLAB_CLOCK names the clock of every command that times (run, noise,
 * calibrate, filelock): checked once for all, as the program starts. */
static int check_clock_env(int argc, char **argv)
{
	const char *clk = getenv("LOCKLAB_CLOCK");

	if (!clk || !*clk || !strcmp(clk, "monotonic")) /* empty: as unset */
		return 0;
	ll_bad(argc > 1 ? argv[1] : "environment", "LOCKLAB_CLOCK=%s: the one value is 'monotonic' (clock_gettime); unset, "
	       "the invariant cycle counter is used where there is one", clk);
	return -1;
}

int backend_init(int *argc, char **argv)
{
	if (check_clock_env(*argc, argv))
		return 1;
	if (!native_machine()) {
		fprintf(stderr, "locklab-native: cannot read the machine's topology: %s\n",
			native_machine_error());
		return 1;
	}
	native_delay_calibrate();
	return 0;
}

int backend_check(const struct wl_config *cfg, char *err, size_t errlen)
{
	unsigned maxt = 0;

	for (unsigned i = 0; i < cfg->nthreads; i++)
		if (cfg->threads[i] > maxt)
			maxt = cfg->threads[i];
	if (maxt > NATIVE_MAX_THREADS) {
		snprintf(err, errlen, "%s %u: at most %u threads", wl_count_opt(cfg), maxt,
			 NATIVE_MAX_THREADS);
		return -1;
	}
	if (cfg->vm_vcpus) {
		/* --vm: the pin policy places the physical cpus (native/vm.c) */
		if (native_vm_check(cfg, err, errlen))
			return -1;
		maxt = 0;
		for (unsigned i = 0; i < cfg->novercommit; i++)
			if (wl_vm_pcpus(cfg->vm_vcpus, cfg->overcommit[i]) > maxt)
				maxt = wl_vm_pcpus(cfg->vm_vcpus, cfg->overcommit[i]);
	}
	if (native_pin_check(cfg, maxt, err, errlen))
		return -1;
	return wl_lock_home_check(cfg, native_machine() ? native_machine()->nnodes : 1, "this machine",
				  err, errlen);
}

void backend_warn(const struct wl_config *cfg)
{
	native_warn_oversubscribed(cfg);
}

void backend_warn_results(const struct wl_config *cfg, const struct output_set *o)
{
	(void)cfg; /* a native --vm run's slices are the host's: nothing known here */
	(void)o;
}

bool backend_files_failed(void)
{
	return false; /* native writes only what core/ writes */
}

int backend_lockstep_probe(const struct wl_config *cfg, const struct run_result *r,
			   struct lockstep_probe *p)
{
	(void)cfg; /* a machine's latencies vary by themselves */
	(void)r;
	(void)p;
	return 0;
}

bool backend_left_threads(void)
{
	return abandoned != NULL;
}

void backend_fini(void)
{
	if (!abandoned)
		native_machine_free();
}

const unsigned *native_pin_map(unsigned *n)
{
	*n = pin_map_len;
	return pin_map;
}

static void record_pin_map(const struct wl_run *run)
{
	if (run->nthreads < pin_map_len)
		return;
	for (unsigned i = 0; i < run->nthreads; i++)
		pin_map[i] = run->threads[i].cpu;
	pin_map_len = run->nthreads;
}

/* ------------------------------------------------------- the threads */

/* Where the thread is: its planned cpu, or (unpinned, or bound to a
 * socket's set) where it runs now. */
static void place_self(struct nthread *t, struct wl_thread *wt)
{
	int c;

	t->bind_err = native_pin_apply(t->cpu);
	if (t->cpu >= 0)
		return;
	c = sched_getcpu();
	wt->cpu = c >= 0 ? (unsigned)c : 0;
	wt->node = c >= 0 ? native_node_of_cpu((unsigned)c) : 0;
}

/* Reports ready, and sleeps until main says go (1) or give up (-1). */
static int wait_go(struct nrun *nr)
{
	int go;

	pthread_mutex_lock(&nr->mu);
	nr->ready++;
	pthread_cond_broadcast(&nr->cv);
	while (!nr->go)
		pthread_cond_wait(&nr->cv, &nr->mu);
	go = nr->go;
	pthread_mutex_unlock(&nr->mu);
	return go;
}

/* The start line: the last thread to arrive opens it and tells main. */
static void start_line(struct nrun *nr)
{
	struct wl_run *run = nr->run;

	if (__atomic_add_fetch(&nr->at_start, 1, __ATOMIC_ACQ_REL) == nr->n) {
		run->start_ns = ll_now_ns();
		if (!run->cfg->ops)
			run->end_ns = run->start_ns + run->cfg->duration_ms * 1000000ull;
		__atomic_store_n(&nr->started, 1, __ATOMIC_RELEASE);
		pthread_mutex_lock(&nr->mu);
		pthread_cond_broadcast(&nr->cv);
		pthread_mutex_unlock(&nr->mu);
		return;
	}
	while (!__atomic_load_n(&nr->started, __ATOMIC_ACQUIRE)) {
		if (nr->yield_at_start)
			sched_yield();
		else
			ll_cpu_relax();
	}
}

static void *thread_main(void *arg)
{
	struct nthread *t = arg;
	struct nrun *nr = t->nr;
	struct wl_thread *wt = &nr->run->threads[t->tid];

	place_self(t, wt);
	native_thread_bind(t->tid, wt->node);
	if (wait_go(nr) > 0) {
		start_line(nr);
		native_vm_thread_begin(nr->run, t->tid);
		wl_thread_main(nr->run, t->tid);
		native_vm_thread_end(nr->run, t->tid);
	}

	pthread_mutex_lock(&nr->mu);
	t->gone = true;
	nr->live--;
	pthread_cond_broadcast(&nr->cv);
	pthread_mutex_unlock(&nr->mu);
	return NULL;
}

static int nrun_init(struct nrun *nr, struct wl_run *run)
{
	const struct native_machine *m = native_machine();
	pthread_condattr_t ca;
	int *cpus;

	memset(nr, 0, sizeof(*nr));
	nr->run = run;
	nr->n = run->nthreads;
	nr->th = calloc(nr->n, sizeof(*nr->th));
	cpus = calloc(nr->n, sizeof(*cpus));
	if (!nr->th || !cpus) {
		free(nr->th);
		free(cpus);
		return -1;
	}
	native_pin_plan(run->cfg, nr->n, cpus);
	if (run->vm_pcpus)
		native_vm_plan(run, cpus);
	for (unsigned i = 0; i < nr->n; i++) {
		nr->th[i].nr = nr;
		nr->th[i].tid = i;
		nr->th[i].cpu = cpus[i];
		if (cpus[i] >= 0) {
			run->threads[i].cpu = (unsigned)cpus[i];
			run->threads[i].node = native_node_of_cpu((unsigned)cpus[i]);
		}
	}
	free(cpus);
	nr->yield_at_start = !m || nr->n > m->npus;
	pthread_mutex_init(&nr->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&nr->cv, &ca);
	pthread_condattr_destroy(&ca);
	return 0;
}

static void nrun_destroy(struct nrun *nr)
{
	pthread_cond_destroy(&nr->cv);
	pthread_mutex_destroy(&nr->mu);
	free(nr->th);
}

static int spawn(struct nrun *nr)
{
	pthread_attr_t attr;
	int rc = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, THREAD_STACK);
	nr->live = nr->n;
	for (unsigned i = 0; i < nr->n; i++) {
		rc = pthread_create(&nr->th[i].pt, &attr, thread_main, &nr->th[i]);
		if (rc) {
			snprintf(nr->run->failure, sizeof(nr->run->failure),
				 "cannot create thread %u of %u: %s", i, nr->n,
				 strerror(rc));
			pthread_mutex_lock(&nr->mu);
			nr->live -= nr->n - i;
			pthread_mutex_unlock(&nr->mu);
			break;
		}
		nr->created++;
	}
	pthread_attr_destroy(&attr);
	return rc ? -1 : 0;
}

/* Sends the threads to the start line (go = 1) and waits until it
 * opens, or sends every thread home unrun (go = -1). */
static void send_off(struct nrun *nr, int go)
{
	pthread_mutex_lock(&nr->mu);
	nr->go = go;
	pthread_cond_broadcast(&nr->cv);
	while (go > 0 && !__atomic_load_n(&nr->started, __ATOMIC_ACQUIRE))
		pthread_cond_wait(&nr->cv, &nr->mu);
	pthread_mutex_unlock(&nr->mu);
}

static void join_all(struct nrun *nr)
{
	for (unsigned i = 0; i < nr->created; i++)
		pthread_join(nr->th[i].pt, NULL);
}

static void wait_ready(struct nrun *nr)
{
	pthread_mutex_lock(&nr->mu);
	while (nr->ready < nr->created)
		pthread_cond_wait(&nr->cv, &nr->mu);
	pthread_mutex_unlock(&nr->mu);
}

static int check_bound(struct nrun *nr)
{
	for (unsigned i = 0; i < nr->n; i++) {
		char where[48];

		if (!nr->th[i].bind_err)
			continue;
		snprintf(nr->run->failure, sizeof(nr->run->failure), "cannot bind thread %u to %s: %s",
			 i, native_pin_text(nr->th[i].cpu, where, sizeof(where)),
			 strerror(nr->th[i].bind_err));
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------- the watchdog */

/* Appends the tids of the threads in `phase` (alive) to buf as ranges
 * ("0-3,7"); returns how many there were. */
static unsigned list_phase(struct nrun *nr, int phase, char *buf, size_t len)
{
	unsigned count = 0, i = 0;
	size_t used = 0;

	buf[0] = 0;
	while (i < nr->n) {
		unsigned j = i;

		if (nr->th[i].gone ||
		    __atomic_load_n(&nr->run->threads[i].phase, __ATOMIC_RELAXED) != phase) {
			i++;
			continue;
		}
		while (j + 1 < nr->n && !nr->th[j + 1].gone &&
		       __atomic_load_n(&nr->run->threads[j + 1].phase,
				       __ATOMIC_RELAXED) == phase)
			j++;
		count += j - i + 1;
		if (used + 24 < len)
			used += (size_t)snprintf(buf + used, len - used,
						 j == i ? "%s%u" : "%s%u-%u",
						 used ? "," : "", i, j);
		else if (used + 4 < len && buf[used - 1] != '.')
			used += (size_t)snprintf(buf + used, len - used, ",...");
		i = j + 1;
	}
	return count;
}

static void describe_stall(struct nrun *nr, double secs)
{
	struct wl_run *run = nr->run;
	char waiting[160], holding[120], outside[120];
	unsigned nw = list_phase(nr, PHASE_ACQUIRING, waiting, sizeof(waiting));
	unsigned nh = list_phase(nr, PHASE_HOLDING, holding, sizeof(holding));
	unsigned no = list_phase(nr, PHASE_OUTSIDE, outside, sizeof(outside));
	char *f = run->failure;
	size_t len = sizeof(run->failure), used;

	used = (size_t)snprintf(f, len, "watchdog: no progress for %.0f ms with lock '%s':",
				secs * 1e3, run->algo->name);
	if (nw && used < len)
		used += (size_t)snprintf(f + used, len - used, " thread%s %s waiting to acquire,",
					 nw > 1 ? "s" : "", waiting);
	if (used < len) {
		if (nh)
			used += (size_t)snprintf(f + used, len - used, " thread%s %s hold%s it",
						 nh > 1 ? "s" : "", holding, nh > 1 ? "" : "s");
		else
			used += (size_t)snprintf(f + used, len - used, " no thread holds it");
	}
	if (no && used < len)
		snprintf(f + used, len - used, ", thread%s %s outside it", no > 1 ? "s" : "",
			 outside);
}

/* The last sign of life: an acquisition, or a thread leaving its loop. */
static uint64_t last_progress(struct nrun *nr)
{
	uint64_t last = nr->run->start_ns;

	for (unsigned i = 0; i < nr->n; i++) {
		struct wl_thread *wt = &nr->run->threads[i];
		uint64_t p = __atomic_load_n(&wt->last_progress_ns, __ATOMIC_RELAXED);

		if (nr->th[i].gone) {
			uint64_t f = __atomic_load_n(&wt->finish_ns, __ATOMIC_RELAXED);

			p = f > p ? f : p;
		}
		last = p > last ? p : last;
	}
	return last;
}

/* Called with nr->mu held. */
static bool stalled(struct nrun *nr, struct native_watch *w, uint64_t now, uint64_t limit)
{
	struct wl_run *run = nr->run;
	uint64_t quiet = native_watch_quiet(w, now, last_progress(nr));

	if (!limit || quiet < limit)
		return false;
	__atomic_store_n(&run->stop, 1, __ATOMIC_RELEASE);
	run->stop_ns = now;
	if (__atomic_exchange_n(&run->failed, 1, __ATOMIC_ACQ_REL) == 0)
		describe_stall(nr, (double)quiet / 1e9);
	return true;
}

static void wait_until_ns(struct nrun *nr, uint64_t when)
{
	struct timespec ts = {
		.tv_sec = (time_t)(when / 1000000000ull),
		.tv_nsec = (long)(when % 1000000000ull),
	};

	pthread_cond_timedwait(&nr->cv, &nr->mu, &ts);
}

/* Until every thread has left: 0, or -1 when the watchdog fired. */
static int supervise(struct nrun *nr)
{
	struct wl_run *run = nr->run;
	uint64_t limit = watchdog_limit_ns(run->cfg);
	struct native_watch w;
	bool stopped = false;
	int rc = 0;

	pthread_mutex_lock(&nr->mu);
	native_watch_start(&w, ll_now_ns(), last_progress(nr));
	while (nr->live) {
		uint64_t now = ll_now_ns(), wake = now + NATIVE_WATCH_STEP_NS;

		if (run->end_ns && !stopped && run->end_ns < wake)
			wake = run->end_ns;
		wait_until_ns(nr, wake);
		now = ll_now_ns();
		if (run->end_ns && !stopped && now >= run->end_ns) {
			__atomic_store_n(&run->stop, 1, __ATOMIC_RELEASE);
			stopped = true;
		}
		if (nr->live && stalled(nr, &w, now, limit)) {
			rc = -1;
			break;
		}
	}
	pthread_mutex_unlock(&nr->mu);
	return rc;
}

static void set_stop_ns(struct nrun *nr)
{
	struct wl_run *run = nr->run;

	if (run->end_ns) {
		run->stop_ns = run->end_ns;
		return;
	}
	run->stop_ns = run->start_ns;
	for (unsigned i = 0; i < nr->n; i++) {
		uint64_t f = run->threads[i].finish_ns;

		if (f > run->stop_ns)
			run->stop_ns = f;
	}
}

/* ------------------------------------------------------------ a run */

/* Threads are created and waiting at the start: set up, run, stop. */
static int run_threads(struct nrun *nr)
{
	struct wl_run *run = nr->run;

	wait_ready(nr);
	if (check_bound(nr))
		return -1;
	record_pin_map(run);
	if (wl_setup(run)) {
		snprintf(run->failure, sizeof(run->failure),
			 "cannot set up lock '%s' for %u threads: out of memory",
			 run->algo->name, run->nthreads);
		return -1;
	}
	send_off(nr, 1);
	if (supervise(nr)) {
		abandoned = nr;
		return 1;
	}
	join_all(nr);
	set_stop_ns(nr);
	return 0;
}

int backend_run(struct wl_run *run, struct run_counters *counters)
{
	const struct native_machine *m = native_machine();
	struct nrun *nr;
	int rc;

	memset(counters, 0, sizeof(*counters));
	counters->sim.has_sim = false;
	counters->oversubscribed = native_oversubscribed(run->cfg, run->nthreads, run->vm_pcpus);
	nr = malloc(sizeof(*nr));
	if (!nr || nrun_init(nr, run)) {
		free(nr);
		snprintf(run->failure, sizeof(run->failure), "out of memory");
		run->failed = 1;
		return -1;
	}
	native_mem_configure(run->nthreads, m ? m->nnodes : 1);
	rc = spawn(nr) ? -1 : run_threads(nr);
	if (rc > 0)
		return -1; /* the watchdog fired: nr stays with its threads */
	if (rc < 0) {
		run->failed = 1;
		send_off(nr, -1);
		join_all(nr);
	}
	native_vm_fill(run, &counters->vm);
	nrun_destroy(nr);
	free(nr);
	return rc || run->failed ? -1 : 0;
}
