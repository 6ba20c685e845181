/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Calls out of graph events, for the writers that report calls rather
 * than lines (JSON, Chrome, folded and through it SVG): one per-CPU stack
 * of open calls, indexed by depth like the graph builder's enter_funcs[],
 * gives each call its callers, its entry time and its self time.
 *
 * A call is reported when it ends (leaf, exit) or when it is known never
 * to end: an entry is left unfinished by the next event of its CPU at its
 * depth or above, and by calls__flush(). An exit whose entry was not seen
 * (the builder's "} / * func * /") is an orphan. Lost-record markers and
 * context-switch banners do not touch the stacks. (diff, which reads any
 * kernel's text, pairs by name instead: see diff_tree.c.)
 */
#ifndef BG_CALLS_H
#define BG_CALLS_H

#include <stdbool.h>
#include <stdint.h>

#include "bpfgraph.h"
#include "graph.h"

/* One depth of a CPU's stack. */
struct call_frame {
	bool open; /* an entry at this depth whose end has not come */
	uint32_t func, pid;
	uint64_t ts; /* entry time */
	/*
	 * Durations of the calls ended one level deeper since an event at
	 * this depth or above last cleared the frame.
	 */
	uint64_t child_ns;
	char comm[BG_COMM_LEN + 1];
	/* the entry's return address and argument registers (struct gev) */
	uint64_t caller;
	uint64_t args[BG_ARGS_REGS];
	uint8_t nargs;
	struct detail_vals detail; /* --args-detail's reads */
};

struct call {
	uint32_t func, cpu, pid, depth;
	const char *comm; /* "<...>" when the event had none */
	uint64_t ts; /* entry time (return time - dur for an orphan) */
	/* return time (exit event's ts, leaf's ts + dur); 0 when unfinished */
	uint64_t end;
	uint64_t dur; /* 0 when unfinished */
	/* dur minus the children that ended on the stack; dur for a leaf */
	uint64_t self;
	uint64_t ret; /* raw return register unless noret */
	bool orphan; /* exit whose entry was not seen */
	bool unfinished; /* entry whose exit never came: no end, dur, self */
	bool noret; /* no return value: exit missed (BG_RF_NOEXIT) or unfinished */
	/* the entry's return address (0: unknown) and argument registers */
	uint64_t caller;
	const uint64_t *args; /* nargs of them; NULL when the entry had none */
	uint8_t nargs;
	const struct detail_vals *detail; /* with args: --args-detail's reads, or NULL */
	/*
	 * The callers, root first: stack[i] for i < depth. A frame that is
	 * not open is a caller whose entry was not seen (or left unfinished).
	 * NULL when the CPU or the depth is beyond what the stacks hold.
	 * Valid during the callback.
	 */
	const struct call_frame *stack;
};

typedef void (*calls_fn)(void *ctx, const struct call *c);

struct calls_opts {
	calls_fn on_call; /* each call once it ended or never will */
	/* optional: each call as it enters, end fields absent as if unfinished */
	calls_fn on_enter;
	void *ctx;
};

struct calls;

struct calls *calls__new(const struct calls_opts *opts);
void calls__free(struct calls *c);
/*
 * One graph event; the callbacks run before it returns. A leaf or exit
 * (and to on_enter an entry) is reported even when its CPU has no stack,
 * then with stack NULL, and the return says why: -EINVAL for cpu >=
 * BG_MAX_CPUS, -ENOMEM if the stack could not be allocated. 0 otherwise,
 * and for the events that are no calls (banner, lost).
 */
int calls__feed(struct calls *c, const struct gev *ev);
/* Reports the calls still open as unfinished, CPU by CPU, callers first. */
void calls__flush(struct calls *c);

/* The frame of the caller, NULL at depth 0 or without a stack. */
static inline const struct call_frame *call__parent(const struct call *c)
{
	return c->stack && c->depth ? &c->stack[c->depth - 1] : NULL;
}

#endif
