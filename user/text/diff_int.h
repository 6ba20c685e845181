/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * bpfgraph diff, private: the state of a comparison and what its parts
 * share. diff.c holds the object, the comparison's steps and the command;
 * diff_tree.c builds each side's call trees from graph events, diff_pair.c
 * cuts them into invocations and pairs those, diff_align.c aligns two
 * sequences of call lines, diff_match.c sorts out the calls of a pair and
 * sums durations, diff_report.c prints what was found.
 */
#ifndef BG_DIFF_INT_H
#define BG_DIFF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diff.h"

#define NONE UINT32_MAX
#define SYM_DEPTH_BITS 8

#define NM_IGNORED 0x1
#define NM_ROOT 0x2

struct names {
	char **s;
	uint8_t *flags;
	size_t n, cap, fcap;
	uint32_t *slot; /* id + 1, open addressing */
	size_t scap;
};

struct dnode {
	uint32_t name, depth, parent, line;
	uint32_t inv; /* invocation id; NONE while pending or outside any */
	uint32_t pos; /* index in its invocation's sequence */
	uint64_t dur;
	bool has_dur, dropped;
};

struct frame {
	uint32_t node; /* NONE for an ignored call */
	uint32_t name, depth;
};

/* Call stack of one CPU (or of a task switched out). */
struct dctx {
	struct frame *st;
	size_t n, cap;
	uint32_t *pend; /* orphan closing lines waiting for their parent */
	size_t npend, pcap;
	uint32_t pid;
	bool pid_known;
};

struct parked {
	uint32_t pid;
	struct dctx ctx;
};

/* One invocation: its call lines in line order. */
struct inv {
	uint32_t id, root, root_name, ordinal;
	uint32_t *nodes;
	uint32_t *sym; /* name << 8 | depth */
	uint32_t *bsym, *bpos; /* syms sorted, with their positions */
	size_t n, cap;
	uint32_t pair; /* index of the paired invocation on the other side */
};

struct side {
	const char *name;
	size_t read; /* calls fed, before anything is left out (diff_stats.read) */
	struct dnode *node;
	size_t n, cap;
	uint32_t *inv_root; /* root node of each invocation id */
	size_t ninv, rcap;
	struct dctx *ctx[BG_MAX_CPUS];
	struct parked *park;
	size_t npark, parkcap;
	struct inv *inv; /* the compared invocations */
	size_t ninvs;
};

/* A difference kept for the lists (at most max_lines of each kind). */
struct item {
	uint32_t a, b; /* node indexes, or NONE */
	uint32_t near; /* line on the other side, 0 = unknown */
	uint32_t calls; /* unpaired invocation: its calls */
};

struct list {
	struct item *v;
	size_t n, total;
};

struct dstat {
	uint64_t total[2];
	uint64_t count[2];
};

struct diff {
	struct diff_opts o;
	struct names names;
	struct side s[2];
	struct list only[2], moved;
	struct dstat *dur; /* per name */
	struct diff_stats st;
};

/* diff_tree.c: building trees from events */
void diff_ctx_free(struct dctx *c);

/* diff_pair.c: invocations, pairing */
int diff_collect_invs(struct diff *d, struct side *sd, size_t side);
int diff_pair_all(struct diff *d);

/* diff_align.c: LCS, alignment */
size_t diff_lcs_bound(const struct inv *a, const struct inv *b);
size_t diff_lcs_len(const struct inv *a, const struct inv *b, uint64_t *V, uint64_t *M);
int diff_align(const struct inv *a, const struct inv *b, uint32_t *ma, uint32_t *mb);

/* diff_match.c: differences */
int diff_compare_pair(struct diff *d, const struct inv *a, const struct inv *b);
int diff_unpaired(struct diff *d, int side, const struct inv *v);
int diff_durations(struct diff *d);
double diff_mean(const struct dstat *s, int side);
bool diff_dur_changed(const struct diff *d, const struct dstat *s);

/* diff_report.c: report */
int diff_report(struct diff *d, FILE *out);

#endif
