/*
 * sim/filelock_cmd.c - `locklab-sim filelock`: lockperf's file-lock tests
 * on the simulated machine, run through the model of Linux 4.1's
 * fs/locks.c (core/filelock_wl.c), with the global part as 4.1 has it
 * (lglock) or as the percpu-rwsem patches make it (docs/filelock.md).
 *
 * The options are those of `locklab-native filelock` (less --dir and
 * --timeout, which concern real files), and --global, --topo, --seed.
 * The table is lockperf's: mean, variance, sigma, max and min of the time
 * of one run (simulated seconds), then the herd the model counted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/args.h>
#include <locklab/backend.h>
#include <locklab/result.h>
#include <locklab/stats.h>

#include "../core/filelock_cli.h"
#include "sched_noise.h"
#include "sim.h"
#include "switches.h"
#include "vm.h"

#define FLC_MAX_RUNS 10000
#define FLC_DEFAULT_ITERS 1000
#define FLC_DEFAULT_RUNS 5

struct flc_opts {
	bool test[FLW_NTESTS];
	bool shared, private;
	unsigned procs, runs;
	unsigned cpus; /* those --pin gives the processes (sim_pin_cpus) */
	uint64_t iterations, seed;
	enum flw_global global;
	const char *csv;
	struct wl_config cfg; /* topo, pin, seed */
};

struct flc_result {
	struct flw_config fc;
	double *secs;
	struct flw_counters *runs; /* each run's, for the CSV */
	struct flw_counters cnt;   /* summed over the runs, max_woken the max */
};

static const struct ll_opt flc_opts_table[] = {
	LL_VALUE("--test"), LL_VALUE("--procs"),   LL_FLAG("--shared"), LL_FLAG("--private"),
	LL_VALUE("--iterations"), LL_VALUE("--runs"), LL_VALUE("--pin"), LL_VALUE("--csv"),
	LL_VALUE("--global"), LL_VALUE("--topo"), LL_VALUE("--seed"), LL_VALUE("--idle-states"),
	LL_VALUE("--snoop-travel"), LL_VALUE("--lat-spread"),
	LL_VALUE("--migrate-us"), LL_VALUE("--irq-rate-hz"), LL_VALUE("--irq-us"),
	LL_VALUE("--noise-from"), LL_OPTS_END,
};

static void flc_usage(FILE *f)
{
	fprintf(f, "usage: locklab-sim filelock [--test flock,posix,lease] [--procs N] [--shared|--private]\n"
		   "              [--iterations N] [--runs R] [--pin POLICY] [--csv FILE]\n"
		   "              [--global lglock|percpu-rwsem] [--topo NAME|FILE] [--seed S]\n"
		   "              [--idle-states on|off] [--migrate-us N] [--irq-rate-hz R] [--irq-us L]\n"
		   "              [--noise-from FILE] [--snoop-travel PCT] [--lat-spread PCT]\n"
		   "              Linux 4.1 file locks, lockperf style, simulated (docs/filelock.md);\n"
		   "              defaults: --test flock,posix,lease, --procs 8, both --shared and\n"
		   "              --private, --iterations %d, --runs %d, --pin compact, --global lglock,\n"
		   "              --topo " SIM_DEFAULT_TOPO ", --seed 1, the topology's idle states where it\n"
		   "              has some (--idle-states on: its idle.states, refused on a topology\n"
		   "              without; off: a sleeper's CPU polls, idle=poll, no exit latency);\n"
		   "              --pin none or node:N: migrations and interrupts as run's\n"
		   "              (docs/variance.md); more processes than the cpus --pin gives\n"
		   "              them share those cpus by an OS model (CFS, no preemption inside\n"
		   "              a call; no idle states, no noise: docs/filelock.md);\n"
		   "              --snoop-travel and --lat-spread as run's (docs/mechanisms.md)\n",
		FLC_DEFAULT_ITERS, FLC_DEFAULT_RUNS);
}

/* What makes one run differ from another, and what the times rest on:
 * said once, under the tables. */
static void legend(const struct flc_opts *o)
{
	char text[2048]; /* the assumed line: up to twice a topology's 511-character list */
	bool kick = sim.topo.kick_given && !o->cfg.vm_vcpus; /* --vm: the hypervisor's kick */

	putchar('\n');
	if (o->runs > 1)
		printf("runs differ by their seeds (run r: run_seed(%llu, r)): the processes' start "
		       "skew of up to %g us (FLW_SKEW_NS, *assumed*; docs/filelock.md)%s, and the "
		       "scheduler noise a heading names, if any%s\n",
		       (unsigned long long)o->cfg.seed, FLW_SKEW_NS / 1000.0,
		       o->cfg.vm_vcpus ? ", the OS model's slices (seeded lengths)"
		       : o->cfg.pin == PIN_NONE || o->cfg.pin == PIN_NODE ? ", their placement" : "",
		       sim_lat_spread() ? ", and each miss's latency (the heading's latency spread)" : "");
	if (o->cfg.vm_vcpus && o->procs % o->cpus) /* the OS model: an uneven split */
		printf("the OS model moves a process only when it is woken or a cpu goes idle: cpus "
		       "with %u processes at the start: %u of %u (the rest have %u); where the "
		       "processes never sleep (private files, leases) those keep them until others "
		       "run out of work, and set a run's time (docs/filelock.md)\n",
		       o->procs / o->cpus + 1, o->procs % o->cpus, o->cpus, o->procs / o->cpus);
	if (sim_topo_file_note(&o->cfg, text, sizeof(text))) /* a copy that carries a shipped name */
		printf("the machine: %s\n", text);
	backend_assumed(&o->cfg, text, sizeof(text));
	printf("the times rest on the file-lock path's *assumed* syscall and slab costs "
	       "(FLW_SYSCALL_NS, FLW_ALLOC_NS) and futex %s delays (%s; docs/filelock.md)%s%s\n",
	       kick ? "wait and wake-up" : "wait, wake and wake-up",
	       kick ? "SIM_HALT_PS, SIM_WAKE_PS; the wake's own cost is the machine's park.kick"
		    : "SIM_HALT_PS, SIM_KICK_PS, SIM_WAKE_PS",
	       *text ? "; " : "", text);
}

static int flc_main(int argc, char **argv);

const struct ll_command sim_filelock_cmd = {
	.name = "filelock", .main = flc_main, .usage = flc_usage, .opts = flc_opts_table,
};

#define BAD(...) ll_bad("filelock", __VA_ARGS__)

static int parse_valued(const char *a, const char *v, struct flc_opts *o)
{
	uint64_t n;

	if (!strcmp(a, "--test"))
		return flw_parse_tests(v, o->test);
	if (!strcmp(a, "--pin"))
		return flw_parse_pin(v, &o->cfg);
	if (!strcmp(a, "--csv")) {
		o->csv = v;
		return 0;
	}
	if (!strcmp(a, "--topo")) {
		o->cfg.topo = v;
		return 0;
	}
	if (!strcmp(a, "--global")) {
		for (int g = 0; g < 2; g++)
			if (!strcmp(v, flw_global_names[g])) {
				o->global = (enum flw_global)g;
				return 0;
			}
		return BAD("--global: '%s' is not lglock or percpu-rwsem", v);
	}
	if (!strcmp(a, "--seed"))
		return flw_parse_seed(v, &o->cfg.seed);
	if (!strcmp(a, "--idle-states") || !strcmp(a, "--snoop-travel") ||
	    !strcmp(a, "--lat-spread")) {
		char err[128];

		return sim_switch_parse(a, v, err, sizeof(err)) < 0 ? BAD("%s", err) : 0;
	}
	if (!strncmp(a, "--migrate-us", 12) || !strncmp(a, "--irq-", 6) ||
	    !strcmp(a, "--noise-from")) {
		char err[800]; /* --noise-from's lines name the file */

		return noise_parse_option(a, v, err, sizeof(err)) < 0 ? BAD("%s", err) : 0;
	}
	if (!strcmp(a, "--procs")) {
		if (flw_parse_count(a, v, WL_MAX_THREADS, &n))
			return 2;
		o->procs = (unsigned)n;
		return 0;
	}
	if (!strcmp(a, "--runs")) {
		if (flw_parse_count(a, v, FLC_MAX_RUNS, &n))
			return 2;
		o->runs = (unsigned)n;
		return 0;
	}
	return flw_parse_count(a, v, 1000000000ull, &o->iterations);
}

static void set_defaults(struct flc_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->iterations = FLC_DEFAULT_ITERS;
	o->runs = FLC_DEFAULT_RUNS;
	o->procs = 8;
	o->cfg.seed = 1;
	o->cfg.topo = sim.topo_arg_opt;
	flw_parse_pin("compact", &o->cfg);
}

/* 0, 1 after --help, or 2 after one line on stderr. */
static int parse_opts(int argc, char **argv, struct flc_opts *o)
{
	struct ll_args a;
	char err[256];
	int rc;

	set_defaults(o);
	ll_args_init(&a, &sim_filelock_cmd, argc, argv);
	while ((rc = ll_args_next(&a, err, sizeof(err))) == LL_ARG_OPT) {
		if (!a.val) {
			*(a.name[2] == 's' ? &o->shared : &o->private) = true;
			continue;
		}
		if (!*a.val)
			return BAD("%s: its value is empty", a.name);
		rc = parse_valued(a.name, a.val, o);
		if (rc)
			return rc;
	}
	if (rc == LL_ARG_HELP) {
		flc_usage(stdout);
		return 1;
	}
	if (rc == LL_ARG_BAD)
		return BAD("%s", err);
	flw_default_choices(o->test, &o->shared, &o->private);
	return 0;
}

/* ------------------------------------------------------------ output */

static const char *mode_name(const struct flw_config *fc)
{
	if (!fc->shared)
		return fc->test == FLW_LEASE ? "private files, write leases" : "private files";
	return fc->test == FLW_LEASE ? "shared file, read leases" : "shared file";
}

static void table_heading(const struct flc_opts *o, enum flw_test t)
{
	char noise[512];
	size_t n;

	n = sim_switch_text(noise, sizeof(noise)); /* ", latency spread 10% (--lat-spread)" */
	if (n < sizeof(noise))
		noise_text(&o->cfg, noise + n, sizeof(noise) - n); /* ", migrations every ..." */
	if (o->cfg.vm_vcpus) /* the processes outnumber their cpus */
		snprintf(noise + n, sizeof(noise) - n, ", the OS model: %u processes on %u cpus, %s, CFS; "
			 "woken ones placed, idle balance only; sc memory, no idle states, no scheduler noise",
			 o->procs, o->cpus, strcmp(o->cfg.pin_text, "none")
						    ? "each process on any of them, not bound to one"
						    : "the machine's");
	printf("\n%s  procs=%u iterations=%llu pin=%s%s%s%s global=%s   (time per run, simulated ms; "
	       "variance in ms^2)\n",
	       flw_test_names[t], o->procs, (unsigned long long)o->iterations, o->cfg.pin_text,
	       *noise ? " (" : "", *noise ? noise + 2 : "", *noise ? ")" : "",
	       flw_global_names[o->global]);
	printf("%-*s %12s %12s %12s %12s %12s\n", FLW_LABEL_W, "", "mean", "variance", "sigma",
	       "max", "min");
}

/* The wake-ups from an idle state, every state together. */
static uint64_t idle_wakes(const struct flw_counters *c)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < sim.topo.nidle; i++)
		n += c->idle_wakes[i];
	return n;
}

/* The idle states the runs used, and the wake-ups from each. */
static void idle_row(const struct flc_opts *o, const struct flw_counters *c)
{
	char text[160];
	uint64_t n = idle_wakes(c);

	sim_idle_text(&o->cfg, text, sizeof(text));
	printf("%-*s %s", FLW_LABEL_W, "", text);
	if (n) {
		printf("; %s%llu wake-ups from them (", o->runs > 1 ? "all runs: " : "",
		       (unsigned long long)n);
		for (unsigned i = 0; i < sim.topo.nidle; i++)
			printf("%s%s %llu", i ? ", " : "", sim.topo.idle[i].name,
			       (unsigned long long)c->idle_wakes[i]);
		printf("), %.1f us exit latency each on average", (double)c->idle_exit_ns / 1e3 / (double)n);
	}
	printf("\n");
}

/* The OS model's preemptions, where the processes outnumber their cpus; a
 * holder of a private file's lock or lease kept no one waiting. */
static void sched_row(const struct flc_opts *o, const struct flc_result *r)
{
	const struct flw_counters *c = &r->cnt;

	printf("%-*s the OS model: %spreemptions %llu (of a process holding its lock %llu%s",
	       FLW_LABEL_W, "", o->runs > 1 ? "all runs: " : "", (unsigned long long)c->preemptions,
	       (unsigned long long)c->holder_preemptions,
	       r->fc.shared || !c->holder_preemptions ? "" : ", its own file's: no one waited for it");
	if (c->holder_preemptions)
		printf(", each off its cpu %.1f us on average",
		       (double)c->holder_lost_ns / 1e3 / (double)c->holder_preemptions);
	printf("; of one waiting for its lock %llu); woken ones aimed at the waker's cpu %llu; "
	       "woken onto a cpu other than their last (by either step) %llu; taken over by a cpu "
	       "going idle %llu\n",
	       (unsigned long long)c->waiter_preemptions, (unsigned long long)c->affine_wakes,
	       (unsigned long long)c->wake_moves, (unsigned long long)c->idle_pulls);
}

static void table_row(const struct flc_opts *o, const struct flc_result *r)
{
	const struct flw_counters *c = &r->cnt;
	static double ms[FLC_MAX_RUNS];
	struct ll_summary s;
	char label[128];

	for (unsigned i = 0; i < o->runs; i++)
		ms[i] = r->secs[i] * 1e3;
	ll_summarize(ms, o->runs, &s);
	snprintf(label, sizeof(label), "sim %s %s", backend_topo_name(&o->cfg), mode_name(&r->fc));
	if (o->runs == 1)
		printf("%-*s %12.6f   (single run: no variance)\n", FLW_LABEL_W, label, s.mean);
	else
		printf("%-*s %12.6f %12.3e %12.6f %12.6f %12.6f  ( sigma/mean %.2f%% )\n",
		       FLW_LABEL_W, label, s.mean, s.variance, s.sigma, s.max, s.min,
		       s.mean > 0 ? 100 * s.sigma / s.mean : 0);
	printf("%-*s %.0f lock+unlock pairs/s (all processes, over the mean time); %ssleeps %llu, "
	       "woken %llu (by %llu of the %llu unlocks, at most %llu by one), slept again %llu\n",
	       FLW_LABEL_W, "", s.mean > 0 ? (double)o->procs * (double)o->iterations / (s.mean / 1e3) : 0,
	       o->runs > 1 ? "all runs: " : "", (unsigned long long)c->sleeps,
	       (unsigned long long)c->wakeups, (unsigned long long)c->waking_unlocks,
	       (unsigned long long)o->procs * o->iterations * o->runs,
	       (unsigned long long)c->max_woken, (unsigned long long)c->resleeps);
	if (c->has_sched)
		sched_row(o, r);
	else
		idle_row(o, c);
}

struct flc_csv {
	const struct flc_opts *o;
	const struct flc_result *res;
	unsigned n;
};

static void csv_rows(FILE *f, const void *arg)
{
	const struct flc_csv *c = arg;
	const struct flc_opts *o = c->o;
	char idle[128];

	sim_idle_field(&o->cfg, idle, sizeof(idle));
	fprintf(f, "backend,topo,test,mode,global,procs,iterations,pin,seed,run,seconds,pairs_per_s,"
		   "sleeps,wakeups,resleeps,idle_states,idle_wakes,idle_exit_ns_per_wake,migrations,irqs,"
		   "preemptions,holder_preemptions,waiter_preemptions,affine_wakes,wake_moves,idle_pulls,"
		   "waking_unlocks,max_woken\n");
	for (unsigned k = 0; k < c->n; k++)
		for (unsigned i = 0; i < o->runs; i++) {
			const struct flw_config *fc = &c->res[k].fc;
			const struct flw_counters *r = &c->res[k].runs[i];
			double s = c->res[k].secs[i];
			uint64_t wakes = idle_wakes(r);

			fputs("sim,", f);
			output_csv_field(f, backend_topo_name(&o->cfg)); /* a path may hold commas */
			fprintf(f, ",%s,%s,%s,%u,%llu,", flw_test_names[fc->test], fc->shared ? "shared" : "private",
				flw_global_names[fc->global], o->procs,
				(unsigned long long)o->iterations);
			output_csv_field(f, o->cfg.pin_text); /* list:0,1 holds commas */
			fprintf(f, ",%llu,%u,%.9f,%.2f,%llu,%llu,%llu,%s,", (unsigned long long)o->cfg.seed,
				i, s,
				s > 0 ? (double)o->procs * (double)o->iterations / s : 0,
				(unsigned long long)r->sleeps, (unsigned long long)r->wakeups,
				(unsigned long long)r->resleeps, idle);
			if (!r->has_sched && sim.topo.nidle && wakes)
				fprintf(f, "%llu,%.1f,", (unsigned long long)wakes,
					(double)r->idle_exit_ns / (double)wakes);
			else if (!r->has_sched && sim.topo.nidle)
				fprintf(f, "0,,"); /* no wake-up: no mean exit latency */
			else /* no idle state applies (none, or the OS model's): empty, not 0 */
				fprintf(f, ",,");
			if (r->has_noise) /* empty without scheduler noise, as run's are absent */
				fprintf(f, "%llu,%llu,", (unsigned long long)r->migrations,
					(unsigned long long)r->irqs);
			else
				fprintf(f, ",,");
			if (r->has_sched) /* empty while every process has a cpu of its own */
				fprintf(f, "%llu,%llu,%llu,%llu,%llu,%llu,", (unsigned long long)r->preemptions,
					(unsigned long long)r->holder_preemptions,
					(unsigned long long)r->waiter_preemptions,
					(unsigned long long)r->affine_wakes,
					(unsigned long long)r->wake_moves, (unsigned long long)r->idle_pulls);
			else
				fprintf(f, ",,,,,,");
			fprintf(f, "%llu,%llu\n", (unsigned long long)r->waking_unlocks,
				(unsigned long long)r->max_woken);
		}
}

/* ------------------------------------------------------------ the command */

static int run_test(const struct flc_opts *o, struct flc_result *r)
{
	char why[512];

	r->secs = calloc(o->runs, sizeof(double));
	r->runs = calloc(o->runs, sizeof(*r->runs));
	if (!r->secs || !r->runs)
		return BAD("out of memory");
	for (unsigned i = 0; i < o->runs; i++) {
		struct flw_counters c;
		int rc = flw_run_once(&r->fc, &o->cfg, o->procs, i, &r->secs[i], &c, why,
				      sizeof(why));

		if (rc == 2)
			return BAD("%s", why);
		if (rc) {
			ll_say("filelock", "%s, %s: %s", flw_test_names[r->fc.test], mode_name(&r->fc),
			       why);
			return rc;
		}
		flw_counters_add(&r->cnt, &c);
		r->runs[i] = c;
	}
	return 0;
}

static int run_tests(const struct flc_opts *o, struct flc_result *res, unsigned *n)
{
	int rc = 0;

	for (int t = 0; t < FLW_NTESTS && !rc; t++) {
		if (!o->test[t])
			continue;
		table_heading(o, (enum flw_test)t);
		for (int mode = 0; mode < 2 && !rc; mode++) {
			struct flc_result *r = &res[*n];

			if (!(mode == 0 ? o->shared : o->private))
				continue;
			r->fc.test = (enum flw_test)t;
			r->fc.shared = mode == 0;
			r->fc.global = o->global;
			r->fc.iterations = o->iterations;
			(*n)++;
			rc = run_test(o, r);
			if (!rc)
				table_row(o, r);
			fflush(stdout);
		}
	}
	return rc;
}

/* More processes than the CPUs --pin gives them (every hardware thread, or
 * a socket's with node:N and socket:N): an OS's scheduler shares the CPUs
 * among them (sim/vm.h, "Processes"; docs/filelock.md). */
static int schedule_processes(struct flc_opts *o)
{
	char why[512];

	if (sim_load_topo(sim_topo_of(&o->cfg), why, sizeof(why)))
		return BAD("%s", why);
	o->cpus = sim_pin_cpus(&o->cfg);
	if (o->procs <= o->cpus || o->cfg.pin == PIN_LIST)
		return 0;
	o->cfg.vm_vcpus = o->procs;
	o->cfg.overcommit[0] = (double)o->procs / (double)o->cpus;
	o->cfg.novercommit = 1;
	vm_processes();
	return 0;
}

/* What would stop the command half-way, refused before the first table:
 * the processes against the topology and the pinning, the CSV's path. */
static int check_before_running(const struct flc_opts *o)
{
	struct flw_config fc = { .global = o->global, .iterations = o->iterations };
	char why[4400];

	sim_set_cpu_share("more --procs than the cpus of --pin none or node:N share them");
	if (flw_check(&fc, &o->cfg, o->procs, why, sizeof(why)) ||
	    (o->csv && outfile_check("--csv", o->csv, why, sizeof(why))))
		return BAD("%s", why);
	return 0;
}

static int flc_main(int argc, char **argv)
{
	static struct flc_opts o;
	struct flc_result res[2 * FLW_NTESTS];
	struct flc_csv csv = { &o, res, 0 };
	int rc = parse_opts(argc, argv, &o);

	if (rc)
		return rc == 1 ? 0 : rc;
	rc = schedule_processes(&o);
	if (!rc)
		rc = check_before_running(&o);
	if (rc)
		return rc;
	memset(res, 0, sizeof(res));
	rc = run_tests(&o, res, &csv.n);
	if (!rc)
		legend(&o);
	if (!rc && o.csv && write_text_atomic(o.csv, csv_rows, &csv)) {
		ll_say("filelock", "cannot write %s: %s", o.csv, strerror(errno));
		rc = 1;
	}
	for (unsigned i = 0; i < csv.n; i++) {
		free(res[i].secs);
		free(res[i].runs);
	}
	return rc;
}
