/*
 * core/stats.c - wait-time histograms, Jain's index, repetition statistics.
 *
 * Histogram buckets: values below 1024 ns have a bucket each; above, each
 * power of two [2^k, 2^(k+1)) is split into 128 equal sub-buckets, so a
 * bucket's width is at most 1/128 of its lower bound.
 */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/stats.h>

static unsigned bucket_of(uint64_t v)
{
	if (v < LL_HIST_LINEAR)
		return (unsigned)v;
	unsigned k = 63u - (unsigned)__builtin_clzll(v); /* 2^k <= v, k >= 10 */
	unsigned sub = (unsigned)((v >> (k - LL_HIST_SUB_BITS)) & (LL_HIST_SUB - 1));

	return LL_HIST_LINEAR + (k - 10) * LL_HIST_SUB + sub;
}

static uint64_t bucket_low(unsigned b)
{
	if (b < LL_HIST_LINEAR)
		return b;
	unsigned k = (b - LL_HIST_LINEAR) / LL_HIST_SUB + 10;
	unsigned sub = (b - LL_HIST_LINEAR) % LL_HIST_SUB;

	return (1ull << k) + ((uint64_t)sub << (k - LL_HIST_SUB_BITS));
}

int ll_hist_init(struct ll_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
	h->chunk = calloc(LL_HIST_CHUNKS, sizeof(*h->chunk));
	return h->chunk ? 0 : -1;
}

void ll_hist_free(struct ll_hist *h)
{
	for (unsigned c = 0; h->chunk && c < LL_HIST_CHUNKS; c++)
		free(h->chunk[c]);
	free(h->chunk);
	h->chunk = NULL;
}

/* Chunk c, allocated now if it was not yet; NULL when out of memory (its
 * values then count in count, sum, min and max only). */
static uint32_t *chunk_of(struct ll_hist *h, unsigned c)
{
	if (!h->chunk[c])
		h->chunk[c] = calloc(LL_HIST_SUB, sizeof(uint32_t));
	return h->chunk[c];
}

static uint32_t bucket_count(const struct ll_hist *h, unsigned b)
{
	const uint32_t *c = h->chunk[b / LL_HIST_SUB];

	return c ? c[b % LL_HIST_SUB] : 0;
}

void ll_hist_add(struct ll_hist *h, uint64_t v)
{
	unsigned b = bucket_of(v);
	uint32_t *c = chunk_of(h, b / LL_HIST_SUB);

	if (c && c[b % LL_HIST_SUB] != UINT32_MAX)
		c[b % LL_HIST_SUB]++;
	h->count++;
	h->sum = (h->sum + v < h->sum) ? UINT64_MAX : h->sum + v;
	if (v > h->max)
		h->max = v;
	if (v < h->min)
		h->min = v;
}

static void merge_chunk(uint32_t *into, const uint32_t *from)
{
	for (unsigned i = 0; i < LL_HIST_SUB; i++) {
		uint64_t s = (uint64_t)into[i] + from[i];

		into[i] = s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
	}
}

void ll_hist_merge(struct ll_hist *into, const struct ll_hist *from)
{
	if (!from->count) /* also one never initialised (no chunks) */
		return;
	for (unsigned c = 0; c < LL_HIST_CHUNKS; c++) {
		uint32_t *to;

		if (from->chunk[c] && (to = chunk_of(into, c)))
			merge_chunk(to, from->chunk[c]);
	}
	into->count += from->count;
	into->sum = (into->sum + from->sum < into->sum) ? UINT64_MAX : into->sum + from->sum;
	if (from->max > into->max)
		into->max = from->max;
	if (from->min < into->min)
		into->min = from->min;
}

double ll_hist_quantile(const struct ll_hist *h, double q)
{
	if (!h->count)
		return 0.0;
	if (q <= 0.0)
		return (double)h->min;
	if (q >= 1.0)
		return (double)h->max;
	/* The smallest bucket whose cumulative count reaches ceil(q * count). */
	uint64_t rank = (uint64_t)ceil(q * (double)h->count);
	uint64_t seen = 0;

	for (unsigned b = 0; b < LL_HIST_BUCKETS; b++) {
		seen += bucket_count(h, b);
		if (seen >= rank) {
			uint64_t v = bucket_low(b);

			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return (double)v;
		}
	}
	return (double)h->max;
}

double ll_hist_mean(const struct ll_hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}

double ll_jain(const double *x, size_t n)
{
	double s = 0, s2 = 0;

	for (size_t i = 0; i < n; i++) {
		s += x[i];
		s2 += x[i] * x[i];
	}
	if (n == 0 || s2 == 0.0)
		return 1.0;
	return s * s / ((double)n * s2);
}

void ll_summarize(const double *x, size_t n, struct ll_summary *out)
{
	memset(out, 0, sizeof(*out));
	out->n = n;
	if (n == 0) {
		out->mean = out->variance = out->sigma = out->max = out->min = out->sem = NAN;
		return;
	}
	gsl_set_error_handler_off();
	out->mean = gsl_stats_mean(x, 1, n);
	gsl_stats_minmax(&out->min, &out->max, x, 1, n);
	if (n == 1) {
		out->variance = out->sigma = out->sem = NAN;
		return;
	}
	out->variance = gsl_stats_variance_m(x, 1, n, out->mean);
	out->sigma = sqrt(out->variance);
	out->sem = out->sigma / sqrt((double)n);
}
