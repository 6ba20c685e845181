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

#include "out_folded.h"

/*
 * Writes the flame graph of f's stacks to f's out (folded__new()'s
 * options); -ENOMEM if some stacks were lost to memory.
 */
int out_svg__end(struct folded *f);

#endif
