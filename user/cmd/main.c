// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpfgraph: trace the call graph under kernel functions with fentry/fexit
 * programs and print it as ftrace's function_graph does.
 * main() is the list of steps: parse, then either a subcommand or the
 * tracing steps of tracer.c (plan, open, attach, run, report, detach).
 */
#include <errno.h>
#include <stdio.h>

#include "cli.h"
#include "cmd.h"
#include "diff.h"
#include "preflight.h"
#include "tracer.h"

/* "bpfgraph record|report|diff ...": the rest of argv is theirs. */
static int run_subcommand(const struct bg_opts *o)
{
	switch (o->cmd) {
	case BG_CMD_RECORD:
		return cmd_record(o->sub_argc, o->sub_argv);
	case BG_CMD_REPORT:
		return cmd_report(o->sub_argc, o->sub_argv);
	case BG_CMD_DIFF:
		return cmd_diff(o->sub_argc, o->sub_argv);
	default:
		fprintf(stderr, "bpfgraph: '%s' is not implemented yet\n", o->sub_argv[0]);
		return BG_EXIT_FAILURE;
	}
}

int main(int argc, char **argv)
{
	struct tracer_sinks ts = { .print = true };
	struct bg_opts o;
	int err;

	err = cli__parse(&o, argc, argv, stderr);
	if (err)
		return cli__exit_status(err);
	tracer__set_verbosity(o.verbosity);
	if (o.cmd != BG_CMD_TRACE)
		err = run_subcommand(&o);
	else if (preflight__cpus(&o))
		err = BG_EXIT_USAGE;
	else
		err = tracer__exit_status(tracer__run(&o, &ts));
	cli__free(&o);
	return err;
}
