// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Options of perf ftrace (perf-ftrace(1)) and trace-cmd record
 * (trace-cmd-record(1)) that users bring along. One that means what one
 * of bpfgraph's means is taken as it (an alias); one whose meaning or
 * argument differs is answered with bpfgraph's spelling; one bpfgraph
 * has nothing for is answered with that. The answers are usage errors
 * (exit 2). Short letters both tools use for different things (-g) are
 * answered with both. Letters bpfgraph uses itself (-p, -n, -t, -D, -C,
 * -a, -b) keep bpfgraph's meaning and are not listed.
 */
#include <stdio.h>
#include <string.h>

#include "cli_int.h"

/* Keys of the long-only ones: above cli.c's K_*. */
enum {
	K_GRAPH_FUNCS = 512,
	K_NOGRAPH_FUNCS,
	K_TID,
	K_GRAPH_DEPTH,
	K_MAX_GRAPH_DEPTH,
	K_TRACE_FUNCS,
	K_NOTRACE_FUNCS,
	K_FUNCS,
	K_TRACER,
	K_ALL_CPUS,
	K_FUNC_OPTS,
	K_EVENT,
	K_DELAY,
};

const struct cli_other cli_others[] = {
	/* aliases */
	{ "graph-funcs", K_GRAPH_FUNCS, "GLOB", 'G', "perf ftrace" },
	{ "nograph-funcs", K_NOGRAPH_FUNCS, "GLOB", 'x', "perf ftrace" },
	{ "tid", K_TID, "TID", 'p', "perf ftrace" },
	{ NULL, 'P', "PID", 'p', "trace-cmd record" },
	{ "graph-depth", K_GRAPH_DEPTH, "N", 'D', "older perf ftrace" },
	{ "max-graph-depth", K_MAX_GRAPH_DEPTH, "N", 'D', "trace-cmd record" },
	{ NULL, 'c', NULL, K_INHERIT, "trace-cmd record" },
	/* answered with bpfgraph's spelling */
	{ NULL, 'g', NULL, 0, NULL,
	  "-g is trace-cmd's spelling of bpfgraph's -G GLOB (graph a function) and perf "
	  "ftrace's of bpfgraph's -x GLOB (--nograph-funcs: hide a function with what it "
	  "calls)" },
	{ "trace-funcs", 'T', NULL, 0, NULL,
	  "-T/--trace-funcs is perf ftrace's function tracer filter; bpfgraph graphs: -G GLOB "
	  "traces GLOB and what it calls (--callee-depth=0: GLOB only)" },
	{ NULL, 'l', NULL, 0, NULL,
	  "-l is trace-cmd's function tracer filter; bpfgraph graphs: -G GLOB traces GLOB and "
	  "what it calls (--callee-depth=0: GLOB only)" },
	{ "notrace-funcs", 'N', NULL, 0, NULL,
	  "-N/--notrace-funcs is perf ftrace's set_ftrace_notrace, which still traces what the "
	  "function calls; bpfgraph's -x GLOB hides a function with what it calls "
	  "(set_graph_notrace); hiding it alone is not supported" },
	{ NULL, 'm', NULL, 0, NULL,
	  "-m is perf ftrace's and trace-cmd's per-CPU buffer size; bpfgraph's is -b SIZE, "
	  "one ring buffer for all CPUs" },
	{ NULL, 'M', NULL, 0, NULL,
	  "-M is trace-cmd's hex CPU mask; bpfgraph's is -C LIST, like -C 0-3,7" },
	{ "funcs", 'F', NULL, 0, NULL,
	  "-F/--funcs is perf ftrace's list of functions (bpfgraph's: --dry-run -G GLOB) and "
	  "trace-cmd's trace-only-COMMAND (bpfgraph's default with -- COMMAND)" },
	{ "tracer", K_TRACER, NULL, 0, NULL,
	  "--tracer: bpfgraph is a function_graph tracer, there is none other to choose" },
	{ "all-cpus", K_ALL_CPUS, NULL, 0, NULL,
	  "--all-cpus: bpfgraph traces the whole machine when given neither -p nor a COMMAND; "
	  "with a COMMAND, only it" },
	{ "func-opts", K_FUNC_OPTS, NULL, 0, NULL,
	  "--func-opts: bpfgraph has no function tracer; its options are --graph-opts" },
	/* not supported */
	{ "event", 'e', NULL, 0, NULL,
	  "-e/--event: bpfgraph traces functions; trace events are not supported" },
	{ "delay", K_DELAY, NULL, 0, NULL,
	  "--delay (perf ftrace's -D): a delayed start is not supported; bpfgraph's -D is "
	  "--max-depth" },
};

const size_t cli_nr_others = sizeof(cli_others) / sizeof(cli_others[0]);

const struct cli_other *cli_other_by_key(int key)
{
	for (size_t i = 0; i < cli_nr_others; i++)
		if (cli_others[i].key == key)
			return &cli_others[i];
	return NULL;
}

/* "--graph-funcs" or "-P": how the user spells it. */
static void other_name(const struct cli_other *x, char *buf, size_t len)
{
	if (x->name)
		snprintf(buf, len, "--%s", x->name);
	else
		snprintf(buf, len, "-%c", x->key);
}

/* "  --tid=TID  -p (perf ftrace)", "  -c  --inherit (trace-cmd record)" */
static void print_alias(FILE *f, const struct cli_other *x)
{
	const struct cli_opt *d = cli_opt_by_key(x->alias);
	char name[32];
	int n;

	other_name(x, name, sizeof(name));
	n = fprintf(f, "  %s%s%s", name, !x->arg ? "" : x->name ? "=" : " ", x->arg ?: "");
	n = n < 26 ? 26 - n : 1;
	if (x->alias < 256 || !d)
		fprintf(f, "%*s-%c (%s)\n", n, "", x->alias, x->tool);
	else
		fprintf(f, "%*s--%s (%s)\n", n, "", d->name, x->tool);
}

void cli_others_usage(FILE *f)
{
	char name[32];
	int n;

	fputs("Spellings of perf ftrace and trace-cmd record:\n taken as bpfgraph's options\n", f);
	for (size_t i = 0; i < cli_nr_others; i++) {
		const struct cli_other *x = &cli_others[i];

		if (x->alias)
			print_alias(f, x);
	}
	fputs(" answered with bpfgraph's spelling, or that it has none (exit 2)\n ", f);
	n = 1;
	for (size_t i = 0; i < cli_nr_others; i++) {
		const struct cli_other *x = &cli_others[i];

		if (x->alias)
			continue;
		if (x->name && x->key < 256)
			snprintf(name, sizeof(name), "-%c/--%s", x->key, x->name);
		else
			other_name(x, name, sizeof(name));
		if (n + (int)strlen(name) + 2 > 72) {
			fputs("\n ", f);
			n = 1;
		}
		n += fprintf(f, " %s%s", name, i + 1 < cli_nr_others ? "," : "");
	}
	fputc('\n', f);
}
