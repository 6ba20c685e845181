// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Copies without their dead code (user/hook/dce.h): what is left must do
 * what the whole did on every path the kernel found live, each jump and
 * call landing on the instruction it landed on before; a verdict that does
 * not fit the code leaves the copy whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dce.h"

#define EXIT { .code = BPF_JMP | BPF_EXIT }
#define MOV(r, v) { .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = (r), .imm = (v) }
#define JA(o) { .code = BPF_JMP | BPF_JA, .off = (o) }
/* if r1 == v goto pc + off + 1 */
#define JEQ(v, o) { .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = 1, .imm = (v), .off = (o) }
#define JEQ32(v, o) { .code = BPF_JMP32 | BPF_JEQ | BPF_K, .dst_reg = 1, .imm = (v), .off = (o) }
#define PCALL(o) { .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_CALL, .imm = (o) }
#define HCALL(id) { .code = BPF_JMP | BPF_CALL, .imm = (id) }
#define LD64(r, lo, hi) { .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = (r), .imm = (lo) }, \
			{ .imm = (hi) }
#define LD64_FUNC(o) { .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = 2, \
		       .src_reg = BPF_PSEUDO_FUNC, .imm = (o) }, { 0 }

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_linfo_one_per_insn(void **state)
{
	const struct bpf_insn p[] = { MOV(0, 1), LD64(1, 7, 8), EXIT };
	struct bpf_line_info li[4];

	(void)state;
	/* None for the 64-bit load's second half: the kernel refuses one there. */
	assert_int_equal(dce__linfo(p, N(p), li), 3);
	assert_int_equal(li[0].insn_off, 0);
	assert_int_equal(li[1].insn_off, 1);
	assert_int_equal(li[2].insn_off, 3);
	assert_int_equal(li[2].line_col >> 10, 4);
	assert_int_equal(li[0].file_name_off, 0);
	assert_int_equal(li[0].line_off, 0);
}

/* A switch off: `if r1 == 0 goto skip` always taken, the code it skips dead. */
static void test_dead_block(void **state)
{
	const struct bpf_insn p[] = {
		JEQ(0, 2),	/* 0: always taken */
		MOV(0, 5),	/* 1: dead */
		MOV(0, 6),	/* 2: dead */
		MOV(0, 7),	/* 3 */
		EXIT,		/* 4 */
	};
	const bool live[] = { 1, 0, 0, 1, 1 };
	struct bpf_insn out[N(p)];
	uint32_t idx[N(p) + 1];

	(void)state;
	assert_int_equal(dce__apply(p, N(p), live, out, idx), 3);
	/* The jump is always taken: a plain one, to the same instruction. */
	assert_int_equal(out[0].code, BPF_JMP | BPF_JA);
	assert_int_equal(out[0].off, 0);
	assert_int_equal(out[0].dst_reg, 0);
	assert_int_equal(out[1].imm, 7);
	assert_int_equal(out[2].code, BPF_JMP | BPF_EXIT);
	assert_int_equal(idx[3], 1);
	assert_int_equal(idx[N(p)], 3);
}

/* A jump never taken goes; a jump over it lands where it fell through. */
static void test_never_taken_and_jumps_across(void **state)
{
	const struct bpf_insn p[] = {
		JEQ32(9, 4),	/* 0: both ways live, to 5 */
		JEQ(1, 1),	/* 1: never taken (3 dead): left out */
		JA(1),		/* 2: to 4 */
		MOV(0, 2),	/* 3: dead */
		EXIT,		/* 4 */
		MOV(0, 3),	/* 5 */
		JA(-3),		/* 6: to 4 */
	};
	const bool live[] = { 1, 1, 1, 0, 1, 1, 1 };
	struct bpf_insn out[N(p)];
	uint32_t idx[N(p) + 1];

	(void)state;
	assert_int_equal(dce__apply(p, N(p), live, out, idx), 5);
	/* 0 -> 0, 2 -> 1, 4 -> 2, 5 -> 3, 6 -> 4 */
	assert_int_equal(out[0].code, BPF_JMP32 | BPF_JEQ | BPF_K);
	assert_int_equal(out[0].off, 2); /* to 5, now 3 */
	assert_int_equal(out[0].imm, 9);
	assert_int_equal(out[1].code, BPF_JMP | BPF_JA);
	assert_int_equal(out[1].off, 0); /* to 4, now 2 */
	assert_int_equal(out[2].code, BPF_JMP | BPF_EXIT);
	assert_int_equal(out[4].code, BPF_JMP | BPF_JA);
	assert_int_equal(out[4].off, -3); /* to 4, now 2 */
	/* A jump to the one left out lands on what followed it. */
	assert_int_equal(idx[1], 1);
}

/*
 * The kernel removes a conditional jump never taken, and `ja +0`, with
 * their records: reached from live code, they pass control on.
 */
static void test_removed_nops(void **state)
{
	const struct bpf_insn p[] = {
		MOV(0, 1),	/* 0 */
		JEQ(4, 3),	/* 1: never taken, removed by the kernel */
		JA(0),		/* 2: removed too */
		PCALL(3),	/* 3: to 7, a removed jump first */
		EXIT,		/* 4 */
		MOV(0, 9),	/* 5: dead */
		EXIT,		/* 6: dead */
		JEQ(0, -3),	/* 7: f1, never taken, removed */
		MOV(0, 2),	/* 8 */
		EXIT,		/* 9 */
	};
	const bool live[] = { 1, 0, 0, 1, 1, 0, 0, 0, 1, 1 };
	struct bpf_insn out[N(p)];
	uint32_t idx[N(p) + 1];

	(void)state;
	assert_int_equal(dce__apply(p, N(p), live, out, idx), 5);
	assert_int_equal(out[1].src_reg, BPF_PSEUDO_CALL);
	assert_int_equal(out[1].imm, 1); /* to 8, now 3 */
	assert_int_equal(idx[7], 3); /* f1's record goes to its first kept */
	assert_int_equal(out[3].imm, 2);
}

/*
 * A jump always taken over dead code becomes `ja +0` once that code is
 * removed, and goes as well: control lands on the next kept instruction.
 */
static void test_removed_always_taken(void **state)
{
	const struct bpf_insn p[] = {
		MOV(0, 1),	/* 0 */
		JEQ(0, 1),	/* 1: always taken, to 3; removed by the kernel */
		MOV(0, 2),	/* 2: dead */
		JEQ32(5, 1),	/* 3: both ways, to 5 */
		MOV(0, 3),	/* 4 */
		EXIT,		/* 5 */
	};
	const bool live[] = { 1, 0, 0, 1, 1, 1 };
	struct bpf_insn out[N(p)];
	uint32_t idx[N(p) + 1];

	(void)state;
	assert_int_equal(dce__apply(p, N(p), live, out, idx), 4);
	assert_int_equal(out[1].code, BPF_JMP32 | BPF_JEQ | BPF_K);
	assert_int_equal(out[1].off, 1);
	assert_int_equal(idx[1], 1);
	assert_int_equal(idx[2], 1);
}

/* Calls between functions are aimed again; a dead function goes whole. */
static void test_calls_and_dead_function(void **state)
{
	const struct bpf_insn p[] = {
		JEQ(0, 1),	/* 0: always taken, to 2 */
		PCALL(4),	/* 1: dead call of f1 (6) */
		PCALL(5),	/* 2: call f2 (8) */
		LD64(3, 1, 2),	/* 3, 4 */
		EXIT,		/* 5 */
		MOV(0, 0),	/* 6: f1, dead */
		EXIT,		/* 7 */
		HCALL(5),	/* 8: f2 */
		EXIT,		/* 9 */
	};
	const bool live[] = { 1, 0, 1, 1, 0, 1, 0, 0, 1, 1 };
	struct bpf_insn out[N(p)];
	uint32_t idx[N(p) + 1];

	(void)state;
	assert_int_equal(dce__apply(p, N(p), live, out, idx), 7);
	assert_int_equal(out[0].code, BPF_JMP | BPF_JA);
	assert_int_equal(out[0].off, 0);
	assert_int_equal(out[1].src_reg, BPF_PSEUDO_CALL);
	assert_int_equal(out[1].imm, 3); /* to f2, now 5 */
	assert_int_equal(out[2].code, BPF_LD | BPF_IMM | BPF_DW);
	assert_int_equal(out[3].imm, 2); /* the second half goes with the first */
	assert_int_equal(out[5].imm, 5); /* a helper's id is not an offset */
	assert_int_equal(idx[6], idx[8]);
}

/* Verdicts that do not fit the code: nothing written. */
static void test_refusals(void **state)
{
	const struct bpf_insn fall[] = { MOV(0, 1), MOV(0, 2), EXIT };
	const bool fall_live[] = { 1, 0, 1 };
	const struct bpf_insn call[] = { PCALL(1), EXIT, MOV(0, 0), EXIT };
	const bool call_live[] = { 1, 1, 0, 0 };
	const struct bpf_insn cb[] = { LD64_FUNC(2), MOV(0, 0), EXIT, MOV(0, 1), EXIT };
	const bool cb_live[] = { 1, 0, 1, 1, 1, 1 };
	const struct bpf_insn jump[] = { JA(1), MOV(0, 0), EXIT };
	const bool jump_live[] = { 1, 1, 0 };
	const struct bpf_insn both[] = { JEQ(0, 1), MOV(0, 0), EXIT };
	const bool both_live[] = { 1, 0, 0 };
	struct bpf_insn out[8];
	uint32_t idx[9];

	(void)state;
	/* A kept instruction whose next one is dead. */
	assert_int_equal(dce__apply(fall, N(fall), fall_live, out, idx), 0);
	/* A call into dead code. */
	assert_int_equal(dce__apply(call, N(call), call_live, out, idx), 0);
	/* A function's address taken (a callback): not followed. */
	assert_int_equal(dce__apply(cb, N(cb), cb_live, out, idx), 0);
	/* A jump to dead code. */
	assert_int_equal(dce__apply(jump, N(jump), jump_live, out, idx), 0);
	/* A conditional jump with neither way live. */
	assert_int_equal(dce__apply(both, N(both), both_live, out, idx), 0);
}

static void test_all_live_is_a_copy(void **state)
{
	const struct bpf_insn p[] = { JEQ(3, 1), MOV(0, 1), PCALL(1), EXIT, MOV(0, 2), EXIT };
	const bool live[] = { 1, 1, 1, 1, 1, 1 };
	struct bpf_insn out[N(p)];
	uint32_t idx[N(p) + 1];

	(void)state;
	assert_int_equal(dce__apply(p, N(p), live, out, idx), N(p));
	assert_memory_equal(out, p, sizeof(p));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linfo_one_per_insn),
		cmocka_unit_test(test_dead_block),
		cmocka_unit_test(test_never_taken_and_jumps_across),
		cmocka_unit_test(test_removed_nops),
		cmocka_unit_test(test_removed_always_taken),
		cmocka_unit_test(test_calls_and_dead_function),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_all_live_is_a_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
