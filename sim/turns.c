/*
 * sim/turns.c - whose turn it is: the simulator keeps its own clock and
 * runs one actor at a time, the one due first; SimGrid runs the actors.
 *
 * Each actor has a due time: the end of its sleep, the deadline of its
 * wait, the instant another actor woke it, or SIM_NEVER while it runs,
 * waits with no deadline, or has left.  A tournament tree keeps the
 * earliest; among equal times the one made due first goes first (a
 * sequence number), so actors woken at one instant run in the order they
 * were woken and sleeps that end together in the order they began.
 *
 *   running actor a waits until t        due[a] = t
 *   a is still the earliest              its clock moves to t; no event
 *   another actor n is earlier           hand over: due[n] = SIM_NEVER,
 *                                        release n's semaphore, block on
 *                                        a's own; n runs at its due time
 *   a wakes w                            due[w] = now, if that is earlier;
 *                                        no simcall: w runs when it is
 *                                        the earliest
 *   a leaves                             hand over to the earliest
 *
 * So at every moment exactly one actor runs, and it runs at the earliest
 * instant any actor can act: every actor runs at the same instants, in the
 * same order, as a discrete-event simulator with one queue.  SimGrid's own
 * clock does not move: a hand-over is two semaphore simcalls, about half
 * the cost of a SimGrid sleep (`scons bench`, line 1).  The running actor
 * touches nothing shared between releasing the next and blocking on its
 * own semaphore, and SimGrid runs one actor at a time, so the next one is
 * alone with the simulator's state.
 */
#include <stdlib.h>

#include <simgrid/semaphore.h>

#include "sim.h"
#include "turns.h"

struct due {
	uint64_t t, seq;
};

static struct due *due; /* [width] */
static unsigned *win;   /* [2 * width]: leaves at width + i, each node the earlier child */
static unsigned width;
static uint64_t seq;
static bool started;

static bool before(unsigned i, unsigned j)
{
	return due[i].t < due[j].t || (due[i].t == due[j].t && due[i].seq < due[j].seq);
}

static unsigned earlier_child(unsigned k)
{
	unsigned l = win[2 * k], r = win[2 * k + 1];

	return before(r, l) ? r : l;
}

static void set_due(unsigned i, uint64_t t)
{
	due[i] = (struct due){ t, seq++ };
	for (unsigned k = (width + i) >> 1; k; k >>= 1) {
		unsigned w = earlier_child(k);

		if (w == win[k] && w != i)
			break; /* the same winner, its time unchanged: so above */
		win[k] = w;
	}
}

static struct sim_actor *next_due(void)
{
	unsigned i = win[1];

	return due[i].t == SIM_NEVER ? NULL : &sim.actors[i];
}

int sim_turns_reset(unsigned n)
{
	free(due);
	free(win);
	for (width = 1; width < n; width <<= 1)
		;
	due = malloc(width * sizeof(*due));
	win = malloc(2 * width * sizeof(*win));
	if (!due || !win)
		return -1;
	seq = 0;
	for (unsigned i = 0; i < width; i++) {
		/* every actor starts due at 0 */
		due[i] = (struct due){ i < n ? 0 : SIM_NEVER, seq++ };
		win[width + i] = i;
	}
	for (unsigned k = width - 1; k; k--)
		win[k] = earlier_child(k);
	started = false;
	return 0;
}

/* n runs next, at its due time. */
static void hand_to(struct sim_actor *n)
{
	n->turn_ps = due[n->idx].t;
	set_due(n->idx, SIM_NEVER);
	sg_sem_release(n->sem);
}

static void take_turn(struct sim_actor *a)
{
	sg_sem_acquire(a->sem);
	sim.cur = a;
	sim.now_ps = a->turn_ps;
}

bool sim_turn_wait(struct sim_actor *a, uint64_t t)
{
	struct sim_actor *n;

	a->woke_line = 0; /* those it woke are due no later than t: they go first */
	set_due(a->idx, t);
	n = next_due();
	if (n == a) {
		set_due(a->idx, SIM_NEVER);
		sim.cur = a;
		sim.now_ps = t;
		return false;
	}
	if (n)
		hand_to(n);
	/* else nobody is due: SimGrid ends the run with a blocked
	 * (sim_check_stranded) */
	take_turn(a);
	return true;
}

void sim_turn_wake(struct sim_actor *w)
{
	if (w != sim.cur && due[w->idx].t > sim.now_ps)
		set_due(w->idx, sim.now_ps);
}

void sim_turn_enter(struct sim_actor *a)
{
	if (!started) {
		struct sim_actor *n = next_due();

		started = true;
		if (n == a) {
			set_due(a->idx, SIM_NEVER);
			sim.cur = a;
			sim.now_ps = 0;
			return;
		}
		hand_to(n);
	}
	take_turn(a);
}

void sim_turn_leave(struct sim_actor *a)
{
	struct sim_actor *n;

	set_due(a->idx, SIM_NEVER);
	n = next_due();
	if (n)
		hand_to(n);
}
