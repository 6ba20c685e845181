// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpfgraph diff: see diff.h for what is compared. Both sides are built
 * from graph events the same way (diff__feed), so text read by fgtext
 * and, later, record files replayed through the graph builder compare
 * alike.
 *
 * Building trees from events follows function_graph's own pairing: a
 * stack per CPU, switched with the task on context-switch banners; a "}"
 * closes the open call at its depth; closing lines whose entry was never
 * seen (tracing_thresh, a trace that began inside a call) become calls of
 * their own and adopt the orphans printed before them one level deeper.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "diff.h"
#include "fgtext.h"

#define NONE UINT32_MAX
#define SYM_DEPTH_BITS 8
#define MAX_NAMES (1U << (32 - SYM_DEPTH_BITS))
/* DP cells aligned in one go (1 byte each); bigger problems are split. */
#ifndef DP_MAX_CELLS
#define DP_MAX_CELLS (1U << 20)
#endif
/* Invocation pairs scored exactly per root before only nearby ones are. */
#define ALL_PAIRS_MAX 65536

#define NM_IGNORED 0x1
#define NM_ROOT 0x2

/* --- names, shared by both sides ----------------------------------------- */

struct names {
	char **s;
	uint8_t *flags;
	size_t n, cap;
	uint32_t *slot; /* id + 1, open addressing */
	size_t scap;
};

struct dnode {
	uint32_t name, depth, parent, line;
	uint32_t inv; /* invocation id; NONE while pending or outside any */
	uint32_t pos; /* index in its invocation's sequence */
	uint64_t dur;
	bool has_dur, dropped;
};

struct frame {
	uint32_t node; /* NONE for an ignored call */
	uint32_t name, depth;
};

/* Call stack of one CPU (or of a task switched out). */
struct dctx {
	struct frame *st;
	size_t n, cap;
	uint32_t *pend; /* orphan closing lines waiting for their parent */
	size_t npend, pcap;
	uint32_t pid;
	bool pid_known;
};

struct parked {
	uint32_t pid;
	struct dctx ctx;
};

/* One invocation: its call lines in line order. */
struct inv {
	uint32_t id, root, root_name, ordinal;
	uint32_t *nodes;
	uint32_t *sym; /* name << 8 | depth */
	uint32_t *bsym, *bpos; /* syms sorted, with their positions */
	size_t n, cap;
	uint32_t pair; /* index of the paired invocation on the other side */
};

struct side {
	const char *name;
	struct dnode *node;
	size_t n, cap;
	uint32_t *inv_root; /* root node of each invocation id */
	size_t ninv, rcap;
	struct dctx *ctx[BG_MAX_CPUS];
	struct parked *park;
	size_t npark, parkcap;
	struct inv *inv; /* the compared invocations */
	size_t ninvs;
};

/* A difference kept for the lists (at most max_lines of each kind). */
struct item {
	uint32_t a, b; /* node indexes, or NONE */
	uint32_t near; /* line on the other side, 0 = unknown */
	uint32_t calls; /* unpaired invocation: its calls */
};

struct list {
	struct item *v;
	size_t n, total;
};

struct dstat {
	uint64_t total[2];
	uint64_t count[2];
};

struct diff {
	struct diff_opts o;
	struct names names;
	struct side s[2];
	struct list only[2], moved;
	struct dstat *dur; /* per name */
	struct diff_stats st;
};

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 16;
	void *np;

	if (need <= *cap)
		return p;
	while (c < need)
		c *= 2;
	np = realloc(p, c * size);
	if (np)
		*cap = c;
	return np;
}

#define GROW(p, cap, need)                                                                 \
	({                                                                                 \
		void *_np = grow((p), &(cap), (need), sizeof(*(p)));                       \
		if (_np)                                                                   \
			(p) = _np;                                                         \
		_np ? 0 : -ENOMEM;                                                         \
	})

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* A glob against the bare name and the display name "name [mod]". */
static bool glob_match(const char *glob, const char *display)
{
	const char *br = strstr(display, " [");
	char bare[512];

	if (!fnmatch(glob, display, 0))
		return true;
	if (!br || (size_t)(br - display) >= sizeof(bare))
		return false;
	memcpy(bare, display, (size_t)(br - display));
	bare[br - display] = '\0';
	return !fnmatch(glob, bare, 0);
}

static uint8_t name_flags(const struct diff *d, const char *s)
{
	uint8_t f = 0;

	for (size_t i = 0; i < d->o.n_ignore; i++)
		if (glob_match(d->o.ignore[i], s))
			f |= NM_IGNORED;
	if (!d->o.root || glob_match(d->o.root, s))
		f |= NM_ROOT;
	return f;
}

static int names_rehash(struct names *t)
{
	size_t cap = t->scap ? t->scap * 2 : 1024;
	uint32_t *slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t h = hash(t->s[i]) & (cap - 1);

		while (slot[h])
			h = (h + 1) & (cap - 1);
		slot[h] = (uint32_t)i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->scap = cap;
	return 0;
}

/* Id of name s; ENOMEM or too many names give -errno. */
static int64_t name_id(struct diff *d, const char *s)
{
	struct names *t = &d->names;
	size_t h;
	char *c;

	if (t->n * 2 >= t->scap && names_rehash(t))
		return -ENOMEM;
	for (h = hash(s) & (t->scap - 1); t->slot[h]; h = (h + 1) & (t->scap - 1))
		if (!strcmp(t->s[t->slot[h] - 1], s))
			return t->slot[h] - 1;
	if (t->n >= MAX_NAMES)
		return -E2BIG;
	if (GROW(t->s, t->cap, t->n + 1))
		return -ENOMEM;
	t->flags = realloc(t->flags, t->cap);
	c = strdup(s);
	if (!t->flags || !c) {
		free(c);
		return -ENOMEM;
	}
	t->s[t->n] = c;
	t->flags[t->n] = name_flags(d, s);
	t->slot[h] = (uint32_t)t->n + 1;
	return (int64_t)t->n++;
}

/* --- building trees from events ------------------------------------------ */

static struct dctx *ctx_of(struct side *sd, uint32_t cpu)
{
	if (cpu >= BG_MAX_CPUS)
		cpu = BG_MAX_CPUS - 1;
	if (!sd->ctx[cpu])
		sd->ctx[cpu] = calloc(1, sizeof(struct dctx));
	return sd->ctx[cpu];
}

static void ctx_free(struct dctx *c)
{
	free(c->st);
	free(c->pend);
}

/*
 * The task on this CPU changed: park the stack of the one that left and
 * bring back the one of the task that comes (it may have migrated).
 */
static int switch_task(struct side *sd, struct dctx *c, uint32_t pid)
{
	struct dctx in = { .pid = pid, .pid_known = true };

	for (size_t i = 0; i < sd->npark; i++) {
		if (sd->park[i].pid != pid)
			continue;
		in = sd->park[i].ctx;
		sd->park[i] = sd->park[--sd->npark];
		break;
	}
	if (c->pid_known && (c->n || c->npend)) {
		if (GROW(sd->park, sd->parkcap, sd->npark + 1)) {
			ctx_free(&in);
			return -ENOMEM;
		}
		sd->park[sd->npark++] = (struct parked){ .pid = c->pid, .ctx = *c };
	} else {
		ctx_free(c);
	}
	*c = in;
	return 0;
}

static int new_node(struct side *sd, uint32_t name, uint32_t depth, uint32_t parent,
		    uint32_t line)
{
	struct dnode *n;

	if (sd->n >= NONE - 1 || GROW(sd->node, sd->cap, sd->n + 1))
		return -ENOMEM;
	n = &sd->node[sd->n];
	*n = (struct dnode){ .name = name, .depth = depth, .parent = parent, .line = line,
			     .inv = parent == NONE ? NONE : sd->node[parent].inv };
	sd->n++;
	return 0;
}

/* A new invocation rooted at node. */
static int new_inv(struct side *sd, uint32_t node)
{
	if (GROW(sd->inv_root, sd->rcap, sd->ninv + 1))
		return -ENOMEM;
	sd->inv_root[sd->ninv] = node;
	sd->node[node].inv = (uint32_t)sd->ninv++;
	return 0;
}

static int push(struct dctx *c, uint32_t node, uint32_t name, uint32_t depth)
{
	if (GROW(c->st, c->cap, c->n + 1))
		return -ENOMEM;
	c->st[c->n++] = (struct frame){ .node = node, .name = name, .depth = depth };
	return 0;
}

/* Orphans printed before a depth-0 entry belong to no invocation. */
static void drop_pending(struct dctx *c)
{
	c->npend = 0;
}

/* ENTER or LEAF of name at depth. */
static int enter(struct diff *d, struct side *sd, struct dctx *c, uint32_t name,
		 uint32_t depth, const struct gev *ev, uint32_t line)
{
	struct frame *top;
	uint32_t parent;
	bool ignored;
	int err;

	/* Deeper frames were never closed (lost records, an unclosed "{"). */
	while (c->n && c->st[c->n - 1].depth > depth)
		c->n--;
	/* Same function again at its own depth: the last call never closed. */
	if (c->n && c->st[c->n - 1].depth == depth && c->st[c->n - 1].name == name)
		c->n--;
	top = c->n ? &c->st[c->n - 1] : NULL;
	ignored = (d->names.flags[name] & NM_IGNORED) || (top && top->node == NONE);
	if (ignored)
		return ev->type == GEV_ENTER ? push(c, NONE, name, depth) : 0;
	parent = top ? top->node : NONE;
	err = new_node(sd, name, depth, parent, line);
	if (err)
		return err;
	if (!top && depth == 0) {
		drop_pending(c);
		err = new_inv(sd, (uint32_t)sd->n - 1);
	}
	if (!err && ev->type == GEV_LEAF) {
		sd->node[sd->n - 1].dur = ev->dur;
		sd->node[sd->n - 1].has_dur = true;
	}
	if (!err && ev->type == GEV_ENTER)
		err = push(c, (uint32_t)sd->n - 1, name, depth);
	return err;
}

/* Orphans one level deeper, printed before node, are its children. */
static void adopt(struct side *sd, struct dctx *c, uint32_t node, bool drop)
{
	struct dnode *p = &sd->node[node];

	for (size_t k = c->npend; k-- > 0;) {
		struct dnode *o = &sd->node[c->pend[k]];

		if (o->depth <= p->depth)
			break;
		if (drop)
			o->dropped = true;
		else if (o->parent == NONE && o->depth == p->depth + 1)
			o->parent = node;
	}
}

/* A closing line whose entry is not open: a call of its own. */
static int orphan_exit(struct diff *d, struct side *sd, struct dctx *c, uint32_t name,
		       const struct gev *ev, uint32_t line)
{
	bool ignored = d->names.flags[name] & NM_IGNORED;
	size_t k = c->n;
	uint32_t node;
	int err;

	while (k && c->st[k - 1].depth >= ev->depth)
		k--;
	if (k) {
		/* an entry below it is open: it is a child of that call */
		if (ignored || c->st[k - 1].node == NONE)
			return 0;
		err = new_node(sd, name, ev->depth, c->st[k - 1].node, line);
		goto set_dur;
	}
	err = new_node(sd, name, ev->depth, NONE, line);
	if (err)
		return err;
	node = (uint32_t)sd->n - 1;
	adopt(sd, c, node, ignored);
	if (ignored) {
		sd->node[node].dropped = true;
	} else if (ev->depth == 0) {
		err = new_inv(sd, node);
		for (size_t i = 0; !err && i < c->npend; i++)
			if (!sd->node[c->pend[i]].dropped)
				sd->node[c->pend[i]].inv = sd->node[node].inv;
		c->npend = 0;
		goto set_dur;
	}
	if (GROW(c->pend, c->pcap, c->npend + 1))
		return -ENOMEM;
	c->pend[c->npend++] = node;
set_dur:
	if (!err && !ignored) {
		sd->node[sd->n - 1].dur = ev->dur;
		sd->node[sd->n - 1].has_dur = true;
	}
	return err;
}

static int leave(struct diff *d, struct side *sd, struct dctx *c, uint32_t name,
		 const struct gev *ev, uint32_t line)
{
	size_t k;

	for (k = c->n; k > 0 && c->st[k - 1].depth >= ev->depth; k--) {
		const struct frame *f = &c->st[k - 1];

		if (f->depth != ev->depth || (name != NONE && f->name != name))
			continue;
		c->n = k - 1;
		if (f->node != NONE) {
			sd->node[f->node].dur = ev->dur;
			sd->node[f->node].has_dur = true;
		}
		return 0;
	}
	/* "}" with neither a name nor an open entry: nothing to attach */
	return name == NONE ? 0 : orphan_exit(d, sd, c, name, ev, line);
}

static int64_t event_name(struct diff *d, const struct gev *ev, const struct functab *ft)
{
	char buf[32];

	if (ev->func == FGTEXT_NOFUNC)
		return NONE;
	if (ev->func < ft->n && ft->f[ev->func].display)
		return name_id(d, ft->f[ev->func].display);
	snprintf(buf, sizeof(buf), "func#%u", ev->func);
	return name_id(d, buf);
}

int diff__feed(struct diff *d, int side, const struct gev *ev, const struct functab *ft,
	       uint32_t line)
{
	struct side *sd = &d->s[side];
	/*
	 * One task (a pid filter): its calls form one stack whatever CPU
	 * they ran on. Per CPU, a task that migrated inside a call would
	 * leave that call open on one CPU and its exits unmatched on the
	 * other (text without a task column cannot tell).
	 */
	struct dctx *c = ctx_of(sd, d->o.one_task ? 0 : ev->cpu);
	int64_t name;
	int err = 0;

	if (!c)
		return -ENOMEM;
	if (d->o.one_task && (ev->type == GEV_BANNER || ev->type == GEV_LOST))
		return 0;
	if (ev->type == GEV_BANNER) {
		/* what ran so far on this CPU was the banner's previous task */
		if (!c->pid_known) {
			c->pid = ev->prev_pid;
			c->pid_known = true;
		}
		return switch_task(sd, c, ev->pid);
	}
	if (ev->type == GEV_LOST)
		return 0;
	/* a task column names the task even without banners */
	if (ev->comm && c->pid_known && c->pid != ev->pid)
		err = switch_task(sd, c, ev->pid);
	if (err)
		return err;
	if (ev->comm && !c->pid_known) {
		c->pid = ev->pid;
		c->pid_known = true;
	}
	name = event_name(d, ev, ft);
	if (name < 0)
		return (int)name;
	if (ev->type == GEV_EXIT)
		return leave(d, sd, c, (uint32_t)name, ev, line);
	if (name == NONE)
		return 0;
	return enter(d, sd, c, (uint32_t)name, ev->depth, ev, line);
}

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
static int collect_invs(struct diff *d, struct side *sd, size_t side)
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

/* --- LCS ----------------------------------------------------------------------- */

/* First index of sym in the sorted syms of v, or v->n. */
static size_t lower_bound(const struct inv *v, uint32_t sym)
{
	size_t lo = 0, hi = v->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v->bsym[mid] < sym)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Size of the multiset intersection: an upper bound of the LCS. */
static size_t lcs_bound(const struct inv *a, const struct inv *b)
{
	size_t i = 0, j = 0, n = 0;

	while (i < a->n && j < b->n) {
		if (a->bsym[i] < b->bsym[j]) {
			i++;
		} else if (a->bsym[i] > b->bsym[j]) {
			j++;
		} else {
			n++;
			i++;
			j++;
		}
	}
	return n;
}

/*
 * LCS length, bit-parallel (Hyyrö 2004): bit j of V is 0 where the LCS
 * of a's prefix grows at b[j]; each row is V = (V + U) | (V - U) with
 * U = V & M, M the positions of a[i] in b. n * m / 64 word operations.
 */
static size_t lcs_len(const struct inv *a, const struct inv *b, uint64_t *V, uint64_t *M)
{
	size_t words = (b->n + 63) / 64, zeros = 0;

	for (size_t w = 0; w < words; w++)
		V[w] = ~0ULL;
	for (size_t i = 0; i < a->n; i++) {
		size_t k = lower_bound(b, a->sym[i]), k0 = k;
		uint64_t carry = 0, borrow = 0;

		if (k == b->n || b->bsym[k] != a->sym[i])
			continue;
		for (; k < b->n && b->bsym[k] == a->sym[i]; k++)
			M[b->bpos[k] / 64] |= 1ULL << (b->bpos[k] % 64);
		for (size_t w = 0; w < words; w++) {
			uint64_t v = V[w], u = v & M[w], s = v + u, t = v - u;
			uint64_t c1 = s < v, b1 = v < u;

			s += carry;
			carry = c1 | (s < carry);
			b1 |= t < borrow;
			t -= borrow;
			borrow = b1;
			V[w] = s | t;
		}
		for (k = k0; k < b->n && b->bsym[k] == a->sym[i]; k++)
			M[b->bpos[k] / 64] = 0;
	}
	for (size_t j = 0; j < b->n; j++)
		zeros += !(V[j / 64] >> (j % 64) & 1);
	return zeros;
}

/* --- alignment ------------------------------------------------------------ */

/* Classic DP with a direction byte per cell; fills ma/mb for matches. */
static int dp_align(const uint32_t *a, size_t n, const uint32_t *b, size_t m, uint32_t *ma,
		    uint32_t *mb, size_t ao, size_t bo)
{
	uint8_t *dir = malloc(n && m ? n * m : 1);
	uint32_t *prev = calloc(m + 1, sizeof(*prev)), *cur = calloc(m + 1, sizeof(*cur));
	size_t i, j;

	if (!dir || !prev || !cur) {
		free(dir);
		free(prev);
		free(cur);
		return -ENOMEM;
	}
	for (i = 1; i <= n; i++) {
		for (j = 1; j <= m; j++) {
			uint8_t *dp = &dir[(i - 1) * m + j - 1];

			if (a[i - 1] == b[j - 1]) {
				cur[j] = prev[j - 1] + 1;
				*dp = 0;
			} else if (prev[j] >= cur[j - 1]) {
				cur[j] = prev[j];
				*dp = 1;
			} else {
				cur[j] = cur[j - 1];
				*dp = 2;
			}
		}
		memcpy(prev, cur, (m + 1) * sizeof(*cur));
	}
	for (i = n, j = m; i && j;) {
		uint8_t dv = dir[(i - 1) * m + j - 1];

		if (dv == 0) {
			ma[ao + i - 1] = (uint32_t)(bo + j - 1);
			mb[bo + j - 1] = (uint32_t)(ao + i - 1);
			i--, j--;
		} else if (dv == 1) {
			i--;
		} else {
			j--;
		}
	}
	free(dir);
	free(prev);
	free(cur);
	return 0;
}

/* Two sequences being aligned and where their matches go. */
struct seqs {
	const uint32_t *a, *b;
	uint32_t *ma, *mb;
};

static void match(const struct seqs *s, size_t i, size_t j)
{
	s->ma[i] = (uint32_t)j;
	s->mb[j] = (uint32_t)i;
}

/* One diagonal step of the forward (rev false) or reverse search. */
static int64_t snake(const struct seqs *s, size_t a0, size_t n, size_t b0, size_t m,
		     int64_t x, int64_t k, bool rev)
{
	int64_t y = x - k;

	while (x < (int64_t)n && y < (int64_t)m &&
	       (rev ? s->a[a0 + n - 1 - x] == s->b[b0 + m - 1 - y] :
		      s->a[a0 + x] == s->b[b0 + y]))
		x++, y++;
	return x;
}

static int64_t furthest(const int64_t *v, int64_t off, int64_t k, int64_t d)
{
	if (k == -d || (k != d && v[off + k - 1] < v[off + k + 1]))
		return v[off + k + 1];
	return v[off + k - 1] + 1;
}

/*
 * Myers' middle snake (An O(ND) Difference Algorithm, 1986, as in
 * diff-match-patch's bisect): searches from both ends at once until the
 * paths meet; the meeting point splits the problem on an optimal path.
 * O((n + m) * D) time, O(n + m) space. Returns false if nothing matches.
 */
static bool bisect(const struct seqs *s, size_t a0, size_t n, size_t b0, size_t m,
		   int64_t *v1, int64_t *v2, size_t *sx, size_t *sy)
{
	int64_t max_d = ((int64_t)n + (int64_t)m + 1) / 2, off = max_d, len = 2 * max_d + 2;
	int64_t delta = (int64_t)n - (int64_t)m, ks[4] = { 0, 0, 0, 0 };
	bool front = delta & 1;

	for (int64_t i = 0; i < len; i++)
		v1[i] = v2[i] = -1;
	v1[off + 1] = v2[off + 1] = 0;
	for (int64_t d = 0; d < max_d; d++) {
		for (int r = 0; r < 2; r++) {
			int64_t *v = r ? v2 : v1, *w = r ? v1 : v2;

			for (int64_t k = -d + ks[2 * r]; k <= d - ks[2 * r + 1]; k += 2) {
				int64_t x = snake(s, a0, n, b0, m, furthest(v, off, k, d), k, r);
				int64_t y = x - k, ko = off + delta - k;

				v[off + k] = x;
				if (x > (int64_t)n) {
					ks[2 * r + 1] += 2;
				} else if (y > (int64_t)m) {
					ks[2 * r] += 2;
				} else if (front != r && ko >= 0 && ko < len && w[ko] != -1) {
					int64_t fx = r ? w[ko] : x, rx = r ? x : w[ko];

					if (fx >= (int64_t)n - rx) {
						*sx = (size_t)fx;
						*sy = (size_t)(fx - (r ? delta - k : k));
						return true;
					}
				}
			}
		}
	}
	return false;
}

/*
 * Aligns a[a0..a1) with b[b0..b1): common ends first (near-identical
 * graphs cost nothing more), the DP when the rest is small, else split
 * on the middle snake.
 */
static int align_range(const struct seqs *s, size_t a0, size_t a1, size_t b0, size_t b1)
{
	size_t n, m, x, y;
	int64_t *v;
	bool found;
	int err;

	for (; a0 < a1 && b0 < b1 && s->a[a0] == s->b[b0]; a0++, b0++)
		match(s, a0, b0);
	for (; a0 < a1 && b0 < b1 && s->a[a1 - 1] == s->b[b1 - 1]; a1--, b1--)
		match(s, a1 - 1, b1 - 1);
	n = a1 - a0;
	m = b1 - b0;
	if (!n || !m)
		return 0;
	if (n * m <= DP_MAX_CELLS)
		return dp_align(s->a + a0, n, s->b + b0, m, s->ma, s->mb, a0, b0);
	v = malloc(2 * (n + m + 4) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	found = bisect(s, a0, n, b0, m, v, v + n + m + 4, &x, &y);
	free(v);
	if (!found)
		return 0;
	err = align_range(s, a0, a0 + x, b0, b0 + y);
	return err ? err : align_range(s, a0 + x, a1, b0 + y, b1);
}

static int align(const struct inv *a, const struct inv *b, uint32_t *ma, uint32_t *mb)
{
	struct seqs s = { .a = a->sym, .b = b->sym, .ma = ma, .mb = mb };

	for (size_t i = 0; i < a->n; i++)
		ma[i] = NONE;
	for (size_t j = 0; j < b->n; j++)
		mb[j] = NONE;
	return align_range(&s, 0, a->n, 0, b->n);
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
			size_t ub = lcs_bound(&A->inv[ai[i]], &B->inv[bi[j]]);

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
			t->key = (uint32_t)lcs_len(a, b, V, M);
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

static int pair_all(struct diff *d)
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

static int compare_pair(struct diff *d, const struct inv *a, const struct inv *b)
{
	size_t n = a->n ? a->n : 1, m = b->n ? b->n : 1;
	uint32_t *ma = malloc(n * sizeof(*ma)), *mb = malloc(m * sizeof(*mb));
	uint32_t *na = malloc(n * sizeof(*na)), *nb = malloc(m * sizeof(*nb));
	int err = !ma || !mb || !na || !nb ? -ENOMEM : 0;

	if (!err)
		err = align(a, b, ma, mb);
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
static int unpaired(struct diff *d, int side, const struct inv *v)
{
	struct item it = { .a = NONE, .b = NONE, .calls = (uint32_t)v->n };

	if (side == DIFF_A)
		it.a = v->root;
	else
		it.b = v->root;
	d->st.only[side] += v->n;
	return list_add(d, &d->only[side], it);
}

static int durations(struct diff *d)
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

static double mean(const struct dstat *s, int side)
{
	return (double)s->total[side] / (double)s->count[side];
}

static bool dur_changed(const struct diff *d, const struct dstat *s)
{
	double ma = mean(s, DIFF_A), mb = mean(s, DIFF_B);

	if (ma <= 0 || mb <= 0)
		return ma != mb;
	return mb >= ma * d->o.ratio || ma >= mb * d->o.ratio;
}

/* --- report ------------------------------------------------------------------ */

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

static const char *nm(const struct diff *d, uint32_t id)
{
	return d->names.s[id];
}

static void print_call(const struct diff *d, FILE *out, int side, uint32_t node)
{
	const struct dnode *n = &d->s[side].node[node];

	fprintf(out, "%s (depth %u", nm(d, n->name), n->depth);
	if (n->parent != NONE)
		fprintf(out, ", in %s", nm(d, d->s[side].node[n->parent].name));
	fputc(')', out);
}

static void print_only(const struct diff *d, FILE *out, int side)
{
	const struct list *l = &d->only[side];
	const char *me = d->s[side].name, *other = d->s[!side].name;

	fprintf(out, "%zu call%s only in %s%s\n", d->st.only[side], plural(d->st.only[side]),
		side == DIFF_A ? "A" : "B", d->st.only[side] ? ":" : "");
	for (size_t i = 0; i < l->n; i++) {
		const struct item *it = &l->v[i];
		uint32_t node = side == DIFF_A ? it->a : it->b;

		fprintf(out, "  %s:%u: ", me, d->s[side].node[node].line);
		print_call(d, out, side, node);
		if (it->calls)
			fprintf(out, ": an invocation of %u calls with no counterpart in %s\n",
				it->calls, other);
		else if (it->near)
			fprintf(out, ", near %s:%u\n", other, it->near);
		else
			fputc('\n', out);
	}
	if (l->total > l->n)
		fprintf(out, "  ... %zu more\n", l->total - l->n);
}

static void print_moved(const struct diff *d, FILE *out)
{
	const struct list *l = &d->moved;

	fprintf(out, "%zu call%s moved%s\n", d->st.moved, plural(d->st.moved),
		d->st.moved ? ":" : "");
	for (size_t i = 0; i < l->n; i++) {
		fprintf(out, "  %s:%u -> %s:%u: ", d->s[DIFF_A].name,
			d->s[DIFF_A].node[l->v[i].a].line, d->s[DIFF_B].name,
			d->s[DIFF_B].node[l->v[i].b].line);
		print_call(d, out, DIFF_A, l->v[i].a);
		fputs(" -> ", out);
		print_call(d, out, DIFF_B, l->v[i].b);
		fputc('\n', out);
	}
	if (l->total > l->n)
		fprintf(out, "  ... %zu more\n", l->total - l->n);
}

/* Biggest change of total time first, then by name. */
static int cmp_dur(const void *x, const void *y, void *arg)
{
	const struct diff *sort_ctx = arg;
	const struct dstat *a = &sort_ctx->dur[*(const uint32_t *)x];
	const struct dstat *b = &sort_ctx->dur[*(const uint32_t *)y];
	double da = fabs((double)a->total[1] - (double)a->total[0]);
	double db = fabs((double)b->total[1] - (double)b->total[0]);

	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(nm(sort_ctx, *(const uint32_t *)x), nm(sort_ctx, *(const uint32_t *)y));
}

static int print_durations(struct diff *d, FILE *out)
{
	uint32_t *ix = malloc((d->names.n ? d->names.n : 1) * sizeof(*ix));
	size_t n = 0;

	if (!ix)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->names.n; i++)
		if (d->dur[i].count[0] && d->dur[i].count[1])
			ix[n++] = i;
	qsort_r(ix, n, sizeof(*ix), cmp_dur, d);
	fprintf(out, "durations of %zu function%s called on both sides, %zu changed %gx or more%s\n",
		d->st.dur_funcs, plural(d->st.dur_funcs), d->st.dur_changed, d->o.ratio,
		n ? ":" : "");
	if (n && d->o.max_lines)
		fprintf(out, "  %-32s %8s %12s %10s %8s %12s %10s %7s\n", "function", "A calls",
			"A total us", "A mean us", "B calls", "B total us", "B mean us", "B/A");
	for (size_t k = 0; k < n && k < d->o.max_lines; k++) {
		const struct dstat *s = &d->dur[ix[k]];
		double ma = mean(s, DIFF_A);

		fprintf(out, "  %-32s %8" PRIu64 " %12.3f %10.3f %8" PRIu64 " %12.3f %10.3f ",
			nm(d, ix[k]), s->count[0], (double)s->total[0] / 1000, ma / 1000,
			s->count[1], (double)s->total[1] / 1000, mean(s, DIFF_B) / 1000);
		if (ma > 0)
			fprintf(out, "%7.3f\n", mean(s, DIFF_B) / ma);
		else
			fprintf(out, "%7s\n", "-");
	}
	if (n > d->o.max_lines)
		fprintf(out, "  ... %zu more\n", n - d->o.max_lines);
	free(ix);
	return 0;
}

static void print_summary(const struct diff *d, FILE *out)
{
	const struct diff_stats *s = &d->st;

	fprintf(out, "recall %.3f precision %.3f (A: %zu calls in %zu invocations, B: %zu calls in %zu invocations)\n",
		s->recall, s->precision, s->calls[0], s->invocations[0], s->calls[1],
		s->invocations[1]);
}

static int report(struct diff *d, FILE *out)
{
	const struct diff_stats *s = &d->st;
	int err = 0;

	if (!d->o.quiet) {
		for (int i = 0; i < 2; i++) {
			fprintf(out, "%s: %s: %zu call%s in %zu invocation%s", i ? "B" : "A",
				d->s[i].name, s->calls[i], plural(s->calls[i]), s->invocations[i],
				plural(s->invocations[i]));
			if (s->outside[i])
				fprintf(out, " (and %zu outside any)", s->outside[i]);
			fputc('\n', out);
		}
		fprintf(out, "%zu invocation%s paired, %zu only in A, %zu only in B\n", s->paired,
			plural(s->paired), s->invocations[0] - s->paired,
			s->invocations[1] - s->paired);
		print_only(d, out, DIFF_A);
		print_only(d, out, DIFF_B);
		print_moved(d, out);
		err = print_durations(d, out);
	}
	print_summary(d, out);
	return ferror(out) ? -EIO : err;
}

static double ratio_or_one(size_t num, size_t den)
{
	return den ? (double)num / (double)den : 1.0;
}

int diff__compare(struct diff *d, FILE *out, struct diff_stats *st)
{
	struct side *A = &d->s[DIFF_A], *B = &d->s[DIFF_B];
	int err;

	memset(&d->st, 0, sizeof(d->st));
	err = collect_invs(d, A, DIFF_A);
	if (!err)
		err = collect_invs(d, B, DIFF_B);
	if (!err)
		err = pair_all(d);
	for (size_t i = 0; !err && i < A->ninvs; i++) {
		if (A->inv[i].pair != NONE)
			err = compare_pair(d, &A->inv[i], &B->inv[A->inv[i].pair]);
		else
			err = unpaired(d, DIFF_A, &A->inv[i]);
	}
	for (size_t j = 0; !err && j < B->ninvs; j++)
		if (B->inv[j].pair == NONE)
			err = unpaired(d, DIFF_B, &B->inv[j]);
	if (!err)
		err = durations(d);
	if (err)
		return err;
	for (size_t i = 0; i < d->names.n; i++) {
		if (!d->dur[i].count[0] || !d->dur[i].count[1])
			continue;
		d->st.dur_funcs++;
		d->st.dur_changed += dur_changed(d, &d->dur[i]);
	}
	d->st.recall = ratio_or_one(d->st.matched, d->st.calls[DIFF_A]);
	d->st.precision = ratio_or_one(d->st.matched, d->st.calls[DIFF_B]);
	if (st)
		*st = d->st;
	return out ? report(d, out) : 0;
}

/* --- object ---------------------------------------------------------------- */

struct diff *diff__new(const struct diff_opts *opts)
{
	struct diff *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->o = *opts;
	if (d->o.ratio <= 1)
		d->o.ratio = DIFF_DEF_RATIO;
	d->s[DIFF_A].name = "A";
	d->s[DIFF_B].name = "B";
	return d;
}

static void side_free(struct side *sd)
{
	for (size_t i = 0; i < BG_MAX_CPUS; i++) {
		if (sd->ctx[i])
			ctx_free(sd->ctx[i]);
		free(sd->ctx[i]);
	}
	for (size_t i = 0; i < sd->npark; i++)
		ctx_free(&sd->park[i].ctx);
	for (size_t i = 0; i < sd->ninvs; i++) {
		free(sd->inv[i].nodes);
		free(sd->inv[i].sym);
		free(sd->inv[i].bsym);
		free(sd->inv[i].bpos);
	}
	free(sd->inv);
	free(sd->park);
	free(sd->node);
	free(sd->inv_root);
}

void diff__free(struct diff *d)
{
	if (!d)
		return;
	side_free(&d->s[DIFF_A]);
	side_free(&d->s[DIFF_B]);
	for (size_t i = 0; i < d->names.n; i++)
		free(d->names.s[i]);
	free(d->names.s);
	free(d->names.flags);
	free(d->names.slot);
	free(d->only[0].v);
	free(d->only[1].v);
	free(d->moved.v);
	free(d->dur);
	free(d);
}

/* --- reading text ----------------------------------------------------------- */

struct feed_ctx {
	struct diff *d;
	int side;
};

static int feed_text(void *ctx, const struct fgtext_ev *e, const struct functab *ft)
{
	struct feed_ctx *fc = ctx;

	if (e->kind != FGT_EVENT)
		return 0;
	return diff__feed(fc->d, fc->side, &e->ev, ft, e->line);
}

int diff__read_text(struct diff *d, int side, FILE *in, const char *name, FILE *err)
{
	struct feed_ctx fc = { .d = d, .side = side };
	struct fgtext_opts o = { .emit = feed_text, .ctx = &fc, .name = name };
	struct fgtext *r = fgtext__new(&o);
	const char *msg;
	uint32_t line;
	int ret;

	d->s[side].name = name;
	if (!r)
		return -errno;
	ret = fgtext__read(r, in);
	msg = fgtext__error(r, &line);
	if (ret && err && msg && line)
		fprintf(err, "bpfgraph diff: %s:%u: %s\n", name, line, msg);
	else if (ret && err)
		fprintf(err, "bpfgraph diff: %s: %s\n", name, msg ? msg : strerror(-ret));
	fgtext__free(r);
	return ret;
}

/* --- command line ---------------------------------------------------------- */

static const char usage_text[] =
	"Usage: bpfgraph diff [OPTIONS] A B\n"
	"\n"
	"Compare two function graphs: A, the reference (the kernel's own\n"
	"function_graph, say), and B. Both are function_graph text of any\n"
	"dialect: the tracefs trace or trace_pipe file, perf ftrace, perf-tools\n"
	"funcgraph or bpfgraph output; - reads standard input.\n"
	"Invocations of the same depth-0 function are paired, A with the B that\n"
	"shares most call lines with it (a call line is a function at a depth);\n"
	"the calls only in A, only in B, moved to another parent, and the\n"
	"duration changes per function are listed, then one summary line:\n"
	"  recall R precision P (A: N calls in I invocations, B: N calls in I invocations)\n"
	"recall = call lines of A found in B / A's call lines, precision = the\n"
	"same / B's call lines.\n"
	"\n"
	"Options:\n"
	"      --root=FUNC       compare only the invocations of FUNC, a glob\n"
	"                        (default: every depth-0 function)\n"
	"      --ignore=GLOB     drop these functions and what they call before\n"
	"                        comparing (repeatable)\n"
	"      --last=N          compare only the last N invocations of each side\n"
	"                        (the warm ones, after a first call that loaded\n"
	"                        caches or let bpfgraph find functions)\n"
	"      --skip-last=N     leave out the last N invocations of each side\n"
	"                        first (with --last: compare the ones before them)\n"
	"      --max-lines=N     list at most N differences of each kind (default 20)\n"
	"      --ratio=R         count a function whose mean duration grew or shrank\n"
	"                        R times or more as changed (default 2)\n"
	"      --one-task        each file traced one task (a pid filter): follow\n"
	"                        its calls across CPUs, ignore context switch banners\n"
	"  -q, --quiet           print only the summary line\n"
	"  -h, --help            print this help and exit\n"
	"\n"
	"Exit status: 0 when compared, whatever the differences; 1 when a file\n"
	"cannot be read or parsed; 2 on usage errors.\n"
	"\n"
	"Examples:\n"
	"  bpfgraph diff --ignore='irq_*' oracle.txt bpfgraph.txt\n"
	"  bpfgraph diff -q --root=do_sys_openat2 trace.txt out.txt\n";

void diff__usage(FILE *f)
{
	fputs(usage_text, f);
}

enum { OPT_ROOT = 256, OPT_IGNORE, OPT_MAX_LINES, OPT_RATIO, OPT_LAST, OPT_SKIP_LAST,
       OPT_ONE_TASK };

static const struct option long_opts[] = {
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "ignore", required_argument, NULL, OPT_IGNORE },
	{ "max-lines", required_argument, NULL, OPT_MAX_LINES },
	{ "last", required_argument, NULL, OPT_LAST },
	{ "skip-last", required_argument, NULL, OPT_SKIP_LAST },
	{ "ratio", required_argument, NULL, OPT_RATIO },
	{ "one-task", no_argument, NULL, OPT_ONE_TASK },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{},
};

struct diff_cmd {
	struct diff_opts o;
	char **ignore;
	const char *path[2];
};

static __attribute__((format(printf, 1, 2))) int usage_err(const char *fmt, ...)
{
	va_list ap;

	fputs("bpfgraph diff: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'bpfgraph diff --help' for more information.\n", stderr);
	return -EINVAL;
}

static bool is_digit_str(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* --NAME=N, a count from min to 1000000, into *out. */
static int parse_count(const char *name, const char *arg, size_t min, size_t *out)
{
	char *end;

	errno = 0;
	*out = strtoul(arg, &end, 10);
	if (!is_digit_str(arg) || *end || errno || *out < min || *out > 1000000)
		return usage_err("invalid --%s '%s': a number from %zu to 1000000", name, arg, min);
	return 0;
}

static int parse_value(struct diff_cmd *c, int opt, const char *arg)
{
	char *end;

	switch (opt) {
	case OPT_ROOT:
		c->o.root = arg;
		return 0;
	case OPT_ONE_TASK:
		c->o.one_task = true;
		return 0;
	case OPT_IGNORE: {
		char **v = realloc(c->ignore, (c->o.n_ignore + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->ignore = v;
		v[c->o.n_ignore++] = (char *)arg;
		c->o.ignore = v;
		return 0;
	}
	case OPT_MAX_LINES:
		return parse_count("max-lines", arg, 0, &c->o.max_lines);
	case OPT_LAST:
		return parse_count("last", arg, 1, &c->o.last);
	case OPT_SKIP_LAST:
		return parse_count("skip-last", arg, 0, &c->o.skip_last);
	case OPT_RATIO:
		errno = 0;
		c->o.ratio = strtod(arg, &end);
		if (*end || errno || !(c->o.ratio > 1) || !isfinite(c->o.ratio) ||
		    !(arg[0] >= '0' && arg[0] <= '9'))
			return usage_err("invalid --ratio '%s': a number greater than 1", arg);
		return 0;
	}
	return -EINVAL;
}

/* 0 to go on, 1 after --help, -EINVAL on usage errors (message written). */
static int parse_args(struct diff_cmd *c, int argc, char **argv)
{
	int opt, err;

	c->o.max_lines = DIFF_DEF_MAX_LINES;
	c->o.ratio = DIFF_DEF_RATIO;
	optind = 0; /* GNU: start over, tests call this more than once */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":qh", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'q':
			c->o.quiet = true;
			break;
		case 'h':
			diff__usage(stdout);
			return 1;
		case ':':
			return usage_err("option '%s' needs a value", argv[optind - 1]);
		case '?':
			return usage_err("unknown option '%s'", argv[optind - 1]);
		default:
			err = parse_value(c, opt, optarg);
			if (err)
				return err;
		}
	}
	if (argc - optind != 2)
		return usage_err(argc - optind < 2 ? "two files to compare are needed" :
						     "too many files: only A and B are compared");
	c->path[0] = argv[optind];
	c->path[1] = argv[optind + 1];
	if (!strcmp(c->path[0], "-") && !strcmp(c->path[1], "-"))
		return usage_err("only one of A and B can be standard input");
	return 0;
}

static int read_side(struct diff *d, int side, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	int err;

	if (!f) {
		err = -errno;
		fprintf(stderr, "bpfgraph diff: cannot open '%s': %s\n", path, strerror(errno));
		return err;
	}
	err = diff__read_text(d, side, f, strcmp(path, "-") ? path : "<stdin>", stderr);
	if (f != stdin)
		fclose(f);
	return err;
}

/* Not an error, but most likely not the file that was meant. */
static void warn_empty(const struct diff_cmd *c, const struct diff_stats *st)
{
	for (int i = 0; i < 2; i++)
		if (!st->invocations[i])
			fprintf(stderr, "bpfgraph diff: %s: no call at depth 0%s%s to compare\n",
				strcmp(c->path[i], "-") ? c->path[i] : "<stdin>",
				c->o.root ? " matching --root" : "",
				c->o.skip_last ? " left after --skip-last" : "");
}

int cmd_diff(int argc, char **argv)
{
	struct diff_stats st;
	struct diff_cmd c = {};
	struct diff *d = NULL;
	int err;

	err = parse_args(&c, argc, argv);
	if (err) {
		free(c.ignore);
		return err > 0 ? BG_EXIT_OK : err == -ENOMEM ? BG_EXIT_FAILURE : BG_EXIT_USAGE;
	}
	d = diff__new(&c.o);
	err = d ? 0 : -ENOMEM;
	if (!err)
		err = read_side(d, DIFF_A, c.path[0]);
	if (!err)
		err = read_side(d, DIFF_B, c.path[1]);
	if (!err) {
		err = diff__compare(d, stdout, &st);
		if (!err && fflush(stdout))
			err = -EIO;
		if (err)
			fprintf(stderr, "bpfgraph diff: %s\n", strerror(-err));
		else
			warn_empty(&c, &st);
	} else if (err == -ENOMEM) {
		fprintf(stderr, "bpfgraph diff: out of memory\n");
	}
	diff__free(d);
	free(c.ignore);
	return err ? BG_EXIT_FAILURE : BG_EXIT_OK;
}
