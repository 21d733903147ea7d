/*
 * native/tools/calib_platform.c - from a calibration to a SimGrid platform
 * file: the completeness checks, the distance classes of the socket pairs,
 * the link latency of each class, and the platform file itself.
 *
 * The platform file takes the medians: load and store rows as measured, the
 * atomic row as the mean of the cas, fai and swap medians
 * (topologies/README.md has one row for every read-modify-write).
 */
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include <locklab/workload.h>

#include "../../core/park_costs.h"
#include "../../core/topodirs.h"
#include "validate.h"

/* ------------------------------------------------------------ checks */

static int check_structure(const struct calib *c, char *err, size_t errlen)
{
	unsigned ns = c->nsockets;

	if (!ns || !c->nclasses || !c->nnodes) {
		snprintf(err, errlen, "sockets, classes and numa_nodes are required");
		return -1;
	}
	unsigned long long pus = 0;

	for (unsigned s = 0; s < ns; s++) {
		if (!c->socket_pus[s]) {
			snprintf(err, errlen, "socket_pus: socket %u has no PU", s);
			return -1;
		}
		pus += c->socket_pus[s];
	}
	if (pus > WL_MAX_THREADS) { /* the simulator's most cores (sim/topology.h) */
		snprintf(err, errlen, "socket_pus: %llu PUs in all; the simulator takes at most %u",
			 pus, WL_MAX_THREADS);
		return -1;
	}
	for (unsigned n = c->nnodes; n < CALIB_MAX_NODES; n++)
		if (c->mem[n].measured) {
			snprintf(err, errlen, "mem: node %u, where numa_nodes is %u", n, c->nnodes);
			return -1;
		}
	for (unsigned a = 0; a < ns; a++)
		for (unsigned b = 0; b < ns; b++) {
			unsigned k = c->socket_class[a * ns + b];

			if ((a == b) != (k == 0) || k >= c->nclasses ||
			    k != c->socket_class[b * ns + a]) {
				snprintf(err, errlen,
					 "socket_class: sockets %u,%u have class %u (0 only within a socket, symmetric, below %u)",
					 a, b, k, c->nclasses);
				return -1;
			}
		}
	for (unsigned k = 1; k < c->nclasses; k++)
		if (!(c->class_link_ns[k] > c->class_link_ns[k - 1])) {
			snprintf(err, errlen, "class_link_ns must increase from class to class");
			return -1;
		}
	return 0;
}

/* A figure cannot hold more samples than the reps each figure took. */
static int check_one(const struct calib_cell *x, unsigned reps, const char *what, char *err,
		     size_t errlen)
{
	if (x->measured && reps && x->samples > reps) {
		snprintf(err, errlen, "%s: %u samples, more than reps %u", what, x->samples, reps);
		return -1;
	}
	return 0;
}

static int check_samples(const struct calib *c, char *err, size_t errlen)
{
	char what[64];

	for (int op = 0; op < CAL_NOPS; op++) {
		for (int s = 0; s < CAL_NSTATES; s++)
			for (unsigned k = 0; k < c->nclasses; k++) {
				snprintf(what, sizeof(what), "%s on %c at class %u", calib_op_names[op],
					 calib_state_names[s], k);
				if (check_one(&c->cell[op][s][k], c->reps, what, err, errlen))
					return -1;
			}
		snprintf(what, sizeof(what), "hit of %s", calib_op_names[op]);
		if (check_one(&c->hit[op], c->reps, what, err, errlen))
			return -1;
	}
	for (unsigned n = 0; n < c->nnodes; n++) {
		snprintf(what, sizeof(what), "mem of node %u", n);
		if (check_one(&c->mem[n], c->reps, what, err, errlen))
			return -1;
	}
	if (c->wake.measured && (check_one(&c->wake, c->reps, "wake", err, errlen) ||
				 check_one(&c->kick, c->reps, "kick", err, errlen)))
		return -1;
	for (unsigned i = 0; i < CALIB_WAKE_RUNGS; i++) {
		snprintf(what, sizeof(what), "wake after %u us", calib_wake_sleep_us[i]);
		if (c->wake_after[i].measured && check_one(&c->wake_after[i], c->reps, what, err, errlen))
			return -1;
	}
	return check_one(&c->pause, c->reps, "pause", err, errlen);
}

/* The single figures: what a platform written from them must be able to
 * hold (a second is no latency; the simulator refuses the file). */
static int check_figures(const struct calib *c, char *err, size_t errlen)
{
	if (c->reps < 1) {
		snprintf(err, errlen, "reps %u: every figure takes at least one", c->reps);
		return -1;
	}
	if (c->loadavg != -1 && !(c->loadavg >= 0 && c->loadavg < 1e6)) { /* -1: not given */
		snprintf(err, errlen, "loadavg %g: a load average is 0 or more", c->loadavg);
		return -1;
	}
	if (c->inval_measured && !(c->inval_per_sharer_ns >= 0 && c->inval_per_sharer_ns <= 1e9)) {
		snprintf(err, errlen, "inval_per_sharer_ns %g: a time from 0 to a second",
			 c->inval_per_sharer_ns);
		return -1;
	}
	for (unsigned k = 0; k < c->nclasses; k++)
		if (!(c->class_link_ns[k] >= 0 && c->class_link_ns[k] <= 1e9)) {
			snprintf(err, errlen, "class_link_ns %g (class %u): a time from 0 to a second",
				 c->class_link_ns[k], k);
			return -1;
		}
	return 0;
}

int calib_check(const struct calib *c, char *err, size_t errlen)
{
	if (check_structure(c, err, errlen) || check_figures(c, err, errlen))
		return -1;
	for (unsigned k = 0; k < c->nclasses; k++)
		for (int op = 0; op < CAL_NOPS; op++)
			for (int s = 0; s < CAL_NSTATES; s++)
				if (!c->cell[op][s][k].measured) {
					snprintf(err, errlen, "no figure for %s on %c at class %u",
						 calib_op_names[op], calib_state_names[s], k);
					return -1;
				}
	for (int op = 0; op < CAL_NOPS; op++)
		if (!c->hit[op].measured) {
			snprintf(err, errlen, "no hit figure for %s", calib_op_names[op]);
			return -1;
		}
	if (!c->pause.measured) {
		snprintf(err, errlen, "no pause figure");
		return -1;
	}
	if (c->wake.measured != c->kick.measured) {
		snprintf(err, errlen, "a %s figure without a %s one: they are measured together",
			 c->wake.measured ? "wake" : "kick", c->wake.measured ? "kick" : "wake");
		return -1;
	}
	for (unsigned i = 0; i < CALIB_WAKE_RUNGS; i++)
		if (c->wake_after[i].measured != (c->wake_after[0].measured && c->wake.measured)) {
			snprintf(err, errlen, "the wakes after a sleep: %s", c->wake.measured
				 ? "some of the ladder's sleeps, not all (10 to 500 us)"
				 : "without the wake after 1 ms");
			return -1;
		}
	return check_samples(c, err, errlen);
}

int calib_check_transfers(const struct calib *c, char *err, size_t errlen)
{
	double hit = c->hit[CAL_LOAD].median;

	for (unsigned k = 0; k < c->nclasses; k++)
		for (int s = CAL_M; s <= CAL_E; s++) { /* S has its note (calibrate.c) */
			double m = c->cell[CAL_LOAD][s][k].median;

			if (m < 2 * hit + 2) {
				snprintf(err, errlen, "load on %c at class %u took %.1f ns, about a hit "
					 "(%.1f ns): the line never left the requester's cache; run "
					 "again, and if it persists the other PU shares the requester's "
					 "core (an SMT sibling)", calib_state_names[s], k, m, hit);
				return -1;
			}
		}
	return 0;
}

/* Whether real (a resolved directory) is dir or lies under it, once dir
 * is resolved too. */
static bool real_under(const char *real, const char *dir)
{
	char r[PATH_MAX];
	size_t n;

	if (!dir || !realpath(dir, r))
		return false;
	n = strlen(r);
	return !strncmp(real, r, n) && (real[n] == '/' || !real[n]);
}

/* One of the directories the simulator finds machines in (core/topodirs.h):
 * real is one of them, or lies under one. */
static bool in_topology_dir(const char *real)
{
	char dirs[8][PATH_MAX];
	unsigned n = ll_topology_dirs(dirs, 8);

	for (unsigned i = 0; i < n; i++)
		if (real_under(real, dirs[i]))
			return true;
	return false;
}

/* A "topologies/" component as the path is written. */
static bool written_under_topologies(const char *path)
{
	for (const char *p = path; (p = strstr(p, "topologies/")); p++)
		if (p == path || p[-1] == '/')
			return true;
	return false;
}

int calib_check_out_path(const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (strlen(path) >= 10 && !strcasecmp(path + strlen(path) - 10, ".calib.csv")) {
		snprintf(err, errlen, "%s: --out names the platform XML; its calibration goes beside "
			 "it as NAME.calib.csv (give --out NAME.xml)", path);
		return -1;
	}
	if (written_under_topologies(path) || (realpath(dir, real) && in_topology_dir(real))) {
		snprintf(err, errlen,
			 "%s: a calibration never goes under topologies/ (write it under results/)",
			 path);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------- the classes */

struct pair {
	unsigned s, t;
	double ns;
};

static int pair_cmp(const void *a, const void *b)
{
	const struct pair *p = a, *q = b;

	if (p->ns != q->ns)
		return p->ns < q->ns ? -1 : 1;
	return p->s != q->s ? (p->s < q->s ? -1 : 1) : (p->t > q->t) - (p->t < q->t);
}

void calib_group_pairs(struct calib *c, const double *lat, unsigned rep[][2])
{
	unsigned ns = c->nsockets, np = 0, first = 0, k = 1;
	struct pair *pairs = calloc(ns * ns + 1, sizeof(*pairs));

	memset(c->socket_class, 0, sizeof(c->socket_class));
	c->nclasses = 1;
	if (!pairs)
		return;
	for (unsigned s = 0; s < ns; s++)
		for (unsigned t = s + 1; t < ns; t++)
			pairs[np++] = (struct pair){ s, t, lat[s * ns + t] };
	qsort(pairs, np, sizeof(*pairs), pair_cmp);
	for (unsigned i = 1; i <= np; i++) {
		if (i < np && (pairs[i].ns <= CALIB_CLASS_STEP * pairs[first].ns ||
			       k == CALIB_MAX_CLASSES - 1))
			continue;
		rep[k][0] = pairs[first + (i - 1 - first) / 2].s;
		rep[k][1] = pairs[first + (i - 1 - first) / 2].t;
		for (unsigned j = first; j < i; j++) {
			c->socket_class[pairs[j].s * ns + pairs[j].t] = (unsigned char)k;
			c->socket_class[pairs[j].t * ns + pairs[j].s] = (unsigned char)k;
		}
		c->nclasses = k + 1;
		first = i;
		k++;
	}
	free(pairs);
}

void calib_link_latencies(struct calib *c)
{
	double m0 = c->cell[CAL_LOAD][CAL_M][0].median;

	c->class_link_ns[0] = 0;
	for (unsigned k = 1; k < c->nclasses; k++) {
		double l = (c->cell[CAL_LOAD][CAL_M][k].median - m0) / 2;

		c->class_link_ns[k] = fmax(l, c->class_link_ns[k - 1] + 1.0);
	}
}

/* ------------------------------------------------------- the platform */

double calib_row_value(const struct calib *c, int topo_op, enum calib_state st, unsigned cls)
{
	if (topo_op == 0)
		return c->cell[CAL_LOAD][st][cls].median;
	if (topo_op == 1)
		return c->cell[CAL_STORE][st][cls].median;
	return (c->cell[CAL_CAS][st][cls].median + c->cell[CAL_FAI][st][cls].median +
		c->cell[CAL_SWAP][st][cls].median) / 3.0;
}

static double hit_value(const struct calib *c, int topo_op)
{
	if (topo_op < 2)
		return c->hit[topo_op].median;
	return (c->hit[CAL_CAS].median + c->hit[CAL_FAI].median + c->hit[CAL_SWAP].median) / 3.0;
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f)
				fputc(*s, f);
		}
	}
}

/* Text inside a comment: printable ASCII, and never "--". */
static void comment_text(FILE *f, const char *s)
{
	char prev = 0;

	for (; *s; s++) {
		char ch = (unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f ? *s : '?';

		if (ch == '-' && prev == '-')
			ch = '_';
		fputc(ch, f);
		prev = ch;
	}
}

static const char *protocol_of(const char *vendor)
{
	if (!strcmp(vendor, "GenuineIntel"))
		return "MESIF";
	if (!strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine"))
		return "MOESI";
	return "MESI";
}

static void spread_comment(FILE *f, const char *name, unsigned k, const struct calib_cell *x)
{
	char from[32];

	if (x->cpu_b >= 0)
		snprintf(from, sizeof(from), "cpu %d", x->cpu_b);
	else
		snprintf(from, sizeof(from), "memory");
	fprintf(f, "    <!-- %s class %u: cpu %d <- %s: median %.1f, p10 %.1f, p90 %.1f, MAD %.1f, %u of %u kept -->\n",
		name, k, x->cpu_a, from, x->median, x->p10, x->p90, x->mad,
		x->samples - x->trimmed, x->samples);
}

static void write_row(FILE *f, const struct calib *c, int topo_op, enum calib_state st)
{
	static const char *const rows[] = { "load", "store", "atomic" };
	char name[32];

	snprintf(name, sizeof(name), "lat.%s.%c", rows[topo_op], calib_state_names[st]);
	for (unsigned k = 0; k < c->nclasses; k++) {
		if (topo_op < 2) {
			spread_comment(f, name, k, &c->cell[topo_op][st][k]);
			continue;
		}
		fprintf(f, "    <!-- %s class %u: mean of cas %.1f, fai %.1f, swap %.1f -->\n", name, k,
			c->cell[CAL_CAS][st][k].median, c->cell[CAL_FAI][st][k].median,
			c->cell[CAL_SWAP][st][k].median);
	}
	fprintf(f, "    <prop id=\"%s\" value=\"", name);
	for (unsigned k = 0; k < c->nclasses; k++)
		fprintf(f, "%s%.2f", k ? " " : "", fmax(0.0, calib_row_value(c, topo_op, st, k)));
	fprintf(f, "\"/>\n");
}

/* The model's own part of a wake: the scheduler's path that runs a woken
 * thread (SIM_WAKE_PS, assumed).  The rest of a measured wake is written as
 * the exit from an idle state, which a sleeper's CPU enters as the model's
 * governor chooses (sim/idle.c), up to SIM_IDLE_MAX_US. */
#define CAL_SCHED_WAKE_NS (SIM_WAKE_PS / 1000.0)

static void write_wake_comment(FILE *f, const struct calib *c)
{
	fprintf(f, "    <!-- wake: a sleeper in futex_wait on cpu %d woken from cpu %d: after 1 ms of "
		   "sleep median %.1f, p10 %.1f, p90 %.1f ns (the futex_wake call: median %.1f ns)",
		c->wake.cpu_b, c->wake.cpu_a, c->wake.median, c->wake.p10, c->wake.p90,
		c->kick.median);
	if (c->wake_after[0].measured) {
		fprintf(f, "; medians after");
		for (unsigned i = 0; i < CALIB_WAKE_RUNGS; i++)
			fprintf(f, "%s %u us %.1f", i ? "," : "", calib_wake_sleep_us[i],
				c->wake_after[i].median);
	}
	fprintf(f, "; less the model's 2 us scheduler path (core/park_costs.h SIM_WAKE_PS, assumed), "
		   "the exit of an idle state -->\n");
}

/* The ladder's states: for the wake after each sleep, in order, an exit of
 * its median less the scheduler path (at least the one before: a longer
 * sleep never wakes faster in the model) and a target residency of that
 * sleep (at least the exit and the one before, as the simulator requires).
 * A state is kept only where its exit is 10% and 0.5 us above the last
 * kept one, so that noise between rungs makes none, and a plateau is one
 * state from its first sleep on.  Of 9 points at most 8 states are kept:
 * were all 9 to be, the 1 ms wake takes the eighth's place. */
struct wake_state {
	unsigned sleep_us;
	double exit_us, residency_us;
};

static unsigned ladder_states(const struct calib *c, struct wake_state *st)
{
	unsigned n = 0;
	double top_exit = 0, top_res = 0;

	for (unsigned i = 0; i <= CALIB_WAKE_RUNGS; i++) {
		bool last = i == CALIB_WAKE_RUNGS;
		const struct calib_cell *w = last ? &c->wake : &c->wake_after[i];
		unsigned sleep = last ? 1000 : calib_wake_sleep_us[i];
		double exit_us = fmax(top_exit, (w->median - CAL_SCHED_WAKE_NS) / 1000.0);
		double res = fmax(fmax((double)sleep, exit_us), top_res);

		if (exit_us < 0.01)
			continue; /* wakes within the scheduler path: such sleeps poll */
		if (n && exit_us < 1.1 * top_exit + 0.5)
			continue;
		if (n == 8)
			n--; /* the 1 ms wake takes the last place */
		st[n++] = (struct wake_state){ sleep, exit_us, res };
		top_exit = exit_us;
		top_res = res;
	}
	return n;
}

static void write_wake(FILE *f, const struct calib *c)
{
	double exit_us = (c->wake.median - CAL_SCHED_WAKE_NS) / 1000.0;
	struct wake_state st[CALIB_WAKE_RUNGS + 1];
	unsigned n;

	if (!c->wake.measured) {
		fprintf(f, "    <!-- idle.states: no wake measured (one PU, or an older calibration): "
			   "a sleeper's CPU polls -->\n");
		return;
	}
	write_wake_comment(f, c);
	if (exit_us < 0.01) {
		fprintf(f, "    <!-- no more than the scheduler path: no idle state -->\n");
		return;
	}
	if (exit_us > SIM_IDLE_MAX_US) {
		fprintf(f, "    <!-- more than the %.0f us an idle state's exit may take "
			   "(topologies/README.md): no idle state; calibrate again on a quieter "
			   "machine -->\n", SIM_IDLE_MAX_US);
		return;
	}
	if (!c->wake_after[0].measured) {
		fprintf(f, "    <prop id=\"idle.states\" value=\"wake %.2f %.2f\"/>\n", exit_us, exit_us);
		return;
	}
	/* a state a sleep of the ladder: the governor puts a sleeper's CPU in
	 * the deepest one whose residency its predicted sleep reaches */
	n = ladder_states(c, st);
	fprintf(f, "    <!-- a state for each sleep of the ladder (10 us to 1 ms) whose wake is 10%% "
		   "and 0.5 us slower than the last state's: its exit the wake less 2 us, its "
		   "residency the sleep, or the exit where that is longer -->\n");
	fprintf(f, "    <prop id=\"idle.states\" value=\"");
	for (unsigned k = 0; k < n; k++)
		fprintf(f, "%sw%u %.2f %.2f", k ? ", " : "", st[k].sleep_us, st[k].exit_us,
			st[k].residency_us);
	fprintf(f, "\"/>\n");
}

/* park.kick: what waking a sleeper costs the waker, the futex_wake call's
 * median (the simulator charges it to ll_unpark's caller, sim/blocking.c);
 * without it the simulator's assumed SIM_KICK_PS stands. */
static void write_kick(FILE *f, const struct calib *c)
{
	if (!c->kick.measured) {
		fprintf(f, "    <!-- park.kick: no kick measured (one PU, or an older calibration): "
			   "the simulator's assumed %.1f us (core/park_costs.h) -->\n",
			SIM_KICK_PS / 1e6);
		return;
	}
	fprintf(f, "    <!-- park.kick: the futex_wake call that woke the sleeper of the wake above, "
		   "median %.1f, p10 %.1f, p90 %.1f ns -->\n", c->kick.median, c->kick.p10, c->kick.p90);
	fprintf(f, "    <prop id=\"park.kick\" value=\"%.2f\"/>\n", fmax(0.0, c->kick.median));
}

/* latency.spread: how far a miss strays from its median on this machine.
 * For every latency measured, half the span of the middle 80% of its
 * samples, (p90 - p10) / 2, against its median; the file states the median
 * of those, as a whole percentage (sim/coh_protocol.c draws each miss's
 * latency from 1 -+ that share of the table's).  Only on a clock whose
 * step is under CALIB_FINE_STEP_NS: a coarser one spreads the samples by
 * itself (docs/mechanisms.md, "Latency spread"). */
static void write_spread(FILE *f, const struct calib *c)
{
	double r[CAL_NOPS * CAL_NSTATES * CALIB_MAX_CLASSES], mid;
	unsigned n = 0;

	if (!(c->tsc_step_ns > 0 && c->tsc_step_ns < CALIB_FINE_STEP_NS)) {
		fprintf(f, "    <!-- latency.spread: not written: %s -->\n", c->tsc_step_ns > 0
			? "the clock advanced in steps as large as a latency's spread"
			: "the calibration does not record its clock's step");
		return;
	}
	for (int op = 0; op < CAL_NOPS; op++)
		for (int st = 0; st < CAL_NSTATES; st++)
			for (unsigned k = 0; k < c->nclasses; k++) {
				const struct calib_cell *e = &c->cell[op][st][k];

				if (e->measured && e->median > 0 && e->p90 >= e->p10)
					r[n++] = (e->p90 - e->p10) / (2 * e->median);
			}
	if (!n)
		return;
	gsl_sort(r, 1, n); /* as cal_summarize takes its medians */
	mid = gsl_stats_median_from_sorted_data(r, 1, n);
	fprintf(f, "    <!-- latency.spread: (p90 - p10) / 2 of each latency's samples against its "
		   "median, over the %u measured (the clock's step %.2f ns): median %.1f%%, from "
		   "%.1f%% to %.1f%% -->\n", n, c->tsc_step_ns, 100 * mid, 100 * r[0], 100 * r[n - 1]);
	fprintf(f, "    <prop id=\"latency.spread\" value=\"%.0f\"/>\n",
		fmin(100 * mid, SIM_SPREAD_MAX));
}

static void write_costs(FILE *f, const struct calib *c)
{
	static const char *const hits[] = { "hit.load", "hit.store", "hit.atomic" };

	for (int op = 0; op < 3; op++)
		for (int st = 0; st < CAL_NSTATES; st++)
			write_row(f, c, op, (enum calib_state)st);
	for (int op = 0; op < 3; op++)
		fprintf(f, "    <prop id=\"%s\" value=\"%.2f\"/>\n", hits[op], fmax(0.0, hit_value(c, op)));
	fprintf(f, "    <prop id=\"pause\" value=\"%.2f\"/>\n", fmax(0.0, c->pause.median));
	write_spread(f, c);
	write_wake(f, c);
	write_kick(f, c);
	if (c->inval_measured)
		fprintf(f, "    <!-- inval_per_sharer: slope of a store on S against the number of sharers -->\n");
	else
		fprintf(f, "    <!-- inval_per_sharer: not measurable here (needs three PUs in a socket): 0 -->\n");
	fprintf(f, "    <prop id=\"inval_per_sharer\" value=\"%.2f\"/>\n",
		c->inval_measured ? fmax(0.0, c->inval_per_sharer_ns) : 0.0);
	fprintf(f, "    <prop id=\"msg.data_bytes\" value=\"72\"/>\n");
	fprintf(f, "    <prop id=\"msg.ctrl_bytes\" value=\"8\"/>\n");
	/* what the calibration did not measure: every run on the file says so */
	fprintf(f, "    <prop id=\"assumed\" value=\"link.bandwidth msg.*%s\"/>\n",
		c->inval_measured ? "" : " inval_per_sharer");
}

static void write_heading(FILE *f, const struct calib *c, const char *zone_id)
{
	fprintf(f, "<?xml version='1.0'?>\n"
		   "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<!--\n  ");
	comment_text(f, zone_id);
	fprintf(f, ": this machine as `locklab-native calibrate` measured it");
	fprintf(f, "\n  (host ");
	comment_text(f, c->host);
	fprintf(f, ", ");
	comment_text(f, c->date);
	fprintf(f, ", %u samples a figure, TSC %.3f GHz", c->reps, c->tsc_ghz);
	if (c->loadavg >= 0)
		fprintf(f, ", load average %.2f", c->loadavg);
	fprintf(f, ").\n"
		   "  Every lat.* value is the median of its samples after outliers beyond\n"
		   "  3 x IQR were dropped; the spread of each is in the comment above it and\n"
		   "  in the .calib.csv file written beside this one.  One socket zone per\n"
		   "  package, one host per PU.  Not measured: socket link bandwidth\n"
		   "  (20.8 GBps per direction assumed) and message sizes (the defaults).\n"
		   "  Regenerate with `locklab-native calibrate`; docs/validate.md says how.\n-->\n");
}

static void write_sockets(FILE *f, const struct calib *c)
{
	unsigned ns = c->nsockets;

	fprintf(f, "\n    <!-- Sockets: one cluster each; hosts are PUs. -->\n");
	for (unsigned s = 0; s < ns; s++)
		fprintf(f, "    <cluster id=\"socket%u\" prefix=\"s%uc\" suffix=\"\" radical=\"0-%u\" "
			   "speed=\"1Gf\" bw=\"100GBps\" lat=\"0ns\" router_id=\"socket%u_router\"/>\n",
			s, s, c->socket_pus[s] - 1, s);
	if (ns < 2)
		return;
	fprintf(f, "\n    <!-- Socket links, one per pair: latency by distance class, one way. -->\n");
	for (unsigned a = 0; a < ns; a++)
		for (unsigned b = a + 1; b < ns; b++)
			fprintf(f, "    <link id=\"link%u_%u\" bandwidth=\"20.8GBps\" latency=\"%.3fns\"/>\n",
				a, b, c->class_link_ns[c->socket_class[a * ns + b]]);
	fprintf(f, "\n");
	for (unsigned a = 0; a < ns; a++)
		for (unsigned b = a + 1; b < ns; b++)
			fprintf(f, "    <zoneRoute src=\"socket%u\" dst=\"socket%u\" gw_src=\"socket%u_router\" "
				   "gw_dst=\"socket%u_router\"><link_ctn id=\"link%u_%u\"/></zoneRoute>\n",
				a, b, a, b, a, b);
}

void calib_write_topology(FILE *f, const struct calib *c, const char *zone_id)
{
	write_heading(f, c, zone_id);
	fprintf(f, "<platform version=\"4.1\">\n  <zone id=\"");
	xml_text(f, zone_id);
	fprintf(f, "\" routing=\"Full\">\n    <prop id=\"description\" value=\"");
	xml_text(f, c->host);
	fprintf(f, " calibrated: ");
	xml_text(f, c->cpu_model[0] ? c->cpu_model : "unknown CPU");
	fprintf(f, "\"/>\n    <prop id=\"protocol\" value=\"%s\"/>\n", protocol_of(c->vendor));
	fprintf(f, "    <prop id=\"unit\" value=\"ns\"/>\n");
	fprintf(f, "    <!-- one value per distance class: same socket");
	for (unsigned k = 1; k < c->nclasses; k++)
		fprintf(f, ", class %u (%.1f ns link)", k, c->class_link_ns[k]);
	fprintf(f, " -->\n");
	write_costs(f, c);
	write_sockets(f, c);
	fprintf(f, "  </zone>\n</platform>\n");
}
