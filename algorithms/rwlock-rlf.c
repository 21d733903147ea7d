/*
 * rwlock-rlf - the classic rwlock with a modified __read_lock_failed.
 *
 * Kernel 2 of seed 001 (Waiman Long's reply to Ingo Molnar, LKML, 22 July
 * 2013): 3.10.1's x86 rwlock with the read-lock failure path changed as
 * Ingo had suggested.  The seed names the change, not its code; this is
 * our reading of it, assumed: the stock stub undoes its increment, waits
 * for the writer to go and increments blindly again, so every reader that
 * meets a writer adds two atomic writes to the line, and retries that race
 * the next writer fail again.  Here a failed reader waits for the writer
 * to go, then re-enters with a cas that succeeds only while no writer
 * holds: a failing retry writes nothing.  The first try and the writer are
 * algorithms/rwlock.c's.
 *
 *   +-------+---------------------+
 *   |  cnt  |  (padding)          |     cnt = readers inside
 *   +-------+---------------------+           - BIAS while a writer holds
 *     s32
 *
 * The count is rwlock.c's, R - BIAS*W with BIAS 2^20, and has its bound:
 * more than 2048 writers' biases at once would wrap it positive and let a
 * reader in beside a writer, so the lock holds at most RLF_MAX_THREADS
 * threads (.max_threads).
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#define RLF_BIAS (1 << 20)
#define RLF_MAX_THREADS 2048u /* 2048 * RLF_BIAS == -(int64_t)INT32_MIN */

struct rw_rlf {
	int32_t cnt;
} ll_cacheline_aligned;

static void rlf_init(void *lock, unsigned ncpus)
{
	struct rw_rlf *l = lock;

	l->cnt = 0;
}

/* __read_lock_failed, modified: no write to cnt until it can succeed */
static void rlf_read_lock_failed(struct rw_rlf *l)
{
	int32_t c = ll_fetch_add(&l->cnt, -1, LL_RELAXED) - 1; /* undo */
	int32_t seen;

	for (;;) {
		if (c < 0)
			c = ll_wait_until(&l->cnt, VAL >= 0); /* the writer goes */
		/* cnt: c -> c+1, c >= 0; pairs with the release in rlf_write_unlock */
		seen = ll_cas(&l->cnt, c, c + 1, LL_ACQUIRE);

		if (seen == c)
			return;
		c = seen;
	}
}

static void rlf_read_lock(void *lock, void *ctx)
{
	struct rw_rlf *l = lock;

	/* cnt: c -> c+1; c >= 0: in.  Pairs with the release in rlf_write_unlock */
	if (ll_fetch_add(&l->cnt, 1, LL_ACQUIRE) < 0)
		rlf_read_lock_failed(l);
}

static void rlf_read_unlock(void *lock, void *ctx)
{
	struct rw_rlf *l = lock;

	/* cnt: c -> c-1; pairs with the acquire in rlf_write_lock */
	(void)ll_fetch_add(&l->cnt, -1, LL_RELEASE);
}

static void rlf_write_lock(void *lock, void *ctx)
{
	struct rw_rlf *l = lock;

	/* cnt: 0 -> -BIAS, else undo and wait for 0; pairs with both unlocks */
	while (ll_fetch_add(&l->cnt, -RLF_BIAS, LL_ACQUIRE) != 0) {
		(void)ll_fetch_add(&l->cnt, RLF_BIAS, LL_RELAXED);
		ll_wait_until(&l->cnt, VAL == 0);
	}
}

static void rlf_write_unlock(void *lock, void *ctx)
{
	struct rw_rlf *l = lock;

	/* cnt: -BIAS -> 0, plus arrivals; pairs with the acquires in lock */
	(void)ll_fetch_add(&l->cnt, RLF_BIAS, LL_RELEASE);
}

const struct lock_algo lock_rwlock_rlf = {
	.name = "rwlock-rlf",
	.desc = "rwlock with a modified __read_lock_failed: a failed reader re-enters by cas once no writer holds (our reading, assumed: LKML, July 2013, names the change, not its code)",
	.kind = LOCK_RWLOCK,
	.lock_size = sizeof(struct rw_rlf),
	.max_threads = RLF_MAX_THREADS,
	.init = rlf_init,
	.read_lock = rlf_read_lock,
	.read_unlock = rlf_read_unlock,
	.write_lock = rlf_write_lock,
	.write_unlock = rlf_write_unlock,
	.assumed = "our reading of the modified __read_lock_failed, whose code is not published",
};
