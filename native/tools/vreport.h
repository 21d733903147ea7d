/*
 * native/tools/vreport.h - what `locklab-native validate-report` reads
 * (vreport_csv.c) and reports (vreport.c): the runs of each
 * (lock, threads), natively and simulated.
 */
#ifndef LOCKLAB_NATIVE_TOOLS_VREPORT_H
#define LOCKLAB_NATIVE_TOOLS_VREPORT_H

#include <stdbool.h>
#include <stddef.h>

#include <locklab/stats.h>

#define VR_MAX_RUNS 256
#define VR_LINE 8192

struct side {
	unsigned n;
	double tput[VR_MAX_RUNS];
	double jain[VR_MAX_RUNS];
	char topo[128];
	double cs_ns, ncs_ns; /* NaN when the CSV does not say */
};

struct entry {
	char lock[48];
	unsigned threads;
	struct side nat, sim;
	/* derived */
	struct ll_summary ns, ss;
	double njain, sjain, rel;
};

struct table {
	struct entry *e;
	size_t n, cap;
};

/* Adds the rows of one result CSV to t, as the native or the simulated
 * side: 0, or -1 with one line in err. */
int vr_read_csv(const char *path, struct table *t, bool sim, char *err, size_t errlen);

#endif
