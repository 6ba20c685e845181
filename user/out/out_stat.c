// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The stat table and the --hist histograms. Everything is written at the
 * end: a row is only known once the last call has come. Comment lines
 * start with "#", like function_graph's header, so that the rows can be
 * told from them by the first character.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "out_stat.h"

#define BAR_WIDTH 40

struct out_stat {
	struct out_stat_opts o;
	struct funcstat *s;
};

struct out_stat *out_stat__new(const struct out_stat_opts *opts)
{
	struct out_stat *w;

	if (!opts || !opts->out) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->o = *opts;
	w->s = funcstat__new(&(struct funcstat_opts){ opts->funcs, opts->hist, opts->nr_hist });
	if (!w->s) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	return w;
}

void out_stat__free(struct out_stat *w)
{
	if (!w)
		return;
	funcstat__free(w->s);
	free(w);
}

void out_stat__emit(void *ctx, const struct gev *ev)
{
	struct out_stat *w = ctx;

	funcstat__emit(w->s, ev);
}

int out_stat__end(struct out_stat *w)
{
	int err = funcstat__finish(w->s);

	out_stat__print_table(w->o.out, w->s, w->o.header);
	if (w->o.nr_hist)
		out_stat__print_hists(w->o.out, w->s, w->o.hist, w->o.nr_hist);
	return err;
}

/* ns as microseconds with 3 decimals, function_graph's duration unit. */
static const char *fmt_us(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
	return buf;
}

static void print_row(FILE *f, const struct funcstat *s, const struct funcstat_row *r)
{
	char total[32], self[32], avg[32] = "-", min[32] = "-", max[32] = "-";

	if (r->calls) {
		fmt_us(avg, sizeof(avg), (r->total_ns + r->calls / 2) / r->calls);
		fmt_us(min, sizeof(min), r->min_ns);
		fmt_us(max, sizeof(max), r->max_ns);
	}
	fprintf(f, "%10" PRIu64 " %10" PRIu64 " %14s %14s %14s %14s %14s  %s\n", r->calls,
		r->unfinished, fmt_us(total, sizeof(total), r->total_ns),
		fmt_us(self, sizeof(self), r->self_ns), avg, min, max,
		funcstat__name(s, r->func));
}

/* What the rows do not show; no loss is silent. */
static void print_footer(FILE *f, const struct funcstat *s, size_t nrows)
{
	const struct funcstat_totals *t = funcstat__totals(s);

	fprintf(f, "# %" PRIu64 " call%s of %zu function%s; %" PRIu64
		" unfinished (entry seen, no exit: in no time column)\n",
		t->calls, t->calls == 1 ? "" : "s", nrows, nrows == 1 ? "" : "s", t->unfinished);
	if (t->unknown)
		fprintf(f, "# %" PRIu64 " exit%s of a function the trace never named (\"}\" "
			"without its entry): in no row\n", t->unknown, t->unknown == 1 ? "" : "s");
	if (t->self_whole)
		fprintf(f, "# %" PRIu64 " call%s deeper than %d levels or on CPUs above %d: "
			"self time includes the children\n", t->self_whole,
			t->self_whole == 1 ? "" : "s", BG_MAX_DEPTH, BG_MAX_CPUS - 1);
	if (t->lost || t->lost_unknown)
		fprintf(f, "# %" PRIu64 " records lost, and %" PRIu64 " losses of unknown size: "
			"the calls they held are missing\n", t->lost, t->lost_unknown);
	if (funcstat__nomem(s))
		fputs("# out of memory: some calls are missing\n", f);
}

void out_stat__print_table(FILE *f, const struct funcstat *s, bool header)
{
	const struct funcstat_row *rows;
	size_t n;

	rows = funcstat__rows(s, &n);
	if (header)
		fprintf(f, "# times in microseconds (us); self = total minus the time in traced "
			"children;\n# average = total / calls; calls that never finished are "
			"counted in \"unfinished\" only\n#\n"
			"# %8s %10s %14s %14s %14s %14s %14s  %s\n",
			"calls", "unfinished", "total(us)", "self(us)", "average(us)", "min(us)",
			"max(us)", "function");
	for (size_t i = 0; i < n; i++)
		print_row(f, s, &rows[i]);
	print_footer(f, s, n);
}

static void print_bar(FILE *f, uint64_t count, uint64_t most)
{
	unsigned int stars = most ? (unsigned int)(count * BAR_WIDTH / most) : 0;

	/* a bucket with calls never looks empty */
	if (count && !stars)
		stars = 1;
	fputc('|', f);
	for (unsigned int i = 0; i < BAR_WIDTH; i++)
		fputc(i < stars ? '*' : ' ', f);
	fputs("|\n", f);
}

static void print_hist(FILE *f, const struct funcstat *s, const struct funcstat_hist *h,
		       const char *pattern)
{
	unsigned int lo = FUNCSTAT_BUCKETS, hi = 0;
	uint64_t most = 0;

	fprintf(f, "\n%s (--hist %s): %" PRIu64 " call%s, durations in nanoseconds (ns)\n",
		funcstat__name(s, h->func), pattern, h->calls, h->calls == 1 ? "" : "s");
	for (unsigned int k = 0; k < FUNCSTAT_BUCKETS; k++) {
		if (!h->bucket[k])
			continue;
		lo = k < lo ? k : lo;
		hi = k;
		most = h->bucket[k] > most ? h->bucket[k] : most;
	}
	if (h->calls) {
		fprintf(f, "%24s : %-8s  distribution\n", "ns", "count");
		for (unsigned int k = lo; k <= hi; k++) {
			uint64_t from = k ? 1ULL << k : 0;
			uint64_t to = k == 63 ? UINT64_MAX : (2ULL << k) - 1;

			fprintf(f, "%10" PRIu64 " -> %-10" PRIu64 " : %-8" PRIu64 "  ", from, to,
				h->bucket[k]);
			print_bar(f, h->bucket[k], most);
		}
		fprintf(f, "average %" PRIu64 " ns, min %" PRIu64 " ns, max %" PRIu64
			" ns, total %" PRIu64 " ns", (h->total_ns + h->calls / 2) / h->calls,
			h->min_ns, h->max_ns, h->total_ns);
	} else {
		fputs("no call finished", f);
	}
	if (h->unfinished)
		fprintf(f, "; %" PRIu64 " unfinished, not in the histogram", h->unfinished);
	fputc('\n', f);
}

void out_stat__print_hists(FILE *f, const struct funcstat *s, const char *const *hist,
			   size_t nr_hist)
{
	const struct funcstat_hist *h;
	size_t n;

	h = funcstat__hists(s, &n);
	for (size_t i = 0; i < n; i++)
		print_hist(f, s, &h[i], h[i].pattern < nr_hist ? hist[h[i].pattern] : "?");
	for (size_t p = 0; p < nr_hist; p++)
		if (!funcstat__pattern_seen(s, p))
			fprintf(f, "\n--hist %s: no call of a matching function in the trace\n",
				hist[p]);
}
