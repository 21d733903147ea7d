/*
 * native/tools/calib_wake.c - the wake figures of `locklab-native
 * calibrate`: how long a thread asleep in the kernel takes to run again
 * once another CPU wakes it, and what the wake call costs the waker.
 *
 * These are the park and unpark of native/mem.c (a futex wait and a futex
 * wake), which the paravirtual locks and the sleeping locks use natively,
 * and which the simulator charges as a parked waiter's kick and wake
 * (core/park_costs.h) after the exit from its CPU's idle state (sim/idle.c).
 *
 * For each sample the sleeper (cpu B) says it is going to sleep and waits
 * on a futex word.  The waker (cpu A) sees that, spins for the sleep of the
 * figure, reads the clock, changes the word and calls futex_wake; the
 * sleeper reads the clock as soon as its futex_wait returns.
 *
 *   wake_after[i]  the sleeper's clock after futex_wait - the waker's
 *                  before futex_wake, after calib_wake_sleep_us[i] of sleep
 *   wake           the same after CAL_WAKE_IDLE_NS, when B's CPU has gone
 *                  idle (into an idle state, or a guest's vCPU halted and
 *                  left to its host)
 *   kick           the futex_wake call's own time, on the waker, there
 *
 * The ladder of sleeps finds where a short sleep stops waking fast: a
 * cpuidle governor that picks a shallow state for a short sleep, or a
 * host that polls a halted vCPU for a while before it deschedules it
 * (KVM's halt_poll_ns).
 *
 * One clock for both CPUs: ll_now_ns(), the native backend's (the TSC
 * calibrated against CLOCK_MONOTONIC, or CLOCK_MONOTONIC itself).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <locklab/mem.h>

#include "calib_measure.h"

#if CAL_X86

/* Longer than the largest target residency in the shipped machines'
 * idle tables (800 us, Westmere's C6: topologies/README.md), so that the
 * sleeper's CPU may reach its deepest state before the wake. */
#define CAL_WAKE_IDLE_NS 1000000ull

struct sleeper {
	int cpu;
	unsigned reps;
	int32_t word;          /* futex: r + 1 wakes sample r */
	uint32_t state;        /* 2r + 1: going to sleep for r; 2r + 2: awake */
	uint64_t woke_ns;      /* when the last futex_wait returned */
	int failed;
};

static void *sleeper_main(void *arg)
{
	struct sleeper *s = arg;

	if (native_pin_self((unsigned)s->cpu)) {
		__atomic_store_n(&s->failed, 1, __ATOMIC_RELEASE);
		return NULL;
	}
	for (uint32_t r = 0; r < s->reps; r++) {
		__atomic_store_n(&s->state, 2 * r + 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&s->word, __ATOMIC_ACQUIRE) != (int32_t)r + 1)
			native_futex_wait(&s->word, (int32_t)r);
		__atomic_store_n(&s->woke_ns, ll_now_ns(), __ATOMIC_RELAXED);
		__atomic_store_n(&s->state, 2 * r + 2, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* Spins until the sleeper's state is want or later (it may go on to the
 * next sample's state at once); false when it failed or did not answer in
 * CAL_ANSWER_NS. */
static bool await_state(struct sleeper *s, uint32_t want)
{
	uint64_t give_up = ll_now_ns() + CAL_ANSWER_NS;

	while (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) < want) {
		if (__atomic_load_n(&s->failed, __ATOMIC_ACQUIRE) || ll_now_ns() > give_up)
			return false;
		_mm_pause();
	}
	return true;
}

static void spin_ns(uint64_t ns)
{
	uint64_t until = ll_now_ns() + ns;

	while (ll_now_ns() < until)
		_mm_pause();
}

/* reps samples of the wake after a sleep of sleep_ns, from sample *r on;
 * kick, where given, gets each futex_wake call's time.  false when the
 * sleeper failed or did not answer. */
static bool wake_rung(struct cal *x, struct sleeper *s, uint64_t sleep_ns, uint32_t *r,
		      double *kick)
{
	for (unsigned i = 0; i < x->o->reps; i++, (*r)++) {
		if (!await_state(s, 2 * *r + 1))
			return false;
		spin_ns(sleep_ns);
		uint64_t t0 = ll_now_ns();

		__atomic_store_n(&s->word, (int32_t)*r + 1, __ATOMIC_RELEASE);
		native_futex_wake(&s->word);
		if (kick)
			kick[i] = (double)(ll_now_ns() - t0);
		if (!await_state(s, 2 * *r + 2))
			return false;
		/* signed: counters of two CPUs a few ns apart never make a huge wake */
		x->samples[i] = (double)(int64_t)(__atomic_load_n(&s->woke_ns, __ATOMIC_RELAXED) - t0);
	}
	return true;
}

void cal_measure_wake(struct cal *x, int a, int b)
{
	static struct sleeper s;
	double *kick = calloc(x->o->reps, sizeof(double));
	pthread_t t;
	uint32_t r = 0;
	bool ok = true;

	native_clock_calibrate();
	s = (struct sleeper){ .cpu = b, .reps = x->o->reps * (CALIB_WAKE_RUNGS + 1) };
	if (!kick || pthread_create(&t, NULL, sleeper_main, &s)) {
		free(kick);
		x->failed = 1;
		snprintf(x->failure, sizeof(x->failure), "cannot start the sleeping thread");
		return;
	}
	for (unsigned i = 0; i < CALIB_WAKE_RUNGS && ok; i++) {
		ok = wake_rung(x, &s, calib_wake_sleep_us[i] * 1000ull, &r, NULL);
		if (ok)
			cal_summarize(x->samples, x->o->reps, &x->c->wake_after[i]);
		x->c->wake_after[i].cpu_a = a;
		x->c->wake_after[i].cpu_b = b;
	}
	if (ok && wake_rung(x, &s, CAL_WAKE_IDLE_NS, &r, kick)) {
		pthread_join(t, NULL);
		cal_summarize(x->samples, x->o->reps, &x->c->wake);
		cal_summarize(kick, x->o->reps, &x->c->kick);
		x->c->wake.cpu_a = x->c->kick.cpu_a = a;
		x->c->wake.cpu_b = x->c->kick.cpu_b = b;
		free(kick);
		return;
	}
	x->failed = 1;
	snprintf(x->failure, sizeof(x->failure), "the sleeping thread on cpu %d %s", b,
		 s.failed ? "could not be bound to it" : "did not answer for 10 s");
	pthread_detach(t); /* it may still sleep: the process ends soon after */
	free(kick);
}

#endif /* CAL_X86 */
