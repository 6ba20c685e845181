// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The function starts of a program's instructions (bpfobj__func_starts):
 * the BTF function records given to the copies of a loaded program must
 * name each function where the verifier finds it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bpfobj.h"

#define EXIT { .code = BPF_JMP | BPF_EXIT }
#define MOV0 { .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 }
/* A bpf-to-bpf call to pc + off + 1. */
#define PCALL(off) { .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_CALL, .imm = (off) }
/* A helper call: no function of the program. */
#define HCALL(id) { .code = BPF_JMP | BPF_CALL, .imm = (id) }

static void test_one_function(void **state)
{
	const struct bpf_insn p[] = { MOV0, HCALL(5), EXIT };
	uint32_t at[4] = { 9, 9, 9, 9 };

	(void)state;
	assert_int_equal(bpfobj__func_starts(p, 3, at, 4), 1);
	assert_int_equal(at[0], 0);
}

static void test_starts_sorted_and_distinct(void **state)
{
	/* 0: call 6, 1: call 3, 2: exit, 3..4: f2, 5: call 1 (6), 6..7: f1 */
	const struct bpf_insn p[] = { PCALL(5), PCALL(1), EXIT, MOV0, EXIT,
				      PCALL(0), MOV0, EXIT };
	uint32_t at[4];

	(void)state;
	assert_int_equal(bpfobj__func_starts(p, 8, at, 4), 3);
	assert_int_equal(at[0], 0);
	assert_int_equal(at[1], 3);
	assert_int_equal(at[2], 6);
}

static void test_call_outside(void **state)
{
	const struct bpf_insn back[] = { MOV0, PCALL(-3), EXIT };
	const struct bpf_insn past[] = { PCALL(1), EXIT };
	uint32_t at[4];

	(void)state;
	assert_int_equal(bpfobj__func_starts(back, 3, at, 4), 0);
	assert_int_equal(bpfobj__func_starts(past, 2, at, 4), 0);
}

static void test_too_many(void **state)
{
	const struct bpf_insn p[] = { PCALL(2), PCALL(2), EXIT, EXIT, EXIT };
	uint32_t at[3];

	(void)state;
	assert_int_equal(bpfobj__func_starts(p, 5, at, 3), 3);
	assert_int_equal(bpfobj__func_starts(p, 5, at, 2), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_function),
		cmocka_unit_test(test_starts_sorted_and_distinct),
		cmocka_unit_test(test_call_outside),
		cmocka_unit_test(test_too_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
