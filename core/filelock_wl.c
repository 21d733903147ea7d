/*
 * core/filelock_wl.c - the file-lock path of Linux 4.1 (fs/locks.c) written
 * against <locklab/mem.h>, and the lockperf loop that drives it.
 *
 * Each process (one thread of the run) takes and drops a lock on its file
 * `iterations` times.  Every structure the kernel shares lives in modelled
 * memory, so what contends is what the kernel makes contend:
 *
 *   flc_lock        the file_lock_context's spinlock, one per file
 *   file lists      flc_flock / flc_posix / flc_lease: the locks held on
 *                   a file, linked through their file_lock structures
 *   global part     every held lock is also on a per-cpu list
 *                   (file_lock_list) under that cpu's spinlock:
 *                     lglock        lg_local_lock / lg_local_lock_cpu of
 *                                   4.1 (locks_insert_global_locks,
 *                                   locks_delete_global_locks)
 *                     percpu-rwsem  the same per-cpu spinlock, and every
 *                                   set or release inside
 *                                   percpu_down_read(&file_rwsem):
 *                                   "percpu rwsem -v2" (June 2015)
 *                                   patches 10 and 11, merged upstream
 *                                   as aba37660738 and its follow-up
 *                                   "fs/locks: Replace lg_local with a
 *                                   per-cpu spinlock"; the write side
 *                                   is only in locks_start (/proc/locks)
 *   blocked_lock_lock  the global spinlock of the blocked lists
 *                   (locks_insert_block, locks_wake_up_blocks) and of the
 *                   POSIX blocked_hash (posix_locks_deadlock)
 *
 * A request that conflicts is put on the blocker's fl_block list and
 * sleeps (ll_park) until fl_next is cleared; an unlock wakes every waiter
 * of the lock it removes (locks_wake_up_blocks), and each retries from
 * the start: the herd is the model's, counted as it happens.
 *
 * Syscall entry and exit and the slab allocations of file_lock structures
 * are local time (FLW_SYSCALL_NS, FLW_ALLOC_NS: assumed, docs/filelock.md).
 */
#include <stdlib.h>
#include <string.h>

#include <locklab/backend.h>
#include <locklab/lock.h>
#include <locklab/mem.h>
#include <locklab/rng.h>

#include "../algorithms/internal_ticket.h"
#include "filelock_wl.h"

#define FLW_SYSCALL_NS 150 /* entry, fdget, exit: assumed */
#define FLW_ALLOC_NS 40    /* kmem_cache_alloc or free of a file_lock: assumed */
#define FLW_HASH 128       /* blocked_hash buckets (BLOCKED_HASH_BITS 7) */
#define FLW_DEFERRED 1     /* FILE_LOCK_DEFERRED */

enum flw_type { FLW_UNLCK = 0, FLW_RDLCK = 1, FLW_WRLCK = 2 };

const char *const flw_test_names[FLW_NTESTS] = { "flock", "posix", "lease" };
const char *const flw_global_names[2] = { "lglock", "percpu-rwsem" };

/* A struct file_lock: the request of process p, or the copy it inserts. */
struct flw_fl {
	uint32_t type;
	uint32_t next;       /* file list: next inserted lock (process + 1) */
	uint32_t link_cpu;   /* fl_link_cpu */
	uint32_t link_next;  /* per-cpu list (process + 1) */
	uint32_t link_prev;
	uint32_t block_head; /* fl_block: waiting requests (process + 1) */
	uint32_t block_tail;
	uint32_t block_next; /* a request: its place in the blocker's fl_block */
	uint32_t fl_next;    /* a request: its blocker (process + 1), 0: none */
} ll_cacheline_aligned;

struct flw_ctx { /* struct file_lock_context */
	struct tkt_lock flc_lock ll_cacheline_aligned;
	uint32_t head ll_cacheline_aligned; /* the test's list */
};

struct flw_pcpu { /* file_lock_list: a cpu's list and spinlock */
	struct tkt_lock lock;
	uint32_t head;
} ll_cacheline_aligned;

struct flw_bucket {
	uint64_t count;
} ll_cacheline_aligned;

/* Harness memory: per process, written by it only. */
struct flw_proc {
	struct flw_counters c;
	uint64_t start_ns, end_ns;
} ll_cacheline_aligned;

struct flw_check {
	int64_t inside;
} ll_cacheline_aligned;

struct flw {
	struct flw_config fc;
	unsigned n, nfiles;
	const struct lock_algo *rwsem_algo;
	void *rwsem; /* file_rwsem */
	struct tkt_lock *blocked_lock;
	struct flw_bucket *hash;
	struct flw_pcpu **pcpu;
	struct flw_ctx **ctx;
	struct flw_fl **req, **ins;
	struct flw_proc *proc;
	struct flw_check *check;
	struct wl_custom custom;
};

/* ------------------------------------------------ the global part */

static void global_read_lock(struct flw *w)
{
	if (w->fc.global == FLW_PERCPU_RWSEM)
		w->rwsem_algo->read_lock(w->rwsem, NULL);
}

static void global_read_unlock(struct flw *w)
{
	if (w->fc.global == FLW_PERCPU_RWSEM)
		w->rwsem_algo->read_unlock(w->rwsem, NULL);
}

/* locks_insert_global_locks: on this cpu's list, under its spinlock */
static void insert_global(struct flw *w, unsigned p)
{
	unsigned cpu = ll_this_cpu();
	struct flw_pcpu *l = w->pcpu[cpu];
	struct flw_fl *fl = w->ins[p];
	uint32_t head;

	tkt_lock(&l->lock);
	ll_store(&fl->link_cpu, cpu, LL_RELAXED);
	head = ll_load(&l->head, LL_RELAXED);
	ll_store(&fl->link_next, head, LL_RELAXED);
	ll_store(&fl->link_prev, 0, LL_RELAXED);
	if (head)
		ll_store(&w->ins[head - 1]->link_prev, p + 1, LL_RELAXED);
	ll_store(&l->head, p + 1, LL_RELAXED);
	tkt_unlock(&l->lock);
}

/* locks_delete_global_locks: off fl_link_cpu's list, under its spinlock */
static void delete_global(struct flw *w, unsigned p)
{
	struct flw_fl *fl = w->ins[p];
	struct flw_pcpu *l = w->pcpu[ll_load(&fl->link_cpu, LL_RELAXED)];
	uint32_t next, prev;

	tkt_lock(&l->lock);
	next = ll_load(&fl->link_next, LL_RELAXED);
	prev = ll_load(&fl->link_prev, LL_RELAXED);
	if (prev)
		ll_store(&w->ins[prev - 1]->link_next, next, LL_RELAXED);
	else
		ll_store(&l->head, next, LL_RELAXED);
	if (next)
		ll_store(&w->ins[next - 1]->link_prev, prev, LL_RELAXED);
	tkt_unlock(&l->lock);
}

/* ------------------------------------------------ blocking */

/* locks_insert_block (and, for POSIX, locks_insert_global_blocked after
 * posix_locks_deadlock's look at the blocker's owner) */
static void insert_block(struct flw *w, unsigned blocker, unsigned p)
{
	struct flw_fl *b = w->ins[blocker], *req = w->req[p];
	uint32_t tail;

	tkt_lock(w->blocked_lock);
	if (w->fc.test == FLW_POSIX) {
		(void)ll_load(&w->hash[blocker % FLW_HASH].count, LL_RELAXED);
		ll_fetch_add(&w->hash[p % FLW_HASH].count, 1, LL_RELAXED);
	}
	ll_store(&req->fl_next, blocker + 1, LL_RELAXED);
	ll_store(&req->block_next, 0, LL_RELAXED);
	tail = ll_load(&b->block_tail, LL_RELAXED);
	if (tail)
		ll_store(&w->req[tail - 1]->block_next, p + 1, LL_RELAXED);
	else
		ll_store(&b->block_head, p + 1, LL_RELAXED);
	ll_store(&b->block_tail, p + 1, LL_RELAXED);
	tkt_unlock(w->blocked_lock);
}

/* locks_wake_up_blocks: every waiter off the list and woken */
static void wake_up_blocks(struct flw *w, unsigned blocker, struct flw_counters *c)
{
	struct flw_fl *b = w->ins[blocker];
	uint64_t woken = 0;
	uint32_t q;

	if (!ll_load(&b->block_head, LL_RELAXED))
		return;
	tkt_lock(w->blocked_lock);
	while ((q = ll_load(&b->block_head, LL_RELAXED))) {
		struct flw_fl *req = w->req[q - 1];

		ll_store(&b->block_head, ll_load(&req->block_next, LL_RELAXED), LL_RELAXED);
		if (w->fc.test == FLW_POSIX)
			ll_fetch_add(&w->hash[(q - 1) % FLW_HASH].count, -1, LL_RELAXED);
		ll_store(&req->block_next, 0, LL_RELAXED);
		ll_store(&req->fl_next, 0, LL_RELEASE);
		ll_unpark(q - 1);
		woken++;
	}
	ll_store(&b->block_tail, 0, LL_RELAXED);
	tkt_unlock(w->blocked_lock);
	c->wakeups += woken;
	c->waking_unlocks++;
	if (woken > c->max_woken)
		c->max_woken = woken;
}

/* ------------------------------------------------ the file lists */

/* locks_insert_lock_ctx */
static void insert_lock(struct flw *w, struct flw_ctx *ctx, unsigned p, uint32_t type)
{
	struct flw_fl *fl = w->ins[p];

	ll_store(&fl->type, type, LL_RELAXED);
	ll_store(&fl->next, ll_load(&ctx->head, LL_RELAXED), LL_RELAXED);
	ll_store(&ctx->head, p + 1, LL_RELAXED);
	insert_global(w, p);
}

/* locks_delete_lock_ctx: off both lists; its waiters woken */
static void delete_lock(struct flw *w, struct flw_ctx *ctx, unsigned p, struct flw_counters *c)
{
	uint32_t q = ll_load(&ctx->head, LL_RELAXED), prev = 0;

	delete_global(w, p);
	while (q && q != p + 1) {
		prev = q;
		q = ll_load(&w->ins[q - 1]->next, LL_RELAXED);
	}
	if (prev)
		ll_store(&w->ins[prev - 1]->next, ll_load(&w->ins[p]->next, LL_RELAXED), LL_RELAXED);
	else
		ll_store(&ctx->head, ll_load(&w->ins[p]->next, LL_RELAXED), LL_RELAXED);
	wake_up_blocks(w, p, c);
}

/* flock_locks_conflict / posix_locks_conflict on a whole file; a write
 * lease conflicts with any other lease (generic_add_lease) */
static bool conflicts(uint32_t held, uint32_t want)
{
	return held == FLW_WRLCK || want == FLW_WRLCK;
}

/*
 * One call of flock_lock_file, __posix_lock_file or generic_setlease /
 * generic_delete_lease for process p on its file: type FLW_UNLCK
 * releases.  Returns 0, FLW_DEFERRED (p sleeps on a blocker) or -1
 * (a lease refused: EAGAIN); *removed: the locks it took off the file.
 */
static int set_lock(struct flw *w, unsigned p, struct flw_ctx *ctx, uint32_t type,
		    struct flw_counters *c, unsigned *removed)
{
	int rc = 0;
	uint32_t q;

	global_read_lock(w);
	tkt_lock(&ctx->flc_lock);
	for (q = ll_load(&ctx->head, LL_RELAXED); q; q = ll_load(&w->ins[q - 1]->next, LL_RELAXED))
		if (q == p + 1)
			break;
	if (type == FLW_UNLCK) {
		if (q) {
			delete_lock(w, ctx, p, c);
			c->unlocks++;
			(*removed)++;
		}
		goto out;
	}
	for (q = ll_load(&ctx->head, LL_RELAXED); q; q = ll_load(&w->ins[q - 1]->next, LL_RELAXED)) {
		if (q == p + 1 || !conflicts(ll_load(&w->ins[q - 1]->type, LL_RELAXED), type))
			continue;
		if (w->fc.test == FLW_LEASE) {
			rc = -1;
		} else {
			insert_block(w, q - 1, p);
			rc = FLW_DEFERRED;
		}
		goto out;
	}
	insert_lock(w, ctx, p, type);
	c->grants++;
out:
	tkt_unlock(&ctx->flc_lock);
	global_read_unlock(w);
	return rc;
}

/*
 * The slab work of a call, as fs/locks.c does it (v3.10 to v4.1 alike, and
 * flock_lock_inode / posix_lock_inode after them): the syscall allocates its
 * request (flock_make_lock in sys_flock, locks_alloc_lock in fcntl_setlk)
 * and frees it on the way out; every attempt of a lock request allocates,
 * before flc_lock, what it may insert (flock: new_fl; posix: new_fl and
 * new_fl2, for a range it may split) and frees, after it, what it did not
 * insert; an unlock frees the lock it removed (the dispose list).  So a
 * retry after a wake-up pays its allocations again.  Leases: lease_alloc
 * and fasync_alloc in the call (freed again when the lease is refused),
 * the lease freed at its release; they never sleep.
 */
static unsigned call_allocs(const struct flw *w, uint32_t type)
{
	if (w->fc.test == FLW_LEASE)
		return type == FLW_UNLCK ? 0 : 2;
	return 1;
}

/* On the way out of a call that returned rc: the request, or a lease's two
 * structures when it was refused. */
static unsigned call_frees(const struct flw *w, uint32_t type, int rc)
{
	if (w->fc.test == FLW_LEASE)
		return rc ? call_allocs(w, type) : 0;
	return 1;
}

static unsigned attempt_allocs(const struct flw *w, uint32_t type)
{
	if (type == FLW_UNLCK || w->fc.test == FLW_LEASE)
		return 0;
	return w->fc.test == FLW_POSIX ? 2 : 1;
}

/* After an attempt that returned rc and removed `removed` locks. */
static unsigned attempt_frees(const struct flw *w, uint32_t type, int rc, unsigned removed)
{
	unsigned n = attempt_allocs(w, type);

	return removed + (rc == 0 && n ? n - 1 : n);
}

static void slab_work(unsigned ops)
{
	if (ops)
		ll_delay_ns(ops * FLW_ALLOC_NS);
}

/* The syscall around set_lock: entry, the slab work above, and for a lock
 * that may block, the sleep-and-retry loop of flock_lock_file_wait /
 * posix_lock_file_wait. */
static int lock_call(struct flw *w, unsigned p, struct flw_ctx *ctx, uint32_t type,
		     struct flw_counters *c)
{
	bool slept = false;
	int rc;

	ll_delay_ns(FLW_SYSCALL_NS + call_allocs(w, type) * FLW_ALLOC_NS);
	for (;;) {
		unsigned removed = 0;

		slab_work(attempt_allocs(w, type));
		rc = set_lock(w, p, ctx, type, c, &removed);
		slab_work(attempt_frees(w, type, rc, removed));
		if (rc != FLW_DEFERRED) {
			c->woken_grants += slept && !rc;
			break;
		}
		c->sleeps++;
		c->resleeps += slept;
		while (ll_load(&w->req[p]->fl_next, LL_ACQUIRE))
			ll_park();
		slept = true;
	}
	slab_work(call_frees(w, type, rc));
	return rc;
}

/* One system call: not preempted inside (CONFIG_PREEMPT_NONE: it may only
 * sleep), its return to user space a preemption point.  A call that
 * succeeds puts the process in phase `then` before that point, so that a
 * preemption there is counted as what the process is by then. */
static int lock_syscall(struct flw *w, struct wl_thread *t, unsigned p, struct flw_ctx *ctx,
			uint32_t type, struct flw_counters *c, int then)
{
	int rc;

	ll_preempt_disable();
	rc = lock_call(w, p, ctx, type, c);
	if (!rc)
		__atomic_store_n(&t->phase, then, __ATOMIC_RELAXED);
	ll_preempt_enable();
	return rc;
}

/* ------------------------------------------------ the processes */

static void flw_thread(struct wl_run *run, unsigned tid)
{
	struct flw *w = run->custom->arg;
	struct wl_thread *t = &run->threads[tid];
	struct flw_proc *pr = &w->proc[tid];
	unsigned file = w->fc.shared ? 0 : tid;
	struct flw_check *chk = &w->check[file];
	uint32_t type = w->fc.test == FLW_LEASE && w->fc.shared ? FLW_RDLCK : FLW_WRLCK;
	bool excl = type == FLW_WRLCK;

	pr->start_ns = ll_now_ns();
	ll_delay_ns(run_seed(run->seed, tid) % FLW_SKEW_NS);
	for (uint64_t k = 0; k < w->fc.iterations; k++) {
		__atomic_store_n(&t->phase, PH_ACQUIRING, __ATOMIC_RELAXED);
		while (lock_syscall(w, t, tid, w->ctx[file], type, &pr->c, PH_HOLDING))
			; /* a lease refused: lockperf retries */
		if (excl && __atomic_add_fetch(&chk->inside, 1, __ATOMIC_ACQ_REL) != 1)
			pr->c.violations++;
		ll_delay_ns(FLW_SYSCALL_NS); /* back to user space and in again */
		if (excl)
			__atomic_sub_fetch(&chk->inside, 1, __ATOMIC_ACQ_REL);
		lock_syscall(w, t, tid, w->ctx[file], FLW_UNLCK, &pr->c, PH_OUTSIDE);
		t->acquisitions++;
		__atomic_store_n(&t->last_progress_ns, ll_now_ns(), __ATOMIC_RELAXED);
	}
	pr->end_ns = ll_now_ns();
	__atomic_store_n(&t->finish_ns, pr->end_ns, __ATOMIC_RELAXED);
}

/* ------------------------------------------------ memory */

#define FLW_ALLOC(p, node) ((p) = ll_alloc_on(sizeof(*(p)), (node)))

static int flw_setup(struct wl_run *run)
{
	struct flw *w = run->custom->arg;
	const struct lock_algo *a = w->rwsem_algo;
	int bad = 0;

	w->pcpu = calloc(w->n, sizeof(*w->pcpu));
	w->req = calloc(w->n, sizeof(*w->req));
	w->ins = calloc(w->n, sizeof(*w->ins));
	w->ctx = calloc(w->nfiles, sizeof(*w->ctx));
	if (!w->pcpu || !w->req || !w->ins || !w->ctx)
		return -1;
	w->rwsem = ll_alloc_on(a->lock_size + w->n * a->lock_size_per_cpu, 0);
	w->blocked_lock = ll_alloc_on(LL_CACHE_LINE, 0);
	w->hash = ll_alloc_on(FLW_HASH * sizeof(*w->hash), 0);
	bad |= !w->rwsem || !w->blocked_lock || !w->hash;
	for (unsigned i = 0; i < w->n && !bad; i++) {
		/* per-cpu list i on thread i's node: in the simulator's OS model
		 * thread i starts on cpu i for every cpu i (sim/vm.h) */
		unsigned node = run->threads[i].node;

		bad |= !FLW_ALLOC(w->pcpu[i], node) || !FLW_ALLOC(w->req[i], node) ||
		       !FLW_ALLOC(w->ins[i], node);
		if (i < w->nfiles)
			bad |= !FLW_ALLOC(w->ctx[i], node);
	}
	if (bad)
		return -1;
	ll_mem_tag(w->blocked_lock, LL_CACHE_LINE, LL_TAG_LOCK);
	for (unsigned i = 0; i < w->nfiles; i++)
		ll_mem_tag(w->ctx[i], sizeof(struct flw_ctx), LL_TAG_LOCK);
	a->init(w->rwsem, w->n);
	return 0;
}

#define FLW_FREE(p)                                                            \
	do {                                                                   \
		if (p)                                                         \
			ll_free((p), sizeof(*(p)));                           \
	} while (0)

static void flw_teardown(struct wl_run *run)
{
	struct flw *w = run->custom->arg;
	const struct lock_algo *a = w->rwsem_algo;

	for (unsigned i = 0; i < w->n; i++) {
		if (w->pcpu)
			FLW_FREE(w->pcpu[i]);
		if (w->req)
			FLW_FREE(w->req[i]);
		if (w->ins)
			FLW_FREE(w->ins[i]);
	}
	for (unsigned i = 0; w->ctx && i < w->nfiles; i++)
		FLW_FREE(w->ctx[i]);
	if (w->rwsem) {
		if (a->destroy)
			a->destroy(w->rwsem);
		ll_free(w->rwsem, a->lock_size + w->n * a->lock_size_per_cpu);
	}
	if (w->blocked_lock)
		ll_free(w->blocked_lock, LL_CACHE_LINE);
	if (w->hash)
		ll_free(w->hash, FLW_HASH * sizeof(*w->hash));
	free(w->pcpu);
	free(w->req);
	free(w->ins);
	free(w->ctx);
	w->pcpu = NULL;
	w->req = w->ins = NULL;
	w->ctx = NULL;
	w->rwsem = w->blocked_lock = NULL;
	w->hash = NULL;
}

/* ------------------------------------------------ one run */

/* What the backends name the run by (watchdog messages). */
static const struct lock_algo flw_algo = {
	.name = "filelock",
	.desc = "the file-lock path of Linux 4.1 (core/filelock_wl.c)",
	.kind = LOCK_MUTEX,
};

void flw_counters_add(struct flw_counters *sum, const struct flw_counters *c)
{
	sum->grants += c->grants;
	sum->unlocks += c->unlocks;
	sum->sleeps += c->sleeps;
	sum->resleeps += c->resleeps;
	sum->woken_grants += c->woken_grants;
	sum->wakeups += c->wakeups;
	sum->waking_unlocks += c->waking_unlocks;
	sum->violations += c->violations;
	for (unsigned i = 0; i < LL_MAX_IDLE_STATES; i++)
		sum->idle_wakes[i] += c->idle_wakes[i];
	sum->idle_exit_ns += c->idle_exit_ns;
	sum->has_noise |= c->has_noise;
	sum->migrations += c->migrations;
	sum->irqs += c->irqs;
	sum->has_sched |= c->has_sched;
	sum->preemptions += c->preemptions;
	sum->holder_preemptions += c->holder_preemptions;
	sum->waiter_preemptions += c->waiter_preemptions;
	sum->wake_moves += c->wake_moves;
	sum->idle_pulls += c->idle_pulls;
	sum->affine_wakes += c->affine_wakes;
	sum->holder_lost_ns += c->holder_lost_ns;
	if (c->max_woken > sum->max_woken)
		sum->max_woken = c->max_woken;
}

static void sum_counters(const struct flw *w, struct flw_counters *c)
{
	memset(c, 0, sizeof(*c));
	for (unsigned i = 0; i < w->n; i++)
		flw_counters_add(c, &w->proc[i].c);
}

static double run_seconds(const struct flw *w)
{
	uint64_t start = UINT64_MAX, end = 0;

	for (unsigned i = 0; i < w->n; i++) {
		if (w->proc[i].start_ns < start)
			start = w->proc[i].start_ns;
		if (w->proc[i].end_ns > end)
			end = w->proc[i].end_ns;
	}
	return end > start ? (double)(end - start) / 1e9 : 0;
}

static int flw_init(struct flw *w, const struct flw_config *fc, unsigned procs)
{
	memset(w, 0, sizeof(*w));
	w->fc = *fc;
	w->n = procs;
	w->nfiles = fc->shared ? 1 : procs;
	w->rwsem_algo = lock_find("percpu-rwsem");
	w->proc = aligned_alloc(LL_CACHE_LINE, procs * sizeof(*w->proc));
	w->check = aligned_alloc(LL_CACHE_LINE, w->nfiles * sizeof(*w->check));
	if (!w->rwsem_algo || !w->proc || !w->check)
		return -1;
	memset(w->proc, 0, procs * sizeof(*w->proc));
	memset(w->check, 0, w->nfiles * sizeof(*w->check));
	w->custom.setup = flw_setup;
	w->custom.thread_main = flw_thread;
	w->custom.teardown = flw_teardown;
	w->custom.arg = w;
	return 0;
}

static void run_config(struct wl_config *c, const struct wl_config *base,
		       const struct flw_config *fc, unsigned procs)
{
	*c = *base;
	wl_config_only(c, &flw_algo, procs);
	c->ops = fc->iterations;
	c->duration_ms = 0;
	c->locks = 1;
	c->cs_lines = 0;
	c->read_pct = 0;
	c->count_opt = "--procs";
}

/* The backend's check of c (its refusals name --procs): 0, or 2 with one
 * line in why. */
static int check_procs(const struct wl_config *c, char *why, size_t len)
{
	return backend_check(c, why, len) ? 2 : 0;
}

int flw_check(const struct flw_config *fc, const struct wl_config *base, unsigned procs,
	      char *why, size_t len)
{
	struct wl_config c;

	run_config(&c, base, fc, procs);
	return check_procs(&c, why, len);
}

int flw_run_once(const struct flw_config *fc, const struct wl_config *base, unsigned procs,
		 unsigned idx, double *secs, struct flw_counters *cnt, char *why, size_t len)
{
	struct wl_config c;
	struct wl_run run;
	struct run_counters rc;
	struct flw w;
	int failed;

	run_config(&c, base, fc, procs);
	if (check_procs(&c, why, len))
		return 2;
	memset(&run, 0, sizeof(run));
	memset(&rc, 0, sizeof(rc));
	run.cfg = &c;
	run.algo = &flw_algo;
	run.nthreads = procs;
	run.run_index = idx;
	run.seed = run_seed(c.seed, idx);
	if (c.vm_vcpus) { /* more processes than CPUs: the backend's OS schedules them */
		run.overcommit = c.overcommit[0];
		run.vm_pcpus = wl_vm_pcpus(c.vm_vcpus, run.overcommit);
	}
	run.threads = calloc(procs, sizeof(*run.threads));
	if (!run.threads || flw_init(&w, fc, procs)) {
		free(run.threads);
		snprintf(why, len, "out of memory");
		return 3;
	}
	run.custom = &w.custom;
	for (unsigned i = 0; i < procs; i++)
		run.threads[i].tid = i;
	failed = backend_run(&run, &rc) || run.failed;
	if (failed)
		snprintf(why, len, "%s", run.failure[0] ? run.failure : "the run failed");
	wl_teardown(&run);
	*secs = run_seconds(&w);
	sum_counters(&w, cnt);
	if (!failed && cnt->violations) {
		failed = 1;
		snprintf(why, len, "two processes held the exclusive lock at once, %llu times",
			 (unsigned long long)cnt->violations);
	}
	memcpy(cnt->idle_wakes, rc.sim.idle_wakes, sizeof(cnt->idle_wakes));
	cnt->idle_exit_ns = rc.sim.idle_exit_ps / 1000;
	cnt->has_noise = rc.sim.has_noise;
	cnt->migrations = rc.sim.migrations;
	cnt->irqs = rc.sim.irqs;
	cnt->has_sched = rc.vm.has_vm;
	cnt->preemptions = rc.vm.preemptions;
	cnt->holder_preemptions = rc.vm.holder_preemptions;
	cnt->waiter_preemptions = rc.vm.waiter_preemptions;
	cnt->wake_moves = rc.vm.wake_moves;
	cnt->idle_pulls = rc.vm.idle_pulls;
	cnt->affine_wakes = rc.vm.affine_wakes;
	cnt->holder_lost_ns = rc.vm.holder_lost_ps / 1000;
	free(run.threads);
	free(w.proc);
	free(w.check);
	return failed ? 3 : 0;
}
