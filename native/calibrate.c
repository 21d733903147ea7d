/*
 * native/calibrate.c - `locklab-native calibrate`: measures what the
 * simulator needs to know about this machine, ccbench-style (David,
 * Guerraoui, Trigonakis, SOSP 2013), and writes it as a platform file
 * (results/host-HOST.xml) and as a calibration (results/host-HOST.calib.csv).
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
 * median of many empty measurements) is subtracted.
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
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include <locklab/backend.h>
#include <locklab/mem.h>
#include <locklab/result.h>

#include "../core/cli.h"
#include "native.h"
#include "validate.h"

#if defined(__x86_64__) && !defined(CAL_NO_X86)
#include <x86intrin.h>
#define CAL_X86 1
#else
#define CAL_X86 0
#endif

#define CAL_DEFAULT_REPS 300
#define CAL_MIN_REPS 10
#define CAL_MAX_REPS 100000
#define CAL_MAX_HELPERS 8
#define CAL_PAIR_SHARE 4         /* pair survey: reps / 4 samples */
#define CAL_ANSWER_NS 10000000000ull /* a helper that does not answer in 10 s */
#define CAL_BLOCK 4096           /* the line sits alone in a 4 KiB block */
#define CAL_LINE_OFF 2048
#define CAL_PAUSES 256
#define CAL_BATCH 32             /* operations a hit sample times */

/* ------------------------------------------------------ the options */

struct cal_opts {
	unsigned reps;
	const char *out;  /* the platform file */
	const char *from; /* a calibration to convert instead of measuring */
	bool progress;
	char out_buf[512];
};

__attribute__((format(printf, 1, 2)))
static int bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "locklab-native: calibrate: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static int parse_opts(int argc, char **argv, struct cal_opts *o)
{
	uint64_t v;

	memset(o, 0, sizeof(*o));
	o->reps = CAL_DEFAULT_REPS;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--progress")) {
			o->progress = true;
			continue;
		}
		if (strcmp(a, "--reps") && strcmp(a, "--out") && strcmp(a, "--from"))
			return bad("unknown option '%s' (--reps, --out, --from, --progress)", a);
		if (!val || !*val)
			return bad("%s needs a value", a);
		i++;
		if (!strcmp(a, "--out")) {
			o->out = val;
		} else if (!strcmp(a, "--from")) {
			o->from = val;
		} else {
			if (cli_parse_u64(val, &v) || v < CAL_MIN_REPS || v > CAL_MAX_REPS)
				return bad("--reps '%s': a whole number from 10 to 100000", val);
			o->reps = (unsigned)v;
		}
	}
	return 0;
}

/* ------------------------------------------------ x86 timing and lines */

#if CAL_X86
static inline uint64_t tsc_fenced(void)
{
	uint64_t t;

	_mm_mfence();
	_mm_lfence();
	t = __rdtsc();
	_mm_lfence();
	return t;
}

static inline void line_flush(uint64_t *p)
{
	_mm_clflush(p);
	_mm_mfence();
}
#endif

static inline void keep(uint64_t v)
{
	__asm__ __volatile__("" : : "r"(v) : "memory");
}

static inline void do_op(enum calib_op op, uint64_t *p)
{
	switch (op) {
	case CAL_LOAD:
		keep(__atomic_load_n(p, __ATOMIC_RELAXED));
		break;
	case CAL_STORE:
		__atomic_store_n(p, 1, __ATOMIC_RELAXED);
		break;
	case CAL_CAS: {
		uint64_t expect = 0;

		__atomic_compare_exchange_n(p, &expect, 1, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
		keep(expect);
		break;
	}
	case CAL_FAI:
		keep(__atomic_fetch_add(p, 1, __ATOMIC_SEQ_CST));
		break;
	default:
		keep(__atomic_exchange_n(p, 2, __ATOMIC_SEQ_CST));
		break;
	}
}

#if CAL_X86

/* ------------------------------------------------------- the helpers */

enum { CMD_LOAD = 1, CMD_STORE, CMD_FLUSH, CMD_QUIT };

struct helper {
	struct {
		uint64_t seq;
		uint64_t cmd;
		uint64_t *line;
	} req __attribute__((aligned(128)));
	struct {
		uint64_t done;
	} ack __attribute__((aligned(128)));
	pthread_t pt;
	int cpu;
	int bind_err;
	bool started;
};

static void helper_do(uint64_t cmd, uint64_t *line, uint64_t seq)
{
	switch (cmd) {
	case CMD_LOAD:
		keep(__atomic_load_n(line, __ATOMIC_RELAXED));
		break;
	case CMD_STORE:
		__atomic_store_n(line, seq, __ATOMIC_RELAXED);
		break;
	case CMD_FLUSH:
		line_flush(line);
		break;
	default:
		break;
	}
}

static void *helper_main(void *arg)
{
	struct helper *h = arg;
	uint64_t seen = 0;

	h->bind_err = native_pin_self((unsigned)h->cpu);
	__atomic_store_n(&h->ack.done, 0, __ATOMIC_RELEASE);
	for (;;) {
		uint64_t seq = __atomic_load_n(&h->req.seq, __ATOMIC_ACQUIRE);

		if (seq == seen) {
			ll_cpu_relax();
			continue;
		}
		seen = seq;
		uint64_t cmd = __atomic_load_n(&h->req.cmd, __ATOMIC_RELAXED);

		helper_do(cmd, __atomic_load_n(&h->req.line, __ATOMIC_RELAXED), seq);
		__atomic_store_n(&h->ack.done, seq, __ATOMIC_RELEASE);
		if (cmd == CMD_QUIT)
			return NULL;
	}
}

/* What one measurement pass works with. */
struct cal {
	const struct cal_opts *o;
	const struct native_machine *m;
	struct calib *c;
	double ticks_per_ns;
	double overhead_ticks;
	double *samples; /* reps of them */
	char *walk;      /* eviction buffer, when a pass needs it */
	size_t walk_len;
	struct helper *h[CAL_MAX_HELPERS];
	unsigned nh;
	int failed; /* a helper did not answer */
	char failure[160];
};

/* Posts a command to helper i and waits for its answer. */
static void order(struct cal *x, unsigned i, uint64_t cmd, uint64_t *line)
{
	struct helper *h = x->h[i];
	uint64_t seq = __atomic_load_n(&h->req.seq, __ATOMIC_RELAXED) + 1;
	uint64_t t0 = 0;
	unsigned spins = 0;

	if (x->failed)
		return;
	__atomic_store_n(&h->req.cmd, cmd, __ATOMIC_RELAXED);
	__atomic_store_n(&h->req.line, line, __ATOMIC_RELAXED);
	__atomic_store_n(&h->req.seq, seq, __ATOMIC_RELEASE);
	while (__atomic_load_n(&h->ack.done, __ATOMIC_ACQUIRE) != seq) {
		ll_cpu_relax();
		if (++spins % 4096)
			continue;
		if (!t0) {
			t0 = ll_now_ns();
		} else if (ll_now_ns() - t0 > CAL_ANSWER_NS) {
			snprintf(x->failure, sizeof(x->failure),
				 "the thread on cpu %d did not answer for 10 s", h->cpu);
			x->failed = 1;
			return;
		}
	}
}

static int start_helpers(struct cal *x, const int *cpus, unsigned n)
{
	x->nh = 0;
	for (unsigned i = 0; i < n; i++) {
		struct helper *h = aligned_alloc(128, sizeof(*h));

		if (!h) {
			snprintf(x->failure, sizeof(x->failure), "out of memory");
			x->failed = 1;
			return -1;
		}
		memset(h, 0, sizeof(*h));
		h->cpu = cpus[i];
		__atomic_store_n(&h->ack.done, UINT64_MAX, __ATOMIC_RELAXED);
		x->h[x->nh++] = h;
		if (pthread_create(&h->pt, NULL, helper_main, h)) {
			snprintf(x->failure, sizeof(x->failure), "cannot start a thread");
			x->failed = 1;
			return -1;
		}
		h->started = true;
		while (__atomic_load_n(&h->ack.done, __ATOMIC_ACQUIRE) == UINT64_MAX)
			sched_yield();
		if (h->bind_err) {
			snprintf(x->failure, sizeof(x->failure), "cannot bind a thread to cpu %d: %s",
				 h->cpu, strerror(h->bind_err));
			x->failed = 1;
			return -1;
		}
	}
	return 0;
}

/* Tells every helper to leave and joins it.  After a failure a helper may
 * be stuck off-cpu: it is told to leave, detached, and its mailbox kept. */
static void stop_helpers(struct cal *x)
{
	for (unsigned i = 0; i < x->nh; i++) {
		struct helper *h = x->h[i];

		if (!h->started) {
			free(h);
			continue;
		}
		if (!x->failed)
			order(x, i, CMD_QUIT, NULL);
		if (x->failed) {
			__atomic_store_n(&h->req.cmd, CMD_QUIT, __ATOMIC_RELAXED);
			__atomic_add_fetch(&h->req.seq, 1, __ATOMIC_RELEASE);
			pthread_detach(h->pt);
			continue;
		}
		pthread_join(h->pt, NULL);
		free(h);
	}
	x->nh = 0;
}

/* ------------------------------------------------------- statistics */

/* Sorts x[0..n), drops the values beyond 3 x IQR from the quartiles, and
 * fills the robust figures of what is left. */
static void summarize(double *x, unsigned n, struct calib_cell *out)
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

static double measure_ticks_per_ns(void)
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

static void measure_overhead(struct cal *x)
{
	struct calib_cell cell;

	for (unsigned r = 0; r < x->o->reps; r++) {
		uint64_t t0 = tsc_fenced(), t1 = tsc_fenced();

		x->samples[r] = (double)(t1 - t0);
	}
	summarize(x->samples, x->o->reps, &cell);
	x->overhead_ticks = cell.median;
}

/* The time between two fenced reads of the TSC less the fences' own
 * cost; never below zero. */
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
		order(x, 0, CMD_STORE, line);
		break;
	case CAL_E:
		line_flush(line);
		order(x, 0, CMD_LOAD, line);
		break;
	case CAL_S:
		line_flush(line);
		order(x, 0, CMD_LOAD, line);
		if (x->nh > 1) {
			order(x, 1, CMD_LOAD, line);
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

/* One figure: reps samples of op on a line prepared in state st. */
static void measure_cell(struct cal *x, enum calib_op op, enum calib_state st, uint64_t *line,
			 unsigned reps, struct calib_cell *out)
{
	for (unsigned r = 0; r < reps && !x->failed; r++) {
		prepare(x, st, line);
		uint64_t t0 = tsc_fenced();

		do_op(op, line);
		uint64_t t1 = tsc_fenced();

		x->samples[r] = elapsed_ns(x, t0, t1);
	}
	if (!x->failed)
		summarize(x->samples, reps, out);
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
		summarize(x->samples, x->o->reps, &x->c->hit[op]);
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
	summarize(x->samples, x->o->reps, &x->c->pause);
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
	if (!line || !x->walk || start_helpers(x, cpus, cpus[1] >= 0 ? 2 : 1)) {
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
	stop_helpers(x);
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
	if (native_pin_self((unsigned)a) || start_helpers(x, &b, 1)) {
		x->failed = 1;
		stop_helpers(x);
		return NAN;
	}
	line = line_alloc(native_node_of_cpu((unsigned)b), &block);
	if (line) {
		measure_cell(x, CAL_LOAD, CAL_M, line, reps, &cell);
		ll_free(block, CAL_BLOCK);
	}
	stop_helpers(x);
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
	if (!line || native_pin_self(s->pus[0]) || start_helpers(x, cpus, k)) {
		stop_helpers(x);
		if (line)
			ll_free(block, CAL_BLOCK);
		return;
	}
	for (unsigned n = 1; n <= k && !x->failed; n++) {
		struct calib_cell cell;

		for (unsigned r = 0; r < x->o->reps && !x->failed; r++) {
			line_flush(line);
			for (unsigned i = 0; i < n; i++)
				order(x, i, CMD_LOAD, line);
			uint64_t t0 = tsc_fenced();

			do_op(CAL_STORE, line);
			x->samples[r] = elapsed_ns(x, t0, tsc_fenced());
		}
		summarize(x->samples, x->o->reps, &cell);
		xs[n - 1] = n;
		ys[n - 1] = cell.median;
	}
	stop_helpers(x);
	ll_free(block, CAL_BLOCK);
	if (x->failed || k < 2)
		return;
	gsl_fit_linear(xs, 1, ys, 1, k, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
	x->c->inval_measured = true;
	x->c->inval_per_sharer_ns = c1 > 0 ? c1 : 0;
}

static void *measure_all(void *arg)
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
	return NULL;
}


/* ------------------------------------------------------- the machine */

static void read_cpuinfo(struct calib *c)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *v;

		if (!colon)
			continue;
		v = colon + 1 + strspn(colon + 1, " \t");
		v[strcspn(v, "\n")] = 0;
		if (!strncmp(line, "model name", 10) && !c->cpu_model[0])
			snprintf(c->cpu_model, sizeof(c->cpu_model), "%s", v);
		else if (!strncmp(line, "vendor_id", 9) && !c->vendor[0])
			snprintf(c->vendor, sizeof(c->vendor), "%s", v);
	}
	if (f)
		fclose(f);
	for (char *p = c->cpu_model; *p; p++)
		if (*p == ',')
			*p = ' ';
}

static int describe_machine(const struct native_machine *m, struct calib *c)
{
	time_t now = time(NULL);
	struct tm tm;
	double la;

	snprintf(c->host, sizeof(c->host), "%s", backend_topo_name(NULL));
	read_cpuinfo(c);
	gmtime_r(&now, &tm);
	strftime(c->date, sizeof(c->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	c->loadavg = getloadavg(&la, 1) == 1 ? la : -1;
	if (m->nsockets > CALIB_MAX_SOCKETS || m->nnodes > CALIB_MAX_NODES)
		return bad("%s: more sockets or NUMA nodes than calibrate handles (64)", c->host);
	if (m->sockets[0].npus < 2)
		return bad("%s: the first socket has one PU: cache-to-cache transfers cannot be measured",
			   c->host);
	c->nsockets = m->nsockets;
	for (unsigned s = 0; s < m->nsockets; s++)
		c->socket_pus[s] = m->sockets[s].npus;
	c->nnodes = m->nnodes;
	c->nclasses = 1;
	return 0;
}

#endif /* CAL_X86 */

/* ------------------------------------------------------- the output */

static void print_cell(const struct calib_cell *x)
{
	if (!x->measured) {
		printf("  %-22s", "-");
		return;
	}
	char buf[64];

	snprintf(buf, sizeof(buf), "%.1f [%.1f..%.1f]", x->median, x->p10, x->p90);
	printf("  %-22s", buf);
}

static void print_class(const struct calib *c, unsigned k)
{
	const struct calib_cell *ref = &c->cell[CAL_LOAD][CAL_M][k];

	printf("\nclass %u (%s): cpu %d <- cpu %d; median [p10..p90] ns\n", k,
	       k ? "other socket" : "same socket", ref->cpu_a, ref->cpu_b);
	printf("%-6s", "");
	for (int s = 0; s < CAL_NSTATES; s++)
		printf("  %-22c", calib_state_names[s]);
	putchar('\n');
	for (int op = 0; op < CAL_NOPS; op++) {
		printf("%-6s", calib_op_names[op]);
		for (int s = 0; s < CAL_NSTATES; s++)
			print_cell(&c->cell[op][s][k]);
		putchar('\n');
	}
	if (k == 0 && c->cell[CAL_LOAD][CAL_S][0].median < 2 * c->hit[CAL_LOAD].median + 2)
		printf("note: load of S costs about a hit: the requester's copy survived\n");
}

static void print_summary(const struct calib *c)
{
	printf("calibrate: %s, %s; %u socket%s, %u NUMA node%s; TSC %.3f GHz; %u samples a figure",
	       c->host, c->cpu_model[0] ? c->cpu_model : "unknown CPU", c->nsockets,
	       c->nsockets == 1 ? "" : "s", c->nnodes, c->nnodes == 1 ? "" : "s", c->tsc_ghz, c->reps);
	if (c->loadavg >= 0)
		printf("; load average %.2f", c->loadavg);
	putchar('\n');
	unsigned pus = 0;

	for (unsigned s = 0; s < c->nsockets; s++)
		pus += c->socket_pus[s];
	if (c->loadavg >= pus)
		printf("note: a load average of %.2f on %u PUs: other work shares these cores, and the\n"
		       "      figures come out higher and noisier than on an idle machine\n",
		       c->loadavg, pus);
	for (unsigned k = 0; k < c->nclasses; k++)
		print_class(c, k);
	printf("\nhits (own Modified line), ns:");
	for (int op = 0; op < CAL_NOPS; op++)
		printf(" %s %.1f", calib_op_names[op], c->hit[op].median);
	printf("\npause: %.1f ns\nmemory (load of an uncached line from cpu %d), ns:", c->pause.median,
	       c->mem[0].cpu_a);
	for (unsigned n = 0; n < c->nnodes; n++)
		if (c->mem[n].measured)
			printf(" node %u %.1f [%.1f..%.1f]", n, c->mem[n].median, c->mem[n].p10,
			       c->mem[n].p90);
	if (c->inval_measured)
		printf("\ninvalidation fan-out: %.2f ns per extra sharer\n", c->inval_per_sharer_ns);
	else
		printf("\ninvalidation fan-out: not measurable (fewer than three PUs in a socket)\n");
}

struct topo_arg {
	const struct calib *c;
	const char *zone;
};

static void emit_topology(FILE *f, const void *arg)
{
	const struct topo_arg *t = arg;

	calib_write_topology(f, t->c, t->zone);
}

static void emit_calib(FILE *f, const void *arg)
{
	calib_write(f, arg);
}

/* zone id: the file name without directory and .xml */
static void zone_of(const char *path, char *zone, size_t len)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strlen(b);
	if (n > 4 && !strcmp(b + n - 4, ".xml"))
		n -= 4;
	snprintf(zone, len, "%.*s", (int)n, b);
}

static void calib_path_of(const char *xml, char *out, size_t len)
{
	size_t n = strlen(xml);

	if (n > 4 && !strcmp(xml + n - 4, ".xml"))
		n -= 4;
	snprintf(out, len, "%.*s.calib.csv", (int)n, xml);
}

static int write_results(const struct cal_opts *o, const struct calib *c, bool calib_too)
{
	char zone[128], cpath[600];
	struct topo_arg t = { c, zone };

	zone_of(o->out, zone, sizeof(zone));
	calib_path_of(o->out, cpath, sizeof(cpath));
	if (write_text_atomic(o->out, emit_topology, &t)) {
		fprintf(stderr, "locklab-native: calibrate: cannot write %s: %s\n", o->out,
			strerror(errno));
		return 1;
	}
	if (calib_too && write_text_atomic(cpath, emit_calib, c)) {
		fprintf(stderr, "locklab-native: calibrate: cannot write %s: %s\n", cpath,
			strerror(errno));
		return 1;
	}
	printf("\nwrote %s%s%s\n", o->out, calib_too ? " and " : "", calib_too ? cpath : "");
	return 0;
}

static int default_out(struct cal_opts *o)
{
	if (o->out)
		return 0;
	if (mkdir("results", 0755) && errno != EEXIST) {
		fprintf(stderr, "locklab-native: calibrate: cannot create results/: %s\n",
			strerror(errno));
		return 1;
	}
	snprintf(o->out_buf, sizeof(o->out_buf), "results/host-%s.xml", backend_topo_name(NULL));
	o->out = o->out_buf;
	return 0;
}

static int from_file(struct cal_opts *o)
{
	static struct calib c;
	char err[600];

	if (calib_read_file(o->from, &c, err, sizeof(err))) {
		fprintf(stderr, "locklab-native: calibrate: %s\n", err);
		return 2;
	}
	if (default_out(o))
		return 1;
	print_summary(&c);
	return write_results(o, &c, false);
}

#if CAL_X86
static int measure(struct cal_opts *o)
{
	const struct native_machine *m = native_machine();
	static struct calib c;
	struct cal x;
	pthread_t pt;
	char err[300];

	memset(&c, 0, sizeof(c));
	memset(&x, 0, sizeof(x));
	if (!m)
		return bad("cannot read the machine's topology: %s", native_machine_error());
	int rc = describe_machine(m, &c);

	if (rc)
		return rc;
	c.reps = o->reps;
	x.o = o;
	x.m = m;
	x.c = &c;
	x.samples = calloc(o->reps, sizeof(double));
	if (!x.samples)
		return bad("%s", "out of memory");
	gsl_set_error_handler_off();
	x.ticks_per_ns = measure_ticks_per_ns();
	c.tsc_ghz = x.ticks_per_ns;
	if (pthread_create(&pt, NULL, measure_all, &x) || pthread_join(pt, NULL)) {
		free(x.samples);
		return bad("%s", "cannot start the measuring thread");
	}
	free(x.samples);
	if (x.failed) {
		fprintf(stderr, "locklab-native: calibrate: %s\n", x.failure);
		return 3;
	}
	if (calib_check(&c, err, sizeof(err))) {
		fprintf(stderr, "locklab-native: calibrate: incomplete: %s\n", err);
		return 3;
	}
	print_summary(&c);
	return write_results(o, &c, true);
}
#else
static int measure(struct cal_opts *o)
{
	return bad("%s", "measuring needs an x86-64 processor (rdtsc, clflush); --from works anywhere");
}
#endif

int native_calibrate_main(int argc, char **argv)
{
	struct cal_opts o;
	char err[600];
	int rc = parse_opts(argc, argv, &o);

	if (rc)
		return rc;
	if (o.out && calib_check_out_path(o.out, err, sizeof(err))) {
		fprintf(stderr, "locklab-native: calibrate: %s\n", err);
		return 2;
	}
	if (o.from)
		return from_file(&o);
	if (default_out(&o))
		return 1;
	rc = measure(&o);
	fflush(stdout);
	return rc;
}
