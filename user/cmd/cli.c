// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Command-line parser. One table (cli_opts[]) drives getopt_long(), the
 * dispatch of each option to its setter and the --help text, so that the
 * parser and the help cannot disagree; test_docs.c holds the man page and
 * the completion script to the help text. This file holds the tables and
 * the parse driver; the setters are in cli_values.c, the help printer in
 * cli_help.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli_int.h"

/* kernel/pid.h: PID_MAX_LIMIT is 4M on 64-bit, pids stay below it */
#define BG_PID_MAX 4194303ULL

/* Keys of long-only options: above any character getopt returns. */
enum {
	K_CALLEE_DEPTH = 256,
	K_MAX_FUNCS,
	K_GRAPH_OPTS,
	K_COMPAT,
	K_NO_HEADER,
	K_DRY_RUN,
	K_PLAN_FILE,
	K_FORMAT,
	K_FOLDED_WEIGHT,
	K_TEE,
	K_NO_PAUSE,
	K_NO_CALLSITES,
	K_LOCKS,
	K_NO_OPT_HOLD,
	K_DISCOVER_IRQS,
	K_NO_DISCOVERY,
	K_KPROBES,
	K_HOOK,
	K_WIDE,
	K_WIDE_MEM,
	K_FIRST_CALLS,
	K_WIDE_WAIT,
	K_WAIT_DETACH,
	K_ARGS_DETAIL,
	K_STRICT,
	K_HIST,
};

#define OFF(field) offsetof(struct bg_opts, field)

const struct cli_opt cli_opts[] = {
	{ "graph-function", 'G', "GLOB", G_SELECT, cli_set_glob, OFF(graph), 0, 0,
	  "trace what runs inside GLOB (repeatable)" },
	{ "callee-depth", K_CALLEE_DEPTH, "N", G_SELECT, cli_set_u32,
	  OFF(callee_depth), 0, BG_MAX_CALLEE_DEPTH,
	  "find callees N calls deep (default 3,\n0 = -G functions only)" },
	{ "allow", 'a', "GLOB", G_SELECT, cli_set_glob, OFF(allow), 0, 0,
	  "trace these functions too (repeatable)" },
	{ "notrace", 'x', "GLOB", G_SELECT, cli_set_glob, OFF(notrace), 0, 0,
	  "never trace these nor what they call\n(repeatable)", CM_TRACING | CM_REPORT },
	{ "no-pause", K_NO_PAUSE, NULL, G_SELECT, cli_set_flag, OFF(no_pause), 0, 0,
	  "let COMMAND run on while functions found\nwhile tracing are attached (default:\n"
	  "stop it meanwhile, so its next calls\nare complete)" },
	{ "no-callsite-probes", K_NO_CALLSITES, NULL, G_SELECT, cli_set_flag,
	  OFF(no_callsites), 0, 0,
	  "do not trace __rcu_read_lock/unlock\n(no trampoline may hook them) by kprobes where\n"
	  "traced functions call them" },
	{ "locks", K_LOCKS, "WHERE", G_SELECT, cli_set_locks, 0, 0, 0,
	  "how spin locks and mutex_unlock are traced:\nhooked like other callees, or at their call\n"
	  "sites in traced functions (the locks of\nother tasks then run no hook; lock calls\n"
	  "from functions without an fentry site are\nnot seen); auto (default): callsites with\n"
	  "-p or system-wide, hooked for a COMMAND" },
	{ "no-optimizer-hold", K_NO_OPT_HOLD, NULL, G_SELECT, cli_set_flag,
	  OFF(no_opt_hold), 0, 0,
	  "leave debug.kprobes-optimization alone\n(default: 0 while call-site kprobes are\n"
	  "placed in a row, then back to 1: placed\nseveral times faster)" },
	{ "discover-irqs", K_DISCOVER_IRQS, NULL, G_SELECT, cli_set_flag,
	  OFF(discover_irqs), 0, 0,
	  "follow interrupt work too when finding\nfunctions while tracing (default: show\n"
	  "it as far as traced, attach nothing\nfor it)" },
	{ "no-discovery", K_NO_DISCOVERY, NULL, G_SELECT, cli_set_flag, OFF(no_discovery),
	  0, 0,
	  "trace the planned functions only: no\nprobes on indirect calls, nothing\n"
	  "attached while tracing (cheapest for\nthe rest of the machine; calls through\n"
	  "pointers are missing)" },
	{ "hook", K_HOOK, "HOW", G_SELECT, cli_set_hook, 0, 0, 0,
	  "how functions are hooked: auto (default:\nkprobe-session where the kernel has\n"
	  "it, else kprobe-multi, else fentry),\nkprobe-session (one kprobe.session link\n"
	  "for all; returns hooked only for calls\ninside a graph: 6.10+), kprobe-multi\n"
	  "(a kprobe.multi and kretprobe.multi\nlink pair for all), fentry-multi (one\n"
	  "fentry.multi link for all, a trampoline\nper function: kernels with\n"
	  "tracing_multi), fentry (a trampoline\nand a link per function) or kprobe (a\n"
	  "kprobe and a kretprobe per function)" },
	{ "kprobes", K_KPROBES, NULL, G_SELECT, cli_set_kprobes, 0, 0, 0,
	  "the same as --hook=kprobe" },
	{ "wide", K_WIDE, "WHEN", G_SELECT, cli_set_wide, 0, 0, 0,
	  "how the first traced call is made\ncomplete: first (default: the kernel's\n"
	  "function_graph records a COMMAND's\nfirst traced call where tracefs is free,\n"
	  "else every traceable function is hooked\nby one kprobe.session link until it\n"
	  "returns, on kernels that have it;\nwithout them function_graph for -p and\n"
	  "system-wide too, and where that link\nwould be bounded by --wide-mem), session\n"
	  "(that link, even for a COMMAND),\n"
	  "always (that link, the whole trace:\nevery call complete, the machine slower),\n"
	  "ftrace (function_graph only, for -p and\nsystem-wide too), or off" },
	{ "wide-mem", K_WIDE_MEM, "SIZE", G_SELECT, cli_set_wide_mem, 0, 0, BG_MAX_WIDE_MEM,
	  "kernel memory the wide net's return\nhooks may take where the kernel\n"
	  "preallocates them per function and CPU\n(6.10-6.13; default 32M, 0: no limit);\n"
	  "past it, functions far from the plan\nget an entry hook only, their first\n"
	  "calls drawn as leaves" },
	{ "wide-wait", K_WIDE_WAIT, "SECONDS", G_SELECT, cli_set_wide_wait, 0, 0, 0,
	  "without a COMMAND, how long the net\n(wide or function_graph's, which slow\n"
	  "every task) waits for a first traced\ncall to begin; then it closes, the\n"
	  "first call drawn from the plan\n(default 5, 0: until one comes)" },
	{ "first-calls", K_FIRST_CALLS, "N", G_SELECT, cli_set_u32, OFF(first_calls), 1,
	  BG_MAX_FIRST_CALLS, "with a COMMAND, where function_graph\nrecords its first traced call (--wide):\n"
	  "its first N calls after its exec, not\nonly the first (default 1, at most 32):\n"
	  "a path first taken by a later one of\nthem is drawn whole too" },
	{ "max-funcs", K_MAX_FUNCS, "N", G_SELECT, cli_set_u32, OFF(max_funcs), 1,
	  BG_MAX_MAX_FUNCS, "refuse plans of more than N functions\n(default 2000)" },

	{ "max-depth", 'D', "N", G_FILTER, cli_set_u32, OFF(max_depth), 0,
	  BG_MAX_DEPTH, "show N levels at most (0 = all, max 64)", CM_TRACING | CM_REPORT },
	{ "thresh", 't', "USEC", G_FILTER, cli_set_thresh, 0, 0, BG_MAX_THRESH_US,
	  "only calls that took USEC or longer", CM_TRACING | CM_REPORT },
	{ "pid", 'p', "PID[,PID...]", G_FILTER, cli_set_pids, 0, 1, BG_PID_MAX,
	  "only these threads (repeatable)", CM_TRACING | CM_REPORT },
	{ "inherit", K_INHERIT, NULL, G_FILTER, cli_set_flag, OFF(inherit), 0, 0,
	  "with -p or a COMMAND: also the processes\nand threads they create from then on\n"
	  "(fork, clone), and theirs" },
	{ "cpu", 'C', "LIST", G_FILTER, cli_set_cpus, 0, 0, BG_MAX_CPUS - 1,
	  "only these CPUs, like 0-3,7", CM_TRACING | CM_REPORT },
	{ "comm", 'n', "NAME", G_FILTER, cli_set_comm, 0, 0, 0,
	  "only tasks called NAME (15 chars max)", CM_TRACING | CM_REPORT },
	{ "duration", 'd', "SECONDS", G_FILTER, cli_set_duration, 0, 0, 0,
	  "stop after SECONDS (0.5 is fine)" },

	{ "option", 'O', "[no]NAME[,...]", G_OUTPUT, cli_set_trace_opts, 0, 0, 0,
	  "set function_graph options (below)", CM_ALL },
	{ "graph-opts", K_GRAPH_OPTS, "LIST", G_OUTPUT, cli_set_graph_opts, 0, 0, 0,
	  "perf ftrace's: nosleep-time, noirqs,\n"
	  "verbose, thresh=USEC, depth=N, tail,\nretval, retval-hex, args, retaddr", CM_ALL },
	{ "args-detail", K_ARGS_DETAIL, "WHAT", G_OUTPUT, cli_set_args_detail, 0, 0, 0,
	  "with funcgraph-args, bpfgraph's own (not\nftrace's): strings, fields or\n"
	  "strings,fields: read char * arguments\n(64 bytes) and up to 4 members of a\n"
	  "struct an argument points to" },
	{ "compat", K_COMPAT, "VERSION", G_OUTPUT, cli_set_compat, 0, 0, 0,
	  "print as kernel VERSION does: 6.1,\n6.5 (default), 6.13, 6.15, 6.17 or 6.19\n"
	  "(default 6.19 with funcgraph-args/-retaddr)", CM_ALL },
	{ "no-header", K_NO_HEADER, NULL, G_OUTPUT, cli_set_flag, OFF(no_header), 0,
	  0, "no \"# tracer\" header (like trace_pipe)", CM_ALL },
	{ "output", 'o', "FILE", G_OUTPUT, cli_set_output, 0, 0, 0,
	  "write the trace to FILE, not stdout\n(record: the recording, required)", CM_ALL },
	{ "format", K_FORMAT, "NAME", G_OUTPUT, cli_set_format, 0, 0, 0,
	  "text (default), json (JSON lines),\nchrome (Perfetto), folded (flame graphs),\n"
	  "svg (interactive flame graph), stat\n(a row per function: calls, total,\n"
	  "self, average, min and max time) or\ntrace-cmd (trace.dat for trace-cmd,\n"
	  "KernelShark; needs -o)",
	  CM_ALL },
	{ "hist", K_HIST, "FUNC", G_OUTPUT, cli_set_glob, OFF(hist), 0, 0,
	  "a log2 histogram of the durations of\nFUNC (a glob: one per function), in ns;\n"
	  "after the table with --format=stat, else\non stderr after the trace (repeatable)",
	  CM_ALL },
	{ "folded-weight", K_FOLDED_WEIGHT, "WHAT", G_OUTPUT, cli_set_folded_weight, 0, 0,
	  0, "folded stacks and svg frames weigh self\ntime in ns (time, default) or calls (count)",
	  CM_ALL },
	{ "input", 'i', "FILE", G_OUTPUT, cli_set_path, OFF(input), 0, 0,
	  "report: the recording, or function_graph\ntext, to print (- reads stdin)", CM_REPORT },
	{ "strict", K_STRICT, NULL, G_OUTPUT, cli_set_flag, OFF(strict), 0, 0,
	  "report: refuse text with a damaged line\n(default: skip it with a warning)",
	  CM_REPORT },
	{ "tee", K_TEE, NULL, G_OUTPUT, cli_set_flag, OFF(tee), 0, 0,
	  "record: print the trace on stdout too", CM_RECORD },

	{ "buffer-size", 'b', "SIZE", G_OTHER, cli_set_bufsize, 0,
	  BG_MIN_BUFFER_SIZE, BG_MAX_BUFFER_SIZE,
	  "ring buffer size: a power of two,\n64K..1G (default 8M; 64M when more\n"
	  "than 16 functions start graphs)" },
	{ "dry-run", K_DRY_RUN, NULL, G_OTHER, cli_set_flag, OFF(dry_run), 0, 0,
	  "print what the kernel offers, the hook\ntier and the plan; attach nothing" },
	{ "plan-file", K_PLAN_FILE, "FILE", G_OTHER, cli_set_path, OFF(plan_file), 0, 0,
	  "write what --dry-run prints to FILE,\nthen trace" },
	{ "wait-detach", K_WAIT_DETACH, NULL, G_OTHER, cli_set_flag, OFF(wait_detach), 0, 0,
	  "exit only once the kernel has released\nevery hook (default: after 1.5 s a\n"
	  "background process finishes that;\nthe hooks record nothing meanwhile)" },
	{ "verbose", 'v', NULL, G_OTHER, cli_set_verbose, 0, 0, 0,
	  "more messages (-vv: also program runs and their\ntime per hook; -vvv: even more)", CM_ALL },
	{ "help", 'h', NULL, G_OTHER, cli_do_help, 0, 0, 0, "print this help", CM_ALL },
	{ "version", 'V', NULL, G_OTHER, cli_do_version, 0, 0, 0,
	  "print the version", CM_ALL },
};

#define NR_CLI_OPTS (sizeof(cli_opts) / sizeof(cli_opts[0]))
/* Room in getopt's tables for cli_others[] (checked when they are built). */
#define NR_OTHERS_MAX 32

const size_t cli_nr_opts = NR_CLI_OPTS;

/* The tracefs option names of -O, in the order of the tracefs listing. */
const struct cli_trace_opt cli_trace_opts[] = {
	{ "funcgraph-cpu", BG_O_CPU, "CPU column" },
	{ "funcgraph-overhead", BG_O_OVERHEAD, "+ ! # * @ $ marks on long calls" },
	{ "funcgraph-proc", BG_O_PROC, "TASK/PID column" },
	{ "funcgraph-duration", BG_O_DURATION, "DURATION column" },
	{ "funcgraph-abstime", BG_O_ABSTIME, "TIME column" },
	{ "funcgraph-irqs", BG_O_IRQS, "show calls made in hard irqs" },
	{ "funcgraph-tail", BG_O_TAIL, "\"} /* func */\" on every close" },
	{ "funcgraph-retval", BG_O_RETVAL, "return values (6.5 and later)" },
	{ "funcgraph-retval-hex", BG_O_RETVAL_HEX, "return values in hex" },
	{ "sleep-time", BG_O_SLEEP_TIME, "durations count time asleep" },
	{ "graph-time", BG_O_GRAPH_TIME, "profiler only: no effect here" },
	{ "context-info", BG_O_CONTEXT_INFO, "column header, TIME/CPU/TASK" },
	{ "funcgraph-args", BG_O_ARGS, "arguments, typed from BTF (6.15 and later)" },
	{ "funcgraph-retaddr", BG_O_RETADDR, "/* <-caller+0x../0x.. */ (6.13 and later)" },
};

const size_t cli_nr_trace_opts = sizeof(cli_trace_opts) / sizeof(cli_trace_opts[0]);

static const struct {
	const char *word;
	enum bg_cmd cmd;
} subcmds[] = {
	{ "diff", BG_CMD_DIFF },
	{ "record", BG_CMD_RECORD },
	{ "report", BG_CMD_REPORT },
};

int cli_usage_err(FILE *err, const char *fmt, ...)
{
	va_list ap;

	fputs("bpfgraph: ", err);
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fputs("\nTry 'bpfgraph --help' for more information.\n", err);
	return -EINVAL;
}

int cli_nomem(FILE *err)
{
	fputs("bpfgraph: out of memory\n", err);
	return -ENOMEM;
}

const struct cli_opt *cli_opt_by_key(int key)
{
	size_t i;

	for (i = 0; i < NR_CLI_OPTS; i++)
		if (cli_opts[i].key == key)
			return &cli_opts[i];
	return NULL;
}

/* ---- driver ----------------------------------------------------------- */

size_t cli__nr_trace_opts(void)
{
	return cli_nr_trace_opts;
}

const char *cli__trace_opt_name(size_t i)
{
	return i < cli_nr_trace_opts ? cli_trace_opts[i].name : NULL;
}

uint32_t cli__trace_opt_flag(size_t i)
{
	return i < cli_nr_trace_opts ? cli_trace_opts[i].flag : 0;
}

int cli__exit_status(int parse_ret)
{
	if (parse_ret == -EINVAL)
		return BG_EXIT_USAGE;
	return parse_ret < 0 ? BG_EXIT_FAILURE : BG_EXIT_OK;
}

void cli__free(struct bg_opts *o)
{
	free(o->graph.v);
	free(o->allow.v);
	free(o->notrace.v);
	free(o->hist.v);
	free(o->pids);
	memset(o, 0, sizeof(*o));
}

static void set_defaults(struct bg_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->cmd = BG_CMD_TRACE;
	o->callee_depth = BG_DEF_CALLEE_DEPTH;
	o->max_funcs = BG_DEF_MAX_FUNCS;
	o->flags = BG_O_DEFAULTS;
	o->dialect = BG_DEF_DIALECT;
	o->buffer_size = BG_DEF_BUFFER_SIZE;
	o->wide_mem = BG_DEF_WIDE_MEM;
	o->first_calls = 1;
	o->wide_wait_ms = BG_DEF_WIDE_WAIT_MS;
}

/* getopt_long()'s tables, built from cli_opts[]. */
static void build_getopt(struct option *lo, char *so)
{
	size_t i;

	/* '+': stop at the first non-option (the command's own options);
	 * ':': report a missing argument as ':' and print nothing */
	*so++ = '+';
	*so++ = ':';
	for (i = 0; i < NR_CLI_OPTS; i++) {
		lo[i] = (struct option){ cli_opts[i].name,
					 cli_opts[i].arg ? required_argument :
							   no_argument,
					 NULL, cli_opts[i].key };
		if (cli_opts[i].key >= 256)
			continue;
		*so++ = (char)cli_opts[i].key;
		if (cli_opts[i].arg)
			*so++ = ':';
	}
	lo[i] = (struct option){ 0 };
	/* Other tools' spellings: a hint takes an argument if given one with '=' */
	for (size_t k = 0, n = i; k < cli_nr_others && k < NR_OTHERS_MAX; k++) {
		const struct cli_other *x = &cli_others[k];

		if (x->name)
			lo[n++] = (struct option){ x->name,
						   !x->alias ? optional_argument :
						   x->arg ? required_argument :
							    no_argument,
						   NULL, x->key };
		lo[n] = (struct option){ 0 };
		if (x->key >= 256)
			continue;
		*so++ = (char)x->key;
		if (x->alias && x->arg)
			*so++ = ':';
	}
	*so = '\0';
}

/* "--c" matches --callee-depth, --cpu, --comm and --compat. */
static bool ambiguous(const char *tok)
{
	size_t i, len = strcspn(tok, "=") - 2, hits = 0;

	for (i = 0; i < NR_CLI_OPTS; i++)
		hits += !strncmp(cli_opts[i].name, tok + 2, len);
	for (i = 0; i < cli_nr_others; i++)
		hits += cli_others[i].name && !strncmp(cli_others[i].name, tok + 2, len);
	return hits > 1;
}

/* getopt_long() returned '?' or ':' for argv[optind - 1]. */
static int getopt_error(FILE *err, int ret, const char *tok)
{
	const struct cli_opt *d = cli_opt_by_key(optopt);
	bool is_long = !strncmp(tok, "--", 2);

	if (ret == ':' && is_long)
		return cli_usage_err(err, "option '--%s' requires an argument",
				     d ? d->name : tok + 2);
	if (ret == ':')
		return cli_usage_err(err, "option '-%c' requires an argument", optopt);
	if (is_long && d)
		return cli_usage_err(err, "option '--%s' doesn't allow an argument",
				     d->name);
	if (is_long && ambiguous(tok))
		return cli_usage_err(err, "option '%.*s' is ambiguous", (int)strcspn(tok, "="),
				     tok);
	if (is_long)
		return cli_usage_err(err, "unrecognized option '%.*s'", (int)strcspn(tok, "="),
				     tok);
	return cli_usage_err(err, "invalid option -- '%c'", optopt);
}

static const char *cmd_word(enum bg_cmd cmd)
{
	for (size_t i = 0; i < sizeof(subcmds) / sizeof(subcmds[0]); i++)
		if (subcmds[i].cmd == cmd)
			return subcmds[i].word;
	return "tracing";
}

/* Returns 0 with *first at the first non-option, 1 (help), or -errno. */
static int parse_options(struct cli_ctx *c, int argc, char **argv, int *first)
{
	struct option lo[NR_CLI_OPTS + NR_OTHERS_MAX + 1];
	char so[2 * (NR_CLI_OPTS + NR_OTHERS_MAX) + 3];
	const struct cli_other *x;
	const struct cli_opt *d;
	char name[32];
	int key, err;

	build_getopt(lo, so);
	optind = 0; /* glibc: full re-initialisation */
	opterr = 0;
	while ((key = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (key == '?' || key == ':')
			return getopt_error(c->err, key, argv[optind - 1]);
		/* another tool's spelling: bpfgraph's option, or why there is none */
		x = cli_other_by_key(key);
		if (x && !x->alias)
			return cli_usage_err(c->err, "%s", x->hint);
		d = cli_opt_by_key(x ? x->alias : key);
		if (!((d->cmds ?: CM_TRACING) & (1U << c->o->cmd)))
			return cli_usage_err(c->err, "option '--%s' does not apply to %s", d->name,
					     cmd_word(c->o->cmd));
		snprintf(name, sizeof(name), "--%s", d->name);
		c->name = name;
		c->last_arg = optarg;
		err = d->set(c, d, optarg);
		c->name = "";
		if (err)
			return err;
	}
	*first = optind;
	return 0;
}

/* What is left after the options: nothing, or "-- COMMAND [ARG]...". */
static int take_command(struct cli_ctx *c, int argc, char **argv, int first,
			bool dashdash)
{
	if (first >= argc && !dashdash)
		return 0;
	if (!dashdash)
		return cli_usage_err(c->err,
				     "unexpected argument '%s' (a COMMAND goes after --)",
				     argv[first]);
	if (first >= argc)
		return cli_usage_err(c->err, "missing COMMAND after --");
	c->o->command = argv + first;
	c->o->command_argc = argc - first;
	return 0;
}

/* 6.1 has no funcgraph-retval: off by default there, an error if asked. */
static int check_retval_dialect(struct cli_ctx *c)
{
	struct bg_opts *o = c->o;
	uint32_t asked = o->flags & o->flags_set;

	if (o->dialect != BG_DIALECT_6_1)
		return 0;
	if (asked & (BG_O_RETVAL | BG_O_RETVAL_HEX))
		return cli_usage_err(c->err,
				     "%s does not exist before 6.5; use --compat=6.5 or later",
				     asked & BG_O_RETVAL ? "funcgraph-retval" :
						       "funcgraph-retval-hex");
	o->flags &= ~(BG_O_RETVAL | BG_O_RETVAL_HEX);
	return 0;
}

/*
 * funcgraph-args and funcgraph-retaddr print nothing in the default
 * dialect (6.5): asking for them without --compat picks the newest text,
 * the one of the kernels that have them (6.19: both on one line). Older
 * --compat versions than the option's first are an error, as for retval.
 */
static int check_args_dialect(struct cli_ctx *c)
{
	struct bg_opts *o = c->o;
	uint32_t asked = o->flags & o->flags_set;

	if (!(o->flags & (BG_O_ARGS | BG_O_RETADDR)))
		return 0;
	if (!o->dialect_set) {
		o->dialect = BG_DIALECT_6_19;
		return 0;
	}
	if ((asked & BG_O_ARGS) && o->dialect < BG_DIALECT_6_15)
		return cli_usage_err(c->err,
				     "funcgraph-args does not exist before 6.15; use --compat=6.15 or later");
	if ((asked & BG_O_RETADDR) && o->dialect < BG_DIALECT_6_13)
		return cli_usage_err(c->err,
				     "funcgraph-retaddr does not exist before 6.13; use --compat=6.13 or later");
	return 0;
}

/* --args-detail adds to the arguments: nothing to add to without them. */
static int check_args_detail(struct cli_ctx *c)
{
	if ((c->o->flags & BG_O_DETAIL) && !(c->o->flags & BG_O_ARGS))
		return cli_usage_err(c->err, "--args-detail needs the arguments: add -O funcgraph-args "
				     "(or --graph-opts args)");
	return 0;
}

static int check_dialect(struct cli_ctx *c)
{
	int err = check_retval_dialect(c);

	if (!err)
		err = check_args_detail(c);
	return err ? err : check_args_dialect(c);
}

/* Conflicts between options, checked once everything is known. */
static int check_conflicts(struct cli_ctx *c)
{
	struct bg_opts *o = c->o;

	/* a binary file, and its header comes last: never a terminal's */
	if (o->format == BG_FMT_TRACECMD && (o->cmd == BG_CMD_RECORD || !o->output))
		return cli_usage_err(c->err, o->cmd == BG_CMD_RECORD ?
					     "record writes its own file: convert it with "
					     "report --format=trace-cmd" :
					     "--format=trace-cmd writes a file: -o FILE");
	if (o->cmd == BG_CMD_REPORT) {
		if (!o->input)
			return cli_usage_err(c->err, "report needs the recording: -i FILE");
		if (o->command_argc)
			return cli_usage_err(c->err, "report runs no COMMAND");
		return check_dialect(c);
	}
	if (o->cmd == BG_CMD_RECORD && !o->output)
		return cli_usage_err(c->err, "record needs a file to write: -o FILE");
	if (o->cmd == BG_CMD_RECORD && o->hist.n && !o->tee)
		return cli_usage_err(c->err, "--hist draws from the printed trace: add --tee, "
				     "or give it to report");
	if (!o->graph.n)
		return cli_usage_err(c->err, "no entry function: use -G FUNC");
	if (o->nr_pids && o->command_argc)
		return cli_usage_err(c->err,
				     "-p/--pid and a COMMAND exclude each other: the COMMAND is what gets traced");
	if (o->first_calls > 1 && !o->command_argc)
		return cli_usage_err(c->err, "--first-calls counts a COMMAND's calls: give one "
				     "(-p and system-wide traces end the net at their first call's end)");
	if (o->inherit && !o->nr_pids && !o->command_argc)
		return cli_usage_err(c->err, "--inherit follows the tasks of -p PID or of a "
				     "COMMAND: give one of them");
	return check_dialect(c);
}

static bool subcommand(struct bg_opts *o, int argc, char **argv)
{
	size_t i;

	for (i = 0; argc > 1 && i < sizeof(subcmds) / sizeof(subcmds[0]); i++) {
		if (strcmp(argv[1], subcmds[i].word))
			continue;
		o->cmd = subcmds[i].cmd;
		o->sub_argv = argv + 1;
		o->sub_argc = argc - 1;
		return true;
	}
	return false;
}

static int parse_cmd(struct bg_opts *o, int argc, char **argv, FILE *err)
{
	struct cli_ctx c = { .o = o, .err = err, .name = "" };
	bool dashdash;
	int first, ret;

	ret = parse_options(&c, argc, argv, &first);
	if (ret)
		goto out;
	/* "-o --" took "--" as its argument: that is no separator */
	dashdash = first > 1 && !strcmp(argv[first - 1], "--") &&
		   argv[first - 1] != c.last_arg;
	ret = take_command(&c, argc, argv, first, dashdash);
	if (!ret)
		ret = check_conflicts(&c);
out:
	if (ret)
		cli__free(o); /* help, version or error: nothing to keep */
	return ret;
}

int cli__parse(struct bg_opts *o, int argc, char **argv, FILE *err)
{
	set_defaults(o);
	if (subcommand(o, argc, argv))
		return 0;
	return parse_cmd(o, argc, argv, err);
}

int cli__parse_cmd(struct bg_opts *o, enum bg_cmd cmd, int argc, char **argv, FILE *err)
{
	set_defaults(o);
	o->cmd = cmd;
	return parse_cmd(o, argc, argv, err);
}
