// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Graph builder tests. Most cases are scripts: tests/golden/graph/<case>.in
 * lists functions, options and records, <case>.out holds the exact text
 * the builder and the text writer must produce from them. Script lines:
 *
 *   nr_cpu_ids N            possible CPUs (CPU column width), default 2
 *   opts TOKEN...           default | [+-]cpu overhead proc duration abstime
 *                           tail retval retval-hex context-info args retaddr
 *                           (default: default)
 *   dialect 601|605|613|615|617|619  default 601
 *   header 0|1              "# tracer" block first, default 0
 *   func NAME [mod=M] [ret=void|signed|unsigned|bool|ptr|unknown[:SIZE]]
 *   comm PID NAME [TGID]    a BG_REC_COMM record (TGID: its process id)
 *   E CPU PID FUNC DEPTH TS [CALLER]        entry (CALLER: return address)
 *   A CPU FUNC PART R0 R1 R2                BG_REC_ARGS (registers 3*PART..)
 *   proto FUNC [NAME:TYPE]...               a BTF prototype for funcgraph-args;
 *                                           TYPE int, uint, long, ulong, ptr,
 *                                           bool, enum or struct16
 *   sym ADDR SIZE NAME [MOD]                a kallsyms symbol for funcgraph-retaddr
 *   X CPU PID FUNC DEPTH TS DUR [RET]       exit (XU: DUR in us, BG_RF_DUR_US)
 *   S CPU PID TS            a BG_REC_SWITCH record
 *   lost CPU COUNT          graph__lost()
 *   drain UPTO              graph__drain()
 *   flush                   graph__flush()
 *   echo TEXT               TEXT and a newline straight to the output
 *
 * Every script ends with an implicit flush. Numbers take C prefixes (0x).
 */
#include <errno.h>
#include <inttypes.h>

#include <bpf/btf.h>

#include "golden.h"

#include "args_src.h"
#include "graph.h"
#include "out_text.h"

#define MAX_SYMS 16

struct script_sym {
	uint64_t addr, size;
	char name[64], mod[32];
};

struct run {
	struct functab ft;
	struct btf *btf; /* prototypes (proto lines) */
	int types[8]; /* int uint long ulong ptr bool enum struct16 */
	struct script_sym syms[MAX_SYMS];
	int nsyms;
	struct args_src as;
	struct out_text_opts wo;
	struct out_text *w;
	struct graph *g;
	FILE *mem;
	char *buf;
	size_t len;
	const char *name;
	int line;
};

#define script_fail(r, ...)                                                           \
	do {                                                                          \
		fprintf(stderr, "%s.in:%d: ", (r)->name, (r)->line);                  \
		fprintf(stderr, __VA_ARGS__);                                         \
		fputc('\n', stderr);                                                  \
		fail();                                                               \
	} while (0)

static uint64_t num(struct run *r, const char *s)
{
	char *end;
	uint64_t v;

	if (!s)
		script_fail(r, "missing number");
	errno = 0;
	v = strtoull(s, &end, 0);
	if (*s == '-')
		v = (uint64_t)strtoll(s, &end, 0);
	if (errno || *end)
		script_fail(r, "bad number '%s'", s);
	return v;
}

static uint32_t func_id(struct run *r, const char *name)
{
	int i;

	if (!name)
		script_fail(r, "missing function");
	i = functab__find(&r->ft, name, NULL);
	if (i < 0)
		script_fail(r, "unknown function '%s'", name);
	return (uint32_t)i;
}

static const struct {
	const char *name;
	uint32_t flag;
} opt_names[] = {
	{ "cpu", BG_O_CPU },
	{ "overhead", BG_O_OVERHEAD },
	{ "proc", BG_O_PROC },
	{ "duration", BG_O_DURATION },
	{ "abstime", BG_O_ABSTIME },
	{ "irqs", BG_O_IRQS },
	{ "tail", BG_O_TAIL },
	{ "retval", BG_O_RETVAL },
	{ "retval-hex", BG_O_RETVAL_HEX },
	{ "context-info", BG_O_CONTEXT_INFO },
	{ "args", BG_O_ARGS },
	{ "retaddr", BG_O_RETADDR },
};

static void parse_opts(struct run *r, char **tok)
{
	r->wo.flags = 0;
	for (; *tok; tok++) {
		const char *t = *tok;
		bool off = *t == '-';
		size_t i;

		if (!strcmp(t, "default")) {
			r->wo.flags |= BG_O_DEFAULTS;
			continue;
		}
		t += (*t == '-' || *t == '+');
		for (i = 0; i < sizeof(opt_names) / sizeof(opt_names[0]); i++)
			if (!strcmp(t, opt_names[i].name))
				break;
		if (i == sizeof(opt_names) / sizeof(opt_names[0]))
			script_fail(r, "unknown option '%s'", t);
		if (off)
			r->wo.flags &= ~opt_names[i].flag;
		else
			r->wo.flags |= opt_names[i].flag;
	}
}

static const char *const ret_kinds[] = {
	[BG_RET_UNKNOWN] = "unknown", [BG_RET_VOID] = "void", [BG_RET_SIGNED] = "signed",
	[BG_RET_UNSIGNED] = "unsigned", [BG_RET_BOOL] = "bool", [BG_RET_PTR] = "ptr",
};

static void parse_func(struct run *r, char **tok)
{
	const char *mod = NULL, *ret = NULL;
	struct bg_func *f;
	int i;

	for (char **t = tok + 1; *t; t++) {
		if (!strncmp(*t, "mod=", 4))
			mod = *t + 4;
		else if (!strncmp(*t, "ret=", 4))
			ret = *t + 4;
		else
			script_fail(r, "bad func attribute '%s'", *t);
	}
	i = functab__add(&r->ft, tok[0], mod, 0xffffffff81000000ULL + r->ft.n * 0x100, 0x100);
	assert_true(i >= 0);
	f = &r->ft.f[i];
	f->ret_size = 8;
	if (!ret)
		return;
	for (size_t k = 0; k < sizeof(ret_kinds) / sizeof(ret_kinds[0]); k++) {
		size_t n = strlen(ret_kinds[k]);

		if (!strncmp(ret, ret_kinds[k], n) && (ret[n] == '\0' || ret[n] == ':')) {
			f->ret_kind = (uint8_t)k;
			if (ret[n] == ':')
				f->ret_size = (uint8_t)num(r, ret + n + 1);
			return;
		}
	}
	script_fail(r, "bad return kind '%s'", ret);
}

static const char *const type_names[] = { "int", "uint", "long", "ulong",
					   "ptr", "bool", "enum", "struct16" };

static void make_types(struct run *r)
{
	int *t = r->types;
	int e;

	r->btf = btf__new_empty();
	assert_non_null(r->btf);
	t[0] = btf__add_int(r->btf, "int", 4, BTF_INT_SIGNED);
	t[1] = btf__add_int(r->btf, "unsigned int", 4, 0);
	t[2] = btf__add_int(r->btf, "long", 8, BTF_INT_SIGNED);
	t[3] = btf__add_int(r->btf, "unsigned long", 8, 0);
	t[4] = btf__add_ptr(r->btf, t[2]);
	t[5] = btf__add_int(r->btf, "_Bool", 1, BTF_INT_BOOL);
	t[6] = e = btf__add_enum(r->btf, "mode", 4);
	assert_int_equal(btf__add_enum_value(r->btf, "MODE_A", 1), 0);
	/* 7.3 names an enum's value: "f=2 [MODE_B]" from 6.19 on */
	assert_int_equal(btf__add_enum_value(r->btf, "MODE_B", 2), 0);
	t[7] = btf__add_struct(r->btf, "pair", 16);
	assert_int_equal(btf__add_field(r->btf, "a", t[3], 0, 0), 0);
	assert_int_equal(btf__add_field(r->btf, "b", t[3], 64, 0), 0);
	(void)e;
}

/* proto FUNC NAME:TYPE...: a FUNC in the script's BTF. */
static void parse_proto(struct run *r, char **tok, int n)
{
	int proto;

	if (!r->btf)
		make_types(r);
	proto = btf__add_func_proto(r->btf, r->types[0]);
	assert_true(proto > 0);
	for (int i = 1; i < n; i++) {
		char *colon = strchr(tok[i], ':');
		size_t k;

		if (!colon)
			script_fail(r, "proto parameter '%s' lacks :TYPE", tok[i]);
		*colon = '\0';
		for (k = 0; k < sizeof(type_names) / sizeof(type_names[0]); k++)
			if (!strcmp(colon + 1, type_names[k]))
				break;
		if (k == sizeof(type_names) / sizeof(type_names[0]))
			script_fail(r, "unknown type '%s'", colon + 1);
		assert_int_equal(btf__add_func_param(r->btf, tok[i], r->types[k]), 0);
	}
	assert_true(btf__add_func(r->btf, tok[0], BTF_FUNC_GLOBAL, proto) > 0);
}

static int script_sym(void *ctx, uint64_t addr, struct args_sym *out)
{
	struct run *r = ctx;

	for (int i = 0; i < r->nsyms; i++) {
		const struct script_sym *s = &r->syms[i];

		if (addr >= s->addr && addr < s->addr + s->size) {
			*out = (struct args_sym){ s->name, s->mod[0] ? s->mod : NULL, s->addr,
						  s->size };
			return 0;
		}
	}
	return -ENOENT;
}

static void parse_sym(struct run *r, char **tok, int n)
{
	struct script_sym *s;

	if ((n != 3 && n != 4) || r->nsyms == MAX_SYMS)
		script_fail(r, "sym ADDR SIZE NAME [MOD]");
	s = &r->syms[r->nsyms++];
	s->addr = num(r, tok[0]);
	s->size = num(r, tok[1]);
	snprintf(s->name, sizeof(s->name), "%s", tok[2]);
	if (n == 4)
		snprintf(s->mod, sizeof(s->mod), "%s", tok[3]);
}

/* Writer and graph exist from the first record on: options come first. */
static void start(struct run *r)
{
	struct graph_opts go = { .funcs = &r->ft };

	if (r->g)
		return;
	r->mem = open_memstream(&r->buf, &r->len);
	assert_non_null(r->mem);
	r->wo.out = r->mem;
	r->wo.funcs = &r->ft;
	r->as = (struct args_src){ .btf = r->btf, .sym = script_sym, .sym_ctx = r };
	r->wo.args = &r->as;
	r->w = out_text__new(&r->wo);
	assert_non_null(r->w);
	go.sink.emit = out_text__emit;
	go.sink.ctx = r->w;
	r->g = graph__new(&go);
	assert_non_null(r->g);
	out_text__begin(r->w);
}

static void feed(struct run *r, const struct bg_rec *rec)
{
	int err;

	start(r);
	err = graph__feed(r->g, rec);
	if (err)
		script_fail(r, "graph__feed: %d", err);
}

static void do_record(struct run *r, const char *op, char **a, int n)
{
	struct bg_rec rec = { 0 };

	if (!strcmp(op, "S")) {
		if (n != 3)
			script_fail(r, "S takes 3 arguments");
		rec.type = BG_REC_SWITCH;
		rec.cpu = (uint16_t)num(r, a[0]);
		rec.pid = (uint32_t)num(r, a[1]);
		rec.ts = num(r, a[2]);
		feed(r, &rec);
		return;
	}
	if (!strcmp(op, "A")) {
		if (n != 6)
			script_fail(r, "A takes 6 arguments");
		rec.type = BG_REC_ARGS;
		rec.cpu = (uint16_t)num(r, a[0]);
		rec.func = func_id(r, a[1]);
		rec.depth = (uint8_t)num(r, a[2]);
		rec.ts = num(r, a[3]);
		rec.val = num(r, a[4]);
		rec.dur = (uint32_t)num(r, a[5]);
		rec.pid = (uint32_t)(num(r, a[5]) >> 32);
		feed(r, &rec);
		return;
	}
	if (n < 5 || (op[0] == 'E' && n != 5 && n != 6) || (op[0] == 'X' && n != 6 && n != 7))
		script_fail(r, "wrong number of arguments for %s", op);
	rec.cpu = (uint16_t)num(r, a[0]);
	rec.pid = (uint32_t)num(r, a[1]);
	rec.func = func_id(r, a[2]);
	rec.depth = (uint8_t)num(r, a[3]);
	rec.ts = num(r, a[4]);
	if (op[0] == 'E') {
		rec.type = BG_REC_ENTRY;
		rec.val = n == 6 ? num(r, a[5]) : 0;
	} else {
		rec.type = BG_REC_EXIT | (op[1] == 'U' ? BG_RF_DUR_US : 0);
		rec.dur = (uint32_t)num(r, a[5]);
		rec.val = n == 7 ? num(r, a[6]) : 0;
	}
	feed(r, &rec);
}

static void do_comm(struct run *r, char **a, int n)
{
	struct bg_rec rec = { .type = BG_REC_COMM };
	char comm[BG_COMM_LEN] = { 0 };

	if (n != 2 || strlen(a[1]) > BG_COMM_LEN)
		script_fail(r, "comm PID NAME (at most 16 bytes)");
	rec.pid = (uint32_t)num(r, a[0]);
	memcpy(comm, a[1], strlen(a[1]));
	memcpy(&rec.ts, comm, sizeof(rec.ts));
	memcpy(&rec.val, comm + sizeof(rec.ts), sizeof(rec.val));
	feed(r, &rec);
}

static bool is_setting(const char *op)
{
	return !strcmp(op, "nr_cpu_ids") || !strcmp(op, "opts") || !strcmp(op, "dialect") ||
	       !strcmp(op, "header");
}

static void do_setting(struct run *r, char **tok, int n)
{
	if (r->g)
		script_fail(r, "settings must come before the first record");
	if (!strcmp(tok[0], "opts"))
		parse_opts(r, tok + 1);
	else if (n != 2)
		script_fail(r, "%s takes one argument", tok[0]);
	else if (!strcmp(tok[0], "nr_cpu_ids"))
		r->wo.nr_cpu_ids = (uint32_t)num(r, tok[1]);
	else if (!strcmp(tok[0], "dialect"))
		r->wo.dialect = (enum bg_dialect)num(r, tok[1]);
	else
		r->wo.header = num(r, tok[1]) != 0;
}

static void do_action(struct run *r, char **tok, int n)
{
	const char *op = tok[0];

	if (!strcmp(op, "func") && n >= 2) {
		parse_func(r, tok + 1);
		return;
	}
	if (!strcmp(op, "proto") && n >= 2) {
		if (r->g)
			script_fail(r, "proto must come before the first record");
		parse_proto(r, tok + 1, n - 1);
		return;
	}
	if (!strcmp(op, "sym")) {
		parse_sym(r, tok + 1, n - 1);
		return;
	}
	start(r);
	if (!strcmp(op, "comm"))
		do_comm(r, tok + 1, n - 1);
	else if (!strcmp(op, "E") || !strcmp(op, "X") || !strcmp(op, "XU") || !strcmp(op, "S") ||
		 !strcmp(op, "A"))
		do_record(r, op, tok + 1, n - 1);
	else if (!strcmp(op, "lost") && n == 3)
		assert_int_equal(graph__lost(r->g, (uint32_t)num(r, tok[1]), num(r, tok[2])), 0);
	else if (!strcmp(op, "drain") && n == 2)
		graph__drain(r->g, num(r, tok[1]));
	else if (!strcmp(op, "flush") && n == 1)
		graph__flush(r->g);
	else
		script_fail(r, "cannot parse '%s'", op);
}

static void do_line(struct run *r, char *line)
{
	char *tok[16], *save = NULL, *t;
	int n = 0;

	if (!strncmp(line, "echo ", 5)) {
		start(r);
		fprintf(r->mem, "%s\n", line + 5);
		return;
	}
	for (t = strtok_r(line, " \t", &save); t && n < 15; t = strtok_r(NULL, " \t", &save))
		tok[n++] = t;
	tok[n] = NULL;
	if (!n)
		return;
	if (is_setting(tok[0]))
		do_setting(r, tok, n);
	else
		do_action(r, tok, n);
}

static void run_script(void **state)
{
	const char *name = *state;
	struct run r = { .name = name };
	char *rel, *path, *text, *line, *next;
	size_t len;

	functab__init(&r.ft);
	r.wo.flags = BG_O_DEFAULTS;
	r.wo.dialect = BG_DIALECT_6_1;
	r.wo.nr_cpu_ids = 2;
	assert_true(asprintf(&rel, "graph/%s.in", name) > 0);
	path = golden_path(rel);
	text = golden_slurp(path, &len);
	if (!text)
		fprintf(stderr, "cannot read %s\n", path);
	assert_non_null(text);
	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		r.line++;
		if (*line != '#')
			do_line(&r, line);
	}
	start(&r);
	graph__flush(r.g);
	assert_int_equal(graph__queued(r.g), 0);
	assert_int_equal(fclose(r.mem), 0);
	free(rel);
	assert_true(asprintf(&rel, "graph/%s.out", name) > 0);
	golden_check(rel, r.buf, r.len);
	graph__free(r.g);
	out_text__free(r.w);
	functab__free(&r.ft);
	btf__free(r.btf);
	free(r.buf);
	free(text);
	free(path);
	free(rel);
}

/* --- event-level tests -------------------------------------------------- */

#define MAX_EVS 64

struct evlog {
	struct gev ev[MAX_EVS];
	char comm[MAX_EVS][BG_COMM_LEN + 1];
	int n;
};

static void log_emit(void *ctx, const struct gev *ev)
{
	struct evlog *l = ctx;

	assert_true(l->n < MAX_EVS);
	l->ev[l->n] = *ev;
	snprintf(l->comm[l->n], sizeof(l->comm[0]), "%s", ev->comm ? ev->comm : "");
	l->n++;
}

static struct graph *new_logged(struct evlog *l)
{
	struct graph_opts o = { .sink = { .emit = log_emit, .ctx = l } };
	struct graph *g = graph__new(&o);

	assert_non_null(g);
	memset(l, 0, sizeof(*l));
	return g;
}

static struct bg_rec ent(uint16_t cpu, uint32_t pid, uint32_t func, uint8_t depth, uint64_t ts)
{
	return (struct bg_rec){ .type = BG_REC_ENTRY, .cpu = cpu, .pid = pid, .func = func,
				.depth = depth, .ts = ts };
}

static struct bg_rec ext(uint16_t cpu, uint32_t pid, uint32_t func, uint8_t depth, uint64_t ts,
			 uint32_t dur)
{
	return (struct bg_rec){ .type = BG_REC_EXIT, .cpu = cpu, .pid = pid, .func = func,
				.depth = depth, .ts = ts, .dur = dur, .val = 7 };
}

static void test_feed_errors(void **state)
{
	struct evlog l;
	struct graph *g = new_logged(&l);
	struct bg_rec r = ent(0, 1, 0, 0, 10);

	r.cpu = BG_MAX_CPUS;
	assert_int_equal(graph__feed(g, &r), -EINVAL);
	r = ent(0, 1, 0, 0, 10);
	r.type = 0;
	assert_int_equal(graph__feed(g, &r), -EINVAL);
	r.type = 15;
	assert_int_equal(graph__feed(g, &r), -EINVAL);
	assert_int_equal(graph__lost(g, BG_MAX_CPUS, 1), -EINVAL);
	r = ent(BG_MAX_CPUS - 1, 1, 0, 0, 10);
	assert_int_equal(graph__feed(g, &r), 0);
	assert_int_equal(graph__queued(g), 1);
	graph__flush(g);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.ev[0].cpu, BG_MAX_CPUS - 1);
	assert_null(graph__new(NULL));
	assert_int_equal(errno, EINVAL);
	graph__free(g);
	graph__free(NULL);
}

/* An entry waits for the next record of its cpu; other cpus go on. */
static void test_drain_waits_for_lookahead(void **state)
{
	struct evlog l;
	struct graph *g = new_logged(&l);
	struct bg_rec r[] = {
		ent(0, 1, 5, 0, 100),
		ent(1, 2, 6, 0, 110),
		ext(1, 2, 6, 0, 120, 10),
	};

	for (size_t i = 0; i < 3; i++)
		assert_int_equal(graph__feed(g, &r[i]), 0);
	/* a() waits for its look-ahead, and b(), later, waits behind it. */
	graph__drain(g, 1000);
	assert_int_equal(l.n, 0);
	assert_int_equal(graph__queued(g), 3);

	r[0] = ext(0, 1, 5, 0, 300, 200);
	assert_int_equal(graph__feed(g, &r[0]), 0);
	graph__drain(g, 100); /* the entry is not older than the watermark */
	assert_int_equal(l.n, 0);
	graph__drain(g, 101); /* its exit is at 300: look-ahead needs no watermark */
	assert_int_equal(l.n, 1);
	assert_int_equal(l.ev[0].type, GEV_LEAF);
	assert_int_equal(l.ev[0].ts, 100);
	assert_int_equal(l.ev[0].dur, 200);
	graph__drain(g, 1000);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.ev[1].type, GEV_LEAF);
	assert_int_equal(l.ev[1].cpu, 1);
	assert_int_equal(l.ev[1].ts, 110);
	assert_int_equal(l.ev[1].dur, 10);
	assert_int_equal(l.ev[1].ret, 7);
	assert_int_equal(graph__queued(g), 0);
	graph__free(g);
}

/*
 * The task went on on another cpu and nothing more comes from the first
 * one: its entry waits 200 ms past the watermark, then prints as "{",
 * before what the task did next.
 */
static void test_drain_wait_ends(void **state)
{
	const uint64_t ms = 1000 * 1000;
	struct evlog l;
	struct graph *g = new_logged(&l);
	struct bg_rec r[] = {
		ent(0, 1, 5, 0, 100),
		ent(1, 1, 6, 1, 110),
		ext(1, 1, 6, 1, 120, 10),
		ext(1, 1, 5, 0, 130, 30),
	};

	for (size_t i = 0; i < 4; i++)
		assert_int_equal(graph__feed(g, &r[i]), 0);
	graph__drain(g, 100 + 200 * ms);
	assert_int_equal(l.n, 0);
	graph__drain(g, 101 + 200 * ms);
	assert_int_equal(l.n, 3);
	assert_int_equal(l.ev[0].type, GEV_ENTER);
	assert_int_equal(l.ev[0].cpu, 0);
	assert_int_equal(l.ev[0].ts, 100);
	assert_int_equal(l.ev[1].type, GEV_LEAF);
	assert_int_equal(l.ev[1].ts, 110);
	assert_int_equal(l.ev[2].type, GEV_EXIT);
	assert_int_equal(l.ev[2].ts, 130);
	assert_int_equal(graph__queued(g), 0);
	graph__free(g);
}

/* An exit made for a frame whose own exit was missed carries no value. */
static void test_noexit(void **state)
{
	struct evlog l;
	struct graph *g = new_logged(&l);
	struct bg_rec r[] = {
		ent(0, 1, 5, 0, 100),
		ent(0, 1, 6, 1, 110),
		ext(0, 1, 6, 1, 200, 90),
		ext(0, 1, 5, 0, 200, 100),
	};

	(void)state;
	r[2].type |= BG_RF_NOEXIT;
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(graph__feed(g, &r[i]), 0);
	graph__flush(g);
	assert_int_equal(l.n, 3);
	assert_int_equal(l.ev[1].type, GEV_LEAF);
	assert_true(l.ev[1].noret);
	assert_int_equal(l.ev[1].dur, 90);
	assert_int_equal(l.ev[2].type, GEV_EXIT);
	assert_false(l.ev[2].noret);
	graph__free(g);
}

/*
 * The BPF side's fold (bpf/records.bpf.h): an EXIT right after its ENTRY
 * in the same CPU's stream becomes one BG_REC_LEAF. Returns the count.
 */
static size_t fold_leaves(struct bg_rec *r, size_t n)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		struct bg_rec *e = m ? &r[m - 1] : NULL;

		if (e && bg_rec_type(&r[i]) == BG_REC_EXIT && bg_rec_type(e) == BG_REC_ENTRY &&
		    e->cpu == r[i].cpu && e->pid == r[i].pid && e->func == r[i].func &&
		    e->depth == r[i].depth) {
			e->type = BG_REC_LEAF | (e->type & BG_RF_IRQ) |
				  (r[i].type & (BG_RF_DUR_US | BG_RF_NOEXIT));
			e->val = r[i].val;
			e->dur = r[i].dur;
			continue;
		}
		r[m++] = r[i];
	}
	return m;
}

/* Folded leaves make the lines their pairs make, on every CPU, lost exits and all. */
static void test_folded_leaves(void **state)
{
	struct bg_rec r[] = {
		ent(0, 1, 5, 0, 100),
		ent(0, 1, 6, 1, 110),
		ext(0, 1, 6, 1, 150, 40),
		ent(1, 2, 5, 0, 120),
		ent(0, 1, 7, 1, 160),
		ent(1, 2, 8, 1, 170),
		ext(1, 2, 8, 1, 180, 10),
		ent(0, 1, 9, 2, 190),
		ext(0, 1, 9, 2, 195, 5), /* NOEXIT below */
		ext(0, 1, 7, 1, 200, 40),
		ent(1, 2, 6, 1, 205),
		ext(1, 2, 6, 1, 5000, 4795), /* DUR_US below */
		ext(0, 1, 5, 0, 210, 110),
		ext(1, 2, 5, 0, 6000, 5880),
		ent(0, 3, 6, 0, 7000), /* IRQ below */
		ext(0, 3, 6, 0, 7010, 10),
		ent(0, 3, 7, 0, 7100), /* its exit never came */
	};
	size_t n = sizeof(r) / sizeof(r[0]), m;
	struct bg_rec f[sizeof(r) / sizeof(r[0])];
	struct evlog *a = calloc(2, sizeof(*a)), *b = a + 1;
	struct graph *ga, *gb;

	(void)state;
	assert_non_null(a);
	ga = new_logged(a);
	gb = new_logged(b);
	r[8].type |= BG_RF_NOEXIT;
	r[11].type |= BG_RF_DUR_US;
	r[11].dur = 4;
	r[14].type |= BG_RF_IRQ;
	r[15].val = (uint64_t)-12;
	memcpy(f, r, sizeof(r));
	m = fold_leaves(f, n);
	assert_int_equal(m, n - 5);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(graph__feed(ga, &r[i]), 0);
	for (size_t i = 0; i < m; i++)
		assert_int_equal(graph__feed(gb, &f[i]), 0);
	graph__flush(ga);
	graph__flush(gb);
	assert_int_equal(a->n, b->n);
	for (int i = 0; i < a->n; i++) {
		const struct gev *x = &a->ev[i], *y = &b->ev[i];

		assert_int_equal(x->type, y->type);
		assert_int_equal(x->cpu, y->cpu);
		assert_int_equal(x->pid, y->pid);
		assert_int_equal(x->func, y->func);
		assert_int_equal(x->depth, y->depth);
		assert_int_equal(x->ts, y->ts);
		if (x->type != GEV_BANNER) {
			assert_int_equal(x->dur, y->dur);
			assert_int_equal(x->ret, y->ret);
			assert_int_equal(x->noret, y->noret);
			assert_int_equal(x->tail, y->tail);
		}
		assert_string_equal(a->comm[i], b->comm[i]);
	}
	/* The leaves: 6 (cpu 0), 8 (cpu 1), 9 without its exit, 6 in microseconds, 6 of pid 3. */
	{
		int leaves = 0, noret = 0;

		for (int i = 0; i < b->n; i++) {
			leaves += b->ev[i].type == GEV_LEAF;
			noret += b->ev[i].type == GEV_LEAF && b->ev[i].noret;
		}
		assert_int_equal(leaves, 5);
		assert_int_equal(noret, 1);
	}
	graph__free(ga);
	graph__free(gb);
	free(a);
}

/* Exits are released as soon as the watermark passes them. */
static void test_drain_watermark(void **state)
{
	struct evlog l;
	struct graph *g = new_logged(&l);
	struct bg_rec r[] = {
		ext(0, 1, 5, 2, 100, 1), ext(0, 1, 6, 1, 200, 2), ext(0, 1, 7, 0, 300, 3),
	};

	for (size_t i = 0; i < 3; i++)
		assert_int_equal(graph__feed(g, &r[i]), 0);
	graph__drain(g, 100);
	assert_int_equal(l.n, 0);
	graph__drain(g, 201);
	assert_int_equal(l.n, 2);
	assert_true(l.ev[0].tail && l.ev[1].tail);
	graph__drain(g, UINT64_MAX);
	assert_int_equal(l.n, 3);
	assert_int_equal(l.ev[2].func, 7);
	graph__free(g);
}

static void test_comm_table(void **state)
{
	struct evlog l;
	struct graph *g = new_logged(&l);
	struct bg_rec c = { .type = BG_REC_COMM, .pid = 42 };
	char name[BG_COMM_LEN];

	assert_string_equal(graph__comm(g, 0), "<idle>");
	assert_string_equal(graph__comm(g, 42), "<...>");
	memcpy(name, "abcdefghijklmnop", BG_COMM_LEN); /* 16 bytes, no NUL */
	memcpy(&c.ts, name, 8);
	memcpy(&c.val, name + 8, 8);
	assert_int_equal(graph__feed(g, &c), 0);
	assert_string_equal(graph__comm(g, 42), "abcdefghijklmnop");
	memset(&c.ts, 0, 8);
	memset(&c.val, 0, 8);
	memcpy(&c.ts, "sh", 2);
	assert_int_equal(graph__feed(g, &c), 0);
	assert_string_equal(graph__comm(g, 42), "sh");
	/* Comms are not records: nothing queued, nothing emitted. */
	assert_int_equal(graph__queued(g), 0);
	graph__flush(g);
	assert_int_equal(l.n, 0);
	/* Many pids: the table grows and keeps them all. */
	for (uint32_t pid = 1000; pid < 21000; pid++) {
		c.pid = pid;
		memcpy(&c.ts, &pid, sizeof(pid));
		assert_int_equal(graph__feed(g, &c), 0);
	}
	for (uint32_t pid = 1000; pid < 21000; pid += 997) {
		uint32_t back;

		memcpy(&back, graph__comm(g, pid), sizeof(back));
		assert_int_equal(back, pid);
	}
	assert_string_equal(graph__comm(g, 42), "sh");
	graph__free(g);
}

/* The builder hands each event its comm, the banner both. */
static void test_event_comms(void **state)
{
	struct evlog l;
	struct graph *g = new_logged(&l);
	struct bg_rec c = { .type = BG_REC_COMM, .pid = 9 };
	struct bg_rec r[] = { ext(3, 9, 1, 0, 10, 1), ext(3, 0, 1, 0, 20, 1) };

	memcpy(&c.ts, "bash", 5);
	assert_int_equal(graph__feed(g, &c), 0);
	assert_int_equal(graph__feed(g, &r[0]), 0);
	assert_int_equal(graph__feed(g, &r[1]), 0);
	graph__flush(g);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.comm[0], "bash");
	assert_int_equal(l.ev[1].type, GEV_BANNER);
	assert_int_equal(l.ev[1].prev_pid, 9);
	assert_int_equal(l.ev[1].pid, 0);
	assert_int_equal(l.ev[1].cpu, 3);
	assert_int_equal(l.ev[1].ts, 20);
	assert_string_equal(l.ev[1].prev_comm, "bash");
	assert_string_equal(l.comm[1], "<idle>");
	assert_string_equal(l.comm[2], "<idle>");
	graph__free(g);
}

/* Counts events; for tests that produce more than an evlog holds. */
static void discard(void *ctx, const struct gev *ev)
{
	(*(uint64_t *)ctx)++;
}

/* A long trace streams through: memory follows what is queued. */
static void test_bounded_queue(void **state)
{
	uint64_t n = 0, ts = 1;
	struct graph_opts o = { .sink = { .emit = discard, .ctx = &n } };
	struct graph *g = graph__new(&o);
	size_t peak = 0;

	assert_non_null(g);
	for (int round = 0; round < 2000; round++) {
		for (int i = 0; i < 100; i++, ts += 10) {
			struct bg_rec e = ent((uint16_t)(i % 4), 1, 1, 1, ts);
			struct bg_rec x = ext((uint16_t)(i % 4), 1, 1, 1, ts + 5, 5);

			assert_int_equal(graph__feed(g, &e), 0);
			assert_int_equal(graph__feed(g, &x), 0);
		}
		if (graph__queued(g) > peak)
			peak = graph__queued(g);
		graph__drain(g, ts);
		assert_int_equal(graph__queued(g), 0);
	}
	assert_int_equal(peak, 200);
	assert_int_equal(n, 2000 * 100);
	graph__free(g);
}

/* Never drained (a hostile recording): what is held stays bounded. */
static void test_undrained_cap(void **state)
{
	uint64_t n = 0;
	struct graph_opts o = { .sink = { .emit = discard, .ctx = &n } };
	struct graph *g = graph__new(&o);
	size_t peak = 0;

	(void)state;
	assert_non_null(g);
	for (uint64_t ts = 1; ts <= (5u << 20); ts++) {
		struct bg_rec x = ext(0, 1, 1, 1, ts, 1);

		assert_int_equal(graph__feed(g, &x), 0);
		if (graph__queued(g) > peak)
			peak = graph__queued(g);
	}
	assert_true(peak <= (4u << 20) + 1);
	assert_true(n > 0); /* released early, in order */
	graph__flush(g);
	assert_int_equal(n, 5u << 20);
	graph__free(g);
}

/* A burst drained at once gives its queue memory back (ASan sees leaks). */
static void test_burst_then_empty(void **state)
{
	uint64_t n = 0;
	struct graph_opts o = { .sink = { .emit = discard, .ctx = &n } };
	struct graph *g = graph__new(&o);

	assert_non_null(g);
	for (uint64_t ts = 1; ts <= 100000; ts++) {
		struct bg_rec x = ext(0, 1, 1, 1, ts, 1);

		assert_int_equal(graph__feed(g, &x), 0);
	}
	assert_int_equal(graph__queued(g), 100000);
	graph__drain(g, UINT64_MAX);
	assert_int_equal(graph__queued(g), 0);
	assert_int_equal(n, 100000);
	graph__free(g);
}

#define SCRIPT(name) { "script_" name, run_script, NULL, NULL, (void *)name }

int main(void)
{
	const struct CMUnitTest tests[] = {
		SCRIPT("leaf_nested"),
		SCRIPT("leaf_rules"),
		SCRIPT("orphan_exit"),
		SCRIPT("unclosed_flush"),
		SCRIPT("ctx_switch"),
		SCRIPT("ctx_switch_nocontext"),
		SCRIPT("two_cpus"),
		SCRIPT("migration"),
		SCRIPT("thresh"),
		SCRIPT("max_depth"),
		SCRIPT("lost"),
		SCRIPT("drain_wait"),
		SCRIPT("module_names"),
		SCRIPT("abstime_proc"),
		SCRIPT("dur_us"),
		SCRIPT("retval_605"),
		SCRIPT("retval_613"),
		SCRIPT("irq_same_depth"),
		SCRIPT("seed000"),
		SCRIPT("seed001"),
		SCRIPT("args_619"),
		SCRIPT("args_617"),
		SCRIPT("args_615"),
		SCRIPT("args_615_retaddr"),
		cmocka_unit_test(test_feed_errors),
		cmocka_unit_test(test_drain_waits_for_lookahead),
		cmocka_unit_test(test_drain_wait_ends),
		cmocka_unit_test(test_drain_watermark),
		cmocka_unit_test(test_noexit),
		cmocka_unit_test(test_folded_leaves),
		cmocka_unit_test(test_comm_table),
		cmocka_unit_test(test_event_comms),
		cmocka_unit_test(test_bounded_queue),
		cmocka_unit_test(test_undrained_cap),
		cmocka_unit_test(test_burst_then_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
