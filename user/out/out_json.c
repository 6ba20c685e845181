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
#include "grow.h"
#include "linebuf.h"
#include "options.h"
#include "out_json.h"
#include "out_text.h"

/* What the writer collects before handing it to stdio. */
#define STREAM_BUF (64 * 1024)

/*
 * A function's "{"name":...,"module":..." as last written, made again
 * only when its table entry names another string.
 */
struct name_text {
	const char *name, *module; /* what text was made of */
	char *text;
	size_t len;
};

struct out_json {
	struct out_json_opts o;
	struct calls *calls;
	struct args_fmt *af; /* with BG_O_ARGS or BG_O_RETADDR */
	/* Lines go to out in large pieces (linebuf.h); out_json__sync() hands them over. */
	struct linebuf stream;
	char *stream_buf;
	struct name_text *names; /* by function index */
	size_t nnames;
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
	w->stream_buf = malloc(STREAM_BUF);
	if (!w->calls || ((opts->flags & (BG_O_ARGS | BG_O_RETADDR)) && !w->af) ||
	    !w->stream_buf) {
		args_fmt__free(w->af);
		calls__free(w->calls);
		free(w->stream_buf);
		free(w);
		return NULL;
	}
	linebuf__stream(&w->stream, opts->out, w->stream_buf, STREAM_BUF);
	return w;
}

void out_json__sync(struct out_json *w)
{
	linebuf__flush(&w->stream);
}

void out_json__each_line(struct out_json *w)
{
	out_json__sync(w);
	w->stream.each_line = true;
}

void out_json__free(struct out_json *w)
{
	if (!w)
		return;
	out_json__sync(w);
	args_fmt__free(w->af);
	calls__free(w->calls);
	for (size_t i = 0; i < w->nnames; i++)
		free(w->names[i].text);
	free(w->names);
	free(w->stream_buf);
	free(w);
}

/* Bytes a JSON string holds as they are (the rest: '"', '\\', control, >= 0x7f). */
static const bool plain[256] = {
	[0x20 ... '"' - 1] = true,
	['"' + 1 ... '\\' - 1] = true,
	['\\' + 1 ... 0x7e] = true,
};

/* Byte c of a JSON string at o (6 bytes of room); returns where it ends. */
static inline char *json_char(char *o, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";

	if (plain[c]) {
		*o = (char)c;
		return o + 1;
	}
	if (c == '"' || c == '\\') {
		o[0] = '\\';
		o[1] = (char)c;
		return o + 2;
	}
	/* comm is bytes, not UTF-8: keep the JSON valid */
	memcpy(o, "\\u00", 4);
	o[4] = hex[c >> 4];
	o[5] = hex[c & 0xf];
	return o + 6;
}

/* s as a JSON string at o, which has room for 2 + 6 * strlen(s) bytes (NULL: ""); returns its end. */
static char *json_str(char *o, const char *s)
{
	*o++ = '"';
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++)
		o = json_char(o, *p);
	*o++ = '"';
	return o;
}

/* Bytes of a string escaped per reservation of room: a line buffer's 256 hold 42. */
#define STR_CHUNK 40

/* s as a JSON string: quotes, escapes, bytes >= 0x7f as \\u00XX; NULL: "". */
static void put_str(struct linebuf *l, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	linebuf__char(l, '"');
	while (p && *p) {
		/* Never NULL: the buffer holds more than 6 * STR_CHUNK. */
		char *o = linebuf__reserve(l, 6 * STR_CHUNK);

		for (int n = 0; n < STR_CHUNK && *p; n++, p++)
			o = json_char(o, *p);
		linebuf__commit(l, o);
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
	char *o = buf;
	uint64_t sign;
	int64_t v;

	if (kind == BG_RET_VOID)
		return 0;
	if (kind != BG_RET_UNKNOWN && bytes < 8)
		ret &= (1ULL << (bytes * 8)) - 1;
	if (kind != BG_RET_SIGNED)
		return (size_t)(linebuf__dec(o, ret) - buf);
	sign = 1ULL << (bytes * 8 - 1);
	v = (int64_t)((ret ^ sign) - sign);
	if (v < 0)
		*o++ = '-';
	return (size_t)(linebuf__dec(o, v < 0 ? -(uint64_t)v : (uint64_t)v) - buf);
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

/* "{"name":...,"module":..." of fn into a new string; false if out of memory. */
static bool make_name(struct name_text *nt, const struct bg_func *fn)
{
	size_t room = 8 + 2 + 6 * (fn->name ? strlen(fn->name) : 0) + 10 + 2 +
		      6 * (fn->module ? strlen(fn->module) : 1);
	char *t = malloc(room), *o;

	if (!t)
		return false;
	o = json_str(memcpy(t, "{\"name\":", 8) + 8, fn->name);
	o = memcpy(o, ",\"module\":", 10) + 10;
	if (fn->module)
		o = json_str(o, fn->module);
	else
		o = memcpy(o, "null", 4) + 4;
	free(nt->text);
	nt->text = t;
	nt->len = (size_t)(o - t);
	nt->name = fn->name;
	nt->module = fn->module;
	return true;
}

/* The cached text of function func (fn), made on its first line; NULL if out of memory. */
static const struct name_text *name_of(struct out_json *w, const struct bg_func *fn,
				       uint32_t func)
{
	struct name_text *nt;

	nt = grow_zeroed(w->names, &w->nnames, sizeof(*nt), func, 64);
	if (!nt)
		return NULL;
	w->names = nt;
	nt += func;
	if ((!nt->text || nt->name != fn->name || nt->module != fn->module) && !make_name(nt, fn))
		return NULL;
	return nt;
}

static void put_name(struct out_json *w, struct linebuf *l, const struct bg_func *fn,
		     uint32_t func)
{
	const struct name_text *nt = fn ? name_of(w, fn, func) : NULL;
	char buf[32];

	if (nt) {
		linebuf__put(l, nt->text, nt->len);
		return;
	}
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

/* s at o (a constant: its copy is a move or two); returns where it ends. */
#define PUT_LIT(o, s) ((char *)memcpy(o, s, sizeof(s) - 1) + sizeof(s) - 1)

/* ret, ret_type, retval; all null for void functions and open calls. */
static void put_ret(const struct out_json *w, struct linebuf *l, const struct bg_func *fn,
		    const struct call *c)
{
	char *o;

	/* fmt_ret() has nothing for them */
	if (c->noret || (fn && fn->ret_kind == BG_RET_VOID)) {
		linebuf__str(l, ",\"ret\":null,\"ret_type\":null,\"retval\":null");
		return;
	}
	/* In place: 74 bytes at most without ret_type, 30 after it. */
	o = PUT_LIT(linebuf__reserve(l, 80), ",\"ret\":");
	o += fmt_ret(o, c->ret, fn);
	o = PUT_LIT(o, ",\"ret_type\":");
	if (fn && fn->ret_type) {
		linebuf__commit(l, o);
		put_str(l, fn->ret_type);
		o = linebuf__reserve(l, 32);
	} else {
		o = PUT_LIT(o, "null");
	}
	o = PUT_LIT(o, ",\"retval\":\"");
	o += out_text__retval(o, c->ret, fn, w->o.hex);
	*o++ = '"';
	linebuf__commit(l, o);
}

/* depth, cpu, pid, up to comm's value (at most 91 bytes). */
static char *put_ids(char *o, const struct call *c)
{
	o = PUT_LIT(o, ",\"depth\":");
	o = linebuf__dec(o, c->depth);
	o = PUT_LIT(o, ",\"cpu\":");
	o = linebuf__dec(o, c->cpu);
	o = PUT_LIT(o, ",\"pid\":");
	o = linebuf__dec(o, c->pid);
	return PUT_LIT(o, ",\"comm\":");
}

/* ts and dur (at most 53 bytes). */
static char *put_times(char *o, const struct call *c)
{
	o = PUT_LIT(o, ",\"ts\":");
	o = linebuf__dec(o, c->ts);
	o = PUT_LIT(o, ",\"dur\":");
	if (c->unfinished)
		return PUT_LIT(o, "null");
	return linebuf__dec(o, c->dur);
}

static void put_call(void *ctx, const struct call *c)
{
	struct out_json *w = ctx;
	const struct bg_func *fn = func_of(w, c->func);
	struct linebuf *l = &w->stream;

	put_name(w, l, fn, c->func);
	/* Numbers formatted in place, in the stream's buffer (never too small for them). */
	linebuf__commit(l, put_ids(linebuf__reserve(l, 96), c));
	put_str(l, c->comm);
	linebuf__commit(l, put_times(linebuf__reserve(l, 56), c));
	put_ret(w, l, fn, c);
	if (w->af) {
		char a[2048];
		int n = args_fmt__json(w->af, c->func, c->caller, c->args, c->nargs, c->detail,
				       w->o.dialect, w->o.flags, a, sizeof(a));

		linebuf__char(l, ',');
		linebuf__put(l, a, n > 0 && (size_t)n < sizeof(a) ? (size_t)n : 0);
	}
	linebuf__str(l, c->orphan ? ",\"orphan\":true" : ",\"orphan\":false");
	linebuf__str(l, c->unfinished ? ",\"unfinished\":true}\n" : ",\"unfinished\":false}\n");
	linebuf__line_end(l);
}

void out_json__emit(void *ctx, const struct gev *ev)
{
	struct out_json *w = ctx;

	calls__feed(w->calls, ev);
	if (ev->type == GEV_LOST) {
		out_json__sync(w);
		fprintf(w->o.out, "{\"lost\":%" PRIu64 ",\"cpu\":%u,\"ts\":%" PRIu64 "}\n",
			ev->count, ev->cpu, ev->ts);
	}
}

void out_json__end(struct out_json *w)
{
	calls__flush(w->calls);
	out_json__sync(w);
}
