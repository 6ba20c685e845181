/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * function_graph text reader: the text of any dialect of
 * docs/function-graph-format.md (tracefs trace and trace_pipe,
 * perf ftrace, perf-tools funcgraph; 6.1, 6.5 and 6.13 return values;
 * 6.13 return addresses and 6.15 arguments; abstime, proc, nocpu,
 * noduration, tail, nocontext-info; banners, LOST lines, comments, irq
 * markers) back into the model the writers consume:
 * a function table and a sequence of struct gev, plus what is needed to
 * print the same bytes again (the column layout, and every line that is
 * not a graph event, verbatim and in order).
 *
 * It streams: lines are read one at a time and handed to a callback; only
 * the function table and a little per-CPU state grow. fgtext__load()
 * collects the events of a whole file when a caller wants them all.
 */
#ifndef BG_FGTEXT_H
#define BG_FGTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "functab.h"
#include "graph.h"
#include "out_text.h"

/* Longest line read by default (a joined page of text may be long). */
#define FGTEXT_MAX_LINE (1U << 20)
/* Deepest nesting accepted (the kernel's return stack holds 50). */
#define FGTEXT_MAX_DEPTH 256
/* gev.func of a "}" whose function is unknown (no entry seen for it). */
#define FGTEXT_NOFUNC UINT32_MAX

enum fgtext_kind {
	FGT_EVENT, /* ev: GEV_ENTER, GEV_LEAF, GEV_EXIT, GEV_BANNER, GEV_LOST */
	FGT_HEADER, /* "# tracer: function_graph", "#", column headers, "#..." */
	FGT_COMMENT, /* "/ * text * /": trace_marker, trace_printk, events */
	FGT_IRQ, /* "==========>" and "<==========" markers */
	FGT_TEXT, /* anything else: prompts, "Tracing ...", blank lines */
};

struct fgtext_ev {
	enum fgtext_kind kind;
	uint32_t line; /* 1-based number of the (first) input line */
	/*
	 * FGT_EVENT. cpu is 0 without a CPU column, pid/comm are set only
	 * by a TASK/PID column (and banners), ts only by abstime. Durations
	 * are the printed ones in ns (the microseconds with their decimals).
	 * ENTER/LEAF: func. EXIT: func (FGTEXT_NOFUNC for a "}" whose entry
	 * was not seen) and tail = the closing line named its function
	 * (with return values, which always name it: the entry was not seen
	 * at that depth, as function_graph's own flag).
	 */
	struct gev ev;
	/*
	 * LEAF/EXIT: a return value was printed (ev.ret); ev.noret is its
	 * opposite, so that the writers print none where the text had none
	 * (a void function of a text with return values).
	 */
	bool has_ret;
	bool ret_hex; /* has_ret: printed in hexadecimal ("0x..."), not in decimal */
	bool recovered; /* from a joined line: depth from the nesting */
	/*
	 * ENTER/LEAF: what the call line showed that struct gev has no
	 * field for, as printed, NUL-terminated; NULL when not shown.
	 * args: between the parentheses (funcgraph-args, 6.15+), e.g.
	 * "dfd=-100, filename=0x47a073" (fgtext__next_arg() takes it
	 * apart); NULL for "()". retaddr: the caller after "<-"
	 * (funcgraph-retaddr, 6.13+), e.g. "do_sys_open+0x6b/0xb0", with
	 * " [mod]" and " <ffffffff81234567>" when the kernel added them.
	 * Valid during the callback (fgtext__load() keeps copies).
	 * fgtext__gev() hands both to out_text, which prints them again.
	 */
	const char *args;
	const char *retaddr;
	/*
	 * The input line(s) without their last '\n' when the event is not
	 * FGT_EVENT, or when out_text would not print these exact bytes for
	 * ev (arguments, return addresses, latency flags, odd spacing...).
	 * NULL for events the writer reproduces. Valid during the callback
	 * (fgtext__load() keeps copies).
	 */
	const char *text;
};

/* How an argument's value is printed ("Arguments and return addresses"). */
enum fgtext_arg_kind {
	FGT_ARG_HEX, /* "0x1f": pointers; unsigned integers and bool from 6.17 */
	FGT_ARG_DEC, /* "-100", "4294967196": signed integers, enums; all integers in 6.15, 6.16 */
	FGT_ARG_UNKNOWN, /* "?0x1f": a type the kernel could not resolve */
	FGT_ARG_WORDS, /* "(STRUCT)[0x1:0x2]": passed by value, in register words */
	FGT_ARG_MORE, /* "...": arguments beyond the registers the kernel saved */
	FGT_ARG_OTHER, /* anything else: a quoted string, a notation not known here */
};

/* One argument of fgtext_ev.args: "name=value", "=value" or "...". */
struct fgtext_arg {
	const char *name; /* not NUL-terminated; name_len 0 when none was printed */
	size_t name_len;
	const char *value; /* not NUL-terminated */
	size_t value_len;
	enum fgtext_arg_kind kind;
	uint64_t num; /* HEX, DEC (two's complement), UNKNOWN: the number */
	/*
	 * bpfgraph's --args-detail after the value ('"/tmp/x"', '{flags=0x8000
	 * mode=0}', '<fault>'; not NUL-terminated), left out of value; NULL
	 * when there is none.
	 */
	const char *detail;
	size_t detail_len;
};

/*
 * The argument at *pos of an fgtext_ev.args string, *pos moved past it
 * and its ", "; false at the end. Commas inside parentheses, brackets,
 * braces and double quotes do not split.
 */
bool fgtext__next_arg(const char **pos, struct fgtext_arg *a);

/*
 * e's event with the arguments and the caller as the text had them
 * (gev.args_text, .retaddr_text; "" for a call line without them), so
 * that out_text prints them again; valid while e is.
 */
struct gev fgtext__gev(const struct fgtext_ev *e);

/* fgtext_layout.cols: columns and traits that out_text has no flag for. */
#define FGT_L_LATENCY 0x1 /* perf ftrace "verbose": lat-flags column */
#define FGT_L_ARGS 0x2 /* 6.15+ funcgraph-args: "func(a=1, ...)" */
#define FGT_L_RETADDR 0x4 /* 6.13+ funcgraph-retaddr: "/ * <-caller+0x1/0x2 * /" */

/* What the text shows of the options it was printed with. */
struct fgtext_layout {
	uint32_t flags; /* BG_O_*: CPU PROC DURATION ABSTIME OVERHEAD TAIL RETVAL RETVAL_HEX CONTEXT_INFO */
	uint32_t known; /* the BG_O_* bits the text decided (others are defaults) */
	uint32_t cols; /* FGT_L_* */
	enum bg_dialect dialect; /* 6.1 unless return values were seen */
	int cpu_width; /* digits of the CPU column; 0 = none seen */
	bool header; /* a "# tracer:" line was seen */
	bool final_newline; /* the last line ended with '\n' */
};

struct fgtext_stats {
	uint64_t lines; /* physical lines read */
	uint64_t events; /* FGT_EVENT handed out */
	uint64_t calls; /* ENTER + LEAF among them */
	uint64_t verbatim; /* events that carry their text (see fgtext_ev.text) */
	uint64_t other; /* FGT_TEXT lines */
	uint64_t joined; /* lines holding several graph lines joined by spaces */
	uint64_t recovered; /* events recovered from joined lines */
	uint64_t unparsed; /* lines, or pieces of joined lines, not understood */
	uint64_t skipped; /* lenient: whole lines left out among them (damaged, cut) */
};

/* Lines left out that fgtext_opts.warn names one by one; then a count. */
#define FGTEXT_MAX_WARN 10

/* A consumer of fgtext events; ft is the reader's function table. */
typedef int (*fgtext_emit_fn)(void *ctx, const struct fgtext_ev *ev, const struct functab *ft);

struct fgtext_opts {
	fgtext_emit_fn emit; /* may be NULL; a non-zero return stops the read */
	void *ctx;
	/*
	 * Render each event with out_text and keep the input text of the
	 * ones that differ, so that the file can be written back byte for
	 * byte. Costs a render per line; readers that only want the events
	 * leave it off.
	 */
	bool keep_text;
	/*
	 * Malformed graph lines (a column prefix with no call after it, a
	 * bad duration, too deep, a CPU out of range, too long, NUL bytes:
	 * a damaged line, or the last one of a capture cut short) are errors
	 * unless lenient: then they are counted in stats.unparsed and
	 * stats.skipped and passed on as FGT_TEXT, except lines too long or
	 * with NUL bytes, which are left out.
	 */
	bool lenient;
	size_t max_line; /* 0 = FGTEXT_MAX_LINE */
	const char *name; /* for messages ("<input>" if NULL) */
	FILE *err; /* one "name:line: problem" message on failure; NULL = quiet */
	/*
	 * Lenient: each line left out is named here, "PREFIXname:line: what
	 * was wrong: 'how the line began'", the first FGTEXT_MAX_WARN of
	 * them, and how many there were in all at the end of the read when
	 * there were more. NULL = quiet. prefix may be NULL.
	 */
	FILE *warn;
	const char *prefix;
};

struct fgtext;

/* NULL with errno set. */
struct fgtext *fgtext__new(const struct fgtext_opts *opts);
void fgtext__free(struct fgtext *r);
/*
 * Reads in to its end, one line at a time. 0, -EINVAL (malformed text;
 * fgtext__error() says where), -E2BIG (a line longer than max_line), -EIO,
 * -ENOMEM, or what the callback returned.
 */
int fgtext__read(struct fgtext *r, FILE *in);
const struct functab *fgtext__funcs(const struct fgtext *r);
const struct fgtext_layout *fgtext__layout(const struct fgtext *r);
const struct fgtext_stats *fgtext__stats(const struct fgtext *r);
/* The last error and its line number (0: none, or not tied to a line). */
const char *fgtext__error(const struct fgtext *r, uint32_t *line);
/* out_text options that print what the layout shows (header off). */
void fgtext__out_opts(const struct fgtext_layout *l, struct out_text_opts *o);

/* A whole file in memory. */
struct fgtext_doc {
	struct fgtext_ev *ev; /* text and comm strings owned by the doc */
	size_t n;
	const struct functab *funcs;
	const struct fgtext_layout *layout;
	const struct fgtext_stats *stats;
	/* private */
	struct fgtext *r;
	size_t cap;
	struct fgtext_pool *pool;
};

/*
 * Reads in with opts (emit and ctx are ignored, keep_text is forced on).
 * NULL with errno set; a message went to opts->err. *errline (if not
 * NULL) gets the line of the error, 0 otherwise.
 */
struct fgtext_doc *fgtext__load(FILE *in, const struct fgtext_opts *opts, uint32_t *errline);
/* Prints d again: the same bytes as read, unless lines were recovered. */
int fgtext__write(const struct fgtext_doc *d, FILE *out);
void fgtext__doc_free(struct fgtext_doc *d);

#endif
