// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The plan's cookie cache as user space keeps it (user/hook/ckc.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "ckc.h"

static struct ckc *new_ckc(void)
{
	struct ckc *c = calloc(1, sizeof(*c));
	struct bg_ckc_slot *t = calloc(BG_CKC_SLOTS, sizeof(*t));

	assert_non_null(c);
	assert_non_null(t);
	assert_int_equal(ckc__init(c, t, BG_CKC_BITS), 0);
	return c;
}

static void free_ckc(struct ckc *c)
{
	free(c->t);
	ckc__fini(c);
	free(c);
}

/* n addresses of kernel text whose hash is h (BG_CKC_HASH), from base up. */
static int same_hash(uint64_t base, uint32_t h, uint64_t *out, int n)
{
	int k = 0;

	for (uint64_t i = 0; k < n && i < (1ULL << 24); i++)
		if (BG_CKC_HASH(base + 16 * i) == h)
			out[k++] = base + 16 * i;
	return k;
}

static void test_set_then_get(void **state)
{
	struct ckc *c = new_ckc();

	(void)state;
	ckc__set(c, 0xffffffff81234560ULL, BG_CK_GRAPH | 7, true);
	ckc__set(c, 0xffffffff81234570ULL, 8, true);
	assert_int_equal(ckc__get(c, 0xffffffff81234560ULL), BG_CK_GRAPH | 7);
	assert_int_equal(ckc__get(c, 0xffffffff81234570ULL), 8);
	assert_int_equal(ckc__get(c, 0xffffffff81234580ULL), 0);
	free_ckc(c);
}

/* A merge empties a cookie (two links cover it) and puts the new one back. */
static void test_emptied_and_refilled(void **state)
{
	struct ckc *c = new_ckc();
	uint64_t a = 0xffffffff81000010ULL, gen1 = 1ULL << BG_CK_GEN_SHIFT;

	(void)state;
	ckc__set(c, a, 5, true);
	ckc__set(c, a, 0, false);
	assert_int_equal(ckc__get(c, a), 0);
	ckc__set(c, a, 5 | gen1, false);
	assert_int_equal(ckc__get(c, a), 5 | gen1);
	free_ckc(c);
}

/* One address under two indexes: two links, so the kernel must tell. */
static void test_shared_address_stays_empty(void **state)
{
	struct ckc *c = new_ckc();
	uint64_t a = 0xffffffff81000020ULL;

	(void)state;
	ckc__set(c, a, 3, true);
	ckc__set(c, a, 4, true);
	assert_int_equal(ckc__get(c, a), 0);
	ckc__set(c, a, 4, false); /* a refill after a merge does not undo it */
	assert_int_equal(ckc__get(c, a), 0);
	free_ckc(c);
}

/* Past BG_CKC_PROBES addresses of one hash, the others are the kernel's. */
static void test_full_chain_left_to_kernel(void **state)
{
	struct ckc *c = new_ckc();
	uint64_t v[BG_CKC_PROBES + 1];
	uint32_t h = BG_CKC_HASH(0xffffffff81000000ULL);

	(void)state;
	assert_int_equal(same_hash(0xffffffff81000000ULL, h, v, BG_CKC_PROBES + 1),
			 BG_CKC_PROBES + 1);
	for (int i = 0; i <= BG_CKC_PROBES; i++)
		ckc__set(c, v[i], 100 + i, true);
	for (int i = 0; i < BG_CKC_PROBES; i++)
		assert_int_equal(ckc__get(c, v[i]), 100 + i);
	assert_int_equal(ckc__get(c, v[BG_CKC_PROBES]), 0);
	free_ckc(c);
}

/* Without a mapped table nothing happens (the programs ask the kernel). */
static void test_no_table(void **state)
{
	struct ckc c;

	(void)state;
	assert_int_equal(ckc__init(&c, NULL, BG_CKC_BITS), 0);
	ckc__set(&c, 0xffffffff81000030ULL, 9, true);
	assert_int_equal(ckc__get(&c, 0xffffffff81000030ULL), 0);
	ckc__fini(&c);
}

/* A larger table (40 000 functions, a third full): the same rules over its hash width. */
static void test_other_size(void **state)
{
	struct bg_ckc_slot *t = calloc((size_t)1 << 17, sizeof(*t));
	unsigned int hits = 0;
	struct ckc c;

	(void)state;
	assert_non_null(t);
	assert_int_equal(ckc__init(&c, t, 17), 0);
	for (uint64_t i = 0; i < 40000; i++)
		ckc__set(&c, 0xffffffff81000000ULL + 32 * i, BG_FUNC_WIDE | i, true);
	/* A chain longer than the programs look is the kernel's: rare a third full. */
	for (uint64_t i = 0; i < 40000; i++) {
		uint64_t ck = ckc__get(&c, 0xffffffff81000000ULL + 32 * i);

		assert_true(ck == 0 || ck == (BG_FUNC_WIDE | i));
		hits += ck != 0;
	}
	assert_true(hits >= 39600);
	ckc__fini(&c);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_then_get),
		cmocka_unit_test(test_emptied_and_refilled),
		cmocka_unit_test(test_shared_address_stays_empty),
		cmocka_unit_test(test_full_chain_left_to_kernel),
		cmocka_unit_test(test_no_table),
		cmocka_unit_test(test_other_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
