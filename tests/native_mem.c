/*
 * tests/native_mem.c - the native <locklab/mem.h>: every operation at every
 * width returns what the kernel's semantics say, waits end when they should,
 * the calibrated delay lasts about as long as asked, park/unpark keep their
 * token, and ll_alloc_on gives aligned zeroed memory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <string.h>
#include <time.h>

#include <locklab/mem.h>

#include "../native/native.h"

#define MS 1000000ull

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
			       .tv_nsec = (long)(ns % 1000000000ull) };

	nanosleep(&ts, NULL);
}

/* ------------------------------------------------ operations by width */

/*
 * One body for every width: x starts at 0x..f0 (all ones above the low
 * byte), and each operation is checked for the value it returns and the
 * value it leaves.
 */
#define CHECK_OPS(type)                                                         \
	do {                                                                    \
		type x = (type)~(type)0x0f;                                     \
		type ones = (type)~(type)0;                                     \
                                                                                \
		assert_true(ll_load(&x, LL_RELAXED) == (type)~(type)0x0f);      \
		ll_store(&x, (type)5, LL_RELEASE);                              \
		assert_true(ll_load(&x, LL_ACQUIRE) == 5);                      \
		/* cas: success returns old and swaps */                        \
		assert_true(ll_cas(&x, (type)5, (type)7, LL_ACQ_REL) == 5);     \
		assert_true(x == 7);                                            \
		/* cas: failure returns the value found, leaves it */           \
		assert_true(ll_cas(&x, (type)5, (type)9, LL_SEQ_CST) == 7);     \
		assert_true(x == 7);                                            \
		assert_true(ll_cas(&x, (type)6, (type)9, LL_RELEASE) == 7);     \
		assert_true(ll_cas(&x, (type)4, (type)9, LL_ACQUIRE) == 7);     \
		assert_true(ll_cas(&x, (type)3, (type)9, LL_RELAXED) == 7);     \
		assert_true(x == 7);                                            \
		/* xchg returns the previous value */                           \
		assert_true(ll_xchg(&x, (type)3, LL_ACQ_REL) == 7);             \
		assert_true(x == 3);                                            \
		/* fetch_* return the old value */                              \
		assert_true(ll_fetch_add(&x, (type)4, LL_RELAXED) == 3);        \
		assert_true(x == 7);                                            \
		assert_true(ll_fetch_or(&x, (type)0x30, LL_RELEASE) == 7);      \
		assert_true(x == 0x37);                                         \
		assert_true(ll_fetch_and(&x, (type)0x0c, LL_ACQUIRE) == 0x37);  \
		assert_true(x == 0x04);                                         \
		/* wrap-around at the width */                                  \
		ll_store(&x, ones, LL_RELAXED);                                 \
		assert_true(ll_fetch_add(&x, (type)1, LL_SEQ_CST) == ones);     \
		assert_true(x == 0);                                            \
		assert_true(ll_fetch_add(&x, (type)-1, LL_SEQ_CST) == 0);       \
		assert_true(x == ones);                                         \
		assert_true(ll_cas(&x, ones, (type)0, LL_SEQ_CST) == ones);     \
		assert_true(x == 0);                                            \
		ll_fence(LL_SEQ_CST);                                           \
		ll_fence(LL_ACQ_REL);                                           \
	} while (0)

static void ops_8(void **state)
{
	CHECK_OPS(uint8_t);
}

static void ops_16(void **state)
{
	CHECK_OPS(uint16_t);
}

static void ops_32(void **state)
{
	CHECK_OPS(uint32_t);
}

static void ops_64(void **state)
{
	CHECK_OPS(uint64_t);
}

static void ops_signed(void **state)
{
	int32_t x = -1;
	int64_t y = INT64_MIN;

	assert_int_equal(ll_fetch_add(&x, 1, LL_RELAXED), -1);
	assert_int_equal(x, 0);
	assert_int_equal(ll_cas(&x, 0, -5, LL_SEQ_CST), 0);
	assert_int_equal(x, -5);
	assert_true(ll_xchg(&y, INT64_MAX, LL_SEQ_CST) == INT64_MIN);
	assert_true(y == INT64_MAX);
}

/* ------------------------------------------------------------ waiting */

struct waiter {
	uint32_t word;
	uint32_t seen;
	uint64_t budget_ns;
	bool result;
	uint64_t took_ns;
};

static void *wait_for_42(void *arg)
{
	struct waiter *w = arg;

	w->seen = ll_wait_until(&w->word, VAL == 42);
	return NULL;
}

static void wait_until_sees_store(void **state)
{
	struct waiter w = { 0 };
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, wait_for_42, &w), 0);
	sleep_ns(10 * MS);
	ll_store(&w.word, 41u, LL_RELEASE);
	sleep_ns(10 * MS);
	ll_store(&w.word, 42u, LL_RELEASE);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(w.seen, 42);
}

static void *wait_for_7_within(void *arg)
{
	struct waiter *w = arg;
	uint64_t t0 = ll_now_ns();

	w->result = ll_wait_until_for(&w->word, VAL == 7, w->budget_ns);
	w->took_ns = ll_now_ns() - t0;
	return NULL;
}

static void wait_until_for_times_out(void **state)
{
	struct waiter w = { .budget_ns = 20 * MS };

	wait_for_7_within(&w);
	assert_false(w.result);
	assert_true(w.took_ns >= 20 * MS);
	assert_true(w.took_ns < 500 * MS);
}

static void wait_until_for_satisfied(void **state)
{
	struct waiter w = { .word = 7, .budget_ns = 1000 * MS };
	pthread_t t;

	wait_for_7_within(&w);
	assert_true(w.result);
	assert_true(w.took_ns < 100 * MS);

	w.word = 0;
	w.budget_ns = 5000 * MS;
	assert_int_equal(pthread_create(&t, NULL, wait_for_7_within, &w), 0);
	sleep_ns(10 * MS);
	ll_store(&w.word, 7u, LL_RELEASE);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(w.result);
	assert_true(w.took_ns < 4000 * MS);
}

/* -------------------------------------------------------------- delay */

static void delay_is_calibrated(void **state)
{
	uint64_t best = UINT64_MAX;

	native_delay_calibrate();
	assert_true(native_delay_iters_per_us() > 0);
	for (int i = 0; i < 5; i++) {
		uint64_t t0 = ll_now_ns(), t;

		ll_delay_ns(1000000);
		t = ll_now_ns() - t0;
		if (t < best)
			best = t;
	}
	print_message("ll_delay_ns(1 ms): best of 5 took %.3f ms (%.1f iterations/us)\n",
		      best / 1e6, native_delay_iters_per_us());
	assert_true(best >= 500000);
	assert_true(best <= 3000000);
	ll_delay_ns(0);
}

/* ------------------------------------------------------ park / unpark */

struct parker {
	unsigned tid;
	int parking;
	uint64_t took_ns;
};

static void *park_once(void *arg)
{
	struct parker *p = arg;
	uint64_t t0;

	native_thread_bind(p->tid, 0);
	t0 = ll_now_ns();
	__atomic_store_n(&p->parking, 1, __ATOMIC_RELEASE);
	ll_park();
	p->took_ns = ll_now_ns() - t0;
	return NULL;
}

static void unpark_before_park(void **state)
{
	uint64_t t0;

	native_mem_configure(2, 1);
	native_thread_bind(0, 0);
	assert_int_equal(ll_this_cpu(), 0);
	ll_unpark(0);
	ll_unpark(0); /* two unparks before a park count as one */
	t0 = ll_now_ns();
	ll_park();
	assert_true(ll_now_ns() - t0 < 50 * MS);
}

static void unpark_wakes_parked(void **state)
{
	struct parker p = { .tid = 1 };
	pthread_t t;

	native_mem_configure(2, 1);
	assert_int_equal(pthread_create(&t, NULL, park_once, &p), 0);
	while (!__atomic_load_n(&p.parking, __ATOMIC_ACQUIRE))
		sleep_ns(MS);
	sleep_ns(30 * MS);
	ll_unpark(1);
	assert_int_equal(pthread_join(t, NULL), 0);
	/* it slept: the token was not there before the unpark */
	assert_true(p.took_ns >= 25 * MS);
}

static void *unpark_later(void *arg)
{
	sleep_ns(30 * MS);
	ll_unpark(*(unsigned *)arg);
	return NULL;
}

/* A token is consumed: after a remembered unpark, the next park blocks.
 * t0 is read before the unparker starts, so the unpark comes 30 ms after
 * it at the earliest however late this thread runs again (read after
 * pthread_create, a loaded machine that held this thread off its cpu for
 * 5 ms made a park of 30 ms measure under 25). */
static void park_consumes_token(void **state)
{
	unsigned me = 0;
	pthread_t t;
	uint64_t t0;

	native_mem_configure(2, 1);
	native_thread_bind(0, 0);
	ll_unpark(0);
	ll_park();
	t0 = ll_now_ns();
	assert_int_equal(pthread_create(&t, NULL, unpark_later, &me), 0);
	ll_park();
	assert_true(ll_now_ns() - t0 >= 25 * MS);
	assert_int_equal(pthread_join(t, NULL), 0);
}

/* -------------------------------------------------- identity, memory */

static void *bound_identity(void *arg)
{
	unsigned *out = arg;

	native_thread_bind(3, 1);
	out[0] = ll_this_cpu();
	out[1] = ll_this_node();
	return NULL;
}

static void identity(void **state)
{
	unsigned got[2];
	pthread_t t;

	native_mem_configure(4, 2);
	assert_int_equal(ll_nr_cpus(), 4);
	assert_int_equal(ll_nr_nodes(), 2);
	native_thread_bind(0, 0);
	assert_int_equal(pthread_create(&t, NULL, bound_identity, got), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(got[0], 3);
	assert_int_equal(got[1], 1);
	assert_int_equal(ll_this_cpu(), 0);
	assert_int_equal(ll_this_node(), 0);
}

/* A thread bound to one cpu, then to socket 0 as a set (--pin node:0): its
 * affinity becomes every PU of socket 0, and it stays on one of them; a
 * socket the machine lacks is refused. */
static void *bind_to_socket(void *arg)
{
	const struct native_machine *m = native_machine();
	const struct native_socket *s0 = &m->sockets[0];
	cpu_set_t set;
	int *ok = arg, cpu;

	*ok = native_pin_apply((int)s0->pus[0]) == 0 &&
	      native_pin_apply(NATIVE_ON_SOCKET(0)) == 0 &&
	      native_pin_apply(NATIVE_ON_SOCKET(m->nsockets)) != 0 &&
	      !pthread_getaffinity_np(pthread_self(), sizeof(set), &set) &&
	      (unsigned)CPU_COUNT(&set) == s0->npus;
	for (unsigned k = 0; *ok && k < s0->npus; k++)
		*ok = CPU_ISSET(s0->pus[k], &set);
	cpu = sched_getcpu(); /* and it runs on one of them */
	*ok = *ok && cpu >= 0 && CPU_ISSET((unsigned)cpu, &set);
	return NULL;
}

static void bind_to_socket_set(void **state)
{
	pthread_t t;
	int ok = 0;
	char where[48];

	if (!native_machine())
		skip();
	assert_int_equal(pthread_create(&t, NULL, bind_to_socket, &ok), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(ok);
	assert_string_equal(native_pin_text(NATIVE_ON_SOCKET(0), where, sizeof(where)),
			    "socket 0's cpus");
	assert_string_equal(native_pin_text(3, where, sizeof(where)), "cpu 3");
}

static void alloc_aligned_zeroed(void **state)
{
	static const size_t sizes[] = { 0, 1, 63, 64, 65, 4096, 100000 };
	const struct native_machine *m = native_machine();
	unsigned nodes[] = { 0, m ? m->nnodes - 1 : 0, 1000 };

	for (size_t n = 0; n < sizeof(nodes) / sizeof(nodes[0]); n++) {
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			size_t len = (sizes[i] + 63) / 64 * 64;
			unsigned char *p = ll_alloc_on(sizes[i], nodes[n]);

			assert_non_null(p);
			assert_int_equal((uintptr_t)p % 64, 0);
			for (size_t b = 0; b < sizes[i]; b++)
				assert_int_equal(p[b], 0);
			memset(p, 0xa5, len ? len : 1); /* the rounded size is ours */
			ll_free(p, sizes[i]);
		}
	}
	ll_free(NULL, 64);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ops_8),
		cmocka_unit_test(ops_16),
		cmocka_unit_test(ops_32),
		cmocka_unit_test(ops_64),
		cmocka_unit_test(ops_signed),
		cmocka_unit_test(wait_until_sees_store),
		cmocka_unit_test(wait_until_for_times_out),
		cmocka_unit_test(wait_until_for_satisfied),
		cmocka_unit_test(delay_is_calibrated),
		cmocka_unit_test(unpark_before_park),
		cmocka_unit_test(unpark_wakes_parked),
		cmocka_unit_test(park_consumes_token),
		cmocka_unit_test(identity),
		cmocka_unit_test(bind_to_socket_set),
		cmocka_unit_test(alloc_aligned_zeroed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
