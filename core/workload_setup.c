/*
 * core/workload_setup.c - what a run of the workload loop needs before it
 * starts and gives back after: the lock objects, their protected data and
 * the checker's lines, each thread's contexts, histograms and generators.
 *
 * Modelled memory (the locks, the data, the contexts) comes from
 * ll_alloc_on, with its home node; the checker's line is plain host memory
 * (core/workload.c says why).
 */
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/mem.h>
#include <locklab/rng.h>
#include <locklab/workload.h>

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
	return wl_counts_begin(run);
}

static void teardown_slot(const struct wl_run *run, struct wl_lock_slot *s)
{
	if (s->data)
		ll_free(s->data, data_bytes(run));
	if (s->lock) {
		if (run->algo->destroy)
			run->algo->destroy(s->lock);
		ll_free(s->lock, lock_bytes(run));
	}
	free(s->check);
}

static void teardown_thread(const struct wl_run *run, struct wl_thread *t)
{
	for (unsigned l = t->ctx ? run->cfg->locks : 0; l-- > 0;)
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

/* Everything goes back in the reverse order of wl_setup: threads, then locks. */
void wl_teardown(struct wl_run *run)
{
	if (run->custom) {
		run->custom->teardown(run);
		return;
	}
	wl_counts_end();
	for (unsigned i = run->threads ? run->nthreads : 0; i-- > 0;)
		teardown_thread(run, &run->threads[i]);
	if (run->slots) {
		for (unsigned l = run->cfg->locks; l-- > 0;)
			teardown_slot(run, &run->slots[l]);
		free(run->slots);
		run->slots = NULL;
	}
}
