// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The ftrace net's graphs under way (ftgraphs.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ftgraphs.h"

/* Open calls a task's depth is counted from; deeper ones keep the kernel's depth. */
#define FTG_STACK 128
/* Records held before a graph's entry (early below); past this, none is coming. */
#define FTG_EARLY_MAX 512
/* The entry follows such records at once, on their CPU: 10 ms leaves room for emulation. */
#define FTG_EARLY_NS 10000000ULL

struct ftg_task {
	uint32_t pid;
	bool held;
	bool pause; /* held, begun in bpfgraph's stop of the command (ftg_ops.is_pause): left out */
	bool foreign; /* begun in no entry function (ftg_ops.foreign): left out */
	/*
	 * No graph under way yet, rec holding records of an interrupt taken
	 * before the graph's entry was written (early_take()).
	 */
	bool early;
	bool skipping; /* inside a call of the tracer's own path, entered at skip_depth */
	uint8_t skip_depth;
	struct bg_rec *rec;
	size_t n, cap;
	/* The calls open in the records taken, innermost last (restack()). */
	uint32_t sp;
	uint32_t stack[FTG_STACK];
};

void ftg__init(struct ftgraphs *g, const struct ftg_ops *ops)
{
	memset(g, 0, sizeof(*g));
	g->ops = *ops;
}

static struct ftg_task *task_of(struct ftgraphs *g, uint32_t pid)
{
	for (size_t i = 0; i < g->ntask; i++)
		if (g->task[i].pid == pid)
			return &g->task[i];
	return NULL;
}

static void task_drop(struct ftgraphs *g, struct ftg_task *t)
{
	if (!t->early)
		g->open--;
	free(t->rec);
	*t = g->task[--g->ntask];
}

static struct ftg_task *task_new(struct ftgraphs *g, uint32_t pid)
{
	struct ftg_task *t;

	if (g->ntask == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 4;
		struct ftg_task *a = realloc(g->task, cap * sizeof(*a));

		if (!a)
			return NULL;
		g->task = a;
		g->cap = cap;
	}
	t = &g->task[g->ntask++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->held = g->first_over;
	g->open++;
	return t;
}

/* r kept in t's records. */
static int keep(struct ftg_task *t, const struct bg_rec *r)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct bg_rec *a = realloc(t->rec, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		t->rec = a;
		t->cap = cap;
	}
	t->rec[t->n++] = *r;
	return 0;
}

/* The session's, or t's until its graph is over. */
static int put(struct ftgraphs *g, struct ftg_task *t, const struct bg_rec *r)
{
	if (t && t->foreign)
		return 0;
	if (!t || !t->held)
		return g->ops.pass(g->ops.ctx, r);
	return keep(t, r);
}

/*
 * function_graph marks a task inside a graph (ftrace_graph_addr()) before
 * it writes the entry function's event, with interrupts still on: an
 * interrupt taken in between records its calls first, at depth 1 and up
 * with nothing open (seen on 6.1: irq_enter_rcu() the trace's first
 * line). They are held until the entry comes, then drawn inside it, as
 * an interrupt later in the call would be; the call itself began before
 * them (its exit's duration is the kernel's, from the call's start).
 * Records that no entry follows go on as the kernel recorded them.
 */
static int early_take(struct ftgraphs *g, struct ftg_task **tp, const struct bg_rec *r)
{
	struct ftg_task *t = *tp;

	if (!t && !(t = task_new(g, r->pid)))
		return -ENOMEM;
	*tp = t;
	/* No graph under way: the command's stop does not wait for its entry. */
	if (!t->early)
		g->open--;
	t->early = true;
	t->held = false;
	return keep(t, r);
}

/* An early task's records as they were recorded; the task goes. */
static int early_flush(struct ftgraphs *g, struct ftg_task *t)
{
	int err = 0;

	for (size_t i = 0; i < t->n && !err; i++)
		err = g->ops.pass(g->ops.ctx, &t->rec[i]);
	task_drop(g, t);
	return err;
}

/* Whether t's early records are the interrupt before entry r: same CPU, just before it. */
static bool early_before(const struct ftg_task *t, const struct bg_rec *r)
{
	const struct bg_rec *last = &t->rec[t->n - 1];

	return last->cpu == r->cpu && r->ts >= last->ts && r->ts - last->ts <= FTG_EARLY_NS;
}

/*
 * A graph's start: the task's graph under way (one whose end never came
 * goes); the records taken before its entry (early_take()) to *early,
 * the caller's to free.
 */
static int graph_start(struct ftgraphs *g, const struct bg_rec *r, struct ftg_task **tp,
		       struct bg_rec **early, size_t *nearly)
{
	struct ftg_task *t = task_of(g, r->pid);
	struct bg_rec c;

	if (t && t->early && !early_before(t, r)) {
		int err = early_flush(g, t);

		if (err)
			return err;
		t = NULL;
	}
	if (t && t->early) {
		*early = t->rec;
		*nearly = t->n;
		t->rec = NULL;
		task_drop(g, t);
	} else if (t) {
		g->cut += t->held;
		task_drop(g, t);
	}
	t = task_new(g, r->pid);
	if (!t)
		return -ENOMEM;
	*tp = t;
	t->pause = t->held && g->ops.is_pause && g->ops.is_pause(g->ops.ctx, r);
	t->foreign = g->ops.foreign && g->ops.foreign(g->ops.ctx, r);
	if (t->foreign)
		return 0;
	return g->ops.comm(g->ops.ctx, r, &c) == 1 ? put(g, t, &c) : 0;
}

/* A graph's end (its top-level exit): a held one goes to the session whole. */
static int graph_end(struct ftgraphs *g, struct ftg_task *t, const struct bg_rec *end)
{
	bool first;
	int err = 0;

	if (t->foreign) {
		g->foreign++;
		task_drop(g, t);
		return 0;
	}
	if (t->pause) {
		g->paused++;
		task_drop(g, t);
		return 0;
	}
	for (size_t i = 0; t->held && i < t->n && !err; i++)
		err = g->ops.pass(g->ops.ctx, &t->rec[i]);
	task_drop(g, t);
	/* Asked once a graph: is_first may count the ends. */
	first = !g->first_over && (!g->ops.is_first || g->ops.is_first(g->ops.ctx, end));
	if (!first)
		return err;
	g->first_over = true;
	if (g->ops.first_end)
		g->ops.first_end(g->ops.ctx);
	return err;
}

/* Whether r lies in a call of the tracer's own path (left out), t's state kept. */
static bool skipped(struct ftg_task *t, const struct bg_rec *r, bool own, bool entry)
{
	if (t && t->skipping) {
		if (r->depth > t->skip_depth)
			return true;
		t->skipping = false;
		/* Its exit; else a record after it, its exit missing. */
		if (!entry && r->depth == t->skip_depth)
			return true;
	}
	if (!own || !r->depth)
		return false;
	if (t && entry) {
		t->skipping = true;
		t->skip_depth = r->depth;
	}
	return true;
}

/*
 * function_graph pops a call's return before it records the call's exit:
 * an interrupt in between records its calls at the returning call's
 * depth, beside it, while the call's exit comes after them. The depth is
 * counted from the calls open in the records instead, so that the
 * interrupt's calls nest inside the call still open there (the kernel's
 * own text draws them at its depth, out of nesting).
 */
static void restack(struct ftg_task *t, struct bg_rec *r, bool entry)
{
	uint32_t i;

	if (entry) {
		if (t->sp < FTG_STACK) {
			r->depth = (uint8_t)t->sp;
			t->stack[t->sp] = r->func;
		}
		t->sp++;
		return;
	}
	if (t->sp > FTG_STACK) {
		t->sp--;
		return;
	}
	for (i = t->sp; i > 0 && t->stack[i - 1] != r->func; i--)
		;
	/* No open call of its function: as the kernel recorded it. */
	if (!i)
		return;
	t->sp = i - 1;
	r->depth = (uint8_t)t->sp;
}

/* The graph's entry r, then the records taken before it, nested inside it. */
static int start_with_early(struct ftgraphs *g, struct ftg_task *t, const struct bg_rec *r,
			    const struct bg_rec *early, size_t n)
{
	struct bg_rec c = *r;
	int err;

	if (n && early[0].ts < c.ts)
		c.ts = early[0].ts;
	restack(t, &c, true);
	err = put(g, t, &c);
	for (size_t i = 0; i < n && !err; i++) {
		c = early[i];
		restack(t, &c, bg_rec_type(&c) == BG_REC_ENTRY);
		err = put(g, t, &c);
	}
	return err;
}

int ftg__take(struct ftgraphs *g, const struct bg_rec *r, bool own)
{
	bool top = !r->depth, entry = bg_rec_type(r) == BG_REC_ENTRY;
	struct bg_rec c, *early = NULL;
	struct ftg_task *t;
	size_t nearly = 0;
	int err;

	if (top && entry) {
		/* (A call at depth 0 is never the tracer's own path's: skipped() passes it.) */
		err = graph_start(g, r, &t, &early, &nearly);
		if (!err)
			err = start_with_early(g, t, r, early, nearly);
		free(early);
		return err;
	}
	t = task_of(g, r->pid);
	if (!t && g->lost) {
		/* What is left of a graph whose start was dropped. */
		g->fragments++;
		return 0;
	}
	if (t && t->early && (top || t->n >= FTG_EARLY_MAX)) {
		if ((err = early_flush(g, t)))
			return err;
		t = NULL;
	}
	if (skipped(t, r, own, entry)) {
		g->own++;
		return 0;
	}
	if (!top && (!t || t->early))
		return early_take(g, &t, r);
	c = *r;
	if (t)
		restack(t, &c, entry);
	if ((err = put(g, t, &c)))
		return err;
	return t && top && !entry ? graph_end(g, t, &c) : 0;
}

void ftg__lost(struct ftgraphs *g, uint64_t count)
{
	if (!g->first_over)
		g->lost_first += count;
	g->lost = true;
	while (g->ntask) {
		g->cut += g->task[0].held;
		if (g->task[0].early)
			g->fragments += g->task[0].n;
		task_drop(g, &g->task[0]);
	}
}

void ftg__close(struct ftgraphs *g)
{
	while (g->ntask) {
		if (g->task[0].early) {
			/* No entry came: as recorded (the session has the last word). */
			(void)early_flush(g, &g->task[0]);
			continue;
		}
		g->cut += g->task[0].held;
		task_drop(g, &g->task[0]);
	}
}

void ftg__free(struct ftgraphs *g)
{
	/* Nothing goes to the session any more (ftg__close() passed what it would). */
	while (g->ntask)
		task_drop(g, &g->task[0]);
	free(g->task);
	g->task = NULL;
	g->cap = 0;
}
