/*
 * native/tools/filelock.c - `locklab-native filelock`: the kernel's file locks
 * under contention, in the manner of Jeff Layton's lockperf.
 *
 * N processes (forked, each pinned by the --pin policy with hwloc) each take
 * and drop a lock `iterations` times, as fast as they can:
 *
 *   flock   flock(fd, LOCK_EX); flock(fd, LOCK_UN)
 *   posix   fcntl(fd, F_SETLKW, write lock on the whole file);
 *           fcntl(fd, F_SETLK, unlock)
 *   lease   fcntl(fd, F_SETLEASE, type); fcntl(fd, F_SETLEASE, F_UNLCK)
 *
 * and each test runs in two modes:
 *
 *   shared   every process opens the one file: flock and posix contend
 *            for one lock (waiters sleep in the kernel and are woken on
 *            each unlock); leases are read leases (F_RDLCK), which do
 *            not exclude each other but share the inode's lock list
 *   private  each process opens a file of its own: nothing contends for a
 *            lock, so what is left is the cost of the calls and of any
 *            state the kernel shares between files (a global lock or
 *            list, a cache line every CPU writes); leases are write
 *            leases (F_WRLCK), allowed because nobody else has the file
 *            open
 *
 * One run: fork the processes; each opens its file, pins itself, says it
 * is ready and blocks on a pipe; when all are ready the parent notes the
 * time and closes the pipe, so that they start together; each notes when
 * it finished.  The run's figure is the time from the start to the last
 * process's finish.  Over --runs runs the table shows, as lockperf does,
 * mean, variance, sigma, max and min of that time (ms), and the lock and
 * unlock pairs per second it amounts to.
 *
 * Leases need a file the caller owns (or CAP_LEASE) on a filesystem that
 * grants them (tmpfs and ext4 do; NFS and some FUSE filesystems do not):
 * the directory is probed first and a refusal is one line.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../../core/filelock_cli.h"
#include <unistd.h>

#include <locklab/backend.h>
#include <locklab/mem.h>
#include <locklab/result.h>
#include <locklab/stats.h>

#include "filelock.h"
#include "validate.h"

/* Shared between the parent and the processes of one run. */
struct fl_shared {
	unsigned ready;
	int failed;
	char failure[256];
	uint64_t end_ns[FL_MAX_PROCS];
};

/* ------------------------------------------------------------ files */

struct fl_files {
	char dir[512];
	unsigned n; /* private files made */
};

static void file_name(const struct fl_files *f, bool shared, unsigned i, char *out, size_t len)
{
	if (shared)
		snprintf(out, len, "%s/shared", f->dir);
	else
		snprintf(out, len, "%s/p%u", f->dir, i);
}

static int make_file(const char *path)
{
	int fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* Where the files go: --dir, $TMPDIR or /tmp. */
static const char *files_base(const struct fl_opts *o)
{
	const char *base = o->dir ? o->dir : getenv("TMPDIR");

	return base && *base ? base : "/tmp";
}

static int make_files(const struct fl_opts *o, struct fl_files *f)
{
	const char *base = files_base(o);
	char path[600];

	if (snprintf(f->dir, sizeof(f->dir), "%s/locklab-filelock.XXXXXX", base) >=
	    (int)sizeof(f->dir))
		return fl_bad("--dir: '%s' is too long", base);
	if (!mkdtemp(f->dir))
		return fl_bad("cannot make a directory in %s: %s", base, strerror(errno));
	file_name(f, true, 0, path, sizeof(path));
	if (make_file(path))
		return fl_bad("cannot create %s: %s", path, strerror(errno));
	for (f->n = 0; f->n < o->procs; f->n++) {
		file_name(f, false, f->n, path, sizeof(path));
		if (make_file(path))
			return fl_bad("cannot create %s: %s", path, strerror(errno));
	}
	return 0;
}

static void remove_files(struct fl_files *f)
{
	char path[600];

	if (!f->dir[0] || strstr(f->dir, "XXXXXX"))
		return;
	file_name(f, true, 0, path, sizeof(path));
	unlink(path);
	for (unsigned i = 0; i < f->n; i++) {
		file_name(f, false, i, path, sizeof(path));
		unlink(path);
	}
	rmdir(f->dir);
}

/* Leases: can this directory's filesystem grant one to us?  Asked before
 * any test runs (a refusal after flock and posix would lose their runs);
 * named as given (dir: --dir, or where the files went). */
static int probe_lease(const struct fl_files *f, const char *dir)
{
	char path[600];
	int fd, rc = 0;

	file_name(f, false, 0, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fl_bad("cannot open %s: %s", path, strerror(errno));
	if (fcntl(fd, F_SETLEASE, F_WRLCK) || fcntl(fd, F_SETLEASE, F_UNLCK))
		rc = fl_bad("lease: the filesystem of %s refuses leases (%s); try --dir on tmpfs or ext4",
			    dir, strerror(errno));
	close(fd);
	return rc;
}

/* ------------------------------------------------------- the loop */

static int retry(int rc)
{
	return rc && errno == EINTR ? 1 : 0;
}

static int lock_once(enum fl_test t, int fd, bool shared)
{
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int rc;

	switch (t) {
	case FL_FLOCK:
		while (retry(rc = flock(fd, LOCK_EX)))
			;
		return rc ? rc : flock(fd, LOCK_UN);
	case FL_POSIX:
		while (retry(rc = fcntl(fd, F_SETLKW, &l)))
			;
		if (rc)
			return rc;
		l.l_type = F_UNLCK;
		return fcntl(fd, F_SETLK, &l);
	default:
		rc = fcntl(fd, F_SETLEASE, shared ? F_RDLCK : F_WRLCK);
		return rc ? rc : fcntl(fd, F_SETLEASE, F_UNLCK);
	}
}

__attribute__((format(printf, 2, 3)))
static void child_fail(struct fl_shared *sh, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&sh->failed, 1, __ATOMIC_ACQ_REL))
		_exit(1);
	va_start(ap, fmt);
	vsnprintf(sh->failure, sizeof(sh->failure), fmt, ap);
	va_end(ap);
	_exit(1);
}

struct fl_run {
	const struct fl_opts *o;
	enum fl_test test;
	bool shared;
	const struct fl_files *files;
	struct fl_shared *sh;
	int go[2];
	int cpus[FL_MAX_PROCS];
};

static void child(const struct fl_run *r, unsigned i)
{
	struct fl_shared *sh = r->sh;
	char path[600], where[48], c;
	int fd, err;

	close(r->go[1]);
	if ((err = native_pin_apply(r->cpus[i])))
		child_fail(sh, "process %u: cannot bind to %s: %s", i,
			   native_pin_text(r->cpus[i], where, sizeof(where)), strerror(err));
	file_name(r->files, r->shared, i, path, sizeof(path));
	fd = open(path, (r->test == FL_LEASE ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (fd < 0)
		child_fail(sh, "process %u: cannot open %s: %s", i, path, strerror(errno));
	__atomic_add_fetch(&sh->ready, 1, __ATOMIC_ACQ_REL);
	while (read(r->go[0], &c, 1) < 0 && errno == EINTR)
		;
	for (uint64_t k = 0; k < r->o->iterations; k++)
		if (lock_once(r->test, fd, r->shared))
			child_fail(sh, "process %u: %s: %s", i, fl_test_names[r->test], strerror(errno));
	__atomic_store_n(&sh->end_ns[i], ll_now_ns(), __ATOMIC_RELEASE);
	close(fd);
	_exit(0);
}

static void kill_all(const pid_t *pids, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
}

/* Reaps every process; -1 when one failed or the deadline passed. */
static int reap(struct fl_run *r, pid_t *pids, unsigned n, uint64_t deadline)
{
	unsigned left = n;
	int rc = 0;

	while (left) {
		int status;
		pid_t p = waitpid(-1, &status, WNOHANG);

		if (p < 0 && errno != EINTR)
			break;
		if (p <= 0) {
			struct timespec d = { 0, 1000000 };

			if (ll_now_ns() > deadline && !rc) {
				snprintf(r->sh->failure, sizeof(r->sh->failure),
					 "a run took longer than %llu s (--timeout)",
					 (unsigned long long)r->o->timeout_s);
				r->sh->failed = 1;
				kill_all(pids, n);
				rc = -1;
			}
			nanosleep(&d, NULL);
			continue;
		}
		for (unsigned i = 0; i < n; i++)
			if (pids[i] == p)
				pids[i] = 0;
		left--;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			if (!r->sh->failed)
				snprintf(r->sh->failure, sizeof(r->sh->failure),
					 "a process died (status 0x%x)", status);
			r->sh->failed = 1;
			kill_all(pids, n);
			rc = -1;
		}
	}
	return rc;
}

/* Waits until every process is ready, or one has failed or died (seen
 * without reaping it: reap() does that). */
static void wait_ready(struct fl_run *r, unsigned n)
{
	while (__atomic_load_n(&r->sh->ready, __ATOMIC_ACQUIRE) < n &&
	       !__atomic_load_n(&r->sh->failed, __ATOMIC_ACQUIRE)) {
		struct timespec d = { 0, 200000 };
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid)
			return;
		nanosleep(&d, NULL);
	}
}

/* One run; its time in seconds, or a negative value on failure. */
static double one_run(struct fl_run *r)
{
	unsigned n = r->o->procs;
	pid_t *pids = calloc(n, sizeof(*pids));
	uint64_t start, end = 0;
	unsigned made = 0;

	if (!pids || pipe2(r->go, O_CLOEXEC)) {
		free(pids);
		snprintf(r->sh->failure, sizeof(r->sh->failure), "out of memory or pipes");
		return -1;
	}
	memset(r->sh, 0, sizeof(*r->sh));
	fflush(NULL);
	for (; made < n; made++) {
		pids[made] = fork();
		if (pids[made] == 0)
			child(r, made);
		if (pids[made] < 0) {
			snprintf(r->sh->failure, sizeof(r->sh->failure), "cannot fork: %s",
				 strerror(errno));
			r->sh->failed = 1;
			break;
		}
	}
	close(r->go[0]);
	if (!r->sh->failed)
		wait_ready(r, n);
	start = ll_now_ns();
	close(r->go[1]);
	if (reap(r, pids, made, start + r->o->timeout_s * 1000000000ull) || r->sh->failed) {
		free(pids);
		return -1;
	}
	for (unsigned i = 0; i < n; i++)
		if (r->sh->end_ns[i] > end)
			end = r->sh->end_ns[i];
	free(pids);
	return (double)(end - start) / 1e9;
}

/* ------------------------------------------------------- the output */

struct fl_result {
	enum fl_test test;
	bool shared;
	double *secs; /* runs of them */
};

static void table_heading(const struct fl_opts *o, enum fl_test t)
{
	printf("\n%s  procs=%u iterations=%llu pin=%s on host %s (the rows' name for this machine)   "
	       "(time per run, ms; variance in ms^2)\n", fl_test_names[t], o->procs,
	       (unsigned long long)o->iterations, o->pin_text, backend_topo_name(NULL));
	printf("%-*s %12s %12s %12s %12s %12s\n", FLW_LABEL_W, "", "mean", "variance", "sigma",
	       "max", "min");
}

static void table_row(const struct fl_opts *o, const struct fl_result *r)
{
	static double ms[FL_MAX_RUNS];
	struct ll_summary s;
	char label[128];
	const char *mode = !r->shared ? (r->test == FL_LEASE ? "private files, write leases"
						     : "private files")
			   : r->test == FL_LEASE ? "shared file, read leases"
						 : "shared file";

	for (unsigned i = 0; i < o->runs; i++)
		ms[i] = r->secs[i] * 1e3;
	ll_summarize(ms, o->runs, &s);
	snprintf(label, sizeof(label), "native %s %s%s", backend_topo_name(NULL), mode,
		 o->oversubscribed ? " *" : "");
	if (o->runs == 1)
		printf("%-*s %12.4f   (single run: no variance)", FLW_LABEL_W, label, s.mean);
	else
		printf("%-*s %12.4f %12.3e %12.4f %12.4f %12.4f  ( sigma/mean %.2f%% )", FLW_LABEL_W, label, s.mean,
		       s.variance, s.sigma, s.max, s.min, s.mean > 0 ? 100 * s.sigma / s.mean : 0);
	printf("\n%-*s %12.0f lock+unlock pairs/s (all processes, over the mean time)\n", FLW_LABEL_W, "",
	       s.mean > 0 ? (double)o->procs * (double)o->iterations / (s.mean / 1e3) : 0);
}

struct fl_csv {
	const struct fl_opts *o;
	const struct fl_result *res;
	unsigned n;
};

static void csv_rows(FILE *f, const void *arg)
{
	const struct fl_csv *c = arg;
	const struct fl_opts *o = c->o;
	const struct fl_result *res = c->res;

	fprintf(f, "backend,host,test,mode,procs,iterations,pin,run,seconds,pairs_per_s,"
		   "oversubscribed\n");
	for (unsigned k = 0; k < c->n; k++)
		for (unsigned i = 0; i < o->runs; i++) {
			double s = res[k].secs[i];

			fputs("native,", f);
			output_csv_field(f, backend_topo_name(NULL)); /* as run's CSV */
			fprintf(f, ",%s,%s,%u,%llu,", fl_test_names[res[k].test], res[k].shared ? "shared" : "private",
				o->procs, (unsigned long long)o->iterations);
			output_csv_field(f, o->pin_text); /* list:0,1 holds commas */
			fprintf(f, ",%u,%.9f,%.2f,%s\n", i, s,
				s > 0 ? (double)o->procs * (double)o->iterations / s : 0,
				o->oversubscribed ? "true" : "false");
		}
}

static int write_csv(const struct fl_opts *o, const struct fl_result *res, unsigned n)
{
	struct fl_csv c = { o, res, n };

	return write_text_atomic(o->csv, csv_rows, &c);
}

/* ------------------------------------------------------- the command */

/* More processes than the CPUs their placement gives them: said once on
 * stderr and marked *, as run marks its rows (native/oversub.c). */
static void oversubscription(struct fl_opts *o)
{
	struct wl_config c = o->pin.cfg;

	c.threads[0] = o->procs;
	c.nthreads = 1;
	c.vm_vcpus = 0;
	c.count_opt = "--procs";
	native_warn_oversubscribed(&c);
	o->oversubscribed = native_oversubscribed(&c, o->procs, 0);
}

static int run_one_test(struct fl_run *r, struct fl_result *res)
{
	res->test = r->test;
	res->shared = r->shared;
	res->secs = calloc(r->o->runs, sizeof(double));
	if (!res->secs)
		return fl_bad("out of memory");
	for (unsigned i = 0; i < r->o->runs; i++) {
		res->secs[i] = one_run(r);
		if (res->secs[i] < 0) {
			ll_say("filelock", "%s, %s: %s", fl_test_names[r->test],
			       r->shared ? "shared file" : "private files", r->sh->failure);
			return 3;
		}
	}
	return 0;
}

static int run_tests(struct fl_opts *o, struct fl_run *r, struct fl_result *res, unsigned *nres)
{
	int rc = 0;

	for (int t = 0; t < FL_NTESTS && !rc; t++) {
		if (!o->test[t])
			continue;
		table_heading(o, (enum fl_test)t);
		for (int mode = 0; mode < 2 && !rc; mode++) {
			if (!(mode == 0 ? o->shared : o->private))
				continue;
			r->test = (enum fl_test)t;
			r->shared = mode == 0;
			rc = run_one_test(r, &res[*nres]);
			(*nres)++;
			if (!rc)
				table_row(o, &res[*nres - 1]);
			fflush(stdout);
		}
	}
	return rc;
}

int native_filelock_main(int argc, char **argv)
{
	static struct fl_opts o;
	static struct fl_run r;
	struct fl_result res[2 * FL_NTESTS];
	struct fl_files files;
	unsigned nres = 0;
	char err[4400];
	int rc;

	memset(&files, 0, sizeof(files));
	memset(res, 0, sizeof(res));
	rc = fl_parse_opts(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : rc; /* 1: --help */
	if (native_pin_check(&o.pin.cfg, o.procs, err, sizeof(err)) ||
	    (o.csv && outfile_check("--csv", o.csv, err, sizeof(err))))
		return fl_bad("%s", err);
	oversubscription(&o);
	memset(&r, 0, sizeof(r));
	r.o = &o;
	r.files = &files;
	native_pin_plan(&o.pin.cfg, o.procs, r.cpus);
	r.sh = mmap(NULL, sizeof(*r.sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r.sh == MAP_FAILED)
		return fl_bad("cannot map shared memory: %s", strerror(errno));
	rc = make_files(&o, &files);
	if (!rc && o.test[FL_LEASE])
		rc = probe_lease(&files, files_base(&o));
	if (!rc)
		rc = run_tests(&o, &r, res, &nres);
	if (!rc && o.oversubscribed) /* the mark's legend goes with the table */
		printf("\n*: more processes than the CPUs their placement gives them: each waits "
		       "for a CPU as well as for the lock\n");
	remove_files(&files);
	if (!rc && o.csv && write_csv(&o, res, nres)) {
		ll_say("filelock", "cannot write %s: %s", o.csv, strerror(errno));
		rc = 1;
	}
	for (unsigned i = 0; i < nres; i++)
		free(res[i].secs);
	munmap(r.sh, sizeof(*r.sh));
	return rc;
}
