// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The hook facade (user/hook/hooks.h) over two fake backends. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hooks.h"

#define N 6

/* A backend that takes what is not in refuse[], queued until flush when batch. */
struct fake {
	bool refuse[N], refuse_in_batch[N];
	bool batch;
	bool queued[N], hooked[N];
	int adds, disowns;
};

static int fake_add(void *be, uint32_t idx, struct bg_func *f)
{
	struct fake *k = be;

	(void)f;
	k->adds++;
	if (k->refuse[idx])
		return -EINVAL;
	if (k->batch)
		k->queued[idx] = true;
	else
		k->hooked[idx] = true;
	return 0;
}

static unsigned int fake_flush(void *be, void (*refused)(void *ctx, uint32_t idx), void *ctx)
{
	struct fake *k = be;
	unsigned int n = 0;

	for (uint32_t i = 0; i < N; i++) {
		if (!k->queued[i])
			continue;
		k->queued[i] = false;
		if (k->refuse_in_batch[i]) {
			n++;
			if (refused)
				refused(ctx, i);
		} else {
			k->hooked[i] = true;
		}
	}
	return n;
}

static bool fake_hooked(const void *be, uint32_t idx)
{
	return ((const struct fake *)be)->hooked[idx];
}

static void fake_disown(void *be, uint32_t idx)
{
	(void)idx;
	((struct fake *)be)->disowns++;
}

static const struct hook_ops fake_ops = {
	.name = "fake", .add = fake_add, .flush = fake_flush, .hooked = fake_hooked,
	.disown = fake_disown,
};

struct fixture {
	struct bg_func f[N];
	struct functab t;
	struct fake tramp, kprobe;
	struct hooks h;
};

static void setup(struct fixture *x, bool batch)
{
	memset(x, 0, sizeof(*x));
	x->t = (struct functab){ .f = x->f, .n = N, .cap = N };
	x->tramp.batch = batch;
	x->kprobe.batch = batch;
	x->h = (struct hooks){ .funcs = &x->t, .tramp = { &fake_ops, &x->tramp },
			       .kprobe = { &fake_ops, &x->kprobe } };
}

/* The tier first; what it refuses goes to kprobes, marked BG_FN_KPROBE. */
static void test_refused_by_tier_goes_to_kprobe(void **state)
{
	struct fixture x;

	(void)state;
	setup(&x, false);
	x.tramp.refuse[2] = true;
	assert_int_equal(hooks__add(&x.h, 1), 0);
	assert_int_equal(hooks__add(&x.h, 2), 0);
	assert_true(x.tramp.hooked[1]);
	assert_false(x.kprobe.hooked[1]);
	assert_true(x.kprobe.hooked[2]);
	assert_true(x.f[2].flags & BG_FN_KPROBE);
	assert_int_equal(x.tramp.disowns, 1);
	assert_true(hooks__hooked(&x.h, 1));
	assert_true(hooks__hooked(&x.h, 2));
	assert_false(hooks__hooked(&x.h, 3));
}

/* A kprobe-only function never reaches the tier. */
static void test_kprobe_only_skips_tier(void **state)
{
	struct fixture x;

	(void)state;
	setup(&x, false);
	x.f[4].flags = BG_FN_KPROBE;
	assert_int_equal(hooks__add(&x.h, 4), 0);
	assert_int_equal(x.tramp.adds, 0);
	assert_true(x.kprobe.hooked[4]);
}

/* Refused by both: an error, and no kprobe backend at all is one too. */
static void test_refused_by_both(void **state)
{
	struct fixture x;

	(void)state;
	setup(&x, false);
	x.tramp.refuse[0] = x.kprobe.refuse[0] = true;
	assert_int_not_equal(hooks__add(&x.h, 0), 0);
	x.h.kprobe.be = NULL;
	x.tramp.refuse[1] = true;
	assert_int_equal(hooks__add(&x.h, 1), -EOPNOTSUPP);
}

/*
 * Batches: a function the tier's batch refuses goes to the kprobe batch
 * of the same flush; what that refuses is counted.
 */
static void test_flush_hands_batch_refusals_on(void **state)
{
	struct fixture x;

	(void)state;
	setup(&x, true);
	x.tramp.refuse_in_batch[3] = true;
	x.tramp.refuse_in_batch[5] = true;
	x.kprobe.refuse_in_batch[5] = true;
	for (uint32_t i = 1; i < N; i++)
		assert_int_equal(hooks__add(&x.h, i), 0);
	assert_false(hooks__hooked(&x.h, 1));
	assert_int_equal(hooks__flush(&x.h), 1);
	assert_true(x.tramp.hooked[1]);
	assert_true(x.kprobe.hooked[3]);
	assert_true(x.f[3].flags & BG_FN_KPROBE);
	assert_false(hooks__hooked(&x.h, 5));
	assert_int_equal(x.h.refused, 1);
}

/* After a whole-plan attach: what the tier did not take is the kprobes'. */
static void test_hand_refused(void **state)
{
	struct fixture x;

	(void)state;
	setup(&x, false);
	x.tramp.hooked[0] = x.tramp.hooked[1] = true;
	hooks__hand_refused(&x.h);
	assert_false(x.f[0].flags & BG_FN_KPROBE);
	assert_true(x.f[2].flags & BG_FN_KPROBE);
	assert_int_equal(x.tramp.disowns, N - 2);
}

/*
 * What waits to be hooked after the ftrace net's hand-over (BG_FN_LATER)
 * and what is named only (BG_FN_INFERRED) are no refusals: left alone.
 */
static void test_hand_refused_skips_later(void **state)
{
	struct fixture x;

	(void)state;
	setup(&x, false);
	x.tramp.hooked[0] = true;
	x.f[1].flags |= BG_FN_LATER;
	x.f[2].flags |= BG_FN_INFERRED;
	hooks__hand_refused(&x.h);
	assert_false(x.f[1].flags & BG_FN_KPROBE);
	assert_false(x.f[2].flags & BG_FN_KPROBE);
	assert_true(x.f[3].flags & BG_FN_KPROBE);
	assert_int_equal(x.tramp.disowns, N - 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_by_tier_goes_to_kprobe),
		cmocka_unit_test(test_kprobe_only_skips_tier),
		cmocka_unit_test(test_refused_by_both),
		cmocka_unit_test(test_flush_hands_batch_refusals_on),
		cmocka_unit_test(test_hand_refused),
		cmocka_unit_test(test_hand_refused_skips_later),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
