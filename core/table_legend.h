/*
 * core/table_legend.h - the legend under the terminal table (table_legend.c),
 * for core/table.c only.
 */
#ifndef CORE_TABLE_LEGEND_H
#define CORE_TABLE_LEGEND_H

#include <stdbool.h>
#include <stdio.h>

/* What a table's rows hold beyond plain mutexes (its legend's extra parts). */
struct legend_kinds {
	bool rwlock, refcount, vm, vm_sched;
	bool fixed_ncs_starved; /* simulated threads starved under a fixed --ncs */
	bool pv_alone;          /* a paravirtual lock run without --vm */
	bool ops;               /* --ops: each thread's count fixed */
	bool counts;            /* a lock's own counts (ll_count) */
};

/* The legend: the sentences that apply to the table's rows, wrapped, and
 * the oversubscribed mark's line where a row has it. */
void table_legend(FILE *f, bool oversubscribed, bool many_runs, bool idle, struct legend_kinds k);

#endif
