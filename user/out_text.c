// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * function_graph text writer. Every string and width here mirrors
 * kernel/trace/trace_functions_graph.c and trace_output.c (6.1, and 6.5 /
 * 6.13 for return values); ../shared/docs/function-graph-format.md gives
 * the byte-level rules and the section numbers quoted below.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "out_text.h"

#define NSEC_PER_SEC UINT64_C(1000000000)
#define PROC_WIDTH 14 /* TRACE_GRAPH_PROCINFO_LENGTH */
#define PROC_COMM_LEN 7 /* print_graph_proc() cuts comm here */
#define MAX_ERRNO 4095 /* IS_ERR_VALUE() range */

struct out_text {
	struct out_text_opts o;
	int cpu_width;
	char name_buf[32]; /* fallback name of a function not in the table */
};

static bool has(const struct out_text *w, uint32_t flag)
{
	return w->o.flags & flag;
}

static void put_spaces(FILE *f, int n)
{
	while (n-- > 0)
		fputc(' ', f);
}

/* max_bytes_for_cpu: digits of the highest possible cpu number (§4.2). */
static int cpu_width(uint32_t nr_cpu_ids)
{
	uint32_t v = nr_cpu_ids > 1 ? nr_cpu_ids - 1 : 0;
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

struct out_text *out_text__new(const struct out_text_opts *opts)
{
	struct out_text *w;

	if (!opts || !opts->out) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->o = *opts;
	w->cpu_width = cpu_width(opts->nr_cpu_ids);
	return w;
}

void out_text__free(struct out_text *w)
{
	free(w);
}

/* --- header (§2.1, §3) --------------------------------------------------- */

static void put_header_line(const struct out_text *w, bool second)
{
	FILE *f = w->o.out;

	fputc('#', f);
	if (has(w, BG_O_ABSTIME))
		fputs(second ? "      |         " : "     TIME       ", f);
	if (has(w, BG_O_CPU))
		fputs(second ? " |  " : " CPU", f);
	if (has(w, BG_O_PROC))
		fputs(second ? "   |    |        " : "  TASK/PID       ", f);
	if (has(w, BG_O_DURATION))
		fputs(second ? "   |   |      " : "  DURATION   ", f);
	fputs(second ? "               |   |   |   |\n" : "               FUNCTION CALLS\n", f);
}

void out_text__begin(struct out_text *w)
{
	if (!w->o.header)
		return;
	fputs("# tracer: function_graph\n#\n", w->o.out);
	if (!has(w, BG_O_CONTEXT_INFO))
		return;
	put_header_line(w, false);
	put_header_line(w, true);
}

/* --- columns (§4) -------------------------------------------------------- */

/* trace_find_mark(): strict '>' from the largest threshold down. */
static char overhead_mark(uint64_t ns)
{
	static const struct {
		uint64_t ns;
		char mark;
	} marks[] = {
		{ 1000000000ULL, '$' }, { 100000000ULL, '@' }, { 10000000ULL, '*' },
		{ 1000000ULL, '#' },	{ 100000ULL, '!' },    { 10000ULL, '+' },
	};

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (ns > marks[i].ns)
			return marks[i].mark;
	return ' ';
}

void out_text__fmt_duration(char *buf, size_t len, uint64_t ns, bool overhead)
{
	char val[32], rem[8];
	int n;

	n = snprintf(val, sizeof(val), "%" PRIu64, ns / 1000);
	/* At most 7 digits in all: the decimals give way to the integer part. */
	if (n < 7) {
		snprintf(rem, sizeof(rem), "%03" PRIu64, ns % 1000);
		rem[n <= 4 ? 3 : 7 - n] = '\0';
		n += snprintf(val + n, sizeof(val) - n, ".%s", rem);
	}
	snprintf(buf, len, "%c %s us %*s|  ", overhead ? overhead_mark(ns) : ' ', val,
		 n < 8 ? 8 - n : 0, "");
}

/* print_graph_proc(): "comm-pid" centred in 14 columns, extra space right. */
static void put_proc(FILE *f, const char *comm, uint32_t pid)
{
	char s[PROC_COMM_LEN + 16];
	int len, pad;

	len = snprintf(s, sizeof(s), "%.*s-%d", PROC_COMM_LEN, comm, (int)pid);
	pad = len < PROC_WIDTH ? PROC_WIDTH - len : 0;
	put_spaces(f, pad / 2);
	fputs(s, f);
	put_spaces(f, pad - pad / 2);
}

static const char *comm_of(const struct out_text *w, const char *comm, uint32_t pid)
{
	if (comm)
		return comm;
	if (w->o.graph)
		return graph__comm(w->o.graph, pid);
	return pid ? "<...>" : "<idle>";
}

static void put_cpu(const struct out_text *w, uint32_t cpu)
{
	fprintf(w->o.out, " %*u) ", w->cpu_width, cpu);
}

/* print_graph_prologue() without the pid check, which the builder did. */
static void put_prefix(const struct out_text *w, const struct gev *ev)
{
	FILE *f = w->o.out;

	if (!has(w, BG_O_CONTEXT_INFO))
		return;
	if (has(w, BG_O_ABSTIME))
		fprintf(f, "%5" PRIu64 ".%06" PRIu64 " |  ", ev->ts / NSEC_PER_SEC,
			ev->ts % NSEC_PER_SEC / 1000);
	if (has(w, BG_O_CPU))
		put_cpu(w, ev->cpu);
	if (has(w, BG_O_PROC)) {
		put_proc(f, comm_of(w, ev->comm, ev->pid), ev->pid);
		fputs(" | ", f);
	}
}

/* Duration column (FLAGS_FILL_FULL for an entry), then the indentation. */
static void put_duration_indent(const struct out_text *w, const struct gev *ev)
{
	char buf[64];

	if (has(w, BG_O_DURATION) && has(w, BG_O_CONTEXT_INFO)) {
		if (ev->type == GEV_ENTER) {
			fputs("              |  ", w->o.out);
		} else {
			out_text__fmt_duration(buf, sizeof(buf), ev->dur, has(w, BG_O_OVERHEAD));
			fputs(buf, w->o.out);
		}
	}
	put_spaces(w->o.out, (int)ev->depth * 2);
}

/* --- return values (§6) -------------------------------------------------- */

static uint64_t low_bits(uint64_t v, unsigned int bytes)
{
	return bytes < 8 ? v & ((1ULL << (bytes * 8)) - 1) : v;
}

/*
 * The value checked against the error range. A signed type is
 * sign-extended from its own width (so a long 0xfffffffe stays positive);
 * anything else gets the kernel's guess (bit 31 set, upper half clear: an
 * int error code in a zero-extended register).
 */
static int64_t signed_view(uint64_t v, unsigned int kind, unsigned int bytes)
{
	uint64_t sign;

	if (kind == BG_RET_SIGNED) {
		if (bytes >= 8)
			return (int64_t)v;
		sign = 1ULL << (bytes * 8 - 1);
		return (int64_t)((v ^ sign) - sign);
	}
	if ((v & (1ULL << 31)) && !(v >> 32))
		return (int64_t)(int32_t)(uint32_t)v;
	return (int64_t)v;
}

bool out_text__fmt_retval(char *buf, size_t len, uint64_t ret, const struct bg_func *f,
			  bool hex)
{
	unsigned int kind = f ? f->ret_kind : BG_RET_UNKNOWN;
	unsigned int bytes = 8;
	int64_t s;

	if (kind == BG_RET_VOID) {
		if (len)
			buf[0] = '\0';
		return false;
	}
	if (kind != BG_RET_UNKNOWN && f->ret_size >= 1 && f->ret_size < 8)
		bytes = f->ret_size;
	ret = low_bits(ret, bytes);
	s = signed_view(ret, kind, bytes);
	if (ret && !hex && s < 0 && s >= -MAX_ERRNO)
		snprintf(buf, len, "%" PRId64, s);
	else
		snprintf(buf, len, "0x%" PRIx64, ret);
	return true;
}

/* --- lines (§5, §7.2, §2.3) ---------------------------------------------- */

static const struct bg_func *func_of(const struct out_text *w, uint32_t func)
{
	if (w->o.funcs && func < w->o.funcs->n)
		return &w->o.funcs->f[func];
	return NULL;
}

/* %ps: the display name; no symbol gives the bare address like the kernel. */
static const char *name_of(struct out_text *w, uint32_t func)
{
	const struct bg_func *f = func_of(w, func);

	if (f && f->display)
		return f->display;
	if (f)
		snprintf(w->name_buf, sizeof(w->name_buf), "0x%" PRIx64, f->addr);
	else
		snprintf(w->name_buf, sizeof(w->name_buf), "func#%u", func);
	return w->name_buf;
}

/* The formatted return value, or NULL when none is printed. */
static const char *retval_of(const struct out_text *w, const struct gev *ev, char *buf,
			     size_t len)
{
	if (w->o.dialect < BG_DIALECT_6_5 || !has(w, BG_O_RETVAL) || ev->noret)
		return NULL;
	if (!out_text__fmt_retval(buf, len, ev->ret, func_of(w, ev->func),
				  has(w, BG_O_RETVAL_HEX)))
		return NULL;
	return buf;
}

static void put_leaf(struct out_text *w, const struct gev *ev)
{
	const char *name = name_of(w, ev->func);
	char buf[32];
	const char *rv = retval_of(w, ev, buf, sizeof(buf));

	if (!rv)
		fprintf(w->o.out, "%s();\n", name);
	else if (w->o.dialect >= BG_DIALECT_6_13)
		fprintf(w->o.out, "%s(); /* ret=%s */\n", name, rv);
	else
		fprintf(w->o.out, "%s(); /* = %s */\n", name, rv);
}

/* With a return value printed, every closing line names its function. */
static void put_exit(struct out_text *w, const struct gev *ev)
{
	const char *name = name_of(w, ev->func);
	char buf[32];
	const char *rv = retval_of(w, ev, buf, sizeof(buf));

	if (rv && w->o.dialect >= BG_DIALECT_6_13)
		fprintf(w->o.out, "} /* %s ret=%s */\n", name, rv);
	else if (rv)
		fprintf(w->o.out, "} /* %s = %s */\n", name, rv);
	else if (ev->tail || has(w, BG_O_TAIL))
		fprintf(w->o.out, "} /* %s */\n", name);
	else
		fputs("}\n", w->o.out);
}

/* verif_pid(): printed whatever the context-info and cpu options say. */
static void put_banner(const struct out_text *w, const struct gev *ev)
{
	static const char rule[] = " ------------------------------------------\n";
	FILE *f = w->o.out;

	fputs(rule, f);
	put_cpu(w, ev->cpu);
	put_proc(f, comm_of(w, ev->prev_comm, ev->prev_pid), ev->prev_pid);
	fputs(" => ", f);
	put_proc(f, comm_of(w, ev->comm, ev->pid), ev->pid);
	fputc('\n', f);
	fputs(rule, f);
	fputc('\n', f);
}

void out_text__emit(void *ctx, const struct gev *ev)
{
	struct out_text *w = ctx;

	switch (ev->type) {
	case GEV_LOST:
		if (ev->count)
			fprintf(w->o.out, "CPU:%u [LOST %" PRIu64 " EVENTS]\n", ev->cpu, ev->count);
		else
			fprintf(w->o.out, "CPU:%u [LOST EVENTS]\n", ev->cpu);
		return;
	case GEV_BANNER:
		put_banner(w, ev);
		return;
	case GEV_ENTER:
	case GEV_LEAF:
	case GEV_EXIT:
		break;
	default:
		return;
	}
	put_prefix(w, ev);
	put_duration_indent(w, ev);
	if (ev->type == GEV_ENTER)
		fprintf(w->o.out, "%s() {\n", name_of(w, ev->func));
	else if (ev->type == GEV_LEAF)
		put_leaf(w, ev);
	else
		put_exit(w, ev);
}
