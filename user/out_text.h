/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * function_graph text writer: turns graph events into the bytes the
 * kernel's tracefs "trace" file prints (docs/function-graph-format.md).
 */
#ifndef BG_OUT_TEXT_H
#define BG_OUT_TEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "functab.h"
#include "graph.h"

/* Which kernel's function_graph to imitate where versions differ. */
enum bg_dialect {
	BG_DIALECT_6_1 = 601, /* no return values at all */
	BG_DIALECT_6_5 = 605, /* "func(); / * = 0x0 * /", "} / * func = -2 * /" */
	BG_DIALECT_6_13 = 613, /* "func(); / * ret=0x0 * /", "} / * func ret=-2 * /" */
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

#define BG_O_DEFAULTS                                                           \
	(BG_O_CPU | BG_O_OVERHEAD | BG_O_DURATION | BG_O_IRQS | BG_O_RETVAL |   \
	 BG_O_SLEEP_TIME | BG_O_GRAPH_TIME | BG_O_CONTEXT_INFO)

struct out_text_opts {
	FILE *out;
	const struct functab *funcs;
	/*
	 * Optional: comms for events that carry none (gev.comm NULL, e.g.
	 * built by hand); the graph builder fills gev.comm itself.
	 */
	const struct graph *graph;
	uint32_t flags; /* BG_O_* */
	enum bg_dialect dialect;
	uint32_t nr_cpu_ids; /* possible CPUs: sets the CPU column width */
	bool header; /* "# tracer: function_graph" block first */
};

struct out_text;

struct out_text *out_text__new(const struct out_text_opts *opts);
void out_text__free(struct out_text *w);
/* Prints the header block (when opts.header). */
void out_text__begin(struct out_text *w);
/* gsink.emit-compatible. */
void out_text__emit(void *w, const struct gev *ev);

/*
 * Formats a return value the way function_graph does (retval rule of
 * 6.5+: 0 and hex mode in hex, error codes in decimal), after cutting it
 * to the BTF return type. Returns false for void functions (print nothing).
 * f NULL = unknown type (raw register, the kernel's rule).
 */
bool out_text__fmt_retval(char *buf, size_t len, uint64_t ret,
			  const struct bg_func *f, bool hex);
/* "  1.382 us    |  " etc.: the 17-char duration column with its mark. */
void out_text__fmt_duration(char *buf, size_t len, uint64_t ns, bool overhead);

#endif
