/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where records go: the graph builder (live text, report), a record file
 * ("bpfgraph record"), or both (record --tee). The live session and a
 * record file's replay both write into one.
 */
#ifndef BG_SINK_H
#define BG_SINK_H

#include <stdint.h>

#include "bpfgraph.h"

/*
 * drain(upto) says no record older than upto is still to come; flush()
 * that none at all is.
 */
struct rec_sink {
	int (*feed)(void *ctx, const struct bg_rec *rec);
	void (*drain)(void *ctx, uint64_t upto);
	void (*flush)(void *ctx);
	void *ctx;
};

#endif
