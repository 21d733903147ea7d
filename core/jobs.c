/*
 * core/jobs.c - `run --jobs N`: the runs of a sweep in worker processes.
 *
 * The simulator is single-threaded, so a sweep uses more CPUs by running
 * its independent runs in parallel: each is a fork of the sweep, which runs
 * one run and leaves its row (and its --threads-csv rows) in an anonymous
 * file, then exits.  The sweep commits the rows in sweep order, as each
 * becomes the next one, so every output is what one process would write.
 *
 * SIGINT or SIGTERM: no run starts, the workers (which ignore both) finish
 * theirs and the rows are kept; a second signal ends the sweep at once and
 * its workers with it.  --fail-fast: at the first failed row in sweep
 * order the workers still running are killed and their rows dropped.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <locklab/backend.h>

#include "sweep.h"

/* What a worker leaves at the start of its file; its threads rows follow. */
struct job_head {
	int failed;
	bool files_failed; /* a file the backend writes itself (--graphs) was not written */
	struct run_result res;
};

/* A finished run waiting for its turn, or a run in a worker. */
struct job {
	pid_t pid;   /* 0: not running */
	int fd;      /* its file */
	bool done;
	int failed;
	struct run_result res;
	char *thr;
	size_t tlen;
};

static void die_errno(const char *what)
{
	fprintf(stderr, "locklab-%s: %s: %s\n", backend_name, what, strerror(errno));
	exit(1);
}

/* The worker: run i, its row into fd, exit. */
static void __attribute__((noreturn)) worker(const struct sweep_sink *s, size_t i, int fd,
					     pid_t parent)
{
	struct job_head h;
	FILE *f;

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	f = fdopen(fd, "w");
	memset(&h, 0, sizeof(h));
	if (!f || fwrite(&h, sizeof(h), 1, f) != 1)
		_exit(1);
	h.failed = sweep_one(&s->o->cfg, i, &h.res, s->o->threads_csv ? f : NULL);
	h.files_failed = backend_files_failed();
	if (fflush(f) || pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		_exit(1);
	_exit(0);
}

static void start(struct sweep_sink *s, struct job *j, size_t i)
{
	pid_t parent = getpid();

	j->fd = memfd_create("locklab-run", MFD_CLOEXEC);
	if (j->fd < 0)
		die_errno("memfd_create");
	fflush(stdout);
	fflush(stderr);
	j->pid = fork();
	if (j->pid < 0)
		die_errno("fork");
	if (!j->pid)
		worker(s, i, j->fd, parent);
}

/* The row a worker left, or a failed row saying how it ended. */
static void collect(struct sweep_sink *s, struct job *j, size_t i, int status)
{
	struct job_head h;
	struct stat st;
	char why[128];

	j->pid = 0;
	j->done = true;
	if (WIFEXITED(status) && !WEXITSTATUS(status) && !fstat(j->fd, &st) &&
	    (size_t)st.st_size >= sizeof(h) && pread(j->fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h)) {
		j->failed = h.failed;
		j->res = h.res;
		s->rc |= h.files_failed; /* the command exits 1, as without --jobs */
		j->tlen = (size_t)st.st_size - sizeof(h);
		j->thr = malloc(j->tlen + 1);
		if (!j->thr || pread(j->fd, j->thr, j->tlen, sizeof(h)) != (ssize_t)j->tlen)
			die_errno("reading a worker's row");
	} else {
		if (WIFSIGNALED(status))
			snprintf(why, sizeof(why), "the worker process died of signal %d",
				 WTERMSIG(status));
		else
			snprintf(why, sizeof(why), "the worker process exited with status %d",
				 WEXITSTATUS(status));
		sweep_lost(&s->o->cfg, s->todo[i], &j->res, why);
		j->failed = 1;
	}
	close(j->fd);
	j->fd = -1;
}

/* The workers still running: killed, or (finish) waited for. */
static void end_workers(struct job *jobs, size_t n, bool finish)
{
	for (size_t i = 0; i < n; i++) {
		if (!jobs[i].pid)
			continue;
		if (!finish)
			kill(jobs[i].pid, SIGKILL);
		while (waitpid(jobs[i].pid, NULL, 0) < 0 && errno == EINTR)
			;
		close(jobs[i].fd);
		jobs[i].pid = 0;
	}
}

static struct job *find_job(struct job *jobs, size_t n, pid_t pid, size_t *at)
{
	for (size_t i = 0; i < n; i++)
		if (jobs[i].pid == pid) {
			*at = i;
			return &jobs[i];
		}
	return NULL;
}

/* The finished rows that come next in sweep order; false at --fail-fast. */
static bool commit_ready(struct sweep_sink *s, struct job *jobs)
{
	while (s->done < s->ntodo && jobs[s->done].done) {
		struct job *j = &jobs[s->done];
		int stop = sweep_commit(s, &j->res, j->failed, j->thr, j->tlen);

		free(j->thr);
		j->thr = NULL;
		if (stop)
			return false;
		sweep_progress(s);
	}
	return true;
}

void jobs_run(struct sweep_sink *s, unsigned njobs, volatile sig_atomic_t *stop)
{
	struct job *jobs = calloc(s->ntodo, sizeof(*jobs));
	size_t next = 0, running = 0;

	if (!jobs) {
		fprintf(stderr, "locklab-%s: out of memory\n", backend_name);
		exit(1);
	}
	sweep_progress(s);
	while (s->done < s->ntodo) {
		size_t at;
		int status;
		pid_t pid;
		struct job *j;

		while (running < njobs && next < s->ntodo && !*stop) {
			start(s, &jobs[next], s->todo[next]);
			next++;
			running++;
		}
		if (!running)
			break;
		pid = waitpid(-1, &status, 0);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			die_errno("waitpid");
		j = find_job(jobs, next, pid, &at);
		if (!j)
			continue;
		running--;
		collect(s, j, at, status);
		if (!commit_ready(s, jobs)) {
			end_workers(jobs, next, false);
			break;
		}
	}
	for (size_t i = 0; i < s->ntodo; i++)
		free(jobs[i].thr);
	free(jobs);
}
