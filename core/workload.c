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
 * sweeps them after the run.
 *
 * Refcounts: each operation is a get, the critical delay, a put, on the
 * object of the chosen slot.  The last thread to leave the loop reads every
 * object's count; one that differs from its count after init means the
 * algorithm lost or invented an update, and fails the run.
 *
 * Stopping: a duration run ends each thread after its first acquisition at
 * or past run->end_ns (the acquisition timestamp is taken anyway, so the
 * check costs nothing); acquisitions after end_ns are drained, not counted.
 * A thread still acquiring at end_ns has its wait censored there: it counts
 * as a wait of end_ns - t0 (in every wait figure), but not as an acquisition.
 * An --ops run ends each thread after cfg->ops acquisitions.  run->stop is a
 * harness flag (the watchdog's): it is not modelled memory.
 */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/mem.h>
#include <locklab/workload.h>

#define START_SKEW_NS 1000

static void set_phase(struct wl_thread *t, int phase)
{
	__atomic_store_n(&t->phase, phase, __ATOMIC_RELAXED);
}

static uint64_t mix64(uint64_t x);

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

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
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
	if (cfg->locks <= 1)
		return 0;
	return (unsigned)gsl_rng_uniform_int(t->rng, cfg->locks);
}

/* One acquisition of a mutex: returns the time it was acquired. */
static uint64_t mutex_op(struct wl_run *run, struct wl_thread *t, unsigned l, uint64_t *t0)
{
	struct wl_lock_slot *s = &run->slots[l];
	uint64_t t1;

	*t0 = ll_now_ns();
	run->algo->lock(s->lock, t->ctx[l]);
	t1 = ll_now_ns();
	set_phase(t, PH_HOLDING);
	writer_section(run, t, s, !run->end_ns || t1 < run->end_ns);
	run->algo->unlock(s->lock, t->ctx[l]);
	return t1;
}

static uint64_t rwlock_op(struct wl_run *run, struct wl_thread *t, unsigned l, uint64_t *t0, bool *is_read)
{
	struct wl_lock_slot *s = &run->slots[l];
	uint64_t t1;

	*is_read = gsl_rng_uniform_int(t->rng, 100) < run->cfg->read_pct;
	*t0 = ll_now_ns();
	if (*is_read) {
		run->algo->read_lock(s->lock, t->ctx[l]);
		t1 = ll_now_ns();
		set_phase(t, PH_HOLDING);
		reader_section(run, t, s);
		record_read_span(run, t, t1);
		run->algo->read_unlock(s->lock, t->ctx[l]);
	} else {
		run->algo->write_lock(s->lock, t->ctx[l]);
		t1 = ll_now_ns();
		set_phase(t, PH_HOLDING);
		writer_section(run, t, s, !run->end_ns || t1 < run->end_ns);
		run->algo->write_unlock(s->lock, t->ctx[l]);
	}
	return t1;
}

static uint64_t refcount_op(struct wl_run *run, struct wl_thread *t, unsigned l, uint64_t *t0)
{
	struct wl_lock_slot *s = &run->slots[l];
	uint64_t t1;

	*t0 = ll_now_ns();
	run->algo->get(s->lock, t->ctx[l]);
	t1 = ll_now_ns();
	set_phase(t, PH_HOLDING);
	ll_delay_ns(run->cfg->cs_ns);
	run->algo->put(s->lock, t->ctx[l]);
	return t1;
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
		uint64_t t0, t1, d = ncs_delay(cfg, t);
		unsigned l = pick_lock(cfg, t);
		bool is_read = false;

		if (d)
			ll_delay_ns(d);
		set_phase(t, PH_ACQUIRING);
		switch (run->algo->kind) {
		case LOCK_MUTEX:
			t1 = mutex_op(run, t, l, &t0);
			break;
		case LOCK_RWLOCK:
			t1 = rwlock_op(run, t, l, &t0, &is_read);
			break;
		default:
			t1 = refcount_op(run, t, l, &t0);
			break;
		}
		set_phase(t, PH_OUTSIDE);
		__atomic_store_n(&t->last_progress_ns, t1, __ATOMIC_RELAXED);
		if (run->end_ns && t1 >= run->end_ns) {
			t->acquisitions_after++;
			if (t0 < run->end_ns)
				record_wait(run, t, is_read, run->end_ns - t0);
			break;
		}
		t->acquisitions++;
		if (run->algo->kind == LOCK_RWLOCK && is_read)
			t->reads++;
		else if (run->algo->kind == LOCK_RWLOCK)
			t->writes++;
		record_wait(run, t, is_read, t1 - t0);
	}
	__atomic_store_n(&t->finish_ns, ll_now_ns(), __ATOMIC_RELAXED);
	if (__atomic_add_fetch(&run->threads_out, 1, __ATOMIC_ACQ_REL) == run->nthreads &&
	    run->algo->kind == LOCK_REFCOUNT && !__atomic_load_n(&run->failed, __ATOMIC_ACQUIRE))
		check_refcounts(run);
}

/* Sweep line over all recorded spans: +1 at each start, -1 at each end,
 * ends first at equal times (sections that only touch do not overlap).
 * An event is (time << 1 | is_start), so one sort orders both. */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

unsigned wl_max_readers(const struct wl_run *run)
{
	size_t n = 0, k = 0;
	uint64_t *ev;
	unsigned in = 0, max = 0;

	for (unsigned i = 0; i < run->nthreads; i++)
		n += run->threads[i].nread_spans;
	if (n == 0)
		return 0;
	ev = malloc(2 * n * sizeof(*ev));
	if (!ev)
		return 0;
	for (unsigned i = 0; i < run->nthreads; i++)
		for (unsigned j = 0; j < run->threads[i].nread_spans; j++) {
			const struct wl_span *sp = &run->threads[i].read_spans[j];

			if (sp->to <= sp->from)
				continue; /* empty: overlaps nothing */
			ev[k++] = sp->from << 1 | 1;
			ev[k++] = sp->to << 1;
		}
	qsort(ev, k, sizeof(*ev), cmp_u64);
	for (size_t i = 0; i < k; i++) {
		if (ev[i] & 1) {
			if (++in > max)
				max = in;
		} else {
			in--;
		}
	}
	free(ev);
	return max;
}
