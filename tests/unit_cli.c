/*
 * tests/unit_cli.c - bad input to either binary: exit status 2 and exactly
 * one line on stderr that names the problem.  Also `list` and `help`.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

static const char *bindir;

struct outcome {
	int status;
	char err[4096];
	char out[65536];
};

/* Run bin/<prog> with args; capture stdout, stderr and the exit status. */
static void run(struct outcome *o, const char *prog, const char *const *args)
{
	char path[1024];
	const char *argv[64];
	int pe[2], po[2];
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s", bindir, prog);
	argv[n++] = path;
	for (; args[n - 1]; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	assert_int_equal(pipe(pe), 0);
	assert_int_equal(pipe(po), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(pe[1], 2);
		dup2(po[1], 1);
		close(pe[0]);
		close(po[0]);
		execv(path, (char *const *)argv);
		_exit(127);
	}
	close(pe[1]);
	close(po[1]);
	memset(o, 0, sizeof(*o));
	size_t ne = 0, no = 0;
	ssize_t k;
	while ((k = read(pe[0], o->err + ne, sizeof(o->err) - 1 - ne)) > 0)
		ne += (size_t)k;
	while ((k = read(po[0], o->out + no, sizeof(o->out) - 1 - no)) > 0)
		no += (size_t)k;
	close(pe[0]);
	close(po[0]);
	int st;
	waitpid(pid, &st, 0);
	o->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void expect_bad(const char *prog, const char *const *args, const char *needle)
{
	struct outcome o;

	run(&o, prog, args);
	if (o.status != 2 || count_lines(o.err) != 1 || !strstr(o.err, needle)) {
		fprintf(stderr, "%s %s ...: status %d, stderr: %s\n", prog, args[0], o.status, o.err);
		fail();
	}
}

#define BAD(prog, needle, ...)                                                         \
	do {                                                                           \
		const char *const a_[] = { __VA_ARGS__, NULL };                        \
		expect_bad(prog, a_, needle);                                          \
	} while (0)

static void bad_input_native(void **state)
{
	const char *p = "locklab-native";

	BAD(p, "unknown lock 'nosuchlock'", "run", "--lock", "nosuchlock");
	BAD(p, "--duration", "run", "--lock", "ticket", "--duration", "-5");
	BAD(p, "--duration", "run", "--lock", "ticket", "--duration", "abc");
	BAD(p, "--duration", "run", "--lock", "ticket", "--duration", "0");
	BAD(p, "--threads", "run", "--lock", "ticket", "--threads", "0");
	BAD(p, "--threads", "run", "--lock", "ticket", "--threads", "1,,2");
	BAD(p, "--threads", "run", "--lock", "ticket", "--threads", "100000");
	BAD(p, "--cs", "run", "--lock", "ticket", "--cs", "-1");
	BAD(p, "--ncs", "run", "--lock", "ticket", "--ncs", "exp:x");
	BAD(p, "--cs-lines", "run", "--lock", "ticket", "--cs-lines", "4097");
	BAD(p, "--locks", "run", "--lock", "ticket", "--locks", "0");
	BAD(p, "--read-pct", "run", "--lock", "ticket", "--read-pct", "101");
	BAD(p, "--runs", "run", "--lock", "ticket", "--runs", "0");
	BAD(p, "--pin", "run", "--lock", "ticket", "--pin", "diagonal");
	BAD(p, "--pin", "run", "--lock", "ticket", "--pin", "list:0", "--threads", "2");
	BAD(p, "--format", "run", "--lock", "ticket", "--format", "xml");
	BAD(p, "exclude", "run", "--lock", "ticket", "--ops", "10", "--duration", "10");
	BAD(p, "unknown option '--bogus'", "run", "--bogus", "1");
	BAD(p, "needs a value", "run", "--lock");
	BAD(p, "unknown command", "frobnicate");
}

static void bad_input_sim(void **state)
{
	const char *p = "locklab-sim";

	BAD(p, "unknown lock 'nosuchlock'", "run", "--topo", "4socket", "--lock", "nosuchlock");
	BAD(p, "--duration", "run", "--topo", "4socket", "--lock", "ticket", "--duration", "-5");
	BAD(p, "nosuchmachine", "run", "--topo", "nosuchmachine", "--lock", "ticket");
	/* 4socket has 32 cores */
	BAD(p, "32", "run", "--topo", "4socket", "--lock", "ticket", "--threads", "33");
}

static void list_prints_catalogue(void **state)
{
	struct outcome o;
	const char *const a[] = { "list", NULL };

	run(&o, "locklab-native", a);
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "ticket"));
	assert_non_null(strstr(o.out, "mcs"));
	assert_non_null(strstr(o.out, "mutex"));
	run(&o, "locklab-sim", a);
	assert_int_equal(o.status, 0);
	assert_non_null(strstr(o.out, "mcs"));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bad_input_native),
		cmocka_unit_test(bad_input_sim),
		cmocka_unit_test(list_prints_catalogue),
	};
	bindir = argc > 1 ? argv[1] : "bin";
	return cmocka_run_group_tests(tests, NULL, NULL);
}
