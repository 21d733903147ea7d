/*
 * algorithms/internal_qspinlock.h - the queued spinlock's 32-bit word, as
 * qspinlock and pv-qspinlock share it (Linux's
 * include/asm-generic/qspinlock_types.h, NR_CPUS < 16K layout).
 *
 *   bits  31             18 17  16 15        8 7          0
 *        +-----------------+------+-----------+------------+
 *   val  |   tail cpu + 1  | idx  |  pending  |   locked   |   u32
 *        +-----------------+------+-----------+------------+
 *        |       tail (u16)       | locked_pending (u16)   |
 *        +------------------------+-----------+------------+
 *                                 | pending u8|  locked u8 |
 *
 *   locked   non-zero while a thread holds the lock
 *   pending  1 while a waiter spins on the word itself
 *   tail     the last queued waiter: its cpu + 1 (0: no queue) and the
 *            index of the queue node it used among its cpu's
 *
 * The byte and halfword views assume little-endian order, as on x86 and
 * arm64.  A state is written (tail, pending, locked).
 */
#ifndef ALGORITHMS_INTERNAL_QSPINLOCK_H
#define ALGORITHMS_INTERNAL_QSPINLOCK_H

#include <locklab/mem.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the queued spinlock's byte and halfword views of its word assume little-endian"
#endif

#define QS_LOCKED_VAL 0x00000001u
#define QS_LOCKED_MASK 0x000000ffu
#define QS_PENDING_VAL 0x00000100u
#define QS_PENDING_MASK 0x0000ff00u
#define QS_LOCKED_PENDING_MASK 0x0000ffffu
#define QS_TAIL_OFFSET 16
#define QS_TAIL_MASK 0xffff0000u
#define QS_TAIL_IDX_OFFSET 16
#define QS_TAIL_IDX_MASK 0x3u
#define QS_TAIL_CPU_OFFSET 18

struct qs_word {
	union {
		uint32_t val;
		struct {
			uint8_t locked;
			uint8_t pending;
		};
		struct {
			uint16_t locked_pending;
			uint16_t tail;
		};
	};
};

_Static_assert(sizeof(struct qs_word) == 4, "the queued spinlock word is 4 bytes");

static inline uint32_t qs_encode_tail(unsigned cpu, unsigned idx)
{
	return ((uint32_t)(cpu + 1) << QS_TAIL_CPU_OFFSET) | ((uint32_t)idx << QS_TAIL_IDX_OFFSET);
}

static inline unsigned qs_tail_cpu(uint32_t tail)
{
	return (tail >> QS_TAIL_CPU_OFFSET) - 1;
}

static inline unsigned qs_tail_idx(uint32_t tail)
{
	return (tail >> QS_TAIL_IDX_OFFSET) & QS_TAIL_IDX_MASK;
}

/*
 * (p,*,*) -> (tail,*,*): swap the 16-bit tail; returns the old tail in its
 * place in a word.  Release: the caller's queue node is initialised before
 * the tail names it; the next waiter reaches the node only through the tail
 * this returns it (an address dependency, as in the kernel's xchg_tail).
 */
static inline uint32_t qs_xchg_tail(struct qs_word *w, uint32_t tail)
{
	uint16_t old = ll_xchg(&w->tail, (uint16_t)(tail >> QS_TAIL_OFFSET), LL_RELEASE);

	return (uint32_t)old << QS_TAIL_OFFSET;
}

/* (0,0,0) -> (0,0,1), only when the word reads free. */
static inline bool qs_trylock_word(struct qs_word *w)
{
	if (ll_load(&w->val, LL_RELAXED) != 0)
		return false;
	return ll_cas(&w->val, 0, QS_LOCKED_VAL, LL_ACQUIRE) == 0;
}

#endif
