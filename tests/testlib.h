/*
 * tests/testlib.h - what the workload-driven tests share: start a backend,
 * drive one run of one lock through backend_run as the binaries do, and
 * tear it down.  Header-only: every test program includes it once.
 */
#ifndef TESTS_TESTLIB_H
#define TESTS_TESTLIB_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/backend.h>
#include <locklab/workload.h>

static inline bool tl_is_sim(void)
{
	return !strcmp(backend_name, "sim");
}

/* backend_init with no options; in the simulator, load topo.  0 on success. */
static inline int tl_backend_start(const char *prog, const char *topo)
{
	char *args[] = { (char *)prog, NULL };
	int ac = 1;
	char err[256];

	if (backend_init(&ac, args))
		return 1;
	if (tl_is_sim() && topo && backend_parse_option("--topo", topo, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	return 0;
}

/*
 * One run of lock a with n threads under configuration c (its lock and
 * thread lists are overwritten).  Fills *run and *cnt; returns non-zero when
 * the configuration is refused (err says why) or the run failed
 * (run->failure says why).  The caller inspects run, then calls tl_done().
 */
static inline int tl_run(struct wl_config *c, const struct lock_algo *a, unsigned n, unsigned idx,
			 struct wl_run *run, struct run_counters *cnt, char *err, size_t errlen)
{
	c->algos[0] = a;
	c->nalgos = 1;
	c->threads[0] = n;
	c->nthreads = 1;
	memset(run, 0, sizeof(*run));
	memset(cnt, 0, sizeof(*cnt));
	if (backend_check(c, err, errlen))
		return -1;
	run->cfg = c;
	run->algo = a;
	run->nthreads = n;
	run->run_index = idx;
	run->seed = c->seed * 1000003ull + idx;
	if (c->vm_vcpus) { /* as core/main.c: the first overcommit of the list */
		run->overcommit = c->overcommit[0];
		run->vm_pcpus = wl_vm_pcpus(c->vm_vcpus, run->overcommit);
	}
	run->threads = calloc(n, sizeof(*run->threads));
	if (!run->threads) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return backend_run(run, cnt) || run->failed;
}

/* Threads that left the loop (or were stopped by the checker): tear down. */
static inline void tl_done(struct wl_run *run)
{
	wl_teardown(run);
	free(run->threads);
	run->threads = NULL;
}

#endif
