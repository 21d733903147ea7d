/*
 * sim/topology.h - the machine the simulator models, as read from a SimGrid
 * platform file (sim/topology.c and sim/topo_*.c) or built by hand in tests.
 *
 * Cores are SimGrid hosts; a socket is a zone (a <cluster>); socket links are
 * SimGrid links between socket routers, with latency and bandwidth.  The costs
 * of coherence transactions are properties of the root zone (see
 * topologies/README.md): for each operation and line state, one latency per
 * distance class.  Class 0 is "same socket"; classes 1.. are the distinct
 * latencies of the routes between sockets, in increasing order (so a 4-socket
 * ring has classes 0, 1 hop, 2 hops).
 */
#ifndef SIM_TOPOLOGY_H
#define SIM_TOPOLOGY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/park_costs.h" /* SIM_SPREAD_MAX, SIM_IDLE_MAX_US */

#define TOPO_MAX_CLASSES 8
#define TOPO_MAX_CORES 8192
#define TOPO_MAX_SOCKETS 256
#define TOPO_MAX_IDLE 8
#define TOPO_MAX_SMT 8 /* hardware threads a core */

enum topo_op { TOPO_LOAD = 0, TOPO_STORE = 1, TOPO_ATOMIC = 2, TOPO_NOPS = 3 };
/* State of the line when the request arrives, as ccbench names it;
 * TOPO_I means "not cached anywhere: from memory at the home node". */
enum topo_state { TOPO_M = 0, TOPO_E = 1, TOPO_S = 2, TOPO_I = 3, TOPO_NSTATES = 4 };
enum topo_protocol { PROTO_MESI = 0, PROTO_MOESI = 1, PROTO_MESIF = 2 };
enum topo_memory_model { TOPO_MM_SC = 0, TOPO_MM_TSO = 1, TOPO_MM_PSO = 2 };
/* Who is served first among the requests waiting for a line (see
 * sim/coherence.h, "Arbitration"): arrival order, or the holder's socket
 * first. */
enum topo_arbitration { ARB_FIFO = 0, ARB_SOCKET_FIRST = 1 };
/* What the home knows of a line's copies (topologies/README.md, "Home
 * agents and probes"): every copy (no broadcast), an Opteron-style probe
 * filter (a store to a shared line probes every socket), or nothing (every
 * request through the home probes every socket). */
enum topo_directory { DIR_FULL = 0, DIR_PROBE_FILTER = 1, DIR_BROADCAST = 2 };

/* An idle state of a hardware thread, as a cpuidle driver lists it: the
 * time to leave it, and the least idle time for which entering it pays. */
struct topo_idle_state {
	char name[16];
	uint64_t exit_ps, residency_ps;
};

struct topo_link {
	char name[64];
	unsigned a, b;      /* sockets it joins */
	uint64_t lat_ps;    /* one-way latency */
	double bw_bytes_per_s;
};

struct topo {
	char name[128]; /* file name without directory and .xml */
	char path[PATH_MAX]; /* the file read, resolved (an input no output may replace) */
	char description[256]; /* the file's description property ("" without one) */
	/* the file's `assumed` property: the properties whose values (some or
	 * all of them) have no source, as the file lists them, one space apart
	 * ("" without one; topologies/README.md) */
	char assumed[512];
	bool assumed_none; /* `assumed` is "none": the file says every figure has a source */
	enum topo_protocol protocol;
	enum topo_memory_model memory_model; /* sim/storebuf.c */
	bool memory_model_set, arbitration_set; /* the file gives them (else the defaults) */
	unsigned fill_buffers; /* store misses in flight per core (sim/storebuf.c) */
	double freq_ghz;

	unsigned ncores, nsockets;
	unsigned core_socket[TOPO_MAX_CORES]; /* core -> socket */
	char (*core_host)[64];                /* [ncores] SimGrid host names, may be NULL in tests */

	/* Distance classes between sockets: [a * nsockets + b]; 0 iff a == b. */
	unsigned nclasses;
	unsigned char *socket_class;

	/* Costs in picoseconds. */
	uint64_t lat_ps[TOPO_NOPS][TOPO_NSTATES][TOPO_MAX_CLASSES];
	uint64_t hit_ps[TOPO_NOPS];      /* the line is in the requester's cache */
	uint64_t pause_ps;               /* one cpu_relax */
	uint64_t inval_ps_per_sharer;    /* directory fan-out, per extra sharer */
	unsigned data_msg_bytes;         /* a line plus header (default 72) */
	unsigned ctrl_msg_bytes;         /* request/invalidate/ack (default 8) */

	/* Arbitration of a line between sockets (properties `arbitration`
	 * and `arbitration.max_local_run`): under ARB_SOCKET_FIRST, at most
	 * max_local_run grants (0: no bound), mostly to the holder's socket,
	 * go ahead of a request from another socket that waits.  Zero
	 * (ARB_FIFO) in a topology built by hand. */
	enum topo_arbitration arbitration;
	unsigned max_local_run;

	/* Home agents and probes (properties `home.occupancy` and
	 * `directory`): the time a request occupies its home node's agent (0:
	 * home agents take no time), and what the home knows of the copies.
	 * Zero (off, DIR_FULL) in a topology built by hand. */
	uint64_t home_occ_ps;
	enum topo_directory directory;

	/* The snoop's way (property `snoop.travel`, --snoop-travel): the share,
	 * in per cent, of a miss's latency for which the line's M or E owner
	 * still holds it (sim/coh_protocol.c).  Zero (the line moves at the
	 * miss's start) when the file gives none, and in a topology built by
	 * hand. */
	unsigned snoop_pct;

	/* The spread of a miss's latency (property `latency.spread`,
	 * --lat-spread): each miss costs its table latency times a draw from
	 * [1 - s%, 1 + s%], seeded by the run (sim/coh_protocol.c).  Zero (every
	 * miss its table latency) when the file gives none. */
	unsigned spread_pct;

	/* The waker's cost of a kick (property `park.kick`): what ll_unpark
	 * charges the thread that wakes a parked one outside --vm, a futex_wake
	 * as calibrate measures it (sim/blocking.c, sim_kick_ps).  0 and
	 * kick_given false when the file gives none, and in a topology built by
	 * hand: the run pays the assumed SIM_KICK_PS (core/park_costs.h). */
	uint64_t kick_ps;
	bool kick_given;

	/* SMT (properties `smt` and `smt.issue_share`): the cores above are
	 * hardware threads, smt of them to a physical core.  Within a socket,
	 * with p physical cores, hardware thread j is thread j / p of
	 * physical core j % p (one thread per core first, then the
	 * siblings); core_phys[c] names c's physical core by its first
	 * thread.  NULL (smt 1, and a topology built by hand): every core its
	 * own.  issue_share: the part of a core each sibling gets while the
	 * siblings run local work at once (1: no sharing). */
	unsigned smt;
	double smt_issue_share;
	unsigned *core_phys;

	/* Idle states (property `idle.states`, sim/idle.c): what a hardware
	 * thread enters while its thread sleeps (ll_park), shallowest first.
	 * nidle 0 (no such property, --idle-states off, a topology built by
	 * hand): a sleeping thread's hardware thread polls, and a wake-up pays
	 * no exit latency. */
	unsigned nidle;
	struct topo_idle_state idle[TOPO_MAX_IDLE];

	/* Socket links and the route between each pair of sockets. */
	unsigned nlinks;
	struct topo_link *links;
	/* route of (a,b): route_links[route_off[a*ns+b] .. + route_len[a*ns+b]] */
	unsigned *route_off, *route_len, *route_links;

	/* The cost figures as the file states them, in its unit (ns, or
	 * cycles at freq_ghz when unit_cycles), and which rows the file gave
	 * (false: a documented default filled the row; ccbench compares only
	 * rows the file gives).  Tests building a topology by hand may leave
	 * these zero. */
	bool unit_cycles;
	double lat_unit[TOPO_NOPS][TOPO_NSTATES][TOPO_MAX_CLASSES];
	bool lat_from_file[TOPO_NOPS][TOPO_NSTATES];
	/* Socket names (the zone ids), [nsockets]; may be NULL in tests. */
	char (*socket_name)[64];
	/* Route latency (sum of its socket links' latencies) of each class,
	 * [0] = 0. */
	uint64_t class_lat_ps[TOPO_MAX_CLASSES];

	/* Virtual machines are not a property of the machine: --vm and
	 * --overcommit place a guest on its cores (sim/vm.h). */
};

/* sim/topology.c: resolve NAME (topologies/NAME.xml) or a path, read and
 * check the file (sim/topo_xml.c) and build the machine; then give SimGrid
 * the cores as hosts, so that actors can run on them.  On error returns
 * non-zero with one line in err naming the file and the problem, before
 * anything is built or SimGrid is called.  Must be called after
 * simgrid_init(), once per process (SimGrid holds one platform).  Cores are
 * numbered socket by socket: sockets in the order the file lists them,
 * cores within a socket in natural order of their host names. */
int topo_load(struct topo *t, const char *name_or_path, char *err, size_t errlen);
/* Resolve a name to a path without loading (for messages and checks).  A
 * value holding a '/' or ending in ".xml" is a path; a plain NAME is looked
 * up as topologies/NAME.xml in the working directory, then in
 * $LOCKLAB_TOPODIR, then next to the running program (its directory and up
 * to four parents).  Returns 0 when the file exists; otherwise -1, with
 * path set to the first place tried. */
int topo_resolve(const char *name_or_path, char *path, size_t pathlen);
/* Whether the file at path is the one shipped with the program (under the
 * topologies/ directory beside it or above it, ll_shipped_topology_dirs) or
 * an unmodified copy of it; a file that differs from the shipped one of its
 * name (a changed copy in ./topologies or $LOCKLAB_TOPODIR); or one whose
 * name no shipped machine has. */
enum topo_shipped { TOPO_SHIPPED, TOPO_CHANGED, TOPO_NOT_SHIPPED };
enum topo_shipped topo_shipped_state(const char *path);
/* Whether --topo's value is a path (a '/', or ending in .xml), not a name
 * looked up in the topologies directories. */
bool topo_given_as_path(const char *name_or_path);
/* The physical core of hardware thread c, named by its first thread (c
 * itself on a machine without SMT). */
static inline unsigned topo_phys(const struct topo *t, unsigned c)
{
	return t->core_phys ? t->core_phys[c] : c;
}
/* The other hardware threads of c's physical core into sib (at most
 * smt - 1 of them); their count, 0 on a machine without SMT
 * (sim/topo_smt.c). */
unsigned topo_siblings(const struct topo *t, unsigned c, unsigned *sib);
/* n of t's hardware threads as words: "32 cores", or with SMT "64
 * hardware threads (32 cores x 2)"; returns buf. */
const char *topo_cpus_text(const struct topo *t, unsigned n, char *buf, size_t len);
/* The longest one access can take on the idle machine, at most (sim/topo_costs.c). */
uint64_t topo_slowest_ps(const struct topo *t);
void topo_free(struct topo *t);

/* Does the file leave unsaid which of its figures have no source (no
 * `assumed` property; `none` says there are none)? */
static inline bool topo_assumed_unstated(const struct topo *t)
{
	return !t->assumed[0] && !t->assumed_none;
}
/* --arbitration: replace the topology's rule; max_local_run < 0 for the
 * default run (the cores of the largest socket), 0 for unbounded. */
void topo_set_arbitration(struct topo *t, enum topo_arbitration a, long max_local_run);
/* --smt off: every hardware thread its own core (core_phys dropped). */
void topo_smt_off(struct topo *t);

static inline unsigned topo_class(const struct topo *t, unsigned core_a, unsigned core_b)
{
	return t->socket_class[t->core_socket[core_a] * t->nsockets + t->core_socket[core_b]];
}

#endif
