/*
 * core/workload.c - the loop every thread runs, in both backends.
 *
 * Modelled memory of a run (allocated with ll_alloc_on, so the simulator
 * knows each line's home node, and accessed only through <locklab/mem.h>):
 *
 *   slots[i].lock   the lock object of lock i, home: node 0 (or the node of
 *                   thread 0 when every thread is on one node); with
 *                   lock_home spread, node i modulo the nodes
 *   slots[i].data   cs_lines lines of protected data, same home (none when
 *                   cs_lines is 0: a bare lock loop)
 *   threads[t].ctx  one context per lock, on the thread's node
 *
 * A write section stores to each data line, a read section loads each: what
 * a real critical section does with the data it protects, so in the
 * simulator the data migrates with the lock, as it does on a real machine.
 *
 * Harness memory (plain malloc, never ll_alloc, never an ll_* access): what
 * the harness keeps to observe the run, read and written with relaxed
 * __atomic loads and stores.  In the simulator it is not modelled: it costs
 * no simulated time and no coherence traffic, and since actors run one at a
 * time it needs nothing stronger.  Natively it is one line per lock written
 * with plain stores under the lock (no lock-prefixed instruction).  Each
 * lock's struct wl_check holds
 *     owner        the writer inside (tid + 1, 0: none)
 *     last_holder  who released last: the handoff record
 *     writes       write sections completed
 * A writer finds owner 0 on entry and itself on exit, else mutual exclusion
 * failed.  Readers write nothing shared, as real readers do not: a reader
 * reads owner and writes when it enters and again before it leaves, so a
 * writer inside then shows as owner != 0, and one that came and went in
 * between as a changed writes.  The checker sees an overlap in host order:
 * in the simulator a broken lock shows when a section yields to another
 * actor, which its modelled data accesses do.  How many readers were inside
 * at once is measured from timestamps: each thread keeps the [enter, leave)
 * spans of its first WL_READ_SPANS counted reads, and wl_max_readers()
 * (core/readers.c) sweeps them after the run.
 *
 * Refcounts: each operation is a get, the critical delay, a put, on the
 * object of the chosen slot.  The last thread to leave the loop reads every
 * object's count; one that differs from its count after init means the
 * algorithm lost or invented an update, and fails the run.
 *
 * Timing: every acquisition is counted, one in cfg->time_every (K) is timed
 * (t0 before the acquire, t1 after).  Which ones is a seeded geometric skip
 * from the thread's own generator (not its GSL one, whose draws shape the
 * workload): each acquisition is timed with probability 1/K independently of
 * the others, so no stride can fall in step with a lock's handoff pattern,
 * and the timed ones are an unbiased sample of the waits.  Every wait figure
 * comes from that sample; with K = 1 it is every acquisition, and the loop
 * reads the clock exactly as often as it ever did.  The first WL_READ_SPANS
 * reads of a thread are timed whatever K, for wl_max_readers(), and so is
 * its first acquisition: a thread that waits all run for it (starved) has
 * that wait counted, censored at the end, where an untimed one left no
 * trace in the wait figures (one timed acquisition more a thread and run,
 * beside the thousands a run of K = 32 samples).
 *
 * Cost: the loop is compiled once per kind of lock, and within it twice, an
 * untimed and a timed acquisition (one_acquisition, inlined), chosen by the
 * skip counting down in a register: the untimed one has no branch on timing
 * and natively reads no clock (see Stopping), and what every acquisition
 * needs from the run (the
 * lock's functions, lock 0 and its context, the section's settings) is
 * copied once into struct wl_loop.  A natively empty critical delay is no
 * call (LL_DELAY_ZERO_IS_NOTHING); the simulator still sees every one.
 *
 * Stopping: a duration run ends each thread after its first acquisition at
 * or past run->end_ns; acquisitions after end_ns are drained, not counted.
 * A timed acquisition knows from t1.  In the simulator, whose clock costs
 * nothing to read (LL_CLOCK_IS_FREE), an untimed one reads it too, so that
 * --time-every changes which waits are sampled and nothing else.  Natively
 * an untimed one reads two harness flags instead of the clock: run->stop
 * (the backend's, raised at end_ns, and the watchdog's) and run->time_up,
 * raised by the first timed acquisition past end_ns.  A timed thread still acquiring at end_ns has its
 * wait censored there: it counts as a wait of end_ns - t0 (in every wait
 * figure), but not as an acquisition.  An --ops run ends each thread after
 * cfg->ops acquisitions.  Neither flag is modelled memory.
 */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/mem.h>
#include <locklab/rng.h>
#include <locklab/workload.h>

#include "run_end.h"

/* The loop's own steps are inlined, so that its state stays in registers. */
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

static __always_inline void set_phase(struct wl_thread *t, int phase)
{
	__atomic_store_n(&t->phase, phase, __ATOMIC_RELAXED);
}

/* ln(1 - 1/K), the skip's scale; 0 when every acquisition is timed. */
static double skip_log(unsigned k)
{
	return k > 1 ? log1p(-1.0 / k) : 0;
}

/* Untimed acquisitions before the next timed one: geometric with mean K - 1
 * (floor(ln u / ln(1 - 1/K)), u uniform in (0, 1], from a splitmix64). */
static uint64_t next_skip(struct wl_thread *t, double log_q)
{
	double u;

	if (log_q == 0)
		return 0;
	t->sample_state += 0x9e3779b97f4a7c15ull;
	u = (double)((mix64(t->sample_state) >> 11) + 1) * 0x1p-53;
	return (uint64_t)(log(u) / log_q);
}

static void report_violation(struct wl_run *run, struct wl_thread *t, const char *what)
{
	unsigned o = 0; /* the other thread: one holding it too */

	while (o < run->nthreads && (o == t->tid || __atomic_load_n(&run->threads[o].phase,
								   __ATOMIC_RELAXED) != PH_HOLDING))
		o++;
	t->violations++;
	if (__atomic_exchange_n(&run->failed, 1, __ATOMIC_ACQ_REL) == 0)
		snprintf(run->failure, sizeof(run->failure),
			 "mutual exclusion violated: lock '%s', thread %u %s (thread %d holding)",
			 run->algo->name, t->tid, what, o < run->nthreads ? (int)o : -1);
	__atomic_store_n(&run->stop, 1, __ATOMIC_RELEASE);
}

/* Harness memory: relaxed __atomic accesses, never ll_* (see the top). */
static __always_inline int64_t peek(const int64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static __always_inline void poke(int64_t *p, int64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* The handoff record: who held this lock before me, and was it my socket?
 * A thread taking the lock again after itself writes nothing. */
static __always_inline void record_handoff(struct wl_run *run, struct wl_thread *t,
					   struct wl_check *c, bool counted)
{
	int64_t prev = peek(&c->last_holder);

	if (prev == (int64_t)t->tid)
		return;
	if (counted && prev >= 0) {
		bool local = run->threads[prev].node == t->node;

		t->handoffs++;
		t->handoffs_local += local;
		(void)wl_handoff_add(&t->handoff_from, (unsigned)prev, local);
	}
	poke(&c->last_holder, (int64_t)t->tid);
}

/* What every acquisition of a thread reads, copied from the run once: the
 * loop keeps it in its own frame, where no call into the lock can change
 * it, instead of reading it through run->cfg and run->algo after each. */
struct wl_loop {
	struct wl_run *run;
	struct wl_thread *t;
	void (*acquire)(void *lock, void *ctx); /* lock, write_lock or get */
	void (*release)(void *lock, void *ctx); /* unlock, write_unlock or put */
	struct wl_lock_slot *slot0;             /* lock 0 and the thread's ctx for it */
	void *ctx0;
	uint64_t ops, end_ns, cs_ns;
	double skip_log; /* skip_log(K) */
	unsigned cs_lines, read_pct;
	bool many_locks, ncs; /* several locks to pick from; a non-critical delay */
};

/* One acquisition: timed or not, when (timed), and whether it is past the
 * end of a duration run (see the top). */
struct wl_acq {
	bool timed, is_read, past;
	uint64_t t0, t1; /* 0 when untimed */
};

/* Write the protected lines: a plain store to each, as a critical section
 * updating shared state does. */
static inline void write_data(struct wl_lock_slot *s, unsigned cs_lines, int64_t v)
{
	for (unsigned i = 0; i < cs_lines; i++)
		ll_store(&s->data[i].value, v, LL_RELAXED);
}

static inline void read_data(struct wl_lock_slot *s, unsigned cs_lines)
{
	for (unsigned i = 0; i < cs_lines; i++)
		(void)ll_load(&s->data[i].value, LL_RELAXED);
}

/* The critical delay.  Natively a zero delay is no work at all, so it is
 * not called; the simulator still sees every one. */
static inline void cs_delay(uint64_t ns)
{
#ifdef LL_DELAY_ZERO_IS_NOTHING
	if (!ns)
		return;
#endif
	ll_delay_ns(ns);
}

static __always_inline void writer_section(const struct wl_loop *lp, struct wl_lock_slot *s,
					   bool counted)
{
	struct wl_thread *t = lp->t;
	struct wl_check *c = s->check;
	int64_t me = (int64_t)t->tid + 1, writes = peek(&c->writes) + 1;

	if (__builtin_expect(peek(&c->owner) != 0, 0))
		report_violation(lp->run, t, "entered while another writer was inside");
	poke(&c->owner, me);
	record_handoff(lp->run, t, c, counted);
	write_data(s, lp->cs_lines, writes);
	cs_delay(lp->cs_ns);
	ll_sync();
	if (__builtin_expect(peek(&c->owner) != me, 0))
		report_violation(lp->run, t, "was inside when another writer entered");
	poke(&c->writes, writes);
	poke(&c->owner, 0);
}

/* A read section: only loads of the protected lines (see the top). */
static __always_inline void reader_section(const struct wl_loop *lp, struct wl_lock_slot *s)
{
	struct wl_check *c = s->check;
	int64_t seen = peek(&c->writes);

	if (peek(&c->owner) != 0)
		report_violation(lp->run, lp->t, "read while a writer was inside");
	read_data(s, lp->cs_lines);
	cs_delay(lp->cs_ns);
	ll_sync();
	if (peek(&c->owner) != 0 || peek(&c->writes) != seen)
		report_violation(lp->run, lp->t, "was reading when a writer entered");
}

static void record_read_span(struct wl_run *run, struct wl_thread *t, uint64_t from)
{
	if (t->nread_spans == WL_READ_SPANS || (run->end_ns && from >= run->end_ns))
		return;
	t->read_spans[t->nread_spans].from = from;
	t->read_spans[t->nread_spans].to = ll_now_ns();
	t->nread_spans++;
}

static uint64_t ncs_delay(const struct wl_config *cfg, struct wl_thread *t)
{
	if (!cfg->ncs_ns)
		return 0;
	if (!cfg->ncs_exp)
		return cfg->ncs_ns;
	return (uint64_t)gsl_ran_exponential(t->rng, (double)cfg->ncs_ns);
}

static unsigned pick_lock(const struct wl_config *cfg, struct wl_thread *t)
{
	if (cfg->group_threads)
		return t->tid / cfg->group_threads * cfg->group_locks +
		       (cfg->group_locks > 1 ? (unsigned)gsl_rng_uniform_int(t->rng, cfg->group_locks) : 0);
	if (cfg->locks <= 1)
		return 0;
	return (unsigned)gsl_rng_uniform_int(t->rng, cfg->locks);
}

/* Past the end of a duration run: a timed acquisition knows from t1, an
 * untimed one from the simulated clock or natively the two flags (see the
 * top). */
static __always_inline bool past_end(const struct wl_loop *lp, const struct wl_acq *a)
{
	if (!lp->end_ns)
		return false;
	if (a->timed)
		return a->t1 >= lp->end_ns;
	return wl_untimed_past_end(lp->run);
}

static __always_inline void acquired(const struct wl_loop *lp, struct wl_acq *a)
{
	a->past = past_end(lp, a);
	set_phase(lp->t, PH_HOLDING);
}

/* A mutex, a rwlock's write side or a refcount's get and put. */
static __always_inline void exclusive_op(const struct wl_loop *lp, struct wl_lock_slot *s,
					 void *ctx, struct wl_acq *a, bool refcount)
{
	if (__builtin_expect(a->timed, 0))
		a->t0 = ll_now_ns();
	lp->acquire(s->lock, ctx);
	if (__builtin_expect(a->timed, 0))
		a->t1 = ll_now_ns();
	acquired(lp, a);
	if (refcount)
		cs_delay(lp->cs_ns);
	else
		writer_section(lp, s, !a->past);
	lp->release(s->lock, ctx);
}

static uint64_t stamp(bool timed)
{
	return timed ? ll_now_ns() : 0;
}

static __always_inline void read_op(const struct wl_loop *lp, struct wl_lock_slot *s, void *ctx,
				    struct wl_acq *a)
{
	const struct lock_algo *algo = lp->run->algo;
	struct wl_thread *t = lp->t;
	bool span = t->nread_spans < WL_READ_SPANS;

	a->t0 = stamp(a->timed);
	algo->read_lock(s->lock, ctx);
	a->t1 = stamp(a->timed || span);
	acquired(lp, a);
	reader_section(lp, s);
	if (span)
		record_read_span(lp->run, t, a->t1);
	algo->read_unlock(s->lock, ctx);
}

static void report_failure(struct wl_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void report_failure(struct wl_run *run, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(&run->failed, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	va_start(ap, fmt);
	vsnprintf(run->failure, sizeof(run->failure), fmt, ap);
	va_end(ap);
	__atomic_store_n(&run->stop, 1, __ATOMIC_RELEASE);
}

/* Refcounts, by the last thread out: every get was matched by a put, so
 * each object's count must be back where init left it. */
static void check_refcounts(struct wl_run *run)
{
	uint64_t ops = 0;

	for (unsigned i = 0; i < run->nthreads; i++)
		ops += run->threads[i].acquisitions + run->threads[i].acquisitions_after;
	for (unsigned l = 0; l < run->cfg->locks; l++) {
		struct wl_lock_slot *s = &run->slots[l];
		int64_t c = run->algo->count(s->lock);

		if (c != s->ref_initial) {
			report_failure(run,
				       "refcount lost: lock '%s', object %u ends at %lld, expected %lld "
				       "(initial + gets - puts, %llu of each in all)",
				       run->algo->name, l, (long long)c, (long long)s->ref_initial,
				       (unsigned long long)ops);
			return;
		}
	}
}

/* A wait into the thread's histograms.  A thread still acquiring at
 * end_ns is censored, not dropped: it counts with its wait so far. */
static void record_wait(const struct wl_run *run, struct wl_thread *t, bool is_read, uint64_t ns)
{
	ll_hist_add(&t->wait, ns);
	if (run->algo->kind != LOCK_RWLOCK)
		return;
	ll_hist_add(is_read ? &t->wait_read : &t->wait_write, ns);
}

/* One acquisition in the thread's counts (and, of a rwlock, its side's). */
static __always_inline void count_one(struct wl_thread *t, bool rwlock, bool is_read)
{
	t->acquisitions++;
	if (rwlock && is_read)
		t->reads++;
	else if (rwlock)
		t->writes++;
}

/* Count (or drain) a timed acquisition or one past the end, and the wait
 * of a timed one; true when it was past the end of the run. */
static __attribute__((noinline)) bool count_timed(struct wl_run *run, struct wl_thread *t,
						   struct wl_acq acq)
{
	const struct wl_acq *a = &acq;

	if (a->timed)
		__atomic_store_n(&t->last_progress_ns, a->t1, __ATOMIC_RELAXED);
	if (a->past) {
		if (a->timed)
			__atomic_store_n(&run->time_up, 1, __ATOMIC_RELAXED);
		t->acquisitions_after++;
		if (a->timed && a->t0 < run->end_ns) {
			record_wait(run, t, a->is_read, run->end_ns - a->t0);
			t->censored_ns = run->end_ns - a->t0;
			t->censored_read = a->is_read;
		}
		return true;
	}
	count_one(t, run->algo->kind == LOCK_RWLOCK, a->is_read);
	if (a->timed) {
		t->timed++;
		record_wait(run, t, a->is_read, a->t1 - a->t0);
	}
	return false;
}

/* Count one acquisition (see count_timed); true when it was past the end. */
static __always_inline bool count_acquisition(const struct wl_loop *lp, const struct wl_acq *a,
					      enum lock_kind kind)
{
	struct wl_thread *t = lp->t;

	if (__builtin_expect(a->timed | a->past, 0))
		return count_timed(lp->run, t, *a);
	count_one(t, kind == LOCK_RWLOCK, a->is_read);
	return false;
}

/* True once the run should stop: by the flag or by op count. */
static __always_inline bool loop_done(const struct wl_loop *lp)
{
	if (__atomic_load_n(&lp->run->stop, __ATOMIC_ACQUIRE))
		return true;
	return lp->ops && lp->t->acquisitions >= lp->ops;
}

static __always_inline struct wl_loop loop_of(struct wl_run *run, struct wl_thread *t)
{
	const struct wl_config *cfg = run->cfg;
	const struct lock_algo *algo = run->algo;
	struct wl_loop lp = {
		.run = run, .t = t, .slot0 = &run->slots[0], .ctx0 = t->ctx[0],
		.ops = cfg->ops, .end_ns = run->end_ns, .cs_ns = cfg->cs_ns,
		.skip_log = skip_log(cfg->time_every), .cs_lines = cfg->cs_lines,
		.read_pct = cfg->read_pct, .many_locks = cfg->group_threads || cfg->locks > 1,
		.ncs = cfg->ncs_ns != 0,
	};

	if (algo->kind == LOCK_MUTEX) {
		lp.acquire = algo->lock;
		lp.release = algo->unlock;
	} else if (algo->kind == LOCK_RWLOCK) {
		lp.acquire = algo->write_lock;
		lp.release = algo->write_unlock;
	} else {
		lp.acquire = algo->get;
		lp.release = algo->put;
	}
	return lp;
}

/* One acquisition of a lock of this kind, timed or not; true when it was
 * past the end of the run.  Inlined twice, the two bodies share no branch
 * on whether they are timed. */
static __always_inline bool one_acquisition(const struct wl_loop *lp, enum lock_kind kind,
					    bool timed)
{
	struct wl_thread *t = lp->t;
	uint64_t d = lp->ncs ? ncs_delay(lp->run->cfg, t) : 0;
	struct wl_lock_slot *s = lp->slot0;
	void *ctx = lp->ctx0;
	struct wl_acq a = { .timed = timed };

	if (lp->many_locks) {
		unsigned l = pick_lock(lp->run->cfg, t);

		s = &lp->run->slots[l];
		ctx = t->ctx[l];
	}
	if (d)
		ll_delay_ns(d);
	set_phase(t, PH_ACQUIRING);
	if (kind == LOCK_RWLOCK)
		a.is_read = gsl_rng_uniform_int(t->rng, 100) < lp->read_pct;
	if (a.is_read)
		read_op(lp, s, ctx, &a);
	else
		exclusive_op(lp, s, ctx, &a, kind == LOCK_REFCOUNT);
	set_phase(t, PH_OUTSIDE);
	return count_acquisition(lp, &a, kind);
}

/* The loop of one kind of lock (see the top): the skip counts down in a
 * register, and one timed acquisition follows each run of untimed ones. */
static __always_inline void run_loop(const struct wl_loop lp, enum lock_kind kind)
{
	struct wl_thread *t = lp.t;
	uint64_t skip = 0; /* the first timed (see the top), then the sample */

	while (!loop_done(&lp)) {
		bool past;

		if (__builtin_expect(skip != 0, 1)) {
			skip--;
			past = one_acquisition(&lp, kind, false);
		} else {
			skip = next_skip(t, lp.skip_log);
			past = one_acquisition(&lp, kind, true);
		}
		if (past)
			break;
	}
}

void wl_thread_main(struct wl_run *run, unsigned tid)
{
	struct wl_thread *t = &run->threads[tid];

	if (run->custom) {
		run->custom->thread_main(run, tid);
		return;
	}
	/* Threads never leave a start barrier in lockstep: a seeded skew of up
	 * to 1 us.  In the simulator it is also what makes one seed's
	 * interleaving differ from another's when every delay is fixed. */
	ll_delay_ns(gsl_rng_uniform_int(t->rng, WL_START_SKEW_NS));
	switch (run->algo->kind) {
	case LOCK_MUTEX:
		run_loop(loop_of(run, t), LOCK_MUTEX);
		break;
	case LOCK_RWLOCK:
		run_loop(loop_of(run, t), LOCK_RWLOCK);
		break;
	default:
		run_loop(loop_of(run, t), LOCK_REFCOUNT);
		break;
	}
	__atomic_store_n(&t->finish_ns, ll_now_ns(), __ATOMIC_RELAXED);
	if (__atomic_add_fetch(&run->threads_out, 1, __ATOMIC_ACQ_REL) == run->nthreads &&
	    run->algo->kind == LOCK_REFCOUNT && !__atomic_load_n(&run->failed, __ATOMIC_ACQUIRE))
		check_refcounts(run);
}
