// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpfgraph diff: the calls of each pair of invocations, once aligned,
 * sorted out: matched, moved to another parent, only in A, only in B;
 * and the durations per function.
 */
#include <errno.h>
#include <stdlib.h>

#include "diff_int.h"

/* --- differences ----------------------------------------------------------- */

static int list_add(struct diff *d, struct list *l, struct item it)
{
	l->total++;
	if (l->n >= d->o.max_lines)
		return 0;
	if (!(l->n & (l->n - 1)) || !l->n) {
		struct item *nv = realloc(l->v, (l->n ? l->n * 2 : 4) * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		l->v = nv;
	}
	l->v[l->n++] = it;
	return 0;
}

/* Line on the other side of the closest aligned call before each one. */
static void near_lines(const struct inv *v, const uint32_t *m, const struct side *other,
		       const struct inv *ov, uint32_t *near)
{
	uint32_t last = ov->n ? other->node[ov->nodes[0]].line : 0;

	for (size_t i = 0; i < v->n; i++) {
		if (m[i] != NONE)
			last = other->node[ov->nodes[m[i]]].line;
		near[i] = last;
	}
}

/* Is the parent of A's call i aligned with the parent of B's call j? */
static bool same_parent(const struct diff *d, const struct inv *a, size_t i,
			const struct inv *b, size_t j, const uint32_t *ma)
{
	uint32_t pa = d->s[DIFF_A].node[a->nodes[i]].parent;
	uint32_t pb = d->s[DIFF_B].node[b->nodes[j]].parent;

	if (pa == NONE || pb == NONE)
		return pa == pb;
	return ma[d->s[DIFF_A].node[pa].pos] == d->s[DIFF_B].node[pb].pos;
}

/* A call of B left out of the alignment: gap = aligned calls before it. */
struct leftover {
	uint32_t gap, name, pos;
	bool used;
};

static int cmp_leftover(const void *x, const void *y)
{
	const struct leftover *a = x, *b = y;

	if (a->gap != b->gap)
		return a->gap < b->gap ? -1 : 1;
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* B's unaligned calls, sorted by gap, name and position. */
static struct leftover *b_leftovers(const struct diff *d, const struct inv *b,
				    const uint32_t *mb, size_t *n)
{
	struct leftover *v = malloc((b->n ? b->n : 1) * sizeof(*v));
	uint32_t gap = 0;

	*n = 0;
	if (!v)
		return NULL;
	for (size_t j = 0; j < b->n; j++) {
		if (mb[j] != NONE) {
			gap++;
			continue;
		}
		v[(*n)++] = (struct leftover){ .gap = gap, .pos = (uint32_t)j,
					       .name = d->s[DIFF_B].node[b->nodes[j]].name };
	}
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_leftover);
	return v;
}

/* The first unused call of B named name in the same gap, or NULL. */
static struct leftover *same_gap(struct leftover *v, size_t n, uint32_t gap, uint32_t name)
{
	struct leftover key = { .gap = gap, .name = name };
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cmp_leftover(&v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && v[lo].gap == gap && v[lo].name == name; lo++)
		if (!v[lo].used)
			return &v[lo];
	return NULL;
}

static int cmp_by_name(const void *x, const void *y)
{
	const struct leftover *a = *(struct leftover *const *)x, *b = *(struct leftover *const *)y;

	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* The first unused call of B named name anywhere (a reordered call). */
static struct leftover *anywhere(struct leftover **v, size_t n, uint32_t name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid]->name < name)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && v[lo]->name == name; lo++)
		if (!v[lo]->used)
			return v[lo];
	return NULL;
}

/*
 * The partner in B of each unaligned call of A, NONE if none: first an
 * unaligned call of the same name between the same two aligned calls,
 * then one anywhere in the invocation.
 */
static int find_partners(const struct diff *d, const struct inv *a, const uint32_t *ma,
			 struct leftover *lo, size_t nl, uint32_t *partner)
{
	struct leftover **byname = malloc((nl ? nl : 1) * sizeof(*byname)), *t;
	uint32_t gap = 0;

	if (!byname)
		return -ENOMEM;
	for (size_t k = 0; k < nl; k++)
		byname[k] = &lo[k];
	if (nl)
		qsort(byname, nl, sizeof(*byname), cmp_by_name);

	for (size_t i = 0; i < a->n; i++) {
		partner[i] = NONE;
		if (ma[i] != NONE) {
			gap++;
			continue;
		}
		t = same_gap(lo, nl, gap, d->s[DIFF_A].node[a->nodes[i]].name);
		if (t) {
			t->used = true;
			partner[i] = t->pos;
		}
	}
	for (size_t i = 0; i < a->n; i++) {
		if (ma[i] != NONE || partner[i] != NONE)
			continue;
		t = anywhere(byname, nl, d->s[DIFF_A].node[a->nodes[i]].name);
		if (t) {
			t->used = true;
			partner[i] = t->pos;
		}
	}
	free(byname);
	return 0;
}

/*
 * In line order: an aligned call whose parent is not aligned with its
 * counterpart's parent moved, an unaligned one with a partner moved, the
 * other unaligned ones are only in A; B's calls left are only in B.
 */
static int classify(struct diff *d, const struct inv *a, const struct inv *b,
		    const uint32_t *ma, const uint32_t *mb, const uint32_t *near_a,
		    const uint32_t *near_b)
{
	size_t nl;
	struct leftover *lo = b_leftovers(d, b, mb, &nl);
	uint32_t *partner = malloc((a->n ? a->n : 1) * sizeof(*partner));
	bool *moved_b = calloc(b->n ? b->n : 1, sizeof(*moved_b));
	int err = !lo || !partner || !moved_b ? -ENOMEM : 0;

	if (!err)
		err = find_partners(d, a, ma, lo, nl, partner);
	for (size_t i = 0; !err && i < a->n; i++) {
		struct item it = { .a = a->nodes[i], .b = NONE, .near = near_a[i] };

		if (ma[i] != NONE) {
			d->st.matched++;
			if (same_parent(d, a, i, b, ma[i], ma))
				continue;
			it.b = b->nodes[ma[i]];
		} else if (partner[i] != NONE) {
			moved_b[partner[i]] = true;
			it.b = b->nodes[partner[i]];
		}
		if (it.b != NONE) {
			d->st.moved++;
			err = list_add(d, &d->moved, it);
		} else {
			d->st.only[DIFF_A]++;
			err = list_add(d, &d->only[DIFF_A], it);
		}
	}
	for (size_t j = 0; !err && j < b->n; j++) {
		if (mb[j] != NONE || moved_b[j])
			continue;
		d->st.only[DIFF_B]++;
		err = list_add(d, &d->only[DIFF_B],
			       (struct item){ .a = NONE, .b = b->nodes[j], .near = near_b[j] });
	}
	free(lo);
	free(partner);
	free(moved_b);
	return err;
}

int diff_compare_pair(struct diff *d, const struct inv *a, const struct inv *b)
{
	size_t n = a->n ? a->n : 1, m = b->n ? b->n : 1;
	uint32_t *ma = malloc(n * sizeof(*ma)), *mb = malloc(m * sizeof(*mb));
	uint32_t *na = malloc(n * sizeof(*na)), *nb = malloc(m * sizeof(*nb));
	int err = !ma || !mb || !na || !nb ? -ENOMEM : 0;

	if (!err)
		err = diff_align(a, b, ma, mb);
	if (!err) {
		near_lines(a, ma, &d->s[DIFF_B], b, na);
		near_lines(b, mb, &d->s[DIFF_A], a, nb);
		err = classify(d, a, b, ma, mb, na, nb);
	}
	free(ma);
	free(mb);
	free(na);
	free(nb);
	return err;
}

/* An invocation without a counterpart: all its calls are only on its side. */
int diff_unpaired(struct diff *d, int side, const struct inv *v)
{
	struct item it = { .a = NONE, .b = NONE, .calls = (uint32_t)v->n };

	if (side == DIFF_A)
		it.a = v->root;
	else
		it.b = v->root;
	d->st.only[side] += v->n;
	return list_add(d, &d->only[side], it);
}

int diff_durations(struct diff *d)
{
	d->dur = calloc(d->names.n ? d->names.n : 1, sizeof(*d->dur));
	if (!d->dur)
		return -ENOMEM;
	for (int s = 0; s < 2; s++) {
		const struct side *sd = &d->s[s];

		for (size_t i = 0; i < sd->ninvs; i++) {
			for (size_t k = 0; k < sd->inv[i].n; k++) {
				const struct dnode *n = &sd->node[sd->inv[i].nodes[k]];

				if (!n->has_dur)
					continue;
				d->dur[n->name].total[s] += n->dur;
				d->dur[n->name].count[s]++;
			}
		}
	}
	return 0;
}

double diff_mean(const struct dstat *s, int side)
{
	return (double)s->total[side] / (double)s->count[side];
}

bool diff_dur_changed(const struct diff *d, const struct dstat *s)
{
	double ma = diff_mean(s, DIFF_A), mb = diff_mean(s, DIFF_B);

	if (ma <= 0 || mb <= 0)
		return ma != mb;
	return mb >= ma * d->o.ratio || ma >= mb * d->o.ratio;
}
