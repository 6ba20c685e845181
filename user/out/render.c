// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One graph builder, one writer of the chosen format. The text writer is
 * the one live tracing always used; report builds exactly this too.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "out_chrome.h"
#include "out_folded.h"
#include "out_json.h"
#include "out_stat.h"
#include "out_svg.h"
#include "out_text.h"
#include "out_tracecmd.h"
#include "render.h"

/*
 * A writer as render drives it: made from the render options, started
 * once the graph builder is there, fed graph events, finished after the
 * builder's flush. begin and finish are optional; free takes NULL.
 */
struct writer_ops {
	const char *name;
	void *(*new)(const struct render_opts *o);
	void (*begin)(void *w);
	void (*emit)(void *w, const struct gev *ev);
	int (*finish)(void *w);
	void (*free)(void *w);
	/* What the writer holds goes to the FILE: after each drain, at the end. */
	void (*sync)(void *w);
	/* From now on each line goes to the FILE as it ends (render__events). */
	void (*each_line)(void *w);
};

struct render {
	struct render_opts o;
	struct graph *graph;
	const struct writer_ops *ops;
	void *w;
	/* --hist beside a writer other than stat's, which draws them itself */
	struct funcstat *hist;
};

static void *text_new(const struct render_opts *o)
{
	return out_text__new(&(struct out_text_opts){
		.out = o->out, .funcs = o->funcs, .flags = o->flags, .dialect = o->dialect,
		.nr_cpu_ids = o->nr_cpu_ids, .header = o->header, .args = o->args,
		.stream = true });
}

static void text_begin(void *w)
{
	out_text__begin(w);
}

static void text_free(void *w)
{
	out_text__free(w);
}

static void text_sync(void *w)
{
	out_text__sync(w);
}

static void text_each_line(void *w)
{
	out_text__each_line(w);
}

static void *json_new(const struct render_opts *o)
{
	return out_json__new(
		&(struct out_json_opts){ o->out, o->funcs, o->flags & BG_O_RETVAL_HEX, o->flags,
					 o->dialect, o->args });
}

static int json_finish(void *w)
{
	out_json__end(w);
	return 0;
}

static void json_free(void *w)
{
	out_json__free(w);
}

static void json_sync(void *w)
{
	out_json__sync(w);
}

static void json_each_line(void *w)
{
	out_json__each_line(w);
}

static void *chrome_new(const struct render_opts *o)
{
	return out_chrome__new(
		&(struct out_chrome_opts){ o->out, o->funcs, o->flags & BG_O_RETVAL_HEX, o->flags,
					   o->dialect, o->args });
}

static void chrome_begin(void *w)
{
	out_chrome__begin(w);
}

static int chrome_finish(void *w)
{
	out_chrome__end(w);
	return 0;
}

static void chrome_free(void *w)
{
	out_chrome__free(w);
}

/* What a flame graph left out, one line each on stderr: no loss is silent. */
static void folded_report(const char *format, const struct folded_stats *st)
{
	uint64_t out = st->deep + st->unfinished;

	if (out)
		fprintf(stderr,
			"bpfgraph: %s: %" PRIu64 " call%s left out (%" PRIu64
			" deeper than %d levels, %" PRIu64 " never finished)\n",
			format, out, out == 1 ? "" : "s", st->deep, BG_MAX_DEPTH, st->unfinished);
	if (st->rootless)
		fprintf(stderr,
			"bpfgraph: %s: %" PRIu64 " call%s on CPUs above %d shown without callers\n",
			format, st->rootless, st->rootless == 1 ? "" : "s", BG_MAX_CPUS - 1);
}

/* The folded stacks, for both their writers. */
static void *folded_new(const struct render_opts *o)
{
	return folded__new(&(struct folded_opts){ o->out, o->funcs, o->folded_count });
}

static int folded_finish(void *w)
{
	int err = out_folded__end(w);

	folded_report("folded", folded__stats(w));
	return err;
}

static int svg_finish(void *w)
{
	int err = out_svg__end(w);

	folded_report("svg", folded__stats(w));
	return err;
}

static void folded_free(void *w)
{
	folded__free(w);
}

static void *stat_new(const struct render_opts *o)
{
	return out_stat__new(&(struct out_stat_opts){ o->out, o->funcs, o->header, o->hist,
						      o->nr_hist });
}

static int stat_finish(void *w)
{
	int err = out_stat__end(w);

	if (err == -ENOMEM)
		fputs("bpfgraph: stat: out of memory: some calls are missing from the table\n",
		      stderr);
	return err;
}

static void stat_free(void *w)
{
	out_stat__free(w);
}

static void *tracecmd_new(const struct render_opts *o)
{
	return out_tracecmd__new(&(struct out_tracecmd_opts){
		.out = o->out, .funcs = o->funcs, .flags = o->flags, .dialect = o->dialect,
		.nr_cpu_ids = o->nr_cpu_ids, .header = o->header });
}

static int tracecmd_finish(void *w)
{
	int err = out_tracecmd__end(w);

	if (err == -ENOMEM)
		fprintf(stderr, "bpfgraph: trace-cmd: out of memory\n");
	return err;
}

static void tracecmd_free(void *w)
{
	out_tracecmd__free(w);
}

static const struct writer_ops writers[] = {
	[BG_FMT_TEXT] = { "text", text_new, text_begin, out_text__emit, NULL, text_free,
			  text_sync, text_each_line },
	[BG_FMT_JSON] = { "json", json_new, NULL, out_json__emit, json_finish, json_free,
			  json_sync, json_each_line },
	[BG_FMT_CHROME] = { "chrome", chrome_new, chrome_begin, out_chrome__emit,
			    chrome_finish, chrome_free },
	[BG_FMT_FOLDED] = { "folded", folded_new, NULL, folded__emit, folded_finish,
			    folded_free },
	[BG_FMT_SVG] = { "svg", folded_new, NULL, folded__emit, svg_finish, folded_free },
	[BG_FMT_STAT] = { "stat", stat_new, NULL, out_stat__emit, stat_finish, stat_free },
	[BG_FMT_TRACECMD] = { "trace-cmd", tracecmd_new, NULL, out_tracecmd__emit,
			      tracecmd_finish, tracecmd_free },
};

#define NR_WRITERS (sizeof(writers) / sizeof(writers[0]))

int render__parse_format(const char *name)
{
	for (size_t i = 0; i < NR_WRITERS; i++)
		if (!strcmp(name, writers[i].name))
			return (int)i;
	return -EINVAL;
}

const char *render__format_name(enum bg_format f)
{
	return (unsigned int)f < NR_WRITERS ? writers[f].name : "?";
}

/* The writer's emit, and the histograms' when they are kept beside it. */
static void render_emit(void *ctx, const struct gev *ev)
{
	struct render *r = ctx;

	r->ops->emit(r->w, ev);
	if (r->hist)
		funcstat__emit(r->hist, ev);
}

/* Without histograms the writer's own emit: no call more per event. */
static struct gsink render_gsink(struct render *r)
{
	return r->hist ? (struct gsink){ render_emit, r } : (struct gsink){ r->ops->emit, r->w };
}

/* The writer; and the histograms' sums when another writer than stat's has --hist. */
static int render_writers(struct render *r, const struct render_opts *o)
{
	errno = 0;
	r->w = r->ops->new(o);
	if (!r->w)
		return errno ? -errno : -ENOMEM;
	if (!o->nr_hist || r->ops == &writers[BG_FMT_STAT])
		return 0;
	r->hist = funcstat__new(&(struct funcstat_opts){ o->funcs, o->hist, o->nr_hist });
	return r->hist ? 0 : -ENOMEM;
}

struct render *render__new(const struct render_opts *o)
{
	struct render *r = calloc(1, sizeof(*r));
	struct graph_opts go = { .funcs = o->funcs };
	int err;

	if (!r)
		return NULL;
	r->o = *o;
	/* an unknown format gets the writer live tracing always had */
	r->ops = &writers[(unsigned int)o->format < NR_WRITERS ? o->format : BG_FMT_TEXT];
	err = render_writers(r, o);
	go.sink = render_gsink(r);
	errno = 0;
	if (!err)
		r->graph = graph__new(&go);
	if (!r->graph) {
		/* the writer's or the builder's reason: EINVAL for no output */
		err = err ? -err : errno ? errno : ENOMEM;
		render__free(r);
		errno = err;
		return NULL;
	}
	if (r->ops->begin)
		r->ops->begin(r->w);
	return r;
}

static int render_feed(void *ctx, const struct bg_rec *rec)
{
	struct render *r = ctx;

	return graph__feed(r->graph, rec);
}

static void render_sync(struct render *r)
{
	if (r->ops->sync)
		r->ops->sync(r->w);
}

static void render_drain(void *ctx, uint64_t upto)
{
	struct render *r = ctx;

	graph__drain(r->graph, upto);
	render_sync(r);
}

static void render_flush(void *ctx)
{
	struct render *r = ctx;

	graph__flush(r->graph);
	render_sync(r);
}

/* The graph builder's, with the writer's buffer handed over after each drain. */
struct rec_sink render__sink(struct render *r)
{
	return (struct rec_sink){ render_feed, render_drain, render_flush, r };
}

struct gsink render__events(struct render *r)
{
	/* The caller may write between events: each line goes out as it ends. */
	if (r->ops->each_line)
		r->ops->each_line(r->w);
	return render_gsink(r);
}

/* The histograms beside a trace: on stderr, which the trace's format does not bind. */
static int hist_finish(struct render *r)
{
	int err = funcstat__finish(r->hist);

	out_stat__print_hists(stderr, r->hist, r->o.hist, r->o.nr_hist);
	if (err == -ENOMEM)
		fputs("bpfgraph: --hist: out of memory: some calls are missing from the "
		      "histograms\n", stderr);
	return err;
}

int render__lost(struct render *r, uint32_t cpu, uint64_t count)
{
	return graph__lost(r->graph, cpu, count);
}

int render__finish(struct render *r)
{
	int err = r->ops->finish ? r->ops->finish(r->w) : 0;

	render_sync(r);
	if (r->hist)
		err = hist_finish(r) ?: err;
	if (fflush(r->o.out) || ferror(r->o.out))
		err = -EIO;
	return err;
}

void render__free(struct render *r)
{
	if (!r)
		return;
	graph__free(r->graph);
	r->ops->free(r->w);
	funcstat__free(r->hist);
	free(r);
}
