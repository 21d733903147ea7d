/*
 * sim/sched_noise.c - scheduler noise of an unpinned run: where an OS puts
 * the threads, when it moves them, and the interrupts that steal a core.
 *
 * Placement (--pin none): distinct cores drawn uniformly from the run's
 * seed, one hardware thread per physical core first and the siblings last,
 * a fresh draw per run.  This follows the intent of Linux's
 * select_idle_sibling()/select_idle_core() (kernel/sched/fair.c): a new
 * thread goes to an idle core when there is one, to an idle SMT sibling
 * only when no core is idle.  Which idle core it picks depends on where
 * the parent ran and on the LLC domains; the model takes it as uniform.
 * --pin node:N (threads bound to a socket as a set, as a taskset of its
 * cpus) is the same within socket N's cores: the draw, the migrations and
 * the interrupts below, all inside that socket.
 *
 * Migrations (--migrate-us MEAN): each thread moves after exponential
 * intervals of mean MEAN (its own clock) to another physical core that is
 * idle (no thread on any of its hardware threads), drawn uniformly, as
 * placement prefers one; with none it swaps cores with another thread
 * drawn uniformly (each thread of a swap moves; none when that thread
 * sleeps, has ended or shares its physical core).  So a move never puts
 * two threads on one core's siblings where there were none, and never only
 * hops to a sibling of the thread's own core.  A core stays taken after
 * its thread has ended: the others, each alone on its core, leave no
 * imbalance for a balancer to even out by moving there.  No thread moves
 * after the measured interval's end, so where each sat at the end stays
 * what the run's rows say.  The actor's core changes in the coherence
 * model: the lines it held stay in the old core's cache, so it misses on
 * them afterwards.
 *
 * Interrupts (--irq-rate-hz R --irq-us L): one holds a core for L us, and
 * the next comes an exponential gap of mean 1/R after it ends, so that a
 * core loses R x L / (1 + R x L) of its time (0.05% at the default 250 Hz
 * x 2 us).  The thread on the core makes no progress meanwhile (owes L us
 * of local time, as a preempted vCPU).  One that came while the thread waited (a miss in
 * flight, a park) costs only what is left of it once the thread resumes.
 * --noise-from FILE gives up to four such classes instead, each with its
 * own rate and length, as a machine's CPUs met them (sim/noise_file.c):
 * there the rate is the measured one, detours a second of the CPUs' whole
 * time, so a class's gap is its period less its length, and a core loses
 * what the measured CPUs lost.
 *
 * Off unless --pin none or node:N (or an option here is given).
 * Everything is drawn from the run's seed: one seed, one run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/backend.h>
#include <locklab/rng.h>

#include "idle.h"
#include "observe.h"
#include "sched_noise.h"
#include "sim.h"
#include "vm.h"

#define PS_PER_US 1000000ull
#define NOISE_MAX_US 1000000000ull
#define NOISE_MAX_HZ 1000000ull
/* Defaults with --pin none (docs/variance.md): a migration every 4 ms of a
 * thread's run time (assumed); CONFIG_HZ=250 timer ticks (kernel/Kconfig.hz
 * default) of 2 us each (assumed). */
#define DEFAULT_MIGRATE_US 4000ull
#define DEFAULT_IRQ_HZ 250ull
#define DEFAULT_IRQ_US 2ull

struct noise_opt {
	const char *name;
	uint64_t hi;
	uint64_t val;
	bool given;
};

static struct noise_opt opts[] = {
	{ "--migrate-us", NOISE_MAX_US, DEFAULT_MIGRATE_US, false },
	{ "--irq-rate-hz", NOISE_MAX_HZ, DEFAULT_IRQ_HZ, false },
	{ "--irq-us", NOISE_MAX_US, DEFAULT_IRQ_US, false },
};
enum { OPT_MIGRATE, OPT_IRQ_HZ, OPT_IRQ_US, NR_OPTS };

/* --noise-from's measurement; measured.path "": not given */
static struct noise_measured measured;

struct noise_thread {
	uint64_t rng;
	uint64_t next_mig_ps, next_irq_ps[NOISE_CLASSES];
	uint64_t irq_due_ps; /* the earliest of next_irq_ps: each access checks it alone */
	unsigned irq_first;  /* its class */
};

static struct {
	bool on;
	int socket; /* migrations stay on this socket's cores; -1: any core */
	uint64_t mig_mean_ps;
	unsigned nirq; /* classes of interrupts: each its mean gap and length */
	uint64_t irq_mean_ps[NOISE_CLASSES], irq_ps[NOISE_CLASSES];
	struct noise_thread *t;
	bool *busy; /* [ncores]: a thread is on it */
	uint64_t migrations, irqs, irq_lost_ps;
} nz;

int noise_parse_option(const char *opt, const char *val, char *err, size_t errlen)
{
	if (!strcmp(opt, "--noise-from")) {
		if (measured.path[0]) {
			snprintf(err, errlen, "--noise-from: given twice");
			return -1;
		}
		return noise_file_read(val, &measured, err, errlen) ? -1 : 1;
	}
	for (unsigned i = 0; i < NR_OPTS; i++) {
		uint64_t v;

		if (strcmp(opt, opts[i].name))
			continue;
		if (cli_parse_u64(val, &v) || v > opts[i].hi) {
			snprintf(err, errlen, "%s: '%s' is not a whole number in 0..%llu", opt, val,
				 (unsigned long long)opts[i].hi);
			return -1;
		}
		opts[i].val = v;
		opts[i].given = true;
		return 1;
	}
	return 0;
}

/* Placed and moved by the OS: unbound, or bound to a socket as a set. */
static bool os_placed(enum pin_policy pin)
{
	return pin == PIN_NONE || pin == PIN_NODE;
}

int noise_check(const struct wl_config *cfg, char *err, size_t errlen)
{
	for (unsigned i = 0; i < NR_OPTS && cfg->vm_vcpus; i++)
		if (opts[i].given && opts[i].val) { /* 0 (off) says what is so */
			if (vm_are_processes())
				snprintf(err, errlen, "%s: processes that outnumber their cpus have "
					 "no scheduler noise of their own (the OS model's schedule: "
					 "docs/filelock.md)", opts[i].name);
			else
				snprintf(err, errlen, "%s: a run under --vm has no scheduler noise of "
					 "its own (the hypervisor's schedule is the model: docs/vm.md)",
					 opts[i].name);
			return -1;
		}
	if (measured.path[0] && cfg->vm_vcpus) {
		snprintf(err, errlen, "--noise-from: %s", vm_are_processes()
			 ? "processes that outnumber their cpus have no scheduler noise of their own "
			   "(the OS model's schedule: docs/filelock.md)"
			 : "a run under --vm has no scheduler noise of its own (the hypervisor's "
			   "schedule is the model: docs/vm.md)");
		return -1;
	}
	if (measured.path[0] && (opts[OPT_IRQ_HZ].given || opts[OPT_IRQ_US].given)) {
		snprintf(err, errlen, "--noise-from with %s: two models of the interrupts; give one",
			 opts[OPT_IRQ_HZ].given ? "--irq-rate-hz" : "--irq-us");
		return -1;
	}
	for (unsigned i = OPT_IRQ_HZ; i <= OPT_IRQ_US; i++) {
		unsigned j = i == OPT_IRQ_HZ ? OPT_IRQ_US : OPT_IRQ_HZ;

		if (opts[i].given && opts[i].val && opts[j].given && !opts[j].val) {
			snprintf(err, errlen, "%s %llu: means nothing with %s 0 (no interrupts)",
				 opts[i].name, (unsigned long long)opts[i].val, opts[j].name);
			return -1;
		}
	}
	/* a core interrupted all of the time: no thread would progress */
	if ((opts[OPT_IRQ_HZ].given || opts[OPT_IRQ_US].given) &&
	    (double)opts[OPT_IRQ_HZ].val * (double)opts[OPT_IRQ_US].val >= 1e6) {
		snprintf(err, errlen, "--irq-rate-hz %llu with --irq-us %llu: interrupts would take "
			 "the whole of a core (rate x length must stay under 1 s a second)",
			 (unsigned long long)opts[OPT_IRQ_HZ].val,
			 (unsigned long long)opts[OPT_IRQ_US].val);
		return -1;
	}
	if (opts[OPT_MIGRATE].given && opts[OPT_MIGRATE].val && !os_placed(cfg->pin)) {
		snprintf(err, errlen, "--migrate-us %llu: %s pinned by --pin %s do not migrate "
			 "(migrations are --pin none's and node:N's)",
			 (unsigned long long)opts[OPT_MIGRATE].val,
			 !strcmp(wl_count_opt(cfg), "--procs") ? "processes" : "threads", cfg->pin_text);
		return -1;
	}
	return 0;
}

/* The option's value for this run: given, or the default with --pin none
 * or node:N;
 * the interrupts' rate and length go together, so one of them given gives
 * the other its default on pinned threads too. */
static uint64_t opt_value(unsigned i, bool unpinned)
{
	bool irq = (i == OPT_IRQ_HZ || i == OPT_IRQ_US) &&
		   (opts[OPT_IRQ_HZ].given || opts[OPT_IRQ_US].given);

	if (opts[i].given)
		return opts[i].val;
	return unpinned || irq ? opts[i].val : 0;
}

/* The interrupts of a run of cfg outside a VM: --noise-from's, when given,
 * on pinned threads too; else --irq-rate-hz and --irq-us's, the defaults
 * unpinned.  The number of classes, each its length and its mean gap (ps)
 * from one's end to the next's start: a measured class's period less its
 * length (the file's classes lose less than all of the time between them),
 * the options' 1/R. */
static unsigned irq_classes(bool unpinned, uint64_t *mean_ps, uint64_t *len_ps)
{
	uint64_t hz = opt_value(OPT_IRQ_HZ, unpinned), us = opt_value(OPT_IRQ_US, unpinned);

	if (measured.path[0]) {
		for (unsigned k = 0; k < measured.n; k++) {
			double gap = 1e12 / measured.rate_hz[k] - (double)measured.len_ps[k];

			mean_ps[k] = gap < 1 ? 1 : (uint64_t)llround(gap);
			len_ps[k] = measured.len_ps[k];
		}
		return measured.n;
	}
	if (!hz || !us)
		return 0;
	mean_ps[0] = 1000000000000ull / hz;
	len_ps[0] = us * PS_PER_US;
	return 1;
}

/* The noise a run of cfg has outside a VM: its migration interval (us),
 * and the options' interrupt rate and length (0: none), which a file's
 * classes replace where --noise-from gave one (measured.path). */
struct noise_setting {
	uint64_t mig, hz, irq;
};

static struct noise_setting setting_of(const struct wl_config *cfg)
{
	bool unpinned = os_placed(cfg->pin) && !cfg->vm_vcpus;

	return (struct noise_setting){ opt_value(OPT_MIGRATE, unpinned),
				       opt_value(OPT_IRQ_HZ, unpinned),
				       opt_value(OPT_IRQ_US, unpinned) };
}

void noise_text(const struct wl_config *cfg, char *buf, size_t len)
{
	struct noise_setting ns = setting_of(cfg);
	size_t n = 0;

	*buf = 0;
	if (ns.mig)
		n = (size_t)snprintf(buf, len, ", migrations every %llu us on average",
				     (unsigned long long)ns.mig);
	if (measured.path[0] && n < len) {
		double hz_all = 0;

		for (unsigned k = 0; k < measured.n; k++)
			hz_all += measured.rate_hz[k];
		snprintf(buf + n, len - n, ", interrupts as measured in %s (%.0f Hz, %.2f%% of a "
			 "core's time, %u length%s)", measured.path, hz_all, 100 * measured.lost_share,
			 measured.n, measured.n == 1 ? "" : "s");
		return;
	}
	if (ns.hz && ns.irq && n < len)
		snprintf(buf + n, len - n, ", interrupts %llu Hz x %llu us", (unsigned long long)ns.hz,
			 (unsigned long long)ns.irq);
}

void noise_json(FILE *f, const struct wl_config *cfg)
{
	struct noise_setting ns = setting_of(cfg);
	const char *sep = "";

	if (!ns.mig && !measured.path[0] && !(ns.hz && ns.irq))
		return;
	fprintf(f, ", \"noise\": {");
	if (ns.mig) {
		fprintf(f, "\"migrate_us\": %llu", (unsigned long long)ns.mig);
		sep = ", ";
	}
	if (measured.path[0]) { /* the file, and the classes the run drew from it */
		fprintf(f, "%s\"noise_from\": ", sep);
		output_json_string(f, measured.path);
		fprintf(f, ", \"lost_share\": %.6f, \"classes\": [", measured.lost_share);
		for (unsigned k = 0; k < measured.n; k++)
			fprintf(f, "%s{\"rate_hz\": %.3f, \"us\": %.3f}", k ? ", " : "",
				measured.rate_hz[k], (double)measured.len_ps[k] / PS_PER_US);
		fputc(']', f);
	} else if (ns.hz && ns.irq) {
		fprintf(f, "%s\"irq_rate_hz\": %llu, \"irq_us\": %llu", sep,
			(unsigned long long)ns.hz, (unsigned long long)ns.irq);
	}
	fputc('}', f);
}

bool noise_migrates(const struct wl_config *cfg)
{
	return setting_of(cfg).mig != 0;
}

size_t noise_assumed(const struct wl_config *cfg, char *buf, size_t len)
{
	struct noise_setting ns = setting_of(cfg);
	bool mig = ns.mig && !opts[OPT_MIGRATE].given;
	bool irq = ns.irq && ns.hz && !opts[OPT_IRQ_US].given && !measured.path[0];

	if (len)
		*buf = 0;
	if (!mig && !irq)
		return 0;
	return (size_t)snprintf(buf, len, "the scheduler noise's %s%s%s (docs/variance.md)",
				mig ? "migration interval" : "", mig && irq ? " and " : "",
				irq ? "interrupt length" : "");
}

static uint64_t next_rand(uint64_t *s)
{
	*s += 0x9e3779b97f4a7c15ull;
	return mix64(*s);
}

/* An exponential draw of mean m (ps), at least 1. */
static uint64_t draw_exp(uint64_t *s, uint64_t m)
{
	double u = ((double)(next_rand(s) >> 11) + 0.5) / 9007199254740992.0;
	double x = -log(u) * (double)m;

	return x < 1.0 ? 1 : (uint64_t)x;
}

/* The class whose next interrupt comes first, into irq_first and
 * irq_due_ps (UINT64_MAX: none). */
static void irq_next(struct noise_thread *t)
{
	t->irq_due_ps = UINT64_MAX;
	for (unsigned k = 0; k < nz.nirq; k++)
		if (t->next_irq_ps[k] < t->irq_due_ps) {
			t->irq_due_ps = t->next_irq_ps[k];
			t->irq_first = k;
		}
}

static bool is_first_thread(unsigned c)
{
	return topo_phys(&sim.topo, c) == c;
}

/* ------------------------------------------------------------ placement */

/* May a thread of this run be on core c? */
static bool allowed(unsigned c, int socket)
{
	return socket < 0 || sim.topo.core_socket[c] == (unsigned)socket;
}

void noise_place(unsigned n, unsigned *cores, uint64_t seed, int socket)
{
	unsigned order[TOPO_MAX_CORES], m = 0;
	uint64_t s = mix64(seed ^ 0x706c616365ull);

	for (int pass = 0; pass < 2; pass++) {
		unsigned from = m;

		for (unsigned c = 0; c < sim.topo.ncores; c++)
			if (allowed(c, socket) && is_first_thread(c) == (pass == 0))
				order[m++] = c;
		for (unsigned i = m - 1; i > from && i < m; i--) { /* Fisher-Yates */
			unsigned j = from + (unsigned)(next_rand(&s) % (i - from + 1));
			unsigned x = order[i];

			order[i] = order[j];
			order[j] = x;
		}
	}
	for (unsigned i = 0; i < n && i < m; i++)
		cores[i] = order[i];
}

/* ------------------------------------------------------------ a run */

int noise_begin(struct wl_run *run)
{
	bool unpinned = os_placed(run->cfg->pin) && !run->vm_pcpus;

	noise_end(NULL);
	nz.mig_mean_ps = opt_value(OPT_MIGRATE, unpinned) * PS_PER_US;
	nz.nirq = irq_classes(unpinned, nz.irq_mean_ps, nz.irq_ps);
	if (run->vm_pcpus || (!nz.mig_mean_ps && !nz.nirq))
		return 0;
	nz.socket = run->cfg->pin == PIN_NODE ? (int)run->cfg->pin_socket : -1;
	nz.t = calloc(sim.nactors, sizeof(*nz.t));
	nz.busy = calloc(sim.topo.ncores, sizeof(*nz.busy));
	if (!nz.t || !nz.busy)
		return -1;
	for (unsigned i = 0; i < sim.nactors; i++) {
		struct noise_thread *t = &nz.t[i];

		nz.busy[sim.actors[i].core] = true;
		t->rng = mix64(run->seed ^ mix64(0x6e6f697365ull + i));
		t->next_mig_ps = nz.mig_mean_ps ? draw_exp(&t->rng, nz.mig_mean_ps) : UINT64_MAX;
		for (unsigned k = 0; k < NOISE_CLASSES; k++)
			t->next_irq_ps[k] = k < nz.nirq ? draw_exp(&t->rng, nz.irq_mean_ps[k])
							: UINT64_MAX;
		irq_next(t);
	}
	nz.on = true;
	return 0;
}

static bool counting(uint64_t t)
{
	return t < sim.end_ps;
}

/* Swap the cores of a and another thread drawn from a's stream; false
 * when that thread sleeps (ll_park: a sleeping task is on no CPU's run
 * queue, and the load balancer moves runnable ones), has ended, or shares
 * a's physical core (the swap would move neither off it). */
static bool swap_with_other(struct sim_actor *a, struct noise_thread *t)
{
	unsigned j = (unsigned)(next_rand(&t->rng) % (sim.nactors - 1));
	struct sim_actor *b = &sim.actors[j >= a->idx ? j + 1 : j];
	unsigned c = a->core;

	if (b->block == SIM_PARKED_KICK || b->block == SIM_EXITED ||
	    topo_phys(&sim.topo, b->core) == topo_phys(&sim.topo, c))
		return false;
	sim_set_core(a, b->core);
	sim_set_core(b, c);
	return true;
}

/* Is c a hardware thread of another physical core than a's, none of
 * whose hardware threads is busy?  (A hop to a sibling of a's own core is
 * no move: the core and its caches stay the same.) */
static bool core_idle(unsigned c, const struct sim_actor *a)
{
	unsigned sib[TOPO_MAX_SMT], n;

	if (nz.busy[c] || topo_phys(&sim.topo, c) == topo_phys(&sim.topo, a->core))
		return false;
	n = topo_siblings(&sim.topo, c, sib);
	for (unsigned k = 0; k < n; k++)
		if (nz.busy[sib[k]])
			return false;
	return true;
}

/* Move a to a hardware thread of an idle physical core it may run on
 * (node:N: of that socket), drawn from its stream; with none, swap. */
static void migrate(struct sim_actor *a, struct noise_thread *t, uint64_t now)
{
	unsigned idle = 0, k;

	for (unsigned c = 0; c < sim.topo.ncores; c++)
		idle += allowed(c, nz.socket) && core_idle(c, a);
	if (!idle && sim.nactors < 2)
		return;
	if (!idle) {
		nz.migrations += swap_with_other(a, t) && counting(now);
		return;
	}
	nz.migrations += counting(now);
	k = (unsigned)(next_rand(&t->rng) % idle);
	for (unsigned c = 0; c < sim.topo.ncores; c++) {
		if (!allowed(c, nz.socket) || !core_idle(c, a) || k--)
			continue;
		nz.busy[a->core] = false;
		nz.busy[c] = true;
		idle_vacate(a->core);
		idle_occupy(c);
		sim_set_core(a, c);
		return;
	}
}

/* What interrupt [s, s + L) costs a thread that last resumed at base: all
 * of it when it came while the thread computed, the rest of it when it
 * came while the thread waited (a miss in flight or a park overlap it). */
static uint64_t irq_cost(uint64_t s, uint64_t len, uint64_t base)
{
	if (s >= base)
		return len;
	return s + len > base ? s + len - base : 0;
}

bool sched_noise_on(void)
{
	return nz.on;
}

void sched_noise_point(struct sim_actor *a, bool tell)
{
	struct noise_thread *t;
	uint64_t now, cost;

	if (!nz.on)
		return;
	t = &nz.t[a->idx];
	now = sim.now_ps + a->owed_ps;
	while (t->irq_due_ps <= now) {
		unsigned k = t->irq_first;

		cost = irq_cost(t->next_irq_ps[k], nz.irq_ps[k], sim.now_ps);
		if (cost && tell) /* a drain's time overlaps the core's (sim/memops.c) */
			SIM_OBSERVE(local, a->idx, now, now + cost, SIM_OBS_IRQ);
		a->owed_ps += cost;
		now += cost;
		if (counting(t->next_irq_ps[k])) {
			nz.irqs++;
			nz.irq_lost_ps += cost;
		}
		t->next_irq_ps[k] += nz.irq_ps[k] + draw_exp(&t->rng, nz.irq_mean_ps[k]);
		irq_next(t);
	}
	if (t->next_mig_ps <= now && counting(now)) { /* none after the measured end: */
		migrate(a, t, now);			  /* where a thread sat stays said */
		t->next_mig_ps = now + draw_exp(&t->rng, nz.mig_mean_ps);
	}
}

void noise_end(struct sim_counters *c)
{
	if (c && nz.on) {
		c->has_noise = true;
		c->migrations = nz.migrations;
		c->irqs = nz.irqs;
		c->irq_lost_ps = nz.irq_lost_ps;
	}
	free(nz.t);
	free(nz.busy);
	nz.t = NULL;
	nz.busy = NULL;
	nz.on = false;
	nz.migrations = nz.irqs = nz.irq_lost_ps = 0;
}
