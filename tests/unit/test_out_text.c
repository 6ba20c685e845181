// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Text writer tests: the formatting helpers against the tables of
 * docs/function-graph-format.md (section names in quotes below are that
 * document's), and hand-built event sequences rendered under each option
 * set against tests/golden/out_text/.
 */
#include <errno.h>
#include <inttypes.h>

#include "golden.h"

#include "out_text.h"

/* Functions of the sample sequences; the index is the gev.func. */
enum {
	F_OPENAT2, /* long */
	F_GETNAME, /* pointer */
	F_COND_RESCHED, /* int */
	F_FAILSLAB, /* int */
	F_SCHEDULE, /* void */
	F_BM_STATUS, /* ssize_t, module */
	F_KMEM_ALLOC, /* pointer */
	F_NOBTF, /* no BTF */
	F_CAPABLE, /* bool */
	F_MSECS, /* unsigned int */
	F_CAN_ATTACH, /* int */
	F_SCHAR, /* signed char */
	F_USHORT, /* unsigned short */
	F_NR,
};

static const struct {
	const char *name, *mod;
	uint8_t kind, size;
} fdefs[F_NR] = {
	[F_OPENAT2] = { "do_sys_openat2", NULL, BG_RET_SIGNED, 8 },
	[F_GETNAME] = { "getname", NULL, BG_RET_PTR, 8 },
	[F_COND_RESCHED] = { "__cond_resched", NULL, BG_RET_SIGNED, 4 },
	[F_FAILSLAB] = { "should_failslab", NULL, BG_RET_SIGNED, 4 },
	[F_SCHEDULE] = { "schedule", NULL, BG_RET_VOID, 0 },
	[F_BM_STATUS] = { "bm_status_read", "binfmt_misc", BG_RET_SIGNED, 8 },
	[F_KMEM_ALLOC] = { "kmem_cache_alloc", NULL, BG_RET_PTR, 8 },
	[F_NOBTF] = { "getname_flags.part.0", NULL, BG_RET_UNKNOWN, 0 },
	[F_CAPABLE] = { "capable", NULL, BG_RET_BOOL, 1 },
	[F_MSECS] = { "jiffies_to_msecs", NULL, BG_RET_UNSIGNED, 4 },
	[F_CAN_ATTACH] = { "cpu_cgroup_can_attach", NULL, BG_RET_SIGNED, 4 },
	[F_SCHAR] = { "signed_char_fn", NULL, BG_RET_SIGNED, 1 },
	[F_USHORT] = { "ushort_fn", NULL, BG_RET_UNSIGNED, 2 },
};

struct fx {
	struct functab ft;
	FILE *mem;
	char *buf;
	size_t len;
};

static int fx_setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	functab__init(&fx->ft);
	for (int i = 0; i < F_NR; i++) {
		if (functab__add(&fx->ft, fdefs[i].name, fdefs[i].mod,
				 0xffffffff81000000ULL + i * 0x40, 0x40) != i)
			return -1;
		fx->ft.f[i].ret_kind = fdefs[i].kind;
		fx->ft.f[i].ret_size = fdefs[i].size;
	}
	*state = fx;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *fx = *state;

	functab__free(&fx->ft);
	free(fx);
	return 0;
}

static struct out_text *open_writer(struct fx *fx, uint32_t flags, enum bg_dialect d,
				    uint32_t nr_cpu_ids, bool header)
{
	struct out_text_opts o = {
		.funcs = &fx->ft,
		.flags = flags,
		.dialect = d,
		.nr_cpu_ids = nr_cpu_ids,
		.header = header,
	};
	struct out_text *w;

	fx->mem = open_memstream(&fx->buf, &fx->len);
	assert_non_null(fx->mem);
	o.out = fx->mem;
	w = out_text__new(&o);
	assert_non_null(w);
	return w;
}

/* Closes the writer's stream and checks what it got. */
static void check_golden(struct fx *fx, struct out_text *w, const char *rel)
{
	out_text__free(w);
	assert_int_equal(fclose(fx->mem), 0);
	golden_check(rel, fx->buf, fx->len);
	free(fx->buf);
	fx->buf = NULL;
}

static void emit_all(struct out_text *w, const struct gev *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out_text__emit(w, &ev[i]);
}

/* --- duration column ("DURATION column", "Overhead marks") --------------- */

static void test_duration_table(void **state)
{
	static const struct {
		uint64_t ns;
		const char *field;
	} rows[] = {
		{ 0, "  0.000 us    |  " },
		{ 1382, "  1.382 us    |  " },
		{ 12345, "+ 12.345 us   |  " },
		{ 140417, "! 140.417 us  |  " },
		{ 1837709, "# 1837.709 us |  " },
		{ 33998590, "* 33998.59 us |  " },
		{ 119760200, "@ 119760.2 us |  " },
		{ 3594274000ULL, "$ 3594274 us  |  " },
		{ 10000000000ULL, "$ 10000000 us |  " },
		{ 123456789012ULL, "$ 123456789 us |  " },
		/* VM examples */
		{ 398831, "! 398.831 us  |  " },
		{ 16317, "+ 16.317 us   |  " },
		{ 50519400, "* 50519.40 us |  " },
		{ 6002767, "# 6002.767 us |  " },
		/* truncation, never rounding */
		{ 999, "  0.999 us    |  " },
		{ 99999999, "* 99999.99 us |  " },
		{ 999999999, "@ 999999.9 us |  " },
		{ 18446744073709551615ULL, "$ 18446744073709551 us |  " },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		out_text__fmt_duration(buf, sizeof(buf), rows[i].ns, true);
		assert_string_equal(buf, rows[i].field);
		/* Without overhead the mark is a space, nothing else moves. */
		out_text__fmt_duration(buf, sizeof(buf), rows[i].ns, false);
		assert_int_equal(buf[0], ' ');
		assert_string_equal(buf + 1, rows[i].field + 1);
	}
	/* Short buffers are cut, never overrun. */
	out_text__fmt_duration(buf, 5, 1382, true);
	assert_string_equal(buf, "  1.");
}

static void test_overhead_boundaries(void **state)
{
	static const struct {
		uint64_t ns;
		char below, above;
	} b[] = {
		{ 10000, ' ', '+' },	{ 100000, '+', '!' },	  { 1000000, '!', '#' },
		{ 10000000, '#', '*' }, { 100000000, '*', '@' }, { 1000000000, '@', '$' },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
		/* Strict '>': exactly the threshold still gets the lower mark. */
		out_text__fmt_duration(buf, sizeof(buf), b[i].ns, true);
		assert_int_equal(buf[0], b[i].below);
		out_text__fmt_duration(buf, sizeof(buf), b[i].ns + 1, true);
		assert_int_equal(buf[0], b[i].above);
	}
	out_text__fmt_duration(buf, sizeof(buf), 10000, true);
	assert_string_equal(buf, "  10.000 us   |  ");
}

/* --- return values ("Return values") ------------------------------------- */

static void test_retval_format(void **state)
{
	struct fx *fx = *state;
	static const struct {
		int f;
		uint64_t ret;
		bool hex;
		const char *want; /* NULL: nothing printed */
	} rows[] = {
		{ F_SCHEDULE, 0x1234, false, NULL },
		{ F_COND_RESCHED, 0, false, "0x0" },
		{ F_COND_RESCHED, 0x00000000fffffffeULL, false, "-2" },
		{ F_COND_RESCHED, 0xfffffffffffffffeULL, false, "-2" },
		/* upper half is not part of an int: cut away */
		{ F_COND_RESCHED, 0xdeadbeef00000005ULL, false, "0x5" },
		{ F_COND_RESCHED, 0xdeadbeefffffffeaULL, false, "-22" },
		{ F_COND_RESCHED, 5, false, "0x5" },
		{ F_COND_RESCHED, 0xffffec78, false, "0xffffec78" }, /* -5000: no errno */
		{ F_COND_RESCHED, 0xfffff001, false, "-4095" },
		{ F_COND_RESCHED, 0xfffff000, false, "0xfffff000" },
		{ F_COND_RESCHED, 0xfffffffe, true, "0xfffffffe" },
		{ F_COND_RESCHED, 0, true, "0x0" },
		/* a long is signed in 64 bits: 0xfffffffe is a big positive value */
		{ F_OPENAT2, 0x00000000fffffffeULL, false, "0xfffffffe" },
		{ F_OPENAT2, 0xfffffffffffffffeULL, false, "-2" },
		{ F_OPENAT2, 3, false, "0x3" },
		{ F_OPENAT2, 0xfffffffffffffffeULL, true, "0xfffffffffffffffe" },
		/* unsigned: the kernel's rule on the cut value */
		{ F_MSECS, 4, false, "0x4" },
		{ F_MSECS, 0xee6b2800, false, "0xee6b2800" },
		{ F_MSECS, 0xdeadbeef0000fffeULL, false, "0xfffe" },
		{ F_USHORT, 0xfffe, false, "0xfffe" },
		{ F_USHORT, 0xffffffffffff0001ULL, false, "0x1" },
		{ F_SCHAR, 0xff, false, "-1" },
		{ F_SCHAR, 0x7f, false, "0x7f" },
		{ F_SCHAR, 0xff, true, "0xff" },
		{ F_CAPABLE, 1, false, "0x1" },
		{ F_CAPABLE, 0x101, false, "0x1" },
		{ F_CAPABLE, 0xffffff00, false, "0x0" },
		{ F_KMEM_ALLOC, 0xffff8de843d21ac0ULL, false, "0xffff8de843d21ac0" },
		{ F_KMEM_ALLOC, 0xfffffffffffffff4ULL, false, "-12" }, /* ERR_PTR(-ENOMEM) */
		{ F_KMEM_ALLOC, 0xfffffffffffffff4ULL, true, "0xfffffffffffffff4" },
		/* no BTF: the raw register, exactly the kernel's rule */
		{ F_NOBTF, 0xffffffea, false, "-22" },
		{ F_NOBTF, 0xffffffffffffff01ULL, false, "-255" },
		{ F_NOBTF, 0x80000000, false, "0x80000000" },
		{ F_NOBTF, 0x00000000ffffec78ULL, false, "0xffffec78" },
		{ F_NOBTF, 0xdeadbeefffffffeaULL, false, "0xdeadbeefffffffea" },
		{ F_NOBTF, 0, false, "0x0" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		bool shown = out_text__fmt_retval(buf, sizeof(buf), rows[i].ret,
						  &fx->ft.f[rows[i].f], rows[i].hex);

		if (!rows[i].want) {
			assert_false(shown);
			assert_string_equal(buf, "");
			continue;
		}
		assert_true(shown);
		if (strcmp(buf, rows[i].want))
			fprintf(stderr, "row %zu: %s 0x%" PRIx64 "\n", i, fdefs[rows[i].f].name,
				rows[i].ret);
		assert_string_equal(buf, rows[i].want);
	}
	/* No function known: the raw register. */
	assert_true(out_text__fmt_retval(buf, sizeof(buf), 0xfffffff2, NULL, false));
	assert_string_equal(buf, "-14");
}

/* --- header ("Header", "Column headers") --------------------------------- */

static void test_headers(void **state)
{
	struct fx *fx = *state;
	static const struct {
		const char *name;
		uint32_t flags;
	} sets[] = {
		{ "default", BG_O_DEFAULTS },
		{ "funcgraph-proc", BG_O_DEFAULTS | BG_O_PROC },
		{ "funcgraph-abstime", BG_O_DEFAULTS | BG_O_ABSTIME },
		{ "nofuncgraph-cpu", BG_O_DEFAULTS & ~BG_O_CPU },
		{ "nofuncgraph-overhead", BG_O_DEFAULTS & ~BG_O_OVERHEAD },
		{ "nofuncgraph-duration", BG_O_DEFAULTS & ~BG_O_DURATION },
		{ "abstime+proc", BG_O_DEFAULTS | BG_O_ABSTIME | BG_O_PROC },
		{ "nofuncgraph-cpu+nofuncgraph-duration",
		  BG_O_DEFAULTS & ~(BG_O_CPU | BG_O_DURATION) },
		{ "funcgraph-tail+retval+retval-hex", BG_O_DEFAULTS | BG_O_TAIL | BG_O_RETVAL_HEX },
		{ "nocontext-info", BG_O_DEFAULTS & ~BG_O_CONTEXT_INFO },
		{ "nocontext-info+abstime+proc",
		  (BG_O_DEFAULTS | BG_O_ABSTIME | BG_O_PROC) & ~BG_O_CONTEXT_INFO },
	};
	char *all = NULL;
	size_t all_len = 0;
	FILE *out = open_memstream(&all, &all_len);

	assert_non_null(out);
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		struct out_text *w = open_writer(fx, sets[i].flags, BG_DIALECT_6_1, 2, true);

		out_text__begin(w);
		out_text__free(w);
		assert_int_equal(fclose(fx->mem), 0);
		fprintf(out, "==== %s\n%s", sets[i].name, fx->buf);
		free(fx->buf);
	}
	/* Without opts.header (trace_pipe) there is nothing at all. */
	{
		struct out_text *w = open_writer(fx, BG_O_DEFAULTS, BG_DIALECT_6_1, 2, false);

		out_text__begin(w);
		out_text__free(w);
		assert_int_equal(fclose(fx->mem), 0);
		fprintf(out, "==== no header (trace_pipe)\n%s", fx->buf);
		free(fx->buf);
		fx->buf = NULL;
	}
	assert_int_equal(fclose(out), 0);
	golden_check("out_text/headers.out", all, all_len);
	free(all);
}

/* --- lines --------------------------------------------------------------- */

/*
 * One cpu, two tasks: nesting, leaves, a closing line with and without a
 * matching entry, a banner, a lost-events line, a module function and an
 * unknown task.
 */
static const struct gev sample[] = {
	{ .type = GEV_ENTER, .cpu = 1, .pid = 102, .comm = "wl", .func = F_OPENAT2,
	  .depth = 0, .ts = 10574160123ULL },
	{ .type = GEV_ENTER, .cpu = 1, .pid = 102, .comm = "wl", .func = F_GETNAME,
	  .depth = 1, .ts = 10574161000ULL },
	{ .type = GEV_LEAF, .cpu = 1, .pid = 102, .comm = "wl", .func = F_COND_RESCHED,
	  .depth = 2, .ts = 10574162999ULL, .dur = 2896, .ret = 0 },
	{ .type = GEV_LEAF, .cpu = 1, .pid = 102, .comm = "wl", .func = F_FAILSLAB,
	  .depth = 2, .ts = 10574170000ULL, .dur = 1504, .ret = 0xfffffff4 },
	{ .type = GEV_EXIT, .cpu = 1, .pid = 102, .comm = "wl", .func = F_GETNAME,
	  .depth = 1, .ts = 10574177317ULL, .dur = 16317, .ret = 0xffff8881030a2c00ULL },
	{ .type = GEV_BANNER, .cpu = 1, .prev_pid = 102, .prev_comm = "wl", .pid = 15,
	  .comm = "rcu_preempt", .ts = 10574180000ULL },
	{ .type = GEV_EXIT, .cpu = 1, .pid = 15, .comm = "rcu_preempt", .func = F_SCHEDULE,
	  .depth = 3, .ts = 10574180000ULL, .dur = 6002767, .ret = 0x10, .tail = true },
	{ .type = GEV_LOST, .cpu = 1, .count = 3 },
	{ .type = GEV_BANNER, .cpu = 1, .prev_pid = 15, .prev_comm = "rcu_preempt",
	  .pid = 102, .comm = "wl", .ts = 10574190000ULL },
	{ .type = GEV_LEAF, .cpu = 1, .pid = 102, .comm = "wl", .func = F_BM_STATUS,
	  .depth = 1, .ts = 10574190000ULL, .dur = 140417, .ret = 0xffffffffffffffeaULL },
	{ .type = GEV_EXIT, .cpu = 1, .pid = 102, .comm = "wl", .func = F_NOBTF, .depth = 1,
	  .ts = 10574200000ULL, .dur = 10000, .ret = 0x80000000, .tail = true },
	{ .type = GEV_LOST, .cpu = 1, .count = 0 },
	{ .type = GEV_EXIT, .cpu = 1, .pid = 102, .comm = "wl", .func = F_OPENAT2,
	  .depth = 0, .ts = 10608158713ULL, .dur = 33998590, .ret = 3 },
	{ .type = GEV_BANNER, .cpu = 1, .prev_pid = 102, .prev_comm = "wl", .pid = 0,
	  .comm = "<idle>", .ts = 1000000000000ULL },
	{ .type = GEV_LEAF, .cpu = 1, .pid = 0, .comm = "<idle>", .func = F_CAPABLE,
	  .depth = 0, .ts = 1000000000000ULL, .dur = 10001, .ret = 1 },
	{ .type = GEV_BANNER, .cpu = 1, .prev_pid = 0, .prev_comm = "<idle>", .pid = 4194304,
	  .comm = "systemd-journal", .ts = 123456789012345ULL },
	{ .type = GEV_ENTER, .cpu = 1, .pid = 4194304, .comm = "systemd-journal",
	  .func = F_KMEM_ALLOC, .depth = 0, .ts = 123456789012345ULL },
	{ .type = GEV_EXIT, .cpu = 1, .pid = 4194304, .comm = "systemd-journal",
	  .func = F_KMEM_ALLOC, .depth = 0, .ts = 123456789999999ULL, .dur = 987654321 },
};

static const struct {
	const char *golden;
	uint32_t flags;
	enum bg_dialect dialect;
	uint32_t nr_cpu_ids;
} sample_runs[] = {
	{ "out_text/default.out", BG_O_DEFAULTS, BG_DIALECT_6_1, 2 },
	{ "out_text/proc.out", BG_O_DEFAULTS | BG_O_PROC, BG_DIALECT_6_1, 2 },
	{ "out_text/abstime.out", BG_O_DEFAULTS | BG_O_ABSTIME, BG_DIALECT_6_1, 2 },
	{ "out_text/abstime_proc.out", BG_O_DEFAULTS | BG_O_ABSTIME | BG_O_PROC,
	  BG_DIALECT_6_1, 2 },
	{ "out_text/nocpu.out", BG_O_DEFAULTS & ~BG_O_CPU, BG_DIALECT_6_1, 2 },
	{ "out_text/noduration.out", BG_O_DEFAULTS & ~BG_O_DURATION, BG_DIALECT_6_1, 2 },
	{ "out_text/nooverhead.out", BG_O_DEFAULTS & ~BG_O_OVERHEAD, BG_DIALECT_6_1, 2 },
	{ "out_text/nocpu_noduration.out", BG_O_DEFAULTS & ~(BG_O_CPU | BG_O_DURATION),
	  BG_DIALECT_6_1, 2 },
	{ "out_text/tail.out", BG_O_DEFAULTS | BG_O_TAIL, BG_DIALECT_6_1, 2 },
	{ "out_text/nocontext.out", BG_O_DEFAULTS & ~BG_O_CONTEXT_INFO, BG_DIALECT_6_1, 2 },
	{ "out_text/nocontext_proc_abstime.out",
	  (BG_O_DEFAULTS | BG_O_PROC | BG_O_ABSTIME) & ~BG_O_CONTEXT_INFO, BG_DIALECT_6_1, 2 },
	{ "out_text/cpus16.out", BG_O_DEFAULTS, BG_DIALECT_6_1, 16 },
	{ "out_text/cpus128_proc.out", BG_O_DEFAULTS | BG_O_PROC, BG_DIALECT_6_1, 128 },
	{ "out_text/retval_605.out", BG_O_DEFAULTS, BG_DIALECT_6_5, 2 },
	{ "out_text/retval_605_hex.out", BG_O_DEFAULTS | BG_O_RETVAL_HEX, BG_DIALECT_6_5, 2 },
	{ "out_text/retval_605_off.out", (BG_O_DEFAULTS | BG_O_TAIL) & ~BG_O_RETVAL,
	  BG_DIALECT_6_5, 2 },
	{ "out_text/retval_613.out", BG_O_DEFAULTS, BG_DIALECT_6_13, 2 },
	{ "out_text/retval_613_hex_tail.out", BG_O_DEFAULTS | BG_O_RETVAL_HEX | BG_O_TAIL,
	  BG_DIALECT_6_13, 2 },
};

static void test_sample_runs(void **state)
{
	struct fx *fx = *state;

	for (size_t i = 0; i < sizeof(sample_runs) / sizeof(sample_runs[0]); i++) {
		struct out_text *w = open_writer(fx, sample_runs[i].flags, sample_runs[i].dialect,
						 sample_runs[i].nr_cpu_ids, true);

		out_text__begin(w);
		emit_all(w, sample, sizeof(sample) / sizeof(sample[0]));
		check_golden(fx, w, sample_runs[i].golden);
	}
}

/* Every type as leaf and as closing line, in each dialect. */
static void test_retval_lines(void **state)
{
	struct fx *fx = *state;
	static const struct {
		int f;
		uint64_t ret;
	} vals[] = {
		{ F_SCHEDULE, 0xffff888003a1c000ULL },
		{ F_COND_RESCHED, 0 },
		{ F_FAILSLAB, 0x00000000fffffffeULL },
		{ F_FAILSLAB, 5 },
		{ F_MSECS, 0xdeadbeef00000004ULL },
		{ F_CAPABLE, 0x301 },
		{ F_KMEM_ALLOC, 0xffff8de843d21ac0ULL },
		{ F_KMEM_ALLOC, 0xfffffffffffffff4ULL },
		{ F_NOBTF, 0xffffffffffffff01ULL },
		{ F_NOBTF, 0x80000000 },
		{ F_OPENAT2, 0x00000000ffffffeaULL },
		{ F_CAN_ATTACH, 0xffffffea },
		{ F_BM_STATUS, 0 },
	};
	static const struct {
		const char *golden;
		enum bg_dialect d;
		uint32_t flags;
	} runs[] = {
		{ "out_text/types_601.out", BG_DIALECT_6_1, BG_O_DEFAULTS },
		{ "out_text/types_605.out", BG_DIALECT_6_5, BG_O_DEFAULTS },
		{ "out_text/types_605_hex.out", BG_DIALECT_6_5, BG_O_DEFAULTS | BG_O_RETVAL_HEX },
		{ "out_text/types_613.out", BG_DIALECT_6_13, BG_O_DEFAULTS },
		{ "out_text/types_613_hex.out", BG_DIALECT_6_13,
		  BG_O_DEFAULTS | BG_O_RETVAL_HEX },
	};

	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		struct out_text *w = open_writer(fx, runs[r].flags, runs[r].d, 2, false);

		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
			struct gev leaf = { .type = GEV_LEAF, .pid = 1, .comm = "t",
					    .func = (uint32_t)vals[i].f, .depth = 1,
					    .dur = 300 + i, .ret = vals[i].ret };
			struct gev ent = leaf, ex = leaf;

			ent.type = GEV_ENTER;
			ex.type = GEV_EXIT;
			ex.dur = 20000 + i;
			out_text__emit(w, &leaf);
			out_text__emit(w, &ent);
			out_text__emit(w, &ex);
			/* the same return without its entry */
			ex.tail = true;
			out_text__emit(w, &ex);
		}
		check_golden(fx, w, runs[r].golden);
	}
}

/* "TASK/PID column" examples and the edges of the centring rule. */
static void test_proc_column(void **state)
{
	struct fx *fx = *state;
	static const struct {
		const char *comm;
		uint32_t pid;
	} tasks[] = {
		{ "wl", 102 },		     { "sh", 4802 },	 { "rcu_preempt", 15 },
		{ NULL, 0 },		     { NULL, 77 },	 { "kworker/3:1", 123 },
		{ "systemd", 4194304 },	     { "abcdefg", 12345 }, { "abcdefg", 123456 },
		{ "", 5 },		     { "x", 1 },	 { "bash", 2147483647 },
		{ "abcdefghijklmnop", 9 },
	};
	struct out_text *w = open_writer(fx, BG_O_DEFAULTS | BG_O_PROC, BG_DIALECT_6_1, 4, false);

	for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++) {
		struct gev ev = { .type = GEV_LEAF, .cpu = 3, .pid = tasks[i].pid,
				  .comm = tasks[i].comm, .func = F_COND_RESCHED, .dur = 100 };
		struct gev b = { .type = GEV_BANNER, .cpu = 3, .pid = tasks[i].pid,
				 .comm = tasks[i].comm, .prev_pid = 1, .prev_comm = "init" };

		out_text__emit(w, &ev);
		out_text__emit(w, &b);
	}
	check_golden(fx, w, "out_text/proc_column.out");
}

/* "CPU column": width from the possible cpus, not from the cpu printed. */
static void test_cpu_width(void **state)
{
	struct fx *fx = *state;
	static const uint32_t nr[] = { 0, 1, 2, 4, 10, 11, 16, 100, 101, 128, 4096 };
	char *all = NULL;
	size_t all_len = 0;
	FILE *out = open_memstream(&all, &all_len);

	assert_non_null(out);
	for (size_t i = 0; i < sizeof(nr) / sizeof(nr[0]); i++) {
		struct out_text *w = open_writer(fx, BG_O_DEFAULTS, BG_DIALECT_6_1, nr[i], false);
		struct gev ev[] = {
			{ .type = GEV_LEAF, .cpu = 0, .pid = 1, .func = F_COND_RESCHED, .dur = 1 },
			{ .type = GEV_LEAF, .cpu = nr[i] > 1 ? nr[i] - 1 : 0, .pid = 1,
			  .func = F_COND_RESCHED, .dur = 1 },
			{ .type = GEV_BANNER, .cpu = 7, .prev_pid = 1, .prev_comm = "a", .pid = 2,
			  .comm = "b" },
			{ .type = GEV_LOST, .cpu = 7, .count = 12 },
		};

		emit_all(w, ev, sizeof(ev) / sizeof(ev[0]));
		out_text__free(w);
		assert_int_equal(fclose(fx->mem), 0);
		fprintf(out, "==== nr_cpu_ids %u\n%s", nr[i], fx->buf);
		free(fx->buf);
		fx->buf = NULL;
	}
	assert_int_equal(fclose(out), 0);
	golden_check("out_text/cpu_width.out", all, all_len);
	free(all);
}

/* The banner of "Context switches", byte for byte (VM capture). */
static void test_banner_bytes(void **state)
{
	struct fx *fx = *state;
	struct gev b = { .type = GEV_BANNER, .cpu = 0, .prev_pid = 15,
			 .prev_comm = "rcu_preempt", .pid = 0, .comm = "<idle>" };
	struct out_text *w = open_writer(fx, 0, BG_DIALECT_6_1, 2, false);

	out_text__emit(w, &b);
	out_text__free(w);
	assert_int_equal(fclose(fx->mem), 0);
	assert_string_equal(fx->buf, " ------------------------------------------\n"
				     " 0)   rcu_pre-15   =>    <idle>-0   \n"
				     " ------------------------------------------\n"
				     "\n");
	free(fx->buf);
	fx->buf = NULL;
}

/* Without gev.comm the writer asks the graph, or falls back like ftrace. */
static void test_comm_fallback(void **state)
{
	struct fx *fx = *state;
	struct gev ev[] = {
		{ .type = GEV_LEAF, .pid = 0, .func = F_COND_RESCHED, .dur = 1 },
		{ .type = GEV_LEAF, .pid = 31, .func = F_COND_RESCHED, .dur = 1 },
	};
	struct out_text *w = open_writer(fx, BG_O_DEFAULTS | BG_O_PROC, BG_DIALECT_6_1, 2, false);

	emit_all(w, ev, 2);
	out_text__free(w);
	assert_int_equal(fclose(fx->mem), 0);
	assert_string_equal(fx->buf, " 0)    <idle>-0    |   0.001 us    |  __cond_resched();\n"
				     " 0)    <...>-31    |   0.001 us    |  __cond_resched();\n");
	free(fx->buf);
	fx->buf = NULL;
}

/* Functions outside the table and events of no known type. */
static void test_unknown_function(void **state)
{
	struct fx *fx = *state;
	struct gev ev[] = {
		{ .type = GEV_LEAF, .func = 999, .dur = 1, .ret = 0xfffffffe },
		{ .type = (enum gev_type)77, .func = 1 },
	};
	struct out_text *w = open_writer(fx, BG_O_DEFAULTS, BG_DIALECT_6_5, 2, false);

	emit_all(w, ev, 2);
	out_text__free(w);
	assert_int_equal(fclose(fx->mem), 0);
	assert_string_equal(fx->buf, " 0)   0.001 us    |  func#999(); /* = -2 */\n");
	free(fx->buf);
	fx->buf = NULL;
}

/*
 * Lines are formatted in place within a bound (out_text.c): lines of
 * every length, from deep indentation and a name longer than what the
 * stream keeps free, up to lines larger than the stream's buffer, come
 * out whole and in order, streamed or not.
 */
static void check_long_lines(struct fx *fx, bool stream)
{
	static const uint32_t depths[] = { 0, 31, 32, 33, 1000, 40000, 3 };
	struct out_text_opts o = {
		.funcs = &fx->ft, .flags = BG_O_DEFAULTS, .dialect = BG_DIALECT_6_1,
		.nr_cpu_ids = 2, .stream = stream,
	};
	char name[3001], *want = NULL;
	size_t want_len = 0;
	FILE *exp = open_memstream(&want, &want_len);
	struct out_text *w;
	int f;

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	f = functab__add(&fx->ft, name, NULL, 0xffffffff82000000ULL, 0x40);
	assert_true(f > 0 && exp);
	fx->mem = open_memstream(&fx->buf, &fx->len);
	assert_non_null(fx->mem);
	o.out = fx->mem;
	w = out_text__new(&o);
	assert_non_null(w);
	for (int round = 0; round < 40; round++) {
		for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
			bool leaf = (round + i) % 2;
			uint32_t fn = (round + i) % 3 ? (uint32_t)f : F_COND_RESCHED;
			struct gev ev = { .type = leaf ? GEV_LEAF : GEV_ENTER, .func = fn,
					  .depth = depths[i], .dur = 1 };

			out_text__emit(w, &ev);
			fprintf(exp, " 0) %s|  %*s%s%s\n", leaf ? "  0.001 us    " : "              ",
				(int)depths[i] * 2, "", fn == F_COND_RESCHED ? "__cond_resched" : name,
				leaf ? "();" : "() {");
		}
	}
	out_text__free(w);
	assert_int_equal(fclose(fx->mem), 0);
	assert_int_equal(fclose(exp), 0);
	assert_int_equal(fx->len, want_len);
	assert_memory_equal(fx->buf, want, want_len);
	free(want);
	free(fx->buf);
	fx->buf = NULL;
}

static void test_long_lines(void **state)
{
	check_long_lines(*state, true);
}

static void test_long_lines_unstreamed(void **state)
{
	check_long_lines(*state, false);
}

static void test_new_errors(void **state)
{
	struct out_text_opts o = { 0 };

	errno = 0;
	assert_null(out_text__new(NULL));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(out_text__new(&o));
	assert_int_equal(errno, EINVAL);
	out_text__free(NULL);
}

#define FX_TEST(f) cmocka_unit_test_setup_teardown(f, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duration_table),
		cmocka_unit_test(test_overhead_boundaries),
		FX_TEST(test_retval_format),
		FX_TEST(test_headers),
		FX_TEST(test_sample_runs),
		FX_TEST(test_retval_lines),
		FX_TEST(test_proc_column),
		FX_TEST(test_cpu_width),
		FX_TEST(test_banner_bytes),
		FX_TEST(test_comm_fallback),
		FX_TEST(test_unknown_function),
		cmocka_unit_test(test_new_errors),
		FX_TEST(test_long_lines),
		FX_TEST(test_long_lines_unstreamed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
