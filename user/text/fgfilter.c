// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The live filters on function_graph text (fgfilter.h). Lines go out in
 * the order they came, except that a kept entry waits for the next kept
 * event of its CPU, which decides whether it becomes a leaf; what comes
 * meanwhile is held behind it (copied), as the kernel's printer looks
 * ahead on the entry's CPU before it prints anything after it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fgfilter.h"
#include "fgtext.h"
#include "globset.h"

/* function_graph's TASK/PID column shows this much of a comm (print_graph_proc()). */
#define PROC_COMM_LEN 7
#define COMM_BUF 32
/* Held lines at most: then the oldest waiting entry prints as "{". */
#define MAX_HELD (1U << 16)

enum { GRAPH_NONE, GRAPH_KEPT, GRAPH_DROPPED };
enum item_kind { IT_EVENT, IT_LINE, IT_NOTE };

/* A graph's state: of a task (TASK/PID column) or of a CPU. */
struct stream {
	uint32_t key;
	bool used;
	uint8_t graph; /* GRAPH_* */
	int32_t hide; /* depth of the -x call it is inside of; -1: none */
};

struct item {
	enum item_kind kind;
	bool waiting; /* an entry that may yet become a leaf */
	struct gev ev; /* IT_NOTE: a banner (prev_pid: who ran before) */
	char *strs; /* the copies ev's strings and text point into */
	const char *text; /* IT_LINE */
	uint32_t pid; /* who ran (from the TASK/PID column or a banner) */
	bool pid_known;
	char comm[COMM_BUF];
};

struct fcpu {
	/* as the text is read */
	int64_t waiting; /* the held entry of this CPU (queue index); -1: none */
	bool dropped; /* a line of this CPU was dropped since that entry */
	uint32_t pid; /* the task running here, as banners said */
	bool pid_known;
	char comm[COMM_BUF];
	/* as lines go out */
	uint32_t enter[FGTEXT_MAX_DEPTH]; /* the entry printed at each depth, as the kernel's enter_funcs */
	uint32_t out_pid;
	bool out_known, out_any;
	char out_comm[COMM_BUF];
};

struct fgfilter {
	struct filter_opts f;
	bool by_pid;
	const struct functab *funcs;
	struct fgfilter_out out;
	struct globset *notrace;
	struct stream *streams; /* open addressing, 2^bits slots */
	size_t nstreams;
	unsigned int bits;
	struct fcpu *cpus;
	uint32_t ncpus;
	struct item *q; /* held: q[head..n) */
	size_t head, n, cap;
};

/* --- state -------------------------------------------------------------- */

static struct stream *slot(struct stream *v, unsigned int bits, uint32_t key)
{
	size_t mask = ((size_t)1 << bits) - 1, i = (key * 2654435761u) & mask;

	while (v[i].used && v[i].key != key)
		i = (i + 1) & mask;
	return &v[i];
}

static struct stream *stream_get(struct fgfilter *ff, uint32_t key)
{
	struct stream *s;

	if (!ff->streams || (ff->nstreams + 1) * 2 > (size_t)1 << ff->bits) {
		unsigned int bits = ff->streams ? ff->bits + 1 : 6;
		struct stream *v = calloc((size_t)1 << bits, sizeof(*v));

		if (!v)
			return NULL;
		for (size_t i = 0; ff->streams && i < (size_t)1 << ff->bits; i++)
			if (ff->streams[i].used)
				*slot(v, bits, ff->streams[i].key) = ff->streams[i];
		free(ff->streams);
		ff->streams = v;
		ff->bits = bits;
	}
	s = slot(ff->streams, ff->bits, key);
	if (!s->used) {
		*s = (struct stream){ .key = key, .used = true, .hide = -1 };
		ff->nstreams++;
	}
	return s;
}

static struct fcpu *cpu_get(struct fgfilter *ff, uint32_t cpu)
{
	if (cpu >= BG_MAX_CPUS)
		return NULL;
	if (cpu >= ff->ncpus) {
		struct fcpu *v = realloc(ff->cpus, (cpu + 1) * sizeof(*v));

		if (!v)
			return NULL;
		for (uint32_t i = ff->ncpus; i <= cpu; i++) {
			v[i] = (struct fcpu){ .waiting = -1 };
			memset(v[i].enter, 0xff, sizeof(v[i].enter)); /* FGTEXT_NOFUNC */
		}
		ff->cpus = v;
		ff->ncpus = cpu + 1;
	}
	return &ff->cpus[cpu];
}

static void copy_comm(char *dst, const char *src)
{
	snprintf(dst, COMM_BUF, "%s", src ? src : "");
}

/* --- the filters -------------------------------------------------------- */

static bool func_hidden(const struct fgfilter *ff, uint32_t func)
{
	return ff->notrace && func < ff->funcs->n &&
	       globset__match(ff->notrace, ff->funcs->f[func].name);
}

/* -n against a TASK/PID column, which shows 7 characters of a comm. */
static bool comm_ok(const struct fgfilter *ff, const char *comm)
{
	if (!ff->f.comm || !*ff->f.comm)
		return true;
	return comm && !strncmp(comm, ff->f.comm, PROC_COMM_LEN) &&
	       (strlen(comm) >= PROC_COMM_LEN || !strcmp(comm, ff->f.comm));
}

static void choose(const struct fgfilter *ff, struct stream *s, const struct gev *ev)
{
	bool ok = filter__pid_ok(&ff->f, ev->pid, 0) && filter__cpu_ok(&ff->f, ev->cpu) &&
		  comm_ok(ff, ev->comm);

	s->graph = ok ? GRAPH_KEPT : GRAPH_DROPPED;
}

/* tracing_thresh: a kept call shows as its return only. */
static bool thresh_kept(const struct fgfilter *ff, struct gev *ev)
{
	if (!ff->f.thresh_ns)
		return true;
	if (ev->dur < ff->f.thresh_ns)
		return false;
	if (ev->type == GEV_LEAF)
		ev->ts += ev->dur; /* a return line shows the return's time */
	ev->type = GEV_EXIT; /* its tail: no entry was printed at its depth */
	ev->args_text = ev->retaddr_text = NULL;
	ev->nargs = 0;
	ev->caller = 0;
	return true;
}

/* ENTER, LEAF or EXIT: kept (maybe made a return, -t) or not. */
static int decide(struct fgfilter *ff, struct gev *ev, bool *keep)
{
	struct stream *s = stream_get(ff, ff->by_pid ? ev->pid : ev->cpu);
	bool opens = ev->type != GEV_EXIT, closes = ev->type != GEV_ENTER;
	int32_t d = (int32_t)ev->depth;

	if (!s)
		return -ENOMEM;
	if ((opens && !d) || s->graph == GRAPH_NONE)
		choose(ff, s, ev);
	if (opens && !d)
		s->hide = -1;
	*keep = s->graph == GRAPH_KEPT;
	if (s->hide >= 0) {
		if (d > s->hide || (d == s->hide && ev->type == GEV_EXIT))
			*keep = false;
		if (d <= s->hide)
			s->hide = -1;
	}
	if (*keep && opens && func_hidden(ff, ev->func)) {
		*keep = false;
		if (ev->type == GEV_ENTER)
			s->hide = d;
	}
	if (ff->f.max_depth && ev->depth >= ff->f.max_depth)
		*keep = false;
	if (*keep)
		*keep = ev->type == GEV_ENTER ? !ff->f.thresh_ns : thresh_kept(ff, ev);
	if (closes && !d) {
		s->graph = GRAPH_NONE;
		s->hide = -1;
	}
	return 0;
}

/* --- out ---------------------------------------------------------------- */

/*
 * "}" or "} / * func * /": whether the entry printed last at the depth on
 * the CPU was the function's, among the lines kept (print_graph_return()).
 */
static void set_tail(struct fcpu *c, struct gev *ev)
{
	uint32_t *slot = ev->depth < FGTEXT_MAX_DEPTH ? &c->enter[ev->depth] : NULL;

	if (!slot)
		return; /* the kernel assumes a match there; the text's flag stays */
	if (ev->type == GEV_ENTER) {
		*slot = ev->func;
	} else if (ev->type == GEV_EXIT) {
		ev->tail = ev->func != FGTEXT_NOFUNC && *slot != ev->func;
		*slot = FGTEXT_NOFUNC;
	} else if (ev->type == GEV_LEAF) {
		*slot = FGTEXT_NOFUNC;
	}
}

/* A banner first where the task of a CPU changed between kept lines. */
static int out_event(struct fgfilter *ff, const struct item *it)
{
	struct fcpu *c = cpu_get(ff, it->ev.cpu);
	struct gev ev = it->ev;
	int err;

	if (!c)
		return -EINVAL;
	set_tail(c, &ev);
	if (it->ev.type != GEV_LOST && c->out_known && it->pid_known && c->out_pid != it->pid) {
		struct gev b = { .type = GEV_BANNER, .cpu = it->ev.cpu, .ts = it->ev.ts,
				 .prev_pid = c->out_pid, .pid = it->pid,
				 .prev_comm = c->out_comm, .comm = it->comm };

		err = ff->out.event(ff->out.ctx, &b);
		if (err)
			return err;
	}
	if (it->ev.type != GEV_LOST) {
		c->out_known = it->pid_known;
		c->out_pid = it->pid;
		c->out_any = true;
		copy_comm(c->out_comm, it->comm);
	}
	return ff->out.event(ff->out.ctx, &ev);
}

static int out_item(struct fgfilter *ff, const struct item *it)
{
	struct fcpu *c;

	switch (it->kind) {
	case IT_LINE:
		return ff->out.line(ff->out.ctx, it->text);
	case IT_NOTE:
		/* The lines out since the last banner were of the task before it. */
		c = cpu_get(ff, it->ev.cpu);
		if (c && c->out_any && !c->out_known) {
			c->out_known = true;
			c->out_pid = it->ev.prev_pid;
			copy_comm(c->out_comm, it->ev.prev_comm);
		}
		return 0;
	default:
		return out_event(ff, it);
	}
}

static void item_free(struct item *it)
{
	free(it->strs);
	it->strs = NULL;
}

/* The held items up to the first entry still waiting. */
static int release(struct fgfilter *ff)
{
	int err = 0;

	while (ff->head < ff->n && !ff->q[ff->head].waiting) {
		err = out_item(ff, &ff->q[ff->head]);
		item_free(&ff->q[ff->head++]);
		if (err)
			return err;
	}
	if (ff->head == ff->n)
		ff->head = ff->n = 0;
	return 0;
}

/* Copies of the strings it points to, in one allocation. */
static int item_own(struct item *it)
{
	const char **p[] = { &it->ev.comm, &it->ev.prev_comm, &it->ev.args_text,
			     &it->ev.retaddr_text, &it->text };
	size_t len = 0, at = 0;

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		len += *p[i] ? strlen(*p[i]) + 1 : 0;
	if (!len)
		return 0;
	it->strs = malloc(len);
	if (!it->strs)
		return -ENOMEM;
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		if (!*p[i])
			continue;
		strcpy(it->strs + at, *p[i]);
		*p[i] = it->strs + at;
		at += strlen(it->strs + at) + 1;
	}
	return 0;
}

/* The oldest entry still waiting prints as "{": too much is held behind it. */
static int unblock(struct fgfilter *ff)
{
	struct item *it = &ff->q[ff->head];
	struct fcpu *c = cpu_get(ff, it->ev.cpu);

	it->waiting = false;
	if (c)
		c->waiting = -1;
	return release(ff);
}

/* Out at once when nothing is held; else held (copied) behind the rest. */
static int put(struct fgfilter *ff, struct item *it, int64_t *at)
{
	int err;

	if (ff->head == ff->n && !it->waiting)
		return out_item(ff, it);
	if (ff->n - ff->head >= MAX_HELD && (err = unblock(ff)))
		return err;
	if (ff->head == ff->n && !it->waiting)
		return out_item(ff, it);
	if (ff->n == ff->cap) {
		size_t cap = ff->cap ? ff->cap * 2 : 256;
		struct item *v = realloc(ff->q, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ff->q = v;
		ff->cap = cap;
	}
	if (item_own(it))
		return -ENOMEM;
	if (at)
		*at = (int64_t)ff->n;
	ff->q[ff->n++] = *it;
	return 0;
}

/* --- in ----------------------------------------------------------------- */

/* A kept event: it settles the entry its CPU holds (a leaf, or not). */
static int settle(struct fgfilter *ff, struct fcpu *c, const struct gev *ev, bool *folded)
{
	struct item *w;

	*folded = false;
	if (c->waiting < 0)
		return 0;
	w = &ff->q[c->waiting];
	if (ev->type == GEV_EXIT && c->dropped && ev->depth == w->ev.depth &&
	    ev->pid == w->ev.pid && (ev->func == w->ev.func || ev->func == FGTEXT_NOFUNC)) {
		w->ev.type = GEV_LEAF;
		w->ev.dur = ev->dur;
		w->ev.ret = ev->ret;
		w->ev.noret = ev->noret;
		*folded = true;
	}
	w->waiting = false;
	c->waiting = -1;
	return release(ff);
}

static int on_call(struct fgfilter *ff, struct fcpu *c, struct gev *ev)
{
	struct item it = { .kind = IT_EVENT };
	bool keep, folded;
	int err = decide(ff, ev, &keep);

	if (err)
		return err;
	if (!keep) {
		c->dropped = true;
		return 0;
	}
	err = settle(ff, c, ev, &folded);
	if (err || folded)
		return err;
	it.ev = *ev;
	it.pid = ff->by_pid ? ev->pid : c->pid;
	it.pid_known = ff->by_pid || c->pid_known;
	copy_comm(it.comm, ff->by_pid ? ev->comm : c->comm);
	/* After -t no entry is kept; without filters that drop lines none waits. */
	it.waiting = ev->type == GEV_ENTER;
	c->dropped = false;
	return put(ff, &it, it.waiting ? &c->waiting : NULL);
}

int fgfilter__event(struct fgfilter *ff, const struct gev *in)
{
	struct fcpu *c = cpu_get(ff, in->cpu);
	struct gev ev = *in;
	struct item it = { .kind = IT_NOTE };

	if (!c)
		return -EINVAL;
	switch (ev.type) {
	case GEV_BANNER:
		c->pid = ev.pid;
		c->pid_known = true;
		copy_comm(c->comm, ev.comm);
		it.ev = ev;
		return put(ff, &it, NULL);
	case GEV_LOST:
		it.kind = IT_EVENT;
		it.ev = ev;
		return put(ff, &it, NULL);
	default:
		return on_call(ff, c, &ev);
	}
}

int fgfilter__line(struct fgfilter *ff, const char *text)
{
	struct item it = { .kind = IT_LINE, .text = text };

	return put(ff, &it, NULL);
}

int fgfilter__finish(struct fgfilter *ff)
{
	for (size_t i = ff->head; i < ff->n; i++)
		ff->q[i].waiting = false;
	for (uint32_t i = 0; i < ff->ncpus; i++)
		ff->cpus[i].waiting = -1;
	return release(ff);
}

struct fgfilter *fgfilter__new(const struct filter_opts *f, bool by_pid,
			       const struct functab *funcs, struct fgfilter_out out)
{
	struct fgfilter *ff = calloc(1, sizeof(*ff));
	const char **globs = NULL;

	if (!ff)
		return NULL;
	ff->f = *f;
	ff->by_pid = by_pid;
	ff->funcs = funcs;
	ff->out = out;
	if (f->n_notrace) {
		globs = calloc(f->n_notrace + 1, sizeof(*globs));
		for (size_t i = 0; globs && i < f->n_notrace; i++)
			globs[i] = f->notrace[i];
		ff->notrace = globs ? globset__new(globs) : NULL;
		free(globs);
		if (!ff->notrace) {
			fgfilter__free(ff);
			errno = ENOMEM;
			return NULL;
		}
	}
	return ff;
}

void fgfilter__free(struct fgfilter *ff)
{
	if (!ff)
		return;
	for (size_t i = ff->head; i < ff->n; i++)
		item_free(&ff->q[i]);
	free(ff->q);
	free(ff->streams);
	free(ff->cpus);
	globset__free(ff->notrace);
	free(ff);
}
