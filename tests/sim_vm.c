/*
 * tests/sim_vm.c - the simulator's virtual machine (sim/vm.c): what the
 * hypervisor's schedule must and must not produce, and the options.
 *
 *   - one guest at 1x (and 0.5x): every vCPU has a pCPU of its own, so no
 *     vCPU is ever descheduled, holding a lock or not;
 *   - the plain ticket lock at 2x, the guest sharing its pCPUs with busy
 *     co-guests: the schedule preempts holders and waiters, and counts
 *     the time they lose; alone at 2x, its waiters yield by PLE exits;
 *   - pv-ticket and pv-qspinlock halt and are kicked: over many seeds and
 *     both kinds of overcommit every halt is ended by a kick (halts ==
 *     kicks == wakes, and the run completes: no lost wake-up);
 *   - every lock keeps mutual exclusion inside a VM;
 *   - a VM run is deterministic;
 *   - the columns exist only with --vm, and bad VM options are refused
 *     with one line and exit status 2.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <locklab/backend.h>
#include <locklab/lock.h>
#include <locklab/workload.h>

#include "testlib.h"

#define TOPO "4socket"

static const char *bindir;

static void vm_config(struct wl_config *c, unsigned vcpus)
{
	memset(c, 0, sizeof(*c));
	c->cs_ns = 200;
	c->ncs_ns = 1000;
	c->ncs_exp = true;
	c->cs_lines = 1;
	c->locks = 1;
	c->runs = 1;
	c->pin = PIN_COMPACT;
	c->pin_text = "compact";
	c->topo = TOPO;
	c->seed = 4242;
	c->vm_vcpus = vcpus;
	c->ops = 40;
}

static void set_opt(const char *opt, const char *val)
{
	char err[256];

	assert_int_equal(backend_parse_option(opt, val, err, sizeof(err)), 1);
}

/* One run of lock a with every vCPU a thread, at overcommit x; fails the
 * test when the run fails.  The caller reads *cnt, then calls tl_done(). */
static void vm_run(struct wl_config *c, const struct lock_algo *a, double x, unsigned idx,
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

static uint64_t acquisitions(const struct wl_run *run)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < run->nthreads; i++)
		n += run->threads[i].acquisitions;
	return n;
}

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
	struct wl_run run;
	struct run_counters cnt;
	uint64_t holder = 0, waiter = 0, lost = 0;

	set_opt("--co-guests", "busy");
	for (unsigned s = 0; s < 6; s++) {
		vm_config(&c, 4);
		c.cs_ns = 20000;
		c.ncs_ns = 20000;
		c.ops = 0;
		c.duration_ms = 40;
		vm_run(&c, lock_find("ticket"), 2.0, s, &run, &cnt);
		assert_int_equal(cnt.vm.pcpus, 4);
		holder += cnt.vm.holder_preemptions;
		waiter += cnt.vm.waiter_preemptions;
		lost += cnt.vm.holder_lost_ps;
		tl_done(&run);
	}
	set_opt("--co-guests", "none");
	assert_true(holder > 0);
	assert_true(waiter > 0);
	assert_true(lost > 0);
}

/* The guest alone at 2x: two of its vCPUs per pCPU; a spinning waiter
 * leaves its pCPU to the other by a PLE exit. */
static void ticket_alone_at_2x_yields_by_ple(void **state)
{
	struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;

	vm_config(&c, 8);
	c.ops = 0;
	c.duration_ms = 5;
	vm_run(&c, lock_find("ticket"), 2.0, 0, &run, &cnt);
	assert_int_equal(cnt.vm.pcpus, 4);
	assert_true(cnt.vm.ple_exits > 0);
	assert_true(cnt.vm.ple_yields > 0);
	assert_true(cnt.vm.waiter_preemptions > 0);
	assert_true(cnt.vm.waiter_lost_ps > 0);
	tl_done(&run);
}

/* ------------------------------------------------------------ halt, kick */

/* Waits that outlast the spin: either the guest shares its pCPUs with
 * busy co-guests, or it is alone without PLE (so a spinning waiter keeps
 * its pCPU).  Slices of 1 ms, beyond the 328 us spin, keep the runs short. */
static void halts_matched_by_kicks(void **state)
{
	const char *locks[] = { "pv-ticket", "pv-qspinlock" };
	const char *mix[][2] = { { "--co-guests", "busy" }, { "--ple-window-ns", "0" } };
	const double xs[] = { 2.0, 3.0 };
	struct wl_config c;
	struct wl_run run;
	struct run_counters cnt;
	uint64_t halts[2] = { 0, 0 };

	set_opt("--slice-us", "1000");
	for (size_t m = 0; m < 2; m++) {
		set_opt(mix[m][0], mix[m][1]);
		for (size_t l = 0; l < 2; l++)
			for (size_t k = 0; k < 2; k++)
				for (unsigned s = 0; s < 3; s++) {
					vm_config(&c, 6);
					c.cs_ns = 2000;
					c.ncs_ns = 2000;
					c.ops = 100;
					vm_run(&c, lock_find(locks[l]), xs[k], s, &run, &cnt);
					if (cnt.vm.halts != cnt.vm.kicks || cnt.vm.kicks != cnt.vm.wakes) {
						fprintf(stderr, "%s %s %s x%.0f seed#%u: halts %llu kicks %llu "
								"wakes %llu\n",
							locks[l], mix[m][0], mix[m][1], xs[k], s,
							(unsigned long long)cnt.vm.halts,
							(unsigned long long)cnt.vm.kicks,
							(unsigned long long)cnt.vm.wakes);
						fail();
					}
					assert_int_equal(acquisitions(&run), c.ops * c.vm_vcpus);
					halts[l] += cnt.vm.halts;
					tl_done(&run);
				}
	}
	set_opt("--co-guests", "none");
	set_opt("--ple-window-ns", "2048"); /* 4096 cycles at 2 GHz */
	set_opt("--slice-us", "3000");
	/* not vacuous: both locks halted */
	assert_true(halts[0] > 0);
	assert_true(halts[1] > 0);
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
			assert_int_equal(acquisitions(&run), c.ops * c.vm_vcpus);
			tl_done(&run);
		}
}

static void same_seed_same_schedule(void **state)
{
	struct wl_config c;
	struct wl_run run;
	struct run_counters a, b;

	set_opt("--co-guests", "busy");
	vm_config(&c, 6);
	vm_run(&c, lock_find("pv-qspinlock"), 2.0, 7, &run, &a);
	uint64_t acq = acquisitions(&run), stop = run.stop_ns;

	tl_done(&run);
	vm_run(&c, lock_find("pv-qspinlock"), 2.0, 7, &run, &b);
	set_opt("--co-guests", "none");
	assert_int_equal(acquisitions(&run), acq);
	assert_int_equal(run.stop_ns, stop);
	assert_int_equal(a.sim.events, b.sim.events);
	assert_memory_equal(&a.vm, &b.vm, sizeof(a.vm));
	tl_done(&run);
}

/* ------------------------------------------------------------ the binary */

struct outcome {
	int status;
	char err[4096];
	char out[65536];
};

static void run_bin(struct outcome *o, const char *const *args)
{
	char path[1024];
	const char *argv[64];
	int pe[2], po[2], n = 0, st;
	size_t ne = 0, no = 0;
	ssize_t k;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/locklab-sim", bindir);
	argv[n++] = path;
	for (; args[n - 1]; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	assert_int_equal(pipe(pe), 0);
	assert_int_equal(pipe(po), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(pe[1], 2);
		dup2(po[1], 1);
		close(pe[0]);
		close(po[0]);
		execv(path, (char *const *)argv);
		_exit(127);
	}
	close(pe[1]);
	close(po[1]);
	memset(o, 0, sizeof(*o));
	while ((k = read(po[0], o->out + no, sizeof(o->out) - 1 - no)) > 0)
		no += (size_t)k;
	while ((k = read(pe[0], o->err + ne, sizeof(o->err) - 1 - ne)) > 0)
		ne += (size_t)k;
	close(pe[0]);
	close(po[0]);
	waitpid(pid, &st, 0);
	o->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#define RUN(o, ...)                                                                    \
	do {                                                                           \
		const char *const a_[] = { __VA_ARGS__, NULL };                        \
		run_bin(o, a_);                                                        \
	} while (0)

static void columns_only_with_vm(void **state)
{
	struct outcome o;

	RUN(&o, "run", "--topo", TOPO, "--lock", "pv-ticket", "--threads", "4", "--ops", "20",
	    "--runs", "1", "--format", "csv");
	assert_int_equal(o.status, 0);
	assert_null(strstr(o.out, "overcommit"));
	assert_null(strstr(o.out, "holder_preemptions"));
	RUN(&o, "run", "--topo", TOPO, "--lock", "ticket,pv-ticket", "--vm", "4", "--overcommit",
	    "1,2", "--ops", "20", "--runs", "1", "--format", "csv");
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, ",overcommit,pcpus,preemptions,holder_preemptions,"
				      "waiter_preemptions,holder_lost_ns_per_acq,"
				      "waiter_lost_ns_per_acq,halts,kicks,wake_latency_ns,ple_exits,"
				      "ple_yields,"));
	/* a header and a row per lock and overcommit */
	int lines = 0;

	for (const char *p = o.out; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 5);
	RUN(&o, "run", "--topo", TOPO, "--lock", "ticket", "--vm", "4", "--overcommit", "1,2",
	    "--ops", "20", "--runs", "1");
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "t=4 x1.00"));
	assert_non_null(strstr(o.out, "t=4 x2.00"));
	assert_non_null(strstr(o.out, "preempted holding"));
}

static void expect_bad(const char *const *args, const char *needle)
{
	struct outcome o;
	int lines = 0;

	run_bin(&o, args);
	for (const char *p = o.err; *p; p++)
		lines += *p == '\n';
	if (o.status != 2 || lines != 1 || !strstr(o.err, needle)) {
		fprintf(stderr, "status %d, stderr: %s(wanted '%s')\n", o.status, o.err, needle);
		fail();
	}
}

#define BAD(needle, ...)                                                               \
	do {                                                                           \
		const char *const a_[] = { "run", "--topo", TOPO, "--lock", "ticket",  \
					   __VA_ARGS__, NULL };                        \
		expect_bad(a_, needle);                                                \
	} while (0)

static void bad_vm_options(void **state)
{
	BAD("--overcommit: needs --vm", "--overcommit", "2");
	BAD("--slice-us", "--slice-us", "100");
	BAD("--co-guests", "--co-guests", "busy");
	BAD("--vm", "--vm", "0");
	BAD("--vm", "--vm", "x");
	BAD("--overcommit", "--vm", "8", "--overcommit", "0");
	BAD("--overcommit", "--vm", "8", "--overcommit", "abc");
	BAD("--overcommit", "--vm", "8", "--overcommit", "1.2.3");
	BAD("--overcommit", "--vm", "8", "--overcommit", "1,,2");
	BAD("--overcommit", "--vm", "8", "--overcommit", "2x");
	BAD("--overcommit", "--vm", "8", "--overcommit", "100");
	BAD("32 cores", "--vm", "32", "--overcommit", "0.5");
	BAD("more threads", "--vm", "8", "--threads", "16");
	BAD("--co-guests", "--vm", "8", "--co-guests", "maybe");
	BAD("--ple-grow", "--vm", "8", "--ple-grow", "0");
	BAD("--slice-us", "--vm", "8", "--slice-us", "0");
	BAD("--wake-ns", "--vm", "8", "--wake-ns", "-3");

	const char *const ex[] = { "explain", "--topo", TOPO, "--lock", "ticket", "--threads",
				   "4",       "--vm",   "4",  NULL };
	expect_bad(ex, "--vm");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_guest_at_1x_never_preempts),
		cmocka_unit_test(ticket_at_2x_preempts_holders_and_waiters),
		cmocka_unit_test(ticket_alone_at_2x_yields_by_ple),
		cmocka_unit_test(halts_matched_by_kicks),
		cmocka_unit_test(locks_exclude_in_a_vm),
		cmocka_unit_test(same_seed_same_schedule),
		cmocka_unit_test(columns_only_with_vm),
		cmocka_unit_test(bad_vm_options),
	};
	int rc;

	bindir = argc > 1 ? argv[1] : "bin";
	if (argc > 2)
		cmocka_set_test_filter(argv[2]); /* one test by name, when debugging */
	if (tl_backend_start(argv[0], TOPO))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	backend_fini();
	return rc;
}
