// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Argument and return address text (user/out/args.c) against the rules of
 * docs/function-graph-format.md, "Arguments and return addresses": small
 * BTFs built here, raw registers in, the exact text of each kernel out.
 * Each rule has a value whose text differs between signed and unsigned,
 * sizes or versions, so that a wrong rule fails. The version matrix of
 * the sample functions is also in tests/golden/args/matrix.txt.
 */
#include <errno.h>
#include <inttypes.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "golden.h"

#include "args.h"
#include "btfname.h"

#define V6_13 613
#define V6_15 615
#define V6_16 616
#define V6_17 617
#define V6_18 618
#define V6_19 619
#define V7_3 703

/* Type ids of the test BTF, filled by fx_setup(). */
struct types {
	int s32, u32, s64, u64, boolean, chr, uchr, s16, u16, s128;
	int vptr, cchr_ptr, u32_td, const_s32, vol_u64, restrict_ptr, tag_ptr;
	int en, en64, st8, st12, st16, un8, flt, flags, sen;
};

struct fx {
	struct btf *btf;
	struct types t;
};

static struct fx *F(void **state)
{
	return *state;
}

/* A FUNC named name taking nr parameters of types[i] named names[i]. */
static int add_func(struct btf *btf, const char *name, int nr,
		    const int *types, const char *const *names)
{
	int proto = btf__add_func_proto(btf, 0), i;

	assert_true(proto > 0);
	for (i = 0; i < nr; i++)
		assert_int_equal(btf__add_func_param(btf, names[i], types[i]), 0);
	return btf__add_func(btf, name, BTF_FUNC_GLOBAL, proto);
}

#define FUNC(fx, name, ...)                                                     \
	add_func((fx)->btf, name, sizeof((int[]){ __VA_ARGS__ }) / sizeof(int), \
		 (int[]){ __VA_ARGS__ }, pnames)

static const char *const pnames[] = { "a", "b", "c", "d", "e", "f", "g", "h", "i" };

static void add_ints(struct btf *b, struct types *t)
{
	t->s32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	t->u32 = btf__add_int(b, "unsigned int", 4, 0);
	t->s64 = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
	t->u64 = btf__add_int(b, "unsigned long", 8, 0);
	t->boolean = btf__add_int(b, "_Bool", 1, BTF_INT_BOOL);
	t->chr = btf__add_int(b, "char", 1, BTF_INT_SIGNED);
	t->uchr = btf__add_int(b, "unsigned char", 1, 0);
	t->s16 = btf__add_int(b, "short", 2, BTF_INT_SIGNED);
	t->u16 = btf__add_int(b, "unsigned short", 2, 0);
	t->s128 = btf__add_int(b, "__int128", 16, BTF_INT_SIGNED);
}

static void add_derived(struct btf *b, struct types *t)
{
	t->vptr = btf__add_ptr(b, 0);
	t->cchr_ptr = btf__add_ptr(b, btf__add_const(b, t->chr));
	t->u32_td = btf__add_typedef(b, "u32", t->u32);
	t->const_s32 = btf__add_const(b, t->s32);
	t->vol_u64 = btf__add_volatile(b, btf__add_typedef(b, "size_t", t->u64));
	t->restrict_ptr = btf__add_restrict(b, t->vptr);
	t->tag_ptr = btf__add_ptr(b, btf__add_type_tag(b, "user", t->chr));
	t->en = btf__add_enum(b, "pid_type", 4);
	assert_int_equal(btf__add_enum_value(b, "PIDTYPE_PID", 0), 0);
	assert_int_equal(btf__add_enum_value(b, "PIDTYPE_TGID", 1), 0);
	/* hrtimer_mode's shape: flags, and names sharing a value */
	t->flags = btf__add_enum(b, "hrtimer_mode", 4);
	assert_int_equal(btf__add_enum_value(b, "HRTIMER_MODE_ABS", 0), 0);
	assert_int_equal(btf__add_enum_value(b, "HRTIMER_MODE_HARD", 8), 0);
	assert_int_equal(btf__add_enum_value(b, "HRTIMER_MODE_ABS_HARD", 8), 0);
	assert_int_equal(btf__add_enum_value(b, "HRTIMER_MODE_REL_HARD", 9), 0);
	assert_int_equal(btf__add_enum_value(b, "HRTIMER_MODE_HIGH", (int64_t)0x80000000), 0);
	/* a signed enum (BTF kflag): a negative enumerator */
	t->sen = btf__add_enum(b, "ctx_state", 4);
	assert_int_equal(btf__add_enum_value(b, "CT_STATE_DISABLED", -1), 0);
	assert_int_equal(btf__add_enum_value(b, "CT_STATE_KERNEL", 0), 0);
	t->en64 = btf__add_enum64(b, "big", 8, false);
	assert_int_equal(btf__add_enum64_value(b, "BIG", 1ULL << 40), 0);
	t->flt = btf__add_float(b, "double", 8);
}

static void add_aggregates(struct btf *b, struct types *t)
{
	t->st8 = btf__add_struct(b, "kuid_t", 8);
	assert_int_equal(btf__add_field(b, "val", t->u64, 0, 0), 0);
	t->st12 = btf__add_struct(b, "three", 12);
	assert_int_equal(btf__add_field(b, "x", t->u32, 0, 0), 0);
	assert_int_equal(btf__add_field(b, "y", t->u32, 32, 0), 0);
	assert_int_equal(btf__add_field(b, "z", t->u32, 64, 0), 0);
	t->st16 = btf__add_struct(b, "pair", 16);
	assert_int_equal(btf__add_field(b, "lo", t->u64, 0, 0), 0);
	assert_int_equal(btf__add_field(b, "hi", t->u64, 64, 0), 0);
	t->un8 = btf__add_union(b, "either", 8);
	assert_int_equal(btf__add_field(b, "l", t->u64, 0, 0), 0);
	assert_int_equal(btf__add_field(b, "p", t->vptr, 0, 0), 0);
}

static int fx_setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->btf = btf__new_empty();
	assert_non_null(fx->btf);
	add_ints(fx->btf, &fx->t);
	add_derived(fx->btf, &fx->t);
	add_aggregates(fx->btf, &fx->t);
	*state = fx;
	return 0;
}

static int fx_teardown(void **state)
{
	btf__free(F(state)->btf);
	free(*state);
	return 0;
}

/* The argument text of func_id for args under version, checked whole. */
static void check(struct fx *fx, int func_id, int version, const char *want,
		  const uint64_t *args)
{
	char buf[512];
	int n = args__snprintf(buf, sizeof(buf), fx->btf, (uint32_t)func_id,
			       args, BG_ARGS_MAX, version);

	assert_string_equal(buf, want);
	assert_int_equal(n, (int)strlen(want));
}

#define CHECK(fx, id, ver, want, ...) \
	check(fx, id, ver, want, (const uint64_t[BG_ARGS_MAX]){ __VA_ARGS__ })

/* --- which rules, when ---------------------------------------------------- */

static void test_rules_by_version(void **state)
{
	assert_int_equal(args__rules(601), BG_ARGS_NONE);
	assert_int_equal(args__rules(614), BG_ARGS_NONE);
	assert_int_equal(args__rules(615), BG_ARGS_6_15);
	assert_int_equal(args__rules(616), BG_ARGS_6_15);
	assert_int_equal(args__rules(617), BG_ARGS_6_17);
	assert_int_equal(args__rules(618), BG_ARGS_6_17);
	assert_int_equal(args__rules(619), BG_ARGS_6_19);
	assert_int_equal(args__rules(703), BG_ARGS_6_19);
}

static void test_shown(void **state)
{
	assert_false(args__shown(V6_13, true, false));
	assert_true(args__shown(V6_15, true, false));
	assert_false(args__shown(V6_15, false, false));
	/* 6.15-6.18 record the return address instead of the arguments */
	assert_false(args__shown(V6_15, true, true));
	assert_false(args__shown(V6_18, true, true));
	assert_true(args__shown(V6_19, true, true));
	assert_true(args__shown(V7_3, true, true));
	assert_false(args__retaddr_shown(612, true));
	assert_true(args__retaddr_shown(V6_13, true));
	assert_false(args__retaddr_shown(V7_3, false));
}

/* --- integers ------------------------------------------------------------- */

/* Debian 7.3: an int -100 whose register has its upper half clear. */
static void test_signed_int_raw_register(void **state)
{
	struct fx *fx = F(state);
	int f = FUNC(fx, "do_sys_openat2", fx->t.s32, fx->t.cchr_ptr, fx->t.vptr);
	const char *want = "a=4294967196, b=0x47a073, c=0xffff8881046a3e00";

	CHECK(fx, f, V7_3, want, 0xffffff9c, 0x47a073, 0xffff8881046a3e00);
	CHECK(fx, f, V6_15, want, 0xffffff9c, 0x47a073, 0xffff8881046a3e00);
	/* sign-extended by the caller: negative, in every version */
	CHECK(fx, f, V6_15, "a=-100, b=0x0, c=0x0", (uint64_t)-100, 0, 0);
	CHECK(fx, f, V6_19, "a=-100, b=0x0, c=0x0", (uint64_t)-100, 0, 0);
}

/* The example of commit 3ca824369b71 (6.17): unsigned went hex. */
static void test_unsigned_hex_from_6_17(void **state)
{
	struct fx *fx = F(state);
	int f = FUNC(fx, "__local_bh_disable_ip", fx->t.u64, fx->t.u32);

	CHECK(fx, f, V6_15, "a=-2127311112, b=256", 0xffffffff8133cef8, 0x100);
	CHECK(fx, f, V6_16, "a=-2127311112, b=256", 0xffffffff8133cef8, 0x100);
	CHECK(fx, f, V6_17, "a=0xffffffff8133cef8, b=0x100", 0xffffffff8133cef8, 0x100);
	CHECK(fx, f, V7_3, "a=0xffffffff8133cef8, b=0x100", 0xffffffff8133cef8, 0x100);
	CHECK(fx, f, V6_15, "a=0, b=4294967196", 0, 0xffffff9c);
	CHECK(fx, f, V6_18, "a=0x0, b=0xffffff9c", 0, 0xffffff9c);
}

/* Small integers are not cut to their width: the register is printed. */
static void test_small_ints(void **state)
{
	struct fx *fx = F(state);
	int f = FUNC(fx, "small", fx->t.boolean, fx->t.chr, fx->t.uchr, fx->t.s16,
		     fx->t.u16);

	CHECK(fx, f, V6_15, "a=1, b=65, c=65, d=65535, e=65535", 1, 65, 0x41, 0xffff,
	      0xffff);
	CHECK(fx, f, V6_17, "a=0x1, b=65, c=0x41, d=65535, e=0xffff", 1, 65, 0x41,
	      0xffff, 0xffff);
	/* upper garbage stays: a bool register holding 0x100000001 */
	CHECK(fx, f, V6_17, "a=0x100000001, b=-1, c=0xffffffffffffffff, d=-2, e=0x0",
	      0x100000001, (uint64_t)-1, (uint64_t)-1, (uint64_t)-2, 0);
}

/* An __int128 takes one register, like any integer. */
static void test_wide_int_one_register(void **state)
{
	struct fx *fx = F(state);
	int f = FUNC(fx, "wide", fx->t.s128, fx->t.u32);

	CHECK(fx, f, V6_17, "a=5, b=0x7", 5, 7);
}

static void test_modifiers_skipped(void **state)
{
	struct fx *fx = F(state);
	int f = FUNC(fx, "mods", fx->t.u32_td, fx->t.const_s32, fx->t.vol_u64,
		     fx->t.restrict_ptr, fx->t.tag_ptr);

	CHECK(fx, f, V6_15, "a=16, b=-1, c=32, d=0x1000, e=0x7ffd0000",
	      0x10, (uint64_t)-1, 0x20, 0x1000, 0x7ffd0000);
	CHECK(fx, f, V6_17, "a=0x10, b=-1, c=0x20, d=0x1000, e=0x7ffd0000",
	      0x10, (uint64_t)-1, 0x20, 0x1000, 0x7ffd0000);
}

/* --- pointers and enums --------------------------------------------------- */

static void test_pointers(void **state)
{
	struct fx *fx = F(state);
	int f = FUNC(fx, "ptrs", fx->t.vptr, fx->t.cchr_ptr);

	/* "0x%lx": zero is 0x0, no padding, lower case */
	CHECK(fx, f, V6_15, "a=0x0, b=0xffff9e1c0abcdef0", 0, 0xffff9e1c0abcdef0);
	CHECK(fx, f, V6_19, "a=0x1, b=0xffffffffffffffff", 1, (uint64_t)-1);
}

static void test_enums_are_numbers(void **state)
{
	struct fx *fx = F(state);
	int f = FUNC(fx, "enums", fx->t.en, fx->t.en64);

	/* ENUM: signed decimal of the register, no name before 6.19; ENUM64
	 * is not an ENUM to print_function_args(): raw, with its kind name */
	CHECK(fx, f, V6_15, "a=1, b=(ENUM64)[0x10000000000]", 1, 1ULL << 40);
	CHECK(fx, f, V6_17, "a=1, b=(ENUM64)[0x1]", 1, 1);
	CHECK(fx, f, V6_18, "a=4294967295, b=(ENUM64)[0x1]", 0xffffffff, 1);
	CHECK(fx, f, V6_19, "a=-1, b=(ENUM64)[0x0]", (uint64_t)-1, 0);
	CHECK(fx, f, V7_3, "a=-1, b=(ENUM64)[0x10000000000]", (uint64_t)-1, 1ULL << 40);
}

/* 7.3: "reason=2 [SKB_DROP_REASON_NOT_SPECIFIED]", decimal even when unsigned */
static void test_enum_names(void **state)
{
	struct fx *fx = F(state);
	int f = FUNC(fx, "enum_names", fx->t.en, fx->t.flags, fx->t.sen);

	CHECK(fx, f, V6_19, "a=1 [PIDTYPE_TGID], b=9 [HRTIMER_MODE_REL_HARD], c=0 [CT_STATE_KERNEL]",
	      1, 9, 0);
	/* the first of the names sharing a value; flags are not split up */
	CHECK(fx, f, V7_3, "a=0 [PIDTYPE_PID], b=8 [HRTIMER_MODE_HARD], c=0 [CT_STATE_KERNEL]",
	      0, 8, 0);
	CHECK(fx, f, V7_3, "a=0 [PIDTYPE_PID], b=0 [HRTIMER_MODE_ABS], c=0 [CT_STATE_KERNEL]",
	      0, 0, 0);
	/* no enumerator of that value: the number alone (7.3: bpf(999, ...)) */
	CHECK(fx, f, V7_3, "a=999, b=12, c=1", 999, 12, 1);
	/* the whole register is compared: upper bits left by the caller miss */
	CHECK(fx, f, V7_3, "a=4294967297, b=9 [HRTIMER_MODE_REL_HARD], c=0 [CT_STATE_KERNEL]",
	      0x100000001, 9, 0);
	/* 32-bit values widened by the enum's signedness */
	CHECK(fx, f, V7_3, "a=0 [PIDTYPE_PID], b=2147483648 [HRTIMER_MODE_HIGH], c=-1 [CT_STATE_DISABLED]",
	      0, 0x80000000, (uint64_t)-1);
	CHECK(fx, f, V7_3, "a=0 [PIDTYPE_PID], b=-2147483648, c=4294967295", 0,
	      0xffffffff80000000, 0xffffffff);
	/* 6.17 and before: the number only */
	CHECK(fx, f, V6_17, "a=1, b=8, c=-1", 1, 8, (uint64_t)-1);
}

/* --- by value: struct, union, float --------------------------------------- */

static void test_struct_by_value(void **state)
{
	struct fx *fx = F(state);
	int f = FUNC(fx, "make_vfsuid", fx->t.vptr, fx->t.st8, fx->t.st16,
		     fx->t.st12, fx->t.u32);

	/* one register per 8 bytes, ':' between, the next parameter after */
	CHECK(fx, f, V6_15,
	      "a=0x1, b=(STRUCT)[0x2], c=(STRUCT)[0x3:0x4], d=(STRUCT)[0x5:0x6], ...",
	      1, 2, 3, 4, 5, 6);
}

static void test_union_and_float(void **state)
{
	struct fx *fx = F(state);
	int f = FUNC(fx, "uf", fx->t.un8, fx->t.flt, fx->t.s32);

	CHECK(fx, f, V6_17, "a=(UNION)[0x7], b=(FLOAT)[0x3ff0000000000000], c=-3",
	      7, 0x3ff0000000000000, (uint64_t)-3);
}

/* A struct the registers run out in: "...]" and nothing after it. */
static void test_struct_cut_by_last_register(void **state)
{
	struct fx *fx = F(state);
	int f = FUNC(fx, "cut", fx->t.s64, fx->t.s64, fx->t.s64, fx->t.s64,
		     fx->t.s64, fx->t.st16, fx->t.s32);

	CHECK(fx, f, V6_19, "a=1, b=2, c=3, d=4, e=5, f=(STRUCT)[0x6:...]", 1, 2, 3,
	      4, 5, 6);
}

/* --- how many ------------------------------------------------------------- */

static void test_more_than_six(void **state)
{
	struct fx *fx = F(state);
	int six = FUNC(fx, "six", fx->t.s32, fx->t.s32, fx->t.s32, fx->t.s32,
		       fx->t.s32, fx->t.s32);
	int seven = FUNC(fx, "seven", fx->t.s32, fx->t.s32, fx->t.s32, fx->t.s32,
			 fx->t.s32, fx->t.s32, fx->t.u32);
	const uint64_t regs[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	char buf[128];

	CHECK(fx, six, V6_15, "a=1, b=2, c=3, d=4, e=5, f=6", 1, 2, 3, 4, 5, 6);
	CHECK(fx, seven, V6_15, "a=1, b=2, c=3, d=4, e=5, f=6, ...", 1, 2, 3, 4, 5, 6);
	/* an architecture that records 8 (nr_args) shows the seventh */
	args__snprintf(buf, sizeof(buf), fx->btf, (uint32_t)seven, regs, 8, V6_17);
	assert_string_equal(buf, "a=1, b=2, c=3, d=4, e=5, f=6, g=0x7");
}

/* --- what BTF cannot say -------------------------------------------------- */

static void test_unresolved_types(void **state)
{
	struct fx *fx = F(state);
	int f = FUNC(fx, "odd", fx->t.s32, 99999);
	int proto = btf__add_func_proto(fx->btf, fx->t.s32), vararg;

	/* "int printk(const char *fmt, ...)": the "..." is a void parameter
	 * without a name */
	assert_int_equal(btf__add_func_param(fx->btf, "fmt", fx->t.cchr_ptr), 0);
	assert_int_equal(btf__add_func_param(fx->btf, NULL, 0), 0);
	vararg = btf__add_func(fx->btf, "_printk", BTF_FUNC_GLOBAL, proto);
	CHECK(fx, f, V6_15, "a=-2, b=?0x2a", (uint64_t)-2, 42);
	CHECK(fx, vararg, V6_17, "fmt=0xffffffff82a0c4d8, =?0x3",
	      0xffffffff82a0c4d8, 3);
}

static void test_unnamed_parameter(void **state)
{
	struct fx *fx = F(state);
	int proto = btf__add_func_proto(fx->btf, 0), f;

	assert_int_equal(btf__add_func_param(fx->btf, NULL, fx->t.u32), 0);
	assert_int_equal(btf__add_func_param(fx->btf, "n", fx->t.s32), 0);
	f = btf__add_func(fx->btf, "anon", BTF_FUNC_STATIC, proto);
	CHECK(fx, f, V6_17, "=0x1, n=2", 1, 2);
}

static void test_nothing_to_show(void **state)
{
	struct fx *fx = F(state);
	int none = add_func(fx->btf, "noargs", 0, NULL, NULL);
	int f = FUNC(fx, "one", fx->t.s32);
	const uint64_t regs[BG_ARGS_MAX] = { 1 };
	char buf[16] = "x";

	CHECK(fx, none, V6_15, "", 0);
	CHECK(fx, 0, V6_15, "", 1); /* no BTF FUNC for it */
	CHECK(fx, fx->t.s32, V6_15, "", 1); /* not a FUNC */
	CHECK(fx, f, V6_13, "", 1); /* before funcgraph-args */
	assert_int_equal(args__snprintf(buf, sizeof(buf), NULL, (uint32_t)f, regs,
					BG_ARGS_MAX, V6_19), 0);
	assert_string_equal(buf, "");
	/* an entry recorded without arguments */
	assert_int_equal(args__snprintf(buf, sizeof(buf), fx->btf, (uint32_t)f,
					NULL, 0, V6_19), 0);
	CHECK(fx, f, V6_15, "a=1", 1);
}

/* --- the buffer ----------------------------------------------------------- */

static void test_snprintf_contract(void **state)
{
	struct fx *fx = F(state);
	int f = FUNC(fx, "trunc", fx->t.s32, fx->t.u32);
	const uint64_t regs[BG_ARGS_MAX] = { (uint64_t)-7, 0xff };
	const char *full = "a=-7, b=0xff";
	char buf[32];
	size_t len = strlen(full), sz;

	assert_int_equal(args__snprintf(NULL, 0, fx->btf, (uint32_t)f, regs,
					BG_ARGS_MAX, V6_17), (int)len);
	for (sz = 1; sz <= len + 1; sz++) {
		memset(buf, '#', sizeof(buf));
		assert_int_equal(args__snprintf(buf, sz, fx->btf, (uint32_t)f, regs,
						BG_ARGS_MAX, V6_17), (int)len);
		assert_int_equal(strlen(buf), sz - 1);
		assert_memory_equal(buf, full, sz - 1);
		assert_int_equal(buf[sz], '#');
	}
	assert_int_equal(args__snprintf(NULL, 4, fx->btf, (uint32_t)f, regs,
					BG_ARGS_MAX, V6_17), -EINVAL);
	assert_int_equal(args__snprintf(buf, 4, fx->btf, (uint32_t)f, NULL, 6,
					V6_17), -EINVAL);
	assert_int_equal(args__snprintf(buf, 4, fx->btf, (uint32_t)f, regs, -1,
					V6_17), -EINVAL);
}

/* --- which FUNC ----------------------------------------------------------- */

static void test_find_func(void **state)
{
	struct fx *fx = F(state);
	int first = FUNC(fx, "dup", fx->t.s32);
	struct btf *mod;

	FUNC(fx, "dup", fx->t.u64);
	assert_int_equal(args__find_func(fx->btf, "dup"), first);
	assert_int_equal(args__find_func(fx->btf, "dup.isra.0"), 0);
	assert_int_equal(args__find_func(fx->btf, "int"), 0); /* not a FUNC */
	assert_int_equal(args__find_func(NULL, "dup"), 0);
	/* a module's split BTF: vmlinux's FUNC of that name comes first */
	mod = btf__new_empty_split(fx->btf);
	assert_non_null(mod);
	assert_true(add_func(mod, "dup", 0, NULL, NULL) > first);
	assert_int_equal(args__find_func(mod, "dup"), first);
	btf__free(mod);
}

/* --- type spellings (btfname.h) -------------------------------------------- */

static void test_btf_names(void **state)
{
	struct btf *b = btf__new_empty();
	struct btf_names *n = btf_names__new();
	int i, ip, s1, s2, p1, p2;
	const char *a;

	(void)state;
	assert_non_null(b);
	assert_non_null(n);
	i = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	ip = btf__add_ptr(b, i);
	/* Two distinct structs of one name, as a module and vmlinux may have. */
	s1 = btf__add_struct(b, "foo", 4);
	assert_int_equal(btf__add_field(b, "x", i, 0, 0), 0);
	s2 = btf__add_struct(b, "foo", 8);
	assert_int_equal(btf__add_field(b, "y", i, 32, 0), 0);
	p1 = btf__add_ptr(b, s1);
	p2 = btf__add_ptr(b, s2);
	assert_string_equal(btf_names__get(n, b, 0), "void");
	assert_string_equal(btf_names__get(n, b, (uint32_t)i), "int");
	a = btf_names__get(n, b, (uint32_t)ip);
	assert_string_equal(a, "int *");
	assert_string_equal(btf_names__get(n, b, (uint32_t)p1), "struct foo *");
	/* Not "struct foo___2 *": each spelling is made afresh. */
	assert_string_equal(btf_names__get(n, b, (uint32_t)p2), "struct foo *");
	/* Made once: the same string again, also after the table grew. */
	for (int k = 0; k < 400; k++)
		btf__add_ptr(b, i);
	for (uint32_t id = 1; id < btf__type_cnt(b); id++)
		assert_non_null(btf_names__get(n, b, id));
	assert_ptr_equal(btf_names__get(n, b, (uint32_t)ip), a);
	assert_null(btf_names__get(n, NULL, 1));
	btf_names__free(n);
	btf__free(b);
}

static void dump_out(void *ctx, const char *fmt, va_list args)
{
	char *buf = ctx;
	size_t len = strlen(buf);

	vsnprintf(buf + len, BTF_NAME_MAX - len, fmt, args);
}

/* btf_names__get()'s spelling of id against a fresh btf_dump's. */
static void check_as_dump(struct btf_names *n, const struct btf *b, uint32_t id)
{
	DECLARE_LIBBPF_OPTS(btf_dump_emit_type_decl_opts, opts, .field_name = "");
	char want[BTF_NAME_MAX] = "";
	struct btf_dump *d = btf_dump__new(b, dump_out, want, NULL);
	const char *got = btf_names__get(n, b, id);

	assert_non_null(d);
	if (!id)
		snprintf(want, sizeof(want), "void");
	else if (btf_dump__emit_type_decl(d, id, &opts))
		want[0] = '\0';
	btf_dump__free(d);
	if (!want[0]) {
		assert_null(got);
		return;
	}
	if (!got || strcmp(got, want))
		fail_msg("type %u: \"%s\", btf_dump \"%s\"", id, got ? got : "(null)", want);
}

/*
 * The spellings made without btf_dump (the common shapes) and those left
 * to it, against btf_dump: every type of a BTF with one of each shape,
 * and, where this machine has one, the return and parameter types of the
 * first functions of its kernel's BTF.
 */
static void test_btf_names_as_btf_dump(void **state)
{
	struct btf *b = btf__new_empty(), *vm;
	struct btf_names *n = btf_names__new();
	int i, c, st, un, en, ptr, cst, fp, arr;
	uint32_t id, funcs = 0;

	(void)state;
	assert_non_null(b);
	assert_non_null(n);
	i = btf__add_int(b, "long unsigned int", 8, 0);
	c = btf__add_int(b, "char", 1, BTF_INT_SIGNED);
	btf__add_float(b, "double", 8);
	st = btf__add_struct(b, "file", 8);
	un = btf__add_union(b, "u", 8);
	en = btf__add_enum(b, "e", 4);
	btf__add_enum64(b, "e64", 8, false);
	btf__add_fwd(b, "fs", BTF_FWD_STRUCT);
	btf__add_fwd(b, "fu", BTF_FWD_UNION);
	btf__add_struct(b, NULL, 4); /* anonymous */
	btf__add_typedef(b, "u64", i);
	ptr = btf__add_ptr(b, c);
	cst = btf__add_const(b, c);
	btf__add_ptr(b, btf__add_ptr(b, btf__add_ptr(b, st)));
	btf__add_ptr(b, cst);
	btf__add_ptr(b, btf__add_volatile(b, un));
	btf__add_ptr(b, btf__add_const(b, btf__add_volatile(b, i)));
	btf__add_const(b, ptr); /* char * const */
	btf__add_ptr(b, btf__add_const(b, ptr));
	btf__add_ptr(b, btf__add_type_tag(b, "user", c));
	btf__add_ptr(b, btf__add_restrict(b, ptr));
	btf__add_ptr(b, en);
	btf__add_ptr(b, 0);
	btf__add_ptr(b, btf__add_ptr(b, btf__add_ptr(b, btf__add_ptr(b, btf__add_ptr(b,
		btf__add_ptr(b, btf__add_ptr(b, btf__add_ptr(b, btf__add_ptr(b, c)))))))));
	fp = btf__add_func_proto(b, i);
	btf__add_ptr(b, fp);
	arr = btf__add_array(b, i, c, 4);
	btf__add_ptr(b, arr);
	for (id = 0; id < btf__type_cnt(b); id++)
		if (btf_kind(btf__type_by_id(b, id)) != BTF_KIND_FUNC_PROTO)
			check_as_dump(n, b, id);
	vm = btf__load_vmlinux_btf();
	for (id = 1; vm && id < btf__type_cnt(vm) && funcs < 100; id++) {
		const struct btf_type *t = btf__type_by_id(vm, id), *p;

		if (!btf_is_func(t))
			continue;
		p = btf__type_by_id(vm, t->type);
		check_as_dump(n, vm, p->type);
		for (uint16_t k = 0; k < btf_vlen(p); k++)
			check_as_dump(n, vm, btf_params(p)[k].type);
		funcs++;
	}
	btf__free(vm);
	btf_names__free(n);
	btf__free(b);
}

/* --- return addresses ----------------------------------------------------- */

static void check_ret(uint64_t addr, const char *name, const char *mod,
		      uint64_t off, uint64_t size, const char *want)
{
	char buf[128];
	int n = args__retaddr_snprintf(buf, sizeof(buf), addr, name, mod, off, size);

	assert_string_equal(buf, want);
	assert_int_equal(n, (int)strlen(want));
}

static void test_retaddr(void **state)
{
	check_ret(0xffffffff81234567, "down_read", NULL, 0x12, 0x160,
		  "<-down_read+0x12/0x160");
	check_ret(0xffffffffc0a01234, "nf_hook_slow", "nf_tables", 0x44, 0xf0,
		  "<-nf_hook_slow+0x44/0xf0 [nf_tables]");
	/* the kernel's %#lx writes 0x for zero too (C's would not) */
	check_ret(0xffffffff81000000, "startup_64", "", 0, 0x1a0,
		  "<-startup_64+0x0/0x1a0");
	check_ret(0xffffffffc0a01234, NULL, NULL, 0, 0, "<-0xffffffffc0a01234");
	check_ret(0xffffffffc0a01234, "", "mod", 1, 2, "<-0xffffffffc0a01234");
	check_ret(0, "ignored", NULL, 1, 2, "<-0");
}

static void test_retaddr_truncated(void **state)
{
	char buf[8];

	memset(buf, '#', sizeof(buf));
	assert_int_equal(args__retaddr_snprintf(buf, 6, 1, "caller", NULL, 0x3b,
						0x160),
			 (int)strlen("<-caller+0x3b/0x160"));
	assert_string_equal(buf, "<-cal");
	assert_int_equal(buf[6], '#');
	assert_int_equal(args__retaddr_snprintf(NULL, 1, 1, "c", NULL, 1, 1),
			 -EINVAL);
}

/* --- the version matrix, as a golden file --------------------------------- */

static void matrix_line(FILE *out, struct fx *fx, int version, const char *name,
			int f, const uint64_t *regs)
{
	char buf[512];

	args__snprintf(buf, sizeof(buf), fx->btf, (uint32_t)f, regs, BG_ARGS_MAX,
		       version);
	fprintf(out, "%d %s(%s)\n", version, name, buf);
}

/* A FUNC with the parameter names of the real one. */
#define NAMED(fx, name, names, ...)                                             \
	add_func((fx)->btf, name, sizeof((int[]){ __VA_ARGS__ }) / sizeof(int), \
		 (int[]){ __VA_ARGS__ }, (const char *const[])names)

#define L(...) { __VA_ARGS__ }

static void test_matrix_golden(void **state)
{
	static const int versions[] = { V6_13, V6_15, V6_17, V6_19, V7_3 };
	struct fx *fx = F(state);
	const struct types *t = &fx->t;
	const struct {
		const char *name;
		int f;
		uint64_t regs[BG_ARGS_MAX];
	} calls[] = {
		{ "do_sys_openat2",
		  NAMED(fx, "do_sys_openat2", L("dfd", "filename", "how"), t->s32,
			t->cchr_ptr, t->vptr),
		  { 0xffffff9c, 0x47a073, 0xffffc90000a3fe58 } },
		{ "vfs_read",
		  NAMED(fx, "vfs_read", L("file", "buf", "count", "pos"), t->vptr,
			t->tag_ptr, t->vol_u64, t->vptr),
		  { 0xffff888104a1e300, 0x7ffd2c3e1000, 0x20000, 0xffffc90000a3ff08 } },
		{ "small",
		  NAMED(fx, "small", L("on", "c", "uc", "s", "us"), t->boolean, t->chr,
			t->uchr, t->s16, t->u16),
		  { 1, 0x41, 0x41, 0xfffe, 0xfffe } },
		{ "by_value",
		  NAMED(fx, "by_value", L("kuid", "pair", "either", "type", "big"),
			t->st8, t->st16, t->un8, t->en, t->en64),
		  { 0x3e8, 0x1, 0x2, 0x3, 0xffffffff, 0x5 } },
		{ "enum_names",
		  NAMED(fx, "enum_names", L("type", "mode", "state", "missing"), t->en,
			t->flags, t->sen, t->flags),
		  { 1, 8, (uint64_t)-1, 12 } },
		{ "seven",
		  NAMED(fx, "seven", L("a", "b", "c", "d", "e", "f", "g"), t->s64,
			t->s64, t->s64, t->s64, t->s64, t->u64, t->u64),
		  { (uint64_t)-1, 0, 1, 2, 3, (uint64_t)-1 } },
	};
	char *text = NULL;
	size_t len = 0, v, c;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	for (v = 0; v < sizeof(versions) / sizeof(versions[0]); v++)
		for (c = 0; c < sizeof(calls) / sizeof(calls[0]); c++)
			matrix_line(out, fx, versions[v], calls[c].name, calls[c].f,
				    calls[c].regs);
	fclose(out);
	golden_check("args/matrix.txt", text, len);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules_by_version),
		cmocka_unit_test(test_shown),
#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)
		T(test_signed_int_raw_register),
		T(test_unsigned_hex_from_6_17),
		T(test_small_ints),
		T(test_wide_int_one_register),
		T(test_modifiers_skipped),
		T(test_pointers),
		T(test_enums_are_numbers),
		T(test_enum_names),
		T(test_struct_by_value),
		T(test_union_and_float),
		T(test_struct_cut_by_last_register),
		T(test_more_than_six),
		T(test_unresolved_types),
		T(test_unnamed_parameter),
		T(test_nothing_to_show),
		T(test_snprintf_contract),
		T(test_find_func),
		T(test_matrix_golden),
#undef T
		cmocka_unit_test(test_btf_names),
		cmocka_unit_test(test_btf_names_as_btf_dump),
		cmocka_unit_test(test_retaddr),
		cmocka_unit_test(test_retaddr_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
