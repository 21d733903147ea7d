/*
 * sim/vm.c - the hypervisor of a simulated virtual machine: its options,
 * a run's set-up and its slices; the run queues of its physical CPUs are
 * sim/vm_rq.c's, whom CFS picks from them sim/vm_cfs.c's; the schedule
 * itself (hand-over, preemption, PLE, halt and kick, the counters) is
 * sim/vm_sched.c's; guests that run the workload too (--co-guests same)
 * sim/vm_same.c's.  The model is described in sim/vm.h, the defaults and
 * their sources in docs/vm.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/backend.h>
#include <locklab/rng.h>

#include "sim.h"
#include "vm.h"
#include "vm_state.h"

/* The defaults, each with its source in docs/vm.md. */
/* CFS (kernel/sched/fair.c, Linux 3.10 to 4.x): sysctl_sched_latency 6 ms
 * and sysctl_sched_min_granularity 0.75 ms, each times 1 + log2 of the
 * online CPUs up to 8 (SCHED_TUNABLESCALING_LOG, the default): a task's
 * slice is the latency shared among the runnable tasks, never below the
 * granularity (sched_slice, __sched_period). */
#define CFS_LATENCY_PS (6000ull * US_PS) /* 6 ms */
#define CFS_MIN_GRAN_PS (750ull * US_PS) /* 0.75 ms */
#define CFS_WAKEUP_GRAN_PS (1000ull * US_PS) /* sysctl_sched_wakeup_granularity, 1 ms */
#define CFS_SCALE_CPUS 8
#define DEF_PLE_WINDOW_CYCLES 4096.0      /* KVM ple_window */
#define DEF_PLE_GROW 2u                   /* KVM ple_window_grow */
#define DEF_FREQ_GHZ 2.0                  /* when the topology gives no clock: assumed */
#define DEF_PLE_EXIT_PS (1000ull * NS_PS) /* a VM exit and entry */
#define DEF_HALT_PS (1000ull * NS_PS)     /* the HLT exit */
#define DEF_KICK_PS (1000ull * NS_PS)     /* the KICK_CPU hypercall */
#define DEF_WAKE_PS (4000ull * NS_PS)     /* IPI, wake-up, schedule, entry */
#define DEF_SWITCH_PS (4000ull * NS_PS)   /* a context switch between vCPUs */
#define DEF_SLICE_SPREAD_PCT 50 /* *assumed*: slices from half to 1.5 times their mean */
#define MAX_SLICE_SPREAD_PCT 90 /* a slice is at least a tenth of its mean */

struct vm_params vm_prm = {
	.slice_ps = 0, /* CFS's */
	.ple_window_ps = NONE,
	.ple_grow = DEF_PLE_GROW,
	.ple_exit_ps = DEF_PLE_EXIT_PS,
	.halt_ps = DEF_HALT_PS,
	.kick_ps = DEF_KICK_PS,
	.wake_ps = DEF_WAKE_PS,
	.switch_ps = DEF_SWITCH_PS,
	.slice_spread_pct = DEF_SLICE_SPREAD_PCT,
	.guest_yield = true, /* KVM's directed yield (kvm_vcpu_on_spin), since Linux 2.6.39 */
};

struct vm_state *sim_vm;

/* ------------------------------------------------------------ options */

struct vm_opt {
	const char *name;
	uint64_t *field;
	uint64_t unit_ps; /* 0: a plain number */
	uint64_t lo, hi;
};

static const struct vm_opt opts[] = {
	{ "--slice-us", &vm_prm.slice_ps, US_PS, 1, 1000000 },
	{ "--ple-window-ns", &vm_prm.ple_window_ps, NS_PS, 0, 1000000000 },
	{ "--ple-grow", &vm_prm.ple_grow, 0, 1, 64 },
	{ "--ple-exit-ns", &vm_prm.ple_exit_ps, NS_PS, 0, 10000000 },
	{ "--halt-ns", &vm_prm.halt_ps, NS_PS, 0, 10000000 },
	{ "--kick-ns", &vm_prm.kick_ps, NS_PS, 0, 10000000 },
	{ "--wake-ns", &vm_prm.wake_ps, NS_PS, 0, 10000000 },
	{ "--switch-ns", &vm_prm.switch_ps, NS_PS, 0, 10000000 },
	{ "--pcpus", &vm_prm.pcpus, 0, 0, WL_MAX_THREADS },
	{ "--slice-spread-pct", &vm_prm.slice_spread_pct, 0, 0, MAX_SLICE_SPREAD_PCT },
};

#define NR_OPTS (sizeof(opts) / sizeof(opts[0]))

int vm_parse_option(const char *opt, const char *val, char *err, size_t errlen)
{
	if (!strcmp(opt, "--co-guests")) {
		if (strcmp(val, "busy") && strcmp(val, "none") && strcmp(val, "same")) {
			snprintf(err, errlen, "--co-guests: '%s' is not none, busy or same", val);
			return -1;
		}
		vm_prm.busy_guests = !strcmp(val, "busy");
		vm_prm.same_guests = !strcmp(val, "same");
		if (!vm_prm.given)
			vm_prm.given = "--co-guests";
		return 1;
	}
	if (!strcmp(opt, "--slice-us") && !strcmp(val, "cfs")) { /* the default, said */
		vm_prm.slice_ps = 0;
		if (!vm_prm.given)
			vm_prm.given = "--slice-us";
		return 1;
	}
	if (!strcmp(opt, "--ple-yield")) {
		if (strcmp(val, "pcpu") && strcmp(val, "guest")) {
			snprintf(err, errlen, "--ple-yield: '%s' is not pcpu or guest", val);
			return -1;
		}
		vm_prm.guest_yield = !strcmp(val, "guest");
		if (!vm_prm.given)
			vm_prm.given = "--ple-yield";
		return 1;
	}
	for (size_t i = 0; i < NR_OPTS; i++) {
		const struct vm_opt *o = &opts[i];
		uint64_t v;

		if (strcmp(opt, o->name))
			continue;
		if (cli_parse_u64(val, &v) || v < o->lo || v > o->hi) {
			snprintf(err, errlen, "%s: '%s' is not a whole number in %llu..%llu%s", opt, val,
				 (unsigned long long)o->lo, (unsigned long long)o->hi,
				 o->field == &vm_prm.slice_ps ? ", or cfs" : "");
			return -1;
		}
		*o->field = o->unit_ps ? v * o->unit_ps : v;
		vm_prm.spread_given |= o->field == &vm_prm.slice_spread_pct;
		if (!vm_prm.given)
			vm_prm.given = o->name;
		return 1;
	}
	return 0;
}

/* CFS scales its latency and granularity by 1 + log2 of the host's CPUs,
 * counted up to 8: 4 on any machine of 8 hardware threads or more. */
static uint64_t cfs_scale(void)
{
	unsigned cpus = sim.topo_loaded ? sim.topo.ncores : CFS_SCALE_CPUS, f = 1;

	if (cpus > CFS_SCALE_CPUS)
		cpus = CFS_SCALE_CPUS;
	while (cpus >>= 1)
		f++;
	return f;
}

/* CFS's slice of one of n runnable tasks of equal weight on a CPU: the
 * latency shared among them, at least the minimum granularity (sched_slice
 * with __sched_period, kernel/sched/fair.c); or --slice-us. */
static uint64_t slice_of(unsigned n, uint64_t latency_ps, uint64_t min_gran_ps)
{
	uint64_t s = latency_ps / (n ? n : 1);

	if (!vm_cfs())
		return vm_prm.slice_ps;
	return s > min_gran_ps ? s : min_gran_ps;
}

/* The mean slice where n vCPUs share each pCPU, before a run (the host's
 * constants from the topology loaded). */
static uint64_t mean_slice_ps(unsigned n)
{
	return slice_of(n, CFS_LATENCY_PS * cfs_scale(), CFS_MIN_GRAN_PS * cfs_scale());
}

/* The most vCPUs one pCPU holds with a guest of vcpus at overcommit x:
 * the layout's, whose placement keeps pCPUs within one vCPU of each
 * other (16 vCPUs at 3x: 5 pCPUs, one of them holding 4). */
static unsigned per_pcpu_at(unsigned vcpus, double x)
{
	unsigned p = 0, others = 0, total;

	vm_layout(vcpus, x, &p, &others);
	total = vcpus + others;
	return p && total > p ? (total + p - 1) / p : 1;
}

/* A run of fewer slices than this, overcommitted, is mostly the first
 * turns of the host's rotation: a vCPU queued behind others may never run.
 * The warning asks for ADVISED_SLICES (docs/vm.md asks for many). */
#define FEW_SLICES 3
#define ADVISED_SLICES 10

/* An overcommitted run of few slices (what: "a run of 2 ms"; n the
 * vCPUs a pCPU holds where its slices are the longest), said once, on
 * stderr. */
static void say_short_run(const char *what, uint64_t run_ps, unsigned n, bool ops)
{
	static bool said;
	uint64_t slice = mean_slice_ps(n);
	double slices = (double)run_ps / (double)slice;
	char whose[96];

	if (said)
		return;
	said = true;
	if (!vm_cfs())
		snprintf(whose, sizeof(whose), "--slice-us");
	else
		snprintf(whose, sizeof(whose), "CFS's with %u vCPUs a pCPU; --slice-us sets one", n);
	fprintf(stderr,
		"locklab-sim: warning: --vm: %s is %.*f slices of %llu us (%s): "
		"overcommitted, some vCPUs may never run; give it %u slices, --duration %llu%s, or "
		"more (docs/vm.md)\n",
		what, slices < 0.1 ? 2 : 1, slices, (unsigned long long)(slice / US_PS), whose,
		ADVISED_SLICES,
		(unsigned long long)((ADVISED_SLICES * slice + 999999999ull) / 1000000000ull),
		ops ? " in place of --ops" : "");
}

/* Of a sweep's overcommitted points, the one whose slices are the
 * longest (CFS's shrink as vCPUs share a pCPU): its run has the fewest.
 * Its vCPUs a pCPU, or 0 when no point is overcommitted. */
static unsigned longest_slices(const struct wl_config *cfg)
{
	unsigned best = 0;

	for (unsigned i = 0; i < cfg->novercommit; i++) {
		unsigned n = per_pcpu_at(cfg->vm_vcpus, cfg->overcommit[i]);

		if (cfg->overcommit[i] > 1.0 && n > 1 &&
		    (!best || mean_slice_ps(n) > mean_slice_ps(best)))
			best = n;
	}
	return best;
}

/* An overcommitted --duration of fewer than FEW_SLICES host slices: the
 * vCPUs a pCPU holds where its slices are the longest, or 0. */
static unsigned short_run_slices(const struct wl_config *cfg)
{
	uint64_t run_ps = cfg->duration_ms * 1000000000ull;
	unsigned n = cfg->vm_vcpus ? longest_slices(cfg) : 0;

	return cfg->ops || !n || run_ps >= FEW_SLICES * mean_slice_ps(n) ? 0 : n;
}

static void warn_short_run(const struct wl_config *cfg)
{
	unsigned n = short_run_slices(cfg);
	char what[64];

	if (!n)
		return;
	snprintf(what, sizeof(what), "a run of %llu ms", (unsigned long long)cfg->duration_ms);
	say_short_run(what, cfg->duration_ms * 1000000000ull, n, false);
}

/* The warning's gist on the settings line, which a table written to a
 * file keeps where stderr is gone. */
static size_t short_run_text(const struct wl_config *cfg, char *buf, size_t len)
{
	unsigned n = cfg ? short_run_slices(cfg) : 0;
	double slices;

	if (!n)
		return 0;
	slices = (double)(cfg->duration_ms * 1000000000ull) / (double)mean_slice_ps(n);
	return (size_t)snprintf(buf, len, "; a run is %.*f of the host's %llu us slices: too short "
				"overcommitted (%u or more advised, docs/vm.md)", slices < 0.1 ? 2 : 1, slices,
				(unsigned long long)(mean_slice_ps(n) / US_PS), ADVISED_SLICES);
}

/* The host a layout makes must be the overcommit X asked for, which labels
 * the row and fills the CSV's overcommit: --pcpus P holds X P vCPUs, at least
 * the guest's V, and any others are co-guests the user named (busy or same);
 * whole pCPUs and vCPUs must come within a tenth of X (wl_vm_ratio_check). */
static int check_layout(unsigned v, double x, char *err, size_t errlen)
{
	unsigned p, others, host = (unsigned)(x * (double)vm_prm.pcpus + 0.5);

	vm_layout(v, x, &p, &others);
	if (vm_prm.pcpus && host < v) {
		snprintf(err, errlen, "--pcpus %u --overcommit %g: %u vCPUs on the host, fewer than "
			 "the guest's %u (--vm)", p, x, host, v);
		return -1;
	}
	if (others && !vm_prm.busy_guests && !vm_prm.same_guests) {
		snprintf(err, errlen, "--pcpus %u --overcommit %g: %u vCPUs on the host, %u of them "
			 "not the guest's: say who they are (--co-guests busy or same)", p, x,
			 v + others, others);
		return -1;
	}
	return wl_vm_ratio_check(v, v + others, p, x, err, errlen);
}

int vm_check(const struct wl_config *cfg, char *err, size_t errlen)
{
	if (vm_prm.given && !cfg->vm_vcpus) {
		snprintf(err, errlen, "%s: a hypervisor setting, which needs --vm", vm_prm.given);
		return -1;
	}
	for (unsigned i = 0; cfg->vm_vcpus && i < cfg->novercommit; i++)
		if (check_layout(cfg->vm_vcpus, cfg->overcommit[i], err, errlen) ||
		    vm_same_check(cfg, cfg->overcommit[i], err, errlen))
			return -1;
	return 0;
}

/* An --ops run's length is known only from its result: the shortest
 * overcommitted one, if it lasted a few slices, is said as a --duration is. */
void vm_warn_results(const struct wl_config *cfg, const struct output_set *o)
{
	double fewest = 0, secs = 0;
	unsigned n = 0;
	char what[96];

	if (!cfg->vm_vcpus || !cfg->ops)
		return;
	for (size_t i = 0; i < o->nrows; i++) { /* the run of the fewest slices */
		const struct run_result *r = &o->rows[i];
		unsigned k = per_pcpu_at(cfg->vm_vcpus, r->vm.overcommit);
		double slices = r->duration_s * 1e12 / (double)mean_slice_ps(k);

		if (!r->failure[0] && r->vm.has_vm && r->vm.overcommit > 1.0 && k > 1 &&
		    (!n || slices < fewest)) {
			fewest = slices;
			secs = r->duration_s;
			n = k;
		}
	}
	if (!n || fewest >= FEW_SLICES)
		return;
	snprintf(what, sizeof(what), "an overcommitted run of --ops %llu lasted %.0f us: it",
		 (unsigned long long)cfg->ops, secs * 1e6);
	say_short_run(what, (uint64_t)(secs * 1e12), n, true);
}

/* An overcommitted configuration whose busy vCPUs fit their pCPUs: fewer
 * threads than the guest's V leave vCPUs idle, which halt and take no pCPU,
 * so its row's xN is the vCPUs the host holds, not those that compete. */
static void warn_idle_vcpus(const struct wl_config *cfg)
{
	for (unsigned i = 0; i < cfg->novercommit; i++) {
		unsigned p, others, t;

		vm_layout(cfg->vm_vcpus, cfg->overcommit[i], &p, &others);
		for (unsigned k = 0; cfg->overcommit[i] > 1.0 && k < cfg->nthreads; k++) {
			t = cfg->threads[k];
			if (t >= cfg->vm_vcpus || t + others > p)
				continue;
			fprintf(stderr, "locklab-sim: warning: --vm %u --threads %u --overcommit %g: %u of the "
				"guest's vCPUs run no thread and halt, so its %u busy vCPUs%s have %u "
				"pCPUs and share none: the row's x%.2f is what the host holds, not what "
				"competed\n", cfg->vm_vcpus, t, cfg->overcommit[i], cfg->vm_vcpus - t, t,
				others ? " and the co-guests'" : "", p, cfg->overcommit[i]);
			return;
		}
	}
}

void vm_warn(const struct wl_config *cfg)
{
	if (!cfg->vm_vcpus)
		return;
	warn_short_run(cfg);
	warn_idle_vcpus(cfg);
}

void vm_layout(unsigned vcpus, double overcommit, unsigned *pcpus, unsigned *others)
{
	unsigned total = (unsigned)(overcommit * vcpus + 0.5);

	if (vm_prm.pcpus) { /* X is the host's: X P vCPUs on its P pCPUs */
		total = (unsigned)(overcommit * (double)vm_prm.pcpus + 0.5);
		*pcpus = (unsigned)vm_prm.pcpus;
		*others = total > vcpus ? total - vcpus : 0;
		return;
	}
	if (!(vm_prm.busy_guests || vm_prm.same_guests) || overcommit <= 1.0 || total <= vcpus) {
		*pcpus = wl_vm_pcpus(vcpus, overcommit);
		*others = 0;
		return;
	}
	*pcpus = vcpus;
	*others = total - vcpus;
}

static uint64_t base_window_ps(double freq_ghz)
{
	if (vm_prm.ple_window_ps != NONE)
		return vm_prm.ple_window_ps;
	if (freq_ghz <= 0)
		freq_ghz = DEF_FREQ_GHZ;
	return (uint64_t)(DEF_PLE_WINDOW_CYCLES * 1000.0 / freq_ghz + 0.5);
}

size_t vm_assumed(const struct wl_config *cfg, char *buf, size_t len)
{
	bool ple_clock = vm_prm.ple_window_ps == NONE && sim.topo.freq_ghz <= 0;
	const char *part[2];
	unsigned n = 0;
	size_t used = 0;

	if (len)
		*buf = 0;
	if (!cfg->vm_vcpus)
		return 0;
	if (vm_prm.processes) {
		bool one_socket = cfg->pin == PIN_SOCKET || cfg->pin == PIN_NODE ||
				  sim.topo.nsockets < 2;

		return (size_t)snprintf(buf, len, "the OS model's slice spread, context switch "
					"(OS_SWITCH_PS), processes in the root task group (no "
					"autogroup) for wake_affine%s (docs/filelock.md)",
					one_socket ? "" : ", which pulls across sockets (no "
					"firmware distance beyond RECLAIM_DISTANCE)");
	}
	if (!vm_prm.spread_given) /* a spread given is the user's */
		part[n++] = "the hypervisor's slice spread";
	if (ple_clock)
		part[n++] = "the PLE window's 2 GHz clock";
	for (unsigned i = 0; i < n; i++)
		used += (size_t)snprintf(buf + (used < len ? used : len), used < len ? len - used : 0,
					 "%s%s%s", i ? ", " : "", part[i],
					 i + 1 == n ? " (docs/vm.md)" : "");
	return used;
}

static const char *co_guests_name(void)
{
	if (vm_prm.same_guests)
		return "same";
	return vm_prm.busy_guests ? "busy" : "none";
}

/* --slice-us as JSON: its value, or "cfs" (CFS's, by the vCPUs runnable). */
static const char *slice_json(void)
{
	static char text[32];

	if (vm_cfs())
		return "\"cfs\"";
	snprintf(text, sizeof(text), "%llu", (unsigned long long)(vm_prm.slice_ps / US_PS));
	return text;
}

void vm_env_json(FILE *f)
{
	fprintf(f,
		"\"slice_us\": %s, \"ple_window_ns\": %.3f, \"ple_grow\": %llu, "
		"\"ple_exit_ns\": %.3f, \"halt_ns\": %.3f, \"kick_ns\": %.3f, \"wake_ns\": %.3f, "
		"\"switch_ns\": %.3f, \"co_guests\": \"%s\"",
		slice_json(),
		(double)base_window_ps(sim.topo.freq_ghz) / 1000.0, (unsigned long long)vm_prm.ple_grow,
		(double)vm_prm.ple_exit_ps / 1000.0, (double)vm_prm.halt_ps / 1000.0,
		(double)vm_prm.kick_ps / 1000.0, (double)vm_prm.wake_ps / 1000.0,
		(double)vm_prm.switch_ps / 1000.0, co_guests_name());
	if (vm_prm.pcpus)
		fprintf(f, ", \"pcpus\": %llu", (unsigned long long)vm_prm.pcpus);
	fprintf(f, ", \"slice_spread_pct\": %llu", (unsigned long long)vm_prm.slice_spread_pct);
	fprintf(f, ", \"ple_yield\": \"%s\"", vm_prm.guest_yield ? "guest" : "pcpu");
}

/* The hypervisor a --vm run had, for the table's settings line: whose
 * slices, the PLE window and whether it grows, whom a PLE exit yields to,
 * who the co-guests are (docs/vm.md), and a run too short for them. */
size_t vm_settings_text(const struct wl_config *cfg, char *buf, size_t len)
{
	uint64_t w = base_window_ps(sim.topo.freq_ghz);
	char slices[48], ple[96];
	size_t n;

	if (vm_cfs())
		snprintf(slices, sizeof(slices), "CFS's slices +-%llu%%",
			 (unsigned long long)vm_prm.slice_spread_pct);
	else
		snprintf(slices, sizeof(slices), "slices of %llu us +-%llu%%",
			 (unsigned long long)(vm_prm.slice_ps / US_PS),
			 (unsigned long long)vm_prm.slice_spread_pct);
	if (!w)
		snprintf(ple, sizeof(ple), "no PLE");
	else
		snprintf(ple, sizeof(ple), "PLE window %.0f ns %s, a PLE exit yields %s", w / 1000.0,
			 vm_prm.ple_grow > 1 ? "growing" : "fixed",
			 vm_prm.guest_yield ? "to its guest's vCPUs (--ple-yield guest)"
					    : "within its pCPU (--ple-yield pcpu)");
	n = (size_t)snprintf(buf, len, ", hypervisor: %s, %s, co-guests %s", slices, ple,
			     co_guests_name());
	return n < len ? n + short_run_text(cfg, buf + n, len - n) : n;
}

/* ------------------------------------------------------------ a run */

/* The mean slice of p's cur now, among the vCPUs runnable on p (cur and
 * its queue), with the run's constants. */
static uint64_t pcpu_slice_ps(const struct vm_pcpu *p)
{
	return slice_of(1 + p->queued, sim_vm->cfs_latency_ps, sim_vm->cfs_min_gran_ps);
}

/* The width of the spread of slices of mean s: 2 F s, F the spread
 * (--slice-spread-pct; 0: every slice s).  s is at most --slice-us's
 * 1 s (1e12 ps): no overflow. */
static uint64_t spread_width(uint64_t s)
{
	return s * 2 * vm_prm.slice_spread_pct / 100;
}

/* The length of p's next slice: a seeded draw from [S - F S, S + F S),
 * mean S, F the spread, by default 1/2: from [S/2, 3S/2).  Real slices
 * vary (with wake-ups and the tick, which checks the slice); equal ones
 * would keep pCPUs that once switched together in step for ever.  The
 * uniform draw and its default spread are *assumed* (docs/vm.md). */
uint64_t vm_slice_len(struct vm_pcpu *p)
{
	uint64_t s = pcpu_slice_ps(p), w = spread_width(s);
	unsigned idx = (unsigned)(p - sim_vm->p);

	p->draw = mix64(sim_vm->seed ^ mix64(((uint64_t)idx << 32) + p->draws++));
	p->draw_mean_ps = s;
	return w ? s - w + w / 2 + p->draw % w : s;
}

/* A vCPU has joined p's queue while p's cur runs: CFS checks cur's run
 * since its pick against the slice of the tasks now runnable at the next
 * tick, so cur's slice ends at its pick plus the shorter slice, at the
 * same place in its spread as the slice under way, or now if that has
 * passed (taking effect at cur's next preemption point, as a boost does,
 * sim/vm_sched.c).  A fixed --slice-us does not shrink. */
void vm_slice_recount(struct vm_pcpu *p, uint64_t now)
{
	uint64_t s, w, w0, end;

	if (!vm_cfs() || p->cur < 0)
		return;
	s = pcpu_slice_ps(p);
	w0 = spread_width(p->draw_mean_ps);
	w = spread_width(s);
	end = p->pick_ps + s - w + w / 2 +
	      (w0 ? (uint64_t)((double)(p->draw % w0) * (double)w / (double)w0) : 0);
	if (end < now)
		end = now;
	if (end < p->slice_end_ps)
		p->slice_end_ps = end;
}

bool vm_is_other(unsigned i)
{
	return !vm_prm.same_guests && i >= sim_vm->vcpus;
}

unsigned vm_guest_of(unsigned i)
{
	return i / sim_vm->vcpus;
}

/* p's vCPUs at the start, in index order from a seeded one: the first
 * runs, the others queue (so that the guest does not start with every one
 * of its vCPUs running while the co-guests wait). */
static void first_turns(struct vm_pcpu *p)
{
	unsigned idx = (unsigned)(p - sim_vm->p), count = 0, k, skip;

	for (unsigned i = 0; i < sim_vm->nv; i++)
		count += sim_vm->v[i].pcpu == idx && sim_vm->v[i].state != VC_GONE;
	if (!count)
		return;
	skip = (unsigned)(mix64(sim_vm->seed ^ mix64(~(uint64_t)idx)) % count);
	for (unsigned round = 0; round < 2; round++) {
		k = 0;
		for (unsigned i = 0; i < sim_vm->nv; i++) {
			struct vm_vcpu *v = &sim_vm->v[i];

			if (v->pcpu != idx || v->state == VC_GONE)
				continue;
			if ((round == 0) != (k++ >= skip))
				continue;
			if (p->cur < 0) {
				p->cur = (int)i;
				v->state = VC_RUNNING;
				v->ran = true;
			} else {
				vm_rq_push_tail(p, i);
			}
		}
	}
	if (count > sim_vm->per_pcpu)
		sim_vm->per_pcpu = count;
}

/* A run's hypervisor state, whole or as far as vm_begin made it. */
static void vm_free(struct vm_state *vm)
{
	sim_vm = NULL;
	if (!vm)
		return;
	free(vm->v);
	free(vm->p);
	free(vm->last_boosted);
	free(vm->pcore);
	free(vm->sib);
	free(vm->llc);
	free(vm);
}

int vm_begin(struct wl_run *run, double freq_ghz)
{
	struct vm_state *vm = calloc(1, sizeof(*vm));
	unsigned n = run->nthreads, vcpus = run->cfg->vm_vcpus, np = 0, others = 0;

	if (vm)
		vm_layout(vcpus, run->overcommit, &np, &others);
	if (!vm || !np || n > vcpus + others || (n > vcpus && n != vcpus + others))
		goto fail;
	vm->nv = vcpus + others;
	vm->v = calloc(vm->nv, sizeof(*vm->v));
	vm->p = calloc(np, sizeof(*vm->p));
	vm->last_boosted = calloc((vm->nv + vcpus - 1) / vcpus, sizeof(*vm->last_boosted));
	vm->pcore = calloc(np, sizeof(*vm->pcore));
	vm->sib = calloc(np, sizeof(*vm->sib));
	vm->llc = calloc(np, sizeof(*vm->llc));
	if (!vm->v || !vm->p || !vm->last_boosted || !vm->pcore || !vm->sib || !vm->llc)
		goto fail;
	vm->run = run;
	vm->nthreads = n;
	vm->vcpus = vcpus;
	vm->np = np;
	vm->window_ps = base_window_ps(freq_ghz);
	vm->cfs_latency_ps = CFS_LATENCY_PS * cfs_scale();
	vm->cfs_min_gran_ps = CFS_MIN_GRAN_PS * (vm->cfs_latency_ps / CFS_LATENCY_PS);
	vm->cfs_wakeup_gran_ps = CFS_WAKEUP_GRAN_PS * (vm->cfs_latency_ps / CFS_LATENCY_PS);
	sim_vm = vm;
	vm->seed = run->seed;
	for (unsigned p = 0; p < np; p++)
		vm->p[p] = (struct vm_pcpu){ .cur = -1, .head = -1, .tail = -1, .next_buddy = -1,
					     .avg_idle_ps = 2 * OS_MIGRATION_COST_PS,
					     .idle_stamp_ps = NONE };
	for (unsigned i = 0; i < vm->nv; i++) {
		struct vm_vcpu *v = &vm->v[i];

		v->pcpu = wl_vm_pcpu_of(i, vcpus, vm->nv, np);
		v->next = -1;
		v->off_phase = -1;
		v->kick_ps = NONE;
		v->left_ps = NONE;
		v->ple_at_ps = NONE;
		v->window_ps = vm->window_ps;
		v->state = i >= n && i < vcpus ? VC_GONE : VC_READY; /* GONE: no thread, idle */
		if (i < n)
			vm->pcore[v->pcpu] = sim.actors[i].core; /* placed there (sim/place.c) */
	}
	if (vm_prm.processes) {
		vm_link_siblings(vm);
		for (unsigned i = 0; i < vm->nv; i++)
			vm_pelt_start(i);
	}
	for (unsigned p = 0; p < np; p++) {
		first_turns(&vm->p[p]);
		vm->p[p].slice_end_ps = vm_slice_len(&vm->p[p]); /* its queue known */
	}
	vm->k.has_vm = true;
	vm->k.has_sched = true;
	vm->k.overcommit = run->overcommit;
	vm->k.pcpus = np;
	return 0;
fail:
	vm_free(vm);
	return -1;
}

void vm_end(struct vm_counters *k)
{
	struct vm_state *vm = sim_vm;

	if (!vm)
		return;
	for (unsigned i = 0; i < vm->nthreads; i++)
		vm->k.never_ran += !vm->v[i].ran;
	*k = vm->k;
	vm_free(vm);
}

uint64_t vm_progress_bound(uint64_t bound_ps)
{
	uint64_t m;

	if (!sim_vm || sim_vm->per_pcpu <= 1) /* no vCPU waits for a pCPU */
		return bound_ps;
	m = 10 * mean_slice_ps(sim_vm->per_pcpu) * sim_vm->per_pcpu;
	return bound_ps > m ? bound_ps : m;
}
