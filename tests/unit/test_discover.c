// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Untraced functions between traced ones, found from return addresses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "discover.h"

struct fixture {
	struct ksyms *ks;
	struct functab ft;
	struct discover *d;
};

/* alpha (0x...1000, 0x40 bytes) and delta (0x...2000) are traced. */
static int setup(void **state)
{
	static struct fixture fx;

	fx.ks = ksyms__load(BG_SRCDIR "/tests/golden/kallsyms.txt");
	assert_non_null(fx.ks);
	functab__init(&fx.ft);
	assert_int_equal(functab__add(&fx.ft, "alpha", NULL, 0xffffffff81001000ULL, 0x40), 0);
	assert_int_equal(functab__add(&fx.ft, "delta", NULL, 0xffffffff81002000ULL, 0x100), 1);
	fx.d = discover__new(&fx.ft, fx.ks);
	assert_non_null(fx.d);
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	discover__free(fx->d);
	functab__free(&fx->ft);
	ksyms__free(fx->ks);
	return 0;
}

static struct bg_rec entry(uint32_t pid, uint32_t func, uint8_t depth, uint64_t ret)
{
	struct bg_rec r;

	memset(&r, 0, sizeof(r));
	r.type = BG_REC_ENTRY;
	r.pid = pid;
	r.func = func;
	r.depth = depth;
	r.val = ret;
	return r;
}

static void test_direct_call(void **state)
{
	struct fixture *fx = *state;
	const struct ksym *c = NULL;
	struct bg_rec a = entry(7, 0, 0, 0xffffffff81000010ULL);
	struct bg_rec b = entry(7, 1, 1, 0xffffffff81001020ULL); /* inside alpha */

	assert_int_equal(discover__feed(fx->d, &a, &c, 1), 0);
	assert_int_equal(discover__feed(fx->d, &b, &c, 1), 0);
	assert_int_equal(discover__stats(fx->d)->direct, 1);
	assert_int_equal(discover__stats(fx->d)->between, 0);
}

static void test_untraced_between(void **state)
{
	struct fixture *fx = *state;
	const struct ksym *c = NULL;
	struct bg_rec a = entry(8, 0, 0, 0);
	/* delta returns into gamma.part.0: untraced, between alpha and delta. */
	struct bg_rec b = entry(8, 1, 1, 0xffffffff81001090ULL);

	assert_int_equal(discover__feed(fx->d, &a, &c, 1), 0);
	assert_int_equal(discover__feed(fx->d, &b, &c, 1), 1);
	assert_non_null(c);
	assert_string_equal(c->name, "gamma.part.0");
	/* Reported once. */
	c = NULL;
	assert_int_equal(discover__feed(fx->d, &b, &c, 1), 0);
	assert_null(c);
	/* No room now: not reported, and not forgotten for later. */
	b.val = 0xffffffff81002010ULL; /* inside delta, not alpha */
	assert_int_equal(discover__feed(fx->d, &b, &c, 0), 0);
	assert_int_equal(discover__feed(fx->d, &b, &c, 1), 1);
	assert_string_equal(c->name, "delta");
	c = NULL;
	assert_null(c);
	assert_int_equal(discover__stats(fx->d)->between, 4);
}

static void test_tasks_apart(void **state)
{
	struct fixture *fx = *state;
	const struct ksym *c = NULL;
	struct bg_rec a = entry(9, 1, 0, 0); /* pid 9: delta at depth 0 */
	struct bg_rec b = entry(10, 0, 0, 0); /* pid 10: alpha at depth 0 */
	/* pid 9's child returns into delta: direct, whatever pid 10 did. */
	struct bg_rec c9 = entry(9, 0, 1, 0xffffffff81002010ULL);

	discover__feed(fx->d, &a, &c, 1);
	discover__feed(fx->d, &b, &c, 1);
	assert_int_equal(discover__feed(fx->d, &c9, &c, 1), 0);
	assert_int_equal(discover__stats(fx->d)->direct, 1);
}

static void test_not_text(void **state)
{
	struct fixture *fx = *state;
	const struct ksym *c = NULL;
	struct bg_rec a = entry(11, 0, 0, 0);
	struct bg_rec b = entry(11, 1, 1, 0x1234);

	discover__feed(fx->d, &a, &c, 1);
	assert_int_equal(discover__feed(fx->d, &b, &c, 1), 0);
	assert_int_equal(discover__stats(fx->d)->unknown, 1);
}

static void test_other_records_ignored(void **state)
{
	struct fixture *fx = *state;
	const struct ksym *c = NULL;
	struct bg_rec x = entry(12, 1, 1, 0xffffffff81001090ULL);

	x.type = BG_REC_EXIT;
	assert_int_equal(discover__feed(fx->d, &x, &c, 1), 0);
	assert_int_equal(discover__stats(fx->d)->checked, 0);
}

/*
 * delta entered from gamma.part.0, itself called by untraced beta, called
 * by alpha: the kernel stack read there (our frames first) names beta in
 * the same call, not on the next one, and stops at alpha.
 */
static void test_stack_names_all(void **state)
{
	struct fixture *fx = *state;
	const struct ksym *c = NULL, *out[4];
	struct bg_rec a = entry(14, 0, 0, 0);
	struct bg_rec b = entry(14, 1, 1, 0xffffffff81001090ULL);
	struct bg_rec h = entry(14, 0, 1, 0xffffffff81001090ULL); /* parent: alpha */
	uint64_t ip[] = {
		0xffffffffc0002000ULL, /* our program: no symbol of the table */
		0xffffffff81002005ULL, /* delta, after its fentry call */
		0xffffffff81001090ULL, /* the caller: gamma.part.0 */
		0xffffffff81001050ULL, /* beta */
		0xffffffff81001020ULL, /* alpha: the parent, the end */
		0xffffffff81000010ULL, /* beyond it: never looked at */
	};

	h.type = BG_REC_STACK;
	assert_int_equal(discover__feed(fx->d, &a, &c, 1), 0);
	assert_int_equal(discover__feed(fx->d, &b, &c, 1), 1);
	assert_string_equal(c->name, "gamma.part.0");
	assert_int_equal(discover__stack(fx->d, &h, ip, 6, out, 4), 1);
	assert_string_equal(out[0]->name, "beta");
	assert_int_equal(discover__stats(fx->d)->stacks, 1);
	assert_int_equal(discover__stats(fx->d)->stacked, 1);
	/* Each function once, whichever way it was found. */
	assert_int_equal(discover__stack(fx->d, &h, ip, 6, out, 4), 0);
	/* A stack without the caller in it names nothing. */
	h.val = 0xffffffff81001010ULL;
	assert_int_equal(discover__stack(fx->d, &h, ip, 6, out, 4), 0);
}

/* Walks that end anywhere but at a traced function name nothing. */
static void test_stack_stray(void **state)
{
	struct fixture *fx = *state;
	const struct ksym *out[4];
	struct bg_rec h = entry(15, 0, 1, 0xffffffff81001090ULL); /* parent: alpha */
	uint64_t ip[] = {
		0xffffffff81001090ULL, /* the caller: gamma.part.0 */
		0xffffffff81001050ULL, /* beta */
		0xffffffff81000010ULL, /* _stext: the bottom, no traced function */
	};

	h.type = BG_REC_STACK;
	assert_int_equal(discover__stack(fx->d, &h, ip, 3, out, 4), 0);
	/* Not kernel text above the caller. */
	ip[2] = 0x1234;
	assert_int_equal(discover__stack(fx->d, &h, ip, 3, out, 4), 0);
	assert_int_equal(discover__stats(fx->d)->unknown, 1);
	/* Another traced function (delta) ends it as well as the parent. */
	ip[2] = 0xffffffff81002040ULL;
	assert_int_equal(discover__stack(fx->d, &h, ip, 3, out, 0), 0); /* no room */
	assert_int_equal(discover__stack(fx->d, &h, ip, 3, out, 4), 1);
	assert_string_equal(out[0]->name, "beta");
}

static void test_expand_once(void **state)
{
	struct fixture *fx = *state;
	struct bg_rec a = entry(13, 1, 0, 0);

	fx->ft.f[0].flags |= BG_FN_EXPANDED;
	assert_int_equal(discover__expand(fx->d, &a), 1);
	assert_int_equal(discover__expand(fx->d, &a), -1);
	a.func = 0; /* already expanded by the plan */
	assert_int_equal(discover__expand(fx->d, &a), -1);
	fx->ft.f[1].flags &= ~BG_FN_EXPANDED;
	fx->ft.f[1].flags |= BG_FN_NOTRACE; /* hidden subtrees never grow */
	a.func = 1;
	assert_int_equal(discover__expand(fx->d, &a), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_direct_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untraced_between, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tasks_apart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_records_ignored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_names_all, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stack_stray, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expand_once, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
