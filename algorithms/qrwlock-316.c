/*
 * qrwlock-3.16, qrwlock-4.2 - the queued rwlock as released in Linux 3.16
 * and in 4.2.
 *
 * Waiman Long, commit 70af2f8a4f48 "locking/rwlocks: Introduce 'qrwlocks'
 * - fair, queued rwlocks" (v3.16, kernel/locking/qrwlock.c), and the same
 * file as v4.2 shipped it.  The wait queue is the arch_spinlock_t beside
 * the count.  qrwlock-3.16 has the x86 spinlock of 3.16, a ticket lock
 * (internal_ticket.h).  qrwlock-4.2 has a queued spinlock, as x86 has had
 * since 4.2, but it is this project's algorithms/qspinlock.c, called
 * through its catalogue entry, and that file follows Linux 4.18's
 * slowpath, not 4.2's: qrwlock-4.2 is 4.2's qrwlock.c on a later
 * qspinlock.
 *
 * The writer mode byte holds 0xff while a writer holds and 1 while one
 * waits.  Both versions share the read side and differ in how the queued
 * writer sets its waiting mark:
 *
 *   read   the fast path adds a reader bias; finding a writer holding or
 *          waiting, it takes the bias back and queues on wait_lock.  At
 *          the head it waits, uncounted, until the mode byte is 0, adds
 *          its bias again, and if a fast-path writer took the lock in
 *          between (the count was 0) waits for that writer to unlock
 *          (rspin_until_writer_unlock).  Linux 4.3 dropped the uncounted
 *          wait: its head adds the bias at once.  Readers in interrupt
 *          context, which never queue, are not modelled (qrwlock-steal,
 *          in qrwlock.c, sends every reader down that path).
 *   write  at the head, once the mode byte is 0, the writer sets the
 *          waiting mark (R, 0) -> (R, 1):
 *            3.16  by a cmpxchg of the whole word, which fails whenever a
 *                  reader comes or goes between its read and the cmpxchg;
 *            4.2   by a cmpxchg of the mode byte alone, which readers'
 *                  arrivals and departures do not disturb;
 *          then waits for the readers to drain, (0, 1) -> (0, 0xff).
 *
 * Either way a queued writer claims the mode byte only while it is 0, so a
 * writer that enters by the fast path in between keeps the queued one out
 * (the unfairness Will Deacon's 4.15 layout, in qrwlock.c, removed).
 *
 *   +---------------------------+-------------------------------------+
 *   | wait_lock (u32): ticket,  | cnts (u32)                          |
 *   |  or qspinlock word whose  |  bits 0-7  wmode: 0xff held, 1 wait |
 *   |  MCS nodes follow, per cpu|  bits 8-31 readers (R_BIAS=256)     |
 *   +---------------------------+-------------------------------------+
 *
 * Linux has cnts first; the qspinlock's word opens its line here, where
 * qspinlock.c finds its nodes.  Transitions are written (R, wmode).
 *
 * init() runs before any thread starts, so it writes with plain stores.
 */
#include <locklab/lock.h>
#include <locklab/mem.h>

#include <assert.h>

#include "internal_qspinlock.h"
#include "internal_ticket.h"

#define Q316_WAITING 0x01u
#define Q316_LOCKED 0xffu
#define Q316_WMASK 0xffu
#define Q316_R_BIAS 0x100u

/* qspinlock.c's per-cpu part: four MCS nodes of a line each */
#define Q42_QSPIN_PER_CPU (4 * LL_CACHE_LINE)

extern const struct lock_algo lock_qspinlock;

struct q316_lock {
	union {
		struct tkt_lock ticket;
		struct qs_word qs;
	} wait_lock;
	union {
		uint32_t cnts;
		uint8_t wmode;
	};
} ll_cacheline_aligned;

struct q316_wait_ops {
	void (*lock)(struct q316_lock *l);
	void (*unlock)(struct q316_lock *l);
	/* the queued writer's waiting mark: the version's own way */
	void (*set_waiting)(struct q316_lock *l);
};

static void q316_ticket_lock(struct q316_lock *l)
{
	tkt_lock(&l->wait_lock.ticket);
}

static void q316_ticket_unlock(struct q316_lock *l)
{
	tkt_unlock(&l->wait_lock.ticket);
}

static void q42_qspin_lock(struct q316_lock *l)
{
	lock_qspinlock.lock(l, NULL);
}

static void q42_qspin_unlock(struct q316_lock *l)
{
	lock_qspinlock.unlock(l, NULL);
}

/*
 * v3.16, in the queue's head: (R, 0) -> (R, 1) by a cas of the whole word
 * from the value read.  Any change of the word between the read and the
 * cas fails it (a reader that arrives, leaves or takes its bias back; a
 * fast-path writer), and the writer reads again.
 */
static void q316_set_waiting_word(struct q316_lock *l)
{
	for (;;) {
		uint32_t c = ll_wait_until(&l->cnts, !(VAL & Q316_WMASK));

		if (ll_cas(&l->cnts, c, c | Q316_WAITING, LL_RELAXED) == c)
			return;
	}
}

/*
 * v4.2, in the queue's head: (*, 0) -> (*, 1) by a cas of the mode byte
 * alone, which only a fast-path writer's (0, 0) -> (0, 0xff) can fail.
 */
static void q42_set_waiting_byte(struct q316_lock *l)
{
	for (;;) {
		ll_wait_until(&l->wmode, VAL == 0);
		if (ll_cas(&l->wmode, 0, (uint8_t)Q316_WAITING, LL_RELAXED) == 0)
			return;
	}
}

static const struct q316_wait_ops q316_ops = { q316_ticket_lock, q316_ticket_unlock,
					       q316_set_waiting_word };
static const struct q316_wait_ops q42_ops = { q42_qspin_lock, q42_qspin_unlock,
					      q42_set_waiting_byte };

static void q316_init(void *lock, unsigned ncpus)
{
	struct q316_lock *l = lock;

	l->cnts = 0;
	l->wait_lock.ticket.word = 0;
}

static void q42_init(void *lock, unsigned ncpus)
{
	/* the qspinlock is this lock's first line and the per-cpu part */
	assert(lock_qspinlock.lock_size == sizeof(struct q316_lock));
	assert(lock_qspinlock.lock_size_per_cpu == Q42_QSPIN_PER_CPU);
	assert(lock_qspinlock.ctx_size == 0);
	lock_qspinlock.init(lock, ncpus);
	q316_init(lock, ncpus);
}

/* rspin_until_writer_unlock: given the count my bias went into, wait
 * while a writer holds, (R, 0xff) -> (R, 0); pairs with the release in
 * q316_write_unlock */
static void q316_rspin_until_writer_unlock(struct q316_lock *l, uint32_t cnts)
{
	if ((cnts & Q316_WMASK) == Q316_LOCKED)
		ll_wait_until(&l->cnts, (VAL & Q316_WMASK) != Q316_LOCKED);
}

static void q316_read_lock_ops(struct q316_lock *l, const struct q316_wait_ops *wait)
{
	uint32_t cnts;

	/* (R, 0) -> (R+1, 0): in; pairs with the release in write_unlock */
	if (!(ll_fetch_add(&l->cnts, Q316_R_BIAS, LL_ACQUIRE) & Q316_WMASK))
		return;
	(void)ll_fetch_add(&l->cnts, -Q316_R_BIAS, LL_RELAXED); /* (R+1, w) -> (R, w) */
	wait->lock(l);
	/*
	 * The head, not counted: wait for (R, 0xff) -> (R, 0).  While I hold
	 * the wait_lock no writer waits (only its holder sets 1), but with
	 * my bias out a fast-path writer may take (0, 0) -> (0, 0xff) again
	 * before I add it back.
	 */
	ll_wait_until(&l->cnts, !(VAL & Q316_WMASK));
	/* (R, w) -> (R+1, w), w 0 or 0xff; pairs with the release in write_unlock */
	cnts = ll_fetch_add(&l->cnts, Q316_R_BIAS, LL_ACQUIRE);
	q316_rspin_until_writer_unlock(l, cnts);
	wait->unlock(l);
}

static void q316_read_unlock(void *lock, void *ctx)
{
	struct q316_lock *l = lock;

	/* (R, *) -> (R-1, *); pairs with the writer's acquiring cas */
	(void)ll_fetch_add(&l->cnts, -Q316_R_BIAS, LL_RELEASE);
}

static void q316_write_lock_slowpath(struct q316_lock *l, const struct q316_wait_ops *wait)
{
	wait->lock(l);
	/* (0, 0) -> (0, 0xff); pairs with the releases in both unlocks */
	if (ll_load(&l->cnts, LL_RELAXED) == 0 &&
	    ll_cas(&l->cnts, 0, Q316_LOCKED, LL_ACQUIRE) == 0)
		goto unlock;
	wait->set_waiting(l); /* (R, 0) -> (R, 1) */
	for (;;) {
		ll_wait_until(&l->cnts, VAL == Q316_WAITING); /* readers drained */
		/* (0, 1) -> (0, 0xff); pairs with the release in read_unlock */
		if (ll_cas(&l->cnts, Q316_WAITING, Q316_LOCKED, LL_ACQUIRE) == Q316_WAITING)
			break;
	}
unlock:
	wait->unlock(l);
}

static void q316_write_lock_ops(struct q316_lock *l, const struct q316_wait_ops *wait)
{
	/* (0, 0) -> (0, 0xff): nobody in, nobody waiting on the word */
	if (ll_cas(&l->cnts, 0, Q316_LOCKED, LL_ACQUIRE) != 0)
		q316_write_lock_slowpath(l, wait);
}

static void q316_read_lock(void *lock, void *ctx)
{
	q316_read_lock_ops(lock, &q316_ops);
}

static void q316_write_lock(void *lock, void *ctx)
{
	q316_write_lock_ops(lock, &q316_ops);
}

static void q42_read_lock(void *lock, void *ctx)
{
	q316_read_lock_ops(lock, &q42_ops);
}

static void q42_write_lock(void *lock, void *ctx)
{
	q316_write_lock_ops(lock, &q42_ops);
}

static void q316_write_unlock(void *lock, void *ctx)
{
	struct q316_lock *l = lock;

	/* (R, 0xff) -> (R, 0), a byte store; pairs with the acquires of cnts */
	ll_store(&l->wmode, 0, LL_RELEASE);
}

const struct lock_algo lock_qrwlock_316 = {
	.name = "qrwlock-3.16",
	.desc = "qrwlock as in Linux 3.16: ticket wait_lock; head reader waits uncounted; writer-waiting by cas of the whole word",
	.kind = LOCK_RWLOCK,
	.lock_size = sizeof(struct q316_lock),
	.init = q316_init,
	.read_lock = q316_read_lock,
	.read_unlock = q316_read_unlock,
	.write_lock = q316_write_lock,
	.write_unlock = q316_write_unlock,
};

const struct lock_algo lock_qrwlock_42 = {
	.name = "qrwlock-4.2",
	.desc = "qrwlock as in Linux 4.2 (writer-waiting by cas of the mode byte) on this project's qspinlock, whose slowpath is 4.18's",
	.kind = LOCK_RWLOCK,
	.lock_size = sizeof(struct q316_lock),
	.lock_size_per_cpu = Q42_QSPIN_PER_CPU,
	.init = q42_init,
	.read_lock = q42_read_lock,
	.read_unlock = q316_read_unlock,
	.write_lock = q42_write_lock,
	.write_unlock = q316_write_unlock,
	.assumed = "a 500 ns bounded wait for a pending waiter's handover", /* its qspinlock's QS_PENDING_WAIT_NS */
};
