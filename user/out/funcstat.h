/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Per-function statistics out of graph events, what perf ftrace profile,
 * trace-cmd profile and the kernel's function profiler report: calls,
 * total, self, min and max time per function; and, for the functions of
 * --hist, a log2 histogram of their durations as bcc's funclatency and
 * perf ftrace latency draw. The call tracker (calls.h) pairs entries and
 * exits and gives each call its self time; this only sums.
 *
 * A call counts when its duration is known: a leaf, an entry and its
 * exit, or an exit whose entry was not seen (its duration is printed
 * with it). An entry whose exit never came is counted apart, per
 * function, and adds no time. A recursive function's total counts its
 * inner calls again, as the kernel's function profiler does.
 */
#ifndef BG_FUNCSTAT_H
#define BG_FUNCSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "functab.h"
#include "graph.h"

/* Buckets of a log2 histogram: 0 holds 0..1 ns, k >= 1 holds 2^k..2^(k+1)-1. */
#define FUNCSTAT_BUCKETS 64

struct funcstat_row {
	uint32_t func; /* functab index */
	uint64_t calls; /* with a known duration */
	uint64_t unfinished; /* entries whose exit never came */
	uint64_t total_ns, self_ns, min_ns, max_ns; /* over calls; 0 without any */
};

struct funcstat_hist {
	uint32_t func;
	size_t pattern; /* index of the first --hist pattern that matched */
	uint64_t bucket[FUNCSTAT_BUCKETS];
	uint64_t calls, unfinished;
	uint64_t total_ns, min_ns, max_ns;
};

/* What no row shows, counted. */
struct funcstat_totals {
	uint64_t calls, unfinished; /* the rows' sums */
	/* exits of a function the trace never named (text's bare "}"): in no row */
	uint64_t unknown;
	/*
	 * Calls whose children the tracker could not subtract (deeper than
	 * BG_MAX_DEPTH, or on a CPU beyond its stacks): self = duration.
	 */
	uint64_t self_whole;
	uint64_t lost; /* records the kernel lost, as the lost markers say */
	uint64_t lost_unknown; /* lost markers without a count */
};

struct funcstat_opts {
	const struct functab *funcs; /* may grow while events come */
	/* --hist patterns, matched as fnmatch() against the function's name */
	const char *const *hist;
	size_t nr_hist;
};

struct funcstat;

struct funcstat *funcstat__new(const struct funcstat_opts *opts);
void funcstat__free(struct funcstat *s);
/* gsink.emit-compatible. */
void funcstat__emit(void *s, const struct gev *ev);
/*
 * Ends the calls still open (unfinished) and sorts: s takes no more
 * events. 0, or -ENOMEM if some calls were lost to memory (the counts
 * are then short, and funcstat__nomem() says so).
 */
int funcstat__finish(struct funcstat *s);
bool funcstat__nomem(const struct funcstat *s);
/*
 * After funcstat__finish(), owned by s: the rows of the functions with a
 * call, by total time descending (then calls descending, then name); the
 * histograms by pattern, then name.
 */
const struct funcstat_row *funcstat__rows(const struct funcstat *s, size_t *n);
const struct funcstat_hist *funcstat__hists(const struct funcstat *s, size_t *n);
const struct funcstat_totals *funcstat__totals(const struct funcstat *s);
/* The --hist patterns that matched no function with a call. */
bool funcstat__pattern_seen(const struct funcstat *s, size_t pattern);
/* What the table prints for func: "name" or "name [module]". */
const char *funcstat__name(const struct funcstat *s, uint32_t func);
/* The bucket of a duration in ns. */
unsigned int funcstat__bucket(uint64_t ns);

#endif
