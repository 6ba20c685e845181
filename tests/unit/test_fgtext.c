// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * function_graph text reader tests: the real captures of
 * tests/golden/seeds/ read and written back byte for byte, small inputs of
 * every dialect of docs/function-graph-format.md likewise, what the reader
 * makes of them, and the line numbers of malformed input.
 */
#include <errno.h>
#include <inttypes.h>

#include "golden.h"

#include "fgtext.h"

#define SEED_000 "seeds/000_552e225c0d5c94bb.txt"
#define SEED_001 "seeds/001_42a8f16914de080a.txt"
#define SEED_002 "seeds/002_76c6522b3146f63d.txt"
#define SEED_003 "seeds/003_9ac0de771dae3076.txt"
#define SEED_004 "seeds/004_cf19708d00924ebb.txt"

/* --- helpers ------------------------------------------------------------- */

static FILE *open_text(const char *text, size_t len)
{
	/* fmemopen() refuses a zero size */
	FILE *f = len ? fmemopen((void *)text, len, "r") : fopen("/dev/null", "r");

	assert_non_null(f);
	return f;
}

static struct fgtext_doc *load_opts(const char *text, size_t len, const struct fgtext_opts *o,
				    uint32_t *errline)
{
	FILE *f = open_text(text, len);
	struct fgtext_doc *d = fgtext__load(f, o, errline);

	fclose(f);
	return d;
}

static struct fgtext_doc *load(const char *text)
{
	struct fgtext_opts o = { .name = "test" };
	struct fgtext_doc *d = load_opts(text, strlen(text), &o, NULL);

	assert_non_null(d);
	return d;
}

/* What fgtext__write() prints for d; free() it. */
static char *write_doc(const struct fgtext_doc *d, size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);

	assert_non_null(m);
	assert_int_equal(fgtext__write(d, m), 0);
	assert_int_equal(fclose(m), 0);
	return buf;
}

/* Read, write back, same bytes; verbatim = events the writer could not print. */
static void check_roundtrip(const char *name, const char *text, size_t len, uint64_t verbatim)
{
	struct fgtext_opts o = { .name = name, .err = stderr };
	struct fgtext_doc *d = load_opts(text, len, &o, NULL);
	size_t olen;
	char *out;

	if (!d)
		fail_msg("%s: not read", name);
	out = write_doc(d, &olen);
	if (olen != len || memcmp(out, text, len)) {
		struct golden_lines a, b;

		fprintf(stderr, "%s: written text differs\n", name);
		golden_split(text, len, &a);
		golden_split(out, olen, &b);
		golden_diff(&a, &b);
		free(a.s);
		free(a.len);
		free(b.s);
		free(b.len);
		fail();
	}
	if (d->stats->verbatim != verbatim)
		fail_msg("%s: %" PRIu64 " events kept verbatim, expected %" PRIu64, name,
			 d->stats->verbatim, verbatim);
	assert_int_equal(d->stats->unparsed, 0);
	free(out);
	fgtext__doc_free(d);
}

static const struct gev *nth_event(const struct fgtext_doc *d, size_t n)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->ev[i].kind == FGT_EVENT && !n--)
			return &d->ev[i].ev;
	fail_msg("no event %zu", n);
	return NULL;
}

static const char *fname(const struct fgtext_doc *d, uint32_t func)
{
	assert_true(func < d->funcs->n);
	return d->funcs->f[func].display;
}

/* --- seeds ------------------------------------------------------------------ */

static char *slurp_golden(const char *rel, size_t *len)
{
	char *path = golden_path(rel);
	char *buf = golden_slurp(path, len);

	if (!buf)
		fail_msg("cannot read %s", path);
	free(path);
	return buf;
}

/* FNV-1a, 64 bits: enough to notice any change to a capture. */
static uint64_t fnv1a64(const char *p, size_t len)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)p[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

/*
 * The captures stay byte for byte what the tools wrote (004 even without
 * its final newline): an editor that "fixed" them would let every test
 * below pass on text no kernel printed.
 */
static void test_seed_copies(void **state)
{
	static const struct {
		const char *rel;
		size_t len;
		uint64_t fnv;
	} seeds[] = {
		{ SEED_000, 35001, UINT64_C(0xf7a2dd327312a4dc) },
		{ SEED_001, 16495, UINT64_C(0x01e2a8566ab1ae4b) },
		{ SEED_002, 35187, UINT64_C(0xa45576f5a9f8d870) },
		{ SEED_003, 18795, UINT64_C(0xf0fa6eaa0b2fec85) },
		{ SEED_004, 106830, UINT64_C(0x222ab8278ca98a1a) },
	};

	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		size_t len;
		char *text = slurp_golden(seeds[i].rel, &len);

		if (len != seeds[i].len || fnv1a64(text, len) != seeds[i].fnv)
			fail_msg("%s: %zu bytes, FNV-1a %#" PRIx64 "; the capture has %zu bytes, %#" PRIx64,
				 seeds[i].rel, len, fnv1a64(text, len), seeds[i].len, seeds[i].fnv);
		free(text);
	}
}

static struct fgtext_doc *roundtrip_seed(const char *rel, char **text)
{
	struct fgtext_opts o = { .name = rel, .err = stderr };
	size_t len;
	struct fgtext_doc *d;

	*text = slurp_golden(rel, &len);
	check_roundtrip(rel, *text, len, 0);
	d = load_opts(*text, len, &o, NULL);
	assert_non_null(d);
	return d;
}

/* 3.x tracefs "trace": header, modules, an irq at the same depth, an orphan "}". */
static void test_seed_000(void **state)
{
	char *text;
	struct fgtext_doc *d = roundtrip_seed(SEED_000, &text);
	const struct fgtext_layout *l = d->layout;

	assert_int_equal(d->stats->lines, 457);
	assert_int_equal(d->stats->calls, 307);
	assert_int_equal(d->stats->other, 0);
	assert_true(l->header);
	assert_int_equal(l->cpu_width, 3);
	assert_int_equal(l->dialect, BG_DIALECT_6_1);
	assert_int_equal(l->flags & (BG_O_CPU | BG_O_DURATION | BG_O_PROC | BG_O_ABSTIME),
			 BG_O_CPU | BG_O_DURATION);
	assert_true(l->flags & BG_O_OVERHEAD);
	assert_true(l->known & BG_O_OVERHEAD);
	assert_true(l->final_newline);
	/* line 5: "  15)               |  SyS_write() {" */
	assert_int_equal(d->ev[4].line, 5);
	assert_int_equal(d->ev[4].ev.type, GEV_ENTER);
	assert_int_equal(d->ev[4].ev.cpu, 15);
	assert_string_equal(fname(d, d->ev[4].ev.func), "SyS_write");
	/* module functions are split into name and module */
	assert_true(functab__find(d->funcs, "nf_conntrack_in", "nf_conntrack") >= 0);
	/* line 122: "} / * __local_bh_enable_ip * /" after an irq at its depth */
	for (size_t i = 0; i < d->n; i++) {
		if (d->ev[i].line != 122)
			continue;
		assert_int_equal(d->ev[i].ev.type, GEV_EXIT);
		assert_true(d->ev[i].ev.tail);
		assert_int_equal(d->ev[i].ev.dur, 35);
		assert_string_equal(fname(d, d->ev[i].ev.func), "__local_bh_enable_ip");
	}
	fgtext__doc_free(d);
	free(text);
}

/* perf ftrace with funcgraph-retval (6.5 form) after a shell prompt. */
static void test_seed_001(void **state)
{
	char *text;
	struct fgtext_doc *d = roundtrip_seed(SEED_001, &text);

	assert_int_equal(d->ev[0].kind, FGT_TEXT);
	assert_int_equal(d->ev[1].kind, FGT_HEADER);
	assert_int_equal(d->layout->dialect, BG_DIALECT_6_5);
	assert_true(d->layout->flags & BG_O_RETVAL);
	assert_false(d->layout->flags & BG_O_RETVAL_HEX);
	assert_true(d->layout->known & BG_O_RETVAL_HEX);
	assert_int_equal(d->layout->cpu_width, 2);
	assert_int_equal(d->stats->calls, 169);
	for (size_t i = 0; i < d->n; i++) {
		const struct fgtext_ev *e = &d->ev[i];

		if (e->line == 31) { /* tcp_stream_memory_free(); / * = -255 * / */
			assert_true(e->has_ret);
			assert_int_equal((int64_t)e->ev.ret, -255);
		}
		if (e->line == 11) { /* } / * sockfd_lookup_light = 0xffff8de84145a100 * / */
			assert_int_equal(e->ev.type, GEV_EXIT);
			assert_int_equal(e->ev.ret, 0xffff8de84145a100ULL);
			assert_false(e->ev.tail); /* its entry was seen */
		}
	}
	fgtext__doc_free(d);
	free(text);
}

/* perf-tools funcgraph: "Tracing ..." line, 3-digit CPU column, no final newline. */
static void test_seed_002_003(void **state)
{
	char *text;
	struct fgtext_doc *d = roundtrip_seed(SEED_002, &text);

	assert_int_equal(d->stats->other, 2);
	assert_string_equal(d->ev[1].text, "Tracing \"udp_sendmsg\"... Ctrl-C to end.");
	assert_false(d->layout->final_newline);
	assert_false(d->layout->header);
	assert_int_equal(d->layout->cpu_width, 3);
	assert_int_equal(nth_event(d, 0)->cpu, 4);
	fgtext__doc_free(d);
	free(text);
	d = roundtrip_seed(SEED_003, &text);
	assert_int_equal(d->ev[0].kind, FGT_HEADER); /* "# ./funcgraph udp_sendmsg" */
	assert_int_equal(nth_event(d, 0)->cpu, 6);
	assert_false(d->layout->final_newline);
	fgtext__doc_free(d);
	free(text);
}

/* Lines joined by spaces with commentary: read, counted, and readable again. */
static void test_seed_004(void **state)
{
	struct fgtext_opts o = { .name = SEED_004, .err = stderr };
	size_t len, olen, olen2;
	char *text = slurp_golden(SEED_004, &len), *out, *out2;
	struct fgtext_doc *d = load_opts(text, len, &o, NULL), *d2;

	assert_non_null(d);
	assert_int_equal(d->stats->lines, 1);
	assert_int_equal(d->stats->joined, 1);
	assert_int_equal(d->stats->recovered, 3535);
	assert_int_equal(d->stats->events, 3535);
	assert_int_equal(d->stats->unparsed, 5);
	assert_true(d->stats->calls > 2400);
	assert_true(d->ev[0].recovered);
	assert_string_equal(fname(d, d->ev[0].ev.func), "__do_softirq");
	assert_int_equal(d->ev[1].ev.depth, 1);
	assert_int_equal(d->ev[2].ev.depth, 2); /* __usecs_to_jiffies(); under net_rx_action */
	assert_int_equal(d->ev[2].ev.dur, 154);
	/* written back as proper lines, which read back into the same text */
	out = write_doc(d, &olen);
	d2 = load_opts(out, olen, &o, NULL);
	assert_non_null(d2);
	assert_int_equal(d2->stats->verbatim, 0);
	assert_int_equal(d2->stats->unparsed, 0);
	assert_int_equal(d2->stats->calls, d->stats->calls);
	out2 = write_doc(d2, &olen2);
	assert_int_equal(olen, olen2);
	assert_memory_equal(out, out2, olen);
	free(out);
	free(out2);
	fgtext__doc_free(d2);
	fgtext__doc_free(d);
	free(text);
}

/* --- dialects: read then written back, same bytes ------------------------- */

static const struct {
	const char *name, *text;
	uint64_t verbatim; /* events out_text cannot print (kept as read) */
} dialects[] = {
	{ "default with header",
	  "# tracer: function_graph\n"
	  "#\n"
	  "# CPU  DURATION                  FUNCTION CALLS\n"
	  "# |     |   |                     |   |   |   |\n"
	  " 0)               |  do_sys_openat2() {\n"
	  " 0)               |    getname() {\n"
	  " 0)               |      getname_flags.part.0() {\n"
	  " 0)               |        kmem_cache_alloc() {\n"
	  " 0)   2.896 us    |          __cond_resched();\n"
	  " 0)   1.504 us    |          should_failslab();\n"
	  " 0) + 16.317 us   |        }\n"
	  " 0) + 21.971 us   |      }\n"
	  " 0) + 25.000 us   |    }\n"
	  " 0) ! 140.417 us  |  }\n",
	  0 },
	{ "retval 6.5",
	  " 1)               |  cpu_cgroup_can_attach() {\n"
	  " 1)   0.732 us    |    cgroup_taskset_next(); /* = 0xffff93fc8fb20000 */\n"
	  " 1)   0.100 us    |    capable(); /* = 0x1 */\n"
	  " 1)   2.335 us    |  } /* cpu_cgroup_can_attach = -22 */\n",
	  0 },
	{ "retval 6.13",
	  " 0)               |  vfs_read() {\n"
	  " 0)   0.301 us    |    rw_verify_area(); /* ret=0x0 */\n"
	  " 0)   0.200 us    |    security_file_permission(); /* ret=-13 */\n"
	  " 0) + 12.345 us   |  } /* vfs_read ret=0x5 */\n",
	  0 },
	{ "retval hex",
	  " 0)               |  do_sys_openat2() {\n"
	  " 0)   1.000 us    |    getname(); /* = 0xffff888103a2c000 */\n"
	  " 0)   2.000 us    |  } /* do_sys_openat2 = 0xfffffffffffffffe */\n",
	  0 },
	{ "abstime",
	  "# tracer: function_graph\n"
	  "#\n"
	  "#     TIME        CPU  DURATION                  FUNCTION CALLS\n"
	  "#      |          |     |   |                     |   |   |   |\n"
	  "   10.574150 |   0)               |  do_sys_openat2() {\n"
	  "   10.574160 |   0)   2.346 us    |    __cond_resched();\n"
	  "   10.574170 |   0)   5.000 us    |  }\n",
	  0 },
	{ "proc",
	  " 0)     wl-102     |               |  do_sys_openat2() {\n"
	  " 0)     wl-102     |   2.346 us    |    __cond_resched();\n"
	  " 0)   rcu_pre-15   |   0.500 us    |  rcu_note_context_switch();\n"
	  " 0)    <idle>-0    |   0.500 us    |  cpuidle_enter();\n"
	  " 0) systemd-4194304 |   0.500 us    |  do_epoll_wait();\n"
	  " 0)     wl-102     |   5.000 us    |  }\n",
	  0 },
	{ "abstime proc banner",
	  "# tracer: function_graph\n"
	  "#\n"
	  "#     TIME        CPU  TASK/PID         DURATION                  FUNCTION CALLS\n"
	  "#      |          |     |    |           |   |                     |   |   |   |\n"
	  "    5.495943 |   0)   rcu_pre-15   |   1.000 us    |  rcu_gp_kthread();\n"
	  " ------------------------------------------\n"
	  " 0)   rcu_pre-15   =>    <idle>-0   \n"
	  " ------------------------------------------\n"
	  "\n"
	  "    5.496000 |   0)    <idle>-0    |   0.500 us    |  cpuidle_enter();\n",
	  0 },
	{ "nocpu",
	  "#  DURATION                  FUNCTION CALLS\n"
	  "#   |   |                     |   |   |   |\n"
	  "+ 15.174 us   |  mutex_unlock();\n"
	  "              |  do_sys_openat2() {\n"
	  "  2.415 us    |    __cond_resched();\n"
	  "  3.000 us    |  }\n",
	  0 },
	{ "noduration",
	  "# CPU               FUNCTION CALLS\n"
	  "# |                 |   |   |   |\n"
	  " 1) do_sys_openat2() {\n"
	  " 1)   getname() {\n"
	  " 1)     __cond_resched();\n"
	  " 1)   }\n"
	  " 1) }\n",
	  0 },
	{ "nooverhead",
	  " 0)               |  do_sys_openat2() {\n"
	  " 0)   16.588 us   |    getname();\n"
	  " 0)   20.000 us   |  }\n",
	  0 },
	{ "tail",
	  " 1)               |      kmem_cache_alloc() {\n"
	  " 1)   1.000 us    |        should_failslab();\n"
	  " 1) + 21.971 us   |      } /* kmem_cache_alloc */\n",
	  0 },
	{ "tracing_thresh",
	  " 1) + 32.445 us   |            } /* mm_init */\n"
	  " 1) + 49.273 us   |          } /* mm_alloc */\n"
	  " 1) + 84.795 us   |        } /* alloc_bprm */\n"
	  " 0) # 6002.767 us |      } /* schedule */\n",
	  0 },
	{ "durations",
	  " 0) * 33998.59 us |  a();\n"
	  " 0) @ 119760.2 us |  b();\n"
	  " 0) $ 3594274 us  |  c();\n"
	  " 0) $ 10000000 us |  d();\n"
	  " 0) $ 123456789 us |  e();\n"
	  " 0)   10.000 us   |  f();\n",
	  0 },
	{ "lost",
	  " 0)   1.000 us    |  foo();\n"
	  "CPU:0 [LOST 12 EVENTS]\n"
	  " 0)   1.000 us    |  bar();\n"
	  "CPU:1 [LOST EVENTS]\n",
	  0 },
	{ "nocontext-info",
	  "# tracer: function_graph\n"
	  "#\n"
	  "do_sys_openat2() {\n"
	  "  getname() {\n"
	  "        __cond_resched();\n"
	  "  }\n"
	  "}\n",
	  0 },
	{ "comments irq overruns",
	  " 1)               |    vfs_write() {\n"
	  " 1)   5.944 us    |      rw_verify_area();\n"
	  " 1)   1.934 us    |      __cond_resched();\n"
	  " 1)               |      /* hello-marker */\n"
	  " 1) + 68.188 us   |      copy_from_user_nofault();\n"
	  " 1)   ==========> |\n"
	  " 1)   2.000 us    |      irq_handler();\n"
	  " 1)   <========== |\n"
	  " 1) + 90.000 us   |    }\n"
	  " (Overruns: 3)\n",
	  0 },
	{ "perf-tools framing",
	  "Tracing \"vfs_read\" for PID 5363... Ctrl-C to end.\n"
	  " 0)   1.000 us    |  vfs_read();\n"
	  "##### CPU 1 buffer started ####\n"
	  "\n"
	  "Ending tracing...\n",
	  0 },
	{ "modules",
	  " 0)               |    bm_status_read [binfmt_misc]() {\n"
	  " 0)   1.000 us    |      bm_helper [binfmt_misc]();\n"
	  " 0)   1.000 us    |      0xffffffffc0a01234();\n"
	  " 0)   2.000 us    |    } /* bm_status_read [binfmt_misc] */\n",
	  0 },
	{ "no final newline", " 0)   1.000 us    |  foo();\n 0)   1.000 us    |  bar();", 0 },
	{ "empty", "", 0 },
	{ "blank lines only", "\n\n", 0 },
	/* what out_text does not print: kept as read */
	{ "retaddr and args",
	  " 0)               |  vfs_read() { /* <-ksys_read+0x6d/0xf0 */\n"
	  " 0)   0.301 us    |    rw_verify_area(); /* <-vfs_read+0x9a/0x1a0 ret=0x0 */\n"
	  " 0) + 12.345 us   |  } /* vfs_read ret=0x5 */\n"
	  " 0)               |  vfs_read(file=0xffff8881030a2c00, buf=0x7ffd5d3c1a70, count=0x20000, pos=0xffffc90001f3bf08) {\n"
	  " 0)   0.301 us    |    rw_verify_area(read_write=0, file=0xffff8881030a2c00, ppos=0xffffc90001f3bf08, count=0x20000); /* ret=0x0 */\n"
	  " 0)   0.100 us    |    f(x=(STRUCT)[0x1:0x2], ...); /* ret=0x0 */\n"
	  " 0)   1.000 us    |  } /* vfs_read ret=0x10 */\n",
	  0 },
	/* bpfgraph's --args-detail: strings and members after the values */
	{ "args detail",
	  " 0)               |  do_sys_openat2(dfd=-100, filename=0x47a073 \"/nonexistent/bpfgraph-wl\", how=0xffffc90000013e58 {flags=0x8000 mode=0 resolve=0}) {\n"
	  " 0)   0.345 us    |    getname(filename=0x47a073 \"a\\\"b\\x2c c) {x};\"...);\n"
	  " 0)   0.345 us    |    f(p=0x1 <fault>);\n"
	  " 0)   4.000 us    |  }\n",
	  0 },
	/* funcgraph-args and funcgraph-retaddr (6.13, 6.15, 6.19): printed again */
	{ "args 6.15",
	  "# tracer: function_graph\n"
	  "#\n"
	  "# CPU  DURATION                  FUNCTION CALLS\n"
	  "# |     |   |                     |   |   |   |\n"
	  " 0)               |  do_sys_openat2(dfd=4294967196, filename=0x47a073, how=0xff46c0c0) {\n"
	  " 0)   0.345 us    |    getname(filename=0x47a073);\n"
	  " 0)               |    do_filp_open(dfd=-100, pathname=0xffff8881020ad000, op=0xffffc90000237ec4) {\n"
	  " 0)   0.210 us    |      path_init.isra.0();\n"
	  " 0)   0.150 us    |      timespec64_add_safe(lhs=(STRUCT)[0xef:0x10c8f152], rhs=(STRUCT)[0x4:0x0]);\n"
	  " 0)   0.120 us    |      six(a=1, b=2, c=3, d=4, e=5, f=6, ...);\n"
	  " 0)   0.100 us    |      big(a=1, s=(STRUCT)[0x1:0x2:0x3:0x4:0x5:...]);\n"
	  " 0)   0.090 us    |      va(fmt=0xffffffff82000000, =?0x0);\n"
	  " 0)   0.080 us    |      nft_do_chain [nf_tables](pkt=0xffffc90000237b40, priv=0xffff888104d3e000);\n"
	  " 0)   2.000 us    |    }\n"
	  " 0)   4.000 us    |  }\n",
	  0 },
	{ "retaddr 6.13",
	  " 1)               |  vfs_read() { /* <-ksys_read+0x6d/0xf0 */\n"
	  " 1)   0.301 us    |    rw_verify_area(); /* <-vfs_read+0x9a/0x1a0 */\n"
	  " 1)               |    nft_do_chain [nf_tables]() { /* <-nft_do_chain_ipv4+0x6a/0xa0 [nf_tables] */\n"
	  " 1)   0.200 us    |      nft_immediate_eval [nf_tables](); /* <-nft_do_chain+0x120/0x5a0 [nf_tables] <ffffffffc0a01234> */\n"
	  " 1)   1.000 us    |    }\n"
	  " 1)   0.100 us    |    fsnotify(); /* <-0 */\n"
	  " 1)   0.100 us    |    __fsnotify_parent();\n"
	  " 1)   0.100 us    |    fsnotify_perm(); /* <-0xffffffffc0a01234 */\n"
	  " 1)   0.100 us    |    security_file_permission(); /* <-[unknown/kretprobe'd] */\n"
	  " 1) + 12.345 us   |  }\n",
	  0 },
	{ "retaddr retval 6.13",
	  " 0)               |  vfs_read() { /* <-ksys_read+0x6d/0xf0 */\n"
	  " 0)   0.301 us    |    rw_verify_area(); /* <-vfs_read+0x9a/0x1a0 ret=0x0 */\n"
	  " 0)   0.250 us    |    security_file_permission(); /* <-rw_verify_area+0x4b/0x110 ret=-13 */\n"
	  " 0)   0.100 us    |    fsnotify_access(); /* ret=0x0 */\n"
	  " 0) + 12.345 us   |  } /* vfs_read ret=-13 */\n",
	  0 },
	{ "args retaddr 6.19",
	  " 0)               |  do_sys_openat2(dfd=4294967196, filename=0x47a073, how=0xff46c0c0) { /* <-do_sys_open+0x6b/0xb0 */\n"
	  " 0)   0.345 us    |    getname(filename=0x47a073); /* <-do_sys_openat2+0x71/0x140 ret=0xffff888103f1c000 */\n"
	  " 0)   0.210 us    |    get_unused_fd_flags(flags=0x8000); /* <-do_sys_openat2+0x9c/0x140 ret=0x3 */\n"
	  " 0)               |    do_filp_open(dfd=-100, pathname=0xffff888103f1c000, op=0xffffc90000237ec4) { /* <-do_sys_openat2+0xb8/0x140 */\n"
	  " 0)   0.150 us    |      path_openat(nd=0xffffc90000237dc0, op=0xffffc90000237ec4, flags=0x41); /* <-do_filp_open+0xc4/0x170 ret=-2 */\n"
	  " 0)   1.200 us    |    } /* do_filp_open ret=-2 */\n"
	  " 0)   0.080 us    |    put_unused_fd(fd=3); /* <-do_sys_openat2+0x11f/0x140 ret=0x0 */\n"
	  " 0)   3.000 us    |  } /* do_sys_openat2 ret=-2 */\n",
	  0 },
	{ "args abstime proc",
	  "# tracer: function_graph\n"
	  "#\n"
	  "#     TIME        CPU  TASK/PID         DURATION                  FUNCTION CALLS\n"
	  "#      |          |     |    |           |   |                     |   |   |   |\n"
	  "  572.147385 |   0)     wl-102     |               |  vfs_read(file=0xffff888102c3e500, buf=0x7f0c2d1e4000, count=0x20000, pos=0xffffc90000327f08) { /* <-ksys_read+0x6d/0xf0 */\n"
	  "  572.147388 |   0)     wl-102     |   0.301 us    |    rw_verify_area(read_write=0, file=0xffff888102c3e500, ppos=0xffffc90000327f08, count=0x20000); /* <-vfs_read+0x9a/0x1a0 */\n"
	  "  572.147390 |   0)     wl-102     |   3.000 us    |  }\n",
	  0 },
	{ "args nocpu noduration",
	  "do_sys_openat2(dfd=-100, filename=0x47a073, how=0xff46c0c0) { /* <-do_sys_open+0x6b/0xb0 */\n"
	  "  getname(filename=0x47a073); /* <-do_sys_openat2+0x71/0x140 */\n"
	  "}\n",
	  0 },
	{ "args latency",
	  "#     TIME        CPU  TASK/PID       ||||     DURATION                  FUNCTION CALLS\n"
	  "#      |          |     |    |        ||||      |   |                     |   |   |   |\n"
	  "    5.495943 |   1)     wl-102     |  ...1. |               |  do_sys_openat2(dfd=-100, filename=0x47a073, how=0xff46c0c0) {\n"
	  "    5.495990 |   1)     wl-102     |  d..1. |   1.000 us    |  }\n",
	  2 },
	/*
	 * a newer kernel's typed values (ret=false, "(trunc)"): names still
	 * read; the void calls, printed without a value, are printed again
	 */
	{ "typed return values",
	  " 2)               |  touch_atime(path=0xffffc90000327e70, inode=0xffff888101a3c6a8) {\n"
	  " 2)               |    atime_needs_update() {\n"
	  " 2)   0.070 us    |      make_vfsuid(); /* ret=0x0 */\n"
	  " 2)   0.162 us    |      ktime_get_coarse_real_ts64_mg(); /* <-current_time+0x3b/0x90 */\n"
	  " 2)   0.312 us    |      } /* current_time ret=0x69380649(trunc) */\n"
	  " 2)   0.753 us    |    } /* atime_needs_update ret=false */\n"
	  " 2)   0.899 us    |  } /* touch_atime */\n",
	  2 },
	/* bpfgraph's own strings: quoted, C escapes; anything goes inside */
	{ "args strings",
	  " 0)               |  do_sys_openat2(dfd=-100, filename=\"/tmp/a) { b; /* c */\", how=0xff46c0c0) {\n"
	  " 0)   0.345 us    |    getname(filename=\"q\\\"(\\\\\"); /* <-do_sys_openat2+0x71/0x140 ret=-2 */\n"
	  " 0)   3.000 us    |  } /* do_sys_openat2 ret=-2 */\n",
	  0 },
	{ "latency-format",
	  "#     TIME        CPU  TASK/PID       ||||     DURATION                  FUNCTION CALLS\n"
	  "#      |          |     |    |        ||||      |   |                     |   |   |   |\n"
	  "    5.495943 |   1)     wl-102     |  ...1. |               |  do_sys_openat2() {\n"
	  "    5.495990 |   1)     wl-102     |  d..1. |   1.000 us    |  }\n",
	  2 },
	{ "crlf", " 0)   1.000 us    |  foo();\r\n", 1 },
	{ "3.x padding", " 0)   1000131 us |  foo();\n", 1 },
};

static void test_dialects_roundtrip(void **state)
{
	for (size_t i = 0; i < sizeof(dialects) / sizeof(dialects[0]); i++)
		check_roundtrip(dialects[i].name, dialects[i].text, strlen(dialects[i].text),
				dialects[i].verbatim);
}

static struct fgtext_doc *dialect(const char *name)
{
	for (size_t i = 0; i < sizeof(dialects) / sizeof(dialects[0]); i++)
		if (!strcmp(dialects[i].name, name))
			return load(dialects[i].text);
	fail_msg("no dialect sample '%s'", name);
	return NULL;
}

/* --- what was read ------------------------------------------------------- */

static void test_default_events(void **state)
{
	struct fgtext_doc *d = dialect("default with header");
	static const struct {
		enum gev_type type;
		uint32_t depth;
		const char *name;
		uint64_t dur;
	} want[] = {
		{ GEV_ENTER, 0, "do_sys_openat2", 0 },	 { GEV_ENTER, 1, "getname", 0 },
		{ GEV_ENTER, 2, "getname_flags.part.0", 0 }, { GEV_ENTER, 3, "kmem_cache_alloc", 0 },
		{ GEV_LEAF, 4, "__cond_resched", 2896 },   { GEV_LEAF, 4, "should_failslab", 1504 },
		{ GEV_EXIT, 3, "kmem_cache_alloc", 16317 }, { GEV_EXIT, 2, "getname_flags.part.0", 21971 },
		{ GEV_EXIT, 1, "getname", 25000 },	 { GEV_EXIT, 0, "do_sys_openat2", 140417 },
	};

	assert_int_equal(d->stats->events, 10);
	assert_int_equal(d->stats->calls, 6);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct gev *ev = nth_event(d, i);

		assert_int_equal(ev->type, want[i].type);
		assert_int_equal(ev->depth, want[i].depth);
		assert_string_equal(fname(d, ev->func), want[i].name);
		assert_int_equal(ev->dur, want[i].dur);
		assert_false(ev->tail);
		assert_int_equal(ev->cpu, 0);
		assert_null(ev->comm);
	}
	assert_int_equal(d->ev[0].kind, FGT_HEADER);
	assert_int_equal(d->ev[4].line, 5);
	assert_true(d->layout->known & BG_O_OVERHEAD);
	assert_false(d->layout->known & BG_O_TAIL ? d->layout->flags & BG_O_TAIL : 0);
	fgtext__doc_free(d);
}

static void test_retval_read(void **state)
{
	struct fgtext_doc *d = dialect("retval 6.5");

	assert_int_equal(d->layout->dialect, BG_DIALECT_6_5);
	assert_true(d->ev[1].has_ret);
	assert_int_equal(d->ev[1].ev.ret, 0xffff93fc8fb20000ULL);
	assert_int_equal(d->ev[3].ev.ret, (uint64_t)-22);
	assert_false(d->ev[3].ev.tail);
	assert_false(d->ev[0].has_ret);
	fgtext__doc_free(d);
	d = dialect("retval 6.13");
	assert_int_equal(d->layout->dialect, BG_DIALECT_6_13);
	assert_int_equal(d->ev[2].ev.ret, (uint64_t)-13);
	assert_int_equal(d->ev[3].ev.ret, 5);
	fgtext__doc_free(d);
	d = dialect("retval hex");
	assert_true(d->layout->flags & BG_O_RETVAL_HEX);
	assert_int_equal(d->ev[2].ev.ret, 0xfffffffffffffffeULL);
	fgtext__doc_free(d);
	d = dialect("retaddr and args");
	assert_int_equal(d->layout->cols, FGT_L_ARGS | FGT_L_RETADDR);
	assert_string_equal(fname(d, d->ev[3].ev.func), "vfs_read");
	assert_string_equal(fname(d, d->ev[5].ev.func), "f");
	assert_int_equal(d->ev[1].ev.ret, 0);
	assert_true(d->ev[1].has_ret);
	/* the arguments and the caller are printed again, not kept as text */
	assert_null(d->ev[2].text);
	assert_null(d->ev[3].text);
	assert_string_equal(d->ev[0].retaddr, "ksys_read+0x6d/0xf0");
	assert_string_equal(d->ev[3].args, "file=0xffff8881030a2c00, buf=0x7ffd5d3c1a70, "
					   "count=0x20000, pos=0xffffc90001f3bf08");
	fgtext__doc_free(d);
}

static void test_columns_read(void **state)
{
	struct fgtext_doc *d = dialect("abstime");

	assert_int_equal(d->layout->flags & (BG_O_ABSTIME | BG_O_CPU | BG_O_PROC),
			 BG_O_ABSTIME | BG_O_CPU);
	assert_int_equal(nth_event(d, 1)->ts, 10574160000ULL);
	fgtext__doc_free(d);

	d = dialect("proc");
	assert_true(d->layout->flags & BG_O_PROC);
	assert_string_equal(nth_event(d, 0)->comm, "wl");
	assert_int_equal(nth_event(d, 0)->pid, 102);
	assert_string_equal(nth_event(d, 2)->comm, "rcu_pre");
	assert_string_equal(nth_event(d, 3)->comm, "<idle>");
	assert_int_equal(nth_event(d, 3)->pid, 0);
	assert_int_equal(nth_event(d, 4)->pid, 4194304);
	fgtext__doc_free(d);

	d = dialect("abstime proc banner");
	assert_int_equal(nth_event(d, 1)->type, GEV_BANNER);
	assert_int_equal(nth_event(d, 1)->prev_pid, 15);
	assert_string_equal(nth_event(d, 1)->prev_comm, "rcu_pre");
	assert_int_equal(nth_event(d, 1)->pid, 0);
	assert_string_equal(nth_event(d, 1)->comm, "<idle>");
	fgtext__doc_free(d);

	d = dialect("nocpu");
	assert_int_equal(d->layout->flags & (BG_O_CPU | BG_O_DURATION), BG_O_DURATION);
	assert_int_equal(nth_event(d, 2)->depth, 1);
	fgtext__doc_free(d);

	d = dialect("noduration");
	assert_int_equal(d->layout->flags & (BG_O_CPU | BG_O_DURATION), BG_O_CPU);
	assert_int_equal(nth_event(d, 2)->type, GEV_LEAF);
	assert_int_equal(nth_event(d, 2)->depth, 2);
	assert_string_equal(fname(d, nth_event(d, 3)->func), "getname");
	fgtext__doc_free(d);

	d = dialect("nooverhead");
	assert_false(d->layout->flags & BG_O_OVERHEAD);
	assert_true(d->layout->known & BG_O_OVERHEAD);
	fgtext__doc_free(d);

	d = dialect("nocontext-info");
	assert_false(d->layout->flags & BG_O_CONTEXT_INFO);
	assert_int_equal(nth_event(d, 2)->depth, 4);
	fgtext__doc_free(d);
}

static void test_tail_thresh_lost(void **state)
{
	struct fgtext_doc *d = dialect("tail");

	assert_true(d->layout->flags & BG_O_TAIL);
	assert_true(d->layout->known & BG_O_TAIL);
	fgtext__doc_free(d);

	d = dialect("tracing_thresh");
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(nth_event(d, i)->type, GEV_EXIT);
		assert_true(nth_event(d, i)->tail);
	}
	assert_int_equal(nth_event(d, 3)->cpu, 0);
	assert_int_equal(nth_event(d, 3)->dur, 6002767);
	assert_string_equal(fname(d, nth_event(d, 3)->func), "schedule");
	fgtext__doc_free(d);

	d = dialect("lost");
	assert_int_equal(nth_event(d, 1)->type, GEV_LOST);
	assert_int_equal(nth_event(d, 1)->count, 12);
	assert_int_equal(nth_event(d, 3)->cpu, 1);
	assert_int_equal(nth_event(d, 3)->count, 0);
	fgtext__doc_free(d);

	d = dialect("durations");
	assert_int_equal(nth_event(d, 0)->dur, 33998590);
	assert_int_equal(nth_event(d, 1)->dur, 119760200);
	assert_int_equal(nth_event(d, 2)->dur, 3594274000ULL);
	assert_int_equal(nth_event(d, 4)->dur, 123456789000ULL);
	fgtext__doc_free(d);
}

static void test_kinds(void **state)
{
	struct fgtext_doc *d = dialect("comments irq overruns");

	assert_int_equal(d->ev[3].kind, FGT_COMMENT);
	assert_int_equal(d->ev[5].kind, FGT_IRQ);
	assert_int_equal(d->ev[7].kind, FGT_IRQ);
	assert_int_equal(d->ev[9].kind, FGT_TEXT);
	assert_string_equal(d->ev[9].text, " (Overruns: 3)");
	assert_int_equal(d->stats->calls, 5);
	fgtext__doc_free(d);

	d = dialect("modules");
	assert_int_equal(functab__find(d->funcs, "bm_status_read", "binfmt_misc"), 0);
	assert_string_equal(d->funcs->f[0].module, "binfmt_misc");
	assert_string_equal(d->funcs->f[2].name, "0xffffffffc0a01234");
	assert_int_equal(nth_event(d, 3)->func, 0);
	fgtext__doc_free(d);

	d = dialect("latency-format");
	assert_true(d->layout->cols & FGT_L_LATENCY);
	assert_int_equal(nth_event(d, 0)->pid, 102);
	assert_int_equal(nth_event(d, 1)->type, GEV_EXIT);
	assert_string_equal(fname(d, nth_event(d, 1)->func), "do_sys_openat2");
	fgtext__doc_free(d);

	d = dialect("crlf");
	assert_int_equal(nth_event(d, 0)->type, GEV_LEAF);
	assert_string_equal(fname(d, nth_event(d, 0)->func), "foo");
	fgtext__doc_free(d);
}

/* --- streaming ----------------------------------------------------------- */

struct counter {
	size_t kinds[FGT_TEXT + 1];
	size_t stop_at, seen;
	uint32_t last_line;
};

static int count_ev(void *ctx, const struct fgtext_ev *e, const struct functab *ft)
{
	struct counter *c = ctx;

	assert_true(e->line >= c->last_line);
	c->last_line = e->line;
	c->kinds[e->kind]++;
	if (e->kind == FGT_EVENT && e->ev.type != GEV_LOST && e->ev.type != GEV_BANNER &&
	    e->ev.func != FGTEXT_NOFUNC)
		assert_true(e->ev.func < ft->n);
	/* without keep_text, events carry no text */
	if (e->kind == FGT_EVENT)
		assert_null(e->text);
	return ++c->seen == c->stop_at ? -ECANCELED : 0;
}

static void test_streaming(void **state)
{
	size_t len;
	char *text = slurp_golden(SEED_001, &len);
	struct counter c = {};
	struct fgtext_opts o = { .emit = count_ev, .ctx = &c };
	struct fgtext *r = fgtext__new(&o);
	FILE *f = open_text(text, len);

	assert_non_null(r);
	assert_int_equal(fgtext__read(r, f), 0);
	assert_int_equal(c.kinds[FGT_EVENT], fgtext__stats(r)->events);
	assert_int_equal(c.kinds[FGT_HEADER], 4);
	assert_int_equal(c.kinds[FGT_TEXT], 1);
	assert_int_equal(fgtext__stats(r)->verbatim, 0);
	fgtext__free(r);
	fclose(f);

	/* the callback's error stops the read */
	memset(&c, 0, sizeof(c));
	c.stop_at = 10;
	r = fgtext__new(&o);
	f = open_text(text, len);
	assert_int_equal(fgtext__read(r, f), -ECANCELED);
	assert_int_equal(c.seen, 10);
	fgtext__free(r);
	fclose(f);
	free(text);
}

/* --- malformed input ---------------------------------------------------- */

static void expect_error(const char *text, size_t len, size_t max_line, int err,
			 uint32_t line)
{
	struct fgtext_opts o = { .name = "bad", .max_line = max_line };
	uint32_t got = 0;
	struct fgtext_doc *d = load_opts(text, len, &o, &got);
	int e = errno;

	if (d)
		fail_msg("'%.40s' was read without error", text);
	assert_int_equal(e, -err);
	assert_int_equal(got, line);
}

/* Literal strings: their length includes embedded NULs, not the last one. */
#define EXPECT_ERROR(lit, max_line, err, line) expect_error(lit, sizeof(lit) - 1, max_line, err, line)
#define ROUNDTRIP(name, lit, verbatim) check_roundtrip(name, lit, sizeof(lit) - 1, verbatim)

static void test_malformed(void **state)
{
	char deep[700];

	EXPECT_ERROR(" 0)               |  foo() {\n 0)   1.000 us    |    bar(\n", 0, -EINVAL, 2);
	EXPECT_ERROR("# tracer: function_graph\n#\n 0)   1.2345 us   |  foo();\n", 0, -EINVAL, 3);
	EXPECT_ERROR(" 0)   1.000 us    |  foo(); trailing\n", 0, -EINVAL, 1);
	EXPECT_ERROR("\n 0)   1.000 us    |  } /* two words */\n", 0, -EINVAL, 2);
	EXPECT_ERROR(" 0)   1.000 us    |  } /* foo() */\n", 0, -EINVAL, 1);
	EXPECT_ERROR(" 0)   \n", 0, -EINVAL, 1);
	EXPECT_ERROR("# tracer: function_graph\n 0)   1.000 us    |  f\0o();\n", 0, -EINVAL, 2);
	EXPECT_ERROR(" 99999) foo();\n", 0, -EINVAL, 1);
	EXPECT_ERROR("x\ny\nz\nCPU:4096 [LOST 3 EVENTS]\n", 0, -EINVAL, 4);
	snprintf(deep, sizeof(deep), "ok\n 0)   1.000 us    |  %600sfoo();\n", "");
	expect_error(deep, strlen(deep), 0, -EINVAL, 2);
	EXPECT_ERROR("a\nbb\n0123456789012345678901234567890123456789\n", 32, -E2BIG, 3);
	EXPECT_ERROR("a\nbb\n0123456789012345678901234567890123456789", 32, -E2BIG, 3);
}

/* Lenient: the same lines are counted, kept as text, and reading goes on. */
static void test_lenient(void **state)
{
	static const char text[] = " 0)               |  foo() {\n"
				   " 0)   1.000 us    |    bar(\n"
				   " 0)   1.000 us    |    b\0z();\n"
				   " 0)   1.000 us    |  }\n";
	struct fgtext_opts o = { .name = "lenient", .lenient = true };
	struct fgtext_doc *d = load_opts(text, sizeof(text) - 1, &o, NULL);

	assert_non_null(d);
	assert_int_equal(d->stats->unparsed, 2);
	assert_int_equal(d->stats->events, 2);
	assert_int_equal(d->ev[1].kind, FGT_TEXT);
	assert_string_equal(fname(d, nth_event(d, 1)->func), "foo");
	fgtext__doc_free(d);
}

/*
 * Lenient reading used to fail on lines nested too deep, on CPUs out of
 * range and on lines over max_line (the fuzz harness now checks that it
 * never fails).
 */
static void test_lenient_limits(void **state)
{
	struct fgtext_opts o = { .name = "lenient", .lenient = true };
	char text[1024];
	struct fgtext_doc *d;
	int n;

	n = snprintf(text, sizeof(text),
		     " 0)               |  foo() {\n"
		     " 0)   1.000 us    |  %600sdeep();\n"
		     " 4096)   1.000 us    |    far();\n"
		     "CPU:5000 [LOST 3 EVENTS]\n"
		     " 0)   1.000 us    |    bar();\n"
		     " 0)   2.000 us    |  }\n", "");
	d = load_opts(text, (size_t)n, &o, NULL);
	assert_non_null(d);
	assert_int_equal(d->stats->unparsed, 3);
	assert_int_equal(d->stats->events, 3);
	assert_int_equal(d->ev[1].kind, FGT_TEXT);
	assert_int_equal(d->ev[2].kind, FGT_TEXT);
	assert_int_equal(d->ev[3].kind, FGT_TEXT);
	assert_string_equal(fname(d, nth_event(d, 1)->func), "bar");
	fgtext__doc_free(d);

	/* a line over max_line is read to its end and left out */
	n = snprintf(text, sizeof(text),
		     " 0)   1.000 us    |  a();\n%300s\n 0)   1.000 us    |  b();\n%100s", "x", "y");
	o.max_line = 64;
	d = load_opts(text, (size_t)n, &o, NULL);
	assert_non_null(d);
	assert_int_equal(d->stats->lines, 4);
	assert_int_equal(d->stats->unparsed, 2);
	assert_int_equal(d->n, 2);
	assert_string_equal(fname(d, nth_event(d, 1)->func), "b");
	fgtext__doc_free(d);
}

/* The layout a lenient read of text learns. */
static struct fgtext_layout lenient_layout(const char *text, uint64_t unparsed)
{
	struct fgtext_opts o = { .name = "lenient", .lenient = true };
	struct fgtext_doc *d = load_opts(text, strlen(text), &o, NULL);
	struct fgtext_layout l;

	assert_non_null(d);
	assert_int_equal(d->stats->unparsed, unparsed);
	l = *d->layout;
	fgtext__doc_free(d);
	return l;
}

static void assert_same_layout(const struct fgtext_layout *a, const struct fgtext_layout *b)
{
	assert_int_equal(a->flags, b->flags);
	assert_int_equal(a->known, b->known);
	assert_int_equal(a->cols, b->cols);
	assert_int_equal(a->dialect, b->dialect);
	assert_int_equal(a->cpu_width, b->cpu_width);
}

/*
 * Lenient: a line passed on as text (CPU out of range, nested too deep)
 * teaches the layout nothing. The columns, overhead mark, dialect and
 * arguments of the first such line used to become the layout of the
 * whole text.
 */
static void test_lenient_layout(void **state)
{
	static const char good[] = "  1.000 us    |  g();\n";
	static const char piece[] = " 0) | f() {";
	struct fgtext_layout want = lenient_layout(good, 0), got;
	char text[1024], *joined;
	size_t n = 0, cap = FGTEXT_MAX_DEPTH * sizeof(piece) + 64;

	snprintf(text, sizeof(text), " 4096) + 20.000 us   |  f(x=1); /* ret=0x1 */\n%s", good);
	got = lenient_layout(text, 1);
	assert_same_layout(&got, &want);
	snprintf(text, sizeof(text), " 0) + 20.000 us   |  %600sf(x=1); /* ret=0x1 */\n%s", "",
		 good);
	got = lenient_layout(text, 1);
	assert_same_layout(&got, &want);

	/* joined lines: a piece nested too deep does not learn the overhead mark */
	joined = malloc(cap);
	assert_non_null(joined);
	for (int i = 0; i < FGTEXT_MAX_DEPTH - 1; i++)
		n += (size_t)snprintf(joined + n, cap - n, "%s", piece);
	want = lenient_layout(joined, 0);
	snprintf(joined + n, cap - n, " 0) + 20.000 us | g();");
	got = lenient_layout(joined, 1);
	assert_same_layout(&got, &want);
	assert_false(got.known & BG_O_OVERHEAD);
	free(joined);
}

/*
 * Lenient reading names each line it leaves out on o.warn: file, line,
 * what was wrong and how the line began (a capture cut in the middle of
 * its last line, a damaged line inside), then goes on; strict reading
 * fails at the first.
 */
static char *lenient_warnings(const char *text, size_t len, struct fgtext_doc **dp)
{
	char *msg = NULL;
	size_t mlen = 0;
	struct fgtext_opts o = { .name = "t.txt", .lenient = true, .prefix = "x: " };
	struct fgtext_doc *d;

	o.warn = open_memstream(&msg, &mlen);
	assert_non_null(o.warn);
	d = load_opts(text, len, &o, NULL);
	assert_int_equal(fclose(o.warn), 0);
	assert_non_null(d);
	*dp = d;
	return msg;
}

static void test_lenient_warn(void **state)
{
	static const char cut[] = " 0)               |  foo() {\n"
				  " 0)   1.0 us    |    bar(\n"
				  " 0)   1.000 us    |    baz();\n"
				  " 0)   2.000 us    |  }\n"
				  " 0)   0.048 us    |    qu";
	static const char odd[] = " 0)   1.000 us    |  a();\n"
				  " 0)   1.000 us    |  \x01\x7f\xc3\xa9 a very long name that goes on and on(\r\n"
				  " 0)   1.000 us    |  b\0c();\n";
	struct fgtext_doc *d;
	char *msg, text[4096];
	size_t n = 0;

	(void)state;
	msg = lenient_warnings(cut, sizeof(cut) - 1, &d);
	assert_string_equal(msg, "x: t.txt:2: line skipped, cannot parse function call: "
				 "' 0)   1.0 us    |    bar('\n"
				 "x: t.txt:5: line skipped, cannot parse function call: "
				 "' 0)   0.048 us    |    qu'\n");
	assert_int_equal(d->stats->skipped, 2);
	assert_int_equal(d->stats->events, 3);
	assert_string_equal(fname(d, nth_event(d, 1)->func), "baz");
	assert_int_equal(nth_event(d, 2)->type, GEV_EXIT);
	free(msg);
	fgtext__doc_free(d);
	/* strict: the first of them is the error */
	EXPECT_ERROR(cut, 0, -EINVAL, 2);

	/* quoted on one line: control and non-ASCII bytes as '?', cut at 40 */
	msg = lenient_warnings(odd, sizeof(odd) - 1, &d);
	assert_string_equal(msg, "x: t.txt:2: line skipped, cannot parse function call: "
				 "' 0)   1.000 us    |  ???? a very long...'\n"
				 "x: t.txt:3: line skipped, NUL byte in the text (binary file?): "
				 "' 0)   1.000 us    |  b'\n");
	free(msg);
	fgtext__doc_free(d);

	/* the first FGTEXT_MAX_WARN named, then how many in all */
	for (int i = 0; i < FGTEXT_MAX_WARN + 2; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, " 0)   1.000 us    |  f%d(\n", i);
	n += (size_t)snprintf(text + n, sizeof(text) - n, " 0)   1.000 us    |  g();\n");
	msg = lenient_warnings(text, n, &d);
	assert_non_null(strstr(msg, "x: t.txt:10: line skipped, "));
	assert_null(strstr(msg, "x: t.txt:11: "));
	assert_non_null(strstr(msg, "\nx: t.txt: 12 damaged lines skipped in all, the first 10 "
				    "named above\n"));
	assert_int_equal(d->stats->skipped, FGTEXT_MAX_WARN + 2);
	assert_int_equal(d->stats->calls, 1);
	free(msg);
	fgtext__doc_free(d);
}

/*
 * Return values are on once any line prints one: the first leaf may be
 * a void function, printed without. Its line is printed again as it
 * was, without a value, the others with theirs.
 */
static void test_late_retval(void **state)
{
	static const char v605[] = " 0)   0.300 us    |  schedule();\n"
				   " 0)               |  schedule() {\n"
				   " 0) + 20.000 us   |  }\n"
				   " 0)   0.301 us    |  f(); /* = -2 */\n"
				   " 0)   0.302 us    |  g(); /* = 0x5 */\n";
	static const char v613[] = " 0)   0.300 us    |  schedule();\n"
				   " 0)               |  f() {\n"
				   " 0) + 20.000 us   |  } /* f ret=0xfffffffffffffff4 */\n";
	/* a second notation in one text cannot be printed again: kept as read */
	static const char mixed[] = " 0)   0.300 us    |  schedule();\n"
				    " 0)   0.301 us    |  f(); /* ret=-2 */\n"
				    " 0)   0.302 us    |  g(); /* = 0x5 */\n";
	struct fgtext_doc *d = load(v605);

	(void)state;
	assert_true(d->layout->flags & BG_O_RETVAL);
	assert_int_equal(d->layout->dialect, BG_DIALECT_6_5);
	assert_false(d->ev[0].has_ret);
	assert_true(d->ev[0].ev.noret);
	assert_true(d->ev[2].ev.noret);
	assert_true(d->ev[3].has_ret);
	assert_false(d->ev[3].ev.noret);
	assert_false(d->ev[3].ret_hex);
	assert_true(d->ev[4].ret_hex);
	assert_false(d->ev[1].ev.noret); /* an entry has no value to miss */
	fgtext__doc_free(d);
	d = load(v613);
	assert_true(d->layout->flags & BG_O_RETVAL);
	assert_int_equal(d->layout->dialect, BG_DIALECT_6_13);
	fgtext__doc_free(d);
	ROUNDTRIP("late 6.5", v605, 0);
	ROUNDTRIP("late 6.13", v613, 0);
	ROUNDTRIP("mixed", mixed, 1);
}

/*
 * Without the CPU column (or any before it), a call of 1 to 10 ms
 * starts with its '#' overhead mark: a graph line, not a header line.
 */
static void test_hash_mark(void **state)
{
	static const char text[] = "#  DURATION                  FUNCTION CALLS\n"
				   "#   |   |                     |   |   |   |\n"
				   "              |  f() {\n"
				   "# 6002.767 us |    g();\n"
				   "# 6002.768 us |  }\n"
				   "# 6002.769 us |  f(); /* a comment is no value */\n";
	struct fgtext_doc *d = load(text);

	(void)state;
	assert_int_equal(d->ev[1].kind, FGT_HEADER);
	assert_int_equal(d->stats->events, 4);
	assert_int_equal(nth_event(d, 1)->type, GEV_LEAF);
	assert_int_equal(nth_event(d, 1)->dur, 6002767);
	assert_int_equal(nth_event(d, 1)->depth, 1);
	assert_int_equal(nth_event(d, 2)->type, GEV_EXIT);
	assert_string_equal(fname(d, nth_event(d, 2)->func), "f");
	assert_true(d->layout->flags & BG_O_OVERHEAD);
	fgtext__doc_free(d);
	ROUNDTRIP("hash marks", text, 1);
	/* such a line cut short is a damaged graph line, not a comment */
	EXPECT_ERROR("              |  f() {\n# 6002.767 us |    g(\n", 0, -EINVAL, 2);
}

/*
 * bpfgraph's own text of every return type (tests/golden/out_text/, the
 * writer's goldens) and the one without CPU column, read with no line
 * lost: each line an event (no header, text or comment made of one),
 * written back byte for byte. verbatim: the lines whose value the
 * writer printed from BTF in a way the raw register does not give
 * (a long holding 0xffffffea; report prints those from the notation,
 * test_report_text.c).
 */
static void test_own_goldens(void **state)
{
	static const struct {
		const char *file;
		uint32_t retval; /* BG_O_RETVAL | BG_O_RETVAL_HEX expected */
		enum bg_dialect dialect;
		uint64_t verbatim;
		size_t headers;
	} files[] = {
		{ "out_text/types_601.out", 0, BG_DIALECT_6_1, 0, 0 },
		{ "out_text/types_605.out", BG_O_RETVAL, BG_DIALECT_6_5, 3, 0 },
		{ "out_text/types_605_hex.out", BG_O_RETVAL | BG_O_RETVAL_HEX, BG_DIALECT_6_5, 0, 0 },
		{ "out_text/types_613.out", BG_O_RETVAL, BG_DIALECT_6_13, 3, 0 },
		{ "out_text/types_613_hex.out", BG_O_RETVAL | BG_O_RETVAL_HEX, BG_DIALECT_6_13, 0, 0 },
		{ "out_text/nocpu.out", 0, BG_DIALECT_6_1, 0, 4 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		size_t len, headers = 0, lines = 0;
		char *text = slurp_golden(files[i].file, &len);
		struct fgtext_doc *d = load(text);

		check_roundtrip(files[i].file, text, len, files[i].verbatim);
		for (size_t j = 0; j < len; j++)
			lines += text[j] == '\n';
		for (size_t j = 0; j < d->n; j++) {
			headers += d->ev[j].kind == FGT_HEADER;
			if (d->ev[j].kind != FGT_EVENT && d->ev[j].kind != FGT_HEADER)
				fail_msg("%s:%u: not read as an event", files[i].file, d->ev[j].line);
		}
		assert_int_equal(headers, files[i].headers);
		/* banners take 4 lines, every other event 1 */
		for (size_t j = 0; j < d->n; j++)
			lines -= d->ev[j].kind == FGT_EVENT && d->ev[j].ev.type == GEV_BANNER ? 4 : 1;
		assert_int_equal(lines, 0);
		assert_int_equal(d->layout->flags & (BG_O_RETVAL | BG_O_RETVAL_HEX),
				 files[i].retval);
		assert_int_equal(d->layout->dialect, files[i].dialect);
		fgtext__doc_free(d);
		free(text);
	}
}

/* A "}" whose entry was never seen and that names nothing. */
static void test_unknown_exit(void **state)
{
	struct fgtext_doc *d = load(" 0)   1.000 us    |    }\n 0)   2.000 us    |  }\n");

	assert_int_equal(nth_event(d, 0)->func, FGTEXT_NOFUNC);
	assert_false(nth_event(d, 0)->tail);
	assert_int_equal(d->stats->verbatim, 0);
	fgtext__doc_free(d);
}

/* Banners that break off are passed on as they were. */
static void test_broken_banner(void **state)
{
	ROUNDTRIP("rule only", " ------------------------------------------\n 0)   1.000 us    |  f();\n", 0);
	ROUNDTRIP("no blank line",
		  " ------------------------------------------\n"
		  " 0)   rcu_pre-15   =>    <idle>-0   \n"
		  " ------------------------------------------\n"
		  " 0)   1.000 us    |  f();\n",
		  1);
	ROUNDTRIP("at the end",
		  " ------------------------------------------\n"
		  " 0)   rcu_pre-15   =>    <idle>-0   \n",
		  0);
}

/* text with every '\n' made "\r\n"; free() it. */
static char *to_crlf(const char *text, size_t *len)
{
	char *out = malloc(2 * strlen(text) + 1), *q = out;

	assert_non_null(out);
	for (; *text; text++) {
		if (*text == '\n')
			*q++ = '\r';
		*q++ = *text;
	}
	*q = '\0';
	*len = (size_t)(q - out);
	return out;
}

/*
 * CRLF text: banners are what they are in LF text (they were looked for
 * before the '\r' was cut off, and passed on as plain text), and are
 * written back as read.
 */
static void test_crlf_banner(void **state)
{
	static const char lf[] = " 0)   rcu_pre-15   |   1.000 us    |  rcu_gp_kthread();\n"
				 " ------------------------------------------\n"
				 " 0)   rcu_pre-15   =>    <idle>-0   \n"
				 " ------------------------------------------\n"
				 "\n"
				 " 0)    <idle>-0    |   0.500 us    |  cpuidle_enter();\n"
				 " ------------------------------------------\n"
				 " 1)    <idle>-0    =>     wl-102    \n"
				 " ------------------------------------------\n"
				 " 1)     wl-102     |   0.500 us    |  vfs_read();\n";
	size_t len;
	char *crlf = to_crlf(lf, &len);
	struct fgtext_doc *a = load(lf), *b = load(crlf);

	assert_int_equal(b->n, a->n);
	for (size_t i = 0; i < a->n; i++) {
		const struct gev *x = &a->ev[i].ev, *y = &b->ev[i].ev;

		assert_int_equal(b->ev[i].kind, a->ev[i].kind);
		if (a->ev[i].kind != FGT_EVENT)
			continue;
		assert_int_equal(y->type, x->type);
		assert_int_equal(y->cpu, x->cpu);
		assert_int_equal(y->pid, x->pid);
		assert_int_equal(y->prev_pid, x->prev_pid);
		assert_string_equal(y->comm, x->comm);
		if (x->type == GEV_BANNER)
			assert_string_equal(y->prev_comm, x->prev_comm);
	}
	assert_int_equal(nth_event(b, 1)->type, GEV_BANNER);
	assert_string_equal(nth_event(b, 1)->comm, "<idle>");
	assert_int_equal(nth_event(b, 3)->type, GEV_BANNER);
	assert_int_equal(nth_event(b, 3)->pid, 102);
	assert_int_equal(b->stats->other, 0);
	fgtext__doc_free(a);
	fgtext__doc_free(b);
	/* out_text prints no '\r': every event is kept verbatim */
	check_roundtrip("crlf banner", crlf, len, 5);
	free(crlf);
}

/*
 * In "f(); / * * /" the comment's opening and closing overlap: the return
 * value was looked for past the end of the line, a heap overflow under
 * fuzz_fgtext when the line filled its buffer
 * (tests/fuzz/corpus/fgtext/regress-comment-overlap.txt).
 */
static void test_comment_overlap(void **state)
{
	char line[256];
	struct fgtext_doc *d;

	snprintf(line, sizeof(line), "%245sf(); /* */", "");
	assert_int_equal(strlen(line), 255);
	d = load(line);
	assert_int_equal(d->n, 1);
	assert_int_equal(d->ev[0].kind, FGT_TEXT);
	assert_int_equal(d->stats->calls, 0);
	fgtext__doc_free(d);
	check_roundtrip("overlap", line, strlen(line), 0);
	EXPECT_ERROR(" 0)   1.000 us    |  f(); /* */\n", 0, -EINVAL, 1);
	EXPECT_ERROR(" 0)   1.000 us    |  f(); /*/\n", 0, -EINVAL, 1);
}

/* --- arguments and return addresses ---------------------------------------- */

/* What an event must carry: NULL for "none". */
struct want_call {
	enum gev_type type;
	uint32_t depth;
	const char *name, *args, *retaddr;
	bool has_ret;
	uint64_t ret;
};

static void assert_opt_string(const char *got, const char *want)
{
	if (!want)
		assert_null(got);
	else
		assert_string_equal(got, want);
}

static void check_calls(const struct fgtext_doc *d, const struct want_call *w, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < d->n; i++) {
		const struct fgtext_ev *e = &d->ev[i];

		if (e->kind != FGT_EVENT)
			continue;
		assert_true(k < n);
		assert_int_equal(e->ev.type, w[k].type);
		assert_int_equal(e->ev.depth, w[k].depth);
		assert_string_equal(fname(d, e->ev.func), w[k].name);
		assert_opt_string(e->args, w[k].args);
		assert_opt_string(e->retaddr, w[k].retaddr);
		assert_int_equal(e->has_ret, w[k].has_ret);
		if (w[k].has_ret)
			assert_int_equal(e->ev.ret, w[k].ret);
		k++;
	}
	assert_int_equal(k, n);
}

#define CHECK_CALLS(d, w) check_calls(d, w, sizeof(w) / sizeof(w[0]))

static const struct want_call args_619[] = {
	{ GEV_ENTER, 0, "do_sys_openat2", "dfd=4294967196, filename=0x47a073, how=0xff46c0c0",
	  "do_sys_open+0x6b/0xb0" },
	{ GEV_LEAF, 1, "getname", "filename=0x47a073", "do_sys_openat2+0x71/0x140", true,
	  0xffff888103f1c000ULL },
	{ GEV_LEAF, 1, "get_unused_fd_flags", "flags=0x8000", "do_sys_openat2+0x9c/0x140", true, 3 },
	{ GEV_ENTER, 1, "do_filp_open", "dfd=-100, pathname=0xffff888103f1c000, op=0xffffc90000237ec4",
	  "do_sys_openat2+0xb8/0x140" },
	{ GEV_LEAF, 2, "path_openat", "nd=0xffffc90000237dc0, op=0xffffc90000237ec4, flags=0x41",
	  "do_filp_open+0xc4/0x170", true, (uint64_t)-2 },
	{ GEV_EXIT, 1, "do_filp_open", NULL, NULL, true, (uint64_t)-2 },
	{ GEV_LEAF, 1, "put_unused_fd", "fd=3", "do_sys_openat2+0x11f/0x140", true, 0 },
	{ GEV_EXIT, 0, "do_sys_openat2", NULL, NULL, true, (uint64_t)-2 },
};

/* The arguments between the parentheses, the caller after "<-", as printed. */
static void test_args_read(void **state)
{
	static const struct want_call args_615[] = {
		{ GEV_ENTER, 0, "do_sys_openat2", "dfd=4294967196, filename=0x47a073, how=0xff46c0c0" },
		{ GEV_LEAF, 1, "getname", "filename=0x47a073" },
		{ GEV_ENTER, 1, "do_filp_open",
		  "dfd=-100, pathname=0xffff8881020ad000, op=0xffffc90000237ec4" },
		{ GEV_LEAF, 2, "path_init.isra.0" },
		{ GEV_LEAF, 2, "timespec64_add_safe", "lhs=(STRUCT)[0xef:0x10c8f152], rhs=(STRUCT)[0x4:0x0]" },
		{ GEV_LEAF, 2, "six", "a=1, b=2, c=3, d=4, e=5, f=6, ..." },
		{ GEV_LEAF, 2, "big", "a=1, s=(STRUCT)[0x1:0x2:0x3:0x4:0x5:...]" },
		{ GEV_LEAF, 2, "va", "fmt=0xffffffff82000000, =?0x0" },
		{ GEV_LEAF, 2, "nft_do_chain [nf_tables]", "pkt=0xffffc90000237b40, priv=0xffff888104d3e000" },
		{ GEV_EXIT, 1, "do_filp_open" },
		{ GEV_EXIT, 0, "do_sys_openat2" },
	};
	static const struct want_call retaddr_613[] = {
		{ GEV_ENTER, 0, "vfs_read", NULL, "ksys_read+0x6d/0xf0" },
		{ GEV_LEAF, 1, "rw_verify_area", NULL, "vfs_read+0x9a/0x1a0" },
		{ GEV_ENTER, 1, "nft_do_chain [nf_tables]", NULL, "nft_do_chain_ipv4+0x6a/0xa0 [nf_tables]" },
		{ GEV_LEAF, 2, "nft_immediate_eval [nf_tables]", NULL,
		  "nft_do_chain+0x120/0x5a0 [nf_tables] <ffffffffc0a01234>" },
		{ GEV_EXIT, 1, "nft_do_chain [nf_tables]" },
		{ GEV_LEAF, 1, "fsnotify", NULL, "0" },
		{ GEV_LEAF, 1, "__fsnotify_parent" },
		{ GEV_LEAF, 1, "fsnotify_perm", NULL, "0xffffffffc0a01234" },
		{ GEV_LEAF, 1, "security_file_permission", NULL, "[unknown/kretprobe'd]" },
		{ GEV_EXIT, 0, "vfs_read" },
	};
	static const struct want_call retval_613[] = {
		{ GEV_ENTER, 0, "vfs_read", NULL, "ksys_read+0x6d/0xf0" },
		{ GEV_LEAF, 1, "rw_verify_area", NULL, "vfs_read+0x9a/0x1a0", true, 0 },
		{ GEV_LEAF, 1, "security_file_permission", NULL, "rw_verify_area+0x4b/0x110", true,
		  (uint64_t)-13 },
		{ GEV_LEAF, 1, "fsnotify_access", NULL, NULL, true, 0 },
		{ GEV_EXIT, 0, "vfs_read", NULL, NULL, true, (uint64_t)-13 },
	};
	static const struct want_call strings[] = {
		{ GEV_ENTER, 0, "do_sys_openat2", "dfd=-100, filename=\"/tmp/a) { b; /* c */\", how=0xff46c0c0" },
		{ GEV_LEAF, 1, "getname", "filename=\"q\\\"(\\\\\"", "do_sys_openat2+0x71/0x140", true,
		  (uint64_t)-2 },
		{ GEV_EXIT, 0, "do_sys_openat2", NULL, NULL, true, (uint64_t)-2 },
	};
	struct fgtext_doc *d = dialect("args 6.15");

	CHECK_CALLS(d, args_615);
	assert_int_equal(d->layout->cols, FGT_L_ARGS);
	assert_int_equal(d->layout->dialect, BG_DIALECT_6_1);
	fgtext__doc_free(d);

	d = dialect("retaddr 6.13");
	CHECK_CALLS(d, retaddr_613);
	assert_int_equal(d->layout->cols, FGT_L_RETADDR);
	/* no value anywhere: nothing says return values were on */
	assert_false(d->layout->flags & BG_O_RETVAL);
	assert_false(d->layout->known & BG_O_RETVAL);
	fgtext__doc_free(d);

	d = dialect("retaddr retval 6.13");
	CHECK_CALLS(d, retval_613);
	assert_int_equal(d->layout->dialect, BG_DIALECT_6_13);
	assert_true(d->layout->flags & BG_O_RETVAL);
	assert_false(d->layout->flags & BG_O_RETVAL_HEX);
	fgtext__doc_free(d);

	d = dialect("args retaddr 6.19");
	CHECK_CALLS(d, args_619);
	assert_int_equal(d->layout->cols, FGT_L_ARGS | FGT_L_RETADDR);
	assert_int_equal(d->layout->dialect, BG_DIALECT_6_13);
	/* lines with arguments are printed again like the rest */
	assert_null(d->ev[0].text);
	assert_null(d->ev[5].text);
	fgtext__doc_free(d);

	d = dialect("args strings");
	CHECK_CALLS(d, strings);
	fgtext__doc_free(d);
}

/* Every column layout keeps the arguments and the return address apart. */
static void test_args_columns(void **state)
{
	struct fgtext_doc *d = dialect("args abstime proc");

	assert_int_equal(d->layout->flags & (BG_O_ABSTIME | BG_O_CPU | BG_O_PROC | BG_O_DURATION),
			 BG_O_ABSTIME | BG_O_CPU | BG_O_PROC | BG_O_DURATION);
	assert_string_equal(d->ev[4].args, "file=0xffff888102c3e500, buf=0x7f0c2d1e4000, "
					   "count=0x20000, pos=0xffffc90000327f08");
	assert_string_equal(d->ev[4].retaddr, "ksys_read+0x6d/0xf0");
	assert_string_equal(d->ev[5].args, "read_write=0, file=0xffff888102c3e500, "
					   "ppos=0xffffc90000327f08, count=0x20000");
	assert_string_equal(d->ev[5].retaddr, "vfs_read+0x9a/0x1a0");
	assert_int_equal(d->ev[5].ev.pid, 102);
	assert_int_equal(d->ev[5].ev.ts, 572147388000ULL);
	assert_null(d->ev[6].args);
	fgtext__doc_free(d);

	d = dialect("args nocpu noduration");
	assert_false(d->layout->flags & (BG_O_CPU | BG_O_DURATION));
	assert_string_equal(fname(d, d->ev[1].ev.func), "getname");
	assert_int_equal(d->ev[1].ev.type, GEV_LEAF);
	assert_int_equal(d->ev[1].ev.depth, 1);
	assert_string_equal(d->ev[1].args, "filename=0x47a073");
	assert_string_equal(d->ev[1].retaddr, "do_sys_openat2+0x71/0x140");
	fgtext__doc_free(d);

	d = dialect("args latency");
	assert_int_equal(d->layout->cols, FGT_L_LATENCY | FGT_L_ARGS);
	assert_string_equal(d->ev[2].args, "dfd=-100, filename=0x47a073, how=0xff46c0c0");
	fgtext__doc_free(d);
}

/* CRLF: the same events, no '\r' in what they carry, the bytes given back. */
static void test_args_crlf(void **state)
{
	size_t len;
	const char *lf = NULL;
	char *crlf;
	struct fgtext_doc *d;

	for (size_t i = 0; i < sizeof(dialects) / sizeof(dialects[0]); i++)
		if (!strcmp(dialects[i].name, "args retaddr 6.19"))
			lf = dialects[i].text;
	assert_non_null(lf);
	crlf = to_crlf(lf, &len);
	d = load(crlf);
	CHECK_CALLS(d, args_619);
	assert_int_equal(d->layout->dialect, BG_DIALECT_6_13);
	fgtext__doc_free(d);
	check_roundtrip("args crlf", crlf, len, 8);
	free(crlf);
}

/* Joined lines (seed 004's form): the pieces keep arguments, callers and values. */
static void test_args_joined(void **state)
{
	static const char text[] =
		"### Packet 1 ### 0) | do_sys_openat2(dfd=4294967196, filename=0x47a073, how=0xff46c0c0) {"
		" /* <-do_sys_open+0x6b/0xb0 */ 0) 0.345 us | getname(filename=0x47a073);"
		" /* <-do_sys_openat2+0x71/0x140 ret=0xffff888103f1c000 */ 0) 0.210 us |"
		" get_unused_fd_flags(flags=0x8000); /* <-do_sys_openat2+0x9c/0x140 ret=0x3 */"
		" 0) | do_filp_open(dfd=-100, pathname=0xffff888103f1c000, op=0xffffc90000237ec4) {"
		" /* <-do_sys_openat2+0xb8/0x140 */ 0) 0.150 us | path_openat(nd=0xffffc90000237dc0,"
		" op=0xffffc90000237ec4, flags=0x41); /* <-do_filp_open+0xc4/0x170 ret=-2 */"
		" 0) 1.200 us | } /* do_filp_open ret=-2 */ 0) 0.080 us | put_unused_fd(fd=3);"
		" /* <-do_sys_openat2+0x11f/0x140 ret=0x0 */ 0) 3.000 us | } /* do_sys_openat2 ret=-2 */";
	struct fgtext_doc *d = load(text);

	assert_int_equal(d->stats->joined, 1);
	assert_int_equal(d->stats->recovered, 8);
	CHECK_CALLS(d, args_619);
	assert_int_equal(d->layout->cols, FGT_L_ARGS | FGT_L_RETADDR);
	assert_int_equal(d->layout->dialect, BG_DIALECT_6_13);
	assert_true(d->layout->flags & BG_O_RETVAL);
	fgtext__doc_free(d);
}

/* Without keep_text the callback still gets them, valid while it runs. */
static int keep_args(void *ctx, const struct fgtext_ev *e, const struct functab *ft)
{
	char **got = ctx;

	if (e->kind != FGT_EVENT || e->ev.type == GEV_EXIT)
		return 0;
	assert_null(e->text);
	for (size_t i = 0; i < 16; i += 2) {
		if (got[i])
			continue;
		got[i] = e->args ? strdup(e->args) : strdup("-");
		got[i + 1] = e->retaddr ? strdup(e->retaddr) : strdup("-");
		break;
	}
	return 0;
}

static void test_args_streaming(void **state)
{
	static const char text[] = " 0)   0.345 us    |  a(x=1); /* <-b+0x1/0x2 */\n"
				   " 0)   0.345 us    |  c(); /* <-d+0x3/0x4 */\n"
				   " 0)   0.345 us    |  e(y=0x2);\n"
				   " 0)   0.345 us    |  f();\n";
	static const char *const want[] = { "x=1", "b+0x1/0x2", "-", "d+0x3/0x4", "y=0x2", "-", "-", "-" };
	char *got[16] = {};
	struct fgtext_opts o = { .emit = keep_args, .ctx = got };
	struct fgtext *r = fgtext__new(&o);
	FILE *f = open_text(text, strlen(text));

	assert_non_null(r);
	assert_int_equal(fgtext__read(r, f), 0);
	for (size_t i = 0; i < 8; i++) {
		assert_non_null(got[i]);
		assert_string_equal(got[i], want[i]);
		free(got[i]);
	}
	assert_null(got[8]);
	assert_int_equal(fgtext__layout(r)->cols, FGT_L_ARGS | FGT_L_RETADDR);
	fgtext__free(r);
	fclose(f);
}

/* A newer kernel's typed values: the names come out right, the text stays. */
static void test_typed_retval(void **state)
{
	static const struct want_call want[] = {
		{ GEV_ENTER, 0, "touch_atime", "path=0xffffc90000327e70, inode=0xffff888101a3c6a8" },
		{ GEV_ENTER, 1, "atime_needs_update" },
		{ GEV_LEAF, 2, "make_vfsuid", NULL, NULL, true, 0 },
		{ GEV_LEAF, 2, "ktime_get_coarse_real_ts64_mg", NULL, "current_time+0x3b/0x90" },
		{ GEV_EXIT, 2, "current_time" },
		{ GEV_EXIT, 1, "atime_needs_update" },
		{ GEV_EXIT, 0, "touch_atime" },
	};
	struct fgtext_doc *d = dialect("typed return values");

	CHECK_CALLS(d, want);
	/* "current_time" was not entered at that depth; the others were */
	assert_true(nth_event(d, 4)->tail);
	assert_false(nth_event(d, 5)->tail);
	/* values decided by the number, not by "ret=false" */
	assert_true(d->layout->flags & BG_O_RETVAL);
	assert_int_equal(d->layout->dialect, BG_DIALECT_6_13);
	fgtext__doc_free(d);
	/* a first value that is not a number decides nothing */
	d = load(" 0)   0.100 us    |  a(); /* ret=true */\n 0)   0.100 us    |  b(); /* ret=-2 */\n");
	assert_false(d->ev[0].has_ret);
	assert_true(d->layout->flags & BG_O_RETVAL);
	assert_int_equal(d->layout->dialect, BG_DIALECT_6_13);
	fgtext__doc_free(d);
}

/* Arguments that are two lines run together, or not closed, are no call. */
static void test_args_malformed(void **state)
{
	EXPECT_ERROR(" 0)   1.000 us    |  f(a=1;\n", 0, -EINVAL, 1);
	EXPECT_ERROR(" 0)   1.000 us    |  f(a=(1);\n", 0, -EINVAL, 1);
	EXPECT_ERROR(" 0)   1.000 us    |  f(a=1));\n", 0, -EINVAL, 1);
	EXPECT_ERROR(" 0)   1.000 us    |  f(a={1});\n", 0, -EINVAL, 1);
	/* --args-detail's members: " {...}" closing an argument, unnested */
	EXPECT_ERROR(" 0)   1.000 us    |  f(a=1 {x);\n", 0, -EINVAL, 1);
	EXPECT_ERROR(" 0)   1.000 us    |  f(a=1 {x}y);\n", 0, -EINVAL, 1);
	EXPECT_ERROR(" 0)   1.000 us    |  f(a=1 {x {y}});\n", 0, -EINVAL, 1);
	EXPECT_ERROR(" 0)   1.000 us    |  f(a=1 } {x});\n", 0, -EINVAL, 1);
	EXPECT_ERROR(" 0)   1.000 us    |  f(a=\"1);\n", 0, -EINVAL, 1);
	EXPECT_ERROR(" 0)   1.000 us    |  f(a=\"1\\\");\n", 0, -EINVAL, 1);
	EXPECT_ERROR(" 0)               |  f(a=1) { /* <-g+0x1/0x2 */ x\n", 0, -EINVAL, 1);
	EXPECT_ERROR(" 0)   1.000 us    |  f(a=1); g(b=2);\n", 0, -EINVAL, 1);
}

static void assert_arg(const char **pos, const char *name, const char *value,
		       enum fgtext_arg_kind kind, uint64_t num)
{
	struct fgtext_arg a;

	assert_true(fgtext__next_arg(pos, &a));
	if (name) {
		assert_non_null(a.name);
		assert_int_equal(a.name_len, strlen(name));
		assert_memory_equal(a.name, name, a.name_len);
	} else {
		assert_int_equal(a.name_len, 0);
	}
	assert_int_equal(a.value_len, strlen(value));
	assert_memory_equal(a.value, value, a.value_len);
	assert_int_equal(a.kind, kind);
	assert_int_equal(a.num, num);
}

/* The next argument has a detail, detail. */
static void assert_detail(const char **pos, const char *detail)
{
	struct fgtext_arg a;

	assert_true(fgtext__next_arg(pos, &a));
	assert_non_null(a.detail);
	assert_int_equal(a.detail_len, strlen(detail));
	assert_memory_equal(a.detail, detail, a.detail_len);
	assert_int_equal(a.kind, FGT_ARG_HEX);
}

static void test_next_arg(void **state)
{
	const char *p = "dfd=4294967196, filename=0x47a073, how=0xff46c0c0, dfd2=-100, x=?0x5,"
			" lhs=(STRUCT)[0xef:0x10c8f152], s=(UNION)[0x1:...], =?0x0, "
			"name=\"a, b) (c\\\"\", f=1.5, ...";
	struct fgtext_arg a;

	assert_arg(&p, "dfd", "4294967196", FGT_ARG_DEC, 4294967196ULL);
	assert_arg(&p, "filename", "0x47a073", FGT_ARG_HEX, 0x47a073);
	assert_arg(&p, "how", "0xff46c0c0", FGT_ARG_HEX, 0xff46c0c0);
	assert_arg(&p, "dfd2", "-100", FGT_ARG_DEC, (uint64_t)-100);
	assert_arg(&p, "x", "?0x5", FGT_ARG_UNKNOWN, 5);
	assert_arg(&p, "lhs", "(STRUCT)[0xef:0x10c8f152]", FGT_ARG_WORDS, 0);
	assert_arg(&p, "s", "(UNION)[0x1:...]", FGT_ARG_WORDS, 0);
	assert_arg(&p, NULL, "?0x0", FGT_ARG_UNKNOWN, 0);
	assert_arg(&p, "name", "\"a, b) (c\\\"\"", FGT_ARG_OTHER, 0);
	assert_arg(&p, "f", "1.5", FGT_ARG_OTHER, 0);
	assert_arg(&p, NULL, "...", FGT_ARG_MORE, 0);
	assert_false(fgtext__next_arg(&p, &a));
	/* --args-detail: the value alone, what follows it apart */
	p = "filename=0x47a073 \"/tmp/a\\x2c b, c\"..., how=0xff46 {flags=0x8000 mode=0}, "
	    "x=0x1 <fault>, e=0 [PIDTYPE_PID], y=0x2 z";
	assert_detail(&p, "\"/tmp/a\\x2c b, c\"...");
	assert_detail(&p, "{flags=0x8000 mode=0}");
	assert_detail(&p, "<fault>");
	assert_arg(&p, "e", "0 [PIDTYPE_PID]", FGT_ARG_OTHER, 0);
	assert_arg(&p, "y", "0x2 z", FGT_ARG_OTHER, 0);
	p = "";
	assert_false(fgtext__next_arg(&p, &a));
	p = NULL;
	assert_false(fgtext__next_arg(&p, &a));
	/* no name, odd separators, numbers that do not fit */
	p = "5,0x,0xffffffffffffffffff,-";
	assert_arg(&p, NULL, "5", FGT_ARG_DEC, 5);
	assert_arg(&p, NULL, "0x", FGT_ARG_OTHER, 0);
	assert_arg(&p, NULL, "0xffffffffffffffffff", FGT_ARG_OTHER, 0);
	assert_arg(&p, NULL, "-", FGT_ARG_OTHER, 0);
	assert_false(fgtext__next_arg(&p, &a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_copies),
		cmocka_unit_test(test_seed_000),
		cmocka_unit_test(test_seed_001),
		cmocka_unit_test(test_seed_002_003),
		cmocka_unit_test(test_seed_004),
		cmocka_unit_test(test_dialects_roundtrip),
		cmocka_unit_test(test_default_events),
		cmocka_unit_test(test_retval_read),
		cmocka_unit_test(test_columns_read),
		cmocka_unit_test(test_tail_thresh_lost),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_streaming),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_lenient),
		cmocka_unit_test(test_lenient_limits),
		cmocka_unit_test(test_lenient_layout),
		cmocka_unit_test(test_lenient_warn),
		cmocka_unit_test(test_late_retval),
		cmocka_unit_test(test_hash_mark),
		cmocka_unit_test(test_own_goldens),
		cmocka_unit_test(test_unknown_exit),
		cmocka_unit_test(test_broken_banner),
		cmocka_unit_test(test_crlf_banner),
		cmocka_unit_test(test_comment_overlap),
		cmocka_unit_test(test_args_read),
		cmocka_unit_test(test_args_columns),
		cmocka_unit_test(test_args_crlf),
		cmocka_unit_test(test_args_joined),
		cmocka_unit_test(test_args_streaming),
		cmocka_unit_test(test_typed_retval),
		cmocka_unit_test(test_args_malformed),
		cmocka_unit_test(test_next_arg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
