/*
 * ref_locks.c - the native references: the C library's own locks, run
 * through the same workload as the algorithms so that every figure has a
 * yardstick beside it.  They exist only natively (the simulator cannot see
 * inside glibc), so they are this backend's backend_locks[].
 *
 *   pthread-mutex   pthread_mutex_t, default attributes: a futex lock that
 *                   takes a free word by cmpxchg, else sleeps in the kernel
 *                   at once (glibc spins only for PTHREAD_MUTEX_ADAPTIVE_NP)
 *   pthread-spin    pthread_spinlock_t: an atomic try, then a read spin
 *
 * The lock object is the pthread object itself, at the start of the
 * zeroed, line-aligned block the workload allocates.
 */
#include <pthread.h>

#include <locklab/backend.h>
#include <locklab/lock.h>

/* ------------------------------------------------------------ pthread-mutex */

static void mutex_init(void *lock, unsigned ncpus)
{
	pthread_mutex_init(lock, NULL);
}

static void mutex_destroy(void *lock)
{
	pthread_mutex_destroy(lock);
}

static void mutex_lock(void *lock, void *ctx)
{
	pthread_mutex_lock(lock);
}

static void mutex_unlock(void *lock, void *ctx)
{
	pthread_mutex_unlock(lock);
}

static bool mutex_trylock(void *lock, void *ctx)
{
	return pthread_mutex_trylock(lock) == 0;
}

static const struct lock_algo lock_pthread_mutex = {
	.name = "pthread-mutex",
	.desc = "glibc pthread_mutex_t (default attributes): cmpxchg, else futex wait (no spinning)",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(pthread_mutex_t),
	.init = mutex_init,
	.destroy = mutex_destroy,
	.lock = mutex_lock,
	.unlock = mutex_unlock,
	.trylock = mutex_trylock,
};

/* ------------------------------------------------------------- pthread-spin */

static void spin_init(void *lock, unsigned ncpus)
{
	pthread_spin_init(lock, PTHREAD_PROCESS_PRIVATE);
}

static void spin_destroy(void *lock)
{
	pthread_spin_destroy(lock);
}

static void spin_lock(void *lock, void *ctx)
{
	pthread_spin_lock(lock);
}

static void spin_unlock(void *lock, void *ctx)
{
	pthread_spin_unlock(lock);
}

static bool spin_trylock(void *lock, void *ctx)
{
	return pthread_spin_trylock(lock) == 0;
}

static const struct lock_algo lock_pthread_spin = {
	.name = "pthread-spin",
	.desc = "glibc pthread_spinlock_t: an atomic try, then spin reading until free",
	.kind = LOCK_MUTEX,
	.lock_size = sizeof(pthread_spinlock_t),
	.init = spin_init,
	.destroy = spin_destroy,
	.lock = spin_lock,
	.unlock = spin_unlock,
	.trylock = spin_trylock,
};

const struct lock_algo *const backend_locks[] = {
	&lock_pthread_mutex,
	&lock_pthread_spin,
	NULL,
};
