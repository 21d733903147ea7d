/*
 * native/pin.c - where each thread of a native run goes.
 *
 * Every policy works from the per-socket PU order of topo.c (one PU per core
 * first, then the hyperthread siblings), so that threads share a core only
 * when every core of their socket already has one:
 *
 *   compact    socket 0's cores, then its siblings, then socket 1, ...;
 *              past the last PU of the machine it starts again at the first
 *   scatter    thread i on socket i % S, taking that socket's PUs in order
 *   socket:N   socket N's PUs in order, wrapping when threads outnumber them
 *   list:a,b   thread i on OS cpu list[i]
 *   node:N     every thread bound to socket N's PUs as a set (as a taskset
 *              of the socket's cpus): the OS places and moves it among
 *              them; its node is that of the cpu it first runs on
 *   none       not bound; the thread's node is that of the cpu it first
 *              runs on
 *
 * More threads than PUs is allowed everywhere: oversubscription is one of the
 * things a lock laboratory measures.
 */
#include <errno.h>

#include "native.h"

const char *native_pin_policy_name(enum pin_policy p)
{
	switch (p) {
	case PIN_COMPACT:
		return "compact";
	case PIN_SCATTER:
		return "scatter";
	case PIN_SOCKET:
		return "socket";
	case PIN_LIST:
		return "list";
	case PIN_NODE:
		return "node";
	case PIN_NONE:
		return "none";
	}
	return "?";
}

static int check_list(const struct wl_config *cfg, unsigned max_threads,
		      char *err, size_t errlen)
{
	if (wl_pin_list_check(cfg, max_threads, err, errlen))
		return -1;
	for (unsigned i = 0; i < cfg->pin_list_len; i++) {
		if (!native_cpu_exists(cfg->pin_list[i])) {
			snprintf(err, errlen,
				 "--pin list: cpu %u does not exist on this machine",
				 cfg->pin_list[i]);
			return -1;
		}
	}
	return 0;
}

int native_pin_check(const struct wl_config *cfg, unsigned max_threads,
		     char *err, size_t errlen)
{
	const struct native_machine *m = native_machine();

	if (!m) {
		snprintf(err, errlen, "cannot read the machine's topology: %s",
			 native_machine_error());
		return -1;
	}
	switch (cfg->pin) {
	case PIN_SOCKET:
	case PIN_NODE:
		if (cfg->pin_socket >= m->nsockets) {
			snprintf(err, errlen,
				 "--pin %s:%u: this machine has %u socket%s (0..%u)",
				 cfg->pin == PIN_NODE ? "node" : "socket",
				 cfg->pin_socket, m->nsockets,
				 m->nsockets == 1 ? "" : "s", m->nsockets - 1);
			return -1;
		}
		return 0;
	case PIN_LIST:
		return check_list(cfg, max_threads, err, errlen);
	case PIN_COMPACT:
	case PIN_SCATTER:
	case PIN_NONE:
		return 0;
	}
	snprintf(err, errlen, "unknown placement policy %d", (int)cfg->pin);
	return -1;
}

static unsigned socket_pu(const struct native_socket *s, unsigned k)
{
	return s->pus[k % s->npus];
}

unsigned native_pin_compact(const struct native_machine *m, unsigned i)
{
	unsigned k = i % m->npus;

	for (unsigned s = 0; s < m->nsockets; s++) {
		if (k < m->sockets[s].npus)
			return m->sockets[s].pus[k];
		k -= m->sockets[s].npus;
	}
	return m->sockets[0].pus[0];
}

static int plan_one(const struct wl_config *cfg, const struct native_machine *m,
		    unsigned i)
{
	switch (cfg->pin) {
	case PIN_COMPACT:
		return (int)native_pin_compact(m, i);
	case PIN_SCATTER:
		return (int)socket_pu(&m->sockets[i % m->nsockets], i / m->nsockets);
	case PIN_SOCKET:
		return (int)socket_pu(&m->sockets[cfg->pin_socket], i);
	case PIN_LIST:
		return (int)cfg->pin_list[i];
	case PIN_NODE:
		return NATIVE_ON_SOCKET(cfg->pin_socket);
	case PIN_NONE:
		break;
	}
	return NATIVE_UNPINNED;
}

/* Call after native_pin_check() accepted cfg for at least n threads. */
void native_pin_plan(const struct wl_config *cfg, unsigned n, int *cpus)
{
	const struct native_machine *m = native_machine();

	for (unsigned i = 0; i < n; i++)
		cpus[i] = m ? plan_one(cfg, m, i) : NATIVE_UNPINNED;
}

int native_pin_self(unsigned cpu)
{
	const struct native_machine *m = native_machine();
	hwloc_obj_t pu;

	if (!m)
		return ENOSYS;
	pu = hwloc_get_pu_obj_by_os_index(m->topo, cpu);
	if (!pu)
		return EINVAL;
	if (hwloc_set_cpubind(m->topo, pu->cpuset, HWLOC_CPUBIND_THREAD))
		return errno ? errno : EINVAL;
	return 0;
}

int native_pin_apply(int plan)
{
	if (plan >= 0)
		return native_pin_self((unsigned)plan);
	if (plan != NATIVE_UNPINNED)
		return native_pin_self_socket(NATIVE_SOCKET_OF(plan));
	return 0;
}

const char *native_pin_text(int plan, char *buf, size_t len)
{
	if (plan >= 0)
		snprintf(buf, len, "cpu %d", plan);
	else if (plan != NATIVE_UNPINNED)
		snprintf(buf, len, "socket %u's cpus", NATIVE_SOCKET_OF(plan));
	else
		snprintf(buf, len, "any cpu");
	return buf;
}

int native_pin_self_socket(unsigned s)
{
	const struct native_machine *m = native_machine();
	hwloc_bitmap_t set;
	int rc = 0;

	if (!m)
		return ENOSYS;
	if (s >= m->nsockets)
		return EINVAL;
	set = hwloc_bitmap_alloc();
	if (!set)
		return ENOMEM;
	for (unsigned k = 0; k < m->sockets[s].npus; k++)
		hwloc_bitmap_set(set, m->sockets[s].pus[k]);
	if (hwloc_set_cpubind(m->topo, set, HWLOC_CPUBIND_THREAD))
		rc = errno ? errno : EINVAL;
	hwloc_bitmap_free(set);
	return rc;
}
