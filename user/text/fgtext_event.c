// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * function_graph text reader: lines into events. A line is tried as part
 * of a context-switch banner, a header line, a LOST line, a graph line (a
 * call, a comment, an irq marker), then as graph lines joined into one;
 * what is left is text. Closing lines are paired with their entries per
 * CPU, names go into the function table, and each event is handed to the
 * caller.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fgtext_int.h"

static const char banner_rule[] = " ------------------------------------------";

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
	fgtext_split_name(p, n, &sl, &mp, &ml);
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

/* --- handing out -------------------------------------------------------- */

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
		    (err = fgtext_renders_same(r, e, &same)))
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

/*
 * What a graph line must keep to be an event. Checked before the line
 * teaches the layout anything: a line passed on as text must not.
 */
static int check_limits(struct fgtext *r, const struct cols *c, uint32_t depth)
{
	if (c->cpu && c->cpu_nr >= BG_MAX_CPUS)
		return fgtext_malformed(r, "CPU %u out of range (at most %d)", c->cpu_nr,
					BG_MAX_CPUS - 1);
	if (depth >= FGTEXT_MAX_DEPTH)
		return fgtext_malformed(r, "nesting deeper than %d levels", FGTEXT_MAX_DEPTH - 1);
	return 0;
}

/* Columns into e; the CPU is below BG_MAX_CPUS (check_limits()). */
static void fill_from_cols(struct fgtext *r, struct fgtext_ev *e, const struct cols *c)
{
	e->ev.cpu = c->cpu ? c->cpu_nr : 0;
	e->ev.ts = c->ts;
	e->ev.dur = c->dur;
	if (c->proc) {
		copy_comm(r->comm[0], c->comm, c->comm_len);
		e->ev.comm = r->comm[0];
		e->ev.pid = c->pid;
	}
}

/* funcgraph-tail: on, or not known yet (the next named "}" decides). */
static bool tail_on(const struct fgtext *r)
{
	return !(r->lay.known & BG_O_TAIL) || (r->lay.flags & BG_O_TAIL);
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
	/*
	 * With return values every "}" is named, and with funcgraph-tail
	 * (the text's first named "}" closing its entry says it is on): the
	 * name then says nothing. Otherwise it is the kernel's mark of a
	 * return it did not pair with an entry.
	 */
	e->ev.tail = b->has_ret || b->ret_other || tail_on(r) ? seen != (uint32_t)idx : true;
	return 0;
}

/* e->args and e->retaddr: the body's spans, copied out of the line. */
static int call_extra(struct fgtext *r, struct fgtext_ev *e, const struct body *b)
{
	size_t need = b->args_len + b->retaddr_len + 2;
	char *q;

	if (!b->args && !b->retaddr)
		return 0;
	if (need > r->extra_cap) {
		q = realloc(r->extra, need);
		if (!q)
			return -ENOMEM;
		r->extra = q;
		r->extra_cap = need;
	}
	q = r->extra;
	if (b->args) {
		memcpy(q, b->args, b->args_len);
		q[b->args_len] = '\0';
		e->args = q;
		q += b->args_len + 1;
	}
	if (b->retaddr) {
		memcpy(q, b->retaddr, b->retaddr_len);
		q[b->retaddr_len] = '\0';
		e->retaddr = q;
	}
	return 0;
}

/*
 * A graph line with a call body: ENTER, LEAF or EXIT at depth, which is
 * below FGTEXT_MAX_DEPTH (checked by the caller).
 */
static int call_event(struct fgtext *r, struct fgtext_ev *e, const struct body *b, uint32_t depth)
{
	struct fgt_cpu *cs;
	int idx, err;

	cs = cpu_state(r, e->ev.cpu);
	if (!cs)
		return -ENOMEM;
	e->ev.depth = depth;
	e->has_ret = b->has_ret;
	e->ret_hex = b->ret_hex;
	e->ev.noret = b->type != B_ENTER && !b->has_ret;
	e->ev.ret = b->ret;
	if (b->type == B_EXIT) {
		e->ev.type = GEV_EXIT;
		err = exit_func(r, e, b, cs);
		if (err)
			return err;
		fgtext_learn_tail(r, b->name != NULL, cs->open[depth] == e->ev.func,
				  b->has_ret || b->ret_other);
		cs->rdepth = depth;
		return hand_out(r, e);
	}
	idx = func_index(r, b->name, b->name_len);
	if (idx < 0)
		return idx;
	err = call_extra(r, e, b);
	if (err)
		return err;
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
	while (q < end && fgtext_is_digit(*q))
		q++;
	return q > p && q - p <= 5 && fgtext_starts(q, end, ") ");
}

static const char *next_cpu_mark(const char *line, const char *p, const char *end)
{
	for (; p < end; p++)
		if (fgtext_is_digit(*p) && cpu_mark_at(line, p, end))
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
		return fgtext_skip_spaces(q + 1, end);
	if (q + 1 < end && fgtext_is_mark(*q) && *q != ' ' && q[1] == ' ') {
		c->mark = *q;
		q += 2;
	} else {
		c->mark = ' ';
	}
	q = fgtext_parse_usecs(q, end, &c->dur);
	if (!q || !fgtext_starts(q, end, " us"))
		return NULL;
	q = fgtext_skip_spaces(q + 3, end);
	if (q >= end || *q != '|')
		return NULL;
	c->has_dur = true;
	return fgtext_skip_spaces(q + 1, end);
}

/* One "N) ... body" piece; depth from the nesting on its CPU. */
static int recover_piece(struct fgtext *r, const char *p, const char *end)
{
	struct fgtext_ev e = { .kind = FGT_EVENT, .line = r->lineno, .recovered = true };
	struct cols c = { .cpu = true, .dur_field = true };
	struct fgt_cpu *cs;
	struct body b;
	uint64_t cpu;
	const char *d = fgtext_parse_u64(p, end, &cpu), *q;
	uint32_t depth;

	q = loose_duration(fgtext_skip_spaces(d + 1, end), end, &c);
	if (!q || !fgtext_parse_body(q, end, &b, true) || b.type == B_COMMENT ||
	    cpu >= BG_MAX_CPUS) {
		r->st.unparsed++;
		return 0;
	}
	cs = cpu_state(r, (uint32_t)cpu);
	if (!cs)
		return -ENOMEM;
	depth = cs->rdepth;
	if (b.type == B_EXIT && depth)
		depth--;
	/* before the layout is learnt: a piece left out teaches nothing */
	if (depth >= FGTEXT_MAX_DEPTH - 1) {
		r->st.unparsed++;
		return 0;
	}
	c.cpu_nr = (uint32_t)cpu;
	c.cpu_width = (int)(d - p);
	fgtext_set_layout(r, &c);
	if (c.cpu_width > r->lay.cpu_width)
		r->lay.cpu_width = c.cpu_width;
	fgtext_learn_overhead(r, &c);
	fgtext_learn_retval(r, &b);
	note_body_traits(r, &b);
	fill_from_cols(r, &e, &c);
	return call_event(r, &e, &b, depth);
}

static int recover_joined(struct fgtext *r, const char *p, const char *end)
{
	const char *q = next_cpu_mark(p, p, end), *next, *e;
	int err;

	r->st.joined++;
	if (fgtext_skip_spaces(p, q) < q)
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
	if (!fgtext_starts(p, end, "CPU:") || !(q = fgtext_parse_u64(p + 4, end, &cpu)))
		return 0;
	c = fgtext_starts(q, end, " [LOST ") ? fgtext_parse_u64(q + 7, end, &count) : NULL;
	if (!(c && fgtext_starts(c, end, " EVENTS]") && c + 8 == end) &&
	    !(fgtext_starts(q, end, " [LOST EVENTS]") && q + 14 == end))
		return 0;
	*done = true;
	if (cpu >= BG_MAX_CPUS)
		return fgtext_malformed(r, "CPU %" PRIu64 " out of range (at most %d)", cpu,
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
	const char *q = fgtext_parse_cols(p, end, &c), *body = fgtext_skip_spaces(q, end);
	uint32_t depth = (uint32_t)(body - q) / 2;
	int err;

	*done = false;
	if (fgtext_any_col(&c) && fgtext_irq_marker(q, end)) {
		*done = true;
		return text_line(r, FGT_IRQ, p, r->lineno);
	}
	if (!fgtext_parse_body(body, end, &b, false))
		return 0;
	*done = true;
	if (b.type == B_COMMENT)
		return text_line(r, FGT_COMMENT, p, r->lineno);
	err = check_limits(r, &c, depth);
	if (err)
		return err;
	fgtext_set_layout(r, &c);
	fgtext_learn_overhead(r, &c);
	fgtext_learn_retval(r, &b);
	note_body_traits(r, &b);
	fill_from_cols(r, &e, &c);
	return call_event(r, &e, &b, depth);
}

/*
 * A line nothing understood: malformed if it started like a graph line
 * (when lenient: left out, and said so).
 */
static int other_line(struct fgtext *r, const char *p, const char *end)
{
	struct cols c;
	const char *q = fgtext_parse_cols(p, end, &c);
	bool call = c.dur_field || q == end;
	char buf[64];

	if (count_cpu_marks(p, end) >= 2)
		return recover_joined(r, p, end);
	if (!fgtext_any_col(&c))
		return text_line(r, FGT_TEXT, p, r->lineno);
	if (r->o.lenient) {
		r->st.unparsed++;
		fgtext_skip(r, true, call ? "cannot parse function call" : "cannot parse line");
		return text_line(r, FGT_TEXT, p, r->lineno);
	}
	if (call)
		return fgtext_fail(r, "cannot parse function call '%s'",
				   fgtext_quote(buf, fgtext_skip_spaces(q, end), end));
	return fgtext_fail(r, "cannot parse line '%s'", fgtext_quote(buf, p, end));
}

/* --- context-switch banners ("Context switches"): 4 lines --------------- */

/* " 0)   rcu_pre-15   =>    <idle>-0   " */
static bool banner_mid(struct fgtext *r, const char *p, const char *end, struct fgtext_ev *e)
{
	struct cols c = {}, prev = {}, next = {};
	const char *q = fgtext_parse_cpu(p, end, &c);
	const char *arrow = q ? fgtext_find(q, end, " => ") : NULL;

	if (!arrow || c.cpu_nr >= BG_MAX_CPUS || !fgtext_split_task(q, arrow, &prev) ||
	    !fgtext_split_task(arrow + 4, end, &next))
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
int fgtext_pend_flush(struct fgtext *r)
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

/*
 * Returns 1 when the line was taken by a banner. The line is matched
 * without its '\r' (end) and held with it (raw bytes), as it was read.
 */
static int banner_step(struct fgtext *r, const char *p, const char *end, size_t raw)
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
		err = pend_add(r, p, raw);
		return err ? err : 1;
	}
	if (r->npend == 3 && n == 0) {
		err = pend_add(r, p, raw);
		r->npend = 0;
		r->pend_len = 0;
		r->pend_ev.text = r->pend;
		r->pend_ev.line = r->pend_line;
		/* comm pointers were set by banner_mid() into r->comm */
		if (!err)
			err = hand_out(r, &r->pend_ev);
		return err ? err : 1;
	}
	err = fgtext_pend_flush(r);
	return err ? err : 0;
}

/* --- each line, tried in turn ------------------------------------------- */

/*
 * "# 6002.767 us |  ...": a call of 1 to 10 ms ('#', "Overhead marks")
 * when no column comes before the duration. A graph line, not a header.
 */
static bool hash_marked(const char *p, const char *end)
{
	struct cols c;

	fgtext_parse_cols(p, end, &c);
	return c.has_dur && c.mark == '#';
}

static int parse_line(struct fgtext *r, char *p, size_t n)
{
	char *end = p + n;
	bool done;
	int err;

	if (memchr(p, '\0', n)) {
		if (!r->o.lenient)
			return fgtext_fail(r, "NUL byte in the text (binary file?)");
		r->st.unparsed++;
		fgtext_skip(r, true, "NUL byte in the text (binary file?)");
		return 0;
	}
	/* the line stays intact for the verbatim copy; parse without '\r' */
	if (n && end[-1] == '\r')
		end--;
	err = banner_step(r, p, end, n);
	if (err)
		return err < 0 ? err : 0;
	if (*p == '#' && !hash_marked(p, end) && count_cpu_marks(p, end) < 2) {
		fgtext_header_line(r, p, end);
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

int fgtext_process_line(struct fgtext *r, char *p, size_t n)
{
	int err;

	r->st.lines++;
	err = parse_line(r, p, n);
	if (err != SKIP_LINE)
		return err;
	r->st.unparsed++;
	return text_line(r, FGT_TEXT, p, r->lineno);
}
