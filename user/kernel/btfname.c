// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
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
	if (!type_id) {
		snprintf(buf, sizeof(buf), "void");
	} else {
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
