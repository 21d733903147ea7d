/*
 * native/tools/calib_measure.h - what `locklab-native calibrate` (calibrate.c)
 * shares with its measuring pass (calib_measure.c) and the owner threads
 * that put a line in a given state (calib_helpers.c): the options, the
 * pass's state, the fenced clock and the timed operations.
 */
#ifndef LOCKLAB_NATIVE_TOOLS_CALIB_MEASURE_H
#define LOCKLAB_NATIVE_TOOLS_CALIB_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include "../native.h"
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

struct cal_opts {
	unsigned reps;
	const char *out;  /* the platform file */
	const char *from; /* a calibration to convert instead of measuring */
	bool progress;
	bool reps_given;
	char out_buf[512];
};

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

/* What an owner thread is told to do with the line. */
enum { CMD_LOAD = 1, CMD_STORE, CMD_FLUSH, CMD_QUIT };

struct helper;

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

/* calib_helpers.c: posts a command to helper i and waits for its answer;
 * starts helpers on cpus[0..n) (0, or -1 with x->failed set); stops them. */
void cal_order(struct cal *x, unsigned i, uint64_t cmd, uint64_t *line);
int cal_start_helpers(struct cal *x, const int *cpus, unsigned n);
void cal_stop_helpers(struct cal *x);

/* calib_measure.c: the TSC's ticks per ns; every figure of the
 * calibration, run on a thread of its own (x->failed on failure). */
double cal_ticks_per_ns(void);
/* The smallest step the TSC is seen to take, in ns: a cycle or so on bare
 * metal, whole nanoseconds where a hypervisor scales or traps it. */
double cal_tsc_step_ns(double ticks_per_ns);
void *cal_measure_all(void *arg);
/* Sorts x[0..n), drops the values beyond 3 x IQR from the quartiles, and
 * fills out with the robust figures of the rest. */
void cal_summarize(double *x, unsigned n, struct calib_cell *out);
/* calib_wake.c: the wake and kick figures, a sleeper on cpu b woken from
 * cpu a, the calling thread (x->failed on failure). */
void cal_measure_wake(struct cal *x, int a, int b);

#endif /* CAL_X86 */
#endif
