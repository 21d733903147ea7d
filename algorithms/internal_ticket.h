/*
 * algorithms/internal_ticket.h - the 32-bit ticket spinlock that the
 * reader-writer locks and reference counts build on.
 *
 * Linux's x86 arch_spinlock_t from 2.6.25 to 4.1 (built for 256 CPUs or
 * more; below that, 8-bit tickets in 16 bits): both counters in one
 * 32-bit word, so that the lock fits next to a count in one 64-bit word
 * (lockref) or next to a reader count in 8 bytes (qrwlock's wait_lock).
 * Not a catalogue entry: algorithms/ticket.c is the ticket lock measured on
 * its own, with its counters on separate lines.
 *
 *   word:  +-------------+-------------+
 *          | head (u16)  | tail (u16)  |     little-endian: head is the low
 *          +-------------+-------------+     half of the word
 *            now serving   next ticket
 *
 * Transitions (head, tail), free when head == tail:
 *
 *   lock:     (h, t) --fetch_add(word, 1 << 16)--> (h, t+1)   my ticket is t;
 *             t == h: mine at once; otherwise wait until head == t
 *   unlock:   (h, t) --store(head, h+1)--> (h+1, t)   only the holder writes
 *             head, so a plain load and store of the low half suffice (as
 *             Linux's unlocked add); arrivals change only the high half
 *
 * Both halves wrap modulo 2^16: at most 65535 threads may hold or wait.
 * tkt_value_unlocked() tests a copy of the word, as lockref's cmpxchg loop
 * needs (arch_spin_value_unlocked).
 */
#ifndef ALGORITHMS_INTERNAL_TICKET_H
#define ALGORITHMS_INTERNAL_TICKET_H

#include <locklab/mem.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the ticket word assumes little-endian halves");

struct tkt_lock {
	union {
		uint32_t word;
		struct {
			uint16_t head;
			uint16_t tail;
		};
	};
};

#define TKT_TAIL_ONE (1u << 16)

static inline bool tkt_value_unlocked(uint32_t word)
{
	return (uint16_t)word == (uint16_t)(word >> 16);
}

static inline void tkt_lock(struct tkt_lock *l)
{
	/* (h, t) -> (h, t+1), my ticket is t; pairs with the release in tkt_unlock */
	uint32_t old = ll_fetch_add(&l->word, TKT_TAIL_ONE, LL_ACQUIRE);
	uint16_t me = (uint16_t)(old >> 16);

	if ((uint16_t)old == me)
		return;
	ll_wait_until(&l->head, VAL == me); /* acquire; pairs with tkt_unlock */
}

static inline void tkt_unlock(struct tkt_lock *l)
{
	uint16_t h = ll_load(&l->head, LL_RELAXED);

	/* (h, t) -> (h+1, t); pairs with the acquires in tkt_lock */
	ll_store(&l->head, (uint16_t)(h + 1), LL_RELEASE);
}

#endif
