// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The function starts of a program's instructions (bpfobj__func_starts):
 * the BTF function records given to the copies of a loaded program must
 * name each function where the verifier finds it; and the copies without
 * their unused functions (bpfobj__drop_funcs): every call left must still
 * reach the same function.
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

/* A conditional jump inside a function: its offset stays. */
#define JEQ(d) { .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = BPF_REG_1, .off = (d) }
#define MOVI(v) { .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = (v) }

static void test_drop_middle_function(void **state)
{
	/*
	 * 0..4: the program (calls f1 at 5, f2 at 7, f1 again), 5..6: f1,
	 * 7..9: f2 (a jump over one instruction), 10..11: f3, called by f2.
	 */
	const struct bpf_insn p[] = {
		PCALL(4), PCALL(5), JEQ(1), PCALL(1), EXIT, /* 0..4 */
		MOVI(1), EXIT, /* 5..6: f1, dropped */
		JEQ(1), PCALL(1), EXIT, /* 7..9: f2 */
		MOVI(3), EXIT, /* 10..11: f3 */
	};
	uint32_t at[4], new_at[4];
	bool drop[4] = { false, true, false, false };
	struct bpf_insn out[12];
	size_t n;

	(void)state;
	assert_int_equal(bpfobj__func_starts(p, 12, at, 4), 4);
	n = bpfobj__drop_funcs(p, 12, at, 4, drop, out, new_at);
	assert_int_equal(n, 10);
	assert_int_equal(new_at[0], 0);
	assert_int_equal(new_at[2], 5);
	assert_int_equal(new_at[3], 8);
	/* The calls of f1 became r0 = 0, the call of f2 still reaches it. */
	assert_int_equal(out[0].code, BPF_ALU64 | BPF_MOV | BPF_K);
	assert_int_equal(out[0].dst_reg, BPF_REG_0);
	assert_int_equal(out[0].imm, 0);
	assert_int_equal(out[3].code, BPF_ALU64 | BPF_MOV | BPF_K);
	assert_int_equal(out[1].src_reg, BPF_PSEUDO_CALL);
	assert_int_equal(1 + out[1].imm + 1, 5);
	assert_int_equal(out[2].off, 1);
	/* f2 moved up by two; its call of f3 still reaches f3's new start. */
	assert_int_equal(out[5].code, BPF_JMP | BPF_JEQ | BPF_K);
	assert_int_equal(out[5].off, 1);
	assert_int_equal(6 + out[6].imm + 1, 8);
	assert_int_equal(out[8].imm, 3);
	assert_int_equal(out[9].code, BPF_JMP | BPF_EXIT);
	/* The starts of what is left are found again where they were put. */
	assert_int_equal(bpfobj__func_starts(out, n, at, 4), 3);
	assert_int_equal(at[1], 5);
	assert_int_equal(at[2], 8);
}

static void test_drop_last_and_keep_all(void **state)
{
	const struct bpf_insn p[] = { PCALL(1), EXIT, MOVI(2), EXIT };
	uint32_t at[2] = { 0, 2 }, new_at[2];
	bool none[2] = { false, false }, last[2] = { false, true };
	struct bpf_insn out[4];

	(void)state;
	assert_int_equal(bpfobj__drop_funcs(p, 4, at, 2, none, out, new_at), 4);
	assert_memory_equal(out, p, sizeof(p));
	assert_int_equal(bpfobj__drop_funcs(p, 4, at, 2, last, out, new_at), 2);
	assert_int_equal(out[0].code, BPF_ALU64 | BPF_MOV | BPF_K);
	assert_int_equal(out[1].code, BPF_JMP | BPF_EXIT);
}

static void test_drop_refuses_callbacks(void **state)
{
	/* A function's address taken (ld_imm64 of a BPF_PSEUDO_FUNC): nothing dropped. */
	const struct bpf_insn p[] = {
		{ .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = BPF_REG_2,
		  .src_reg = BPF_PSEUDO_FUNC, .imm = 3 }, { 0 },
		PCALL(1), EXIT, MOVI(2), EXIT,
	};
	uint32_t at[2] = { 0, 4 }, new_at[2];
	bool drop[2] = { false, true };
	struct bpf_insn out[6];

	(void)state;
	assert_int_equal(bpfobj__drop_funcs(p, 6, at, 2, drop, out, new_at), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_function),
		cmocka_unit_test(test_starts_sorted_and_distinct),
		cmocka_unit_test(test_call_outside),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_drop_middle_function),
		cmocka_unit_test(test_drop_last_and_keep_all),
		cmocka_unit_test(test_drop_refuses_callbacks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
