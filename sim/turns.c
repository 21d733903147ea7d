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
 *   running actor a waits until t        due(a) = t
 *   a is still the earliest              its clock moves to t; no event
 *   another actor n is earlier           hand over: due(n) = SIM_NEVER,
 *                                        resume n, suspend a; n runs at
 *                                        its due time
 *   a wakes w                            due(w) = now, if that is earlier;
 *                                        no simcall: w runs when it is
 *                                        the earliest
 *   a leaves                             hand over to the earliest
 *   the earliest n is due to park ahead  a is made due first, then, before
 *     (sim/blocking.c), or with an       it hands over or goes on, it parks
 *     access others may carry on         n as n would then (sim_park_ahead),
 *     (sim/memops.c), no later than t    or makes the access's next stages
 *                                        (sim_access_ahead), what n does
 *                                        coming after a was made due; no
 *                                        event; where n must run itself, n
 *                                        runs as any other
 *
 * So at every moment exactly one actor runs, and it runs at the earliest
 * instant any actor can act: every actor runs at the same instants, in the
 * same order, as a discrete-event simulator with one queue.  SimGrid's own
 * clock does not move: a hand-over is two simcalls, a resume and a suspend
 * (`scons bench`, line 1, compares it with a SimGrid sleep).  The running
 * actor touches nothing shared between resuming the next and suspending
 * itself, and SimGrid runs one actor at a time, so the next one is alone
 * with the simulator's state.
 *
 * A resume is lost on an actor that has not suspended yet: an actor not
 * yet started, or one that has resumed the next and not yet suspended
 * (SimGrid may run the next one first).  So the hand-over is a flag
 * beside the simcalls:
 *
 *   hand_to(n):   n waiting?  clear it, resume n   else  n->turn_handed
 *   take_turn(a): a handed?   clear it, go on      else  a waiting, suspend
 *
 * SimGrid handles the simcalls of a round in the order their actors ran,
 * so a suspend is handled before a resume of the same actor issued after
 * it.  (Two semaphores per hand-over cost about half as much again, with
 * an activity allocated at every acquire.)
 */
#include <stdlib.h>

#include <simgrid/actor.h>

#include "sim.h"
#include "turns.h"

#if defined(__SANITIZE_ADDRESS__)
#define SIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIM_ASAN 1
#endif
#endif
#ifndef SIM_ASAN
#define SIM_ASAN 0
#endif
#if SIM_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

/* A key: an actor and when it is due.  The tree's nodes hold copies of
 * their winners' keys, so that a match reads two neighbouring nodes. */
struct due {
	uint64_t t, seq;
	unsigned idx;
};

static struct due *tree; /* [2 * width]: the leaves at width + i, each node the earlier child */
static unsigned width;
static uint64_t seq;
static bool started;

static bool before(const struct due *a, const struct due *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static const struct due *earlier_child(unsigned k)
{
	const struct due *l = &tree[2 * k], *r = &tree[2 * k + 1];

	return before(r, l) ? r : l;
}

static uint64_t due_of(unsigned i)
{
	return tree[width + i].t;
}

static void set_due(unsigned i, uint64_t t)
{
	tree[width + i] = (struct due){ t, seq++, i };
	for (unsigned k = (width + i) >> 1; k; k >>= 1) {
		const struct due *w = earlier_child(k);

		if (w->idx == tree[k].idx && w->idx != i)
			break; /* the same winner, its time unchanged: so above */
		tree[k] = *w;
	}
}

static struct sim_actor *next_due(void)
{
	return tree[1].t == SIM_NEVER ? NULL : &sim.actors[tree[1].idx];
}

int sim_turns_reset(unsigned n)
{
	free(tree);
	for (width = 1; width < n; width <<= 1)
		;
	tree = malloc(2 * width * sizeof(*tree));
	if (!tree)
		return -1;
	seq = 0;
	for (unsigned i = 0; i < width; i++) {
		/* every actor starts due at 0 */
		tree[width + i] = (struct due){ i < n ? 0 : SIM_NEVER, seq++, i };
	}
	for (unsigned k = width - 1; k; k--)
		tree[k] = *earlier_child(k);
	started = false;
	return 0;
}

/*
 * AddressSanitizer knows a thread's stack, not the actors' stacks SimGrid
 * switches between: where code cannot return (a longjmp out of an aborted
 * run, the exception SimGrid ends an actor with) it clears the poison from
 * the current stack pointer to the top of the stack it knows, and refuses
 * when that is not the stack it is on.  So each actor, when its turn
 * begins, says that the stack it runs on is its own: from its entry's
 * frame down by the stack size.  Maestro's own is given back after the
 * run.  Under thread contexts each actor is a thread ASan knows.
 *
 * The fake stacks of detect_stack_use_after_return are per thread, not
 * per stack: a frame of a parked actor would look returned.  That
 * detection is off in the simulator (__asan_default_options; an
 * ASAN_OPTIONS that turns it on is the user's, and reports frames that
 * are alive).
 */
#if SIM_ASAN
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_stack_use_after_return=0";
}
#endif

static const void *main_bottom;
static size_t main_size;

static void set_asan_stack(const void *bottom, size_t size, bool keep_old)
{
#if SIM_ASAN
	__sanitizer_start_switch_fiber(NULL, bottom, size);
	__sanitizer_finish_switch_fiber(NULL, keep_old ? &main_bottom : NULL,
					keep_old ? &main_size : NULL);
#else
	(void)bottom, (void)size, (void)keep_old;
#endif
}

static void on_own_stack(struct sim_actor *a)
{
	if (SIM_ASAN && sim.raw_contexts)
		set_asan_stack((const char *)a->stack_top - sim.stack_bytes, sim.stack_bytes,
			       !main_size);
}

void sim_turns_done(void)
{
	if (main_size)
		set_asan_stack(main_bottom, main_size, false);
	main_size = 0;
}

/* n runs next, at its due time. */
static void hand_to(struct sim_actor *n)
{
	n->turn_ps = due_of(n->idx);
	set_due(n->idx, SIM_NEVER);
	if (n->turn_waiting) {
		n->turn_waiting = false;
		sg_actor_resume(n->self);
	} else {
		n->turn_handed = true;
	}
}

static void take_turn(struct sim_actor *a)
{
	if (a->turn_handed) {
		a->turn_handed = false;
	} else {
		a->turn_waiting = true;
		sg_actor_suspend(a->self);
	}
	on_own_stack(a);
	sim.cur = a;
	sim.now_ps = a->turn_ps;
}

/* Is n due to park at a completion, or with an access others may carry on? */
static bool is_ahead(const struct sim_actor *n)
{
	return n->park_ahead || n->acc.ahead;
}

/* Make for n, due at `at`, what it would do then: park it, or carry its
 * access on; false when it must run itself. */
static bool step_ahead(struct sim_actor *n, uint64_t at, uint64_t *due)
{
	return n->park_ahead ? sim_park_ahead(n, at, due) : sim_access_ahead(n, at, due);
}

/* The earliest actor once what those due ahead of a (made due already) do
 * at their instants is made for them: what such an actor does then (the
 * misses its completion admits, the stage its access reaches, the instant
 * it is made due at) comes after a was made due, in the order it would
 * have come had a handed over to it; a itself when it is still the
 * earliest. */
static struct sim_actor *next_due_parking(struct sim_actor *a)
{
	struct sim_actor *n;
	uint64_t due;

	while ((n = next_due()) && n != a && is_ahead(n) && step_ahead(n, tree[1].t, &due))
		set_due(n->idx, due);
	return next_due();
}

uint64_t sim_turn_next_ps(void)
{
	return tree[1].t;
}

void sim_turn_wait(struct sim_actor *a, uint64_t t, enum sim_event_kind k)
{
	struct sim_actor *n = next_due(); /* of the others: a runs, due never */

	a->woke_line = 0; /* those it woke are due no later than t: they go first */
	if (sim.nahead && n && is_ahead(n) && tree[1].t <= t) {
		set_due(a->idx, t); /* made due now: a tie goes to the others */
		n = next_due_parking(a);
		if (n == a) { /* still the earliest */
			set_due(a->idx, SIM_NEVER);
			sim.cur = a;
			sim.now_ps = t;
			return;
		}
	} else if (t != SIM_NEVER && (!n || t < tree[1].t)) {
		/* still the earliest (made due now, a tie would go after) */
		sim.cur = a;
		sim.now_ps = t;
		return;
	} else {
		set_due(a->idx, t);
	}
	SIM_COUNT_EVENT(k);
	if (n)
		hand_to(n);
	/* else nobody is due: SimGrid ends the run with this actor
	 * blocked (sim_check_stranded) */
	take_turn(a);
}

void sim_turn_wake(struct sim_actor *w)
{
	if (w != sim.cur && due_of(w->idx) > sim.now_ps)
		set_due(w->idx, sim.now_ps);
}

void sim_turn_enter(struct sim_actor *a, const void *stack_top)
{
	a->stack_top = stack_top;
	if (!started) {
		started = true;
		hand_to(next_due()); /* the first of the run, a itself or another */
	}
	take_turn(a);
}

void sim_turn_leave(struct sim_actor *a)
{
	struct sim_actor *n = next_due(); /* of the others: a runs, due never */

	if (n) {
		hand_to(n);
		on_own_stack(a); /* others may have run meanwhile; SimGrid ends it next */
	}
}
