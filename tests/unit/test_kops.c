// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Operation tables in kernel data (kops.h) on a fake kernel: kallsyms, BTF
 * and a core file with text and data, no kernel needed. The code that
 * calls through the tables is real machine code, decoded as the kernel's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <bpf/btf.h>
#include <gelf.h>

#include "kbtf.h"
#include "kops.h"
#include "ksyms.h"
#include "ktext.h"

#define TEXT 0xffffffff81000000ULL
#define DATA 0xffffffff82000000ULL
#define FN(i) (TEXT + 0x100ULL * (i))
/*
 * Functions: 0 the caller, 1 the retpoline thunk, 2..13 the tables'
 * members; then a caller of static calls' table, four static call
 * trampolines (each 8 bytes, a padding symbol after it), the functions
 * they jump to (the third has no fentry site: a return thunk's place).
 */
enum {
	F_CALLER, F_THUNK, F_M0, F_NR = F_M0 + 12, F_NOCALL = F_NR,
	F_SCALLER, F_STUB0, F_STUB1, F_STUBRET, F_STUBLATE, F_T0, F_T1, F_RET, F_T2, F_ALL
};
#define IS_STUB(i) ((i) >= F_STUB0 && (i) <= F_STUBLATE)
/* Static calls' table: slots of { key, trampoline, hook, active }; the third's hook unset. */
#define STABLE (DATA + 0x200)
#define SLOT 32

/* struct ops { void *data; int (*a)(); int (*b)(); int (*c)(); long n; }: 40 bytes. */
#define OPS_SIZE 40
#define OFF_A 8
#define OFF_B 16
#define OFF_C 24
/* Data: a value that is no table, then three tables one after the other. */
#define TABLE(i) (DATA + 0x40 + OPS_SIZE * (i))

struct fake {
	char dir[64];
	struct ksyms *ks;
	struct ktext *kt;
	struct kbtf *kb;
};

static void write_file(const char *dir, const char *name, const void *p, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, len, f), len);
	fclose(f);
}

static void fake_kallsyms(const char *dir)
{
	char buf[4096];
	size_t n = 0;

	for (int i = 0; i < F_ALL; i++) {
		if (i == F_THUNK)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n,
					      "%llx t __x86_indirect_thunk_rax\n",
					      (unsigned long long)FN(i));
		else
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%llx t fn%d\n",
					      (unsigned long long)FN(i), i);
		if (IS_STUB(i))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%llx t pad%d\n",
					      (unsigned long long)FN(i) + 8, i);
	}
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%llx D tables\n",
			      (unsigned long long)DATA);
	write_file(dir, "kallsyms", buf, n);
}

/* The caller: mov 0x10(%rax),%rax; call thunk_rax; lea table1(%rip),%rdx; mov decoy,%rcx; ret */
static void caller_code(uint8_t *c)
{
	uint64_t pc = FN(F_CALLER);
	int32_t rel;

	memcpy(c, "\x0f\x1f\x44\x00\x00", 5);
	memcpy(c + 5, "\x48\x8b\x40\x10", 4); /* mov 0x10(%rax),%rax */
	c[9] = 0xe8; /* call thunk */
	rel = (int32_t)(FN(F_THUNK) - (pc + 14));
	memcpy(c + 10, &rel, 4);
	memcpy(c + 14, "\x48\x8d\x15", 3); /* lea table(1)(%rip),%rdx */
	rel = (int32_t)(TABLE(1) - (pc + 21));
	memcpy(c + 17, &rel, 4);
	memcpy(c + 21, "\x48\x8b\x0c\x25", 4); /* mov DATA (absolute),%rcx */
	rel = (int32_t)(uint32_t)DATA;
	memcpy(c + 25, &rel, 4);
	c[29] = 0xc3;
}

/* The same references, without an indirect call: nothing to look for. */
static void nocall_code(uint8_t *c)
{
	uint64_t pc = FN(F_NOCALL);
	int32_t rel = (int32_t)(TABLE(1) - (pc + 12));

	memcpy(c, "\x0f\x1f\x44\x00\x00", 5);
	memcpy(c + 5, "\x48\x8d\x15", 3);
	memcpy(c + 8, &rel, 4);
	c[12] = 0xc3;
}

/* lea stable(%rip),%rbx; mov 0x10(%rbx),%rax; call *0x18(%rax); ret */
static void scaller_code(uint8_t *c)
{
	uint64_t pc = FN(F_SCALLER);
	int32_t rel = (int32_t)(STABLE - (pc + 12));

	memcpy(c, "\x0f\x1f\x44\x00\x00", 5);
	memcpy(c + 5, "\x48\x8d\x1d", 3);
	memcpy(c + 8, &rel, 4);
	memcpy(c + 12, "\x48\x8b\x43\x10", 4);
	memcpy(c + 16, "\xff\x50\x18", 3);
	c[19] = 0xc3;
}

/* A trampoline: jmp rel32 to fn, then ud1 (0f b9 cc) as the kernel lays it out. */
static void stub_code(uint8_t *c, int i, int to)
{
	int32_t rel = (int32_t)(FN(to) - (FN(i) + 5));

	c[0] = 0xe9;
	memcpy(c + 1, &rel, 4);
	memcpy(c + 5, "\x0f\xb9\xcc", 3);
}

static void fake_data(uint8_t *d)
{
	uint64_t v = 0x1234; /* the decoy: no function's start */

	memcpy(d, &v, 8);
	for (int t = 0; t < 3; t++) {
		uint8_t *p = d + 0x40 + OPS_SIZE * t;

		for (int m = 0; m < 3; m++) {
			/* The last table leaves its c unset. */
			v = t == 2 && m == 2 ? 0 : FN(F_M0 + 3 * t + m);
			memcpy(p + OFF_A + 8 * m, &v, 8);
		}
		v = 7; /* a count: not a pointer, not looked at */
		memcpy(p + 32, &v, 8);
	}
	for (int k = 0; k < 4; k++) {
		uint64_t slot[4] = { DATA + 0x800, FN(F_STUB0 + k), DATA + 0x808 + 8 * k,
				     DATA + 0x900 };

		if (k == 2)
			slot[2] = 0;
		memcpy(d + (STABLE - DATA) + SLOT * k, slot, sizeof(slot));
	}
}

static void fake_kcore(const char *dir)
{
	static uint8_t text[0x100 * F_ALL], data[0x1000];
	struct {
		Elf64_Ehdr eh;
		Elf64_Phdr ph[2];
	} h = {
		.eh = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB,
				     EV_CURRENT },
			.e_type = ET_CORE, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
			.e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
			.e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 2 },
	};
	char path[128];
	FILE *f;

	h.ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_offset = sizeof(h), .p_vaddr = TEXT,
				.p_filesz = sizeof(text), .p_memsz = sizeof(text) };
	h.ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_offset = sizeof(h) + sizeof(text),
				.p_vaddr = DATA, .p_filesz = sizeof(data),
				.p_memsz = sizeof(data) };
	memset(text, 0xcc, sizeof(text));
	for (int i = 0; i < F_ALL; i++)
		text[0x100 * i] = 0xc3;
	caller_code(text + 0x100 * F_CALLER);
	nocall_code(text + 0x100 * F_NOCALL);
	scaller_code(text + 0x100 * F_SCALLER);
	stub_code(text + 0x100 * F_STUB0, F_STUB0, F_T0);
	stub_code(text + 0x100 * F_STUB1, F_STUB1, F_T1);
	stub_code(text + 0x100 * F_STUBRET, F_STUBRET, F_RET);
	stub_code(text + 0x100 * F_STUBLATE, F_STUBLATE, F_T2);
	for (int i = F_T0; i <= F_T2; i++)
		if (i != F_RET)
			memcpy(text + 0x100 * i, "\x0f\x1f\x44\x00\x00\xc3", 6);
	fake_data(data);
	snprintf(path, sizeof(path), "%s/kcore", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(&h, sizeof(h), 1, f), 1);
	assert_int_equal(fwrite(text, sizeof(text), 1, f), 1);
	assert_int_equal(fwrite(data, sizeof(data), 1, f), 1);
	fclose(f);
}

/*
 * struct ops as above; struct other { void *p; int (*x)(); }: too few
 * pointers to count; struct wide, 80 bytes of pointers to functions of one
 * argument at 8-24 and 48-64: over the tables it has more members set than
 * ops, but its prototypes disagree with the functions'. The functions'
 * FUNCs, int fnN(void), as the kernel's BTF has them.
 */
static void fake_btf(const char *dir)
{
	struct btf *btf = btf__new_empty();
	int i32, proto, proto1, fp, fp1, vp, ops, other, wide;
	const void *raw;
	__u32 size;
	char name[16];

	assert_non_null(btf);
	i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	proto = btf__add_func_proto(btf, i32);
	proto1 = btf__add_func_proto(btf, i32);
	assert_int_equal(btf__add_func_param(btf, "x", i32), 0);
	fp = btf__add_ptr(btf, proto);
	fp1 = btf__add_ptr(btf, proto1);
	vp = btf__add_ptr(btf, 0);
	ops = btf__add_struct(btf, "ops", OPS_SIZE);
	assert_true(i32 > 0 && proto > 0 && fp > 0 && vp > 0 && ops > 0);
	assert_int_equal(btf__add_field(btf, "data", vp, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, "a", fp, OFF_A * 8, 0), 0);
	assert_int_equal(btf__add_field(btf, "b", fp, OFF_B * 8, 0), 0);
	assert_int_equal(btf__add_field(btf, "c", fp, OFF_C * 8, 0), 0);
	assert_int_equal(btf__add_field(btf, "n", i32, 32 * 8, 0), 0);
	other = btf__add_struct(btf, "other", 16);
	assert_true(other > 0);
	assert_int_equal(btf__add_field(btf, "p", vp, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, "x", fp, 64, 0), 0);
	wide = btf__add_struct(btf, "wide", 80);
	assert_true(wide > 0);
	for (int k = 0; k < 6; k++) {
		snprintf(name, sizeof(name), "w%d", k);
		assert_int_equal(btf__add_field(btf, name, fp1, (k < 3 ? 8 + 8 * k : 24 + 8 * k) * 8,
						0), 0);
	}
	for (int i = F_M0; i < F_NR; i++) {
		snprintf(name, sizeof(name), "fn%d", i);
		assert_true(btf__add_func(btf, name, BTF_FUNC_STATIC, proto) > 0);
	}
	raw = btf__raw_data(btf, &size);
	assert_non_null(raw);
	write_file(dir, "vmlinux", raw, size);
	btf__free(btf);
}

static int setup(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	char path[128];

	assert_non_null(f);
	strcpy(f->dir, "/tmp/bg_kops.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	fake_kallsyms(f->dir);
	fake_kcore(f->dir);
	fake_btf(f->dir);
	snprintf(path, sizeof(path), "%s/kallsyms", f->dir);
	f->ks = ksyms__load(path);
	snprintf(path, sizeof(path), "%s/kcore", f->dir);
	f->kt = ktext__open(path);
	f->kb = kbtf__load(f->dir);
	assert_non_null(f->kb);
	assert_non_null(f->ks);
	assert_non_null(f->kt);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fake *f = *state;
	char cmd[128];

	ksyms__free(f->ks);
	ktext__close(f->kt);
	kbtf__free(f->kb);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static int targets_of(struct fake *f, int fn, uint64_t *out, size_t max)
{
	uint8_t code[0x100];
	struct kops *ko = kops__new(f->kb, f->ks, f->kt);
	int n;

	assert_non_null(ko);
	assert_int_equal(ktext__read(f->kt, FN(fn), code, sizeof(code)), 0);
	n = kops__targets(ko, code, sizeof(code), FN(fn), out, max);
	kops__free(ko);
	return n;
}

static bool has(const uint64_t *v, int n, uint64_t x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/*
 * The code names the middle table and loads its call's target from
 * offset 16 (b): b of all three tables, found from the middle one, and
 * nothing else (not a or c, not the decoy's value, not what struct wide
 * would make of the tables).
 */
static void test_kops_tables(void **state)
{
	struct fake *f = *state;
	uint64_t out[16];
	int n = targets_of(f, F_CALLER, out, 16);

	assert_int_equal(n, 3);
	for (int t = 0; t < 3; t++)
		assert_true(has(out, n, FN(F_M0 + 3 * t + 1)));
	/* Room for one: the count still says three. */
	assert_int_equal(targets_of(f, F_CALLER, out, 1), 3);
	assert_true(out[0] == FN(F_M0 + 4) || out[0] == FN(F_M0 + 1) || out[0] == FN(F_M0 + 7));
}

static void test_kops_no_indirect_call(void **state)
{
	struct fake *f = *state;
	uint64_t out[16];

	assert_int_equal(targets_of(f, F_NOCALL, out, 16), 0);
}

/* The data references the decoder reports: the table and the decoy, not the thunk. */
static void test_kcode_data_refs(void **state)
{
	struct fake *f = *state;
	uint8_t code[0x100];
	uint64_t refs[8];
	int n;

	assert_int_equal(ktext__read(f->kt, FN(F_CALLER), code, sizeof(code)), 0);
	n = kcode__data_refs(code, sizeof(code), FN(F_CALLER), refs, 8);
	assert_int_equal(n, 2);
	assert_true(has(refs, n, TABLE(1)));
	assert_true(has(refs, n, DATA));
	assert_false(has(refs, n, FN(F_THUNK)));
}

/*
 * A static calls' table the code names: the functions its first two
 * trampolines jump to; not what the third jumps to (no fentry site), nor
 * the fourth's, past the slot with no hook.
 */
static void test_kops_stub_targets(void **state)
{
	struct fake *f = *state;
	uint8_t code[0x100];
	uint64_t out[16];
	struct kcode_info ci;
	uint64_t targets[16];
	struct kops *ko = kops__new(f->kb, f->ks, f->kt);
	int n;

	assert_non_null(ko);
	assert_int_equal(ktext__read(f->kt, FN(F_SCALLER), code, sizeof(code)), 0);
	assert_int_equal(kcode__scan(code, sizeof(code), FN(F_SCALLER), f->ks, targets, 16, &ci),
			 0);
	assert_int_equal(ci.nindirect, 1);
	n = kops__stub_targets(ko, code, sizeof(code), FN(F_SCALLER), out, 16);
	assert_int_equal(n, 2);
	assert_true(has(out, n, FN(F_T0)));
	assert_true(has(out, n, FN(F_T1)));
	/* The first caller calls through its thunk: a direct call, counted apart. */
	assert_int_equal(ktext__read(f->kt, FN(F_CALLER), code, sizeof(code)), 0);
	assert_int_equal(kcode__scan(code, sizeof(code), FN(F_CALLER), f->ks, targets, 16, &ci), 0);
	assert_int_equal(ci.nindirect, 0);
	assert_true(kops__is_thunk(ko, FN(F_THUNK)));
	assert_false(kops__is_thunk(ko, FN(F_CALLER)));
	kops__free(ko);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kops_tables, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kops_no_indirect_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kcode_data_refs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kops_stub_targets, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
