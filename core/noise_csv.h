/*
 * core/noise_csv.h - the CSV of `locklab-native noise --csv FILE`, which
 * native/tools/noise.c writes and sim/noise_file.c reads for
 * `locklab-sim --noise-from FILE`: a row per CPU and the pooled `all` row,
 * and for each decade of detour length (from the threshold to 10 us, to
 * 100 us, to 1 ms, and 1 ms or more) the columns detours_DECADE and
 * lost_ns_DECADE.
 */
#ifndef CORE_NOISE_CSV_H
#define CORE_NOISE_CSV_H

#define NOISE_DECADES 4

static const char *const noise_decade_col[NOISE_DECADES] = { "under_10us", "under_100us",
							     "under_1ms", "1ms_or_more" };

/* Where each decade but the last ends: a detour of d ns is in the first
 * decade whose top is above d. */
static const unsigned long long noise_decade_top_ns[NOISE_DECADES - 1] = { 10000, 100000, 1000000 };

/* The columns before the decades' (after them: detours_D, lost_ns_D). */
static const char *const noise_head_col[] = { "cpu", "seconds", "detours", "lost_ns", "mean_ns",
					      "p50_ns", "p99_ns", "max_ns" };

#endif
