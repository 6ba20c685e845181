// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One graph builder, one writer of the chosen format. The text writer is
 * the one live tracing always used; report builds exactly this too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "out_chrome.h"
#include "out_folded.h"
#include "out_json.h"
#include "out_svg.h"
#include "render.h"

static const char *const format_names[] = {
	[BG_FMT_TEXT] = "text",
	[BG_FMT_JSON] = "json",
	[BG_FMT_CHROME] = "chrome",
	[BG_FMT_FOLDED] = "folded",
	[BG_FMT_SVG] = "svg",
};

struct render {
	struct render_opts o;
	struct graph *graph;
	struct out_text *text;
	struct out_json *json;
	struct out_chrome *chrome;
	struct out_folded *folded;
	struct out_svg *svg;
	struct gsink writer;
};

int render__parse_format(const char *name)
{
	for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (!strcmp(name, format_names[i]))
			return (int)i;
	return -EINVAL;
}

const char *render__format_name(enum bg_format f)
{
	return (unsigned int)f < sizeof(format_names) / sizeof(format_names[0]) ?
		       format_names[f] : "?";
}

/* The writer of o->format as a gsink; *ok false if it could not be made. */
static struct gsink make_writer(struct render *r)
{
	const struct render_opts *o = &r->o;
	bool hex = o->flags & BG_O_RETVAL_HEX;

	switch (o->format) {
	case BG_FMT_JSON:
		r->json = out_json__new(&(struct out_json_opts){ o->out, o->funcs, hex });
		return (struct gsink){ out_json__emit, r->json };
	case BG_FMT_CHROME:
		r->chrome = out_chrome__new(&(struct out_chrome_opts){ o->out, o->funcs, hex });
		return (struct gsink){ out_chrome__emit, r->chrome };
	case BG_FMT_FOLDED:
		r->folded = out_folded__new(
			&(struct out_folded_opts){ o->out, o->funcs, o->folded_count });
		return (struct gsink){ out_folded__emit, r->folded };
	case BG_FMT_SVG:
		r->svg = out_svg__new(&(struct out_svg_opts){ o->out, o->funcs, o->folded_count });
		return (struct gsink){ out_svg__emit, r->svg };
	default:
		r->text = out_text__new(&(struct out_text_opts){
			.out = o->out, .funcs = o->funcs, .flags = o->flags,
			.dialect = o->dialect, .nr_cpu_ids = o->nr_cpu_ids, .header = o->header });
		return (struct gsink){ out_text__emit, r->text };
	}
}

struct render *render__new(const struct render_opts *o)
{
	struct render *r = calloc(1, sizeof(*r));
	struct graph_opts go = { .funcs = o->funcs };

	if (!r)
		return NULL;
	r->o = *o;
	go.sink = r->writer = make_writer(r);
	if (go.sink.ctx)
		r->graph = graph__new(&go);
	if (!r->graph) {
		render__free(r);
		errno = ENOMEM;
		return NULL;
	}
	if (r->text)
		out_text__begin(r->text);
	if (r->chrome)
		out_chrome__begin(r->chrome);
	return r;
}

struct rec_sink render__sink(struct render *r)
{
	return graph__sink(r->graph);
}

struct gsink render__events(struct render *r)
{
	return r->writer;
}

int render__finish(struct render *r)
{
	int err = 0;

	if (r->json)
		out_json__end(r->json);
	if (r->chrome)
		out_chrome__end(r->chrome);
	if (r->folded)
		err = out_folded__end(r->folded);
	if (r->svg)
		err = out_svg__end(r->svg);
	if (fflush(r->o.out) || ferror(r->o.out))
		err = -EIO;
	return err;
}

void render__free(struct render *r)
{
	if (!r)
		return;
	graph__free(r->graph);
	out_text__free(r->text);
	out_json__free(r->json);
	out_chrome__free(r->chrome);
	out_folded__free(r->folded);
	out_svg__free(r->svg);
	free(r);
}
