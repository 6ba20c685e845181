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

#include "functab.h"
#include "graph.h"

struct out_json_opts {
	FILE *out;
	const struct functab *funcs;
	bool hex; /* retval strings in hex (funcgraph-retval-hex) */
};

struct out_json;

struct out_json *out_json__new(const struct out_json_opts *opts);
void out_json__free(struct out_json *w);
/* gsink.emit-compatible. */
void out_json__emit(void *w, const struct gev *ev);
/* Writes the calls still open (after graph__flush()). */
void out_json__end(struct out_json *w);

/*
 * Shared with the Chrome writer: calls out of graph events. A call is
 * reported when it ends (leaf, exit), or when it is known never to end.
 */
struct out_call {
	uint32_t func, depth, cpu, pid;
	const char *comm;
	uint64_t ts; /* entry time (exit time - dur for an orphan exit) */
	const uint64_t *dur, *ret; /* NULL when unfinished */
	bool orphan; /* exit whose entry was not seen */
	bool unfinished; /* entry whose exit never came */
};

typedef void (*out_call_fn)(void *ctx, const struct out_call *c);
struct out_calls;

struct out_calls *out_calls__new(out_call_fn fn, void *ctx);
void out_calls__free(struct out_calls *t);
/* Returns false for events that are no calls (banner, lost). */
bool out_calls__emit(struct out_calls *t, const struct gev *ev);
/* Reports the calls still open, as unfinished. */
void out_calls__end(struct out_calls *t);

/* s as a JSON string: quotes, escapes, bytes >= 0x80 as \u00XX. */
void out_json__put_str(FILE *f, const char *s);
/* "%llu.%03u": ns as microseconds with ns precision. */
void out_json__put_us(FILE *f, uint64_t ns);
/* ret as typed by f: signed, unsigned or raw; false for void. */
bool out_json__fmt_ret(char *buf, size_t len, uint64_t ret, const struct bg_func *f);

#endif
