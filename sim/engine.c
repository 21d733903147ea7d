/*
 * sim/engine.c - the simulator backend (include/locklab/backend.h): SimGrid
 * set-up, the machine (sim/topology.c), one actor per simulated thread,
 * and the counters of a run.
 *
 * A process may run many runs in sequence.  Each run gets a fresh coherence
 * model and its simulated time starts at 0 (sim/turns.c keeps the clock;
 * SimGrid runs the actors).  wl_setup() runs in maestro before the
 * actors start; its allocations register their home nodes and tags with
 * the model (sim/alloc.c).
 *
 * Threads are placed on the topology's cores by sim/place.c.
 *
 * Counters cover the measured interval: for a duration run they are
 * snapshotted when simulated time first reaches the end of the run (checked
 * at every event, sim/failure.c); for an --ops run they are taken when the
 * last thread has finished.  `events` counts every hand-over from one
 * actor to another (sim/turns.c) the run caused, over the whole run.
 *
 * Contexts: SimGrid's raw contexts (`--simgrid-cfg contexts/factory:thread`
 * makes each actor a thread: slower, still one actor at a time,
 * deterministic).  AddressSanitizer does not see raw stack switches: each
 * actor tells it which stack runs as its turn begins (sim/turns.c).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/engine.h>
#include <xbt/config.h>
#include <simgrid/version.h>
#include <xbt/log.h>

#include <locklab/backend.h>
#include <locklab/rng.h>

#include "idle.h"
#include "observe.h"
#include "switches.h"
#include "report/report.h"
#include "sched_noise.h"
#include "sim.h"
#include "storebuf.h"
#include "turns.h"
#include "vm.h"

#define WATCHDOG_MIN_PS 10000000000ull /* 10 ms */
#define WATCHDOG_CS_FACTOR 1000ull

const char backend_name[] = "sim";
const uint64_t backend_default_duration_ms = 2; /* simulated: the default sweep stays fast */
const unsigned backend_default_time_every = 1; /* simulated time is free to read */
const struct lock_algo *const backend_locks[] = { NULL };
const struct sim_observer *sim_observer;

struct sim_state sim = {
	.quantum_ps = SIM_DEFAULT_QUANTUM_PS,
	.watchdog_ps = UINT64_MAX, /* UINT64_MAX: the default rule */
	.next_check_ps = UINT64_MAX,
	.end_ps = UINT64_MAX,
};

/* ------------------------------------------------------------ SimGrid */

#define SIM_CFG_MAX 16

/* SimGrid sees only our settings and the user's --simgrid-cfg ones (which
 * come later, so they win; sim/options.c checks them and takes them out of
 * argv).  SimGrid's own
 * --cfg= and --log= stay in argv: no sub-command takes them, so they are
 * refused as unknown options. */
int sim_init_simgrid(int *argc, char **argv)
{
	char *sg[SIM_CFG_MAX + 4], *taken[SIM_CFG_MAX];
	int n = 0, first, ntaken, rc;

	xbt_log_control_set("root.thres:critical");
	sg[n++] = argv[0];
	sg[n++] = "--cfg=surf/precision:1e-15";
	first = n;
	rc = sim_take_simgrid_cfg(argc, argv, sg, &n, first + SIM_CFG_MAX);
	ntaken = n - first;
	memcpy(taken, sg + first, (size_t)ntaken * sizeof(*taken)); /* SimGrid edits sg */
	sg[n] = NULL;
	sim.raw_contexts = true;
	for (int i = 0; i < ntaken; i++)
		if (!strcmp(taken[i], "--cfg=contexts/factory:thread"))
			sim.raw_contexts = false;
	if (!rc) {
		simgrid_init(&n, sg);
		sim.stack_bytes = (size_t)sg_cfg_get_int("contexts/stack-size") * 1024;
	}
	while (ntaken)
		free(taken[--ntaken]);
	return rc;
}

int sim_load_topo(const char *arg, char *err, size_t errlen)
{
	if (!arg)
		arg = SIM_DEFAULT_TOPO;
	if (sim.topo_loaded) {
		if (!strcmp(arg, sim.topo_arg))
			return 0;
		snprintf(err, errlen, "--topo %s: one topology per process (%s is loaded)", arg,
			 sim.topo.name);
		return -1;
	}
	if (topo_load(&sim.topo, arg, err, errlen))
		return -1;
	sim_apply_arbitration(&sim.topo);
	sim_switch_topo(&sim.topo);
	sim.hosts = calloc(sim.topo.ncores, sizeof(sg_host_t));
	if (!sim.hosts || !sim.topo.core_host) {
		snprintf(err, errlen, "--topo %s: no hosts for the cores", arg);
		return -1;
	}
	for (unsigned c = 0; c < sim.topo.ncores; c++) {
		sim.hosts[c] = sg_host_by_name(sim.topo.core_host[c]);
		if (!sim.hosts[c]) {
			snprintf(err, errlen, "--topo %s: core %u: no host '%s'", arg, c,
				 sim.topo.core_host[c]);
			return -1;
		}
	}
	sim.topo_arg = strdup(arg);
	sim.topo_loaded = sim.topo_arg != NULL;
	return sim.topo_loaded ? 0 : -1;
}

/* ------------------------------------------------------------ passes */

/* An aborted run (deadlock, no progress) comes back here by longjmp from
 * sim/failure.c, at a point where no SimGrid frame is on this stack. */
static void actor_body(struct sim_actor *a)
{
	if (!setjmp(a->exit_jmp) && !sim.aborting) {
		a->fn(a->arg);
		sim_settle_pending(a);
	}
}

static void actor_main(int argc, char **argv)
{
	struct sim_actor *a = sg_actor_self_get_data();

	sim_turn_enter(a, __builtin_frame_address(0));
	actor_body(a);
	sim_actor_exit(a);
	sim.cur = NULL;
	sim_turn_leave(a);
}

static void free_actors(void)
{
	free(sim.actors);
	sim.actors = NULL;
	sim.nactors = 0;
}

int sim_begin(unsigned n, const unsigned *cores)
{
	free_actors();
	if (sim.model)
		coh_destroy(sim.model);
	free(sim.snap_links);
	sim.snap_links = NULL;
	sim.model = coh_create(&sim.topo);
	sim_switch_model(sim.model);
	sim.actors = calloc(n ? n : 1, sizeof(*sim.actors));
	if (sim.topo.nlinks)
		sim.snap_links = calloc(sim.topo.nlinks, sizeof(uint64_t));
	if (!sim.model || !sim.actors || (sim.topo.nlinks && !sim.snap_links) || sim_turns_reset(n))
		return -1;
	for (unsigned i = 0; i < n; i++) {
		struct sim_actor *a = &sim.actors[i];

		a->idx = i;
		a->core = cores[i];
		a->node = sim.topo.core_socket[cores[i]];
	}
	sim.nactors = n;
	sim.nlive = sim.nparked = sim.nline_waiters = sim.nadmit = sim.nadmit_timed = sim.nahead = 0;
	sim.cur = NULL;
	sim.base_ps += sim.now_ps + 1; /* + 1: no two runs share a base */
	sim.now_ps = 0;
	memset(sim.events_by, 0, sizeof(sim.events_by));
	sim.end_ps = UINT64_MAX;
	sim.snapped = false;
	sim.next_check_ps = UINT64_MAX;
	sim.progress_bound_ps = 0;
	sim.end_bound_ps = 0;
	sim.aborting = false;
	sim_allocs_reset();
	return 0;
}

void sim_spawn(unsigned i, void (*fn)(void *), void *arg)
{
	struct sim_actor *a = &sim.actors[i];
	sg_actor_t actor;
	char name[24];

	snprintf(name, sizeof(name), "t%u", i);
	a->fn = fn;
	a->arg = arg;
	actor = sg_actor_init(name, sim.hosts[a->core]);
	sg_actor_set_data(actor, a);
	a->self = actor;
	sg_actor_start(actor, actor_main, 0, NULL);
	sim.nlive++;
}

void sim_go(void)
{
	sim.cur = NULL;
	simgrid_run();
	sim.cur = NULL;
	sim_turns_done();
	sim_check_stranded();
}

void sim_end(void)
{
	sim.run = NULL;
	sim.cur = NULL;
}

/* ------------------------------------------------------------ options */

int backend_init(int *argc, char **argv)
{
	return sim_init_simgrid(argc, argv);
}

const char *sim_topo_of(const struct wl_config *cfg)
{
	if (cfg && cfg->topo)
		return cfg->topo;
	return sim.topo_arg_opt ? sim.topo_arg_opt : SIM_DEFAULT_TOPO;
}

/* ------------------------------------------------------------ a run */

static void thread_fn(void *arg)
{
	struct wl_run *run = arg;

	if (sim_vm)
		vm_actor_start(sim.cur); /* its vCPU may have to wait for its pCPU */
	wl_thread_main(run, sim.cur->idx);
	sim_settle_pending(sim.cur);
	sb_drain_all(sim.cur); /* its last stores become visible as it leaves */
}

/* The watchdog's default rule: a thousand of the slowest rounds. */
static uint64_t default_bound(const struct wl_config *cfg)
{
	uint64_t b = WATCHDOG_CS_FACTOR * ((cfg->cs_ns + cfg->ncs_ns) * 1000 +
					   topo_slowest_ps(&sim.topo));

	return b > WATCHDOG_MIN_PS ? b : WATCHDOG_MIN_PS;
}

static uint64_t progress_bound(const struct wl_config *cfg)
{
	return sim.watchdog_ps != UINT64_MAX ? sim.watchdog_ps : default_bound(cfg);
}

static void fill_counters(struct sim_counters *c)
{
	const struct coh_counters *k = coh_counters(sim.model);
	const uint64_t *links = k->link_msgs;

	if (sim.snapped) {
		k = &sim.snap;
		links = sim.snap_links;
	}
	memset(c, 0, sizeof(*c));
	c->has_sim = true;
	c->misses = k->misses;
	c->lock_invalidations = k->invalidations[COH_TAG_LOCK];
	c->lock_misses = k->misses_by_tag[COH_TAG_LOCK];
	c->node_misses = k->misses_by_tag[COH_TAG_CTX];
	c->data_misses = k->misses_by_tag[COH_TAG_DATA];
	c->other_misses = k->misses_by_tag[COH_TAG_OTHER];
	c->remote_transfers = k->remote_transfers;
	c->line_queue_ps = k->queue_ps;
	for (unsigned l = 0; links && l < sim.topo.nlinks; l++)
		if (links[l] > c->busiest_link_msgs)
			c->busiest_link_msgs = links[l];
	c->events = sim_events();
	c->accesses = k->accesses;
	for (unsigned i = 0; i < TOPO_MAX_CLASSES; i++)
		c->transfers_by_class[i < SIM_CSV_CLASSES ? i : SIM_CSV_CLASSES - 1] +=
			k->transfers_by_class[i];
	noise_end(c);
	c->has_idle = sim.topo.nidle && !sim_vm;
}

static int run_failed(struct wl_run *run, const char *msg)
{
	run->failed = 1;
	snprintf(run->failure, sizeof(run->failure), "%s", msg);
	return -1;
}

int backend_run(struct wl_run *run, struct run_counters *c)
{
	const struct wl_config *cfg = run->cfg;
	static unsigned cores[WL_MAX_THREADS]; /* one run at a time, one thread */
	char err[256];
	uint64_t stale, bound;

	if (sim_load_topo(sim_topo_of(cfg), err, sizeof(err)))
		return run_failed(run, err);
	if (vm_expand_run(run))
		return run_failed(run, "--co-guests same: the co-guests' threads could not be made");
	if (sim_place_threads(run, cores))
		return run_failed(run, "the threads do not fit the topology's cores");
	for (unsigned i = 0; i < run->nthreads; i++) {
		run->threads[i].cpu = cores[i];
		run->threads[i].node = sim.topo.core_socket[cores[i]];
	}
	if (sim_begin(run->nthreads, cores))
		return run_failed(run, "out of memory starting the simulation");
	sim.run = run;
	coh_set_lat_spread(sim.model, sim_lat_spread(), mix64(run->seed ^ 0x6c617473ull));
	if (noise_begin(run) || idle_begin(&sim.topo, run->nthreads, cores)) {
		sim_end();
		return run_failed(run, "out of memory starting the scheduler noise or the idle states");
	}
	if (run->vm_pcpus && vm_begin(run, sim.topo.freq_ghz)) {
		sim_end();
		return run_failed(run, "out of memory starting the virtual machine");
	}
	run->start_ns = 0;
	run->end_ns = cfg->ops ? 0 : cfg->duration_ms * 1000000ull;
	run->stop = 0;
	sim.end_ps = run->end_ns ? run->end_ns * 1000 : UINT64_MAX;
	bound = progress_bound(cfg);
	sim.progress_bound_ps = bound ? vm_progress_bound(bound) : 0; /* 0: --watchdog 0, off */
	sim.end_bound_ps = vm_progress_bound(default_bound(cfg));
	sim.next_check_ps = sim.progress_bound_ps ? sim.progress_bound_ps + 1 : UINT64_MAX;
	if (sim.end_ps < sim.next_check_ps)
		sim.next_check_ps = sim.end_ps;
	if (sim_time_left() < sim.next_check_ps)
		sim.next_check_ps = sim_time_left();
	if (wl_setup(run)) {
		vm_end(&c->vm);
		sim_end();
		return run_failed(run, "out of memory setting up the run");
	}
	for (unsigned i = 0; i < run->nthreads; i++)
		sim_spawn(i, thread_fn, run);
	sim_go();
	if (run->end_ns) {
		run->stop_ns = run->end_ns;
	} else {
		run->stop_ns = 0;
		for (unsigned i = 0; i < run->nthreads; i++)
			if (run->threads[i].finish_ns > run->stop_ns)
				run->stop_ns = run->threads[i].finish_ns;
	}
	fill_counters(&c->sim);
	stale = idle_end(c->sim.idle_wakes, &c->sim.idle_exit_ps);
	if (stale && !run->failed) {
		snprintf(err, sizeof(err), "internal fault: %llu sleeps on a CPU that the idle "
			 "states' record had as empty (sim/idle.c)", (unsigned long long)stale);
		run_failed(run, err);
	}
	vm_end(&c->vm);
	SIM_OBSERVE(end_run, run, c);
	sim_end();
	return run->failed ? -1 : 0;
}

int sim_run_one(const struct wl_config *cfg, const struct lock_algo *algo, unsigned threads,
		unsigned r, struct wl_run *run)
{
	struct run_counters c;

	memset(run, 0, sizeof(*run));
	memset(&c, 0, sizeof(c));
	run->cfg = cfg;
	run->algo = algo;
	run->nthreads = threads;
	run->run_index = r;
	run->seed = run_seed(cfg->seed, r);
	run->threads = calloc(threads, sizeof(*run->threads));
	if (!run->threads)
		return -1;
	return backend_run(run, &c) || run->failed ? 1 : 0;
}

void sim_run_free(struct wl_run *run)
{
	wl_teardown(run);
	free(run->threads);
	run->threads = NULL;
}

/* ------------------------------------------------------------ environment */

static const char *protocol_name(enum topo_protocol p)
{
	switch (p) {
	case PROTO_MOESI:
		return "MOESI";
	case PROTO_MESIF:
		return "MESIF";
	default:
		return "MESI";
	}
}

void backend_env_json(FILE *f, const struct wl_config *cfg)
{
	int maj, min, pat;
	char ver[64];

	sg_version_get(&maj, &min, &pat);
	snprintf(ver, sizeof(ver), "SimGrid %d.%d.%d", maj, min, pat);
	fprintf(f, "\"simulator\": ");
	output_json_string(f, ver);
	fprintf(f, ", \"topology\": {\"name\": ");
	output_json_string(f, sim.topo_loaded ? sim.topo.name : sim_topo_of(cfg));
	if (sim.topo_loaded) {
		char real[PATH_MAX];

		fprintf(f, ", \"path\": "); /* absolute: the file a relative path named here */
		output_json_string(f, realpath(sim.topo.path, real) ? real : sim.topo.path);
		fprintf(f, ", \"shipped\": %s",
			topo_shipped_state(sim.topo.path) == TOPO_SHIPPED ? "true" : "false");
		fprintf(f, ", \"cores\": %u, \"sockets\": %u, \"classes\": %u, \"protocol\": \"%s\"",
			sim.topo.ncores, sim.topo.nsockets, sim.topo.nclasses,
			protocol_name(sim.topo.protocol));
	}
	if (sim.topo_loaded) { /* the rule the local and Jain figures rest on */
		char arb[64];

		sim_arbitration_text(arb, sizeof(arb));
		fprintf(f, ", \"arbitration\": ");
		output_json_string(f, arb);
		fprintf(f, ", \"arbitration_given\": %s", sim_arbitration_option() ? "true" : "false");
	}
	sim_switch_json(f, cfg);
	fprintf(f, "}, \"sim_quantum_ns\": %llu, \"seed\": %llu, \"memory_model\": \"%s\"",
		(unsigned long long)(sim.quantum_ps / 1000),
		(unsigned long long)(cfg ? cfg->seed : 0),
		cfg && cfg->vm_vcpus ? "sc" : sb_model_name(sb_model())); /* --vm: sc */
	if (cfg && cfg->pin_text) {
		fprintf(f, ", \"pinning\": ");
		output_json_string(f, cfg->pin_text);
	}
	if (cfg && !cfg->vm_vcpus)
		noise_json(f, cfg);
	if (cfg && cfg->vm_vcpus) {
		fprintf(f, ", \"vm\": {\"vcpus\": %u, ", cfg->vm_vcpus);
		vm_env_json(f);
		fputc('}', f);
	}
}

size_t sim_topo_file_note(const struct wl_config *cfg, char *buf, size_t len)
{
	bool by_path = topo_given_as_path(sim_topo_of(cfg));
	enum topo_shipped st;

	if (len)
		*buf = 0;
	if (!sim.topo_loaded)
		return 0;
	st = topo_shipped_state(sim.topo.path);
	if (!by_path && st == TOPO_SHIPPED)
		return 0;
	return (size_t)snprintf(buf, len, "topology file %s%s", sim.topo.path,
				!by_path && st == TOPO_CHANGED ? " (not the shipped one)" : "");
}

void backend_settings(const struct wl_config *cfg, char *buf, size_t len)
{
	char idle[160], note[PATH_MAX + 64];
	size_t n = cfg && cfg->vm_vcpus
			   ? (size_t)snprintf(buf, len, ", memory model sc (every --vm run is)")
			   : (size_t)snprintf(buf, len, ", memory model %s%s", sb_model_name(sb_model()),
					      sb_model_given() ? "" : sim.topo_loaded && !sim.topo.memory_model_set
					      ? " (the default: the topology file sets none)" : " (the topology's)");

	if (sim_topo_file_note(cfg, note, sizeof(note)) && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", %s", note);
	if (sim.topo_loaded && n < len) { /* the rule the local and Jain figures rest on */
		char arb[64];

		sim_arbitration_text(arb, sizeof(arb));
		n += (size_t)snprintf(buf + n, len - n, ", arbitration %s%s", arb,
				      sim_arbitration_option() ? "" : !sim.topo.arbitration_set
				      ? " (the default: the topology file sets none)" : " (the topology's)");
	}
	if (sim.quantum_ps != SIM_DEFAULT_QUANTUM_PS && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", --sim-quantum %llu",
				      (unsigned long long)(sim.quantum_ps / 1000));
	if (n < len)
		n += sim_switch_text(buf + n, len - n);
	if (n < len && sim_idle_text(cfg, idle, sizeof(idle))) /* nothing under --vm */
		n += (size_t)snprintf(buf + n, len - n, ", %s", idle);
	if (cfg && cfg->vm_vcpus && n < len)
		n += vm_settings_text(cfg, buf + n, len - n);
	if (n < len)
		noise_text(cfg, buf + n, len - n);
}

/* The run's locks' own assumed constants (lock_algo.assumed), each phrase
 * once with the locks that have it, the preset's lengths (--preset), and,
 * outside --vm, the costs of a parked
 * waiter where a lock parks them: "the locks' own (algorithms/): backoff
 * from 128 ns to 8.2 us (ttas-backoff, cohort), ...".  Returns the length
 * it wanted. */
static size_t workload_assumed(const struct wl_config *cfg, char *buf, size_t len)
{
	size_t n = 0;
	bool parks = false;

#define PUT(...) (n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, __VA_ARGS__))
	if (len)
		*buf = 0;
	for (unsigned i = 0; cfg && i < cfg->nalgos; i++) {
		const struct lock_algo *a = cfg->algos[i];
		bool first = true;

		parks |= a->parks;
		if (!a->assumed)
			continue;
		for (unsigned j = 0; j < i && first; j++) /* said with an earlier lock */
			first = !cfg->algos[j]->assumed || strcmp(cfg->algos[j]->assumed, a->assumed);
		if (!first)
			continue;
		PUT("%s%s (%s", n ? ", " : "the locks' own (algorithms/): ", a->assumed, a->name);
		for (unsigned j = i + 1; j < cfg->nalgos; j++)
			if (cfg->algos[j]->assumed && !strcmp(cfg->algos[j]->assumed, a->assumed))
				PUT(", %s", cfg->algos[j]->name);
		PUT(")");
	}
	if (cfg && cfg->preset) /* core/cli.c's presets[] names the docs of each */
		PUT("%s--preset %s's lengths, where no option replaced them (core/cli.c)",
		    n ? "; and " : "", cfg->preset);
	if (parks && !cfg->vm_vcpus && sim.topo.kick_given) /* the kick: the machine's park.kick */
		PUT("%sa parked waiter's halt and wake, %.1f and %.0f us (core/park_costs.h)",
		    n ? "; and " : "", SIM_HALT_PS / 1e6, SIM_WAKE_PS / 1e6);
	else if (parks && !cfg->vm_vcpus)
		PUT("%sa parked waiter's halt, kick and wake, %.1f, %.1f and %.0f us (core/park_costs.h)",
		    n ? "; and " : "", SIM_HALT_PS / 1e6, SIM_KICK_PS / 1e6, SIM_WAKE_PS / 1e6);
#undef PUT
	return n;
}

void backend_assumed(const struct wl_config *cfg, char *buf, size_t len)
{
	char list[sizeof(sim.topo.assumed) * 2], vm[160], noise[160]; /* ", " for " " */
	char locks[1024], snoop[320];
	size_t n = 0;

	if (len)
		buf[0] = 0;
	if (sim_assumed_list(cfg, ", ", "", list, sizeof(list)))
		n = (size_t)snprintf(buf, len, "assumed in %s (no source; topologies/README.md says "
				     "why): %s", sim.topo.name, list);
	else if (sim.topo_loaded && topo_assumed_unstated(&sim.topo))
		n = (size_t)snprintf(buf, len, "assumed in %s: " SIM_ASSUMED_NOT_STATED, sim.topo.name);
	if (sim_sizes_assumed(snoop, sizeof(snoop)) && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "; and " : "assumed: ", snoop);
	if (vm_assumed(cfg, vm, sizeof(vm)) && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "; and " : "assumed: ", vm);
	if (noise_assumed(cfg, noise, sizeof(noise)) && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "; and " : "assumed: ", noise);
	if (workload_assumed(cfg, locks, sizeof(locks)) && n < len)
		snprintf(buf + n, len - n, "%s%s", n ? "; and " : "assumed: ", locks);
}

const char *backend_topo_name(const struct wl_config *cfg)
{
	return sim.topo_loaded ? sim.topo.name : sim_topo_of(cfg);
}

const char *backend_input_file(void)
{
	return sim.topo_loaded && sim.topo.path[0] ? sim.topo.path : NULL;
}

const char *backend_output_dir(const char **opt)
{
	*opt = "--graphs";
	return report_output_dir();
}

bool backend_files_failed(void)
{
	return report_failed();
}

bool backend_left_threads(void)
{
	return false; /* a run's actors end with it */
}

void backend_fini(void)
{
	report_fini();
	free_actors();
	if (sim.model)
		coh_destroy(sim.model);
	sim.model = NULL;
	free(sim.snap_links);
	sim.snap_links = NULL;
	free(sim.allocs);
	sim.allocs = NULL;
	sim.nallocs = sim.cap_allocs = 0;
	free(sim.hosts);
	sim.hosts = NULL;
	if (sim.topo_loaded)
		topo_free(&sim.topo);
	free((char *)sim.topo_arg);
	sim.topo_arg = NULL;
	sim.topo_loaded = false;
}

