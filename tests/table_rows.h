/*
 * tests/table_rows.h - a made-up row, and what the table and the CSV print
 * of rows, for the tests of core/table.c and core/output.c (after cmocka.h).
 */
#ifndef TESTS_TABLE_ROWS_H
#define TESTS_TABLE_ROWS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/result.h>

static inline void fake_row(struct run_result *r, const char *lock, unsigned threads, unsigned run)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->backend, sizeof(r->backend), "sim");
	snprintf(r->topo, sizeof(r->topo), "demo");
	snprintf(r->lock, sizeof(r->lock), "%s", lock);
	r->threads = threads;
	r->cs_ns = 50;
	r->ncs_ns = 200;
	r->cs_lines = 1;
	r->locks = 1;
	r->run = run;
	r->duration_s = 0.002;
	r->acquisitions = 1000;
	r->jain = 1.0;
	r->handoff_local_frac = NAN;
	r->handoff_frac = 1.0;
	r->sockets = r->sockets_served = 1;
}

static inline char *printed(void (*print)(FILE *, const struct output_set *), const struct output_set *o)
{
	static char *buf;
	size_t len;
	FILE *f;

	free(buf);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	print(f, o);
	fclose(f);
	return buf;
}

static inline char *table_of(const struct output_set *o)
{
	return printed(output_table, o);
}

static inline char *csv_of(const struct output_set *o)
{
	return printed(output_csv, o);
}

static inline char *flat(char *t)
{
	for (char *c = t; *c; c++)
		if (*c == '\n')
			*c = ' ';
	return t;
}

/* The table of one row, its lines joined. */
static inline char *flat_table_of_row(const struct run_result *r)
{
	struct output_set o = { 0 };
	char *t;

	output_add(&o, r);
	t = flat(table_of(&o)); /* table_of's buffer outlives the set */
	output_free(&o);
	return t;
}

#endif
