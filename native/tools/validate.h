/*
 * native/tools/validate.h - the native sub-commands that check the
 * simulator against this machine: the calibration (calibrate.c and
 * calib_measure.c measure, calib_text.c reads and writes it,
 * calib_platform.c turns it into a platform file), the comparison of a
 * native and a simulated sweep (vreport.c), the kernel file-lock
 * benchmarks (filelock.c), and the noise a spinning thread meets on each CPU
 * (noise.c).  Shared with the test programs; commands.c
 * hands them backend_command's arguments.
 *
 * Each sub-command is a function taking the arguments after its name and
 * returning the exit status: 0 done, 2 bad input (one line on stderr),
 * 3 a measurement failed, 1 a result could not be written.
 */
#ifndef LOCKLAB_NATIVE_TOOLS_VALIDATE_H
#define LOCKLAB_NATIVE_TOOLS_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CALIB_MAX_CLASSES 8  /* class 0 (same socket) and up to 7 more */
#define CALIB_MAX_SOCKETS 64
#define CALIB_MAX_NODES 64
#define CALIB_WAKE_RUNGS 8   /* sleeps before a wake, shorter than 1 ms */

/* The operations and line states of ccbench. */
enum calib_op { CAL_LOAD, CAL_STORE, CAL_CAS, CAL_FAI, CAL_SWAP, CAL_NOPS };
enum calib_state { CAL_M, CAL_E, CAL_S, CAL_I, CAL_NSTATES };

extern const char *const calib_op_names[CAL_NOPS];
/* calib_text.c: the sleeps, us, of the wake_after figures */
extern const unsigned calib_wake_sleep_us[CALIB_WAKE_RUNGS];
extern const char calib_state_names[CAL_NSTATES];

/* One measured figure: robust statistics over the kept samples, ns. */
struct calib_cell {
	bool measured;
	double median, p10, p90, mad;
	unsigned samples; /* taken */
	unsigned trimmed; /* of which dropped as outliers */
	int cpu_a, cpu_b; /* requester and the line's owner (-1: none) */
};

struct calib {
	char host[64];
	char cpu_model[128];
	char vendor[32];
	char date[32];   /* UTC, ISO 8601 */
	double tsc_ghz;  /* the clock the samples were counted in */
	double tsc_step_ns; /* the smallest step the clock was seen to take (0: not
			       recorded, a calibration older than the record) */
	unsigned reps;   /* samples taken per figure */
	double loadavg;  /* 1-minute load average when it ran (-1: unknown) */

	unsigned nsockets;
	unsigned socket_pus[CALIB_MAX_SOCKETS];
	unsigned nnodes;

	/* Distance classes: class of each socket pair, and the one-way link
	 * latency the platform file gives each class (0 for class 0). */
	unsigned nclasses;
	unsigned char socket_class[CALIB_MAX_SOCKETS * CALIB_MAX_SOCKETS];
	double class_link_ns[CALIB_MAX_CLASSES];

	struct calib_cell cell[CAL_NOPS][CAL_NSTATES][CALIB_MAX_CLASSES];
	struct calib_cell hit[CAL_NOPS]; /* the requester's own line */
	struct calib_cell pause;         /* one cpu_relax */
	struct calib_cell mem[CALIB_MAX_NODES]; /* load of an uncached line, by node */
	/* a thread asleep in futex_wait on cpu_b woken from cpu_a after it
	 * slept 1 ms: until it runs (wake), and the futex_wake call's own time
	 * (kick); wake_after[i], the wake after calib_wake_sleep_us[i] of
	 * sleep (calib_wake.c).  Not measured on a machine of one PU, nor in
	 * a file older than them (wake_after: older than the ladder). */
	struct calib_cell wake, kick;
	struct calib_cell wake_after[CALIB_WAKE_RUNGS];
	bool inval_measured;
	double inval_per_sharer_ns;
	/* S measured with no third PU in the owner's socket: the requester
	 * evicted its own copy instead (calib_measure.c; not in the CSV) */
	bool s_by_eviction[CALIB_MAX_CLASSES];
};

/* calib_text.c */
/* The calibration as text (the .calib.csv file) and back.  calib_parse
 * returns 0, or -1 with one line in err naming the line and the problem. */
void calib_write(FILE *f, const struct calib *c);
int calib_parse(const char *text, struct calib *c, char *err, size_t errlen);
int calib_read_file(const char *path, struct calib *c, char *err, size_t errlen);

/* calib_platform.c */
/* The figure the platform file states for (op row, state, class): load and
 * store are their own rows, atomic is the mean of cas, fai and swap. */
double calib_row_value(const struct calib *c, int topo_op, enum calib_state st,
		       unsigned cls);
/* Checks a calibration is complete enough for a platform file: 0, or -1
 * with one line in err. */
int calib_check(const struct calib *c, char *err, size_t errlen);
/* After a measurement: a cross-core load on M or E that took about a hit
 * (under 2 hits + 2 ns, the bound of S's note) did not reach another core.  0, or -1 with one line in err (calibrate
 * warns with it). */
int calib_check_transfers(const struct calib *c, char *err, size_t errlen);
/* Distance classes from the load-of-M latency of every socket pair,
 * lat[s * nsockets + t] for s < t.  Sorted by latency, a pair opens a new
 * class when it is more than CALIB_CLASS_STEP times slower than the first
 * pair of the current class (at most CALIB_MAX_CLASSES - 1 classes beyond
 * 0; the last takes the rest).  Fills socket_class and nclasses, and
 * rep[k] = the sockets (s, t) of the median pair of class k >= 1. */
#define CALIB_CLASS_STEP 1.20
/* The finest clock step at which calibrate writes a latency spread, ns:
 * the step it warns about (calibrate.c, clock_step_note). */
#define CALIB_FINE_STEP_NS 2.0
void calib_group_pairs(struct calib *c, const double *lat, unsigned rep[][2]);
/* The one-way link latency of each class for the platform file: half the
 * extra of a load of M over class 0 (as topologies/README.md derives
 * its machines' links), kept at least 1 ns above the class before. */
void calib_link_latencies(struct calib *c);
/* The SimGrid platform file (topologies/README.md) for it. */
void calib_write_topology(FILE *f, const struct calib *c, const char *zone_id);
/* A path that may be written: not inside a directory named topologies/.
 * 0, or -1 with one line in err. */
int calib_check_out_path(const char *path, char *err, size_t errlen);

/* calibrate.c */
int native_calibrate_main(int argc, char **argv);

/* vreport.c */
int native_validate_report_main(int argc, char **argv);

/* Spearman's rank correlation of x and y (n >= 2; NaN when either is
 * constant).  Exposed for the tests. */
double vreport_spearman(const double *x, const double *y, size_t n);

/* filelock.c */
int native_filelock_main(int argc, char **argv);

/* noise.c: detours of a spinning thread on each CPU (docs/variance.md) */
int native_noise_main(int argc, char **argv);

/* The sub-commands (their options and usage: calibrate.c, vreport.c,
 * filelock_opts.c) */
struct ll_command;
extern const struct ll_command native_calibrate_cmd, native_vreport_cmd, native_filelock_cmd,
	native_noise_cmd;

#endif
