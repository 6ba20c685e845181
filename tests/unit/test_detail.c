// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --args-detail (user/out/detail.c) against docs/function-graph-format.md,
 * "bpfgraph's own extensions": the read plan a small BTF gives (which
 * arguments, kernel or user strings, which members at which offsets) and
 * the text and JSON of what records carry back (escapes, truncation,
 * faults, signed members). Both as golden files: tests/golden/detail/.
 */
#include <errno.h>
#include <inttypes.h>

#include <bpf/btf.h>

#include "golden.h"

#include "args.h"
#include "detail.h"

struct fx {
	struct btf *btf;
	int s32, u32, u64, chr, s16, u16, uchr;
	int openat2, opentag, many, byval, sock, unknown, inode_f, bits, none;
};

static struct fx *F(void **state)
{
	return *state;
}

static int add_func(struct btf *btf, const char *name, int nr, const int *types,
		    const char *const *names)
{
	int proto = btf__add_func_proto(btf, 0);

	assert_true(proto > 0);
	for (int i = 0; i < nr; i++)
		assert_int_equal(btf__add_func_param(btf, names[i], types[i]), 0);
	return btf__add_func(btf, name, BTF_FUNC_GLOBAL, proto);
}

#define FUNC(b, name, names, ...)                                                            \
	add_func(b, name, sizeof((int[]){ __VA_ARGS__ }) / sizeof(int), (int[]){ __VA_ARGS__ }, \
		 names)

static void field(struct btf *b, const char *name, int type, uint32_t bit)
{
	assert_int_equal(btf__add_field(b, name, type, bit, 0), 0);
}

/* open_how, file (an anonymous union on the way to f_flags), sockaddr_in, inode, others. */
static void add_structs(struct fx *fx, int *how, int *file, int *sin, int *ino, int *unk,
			int *bits)
{
	struct btf *b = fx->btf;
	int anon, vptr, arr;

	*how = btf__add_struct(b, "open_how", 24);
	field(b, "flags", fx->u64, 0);
	field(b, "mode", fx->u64, 64);
	field(b, "resolve", fx->u64, 128);
	anon = btf__add_union(b, NULL, 4);
	field(b, "f_flags", fx->u32, 0);
	field(b, "f_other", fx->s32, 0);
	*file = btf__add_struct(b, "file", 48);
	field(b, "f_ref", fx->u64, 0);
	field(b, NULL, anon, 64);
	field(b, "f_mode", fx->u32, 96);
	*sin = btf__add_struct(b, "sockaddr_in", 16);
	field(b, "sin_family", fx->u16, 0);
	field(b, "sin_port", fx->u16, 16);
	*ino = btf__add_struct(b, "inode", 64);
	field(b, "i_mode", fx->u16, 0);
	field(b, "i_opflags", fx->u16, 16);
	field(b, "i_ino", fx->u64, 64);
	/* not known: the first scalar members, pointers and arrays left out */
	vptr = btf__add_ptr(b, 0);
	arr = btf__add_array(b, fx->u32, fx->chr, 4);
	*unk = btf__add_struct(b, "widget", 40);
	field(b, "owner", vptr, 0);
	field(b, "temp", fx->s16, 64);
	field(b, "id", fx->u32, 96);
	field(b, "name", arr, 128);
	field(b, "level", fx->s32, 160);
	field(b, "a", fx->uchr, 192);
	field(b, "b", fx->uchr, 200);
	*bits = btf__add_struct(b, "flagbits", 8);
	assert_int_equal(btf__add_field(b, "x", fx->u32, 0, 3), 0);
	field(b, "y", fx->u32, 32);
}

static int fx_setup(void **state)
{
	static const char *const n3[] = { "dfd", "filename", "how" };
	static const char *const nm[] = { "a", "b", "c", "d", "e", "f", "g" };
	struct fx *fx = calloc(1, sizeof(*fx));
	int how, file, sin, ino, unk, bits, cchr, uchr_ptr, tagged, big;
	struct btf *b;

	assert_non_null(fx);
	b = fx->btf = btf__new_empty();
	assert_non_null(b);
	fx->s32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	fx->u32 = btf__add_int(b, "unsigned int", 4, 0);
	fx->u64 = btf__add_int(b, "long long unsigned int", 8, 0);
	fx->chr = btf__add_int(b, "char", 1, BTF_INT_SIGNED);
	fx->uchr = btf__add_int(b, "unsigned char", 1, 0);
	fx->s16 = btf__add_int(b, "short", 2, BTF_INT_SIGNED);
	fx->u16 = btf__add_int(b, "short unsigned int", 2, 0);
	add_structs(fx, &how, &file, &sin, &ino, &unk, &bits);
	cchr = btf__add_ptr(b, btf__add_const(b, fx->chr));
	uchr_ptr = btf__add_ptr(b, fx->uchr);
	/* const char __user *: PTR -> TYPE_TAG user -> CONST -> char */
	tagged = btf__add_ptr(b, btf__add_type_tag(b, "user", btf__add_const(b, fx->chr)));
	big = btf__add_struct(b, "pair", 16);
	field(b, "lo", fx->u64, 0);
	field(b, "hi", fx->u64, 64);
	fx->openat2 = FUNC(b, "do_sys_openat2", n3, fx->s32, cchr, btf__add_ptr(b, how));
	fx->opentag = FUNC(b, "do_sys_openat2_tagged", n3, fx->s32, tagged,
			   btf__add_ptr(b, how));
	fx->many = FUNC(b, "many", nm, cchr, cchr, uchr_ptr, btf__add_ptr(b, file), cchr,
			cchr);
	/* a 16-byte struct by value takes two registers: the pointer is in the fourth */
	fx->byval = FUNC(b, "byval", nm, fx->s32, big, btf__add_ptr(b, ino));
	fx->sock = FUNC(b, "sock", nm, btf__add_ptr(b, sin), fx->s32);
	fx->unknown = FUNC(b, "unknown", nm, btf__add_ptr(b, unk));
	fx->inode_f = FUNC(b, "inode_f", nm, btf__add_ptr(b, ino));
	fx->bits = FUNC(b, "bits", nm, btf__add_ptr(b, bits));
	fx->none = FUNC(b, "none", nm, fx->s32, fx->u64);
	*state = fx;
	return 0;
}

static int fx_teardown(void **state)
{
	btf__free(F(state)->btf);
	free(*state);
	return 0;
}

static const char *kind_name(unsigned int k)
{
	switch (k) {
	case BG_DK_STR_KERNEL:
		return "kernel-str";
	case BG_DK_STR_USER:
		return "user-str";
	case BG_DK_STR_ANY:
		return "str";
	case BG_DK_FIELDS:
		return "fields";
	default:
		return "?";
	}
}

static void print_plan(FILE *out, struct fx *fx, int func_id, unsigned int what, bool tags)
{
	struct bg_detail_plan p;
	const struct btf_type *t = btf__type_by_id(fx->btf, (uint32_t)func_id);
	int n = detail__plan(fx->btf, (uint32_t)func_id, what, tags, &p);

	fprintf(out, "%s %s%s%s:", btf__name_by_offset(fx->btf, t->name_off),
		what & DETAIL_STRINGS ? "strings" : "", what == 3 ? "," : "",
		what & DETAIL_FIELDS ? "fields" : "");
	if (tags)
		fputs(" (type tags)", out);
	assert_int_equal(n, (int)p.nops);
	if (!n)
		fputs(" nothing", out);
	for (int i = 0; i < n; i++) {
		fprintf(out, " [reg %u %s", p.op[i].arg, kind_name(p.op[i].kind));
		for (int j = 0; j < p.op[i].nfields; j++)
			fprintf(out, " %u@%u", p.op[i].size[j], p.op[i].off[j]);
		fputs("]", out);
	}
	fputs("\n", out);
}

static void test_plans_golden(void **state)
{
	struct fx *fx = F(state);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	const int funcs[] = { fx->openat2, fx->opentag, fx->many, fx->byval, fx->sock,
			      fx->unknown, fx->inode_f, fx->bits, fx->none };

	assert_non_null(out);
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		for (unsigned int what = 1; what <= 3; what++)
			print_plan(out, fx, funcs[i], what, false);
	print_plan(out, fx, fx->openat2, 3, true);
	print_plan(out, fx, fx->opentag, 3, true);
	fclose(out);
	golden_check("detail/plans.txt", text, len);
	free(text);
}

static void test_user_tags(void **state)
{
	struct fx *fx = F(state);
	struct btf *plain = btf__new_empty();

	assert_true(detail__btf_has_user_tags(fx->btf));
	assert_non_null(plain);
	btf__add_int(plain, "int", 4, BTF_INT_SIGNED);
	assert_false(detail__btf_has_user_tags(plain));
	assert_false(detail__btf_has_user_tags(NULL));
	btf__free(plain);
}

/* BG_REC_DETAIL records of register arg: len bytes of data, split as the BPF side does. */
static void add_bytes(struct detail_vals *v, unsigned int arg, uint8_t flags, const void *data,
		      size_t len, int parts)
{
	uint8_t buf[BG_DETAIL_PARTS * BG_DETAIL_PART] = { 0 };

	if (len)
		memcpy(buf, data, len);
	for (int k = 0; k < parts; k++) {
		struct bg_rec r = { .type = BG_REC_DETAIL | flags,
				    .depth = (uint8_t)(arg | (unsigned int)k << 4) };
		const uint8_t *d = buf + k * BG_DETAIL_PART;

		memcpy(&r.ts, d, 8);
		memcpy(&r.val, d + 8, 8);
		memcpy(&r.dur, d + 16, 4);
		memcpy(&r.pid, d + 20, 4);
		detail_vals__add(v, &r);
	}
}

static void add_str(struct detail_vals *v, unsigned int arg, const char *s, bool trunc)
{
	size_t n = strlen(s) + 1 > BG_DETAIL_STR + 2 ? BG_DETAIL_STR + 2 : strlen(s) + 1;

	add_bytes(v, arg, trunc ? BG_RF_D_TRUNC : 0, s, n,
		  (int)((n + BG_DETAIL_PART - 1) / BG_DETAIL_PART));
}

static int after(void *ctx, unsigned int reg, uint64_t val, char *buf, size_t size)
{
	void **c = ctx;

	return detail__snprintf(buf, size, c[0], *(uint32_t *)c[1], c[2], reg, val);
}

/* The whole argument text and the JSON of each argument, one case per line pair. */
static void put_case(FILE *out, struct fx *fx, const char *name, int func_id,
		     const struct detail_vals *v, const uint64_t *regs)
{
	uint32_t id = (uint32_t)func_id;
	void *ctx[3] = { fx->btf, &id, (void *)v };
	struct args_after a = { after, ctx };
	char buf[1024];

	args__snprintf_after(buf, sizeof(buf), fx->btf, id, regs, BG_ARGS_MAX, 619, &a);
	fprintf(out, "%s: (%s)\n", name, buf);
	for (unsigned int r = 0; r < BG_ARGS_MAX; r++) {
		if (detail__json(buf, sizeof(buf), fx->btf, id, v, r, regs[r]) > 0)
			fprintf(out, "%s: json reg %u: %s\n", name, r, buf);
	}
}

static void test_render_golden(void **state)
{
	struct fx *fx = F(state);
	char *text = NULL, long_s[80];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	uint64_t how_vals[3] = { 0x8000, 0, 0 }, neg[6] = { 0xfffe, 7, 0xffffffff, 1, 2, 0 };
	const uint64_t regs[BG_ARGS_MAX] = { (uint64_t)-100, 0x47a073, 0xffff8880046fbe58,
					     0xffffc90000013e00, 5, 6 };
	struct detail_vals v;

	assert_non_null(out);
	memset(&v, 0, sizeof(v));
	add_str(&v, 1, "/nonexistent/bpfgraph-wl", false);
	add_bytes(&v, 2, BG_RF_D_FIELDS, how_vals, sizeof(how_vals), 1);
	put_case(out, fx, "openat2", fx->openat2, &v, regs);

	memset(&v, 0, sizeof(v));
	add_str(&v, 1, "a \"quoted\", back\\slash\n\ttab\x7f\xff{};()", false);
	put_case(out, fx, "escapes", fx->openat2, &v, regs);

	memset(long_s, 'x', sizeof(long_s));
	long_s[64] = '\0';
	memset(&v, 0, sizeof(v));
	add_str(&v, 1, long_s, false);
	put_case(out, fx, "exactly-64", fx->openat2, &v, regs);
	long_s[64] = 'y';
	long_s[79] = '\0';
	memset(&v, 0, sizeof(v));
	add_str(&v, 1, long_s, true);
	put_case(out, fx, "truncated", fx->openat2, &v, regs);

	memset(&v, 0, sizeof(v));
	add_str(&v, 1, "", false);
	add_bytes(&v, 2, BG_RF_D_FIELDS | BG_RF_D_FAULT, NULL, 0, 1);
	put_case(out, fx, "empty-and-fault", fx->openat2, &v, regs);

	memset(&v, 0, sizeof(v));
	add_bytes(&v, 1, BG_RF_D_FAULT, NULL, 0, 1);
	put_case(out, fx, "string-fault", fx->openat2, &v, regs);

	/* a NULL pointer shows nothing, whatever came with it */
	memset(&v, 0, sizeof(v));
	add_str(&v, 1, "ignored", false);
	put_case(out, fx, "null", fx->openat2, &v,
		 (const uint64_t[BG_ARGS_MAX]){ 1, 0, 0, 0, 0, 0 });

	/* signed members sign-extended from their size; 4 members in two parts */
	memset(&v, 0, sizeof(v));
	add_bytes(&v, 0, BG_RF_D_FIELDS, neg, sizeof(neg), 2);
	put_case(out, fx, "unknown-struct", fx->unknown, &v, regs);

	memset(&v, 0, sizeof(v));
	add_bytes(&v, 3, BG_RF_D_FIELDS, (uint64_t[]){ 0x41ed, 1234 }, 16, 1);
	put_case(out, fx, "after-struct-by-value", fx->byval, &v, regs);

	/* parts out of order (a damaged file) are left out, not misplaced */
	memset(&v, 0, sizeof(v));
	add_bytes(&v, 1, 0, "abc", 4, 1);
	add_bytes(&v, 1, 0, "zzz", 4, 1);
	put_case(out, fx, "repeated-part", fx->openat2, &v, regs);
	fclose(out);
	golden_check("detail/render.txt", text, len);
	free(text);
}

/* Nothing inside a detail may split the text reader's arguments. */
static void test_no_comma_space(void **state)
{
	struct fx *fx = F(state);
	struct detail_vals v;
	char buf[512];

	memset(&v, 0, sizeof(v));
	add_str(&v, 1, ", , ,", false);
	detail__snprintf(buf, sizeof(buf), fx->btf, (uint32_t)fx->openat2, &v, 1, 1);
	assert_null(strstr(buf, ", "));
	assert_string_equal(buf, " \"\\x2c \\x2c \\x2c\"");
	/* snprintf contract: the whole length, a cut NUL-terminated buffer */
	assert_int_equal(detail__snprintf(buf, 4, fx->btf, (uint32_t)fx->openat2, &v, 1, 1), 17);
	assert_string_equal(buf, " \"\\");
	assert_int_equal(detail__snprintf(NULL, 0, fx->btf, (uint32_t)fx->openat2, &v, 1, 1), 17);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)
		T(test_plans_golden),
		T(test_user_tags),
		T(test_render_golden),
		T(test_no_comma_space),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
