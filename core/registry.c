/*
 * registry.c - the catalogue of locks: every algorithm in algorithms/,
 * followed by the backend's own (backend_locks[]: the pthread references
 * natively, none in the simulator).
 *
 * To add an algorithm: write algorithms/<name>.c defining
 * `const struct lock_algo lock_<ident>`, declare it below and add one line
 * to the table, where a reader would look for it.
 */
#include <ctype.h>
#include <string.h>

#include <locklab/backend.h>
#include <locklab/lock.h>

extern const struct lock_algo lock_tas, lock_ttas, lock_ttas_backoff;
extern const struct lock_algo lock_ticket, lock_ticket_prop;
extern const struct lock_algo lock_anderson, lock_mcs, lock_clh;
extern const struct lock_algo lock_qspinlock;
extern const struct lock_algo lock_cna, lock_cohort, lock_hmcs, lock_hticket;
extern const struct lock_algo lock_pv_ticket, lock_pv_qspinlock, lock_pv_qspinlock_noearly;
extern const struct lock_algo lock_rwlock, lock_rwlock_rlf;
extern const struct lock_algo lock_qrwlock, lock_qrwlock_steal;
extern const struct lock_algo lock_qrwlock_2013, lock_qrwlock_2013_rs;
extern const struct lock_algo lock_qrwlock_316, lock_qrwlock_42;
extern const struct lock_algo lock_percpu_rwsem, lock_brlock;
extern const struct lock_algo lock_rwsem, lock_rwsem_pv, lock_kmutex, lock_kmutex_pv;
extern const struct lock_algo lock_spinlock_ref, lock_lockref;

static const struct lock_algo *const algorithms[] = {
	/* one word, everybody spins on it */
	&lock_tas,
	&lock_ttas,
	&lock_ttas_backoff,
	/* FIFO by counters */
	&lock_ticket,
	&lock_ticket_prop,
	/* FIFO queues, each waiter on a line of its own */
	&lock_anderson,
	&lock_mcs,
	&lock_clh,
	/* Linux's queued spinlock: one word, pending waiter, MCS tail */
	&lock_qspinlock,
	/* NUMA-aware: the lock stays on a socket for a bounded run */
	&lock_cna,
	&lock_cohort,
	&lock_hmcs,
	&lock_hticket,
	/* paravirtual: spin a bounded time, then halt; the unlocker kicks */
	&lock_pv_ticket,
	&lock_pv_qspinlock,
	&lock_pv_qspinlock_noearly,
	/* sleeping mutexes: spin on the owner, else sleep */
	&lock_kmutex,
	&lock_kmutex_pv,
	/* reader-writer locks: one counter, a queue, per-CPU counts, per-CPU locks */
	&lock_rwlock,
	&lock_rwlock_rlf,
	&lock_qrwlock_2013,
	&lock_qrwlock_2013_rs,
	&lock_qrwlock_316,
	&lock_qrwlock_42,
	&lock_qrwlock,
	&lock_qrwlock_steal,
	&lock_percpu_rwsem,
	&lock_brlock,
	/* sleeping: waiters queue under a spinlock and sleep */
	&lock_rwsem,
	&lock_rwsem_pv,
	/* reference counts: under a spinlock, or cmpxchg beside it */
	&lock_spinlock_ref,
	&lock_lockref,
};

#define NR_ALGORITHMS (sizeof(algorithms) / sizeof(algorithms[0]))

static size_t nr_backend_locks(void)
{
	size_t n = 0;

	while (backend_locks[n])
		n++;
	return n;
}

size_t lock_catalogue_size(void)
{
	return NR_ALGORITHMS + nr_backend_locks();
}

const struct lock_algo *lock_catalogue_get(size_t i)
{
	if (i < NR_ALGORITHMS)
		return algorithms[i];
	i -= NR_ALGORITHMS;
	return i < nr_backend_locks() ? backend_locks[i] : NULL;
}

/* Letters to insert, delete or change to turn a into b, case aside
 * (Levenshtein), counted up to a cap: names are short. */
static unsigned edits(const char *a, const char *b)
{
	enum { CAP = 64 };
	unsigned row[CAP + 1], la = (unsigned)strlen(a), lb = (unsigned)strlen(b);

	if (la > CAP || lb > CAP)
		return CAP;
	for (unsigned j = 0; j <= lb; j++)
		row[j] = j;
	for (unsigned i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = i;
		for (unsigned j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned change = diag + (tolower((unsigned char)a[i - 1]) !=
						  tolower((unsigned char)b[j - 1]));

			row[j] = change < up + 1 ? change : up + 1;
			row[j] = row[j] < row[j - 1] + 1 ? row[j] : row[j - 1] + 1;
			diag = up;
		}
	}
	return row[lb];
}

const struct lock_algo *lock_nearest(const char *name)
{
	const struct lock_algo *best = NULL;
	size_t n = strlen(name);
	/* two edits at most, fewer in a short name: 'ab' is no typo of 'tas' */
	unsigned best_d = n < 4 ? (unsigned)(n / 2 + 1) : 3;

	for (size_t i = 0; i < lock_catalogue_size(); i++) {
		const struct lock_algo *a = lock_catalogue_get(i);
		unsigned d = a ? edits(name, a->name) : best_d;

		if (d < best_d) {
			best = a;
			best_d = d;
		}
	}
	return best;
}

const struct lock_algo *lock_find(const char *name)
{
	size_t i, n = lock_catalogue_size();

	for (i = 0; i < n; i++) {
		const struct lock_algo *a = lock_catalogue_get(i);

		if (strcmp(a->name, name) == 0)
			return a;
	}
	return NULL;
}
