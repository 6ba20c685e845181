// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ftrace net's tracefs side (user/hook/ftnet.h) on a fake tracefs in
 * a temporary directory: what it refuses, what it sets, the records it
 * reads from a per-CPU page, and that every setting is put back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpfgraph.h"
#include "ftnet.h"
#include "ftpage.h"

static char root[64];

static void put(const char *file, const void *data, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, file);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void put_text(const char *file, const char *text)
{
	put(file, text, strlen(text));
}

static const char *get(const char *file)
{
	static char buf[4096];
	char path[256];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, file);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

static void mkdirs(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static void le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * A page as trace_pipe_raw gives it: 6.1's layout (header_page below),
 * events behind their 4-byte headers. Returns the data's length.
 */
static uint32_t event(uint8_t *page, uint32_t at, uint32_t delta, uint16_t id, uint8_t flags,
		      int pid, uint64_t func, int depth, uint64_t calltime, uint64_t rettime)
{
	uint8_t *d = page + 16 + at + 4;
	uint32_t len = id == 11 ? 20 : 40;

	le(page + 16 + at, (len / 4) | (uint64_t)delta << 5, 4);
	le(d, id, 2);
	d[2] = flags;
	le(d + 4, (uint64_t)pid, 4);
	le(d + 8, func, 8);
	le(d + 16, (uint64_t)depth, 4);
	if (id == 10) {
		le(d + 24, calltime, 8);
		le(d + 32, rettime, 8);
	}
	return at + 4 + len;
}

static void fake_tracefs(const char *tracer, const char *events, const char *tracers)
{
	uint8_t pages[2 * 4096] = { 0 }, *page = pages;
	uint32_t n = 0;

	strcpy(root, "/tmp/bg-ftnet-XXXXXX");
	assert_non_null(mkdtemp(root));
	mkdirs("options");
	mkdirs("events");
	mkdirs("events/ftrace");
	mkdirs("events/ftrace/funcgraph_entry");
	mkdirs("events/ftrace/funcgraph_exit");
	mkdirs("per_cpu");
	mkdirs("per_cpu/cpu0");
	mkdirs("per_cpu/cpu1");
	put_text("available_tracers", tracers);
	put_text("current_tracer", tracer);
	put_text("set_event", events);
	put_text("set_ftrace_pid", "no pid\n");
	put_text("set_ftrace_filter", "#### all functions enabled ####\n");
	put_text("set_ftrace_notrace", "");
	put_text("set_graph_function", "#### all functions enabled ####\n");
	put_text("set_graph_notrace", "#### no functions disabled ####\n");
	put_text("trace_clock", "[local] global counter uptime perf mono mono_raw boot\n");
	put_text("tracing_on", "1\n");
	put_text("trace", "");
	put_text("max_graph_depth", "0\n");
	put_text("options/function-fork", "0\n");
	put_text("options/funcgraph-irqs", "1\n");
	put_text("options/overwrite", "1\n");
	put_text("events/header_page",
		 "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		 "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		 "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		 "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n");
	put_text("events/ftrace/funcgraph_entry/format",
		 "name: funcgraph_entry\nID: 11\nformat:\n"
		 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		 "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
		 "\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n");
	put_text("events/ftrace/funcgraph_exit/format",
		 "name: funcgraph_exit\nID: 10\nformat:\n"
		 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		 "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
		 "\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n"
		 "\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
		 "\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
		 "\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n");
	/* CPU 0: a call and its return 300 ns later (it lasted 250 ns by calltime/rettime). */
	le(page, 1000000, 8);
	n = event(page, n, 0, 11, 0, 42, 0xffffffff81000000ULL, 0, 0, 0);
	n = event(page, n, 300, 10, 0, 42, 0xffffffff81000000ULL, 0, 100, 350);
	le(page + 8, n, 8);
	/* Its next page: 7 events dropped before it (the count stored after the data), one entry. */
	page = pages + 4096;
	le(page, 1100000, 8);
	n = event(page, 0, 0, 11, 0, 42, 0xffffffff81000000ULL, 1, 0, 0);
	le(page + 16 + n, 7, 8);
	le(page + 8, n | FTP_MISSED_EVENTS | FTP_MISSED_STORED, 8);
	put("per_cpu/cpu0/trace_pipe_raw", pages, sizeof(pages));
	page = pages;
	/* CPU 1: a time extend, then an entry in a hard interrupt. */
	memset(page, 0, 4096);
	le(page, 2000000, 8);
	le(page + 16, FTP_TYPE_TIME_EXTEND | (uint64_t)5 << 5, 4);
	le(page + 20, 1, 4); /* 5 + (1 << 27) */
	n = event(page, 8, 7, 11, FTP_FLAG_HARDIRQ, 43, 0xffffffff81000100ULL, 3, 0, 0);
	le(page + 8, n, 8);
	put("per_cpu/cpu1/trace_pipe_raw", page, 4096);
}

static void cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

struct seen {
	struct bg_rec r[8];
	uint64_t addr[8];
	uint32_t flags[8];
	int n;
	uint32_t lost_cpu;
	uint64_t lost;
};

static void lost(void *ctx, uint32_t cpu, uint64_t count)
{
	struct seen *s = ctx;

	s->lost_cpu = cpu;
	s->lost += count;
}

static int take(void *ctx, struct bg_rec *r, uint64_t addr, uint32_t flags)
{
	struct seen *s = ctx;

	assert_true(s->n < 8);
	s->r[s->n] = *r;
	s->addr[s->n] = addr;
	s->flags[s->n++] = flags;
	return 0;
}

static char *graph[] = { "do_sys_openat2", "vfs_read" };

static struct ftnet *open_net(char *why, size_t cap)
{
	struct ftnet_opts o = { .graph = graph, .ngraph = 2, .pid = 42, .irqs = false,
				.max_depth = 3, .root = root };

	return ftnet__new(&o, why, cap);
}

static void test_ftnet_sets_reads_restores(void **state)
{
	struct seen s = { .n = 0 };
	const struct ftnet_sink sink = { .take = take, .lost = lost, .ctx = &s };
	char why[256] = "";
	struct ftnet *n;

	(void)state;
	fake_tracefs("nop\n", "", "blk function_graph function nop\n");
	n = open_net(why, sizeof(why));
	assert_non_null(n);
	assert_string_equal(get("set_graph_function"), "do_sys_openat2 vfs_read ");
	assert_string_equal(get("set_ftrace_pid"), "42");
	assert_string_equal(get("options/function-fork"), "1");
	assert_string_equal(get("options/funcgraph-irqs"), "0");
	assert_string_equal(get("max_graph_depth"), "3");
	assert_string_equal(get("trace_clock"), "mono");
	assert_string_equal(get("tracing_on"), "0");
	assert_string_equal(get("options/overwrite"), "0");
	assert_int_equal(ftnet__start(n), 0);
	assert_string_equal(get("current_tracer"), "function_graph");
	assert_string_equal(get("tracing_on"), "1");

	/* A page of each CPU at most: CPU 0's second waits for the next read. */
	assert_int_equal(ftnet__read(n, 1, &sink), 3);
	/* the CPUs in the order the directory lists them: find each */
	for (int i = 0; i < s.n; i++) {
		const struct bg_rec *r = &s.r[i];

		if (r->cpu == 1) {
			assert_int_equal(bg_rec_type(r), BG_REC_ENTRY);
			assert_int_equal(r->ts, 2000000 + 5 + (1ULL << 27) + 7);
			assert_int_equal(r->depth, 3);
			assert_int_equal(r->pid, 43);
			assert_true(s.flags[i] & FTP_FLAG_HARDIRQ);
			assert_int_equal(s.addr[i], 0xffffffff81000100ULL);
		} else if (bg_rec_type(r) == BG_REC_ENTRY) {
			assert_int_equal(r->ts, 1000000);
			assert_int_equal(r->pid, 42);
			assert_int_equal(r->depth, 0);
			assert_int_equal(s.flags[i], 0);
		} else {
			assert_int_equal(bg_rec_type(r), BG_REC_EXIT);
			assert_int_equal(r->ts, 1000300);
			assert_int_equal(bg_rec_dur_ns(r), 250);
			assert_int_equal(s.addr[i], 0xffffffff81000000ULL);
		}
	}
	assert_int_equal(ftnet__lost(n), 0);
	assert_int_equal(s.lost, 0);
	assert_int_equal(ftnet__read(n, 0, &sink), 1);
	assert_int_equal(s.r[3].depth, 1);
	assert_int_equal(s.r[3].ts, 1100000);
	assert_int_equal(s.lost, 7);
	assert_int_equal(s.lost_cpu, 0);
	assert_int_equal(ftnet__lost(n), 7);
	assert_int_equal(ftnet__read(n, 0, &sink), 0);
	assert_int_equal(ftnet__stop(n), 0);
	assert_string_equal(get("tracing_on"), "0");

	ftnet__free(n);
	assert_string_equal(get("current_tracer"), "nop");
	assert_string_equal(get("set_graph_function"), "");
	assert_string_equal(get("set_ftrace_pid"), "");
	assert_string_equal(get("options/function-fork"), "0");
	assert_string_equal(get("options/funcgraph-irqs"), "1");
	assert_string_equal(get("options/overwrite"), "1");
	assert_string_equal(get("max_graph_depth"), "0");
	assert_string_equal(get("trace_clock"), "local");
	assert_string_equal(get("tracing_on"), "1");
	cleanup();
}

/* Its owner killed with the net open: the guard process puts tracefs back. */
static void test_ftnet_guard_restores(void **state)
{
	char why[256] = "";
	int status, i;
	pid_t pid;

	(void)state;
	fake_tracefs("nop\n", "", "function_graph nop\n");
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct ftnet *n = open_net(why, sizeof(why));

		_exit(!n || ftnet__start(n) ? 1 : 0); /* never freed: as if killed */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* The guard works on its own time: up to 5 s. */
	for (i = 0; i < 500 && strcmp(get("trace_clock"), "local"); i++)
		usleep(10000);
	usleep(50000);
	assert_string_equal(get("trace_clock"), "local");
	assert_string_equal(get("current_tracer"), "nop");
	assert_string_equal(get("set_graph_function"), "");
	assert_string_equal(get("set_ftrace_pid"), "");
	assert_string_equal(get("options/function-fork"), "0");
	assert_string_equal(get("tracing_on"), "1");
	cleanup();
}

/*
 * Without a command: -p's process by its threads (this test's one), no
 * children; system-wide, bpfgraph itself left out with the threads it
 * makes later; both put back.
 */
static void test_ftnet_without_command(void **state)
{
	uint32_t me = (uint32_t)getpid();
	char why[256] = "", want[32];
	struct ftnet_opts o = { .graph = graph, .ngraph = 1, .pids = &me, .npids = 1,
				.root = root };
	struct ftnet *n;

	(void)state;
	snprintf(want, sizeof(want), "%u ", me);
	fake_tracefs("nop\n", "", "function_graph nop\n");
	put_text("set_ftrace_notrace_pid", "no pid\n");
	n = ftnet__new(&o, why, sizeof(why));
	assert_non_null(n);
	assert_string_equal(get("set_ftrace_pid"), want);
	assert_string_equal(get("options/function-fork"), "0");
	assert_string_equal(get("set_ftrace_notrace_pid"), "no pid\n");
	ftnet__free(n);
	assert_string_equal(get("set_ftrace_pid"), "");
	assert_string_equal(get("options/function-fork"), "0");
	cleanup();

	fake_tracefs("nop\n", "", "function_graph nop\n");
	put_text("set_ftrace_notrace_pid", "no pid\n");
	o.npids = 0;
	o.self = (pid_t)me;
	n = ftnet__new(&o, why, sizeof(why));
	assert_non_null(n);
	assert_string_equal(get("set_ftrace_pid"), "no pid\n");
	assert_string_equal(get("set_ftrace_notrace_pid"), want);
	assert_string_equal(get("options/function-fork"), "1");
	ftnet__free(n);
	assert_string_equal(get("set_ftrace_notrace_pid"), "");
	assert_string_equal(get("options/function-fork"), "0");
	cleanup();

	/* Someone else's notrace pid: the instance is not free. */
	fake_tracefs("nop\n", "", "function_graph nop\n");
	put_text("set_ftrace_notrace_pid", "123\n");
	assert_null(ftnet__new(&o, why, sizeof(why)));
	assert_non_null(strstr(why, "set_ftrace_notrace_pid is set"));
	cleanup();
}

/* Refused: nothing written, the reason said. */
static void refused(const char *tracer, const char *events, const char *tracers,
		    const char *reason)
{
	char why[256] = "";

	fake_tracefs(tracer, events, tracers);
	assert_null(open_net(why, sizeof(why)));
	assert_non_null(strstr(why, reason));
	assert_string_equal(get("tracing_on"), "1\n");
	assert_string_equal(get("trace_clock"),
			    "[local] global counter uptime perf mono mono_raw boot\n");
	assert_string_equal(get("set_graph_function"), "#### all functions enabled ####\n");
	cleanup();
}

static void test_ftnet_refuses_busy_or_missing(void **state)
{
	(void)state;
	refused("function\n", "", "function_graph function nop\n", "runs the function tracer");
	refused("nop\n", "sched:sched_switch\n", "function_graph nop\n", "events are enabled");
	refused("nop\n", "", "function nop\n", "no function_graph tracer");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ftnet_sets_reads_restores),
		cmocka_unit_test(test_ftnet_refuses_busy_or_missing),
		cmocka_unit_test(test_ftnet_guard_restores),
		cmocka_unit_test(test_ftnet_without_command),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
