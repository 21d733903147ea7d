/*
 * sim/sched_noise.h - what an OS does to threads nobody pinned (--pin
 * none) or bound to a socket as a set (--pin node:N): a fresh placement
 * per run, migrations, and interrupts that take a core for a while (sim/sched_noise.c; docs/variance.md gives each default
 * and its source).
 */
#ifndef SIM_SCHED_NOISE_H
#define SIM_SCHED_NOISE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <locklab/result.h>
#include <locklab/workload.h>

#include "../core/noise_csv.h"

struct sim_actor;

#define NOISE_USAGE                                                                                \
	"              [--migrate-us MEAN] [--irq-rate-hz R] [--irq-us L]: scheduler noise\n"       \
	"                          (default: on with --pin none and node:N only; 0 = off;\n"     \
	"                          docs/variance.md)\n"                                          \
	"              [--noise-from FILE]  interrupts as a machine's CPUs met them: the CSV\n"  \
	"                          of `locklab-native noise --csv FILE` (instead of --irq-*)\n"

/* Interrupts measured on a machine (--noise-from, sim/noise_file.c): a class
 * per decade of detour length that had a detour, each at its rate per CPU
 * and of its mean length. */
#define NOISE_CLASSES NOISE_DECADES
struct noise_measured {
	char path[512];
	unsigned n;
	double rate_hz[NOISE_CLASSES];
	uint64_t len_ps[NOISE_CLASSES];
	double lost_share; /* the share of the CPUs' time they lost */
};

/* The `all` row of a `locklab-native noise --csv` file: 0, or -1 with one
 * line in err naming the file and the problem. */
int noise_file_read(const char *path, struct noise_measured *m, char *err, size_t errlen);

/* --migrate-us, --irq-rate-hz, --irq-us, --noise-from: 1 taken, 0 not ours,
 * -1 bad. */
int noise_parse_option(const char *opt, const char *val, char *err, size_t errlen);
/* A noise option that cannot apply to cfg (migrations of pinned threads):
 * -1 with one line in err. */
int noise_check(const struct wl_config *cfg, char *err, size_t errlen);
/* --pin none (socket -1) or node:N (socket N): n distinct cores (of that
 * socket) drawn from seed, one per physical core first, siblings last. */
void noise_place(unsigned n, unsigned *cores, uint64_t seed, int socket);
/* A run starts (after sim_begin): draw each actor's first events. */
int noise_begin(struct wl_run *run);
/* The running actor is about to access memory: the interrupts and the
 * migrations due by its own clock happen now; with tell, an interrupt's time
 * is told to the observer (sim/observe.h). */
void sched_noise_point(struct sim_actor *a, bool tell);
/* Do the threads of a run of cfg migrate? */
bool noise_migrates(const struct wl_config *cfg);
/* Does the current run have scheduler noise? */
bool sched_noise_on(void);
/* The run's counts into c; the state goes. */
void noise_end(struct sim_counters *c);
/* The noise a run of cfg has outside a VM, as ", migrations every 4000 us,
 * interrupts 250 Hz x 2 us" text (nothing when it has none). */
void noise_text(const struct wl_config *cfg, char *buf, size_t len);
/* The same as a member of the JSON environment, `, "noise": {...}`:
 * migrate_us, and irq_rate_hz and irq_us or --noise-from's file
 * (noise_from), the share of time it lost and its classes (rate_hz, us);
 * nothing when the run has none. */
void noise_json(FILE *f, const struct wl_config *cfg);
/* Which of that noise's figures are defaults no source gives ("the
 * scheduler noise's migration interval and interrupt length ..."), or
 * nothing (0) when the run has none or they were given. */
size_t noise_assumed(const struct wl_config *cfg, char *buf, size_t len);

#endif
