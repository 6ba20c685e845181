// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * function_graph text reader: a whole file in memory (fgtext__load), its
 * events kept with their strings, and written back (fgtext__write). Built
 * on the streaming reader's public API alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fgtext.h"

#define POOL_CHUNK 65536

/* Strings of a document: a chunked arena, comms interned. */
struct fgtext_pool {
	struct pool_chunk {
		struct pool_chunk *next;
		size_t used, size;
		char data[];
	} *head;
	char **comms;
	size_t ncomms, comm_cap;
};

static char *pool_strdup(struct fgtext_pool *p, const char *s)
{
	size_t n = strlen(s) + 1;
	struct pool_chunk *c = p->head;

	if (!c || c->size - c->used < n) {
		size_t size = n > POOL_CHUNK ? n : POOL_CHUNK;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->next = p->head;
		c->used = 0;
		c->size = size;
		p->head = c;
	}
	memcpy(c->data + c->used, s, n);
	c->used += n;
	return c->data + c->used - n;
}

/* Few distinct comms in a trace: a linear scan of the last ones is enough. */
static const char *pool_comm(struct fgtext_pool *p, const char *s)
{
	char *c;

	if (!s)
		return NULL;
	for (size_t i = p->ncomms; i-- > 0 && p->ncomms - i <= 64;)
		if (!strcmp(p->comms[i], s))
			return p->comms[i];
	if (p->ncomms == p->comm_cap) {
		size_t cap = p->comm_cap ? p->comm_cap * 2 : 16;
		char **nc = realloc(p->comms, cap * sizeof(*nc));

		if (!nc)
			return NULL;
		p->comms = nc;
		p->comm_cap = cap;
	}
	c = pool_strdup(p, s);
	if (c)
		p->comms[p->ncomms++] = c;
	return c;
}

static void pool_free(struct fgtext_pool *p)
{
	struct pool_chunk *c, *n;

	if (!p)
		return;
	for (c = p->head; c; c = n) {
		n = c->next;
		free(c);
	}
	free(p->comms);
	free(p);
}

static int doc_add(void *ctx, const struct fgtext_ev *e, const struct functab *ft)
{
	struct fgtext_doc *d = ctx;
	struct fgtext_ev *n;

	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 1024;

		n = realloc(d->ev, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		d->ev = n;
		d->cap = cap;
	}
	n = &d->ev[d->n];
	*n = *e;
	if (e->text && !(n->text = pool_strdup(d->pool, e->text)))
		return -ENOMEM;
	if (e->args && !(n->args = pool_strdup(d->pool, e->args)))
		return -ENOMEM;
	if (e->retaddr && !(n->retaddr = pool_strdup(d->pool, e->retaddr)))
		return -ENOMEM;
	if (e->ev.comm && !(n->ev.comm = pool_comm(d->pool, e->ev.comm)))
		return -ENOMEM;
	if (e->ev.prev_comm && !(n->ev.prev_comm = pool_comm(d->pool, e->ev.prev_comm)))
		return -ENOMEM;
	d->n++;
	return 0;
}

struct fgtext_doc *fgtext__load(FILE *in, const struct fgtext_opts *opts, uint32_t *errline)
{
	struct fgtext_opts o = *opts;
	struct fgtext_doc *d = calloc(1, sizeof(*d));
	int err = -ENOMEM;

	if (errline)
		*errline = 0;
	if (!d)
		return NULL;
	o.emit = doc_add;
	o.ctx = d;
	o.keep_text = true;
	d->pool = calloc(1, sizeof(*d->pool));
	d->r = d->pool ? fgtext__new(&o) : NULL;
	if (d->r)
		err = fgtext__read(d->r, in);
	if (err) {
		if (errline && d->r)
			fgtext__error(d->r, errline);
		fgtext__doc_free(d);
		errno = -err;
		return NULL;
	}
	d->funcs = fgtext__funcs(d->r);
	d->layout = fgtext__layout(d->r);
	d->stats = fgtext__stats(d->r);
	return d;
}

void fgtext__doc_free(struct fgtext_doc *d)
{
	if (!d)
		return;
	fgtext__free(d->r);
	pool_free(d->pool);
	free(d->ev);
	free(d);
}

/* One event as text, with its '\n' unless it is the unterminated last line. */
static int write_one(struct out_text *w, FILE *mem, char **buf, const struct fgtext_ev *e,
		     bool last_nl, FILE *out)
{
	struct gev ev;
	long len;

	if (e->text) {
		fputs(e->text, out);
		if (last_nl)
			fputc('\n', out);
		return ferror(out) ? -EIO : 0;
	}
	rewind(mem);
	ev = fgtext__gev(e);
	out_text__emit(w, &ev);
	if (fflush(mem))
		return -ENOMEM;
	len = ftell(mem);
	if (len > 0 && !last_nl)
		len--;
	if (len > 0 && fwrite(*buf, 1, (size_t)len, out) != (size_t)len)
		return -EIO;
	return 0;
}

int fgtext__write(const struct fgtext_doc *d, FILE *out)
{
	struct out_text_opts o = { .funcs = d->funcs };
	struct out_text *w;
	char *buf = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&buf, &size);
	int err = 0;

	if (!mem)
		return -ENOMEM;
	fgtext__out_opts(d->layout, &o);
	o.out = mem;
	w = out_text__new(&o);
	if (!w)
		err = -ENOMEM;
	for (size_t i = 0; i < d->n && !err; i++)
		err = write_one(w, mem, &buf, &d->ev[i], i + 1 < d->n || d->layout->final_newline,
				out);
	out_text__free(w);
	fclose(mem);
	free(buf);
	return err;
}
