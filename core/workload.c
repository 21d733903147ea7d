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
 * reads of a thread are timed whatever K, for wl_max_readers().
 *
 * Stopping: a duration run ends each thread after its first acquisition at
 * or past run->end_ns; acquisitions after end_ns are drained, not counted.
 * A timed acquisition knows from t1; an untimed one reads two harness flags
 * instead of the clock: run->stop (the backend's, raised at end_ns natively,
 * and the watchdog's) and run->time_up, raised by the first timed
 * acquisition past end_ns.  A timed thread still acquiring at end_ns has its
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

#define START_SKEW_NS 1000

static void set_phase(struct wl_thread *t, int phase)
{
	__atomic_store_n(&t->phase, phase, __ATOMIC_RELAXED);
}

static unsigned lock_home_node(const struct wl_run *run, unsigned lock)
{
	unsigned n0 = run->threads[0].node;

	if (run->cfg->lock_home == WL_HOME_SPREAD)
		return lock % ll_nr_nodes();
	if (run->cfg->lock_home == WL_HOME_RANDOM)
		return (unsigned)(mix64(run->seed ^ mix64(lock + 0x686f6d65ull)) % ll_nr_nodes());

	for (unsigned i = 1; i < run->nthreads; i++)
		if (run->threads[i].node != n0)
			return 0;
	return n0;
}

static size_t lock_bytes(const struct wl_run *run)
{
	return run->algo->lock_size + (size_t)run->nthreads * run->algo->lock_size_per_cpu;
}

/* Untimed acquisitions before the next timed one: geometric with mean K - 1
 * (floor(ln u / ln(1 - 1/K)), u uniform in (0, 1], from a splitmix64). */
static uint64_t next_skip(struct wl_thread *t, unsigned k)
{
	double u;

	if (k <= 1)
		return 0;
	t->sample_state += 0x9e3779b97f4a7c15ull;
	u = (double)((mix64(t->sample_state) >> 11) + 1) * 0x1p-53;
	return (uint64_t)(log(u) / log1p(-1.0 / k));
}

/* Whether this acquisition is one of the timed sample. */
static bool take_sample(struct wl_run *run, struct wl_thread *t)
{
	if (t->skip) {
		t->skip--;
		return false;
	}
	t->skip = next_skip(t, run->cfg->time_every);
	return true;
}

static int setup_thread(struct wl_run *run, struct wl_thread *t, unsigned tid)
{
	const struct wl_config *cfg = run->cfg;

	t->tid = tid;
	t->ctx = calloc(cfg->locks, sizeof(void *));
	if (!t->ctx)
		return -1;
	for (unsigned l = 0; l < cfg->locks; l++) {
		size_t sz = run->algo->ctx_size ? run->algo->ctx_size : 1;

		t->ctx[l] = ll_alloc_on(sz, t->node);
		if (!t->ctx[l])
			return -1;
		ll_mem_tag(t->ctx[l], sz, LL_TAG_CTX);
	}
	if (ll_hist_init(&t->wait))
		return -1;
	if (run->algo->kind == LOCK_RWLOCK) {
		if (ll_hist_init(&t->wait_read) || ll_hist_init(&t->wait_write))
			return -1;
		t->read_spans = calloc(WL_READ_SPANS, sizeof(*t->read_spans));
		if (!t->read_spans)
			return -1;
	}
	t->seed = mix64(run->seed ^ mix64(tid + 1));
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!r)
		return -1;
	gsl_rng_set(r, (unsigned long)t->seed);
	t->rng = r;
	t->sample_state = mix64(t->seed);
	t->skip = next_skip(t, cfg->time_every);
	return 0;
}

static size_t data_bytes(const struct wl_run *run)
{
	return run->cfg->cs_lines * sizeof(struct wl_data_line);
}

/* The checker's line: harness memory, outside the model (see the top). */
static struct wl_check *alloc_check(void)
{
	struct wl_check *c = aligned_alloc(sizeof(*c), sizeof(*c));

	if (c) {
		memset(c, 0, sizeof(*c));
		c->last_holder = -1;
	}
	return c;
}

static int setup_slot(struct wl_run *run, struct wl_lock_slot *s, unsigned lock)
{
	s->home_node = lock_home_node(run, lock);
	s->lock = ll_alloc_on(lock_bytes(run), s->home_node);
	s->check = alloc_check();
	if (!s->lock || !s->check)
		return -1;
	ll_mem_tag(s->lock, lock_bytes(run), LL_TAG_LOCK);
	if (data_bytes(run)) {
		s->data = ll_alloc_on(data_bytes(run), s->home_node);
		if (!s->data)
			return -1;
		ll_mem_tag(s->data, data_bytes(run), LL_TAG_DATA);
	}
	run->algo->init(s->lock, run->nthreads);
	if (run->algo->kind == LOCK_REFCOUNT)
		s->ref_initial = run->algo->count(s->lock);
	return 0;
}

int wl_setup(struct wl_run *run)
{
	const struct wl_config *cfg = run->cfg;

	run->time_up = 0;
	if (run->custom)
		return run->custom->setup(run);
	run->slots = calloc(cfg->locks, sizeof(*run->slots));
	if (!run->slots)
		return -1;
	for (unsigned l = 0; l < cfg->locks; l++)
		if (setup_slot(run, &run->slots[l], l))
			return -1;
	for (unsigned i = 0; i < run->nthreads; i++)
		if (setup_thread(run, &run->threads[i], i))
			return -1;
	return 0;
}

void wl_teardown(struct wl_run *run)
{
	const struct wl_config *cfg = run->cfg;

	if (run->custom) {
		run->custom->teardown(run);
		return;
	}
	if (run->slots) {
		for (unsigned l = 0; l < cfg->locks; l++) {
			struct wl_lock_slot *s = &run->slots[l];

			if (s->lock) {
				if (run->algo->destroy)
					run->algo->destroy(s->lock);
				ll_free(s->lock, lock_bytes(run));
			}
			if (s->data)
				ll_free(s->data, data_bytes(run));
			free(s->check);
		}
		free(run->slots);
		run->slots = NULL;
	}
	for (unsigned i = 0; run->threads && i < run->nthreads; i++) {
		struct wl_thread *t = &run->threads[i];

		for (unsigned l = 0; t->ctx && l < cfg->locks; l++)
			if (t->ctx[l])
				ll_free(t->ctx[l], run->algo->ctx_size ? run->algo->ctx_size : 1);
		free(t->ctx);
		t->ctx = NULL;
		wl_handoff_free(&t->handoff_from);
		ll_hist_free(&t->wait);
		ll_hist_free(&t->wait_read);
		ll_hist_free(&t->wait_write);
		free(t->read_spans);
		t->read_spans = NULL;
		if (t->rng)
			gsl_rng_free(t->rng);
		t->rng = NULL;
	}
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
static int64_t peek(const int64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static void poke(int64_t *p, int64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* The handoff record: who held this lock before me, and was it my socket? */
static void record_handoff(struct wl_run *run, struct wl_thread *t, struct wl_check *c, bool counted)
{
	int64_t prev = peek(&c->last_holder);

	if (counted && prev >= 0 && (unsigned)prev != t->tid) {
		t->handoffs++;
		(void)wl_handoff_add(&t->handoff_from, (unsigned)prev);
		if (run->threads[prev].node == t->node)
			t->handoffs_local++;
	}
	poke(&c->last_holder, (int64_t)t->tid);
}

/* Write the protected lines: a plain store to each, as a critical section
 * updating shared state does. */
static void write_data(struct wl_lock_slot *s, unsigned cs_lines, int64_t v)
{
	for (unsigned i = 0; i < cs_lines; i++)
		ll_store(&s->data[i].value, v, LL_RELAXED);
}

static void read_data(struct wl_lock_slot *s, unsigned cs_lines)
{
	for (unsigned i = 0; i < cs_lines; i++)
		(void)ll_load(&s->data[i].value, LL_RELAXED);
}

static void writer_section(struct wl_run *run, struct wl_thread *t, struct wl_lock_slot *s, bool counted)
{
	struct wl_check *c = s->check;
	int64_t me = (int64_t)t->tid + 1, writes = peek(&c->writes) + 1;

	if (peek(&c->owner) != 0)
		report_violation(run, t, "entered while another writer was inside");
	poke(&c->owner, me);
	record_handoff(run, t, c, counted);
	write_data(s, run->cfg->cs_lines, writes);
	ll_delay_ns(run->cfg->cs_ns);
	ll_sync();
	if (peek(&c->owner) != me)
		report_violation(run, t, "was inside when another writer entered");
	poke(&c->writes, writes);
	poke(&c->owner, 0);
}

/* A read section: only loads of the protected lines (see the top). */
static void reader_section(struct wl_run *run, struct wl_thread *t, struct wl_lock_slot *s)
{
	struct wl_check *c = s->check;
	int64_t seen = peek(&c->writes);

	if (peek(&c->owner) != 0)
		report_violation(run, t, "read while a writer was inside");
	read_data(s, run->cfg->cs_lines);
	ll_delay_ns(run->cfg->cs_ns);
	ll_sync();
	if (peek(&c->owner) != 0 || peek(&c->writes) != seen)
		report_violation(run, t, "was reading when a writer entered");
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

/* One acquisition: timed or not, when (timed), and whether it is past the
 * end of a duration run (see the top). */
struct wl_acq {
	bool timed, is_read, past;
	uint64_t t0, t1; /* 0 when untimed */
};

static uint64_t stamp(bool timed)
{
	return timed ? ll_now_ns() : 0;
}

static bool past_end(struct wl_run *run, const struct wl_acq *a)
{
	if (!run->end_ns)
		return false;
	if (a->timed)
		return a->t1 >= run->end_ns;
	return __atomic_load_n(&run->stop, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&run->time_up, __ATOMIC_RELAXED);
}

static inline void acquired(struct wl_run *run, struct wl_thread *t, struct wl_acq *a)
{
	a->past = past_end(run, a);
	set_phase(t, PH_HOLDING);
}

static void mutex_op(struct wl_run *run, struct wl_thread *t, unsigned l, struct wl_acq *a)
{
	struct wl_lock_slot *s = &run->slots[l];

	a->t0 = stamp(a->timed);
	run->algo->lock(s->lock, t->ctx[l]);
	a->t1 = stamp(a->timed);
	acquired(run, t, a);
	writer_section(run, t, s, !a->past);
	run->algo->unlock(s->lock, t->ctx[l]);
}

static void read_op(struct wl_run *run, struct wl_thread *t, struct wl_lock_slot *s, void *ctx,
		    struct wl_acq *a)
{
	bool span = t->nread_spans < WL_READ_SPANS;

	run->algo->read_lock(s->lock, ctx);
	a->t1 = stamp(a->timed || span);
	acquired(run, t, a);
	reader_section(run, t, s);
	if (span)
		record_read_span(run, t, a->t1);
	run->algo->read_unlock(s->lock, ctx);
}

static void rwlock_op(struct wl_run *run, struct wl_thread *t, unsigned l, struct wl_acq *a)
{
	struct wl_lock_slot *s = &run->slots[l];

	a->is_read = gsl_rng_uniform_int(t->rng, 100) < run->cfg->read_pct;
	a->t0 = stamp(a->timed);
	if (a->is_read) {
		read_op(run, t, s, t->ctx[l], a);
	} else {
		run->algo->write_lock(s->lock, t->ctx[l]);
		a->t1 = stamp(a->timed);
		acquired(run, t, a);
		writer_section(run, t, s, !a->past);
		run->algo->write_unlock(s->lock, t->ctx[l]);
	}
}

static void refcount_op(struct wl_run *run, struct wl_thread *t, unsigned l, struct wl_acq *a)
{
	struct wl_lock_slot *s = &run->slots[l];

	a->t0 = stamp(a->timed);
	run->algo->get(s->lock, t->ctx[l]);
	a->t1 = stamp(a->timed);
	acquired(run, t, a);
	ll_delay_ns(run->cfg->cs_ns);
	run->algo->put(s->lock, t->ctx[l]);
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

/* Count (or drain) one acquisition, and its wait when it was timed; true
 * when it was past the end of the run. */
static bool count_acquisition(struct wl_run *run, struct wl_thread *t, const struct wl_acq *a)
{
	if (a->timed)
		__atomic_store_n(&t->last_progress_ns, a->t1, __ATOMIC_RELAXED);
	if (a->past) {
		if (a->timed)
			__atomic_store_n(&run->time_up, 1, __ATOMIC_RELAXED);
		t->acquisitions_after++;
		if (a->timed && a->t0 < run->end_ns)
			record_wait(run, t, a->is_read, run->end_ns - a->t0);
		return true;
	}
	t->acquisitions++;
	if (run->algo->kind == LOCK_RWLOCK && a->is_read)
		t->reads++;
	else if (run->algo->kind == LOCK_RWLOCK)
		t->writes++;
	if (a->timed) {
		t->timed++;
		record_wait(run, t, a->is_read, a->t1 - a->t0);
	}
	return false;
}

bool wl_thread_done(struct wl_run *run, struct wl_thread *t)
{
	if (__atomic_load_n(&run->stop, __ATOMIC_ACQUIRE))
		return true;
	if (run->cfg->ops)
		return t->acquisitions >= run->cfg->ops;
	return false;
}

void wl_thread_main(struct wl_run *run, unsigned tid)
{
	const struct wl_config *cfg = run->cfg;
	struct wl_thread *t = &run->threads[tid];

	if (run->custom) {
		run->custom->thread_main(run, tid);
		return;
	}
	/* Threads never leave a start barrier in lockstep: a seeded skew of up
	 * to 1 us.  In the simulator it is also what makes one seed's
	 * interleaving differ from another's when every delay is fixed. */
	ll_delay_ns(gsl_rng_uniform_int(t->rng, START_SKEW_NS));
	while (!wl_thread_done(run, t)) {
		uint64_t d = ncs_delay(cfg, t);
		unsigned l = pick_lock(cfg, t);
		struct wl_acq a = { .timed = take_sample(run, t) };

		if (d)
			ll_delay_ns(d);
		set_phase(t, PH_ACQUIRING);
		switch (run->algo->kind) {
		case LOCK_MUTEX:
			mutex_op(run, t, l, &a);
			break;
		case LOCK_RWLOCK:
			rwlock_op(run, t, l, &a);
			break;
		default:
			refcount_op(run, t, l, &a);
			break;
		}
		set_phase(t, PH_OUTSIDE);
		if (count_acquisition(run, t, &a))
			break;
	}
	__atomic_store_n(&t->finish_ns, ll_now_ns(), __ATOMIC_RELAXED);
	if (__atomic_add_fetch(&run->threads_out, 1, __ATOMIC_ACQ_REL) == run->nthreads &&
	    run->algo->kind == LOCK_REFCOUNT && !__atomic_load_n(&run->failed, __ATOMIC_ACQUIRE))
		check_refcounts(run);
}
