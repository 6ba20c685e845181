/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * "bpfgraph diff A B": compares two function graphs, typically the
 * kernel's own function_graph (the oracle) and bpfgraph's text for the
 * same workload.
 *
 * Each side is function_graph text of any dialect or a record file.
 * Each graph is cut into invocations: the calls under one depth-0 call.
 * Invocations of the same root function are paired, A with the B that
 * shares most call lines with it; a call line is (function, depth), in
 * the order the lines come. In each pair the two sequences of call lines
 * are aligned (longest common subsequence), which gives the calls only
 * in A, only in B, and those that moved to another parent. Durations are
 * compared per function. The last line is a stable summary:
 *   recall R precision P (A: N calls in I invocations, B: N calls in I invocations)
 * with recall = matched / A's calls, precision = matched / B's calls.
 */
#ifndef BG_DIFF_H
#define BG_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "functab.h"
#include "graph.h"

#define DIFF_DEF_MAX_LINES 20
#define DIFF_DEF_RATIO 2.0

struct diff_opts {
	const char *root; /* glob: only invocations of these roots; NULL = all */
	char *const *ignore; /* globs: functions dropped with their subtrees */
	size_t n_ignore;
	size_t last; /* compare only each side's last N invocations; 0 = all */
	size_t skip_last; /* leave out each side's last N invocations first */
	size_t max_lines; /* differences listed per list */
	double ratio; /* a mean duration this many times larger or smaller is a change */
	bool quiet; /* only the summary line */
	bool one_task; /* each side traced one task: follow it across CPUs */
	bool strict; /* text: a damaged line fails the read (default: skipped, named on err) */
};

/* Sides of a comparison. */
enum { DIFF_A, DIFF_B };

struct diff_stats {
	size_t read[2]; /* call lines read, before --root, --ignore, --last... */
	size_t calls[2]; /* call lines in the compared invocations */
	size_t invocations[2];
	size_t outside[2]; /* calls under no depth-0 call (trace began inside one) */
	size_t paired; /* invocation pairs */
	size_t matched; /* call lines aligned in the pairs */
	size_t only[2]; /* calls only in A, only in B (moved ones excluded) */
	size_t moved; /* calls present on both sides under another parent or depth */
	size_t dur_funcs; /* functions with durations on both sides */
	size_t dur_changed; /* ... whose mean changed by opts.ratio or more */
	double recall, precision;
};

struct diff;

/* NULL with errno set. */
struct diff *diff__new(const struct diff_opts *opts);
void diff__free(struct diff *d);
/*
 * One graph event for side (DIFF_A or DIFF_B), its names from ft; line is
 * where it comes from (0 = unknown), quoted in the lists. 0 or -ENOMEM.
 */
int diff__feed(struct diff *d, int side, const struct gev *ev, const struct functab *ft,
	       uint32_t line);
/*
 * Reads function_graph text (any dialect) into side; name is used in
 * messages and lists. 0, or -errno with one message on err. Unless
 * opts.strict, damaged lines are skipped, each named on err (if not NULL).
 */
int diff__read_text(struct diff *d, int side, FILE *in, const char *name, FILE *err);
/*
 * Reads a record file ("bpfgraph record") into side through the graph
 * builder, as report prints it. 0, or -errno with one message on err
 * (not NULL).
 */
int diff__read_record(struct diff *d, int side, const char *path, const char *name, FILE *err);
/* Pairs, aligns and reports on out (only the summary with opts.quiet). */
int diff__compare(struct diff *d, FILE *out, struct diff_stats *st);

/* "bpfgraph diff [OPTIONS] A B": argv[0] is "diff"; returns BG_EXIT_*. */
int cmd_diff(int argc, char **argv);
void diff__usage(FILE *f);

#endif
