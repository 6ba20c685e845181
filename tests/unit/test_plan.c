// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Planner pieces that need no kernel: kallsyms parsing, call decoding,
 * the deny list; and, where the host lets root read them, a plan built
 * from the live kernel's kallsyms, BTF and text. */
#include <errno.h>
#include <fnmatch.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <bpf/btf.h>
#include <gelf.h>

#include "functab.h"
#include "globset.h"
#include "kbtf.h"
#include "ksyms.h"
#include "ktext.h"
#include "plan.h"

static void test_ksyms_parse(void **state)
{
	struct ksyms *ks = ksyms__load(BG_SRCDIR "/tests/golden/kallsyms.txt");
	const struct ksym *s;

	assert_non_null(ks);
	/* some_data is not text: dropped. */
	assert_int_equal(ksyms__count(ks), 8);
	s = ksyms__find_name(ks, "beta", NULL);
	assert_non_null(s);
	assert_int_equal(s->addr, 0xffffffff81001040ULL);
	assert_int_equal(s->size, 0x40);
	s = ksyms__find_addr(ks, 0xffffffff81001045ULL);
	assert_string_equal(s->name, "beta");
	s = ksyms__find_name(ks, "bm_status_read", "binfmt_misc");
	assert_non_null(s);
	assert_string_equal(s->module, "binfmt_misc");
	assert_null(ksyms__find_name(ks, "bm_status_read", "other"));
	assert_null(ksyms__find_name(ks, "nope", NULL));
	assert_null(ksyms__find_addr(ks, 0x1000));
	assert_false(ksyms__hidden(ks));
	ksyms__free(ks);
}

/*
 * The order kallsyms really has: vmlinux by address, then modules in
 * their own order (here one below vmlinux, to take the merge path); names
 * sharing their first eight bytes ("__prfx_"), duplicates, junk lines, and
 * the padding before functions (__pfx_, __cfi_), which bounds the function
 * before it and is no symbol itself.
 */
static void test_ksyms_order(void **state)
{
	char path[] = "/tmp/bg_ksyms_order.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	static const char *const by_name[] = {
		"__prfx_alpha", "__prfx_alpha", "__prfx_beta", "__prfx_betb", "alpha", "beta",
		"betb", "m1", "m2", "z",
	};
	struct ksyms *ks;
	const struct ksym *s;

	(void)state;
	assert_non_null(f);
	fputs("ffffffff81000ff0 t __prfx_alpha\n"
	      "ffffffff81001000 T alpha\n"
	      "ffffffff81001000 D not_text\n"
	      "ffffffff81001030 t __prfx_betb\n"
	      "ffffffff81001040 t betb\n"
	      "ffffffff81001080 t __prfx_beta\n"
	      "ffffffff81001090 t beta\n"
	      "garbage\n"
	      "ffffffff810010b0 t __pfx_z\n"
	      "ffffffff810010c0 T z\n"
	      "ffffffffa0002000 t m2\t[mod_b]\n"
	      "ffffffffa0000ff8 t __cfi_m1\t[mod_b]\n"
	      "ffffffffa0001000 t m1\t[mod_b]\n"
	      "ffffffffa0000ff0 t __prfx_alpha\t[mod_b]\n"
	      "ffffffff80000000 t alpha\t[low]\n", f);
	fclose(f);
	ks = ksyms__load(path);
	unlink(path);
	assert_non_null(ks);
	assert_int_equal(ksyms__count(ks), 11);
	for (size_t i = 1; i < ksyms__count(ks); i++)
		assert_true(ksyms__at(ks, i - 1)->addr <= ksyms__at(ks, i)->addr);
	s = ksyms__at(ks, 0);
	assert_string_equal(s->name, "alpha");
	assert_string_equal(s->module, "low");
	assert_int_equal(s->size, 0x81000ff0ULL - 0x80000000ULL);
	s = ksyms__find_name(ks, "betb", NULL);
	assert_non_null(s);
	assert_int_equal(s->size, 0x40);
	s = ksyms__find_name(ks, "m1", "mod_b");
	assert_non_null(s);
	assert_int_equal(s->addr, 0xffffffffa0001000ULL);
	assert_ptr_equal(s->module, ksyms__find_name(ks, "m2", NULL)->module);
	assert_int_equal(ksyms__name_count(ks, "alpha", NULL), 1);
	assert_int_equal(ksyms__name_count(ks, "alpha", "low"), 1);
	assert_int_equal(ksyms__name_count(ks, "__prfx_alpha", NULL), 1);
	assert_int_equal(ksyms__name_count(ks, "__prfx_alpha", "mod_b"), 1);
	/* Every name is found, and the names are in strcmp() order. */
	for (size_t i = 0; i < sizeof(by_name) / sizeof(by_name[0]); i++) {
		s = ksyms__find_name(ks, by_name[i], NULL);
		assert_non_null(s);
		assert_string_equal(s->name, by_name[i]);
	}
	assert_null(ksyms__find_name(ks, "__prfx_", NULL));
	/* Padding: left out, the extent before it ending where it begins. */
	assert_null(ksyms__find_name(ks, "__pfx_z", NULL));
	assert_null(ksyms__find_name(ks, "__cfi_m1", NULL));
	assert_int_equal(ksyms__find_name(ks, "beta", NULL)->size, 0x20);
	assert_null(ksyms__find_addr(ks, 0xffffffff810010b8ULL));
	assert_string_equal(ksyms__from_addr(ks, 0xffffffff810010b0ULL)->name, "z");
	assert_string_equal(ksyms__from_addr(ks, 0xffffffff810010b1ULL)->name, "z");
	assert_string_equal(ksyms__from_addr(ks, 0xffffffff810010c0ULL)->name, "z");
	assert_null(ksyms__from_addr(ks, 0xffffffffa0002001ULL));
	assert_null(ksyms__find_name(ks, "betc", NULL));
	ksyms__free(ks);
}

/*
 * Many names sharing long prefixes, as a kernel's do ("__prfx_" as the
 * padding's "__pfx_" before every function, "trace_event_raw_event_..."),
 * so that
 * the name sort works through runs of equal keys at several depths: every
 * name is found at its lowest address and counted in its scope.
 */
static void test_ksyms_order_many(void **state)
{
	static const char *const pre[] = {
		"", "__prfx_", "trace_event_raw_event_", "__prfx_trace_event_raw_event_", "a",
		"__prfx_abcdefghijklm", "abcdefghi", "__prfx_trace_ev",
	};
	enum { N = 4000 };
	char path[] = "/tmp/bg_ksyms_many.XXXXXX", (*names)[64] = calloc(N, 64);
	int fd = mkstemp(path), *mod = calloc(N, sizeof(int));
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	unsigned int seed = 7;
	struct ksyms *ks;

	(void)state;
	assert_non_null(f);
	assert_non_null(names);
	assert_non_null(mod);
	for (int i = 0; i < N; i++) {
		int len = (int)(rand_r(&seed) % 12);
		char tail[16];

		for (int c = 0; c < len; c++)
			tail[c] = "ab_c"[rand_r(&seed) % 4];
		tail[len] = 0;
		/* Every eighth a name seen before: duplicates at other addresses. */
		if (i > 8 && !(i % 8))
			memcpy(names[i], names[rand_r(&seed) % (unsigned int)i], 64);
		else if (i % 8 == 1) /* one byte of the second eight differs: one pass there */
			snprintf(names[i], 64, "grpawxyz%c1234567%s", "ab"[rand_r(&seed) % 2], tail);
		else
			snprintf(names[i], 64, "%s%s", pre[rand_r(&seed) % 8], tail);
		if (!names[i][0])
			snprintf(names[i], 64, "x");
		mod[i] = i >= N - 200;
		fprintf(f, "%016llx t %s%s\n", 0xffffffff81000000ULL + 16ULL * (unsigned int)i,
			names[i], mod[i] ? "\t[m]" : "");
	}
	fclose(f);
	ks = ksyms__load(path);
	unlink(path);
	assert_non_null(ks);
	assert_int_equal(ksyms__count(ks), N);
	for (int i = 0; i < N; i++) {
		const struct ksym *s = ksyms__find_name(ks, names[i], mod[i] ? "m" : NULL);
		size_t count = 0;
		int first = -1;

		for (int j = 0; j < N; j++) {
			if (strcmp(names[j], names[i]))
				continue;
			count += mod[j] == mod[i];
			if (first < 0 && (!mod[i] || mod[j]))
				first = j;
		}
		assert_non_null(s);
		assert_string_equal(s->name, names[i]);
		assert_int_equal(s->addr, 0xffffffff81000000ULL + 16ULL * (unsigned int)first);
		assert_int_equal(ksyms__name_count(ks, names[i], mod[i] ? "m" : NULL), count);
	}
	ksyms__free(ks);
	free(names);
	free(mod);
}

static void test_ksyms_missing_file(void **state)
{
	assert_null(ksyms__load("/nonexistent/kallsyms"));
	assert_int_equal(errno, ENOENT);
}

/*
 * endbr64; nop5 (fentry site); call +0x20 (outside); call self-local;
 * jmp to outside (tail call); jmp inside; ret
 */
static const uint8_t code[] = {
	0xf3, 0x0f, 0x1e, 0xfa, /* 0: endbr64 */
	0x0f, 0x1f, 0x44, 0x00, 0x00, /* 4: nop5 */
	0xe8, 0x20, 0x00, 0x00, 0x00, /* 9: call 0x2e -> outside (len 0x1c) */
	0xe8, 0x00, 0x00, 0x00, 0x00, /* 14: call 19 (inside) */
	0xe9, 0x00, 0x01, 0x00, 0x00, /* 19: jmp 0x118 (tail call) */
	0xeb, 0x00, /* 24: jmp 26 (inside) */
	0xc3, /* 26: ret */
	0xcc, /* 27: int3 padding */
};

static void test_kcode_scan(void **state)
{
	uint64_t t[8];
	struct kcode_info ci;

	assert_int_equal(kcode__scan(code, sizeof(code), 0x1000, NULL, t, 8, &ci), 0);
	assert_true(ci.fentry_site);
	assert_int_equal(ci.ncalls, 2);
	assert_int_equal(t[0], 0x1000 + 14 + 0x20);
	assert_int_equal(t[1], 0x1000 + 24 + 0x100);
}

static void test_kcode_no_fentry(void **state)
{
	const uint8_t plain[] = { 0x55, 0x48, 0x89, 0xe5, 0x5d, 0xc3 };
	struct kcode_info ci;

	assert_int_equal(kcode__scan(plain, sizeof(plain), 0x2000, NULL, NULL, 0, &ci), 0);
	assert_false(ci.fentry_site);
	assert_int_equal(ci.ncalls, 0);
}

static void test_kcode_traced_site(void **state)
{
	/* A live, already-traced function: call to a trampoline at the site. */
	const uint8_t traced[] = { 0xe8, 0x10, 0x00, 0x00, 0x00, 0xc3 };
	struct kcode_info ci;
	uint64_t t[2];

	assert_int_equal(kcode__scan(traced, sizeof(traced), 0x3000, NULL, t, 2, &ci), 0);
	assert_true(ci.fentry_site);
	assert_int_equal(ci.ncalls, 0);
}

/* IBT seals the endbr64 of functions never called through a pointer. */
static void test_kcode_sealed_endbr(void **state)
{
	const uint8_t sealed[] = {
		0x0f, 0x1f, 0x40, 0xd6, /* 0: nopl -42(%rax), the sealed endbr64 */
		0x0f, 0x1f, 0x44, 0x00, 0x00, /* 4: nop5 */
		0xc3,
	};
	const uint8_t nop4[] = { 0x0f, 0x1f, 0x40, 0x00, 0x0f, 0x1f, 0x44, 0x00, 0x00, 0xc3 };
	struct kcode_info ci;

	const uint8_t sealed_old[] = { 0x66, 0x0f, 0x1f, 0x00, 0x0f, 0x1f, 0x44, 0x00, 0x00, 0xc3 };
	assert_int_equal(kcode__scan(sealed, sizeof(sealed), 0x4000, NULL, NULL, 0, &ci), 0);
	assert_true(ci.fentry_site);
	/* Until 6.12 the seal was osp nopl (%rax). */
	assert_int_equal(kcode__scan(sealed_old, sizeof(sealed_old), 0x4000, NULL, NULL, 0, &ci), 0);
	assert_true(ci.fentry_site);
	/* Any other 4-byte NOP is code, not a sealed endbr64. */
	assert_int_equal(kcode__scan(nop4, sizeof(nop4), 0x5000, NULL, NULL, 0, &ci), 0);
	assert_false(ci.fentry_site);
}

/*
 * A kernel with trampolines in kallsyms: ftrace's callers, its per-ops
 * copy, a BPF trampoline, and code that is none of them (a function, a
 * BPF program, a module's function).
 */
#define HOOKED_FN 0xffffffff81002000ULL
#define ORDINARY 0xffffffff81001000ULL
#define FTRACE_CALLER 0xffffffff81003000ULL
#define FTRACE_REGS_CALLER 0xffffffff81003100ULL
#define BPF_TRAMP 0xffffffffa0001000ULL
#define BPF_PROG 0xffffffffa0002000ULL
#define FTRACE_TRAMP 0xffffffffa0003000ULL
#define MOD_FN 0xffffffffa0004000ULL

static struct ksyms *tramp_ksyms(void)
{
	char path[] = "/tmp/bg_tramp_ksyms.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	struct ksyms *ks;

	assert_non_null(f);
	fputs("ffffffff81000000 T _stext\n"
	      "ffffffff81001000 T ordinary\n"
	      "ffffffff81002000 T hooked_fn\n"
	      "ffffffff81003000 T ftrace_caller\n"
	      "ffffffff81003100 T ftrace_regs_caller\n"
	      "ffffffff81003200 T ftrace_stub\n"
	      "ffffffffa0001000 t bpf_trampoline_6442455327\t[bpf]\n"
	      "ffffffffa0002000 t bpf_prog_6deef7357e7b4530_sd_fw_egress\t[bpf]\n"
	      "ffffffffa0003000 t ftrace_trampoline\t[__builtin__ftrace]\n"
	      "ffffffffa0004000 t other_fn\t[some_mod]\n"
	      "ffffffffa0005000 t other_fn_end\t[some_mod]\n", f);
	fclose(f);
	ks = ksyms__load(path);
	unlink(path);
	assert_non_null(ks);
	return ks;
}

/* HOOKED_FN's code: prefix (an endbr64, sealed or not, or nothing), then
 * op (0: a NOP) to target at the fentry site, then ret. Its length. */
static size_t hooked_code(uint8_t *c, const uint8_t *prefix, size_t plen, uint8_t op,
			  uint64_t target)
{
	int32_t rel = (int32_t)(int64_t)(target - (HOOKED_FN + plen + 5));

	memcpy(c, prefix, plen);
	if (op) {
		c[plen] = op;
		memcpy(c + plen + 1, &rel, 4);
	} else {
		memcpy(c + plen, "\x0f\x1f\x44\x00\x00", 5);
	}
	c[plen + 5] = 0xc3;
	return plen + 6;
}

/*
 * What a hooked fentry site holds: a call to ftrace's callers or to a
 * direct trampoline (6.1 to 6.18), or a jmp to a BPF trampoline (6.19+);
 * a jmp anywhere else is the function's own tail jump.
 */
static void test_kcode_hooked_site(void **state)
{
	static const struct {
		const uint8_t *bytes;
		size_t len;
	} prefixes[] = {
		{ (const uint8_t *)"", 0 },
		{ (const uint8_t *)"\xf3\x0f\x1e\xfa", 4 }, /* endbr64 */
		{ (const uint8_t *)"\x0f\x1f\x40\xd6", 4 }, /* sealed, 6.13+ */
		{ (const uint8_t *)"\x66\x0f\x1f\x00", 4 }, /* sealed, up to 6.12 */
	};
	static const struct {
		uint8_t op;
		uint64_t target;
		int site;
	} cases[] = {
		{ 0, 0, 1 },
		{ 0xe8, FTRACE_CALLER, 1 },
		{ 0xe8, FTRACE_REGS_CALLER, 1 },
		{ 0xe8, FTRACE_TRAMP, 1 },
		{ 0xe8, BPF_TRAMP, 1 },
		{ 0xe9, BPF_TRAMP, 1 },
		{ 0xe9, FTRACE_TRAMP, 1 },
		/* not a trampoline, or not its start: the function's own code */
		{ 0xe9, ORDINARY, 0 },
		{ 0xe9, BPF_TRAMP + 4, 0 },
		{ 0xe9, BPF_PROG, 0 },
		{ 0xe9, MOD_FN, 0 },
		{ 0xe8, ORDINARY, 0 },
		{ 0xe8, MOD_FN, 0 },
	};
	struct ksyms *ks = tramp_ksyms();
	uint8_t c[32];
	uint64_t t[4];
	struct kcode_info ci;

	for (size_t p = 0; p < sizeof(prefixes) / sizeof(prefixes[0]); p++) {
		for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
			size_t len = hooked_code(c, prefixes[p].bytes, prefixes[p].len,
						 cases[k].op, cases[k].target);

			assert_int_equal(kcode__scan(c, len, HOOKED_FN, ks, t, 4, &ci), 0);
			assert_int_equal(ci.fentry_site, cases[k].site);
			if (cases[k].site) {
				/* The trampoline is no callee of the function. */
				assert_int_equal(ci.ncalls, 0);
				assert_int_equal(ci.site_op, cases[k].op);
				assert_true(ci.site_target == (cases[k].op ? cases[k].target : 0));
			} else {
				/* A tail jump or call into other code: a callee. */
				assert_int_equal(ci.ncalls, 1);
				assert_true(t[0] == cases[k].target);
				assert_int_equal(ci.site_op, 0);
			}
		}
	}
	/* Symbols unknown: any call is a site (an unpatched image), no jmp. */
	hooked_code(c, (const uint8_t *)"", 0, 0xe8, ORDINARY);
	assert_int_equal(kcode__scan(c, 6, HOOKED_FN, NULL, t, 4, &ci), 0);
	assert_true(ci.fentry_site);
	hooked_code(c, (const uint8_t *)"", 0, 0xe9, BPF_TRAMP);
	assert_int_equal(kcode__scan(c, 6, HOOKED_FN, NULL, t, 4, &ci), 0);
	assert_false(ci.fentry_site);
	/* Mid-rewrite (text_poke_bp: int3 first): no site yet, but said so. */
	hooked_code(c, (const uint8_t *)"\xf3\x0f\x1e\xfa", 4, 0xe8, BPF_TRAMP);
	c[4] = 0xcc;
	assert_int_equal(kcode__scan(c, 10, HOOKED_FN, ks, t, 4, &ci), 0);
	assert_false(ci.fentry_site);
	assert_true(ci.site_int3);
	hooked_code(c, (const uint8_t *)"", 0, 0, 0);
	assert_int_equal(kcode__scan(c, 6, HOOKED_FN, ks, t, 4, &ci), 0);
	assert_false(ci.site_int3);
	/* A trampoline made since ks was read: its target kept, named by a new read. */
	hooked_code(c, (const uint8_t *)"", 0, 0xe8, 0xffffffffc0042000ULL);
	assert_int_equal(kcode__scan(c, 6, HOOKED_FN, ks, t, 4, &ci), 0);
	assert_false(ci.fentry_site);
	assert_true(ci.site_other == 0xffffffffc0042000ULL);
	{
		char path[] = "/tmp/bpfgraph-test-kallsyms-XXXXXX";
		int fd = mkstemp(path);
		FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

		assert_non_null(f);
		fputs("ffffffff81000000 T _stext\n"
		      "ffffffffc0042000 t bpf_trampoline_6442491234 [bpf]\n"
		      "ffffffffc0043000 t bpf_prog_0123456789abcdef_bg_entry [bpf]\n", f);
		fclose(f);
		assert_true(kcode__is_tramp_now(path, 0xffffffffc0042000ULL));
		assert_false(kcode__is_tramp_now(path, 0xffffffffc0043000ULL));
		assert_false(kcode__is_tramp_now(path, 0xffffffff81000000ULL));
		assert_false(kcode__is_tramp_now(path, 0xffffffffc0044000ULL));
		/* A trampoline once named stays one: not read again. */
		f = fopen(path, "w");
		assert_non_null(f);
		fputs("ffffffffc0044000 t ftrace_trampoline [__builtin__ftrace]\n", f);
		fclose(f);
		assert_true(kcode__is_tramp_now(path, 0xffffffffc0042000ULL));
		assert_true(kcode__is_tramp_now(path, 0xffffffffc0044000ULL));
		unlink(path);
		/* Another file: nothing known of it. */
		assert_false(kcode__is_tramp_now("/nonexistent/kallsyms", 0xffffffffc0042000ULL));
	}
	assert_true(kcode__is_tramp(ks, BPF_TRAMP));
	assert_false(kcode__is_tramp(ks, HOOKED_FN));
	assert_false(kcode__is_tramp(NULL, BPF_TRAMP));
	ksyms__free(ks);
}

/* Calls to a wrapped function: a plain call or tail jump is probeable, a
 * prefixed call is not; calls elsewhere are not reported. */
static void test_kcode_calls_to(void **state)
{
	const uint8_t body[] = {
		0x0f, 0x1f, 0x44, 0x00, 0x00, /* 0: nop5 */
		0xe8, 0x1b, 0x00, 0x00, 0x00, /* 5: call 0x25 (wanted) */
		0xe8, 0x36, 0x00, 0x00, 0x00, /* 10: call 0x45 (other) */
		0x2e, 0xe8, 0x10, 0x00, 0x00, 0x00, /* 15: cs call 0x25 (prefixed) */
		0xe9, 0x0b, 0x00, 0x00, 0x00, /* 21: jmp 0x25 (tail) */
	};
	const uint64_t want[] = { 0x9000, 0x1025 };
	struct kcode_csite s[4];

	assert_int_equal(kcode__calls_to(body, sizeof(body), 0x1000, want, 2, s, 4), 3);
	assert_int_equal(s[0].off, 5);
	assert_int_equal(s[0].which, 1);
	assert_int_equal(s[0].size, 5);
	assert_true(s[0].plain);
	assert_false(s[0].tail);
	assert_int_equal(s[1].off, 15);
	assert_false(s[1].plain);
	assert_int_equal(s[2].off, 21);
	assert_true(s[2].tail);
	assert_true(s[2].plain); /* a bare jmp rel32: entry probe only */
	/* More sites than room: counted, not stored past max. */
	assert_int_equal(kcode__calls_to(body, sizeof(body), 0x1000, want, 2, s, 1), 3);
	assert_int_equal(kcode__calls_to(body, sizeof(body), 0x1000, want, 0, s, 4), 0);
}

/* A call a jump skips: the instruction after it is a join, its exit is not probed there. */
static void test_kcode_calls_to_join(void **state)
{
	const uint8_t body[] = {
		0x74, 0x05, /* 0: je 7 */
		0xe8, 0x1e, 0x00, 0x00, 0x00, /* 2: call 0x25 (wanted) */
		0xe8, 0x19, 0x00, 0x00, 0x00, /* 7: call 0x25 (wanted) */
		0x90, /* 12: nop */
		0xc3, /* 13: ret */
	};
	const uint64_t want[] = { 0x1025 };
	struct kcode_csite s[4];

	(void)state;
	assert_int_equal(kcode__calls_to(body, sizeof(body), 0x1000, want, 1, s, 4), 2);
	assert_int_equal(s[0].off, 2);
	assert_true(s[0].join); /* je lands on 7, the first call's return */
	assert_int_equal(s[1].off, 7);
	assert_false(s[1].join);
	assert_true(s[0].plain && s[1].plain);
}

static void test_deny_list(void **state)
{
	assert_non_null(plan__denied("bpf_ringbuf_reserve"));
	assert_non_null(plan__denied("bpf_get_current_pid_tgid"));
	assert_non_null(plan__denied("bpf_ktime_get_ns"));
	assert_non_null(plan__denied("__bpf_prog_enter_recur"));
	assert_non_null(plan__denied("bpf_trampoline_link_prog"));
	assert_non_null(plan__denied("lookup_nulls_elem_raw"));
	assert_non_null(plan__denied("lookup_elem_raw"));
	/* Other subsystems' BPF hooks and the bpf(2) syscall: shown. */
	assert_null(plan__denied("bpf_skops_write_hdr_opt.isra.0"));
	assert_null(plan__denied("bpf_prog_load"));
	assert_non_null(plan__denied("__rcu_read_lock"));
	assert_null(plan__denied("_raw_spin_lock_irqsave"));
	assert_non_null(plan__denied("migrate_disable"));
	assert_null(plan__denied("do_sys_openat2"));
	assert_null(plan__denied("_raw_spin_lock"));
	assert_null(plan__denied("kmem_cache_alloc"));
	/* The map helpers, not the bpf(2) syscall's map functions. */
	assert_non_null(plan__denied("bpf_map_lookup_elem"));
	assert_non_null(plan__denied("bpf_map_update_elem"));
	assert_null(plan__denied("bpf_map_area_alloc"));
	assert_null(plan__denied("bpf_map_put"));
	assert_null(plan__denied("bpf_map_init_from_attr"));
	/* lockdep's own, not the ordinary functions named __lock_*. */
	assert_non_null(plan__denied("__lock_acquire"));
	assert_non_null(plan__denied("__lock_release"));
	assert_null(plan__denied("__lock_task_sighand"));
	assert_null(plan__denied("__lock_sock"));
	assert_null(plan__denied("__lock_timer"));
	/* Each shape of pattern: exact, prefix*, *infix*, and fnmatch's own. */
	assert_non_null(plan__denied("is_endbr"));
	assert_null(plan__denied("is_endbr_x"));
	assert_non_null(plan__denied("sched_clock_cpu"));
	assert_null(plan__denied("my_sched_clock"));
	assert_non_null(plan__denied("do_ringbuf_thing"));
	assert_non_null(plan__denied("ringbuf"));
	assert_non_null(plan__denied("foo_bpf_prog_bar"));
	assert_null(plan__denied("foo_bpf_progbar"));
	assert_non_null(plan__denied("run_irq_work_list"));
	assert_null(plan__denied("irq_workx"));
	/* The clocksource's read function: every timestamp of ours calls it. */
	assert_null(plan__denied("read_hpet"));
	assert_string_equal(plan__set_clocksource("hpet"), "read_hpet");
	assert_non_null(plan__denied("read_hpet"));
	assert_null(plan__denied("read_tsc"));
	assert_string_equal(plan__set_clocksource("tsc"), "read_tsc");
	assert_non_null(plan__denied("read_tsc"));
	assert_null(plan__denied("read_hpet"));
	assert_null(plan__set_clocksource("no-such-clock"));
	assert_null(plan__denied("read_tsc"));
	assert_non_null(plan__denied("__rcu_read_lock"));
}

/*
 * A made-up kernel where names are not unique, as in 6.1 (two
 * compute_score in kallsyms, three BTF FUNCs of that name). The kernel
 * attaches a trampoline by name, so neither may get fentry: the UDP
 * lookup once ran under a trampoline built for another compute_score's
 * prototype and dropped every datagram.
 */
#define FAKE_TEXT 0xffffffff81001000ULL
enum { F_LOOKUP, F_SCORE1, F_SCORE2, F_UNIQUE, F_TWOPROTO, F_SPIN, F_END, F_NR };

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void fake_kallsyms(const char *dir)
{
	static const char *const names[F_NR] = { "udp_lookup", "compute_score", "compute_score",
						 "unique_fn", "twoproto", "_raw_spin_lock",
						 "end" };
	char path[256], buf[1024];
	size_t n = 0;

	for (int i = 0; i < F_NR; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%llx t %s\n",
				      FAKE_TEXT + 0x100ULL * (unsigned)i, names[i]);
	n += (size_t)snprintf(buf + n, sizeof(buf) - n,
			      "ffffffffc0001000 t compute_score\t[mymod]\n"
			      "ffffffffc0001100 t mymod_end\t[mymod]\n");
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	write_file(path, buf, n);
}

/* vmlinux BTF: compute_score with 8 and 2 arguments, twoproto with 1 and 2. */
static void fake_btf(const char *dir)
{
	struct btf *btf = btf__new_empty();
	int i32, p1, p2, p8, id;
	const void *raw;
	__u32 size;
	char path[256];

	assert_non_null(btf);
	i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	p1 = btf__add_func_proto(btf, i32);
	assert_int_equal(btf__add_func_param(btf, "a", i32), 0);
	p2 = btf__add_func_proto(btf, i32);
	for (int k = 0; k < 2; k++)
		assert_int_equal(btf__add_func_param(btf, k ? "b" : "a", i32), 0);
	p8 = btf__add_func_proto(btf, i32);
	for (int k = 0; k < 8; k++)
		assert_int_equal(btf__add_func_param(btf, "x", i32), 0);
	id = btf__add_func(btf, "udp_lookup", BTF_FUNC_STATIC, p1);
	assert_true(id > 0);
	assert_true(btf__add_func(btf, "compute_score", BTF_FUNC_STATIC, p8) > 0);
	assert_true(btf__add_func(btf, "compute_score", BTF_FUNC_STATIC, p2) > 0);
	assert_true(btf__add_func(btf, "unique_fn", BTF_FUNC_GLOBAL, p1) > 0);
	/* Same prototype twice (two files' copies): not ambiguous. */
	assert_true(btf__add_func(btf, "unique_fn", BTF_FUNC_STATIC, p1) > 0);
	assert_true(btf__add_func(btf, "twoproto", BTF_FUNC_STATIC, p1) > 0);
	assert_true(btf__add_func(btf, "twoproto", BTF_FUNC_STATIC, p2) > 0);
	assert_true(btf__add_func(btf, "_raw_spin_lock", BTF_FUNC_GLOBAL, p1) > 0);
	raw = btf__raw_data(btf, &size);
	assert_non_null(raw);
	snprintf(path, sizeof(path), "%s/vmlinux", dir);
	write_file(path, raw, size);
	btf__free(btf);
}

/* Text as an ELF core: every function an fentry site; udp_lookup calls the rest. */
static void fake_kcore(const char *dir)
{
	static uint8_t text[0x100 * F_NR];
	struct {
		Elf64_Ehdr eh;
		Elf64_Phdr ph;
	} hdr = {
		.eh = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB,
				     EV_CURRENT },
			.e_type = ET_CORE, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
			.e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
			.e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 1 },
		.ph = { .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = sizeof(hdr),
			.p_vaddr = FAKE_TEXT, .p_filesz = sizeof(text), .p_memsz = sizeof(text),
			.p_align = 1 },
	};
	static const int callees[] = { F_SCORE1, F_SCORE2, F_UNIQUE, F_TWOPROTO, F_SPIN };
	char path[256];
	FILE *f;

	memset(text, 0xcc, sizeof(text));
	for (int i = 0; i < F_NR; i++) {
		uint8_t *c = text + 0x100 * i;

		memcpy(c, "\x0f\x1f\x44\x00\x00", 5); /* nop5: the fentry site */
		c[5] = 0xc3; /* ret */
	}
	for (int k = 0; k < 5; k++) {
		uint8_t *c = text + 5 + 5 * k;
		int32_t rel = 0x100 * callees[k] - (5 + 5 * k + 5);

		c[0] = 0xe8; /* call rel32 */
		memcpy(c + 1, &rel, 4);
	}
	text[5 + 5 * 5] = 0xc3;
	snprintf(path, sizeof(path), "%s/kcore", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(&hdr, sizeof(hdr), 1, f), 1);
	assert_int_equal(fwrite(text, sizeof(text), 1, f), 1);
	fclose(f);
}

/* kallsyms, BTF and kcore of the fake kernel in a new directory dir, into o. */
static void fake_kernel(char *dir, struct plan_opts *o)
{
	char path[256];

	assert_non_null(mkdtemp(dir));
	fake_kallsyms(dir);
	fake_btf(dir);
	fake_kcore(dir);
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	o->ks = ksyms__load(path);
	o->kb = kbtf__load(dir);
	snprintf(path, sizeof(path), "%s/kcore", dir);
	o->kt = ktext__open(path);
	assert_non_null(o->ks);
	assert_non_null(o->kb);
	assert_non_null(o->kt);
}

static void free_fake_kernel(const char *dir, struct plan_opts *o)
{
	char cmd[256];

	ksyms__free(o->ks);
	kbtf__free(o->kb);
	ktext__close(o->kt);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static const struct plan_cand *cand_at(const struct plan *p, uint64_t addr)
{
	for (size_t i = 0; i < p->ncands; i++)
		if (p->cands[i].sym->addr == addr)
			return &p->cands[i];
	return NULL;
}

/* The read-ahead window returns what ktext__read does, in and out of order, to the segment's end. */
static void test_ktext_read_ahead(void **state)
{
	char dir[] = "/tmp/bg_plan_fake.XXXXXX";
	struct plan_opts o = { 0 };
	struct ktext_window w = { 0 };
	uint64_t size = 0x100 * F_NR;
	uint8_t a[16], b[16];

	(void)state;
	fake_kernel(dir, &o);
	for (uint64_t off = 0; off + sizeof(a) <= size; off += 7) {
		memset(a, 0, sizeof(a));
		memset(b, 1, sizeof(b));
		assert_int_equal(ktext__read(o.kt, FAKE_TEXT + off, a, sizeof(a)), 0);
		assert_int_equal(ktext__read_ahead(o.kt, &w, FAKE_TEXT + off, b, sizeof(b)), 0);
		assert_memory_equal(a, b, sizeof(a));
	}
	/* Backwards, out of the window. */
	assert_int_equal(ktext__read_ahead(o.kt, &w, FAKE_TEXT + 0x100, b, sizeof(b)), 0);
	assert_int_equal(ktext__read(o.kt, FAKE_TEXT + 0x100, a, sizeof(a)), 0);
	assert_memory_equal(a, b, sizeof(a));
	/* Across the segment's end, and outside it: as ktext__read says. */
	assert_int_equal(ktext__read_ahead(o.kt, &w, FAKE_TEXT + size - 8, b, sizeof(b)),
			 ktext__read(o.kt, FAKE_TEXT + size - 8, a, sizeof(a)));
	assert_int_equal(ktext__read_ahead(o.kt, &w, FAKE_TEXT + size + 64, b, sizeof(b)),
			 -ERANGE);
	ktext__window_free(&w);
	free_fake_kernel(dir, &o);
}

static void test_plan_duplicate_names(void **state)
{
	char dir[] = "/tmp/bg_test_plan.XXXXXX", *globs[] = { "udp_lookup" };
	struct plan_opts o = { .graph = globs, .n_graph = 1, .callee_depth = 1,
			       .max_funcs = 100, .kprobes = 1, .err = stderr };
	const struct plan_cand *c;
	struct kbtf_func bf;
	struct plan p;

	fake_kernel(dir, &o);

	/* Counted per scope: the module's compute_score is its own. */
	assert_int_equal(ksyms__name_count(o.ks, "compute_score", NULL), 2);
	assert_int_equal(ksyms__name_count(o.ks, "compute_score", "mymod"), 1);
	assert_int_equal(ksyms__name_count(o.ks, "udp_lookup", NULL), 1);
	assert_int_equal(ksyms__name_count(o.ks, "nope", NULL), 0);
	assert_int_equal(kbtf__func(o.kb, "twoproto", NULL, &bf), -ENOTUNIQ);
	assert_int_equal(kbtf__func(o.kb, "compute_score", NULL, &bf), -ENOTUNIQ);
	assert_int_equal(kbtf__func(o.kb, "unique_fn", NULL, &bf), 0);
	assert_int_equal(bf.nr_regs, 1);

	assert_int_equal(plan__build(&p, &o), 0);
	/* udp_lookup, both compute_score, unique_fn, twoproto, _raw_spin_lock */
	assert_int_equal(p.nattach, 6);
	c = cand_at(&p, FAKE_TEXT);
	assert_non_null(c);
	assert_int_equal(c->skip, PS_NONE);
	assert_false(c->kprobe);
	assert_true(p.funcs.f[c->func].btf_id > 0);
	/* Both compute_score: each by kprobe at its own address, no BTF id. */
	for (int i = F_SCORE1; i <= F_SCORE2; i++) {
		c = cand_at(&p, FAKE_TEXT + 0x100ULL * (unsigned)i);
		assert_non_null(c);
		assert_int_equal(c->skip, PS_NONE);
		assert_true(c->kprobe);
		assert_int_equal(c->kprobe_why, PS_DUPLICATE);
		assert_true(p.funcs.f[c->func].flags & BG_FN_KPROBE);
		assert_int_equal(p.funcs.f[c->func].addr, FAKE_TEXT + 0x100ULL * (unsigned)i);
		assert_int_equal(p.funcs.f[c->func].btf_id, 0);
	}
	c = cand_at(&p, FAKE_TEXT + 0x100ULL * F_TWOPROTO);
	assert_true(c && c->kprobe && c->kprobe_why == PS_BTF_AMBIGUOUS);
	c = cand_at(&p, FAKE_TEXT + 0x100ULL * F_UNIQUE);
	assert_true(c && !c->kprobe && c->skip == PS_NONE);
	plan__free(&p);

	/* Without kprobes they are left out, not given a trampoline. */
	o.kprobes = 0;
	assert_int_equal(plan__build(&p, &o), 0);
	assert_int_equal(p.nattach, 3);
	assert_int_equal(cand_at(&p, FAKE_TEXT + 0x100)->skip, PS_DUPLICATE);
	assert_int_equal(cand_at(&p, FAKE_TEXT + 0x200)->skip, PS_DUPLICATE);
	assert_int_equal(cand_at(&p, FAKE_TEXT + 0x100ULL * F_TWOPROTO)->skip,
			 PS_BTF_AMBIGUOUS);
	plan__free(&p);
	/* ... and as -G they are an error, */
	globs[0] = "compute_score";
	assert_int_equal(plan__build(&p, &o), -EINVAL);
	plan__free(&p);
	/* unless kprobes may start the graph: both, by address. */
	o.kprobes = 1;
	o.callee_depth = 0;
	assert_int_equal(plan__build(&p, &o), 0);
	assert_int_equal(p.funcs.n, 2);
	for (size_t i = 0; i < p.funcs.n; i++)
		assert_int_equal(p.funcs.f[i].flags & (BG_FN_GRAPH | BG_FN_KPROBE),
				 BG_FN_GRAPH | BG_FN_KPROBE);
	plan__free(&p);

	free_fake_kernel(dir, &o);
}

/*
 * A lock primitive reached as a callee is traced at its call sites (no
 * hook of its own that every task's locks would run), unless
 * --locks=hooked or without call sites; named with -G it is hooked.
 */
static void test_plan_shared_leaf(void **state)
{
	char dir[] = "/tmp/bg_test_plan.XXXXXX", *globs[] = { "udp_lookup" };
	struct plan_opts o = { .graph = globs, .n_graph = 1, .callee_depth = 1,
			       .max_funcs = 100, .kprobes = 1, .callsites = 1, .err = stderr };
	const uint64_t lock = FAKE_TEXT + 0x100ULL * F_SPIN;
	const struct plan_cand *c;
	struct plan p;

	(void)state;
	fake_kernel(dir, &o);
	assert_true(plan__shared_leaf("_raw_spin_lock"));
	assert_false(plan__shared_leaf("udp_lookup"));
	/* Not denied: the nets and -G may hook it. */
	assert_null(plan__denied("_raw_spin_lock"));

	assert_int_equal(plan__build(&p, &o), 0);
	c = cand_at(&p, lock);
	assert_true(c && c->why == PW_CALLSITE && c->skip == PS_NONE && c->kprobe);
	/* No trampoline (BG_FN_KPROBE) and no link: icall wraps it. */
	assert_int_equal(p.funcs.f[c->func].flags & (BG_FN_CALLSITE | BG_FN_KPROBE),
			 BG_FN_CALLSITE | BG_FN_KPROBE);
	plan__free(&p);

	o.hook_locks = 1;
	assert_int_equal(plan__build(&p, &o), 0);
	c = cand_at(&p, lock);
	assert_true(c && c->why == PW_CALLEE && c->skip == PS_NONE && !c->kprobe);
	assert_false(p.funcs.f[c->func].flags & BG_FN_CALLSITE);
	plan__free(&p);

	o.hook_locks = 0;
	o.callsites = 0;
	assert_int_equal(plan__build(&p, &o), 0);
	c = cand_at(&p, lock);
	assert_true(c && c->why == PW_CALLEE && !(p.funcs.f[c->func].flags & BG_FN_CALLSITE));
	plan__free(&p);

	o.callsites = 1;
	globs[0] = "_raw_spin_lock";
	assert_int_equal(plan__build(&p, &o), 0);
	c = cand_at(&p, lock);
	assert_true(c && c->why == PW_ENTRY && c->skip == PS_NONE && !c->kprobe);
	assert_int_equal(p.funcs.f[c->func].flags & (BG_FN_CALLSITE | BG_FN_GRAPH), BG_FN_GRAPH);
	plan__free(&p);

	free_fake_kernel(dir, &o);
}

/* Over --max-funcs: refused, and planning stops at the first function over. */
static void test_plan_max_funcs(void **state)
{
	char dir[] = "/tmp/bg_test_plan.XXXXXX";
	char *globs[] = { "udp_lookup", "compute_score" };
	struct plan_opts o = { .graph = globs, .n_graph = 2, .callee_depth = 1,
			       .max_funcs = 100, .kprobes = 1 };
	size_t all;
	char *msg = NULL;
	size_t len = 0;
	struct plan p;

	(void)state;
	fake_kernel(dir, &o);
	o.err = stderr;
	assert_int_equal(plan__build(&p, &o), 0);
	all = p.ncands;
	plan__free(&p);
	/* Two entries and callees: enough to pass a limit of 1. */
	assert_true(all > 2);

	o.max_funcs = 1;
	o.err = open_memstream(&msg, &len);
	assert_int_equal(plan__build(&p, &o), -E2BIG);
	fclose(o.err);
	/* The first entry, then the second one over the limit: nothing more looked at. */
	assert_int_equal(p.ncands, 2);
	assert_string_equal(msg, "bpfgraph: the plan has more functions than --max-funcs=1 "
				 "(planning stopped there): narrow it (--callee-depth, -x) or "
				 "raise --max-funcs\n");
	free(msg);
	plan__free(&p);

	free_fake_kernel(dir, &o);
}

/* Against the host kernel: kallsyms, BTF and kcore, when root can read them. */
static void test_plan_live_host(void **state)
{
	char *globs[] = { "do_sys_openat2" };
	struct plan_opts o = { .graph = globs, .n_graph = 1, .callee_depth = 1,
			       .max_funcs = 2000, .err = stderr };
	struct plan p;
	int err;

	o.ks = ksyms__load(NULL);
	o.kb = kbtf__load(NULL);
	o.kt = ktext__open(NULL);
	/* Without /proc/kcore there is no callee discovery, only entries. */
	if (!o.ks || ksyms__hidden(o.ks) || !o.kb ||
	    !ksyms__find_name(o.ks, "do_sys_openat2", NULL)) {
		ksyms__free(o.ks);
		kbtf__free(o.kb);
		ktext__close(o.kt);
		skip();
	}
	err = plan__build(&p, &o);
	assert_int_equal(err, 0);
	assert_true(p.nattach >= (o.kt ? 2 : 1));
	assert_string_equal(p.funcs.f[0].name, "do_sys_openat2");
	assert_true(p.funcs.f[0].flags & BG_FN_GRAPH);
	assert_int_equal(p.funcs.f[0].ret_kind, BG_RET_SIGNED);
	for (size_t i = 1; i < p.funcs.n; i++)
		assert_false(p.funcs.f[i].flags & BG_FN_GRAPH);
	/*
	 * What the ftrace net meets is named first (an index for its
	 * records), planned later in place; once only, a planned one never.
	 */
	{
		const struct ksym *vw = ksyms__find_name(o.ks, "vfs_write", NULL);
		const struct ksym *op = ksyms__find_name(o.ks, "do_sys_openat2", NULL);
		enum plan_skip why;
		int idx;

		if (vw && functab__find_addr(&p.funcs, vw->addr) < 0) {
			idx = functab__add(&p.funcs, vw->name, vw->module, vw->addr, vw->size);
			assert_true(idx > 0);
			assert_int_equal(p.funcs.f[idx].btf_id, 0);
			assert_int_equal(plan__adopt(&p, &o, vw, idx, &why), idx);
			assert_int_equal(why, PS_NONE);
			assert_true(p.funcs.f[idx].btf_id > 0);
			assert_int_equal(p.funcs.f[idx].ret_kind, BG_RET_SIGNED);
			assert_int_equal((int)p.funcs.n, idx + 1);
			assert_int_equal(plan__adopt(&p, &o, vw, idx, &why), -EEXIST);
		}
		assert_int_equal(plan__adopt(&p, &o, op, 0, &why), -EEXIST);
	}
	plan__free(&p);

	/* --kprobes: every planned function by kprobe, the entry too. */
	o.kprobes = 1;
	o.kprobes_only = 1;
	assert_int_equal(plan__build(&p, &o), 0);
	assert_true(p.kprobes_only);
	assert_true(p.funcs.f[0].flags & BG_FN_GRAPH);
	for (size_t i = 0; i < p.funcs.n; i++)
		assert_true(p.funcs.f[i].flags & BG_FN_KPROBE);
	/*
	 * What the wide net meets joins the table once, by address; a planned
	 * function keeps its index.
	 */
	{
		const struct ksym *vr = ksyms__find_name(o.ks, "vfs_read", NULL);
		const struct ksym *op = ksyms__find_name(o.ks, "do_sys_openat2", NULL);
		int idx;

		if (vr && functab__find_addr(&p.funcs, vr->addr) < 0) {
			idx = plan__add_wide(&p, &o, vr);
			assert_true(idx > 0);
			assert_string_equal(p.funcs.f[idx].name, "vfs_read");
			assert_true(p.funcs.f[idx].flags & BG_FN_KPROBE);
			assert_int_equal(p.funcs.f[idx].ret_kind, BG_RET_SIGNED);
			assert_int_equal(plan__add_wide(&p, &o, vr), idx);
		}
		assert_int_equal(plan__add_wide(&p, &o, op), 0);
	}
	plan__free(&p);
	o.kprobes = o.kprobes_only = 0;

	/* A glob that matches nothing is an error. */
	globs[0] = "do_sys_openat2_nonexistent";
	assert_int_equal(plan__build(&p, &o), -ENOENT);
	plan__free(&p);
	ksyms__free(o.ks);
	kbtf__free(o.kb);
	ktext__close(o.kt);
}

/* ksyms__with_prefix(): every symbol with the prefix, in address order, by the name index. */
static void test_ksyms_with_prefix(void **state)
{
	struct ksyms *ks = ksyms__load(BG_SRCDIR "/tests/golden/kallsyms.txt");
	static const char *const prefixes[] = { "alpha", "b", "bm_", "", "zzz", "_stext", NULL };
	size_t *pos;

	(void)state;
	assert_non_null(ks);
	for (int k = 0; prefixes[k]; k++) {
		size_t len = strlen(prefixes[k]), want = 0;
		long n = ksyms__with_prefix(ks, prefixes[k], len, &pos);

		for (size_t i = 0; i < ksyms__count(ks); i++)
			want += !strncmp(ksyms__at(ks, i)->name, prefixes[k], len);
		assert_int_equal(n, (long)want);
		for (long i = 0; i < n; i++) {
			assert_int_equal(strncmp(ksyms__at(ks, pos[i])->name, prefixes[k], len), 0);
			if (i)
				assert_true(pos[i - 1] < pos[i]);
		}
		free(pos);
	}
	/* "alpha" and "alpha_alias"; "b": beta and the module's two bm_ functions. */
	assert_int_equal(ksyms__with_prefix(ks, "alpha", 5, &pos), 2);
	free(pos);
	assert_int_equal(ksyms__with_prefix(ks, "b", 1, &pos), 3);
	free(pos);
	ksyms__free(ks);
}

/*
 * globset__match() answers as the first pattern fnmatch() accepts would;
 * among the names, some hold every pair of bytes of an infix but not the
 * infix ("rcxcu" for "*rcu*"), which the pairs alone would let through.
 */
static void test_globset_as_fnmatch(void **state)
{
	static const char *const globs[] = {
		"exact", "_raw_*", "*_lock", "*rcu*", "a*b", "[ab]c", "x?y", "\\*lit",
		"*", "**", "*_unlock_*", "bpf_trace_run[0-9]*", "*q*", "*spin_*", NULL,
	};
	static const char *const names[] = {
		"exact", "exactly", "_raw_spin_lock", "raw_spin", "mutex_lock", "_lock",
		"lock", "call_rcu", "rcu", "ab", "axxb", "abc", "ac", "bc", "cc", "xzy",
		"xy", "*lit", "lit", "", "a_unlock_b", "_unlock_", "bpf_trace_run2",
		"bpf_trace_run", "rcxcu", "xrcuy", "curc", "spinn_in_", "a_spin_b", "q",
		NULL,
	};
	struct globset *g;

	(void)state;
	/* Each pattern alone, then the whole list in order. */
	for (int i = 0; globs[i]; i++) {
		const char *one[] = { globs[i], NULL };

		g = globset__new(one);
		assert_non_null(g);
		for (int j = 0; names[j]; j++) {
			const char *m = globset__match(g, names[j]);

			if (fnmatch(globs[i], names[j], 0))
				assert_null(m);
			else
				assert_ptr_equal(m, globs[i]);
		}
		globset__free(g);
	}
	g = globset__new(globs);
	assert_non_null(g);
	for (int j = 0; names[j]; j++) {
		const char *want = NULL;

		for (int i = 0; globs[i] && !want; i++)
			if (!fnmatch(globs[i], names[j], 0))
				want = globs[i];
		assert_ptr_equal(globset__match(g, names[j]), want);
	}
	assert_null(globset__match(g, NULL));
	globset__free(g);
	/* More patterns than one 64-bit mask holds: the list order still decides. */
	{
		char bufs[70][8];
		const char *many[72];
		static const char *const probe[] = { "p65x", "p6", "p69", "zq", "p0", "", NULL };

		for (int i = 0; i < 70; i++) {
			snprintf(bufs[i], sizeof(bufs[i]), "p%d*", 69 - i);
			many[i] = bufs[i];
		}
		many[70] = "*";
		many[71] = NULL;
		g = globset__new(many);
		assert_non_null(g);
		for (int j = 0; probe[j]; j++) {
			const char *want = NULL;

			for (int i = 0; many[i] && !want; i++)
				if (!fnmatch(many[i], probe[j], 0))
					want = many[i];
			assert_ptr_equal(globset__match(g, probe[j]), want);
		}
	}
	globset__free(g);
	g = globset__new((const char *const[]){ NULL });
	assert_non_null(g);
	assert_null(globset__match(g, "x"));
	globset__free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_globset_as_fnmatch),
		cmocka_unit_test(test_ksyms_parse),
		cmocka_unit_test(test_ksyms_order),
		cmocka_unit_test(test_ksyms_order_many),
		cmocka_unit_test(test_ksyms_missing_file),
		cmocka_unit_test(test_kcode_scan),
		cmocka_unit_test(test_kcode_no_fentry),
		cmocka_unit_test(test_kcode_traced_site),
		cmocka_unit_test(test_kcode_sealed_endbr),
		cmocka_unit_test(test_kcode_hooked_site),
		cmocka_unit_test(test_kcode_calls_to),
		cmocka_unit_test(test_kcode_calls_to_join),
		cmocka_unit_test(test_deny_list),
		cmocka_unit_test(test_ktext_read_ahead),
		cmocka_unit_test(test_ksyms_with_prefix),
		cmocka_unit_test(test_plan_duplicate_names),
		cmocka_unit_test(test_plan_max_funcs),
		cmocka_unit_test(test_plan_shared_leaf),
		cmocka_unit_test(test_plan_live_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
