/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Flame graph as one self-contained SVG document: a rectangle per stack
 * frame, as wide as the weight of the folded stacks through it (self time
 * in ns, or calls), root at the bottom. Embedded CSS and JavaScript, no
 * external resources: hovering shows name, time or count and percent,
 * clicking zooms into a frame, "Search" (or Ctrl-F) highlights frames
 * whose names match a regular expression. A URL fragment does the same
 * without a mouse: "#zoom=NAME", "#search=REGEX", joined by '&'.
 *
 * The output depends only on the events: stacks are laid out in name
 * order, nothing of the time or place of writing goes in.
 */
#ifndef BG_OUT_SVG_H
#define BG_OUT_SVG_H

#include <stdbool.h>
#include <stdio.h>

#include "functab.h"
#include "graph.h"
#include "out_folded.h"

struct out_svg_opts {
	FILE *out;
	const struct functab *funcs;
	bool count; /* weight = number of calls, not self time */
};

struct out_svg;

struct out_svg *out_svg__new(const struct out_svg_opts *opts);
void out_svg__free(struct out_svg *w);
/* gsink.emit-compatible. */
void out_svg__emit(void *w, const struct gev *ev);
/* Writes the whole document; -ENOMEM if stacks were lost to memory. */
int out_svg__end(struct out_svg *w);
/* What the flame graph left out; complete after out_svg__end(). */
const struct folded_stats *out_svg__stats(const struct out_svg *w);

#endif
