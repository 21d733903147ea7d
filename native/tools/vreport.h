/*
 * native/tools/vreport.h - what `locklab-native validate-report` reads
 * (vreport_csv.c) and reports (vreport.c): the runs of each
 * (lock, threads), natively and simulated.
 */
#ifndef LOCKLAB_NATIVE_TOOLS_VREPORT_H
#define LOCKLAB_NATIVE_TOOLS_VREPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <locklab/stats.h>

#define VR_MAX_RUNS 256
#define VR_LINE 8192

struct side {
	unsigned n;
	double tput[VR_MAX_RUNS];
	double jain[VR_MAX_RUNS];
	double handoff[VR_MAX_RUNS]; /* handoff_frac; NaN where the CSV has none */
	uint64_t seed[VR_MAX_RUNS], run[VR_MAX_RUNS]; /* which run each is */
	char topo[128];
	double cs_ns, ncs_ns; /* NaN when the CSV does not say */
	/* the workload's other columns, "cs_lines=1 locks=1 ..." (those the CSV
	 * has): the two sides of an entry must agree on them */
	char workload[160];
	unsigned failed; /* runs left out: their failure column */
};

struct entry {
	char lock[48];
	unsigned threads;
	struct side nat, sim;
	/* derived */
	struct ll_summary ns, ss;
	double njain, sjain, rel;
	double nagain, sagain; /* 1 - handoff_frac, means over the runs; NaN without one */
};

struct table {
	struct entry *e;
	size_t n, cap;
};

/* A note on what the comparison leaves out (failed runs, pairs on one side
 * only): one line on stderr, and kept for the report's "left out" part. */
__attribute__((format(printf, 1, 2)))
void vr_note(const char *fmt, ...);

/* Adds the rows of one result CSV to t, as the native or the simulated
 * side: 0, or -1 with one line in err. */
int vr_read_csv(const char *path, struct table *t, bool sim, char *err, size_t errlen);

#endif
