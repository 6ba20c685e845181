/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Chrome Trace Event writer (the JSON object format that Perfetto UI and
 * chrome://tracing open): one complete event ("ph":"X") per call on the
 * track of its task, ts/dur in microseconds with ns decimals, CPU and
 * return value in args, task names as metadata events.
 */
#ifndef BG_OUT_CHROME_H
#define BG_OUT_CHROME_H

#include <stdbool.h>
#include <stdio.h>

#include "args_src.h"
#include "functab.h"
#include "graph.h"

struct out_chrome_opts {
	FILE *out;
	const struct functab *funcs;
	bool hex; /* retval strings in hex */
	/* funcgraph-args, -retaddr: "args" and "retaddr" in each call's args */
	uint32_t flags; /* BG_O_* */
	int dialect;
	const struct args_src *args;
};

struct out_chrome;

struct out_chrome *out_chrome__new(const struct out_chrome_opts *opts);
void out_chrome__free(struct out_chrome *w);
void out_chrome__begin(struct out_chrome *w);
/* gsink.emit-compatible. */
void out_chrome__emit(void *w, const struct gev *ev);
/* Open calls, task names, and the closing brackets. */
void out_chrome__end(struct out_chrome *w);

#endif
