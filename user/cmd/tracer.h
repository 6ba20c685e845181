/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The tracing steps shared by "bpfgraph -G ..." and "bpfgraph record":
 * pre-flight, capabilities, tier, plan, programs, hooks, session, close. The caller says
 * where records go: printed (in --format, to -o or stdout), into a record
 * file, or both.
 */
#ifndef BG_TRACER_H
#define BG_TRACER_H

#include <stdbool.h>

#include "cli.h"
#include "output.h"

/* libbpf's messages at verbosity (number of -v). */
void tracer__set_verbosity(int verbosity);
/* Everything from the kernel info to the summary: 0 or -errno (reported). */
int tracer__run(const struct bg_opts *o, const struct tracer_sinks *sinks);
/*
 * The exit status for tracer__run's result: BG_EXIT_INTERRUPTED for
 * -EINTR (stopped before tracing), BG_EXIT_PIPE for -EPIPE (the output
 * was closed), else BG_EXIT_FAILURE or BG_EXIT_OK.
 */
int tracer__exit_status(int err);

#endif
