/*
 * tests/shims/die_before_start.c - preloaded into `locklab-sim run --jobs N`
 * by tests/sim_jobs.c: a worker process dies between two runs, after it
 * took a run's index and before it said it started the run (core/jobs.c's
 * one-byte 's').  That moment cannot be reached from outside by a signal;
 * this makes it exact.
 *
 * LOCKLAB_SHIM_DIE_ACK=K: the process's K-th acknowledgement is its end
 * (_exit(7)), once per LOCKLAB_SHIM_ONCE: the first process to get there
 * creates that file, and later ones (the replacement) live on.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	static ssize_t (*real_send)(int, const void *, size_t, int);
	static pid_t owner;
	static int acks;
	const char *k = getenv("LOCKLAB_SHIM_DIE_ACK"), *once = getenv("LOCKLAB_SHIM_ONCE");

	if (!real_send)
		real_send = (ssize_t (*)(int, const void *, size_t, int))dlsym(RTLD_NEXT, "send");
	if (owner != getpid()) { /* a fork: its own count */
		owner = getpid();
		acks = 0;
	}
	if (n == 1 && *(const char *)buf == 's' && k && once && ++acks == atoi(k)) {
		int f = open(once, O_CREAT | O_EXCL | O_WRONLY, 0600);

		if (f >= 0) {
			close(f);
			_exit(7);
		}
	}
	return real_send(fd, buf, n, flags);
}
