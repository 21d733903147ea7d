/*
 * sim/idle.c - the idle state a hardware thread enters while its thread
 * sleeps, and what leaving it costs the wake-up.
 *
 * A thread that sleeps (ll_park: a futex wait, a halt) leaves its hardware
 * thread with nothing to run, and the kernel's cpuidle governor puts it in
 * an idle state of the machine's table (`idle.states` of the topology:
 * exit latency and target residency of each, as Linux's intel_idle lists
 * them; topologies/README.md, "Idle states").  A wake-up then takes the
 * state's exit latency before the woken thread runs, besides the
 * scheduler's path (SIM_WAKE_PS, core/park_costs.h).  Deep states take a hundred
 * microseconds or more to leave, so on an idle-capable machine a sleeping
 * lock's handoff costs what the governor chose, not only the futex path.
 *
 * The governor is Linux's menu governor as of 4.1
 * (drivers/cpuidle/governors/menu.c), reduced to what a sleeping thread of
 * a lock benchmark meets:
 *
 *   predicted   the typical interval of the hardware thread's last 8 idle
 *               intervals (get_typical_interval): their mean, when their
 *               standard deviation (an integer square root, as int_sqrt)
 *               is at most 20 us, or when the mean exceeds six standard
 *               deviations and at least 6 intervals remain; else the
 *               largest are dropped and the rest tried again while more
 *               than 6 remain; else none
 *   state       the deepest whose target residency and exit latency are
 *               both at most the prediction; with no prediction the
 *               deepest; at least the first
 *
 * SMT: a core enters C3 or C6 only when all its hardware threads are idle
 * (Intel's optimization reference manual, the core C-states).  A woken
 * thread whose sibling runs at that moment leaves the shallowest state
 * (the core stayed in C0); with every sibling idle, the shallowest of
 * their states.  A hardware thread no thread of the run occupies is idle
 * in the deepest state.
 *
 * What the model leaves out, each *assumed* away: the next timer event
 * and its correction factor (an idle thread of a benchmark has none due
 * soon: with the tick stopped, the next timer is taken as beyond every
 * state's residency), the load and I/O-wait multiplier (1), PM QoS limits
 * (none), and the history before the run: a hardware thread starts with
 * no intervals, as a machine idle before the run starts without a
 * pattern, so its first sleep goes to the deepest state and the
 * governor's rules apply to the intervals recorded since.  Interrupts on
 * an idle hardware thread (--irq-rate-hz) neither end its idle period nor
 * enter its history.  A wake-up pays the driver's exit latency in full
 * (the table's figure is a worst case).
 *
 * --idle-states off (sim/switches.c) empties the table: the hardware
 * thread polls (Linux's idle=poll) and a wake-up pays no exit latency.
 * Under --vm a halt is the hypervisor's (sim/vm.h) and this file is not
 * used.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/result.h>

#include "idle.h"

_Static_assert(TOPO_MAX_IDLE == LL_MAX_IDLE_STATES, "one bound on a machine's idle states");

#define INTERVALS 8
#define STABLE_SIGMA_US 20.0 /* menu.c: stddev <= 20 */
#define STABLE_SIGMAS 6.0    /* menu.c: avg > stddev * 6 */
#define BUSY (-1)            /* now: a thread runs on the hardware thread */

struct idle_cpu {
	double interval_us[INTERVALS];
	unsigned next, filled;
	uint64_t since_ps;
	int now; /* BUSY, or the state it is idle in */
};

static struct {
	const struct topo *t;
	struct idle_cpu *cpu;
	uint64_t wakes[TOPO_MAX_IDLE], exit_ps;
	uint64_t stale; /* sleeps on a CPU recorded as empty: a bookkeeping fault */
} idl;

int idle_begin(const struct topo *t, unsigned n, const unsigned *cores)
{
	free(idl.cpu);
	memset(&idl, 0, sizeof(idl));
	idl.t = t;
	if (!t->nidle)
		return 0;
	idl.cpu = calloc(t->ncores, sizeof(*idl.cpu));
	if (!idl.cpu)
		return -1;
	for (unsigned c = 0; c < t->ncores; c++)
		idl.cpu[c].now = (int)t->nidle - 1; /* no thread on it */
	for (unsigned i = 0; i < n; i++)
		idle_occupy(cores[i]);
	return 0;
}

void idle_occupy(unsigned core)
{
	if (idl.cpu && core < idl.t->ncores)
		idl.cpu[core].now = BUSY;
}

void idle_vacate(unsigned core)
{
	if (idl.cpu && core < idl.t->ncores)
		idl.cpu[core].now = (int)idl.t->nidle - 1;
}

uint64_t idle_end(uint64_t *wakes, uint64_t *exit_ps)
{
	uint64_t stale = idl.stale;

	if (idl.t)
		memcpy(wakes, idl.wakes, idl.t->nidle * sizeof(*wakes));
	*exit_ps = idl.exit_ps;
	free(idl.cpu);
	memset(&idl, 0, sizeof(idl));
	return stale;
}

/* get_typical_interval: the mean of the recorded intervals below thresh,
 * when they agree; -1 when they do not. */
static double typical_interval(const struct idle_cpu *c)
{
	double thresh = HUGE_VAL;

	for (;;) {
		double sum = 0, var = 0, max = 0, avg, sd;
		unsigned n = 0;

		for (unsigned i = 0; i < c->filled; i++) {
			if (c->interval_us[i] >= thresh)
				continue;
			sum += c->interval_us[i];
			n++;
			if (c->interval_us[i] > max)
				max = c->interval_us[i];
		}
		if (!n)
			return -1;
		avg = sum / n;
		for (unsigned i = 0; i < c->filled; i++)
			if (c->interval_us[i] < thresh)
				var += (c->interval_us[i] - avg) * (c->interval_us[i] - avg);
		sd = floor(sqrt(var / n)); /* int_sqrt */
		if ((avg > STABLE_SIGMAS * sd && n * 4 >= INTERVALS * 3) || sd <= STABLE_SIGMA_US)
			return avg;
		if (n * 4 <= INTERVALS * 3)
			return -1;
		thresh = max; /* drop the largest (menu.c: thresh = max - 1, in whole us) */
	}
}

int idle_enter(unsigned core, uint64_t now_ps)
{
	const struct topo *t = idl.t;
	struct idle_cpu *c;
	double predicted;
	int state = 0;

	if (!t || !t->nidle || !idl.cpu || core >= t->ncores)
		return -1;
	c = &idl.cpu[core];
	idl.stale += c->now != BUSY; /* the sleeper ran there: it must be occupied */
	c->since_ps = now_ps;
	predicted = typical_interval(c);
	for (unsigned i = 1; i < t->nidle; i++) {
		double res_us = (double)t->idle[i].residency_ps / 1e6;
		double exit_us = (double)t->idle[i].exit_ps / 1e6;

		if (predicted < 0 || (res_us <= predicted && exit_us <= predicted))
			state = (int)i;
	}
	c->now = state;
	return state;
}

/* The state hardware thread core leaves when woken from state: no deeper
 * than any sibling's (a busy sibling kept the core in C0: the first). */
static int core_state(unsigned core, int state)
{
	unsigned sib[TOPO_MAX_SMT], n = topo_siblings(idl.t, core, sib);

	for (unsigned i = 0; i < n && state > 0; i++) {
		if (idl.cpu[sib[i]].now == BUSY)
			return 0;
		if (idl.cpu[sib[i]].now < state)
			state = idl.cpu[sib[i]].now;
	}
	return state;
}

uint64_t idle_leave(unsigned core, int state, uint64_t now_ps, bool counted)
{
	const struct topo *t = idl.t;
	struct idle_cpu *c;

	if (state < 0 || !t || !idl.cpu || core >= t->ncores || (unsigned)state >= t->nidle)
		return 0;
	c = &idl.cpu[core];
	c->interval_us[c->next] = now_ps > c->since_ps ? (double)(now_ps - c->since_ps) / 1e6 : 0;
	c->next = (c->next + 1) % INTERVALS;
	if (c->filled < INTERVALS)
		c->filled++;
	state = core_state(core, state);
	c->now = BUSY;
	if (counted) {
		idl.wakes[state]++;
		idl.exit_ps += t->idle[state].exit_ps;
	}
	return t->idle[state].exit_ps;
}
