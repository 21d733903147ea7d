/*
 * core/table_units.c - the units the terminal table writes its figures in
 * (core/table.c): a wait's, and a rate's (Macq/s, kacq/s or acq/s).
 */
#include <math.h>
#include <stdio.h>

#include <locklab/result.h>

#include "table_units.h"

/* A wait in the unit that keeps it short. */
void table_format_ns(double ns, char *buf, size_t len)
{
	if (isnan(ns))
		snprintf(buf, len, "-");
	else if (ns < 1e4)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
}

struct rate_unit table_rate_unit(double rate)
{
	if (rate >= 1e4)
		return (struct rate_unit){ 1e6, "Macq/s" };
	if (rate >= 10)
		return (struct rate_unit){ 1e3, "kacq/s" };
	return (struct rate_unit){ 1, "acq/s" };
}

const char *output_rate_text(double rate, char *buf, size_t len)
{
	struct rate_unit u = table_rate_unit(rate);

	snprintf(buf, len, "%.4f %s", rate / u.div, u.name);
	return buf;
}
