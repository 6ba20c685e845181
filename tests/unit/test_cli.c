// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Command-line parser: every option, its edge cases and its error
 * messages, the conflicts, the exit status classes, --help and --version.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli.h"
#include "preflight.h"

#ifndef __maybe_unused
#define __maybe_unused __attribute__((unused))
#endif

#define TRY_HINT "Try 'bpfgraph --help' for more information.\n"

static char errtext[4096]; /* what the last parse wrote to err */

static int argv_len(char **argv)
{
	int n = 0;

	while (argv[n])
		n++;
	return n;
}

static int parse_argv(struct bg_opts *o, char **argv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret;

	assert_non_null(f);
	ret = cli__parse(o, argv_len(argv), argv, f);
	fclose(f);
	snprintf(errtext, sizeof(errtext), "%s", buf);
	free(buf);
	return ret;
}

#define ARGV(...) ((char *[]){ "bpfgraph", ##__VA_ARGS__, NULL })
#define PARSE(o, ...) parse_argv(o, ARGV(__VA_ARGS__))

/* Parses successfully, with nothing on err. */
#define PARSE_OK(o, ...)                                                       \
	do {                                                                   \
		assert_int_equal(PARSE(o, __VA_ARGS__), 0);                    \
		assert_string_equal(errtext, "");                              \
	} while (0)

/*
 * A usage error: -EINVAL, exactly "bpfgraph: <msg>\n" + the hint, msg
 * containing needle, and nothing left allocated in o.
 */
static void expect_usage(const char *needle, char **argv)
{
	struct bg_opts o;
	const char *nl;

	assert_int_equal(parse_argv(&o, argv), -EINVAL);
	if (!strstr(errtext, needle))
		fail_msg("message '%s' lacks '%s'", errtext, needle);
	assert_memory_equal(errtext, "bpfgraph: ", 10);
	nl = strchr(errtext, '\n');
	assert_non_null(nl);
	assert_string_equal(nl + 1, TRY_HINT);
	assert_null(o.pids);
	assert_null(o.graph.v);
	assert_null(o.allow.v);
	assert_null(o.notrace.v);
	cli__free(&o);
}

#define EXPECT_USAGE(needle, ...) expect_usage(needle, ARGV(__VA_ARGS__))

/* Runs cli__parse with stdout sent to a file; returns what it printed. */
static int parse_stdout(char **argv, char *out, size_t len)
{
	struct bg_opts o;
	FILE *tmp = tmpfile();
	int saved, ret;
	size_t n;

	assert_non_null(tmp);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(tmp), STDOUT_FILENO) >= 0);
	ret = parse_argv(&o, argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, len - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	cli__free(&o);
	return ret;
}

/* cli__usage() into out, NUL-terminated. */
static void usage_text(char *out, size_t len)
{
	FILE *f = fmemopen(out, len, "w");

	assert_non_null(f);
	cli__usage(f);
	assert_true(ftell(f) < (long)len - 1);
	fclose(f);
}

/* ---- defaults and selection ------------------------------------------- */

static void test_defaults(void **state __maybe_unused)
{
	char **argv = ARGV("-G", "do_sys_openat2");
	struct bg_opts o;
	unsigned int cpu;

	assert_int_equal(parse_argv(&o, argv), 0);
	assert_string_equal(errtext, "");
	assert_int_equal(o.cmd, BG_CMD_TRACE);
	assert_int_equal(o.graph.n, 1);
	assert_ptr_equal(o.graph.v[0], argv[2]); /* not copied */
	assert_int_equal(o.allow.n, 0);
	assert_int_equal(o.notrace.n, 0);
	assert_int_equal(o.callee_depth, 3);
	assert_int_equal(o.max_funcs, 2000);
	assert_int_equal(o.max_depth, 0);
	assert_int_equal(o.thresh_ns, 0);
	assert_int_equal(o.nr_pids, 0);
	assert_null(o.pids);
	assert_int_equal(o.nr_cpus, 0);
	for (cpu = 0; cpu < BG_MAX_CPUS + 8; cpu += 97)
		assert_true(cli__cpu_isset(&o, cpu));
	assert_string_equal(o.comm, "");
	assert_int_equal(o.duration_ms, 0);
	assert_null(o.command);
	assert_int_equal(o.command_argc, 0);
	assert_int_equal(o.flags, BG_O_DEFAULTS);
	assert_int_equal(o.flags_set, 0);
	assert_int_equal(o.dialect, BG_DIALECT_6_5);
	assert_false(o.no_header);
	assert_null(o.output);
	assert_int_equal(o.buffer_size, 8 << 20);
	assert_int_equal(o.verbosity, 0);
	assert_false(o.dry_run);
	assert_null(o.sub_argv);
	assert_int_equal(o.sub_argc, 0);
	cli__free(&o);
}

/* function_graph's own defaults, except funcgraph-retval. */
static void test_default_flags(void **state __maybe_unused)
{
	assert_int_equal(BG_O_DEFAULTS,
			 BG_O_CPU | BG_O_OVERHEAD | BG_O_DURATION | BG_O_IRQS |
				 BG_O_SLEEP_TIME | BG_O_GRAPH_TIME |
				 BG_O_CONTEXT_INFO | BG_O_RETVAL);
}

static void test_globs(void **state __maybe_unused)
{
	char **argv = ARGV("-G", "a", "-G", "tcp_*", "--graph-function=c",
			   "-a", "x", "--allow=y*", "-x", "n", "--notrace=m",
			   "-Gd");
	struct bg_opts o;

	assert_int_equal(parse_argv(&o, argv), 0);
	assert_int_equal(o.graph.n, 4);
	assert_string_equal(o.graph.v[0], "a");
	assert_string_equal(o.graph.v[1], "tcp_*");
	assert_string_equal(o.graph.v[2], "c");
	assert_string_equal(o.graph.v[3], "d");
	assert_int_equal(o.allow.n, 2);
	assert_string_equal(o.allow.v[0], "x");
	assert_string_equal(o.allow.v[1], "y*");
	assert_int_equal(o.notrace.n, 2);
	assert_string_equal(o.notrace.v[0], "n");
	assert_string_equal(o.notrace.v[1], "m");
	cli__free(&o);
}

static void test_glob_errors(void **state __maybe_unused)
{
	EXPECT_USAGE("invalid --graph-function '': expected a function name",
		     "-G", "");
	/* -G swallowed the next option: no function starts with '-' */
	EXPECT_USAGE("invalid --graph-function '-x'", "-G", "-x", "foo");
	EXPECT_USAGE("invalid --allow 'a b'", "-G", "f", "-a", "a b");
	EXPECT_USAGE("invalid --notrace ''", "-G", "f", "--notrace=");
}

static void test_callee_depth_max_funcs(void **state __maybe_unused)
{
	struct bg_opts o;

	PARSE_OK(&o, "-G", "f", "--callee-depth=0", "--max-funcs=1");
	assert_int_equal(o.callee_depth, 0);
	assert_int_equal(o.max_funcs, 1);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "--callee-depth", "16", "--max-funcs",
		 "1000000");
	assert_int_equal(o.callee_depth, 16);
	assert_int_equal(o.max_funcs, 1000000);
	cli__free(&o);
	EXPECT_USAGE("invalid --callee-depth '17': out of range 0..16", "-G",
		     "f", "--callee-depth=17");
	EXPECT_USAGE("invalid --max-funcs '0': out of range 1..1000000", "-G",
		     "f", "--max-funcs=0");
	EXPECT_USAGE("invalid --max-funcs '1000001'", "-G", "f",
		     "--max-funcs=1000001");
}

static void test_first_calls(void **state __maybe_unused)
{
	struct bg_opts o;

	PARSE_OK(&o, "-G", "f", "--", "true");
	assert_int_equal(o.first_calls, 1);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "--first-calls=32", "--", "true");
	assert_int_equal(o.first_calls, 32);
	cli__free(&o);
	EXPECT_USAGE("invalid --first-calls '33': out of range 1..32", "-G", "f",
		     "--first-calls=33", "--", "true");
	EXPECT_USAGE("invalid --first-calls '0'", "-G", "f", "--first-calls=0", "--", "true");
	/* the net's end without a command is its first graph's end */
	EXPECT_USAGE("--first-calls counts a COMMAND's calls", "-G", "f", "--first-calls=2",
		     "-p", "1");
	PARSE_OK(&o, "-G", "f", "--first-calls=1", "-p", "1");
	cli__free(&o);
}

static void test_wide_wait(void **state __maybe_unused)
{
	struct bg_opts o;

	PARSE_OK(&o, "-G", "f");
	assert_int_equal(o.wide_wait_ms, 5000);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "--wide-wait=0");
	assert_int_equal(o.wide_wait_ms, 0);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "--wide-wait=0.25");
	assert_int_equal(o.wide_wait_ms, 250);
	cli__free(&o);
	EXPECT_USAGE("invalid --wide-wait 'x': expected seconds", "-G", "f", "--wide-wait=x");
	/* -d keeps refusing 0 */
	EXPECT_USAGE("invalid --duration '0': out of range 0.001..", "-G", "f", "-d", "0");
}

/* ---- numbers ---------------------------------------------------------- */

static void test_max_depth(void **state __maybe_unused)
{
	struct bg_opts o;

	PARSE_OK(&o, "-G", "f", "-D", "64");
	assert_int_equal(o.max_depth, 64);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "-D0");
	assert_int_equal(o.max_depth, 0);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "--max-depth=007");
	assert_int_equal(o.max_depth, 7);
	cli__free(&o);
	EXPECT_USAGE("invalid --max-depth '65': out of range 0..64", "-G", "f",
		     "-D", "65");
}

/* Strict: digits only, no sign, space, base prefix, suffix or overflow. */
static void test_number_garbage(void **state __maybe_unused)
{
	static const char *const bad[] = {
		"", "x", "5x", "+5", "-1", " 5", "5 ", "0x10", "1e3", "5.0",
		"1,",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_USAGE("': not a number", "-G", "f", "-D", (char *)bad[i]);
	EXPECT_USAGE("invalid --max-depth '18446744073709551616': out of range",
		     "-G", "f", "-D", "18446744073709551616");
	EXPECT_USAGE("invalid --max-depth '99999999999999999999999999'", "-G",
		     "f", "-D", "99999999999999999999999999");
	/* 2^32 + 1 must not wrap to 1 in a 32-bit field */
	EXPECT_USAGE("invalid --max-depth '4294967297': out of range", "-G",
		     "f", "-D", "4294967297");
}

static void test_thresh(void **state __maybe_unused)
{
	struct bg_opts o;

	PARSE_OK(&o, "-G", "f", "-t", "10");
	assert_int_equal(o.thresh_ns, 10000);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "--thresh=0");
	assert_int_equal(o.thresh_ns, 0);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "-t", "3600000000");
	assert_int_equal(o.thresh_ns, 3600000000000ULL);
	cli__free(&o);
	/* tracing_thresh and max_graph_depth work together */
	PARSE_OK(&o, "-G", "f", "-t", "5", "-D", "3");
	assert_int_equal(o.thresh_ns, 5000);
	assert_int_equal(o.max_depth, 3);
	cli__free(&o);
	EXPECT_USAGE("invalid --thresh '3600000001': out of range 0..3600000000",
		     "-G", "f", "-t", "3600000001");
	EXPECT_USAGE("invalid --thresh '-1': not a number", "-G", "f", "-t",
		     "-1");
	EXPECT_USAGE("invalid --thresh '1.5': not a number", "-G", "f", "-t",
		     "1.5");
}

static void test_duration(void **state __maybe_unused)
{
	static const struct {
		const char *arg;
		uint64_t ms;
	} good[] = {
		{ "2", 2000 },	   { "0.5", 500 },   { "1.25", 1250 },
		{ "0.001", 1 },	   { "10.010", 10010 }, { "00.5", 500 },
		{ "31536000", 31536000000ULL },
	};
	static const char *const bad[] = { ".5", "1.", "abc", "", "-1",
					   "1e3", "1,5", "0.5s", "1..2", "+1" };
	struct bg_opts o;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		PARSE_OK(&o, "-G", "f", "-d", (char *)good[i].arg);
		assert_int_equal(o.duration_ms, good[i].ms);
		cli__free(&o);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_USAGE("expected seconds, like 2 or 0.5", "-G", "f", "-d",
			     (char *)bad[i]);
	EXPECT_USAGE("invalid --duration '1.2345': at most 3 decimals", "-G",
		     "f", "--duration=1.2345");
	EXPECT_USAGE("invalid --duration '0': out of range 0.001..31536000",
		     "-G", "f", "-d", "0");
	EXPECT_USAGE("out of range", "-G", "f", "-d", "0.000");
	EXPECT_USAGE("out of range", "-G", "f", "-d", "31536000.001");
	EXPECT_USAGE("out of range", "-G", "f", "-d", "99999999999999999999");
}

static void test_buffer_size(void **state __maybe_unused)
{
	static const struct {
		const char *arg;
		uint32_t bytes;
	} good[] = {
		{ "64K", 65536 },     { "64k", 65536 },	     { "65536", 65536 },
		{ "8M", 8 << 20 },    { "1m", 1 << 20 },     { "1G", 1U << 30 },
		{ "1g", 1U << 30 },   { "512M", 512 << 20 }, { "1024K", 1 << 20 },
	};
	static const char *const nosize[] = { "", "M", "8MB", "8 M", "-8M",
					      "8T", "0x10000", "8.5M" };
	struct bg_opts o;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		PARSE_OK(&o, "-G", "f", "-b", (char *)good[i].arg);
		assert_int_equal(o.buffer_size, good[i].bytes);
		cli__free(&o);
	}
	for (i = 0; i < sizeof(nosize) / sizeof(nosize[0]); i++)
		EXPECT_USAGE("expected a size like 8M", "-G", "f", "-b",
			     (char *)nosize[i]);
	EXPECT_USAGE("invalid --buffer-size '3M': not a power of two", "-G",
		     "f", "-b", "3M");
	EXPECT_USAGE("invalid --buffer-size '65537': not a power of two", "-G",
		     "f", "--buffer-size=65537");
	EXPECT_USAGE("invalid --buffer-size '32K': out of range 64K..1G", "-G",
		     "f", "-b", "32K");
	EXPECT_USAGE("invalid --buffer-size '2G': out of range", "-G", "f",
		     "-b", "2G");
	EXPECT_USAGE("invalid --buffer-size '0': out of range", "-G", "f",
		     "-b", "0");
	/* 2^64 / 1024 + 1: the shift must not overflow into range */
	EXPECT_USAGE("out of range", "-G", "f", "-b", "18014398509481985K");
	EXPECT_USAGE("out of range", "-G", "f", "-b",
		     "99999999999999999999999G");
}

/* ---- lists ------------------------------------------------------------ */

static void test_pids(void **state __maybe_unused)
{
	struct bg_opts o;

	PARSE_OK(&o, "-G", "f", "-p", "30", "--pid=2,1", "-p", "2,30");
	assert_int_equal(o.nr_pids, 3); /* sorted, duplicates dropped */
	assert_int_equal(o.pids[0], 1);
	assert_int_equal(o.pids[1], 2);
	assert_int_equal(o.pids[2], 30);
	cli__free(&o);
	assert_null(o.pids);
	PARSE_OK(&o, "-G", "f", "-p", "4194303");
	assert_int_equal(o.pids[0], 4194303);
	cli__free(&o);
	EXPECT_USAGE("invalid --pid '0': out of range 1..4194303", "-G", "f",
		     "-p", "0");
	EXPECT_USAGE("invalid --pid '4194304': out of range", "-G", "f", "-p",
		     "4194304");
	EXPECT_USAGE("invalid --pid 'x': not a number", "-G", "f", "-p", "1,x");
	EXPECT_USAGE("invalid --pid '1,,2': empty list element", "-G", "f",
		     "-p", "1,,2");
	EXPECT_USAGE("empty list element", "-G", "f", "-p", "1,");
	EXPECT_USAGE("empty list element", "-G", "f", "-p", ",1");
	EXPECT_USAGE("empty list element", "-G", "f", "-p", "");
	EXPECT_USAGE("too long", "-G", "f", "-p",
		     "1111111111111111111111111111111111111111111111111111111111111111111");
}

static void test_pids_limit(void **state __maybe_unused)
{
	char list[8 * (BG_MAX_PIDS + 1)];
	size_t at = 0;
	struct bg_opts o;
	int i;

	for (i = 1; i <= BG_MAX_PIDS; i++)
		at += (size_t)sprintf(list + at, "%s%d", i > 1 ? "," : "", i);
	PARSE_OK(&o, "-G", "f", "-p", list);
	assert_int_equal(o.nr_pids, BG_MAX_PIDS);
	cli__free(&o);
	sprintf(list + at, ",%d", BG_MAX_PIDS + 1);
	EXPECT_USAGE("too many pids (at most 1024)", "-G", "f", "-p", list);
}

static void test_cpus(void **state __maybe_unused)
{
	struct bg_opts o;
	unsigned int cpu;

	PARSE_OK(&o, "-G", "f", "-C", "0-3,7");
	assert_int_equal(o.nr_cpus, 5);
	for (cpu = 0; cpu < 10; cpu++)
		assert_int_equal(cli__cpu_isset(&o, cpu), cpu <= 3 || cpu == 7);
	assert_int_equal(o.cpus[0], 0x8f);
	assert_false(cli__cpu_isset(&o, BG_MAX_CPUS));
	cli__free(&o);

	/* repeated -C add up, overlaps count once */
	PARSE_OK(&o, "-G", "f", "-C", "5", "--cpu=1-2,2-5", "-C", "4095");
	assert_int_equal(o.nr_cpus, 6);
	assert_true(cli__cpu_isset(&o, 4095));
	assert_int_equal(o.cpus[BG_CPUSET_WORDS - 1], 1ULL << 63);
	assert_false(cli__cpu_isset(&o, 0));
	cli__free(&o);

	PARSE_OK(&o, "-G", "f", "-C", "0-4095");
	assert_int_equal(o.nr_cpus, BG_MAX_CPUS);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "-C", "3-3");
	assert_int_equal(o.nr_cpus, 1);
	cli__free(&o);

	EXPECT_USAGE("invalid --cpu '4096': out of range 0..4095", "-G", "f",
		     "-C", "4096");
	EXPECT_USAGE("invalid --cpu '4096': out of range", "-G", "f", "-C",
		     "0-4096");
	EXPECT_USAGE("invalid --cpu '3-1': range ends before it starts", "-G",
		     "f", "-C", "3-1");
	EXPECT_USAGE("invalid --cpu '': not a number", "-G", "f", "-C", "1-");
	EXPECT_USAGE("invalid --cpu '': not a number", "-G", "f", "-C", "-1");
	EXPECT_USAGE("invalid --cpu '2-3': not a number", "-G", "f", "-C",
		     "1-2-3");
	EXPECT_USAGE("invalid --cpu 'a': not a number", "-G", "f", "-C", "a");
	EXPECT_USAGE("invalid --cpu '1,,2': empty list element", "-G", "f",
		     "-C", "1,,2");
	EXPECT_USAGE("empty list element", "-G", "f", "-C", "1,");
}

static void test_comm(void **state __maybe_unused)
{
	struct bg_opts o;

	PARSE_OK(&o, "-G", "f", "-n", "bash");
	assert_string_equal(o.comm, "bash");
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "--comm=123456789012345");
	assert_string_equal(o.comm, "123456789012345");
	cli__free(&o);
	EXPECT_USAGE("invalid --comm '1234567890123456': 1 to 15 characters",
		     "-G", "f", "-n", "1234567890123456");
	EXPECT_USAGE("invalid --comm '': 1 to 15 characters", "-G", "f", "-n",
		     "");
}

/* ---- -O, --graph-opts, --compat ---------------------------------------- */

static void test_trace_opt_table(void **state __maybe_unused)
{
	uint32_t seen = 0;
	size_t i;

	assert_int_equal(cli__nr_trace_opts(), 14);
	for (i = 0; i < cli__nr_trace_opts(); i++) {
		assert_int_equal(seen & cli__trace_opt_flag(i), 0);
		seen |= cli__trace_opt_flag(i);
	}
	assert_int_equal(seen, 0x3fff);
	assert_null(cli__trace_opt_name(i));
	assert_int_equal(cli__trace_opt_flag(i), 0);
}

/* Every name turns its flag on, "no"+name off, and both are explicit. */
static void test_trace_opts_each(void **state __maybe_unused)
{
	char off[64], *on;
	struct bg_opts o;
	uint32_t flag;
	size_t i;

	for (i = 0; i < cli__nr_trace_opts(); i++) {
		flag = cli__trace_opt_flag(i);
		on = (char *)cli__trace_opt_name(i);
		snprintf(off, sizeof(off), "no%s", on);
		PARSE_OK(&o, "-G", "f", "-O", off);
		assert_int_equal(o.flags, BG_O_DEFAULTS & ~flag);
		assert_int_equal(o.flags_set, flag);
		cli__free(&o);
		PARSE_OK(&o, "-G", "f", "--option", on);
		assert_int_equal(o.flags, BG_O_DEFAULTS | flag);
		assert_int_equal(o.flags_set, flag);
		cli__free(&o);
	}
}

static void test_trace_opts_lists(void **state __maybe_unused)
{
	struct bg_opts o;

	PARSE_OK(&o, "-G", "f", "-O", "funcgraph-proc,nofuncgraph-cpu",
		 "--option=funcgraph-abstime", "-O", "nocontext-info");
	assert_int_equal(o.flags, (BG_O_DEFAULTS | BG_O_PROC | BG_O_ABSTIME) &
					  ~(BG_O_CPU | BG_O_CONTEXT_INFO));
	assert_int_equal(o.flags_set,
			 BG_O_PROC | BG_O_CPU | BG_O_ABSTIME | BG_O_CONTEXT_INFO);
	cli__free(&o);
	/* the last word wins, across lists and options */
	PARSE_OK(&o, "-G", "f", "-O",
		 "funcgraph-tail,nofuncgraph-tail,nofuncgraph-irqs", "-O",
		 "funcgraph-irqs");
	assert_int_equal(o.flags & (BG_O_TAIL | BG_O_IRQS), BG_O_IRQS);
	cli__free(&o);

	EXPECT_USAGE("unknown -O name 'nosuch' (valid: funcgraph-cpu, "
		     "funcgraph-overhead, funcgraph-proc, funcgraph-duration, "
		     "funcgraph-abstime, funcgraph-irqs, funcgraph-tail, "
		     "funcgraph-retval, funcgraph-retval-hex, sleep-time, "
		     "graph-time, context-info, funcgraph-args, funcgraph-retaddr)",
		     "-G", "f", "-O", "nosuch");
	EXPECT_USAGE("unknown -O name 'no'", "-G", "f", "-O", "no");
	EXPECT_USAGE("unknown -O name 'nonofuncgraph-cpu'", "-G", "f", "-O",
		     "nonofuncgraph-cpu");
	EXPECT_USAGE("unknown -O name 'FUNCGRAPH-CPU'", "-G", "f", "-O",
		     "FUNCGRAPH-CPU");
	EXPECT_USAGE("unknown -O name 'funcgraph-cpu=1'", "-G", "f", "-O",
		     "funcgraph-cpu=1");
	EXPECT_USAGE("invalid --option 'funcgraph-cpu,': empty list element",
		     "-G", "f", "-O", "funcgraph-cpu,");
	EXPECT_USAGE("empty list element", "-G", "f", "-O", "");
}

static void test_graph_opts(void **state __maybe_unused)
{
	struct bg_opts o;

	PARSE_OK(&o, "-G", "f", "--graph-opts=nosleep-time,noirqs");
	assert_int_equal(o.flags, BG_O_DEFAULTS & ~(BG_O_SLEEP_TIME | BG_O_IRQS));
	assert_int_equal(o.flags_set, BG_O_SLEEP_TIME | BG_O_IRQS);
	/* Taken off while tracing: a report of recorded durations cannot. */
	assert_int_equal(preflight__report_options(&o), -EOPNOTSUPP);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "--graph-opts=noirqs");
	assert_int_equal(preflight__report_options(&o), 0);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "--graph-opts", "verbose");
	assert_int_equal(o.flags, BG_O_DEFAULTS | BG_O_PROC | BG_O_ABSTIME);
	assert_int_equal(o.flags_set, BG_O_PROC | BG_O_ABSTIME);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "--graph-opts=thresh=7,depth=4");
	assert_int_equal(o.thresh_ns, 7000);
	assert_int_equal(o.max_depth, 4);
	assert_int_equal(o.flags, BG_O_DEFAULTS);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "-O", "nofuncgraph-retval",
		 "--graph-opts=tail,retval");
	assert_int_equal(o.flags, BG_O_DEFAULTS | BG_O_TAIL);
	assert_int_equal(o.flags_set, BG_O_TAIL | BG_O_RETVAL);
	cli__free(&o);
	/* retval-hex implies retval */
	PARSE_OK(&o, "-G", "f", "-O", "nofuncgraph-retval",
		 "--graph-opts=retval-hex");
	assert_int_equal(o.flags, BG_O_DEFAULTS | BG_O_RETVAL_HEX);
	assert_int_equal(o.flags_set, BG_O_RETVAL | BG_O_RETVAL_HEX);
	cli__free(&o);

	PARSE_OK(&o, "-G", "f", "--graph-opts=args,retaddr");
	assert_int_equal(o.flags, BG_O_DEFAULTS | BG_O_ARGS | BG_O_RETADDR);
	cli__free(&o);
	EXPECT_USAGE("unknown --graph-opts word 'bogus' (valid: nosleep-time,",
		     "-G", "f", "--graph-opts=bogus");
	EXPECT_USAGE("--graph-opts 'thresh' needs a value: thresh=USEC", "-G",
		     "f", "--graph-opts=thresh");
	EXPECT_USAGE("--graph-opts 'depth' needs a value: depth=N", "-G", "f",
		     "--graph-opts=depth");
	EXPECT_USAGE("--graph-opts 'tail' takes no value", "-G", "f",
		     "--graph-opts=tail=1");
	EXPECT_USAGE("invalid --graph-opts depth '65': out of range 0..64",
		     "-G", "f", "--graph-opts=depth=65");
	EXPECT_USAGE("invalid --graph-opts thresh 'x': not a number", "-G", "f",
		     "--graph-opts=thresh=x");
	EXPECT_USAGE("invalid --graph-opts thresh '': not a number", "-G", "f",
		     "--graph-opts=thresh=");
	EXPECT_USAGE("empty list element", "-G", "f", "--graph-opts=tail,,");
}

static void test_compat(void **state __maybe_unused)
{
	static const struct {
		const char *arg;
		enum bg_dialect d;
	} map[] = {
		{ "6.1", BG_DIALECT_6_1 },   { "4.19", BG_DIALECT_6_1 },
		{ "5.15", BG_DIALECT_6_1 },  { "3.10", BG_DIALECT_6_1 },
		{ "2.6", BG_DIALECT_6_1 },   { "6.4", BG_DIALECT_6_1 },
		{ "6.0", BG_DIALECT_6_1 },   { "6.5", BG_DIALECT_6_5 },
		{ "6.6", BG_DIALECT_6_5 },   { "6.12", BG_DIALECT_6_5 },
		{ "6.13", BG_DIALECT_6_13 }, { "6.14", BG_DIALECT_6_13 },
		{ "6.15", BG_DIALECT_6_15 }, { "6.16", BG_DIALECT_6_15 },
		{ "6.17", BG_DIALECT_6_17 }, { "6.18", BG_DIALECT_6_17 },
		{ "6.19", BG_DIALECT_6_19 }, { "7.3.4+deb13-cloud-amd64", BG_DIALECT_6_19 },
		{ "7.0", BG_DIALECT_6_19 },  { "10.2", BG_DIALECT_6_19 },
		{ "6.1.119", BG_DIALECT_6_1 },
		{ "6.1.0-50-cloud-amd64", BG_DIALECT_6_1 },
		{ "6.8.0-49-generic", BG_DIALECT_6_5 },
		{ "6.13.2+", BG_DIALECT_6_13 },
		{ "6.12-rc3", BG_DIALECT_6_5 },
	};
	static const char *const bad[] = { "", "6", "6.", ".1", "6.1x", "6.1.",
					   "v6.1", "1.0", "0.9", "6..1",
					   "6.1.2.3", "1234.1", "6.1234",
					   "6,1", "6.1 ", "latest" };
	struct bg_opts o;
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		PARSE_OK(&o, "-G", "f", "--compat", (char *)map[i].arg);
		if (o.dialect != map[i].d)
			fail_msg("--compat=%s: dialect %d, want %d", map[i].arg,
				 o.dialect, map[i].d);
		cli__free(&o);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_USAGE("expected a kernel version like 6.1, 6.5, 6.13 or 6.19",
			     "-G", "f", "--compat", (char *)bad[i]);
	/* the last one wins */
	PARSE_OK(&o, "-G", "f", "--compat=6.1", "--compat=6.13");
	assert_int_equal(o.dialect, BG_DIALECT_6_13);
	cli__free(&o);
}

/* 6.1 has no funcgraph-retval: off unless asked for, then an error. */
static void test_compat_retval(void **state __maybe_unused)
{
	static const char msg[] =
		"bpfgraph: funcgraph-retval does not exist before 6.5; use "
		"--compat=6.5 or later\n" TRY_HINT;
	struct bg_opts o;

	PARSE_OK(&o, "-G", "f", "--compat=6.1");
	assert_int_equal(o.flags, BG_O_DEFAULTS & ~BG_O_RETVAL);
	assert_int_equal(o.dialect, BG_DIALECT_6_1);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "--compat=5.15", "-O", "nofuncgraph-retval");
	assert_int_equal(o.flags & (BG_O_RETVAL | BG_O_RETVAL_HEX), 0);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "--compat=6.13", "-O", "funcgraph-retval-hex");
	assert_int_equal(o.flags, BG_O_DEFAULTS | BG_O_RETVAL_HEX);
	cli__free(&o);
	/* a later --compat replaces the 6.1 one before the check */
	PARSE_OK(&o, "-G", "f", "--compat=6.1", "-O", "funcgraph-retval",
		 "--compat=6.5");
	assert_true(o.flags & BG_O_RETVAL);
	cli__free(&o);

	assert_int_equal(PARSE(&o, "-G", "f", "--compat=6.1", "-O",
			       "funcgraph-retval"),
			 -EINVAL);
	assert_string_equal(errtext, msg);
	/* order does not matter: checked at the end */
	assert_int_equal(PARSE(&o, "-G", "f", "-O", "funcgraph-retval",
			       "--compat=4.19"),
			 -EINVAL);
	assert_string_equal(errtext, msg);
	EXPECT_USAGE("funcgraph-retval does not exist before 6.5", "-G", "f",
		     "--compat=6.1", "--graph-opts=retval");
	EXPECT_USAGE("funcgraph-retval-hex does not exist before 6.5", "-G",
		     "f", "--compat=6.1", "-O", "funcgraph-retval-hex");
}

/*
 * funcgraph-args and -retaddr: the newest dialect unless --compat says,
 * and an error before the version that has them.
 */
/* --args-detail: strings, fields or both, only with funcgraph-args. */
static void test_args_detail(void **state __maybe_unused)
{
	static const char *const bad[] = { "", "bad", "strings,", ",fields", "strings,strings",
					   "strings,fields,strings", "Strings", "strings fields" };
	struct bg_opts o;

	PARSE_OK(&o, "-G", "f", "-O", "funcgraph-args", "--args-detail=strings");
	assert_int_equal(o.flags & BG_O_DETAIL, BG_O_DETAIL_STR);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "--graph-opts=args", "--args-detail", "fields");
	assert_int_equal(o.flags & BG_O_DETAIL, BG_O_DETAIL_FIELDS);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "-O", "funcgraph-args", "--args-detail=fields,strings");
	assert_int_equal(o.flags & BG_O_DETAIL, BG_O_DETAIL);
	cli__free(&o);
	/* the last one counts */
	PARSE_OK(&o, "-G", "f", "-O", "funcgraph-args", "--args-detail=strings,fields",
		 "--args-detail=strings");
	assert_int_equal(o.flags & BG_O_DETAIL, BG_O_DETAIL_STR);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f");
	assert_int_equal(o.flags & BG_O_DETAIL, 0);
	cli__free(&o);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_USAGE("expected strings, fields or strings,fields", "-G", "f", "-O",
			     "funcgraph-args", "--args-detail", (char *)bad[i]);
	EXPECT_USAGE("--args-detail needs the arguments: add -O funcgraph-args", "-G", "f",
		     "--args-detail=strings");
	EXPECT_USAGE("--args-detail needs the arguments", "-G", "f", "-O",
		     "funcgraph-args,nofuncgraph-args", "--args-detail=fields");
}

static void test_compat_args(void **state __maybe_unused)
{
	struct bg_opts o;

	PARSE_OK(&o, "-G", "f", "-O", "funcgraph-args");
	assert_int_equal(o.dialect, BG_DIALECT_6_19);
	assert_true(o.flags & BG_O_ARGS);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "--graph-opts=retaddr");
	assert_int_equal(o.dialect, BG_DIALECT_6_19);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "-O", "funcgraph-args", "--compat=6.16");
	assert_int_equal(o.dialect, BG_DIALECT_6_15);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "-O", "funcgraph-retaddr", "--compat=6.13");
	assert_int_equal(o.dialect, BG_DIALECT_6_13);
	cli__free(&o);
	/* off again: the default dialect stays */
	PARSE_OK(&o, "-G", "f", "-O", "funcgraph-args", "-O", "nofuncgraph-args");
	assert_int_equal(o.dialect, BG_DIALECT_6_5);
	cli__free(&o);
	EXPECT_USAGE("funcgraph-args does not exist before 6.15; use --compat=6.15 or later",
		     "-G", "f", "--compat=6.13", "-O", "funcgraph-args");
	EXPECT_USAGE("funcgraph-retaddr does not exist before 6.13", "-G", "f",
		     "--graph-opts=retaddr", "--compat=6.12");
}

/* ---- output and other ------------------------------------------------- */

static void test_output_other(void **state __maybe_unused)
{
	struct bg_opts o;

	PARSE_OK(&o, "-G", "f", "-o", "trace.txt", "--no-header", "--dry-run",
		 "-v", "-vv", "--verbose");
	assert_string_equal(o.output, "trace.txt");
	assert_true(o.no_header);
	assert_true(o.dry_run);
	assert_int_equal(o.verbosity, 4);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "--output=-");
	assert_null(o.output);
	cli__free(&o);
	/* "-o --" is a file called "--", not the command separator */
	PARSE_OK(&o, "-o", "--", "-G", "f");
	assert_string_equal(o.output, "--");
	assert_int_equal(o.command_argc, 0);
	cli__free(&o);
	EXPECT_USAGE("invalid --output '': empty file name", "-G", "f", "-o",
		     "");
	EXPECT_USAGE("option '--no-header' doesn't allow an argument", "-G",
		     "f", "--no-header=1");
	/* --plan-file: a file to write, beside tracing (not --dry-run) */
	PARSE_OK(&o, "-G", "f", "--plan-file=p.txt");
	assert_string_equal(o.plan_file, "p.txt");
	assert_false(o.dry_run);
	cli__free(&o);
	EXPECT_USAGE("invalid --plan-file '': empty file name", "-G", "f", "--plan-file=");
}

/* --format=stat and --hist: parsed anywhere a trace is printed. */
static void test_stat_hist(void **state __maybe_unused)
{
	struct bg_opts o;
	FILE *null = fopen("/dev/null", "w");

	assert_non_null(null);
	PARSE_OK(&o, "-G", "f", "--format=stat", "--hist", "vfs_*", "--hist=f");
	assert_int_equal(o.format, BG_FMT_STAT);
	assert_int_equal(o.hist.n, 2);
	assert_string_equal(o.hist.v[0], "vfs_*");
	assert_string_equal(o.hist.v[1], "f");
	cli__free(&o);
	EXPECT_USAGE("invalid --format 'stats': expected text, json, chrome, folded, svg, stat or trace-cmd",
		     "-G", "f", "--format=stats");
	EXPECT_USAGE("invalid --hist '-x': expected a function name or glob", "-G", "f",
		     "--hist", "-x");
	assert_int_equal(cli__parse_cmd(&o, BG_CMD_REPORT, 5,
					(char *[]){ "report", "-i", "t.bgr", "--hist", "f", NULL },
					null), 0);
	assert_int_equal(o.hist.n, 1);
	cli__free(&o);
	/* record prints nothing to draw from unless --tee */
	assert_int_equal(cli__parse_cmd(&o, BG_CMD_RECORD, 6,
					(char *[]){ "record", "-o", "t.bgr", "-G", "f", "--hist",
						    "f", NULL }, null), -EINVAL);
	assert_int_equal(cli__parse_cmd(&o, BG_CMD_RECORD, 8,
					(char *[]){ "record", "-o", "t.bgr", "-G", "f", "--hist",
						    "f", "--tee", NULL }, null), 0);
	cli__free(&o);
	fclose(null);
}

/* --hook picks the tier by name; --kprobes is --hook=kprobe. */
static void test_hook(void **state __maybe_unused)
{
	static const struct {
		const char *arg;
		enum bg_hook hook;
	} ok[] = {
		{ "--hook=auto", BG_HOOK_AUTO }, { "--hook=kprobe-multi", BG_HOOK_KMULTI },
		{ "--hook=fentry", BG_HOOK_FENTRY }, { "--hook=kprobe", BG_HOOK_KPROBE },
		{ "--hook=fentry-multi", BG_HOOK_TMULTI },
		{ "--hook=kprobe-session", BG_HOOK_KSESSION },
		{ "--kprobes", BG_HOOK_KPROBE },
	};
	struct bg_opts o;

	PARSE_OK(&o, "-G", "f");
	assert_int_equal(o.hook, BG_HOOK_AUTO);
	cli__free(&o);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		PARSE_OK(&o, "-G", "f", (char *)ok[i].arg);
		assert_int_equal(o.hook, ok[i].hook);
		assert_string_equal(cli__hook_name(o.hook),
				    ok[i].hook == BG_HOOK_KPROBE ? "kprobe" : ok[i].arg + 7);
		cli__free(&o);
	}
	EXPECT_USAGE("invalid --hook 'trampoline': expected auto, kprobe-session, kprobe-multi, "
		     "fentry-multi, fentry or kprobe",
		     "-G", "f", "--hook=trampoline");
}

/* --locks: auto by default, hooked or callsites by name. */
static void test_locks(void **state __maybe_unused)
{
	struct bg_opts o;

	PARSE_OK(&o, "-G", "f");
	assert_int_equal(o.locks, BG_LOCKS_AUTO);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "--locks=hooked");
	assert_int_equal(o.locks, BG_LOCKS_HOOKED);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "--locks", "callsites");
	assert_int_equal(o.locks, BG_LOCKS_CALLSITES);
	cli__free(&o);
	EXPECT_USAGE("invalid --locks 'sites': expected auto, hooked or callsites", "-G", "f",
		     "--locks=sites");
}

/* Short options cluster and take attached arguments; long ones abbreviate. */
static void test_getopt_forms(void **state __maybe_unused)
{
	struct bg_opts o;

	PARSE_OK(&o, "-vvD3", "-Gf", "-t5", "--max-d", "4", "--cp=2", "--dry");
	assert_int_equal(o.verbosity, 2);
	assert_int_equal(o.max_depth, 4);
	assert_int_equal(o.thresh_ns, 5000);
	assert_string_equal(o.graph.v[0], "f");
	assert_true(cli__cpu_isset(&o, 2));
	assert_int_equal(o.nr_cpus, 1);
	assert_true(o.dry_run);
	cli__free(&o);
}

static void test_getopt_errors(void **state __maybe_unused)
{
	EXPECT_USAGE("invalid option -- 'Z'", "-G", "f", "-Z");
	EXPECT_USAGE("invalid option -- 'Z'", "-G", "f", "-vZ");
	EXPECT_USAGE("unrecognized option '--bogus'", "-G", "f", "--bogus=1");
	EXPECT_USAGE("invalid option -- 'Z'\nTry", "-G", "f", "-Z");
	EXPECT_USAGE("option '--c' is ambiguous", "-G", "f", "--c=1");
	EXPECT_USAGE("option '-G' requires an argument", "-G");
	EXPECT_USAGE("option '-D' requires an argument", "-G", "f", "-vD");
	EXPECT_USAGE("option '--max-depth' requires an argument", "-G", "f",
		     "--max-depth");
	EXPECT_USAGE("option '--graph-opts' requires an argument", "-G", "f",
		     "--graph-o");
	EXPECT_USAGE("option '--help' doesn't allow an argument", "--help=x");
}

/*
 * perf ftrace's and trace-cmd record's spellings (perf-ftrace(1),
 * trace-cmd-record(1)): the same meaning is taken as bpfgraph's option.
 */
static void test_other_tools_aliases(void **state __maybe_unused)
{
	struct bg_opts o;

	PARSE_OK(&o, "--graph-funcs=vfs_*", "--graph-funcs", "f", "--nograph-funcs=kmem_*",
		 "--max-graph-depth=3", "--tid=7,9", "-P", "8");
	assert_int_equal(o.graph.n, 2);
	assert_string_equal(o.graph.v[0], "vfs_*");
	assert_string_equal(o.graph.v[1], "f");
	assert_int_equal(o.notrace.n, 1);
	assert_string_equal(o.notrace.v[0], "kmem_*");
	assert_int_equal(o.max_depth, 3);
	assert_int_equal(o.nr_pids, 3);
	assert_int_equal(o.pids[0], 7);
	assert_int_equal(o.pids[1], 8);
	assert_int_equal(o.pids[2], 9);
	cli__free(&o);
	PARSE_OK(&o, "-Gf", "--graph-depth", "5", "-P9");
	assert_int_equal(o.max_depth, 5);
	assert_int_equal(o.nr_pids, 1);
	cli__free(&o);
	/* an alias's value is checked as bpfgraph's option, and named so */
	EXPECT_USAGE("invalid --max-depth '65'", "-Gf", "--max-graph-depth=65");
	EXPECT_USAGE("option '--tid' requires an argument", "-Gf", "--tid");
	/* ... and applies where bpfgraph's does */
	{
		char msg[256];
		FILE *f = fmemopen(msg, sizeof(msg), "w");

		assert_non_null(f);
		assert_int_equal(cli__parse_cmd(&o, BG_CMD_REPORT, 4,
						(char *[]){ "report", "-ix", "--graph-funcs=f",
							    "--max-graph-depth=2", NULL },
						f),
				 -EINVAL);
		fclose(f);
		assert_non_null(strstr(msg, "option '--graph-function' does not apply to report"));
		assert_int_equal(cli__parse_cmd(&o, BG_CMD_REPORT, 3,
						(char *[]){ "report", "-ix", "--max-graph-depth=2",
							    NULL },
						stderr),
				 0);
		assert_int_equal(o.max_depth, 2);
		cli__free(&o);
	}
}

/* One that differs, or that bpfgraph lacks: answered, exit status 2. */
static void test_other_tools_hints(void **state __maybe_unused)
{
	static const struct {
		const char *arg, *say;
	} hints[] = {
		{ "-g", "bpfgraph: -g is trace-cmd's spelling of bpfgraph's -G GLOB (graph a "
			"function) and perf ftrace's of bpfgraph's -x GLOB" },
		{ "-T", "perf ftrace's function tracer filter; bpfgraph graphs: -G GLOB" },
		{ "--trace-funcs=f", "-T/--trace-funcs is perf ftrace's" },
		{ "-l", "-l is trace-cmd's function tracer filter" },
		{ "-N", "bpfgraph's -x GLOB hides a function with what it calls" },
		{ "--notrace-funcs=f", "hiding it alone is not supported" },
		{ "-m", "bpfgraph's is -b SIZE" },
		{ "-M", "bpfgraph's is -C LIST" },
		{ "-F", "bpfgraph's: --dry-run -G GLOB" },
		{ "--funcs", "trace-cmd's trace-only-COMMAND" },
		{ "--tracer=function", "bpfgraph is a function_graph tracer" },
		{ "--all-cpus", "neither -p nor a COMMAND" },
		{ "--func-opts=irq-info", "its options are --graph-opts" },
		{ "-e", "trace events are not supported" },
		{ "--event=sched:*", "trace events are not supported" },
		{ "--delay=100", "a delayed start is not supported; bpfgraph's -D is --max-depth" },
	};
	char *argv[] = { "bpfgraph", "-G", "f", NULL, "--", "true", NULL };
	char msg[1024];
	struct bg_opts o;
	FILE *f;

	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
		argv[3] = (char *)hints[i].arg;
		f = fmemopen(msg, sizeof(msg), "w");
		assert_non_null(f);
		assert_int_equal(cli__parse(&o, 6, argv, f), -EINVAL);
		fclose(f);
		assert_int_equal(cli__exit_status(-EINVAL), BG_EXIT_USAGE);
		if (!strstr(msg, hints[i].say) || strncmp(msg, "bpfgraph: ", 10) ||
		    strstr(msg, "invalid option") || strstr(msg, "unrecognized"))
			fail_msg("%s: expected '%s', got: %s", hints[i].arg, hints[i].say, msg);
	}
	/* bpfgraph's own letters keep their meaning */
	PARSE_OK(&o, "-Gf", "-n", "bash", "-t", "5", "-D", "2", "-p", "3");
	assert_string_equal(o.comm, "bash");
	cli__free(&o);
}

/* ---- command, conflicts, subcommands ----------------------------------- */

static void test_command(void **state __maybe_unused)
{
	char **argv = ARGV("-G", "f", "-D", "2", "--", "ls", "-D", "99", "/");
	struct bg_opts o;

	assert_int_equal(parse_argv(&o, argv), 0);
	assert_int_equal(o.command_argc, 4);
	assert_ptr_equal(o.command, argv + 6);
	assert_string_equal(o.command[0], "ls");
	assert_null(o.command[4]);
	assert_int_equal(o.max_depth, 2); /* the command's -D is its own */
	cli__free(&o);

	argv = ARGV("-G", "f", "--", "--", "-x");
	assert_int_equal(parse_argv(&o, argv), 0);
	assert_int_equal(o.command_argc, 2);
	assert_ptr_equal(o.command, argv + 4);
	assert_string_equal(o.command[0], "--");
	cli__free(&o);

	EXPECT_USAGE("unexpected argument 'ls' (a COMMAND goes after --)", "-G",
		     "f", "ls", "-l");
	EXPECT_USAGE("unexpected argument 'x'", "x", "-G", "f");
	EXPECT_USAGE("missing COMMAND after --", "-G", "f", "--");
}

static void test_conflicts(void **state __maybe_unused)
{
	struct bg_opts o;

	EXPECT_USAGE("no entry function: use -G FUNC");
	EXPECT_USAGE("no entry function: use -G FUNC", "-a", "f", "-x", "g");
	EXPECT_USAGE("no entry function: use -G FUNC", "--", "ls");
	EXPECT_USAGE("-p/--pid and a COMMAND exclude each other", "-G", "f",
		     "-p", "1", "--", "ls");
	/* allowed together */
	PARSE_OK(&o, "-G", "f", "-n", "ls", "-d", "1", "-t", "1", "-D", "1",
		 "-C", "0", "--", "ls");
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "-p", "1", "-n", "x", "-C", "1");
	cli__free(&o);
}

/* --no-optimizer-hold: a flag, off by default, for every way of tracing. */
static void test_no_optimizer_hold(void **state __maybe_unused)
{
	struct bg_opts o;

	PARSE_OK(&o, "-G", "f", "--", "ls");
	assert_false(o.no_opt_hold);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "--no-optimizer-hold", "-p", "7");
	assert_true(o.no_opt_hold);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "--no-optimizer-hold");
	assert_true(o.no_opt_hold);
	cli__free(&o);
	EXPECT_USAGE("option '--no-optimizer-hold' doesn't allow an argument", "-G", "f",
		     "--no-optimizer-hold=1");
}

/* --inherit follows the tasks of -p or of a COMMAND: it needs one of them. */
static void test_inherit(void **state __maybe_unused)
{
	struct bg_opts o;
	char msg[256];
	FILE *f;

	PARSE_OK(&o, "-G", "f", "--", "ls");
	assert_false(o.inherit);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "--inherit", "--", "ls");
	assert_true(o.inherit);
	assert_int_equal(o.command_argc, 1);
	cli__free(&o);
	PARSE_OK(&o, "-G", "f", "-p", "7,8", "--inherit");
	assert_true(o.inherit);
	assert_int_equal(o.nr_pids, 2);
	cli__free(&o);
	/* trace-cmd record's -c means the same */
	PARSE_OK(&o, "-G", "f", "-c", "-P", "7");
	assert_true(o.inherit);
	assert_int_equal(o.nr_pids, 1);
	cli__free(&o);
	PARSE_OK(&o, "-cGf", "--", "ls");
	assert_true(o.inherit);
	assert_int_equal(o.graph.n, 1);
	cli__free(&o);
	EXPECT_USAGE("--inherit follows the tasks of -p PID or of a COMMAND: give one of them",
		     "-G", "f", "--inherit");
	EXPECT_USAGE("--inherit follows the tasks of -p PID or of a COMMAND", "-G", "f", "-c",
		     "-n", "ls");
	EXPECT_USAGE("option '--inherit' doesn't allow an argument", "-G", "f", "--inherit=1",
		     "--", "ls");
	/* record too; report has no tasks to follow */
	assert_int_equal(cli__parse_cmd(&o, BG_CMD_RECORD, 6,
					(char *[]){ "record", "-Gf", "-ot", "--inherit", "--",
						    "ls", NULL },
					stderr),
			 0);
	assert_true(o.inherit);
	cli__free(&o);
	f = fmemopen(msg, sizeof(msg), "w");
	assert_non_null(f);
	assert_int_equal(cli__parse_cmd(&o, BG_CMD_REPORT, 3,
					(char *[]){ "report", "-ix", "--inherit", NULL }, f),
			 -EINVAL);
	fclose(f);
	assert_non_null(strstr(msg, "option '--inherit' does not apply to report"));
}

static void test_subcommands(void **state __maybe_unused)
{
	static const struct {
		const char *word;
		enum bg_cmd cmd;
	} map[] = {
		{ "diff", BG_CMD_DIFF },
		{ "record", BG_CMD_RECORD },
		{ "report", BG_CMD_REPORT },
	};
	struct bg_opts o;
	char **argv;
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		argv = ARGV((char *)map[i].word, "A", "--bogus", "B");
		assert_int_equal(parse_argv(&o, argv), 0);
		assert_string_equal(errtext, "");
		assert_int_equal(o.cmd, map[i].cmd);
		assert_ptr_equal(o.sub_argv, argv + 1);
		assert_int_equal(o.sub_argc, 4);
		assert_string_equal(o.sub_argv[0], map[i].word);
		assert_null(o.sub_argv[4]);
		assert_int_equal(o.graph.n, 0);
		cli__free(&o);
	}
	PARSE_OK(&o, "diff");
	assert_int_equal(o.cmd, BG_CMD_DIFF);
	assert_int_equal(o.sub_argc, 1);
	cli__free(&o);
	/* only the first argument names a subcommand */
	EXPECT_USAGE("unexpected argument 'diff'", "-v", "diff", "a", "b");
	PARSE_OK(&o, "-G", "f", "--", "diff", "a", "b");
	assert_int_equal(o.cmd, BG_CMD_TRACE);
	cli__free(&o);
	EXPECT_USAGE("unexpected argument 'Diff'", "Diff");

	/* record can reuse the trace options on its own argv */
	argv = ARGV("record", "-G", "f", "-D", "3");
	assert_int_equal(parse_argv(&o, argv), 0);
	assert_int_equal(parse_argv(&o, o.sub_argv), 0);
	assert_int_equal(o.cmd, BG_CMD_TRACE);
	assert_int_equal(o.max_depth, 3);
	cli__free(&o);
}

/* ---- results, help, version, re-entrancy ------------------------------- */

static void test_exit_status(void **state __maybe_unused)
{
	struct bg_opts o;
	char out[256];

	assert_int_equal(cli__exit_status(0), BG_EXIT_OK);
	assert_int_equal(cli__exit_status(1), BG_EXIT_OK);
	assert_int_equal(cli__exit_status(-EINVAL), BG_EXIT_USAGE);
	assert_int_equal(cli__exit_status(-ENOMEM), BG_EXIT_FAILURE);
	assert_int_equal(BG_EXIT_USAGE, 2);
	assert_int_equal(BG_EXIT_FAILURE, 1);

	assert_int_equal(cli__exit_status(PARSE(&o, "-G", "f")), 0);
	cli__free(&o);
	assert_int_equal(cli__exit_status(PARSE(&o, "-D", "x")), 2);
	assert_int_equal(cli__exit_status(parse_stdout(ARGV("-V"), out,
						       sizeof(out))),
			 0);
}

static void check_help(const char *text)
{
	static const char *const parts[] = {
		"Usage: bpfgraph [OPTIONS] -G FUNC",
		"\nSelection:\n",
		"\nFilters:\n",
		"\nOutput:\n",
		"\nOther:\n",
		"\nExamples:\n",
		"  -G, --graph-function=GLOB ",
		"  -- COMMAND [ARG]... ",
		"bpfgraph diff|record|report",
	};
	const char *line = text, *nl;
	size_t i;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (!strstr(text, parts[i]))
			fail_msg("--help lacks '%s'", parts[i]);
	for (; (nl = strchr(line, '\n')); line = nl + 1) {
		if (nl - line >= 80)
			fail_msg("--help line of %d columns: %.*s",
				 (int)(nl - line), (int)(nl - line), line);
		if (nl > line && (nl[-1] == ' ' || nl[-1] == '\t'))
			fail_msg("trailing space: %.*s", (int)(nl - line), line);
		if (memchr(line, '\t', (size_t)(nl - line)))
			fail_msg("tab in --help: %.*s", (int)(nl - line), line);
	}
	assert_string_equal(line, ""); /* ends with a newline */
}

static void test_help(void **state __maybe_unused)
{
	char usage[16384], out[16384], needle[64];
	const char *at, *nl;
	size_t i;

	usage_text(usage, sizeof(usage));
	check_help(usage);
	assert_int_equal(parse_stdout(ARGV("-h"), out, sizeof(out)), 1);
	assert_string_equal(out, usage);
	assert_string_equal(errtext, "");
	assert_int_equal(parse_stdout(ARGV("--help"), out, sizeof(out)), 1);
	assert_string_equal(out, usage);
	/* help wins over what follows it, not over what precedes it */
	assert_int_equal(parse_stdout(ARGV("-h", "-Z"), out, sizeof(out)), 1);
	assert_int_equal(parse_stdout(ARGV("-Z", "-h"), out, sizeof(out)),
			 -EINVAL);
	assert_string_equal(out, "");
	/* -O names with their defaults */
	for (i = 0; i < cli__nr_trace_opts(); i++) {
		snprintf(needle, sizeof(needle), "\n  %s ",
			 cli__trace_opt_name(i));
		at = strstr(usage, needle);
		assert_non_null(at);
		nl = strchr(at + 1, '\n');
		assert_int_equal(!!(BG_O_DEFAULTS & cli__trace_opt_flag(i)),
				 !memcmp(nl - 4, "[on]", 4));
	}
}

static void test_version(void **state __maybe_unused)
{
	char out[256];

	assert_int_equal(parse_stdout(ARGV("-V"), out, sizeof(out)), 1);
	assert_string_equal(out, "bpfgraph " BG_VERSION "\n");
	assert_string_equal(errtext, "");
	assert_int_equal(parse_stdout(ARGV("--version", "-G", "f"), out,
				      sizeof(out)),
			 1);
	assert_string_equal(out, "bpfgraph " BG_VERSION "\n");
}

/* getopt state must not leak from one parse (a failed one) to the next. */
static void test_reentrant(void **state __maybe_unused)
{
	struct bg_opts o;

	EXPECT_USAGE("invalid option", "-G", "f", "-Z", "-D", "3");
	PARSE_OK(&o, "-D", "5", "-G", "g");
	assert_int_equal(o.max_depth, 5);
	assert_int_equal(o.graph.n, 1);
	cli__free(&o);
	EXPECT_USAGE("invalid option -- 'Q'", "-vQ");
	PARSE_OK(&o, "-v", "-G", "g");
	assert_int_equal(o.verbosity, 1);
	cli__free(&o);
	cli__free(&o); /* twice is fine */
	/* o need not be initialised: it is reset, not merged into */
	memset(&o, 0xa5, sizeof(o));
	PARSE_OK(&o, "-G", "h");
	assert_int_equal(o.verbosity, 0);
	assert_int_equal(o.nr_cpus, 0);
	assert_int_equal(o.flags, BG_O_DEFAULTS);
	cli__free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_default_flags),
		cmocka_unit_test(test_globs),
		cmocka_unit_test(test_glob_errors),
		cmocka_unit_test(test_callee_depth_max_funcs),
		cmocka_unit_test(test_first_calls),
		cmocka_unit_test(test_wide_wait),
		cmocka_unit_test(test_max_depth),
		cmocka_unit_test(test_number_garbage),
		cmocka_unit_test(test_thresh),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_buffer_size),
		cmocka_unit_test(test_pids),
		cmocka_unit_test(test_pids_limit),
		cmocka_unit_test(test_cpus),
		cmocka_unit_test(test_comm),
		cmocka_unit_test(test_trace_opt_table),
		cmocka_unit_test(test_trace_opts_each),
		cmocka_unit_test(test_trace_opts_lists),
		cmocka_unit_test(test_graph_opts),
		cmocka_unit_test(test_compat),
		cmocka_unit_test(test_compat_retval),
		cmocka_unit_test(test_compat_args),
		cmocka_unit_test(test_args_detail),
		cmocka_unit_test(test_output_other),
		cmocka_unit_test(test_stat_hist),
		cmocka_unit_test(test_hook),
		cmocka_unit_test(test_locks),
		cmocka_unit_test(test_getopt_forms),
		cmocka_unit_test(test_getopt_errors),
		cmocka_unit_test(test_other_tools_aliases),
		cmocka_unit_test(test_other_tools_hints),
		cmocka_unit_test(test_command),
		cmocka_unit_test(test_conflicts),
		cmocka_unit_test(test_inherit),
		cmocka_unit_test(test_no_optimizer_hold),
		cmocka_unit_test(test_subcommands),
		cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_reentrant),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
