// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Argument and return address lookups for the writers (args_src.h): the
 * prototype of each function, found once by name as the kernel finds it
 * (args__find_func()), the C spelling of its parameters for JSON, and the
 * symbol of a return address.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "args.h"
#include "grow.h"
#include "btfname.h"
#include "args_src.h"
#include "detail.h"
#include "options.h"

struct fcache {
	bool looked;
	uint32_t id; /* BTF FUNC, 0: none */
	const struct btf *btf; /* where id is: src.btf or a module's */
	const char **types; /* C spelling per parameter (af->names), made on first use */
	unsigned int nparams;
};

struct args_fmt {
	struct args_src src;
	const struct functab *funcs;
	struct fcache *fc;
	size_t nfc;
	struct btf_names *names; /* parameter type spellings, once per type */
};

struct args_fmt *args_fmt__new(const struct args_src *src, const struct functab *funcs)
{
	struct args_fmt *af = calloc(1, sizeof(*af));

	if (!af)
		return NULL;
	af->names = btf_names__new();
	if (!af->names) {
		free(af);
		return NULL;
	}
	if (src)
		af->src = *src;
	af->funcs = funcs;
	return af;
}

void args_fmt__free(struct args_fmt *af)
{
	if (!af)
		return;
	for (size_t i = 0; i < af->nfc; i++)
		free(af->fc[i].types);
	free(af->fc);
	btf_names__free(af->names);
	free(af);
}

/* The cache slot of func, looked up on first use; NULL when out of memory. */
static struct fcache *cache_of(struct args_fmt *af, uint32_t func)
{
	struct fcache *c;

	if (!af->funcs || func >= af->funcs->n)
		return NULL;
	/* At once as many as the table has functions (func is one of them). */
	c = grow_zeroed(af->fc, &af->nfc, sizeof(*c), func, af->funcs->n);
	if (!c)
		return NULL;
	af->fc = c;
	c += func;
	if (!c->looked) {
		const struct bg_func *f = &af->funcs->f[func];
		const struct btf_type *t;

		c->looked = true;
		c->btf = af->src.btf;
		c->id = args__find_func(c->btf, f->name);
		/*
		 * The kernel looks in vmlinux, then in every module's BTF; the
		 * function's own module is where a module function's FUNC is.
		 */
		if (!c->id && f->module && af->src.module_btf) {
			c->btf = af->src.module_btf(af->src.module_ctx, f->module);
			c->id = args__find_func(c->btf, f->name);
		}
		t = c->id ? btf__type_by_id(c->btf, c->id) : NULL;
		t = t ? btf__type_by_id(c->btf, t->type) : NULL;
		c->nparams = t && btf_is_func_proto(t) ? btf_vlen(t) : 0;
	}
	return c;
}

uint32_t args_fmt__func_id(struct args_fmt *af, uint32_t func)
{
	struct fcache *c = af ? cache_of(af, func) : NULL;

	return c ? c->id : 0;
}

const struct btf *args_fmt__btf(struct args_fmt *af, uint32_t func)
{
	struct fcache *c = af ? cache_of(af, func) : NULL;

	return c && c->id ? c->btf : NULL;
}

/* What detail_after() renders from. */
struct detail_ctx {
	const struct btf *btf;
	uint32_t func_id;
	const struct detail_vals *vals;
};

/* --args-detail's text behind a value (struct args_after). */
static int detail_after(void *ctx, unsigned int reg, uint64_t val, char *buf, size_t size)
{
	const struct detail_ctx *dc = ctx;

	return detail__snprintf(buf, size, dc->btf, dc->func_id, dc->vals, reg, val);
}

int args_fmt__args(struct args_fmt *af, const struct gev *ev, int version, uint32_t flags,
		   char *buf, size_t size)
{
	if (size)
		buf[0] = '\0';
	/* text the kernel printed: its dialect already decided what shows */
	if (af && ev->args_text && (flags & BG_O_ARGS))
		return snprintf(buf, size, "%s", ev->args_text);
	if (!af || !ev->nargs ||
	    !args__shown(version, flags & BG_O_ARGS, flags & BG_O_RETADDR))
		return 0;
	if ((flags & BG_O_DETAIL) && ev->detail.n) {
		struct detail_ctx dc = { args_fmt__btf(af, ev->func),
					 args_fmt__func_id(af, ev->func), &ev->detail };
		struct args_after after = { detail_after, &dc };

		return args__snprintf_after(buf, size, dc.btf, dc.func_id, ev->args, ev->nargs,
					    version, &after);
	}
	return args__snprintf(buf, size, args_fmt__btf(af, ev->func),
			      args_fmt__func_id(af, ev->func), ev->args, ev->nargs, version);
}

int args_fmt__retaddr(struct args_fmt *af, const struct gev *ev, int version, uint32_t flags,
		      char *buf, size_t size)
{
	struct args_sym s = { 0 };

	if (size)
		buf[0] = '\0';
	/* "": a line of that text without one */
	if (af && ev->retaddr_text && (flags & BG_O_RETADDR))
		return *ev->retaddr_text ? snprintf(buf, size, "<-%s", ev->retaddr_text) : 0;
	if (!af || !args__retaddr_shown(version, flags & BG_O_RETADDR))
		return 0;
	if (!ev->caller || !af->src.sym || af->src.sym(af->src.sym_ctx, ev->caller, &s))
		s.name = NULL;
	return args__retaddr_snprintf(buf, size, ev->caller, s.name, s.module,
				      s.name ? ev->caller - s.start : 0, s.size);
}

int args_fmt__nparams(struct args_fmt *af, uint32_t func)
{
	struct fcache *c = af ? cache_of(af, func) : NULL;

	return c && c->id ? (int)c->nparams : -1;
}

/* btf_type_skip_modifiers(): typedefs, const, volatile, restrict, tags. */
static const struct btf_type *skip_mods(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = id ? btf__type_by_id(btf, id) : NULL;

	for (int i = 0; t && i < 32; i++) {
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			t = t->type ? btf__type_by_id(btf, t->type) : NULL;
			break;
		default:
			return t;
		}
	}
	return NULL;
}

bool args_fmt__param(struct args_fmt *af, uint32_t func, unsigned int i,
		     struct args_param *out)
{
	struct fcache *c = af ? cache_of(af, func) : NULL;
	const struct btf_type *t, *pt;
	const struct btf_param *p;
	const struct btf *btf;

	if (!c || !c->id || i >= c->nparams)
		return false;
	btf = c->btf;
	t = btf__type_by_id(btf, c->id);
	t = btf__type_by_id(btf, t->type);
	p = btf_params(t) + i;
	if (!c->types) {
		c->types = calloc(c->nparams, sizeof(*c->types));
		if (!c->types)
			return false;
	}
	if (!c->types[i])
		c->types[i] = btf_names__get(af->names, btf, p->type);
	*out = (struct args_param){ .name = btf__name_by_offset(btf, p->name_off),
				    .type = c->types[i] ? c->types[i] : "?" };
	if (!out->name)
		out->name = "";
	pt = skip_mods(btf, p->type);
	if (pt) {
		out->kind = (uint8_t)btf_kind(pt);
		out->size = btf_is_ptr(pt) ? 8 : btf_is_int(pt) || btf_is_composite(pt) ||
					      btf_is_any_enum(pt) || btf_is_float(pt) ?
					 pt->size : 0;
		if (btf_is_int(pt))
			out->enc = (uint8_t)btf_int_encoding(pt);
		else if (btf_is_enum(pt) && btf_kflag(pt))
			out->enc = BTF_INT_SIGNED;
	}
	return true;
}

int args_fmt__members(struct args_fmt *af, uint32_t func, unsigned int i,
		      struct detail_member *m)
{
	struct fcache *c = af ? cache_of(af, func) : NULL;

	return c && c->id ? detail__param_members(c->btf, c->id, i, m) : 0;
}

const char *args_fmt__enumerator(struct args_fmt *af, uint32_t func, unsigned int i,
				 unsigned int k, int32_t *val)
{
	struct fcache *c = af ? cache_of(af, func) : NULL;
	const struct btf_type *t;
	const struct btf_enum *e;

	if (!c || !c->id || i >= c->nparams)
		return NULL;
	t = btf__type_by_id(c->btf, c->id);
	t = btf__type_by_id(c->btf, t->type);
	t = skip_mods(c->btf, btf_params(t)[i].type);
	if (!t || !btf_is_enum(t) || k >= btf_vlen(t))
		return NULL;
	e = btf_enum(t) + k;
	*val = e->val;
	return btf__name_by_offset(c->btf, e->name_off) ?: "";
}

/* An snprintf-style sink, as args.c's. */
struct jbuf {
	char *buf;
	size_t size, len;
};

static void jput(struct jbuf *b, const char *s, size_t n)
{
	if (b->size && b->len < b->size - 1) {
		size_t room = b->size - 1 - b->len;

		memcpy(b->buf + b->len, s, n < room ? n : room);
		b->buf[b->len + (n < room ? n : room)] = '\0';
	}
	b->len += n;
}

/* A JSON string of s: names and C types need no more than these escapes. */
static void jstr(struct jbuf *b, const char *s, size_t n)
{
	jput(b, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"' || s[i] == '\\')
			jput(b, "\\", 1);
		if ((unsigned char)s[i] >= 0x20)
			jput(b, s + i, 1);
	}
	jput(b, "\"", 1);
}

/* "name=value, ..." of the formatter, one value per parameter. */
static void json_args(struct args_fmt *af, struct jbuf *b, uint32_t func,
		      const uint64_t *args, int nargs, int version,
		      const struct detail_vals *detail)
{
	char text[1024], dj[512];
	struct args_param p;
	const char *at = text;
	int n = args_fmt__nparams(af, func), dn;
	unsigned int reg = 0;

	if (n < 0 || !nargs || args__snprintf(text, sizeof(text), args_fmt__btf(af, func),
					      args_fmt__func_id(af, func), args, nargs,
					      version < BG_ARGS_6_15 ? BG_ARGS_6_15 : version) < 0) {
		jput(b, "null", 4);
		return;
	}
	jput(b, "[", 1);
	for (int i = 0; i < n && *at && strncmp(at, "...", 3); i++) {
		const char *end = strstr(at, ", "), *eq = strchr(at, '=');
		size_t len = end ? (size_t)(end - at) : strlen(at);

		if (!args_fmt__param(af, func, (unsigned int)i, &p))
			break;
		jput(b, i ? ",{\"name\":" : "{\"name\":", i ? 9 : 8);
		jstr(b, p.name, strlen(p.name));
		jput(b, ",\"type\":", 8);
		jstr(b, p.type, strlen(p.type));
		jput(b, ",\"value\":", 9);
		if (eq && eq < at + len)
			jstr(b, eq + 1, len - (size_t)(eq + 1 - at));
		else
			jput(b, "null", 4);
		dn = detail && reg < (unsigned int)nargs ?
			     detail__json(dj, sizeof(dj), args_fmt__btf(af, func),
					  args_fmt__func_id(af, func), detail, reg, args[reg]) :
			     0;
		if (dn > 0 && (size_t)dn < sizeof(dj))
			jput(b, dj, (size_t)dn);
		jput(b, "}", 1);
		at += len + (end ? 2 : 0);
		/* the registers a parameter takes, as args.c counts them */
		reg += (p.kind == BTF_KIND_STRUCT || p.kind == BTF_KIND_UNION) && p.size > 8 ?
			       (p.size + 7) / 8 :
			       1;
	}
	jput(b, "]", 1);
}

int args_fmt__json(struct args_fmt *af, uint32_t func, uint64_t caller, const uint64_t *args,
		   int nargs, const struct detail_vals *detail, int version, uint32_t flags,
		   char *buf, size_t size)
{
	struct jbuf b = { buf, size, 0 };
	struct args_sym s = { 0 };
	char ra[512];
	int n;

	if (size)
		buf[0] = '\0';
	if (!af)
		return 0;
	if (flags & BG_O_ARGS) {
		jput(&b, "\"args\":", 7);
		json_args(af, &b, func, args, nargs, version,
			  (flags & BG_O_DETAIL) && detail && detail->n ? detail : NULL);
	}
	if (flags & BG_O_RETADDR) {
		jput(&b, flags & BG_O_ARGS ? ",\"retaddr\":" : "\"retaddr\":",
		     flags & BG_O_ARGS ? 11 : 10);
		if (!caller || !af->src.sym || af->src.sym(af->src.sym_ctx, caller, &s))
			s.name = NULL;
		n = caller ? args__retaddr_snprintf(ra, sizeof(ra), caller, s.name, s.module,
						    s.name ? caller - s.start : 0, s.size) :
			     0;
		if (n > 2 && (size_t)n < sizeof(ra))
			jstr(&b, ra + 2, (size_t)n - 2); /* without the "<-" */
		else
			jput(&b, "null", 4);
	}
	return (int)b.len;
}
