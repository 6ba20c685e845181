// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "discover.h"

/* Tasks followed at once; the table is wiped when full (stacks refill). */
#define TASKS_CAP 4096

struct task_stack {
	uint32_t pid; /* 0: free slot (pid 0 is stored as UINT32_MAX) */
	uint32_t func[BG_MAX_DEPTH];
};

struct discover {
	struct functab *funcs;
	const struct ksyms *ks;
	struct task_stack *tasks;
	size_t ntasks;
	/* The task of the last entry: records come in runs of one task. */
	struct task_stack *last;
	const struct ksym **seen; /* callers already reported */
	size_t nseen, capseen;
	struct discover_stats st;
};

struct discover *discover__new(struct functab *funcs, const struct ksyms *ks)
{
	struct discover *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->tasks = calloc(TASKS_CAP, sizeof(*d->tasks));
	if (!d->tasks) {
		free(d);
		return NULL;
	}
	d->funcs = funcs;
	d->ks = ks;
	return d;
}

void discover__free(struct discover *d)
{
	if (!d)
		return;
	free(d->tasks);
	free(d->seen);
	free(d);
}

static struct task_stack *task_of(struct discover *d, uint32_t pid)
{
	uint32_t key = pid ? pid : UINT32_MAX;
	size_t i = (key * 2654435761u) & (TASKS_CAP - 1);

	/* A slot holding key is key's, whatever happened to the table since. */
	if (d->last && d->last->pid == key)
		return d->last;
	for (size_t n = 0; n < TASKS_CAP; n++, i = (i + 1) & (TASKS_CAP - 1)) {
		if (d->tasks[i].pid == key)
			return d->last = &d->tasks[i];
		if (!d->tasks[i].pid)
			break;
	}
	if (d->ntasks * 4 >= TASKS_CAP * 3) {
		memset(d->tasks, 0, TASKS_CAP * sizeof(*d->tasks));
		d->ntasks = 0;
		i = (key * 2654435761u) & (TASKS_CAP - 1);
	}
	while (d->tasks[i].pid)
		i = (i + 1) & (TASKS_CAP - 1);
	d->tasks[i].pid = key;
	memset(d->tasks[i].func, 0xff, sizeof(d->tasks[i].func));
	d->ntasks++;
	return d->last = &d->tasks[i];
}

static int remember(struct discover *d, const struct ksym *s)
{
	for (size_t i = 0; i < d->nseen; i++)
		if (d->seen[i] == s)
			return 0;
	if (d->nseen == d->capseen) {
		size_t cap = d->capseen ? d->capseen * 2 : 64;
		const struct ksym **n = realloc(d->seen, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		d->seen = n;
		d->capseen = cap;
	}
	d->seen[d->nseen++] = s;
	return 1;
}

/* ret is a return address into f: a call made by f. */
static bool in_func(const struct bg_func *f, uint64_t ret)
{
	return ret > f->addr && ret <= f->addr + f->size;
}

int discover__feed(struct discover *d, const struct bg_rec *r, const struct ksym **caller,
		   int want)
{
	struct task_stack *t;
	const struct bg_func *parent;
	const struct ksym *s;
	uint32_t pf;

	if (bg_rec_type(r) != BG_REC_ENTRY || r->depth >= BG_MAX_DEPTH)
		return 0;
	t = task_of(d, r->pid);
	t->func[r->depth] = r->func;
	if (!r->depth || !r->val)
		return 0;
	pf = t->func[r->depth - 1];
	if (pf >= d->funcs->n)
		return 0;
	d->st.checked++;
	parent = &d->funcs->f[pf];
	if (in_func(parent, r->val)) {
		d->st.direct++;
		return 0;
	}
	s = ksyms__find_addr(d->ks, r->val);
	if (!s) {
		d->st.unknown++;
		return 0;
	}
	d->st.between++;
	if (!want || remember(d, s) <= 0)
		return 0;
	*caller = s;
	return 1;
}

/* Some function of the table made the call that returns to ret. */
static bool traced_at(const struct functab *t, uint64_t ret)
{
	for (size_t i = 0; i < t->n; i++)
		if (in_func(&t->f[i], ret))
			return true;
	return false;
}

size_t discover__stack(struct discover *d, const struct bg_rec *hdr, const uint64_t *ip,
		       size_t n, const struct ksym **out, size_t max)
{
	const struct ksym *found[BG_STACK_READ];
	size_t i = 0, k = 0, nf = 0;
	bool ended = false;

	if (bg_rec_type(hdr) != BG_REC_STACK)
		return 0;
	if (n > BG_STACK_READ)
		n = BG_STACK_READ;
	d->st.stacks++;
	/* Our program and trampoline frames, then the untraced caller. */
	while (i < n && ip[i] != hdr->val)
		i++;
	/*
	 * Above it, untraced functions up to the first traced one: the
	 * parent (hdr->func), or another when the parent left the stack by
	 * a tail call (its trampoline is the caller then); what lies above
	 * the graph is not ours to attach.
	 */
	for (i++; i < n; i++) {
		const struct ksym *s;

		if (traced_at(d->funcs, ip[i])) {
			ended = true;
			break;
		}
		s = ksyms__find_addr(d->ks, ip[i]);
		if (!s) {
			d->st.unknown++;
			return 0; /* not kernel text: the walk went astray */
		}
		found[nf++] = s;
	}
	/* The stack's bottom without a traced function: not between two. */
	if (!ended && n < BG_STACK_READ)
		return 0;
	d->st.stacked += nf;
	for (i = 0; i < nf && k < max; i++)
		if (remember(d, found[i]) > 0)
			out[k++] = found[i];
	return k;
}

int discover__expand(struct discover *d, const struct bg_rec *r)
{
	struct bg_func *f;

	if ((bg_rec_type(r) != BG_REC_ENTRY && bg_rec_type(r) != BG_REC_LEAF) ||
	    r->func >= d->funcs->n)
		return -1;
	f = &d->funcs->f[r->func];
	if (f->flags & (BG_FN_EXPANDED | BG_FN_NOTRACE))
		return -1;
	f->flags |= BG_FN_EXPANDED;
	return (int)r->func;
}

const struct discover_stats *discover__stats(const struct discover *d)
{
	return &d->st;
}
