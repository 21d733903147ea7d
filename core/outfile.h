/*
 * core/outfile.h - result files: what may be written (core/outfile.c), and
 * the journal of finished rows a sweep keeps while it runs.
 */
#ifndef CORE_OUTFILE_H
#define CORE_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <locklab/result.h>

/* Which optional columns a CSV has (core/output.c). */
struct out_shape {
	bool vm;     /* the --vm columns */
	bool noise;  /* the scheduler-noise columns (docs/variance.md) */
	bool failed; /* the failure column */
	bool counts; /* the lock_counts column (a lock's own counts) */
};

struct out_shape output_shape(const struct output_set *o);
void output_csv_head(FILE *f, struct out_shape sh);
void output_csv_row(FILE *f, const struct run_result *r, struct out_shape sh);
/* Is the CSV column named by name[0..len) one of text (the others hold
 * numbers, true/false, or nothing)? */
bool output_text_column(const char *name, size_t len);

/* An input file opened for reading, or NULL and why ("a directory, not
 * WHAT", the system's reason...): anything but a regular file is refused
 * before anything waits on it (a FIFO would block the open until a writer
 * came). */
FILE *infile_open(const char *path, const char *what, char *why, size_t len);
/* A line of a plain CSV (no quoted fields) split in place at its commas,
 * its line end dropped, into at most max fields f (any further fields are
 * dropped); returns how many. */
unsigned infile_split(char *s, char **f, unsigned max);

/* 0 when path is absent or a regular file this user may write; else -1
 * with errno set (a rename never replaces what is not a regular file). */
int outfile_may_replace(const char *path);
/* buf: the journal of the CSV at path, PATH.partial (below): 0, or -1 with
 * errno ENAMETOOLONG. */
int outfile_journal_path(const char *path, char *buf, size_t len);

/*
 * A CSV that grows as runs finish: PATH.partial holds the header and a row
 * per finished run, on disk (fsync) before the next run starts, always what
 * output_csv prints of the rows so far.  Should the process die, the rows
 * are there; when the sweep ends, PATH is written whole and the journal
 * removed.  Each returns 0, or -1 with errno set.
 */
struct journal {
	char partial[4096];
	int fd;               /* -1: not open */
	size_t rows;          /* rows in the file */
	int err;              /* errno of the write that stopped it, or 0 */
	struct out_shape sh;  /* columns of the file */
};

int journal_open(struct journal *j, const char *path);
/* Brings the file up to date with o's rows. */
int journal_sync(struct journal *j, const struct output_set *o);
/* Closes the journal; with remove, deletes it (PATH has been written). */
void journal_close(struct journal *j, bool remove);

#endif
