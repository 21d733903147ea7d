/*
 * tests/sim_signatures.c - the signatures a lock leaves on the simulated
 * machine, which must come out of the coherence model and not be scripted:
 *
 *   1. herding: misses on the lock's lines per release grow with the number
 *      of waiters for ttas (at least one per waiter), and stay flat for mcs;
 *   2. the ticket lock's handoff time grows with the number of waiters (each
 *      release sends every waiter to re-read the owner field, and the next
 *      ticket holder's read queues behind theirs), mcs's does not;
 *   3. socket capture: test-and-set keeps the lock on one socket far more
 *      often than a random next holder would;
 *   4. the runs behind these figures are deterministic.
 *
 * Every run goes through the real workload (backend_run) on 4socket-ring for
 * 1 ms of simulated time, with its counters read for that interval.  The
 * lock under test is wrapped in an observer that adds no modelled access
 * and no simulated time: after the inner lock() returns it notes who holds
 * the lock, on which socket, and when; after the inner unlock() returns it
 * notes when the release completed.  From those notes:
 *
 *   handoff time   from the completion of a release (the inner unlock()
 *                  has returned: its store is visible and the line's parked
 *                  waiters have been woken) to the return of the next
 *                  lock() by another thread, averaged over such handoffs;
 *   socket runs    consecutive acquisitions by threads of one socket.
 *
 * 4socket-ring arbitrates socket-first (topologies/README.md,
 * "Arbitration"): the socket holding a line serves its own cores' requests
 * before one that came through the home.  Some signatures depend on it
 * (noted with each test).
 *
 * Figures are medians over runs 0-2 of a configuration, seeded as runs 0-2
 * of the binaries (each test prints its figures and the command that
 * repeats its runs); the thresholds leave wide margins, checked against
 * builds with -DSIGS_SEED0=20250101, 20260101, ... 20280101 as well.
 * Nothing is cut down for the sanitizer build.
 *
 * argv[1] (the bin/ directory) is not needed: nothing here runs a binary.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/lock.h>
#include <locklab/mem.h>

#include "testlib.h"

/*
 * Socket capture (test 3) is asserted when this is 1 (-D...=0 measures,
 * prints and skips).  It needs the machine's socket-first arbitration:
 * under arrival order (arbitration fifo) tas's waiters, who always have an
 * xchg queued on the line, take it nearly round-robin, and the lock leaves
 * the socket about as often as under a fair lock.
 */
#ifndef SIGS_EXPECT_SOCKET_CAPTURE
#define SIGS_EXPECT_SOCKET_CAPTURE 1
#endif

#define TOPO "4socket-ring"
#define MAX_THREADS 32
#define NSEEDS 3
#ifndef SIGS_SEED0
#define SIGS_SEED0 20240601ull /* the first seed; -DSIGS_SEED0=... to try others */
#endif
#define SEED0 ((uint64_t)SIGS_SEED0)
#ifndef SIGS_TRACE
#define SIGS_TRACE 0 /* 1: print every run's figures, not only the medians */
#endif

static const unsigned sweep[] = { 2, 4, 8, 16 }; /* waiters; threads = waiters + 1 */
#define NSWEEP (sizeof(sweep) / sizeof(sweep[0]))

/* ------------------------------------------------------------ the observer */

static struct {
	const struct lock_algo *inner;
	struct lock_algo algo;
	uint64_t end_ns;        /* acquisitions from here on are not counted */
	int last_holder;        /* -1: none yet */
	uint64_t last_release_ns;
	uint64_t handoff_sum_ns, handoffs;
	unsigned run_socket, run_len, longest_run;
	uint64_t socket_runs, socket_run_acqs; /* finished runs, their acquisitions */
} obs;

static void obs_note_socket(unsigned s)
{
	if (obs.run_len && s == obs.run_socket) {
		obs.run_len++;
	} else {
		if (obs.run_len) {
			obs.socket_runs++;
			obs.socket_run_acqs += obs.run_len;
		}
		obs.run_socket = s;
		obs.run_len = 1;
	}
	if (obs.run_len > obs.longest_run)
		obs.longest_run = obs.run_len;
}

static void obs_lock(void *lock, void *ctx)
{
	uint64_t t;
	int me;

	obs.inner->lock(lock, ctx);
	t = ll_now_ns();
	me = (int)ll_this_cpu();
	if (t >= obs.end_ns)
		return;
	if (obs.last_holder >= 0 && obs.last_holder != me) {
		obs.handoff_sum_ns += t - obs.last_release_ns;
		obs.handoffs++;
	}
	obs_note_socket(ll_this_node());
}

static void obs_unlock(void *lock, void *ctx)
{
	obs.inner->unlock(lock, ctx);
	obs.last_release_ns = ll_now_ns();
	obs.last_holder = (int)ll_this_cpu();
}

static const struct lock_algo *observe(const char *name, uint64_t end_ns)
{
	const struct lock_algo *a = lock_find(name);

	assert_non_null(a);
	assert_int_equal(a->kind, LOCK_MUTEX);
	memset(&obs, 0, sizeof(obs));
	obs.inner = a;
	obs.algo = *a;
	obs.algo.lock = obs_lock;
	obs.algo.unlock = obs_unlock;
	obs.algo.trylock = NULL;
	obs.end_ns = end_ns;
	obs.last_holder = -1;
	return &obs.algo;
}

/* ------------------------------------------------------------ one run */

struct sig_params {
	const char *lock;
	unsigned threads;
	uint64_t cs_ns, ncs_ns;
	bool ncs_exp;
	enum pin_policy pin;
	uint64_t seed;
};

struct sig_figures {
	uint64_t acquisitions;
	uint64_t acq_by_thread[MAX_THREADS];
	uint64_t handoffs, handoffs_local; /* the workload's records */
	struct sim_counters cnt;
	double lock_misses_per_rel; /* misses on lock-tagged lines / releases */
	double misses_per_acq;      /* misses on every line / acquisitions */
	double handoff_ns;          /* the observer's mean handoff time */
	uint64_t handoff_sum_ns, observed_handoffs;
	double local_frac;          /* handoffs_local / handoffs */
	unsigned longest_run;       /* acquisitions in a row on one socket */
	double mean_run;            /* mean length of finished socket runs */
};

static void config(struct wl_config *c, const struct sig_params *p)
{
	tl_config(c, TOPO, p->seed);
	c->cs_ns = p->cs_ns;
	c->ncs_ns = p->ncs_ns;
	c->ncs_exp = p->ncs_exp;
	c->cs_lines = 1;
	c->duration_ms = 1;
	tl_set_pin(c, p->pin);
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : NAN;
}

static void collect(const struct wl_run *run, const struct sim_counters *k, struct sig_figures *f)
{
	memset(f, 0, sizeof(*f));
	for (unsigned i = 0; i < run->nthreads; i++) {
		const struct wl_thread *t = &run->threads[i];

		f->acquisitions += t->acquisitions;
		f->acq_by_thread[i] = t->acquisitions;
		f->handoffs += t->handoffs;
		f->handoffs_local += t->handoffs_local;
	}
	f->cnt = *k;
	/* every counted acquisition is followed by its release */
	f->lock_misses_per_rel = ratio(k->lock_misses, f->acquisitions);
	f->misses_per_acq = ratio(k->misses, f->acquisitions);
	f->handoff_sum_ns = obs.handoff_sum_ns;
	f->observed_handoffs = obs.handoffs;
	f->handoff_ns = ratio(obs.handoff_sum_ns, obs.handoffs);
	f->local_frac = ratio(f->handoffs_local, f->handoffs);
	f->longest_run = obs.longest_run;
	f->mean_run = ratio(obs.socket_run_acqs, obs.socket_runs);
}

/* Repetition idx of the configuration p, seeded as run idx of the binaries. */
static void measure(const struct sig_params *p, unsigned idx, struct sig_figures *f)
{
	const struct lock_algo *a = observe(p->lock, 1000000ull);
	struct wl_config c;
	struct wl_run run;
	struct run_counters k;
	char err[512] = "";

	assert_true(p->threads <= MAX_THREADS);
	config(&c, p);
	if (tl_run(&c, a, p->threads, idx, &run, &k, err, sizeof(err)))
		fail_msg("%s, %u threads, seed %llu run %u: %s%s", p->lock, p->threads,
			 (unsigned long long)p->seed, idx, err, run.failure);
	assert_int_equal(run.end_ns, obs.end_ns);
	collect(&run, &k.sim, f);
	tl_done(&run);
	if (f->acquisitions == 0)
		fail_msg("%s, %u threads: no acquisition in 1 ms", p->lock, p->threads);
}

/* The command whose runs are those of p (the observer's own figures, handoff
 * time and socket runs, are this program's). */
static void print_command(const struct sig_params *p)
{
	struct wl_config c;

	config(&c, p);
	tl_print_command(&c, "run", p->lock, p->threads, NSEEDS, "--format csv");
}

/* ------------------------------------------------------------ medians */

/* Medians over NSEEDS seeds of the figures the tests compare. */
struct sig_medians {
	double lock_misses_per_rel, misses_per_acq, handoff_ns, local_frac, longest_run, mean_run;
	double cycle_ns; /* 1 ms / acquisitions: the time per acquisition */
};

static void measure_median(struct sig_params p, struct sig_medians *m)
{
	double lm[NSEEDS], ma[NSEEDS], ho[NSEEDS], lf[NSEEDS], lr[NSEEDS],
		mr[NSEEDS], cy[NSEEDS];
	struct sig_figures f;

	for (unsigned s = 0; s < NSEEDS; s++) {
		measure(&p, s, &f);
		lm[s] = f.lock_misses_per_rel;
		ma[s] = f.misses_per_acq;
		ho[s] = f.handoff_ns;
		lf[s] = f.local_frac;
		lr[s] = f.longest_run;
		mr[s] = f.mean_run;
		cy[s] = 1e6 / (double)f.acquisitions;
		if (SIGS_TRACE)
			print_message("  %s, %u threads, seed %llu run %u: lock misses/release %.2f, "
				      "misses/acq %.2f, handoff %.0f ns, local %.3f, longest run %u, "
				      "mean run %.2f\n", p.lock, p.threads, (unsigned long long)p.seed, s,
				      lm[s], ma[s], ho[s], lf[s], f.longest_run, mr[s]);
	}
	m->lock_misses_per_rel = tl_median(lm, NSEEDS);
	m->misses_per_acq = tl_median(ma, NSEEDS);
	m->handoff_ns = tl_median(ho, NSEEDS);
	m->local_frac = tl_median(lf, NSEEDS);
	m->longest_run = tl_median(lr, NSEEDS);
	m->mean_run = tl_median(mr, NSEEDS);
	m->cycle_ns = tl_median(cy, NSEEDS);
}

/* Run the waiter sweep for one lock: every waiter queues (cs 500 ns, a
 * non-critical section far shorter than the queue ahead), threads
 * scattered over the four sockets so that every size spans them. */
static void run_sweep(const char *lock, uint64_t ncs_ns, bool ncs_exp, struct sig_medians *m)
{
	for (unsigned i = 0; i < NSWEEP; i++) {
		struct sig_params p = {
			.lock = lock,
			.threads = sweep[i] + 1,
			.cs_ns = 500,
			.ncs_ns = ncs_ns,
			.ncs_exp = ncs_exp,
			.pin = PIN_SCATTER,
			.seed = SEED0 + 100 * i,
		};

		measure_median(p, &m[i]);
		if (i == NSWEEP - 1) {
			print_message("  %s at %u waiters; at w waiters, --threads w+1 and --seed "
				      "%llu + 100 * (index of w in 2/4/8/16):\n", lock, sweep[i],
				      (unsigned long long)SEED0);
			print_command(&p);
		}
	}
}

/* "a / b / c / d" of one figure over the sweep, for messages. */
static const char *sweep_text(const struct sig_medians *m, size_t off, const char *fmt, char *buf,
			      size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < NSWEEP && n < len; i++) {
		double v;

		memcpy(&v, (const char *)&m[i] + off, sizeof(v));
		n += (size_t)snprintf(buf + n, len - n, "%s", i ? " / " : "");
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, fmt, v);
	}
	return buf;
}

#define SWEEP(m, field, fmt, buf) \
	sweep_text(m, offsetof(struct sig_medians, field), fmt, buf, sizeof(buf))

/* ------------------------------------------------------------ 1. herding */

/*
 * ttas against mcs, 2 / 4 / 8 / 16 waiters, cs 500 ns, non-critical section
 * exponential with mean 200 ns (so that the lock changes hands; with none
 * at all ttas's releaser wins its own lock back every time), scatter.
 *
 * A ttas release invalidates every waiter's copy of the lock word, and so
 * does the winner's xchg; each waiter misses to re-read it after each such
 * write it sees, each that saw it free misses again on its xchg.  So every
 * release costs at least one miss per waiter, plus its own.  mcs's lock
 * line is touched once per acquisition (the xchg on the tail); its waiters
 * spin on their own nodes (context lines), and its misses on all lines
 * stay flat too.
 *
 * Socket-first arbitration lowers the count per waiter as the waiters
 * spread over sockets: the releaser's socket re-reads and takes the lock
 * (its waiters' requests are served at once, in the socket), while the
 * other sockets' re-reads wait at the home until that socket is done with
 * the line; by then the lock is taken, so they re-read once and park
 * instead of racing on xchg.  With 2 and 4 waiters (3 and 5 threads
 * scattered: at most 2 per socket) few re-reads come from other sockets
 * than the holder's; from 8 on most do.
 *
 * So from 4 to 8 waiters, where the lock settles on one socket for
 * nearly the whole run, ttas's figure grows least.
 *
 * Asserted, on misses on lock lines per release: ttas's figure is >=
 * waiters + 1 at every size, grows by >= 1.05x at each step and by >= 3x
 * from 2 to 16 waiters; every mcs figure (and mcs's misses on all lines
 * per acquisition) is within 30% of its value at 2 waiters, and mcs's
 * lock-line figure stays <= 1.5.
 */
static void herding_ttas_grows_mcs_flat(void **state)
{
	struct sig_medians t[NSWEEP], m[NSWEEP];
	char bt[128], bm[128], ba[128];

	run_sweep("ttas", 200, true, t);
	run_sweep("mcs", 200, true, m);
	SWEEP(t, lock_misses_per_rel, "%.2f", bt);
	SWEEP(m, lock_misses_per_rel, "%.2f", bm);
	SWEEP(m, misses_per_acq, "%.2f", ba);
	print_message("herding: lock-line misses per release, waiters 2/4/8/16: ttas %s; mcs %s "
		      "(mcs, all lines per acquisition: %s)\n", bt, bm, ba);
	for (unsigned i = 0; i < NSWEEP; i++)
		if (!(t[i].lock_misses_per_rel >= sweep[i] + 1))
			fail_msg("ttas lock-line misses per release at %u waiters (%.2f) are fewer "
				 "than one per waiter plus the release's own (%u); sweep 2/4/8/16: %s",
				 sweep[i],
				 t[i].lock_misses_per_rel, sweep[i] + 1, bt);
	for (unsigned i = 1; i < NSWEEP; i++)
		if (!(t[i].lock_misses_per_rel >= 1.05 * t[i - 1].lock_misses_per_rel))
			fail_msg("ttas lock-line misses per release do not grow >= 1.05x per step "
				 "of waiters 2/4/8/16: %s", bt);
	if (!(t[NSWEEP - 1].lock_misses_per_rel >= 3 * t[0].lock_misses_per_rel))
		fail_msg("ttas lock-line misses per release at 16 waiters (%.2f) are not >= 3x "
			 "those at 2 (%.2f); sweep %s",
			 t[NSWEEP - 1].lock_misses_per_rel, t[0].lock_misses_per_rel, bt);
	for (unsigned i = 0; i < NSWEEP; i++) {
		if (!(m[i].lock_misses_per_rel <= 1.5) ||
		    fabs(m[i].lock_misses_per_rel / m[0].lock_misses_per_rel - 1) > 0.3)
			fail_msg("mcs lock-line misses per release are not flat (<= 1.5, within "
				 "30%% of the first) over waiters 2/4/8/16: %s", bm);
		if (fabs(m[i].misses_per_acq / m[0].misses_per_acq - 1) > 0.3)
			fail_msg("mcs misses per acquisition (all lines) are not within 30%% of "
				 "the first over waiters 2/4/8/16: %s", ba);
	}
}

/* ------------------------------------------------------------ 2. ticket */

/*
 * ticket against mcs, 2 / 4 / 8 / 16 waiters, cs 500 ns, no non-critical
 * section (FIFO locks hand over anyway), scatter.  Handoff time as defined
 * at the top: release complete -> next lock() returns.
 *
 * A ticket release writes the owner field: every waiter's copy is
 * invalidated, every waiter misses to re-read it, the reads queue on the
 * line, and the next ticket holder sits somewhere in that queue.  mcs's
 * release writes only the successor's node.
 *
 * Where it sits: the releaser's socket holds the line, so its waiters'
 * reads are served first, at once; the other sockets' reads travel to the
 * home (the lock's line is homed on socket 0, whose reads need no travel)
 * and, arriving while the line is busy with the releaser's socket, wait
 * there until it is done, then go in the order they arrived (socket 0
 * first, one hop before two).  Each waiter added puts on average half a
 * re-read ahead of the next holder; a re-read of a shared line is short
 * (the topology's lat.load.S, less the travel already paid), so the
 * handoff grows by a few ns a waiter, not by a whole transfer.  At 2
 * waiters (3 threads on sockets 0, 1, 2) the order of the first tickets
 * decides whether one or two of the three handoffs find the next holder's
 * read behind the third thread's, so the figure can fall from 2 to 4
 * waiters.  mcs's falls with waiters: with more threads per socket more
 * of its FIFO handoffs stay on a socket, and socket-first arbitration
 * groups the tail xchgs by socket.
 *
 * Asserted, on the handoff time: ticket at 16 waiters >= 1.25x its value
 * at 2 and >= 1.1x its value at 8; no step falls by more than 15%; at 16
 * waiters it is >= 1.6x mcs's; mcs's never exceeds 1.3x its value at 2
 * waiters.
 */
static void ticket_handoff_grows_with_waiters(void **state)
{
	struct sig_medians t[NSWEEP], m[NSWEEP];
	char bt[128], bm[128], ct[128], cm[128];

	run_sweep("ticket", 0, false, t);
	run_sweep("mcs", 0, false, m);
	SWEEP(t, handoff_ns, "%.0f", bt);
	SWEEP(m, handoff_ns, "%.0f", bm);
	SWEEP(t, cycle_ns, "%.0f", ct);
	SWEEP(m, cycle_ns, "%.0f", cm);
	print_message("ticket: handoff ns, waiters 2/4/8/16: ticket %s; mcs %s "
		      "(ns per acquisition: ticket %s; mcs %s)\n", bt, bm, ct, cm);
	for (unsigned i = 1; i < NSWEEP; i++)
		if (!(t[i].handoff_ns >= 0.85 * t[i - 1].handoff_ns))
			fail_msg("ticket handoff time falls by more than 15%% in a step of waiters "
				 "2/4/8/16: %s ns", bt);
	if (!(t[NSWEEP - 1].handoff_ns >= 1.25 * t[0].handoff_ns))
		fail_msg("ticket handoff at 16 waiters (%.0f ns) is not >= 1.25x that at 2 "
			 "(%.0f ns); sweep %s ns", t[NSWEEP - 1].handoff_ns,
			 t[0].handoff_ns, bt);
	if (!(t[NSWEEP - 1].handoff_ns >= 1.1 * t[NSWEEP - 2].handoff_ns))
		fail_msg("ticket handoff at 16 waiters (%.0f ns) is not >= 1.1x that at 8 "
			 "(%.0f ns); sweep %s ns", t[NSWEEP - 1].handoff_ns,
			 t[NSWEEP - 2].handoff_ns, bt);
	if (!(t[NSWEEP - 1].handoff_ns >= 1.6 * m[NSWEEP - 1].handoff_ns))
		fail_msg("ticket handoff at 16 waiters (%.0f ns) is not >= 1.6x mcs's (%.0f ns)",
			 t[NSWEEP - 1].handoff_ns, m[NSWEEP - 1].handoff_ns);
	for (unsigned i = 0; i < NSWEEP; i++)
		if (!(m[i].handoff_ns <= 1.3 * m[0].handoff_ns))
			fail_msg("mcs handoff time grows: %.0f ns at %u waiters, more than 1.3x the "
				 "%.0f ns at 2; sweep 2/4/8/16: %s ns", m[i].handoff_ns, sweep[i],
				 m[0].handoff_ns, bm);
}

/* ------------------------------------------------------------ 3. capture */

/*
 * tas, 32 threads placed compact (8 per socket: the whole machine), cs 50
 * ns, non-critical section exponential with mean 100 ns.  A fair lock that
 * handed the lock to a random waiter would stay on the socket (8 - 1) / 31
 * = 0.23 of the time.
 *
 * Every tas waiter always has an xchg on the line.  Under socket-first
 * arbitration the socket holding the line serves its own cores' xchgs
 * while the others' wait at the home, until the line goes idle or 8 (the
 * default bound: a socket's cores) have gone ahead of them.  The release
 * is a store from the holder's socket: when the line is still there, the
 * next xchg served is a local waiter's, which takes the lock; when the line
 * has moved on, the store waits its turn at the home with everyone else's.
 *
 * Under arrival-order arbitration the longest socket run stays a few
 * acquisitions long.
 * Asserted: local share >= 0.45 (twice a fair lock's) and a longest
 * socket run >= 15 acquisitions.
 */
static void tas_captures_socket(void **state)
{
	struct sig_params p = {
		.lock = "tas",
		.threads = 32,
		.cs_ns = 50,
		.ncs_ns = 100,
		.ncs_exp = true,
		.pin = PIN_COMPACT,
		.seed = SEED0 + 7,
	};
	struct sig_medians m;
	const double fair = 7.0 / 31.0;

	measure_median(p, &m);
	print_command(&p);
	print_message("capture: tas, 32 threads compact on " TOPO ": socket-local handoffs %.3f "
		      "(fair %.3f), longest socket run %.0f, mean run %.2f\n", m.local_frac, fair,
		      m.longest_run, m.mean_run);
	if (!SIGS_EXPECT_SOCKET_CAPTURE) {
		print_message("capture: not asserted (SIGS_EXPECT_SOCKET_CAPTURE is 0)\n");
		skip();
	}
	if (!(m.local_frac >= 0.45))
		fail_msg("tas on " TOPO ", 32 threads: socket-local handoffs %.3f, not >= 0.45 "
			 "(a fair lock: %.3f); longest socket run %.0f",
			 m.local_frac, fair, m.longest_run);
	if (!(m.longest_run >= 15))
		fail_msg("tas on " TOPO ", 32 threads: longest socket run %.0f acquisitions, not "
			 ">= 15", m.longest_run);
}

/* ------------------------------------------------------------ 4. determinism */

static void expect_same(const char *what, const struct sig_figures *a, const struct sig_figures *b,
			unsigned n)
{
	const struct sim_counters *x = &a->cnt, *y = &b->cnt;

#define SAME(field)                                                                             \
	if (x->field != y->field)                                                               \
		fail_msg("%s: same seed twice, %s differs: %llu then %llu", what, #field,        \
			 (unsigned long long)x->field, (unsigned long long)y->field)
	SAME(misses);
	SAME(lock_misses);
	SAME(lock_invalidations);
	SAME(remote_transfers);
	SAME(line_queue_ps);
	SAME(busiest_link_msgs);
	SAME(events);
	SAME(accesses);
#undef SAME
	if (a->acquisitions != b->acquisitions || a->handoffs != b->handoffs ||
	    a->handoffs_local != b->handoffs_local || a->handoff_sum_ns != b->handoff_sum_ns ||
	    a->observed_handoffs != b->observed_handoffs || a->longest_run != b->longest_run)
		fail_msg("%s: same seed twice: acquisitions %llu/%llu, handoffs %llu/%llu, local "
			 "%llu/%llu, handoff ns sum %llu/%llu", what,
			 (unsigned long long)a->acquisitions, (unsigned long long)b->acquisitions,
			 (unsigned long long)a->handoffs, (unsigned long long)b->handoffs,
			 (unsigned long long)a->handoffs_local, (unsigned long long)b->handoffs_local,
			 (unsigned long long)a->handoff_sum_ns, (unsigned long long)b->handoff_sum_ns);
	for (unsigned i = 0; i < n; i++)
		if (a->acq_by_thread[i] != b->acq_by_thread[i])
			fail_msg("%s: same seed twice, thread %u acquired %llu then %llu times", what, i,
				 (unsigned long long)a->acq_by_thread[i],
				 (unsigned long long)b->acq_by_thread[i]);
}

/*
 * The configurations of tests 1-3, each run twice with one seed: every
 * counter, every thread's acquisitions and the observer's figures are
 * identical.  So the check is not vacuous, the same configuration with the
 * next seed must change something (the non-critical sections are
 * exponential, drawn from the seed).
 */
static void same_seed_same_counters(void **state)
{
	static const struct sig_params ps[] = {
		{ "ttas", 17, 500, 200, true, PIN_SCATTER, SEED0 + 300 },
		{ "mcs", 17, 500, 200, true, PIN_SCATTER, SEED0 + 300 },
		{ "ticket", 17, 500, 0, false, PIN_SCATTER, SEED0 + 300 },
		{ "tas", 32, 50, 100, true, PIN_COMPACT, SEED0 + 7 },
	};

	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		struct sig_figures a, b;
		struct sig_params q = ps[i];

		measure(&ps[i], 0, &a);
		measure(&ps[i], 0, &b);
		expect_same(ps[i].lock, &a, &b, ps[i].threads);
		if (!ps[i].ncs_exp)
			continue;
		q.seed++;
		measure(&q, 0, &b);
		if (a.cnt.events == b.cnt.events && a.cnt.line_queue_ps == b.cnt.line_queue_ps &&
		    a.acquisitions == b.acquisitions && a.handoff_sum_ns == b.handoff_sum_ns)
			fail_msg("%s: seeds %llu and %llu gave the same figures (events %llu, "
				 "acquisitions %llu): the seed has no effect", ps[i].lock,
				 (unsigned long long)ps[i].seed, (unsigned long long)q.seed,
				 (unsigned long long)a.cnt.events,
				 (unsigned long long)a.acquisitions);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(herding_ttas_grows_mcs_flat),
		cmocka_unit_test(ticket_handoff_grows_with_waiters),
		cmocka_unit_test(tas_captures_socket),
		cmocka_unit_test(same_seed_same_counters),
	};
	int rc;

	if (tl_backend_start(argv[0], TOPO))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	backend_fini();
	return rc;
}
