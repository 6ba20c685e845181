/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The ftrace net's graphs under way, task by task (live_ftnet.c): which
 * records go to the session as they are read and which wait for their
 * graph's end.
 *
 * Graphs begun before the first graph's end was read go on at once: the
 * first traced call, those of other threads under way with it, and those
 * that ended before it without being the first (is_first below: the
 * calls the command's exec made). Graphs begun later are held until
 * their end: the command is stopped only once
 * the first end is read, and one that goes on calling can fill
 * function_graph's buffers meanwhile; a graph some of whose events the
 * kernel dropped is left out whole (a page's missed-events mark does not
 * say whose), not drawn with holes, and none then waits for an end that
 * may be gone. Depths are counted from the calls open in a task's records,
 * which puts an interrupt's calls that function_graph recorded beside a
 * call, or before its graph's entry, inside it (ftgraphs.c).
 */
#ifndef BPFGRAPH_FTGRAPHS_H
#define BPFGRAPH_FTGRAPHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpfgraph.h"

struct ftg_ops {
	/* A record for the session: 0 or -errno. */
	int (*pass)(void *ctx, const struct bg_rec *r);
	/* The task's BG_REC_COMM record for a graph's start into out: 1, or 0: none. */
	int (*comm)(void *ctx, const struct bg_rec *entry, struct bg_rec *out);
	/*
	 * Whether the graph ending at end (its top-level exit) is the first
	 * call: else it goes to the session as before it, and the first is
	 * still to come (NULL: the first to end).
	 */
	bool (*is_first)(void *ctx, const struct bg_rec *end);
	/* The first graph's end was taken (may be NULL). */
	void (*first_end)(void *ctx);
	/*
	 * Whether the graph beginning with entry is bpfgraph's stop of the
	 * command (the SIGSTOP's sending and delivery): left out, counted in
	 * paused (may be NULL). Asked of graphs held until their end only.
	 */
	bool (*is_pause)(void *ctx, const struct bg_rec *entry);
	/*
	 * Whether the graph beginning with entry is none of the entry
	 * functions' (function_graph draws the rest of what a task does once
	 * switched back in inside a call begun before it started): left out
	 * whole, counted in foreign (may be NULL).
	 */
	bool (*foreign)(void *ctx, const struct bg_rec *entry);
	void *ctx;
};

struct ftg_task;

struct ftgraphs {
	struct ftg_ops ops;
	struct ftg_task *task;
	size_t ntask, cap;
	unsigned int open; /* graphs under way, whole so far */
	bool first_over; /* the first graph's end was taken */
	bool lost; /* the kernel dropped events */
	uint64_t lost_first; /* events dropped before the first end */
	uint64_t cut; /* held graphs left out: events of theirs may be gone */
	uint64_t fragments; /* records of no graph under way after a drop, left out */
	uint64_t own; /* records of kprobes' dispatch, left out */
	uint64_t paused; /* graphs of bpfgraph's stop of the command, left out */
	uint64_t foreign; /* graphs of no entry function (ftg_ops.foreign), left out */
};

void ftg__init(struct ftgraphs *g, const struct ftg_ops *ops);
/*
 * One record, its function table index in place: to the session, or
 * held. own: its function is kprobes' dispatch (a kprobe's handler
 * drawn inside the graph): left out with all it calls. 0 or
 * -errno (pass's own, or no memory).
 */
int ftg__take(struct ftgraphs *g, const struct bg_rec *r, bool own);
/* The kernel dropped count events before what comes next. */
void ftg__lost(struct ftgraphs *g, uint64_t count);
/*
 * The net is over: held graphs not ended are counted in cut and
 * forgotten; records waiting for their graph's entry go on as recorded.
 */
void ftg__close(struct ftgraphs *g);
/* Memory back; what is still under way is forgotten (ftg__close() first). */
void ftg__free(struct ftgraphs *g);

#endif
