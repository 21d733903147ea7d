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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/outfile.h"
#include "sched_noise.h"

static const char *const decade_col[NOISE_CLASSES] = { "under_10us", "under_100us",
							"under_1ms", "1ms_or_more" };

#define LINE_MAX_LEN 4096
#define MAX_FIELDS 64

static unsigned split(char *s, char **f)
{
	unsigned n = 0;

	s[strcspn(s, "\r\n")] = 0;
	for (char *p = s; n < MAX_FIELDS; p++) {
		f[n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p = 0;
	}
	return n;
}

static int column(char **hdr, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(hdr[i], name))
			return (int)i;
	return -1;
}

static int number(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return *s && !*end && !errno && *v >= 0 ? 0 : -1;
}

/* the all row's field named name, as a number >= 0: 0, or -1 and err */
static int field(char **hdr, unsigned nh, char **row, unsigned nr, const char *name, double *v,
		 char *err, size_t errlen)
{
	int i = column(hdr, nh, name);

	if (i < 0) {
		snprintf(err, errlen, "no column %s (a CSV of `locklab-native noise --csv`?)", name);
		return -1;
	}
	if ((unsigned)i >= nr || number(row[i], v)) {
		snprintf(err, errlen, "the all row's %s, '%s', is not a number >= 0", name,
			 (unsigned)i < nr ? row[i] : "");
		return -1;
	}
	return 0;
}

static int read_classes(char **hdr, unsigned nh, char **row, unsigned nr, struct noise_measured *m,
			char *err, size_t errlen)
{
	double secs, lost_share = 0;

	if (field(hdr, nh, row, nr, "seconds", &secs, err, errlen))
		return -1;
	if (secs <= 0) {
		snprintf(err, errlen, "the all row measured no time (seconds 0)");
		return -1;
	}
	m->n = 0;
	for (unsigned k = 0; k < NOISE_CLASSES; k++) {
		char name[2][48];
		double count, ns;

		snprintf(name[0], sizeof(name[0]), "detours_%s", decade_col[k]);
		snprintf(name[1], sizeof(name[1]), "lost_ns_%s", decade_col[k]);
		if (field(hdr, nh, row, nr, name[0], &count, err, errlen) ||
		    field(hdr, nh, row, nr, name[1], &ns, err, errlen))
			return -1;
		if (count < 1)
			continue;
		m->rate_hz[m->n] = count / secs;
		m->len_ps[m->n] = (uint64_t)(ns / count * 1000.0 + 0.5);
		m->detours += (uint64_t)count;
		lost_share += ns / (secs * 1e9);
		if (!m->len_ps[m->n])
			m->len_ps[m->n] = 1;
		m->n++;
	}
	m->seconds = secs;
	m->lost_share = lost_share;
	if (lost_share >= 1) {
		snprintf(err, errlen, "its detours take %.0f%% of the time: no thread would progress",
			 100 * lost_share);
		return -1;
	}
	return 0;
}

int noise_file_read(const char *path, struct noise_measured *m, char *err, size_t errlen)
{
	char why[300], line[2][LINE_MAX_LEN], *hdr[MAX_FIELDS], *row[MAX_FIELDS], e[300];
	FILE *f = infile_open(path, "a noise CSV", why, sizeof(why));
	unsigned nh = 0, nr = 0, lineno = 0;
	bool found = false;

	memset(m, 0, sizeof(*m));
	if (!f) {
		snprintf(err, errlen, "--noise-from %s: %s", path, why);
		return -1;
	}
	while (fgets(line[lineno ? 1 : 0], LINE_MAX_LEN, f)) {
		if (!lineno++) {
			nh = split(line[0], hdr);
			continue;
		}
		if (!strncmp(line[1], "all,", 4)) {
			nr = split(line[1], row);
			found = true;
			break;
		}
	}
	fclose(f);
	if (!found) {
		snprintf(err, errlen, "--noise-from %s: %s", path,
			 lineno ? "no row named all (the CPUs pooled)" : "empty");
		return -1;
	}
	if (read_classes(hdr, nh, row, nr, m, e, sizeof(e))) {
		snprintf(err, errlen, "--noise-from %s: %s", path, e);
		return -1;
	}
	snprintf(m->path, sizeof(m->path), "%s", path);
	return 0;
}
