/*
 * sim/turns.h - whose turn it is: the simulator's clock and the order in
 * which its actors run (sim/turns.c).
 */
#ifndef SIM_TURNS_H
#define SIM_TURNS_H

#include <stdbool.h>
#include <stdint.h>

#include "sim.h"

#define SIM_NEVER UINT64_MAX

/* A new run of n actors, every one due at 0, in index order. */
int sim_turns_reset(unsigned n);
/* The running actor a waits until t (SIM_NEVER: until sim_turn_wake).
 * Returns with sim.cur = a and sim.now_ps the instant of its turn; when
 * other actors ran meanwhile, that was an event of kind k. */
void sim_turn_wait(struct sim_actor *a, uint64_t t, enum sim_event_kind k);
/* When the earliest of the other actors is due (SIM_NEVER: none is). */
uint64_t sim_turn_next_ps(void);
/* A waiting actor becomes due now, unless it already is earlier. */
void sim_turn_wake(struct sim_actor *w);
/* An actor's first and last acts: wait for its first turn (stack_top:
 * its entry's frame); hand the machine to the next due actor as it
 * leaves.  After the run, sim_turns_done() in maestro. */
void sim_turn_enter(struct sim_actor *a, const void *stack_top);
void sim_turn_leave(struct sim_actor *a);
void sim_turns_done(void);

#endif
