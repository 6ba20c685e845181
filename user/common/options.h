/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the command line, the writers and the subcommands share: exit
 * codes, output formats, the function_graph dialect and trace options.
 */
#ifndef BG_OPTIONS_H
#define BG_OPTIONS_H

/* Exit codes of every command (a diff's are in bpfgraph-diff(1)). */
#define BG_EXIT_OK 0
#define BG_EXIT_FAILURE 1
#define BG_EXIT_USAGE 2
/* Stopped by a signal before tracing began (128 + SIGINT, as a shell says). */
#define BG_EXIT_INTERRUPTED 130
/* The output was closed under it (128 + SIGPIPE, as a pipeline expects). */
#define BG_EXIT_PIPE 141

/*
 * How functions are hooked (--hook). AUTO takes the best the kernel
 * accepts: kprobe.session where it has it (6.10+), else kprobe.multi where
 * it has CONFIG_FPROBE (one link or pair for the whole plan), else
 * per-function fentry/fexit trampolines.
 */
enum bg_hook {
	BG_HOOK_AUTO = 0,
	BG_HOOK_KMULTI, /* kprobe.multi + kretprobe.multi, batched */
	BG_HOOK_FENTRY, /* fentry/fexit clones, one trampoline per function */
	BG_HOOK_KPROBE, /* kprobe + kretprobe per function (--kprobes) */
	BG_HOOK_TMULTI, /* fentry.multi + fexit.multi (tracing_multi), batched */
	/* kprobe.session, batched: asked for only; the tier is then KMULTI */
	BG_HOOK_KSESSION,
};

/* --locks: where the lock primitives are traced (plan__shared_leaf()) */
enum bg_locks {
	BG_LOCKS_AUTO = 0, /* at call sites with -p or system-wide, hooked for a COMMAND */
	BG_LOCKS_HOOKED,
	BG_LOCKS_CALLSITES,
};

/*
 * The wide net (--wide, user/hook/wide.h): every traceable function hooked by
 * one kprobe.session link, until the first traced call returns (FIRST),
 * for the whole trace (ALWAYS), or never (OFF); or the kernel's
 * function_graph records the first traced call (FTRACE: the ftrace
 * net, user/hook/ftnet.h).
 */
enum bg_wide {
	BG_WIDE_FIRST = 0,
	BG_WIDE_ALWAYS,
	BG_WIDE_OFF,
	BG_WIDE_FTRACE,
	/* the kprobe.session net for the first call, even where FIRST takes the ftrace net */
	BG_WIDE_SESSION,
};

enum bg_format {
	BG_FMT_TEXT = 0, /* function_graph text */
	BG_FMT_JSON, /* JSON lines, one object per call */
	BG_FMT_CHROME, /* Chrome Trace Event JSON (Perfetto, chrome://tracing) */
	BG_FMT_FOLDED, /* folded stacks for flame graphs */
	BG_FMT_SVG, /* interactive flame graph, one SVG document */
	BG_FMT_STAT, /* per-function statistics: calls, total, self, min, max */
	BG_FMT_TRACECMD, /* trace-cmd data file (trace.dat) */
};

/* Which kernel's function_graph to imitate where versions differ. */
enum bg_dialect {
	BG_DIALECT_6_1 = 601, /* no return values at all */
	BG_DIALECT_6_5 = 605, /* "func(); / * = 0x0 * /", "} / * func = -2 * /" */
	BG_DIALECT_6_13 = 613, /* "func(); / * ret=0x0 * /", "} / * func ret=-2 * /" */
	/*
	 * funcgraph-args (user/out/args.h numbers its rules alike): integers in
	 * decimal, the arguments dropped when funcgraph-retaddr is on (6.15);
	 * unsigned integers in hex (6.17); args and retaddr together (6.19).
	 */
	BG_DIALECT_6_15 = 615,
	BG_DIALECT_6_17 = 617,
	BG_DIALECT_6_19 = 619,
};

/* out_text_opts.flags: the tracefs option names */
#define BG_O_CPU 0x001 /* funcgraph-cpu */
#define BG_O_OVERHEAD 0x002 /* funcgraph-overhead */
#define BG_O_PROC 0x004 /* funcgraph-proc */
#define BG_O_DURATION 0x008 /* funcgraph-duration */
#define BG_O_ABSTIME 0x010 /* funcgraph-abstime */
#define BG_O_IRQS 0x020 /* funcgraph-irqs */
#define BG_O_TAIL 0x040 /* funcgraph-tail */
#define BG_O_RETVAL 0x080 /* funcgraph-retval */
#define BG_O_RETVAL_HEX 0x100 /* funcgraph-retval-hex */
#define BG_O_SLEEP_TIME 0x200 /* sleep-time */
#define BG_O_GRAPH_TIME 0x400 /* graph-time (function profiler only) */
#define BG_O_CONTEXT_INFO 0x800 /* context-info (trace option) */
#define BG_O_ARGS 0x1000 /* funcgraph-args (6.15 and later) */
#define BG_O_RETADDR 0x2000 /* funcgraph-retaddr (6.13 and later) */
/*
 * --args-detail=strings,fields: bpfgraph's own, never the kernel's; only
 * with BG_O_ARGS (detail.h).
 */
#define BG_O_DETAIL_STR 0x4000
#define BG_O_DETAIL_FIELDS 0x8000
#define BG_O_DETAIL (BG_O_DETAIL_STR | BG_O_DETAIL_FIELDS)

#define BG_O_DEFAULTS                                                           \
	(BG_O_CPU | BG_O_OVERHEAD | BG_O_DURATION | BG_O_IRQS | BG_O_RETVAL |   \
	 BG_O_SLEEP_TIME | BG_O_GRAPH_TIME | BG_O_CONTEXT_INFO)

#endif
