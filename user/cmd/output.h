/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where a trace's records go: rendered (--format, to -o or stdout), into
 * a record file ("bpfgraph record"), or both (record --tee). Opened before
 * the command runs, so that an output that cannot be created costs no
 * tracing. A write of the rendered trace that fails ends the session (the
 * next record fed returns the error) and is told once, at close; a reader
 * that went away (EPIPE: "| head") ends it quietly.
 */
#ifndef BG_OUTPUT_H
#define BG_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "args_src.h"
#include "cli.h"
#include "functab.h"
#include "record.h"
#include "sink.h"

struct tracer_sinks {
	bool print; /* render the trace (o->output, or stdout when recording) */
	const char *record; /* write a record file here; NULL: none */
	const char *cmdline; /* stored in the record file */
};

struct output;

/*
 * NULL (errno set, reported) on failure. args: the prototypes and symbols
 * funcgraph-args and -retaddr print with (copied; what it points to must
 * outlive out); NULL: none.
 */
struct output *output__open(const struct bg_opts *o, const struct tracer_sinks *ts,
			    const struct functab *funcs, const struct args_src *args);
struct kbtf;
struct ksyms;
/* An args_src over the running kernel: its BTF (vmlinux, modules) and kallsyms. */
struct args_src output__kernel_args(struct kbtf *kb, const struct ksyms *ks);
/* Where the session feeds records. */
struct rec_sink output__sink(struct output *out);
/*
 * Ends and closes everything, frees out. t: the counts a record file ends
 * with; NULL on error paths (nothing is finished then). path: the record
 * file's, for the message. 0 or the first error (-EPIPE: the reader of the
 * rendered trace went away).
 */
int output__close(struct output *out, const struct record_trailer *t, const char *path);
/* clock_gettime(id) in ns. */
uint64_t output__clock_ns(clockid_t id);

#endif
