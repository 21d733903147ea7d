/*
 * sim/idle.h - the idle state a hardware thread enters while its thread
 * sleeps, chosen as Linux's menu governor chooses it, and the exit latency
 * a wake-up then pays (sim/idle.c).
 */
#ifndef SIM_IDLE_H
#define SIM_IDLE_H

#include <stdbool.h>
#include <stdint.h>

#include "topology.h"

/* A run on machine t begins, its n threads on cores[]: every hardware
 * thread's history of idle intervals is empty, and those with no thread
 * are idle.  0, or -1 out of memory. */
int idle_begin(const struct topo *t, unsigned n, const unsigned *cores);
/* The measured interval's wake-ups from each idle state ([t->nidle]) and
 * the exit latency they paid.  Returns how many times a thread went to
 * sleep on a CPU the record had as empty: 0 unless the moves of threads
 * between CPUs (sim/sched_noise.c, sim/failure.c) kept it wrong. */
uint64_t idle_end(uint64_t *wakes, uint64_t *exit_ps);

/* A thread of the run comes to hardware thread core (at its start, or
 * migrated there), or leaves it (migrated away, or ended). */
void idle_occupy(unsigned core);
void idle_vacate(unsigned core);

/* Hardware thread core goes idle at now_ps (its thread sleeps): the state
 * it enters, an index into t->idle, or -1 when the machine has none. */
int idle_enter(unsigned core, uint64_t now_ps);
/* It is woken at now_ps from state (idle_enter's answer, made no deeper
 * than its SMT siblings' states allow): the exit latency to pay.  The
 * interval joins core's history; the wake-up is counted when counted (it
 * falls in the measured interval). */
uint64_t idle_leave(unsigned core, int state, uint64_t now_ps, bool counted);

#endif
