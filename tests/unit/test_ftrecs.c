// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ftrace's records read from kernel memory (user/kernel/ftrecs.h) on a
 * fake kernel: a BTF with the two structs and the flags' enum, and a
 * memory of a few pages of records; and the kallsyms data symbol that
 * names the list's head (ksyms__data()).
 */
#include <errno.h>
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

#include "ftrecs.h"
#include "ksyms.h"

#define DISABLED (1ULL << 25)

/* The kernel's shapes: ftrace_page {next, records, index, order}, dyn_ftrace {ip, flags, arch}. */
static struct btf *fake_btf(bool with_enum, int index_size)
{
	struct btf *btf = btf__new_empty();
	int ul, in, pg, pgp, rec, recp, arch, fwd;

	assert_non_null(btf);
	ul = btf__add_int(btf, "long unsigned int", 8, 0);
	in = btf__add_int(btf, index_size == 8 ? "long int" : "int", index_size, BTF_INT_SIGNED);
	arch = btf__add_struct(btf, "dyn_arch_ftrace", 0);
	rec = btf__add_struct(btf, "dyn_ftrace", 16);
	assert_int_equal(btf__add_field(btf, "ip", ul, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, "flags", ul, 64, 0), 0);
	assert_int_equal(btf__add_field(btf, "arch", arch, 128, 0), 0);
	recp = btf__add_ptr(btf, rec);
	fwd = btf__add_fwd(btf, "ftrace_page", BTF_FWD_STRUCT);
	pgp = btf__add_ptr(btf, fwd);
	pg = btf__add_struct(btf, "ftrace_page", 16 + 2 * (uint32_t)index_size);
	assert_int_equal(btf__add_field(btf, "next", pgp, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, "records", recp, 64, 0), 0);
	assert_int_equal(btf__add_field(btf, "index", in, 128, 0), 0);
	assert_int_equal(btf__add_field(btf, "order", in, 128 + 8 * (uint32_t)index_size, 0), 0);
	if (with_enum) {
		assert_true(btf__add_enum(btf, NULL, 4) > 0);
		assert_int_equal(btf__add_enum_value(btf, "FTRACE_FL_ENABLED", (int64_t)(1U << 31)),
				 0);
		assert_int_equal(btf__add_enum_value(btf, "FTRACE_FL_DISABLED", (int64_t)DISABLED),
				 0);
	}
	assert_true(ul > 0 && in > 0 && pg > 0 && pgp > 0 && recp > 0);
	return btf;
}

/* Kernel memory: one flat region from BASE. */
#define BASE 0xffff888000000000ULL
#define HEAD (BASE + 0x10)

struct mem {
	uint8_t b[4096];
	int reads;
	uint64_t fail_at; /* a read that covers it fails */
};

static int mem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct mem *m = ctx;

	m->reads++;
	if (addr < BASE || addr + len > BASE + sizeof(m->b))
		return -ERANGE;
	if (m->fail_at && m->fail_at >= addr && m->fail_at < addr + len)
		return -EIO;
	memcpy(buf, m->b + (addr - BASE), len);
	return 0;
}

static void put64(struct mem *m, uint64_t addr, uint64_t v)
{
	memcpy(m->b + (addr - BASE), &v, 8);
}

/* A page at pg: next, records at recs, n records from ip0 (every 0x40), the third disabled. */
static void page(struct mem *m, uint64_t pg, uint64_t next, uint64_t recs, int n, uint64_t ip0,
		 int index_size)
{
	put64(m, pg, next);
	put64(m, pg + 8, recs);
	if (index_size == 8)
		put64(m, pg + 16, (uint64_t)n);
	else
		memcpy(m->b + (pg + 16 - BASE), &n, 4);
	for (int i = 0; i < n; i++) {
		put64(m, recs + 16 * (uint64_t)i, ip0 + 0x40 * (uint64_t)i);
		put64(m, recs + 16 * (uint64_t)i + 8, i == 2 ? DISABLED | 1 : 1ULL << 31);
	}
}

struct sites {
	uint64_t ip[64];
	int n;
	int stop_after; /* 0: never */
};

static int site(void *ctx, uint64_t ip)
{
	struct sites *s = ctx;

	if (s->stop_after && s->n == s->stop_after)
		return -ECANCELED;
	s->ip[s->n++] = ip;
	return 0;
}

static void walk_shape(int index_size)
{
	struct btf *btf = fake_btf(true, index_size);
	struct ftrecs_layout l;
	struct mem *m = calloc(1, sizeof(*m));
	struct sites s = { 0 };

	assert_non_null(m);
	assert_int_equal(ftrecs__layout(btf, &l), 0);
	assert_int_equal(l.rec_size, 16);
	assert_int_equal(l.pg_index_size, index_size);
	assert_int_equal(l.fl_disabled, DISABLED);
	/* head -> page A (4 records) -> page B (3) -> empty page C -> end */
	put64(m, HEAD, BASE + 0x100);
	page(m, BASE + 0x100, BASE + 0x200, BASE + 0x400, 4, 0xffffffff81000004ULL, index_size);
	page(m, BASE + 0x200, BASE + 0x300, BASE + 0x800, 3, 0xffffffff82000004ULL, index_size);
	page(m, BASE + 0x300, 0, 0, 0, 0, index_size);
	assert_int_equal(ftrecs__walk(&l, HEAD, mem_read, m, site, &s), 7);
	/* the disabled ones (the third of each page) are not sites */
	assert_int_equal(s.n, 5);
	assert_int_equal(s.ip[0], 0xffffffff81000004ULL);
	assert_int_equal(s.ip[2], 0xffffffff810000c4ULL);
	assert_int_equal(s.ip[3], 0xffffffff82000004ULL);
	assert_int_equal(s.ip[4], 0xffffffff82000044ULL);
	free(m);
	btf__free(btf);
}

static void test_walk(void **state)
{
	(void)state;
	walk_shape(4);
	walk_shape(8);
}

/* Without the flags' enum every record is a site; the caller's symbol check remains. */
static void test_no_enum(void **state)
{
	struct btf *btf = fake_btf(false, 4);
	struct ftrecs_layout l;
	struct mem *m = calloc(1, sizeof(*m));
	struct sites s = { 0 };

	(void)state;
	assert_non_null(m);
	assert_int_equal(ftrecs__layout(btf, &l), 0);
	assert_int_equal(l.fl_disabled, 0);
	put64(m, HEAD, BASE + 0x100);
	page(m, BASE + 0x100, 0, BASE + 0x400, 4, 0xffffffff81000004ULL, 4);
	assert_int_equal(ftrecs__walk(&l, HEAD, mem_read, m, site, &s), 4);
	assert_int_equal(s.n, 4);
	free(m);
	btf__free(btf);
}

/* A kernel whose BTF lacks the structs (or a field) has no layout. */
static void test_no_layout(void **state)
{
	struct btf *btf = btf__new_empty();
	struct ftrecs_layout l;
	int ul;

	(void)state;
	ul = btf__add_int(btf, "long unsigned int", 8, 0);
	assert_int_equal(ftrecs__layout(btf, &l), -ENOENT);
	/* dyn_ftrace without flags */
	btf__add_struct(btf, "ftrace_page", 24);
	btf__add_struct(btf, "dyn_ftrace", 8);
	assert_int_equal(btf__add_field(btf, "ip", ul, 0, 0), 0);
	assert_int_equal(ftrecs__layout(btf, &l), -ENOENT);
	btf__free(btf);
}

/* A list that fails to read, loops, or claims absurd counts ends the walk with an error. */
static void test_bad_lists(void **state)
{
	struct btf *btf = fake_btf(true, 4);
	struct ftrecs_layout l;
	struct mem *m = calloc(1, sizeof(*m));
	struct sites s = { 0 };

	(void)state;
	assert_non_null(m);
	assert_int_equal(ftrecs__layout(btf, &l), 0);
	/* unreadable head */
	assert_int_equal(ftrecs__walk(&l, 0x1000, mem_read, m, site, &s), -ERANGE);
	/* a page whose records cannot be read */
	put64(m, HEAD, BASE + 0x100);
	page(m, BASE + 0x100, 0, BASE + 0x400, 4, 0xffffffff81000004ULL, 4);
	m->fail_at = BASE + 0x410;
	assert_int_equal(ftrecs__walk(&l, HEAD, mem_read, m, site, &s), -EIO);
	m->fail_at = 0;
	/* the site callback's error ends the walk and comes back */
	s.stop_after = 2;
	assert_int_equal(ftrecs__walk(&l, HEAD, mem_read, m, site, &s), -ECANCELED);
	assert_int_equal(s.n, 2);
	/* a record count past the bound */
	put64(m, BASE + 0x100, 0);
	memcpy(m->b + 0x110, &(int){ (int)FTRECS_MAX_PER_PAGE + 1 }, 4);
	assert_int_equal(ftrecs__walk(&l, HEAD, mem_read, m, site, &s), -EIO);
	/* records at address 0 with a count */
	memcpy(m->b + 0x110, &(int){ 2 }, 4);
	put64(m, BASE + 0x108, 0);
	assert_int_equal(ftrecs__walk(&l, HEAD, mem_read, m, site, &s), -EIO);
	free(m);
	btf__free(btf);
}

/* A page list that loops on itself with no records stops at FTRECS_MAX_PAGES. */
static int count_site(void *ctx, uint64_t ip)
{
	(void)ctx;
	(void)ip;
	return 0;
}

static void test_loop_bound(void **state)
{
	struct btf *btf = fake_btf(true, 4);
	struct ftrecs_layout l;
	struct mem *m = calloc(1, sizeof(*m));

	(void)state;
	assert_non_null(m);
	assert_int_equal(ftrecs__layout(btf, &l), 0);
	put64(m, HEAD, BASE + 0x100);
	page(m, BASE + 0x100, BASE + 0x100, 0, 0, 0, 4);
	assert_int_equal(ftrecs__walk(&l, HEAD, mem_read, m, count_site, NULL), -ELOOP);
	assert_int_equal(m->reads, 1 + FTRECS_MAX_PAGES);
	free(m);
	btf__free(btf);
}

/* kallsyms keeps the list head's address, a vmlinux data symbol; a module's is not it. */
static void test_ksyms_data(void **state)
{
	char path[] = "/tmp/bg_ftrecs_XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	struct ksyms *ks;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs("ffffffff81000000 T _stext\n"
	      "ffffffff81000010 t func_a\n"
	      "ffffffff83000040 b ftrace_pages\n"
	      "ffffffff83000048 b ftrace_pages_start\n"
	      "ffffffffc0000000 b ftrace_pages_start\t[mod]\n"
	      "ffffffffc0001000 t mod_func\t[mod]\n",
	      f);
	fclose(f);
	ks = ksyms__load(path);
	unlink(path);
	assert_non_null(ks);
	assert_int_equal(ksyms__data(ks, KSYMS_FTRACE_PAGES), 0xffffffff83000048ULL);
	/* data symbols stay out of the text lookups */
	assert_int_equal(ksyms__count(ks), 3);
	assert_null(ksyms__find_name(ks, "ftrace_pages_start", NULL));
	assert_int_equal(ksyms__data(ks, KSYMS_DATA_NR), 0);
	ksyms__free(ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_no_enum),
		cmocka_unit_test(test_no_layout),
		cmocka_unit_test(test_bad_lists),
		cmocka_unit_test(test_loop_bound),
		cmocka_unit_test(test_ksyms_data),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
