// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The texts of a trace-cmd data file, as the kernel's tracefs wrote
 * them: header_page, the event formats, kallsyms; and bpfgraph's own
 * option. Only what the reader needs is taken: field offsets and sizes
 * by name, symbols of text.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tcdat_int.h"

int tcdat_parse_header_page(struct tcdat *r, const char *text)
{
	if (ftp_parse_header_page(&r->lay, text))
		return tcdat_fail(r, EINVAL, "header_page does not say where a page's data is");
	return 0;
}

/* One event format: kept if it is one of function_graph's. */
int tcdat_parse_format(struct tcdat *r, const char *text)
{
	const char *name = NULL;

	if (ftp_parse_format(&r->lay, text, &name))
		return tcdat_fail(r, EINVAL, "the %s format lacks fields function_graph has", name);
	return 0;
}

/* By address; aliases in the file's order (their names lie in it in that order). */
static int sym_cmp(const void *a, const void *b)
{
	const struct tc_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* Adds one "ADDR TYPE NAME[\t[MODULE]]" line of text symbols; text is cut in place. */
static int add_sym(struct tcdat *r, char *line, size_t *cap)
{
	char *end, *name, *mod;
	uint64_t addr = strtoull(line, &end, 16);
	char type;

	if (end == line || *end != ' ' || !end[1] || end[2] != ' ')
		return 0;
	type = (char)(end[1] | 0x20);
	if (type != 't' && type != 'w')
		return 0;
	name = end + 3;
	mod = strchr(name, '\t');
	if (mod) {
		*mod++ = '\0';
		if (*mod == '[') {
			char *close = strchr(++mod, ']');

			if (close)
				*close = '\0';
		}
	}
	if (r->nsyms == *cap) {
		size_t nc = *cap ? *cap * 2 : 1024;
		struct tc_sym *v = realloc(r->syms, nc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->syms = v;
		*cap = nc;
	}
	r->syms[r->nsyms++] = (struct tc_sym){ addr, name, mod && *mod ? mod : NULL, -1 };
	return 0;
}

int tcdat_parse_kallsyms(struct tcdat *r, char *text)
{
	size_t cap = 0;
	char *line = text, *nl;

	r->syms_text = text;
	for (; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (add_sym(r, line, &cap))
			return tcdat_fail(r, ENOMEM, "out of memory");
	}
	if (r->nsyms)
		qsort(r->syms, r->nsyms, sizeof(*r->syms), sym_cmp);
	return 0;
}

static int ret_cmp(const void *a, const void *b)
{
	const struct tc_ret *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int meta_line(struct tcdat *r, const char *line, size_t *cap)
{
	struct tcdat_meta *m = &r->meta;
	unsigned int kind, size, v;
	uint64_t addr;
	int used = 0;

	if (sscanf(line, "flags %x", &v) == 1)
		m->flags = v;
	else if (sscanf(line, "dialect %u", &v) == 1)
		m->dialect = v;
	else if (sscanf(line, "cpus %u", &v) == 1)
		m->nr_cpu_ids = v;
	else if (sscanf(line, "header %u", &v) == 1)
		m->header = v;
	else if (sscanf(line, "ret %" SCNx64 " %u %u%n", &addr, &kind, &size, &used) == 3) {
		if (r->nrets == *cap) {
			size_t nc = *cap ? *cap * 2 : 64;
			struct tc_ret *nv = realloc(r->rets, nc * sizeof(*nv));

			if (!nv)
				return -ENOMEM;
			r->rets = nv;
			*cap = nc;
		}
		r->rets[r->nrets] = (struct tc_ret){ addr, (uint8_t)kind, (uint8_t)size, NULL };
		if (line[used] == ' ' && !(r->rets[r->nrets].type = strdup(line + used + 1)))
			return -ENOMEM;
		r->nrets++;
	}
	return 0;
}

/* bpfgraph's option: "bpfgraph 1" and key lines (tcdat_layout.h). */
int tcdat_parse_meta(struct tcdat *r, const char *text, size_t len)
{
	size_t cap = 0;
	unsigned int v;

	if (sscanf(text, "bpfgraph %u", &v) != 1 || v < 1)
		return 0;
	r->meta.bpfgraph = true;
	for (size_t i = 0; i < len && text[i];) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - text - i) : strnlen(text + i, len - i);
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)n, text + i);
		if (meta_line(r, line, &cap))
			return tcdat_fail(r, ENOMEM, "out of memory");
		i += n + 1;
	}
	if (r->nrets)
		qsort(r->rets, r->nrets, sizeof(*r->rets), ret_cmp);
	return 0;
}

static void apply_ret(struct tcdat *r, struct bg_func *f)
{
	size_t lo = 0, hi = r->nrets;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (r->rets[mid].addr < f->addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->nrets && r->rets[lo].addr == f->addr) {
		f->ret_kind = r->rets[lo].kind;
		f->ret_size = r->rets[lo].size;
		if (r->rets[lo].type)
			f->ret_type = strdup(r->rets[lo].type);
	}
}

/*
 * The symbol holding addr: the last one at or below it; of aliases (one
 * address, several names: __do_softirq and __softirqentry_text_start)
 * the first in kallsyms, the one the kernel's own printer names.
 */
static struct tc_sym *find_sym(struct tcdat *r, uint64_t addr)
{
	size_t lo = 0, hi = r->nsyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (r->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	lo--;
	while (lo && r->syms[lo - 1].addr == r->syms[lo].addr)
		lo--;
	return &r->syms[lo];
}

int tcdat_func(struct tcdat *r, uint64_t addr)
{
	struct tc_sym *s = find_sym(r, addr);
	char hex[24];
	int idx;

	if (s && s->func >= 0)
		return s->func;
	if (!s) {
		/* no symbol: named by its address, as trace-cmd does */
		idx = functab__find_addr(&r->funcs, addr);
		if (idx >= 0)
			return idx;
		snprintf(hex, sizeof(hex), "%" PRIx64, addr);
		return functab__add(&r->funcs, hex, NULL, addr, 0);
	}
	idx = functab__add(&r->funcs, s->name, s->module, s->addr, 0);
	if (idx < 0)
		return idx;
	s->func = idx;
	apply_ret(r, &r->funcs.f[idx]);
	return idx;
}
