/*
 * native/tools/calib_measure.c - the measuring pass of `locklab-native
 * calibrate`, ccbench-style (David, Guerraoui, Trigonakis, SOSP 2013).
 *
 * One figure is the time a requester (cpu A) takes for one operation on a
 * cache line that another core (cpu B, the owner) has just put in a given
 * state.  A and B are pinned threads; B (and any helper) obeys commands A
 * posts in a mailbox line, so that A knows the line's state before it
 * starts its clock:
 *
 *   M   B stores to the line                      (B holds it Modified)
 *   E   A flushes it (clflush), B loads it        (B holds it Exclusive: a
 *       load that finds no other copy gets E on x86; nothing can verify it
 *       from user space, so E is "the state such a load leaves")
 *   S   A flushes it, B loads it, then a third PU C in B's socket loads it.
 *       Where there is no such PU (a 2-core machine), A loads it itself and
 *       then evicts its own copy by walking a buffer twice the size of its
 *       private caches: B keeps its shared copy, A's next access misses.
 *       A figure that looks like a hit says the walk failed.
 *   I   A flushes it                              (only memory holds it)
 *
 * and then A times one load, store (with a fence, so that the store's
 * ownership request is inside the measurement), cas, fetch-add or swap.
 * Time is the TSC, read between fences; the cost of the fences alone (the
 * least of empty measurements before and beside a figure's samples) is
 * subtracted.
 *
 * Hits (hit.* of the platform file) are timed on the requester's own
 * Modified line, 32 operations a sample (loads chained by a dependency),
 * and divided; pause is 256 pauses a sample.
 *
 * Every figure is `reps` samples; outliers (an interrupt, a preempted
 * helper) beyond 3 x IQR from the quartiles are dropped, and the median,
 * p10, p90 and MAD of the rest are kept.
 *
 * Distance classes: on a machine with several sockets the load-of-M
 * latency of every socket pair is measured first (fewer samples) and the
 * pairs are grouped into classes (a new class when a pair is more than 20%
 * slower than the fastest of the current one); every figure is then
 * measured for one representative pair of each class.  Class 0 is two PUs
 * of one socket.  Memory latency is measured from the first PU to every
 * NUMA node; the I row of each class uses memory on the owner's node.
 * The directory fan-out (inval_per_sharer) is the slope of a store on a
 * line shared by 1..k PUs of A's socket, when the socket has three PUs.
 * Last, the wake of a sleeping thread (calib_wake.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_fit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include <locklab/mem.h>

#include "calib_measure.h"

#if CAL_X86

/* ------------------------------------------------------- statistics */

/* Sorts x[0..n), drops the values beyond 3 x IQR from the quartiles, and
 * fills the robust figures of what is left. */
void cal_summarize(double *x, unsigned n, struct calib_cell *out)
{
	double q1, q3, iqr, lo, hi;
	unsigned a = 0, b = n;

	out->measured = true;
	out->samples = n;
	gsl_sort(x, 1, n);
	q1 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.25);
	q3 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.75);
	iqr = q3 - q1;
	lo = q1 - 3 * iqr;
	hi = q3 + 3 * iqr;
	while (a < b && x[a] < lo)
		a++;
	while (b > a && x[b - 1] > hi)
		b--;
	out->trimmed = n - (b - a);
	x += a;
	n = b - a;
	out->median = gsl_stats_median_from_sorted_data(x, 1, n);
	out->p10 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.10);
	out->p90 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.90);
	for (unsigned i = 0; i < n; i++)
		x[i] = fabs(x[i] - out->median);
	gsl_sort(x, 1, n);
	out->mad = gsl_stats_median_from_sorted_data(x, 1, n);
}

/* ---------------------------------------------------- clock and costs */

double cal_ticks_per_ns(void)
{
	double r[3];

	for (int i = 0; i < 3; i++) {
		struct timespec d = { 0, 20000000 };
		uint64_t n0 = ll_now_ns(), t0 = __rdtsc();

		nanosleep(&d, NULL);
		uint64_t t1 = __rdtsc(), n1 = ll_now_ns();

		r[i] = (double)(t1 - t0) / (double)(n1 - n0);
	}
	gsl_sort(r, 1, 3);
	return r[1];
}

double cal_tsc_step_ns(double ticks_per_ns)
{
	uint64_t step = UINT64_MAX, t = __rdtsc();

	for (int i = 0; i < 100000; i++) {
		uint64_t u = __rdtsc();

		if (u > t && u - t < step)
			step = u - t;
		t = u;
	}
	return step == UINT64_MAX ? 0 : (double)step / ticks_per_ns;
}

/* The fences' own cost: the least of reps back-to-back pairs.  An
 * interrupt or a steal of the cpu only adds to a pair, so on a busy
 * machine the median can exceed a whole batch's time and would zero it;
 * the least is the pair that met none. */
static void measure_overhead(struct cal *x)
{
	double least = HUGE_VAL;

	for (unsigned r = 0; r < x->o->reps; r++) {
		uint64_t t0 = tsc_fenced(), t1 = tsc_fenced();

		if ((double)(t1 - t0) < least)
			least = (double)(t1 - t0);
	}
	x->overhead_ticks = least;
}

/* The time between two fenced reads of the TSC less the fences' own
 * cost (measure_overhead); never below zero. */
static inline double elapsed_ns(const struct cal *x, uint64_t t0, uint64_t t1)
{
	double ns = ((double)(t1 - t0) - x->overhead_ticks) / x->ticks_per_ns;

	return ns > 0 ? ns : 0;
}

/* CAL_BATCH operations on the requester's own line: loads each depend on
 * the last (an AND with zero the processor cannot see through), so that
 * their latency adds up rather than overlapping. */
static inline void do_batch(enum calib_op op, uint64_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < CAL_BATCH; i++) {
		if (op == CAL_LOAD) {
			uintptr_t off = v;

			__asm__("and $0, %0" : "+r"(off));
			v = __atomic_load_n((uint64_t *)((char *)p + off), __ATOMIC_RELAXED);
		} else {
			do_op(op, p);
		}
	}
	keep(v);
}

/* The line sits in the middle of a 4 KiB block of its own, on `node`. */
static uint64_t *line_alloc(unsigned node, void **block)
{
	*block = ll_alloc_on(CAL_BLOCK, node);
	return *block ? (uint64_t *)((char *)*block + CAL_LINE_OFF) : NULL;
}

static void evict_own(struct cal *x)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < x->walk_len; i += 64)
		sum += (unsigned char)__atomic_load_n(&x->walk[i], __ATOMIC_RELAXED);
	keep(sum);
}

/* Helper 0 is the owner B; helper 1, when there is one, the third PU. */
static void prepare(struct cal *x, enum calib_state st, uint64_t *line)
{
	switch (st) {
	case CAL_M:
		cal_order(x, 0, CMD_STORE, line);
		break;
	case CAL_E:
		line_flush(line);
		cal_order(x, 0, CMD_LOAD, line);
		break;
	case CAL_S:
		line_flush(line);
		cal_order(x, 0, CMD_LOAD, line);
		if (x->nh > 1) {
			cal_order(x, 1, CMD_LOAD, line);
		} else {
			keep(__atomic_load_n(line, __ATOMIC_RELAXED));
			evict_own(x);
		}
		break;
	default:
		line_flush(line);
		break;
	}
}

/* One figure: reps samples of op on a line prepared in state st.  Beside
 * each sample an empty pair of fenced reads: the fences' cost is the least
 * of those and of every pair before (measure_overhead), subtracted once the
 * cell is done.  The fences cost more while a sibling hardware thread or
 * the host keeps the core busy; an overhead taken only before, in such a
 * phase, would exceed the fences of a quiet cell and zero its samples. */
static void measure_cell(struct cal *x, enum calib_op op, enum calib_state st, uint64_t *line,
			 unsigned reps, struct calib_cell *out)
{
	for (unsigned r = 0; r < reps && !x->failed; r++) {
		prepare(x, st, line);
		uint64_t e0 = tsc_fenced(), e1 = tsc_fenced();
		uint64_t t0 = tsc_fenced();

		do_op(op, line);
		uint64_t t1 = tsc_fenced();

		if ((double)(e1 - e0) < x->overhead_ticks)
			x->overhead_ticks = (double)(e1 - e0);
		x->samples[r] = (double)(t1 - t0); /* ticks, until the cell ends */
	}
	if (x->failed)
		return;
	for (unsigned r = 0; r < reps; r++)
		x->samples[r] = elapsed_ns(x, 0, (uint64_t)x->samples[r]);
	cal_summarize(x->samples, reps, out);
}

/* Operations on a line the requester holds Modified (per operation, from
 * a batch), and one pause. */
static void measure_local(struct cal *x, int cpu)
{
	void *block;
	uint64_t *line = line_alloc(native_node_of_cpu((unsigned)cpu), &block);

	if (!line) {
		x->failed = 1;
		snprintf(x->failure, sizeof(x->failure), "out of memory");
		return;
	}
	for (int op = 0; op < CAL_NOPS; op++) {
		for (unsigned r = 0; r < x->o->reps; r++) {
			__atomic_store_n(line, 0, __ATOMIC_RELAXED);
			uint64_t t0 = tsc_fenced();

			do_batch((enum calib_op)op, line);
			uint64_t t1 = tsc_fenced();

			x->samples[r] = elapsed_ns(x, t0, t1) / CAL_BATCH;
		}
		cal_summarize(x->samples, x->o->reps, &x->c->hit[op]);
		x->c->hit[op].cpu_a = cpu;
		x->c->hit[op].cpu_b = -1;
	}
	for (unsigned r = 0; r < x->o->reps; r++) {
		uint64_t t0 = tsc_fenced();

		for (int i = 0; i < CAL_PAUSES; i++)
			_mm_pause();
		uint64_t t1 = tsc_fenced();

		x->samples[r] = elapsed_ns(x, t0, t1) / CAL_PAUSES;
	}
	cal_summarize(x->samples, x->o->reps, &x->c->pause);
	x->c->pause.cpu_a = cpu;
	x->c->pause.cpu_b = -1;
	ll_free(block, CAL_BLOCK);
}

/* Load of an uncached line from `cpu`, memory on each NUMA node. */
static void measure_memory(struct cal *x, int cpu)
{
	for (unsigned n = 0; n < x->c->nnodes && !x->failed; n++) {
		void *block;
		uint64_t *line = line_alloc(n, &block);

		if (!line)
			continue;
		measure_cell(x, CAL_LOAD, CAL_I, line, x->o->reps, &x->c->mem[n]);
		x->c->mem[n].cpu_a = cpu;
		x->c->mem[n].cpu_b = -1;
		ll_free(block, CAL_BLOCK);
	}
}

/* ------------------------------------------------------ the machine */

static unsigned pu_socket(const struct native_machine *m, int cpu)
{
	for (unsigned s = 0; s < m->nsockets; s++)
		for (unsigned i = 0; i < m->sockets[s].npus; i++)
			if (m->sockets[s].pus[i] == (unsigned)cpu)
				return s;
	return 0;
}

/* A PU of socket s that is neither a nor b; -1 when there is none. */
static int third_pu(const struct native_machine *m, unsigned s, int a, int b)
{
	for (unsigned i = 0; i < m->sockets[s].npus; i++) {
		int p = (int)m->sockets[s].pus[i];

		if (p != a && p != b)
			return p;
	}
	return -1;
}

/* Bytes of the caches above PU a that PU b does not share, times two. */
static size_t private_cache_bytes(const struct native_machine *m, int a, int b)
{
	hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(m->topo, (unsigned)a);
	hwloc_obj_t other = hwloc_get_pu_obj_by_os_index(m->topo, (unsigned)b);
	size_t sum = 0;

	for (hwloc_obj_t o = pu ? pu->parent : NULL; o; o = o->parent) {
		if (!hwloc_obj_type_is_dcache(o->type) || !o->attr)
			continue;
		if (other && hwloc_bitmap_isset(o->cpuset, other->os_index))
			break;
		sum += (size_t)o->attr->cache.size;
	}
	sum *= 2;
	if (sum < (1u << 20))
		sum = 1u << 20;
	if (sum > (64u << 20))
		sum = 64u << 20;
	return sum;
}

/* ------------------------------------------------------- the classes */

static void progress(const struct cal *x, const char *what, unsigned k, int a, int b)
{
	if (!x->o->progress)
		return;
	fprintf(stderr, "calibrate: %s class %u: cpu %d <- cpu %d\n", what, k, a, b);
}

/* Every figure of class k, for requester a and owner b. */
static void measure_class(struct cal *x, unsigned k, int a, int b)
{
	const struct native_machine *m = x->m;
	int cpus[2] = { b, third_pu(m, pu_socket(m, b), a, b) };
	void *block;
	uint64_t *line;

	x->c->s_by_eviction[k] = cpus[1] < 0;
	progress(x, "measuring", k, a, b);
	if (native_pin_self((unsigned)a)) {
		x->failed = 1;
		snprintf(x->failure, sizeof(x->failure), "cannot bind to cpu %d", a);
		return;
	}
	line = line_alloc(native_node_of_cpu((unsigned)b), &block);
	x->walk_len = private_cache_bytes(m, a, b);
	x->walk = malloc(x->walk_len);
	if (x->walk) /* real pages: untouched ones would all be the zero page */
		memset(x->walk, 1, x->walk_len);
	if (!line || !x->walk || cal_start_helpers(x, cpus, cpus[1] >= 0 ? 2 : 1)) {
		if (!x->failed)
			snprintf(x->failure, sizeof(x->failure), "out of memory");
		x->failed = 1;
	}
	for (int op = 0; op < CAL_NOPS && !x->failed; op++)
		for (int st = 0; st < CAL_NSTATES && !x->failed; st++) {
			struct calib_cell *cell = &x->c->cell[op][st][k];

			measure_cell(x, (enum calib_op)op, (enum calib_state)st, line, x->o->reps, cell);
			cell->cpu_a = a;
			cell->cpu_b = st == CAL_I ? -1 : b;
		}
	cal_stop_helpers(x);
	free(x->walk);
	x->walk = NULL;
	if (line)
		ll_free(block, CAL_BLOCK);
}

/* Load-of-M latency from PU a to PU b, with a quarter of the samples. */
static double pair_latency(struct cal *x, int a, int b)
{
	unsigned reps = x->o->reps / CAL_PAIR_SHARE;
	struct calib_cell cell;
	void *block;
	uint64_t *line;

	if (reps < CAL_MIN_REPS)
		reps = CAL_MIN_REPS;
	memset(&cell, 0, sizeof(cell));
	if (native_pin_self((unsigned)a) || cal_start_helpers(x, &b, 1)) {
		x->failed = 1;
		cal_stop_helpers(x);
		return NAN;
	}
	line = line_alloc(native_node_of_cpu((unsigned)b), &block);
	if (line) {
		measure_cell(x, CAL_LOAD, CAL_M, line, reps, &cell);
		ll_free(block, CAL_BLOCK);
	}
	cal_stop_helpers(x);
	return cell.median;
}

/* Survey every socket pair, then measure each class in full. */
static void measure_classes(struct cal *x)
{
	const struct native_machine *m = x->m;
	struct calib *c = x->c;
	unsigned ns = m->nsockets, rep[CALIB_MAX_CLASSES][2];
	double *lat = calloc(ns * ns, sizeof(*lat));

	if (!lat) {
		x->failed = 1;
		snprintf(x->failure, sizeof(x->failure), "out of memory");
		return;
	}
	for (unsigned s = 0; s < ns && !x->failed; s++)
		for (unsigned t = s + 1; t < ns && !x->failed; t++) {
			int a = (int)m->sockets[s].pus[0], b = (int)m->sockets[t].pus[0];

			progress(x, "surveying", 0, a, b);
			lat[s * ns + t] = pair_latency(x, a, b);
		}
	if (!x->failed)
		calib_group_pairs(c, lat, rep);
	free(lat);
	for (unsigned k = 0; k < c->nclasses && !x->failed; k++) {
		int a = (int)m->sockets[k ? rep[k][0] : 0].pus[0];
		int b = (int)(k ? m->sockets[rep[k][1]].pus[0] : m->sockets[0].pus[1]);

		measure_class(x, k, a, b);
	}
	if (!x->failed)
		calib_link_latencies(c);
}

/* Store on a line shared by 1..k PUs of the requester's socket. */
static void measure_fanout(struct cal *x)
{
	const struct native_socket *s = &x->m->sockets[0];
	unsigned k = s->npus - 1 < CAL_MAX_HELPERS ? s->npus - 1 : CAL_MAX_HELPERS;
	int cpus[CAL_MAX_HELPERS];
	double xs[CAL_MAX_HELPERS], ys[CAL_MAX_HELPERS], c0, c1, cov00, cov01, cov11, sumsq;
	void *block;
	uint64_t *line;

	if (s->npus < 3)
		return;
	for (unsigned i = 0; i < k; i++)
		cpus[i] = (int)s->pus[i + 1];
	line = line_alloc(native_node_of_cpu(s->pus[0]), &block);
	if (!line || native_pin_self(s->pus[0]) || cal_start_helpers(x, cpus, k)) {
		cal_stop_helpers(x);
		if (line)
			ll_free(block, CAL_BLOCK);
		return;
	}
	for (unsigned n = 1; n <= k && !x->failed; n++) {
		struct calib_cell cell;

		for (unsigned r = 0; r < x->o->reps && !x->failed; r++) {
			line_flush(line);
			for (unsigned i = 0; i < n; i++)
				cal_order(x, i, CMD_LOAD, line);
			uint64_t t0 = tsc_fenced();

			do_op(CAL_STORE, line);
			x->samples[r] = elapsed_ns(x, t0, tsc_fenced());
		}
		cal_summarize(x->samples, x->o->reps, &cell);
		xs[n - 1] = n;
		ys[n - 1] = cell.median;
	}
	cal_stop_helpers(x);
	ll_free(block, CAL_BLOCK);
	if (x->failed || k < 2)
		return;
	gsl_fit_linear(xs, 1, ys, 1, k, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
	x->c->inval_measured = true;
	x->c->inval_per_sharer_ns = c1 > 0 ? c1 : 0;
}

/* The sleeper of the wake figures: the second PU of socket 0 (where the
 * class-0 figures are taken), else the first of socket 1; -1 on a machine
 * of one PU. */
static int wake_partner(const struct native_machine *m)
{
	if (m->sockets[0].npus > 1)
		return (int)m->sockets[0].pus[1];
	return m->nsockets > 1 && m->sockets[1].npus ? (int)m->sockets[1].pus[0] : -1;
}

void *cal_measure_all(void *arg)
{
	struct cal *x = arg;
	int a = (int)x->m->sockets[0].pus[0];

	if (native_pin_self((unsigned)a)) {
		x->failed = 1;
		snprintf(x->failure, sizeof(x->failure), "cannot bind to cpu %d", a);
		return NULL;
	}
	measure_overhead(x);
	measure_local(x, a);
	if (x->o->progress)
		fprintf(stderr, "calibrate: memory from cpu %d\n", a);
	measure_memory(x, a);
	if (!x->failed)
		measure_classes(x);
	if (!x->failed)
		measure_fanout(x);
	if (!x->failed && wake_partner(x->m) >= 0) {
		if (x->o->progress)
			fprintf(stderr, "calibrate: wake of a sleeper on cpu %d from cpu %d\n",
				wake_partner(x->m), a);
		cal_measure_wake(x, a, wake_partner(x->m));
	}
	return NULL;
}

#endif /* CAL_X86 */
