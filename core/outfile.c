/*
 * core/outfile.c - result files: the checks an output path passes before
 * the first run, the refusal to rename over anything but a regular file,
 * and the journal of finished rows (core/outfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <locklab/backend.h>

#include "outfile.h"

static const char *kind_of(mode_t m)
{
	if (S_ISLNK(m))
		return "a symbolic link";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	if (S_ISFIFO(m))
		return "a FIFO";
	return "not a regular file";
}

FILE *infile_open(const char *path, const char *what, char *why, size_t len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE *f = NULL;

	if (fd < 0 || fstat(fd, &st)) {
		snprintf(why, len, "%s", strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		const char *kind = kind_of(st.st_mode);

		snprintf(why, len, kind[0] == 'a' ? "%s, not %s" : "%s", kind, what);
	} else if (fcntl(fd, F_SETFL, 0) || !(f = fdopen(fd, "r"))) {
		snprintf(why, len, "%s", strerror(errno));
	}
	if (!f && fd >= 0)
		close(fd);
	return f;
}

unsigned infile_split(char *s, char **f, unsigned max)
{
	unsigned n = 0;

	s[strcspn(s, "\r\n")] = 0;
	while (n < max) {
		f[n++] = s;
		s = strchr(s, ',');
		if (!s)
			break;
		*s++ = 0;
	}
	return n;
}

int outfile_journal_path(const char *path, char *buf, size_t len)
{
	if (snprintf(buf, len, "%s.partial", path) < (int)len)
		return 0;
	errno = ENAMETOOLONG;
	return -1;
}

int outfile_may_replace(const char *path)
{
	struct stat st;

	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		return -1;
	}
	if (S_ISREG(st.st_mode))
		return access(path, W_OK); /* a file the user may not write is not replaced */
	errno = S_ISDIR(st.st_mode) ? EISDIR : EEXIST;
	return -1;
}

/* Whether a file can be created in dir: mode bits are not enough (a
 * read-only mount, /proc, /sys), so one is created and removed. */
static int can_create_in(const char *dir)
{
	char probe[4096];
	int fd;

	if (snprintf(probe, sizeof(probe), "%s/.locklab-probe-XXXXXX", dir) >= (int)sizeof(probe)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkstemp(probe);
	if (fd < 0)
		return -1;
	close(fd);
	unlink(probe);
	return 0;
}

static int check_dir(const char *opt, const char *path, char *err, size_t len)
{
	char *copy = strdup(path);
	const char *dir;
	struct stat st;
	int rc = 0;

	if (!copy) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	dir = dirname(copy);
	if (stat(dir, &st)) {
		snprintf(err, len, "%s %s: directory %s: %s", opt, path, dir, strerror(errno));
		rc = -1;
	} else if (!S_ISDIR(st.st_mode)) {
		snprintf(err, len, "%s %s: %s is not a directory", opt, path, dir);
		rc = -1;
	} else if (can_create_in(dir)) {
		snprintf(err, len, "%s %s: no file can be created in %s: %s", opt, path, dir,
			 strerror(errno));
		rc = -1;
	}
	free(copy);
	return rc;
}

/* path's directory resolved, then its last name: "/abs/dir/name" in out.
 * -1 when the directory does not resolve. */
static int resolved_name(const char *path, char *out, size_t len)
{
	char *d = strdup(path), *b = strdup(path), *real = NULL;
	int rc = -1;

	if (d && b && (real = realpath(dirname(d), NULL)))
		rc = snprintf(out, len, "%s/%s", real, basename(b)) < (int)len ? 0 : -1;
	free(real);
	free(d);
	free(b);
	return rc;
}

bool outfile_same(const char *a, const char *b)
{
	char ra[8192], rb[8192];
	struct stat sa, sb;

	if (!stat(a, &sa) && !stat(b, &sb))
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	if (resolved_name(a, ra, sizeof(ra)) || resolved_name(b, rb, sizeof(rb)))
		return !strcmp(a, b);
	return !strcmp(ra, rb);
}

int outfile_check_all(const char *const opt[], const char *const path[], unsigned nout,
		      unsigned n, char *err, size_t len)
{
	for (unsigned i = 0; i < nout; i++) {
		if (!path[i])
			continue;
		if (outfile_check(opt[i], path[i], err, len))
			return -1;
		for (unsigned j = 0; j < n; j++) /* a pair of outputs: said at its second */
			if ((j < i || j >= nout) && path[j] && outfile_same(path[i], path[j])) {
				snprintf(err, len, "%s %s: the same file as %s; each output needs "
					 "its own", opt[i], path[i], opt[j]);
				return -1;
			}
	}
	return 0;
}

/* The longest a result file's name gets with what is added beside it:
 * ".partial" of a journal, then ".tmp.PID" of a whole write. */
#define SIDE_SUFFIX_MAX 24

static const char *last_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int outfile_check(const char *opt, const char *path, char *err, size_t len)
{
	size_t name_len = strlen(last_name(path));
	const char *dir_opt, *dir;
	char partial[4096];
	struct stat st;

	if (!path[0]) {
		snprintf(err, len, "%s: an empty file name", opt);
		return -1;
	}
	if (name_len > NAME_MAX - SIDE_SUFFIX_MAX) {
		snprintf(err, len, "%s %.60s...: a file name of %zu characters; at most %d, for the "
			 "partial and temporary files written beside it", opt, path, name_len,
			 NAME_MAX - SIDE_SUFFIX_MAX);
		return -1;
	}
	if (!strcmp(path, "-")) {
		snprintf(err, len, "%s -: '-' is not the standard output here (--format's output "
			 "goes there when no --out is given); ./- names a file called '-'", opt);
		return -1;
	}
	dir = backend_output_dir(&dir_opt);
	if (dir && strcmp(opt, dir_opt) && outfile_same(path, dir)) {
		snprintf(err, len, "%s %s: the directory of %s; each output needs a path of its own",
			 opt, path, dir_opt);
		return -1;
	}
	if (!lstat(path, &st) && !S_ISREG(st.st_mode)) {
		snprintf(err, len, "%s %s: %s; results go to regular files only", opt, path,
			 kind_of(st.st_mode));
		return -1;
	}
	if (!lstat(path, &st) && access(path, W_OK)) {
		snprintf(err, len, "%s %s: %s; results replace only a file this user may write",
			 opt, path, strerror(errno));
		return -1;
	}
	if (check_dir(opt, path, err, len))
		return -1;
	if (backend_input_file() && outfile_same(path, backend_input_file())) {
		snprintf(err, len, "%s %s: the topology the run reads; results go to a file of their own",
			 opt, path);
		return -1;
	}
	if (outfile_journal_path(path, partial, sizeof(partial))) {
		snprintf(err, len, "%s: file name too long", opt);
		return -1;
	}
	if (!lstat(partial, &st)) {
		snprintf(err, len, "%s %s: %s exists (the rows of a sweep that did not finish): "
			 "move it away or remove it", opt, path, partial);
		return -1;
	}
	return 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = write(fd, buf + done, len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

static int reopen(struct journal *j, int flags)
{
	j->fd = open(j->partial, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | flags, 0644);
	return j->fd < 0 ? -1 : 0;
}

struct rows_arg {
	const struct journal *j;
	const struct output_set *o;
	size_t from;
	bool head;
};

static void rows_of(FILE *m, const void *arg)
{
	const struct rows_arg *a = arg;

	if (a->head)
		output_csv_head(m, a->j->sh);
	for (size_t i = a->from; i < a->o->nrows; i++)
		output_csv_row(m, &a->o->rows[i], a->j->sh);
}

/* Rows from..o->nrows-1, with the header first when head. */
static int append_rows(struct journal *j, const struct output_set *o, size_t from, bool head)
{
	struct rows_arg a = { j, o, from, head };
	size_t len;
	char *buf = text_of(rows_of, &a, &len);
	off_t whole = lseek(j->fd, 0, SEEK_END); /* the rows written so far, each whole */
	int rc;

	if (!buf || whole < 0) {
		free(buf);
		return -1;
	}
	rc = write_all(j->fd, buf, len) || fdatasync(j->fd) ? -1 : 0;
	free(buf);
	if (rc) { /* a full disk cut a row short: the file keeps its whole rows only */
		int e = errno, cut = ftruncate(j->fd, whole);

		(void)cut; /* failing, the write's error is still the one said */
		errno = e;
	}
	return rc;
}

int journal_open(struct journal *j, const char *path)
{
	struct output_set none = { 0 };

	memset(j, 0, sizeof(*j));
	j->fd = -1;
	if (outfile_journal_path(path, j->partial, sizeof(j->partial)))
		return -1;
	if (reopen(j, O_CREAT | O_EXCL))
		return -1;
	if (append_rows(j, &none, 0, true)) { /* not even the header: no journal is left */
		int e = errno;

		close(j->fd);
		j->fd = -1;
		unlink(j->partial);
		errno = e;
		return -1;
	}
	return 0;
}

static void csv_of(FILE *f, const void *o)
{
	output_csv(f, o);
}

int journal_sync(struct journal *j, const struct output_set *o)
{
	struct out_shape sh = output_shape(o);

	if (j->fd < 0)
		return -1;
	if (sh.vm == j->sh.vm && sh.noise == j->sh.noise && sh.failed == j->sh.failed &&
	    sh.counts == j->sh.counts) {
		if (append_rows(j, o, j->rows, false))
			return -1;
	} else {
		/* new columns: the whole file again, replaced at once */
		close(j->fd);
		j->fd = -1;
		if (write_text_atomic(j->partial, csv_of, o) || reopen(j, 0))
			return -1;
		j->sh = sh;
	}
	j->rows = o->nrows;
	return 0;
}

void journal_close(struct journal *j, bool remove)
{
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	if (remove)
		unlink(j->partial);
}
