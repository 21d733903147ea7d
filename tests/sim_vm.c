/*
 * tests/sim_vm.c - the simulator's virtual machine (sim/vm.c) over whole
 * runs: what the hypervisor's schedule must and must not produce.
 *
 *   - one guest at 1x (and 0.5x): every vCPU has a pCPU of its own, so no
 *     vCPU is ever descheduled, holding a lock or not;
 *   - the plain ticket lock at 2x, the guest sharing its pCPUs with busy
 *     co-guests: the schedule preempts holders and waiters, and counts
 *     the time they lose; alone at 2x, its waiters yield by PLE exits;
 *   - pv-ticket and pv-qspinlock halt and are kicked: over many seeds and
 *     both kinds of overcommit every halt is ended by a kick (halts ==
 *     kicks == wakes, and the run completes: no lost wake-up); the
 *     sleeping locks halt their vCPUs;
 *   - every lock keeps mutual exclusion inside a VM;
 *   - a VM run is deterministic;
 *   - --co-guests same: every guest runs the workload, each on its own
 *     lock (no handoff crosses guests), with exclusion in every guest,
 *     deterministically; --pcpus sizes the host; where the pCPUs do not
 *     divide the vCPUs, the crowded pCPUs are shared out among the guests;
 *     undercommitted vCPUs take cores of their own.
 *
 * tests/sim_vm_cfs.c tests the host's CFS (its picks, slices, wake-ups and
 * the PLE exit's yields), tests/sim_vm_cli.c the binary's --vm options and
 * what a --vm run prints.
 */
#include "vm_testlib.h"

static const char *const four[] = { "ticket", "pv-ticket", "qspinlock", "pv-qspinlock" };

/* ------------------------------------------------------------ 1x */

static void one_guest_at_1x_never_preempts(void **state)
{
	const char *locks[] = { "ticket", "pv-ticket", "qspinlock", "pv-qspinlock", "tas", "mcs" };
	const double xs[] = { 1.0, 0.5 };
	struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;

	for (size_t l = 0; l < sizeof(locks) / sizeof(locks[0]); l++)
		for (size_t k = 0; k < 2; k++)
			for (unsigned s = 0; s < 2; s++) {
				vm_config(&c, 8);
				vm_run(&c, lock_find(locks[l]), xs[k], s, &run, &cnt);
				assert_int_equal(cnt.vm.pcpus, xs[k] < 1 ? 16 : 8);
				assert_int_equal(cnt.vm.holder_preemptions, 0);
				assert_int_equal(cnt.vm.preemptions, 0);
				assert_int_equal(cnt.vm.holder_lost_ps, 0);
				tl_done(&run);
			}
}

/* ------------------------------------------------------------ 2x */

static void ticket_at_2x_preempts_holders_and_waiters(void **state)
{
	struct wl_config c;
	struct vm_counters sum;

	set_opt("--co-guests", "busy");
	vm_config(&c, 4);
	c.cs_ns = 20000;
	c.ncs_ns = 20000;
	c.ops = 0;
	c.duration_ms = 40;
	ticket_runs_at_2x(&c, 4, 6, "beside busy co-guests", "--co-guests busy --format csv", &sum);
	set_opt("--co-guests", "none");
	assert_true(sum.holder_preemptions > 0);
	assert_true(sum.waiter_preemptions > 0);
	assert_true(sum.holder_lost_ps > 0);
}

/* The guest alone at 2x: two of its vCPUs per pCPU; a spinning waiter
 * leaves its pCPU to the other by a PLE exit.  Whether a run's schedule
 * puts a waiter beside the holder depends on the seed: summed over four.
 * A run of several CFS slices (12 ms at two vCPUs a pCPU), so that every
 * vCPU runs and takes its ticket. */
static void ticket_alone_at_2x_yields_by_ple(void **state)
{
	struct wl_config c;
	struct vm_counters sum;

	vm_config(&c, 8);
	c.ops = 0;
	c.duration_ms = 40;
	ticket_runs_at_2x(&c, 4, 4, "alone", "--format csv", &sum);
	assert_true(sum.ple_exits > 0);
	assert_true(sum.ple_yields > 0);
	assert_true(sum.waiter_preemptions > 0);
	assert_true(sum.waiter_lost_ps > 0);
}

/* ------------------------------------------------------------ halt, kick */

/* Waits that outlast the spin: either the guest shares its pCPUs with
 * busy co-guests, or it is alone without PLE (so a spinning waiter keeps
 * its pCPU).  Slices of 1 ms, beyond the spin, keep the runs short; 300
 * acquisitions a thread make each run last several slices. */
static void halts_matched_by_kicks(void **state)
{
	const char *locks[] = { "pv-ticket", "pv-qspinlock" };
	const char *guests[] = { "busy", "none" }, *ple[] = { "2048", "0" };
	const double xs[] = { 2.0, 3.0 };
	struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;
	uint64_t halts[2] = { 0, 0 }, pvq[LL_MAX_COUNTS] = { 0 }, pvt[LL_MAX_COUNTS] = { 0 };
	const struct lock_algo *qa = lock_find("pv-qspinlock"), *ta = lock_find("pv-ticket");

	set_opt("--slice-us", "1000");
	for (size_t m = 0; m < 2; m++) {
		set_opt("--co-guests", guests[m]);
		set_opt("--ple-window-ns", ple[m]);
		for (size_t l = 0; l < 2; l++)
			for (size_t k = 0; k < 2; k++) {
				uint64_t h = 0;

				for (unsigned s = 0; s < 3; s++) {
					vm_config(&c, 6);
					c.cs_ns = 2000;
					c.ncs_ns = 2000;
					c.ops = 300;
					vm_run(&c, lock_find(locks[l]), xs[k], s, &run, &cnt);
					if (cnt.vm.halts != cnt.vm.kicks || cnt.vm.kicks != cnt.vm.wakes) {
						fprintf(stderr, "%s co-guests %s, ple window %s, x%.0f "
								"seed#%u: halts %llu kicks %llu wakes %llu\n",
							locks[l], guests[m], ple[m], xs[k], s,
							(unsigned long long)cnt.vm.halts,
							(unsigned long long)cnt.vm.kicks,
							(unsigned long long)cnt.vm.wakes);
						fail();
					}
					assert_int_equal(tl_acquisitions(&run), c.ops * c.vm_vcpus);
					if (l == 0)
						tl_pvt_counts_agree(&run, &cnt, pvt);
					else
						tl_pvq_counts_agree(&run, &cnt, pvq);
					halts[l] += cnt.vm.halts;
					h += cnt.vm.halts;
					tl_done(&run);
				}
				print_message("  %-12s x%.0f --co-guests %s --ple-window-ns %s, 3 runs: "
					      "%llu halts, each kicked\n", locks[l], xs[k], guests[m],
					      ple[m], (unsigned long long)h);
			}
	}
	print_message("  as, for one of them:\n");
	tl_print_command(&c, "run", "pv-qspinlock", 6, 3,
			 "--slice-us 1000 --co-guests none --ple-window-ns 0 --format csv");
	set_opt("--co-guests", "none");
	set_opt("--ple-window-ns", "2048"); /* 4096 cycles at 2 GHz */
	set_opt("--slice-us", "cfs");
	/* not vacuous: both locks halted; pv-qspinlock's counts saw its steals,
	 * its halts in the queue (early ones among them) and at its head, and
	 * its kicks */
	assert_true(halts[0] > 0);
	assert_true(halts[1] > 0);
	print_message("  pv-qspinlock's counts over its runs: %llu steals, %llu queued, halts "
		      "%llu queued (%llu early) and %llu at the head, %llu kicks\n",
		      (unsigned long long)tl_count(qa, pvq, "lock_stealing"),
		      (unsigned long long)tl_count(qa, pvq, "slowpath"),
		      (unsigned long long)tl_count(qa, pvq, "wait_node"),
		      (unsigned long long)tl_count(qa, pvq, "wait_early"),
		      (unsigned long long)tl_count(qa, pvq, "wait_head"),
		      (unsigned long long)tl_count(qa, pvq, "kick_unlock"));
	for (unsigned k = 0; k < LL_MAX_COUNTS && qa->counts[k]; k++)
		assert_true(pvq[k] > 0);
	print_message("  pv-ticket's counts over its runs: %llu slow waits (%llu picked the lock "
		      "up), %llu kicks\n", (unsigned long long)tl_count(ta, pvt, "taken_slow"),
		      (unsigned long long)tl_count(ta, pvt, "taken_slow_pickup"),
		      (unsigned long long)tl_count(ta, pvt, "released_slow_kicked"));
	assert_true(tl_count(ta, pvt, "taken_slow") > 0 && tl_count(ta, pvt, "released_slow_kicked") > 0);
}

/* Three runs of lock at 1x; fails unless every acquisition is made (the
 * workload checks exclusion) and each halt was ended by a kick; returns
 * the halts. */
static uint64_t halts_at_1x(const char *lock, unsigned vcpus, unsigned read_pct, uint64_t cs,
			    uint64_t ncs, uint64_t ops, uint64_t ms)
{
	struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;
	uint64_t halts = 0;

	for (unsigned s = 0; s < 3; s++) {
		vm_config_lengths(&c, vcpus, cs, ncs, ms != 0, ops, ms);
		c.read_pct = read_pct;
		vm_run(&c, lock_find(lock), 1.0, s, &run, &cnt);
		if (ops)
			assert_int_equal(tl_acquisitions(&run), c.ops * c.vm_vcpus);
		assert_int_equal(cnt.vm.halts, cnt.vm.kicks);
		halts += cnt.vm.halts;
		tl_done(&run);
	}
	print_message("  %-9s 3 runs of %u vCPUs at 1x: %llu halts\n", lock, vcpus,
		      (unsigned long long)halts);
	return halts;
}

/* A sleeping lock's waiters halt their vCPUs: rwsem and rwsem-pv (Linux
 * 3.10's rwsem, wait_lock ticket or pv-ticket) with half writes; mutex and
 * mutex-pv (3.10's mutex), whose spinner sleeps only when the mutex passes
 * to another holder while it spins, so rarely: 32 vCPUs, 40 ms, dbench's
 * lengths.  The spinning rwlock never halts. */
static void sleeping_locks_halt_their_vcpus(void **state)
{
	assert_true(halts_at_1x("rwsem", 6, 50, 2000, 2000, 100, 0) > 0);
	assert_true(halts_at_1x("rwsem-pv", 6, 50, 2000, 2000, 100, 0) > 0);
	assert_true(halts_at_1x("mutex", 32, 0, 200, 3000, 0, 40) > 0);
	assert_true(halts_at_1x("mutex-pv", 32, 0, 200, 3000, 0, 40) > 0);
	assert_int_equal(halts_at_1x("rwlock", 6, 50, 2000, 2000, 100, 0), 0);
}

/* ------------------------------------------------------------ exclusion */

static void locks_exclude_in_a_vm(void **state)
{
	struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;

	for (size_t l = 0; l < 4; l++)
		for (unsigned s = 0; s < 5; s++) {
			vm_config(&c, 6);
			c.cs_lines = 2;
			vm_run(&c, lock_find(four[l]), s % 2 ? 3.0 : 1.5, s, &run, &cnt);
			assert_int_equal(tl_acquisitions(&run), c.ops * c.vm_vcpus);
			tl_done(&run);
		}
}

/* Two runs of lock at x with the same seed and co-guests give the same
 * schedule, event for event. */
static void assert_runs_alike(const char *guests, const char *lock, double x, unsigned idx)
{
	struct wl_config c;
	struct wl_run run;
	struct run_counters a, b;

	set_opt("--co-guests", guests);
	vm_config(&c, 6);
	vm_run(&c, lock_find(lock), x, idx, &run, &a);
	uint64_t acq = tl_acquisitions(&run), stop = run.stop_ns;

	tl_done(&run);
	vm_config(&c, 6);
	vm_run(&c, lock_find(lock), x, idx, &run, &b);
	set_opt("--co-guests", "none");
	assert_int_equal(tl_acquisitions(&run), acq);
	assert_int_equal(run.stop_ns, stop);
	assert_int_equal(a.sim.events, b.sim.events);
	assert_memory_equal(&a.vm, &b.vm, sizeof(a.vm));
	tl_done(&run);
}

static void same_seed_same_schedule(void **state)
{
	assert_runs_alike("busy", "pv-qspinlock", 2.0, 7);
}

/* ------------------------------------------------------------ co-guests same */

/* No handoff from a thread of another guest, and guest g's lock was last
 * released by one of its own threads. */
static void assert_guests_apart(const struct wl_run *run, unsigned v)
{
	for (unsigned t = 0; t < run->nthreads; t++) {
		const struct wl_handoff_map *m = &run->threads[t].handoff_from;

		for (unsigned k = 0; k < m->cap; k++)
			if (m->slot[k].from && m->slot[k].n)
				assert_int_equal((m->slot[k].from - 1) / v, t / v);
	}
	for (unsigned g = 0; g < run->cfg->locks; g++)
		assert_int_equal((unsigned)run->slots[g].check->last_holder / v, g);
}

static void same_guests_each_on_its_own_lock(void **state)
{
	const double xs[] = { 2.0, 3.0 };
	struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;

	set_opt("--co-guests", "same");
	for (size_t l = 0; l < 2; l++)
		for (size_t k = 0; k < 2; k++) {
			vm_config(&c, 6);
			c.cs_lines = 2;
			vm_run(&c, lock_find(four[l]), xs[k], (unsigned)k, &run, &cnt);
			assert_int_equal(run.nthreads, 6 * (unsigned)xs[k]);
			assert_int_equal(run.cfg->locks, (unsigned)xs[k]);
			assert_int_equal(cnt.vm.pcpus, 6);
			assert_int_equal(tl_acquisitions(&run), c.ops * run.nthreads);
			assert_guests_apart(&run, 6);
			tl_done(&run);
		}
	set_opt("--co-guests", "none");
}

static void same_guests_deterministic(void **state)
{
	assert_runs_alike("same", "pv-ticket", 2.0, 3);
}

/* --pcpus 8 with guests of 4 vCPUs: at 1x two guests, at 0.5x ours alone. */
static void pcpus_sizes_the_host(void **state)
{
	const double xs[] = { 1.0, 0.5 };
	struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;

	set_opt("--co-guests", "same");
	set_opt("--pcpus", "8");
	for (size_t k = 0; k < 2; k++) {
		vm_config(&c, 4);
		vm_run(&c, lock_find("ticket"), xs[k], 0, &run, &cnt);
		assert_int_equal(cnt.vm.pcpus, 8);
		assert_int_equal(run.nthreads, k ? 4 : 8);
		assert_int_equal(cnt.vm.preemptions, 0);
		assert_guests_apart(&run, 4);
		tl_done(&run);
	}
	set_opt("--co-guests", "none");
	set_opt("--pcpus", "0");
}

/* Where vCPUs go (wl_vm_pcpu_of): every pCPU holds total / P vCPUs, rounded
 * down or up; no pCPU holds two vCPUs of one guest; and where P does not
 * divide and the guests are whole, they share out the crowded pCPUs (within
 * one vCPU), none of them left with pCPUs to itself. */
static void placement_shares_crowded_pcpus(void **state)
{
	static const unsigned cases[][3] = {
		/* guest, total, pcpus */
		{ 32, 96, 64 }, { 16, 24, 16 }, { 32, 80, 32 }, { 4, 12, 8 }, { 32, 64, 32 },
		{ 32, 128, 64 }, { 5, 13, 4 }, { 32, 80, 64 }, { 2, 5, 4 }, { 4, 14, 3 },
		{ 27, 81, 32 }, { 5, 15, 4 },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		unsigned v = cases[k][0], n = cases[k][1], np = cases[k][2];
		unsigned on[64] = { 0 }, crowded[8] = { 0 }, ng = (n + v - 1) / v;
		unsigned lo = n / np, hi = (n + np - 1) / np, least = ~0u, most = 0;

		for (unsigned i = 0; i < n; i++) {
			unsigned p = wl_vm_pcpu_of(i, v, n, np);

			assert_true(p < np);
			on[p]++;
			if (n % np == 0)
				assert_int_equal(p, i % np);
			for (unsigned j = i - i % v; j < i && v <= np; j++)
				assert_int_not_equal(wl_vm_pcpu_of(j, v, n, np), p);
		}
		for (unsigned p = 0; p < np; p++)
			assert_true(on[p] == lo || on[p] == hi);
		for (unsigned i = 0; i < n; i++)
			if (on[wl_vm_pcpu_of(i, v, n, np)] == hi)
				crowded[i / v]++;
		for (unsigned g = 0; g < ng && (g + 1) * v <= n; g++) {
			least = crowded[g] < least ? crowded[g] : least;
			most = crowded[g] > most ? crowded[g] : most;
		}
		if (v <= np && n % v == 0)
			assert_true(most - least <= 1);
	}
}

/* wl_vm_cores_first on x7560-ht's compact placement of its 64 hardware
 * threads (socket s: threads 16 s .. 16 s + 7 one of each core, the next 8
 * their siblings): the 32 pCPUs that wl_vm_pcpu_of gives one guest at 0.5x
 * are on 32 cores, 8 a socket; of two guests of 16, each keeps the sockets
 * the stride gave it (0-1 and 2-3) on cores of its own; a pCPU never changes
 * socket; without SMT, or with no more pCPUs than vCPUs, nothing moves; it is
 * always a permutation. */
static void undercommit_takes_cores_of_their_own(void **state)
{
	unsigned phys[64], socket[64], flat[64], perm[64], seen[64], on_socket[4] = { 0 };

	for (unsigned k = 0; k < 64; k++) {
		phys[k] = k / 16 * 8 + k % 8;
		socket[k] = k / 16;
		flat[k] = k;
	}
	assert_int_equal(wl_vm_cores_first(64, 32, phys, socket, perm), 0);
	memset(seen, 0, sizeof(seen));
	for (unsigned k = 0; k < 64; k++) {
		assert_int_equal(seen[perm[k]]++, 0);
		assert_int_equal(socket[perm[k]], socket[k]);
	}
	memset(seen, 0, sizeof(seen));
	for (unsigned i = 0; i < 32; i++) {
		unsigned p = perm[wl_vm_pcpu_of(i, 32, 32, 64)];

		assert_int_equal(seen[phys[p]]++, 0);
		on_socket[p / 16]++;
	}
	for (unsigned s = 0; s < 4; s++)
		assert_int_equal(on_socket[s], 8);
	memset(seen, 0, sizeof(seen));
	for (unsigned i = 0; i < 32; i++) { /* two guests of 16 */
		unsigned p = perm[wl_vm_pcpu_of(i, 16, 32, 64)];

		assert_int_equal(seen[phys[p]]++, 0);
		assert_int_equal(p / 32, i / 16);
	}
	assert_int_equal(wl_vm_cores_first(64, 32, flat, socket, perm), 0);
	for (unsigned k = 0; k < 64; k++)
		assert_int_equal(perm[k], k);
	assert_int_equal(wl_vm_cores_first(64, 64, phys, socket, perm), 0);
	for (unsigned k = 0; k < 64; k++)
		assert_int_equal(perm[k], k);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_guest_at_1x_never_preempts),
		cmocka_unit_test(ticket_at_2x_preempts_holders_and_waiters),
		cmocka_unit_test(ticket_alone_at_2x_yields_by_ple),
		cmocka_unit_test(halts_matched_by_kicks),
		cmocka_unit_test(sleeping_locks_halt_their_vcpus),
		cmocka_unit_test(locks_exclude_in_a_vm),
		cmocka_unit_test(same_seed_same_schedule),
		cmocka_unit_test(same_guests_each_on_its_own_lock),
		cmocka_unit_test(same_guests_deterministic),
		cmocka_unit_test(pcpus_sizes_the_host),
		cmocka_unit_test(placement_shares_crowded_pcpus),
		cmocka_unit_test(undercommit_takes_cores_of_their_own),
	};

	return VM_TESTS_MAIN(argc, argv, tests);
}
