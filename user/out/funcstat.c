// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Per-function sums: one slot per function table index, grown as
 * indexes come (the table grows while tracing and while text is read),
 * filled from the call tracker's calls. Which --hist pattern a function
 * matches is decided once, at its first call.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "grow.h"
#include "funcstat.h"

struct fs_slot {
	struct funcstat_row r;
	/* 0: not decided yet, -1: no histogram, k + 1: hists[k] */
	int32_t hist;
};

struct funcstat {
	struct funcstat_opts o;
	struct calls *calls;
	struct fs_slot *slot; /* by function index */
	size_t nslot;
	struct funcstat_hist *hists;
	size_t nhists, cap_hists;
	bool *seen; /* by --hist pattern: a function matched it */
	struct funcstat_totals t;
	struct funcstat_row *rows; /* sorted, after funcstat__finish() */
	size_t nrows;
	bool nomem, done;
	char name_buf[32];
};

static void on_call(void *ctx, const struct call *c);

struct funcstat *funcstat__new(const struct funcstat_opts *opts)
{
	struct funcstat *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (opts)
		s->o = *opts;
	if (s->o.nr_hist) {
		s->seen = calloc(s->o.nr_hist, sizeof(*s->seen));
		if (!s->seen)
			goto nomem;
	}
	s->calls = calls__new(&(struct calls_opts){ .on_call = on_call, .ctx = s });
	if (s->calls)
		return s;
nomem:
	funcstat__free(s);
	errno = ENOMEM;
	return NULL;
}

void funcstat__free(struct funcstat *s)
{
	if (!s)
		return;
	calls__free(s->calls);
	free(s->slot);
	free(s->hists);
	free(s->seen);
	free(s->rows);
	free(s);
}

static struct fs_slot *slot_get(struct funcstat *s, uint32_t func)
{
	size_t was = s->nslot;
	struct fs_slot *v = grow_zeroed(s->slot, &s->nslot, sizeof(*v), func, 256);

	if (!v)
		return NULL;
	for (size_t i = was; i < s->nslot; i++)
		v[i].r.func = (uint32_t)i;
	s->slot = v;
	return &v[func];
}

unsigned int funcstat__bucket(uint64_t ns)
{
	return ns < 2 ? 0 : 63 - (unsigned int)__builtin_clzll(ns);
}

static void add_time(uint64_t *calls, uint64_t *total, uint64_t *min, uint64_t *max,
		     uint64_t dur)
{
	if (!*calls || dur < *min)
		*min = dur;
	if (!*calls || dur > *max)
		*max = dur;
	*total += dur;
	(*calls)++;
}

/* The first --hist pattern that matches func's name, or -1. */
static int match_pattern(const struct funcstat *s, uint32_t func)
{
	const struct functab *ft = s->o.funcs;

	if (!ft || func >= ft->n || !ft->f[func].name)
		return -1;
	for (size_t i = 0; i < s->o.nr_hist; i++)
		if (!fnmatch(s->o.hist[i], ft->f[func].name, 0))
			return (int)i;
	return -1;
}

/* func's histogram, made at its first call; NULL if it has none. */
static struct funcstat_hist *hist_of(struct funcstat *s, struct fs_slot *sl, uint32_t func)
{
	int p;

	if (!sl->hist) {
		p = match_pattern(s, func);
		sl->hist = -1;
		if (p < 0)
			return NULL;
		if (s->nhists == s->cap_hists) {
			size_t cap = s->cap_hists ? 2 * s->cap_hists : 8;
			struct funcstat_hist *v = realloc(s->hists, cap * sizeof(*v));

			if (!v) {
				s->nomem = true;
				return NULL;
			}
			s->hists = v;
			s->cap_hists = cap;
		}
		s->hists[s->nhists] = (struct funcstat_hist){ .func = func, .pattern = (size_t)p };
		sl->hist = (int32_t)++s->nhists;
		s->seen[p] = true;
	}
	return sl->hist > 0 ? &s->hists[sl->hist - 1] : NULL;
}

static void on_call(void *ctx, const struct call *c)
{
	struct funcstat *s = ctx;
	struct funcstat_hist *h;
	struct fs_slot *sl;

	/* the text reader's "}" of a function it never saw enter */
	if (c->func == UINT32_MAX) {
		s->t.unknown++;
		return;
	}
	sl = slot_get(s, c->func);
	if (!sl) {
		s->nomem = true;
		return;
	}
	h = s->o.nr_hist ? hist_of(s, sl, c->func) : NULL;
	if (c->unfinished) {
		sl->r.unfinished++;
		if (h)
			h->unfinished++;
		return;
	}
	add_time(&sl->r.calls, &sl->r.total_ns, &sl->r.min_ns, &sl->r.max_ns, c->dur);
	sl->r.self_ns += c->self;
	if (!c->stack)
		s->t.self_whole++;
	if (h) {
		add_time(&h->calls, &h->total_ns, &h->min_ns, &h->max_ns, c->dur);
		h->bucket[funcstat__bucket(c->dur)]++;
	}
}

void funcstat__emit(void *ctx, const struct gev *ev)
{
	struct funcstat *s = ctx;

	if (s->done)
		return;
	if (ev->type == GEV_LOST) {
		s->t.lost += ev->count;
		s->t.lost_unknown += !ev->count;
		return;
	}
	/* -EINVAL: a CPU beyond the stacks, whose calls still come (stack NULL) */
	if (calls__feed(s->calls, ev) == -ENOMEM)
		s->nomem = true;
}

const char *funcstat__name(const struct funcstat *s, uint32_t func)
{
	const struct functab *ft = s->o.funcs;

	if (ft && func < ft->n && ft->f[func].display)
		return ft->f[func].display;
	if (ft && func < ft->n && ft->f[func].name)
		return ft->f[func].name;
	snprintf((char *)s->name_buf, sizeof(s->name_buf), "func#%u", func);
	return s->name_buf;
}

/* Total descending, then calls descending, then name: a stable table. */
static int cmp_row(const void *a, const void *b, void *ctx)
{
	const struct funcstat_row *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	if (x->unfinished != y->unfinished)
		return x->unfinished > y->unfinished ? -1 : 1;
	return strcmp(funcstat__name(ctx, x->func), funcstat__name(ctx, y->func)) ?:
		       (x->func > y->func) - (x->func < y->func);
}

static int cmp_hist(const void *a, const void *b, void *ctx)
{
	const struct funcstat_hist *x = a, *y = b;

	if (x->pattern != y->pattern)
		return x->pattern < y->pattern ? -1 : 1;
	return strcmp(funcstat__name(ctx, x->func), funcstat__name(ctx, y->func)) ?:
		       (x->func > y->func) - (x->func < y->func);
}

int funcstat__finish(struct funcstat *s)
{
	size_t n = 0;

	if (!s->done) {
		calls__flush(s->calls);
		s->done = true;
		for (size_t i = 0; i < s->nslot; i++)
			n += s->slot[i].r.calls || s->slot[i].r.unfinished;
		s->rows = calloc(n ? n : 1, sizeof(*s->rows));
		if (!s->rows)
			s->nomem = true;
		for (size_t i = 0; s->rows && i < s->nslot; i++) {
			const struct funcstat_row *r = &s->slot[i].r;

			if (!r->calls && !r->unfinished)
				continue;
			s->rows[s->nrows++] = *r;
			s->t.calls += r->calls;
			s->t.unfinished += r->unfinished;
		}
		if (s->nrows)
			qsort_r(s->rows, s->nrows, sizeof(*s->rows), cmp_row, s);
		if (s->nhists)
			qsort_r(s->hists, s->nhists, sizeof(*s->hists), cmp_hist, s);
	}
	return s->nomem ? -ENOMEM : 0;
}

bool funcstat__nomem(const struct funcstat *s)
{
	return s->nomem;
}

const struct funcstat_row *funcstat__rows(const struct funcstat *s, size_t *n)
{
	*n = s->nrows;
	return s->rows;
}

const struct funcstat_hist *funcstat__hists(const struct funcstat *s, size_t *n)
{
	*n = s->nhists;
	return s->hists;
}

const struct funcstat_totals *funcstat__totals(const struct funcstat *s)
{
	return &s->t;
}

bool funcstat__pattern_seen(const struct funcstat *s, size_t pattern)
{
	return pattern < s->o.nr_hist && s->seen[pattern];
}
