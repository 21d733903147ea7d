/*
 * core/topodirs.c - the directories topology files are looked up in, and
 * the project's other files found as they are (core/topodirs.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topodirs.h"

/* The running program's directory and up to four of its parents, nearest
 * first: at most max; their count. */
static unsigned program_dirs(char dirs[][PATH_MAX], unsigned max)
{
	char exe[PATH_MAX];
	unsigned n = 0;
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (len <= 0)
		return 0;
	exe[len] = 0;
	for (int up = 0; up < 5 && n < max; up++) {
		char *slash = strrchr(exe, '/');

		if (!slash)
			break;
		*slash = 0;
		if (!*exe)
			break;
		snprintf(dirs[n++], PATH_MAX, "%s", exe);
	}
	return n;
}

unsigned ll_shipped_topology_dirs(char dirs[][PATH_MAX], unsigned max)
{
	char up[5][PATH_MAX];
	unsigned n = 0, nup = program_dirs(up, 5);

	for (unsigned i = 0; i < nup && n < max; i++)
		snprintf(dirs[n++], PATH_MAX, "%.*s/topologies", PATH_MAX - 16, up[i]);
	return n;
}

unsigned ll_topology_dirs(char dirs[][PATH_MAX], unsigned max)
{
	const char *env = getenv("LOCKLAB_TOPODIR");
	unsigned n = 0;

	if (!max)
		return 0;
	snprintf(dirs[n++], PATH_MAX, "topologies");
	if (env && *env && n < max)
		snprintf(dirs[n++], PATH_MAX, "%s", env);
	return n + ll_shipped_topology_dirs(dirs + n, max - n);
}

int ll_project_file(const char *rel, char out[PATH_MAX])
{
	char up[5][PATH_MAX];
	unsigned nup;

	if (!access(rel, R_OK)) {
		snprintf(out, PATH_MAX, "%s", rel);
		return 0;
	}
	nup = program_dirs(up, 5);
	for (unsigned i = 0; i < nup; i++) {
		if (snprintf(out, PATH_MAX, "%s/%s", up[i], rel) >= PATH_MAX)
			continue;
		if (!access(out, R_OK))
			return 0;
	}
	return -1;
}

int ll_program_dir(char out[PATH_MAX])
{
	return program_dirs((char(*)[PATH_MAX])out, 1) == 1 ? 0 : -1;
}

bool ll_same_bytes(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	bool same = fa && fb;
	int ca, cb;

	while (same) {
		ca = getc(fa);
		cb = getc(fb);
		same = ca == cb;
		if (ca == EOF)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}
