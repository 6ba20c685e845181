// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * SVG flame graph. The folded stacks (struct folded, shared with the
 * folded writer) are sorted frame by frame, so that the stacks through
 * one frame are neighbours; one walk over them with a stack of open
 * frames then gives every frame its offset (the weight laid out before
 * it) and its weight, with no tree in memory. A frame is written when
 * the walk leaves it, children before parents.
 *
 * Geometry and labels are computed here so that the picture is right
 * without scripts; the script only recomputes them when zooming, from
 * the integer offsets and weights kept in data- attributes.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bpfgraph.h"
#include "out_folded.h"
#include "out_svg.h"

#define SVG_WIDTH 1200
#define SVG_PAD 10 /* left and right of the frames */
#define SVG_TOP 40 /* title and buttons */
#define SVG_BOTTOM 30 /* details line */
#define FRAME_H 16
#define FONT_PX 12
/* Advance of one monospace character at FONT_PX, for fitting labels. */
#define CHAR_W 7.2
/* Narrower frames are left out, as flamegraph.pl does: unreadable anyway. */
#define MIN_WIDTH 0.1
/* The root frame and one level per depth of the graph builder. */
#define MAX_LEVELS (BG_MAX_DEPTH + 1)

/* A frame of the walk: the current stack's frame at one level. */
struct open_frame {
	const char *name; /* not terminated: a piece of a folded key */
	size_t len;
	uint64_t off, weight;
};

struct layout {
	FILE *out;
	bool count;
	uint64_t total;
	unsigned int height;
	double scale; /* px per unit of weight */
	struct open_frame path[MAX_LEVELS];
	unsigned int depth; /* open frames, the root included */
	uint64_t cum; /* weight laid out so far */
};

static const char svg_style[] =
	"text { font-family: monospace; font-size: 12px; fill: #000; }\n"
	"#title { font-size: 16px; text-anchor: middle; }\n"
	"#search, #matched { text-anchor: end; }\n"
	".btn { cursor: pointer; fill: #1f4e8c; }\n"
	".btn:hover { text-decoration: underline; }\n"
	"g.f { cursor: pointer; }\n"
	"g.f text { pointer-events: none; }\n"
	"g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
	"g.f.hide { display: none; }\n"
	"g.f.anc rect { opacity: 0.55; }\n";

/*
 * Frames carry data-o (offset), data-w (weight) and data-d (level) in
 * units of weight; the first child of a frame is its <title>, "NAME
 * (weight, percent)". The root element holds the constants of the layout.
 */
static const char svg_script[] =
	"(function () {\n"
	"'use strict';\n"
	"var svg = document.documentElement;\n"
	"var W = +svg.getAttribute('width'), PAD = +svg.getAttribute('data-pad');\n"
	"var CW = +svg.getAttribute('data-cw'), total = +svg.getAttribute('data-total');\n"
	"var frames = [].slice.call(document.querySelectorAll('g.f'));\n"
	"var details = document.getElementById('details');\n"
	"var matched = document.getElementById('matched');\n"
	"var reset = document.getElementById('reset');\n"
	"var pattern = '';\n"
	"function num(g, a) { return +g.getAttribute('data-' + a); }\n"
	"function info(g) { return g.firstElementChild.textContent; }\n"
	"function nameOf(g) { var t = info(g); return t.substring(0, t.lastIndexOf(' (')); }\n"
	"function label(name, w) {\n"
	"	var fit = Math.floor((w - 6) / CW);\n"
	"	if (fit < 3) return '';\n"
	"	return name.length > fit ? name.substring(0, fit - 2) + '..' : name;\n"
	"}\n"
	"function place(g, o0, w0) {\n"
	"	var r = g.querySelector('rect'), t = g.querySelector('text');\n"
	"	var s = (W - 2 * PAD) / w0, x = PAD + (num(g, 'o') - o0) * s, w = num(g, 'w') * s;\n"
	"	r.setAttribute('x', x.toFixed(2));\n"
	"	r.setAttribute('width', w.toFixed(2));\n"
	"	t.setAttribute('x', (x + 3).toFixed(2));\n"
	"	t.textContent = label(nameOf(g), w);\n"
	"}\n"
	"function zoom(g) {\n"
	"	var o0 = num(g, 'o'), w0 = num(g, 'w'), d0 = num(g, 'd');\n"
	"	frames.forEach(function (f) {\n"
	"		var o = num(f, 'o'), w = num(f, 'w'), d = num(f, 'd');\n"
	"		var inside = d >= d0 && o >= o0 && o + w <= o0 + w0;\n"
	"		var above = d < d0 && o <= o0 && o + w >= o0 + w0;\n"
	"		f.classList.toggle('hide', !inside && !above);\n"
	"		f.classList.toggle('anc', above);\n"
	"		if (inside) place(f, o0, w0);\n"
	"		else if (above) place(f, o, w);\n"
	"	});\n"
	"	reset.setAttribute('visibility', 'visible');\n"
	"	svg.setAttribute('data-zoom', nameOf(g));\n"
	"}\n"
	"function unzoom() {\n"
	"	frames.forEach(function (f) {\n"
	"		f.classList.remove('hide', 'anc');\n"
	"		place(f, 0, total);\n"
	"	});\n"
	"	reset.setAttribute('visibility', 'hidden');\n"
	"	svg.removeAttribute('data-zoom');\n"
	"}\n"
	"function search(p) {\n"
	"	var re = null, hits = [], sum = 0, end = 0;\n"
	"	try { re = p ? new RegExp(p) : null; } catch (e) { matched.textContent = 'Bad regex'; return; }\n"
	"	pattern = p;\n"
	"	frames.forEach(function (f) {\n"
	"		var r = f.querySelector('rect'), m = !!re && re.test(nameOf(f));\n"
	"		if (!r.hasAttribute('data-fill')) r.setAttribute('data-fill', r.getAttribute('fill'));\n"
	"		r.setAttribute('fill', m ? 'rgb(230,0,230)' : r.getAttribute('data-fill'));\n"
	"		f.classList.toggle('match', m);\n"
	"		if (m) hits.push(f);\n"
	"	});\n"
	"	/* what the matches cover, nested matches counted once */\n"
	"	hits.sort(function (a, b) { return num(a, 'o') - num(b, 'o') || num(b, 'w') - num(a, 'w'); });\n"
	"	hits.forEach(function (f) {\n"
	"		var o = num(f, 'o'), e = o + num(f, 'w');\n"
	"		if (e <= end) return;\n"
	"		sum += e - Math.max(o, end);\n"
	"		end = e;\n"
	"	});\n"
	"	matched.textContent = re && total ? 'Matched: ' + (100 * sum / total).toFixed(2) + '%' : ' ';\n"
	"	if (re) svg.setAttribute('data-search', p); else svg.removeAttribute('data-search');\n"
	"}\n"
	"function ask() {\n"
	"	var p = window.prompt('Search (regular expression, empty to clear)', pattern);\n"
	"	if (p !== null) search(p);\n"
	"}\n"
	"function frameOf(e) { return e.target.closest ? e.target.closest('g.f') : null; }\n"
	"var box = document.getElementById('frames');\n"
	"box.addEventListener('mouseover', function (e) {\n"
	"	var g = frameOf(e);\n"
	"	if (g) details.textContent = info(g);\n"
	"});\n"
	"box.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
	"box.addEventListener('click', function (e) {\n"
	"	var g = frameOf(e);\n"
	"	if (g) zoom(g);\n"
	"});\n"
	"reset.addEventListener('click', unzoom);\n"
	"document.getElementById('search').addEventListener('click', ask);\n"
	"window.addEventListener('keydown', function (e) {\n"
	"	if (((e.ctrlKey || e.metaKey) && e.key === 'f') || e.key === 'F3') {\n"
	"		e.preventDefault();\n"
	"		ask();\n"
	"	} else if (e.key === 'Escape') {\n"
	"		unzoom();\n"
	"		search('');\n"
	"	}\n"
	"});\n"
	"/* #zoom=NAME&search=REGEX: the widest frame called NAME */\n"
	"function fromHash() {\n"
	"	location.hash.slice(1).split('&').forEach(function (kv) {\n"
	"		var i = kv.indexOf('='), k = kv.slice(0, i), v = decodeURIComponent(kv.slice(i + 1));\n"
	"		var best = null;\n"
	"		if (i < 0) return;\n"
	"		if (k === 'search') search(v);\n"
	"		if (k !== 'zoom') return;\n"
	"		frames.forEach(function (f) {\n"
	"			if (nameOf(f) === v && (!best || num(f, 'w') > num(best, 'w'))) best = f;\n"
	"		});\n"
	"		if (best) zoom(best);\n"
	"	});\n"
	"}\n"
	"window.addEventListener('hashchange', fromHash);\n"
	"fromHash();\n"
	"})();\n";


/* Text for XML content and attributes; bytes as characters (Latin-1). */
static void put_xml(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '&')
			fputs("&amp;", f);
		else if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c == '\'')
			fputs("&apos;", f);
		else if (c < 0x20 || c == 0x7f)
			fputc('?', f); /* not even a character reference may name these */
		else if (c >= 0x80)
			fprintf(f, "&#x%02x;", c);
		else
			fputc(c, f);
	}
}

/* ';' ends a frame: sorts before any character, after the end of the key. */
static int frame_char(unsigned char c)
{
	return c == ';' ? 1 : c ? c + 1 : 0;
}

static int cmp_frames(const void *a, const void *b)
{
	const unsigned char *x = (const unsigned char *)((const struct folded_stack *)a)->key;
	const unsigned char *y = (const unsigned char *)((const struct folded_stack *)b)->key;

	for (; *x && *x == *y; x++, y++)
		;
	return frame_char(*x) - frame_char(*y);
}

static unsigned int levels_of(const char *key)
{
	unsigned int n = 1;

	for (; *key; key++)
		n += *key == ';';
	return n;
}

/* Warm colours for vmlinux, cool ones for modules ("name [mod]"). */
static void put_fill(FILE *f, const char *name, size_t len, unsigned int level)
{
	uint32_t h = 2166136261U; /* FNV-1a */
	unsigned int r, g, b;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619U;
	if (!level) {
		r = g = b = 200;
	} else if (len && name[len - 1] == ']' && name[0] != '[') {
		r = 60 + h % 60;
		g = 150 + (h >> 8) % 70;
		b = 200 + (h >> 16) % 56;
	} else {
		r = 205 + h % 51;
		g = (h >> 8) % 231;
		b = (h >> 16) % 56;
	}
	fprintf(f, "rgb(%u,%u,%u)", r, g, b);
}

static void put_weight(FILE *f, const struct layout *l, uint64_t weight)
{
	if (l->count)
		fprintf(f, "%" PRIu64 " call%s", weight, weight == 1 ? "" : "s");
	else
		fprintf(f, "%" PRIu64 ".%03u us", weight / 1000, (unsigned int)(weight % 1000));
}

/* The label that fits width px: the name, cut with "..", or nothing. */
static void put_label(FILE *f, const char *name, size_t len, double width)
{
	double fit = (width - 6) / CHAR_W;

	if (fit < 3)
		return;
	if ((double)len > fit) {
		put_xml(f, name, (size_t)fit - 2);
		fputs("..", f);
	} else {
		put_xml(f, name, len);
	}
}

static void put_frame(struct layout *l, const struct open_frame *fr, unsigned int level)
{
	double x = SVG_PAD + (double)fr->off * l->scale, w = (double)fr->weight * l->scale;
	unsigned int y = l->height - SVG_BOTTOM - (level + 1) * FRAME_H;
	FILE *f = l->out;

	if (w < MIN_WIDTH)
		return;
	fprintf(f, "<g class=\"f\" data-o=\"%" PRIu64 "\" data-w=\"%" PRIu64 "\" data-d=\"%u\">"
		"<title>", fr->off, fr->weight, level);
	put_xml(f, fr->name, fr->len);
	fputs(" (", f);
	put_weight(f, l, fr->weight);
	fprintf(f, ", %.2f%%)</title><rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%u\" "
		"fill=\"", 100.0 * (double)fr->weight / (double)l->total, x, y, w, FRAME_H - 1);
	put_fill(f, fr->name, fr->len, level);
	fprintf(f, "\"/><text x=\"%.2f\" y=\"%u\">", x + 3, y + FRAME_H - 4);
	put_label(f, fr->name, fr->len, w);
	fputs("</text></g>\n", f);
}

/* Leaves the open frames down to level keep (exclusive), writing them. */
static void close_to(struct layout *l, unsigned int keep)
{
	while (l->depth > keep) {
		l->depth--;
		put_frame(l, &l->path[l->depth], l->depth);
	}
}

/* One stack: leave what it does not share with the open path, enter the rest. */
static void walk(struct layout *l, const struct folded_stack *s)
{
	const char *p = s->key;
	unsigned int level = 1;

	while (level < MAX_LEVELS) {
		size_t len = strcspn(p, ";");
		struct open_frame *fr = &l->path[level];

		if (level < l->depth && (fr->len != len || memcmp(fr->name, p, len)))
			close_to(l, level);
		if (level >= l->depth) {
			*fr = (struct open_frame){ p, len, l->cum, 0 };
			l->depth = level + 1;
		}
		level++;
		if (!p[len])
			break;
		p += len + 1;
	}
	/* deeper frames of the last stack (none, when sorted by cmp_frames) */
	close_to(l, level);
	for (unsigned int i = 0; i < l->depth; i++)
		l->path[i].weight += s->weight;
	l->cum += s->weight;
}

static void put_head(const struct layout *l)
{
	FILE *f = l->out;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" "
		"height=\"%u\" viewBox=\"0 0 %u %u\" data-total=\"%" PRIu64 "\" "
		"data-unit=\"%s\" data-pad=\"%u\" data-cw=\"%.1f\">\n",
		SVG_WIDTH, l->height, SVG_WIDTH, l->height, l->total, l->count ? "calls" : "ns",
		SVG_PAD, CHAR_W);
	fprintf(f, "<style type=\"text/css\"><![CDATA[\n%s]]></style>\n", svg_style);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#fbfaf5\"/>\n",
		SVG_WIDTH, l->height);
	fprintf(f, "<text id=\"title\" x=\"%u\" y=\"24\">Flame graph: %s</text>\n",
		SVG_WIDTH / 2, l->count ? "calls" : "self time");
	fprintf(f, "<text id=\"reset\" class=\"btn\" x=\"%u\" y=\"24\" visibility=\"hidden\">"
		"Reset zoom</text>\n", SVG_PAD);
	fprintf(f, "<text id=\"search\" class=\"btn\" x=\"%u\" y=\"24\">Search</text>\n",
		SVG_WIDTH - SVG_PAD);
	fprintf(f, "<text id=\"details\" x=\"%u\" y=\"%u\">%s</text>\n", SVG_PAD,
		l->height - 10, l->total ? " " : "No calls were traced.");
	fprintf(f, "<text id=\"matched\" x=\"%u\" y=\"%u\"> </text>\n", SVG_WIDTH - SVG_PAD,
		l->height - 10);
}

int out_svg__end(struct folded *f)
{
	const struct folded_opts *o = folded__opts(f);
	struct layout l = { .out = o->out, .count = o->count };
	unsigned int levels = 1;
	struct folded_stack *v;
	size_t n;
	int err = folded__stacks(f, &v, &n);

	if (n)
		qsort(v, n, sizeof(*v), cmp_frames);
	for (size_t i = 0; i < n; i++) {
		unsigned int k = levels_of(v[i].key) + 1;

		l.total += v[i].weight;
		if (k > levels)
			levels = k < MAX_LEVELS ? k : MAX_LEVELS;
	}
	l.height = SVG_TOP + levels * FRAME_H + SVG_BOTTOM;
	l.scale = l.total ? (double)(SVG_WIDTH - 2 * SVG_PAD) / (double)l.total : 0;
	put_head(&l);
	fputs("<g id=\"frames\">\n", l.out);
	l.path[0] = (struct open_frame){ "all", 3, 0, 0 };
	l.depth = 1;
	for (size_t i = 0; i < n; i++)
		walk(&l, &v[i]);
	if (l.total)
		close_to(&l, 0);
	fputs("</g>\n", l.out);
	fprintf(l.out, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n",
		svg_script);
	return err;
}
