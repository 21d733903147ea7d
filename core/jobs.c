/*
 * core/jobs.c - `run --jobs N`: the runs of a sweep in worker processes.
 *
 * The simulator is single-threaded, so a sweep uses more CPUs by running
 * its independent runs in parallel: up to N forks of the sweep, each of
 * which takes runs one at a time over a socket, runs each as `--jobs 1`
 * would (a run depends on nothing a previous run in the process left) and
 * sends back its row and its --threads-csv rows.  The sweep commits the
 * rows in sweep order, as each becomes the next one, so every output is
 * what one process would write.  A worker is forked once, not per run:
 * its pages are copied from the sweep's at its first run only.
 *
 *   sweep --(run index)--> worker --(one byte: started)--> sweep
 *                                 --(job_head, thr bytes)--> sweep
 *
 * A worker that dies (a crash in a run) closes its socket: its run gets a
 * failed row saying how the worker ended, and a new worker takes the next.
 * One that dies before it said it started a run (between two runs) is
 * replaced, and the new one takes that run; a new worker that dies so is
 * not replaced again: the run gets the failed row.
 * Each worker holds a socket: an open-file limit (ulimit -n) too low for N
 * gives fewer workers, said in one line.
 *
 * SIGINT or SIGTERM: no run starts, the workers (which ignore both) are
 * told with SIGUSR1, a simulated run in progress ends there as a failed run
 * (backend_stop_asked), a native one runs to its end, and the rows are
 * kept; a second signal ends the sweep at once and its workers with it.  --fail-fast: at the first failed row in sweep
 * order the workers still running are killed and their rows dropped.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <locklab/backend.h>

#include "sweep.h"

/* What a worker sends for a run; tlen bytes of threads rows follow. */
struct job_head {
	int failed;
	bool files_failed; /* a file the backend writes itself (--graphs) was not written */
	size_t tlen;
	struct run_result res;
};

/* A run's row, once its worker has sent it. */
struct job {
	bool done;
	int failed;
	struct run_result res;
	char *thr;
	size_t tlen;
};

/* A worker process and the run it has (-1: none). */
struct worker {
	pid_t pid;    /* 0: none */
	int sock;
	long run;     /* index into todo */
	bool started; /* it said it started its run */
	bool fresh;   /* it has started no run yet */
};

static void die_errno(const char *what)
{
	fprintf(stderr, "locklab-%s: %s: %s\n", backend_name, what, strerror(errno));
	exit(1);
}

/* Exactly n bytes through a socket, sent (out) or received, through
 * EINTR and short counts; false at its end or an error.  A send to a
 * closed peer is an error returned, not SIGPIPE. */
static bool sock_all(int fd, void *p, size_t n, bool out)
{
	char *c = p;

	while (n) {
		ssize_t k = out ? send(fd, c, n, MSG_NOSIGNAL) : recv(fd, c, n, 0);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		c += k;
		n -= (size_t)k;
	}
	return true;
}

static bool read_all(int fd, void *p, size_t n)
{
	return sock_all(fd, p, n, false);
}

static bool send_all(int fd, const void *p, size_t n)
{
	return sock_all(fd, (void *)p, n, true);
}

/* One run in the worker: its head and threads rows to the sweep. */
static bool serve_one(const struct sweep_sink *s, size_t i, int sock)
{
	struct job_head h;
	char *thr = NULL;
	size_t tlen = 0;
	FILE *f = NULL;
	bool ok;

	memset(&h, 0, sizeof(h));
	if (s->o->threads_csv && !(f = open_memstream(&thr, &tlen)))
		return false;
	h.failed = sweep_one(&s->o->cfg, i, &h.res, f);
	h.files_failed = backend_files_failed();
	if (f && fclose(f)) {
		free(thr);
		return false;
	}
	h.tlen = tlen;
	ok = send_all(sock, &h, sizeof(h)) && send_all(sock, thr, tlen);
	free(thr);
	return ok;
}

/* In a worker: the sweep was asked to stop. */
static void on_told_to_stop(int sig)
{
	(void)sig;
	backend_stop_asked = 1;
}

/* The worker: runs until the sweep closes its end; mask: the signal mask
 * the sweep had before worker_start blocked the stops. */
static void __attribute__((noreturn)) worker_main(const struct sweep_sink *s, int sock,
						  pid_t parent, const sigset_t *mask)
{
	struct sigaction sa;
	size_t i;

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_told_to_stop;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigprocmask(SIG_SETMASK, mask, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	while (read_all(sock, &i, sizeof(i)))
		if (i >= s->ntodo || !send_all(sock, "s", 1) || !serve_one(s, s->todo[i], sock))
			_exit(1);
	_exit(0);
}

/* A new worker; it closes the sockets of the others (inherited by the
 * fork), so that each sees its socket end when the sweep closes it.
 * SIGINT and SIGTERM are blocked across the fork: the worker ignores
 * them before it unblocks them, so a stop never reaches the sweep's
 * handler in a worker; SIGUSR1 too, until its handler is in place. */
static void worker_start(struct sweep_sink *s, struct worker *ws, unsigned n, struct worker *w)
{
	pid_t parent = getpid();
	sigset_t stops, old;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		die_errno("socketpair");
	fflush(stdout);
	fflush(stderr);
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGUSR1);
	sigprocmask(SIG_BLOCK, &stops, &old);
	w->pid = fork();
	if (w->pid)
		sigprocmask(SIG_SETMASK, &old, NULL);
	if (w->pid < 0)
		die_errno("fork");
	if (!w->pid) {
		close(sv[0]);
		for (unsigned k = 0; k < n; k++)
			if (ws[k].pid && &ws[k] != w)
				close(ws[k].sock);
		worker_main(s, sv[1], parent, &old);
	}
	close(sv[1]);
	w->sock = sv[0];
	w->run = -1;
	w->fresh = true;
}

/* How a dead worker ended, in words. */
static void worker_reap(struct worker *w, char *why, size_t len)
{
	int status = 0;

	close(w->sock);
	while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status))
		snprintf(why, len, "the worker process died of signal %d", WTERMSIG(status));
	else
		snprintf(why, len, "the worker process exited with status %d", WEXITSTATUS(status));
	w->pid = 0;
}

/* The row a worker sends for its run, or a failed row saying how it ended. */
static void collect(struct sweep_sink *s, struct worker *w, struct job *jobs)
{
	struct job *j = &jobs[w->run];
	struct job_head h;
	char why[128];

	j->done = true;
	if (read_all(w->sock, &h, sizeof(h))) {
		if (!(j->thr = malloc(h.tlen + 1)))
			die_errno("a worker's threads rows");
	}
	if (j->thr && read_all(w->sock, j->thr, h.tlen)) {
		j->failed = h.failed;
		j->res = h.res;
		j->tlen = h.tlen;
		s->rc |= h.files_failed; /* the command exits 1, as without --jobs */
		w->run = -1;
		return;
	}
	free(j->thr);
	j->thr = NULL;
	j->tlen = 0;
	worker_reap(w, why, sizeof(why));
	sweep_lost(&s->o->cfg, s->todo[w->run], &j->res, why);
	j->failed = 1;
	w->run = -1;
}

/* Every worker ends: killed (kill), or told there is no more work. */
static void end_workers(struct worker *ws, unsigned n, bool kill_them)
{
	for (unsigned k = 0; k < n; k++) {
		struct worker *w = &ws[k];

		if (!w->pid)
			continue;
		if (kill_them)
			kill(w->pid, SIGKILL);
		close(w->sock);
		while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
			;
		w->pid = 0;
	}
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

/* A worker that died between two runs: a new one in its place. */
static void worker_replace(struct sweep_sink *s, struct worker *ws, unsigned n, struct worker *w)
{
	char why[128];

	worker_reap(w, why, sizeof(why));
	fprintf(stderr, "locklab-%s: between two runs %s; a new one goes on\n", backend_name, why);
	worker_start(s, ws, n, w);
}

/* Hand run i to w (started if none), or to a new worker if w died since
 * its last run. */
static void give_run(struct sweep_sink *s, struct worker *ws, unsigned n, struct worker *w,
		     size_t i)
{
	if (!w->pid)
		worker_start(s, ws, n, w);
	if (!send_all(w->sock, &i, sizeof(i))) {
		worker_replace(s, ws, n, w);
		if (!send_all(w->sock, &i, sizeof(i)))
			die_errno("handing a run to a new worker");
	}
	w->run = (long)i;
	w->started = false;
}

/* w has something to say: that it started its run, or its row.  A worker
 * that ends before it started the run died between runs: a new one takes
 * the run, unless it was new itself (then the run fails as in a crash), or
 * the sweep is stopping (no run starts then; the run has no row). */
static void hear(struct sweep_sink *s, struct worker *ws, unsigned n, struct worker *w,
		 struct job *jobs, bool stopping)
{
	size_t run = (size_t)w->run; /* worker_replace forgets it */
	char c;

	if (w->started) {
		collect(s, w, jobs);
	} else if (read_all(w->sock, &c, 1)) {
		w->started = true;
		w->fresh = false;
	} else if (w->fresh) {
		collect(s, w, jobs); /* reads the end: the run's failed row */
	} else {
		worker_replace(s, ws, n, w);
		if (stopping)
			w->run = -1;
		else
			give_run(s, ws, n, w, run);
	}
}

/* Give every idle worker the next run (starting workers as needed);
 * returns how many workers have a run. */
static unsigned hand_out(struct sweep_sink *s, struct worker *ws, unsigned n, size_t *next,
			 bool stopping)
{
	unsigned busy = 0;

	for (unsigned k = 0; k < n; k++) {
		struct worker *w = &ws[k];

		if (w->run < 0 && *next < s->ntodo && !stopping)
			give_run(s, ws, n, w, (*next)++);
		busy += w->run >= 0;
	}
	return busy;
}

/* Workers the open-file limit allows (a socket each, and room for the
 * sweep's own files): the soft limit is raised toward the hard one first. */
static unsigned fit_fd_limit(unsigned njobs)
{
	const rlim_t spare = 64;
	struct rlimit l;

	if (getrlimit(RLIMIT_NOFILE, &l) || l.rlim_cur >= njobs + spare)
		return njobs;
	if (l.rlim_max == RLIM_INFINITY || l.rlim_max > njobs + spare)
		l.rlim_cur = njobs + spare;
	else
		l.rlim_cur = l.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &l) || getrlimit(RLIMIT_NOFILE, &l))
		return njobs;
	if (l.rlim_cur >= njobs + spare)
		return njobs;
	njobs = l.rlim_cur > spare + 1 ? (unsigned)(l.rlim_cur - spare) : 1;
	fprintf(stderr, "locklab-%s: --jobs: %u worker processes at most (the open-file limit, "
		"ulimit -n, is %llu)\n", backend_name, njobs, (unsigned long long)l.rlim_cur);
	return njobs;
}

void jobs_run(struct sweep_sink *s, unsigned njobs, volatile sig_atomic_t *stop)
{
	struct job *jobs = calloc(s->ntodo, sizeof(*jobs));
	struct worker *ws;
	struct pollfd *pf;
	size_t next = 0;
	bool ended = false, told = false;
	sigset_t stops, before, waiting; /* the stops are taken inside ppoll only: none is missed */

	if (njobs > s->ntodo)
		njobs = (unsigned)s->ntodo;
	njobs = fit_fd_limit(njobs);
	ws = calloc(njobs, sizeof(*ws));
	pf = calloc(njobs, sizeof(*pf));

	if (!jobs || !ws || !pf) {
		fprintf(stderr, "locklab-%s: out of memory\n", backend_name);
		exit(1);
	}
	for (unsigned k = 0; k < njobs; k++)
		ws[k].run = -1;
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigprocmask(SIG_BLOCK, &stops, &before);
	waiting = before;
	sigdelset(&waiting, SIGINT);
	sigdelset(&waiting, SIGTERM);
	sweep_progress(s);
	while (s->done < s->ntodo && !ended) {
		unsigned busy = hand_out(s, ws, njobs, &next, *stop), np = 0;

		if (!busy)
			break;
		if (*stop && !told) { /* the runs in progress end there */
			for (unsigned k = 0; k < njobs; k++)
				if (ws[k].run >= 0)
					kill(ws[k].pid, SIGUSR1);
			told = true;
		}
		for (unsigned k = 0; k < njobs; k++)
			if (ws[k].run >= 0)
				pf[np++] = (struct pollfd){ .fd = ws[k].sock, .events = POLLIN };
		if (ppoll(pf, np, NULL, &waiting) < 0) {
			if (errno == EINTR)
				continue;
			die_errno("poll");
		}
		for (unsigned k = 0, p = 0; k < njobs && !ended; k++) {
			if (ws[k].run < 0)
				continue;
			if (pf[p++].revents)
				hear(s, ws, njobs, &ws[k], jobs, *stop);
			if (!commit_ready(s, jobs)) {
				end_workers(ws, njobs, true);
				ended = true;
			}
		}
	}
	end_workers(ws, njobs, ended);
	sigprocmask(SIG_SETMASK, &before, NULL);
	for (size_t i = 0; i < s->ntodo; i++)
		free(jobs[i].thr);
	free(jobs);
	free(ws);
	free(pf);
}
