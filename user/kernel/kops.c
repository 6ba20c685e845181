// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "bpfgraph.h"
#include "kbtf.h"
#include "kops.h"
#include "ksyms.h"
#include "ktext.h"

/* Larger structures are not tried: operation tables are small. */
#define KOPS_MAX_SIZE 2048
/* A structure with fewer function pointers is not taken for a table. */
#define KOPS_MIN_FPTRS 3
/* Instances that must hold a function start, at the least. */
#define KOPS_MIN_SET 2
/* Instances of the same structure next to a named one, each way. */
#define KOPS_MAX_NEXT 32
#define KOPS_MAX_SITES 512
#define KOPS_MAX_REFS 1024
/* A static call trampoline's extent, at most (a jmp and an ud1 under 16 bytes). */
#define KOPS_STUB_SIZE 16
/* Bytes read from each address code names, looking for trampolines. */
#define KOPS_STUB_SCAN 512

struct kops_type {
	uint32_t size;
	uint32_t nfp; /* function pointer members */
	uint32_t first; /* their byte offsets and argument counts: kops.offs[first...] */
};

struct kops_member {
	uint32_t off;
	uint32_t nargs; /* of the prototype it points to */
};

struct kops {
	struct kbtf *kb;
	const struct btf *btf;
	const struct ksyms *ks;
	struct ktext *kt;
	struct kops_type *types;
	size_t ntypes;
	struct kops_member *offs;
	size_t noffs, offs_cap;
	bool indexed;
	uint64_t thunks[BG_REG_NR];
};

struct kops *kops__new(struct kbtf *kb, const struct ksyms *ks, struct ktext *kt)
{
	struct kops *ko = calloc(1, sizeof(*ko));

	if (!ko)
		return NULL;
	ko->kb = kb;
	ko->btf = kbtf__btf(kb, NULL);
	if (!ko->btf) {
		free(ko);
		errno = ENOENT;
		return NULL;
	}
	ko->ks = ks;
	ko->kt = kt;
	kcode__thunks(ks, ko->thunks);
	return ko;
}

void kops__free(struct kops *ko)
{
	if (!ko)
		return;
	free(ko->types);
	free(ko->offs);
	free(ko);
}

/* The prototype a function pointer type points to, or NULL. */
static const struct btf_type *func_ptr_proto(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int r;

	if (!t || !btf_is_ptr(t))
		return NULL;
	r = btf__resolve_type(btf, t->type);
	if (r <= 0)
		return NULL;
	t = btf__type_by_id(btf, (uint32_t)r);
	return t && btf_is_func_proto(t) ? t : NULL;
}

static int add_off(struct kops *ko, uint32_t off, uint32_t nargs)
{
	if (ko->noffs == ko->offs_cap) {
		size_t cap = ko->offs_cap ? ko->offs_cap * 2 : 4096;
		struct kops_member *n = realloc(ko->offs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		ko->offs = n;
		ko->offs_cap = cap;
	}
	ko->offs[ko->noffs++] = (struct kops_member){ off, nargs };
	return 0;
}

/* One structure: kept when it has KOPS_MIN_FPTRS function pointers. */
static int index_type(struct kops *ko, const struct btf_type *t, size_t *cap)
{
	const struct btf_member *m = btf_members(t);
	struct kops_type kt = { .size = t->size, .first = (uint32_t)ko->noffs };

	for (int i = 0; i < btf_vlen(t); i++) {
		uint32_t bits = btf_member_bit_offset(t, (uint32_t)i);
		const struct btf_type *proto;
		int r;

		if (btf_member_bitfield_size(t, (uint32_t)i) || bits % 64)
			continue;
		r = btf__resolve_type(ko->btf, m[i].type);
		proto = r > 0 ? func_ptr_proto(ko->btf, (uint32_t)r) : NULL;
		if (!proto)
			continue;
		if (add_off(ko, bits / 8, btf_vlen(proto)))
			return -ENOMEM;
		kt.nfp++;
	}
	if (kt.nfp < KOPS_MIN_FPTRS) {
		ko->noffs = kt.first;
		return 0;
	}
	if (ko->ntypes == *cap) {
		size_t c = *cap ? *cap * 2 : 1024;
		struct kops_type *n = realloc(ko->types, c * sizeof(*n));

		if (!n)
			return -ENOMEM;
		ko->types = n;
		*cap = c;
	}
	ko->types[ko->ntypes++] = kt;
	return 0;
}

/* The structures with function pointers, once. */
static int index_types(struct kops *ko)
{
	uint32_t n = btf__type_cnt(ko->btf);
	size_t cap = 0;

	if (ko->indexed)
		return 0;
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(ko->btf, id);
		int err;

		if (!t || !btf_is_struct(t) || !t->size || t->size > KOPS_MAX_SIZE || t->size % 8)
			continue;
		err = index_type(ko, t, &cap);
		if (err)
			return err;
	}
	ko->indexed = true;
	return 0;
}

static uint64_t member(const uint8_t *buf, uint32_t off)
{
	uint64_t v;

	memcpy(&v, buf + off, sizeof(v));
	return v;
}

/*
 * How many function pointer members of t in buf hold a function's start,
 * or -1 when one holds anything else but 0.
 */
static int set_members(const struct kops *ko, const struct kops_type *t, const uint8_t *buf)
{
	int set = 0;

	for (uint32_t i = 0; i < t->nfp; i++) {
		uint64_t v = member(buf, ko->offs[t->first + i].off);
		const struct ksym *s;

		if (!v)
			continue;
		s = ksyms__find_addr(ko->ks, v);
		if (!s || s->addr != v)
			return -1;
		set++;
	}
	return set;
}

/* Whether t has a function pointer at one of the offsets the calls load from. */
static bool has_offset(const struct kops *ko, const struct kops_type *t, const int32_t *disp,
		       size_t nd)
{
	for (uint32_t i = 0; i < t->nfp; i++)
		for (size_t k = 0; k < nd; k++)
			if ((int64_t)ko->offs[t->first + i].off == disp[k])
				return true;
	return nd == 0;
}

/*
 * How many of t's members set in buf point to a function whose BTF
 * prototype has as many arguments as the member's, or -1 when one points
 * to a function with another count: the members of another structure
 * laid over the table would.
 */
static int proto_matches(const struct kops *ko, const struct kops_type *t, const uint8_t *buf)
{
	int match = 0;

	for (uint32_t i = 0; i < t->nfp; i++) {
		const struct kops_member *m = &ko->offs[t->first + i];
		uint64_t v = member(buf, m->off);
		const struct ksym *s = v ? ksyms__find_addr(ko->ks, v) : NULL;
		const struct btf_type *fn, *proto;
		struct kbtf_func bf;

		if (!s || s->module || kbtf__func(ko->kb, s->name, NULL, &bf))
			continue;
		fn = btf__type_by_id(ko->btf, bf.btf_id);
		proto = fn ? btf__type_by_id(ko->btf, fn->type) : NULL;
		if (!proto || !btf_is_func_proto(proto))
			continue;
		if (btf_vlen(proto) != m->nargs)
			return -1;
		match++;
	}
	return match;
}

/*
 * The structure buf is an instance of: every function pointer member holds
 * 0 or a function's start, and of those, the one whose members agree with
 * the most functions' prototypes. NULL when none.
 */
static const struct kops_type *best_type(const struct kops *ko, const uint8_t *buf, size_t len,
					 const int32_t *disp, size_t nd)
{
	const struct kops_type *best = NULL;
	int best_match = 0;

	for (size_t i = 0; i < ko->ntypes; i++) {
		const struct kops_type *t = &ko->types[i];
		int match;

		if (t->size > len || !has_offset(ko, t, disp, nd) ||
		    set_members(ko, t, buf) < KOPS_MIN_SET)
			continue;
		match = proto_matches(ko, t, buf);
		if (match >= KOPS_MIN_SET && match > best_match) {
			best = t;
			best_match = match;
		}
	}
	return best;
}

struct found {
	uint64_t *out;
	size_t max, n;
};

static void add_target(struct found *f, uint64_t v)
{
	size_t k;

	for (k = 0; k < f->n && k < f->max && f->out[k] != v; k++)
		;
	if (k < f->n && k < f->max)
		return;
	if (f->n < f->max)
		f->out[f->n] = v;
	f->n++;
}

/* The members the calls load from (all function pointers for nd 0) of one instance. */
static void take(const struct kops *ko, const struct kops_type *t, const uint8_t *buf,
		 const int32_t *disp, size_t nd, struct found *f)
{
	for (uint32_t i = 0; i < t->nfp; i++) {
		uint32_t off = ko->offs[t->first + i].off;
		uint64_t v = member(buf, off);
		bool want = nd == 0;

		for (size_t k = 0; k < nd && !want; k++)
			want = (int64_t)off == disp[k];
		if (v && want)
			add_target(f, v);
	}
}

/* Instances of t next to base, one way (step +1 or -1), while they look like one. */
static void walk(const struct kops *ko, const struct kops_type *t, uint64_t base, int step,
		 const int32_t *disp, size_t nd, struct found *f, uint8_t *buf)
{
	for (int i = 1; i <= KOPS_MAX_NEXT; i++) {
		uint64_t a = base + (uint64_t)((int64_t)step * i * (int64_t)t->size);

		if (ktext__read(ko->kt, a, buf, t->size) || set_members(ko, t, buf) < KOPS_MIN_SET ||
		    proto_matches(ko, t, buf) < KOPS_MIN_SET)
			return;
		take(ko, t, buf, disp, nd, f);
	}
}

/* The offsets indirect calls and jumps in code load their targets from. */
static int call_offsets(const struct kops *ko, const uint8_t *code, size_t len, uint64_t addr,
			int32_t *disp, size_t *nd)
{
	struct kcode_isite *sites = calloc(KOPS_MAX_SITES, sizeof(*sites));
	int n;

	if (!sites)
		return -ENOMEM;
	n = kcode__indirect(code, len, addr, ko->thunks, sites, KOPS_MAX_SITES);
	*nd = 0;
	for (int i = 0; i < n && i < KOPS_MAX_SITES; i++) {
		size_t k;

		if (!sites[i].usable || sites[i].mode != KSITE_LOAD || sites[i].disp < 0)
			continue;
		for (k = 0; k < *nd && disp[k] != sites[i].disp; k++)
			;
		if (k == *nd)
			disp[(*nd)++] = sites[i].disp;
	}
	free(sites);
	return n;
}

/*
 * The kernel addresses code (len bytes at addr) names as data
 * (kcode__data_refs()), into *refs, which the caller frees: their count
 * or -errno.
 */
static int named_data(const uint8_t *code, size_t len, uint64_t addr, uint64_t **refs)
{
	int n;

	*refs = malloc(KOPS_MAX_REFS * sizeof(**refs));
	if (!*refs)
		return -ENOMEM;
	n = kcode__data_refs(code, len, addr, *refs, KOPS_MAX_REFS);
	return n < KOPS_MAX_REFS ? n : KOPS_MAX_REFS;
}

/* Up to size bytes at addr; near the end of a mapping what is there, in halves. How many: 0 for none. */
static size_t read_some(const struct kops *ko, uint64_t addr, void *buf, size_t size)
{
	while (size >= 8 && ktext__read(ko->kt, addr, buf, size))
		size /= 2;
	return size >= 8 ? size : 0;
}

int kops__targets(struct kops *ko, const uint8_t *code, size_t len, uint64_t addr,
		  uint64_t *out, size_t max)
{
	int32_t disp[KOPS_MAX_SITES];
	uint64_t *refs = NULL;
	uint8_t *buf = NULL, *next = NULL;
	struct found f = { .out = out, .max = max };
	size_t nd;
	int nsites, nrefs, err;

	nsites = call_offsets(ko, code, len, addr, disp, &nd);
	if (nsites <= 0)
		return nsites;
	err = index_types(ko);
	nrefs = named_data(code, len, addr, &refs);
	buf = malloc(KOPS_MAX_SIZE);
	next = malloc(KOPS_MAX_SIZE);
	if (err || nrefs < 0 || !buf || !next) {
		err = err ? err : nrefs < 0 ? nrefs : -ENOMEM;
		goto out;
	}
	for (int i = 0; i < nrefs; i++) {
		const struct kops_type *t;
		size_t got = read_some(ko, refs[i], buf, KOPS_MAX_SIZE);

		if (!got)
			continue;
		t = best_type(ko, buf, got, disp, nd);
		if (!t)
			continue;
		take(ko, t, buf, disp, nd, &f);
		walk(ko, t, refs[i], -1, disp, nd, &f, next);
		walk(ko, t, refs[i], 1, disp, nd, &f, next);
	}
	err = f.n > INT32_MAX ? -E2BIG : (int)f.n;
out:
	free(refs);
	free(buf);
	free(next);
	return err;
}

/*
 * A static call's trampoline: a small text symbol whose code is
 * [endbr64] jmp rel32 to the start of another function (switched off,
 * it returns at once). Its target, or 0.
 */
static uint64_t stub_target(const struct kops *ko, uint64_t v)
{
	const struct ksym *s = ksyms__find_addr(ko->ks, v), *d;
	struct kcode_info ci;
	uint8_t b[9], site[16];
	size_t o = 0;
	int32_t rel;
	uint64_t t;

	if (!s || s->addr != v || !s->size || s->size > KOPS_STUB_SIZE ||
	    ktext__read(ko->kt, v, b, sizeof(b)))
		return 0;
	if (kcode__endbr(b) == 1)
		o = 4;
	if (b[o] != 0xe9)
		return 0;
	memcpy(&rel, b + o + 1, sizeof(rel));
	t = v + o + 5 + (uint64_t)(int64_t)rel;
	d = ksyms__find_addr(ko->ks, t);
	if (!d || d->addr != t || t == v || kcode__is_tramp(ko->ks, t))
		return 0;
	/* A function, not a return thunk (what an unset call jumps to, with retbleed's mitigations). */
	if (ktext__read(ko->kt, t, site, sizeof(site)))
		return 0;
	kcode__site(site, sizeof(site), t, ko->ks, &ci);
	return ci.fentry_site ? t : 0;
}

bool kops__is_thunk(const struct kops *ko, uint64_t addr)
{
	for (int r = 0; r < BG_REG_NR; r++)
		if (ko->thunks[r] && ko->thunks[r] == addr)
			return true;
	return false;
}

int kops__stub_targets(struct kops *ko, const uint8_t *code, size_t len, uint64_t addr,
		       uint64_t *out, size_t max)
{
	uint64_t *refs;
	uint64_t *buf = malloc(KOPS_STUB_SCAN);
	struct found f = { .out = out, .max = max };
	int nrefs = named_data(code, len, addr, &refs), err;

	if (nrefs < 0 || !buf) {
		err = nrefs < 0 ? nrefs : -ENOMEM;
		goto out;
	}
	for (int i = 0; i < nrefs; i++) {
		const struct ksym *s = ksyms__find_addr(ko->ks, refs[i]);
		size_t got;

		/* A function's address passed on (a callback) is not a table. */
		if (s && s->addr == refs[i])
			continue;
		got = read_some(ko, refs[i], buf, KOPS_STUB_SCAN);
		/* The table ends where a slot is empty (an unused static call's hook). */
		for (size_t k = 0; k < got / 8 && buf[k]; k++) {
			uint64_t t = buf[k] >= KCODE_KERNEL_MIN ? stub_target(ko, buf[k]) : 0;

			if (t)
				add_target(&f, t);
		}
	}
	err = f.n > INT32_MAX ? -E2BIG : (int)f.n;
out:
	free(refs);
	free(buf);
	return err;
}
