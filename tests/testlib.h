/*
 * tests/testlib.h - what the test programs share: a temporary directory,
 * running a program and capturing what it prints, a workload run of one
 * lock through backend_run as the binaries do it, and the command line that
 * repeats such a run.  Header-only: every test program includes it once.
 *
 * Run seeds come from run_seed() (include/locklab/rng.h), as in the
 * binaries: repetition idx of a test's configuration with seed S is run idx
 * of `locklab-... run --seed S --runs idx+1`, so a figure a test prints
 * can be had again from the command line (tl_print_command).
 */
#ifndef TESTS_TESTLIB_H
#define TESTS_TESTLIB_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <locklab/backend.h>
#include <locklab/lock.h>
#include <locklab/mem.h>
#include <locklab/rng.h>
#include <locklab/workload.h>

/* ------------------------------------------------ the temporary directory */

/* The directory tl_tmpdir_make() made: /tmp/locklab-<program>.XXXXXX. */
static inline char *tl_tmpdir(void)
{
	static char dir[256];

	return dir;
}

static inline int tl_tmpdir_make(void)
{
	snprintf(tl_tmpdir(), 256, "/tmp/locklab-%s.XXXXXX", program_invocation_short_name);
	return mkdtemp(tl_tmpdir()) ? 0 : -1;
}

static inline int tl_tmpdir_remove(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tl_tmpdir());
	return system(cmd) == 0 ? 0 : -1;
}

/* As cmocka group setup and teardown. */
static inline int tl_tmpdir_setup(void **state)
{
	return tl_tmpdir_make();
}

static inline int tl_tmpdir_teardown(void **state)
{
	return tl_tmpdir_remove();
}

/* name inside the temporary directory; the last 32 answers stay valid. */
static inline char *tl_path(const char *name)
{
	static char buf[32][320];
	static int k;

	k = (k + 1) % 32;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tl_tmpdir(), name);
	return buf[k];
}

/* A whole file, NUL-terminated (malloc'd; NULL if it cannot be read). */
static inline char *tl_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb"), *m;
	char *buf = NULL, chunk[4096];
	size_t n, size = 0;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &size);
	assert_non_null(m);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(f);
	fclose(m);
	if (len)
		*len = size;
	return buf;
}

/* tl_slurp that fails the test when path cannot be read. */
static inline char *tl_slurp_ok(const char *path, size_t *len)
{
	char *buf = tl_slurp(path, len);

	if (!buf)
		fail_msg("cannot read %s", path);
	return buf;
}

/* Column name's index in the CSV header line hdr, or -1. */
static inline int tl_csv_column(const char *hdr, const char *name)
{
	size_t n = strlen(name);
	int i = 0;

	for (const char *p = hdr; p && *p && *p != '\n'; i++) {
		if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == '\n' || !p[n]))
			return i;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return -1;
}

/* Field i of the CSV line at p, as a number (the test fails where the line
 * has fewer fields). */
static inline double tl_csv_field(const char *p, int i)
{
	while (i-- > 0 && p)
		p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
	assert_non_null(p);
	return strtod(p, NULL);
}

/* Column name of the CSV row at row, whose header is the line at hdr. */
static inline double tl_csv_value(const char *hdr, const char *row, const char *name)
{
	int i = tl_csv_column(hdr, name);

	if (i < 0)
		fail_msg("no column %s", name);
	return tl_csv_field(row, i);
}

/* snprintf that fails the test rather than truncate. */
static inline void tl_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static inline void tl_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		fail_msg("a path or command longer than %zu bytes", len);
}

/* ------------------------------------------------ running a program */

/* What a program printed and how it ended. */
struct tl_proc {
	int status; /* exit status, or 128 + the signal that ended it */
	char *out, *err;
};

static inline void tl_proc_free(struct tl_proc *p)
{
	free(p->out);
	free(p->err);
	p->out = p->err = NULL;
}

/* Reads both pipes to their ends, whichever the child fills first. */
static inline void tl_drain(int out_fd, int err_fd, struct tl_proc *p)
{
	struct pollfd pf[2] = { { .fd = out_fd, .events = POLLIN }, { .fd = err_fd, .events = POLLIN } };
	size_t len[2];
	FILE *m[2] = { open_memstream(&p->out, &len[0]), open_memstream(&p->err, &len[1]) };
	char chunk[4096];
	int open = 2;

	assert_true(m[0] && m[1]);
	while (open) {
		if (poll(pf, 2, -1) < 0) {
			assert_int_equal(errno, EINTR);
			continue;
		}
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (pf[i].fd < 0 || !pf[i].revents)
				continue;
			n = read(pf[i].fd, chunk, sizeof(chunk));
			if (n > 0) {
				fwrite(chunk, 1, (size_t)n, m[i]);
			} else if (n == 0 || errno != EINTR) {
				close(pf[i].fd);
				pf[i].fd = -1;
				open--;
			}
		}
	}
	fclose(m[0]);
	fclose(m[1]);
}

/* Runs argv (argv[0] a path) with its stdout and stderr into p; returns
 * the exit status.  The caller calls tl_proc_free(p). */
/* Limits for a child: address space in bytes (0: none), and wall-clock
 * seconds after which SIGALRM ends it (0: none; exit status 128 + 14). */
struct tl_limits {
	unsigned long long as_bytes;
	unsigned wall_s;
};

static inline void tl_apply_limits(const struct tl_limits *lim)
{
	struct rlimit as = { lim->as_bytes, lim->as_bytes }, core = { 0, 0 };

	if (lim->as_bytes)
		setrlimit(RLIMIT_AS, &as);
	setrlimit(RLIMIT_CORE, &core);
	signal(SIGALRM, SIG_DFL);
	alarm(lim->wall_s); /* survives execv */
}

static inline int tl_exec_limited(struct tl_proc *p, char *const argv[], const struct tl_limits *lim)
{
	int po[2], pe[2], st;
	pid_t pid;

	memset(p, 0, sizeof(*p));
	assert_int_equal(pipe(po), 0);
	assert_int_equal(pipe(pe), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		if (lim)
			tl_apply_limits(lim);
		execv(argv[0], argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	tl_drain(po[0], pe[0], p);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	p->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return p->status;
}

static inline int tl_exec(struct tl_proc *p, char *const argv[])
{
	return tl_exec_limited(p, argv, NULL);
}

/* A shell command line.  With p NULL, what it prints is dropped but for
 * its stderr, passed on to ours. */
static inline int tl_sh(struct tl_proc *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline int tl_sh(struct tl_proc *p, const char *fmt, ...)
{
	struct tl_proc own;
	char *cmd;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	assert_true(rc >= 0);
	rc = tl_exec(p ? p : &own, (char *const[]){ "/bin/sh", "-c", cmd, NULL });
	free(cmd);
	if (!p) {
		fputs(own.err, stderr);
		tl_proc_free(&own);
	}
	return rc;
}

/* dir/prog with the arguments of the NULL-terminated args. */
static inline int tl_bin(struct tl_proc *p, const char *dir, const char *prog, const char *const *args)
{
	char path[1024];
	char *argv[64];
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, prog);
	argv[n++] = path;
	while (*args && n < 63)
		argv[n++] = (char *)*args++;
	assert_null(*args);
	argv[n] = NULL;
	return tl_exec(p, argv);
}

/* argv must exit with status; if not, the test fails showing its output. */
static inline void tl_expect_exit(char *const argv[], int status)
{
	struct tl_proc p;

	if (tl_exec(&p, argv) != status)
		fail_msg("%s %s: exit status %d, not %d\n%s%s", argv[0], argv[1] ? argv[1] : "",
			 p.status, status, p.out, p.err);
	tl_proc_free(&p);
}

/* Bad input refused: exit status 2, and one line on stderr naming needle. */
static inline void tl_expect_refused(const struct tl_proc *p, const char *needle)
{
	const char *nl = strchr(p->err, '\n');

	if (p->status != 2 || !nl || nl[1] || !strstr(p->err, needle))
		fail_msg("status %d, stderr '%s': wanted 2 and one line naming '%s'", p->status,
			 p->err, needle);
}

/* dir/locklab-sim with args (words for the shell) must refuse them. */
static inline void tl_sim_refused(const char *dir, const char *args, const char *needle)
{
	struct tl_proc p;

	tl_sh(&p, "%s/locklab-sim %s", dir, args);
	tl_expect_refused(&p, needle);
	tl_proc_free(&p);
}

/* dir/prog with args must refuse them (tl_expect_refused). */
static inline void tl_bin_refused(const char *dir, const char *prog, const char *const *args,
				  const char *needle)
{
	struct tl_proc p;

	tl_bin(&p, dir, prog, args);
	tl_expect_refused(&p, needle);
	tl_proc_free(&p);
}

/* fn(argc, argv) in this process, its stdout and stderr into the file log. */
static inline int tl_call(int (*fn)(int, char **), int argc, char **argv, const char *log)
{
	int saved_out = dup(1), saved_err = dup(2);
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int rc;

	assert_true(fd >= 0);
	fflush(NULL);
	dup2(fd, 1);
	dup2(fd, 2);
	rc = fn(argc, argv);
	fflush(NULL);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(fd);
	close(saved_out);
	close(saved_err);
	return rc;
}

/* text written to path (a fixture). */
static inline void tl_spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* fn(argc, argv) in this process, its output into the test directory's
 * call.log (tl_tmpdir_setup); then tl_expect_log looks there. */
static inline int tl_call_quiet(int (*fn)(int, char **), int argc, char **argv)
{
	return tl_call(fn, argc, argv, tl_path("call.log"));
}

static inline void tl_expect_log(const char *needle)
{
	char *log = tl_slurp(tl_path("call.log"), NULL);

	assert_non_null(log);
	if (!strstr(log, needle))
		fail_msg("expected '%s' in: %s", needle, log);
	free(log);
}

/* argv[1], the bin/ directory of the binaries; exits 2 without it. */
static inline const char *tl_bindir(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s BINDIR\n", argv[0]);
		exit(2);
	}
	return argv[1];
}

/* ------------------------------------------------ workload runs */

/* Sanitizer builds look for memory and data-race errors, which a few seeds
 * of a search reach as well as many: the plain build runs the full count,
 * these builds tl_sanitized_share() of it. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TL_SANITIZED 1
#else
#define TL_SANITIZED 0
#endif

/* n in the plain build, n / div (at least 1) under a sanitizer. */
static inline unsigned tl_sanitized_share(unsigned n, unsigned div)
{
	return TL_SANITIZED ? (n / div ? n / div : 1) : n;
}

static inline bool tl_is_sim(void)
{
	return !strcmp(backend_name, "sim");
}

/* backend_init with no options; in the simulator, load topo.  0 on success. */
static inline int tl_backend_start(const char *prog, const char *topo)
{
	char *args[] = { (char *)prog, NULL };
	int ac = 1;
	char err[256];

	if (backend_init(&ac, args))
		return 1;
	if (tl_is_sim() && topo && backend_parse_option("--topo", topo, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	return 0;
}

/* The main of a program whose tests share a temporary directory and one
 * machine, topo: the group's status; the directory is removed when every
 * test passed (a failure leaves it to look at). */
static inline int tl_group_on(const char *prog, const char *topo, const struct CMUnitTest *tests,
			      size_t n)
{
	int rc;

	if (tl_tmpdir_make()) {
		fprintf(stderr, "%s: cannot make a temporary directory\n", prog);
		return 1;
	}
	if (tl_backend_start(prog, topo))
		return 1;
	rc = _cmocka_run_group_tests("tests", tests, n, NULL, NULL);
	backend_fini();
	if (!rc && tl_tmpdir_remove())
		fprintf(stderr, "%s: could not remove %s\n", prog, tl_tmpdir());
	return rc;
}

static inline void tl_set_pin(struct wl_config *c, enum pin_policy p)
{
	c->pin = p;
	c->pin_text = p == PIN_SCATTER ? "scatter" : p == PIN_NONE ? "none" : "compact";
}

/*
 * The workload most tests drive, on topo (the simulator's; natively
 * ignored) with seed: sections of 20 ns writing 2 lines, exponential 50 ns
 * between them, one lock, threads placed compact; a test sets its length
 * (ops or duration_ms) and changes what it needs.
 */
static inline void tl_config(struct wl_config *c, const char *topo, uint64_t seed)
{
	wl_config_defaults(c);
	c->cs_ns = 20;
	c->ncs_ns = 50;
	c->ncs_exp = true;
	c->cs_lines = 2;
	c->topo = topo;
	c->seed = seed;
}

/* The binaries' default sections on topo with seed: 50 ns writing one
 * line, a constant 200 ns between them; the rest as tl_config. */
static inline void tl_config_plain(struct wl_config *c, const char *topo, uint64_t seed)
{
	wl_config_defaults(c);
	c->topo = topo;
	c->seed = seed;
}

/*
 * One run of lock a with n threads under configuration c (its lock and
 * thread lists are overwritten), repetition idx: seeded run_seed(c->seed,
 * idx) as run idx of the binaries.  Fills *run and *cnt; returns non-zero
 * when the configuration is refused (err says why) or the run failed
 * (run->failure says why).  The caller inspects run, then calls tl_done().
 */
static inline int tl_run(struct wl_config *c, const struct lock_algo *a, unsigned n, unsigned idx,
			 struct wl_run *run, struct run_counters *cnt, char *err, size_t errlen)
{
	wl_config_only(c, a, n);
	memset(run, 0, sizeof(*run));
	memset(cnt, 0, sizeof(*cnt));
	if (backend_check(c, err, errlen))
		return -1;
	run->cfg = c;
	run->algo = a;
	run->nthreads = n;
	run->run_index = idx;
	run->seed = run_seed(c->seed, idx);
	if (c->vm_vcpus) { /* as core/main.c: the first overcommit of the list */
		run->overcommit = c->overcommit[0];
		run->vm_pcpus = wl_vm_pcpus(c->vm_vcpus, run->overcommit);
	}
	run->threads = calloc(n, sizeof(*run->threads));
	if (!run->threads) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return backend_run(run, cnt) || run->failed;
}

/* tl_run that must succeed: a refusal or a failed run fails the test and
 * prints why (err or run->failure), not only that it returned non-zero. */
#define tl_run_ok(c, a, n, idx, run, cnt)                                              \
	do {                                                                           \
		char tl_err_[512] = "";                                                \
		if (tl_run((c), (a), (n), (idx), (run), (cnt), tl_err_, sizeof(tl_err_))) \
			fail_msg("run of '%s' with %u threads failed: %s%s", (a)->name, \
				 (unsigned)(n), tl_err_, (run)->failure);               \
	} while (0)

/* Threads that left the loop (or were stopped by the checker): tear down. */
static inline void tl_done(struct wl_run *run)
{
	wl_teardown(run);
	free(run->threads);
	run->threads = NULL;
}

static inline uint64_t tl_acquisitions(const struct wl_run *run)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < run->nthreads; i++)
		n += run->threads[i].acquisitions;
	return n;
}

/* Count `name` of a's own counts (lock_algo.counts) in n, the totals of
 * wl_counts_sum: looked up by name, so that a test never reads one count
 * for another.  Fails the test when a keeps no such count. */
static inline uint64_t tl_count(const struct lock_algo *a, const uint64_t *n, const char *name)
{
	for (unsigned k = 0; k < LL_MAX_COUNTS && a->counts[k]; k++)
		if (!strcmp(a->counts[k], name))
			return n[k];
	fail_msg("%s keeps no count '%s'", a->name, name);
	return 0;
}

/* The run's own counts into n (and added to sum, when not NULL); how many. */
static inline unsigned tl_counts(uint64_t n[LL_MAX_COUNTS], uint64_t sum[LL_MAX_COUNTS])
{
	unsigned k, nc = wl_counts_sum(n);

	for (k = 0; sum && k < nc; k++)
		sum[k] += n[k];
	return nc;
}

/* pv-ticket's own counts (algorithms/pv-ticket.c names them) against its
 * run: its calls to halt (the slow waits less those that found the lock
 * theirs) are at least the halts that slept, and its unlocks' kicks at
 * least the kicks that woke one; the pickups are some of the slow waits.
 * Fails the test with the figures; adds the counts to sum (when not NULL). */
static inline void tl_pvt_counts_agree(const struct wl_run *run, const struct run_counters *cnt,
				       uint64_t sum[LL_MAX_COUNTS])
{
	uint64_t n[LL_MAX_COUNTS];
	const struct lock_algo *a = run->algo;

	assert_int_equal(tl_counts(n, sum), 3);
	uint64_t slow = tl_count(a, n, "taken_slow"), pickup = tl_count(a, n, "taken_slow_pickup");
	uint64_t kicked = tl_count(a, n, "released_slow_kicked");

	if (pickup > slow || cnt->vm.halts > slow - pickup || cnt->vm.kicks > kicked) {
		fprintf(stderr, "pv-ticket: %llu acquisitions, slow waits %llu (%llu picked the "
				"lock up), kicks %llu; the run's halts %llu, kicks %llu\n",
			(unsigned long long)tl_acquisitions(run), (unsigned long long)slow,
			(unsigned long long)pickup, (unsigned long long)kicked,
			(unsigned long long)cnt->vm.halts, (unsigned long long)cnt->vm.kicks);
		fail();
	}
}

/* pv-qspinlock's own counts (algorithms/pv-qspinlock.c names them)
 * against its run: every acquisition by the free word, a steal or the
 * queue; the early halts some of the queued waiters' halts; the halts that
 * slept (the run's) some of its calls to halt, and the kicks that woke one
 * some of its unlocks' kicks.  Fails the test with the figures; adds the
 * counts to sum (when not NULL). */
static inline void tl_pvq_counts_agree(const struct wl_run *run, const struct run_counters *cnt,
				       uint64_t sum[LL_MAX_COUNTS])
{
	uint64_t n[LL_MAX_COUNTS];
	const struct lock_algo *a = run->algo;

	assert_int_equal(tl_counts(n, sum), 6);
	uint64_t steals = tl_count(a, n, "lock_stealing"), queued = tl_count(a, n, "slowpath");
	uint64_t node = tl_count(a, n, "wait_node"), early = tl_count(a, n, "wait_early");
	uint64_t head = tl_count(a, n, "wait_head"), kicks = tl_count(a, n, "kick_unlock");

	if (steals + queued > tl_acquisitions(run) || early > node ||
	    cnt->vm.halts > node + head || cnt->vm.kicks > kicks) {
		fprintf(stderr, "pv-qspinlock: %llu acquisitions, steals %llu, queued %llu, halts "
				"queued %llu (early %llu), at head %llu, kicks %llu; the run's halts "
				"%llu, kicks %llu\n",
			(unsigned long long)tl_acquisitions(run), (unsigned long long)steals,
			(unsigned long long)queued, (unsigned long long)node, (unsigned long long)early,
			(unsigned long long)head, (unsigned long long)kicks,
			(unsigned long long)cnt->vm.halts, (unsigned long long)cnt->vm.kicks);
		fail();
	}
}

/*
 * Prints (to stdout) the command (verb "run" or "explain") whose runs 0 ..
 * runs-1 are the test's repetitions 0 .. runs-1 of lock with n threads
 * under c; the CSV of `run --format csv` has a row per run.  Backend
 * options a test set with backend_parse_option are not in c: the caller
 * names them in extra.
 */
static inline void tl_print_command(const struct wl_config *c, const char *verb, const char *lock,
				    unsigned n, unsigned runs, const char *extra)
{
	char ncs[32], len[32], vm[64] = "", rd[32] = "";

	snprintf(ncs, sizeof(ncs), "%s%llu", c->ncs_exp ? "exp:" : "", (unsigned long long)c->ncs_ns);
	if (c->ops)
		snprintf(len, sizeof(len), "--ops %llu", (unsigned long long)c->ops);
	else
		snprintf(len, sizeof(len), "--duration %llu", (unsigned long long)c->duration_ms);
	if (c->vm_vcpus)
		snprintf(vm, sizeof(vm), " --vm %u --overcommit %g", c->vm_vcpus, c->overcommit[0]);
	else
		snprintf(vm, sizeof(vm), " --threads %u", n);
	if (c->read_pct)
		snprintf(rd, sizeof(rd), " --read-pct %u", c->read_pct);
	print_message("    $ bin/locklab-%s %s%s%s --lock %s%s --cs %llu --ncs %s --cs-lines %u "
		      "--locks %u%s%s --pin %s %s --seed %llu --runs %u%s%s\n",
		      backend_name, verb, tl_is_sim() && c->topo ? " --topo " : "",
		      tl_is_sim() && c->topo ? c->topo : "", lock, vm, (unsigned long long)c->cs_ns, ncs,
		      c->cs_lines, c->locks, c->lock_home == WL_HOME_SPREAD ? " --lock-home spread" : "",
		      rd, c->pin_text, len, (unsigned long long)c->seed, runs,
		      extra ? " " : "", extra ? extra : "");
}

/* ------------------------------------------------ locks broken on purpose */

struct tl_word_lock {
	uint64_t word;
} ll_cacheline_aligned;

static inline void tl_nop_init(void *lock, unsigned ncpus)
{
}

static inline void tl_nop(void *lock, void *ctx)
{
}

/* Waits for a value nobody writes: every taker parks on the lock word. */
static inline void tl_never_take(void *lock, void *ctx)
{
	struct tl_word_lock *l = lock;

	ll_wait_until(&l->word, VAL == 1);
}

/* A mutex nobody can take: a run of it ends in a deadlock. */
static inline const struct lock_algo *tl_never_lock(void)
{
	static const struct lock_algo never = {
		.name = "never", .desc = "waits for a value nobody writes (test only)",
		.kind = LOCK_MUTEX, .lock_size = sizeof(struct tl_word_lock), .init = tl_nop_init,
		.lock = tl_never_take, .unlock = tl_never_take,
	};

	return &never;
}

/* ------------------------------------------------ figures */

static inline int tl_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..n-1] (sorts v). */
static inline double tl_median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), tl_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
