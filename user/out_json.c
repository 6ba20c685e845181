// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * JSON lines writer. Graph events give each call's end (leaf or exit,
 * with duration and return value); a per-CPU stack of entries, indexed
 * by depth like the builder's enter_funcs[], tells which entries never
 * got their exit.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "linebuf.h"
#include "out_json.h"
#include "out_text.h"

struct open_call {
	bool used;
	uint32_t func, pid;
	uint64_t ts;
	char comm[BG_COMM_LEN + 1];
};

struct json_cpu {
	uint32_t cpu;
	/*
	 * No d[] at or above top is used: closing what is open need not look
	 * at all BG_MAX_DEPTH slots for every call.
	 */
	uint32_t top;
	struct open_call d[BG_MAX_DEPTH];
};

struct out_calls {
	out_call_fn fn;
	void *ctx;
	struct json_cpu **cpus; /* by cpu number, NULL until seen */
	uint32_t ncpus;
};

struct out_json {
	struct out_json_opts o;
	struct out_calls *calls;
};

static void put_call(void *ctx, const struct out_call *c);

struct out_json *out_json__new(const struct out_json_opts *opts)
{
	struct out_json *w;

	if (!opts || !opts->out) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->o = *opts;
	w->calls = out_calls__new(put_call, w);
	if (!w->calls) {
		free(w);
		return NULL;
	}
	return w;
}

void out_json__free(struct out_json *w)
{
	if (!w)
		return;
	out_calls__free(w->calls);
	free(w);
}

struct out_calls *out_calls__new(out_call_fn fn, void *ctx)
{
	struct out_calls *t = calloc(1, sizeof(*t));

	if (t) {
		t->fn = fn;
		t->ctx = ctx;
	}
	return t;
}

void out_calls__free(struct out_calls *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->ncpus; i++)
		free(t->cpus[i]);
	free(t->cpus);
	free(t);
}

static void put_str(struct linebuf *l, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *run;

	linebuf__char(l, '"');
	while (p && *p) {
		/* Runs of plain characters go in one copy. */
		for (run = p; *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\'; p++)
			;
		linebuf__put(l, (const char *)run, (size_t)(p - run));
		if (!*p)
			break;
		if (*p == '"' || *p == '\\') {
			linebuf__char(l, '\\');
			linebuf__char(l, (char)*p);
		} else {
			/* comm is bytes, not UTF-8: keep the JSON valid */
			char u[6] = { '\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 0xf] };

			linebuf__put(l, u, sizeof(u));
		}
		p++;
	}
	linebuf__char(l, '"');
}

void out_json__put_str(FILE *f, const char *s)
{
	struct linebuf l;

	linebuf__init(&l, f);
	put_str(&l, s);
	linebuf__flush(&l);
}

void out_json__put_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned int)(ns % 1000));
}

/* out_json__fmt_ret() into buf (24 bytes, no terminator); 0 for void. */
static size_t fmt_ret(char *buf, uint64_t ret, const struct bg_func *f)
{
	unsigned int kind = f ? f->ret_kind : BG_RET_UNKNOWN;
	unsigned int bytes = f && f->ret_size >= 1 && f->ret_size < 8 ? f->ret_size : 8;
	char tmp[24], *end = tmp + sizeof(tmp), *p;
	uint64_t sign;
	int64_t v;

	if (kind == BG_RET_VOID)
		return 0;
	if (kind != BG_RET_UNKNOWN && bytes < 8)
		ret &= (1ULL << (bytes * 8)) - 1;
	if (kind != BG_RET_SIGNED) {
		p = linebuf__digits(end, ret);
	} else {
		sign = 1ULL << (bytes * 8 - 1);
		v = (int64_t)((ret ^ sign) - sign);
		p = linebuf__digits(end, v < 0 ? -(uint64_t)v : (uint64_t)v);
		if (v < 0)
			*--p = '-';
	}
	memcpy(buf, p, (size_t)(end - p));
	return (size_t)(end - p);
}

bool out_json__fmt_ret(char *buf, size_t len, uint64_t ret, const struct bg_func *f)
{
	char tmp[24];
	size_t n = fmt_ret(tmp, ret, f);

	if (!n)
		return false;
	if (len) {
		if (n >= len)
			n = len - 1;
		memcpy(buf, tmp, n);
		buf[n] = '\0';
	}
	return true;
}

static const struct bg_func *func_of(const struct out_json *w, uint32_t func)
{
	return w->o.funcs && func < w->o.funcs->n ? &w->o.funcs->f[func] : NULL;
}

static void put_name(struct linebuf *l, const struct bg_func *fn, uint32_t func)
{
	char buf[32];

	linebuf__put(l, "{\"name\":", 8);
	if (fn) {
		put_str(l, fn->name);
	} else {
		snprintf(buf, sizeof(buf), "func#%u", func);
		put_str(l, buf);
	}
	linebuf__put(l, ",\"module\":", 10);
	if (fn && fn->module)
		put_str(l, fn->module);
	else
		linebuf__put(l, "null", 4);
}

/* ret, ret_type, retval; all null for void functions and open calls. */
static void put_ret(const struct out_json *w, struct linebuf *l, const struct bg_func *fn,
		    const uint64_t *ret)
{
	char num[24], txt[32];
	size_t n;

	if (!ret || !(n = fmt_ret(num, *ret, fn))) {
		linebuf__str(l, ",\"ret\":null,\"ret_type\":null,\"retval\":null");
		return;
	}
	out_text__fmt_retval(txt, sizeof(txt), *ret, fn, w->o.hex);
	linebuf__put(l, ",\"ret\":", 7);
	linebuf__put(l, num, n);
	linebuf__put(l, ",\"ret_type\":", 12);
	if (fn && fn->ret_type)
		put_str(l, fn->ret_type);
	else
		linebuf__put(l, "null", 4);
	linebuf__put(l, ",\"retval\":\"", 11);
	linebuf__str(l, txt);
	linebuf__char(l, '"');
}

static void put_call(void *ctx, const struct out_call *c)
{
	const struct out_json *w = ctx;
	const struct bg_func *fn = func_of(w, c->func);
	struct linebuf l;

	linebuf__init(&l, w->o.out);
	put_name(&l, fn, c->func);
	linebuf__put(&l, ",\"depth\":", 9);
	linebuf__u64(&l, c->depth, 0, 0);
	linebuf__put(&l, ",\"cpu\":", 7);
	linebuf__u64(&l, c->cpu, 0, 0);
	linebuf__put(&l, ",\"pid\":", 7);
	linebuf__u64(&l, c->pid, 0, 0);
	linebuf__put(&l, ",\"comm\":", 8);
	put_str(&l, c->comm ? c->comm : "<...>");
	linebuf__put(&l, ",\"ts\":", 6);
	linebuf__u64(&l, c->ts, 0, 0);
	linebuf__put(&l, ",\"dur\":", 7);
	if (c->dur)
		linebuf__u64(&l, *c->dur, 0, 0);
	else
		linebuf__put(&l, "null", 4);
	put_ret(w, &l, fn, c->ret);
	linebuf__str(&l, c->orphan ? ",\"orphan\":true" : ",\"orphan\":false");
	linebuf__str(&l, c->unfinished ? ",\"unfinished\":true}\n" : ",\"unfinished\":false}\n");
	linebuf__flush(&l);
}

static struct json_cpu *cpu_get(struct out_calls *w, uint32_t cpu)
{
	if (cpu >= BG_MAX_CPUS)
		return NULL;
	if (cpu >= w->ncpus) {
		uint32_t n = cpu + 1;
		struct json_cpu **v = realloc(w->cpus, n * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + w->ncpus, 0, (n - w->ncpus) * sizeof(*v));
		w->cpus = v;
		w->ncpus = n;
	}
	if (!w->cpus[cpu]) {
		w->cpus[cpu] = calloc(1, sizeof(**w->cpus));
		if (w->cpus[cpu])
			w->cpus[cpu]->cpu = cpu;
	}
	return w->cpus[cpu];
}

static void put_open(const struct out_calls *w, const struct json_cpu *jc, uint32_t d)
{
	const struct open_call *o = &jc->d[d];
	struct out_call c = { .func = o->func, .depth = d, .cpu = jc->cpu, .pid = o->pid,
			  .comm = o->comm, .ts = o->ts, .unfinished = true };

	w->fn(w->ctx, &c);
}

/* Entries at depth >= from whose exit can no longer come, shallow first. */
static void close_open(const struct out_calls *w, struct json_cpu *jc, uint32_t from)
{
	for (uint32_t d = from; d < jc->top; d++) {
		if (!jc->d[d].used)
			continue;
		put_open(w, jc, d);
		jc->d[d].used = false;
	}
	if (from < jc->top)
		jc->top = from;
}

static void on_enter(struct out_calls *w, const struct gev *ev)
{
	struct json_cpu *jc = cpu_get(w, ev->cpu);
	struct open_call *o;
	const char *comm;
	size_t len;

	if (!jc || ev->depth >= BG_MAX_DEPTH)
		return;
	close_open(w, jc, ev->depth);
	o = &jc->d[ev->depth];
	o->used = true;
	o->func = ev->func;
	o->pid = ev->pid;
	o->ts = ev->ts;
	if (ev->depth >= jc->top)
		jc->top = ev->depth + 1;
	comm = ev->comm ? ev->comm : "<...>";
	len = strnlen(comm, sizeof(o->comm) - 1);
	memcpy(o->comm, comm, len);
	o->comm[len] = '\0';
}

static void on_end(struct out_calls *w, const struct gev *ev)
{
	struct json_cpu *jc = cpu_get(w, ev->cpu);
	uint64_t ts = ev->type == GEV_EXIT ? ev->ts - ev->dur : ev->ts;
	struct out_call c = { .func = ev->func, .depth = ev->depth, .cpu = ev->cpu,
			  .pid = ev->pid, .comm = ev->comm, .ts = ts, .dur = &ev->dur,
			  .ret = ev->noret ? NULL : &ev->ret,
			  .orphan = ev->type == GEV_EXIT && ev->tail };

	if (jc && ev->depth < BG_MAX_DEPTH) {
		/* anything deeper was left without its exit */
		close_open(w, jc, ev->depth + 1);
		/* the same test as the builder's "} / * func * /" */
		if (ev->type == GEV_LEAF || c.orphan)
			close_open(w, jc, ev->depth);
		else if (jc->d[ev->depth].used)
			c.ts = jc->d[ev->depth].ts;
		jc->d[ev->depth].used = false;
	}
	w->fn(w->ctx, &c);
}

/* Enter, leaf and exit events; false for the others. */
bool out_calls__emit(struct out_calls *t, const struct gev *ev)
{
	switch (ev->type) {
	case GEV_ENTER:
		on_enter(t, ev);
		return true;
	case GEV_LEAF:
	case GEV_EXIT:
		on_end(t, ev);
		return true;
	default:
		return false;
	}
}

void out_calls__end(struct out_calls *t)
{
	for (uint32_t i = 0; i < t->ncpus; i++)
		if (t->cpus[i])
			close_open(t, t->cpus[i], 0);
}

void out_json__emit(void *ctx, const struct gev *ev)
{
	struct out_json *w = ctx;

	if (out_calls__emit(w->calls, ev))
		return;
	switch (ev->type) {
	case GEV_LOST:
		fprintf(w->o.out, "{\"lost\":%" PRIu64 ",\"cpu\":%u,\"ts\":%" PRIu64 "}\n",
			ev->count, ev->cpu, ev->ts);
		break;
	default:
		break;
	}
}

void out_json__end(struct out_json *w)
{
	out_calls__end(w->calls);
}
