// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The wide net's memory bound (user/hook/wide_mem.c): the model of
 * fprobe's return-hook pools, and which functions keep their returns.
 * The breadth-first walk reads kernel code and is met in the VM bench
 * (tests/bench/mem.sh); here the table has no plan to start from.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "functab.h"
#include "ksyms.h"
#include "wide_int.h"

#define MIB (1024.0 * 1024.0)

/* Measured on Debian's 6.12 (VmallocUsed's peak, tests/bench/run.sh --mem). */
static void test_pool_model(void **state)
{
	(void)state;
	/* 39 596 functions, split 35 000 / 4 596 as the hot links split them */
	double one = (wide__pool_bytes(35000, 1) + wide__pool_bytes(4596, 1)) / MIB;
	double four = (wide__pool_bytes(35000, 4) + wide__pool_bytes(4596, 4)) / MIB;
	double sixteen = (wide__pool_bytes(35000, 16) + wide__pool_bytes(4596, 16)) / MIB;

	/* measured: 6.2 MiB more than without the net, 39.4 and 374 */
	assert_true(one > 5.5 && one < 8.5);
	assert_true(four > 35 && four < 48);
	assert_true(sixteen > 330 && sixteen < 400);
	assert_int_equal(wide__pool_bytes(0, 16), 0);
	/* The ring rounds up to a power of two: one more function, twice the ring. */
	assert_true(wide__pool_bytes(2049, 16) - wide__pool_bytes(2048, 16) > 8 * MIB);
	/* Past 2^24 nodes in one link the kernel refuses it. */
	assert_true(wide__pool_bytes(40000, 210) == UINT64_MAX);
	assert_true(wide__pool_bytes(40000, 209) < UINT64_MAX);
}

/*
 * Where the net may be bounded by the default --wide-mem (32M), -p and
 * system-wide take function_graph by default: not on two CPUs (the
 * bench's), on four and more; never without a budget.
 */
static void test_may_bound(void **state)
{
	(void)state;
	assert_false(wide__may_bound(1, 32ULL << 20));
	assert_false(wide__may_bound(2, 32ULL << 20));
	assert_true(wide__may_bound(4, 32ULL << 20));
	assert_true(wide__may_bound(256, 32ULL << 20));
	assert_false(wide__may_bound(16, 0));
	assert_false(wide__may_bound(0, 32ULL << 20));
}

#define N 64

struct fixture {
	struct ksym sym[N];
	const struct ksym *psym[N];
	char names[N][32];
	uint8_t hot[N];
	struct wide w;
	struct functab none;
};

static struct fixture *fixture(uint64_t budget, unsigned int ncpus, bool split)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	for (int i = 0; i < N; i++) {
		snprintf(f->names[i], sizeof(f->names[i]), "func%02d", i);
		f->sym[i] = (struct ksym){ .addr = 0x1000 + 0x100 * (uint64_t)i, .size = 0x80,
					   .type = 't', .name = f->names[i] };
		f->psym[i] = &f->sym[i];
		f->hot[i] = split && i % 4 == 0;
	}
	/* The calls that show the net works must keep their returns. */
	strcpy(f->names[50], "__x64_sys_getppid");
	f->w.sym = f->psym;
	f->w.n = N;
	f->w.hot = split ? f->hot : NULL;
	f->w.o.ret_pools = true;
	f->w.o.mem_budget = budget;
	f->w.o.ncpus = ncpus;
	return f;
}

static size_t nfull(const struct wide *w, int hot)
{
	size_t n = 0;

	for (size_t i = 0; i < w->n; i++)
		n += w->full[i] && (hot < 0 || wide_is_hot(w, i) == hot);
	return n;
}

static void done(struct fixture *f)
{
	free(f->w.full);
	free(f);
}

static void test_whole_when_it_fits(void **state)
{
	struct fixture *f = fixture(0, 16, true);

	(void)state;
	assert_int_equal(wide_choose_full(&f->w, &f->none), 0);
	assert_int_equal(nfull(&f->w, -1), N);
	assert_int_equal(f->w.st.entry_only, 0);
	done(f);
	/* No pools (fprobe on the function graph tracer): whole whatever the budget. */
	f = fixture(1, 16, true);
	f->w.o.ret_pools = false;
	assert_int_equal(wide_choose_full(&f->w, &f->none), 0);
	assert_int_equal(nfull(&f->w, -1), N);
	assert_int_equal(f->w.st.pool_bytes, 0);
	done(f);
}

static void test_bounded(void **state)
{
	/* Room for 16 cold and 4 hot functions' pools on 4 CPUs, and a little more. */
	uint64_t budget = wide__pool_bytes(16, 4) + wide__pool_bytes(4, 4) + 64;
	struct fixture *f = fixture(budget, 4, true);
	size_t cold, hot;

	(void)state;
	assert_int_equal(wide_choose_full(&f->w, &f->none), 0);
	cold = nfull(&f->w, 0);
	hot = nfull(&f->w, 1);
	assert_true(wide__pool_bytes(cold, 4) + wide__pool_bytes(hot, 4) <= budget);
	/* as many as fit: one more of either would not */
	assert_true(wide__pool_bytes(cold + 1, 4) + wide__pool_bytes(hot, 4) > budget);
	assert_true(wide__pool_bytes(cold, 4) + wide__pool_bytes(hot + 1, 4) > budget);
	assert_int_equal(f->w.st.entry_only, N - cold - hot);
	assert_int_equal(f->w.st.pool_bytes,
			 wide__pool_bytes(cold, 4) + wide__pool_bytes(hot, 4));
	/* what the whole net would have taken, for the user's note (N / 4 of them hot) */
	assert_int_equal(f->w.st.ncpus, 4);
	assert_int_equal(f->w.st.whole_bytes,
			 wide__pool_bytes(N - N / 4, 4) + wide__pool_bytes(N / 4, 4));
	/* the probe's function first, the rest in address order */
	assert_true(f->w.full[50]);
	assert_true(f->w.full[1] && f->w.full[2]);
	assert_false(f->w.full[N - 1]);
	done(f);
}

static void test_budget_too_small(void **state)
{
	struct fixture *f = fixture(1, 4, false);

	(void)state;
	assert_int_equal(wide_choose_full(&f->w, &f->none), -ENOSPC);
	assert_int_equal(nfull(&f->w, -1), 0);
	assert_int_equal(f->w.st.entry_only, N);
	done(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_model),
		cmocka_unit_test(test_may_bound),
		cmocka_unit_test(test_whole_when_it_fits),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_budget_too_small),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
