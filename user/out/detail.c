// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --args-detail (detail.h): the read plan of a function from its BTF
 * prototype, and the text and JSON of what was read. Pure: no kernel
 * needed; docs/function-graph-format.md, "bpfgraph's own extensions",
 * has the rules.
 */
#include <stdio.h>
#include <string.h>

#include <bpf/btf.h>

#include "detail.h"
#include "strbuf.h"

/* Longer chains are not BTF a kernel would load: stop instead of looping. */
#define MAX_MODIFIERS 32
/* Anonymous struct/union members looked into for a member, nested. */
#define MAX_ANON_DEPTH 3

/*
 * Members shown of well-known structs, in this order; any other struct
 * shows its first scalar members.
 */
static const struct known {
	const char *name;
	const char *fields[BG_DETAIL_FIELDS + 1];
} known[] = {
	{ "open_how", { "flags", "mode", "resolve" } },
	{ "file", { "f_flags", "f_mode" } },
	{ "inode", { "i_ino", "i_mode" } },
	{ "sockaddr", { "sa_family" } },
	{ "sockaddr_in", { "sin_family", "sin_port" } },
	{ "sockaddr_in6", { "sin6_family", "sin6_port" } },
	{ "sockaddr_un", { "sun_family" } },
};

#define member detail_member

/*
 * Typedefs and modifiers skipped; *user set when a "user" type tag was
 * among them (may be NULL).
 */
static bool is_user_tag(const struct btf *btf, const struct btf_type *t)
{
	return btf_is_type_tag(t) && !strcmp(btf__name_by_offset(btf, t->name_off) ?: "", "user");
}

static const struct btf_type *skip_mods(const struct btf *btf, uint32_t id, bool *user)
{
	const struct btf_type *t = id ? btf__type_by_id(btf, id) : NULL;

	for (int i = 0; t && i < MAX_MODIFIERS; i++) {
		if (!btf_is_mod(t) && !btf_is_typedef(t))
			return t;
		if (user && is_user_tag(btf, t))
			*user = true;
		t = t->type ? btf__type_by_id(btf, t->type) : NULL;
	}
	return NULL;
}

bool detail__btf_has_user_tags(const struct btf *btf)
{
	uint32_t n = btf ? btf__type_cnt(btf) : 0;

	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (t && is_user_tag(btf, t))
			return true;
	}
	return false;
}

/* A member the BPF side can read: an int or enum of 1, 2, 4 or 8 bytes, byte aligned. */
static bool scalar_member(const struct btf *btf, const struct btf_type *st, unsigned int i,
			  struct member *m)
{
	const struct btf_member *bm = btf_members(st) + i;
	const struct btf_type *t = skip_mods(btf, bm->type, NULL);
	uint32_t bits = btf_member_bit_offset(st, i);

	if (!t || btf_member_bitfield_size(st, i) || bits % 8 || (!btf_is_int(t) && !btf_is_any_enum(t)))
		return false;
	if (t->size != 1 && t->size != 2 && t->size != 4 && t->size != 8)
		return false;
	if (btf_is_int(t) && btf_int_bits(t) != t->size * 8)
		return false;
	m->off = bits / 8;
	m->size = (uint8_t)t->size;
	m->is_signed = btf_is_int(t) ? !!(btf_int_encoding(t) & BTF_INT_SIGNED) : btf_kflag(t);
	m->name = btf__name_by_offset(btf, bm->name_off) ?: "";
	return true;
}

/*
 * Member name of st (at byte base), looked for in anonymous members too;
 * false when it is not there or not a scalar.
 */
static bool find_member(const struct btf *btf, const struct btf_type *st, uint32_t base,
			const char *name, int depth, struct member *m)
{
	const struct btf_member *bm = btf_members(st);

	for (unsigned int i = 0; i < btf_vlen(st); i++) {
		const char *n = btf__name_by_offset(btf, bm[i].name_off) ?: "";
		const struct btf_type *t;

		if (*n) {
			if (strcmp(n, name))
				continue;
			if (!scalar_member(btf, st, i, m))
				return false;
			m->off += base;
			return true;
		}
		t = skip_mods(btf, bm[i].type, NULL);
		if (t && btf_is_composite(t) && depth < MAX_ANON_DEPTH &&
		    !(btf_member_bit_offset(st, i) % 8) &&
		    find_member(btf, t, base + btf_member_bit_offset(st, i) / 8, name, depth + 1, m))
			return true;
	}
	return false;
}

/* The members shown of struct st: the known ones, else its first scalars. */
static int struct_members(const struct btf *btf, const struct btf_type *st, struct member *m)
{
	const char *name = btf__name_by_offset(btf, st->name_off) ?: "";
	int n = 0;

	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
		if (strcmp(known[k].name, name))
			continue;
		for (int j = 0; known[k].fields[j] && n < BG_DETAIL_FIELDS; j++)
			if (find_member(btf, st, 0, known[k].fields[j], 0, &m[n]))
				n++;
		return n;
	}
	for (unsigned int i = 0; i < btf_vlen(st) && n < BG_DETAIL_FIELDS; i++)
		if (scalar_member(btf, st, i, &m[n]) && *m[n].name)
			n++;
	return n;
}

/* Offsets the map's u16 holds; larger ones are left out. */
static bool member_fits(const struct member *m)
{
	return m->off + m->size <= UINT16_MAX;
}

/*
 * What parameter type type_id reads as: BG_DK_STR_* for a char pointer,
 * BG_DK_FIELDS for a struct pointer (members in m, *nm of them), 0 else.
 */
static int param_kind(const struct btf *btf, uint32_t type_id, unsigned int what,
		      bool user_tags, struct member *m, int *nm)
{
	const struct btf_type *p = skip_mods(btf, type_id, NULL), *t;
	bool user = false;

	*nm = 0;
	if (!p || !btf_is_ptr(p))
		return 0;
	t = skip_mods(btf, p->type, &user);
	if (!t)
		return 0;
	if ((what & DETAIL_STRINGS) && btf_is_int(t) && t->size == 1 &&
	    !strcmp(btf__name_by_offset(btf, t->name_off) ?: "", "char"))
		return !user_tags ? BG_DK_STR_ANY : user ? BG_DK_STR_USER : BG_DK_STR_KERNEL;
	if ((what & DETAIL_FIELDS) && btf_is_struct(t) && !user) {
		*nm = struct_members(btf, t, m);
		return *nm ? BG_DK_FIELDS : 0;
	}
	return 0;
}

/* The prototype of FUNC func_id, or NULL. */
static const struct btf_type *proto_of(const struct btf *btf, uint32_t func_id)
{
	const struct btf_type *t = btf && func_id ? btf__type_by_id(btf, func_id) : NULL;

	if (!t || !btf_is_func(t))
		return NULL;
	t = btf__type_by_id(btf, t->type);
	return t && btf_is_func_proto(t) ? t : NULL;
}

/*
 * Registers used by parameter type_id: one, and one more per further 8
 * bytes of a struct or union passed by value (args.c's put_blob()).
 */
static unsigned int regs_of(const struct btf *btf, uint32_t type_id)
{
	const struct btf_type *t = skip_mods(btf, type_id, NULL);

	if (t && btf_is_composite(t) && t->size > 8)
		return (t->size + 7) / 8;
	return 1;
}

/*
 * Walks the prototype, parameters whose register is below BG_ARGS_REGS,
 * and counts the arguments read (at most BG_DETAIL_OPS): fills out when
 * given; with only_m, stops at register only_arg and returns its members
 * (in only_m) instead.
 */
static int plan_walk(const struct btf *btf, uint32_t func_id, unsigned int what, bool user_tags,
		     struct bg_detail_plan *out, unsigned int only_arg, struct member *only_m)
{
	const struct btf_type *proto = proto_of(btf, func_id);
	const struct btf_param *p;
	unsigned int reg = 0;
	struct member m[BG_DETAIL_FIELDS];
	int n = 0, nm, kind;

	if (out)
		memset(out, 0, sizeof(*out));
	if (!proto)
		return 0;
	p = btf_params(proto);
	for (unsigned int i = 0; i < btf_vlen(proto) && reg < BG_ARGS_REGS && n < BG_DETAIL_OPS;
	     reg += regs_of(btf, p[i].type), i++) {
		int k = 0;

		kind = param_kind(btf, p[i].type, what, user_tags, m, &nm);
		for (int j = 0; j < nm; j++)
			if (member_fits(&m[j]))
				m[k++] = m[j];
		if (!kind || (kind == BG_DK_FIELDS && !k))
			continue;
		if (only_m && reg == only_arg) {
			memcpy(only_m, m, sizeof(m));
			return k;
		}
		if (out) {
			struct bg_detail_op *op = &out->op[n];

			op->arg = (uint8_t)reg;
			op->kind = (uint8_t)kind;
			op->nfields = (uint8_t)k;
			for (int j = 0; j < k; j++) {
				op->off[j] = (uint16_t)m[j].off;
				op->size[j] = m[j].size;
			}
		}
		n++;
	}
	if (only_m)
		return 0;
	if (out)
		out->nops = (uint32_t)n;
	return n;
}

int detail__plan(const struct btf *btf, uint32_t func_id, unsigned int what, bool user_tags,
		 struct bg_detail_plan *out)
{
	return plan_walk(btf, func_id, what, user_tags, out, 0, NULL);
}

int detail__param_members(const struct btf *btf, uint32_t func_id, unsigned int i,
			  struct detail_member *m)
{
	const struct btf_type *proto = proto_of(btf, func_id);
	int nm, k = 0;

	if (!proto || i >= btf_vlen(proto) ||
	    param_kind(btf, btf_params(proto)[i].type, DETAIL_FIELDS, false, m, &nm) != BG_DK_FIELDS)
		return 0;
	for (int j = 0; j < nm; j++)
		if (member_fits(&m[j]))
			m[k++] = m[j];
	return k;
}

static const struct detail_val *val_of(const struct detail_vals *vals, unsigned int arg)
{
	for (unsigned int i = 0; vals && i < vals->n; i++)
		if (vals->v[i].arg == arg && vals->v[i].nparts)
			return &vals->v[i];
	return NULL;
}

static uint64_t field_at(const struct detail_val *v, int j)
{
	uint64_t x = 0;

	for (int k = 7; k >= 0; k--)
		x = x << 8 | v->data[j * 8 + k];
	return x;
}

/* A string's bytes: up to the NUL, at most BG_DETAIL_STR. */
static size_t str_len(const struct detail_val *v)
{
	size_t have = (size_t)v->nparts * BG_DETAIL_PART, n = 0;

	if (have > BG_DETAIL_STR)
		have = BG_DETAIL_STR;
	while (n < have && v->data[n])
		n++;
	return n;
}

/*
 * A string's body. The text's: printable ASCII as is but '"', '\' and ','
 * (backslash escaped, ',' as \x2c so that ", " never appears inside an
 * argument), everything else \xNN. JSON's: ',' as is, control characters
 * and bytes >= 0x80 as \u00NN.
 */
static void put_escaped(struct strbuf *b, const uint8_t *s, size_t n, bool json)
{
	char tmp[8];

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"' || s[i] == '\\') {
			strbuf__put(b, "\\", 1);
			strbuf__put(b, (const char *)&s[i], 1);
		} else if (s[i] < 0x20 || s[i] >= 0x7f || (!json && s[i] == ',')) {
			int k = json ? snprintf(tmp, sizeof(tmp), "\\u%04x", s[i]) :
				       snprintf(tmp, sizeof(tmp), "\\x%02x", s[i]);

			strbuf__put(b, tmp, (size_t)k);
		} else {
			strbuf__put(b, (const char *)&s[i], 1);
		}
	}
}

/* A member's value: signed decimal, or unsigned hex (0 as "0"). */
static void put_field(struct strbuf *b, uint64_t x, bool is_signed)
{
	if (is_signed)
		strbuf__dec(b, x);
	else if (x)
		strbuf__hex(b, x);
	else
		strbuf__put(b, "0", 1);
}

/* Sign-extends a member of size bytes (recorded zero-extended). */
static uint64_t extend(uint64_t x, bool is_signed, int size)
{
	if (!is_signed || size >= 8)
		return x;
	if (x & (1ULL << (size * 8 - 1)))
		x |= ~0ULL << (size * 8);
	return x;
}

/* A member read for an argument: its name, and its value sign-extended. */
struct field {
	const char *name;
	bool is_signed;
	uint64_t val;
};

/*
 * The members read for register arg of func_id, from its plan (BTF) and
 * v: as many as v's records carried.
 */
static int fields_of(const struct btf *btf, uint32_t func_id, unsigned int arg,
		     const struct detail_val *v, struct field *f)
{
	struct member m[BG_DETAIL_FIELDS];
	int n = plan_walk(btf, func_id, DETAIL_FIELDS, false, NULL, arg, m);

	if (n > v->nparts * 3)
		n = v->nparts * 3;
	for (int j = 0; j < n; j++)
		f[j] = (struct field){ m[j].name, m[j].is_signed,
				       extend(field_at(v, j), m[j].is_signed, m[j].size) };
	return n;
}

int detail__snprintf(char *buf, size_t size, const struct btf *btf, uint32_t func_id,
		     const struct detail_vals *vals, unsigned int arg, uint64_t ptr)
{
	struct strbuf b = { .buf = buf, .size = size };
	const struct detail_val *v = val_of(vals, arg);
	struct field f[BG_DETAIL_FIELDS];
	int n;

	if (!v || !ptr)
		return strbuf__finish(&b);
	if (v->flags & BG_RF_D_FAULT) {
		strbuf__str(&b, " <fault>");
		return strbuf__finish(&b);
	}
	if (!(v->flags & BG_RF_D_FIELDS)) {
		strbuf__put(&b, " \"", 2);
		put_escaped(&b, v->data, str_len(v), false);
		strbuf__str(&b, v->flags & BG_RF_D_TRUNC ? "\"..." : "\"");
		return strbuf__finish(&b);
	}
	n = fields_of(btf, func_id, arg, v, f);
	strbuf__put(&b, " {", 2);
	for (int j = 0; j < n; j++) {
		if (j)
			strbuf__put(&b, " ", 1);
		strbuf__str(&b, f[j].name);
		strbuf__put(&b, "=", 1);
		put_field(&b, f[j].val, f[j].is_signed);
	}
	strbuf__put(&b, "}", 1);
	return strbuf__finish(&b);
}

int detail__json(char *buf, size_t size, const struct btf *btf, uint32_t func_id,
		 const struct detail_vals *vals, unsigned int arg, uint64_t ptr)
{
	struct strbuf b = { .buf = buf, .size = size };
	const struct detail_val *v = val_of(vals, arg);
	struct field f[BG_DETAIL_FIELDS];
	int n;

	if (!v || !ptr)
		return strbuf__finish(&b);
	if (v->flags & BG_RF_D_FAULT) {
		strbuf__str(&b, ",\"fault\":true");
		return strbuf__finish(&b);
	}
	if (!(v->flags & BG_RF_D_FIELDS)) {
		strbuf__put(&b, ",\"str\":\"", 8);
		put_escaped(&b, v->data, str_len(v), true);
		strbuf__put(&b, "\"", 1);
		if (v->flags & BG_RF_D_TRUNC)
			strbuf__str(&b, ",\"truncated\":true");
		return strbuf__finish(&b);
	}
	n = fields_of(btf, func_id, arg, v, f);
	strbuf__str(&b, ",\"fields\":{");
	for (int j = 0; j < n; j++) {
		strbuf__str(&b, j ? ",\"" : "\"");
		put_escaped(&b, (const uint8_t *)f[j].name, strlen(f[j].name), true);
		strbuf__put(&b, "\":\"", 3);
		put_field(&b, f[j].val, f[j].is_signed);
		strbuf__put(&b, "\"", 1);
	}
	strbuf__put(&b, "}", 1);
	return strbuf__finish(&b);
}
