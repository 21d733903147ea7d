/*
 * tests/sim_homeagent.c - the signature of home agents (topologies/README.md,
 * "Home agents and probes"): a node's home agent serves the requests for
 * every line homed there one at a time, so four contended locks homed on
 * one node are slower than the same four locks spread over four nodes.
 *
 * On 4socket (an Intel-class machine: a full directory) and on opteron48
 * (HT Assist: a probe filter), each lock of `locks` below runs with 32
 * threads (placed compact) on 4 locks (--locks 4) whose critical sections
 * write 4 lines of data homed with the lock, the locks' homes either all on
 * node 0 (lock_home same) or lock i on node i (spread), for 1 ms of
 * simulated time.  The figure is the throughput, the median over runs 0-2,
 * seeded as runs 0-2 of the binaries (run 0 alone under the sanitizers,
 * which skip the "as shipped" figures too: tl_sanitized_share()).
 *
 * Each machine is run three ways, from copies of its file:
 *   loaded  `home.occupancy` set to LOADED_NS: a home agent that four
 *           contended locks keep busy.  Same must be clearly slower.
 *   off     without `home.occupancy` and `directory`: where the locks
 *           live moves throughput by far less.
 *   as shipped  printed only: at the file's (assumed) occupancy the
 *           agents are lightly loaded and the difference is a few percent
 *           at most (the README gives the figures).
 *
 * A topology is loaded once per process, so each copy is measured in a
 * child process that sends its figures back through a pipe.
 *
 * argv[1] (the bin/ directory) is not needed: nothing here runs a binary.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/lock.h>

#include "testlib.h"
#include "../sim/topology.h"

#define NSEEDS 3
#ifndef HA_SEED0
#define HA_SEED0 20240601ull /* -DHA_SEED0=... to try others */
#endif
#define SEED0 ((uint64_t)HA_SEED0)
#define THREADS 32
#define NLOCKS 4
#define CS_LINES 4
#define LOADED_NS "40"

static const char *const locks[] = { "ticket", "mcs" };
#define NALGOS (sizeof(locks) / sizeof(locks[0]))

/* Throughput (acquisitions per second), [lock][home: same, spread]. */
struct figures {
	double tput[NALGOS][2];
};

static void config(struct wl_config *c, const char *topo, enum wl_lock_home home)
{
	tl_config(c, topo, SEED0);
	c->locks = NLOCKS;
	c->lock_home = home;
	c->cs_lines = CS_LINES;
	c->duration_ms = 1;
}

/* Repetition idx of lock a on topo: its throughput. */
static double measure(const char *topo, const struct lock_algo *a, enum wl_lock_home home,
		      unsigned idx)
{
	struct wl_config c;
	struct wl_run run;
	struct run_counters k;
	char err[512] = "";
	double t;

	config(&c, topo, home);
	if (tl_run(&c, a, THREADS, idx, &run, &k, err, sizeof(err)))
		fail_msg("%s on %s, run %u: %s%s", a->name, topo, idx, err, run.failure);
	t = (double)tl_acquisitions(&run) / ((double)c.duration_ms * 1e-3);
	tl_done(&run);
	return t;
}

static double median_tput(const char *topo, const struct lock_algo *a, enum wl_lock_home home)
{
	double v[NSEEDS];

	unsigned n = tl_sanitized_share(NSEEDS, NSEEDS);

	for (unsigned i = 0; i < n; i++)
		v[i] = measure(topo, a, home, i);
	return tl_median(v, n);
}

/* In a child process: load topo, measure every lock both ways, write the
 * figures to fd. */
static int child_measure(const char *prog, const char *topo, int fd)
{
	struct figures f;

	memset(&f, 0, sizeof(f));
	if (tl_backend_start(prog, topo))
		return 1;
	for (unsigned i = 0; i < NALGOS; i++) {
		const struct lock_algo *a = lock_find(locks[i]);

		if (!a)
			return 1;
		f.tput[i][0] = median_tput(topo, a, WL_HOME_SAME);
		f.tput[i][1] = median_tput(topo, a, WL_HOME_SPREAD);
	}
	backend_fini();
	return write(fd, &f, sizeof(f)) == (ssize_t)sizeof(f) ? 0 : 1;
}

static const char *prog_name;

static void run_child(const char *topo, struct figures *f)
{
	int fds[2];
	pid_t pid;
	int status;

	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		_exit(child_measure(prog_name, topo, fds[1]));
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], f, sizeof(*f)), (ssize_t)sizeof(*f));
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A copy of topologies/NAME.xml, as `how` says: "off" without the
 * home-agent and directory properties, "loaded" with home.occupancy set to
 * LOADED_NS ns.  Returns its path. */
static const char *machine_copy(const char *name, const char *how)
{
	char src[512], line[4096], file[64];
	bool cycles = false, loaded = !strcmp(how, "loaded");
	const char *dst;
	FILE *in, *out;

	assert_int_equal(topo_resolve(name, src, sizeof(src)), 0);
	snprintf(file, sizeof(file), "%s-%s.xml", name, how);
	dst = tl_path(file);
	in = fopen(src, "r");
	out = fopen(dst, "w");
	assert_true(in && out);
	while (fgets(line, sizeof(line), in)) {
		bool occ = strstr(line, "id=\"home.occupancy\"");

		cycles |= strstr(line, "id=\"unit\" value=\"cycles\"") != NULL;
		if (occ && loaded) {
			/* in cycles: 84 at opteron48's 2.1 GHz is 40 ns */
			fprintf(out, "    <prop id=\"home.occupancy\" value=\"%s\"/>\n",
				cycles ? "84" : LOADED_NS);
			continue;
		}
		if (!loaded && (occ || strstr(line, "id=\"directory\"")))
			continue;
		fputs(line, out);
	}
	fclose(in);
	fclose(out);
	return dst;
}

static void print_figures(const char *name, const char *how, const struct figures *f)
{
	for (unsigned i = 0; i < NALGOS; i++)
		print_message("  %-10s %-10s %-7s same %.3f M/s  spread %.3f M/s  same/spread %.3f\n",
			      name, how, locks[i], f->tput[i][0] / 1e6, f->tput[i][1] / 1e6,
			      f->tput[i][0] / f->tput[i][1]);
}

/*
 * Loaded: every lock is slower with its four instances homed on one node
 * (at most 0.93 of spread), and by at least 0.05 more than with home
 * agents and probes off.
 */
static void same_home_slower(const char *name)
{
	struct figures shipped, loaded, off;

	if (!TL_SANITIZED) {
		run_child(name, &shipped);
		print_figures(name, "as shipped", &shipped);
	}
	run_child(machine_copy(name, "loaded"), &loaded);
	run_child(machine_copy(name, "off"), &off);
	print_figures(name, "loaded", &loaded);
	print_figures(name, "off", &off);
	for (unsigned i = 0; i < NALGOS; i++) {
		double r_on = loaded.tput[i][0] / loaded.tput[i][1];
		double r_off = off.tput[i][0] / off.tput[i][1];

		if (r_on > 0.93)
			fail_msg("%s, %s: same/spread %.3f with loaded home agents (want <= 0.93)",
				 name, locks[i], r_on);
		if (r_on > r_off - 0.05)
			fail_msg("%s, %s: same/spread %.3f loaded, %.3f off (want <= off - 0.05)",
				 name, locks[i], r_on, r_off);
	}
}

static void intel_4socket(void **state)
{
	same_home_slower("4socket");
}

static void opteron48(void **state)
{
	same_home_slower("opteron48");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intel_4socket),
		cmocka_unit_test(opteron48),
	};

	prog_name = argv[0];
	return cmocka_run_group_tests(tests, tl_tmpdir_setup, tl_tmpdir_teardown);
}
