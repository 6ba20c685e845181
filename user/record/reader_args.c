// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ARGS and SYMS blocks of a record file, read back for funcgraph-args
 * and -retaddr: prototypes rebuilt as BTF the argument printer walks as
 * it would the kernel's, and the symbols of return addresses looked up
 * by address (record__args_src()).
 */
#include <errno.h>
#include <stdlib.h>

#include <bpf/btf.h>

#include "codec.h"
#include "detail.h"
#include "reader_int.h"
#include "record.h"

/* A type of kind, size and encoding as a BTF type of btf; its id or < 0. */
static int r_type(struct btf *btf, unsigned int kind, unsigned int enc, uint32_t size)
{
	switch (kind) {
	case 0:
		return 0;
	case BTF_KIND_PTR:
		return btf__add_ptr(btf, 0);
	case BTF_KIND_INT:
		return btf__add_int(btf, "int", size && size <= 16 ? size : 8, enc & 7);
	case BTF_KIND_ENUM:
		return btf__add_enum(btf, "e", size == 1 || size == 2 || size == 8 ? size : 4);
	case BTF_KIND_ENUM64:
		return btf__add_enum64(btf, "e", 8, false);
	case BTF_KIND_UNION:
		return btf__add_union(btf, "u", size);
	case BTF_KIND_FLOAT:
		return btf__add_float(btf, "f", size == 2 || size == 4 || size == 8 ||
						 size == 12 || size == 16 ? size : 8);
	default:
		return btf__add_struct(btf, "s", size);
	}
}

/*
 * The enumerators after an enum parameter (version 3) onto enum id of
 * r->btf, or only read past when id is not above 0. BTF's kflag says
 * what the writer's enum was, whatever the sign of its values.
 */
static int r_enumerators(struct record_reader *r, struct cur *c, int id, bool is_signed)
{
	unsigned int n = (unsigned int)c_le(c, 2);
	struct btf_type *t;
	int err = 0;

	if (n > RECORD_MAX_ENUMS)
		return r_bad(r, "enum of %u values", n);
	for (unsigned int k = 0; k < n && !err && !c->bad; k++) {
		char *name = c_str(c, &err);
		int32_t v = (int32_t)(uint32_t)c_le(c, 4);

		if (!err && !c->bad && id > 0 && btf__add_enum_value(r->btf, name ?: "", v))
			err = -ENOMEM;
		free(name);
	}
	if (id > 0 && !err) {
		t = (struct btf_type *)btf__type_by_id(r->btf, (uint32_t)id);
		t->info = (t->info & ~(1U << 31)) | (is_signed ? 1U << 31 : 0);
	}
	return err;
}

/*
 * The members after a pointer parameter (version 4) as a struct of them,
 * and the pointer to it: its id (or 0 when ok is false, only read past),
 * or a negative error.
 */
static int r_members(struct record_reader *r, struct cur *c, bool ok)
{
	unsigned int n = (unsigned int)c_le(c, 1);
	char *names[BG_DETAIL_FIELDS] = { 0 };
	uint32_t off[BG_DETAIL_FIELDS], end = 0;
	unsigned int size[BG_DETAIL_FIELDS], sg[BG_DETAIL_FIELDS];
	int ints[BG_DETAIL_FIELDS], st = 0, err = 0;

	if (n > BG_DETAIL_FIELDS)
		return r_bad(r, "pointer parameter with %u members", n);
	for (unsigned int k = 0; k < n && !err; k++) {
		names[k] = c_str(c, &err);
		off[k] = (uint32_t)c_le(c, 2);
		size[k] = (unsigned int)c_le(c, 1);
		sg[k] = (unsigned int)c_le(c, 1);
		if (!err && !c->bad && ((size[k] != 1 && size[k] != 2 && size[k] != 4 && size[k] != 8) ||
					 sg[k] > 1 || !names[k] || !*names[k]))
			err = r_bad(r, "pointer parameter with a bad member");
		if (!err && off[k] + size[k] > end)
			end = off[k] + size[k];
	}
	/* the members' types first: a struct's fields follow it directly */
	for (unsigned int k = 0; k < n && !err && !c->bad && ok; k++)
		if ((ints[k] = btf__add_int(r->btf, "int", (size_t)size[k],
					    sg[k] ? BTF_INT_SIGNED : 0)) < 0)
			err = -ENOMEM;
	if (!err && !c->bad && ok && n) {
		st = btf__add_struct(r->btf, "s", end);
		for (unsigned int k = 0; k < n && st > 0; k++)
			if (btf__add_field(r->btf, names[k], ints[k], off[k] * 8, 0))
				st = -1;
		if (st < 0)
			err = -ENOMEM;
	}
	for (unsigned int k = 0; k < n; k++)
		free(names[k]);
	if (err)
		return err;
	return ok && !c->bad ? btf__add_ptr(r->btf, st) : 0;
}

/*
 * One function's prototype from an ARGS block into r->btf: the types by
 * what the printer looks at, under typedefs named with the recorded C
 * spelling (JSON's "type"), a FUNC named as the function.
 */
static int r_proto(struct record_reader *r, struct cur *c, const char *fname)
{
	unsigned int n = (unsigned int)c_le(c, 2);
	char *names[64] = { 0 };
	int types[64], proto, err = 0;
	bool ok = fname != NULL;

	if (n == RECORD_NO_PROTO)
		return 0;
	if (n > 64)
		return r_bad(r, "prototype of %u parameters", n);
	/* Parameters must follow their FUNC_PROTO: their types go first. */
	for (unsigned int k = 0; k < n && !err; k++) {
		unsigned int kind = (unsigned int)c_le(c, 1), enc = (unsigned int)c_le(c, 1);
		uint32_t size = (uint32_t)c_le(c, 4);
		char *type;

		names[k] = c_str(c, &err);
		type = c_str(c, &err);
		types[k] = -1;
		if (!err && !c->bad && kind == BTF_KIND_PTR && r->version >= RECORD_VERSION_DETAIL) {
			types[k] = r_members(r, c, ok);
			if (types[k] < 0) {
				err = types[k];
				types[k] = -1;
			}
		} else if (!err && !c->bad && ok) {
			types[k] = r_type(r->btf, kind, enc, size);
		}
		/* the values must follow their enum in BTF, before the typedef */
		if (!err && !c->bad && kind == BTF_KIND_ENUM && r->version >= RECORD_VERSION_ENUMS)
			err = r_enumerators(r, c, ok ? types[k] : 0, enc & BTF_INT_SIGNED);
		if (!err && !c->bad && ok) {
			if (types[k] > 0 && type)
				types[k] = btf__add_typedef(r->btf, type, types[k]);
			ok = types[k] >= 0;
		}
		free(type);
	}
	if (!err && c->bad)
		err = r_bad(r, "arguments block is malformed");
	if (!err && ok) {
		proto = btf__add_func_proto(r->btf, 0);
		for (unsigned int k = 0; k < n && proto > 0; k++)
			if (btf__add_func_param(r->btf, names[k] ? names[k] : "", types[k]))
				proto = -1;
		if (proto > 0)
			btf__add_func(r->btf, fname, BTF_FUNC_GLOBAL, proto);
	}
	for (unsigned int k = 0; k < n; k++)
		free(names[k]);
	return err;
}

int r_args(struct record_reader *r, size_t len)
{
	struct cur c = { .p = r->raw, .len = len };
	uint64_t first = c_le(&c, 4), count = c_le(&c, 4);
	int err = 0;

	if (c.bad || first + count > r->info.funcs.n)
		return r_bad(r, "arguments block for functions not in the table");
	for (uint64_t i = first; i < first + count && !err; i++)
		err = r_proto(r, &c, r->btf ? r->info.funcs.f[i].name : NULL);
	if (!err && c.at != len)
		err = r_bad(r, "arguments block has %zu bytes too many", len - c.at);
	return err;
}

int r_syms(struct record_reader *r, size_t len)
{
	struct cur c = { .p = r->raw, .len = len };
	uint64_t n = c_le(&c, 4);
	int err = 0;

	if (c.bad || n > len / 28)
		return r_bad(r, "symbols block is malformed");
	for (uint64_t i = 0; i < n && !err; i++) {
		struct rsym s = { 0 };

		s.addr = c_le(&c, 8);
		s.off = c_le(&c, 8);
		s.size = c_le(&c, 8);
		s.name = c_str(&c, &err);
		s.module = c_str(&c, &err);
		if (!err && c.bad)
			err = r_bad(r, "symbols block is malformed");
		if (!err && r->nsyms == r->syms_cap) {
			size_t cap = r->syms_cap ? r->syms_cap * 2 : 256;
			struct rsym *p = realloc(r->syms, cap * sizeof(*p));

			if (!p)
				err = -ENOMEM;
			else
				r->syms = p, r->syms_cap = cap;
		}
		if (err) {
			free(s.name);
			free(s.module);
			break;
		}
		r->syms[r->nsyms++] = s;
		r->syms_sorted = false;
	}
	return err;
}

static int cmp_rsym(const void *a, const void *b)
{
	const struct rsym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int r_sym(void *ctx, uint64_t addr, struct args_sym *out)
{
	struct record_reader *r = ctx;
	struct rsym key = { .addr = addr }, *s;

	if (!r->syms_sorted && r->nsyms) {
		qsort(r->syms, r->nsyms, sizeof(*r->syms), cmp_rsym);
		r->syms_sorted = true;
	}
	s = r->nsyms ? bsearch(&key, r->syms, r->nsyms, sizeof(*r->syms), cmp_rsym) : NULL;
	if (!s || !s->name)
		return -ENOENT;
	*out = (struct args_sym){ s->name, s->module, addr - s->off, s->size };
	return 0;
}

const struct args_src *record__args_src(struct record_reader *r)
{
	r->src = (struct args_src){ .btf = r->btf, .sym = r_sym, .sym_ctx = r };
	return &r->src;
}
