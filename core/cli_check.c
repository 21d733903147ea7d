/*
 * core/cli_check.c - the options of `run` checked against each other once
 * parsed (core/cli.c), and the defaults that depend on what was given:
 * --jobs, --vm's threads and overcommit, the duration, the locks; then the
 * options that would mean nothing in the sweep.  Each returns 0, or 2 with
 * one line in err.
 */
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include <locklab/backend.h>
#include <locklab/lock.h>

#include "cli.h"

static void default_locks(struct wl_config *c)
{
	for (size_t i = 0; i < lock_catalogue_size() && c->nalgos < WL_MAX_LIST; i++) {
		const struct lock_algo *a = lock_catalogue_get(i);

		if (a->kind == LOCK_MUTEX)
			c->algos[c->nalgos++] = a;
	}
}

/* --jobs: the CPUs by default; natively one run at a time. */
static int check_jobs(struct cli_opts *o, char *err, size_t len)
{
	long ncpu;

	if (!strcmp(backend_name, "native")) {
		if (o->jobs > 1)
			return cli_fail(err, len, "--jobs %u: native runs go one at a time (runs in parallel "
				    "would disturb each other's measurements)", o->jobs);
		o->jobs = 1;
		return 0;
	}
	if (o->jobs)
		return 0;
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	o->jobs = ncpu < 1 ? 1 : ncpu > 4096 ? 4096 : (unsigned)ncpu;
	return 0;
}

/* --vm V: --threads defaults to V and may not exceed it; --overcommit
 * defaults to 1 and needs --vm. */
static int check_vm(struct wl_config *c, bool threads_given, char *err, size_t len)
{
	if (!c->vm_vcpus) {
		if (c->novercommit)
			return cli_fail(err, len, "--overcommit: needs --vm V (the guest's vCPUs)");
		return 0;
	}
	if (!c->novercommit) {
		c->overcommit[0] = 1.0;
		c->novercommit = 1;
		c->overcommit_default = true;
	}
	if (!threads_given) {
		c->threads[0] = c->vm_vcpus;
		c->nthreads = 1;
	}
	for (unsigned i = 0; i < c->nthreads; i++)
		if (c->threads[i] > c->vm_vcpus)
			return cli_fail(err, len, "--threads %u: more threads than the %u vCPUs of --vm",
				    c->threads[i], c->vm_vcpus);
	return 0;
}

/* A lock whose words bound its thread count (rwlock's 32-bit biased
 * count): no run beyond it. */
static int check_max_threads(const struct wl_config *c, char *err, size_t len)
{
	for (unsigned i = 0; i < c->nalgos; i++) {
		const struct lock_algo *a = c->algos[i];

		for (unsigned k = 0; k < c->nthreads; k++)
			if (a->max_threads && c->threads[k] > a->max_threads)
				return cli_fail(err, len,
					    "--threads %u: lock %s is correct for at most %u threads "
					    "(its file in algorithms/ says why)",
					    c->threads[k], a->name, a->max_threads);
	}
	return 0;
}

int cli_check_config(struct cli_opts *o, bool duration_given, bool threads_given, char *err,
		     size_t len)
{
	struct wl_config *c = &o->cfg;

	if (check_vm(c, threads_given, err, len) || check_jobs(o, err, len))
		return 2;

	if (duration_given && c->ops)
		return cli_fail(err, len, "--duration and --ops exclude each other: give one");
	if (!c->ops && !duration_given)
		c->duration_ms = backend_default_duration_ms;
	if (!c->time_every)
		c->time_every = backend_default_time_every;
	if (c->nalgos == 0)
		default_locks(c);
	if (check_max_threads(c, err, len))
		return 2;
	/* an unpinned process's memory lands where its first toucher ran */
	if (c->pin == PIN_NONE && !c->lock_home_given && !strcmp(backend_name, "sim"))
		c->lock_home = WL_HOME_RANDOM;
	if (c->pin == PIN_LIST && c->vm_vcpus) {
		unsigned maxp = 0;

		for (unsigned i = 0; i < c->novercommit; i++)
			if (wl_vm_pcpus(c->vm_vcpus, c->overcommit[i]) > maxp)
				maxp = wl_vm_pcpus(c->vm_vcpus, c->overcommit[i]);
		if (c->pin_list_len < maxp)
			return cli_fail(err, len, "--pin list: has %u cpus but --overcommit asks for %u "
				    "physical cpus", c->pin_list_len, maxp);
	} else if (c->pin == PIN_LIST) {
		unsigned maxt = 0;

		for (unsigned i = 0; i < c->nthreads; i++)
			if (c->threads[i] > maxt)
				maxt = c->threads[i];
		if (c->pin_list_len < maxt)
			return cli_fail(err, len, "--pin list: has %u cpus but --threads asks for %u",
				    c->pin_list_len, maxt);
	}
	return 0;
}

/* Options that would mean nothing in this sweep: --read-pct without an
 * rwlock; a critical section as long as the run, or a fixed time between
 * acquisitions as long as it (an exponential one of that mean still gives
 * some).  0, or 2 with one line in err. */
int cli_check_meaning(const struct cli_opts *o, bool read_pct_given, bool cs_lines_given,
		      char *err, size_t len)
{
	const struct wl_config *c = &o->cfg;
	uint64_t run_ns = c->duration_ms * 1000000ull;
	bool rwlock = false, refcounts_only = c->nalgos > 0;

	for (unsigned i = 0; i < c->nalgos; i++) {
		rwlock |= c->algos[i]->kind == LOCK_RWLOCK;
		refcounts_only &= c->algos[i]->kind == LOCK_REFCOUNT;
	}
	if (read_pct_given && !rwlock)
		return cli_fail(err, len, "--read-pct: no rwlock among the locks (it is the share of "
			    "an rwlock's acquisitions that read)");
	if (o->threads_csv && o->nshards > 1) /* merge joins run's CSVs by their PATH.order */
		return cli_fail(err, len, "--threads-csv with --shard %u/%u: merge joins the shards' "
			    "run CSVs, not their per-thread ones; run the configurations you want "
			    "per thread without --shard", o->shard, o->nshards);
	if ((uint64_t)c->locks * c->cs_lines > WL_MAX_DATA_LINES)
		return cli_fail(err, len, "--locks %u --cs-lines %u: %llu lines of protected data "
			    "(%.4f GiB); at most %u lines (1 GiB) in all", c->locks, c->cs_lines,
			    (unsigned long long)c->locks * c->cs_lines,
			    (double)c->locks * c->cs_lines * 64 / (1u << 30), WL_MAX_DATA_LINES);
	if (cs_lines_given && refcounts_only && c->cs_lines)
		return cli_fail(err, len, "--cs-lines %u: a refcount's get and put touch no data lines "
			    "(the time between them is --cs alone)", c->cs_lines);
	if (!c->ops && c->cs_ns >= run_ns)
		return cli_fail(err, len, "--cs %llu: a critical section as long as the run (--duration "
			    "%llu ms): each lock could be taken once at most",
			    (unsigned long long)c->cs_ns, (unsigned long long)c->duration_ms);
	if (!c->ops && !c->ncs_exp && c->ncs_ns >= run_ns)
		return cli_fail(err, len, "--ncs %llu: a time between acquisitions as long as the run "
			    "(--duration %llu ms): no thread would ask for the lock",
			    (unsigned long long)c->ncs_ns, (unsigned long long)c->duration_ms);
	return 0;
}
