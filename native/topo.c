/*
 * native/topo.c - the machine as hwloc sees it.
 *
 * Loaded once per process, on first use, and kept: the counts the
 * environment reports, the NUMA node of every PU, and per socket the order in
 * which placement takes its PUs (the first PU of every core, then the second
 * PU of every core, and so on: threads get cores of their own before any
 * shares a core with a hyperthread sibling).
 *
 * A "node" in locklab is a NUMA node, numbered by hwloc's logical index.  On
 * most machines that is a socket; where a socket holds several NUMA nodes
 * (sub-NUMA clustering), handoffs and memory follow the NUMA node.  A machine
 * without packages or cores in its topology counts as one socket of
 * single-PU cores.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "native.h"

static struct native_machine machine;
static bool machine_ok;
static char machine_err[160];
static pthread_once_t machine_once = PTHREAD_ONCE_INIT;

static unsigned count_type(hwloc_topology_t t, hwloc_obj_type_t type)
{
	int n = hwloc_get_nbobjs_by_type(t, type);

	return n > 0 ? (unsigned)n : 0;
}

/* PU number `k` (0 first) of `core`, or NULL when it has fewer. */
static hwloc_obj_t nth_pu_of(hwloc_topology_t t, hwloc_obj_t core, unsigned k)
{
	hwloc_obj_t pu = NULL;

	do {
		pu = hwloc_get_next_obj_inside_cpuset_by_type(t, core->cpuset,
							       HWLOC_OBJ_PU, pu);
	} while (pu && k--);
	return pu;
}

/* The PUs of one socket (cpuset `set`), one per core first. */
static int order_socket(hwloc_topology_t t, hwloc_const_cpuset_t set,
			struct native_socket *s)
{
	hwloc_obj_type_t unit = count_type(t, HWLOC_OBJ_CORE) ? HWLOC_OBJ_CORE
							      : HWLOC_OBJ_PU;
	int npus = hwloc_get_nbobjs_inside_cpuset_by_type(t, set, HWLOC_OBJ_PU);
	bool more = true;

	s->npus = 0;
	s->pus = calloc(npus > 0 ? (size_t)npus : 1, sizeof(*s->pus));
	if (!s->pus)
		return -1;
	for (unsigned k = 0; more; k++) {
		hwloc_obj_t c = NULL;

		more = false;
		while ((c = hwloc_get_next_obj_inside_cpuset_by_type(t, set, unit, c))) {
			hwloc_obj_t pu = nth_pu_of(t, c, k);

			if (pu && s->npus < (unsigned)npus) {
				s->pus[s->npus++] = pu->os_index;
				more = true;
			}
		}
	}
	return 0;
}

static int order_sockets(struct native_machine *m)
{
	hwloc_topology_t t = m->topo;
	unsigned npkg = count_type(t, HWLOC_OBJ_PACKAGE);

	m->nsockets = npkg ? npkg : 1;
	m->sockets = calloc(m->nsockets, sizeof(*m->sockets));
	if (!m->sockets)
		return -1;
	for (unsigned i = 0; i < m->nsockets; i++) {
		hwloc_obj_t o = npkg ? hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, i)
				     : hwloc_get_root_obj(t);

		if (order_socket(t, o->cpuset, &m->sockets[i]))
			return -1;
	}
	return 0;
}

/* Memory binding is worth it with several nodes, and possible when hwloc
 * can allocate bound memory (or bind an area) with the BIND policy. */
static bool membind_usable(const struct native_machine *m)
{
	const struct hwloc_topology_support *sup = hwloc_topology_get_support(m->topo);

	if (m->nnodes < 2 || !sup || !sup->membind)
		return false;
	if (!sup->membind->bind_membind)
		return false;
	return sup->membind->alloc_membind || sup->membind->set_area_membind;
}

static void machine_load(void)
{
	struct native_machine *m = &machine;

	if (hwloc_topology_init(&m->topo)) {
		snprintf(machine_err, sizeof(machine_err), "hwloc_topology_init: %s",
			 strerror(errno));
		return;
	}
	if (hwloc_topology_load(m->topo)) {
		snprintf(machine_err, sizeof(machine_err), "hwloc_topology_load: %s",
			 strerror(errno));
		hwloc_topology_destroy(m->topo);
		return;
	}
	m->npus = count_type(m->topo, HWLOC_OBJ_PU);
	m->ncores = count_type(m->topo, HWLOC_OBJ_CORE);
	if (!m->ncores)
		m->ncores = m->npus;
	m->nnodes = count_type(m->topo, HWLOC_OBJ_NUMANODE);
	if (!m->nnodes)
		m->nnodes = 1;
	if (!m->npus || order_sockets(m)) {
		snprintf(machine_err, sizeof(machine_err),
			 "hwloc found no usable processing units");
		machine_ok = true;
		native_machine_free();
		return;
	}
	m->membind = membind_usable(m);
	machine_ok = true;
}

const struct native_machine *native_machine(void)
{
	pthread_once(&machine_once, machine_load);
	return machine_ok ? &machine : NULL;
}

const char *native_machine_error(void)
{
	native_machine();
	return machine_ok ? "" : machine_err;
}

unsigned native_node_of_cpu(unsigned cpu)
{
	const struct native_machine *m = native_machine();

	if (!m)
		return 0;
	for (unsigned i = 0; i < m->nnodes; i++) {
		hwloc_obj_t n = hwloc_get_obj_by_type(m->topo, HWLOC_OBJ_NUMANODE, i);

		if (n && n->cpuset && hwloc_bitmap_isset(n->cpuset, cpu))
			return i;
	}
	return 0;
}

int native_core_of_cpu(unsigned cpu)
{
	const struct native_machine *m = native_machine();
	hwloc_obj_t pu, core;

	if (!m || !(pu = hwloc_get_pu_obj_by_os_index(m->topo, cpu)))
		return -1;
	core = hwloc_get_ancestor_obj_by_type(m->topo, HWLOC_OBJ_CORE, pu);
	return core ? (int)core->logical_index : -1;
}

bool native_cpu_exists(unsigned cpu)
{
	const struct native_machine *m = native_machine();

	return m && hwloc_get_pu_obj_by_os_index(m->topo, cpu) != NULL;
}

/* At exit only: memory from ll_alloc_on must have been freed. */
void native_machine_free(void)
{
	struct native_machine *m = &machine;

	if (!machine_ok)
		return;
	for (unsigned i = 0; m->sockets && i < m->nsockets; i++)
		free(m->sockets[i].pus);
	free(m->sockets);
	hwloc_topology_destroy(m->topo);
	memset(m, 0, sizeof(*m));
	machine_ok = false;
}
