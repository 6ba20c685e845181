// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * function_graph text reader: one line taken apart, its columns
 * ("Line layout" in docs/function-graph-format.md) and its body (a call,
 * a closing brace, a comment), and function names checked. Functions of
 * the bytes alone: what they mean for the whole text is decided elsewhere.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fgtext_int.h"

#define NSEC_PER_SEC UINT64_C(1000000000)
#define PROC_WIDTH 14 /* TRACE_GRAPH_PROCINFO_LENGTH */
#define PROC_MAX 24 /* comm (7) + '-' + pid, with slack for odd texts */
#define DUR_FILL 14 /* spaces of an empty duration column before "|  " */

/* --- small helpers ------------------------------------------------------ */

static bool ends(const char *p, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(end - p) >= n && !memcmp(end - n, lit, n);
}

/* Decimal digits into *v; NULL on no digit or overflow. */
const char *fgtext_parse_u64(const char *p, const char *end, uint64_t *v)
{
	const char *s = p;
	uint64_t x = 0;

	*v = 0;
	for (; p < end && fgtext_is_digit(*p); p++) {
		if (x > (UINT64_MAX - 9) / 10)
			return NULL;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*v = x;
	return p > s ? p : NULL;
}

const char *fgtext_find(const char *p, const char *end, const char *lit)
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

/* --- function names ----------------------------------------------------- */

/* Symbol characters: what %ps can print, minus the text's punctuation. */
static bool name_char(char c)
{
	return c > ' ' && c < 0x7f && !strchr("(){};[]/*=", c);
}

/* "name" or "name [module]" ("Function names"). */
bool fgtext_split_name(const char *p, size_t n, size_t *sym_len, const char **mod,
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

	return fgtext_split_name(p, n, &sl, &mod, &ml);
}

/* --- columns ("Line layout") -------------------------------------------- */

/* "%5lu.%06lu |  " */
static const char *parse_abstime(const char *p, const char *end, uint64_t *ts)
{
	uint64_t sec, usec;
	const char *q = fgtext_skip_spaces(p, end), *f;

	q = fgtext_parse_u64(q, end, &sec);
	if (!q || q >= end || *q != '.')
		return NULL;
	f = fgtext_parse_u64(q + 1, end, &usec);
	if (!f || f - q != 7 || !fgtext_starts(f, end, " |  ") ||
	    sec > UINT64_MAX / NSEC_PER_SEC - 1)
		return NULL;
	*ts = sec * NSEC_PER_SEC + usec * 1000;
	return f + 4;
}

/* " %*d) ": the width is everything between the first space and ')'. */
const char *fgtext_parse_cpu(const char *p, const char *end, struct cols *c)
{
	const char *q = p, *d;
	uint64_t v;

	if (q >= end || *q != ' ')
		return NULL;
	q = fgtext_skip_spaces(q, end);
	d = fgtext_parse_u64(q, end, &v);
	if (!d || !fgtext_starts(d, end, ") ") || v > UINT32_MAX)
		return NULL;
	c->cpu_nr = (uint32_t)v;
	c->cpu_width = (int)(d - p - 1);
	return d + 2;
}

/* "  comm-pid  ": trimmed, split at the last '-' (comms may hold one). */
bool fgtext_split_task(const char *s, const char *e, struct cols *c)
{
	const char *dash;
	uint64_t pid;

	s = fgtext_skip_spaces(s, e);
	while (e > s && e[-1] == ' ')
		e--;
	dash = rfind(s, e, "-");
	if (!dash || fgtext_parse_u64(dash + 1, e, &pid) != e || pid > UINT32_MAX)
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
	bar = fgtext_find(p + PROC_WIDTH, end - p > PROC_MAX + 3 ? p + PROC_MAX + 3 : end, " | ");
	return bar && fgtext_split_task(p, bar, c) ? bar + 3 : NULL;
}

/* latency-format: " " + 5 flag characters + " | " ("Latency flags") */
static const char *parse_lat(const char *p, const char *end)
{
	static const char *const set[5] = { "dDbX.", "Nnp.", "ZzHhs.", "0123456789abcdef.",
					    "0123456789abcdef." };

	if (end - p < 9 || p[0] != ' ' || !fgtext_starts(p + 6, end, " | "))
		return NULL;
	for (int i = 0; i < 5; i++)
		if (!p[1 + i] || !strchr(set[i], p[1 + i]))
			return NULL;
	return p + 9;
}

/* "1.382" -> 1382 ns: whole microseconds and up to 3 decimals. */
const char *fgtext_parse_usecs(const char *p, const char *end, uint64_t *ns)
{
	uint64_t us, frac = 0;
	const char *q = fgtext_parse_u64(p, end, &us), *f;
	int digits = 0;

	if (!q || us > UINT64_MAX / 1000 - 1)
		return NULL;
	if (q < end && *q == '.') {
		f = fgtext_parse_u64(q + 1, end, &frac);
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

bool fgtext_is_mark(char c)
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

	if (end - p >= DUR_FILL + 3 && fgtext_starts(p + DUR_FILL, end, "|  ")) {
		for (q = p; q < p + DUR_FILL && *q == ' '; q++)
			;
		if (q == p + DUR_FILL)
			return p + DUR_FILL + 3;
	}
	if (end - p < 4 || !fgtext_is_mark(p[0]) || p[1] != ' ' || !fgtext_is_digit(p[2]))
		return NULL;
	q = fgtext_parse_usecs(p + 2, end, &c->dur);
	if (!q || !fgtext_starts(q, end, " us "))
		return NULL;
	q = fgtext_skip_spaces(q + 4, end);
	if (!fgtext_starts(q, end, "|  "))
		return NULL;
	c->mark = p[0];
	c->has_dur = true;
	return q + 3;
}

/* Every column, in the kernel's order; returns where the indentation starts. */
const char *fgtext_parse_cols(const char *p, const char *end, struct cols *c)
{
	const char *q;

	memset(c, 0, sizeof(*c));
	if ((q = parse_abstime(p, end, &c->ts))) {
		c->abstime = true;
		p = q;
	}
	if ((q = fgtext_parse_cpu(p, end, c))) {
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

bool fgtext_any_col(const struct cols *c)
{
	return c->abstime || c->cpu || c->proc || c->lat || c->dur_field;
}

/* --- bodies ("Leaves and braces", "Return values", "Comments") --------- */

/* "0x1f" (hex), "-22" or "5" (decimal) */
static bool parse_ret(const char *p, const char *end, struct body *b)
{
	char buf[32], *e;
	size_t n = (size_t)(end - p);
	uint64_t v;
	bool hex;

	if (!n || n >= sizeof(buf) || strchr(" \t", *p))
		return false;
	memcpy(buf, p, n);
	buf[n] = '\0';
	errno = 0;
	if (n > 2 && buf[0] == '0' && buf[1] == 'x') {
		if (!isxdigit((unsigned char)buf[2]) || strchr(buf + 2, 'x'))
			return false;
		v = strtoull(buf + 2, &e, 16);
		hex = true;
	} else if (buf[0] == '-' || fgtext_is_digit(buf[0])) {
		v = buf[0] == '-' ? (uint64_t)strtoll(buf, &e, 10) : strtoull(buf, &e, 10);
		hex = false;
	} else {
		return false;
	}
	if (*e || errno)
		return false;
	b->ret = v;
	b->ret_hex = hex;
	b->has_ret = true;
	return true;
}

/* "<-caller+0x6d/0xf0" and what may follow it up to " ret=" */
static bool parse_retaddr(const char *p, const char *end)
{
	return fgtext_starts(p, end, "<-") && end - p > 2 && p[2] != ' ';
}

/* The value of a leaf's "ret=x" or "= x": a number, or kept as other text. */
static void leaf_ret(const char *v, const char *end, int form, struct body *b)
{
	if (!parse_ret(v, end, b))
		b->ret_other = true;
	b->ret_form = form;
}

/*
 * The comment after "f();" or "f() {" ("Return values", "Arguments and
 * return addresses"): "= x" (6.5), "ret=x" (6.13), "<-caller+0x6d/0xf0" with
 * " ret=x" on leaves (6.13); the caller may carry " [mod]" and, with the
 * sym-addr option, " <ffffffff81234567>". Anything else is kept verbatim
 * only: out_text will not print it.
 */
static void parse_call_comment(const char *p, const char *end, struct body *b)
{
	const char *r;

	if (b->type == B_LEAF && fgtext_starts(p, end, "= ")) {
		if (parse_ret(p + 2, end, b))
			b->ret_form = BG_DIALECT_6_5;
		return;
	}
	if (parse_retaddr(p, end)) {
		b->retaddr = p + 2;
		b->retaddr_len = (size_t)(end - b->retaddr);
		if (b->type != B_LEAF)
			return;
		/* bpfgraph's 6.5 dialect may print a return address too */
		if ((r = rfind(b->retaddr, end, " ret=")))
			leaf_ret(r + 5, end, BG_DIALECT_6_13, b);
		else if ((r = rfind(b->retaddr, end, " = ")))
			leaf_ret(r + 3, end, BG_DIALECT_6_5, b);
		if (r)
			b->retaddr_len = (size_t)(r - b->retaddr);
		return;
	}
	if (b->type == B_LEAF && fgtext_starts(p, end, "ret="))
		leaf_ret(p + 4, end, BG_DIALECT_6_13, b);
}

/*
 * "}" [" / * f * /" | " / * f = x * /" | " / * f ret=x * /"]. A value after
 * "ret=" that is not a number (a newer kernel's "ret=false") still leaves
 * the name.
 */
static bool parse_exit(const char *p, const char *end, struct body *b)
{
	const char *in, *ine, *r;

	b->type = B_EXIT;
	if (p + 1 == end)
		return true;
	if (!fgtext_starts(p + 1, end, " /* ") || !ends(p, end, " */") || end - p < 8)
		return false;
	in = p + 5;
	ine = end - 3;
	if ((r = rfind(in, ine, " = ")) && parse_ret(r + 3, ine, b)) {
		b->ret_form = BG_DIALECT_6_5;
		ine = r;
	} else if ((r = rfind(in, ine, " ret="))) {
		if (!parse_ret(r + 5, ine, b))
			b->ret_other = true;
		b->ret_form = BG_DIALECT_6_13;
		ine = r;
	}
	b->name = in;
	b->name_len = (size_t)(ine - in);
	return valid_name(in, b->name_len);
}

/*
 * The ')' that closes the '(' at par. Arguments (6.15+) may hold
 * "(STRUCT)[0x1:0x2]", and bpfgraph's own (--args-detail) may hold strings
 * in double quotes (with backslash escapes) and " {...}" of struct
 * members ending an argument; outside quotes, never ';', and no '{' or
 * '}' but such a closed, unnested pair (two lines joined into one). NULL if there is no such ')'.
 */
static const char *close_paren(const char *par, const char *end)
{
	int depth = 0;
	bool brace = false;

	for (const char *p = par; p < end; p++) {
		switch (*p) {
		case '(':
			depth++;
			break;
		case ')':
			if (brace)
				return NULL;
			if (--depth == 0)
				return p;
			break;
		case '"':
			for (p++; p < end && *p != '"'; p++)
				if (*p == '\\' && p + 1 < end)
					p++;
			if (p >= end)
				return NULL;
			break;
		case '{':
			/* only after a value's space: " {flags=0x8000 mode=0}" */
			if (brace || depth < 1 || p[-1] != ' ')
				return NULL;
			brace = true;
			break;
		case '}':
			/* and the argument ends with it */
			if (!brace || p + 1 >= end || (p[1] != ',' && p[1] != ')'))
				return NULL;
			brace = false;
			break;
		case ';':
			return NULL;
		}
	}
	return NULL;
}

/*
 * After "f(args);" / "f(args) {": strict, nothing or one comment
 * (" / * " and " * /" must not overlap: "f(); / * * /" is no comment);
 * loose, whatever follows is commentary, a comment right after the call
 * still read.
 */
static bool call_tail(const char *q, const char *end, struct body *b, bool loose)
{
	const char *c;

	if (loose) {
		q = fgtext_skip_spaces(q, end);
		if (fgtext_starts(q, end, "/* ") && (c = fgtext_find(q + 3, end, " */")))
			parse_call_comment(q + 3, c, b);
		return true;
	}
	if (q == end)
		return true;
	if (end - q < 7 || !fgtext_starts(q, end, " /* ") || !ends(q, end, " */"))
		return false;
	parse_call_comment(q + 4, end - 3, b);
	return true;
}

/* "f(args);" / "f(args) {", then an optional comment (call_tail()). */
static bool parse_call(const char *p, const char *end, struct body *b, bool loose)
{
	const char *par = memchr(p, '(', (size_t)(end - p)), *close, *q;

	if (!par || !valid_name(p, (size_t)(par - p)) || !(close = close_paren(par, end)))
		return false;
	q = close + 1;
	if (q < end && *q == ';') {
		b->type = B_LEAF;
		q++;
	} else if (fgtext_starts(q, end, " {")) {
		b->type = B_ENTER;
		q += 2;
	} else {
		return false;
	}
	b->name = p;
	b->name_len = (size_t)(par - p);
	if (close > par + 1) {
		b->args = par + 1;
		b->args_len = (size_t)(close - b->args);
	}
	return call_tail(q, end, b, loose);
}

bool fgtext_parse_body(const char *p, const char *end, struct body *b, bool loose)
{
	memset(b, 0, sizeof(*b));
	if (p >= end)
		return false;
	if (*p == '}') {
		if (!loose)
			return parse_exit(p, end, b);
		/* Loose: "}" or "} / * f * /", then anything. */
		if (fgtext_starts(p, end, "} /* ")) {
			const char *c = fgtext_find(p + 5, end, " */");

			if (c && parse_exit(p, c + 3, b))
				return true;
		}
		b->type = B_EXIT;
		return true;
	}
	if (fgtext_starts(p, end, "/* ") && (ends(p, end, " */") || loose)) {
		b->type = B_COMMENT;
		return true;
	}
	return parse_call(p, end, b, loose);
}

bool fgtext_irq_marker(const char *p, const char *end)
{
	p = fgtext_skip_spaces(p, end);
	if (!fgtext_starts(p, end, "==========>") && !fgtext_starts(p, end, "<=========="))
		return false;
	p += 11;
	return p == end || (fgtext_starts(p, end, " |") && p + 2 == end);
}

/* --- arguments ("Arguments and return addresses") ----------------------- */

/* End of the argument at p: a ',' outside (), [], {} and "", or end. */
static const char *arg_end(const char *p, const char *end)
{
	int depth = 0;

	for (; p < end; p++) {
		if (*p == '"') {
			for (p++; p < end && *p != '"'; p++)
				if (*p == '\\' && p + 1 < end)
					p++;
			if (p >= end)
				return end;
		} else if (*p == '(' || *p == '[' || *p == '{') {
			depth++;
		} else if ((*p == ')' || *p == ']' || *p == '}') && depth) {
			depth--;
		} else if (*p == ',' && !depth) {
			return p;
		}
	}
	return end;
}

/* The whole of v as a number: "0x1f" (hex), "-100" or "5" (decimal). */
static bool arg_number(const char *v, size_t n, bool hex, uint64_t *num)
{
	char buf[32], *e;
	uint64_t x;

	if (!n || n >= sizeof(buf))
		return false;
	memcpy(buf, v, n);
	buf[n] = '\0';
	errno = 0;
	if (hex) {
		if (n < 3 || buf[0] != '0' || buf[1] != 'x' || !isxdigit((unsigned char)buf[2]))
			return false;
		x = strtoull(buf + 2, &e, 16);
	} else {
		if (!fgtext_is_digit(buf[buf[0] == '-']))
			return false;
		x = buf[0] == '-' ? (uint64_t)strtoll(buf, &e, 10) : strtoull(buf, &e, 10);
	}
	if (*e || errno)
		return false;
	*num = x;
	return true;
}

static enum fgtext_arg_kind arg_kind(const char *v, size_t n, uint64_t *num)
{
	const char *k;

	*num = 0;
	if (n == 3 && !memcmp(v, "...", 3))
		return FGT_ARG_MORE;
	if (n && v[0] == '?' && arg_number(v + 1, n - 1, true, num))
		return FGT_ARG_UNKNOWN;
	if (arg_number(v, n, true, num))
		return FGT_ARG_HEX;
	if (arg_number(v, n, false, num))
		return FGT_ARG_DEC;
	/* "(KIND)[0x1:0x2]" */
	k = n > 4 && v[0] == '(' && v[n - 1] == ']' ? memchr(v, ')', n - 1) : NULL;
	return k && k[1] == '[' ? FGT_ARG_WORDS : FGT_ARG_OTHER;
}

/*
 * bpfgraph's --args-detail after a value: ' "string"', ' "string"...',
 * ' {members}' or ' <fault>' (format document, "bpfgraph's own
 * extensions"): moved from the value to a->detail.
 */
static void split_detail(struct fgtext_arg *a)
{
	const char *sp = memchr(a->value, ' ', a->value_len), *d;
	size_t n;

	if (!sp)
		return;
	d = sp + 1;
	n = a->value_len - (size_t)(d - a->value);
	if (!n || (*d != '"' && *d != '{' && !(n == 7 && !memcmp(d, "<fault>", 7))))
		return;
	a->detail = d;
	a->detail_len = n;
	a->value_len = (size_t)(sp - a->value);
}

bool fgtext__next_arg(const char **pos, struct fgtext_arg *a)
{
	const char *p = *pos, *end, *q;

	memset(a, 0, sizeof(*a));
	if (!p || !*p)
		return false;
	end = arg_end(p, p + strlen(p));
	/* a parameter name is what C allows before the first '=' */
	for (q = p; q < end && (isalnum((unsigned char)*q) || *q == '_'); q++)
		;
	if (q < end && *q == '=') {
		a->name = p;
		a->name_len = (size_t)(q - p);
		p = q + 1;
	}
	a->value = p;
	a->value_len = (size_t)(end - p);
	split_detail(a);
	a->kind = arg_kind(a->value, a->value_len, &a->num);
	if (*end == ',')
		end += end[1] == ' ' ? 2 : 1;
	*pos = end;
	return true;
}
