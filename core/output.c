/*
 * core/output.c - the CSV and the JSON (the table: core/table.c).
 *
 * One column table drives both CSV and JSON, so they cannot drift apart.
 * Columns of the contract come first, in its order; locklab's own follow.
 * A value that does not apply (a simulator counter in a native run, the
 * handoff share of a run without handoffs) is empty in CSV and null in JSON.
 * A run that failed keeps the columns naming what was run and leaves the
 * measured ones empty; a last column, failure, says why (it exists only in
 * output that has a failed run).  Also the line under a table that says
 * where --graphs wrote (output_graphs_line).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <locklab/backend.h>
#include <locklab/result.h>

#include "outfile.h"

enum col_type { C_STR, C_U64, C_UINT, C_F2, C_F4, C_F9, C_BOOL };

/* Columns of a virtual-machine run (--vm) exist only in output that has
 * one, so that every other output stays as it was. */
enum col_vm {
	VM_NO = 0,    /* always there */
	VM_ANY = 1,   /* --vm: either backend */
	VM_SCHED = 2, /* --vm: the simulator's hypervisor */
	NOISE = 3,    /* scheduler noise (docs/variance.md) */
	COUNTS = 4,   /* a lock's own counts (ll_count, core/counts.c) */
};

struct col {
	const char *name;
	enum col_type type;
	size_t off;
	bool sim_only; /* empty unless the row has simulator counters */
	enum col_vm vm;
	bool key;      /* names what was run: kept in a failed run's row */
};

#define COL(n, t, f) { n, t, offsetof(struct run_result, f), false, VM_NO, false }
#define KEYCOL(n, t, f) { n, t, offsetof(struct run_result, f), false, VM_NO, true }
#define SIMCOL(n, f) { n, C_F4, offsetof(struct run_result, f), true, VM_NO, false }
#define VMCOL(n, t, f) { n, t, offsetof(struct run_result, f), false, VM_ANY, false }
#define VMKEYCOL(n, t, f) { n, t, offsetof(struct run_result, f), false, VM_ANY, true }
#define SCHEDCOL(n, t, f) { n, t, offsetof(struct run_result, f), false, VM_SCHED, false }
#define NOISECOL(n, f) { n, C_U64, offsetof(struct run_result, f), true, NOISE, false }

static const struct col cols[] = {
	KEYCOL("backend", C_STR, backend),
	KEYCOL("topo", C_STR, topo),
	KEYCOL("lock", C_STR, lock),
	KEYCOL("threads", C_UINT, threads),
	KEYCOL("cs_ns", C_U64, cs_ns),
	KEYCOL("ncs_ns", C_U64, ncs_ns),
	KEYCOL("cs_lines", C_UINT, cs_lines),
	KEYCOL("locks", C_UINT, locks),
	KEYCOL("seed", C_U64, seed),
	KEYCOL("run", C_UINT, run),
	COL("duration_s", C_F9, duration_s), /* to the ns: acquisitions / it is the throughput */
	COL("acquisitions", C_U64, acquisitions),
	COL("throughput_per_s", C_F2, throughput_per_s),
	COL("wait_mean_ns", C_F2, wait_mean_ns),
	COL("wait_p50_ns", C_F2, wait_p50_ns),
	COL("wait_p99_ns", C_F2, wait_p99_ns),
	COL("wait_max_ns", C_F2, wait_max_ns),
	COL("jain", C_F9, jain), /* to 1e-9: a mean of the rows rounds as the table's does */
	COL("acq_min", C_U64, acq_min),
	COL("acq_max", C_U64, acq_max),
	COL("handoff_local_frac", C_F9, handoff_local_frac),
	SIMCOL("misses_per_acq", misses_per_acq),
	SIMCOL("invalidations_per_release", invalidations_per_release),
	SIMCOL("remote_transfers_per_acq", remote_transfers_per_acq),
	SIMCOL("line_queue_ns_per_acq", line_queue_ns_per_acq),
	SIMCOL("busiest_link_msgs_per_acq", busiest_link_msgs_per_acq),
	/* --vm (docs/vm.md) */
	VMKEYCOL("overcommit", C_F2, vm.overcommit),
	VMKEYCOL("pcpus", C_UINT, vm.pcpus),
	VMCOL("preemptions", C_U64, vm.preemptions),
	SCHEDCOL("holder_preemptions", C_U64, vm.holder_preemptions),
	SCHEDCOL("waiter_preemptions", C_U64, vm.waiter_preemptions),
	SCHEDCOL("holder_lost_ns_per_acq", C_F2, holder_lost_ns_per_acq),
	SCHEDCOL("waiter_lost_ns_per_acq", C_F2, waiter_lost_ns_per_acq),
	VMCOL("halts", C_U64, vm.halts),
	VMCOL("kicks", C_U64, vm.kicks),
	VMCOL("wake_latency_ns", C_F2, wake_latency_ns),
	SCHEDCOL("ple_exits", C_U64, vm.ple_exits),
	SCHEDCOL("ple_yields", C_U64, vm.ple_yields),
	SCHEDCOL("vcpus_never_ran", C_UINT, vm.never_ran),
	/* locklab's own */
	KEYCOL("ncs_exp", C_BOOL, ncs_exp),
	KEYCOL("read_pct", C_UINT, read_pct),
	COL("reads", C_U64, reads),
	COL("writes", C_U64, writes),
	COL("read_wait_p99_ns", C_F2, read_wait_p99_ns),
	COL("read_wait_max_ns", C_F2, read_wait_max_ns),
	COL("write_wait_p99_ns", C_F2, write_wait_p99_ns),
	COL("write_wait_max_ns", C_F2, write_wait_max_ns),
	COL("readers_overlap_max", C_UINT, readers_overlap_max),
	SIMCOL("events_per_acq", events_per_acq),
	SIMCOL("transfers_class0_per_acq", transfers_class_per_acq[0]),
	SIMCOL("transfers_class1_per_acq", transfers_class_per_acq[1]),
	SIMCOL("transfers_class2_per_acq", transfers_class_per_acq[2]),
	SIMCOL("transfers_class3_per_acq", transfers_class_per_acq[3]),
	COL("starved", C_UINT, starved),
	COL("oversubscribed", C_BOOL, oversubscribed),
	SIMCOL("lock_misses_per_acq", lock_misses_per_acq),
	SIMCOL("node_misses_per_acq", node_misses_per_acq),
	SIMCOL("data_misses_per_acq", data_misses_per_acq),
	SIMCOL("other_misses_per_acq", other_misses_per_acq),
	SIMCOL("idle_wakes_per_acq", idle_wakes_per_acq),
	SIMCOL("idle_exit_ns_per_acq", idle_exit_ns_per_acq),
	COL("wait_p99_censored", C_BOOL, wait_p99_censored),
	COL("read_wait_p99_censored", C_BOOL, read_wait_p99_censored),
	COL("write_wait_p99_censored", C_BOOL, write_wait_p99_censored),
	COL("wait_max_censored", C_BOOL, wait_max_censored),
	COL("sockets", C_UINT, sockets),
	COL("sockets_served", C_UINT, sockets_served),
	COL("handoff_frac", C_F9, handoff_frac),
	COL("read_wait_max_censored", C_BOOL, read_wait_max_censored),
	COL("write_wait_max_censored", C_BOOL, write_wait_max_censored),
	NOISECOL("migrations", sim.migrations),
	NOISECOL("irqs", sim.irqs),
	/* only in output of a sweep with a lock that keeps counts */
	{ "lock_counts", C_STR, offsetof(struct run_result, counts_text), false, COUNTS, false },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

/* Room for the widest cell (a failure's reason). */
#define CELL_MAX 560

/* The last column, in output with a failed run only. */
static const struct col failure_col = KEYCOL("failure", C_STR, failure);

void output_add(struct output_set *o, const struct run_result *r)
{
	if (o->nrows == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 64;
		struct run_result *rows = realloc(o->rows, cap * sizeof(*rows));

		if (!rows) {
			fprintf(stderr, "locklab: out of memory\n");
			exit(1);
		}
		o->rows = rows;
		o->cap = cap;
	}
	o->rows[o->nrows++] = *r;
}

void output_free(struct output_set *o)
{
	free(o->rows);
	free(o->probes);
	memset(o, 0, sizeof(*o));
}

static bool is_rwlock_col(const struct col *c)
{
	return !strncmp(c->name, "read", 4) || !strncmp(c->name, "write", 5);
}

struct out_shape output_shape(const struct output_set *o)
{
	struct out_shape sh = { false, false, false, false };

	for (size_t i = 0; i < o->nrows; i++) {
		sh.vm |= o->rows[i].vm.has_vm;
		sh.noise |= o->rows[i].sim.has_noise;
		sh.failed |= o->rows[i].failure[0] != 0;
		sh.counts |= o->rows[i].ncounts > 0;
	}
	/* from the sweep's locks as well: every shard of it has the column */
	for (unsigned i = 0; o->cfg && i < o->cfg->nalgos; i++)
		sh.counts |= o->cfg->algos[i]->counts[0] != NULL;
	return sh;
}

/* Column c of the output: the table's, then the failure column. */
static const struct col *col_at(size_t c)
{
	return c < NCOLS ? &cols[c] : &failure_col;
}

bool output_text_column(const char *name, size_t len)
{
	for (size_t c = 0; c <= NCOLS; c++) {
		const struct col *k = col_at(c);

		if (k->type == C_STR && strlen(k->name) == len && !strncmp(k->name, name, len))
			return true;
	}
	return false;
}

/* Does the output have column c at all? */
static bool shown(const struct col *c, struct out_shape sh)
{
	if (c == &failure_col)
		return sh.failed;
	if (c->vm == NOISE)
		return sh.noise;
	if (c->vm == COUNTS)
		return sh.counts;
	return c->vm == VM_NO || sh.vm;
}

/* Format one cell; returns false when it is empty (does not apply). */
static bool cell(const struct run_result *r, const struct col *c, char *buf, size_t len)
{
	const char *p = (const char *)r + c->off;
	double d;

	if (r->failure[0] && !c->key)
		return false;
	if (c == &failure_col && !r->failure[0])
		return false;
	if (c->sim_only && !r->sim.has_sim)
		return false;
	if (c->vm == NOISE && !r->sim.has_noise)
		return false;
	if (c->vm == COUNTS)
		return r->ncounts && snprintf(buf, len, "%s", r->counts_text) > 0;
	if (c->vm != VM_NO && c->vm != NOISE && !r->vm.has_vm)
		return false;
	if (c->vm == VM_SCHED && !r->vm.has_sched)
		return false;
	if (is_rwlock_col(c) && !r->is_rwlock)
		return false;
	switch (c->type) {
	case C_STR:
		snprintf(buf, len, "%s", p);
		return true;
	case C_U64:
		snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)p);
		return true;
	case C_UINT:
		snprintf(buf, len, "%u", *(const unsigned *)p);
		return true;
	case C_BOOL:
		snprintf(buf, len, "%s", *(const bool *)p ? "true" : "false");
		return true;
	case C_F2:
	case C_F4:
	case C_F9:
		d = *(const double *)p;
		if (isnan(d) || isinf(d))
			return false;
		snprintf(buf, len, c->type == C_F2 ? "%.2f" : c->type == C_F4 ? "%.4f" : "%.9f", d);
		return true;
	}
	return false;
}

void output_csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void output_csv_head(FILE *f, struct out_shape sh)
{
	bool first = true;

	for (size_t c = 0; c <= NCOLS; c++) {
		if (!shown(col_at(c), sh))
			continue;
		fprintf(f, "%s%s", first ? "" : ",", col_at(c)->name);
		first = false;
	}
	fputc('\n', f);
}

void output_csv_row(FILE *f, const struct run_result *r, struct out_shape sh)
{
	char buf[CELL_MAX];
	bool first = true;

	for (size_t c = 0; c <= NCOLS; c++) {
		if (!shown(col_at(c), sh))
			continue;
		if (!first)
			fputc(',', f);
		first = false;
		if (cell(r, col_at(c), buf, sizeof(buf)))
			output_csv_field(f, buf);
	}
	fputc('\n', f);
}

void output_csv(FILE *f, const struct output_set *o)
{
	struct out_shape sh = output_shape(o);

	output_csv_head(f, sh);
	for (size_t i = 0; i < o->nrows; i++)
		output_csv_row(f, &o->rows[i], sh);
}

void output_json_string(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* The lockstep probes the table made (no row: one run is not a
 * configuration's figure), and its reading of each, so that what is drawn
 * from the file says what the table said. */
static void json_probes(FILE *f, const struct output_set *o)
{
	char said[LOCKSTEP_SAID_MAX];

	if (!o->nprobes)
		return;
	fprintf(f, ",\n  \"lockstep_probes\": [");
	for (size_t k = 0; k < o->nprobes; k++) {
		const struct lockstep_probe *p = &o->probes[k];

		fprintf(f, "%s\n    {\"lock\": ", k ? "," : "");
		output_json_string(f, p->lock);
		fprintf(f, ", \"threads\": %u, \"overcommit\": %.2f, \"spread_pct\": %u, "
			   "\"jain\": %.9f, \"starved\": %u, \"fair_jain_assumed\": %.2f, "
			   "\"reading\": \"%s\", \"said\": ", p->threads, p->overcommit, p->spread_pct,
			p->jain, p->starved, LOCKSTEP_FAIR_JAIN, lockstep_fair(p) ? "lockstep" : "unfair");
		output_json_string(f, lockstep_said(p, said, sizeof(said)));
		fputc('}', f);
	}
	fprintf(f, "\n  ]");
}

void output_json(FILE *f, const struct output_set *o)
{
	char buf[CELL_MAX];
	struct out_shape sh = output_shape(o);

	fprintf(f, "{\n  \"locklab_version\": \"%s\",\n  \"environment\": {", LOCKLAB_VERSION);
	if (o->cfg)
		backend_env_json(f, o->cfg);
	if (o->cfg && o->cfg->time_every > 1)
		fprintf(f, ", \"time_every\": %u", o->cfg->time_every);
	if (o->cfg)
		fprintf(f, ", \"lock_home\": \"%s\"", wl_lock_home_name(o->cfg->lock_home));
	if (o->nshards) /* rows of one shard, not of the whole sweep */
		fprintf(f, ", \"shard\": \"%u/%u\"", o->shard, o->nshards);
	if (o->runs_done < o->runs_planned) /* interrupted, or --fail-fast */
		fprintf(f, ", \"stopped_early\": {\"runs_done\": %zu, \"runs_planned\": %zu}",
			o->runs_done, o->runs_planned);
	if (o->cfg) {
		char said[2048];

		backend_assumed(o->cfg, said, sizeof(said));
		if (*said) { /* the table's line under settings:, word for word */
			fprintf(f, ", \"assumed_line\": ");
			output_json_string(f, said);
		}
	}
	fprintf(f, "},\n  \"rows\": [");
	for (size_t i = 0; i < o->nrows; i++) {
		fprintf(f, "%s\n    {", i ? "," : "");
		for (size_t c = 0; c <= NCOLS; c++) {
			const struct col *k = col_at(c);

			if (!shown(k, sh))
				continue;
			fprintf(f, "%s\"%s\": ", c ? ", " : "", k->name);
			if (!cell(&o->rows[i], k, buf, sizeof(buf)))
				fputs("null", f);
			else if (k->type == C_STR)
				output_json_string(f, buf);
			else
				fputs(buf, f);
		}
		fputc('}', f);
	}
	fprintf(f, "\n  ]");
	json_probes(f, o);
	fprintf(f, "\n}\n");
}

int write_file_atomic(const char *path, const char *buf, size_t len)
{
	char tmp[4096];
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (outfile_may_replace(path))
		return -1;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -1;
	for (size_t done = 0; done < len;) {
		ssize_t n = write(fd, buf + done, len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		done += (size_t)n;
	}
	if (fsync(fd)) {
		int e = errno;

		close(fd);
		errno = e;
		fd = -1;
		goto fail;
	}
	if (close(fd)) {
		fd = -1;
		goto fail;
	}
	if (outfile_may_replace(path) || rename(tmp, path))
		goto fail_unlinked;
	return 0;
fail:
	if (fd >= 0)
		close(fd);
fail_unlinked : {
	int e = errno;

	unlink(tmp);
	errno = e;
}
	return -1;
}

char *text_of(void (*fn)(FILE *, const void *), const void *arg, size_t *len)
{
	char *buf = NULL;
	FILE *m;

	*len = 0;
	m = open_memstream(&buf, len);
	if (!m)
		return NULL;
	fn(m, arg);
	if (fclose(m)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int write_text_atomic(const char *path, void (*fn)(FILE *, const void *), const void *arg)
{
	size_t len;
	char *buf = text_of(fn, arg, &len);
	int rc;

	if (!buf)
		return -1;
	rc = write_file_atomic(path, buf, len);
	free(buf);
	return rc;
}

static void csv_of(FILE *f, const void *o)
{
	output_csv(f, o);
}

static void json_of(FILE *f, const void *o)
{
	output_json(f, o);
}

int output_csv_file(const char *path, const struct output_set *o)
{
	return write_text_atomic(path, csv_of, o);
}

int output_json_file(const char *path, const struct output_set *o)
{
	return write_text_atomic(path, json_of, o);
}

/* Where --graphs wrote, which the table does not show otherwise; `which`
 * says which run of a configuration its graphs draw. */
void output_graphs_line(FILE *f, const char *which)
{
	const char *opt, *dir = backend_output_dir(&opt);
	unsigned n = 0;
	struct dirent *e;
	DIR *d;

	if (!dir || !(d = opendir(dir)))
		return;
	while ((e = readdir(d))) { /* the graphs there, each a .dot, an .svg and a .png */
		size_t len = strlen(e->d_name);

		n += !strncmp(e->d_name, "graph-", 6) && len > 4 &&
		     !strcmp(e->d_name + len - 4, ".svg");
	}
	closedir(d);
	if (n)
		fprintf(f, "%s %s: holds %u graph%s (.dot, .svg, .png), %s, "
			   "graph-TOPO-LOCK-THREADS[-xOVERCOMMIT]-KIND (docs/graphs.md)\n",
			opt, dir, n, n == 1 ? "" : "s", which);
}
