/*
 * core/park_costs.h - what the simulator charges a parked thread, the
 * longest exit an idle state may have and the widest latency spread a
 * topology may state: shared by the simulator (sim/sim.h, sim/topo_idle.c,
 * sim/topology.h) and by calibrate's platform writer
 * (native/tools/calib_platform.c), which writes a measured wake as the
 * simulator's scheduler path plus an idle state's exit, and a measured
 * spread, and must agree with all three.
 */
#ifndef CORE_PARK_COSTS_H
#define CORE_PARK_COSTS_H

/* Costs of ll_park/ll_unpark (halt and kick), picoseconds: entering a halt,
 * sending a kick (the waker's cost), and the woken thread's delay from the
 * kick until it runs again, besides the exit from the idle state its
 * hardware thread entered (sim/idle.c).  *Assumed*, of the order of a
 * futex wait, a futex wake and the scheduler's path of a wake-up (a
 * context switch, a few microseconds); no measurement stands behind the
 * values.  topologies/README.md lists them with the other constants that
 * are not a topology's. */
#define SIM_HALT_PS 200000ull
#define SIM_KICK_PS 500000ull
#define SIM_WAKE_PS 2000000ull

/* The longest exit an idle state of a topology may take, us: 10 ms (the
 * deepest exit of Linux 4.x's intel_idle is 890 us, skl C10). */
#define SIM_IDLE_MAX_US 10000.0

/* The largest latency.spread and --lat-spread, per cent: a miss never costs
 * less than a tenth of its table latency (sim/coh_protocol.c). */
#define SIM_SPREAD_MAX 90

#endif
