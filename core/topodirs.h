/*
 * core/topodirs.h - where machines' files are looked up (topologies/README.md):
 * the simulator resolves --topo NAME there (sim/topo_find.c), and calibrate
 * never writes into them (native/tools/calib_platform.c); the scoreboard's
 * runner is found the same way (sim/scoreboard_cmd.c).
 */
#ifndef CORE_TOPODIRS_H
#define CORE_TOPODIRS_H

#include <limits.h>
#include <stdbool.h>

/* The directories that may hold topology files, in the order a name is
 * tried: topologies/ here, $LOCKLAB_TOPODIR, then topologies/ next to the
 * running program and up to four of its parents.  At most max; their count. */
unsigned ll_topology_dirs(char dirs[][PATH_MAX], unsigned max);

/* The directories of the machines shipped with the program: topologies/
 * next to the running program and up to four of its parents.  At most max;
 * their count. */
unsigned ll_shipped_topology_dirs(char dirs[][PATH_MAX], unsigned max);

/* A file of the project by its path from the repository's root (REL, say
 * "tools/scoreboard.py"), looked up as topologies are: here, then next to the
 * running program and in up to four of its parents.  0 and its path in out,
 * or -1 when none is readable. */
int ll_project_file(const char *rel, char out[PATH_MAX]);

/* The running program's directory: 0, or -1 when it cannot be read. */
int ll_program_dir(char out[PATH_MAX]);

/* Whether the files at a and b can both be read and hold the same bytes
 * (a machine's file against the shipped one; the benchmark's CSVs). */
bool ll_same_bytes(const char *a, const char *b);

#endif
