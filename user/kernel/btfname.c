// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "btfname.h"

struct bname {
	const struct btf *btf;
	uint32_t id;
	char *name;
};

/* Open addressing by (btf, id); slot.name NULL: empty. */
struct btf_names {
	struct bname *slot;
	size_t cap, n;
};

struct btf_names *btf_names__new(void)
{
	return calloc(1, sizeof(struct btf_names));
}

void btf_names__free(struct btf_names *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->cap; i++)
		free(n->slot[i].name);
	free(n->slot);
	free(n);
}

static size_t hash(const struct btf *btf, uint32_t id, size_t cap)
{
	uint64_t x = (uintptr_t)btf ^ ((uint64_t)id << 32 | id);

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x & (cap - 1);
}

static struct bname *find(struct btf_names *n, const struct btf *btf, uint32_t id)
{
	size_t i = hash(btf, id, n->cap);

	while (n->slot[i].name && (n->slot[i].btf != btf || n->slot[i].id != id))
		i = (i + 1) & (n->cap - 1);
	return &n->slot[i];
}

static int grow(struct btf_names *n)
{
	struct btf_names g = { .cap = n->cap ? n->cap * 2 : 256 };

	g.slot = calloc(g.cap, sizeof(*g.slot));
	if (!g.slot)
		return -1;
	for (size_t i = 0; i < n->cap; i++)
		if (n->slot[i].name)
			*find(&g, n->slot[i].btf, n->slot[i].id) = n->slot[i];
	free(n->slot);
	n->slot = g.slot;
	n->cap = g.cap;
	return 0;
}

static void dump_printf(void *ctx, const char *fmt, va_list args)
{
	char *buf = ctx;
	size_t len = strlen(buf);

	if (len < BTF_NAME_MAX - 1)
		vsnprintf(buf + len, BTF_NAME_MAX - len, fmt, args);
}

/*
 * The spelling of a named base type (void for 0) as btf_dump gives it:
 * false for one it spells otherwise (anonymous, a function, an array).
 */
static bool base_name(const struct btf *btf, uint32_t id, const char **kw, const char **name)
{
	const struct btf_type *t;

	*kw = "";
	*name = "void";
	if (!id)
		return true;
	t = btf__type_by_id(btf, id);
	if (!t || !t->name_off)
		return false;
	*name = btf__name_by_offset(btf, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPEDEF:
		break;
	case BTF_KIND_STRUCT:
		*kw = "struct ";
		break;
	case BTF_KIND_UNION:
		*kw = "union ";
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		*kw = "enum ";
		break;
	case BTF_KIND_FWD:
		*kw = btf_kflag(t) ? "union " : "struct ";
		break;
	default:
		return false;
	}
	return *name && **name;
}

/*
 * The common shapes without a btf_dump, which costs milliseconds a name
 * (its arrays sized by vmlinux's type count, cleared for each: most of
 * what planning a trace took in user space on 7.3): pointers to a named
 * type, itself const or volatile or neither ("const char *", "struct
 * file **", "u64"). False for any other shape (a type tag, a qualified
 * pointer, a function pointer...), which btf_dump spells.
 */
static bool simple_spelling(const struct btf *btf, uint32_t id, char *buf, size_t cap)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *qual = "", *kw, *name;
	unsigned int ptrs = 0;
	char stars[9] = "";
	int len;

	while (t && btf_is_ptr(t) && ptrs < sizeof(stars) - 1) {
		stars[ptrs++] = '*';
		id = t->type;
		t = id ? btf__type_by_id(btf, id) : NULL;
	}
	if (t && (btf_is_const(t) || btf_is_volatile(t))) {
		qual = btf_is_const(t) ? "const " : "volatile ";
		id = t->type;
	}
	if (!base_name(btf, id, &kw, &name))
		return false;
	len = snprintf(buf, cap, "%s%s%s%s%s", qual, kw, name, ptrs ? " " : "", stars);
	return len > 0 && (size_t)len < cap;
}

const char *btf_names__get(struct btf_names *n, const struct btf *btf, uint32_t type_id)
{
	DECLARE_LIBBPF_OPTS(btf_dump_emit_type_decl_opts, opts, .field_name = "");
	char buf[BTF_NAME_MAX] = "";
	struct btf_dump *d;
	struct bname *b;

	if (!n || !btf)
		return NULL;
	if ((n->n + 1) * 2 > n->cap && grow(n))
		return NULL;
	b = find(n, btf, type_id);
	if (b->name)
		return b->name;
	if (!simple_spelling(btf, type_id, buf, sizeof(buf))) {
		buf[0] = '\0';
		d = btf_dump__new(btf, dump_printf, buf, NULL);
		if (!d)
			return NULL;
		if (btf_dump__emit_type_decl(d, type_id, &opts)) {
			btf_dump__free(d);
			return NULL;
		}
		btf_dump__free(d);
	}
	b->name = strdup(buf);
	if (!b->name)
		return NULL;
	b->btf = btf;
	b->id = type_id;
	n->n++;
	return b->name;
}
