/*
 * sim/topo_find.c - from the --topo value to a machine file: a path as
 * given, or NAME looked up as topologies/NAME.xml (topologies/README.md says
 * where), and the error line that lists the known names when it is missing.
 */
#include "topo_internal.h"
#include "../core/topodirs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int name_qsort_cmp(const void *a, const void *b)
{
	return topo_natural_cmp((const char *)a, (const char *)b);
}

static bool is_readable_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

bool topo_given_as_path(const char *s)
{
	size_t n = strlen(s);

	return strchr(s, '/') || (n > 4 && strcmp(s + n - 4, ".xml") == 0);
}

int topo_resolve(const char *name_or_path, char *path, size_t pathlen)
{
	char dirs[8][PATH_MAX];
	unsigned n;

	if (!name_or_path || !*name_or_path) {
		topo_strcpy(path, pathlen, "");
		return -1;
	}
	if (topo_given_as_path(name_or_path)) {
		topo_strcpy(path, pathlen, name_or_path);
		return is_readable_file(path) ? 0 : -1;
	}
	n = ll_topology_dirs(dirs, 8);
	for (unsigned i = 0; i < n; i++) {
		char cand[PATH_MAX + 128];
		snprintf(cand, sizeof(cand), "%.*s/%.*s.xml", PATH_MAX - 1, dirs[i], 120, name_or_path);
		if (i == 0)
			topo_strcpy(path, pathlen, cand);
		if (is_readable_file(cand)) {
			topo_strcpy(path, pathlen, cand);
			return 0;
		}
	}
	return -1;
}

enum topo_shipped topo_shipped_state(const char *path)
{
	char real[PATH_MAX], dirs[5][PATH_MAX], cand[PATH_MAX + 128], creal[PATH_MAX];
	const char *base = strrchr(path, '/');
	unsigned n = ll_shipped_topology_dirs(dirs, 5);
	bool named = false;

	base = base ? base + 1 : path;
	if (!realpath(path, real))
		return TOPO_NOT_SHIPPED;
	for (unsigned i = 0; i < n; i++) {
		snprintf(cand, sizeof(cand), "%.*s/%.*s", PATH_MAX - 1, dirs[i], 120, base);
		if (!realpath(cand, creal))
			continue;
		if (!strcmp(real, creal) || ll_same_bytes(real, creal))
			return TOPO_SHIPPED; /* the file itself, or a copy of it as shipped */
		named = true;
	}
	return named ? TOPO_CHANGED : TOPO_NOT_SHIPPED;
}

/* The names of the *.xml files in dir, up to max; -1 if it cannot be read. */
static int list_xml(const char *dir, char names[][TOPO_NAME_LEN], unsigned max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) && n < max) {
		size_t len = strlen(e->d_name);
		if (len > 4 && len - 4 < TOPO_NAME_LEN && strcmp(e->d_name + len - 4, ".xml") == 0)
			snprintf(names[n++], TOPO_NAME_LEN, "%.*s", (int)(len - 4), e->d_name);
	}
	closedir(d);
	return (int)n;
}

/* "1socket, 2socket, ..." from the first topologies directory found. */
static void known_names(char *out, size_t len)
{
	char dirs[8][PATH_MAX], names[64][TOPO_NAME_LEN];
	unsigned nd = ll_topology_dirs(dirs, 8);
	int nn = -1;
	size_t used = 0;

	out[0] = 0;
	for (unsigned i = 0; i < nd && nn <= 0; i++)
		nn = list_xml(dirs[i], names, 64);
	if (nn <= 0)
		return;
	qsort(names, (size_t)nn, sizeof(names[0]), name_qsort_cmp);
	for (int i = 0; i < nn && used + TOPO_NAME_LEN + 4 < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", i ? ", " : "", names[i]);
}

void topo_set_name(struct topo *t, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 4 && strcmp(base + n - 4, ".xml") == 0)
		n -= 4;
	snprintf(t->name, sizeof(t->name), "%.*s", (int)(n < sizeof(t->name) ? n : sizeof(t->name) - 1), base);
	topo_strcpy(t->path, sizeof(t->path), path);
}

/* `calibrate` writes this machine's file under results/, which is not a
 * directory of machines: a name that is there is said with its path. */
static void calibrated_note(const char *name, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct stat st;

	if (strchr(name, '/') ||
	    (size_t)snprintf(path, sizeof(path), "results/%s.xml", name) >= sizeof(path) ||
	    stat(path, &st) || !S_ISREG(st.st_mode))
		return;
	snprintf(err + strlen(err), errlen - strlen(err), "; %s exists (calibrate writes there): "
		 "--topo %s", path, path);
}

/* A $LOCKLAB_TOPODIR that is not a directory is said where a name was not
 * found (it was passed over). */
static void env_note(char *err, size_t errlen)
{
	const char *env = getenv("LOCKLAB_TOPODIR");
	struct stat st;

	if (env && *env && (stat(env, &st) || !S_ISDIR(st.st_mode)))
		snprintf(err + strlen(err), errlen - strlen(err),
			 "; LOCKLAB_TOPODIR=%.200s is not a directory", env);
}

/* "topologies/, /opt/locklab/topologies (the program's)": where a name was
 * looked for, and how to add a directory. */
static void searched(char *err, size_t errlen)
{
	char dirs[8][PATH_MAX];
	unsigned n = ll_topology_dirs(dirs, 8);
	const char *env = getenv("LOCKLAB_TOPODIR");

	for (unsigned i = 0; i < n && strlen(err) + 2 < errlen; i++)
		snprintf(err + strlen(err), errlen - strlen(err), "%s%.300s%s", i ? ", " : "",
			 dirs[i], i == 0 ? " (the working directory's)" : "");
	if (!env || !*env)
		snprintf(err + strlen(err), errlen - strlen(err), "; $LOCKLAB_TOPODIR names "
			 "another directory");
}

int topo_find(const char *name_or_path, char *path, size_t len, char *err, size_t errlen)
{
	char known[512];

	if (!name_or_path || !*name_or_path) {
		snprintf(err, errlen, "--topo: no topology given (a name under topologies/ or a path)");
		return -1;
	}
	if (topo_resolve(name_or_path, path, len) == 0)
		return 0;
	if (topo_given_as_path(name_or_path)) {
		char name[TOPO_NAME_LEN], other[PATH_MAX];
		size_t n = strlen(name_or_path);
		struct stat st;
		bool missing = stat(path, &st) != 0;
		int why = errno; /* ENOENT, or ELOOP for a loop of links, ... */

		/* "4socket.xml" here: the machine is the name without .xml */
		snprintf(name, sizeof(name), "%.*s", (int)(n > 4 ? n - 4 : 0), name_or_path);
		snprintf(err, errlen, "--topo %s: %s", path, missing ? strerror(why) :
			 S_ISREG(st.st_mode) ? "cannot read it" : "not a regular file");
		if (missing && why == ENOENT && !strchr(name_or_path, '/') && n < sizeof(name) + 4 &&
		    !topo_resolve(name, other, sizeof(other)))
			snprintf(err + strlen(err), errlen - strlen(err),
				 " (the machine %s is --topo %s)", name, name);
		return -1;
	}
	known_names(known, sizeof(known));
	snprintf(err, errlen, "--topo: unknown topology '%s': no %.120s.xml in ", name_or_path,
		 name_or_path);
	searched(err, errlen);
	if (known[0])
		snprintf(err + strlen(err), errlen - strlen(err), " (known: %s)", known);
	calibrated_note(name_or_path, err, errlen);
	env_note(err, errlen);
	return -1;
}
