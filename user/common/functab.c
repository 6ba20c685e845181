// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfgraph.h"
#include "functab.h"

void functab__init(struct functab *t)
{
	memset(t, 0, sizeof(*t));
}

void functab__free(struct functab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->f[i].name);
		free(t->f[i].module);
		free(t->f[i].display);
		free(t->f[i].ret_type);
	}
	free(t->f);
	functab__init(t);
}

int functab__add(struct functab *t, const char *name, const char *module,
		 uint64_t addr, uint32_t size)
{
	struct bg_func *f;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct bg_func *nf = realloc(t->f, cap * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		t->f = nf;
		t->cap = cap;
	}
	f = &t->f[t->n];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	f->module = module ? strdup(module) : NULL;
	if (module) {
		size_t len = strlen(name) + strlen(module) + 4;

		f->display = malloc(len);
		if (f->display)
			snprintf(f->display, len, "%s [%s]", name, module);
	} else {
		f->display = strdup(name);
	}
	if (!f->name || !f->display || (module && !f->module)) {
		free(f->name);
		free(f->module);
		free(f->display);
		return -ENOMEM;
	}
	f->display_len = strlen(f->display);
	f->addr = addr;
	f->size = size;
	return (int)t->n++;
}

int functab__find(const struct functab *t, const char *name, const char *module)
{
	for (size_t i = 0; i < t->n; i++) {
		if (strcmp(t->f[i].name, name))
			continue;
		if (module && (!t->f[i].module || strcmp(t->f[i].module, module)))
			continue;
		return (int)i;
	}
	return -ENOENT;
}

int functab__find_addr(const struct functab *t, uint64_t addr)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->f[i].addr == addr)
			return (int)i;
	return -ENOENT;
}

uint64_t functab__cookie(const struct bg_func *f, uint32_t idx)
{
	return idx | ((f->flags & BG_FN_GRAPH) ? BG_CK_GRAPH : 0) |
	       ((f->flags & BG_FN_NOTRACE) ? BG_CK_NOTRACE : 0) |
	       ((f->flags & BG_FN_IRQ) ? BG_CK_IRQ : 0) |
	       ((f->flags & BG_FN_NET) ? BG_CK_NET : 0);
}
