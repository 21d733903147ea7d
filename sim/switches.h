/*
 * sim/switches.h - the switches that turn a memory-system mechanism off
 * (--home-agents, --probes, --smt, --idle-states; sim/switches.c), and SMT's sharing of a
 * core's issue bandwidth between siblings (sim/smt.c).
 */
#ifndef SIM_SWITCHES_H
#define SIM_SWITCHES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <locklab/workload.h>

#include "coherence.h"

struct sim_actor;

/* One of the switches: 1 taken, 0 not a switch, -1 a bad value (err). */
int sim_switch_parse(const char *opt, const char *val, char *err, size_t len);
/* --smt off, --idle-states off: on the loaded topology, before any model
 * is built. */
void sim_switch_topo(struct topo *t);
/* --home-agents off, --probes off: on a new model. */
void sim_switch_model(struct coh_model *m);
/* --snoop-travel and --lat-spread, when given, as the text of the run's
 * assumed line; returns its length (0 and "" when neither). */
size_t sim_sizes_assumed(char *buf, size_t len);
/* The latency spread a run uses, per cent: --lat-spread's, else the
 * topology's latency.spread. */
unsigned sim_lat_spread(void);
/* For the runs that follow, a latency spread of pct per cent in place of
 * the run's (the lockstep probe, sim/lockstep.c); -1 gives the run's back.  Nothing
 * said of the run (settings, JSON) changes. */
void sim_lat_spread_force(int pct);
/* The switches given off, a machine's smt and its idle states (not under
 * --vm), and the snoop travel and latency spread a run has with whether an
 * option gave them, as members of the JSON topology object (", \"smt\":
 * \"off\"", ", \"idle_states\": [...]", ", \"snoop_travel_pct\": 50,
 * \"snoop_travel_given\": true"). */
void sim_switch_json(FILE *f, const struct wl_config *cfg);
/* The switches turned off but --idle-states, and the snoop travel and
 * latency spread a run has, as ", --smt off, snoop travel 50%
 * (--snoop-travel)" text;
 * returns its length. */
size_t sim_switch_text(char *buf, size_t len);
/* The topology's `assumed` properties that this run uses, each in quote,
 * sep between them ("" and 0 when none or no file lists them). */
size_t sim_assumed_list(const struct wl_config *cfg, const char *sep, const char *quote,
			char *buf, size_t len);
/* A configuration's use of the switches: 0, or -1 with one line in err
 * (--idle-states on under --vm, where a halt is the hypervisor's; off
 * says what is so there, as a noise option's 0 does). */
int sim_switch_check(const struct wl_config *cfg, char *err, size_t len);
/* The idle states a run uses, as "idle states C1,C1E,C3,C6 (the
 * topology's)", "idle states off (...)" or "no idle states (...)"; empty
 * under --vm.  Returns its length. */
size_t sim_idle_text(const struct wl_config *cfg, char *buf, size_t len);
/* The same as one CSV field: "C1 C1E C3 C6", "off" or "none" (also under
 * a VM's schedule, the OS model's, whose cpus enter none). */
size_t sim_idle_field(const struct wl_config *cfg, char *buf, size_t len);

/* The local time a delay of d_ps starting at start_ps takes on actor a's
 * hardware thread: the part that overlaps a sibling's delay runs at
 * smt.issue_share of the core (stretched by 1 / share).  d_ps without SMT. */
uint64_t sim_smt_delay_ps(const struct sim_actor *a, uint64_t start_ps, uint64_t d_ps);

#endif
