// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpfgraph diff: the report, counts, lists of differences and durations,
 * then the summary line (diff.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff_int.h"

/* --- report ------------------------------------------------------------------ */

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

static const char *nm(const struct diff *d, uint32_t id)
{
	return d->names.s[id];
}

static void print_call(const struct diff *d, FILE *out, int side, uint32_t node)
{
	const struct dnode *n = &d->s[side].node[node];

	fprintf(out, "%s (depth %u", nm(d, n->name), n->depth);
	if (n->parent != NONE)
		fprintf(out, ", in %s", nm(d, d->s[side].node[n->parent].name));
	fputc(')', out);
}

static void print_only(const struct diff *d, FILE *out, int side)
{
	const struct list *l = &d->only[side];
	const char *me = d->s[side].name, *other = d->s[!side].name;

	fprintf(out, "%zu call%s only in %s%s\n", d->st.only[side], plural(d->st.only[side]),
		side == DIFF_A ? "A" : "B", d->st.only[side] ? ":" : "");
	for (size_t i = 0; i < l->n; i++) {
		const struct item *it = &l->v[i];
		uint32_t node = side == DIFF_A ? it->a : it->b;

		fprintf(out, "  %s:%u: ", me, d->s[side].node[node].line);
		print_call(d, out, side, node);
		if (it->calls)
			fprintf(out, ": an invocation of %u calls with no counterpart in %s\n",
				it->calls, other);
		else if (it->near)
			fprintf(out, ", near %s:%u\n", other, it->near);
		else
			fputc('\n', out);
	}
	if (l->total > l->n)
		fprintf(out, "  ... %zu more\n", l->total - l->n);
}

static void print_moved(const struct diff *d, FILE *out)
{
	const struct list *l = &d->moved;

	fprintf(out, "%zu call%s moved%s\n", d->st.moved, plural(d->st.moved),
		d->st.moved ? ":" : "");
	for (size_t i = 0; i < l->n; i++) {
		fprintf(out, "  %s:%u -> %s:%u: ", d->s[DIFF_A].name,
			d->s[DIFF_A].node[l->v[i].a].line, d->s[DIFF_B].name,
			d->s[DIFF_B].node[l->v[i].b].line);
		print_call(d, out, DIFF_A, l->v[i].a);
		fputs(" -> ", out);
		print_call(d, out, DIFF_B, l->v[i].b);
		fputc('\n', out);
	}
	if (l->total > l->n)
		fprintf(out, "  ... %zu more\n", l->total - l->n);
}

/* Biggest change of total time first, then by name. */
static int cmp_dur(const void *x, const void *y, void *arg)
{
	const struct diff *sort_ctx = arg;
	const struct dstat *a = &sort_ctx->dur[*(const uint32_t *)x];
	const struct dstat *b = &sort_ctx->dur[*(const uint32_t *)y];
	double da = fabs((double)a->total[1] - (double)a->total[0]);
	double db = fabs((double)b->total[1] - (double)b->total[0]);

	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(nm(sort_ctx, *(const uint32_t *)x), nm(sort_ctx, *(const uint32_t *)y));
}

static int print_durations(struct diff *d, FILE *out)
{
	uint32_t *ix = malloc((d->names.n ? d->names.n : 1) * sizeof(*ix));
	size_t n = 0;

	if (!ix)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->names.n; i++)
		if (d->dur[i].count[0] && d->dur[i].count[1])
			ix[n++] = i;
	qsort_r(ix, n, sizeof(*ix), cmp_dur, d);
	fprintf(out, "durations of %zu function%s called on both sides, %zu changed %gx or more%s\n",
		d->st.dur_funcs, plural(d->st.dur_funcs), d->st.dur_changed, d->o.ratio,
		n ? ":" : "");
	if (n && d->o.max_lines)
		fprintf(out, "  %-32s %8s %12s %10s %8s %12s %10s %7s\n", "function", "A calls",
			"A total us", "A mean us", "B calls", "B total us", "B mean us", "B/A");
	for (size_t k = 0; k < n && k < d->o.max_lines; k++) {
		const struct dstat *s = &d->dur[ix[k]];
		double ma = diff_mean(s, DIFF_A);

		fprintf(out, "  %-32s %8" PRIu64 " %12.3f %10.3f %8" PRIu64 " %12.3f %10.3f ",
			nm(d, ix[k]), s->count[0], (double)s->total[0] / 1000, ma / 1000,
			s->count[1], (double)s->total[1] / 1000, diff_mean(s, DIFF_B) / 1000);
		if (ma > 0)
			fprintf(out, "%7.3f\n", diff_mean(s, DIFF_B) / ma);
		else
			fprintf(out, "%7s\n", "-");
	}
	if (n > d->o.max_lines)
		fprintf(out, "  ... %zu more\n", n - d->o.max_lines);
	free(ix);
	return 0;
}

static void print_summary(const struct diff *d, FILE *out)
{
	const struct diff_stats *s = &d->st;

	fprintf(out, "recall %.3f precision %.3f (A: %zu calls in %zu invocations, B: %zu calls in %zu invocations)\n",
		s->recall, s->precision, s->calls[0], s->invocations[0], s->calls[1],
		s->invocations[1]);
}

int diff_report(struct diff *d, FILE *out)
{
	const struct diff_stats *s = &d->st;
	int err = 0;

	if (!d->o.quiet) {
		for (int i = 0; i < 2; i++) {
			fprintf(out, "%s: %s: %zu call%s in %zu invocation%s", i ? "B" : "A",
				d->s[i].name, s->calls[i], plural(s->calls[i]), s->invocations[i],
				plural(s->invocations[i]));
			if (s->outside[i])
				fprintf(out, " (and %zu outside any)", s->outside[i]);
			fputc('\n', out);
		}
		fprintf(out, "%zu invocation%s paired, %zu only in A, %zu only in B\n", s->paired,
			plural(s->paired), s->invocations[0] - s->paired,
			s->invocations[1] - s->paired);
		print_only(d, out, DIFF_A);
		print_only(d, out, DIFF_B);
		print_moved(d, out);
		err = print_durations(d, out);
	}
	print_summary(d, out);
	return ferror(out) ? -EIO : err;
}
