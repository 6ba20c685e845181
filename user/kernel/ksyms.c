// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"

struct ksyms {
	struct ksym *syms; /* sorted by address */
	size_t n, cap;
	size_t *by_name; /* indexes sorted by name */
	char *strs; /* all names and modules, NUL separated */
	size_t strs_len, strs_cap;
	int hidden;
};

static int is_text(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

static long strs_add(struct ksyms *ks, const char *s)
{
	size_t len = strlen(s) + 1;
	long off;

	if (ks->strs_len + len > ks->strs_cap) {
		size_t cap = ks->strs_cap ? ks->strs_cap * 2 : 1 << 20;
		char *n;

		while (cap < ks->strs_len + len)
			cap *= 2;
		n = realloc(ks->strs, cap);
		if (!n)
			return -ENOMEM;
		ks->strs = n;
		ks->strs_cap = cap;
	}
	off = (long)ks->strs_len;
	memcpy(ks->strs + off, s, len);
	ks->strs_len += len;
	return off;
}

/* Names are stored as offsets while the string pool may still move. */
static int add_sym(struct ksyms *ks, uint64_t addr, char type, const char *name,
		   const char *mod)
{
	struct ksym *s;
	long noff, moff = -1;

	if (ks->n == ks->cap) {
		size_t cap = ks->cap ? ks->cap * 2 : 1 << 16;
		struct ksym *n = realloc(ks->syms, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		ks->syms = n;
		ks->cap = cap;
	}
	noff = strs_add(ks, name);
	if (noff < 0)
		return (int)noff;
	if (mod) {
		moff = strs_add(ks, mod);
		if (moff < 0)
			return (int)moff;
	}
	s = &ks->syms[ks->n++];
	s->addr = addr;
	s->size = 0;
	s->type = type;
	s->name = (const char *)(uintptr_t)noff;
	s->module = (const char *)(uintptr_t)(moff + 1); /* 0 = none */
	return 0;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Prefer text symbols first at the same address. */
	return is_text(y->type) - is_text(x->type);
}

static const struct ksyms *sort_ctx;

static int cmp_name(const void *a, const void *b)
{
	const struct ksym *x = &sort_ctx->syms[*(const size_t *)a];
	const struct ksym *y = &sort_ctx->syms[*(const size_t *)b];
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int finish(struct ksyms *ks)
{
	size_t i;

	for (i = 0; i < ks->n; i++) {
		struct ksym *s = &ks->syms[i];
		uintptr_t m = (uintptr_t)s->module;

		s->name = ks->strs + (uintptr_t)s->name;
		s->module = m ? ks->strs + (m - 1) : NULL;
	}
	qsort(ks->syms, ks->n, sizeof(*ks->syms), cmp_addr);
	ks->hidden = 1;
	for (i = 0; i < ks->n; i++) {
		if (ks->syms[i].addr)
			ks->hidden = 0;
		/* A function extends to the next symbol at a higher address. */
		for (size_t j = i + 1; j < ks->n; j++) {
			if (ks->syms[j].addr > ks->syms[i].addr) {
				uint64_t d = ks->syms[j].addr - ks->syms[i].addr;

				ks->syms[i].size = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
				break;
			}
		}
	}
	ks->by_name = malloc((ks->n ? ks->n : 1) * sizeof(size_t));
	if (!ks->by_name)
		return -ENOMEM;
	for (i = 0; i < ks->n; i++)
		ks->by_name[i] = i;
	sort_ctx = ks;
	qsort(ks->by_name, ks->n, sizeof(size_t), cmp_name);
	sort_ctx = NULL;
	return 0;
}

static int parse_line(struct ksyms *ks, char *line)
{
	unsigned long long addr;
	char type, name[512], mod[128];
	int n;

	mod[0] = 0;
	n = sscanf(line, "%llx %c %511s [%127[^]]]", &addr, &type, name, mod);
	if (n < 3)
		return 0;
	if (!is_text(type))
		return 0;
	return add_sym(ks, addr, type, name, n == 4 ? mod : NULL);
}

struct ksyms *ksyms__load(const char *path)
{
	struct ksyms *ks;
	char line[1024];
	FILE *f;
	int err = 0;

	f = fopen(path ? path : "/proc/kallsyms", "re");
	if (!f)
		return NULL;
	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		fclose(f);
		return NULL;
	}
	while (!err && fgets(line, sizeof(line), f))
		err = parse_line(ks, line);
	fclose(f);
	if (!err)
		err = finish(ks);
	if (err) {
		ksyms__free(ks);
		errno = -err;
		return NULL;
	}
	return ks;
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->by_name);
	free(ks->strs);
	free(ks);
}

size_t ksyms__count(const struct ksyms *ks)
{
	return ks->n;
}

const struct ksym *ksyms__at(const struct ksyms *ks, size_t i)
{
	return i < ks->n ? &ks->syms[i] : NULL;
}

const struct ksym *ksyms__find_addr(const struct ksyms *ks, uint64_t addr)
{
	size_t lo = 0, hi = ks->n;

	/* Last symbol with sym.addr <= addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* Several symbols may share the address: take the first of them. */
	while (lo > 1 && ks->syms[lo - 2].addr == ks->syms[lo - 1].addr)
		lo--;
	const struct ksym *s = &ks->syms[lo - 1];

	if (s->size && addr >= s->addr + s->size)
		return NULL;
	return s;
}

/* Index in by_name of the first symbol called name (or where it would be). */
static size_t name_lower_bound(const struct ksyms *ks, const char *name)
{
	size_t lo = 0, hi = ks->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ks->syms[ks->by_name[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int same_module(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

const struct ksym *ksyms__find_name(const struct ksyms *ks, const char *name,
				    const char *module)
{
	for (size_t i = name_lower_bound(ks, name); i < ks->n; i++) {
		const struct ksym *s = &ks->syms[ks->by_name[i]];

		if (strcmp(s->name, name))
			break;
		if (!module || (s->module && !strcmp(s->module, module)))
			return s;
	}
	return NULL;
}

size_t ksyms__name_count(const struct ksyms *ks, const char *name, const char *module)
{
	size_t n = 0;

	for (size_t i = name_lower_bound(ks, name); i < ks->n; i++) {
		const struct ksym *s = &ks->syms[ks->by_name[i]];

		if (strcmp(s->name, name))
			break;
		n += same_module(s->module, module);
	}
	return n;
}

int ksyms__hidden(const struct ksyms *ks)
{
	return ks->hidden;
}
