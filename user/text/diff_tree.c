// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpfgraph diff: each side's call trees, built from graph events by
 * diff__feed, and the function names both sides share.
 *
 * Building trees from events follows function_graph's own pairing: a
 * stack per CPU, switched with the task on context-switch banners; a "}"
 * closes the open call at its depth; closing lines whose entry was never
 * seen (tracing_thresh, a trace that began inside a call) become calls of
 * their own and adopt the orphans printed before them one level deeper.
 *
 * Why not the writers' call tracker (calls.h): diff reads text from any
 * kernel, where an interrupt entered at the depth of a call still open
 * and a named "}" that is not the open call's must be resolved by name
 * (the interrupt nests under the open call, which its own "}" closes
 * later). The tracker indexes by depth as the kernel's printer does,
 * which is right for the graph builder's events but would end such a
 * call early and count its "}" as a call of its own.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "diff_int.h"
#include "fgtext.h"

#define MAX_NAMES (1U << (32 - SYM_DEPTH_BITS))

/* --- names, shared by both sides ----------------------------------------- */

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
	if (GROW(t->s, t->cap, t->n + 1) || GROW(t->flags, t->fcap, t->n + 1))
		return -ENOMEM;
	c = strdup(s);
	if (!c)
		return -ENOMEM;
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

void diff_ctx_free(struct dctx *c)
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
			diff_ctx_free(&in);
			return -ENOMEM;
		}
		sd->park[sd->npark++] = (struct parked){ .pid = c->pid, .ctx = *c };
	} else {
		diff_ctx_free(c);
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
	if (ev->type == GEV_ENTER || ev->type == GEV_LEAF)
		sd->read++;
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
