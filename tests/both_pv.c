/*
 * tests/both_pv.c - the paravirtual locks (pv-ticket, pv-qspinlock) in a
 * `--vm` run of whichever backend this program is built for: threads
 * outnumber their cpus four to one, every thread completes its
 * acquisitions under the workload's checker (mutual exclusion), and every
 * park that slept was ended by exactly one unpark that found it asleep
 * (halts == kicks == wakes: no lost and no double wake-up).
 * The locks' own counts (ll_count) agree: the halts that slept are some of
 * a lock's calls to halt, and the kicks that woke one some of its unlocks'
 * kicks; pv-qspinlock takes every acquisition by the free word, a steal or
 * the queue, and its early halts are some of its queued waiters' halts.
 *
 * Natively the 4 threads share 1 cpu (and 8 share 2 where the machine has
 * them): the kernel time-slices them for real, so holders and waiters are
 * preempted, and ll_park/ll_unpark are futexes.  In the simulator the
 * hypervisor of sim/vm.c does the same on the 4socket machine
 * (tests/sim_vm.c checks there, over many seeds, that the locks do halt).
 */
#include <stdio.h>
#include <unistd.h>

#include <locklab/lock.h>

#include "testlib.h"

static void pv_config(struct wl_config *c, unsigned vcpus, double x)
{
	tl_config(c, "4socket", 777);
	c->cs_ns = 500;
	c->ncs_ns = 2000;
	c->vm_vcpus = vcpus;
	c->overcommit[0] = x;
	c->novercommit = 1;
	/* natively each thread outlasts several time slices of its cpu */
	c->ops = tl_is_sim() ? 300 : 2000;
}

/* One run; fails the test with the reason when it fails. */
static void pv_run(struct wl_config *c, const struct lock_algo *a, unsigned idx, struct wl_run *run,
		   struct run_counters *cnt)
{
	char err[512] = "";

	if (tl_run(c, a, c->vm_vcpus, idx, run, cnt, err, sizeof(err))) {
		fprintf(stderr, "%s on %u cpus, run %u: %s%s\n", a->name, run->vm_pcpus, idx, err,
			run->failure);
		fail();
	}
}

static void pv_locks_oversubscribed(void **state)
{
	const char *locks[] = { "pv-ticket", "pv-qspinlock" };
	unsigned sizes[][2] = { { 4, 1 }, { 8, 2 } }; /* threads, cpus */
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned runs = tl_is_sim() ? 2 : 1;

	for (size_t l = 0; l < 2; l++)
		for (size_t z = 0; z < 2; z++) {
			if (!tl_is_sim() && sizes[z][1] > (unsigned long)ncpu)
				continue;
			for (unsigned r = 0; r < runs; r++) {
				struct wl_config c;
				struct wl_run run;
				struct run_counters cnt;
				pv_config(&c, sizes[z][0], 4.0);
				pv_run(&c, lock_find(locks[l]), r, &run, &cnt);
				assert_int_equal(tl_acquisitions(&run), c.ops * run.nthreads);
				assert_true(cnt.vm.has_vm);
				assert_int_equal(cnt.vm.pcpus, sizes[z][1]);
				if (cnt.vm.halts != cnt.vm.kicks || cnt.vm.kicks != cnt.vm.wakes) {
					fprintf(stderr, "%s %u threads on %u cpus: halts %llu kicks %llu "
							"wakes %llu\n",
						locks[l], sizes[z][0], sizes[z][1],
						(unsigned long long)cnt.vm.halts,
						(unsigned long long)cnt.vm.kicks,
						(unsigned long long)cnt.vm.wakes);
					fail();
				}
				if (l == 0)
					tl_pvt_counts_agree(&run, &cnt, NULL);
				else
					tl_pvq_counts_agree(&run, &cnt, NULL);
				tl_done(&run);
			}
		}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pv_locks_oversubscribed),
	};
	int rc;

	if (tl_backend_start(argv[0], "4socket"))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	backend_fini();
	return rc;
}
