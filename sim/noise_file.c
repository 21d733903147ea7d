/*
 * sim/noise_file.c - `--noise-from FILE`: the interrupts of a simulated run
 * as a real machine's CPUs met them, from the CSV of `locklab-native noise
 * --csv FILE` (native/tools/noise.c).
 *
 * The file's `all` row pools every CPU it measured: seconds of spinning,
 * and for each decade of length (under 10 us, under 100 us, under 1 ms,
 * 1 ms or more) the detours and their time.  Each decade with a detour
 * becomes one class of interrupts: a class's interrupts come at the
 * decade's measured rate per CPU and each lasts the decade's mean detour,
 * so that a simulated core loses the time the measured CPUs lost, spread
 * over short and long detours as theirs was.  Within a decade the lengths
 * are not kept: its detours all last its mean.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/noise_csv.h"
#include "../core/outfile.h"
#include "sched_noise.h"

#define LINE_MAX_LEN 4096
#define MAX_FIELDS 64
#define NOISE_MAX_SECONDS 1e7   /* CPU-seconds a file may say it measured */
#define NOISE_MAX_RATE_HZ 1e6   /* as --irq-rate-hz's bound */

static int column(char **hdr, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(hdr[i], name))
			return (int)i;
	return -1;
}

/* A decimal number >= 0 as the noise command writes them: digits, a
 * point, an exponent; no sign, space, hex, inf or nan. */
static int number(const char *s, double *v)
{
	char *end;

	if (!*s || strspn(s, "0123456789.eE+-") != strlen(s) || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	return !*end && !errno && isfinite(*v) ? 0 : -1;
}

/* the all row's field named name (whole_row has checked every field is a
 * number >= 0): 0, or -1 and err when the column is missing */
static int field(char **hdr, unsigned nh, char **row, const char *name, double *v, char *err,
		 size_t errlen)
{
	int i = column(hdr, nh, name);

	if (i < 1) { /* the first column names the cpu */
		snprintf(err, errlen, "no column %s (a CSV of `locklab-native noise --csv`?)", name);
		return -1;
	}
	return number(row[i], v);
}

/* The decades of the all row, each a class of detours, checked as the
 * noise command writes them: whole counts, a length of 1 ns to 1 s within
 * the decade, a rate a machine can have; the row's totals their sums. */
static int read_classes(char **hdr, unsigned nh, char **row, struct noise_measured *m, char *err,
			size_t errlen)
{
	double secs, lost_share = 0, total[2], sum[2] = { 0, 0 };

	if (field(hdr, nh, row, "seconds", &secs, err, errlen))
		return -1;
	if (secs < 1e-3 || secs > NOISE_MAX_SECONDS) {
		snprintf(err, errlen, "the all row's seconds, %g, is not in 0.001..%g (CPU-seconds "
			 "measured)", secs, NOISE_MAX_SECONDS);
		return -1;
	}
	m->n = 0;
	for (unsigned k = 0; k < NOISE_CLASSES; k++) {
		char name[2][48];
		double count, ns, lo = k ? (double)noise_decade_top_ns[k - 1] : 0;
		double hi = k < NOISE_CLASSES - 1 ? (double)noise_decade_top_ns[k] : INFINITY;

		snprintf(name[0], sizeof(name[0]), "detours_%s", noise_decade_col[k]);
		snprintf(name[1], sizeof(name[1]), "lost_ns_%s", noise_decade_col[k]);
		if (field(hdr, nh, row, name[0], &count, err, errlen) ||
		    field(hdr, nh, row, name[1], &ns, err, errlen))
			return -1;
		if (count != floor(count) || count > 1e15) {
			snprintf(err, errlen, "the all row's %s, %g, is not a count", name[0], count);
			return -1;
		}
		if (!count && ns) {
			snprintf(err, errlen, "the all row's %s, %g ns, with no detour (%s 0)", name[1],
				 ns, name[0]);
			return -1;
		}
		if (!count)
			continue;
		if (ns < count || ns / count > 1e9) {
			snprintf(err, errlen, "the all row's %s over its %s is %g ns, not a detour's "
				 "length (1 ns to 1 s)", name[1], name[0], ns / count);
			return -1;
		}
		if (!(ns / count >= lo && ns / count < hi)) {
			snprintf(err, errlen, "the all row's %s over its %s is %g ns, outside its decade "
				 "(%g to %g ns)", name[1], name[0], ns / count, lo, hi);
			return -1;
		}
		if (count / secs > NOISE_MAX_RATE_HZ) {
			snprintf(err, errlen, "the all row's %s, %g a second, is over %g a second",
				 name[0], count / secs, NOISE_MAX_RATE_HZ);
			return -1;
		}
		m->rate_hz[m->n] = count / secs;
		m->len_ps[m->n] = (uint64_t)(ns / count * 1000.0 + 0.5);
		lost_share += ns / (secs * 1e9);
		sum[0] += count;
		sum[1] += ns;
		m->n++;
	}
	m->lost_share = lost_share;
	if (lost_share >= 1) {
		snprintf(err, errlen, "its detours take %.0f%% of the time: no thread would progress",
			 100 * lost_share);
		return -1;
	}
	if (field(hdr, nh, row, "detours", &total[0], err, errlen) ||
	    field(hdr, nh, row, "lost_ns", &total[1], err, errlen))
		return -1;
	for (unsigned i = 0; i < 2; i++)
		if (fabs(total[i] - sum[i]) > 0.5) {
			snprintf(err, errlen, "the all row's %s, %.0f, is not the sum of its decades' "
				 "(%.0f)", i ? "lost_ns" : "detours", total[i], sum[i]);
			return -1;
		}
	return 0;
}

/* The header as the noise command writes it: its columns, each once, and no
 * other (a misspelt one would go unread). */
static int header_known(char **hdr, unsigned nh, char *err, size_t errlen)
{
	const unsigned nfirst = sizeof(noise_head_col) / sizeof(noise_head_col[0]);

	for (unsigned i = 0; i < nh; i++) {
		bool known = false;
		char name[64];

		for (unsigned k = 0; k < nfirst + 2 * NOISE_DECADES && !known; k++) {
			if (k < nfirst)
				snprintf(name, sizeof(name), "%s", noise_head_col[k]);
			else
				snprintf(name, sizeof(name), "%s_%s", (k - nfirst) % 2 ? "lost_ns" : "detours",
					 noise_decade_col[(k - nfirst) / 2]);
			known = !strcmp(hdr[i], name);
		}
		if (!known) {
			snprintf(err, errlen, "unknown column '%.60s' (a CSV of `locklab-native noise "
				 "--csv`?)", hdr[i]);
			return -1;
		}
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(hdr[j], hdr[i])) {
				snprintf(err, errlen, "column %s twice", hdr[i]);
				return -1;
			}
	}
	return 0;
}

/* The all row as the noise command writes it: a field under each column,
 * each after the first (the cpu's name) a number >= 0, read or not. */
static int whole_row(char **hdr, unsigned nh, char **row, unsigned nr, char *err, size_t errlen)
{
	double v;

	if (nr != nh) {
		snprintf(err, errlen, "the all row has %u fields under a header of %u", nr, nh);
		return -1;
	}
	for (unsigned i = 1; i < nr; i++)
		if (number(row[i], &v)) {
			snprintf(err, errlen, "the all row's %s, '%s', is not a number >= 0", hdr[i],
				 row[i]);
			return -1;
		}
	return 0;
}

/* The header and the all row of f into head and all (0), or -1 and e. */
static int read_lines(FILE *f, char *head, char *all, char *e, size_t elen)
{
	char cur[LINE_MAX_LEN];
	unsigned lineno = 0;
	bool found = false;

	while (fgets(cur, sizeof(cur), f)) {
		lineno++;
		if (!strchr(cur, '\n') && !feof(f)) {
			snprintf(e, elen, "line %u is longer than %d bytes", lineno, LINE_MAX_LEN - 1);
			return -1;
		}
		if (lineno == 1) {
			memcpy(head, cur, sizeof(cur));
			continue;
		}
		if (strncmp(cur, "all,", 4))
			continue;
		if (found) {
			snprintf(e, elen, "line %u: a second row named all", lineno);
			return -1;
		}
		memcpy(all, cur, sizeof(cur));
		found = true;
	}
	if (!found)
		snprintf(e, elen, "%s", lineno ? "no row named all (the CPUs pooled)" : "empty");
	return found ? 0 : -1;
}

int noise_file_read(const char *path, struct noise_measured *m, char *err, size_t errlen)
{
	char why[300], head[LINE_MAX_LEN], all[LINE_MAX_LEN], *hdr[MAX_FIELDS], *row[MAX_FIELDS];
	FILE *f = infile_open(path, "a noise CSV", why, sizeof(why));
	int rc;

	memset(m, 0, sizeof(*m));
	if (!f) {
		snprintf(err, errlen, "--noise-from %s: %s", path, why);
		return -1;
	}
	rc = read_lines(f, head, all, why, sizeof(why));
	fclose(f);
	if (!rc) {
		unsigned nh = infile_split(head, hdr, MAX_FIELDS), nr = infile_split(all, row, MAX_FIELDS);

		rc = header_known(hdr, nh, why, sizeof(why)) ||
		     whole_row(hdr, nh, row, nr, why, sizeof(why)) ||
		     read_classes(hdr, nh, row, m, why, sizeof(why));
	}
	if (rc) {
		snprintf(err, errlen, "--noise-from %s: %s", path, why);
		return -1;
	}
	snprintf(m->path, sizeof(m->path), "%s", path);
	return 0;
}
