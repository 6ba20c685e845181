/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Folded stacks ("root;child;leaf weight" lines) for flamegraph.pl,
 * inferno and speedscope, weighted by self time in ns or by call count.
 * Stacks are summed in memory and written, sorted, by out_folded__end().
 */
#ifndef BG_OUT_FOLDED_H
#define BG_OUT_FOLDED_H

#include <stdbool.h>
#include <stdio.h>

#include "functab.h"
#include "graph.h"

struct out_folded_opts {
	FILE *out;
	const struct functab *funcs;
	bool count; /* weight = number of calls, not self time */
};

struct out_folded;

struct out_folded *out_folded__new(const struct out_folded_opts *opts);
void out_folded__free(struct out_folded *w);
/* gsink.emit-compatible. */
void out_folded__emit(void *w, const struct gev *ev);
/* Writes the stacks; -ENOMEM if some were lost to memory. */
int out_folded__end(struct out_folded *w);

#endif
