// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "functab.h"
#include "btfname.h"
#include "kbtf.h"

struct fidx {
	const char *name;
	uint32_t id;
	uint32_t proto; /* its FUNC_PROTO */
	int ambiguous; /* another FUNC has this name and another prototype */
};

struct bmod {
	char *name; /* NULL: vmlinux */
	struct btf *btf;
	struct fidx *idx;
	size_t n;
	int missing; /* no BTF file for this module */
};

struct kbtf {
	char *dir;
	/* return type spellings, made once per type (btfname.h) */
	struct btf_names *names;
	struct bmod *mods; /* mods[0] is vmlinux */
	size_t nmods;
};

static int cmp_fidx(const void *a, const void *b)
{
	return strcmp(((const struct fidx *)a)->name, ((const struct fidx *)b)->name);
}

static int index_funcs(struct bmod *m)
{
	uint32_t start = 1, n = btf__type_cnt(m->btf);
	const struct btf *base = btf__base_btf(m->btf);
	size_t nfuncs = 0;

	if (base)
		start = btf__type_cnt(base);
	/* Sized for the FUNCs alone: about a third of the types. */
	for (uint32_t id = start; id < n; id++)
		nfuncs += btf_is_func(btf__type_by_id(m->btf, id));
	m->idx = malloc((nfuncs + 1) * sizeof(*m->idx));
	if (!m->idx)
		return -ENOMEM;
	for (uint32_t id = start; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(m->btf, id);

		if (!btf_is_func(t))
			continue;
		m->idx[m->n].name = btf__name_by_offset(m->btf, t->name_off);
		m->idx[m->n].proto = t->type;
		m->idx[m->n].ambiguous = 0;
		m->idx[m->n++].id = id;
	}
	qsort(m->idx, m->n, sizeof(*m->idx), cmp_fidx);
	/*
	 * Static functions of several files may share a name (three FUNCs
	 * "compute_score" in 6.1). Deduplicated BTF keeps one FUNC per
	 * prototype: two with one name and different prototypes cannot say
	 * which prototype the function the kernel finds by that name has.
	 */
	for (size_t i = 0, j; i < m->n; i = j) {
		int amb = 0;

		for (j = i + 1; j < m->n && !strcmp(m->idx[j].name, m->idx[i].name); j++)
			amb |= m->idx[j].proto != m->idx[i].proto;
		for (size_t k = i; k < j; k++)
			m->idx[k].ambiguous = amb;
	}
	return 0;
}

static int load_mod(struct kbtf *kb, struct bmod *m)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", kb->dir, m->name ? m->name : "vmlinux");
	m->btf = m->name ? btf__parse_split(path, kb->mods[0].btf) : btf__parse(path, NULL);
	if (!m->btf) {
		m->missing = 1;
		return -errno;
	}
	return index_funcs(m);
}

struct kbtf *kbtf__load(const char *dir)
{
	struct kbtf *kb = calloc(1, sizeof(*kb));
	int err;

	if (!kb)
		return NULL;
	kb->dir = strdup(dir ? dir : "/sys/kernel/btf");
	kb->mods = calloc(1, sizeof(*kb->mods));
	kb->names = btf_names__new();
	if (!kb->dir || !kb->mods || !kb->names) {
		kbtf__free(kb);
		errno = ENOMEM;
		return NULL;
	}
	kb->nmods = 1;
	err = load_mod(kb, &kb->mods[0]);
	if (err) {
		kbtf__free(kb);
		errno = -err;
		return NULL;
	}
	return kb;
}

void kbtf__free(struct kbtf *kb)
{
	if (!kb)
		return;
	/* Split BTFs before their base. */
	for (size_t i = kb->nmods; i-- > 0;) {
		btf__free(kb->mods[i].btf);
		free(kb->mods[i].idx);
		free(kb->mods[i].name);
	}
	free(kb->mods);
	free(kb->dir);
	btf_names__free(kb->names);
	free(kb);
}

static struct bmod *get_mod(struct kbtf *kb, const char *module)
{
	struct bmod *m;

	if (!module)
		return &kb->mods[0];
	for (size_t i = 1; i < kb->nmods; i++)
		if (!strcmp(kb->mods[i].name, module))
			return kb->mods[i].missing ? NULL : &kb->mods[i];
	m = realloc(kb->mods, (kb->nmods + 1) * sizeof(*m));
	if (!m)
		return NULL;
	kb->mods = m;
	m = &kb->mods[kb->nmods];
	memset(m, 0, sizeof(*m));
	m->name = strdup(module);
	if (!m->name)
		return NULL;
	kb->nmods++;
	return load_mod(kb, m) ? NULL : m;
}

struct btf *kbtf__btf(struct kbtf *kb, const char *module)
{
	struct bmod *m = get_mod(kb, module);

	return m ? m->btf : NULL;
}

static void classify_ret(struct kbtf *kb, struct bmod *m, uint32_t type_id,
			 struct kbtf_func *out)
{
	struct btf *btf = m->btf;
	const struct btf_type *t;
	const char *name;

	out->ret_kind = BG_RET_VOID;
	out->ret_size = 8;
	if (!type_id)
		return;
	name = btf_names__get(kb->names, btf, type_id);
	snprintf(out->ret_type, sizeof(out->ret_type), "%s", name ? name : "");
	t = btf__type_by_id(btf, btf__resolve_type(btf, type_id));
	out->ret_kind = BG_RET_UNKNOWN;
	if (!t)
		return;
	if (btf_is_ptr(t)) {
		out->ret_kind = BG_RET_PTR;
	} else if (btf_is_int(t)) {
		uint8_t enc = btf_int_encoding(t);

		out->ret_size = (uint8_t)t->size;
		out->ret_kind = (enc & BTF_INT_BOOL) ? BG_RET_BOOL :
				(enc & BTF_INT_SIGNED) ? BG_RET_SIGNED : BG_RET_UNSIGNED;
	} else if (btf_is_enum(t) || btf_is_enum64(t)) {
		out->ret_size = (uint8_t)t->size;
		out->ret_kind = BG_RET_SIGNED;
	}
}

/* Registers the arguments take: 8-byte slots, rounded up per argument. */
static uint8_t count_regs(const struct btf *btf, const struct btf_type *proto)
{
	const struct btf_param *p = btf_params(proto);
	unsigned int regs = 0;

	for (int i = 0; i < btf_vlen(proto); i++) {
		long sz = btf__resolve_size(btf, p[i].type);

		regs += sz > 8 ? (unsigned int)(sz + 7) / 8 : 1;
	}
	return regs > 255 ? 255 : (uint8_t)regs;
}

static bool is_aggregate(const struct btf *btf, uint32_t type_id)
{
	const struct btf_type *t = btf__type_by_id(btf, btf__resolve_type(btf, type_id));

	return t && (btf_is_struct(t) || btf_is_union(t));
}

/*
 * What tracing_multi links refuse (EINVAL for the whole link, 7.3): a
 * variadic function (its last parameter has type 0), a struct or union
 * passed or returned by value. Per-function fentry takes the latter.
 */
static bool has_byval(const struct btf *btf, const struct btf_type *proto)
{
	const struct btf_param *p = btf_params(proto);

	if (proto->type && is_aggregate(btf, proto->type))
		return true;
	for (int i = 0; i < btf_vlen(proto); i++)
		if (!p[i].type || is_aggregate(btf, p[i].type))
			return true;
	return false;
}

int kbtf__func(struct kbtf *kb, const char *name, const char *module,
	       struct kbtf_func *out)
{
	struct bmod *m = get_mod(kb, module);
	struct fidx key = { .name = name }, *hit;
	const struct btf_type *fn, *proto;

	if (!m)
		return -ENOENT;
	hit = bsearch(&key, m->idx, m->n, sizeof(*m->idx), cmp_fidx);
	if (!hit)
		return -ENOENT;
	if (hit->ambiguous)
		return -ENOTUNIQ;
	memset(out, 0, sizeof(*out));
	out->btf_id = hit->id;
	fn = btf__type_by_id(m->btf, hit->id);
	proto = btf__type_by_id(m->btf, fn->type);
	if (proto && btf_is_func_proto(proto)) {
		classify_ret(kb, m, proto->type, out);
		out->nr_regs = count_regs(m->btf, proto);
		out->byval = has_byval(m->btf, proto);
	}
	return 0;
}
