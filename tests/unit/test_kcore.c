// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The kernel-memory symbol reader (user/kernel/ksyms_kcore.c) on a
 * synthetic /proc/kcore: an ELF core file with a VMCOREINFO note and one
 * segment holding compressed kallsyms tables and a module list, laid out
 * the three ways kernels turn an offset into an address, with BTF made
 * here for struct module and struct mod_kallsyms. The guest compares the
 * reader with /proc/kallsyms on real kernels (tests/vm/ksymcmp.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
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

#include "ksyms.h"
#include "ktext.h"

#define MEM 0xffffffff81000000ull
#define MEM_SIZE 0x20000
#define TABLES 0x10000 /* where the tables start in MEM */
#define HEAD (MEM + 0x2100) /* the "modules" list head */
#define MOD_LIST_OFF 8
#define MOD_NAME_OFF 24
#define MOD_KALLSYMS_OFF 80

enum rule { ABS_PERCPU, BASE, SELF };

struct image {
	uint8_t mem[MEM_SIZE];
	size_t used;
	char info[2048];
};

static uint64_t put(struct image *im, const void *p, size_t len)
{
	uint64_t at = MEM + im->used;

	assert_true(im->used + len <= MEM_SIZE);
	memcpy(im->mem + im->used, p, len);
	im->used = (im->used + len + 7) & ~(size_t)7;
	return at;
}

static void poke(struct image *im, uint64_t addr, const void *p, size_t len)
{
	assert_true(addr >= MEM && addr + len <= MEM + MEM_SIZE);
	memcpy(im->mem + (addr - MEM), p, len);
}

/* Tokens: each printable character stands for itself; 200 is "__", 201 "ta". */
static const char *token(int i)
{
	static char one[256][2];

	if (i == 200)
		return "__";
	if (i == 201)
		return "ta";
	one[i][0] = i >= 0x20 && i < 0x7f ? (char)i : 0;
	return one[i];
}

static size_t encode(const char *s, uint8_t *out)
{
	size_t n = 0;

	while (*s) {
		if (!strncmp(s, "__", 2) || !strncmp(s, "ta", 2)) {
			out[n++] = s[0] == '_' ? 200 : 201;
			s += 2;
		} else {
			out[n++] = (uint8_t)*s++;
		}
	}
	return n;
}

static const struct {
	uint64_t addr;
	const char *text; /* type, then name */
} core_syms[] = {
	{ MEM, "T_stext" },
	{ MEM, "T_text" },
	{ MEM + 0x100, "talpha" },
	{ MEM + 0x200, "Tbeta_" /* made long below */ },
	{ MEM + 0x300, "Wweak__fn" },
	{ MEM + 0x1000, "Dinit_uts_ns" },
	{ MEM + 0x2000, "dftrace_pages_start" },
	{ HEAD, "dmodules" },
	{ MEM + 0x3000, "bnode_data" },
};

#define N_CORE (sizeof(core_syms) / sizeof(core_syms[0]))

static char long_name[160];

static void core_tables(struct image *im, enum rule r)
{
	char tt[1024];
	uint16_t ti[256];
	size_t tlen = 0;
	uint8_t names[4096];
	size_t nlen = 0;
	int32_t offs[N_CORE];
	uint32_t n = N_CORE;
	uint64_t base = MEM, a_names, a_offs, a_tt, a_ti, a_n, a_base = 0;
	int len;

	im->used = TABLES;
	for (int i = 0; i < 256; i++) {
		const char *t = token(i);

		ti[i] = (uint16_t)tlen;
		memcpy(tt + tlen, t, strlen(t) + 1);
		tlen += strlen(t) + 1;
	}
	for (size_t i = 0; i < N_CORE; i++) {
		uint8_t tok[300];
		const char *text = i == 3 ? long_name : core_syms[i].text;
		size_t k = encode(text, tok);

		if (k >= 0x80) {
			names[nlen++] = (uint8_t)(0x80 | (k & 0x7f));
			names[nlen++] = (uint8_t)(k >> 7);
		} else {
			names[nlen++] = (uint8_t)k;
		}
		memcpy(names + nlen, tok, k);
		nlen += k;
	}
	a_names = put(im, names, nlen);
	a_tt = put(im, tt, tlen);
	a_ti = put(im, ti, sizeof(ti));
	a_n = put(im, &n, sizeof(n));
	a_offs = MEM + im->used;
	for (size_t i = 0; i < N_CORE; i++) {
		uint64_t a = core_syms[i].addr;

		if (r == ABS_PERCPU)
			offs[i] = -(int32_t)(a - base) - 1;
		else if (r == BASE)
			offs[i] = (int32_t)(uint32_t)(a - base);
		else
			offs[i] = (int32_t)(int64_t)(a - (a_offs + 4 * i));
	}
	put(im, offs, sizeof(offs));
	if (r != SELF)
		a_base = put(im, &base, sizeof(base));
	len = snprintf(im->info, sizeof(im->info),
		       "OSRELEASE=6.99\nSYMBOL(init_uts_ns)=%llx\nSYMBOL(_stext)=%llx\n"
		       "SYMBOL(mem_section)=ff11000012345678\nSYMBOL(node_data)=%llx\n"
		       "SYMBOL(kallsyms_names)=%llx\nSYMBOL(kallsyms_num_syms)=%llx\n"
		       "SYMBOL(kallsyms_token_table)=%llx\nSYMBOL(kallsyms_token_index)=%llx\n"
		       "SYMBOL(kallsyms_offsets)=%llx\n",
		       (unsigned long long)(MEM + 0x1000), (unsigned long long)MEM,
		       (unsigned long long)(MEM + 0x3000), (unsigned long long)a_names,
		       (unsigned long long)a_n, (unsigned long long)a_tt,
		       (unsigned long long)a_ti, (unsigned long long)a_offs);
	if (r != SELF)
		snprintf(im->info + len, sizeof(im->info) - (size_t)len,
			 "SYMBOL(kallsyms_relative_base)=%llx\n", (unsigned long long)a_base);
}

struct msym {
	const char *name;
	char type;
	uint64_t value;
};

/* A module at addr: its struct module and struct mod_kallsyms. */
static void module(struct image *im, uint64_t addr, const char *name, int32_t state,
		   const struct msym *syms, int n)
{
	uint64_t symtab, strtab, typetab, kp;
	uint8_t elfsyms[8][24] = { 0 };
	char strs[256] = "", types[8] = " ";
	size_t slen = 1;
	uint8_t mk[64] = { 0 };
	uint32_t num = (uint32_t)n + 1;

	for (int i = 0; i < n; i++) {
		uint32_t off = (uint32_t)slen;

		memcpy(strs + slen, syms[i].name, strlen(syms[i].name) + 1);
		slen += strlen(syms[i].name) + 1;
		memcpy(elfsyms[i + 1], &off, 4);
		memcpy(elfsyms[i + 1] + 8, &syms[i].value, 8);
		types[i + 1] = syms[i].type;
	}
	symtab = put(im, elfsyms, num * 24);
	strtab = put(im, strs, slen);
	typetab = put(im, types, num);
	memcpy(mk, &symtab, 8);
	memcpy(mk + 8, &num, 4);
	memcpy(mk + 16, &strtab, 8);
	memcpy(mk + 24, &typetab, 8);
	kp = put(im, mk, sizeof(mk));
	poke(im, addr, &state, 4);
	poke(im, addr + MOD_NAME_OFF, name, strlen(name) + 1);
	poke(im, addr + MOD_KALLSYMS_OFF, &kp, 8);
}

/* head -> a -> c (still loading) -> b -> head, by their list members. */
static void modules(struct image *im)
{
	static const struct msym a[] = { { "fa", 't', 0xffffffffc0001000ull },
					 { "da", 'd', 0xffffffffc0002000ull } };
	static const struct msym b[] = { { "fb", 'T', 0xffffffffc0010000ull },
					 { "", 't', 0xffffffffc0010100ull } };
	static const struct msym c[] = { { "fc", 't', 0xffffffffc0020000ull } };
	uint64_t ma = MEM + 0x4000, mb = MEM + 0x5000, mc = MEM + 0x6000;
	uint64_t la = ma + MOD_LIST_OFF, lb = mb + MOD_LIST_OFF, lc = mc + MOD_LIST_OFF;
	uint64_t head = HEAD;

	module(im, ma, "moda", 0, a, 2);
	module(im, mb, "modb", 1, b, 2);
	module(im, mc, "modc", 3, c, 1);
	poke(im, HEAD, &la, 8);
	poke(im, la, &lc, 8);
	poke(im, lc, &lb, 8);
	poke(im, lb, &head, 8);
}

static struct btf *module_btf(void)
{
	struct btf *btf = btf__new_empty();
	int i32, u32, ch, vp, lh, arr;

	assert_non_null(btf);
	i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	u32 = btf__add_int(btf, "unsigned int", 4, 0);
	ch = btf__add_int(btf, "char", 1, BTF_INT_CHAR);
	vp = btf__add_ptr(btf, 0);
	lh = btf__add_struct(btf, "list_head", 16);
	btf__add_field(btf, "next", vp, 0, 0);
	btf__add_field(btf, "prev", vp, 64, 0);
	arr = btf__add_array(btf, i32, ch, 56);
	btf__add_struct(btf, "module", 88);
	btf__add_field(btf, "state", i32, 0, 0);
	btf__add_field(btf, "list", lh, MOD_LIST_OFF * 8, 0);
	btf__add_field(btf, "name", arr, MOD_NAME_OFF * 8, 0);
	btf__add_field(btf, "kallsyms", vp, MOD_KALLSYMS_OFF * 8, 0);
	btf__add_struct(btf, "mod_kallsyms", 32);
	btf__add_field(btf, "symtab", vp, 0, 0);
	btf__add_field(btf, "num_symtab", u32, 64, 0);
	btf__add_field(btf, "strtab", vp, 128, 0);
	btf__add_field(btf, "typetab", vp, 192, 0);
	return btf;
}

#define NOTE_PAD(x) (((x) + 3) & ~(size_t)3)

static void write_core(const char *path, const struct image *im, bool note)
{
	size_t dlen = strlen(im->info), nlen;
	Elf64_Nhdr nh = { .n_namesz = 11, .n_descsz = (Elf64_Word)dlen, .n_type = 0 };
	uint8_t notes[4096] = { 0 };
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
	FILE *f;

	memcpy(notes, &nh, sizeof(nh));
	memcpy(notes + sizeof(nh), note ? "VMCOREINFO" : "CORE\0\0\0\0\0\0", 11);
	memcpy(notes + sizeof(nh) + NOTE_PAD(11), im->info, dlen);
	nlen = sizeof(nh) + NOTE_PAD(11) + NOTE_PAD(dlen);
	h.ph[0] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_offset = sizeof(h), .p_filesz = nlen };
	h.ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_offset = sizeof(h) + nlen, .p_vaddr = MEM,
				.p_filesz = MEM_SIZE, .p_memsz = MEM_SIZE };
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(&h, sizeof(h), 1, f), 1);
	assert_int_equal(fwrite(notes, nlen, 1, f), 1);
	assert_int_equal(fwrite(im->mem, MEM_SIZE, 1, f), 1);
	fclose(f);
}

/* The reader on a core laid out by rule r (note: with its VMCOREINFO); NULL + errno as it says. */
static struct ksyms *load(enum rule r, bool note, bool bad_anchors)
{
	static struct image im;
	char path[] = "/tmp/bg_kcore.XXXXXX";
	struct ktext *kt;
	struct ksyms *ks;
	struct btf *btf = module_btf();
	int fd = mkstemp(path), err;

	assert_true(fd >= 0);
	close(fd);
	memset(&im, 0, sizeof(im));
	snprintf(long_name, sizeof(long_name), "Tbeta_%0140d", 7);
	core_tables(&im, r);
	if (bad_anchors) {
		char *p = strstr(im.info, "SYMBOL(init_uts_ns)=ffffffff81001000");

		assert_non_null(p);
		memcpy(strchr(p, '=') + 1, "ffffffff81001008", 16);
		p = strstr(im.info, "SYMBOL(node_data)=ffffffff81003000");
		assert_non_null(p);
		memcpy(strchr(p, '=') + 1, "ffffffff81003008", 16);
	}
	modules(&im);
	write_core(path, &im, note);
	kt = ktext__open(path);
	assert_non_null(kt);
	ks = ksyms__load_kcore(kt, btf);
	err = errno;
	ktext__close(kt);
	btf__free(btf);
	unlink(path);
	errno = err;
	return ks;
}

static void check_table(struct ksyms *ks)
{
	const struct ksym *s;

	assert_non_null(ks);
	assert_string_equal(ksyms__source(ks), "kernel memory (/proc/kcore)");
	/* Text only: _stext, _text, alpha, the long name, weak__fn; fa and fb. */
	assert_int_equal(ksyms__count(ks), 7);
	s = ksyms__find_name(ks, "alpha", NULL);
	assert_non_null(s);
	assert_int_equal(s->addr, MEM + 0x100);
	assert_int_equal(s->type, 't');
	assert_null(s->module);
	s = ksyms__find_name(ks, long_name + 1, NULL);
	assert_non_null(s);
	assert_int_equal(s->addr, MEM + 0x200);
	assert_int_equal(s->size, 0x100);
	s = ksyms__find_name(ks, "weak__fn", NULL);
	assert_non_null(s);
	assert_int_equal(s->type, 'W');
	assert_int_equal(ksyms__find_name(ks, "_stext", NULL)->addr, MEM);
	assert_null(ksyms__find_name(ks, "init_uts_ns", NULL));
	assert_int_equal(ksyms__data(ks, KSYMS_FTRACE_PAGES), MEM + 0x2000);
	s = ksyms__find_name(ks, "fa", NULL);
	assert_non_null(s);
	assert_string_equal(s->module, "moda");
	assert_int_equal(s->addr, 0xffffffffc0001000ull);
	s = ksyms__find_name(ks, "fb", "modb");
	assert_non_null(s);
	assert_int_equal(s->type, 'T');
	/* A module still loading is not listed, nor a data symbol or a nameless one. */
	assert_null(ksyms__find_name(ks, "fc", NULL));
	assert_null(ksyms__find_name(ks, "da", NULL));
	ksyms__free(ks);
}

static void test_kcore_rules(void **state)
{
	(void)state;
	check_table(load(ABS_PERCPU, true, false));
	check_table(load(BASE, true, false));
	check_table(load(SELF, true, false));
}

/* Anchors that no rule meets, or no VMCOREINFO: NULL, for /proc/kallsyms to be read. */
static void test_kcore_refuses(void **state)
{
	(void)state;
	assert_null(load(ABS_PERCPU, true, true));
	assert_int_equal(errno, EINVAL);
	assert_null(load(SELF, false, false));
	assert_int_equal(errno, ENOENT);
	assert_null(ksyms__load_kcore(NULL, NULL));
}

/* Where MEM + off is in a core write_core() made with an empty note. */
static off_t core_off(uint64_t off)
{
	return (off_t)(sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr) + sizeof(Elf64_Nhdr) +
		       NOTE_PAD(11) + off);
}

/*
 * Bytes kept before a probe of ours replaces them (ktext__keep) are read
 * as kept, by every read that covers them, whatever the file holds since:
 * an int3, or a jump over a call and the instruction after it.
 */
static void test_ktext_keep(void **state)
{
	static struct image im;
	char path[] = "/tmp/bg_ktext.XXXXXX";
	const uint8_t jmp[5] = { 0xe9, 1, 2, 3, 4 }, int3 = 0xcc;
	struct ktext_window w = { 0 };
	uint8_t buf[80], want[80];
	struct ktext *kt;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	memset(&im, 0, sizeof(im));
	for (size_t i = 0; i < MEM_SIZE; i++)
		im.mem[i] = (uint8_t)(i * 7 + 1);
	write_core(path, &im, false);
	kt = ktext__open(path);
	assert_non_null(kt);
	memcpy(want, im.mem + 0x100, sizeof(want));

	/* Kept out of order, one overlapping another, one kept twice. */
	assert_int_equal(ktext__keep(kt, MEM + 0x120), 0);
	assert_int_equal(ktext__keep(kt, MEM + 0x104), 0);
	assert_true(pwrite(fd, jmp, sizeof(jmp), core_off(0x104)) == sizeof(jmp));
	assert_int_equal(ktext__keep(kt, MEM + 0x107), 0); /* under the jmp: as kept */
	assert_true(pwrite(fd, &int3, 1, core_off(0x107)) == 1);
	assert_int_equal(ktext__keep(kt, MEM + 0x104), 0); /* the first copy holds */
	assert_true(pwrite(fd, &int3, 1, core_off(0x120)) == 1);
	assert_true(pwrite(fd, &int3, 1, core_off(0x140)) == 1); /* not ours: shown */
	want[0x40] = int3;

	assert_int_equal(ktext__read(kt, MEM + 0x100, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, want, sizeof(buf));
	/* Reads that begin or end inside a kept range. */
	assert_int_equal(ktext__read(kt, MEM + 0x106, buf, 3), 0);
	assert_memory_equal(buf, want + 6, 3);
	assert_int_equal(ktext__read(kt, MEM + 0x11e, buf, 4), 0);
	assert_memory_equal(buf, want + 0x1e, 4);
	/* The read-ahead window too, from its buffer and when it refills. */
	assert_int_equal(ktext__read_ahead(kt, &w, MEM + 0x100, buf, 32), 0);
	assert_memory_equal(buf, want, 32);
	assert_int_equal(ktext__read_ahead(kt, &w, MEM + 0x118, buf, 40), 0);
	assert_memory_equal(buf, want + 0x18, 40);
	ktext__window_free(&w);
	ktext__close(kt);
	close(fd);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kcore_rules),
		cmocka_unit_test(test_kcore_refuses),
		cmocka_unit_test(test_ktext_keep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
