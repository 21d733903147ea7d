/*
 * locklab/stats.h - the figures of a run and of repetitions (core/stats.c).
 *
 * Wait times go into a log-linear histogram (exact below 1024 ns, then 128
 * sub-buckets per power of two: a quantile is off by at most 1/128 = 0.8%),
 * so a thread records millions of waits in fixed memory; count, sum and max
 * are exact.  Repetition statistics and Jain's index use GSL.
 */
#ifndef LOCKLAB_STATS_H
#define LOCKLAB_STATS_H

#include <stddef.h>
#include <stdint.h>

#define LL_HIST_SUB_BITS 7
#define LL_HIST_SUB (1u << LL_HIST_SUB_BITS)
#define LL_HIST_LINEAR 1024u
/* 1024 exact buckets, then 128 per octave from 2^10 up to 2^64 */
#define LL_HIST_BUCKETS (LL_HIST_LINEAR + (64 - 10) * LL_HIST_SUB)
/* Buckets come in chunks of LL_HIST_SUB, each allocated at its first value:
 * a histogram holds the few octaves its waits fall in. */
#define LL_HIST_CHUNKS (LL_HIST_BUCKETS / LL_HIST_SUB)

struct ll_hist {
	uint64_t count;
	uint64_t sum; /* saturating */
	uint64_t max;
	uint64_t min;
	uint32_t **chunk; /* [LL_HIST_CHUNKS] by ll_hist_init; NULL: all zero */
};

int ll_hist_init(struct ll_hist *h);
void ll_hist_free(struct ll_hist *h);
void ll_hist_add(struct ll_hist *h, uint64_t v);
void ll_hist_merge(struct ll_hist *into, const struct ll_hist *from);
/* q in [0,1]; the value below which a share q of the samples lie (the
 * bucket's lower bound clamped into [min, max]).  0 when empty. */
double ll_hist_quantile(const struct ll_hist *h, double q);
double ll_hist_mean(const struct ll_hist *h);

/* Jain's fairness index (sum x)^2 / (n sum x^2); 1 when all equal.  1 for
 * n == 0 or all-zero input. */
double ll_jain(const double *x, size_t n);

/* Over repetitions (GSL): mean, variance (sample, n-1), sigma, max, min,
 * and the standard error of the mean sigma / sqrt(n) (what perf stat prints
 * as "+-").  With n == 1 the variance, sigma and sem are NaN ("single run"). */
struct ll_summary {
	size_t n;
	double mean, variance, sigma, max, min;
	double sem;
};
void ll_summarize(const double *x, size_t n, struct ll_summary *out);

#endif
