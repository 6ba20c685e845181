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

#include "args_src.h"
#include "functab.h"
#include "graph.h"
#include "options.h"

struct out_text_opts {
	FILE *out;
	const struct functab *funcs;
	uint32_t flags; /* BG_O_* */
	enum bg_dialect dialect;
	uint32_t nr_cpu_ids; /* possible CPUs: sets the CPU column width */
	bool header; /* "# tracer: function_graph" block first */
	/* funcgraph-args, funcgraph-retaddr: prototypes and symbols; NULL: none */
	const struct args_src *args;
	/*
	 * Lines collected in a buffer of the writer's and handed to out in
	 * large pieces (linebuf.h): out_text__sync() before anything else
	 * writes to out or out is flushed. false: each line as it ends.
	 */
	bool stream;
};

struct out_text;

struct out_text *out_text__new(const struct out_text_opts *opts);
void out_text__free(struct out_text *w);
/* Prints the header block (when opts.header). */
void out_text__begin(struct out_text *w);
/* gsink.emit-compatible. */
void out_text__emit(void *w, const struct gev *ev);
/* What a stream writer holds goes to its FILE (opts.stream; else nothing). */
void out_text__sync(struct out_text *w);
/* From now on a stream writer hands each line over as it ends. */
void out_text__each_line(struct out_text *w);

/*
 * Formats a return value the way function_graph does (retval rule of
 * 6.5+: 0 and hex mode in hex, error codes in decimal), after cutting it
 * to the BTF return type. Returns false for void functions (print nothing).
 * f NULL = unknown type (raw register, the kernel's rule).
 */
bool out_text__fmt_retval(char *buf, size_t len, uint64_t ret,
			  const struct bg_func *f, bool hex);
/* out_text__fmt_retval() into buf (24 bytes of room), unterminated: its length, 0 for void. */
size_t out_text__retval(char *buf, uint64_t ret, const struct bg_func *f, bool hex);
/* "  1.382 us    |  " etc.: the 17-char duration column with its mark. */
void out_text__fmt_duration(char *buf, size_t len, uint64_t ns, bool overhead);

#endif
