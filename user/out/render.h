/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Records to output in one of the formats: the graph builder plus the
 * writer of the chosen format, behind a rec_sink. Live tracing and
 * "bpfgraph report" both go through here, which is what makes report
 * output equal live output.
 */
#ifndef BG_RENDER_H
#define BG_RENDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "functab.h"
#include "graph.h"
#include "options.h"
#include "out_text.h"
#include "sink.h"

struct render_opts {
	FILE *out;
	const struct functab *funcs;
	enum bg_format format;
	uint32_t flags; /* BG_O_* */
	enum bg_dialect dialect;
	uint32_t nr_cpu_ids;
	bool header;
	bool folded_count; /* folded, svg: weight by count, not self time */
	const struct args_src *args; /* funcgraph-args, -retaddr; NULL: none */
	/*
	 * --hist: log2 histograms of the durations of the functions these
	 * patterns match, after the table of the stat format, on stderr
	 * after the trace in the others.
	 */
	const char *const *hist;
	size_t nr_hist;
};

struct render;

/* Writes what comes first (text header, "{"traceEvents":["). */
struct render *render__new(const struct render_opts *o);
/* Records in: feed, drain and flush of the graph builder. */
struct rec_sink render__sink(struct render *r);
/*
 * Or graph events in, for sources that already give them (function_graph
 * text): the writer itself, the graph builder left out; its lines go out
 * as each ends, since the caller may write between them.
 */
struct gsink render__events(struct render *r);
/* Records lost on cpu before its next one (count 0: unknown): graph__lost(). */
int render__lost(struct render *r, uint32_t cpu, uint64_t count);
/*
 * After the sink's flush: what can only be written at the end. 0, -EIO,
 * or -ENOMEM if the folded, svg or stat sums lost calls to memory.
 */
int render__finish(struct render *r);
void render__free(struct render *r);
/* "text" -> BG_FMT_TEXT, ...; -EINVAL for an unknown name. */
int render__parse_format(const char *name);
const char *render__format_name(enum bg_format f);

#endif
