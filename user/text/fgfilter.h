/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live filters (graph/filter.h) on function_graph text read back:
 * events in, in the order of the text, the ones the filters keep out,
 * printed as the kernel would have printed the trace made with them:
 *   - a graph is chosen (-p, -C, -n) at its depth 0 line; its lines are
 *     those of its task (with a TASK/PID column) or else of its CPU;
 *   - -D and -x drop lines; a call whose lines in between were all
 *     dropped becomes one "func();" line, as the kernel's printer folds
 *     an entry followed on its CPU by its own return;
 *   - -t drops entries and the returns of shorter calls; a kept call
 *     prints as "} / * func * /" with its duration, as tracing_thresh does;
 *   - the context switch banners ("a-1 => b-2") are made again for the
 *     lines kept, from the TASK/PID column or the text's own banners.
 * Comment lines and irq markers are kept where they were.
 * The text must show what a filter needs: the caller checks (report).
 */
#ifndef BG_FGFILTER_H
#define BG_FGFILTER_H

#include <stdbool.h>

#include "filter.h"
#include "graph.h"

/* Where what is kept goes; ev and text are valid during the call. */
struct fgfilter_out {
	int (*event)(void *ctx, const struct gev *ev);
	int (*line)(void *ctx, const char *text);
	void *ctx;
};

struct fgfilter;

/*
 * by_pid: the text has a TASK/PID column, so graphs follow tasks (else
 * CPUs). f is copied; what it points to must outlive the filter, and so
 * must funcs (the text reader's table). NULL with errno.
 */
struct fgfilter *fgfilter__new(const struct filter_opts *f, bool by_pid,
			       const struct functab *funcs, struct fgfilter_out out);
/* One event of the text (GEV_*). 0 or what out returned, or -ENOMEM. */
int fgfilter__event(struct fgfilter *ff, const struct gev *ev);
/* A line that is no event (a comment, an irq marker), in its place. */
int fgfilter__line(struct fgfilter *ff, const char *text);
/* At the end of the text: what is still held goes out. */
int fgfilter__finish(struct fgfilter *ff);
void fgfilter__free(struct fgfilter *ff);

#endif
