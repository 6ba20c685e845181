// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpfgraph report -i FILE [output options]: replays a recording through
 * the graph builder and writers of live tracing. The recorded output
 * options are the defaults; those given here override them.
 *
 * FILE may also be function_graph text of any dialect the text reader
 * knows (tracefs trace or trace_pipe, perf ftrace, perf-tools funcgraph,
 * bpfgraph): its events go straight to the writers, and the options the
 * text shows (columns, return values) are the defaults instead. What the
 * file is, is decided by its first bytes, the record file magic or not
 * (input.h); "-" is standard input. A trace-cmd data file (trace.dat:
 * bpfgraph's own, or what trace-cmd record -p function_graph made) has
 * its funcgraph events replayed like a record file's records. A damaged line of text (a capture
 * cut in the middle of a line) is skipped with a warning naming it,
 * unless --strict.
 *
 * The live filters (-p, -C, -n, -D, -t, -x) apply as they would have
 * live: to a recording's records before the graph builder, to text's
 * events before the writers (graph/filter.h, text/fgfilter.h). One the
 * input cannot tell (-p on text without a TASK/PID column, say) is
 * refused, naming what is missing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd.h"
#include "fgfilter.h"
#include "fgtext.h"
#include "filter.h"
#include "input.h"
#include "preflight.h"
#include "record.h"
#include "render.h"
#include "tcdat.h"

/* Recorded options, overridden by the ones set on this command line. */
static void merge_opts(struct render_opts *ro, const struct record_meta *m,
		       const struct bg_opts *o)
{
	uint32_t retval = BG_O_RETVAL | BG_O_RETVAL_HEX;

	ro->flags = (m->flags & ~o->flags_set) | (o->flags & o->flags_set);
	ro->dialect = o->dialect_set ? o->dialect : (enum bg_dialect)m->dialect;
	/* A 6.1 recording has return values off; a later dialect has them on. */
	if (m->dialect < BG_DIALECT_6_5 && ro->dialect >= BG_DIALECT_6_5 &&
	    !(o->flags_set & BG_O_RETVAL))
		ro->flags |= BG_O_RETVAL;
	if (ro->dialect < BG_DIALECT_6_5)
		ro->flags &= ~retval;
	ro->header = m->header && !o->no_header;
	ro->nr_cpu_ids = m->nr_cpu_ids;
	ro->format = o->format;
	ro->folded_count = o->folded_count;
	ro->hist = (const char *const *)o->hist.v;
	ro->nr_hist = o->hist.n;
}

/* The filters of the command line, pointing into o. */
static void filter_opts_of(const struct bg_opts *o, struct filter_opts *f)
{
	*f = (struct filter_opts){ .max_depth = o->max_depth, .thresh_ns = o->thresh_ns,
				   .pids = o->pids, .nr_pids = o->nr_pids,
				   .cpus = o->nr_cpus ? o->cpus : NULL, .comm = o->comm,
				   .notrace = o->notrace.v, .n_notrace = o->notrace.n };
}

/*
 * Filters that need a graph's entries: its CPU is the one it began on,
 * and what a hidden function called is known by its entry. Input made
 * with tracing_thresh has none (what: why). false (message written) if
 * one of them was asked for.
 */
static bool need_entries(const struct bg_opts *o, const char *path, const char *what)
{
	if (!o->nr_cpus && !o->notrace.n)
		return true;
	fprintf(stderr, "bpfgraph: %s: %s cannot be applied: %s, so %s\n", path,
		o->nr_cpus ? "-C" : "-x", what,
		o->nr_cpus ? "the CPU a graph began on is not known" :
			     "what a hidden function called cannot be told");
	return false;
}

static void print_info(const struct record_info *in, const char *path, int verbosity)
{
	const struct record_trailer *t = &in->trailer;

	if (verbosity > 0)
		fprintf(stderr, "bpfgraph: %s: recorded on %s (%s, %u CPUs): %s\n", path,
			in->meta.hostname ?: "?", in->meta.release ?: "?",
			in->meta.ncpus_online, in->meta.cmdline ?: "?");
	if (verbosity > 0 || t->drops)
		fprintf(stderr, "bpfgraph: %s: %" PRIu64 " records, %zu functions, %" PRIu64
			" dropped, %" PRIu64 " recursion misses, %" PRIu64 " unmatched exits, %"
			PRIu64 " unmatched entries\n", path, in->records, in->funcs.n, t->drops,
			t->recursion_misses, t->unmatched_exits, t->unmatched_entries);
	/* Calls missing from the file, as the recording's own summary said. */
	if (t->held)
		fprintf(stderr, "bpfgraph: %s: %" PRIu64 " calls of the -G functions were not "
			"recorded: they began after the first traced call, while what the wide "
			"net met in it was being linked\n", path, t->held);
}

static FILE *open_output(const struct bg_opts *o)
{
	FILE *out = o->output ? fopen(o->output, "we") : stdout;

	if (!out)
		fprintf(stderr, "bpfgraph: cannot open '%s': %s\n", o->output, strerror(errno));
	return out;
}

/* Closes out (unless stdout); err, or -EIO if that failed. */
static int close_output(FILE *out, const struct bg_opts *o, int err)
{
	if (out && out != stdout && fclose(out) && !err) {
		fprintf(stderr, "bpfgraph: cannot write '%s': %s\n", o->output, strerror(errno));
		err = -EIO;
	}
	return err;
}

static void write_error(const struct bg_opts *o)
{
	fprintf(stderr, "bpfgraph: cannot write '%s': %s\n", o->output ?: "stdout",
		strerror(EIO));
}

/*
 * The live filters between records and the graph builder, when any is
 * set (*rf NULL otherwise): 0, or -ENOMEM with the message written.
 */
static int filter_records(const struct bg_opts *o, const struct functab *funcs,
			  struct rec_sink *sink, struct recfilter **rf)
{
	struct filter_opts fo;

	*rf = NULL;
	filter_opts_of(o, &fo);
	if (!filter__active(&fo))
		return 0;
	*rf = recfilter__new(&fo, funcs, *sink);
	if (!*rf) {
		fprintf(stderr, "bpfgraph: out of memory\n");
		return -ENOMEM;
	}
	*sink = recfilter__sink(*rf);
	return 0;
}

/*
 * Records of a source into the writers: merge_opts(ro, m, o), the live
 * filters, then play(src, sink, rd) with the sink to feed (rd: for what
 * is not a record, such as lost events), and the end of the output.
 */
static int replay_via(struct render_opts *ro, const struct record_meta *m,
		      const struct bg_opts *o,
		      int (*play)(void *src, struct rec_sink *sink, struct render *rd), void *src)
{
	struct recfilter *rf;
	struct render *rd;
	struct rec_sink sink;
	int err;

	merge_opts(ro, m, o);
	rd = render__new(ro);
	if (!rd) {
		fprintf(stderr, "bpfgraph: out of memory\n");
		return -ENOMEM;
	}
	sink = render__sink(rd);
	if (filter_records(o, ro->funcs, &sink, &rf)) {
		render__free(rd);
		return -ENOMEM;
	}
	err = play(src, &sink, rd);
	if (!err)
		err = render__finish(rd);
	recfilter__free(rf);
	render__free(rd);
	if (err == -EIO)
		write_error(o);
	return err;
}

static int play_record(void *src, struct rec_sink *sink, struct render *rd)
{
	(void)rd;
	return record__replay(src, sink);
}

static int replay(struct record_reader *r, const struct bg_opts *o, FILE *out)
{
	const struct record_info *in = record__info(r);
	struct render_opts ro = { .out = out, .funcs = &in->funcs,
				  .args = record__args_src(r) };

	return replay_via(&ro, &in->meta, o, play_record, r);
}

static int report_record(struct input *in, const struct bg_opts *o)
{
	struct record_reader *r;
	FILE *out;
	int err;

	r = record__open(input__record_path(in), stderr);
	if (!r)
		return -EINVAL;
	if (record__info(r)->meta.thresh_ns && !need_entries(o, in->name, "it was recorded with -t and has no entries")) {
		record__close_reader(r);
		return -EINVAL;
	}
	out = open_output(o);
	err = out ? replay(r, o, out) : -EINVAL;
	err = close_output(out, o, err);
	if (!err)
		print_info(record__info(r), in->name, o->verbosity);
	record__close_reader(r);
	return err;
}

/* --- trace-cmd data files ------------------------------------------------- */

static int tcdat_lost(void *ctx, uint32_t cpu, uint64_t count)
{
	return render__lost(ctx, cpu, count);
}

static void tcdat_info(const struct tcdat *r, const char *path, int verbosity)
{
	const struct tcdat_stats *st = tcdat__stats(r);

	if (verbosity > 0)
		fprintf(stderr, "bpfgraph: %s: trace-cmd file version %u%s: %" PRIu64
			" funcgraph_entry, %" PRIu64 " funcgraph_exit, %" PRIu64 " other events, %zu"
			" functions\n", path, tcdat__meta(r)->version,
			tcdat__meta(r)->bpfgraph ? " (bpfgraph's)" : "", st->entries, st->exits,
			st->other, tcdat__funcs(r)->n);
	if (st->lost_pages)
		fprintf(stderr, "bpfgraph: %s: events were lost before %" PRIu64 " of its "
			"pages\n", path, st->lost_pages);
}

/* Its events are records, as a record file's: the same filters. */
static int play_tcdat(void *src, struct rec_sink *sink, struct render *rd)
{
	struct tcdat_sink ts = { *sink, tcdat_lost, rd };

	return tcdat__replay(src, &ts);
}

static int replay_tcdat(struct tcdat *r, const struct bg_opts *o, FILE *out)
{
	const struct tcdat_meta *tm = tcdat__meta(r);
	struct record_meta m = { .flags = tm->flags, .dialect = tm->dialect,
				 .nr_cpu_ids = tm->nr_cpu_ids, .header = tm->header };
	struct render_opts ro = { .out = out, .funcs = tcdat__funcs(r) };

	return replay_via(&ro, &m, o, play_tcdat, r);
}

static int report_tcdat(struct input *in, const struct bg_opts *o)
{
	struct tcdat *r = tcdat__open(in->f, in->name, "bpfgraph", stderr);
	FILE *out;
	int err;

	if (!r)
		return -EINVAL;
	out = open_output(o);
	err = out ? replay_tcdat(r, o, out) : -EINVAL;
	err = close_output(out, o, err);
	if (!err)
		tcdat_info(r, in->name, o->verbosity);
	tcdat__close(r);
	return err;
}

/* --- function_graph text ------------------------------------------------- */

/*
 * Text without the abstime column has no timestamps. The JSON and Chrome
 * timelines need some: calls are laid end to end from 0, in the order of
 * the text, each entry where the clock is, each exit at its entry plus
 * its duration, so that durations and nesting hold.
 */
struct clock_cpu {
	uint64_t entry[FGTEXT_MAX_DEPTH];
	bool open[FGTEXT_MAX_DEPTH];
};

struct text_clock {
	uint64_t now;
	struct clock_cpu **cpus; /* by CPU number, NULL until seen */
	uint32_t ncpus;
};

static struct clock_cpu *clock_cpu(struct text_clock *c, uint32_t cpu)
{
	if (cpu >= BG_MAX_CPUS)
		return NULL;
	if (cpu >= c->ncpus) {
		struct clock_cpu **v = realloc(c->cpus, (cpu + 1) * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + c->ncpus, 0, (cpu + 1 - c->ncpus) * sizeof(*v));
		c->cpus = v;
		c->ncpus = cpu + 1;
	}
	if (!c->cpus[cpu])
		c->cpus[cpu] = calloc(1, sizeof(**c->cpus));
	return c->cpus[cpu];
}

static void clock_free(struct text_clock *c)
{
	for (uint32_t i = 0; i < c->ncpus; i++)
		free(c->cpus[i]);
	free(c->cpus);
}

static int stamp(struct text_clock *c, struct gev *ev)
{
	struct clock_cpu *cc = clock_cpu(c, ev->cpu);
	uint32_t d = ev->depth < FGTEXT_MAX_DEPTH ? ev->depth : FGTEXT_MAX_DEPTH - 1;

	if (!cc)
		return -ENOMEM;
	ev->ts = c->now;
	if (ev->type == GEV_ENTER) {
		cc->entry[d] = c->now;
		cc->open[d] = true;
	} else if (ev->type == GEV_LEAF) {
		c->now += ev->dur;
	} else if (ev->type == GEV_EXIT) {
		ev->ts = (cc->open[d] ? cc->entry[d] : c->now) + ev->dur;
		cc->open[d] = false;
		if (ev->ts > c->now)
			c->now = ev->ts;
	}
	return 0;
}

/*
 * The writers' function table: the reader's names, and a return type
 * that says what the text showed. Text has no BTF: a call printed
 * without a value (a void function, or a text without return values)
 * is void for the writers, one printed with a value has it shown raw;
 * but a value printed in hex that the kernel's rule would print in
 * decimal (0xffffffea: bpfgraph's text of a long, not an int error
 * code) is a 64-bit signed one, which the writers print the same way.
 */
struct text_replay {
	struct gsink events;
	struct functab funcs;
	FILE *out; /* non-NULL for the text format: comments are copied */
	struct text_clock *clock; /* non-NULL: make timestamps up */
	struct fgfilter *filter; /* non-NULL: the live filters, between text and writer */
};

static int sync_funcs(struct text_replay *t, const struct fgtext_ev *e, const struct functab *ft)
{
	const struct gev *ev = &e->ev;

	while (t->funcs.n < ft->n) {
		const struct bg_func *f = &ft->f[t->funcs.n];

		if (functab__add(&t->funcs, f->name, f->module, 0, 0) < 0)
			return -ENOMEM;
	}
	if ((ev->type == GEV_LEAF || ev->type == GEV_EXIT) && ev->func < t->funcs.n) {
		struct bg_func *f = &t->funcs.f[ev->func];
		char buf[32];

		f->ret_kind = e->has_ret ? BG_RET_UNKNOWN : BG_RET_VOID;
		f->ret_size = 8;
		if (e->ret_hex && out_text__fmt_retval(buf, sizeof(buf), ev->ret, NULL, false) &&
		    buf[0] == '-')
			f->ret_kind = BG_RET_SIGNED;
	}
	return 0;
}

/* What the filter (or the text, without one) keeps: to the writer. */
static int text_out_event(void *ctx, const struct gev *in)
{
	struct text_replay *t = ctx;
	struct gev ev = *in;

	if (t->clock && stamp(t->clock, &ev))
		return -ENOMEM;
	t->events.emit(t->events.ctx, &ev);
	return 0;
}

static int text_out_line(void *ctx, const char *text)
{
	struct text_replay *t = ctx;

	if (t->out)
		fprintf(t->out, "%s\n", text);
	return 0;
}

static int text_emit(void *ctx, const struct fgtext_ev *e, const struct functab *ft)
{
	struct text_replay *t = ctx;
	struct gev ev;

	if (e->kind == FGT_EVENT) {
		ev = fgtext__gev(e);
		if (sync_funcs(t, e, ft))
			return -ENOMEM;
		return t->filter ? fgfilter__event(t->filter, &ev) : text_out_event(t, &ev);
	}
	if (t->out && e->text && (e->kind == FGT_COMMENT || e->kind == FGT_IRQ))
		return t->filter ? fgfilter__line(t->filter, e->text) : text_out_line(t, e->text);
	return 0;
}

/*
 * What the filters need of the text: a TASK/PID column for -p and -n, a
 * CPU column for -C, durations for -t, entries for -C and -x. false
 * (message written) when one is missing.
 */
static bool text_supports(const struct fgtext *r, const char *path, const struct bg_opts *o)
{
	const struct fgtext_layout *l = fgtext__layout(r);
	const char *opt = NULL, *col = NULL;

	if ((o->nr_pids || o->comm[0]) && !(l->flags & BG_O_PROC)) {
		opt = o->nr_pids ? "-p" : "-n";
		col = "TASK/PID column (funcgraph-proc)";
	} else if (o->nr_cpus && !(l->flags & BG_O_CPU)) {
		opt = "-C";
		col = "CPU column (funcgraph-cpu)";
	} else if (o->thresh_ns && !(l->flags & BG_O_DURATION)) {
		opt = "-t";
		col = "DURATION column (funcgraph-duration)";
	}
	if (opt) {
		fprintf(stderr, "bpfgraph: %s: %s cannot be applied: the text has no %s\n", path,
			opt, col);
		return false;
	}
	if (fgtext__stats(r)->events && !fgtext__stats(r)->calls)
		return need_entries(o, path, "the text has no entry lines (tracing_thresh)");
	return true;
}

/* One message for a failed read of text: where, and what. */
static void text_error(const struct fgtext *r, const char *path, int err)
{
	uint32_t line;
	const char *msg = fgtext__error(r, &line);

	if (msg && line)
		fprintf(stderr, "bpfgraph: %s:%u: %s\n", path, line, msg);
	else if (msg)
		fprintf(stderr, "bpfgraph: %s: %s\n", path, msg);
	else
		fprintf(stderr, "bpfgraph: cannot read '%s': %s\n", path, strerror(-err));
}

/*
 * A reader of in; damaged lines are skipped unless --strict, and named
 * when warn (the first of the two passes: once is enough).
 */
static struct fgtext *text_reader(const struct input *in, const struct bg_opts *o,
				  fgtext_emit_fn emit, void *ctx, bool warn)
{
	struct fgtext_opts fo = { .emit = emit, .ctx = ctx, .name = in->name,
				  .lenient = !o->strict, .warn = warn ? stderr : NULL,
				  .prefix = "bpfgraph: " };
	struct fgtext *r = fgtext__new(&fo);

	if (!r)
		fprintf(stderr, "bpfgraph: out of memory\n");
	return r;
}

/* All of in, from its start, into r. */
static int text_read(const struct input *in, struct fgtext *r)
{
	int err;

	if (fseek(in->f, 0, SEEK_SET)) {
		err = -errno;
		fprintf(stderr, "bpfgraph: cannot read '%s': %s\n", in->name, strerror(errno));
		return err;
	}
	err = fgtext__read(r, in->f);
	if (err)
		text_error(r, in->name, err);
	return err;
}

/* The options the text shows, overridden by the ones set on this command line. */
static void text_opts(struct render_opts *ro, const struct fgtext_layout *l,
		      const struct bg_opts *o)
{
	struct out_text_opts to = { 0 };
	struct record_meta m = { 0 };

	fgtext__out_opts(l, &to);
	m.flags = to.flags;
	m.dialect = to.dialect;
	m.nr_cpu_ids = to.nr_cpu_ids;
	m.header = l->header;
	merge_opts(ro, &m, o);
	/*
	 * The text's arguments and callers are printed again as text; the
	 * JSON writers want registers and symbols, which text has not.
	 */
	if (o->format != BG_FMT_TEXT)
		ro->flags &= ~(BG_O_ARGS | BG_O_RETADDR);
	/* no values to print where the text showed none, unless asked for */
	if (!(l->flags & BG_O_RETVAL) && !(o->flags_set & BG_O_RETVAL & o->flags))
		ro->flags &= ~(BG_O_RETVAL | BG_O_RETVAL_HEX);
}

static void text_info(const struct fgtext *r, const char *path, int verbosity)
{
	const struct fgtext_stats *st = fgtext__stats(r);

	if (verbosity > 0)
		fprintf(stderr, "bpfgraph: %s: function_graph text: %" PRIu64 " lines, %" PRIu64
			" calls, %zu functions, %" PRIu64 " lines recovered from joined ones, %"
			PRIu64 " damaged lines skipped\n", path, st->lines, st->calls,
			fgtext__funcs(r)->n, st->recovered, st->skipped);
}

/*
 * The filters between the text and the writer, when there are any and
 * the text shows what they need. 0, -EINVAL (message written), -ENOMEM.
 */
static int text_filter(struct text_replay *t, const struct fgtext *r1, const char *path,
		       const struct bg_opts *o)
{
	struct fgfilter_out fout = { text_out_event, text_out_line, t };
	struct filter_opts fo;

	filter_opts_of(o, &fo);
	if (!filter__active(&fo))
		return 0;
	if (!text_supports(r1, path, o))
		return -EINVAL;
	t->filter = fgfilter__new(&fo, fgtext__layout(r1)->flags & BG_O_PROC, &t->funcs, fout);
	if (!t->filter) {
		fprintf(stderr, "bpfgraph: out of memory\n");
		return -ENOMEM;
	}
	return 0;
}

/*
 * Two passes: the first learns what the text shows (columns, dialect,
 * hex values: the first return value may come late), so that the writer
 * is made with the options of the whole text; the second feeds it. Both
 * stream, so memory does not grow with the length of the text.
 */
static int report_text(struct input *in, const struct bg_opts *o)
{
	struct text_replay t = { 0 };
	struct text_clock clock = { 0 };
	struct render_opts ro = { 0 };
	struct fgtext *r1, *r2 = NULL;
	struct render *rd = NULL;
	FILE *out = NULL;
	int err = -ENOMEM;

	functab__init(&t.funcs);
	r1 = text_reader(in, o, NULL, NULL, true);
	if (!r1)
		goto out;
	err = text_read(in, r1);
	if (err)
		goto out;
	if (!fgtext__stats(r1)->events && !fgtext__layout(r1)->header) {
		fprintf(stderr, "bpfgraph: %s: neither a bpfgraph record file nor "
			"function_graph text\n", in->name);
		err = -EINVAL;
		goto out;
	}
	err = text_filter(&t, r1, in->name, o);
	if (err)
		goto out;
	out = open_output(o);
	r2 = out ? text_reader(in, o, text_emit, &t, false) : NULL;
	if (!r2) {
		err = out ? -ENOMEM : -EINVAL;
		goto out;
	}
	ro.out = out;
	ro.funcs = &t.funcs; /* grows as the second pass reads */
	text_opts(&ro, fgtext__layout(r1), o);
	rd = render__new(&ro);
	if (!rd) {
		fprintf(stderr, "bpfgraph: out of memory\n");
		err = -ENOMEM;
		goto out;
	}
	t.events = render__events(rd);
	t.out = o->format == BG_FMT_TEXT ? out : NULL;
	if (o->format != BG_FMT_TEXT && !(fgtext__layout(r1)->flags & BG_O_ABSTIME))
		t.clock = &clock;
	err = text_read(in, r2);
	if (!err && t.filter)
		err = fgfilter__finish(t.filter);
	if (!err)
		err = render__finish(rd);
	if (err == -EIO)
		write_error(o);
out:
	fgfilter__free(t.filter);
	render__free(rd);
	err = close_output(out, o, err);
	if (!err)
		text_info(r1, in->name, o->verbosity);
	fgtext__free(r1);
	fgtext__free(r2);
	clock_free(&clock);
	functab__free(&t.funcs);
	return err;
}

int cmd_report(int argc, char **argv)
{
	struct input in = { 0 };
	struct bg_opts o;
	int err;

	err = cli__parse_cmd(&o, BG_CMD_REPORT, argc, argv, stderr);
	if (err)
		return cli__exit_status(err);
	if (preflight__report_options(&o)) {
		cli__free(&o);
		return BG_EXIT_FAILURE;
	}
	err = input__open(&in, o.input, "bpfgraph");
	if (!err)
		err = in.record ? report_record(&in, &o) :
		      in.tcdat	? report_tcdat(&in, &o) :
				  report_text(&in, &o);
	input__close(&in);
	cli__free(&o);
	return err ? BG_EXIT_FAILURE : BG_EXIT_OK;
}
