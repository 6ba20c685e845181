/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * trace-cmd data files read back ("bpfgraph report -i trace.dat"): the
 * files bpfgraph writes (--format=trace-cmd) and those "trace-cmd record
 * -p function_graph" makes, versions 6 and 7 (7 uncompressed or zstd). The
 * funcgraph_entry and funcgraph_exit events of the top instance become
 * bpfgraph's ENTRY and EXIT records, merged across CPUs by time stamp,
 * for the graph builder and writers of live tracing; the event layouts
 * come from the formats in the file, so any kernel's do. Names come from
 * the file's kallsyms, comms from its saved cmdlines, and, in bpfgraph's
 * own files, the options and return types from its option (tcdat_layout.h).
 */
#ifndef BG_RECORD_TCDAT_H
#define BG_RECORD_TCDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "functab.h"
#include "sink.h"

struct tcdat_meta {
	uint32_t version; /* of the file: 6 or 7 */
	bool bpfgraph; /* written by bpfgraph: the fields below are its */
	uint32_t flags; /* BG_O_* */
	uint32_t dialect; /* enum bg_dialect */
	uint32_t nr_cpu_ids;
	bool header;
	bool has_retval; /* funcgraph_exit has a retval field (6.5+) */
};

/* Where the records go: the graph builder's way in, and lost events. */
struct tcdat_sink {
	struct rec_sink recs;
	/* events lost on cpu before its next record; count 0: unknown */
	int (*lost)(void *ctx, uint32_t cpu, uint64_t count);
	void *lost_ctx;
};

struct tcdat_stats {
	uint64_t entries, exits, other; /* events read; other: not function_graph's */
	uint64_t lost_pages; /* pages that said events were lost before them */
};

struct tcdat;

/* Starts with the trace-cmd magic. */
bool tcdat__is(const void *head, size_t n);
/*
 * Reads the file's metadata (f stays the caller's, read with pread).
 * NULL with one message on err ("PREFIX: NAME: ...") and errno set.
 */
struct tcdat *tcdat__open(FILE *f, const char *name, const char *prefix, FILE *err);
const struct tcdat_meta *tcdat__meta(const struct tcdat *r);
/* The functions met so far: grows while replaying. */
const struct functab *tcdat__funcs(const struct tcdat *r);
/* Every record, in time order, then the sink's flush. 0 or -errno (with a message). */
int tcdat__replay(struct tcdat *r, const struct tcdat_sink *s);
const struct tcdat_stats *tcdat__stats(const struct tcdat *r);
void tcdat__close(struct tcdat *r);

#endif
