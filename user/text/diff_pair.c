// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpfgraph diff: each side cut into the invocations compared (the calls
 * under one depth-0 call, in the order they were made), and invocations
 * of the same root paired, A with the B that shares most call lines.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diff_int.h"

/* Invocation pairs scored exactly per root before only nearby ones are. */
#define ALL_PAIRS_MAX 65536

/* --- invocations ----------------------------------------------------------- */

static uint32_t sym_of(const struct dnode *n)
{
	uint32_t depth = n->depth < 255 ? n->depth : 255;

	return n->name << SYM_DEPTH_BITS | depth;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorted syms with their positions: match masks and upper bounds. */
static int index_inv(struct inv *v)
{
	uint64_t *t = malloc((v->n ? v->n : 1) * sizeof(*t));

	v->bsym = malloc((v->n ? v->n : 1) * sizeof(*v->bsym));
	v->bpos = malloc((v->n ? v->n : 1) * sizeof(*v->bpos));
	if (!t || !v->bsym || !v->bpos) {
		free(t);
		return -ENOMEM;
	}
	for (size_t i = 0; i < v->n; i++)
		t[i] = (uint64_t)v->sym[i] << 32 | i;
	qsort(t, v->n, sizeof(*t), cmp_u64);
	for (size_t i = 0; i < v->n; i++) {
		v->bsym[i] = (uint32_t)(t[i] >> 32);
		v->bpos[i] = (uint32_t)t[i];
	}
	free(t);
	return 0;
}

/*
 * Calls in the order they were made: parents before children, siblings
 * in line order. That is line order for ordinary traces; tracing_thresh
 * prints children first. Calls whose parent is unknown keep their place
 * after the tree.
 */
static void reverse(uint32_t *v, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		uint32_t t = v[i];

		v[i] = v[n - 1 - i];
		v[n - 1 - i] = t;
	}
}

/* children[]: first child and next sibling, by position in v. */
static void link_children(const struct side *sd, const struct inv *v, uint32_t *first,
			  uint32_t *next)
{
	uint32_t *last = next + v->n; /* scratch: last child so far */

	for (size_t i = 0; i < v->n; i++)
		first[i] = next[i] = last[i] = NONE;
	for (size_t i = 0; i < v->n; i++) {
		const struct dnode *n = &sd->node[v->nodes[i]];
		uint32_t pp;

		if (n->parent == NONE || sd->node[n->parent].inv != n->inv)
			continue;
		pp = sd->node[n->parent].pos;
		if (last[pp] == NONE)
			first[pp] = (uint32_t)i;
		else
			next[last[pp]] = (uint32_t)i;
		last[pp] = (uint32_t)i;
	}
}

static int preorder(struct side *sd, struct inv *v)
{
	size_t n = v->n ? v->n : 1, k = 0, sp = 0;
	uint32_t *first = malloc(n * sizeof(*first)), *next = malloc(2 * n * sizeof(*next));
	uint32_t *stack = malloc(n * sizeof(*stack)), *order = malloc(n * sizeof(*order));
	bool *done = calloc(n, sizeof(*done));
	int err = first && next && stack && order && done ? 0 : -ENOMEM;

	if (!err && v->n) {
		link_children(sd, v, first, next);
		stack[sp++] = sd->node[v->root].pos;
	}
	while (sp) {
		uint32_t i = stack[--sp];
		size_t base = sp;

		order[k++] = i;
		done[i] = true;
		for (uint32_t c = first[i]; c != NONE; c = next[c])
			stack[sp++] = c;
		reverse(stack + base, sp - base);
	}
	for (size_t i = 0; !err && i < v->n; i++)
		if (!done[i])
			order[k++] = (uint32_t)i;
	for (size_t i = 0; !err && i < v->n; i++)
		stack[i] = v->nodes[order[i]];
	for (size_t i = 0; !err && i < v->n; i++) {
		v->nodes[i] = stack[i];
		sd->node[stack[i]].pos = (uint32_t)i;
		v->sym[i] = sym_of(&sd->node[stack[i]]);
	}
	free(first);
	free(next);
	free(stack);
	free(order);
	free(done);
	return err;
}

/* The invocations whose root is compared; map[id] = index or NONE. */
static int select_invs(struct diff *d, struct side *sd, uint32_t *map)
{
	size_t k = 0;

	sd->inv = calloc(sd->ninv ? sd->ninv : 1, sizeof(*sd->inv));
	if (!sd->inv)
		return -ENOMEM;
	for (size_t i = 0; i < sd->ninv; i++) {
		uint32_t root = sd->inv_root[i];

		map[i] = NONE;
		if (sd->node[root].dropped || !(d->names.flags[sd->node[root].name] & NM_ROOT))
			continue;
		sd->inv[k] = (struct inv){ .id = (uint32_t)i, .root = root, .pair = NONE,
					   .root_name = sd->node[root].name };
		map[i] = (uint32_t)k++;
	}
	/*
	 * The window [lo, hi): --skip-last leaves the end out (a call cut
	 * short when tracing stopped, or the warm calls after the ones
	 * wanted), --last keeps the steady state before it (warm-up left out).
	 */
	size_t hi = k > d->o.skip_last ? k - d->o.skip_last : 0;
	size_t lo = d->o.last && hi > d->o.last ? hi - d->o.last : 0;

	if (lo || hi < k) {
		for (size_t i = 0; i < sd->ninv; i++) {
			if (map[i] == NONE)
				continue;
			map[i] = map[i] < lo || map[i] >= hi ? NONE : (uint32_t)(map[i] - lo);
		}
		memmove(sd->inv, sd->inv + lo, (hi - lo) * sizeof(*sd->inv));
	}
	sd->ninvs = hi - lo;
	return 0;
}

static int inv_append(struct side *sd, struct inv *v, uint32_t node)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		uint32_t *nn = realloc(v->nodes, cap * sizeof(*nn));
		uint32_t *ns = nn ? realloc(v->sym, cap * sizeof(*ns)) : NULL;

		if (nn)
			v->nodes = nn;
		if (!ns)
			return -ENOMEM;
		v->sym = ns;
		v->cap = cap;
	}
	sd->node[node].pos = (uint32_t)v->n;
	v->nodes[v->n] = node;
	v->sym[v->n++] = sym_of(&sd->node[node]);
	return 0;
}

/* The invocations to compare, with their call lines in call order. */
int diff_collect_invs(struct diff *d, struct side *sd, size_t side)
{
	uint32_t *map = malloc((sd->ninv ? sd->ninv : 1) * sizeof(*map));
	int err = map ? select_invs(d, sd, map) : -ENOMEM;

	for (size_t i = 0; !err && i < sd->n; i++) {
		const struct dnode *n = &sd->node[i];

		if (n->dropped)
			continue;
		if (n->inv == NONE)
			d->st.outside[side]++;
		else if (map[n->inv] != NONE)
			err = inv_append(sd, &sd->inv[map[n->inv]], (uint32_t)i);
	}
	free(map);
	for (size_t i = 0; !err && i < sd->ninvs; i++) {
		err = preorder(sd, &sd->inv[i]);
		if (!err)
			err = index_inv(&sd->inv[i]);
		d->st.calls[side] += sd->inv[i].n;
	}
	d->st.invocations[side] = sd->ninvs;
	return err;
}

/* --- pairing ----------------------------------------------------------------- */

struct cand {
	uint32_t a, b; /* indexes into the sides' inv arrays */
	uint32_t key; /* LCS length, or an upper bound of it */
	uint32_t dist; /* how far apart in their order */
	bool exact;
};

/* a before b in the heap: higher key, exact, nearer, earlier. */
static bool cand_before(const struct cand *x, const struct cand *y)
{
	if (x->key != y->key)
		return x->key > y->key;
	if (x->exact != y->exact)
		return x->exact;
	if (x->dist != y->dist)
		return x->dist < y->dist;
	if (x->a != y->a)
		return x->a < y->a;
	return x->b < y->b;
}

static void heap_down(struct cand *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct cand t;

		if (l < n && cand_before(&h[l], &h[m]))
			m = l;
		if (r < n && cand_before(&h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Lazy greedy: an upper bound on top is replaced by the exact score. */
static int pair_group(struct diff *d, const uint32_t *ai, size_t na, const uint32_t *bi,
		      size_t nb, uint64_t *V, uint64_t *M)
{
	struct side *A = &d->s[DIFF_A], *B = &d->s[DIFF_B];
	size_t w = na * nb <= ALL_PAIRS_MAX ? nb : ALL_PAIRS_MAX / na + 8, n = 0;
	struct cand *h = malloc((na * (2 * w + 1) < na * nb ? na * (2 * w + 1) : na * nb) *
				sizeof(*h) + sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < na; i++) {
		size_t c = i * nb / na, lo = c > w ? c - w : 0, hi = c + w + 1 < nb ? c + w + 1 : nb;

		if (w == nb)
			lo = 0, hi = nb;
		for (size_t j = lo; j < hi; j++) {
			uint64_t di = i * nb > j * na ? i * nb - j * na : j * na - i * nb;
			size_t ub = diff_lcs_bound(&A->inv[ai[i]], &B->inv[bi[j]]);

			h[n++] = (struct cand){ .a = ai[i], .b = bi[j], .key = (uint32_t)ub,
						.dist = di > UINT32_MAX ? UINT32_MAX : (uint32_t)di,
						.exact = ub == 0 };
		}
	}
	for (size_t i = n / 2; i-- > 0;)
		heap_down(h, n, i);
	while (n) {
		struct cand *t = &h[0];
		struct inv *a = &A->inv[t->a], *b = &B->inv[t->b];

		if (a->pair != NONE || b->pair != NONE) {
			h[0] = h[--n];
		} else if (!t->exact) {
			t->key = (uint32_t)diff_lcs_len(a, b, V, M);
			t->exact = true;
		} else {
			a->pair = t->b;
			b->pair = t->a;
			d->st.paired++;
			h[0] = h[--n];
		}
		heap_down(h, n, 0);
	}
	free(h);
	return 0;
}

static int cmp_inv_root(const void *x, const void *y, void *arg)
{
	const struct inv *v = arg;
	const struct inv *a = &v[*(const uint32_t *)x], *b = &v[*(const uint32_t *)y];

	if (a->root_name != b->root_name)
		return a->root_name < b->root_name ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* Indexes of a side's invocations, by root name then order. */
static uint32_t *by_root(struct side *sd)
{
	uint32_t *ix = malloc((sd->ninvs ? sd->ninvs : 1) * sizeof(*ix));
	uint32_t k = 0;

	if (!ix)
		return NULL;
	for (size_t i = 0; i < sd->ninvs; i++)
		ix[i] = (uint32_t)i;
	qsort_r(ix, sd->ninvs, sizeof(*ix), cmp_inv_root, sd->inv);
	/* ordinal: the how-manieth invocation of its root */
	for (size_t i = 0; i < sd->ninvs; i++) {
		if (i && sd->inv[ix[i]].root_name != sd->inv[ix[i - 1]].root_name)
			k = 0;
		sd->inv[ix[i]].ordinal = ++k;
	}
	return ix;
}

static size_t max_calls(const struct side *sd)
{
	size_t m = 1;

	for (size_t i = 0; i < sd->ninvs; i++)
		if (sd->inv[i].n > m)
			m = sd->inv[i].n;
	return m;
}

int diff_pair_all(struct diff *d)
{
	struct side *A = &d->s[DIFF_A], *B = &d->s[DIFF_B];
	uint32_t *ia = by_root(A), *ib = by_root(B);
	size_t words = (max_calls(B) + 63) / 64, i = 0, j = 0;
	uint64_t *V = calloc(words, sizeof(*V)), *M = calloc(words, sizeof(*M));
	int err = !ia || !ib || !V || !M ? -ENOMEM : 0;

	while (!err && i < A->ninvs && j < B->ninvs) {
		uint32_t ra = A->inv[ia[i]].root_name, rb = B->inv[ib[j]].root_name;
		size_t ei = i, ej = j;

		if (ra != rb) {
			ra < rb ? i++ : j++;
			continue;
		}
		while (ei < A->ninvs && A->inv[ia[ei]].root_name == ra)
			ei++;
		while (ej < B->ninvs && B->inv[ib[ej]].root_name == rb)
			ej++;
		err = pair_group(d, ia + i, ei - i, ib + j, ej - j, V, M);
		i = ei;
		j = ej;
	}
	free(ia);
	free(ib);
	free(V);
	free(M);
	return err;
}
