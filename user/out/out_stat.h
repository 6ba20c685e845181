/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --format=stat: one table row per function (calls, unfinished calls,
 * total, self, average, min and max time in microseconds with 3
 * decimals, as function_graph prints durations), by total time
 * descending, written at the end of the trace; then the --hist
 * histograms. The histograms alone (any other format) go through
 * out_stat__print_hists().
 */
#ifndef BG_OUT_STAT_H
#define BG_OUT_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "funcstat.h"

struct out_stat_opts {
	FILE *out;
	const struct functab *funcs;
	bool header; /* the "#" lines naming the columns */
	const char *const *hist; /* --hist patterns */
	size_t nr_hist;
};

struct out_stat;

struct out_stat *out_stat__new(const struct out_stat_opts *opts);
void out_stat__free(struct out_stat *w);
/* gsink.emit-compatible. */
void out_stat__emit(void *w, const struct gev *ev);
/* The table, then the histograms. 0, or -ENOMEM if some calls were lost to memory. */
int out_stat__end(struct out_stat *w);

/* The table of a finished funcstat. */
void out_stat__print_table(FILE *f, const struct funcstat *s, bool header);
/*
 * The histograms of a finished funcstat, one per function that matched
 * a pattern, and a line for each pattern that matched no call.
 */
void out_stat__print_hists(FILE *f, const struct funcstat *s, const char *const *hist,
			   size_t nr_hist);

#endif
