/*
 * qrwlock, qrwlock-steal - Linux's queued reader-writer lock, and its
 * reader-stealing mode.
 *
 * Waiman Long's qrwlock (Linux 3.16, kernel/locking/qrwlock.c; the layout
 * of the waiting flag as reworked by Will Deacon in 4.15).  Readers and
 * writers that cannot enter at once queue on an internal spinlock, the
 * wait_lock (the ticket lock of internal_ticket.h), so the lock is granted
 * in arrival order.  qrwlock-steal sends every reader down the kernel's
 * interrupt-context path: readers pass waiting writers (docs/rwlocks.md).
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
 * Transitions are written (R, W, wlocked), R the readers in cnts.
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
	/* (*, *, 0xff) -> (*, *, 0); pairs with the release in qrw_write_unlock */
	ll_wait_until(&l->cnts, !(VAL & QW_LOCKED));
}

static void qrw_read_lock_queued(struct qrwlock *l)
{
	(void)ll_fetch_add(&l->cnts, -QR_BIAS, LL_RELAXED); /* (R, *, *) -> (R-1, *, *), undo */
	tkt_lock(&l->wait_lock); /* behind earlier readers and writers */
	(void)ll_fetch_add(&l->cnts, QR_BIAS, LL_RELAXED); /* (R, *, *) -> (R+1, *, *) */
	qrw_wait_writer_gone(l);
	tkt_unlock(&l->wait_lock); /* the next in the queue may be a reader too */
}

static void qrw_read_lock(void *lock, void *ctx)
{
	struct qrwlock *l = lock;

	/* (R, 0, 0) -> (R+1, 0, 0): in; pairs with the release in write_unlock */
	if (!(ll_fetch_add(&l->cnts, QR_BIAS, LL_ACQUIRE) & QW_WMASK))
		return;
	qrw_read_lock_queued(l);
}

static void qrw_read_lock_steal(void *lock, void *ctx)
{
	struct qrwlock *l = lock;

	if (!(ll_fetch_add(&l->cnts, QR_BIAS, LL_ACQUIRE) & QW_WMASK))
		return;
	qrw_wait_writer_gone(l); /* keep R+1: in, even if W is set */
}

static void qrw_read_unlock(void *lock, void *ctx)
{
	struct qrwlock *l = lock;

	/* (R, *, *) -> (R-1, *, *); pairs with the writer's acquiring cas */
	(void)ll_fetch_add(&l->cnts, -QR_BIAS, LL_RELEASE);
}

static void qrw_write_lock_queued(struct qrwlock *l)
{
	tkt_lock(&l->wait_lock);
	/* (0, 0, 0) -> (0, 0, 0xff) */
	if (ll_load(&l->cnts, LL_RELAXED) == 0 && ll_cas(&l->cnts, 0, QW_LOCKED, LL_ACQUIRE) == 0)
		goto out;
	/* (R, 0, *) -> (R, 1, *): new readers take the slow path and queue */
	(void)ll_fetch_or(&l->cnts, QW_WAITING, LL_RELAXED);
	for (;;) {
		ll_wait_until(&l->cnts, VAL == QW_WAITING); /* readers drained */
		/* (0, 1, 0) -> (0, 0, 0xff); pairs with the release in read_unlock */
		if (ll_cas(&l->cnts, QW_WAITING, QW_LOCKED, LL_ACQUIRE) == QW_WAITING)
			break;
	}
out:
	tkt_unlock(&l->wait_lock);
}

static void qrw_write_lock(void *lock, void *ctx)
{
	struct qrwlock *l = lock;

	/* (0, 0, 0) -> (0, 0, 0xff), only when nobody is in or waiting */
	if (ll_cas(&l->cnts, 0, QW_LOCKED, LL_ACQUIRE) == 0)
		return;
	qrw_write_lock_queued(l);
}

static void qrw_write_unlock(void *lock, void *ctx)
{
	struct qrwlock *l = lock;

	/* (R, W, 0xff) -> (R, W, 0), a byte store as in Linux; pairs with the
	 * acquires of cnts in the read and write lock paths */
	ll_store(&l->wlocked, 0, LL_RELEASE);
}

const struct lock_algo lock_qrwlock = {
	.name = "qrwlock",
	.desc = "queued rwlock: waiters queue on a ticket wait_lock (x86 3.16-4.1), waiting flag of Linux 4.15; fair",
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
