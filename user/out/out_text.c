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
	/* A line longer than the stream holds (or every line, with no stream) */
	char *big;
	size_t big_cap;
	bool big_failed; /* said once */
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
	free(w->big);
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

/*
 * A line is formatted in place, in the stream's buffer (or w->big, for a
 * line longer than it holds): each piece below writes through a cursor
 * with no check of its own, within a bound set before the line begins,
 * its variable parts (indentation, name, arguments, return address) and
 * LINE_FIXED for the rest. Pieces of a known greatest size (a cached
 * column's 32 bytes, 64 spaces, 8 of padding) are copied whole and the
 * cursor moves by their length: what lies past it is written over by
 * the next piece or never written out. LINE_FIXED holds the fixed parts
 * with every column on (under 170 bytes) and such an overrun (64).
 */
#define LINE_FIXED 256
/* A pid banner: two rules, a CPU column and two comm-pid columns. */
#define BANNER_BOUND 320
#define SPACES 64

static char *put_bytes(char *o, const void *s, size_t n)
{
	memcpy(o, s, n);
	return o + n;
}

static char *put_spaces(char *o, size_t n)
{
	static const char spaces[SPACES] =
		"                                                                ";

	if (n > SPACES) {
		memset(o, ' ', n);
		return o + n;
	}
	memcpy(o, spaces, SPACES);
	return o + n;
}

/*
 * A piece of variable length (a name, arguments, a return address): up
 * to 32 bytes in two moves of a fixed size that may overlap, instead of
 * a call for the few bytes of most of them.
 */
static inline char *put_var(char *o, const char *s, size_t n)
{
	if (n >= 16 && n <= 32) {
		memcpy(o, s, 16);
		memcpy(o + n - 16, s + n - 16, 16);
	} else if (n >= 8 && n < 16) {
		memcpy(o, s, 8);
		memcpy(o + n - 8, s + n - 8, 8);
	} else if (n < 8) {
		for (size_t i = 0; i < n; i++)
			o[i] = s[i];
	} else {
		memcpy(o, s, n);
	}
	return o + n;
}

/* A cached column: all of its text copied, the cursor moved by its length. */
static char *put_col(char *o, const struct prefix_col *c)
{
	memcpy(o, c->text, sizeof(c->text));
	return o + c->len;
}

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
 * The duration field into buf (32 bytes of room: the field is 26 at most,
 * a 17-digit integer part leaving no room for decimals, and the decimals
 * and padding are written whole, the cursor moved past what is kept);
 * returns its length.
 */
static size_t fmt_duration(char *buf, uint64_t ns, bool overhead)
{
	uint64_t us = ns / 1000;
	unsigned int rem = (unsigned int)(ns - us * 1000);
	char *o = buf + 2;
	int n;

	buf[0] = overhead ? overhead_mark(ns) : ' ';
	buf[1] = ' ';
	if (us < 10) {
		*o = (char)('0' + us);
		n = 1;
	} else {
		n = linebuf__ndigits(us);
		linebuf__digits(o + n, us);
	}
	o += n;
	/* At most 7 digits in all: the decimals give way to the integer part. */
	if (n < 7) {
		int keep = n <= 4 ? 3 : 7 - n;

		o[0] = '.';
		o[1] = (char)('0' + rem / 100);
		linebuf__pair(o + 2, rem % 100);
		o += 1 + keep;
		n += 1 + keep;
	}
	memcpy(o, " us         ", 12);
	o += n < 8 ? 12 - n : 4;
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

/* The "comm-pid" column of a line's prefix, formatted again only when it changes. */
static char *put_proc_cached(struct out_text *w, char *o, const char *comm, uint32_t pid)
{
	if (!col_holds(&w->proc, pid) || strncmp(w->proc_comm, comm, PROC_COMM_LEN)) {
		strncpy(w->proc_comm, comm, PROC_COMM_LEN);
		w->proc_comm[PROC_COMM_LEN] = '\0';
		w->proc.len = fmt_proc(w->proc.text, comm, pid);
	}
	return put_col(o, &w->proc);
}

/* funcgraph-abstime's "%5lu.%06lu |  ", the seconds formatted again only when they change. */
static char *put_abstime(struct out_text *w, char *o, uint64_t ts)
{
	uint64_t sec = ts / NSEC_PER_SEC;

	if (!col_holds(&w->abs, sec)) {
		char tmp[24], *end = tmp + sizeof(tmp) - 1;
		char *p = linebuf__padded(end, sec, 5, ' ');

		*end = '.';
		w->abs.len = (size_t)(end + 1 - p);
		memcpy(w->abs.text, p, w->abs.len);
	}
	o = put_col(o, &w->abs);
	o += 6;
	linebuf__padded(o, ts % NSEC_PER_SEC / 1000, 6, '0');
	return put_bytes(o, " |  ", 4);
}

static const char *comm_of(const struct out_text *w, const char *comm, uint32_t pid)
{
	if (comm)
		return comm;
	return pid ? "<...>" : "<idle>";
}

/* " N) ", N right-aligned in the CPU column, into the cached column. */
static void fmt_cpu(struct out_text *w, uint32_t cpu)
{
	char tmp[32], *end = tmp + sizeof(tmp) - 2;
	char *p = linebuf__padded(end, cpu, w->cpu_width, ' ');

	*--p = ' ';
	memcpy(end, ") ", 2);
	w->cpu.len = (size_t)(end + 2 - p);
	memcpy(w->cpu.text, p, w->cpu.len);
}

/* The CPU column, formatted again only when it changes. */
static inline char *put_cpu(struct out_text *w, char *o, uint32_t cpu)
{
	if (!col_holds(&w->cpu, cpu))
		fmt_cpu(w, cpu);
	return put_col(o, &w->cpu);
}

/* print_graph_prologue() without the pid check, which the builder did. */
static char *put_prefix(struct out_text *w, char *o, const struct gev *ev)
{
	if (!has(w, BG_O_CONTEXT_INFO))
		return o;
	if (has(w, BG_O_ABSTIME))
		o = put_abstime(w, o, ev->ts);
	if (has(w, BG_O_CPU))
		o = put_cpu(w, o, ev->cpu);
	if (has(w, BG_O_PROC)) {
		o = put_proc_cached(w, o, comm_of(w, ev->comm, ev->pid), ev->pid);
		o = put_bytes(o, " | ", 3);
	}
	return o;
}

/* Duration column (FLAGS_FILL_FULL for an entry), then the indentation. */
static char *put_duration_indent(const struct out_text *w, char *o, const struct gev *ev)
{
	if (has(w, BG_O_DURATION) && has(w, BG_O_CONTEXT_INFO)) {
		if (ev->type == GEV_ENTER)
			o = put_bytes(o, "              |  ", 17);
		else
			o += fmt_duration(o, ev->dur, has(w, BG_O_OVERHEAD));
	}
	return put_spaces(o, (size_t)ev->depth * 2);
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
	char *o = buf;
	int64_t s;
	int n;

	if (kind == BG_RET_VOID)
		return 0;
	if (kind != BG_RET_UNKNOWN && f->ret_size >= 1 && f->ret_size < 8)
		bytes = f->ret_size;
	ret = low_bits(ret, bytes);
	s = signed_view(ret, kind, bytes);
	if (ret && !hex && s < 0 && s >= -MAX_ERRNO) {
		*o++ = '-';
		o += linebuf__ndigits((uint64_t)-s);
		linebuf__digits(o, (uint64_t)-s);
		return (size_t)(o - buf);
	}
	*o++ = '0';
	*o++ = 'x';
	n = ret ? (67 - __builtin_clzll(ret)) / 4 : 1;
	for (char *p = o + n; p > o; ret >>= 4)
		*--p = xdigits[ret & 0xf];
	return (size_t)(o + n - buf);
}

size_t out_text__retval(char *buf, uint64_t ret, const struct bg_func *f, bool hex)
{
	return fmt_retval(buf, ret, f, hex);
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

/*
 * What a line of a function shows besides its columns, known before it
 * is formatted: its size bounds the line.
 */
struct line_parts {
	const struct bg_func *f;
	const char *name; /* %ps: the display name; no symbol gives the bare address */
	size_t nlen;
	bool retval; /* a return value is printed */
	size_t nargs, nra;
	char args[ARGS_TEXT_MAX]; /* what goes between the parentheses */
	char ra[ARGS_TEXT_MAX]; /* "<-caller+0x3b/0x160" (funcgraph-retaddr) */
};

static void name_part(struct out_text *w, struct line_parts *lp, uint32_t func)
{
	lp->f = func_of(w, func);
	if (lp->f && lp->f->display) {
		lp->name = lp->f->display;
		lp->nlen = lp->f->display_len;
		return;
	}
	if (lp->f)
		snprintf(w->name_buf, sizeof(w->name_buf), "0x%" PRIx64, lp->f->addr);
	else
		snprintf(w->name_buf, sizeof(w->name_buf), "func#%u", func);
	lp->name = w->name_buf;
	lp->nlen = strlen(w->name_buf);
}

/* A formatter's length into an ARGS_TEXT_MAX buffer: 0 for none, cut to what it holds. */
static size_t text_len(int n)
{
	if (n <= 0)
		return 0;
	return (size_t)n < ARGS_TEXT_MAX ? (size_t)n : ARGS_TEXT_MAX - 1;
}

/* The parts of an ENTER, LEAF or EXIT line (print_graph_entry_nested() and the rest). */
static void line_parts(struct out_text *w, const struct gev *ev, struct line_parts *lp)
{
	name_part(w, lp, ev->func);
	lp->retval = ev->type != GEV_ENTER && w->o.dialect >= BG_DIALECT_6_5 &&
		     has(w, BG_O_RETVAL) && !ev->noret &&
		     (!lp->f || lp->f->ret_kind != BG_RET_VOID);
	lp->nargs = lp->nra = 0;
	if (!w->af || ev->type == GEV_EXIT)
		return;
	lp->nargs = text_len(args_fmt__args(w->af, ev, w->o.dialect, w->o.flags, lp->args,
					    sizeof(lp->args)));
	lp->nra = text_len(args_fmt__retaddr(w->af, ev, w->o.dialect, w->o.flags, lp->ra,
					     sizeof(lp->ra)));
}

/* "= VAL * /" or "ret=VAL * /" and the end of the line. */
static char *put_retval(const struct out_text *w, char *o, const struct gev *ev,
			const struct line_parts *lp)
{
	if (w->o.dialect >= BG_DIALECT_6_13)
		o = put_bytes(o, "ret=", 4);
	else
		o = put_bytes(o, "= ", 2);
	o += fmt_retval(o, ev->ret, lp->f, has(w, BG_O_RETVAL_HEX));
	return put_bytes(o, " */\n", 4);
}

/* "func(ARGS)": "()" unless funcgraph-args shows some. */
static char *put_call(char *o, const struct line_parts *lp)
{
	o = put_var(o, lp->name, lp->nlen);
	*o++ = '(';
	o = put_var(o, lp->args, lp->nargs);
	*o++ = ')';
	return o;
}

/* "func(ARGS) {", then " / * <-caller * /" (print_graph_entry_nested()). */
static char *put_enter(char *o, const struct line_parts *lp)
{
	o = put_call(o, lp);
	if (!lp->nra)
		return put_bytes(o, " {\n", 3);
	o = put_bytes(o, " { /* ", 6);
	o = put_bytes(o, lp->ra, lp->nra);
	return put_bytes(o, " */\n", 4);
}

/* "func(ARGS);", then " / *", " <-caller", " ret=V", " * /" as each is on. */
static char *put_leaf(const struct out_text *w, char *o, const struct gev *ev,
		      const struct line_parts *lp)
{
	o = put_call(o, lp);
	if (!lp->retval && !lp->nra)
		return put_bytes(o, ";\n", 2);
	o = put_bytes(o, "; /*", 4);
	if (lp->nra) {
		*o++ = ' ';
		o = put_bytes(o, lp->ra, lp->nra);
	}
	if (!lp->retval)
		return put_bytes(o, " */\n", 4);
	*o++ = ' ';
	return put_retval(w, o, ev, lp);
}

/* With a return value printed, every closing line names its function. */
static char *put_exit(const struct out_text *w, char *o, const struct gev *ev,
		      const struct line_parts *lp)
{
	if (!lp->retval && !ev->tail && !has(w, BG_O_TAIL))
		return put_bytes(o, "}\n", 2);
	o = put_bytes(o, "} /* ", 5);
	o = put_var(o, lp->name, lp->nlen);
	if (!lp->retval)
		return put_bytes(o, " */\n", 4);
	*o++ = ' ';
	return put_retval(w, o, ev, lp);
}

/* verif_pid(): printed whatever the context-info and cpu options say. */
static char *put_banner(struct out_text *w, char *o, const struct gev *ev)
{
	static const char rule[] = " ------------------------------------------\n";

	o = put_bytes(o, rule, sizeof(rule) - 1);
	o = put_cpu(w, o, ev->cpu);
	o += fmt_proc(o, comm_of(w, ev->prev_comm, ev->prev_pid), ev->prev_pid);
	o = put_bytes(o, " => ", 4);
	o += fmt_proc(o, comm_of(w, ev->comm, ev->pid), ev->pid);
	*o++ = '\n';
	o = put_bytes(o, rule, sizeof(rule) - 1);
	*o++ = '\n';
	return o;
}

/* Room for a line of up to bound bytes: in l, else in w->big; NULL if none. */
static char *line_room(struct out_text *w, struct linebuf *l, size_t bound)
{
	char *o = linebuf__reserve(l, bound);
	char *big;

	if (o)
		return o;
	if (bound > w->big_cap) {
		big = realloc(w->big, bound);
		if (!big) {
			if (!w->big_failed)
				fprintf(stderr, "bpfgraph: out of memory for a line of %zu bytes: "
					"such lines are left out\n", bound);
			w->big_failed = true;
			return NULL;
		}
		w->big = big;
		w->big_cap = bound;
	}
	return w->big;
}

void out_text__emit(void *ctx, const struct gev *ev)
{
	struct out_text *w = ctx;
	struct linebuf line, *l = &w->stream;
	struct line_parts lp;
	size_t bound = BANNER_BOUND;
	char *start, *o;

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
		break;
	case GEV_ENTER:
	case GEV_LEAF:
	case GEV_EXIT:
		line_parts(w, ev, &lp);
		bound = LINE_FIXED + (size_t)ev->depth * 2 + lp.nlen + lp.nargs + lp.nra;
		break;
	default:
		return;
	}
	start = o = line_room(w, l, bound);
	if (!o)
		return;
	if (ev->type == GEV_BANNER) {
		o = put_banner(w, o, ev);
	} else {
		o = put_prefix(w, o, ev);
		o = put_duration_indent(w, o, ev);
		if (ev->type == GEV_ENTER)
			o = put_enter(o, &lp);
		else if (ev->type == GEV_LEAF)
			o = put_leaf(w, o, ev, &lp);
		else
			o = put_exit(w, o, ev, &lp);
	}
	if (start == w->big)
		linebuf__put(l, start, (size_t)(o - start));
	else
		linebuf__commit(l, o);
	linebuf__line_end(l);
}
