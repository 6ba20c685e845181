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

void out_json__put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			/* comm is bytes, not UTF-8: keep the JSON valid */
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

void out_json__put_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned int)(ns % 1000));
}

bool out_json__fmt_ret(char *buf, size_t len, uint64_t ret, const struct bg_func *f)
{
	unsigned int kind = f ? f->ret_kind : BG_RET_UNKNOWN;
	unsigned int bytes = f && f->ret_size >= 1 && f->ret_size < 8 ? f->ret_size : 8;
	uint64_t sign;

	if (kind == BG_RET_VOID)
		return false;
	if (kind == BG_RET_UNKNOWN) {
		snprintf(buf, len, "%" PRIu64, ret);
		return true;
	}
	if (bytes < 8)
		ret &= (1ULL << (bytes * 8)) - 1;
	if (kind != BG_RET_SIGNED) {
		snprintf(buf, len, "%" PRIu64, ret);
		return true;
	}
	sign = 1ULL << (bytes * 8 - 1);
	snprintf(buf, len, "%" PRId64, (int64_t)((ret ^ sign) - sign));
	return true;
}

static const struct bg_func *func_of(const struct out_json *w, uint32_t func)
{
	return w->o.funcs && func < w->o.funcs->n ? &w->o.funcs->f[func] : NULL;
}

static void put_name(FILE *f, const struct bg_func *fn, uint32_t func)
{
	char buf[32];

	fputs("{\"name\":", f);
	if (fn) {
		out_json__put_str(f, fn->name);
	} else {
		snprintf(buf, sizeof(buf), "func#%u", func);
		out_json__put_str(f, buf);
	}
	fputs(",\"module\":", f);
	if (fn && fn->module)
		out_json__put_str(f, fn->module);
	else
		fputs("null", f);
}

/* ret, ret_type, retval; all null for void functions and open calls. */
static void put_ret(const struct out_json *w, const struct bg_func *fn, const uint64_t *ret)
{
	FILE *f = w->o.out;
	char num[32], txt[32];

	if (!ret || !out_json__fmt_ret(num, sizeof(num), *ret, fn)) {
		fputs(",\"ret\":null,\"ret_type\":null,\"retval\":null", f);
		return;
	}
	out_text__fmt_retval(txt, sizeof(txt), *ret, fn, w->o.hex);
	fprintf(f, ",\"ret\":%s,\"ret_type\":", num);
	if (fn && fn->ret_type)
		out_json__put_str(f, fn->ret_type);
	else
		fputs("null", f);
	fprintf(f, ",\"retval\":\"%s\"", txt);
}

static void put_call(void *ctx, const struct out_call *c)
{
	const struct out_json *w = ctx;
	const struct bg_func *fn = func_of(w, c->func);
	FILE *f = w->o.out;

	put_name(f, fn, c->func);
	fprintf(f, ",\"depth\":%u,\"cpu\":%u,\"pid\":%u,\"comm\":", c->depth, c->cpu, c->pid);
	out_json__put_str(f, c->comm ? c->comm : "<...>");
	fprintf(f, ",\"ts\":%" PRIu64 ",\"dur\":", c->ts);
	if (c->dur)
		fprintf(f, "%" PRIu64, *c->dur);
	else
		fputs("null", f);
	put_ret(w, fn, c->ret);
	fprintf(f, ",\"orphan\":%s,\"unfinished\":%s}\n", c->orphan ? "true" : "false",
		c->unfinished ? "true" : "false");
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
	for (uint32_t d = from; d < BG_MAX_DEPTH; d++) {
		if (!jc->d[d].used)
			continue;
		put_open(w, jc, d);
		jc->d[d].used = false;
	}
}

static void on_enter(struct out_calls *w, const struct gev *ev)
{
	struct json_cpu *jc = cpu_get(w, ev->cpu);
	struct open_call *o;

	if (!jc || ev->depth >= BG_MAX_DEPTH)
		return;
	close_open(w, jc, ev->depth);
	o = &jc->d[ev->depth];
	o->used = true;
	o->func = ev->func;
	o->pid = ev->pid;
	o->ts = ev->ts;
	snprintf(o->comm, sizeof(o->comm), "%s", ev->comm ? ev->comm : "<...>");
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
