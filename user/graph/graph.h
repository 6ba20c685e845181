/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The graph builder: raw records (live or replayed) in, finished graph
 * events out, in the order and with the pairing function_graph's printer
 * uses: per-CPU queues merged by timestamp, leaf folding by looking at the
 * next record of the same CPU, per-CPU enter_funcs[] for "} / * f * /",
 * context-switch banners per CPU.
 */
#ifndef BG_GRAPH_H
#define BG_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpfgraph.h"
#include "detail_vals.h"
#include "functab.h"
#include "sink.h"

enum gev_type {
	GEV_ENTER, /* "func() {" */
	GEV_LEAF, /* "func();" with dur and ret */
	GEV_EXIT, /* "}" with dur and ret; tail=true: "} / * func * /" */
	GEV_BANNER, /* context switch on cpu: prev_pid => pid */
	GEV_LOST, /* "CPU:n [LOST count EVENTS]" (count 0 = unknown) */
};

struct gev {
	enum gev_type type;
	uint32_t cpu;
	uint32_t pid;
	uint32_t prev_pid; /* GEV_BANNER */
	uint32_t func; /* functab index */
	uint32_t depth;
	uint64_t ts; /* ns; entry ts for ENTER/LEAF, return ts for EXIT */
	uint64_t dur; /* ns, LEAF/EXIT */
	uint64_t ret; /* raw return register, LEAF/EXIT */
	uint64_t count; /* GEV_LOST */
	/* ENTER/LEAF: the return address into the caller, 0 if unknown */
	uint64_t caller;
	/*
	 * ENTER/LEAF: the argument registers recorded with the entry
	 * (BG_REC_ARGS, funcgraph-args): nargs of them, 0 when none were.
	 */
	uint64_t args[BG_ARGS_REGS];
	uint8_t nargs;
	/* ENTER/LEAF: what --args-detail read (BG_REC_DETAIL), detail.n 0 if nothing */
	struct detail_vals detail;
	/*
	 * ENTER/LEAF read from function_graph text (report -i): what the
	 * line had between its parentheses and after its "<-", printed again
	 * as they were instead of args/caller ("" when the line had none);
	 * NULL otherwise. Valid during emit only, like comm.
	 */
	const char *args_text;
	const char *retaddr_text;
	bool tail; /* GEV_EXIT: entry not seen on this cpu at this depth */
	bool noret; /* LEAF/EXIT: no value: its exit was missed (BG_RF_NOEXIT) or had none (BG_RF_NOVAL) */
	/*
	 * graph__comm() of pid and (GEV_BANNER) prev_pid, filled by the
	 * builder so that writers need no handle on it; valid during emit.
	 */
	const char *comm;
	const char *prev_comm;
};

/* A consumer of graph events (the text writer, JSON, ...). */
struct gsink {
	void (*emit)(void *ctx, const struct gev *ev);
	void *ctx;
};

struct graph_opts {
	const struct functab *funcs;
	struct gsink sink;
	/*
	 * Records are held per CPU and released in timestamp order once no
	 * CPU can still deliver an older one: graph__drain() releases what is
	 * older than its argument, graph__flush() everything.
	 */
};

struct graph;

struct graph *graph__new(const struct graph_opts *opts);
void graph__free(struct graph *g);
/*
 * Queue one record (copied). BG_REC_COMM records update the comm table at
 * once and BG_REC_SWITCH records are ignored: neither is queued, so neither
 * breaks a leaf. BG_REC_ARGS and BG_REC_DETAIL records go with the ENTRY right before them
 * on their CPU (dropped when there is none) and break no leaf either. Returns 0, -EINVAL (bad type, cpu >= BG_MAX_CPUS), -ENOMEM.
 */
int graph__feed(struct graph *g, const struct bg_rec *rec);
/*
 * Emit events for records with ts < upto, in time order across CPUs.
 * An entry whose CPU has no record after it yet (the leaf check looks
 * there) waits, and with it everything later on every CPU, until that
 * record comes or the entry is 200 ms older than upto; then it prints as
 * "{" (the task went on on another CPU, say).
 */
void graph__drain(struct graph *g, uint64_t upto);
/* Emit everything; entries still waiting for a look-ahead print as "{". */
void graph__flush(struct graph *g);
/*
 * comm last seen for pid ("<...>" when unknown, "<idle>" for pid 0).
 * Valid until the next graph__feed().
 */
const char *graph__comm(const struct graph *g, uint32_t pid);
/*
 * Note lost records on cpu: a GEV_LOST is emitted just before the next
 * event of that cpu (at graph__flush() if none comes). Counts add up until
 * then; 0 = unknown count. Returns 0, -EINVAL or -ENOMEM.
 */
int graph__lost(struct graph *g, uint32_t cpu, uint64_t count);
/* Records (and lost markers) held in the per-CPU queues. */
size_t graph__queued(const struct graph *g);
/* A rec_sink feeding g: graph__feed(), graph__drain(), graph__flush(). */
struct rec_sink graph__sink(struct graph *g);

#endif
