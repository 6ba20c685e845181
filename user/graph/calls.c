// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Call tracker. Each CPU has BG_MAX_DEPTH frames; an event at depth d
 * ends whatever is open at depths above d, as the builder's own per-CPU
 * state does. A frame also sums the durations of the calls ended one
 * level deeper, which is what self time subtracts. The sum is read
 * before an end event at its depth clears the frame: an orphan exit
 * subtracts the children printed before it, those of an entry it leaves
 * unfinished included.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"

struct calls_cpu {
	/*
	 * No frame at or above top is open or has child_ns: ending what is
	 * open need not look at all BG_MAX_DEPTH frames for every call.
	 */
	uint32_t top;
	struct call_frame d[BG_MAX_DEPTH];
};

struct calls {
	struct calls_opts o;
	struct calls_cpu **cpus; /* by cpu number, NULL until seen */
	uint32_t ncpus;
};

struct calls *calls__new(const struct calls_opts *opts)
{
	struct calls *c;

	if (!opts || !opts->on_call) {
		errno = EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->o = *opts;
	return c;
}

void calls__free(struct calls *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->ncpus; i++)
		free(c->cpus[i]);
	free(c->cpus);
	free(c);
}

static int cpu_get(struct calls *c, uint32_t cpu, struct calls_cpu **out)
{
	*out = NULL;
	if (cpu >= BG_MAX_CPUS)
		return -EINVAL;
	if (cpu >= c->ncpus) {
		uint32_t n = cpu + 1;
		struct calls_cpu **v = realloc(c->cpus, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + c->ncpus, 0, (n - c->ncpus) * sizeof(*v));
		c->cpus = v;
		c->ncpus = n;
	}
	if (!c->cpus[cpu])
		c->cpus[cpu] = calloc(1, sizeof(**c->cpus));
	*out = c->cpus[cpu];
	return *out ? 0 : -ENOMEM;
}

static const char *comm_of(const struct gev *ev)
{
	return ev->comm ? ev->comm : "<...>";
}

/*
 * Frames at depth >= from end: the open ones are reported unfinished,
 * callers first and with their callers still on the stack.
 */
static void end_from(const struct calls *c, struct calls_cpu *cc, uint32_t cpu, uint32_t from)
{
	for (uint32_t d = from; d < cc->top; d++) {
		const struct call_frame *f = &cc->d[d];
		struct call call = { .func = f->func, .cpu = cpu, .pid = f->pid, .depth = d,
				     .comm = f->comm, .ts = f->ts, .unfinished = true,
				     .noret = true, .stack = cc->d, .caller = f->caller,
				     .args = f->nargs ? f->args : NULL, .nargs = f->nargs,
				     .detail = &f->detail };

		if (f->open)
			c->o.on_call(c->o.ctx, &call);
	}
	for (uint32_t d = from; d < cc->top; d++) {
		cc->d[d].open = false;
		cc->d[d].child_ns = 0;
	}
	if (from < cc->top)
		cc->top = from;
}

static void push(struct calls *c, struct calls_cpu *cc, const struct gev *ev)
{
	struct call_frame *f;
	const char *comm = comm_of(ev);
	size_t len = strnlen(comm, sizeof(f->comm) - 1);

	end_from(c, cc, ev->cpu, ev->depth);
	f = &cc->d[ev->depth];
	f->open = true;
	f->func = ev->func;
	f->pid = ev->pid;
	f->ts = ev->ts;
	f->caller = ev->caller;
	f->nargs = ev->nargs;
	/* Only what the entry carried: most carry neither (a copy per record). */
	if (ev->nargs)
		memcpy(f->args, ev->args, sizeof(f->args));
	if (ev->detail.n)
		f->detail = ev->detail;
	else
		f->detail.n = 0;
	memcpy(f->comm, comm, len);
	f->comm[len] = '\0';
	cc->top = ev->depth + 1;
}

/* The call an end event reports, before the stack has its say. */
static struct call end_call(const struct gev *ev)
{
	bool exit = ev->type == GEV_EXIT;

	return (struct call){ .func = ev->func, .cpu = ev->cpu, .pid = ev->pid,
			      .depth = ev->depth, .comm = comm_of(ev),
			      .ts = exit ? ev->ts - ev->dur : ev->ts,
			      .end = exit ? ev->ts : ev->ts + ev->dur,
			      .dur = ev->dur, .self = ev->dur, .ret = ev->ret,
			      .orphan = exit && ev->tail, .noret = ev->noret,
			      .caller = exit ? 0 : ev->caller,
			      .args = !exit && ev->nargs ? ev->args : NULL,
			      .nargs = exit ? 0 : ev->nargs,
			      .detail = exit ? NULL : &ev->detail };
}

static void pop(struct calls *c, struct calls_cpu *cc, const struct gev *ev, struct call *call)
{
	uint32_t d = ev->depth;
	struct call_frame *f = &cc->d[d];

	if (ev->type == GEV_EXIT)
		call->self = ev->dur > f->child_ns ? ev->dur - f->child_ns : 0;
	end_from(c, cc, ev->cpu, d + 1);
	/* the same test as the builder's "} / * func * /" */
	if (ev->type == GEV_LEAF || call->orphan) {
		end_from(c, cc, ev->cpu, d);
	} else {
		if (f->open) {
			call->ts = f->ts;
			call->caller = f->caller;
			call->args = f->nargs ? f->args : NULL;
			call->nargs = f->nargs;
			call->detail = &f->detail;
		}
		f->open = false;
		f->child_ns = 0;
		if (cc->top > d)
			cc->top = d;
	}
	if (d > 0) {
		cc->d[d - 1].child_ns += ev->dur;
		if (cc->top < d)
			cc->top = d;
	}
	call->stack = cc->d;
}

static void feed_enter(struct calls *c, struct calls_cpu *cc, const struct gev *ev)
{
	struct call call = { .func = ev->func, .cpu = ev->cpu, .pid = ev->pid,
			     .depth = ev->depth, .comm = comm_of(ev), .ts = ev->ts,
			     .unfinished = true, .noret = true, .caller = ev->caller,
			     .args = ev->nargs ? ev->args : NULL, .nargs = ev->nargs,
			     .detail = &ev->detail };

	if (cc && ev->depth < BG_MAX_DEPTH) {
		push(c, cc, ev);
		call.stack = cc->d;
	}
	if (c->o.on_enter)
		c->o.on_enter(c->o.ctx, &call);
}

int calls__feed(struct calls *c, const struct gev *ev)
{
	struct calls_cpu *cc;
	struct call call;
	int err;

	if (ev->type != GEV_ENTER && ev->type != GEV_LEAF && ev->type != GEV_EXIT)
		return 0;
	err = cpu_get(c, ev->cpu, &cc);
	if (ev->type == GEV_ENTER) {
		feed_enter(c, cc, ev);
		return err;
	}
	call = end_call(ev);
	if (cc && ev->depth < BG_MAX_DEPTH)
		pop(c, cc, ev, &call);
	c->o.on_call(c->o.ctx, &call);
	return err;
}

void calls__flush(struct calls *c)
{
	for (uint32_t i = 0; i < c->ncpus; i++)
		if (c->cpus[i])
			end_from(c, c->cpus[i], i, 0);
}
