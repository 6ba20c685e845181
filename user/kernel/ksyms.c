// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ksyms.h"
#include "ksyms_int.h"

/*
 * The few data symbols (vmlinux's, by name) that bpfgraph reads kernel
 * memory at; every other data symbol is skipped as the lines are read.
 */
static const char *const ksyms_data_names[KSYMS_DATA_NR] = {
	[KSYMS_FTRACE_PAGES] = "ftrace_pages_start",
};

int ksyms_is_text(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

long ksyms_strs_add(struct ksyms *ks, const char *s)
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

/*
 * The padding before a function (CONFIG_FUNCTION_PADDING_ALIGNMENT:
 * "__pfx_NAME", "__cfi_NAME" with kCFI) is no function: it only bounds
 * the extent of the function before it. Its symbols share one name until
 * ksyms_finish() has the extents, then leave the table: 55 000 of 7.3's
 * 144 000 text symbols, memory and a name sort saved.
 */
static bool padding_name(const char *name)
{
	return name[0] == '_' && name[1] == '_' &&
	       (!strncmp(name + 2, "pfx_", 4) || !strncmp(name + 2, "cfi_", 4));
}

int ksyms_add_sym(struct ksyms *ks, uint64_t addr, char type, const char *name, long moff)
{
	struct ksym *s;
	long noff;

	if (ks->n == ks->cap) {
		size_t cap = ks->cap ? ks->cap * 2 : 1 << 16;
		struct ksym *n = realloc(ks->syms, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		ks->syms = n;
		ks->cap = cap;
	}
	if (padding_name(name)) {
		if (!ks->pad_off) {
			noff = ksyms_strs_add(ks, "__pfx_");
			if (noff < 0)
				return (int)noff;
			ks->pad_off = noff + 1;
		}
		noff = ks->pad_off - 1;
	} else if ((noff = ksyms_strs_add(ks, name)) < 0) {
		return (int)noff;
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
	return ksyms_is_text(y->type) - ksyms_is_text(x->type);
}

/*
 * kallsyms lists vmlinux by address and each module's symbols after it,
 * in the module's own order: only the part after the first break is
 * sorted, then merged with what comes before.
 */
static int sort_by_addr(struct ksyms *ks)
{
	size_t k = 1, a, b, o;
	struct ksym *m;

	while (k < ks->n && cmp_addr(&ks->syms[k - 1], &ks->syms[k]) <= 0)
		k++;
	if (k >= ks->n)
		return 0;
	qsort(ks->syms + k, ks->n - k, sizeof(*ks->syms), cmp_addr);
	if (cmp_addr(&ks->syms[k - 1], &ks->syms[k]) <= 0)
		return 0; /* modules above vmlinux, as usual */
	m = malloc(ks->n * sizeof(*m));
	if (!m)
		return -ENOMEM;
	for (a = 0, b = k, o = 0; a < k || b < ks->n; o++)
		m[o] = b >= ks->n || (a < k && cmp_addr(&ks->syms[a], &ks->syms[b]) <= 0) ?
			       ks->syms[a++] :
			       ks->syms[b++];
	free(ks->syms);
	ks->syms = m;
	ks->cap = ks->n;
	return 0;
}

/*
 * The name index, sorted by (name, address). Eight bytes of a name,
 * big-endian, order names as strcmp() does as far as they go: an LSD
 * radix sort on them, stable from the address order kallsyms gives, does
 * the work (some 150 000 names at every start, twice that on kernels
 * with function padding, whose "__pfx_" names share their first six
 * bytes), then each run of equal keys whose names go on is sorted the
 * same way by their next eight bytes.
 */
struct name_key {
	uint64_t key;
	size_t idx;
};

/* The eight bytes of s at off (s is at least off bytes long), zeros past its end. */
static uint64_t name_key_at(const char *s, size_t off)
{
	uint64_t k = 0;
	int i = 0;

	s += off;
	for (; i < 8 && s[i]; i++)
		k = k << 8 | (unsigned char)s[i];
	return i ? k << (8 * (8 - i)) : 0; /* a shift by 64 is undefined */
}

/* A run too short for the radix's counting: an insertion sort, stable. */
static void insertion_sort(const struct ksyms *ks, struct name_key *k, size_t n, size_t off)
{
	for (size_t i = 1; i < n; i++) {
		struct name_key x = k[i];
		const char *name = ks->syms[x.idx].name + off;
		size_t j = i;

		for (; j > 0 && strcmp(ks->syms[k[j - 1].idx].name + off, name) > 0; j--)
			k[j] = k[j - 1];
		k[j] = x;
	}
}

#define NAME_RADIX_MIN 64

/* k[0..n) sorted by the names' bytes from off on; t: room for n more. */
static void sort_names(const struct ksyms *ks, struct name_key *k, struct name_key *t, size_t n,
		       size_t off)
{
	struct name_key *in = k, *out = t, *swap;
	size_t i, j;

	if (n < NAME_RADIX_MIN) {
		insertion_sort(ks, k, n, off);
		return;
	}
	for (i = 0; i < n; i++)
		k[i].key = name_key_at(ks->syms[k[i].idx].name, off);
	/* A byte at a time, least significant first; stable. */
	for (int shift = 0; shift < 64; shift += 8) {
		size_t count[257] = { 0 };

		for (i = 0; i < n; i++)
			count[((in[i].key >> shift) & 0xff) + 1]++;
		if (count[((in[0].key >> shift) & 0xff) + 1] == n)
			continue; /* every key has this byte: nothing moves */
		for (i = 1; i < 257; i++)
			count[i] += count[i - 1];
		for (i = 0; i < n; i++)
			out[count[(in[i].key >> shift) & 0xff]++] = in[i];
		swap = in;
		in = out;
		out = swap;
	}
	if (in != k)
		memcpy(k, in, n * sizeof(*k));
	/* Equal keys whose last byte is not 0: names that go on past them. */
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && k[j].key == k[i].key; j++)
			;
		if (j - i > 1 && (k[i].key & 0xff))
			sort_names(ks, k + i, t, j - i, off + 8);
	}
}

static int sort_by_name(struct ksyms *ks)
{
	struct name_key *k = malloc((ks->n + 1) * sizeof(*k));
	struct name_key *t = malloc((ks->n + 1) * sizeof(*t));

	if (!k || !t) {
		free(k);
		free(t);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ks->n; i++)
		k[i].idx = i;
	sort_names(ks, k, t, ks->n, 0);
	for (size_t i = 0; i < ks->n; i++)
		ks->by_name[i] = k[i].idx;
	free(k);
	free(t);
	return 0;
}

/* The padding symbols out, the extents they gave kept. */
static void drop_padding(struct ksyms *ks)
{
	const char *pad = ks->pad_off ? ks->strs + ks->pad_off - 1 : NULL;
	size_t i, j;
	struct ksym *n;

	if (!pad)
		return;
	for (i = j = 0; i < ks->n; i++)
		if (ks->syms[i].name != pad)
			ks->syms[j++] = ks->syms[i];
	ks->n = j;
	/* The array's tail back to the system (a mapping of its own: mremap). */
	n = realloc(ks->syms, (j ? j : 1) * sizeof(*n));
	if (n) {
		ks->syms = n;
		ks->cap = j ? j : 1;
	}
}

int ksyms_finish(struct ksyms *ks)
{
	size_t i, j = 0;

	for (i = 0; i < ks->n; i++) {
		struct ksym *s = &ks->syms[i];
		uintptr_t m = (uintptr_t)s->module;

		s->name = ks->strs + (uintptr_t)s->name;
		s->module = m ? ks->strs + (m - 1) : NULL;
	}
	if (sort_by_addr(ks))
		return -ENOMEM;
	ks->hidden = 1;
	for (i = 0; i < ks->n; i++) {
		if (ks->syms[i].addr)
			ks->hidden = 0;
		/* A function extends to the next symbol at a higher address. */
		if (j <= i)
			j = i + 1;
		while (j < ks->n && ks->syms[j].addr == ks->syms[i].addr)
			j++;
		if (j < ks->n) {
			uint64_t d = ks->syms[j].addr - ks->syms[i].addr;

			ks->syms[i].size = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
		}
	}
	drop_padding(ks);
	ks->by_name = malloc((ks->n ? ks->n : 1) * sizeof(size_t));
	if (!ks->by_name)
		return -ENOMEM;
	return ks->n ? sort_by_name(ks) : 0;
}

/* A hex digit's value + 1, 0 for any other byte. */
static const uint8_t hex1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7,
	['7'] = 8, ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14,
	['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15,
	['F'] = 16,
};

/* A data symbol of vmlinux (no module column) that ksyms_data_names asks for. */
static int keep_data(struct ksyms *ks, uint64_t addr, char type, const char *name)
{
	size_t len;

	if (type != 'b' && type != 'B' && type != 'd' && type != 'D')
		return 0;
	len = strcspn(name, " \t\n");
	if (name[len] == '\t' || name[len] == ' ')
		return 0; /* a module's */
	/* parse_all() cut the line at its newline: the name ends the string. */
	ksyms_keep_named(ks, addr, name);
	return 0;
}

void ksyms_keep_named(struct ksyms *ks, uint64_t addr, const char *name)
{
	for (int i = 0; i < KSYMS_DATA_NR; i++)
		if (!strcmp(name, ksyms_data_names[i]))
			ks->data[i] = addr;
}

/*
 * One line of kallsyms: "ADDR TYPE NAME[\t[MODULE]]". Only text symbols
 * are kept, and the data symbols of keep_data(). The last module seen is reused, as a module's symbols come
 * together.
 */
static int parse_line(struct ksyms *ks, char *line, long *last_mod)
{
	uint64_t addr = 0;
	char *p = line, *name, *mod = NULL, type;
	long moff;
	int v, digits = 0;

	while ((v = hex1[(unsigned char)*p])) {
		addr = addr << 4 | (unsigned int)(v - 1);
		p++;
		digits++;
	}
	if (!digits || *p != ' ' || !p[1] || p[2] != ' ')
		return 0;
	type = p[1];
	name = p + 3;
	if (!ksyms_is_text(type))
		return keep_data(ks, addr, type, name);
	p = name + strcspn(name, "\t \n");
	if (p == name)
		return 0;
	if (*p) {
		char *q = p + 1;

		*p = 0;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == '[') {
			mod = ++q;
			while (*q && *q != ']')
				q++;
			if (*q != ']' || q == mod)
				mod = NULL;
			else
				*q = 0;
		}
	}
	if (!mod)
		moff = -1;
	else if (*last_mod >= 0 && !strcmp(ks->strs + *last_mod, mod))
		moff = *last_mod;
	else if ((moff = ksyms_strs_add(ks, mod)) < 0)
		return (int)moff;
	else
		*last_mod = moff;
	return ksyms_add_sym(ks, addr, type, name, moff);
}

/*
 * Every line of fd, parsed in place: read in blocks (a line per fgets()
 * was about a fifth of the parsing's instructions), a line cut by a
 * block's end moved to the front for the next one.
 */
#define KSYMS_BLOCK (256 << 10)

static int parse_all(struct ksyms *ks, int fd)
{
	char *buf = malloc(KSYMS_BLOCK + 1), *line, *nl;
	size_t have = 0;
	long last_mod = -1;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t r = read(fd, buf + have, KSYMS_BLOCK - have);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		have += (size_t)r;
		buf[have] = 0;
		line = buf;
		while (!err && (nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
			*nl = 0;
			err = parse_line(ks, line, &last_mod);
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		if (!err && have == KSYMS_BLOCK)
			err = -E2BIG; /* a line longer than a block: not kallsyms */
		if (err || !r) {
			/* The end: a last line without a newline. */
			if (!err && have)
				err = parse_line(ks, line, &last_mod);
			break;
		}
		memmove(buf, line, have);
	}
	free(buf);
	return err;
}

struct ksyms *ksyms__load(const char *path)
{
	struct ksyms *ks;
	int fd, err;

	fd = open(path ? path : "/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		close(fd);
		return NULL;
	}
	err = parse_all(ks, fd);
	close(fd);
	ks->source = path ? "a file in kallsyms' format" : "/proc/kallsyms";
	if (!err)
		err = ksyms_finish(ks);
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

const char *ksyms__source(const struct ksyms *ks)
{
	return ks->source;
}

size_t ksyms__count(const struct ksyms *ks)
{
	return ks->n;
}

const struct ksym *ksyms__at(const struct ksyms *ks, size_t i)
{
	return i < ks->n ? &ks->syms[i] : NULL;
}

const struct ksym *ksyms__from_addr(const struct ksyms *ks, uint64_t addr)
{
	size_t lo = 0, hi = ks->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ks->n ? &ks->syms[lo] : NULL;
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

static int by_pos(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

long ksyms__with_prefix(const struct ksyms *ks, const char *prefix, size_t len, size_t **pos)
{
	size_t lo, n = 0;
	char *key = strndup(prefix, len);

	*pos = NULL;
	if (!key)
		return -ENOMEM;
	/* Names beginning with the prefix follow its lower bound in name order. */
	lo = name_lower_bound(ks, key);
	free(key);
	while (lo + n < ks->n && !strncmp(ks->syms[ks->by_name[lo + n]].name, prefix, len))
		n++;
	*pos = malloc((n ? n : 1) * sizeof(**pos));
	if (!*pos)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		(*pos)[i] = ks->by_name[lo + i];
	qsort(*pos, n, sizeof(**pos), by_pos);
	return (long)n;
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

uint64_t ksyms__data(const struct ksyms *ks, enum ksyms_data which)
{
	return which < KSYMS_DATA_NR ? ks->data[which] : 0;
}

int ksyms__hidden(const struct ksyms *ks)
{
	return ks->hidden;
}
