// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpfgraph record [tracing options] -o FILE [--tee] [-- COMMAND]: the
 * tracing steps of a live trace, with the records going to a record file
 * (and, with --tee, to stdout as the live trace would print them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "preflight.h"
#include "tracer.h"

/* "bpfgraph record ..." as one string, for the file's header. */
static char *join_cmdline(int argc, char **argv)
{
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);

	if (!m)
		return NULL;
	fputs("bpfgraph", m);
	for (int i = 0; i < argc; i++)
		fprintf(m, " %s", argv[i]);
	if (fclose(m)) {
		free(s);
		return NULL;
	}
	return s;
}

int cmd_record(int argc, char **argv)
{
	struct tracer_sinks ts = {};
	struct bg_opts o;
	char *cmdline;
	int err;

	err = cli__parse_cmd(&o, BG_CMD_RECORD, argc, argv, stderr);
	if (err)
		return cli__exit_status(err);
	tracer__set_verbosity(o.verbosity);
	if (preflight__cpus(&o)) {
		cli__free(&o);
		return BG_EXIT_USAGE;
	}
	cmdline = join_cmdline(argc, argv);
	ts.print = o.tee;
	ts.record = o.output;
	ts.cmdline = cmdline;
	err = tracer__run(&o, &ts);
	free(cmdline);
	cli__free(&o);
	return tracer__exit_status(err);
}
