// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * function_graph text reader: the layout, what the text shows of the
 * options it was printed with (columns, overhead marks, return values,
 * funcgraph-tail), learnt from the header and from the first lines that
 * tell; and the out_text writer for it, which says whether a line is
 * printed back byte for byte (keep_text).
 */
#include <errno.h>
#include <string.h>

#include "fgtext_int.h"

#define OVERHEAD_MIN_NS 10000 /* no mark up to 10 us (trace_find_mark) */

/* --- layout ------------------------------------------------------------- */

/* Columns of the first event line, for the whole text. */
void fgtext_set_layout(struct fgtext *r, const struct cols *c)
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
	if (fgtext_any_col(c) || !l->header || r->hdr_cols)
		l->flags |= BG_O_CONTEXT_INFO;
	l->known |= cols;
}

void fgtext_learn_overhead(struct fgtext *r, const struct cols *c)
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
 * Return values are on once any line prints one, and the first value
 * printed decides the dialect: not the first LEAF or EXIT, which may be
 * of a void function (bpfgraph types values from BTF and prints none for
 * it; "Reading it back"). Lines before it printed no value, which the
 * writer repeats whatever is learnt later (fgtext_ev.has_ret). Hex mode
 * is decided by the first value the two modes print differently (an
 * error code).
 */
void fgtext_learn_retval(struct fgtext *r, const struct body *b)
{
	struct fgtext_layout *l = &r->lay;
	char buf[32];

	if ((b->type != B_LEAF && b->type != B_EXIT) || (!b->has_ret && !b->ret_other))
		return;
	if (!(l->known & BG_O_RETVAL)) {
		l->known |= BG_O_RETVAL;
		l->flags |= BG_O_RETVAL;
		l->dialect = (enum bg_dialect)b->ret_form;
	}
	/* "ret=false" (a newer kernel's typed values) says nothing of hex */
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
 * seen at its depth, that it was on. A "}" with a return value is always
 * named: it says nothing.
 */
void fgtext_learn_tail(struct fgtext *r, bool named, bool seen, bool ret_shown)
{
	struct fgtext_layout *l = &r->lay;

	if (ret_shown || (l->known & BG_O_TAIL) || (named && !seen))
		return;
	if (named)
		l->flags |= BG_O_TAIL;
	else
		l->flags &= ~BG_O_TAIL;
	l->known |= BG_O_TAIL;
}

/* Column header line: "# CPU  DURATION ... FUNCTION CALLS" ("Column headers") */
void fgtext_header_line(struct fgtext *r, const char *p, const char *end)
{
	struct fgtext_layout *l = &r->lay;

	if (fgtext_starts(p, end, "# tracer:"))
		l->header = true;
	if (!fgtext_find(p, end, "FUNCTION CALLS") || r->lay_set)
		return;
	r->hdr_cols = true;
	l->flags &= ~(BG_O_CPU | BG_O_PROC | BG_O_DURATION | BG_O_ABSTIME);
	if (fgtext_find(p, end, " TIME "))
		l->flags |= BG_O_ABSTIME;
	if (fgtext_find(p, end, " CPU"))
		l->flags |= BG_O_CPU;
	if (fgtext_find(p, end, "TASK/PID"))
		l->flags |= BG_O_PROC;
	if (fgtext_find(p, end, "DURATION"))
		l->flags |= BG_O_DURATION;
	l->flags |= BG_O_CONTEXT_INFO;
}

/* --- rendering ---------------------------------------------------------- */

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
	/*
	 * funcgraph-tail as the text showed it: every "}" named. Without it a
	 * named "}" is an event's own (gev.tail: no entry paired with it).
	 */
	o->flags = l->flags;
	/* shown again from the text (gev.args_text, .retaddr_text) */
	if (l->cols & FGT_L_ARGS)
		o->flags |= BG_O_ARGS;
	if (l->cols & FGT_L_RETADDR)
		o->flags |= BG_O_RETADDR;
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

struct gev fgtext__gev(const struct fgtext_ev *e)
{
	struct gev ev = e->ev;

	if (e->kind == FGT_EVENT && (ev.type == GEV_ENTER || ev.type == GEV_LEAF)) {
		ev.args_text = e->args ?: "";
		ev.retaddr_text = e->retaddr ?: "";
	}
	return ev;
}

/* Does out_text print exactly text (plus '\n') for e? */
int fgtext_renders_same(struct fgtext *r, const struct fgtext_ev *e, bool *same)
{
	size_t n = strlen(e->text);
	struct gev ev;
	long len;
	int err = writer_for_layout(r);

	if (err)
		return err;
	rewind(r->mem);
	ev = fgtext__gev(e);
	out_text__emit(r->w, &ev);
	if (fflush(r->mem))
		return -ENOMEM;
	len = ftell(r->mem);
	*same = len == (long)n + 1 && !memcmp(r->membuf, e->text, n) && r->membuf[n] == '\n';
	return 0;
}
