// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * function_graph text writer. Every string and width here mirrors
 * kernel/trace/trace_functions_graph.c and trace_output.c (6.1, and 6.5 /
 * 6.13 for return values); docs/function-graph-format.md gives the
 * byte-level rules, and the section names quoted below are its.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "linebuf.h"
#include "out_text.h"

#define NSEC_PER_SEC UINT64_C(1000000000)
#define PROC_WIDTH 14 /* TRACE_GRAPH_PROCINFO_LENGTH */
#define PROC_COMM_LEN 7 /* print_graph_proc() cuts comm here */
#define MAX_ERRNO 4095 /* IS_ERR_VALUE() range */

/* Longest argument list or return address printed (the kernel's seq is a page). */
#define ARGS_TEXT_MAX 1024
/* What a stream writer collects before handing it to stdio (opts.stream). */
#define STREAM_BUF (64 * 1024)

/* A prefix column as last formatted, for key. */
struct prefix_col {
	bool valid;
	uint64_t key;
	char text[32];
	size_t len;
};

/* c holds key's text: the caller formats it when not. */
static bool col_holds(struct prefix_col *c, uint64_t key)
{
	if (c->valid && c->key == key)
		return true;
	c->valid = true;
	c->key = key;
	return false;
}

struct out_text {
	struct out_text_opts o;
	struct args_fmt *af; /* with BG_O_ARGS or BG_O_RETADDR */
	int cpu_width;
	char name_buf[32]; /* fallback name of a function not in the table */
	struct linebuf stream; /* opts.stream: over stream_buf */
	char *stream_buf;
	/*
	 * The last prefix's "comm-pid" column (key: the pid, and proc_comm),
	 * abstime seconds and CPU column: most lines repeat them, and
	 * formatting them was a third of a line's cost.
	 */
	struct prefix_col proc, abs, cpu;
	char proc_comm[PROC_COMM_LEN + 1];
};

static bool has(const struct out_text *w, uint32_t flag)
{
	return w->o.flags & flag;
}

/* max_bytes_for_cpu: digits of the highest possible cpu number ("CPU column"). */
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
	if (opts->stream) {
		w->stream_buf = malloc(STREAM_BUF);
		if (!w->stream_buf) {
			free(w);
			return NULL;
		}
		linebuf__stream(&w->stream, opts->out, w->stream_buf, STREAM_BUF);
	}
	if (opts->flags & (BG_O_ARGS | BG_O_RETADDR)) {
		w->af = args_fmt__new(opts->args, opts->funcs);
		if (!w->af) {
			free(w->stream_buf);
			free(w);
			return NULL;
		}
	}
	return w;
}

void out_text__sync(struct out_text *w)
{
	if (w->stream_buf)
		linebuf__flush(&w->stream);
}

void out_text__each_line(struct out_text *w)
{
	out_text__sync(w);
	w->stream.each_line = true;
}

void out_text__free(struct out_text *w)
{
	if (!w)
		return;
	out_text__sync(w);
	args_fmt__free(w->af);
	free(w->stream_buf);
	free(w);
}

/* --- header ("Header", "Column headers") --------------------------------- */

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
	out_text__sync(w);
	fputs("# tracer: function_graph\n#\n", w->o.out);
	if (!has(w, BG_O_CONTEXT_INFO))
		return;
	put_header_line(w, false);
	put_header_line(w, true);
}

/* --- columns ("Line layout") --------------------------------------------- */

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

/*
 * The duration field into buf (26 bytes at most: a 17-digit integer part
 * leaves no room for decimals); returns its length.
 */
static size_t fmt_duration(char *buf, uint64_t ns, bool overhead)
{
	char tmp[24], *p = linebuf__digits(tmp + sizeof(tmp), ns / 1000), *o = buf;
	int n = (int)(tmp + sizeof(tmp) - p);

	*o++ = overhead ? overhead_mark(ns) : ' ';
	*o++ = ' ';
	memcpy(o, p, (size_t)n);
	o += n;
	/* At most 7 digits in all: the decimals give way to the integer part. */
	if (n < 7) {
		unsigned int rem = (unsigned int)(ns % 1000);
		int keep = n <= 4 ? 3 : 7 - n;

		*o++ = '.';
		*o++ = (char)('0' + rem / 100);
		if (keep > 1)
			*o++ = (char)('0' + rem / 10 % 10);
		if (keep > 2)
			*o++ = (char)('0' + rem % 10);
		n += 1 + keep;
	}
	memcpy(o, " us ", 4);
	o += 4;
	for (; n < 8; n++)
		*o++ = ' ';
	memcpy(o, "|  ", 3);
	return (size_t)(o + 3 - buf);
}

/* snprintf()'s contract for the public formatters: cut, always terminated. */
static void copy_out(char *buf, size_t len, const char *s, size_t n)
{
	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

void out_text__fmt_duration(char *buf, size_t len, uint64_t ns, bool overhead)
{
	char tmp[32];

	copy_out(buf, len, tmp, fmt_duration(tmp, ns, overhead));
}

/*
 * print_graph_proc(): "comm-pid" centred in 14 columns, extra space right,
 * into buf (32 bytes: 7 + 1 + 11 at most past the padding); its length.
 */
static size_t fmt_proc(char *buf, const char *comm, uint32_t pid)
{
	char s[16], *end = s + sizeof(s), *p, *o = buf;
	size_t clen = strnlen(comm, PROC_COMM_LEN);
	int32_t spid = (int32_t)pid; /* the kernel prints it with %d */
	int len, pad;

	p = linebuf__digits(end, spid < 0 ? -(uint64_t)(int64_t)spid : (uint64_t)spid);
	if (spid < 0)
		*--p = '-';
	*--p = '-';
	len = (int)(clen + (size_t)(end - p));
	pad = len < PROC_WIDTH ? PROC_WIDTH - len : 0;
	memset(o, ' ', (size_t)(pad / 2));
	o += pad / 2;
	memcpy(o, comm, clen);
	o += clen;
	memcpy(o, p, (size_t)(end - p));
	o += end - p;
	memset(o, ' ', (size_t)(pad - pad / 2));
	return (size_t)(o + (pad - pad / 2) - buf);
}

static void put_proc(struct linebuf *l, const char *comm, uint32_t pid)
{
	char buf[32];

	linebuf__put(l, buf, fmt_proc(buf, comm, pid));
}

/* put_proc() of a line's prefix, formatted again only when it changes. */
static void put_proc_cached(struct out_text *w, struct linebuf *l, const char *comm,
			    uint32_t pid)
{
	if (!col_holds(&w->proc, pid) || strncmp(w->proc_comm, comm, PROC_COMM_LEN)) {
		strncpy(w->proc_comm, comm, PROC_COMM_LEN);
		w->proc_comm[PROC_COMM_LEN] = '\0';
		w->proc.len = fmt_proc(w->proc.text, comm, pid);
	}
	linebuf__put(l, w->proc.text, w->proc.len);
}

/* funcgraph-abstime's "%5lu.%06lu |  ", the seconds formatted again only when they change. */
static void put_abstime(struct out_text *w, struct linebuf *l, uint64_t ts)
{
	uint64_t sec = ts / NSEC_PER_SEC;

	if (!col_holds(&w->abs, sec)) {
		char tmp[24], *end = tmp + sizeof(tmp) - 1;
		char *p = linebuf__padded(end, sec, 5, ' ');

		*end = '.';
		w->abs.len = (size_t)(end + 1 - p);
		memcpy(w->abs.text, p, w->abs.len);
	}
	linebuf__put(l, w->abs.text, w->abs.len);
	linebuf__u64(l, ts % NSEC_PER_SEC / 1000, 6, '0');
	linebuf__put(l, " |  ", 4);
}

static const char *comm_of(const struct out_text *w, const char *comm, uint32_t pid)
{
	if (comm)
		return comm;
	return pid ? "<...>" : "<idle>";
}

/* " N) ", N right-aligned in the CPU column, formatted again only when it changes. */
static void put_cpu(struct out_text *w, struct linebuf *l, uint32_t cpu)
{
	if (!col_holds(&w->cpu, cpu)) {
		char tmp[32], *end = tmp + sizeof(tmp) - 2;
		char *p = linebuf__padded(end, cpu, w->cpu_width, ' ');

		*--p = ' ';
		memcpy(end, ") ", 2);
		w->cpu.len = (size_t)(end + 2 - p);
		memcpy(w->cpu.text, p, w->cpu.len);
	}
	linebuf__put(l, w->cpu.text, w->cpu.len);
}

/* print_graph_prologue() without the pid check, which the builder did. */
static void put_prefix(struct out_text *w, struct linebuf *l, const struct gev *ev)
{
	if (!has(w, BG_O_CONTEXT_INFO))
		return;
	if (has(w, BG_O_ABSTIME))
		put_abstime(w, l, ev->ts);
	if (has(w, BG_O_CPU))
		put_cpu(w, l, ev->cpu);
	if (has(w, BG_O_PROC)) {
		put_proc_cached(w, l, comm_of(w, ev->comm, ev->pid), ev->pid);
		linebuf__put(l, " | ", 3);
	}
}

/* Duration column (FLAGS_FILL_FULL for an entry), then the indentation. */
static void put_duration_indent(const struct out_text *w, struct linebuf *l,
				const struct gev *ev)
{
	char buf[32];

	if (has(w, BG_O_DURATION) && has(w, BG_O_CONTEXT_INFO)) {
		if (ev->type == GEV_ENTER)
			linebuf__put(l, "              |  ", 17);
		else
			linebuf__put(l, buf, fmt_duration(buf, ev->dur, has(w, BG_O_OVERHEAD)));
	}
	linebuf__spaces(l, (int)ev->depth * 2);
}

/* --- return values ("Return values") ------------------------------------- */

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

/*
 * The return value as function_graph prints it into buf (at least 24
 * bytes, no terminator); 0 for a void function, which prints none.
 */
static size_t fmt_retval(char *buf, uint64_t ret, const struct bg_func *f, bool hex)
{
	static const char xdigits[] = "0123456789abcdef";
	unsigned int kind = f ? f->ret_kind : BG_RET_UNKNOWN;
	unsigned int bytes = 8;
	char tmp[24], *end = tmp + sizeof(tmp), *p = end;
	int64_t s;

	if (kind == BG_RET_VOID)
		return 0;
	if (kind != BG_RET_UNKNOWN && f->ret_size >= 1 && f->ret_size < 8)
		bytes = f->ret_size;
	ret = low_bits(ret, bytes);
	s = signed_view(ret, kind, bytes);
	if (ret && !hex && s < 0 && s >= -MAX_ERRNO) {
		p = linebuf__digits(end, (uint64_t)-s);
		*--p = '-';
	} else {
		do {
			*--p = xdigits[ret & 0xf];
			ret >>= 4;
		} while (ret);
		*--p = 'x';
		*--p = '0';
	}
	memcpy(buf, p, (size_t)(end - p));
	return (size_t)(end - p);
}

bool out_text__fmt_retval(char *buf, size_t len, uint64_t ret, const struct bg_func *f,
			  bool hex)
{
	char tmp[24];
	size_t n = fmt_retval(tmp, ret, f, hex);

	copy_out(buf, len, tmp, n);
	return n;
}

/* --- lines ("Leaves and braces", "Context switches", "Lost events") ------ */

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

/* The formatted return value into buf (24 bytes); 0 when none is printed. */
static size_t retval_of(const struct out_text *w, const struct gev *ev, char *buf)
{
	if (w->o.dialect < BG_DIALECT_6_5 || !has(w, BG_O_RETVAL) || ev->noret)
		return 0;
	return fmt_retval(buf, ev->ret, func_of(w, ev->func), has(w, BG_O_RETVAL_HEX));
}

/* "= VAL * /" or "ret=VAL * /" and the end of the line. */
static void put_retval(const struct out_text *w, struct linebuf *l, const char *rv, size_t n)
{
	if (w->o.dialect >= BG_DIALECT_6_13)
		linebuf__put(l, "ret=", 4);
	else
		linebuf__put(l, "= ", 2);
	linebuf__put(l, rv, n);
	linebuf__put(l, " */\n", 4);
}

/* "(ARGS)" of an entry line: "()" unless funcgraph-args shows some. */
static void put_args(struct out_text *w, struct linebuf *l, const struct gev *ev)
{
	char buf[ARGS_TEXT_MAX];
	int n = w->af ? args_fmt__args(w->af, ev, w->o.dialect, w->o.flags, buf, sizeof(buf)) : 0;

	linebuf__put(l, "(", 1);
	if (n > 0)
		linebuf__put(l, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
	linebuf__put(l, ")", 1);
}

/* "<-caller+0x3b/0x160" into buf when funcgraph-retaddr shows it; its length or 0. */
static size_t retaddr_of(struct out_text *w, const struct gev *ev, char *buf, size_t size)
{
	int n = w->af ? args_fmt__retaddr(w->af, ev, w->o.dialect, w->o.flags, buf, size) : 0;

	if (n <= 0)
		return 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}

/* "func(ARGS) {", then " / * <-caller * /" (print_graph_entry_nested()). */
static void put_enter(struct out_text *w, struct linebuf *l, const struct gev *ev)
{
	char ra[ARGS_TEXT_MAX];
	size_t n = retaddr_of(w, ev, ra, sizeof(ra));

	linebuf__str(l, name_of(w, ev->func));
	put_args(w, l, ev);
	if (!n) {
		linebuf__put(l, " {\n", 3);
		return;
	}
	linebuf__put(l, " { /* ", 6);
	linebuf__put(l, ra, n);
	linebuf__put(l, " */\n", 4);
}

/* "func(ARGS);", then " / *", " <-caller", " ret=V", " * /" as each is on. */
static void put_leaf(struct out_text *w, struct linebuf *l, const struct gev *ev)
{
	char rv[24], ra[ARGS_TEXT_MAX];
	size_t n = retval_of(w, ev, rv);
	size_t m = retaddr_of(w, ev, ra, sizeof(ra));

	linebuf__str(l, name_of(w, ev->func));
	put_args(w, l, ev);
	if (!n && !m) {
		linebuf__put(l, ";\n", 2);
		return;
	}
	linebuf__put(l, "; /*", 4);
	if (m) {
		linebuf__put(l, " ", 1);
		linebuf__put(l, ra, m);
	}
	if (!n) {
		linebuf__put(l, " */\n", 4);
		return;
	}
	linebuf__put(l, " ", 1);
	put_retval(w, l, rv, n);
}

/* With a return value printed, every closing line names its function. */
static void put_exit(struct out_text *w, struct linebuf *l, const struct gev *ev)
{
	char rv[24];
	size_t n = retval_of(w, ev, rv);

	if (!n && !ev->tail && !has(w, BG_O_TAIL)) {
		linebuf__put(l, "}\n", 2);
		return;
	}
	linebuf__put(l, "} /* ", 5);
	linebuf__str(l, name_of(w, ev->func));
	if (n) {
		linebuf__put(l, " ", 1);
		put_retval(w, l, rv, n);
	} else {
		linebuf__put(l, " */\n", 4);
	}
}

/* verif_pid(): printed whatever the context-info and cpu options say. */
static void put_banner(struct out_text *w, struct linebuf *l, const struct gev *ev)
{
	static const char rule[] = " ------------------------------------------\n";

	linebuf__put(l, rule, sizeof(rule) - 1);
	put_cpu(w, l, ev->cpu);
	put_proc(l, comm_of(w, ev->prev_comm, ev->prev_pid), ev->prev_pid);
	linebuf__put(l, " => ", 4);
	put_proc(l, comm_of(w, ev->comm, ev->pid), ev->pid);
	linebuf__put(l, "\n", 1);
	linebuf__put(l, rule, sizeof(rule) - 1);
	linebuf__put(l, "\n", 1);
}

void out_text__emit(void *ctx, const struct gev *ev)
{
	struct out_text *w = ctx;
	struct linebuf line, *l = &w->stream;

	if (!w->stream_buf) {
		linebuf__init(&line, w->o.out);
		l = &line;
	}
	switch (ev->type) {
	case GEV_LOST:
		out_text__sync(w);
		if (ev->count)
			fprintf(w->o.out, "CPU:%u [LOST %" PRIu64 " EVENTS]\n", ev->cpu, ev->count);
		else
			fprintf(w->o.out, "CPU:%u [LOST EVENTS]\n", ev->cpu);
		return;
	case GEV_BANNER:
		put_banner(w, l, ev);
		break;
	case GEV_ENTER:
		put_prefix(w, l, ev);
		put_duration_indent(w, l, ev);
		put_enter(w, l, ev);
		break;
	case GEV_LEAF:
		put_prefix(w, l, ev);
		put_duration_indent(w, l, ev);
		put_leaf(w, l, ev);
		break;
	case GEV_EXIT:
		put_prefix(w, l, ev);
		put_duration_indent(w, l, ev);
		put_exit(w, l, ev);
		break;
	default:
		return;
	}
	linebuf__line_end(l);
}
