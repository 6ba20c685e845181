// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Folded stacks. The call tracker gives each completed call its callers
 * and its self time (duration minus that of its completed children).
 * Missing callers (exits whose entry was not seen) show as "[unknown]",
 * the word flame graph tools use. The writer only sorts and prints what
 * struct folded summed; out_svg lays the same sums out.
 *
 * What the stacks cannot show is left out and counted (folded__stats):
 *  - calls deeper than BG_MAX_DEPTH levels, whose callers the tracker
 *    does not hold; their time stays in the self time of the deepest
 *    caller it holds, so that the total is still right;
 *  - calls whose exit never came. Those cut off by a later event at
 *    their depth have their time in their caller's self time already.
 *    Those still open when the trace ends are left out too for now,
 *    although a flame graph of a trace stopped mid-call should show
 *    them, weighing the time until the last event seen (the tracker
 *    gives enough: their entry time, their finished children's time and
 *    their open child): that changes the golden flame graphs of
 *    tests/golden/formats/orphans.*, a change of its own.
 * Calls on CPUs beyond the tracker's stacks (cpu >= BG_MAX_CPUS, which
 * it reports without callers) are root frames weighing their duration:
 * their children, unknown, are not taken off.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "out_folded.h"

struct folded {
	struct folded_opts o;
	struct calls *calls;
	struct folded_stack *tab; /* open addressing, cap a power of two */
	size_t n, cap;
	struct folded_stats st;
	/* entries on CPUs beyond the tracker's stacks not yet closed */
	uint64_t rootless_open;
	bool nomem;
	bool frozen; /* the table was handed out by folded__stacks() */
	char name_buf[32];
};

static void add_call(void *ctx, const struct call *c);

struct folded *folded__new(const struct folded_opts *opts)
{
	struct folded *w;

	if (!opts || !opts->out) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->o = *opts;
	w->calls = calls__new(&(struct calls_opts){ .on_call = add_call, .ctx = w });
	if (!w->calls) {
		free(w);
		return NULL;
	}
	return w;
}

void folded__free(struct folded *w)
{
	if (!w)
		return;
	calls__free(w->calls);
	for (size_t i = 0; i < w->cap; i++)
		free(w->tab[i].key);
	free(w->tab);
	free(w);
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int tab_grow(struct folded *w)
{
	size_t cap = w->cap ? w->cap * 2 : 256;
	struct folded_stack *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < w->cap; i++) {
		size_t k;

		if (!w->tab[i].key)
			continue;
		for (k = hash_str(w->tab[i].key) & (cap - 1); t[k].key; k = (k + 1) & (cap - 1))
			;
		t[k] = w->tab[i];
	}
	free(w->tab);
	w->tab = t;
	w->cap = cap;
	return 0;
}

static void tab_add(struct folded *w, const char *key, uint64_t weight)
{
	size_t k;

	if (!weight)
		return;
	if ((w->n + 1) * 2 > w->cap && tab_grow(w)) {
		w->nomem = true;
		return;
	}
	for (k = hash_str(key) & (w->cap - 1); w->tab[k].key; k = (k + 1) & (w->cap - 1)) {
		if (!strcmp(w->tab[k].key, key)) {
			w->tab[k].weight += weight;
			return;
		}
	}
	w->tab[k].key = strdup(key);
	if (!w->tab[k].key) {
		w->nomem = true;
		return;
	}
	w->tab[k].weight = weight;
	w->n++;
}

static const char *name_of(struct folded *w, uint32_t func)
{
	if (w->o.funcs && func < w->o.funcs->n && w->o.funcs->f[func].display)
		return w->o.funcs->f[func].display;
	/* the text reader's "}" of a function it never saw enter */
	if (func == UINT32_MAX)
		return FOLDED_UNKNOWN;
	snprintf(w->name_buf, sizeof(w->name_buf), "func#%u", func);
	return w->name_buf;
}

/*
 * "caller;...;func" for a call that ended on a stack, "func" for one on
 * a CPU the tracker has no stack for.
 */
static void add_call(void *ctx, const struct call *c)
{
	struct folded *w = ctx;
	uint32_t depth = c->stack ? c->depth : 0;
	char *key = NULL;
	size_t len = 0;
	FILE *m;

	if (c->unfinished) {
		w->st.unfinished++;
		return;
	}
	/* no stack on a CPU it has: too deep (counted by folded__emit) or no memory */
	if (!c->stack && c->cpu < BG_MAX_CPUS)
		return;
	if (!c->stack)
		w->st.rootless++;
	m = open_memstream(&key, &len);
	if (!m) {
		w->nomem = true;
		return;
	}
	for (uint32_t i = 0; i < depth; i++)
		fprintf(m, "%s;", c->stack[i].open ? name_of(w, c->stack[i].func) : FOLDED_UNKNOWN);
	fputs(name_of(w, c->func), m);
	if (fclose(m))
		w->nomem = true;
	else
		tab_add(w, key, w->o.count ? 1 : c->self);
	free(key);
}

/*
 * What the tracker does not report is counted from the events: each call
 * starts with an entry, a leaf or (entry not seen) a tail exit.
 */
static void count_untracked(struct folded *w, const struct gev *ev)
{
	bool start = ev->type == GEV_ENTER || ev->type == GEV_LEAF ||
		     (ev->type == GEV_EXIT && ev->tail);

	if (ev->cpu < BG_MAX_CPUS) {
		if (ev->depth >= BG_MAX_DEPTH && start)
			w->st.deep++;
		return;
	}
	/* no stacks there: an exit that is no tail closes one entry of its CPU */
	if (ev->type == GEV_ENTER)
		w->rootless_open++;
	else if (ev->type == GEV_EXIT && !ev->tail && w->rootless_open)
		w->rootless_open--;
}

void folded__emit(void *ctx, const struct gev *ev)
{
	struct folded *w = ctx;

	if (w->frozen)
		return;
	count_untracked(w, ev);
	/* -EINVAL: a CPU without stacks, whose calls come without callers */
	if (calls__feed(w->calls, ev) == -ENOMEM)
		w->nomem = true;
}

int folded__stacks(struct folded *w, struct folded_stack **v, size_t *n)
{
	size_t k = 0;

	if (!w->frozen) {
		/* the calls still open are counted as unfinished */
		calls__flush(w->calls);
		w->st.unfinished += w->rootless_open;
		w->rootless_open = 0;
	}
	/* compact the table to its used slots: no hash table any more */
	for (size_t i = 0; i < w->cap; i++)
		if (w->tab[i].key)
			w->tab[k++] = w->tab[i];
	for (size_t i = k; i < w->cap; i++)
		w->tab[i].key = NULL;
	w->n = k;
	w->frozen = true;
	*v = w->tab;
	*n = k;
	return w->nomem ? -ENOMEM : 0;
}

const struct folded_stats *folded__stats(const struct folded *w)
{
	return &w->st;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct folded_stack *x = a, *y = b;

	return strcmp(x->key, y->key);
}

int out_folded__end(struct folded *w)
{
	struct folded_stack *v;
	size_t n;
	int err = folded__stacks(w, &v, &n);

	/* sorted for stable output */
	if (n)
		qsort(v, n, sizeof(*v), cmp_stack);
	for (size_t i = 0; i < n; i++)
		fprintf(w->o.out, "%s %" PRIu64 "\n", v[i].key, v[i].weight);
	return err;
}

const struct folded_opts *folded__opts(const struct folded *w)
{
	return &w->o;
}
