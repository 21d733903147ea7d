/*
 * core/explain_cli.c - the command line of `locklab-sim explain`: the
 * options of `run`, narrowed to what explain follows (one mutex, one
 * thread count of 2 or more, one lock, no virtual machine, a table or CSV).
 */
#include <stdio.h>
#include <string.h>

#include <locklab/backend.h>
#include <locklab/result.h>

#include "cli.h"

static int check_explain(const struct cli_opts *o, char *err, size_t len)
{
	const struct wl_config *c = &o->cfg;

	if (c->nalgos != 1)
		snprintf(err, len, "give one lock (--lock NAME)");
	else if (c->algos[0]->kind != LOCK_MUTEX)
		snprintf(err, len, "--lock %s is a %s; explain follows the handoffs of a mutex",
			 c->algos[0]->name, lock_kind_name(c->algos[0]->kind));
	else if (c->nthreads != 1 || c->threads[0] < 2)
		snprintf(err, len, "--threads: give one thread count of 2 or more");
	else if (c->locks != 1)
		snprintf(err, len, "--locks %u: explain follows one lock (--locks 1)", c->locks);
	else if (c->vm_vcpus)
		snprintf(err, len, "--vm: explain follows a machine without a hypervisor");
	else if (o->format == FMT_JSON)
		snprintf(err, len, "--format json: explain writes table or csv");
	else if (o->csv || o->json || o->threads_csv)
		snprintf(err, len, "--csv/--json/--threads-csv are not explain's outputs "
				   "(--format csv --out FILE)");
	else if (c->time_every > 1)
		snprintf(err, len, "--time-every %u: explain times no waits; it follows every "
				   "handoff", c->time_every);
	else if (o->runner_opt)
		snprintf(err, len, "%s: a sweep's option; explain runs its runs one after another "
				   "in this process", o->runner_opt);
	else
		return 0;
	return -1;
}

int explain_command(const struct ll_command *cmd, int argc, char **argv,
		    int (*explain)(const struct explain_opts *o))
{
	static struct cli_opts o;       /* large: keep them off the stack */
	static struct explain_opts x;
	char err[512];

	if (cli_parse_cmd(cmd, argc, argv, &o, err, sizeof(err)) ||
	    check_explain(&o, err, sizeof(err)) || backend_check(&o.cfg, err, sizeof(err)) ||
	    (o.out && outfile_check("--out", o.out, err, sizeof(err)))) /* after the topology's load */
		return ll_bad(cmd->name, "%s", err);
	backend_warn(&o.cfg);
	x.cfg = o.cfg;
	x.csv = o.format == FMT_CSV;
	x.out = o.out;
	return explain(&x);
}
