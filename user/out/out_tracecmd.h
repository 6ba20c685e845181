/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * trace-cmd data file writer (--format=trace-cmd): the graph events as
 * the kernel's funcgraph_entry and funcgraph_exit events in per-CPU ring
 * buffer pages, for trace-cmd report and KernelShark (tcdat_layout.h says what
 * goes where). The pages wait in temporary files until out_tracecmd__end()
 * writes the file in one pass: its header holds where each CPU's pages
 * are, so the output needs no seeking (a pipe will do).
 */
#ifndef BG_OUT_TRACECMD_H
#define BG_OUT_TRACECMD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "functab.h"
#include "graph.h"

struct out_tracecmd_opts {
	FILE *out;
	/* names, modules, addresses and return types (read again at the end) */
	const struct functab *funcs;
	uint32_t flags; /* BG_O_* of the trace, kept for report */
	uint32_t dialect;
	uint32_t nr_cpu_ids;
	bool header;
};

struct out_tracecmd;

struct out_tracecmd *out_tracecmd__new(const struct out_tracecmd_opts *opts);
void out_tracecmd__free(struct out_tracecmd *w);
/* gsink.emit-compatible. */
void out_tracecmd__emit(void *w, const struct gev *ev);
/* Writes the file. 0, -EIO (a write failed) or -ENOMEM. */
int out_tracecmd__end(struct out_tracecmd *w);
/* The address a function gets in the file: its own, or one made up. */
uint64_t out_tracecmd__addr(const struct functab *funcs, uint32_t idx);

#endif
