/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Folded stacks ("root;child;leaf weight" lines) for flamegraph.pl,
 * inferno and speedscope, weighted by self time in ns or by call count.
 *
 * struct folded sums the stacks of graph events in memory; the folded
 * writer prints them sorted, the SVG flame graph lays them out. Both
 * weigh calls the same way because they share this one aggregation.
 */
#ifndef BG_OUT_FOLDED_H
#define BG_OUT_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "functab.h"
#include "graph.h"

/* Name of a frame whose function is not known (an exit without entry). */
#define FOLDED_UNKNOWN "[unknown]"

struct folded_opts {
	FILE *out; /* where out_folded__end() or out_svg__end() write */
	const struct functab *funcs;
	bool count; /* weight = number of calls, not self time */
};

/* One distinct stack: "caller;...;func", never a weight of 0. */
struct folded_stack {
	char *key;
	uint64_t weight;
};

/*
 * What the stacks could not show, counted (see out_folded.c). Complete
 * after folded__stacks().
 */
struct folded_stats {
	uint64_t deep; /* calls deeper than BG_MAX_DEPTH levels: left out */
	uint64_t unfinished; /* calls whose exit never came: left out */
	/*
	 * Calls on CPUs beyond the tracker's stacks (>= BG_MAX_CPUS): their
	 * callers are unknown, they are root frames weighing their whole
	 * duration.
	 */
	uint64_t rootless;
};

struct folded;

/* EINVAL without opts or their out. */
struct folded *folded__new(const struct folded_opts *opts);
void folded__free(struct folded *f);
/* gsink.emit-compatible. */
void folded__emit(void *f, const struct gev *ev);
/*
 * The stacks summed so far, in no particular order, owned by f (valid
 * until folded__free(); f takes no more events after this). 0, or
 * -ENOMEM if some stacks were lost to memory (the others are there).
 */
int folded__stacks(struct folded *f, struct folded_stack **v, size_t *n);
/* What the stacks left out; complete after out_folded__end() or out_svg__end(). */
const struct folded_stats *folded__stats(const struct folded *f);

/*
 * Writes the stacks as folded text to the options' out, sorted; -ENOMEM
 * if some were lost to memory.
 */
int out_folded__end(struct folded *f);
/* The options f was made with. */
const struct folded_opts *folded__opts(const struct folded *f);

#endif
