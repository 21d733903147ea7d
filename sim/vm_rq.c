/*
 * sim/vm_rq.c - the run queue of each physical CPU: the vCPUs that wait for
 * it, in a list linked through each vCPU's `next` (head, tail, queued).
 * Preempted vCPUs join at the tail, a kicked one before the preempted
 * ones, a vCPU put back for a boosted one at the head.  Whom CFS runs from
 * a queue is sim/vm_cfs.c's; a round-robin (--slice-us) takes the head.
 */
#include "sim.h"
#include "vm.h"
#include "vm_state.h"

void vm_rq_push_tail(struct vm_pcpu *p, unsigned i)
{
	sim_vm->v[i].next = -1;
	if (p->tail >= 0)
		sim_vm->v[p->tail].next = (int)i;
	else
		p->head = (int)i;
	p->tail = (int)i;
	p->queued++;
}

/* A kicked vCPU goes before the preempted ones, after those kicked
 * before it. */
void vm_rq_push_kicked(struct vm_pcpu *p, unsigned i)
{
	struct vm_vcpu *v = sim_vm->v;
	int prev = -1, at = p->head;

	while (at >= 0 && v[at].kick_ps != NONE) {
		prev = at;
		at = v[at].next;
	}
	v[i].next = at;
	if (prev >= 0)
		v[prev].next = (int)i;
	else
		p->head = (int)i;
	if (at < 0)
		p->tail = (int)i;
	p->queued++;
}

/* Take i out of the queue (it is in it). */
void vm_rq_remove(struct vm_pcpu *p, unsigned i)
{
	struct vm_vcpu *v = sim_vm->v;
	int prev = -1, at = p->head;

	while (at >= 0 && at != (int)i) {
		prev = at;
		at = v[at].next;
	}
	if (at < 0)
		return;
	if (prev >= 0)
		v[prev].next = v[i].next;
	else
		p->head = v[i].next;
	if (p->tail == (int)i)
		p->tail = prev;
	v[i].next = -1;
	p->queued--;
}

void vm_rq_push_head(struct vm_pcpu *p, unsigned i)
{
	sim_vm->v[i].next = p->head;
	p->head = (int)i;
	if (p->tail < 0)
		p->tail = (int)i;
	p->queued++;
}

int vm_rq_pop(struct vm_pcpu *p)
{
	int i = p->head;

	if (i < 0)
		return -1;
	p->head = sim_vm->v[i].next;
	if (p->head < 0)
		p->tail = -1;
	sim_vm->v[i].next = -1;
	p->queued--;
	return i;
}
