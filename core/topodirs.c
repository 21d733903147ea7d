/*
 * core/topodirs.c - the directories topology files are looked up in
 * (core/topodirs.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topodirs.h"

unsigned ll_topology_dirs(char dirs[][PATH_MAX], unsigned max)
{
	char exe[PATH_MAX];
	const char *env = getenv("LOCKLAB_TOPODIR");
	unsigned n = 0;
	ssize_t len;

	if (!max)
		return 0;
	snprintf(dirs[n++], PATH_MAX, "topologies");
	if (env && *env && n < max)
		snprintf(dirs[n++], PATH_MAX, "%s", env);
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0)
		return n;
	exe[len] = 0;
	for (int up = 0; up < 5 && n < max; up++) {
		char *slash = strrchr(exe, '/');

		if (!slash)
			break;
		*slash = 0;
		if (!*exe)
			break;
		snprintf(dirs[n++], PATH_MAX, "%.*s/topologies", PATH_MAX - 16, exe);
	}
	return n;
}
