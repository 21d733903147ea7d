/*
 * core/table_units.h - the units of the terminal table's figures
 * (core/table_units.c), for core/table.c only.
 */
#ifndef CORE_TABLE_UNITS_H
#define CORE_TABLE_UNITS_H

#include <stddef.h>

/* A wait in the unit that keeps it short ("-" for NaN). */
void table_format_ns(double ns, char *buf, size_t len);

/* A rate's unit: Macq/s unless the rate would print as 0.00xx (slow runs:
 * --vm, long sections, an rwlock's rare writes), then kacq/s or acq/s, so
 * that four decimals keep its digits. */
struct rate_unit {
	double div;
	const char *name;
};

struct rate_unit table_rate_unit(double rate);

#endif
