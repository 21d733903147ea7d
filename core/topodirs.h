/*
 * core/topodirs.h - where machines' files are looked up (topologies/README.md):
 * the simulator resolves --topo NAME there (sim/topo_find.c), and calibrate
 * never writes into them (native/tools/calib_platform.c).
 */
#ifndef CORE_TOPODIRS_H
#define CORE_TOPODIRS_H

#include <limits.h>

/* The directories that may hold topology files, in the order a name is
 * tried: topologies/ here, $LOCKLAB_TOPODIR, then topologies/ next to the
 * running program and up to four of its parents.  At most max; their count. */
unsigned ll_topology_dirs(char dirs[][PATH_MAX], unsigned max);

#endif
