/*
 * core/table_legend.c - the legend under the terminal table (core/table.c):
 * what each column means, and a sentence more for each kind of row the
 * table holds (rwlocks, refcounts, --vm, --ops, a paravirtual lock alone,
 * starvation under a fixed --ncs).
 */
#include <stdio.h>
#include <string.h>

#include <locklab/backend.h>
#include <locklab/workload.h>

#include "table_legend.h"

/* text on f in lines of at most LEGEND_W columns, broken at spaces. */
#define LEGEND_W 104
static void print_wrapped(FILE *f, const char *text)
{
	while (*text) {
		size_t n = strlen(text), cut = n;

		if (n > LEGEND_W) {
			cut = LEGEND_W;
			while (cut > 0 && text[cut] != ' ')
				cut--;
			if (!cut)
				cut = LEGEND_W;
		}
		fprintf(f, "%.*s\n", (int)cut, text);
		text += cut;
		while (*text == ' ')
			text++;
	}
}


/* The legend's sentences, each appended where it applies. */
static const char *const legend_runs = "+-: standard error of the mean (sigma/sqrt(runs)); "
				       "variance in the heading's unit squared. ";
static const char *const legend_sim_runs = "In the simulator the runs of a configuration "
	"differ only by their seeds: each thread's start skew of up to %g us (*assumed*) and what "
	"else seeded the settings line names (a latency spread, noise, a placement, the lock's "
	"home): +- is the spread of those, not a machine's. ";
static const char *const legend_native_runs = "Natively the runs of one command follow each "
	"other: +- leaves out what changes between commands (other load, the clock's speed); "
	"run the command again to see it. ";
static const char *const legend_censored = " starved: threads that never acquired the lock, "
	"the most in one run. wait p99 is of all the run's waits, so the threads that acquire most "
	"weigh most: a thread starved all run is one wait among them. A wait the run's end cut "
	"short counts in wait p99 at its length so far; >= marks a p99 that is a lower bound (in a "
	"run, half of the waits at or above it or more were cut short). Waits above 1024 ns are "
	"kept to 1/128 of their size: a percentile reads up to 0.8% low.";
static const char *const legend_idle = " idle: wake-ups of sleeping threads from an idle state "
	"(C-state; settings: line), a run's mean over the runs, and their mean exit latency.";
static const char *const legend_rwlock = " reads, writes (rwlocks): each side's rate; its wait "
	"p99, the mean of the runs that timed a wait of that side (- where none did; >= as "
	"above); its longest wait, of any run (>= where that wait was cut short by its run's end: "
	"a lower bound); overlap at least: the most readers seen inside at "
	"once in any run, from each thread's first reads.";
static const char *const legend_vm_sched = " xN (--vm): the vCPUs a pCPU holds as --overcommit "
	"asks (the vm line's pcpus gives the pCPUs they had). vm (--vm): a run's mean over the runs: vCPUs "
	"descheduled while they held the lock and while they waited for it, and the time they then "
	"spent off their pCPUs, summed over every vCPU and divided by the acquisitions (so it can "
	"exceed an acquisition's own time); pause-loop exits (and those whose yield gave the pCPU "
	"away), halts and kicks; wake: the mean time from a kick until the kicked vCPU ran, over "
	"every such wake-up of the runs.";
static const char *const legend_vm_native = " xN (--vm, natively): the vCPU threads a cpu holds "
	"as --overcommit asks. vm (--vm, natively): a run's mean over the runs: "
	"the threads' involuntary context switches, parks that slept in the futex (halts) and "
	"unparks that woke a sleeper (kicks); wake: the mean time from such an unpark until the "
	"sleeper ran, over every such unpark of the runs.";
static const char *const legend_fixed_ncs = " Starved under a fixed --ncs: every thread waits "
	"the same time between acquisitions (and, without a latency spread, every miss takes its "
	"table latency exactly), so the simulated threads can fall into one race that the same "
	"threads lose at every round; --ncs exp:N draws that time, and the lockstep probe's '!' line "
	"gives one more run whose misses vary in length: both tell whether the starvation outlives "
	"the jitter of a real machine.";
static const char *const legend_pv_alone = " pv-*: paravirtual locks outside a virtual machine "
	"(no --vm): their waiters halt after their spin (natively a futex wait) and are kicked as in "
	"a guest, so the rows show what the paravirtual code costs where no vCPU is preempted; on "
	"bare metal Linux patches these locks back to the native ones (docs/vm.md).";
static const char *const legend_ops = " --ops: every thread makes the same number of "
	"acquisitions, so jain is 1 and starved 0 by construction: an unfair lock shows in the waits "
	"and in how long the run took.";
static const char *const legend_refcount = " Refcounts (lockref, spinlock-ref): the throughput counts "
	"get and put pairs, wait p99 is the get's, starved counts threads that completed no get, "
	"and local is - (a count is not handed from holder to holder).";

static const char *const legend_counts = " counts: the lock's own counts of its paths "
	"(its source says what each is), each over the run's acquisitions (a get and put pair for "
	"a refcount), the mean over the runs; counted until the run's end, as the acquisitions are.";

static void legend_add(char *text, size_t len, bool when, const char *sentence)
{
	size_t n = strlen(text);

	if (when)
		snprintf(text + n, len - n, "%s", sentence);
}

void table_legend(FILE *f, bool oversubscribed, bool many_runs, bool idle,
			 struct legend_kinds k)
{
	char text[4096] = "";
	size_t n;

	legend_add(text, sizeof(text), many_runs, legend_runs);
	legend_add(text, sizeof(text), many_runs && !strcmp(backend_name, "native"),
		   legend_native_runs);
	n = strlen(text);
	if (many_runs && strcmp(backend_name, "native"))
		snprintf(text + n, sizeof(text) - n, legend_sim_runs, WL_START_SKEW_NS / 1000.0);
	n = strlen(text);
	snprintf(text + n, sizeof(text) - n, "jain, local (handoffs within one socket: 100%% "
		 "whenever every thread sits on one socket%s), wait p99 (a wait: from the lock call "
		 "to its return): means over the runs that timed a wait (- where none did);",
		 strcmp(backend_name, "native") ? "; explain gives a random next holder's" : "");
	legend_add(text, sizeof(text), true, legend_censored);
	legend_add(text, sizeof(text), idle, legend_idle);
	legend_add(text, sizeof(text), k.rwlock, legend_rwlock);
	legend_add(text, sizeof(text), k.refcount, legend_refcount);
	legend_add(text, sizeof(text), k.counts, legend_counts);
	legend_add(text, sizeof(text), k.vm && k.vm_sched, legend_vm_sched);
	legend_add(text, sizeof(text), k.vm && !k.vm_sched, legend_vm_native);
	legend_add(text, sizeof(text), k.fixed_ncs_starved, legend_fixed_ncs);
	legend_add(text, sizeof(text), k.pv_alone, legend_pv_alone);
	legend_add(text, sizeof(text), k.ops, legend_ops);
	fputc('\n', f);
	print_wrapped(f, text);
	if (oversubscribed)
		fprintf(f, "*: more threads than CPUs (oversubscribed): threads also waited for a CPU.\n");
}

