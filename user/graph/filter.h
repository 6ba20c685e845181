/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live filters (-p, -C, -n, -D, -t, -x) applied again to what was
 * traced without them: "bpfgraph report" of a record file (here, on the
 * records, before the graph builder) and of function_graph text
 * (text/fgfilter.h, on the events). Each means what it means live, where
 * the BPF side applies it (bpf/filter.bpf.h, bpf/pair.bpf.h):
 *   -p, -C, -n  chosen when a task starts a graph (its depth 0 entry):
 *               the thread or its process listed, the CPU it started on,
 *               its comm then; the whole graph goes with that choice
 *   -D N        calls at depth N or deeper are hidden (depth 0 = the
 *               graph's root), with what they call
 *   -t USEC     no entries; an exit only for a call of USEC or longer
 *   -x GLOB     a matching function is hidden with its subtree
 * recfilter: a rec_sink in front of another one. Records come in per-CPU
 * order (a record file's order), and a task's records may come out of
 * time order where it moved between CPUs: they are held per CPU and let
 * through in time order at each drain, so that a task's state follows
 * its calls in the order they happened, as the BPF side saw them.
 */
#ifndef BG_FILTER_H
#define BG_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "functab.h"
#include "sink.h"

struct filter_opts {
	uint32_t max_depth; /* -D; 0 = every depth */
	uint64_t thresh_ns; /* -t; 0 = off */
	const uint32_t *pids; /* -p: thread or process ids */
	size_t nr_pids;
	const uint64_t *cpus; /* -C: bit n = CPU n (BG_MAX_CPUS bits); NULL = all */
	const char *comm; /* -n; NULL or "" = any */
	char *const *notrace; /* -x globs; n_notrace of them */
	size_t n_notrace;
};

/* Does f filter anything? */
bool filter__active(const struct filter_opts *f);
/* Is pid (or its process tgid, 0 = unknown) one of f's? true without -p. */
bool filter__pid_ok(const struct filter_opts *f, uint32_t pid, uint32_t tgid);
bool filter__cpu_ok(const struct filter_opts *f, uint32_t cpu);

struct recfilter;

/*
 * Records in, the ones f keeps out to next (its feed, drain and flush).
 * funcs is the table records point into; it may grow meanwhile. f is
 * copied, what it points to must outlive the filter. NULL with errno.
 */
struct recfilter *recfilter__new(const struct filter_opts *f, const struct functab *funcs,
				 struct rec_sink next);
struct rec_sink recfilter__sink(struct recfilter *rf);
void recfilter__free(struct recfilter *rf);

#endif
