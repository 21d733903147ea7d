/*
 * sim/lookahead.c - conservative lookahead: the running actor lets its own
 * time pass without a SimGrid event while that time stays before every
 * other actor's next event.
 *
 * Each actor has a wake time: the end of its sleep or of its timed wait,
 * SIM_LA_NEVER while it runs, is suspended with no deadline, or has left,
 * and the waker's time once it is made runnable.  A tournament tree keeps
 * their minimum.  A sleep of the running actor that ends strictly before
 * that minimum would make SimGrid resume that same actor next, before
 * anyone else: the actor instead moves its own clock (sim.now_ps) and goes
 * on, and SimGrid's clock lags behind.  Before the actor hands anything to
 * SimGrid that another actor sees (a resume, a semaphore, a timed wait, its
 * exit) it catches up with one real sleep (sim_la_sync), so every actor
 * runs at the same instants, in the same order, as with every sleep taken.
 * Virtual machines (sim/vm.c) keep every sleep.
 */
#include <stdlib.h>

#include <simgrid/actor.h>

#include "lookahead.h"
#include "sim.h"
#include "vm.h"

static uint64_t *tree; /* [2 * width]: leaves at width + i */
static unsigned width;
static bool lagging;   /* SimGrid's clock is behind the running actor's */

int sim_la_reset(unsigned n)
{
	free(tree);
	for (width = 1; width < n; width <<= 1)
		;
	tree = malloc(2 * width * sizeof(*tree));
	if (!tree)
		return -1;
	for (unsigned i = 0; i < 2 * width; i++)
		tree[i] = SIM_LA_NEVER;
	for (unsigned i = 0; i < n; i++)
		sim_la_set(i, 0); /* every actor starts runnable */
	lagging = false;
	return 0;
}

void sim_la_set(unsigned i, uint64_t t)
{
	unsigned k = width + i;

	tree[k] = t;
	for (k >>= 1; k; k >>= 1) {
		uint64_t l = tree[2 * k], r = tree[2 * k + 1], m = l < r ? l : r;

		if (tree[k] == m)
			break; /* nothing above it changes either */
		tree[k] = m;
	}
}

/* w was made runnable by the running actor. */
void sim_la_woken(struct sim_actor *w)
{
	if (sim.now_ps < tree[width + w->idx])
		sim_la_set(w->idx, sim.now_ps);
}

/* May the running actor a move its clock to t without an event? */
bool sim_la_skip(struct sim_actor *a, uint64_t t)
{
	if (sim_vm || t >= tree[1])
		return false;
	lagging = true;
	return true;
}

/* Bring SimGrid's clock to the running actor's before a simcall others
 * may see.  The sleep ends before any other actor's event: nobody runs
 * in between. */
void sim_la_sync(struct sim_actor *a)
{
	if (!lagging)
		return;
	lagging = false;
	SIM_COUNT_EVENT(SIM_EV_SYNC);
	sg_actor_sleep_until((double)(sim.base_ps + sim.now_ps) * 1e-12);
}

/* The running actor is about to block in SimGrid, which brings SimGrid's
 * clock to the instant it is resumed at. */
void sim_la_blocking(void)
{
	lagging = false;
}

/* A simcall that makes another actor runnable may run it before it
 * returns: the caller, runnable at its own time, is one of the others for
 * it, and SimGrid's clock must be the caller's. */
void sim_la_yield(struct sim_actor *me)
{
	sim_la_sync(me);
	if (me)
		sim_la_set(me->idx, sim.now_ps);
}

void sim_la_back(struct sim_actor *me)
{
	if (me)
		sim_la_set(me->idx, SIM_LA_NEVER);
}
