/*
 * sim/lookahead.h - the earliest instant at which another actor can act,
 * so that the running actor may let time pass without a SimGrid event
 * (sim/lookahead.c).
 */
#ifndef SIM_LOOKAHEAD_H
#define SIM_LOOKAHEAD_H

#include <stdbool.h>
#include <stdint.h>

#define SIM_LA_NEVER UINT64_MAX

struct sim_actor;

int sim_la_reset(unsigned n);
void sim_la_set(unsigned i, uint64_t t);
void sim_la_woken(struct sim_actor *w);
bool sim_la_skip(struct sim_actor *a, uint64_t t);
void sim_la_sync(struct sim_actor *a);
void sim_la_blocking(void);
void sim_la_yield(struct sim_actor *me);
void sim_la_back(struct sim_actor *me);

#endif
