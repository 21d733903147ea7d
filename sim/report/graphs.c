/*
 * sim/report/graphs.c - the --graphs directory and its files (graphs.h):
 * the directory made or checked, every graph file a sweep may write
 * checked before it runs, and after each run the machine and handoff
 * graphs (graphs_machine.c, graphs_handoff.c, through graphs_draw.h) or
 * the waits-for graph of a failed run (waits.c) written as
 * DIR/graph-TOPO-LOCK-THREADS-KIND.{dot,svg,png}.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <locklab/result.h>

#include "../sim.h"
#include "draw.h"
#include "explain.h"
#include "graphs.h"
#include "graphs_draw.h"

#define STEM_MAX (PATH_MAX - 32)

static char graphs_dir[STEM_MAX];
static bool graphs_on;

/* The process that made the --graphs directory (0: it was there). */
static pid_t made_by;

static void unmake_dir(void)
{
	if (made_by == getpid()) /* not --jobs' workers */
		rmdir(graphs_dir); /* only if empty */
}

int graphs_set_dir(const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (!*dir) {
		snprintf(err, errlen, "--graphs: empty directory name");
		return -1;
	}
	if (strlen(dir) >= sizeof(graphs_dir) - 256) {
		snprintf(err, errlen, "--graphs: directory name too long");
		return -1;
	}
	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "--graphs %s: not a directory", dir);
			return -1;
		}
	} else if (mkdir(dir, 0777) && errno != EEXIST) {
		snprintf(err, errlen, "--graphs %s: cannot create it: %s", dir, strerror(errno));
		return -1;
	} else {
		/* made now, so that other outputs may go into it; removed at exit
		 * if nothing was (a refused command leaves nothing behind) */
		made_by = getpid();
		atexit(unmake_dir);
	}
	snprintf(graphs_dir, sizeof(graphs_dir), "%s", dir);
	if (draw_share_failures()) {
		snprintf(err, errlen, "--graphs: out of memory");
		return -1;
	}
	if (!sim_xp && sim_explain_arm()) {
		snprintf(err, errlen, "--graphs: out of memory");
		return -1;
	}
	graphs_on = true;
	return 0;
}

bool graphs_enabled(void)
{
	return graphs_on;
}

const char *graphs_dir_name(void)
{
	return graphs_dir;
}

int graphs_write_run(const struct wl_run *run, const char *stem)
{
	int rc = draw_write(graphs_machine_graph(run), "dot", stem, "machine");

	return draw_write(graphs_handoff_graph(run), "dot", stem, "handoff") | rc;
}

/* DIR/graph-TOPO-LOCK-THREADS, and -xOVERCOMMIT in a virtual machine (an
 * overcommit sweep would otherwise write each over the last).  0, or -1
 * when it does not fit. */
static int graph_stem(char *buf, size_t len, const char *lock, unsigned threads, double overcommit)
{
	int n = snprintf(buf, len, "%s/graph-%s-%s-%u", graphs_dir, sim.topo.name, lock, threads);

	if (n >= 0 && (size_t)n < len && overcommit > 0)
		n += snprintf(buf + n, len - (size_t)n, "-x%g", overcommit);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int graphs_check(const struct wl_config *cfg, char *err, size_t errlen)
{
	static const char *const kinds[] = { "machine", "handoff", "waits" };
	static const char *const exts[] = { "dot", "svg", "png" };
	unsigned nx = cfg->vm_vcpus ? cfg->novercommit : 1, checked = 0;
	char stem[PATH_MAX], path[PATH_MAX + 16];
	struct stat st;

	if (!graphs_on)
		return 0;
	for (unsigned l = 0; l < cfg->nalgos; l++)
		for (unsigned t = 0; t < cfg->nthreads; t++)
			for (unsigned x = 0; x < nx; x++) {
				if (graph_stem(stem, sizeof(stem), cfg->algos[l]->name, cfg->threads[t],
					       cfg->vm_vcpus ? cfg->overcommit[x] : 0)) {
					snprintf(err, errlen, "--graphs: file name too long");
					return -1;
				}
				for (unsigned k = 0; k < 3; k++)
					for (unsigned e = 0; e < 3; e++) {
						snprintf(path, sizeof(path), "%s-%s.%s", stem, kinds[k],
							 exts[e]);
						/* the directory once (it takes files), then
						 * each name: absent or a regular file */
						if (!checked++ &&
						    outfile_check("--graphs", path, err, errlen))
							return -1;
						if (!lstat(path, &st) && !S_ISREG(st.st_mode)) {
							snprintf(err, errlen, "--graphs %s: %s; results "
								 "go to regular files only", path,
								 S_ISLNK(st.st_mode) ? "a symbolic link"
								 : S_ISDIR(st.st_mode) ? "a directory"
								 : "not a regular file");
							return -1;
						}
					}
			}
	return 0;
}

void graphs_after_run(const struct wl_run *run)
{
	char stem[PATH_MAX];

	if (!graphs_on)
		return;
	/* named by the configured count: --co-guests same ran every guest's
	 * vCPUs as threads, the configuration counts the guest's */
	unsigned threads = run->vm_pcpus && run->nthreads > run->cfg->vm_vcpus ? run->cfg->vm_vcpus
										: run->nthreads;

	if (graph_stem(stem, sizeof(stem), run->algo->name, threads,
		       run->vm_pcpus ? run->overcommit : 0)) {
		fprintf(stderr, "locklab-sim: --graphs: file name too long\n");
		graphs_waits_clear();
		return;
	}
	if (run->failed)
		graphs_write_waits(run, stem);
	else if (run->run_index + 1 >= run->cfg->runs)
		graphs_write_run(run, stem);
	graphs_waits_clear();
}

void graphs_fini(void)
{
	graphs_waits_clear();
	draw_fini();
	graphs_on = false;
}
