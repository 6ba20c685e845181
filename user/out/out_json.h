/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * JSON lines writer: one object per call, written when the call is
 * complete (its exit, or its leaf line); calls whose exit never came are
 * written by out_json__end() with "unfinished": true. Schema in
 * man/bpfgraph.1 (FORMATS).
 */
#ifndef BG_OUT_JSON_H
#define BG_OUT_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "args_src.h"
#include "functab.h"
#include "graph.h"

struct out_json_opts {
	FILE *out;
	const struct functab *funcs;
	bool hex; /* retval strings in hex (funcgraph-retval-hex) */
	/* funcgraph-args, -retaddr: "args" and "retaddr" members (args_src.h) */
	uint32_t flags; /* BG_O_* */
	int dialect;
	const struct args_src *args;
};

struct out_json;

struct out_json *out_json__new(const struct out_json_opts *opts);
void out_json__free(struct out_json *w);
/* gsink.emit-compatible. */
void out_json__emit(void *w, const struct gev *ev);
/* Writes the calls still open (after graph__flush()). */
void out_json__end(struct out_json *w);
/*
 * Lines are collected and handed to out in large pieces: what is held
 * goes to out now (before anything else writes to it or flushes it).
 */
void out_json__sync(struct out_json *w);
/* From now on each line goes to out as it ends. */
void out_json__each_line(struct out_json *w);

/* s as a JSON string: quotes, escapes, bytes >= 0x80 as \u00XX. */
void out_json__put_str(FILE *f, const char *s);
/* "%llu.%03u": ns as microseconds with ns precision. */
void out_json__put_us(FILE *f, uint64_t ns);
/* ret as typed by f: signed, unsigned or raw; false for void. */
bool out_json__fmt_ret(char *buf, size_t len, uint64_t ret, const struct bg_func *f);

#endif
