/*
 * tests/vm_testlib.h - what the simulator's --vm test programs share
 * (tests/sim_vm.c, tests/sim_vm_cfs.c, tests/sim_vm_cli.c): the machine
 * they run on, a guest's workload, one run of it at an overcommit, the
 * ticket lock's runs at 2x with their preemption counters summed, and
 * their main.  Header-only, on tests/testlib.h.
 */
#ifndef TESTS_VM_TESTLIB_H
#define TESTS_VM_TESTLIB_H

#include <stdio.h>
#include <string.h>

#include <locklab/lock.h>

#include "testlib.h"

#include "../sim/vm.h"
#include "../sim/vm_state.h"

#define TOPO "4socket"

static inline void vm_config(struct wl_config *c, unsigned vcpus)
{
	tl_config(c, TOPO, 4242);
	c->cs_ns = 200;
	c->ncs_ns = 1000;
	c->cs_lines = 1;
	c->vm_vcpus = vcpus;
	c->ops = 40;
}

/* vm_config with the run's lengths: a section of cs ns, ncs ns between
 * (exponential with ncs_exp), ops acquisitions a thread or ms of run. */
static inline void vm_config_lengths(struct wl_config *c, unsigned vcpus, uint64_t cs,
				     uint64_t ncs, bool ncs_exp, uint64_t ops, uint64_t ms)
{
	vm_config(c, vcpus);
	c->cs_ns = cs;
	c->ncs_ns = ncs;
	c->ncs_exp = ncs_exp;
	c->ops = ops;
	c->duration_ms = ms;
}

static inline void set_opt(const char *opt, const char *val)
{
	char err[256];

	assert_int_equal(backend_parse_option(opt, val, err, sizeof(err)), 1);
}

/* One run of lock a with every vCPU a thread, at overcommit x; fails the
 * test when the run fails.  The caller reads *cnt, then calls tl_done(). */
static inline void vm_run(struct wl_config *c, const struct lock_algo *a, double x, unsigned idx,
			  struct wl_run *run, struct run_counters *cnt)
{
	char err[512] = "";

	c->overcommit[0] = x;
	c->novercommit = 1;
	if (tl_run(c, a, c->vm_vcpus, idx, run, cnt, err, sizeof(err))) {
		fprintf(stderr, "%s x%.2f seed#%u: %s%s\n", a->name, x, idx, err, run->failure);
		fail();
	}
	assert_true(cnt->vm.has_vm);
	assert_true(cnt->vm.has_sched);
}

/* runs runs of the ticket lock at 2x under c on pcpus physical CPUs, its
 * preemption counters summed into *sum and printed as what (with the
 * command that repeats them, backend options opts). */
static inline void ticket_runs_at_2x(struct wl_config *c, unsigned pcpus, unsigned runs,
				     const char *what, const char *opts, struct vm_counters *sum)
{
	struct wl_run run;
	struct run_counters cnt;

	memset(sum, 0, sizeof(*sum));
	for (unsigned s = 0; s < runs; s++) {
		vm_run(c, lock_find("ticket"), 2.0, s, &run, &cnt);
		assert_int_equal(cnt.vm.pcpus, pcpus);
		sum->holder_preemptions += cnt.vm.holder_preemptions;
		sum->waiter_preemptions += cnt.vm.waiter_preemptions;
		sum->holder_lost_ps += cnt.vm.holder_lost_ps;
		sum->waiter_lost_ps += cnt.vm.waiter_lost_ps;
		sum->ple_exits += cnt.vm.ple_exits;
		sum->ple_yields += cnt.vm.ple_yields;
		tl_done(&run);
	}
	print_message("  ticket x2 %s, %u runs: preemptions of holders %llu, of waiters %llu; time "
		      "lost by holders %llu ns, by waiters %llu ns; ple exits %llu, yields %llu\n",
		      what, runs, (unsigned long long)sum->holder_preemptions,
		      (unsigned long long)sum->waiter_preemptions,
		      (unsigned long long)(sum->holder_lost_ps / 1000),
		      (unsigned long long)(sum->waiter_lost_ps / 1000),
		      (unsigned long long)sum->ple_exits, (unsigned long long)sum->ple_yields);
	tl_print_command(c, "run", "ticket", c->vm_vcpus, runs, opts);
}

/* The main of a --vm test program, its n tests on TOPO; argv[2], where
 * given, names the one test to run (when debugging). */
static inline int vm_tests_main(int argc, char **argv, const struct CMUnitTest *tests, size_t n)
{
	int rc;

	if (argc > 2)
		cmocka_set_test_filter(argv[2]);
	if (tl_backend_start(argv[0], TOPO))
		return 1;
	rc = _cmocka_run_group_tests("tests", tests, n, NULL, NULL);
	backend_fini();
	return rc;
}

#define VM_TESTS_MAIN(argc, argv, tests) \
	vm_tests_main(argc, argv, tests, sizeof(tests) / sizeof((tests)[0]))

#endif
