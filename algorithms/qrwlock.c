/*
 * qrwlock, qrwlock-steal - Linux's queued reader-writer lock, and its
 * reader-stealing mode.
 *
 * Waiman Long's qrwlock (Linux 3.16, kernel/locking/qrwlock.c; the layout
 * of the waiting flag as reworked by Will Deacon in 4.15).  Readers and
 * writers that cannot enter at once queue on an internal spinlock, the
 * wait_lock, so the lock is granted in the order they arrived: a writer
 * waits for the readers ahead of it, never for readers that came after.
 * The wait_lock here is the 32-bit ticket lock of internal_ticket.h (as
 * on x86 when qrwlock arrived; Linux has used its qspinlock since 4.2).
 *
 * Readers in interrupt context may not queue (they could deadlock on a
 * wait_lock held by the code they interrupted): they only wait until no
 * writer *holds* the lock, even if writers wait.  qrwlock-steal is that
 * path taken by every reader, as a separate catalogue entry: readers steal
 * the lock from waiting writers, so a writer waits until the readers happen
 * to leave no overlap, as with the classic rwlock.
 *
 * The lock is 8 bytes on one line, as in Linux:
 *
 *   +----------------------------------+--------------------------+
 *   | cnts (u32)                       | wait_lock (ticket, u32)  |
 *   |  bits 0-7   wlocked: 0xff held   |                          |
 *   |  bit  8     W: a writer waits    |                          |
 *   |  bits 9-31  readers (QR_BIAS=512)|                          |
 *   +----------------------------------+--------------------------+
 *
 * Transitions (R = readers in cnts, wlocked, W):
 *
 *   read_lock, fast:  fetch_add(cnts, QR_BIAS)     R+1
 *                     neither wlocked nor W: in
 *   read_lock, slow:  fetch_add(cnts, -QR_BIAS)    R-1 (undo)
 *                     lock wait_lock               queue behind earlier
 *                                                  readers and writers
 *                     fetch_add(cnts, QR_BIAS)     R+1
 *                     wait until wlocked == 0      the writer ahead leaves
 *                     unlock wait_lock             in; the next in the
 *                                                  queue may be a reader too
 *   read_lock, steal: (qrwlock-steal, after the fast attempt)
 *                     keep R+1, wait until wlocked == 0: in, even if W
 *   read_unlock:      fetch_add(cnts, -QR_BIAS)    R-1
 *
 *   write_lock, fast: cas(cnts, 0, 0xff)           only when nobody is in
 *                                                  or waiting
 *   write_lock, slow: lock wait_lock
 *                     cas(cnts, 0, 0xff) if cnts == 0: in
 *                     fetch_or(cnts, W)            new readers take the
 *                                                  slow path and queue
 *                     wait until cnts == W, cas(cnts, W, 0xff)
 *                                                  readers drained: in
 *                     unlock wait_lock
 *   write_unlock:     store(wlocked byte, 0)       a byte store, as Linux
 *
 * Every reader still adds to cnts, so readers of every socket share one
 * line: the queue bounds waiting, not the bouncing of that line.
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#include "internal_ticket.h"

#define QW_LOCKED 0x0ffu
#define QW_WAITING 0x100u
#define QW_WMASK (QW_LOCKED | QW_WAITING)
#define QR_BIAS (1u << 9)

struct qrwlock {
	union {
		uint32_t cnts;
		struct {
			uint8_t wlocked;
			uint8_t lstate[3];
		};
	};
	struct tkt_lock wait_lock;
} ll_cacheline_aligned;

static void qrw_init(void *lock, unsigned ncpus)
{
	struct qrwlock *l = lock;

	l->cnts = 0;
	l->wait_lock.word = 0;
}

static void qrw_wait_writer_gone(struct qrwlock *l)
{
	ll_wait_until(&l->cnts, !(VAL & QW_LOCKED));
}

static void qrw_read_lock_queued(struct qrwlock *l)
{
	(void)ll_fetch_add(&l->cnts, -QR_BIAS, LL_RELAXED);
	tkt_lock(&l->wait_lock);
	(void)ll_fetch_add(&l->cnts, QR_BIAS, LL_RELAXED);
	qrw_wait_writer_gone(l);
	tkt_unlock(&l->wait_lock);
}

static void qrw_read_lock(void *lock, void *ctx)
{
	struct qrwlock *l = lock;

	if (!(ll_fetch_add(&l->cnts, QR_BIAS, LL_ACQUIRE) & QW_WMASK))
		return;
	qrw_read_lock_queued(l);
}

static void qrw_read_lock_steal(void *lock, void *ctx)
{
	struct qrwlock *l = lock;

	if (!(ll_fetch_add(&l->cnts, QR_BIAS, LL_ACQUIRE) & QW_WMASK))
		return;
	qrw_wait_writer_gone(l);
}

static void qrw_read_unlock(void *lock, void *ctx)
{
	struct qrwlock *l = lock;

	(void)ll_fetch_add(&l->cnts, -QR_BIAS, LL_RELEASE);
}

static void qrw_write_lock_queued(struct qrwlock *l)
{
	tkt_lock(&l->wait_lock);
	if (ll_load(&l->cnts, LL_RELAXED) == 0 && ll_cas(&l->cnts, 0, QW_LOCKED, LL_ACQUIRE) == 0)
		goto out;
	(void)ll_fetch_or(&l->cnts, QW_WAITING, LL_RELAXED);
	for (;;) {
		ll_wait_until(&l->cnts, VAL == QW_WAITING);
		if (ll_cas(&l->cnts, QW_WAITING, QW_LOCKED, LL_ACQUIRE) == QW_WAITING)
			break;
	}
out:
	tkt_unlock(&l->wait_lock);
}

static void qrw_write_lock(void *lock, void *ctx)
{
	struct qrwlock *l = lock;

	if (ll_cas(&l->cnts, 0, QW_LOCKED, LL_ACQUIRE) == 0)
		return;
	qrw_write_lock_queued(l);
}

static void qrw_write_unlock(void *lock, void *ctx)
{
	struct qrwlock *l = lock;

	ll_store(&l->wlocked, 0, LL_RELEASE);
}

const struct lock_algo lock_qrwlock = {
	.name = "qrwlock",
	.desc = "queued rwlock: readers and writers that must wait queue on a ticket lock; fair (Linux 3.16+)",
	.kind = LOCK_RWLOCK,
	.lock_size = sizeof(struct qrwlock),
	.init = qrw_init,
	.read_lock = qrw_read_lock,
	.read_unlock = qrw_read_unlock,
	.write_lock = qrw_write_lock,
	.write_unlock = qrw_write_unlock,
};

const struct lock_algo lock_qrwlock_steal = {
	.name = "qrwlock-steal",
	.desc = "qrwlock with every reader on the interrupt-context path: readers pass waiting writers",
	.kind = LOCK_RWLOCK,
	.lock_size = sizeof(struct qrwlock),
	.init = qrw_init,
	.read_lock = qrw_read_lock_steal,
	.read_unlock = qrw_read_unlock,
	.write_lock = qrw_write_lock,
	.write_unlock = qrw_write_unlock,
};
