/*
 * native/tools/calib_helpers.c - the owner threads of a calibration: each
 * is pinned to a PU and obeys the commands the requester posts in its
 * mailbox line (load, store or flush the measured line, or leave), so that
 * the requester knows the line's state before it starts its clock.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <locklab/mem.h>

#include "calib_measure.h"

#if CAL_X86

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


/* Posts a command to helper i and waits for its answer. */
void cal_order(struct cal *x, unsigned i, uint64_t cmd, uint64_t *line)
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

int cal_start_helpers(struct cal *x, const int *cpus, unsigned n)
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
void cal_stop_helpers(struct cal *x)
{
	for (unsigned i = 0; i < x->nh; i++) {
		struct helper *h = x->h[i];

		if (!h->started) {
			free(h);
			continue;
		}
		if (!x->failed)
			cal_order(x, i, CMD_QUIT, NULL);
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

#endif /* CAL_X86 */
