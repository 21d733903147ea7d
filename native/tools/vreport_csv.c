/*
 * native/tools/vreport_csv.c - reads a locklab result CSV into the table of
 * `locklab-native validate-report`: the columns are found by their names
 * in the heading, and the runs are grouped by (lock, threads).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/cli.h"
#include "../../core/outfile.h"
#include "validate.h"
#include "vreport.h"

/* ------------------------------------------------------------ reading */

enum { COL_LOCK, COL_THREADS, COL_TPUT, COL_JAIN, COL_TOPO, COL_CS, COL_NCS, COL_BACKEND,
       COL_FAILURE, COL_SEED, COL_RUN, COL_CS_LINES, COL_LOCKS, COL_NCS_EXP, COL_READ_PCT,
       COL_OVERCOMMIT, COL_HANDOFF, NCOLS };
#define NREQUIRED COL_CS /* the columns from cs_ns on are optional */
#define FIRST_WORKLOAD COL_CS_LINES /* the workload's columns besides cs_ns, ncs_ns, */
#define END_WORKLOAD COL_HANDOFF     /* up to here; the rest are figures */
/* No lock is taken more than once a picosecond: a rate above is no run's. */
#define VR_MAX_RATE 1e12

static const char *const col_names[NCOLS] = { "lock", "threads", "throughput_per_s", "jain",
					      "topo", "cs_ns", "ncs_ns", "backend", "failure",
					      "seed", "run", "cs_lines", "locks", "ncs_exp", "read_pct",
					      "overcommit", "handoff_frac" };

/* One line of a CSV, without its line end, into at most max fields, in
 * place: a field in double quotes may hold commas, and "" stands for one
 * quote (locklab quotes the failure column so). */
static unsigned split_csv(char *s, char **f, unsigned max)
{
	unsigned n = 0;
	char *w;

	s[strcspn(s, "\r\n")] = 0;
	while (n < max) {
		f[n++] = w = s;
		if (*s == '"') {
			for (s++; *s; s++) {
				if (*s == '"' && s[1] == '"')
					s++;
				else if (*s == '"')
					break;
				*w++ = *s;
			}
			if (*s == '"')
				s++;
		}
		while (*s && *s != ',')
			*w++ = *s++;
		if (!*s) {
			*w = 0;
			break;
		}
		*w = 0;
		s++;
	}
	return n;
}

static struct entry *find_entry(struct table *t, const char *lock, unsigned threads)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].threads == threads && !strcmp(t->e[i].lock, lock))
			return &t->e[i];
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 32;
		struct entry *e = realloc(t->e, cap * sizeof(*e));

		if (!e)
			return NULL;
		t->e = e;
		t->cap = cap;
	}
	struct entry *e = &t->e[t->n++];

	memset(e, 0, sizeof(*e));
	snprintf(e->lock, sizeof(e->lock), "%s", lock);
	e->threads = threads;
	return e;
}

/* Fields of the heading: each row must have as many. */
static unsigned heading_fields;

static int heading(const char *path, char *line, int *idx, char *err, size_t errlen)
{
	char *f[256];
	unsigned n = heading_fields = split_csv(line, f, 256);

	for (int c = 0; c < NCOLS; c++) {
		idx[c] = -1;
		for (unsigned i = 0; i < n; i++) {
			if (strcmp(f[i], col_names[c]))
				continue;
			if (idx[c] >= 0) { /* which one holds the figures? */
				snprintf(err, errlen, "%s: two '%s' columns (%d and %u): not a locklab "
					 "result CSV", path, col_names[c], idx[c] + 1, i + 1);
				return -1;
			}
			idx[c] = (int)i;
		}
		if (idx[c] < 0 && c < NREQUIRED) {
			snprintf(err, errlen, "%s: no '%s' column: not a locklab result CSV", path,
				 col_names[c]);
			return -1;
		}
	}
	return 0;
}

static int parse_num(const char *s, double *out)
{
	char *end;

	if (!*s) {
		*out = NAN;
		return 0;
	}
	errno = 0;
	*out = strtod(s, &end);
	return *end || errno ? -1 : 0;
}

/* The workload's other columns of a row ("cs_lines=1 locks=1 ..."), the
 * same in every run of one side: a sweep over --overcommit or --read-pct
 * has several rows per lock and threads, which no mean may pool. */
static int read_workload(struct side *s, char **f, const int *idx, const char *where,
			 char *err, size_t errlen)
{
	char w[sizeof(s->workload)];
	size_t used = 0;

	w[0] = 0;
	for (int c = FIRST_WORKLOAD; c < END_WORKLOAD; c++)
		if (idx[c] >= 0 && used < sizeof(w))
			used += (size_t)snprintf(w + used, sizeof(w) - used, "%s%s=%s",
						 used ? " " : "", col_names[c], f[idx[c]]);
	if (s->n && strcmp(s->workload, w)) {
		snprintf(err, errlen, "%s: %s, where an earlier run of the same lock and threads has "
			 "%s: one CSV holds one sweep point per lock and threads", where, w,
			 s->workload);
		return -1;
	}
	snprintf(s->workload, sizeof(s->workload), "%s", w);
	return 0;
}

/* cs_ns and ncs_ns of a row, the same in every run of one side. */
static int read_params(struct side *s, char **f, const int *idx, const char *where, char *err,
		       size_t errlen)
{
	double cs = NAN, ncs = NAN;

	if ((idx[COL_CS] >= 0 && parse_num(f[idx[COL_CS]], &cs)) ||
	    (idx[COL_NCS] >= 0 && parse_num(f[idx[COL_NCS]], &ncs))) {
		snprintf(err, errlen, "%s: cs_ns or ncs_ns does not read", where);
		return -1;
	}
	if (s->n && ((s->cs_ns != cs && !(isnan(cs) && isnan(s->cs_ns))) ||
		     (s->ncs_ns != ncs && !(isnan(ncs) && isnan(s->ncs_ns))))) {
		snprintf(err, errlen, "%s: cs_ns or ncs_ns differs from an earlier run of the same lock and threads",
			 where);
		return -1;
	}
	s->cs_ns = cs;
	s->ncs_ns = ncs;
	return read_workload(s, f, idx, where, err, errlen);
}

/* A run is its seed, its index and its figures: a second row of the same
 * ones is the same run again (a CSV appended to itself), which would count
 * twice in the mean and its spread.  Rows of other seeds, or of the same
 * seed with other figures (two native sweeps pooled: a native run is not
 * reproduced by its seed), are other runs. */
static int read_run_id(struct side *s, char **f, const int *idx, double tput, double jain,
		       const char *where, char *err, size_t errlen)
{
	uint64_t seed = 0, run = 0;

	if (idx[COL_RUN] < 0)
		return 0;
	if ((idx[COL_SEED] >= 0 && cli_parse_u64(f[idx[COL_SEED]], &seed)) ||
	    cli_parse_u64(f[idx[COL_RUN]], &run)) {
		snprintf(err, errlen, "%s: a seed or run that does not read", where);
		return -1;
	}
	for (unsigned i = 0; i < s->n; i++)
		if (s->seed[i] == seed && s->run[i] == run && s->tput[i] == tput &&
		    s->jain[i] == jain) {
			snprintf(err, errlen, "%s: run %" PRIu64 " of seed %" PRIu64 " again: a run is "
				 "counted once (a CSV appended to itself?)", where, run, seed);
			return -1;
		}
	s->seed[s->n] = seed;
	s->run[s->n] = run;
	return 0;
}

static int add_row(struct table *t, bool sim, char **f, unsigned nf, const int *idx,
		   const char *where, char *err, size_t errlen)
{
	uint64_t threads;
	double tput, jain;
	struct entry *e;
	struct side *s;

	if (nf != heading_fields) {
		snprintf(err, errlen, "%s: %u field(s) where the heading has %u", where, nf,
			 heading_fields);
		return -1;
	}
	if (idx[COL_FAILURE] >= 0 && *f[idx[COL_FAILURE]]) { /* a failed run: no figures */
		if (!cli_parse_u64(f[idx[COL_THREADS]], &threads) && threads &&
		    threads <= 1u << 20 && (e = find_entry(t, f[idx[COL_LOCK]], (unsigned)threads)))
			(sim ? &e->sim : &e->nat)->failed++;
		return 1;
	}
	if (cli_parse_u64(f[idx[COL_THREADS]], &threads) || !threads || threads > 1u << 20 ||
	    parse_num(f[idx[COL_TPUT]], &tput) || isnan(tput) ||
	    parse_num(f[idx[COL_JAIN]], &jain) || !*f[idx[COL_LOCK]]) {
		snprintf(err, errlen, "%s: a lock, thread count, throughput or jain that does not read",
			 where);
		return -1;
	}
	if (!(tput > 0 && tput <= VR_MAX_RATE) || !(jain > 0 && jain <= 1)) {
		snprintf(err, errlen, "%s: throughput %s and jain %s: a run's rate is above 0 and at "
				      "most %g a second (one acquisition a picosecond), and Jain's index "
				      "in (0, 1]", where, f[idx[COL_TPUT]], f[idx[COL_JAIN]], VR_MAX_RATE);
		return -1;
	}
	if (idx[COL_BACKEND] >= 0 && strcmp(f[idx[COL_BACKEND]], sim ? "sim" : "native")) {
		snprintf(err, errlen, "%s: a row of backend '%s' given as the %s results (swapped "
				      "--native and --sim?)", where, f[idx[COL_BACKEND]],
			 sim ? "simulator's" : "native");
		return -1;
	}
	e = find_entry(t, f[idx[COL_LOCK]], (unsigned)threads);
	if (!e) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s = sim ? &e->sim : &e->nat;
	if (read_params(s, f, idx, where, err, errlen))
		return -1;
	if (s->n == VR_MAX_RUNS) {
		snprintf(err, errlen, "%s: more than %d runs of %s at %u threads", where, VR_MAX_RUNS,
			 e->lock, e->threads);
		return -1;
	}
	for (size_t i = 0; i < t->n; i++) { /* every run of a side: one machine */
		const struct side *o = sim ? &t->e[i].sim : &t->e[i].nat;

		if (o->n && strcmp(o->topo, f[idx[COL_TOPO]])) {
			snprintf(err, errlen, "%s: a run on %s, where an earlier one is on %s: the "
				 "%s results are of one machine", where, f[idx[COL_TOPO]], o->topo,
				 sim ? "simulated" : "native");
			return -1;
		}
	}
	if (read_run_id(s, f, idx, tput, jain, where, err, errlen))
		return -1;
	snprintf(s->topo, sizeof(s->topo), "%s", f[idx[COL_TOPO]]);
	s->handoff[s->n] = NAN; /* a CSV older than the column, or a refcount's empty cell */
	if (idx[COL_HANDOFF] >= 0 && *f[idx[COL_HANDOFF]] &&
	    (parse_num(f[idx[COL_HANDOFF]], &s->handoff[s->n]) ||
	     !(s->handoff[s->n] >= 0 && s->handoff[s->n] <= 1))) {
		snprintf(err, errlen, "%s: handoff_frac %s: a share, from 0 to 1", where,
			 f[idx[COL_HANDOFF]]);
		return -1;
	}
	s->tput[s->n] = tput;
	s->jain[s->n++] = jain;
	return 0;
}

int vr_read_csv(const char *path, struct table *t, bool sim, char *err, size_t errlen)
{
	static char line[VR_LINE];
	char where[600], *fields[256];
	int idx[NCOLS], rc = 0;
	unsigned lineno = 1, rows = 0, failed = 0;
	char why[200];
	FILE *f;

	f = infile_open(path, "a result CSV", why, sizeof(why));
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	if (!fgets(line, sizeof(line), f)) {
		snprintf(err, errlen, "%s: empty file", path);
		fclose(f);
		return -1;
	}
	if (heading(path, line, idx, err, errlen)) {
		fclose(f);
		return -1;
	}
	while (!rc && fgets(line, sizeof(line), f)) {
		lineno++;
		line[strcspn(line, "\r\n")] = 0;
		if (!line[0])
			continue;
		snprintf(where, sizeof(where), "%s:%u", path, lineno);
		rc = add_row(t, sim, fields, split_csv(line, fields, 256), idx, where, err, errlen);
		failed += rc == 1;
		rows += rc == 0;
		rc = rc < 0 ? rc : 0;
	}
	fclose(f);
	if (!rc && !rows) {
		snprintf(err, errlen, failed ? "%s: every run failed (its failure column): nothing to "
					      "compare" : "%s: no rows", path);
		rc = -1;
	}
	if (!rc && failed)
		vr_note("%s: %u failed run%s left out (the failure column says why)", path, failed,
			failed == 1 ? "" : "s");
	return rc;
}
