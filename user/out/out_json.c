// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * JSON lines writer: one line per call as the call tracker reports it,
 * lost-record markers as they come.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"
#include "linebuf.h"
#include "options.h"
#include "out_json.h"
#include "out_text.h"

struct out_json {
	struct out_json_opts o;
	struct calls *calls;
	struct args_fmt *af; /* with BG_O_ARGS or BG_O_RETADDR */
};

static void put_call(void *ctx, const struct call *c);

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
	w->calls = calls__new(&(struct calls_opts){ .on_call = put_call, .ctx = w });
	if (opts->flags & (BG_O_ARGS | BG_O_RETADDR))
		w->af = args_fmt__new(opts->args, opts->funcs);
	if (!w->calls || ((opts->flags & (BG_O_ARGS | BG_O_RETADDR)) && !w->af)) {
		calls__free(w->calls);
		free(w);
		return NULL;
	}
	return w;
}

void out_json__free(struct out_json *w)
{
	if (!w)
		return;
	args_fmt__free(w->af);
	calls__free(w->calls);
	free(w);
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
		    const struct call *c)
{
	char num[24], txt[32];
	size_t n;

	if (c->noret || !(n = fmt_ret(num, c->ret, fn))) {
		linebuf__str(l, ",\"ret\":null,\"ret_type\":null,\"retval\":null");
		return;
	}
	out_text__fmt_retval(txt, sizeof(txt), c->ret, fn, w->o.hex);
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

static void put_call(void *ctx, const struct call *c)
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
	put_str(&l, c->comm);
	linebuf__put(&l, ",\"ts\":", 6);
	linebuf__u64(&l, c->ts, 0, 0);
	linebuf__put(&l, ",\"dur\":", 7);
	if (c->unfinished)
		linebuf__put(&l, "null", 4);
	else
		linebuf__u64(&l, c->dur, 0, 0);
	put_ret(w, &l, fn, c);
	if (w->af) {
		char a[2048];
		int n = args_fmt__json(w->af, c->func, c->caller, c->args, c->nargs, c->detail,
				       w->o.dialect, w->o.flags, a, sizeof(a));

		linebuf__char(&l, ',');
		linebuf__put(&l, a, n > 0 && (size_t)n < sizeof(a) ? (size_t)n : 0);
	}
	linebuf__str(&l, c->orphan ? ",\"orphan\":true" : ",\"orphan\":false");
	linebuf__str(&l, c->unfinished ? ",\"unfinished\":true}\n" : ",\"unfinished\":false}\n");
	linebuf__flush(&l);
}

void out_json__emit(void *ctx, const struct gev *ev)
{
	struct out_json *w = ctx;

	calls__feed(w->calls, ev);
	if (ev->type == GEV_LOST)
		fprintf(w->o.out, "{\"lost\":%" PRIu64 ",\"cpu\":%u,\"ts\":%" PRIu64 "}\n",
			ev->count, ev->cpu, ev->ts);
}

void out_json__end(struct out_json *w)
{
	calls__flush(w->calls);
}
