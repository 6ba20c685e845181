// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * function_graph text reader. A line is taken apart in the order the
 * kernel builds it ("Line layout" in docs/function-graph-format.md, whose
 * section names the comments below quote):
 * [abstime] [cpu] [task/pid] [lat flags] [duration] indentation body.
 * What the columns show sets the layout once, at the first event line;
 * later lines that do not fit it are still read, and kept verbatim when
 * keep_text is on. Lines that lost their line breaks (a trace pasted into
 * a web page) are cut at their CPU columns and read loosely, with the
 * depth taken from the nesting instead of the indentation.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fgtext.h"

#define NSEC_PER_SEC UINT64_C(1000000000)
#define PROC_WIDTH 14 /* TRACE_GRAPH_PROCINFO_LENGTH */
#define PROC_MAX 24 /* comm (7) + '-' + pid, with slack for odd texts */
#define DUR_FILL 14 /* spaces of an empty duration column before "|  " */
#define COMM_BUF 64
#define MAX_CPU_WIDTH 9 /* keeps nr_cpu_ids in 32 bits */
#define IO_CHUNK 65536
#define OVERHEAD_MIN_NS 10000 /* no mark up to 10 us (trace_find_mark) */

static const char banner_rule[] = " ------------------------------------------";

struct fgt_cpu {
	/* enter_funcs[]: function of the last "f() {" printed at each depth */
	uint32_t open[FGTEXT_MAX_DEPTH];
	uint32_t rdepth; /* calls open in joined lines (recovery) */
};

/* display name -> functab index, open addressing; slots hold index + 1 */
struct name_map {
	uint32_t *slot;
	size_t cap, n;
};

/* What the columns of one line said. */
struct cols {
	bool abstime, cpu, proc, lat, dur_field, has_dur;
	uint64_t ts, dur;
	uint32_t cpu_nr, pid;
	int cpu_width;
	char mark;
	const char *comm;
	size_t comm_len;
};

enum body_type { B_ENTER, B_LEAF, B_EXIT, B_COMMENT };

struct body {
	enum body_type type;
	const char *name; /* display name, with " [mod]" */
	size_t name_len;
	bool has_ret, ret_hex, args, retaddr;
	int ret_form; /* BG_DIALECT_6_5 ("= x") or BG_DIALECT_6_13 ("ret=x") */
	uint64_t ret;
};

struct fgtext {
	struct fgtext_opts o;
	struct functab funcs;
	struct name_map names;
	struct fgtext_layout lay;
	struct fgtext_stats st;
	bool lay_set; /* columns fixed by the first event line */
	bool hdr_cols; /* a column header line was seen */
	struct fgt_cpu *cpu[BG_MAX_CPUS];
	/* input */
	char *ibuf;
	size_t ipos, ilen;
	bool eof;
	char *line;
	size_t cap;
	bool toolong; /* the line being read is left out (lenient) */
	uint32_t lineno;
	/* a context-switch banner being assembled: up to 3 lines */
	char *pend;
	size_t pend_len, pend_cap;
	int npend;
	uint32_t pend_line;
	struct fgtext_ev pend_ev;
	/* rendering, to compare with the input (keep_text) */
	FILE *mem;
	char *membuf;
	size_t memsize;
	struct out_text *w;
	struct out_text_opts wo;
	char comm[2][COMM_BUF];
	char err[256];
	uint32_t err_line;
};

/* --- small helpers ------------------------------------------------------ */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static const char *skip_spaces(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	return p;
}

static bool starts(const char *p, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(end - p) >= n && !memcmp(p, lit, n);
}

static bool ends(const char *p, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(end - p) >= n && !memcmp(end - n, lit, n);
}

/* Decimal digits into *v; NULL on no digit or overflow. */
static const char *parse_u64(const char *p, const char *end, uint64_t *v)
{
	const char *s = p;
	uint64_t x = 0;

	*v = 0;
	for (; p < end && is_digit(*p); p++) {
		if (x > (UINT64_MAX - 9) / 10)
			return NULL;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*v = x;
	return p > s ? p : NULL;
}

static const char *find(const char *p, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	for (; (size_t)(end - p) >= n; p++)
		if (!memcmp(p, lit, n))
			return p;
	return NULL;
}

static const char *rfind(const char *p, const char *end, const char *lit)
{
	size_t n = strlen(lit);
	const char *q;

	if ((size_t)(end - p) < n)
		return NULL;
	for (q = end - n; q >= p; q--)
		if (!memcmp(q, lit, n))
			return q;
	return NULL;
}

/* What malformed() returns when lenient: the line is passed on as text. */
#define SKIP_LINE 2

static __attribute__((format(printf, 2, 0))) int vfail(struct fgtext *r, const char *fmt,
							va_list ap)
{
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	r->err_line = r->lineno;
	if (r->o.err)
		fprintf(r->o.err, "%s:%u: %s\n", r->o.name ? r->o.name : "<input>", r->lineno,
			r->err);
	return -EINVAL;
}

static __attribute__((format(printf, 2, 3))) int fail(struct fgtext *r, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vfail(r, fmt, ap);
	va_end(ap);
	return err;
}

/* A graph line that cannot be taken: an error, or SKIP_LINE when lenient. */
static __attribute__((format(printf, 2, 3))) int malformed(struct fgtext *r, const char *fmt,
							   ...)
{
	va_list ap;
	int err;

	if (r->o.lenient)
		return SKIP_LINE;
	va_start(ap, fmt);
	err = vfail(r, fmt, ap);
	va_end(ap);
	return err;
}

/* A short quote of bad text for messages. */
static const char *quote(char *buf, size_t len, const char *p, const char *end)
{
	size_t n = (size_t)(end - p);

	if (n > 40)
		snprintf(buf, len, "%.37s...", p);
	else
		snprintf(buf, len, "%.*s", (int)n, p);
	return buf;
}

/* --- function names ----------------------------------------------------- */

static uint32_t hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static int map_grow(struct fgtext *r)
{
	struct name_map *m = &r->names;
	size_t cap = m->cap ? m->cap * 2 : 256;
	uint32_t *slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		const char *d;
		size_t h;

		if (!m->slot[i])
			continue;
		d = r->funcs.f[m->slot[i] - 1].display;
		for (h = hash(d, strlen(d)) & (cap - 1); slot[h]; h = (h + 1) & (cap - 1))
			;
		slot[h] = m->slot[i];
	}
	free(m->slot);
	m->slot = slot;
	m->cap = cap;
	return 0;
}

/* Symbol characters: what %ps can print, minus the text's punctuation. */
static bool name_char(char c)
{
	return c > ' ' && c < 0x7f && !strchr("(){};[]/*=", c);
}

/* "name" or "name [module]" ("Function names"). */
static bool split_name(const char *p, size_t n, size_t *sym_len, const char **mod,
		       size_t *mod_len)
{
	const char *end = p + n, *br;

	*mod = NULL;
	*mod_len = 0;
	*sym_len = n;
	if (n && end[-1] == ']' && (br = rfind(p, end, " ["))) {
		*mod = br + 2;
		*mod_len = (size_t)(end - 1 - *mod);
		*sym_len = (size_t)(br - p);
		if (!*mod_len)
			return false;
		for (size_t i = 0; i < *mod_len; i++)
			if (!name_char((*mod)[i]))
				return false;
	}
	if (!*sym_len)
		return false;
	for (size_t i = 0; i < *sym_len; i++)
		if (!name_char(p[i]))
			return false;
	return true;
}

static bool valid_name(const char *p, size_t n)
{
	const char *mod;
	size_t sl, ml;

	return split_name(p, n, &sl, &mod, &ml);
}

/* Index of the function printed as p[0..n), added on first sight. */
static int func_index(struct fgtext *r, const char *p, size_t n)
{
	struct name_map *m = &r->names;
	char *sym = NULL, *mod = NULL;
	const char *mp;
	size_t h, sl, ml;
	int idx, err;

	if (m->n * 2 >= m->cap && (err = map_grow(r)))
		return err;
	for (h = hash(p, n) & (m->cap - 1); m->slot[h]; h = (h + 1) & (m->cap - 1)) {
		const char *d = r->funcs.f[m->slot[h] - 1].display;

		if (strlen(d) == n && !memcmp(d, p, n))
			return (int)m->slot[h] - 1;
	}
	split_name(p, n, &sl, &mp, &ml);
	sym = strndup(p, sl);
	mod = mp ? strndup(mp, ml) : NULL;
	if (!sym || (mp && !mod)) {
		free(sym);
		free(mod);
		return -ENOMEM;
	}
	idx = functab__add(&r->funcs, sym, mod, 0, 0);
	free(sym);
	free(mod);
	if (idx < 0)
		return idx;
	m->slot[h] = (uint32_t)idx + 1;
	m->n++;
	return idx;
}

static struct fgt_cpu *cpu_state(struct fgtext *r, uint32_t cpu)
{
	struct fgt_cpu *c = r->cpu[cpu];

	if (c)
		return c;
	c = malloc(sizeof(*c));
	if (!c)
		return NULL;
	for (size_t i = 0; i < FGTEXT_MAX_DEPTH; i++)
		c->open[i] = FGTEXT_NOFUNC;
	c->rdepth = 0;
	r->cpu[cpu] = c;
	return c;
}

/* --- columns ("Line layout") -------------------------------------------- */

/* "%5lu.%06lu |  " */
static const char *parse_abstime(const char *p, const char *end, uint64_t *ts)
{
	uint64_t sec, usec;
	const char *q = skip_spaces(p, end), *f;

	q = parse_u64(q, end, &sec);
	if (!q || q >= end || *q != '.')
		return NULL;
	f = parse_u64(q + 1, end, &usec);
	if (!f || f - q != 7 || !starts(f, end, " |  ") || sec > UINT64_MAX / NSEC_PER_SEC - 1)
		return NULL;
	*ts = sec * NSEC_PER_SEC + usec * 1000;
	return f + 4;
}

/* " %*d) ": the width is everything between the first space and ')'. */
static const char *parse_cpu(const char *p, const char *end, struct cols *c)
{
	const char *q = p, *d;
	uint64_t v;

	if (q >= end || *q != ' ')
		return NULL;
	q = skip_spaces(q, end);
	d = parse_u64(q, end, &v);
	if (!d || !starts(d, end, ") ") || v > UINT32_MAX)
		return NULL;
	c->cpu_nr = (uint32_t)v;
	c->cpu_width = (int)(d - p - 1);
	return d + 2;
}

/* "  comm-pid  ": trimmed, split at the last '-' (comms may hold one). */
static bool split_task(const char *s, const char *e, struct cols *c)
{
	const char *dash;
	uint64_t pid;

	s = skip_spaces(s, e);
	while (e > s && e[-1] == ' ')
		e--;
	dash = rfind(s, e, "-");
	if (!dash || parse_u64(dash + 1, e, &pid) != e || pid > UINT32_MAX)
		return false;
	c->comm = s;
	c->comm_len = (size_t)(dash - s);
	c->pid = (uint32_t)pid;
	return true;
}

/* "comm-pid" centred in 14 columns (wider when it does not fit), " | ". */
static const char *parse_proc(const char *p, const char *end, struct cols *c)
{
	const char *bar;

	if (end - p < PROC_WIDTH + 3)
		return NULL;
	bar = find(p + PROC_WIDTH, end - p > PROC_MAX + 3 ? p + PROC_MAX + 3 : end, " | ");
	return bar && split_task(p, bar, c) ? bar + 3 : NULL;
}

/* latency-format: " " + 5 flag characters + " | " ("Latency flags") */
static const char *parse_lat(const char *p, const char *end)
{
	static const char *const set[5] = { "dDbX.", "Nnp.", "ZzHhs.", "0123456789abcdef.",
					    "0123456789abcdef." };

	if (end - p < 9 || p[0] != ' ' || !starts(p + 6, end, " | "))
		return NULL;
	for (int i = 0; i < 5; i++)
		if (!p[1 + i] || !strchr(set[i], p[1 + i]))
			return NULL;
	return p + 9;
}

/* "1.382" -> 1382 ns: whole microseconds and up to 3 decimals. */
static const char *parse_usecs(const char *p, const char *end, uint64_t *ns)
{
	uint64_t us, frac = 0;
	const char *q = parse_u64(p, end, &us), *f;
	int digits = 0;

	if (!q || us > UINT64_MAX / 1000 - 1)
		return NULL;
	if (q < end && *q == '.') {
		f = parse_u64(q + 1, end, &frac);
		digits = f ? (int)(f - q - 1) : 0;
		if (!digits || digits > 3)
			return NULL;
		q = f;
		while (digits++ < 3)
			frac *= 10;
	}
	*ns = us * 1000 + frac;
	return q;
}

static bool is_mark(char c)
{
	return c && strchr(" +!#*@$", c);
}

/*
 * mark, ' ', value, " us ", padding, "|  " - or 14 spaces and "|  "
 * ("DURATION column")
 */
static const char *parse_duration(const char *p, const char *end, struct cols *c)
{
	const char *q;

	if (end - p >= DUR_FILL + 3 && starts(p + DUR_FILL, end, "|  ")) {
		for (q = p; q < p + DUR_FILL && *q == ' '; q++)
			;
		if (q == p + DUR_FILL)
			return p + DUR_FILL + 3;
	}
	if (end - p < 4 || !is_mark(p[0]) || p[1] != ' ' || !is_digit(p[2]))
		return NULL;
	q = parse_usecs(p + 2, end, &c->dur);
	if (!q || !starts(q, end, " us "))
		return NULL;
	q = skip_spaces(q + 4, end);
	if (!starts(q, end, "|  "))
		return NULL;
	c->mark = p[0];
	c->has_dur = true;
	return q + 3;
}

/* Every column, in the kernel's order; returns where the indentation starts. */
static const char *parse_cols(const char *p, const char *end, struct cols *c)
{
	const char *q;

	memset(c, 0, sizeof(*c));
	if ((q = parse_abstime(p, end, &c->ts))) {
		c->abstime = true;
		p = q;
	}
	if ((q = parse_cpu(p, end, c))) {
		c->cpu = true;
		p = q;
	}
	/* A duration column is never a task column: try it first. */
	if (!parse_duration(p, end, &(struct cols){}) && (q = parse_proc(p, end, c))) {
		c->proc = true;
		p = q;
	}
	if ((q = parse_lat(p, end))) {
		c->lat = true;
		p = q;
	}
	if ((q = parse_duration(p, end, c))) {
		c->dur_field = true;
		p = q;
	}
	return p;
}

static bool any_col(const struct cols *c)
{
	return c->abstime || c->cpu || c->proc || c->lat || c->dur_field;
}

/* --- bodies ("Leaves and braces", "Return values", "Comments") --------- */

/* "0x1f" (hex), "-22" or "5" (decimal) */
static bool parse_ret(const char *p, const char *end, struct body *b)
{
	char buf[32], *e;
	size_t n = (size_t)(end - p);

	if (!n || n >= sizeof(buf) || strchr(" \t", *p))
		return false;
	memcpy(buf, p, n);
	buf[n] = '\0';
	errno = 0;
	if (n > 2 && buf[0] == '0' && buf[1] == 'x') {
		if (!isxdigit((unsigned char)buf[2]) || strchr(buf + 2, 'x'))
			return false;
		b->ret = strtoull(buf + 2, &e, 16);
		b->ret_hex = true;
	} else if (buf[0] == '-' || is_digit(buf[0])) {
		b->ret = buf[0] == '-' ? (uint64_t)strtoll(buf, &e, 10) : strtoull(buf, &e, 10);
		b->ret_hex = false;
	} else {
		return false;
	}
	if (*e || errno)
		return false;
	b->has_ret = true;
	return true;
}

/* "<-caller+0x6d/0xf0" and what may follow it up to " ret=" */
static bool parse_retaddr(const char *p, const char *end)
{
	return starts(p, end, "<-") && end - p > 2 && p[2] != ' ';
}

/* The comment after "f();" or "f() {": return value and/or return address. */
static void parse_call_comment(const char *p, const char *end, struct body *b)
{
	const char *r;

	if (b->type == B_LEAF && starts(p, end, "= ") && parse_ret(p + 2, end, b)) {
		b->ret_form = BG_DIALECT_6_5;
		return;
	}
	if (parse_retaddr(p, end)) {
		b->retaddr = true;
		r = rfind(p, end, " ret=");
		if (!r)
			return;
		p = r + 1;
	}
	/* anything else is kept verbatim: out_text will not print it */
	if (b->type == B_LEAF && starts(p, end, "ret=") && parse_ret(p + 4, end, b))
		b->ret_form = BG_DIALECT_6_13;
}

/* "}" [" / * f * /" | " / * f = x * /" | " / * f ret=x * /"] */
static bool parse_exit(const char *p, const char *end, struct body *b)
{
	const char *in, *ine, *r;

	b->type = B_EXIT;
	if (p + 1 == end)
		return true;
	if (!starts(p + 1, end, " /* ") || !ends(p, end, " */") || end - p < 8)
		return false;
	in = p + 5;
	ine = end - 3;
	if ((r = rfind(in, ine, " = ")) && parse_ret(r + 3, ine, b)) {
		b->ret_form = BG_DIALECT_6_5;
		ine = r;
	} else if ((r = rfind(in, ine, " ret=")) && parse_ret(r + 5, ine, b)) {
		b->ret_form = BG_DIALECT_6_13;
		ine = r;
	}
	b->name = in;
	b->name_len = (size_t)(ine - in);
	return valid_name(in, b->name_len);
}

/*
 * Arguments (6.15+) may hold "(STRUCT)[...]" but never an unbalanced
 * parenthesis: that is two lines joined into one.
 */
static bool balanced(const char *p, const char *end)
{
	int depth = 0;

	for (; p < end; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && --depth < 0)
			return false;
		else if (*p == '{' || *p == '}' || *p == ';')
			return false;
	}
	return depth == 0;
}

/*
 * "f(args);" / "f(args) {", then an optional comment. Strict: nothing may
 * follow; loose: whatever follows is ignored (commentary).
 */
static bool parse_call(const char *p, const char *end, struct body *b, bool loose)
{
	const char *par = memchr(p, '(', (size_t)(end - p)), *close, *cm = NULL, *ce;

	if (!par || !valid_name(p, (size_t)(par - p)))
		return false;
	b->name = p;
	b->name_len = (size_t)(par - p);
	/* the comment's " / * " ends before its " * /" ("f(); / * * /" overlaps them) */
	if (!loose && ends(p, end, " */") && (cm = rfind(par, end - 3, " /* ")))
		ce = cm;
	else
		ce = end;
	if (loose) {
		const char *l = find(par, end, ");"), *e = find(par, end, ") {");

		close = l && (!e || l < e) ? l : e;
		if (!close)
			return false;
	} else if (ends(par, ce, ");")) {
		close = ce - 2;
	} else if (ends(par, ce, ") {")) {
		close = ce - 3;
	} else {
		return false;
	}
	if (!balanced(par + 1, close))
		return false;
	b->type = close[1] == ';' ? B_LEAF : B_ENTER;
	b->args = close > par + 1;
	if (cm)
		parse_call_comment(cm + 4, end - 3, b);
	return true;
}

static bool parse_body(const char *p, const char *end, struct body *b, bool loose)
{
	memset(b, 0, sizeof(*b));
	if (p >= end)
		return false;
	if (*p == '}') {
		if (!loose)
			return parse_exit(p, end, b);
		/* Loose: "}" or "} / * f * /", then anything. */
		if (starts(p, end, "} /* ")) {
			const char *c = find(p + 5, end, " */");

			if (c && parse_exit(p, c + 3, b))
				return true;
		}
		b->type = B_EXIT;
		return true;
	}
	if (starts(p, end, "/* ") && (ends(p, end, " */") || loose)) {
		b->type = B_COMMENT;
		return true;
	}
	return parse_call(p, end, b, loose);
}

static bool irq_marker(const char *p, const char *end)
{
	p = skip_spaces(p, end);
	if (!starts(p, end, "==========>") && !starts(p, end, "<=========="))
		return false;
	p += 11;
	return p == end || (starts(p, end, " |") && p + 2 == end);
}

/* --- layout ------------------------------------------------------------- */

/* Columns of the first event line, for the whole text. */
static void set_layout(struct fgtext *r, const struct cols *c)
{
	struct fgtext_layout *l = &r->lay;
	uint32_t cols = BG_O_CPU | BG_O_PROC | BG_O_DURATION | BG_O_ABSTIME | BG_O_CONTEXT_INFO;

	if (r->lay_set)
		return;
	r->lay_set = true;
	l->flags &= ~cols;
	if (c->abstime)
		l->flags |= BG_O_ABSTIME;
	if (c->cpu)
		l->flags |= BG_O_CPU;
	if (c->proc)
		l->flags |= BG_O_PROC;
	if (c->dur_field)
		l->flags |= BG_O_DURATION;
	if (c->cpu && !l->cpu_width)
		l->cpu_width = c->cpu_width > MAX_CPU_WIDTH ? MAX_CPU_WIDTH : c->cpu_width;
	if (c->lat)
		l->cols |= FGT_L_LATENCY;
	/* "# tracer", no column headers: context-info was off ("Column headers"). */
	if (any_col(c) || !l->header || r->hdr_cols)
		l->flags |= BG_O_CONTEXT_INFO;
	l->known |= cols;
}

static void learn_overhead(struct fgtext *r, const struct cols *c)
{
	struct fgtext_layout *l = &r->lay;
	char buf[32];

	if (!c->has_dur || c->dur <= OVERHEAD_MIN_NS || (l->known & BG_O_OVERHEAD))
		return;
	out_text__fmt_duration(buf, sizeof(buf), c->dur, true);
	if (c->mark == ' ')
		l->flags &= ~BG_O_OVERHEAD;
	else if (c->mark == buf[0])
		l->flags |= BG_O_OVERHEAD;
	else
		return;
	l->known |= BG_O_OVERHEAD;
}

/*
 * The first LEAF or EXIT decides the dialect; hex mode is decided by the
 * first value the two modes print differently (an error code).
 */
static void learn_retval(struct fgtext *r, const struct body *b)
{
	struct fgtext_layout *l = &r->lay;
	char buf[32];

	if (b->type != B_LEAF && b->type != B_EXIT)
		return;
	if (!(l->known & BG_O_RETVAL)) {
		l->known |= BG_O_RETVAL;
		if (b->has_ret) {
			l->flags |= BG_O_RETVAL;
			l->dialect = (enum bg_dialect)b->ret_form;
		}
	}
	if (!b->has_ret || (l->known & BG_O_RETVAL_HEX))
		return;
	out_text__fmt_retval(buf, sizeof(buf), b->ret, NULL, false);
	if (buf[0] != '-')
		return;
	if (b->ret_hex)
		l->flags |= BG_O_RETVAL_HEX;
	l->known |= BG_O_RETVAL_HEX;
}

/*
 * A bare "}" says funcgraph-tail was off; a named one whose entry was
 * seen at its depth, that it was on.
 */
static void learn_tail(struct fgtext *r, const struct fgtext_ev *e, bool named, bool seen)
{
	struct fgtext_layout *l = &r->lay;

	if (e->has_ret || (l->known & BG_O_TAIL) || (named && !seen))
		return;
	if (named)
		l->flags |= BG_O_TAIL;
	else
		l->flags &= ~BG_O_TAIL;
	l->known |= BG_O_TAIL;
}

/* Column header line: "# CPU  DURATION ... FUNCTION CALLS" ("Column headers") */
static void header_line(struct fgtext *r, const char *p, const char *end)
{
	struct fgtext_layout *l = &r->lay;

	if (starts(p, end, "# tracer:"))
		l->header = true;
	if (!find(p, end, "FUNCTION CALLS") || r->lay_set)
		return;
	r->hdr_cols = true;
	l->flags &= ~(BG_O_CPU | BG_O_PROC | BG_O_DURATION | BG_O_ABSTIME);
	if (find(p, end, " TIME "))
		l->flags |= BG_O_ABSTIME;
	if (find(p, end, " CPU"))
		l->flags |= BG_O_CPU;
	if (find(p, end, "TASK/PID"))
		l->flags |= BG_O_PROC;
	if (find(p, end, "DURATION"))
		l->flags |= BG_O_DURATION;
	l->flags |= BG_O_CONTEXT_INFO;
}

/* --- rendering and handing out ------------------------------------------ */

static uint32_t nr_cpu_ids_for(int width)
{
	uint32_t n = 1;

	/* width W needs nr_cpu_ids - 1 to have W digits */
	for (int i = 1; i < width && i < MAX_CPU_WIDTH; i++)
		n *= 10;
	return width > 1 ? n + 1 : 1;
}

void fgtext__out_opts(const struct fgtext_layout *l, struct out_text_opts *o)
{
	/* tail is per event: gev.tail is what the line showed */
	o->flags = l->flags & ~BG_O_TAIL;
	o->dialect = l->dialect;
	o->nr_cpu_ids = nr_cpu_ids_for(l->cpu_width);
	o->header = false;
}

static int writer_for_layout(struct fgtext *r)
{
	struct out_text_opts o = r->wo;

	fgtext__out_opts(&r->lay, &o);
	if (r->w && o.flags == r->wo.flags && o.dialect == r->wo.dialect &&
	    o.nr_cpu_ids == r->wo.nr_cpu_ids)
		return 0;
	out_text__free(r->w);
	o.out = r->mem;
	o.funcs = &r->funcs;
	r->wo = o;
	r->w = out_text__new(&o);
	return r->w ? 0 : -ENOMEM;
}

/* Does out_text print exactly text (plus '\n') for e? */
static int renders_same(struct fgtext *r, const struct fgtext_ev *e, bool *same)
{
	size_t n = strlen(e->text);
	long len;
	int err = writer_for_layout(r);

	if (err)
		return err;
	rewind(r->mem);
	out_text__emit(r->w, &e->ev);
	if (fflush(r->mem))
		return -ENOMEM;
	len = ftell(r->mem);
	*same = len == (long)n + 1 && !memcmp(r->membuf, e->text, n) && r->membuf[n] == '\n';
	return 0;
}

static int hand_out(struct fgtext *r, struct fgtext_ev *e)
{
	bool same = false;
	int err;

	if (e->kind == FGT_EVENT) {
		r->st.events++;
		if (e->ev.type == GEV_ENTER || e->ev.type == GEV_LEAF)
			r->st.calls++;
		if (e->recovered)
			r->st.recovered++;
		if (r->o.keep_text && e->text && !e->recovered &&
		    (err = renders_same(r, e, &same)))
			return err;
		if (same || !r->o.keep_text || e->recovered)
			e->text = NULL;
		if (e->text)
			r->st.verbatim++;
	} else if (e->kind == FGT_TEXT) {
		r->st.other++;
	}
	return r->o.emit ? r->o.emit(r->o.ctx, e, &r->funcs) : 0;
}

static int text_line(struct fgtext *r, enum fgtext_kind kind, const char *text, uint32_t line)
{
	struct fgtext_ev e = { .kind = kind, .line = line, .text = text };

	return hand_out(r, &e);
}

/* --- events ------------------------------------------------------------- */

static void copy_comm(char *dst, const char *s, size_t n)
{
	if (n >= COMM_BUF)
		n = COMM_BUF - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static int fill_from_cols(struct fgtext *r, struct fgtext_ev *e, const struct cols *c)
{
	if (c->cpu && c->cpu_nr >= BG_MAX_CPUS)
		return malformed(r, "CPU %u out of range (at most %d)", c->cpu_nr,
				 BG_MAX_CPUS - 1);
	e->ev.cpu = c->cpu ? c->cpu_nr : 0;
	e->ev.ts = c->ts;
	e->ev.dur = c->dur;
	if (c->proc) {
		copy_comm(r->comm[0], c->comm, c->comm_len);
		e->ev.comm = r->comm[0];
		e->ev.pid = c->pid;
	}
	return 0;
}

/* Function of a closing line: named, or the entry seen at that depth. */
static int exit_func(struct fgtext *r, struct fgtext_ev *e, const struct body *b,
		     struct fgt_cpu *cs)
{
	uint32_t d = e->ev.depth, seen = cs->open[d];
	int idx;

	if (!b->name) {
		e->ev.func = seen;
		e->ev.tail = false;
		return 0;
	}
	idx = func_index(r, b->name, b->name_len);
	if (idx < 0)
		return idx;
	e->ev.func = (uint32_t)idx;
	e->ev.tail = b->has_ret ? seen != (uint32_t)idx : true;
	return 0;
}

/* A graph line with a call body: ENTER, LEAF or EXIT at depth. */
static int call_event(struct fgtext *r, struct fgtext_ev *e, const struct body *b, uint32_t depth)
{
	struct fgt_cpu *cs;
	int idx, err;

	if (depth >= FGTEXT_MAX_DEPTH)
		return malformed(r, "nesting deeper than %d levels", FGTEXT_MAX_DEPTH - 1);
	cs = cpu_state(r, e->ev.cpu);
	if (!cs)
		return -ENOMEM;
	e->ev.depth = depth;
	e->has_ret = b->has_ret;
	e->ev.ret = b->ret;
	if (b->type == B_EXIT) {
		e->ev.type = GEV_EXIT;
		err = exit_func(r, e, b, cs);
		if (err)
			return err;
		learn_tail(r, e, b->name != NULL, cs->open[depth] == e->ev.func);
		cs->rdepth = depth;
		return hand_out(r, e);
	}
	idx = func_index(r, b->name, b->name_len);
	if (idx < 0)
		return idx;
	e->ev.func = (uint32_t)idx;
	if (b->type == B_ENTER) {
		e->ev.type = GEV_ENTER;
		e->ev.dur = 0;
		cs->open[depth] = (uint32_t)idx;
		cs->rdepth = depth + 1;
	} else {
		e->ev.type = GEV_LEAF;
		cs->rdepth = depth;
	}
	return hand_out(r, e);
}

static void note_body_traits(struct fgtext *r, const struct body *b)
{
	if (b->args)
		r->lay.cols |= FGT_L_ARGS;
	if (b->retaddr)
		r->lay.cols |= FGT_L_RETADDR;
}

/* --- joined lines (seed 004: line breaks replaced by spaces) ----------- */

/* "N) " at p, with a space or the line start before it. */
static bool cpu_mark_at(const char *line, const char *p, const char *end)
{
	const char *q = p;

	if (p > line && p[-1] != ' ')
		return false;
	while (q < end && is_digit(*q))
		q++;
	return q > p && q - p <= 5 && starts(q, end, ") ");
}

static const char *next_cpu_mark(const char *line, const char *p, const char *end)
{
	for (; p < end; p++)
		if (is_digit(*p) && cpu_mark_at(line, p, end))
			return p;
	return end;
}

static size_t count_cpu_marks(const char *p, const char *end)
{
	size_t n = 0;

	for (const char *q = next_cpu_mark(p, p, end); q < end; q = next_cpu_mark(p, q + 1, end))
		n++;
	return n;
}

/* Loose duration: "[mark ]VALUE us |" or "|", single spaces. */
static const char *loose_duration(const char *p, const char *end, struct cols *c)
{
	const char *q = p;

	if (q < end && *q == '|')
		return skip_spaces(q + 1, end);
	if (q + 1 < end && is_mark(*q) && *q != ' ' && q[1] == ' ') {
		c->mark = *q;
		q += 2;
	} else {
		c->mark = ' ';
	}
	q = parse_usecs(q, end, &c->dur);
	if (!q || !starts(q, end, " us"))
		return NULL;
	q = skip_spaces(q + 3, end);
	if (q >= end || *q != '|')
		return NULL;
	c->has_dur = true;
	return skip_spaces(q + 1, end);
}

/* One "N) ... body" piece; depth from the nesting on its CPU. */
static int recover_piece(struct fgtext *r, const char *p, const char *end)
{
	struct fgtext_ev e = { .kind = FGT_EVENT, .line = r->lineno, .recovered = true };
	struct cols c = { .cpu = true, .dur_field = true };
	struct fgt_cpu *cs;
	struct body b;
	uint64_t cpu;
	const char *d = parse_u64(p, end, &cpu), *q;
	uint32_t depth;

	q = loose_duration(skip_spaces(d + 1, end), end, &c);
	if (!q || !parse_body(q, end, &b, true) || b.type == B_COMMENT || cpu >= BG_MAX_CPUS) {
		r->st.unparsed++;
		return 0;
	}
	c.cpu_nr = (uint32_t)cpu;
	c.cpu_width = (int)(d - p);
	set_layout(r, &c);
	if (c.cpu_width > r->lay.cpu_width)
		r->lay.cpu_width = c.cpu_width;
	learn_overhead(r, &c);
	fill_from_cols(r, &e, &c);
	cs = cpu_state(r, c.cpu_nr);
	if (!cs)
		return -ENOMEM;
	depth = cs->rdepth;
	if (b.type == B_EXIT && depth)
		depth--;
	if (depth >= FGTEXT_MAX_DEPTH - 1) {
		r->st.unparsed++;
		return 0;
	}
	return call_event(r, &e, &b, depth);
}

static int recover_joined(struct fgtext *r, const char *p, const char *end)
{
	const char *q = next_cpu_mark(p, p, end), *next, *e;
	int err;

	r->st.joined++;
	if (skip_spaces(p, q) < q)
		r->st.unparsed++; /* text before the first CPU column */
	for (; q < end; q = next) {
		next = next_cpu_mark(p, q + 1, end);
		for (e = next; e > q && e[-1] == ' '; e--)
			;
		err = recover_piece(r, q, e);
		if (err)
			return err;
	}
	return 0;
}

/* --- whole lines -------------------------------------------------------- */

/* "CPU:%u [LOST %lu EVENTS]" / "CPU:%u [LOST EVENTS]" ("Lost events") */
static int lost_line(struct fgtext *r, const char *p, const char *end, bool *done)
{
	struct fgtext_ev e = { .kind = FGT_EVENT, .line = r->lineno, .text = p };
	uint64_t cpu, count = 0;
	const char *q, *c;

	*done = false;
	if (!starts(p, end, "CPU:") || !(q = parse_u64(p + 4, end, &cpu)))
		return 0;
	c = starts(q, end, " [LOST ") ? parse_u64(q + 7, end, &count) : NULL;
	if (!(c && starts(c, end, " EVENTS]") && c + 8 == end) &&
	    !(starts(q, end, " [LOST EVENTS]") && q + 14 == end))
		return 0;
	*done = true;
	if (cpu >= BG_MAX_CPUS)
		return malformed(r, "CPU %" PRIu64 " out of range (at most %d)", cpu,
				 BG_MAX_CPUS - 1);
	e.ev.type = GEV_LOST;
	e.ev.cpu = (uint32_t)cpu;
	e.ev.count = count;
	return hand_out(r, &e);
}

/* A graph line: columns, indentation, body; or a comment / irq marker. */
static int graph_line(struct fgtext *r, const char *p, const char *end, bool *done)
{
	struct fgtext_ev e = { .kind = FGT_EVENT, .line = r->lineno, .text = p };
	struct cols c;
	struct body b;
	const char *q = parse_cols(p, end, &c), *body = skip_spaces(q, end);
	int err;

	*done = false;
	if (any_col(&c) && irq_marker(q, end)) {
		*done = true;
		return text_line(r, FGT_IRQ, p, r->lineno);
	}
	if (!parse_body(body, end, &b, false))
		return 0;
	*done = true;
	if (b.type == B_COMMENT)
		return text_line(r, FGT_COMMENT, p, r->lineno);
	set_layout(r, &c);
	learn_overhead(r, &c);
	learn_retval(r, &b);
	note_body_traits(r, &b);
	err = fill_from_cols(r, &e, &c);
	if (err)
		return err;
	return call_event(r, &e, &b, (uint32_t)(body - q) / 2);
}

/* A line nothing understood: malformed if it started like a graph line. */
static int other_line(struct fgtext *r, const char *p, const char *end)
{
	struct cols c;
	const char *q = parse_cols(p, end, &c);
	char buf[64];

	if (count_cpu_marks(p, end) >= 2)
		return recover_joined(r, p, end);
	if (!any_col(&c))
		return text_line(r, FGT_TEXT, p, r->lineno);
	if (r->o.lenient) {
		r->st.unparsed++;
		return text_line(r, FGT_TEXT, p, r->lineno);
	}
	if (c.dur_field || q == end)
		return fail(r, "cannot parse function call '%s'",
			    quote(buf, sizeof(buf), skip_spaces(q, end), end));
	return fail(r, "cannot parse line '%s'", quote(buf, sizeof(buf), p, end));
}

/* --- context-switch banners ("Context switches"): 4 lines --------------- */

/* " 0)   rcu_pre-15   =>    <idle>-0   " */
static bool banner_mid(struct fgtext *r, const char *p, const char *end, struct fgtext_ev *e)
{
	struct cols c = {}, prev = {}, next = {};
	const char *q = parse_cpu(p, end, &c), *arrow = q ? find(q, end, " => ") : NULL;

	if (!arrow || c.cpu_nr >= BG_MAX_CPUS || !split_task(q, arrow, &prev) ||
	    !split_task(arrow + 4, end, &next))
		return false;
	copy_comm(r->comm[0], next.comm, next.comm_len);
	copy_comm(r->comm[1], prev.comm, prev.comm_len);
	e->ev.type = GEV_BANNER;
	e->ev.cpu = c.cpu_nr;
	e->ev.pid = next.pid;
	e->ev.prev_pid = prev.pid;
	e->ev.comm = r->comm[0];
	e->ev.prev_comm = r->comm[1];
	if (!r->lay.cpu_width)
		r->lay.cpu_width = c.cpu_width > MAX_CPU_WIDTH ? MAX_CPU_WIDTH : c.cpu_width;
	return true;
}

static int pend_add(struct fgtext *r, const char *p, size_t n)
{
	size_t need = r->pend_len + n + 2;

	if (need > r->pend_cap) {
		char *np = realloc(r->pend, need);

		if (!np)
			return -ENOMEM;
		r->pend = np;
		r->pend_cap = need;
	}
	if (r->npend)
		r->pend[r->pend_len++] = '\n';
	memcpy(r->pend + r->pend_len, p, n);
	r->pend_len += n;
	r->pend[r->pend_len] = '\0';
	if (!r->npend++)
		r->pend_line = r->lineno;
	return 0;
}

/* The held lines were not a banner after all: pass them on as text. */
static int pend_flush(struct fgtext *r)
{
	char *s = r->pend, *nl;
	uint32_t line = r->pend_line;
	int err = 0, n = r->npend;

	r->npend = 0;
	r->pend_len = 0;
	if (n == 3) {
		/* all but the blank line: a banner, printed as it was */
		r->pend_ev.text = s;
		r->pend_ev.line = line;
		return hand_out(r, &r->pend_ev);
	}
	for (int i = 0; i < n && !err; i++, line++) {
		nl = strchr(s, '\n');
		if (nl)
			*nl = '\0';
		err = text_line(r, FGT_TEXT, s, line);
		s = nl ? nl + 1 : s;
	}
	return err;
}

/* Returns 1 when the line was taken by a banner. */
static int banner_step(struct fgtext *r, const char *p, const char *end)
{
	size_t n = (size_t)(end - p);
	bool rule = n == sizeof(banner_rule) - 1 && !memcmp(p, banner_rule, n);
	int err;

	if (r->npend == 0 && !rule)
		return 0;
	if (r->npend == 0 || (r->npend == 1 && banner_mid(r, p, end, &r->pend_ev)) ||
	    (r->npend == 2 && rule)) {
		if (r->npend == 0)
			r->pend_ev = (struct fgtext_ev){ .kind = FGT_EVENT };
		err = pend_add(r, p, n);
		return err ? err : 1;
	}
	if (r->npend == 3 && n == 0) {
		err = pend_add(r, p, n);
		r->npend = 0;
		r->pend_len = 0;
		r->pend_ev.text = r->pend;
		r->pend_ev.line = r->pend_line;
		/* comm pointers were set by banner_mid() into r->comm */
		if (!err)
			err = hand_out(r, &r->pend_ev);
		return err ? err : 1;
	}
	err = pend_flush(r);
	return err ? err : 0;
}

static int parse_line(struct fgtext *r, char *p, size_t n)
{
	char *end = p + n;
	bool done;
	int err;

	if (memchr(p, '\0', n)) {
		if (!r->o.lenient)
			return fail(r, "NUL byte in the text (binary file?)");
		r->st.unparsed++;
		return 0;
	}
	err = banner_step(r, p, end);
	if (err)
		return err < 0 ? err : 0;
	/* the line stays intact for the verbatim copy; parse without '\r' */
	if (n && end[-1] == '\r')
		end--;
	if (*p == '#' && count_cpu_marks(p, end) < 2) {
		header_line(r, p, end);
		return text_line(r, FGT_HEADER, p, r->lineno);
	}
	err = lost_line(r, p, end, &done);
	if (err || done)
		return err;
	err = graph_line(r, p, end, &done);
	if (err || done)
		return err;
	return other_line(r, p, end);
}

static int process_line(struct fgtext *r, char *p, size_t n)
{
	int err;

	r->st.lines++;
	err = parse_line(r, p, n);
	if (err != SKIP_LINE)
		return err;
	r->st.unparsed++;
	return text_line(r, FGT_TEXT, p, r->lineno);
}

/* --- input -------------------------------------------------------------- */

static int fill(struct fgtext *r, FILE *in)
{
	r->ilen = fread(r->ibuf, 1, IO_CHUNK, in);
	r->ipos = 0;
	if (r->ilen)
		return 0;
	if (ferror(in))
		return -EIO;
	r->eof = true;
	return 0;
}

static int line_append(struct fgtext *r, size_t len, const char *s, size_t n)
{
	size_t max = r->o.max_line ? r->o.max_line : FGTEXT_MAX_LINE;

	if (r->toolong)
		return 0;
	if (len + n > max) {
		/* lenient: the rest of the line is read, dropped and counted */
		r->toolong = r->o.lenient;
		if (r->toolong)
			return 0;
		r->lineno++;
		fail(r, "line longer than %zu bytes", max);
		return -E2BIG;
	}
	if (len + n + 1 > r->cap) {
		size_t cap = r->cap ? r->cap : 256;
		char *nl;

		while (cap < len + n + 1)
			cap *= 2;
		nl = realloc(r->line, cap);
		if (!nl)
			return -ENOMEM;
		r->line = nl;
		r->cap = cap;
	}
	memcpy(r->line + len, s, n);
	return 0;
}

/*
 * Next line into r->line (NUL-terminated, no '\n'); *len = -1 at the end.
 * *toolong: the line was longer than max_line and left out (lenient).
 */
static int next_line(struct fgtext *r, FILE *in, ssize_t *len, bool *nl, bool *toolong)
{
	size_t n = 0;
	int err;

	*nl = false;
	for (;;) {
		const char *s, *e;

		if (r->ipos == r->ilen && !r->eof && (err = fill(r, in)))
			return err;
		if (r->ipos == r->ilen)
			break;
		s = r->ibuf + r->ipos;
		e = memchr(s, '\n', r->ilen - r->ipos);
		err = line_append(r, n, s, e ? (size_t)(e - s) : r->ilen - r->ipos);
		if (err)
			return err;
		n += e ? (size_t)(e - s) : r->ilen - r->ipos;
		r->ipos = e ? (size_t)(e - r->ibuf) + 1 : r->ilen;
		if (e) {
			*nl = true;
			break;
		}
	}
	if (!n && !*nl) {
		*len = -1;
		return 0;
	}
	*toolong = r->toolong;
	if (r->toolong) {
		r->toolong = false;
		n = 0;
	}
	if ((err = line_append(r, n, "", 0)))
		return err;
	r->line[n] = '\0';
	*len = (ssize_t)n;
	return 0;
}

int fgtext__read(struct fgtext *r, FILE *in)
{
	ssize_t len;
	bool nl, toolong;
	int err;

	for (;;) {
		err = next_line(r, in, &len, &nl, &toolong);
		if (err == -EIO)
			fail(r, "read error");
		if (err || len < 0)
			break;
		r->lineno++;
		r->lay.final_newline = nl;
		if (toolong) {
			r->st.lines++;
			r->st.unparsed++;
			continue;
		}
		err = process_line(r, r->line, (size_t)len);
		if (err)
			return err;
	}
	if (!err && r->npend)
		err = pend_flush(r);
	return err;
}

/* --- object ------------------------------------------------------------- */

struct fgtext *fgtext__new(const struct fgtext_opts *opts)
{
	struct fgtext *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->o = *opts;
	functab__init(&r->funcs);
	r->lay.flags = BG_O_DEFAULTS & ~BG_O_RETVAL;
	r->lay.dialect = BG_DIALECT_6_1;
	r->lay.final_newline = true;
	r->ibuf = malloc(IO_CHUNK);
	if (r->o.keep_text)
		r->mem = open_memstream(&r->membuf, &r->memsize);
	if (!r->ibuf || (r->o.keep_text && !r->mem)) {
		fgtext__free(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

void fgtext__free(struct fgtext *r)
{
	if (!r)
		return;
	out_text__free(r->w);
	if (r->mem)
		fclose(r->mem);
	free(r->membuf);
	for (size_t i = 0; i < BG_MAX_CPUS; i++)
		free(r->cpu[i]);
	functab__free(&r->funcs);
	free(r->names.slot);
	free(r->ibuf);
	free(r->line);
	free(r->pend);
	free(r);
}

const struct functab *fgtext__funcs(const struct fgtext *r)
{
	return &r->funcs;
}

const struct fgtext_layout *fgtext__layout(const struct fgtext *r)
{
	return &r->lay;
}

const struct fgtext_stats *fgtext__stats(const struct fgtext *r)
{
	return &r->st;
}

const char *fgtext__error(const struct fgtext *r, uint32_t *line)
{
	if (line)
		*line = r->err_line;
	return r->err[0] ? r->err : NULL;
}

/* --- documents ---------------------------------------------------------- */

#define POOL_CHUNK 65536

/* Strings of a document: a chunked arena, comms interned. */
struct fgtext_pool {
	struct pool_chunk {
		struct pool_chunk *next;
		size_t used, size;
		char data[];
	} *head;
	char **comms;
	size_t ncomms, comm_cap;
};

static char *pool_strdup(struct fgtext_pool *p, const char *s)
{
	size_t n = strlen(s) + 1;
	struct pool_chunk *c = p->head;

	if (!c || c->size - c->used < n) {
		size_t size = n > POOL_CHUNK ? n : POOL_CHUNK;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->next = p->head;
		c->used = 0;
		c->size = size;
		p->head = c;
	}
	memcpy(c->data + c->used, s, n);
	c->used += n;
	return c->data + c->used - n;
}

/* Few distinct comms in a trace: a linear scan of the last ones is enough. */
static const char *pool_comm(struct fgtext_pool *p, const char *s)
{
	char *c;

	if (!s)
		return NULL;
	for (size_t i = p->ncomms; i-- > 0 && p->ncomms - i <= 64;)
		if (!strcmp(p->comms[i], s))
			return p->comms[i];
	if (p->ncomms == p->comm_cap) {
		size_t cap = p->comm_cap ? p->comm_cap * 2 : 16;
		char **nc = realloc(p->comms, cap * sizeof(*nc));

		if (!nc)
			return NULL;
		p->comms = nc;
		p->comm_cap = cap;
	}
	c = pool_strdup(p, s);
	if (c)
		p->comms[p->ncomms++] = c;
	return c;
}

static void pool_free(struct fgtext_pool *p)
{
	struct pool_chunk *c, *n;

	if (!p)
		return;
	for (c = p->head; c; c = n) {
		n = c->next;
		free(c);
	}
	free(p->comms);
	free(p);
}

static int doc_add(void *ctx, const struct fgtext_ev *e, const struct functab *ft)
{
	struct fgtext_doc *d = ctx;
	struct fgtext_ev *n;

	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 1024;

		n = realloc(d->ev, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		d->ev = n;
		d->cap = cap;
	}
	n = &d->ev[d->n];
	*n = *e;
	if (e->text && !(n->text = pool_strdup(d->pool, e->text)))
		return -ENOMEM;
	if (e->ev.comm && !(n->ev.comm = pool_comm(d->pool, e->ev.comm)))
		return -ENOMEM;
	if (e->ev.prev_comm && !(n->ev.prev_comm = pool_comm(d->pool, e->ev.prev_comm)))
		return -ENOMEM;
	d->n++;
	return 0;
}

struct fgtext_doc *fgtext__load(FILE *in, const struct fgtext_opts *opts, uint32_t *errline)
{
	struct fgtext_opts o = *opts;
	struct fgtext_doc *d = calloc(1, sizeof(*d));
	int err = -ENOMEM;

	if (errline)
		*errline = 0;
	if (!d)
		return NULL;
	o.emit = doc_add;
	o.ctx = d;
	o.keep_text = true;
	d->pool = calloc(1, sizeof(*d->pool));
	d->r = d->pool ? fgtext__new(&o) : NULL;
	if (d->r)
		err = fgtext__read(d->r, in);
	if (err) {
		if (errline && d->r)
			fgtext__error(d->r, errline);
		fgtext__doc_free(d);
		errno = -err;
		return NULL;
	}
	d->funcs = fgtext__funcs(d->r);
	d->layout = fgtext__layout(d->r);
	d->stats = fgtext__stats(d->r);
	return d;
}

void fgtext__doc_free(struct fgtext_doc *d)
{
	if (!d)
		return;
	fgtext__free(d->r);
	pool_free(d->pool);
	free(d->ev);
	free(d);
}

/* One event as text, with its '\n' unless it is the unterminated last line. */
static int write_one(struct out_text *w, FILE *mem, char **buf, const struct fgtext_ev *e,
		     bool last_nl, FILE *out)
{
	long len;

	if (e->text) {
		fputs(e->text, out);
		if (last_nl)
			fputc('\n', out);
		return ferror(out) ? -EIO : 0;
	}
	rewind(mem);
	out_text__emit(w, &e->ev);
	if (fflush(mem))
		return -ENOMEM;
	len = ftell(mem);
	if (len > 0 && !last_nl)
		len--;
	if (len > 0 && fwrite(*buf, 1, (size_t)len, out) != (size_t)len)
		return -EIO;
	return 0;
}

int fgtext__write(const struct fgtext_doc *d, FILE *out)
{
	struct out_text_opts o = { .funcs = d->funcs };
	struct out_text *w;
	char *buf = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&buf, &size);
	int err = 0;

	if (!mem)
		return -ENOMEM;
	fgtext__out_opts(d->layout, &o);
	o.out = mem;
	w = out_text__new(&o);
	if (!w)
		err = -ENOMEM;
	for (size_t i = 0; i < d->n && !err; i++)
		err = write_one(w, mem, &buf, &d->ev[i], i + 1 < d->n || d->layout->final_newline,
				out);
	out_text__free(w);
	fclose(mem);
	free(buf);
	return err;
}
