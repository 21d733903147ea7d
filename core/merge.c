/*
 * core/merge.c - `merge --out F SHARD.csv...`: the CSVs of the shards of a
 * sweep (`run --shard I/N --csv SHARD.csv`) as the one CSV of the whole
 * sweep, its rows in sweep order.  Each shard's SHARD.csv.order (written
 * by run --shard) says where its rows stand in that order; every shard of
 * the sweep must be given, once.  The shards' headers must be the same,
 * but for the failure column that only a shard with a failed run has, and
 * every row must be of one backend and machine (its backend and topo
 * fields): a native shard and a simulated one, or shards of two hosts, are
 * refused.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/args.h>
#include <locklab/backend.h>
#include <locklab/result.h>

#include "cli.h"
#include "sweep.h"

#define FAILURE_COL ",failure"

struct shard {
	const char *path;
	char *text;   /* the CSV; its records end with NUL instead of newline */
	char *header;
	char **rows;
	size_t nrows;
	unsigned index, count; /* I/N */
	size_t total;          /* runs of the whole sweep */
	unsigned long long key; /* the sweep's (cli_opts.sweep_key) */
	char sweep[1100];       /* and its options (cli_opts.sweep_text) */
	size_t *order;         /* each row's index in sweep order */
};

/* The whole file, or NULL and why (empty: out of memory). */
static char *slurp(const char *path, char *why, size_t why_len)
{
	FILE *f = infile_open(path, "a shard's CSV", why, why_len);
	char *buf = NULL;
	size_t cap = 0, len = 0, n;

	if (!f)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = 2 * cap + 8192);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n);
	buf[len] = 0;
	fclose(f);
	return buf;
}

/* The CSV's records, split where a newline stands outside quotes. */
static int split_records(struct shard *sh)
{
	size_t cap = 16, n = 0;
	char **recs = malloc(cap * sizeof(*recs)), *p = sh->text, *start = p;
	bool quoted = false;

	if (!recs)
		return -1;
	for (; *p; p++) {
		if (*p == '"')
			quoted = !quoted;
		if (*p != '\n' || quoted)
			continue;
		*p = 0;
		if (n == cap) {
			char **nr = realloc(recs, (cap *= 2) * sizeof(*recs));

			if (!nr) {
				free(recs);
				return -1;
			}
			recs = nr;
		}
		recs[n++] = start;
		start = p + 1;
	}
	if (!n || *start) {
		free(recs);
		return -2;
	}
	sh->header = recs[0];
	sh->rows = recs + 1;
	sh->nrows = n - 1;
	return 0;
}

/* Where the field after the one at rec starts (past a comma outside
 * quotes), or NULL when rec's field is the record's last. */
static const char *next_field(const char *rec)
{
	bool quoted = false;

	for (; *rec; rec++) {
		if (*rec == '"')
			quoted = !quoted;
		else if (*rec == ',' && !quoted)
			return rec + 1;
	}
	return NULL;
}

/* Field k (0-based) of a CSV record: where it starts (the record's end
 * when it has fewer fields). */
static const char *field_at(const char *rec, unsigned k)
{
	for (const char *next; k && (next = next_field(rec)); k--)
		rec = next;
	return k ? rec + strlen(rec) : rec;
}

/* Does a row say "LOCK,THREADS," in its lock and threads fields (the third
 * and fourth) and run in its run field (the tenth)? */
static bool row_is(const char *rec, const char *lock_threads, unsigned run)
{
	char *end;

	if (strncmp(field_at(rec, 2), lock_threads, strlen(lock_threads)))
		return false;
	return strtoul(field_at(rec, 9), &end, 10) == run && (*end == ',' || !*end);
}

/* SHARD.order: "locklab-shard3 I/N TOTAL KEY", the sweep's options, then
 * a line per row: its index in sweep order, and its lock, threads and run,
 * which the row must have. */
static int read_order(struct shard *sh)
{
	char path[4200], magic[32], why[200];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s.order", sh->path);
	f = infile_open(path, "a shard's order", why, sizeof(why));
	if (!f)
		return ll_bad("merge", "%s: %s (written by run --shard beside its CSV)", path, why);
	ok = fscanf(f, "%31s %u/%u %zu %llx ", magic, &sh->index, &sh->count, &sh->total,
		    &sh->key) == 5 &&
	     !strcmp(magic, MERGE_ORDER_MAGIC) && sh->index < sh->count &&
	     fgets(sh->sweep, sizeof(sh->sweep), f) && strchr(sh->sweep, '\n');
	if (ok)
		*strchr(sh->sweep, '\n') = 0;
	sh->order = malloc((sh->nrows + 1) * sizeof(*sh->order));
	for (size_t i = 0; ok && sh->order && i < sh->nrows; i++) {
		char lock[64], want[160];
		unsigned threads, run;

		ok = fscanf(f, "%zu %63s %u %u", &sh->order[i], lock, &threads, &run) == 4 &&
		     sh->order[i] < sh->total;
		snprintf(want, sizeof(want), "%s,%u,", lock, threads);
		if (ok && !row_is(sh->rows[i], want, run)) {
			fclose(f);
			return ll_bad("merge", "%s: row %zu is not %s at %u threads, run %u, as %s says "
				      "(edited?)", sh->path, i + 1, lock, threads, run, path);
		}
	}
	if (ok && sh->order && fscanf(f, "%31s", magic) != EOF) { /* more rows than the CSV */
		fclose(f);
		return ll_bad("merge", "%s: %zu rows, fewer than %s lists (a CSV cut short, or "
			      "another run's)", sh->path, sh->nrows, path);
	}
	fclose(f);
	if (!ok)
		return ll_bad("merge", "%s: not the order of %s's %zu rows (as run --shard of this "
			      "version writes it)", path, sh->path, sh->nrows);
	return 0;
}

/* Fields of a CSV record: commas outside quotes, plus one. */
static size_t fields_of(const char *rec)
{
	size_t n = 1;

	while ((rec = next_field(rec)))
		n++;
	return n;
}

/* Empty, true, false or a finite number >= 0 (no column of a run's CSV
 * holds a negative one), and nothing else. */
static bool value_cell(const char *f, size_t len)
{
	char buf[64], *end;
	double v;

	if (!len || (len == 4 && !strncmp(f, "true", 4)) || (len == 5 && !strncmp(f, "false", 5)))
		return true;
	if (len >= sizeof(buf))
		return false;
	memcpy(buf, f, len);
	buf[len] = 0;
	v = strtod(buf, &end);
	return end == buf + len && isfinite(v) && v >= 0 && !isspace((unsigned char)buf[0]);
}

/* Every row has the header's fields, and a value where the column holds
 * values: 0, or 2 and a line naming the first that has not (its line in
 * the file). */
static int check_rows(const struct shard *sh)
{
	size_t want = fields_of(sh->header);

	for (size_t r = 0; r < sh->nrows; r++) {
		size_t got = fields_of(sh->rows[r]);
		const char *h = sh->header, *c = sh->rows[r];

		if (got != want)
			return ll_bad("merge", "%s: row %zu has %zu field(s) where the header has %zu",
				      sh->path, r + 1, got, want);
		while (h && c) {
			const char *hn = next_field(h), *cn = next_field(c);
			size_t hl = hn ? (size_t)(hn - 1 - h) : strlen(h);
			size_t cl = cn ? (size_t)(cn - 1 - c) : strlen(c);

			if (!output_text_column(h, hl) && !value_cell(c, cl))
				return ll_bad("merge", "%s: row %zu: %.*s is '%.*s', not a number "
					      ">= 0 (edited?)", sh->path, r + 1, (int)hl, h,
					      (int)(cl > 40 ? 40 : cl), c);
			h = hn;
			c = cn;
		}
	}
	return 0;
}

static int read_shard(struct shard *sh)
{
	char why[200] = "";
	int rc;

	sh->text = slurp(sh->path, why, sizeof(why));
	if (!sh->text)
		return ll_bad("merge", "%s: %s", sh->path, why[0] ? why : "out of memory");
	rc = split_records(sh);
	if (rc == -1)
		return ll_bad("merge", "out of memory");
	if (rc)
		return ll_bad("merge", "%s: not a CSV of locklab (no header, or no newline at its end)",
			      sh->path);
	rc = check_rows(sh);
	return rc ? rc : read_order(sh);
}

/* a is b, or b with the failure column. */
static bool same_but_failure(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), lf = strlen(FAILURE_COL);

	return la == lb + lf && !strncmp(a, b, lb) && !strcmp(a + lb, FAILURE_COL);
}

static bool has_failure(const char *h)
{
	size_t l = strlen(h), lf = strlen(FAILURE_COL);

	return l >= lf && !strcmp(h + l - lf, FAILURE_COL);
}

/* The header of the merged CSV; 2 and a line when the shards' differ.
 * A shard without rows has only the columns every sweep has: not compared. */
static int merged_header(struct shard *sh, size_t n, const char **head)
{
	const struct shard *first = NULL;

	*head = sh[0].header;
	for (size_t i = 0; i < n; i++) {
		if (!sh[i].nrows)
			continue;
		if (!first) {
			first = &sh[i];
			*head = sh[i].header;
			continue;
		}
		if (strcmp(sh[i].header, first->header) &&
		    !same_but_failure(sh[i].header, first->header) &&
		    !same_but_failure(first->header, sh[i].header))
			return ll_bad("merge", "%s: its header differs from that of %s", sh[i].path,
				      first->path);
		if (has_failure(sh[i].header))
			*head = sh[i].header;
	}
	return 0;
}

/* A row of the merged CSV: its text, and whether it lacks the failure
 * column the merged header has. */
struct merged_row {
	const char *text;
	bool pad;
};

/* Does sweep text y hold the option piece p (" --name value", plen bytes)? */
static bool has_piece(const char *y, const char *p, size_t plen)
{
	for (const char *q = strstr(y, " --"); q; q = strstr(q + 1, " --")) {
		const char *end = strstr(q + 1, " --");
		size_t qlen = end ? (size_t)(end - q) : strlen(q);

		if (qlen == plen && !strncmp(q, p, plen))
			return true;
	}
	return false;
}

/* The options of sweep text x ("run --a 1 --b 2", sorted) that y has not,
 * into out ("" when none). */
static void options_only_in(const char *x, const char *y, char *out, size_t len)
{
	size_t n = 0;

	*out = 0;
	for (const char *p = strstr(x, " --"); p && n < len; p = strstr(p + 1, " --")) {
		const char *end = strstr(p + 1, " --");
		size_t plen = end ? (size_t)(end - p) : strlen(p);

		if (!has_piece(y, p, plen))
			n += (size_t)snprintf(out + n, len - n, "%s%.*s", n ? " " : "",
					      (int)plen - 1, p + 1);
	}
}

/* The rows of shard sh in their places in at; 2 and a line when a shard
 * or a run comes twice, or sh is of another sweep. */
static int place_rows(const struct shard *sh, const struct shard *first, bool fail, bool *seen,
		      struct merged_row *at)
{
	if (sh->key != first->key) {
		char a[600], b[600];

		options_only_in(first->sweep, sh->sweep, a, sizeof(a));
		options_only_in(sh->sweep, first->sweep, b, sizeof(b));
		if (!*a && !*b && !strcmp(first->sweep, sh->sweep)) /* the keys alone differ */
			return ll_bad("merge", "%s and %s are shards of two sweeps: their keys differ "
				      "(%016llx against %016llx) where their options read the same, '%s' "
				      "(options past the line's room, or an order file edited)",
				      first->path, sh->path, first->key, sh->key, first->sweep);
		if (!*a && !*b) /* the difference lies past the texts' room */
			return ll_bad("merge", "%s and %s are shards of two sweeps: '%s' against '%s'",
				      first->path, sh->path, first->sweep, sh->sweep);
		return ll_bad("merge", "%s and %s are shards of two sweeps: %s%s%s against %s%s%s",
			      first->path, sh->path, *a ? "'" : "", *a ? a : "(no other option)",
			      *a ? "'" : "", *b ? "'" : "", *b ? b : "(no other option)",
			      *b ? "'" : "");
	}
	if (sh->count != first->count || sh->total != first->total)
		return ll_bad("merge", "%s: shard %u/%u of %zu runs, %s: %u/%u of %zu: not one sweep",
			      sh->path, sh->index, sh->count, sh->total, first->path, first->index,
			      first->count, first->total);
	if (seen[sh->index])
		return ll_bad("merge", "%s: shard %u/%u given twice", sh->path, sh->index, sh->count);
	seen[sh->index] = true;
	for (size_t r = 0; r < sh->nrows; r++) {
		struct merged_row *m = &at[sh->order[r]];

		if (m->text)
			return ll_bad("merge", "%s: run %zu of the sweep twice", sh->path, sh->order[r]);
		m->text = sh->rows[r];
		m->pad = fail && !has_failure(sh->header);
	}
	return 0;
}

/* Every shard of one sweep, once; every run of it once. */
static int check_cover(struct shard *sh, size_t n, bool fail, struct merged_row **at)
{
	bool *seen = calloc(sh[0].count, sizeof(*seen));
	size_t have = 0;
	int rc = 0;

	*at = calloc(sh[0].total + 1, sizeof(**at));
	if (!seen || !*at)
		rc = ll_bad("merge", "out of memory");
	for (size_t i = 0; i < n && !rc; i++) {
		rc = place_rows(&sh[i], &sh[0], fail, seen, *at);
		have += sh[i].nrows;
	}
	for (unsigned k = 0; k < sh[0].count && !rc; k++)
		if (!seen[k])
			rc = ll_bad("merge", "shard %u/%u missing", k, sh[0].count);
	if (!rc && have != sh[0].total)
		rc = ll_bad("merge", "the shards hold %zu of the sweep's %zu runs (one stopped early?)",
			    have, sh[0].total);
	free(seen);
	return rc;
}

/* Length of a row's first two fields, backend and machine ("sim,4socket"). */
static size_t machine_len(const char *row)
{
	const char *c = strchr(row, ',');

	c = c ? strchr(c + 1, ',') : NULL;
	return c ? (size_t)(c - row) : strlen(row);
}

/* One sweep runs on one backend and one machine: shards of a native and a
 * simulated run, or of two hosts, are not one sweep whatever their options. */
static int check_machine(const struct shard *sh, size_t n)
{
	const char *first = NULL, *from = NULL;

	if (strncmp(sh[0].header, "backend,topo,", 13))
		return 0; /* not a run CSV's columns: nothing to compare */
	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < sh[i].nrows; r++) {
			const char *row = sh[i].rows[r];

			if (!first) {
				first = row;
				from = sh[i].path;
			} else if (machine_len(row) != machine_len(first) ||
				   strncmp(row, first, machine_len(first))) {
				return ll_bad("merge", "%s: a run on %.*s, where %s has %.*s: shards of "
					      "one sweep run on one backend and machine", sh[i].path,
					      (int)machine_len(row), row, from, (int)machine_len(first),
					      first);
			}
		}
	return 0;
}

static int write_merged(const char *path, const char *head, const struct merged_row *rows,
			size_t total)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return ll_bad("merge", "out of memory");
	fprintf(f, "%s\n", head);
	for (size_t i = 0; i < total; i++)
		fprintf(f, "%s%s\n", rows[i].text, rows[i].pad ? "," : "");
	if (fclose(f))
		return ll_bad("merge", "out of memory");
	rc = write_file_atomic(path, buf, len);
	free(buf);
	if (rc) {
		fprintf(stderr, "locklab-%s: merge: cannot write %s: %s\n", backend_name, path,
			strerror(errno));
		return 1;
	}
	return 0;
}

/* --out F (or --out=F) and the shard CSVs, in any order. */
static int parse_merge(int argc, char **argv, const char **out, const char **files, size_t *n)
{
	*out = NULL;
	*n = 0;
	for (int i = 0; i < argc; i++) {
		bool is_out = !strcmp(argv[i], "--out") || !strncmp(argv[i], "--out=", 6);

		if (is_out && *out)
			return ll_bad("merge", "--out: given twice (one merged CSV)");
		if (!strcmp(argv[i], "--out")) {
			if (i + 1 == argc)
				return ll_bad("merge", "--out: needs a value");
			*out = argv[++i];
		} else if (is_out) {
			*out = argv[i] + 6;
		} else if (!strncmp(argv[i], "--", 2)) {
			return ll_bad("merge", "%.60s: unknown option (locklab-%s merge --help)",
				      argv[i], backend_name);
		} else {
			files[(*n)++] = argv[i];
		}
	}
	if (!*out || !**out)
		return ll_bad("merge", "--out FILE: where the merged CSV goes, is missing");
	if (!*n)
		return ll_bad("merge", "no shard CSV given");
	return 0;
}

int merge_main(int argc, char **argv)
{
	const char **files = calloc((size_t)argc + 1, sizeof(*files)), *out, *head;
	struct shard *sh = calloc((size_t)argc + 1, sizeof(*sh));
	struct merged_row *rows = NULL;
	char err[4400];
	size_t n;
	int rc;

	if (!files || !sh)
		return ll_bad("merge", "out of memory");
	rc = parse_merge(argc, argv, &out, files, &n);
	if (!rc && outfile_check("--out", out, err, sizeof(err)))
		rc = ll_bad("merge", "%s", err);
	for (size_t i = 0; i < n && !rc; i++) {
		char order[4200];

		if (!files[i][0]) {
			rc = ll_bad("merge", "shard %zu of %zu: an empty file name", i + 1, n);
			break;
		}
		snprintf(order, sizeof(order), "%s.order", files[i]);
		if (outfile_same(out, files[i]) || outfile_same(out, order))
			rc = ll_bad("merge", "--out %s: the same file as the shard %s%s it would replace",
				    out, files[i], outfile_same(out, files[i]) ? "" : "'s .order");
	}
	for (size_t i = 0; i < n && !rc; i++) {
		sh[i].path = files[i];
		rc = read_shard(&sh[i]);
	}
	if (!rc)
		rc = merged_header(sh, n, &head);
	if (!rc)
		rc = check_machine(sh, n);
	if (!rc)
		rc = check_cover(sh, n, has_failure(head), &rows);
	if (!rc)
		rc = write_merged(out, head, rows, sh[0].total);
	for (size_t i = 0; i < n; i++) {
		free(sh[i].text);
		free(sh[i].rows ? sh[i].rows - 1 : NULL);
		free(sh[i].order);
	}
	free(rows);
	free(sh);
	free(files);
	return rc;
}
