/*
 * qrwlock-3.16, qrwlock-4.2 - the queued rwlock as merged, by wait_lock.
 *
 * Waiman Long, commit 70af2f8a4f48 "locking/rwlocks: Introduce 'qrwlocks'
 * - fair, queued rwlocks" (v3.16, kernel/locking/qrwlock.c).  The wait
 * queue is the arch_spinlock_t beside the count: on x86 a ticket lock
 * (internal_ticket.h) until 4.1, the queued spinlock from 4.2 (qrwlock-4.2
 * calls algorithms/qspinlock.c through its catalogue entry).  The writer
 * mode byte holds 0xff while a writer holds and 1 while one waits: a
 * queued writer claims it by cas only while it is 0, so a writer that
 * enters by the fast path in between keeps the queued one out (the
 * unfairness Will Deacon's 4.15 layout, in qrwlock.c, removed).  A reader
 * at the head waits only while a writer holds, not while one waits.
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

static const struct q316_wait_ops q316_ticket = { q316_ticket_lock, q316_ticket_unlock };
static const struct q316_wait_ops q42_qspin = { q42_qspin_lock, q42_qspin_unlock };

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
	q316_init(lock, ncpus);
}

/* rspin_until_writer_unlock: (R, 0xff) -> (R, 0); pairs with the release
 * in q316_write_unlock */
static void q316_rspin_until_writer_unlock(struct q316_lock *l)
{
	ll_wait_until(&l->cnts, (VAL & Q316_WMASK) != Q316_LOCKED);
}

static void q316_read_lock_ops(struct q316_lock *l, const struct q316_wait_ops *wait)
{
	/* (R, 0) -> (R+1, 0): in; pairs with the release in write_unlock */
	if (!(ll_fetch_add(&l->cnts, Q316_R_BIAS, LL_ACQUIRE) & Q316_WMASK))
		return;
	(void)ll_fetch_add(&l->cnts, -Q316_R_BIAS, LL_RELAXED); /* (R+1, *) -> (R, *) */
	wait->lock(l);
	(void)ll_fetch_add(&l->cnts, Q316_R_BIAS, LL_RELAXED); /* (R, *) -> (R+1, *) */
	q316_rspin_until_writer_unlock(l);
	wait->unlock(l);
}

static void q316_read_unlock(void *lock, void *ctx)
{
	struct q316_lock *l = lock;

	/* (R, *) -> (R-1, *); pairs with the writer's acquiring cas */
	(void)ll_fetch_add(&l->cnts, -Q316_R_BIAS, LL_RELEASE);
}

/* In the queue's head: (*, 0) -> (*, 1) once no writer holds or waits */
static void q316_write_set_waiting(struct q316_lock *l)
{
	for (;;) {
		ll_wait_until(&l->cnts, !(VAL & Q316_WMASK));
		if (ll_cas(&l->wmode, 0, (uint8_t)Q316_WAITING, LL_RELAXED) == 0)
			return;
	}
}

static void q316_write_lock_slowpath(struct q316_lock *l, const struct q316_wait_ops *wait)
{
	wait->lock(l);
	/* (0, 0) -> (0, 0xff); pairs with the releases in both unlocks */
	if (ll_load(&l->cnts, LL_RELAXED) == 0 &&
	    ll_cas(&l->cnts, 0, Q316_LOCKED, LL_ACQUIRE) == 0)
		goto unlock;
	q316_write_set_waiting(l);
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
	q316_read_lock_ops(lock, &q316_ticket);
}

static void q316_write_lock(void *lock, void *ctx)
{
	q316_write_lock_ops(lock, &q316_ticket);
}

static void q42_read_lock(void *lock, void *ctx)
{
	q316_read_lock_ops(lock, &q42_qspin);
}

static void q42_write_lock(void *lock, void *ctx)
{
	q316_write_lock_ops(lock, &q42_qspin);
}

static void q316_write_unlock(void *lock, void *ctx)
{
	struct q316_lock *l = lock;

	/* (R, 0xff) -> (R, 0), a byte store; pairs with the acquires of cnts */
	ll_store(&l->wmode, 0, LL_RELEASE);
}

const struct lock_algo lock_qrwlock_316 = {
	.name = "qrwlock-3.16",
	.desc = "qrwlock as merged in Linux 3.16: ticket wait_lock beside the count, writer-waiting by cas on the mode byte",
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
	.desc = "qrwlock-3.16 with Linux 4.2's x86 wait_lock, a queued spinlock (qspinlock)",
	.kind = LOCK_RWLOCK,
	.lock_size = sizeof(struct q316_lock),
	.lock_size_per_cpu = Q42_QSPIN_PER_CPU,
	.init = q42_init,
	.read_lock = q42_read_lock,
	.read_unlock = q316_read_unlock,
	.write_lock = q42_write_lock,
	.write_unlock = q316_write_unlock,
};
