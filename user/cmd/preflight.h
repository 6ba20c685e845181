/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Checks before a trace or a report starts: each says why on stderr. */
#ifndef BG_PREFLIGHT_H
#define BG_PREFLIGHT_H

#include <sys/resource.h>

#include "options.h"

struct bg_opts;
struct plan;

/*
 * Before anything is planned or attached (nothing with --dry-run): the
 * command can run, path (the trace's file, NULL: none) can be written,
 * -p's processes exist, no other bpfgraph's programs are still loaded.
 */
int preflight__before(const struct bg_opts *o, const char *path);
/* -C must name a CPU of this machine: -EINVAL if not. */
int preflight__cpus(const struct bg_opts *o);
/*
 * Options report cannot honour on durations measured already
 * (nosleep-time): -EOPNOTSUPP rather than output that silently ignores
 * them. 0 otherwise.
 */
int preflight__report_options(const struct bg_opts *o);
/* The open-files limit as high as it may go (the plan's links need fds). */
void preflight__raise_nofile(void);
/* The limits bpfgraph was started with, for COMMAND (NULL: unknown). */
const struct rlimit *preflight__nofile_before(void);
/* The plan's links need more file descriptors than the limit: -EMFILE. */
int preflight__nofile(const struct plan *p, enum bg_hook hook);

#endif
