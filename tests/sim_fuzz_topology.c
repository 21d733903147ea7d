/*
 * tests/sim_fuzz_topology.c - 1,000 mutated topology files, each given to
 * `locklab-sim ccbench --topo F`: every one must load and pass (exit 0) or
 * be refused with one line on stderr (exit 2); never another status, a
 * signal, more than 10 s or more than 1 GiB of address space.  Every mutant
 * that loads, and every tenth refused one, also goes to `run --lock mcs
 * --threads 2 --ops 5 --runs 1` under the same rule.
 *
 * Mutants are made here from the shipped small machines, seeded: mutant i
 * is the same on every run.  Mutations: numbers, attribute values (huge
 * counts among them), deleted, duplicated and renamed attributes, deleted
 * and repeated lines, truncation, bad UTF-8, deep nesting, stray bytes.  A
 * mutant that breaks the rule is kept as /tmp/locklab-fuzz-N.xml.
 *
 * Two edges found this way are pinned by name: a latency below its route's
 * latency is refused, and simulated time that would run past its limit
 * ends the run with one line (exit 3), never an overflow.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "testlib.h"
#include "../sim/topology.h"

#define NMUTANTS 1000
#define WORKERS 2
#define SEED 0x6c6f636b6c616266ull

static const char *bindir;
static const char *const bases[] = { "1socket", "2socket", "4socket", "4socket-ring", "opteron48" };
#define NBASES (sizeof(bases) / sizeof(bases[0]))
static char *base_text[NBASES];

/* ------------------------------------------------------------ a mutant */

struct text {
	char *s;
	size_t len;
};

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545f4914f6cdd1dull;
}

static size_t pick(uint64_t *x, size_t n)
{
	return n ? (size_t)(rnd(x) % n) : 0;
}

/* Replace [at, at + n) of t with r (rlen bytes). */
static void text_splice(struct text *t, size_t at, size_t n, const char *r, size_t rlen)
{
	char *s = malloc(t->len - n + rlen + 1);

	assert_non_null(s);
	memcpy(s, t->s, at);
	memcpy(s + at, r, rlen);
	memcpy(s + at + rlen, t->s + at + n, t->len - at - n);
	t->len = t->len - n + rlen;
	s[t->len] = 0;
	free(t->s);
	t->s = s;
}

/* The k-th (mod count) position where accept() holds; -1 if none. */
static long nth_where(const struct text *t, uint64_t *x, bool (*accept)(const char *, size_t))
{
	size_t count = 0, k;

	for (size_t i = 0; i < t->len; i++)
		count += accept(t->s, i);
	if (!count)
		return -1;
	k = pick(x, count);
	for (size_t i = 0; i < t->len; i++)
		if (accept(t->s, i) && k-- == 0)
			return (long)i;
	return -1;
}

static bool number_start(const char *s, size_t i)
{
	return (s[i] >= '0' && s[i] <= '9') && (i == 0 || !strchr("0123456789.", s[i - 1]));
}

static bool value_start(const char *s, size_t i)
{
	return i > 0 && s[i] == '"' && s[i - 1] == '=';
}

static bool attr_start(const char *s, size_t i)
{
	return s[i] == ' ' && s[i + 1] >= 'a' && s[i + 1] <= 'z' && strchr(s + i, '=') &&
	       strchr(s + i, '=') < strchr(s + i, '"');
}

static bool line_start(const char *s, size_t i)
{
	return i == 0 || s[i - 1] == '\n';
}

static void mutate_number(struct text *t, uint64_t *x)
{
	static const char *const r[] = {
		"0", "-1", "1e30", "1e-30", "99999999999999999999", "0x12", "nan", "inf", "1.5",
		"", "-0", "1e308", "4294967296", "0.0000001", "7", "3", "1e9", "18446744073709551617",
		"2.5e-4", "1,2", "1 2 3 4 5 6 7 8 9", "+4", ".", "1e", "65536", "65537",
	};
	long at = nth_where(t, x, number_start);
	size_t n = 0;
	const char *v = r[pick(x, sizeof(r) / sizeof(r[0]))];

	if (at < 0)
		return;
	while (strchr("0123456789.eE-", t->s[at + (long)n]) && t->s[at + (long)n])
		n++;
	text_splice(t, (size_t)at, n, v, strlen(v));
}

static void mutate_value(struct text *t, uint64_t *x)
{
	static const char *const r[] = {
		"", " ", "abc", "0-1000000", "0-4000000000", "0-8191", "0-99999999999999999999",
		"5-2", "0-3,0-3", "-5", "1e400", "Full", "None", "Cluster", "MESI", "cycles",
		"socket-first", "unbounded", "0", "1ns", "1e30s", "1Tbps", "1bps", "1e-20s", "&amp;",
		"a b", "0x10", "2GBps", "1e9GBps", "fifo",
	};
	long at = nth_where(t, x, value_start);
	const char *v = r[pick(x, sizeof(r) / sizeof(r[0]))];
	const char *end;

	if (at < 0)
		return;
	end = strchr(t->s + at + 1, '"');
	if (end)
		text_splice(t, (size_t)at + 1, (size_t)(end - t->s) - (size_t)at - 1, v, strlen(v));
}

/* Delete, duplicate or rename an attribute. */
static void mutate_attr(struct text *t, uint64_t *x)
{
	long at = nth_where(t, x, attr_start);
	const char *q;
	size_t n;
	char *copy;

	if (at < 0)
		return;
	q = strchr(t->s + at, '"');
	q = q ? strchr(q + 1, '"') : NULL;
	if (!q)
		return;
	n = (size_t)(q + 1 - (t->s + at));
	switch (pick(x, 3)) {
	case 0:
		text_splice(t, (size_t)at, n, "", 0);
		break;
	case 1:
		copy = strndup(t->s + at, n);
		text_splice(t, (size_t)at, 0, copy, n);
		free(copy);
		break;
	default:
		t->s[at + 1 + (long)pick(x, 2)] ^= 0x20;
		break;
	}
}

/* Delete a line, or repeat it 2, 100 or 20,000 times. */
static void mutate_line(struct text *t, uint64_t *x)
{
	static const unsigned times[] = { 0, 0, 1, 99, 19999 };
	long at = nth_where(t, x, line_start);
	const char *nl;
	size_t n, k;
	char *rep;

	if (at < 0)
		return;
	nl = strchr(t->s + at, '\n');
	n = nl ? (size_t)(nl + 1 - (t->s + at)) : t->len - (size_t)at;
	k = times[pick(x, sizeof(times) / sizeof(times[0]))];
	if (!k) {
		text_splice(t, (size_t)at, n, "", 0);
		return;
	}
	rep = malloc(n * k);
	assert_non_null(rep);
	for (size_t i = 0; i < k; i++)
		memcpy(rep + i * n, t->s + at, n);
	text_splice(t, (size_t)at, 0, rep, n * k);
	free(rep);
}

static void mutate_utf8(struct text *t, uint64_t *x)
{
	static const char *const r[] = { "\xff", "\xc3", "\xed\xa0\x80", "\xc0\xaf", "\xf4\x90\x80\x80",
					 "\xe2\x82", "\x01", "\xef\xbb\xbf" };
	long at = nth_where(t, x, value_start);
	const char *v = r[pick(x, sizeof(r) / sizeof(r[0]))];

	at = at < 0 ? (long)pick(x, t->len) : at + 1 + (long)pick(x, 3);
	if ((size_t)at > t->len)
		at = (long)t->len;
	text_splice(t, (size_t)at, 0, v, strlen(v));
}

/* depth nested elements (zones or unknown ones) at a line start, closed or not. */
static void mutate_nesting(struct text *t, uint64_t *x)
{
	static const unsigned depths[] = { 2, 50, 300, 5000 };
	unsigned depth = depths[pick(x, 4)];
	bool zone = pick(x, 2), closed = pick(x, 2);
	long at = nth_where(t, x, line_start);
	size_t cap = (size_t)depth * 64 + 1, n = 0;
	char *buf = malloc(cap);

	assert_non_null(buf);
	for (unsigned i = 0; i < depth; i++)
		n += (size_t)(zone ? snprintf(buf + n, cap - n, "<zone id=\"n%u\" routing=\"Full\">", i)
				   : snprintf(buf + n, cap - n, "<a>"));
	for (unsigned i = 0; closed && i < depth; i++)
		n += (size_t)snprintf(buf + n, cap - n, zone ? "</zone>" : "</a>");
	text_splice(t, at < 0 ? 0 : (size_t)at, 0, buf, n);
	free(buf);
}

static void mutate_bytes(struct text *t, uint64_t *x)
{
	static const char stray[] = "<>&\"'=/ 09az-.\n";

	if (!t->len)
		return;
	if (pick(x, 2)) {
		t->len = pick(x, t->len); /* truncation */
		t->s[t->len] = 0;
		return;
	}
	t->s[pick(x, t->len)] = stray[pick(x, sizeof(stray) - 1)];
}

static void mutate(struct text *t, uint64_t *x)
{
	static void (*const ops[])(struct text *, uint64_t *) = {
		mutate_number, mutate_number, mutate_number, mutate_value, mutate_value,
		mutate_attr, mutate_line, mutate_utf8, mutate_nesting, mutate_bytes,
	};

	ops[pick(x, sizeof(ops) / sizeof(ops[0]))](t, x);
}

/* Mutant i: a copy of a base file with one to three mutations. */
static struct text make_mutant(unsigned i)
{
	uint64_t x = SEED ^ ((uint64_t)i * 0x9e3779b97f4a7c15ull);
	const char *b = base_text[i % NBASES];
	struct text t = { strdup(b), strlen(b) };
	unsigned n = 1 + (unsigned)pick(&x, 3);

	assert_non_null(t.s);
	for (unsigned k = 0; k < n; k++)
		mutate(&t, &x);
	return t;
}

/* ------------------------------------------------------------ the rule */

/* NULL when p kept the rule: 0, or 2 with one line on stderr. */
static const char *broken(const struct tl_proc *p)
{
	const char *nl = strchr(p->err, '\n');

	if (p->status == 0)
		return NULL;
	if (p->status == 2)
		return nl && !nl[1] ? NULL : "exit 2 without exactly one line on stderr";
	if (p->status == 128 + SIGALRM)
		return "more than 10 s";
	return p->status > 128 ? "ended by a signal" : "exit status neither 0 nor 2";
}

static int check_one(unsigned i, const char *path, const char *cmd, FILE *log)
{
	static const struct tl_limits lim = { 1ull << 30, 10 };
	char prog[1024];
	char *ccbench[] = { prog, "ccbench", "--topo", (char *)path, NULL };
	char *run[] = { prog, "run", "--topo", (char *)path, "--lock", "mcs", "--threads", "2",
			"--ops", "5", "--runs", "1", NULL };
	struct tl_proc p;
	const char *why;
	int status;

	snprintf(prog, sizeof(prog), "%s/locklab-sim", bindir);
	tl_exec_limited(&p, strcmp(cmd, "ccbench") ? run : ccbench, &lim);
	why = broken(&p);
	status = p.status;
	if (why) {
		char keep[64], copy[256];

		snprintf(keep, sizeof(keep), "/tmp/locklab-fuzz-%u.xml", i);
		snprintf(copy, sizeof(copy), "cp '%s' '%s'", path, keep);
		if (system(copy) != 0)
			keep[0] = 0;
		fprintf(log, "mutant %u (%s, kept as %s): %s %s (status %d): %.200s\n", i, cmd, keep,
			why, path, p.status, p.err);
		status = -1;
	}
	tl_proc_free(&p);
	return status;
}

/* Mutants w, w + WORKERS, ...: how many broke the rule. */
static int worker(unsigned w, FILE *log)
{
	unsigned loaded = 0, refused = 0, runs = 0;
	char path[320];
	int bad = 0;

	snprintf(path, sizeof(path), "%s/mutant-%u.xml", tl_tmpdir(), w);
	for (unsigned i = w; i < NMUTANTS; i += WORKERS) {
		struct text t = make_mutant(i);
		FILE *f = fopen(path, "wb");
		int st;

		if (!f || fwrite(t.s, 1, t.len, f) != t.len || fclose(f)) {
			fprintf(log, "mutant %u: cannot write %s\n", i, path);
			return bad + 1;
		}
		free(t.s);
		st = check_one(i, path, "ccbench", log);
		bad += st < 0;
		loaded += st == 0;
		refused += st == 2;
		if (st == 0 || (st == 2 && i % 10 == 0)) {
			bad += check_one(i, path, "run", log) < 0;
			runs++;
		}
	}
	fprintf(log, "worker %u: %u mutants loaded, %u refused, %u also run\n", w, loaded, refused,
		runs);
	return bad;
}

static void mutants_load_or_are_refused(void **state)
{
	pid_t pid[WORKERS];
	int bad = 0, st;
	char *log;

	for (unsigned w = 0; w < WORKERS; w++) {
		fflush(NULL);
		pid[w] = fork();
		assert_true(pid[w] >= 0);
		if (pid[w] == 0) {
			char name[32];
			FILE *f;

			snprintf(name, sizeof(name), "log-%u", w);
			f = fopen(tl_path(name), "w");
			_exit(f ? (worker(w, f) > 0) + (fclose(f) != 0) : 3);
		}
	}
	for (unsigned w = 0; w < WORKERS; w++) {
		char name[32];

		assert_int_equal(waitpid(pid[w], &st, 0), pid[w]);
		snprintf(name, sizeof(name), "log-%u", w);
		log = tl_slurp(tl_path(name), NULL);
		if (log && *log)
			fputs(log, stderr);
		free(log);
		bad += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	}
	assert_int_equal(bad, 0);
}

/* The mutants are the same on every run. */
static void mutants_are_seeded(void **state)
{
	struct text a = make_mutant(7), b = make_mutant(7), c = make_mutant(8);

	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.s, b.s, a.len);
	assert_true(a.len != c.len || memcmp(a.s, c.s, a.len));
	free(a.s);
	free(b.s);
	free(c.s);
}

/* 4socket with lat.atomic.S 3 ns at class 1, whose route is 40 ns. */
static void cost_below_travel_is_refused(void **state)
{
	const char *path = tl_path("below.xml");
	char *t = strdup(base_text[2]), *at = strstr(t, "\"lat.atomic.S\" value=\"");
	const char *args[] = { "ccbench", "--topo", path, NULL };
	FILE *f;

	assert_non_null(at);
	at = strchr(at + 22, ' ');
	assert_non_null(at);
	memcpy(at, " 3\"", 3);
	memmove(at + 3, strchr(at + 3, '/'), strlen(strchr(at + 3, '/')) + 1);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(t, f);
	assert_int_equal(fclose(f), 0);
	free(t);
	tl_bin_refused(bindir, "locklab-sim", args, "less than its route's latency (40.000 ns)");
}

/* `assumed` names figures the machine has, each once: SMT's on a machine
 * without it, or a family twice, was printed as assumed.  And a property's
 * stray attribute is named. */
static void assumed_names_the_machines_figures(void **state)
{
	static const struct {
		const char *to, *needle;
	} bad[] = {
		{ "smt lat.*", "assumed: 'smt', where the machine has no SMT" },
		{ "idle.states lat.*", "assumed: 'idle.states', where the machine has no idle states" },
		{ "lat.* lat.*", "assumed: 'lat.*' twice" },
	};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *path = tl_path("assumed.xml");
		struct tl_proc p;

		assert_int_equal(tl_sh(NULL, "sed 's/id=\"assumed\" value=\"lat\\.\\*/id=\"assumed\" "
				       "value=\"%s/' topologies/4socket.xml > '%s'", bad[i].to, path), 0);
		tl_sh(&p, "%s/locklab-sim ccbench --topo '%s'", bindir, path);
		tl_expect_refused(&p, bad[i].needle);
		tl_proc_free(&p);
	}
	/* a property with an attribute too: its line names the attribute, not
	 * the id and value it has */
	{
		const char *path = tl_path("unit.xml");
		struct tl_proc p;

		assert_int_equal(tl_sh(NULL, "sed 's|<prop id=\"pause\" value=\"\\([0-9.]*\\)\"/>|"
				       "<prop id=\"pause\" value=\"\\1\" unit=\"us\"/>|' "
				       "topologies/4socket.xml > '%s'", path), 0);
		tl_sh(&p, "%s/locklab-sim ccbench --topo '%s'", bindir, path);
		tl_expect_refused(&p, "<prop> has no attribute 'unit'");
		tl_proc_free(&p);
	}
}

/* Elements nested past libxml2's limit: one line that says so, without
 * libxml2's advice to its caller (XML_PARSE_HUGE). */
static void too_deep_is_one_plain_line(void **state)
{
	const char *path = tl_path("deep.xml");
	const char *args[] = { "ccbench", "--topo", path, NULL };
	FILE *f = fopen(path, "w");
	struct tl_proc p;

	assert_non_null(f);
	fputs("<?xml version='1.0'?>\n", f);
	for (int i = 0; i < 300; i++)
		fputs("<a>", f);
	for (int i = 0; i < 300; i++)
		fputs("</a>", f);
	assert_int_equal(fclose(f), 0);
	tl_bin_refused(bindir, "locklab-sim", args, "malformed XML: Excessive depth in document");
	assert_int_equal(tl_bin(&p, bindir, "locklab-sim", args), 2);
	assert_null(strstr(p.err, "XML_PARSE_HUGE"));
	tl_proc_free(&p);
}

/* 60 runs of 24 simulated hours in one process (--jobs 1: a worker process
 * per run would start each at zero) pass its limit of about 1281 h. */
static void simulated_time_runs_out_with_a_line(void **state)
{
	const char *args[] = { "run", "--lock", "mcs", "--threads", "1", "--cs", "3600000000000",
			       "--ncs", "3600000000000", "--duration", "86400000", "--runs", "60",
			       "--fail-fast", "--jobs", "1", NULL };
	struct tl_proc p;

	tl_bin(&p, bindir, "locklab-sim", args);
	if (p.status != 3 || strncmp(p.err, "locklab-sim: mcs t=1 run ", 25) ||
	    !strstr(p.err, ": simulated time ran out at "))
		fail_msg("status %d, stderr '%s'", p.status, p.err);
	tl_proc_free(&p);
}

static int setup(void **state)
{
	for (size_t i = 0; i < NBASES; i++) {
		char path[4096];

		if (topo_resolve(bases[i], path, sizeof(path)) ||
		    !(base_text[i] = tl_slurp(path, NULL)))
			return -1;
	}
	return tl_tmpdir_make();
}

static int teardown(void **state)
{
	for (size_t i = 0; i < NBASES; i++)
		free(base_text[i]);
	return tl_tmpdir_remove();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mutants_are_seeded),
		cmocka_unit_test(cost_below_travel_is_refused),
		cmocka_unit_test(assumed_names_the_machines_figures),
		cmocka_unit_test(too_deep_is_one_plain_line),
		cmocka_unit_test(simulated_time_runs_out_with_a_line),
		cmocka_unit_test(mutants_load_or_are_refused),
	};

	bindir = argc > 1 ? argv[1] : "bin";
	return cmocka_run_group_tests(tests, setup, teardown);
}
